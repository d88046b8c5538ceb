/* Every inspector endpoint against a running engine, over loopback, with
 * writes on: the answers parse and match the world (the entity count, a
 * component's value at the frame the answer names while a system moves
 * it), a write without the token is 403 and with it applies from the next
 * frame on, a wrong value applies nothing, pause stops the simulation but
 * not the loop, and the Host check takes ports but not look-alike names.
 *
 * How a value is matched: the app records the moved component each frame
 * in on_update, which runs after the frame's systems and before the
 * inspector's step (src/engine/loop.c); an answer carries the frame it was
 * made in, so its value must equal the one recorded for that frame. */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "inspect/http_client.h"
#include "inspect/inspect_fixture.h"
#include "zengine/inspect.h"

enum { ENTITIES = 5, RING = 1 << 16, BUF = 1 << 17 };

/* Moved one unit per fixed step while speed is 1. */
typedef struct Probe {
    float x;
    float speed;
    uint32_t steps;
} Probe;
static ZE_COMPONENT_DECLARE(Probe);

typedef struct app_t {
    _Atomic unsigned port;
    atomic_bool token_ready, done;
    char token[64];
    _Atomic uint64_t probe_id;
    /* per frame, by the main thread: frame index + 1 (0: none), then x */
    _Atomic uint64_t rec_frame[RING];
    _Atomic uint32_t rec_x[RING];
    char failure[512]; /* the client's first failed check, "" when none */
} app_t;

static app_t g_app;
static char g_buf[BUF];

static void probe_move(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Probe *p = ze_field(&it, Probe);
        for (uint32_t i = 0; i < it.count; i++) {
            p[i].x += p[i].speed;
            p[i].steps++;
        }
    }
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    app_t *a = user;
    ze_world_t *w = ze_engine_world(e);
    ZE_COMPONENT_DEFINE_FIELDS(w, Probe, ZE_FIELD(Probe, x, ZE_FIELD_F32),
                               ZE_FIELD(Probe, speed, ZE_FIELD_F32),
                               ZE_FIELD(Probe, steps, ZE_FIELD_U32));
    ze_system_t s = ze_system_add(
        w, &(ze_system_desc_t){.name = "probe_move", .fn = probe_move, .writes = ZE_MASK(Probe)});
    if (!s.id)
        return ZE_ERR_INTERNAL;
    uint64_t ids[ENTITIES];
    if (fixture_named_entities(w, "api probe", ENTITIES, ids) != ZE_OK)
        return ZE_ERR_INTERNAL;
    Probe p = {.x = 0.0f, .speed = 1.0f}; /* the first one moves */
    if (ze_component_set(w, (ze_entity_t){ids[0]}, ZE_ID(Probe), &p) != ZE_OK)
        return ZE_ERR_INTERNAL;
    atomic_store(&a->probe_id, ids[0]);
    return ZE_OK;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    app_t *a = user;
    ze_world_t *w = ze_engine_world(e);
    uint64_t f = ze_engine_frame_index(e);
    const Probe *p = ze_component_get(w, (ze_entity_t){atomic_load(&a->probe_id)}, ZE_ID(Probe));
    if (p) {
        uint32_t bits;
        memcpy(&bits, &p->x, 4);
        atomic_store(&a->rec_x[f % RING], bits);
        atomic_store(&a->rec_frame[f % RING], f + 1);
    }
    ze_inspector_t *in = ze_engine_inspector(e);
    if (in && !atomic_load(&a->token_ready)) {
        snprintf(a->token, sizeof a->token, "%s", ze_inspector_token(in));
        atomic_store(&a->token_ready, true);
        atomic_store(&a->port, ze_inspector_port(in));
    }
    if (atomic_load(&a->done))
        ze_engine_request_close(e);
}

/* ---- the client thread's checks: the first failure is kept, then the
   client stops (cmocka's asserts belong to the main thread) ---- */

#define CHECK(cond, ...)                                                \
    do {                                                                \
        if (!(cond)) {                                                  \
            snprintf(g_app.failure, sizeof g_app.failure, __VA_ARGS__); \
            return false;                                               \
        }                                                               \
    } while (0)

static unsigned g_port;

/* GET path, expect status; the parsed object in *out (caller frees). */
static bool get_json(const char *path, int want, json_t **out)
{
    int st = http_get(g_port, path, g_buf, sizeof g_buf);
    CHECK(st == want, "GET %s: status %d, want %d (%.200s)", path, st, want, g_buf);
    json_error_t err;
    json_t *j = json_loads(g_buf, 0, &err);
    CHECK(j && json_is_object(j), "GET %s: not a JSON object (%s): %.200s", path, err.text, g_buf);
    *out = j;
    return true;
}

static bool post(const char *path, const char *token, const char *body, int want, json_t **out)
{
    int st =
        http_do(g_port, &(http_req_t){.method = "POST", .path = path, .token = token, .body = body},
                g_buf, sizeof g_buf);
    CHECK(st == want, "POST %s %s: status %d, want %d (%.200s)", path, body, st, want, g_buf);
    json_t *j = json_loads(g_buf, 0, NULL);
    CHECK(j && json_is_object(j), "POST %s: not a JSON object: %.200s", path, g_buf);
    if (out)
        *out = j;
    else
        json_decref(j);
    return true;
}

static json_int_t int_at(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* The value recorded for frame f; false when the ring no longer has it. */
static bool recorded_x(uint64_t f, float *x)
{
    if (atomic_load(&g_app.rec_frame[f % RING]) != f + 1)
        return false;
    uint32_t bits = atomic_load(&g_app.rec_x[f % RING]);
    memcpy(x, &bits, 4);
    return true;
}

/* The probe's Probe as the inspector reports it, and the answer's frame. */
static bool probe_now(char *path, size_t cap, uint64_t *frame, double *x, json_int_t *steps)
{
    snprintf(path, cap, "/api/entities/%llu", (unsigned long long)atomic_load(&g_app.probe_id));
    json_t *j;
    if (!get_json(path, 200, &j))
        return false;
    json_t *p = json_object_get(json_object_get(j, "components"), "Probe");
    *frame = (uint64_t)int_at(j, "frame");
    *x = json_number_value(json_object_get(p, "x"));
    *steps = int_at(p, "steps");
    bool ok = json_is_object(p) && json_is_number(json_object_get(p, "x"));
    json_decref(j);
    CHECK(ok, "%s: no Probe with a number x", path);
    return true;
}

/* Ask until an answer is made at a frame past f. */
static bool wait_frame_past(uint64_t f, uint64_t *now)
{
    for (int i = 0; i < 100000; i++) {
        json_t *j;
        if (!get_json("/api/stats", 200, &j))
            return false;
        *now = (uint64_t)int_at(j, "frame");
        json_decref(j);
        if (*now > f)
            return true;
    }
    CHECK(false, "the frame never passed %llu", (unsigned long long)f);
}

static bool check_reads(void)
{
    json_t *j;
    char path[256];
    if (!get_json("/api", 200, &j))
        return false;
    CHECK(json_array_size(json_object_get(j, "endpoints")) == 9 &&
              json_is_true(json_object_get(j, "writes")),
          "/api: 9 endpoints and writes on");
    json_decref(j);

    if (!get_json("/api/worlds", 200, &j))
        return false;
    json_t *w0 = json_array_get(json_object_get(j, "worlds"), 0);
    json_int_t n = int_at(w0, "entities");
    bool probe_listed = false;
    json_t *comps = json_object_get(j, "components");
    for (size_t i = 0; i < json_array_size(comps); i++)
        probe_listed |= strcmp(json_string_value(json_array_get(comps, i)), "Probe") == 0;
    bool main_world = json_is_true(json_object_get(w0, "main"));
    json_decref(j);
    CHECK(n == ENTITIES && probe_listed && main_world,
          "/api/worlds: %lld entities (want %d), Probe listed %d, main %d", (long long)n, ENTITIES,
          probe_listed, main_world);

    if (!get_json("/api/entities?with=Probe", 200, &j))
        return false;
    json_t *e0 = json_array_get(json_object_get(j, "entities"), 0);
    const char *ids = json_string_value(json_object_get(e0, "id")); /* exact: a string */
    uint64_t id = ids ? strtoull(ids, NULL, 10) : 0;
    n = int_at(j, "total");
    json_decref(j);
    CHECK(n == 1 && id == atomic_load(&g_app.probe_id), "?with=Probe: %lld entities, id %llu",
          (long long)n, (unsigned long long)id);

    if (!get_json("/api/entities?offset=1&limit=2", 200, &j))
        return false;
    size_t listed = json_array_size(json_object_get(j, "entities"));
    n = int_at(j, "total");
    const char *name = json_string_value(
        json_object_get(json_array_get(json_object_get(j, "entities"), 0), "name"));
    bool named = name && strcmp(name, "api probe 1") == 0;
    json_decref(j);
    CHECK(listed == 2 && n == ENTITIES && named, "offset=1&limit=2: %zu listed of %lld, first %s",
          listed, (long long)n, name ? name : "(none)");

    if (!get_json("/api/entities?limit=5000", 400, &j) || (json_decref(j), false) ||
        !get_json("/api/entities?with=NoSuchThing", 400, &j) || (json_decref(j), false) ||
        !get_json("/api/entities/999999999", 404, &j) || (json_decref(j), false) ||
        !get_json("/api/worlds/nope", 404, &j) || (json_decref(j), false) ||
        !get_json("/api/entities?world=7", 404, &j) || (json_decref(j), false) ||
        !get_json("/api/entities?with=Name,Name,Name,Name,Name,Name,Name,Name,Name", 400, &j) ||
        (json_decref(j), false))
        return false;

    /* the moved value matches the frame's record, and it moves */
    uint64_t f1, f2;
    double x1, x2;
    json_int_t s1, s2;
    float want;
    if (!probe_now(path, sizeof path, &f1, &x1, &s1))
        return false;
    uint64_t now;
    if (!wait_frame_past(f1, &now) || !probe_now(path, sizeof path, &f2, &x2, &s2))
        return false;
    CHECK(recorded_x(f1, &want) && x1 == want, "frame %llu: x %.1f, recorded %.1f",
          (unsigned long long)f1, x1, (double)want);
    CHECK(recorded_x(f2, &want) && x2 == want, "frame %llu: x %.1f, recorded %.1f",
          (unsigned long long)f2, x2, (double)want);
    CHECK(f2 > f1 && x2 > x1 && s2 > s1 && x2 - x1 == (double)(s2 - s1),
          "the system moved x from %.1f to %.1f in %lld steps (frames %llu..%llu)", x1, x2,
          (long long)(s2 - s1), (unsigned long long)f1, (unsigned long long)f2);

    if (!get_json("/api/systems", 200, &j))
        return false;
    json_t *sys = json_object_get(j, "systems");
    json_int_t runs = -1;
    for (size_t i = 0; i < json_array_size(sys); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(sys, i), "name")),
                   "probe_move") == 0)
            runs = int_at(json_array_get(sys, i), "runs");
    bool timed = json_is_number(json_object_get(json_array_get(sys, 0), "ms"));
    json_decref(j);
    CHECK(runs >= s2 && timed,
          "/api/systems: probe_move ran %lld times (the probe saw %lld), ms %d", (long long)runs,
          (long long)s2, timed);

    if (!get_json("/api/stats", 200, &j))
        return false;
    bool stats_ok = json_is_false(json_object_get(j, "paused")) && int_at(j, "fixed_steps") >= 0 &&
                    json_is_number(json_object_get(j, "frame_ms_avg")) &&
                    int_at(json_object_get(j, "inspector"), "requests") >= 10 &&
                    json_is_array(json_object_get(j, "gpu_passes"));
    json_decref(j);
    CHECK(stats_ok,
          "/api/stats: paused false, fixed_steps, frame_ms_avg, inspector.requests >= 10, "
          "gpu_passes");

    if (!get_json("/api/gpu", 200, &j))
        return false;
    bool gpu_ok = json_is_array(json_object_get(j, "gpu_passes")) && int_at(j, "frame") > 0;
    json_decref(j);
    CHECK(gpu_ok, "/api/gpu: a frame and gpu_passes");

    if (!get_json("/api/memory", 200, &j))
        return false;
    json_t *owners = json_object_get(j, "owners");
    json_int_t cur = -1, budget = -1, fail = -1;
    for (size_t i = 0; i < json_array_size(owners); i++) {
        json_t *o = json_array_get(owners, i);
        if (strcmp(json_string_value(json_object_get(o, "name")), "Inspect") == 0) {
            cur = int_at(o, "current");
            budget = int_at(o, "budget");
            fail = int_at(o, "failures");
        }
    }
    json_decref(j);
    CHECK(cur > 0 && budget == 16 << 20 && cur <= budget && fail == 0,
          "/api/memory: Inspect %lld of %lld bytes, %lld failures", (long long)cur,
          (long long)budget, (long long)fail);

    if (!get_json("/api/assets", 200, &j))
        return false;
    bool assets_ok =
        json_is_array(json_object_get(j, "assets")) &&
        int_at(j, "total") == (json_int_t)json_array_size(json_object_get(j, "assets"));
    json_decref(j);
    CHECK(assets_ok, "/api/assets: the list and its total");

    if (!get_json("/api/log", 200, &j))
        return false;
    json_t *recs = json_object_get(j, "records");
    bool started = false, leaked = false;
    for (size_t i = 0; i < json_array_size(recs); i++) {
        const char *m = json_string_value(json_object_get(json_array_get(recs, i), "message"));
        started |= m && strstr(m, "inspector: http://127.0.0.1:") != NULL;
        leaked |= m && strstr(m, g_app.token) != NULL;
    }
    json_int_t next = int_at(j, "next");
    json_decref(j);
    CHECK(started && next > 0, "/api/log: the inspector's start line, a next cursor");
    CHECK(!leaked, "/api/log: the write token is in the log ring (readable without the token)");
    snprintf(path, sizeof path, "/api/log?after=%lld", (long long)next);
    if (!get_json(path, 200, &j))
        return false;
    json_int_t next2 = int_at(j, "next");
    json_decref(j);
    CHECK(next2 >= next, "/api/log?after: the cursor goes forward");

    if (!get_json("/no/such/page", 404, &j))
        return false;
    bool err = json_is_string(json_object_get(j, "error"));
    json_decref(j);
    CHECK(err, "a 404 says why in {\"error\": ...}");

    int st = http_get(g_port, "/", g_buf, sizeof g_buf);
    CHECK(st == 200 && strstr(g_buf, "<html") && strstr(g_buf, "/api/entities"),
          "/: the page (status %d)", st);
    return true;
}

static bool check_hosts(void)
{
    static const struct {
        const char *host;
        int want;
    } cases[] = {
        {"127.0.0.1:%u", 200},
        {"localhost:%u", 200},
        {"[::1]:%u", 200},
        {"evil.example:%u", 403},
        {"127.0.0.1.evil.example", 403},
        {"localhost.evil", 403},
        {"", 403},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char host[96];
        snprintf(host, sizeof host, cases[i].host, g_port);
        int st =
            http_do(g_port, &(http_req_t){.path = "/api/stats", .host = host}, g_buf, sizeof g_buf);
        CHECK(st == cases[i].want, "Host '%s': status %d, want %d", host, st, cases[i].want);
    }
    return true;
}

static bool check_writes(void)
{
    char path[256], target[256];
    snprintf(target, sizeof target, "/api/entities/%llu/components/Probe",
             (unsigned long long)atomic_load(&g_app.probe_id));
    char wrong_world[300];
    snprintf(wrong_world, sizeof wrong_world, "%s?world=abc", target);
    const char *set = "{\"x\": 1000, \"speed\": 0}";
    if (!post(target, NULL, set, 403, NULL) ||
        !post(target, "0123456789abcdef0123456789abcdef", set, 403, NULL) ||
        !post("/api/pause", NULL, "{\"paused\": true}", 403, NULL))
        return false;
    uint64_t f;
    double x;
    json_int_t steps;
    if (!probe_now(path, sizeof path, &f, &x, &steps))
        return false;
    CHECK(x != 1000.0, "a write without the token changed nothing (x %.1f)", x);

    json_t *j;
    if (!post(target, g_app.token, set, 200, &j))
        return false;
    uint64_t fw = (uint64_t)int_at(j, "frame");
    json_decref(j);
    uint64_t now;
    if (!wait_frame_past(fw + 1, &now))
        return false;
    float before, after;
    CHECK(recorded_x(fw, &before) && before != 1000.0f,
          "frame %llu, the write's own: x %.1f before the write", (unsigned long long)fw,
          (double)before);
    CHECK(recorded_x(fw + 1, &after) && after == 1000.0f,
          "frame %llu, the next: x %.1f, want 1000 (the write applies at the step)",
          (unsigned long long)fw + 1, (double)after);

    /* wrong values: 400, nothing applied (x stays 1000, speed 0) */
    if (!post(target, g_app.token, "{\"x\": 5, \"nope\": 1}", 400, NULL) ||
        !post(target, g_app.token, "{\"x\": 5, \"steps\": -1}", 400, NULL) ||
        !post(target, g_app.token, "{\"x\": \"five\"}", 400, NULL) ||
        !post(target, g_app.token, "not json", 400, NULL) ||
        !post("/api/entities/999999999/components/Probe", g_app.token, "{\"x\": 5}", 404, NULL) ||
        !post(target, g_app.token, "{\"x\": 1e39}", 400, NULL) ||
        !post(wrong_world, g_app.token, "{\"x\": 5}", 404, NULL) ||
        !post("/api/pause", g_app.token, "{\"paused\": 1}", 400, NULL))
        return false;
    if (!probe_now(path, sizeof path, &f, &x, &steps))
        return false;
    CHECK(x == 1000.0, "a refused write applied nothing: x %.1f", x);

    /* pause: the frames go on, the simulation stands still */
    if (!post(target, g_app.token, "{\"speed\": 1}", 200, NULL) ||
        !post("/api/pause", g_app.token, "{\"paused\": true}", 200, &j))
        return false;
    bool paused = json_is_true(json_object_get(j, "paused"));
    json_decref(j);
    uint64_t fp1, fp2;
    double xp1, xp2;
    json_int_t sp1, sp2;
    if (!probe_now(path, sizeof path, &fp1, &xp1, &sp1) || !wait_frame_past(fp1 + 2, &now) ||
        !probe_now(path, sizeof path, &fp2, &xp2, &sp2))
        return false;
    CHECK(paused && fp2 > fp1 && xp2 == xp1 && sp2 == sp1,
          "paused: frames %llu..%llu, x %.1f..%.1f, steps %lld..%lld", (unsigned long long)fp1,
          (unsigned long long)fp2, xp1, xp2, (long long)sp1, (long long)sp2);
    if (!get_json("/api/stats", 200, &j))
        return false;
    paused = json_is_true(json_object_get(j, "paused"));
    json_decref(j);
    CHECK(paused, "/api/stats says paused");
    if (!post("/api/pause", g_app.token, "{\"paused\": false}", 200, NULL) ||
        !wait_frame_past(fp2 + 2, &now) || !probe_now(path, sizeof path, &fp2, &xp2, &sp2))
        return false;
    CHECK(xp2 > xp1 && sp2 > sp1, "running again: x %.1f..%.1f", xp1, xp2);
    return true;
}

static void *client(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_app.token_ready) && !atomic_load(&g_app.done))
        usleep(1000);
    g_port = atomic_load(&g_app.port);
    if (g_port && !(check_reads() && check_hosts() && check_writes()) && !g_app.failure[0])
        snprintf(g_app.failure, sizeof g_app.failure, "a check failed without a message");
    atomic_store(&g_app.done, true);
    return NULL;
}

static void test_every_endpoint_and_writes(void **state)
{
    (void)state;
    char dir[] = "/tmp/zengine-inspect-api-XXXXXX", project[256];
    assert_true(fixture_project(dir, "Inspect API Test", project, sizeof project));
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, client, NULL), 0);
    ze_app_desc_t app = {.name = "inspect api test",
                         .user = &g_app,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .inspector = ze_inspector_tool()};
    /* 1,000,000 frames: a hang deadline, the client closes the run */
    ze_result r = fixture_run(&app, project, 1000000, 1.0 / 60.0, true);
    atomic_store(&g_app.done, true);
    pthread_join(t, NULL);
    fixture_project_remove(dir, project);
    assert_int_equal(r, ZE_OK);
    assert_int_not_equal(g_port, 0);
    if (g_app.failure[0])
        fail_msg("%s", g_app.failure);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_endpoint_and_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
