/* The null backend's pending queue under concurrency (also run under TSan):
 * a render thread calls ze_render_backend_frame in a loop while the main
 * thread pushes 10^5 asset notifications through a small queue (retrying on
 * ZE_ERR_FULL) and, with an observer thread, reads stats and resident
 * generations. Every notification arrives exactly once, in order: resident
 * generations never go backwards and end as the last pushed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "zengine/gfx.h"

enum {
    PUSHES = 100000,
    UUIDS = 257, /* distinct assets; each push is a (re)load of one */
    CAPACITY = 64,
};

typedef struct ctx_t {
    ze_render_backend_t *b;
    const ze_render_state_t *scene;
    atomic_bool stop;
    atomic_int errors;
    atomic_uint_fast64_t frames_ok;
} ctx_t;

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[15] = 0x5A;
    memcpy(u.bytes, &n, sizeof n);
    return u;
}

static ze_asset_type type_of(uint32_t n)
{
    static const ze_asset_type types[] = {ZE_ASSET_TYPE_MESH, ZE_ASSET_TYPE_MATERIAL,
                                          ZE_ASSET_TYPE_TEXTURE, ZE_ASSET_TYPE_ENVMAP};
    return types[n % 4];
}

static void *render_main(void *p)
{
    ctx_t *c = p;
    while (!atomic_load(&c->stop)) {
        if (ze_render_backend_frame(c->b, c->scene) != ZE_OK)
            atomic_fetch_add(&c->errors, 1);
        else
            atomic_fetch_add(&c->frames_ok, 1);
    }
    return NULL;
}

/* Another thread reading what the render thread writes. */
static void *observer_main(void *p)
{
    ctx_t *c = p;
    uint32_t last[UUIDS] = {0};
    uint64_t last_frames = 0, last_received = 0;
    while (!atomic_load(&c->stop)) {
        ze_render_stats_t s = ze_render_backend_stats(c->b);
        if (s.frames < last_frames || s.assets_received < last_received ||
            s.meshes + s.materials + s.textures + s.envmaps > UUIDS)
            atomic_fetch_add(&c->errors, 1);
        last_frames = s.frames;
        last_received = s.assets_received;
        for (uint32_t i = 0; i < UUIDS; i += 7) {
            uint32_t g = ze_render_backend_resident(c->b, uuid_n(i));
            if (g < last[i])
                atomic_fetch_add(&c->errors, 1);
            last[i] = g;
        }
    }
    return NULL;
}

static void test_pending_queue_stress(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    ze_render_backend_t *b = NULL;
    assert_int_equal(
        ze_render_backend_create(
            "null",
            &(ze_render_backend_desc_t){.mem = mm, .headless = true, .pending_capacity = CAPACITY},
            &b),
        ZE_OK);
    ze_render_instance_t inst[4];
    memset(inst, 0, sizeof inst);
    ze_render_light_t light = {.type = ZE_RENDER_LIGHT_DIRECTIONAL, .intensity = 1.0f};
    ze_render_state_t scene = {.frame = 7, .light_count = 1, .lights = &light};
    ze_render_state_set_instances(&scene, inst, 4);
    ctx_t c = {.b = b, .scene = &scene};
    pthread_t render, observer;
    assert_int_equal(pthread_create(&render, NULL, render_main, &c), 0);
    assert_int_equal(pthread_create(&observer, NULL, observer_main, &c), 0);

    static uint32_t gen[UUIDS];
    memset(gen, 0, sizeof gen);
    uint64_t full = 0;
    uint32_t rng = 12345;
    for (uint32_t i = 0; i < PUSHES; i++) {
        rng = rng * 1664525u + 1013904223u;
        uint32_t n = (rng >> 8) % UUIDS;
        ze_asset_data_t d = {
            .uuid = uuid_n(n), .type = type_of(n), .generation = gen[n] + 1, .size = 100 + n};
        ze_result r;
        while ((r = ze_render_backend_asset_ready(b, &d)) == ZE_ERR_FULL) {
            full++;
            sched_yield();
        }
        assert_int_equal(r, ZE_OK);
        gen[n]++;
        if (i % 1024 == 0) {
            /* The main thread reads too, while the render thread drains. */
            uint32_t g = ze_render_backend_resident(b, d.uuid);
            assert_true(g <= gen[n]);
            ze_render_stats_t s = ze_render_backend_stats(b);
            assert_true(s.assets_received <= (uint64_t)i + 1);
        }
    }
    /* Wait for the render thread to drain the tail of the queue. */
    uint64_t t0 = ze_time_now_ns();
    while (ze_render_backend_stats(b).assets_received < PUSHES &&
           ze_time_now_ns() - t0 < 60000000000ull)
        sched_yield();
    atomic_store(&c.stop, true);
    pthread_join(render, NULL);
    pthread_join(observer, NULL);

    assert_int_equal(atomic_load(&c.errors), 0);
    ze_render_stats_t s = ze_render_backend_stats(b);
    assert_int_equal(s.assets_received, PUSHES);
    assert_int_equal(s.assets_rejected, full);
    print_message("full retries %llu, frames %llu\n", (unsigned long long)full,
                  (unsigned long long)s.frames);
    assert_int_equal(s.frames, atomic_load(&c.frames_ok));
    assert_int_equal(s.instances_drawn, 4 * s.frames);
    assert_int_equal(s.last_scene_frame, 7);
    uint32_t per_type[4] = {0};
    for (uint32_t n = 0; n < UUIDS; n++) {
        assert_int_equal(ze_render_backend_resident(b, uuid_n(n)), gen[n]);
        if (gen[n])
            per_type[n % 4]++;
    }
    assert_int_equal(s.meshes, per_type[0]);
    assert_int_equal(s.materials, per_type[1]);
    assert_int_equal(s.textures, per_type[2]);
    assert_int_equal(s.envmaps, per_type[3]);
    ze_render_backend_destroy(b);
    ze_mem_destroy(mm);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_queue_stress),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ze_log_reset();
    return rc;
}
