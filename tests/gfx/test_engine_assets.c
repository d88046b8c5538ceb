/* The packaged engine assets (cmake/ZeShaders.cmake): a VFS created with
 * require_engine_assets and no engine_root finds bin/ZodiacEngine beside this
 * program (ZENGINE_ASSET_ROOT unset) or through ZENGINE_ASSET_ROOT, and every
 * shader the build compiled (ZE_TEST_SHADER_SPV, comma-separated names) reads
 * back through /ZodiacEngine/shaders/ as SPIR-V: magic 0x07230203, whole
 * words, at least the five-word header. Every other .spv in that folder too.
 * The UI font, when fonts-dejavu was there at build time, is a TrueType
 * file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/vfs.h"

#ifndef ZE_TEST_ENGINE_ASSET_DIR
#error "ZE_TEST_ENGINE_ASSET_DIR: set by tests/gfx/CMakeLists.txt"
#endif

enum { SPIRV_MAGIC = 0x07230203 };

typedef struct world_t {
    ze_mem_t *mm;
    ze_vfs_t *vfs;
} world_t;

static ze_vfs_t *open_vfs(world_t *w)
{
    ze_vfs_desc_t d = {.mem = w->mm, .require_engine_assets = true};
    assert_int_equal(ze_vfs_create(&d, &w->vfs), ZE_OK);
    return w->vfs;
}

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world_t *w = *state;
    if (w->vfs)
        ze_vfs_destroy(w->vfs);
    ze_mem_destroy(w->mm);
    ze_mem_sys_free(w);
    ze_log_reset();
    unsetenv("ZENGINE_ASSET_ROOT");
    return 0;
}

static void expect_spirv(ze_vfs_t *vfs, const char *name)
{
    char path[ZE_PATH_CAPACITY];
    snprintf(path, sizeof path, "/ZodiacEngine/shaders/%s", name);
    ze_vfs_buffer_t b;
    ze_result e = ze_vfs_read_file(vfs, path, (ze_allocator_t){0}, &b);
    if (e)
        fail_msg("read %s: %s", path, ze_result_str(e));
    if (b.size < 20 || b.size % 4 != 0)
        fail_msg("%s: %zu bytes is not a SPIR-V module", path, b.size);
    uint32_t magic;
    memcpy(&magic, b.data, 4);
    if (magic != SPIRV_MAGIC)
        fail_msg("%s: magic 0x%08x, want 0x%08x", path, magic, SPIRV_MAGIC);
    ze_vfs_buffer_free(&b);
}

/* Every name of ZE_TEST_SHADER_SPV; returns how many. */
static uint32_t expect_built_shaders(ze_vfs_t *vfs)
{
    const char *list = ZE_TEST_SHADER_SPV;
    uint32_t n = 0;
    while (*list) {
        const char *comma = strchr(list, ',');
        size_t len = comma ? (size_t)(comma - list) : strlen(list);
        char name[256];
        assert_true(len > 0 && len < sizeof name);
        memcpy(name, list, len);
        name[len] = '\0';
        expect_spirv(vfs, name);
        n++;
        list += len + (comma ? 1 : 0);
    }
    return n;
}

typedef struct listing_t {
    ze_vfs_t *vfs;
    uint32_t spv;
} listing_t;

static bool on_entry(void *user, const ze_vfs_dirent_t *entry)
{
    listing_t *l = user;
    if (entry->name_len > 4 && strcmp(entry->name + entry->name_len - 4, ".spv") == 0) {
        expect_spirv(l->vfs, entry->name);
        l->spv++;
    }
    return true;
}

static void test_beside_the_executable(void **state)
{
    world_t *w = *state;
    unsetenv("ZENGINE_ASSET_ROOT");
    ze_vfs_t *vfs = open_vfs(w);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(vfs, "/ZodiacEngine/shaders", &st), ZE_OK);
    assert_true(st.is_dir);
    assert_true(st.read_only);
    /* The mount is the build's folder, found from /proc/self/exe. */
    char host[PATH_MAX], want[PATH_MAX], got[PATH_MAX];
    assert_int_equal(ze_vfs_host_path(vfs, "/ZodiacEngine/shaders", host, sizeof host), ZE_OK);
    assert_non_null(realpath(host, got));
    assert_non_null(realpath(ZE_TEST_ENGINE_ASSET_DIR "/shaders", want));
    assert_string_equal(got, want);

    uint32_t built = expect_built_shaders(vfs);
    listing_t l = {vfs, 0};
    assert_int_equal(ze_vfs_list(vfs, "/ZodiacEngine/shaders", on_entry, &l), ZE_OK);
    assert_true(l.spv >= built); /* stale outputs of removed shaders may linger */
    print_message("%u shaders built, %u .spv in /ZodiacEngine/shaders\n", built, l.spv);
    if (built == 0)
        skip(); /* src/gfx/shaders/ holds no shader yet */
}

static void test_asset_root_variable(void **state)
{
    world_t *w = *state;
    assert_int_equal(setenv("ZENGINE_ASSET_ROOT", ZE_TEST_ENGINE_ASSET_DIR, 1), 0);
    ze_vfs_t *vfs = open_vfs(w);
    expect_built_shaders(vfs);
}

static void test_missing_root_fails(void **state)
{
    world_t *w = *state;
    assert_int_equal(setenv("ZENGINE_ASSET_ROOT", ZE_TEST_ENGINE_ASSET_DIR "/no-such-dir", 1), 0);
    ze_vfs_desc_t d = {.mem = w->mm, .require_engine_assets = true};
    assert_int_equal(ze_vfs_create(&d, &w->vfs), ZE_ERR_NOT_FOUND);
    assert_null(w->vfs);
}

static void test_font(void **state)
{
    world_t *w = *state;
    const char *font = ZE_TEST_ENGINE_FONT;
    if (!font[0]) {
        print_message("fonts-dejavu not installed at build time: no packaged font\n");
        skip();
    }
    unsetenv("ZENGINE_ASSET_ROOT");
    ze_vfs_t *vfs = open_vfs(w);
    ze_vfs_buffer_t b;
    assert_int_equal(
        ze_vfs_read_file(vfs, "/ZodiacEngine/fonts/DejaVuSans.ttf", (ze_allocator_t){0}, &b),
        ZE_OK);
    assert_true(b.size > 12);
    static const uint8_t sfnt[4] = {0, 1, 0, 0}; /* TrueType outlines */
    assert_memory_equal(b.data, sfnt, 4);
    ze_vfs_buffer_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_beside_the_executable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asset_root_variable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_root_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_font, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
