/* Level changes through the engine on the Vulkan backend (lavapipe in CI,
 * validation on): the fixture's crate level (mesh, material, texture) and
 * an empty level replace each other 20 times; each time the level is gone
 * and the frames that drew it retired, the device memory (VkDeviceMemory
 * and live sub-allocations), the bindless slots and the vertex and index
 * bytes in use and their capacity equal what they were after the first
 * unload (the per-frame buffers are sized by the first level's draws and
 * keep that size), the asset figures equal the very first empty level's,
 * and no validation message was reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"
#include "engine/engine_internal.h"

enum { CYCLES = 20, WAIT_FRAMES = 3000, RETIRE_FRAMES = 6 };

static fx_project_t g_project;

typedef struct held_t {
    uint64_t device, used, vertex, vertex_cap, index, index_cap;
    uint32_t slots;
} held_t;

typedef struct level_t {
    int phase;
    uint32_t cycles, waited;
    uint64_t frames_at_empty;
    bool have_first, have_warm;
    held_t first, warm;
    const char *failure;
    uint32_t failed_cycle;
} level_t;

static held_t held_of(const ze_render_stats_t *s)
{
    return (held_t){s->gpu_memory_bytes,      s->gpu_memory_used_bytes, s->vertex_bytes_used,
                    s->vertex_bytes_capacity, s->index_bytes_used,      s->index_bytes_capacity,
                    s->bindless_slots_used};
}

static void fail_with(ze_engine_t *e, level_t *l, const char *why)
{
    if (!l->failure) {
        l->failure = why;
        l->failed_cycle = l->cycles;
    }
    ze_engine_request_close(e);
}

static void print_held(const char *what, const held_t *h)
{
    if (getenv("ZE_TEST_VERBOSE"))
        printf("%s: device %llu, used %llu, slots %u, vertex %llu/%llu, index %llu/%llu\n", what,
               (unsigned long long)h->device, (unsigned long long)h->used, h->slots,
               (unsigned long long)h->vertex, (unsigned long long)h->vertex_cap,
               (unsigned long long)h->index, (unsigned long long)h->index_cap);
}

static void level_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    level_t *l = user;
    if (l->failure)
        return;
    ze_render_stats_t st = ze_render_backend_stats(e->backend);
    if (st.validation_messages)
        fail_with(e, l, "validation messages");
    uint32_t held = st.meshes + st.materials + st.textures;
    switch (l->phase) {
    case 0: /* the start scene: go to the empty level */
        if (ze_engine_load_scene(e, "/scenes/empty.scene.json") != ZE_OK)
            fail_with(e, l, "the empty scene did not load");
        l->phase = 1;
        l->waited = 0;
        return;
    case 1: /* everything released: then let the frames that used it retire */
        /* (released: the start scene's assets were uploaded and went) */
        if (held == 0 && st.vertex_bytes_used == 0 && st.assets_released > 0) {
            l->frames_at_empty = st.frames;
            l->phase = 2;
        } else if (++l->waited > WAIT_FRAMES) {
            fail_with(e, l, "the level's assets were not released");
        }
        return;
    case 2: {
        if (st.frames < l->frames_at_empty + RETIRE_FRAMES)
            return;
        held_t h = held_of(&st);
        if (!l->have_first) {
            l->first = h;
            l->have_first = true;
            print_held("first empty", &h);
        } else if (!l->have_warm) {
            l->warm = h;
            l->have_warm = true;
            print_held("after a level", &h);
        }
        if (h.slots != l->first.slots || h.vertex != 0 || h.index != 0 ||
            h.vertex_cap != l->first.vertex_cap || h.index_cap != l->first.index_cap)
            fail_with(e, l, "bindless slots or geometry not back at the first empty level's");
        if (l->have_warm && (h.device != l->warm.device || h.used != l->warm.used))
            fail_with(e, l, "device memory not back at its value after the first level");
        if (++l->cycles > CYCLES) {
            ze_engine_request_close(e);
            return;
        }
        if (ze_engine_load_scene(e, "/scenes/main.scene.json") != ZE_OK)
            fail_with(e, l, "the level did not load");
        l->phase = 3;
        l->waited = 0;
        return;
    }
    case 3: /* the level resident and drawn */
        if (st.meshes >= 1 && st.textures >= 1 && st.last_draws > 0) {
            if (st.bindless_slots_used <= l->first.slots || st.vertex_bytes_used == 0)
                fail_with(e, l, "the level holds no slot or no geometry");
            if (ze_engine_load_scene(e, "/scenes/empty.scene.json") != ZE_OK)
                fail_with(e, l, "the empty scene did not load");
            l->phase = 1;
            l->waited = 0;
        } else if (++l->waited > WAIT_FRAMES) {
            fail_with(e, l, "the level's assets did not come back");
        }
        return;
    default:
        return;
    }
}

static void test_level_change_20_times(void **state)
{
    (void)state;
    static const char scene[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000001\", \"components\": {"
        "\"Transform\": {\"position\": [0, 2, 10]}, \"Camera\": {\"is_main\": true}}}\n]}\n";
    char path[400];
    snprintf(path, sizeof path, "%s/scenes/empty.scene.json", g_project.root);
    assert_true(fx_write(path, scene, sizeof scene - 1));
    level_t l;
    memset(&l, 0, sizeof l);
    ze_app_desc_t app = {.name = "level change", .user = &l, .on_update = level_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = CYCLES * 3 * WAIT_FRAMES;
    run.fixed_dt = 1.0 / 60.0;
    run.max_fps = 1000;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    if (l.failure)
        fail_msg("%s (cycle %u)", l.failure, l.failed_cycle);
    assert_int_equal(l.cycles, CYCLES + 1);
    assert_true(l.have_warm);
    assert_int_equal(rep.validation_messages, 0);
    /* the report: the run ends on the empty level */
    assert_true(rep.assets_released >= (uint64_t)CYCLES * 3);
    assert_int_equal(rep.bindless_slots_used, l.first.slots);
    assert_int_equal(rep.vertex_bytes_used, 0);
    assert_int_equal(rep.index_bytes_used, 0);
    assert_int_equal(rep.budget_rejections, 0);
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    return fx_project_make(&g_project) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fx_project_remove(&g_project);
    ze_log_reset();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_change_20_times),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
