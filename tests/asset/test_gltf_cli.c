/* `zengine cook` run as a child process, as the import coordinator and CI
 * will run it: every valid glTF/GLB model of the shared corpus cooks and its
 * --json counts equal the manifest's facts, the artifacts it lists exist,
 * each with its sub-asset, and the dependencies are as many as the
 * manifest's;
 * every gltf-invalid file exits 1 with exactly one line on stderr, nothing
 * on stdout and no output folder; usage errors exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asset_test_util.h"
#include "zengine/asset.h"
#include "zengine/base.h"
#include "zengine/mem.h"

#define ASSETS ATU_ASSETS

static int setup(void **state)
{
    atu_manifest_setup(state);
    return atu_tmp_setup(state);
}

static int teardown(void **state)
{
    atu_manifest_teardown(state);
    return atu_tmp_teardown(state);
}

typedef struct run_t {
    int status; /* exit status, or 128 + signal */
    char out[1 << 15];
    char err[4096];
} run_t;

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, cap - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[n] = 0;
}

/* Run zengine with args (NULL-terminated), capturing stdout and stderr. */
static void run(run_t *r, const char *const *args)
{
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/stdout", g_tmp);
    snprintf(err_path, sizeof err_path, "%s/stderr", g_tmp);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)ZE_CLI_PATH;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(ZE_CLI_PATH, argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    slurp(out_path, r->out, sizeof r->out);
    slurp(err_path, r->err, sizeof r->err);
}

/* cooked_textures: one per .zetex, its format and bytes those of the file
 * written, its PSNR and byte ratio in range (default settings: "auto"). */
static void check_cooked_textures(const char *rel, const char *out, json_t *o)
{
    json_t *texs = json_object_get(o, "cooked_textures");
    assert_true(json_is_array(texs));
    assert_int_equal(json_array_size(texs),
                     json_integer_value(json_object_get(json_object_get(o, "cooked"), "textures")));
    size_t k;
    json_t *t;
    json_array_foreach(texs, k, t)
    {
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", out, json_string_value(json_object_get(t, "artifact")));
        FILE *f = fopen(p, "rb");
        if (!f)
            fail_msg("%s: cooked_textures[%zu]: %s missing", rel, k, p);
        fseek(f, 0, SEEK_END);
        size_t n = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *b = ze_mem_sys_alloc(n);
        assert_non_null(b);
        assert_int_equal(fread(b, 1, n, f), n);
        fclose(f);
        ze_tex_view_t v;
        assert_int_equal(ze_asset_zetex_read(b, n, &v, NULL), ZE_OK);
        uint64_t bytes = 0;
        for (uint32_t m = 0; m < v.mip_count; m++)
            bytes += v.mips[m].size;
        ze_mem_sys_free(b);
        assert_string_equal(json_string_value(json_object_get(t, "format")),
                            ze_tex_format_name(v.format));
        assert_int_not_equal(ze_tex_format_block_bytes(v.format), 0); /* auto compresses */
        assert_int_equal(json_integer_value(json_object_get(t, "bytes")), bytes);
        double db = json_number_value(json_object_get(t, "psnr_db"));
        double ratio = json_number_value(json_object_get(t, "bytes_ratio"));
        if (!(db >= 30.0 && db <= 100.0) || !(ratio > 0.1 && ratio <= 0.2501))
            fail_msg("%s: %s: %.2f dB, %.4fx", rel, p, db, ratio);
    }
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_valid_models_cook(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    static const char *const keys[][2] = {
        {"meshes", "meshes"},       {"primitives", "primitives"}, {"vertices", "vertex_count"},
        {"indices", "index_count"}, {"materials", "materials"},   {"textures", "textures"},
        {"images", "images"},       {"nodes", "nodes"},           {"scenes", "scenes"},
        {"cameras", "cameras"},
    };
    static const char *const cooked_keys[] = {
        "meshes",    "submeshes", "vertices",          "indices",
        "materials", "textures",  "skipped_primitives"};
    json_t *entries = json_object_get(g_manifest, "entries");
    size_t i, cooked = 0;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (strcmp(kind, "valid") != 0 || (strcmp(fmt, "gltf") != 0 && strcmp(fmt, "glb") != 0))
            continue;
        const char *rel = json_string_value(json_object_get(e, "path"));
        char src[1024], out[256];
        snprintf(src, sizeof src, "%s/%s", ASSETS, rel);
        snprintf(out, sizeof out, "%s/out%zu", g_tmp, i);
        run_t r;
        run(&r, (const char *const[]){"cook", src, "--out", out, "--json", NULL});
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", rel, r.status, r.err);
        assert_string_equal(r.err, "");
        json_error_t jerr;
        json_t *o = json_loads(r.out, 0, &jerr);
        if (!o)
            fail_msg("%s: stdout is not JSON (%s): %s", rel, jerr.text, r.out);
        assert_true(json_is_object(o));
        assert_string_equal(json_string_value(json_object_get(o, "importer")), "gltf");
        json_t *facts = json_object_get(e, "gltf_json_facts");
        for (size_t k = 0; k < ZE_COUNTOF(keys); k++) {
            json_t *got = json_object_get(o, keys[k][0]);
            json_t *want = json_object_get(facts, keys[k][1]);
            if (!json_is_integer(got) || json_integer_value(got) != json_integer_value(want))
                fail_msg("%s: %s is %lld, the manifest says %lld", rel, keys[k][0],
                         (long long)json_integer_value(got), (long long)json_integer_value(want));
        }
        json_t *c = json_object_get(o, "cooked");
        assert_true(json_is_object(c));
        for (size_t k = 0; k < ZE_COUNTOF(cooked_keys); k++)
            assert_true(json_is_integer(json_object_get(c, cooked_keys[k])));
        assert_true(json_integer_value(json_object_get(c, "submeshes")) +
                        json_integer_value(json_object_get(c, "skipped_primitives")) ==
                    json_integer_value(json_object_get(facts, "primitives")));
        json_t *arts = json_object_get(o, "artifacts");
        assert_true(json_is_array(arts));
        /* models with nodes also get <stem>.scene.json */
        assert_int_equal(json_array_size(arts),
                         json_integer_value(json_object_get(c, "meshes")) +
                             json_integer_value(json_object_get(c, "materials")) +
                             json_integer_value(json_object_get(c, "textures")) +
                             (json_integer_value(json_object_get(o, "nodes")) > 0));
        /* one sub-asset per artifact, same order */
        json_t *subs = json_object_get(o, "sub_assets");
        assert_true(json_is_array(subs));
        assert_int_equal(json_array_size(subs), json_array_size(arts));
        for (size_t k = 0; k < json_array_size(subs); k++) {
            json_t *sub = json_array_get(subs, k);
            assert_string_equal(json_string_value(json_object_get(sub, "artifact")),
                                json_string_value(json_array_get(arts, k)));
            assert_true(json_is_string(json_object_get(sub, "uuid")));
            assert_true(json_is_string(json_object_get(sub, "type")));
        }
        assert_int_equal(json_array_size(json_object_get(o, "dependencies")),
                         json_array_size(json_object_get(e, "dependencies")));
        const char *prev = "";
        size_t k;
        json_t *a;
        json_array_foreach(arts, k, a)
        {
            const char *name = json_string_value(a);
            assert_true(strcmp(prev, name) < 0);
            prev = name;
            char p[1400];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", out, name);
            if (stat(p, &st) != 0)
                fail_msg("%s: artifact %s missing", rel, name);
        }
        check_cooked_textures(rel, out, o);
        json_decref(o);
        cooked++;
    }
    print_message("cooked %zu valid models through the CLI\n", cooked);
    assert_true(cooked >= 15);
}

static void test_invalid_files_fail_cleanly(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries");
    size_t i, n = 0, degraded = 0;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (strcmp(kind, "invalid") != 0 || (strcmp(fmt, "gltf") != 0 && strcmp(fmt, "glb") != 0))
            continue;
        const char *rel = json_string_value(json_object_get(e, "path"));
        char src[1024], out[256];
        snprintf(src, sizeof src, "%s/%s", ASSETS, rel);
        snprintf(out, sizeof out, "%s/bad%zu", g_tmp, i);
        run_t r;
        run(&r, (const char *const[]){"cook", src, "--out", out, "--json", NULL});
        if (strncmp(rel, "gltf-invalid/image/", 19) == 0) {
            /* A bad image fails the strict import (test_gltf_corpus) but
               the cook degrades: exit 0, a warning naming the file, no
               texture. */
            if (r.status != 0)
                fail_msg("%s: exit status %d (want 0: a warning), stderr: %s", rel, r.status,
                         r.err);
            const char *png =
                json_string_value(json_array_get(json_object_get(e, "companion_files"), 0));
            const char *base = png ? strrchr(png, '/') : NULL;
            assert_non_null(base);
            if (!strstr(r.err, "zengine cook: warning: ") || !strstr(r.err, base + 1))
                fail_msg("%s: no warning naming %s on stderr: %s", rel, base + 1, r.err);
            json_t *o = json_loads(r.out, 0, NULL);
            assert_non_null(o);
            assert_true(json_array_size(json_object_get(o, "warnings")) >= 1);
            assert_int_equal(
                json_integer_value(json_object_get(json_object_get(o, "cooked"), "textures")), 0);
            json_decref(o);
            degraded++;
            continue;
        }
        if (r.status != 1)
            fail_msg("%s: exit status %d (want 1), stderr: %s", rel, r.status, r.err);
        assert_string_equal(r.out, "");
        if (count_lines(r.err) != 1)
            fail_msg("%s: stderr is not one line: %s", rel, r.err);
        assert_true(strncmp(r.err, "zengine cook: ", 14) == 0);
        struct stat st;
        if (stat(out, &st) == 0)
            fail_msg("%s: the output folder was created", rel);
        n++;
    }
    print_message("%zu invalid files rejected by the CLI, %zu cooked with a warning\n", n,
                  degraded);
    assert_true(n >= 22);
    assert_true(degraded >= 1);
}

static void test_usage_and_options(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *const[]){NULL});
    assert_int_equal(r.status, 2);
    run(&r, (const char *const[]){"help", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "cook SOURCE --out DIR"));
    run(&r, (const char *const[]){"frobnicate", NULL});
    assert_int_equal(r.status, 2);
    run(&r, (const char *const[]){"cook", "x.gltf", NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--out DIR is required"));
    run(&r, (const char *const[]){"cook", "x.gltf", "--out", NULL});
    assert_int_equal(r.status, 2);
    run(&r, (const char *const[]){"cook", "x.gltf", "--out", "d", "--bogus", NULL});
    assert_int_equal(r.status, 2);
    run(&r, (const char *const[]){"cook", "x.gltf", "y.gltf", "--out", "d", NULL});
    assert_int_equal(r.status, 2);
    run(&r, (const char *const[]){"cook", "x.gltf", "--out", "d", "--uuid", "nope", NULL});
    assert_int_equal(r.status, 2);
    char out[256];
    snprintf(out, sizeof out, "%s/none", g_tmp);
    run(&r, (const char *const[]){"cook", ASSETS "/obj/spider.mtl", "--out", out, NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "no importer"));
    run(&r, (const char *const[]){"cook", "/nonexistent/x.gltf", "--out", out, NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(count_lines(r.err), 1);
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0);
}

static void test_uuid_option_and_quiet_mode(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char out[256];
    snprintf(out, sizeof out, "%s/uuid", g_tmp);
    const char *id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    run_t r;
    run(&r, (const char *const[]){"cook", ASSETS "/gltf/Box/glTF/Box.gltf", "--out", out, "--uuid",
                                  id, "--json", NULL});
    assert_int_equal(r.status, 0);
    json_t *o = json_loads(r.out, 0, NULL);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "uuid")), id);
    json_decref(o);
    /* Without --json: silent success. */
    run(&r, (const char *const[]){"cook", ASSETS "/gltf/Box/glTF/Box.gltf", "--out", out, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_models_cook),
        cmocka_unit_test(test_invalid_files_fail_cleanly),
        cmocka_unit_test(test_usage_and_options),
        cmocka_unit_test(test_uuid_option_and_quiet_mode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
