/* inspect_bench.c — suite "inspect": what the inspector costs the main
 * loop (issue 15; bench/README.md, "inspect").
 *
 * Each measurement is one ze_app_run through the public API: a project in
 * a temporary folder ({"name": "Inspect Bench"}, no cache), headless, the
 * null backend, a virtual clock of 1/60 s (one fixed step per iteration)
 * and no frame cap. on_initialized makes ENTITIES entities, each with a
 * ze_name_t and a reflected Drift component that a FixedSimulation system
 * moves every step. Four variants of that run:
 *
 *   none    no inspector (the baseline)
 *   idle    the inspector on (a free port), no client
 *   polled  a client thread asks /api/stats, /api/entities?limit=100 and
 *           /api/entities/ID in turn, one request per connection, as fast
 *           as the answers come, for the whole run
 *   slow    SLOW_CLIENTS sockets connect, send a partial request and
 *           trickle one more header byte every TRICKLE_MS: the inspector
 *           holds 64 (its limit) and refuses the rest; a refused client
 *           comes back after RETRY_MS, so the 200 stay at its door
 *
 * Frame time is timed in on_update: the wall time from the first measured
 * iteration's on_update to the last one's over the iterations between
 * them (whole main-loop iterations, the inspector's step included), in a
 * window of the same wall time for every variant (1.2 s; 0.15 s in
 * --smoke). Measuring starts after WARM_FRAMES iterations and WARM_MS and,
 * with clients, once they are at work (the first answer; the inspector
 * full and every slow client over its limit turned away once). Rounds
 * rotate the variants' order after one untimed warm-up of each; medians.
 * slow_clients_frames is the median of the rounds' frames per second with
 * the slow clients over those without the inspector: issue 15's "the loop
 * still advances >= 95 % of its frames" (target 0.95, full runs).
 * Every run checks one fixed step per iteration; the client runs check
 * their answers (status 200, the first of each kind parsed). The notes
 * say where the frame time went: the main thread's own CPU time per frame
 * (CLOCK_THREAD_CPUTIME_ID) against its wall time, the iterations over
 * 0.5 ms, and the inspector's longest step (ze_inspector_stats).
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "inspect/http_client.h"
#include "zengine/engine.h"
#include "zengine/inspect.h"

enum {
    ENTITIES = 2000,
    PAGE = 100,                 /* ?limit= of the polled entity list */
    SLOW_CLIENTS = 200,         /* issue 15: 200 concurrent slow clients */
    INSPECTOR_CONNECTIONS = 64, /* the inspector's default limit (ze_inspector_desc_t) */
    WARM_FRAMES = 60,           /* iterations before measuring, and at least WARM_MS */
    WARM_MS = 100,
    TRICKLE_MS = 500,      /* a held slow client sends one byte this often */
    RETRY_MS = 200,        /* a refused slow client reconnects after */
    WAIT_MAX_S = 10,       /* clients not at work by then: the run fails */
    ANSWER_MAX = 1 << 16,  /* a polled answer (100 entity summaries: ~10 KB) */
    LONG_ITER_NS = 500000, /* an iteration over 0.5 ms (the step budget) */
    FRAME_CAP = 1u << 30,  /* run.frames: the run ends itself (request_close) */
};

static const double FIXED_DT = 1.0 / 60.0;

typedef enum variant { V_NONE, V_IDLE, V_POLLED, V_SLOW, V_COUNT } variant;

static const char *const g_variant_names[V_COUNT] = {"none", "idle", "polled", "slow"};

/* ------------------------------------------------------------------ the app */

typedef struct Drift {
    float x, y, vx, vy;
} Drift;

static ZE_COMPONENT_DECLARE(Drift);

static const ze_field_desc_t k_drift_fields[] = {
    ZE_FIELD(Drift, x, ZE_FIELD_F32),
    ZE_FIELD(Drift, y, ZE_FIELD_F32),
    ZE_FIELD(Drift, vx, ZE_FIELD_F32),
    ZE_FIELD(Drift, vy, ZE_FIELD_F32),
};

/* One ze_app_run's settings, what its threads share and what it saw. */
typedef struct run_t {
    const char *project;
    variant v;
    uint64_t window_ns;
    ze_entity_t ids[ENTITIES]; /* written before the port is published */
    /* shared with the client threads */
    _Atomic unsigned port; /* 0 until the inspector runs */
    atomic_bool stop;      /* the clients end (the measurement is over, or the run) */
    atomic_bool ready;     /* the clients are at work */
    atomic_uint_fast64_t answered;
    atomic_uint_fast64_t failed; /* polled: answers other than 200 before stop */
    atomic_int first_bad;        /* polled: the first such status (-1: no answer at all) */
    atomic_uint slow_refusals;   /* slow: connections the inspector closed */
    char client_why[160];        /* a client's own failure, read after the join */
    /* main thread */
    bool measuring, done;
    uint64_t t_first; /* the first iteration's on_update */
    uint64_t f_start, frames, t_start, t_end, t_wait;
    uint64_t steps, steps0;                   /* fixed steps of the drift system */
    uint64_t t_prev, iter_max_ns, iters_long; /* iterations over LONG_ITER_NS in the window */
    uint64_t cpu_start, cpu_end;              /* the main thread's CPU time */
    uint64_t answered0, answered1;
    ze_inspector_stats_t stats0, stats1;
    char why[200]; /* a failure; "" when fine */
} run_t;

static void drift_system(ze_world_t *w, const ze_tick_t *t)
{
    run_t *r = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Drift *d = ze_field(&it, Drift);
        for (uint32_t i = 0; i < it.count; i++) {
            d[i].x += d[i].vx * t->dt;
            d[i].y += d[i].vy * t->dt;
            if (d[i].x < -100.0f || d[i].x > 100.0f)
                d[i].vx = -d[i].vx;
            if (d[i].y < -100.0f || d[i].y > 100.0f)
                d[i].vy = -d[i].vy;
        }
    }
    r->steps++;
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    run_t *r = user;
    ze_kernel_t *k = ze_engine_kernel(e);
    ze_world_t *w = ze_engine_world(e);
    ze_result res = ze_component_register(k,
                                          &(ze_component_desc_t){.name = "Drift",
                                                                 .size = sizeof(Drift),
                                                                 .align = _Alignof(Drift),
                                                                 .fields = k_drift_fields,
                                                                 .field_count = 4},
                                          &ZE_ID(Drift));
    if (res != ZE_OK)
        return res;
    ze_system_add(w, &(ze_system_desc_t){.name = "drift",
                                         .fn = drift_system,
                                         .user = r,
                                         .writes = ZE_MASK(Drift),
                                         .group = ZE_GROUP_FIXED_SIMULATION});
    for (uint32_t i = 0; i < ENTITIES && res == ZE_OK; i++) {
        ze_entity_t en = ze_entity_create(w);
        ze_name_t n = {{0}};
        snprintf(n.value, sizeof n.value, "drifter %u", i);
        res = ze_component_set(w, en, ZE_ID(ze_name_t), &n);
        float a = (float)i * 0.618f;
        if (res == ZE_OK)
            res = ze_set(
                w, en, Drift,
                {.x = (float)(i % 50), .y = (float)(i / 50), .vx = a - (float)(int)a, .vy = 0.5f});
        r->ids[i] = en;
    }
    if (res != ZE_OK)
        snprintf(r->why, sizeof r->why, "making %u entities: %s", ENTITIES, ze_result_str(res));
    return res;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    run_t *r = user;
    if (r->done)
        return;
    uint64_t now = ze_bench_now_ns();
    ze_inspector_t *in = ze_engine_inspector(e);
    if (!r->measuring) {
        if (in && !atomic_load(&r->port))
            atomic_store(&r->port, ze_inspector_port(in));
        if (!r->t_first)
            r->t_first = now;
        if (ze_engine_frame_index(e) < WARM_FRAMES || now - r->t_first < WARM_MS * 1000000ull)
            return;
        bool ready = r->v == V_NONE || r->v == V_IDLE || atomic_load(&r->ready);
        /* the slow clients are at work once the inspector is full */
        if (ready && r->v == V_SLOW && ze_inspector_stats(in).connections < INSPECTOR_CONNECTIONS)
            ready = false;
        if (!ready) {
            if (!r->t_wait)
                r->t_wait = now;
            if (now - r->t_wait > WAIT_MAX_S * 1000000000ull) {
                ze_inspector_stats_t s = ze_inspector_stats(in);
                snprintf(r->why, sizeof r->why,
                         "%s: the clients were not at work after %d s (%u connections open, "
                         "%llu answered)",
                         g_variant_names[r->v], WAIT_MAX_S, s.connections,
                         (unsigned long long)atomic_load(&r->answered));
                r->done = true;
                atomic_store(&r->stop, true);
                ze_engine_request_close(e);
            }
            return;
        }
        r->measuring = true;
        r->f_start = ze_engine_frame_index(e);
        r->steps0 = r->steps;
        r->answered0 = atomic_load(&r->answered);
        r->stats0 = ze_inspector_stats(in);
        r->cpu_start = thread_cpu_ns();
        r->t_start = r->t_prev = ze_bench_now_ns();
        return;
    }
    if (now - r->t_prev > r->iter_max_ns)
        r->iter_max_ns = now - r->t_prev;
    if (now - r->t_prev > LONG_ITER_NS)
        r->iters_long++;
    r->t_prev = now;
    if (now - r->t_start < r->window_ns)
        return;
    r->t_end = now;
    r->cpu_end = thread_cpu_ns();
    r->frames = ze_engine_frame_index(e) - r->f_start;
    r->steps -= r->steps0;
    r->answered1 = atomic_load(&r->answered);
    r->stats1 = ze_inspector_stats(in);
    r->measuring = false;
    r->done = true;
    atomic_store(&r->stop, true);
    ze_engine_request_close(e);
}

/* ------------------------------------------------------------- the clients */

/* The port, once the inspector runs; 0 when the run stopped first. */
static unsigned wait_port(run_t *r)
{
    while (!atomic_load(&r->port) && !atomic_load(&r->stop))
        usleep(1000);
    return atomic_load(&r->stop) ? 0 : atomic_load(&r->port);
}

/* The first answer of each kind, parsed: what the world holds. */
static bool answer_ok(run_t *r, int kind, const char *body)
{
    json_t *j = json_loads(body, 0, NULL);
    bool ok = j != NULL;
    if (ok && kind == 0)
        ok = json_is_integer(json_object_get(j, "frame")) &&
             json_is_object(json_object_get(j, "inspector"));
    else if (ok && kind == 1)
        ok = json_integer_value(json_object_get(j, "total")) == ENTITIES &&
             json_array_size(json_object_get(j, "entities")) == PAGE;
    else if (ok)
        ok = json_is_object(json_object_get(json_object_get(j, "components"), "Drift")) &&
             json_is_object(json_object_get(json_object_get(j, "components"), "Name"));
    if (!ok)
        snprintf(r->client_why, sizeof r->client_why, "polled: unexpected answer %d: %.100s", kind,
                 body);
    json_decref(j);
    return ok;
}

static void *polled_client(void *p)
{
    run_t *r = p;
    unsigned port = wait_port(r);
    char *buf = ze_bench_table_alloc(ANSWER_MAX);
    bool checked[3] = {false, false, false};
    for (uint32_t i = 0; port && !atomic_load(&r->stop); i++) {
        char path[96];
        int kind = (int)(i % 3);
        if (kind == 0)
            snprintf(path, sizeof path, "/api/stats");
        else if (kind == 1)
            snprintf(path, sizeof path, "/api/entities?limit=%d", PAGE);
        else
            snprintf(path, sizeof path, "/api/entities/%llu",
                     (unsigned long long)r->ids[(i / 3 * 7919u) % ENTITIES].id);
        int status = http_get(port, path, buf, ANSWER_MAX);
        if (atomic_load(&r->stop))
            break; /* at shutdown a 503 or a refused connect is expected */
        if (status != 200 || (!checked[kind] && !answer_ok(r, kind, buf))) {
            int none = 0;
            atomic_compare_exchange_strong(&r->first_bad, &none, status);
            atomic_fetch_add(&r->failed, 1);
            continue;
        }
        checked[kind] = true;
        atomic_fetch_add(&r->answered, 1);
        atomic_store(&r->ready, true);
    }
    ze_bench_table_free(buf);
    return NULL;
}

typedef struct slow_conn_t {
    int fd;           /* -1: not connected */
    uint64_t next_ns; /* the next byte, or the next connect */
} slow_conn_t;

static const char g_slow_head[] = "GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

static int slow_open(unsigned port)
{
    int fd = http_connect(port);
    if (fd < 0)
        return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
        send(fd, g_slow_head, sizeof g_slow_head - 1, MSG_NOSIGNAL) !=
            (ssize_t)(sizeof g_slow_head - 1)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void slow_drop(run_t *r, slow_conn_t *c, uint64_t now)
{
    close(c->fd);
    c->fd = -1;
    c->next_ns = now + RETRY_MS * 1000000ull;
    atomic_fetch_add(&r->slow_refusals, 1);
}

static void *slow_clients(void *p)
{
    run_t *r = p;
    unsigned port = wait_port(r);
    slow_conn_t conns[SLOW_CLIENTS];
    struct pollfd pfd[SLOW_CLIENTS];
    uint32_t where[SLOW_CLIENTS];
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < SLOW_CLIENTS; i++) {
        conns[i].fd = port ? slow_open(port) : -1;
        /* the bytes staggered over the trickle period */
        conns[i].next_ns = t0 + (uint64_t)TRICKLE_MS * 1000000ull * (i + 1) / SLOW_CLIENTS;
        if (conns[i].fd < 0 && port)
            snprintf(r->client_why, sizeof r->client_why, "slow: connect failed: %s",
                     strerror(errno));
    }
    bool ready = false;
    while (port && !atomic_load(&r->stop)) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < SLOW_CLIENTS; i++) {
            if (conns[i].fd < 0)
                continue;
            pfd[n] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
            where[n++] = i;
        }
        (void)poll(pfd, n, 10);
        uint64_t now = ze_bench_now_ns();
        /* readable: the inspector closed it (over its limit), or answered */
        for (uint32_t k = 0; k < n; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char scratch[512];
            (void)recv(pfd[k].fd, scratch, sizeof scratch, MSG_DONTWAIT);
            slow_drop(r, &conns[where[k]], now);
        }
        for (uint32_t i = 0; i < SLOW_CLIENTS; i++) {
            slow_conn_t *c = &conns[i];
            if (now < c->next_ns)
                continue;
            if (c->fd < 0) {
                c->fd = slow_open(port);
                c->next_ns = now + (c->fd >= 0 ? TRICKLE_MS : RETRY_MS) * 1000000ull;
                continue;
            }
            c->next_ns = now + TRICKLE_MS * 1000000ull;
            if (send(c->fd, "a", 1, MSG_NOSIGNAL) < 0 && errno != EAGAIN)
                slow_drop(r, c, now);
        }
        /* at work: every client tried, the ones over the limit turned away */
        if (!ready && atomic_load(&r->slow_refusals) >= SLOW_CLIENTS - INSPECTOR_CONNECTIONS) {
            ready = true;
            atomic_store(&r->ready, true);
        }
    }
    for (uint32_t i = 0; i < SLOW_CLIENTS; i++)
        if (conns[i].fd >= 0)
            close(conns[i].fd);
    return NULL;
}

/* ----------------------------------------------------------------- the run */

/* One run of a variant; false (why in r->why) when it failed. */
static bool run_once(run_t *r)
{
    r->measuring = r->done = false;
    r->t_first = r->f_start = r->frames = r->t_start = r->t_end = r->t_wait = 0;
    r->steps = r->steps0 = r->answered0 = r->answered1 = 0;
    r->t_prev = r->iter_max_ns = r->iters_long = r->cpu_start = r->cpu_end = 0;
    memset(&r->stats0, 0, sizeof r->stats0);
    memset(&r->stats1, 0, sizeof r->stats1);
    r->why[0] = r->client_why[0] = '\0';
    atomic_store(&r->port, 0);
    atomic_store(&r->stop, false);
    atomic_store(&r->ready, false);
    atomic_store(&r->answered, 0);
    atomic_store(&r->failed, 0);
    atomic_store(&r->first_bad, 0);
    atomic_store(&r->slow_refusals, 0);
    pthread_t client;
    bool threaded = r->v == V_POLLED || r->v == V_SLOW;
    if (threaded &&
        pthread_create(&client, NULL, r->v == V_POLLED ? polled_client : slow_clients, r) != 0) {
        snprintf(r->why, sizeof r->why, "%s: pthread_create failed", g_variant_names[r->v]);
        return false;
    }
    ze_app_desc_t app = {.name = "bench_inspect",
                         .user = r,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .inspector = ze_inspector_tool()};
    ze_run_desc_t run = {.project = r->project,
                         .headless = true,
                         .frames = FRAME_CAP,
                         .fixed_dt = FIXED_DT,
                         .max_fps = 0.0,
                         .no_cache = true,
                         .inspect = r->v != V_NONE};
    ze_run_report_t rep;
    ze_result res = ze_app_run(&app, &run, &rep);
    atomic_store(&r->stop, true); /* also when the run failed before measuring */
    if (threaded)
        pthread_join(client, NULL);
    if (r->why[0])
        return false;
    if (res != ZE_OK) {
        snprintf(r->why, sizeof r->why, "%s: ze_app_run: %s: %.150s", g_variant_names[r->v],
                 ze_result_str(res), rep.error);
        return false;
    }
    if (!r->done || r->frames == 0 || r->t_end <= r->t_start) {
        snprintf(r->why, sizeof r->why, "%s: the run ended before the measurement did",
                 g_variant_names[r->v]);
        return false;
    }
    if (r->steps != r->frames) {
        snprintf(
            r->why, sizeof r->why, "%s: %llu fixed steps in %llu iterations (expected one each)",
            g_variant_names[r->v], (unsigned long long)r->steps, (unsigned long long)r->frames);
        return false;
    }
    if (r->client_why[0] || atomic_load(&r->failed)) {
        snprintf(r->why, sizeof r->why, "%s: %llu failed answers (first status %d) %s",
                 g_variant_names[r->v], (unsigned long long)atomic_load(&r->failed),
                 atomic_load(&r->first_bad), r->client_why);
        return false;
    }
    return true;
}

static double run_ms(const run_t *r)
{
    return (double)(r->t_end - r->t_start) * 1e-6 / (double)r->frames;
}

/* --------------------------------------------------------------- the rounds */

enum { ROUNDS_MAX = 32 };

typedef struct results_t {
    uint32_t rounds;
    double ms[V_COUNT][ROUNDS_MAX];
    double fps_ratio[ROUNDS_MAX]; /* slow over none */
    double requests[ROUNDS_MAX];  /* polled: answered in the window */
    double req_per_frame[ROUNDS_MAX];
    double slow_refused[ROUNDS_MAX]; /* refusals in the window */
    uint32_t slow_connections;       /* open at the last slow window's end */
    /* what the rows do not show: the main thread's CPU time per frame (the
       rest of the wall time it waited for a core), iterations over 0.5 ms,
       the longest iteration and inspector step of any run */
    double cpu_ms[V_COUNT][ROUNDS_MAX];
    double iters_long[V_COUNT][ROUNDS_MAX];
    double iter_max_ms[V_COUNT];
    double max_step_ms[V_COUNT];
} results_t;

/* The measured window of every run, ms of wall time. */
static uint64_t r_window_ms(const ze_bench_t *b)
{
    return ze_bench_size(b, 1200, 150);
}

static bool measure(ze_bench_t *b, const char *project, const bool want[V_COUNT], results_t *out)
{
    static run_t r; /* the ids table is large for a stack */
    memset(&r, 0, sizeof r);
    r.project = project;
    r.window_ns = r_window_ms(b) * 1000000ull;
    memset(out, 0, sizeof *out);
    out->rounds = ze_bench_rounds(b, 7);
    if (out->rounds > ROUNDS_MAX)
        out->rounds = ROUNDS_MAX;
    /* round -1: the untimed warm-up of each variant */
    for (int32_t round = -1; round < (int32_t)out->rounds; round++) {
        for (uint32_t k = 0; k < V_COUNT; k++) {
            variant v = (variant)(((uint32_t)(round + 1) + k) % V_COUNT);
            if (!want[v])
                continue;
            r.v = v;
            if (!run_once(&r)) {
                ze_bench_fail(b, g_variant_names[v], "%s", r.why);
                return false;
            }
            if (r.stats1.max_step_ms > out->max_step_ms[v])
                out->max_step_ms[v] = r.stats1.max_step_ms;
            if (round < 0)
                continue;
            uint32_t i = (uint32_t)round;
            out->ms[v][i] = run_ms(&r);
            out->cpu_ms[v][i] = (double)(r.cpu_end - r.cpu_start) * 1e-6 / (double)r.frames;
            out->iters_long[v][i] = (double)r.iters_long;
            if ((double)r.iter_max_ns * 1e-6 > out->iter_max_ms[v])
                out->iter_max_ms[v] = (double)r.iter_max_ns * 1e-6;
            if (v == V_POLLED) {
                out->requests[i] = (double)(r.answered1 - r.answered0);
                out->req_per_frame[i] = out->requests[i] / (double)r.frames;
            }
            if (v == V_SLOW) {
                out->slow_refused[i] = (double)(r.stats1.refused - r.stats0.refused);
                out->slow_connections = r.stats1.connections;
            }
        }
        if (round >= 0 && want[V_SLOW]) {
            uint32_t i = (uint32_t)round;
            out->fps_ratio[i] = out->ms[V_NONE][i] / out->ms[V_SLOW][i];
        }
    }
    return true;
}

static bool project_make(ze_bench_t *b, char *root, size_t root_size, char *project,
                         size_t project_size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, root_size, "%s/zengine-bench-inspect-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        root[0] = '\0';
        ze_bench_fail(b, "setup", "mkdtemp failed: %s", strerror(errno));
        return false;
    }
    snprintf(project, project_size, "%s/project.json", root);
    FILE *f = fopen(project, "w");
    bool ok = f && fputs("{\"name\": \"Inspect Bench\"}\n", f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        ze_bench_fail(b, "setup", "could not write %s", project);
    return ok;
}

static void bench_inspect(ze_bench_t *b)
{
    bool want[V_COUNT] = {
        [V_NONE] = true, /* every other row's baseline */
        [V_IDLE] = ze_bench_enabled(b, "frame_idle"),
        [V_POLLED] = ze_bench_enabled(b, "frame_polled") || ze_bench_enabled(b, "polled_requests"),
        [V_SLOW] =
            ze_bench_enabled(b, "frame_slow_clients") || ze_bench_enabled(b, "slow_clients_frames"),
    };
    if (!ze_bench_enabled(b, "frame_none") && !want[V_IDLE] && !want[V_POLLED] && !want[V_SLOW])
        return;
    char root[256], project[320];
    if (!project_make(b, root, sizeof root, project, sizeof project)) {
        if (root[0])
            ze_bench_remove_tree(root);
        return;
    }
    static results_t res;
    bool ok = measure(b, project, want, &res);
    ze_bench_remove_tree(root);
    if (!ok)
        return;
    uint32_t n = res.rounds;
    double none = ze_bench_median(res.ms[V_NONE], n);
    if (ze_bench_enabled(b, "frame_none"))
        ze_bench_add(b, "frame_none", ENTITIES, "ms/frame", ZE_BENCH_LOWER, none, ZE_BENCH_NONE,
                     ZE_BENCH_NONE);
    if (want[V_IDLE] && ze_bench_enabled(b, "frame_idle"))
        ze_bench_add(b, "frame_idle", ENTITIES, "ms/frame", ZE_BENCH_LOWER,
                     ze_bench_median(res.ms[V_IDLE], n), none, ZE_BENCH_NONE);
    if (want[V_POLLED]) {
        if (ze_bench_enabled(b, "frame_polled"))
            ze_bench_add(b, "frame_polled", ENTITIES, "ms/frame", ZE_BENCH_LOWER,
                         ze_bench_median(res.ms[V_POLLED], n), none, ZE_BENCH_NONE);
        double reqs = ze_bench_median(res.requests, n);
        if (ze_bench_enabled(b, "polled_requests"))
            ze_bench_add(b, "polled_requests", ENTITIES, "count", ZE_BENCH_HIGHER, reqs,
                         ZE_BENCH_NONE, ZE_BENCH_NONE);
        printf("note: polled: %.0f requests answered in a %.2f s window (median), %.3f per "
               "frame\n",
               reqs, (double)r_window_ms(b) / 1000.0, ze_bench_median(res.req_per_frame, n));
    }
    if (want[V_SLOW]) {
        if (ze_bench_enabled(b, "frame_slow_clients"))
            ze_bench_add(b, "frame_slow_clients", ENTITIES, "ms/frame", ZE_BENCH_LOWER,
                         ze_bench_median(res.ms[V_SLOW], n), none, ZE_BENCH_NONE);
        if (ze_bench_enabled(b, "slow_clients_frames"))
            ze_bench_add(b, "slow_clients_frames", SLOW_CLIENTS, "ratio", ZE_BENCH_HIGHER,
                         ze_bench_median(res.fps_ratio, n), ZE_BENCH_NONE,
                         b->smoke ? ZE_BENCH_NONE : 0.95);
        printf("note: slow: %d clients, %u connections held at the end of the last window "
               "(limit %d), %.0f refusals a window (median; a refused client retries after %d "
               "ms)\n",
               SLOW_CLIENTS, res.slow_connections, INSPECTOR_CONNECTIONS,
               ze_bench_median(res.slow_refused, n), RETRY_MS);
    }
    /* Where the frame time went: the main thread's own CPU time, the rest
       it spent waiting for a core (2 cores: the render thread, the server
       thread and the clients take turns with it) */
    for (int v = 0; v < V_COUNT; v++) {
        if (!want[v])
            continue;
        double wall = ze_bench_median(res.ms[v], n), cpu = ze_bench_median(res.cpu_ms[v], n);
        printf("note: %-6s main thread %.2f us CPU of %.2f us a frame (medians), %.0f "
               "iterations over 0.5 ms a window, the longest %.2f ms",
               g_variant_names[v], cpu * 1e3, wall * 1e3, ze_bench_median(res.iters_long[v], n),
               res.iter_max_ms[v]);
        if (v != V_NONE)
            printf("; longest inspector step %.3f ms (budget 0.5)", res.max_step_ms[v]);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "inspect", argc, argv);
    /* a client writing to a connection the server closed must not end the process */
    signal(SIGPIPE, SIG_IGN);
    /* every run would log its inspector's address (info) and that imports
       are off (a warning: the project has no /cache, as asked); failures
       still end the run with an error */
    ze_log_set_level(ZE_LOG_ERROR);
    bench_inspect(&b);
    return ze_bench_finish(&b);
}
