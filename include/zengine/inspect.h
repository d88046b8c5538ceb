/* zengine/inspect.h — the inspector: a running world over HTTP.
 *
 * What: `zengine run --inspect PORT` (ze_run_desc_t.inspect) serves the
 * running engine on 127.0.0.1 through libmicrohttpd: JSON endpoints under
 * /api/ (worlds, entities paged and filtered by component, an entity's
 * components through field reflection, systems with their time, frame
 * stats, the GPU passes' times, memory owners, assets and their states,
 * the log ring) and one static page at / that browses them live
 * (docs/inspect.md lists every endpoint). Writes (a component's fields,
 * pause) are refused unless the run allows them (--inspect-write) and then
 * need the token logged at start (header X-Zengine-Token).
 * Not: a remote debugger: it binds the loopback interface only and answers
 * 403 to a Host header that is not a loopback name (DNS rebinding).
 * Threads: the server thread (libmicrohttpd's) parses requests, refuses
 * what it can without the world (Host, method, size, the write switch)
 * and suspends the rest; ze_inspector_step, on the main thread between
 * frames, answers them from the world as it stands then, within a time
 * budget (0.5 ms by default; at least one request per step), and resumes
 * them. The server thread never touches ECS or engine state.
 * Memory: requests and answers come from the Inspect owner's heap; at most
 * `max_connections` connections (64), each within libmicrohttpd's
 * per-connection memory limit; a client over the limit is refused (its
 * connection closed) and counted.
 * Errors: a port in use or refused is ZE_ERR_IO at start (the run fails,
 * naming the port); a request gets a JSON error {"error": "..."} with its
 * HTTP status (400, 403, 404, 405, 413, 503 while shutting down).
 */
#ifndef ZENGINE_INSPECT_H
#define ZENGINE_INSPECT_H

#include "zengine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ze_inspector_t ze_inspector_t;

typedef struct ze_inspector_desc_t {
    uint16_t port;              /* 0 = a free port (ze_inspector_port tells which) */
    bool allow_writes;          /* false: every write is 403 */
    uint32_t max_connections;   /* 0 = 64 */
    uint32_t connection_memory; /* libmicrohttpd's per-connection limit; 0 = 32 KiB */
    double step_budget_ms;      /* main-thread time per step; 0 = 0.5 */
    uint32_t timeout_s;         /* an idle connection is closed after; 0 = 30 */
} ze_inspector_desc_t;

/* Starts the server thread. The engine's world, backend and assets are read
 * from the main thread in ze_inspector_step only. */
ze_result ze_inspector_create(ze_engine_t *e, const ze_inspector_desc_t *desc,
                              ze_inspector_t **out);
/* Answers the requests waiting (main thread, between frames). */
void ze_inspector_step(ze_inspector_t *in);
/* Answers what still waits with 503, stops the server thread, frees. */
void ze_inspector_destroy(ze_inspector_t *in);

uint16_t ze_inspector_port(const ze_inspector_t *in);
/* The write token (32 hex digits from getrandom), "" when writes are off. */
const char *ze_inspector_token(const ze_inspector_t *in);

typedef struct ze_inspector_stats_t {
    uint64_t requests;    /* answered, any status */
    uint64_t forbidden;   /* 403: Host, writes off, token */
    uint64_t refused;     /* connections over max_connections */
    uint64_t writes;      /* writes applied */
    uint32_t waiting;     /* suspended, to be answered at the next step */
    uint32_t connections; /* open now */
    double last_step_ms;  /* main-thread time of the last step */
    double max_step_ms;   /* the longest step */
} ze_inspector_stats_t;
/* Any thread. */
ze_inspector_stats_t ze_inspector_stats(const ze_inspector_t *in);

/* The engine hook: ze_app_desc_t.inspector = ze_inspector_tool(). It reads
 * the port and the write switch from the run (--inspect PORT,
 * --inspect-write), logs the address and the token, and is reached through
 * ze_engine_inspector(e) (a ze_inspector_t *). */
const ze_engine_tool_t *ze_inspector_tool(void);

#ifdef __cplusplus
}
#endif

#endif
