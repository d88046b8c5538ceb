/* `zengine run` as a user runs it: the real program as a child process.
 * A deterministic headless run writes every --stats key; --launchEditor is
 * refused with status 2; a missing project fails with one clear line;
 * SIGINT mid-run ends it cleanly (status 0, shutdown complete);
 * --projectConfigFile is the seed's spelling of --project. */
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "test_engine_fixture.h"

typedef struct child_t {
    pid_t pid;
    char err_path[400];
} child_t;

/* Start `zengine` with args (NULL-terminated); stderr into a file. */
static child_t spawn(const char *const *args)
{
    child_t c = {0};
    snprintf(c.err_path, sizeof c.err_path, "%s/stderr.txt", g_project.root);
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)ZE_CLI_PATH;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0) {
        int fd = open(c.err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int out = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        if (out >= 0)
            dup2(out, 1);
        /* the cooker child: the dev tree's zengine in sanitizer builds */
        setenv("ZENGINE_COOKER", ZE_COOKER_PATH, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    return c;
}

/* The exit status, or -1 after timeout_s (the child is killed). */
static int wait_child(child_t *c, double timeout_s)
{
    uint64_t deadline = ze_time_now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        int st = 0;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (ze_time_now_ns() > deadline) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &st, 0);
            return -1;
        }
        ze_time_sleep_ns(10000000);
    }
}

/* Wait (up to timeout_s, a hang deadline) for `needle` in the child's
 * stderr; false when the child exited first or the deadline passed. */
static bool wait_stderr_line(const child_t *c, const char *needle, double timeout_s)
{
    uint64_t deadline = ze_time_now_ns() + (uint64_t)(timeout_s * 1e9);
    static char text[1 << 16];
    while (ze_time_now_ns() < deadline) {
        FILE *f = fopen(c->err_path, "rb");
        if (f) {
            size_t n = fread(text, 1, sizeof text - 1, f);
            fclose(f);
            text[n] = '\0';
            if (strstr(text, needle))
                return true;
        }
        if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
            return false;
        ze_time_sleep_ns(10000000);
    }
    return false;
}

static int run_cli(const char *const *args, double timeout_s)
{
    child_t c = spawn(args);
    return wait_child(&c, timeout_s);
}

static json_t *load_stats(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        fprintf(stderr, "stats %s: %s\n", path, je.text);
    return j;
}

static void test_headless_run_with_stats(void **state)
{
    (void)state;
    char stats[400];
    snprintf(stats, sizeof stats, "%s/stats.json", g_project.root);
    const char *args[] = {"run",      "--project", g_project.project, "--headless",
                          "--frames", "30",        "--fixed-dt",      "0.016666",
                          "--stats",  stats,       "--log-level",     "warn",
                          NULL};
    assert_int_equal(run_cli(args, 60), 0);
    json_t *j = load_stats(stats);
    assert_non_null(j);
    static const char *const keys[] = {"frames",
                                       "sim_steps",
                                       "avg_frame_ms",
                                       "p99_frame_ms",
                                       "instances",
                                       "lights",
                                       "allocations_per_frame",
                                       "validation_messages",
                                       "backend",
                                       "device",
                                       "world_hash",
                                       "frames_rendered",
                                       "snapshots_published",
                                       "snapshots_replaced",
                                       "shutdown_complete",
                                       "failed_stage",
                                       "error",
                                       "stages_completed",
                                       "stages_unwound"};
    for (size_t i = 0; i < ZE_COUNTOF(keys); i++) {
        if (!json_object_get(j, keys[i]))
            fail_msg("stats lack '%s'", keys[i]);
    }
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 30);
    assert_int_equal(json_integer_value(json_object_get(j, "instances")), FX_CRATES);
    assert_int_equal(json_integer_value(json_object_get(j, "lights")), FX_LIGHTS);
    assert_int_equal(json_integer_value(json_object_get(j, "validation_messages")), 0);
    assert_string_equal(json_string_value(json_object_get(j, "backend")), "null");
    assert_true(json_is_true(json_object_get(j, "shutdown_complete")));
    assert_true(json_number_value(json_object_get(j, "avg_frame_ms")) >= 0.0);
    /* ze_app_main routes jansson into the ThirdParty owner: the scene and
       .meta files it parsed counted there; the C library heap (GLFW, the
       driver, libraries without hooks) is reported beside it */
    assert_true(json_integer_value(json_object_get(j, "third_party_bytes_peak")) > 0);
    assert_true(json_integer_value(json_object_get(j, "unrouted_heap_bytes")) > 0);
    /* the same run again: the same world */
    const char *hash = json_string_value(json_object_get(j, "world_hash"));
    char first[32];
    snprintf(first, sizeof first, "%s", hash ? hash : "");
    json_decref(j);
    assert_int_equal(run_cli(args, 60), 0);
    j = load_stats(stats);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "world_hash")), first);
    json_decref(j);
}

static void test_project_config_file_spelling(void **state)
{
    (void)state;
    const char *args[] = {"run", "--projectConfigFile", g_project.project, "--headless", "--frames",
                          "3",   "--log-level",         "error",           NULL};
    assert_int_equal(run_cli(args, 60), 0);
}

static void test_launch_editor_refused(void **state)
{
    (void)state;
    const char *args[] = {"run", "--project", g_project.project, "--launchEditor", NULL};
    assert_int_equal(run_cli(args, 30), 2);
    static char err[4096];
    char path[400];
    snprintf(path, sizeof path, "%s/stderr.txt", g_project.root);
    fx_read(path, err, sizeof err);
    assert_non_null(strstr(err, "--launchEditor"));
    assert_non_null(strstr(err, "editor"));
}

static void test_missing_project(void **state)
{
    (void)state;
    const char *args[] = {"run", "--project", "/nonexistent/zengine/project.json", "--headless",
                          NULL};
    int st = run_cli(args, 30);
    assert_true(st != 0 && st != -1 && st < 128);
    static char err[4096];
    char path[400];
    snprintf(path, sizeof path, "%s/stderr.txt", g_project.root);
    size_t n = fx_read(path, err, sizeof err);
    assert_true(n > 0);
    assert_non_null(strstr(err, "/nonexistent/zengine/project.json"));
    uint32_t lines = 0; /* one line */
    for (size_t i = 0; i < n; i++)
        lines += err[i] == '\n';
    assert_int_equal(lines, 1);

    const char *none[] = {"run", "--headless", NULL};
    assert_int_equal(run_cli(none, 30), 2);
    const char *bad[] = {"run", "--project", g_project.project, "--frames", "many", NULL};
    assert_int_equal(run_cli(bad, 30), 2);
}

static void test_sigint_mid_run(void **state)
{
    (void)state;
    char stats[400];
    snprintf(stats, sizeof stats, "%s/sigint.json", g_project.root);
    remove(stats);
    const char *args[] = {"run",         "--project", g_project.project,
                          "--headless",  "--stats",   stats,
                          "--log-level", "info",      NULL};
    child_t c = spawn(args);
    /* the signal comes once the main loop has run a frame (an event, not
       a sleep: a loaded machine may take seconds to get there) */
    bool running = wait_stderr_line(&c, "main loop: running", 60);
    assert_int_equal(kill(c.pid, SIGINT), 0);
    assert_true(running);
    assert_int_equal(wait_child(&c, 20), 0);
    json_t *j = load_stats(stats);
    assert_non_null(j);
    assert_true(json_is_true(json_object_get(j, "shutdown_complete")));
    assert_true(json_is_true(json_object_get(j, "ok")));
    assert_true(json_integer_value(json_object_get(j, "frames")) > 0);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headless_run_with_stats),
        cmocka_unit_test(test_project_config_file_spelling),
        cmocka_unit_test(test_launch_editor_refused),
        cmocka_unit_test(test_missing_project),
        cmocka_unit_test(test_sigint_mid_run),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
