/* The Vulkan backend inside the engine (lavapipe in CI, validation on):
 * a headless run of the fixture project renders frames and writes a
 * screenshot with zero validation messages; a forced device-selection
 * failure (ZENGINE_VK_FORCE_NO_DEVICE=1) fails the render_device stage and
 * unwinds exactly the completed stages; a simulated device loss mid-run
 * ends the run with an error, never a hang; the pipeline cache persists
 * under /cache/pso, a corrupted blob is discarded (and rewritten), and a
 * project without a writable cache runs with persistence off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"
#include "engine/engine_internal.h"

static fx_project_t g_project;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
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

static void test_run_and_screenshot(void **state)
{
    (void)state;
    char png[400];
    snprintf(png, sizeof png, "%s/shot.png", g_project.root);
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 8;
    run.fixed_dt = 1.0 / 60.0;
    run.screenshot = png;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(NULL, &run, &rep), ZE_OK);
    assert_string_equal(rep.backend, "vulkan");
    assert_true(rep.frames_rendered > 0);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.meshes_resident >= 1);
    assert_true(rep.shutdown_complete);
    char buf[16];
    assert_true(fx_read(png, buf, sizeof buf) >= 8);
    assert_memory_equal(buf, "\x89PNG\r\n\x1a\n", 8);
}

static void test_no_device(void **state)
{
    (void)state;
    setenv("ZENGINE_VK_FORCE_NO_DEVICE", "1", 1);
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 2;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(NULL, &run, &rep), ZE_ERR_UNSUPPORTED);
    unsetenv("ZENGINE_VK_FORCE_NO_DEVICE");
    assert_string_equal(rep.failed_stage, "render_device");
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
    assert_int_equal(rep.frames, 0);
}

static void test_device_lost(void **state)
{
    (void)state;
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 0; /* until closed: only the loss ends it */
    ze__run_ctx_t ctx = {.backend_lose_device_at = 3};
    ze_run_report_t rep;
    ze_result r = ze__app_run_with(NULL, &run, &rep, &ctx);
    assert_int_not_equal(r, ZE_OK);
    print_message("result %s: %s (frames %llu, rendered %llu)\n", ze_result_str(r), rep.error,
                  (unsigned long long)rep.frames, (unsigned long long)rep.frames_rendered);
    assert_non_null(strstr(rep.error, "device lost"));
    assert_int_equal(rep.frames_rendered, 2);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
}

static void pso_path(char *out, size_t cap)
{
    snprintf(out, cap, "%s/.zengine/pso/pipelines.bin", g_project.root);
}

static ze_run_report_t run_vulkan(bool no_cache)
{
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 3;
    run.fixed_dt = 1.0 / 60.0;
    run.no_cache = no_cache;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(NULL, &run, &rep), ZE_OK);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.shutdown_complete);
    return rep;
}

static void test_pipeline_cache(void **state)
{
    (void)state;
    char path[512];
    pso_path(path, sizeof path);
    unlink(path);
    (void)run_vulkan(false);
    char buf[4096];
    size_t n = fx_read(path, buf, sizeof buf);
    assert_true(n > 64);
    assert_memory_equal(buf, "ZEPSO", 5);
    /* corrupt the data part: the next run discards it with a warning, runs,
       and saves a good blob again */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 70, SEEK_SET);
    fputc(buf[70] ^ 0x5a, f);
    fclose(f);
    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    (void)run_vulkan(false);
    assert_true(ze_log_count(ZE_LOG_WARN) > warns);
    char again[4096];
    size_t m = fx_read(path, again, sizeof again);
    assert_true(m > 64);
    assert_memory_equal(again, "ZEPSO", 5);
    assert_int_equal(again[70], buf[70]); /* a valid blob again, not the flipped one */
    /* without a writable /cache: persistence off, the run still works */
    unlink(path);
    (void)run_vulkan(true);
    assert_int_equal(fx_read(path, buf, sizeof buf), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_and_screenshot),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_device_lost),
        cmocka_unit_test(test_pipeline_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
