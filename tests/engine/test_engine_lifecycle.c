/* Engine lifecycle: a normal run calls the hooks in the seed's order and
 * unwinds every stage; a failure injected at each stage unwinds exactly the
 * stages that completed, names the stage, still calls on_closed, and a
 * later run in the same process succeeds; a failing on_initialized, a
 * missing project, a project without /cache, scripted input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_engine_fixture.h"
#include "engine/engine_internal.h"

enum { H_INITIALIZING, H_WINDOW, H_INITIALIZED, H_UPDATE, H_UI, H_CLOSING, H_CLOSED, H_COUNT };

typedef struct recorder_t {
    char trail[512]; /* one letter per hook call */
    uint32_t calls[H_COUNT];
    ze_result initialized_result;
    bool window_headless;
    uint32_t window_width;
    bool had_assets, had_imports;
    /* input test */
    uint64_t w_down_first;
    bool saw_w;
} recorder_t;

static void mark(recorder_t *r, int hook)
{
    static const char letters[H_COUNT] = {'i', 'w', 'I', 'u', 'r', 'c', 'C'};
    size_t n = strlen(r->trail);
    if (n + 1 < sizeof r->trail && hook != H_UI)
        r->trail[n] = letters[hook];
    r->calls[hook]++;
}

static void on_initializing(void *user)
{
    mark(user, H_INITIALIZING);
}

static void override_window(void *user, ze_window_config_t *cfg)
{
    recorder_t *r = user;
    mark(r, H_WINDOW);
    r->window_headless = cfg->headless;
    r->window_width = cfg->width;
    cfg->height = 300; /* the engine takes what the hook says */
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    recorder_t *r = user;
    mark(r, H_INITIALIZED);
    r->had_assets = ze_engine_assets(e) != NULL;
    r->had_imports = ze_engine_imports(e) != NULL;
    /* the engine is up: every accessor answers */
    if (!ze_engine_world(e) || !ze_engine_kernel(e) || !ze_engine_vfs(e) || !ze_engine_backend(e) ||
        !ze_engine_scheduler(e) || !ze_engine_registry(e) || !ze_engine_mem(e) ||
        !ze_engine_jobs(e))
        return ZE_ERR_INTERNAL;
    return r->initialized_result;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    recorder_t *r = user;
    (void)dt;
    mark(r, H_UPDATE);
    const ze_input_state_t *in = ze_engine_input(e);
    if (ze_input_key_down(in, ZE_KEY_A + ('W' - 'A')) && !r->saw_w) {
        r->saw_w = true;
        r->w_down_first = ze_engine_frame_index(e);
    }
}

static void on_render_ui(ze_engine_t *e, ze_ui_t *ui, void *user)
{
    /* the engine's context, its frame open */
    if (ui && ui == ze_engine_ui(e))
        mark(user, H_UI);
}

static void on_closing(ze_engine_t *e, void *user)
{
    recorder_t *r = user;
    mark(r, H_CLOSING);
    /* the last hook with live engine state */
    assert_non_null(ze_engine_world(e));
}

static void on_closed(void *user)
{
    mark(user, H_CLOSED);
}

static ze_app_desc_t app_of(recorder_t *r)
{
    memset(r, 0, sizeof *r);
    return (ze_app_desc_t){
        .name = "lifecycle",
        .user = r,
        .on_initializing = on_initializing,
        .override_window_config = override_window,
        .on_initialized = on_initialized,
        .on_update = on_update,
        .on_render_ui = on_render_ui,
        .on_closing = on_closing,
        .on_closed = on_closed,
    };
}

static void normal_run(ze_run_report_t *rep, recorder_t *r, uint64_t frames)
{
    ze_app_desc_t app = app_of(r);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = frames;
    run.fixed_dt = 1.0 / 60.0;
    assert_int_equal(ze_app_run(&app, &run, rep), ZE_OK);
    assert_int_equal(rep->result, ZE_OK);
    assert_string_equal(rep->error, "");
    assert_string_equal(rep->failed_stage, "");
    assert_true(rep->stages_completed >= 10);
    assert_int_equal(rep->stages_unwound, rep->stages_completed);
    assert_true(rep->shutdown_complete);
    assert_int_equal(rep->frames, frames);
}

static void test_normal_exit(void **state)
{
    (void)state;
    recorder_t r;
    ze_run_report_t rep;
    normal_run(&rep, &r, 5);
    /* on_initializing, override_window_config, on_initialized, on_update x5,
       on_closing, on_closed */
    assert_string_equal(r.trail, "iwIuuuuucC");
    assert_true(r.had_assets && r.had_imports);
    assert_int_equal(r.calls[H_UI], 5);
    assert_true(r.window_headless);
    assert_int_equal(r.window_width, 640); /* the project's window */
    assert_int_equal(rep.instances, FX_CRATES);
    assert_int_equal(rep.lights, FX_LIGHTS);
    assert_string_equal(rep.backend, "null");
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.snapshots_published == 5);
    /* the stages in the seed's order (docs/engine.md) */
    static const char *const expected[] = {
        "window",    "render_device",  "scheduler",     "vfs",
        "pso_cache", "asset_registry", "input",         "ui",
        "ecs",       "import",         "asset_manager", "render_resources",
        "watcher",
    };
    assert_int_equal(rep.stages_completed, ZE_COUNTOF(expected));
    for (uint32_t i = 0; i < ZE_COUNTOF(expected); i++)
        assert_string_equal(rep.stages[i], expected[i]);
}

static void test_fault_at_each_stage(void **state)
{
    (void)state;
    recorder_t r;
    ze_run_report_t all;
    normal_run(&all, &r, 1);
    for (uint32_t i = 0; i < all.stages_completed; i++) {
        const char *stage = all.stages[i];
        ze_app_desc_t app = app_of(&r);
        ze_run_desc_t run = fx_run(&g_project);
        run.frames = 3;
        run.fixed_dt = 1.0 / 60.0;
        ze__run_ctx_t ctx = {.fail_stage = stage};
        ze_run_report_t rep;
        ze_result res = ze__app_run_with(&app, &run, &rep, &ctx);
        assert_int_equal(res, ZE_ERR_FAULT_INJECTED);
        assert_int_equal(rep.result, ZE_ERR_FAULT_INJECTED);
        assert_string_equal(rep.failed_stage, stage);
        assert_int_equal(rep.stages_completed, i);
        assert_int_equal(rep.stages_unwound, i);
        assert_non_null(strstr(rep.error, stage));
        assert_true(rep.shutdown_complete);
        assert_int_equal(rep.frames, 0);
        /* the engine never came up: no on_initialized, on_update, on_closing */
        assert_string_equal(r.trail, "iwC");
    }
    /* a second initialization in the same process */
    ze_run_report_t again;
    normal_run(&again, &r, 2);
    assert_string_equal(r.trail, "iwIuucC");
}

static void test_on_initialized_failure(void **state)
{
    (void)state;
    recorder_t r;
    ze_app_desc_t app = app_of(&r);
    r.initialized_result = ZE_ERR_DENIED;
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 3;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_DENIED);
    assert_non_null(strstr(rep.error, "on_initialized"));
    assert_string_equal(rep.failed_stage, "");
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
    assert_true(rep.shutdown_complete);
    assert_string_equal(r.trail, "iwIC");
}

static void test_bad_requests(void **state)
{
    (void)state;
    recorder_t r;
    ze_app_desc_t app = app_of(&r);
    ze_run_report_t rep;
    ze_run_desc_t run = fx_run(&g_project);
    run.project = "/nonexistent/zengine/project.json";
    assert_int_not_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_non_null(strstr(rep.error, "/nonexistent/zengine/project.json"));
    assert_int_equal(rep.stages_completed, 0);
    assert_int_equal(r.calls[H_INITIALIZING], 0);
    assert_int_equal(r.calls[H_CLOSED], 1);

    run = fx_run(&g_project);
    ze__run_ctx_t bad_stage = {.fail_stage = "no_such_stage"};
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &bad_stage), ZE_ERR_INVALID_ARG);
    assert_non_null(strstr(rep.error, "no_such_stage"));

    run = fx_run(&g_project);
    run.memory_profile = "huge";
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_INVALID_ARG);

    run = fx_run(&g_project);
    run.backend = "nonexistent";
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_NOT_FOUND);
    assert_string_equal(rep.failed_stage, "render_device");
    assert_int_equal(rep.stages_unwound, rep.stages_completed);

    /* a start scene that is not there: the run fails after initialization,
       everything unwound */
    char bad_project[400];
    snprintf(bad_project, sizeof bad_project, "%s/missing_scene.json", g_project.root);
    const char *pj = "{\"name\": \"x\", \"start_scene\": \"scenes/none.scene.json\"}";
    assert_true(fx_write(bad_project, pj, strlen(pj)));
    run = fx_run(&g_project);
    run.project = bad_project;
    run.frames = 2;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_NOT_FOUND);
    assert_non_null(strstr(rep.error, "none.scene.json"));
    assert_string_equal(rep.failed_stage, "");
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.frames, 0);

    /* a NULL application is an application without hooks */
    run = fx_run(&g_project);
    run.frames = 2;
    assert_int_equal(ze_app_run(NULL, &run, &rep), ZE_OK);
    assert_int_equal(rep.frames, 2);
}

/* The seed's "disabled disk-cache persistence": the run goes on without
 * /cache (no imports, no loads), it is not an error. */
static void test_without_cache(void **state)
{
    (void)state;
    recorder_t r;
    ze_app_desc_t app = app_of(&r);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 3;
    run.no_cache = true;
    run.memory_profile = "server"; /* no Input budget: the engine copes */
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_false(r.had_assets);
    assert_false(r.had_imports);
    assert_int_equal(rep.instances, FX_CRATES);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
}

static void test_scripted_input(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/input.txt", g_project.root);
    const char *script = "# press W at iteration 2, quit at 5\n2 key W down\n5 quit\n";
    assert_true(fx_write(path, script, strlen(script)));
    recorder_t r;
    ze_app_desc_t app = app_of(&r);
    ze_run_desc_t run = fx_run(&g_project);
    run.input_script = path;
    run.fixed_dt = 1.0 / 60.0; /* until closed: the script's quit ends it */
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_true(r.saw_w);
    assert_int_equal(r.w_down_first, 2);
    assert_int_equal(rep.frames, 6); /* iterations 0..5 */

    const char *bad = "1 key NOSUCHKEY down\n";
    assert_true(fx_write(path, bad, strlen(bad)));
    assert_int_not_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_string_equal(rep.failed_stage, "input");
    assert_non_null(strstr(rep.error, "input.txt"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_exit),
        cmocka_unit_test(test_fault_at_each_stage),
        cmocka_unit_test(test_on_initialized_failure),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_without_cache),
        cmocka_unit_test(test_scripted_input),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
