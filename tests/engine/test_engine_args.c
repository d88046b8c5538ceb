/* ze_run_parse_args: the one grammar of `zengine run` and of a game's
 * main(): every option (both spellings of the project, "--opt value" and
 * "--opt=value"), missing values, bad numbers, unknown options, and the
 * refused --launchEditor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zengine/engine.h"

typedef struct parsed_t {
    ze_result r;
    ze_run_desc_t run;
    ze_log_level level;
    bool level_set;
    char err[ZE_LOG_MESSAGE_MAX]; /* what the sink received */
    uint32_t reports;
} parsed_t;

/* argv from a NULL-terminated list (argv[0] = "run"). */
static parsed_t parse(const char *const *args)
{
    static char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"run";
    for (int i = 0; args[i] && argc < 63; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    parsed_t p;
    memset(&p, 0, sizeof p);
    p.level = ZE_LOG_INFO;
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    p.r = ze_run_parse_args(argc, argv, &p.run, &p.level, &p.level_set, &sink);
    snprintf(p.err, sizeof p.err, "%s", diag.last_message);
    p.reports = diag.count;
    return p;
}

#define PARSE(...) parse((const char *const[]){__VA_ARGS__, NULL})

static void expect_error(parsed_t p, const char *fragment)
{
    assert_int_equal(p.r, ZE_ERR_INVALID_ARG);
    assert_int_equal(p.reports, 1);
    if (!strstr(p.err, fragment))
        fail_msg("error '%s' lacks '%s'", p.err, fragment);
    assert_null(strchr(p.err, '\n')); /* one line */
}

static void test_every_option(void **state)
{
    (void)state;
    parsed_t p = PARSE("--project", "game/project.json", "--headless", "--frames", "300",
                       "--fixed-dt", "0.016666", "--screenshot", "out.png", "--stats", "s.json",
                       "--log-level", "debug", "--memory-profile", "server", "--input", "in.txt",
                       "--backend", "null", "--max-fps", "144");
    assert_int_equal(p.r, ZE_OK);
    assert_string_equal(p.err, "");
    assert_string_equal(p.run.project, "game/project.json");
    assert_true(p.run.headless);
    assert_int_equal(p.run.frames, 300);
    assert_true(p.run.fixed_dt > 0.016665 && p.run.fixed_dt < 0.016667);
    assert_string_equal(p.run.screenshot, "out.png");
    assert_string_equal(p.run.stats, "s.json");
    assert_true(p.level_set);
    assert_int_equal(p.level, ZE_LOG_DEBUG);
    assert_string_equal(p.run.memory_profile, "server");
    assert_string_equal(p.run.input_script, "in.txt");
    assert_string_equal(p.run.backend, "null");
    assert_true(p.run.max_fps == 144.0);
    /* test-only fields stay zero */
    assert_int_equal(p.run.import_mode, ZE_IMPORT_CHILD_PROCESS);
}

static void test_defaults_and_spellings(void **state)
{
    (void)state;
    parsed_t p = PARSE("--projectConfigFile", "p.json");
    assert_int_equal(p.r, ZE_OK);
    assert_string_equal(p.run.project, "p.json");
    assert_false(p.run.headless);
    assert_int_equal(p.run.frames, 0);
    assert_true(p.run.fixed_dt == 0.0);
    assert_null(p.run.stats);
    assert_false(p.level_set);
    assert_int_equal(p.level, ZE_LOG_INFO); /* untouched */

    p = PARSE("--project=a.json", "--frames=7", "--fixed-dt=0.5", "--log-level=ERROR");
    assert_int_equal(p.r, ZE_OK);
    assert_string_equal(p.run.project, "a.json");
    assert_int_equal(p.run.frames, 7);
    assert_true(p.run.fixed_dt == 0.5);
    assert_int_equal(p.level, ZE_LOG_ERROR);

    /* the last of a repeated option wins; --frames 0 = until closed */
    p = PARSE("--project", "a.json", "--project", "b.json", "--frames", "0");
    assert_int_equal(p.r, ZE_OK);
    assert_string_equal(p.run.project, "b.json");
    assert_int_equal(p.run.frames, 0);
}

static void test_missing_values(void **state)
{
    (void)state;
    expect_error(PARSE("--project"), "--project needs a value");
    expect_error(PARSE("--project", "p.json", "--frames"), "--frames needs a value");
    expect_error(PARSE("--project", "p.json", "--stats"), "--stats needs a value");
    expect_error(PARSE("--project=", "x"), "--project needs a value");
    expect_error(PARSE("--headless"), "missing --project");
    expect_error(PARSE("--project", "p.json", "--headless=yes"), "takes no value");
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_error(PARSE("--project", "p", "--frames", "-3"), "--frames");
    expect_error(PARSE("--project", "p", "--frames", "12x"), "--frames");
    expect_error(PARSE("--project", "p", "--frames", "99999999999999999999999"), "--frames");
    expect_error(PARSE("--project", "p", "--fixed-dt", "0"), "--fixed-dt");
    expect_error(PARSE("--project", "p", "--fixed-dt", "-0.1"), "--fixed-dt");
    expect_error(PARSE("--project", "p", "--fixed-dt", "nan"), "--fixed-dt");
    expect_error(PARSE("--project", "p", "--fixed-dt", "2"), "--fixed-dt");
    expect_error(PARSE("--project", "p", "--max-fps", "-1"), "--max-fps");
    expect_error(PARSE("--project", "p", "--max-fps", "inf"), "--max-fps");
    expect_error(PARSE("--project", "p", "--log-level", "loud"), "--log-level");
    expect_error(PARSE("--project", "p", "--memory-profile", "huge"), "--memory-profile");
}

static void test_unknown_and_refused(void **state)
{
    (void)state;
    expect_error(PARSE("--project", "p", "--fullscreen"), "unknown option '--fullscreen'");
    expect_error(PARSE("--project", "p", "stray"), "unexpected argument 'stray'");
    expect_error(PARSE("--project", "p", "-f"), "unexpected argument");
    expect_error(PARSE("--proj", "p"), "unknown option");
    expect_error(PARSE("--project", "p", "--launchEditor"), "--launchEditor");
    parsed_t p = PARSE("--launchEditor");
    expect_error(p, "editor");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option),        cmocka_unit_test(test_defaults_and_spellings),
        cmocka_unit_test(test_missing_values),      cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_unknown_and_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
