/* Shaders through the VFS (issue "Render graph and GPU-driven scenes"): a
 * backend made without a VFS loads its SPIR-V from the asset root on disk;
 * once a VFS is attached (ze_render_backend_use_cache, what the engine's
 * pso_cache stage does) the pipelines are rebuilt from
 * /ZodiacEngine/shaders of that VFS. Shown with a VFS whose engine root is
 * a copy of the packaged shaders: intact, the frame renders with zero
 * validation messages; with one shader corrupted in the copy only, the
 * attach fails naming it. Lavapipe in CI, validation on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/gfx.h"
#include "zengine/vfs.h"

#ifndef ZE_TEST_ENGINE_ASSET_DIR
#error "ZE_TEST_ENGINE_ASSET_DIR must be defined"
#endif

typedef struct fixture_t {
    ze_mem_t *mm;
    char root[256];    /* the copy: <root>/shaders/<name>.spv */
    char shaders[300]; /* <root>/shaders */
} fixture_t;

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok;
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    snprintf(f.root, sizeof f.root, "/tmp/ze_shader_vfs_XXXXXX");
    if (!mkdtemp(f.root))
        return -1;
    snprintf(f.shaders, sizeof f.shaders, "%s/shaders", f.root);
    if (mkdir(f.shaders, 0755) != 0)
        return -1;
    DIR *d = opendir(ZE_TEST_ENGINE_ASSET_DIR "/shaders");
    if (!d)
        return -1;
    struct dirent *e;
    int copied = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".spv") != 0)
            continue;
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/shaders/%s", ZE_TEST_ENGINE_ASSET_DIR, e->d_name);
        snprintf(to, sizeof to, "%s/%s", f.shaders, e->d_name);
        if (!copy_file(from, to))
            return -1;
        copied++;
    }
    closedir(d);
    *state = &f;
    return copied > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    DIR *d = opendir(f->shaders);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", f->shaders, e->d_name);
        if (e->d_name[0] != '.')
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(f->shaders);
    rmdir(f->root);
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

static ze_vfs_t *vfs_over_copy(fixture_t *f)
{
    ze_vfs_t *vfs = NULL;
    ze_vfs_desc_t d = {.mem = f->mm, .engine_root = f->root, .require_engine_assets = true};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    assert_true(ze_vfs_exists(vfs, "/ZodiacEngine/shaders/cull_occlusion.comp.spv"));
    return vfs;
}

static ze_render_backend_t *make(fixture_t *f)
{
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = 64, .height = 48};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    return b;
}

static void test_pipelines_rebuilt_from_the_vfs(void **state)
{
    fixture_t *f = *state;
    ze_vfs_t *vfs = vfs_over_copy(f);
    ze_render_backend_t *b = make(f);
    assert_int_equal(ze_render_backend_use_cache(b, vfs), ZE_OK);
    ze_render_state_t s = {.frame = 1, .width = 64, .height = 48};
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.frames, 1);
    assert_int_equal(st.validation_messages, 0);
    assert_int_equal(ze_render_backend_use_cache(b, NULL), ZE_OK); /* detach before the VFS goes */
    ze_render_backend_destroy(b);
    ze_vfs_destroy(vfs);
}

static void test_a_corrupt_shader_in_the_vfs_fails_the_attach(void **state)
{
    fixture_t *f = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/cull_occlusion.comp.spv", f->shaders);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    fputs("not SPIR-V at all", out); /* 17 bytes: not even a multiple of 4 */
    assert_int_equal(fclose(out), 0);
    ze_vfs_t *vfs = vfs_over_copy(f);
    ze_render_backend_t *b = make(f); /* the host asset root's shaders are intact */
    ze_result r = ze_render_backend_use_cache(b, vfs);
    print_message("attach with a corrupt /ZodiacEngine/shaders/cull_occlusion.comp.spv: %s\n",
                  ze_result_str(r));
    assert_int_equal(r, ZE_ERR_PARSE);
    ze_render_backend_destroy(b);
    ze_vfs_destroy(vfs);
    /* the copy restored, the same attach succeeds */
    char from[512];
    snprintf(from, sizeof from, "%s/shaders/cull_occlusion.comp.spv", ZE_TEST_ENGINE_ASSET_DIR);
    assert_true(copy_file(from, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipelines_rebuilt_from_the_vfs),
        cmocka_unit_test(test_a_corrupt_shader_in_the_vfs_fails_the_attach),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
