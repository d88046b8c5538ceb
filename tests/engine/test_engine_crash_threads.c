/* The crash handler on the threads the engine starts. A forked child
 * installs the handler (as ze_app_main does), runs the fixture project
 * through ze_app_run, and at frame 3 its on_update submits a job that
 * recurses without end: the stack overflow happens on a job worker (the
 * main thread never waits for the job, so it cannot run it). The child must
 * die by SIGSEGV and leave a crash log and a backtrace that name the
 * overflow, exactly like a fault on the main thread. Without the worker's
 * own alternate stack the handler could not run on the overflowed stack and
 * the child would die unreported. A second child overflows its main thread
 * (the installing thread's stack) for comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "engine/test_engine_fixture.h"

static fx_project_t g_project;

static volatile uint64_t g_sink;

/* Each frame keeps a buffer alive across the call, so the compiler can
   neither turn the recursion into a loop nor drop the frame. */
static __attribute__((noinline)) uint64_t recurse(uint64_t depth)
{
    volatile uint8_t pad[512];
    if (depth == UINT64_MAX) /* never: keeps -Winfinite-recursion quiet */
        return 0;
    pad[depth % sizeof pad] = (uint8_t)depth;
    uint64_t r = recurse(depth + 1) + pad[(depth + 7) % sizeof pad];
    return r;
}

static void overflow_job(void *ctx)
{
    (void)ctx;
    g_sink = recurse(0);
}

typedef struct child_app_t {
    bool submitted;
} child_app_t;

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    child_app_t *c = user;
    if (!c->submitted && ze_engine_frame_index(e) == 3) {
        static ze_wait_group_t wg;
        ze_wait_group_init(&wg);
        ze_job_submit(ze_engine_jobs(e), overflow_job, NULL, &wg); /* never waited */
        c->submitted = true;
    }
}

enum { ON_WORKER, ON_MAIN };

static void child_main(const char *dir, const char *errlog, int where)
{
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore);
    alarm(60); /* a hang deadline: SIGALRM ends a child that never crashes */
    int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
        _exit(90);
    if (ze_crash_handler_install(dir) != ZE_OK)
        _exit(91);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_log(ZE_LOG_WARN, "game", "the last words before the overflow");
    if (where == ON_MAIN) {
        g_sink = recurse(0);
        _exit(92);
    }
    child_app_t c = {0};
    ze_app_desc_t app = {.name = "overflow", .user = &c, .on_update = on_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 0; /* until the crash */
    run.max_fps = 200;
    ze_run_report_t rep;
    ze_app_run(&app, &run, &rep);
    _exit(93);
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

static void check_overflow_reported(int where)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/zecrash-threads-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char errlog[96];
    snprintf(errlog, sizeof errlog, "%s/stderr.txt", dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_main(dir, errlog, where);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);

    static char text[1 << 16];
    read_text(errlog, text, sizeof text);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
        print_error("child status %d (signal %d, exit %d); stderr:\n%s\n", status,
                    WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    assert_non_null(strstr(text, "zengine crashed: SIGSEGV"));
    assert_non_null(strstr(text, "backtrace:"));

    char log[160];
    snprintf(log, sizeof log, "%s/crash-%d.log", dir, (int)pid);
    assert_true(read_text(log, text, sizeof text) > 0);
    print_message("%s overflow: crash log %s, %zu bytes\n", where == ON_WORKER ? "worker" : "main",
                  log, strlen(text));
    assert_non_null(strstr(text, "zengine crashed: SIGSEGV"));
    assert_non_null(strstr(text, "backtrace:"));
    assert_non_null(strstr(text, "[warn] game: the last words before the overflow"));
    unlink(log);
    unlink(errlog);
    rmdir(dir);
}

static void test_worker_stack_overflow_reported(void **state)
{
    (void)state;
    check_overflow_reported(ON_WORKER);
}

static void test_main_stack_overflow_reported(void **state)
{
    (void)state;
    check_overflow_reported(ON_MAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_stack_overflow_reported),
        cmocka_unit_test(test_main_stack_overflow_reported),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
