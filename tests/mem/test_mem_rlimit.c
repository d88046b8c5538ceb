/* Under an RLIMIT_AS below the configured capacity (8 GiB), the Default
 * profile still initialises and every owner can allocate, because owners
 * reserve their own budgets, not the capacity. A configuration whose owners
 * do not fit fails with a clear error instead of crashing. Each case runs in
 * a forked child so the limit does not leak into the test runner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zengine/mem.h"

static const rlim_t LIMIT = (rlim_t)4 << 30; /* half the capacity */

static int child_default_profile(void)
{
    ze_mem_t *mm;
    if (ze_mem_create(&(ze_mem_desc_t){.profile = ZE_MEM_PROFILE_DEFAULT}, &mm) != ZE_OK)
        return 10;
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    for (int o = 0; o < ZE_MEM_OWNER_COUNT; o++) {
        if (!cfg.budget[o])
            continue;
        ze_arena_t a;
        if (ze_arena_init(&a, mm, (ze_mem_owner)o, ZE_MIB(4)) != ZE_OK)
            return 20 + o;
        void *p = ze_arena_push(&a, ZE_MIB(1), 16);
        if (!p)
            return 40 + o;
        memset(p, 0x5a, ZE_MIB(1));
        ze_arena_release(&a);
    }
    ze_mem_destroy(mm);
    return 0;
}

static int child_too_big(void)
{
    ze_mem_budget_config_t cfg = {.capacity = ZE_GIB(16)};
    cfg.budget[ZE_MEM_OWNER_ECS] = ZE_GIB(3);
    cfg.budget[ZE_MEM_OWNER_ASSET] = ZE_GIB(3);
    ze_mem_t *mm = NULL;
    ze_result r = ze_mem_create(&(ze_mem_desc_t){.config = &cfg}, &mm);
    return r == ZE_ERR_OUT_OF_MEMORY && mm == NULL ? 0 : 1;
}

static int run_limited(int (*fn)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {LIMIT, LIMIT};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(99);
        ze_log_configure(&(ze_log_desc_t){.quiet = true});
        _exit(fn());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_default_profile_under_rlimit(void **state)
{
    (void)state;
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    assert_true(cfg.capacity > LIMIT); /* the point of the test */
    assert_int_equal(run_limited(child_default_profile), 0);
}

static void test_owners_that_do_not_fit_fail_cleanly(void **state)
{
    (void)state;
    assert_int_equal(run_limited(child_too_big), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_profile_under_rlimit),
        cmocka_unit_test(test_owners_that_do_not_fit_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
