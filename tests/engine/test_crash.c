/* The crash handler, in forked children: a NULL dereference and abort() end
 * the child by SIGSEGV / SIGABRT (the exit status still names the signal),
 * and leave a crash log naming the signal with a backtrace, also on stderr;
 * a handler installed earlier still runs after the report; after uninstall
 * a crash leaves no log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zengine/engine.h"

#if defined(ZE_SANITIZER_ADDRESS)
/* UBSan would stop the NULL store itself (and exit 1): the fault must be a
   real one. ASan's SEGV handler needs no options here: each child resets
   the signals to their defaults before installing the handler under test. */
#define NO_UBSAN __attribute__((no_sanitize("undefined")))
#else
#define NO_UBSAN
#endif

typedef enum crash_kind { CRASH_NULL, CRASH_ABORT } crash_kind;

enum { CHILD_UNINSTALL = 1, CHILD_CHAIN = 2 };

static int *volatile g_null; /* the compiler cannot prove it NULL */

/* A handler that was there before the crash handler: it must still run. */
static void earlier_handler(int sig, siginfo_t *info, void *uctx)
{
    (void)sig, (void)info, (void)uctx;
    static const char msg[] = "earlier handler ran\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(77);
}

static NO_UBSAN void crash_null(void)
{
    *g_null = 42;
}

/* Returns the child's wait status; the child's stderr goes to `errlog`. */
static int run_child(const char *dir, const char *errlog, crash_kind kind, int flags, pid_t *child)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* cmocka's own handlers must not be what uninstall restores. */
        const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], SIG_DFL);
        struct rlimit nocore = {0, 0};
        setrlimit(RLIMIT_CORE, &nocore);
        int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
            _exit(90);
        if (flags & CHILD_CHAIN) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = earlier_handler;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGSEGV, &sa, NULL);
        }
        if (ze_crash_handler_install(dir) != ZE_OK)
            _exit(91);
        if (flags & CHILD_UNINSTALL)
            ze_crash_handler_uninstall();
        ze_log_configure(&(ze_log_desc_t){.quiet = true});
        ze_log(ZE_LOG_WARN, "game", "the last words before the crash");
        if (kind == CRASH_NULL)
            crash_null();
        else
            abort();
        _exit(92);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    *child = pid;
    return status;
}

static size_t read_text(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}

/* Lines after "backtrace:" up to "last log records". */
static int backtrace_lines(const char *text)
{
    const char *p = strstr(text, "backtrace:\n");
    if (!p)
        return 0;
    p += strlen("backtrace:\n");
    int n = 0;
    while (*p && strncmp(p, "last log records", 16) != 0) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        if (nl > p)
            n++;
        p = nl + 1;
    }
    return n;
}

typedef struct fixture_t {
    char dir[64];
    char errlog[96];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = ze_mem_sys_alloc(sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/zecrash-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->errlog, sizeof f->errlog, "%s/stderr.txt", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    unlink(f->errlog);
    rmdir(f->dir);
    ze_mem_sys_free(f);
    return 0;
}

static void check_crash(fixture_t *f, crash_kind kind, int sig, const char *name)
{
    pid_t pid;
    int status = run_child(f->dir, f->errlog, kind, 0, &pid);
    if (!WIFSIGNALED(status))
        print_error("child status %d (exited %d)\n", status,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);

    char log[128];
    snprintf(log, sizeof log, "%s/crash-%d.log", f->dir, (int)pid);
    static char text[65536];
    assert_true(read_text(log, text, sizeof text) > 0);
    char want[64];
    snprintf(want, sizeof want, "zengine crashed: %s (signal %d)", name, sig);
    if (!strstr(text, want) || backtrace_lines(text) < 3)
        print_error("crash log:\n%s\n", text);
    assert_non_null(strstr(text, want));
    if (sig == SIGSEGV)
        assert_non_null(strstr(text, "at address 0x0000000000000000"));
    assert_true(backtrace_lines(text) >= 3);
    assert_non_null(strstr(text, "last log records"));
    /* the log ring made it into the report */
    assert_non_null(strstr(text, "[warn] game: the last words before the crash"));

    /* The same report on stderr. */
    assert_true(read_text(f->errlog, text, sizeof text) > 0);
    assert_non_null(strstr(text, want));
    assert_true(backtrace_lines(text) >= 3);
    unlink(log);
}

static void test_segv(void **state)
{
    check_crash(*state, CRASH_NULL, SIGSEGV, "SIGSEGV");
}

static void test_abort(void **state)
{
    check_crash(*state, CRASH_ABORT, SIGABRT, "SIGABRT");
}

static void test_uninstalled_leaves_no_log(void **state)
{
    fixture_t *f = *state;
    pid_t pid;
    int status = run_child(f->dir, f->errlog, CRASH_NULL, CHILD_UNINSTALL, &pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    char log[128];
    snprintf(log, sizeof log, "%s/crash-%d.log", f->dir, (int)pid);
    assert_int_equal(access(log, F_OK), -1);
    char text[4096];
    read_text(f->errlog, text, sizeof text);
    assert_null(strstr(text, "zengine crashed"));
}

static void test_chains_to_earlier_handler(void **state)
{
    fixture_t *f = *state;
    pid_t pid;
    int status = run_child(f->dir, f->errlog, CRASH_NULL, CHILD_CHAIN, &pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 77);
    char log[128];
    snprintf(log, sizeof log, "%s/crash-%d.log", f->dir, (int)pid);
    static char text[65536];
    assert_true(read_text(log, text, sizeof text) > 0);
    assert_non_null(strstr(text, "zengine crashed: SIGSEGV"));
    unlink(log);
    assert_true(read_text(f->errlog, text, sizeof text) > 0);
    const char *ours = strstr(text, "zengine crashed: SIGSEGV");
    const char *theirs = strstr(text, "earlier handler ran");
    assert_non_null(ours);
    assert_non_null(theirs);
    assert_true(ours < theirs);
}

static void test_install_uninstall(void **state)
{
    fixture_t *f = *state;
    assert_string_equal(ze_crash_handler_log_path(), "");
    struct sigaction before, during, after;
    sigaction(SIGSEGV, NULL, &before);
    stack_t ss_before, ss_after;
    sigaltstack(NULL, &ss_before);

    assert_int_equal(ze_crash_handler_install(f->dir), ZE_OK);
    char want[128];
    snprintf(want, sizeof want, "%s/crash-%d.log", f->dir, (int)getpid());
    assert_string_equal(ze_crash_handler_log_path(), want);
    sigaction(SIGSEGV, NULL, &during);
    assert_true(during.sa_flags & SA_ONSTACK);
    assert_true(during.sa_flags & SA_SIGINFO);

    /* Re-install moves the log; a trailing slash is not doubled. */
    char slash[80];
    snprintf(slash, sizeof slash, "%s/", f->dir);
    assert_int_equal(ze_crash_handler_install(slash), ZE_OK);
    assert_string_equal(ze_crash_handler_log_path(), want);

    ze_crash_handler_uninstall();
    ze_crash_handler_uninstall(); /* harmless twice */
    assert_string_equal(ze_crash_handler_log_path(), "");
    sigaction(SIGSEGV, NULL, &after);
    assert_true(after.sa_handler == before.sa_handler);
    assert_int_equal(after.sa_flags, before.sa_flags);
    sigaltstack(NULL, &ss_after);
    assert_ptr_equal(ss_after.ss_sp, ss_before.ss_sp);
    assert_int_equal(ss_after.ss_flags, ss_before.ss_flags);

    /* The current directory (made absolute), and bad directories. */
    assert_int_equal(ze_crash_handler_install(NULL), ZE_OK);
    assert_true(ze_crash_handler_log_path()[0] == '/');
    ze_crash_handler_uninstall();
    char missing[96];
    snprintf(missing, sizeof missing, "%s/missing", f->dir);
    assert_int_equal(ze_crash_handler_install(missing), ZE_ERR_NOT_FOUND);
    assert_string_equal(ze_crash_handler_log_path(), "");
    int fd = open(f->errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(fd);
    assert_int_equal(ze_crash_handler_install(f->errlog), ZE_ERR_INVALID_ARG);
    assert_string_equal(ze_crash_handler_log_path(), "");
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_segv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uninstalled_leaves_no_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chains_to_earlier_handler, setup, teardown),
        cmocka_unit_test_setup_teardown(test_install_uninstall, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
