/* The inspector's server side: libmicrohttpd's internal polling thread
 * takes requests, refuses what needs no world (a Host that is not a
 * loopback name, a method, a body over the limit, writes when they are off
 * or without the token) and suspends the rest in a queue; the main thread
 * answers the queue in ze_inspector_step within its budget and resumes
 * each connection, whose next call on the server thread sends the answer.
 * The server thread never reads engine state. */
#define _GNU_SOURCE /* getrandom */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "inspect/inspect_internal.h"

static const char *const g_json = "application/json; charset=utf-8";

/* Answers made on the server thread: constant bodies, never allocated. */
static enum MHD_Result answer_const(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, g_json);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* Host: 127.0.0.1, localhost or [::1], with or without a port. Anything
 * else (a DNS name pointed at us by a page elsewhere) is refused. */
static bool loopback_host(const char *host)
{
    if (!host)
        return false;
    static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
    for (size_t i = 0; i < ZE_COUNTOF(names); i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(host, names[i], n) != 0)
            continue;
        const char *p = host + n;
        if (*p == '\0')
            return true;
        if (*p++ != ':' || !*p)
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
        return *p == '\0';
    }
    return false;
}

static bool token_matches(const ze_inspector_t *in, const char *given)
{
    if (!given || strlen(given) != 32)
        return false;
    unsigned diff = 0; /* the whole token compared, whatever differs first */
    for (int i = 0; i < 32; i++)
        diff |= (unsigned)(given[i] ^ in->token[i]);
    return diff == 0;
}

static enum MHD_Result copy_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    (void)kind;
    ze__insp_req_t *req = cls;
    size_t kl = strlen(key), vl = value ? strlen(value) : 0;
    if (req->args_len + kl + vl + 2 > sizeof req->args)
        return MHD_NO; /* the rest does not fit: left out */
    memcpy(req->args + req->args_len, key, kl + 1);
    req->args_len += (uint32_t)kl + 1;
    memcpy(req->args + req->args_len, value ? value : "", vl + 1);
    req->args_len += (uint32_t)vl + 1;
    return MHD_YES;
}

const char *ze__inspect_arg(const ze__insp_req_t *req, const char *key)
{
    for (uint32_t at = 0; at < req->args_len;) {
        const char *k = req->args + at;
        const char *v = k + strlen(k) + 1;
        if (strcmp(k, key) == 0)
            return v;
        at = (uint32_t)(v + strlen(v) + 1 - req->args);
    }
    return NULL;
}

static void free_answer(void *cls)
{
    ze__insp_buf_free(cls);
}

static enum MHD_Result send_answer(ze_inspector_t *in, ze__insp_req_t *req)
{
    struct MHD_Response *r;
    ze__insp_buf_t *b = req->answer;
    if (b) {
        r = MHD_create_response_from_buffer_with_free_callback_cls(b->len, b->data, free_answer, b);
        if (r)
            req->answer = NULL; /* the response frees it */
    } else {
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            req->content_type ? req->content_type : g_json);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(req->conn, req->status ? req->status : 500, r);
    MHD_destroy_response(r);
    atomic_fetch_add(&in->requests, 1);
    return ok;
}

static enum MHD_Result refuse(ze_inspector_t *in, struct MHD_Connection *c, unsigned status,
                              const char *body)
{
    if (status == MHD_HTTP_FORBIDDEN)
        atomic_fetch_add(&in->forbidden, 1);
    atomic_fetch_add(&in->requests, 1);
    return answer_const(c, status, body);
}

/* Suspend first, then queue: the main thread can only resume a connection
 * that is suspended already. */
static enum MHD_Result enqueue(ze_inspector_t *in, ze__insp_req_t *req)
{
    pthread_mutex_lock(&in->lock);
    bool stopping = in->stopping;
    if (!stopping) {
        MHD_suspend_connection(req->conn);
        req->state = ZE__REQ_WAITING;
        req->next = NULL;
        if (in->tail)
            in->tail->next = req;
        else
            in->head = req;
        in->tail = req;
        atomic_fetch_add(&in->waiting, 1);
    }
    pthread_mutex_unlock(&in->lock);
    if (stopping)
        return refuse(in, req->conn, MHD_HTTP_SERVICE_UNAVAILABLE,
                      "{\"error\":\"the engine is shutting down\"}");
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    ze_inspector_t *in = cls;
    ze__insp_req_t *req = *req_cls;
    if (!req) {
        /* the headers: everything decided without the world is decided here */
        if (!loopback_host(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
            return refuse(in, c, MHD_HTTP_FORBIDDEN,
                          "{\"error\":\"Host is not a loopback name (127.0.0.1, localhost)\"}");
        bool get =
            strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
        bool post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
        if (!get && !post)
            return refuse(in, c, MHD_HTTP_METHOD_NOT_ALLOWED,
                          "{\"error\":\"only GET, HEAD and POST\"}");
        if (post && !in->allow_writes)
            return refuse(in, c, MHD_HTTP_FORBIDDEN,
                          "{\"error\":\"writes are off (run with --inspect-write)\"}");
        if (post &&
            !token_matches(in, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Zengine-Token")))
            return refuse(in, c, MHD_HTTP_FORBIDDEN,
                          "{\"error\":\"a write needs the token (header X-Zengine-Token)\"}");
        if (strlen(url) >= ZE__INSPECT_URL_MAX)
            return refuse(in, c, MHD_HTTP_URI_TOO_LONG, "{\"error\":\"the path is too long\"}");
        req = ze_heap_alloc(in->heap, sizeof *req, 16);
        if (!req)
            return refuse(in, c, MHD_HTTP_SERVICE_UNAVAILABLE,
                          "{\"error\":\"the inspector is out of memory\"}");
        memset(req, 0, offsetof(ze__insp_req_t, body));
        req->body[0] = '\0'; /* (the body is not cleared: 4 KiB per request) */
        req->body_len = 0;
        req->status = 0;
        req->content_type = NULL;
        req->answer = NULL;
        req->conn = c;
        req->post = post;
        memcpy(req->url, url, strlen(url) + 1);
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, copy_arg, req);
        *req_cls = req;
        return MHD_YES;
    }
    if (req->state == ZE__REQ_RECEIVING) {
        if (*upload_size) {
            size_t n = *upload_size;
            if (req->body_len + n > ZE__INSPECT_BODY_MAX)
                req->body_too_big = true;
            else {
                memcpy(req->body + req->body_len, upload, n);
                req->body_len += (uint32_t)n;
                req->body[req->body_len] = '\0';
            }
            *upload_size = 0;
            return MHD_YES;
        }
        if (req->body_too_big)
            return refuse(in, c, MHD_HTTP_CONTENT_TOO_LARGE,
                          "{\"error\":\"the body is over 4096 bytes\"}");
        return enqueue(in, req);
    }
    if (req->state == ZE__REQ_ANSWERED)
        return send_answer(in, req);
    return MHD_YES; /* (waiting: not called while suspended) */
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)c;
    (void)code;
    ze_inspector_t *in = cls;
    ze__insp_req_t *req = *req_cls;
    if (!req)
        return;
    ze__insp_buf_free(req->answer);
    ze_heap_free(in->heap, req);
    *req_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    (void)socket_ctx;
    ze_inspector_t *in = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        atomic_fetch_add(&in->connections, 1);
    else
        atomic_fetch_sub(&in->connections, 1);
}

/* The connection limit: a client past it is closed before any byte is read
 * (libmicrohttpd's own limit stays above ours as a backstop). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)addr;
    (void)len;
    ze_inspector_t *in = cls;
    if (atomic_load(&in->connections) >= in->max_connections) {
        atomic_fetch_add(&in->refused, 1);
        return MHD_NO;
    }
    return MHD_YES;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    ZE_LOG_DEBUG(ZE__INSPECT_LOG, "libmicrohttpd: %s", msg);
}

static bool make_token(char out[33])
{
    uint8_t bytes[16];
    if (getrandom(bytes, sizeof bytes, 0) != (ssize_t)sizeof bytes)
        return false;
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return true;
}

ze_result ze_inspector_create(ze_engine_t *e, const ze_inspector_desc_t *desc, ze_inspector_t **out)
{
    ZE_CHECK(e && out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_inspector_desc_t d = desc ? *desc : (ze_inspector_desc_t){0};
    ze_mem_t *mm = ze_engine_mem(e);
    ze_heap_t *heap = NULL;
    ze_result r = ze_heap_create(mm,
                                 &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_INSPECT,
                                                   .max_size = ZE_MIB(4),
                                                   .thread_safe = true,
                                                   .grow = true},
                                 &heap);
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE__INSPECT_LOG, "no memory for the inspector (the Inspect owner): %s",
                     ze_result_str(r));
        return r;
    }
    ze_inspector_t *in = ze_heap_alloc(heap, sizeof *in, 16);
    if (!in) {
        ze_heap_destroy(heap);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(in, 0, sizeof *in);
    in->engine = e;
    in->mem = mm;
    in->heap = heap;
    in->allow_writes = d.allow_writes;
    in->max_connections = d.max_connections ? d.max_connections : 64;
    double budget_ms = d.step_budget_ms > 0.0 ? d.step_budget_ms : 0.5;
    in->budget_ns = (uint64_t)(budget_ms * 1e6);
    pthread_mutex_init(&in->lock, NULL);
    if (in->allow_writes && !make_token(in->token)) {
        ZE_LOG_ERROR(ZE__INSPECT_LOG, "no random bytes for the write token (getrandom)");
        ze_inspector_destroy(in);
        return ZE_ERR_IO;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(d.port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    in->daemon = MHD_start_daemon(
        flags, 0, on_accept, in, on_request, in, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)(in->max_connections + 16),
        MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(d.connection_memory ? d.connection_memory : 32u * 1024u),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(d.timeout_s ? d.timeout_s : 30),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, in, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        in, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, in, MHD_OPTION_END);
    if (!in->daemon) {
        ZE_LOG_ERROR(ZE__INSPECT_LOG, "cannot serve on 127.0.0.1:%u (in use or refused)",
                     (unsigned)d.port);
        ze_inspector_destroy(in);
        return ZE_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(in->daemon, MHD_DAEMON_INFO_BIND_PORT);
    in->port = info ? info->port : d.port;
    in->last_step_ns = ze_time_now_ns();
    *out = in;
    return ZE_OK;
}

void ze_inspector_step(ze_inspector_t *in)
{
    if (!in)
        return;
    uint64_t t0 = ze_time_now_ns();
    /* the frame time since the previous step (one step per iteration) */
    in->frame_ms[in->frame_at] = (double)(t0 - in->last_step_ns) * 1e-6;
    in->frame_at = (in->frame_at + 1) % ZE__INSPECT_FRAMES;
    if (in->frame_count < ZE__INSPECT_FRAMES)
        in->frame_count++;
    in->last_step_ns = t0;
    if (atomic_load(&in->waiting) == 0) {
        /* nothing queued: no lock, no clock (one queued after this load is
           answered at the next step) */
        atomic_store(&in->last_step_ms, 0.0);
        return;
    }
    for (;;) {
        pthread_mutex_lock(&in->lock);
        ze__insp_req_t *req = in->head;
        if (req) {
            in->head = req->next;
            if (!in->head)
                in->tail = NULL;
            atomic_fetch_sub(&in->waiting, 1);
        }
        pthread_mutex_unlock(&in->lock);
        if (!req)
            break;
        ze__inspect_answer(in, req);
        req->state = ZE__REQ_ANSWERED; /* read by the server thread after the resume */
        MHD_resume_connection(req->conn);
        if (ze_time_now_ns() - t0 >= in->budget_ns)
            break; /* the rest waits for the next step */
    }
    double ms = (double)(ze_time_now_ns() - t0) * 1e-6;
    atomic_store(&in->last_step_ms, ms);
    if (ms > atomic_load(&in->max_step_ms))
        atomic_store(&in->max_step_ms, ms);
}

void ze_inspector_destroy(ze_inspector_t *in)
{
    if (!in)
        return;
    if (in->daemon) {
        /* every suspended connection is resumed with a 503 before the
           daemon stops (libmicrohttpd's rule) */
        pthread_mutex_lock(&in->lock);
        in->stopping = true;
        ze__insp_req_t *req = in->head;
        in->head = in->tail = NULL;
        pthread_mutex_unlock(&in->lock);
        while (req) {
            ze__insp_req_t *next = req->next;
            atomic_fetch_sub(&in->waiting, 1);
            ze__inspect_error(in, req, MHD_HTTP_SERVICE_UNAVAILABLE, "the engine is shutting down");
            req->state = ZE__REQ_ANSWERED;
            MHD_resume_connection(req->conn);
            req = next;
        }
        MHD_stop_daemon(in->daemon);
    }
    pthread_mutex_destroy(&in->lock);
    ze_heap_t *heap = in->heap;
    ze_heap_free(heap, in);
    ze_heap_destroy(heap);
}

uint16_t ze_inspector_port(const ze_inspector_t *in)
{
    return in ? in->port : 0;
}

const char *ze_inspector_token(const ze_inspector_t *in)
{
    return in ? in->token : "";
}

ze_inspector_stats_t ze_inspector_stats(const ze_inspector_t *in)
{
    ze_inspector_stats_t s = {0};
    if (!in)
        return s;
    ze_inspector_t *m = (ze_inspector_t *)in; /* atomics: loads only */
    s.requests = atomic_load(&m->requests);
    s.forbidden = atomic_load(&m->forbidden);
    s.refused = atomic_load(&m->refused);
    s.writes = atomic_load(&m->writes);
    s.waiting = atomic_load(&m->waiting);
    s.connections = atomic_load(&m->connections);
    s.last_step_ms = atomic_load(&m->last_step_ms);
    s.max_step_ms = atomic_load(&m->max_step_ms);
    return s;
}

/* ---- the engine hook */

static ze_result tool_start(ze_engine_t *e, void **state)
{
    const ze_run_desc_t *run = ze_engine_run_desc(e);
    ze_inspector_t *in = NULL;
    ze_result r = ze_inspector_create(
        e, &(ze_inspector_desc_t){.port = run->inspect_port, .allow_writes = run->inspect_write},
        &in);
    if (r != ZE_OK)
        return r;
    if (in->allow_writes) {
        /* the token goes to stderr only: the log ring is readable without
           it (GET /api/log), so it must never hold the token */
        ZE_LOG_INFO(ZE__INSPECT_LOG,
                    "inspector: http://127.0.0.1:%u/ (writes on, the token is on stderr)",
                    (unsigned)in->port);
        fprintf(stderr, "zengine: inspector write token (X-Zengine-Token): %s\n", in->token);
    } else
        ZE_LOG_INFO(ZE__INSPECT_LOG, "inspector: http://127.0.0.1:%u/ (read-only)",
                    (unsigned)in->port);
    *state = in;
    return ZE_OK;
}

static void tool_step(ze_engine_t *e, void *state)
{
    (void)e;
    ze_inspector_step(state);
}

static void tool_stop(ze_engine_t *e, void *state)
{
    (void)e;
    ze_inspector_destroy(state);
}

const ze_engine_tool_t *ze_inspector_tool(void)
{
    static const ze_engine_tool_t tool = {
        .name = "inspector", .start = tool_start, .step = tool_step, .stop = tool_stop};
    return &tool;
}
