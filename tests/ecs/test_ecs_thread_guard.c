/* The render-thread guard: ze_ecs_forbid_thread(true) on a thread makes the
 * ECS entry points assert on it in debug builds (ZE_DEBUG); other threads
 * and a cleared guard are unaffected. Each case runs in a forked child, which
 * makes its own kernel (no threads cross the fork). Release: skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zengine/ecs.h"

#ifdef ZE_DEBUG

typedef struct guard_case_t {
    ze_world_t *w;
    bool forbid_then_clear; /* clear the guard again before the call */
    bool ok;
} guard_case_t;

static void *render_thread(void *p)
{
    guard_case_t *gc = p;
    ze_ecs_forbid_thread(true);
    if (gc->forbid_then_clear)
        ze_ecs_forbid_thread(false);
    gc->ok = !ze_entity_is_null(ze_entity_create(gc->w)); /* aborts while forbidden */
    return NULL;
}

/* In the child: a kernel and world, then one thread sets the guard and
 * creates an entity. Exit 0 when the call returned an entity. */
static void child(bool forbid_then_clear)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *w = k ? ze_world_create(k, &(ze_world_desc_t){.capacity = 4096}) : NULL;
    if (!w)
        _exit(3);
    guard_case_t gc = {.w = w, .forbid_then_clear = forbid_then_clear};
    pthread_t t;
    if (pthread_create(&t, NULL, render_thread, &gc) != 0 || pthread_join(t, NULL) != 0)
        _exit(4);
    /* This thread never set the guard. */
    bool main_ok = !ze_entity_is_null(ze_entity_create(w));
    ze_kernel_destroy(k);
    _exit(gc.ok && main_ok ? 0 : 5);
}

static int run_child(bool forbid_then_clear)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(forbid_then_clear);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void test_forbidden_thread_aborts(void **state)
{
    (void)state;
    int status = run_child(false);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void test_cleared_guard_works(void **state)
{
    (void)state;
    int status = run_child(true);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

#else

static void test_release_no_op(void **state)
{
    (void)state;
    /* A no-op in release builds: the call still works on a marked thread. */
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(k);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = 4096});
    ze_ecs_forbid_thread(true);
    ze_entity_t e = ze_entity_create(w);
    ze_ecs_forbid_thread(false);
    assert_false(ze_entity_is_null(e));
    ze_kernel_destroy(k);
    skip();
}

#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef ZE_DEBUG
        cmocka_unit_test(test_forbidden_thread_aborts),
        cmocka_unit_test(test_cleared_guard_works),
#else
        cmocka_unit_test(test_release_no_op),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
