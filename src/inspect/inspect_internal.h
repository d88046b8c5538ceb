/* The inspector's parts: the server thread's request records (server.c),
 * the JSON writer of the answers (json_out.c) and the endpoints, answered
 * on the main thread (api.c, api_write.c). */
#ifndef ZE_INSPECT_INTERNAL_H
#define ZE_INSPECT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/inspect.h"

#define ZE__INSPECT_LOG "inspect"

enum {
    ZE__INSPECT_URL_MAX = 256,
    ZE__INSPECT_ARGS_MAX = 512,
    ZE__INSPECT_BODY_MAX = 4096,
    ZE__INSPECT_ANSWER_MAX = 8u << 20, /* an answer larger than this is a 500 */
    ZE__INSPECT_FRAMES = 120,          /* frame times kept for /api/stats */
};

/* An answer's bytes: the heap that frees them travels in front, so the
 * server thread's free callback needs nothing else. */
typedef struct ze__insp_buf_t {
    ze_heap_t *heap;
    size_t len, cap;
    bool failed; /* out of memory or over ZE__INSPECT_ANSWER_MAX */
    char data[];
} ze__insp_buf_t;

/* JSON into a growing ze__insp_buf_t: commas and nesting handled. */
typedef struct ze__jw_t {
    ze_heap_t *heap;
    ze__insp_buf_t *buf;
    uint32_t depth;
    bool after_key;
    uint32_t count[32]; /* members written at each depth */
} ze__jw_t;

void ze__jw_init(ze__jw_t *w, ze_heap_t *heap);
bool ze__jw_failed(const ze__jw_t *w);
void ze__jw_raw(ze__jw_t *w, const char *s, size_t n);
void ze__jw_obj(ze__jw_t *w);
void ze__jw_obj_end(ze__jw_t *w);
void ze__jw_arr(ze__jw_t *w);
void ze__jw_arr_end(ze__jw_t *w);
void ze__jw_key(ze__jw_t *w, const char *key);
void ze__jw_str(ze__jw_t *w, const char *s);
void ze__jw_strn(ze__jw_t *w, const char *s, size_t n);
void ze__jw_u64(ze__jw_t *w, uint64_t v);
void ze__jw_i64(ze__jw_t *w, int64_t v);
void ze__jw_f64(ze__jw_t *w, double v); /* NaN and infinities as null */
void ze__jw_bool(ze__jw_t *w, bool v);
void ze__jw_null(ze__jw_t *w);
/* The buffer (the caller owns it now); NULL when writing failed. */
ze__insp_buf_t *ze__jw_take(ze__jw_t *w);
void ze__insp_buf_free(ze__insp_buf_t *b);

typedef enum ze__req_state {
    ZE__REQ_RECEIVING = 0, /* headers seen, body arriving */
    ZE__REQ_WAITING,       /* suspended, in the queue for the main thread */
    ZE__REQ_ANSWERED,      /* answer set, connection resumed */
} ze__req_state;

typedef struct ze__insp_req_t {
    struct ze__insp_req_t *next; /* the waiting queue */
    struct MHD_Connection *conn;
    ze__req_state state;
    bool post;
    bool body_too_big;
    char url[ZE__INSPECT_URL_MAX];
    char args[ZE__INSPECT_ARGS_MAX]; /* "key\0value\0key\0value\0" */
    uint32_t args_len;
    char body[ZE__INSPECT_BODY_MAX + 1];
    uint32_t body_len;
    /* the answer, set on the main thread before the resume */
    unsigned status;
    const char *content_type;
    ze__insp_buf_t *answer;
} ze__insp_req_t;

struct ze_inspector_t {
    ze_engine_t *engine;
    ze_mem_t *mem;
    ze_heap_t *heap; /* the Inspect owner's, thread-safe: answers are freed on the server thread */
    struct MHD_Daemon *daemon;
    uint16_t port;
    bool allow_writes;
    uint32_t max_connections;
    uint64_t budget_ns;
    char token[33];
    pthread_mutex_t lock;
    ze__insp_req_t *head, *tail; /* waiting, oldest first */
    bool stopping;
    atomic_uint connections;
    atomic_uint waiting;
    atomic_uint_fast64_t requests, forbidden, refused, writes;
    _Atomic double last_step_ms, max_step_ms;
    /* main thread: frame times between steps, for /api/stats */
    uint64_t last_step_ns;
    double frame_ms[ZE__INSPECT_FRAMES];
    uint32_t frame_at, frame_count;
};

/* The main thread's answer to one request: status, content type, body. */
void ze__inspect_answer(ze_inspector_t *in, ze__insp_req_t *req);
/* A JSON error body {"error": msg}. */
void ze__inspect_error(ze_inspector_t *in, ze__insp_req_t *req, unsigned status, const char *msg);
/* A query argument of the request, NULL when absent. */
const char *ze__inspect_arg(const ze__insp_req_t *req, const char *key);
/* Floats per element of the vector types, 0 for a scalar (api.c). */
uint32_t ze__inspect_vector_len(ze_field_type t);
/* Bytes of one element of a field type (api.c). */
uint32_t ze__inspect_field_size(ze_field_type t);
/* A decimal entity handle, ending at '\0' or '/'. */
bool ze__inspect_parse_entity(const char *s, ze_entity_t *out);
/* ?world=INDEX (0 when absent); NULL when it names no world (answered 404). */
ze_world_t *ze__inspect_world_arg(ze_inspector_t *in, ze__insp_req_t *req);
/* An entity id as a decimal string (exact in JavaScript). */
void ze__inspect_entity_id(ze__jw_t *w, ze_entity_t e);
/* POST /api/...: the writes (api_write.c). */
void ze__inspect_write(ze_inspector_t *in, ze__insp_req_t *req);
/* The static page (page.c, generated from page.html at configure time). */
extern const char ze__inspect_page[];
extern const size_t ze__inspect_page_len;

#endif
