/* Frame traces: the showcase run with the Vulkan backend (validation on),
 * `--frames 60 --trace FILE`, writes a capture that the C checker
 * (trace_check.h) accepts: fields, balanced zones and monotonic timestamps
 * per thread, exactly 60 "frame" zones on "main", zones from at least
 * three threads (main, render, a job worker) and a GPU track. With
 * `--trace-frames 25` a 40-frame run's capture holds 25 frames. The
 * checker itself refuses broken captures, and the options parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/trace_check.h"
#include "zengine/engine.h"

extern char **environ;

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = ze_mem_sys_alloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

/* Runs argv to its end; a hang deadline only (10x a loaded run). */
static int run_child(const char *const *argv, unsigned deadline_s)
{
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, (char *const *)argv, environ) != 0)
        fail_msg("cannot start %s", argv[0]);
    uint64_t end = ze_time_now_ns() + (uint64_t)deadline_s * 1000000000ull;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (ze_time_now_ns() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_msg("%s hung (killed after %u s)", argv[0], deadline_s);
        }
        usleep(20000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One showcase run with a capture; the checked report. */
static tc_report_t traced_run(const char *backend, const char *frames, const char *trace_frames)
{
    char dir[64] = "/tmp/ze_trace_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char trace[128];
    snprintf(trace, sizeof trace, "%s/showcase.trace.json", dir);
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* a validation message fails the run */
    const char *argv[16] = {ZE_SHOWCASE_PATH, "--headless", "--backend",   backend,
                            "--frames",       frames,       "--fixed-dt",  "0.0166666667",
                            "--trace",        trace,        "--log-level", "warn"};
    size_t n = 12;
    if (trace_frames) {
        argv[n++] = "--trace-frames";
        argv[n++] = trace_frames;
    }
    argv[n] = NULL;
    int rc = run_child(argv, 600);
    assert_int_equal(rc, 0);
    size_t len = 0;
    char *text = read_all(trace, &len);
    assert_non_null(text);
    tc_report_t rep;
    char why[512];
    if (!tc_check_text(text, len, &rep, why, sizeof why))
        fail_msg("%s: %s", trace, why);
    ze_mem_sys_free(text);
    unlink(trace);
    rmdir(dir);
    return rep;
}

static void test_showcase_trace(void **state)
{
    (void)state;
    tc_report_t rep = traced_run("vulkan", "60", NULL);
    print_message("trace of 60 frames: %zu bytes (%.0f bytes per frame), %zu events, %u threads "
                  "with zones, %u named, %zu GPU spans\n",
                  rep.bytes, (double)rep.bytes / 60.0, rep.events, rep.zone_threads,
                  rep.named_threads, rep.gpu_spans);
    assert_int_equal(rep.frames, 60);
    assert_true(rep.zone_threads >= 3);
    assert_true(rep.has_main);
    assert_true(rep.has_render);
    assert_true(rep.has_worker); /* the asset loads run on the pool */
    /* the last frames' passes at least: read at shutdown, with the device idle */
    assert_true(rep.gpu_spans > 0);
}

/* --trace-frames: the capture pauses after N iterations of a longer run. */
static void test_trace_frames_limit(void **state)
{
    (void)state;
    tc_report_t rep = traced_run("null", "40", "25");
    assert_int_equal(rep.frames, 25);
    assert_int_equal(rep.gpu_spans, 0); /* the null backend has no GPU */
}

/* The checker must be able to fail: each broken capture names its fault. */
static void test_checker_refuses_broken_captures(void **state)
{
    (void)state;
#define EV(name, ph, ts, tid) \
    "{\"name\":\"" name "\",\"ph\":\"" ph "\",\"ts\":" #ts ",\"pid\":1,\"tid\":" #tid "}"
    static const struct {
        const char *json;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        {"{\"traceEvents\":[" EV("a", "B", 1, 1) "," EV("a", "E", 2, 1) "]}", NULL},
        {"{\"traceEvents\":[" EV("a", "B", 1, 1) "]}", "zones open"},
        {"{\"traceEvents\":[" EV("a", "E", 1, 1) "]}", "without a begin"},
        {"{\"traceEvents\":[" EV("a", "B", 1, 1) "," EV("b", "B", 2, 1) "," EV("a", "E", 3, 1) "]}",
         "closes 'b'"},
        {"{\"traceEvents\":[" EV("a", "B", 5, 1) "," EV("a", "E", 4, 1) "]}", "before"},
        {"{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"B\",\"ts\":1,\"pid\":1}]}", "lacks"},
        {"{\"traceEvents\":[" EV("g", "X", 1, 0) "]}", "dur"},
        {"{\"traceEvents\":[" EV("a", "Q", 1, 1) "]}", "unexpected ph"},
        {"{\"events\":[]}", "no traceEvents"},
        {"{\"traceEvents\":[", "not JSON"},
    };
#undef EV
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_report_t rep;
        char why[512] = "";
        bool ok = tc_check_text(cases[i].json, strlen(cases[i].json), &rep, why, sizeof why);
        if (!cases[i].needle) {
            if (!ok)
                fail_msg("case %zu refused: %s", i, why);
            continue;
        }
        if (ok)
            fail_msg("case %zu accepted (want '%s')", i, cases[i].needle);
        if (!strstr(why, cases[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].needle);
    }
}

static void test_trace_options(void **state)
{
    (void)state;
    ze_run_desc_t run;
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    char *ok[] = {"run", "--project", "p.json", "--trace", "t.json", "--trace-frames", "60", NULL};
    assert_int_equal(ze_run_parse_args(7, ok, &run, NULL, NULL, &sink), ZE_OK);
    assert_string_equal(run.trace, "t.json");
    assert_int_equal(run.trace_frames, 60);
    char *zero[] = {"run", "--project", "p.json", "--trace-frames", "0", NULL};
    assert_int_equal(ze_run_parse_args(5, zero, &run, NULL, NULL, &sink), ZE_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.last, "--trace-frames"));
    char *none[] = {"run", "--project", "p.json", "--trace", NULL};
    assert_int_equal(ze_run_parse_args(4, none, &run, NULL, NULL, &sink), ZE_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.last, "--trace needs a value"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_options),
        cmocka_unit_test(test_checker_refuses_broken_captures),
        cmocka_unit_test(test_showcase_trace),
        cmocka_unit_test(test_trace_frames_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
