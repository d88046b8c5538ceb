/* project.json: every field, the defaults, each kind of error (with its JSON
 * path), unknown keys reported and skipped, paths normalized as VFS paths,
 * and loading from a file (root = the file's folder, absolute). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/engine.h"

static ze_project_t g_p; /* 8 KiB+: not on cmocka's stack */

/* What the diagnostics sink received: warnings in order, the error as
 * "subject: message". */
typedef struct collect_t {
    uint32_t count;
    char messages[16][256];
    char *err; /* 160 bytes */
} collect_t;

static void collect_fn(void *user, const ze_diag_t *d)
{
    collect_t *c = user;
    if (d->level >= ZE_LOG_ERROR) {
        if (c->err)
            snprintf(c->err, 160, "%s: %s", d->subject, d->message);
        return;
    }
    if (c->count < 16)
        snprintf(c->messages[c->count], sizeof c->messages[0], "%s", d->message);
    c->count++;
}

static ze_diag_sink_t collect(collect_t *rep, collect_t *local, char err[160])
{
    if (!rep)
        rep = local;
    memset(rep, 0, sizeof *rep);
    rep->err = err;
    if (err)
        err[0] = '\0';
    return (ze_diag_sink_t){collect_fn, rep};
}

static ze_result parse(const char *text, collect_t *rep, char err[160])
{
    collect_t local;
    ze_diag_sink_t sink = collect(rep, &local, err);
    return ze_project_parse(text, strlen(text), &g_p, &sink);
}

static ze_result load(const char *file, collect_t *rep, char err[160])
{
    collect_t local;
    ze_diag_sink_t sink = collect(rep, &local, err);
    return ze_project_load(file, &g_p, &sink);
}

static void expect_fail(const char *text, const char *needle)
{
    char err[160];
    collect_t rep;
    ze_result r = parse(text, &rep, err);
    if (r != ZE_ERR_PARSE || !strstr(err, needle))
        print_error("%s -> %d '%s' (wanted '%s')\n", text, r, err, needle);
    assert_int_equal(r, ZE_ERR_PARSE);
    assert_non_null(strstr(err, needle));
    assert_string_equal(g_p.name, ""); /* out is cleared on failure */
}

static void test_every_field(void **state)
{
    (void)state;
    char err[160];
    collect_t rep;
    assert_int_equal(parse("{\"name\": \"Showcase\",\n"
                           " \"start_scene\": \"scenes/../scenes/main.zescene\",\n"
                           " \"asset_folders\": [\"models\", \"/textures/\", \"a\\\\b\", \"/\"],\n"
                           " \"memory_profile\": \"editor\",\n"
                           " \"window\": {\"width\": 1920, \"height\": 1080,\n"
                           "            \"title\": \"Show \\u00e9\", \"vsync\": false}}",
                           &rep, err),
                     ZE_OK);
    assert_string_equal(err, "");
    assert_int_equal(rep.count, 0);
    assert_string_equal(g_p.name, "Showcase");
    assert_string_equal(g_p.start_scene, "/scenes/main.zescene");
    assert_int_equal(g_p.asset_folder_count, 4);
    assert_string_equal(g_p.asset_folders[0], "/models");
    assert_string_equal(g_p.asset_folders[1], "/textures");
    assert_string_equal(g_p.asset_folders[2], "/a/b");
    assert_string_equal(g_p.asset_folders[3], "/");
    assert_string_equal(g_p.memory_profile, "editor");
    assert_int_equal(g_p.window.width, 1920);
    assert_int_equal(g_p.window.height, 1080);
    assert_string_equal(g_p.window.title, "Show \xc3\xa9");
    assert_false(g_p.window.vsync);
    assert_false(g_p.window.headless);
    assert_string_equal(g_p.root, "");
    /* the renderer's geometry budgets (0 when absent: the backend's defaults) */
    assert_int_equal(g_p.renderer.vertex_budget_bytes, 0);
    assert_int_equal(parse("{\"name\": \"R\", \"renderer\": {\"vertex_budget_bytes\": 268435456,"
                           " \"index_budget_bytes\": 1048576, \"instance_budget\": 1000000}}",
                           &rep, err),
                     ZE_OK);
    assert_int_equal(g_p.renderer.vertex_budget_bytes, 268435456);
    assert_int_equal(g_p.renderer.index_budget_bytes, 1048576);
    assert_int_equal(g_p.renderer.instance_budget, 1000000);
    /* culling and the depth prepass (occlusion culling and none by default) */
    assert_int_equal(g_p.renderer.culling, ZE_RENDER_CULL_DEFAULT);
    assert_false(g_p.renderer.depth_prepass);
    static const struct {
        const char *text;
        ze_render_cull_mode mode;
    } modes[] = {{"occlusion", ZE_RENDER_CULL_DEFAULT},
                 {"frustum", ZE_RENDER_CULL_FRUSTUM},
                 {"none", ZE_RENDER_CULL_NONE}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char text[160];
        snprintf(text, sizeof text,
                 "{\"name\": \"R\", \"renderer\": {\"culling\": \"%s\", \"depth_prepass\": true}}",
                 modes[i].text);
        assert_int_equal(parse(text, &rep, err), ZE_OK);
        assert_int_equal(g_p.renderer.culling, modes[i].mode);
        assert_true(g_p.renderer.depth_prepass);
    }
}

static void test_minimal_and_defaults(void **state)
{
    (void)state;
    char err[160];
    collect_t rep;
    assert_int_equal(parse("{\"name\":\"Mini\"}", &rep, err), ZE_OK);
    assert_string_equal(g_p.name, "Mini");
    assert_string_equal(g_p.start_scene, "");
    assert_int_equal(g_p.asset_folder_count, 0);
    assert_string_equal(g_p.memory_profile, "");
    assert_int_equal(g_p.window.width, 1280);
    assert_int_equal(g_p.window.height, 720);
    assert_string_equal(g_p.window.title, "Mini");
    assert_true(g_p.window.vsync);
    assert_int_equal(rep.count, 0);

    /* Empty start scene = none, empty title = the name, empty folder list,
       report and err optional, edge values. */
    assert_int_equal(parse("{\"name\":\"N\",\"start_scene\":\"\",\"asset_folders\":[],"
                           "\"window\":{\"title\":\"\",\"width\":1,\"height\":16384}}",
                           NULL, NULL),
                     ZE_OK);
    assert_string_equal(g_p.start_scene, "");
    assert_string_equal(g_p.window.title, "N");
    assert_int_equal(g_p.window.width, 1);
    assert_int_equal(g_p.window.height, 16384);
    assert_int_equal(parse("{\"memory_profile\":\"server\",\"name\":\"x\"}", NULL, NULL), ZE_OK);
    assert_string_equal(g_p.memory_profile, "server");
    assert_int_equal(parse("{\"memory_profile\":\"default\",\"name\":\"x\"}", NULL, NULL), ZE_OK);
}

static void test_errors(void **state)
{
    (void)state;
    /* Not JSON, or not an object. */
    expect_fail("", "line 1");
    expect_fail("{\"name\":", "line 1");
    expect_fail("{\"name\":\"a\"} x", "line 1");
    expect_fail("[]", "/: expected an object");
    expect_fail("{\"name\":\"a\",\"name\":\"b\"}", "duplicate");
    expect_fail("{\"name\":\"a\\u0000b\"}", "line 1");
    expect_fail("{\"name\":\"\xff\"}", "line 1");
    /* name */
    expect_fail("{}", "/name: required");
    expect_fail("{\"name\":\"\"}", "/name: required");
    expect_fail("{\"name\":7}", "/name: expected a string");
    /* renderer */
    expect_fail("{\"name\":\"a\",\"renderer\":7}", "/renderer: expected an object");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"vertex_budget_bytes\":1000}}",
                "/renderer/vertex_budget_bytes: expected an integer of bytes, 1048576");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"index_budget_bytes\":\"big\"}}",
                "/renderer/index_budget_bytes: expected");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"instance_budget\":0}}",
                "/renderer/instance_budget: expected an integer 1..67108864");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"instance_budget\":67108865}}",
                "/renderer/instance_budget: expected");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"culling\":\"hzb\"}}",
                "/renderer/culling: expected \"occlusion\", \"frustum\" or \"none\"");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"culling\":true}}", "/renderer/culling: expected");
    expect_fail("{\"name\":\"a\",\"renderer\":{\"depth_prepass\":1}}",
                "/renderer/depth_prepass: expected true or false");
    /* window */
    expect_fail("{\"name\":\"a\",\"window\":[]}", "/window: expected an object");
    expect_fail("{\"name\":\"a\",\"window\":{\"width\":0}}", "/window/width: expected an integer "
                                                             "1..16384");
    expect_fail("{\"name\":\"a\",\"window\":{\"width\":16385}}", "/window/width: expected");
    expect_fail("{\"name\":\"a\",\"window\":{\"height\":-5}}", "/window/height: expected");
    expect_fail("{\"name\":\"a\",\"window\":{\"height\":720.0}}", "/window/height: expected");
    expect_fail("{\"name\":\"a\",\"window\":{\"height\":\"720\"}}", "/window/height: expected");
    expect_fail("{\"name\":\"a\",\"window\":{\"height\":99999999999999999999}}", "line 1");
    expect_fail("{\"name\":\"a\",\"window\":{\"vsync\":1}}", "/window/vsync: expected true");
    expect_fail("{\"name\":\"a\",\"window\":{\"title\":null}}", "/window/title: expected a string");
    /* memory profile */
    expect_fail("{\"name\":\"a\",\"memory_profile\":\"huge\"}", "/memory_profile: expected");
    expect_fail("{\"name\":\"a\",\"memory_profile\":\"\"}", "/memory_profile: expected");
    expect_fail("{\"name\":\"a\",\"memory_profile\":3}", "/memory_profile: expected");
    /* paths */
    expect_fail("{\"name\":\"a\",\"start_scene\":\"../x.zescene\"}",
                "/start_scene: the path leaves the project root");
    expect_fail("{\"name\":\"a\",\"start_scene\":\"/\"}", "/start_scene: expected a file path");
    expect_fail("{\"name\":\"a\",\"start_scene\":true}", "/start_scene: expected a string");
    expect_fail("{\"name\":\"a\",\"asset_folders\":\"models\"}",
                "/asset_folders: expected an array");
    expect_fail("{\"name\":\"a\",\"asset_folders\":[\"m\",\"a/../../b\"]}",
                "/asset_folders/1: the path leaves the project root");
    expect_fail("{\"name\":\"a\",\"asset_folders\":[\"m\",3]}",
                "/asset_folders/1: expected a string");
    expect_fail("{\"name\":\"a\",\"asset_folders\":[\"\"]}", "/asset_folders/0: expected a "
                                                             "non-empty path");
    /* More than 16 folders. */
    char text[1024];
    int n = snprintf(text, sizeof text, "{\"name\":\"a\",\"asset_folders\":[");
    for (int i = 0; i < 17; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\"f%d\"", i ? "," : "", i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    expect_fail(text, "/asset_folders: more than 16 folders");
    /* Exactly 16 pass. */
    n = snprintf(text, sizeof text, "{\"name\":\"a\",\"asset_folders\":[");
    for (int i = 0; i < 16; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\"f%d\"", i ? "," : "", i);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    assert_int_equal(parse(text, NULL, NULL), ZE_OK);
    assert_int_equal(g_p.asset_folder_count, 16);
    assert_string_equal(g_p.asset_folders[15], "/f15");

    /* Arguments. */
    assert_int_equal(ze_project_parse(NULL, 3, &g_p, NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_project_parse("{}", 2, NULL, NULL), ZE_ERR_INVALID_ARG);
}

static void test_string_limits(void **state)
{
    (void)state;
    /* 255 bytes fit (plus the NUL), 256 fail: never truncated. */
    static char text[4096];
    char s[300];
    memset(s, 'n', sizeof s);
    s[255] = '\0';
    snprintf(text, sizeof text, "{\"name\":\"%s\"}", s);
    assert_int_equal(parse(text, NULL, NULL), ZE_OK);
    assert_int_equal(strlen(g_p.name), 255);
    s[255] = 'n';
    s[256] = '\0';
    snprintf(text, sizeof text, "{\"name\":\"%s\"}", s);
    expect_fail(text, "/name: longer than 255 bytes");
    snprintf(text, sizeof text, "{\"name\":\"a\",\"window\":{\"title\":\"%s\"}}", s);
    expect_fail(text, "/window/title: longer than 255 bytes");
    /* Paths: the normalized form counts ("/" + 254 = 255 fits). */
    s[254] = '\0';
    snprintf(text, sizeof text, "{\"name\":\"a\",\"start_scene\":\"%s\"}", s);
    assert_int_equal(parse(text, NULL, NULL), ZE_OK);
    assert_int_equal(strlen(g_p.start_scene), 255);
    s[254] = 'n';
    s[255] = '\0';
    snprintf(text, sizeof text, "{\"name\":\"a\",\"asset_folders\":[\"%s\"]}", s);
    expect_fail(text, "/asset_folders/0: path longer than 255 bytes");
    /* But "./" prefixes that normalize away do not count. */
    s[254] = '\0';
    snprintf(text, sizeof text, "{\"name\":\"a\",\"asset_folders\":[\"./././%s\"]}", s);
    assert_int_equal(parse(text, NULL, NULL), ZE_OK);
}

static void test_unknown_keys(void **state)
{
    (void)state;
    char err[160];
    collect_t rep;
    assert_int_equal(parse("{\"name\":\"a\",\"extra\":{\"deep\":1},"
                           "\"window\":{\"fullscreen\":true,\"headless\":true,\"width\":800},"
                           "\"we/ird~key\":0}",
                           &rep, err),
                     ZE_OK);
    assert_int_equal(rep.count, 4);
    const char *want[] = {"/extra: unknown key", "/window/fullscreen: unknown key",
                          "/window/headless: unknown key", "/we~1ird~0key: unknown key"};
    for (int i = 0; i < 4; i++) {
        bool found = false;
        for (int j = 0; j < 4; j++)
            found |= strcmp(rep.messages[j], want[i]) == 0;
        if (!found)
            print_error("missing '%s'\n", want[i]);
        assert_true(found);
    }
    assert_false(g_p.window.headless); /* never from the file */
    assert_int_equal(g_p.window.width, 800);

    /* A long key is cut in the message, which still says what it is. */
    char longkey[400];
    memset(longkey, 'k', 300);
    longkey[300] = '\0';
    char text2[512];
    snprintf(text2, sizeof text2, "{\"name\":\"a\",\"window\":{\"%s\":1}}", longkey);
    assert_int_equal(parse(text2, &rep, err), ZE_OK);
    assert_int_equal(rep.count, 1);
    assert_memory_equal(rep.messages[0], "/window/kkk", 11);
    assert_non_null(strstr(rep.messages[0], "...: unknown key"));

    /* More than 8: the first 8 reported, then one line for the rest. */
    char text[1024];
    int n = snprintf(text, sizeof text, "{\"name\":\"a\"");
    for (int i = 0; i < 11; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, ",\"k%d\":%d", i, i);
    snprintf(text + n, sizeof text - (size_t)n, "}");
    assert_int_equal(parse(text, &rep, err), ZE_OK);
    assert_int_equal(rep.count, 9);
    for (int i = 0; i < 8; i++)
        assert_non_null(strstr(rep.messages[i], ": unknown key"));
    assert_string_equal(rep.messages[8], "more unknown keys skipped");
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_load(void **state)
{
    (void)state;
    char tmp[] = "/tmp/zeproject-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char sub[64], file[96], real[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/game", tmp);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(file, sizeof file, "%s/project.json", sub);
    write_file(file, "{\"name\":\"Loaded\",\"asset_folders\":[\"models\"],\"bogus\":1}");
    assert_non_null(realpath(sub, real));

    char err[160];
    collect_t rep;
    assert_int_equal(load(file, &rep, err), ZE_OK);
    assert_string_equal(g_p.name, "Loaded");
    assert_string_equal(g_p.root, real);
    assert_int_equal(rep.count, 1);
    assert_string_equal(rep.messages[0], "/bogus: unknown key");

    /* A relative path gives an absolute root. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmp), 0);
    assert_int_equal(load("game/../game/project.json", NULL, err), ZE_OK);
    assert_string_equal(g_p.root, real);
    assert_int_equal(chdir(cwd), 0);

    /* Parse errors come through; a missing file is NOT_FOUND. */
    write_file(file, "{\"name\":\"x\",\"window\":{\"vsync\":\"yes\"}}");
    assert_int_equal(load(file, &rep, err), ZE_ERR_PARSE);
    assert_non_null(strstr(err, "/window/vsync"));
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nope.json", tmp);
    assert_int_equal(load(missing, NULL, err), ZE_ERR_NOT_FOUND);
    assert_non_null(strstr(err, "nope.json"));
    assert_int_equal(load(sub, NULL, err), ZE_ERR_IO); /* a directory */

    /* Over 1 MiB is refused. */
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    fputs("{\"name\":\"big\",\"pad\":\"", f);
    for (int i = 0; i < (1 << 20); i++)
        fputc('x', f);
    fputs("\"}", f);
    fclose(f);
    assert_int_equal(load(file, NULL, err), ZE_ERR_LIMIT);

    unlink(file);
    rmdir(sub);
    rmdir(tmp);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field),  cmocka_unit_test(test_minimal_and_defaults),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_string_limits),
        cmocka_unit_test(test_unknown_keys), cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
