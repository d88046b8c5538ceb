/* The fault sweep over the Vulkan stages (issue "A CI that never flakes",
 * item 7): test_engine_fault_sweep fails every allocation of a null-backend
 * initialization; here the stages that differ with the Vulkan backend
 * (render_device: instance, device, memory sub-allocator, frame resources,
 * pipelines; pso_cache: the persisted pipeline cache) are swept over our
 * own allocations. The driver's host allocations (the Vulkan owner, made
 * through our VkAllocationCallbacks) are neither counted nor failed: a
 * driver's recovery from a refused allocation is the driver's, not ours.
 * For every N the Nth of the stage's allocations fails; the run either
 * initializes anyway (the allocation was optional) or fails with an error
 * naming the stage (or, where the stage goes on without what it lost, the
 * run ends failed naming the report), unwinds exactly the completed stages, reports a
 * complete shutdown, and leaks nothing (LeakSanitizer under the asan
 * preset). A normal run in the same process succeeds afterwards, with zero
 * validation messages. Prints N and the time per stage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine_internal.h"
#include "engine/test_engine_fixture.h"

static fx_project_t g_project;

static int setup(void **state)
{
    (void)state;
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
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

static ze_run_desc_t sweep_run(void)
{
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 1;
    run.backend = "vulkan";
    return run;
}

static void sweep_stage(const char *stage)
{
    uint64_t t0 = ze_time_now_ns();
    ze_app_desc_t app = {.name = "vulkan fault sweep"};
    ze_run_desc_t run = sweep_run();
    ze_run_report_t rep;

    uint64_t count = 0;
    ze__run_ctx_t counting = {.init_allocations = &count, .fault_stage = stage};
    ze_result r0 = ze__app_run_with(&app, &run, &rep, &counting);
    if (r0 != ZE_OK)
        print_error("the counting run: %s: %s\n", ze_result_str(r0), rep.error);
    assert_int_equal(r0, ZE_OK);
    assert_string_equal(rep.backend, "vulkan");
    assert_int_equal(rep.validation_messages, 0);
    assert_true(count > 0); /* the stage allocates: the sweep sweeps something */
    uint32_t full_stages = rep.stages_completed;

    uint64_t failed = 0, tolerated = 0;
    for (uint64_t n = 1; n <= count; n++) {
        ze__run_ctx_t ctx = {.fail_allocation_at = n, .fault_stage = stage};
        ze_result r = ze__app_run_with(&app, &run, &rep, &ctx);
        if (r == ZE_OK) {
            tolerated++;
            if (rep.stages_completed != full_stages || rep.validation_messages)
                print_error("N = %llu: initialized with %u stages (normal %u), %llu validation "
                            "messages\n",
                            (unsigned long long)n, rep.stages_completed, full_stages,
                            (unsigned long long)rep.validation_messages);
            assert_int_equal(rep.stages_completed, full_stages);
            assert_int_equal(rep.validation_messages, 0);
            continue;
        }
        failed++;
        /* The stage fails and says so; or, when the stage could go on
           without what it lost (the pipeline cache unread), the failure
           was reported and the whole run ends failed naming it. */
        bool named = strcmp(rep.failed_stage, stage) == 0 ||
                     (rep.failed_stage[0] == '\0' && rep.stages_completed == full_stages);
        if (!(named && rep.error[0] && rep.shutdown_complete &&
              rep.stages_unwound == rep.stages_completed))
            print_error("N = %llu: %s, failed stage '%s' (swept '%s'), error '%s', %u completed, "
                        "%u unwound, shutdown %s\n",
                        (unsigned long long)n, ze_result_str(r), rep.failed_stage, stage, rep.error,
                        rep.stages_completed, rep.stages_unwound,
                        rep.shutdown_complete ? "complete" : "INCOMPLETE");
        assert_true(named); /* the failure is the swept stage's, and says so */
        assert_true(rep.error[0] != '\0');
        assert_true(rep.shutdown_complete);
        assert_int_equal(rep.stages_unwound, rep.stages_completed);
    }
    ze_result again = ze_app_run(&app, &run, &rep);
    if (again != ZE_OK)
        print_error("the run after the sweep: %s: %s\n", ze_result_str(again), rep.error);
    assert_int_equal(again, ZE_OK);
    assert_int_equal(rep.stages_completed, full_stages);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.frames_rendered > 0);
    print_message("vulkan fault sweep, stage '%s': N = 1..%llu (our allocations): %llu runs failed "
                  "cleanly, %llu initialized without the allocation; %.1f s\n",
                  stage, (unsigned long long)count, (unsigned long long)failed,
                  (unsigned long long)tolerated, (double)(ze_time_now_ns() - t0) / 1e9);
}

static void test_render_device_allocations_fail_cleanly(void **state)
{
    (void)state;
    sweep_stage("render_device");
}

static void test_pso_cache_allocations_fail_cleanly(void **state)
{
    (void)state;
    sweep_stage("pso_cache");
}

static void test_unknown_sweep_stage_is_refused(void **state)
{
    (void)state;
    ze_run_desc_t run = sweep_run();
    ze_run_report_t rep;
    ze__run_ctx_t ctx = {.fail_allocation_at = 1, .fault_stage = "render_devcie"};
    assert_int_equal(ze__app_run_with(NULL, &run, &rep, &ctx), ZE_ERR_INVALID_ARG);
    assert_non_null(strstr(rep.error, "render_devcie"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_device_allocations_fail_cleanly),
        cmocka_unit_test(test_pso_cache_allocations_fail_cleanly),
        cmocka_unit_test(test_unknown_sweep_stage_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
