/* Child cooker processes (src/asset/child.h): each way a cooker can end
 * (success, crash, hang, endless output, an error on stderr, a missing
 * program) becomes the right outcome with a one-line reason, and polling
 * never blocks. fake_cooker plays the misbehaving cooker; the real
 * `zengine cook` is run on a corpus model and on a FIFO it hangs on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asset/child.h"
#include "asset_test_util.h"
#include "zengine/base.h"
#include "cook/cook_internal.h"

#define FAKE ZE_FAKE_COOKER_PATH

static void test_ok_captures_stdout(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "ok", NULL}, 0, 0, 20000, &r);
    static const char want[] = "{\"importer\": \"fake\", \"artifacts\": [\"mesh_0.zemesh\"]}\n";
    assert_int_equal(r.outcome, ZE__CHILD_EXITED);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, sizeof want - 1);
    assert_memory_equal(r.out, want, sizeof want);
    assert_string_equal(r.err_tail, "");
    assert_true(r.elapsed_ns > 0);
    assert_int_equal(ze__child_pidfd(c), -1);
    ze__child_destroy(c);
}

static void test_crash_is_signaled(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "crash", NULL}, 0, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_SIGNALED);
    assert_int_equal(r.signal, SIGSEGV);
    assert_string_equal(r.reason, "killed by SIGSEGV (crash)");
    ze__child_destroy(c);
}

static void test_hang_times_out(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "hang", NULL}, 0, 0, 1000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_TIMED_OUT);
    assert_int_equal(r.signal, SIGKILL);
    assert_string_equal(r.reason, "timed out after 1000 ms");
    assert_true(r.elapsed_ns >= 1000ull * 1000 * 1000);
    /* The final outcome sticks. */
    assert_int_equal(ze__child_poll(c, ze_time_now_ns()), ZE__CHILD_TIMED_OUT);
    ze__child_destroy(c);
}

static void test_spam_overflows(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "spam", NULL}, 0, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_OUTPUT_OVERFLOW);
    assert_int_equal(r.signal, SIGKILL);
    assert_true(r.out_len <= ZE__CHILD_STDOUT_MAX);
    assert_int_equal(r.out[r.out_len], 0);
    char want[64];
    snprintf(want, sizeof want, "output over %d bytes", ZE__CHILD_STDOUT_MAX);
    assert_string_equal(r.reason, want);
    ze__child_destroy(c);
}

/* Endless stderr is read a bounded amount per poll: the polls stay short
 * and the deadline still ends the child. */
static void test_stderr_spam_times_out(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "errspam", NULL}, 0, 0, 1000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_TIMED_OUT);
    assert_int_equal(strlen(r.err_tail), ZE__CHILD_STDERR_KEEP);
    assert_string_equal(r.reason, "timed out after 1000 ms");
    ze__child_destroy(c);
}

static void test_stderr_last_line(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "stderr", NULL}, 0, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_EXITED);
    assert_int_equal(r.exit_code, 3);
    /* the last non-empty line, its tab replaced */
    assert_string_equal(r.reason, "exit status 3: error: bad?accessor 7");
    assert_non_null(strstr(r.err_tail, "warning: something odd\n"));
    assert_int_equal(r.out_len, 0);
    ze__child_destroy(c);
}

static void test_stderr_tail_is_bounded(void **state)
{
    (void)state;
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){FAKE, "noisy", NULL}, 0, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_EXITED);
    assert_int_equal(r.exit_code, 1);
    assert_int_equal(strlen(r.err_tail), ZE__CHILD_STDERR_KEEP);
    const char *end = r.err_tail + ZE__CHILD_STDERR_KEEP - strlen("the very last line\n");
    assert_string_equal(end, "the very last line\n");
    assert_non_null(strstr(r.err_tail, "noise line 1999\n"));
    assert_string_equal(r.reason, "exit status 1: the very last line");
    ze__child_destroy(c);
}

static void test_missing_program_exits_127(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/no-such-cooker", g_tmp);
    ze__child_result_t r;
    ze__child_t *c = atu_run_child((const char *const[]){path, "cook", NULL}, 0, 0, 20000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_EXITED);
    assert_int_equal(r.exit_code, 127);
    char want[256];
    snprintf(want, sizeof want, "exit status 127: zengine child: cannot execute '%s': no such file",
             path);
    assert_string_equal(r.reason, want);
    ze__child_destroy(c);
}

static void test_spawn_rejects_bad_args(void **state)
{
    (void)state;
    const char *argv[ZE__CHILD_MAX_ARGS + 2];
    for (int i = 0; i < ZE__CHILD_MAX_ARGS + 1; i++)
        argv[i] = FAKE;
    argv[ZE__CHILD_MAX_ARGS + 1] = NULL;
    ze__child_desc_t d = {.argv = argv};
    ze__child_t *c = (ze__child_t *)&d;
    ze__asset_error_t err = {{0}};
    assert_int_equal(ze__child_spawn(&d, &c, &err), ZE_ERR_INVALID_ARG);
    assert_null(c);
    assert_non_null(strstr(err.message, "arguments"));
    ze__child_destroy(NULL);
}

/* The pidfd turns readable when the child ends: a caller can sleep in
 * poll(2) instead of spinning. */
static void test_pidfd_wakes_poll(void **state)
{
    (void)state;
    ze__child_desc_t d = {.argv = (const char *const[]){FAKE, "ok", NULL}, .timeout_ms = 20000};
    ze__child_t *c = NULL;
    ze__asset_error_t err = {{0}};
    assert_int_equal(ze__child_spawn(&d, &c, &err), ZE_OK);
    int fd = ze__child_pidfd(c);
    if (fd < 0) { /* a kernel without pidfd_open */
        ze__child_destroy(c);
        skip();
        return;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 20000), 1);
    assert_true(p.revents & POLLIN);
    /* Ended, so the next poll reaps it (the pipes are drained on the way). */
    assert_int_equal(ze__child_poll(c, ze_time_now_ns()), ZE__CHILD_EXITED);
    ze__child_result_t r;
    ze__child_result(c, &r);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.out_len > 0);
    assert_int_equal(ze__child_pidfd(c), -1);
    ze__child_destroy(c);
}

static void test_destroy_kills_and_reaps(void **state)
{
    (void)state;
    ze__child_desc_t d = {.argv = (const char *const[]){FAKE, "hang", NULL}};
    ze__child_t *c = NULL;
    ze__asset_error_t err = {{0}};
    assert_int_equal(ze__child_spawn(&d, &c, &err), ZE_OK);
    assert_int_equal(ze__child_poll(c, ze_time_now_ns()), ZE__CHILD_RUNNING);
    atu_sleep_ms(20);
    assert_int_equal(ze__child_poll(c, ze_time_now_ns()), ZE__CHILD_RUNNING);
    uint64_t t0 = ze_time_now_ns();
    ze__child_destroy(c);
    assert_true(ze_time_now_ns() - t0 < 5ull * 1000 * 1000 * 1000);
    /* No child left, not even a zombie. */
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* ------------------------------------------------------- the real cooker */

static void test_real_cook_json(void **state)
{
    (void)state;
    const char *src = ATU_ASSETS "/gltf/Box/glTF-Embedded/Box.gltf";
    if (access(src, R_OK) != 0) {
        print_message("[  SKIPPED ] %s not found: the shared test corpus is absent\n", src);
        skip();
        return;
    }
    if (!atu_cooker_present())
        return;
    char out[128];
    snprintf(out, sizeof out, "%s/box", g_tmp);
    ze__child_result_t r;
    ze__child_t *c = atu_run_child(
        (const char *const[]){ZE_COOKER_PATH, "cook", src, "--out", out, "--json", NULL}, 0, 0,
        20000, &r);
    if (r.outcome != ZE__CHILD_EXITED || r.exit_code != 0)
        fail_msg("zengine cook: %s", r.reason);
    json_error_t jerr;
    json_t *o = json_loadb(r.out, r.out_len, 0, &jerr);
    if (!o)
        fail_msg("stdout is not JSON (%s): %s", jerr.text, r.out);
    json_t *arts = json_object_get(o, "artifacts");
    assert_true(json_is_array(arts));
    assert_true(json_array_size(arts) > 0);
    json_decref(o);
    ze__child_destroy(c);
}

/* open(2) of a FIFO nobody writes blocks forever: a real hang inside the
 * cooker, ended by the deadline. */
static void test_real_cook_fifo_times_out(void **state)
{
    (void)state;
    if (!atu_cooker_present())
        return;
    char fifo[128], out[128];
    snprintf(fifo, sizeof fifo, "%s/x.gltf", g_tmp);
    snprintf(out, sizeof out, "%s/fifo_out", g_tmp);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    ze__child_result_t r;
    ze__child_t *c = atu_run_child(
        (const char *const[]){ZE_COOKER_PATH, "cook", fifo, "--out", out, "--json", NULL}, 0, 0,
        1000, &r);
    assert_int_equal(r.outcome, ZE__CHILD_TIMED_OUT);
    assert_string_equal(r.reason, "timed out after 1000 ms");
    ze__child_destroy(c);
    unlink(fifo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok_captures_stdout),
        cmocka_unit_test(test_crash_is_signaled),
        cmocka_unit_test(test_hang_times_out),
        cmocka_unit_test(test_spam_overflows),
        cmocka_unit_test(test_stderr_spam_times_out),
        cmocka_unit_test(test_stderr_last_line),
        cmocka_unit_test(test_stderr_tail_is_bounded),
        cmocka_unit_test(test_missing_program_exits_127),
        cmocka_unit_test(test_spawn_rejects_bad_args),
        cmocka_unit_test(test_pidfd_wakes_poll),
        cmocka_unit_test(test_destroy_kills_and_reaps),
        cmocka_unit_test(test_real_cook_json),
        cmocka_unit_test(test_real_cook_fifo_times_out),
    };
    return cmocka_run_group_tests(tests, atu_tmp_setup, atu_tmp_teardown);
}
