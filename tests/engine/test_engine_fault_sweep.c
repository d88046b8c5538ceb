/* A fault sweep over every allocation of initialization (the seed's
 * lifecycle tests, "production hardening" item 3). One unarmed run of the
 * fixture project (null backend, headless) counts the memory manager's
 * allocations up to the main loop; then for every N of them the Nth
 * allocation fails (ze__app_run_with's fail_allocation_at). A run either
 * initializes anyway (the allocation was optional: counted, printed) or
 * fails; every failed run must return an error that names
 * where it failed (a stage, or the step before the stages), unwind exactly
 * the stages it completed and report a complete shutdown; LeakSanitizer
 * (asan preset, pass-through allocations) checks that nothing leaked. After
 * the sweep a normal run in the same process succeeds. Prints N and the
 * time. Worker threads allocate too (scans, imports), so the allocation a
 * given N hits may differ between runs; every N is still a valid fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/engine_internal.h"
#include "engine/test_engine_fixture.h"

static fx_project_t g_project;

static ze_run_desc_t sweep_run(void)
{
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 1;
    run.backend = "null";
    return run;
}

static void test_every_init_allocation_fails_cleanly(void **state)
{
    (void)state;
    uint64_t t0 = ze_time_now_ns();
    ze_app_desc_t app = {.name = "fault sweep"};
    ze_run_desc_t run = sweep_run();
    ze_run_report_t rep;

    uint64_t count = 0;
    ze__run_ctx_t counting = {.init_allocations = &count};
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &counting), ZE_OK);
    assert_true(count > 0);
    uint32_t full_stages = rep.stages_completed;
    uint64_t full_instances = rep.instances;

    uint64_t failed = 0, tolerated = 0, before_stages = 0;
    for (uint64_t n = 1; n <= count; n++) {
        ze__run_ctx_t ctx = {.fail_allocation_at = n};
        ze_result r = ze__app_run_with(&app, &run, &rep, &ctx);
        if (r == ZE_OK) {
            /* an allocation the engine retries or can do without (worker
               threads' allocations, the log ring...): the run is whole */
            tolerated++;
            if (rep.stages_completed != full_stages || rep.instances != full_instances)
                print_error("N = %llu: initialized with %u stages, %u instances (normal: %u, "
                            "%llu)\n",
                            (unsigned long long)n, rep.stages_completed, (unsigned)rep.instances,
                            full_stages, (unsigned long long)full_instances);
            assert_int_equal(rep.stages_completed, full_stages);
            assert_int_equal(rep.instances, full_instances);
            continue;
        }
        failed++;
        if (!(rep.error[0] && rep.shutdown_complete && rep.stages_unwound == rep.stages_completed))
            print_error("N = %llu: %s, failed stage '%s', error '%s', %u completed, %u unwound, "
                        "shutdown %s\n",
                        (unsigned long long)n, ze_result_str(r), rep.failed_stage, rep.error,
                        rep.stages_completed, rep.stages_unwound,
                        rep.shutdown_complete ? "complete" : "INCOMPLETE");
        assert_true(rep.error[0] != '\0'); /* says what failed */
        assert_true(rep.shutdown_complete);
        assert_int_equal(rep.stages_unwound, rep.stages_completed);
        before_stages += rep.failed_stage[0] == '\0';
    }
    /* the process is still able to run the engine */
    ze_result again = ze_app_run(&app, &run, &rep);
    if (again != ZE_OK)
        print_error("the run after the sweep: %s: %s\n", ze_result_str(again), rep.error);
    assert_int_equal(again, ZE_OK);
    assert_int_equal(rep.stages_completed, full_stages);
    double s = (double)(ze_time_now_ns() - t0) / 1e9;
    print_message("fault sweep: N = 1..%llu (the allocations of initialization): %llu runs failed "
                  "cleanly (%llu before the stages), %llu initialized without the allocation; "
                  "%.1f s\n",
                  (unsigned long long)count, (unsigned long long)failed,
                  (unsigned long long)before_stages, (unsigned long long)tolerated, s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_init_allocation_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
