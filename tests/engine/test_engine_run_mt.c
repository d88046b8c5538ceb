/* The running engine with its render thread: deterministic runs (the same
 * --frames N with a virtual clock gives the same world hash), the render
 * scene's contents, a slow backend that drops states while the main loop
 * keeps its rate, a lost device that ends the run with an error and no
 * hang, and the asset path end to end with child-process imports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_engine_fixture.h"
#include "engine/engine_internal.h"

/* ------------------------------------------------------- a moving game */

typedef struct velocity_t {
    ze_vec3_t v;
} velocity_t;

static ze_component_t g_velocity;

static void move_system(ze_world_t *w, const ze_tick_t *t)
{
    ze_component_t ZE_ID(velocity_t) = g_velocity;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const velocity_t *v = ze_field(&it, velocity_t);
        for (uint32_t i = 0; i < it.count; i++) {
            tr[i].position = ze_vec3_add(tr[i].position, ze_vec3_scale(v[i].v, t->dt));
            tr[i].rotation = ze_quat_normalize(
                ze_quat_mul(tr[i].rotation, ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, t->dt)));
        }
    }
}

typedef struct game_t {
    uint32_t spawned;
    uint64_t updates;
    /* what the last snapshot should have */
    bool close_on_mesh; /* close once the crate's mesh is resident */
    ze_uuid_t mesh, material;
    uint32_t mesh_generation, material_generation;
    uint64_t frames_at_resident;
} game_t;

static ze_result game_initialized(ze_engine_t *e, void *user)
{
    game_t *g = user;
    ze_world_t *w = ze_engine_world(e);
    ze_kernel_t *k = ze_engine_kernel(e);
    ze_component_desc_t vd = {.name = "Velocity", .size = sizeof(velocity_t)};
    if (ze_component_register(k, &vd, &g_velocity) != ZE_OK)
        return ZE_ERR_INTERNAL;
    ze_component_t ZE_ID(velocity_t) = g_velocity;
    ze_system_t s = ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                                         .fn = move_system,
                                                         .group = ZE_GROUP_FIXED_SIMULATION,
                                                         .reads = ZE_MASK(velocity_t),
                                                         .writes = ZE_MASK(ze_transform_t)});
    if (!s.id)
        return ZE_ERR_INTERNAL;
    /* The scene (with a parent and child) first, then things that move. */
    ze_result r = ze_engine_load_scene(e, "/scenes/main.scene.json");
    if (r != ZE_OK)
        return r;
    for (int i = 0; i < 3; i++) {
        ze_entity_t ent = ze_entity_create(w);
        ze_transform_t t = ze_transform_identity();
        t.position = (ze_vec3_t){(float)i, 0, -5};
        ze_component_set(w, ent, ZE_ID(ze_transform_t), &t);
        ze_set(w, ent, velocity_t, {{0.5f * (float)(i + 1), 0.25f, 0}});
        g->spawned++;
    }
    /* the first crate (the parent of the last one) moves too */
    for (uint32_t idx = 0; idx < 64; idx++) {
        ze_entity_t ent = ze_entity_from_index(w, idx);
        const ze_name_t *n = ze_entity_is_null(ent) ? NULL : ze_get(w, ent, ze_name_t);
        if (n && strcmp(n->value, "Crate 0") == 0)
            ze_set(w, ent, velocity_t, {{0, 1, 0}});
    }
    return ZE_OK;
}

static void game_update(ze_engine_t *e, double dt, void *user)
{
    game_t *g = user;
    (void)dt;
    g->updates++;
    if (g->close_on_mesh) {
        ze_render_backend_t *b = ze_engine_backend(e);
        g->mesh_generation = ze_render_backend_resident(b, g->mesh);
        g->material_generation = ze_render_backend_resident(b, g->material);
        if (g->mesh_generation && g->material_generation) {
            g->frames_at_resident = ze_engine_frame_index(e);
            ze_engine_request_close(e);
        }
    }
}

static ze_app_desc_t game_app(game_t *g)
{
    memset(g, 0, sizeof *g);
    return (ze_app_desc_t){
        .name = "game", .user = g, .on_initialized = game_initialized, .on_update = game_update};
}

/* ------------------------------------------------------------------ tests */

static void test_deterministic_runs(void **state)
{
    (void)state;
    uint64_t hashes[3];
    for (int run_i = 0; run_i < 3; run_i++) {
        game_t g;
        ze_app_desc_t app = game_app(&g);
        ze_run_desc_t run = fx_run(&g_project);
        run.frames = run_i == 2 ? 61 : 60;
        run.fixed_dt = 1.0 / 60.0;
        ze_run_report_t rep;
        assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
        assert_int_equal(rep.frames, run.frames);
        assert_int_equal(g.updates, run.frames);
        assert_int_equal(rep.sim_steps, run.frames); /* fixed_dt = the kernel's step */
        assert_int_equal(rep.instances, FX_CRATES);
        assert_int_equal(rep.lights, FX_LIGHTS);
        assert_true(rep.snapshots_published == run.frames);
        assert_true(rep.frames_rendered >= 1);
        assert_true(rep.shutdown_complete);
        hashes[run_i] = rep.world_hash;
        if (run_i == 0)
            printf("deterministic run: %llu frames, avg %.4f ms, p99 %.4f ms, %.2f "
                   "allocations/frame, hash %016llx\n",
                   (unsigned long long)rep.frames, rep.avg_frame_ms, rep.p99_frame_ms,
                   rep.allocations_per_frame, (unsigned long long)rep.world_hash);
    }
    assert_true(hashes[0] != 0);
    assert_true(hashes[0] == hashes[1]); /* the same N: the same world */
    assert_true(hashes[0] != hashes[2]); /* one more step: things moved */
}

/* The render state as the backend receives it: a recording backend is not
 * available through the interface, so check what the engine published. */
static void test_snapshot_contents(void **state)
{
    (void)state;
    game_t g;
    ze_app_desc_t app = game_app(&g);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 10;
    run.fixed_dt = 1.0 / 30.0; /* two fixed steps per iteration */
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    /* 2 steps per iteration (the first may fall a nanosecond short) */
    assert_true(rep.sim_steps >= 19 && rep.sim_steps <= 20);
    assert_int_equal(rep.instances, FX_CRATES);
    assert_int_equal(rep.lights, FX_LIGHTS);
}

/* A slow backend: the main loop never waits for the render thread; the
 * mailbox drops the states the renderer cannot take. */
static void test_slow_backend_drops_states(void **state)
{
    (void)state;
    game_t g;
    ze_app_desc_t app = game_app(&g);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 120;
    run.fixed_dt = 1.0 / 60.0; /* a virtual clock... */
    run.max_fps = 250;         /* ...paced at 4 ms per iteration */
    ze__run_ctx_t ctx = {.backend_frame_delay_us = 20000};
    uint64_t t0 = ze_time_now_ns();
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    double wall_ms = (double)(ze_time_now_ns() - t0) / 1e6;
    assert_int_equal(rep.frames, 120);
    assert_true(rep.frames_rendered < rep.frames);
    assert_true(rep.frames_rendered >= 2);
    assert_true(rep.snapshots_replaced > 0);
    assert_int_equal(rep.snapshots_published, 120);
    /* 120 renders would take 2.4 s: had the main loop waited for the
       renderer, every published state would have been rendered. (Its time
       per iteration is printed, not asserted: it depends on the machine.) */
    printf("slow backend: %llu of %llu states rendered, %llu replaced, main loop %.3f ms avg "
           "(p99 %.3f), %.0f ms wall\n",
           (unsigned long long)rep.frames_rendered, (unsigned long long)rep.frames,
           (unsigned long long)rep.snapshots_replaced, rep.avg_frame_ms, rep.p99_frame_ms, wall_ms);
}

static void test_device_lost(void **state)
{
    (void)state;
    game_t g;
    ze_app_desc_t app = game_app(&g);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 0; /* until closed: only the lost device ends it */
    run.max_fps = 200;
    ze__run_ctx_t ctx = {.backend_lose_device_at = 5};
    uint64_t t0 = ze_time_now_ns();
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_ERR_IO);
    double wall_s = (double)(ze_time_now_ns() - t0) / 1e9;
    assert_int_equal(rep.result, ZE_ERR_IO);
    assert_non_null(strstr(rep.error, "device lost"));
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
    assert_true(rep.frames_rendered <= 5);
    assert_true(wall_s < 10.0);
}

/* Registry Loaded -> AssetManager -> on_asset_ready -> backend, with the
 * crate imported by a child `zengine cook` (the default mode). */
static void test_assets_reach_backend_child_import(void **state)
{
    (void)state;
    fx_project_t p;
    assert_true(fx_project_make(&p));
    game_t g;
    ze_app_desc_t app = game_app(&g);
    g.close_on_mesh = true;
    g.mesh = p.mesh;
    g.material = p.material;
    ze_run_desc_t run = fx_run(&p);
    run.import_mode = ZE_IMPORT_CHILD_PROCESS;
    run.cooker = ZE_COOKER_PATH;
    run.max_fps = 100;
    run.frames = 3000; /* 30 s at most */
    ze_run_report_t rep;
    if (access(ZE_COOKER_PATH, X_OK) != 0) {
        fx_project_remove(&p);
        skip(); /* sanitizer builds need the dev tree's zengine */
    }
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_true(g.mesh_generation > 0);
    assert_true(g.material_generation > 0);
    assert_true(rep.frames < 3000);
    printf("child import: mesh and material resident after %llu frames, avg %.4f ms, p99 %.4f "
           "ms, %.2f allocations/frame\n",
           (unsigned long long)g.frames_at_resident, rep.avg_frame_ms, rep.p99_frame_ms,
           rep.allocations_per_frame);
    fx_project_remove(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_runs),
        cmocka_unit_test(test_snapshot_contents),
        cmocka_unit_test(test_slow_backend_drops_states),
        cmocka_unit_test(test_device_lost),
        cmocka_unit_test(test_assets_reach_backend_child_import),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
