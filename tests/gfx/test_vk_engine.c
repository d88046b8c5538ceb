/* The Vulkan backend inside the engine (lavapipe in CI, validation on):
 * a headless run of the fixture project renders frames and writes a
 * screenshot with zero validation messages; a forced device-selection
 * failure (ZENGINE_VK_FORCE_NO_DEVICE=1) fails the render_device stage and
 * unwinds exactly the completed stages; a simulated device loss mid-run
 * ends the run with an error, never a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"

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
    run.backend_lose_device_at = 3;
    ze_run_report_t rep;
    ze_result r = ze_app_run(NULL, &run, &rep);
    assert_int_not_equal(r, ZE_OK);
    print_message("result %s: %s (frames %llu, rendered %llu)\n", ze_result_str(r), rep.error,
                  (unsigned long long)rep.frames, (unsigned long long)rep.frames_rendered);
    assert_non_null(strstr(rep.error, "device lost"));
    assert_int_equal(rep.frames_rendered, 2);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_and_screenshot),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_device_lost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
