/* `zengine render` over every valid glTF/GLB model of the shared test
 * assets (../shared/testdata/assets/manifest.json): each run must exit 0,
 * write a non-empty PNG and report zero validation messages (--stats), and
 * the framed model must cover 5-95 % of the pixels: those that differ from
 * the background (the colour the image's corners share, the sky's clear
 * colour) by more than COVER_TOL in a channel. Sanitizer builds render the
 * first three models only (lavapipe under ASan is slow); without the test
 * data the test is skipped. ZE_TEST_WRITE_IMAGES=DIR keeps the images
 * there (to look at). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zengine/base.h"

#include "png_pixels.h"

#if defined(ZE_SANITIZER_ADDRESS) || defined(ZE_SANITIZER_THREAD)
enum { MAX_MODELS = 3 };
#else
enum { MAX_MODELS = 1000 };
#endif
enum { COVER_TOL = 3 }; /* per channel, of 255 */

static int run_cli(const char *model, const char *png, const char *stats)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(ZE_CLI_PATH, ZE_CLI_PATH, "render", model, "--out", png, "--size", "128x128",
              "--stats", stats, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_render_manifest_models(void **state)
{
    (void)state;
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* inherited: on in release too */
    char manifest[1024];
    snprintf(manifest, sizeof manifest, "%s/manifest.json", ZE_TEST_ASSETS);
    json_error_t jerr;
    json_t *root = json_load_file(manifest, 0, &jerr);
    if (!root)
        skip();
    char dir[] = "/tmp/zengine-render-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    json_t *entries = json_object_get(root, "entries");
    size_t i;
    json_t *e;
    uint32_t rendered = 0, badly_framed = 0;
    double lo = 1.0, hi = 0.0;
    json_array_foreach(entries, i, e)
    {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        const char *format = json_string_value(json_object_get(e, "format"));
        const char *path = json_string_value(json_object_get(e, "path"));
        if (!kind || !format || !path || strcmp(kind, "valid") != 0 ||
            (strcmp(format, "gltf") != 0 && strcmp(format, "glb") != 0))
            continue;
        if (rendered >= MAX_MODELS)
            break;
        char model[1024], png[256], stats[256];
        snprintf(model, sizeof model, "%s/%s", ZE_TEST_ASSETS, path);
        snprintf(png, sizeof png, "%s/%u.png", dir, rendered);
        snprintf(stats, sizeof stats, "%s/%u.json", dir, rendered);
        int rc = run_cli(model, png, stats);
        print_message("%s: exit %d\n", path, rc);
        assert_int_equal(rc, 0);
        struct stat st;
        assert_int_equal(stat(png, &st), 0);
        assert_true(st.st_size > 100);
        json_t *s = json_load_file(stats, 0, &jerr);
        assert_non_null(s);
        assert_int_equal(json_integer_value(json_object_get(s, "validation_messages")), 0);
        assert_true(json_integer_value(json_object_get(s, "frames_rendered")) > 0);
        json_decref(s);
        png_pixels_t px;
        assert_true(png_pixels_load(png, &px));
        uint8_t bg[3] = {0};
        assert_true(png_background(&px, COVER_TOL, bg));
        double cover = png_coverage(&px, bg, COVER_TOL);
        print_message("%s: covers %.1f %% of %ux%u (background %u,%u,%u)\n", path, cover * 100.0,
                      px.width, px.height, bg[0], bg[1], bg[2]);
        png_pixels_release(&px);
        const char *keep = getenv("ZE_TEST_WRITE_IMAGES");
        if (keep && keep[0]) {
            char to[1200];
            snprintf(to, sizeof to, "%s/render_%u.png", keep, rendered);
            (void)rename(png, to);
        }
        if (cover < 0.05 || cover > 0.95) {
            print_message("%s: coverage outside 5-95 %%\n", path);
            badly_framed++;
        }
        lo = cover < lo ? cover : lo;
        hi = cover > hi ? cover : hi;
        unlink(png);
        unlink(stats);
        rendered++;
    }
    rmdir(dir);
    json_decref(root);
    assert_true(rendered > 0);
    print_message("%u models: coverage %.1f-%.1f %%\n", rendered, lo * 100.0, hi * 100.0);
    assert_int_equal(badly_framed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_manifest_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
