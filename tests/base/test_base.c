/* Tests of the base module: results, log, hashing, rng, uuid, UTF-8
 * validation, signal names, math, containers, profiler zones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "engine/trace_check.h"

#include "zengine/base.h"
#include "zengine/mem.h"

static void test_result_names(void **state)
{
    (void)state;
    assert_string_equal(ze_result_str(ZE_OK), "ok");
    assert_string_equal(ze_result_str(ZE_ERR_BUDGET), "memory budget exceeded");
    for (int r = 0; r < ZE_RESULT_COUNT; r++)
        assert_string_not_equal(ze_result_str((ze_result)r), "unknown result");
    assert_string_equal(ze_result_str((ze_result)9999), "unknown result");
}

static int soft_check(int x)
{
    ZE_CHECK(x > 0, -1);
    return x;
}

static void test_soft_check_returns(void **state)
{
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    uint64_t before = ze_log_count(ZE_LOG_ERROR);
    assert_int_equal(soft_check(5), 5);
    assert_int_equal(soft_check(-3), -1);
    assert_int_equal(ze_log_count(ZE_LOG_ERROR), before + 1);
    ze_log_reset();
}

typedef struct sink_capture_t {
    int calls;
    ze_log_record_t last;
} sink_capture_t;

static void capture_sink(void *user, const ze_log_record_t *rec)
{
    sink_capture_t *c = user;
    c->calls++;
    c->last = *rec;
}

static void test_log_levels_sink_ring(void **state)
{
    (void)state;
    sink_capture_t cap = {0};
    ze_log_record_t ring[8];
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_WARN,
                                      .quiet = true,
                                      .sink = capture_sink,
                                      .sink_user = &cap,
                                      .ring = ring,
                                      .ring_capacity = 8});
    ZE_LOG_INFO("test", "filtered %d", 1);
    assert_int_equal(cap.calls, 0);
    ZE_LOG_WARN("test", "kept %d", 2);
    assert_int_equal(cap.calls, 1);
    assert_string_equal(cap.last.channel, "test");
    assert_string_equal(cap.last.message, "kept 2");
    assert_int_equal(cap.last.level, ZE_LOG_WARN);

    ze_log_set_level(ZE_LOG_TRACE);
    assert_int_equal(ze_log_get_level(), ZE_LOG_TRACE);
    uint64_t cursor = cap.last.seq - 1;
    for (int i = 0; i < 20; i++)
        ZE_LOG_DEBUG("ring", "message %d", i);
    ze_log_record_t out[32];
    uint64_t dropped = 0;
    uint32_t n = ze_log_ring_read(&cursor, out, 32, &dropped);
    /* 21 records since the cursor, ring of 8: the 8 newest survive. */
    assert_int_equal(n, 8);
    assert_int_equal(dropped, 13);
    assert_string_equal(out[7].message, "message 19");
    assert_true(out[0].seq + 7 == out[7].seq);
    assert_int_equal(ze_log_ring_read(&cursor, out, 32, NULL), 0);

    /* Long messages are truncated, not overflowed. */
    char big[2048];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ZE_LOG_ERROR("test", "%s", big);
    assert_int_equal(strlen(cap.last.message), ZE_LOG_MESSAGE_MAX - 1);
    assert_string_equal(cap.last.message + ZE_LOG_MESSAGE_MAX - 4, "...");
    ze_log_reset();
}

static void test_log_level_parse(void **state)
{
    (void)state;
    ze_log_level lv;
    assert_int_equal(ze_log_level_parse("DEBUG", &lv), ZE_OK);
    assert_int_equal(lv, ZE_LOG_DEBUG);
    assert_int_equal(ze_log_level_parse("off", &lv), ZE_OK);
    assert_int_equal(lv, ZE_LOG_OFF);
    assert_int_equal(ze_log_level_parse("loud", &lv), ZE_ERR_PARSE);
    setenv("ZENGINE_LOG_LEVEL", "error", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    assert_int_equal(ze_log_get_level(), ZE_LOG_ERROR);
    unsetenv("ZENGINE_LOG_LEVEL");
    ze_log_reset();
    assert_int_equal(ze_log_get_level(), ZE_LOG_INFO);
}

static void test_hash_and_rng(void **state)
{
    (void)state;
    const char *s = "zengine";
    assert_true(ze_hash64(s, 7, 0) == ze_hash64(s, 7, 0));
    assert_true(ze_hash64(s, 7, 0) != ze_hash64(s, 7, 1));
    assert_true(ze_hash64(s, 7, 0) != ze_hash64(s, 6, 0));
    /* xxh3 of the empty input with seed 0 is a published constant. */
    assert_true(ze_hash64("", 0, 0) == 0x2D06800538D394C2ULL);

    ze_rng_t a, b;
    ze_rng_seed(&a, 42);
    ze_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        assert_true(ze_rng_next(&a) == ze_rng_next(&b));
    int hist[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = ze_rng_below(&a, 10);
        assert_true(v < 10);
        hist[v]++;
        double u = ze_rng_unit(&a);
        assert_true(u >= 0.0 && u < 1.0);
    }
    for (int i = 0; i < 10; i++)
        assert_true(hist[i] > 9000 && hist[i] < 11000);
}

static void test_uuid(void **state)
{
    (void)state;
    ze_uuid_t a = ze_uuid_v4(), b = ze_uuid_v4();
    assert_false(ze_uuid_eq(a, b));
    assert_int_equal(ze_uuid_version(a), 4);
    char buf[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(a, buf);
    assert_int_equal(strlen(buf), 36);
    ze_uuid_t back;
    assert_int_equal(ze_uuid_parse(buf, 36, &back), ZE_OK);
    assert_true(ze_uuid_eq(a, back));

    /* RFC 4122 appendix-style vector: v5 of "www.example.com" in the DNS
     * namespace is 2ed6657d-e927-568b-95e1-2665a8aea6a2. */
    ze_uuid_t dns;
    assert_int_equal(ze_uuid_parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8", 36, &dns), ZE_OK);
    ze_uuid_t v5 = ze_uuid_v5(dns, "www.example.com", 15);
    ze_uuid_format(v5, buf);
    assert_string_equal(buf, "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    assert_int_equal(ze_uuid_version(v5), 5);

    ze_uuid_t upper;
    assert_int_equal(ze_uuid_parse("2ED6657D-E927-568B-95E1-2665A8AEA6A2", 36, &upper), ZE_OK);
    assert_true(ze_uuid_eq(upper, v5));

    const char *bad[] = {"",
                         "2ed6657d-e927-568b-95e1-2665a8aea6a",
                         "2ed6657d-e927-568b-95e1-2665a8aea6a2x",
                         "2ed6657de927-568b-95e1-2665a8aea6a2-",
                         "2ed6657d-e927-568b-95e1-2665a8aea6g2",
                         "{ed6657d-e927-568b-95e1-2665a8aea6a2"};
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++) {
        ze_uuid_t out = v5;
        assert_int_equal(ze_uuid_parse(bad[i], strlen(bad[i]), &out), ZE_ERR_PARSE);
        assert_true(ze_uuid_eq(out, v5)); /* untouched on failure */
    }
    assert_true(ze_uuid_is_nil((ze_uuid_t){0}));
    assert_false(ze_uuid_is_nil(v5));
}

static bool near(float a, float b)
{
    return fabsf(a - b) < 1e-4f;
}

static size_t utf8_len(const char *s)
{
    return ze_utf8_valid_len((const unsigned char *)s, strlen(s));
}

static void test_utf8_valid_len(void **state)
{
    (void)state;
    /* One to four bytes, at the edges of each length. */
    assert_int_equal(utf8_len("a"), 1);
    assert_int_equal(utf8_len("\x7f"), 1);
    assert_int_equal(utf8_len("\xc2\x80"), 2);         /* U+0080 */
    assert_int_equal(utf8_len("\xdf\xbf"), 2);         /* U+07FF */
    assert_int_equal(utf8_len("\xe0\xa0\x80"), 3);     /* U+0800 */
    assert_int_equal(utf8_len("\xef\xbf\xbd"), 3);     /* U+FFFD */
    assert_int_equal(utf8_len("\xf0\x90\x80\x80"), 4); /* U+10000 */
    assert_int_equal(utf8_len("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
    /* Only the first sequence counts. */
    assert_int_equal(utf8_len("\xc3\xa9t\xc3\xa9"), 2);
    /* Overlong forms, surrogates, above U+10FFFF. */
    assert_int_equal(utf8_len("\xc0\xaf"), 0);
    assert_int_equal(utf8_len("\xc1\xbf"), 0);
    assert_int_equal(utf8_len("\xe0\x9f\xbf"), 0);
    assert_int_equal(utf8_len("\xf0\x8f\xbf\xbf"), 0);
    assert_int_equal(utf8_len("\xed\xa0\x80"), 0); /* U+D800 */
    assert_int_equal(utf8_len("\xed\xbf\xbf"), 0); /* U+DFFF */
    assert_int_equal(utf8_len("\xf4\x90\x80\x80"), 0);
    assert_int_equal(utf8_len("\xf5\x80\x80\x80"), 0);
    assert_int_equal(utf8_len("\xff"), 0);
    /* A lone continuation byte, a bad continuation, a cut sequence. */
    assert_int_equal(utf8_len("\x80"), 0);
    assert_int_equal(utf8_len("\xc3("), 0);
    assert_int_equal(utf8_len("\xe2\x82"), 0);
    const unsigned char euro[] = {0xe2, 0x82, 0xac};
    assert_int_equal(ze_utf8_valid_len(euro, 3), 3);
    assert_int_equal(ze_utf8_valid_len(euro, 2), 0); /* n cuts it */
    assert_int_equal(ze_utf8_valid_len(euro, 0), 0);
    const unsigned char nul[] = {0};
    assert_int_equal(ze_utf8_valid_len(nul, 1), 1);
}

static void test_signal_name(void **state)
{
    (void)state;
    assert_string_equal(ze_signal_name(SIGSEGV), "SIGSEGV");
    assert_string_equal(ze_signal_name(SIGABRT), "SIGABRT");
    assert_string_equal(ze_signal_name(SIGBUS), "SIGBUS");
    assert_string_equal(ze_signal_name(SIGFPE), "SIGFPE");
    assert_string_equal(ze_signal_name(SIGILL), "SIGILL");
    assert_string_equal(ze_signal_name(SIGKILL), "SIGKILL");
    assert_string_equal(ze_signal_name(SIGXCPU), "SIGXCPU");
    assert_string_equal(ze_signal_name(SIGTERM), "SIGTERM");
    assert_null(ze_signal_name(SIGINT));
    assert_null(ze_signal_name(0));
    assert_null(ze_signal_name(-1));
}

static void test_math(void **state)
{
    (void)state;
    ze_quat_t r = ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, (float)M_PI / 2);
    ze_vec3_t v = ze_quat_rotate(r, (ze_vec3_t){1, 0, 0});
    assert_true(near(v.x, 0) && near(v.y, 1) && near(v.z, 0));

    ze_mat4_t m = ze_mat4_from_trs((ze_vec3_t){1, 2, 3}, r, (ze_vec3_t){2, 2, 2});
    ze_vec3_t p = ze_mat4_transform_point(m, (ze_vec3_t){1, 0, 0});
    assert_true(near(p.x, 1) && near(p.y, 4) && near(p.z, 3));
    /* A non-unit quaternion means the same rotation. */
    ze_quat_t r3 = {r.x * 3, r.y * 3, r.z * 3, r.w * 3};
    ze_mat4_t m3 = ze_mat4_from_trs((ze_vec3_t){1, 2, 3}, r3, (ze_vec3_t){2, 2, 2});
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++)
            assert_true(near(m3.m[c][k], m.m[c][k]));
    ze_mat4_t inv;
    assert_true(ze_mat4_inverse(m, &inv));
    ze_mat4_t id = ze_mat4_mul(m, inv);
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++)
            assert_true(near(id.m[c][k], c == k ? 1.0f : 0.0f));
    ze_mat4_t zero = {0};
    assert_false(ze_mat4_inverse(zero, &inv));

    /* Vulkan clip space: a point on the near plane maps to depth 0, far to 1,
     * and +y in view space maps to -y in clip space. */
    ze_mat4_t proj = ze_mat4_perspective((float)M_PI / 2, 1.0f, 1.0f, 10.0f);
    ze_vec4_t n = ze_mat4_mul_vec4(proj, (ze_vec4_t){0, 1, -1, 1});
    assert_true(near(n.z / n.w, 0.0f));
    assert_true(n.y / n.w < 0.0f);
    ze_vec4_t f = ze_mat4_mul_vec4(proj, (ze_vec4_t){0, 0, -10, 1});
    assert_true(near(f.z / f.w, 1.0f));

    ze_mat4_t view =
        ze_mat4_look_at((ze_vec3_t){0, 0, 5}, (ze_vec3_t){0, 0, 0}, (ze_vec3_t){0, 1, 0});
    ze_vec3_t o = ze_mat4_transform_point(view, (ze_vec3_t){0, 0, 0});
    assert_true(near(o.z, -5));
    assert_true(near(ze_vec3_length(ze_vec3_normalize((ze_vec3_t){3, 4, 0})), 1.0f));
    ze_vec3_t zv = ze_vec3_normalize((ze_vec3_t){0, 0, 0});
    assert_true(zv.x == 0 && zv.y == 0 && zv.z == 0);
    ze_quat_t s = ze_quat_slerp(ZE_QUAT_IDENTITY, r, 0.5f);
    ze_vec3_t half = ze_quat_rotate(s, (ze_vec3_t){1, 0, 0});
    assert_true(near(half.x, (float)M_SQRT1_2) && near(half.y, (float)M_SQRT1_2));
}

static void test_array(void **state)
{
    (void)state;
    ze_array_t a;
    ZE_ARRAY_INIT(&a, ze_mem_system_allocator(), uint64_t);
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(ze_array_push(&a, &i), ZE_OK);
    assert_int_equal(a.count, 1000);
    assert_true(ZE_ARRAY_AT(&a, uint64_t, 999) == 999);
    ze_array_remove_swap(&a, 0);
    assert_true(ZE_ARRAY_AT(&a, uint64_t, 0) == 999);
    ze_array_remove_ordered(&a, 0);
    assert_true(ZE_ARRAY_AT(&a, uint64_t, 0) == 1);
    uint64_t last;
    assert_true(ze_array_pop(&a, &last));
    assert_true(last == 998);
    assert_int_equal(ze_array_resize(&a, 2000), ZE_OK);
    assert_true(ZE_ARRAY_AT(&a, uint64_t, 1999) == 0);
    ze_array_clear(&a);
    assert_false(ze_array_pop(&a, NULL));
    ze_array_free(&a);
}

typedef struct key3_t {
    uint32_t a, b, c;
} key3_t;

static void test_hashmap_against_model(void **state)
{
    (void)state;
    enum { N = 4096 };
    static int64_t model[N]; /* -1 = absent */
    for (int i = 0; i < N; i++)
        model[i] = -1;
    ze_hashmap_t m;
    ze_hashmap_init(&m, ze_mem_system_allocator(), sizeof(key3_t), sizeof(int64_t));
    ze_rng_t rng;
    ze_rng_seed(&rng, 7);
    uint32_t count = 0;
    for (int step = 0; step < 200000; step++) {
        uint32_t k = (uint32_t)ze_rng_below(&rng, N);
        key3_t key = {k, k * 7u, 3};
        uint64_t op = ze_rng_below(&rng, 3);
        if (op == 0) {
            int64_t v = (int64_t)ze_rng_below(&rng, 1000000);
            assert_int_equal(ze_hashmap_put(&m, &key, &v), ZE_OK);
            if (model[k] < 0)
                count++;
            model[k] = v;
        } else if (op == 1) {
            bool removed = ze_hashmap_remove(&m, &key);
            assert_int_equal(removed, model[k] >= 0);
            if (removed)
                count--;
            model[k] = -1;
        } else {
            int64_t *v = ze_hashmap_get(&m, &key);
            if (model[k] < 0)
                assert_null(v);
            else
                assert_true(v && *v == model[k]);
        }
        assert_int_equal(m.count, count);
    }
    uint32_t cursor = 0, seen = 0;
    const void *kp;
    void *vp;
    while (ze_hashmap_next(&m, &cursor, &kp, &vp)) {
        const key3_t *key = kp;
        assert_true(model[key->a] == *(int64_t *)vp);
        seen++;
    }
    assert_int_equal(seen, count);
    ze_hashmap_clear(&m);
    assert_int_equal(m.count, 0);
    ze_hashmap_free(&m);
}

static void *zone_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        ZE_ZONE_BEGIN("outer");
        ZE_ZONE_BEGIN("inner");
        ZE_ZONE_END();
        ZE_ZONE_END();
    }
    return NULL;
}

static void test_trace_zones_json(void **state)
{
    (void)state;
    assert_int_equal(ze_trace_start(&(ze_trace_desc_t){.alloc = ze_mem_system_allocator()}), ZE_OK);
    assert_int_equal(ze_trace_start(&(ze_trace_desc_t){.alloc = ze_mem_system_allocator()}),
                     ZE_ERR_STATE);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, zone_thread, NULL);
    zone_thread(NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ze_trace_stop(f), ZE_OK);
    fclose(f);
    json_error_t err;
    json_t *root = json_loadb(buf, len, 0, &err);
    ze_mem_sys_free(buf); /* open_memstream allocated it with malloc */
    assert_non_null(root);
    json_t *events = json_object_get(root, "traceEvents");
    assert_true(json_is_array(events));
    assert_int_equal(json_array_size(events), 3 * 100 * 4);
    int depth[64] = {0}, tids = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev)
    {
        int tid = (int)json_integer_value(json_object_get(ev, "tid"));
        assert_true(tid > 0 && tid < 64);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (strcmp(ph, "B") == 0) {
            if (depth[tid] == 0 && tids < 1000)
                tids++;
            depth[tid]++;
        } else {
            assert_string_equal(ph, "E");
            assert_true(--depth[tid] >= 0);
        }
        assert_true(json_is_number(json_object_get(ev, "ts")));
    }
    for (int k = 0; k < 64; k++)
        assert_int_equal(depth[k], 0);
    json_decref(root);
    assert_false(ze_trace_active());
    ZE_ZONE_BEGIN("ignored when inactive");
    ZE_ZONE_END();
}

/* A zone open at a pause is closed in the capture; events after the pause
 * are not recorded; named threads get thread_name events; GPU spans form
 * the GPU track (tid 0) of X events with their durations. */
static pthread_mutex_t g_pause_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_pause_cv = PTHREAD_COND_INITIALIZER;
static int g_pause_step;

static void pause_wait_step(int step)
{
    pthread_mutex_lock(&g_pause_lock);
    while (g_pause_step < step)
        pthread_cond_wait(&g_pause_cv, &g_pause_lock);
    pthread_mutex_unlock(&g_pause_lock);
}

static void pause_set_step(int step)
{
    pthread_mutex_lock(&g_pause_lock);
    g_pause_step = step;
    pthread_cond_broadcast(&g_pause_cv);
    pthread_mutex_unlock(&g_pause_lock);
}

static void *open_zone_thread(void *arg)
{
    (void)arg;
    ze_trace_thread_name("render");
    ZE_ZONE_BEGIN("left open");
    pause_set_step(1);
    pause_wait_step(2); /* the main thread paused the capture */
    ZE_ZONE_END();      /* not recorded */
    ZE_ZONE_BEGIN("after the pause");
    ZE_ZONE_END();
    return NULL;
}

static void test_trace_pause_names_and_gpu(void **state)
{
    (void)state;
    g_pause_step = 0;
    ze_trace_thread_name("main");
    assert_int_equal(ze_trace_start(&(ze_trace_desc_t){.alloc = ze_mem_system_allocator()}), ZE_OK);
    uint64_t t0 = ze_time_now_ns();
    ZE_ZONE_BEGIN("frame");
    ze_trace_gpu_span("a pass with a name longer than thirty-one bytes", t0, t0 + 5000);
    ze_trace_gpu_span("second", t0 + 6000, t0 + 7000);
    pthread_t t;
    pthread_create(&t, NULL, open_zone_thread, NULL);
    pause_wait_step(1);
    ze_trace_pause();
    assert_false(ze_trace_active());
    ZE_ZONE_END(); /* not recorded either: closed by the writer */
    ze_trace_gpu_span("dropped", t0, t0 + 1);
    pause_set_step(2);
    pthread_join(t, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ze_trace_stop(f), ZE_OK);
    fclose(f);
    assert_int_equal(ze_trace_stop(NULL), ZE_ERR_STATE); /* the capture is gone */
    tc_report_t rep;
    char why[512];
    if (!tc_check_text(buf, len, &rep, why, sizeof why))
        fail_msg("%s", why);
    assert_null(strstr(buf, "after the pause"));
    assert_null(strstr(buf, "dropped"));
    assert_non_null(strstr(buf, "\"a pass with a name longer than \""));
    assert_int_equal(rep.gpu_spans, 2);
    assert_int_equal(rep.zone_threads, 2);
    assert_int_equal(rep.frames, 1);
    assert_true(rep.has_main && rep.has_render);
    assert_int_equal(rep.named_threads, 3); /* main, render, GPU */
    ze_mem_sys_free(buf);
    ze_trace_thread_name(NULL);
}

/* The diagnostics sink: a capture keeps the first and last reports as
 * "module: subject: message" with their codes; the default sink is the
 * log; ze_diag returns the code. */
static void test_diag_sink(void **state)
{
    (void)state;
    ze_diag_capture_t c = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&c);
    assert_int_equal(ze_diag(&sink, ZE_LOG_WARN, ZE_OK, "vfs", "/a.txt", "first %d", 1), ZE_OK);
    assert_int_equal(ze_diag(&sink, ZE_LOG_ERROR, ZE_ERR_PARSE, "ecs", "", "second"), ZE_ERR_PARSE);
    assert_int_equal(c.count, 2);
    assert_int_equal(c.errors, 1);
    assert_string_equal(c.first, "vfs: /a.txt: first 1");
    assert_int_equal(c.first_code, ZE_OK);
    assert_string_equal(c.last, "ecs: second");
    assert_string_equal(c.last_message, "second");
    assert_int_equal(c.last_code, ZE_ERR_PARSE);
    /* below min_level: counted, not kept */
    ze_diag_capture_t q = {.min_level = ZE_LOG_ERROR};
    ze_diag_sink_t qs = ze_diag_capture_sink(&q);
    ze_diag(&qs, ZE_LOG_WARN, ZE_OK, "m", "s", "ignored");
    assert_int_equal(q.count, 1);
    assert_string_equal(q.last, "");
    /* pass_on: the capture forwards to another sink */
    ze_diag_capture_t outer = {.forward = sink, .pass_on = true};
    ze_diag_sink_t os = ze_diag_capture_sink(&outer);
    ze_diag(&os, ZE_LOG_ERROR, ZE_ERR_IO, "asset", "x.gltf", "import failed");
    assert_int_equal(outer.count, 1);
    assert_int_equal(c.count, 3);
    assert_string_equal(c.last, "asset: x.gltf: import failed");
    /* the default sink ({0} or NULL) is the log, at the report's level */
    uint64_t errors = ze_log_count(ZE_LOG_ERROR);
    ze_diag(NULL, ZE_LOG_ERROR, ZE_ERR_IO, "test", "", "to the log");
    ze_diag(&(ze_diag_sink_t){0}, ZE_LOG_ERROR, ZE_ERR_IO, "test", "", "to the log too");
    assert_int_equal(ze_log_count(ZE_LOG_ERROR), errors + 2);
    /* a long message is cut, marked */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ze_diag(&sink, ZE_LOG_ERROR, ZE_ERR_LIMIT, "m", "", "%s", big);
    assert_true(strlen(c.last_message) < ZE_LOG_MESSAGE_MAX);
    assert_non_null(strstr(c.last_message, "..."));
    /* new result codes have distinct names */
    assert_string_equal(ze_result_str(ZE_ERR_PATH_ESCAPE), "path escapes its root");
    assert_string_equal(ze_result_str(ZE_ERR_IS_DIR), "is a directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_names),
        cmocka_unit_test(test_soft_check_returns),
        cmocka_unit_test(test_log_levels_sink_ring),
        cmocka_unit_test(test_log_level_parse),
        cmocka_unit_test(test_hash_and_rng),
        cmocka_unit_test(test_uuid),
        cmocka_unit_test(test_utf8_valid_len),
        cmocka_unit_test(test_signal_name),
        cmocka_unit_test(test_math),
        cmocka_unit_test(test_array),
        cmocka_unit_test(test_hashmap_against_model),
        cmocka_unit_test(test_trace_zones_json),
        cmocka_unit_test(test_trace_pause_names_and_gpu),
        cmocka_unit_test(test_diag_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
