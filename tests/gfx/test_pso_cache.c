/* Pipeline-cache blobs (gfx/pso_cache.h): the header round trip, every
 * rejection (each truncated length, each flipped byte and bit, padding, bad
 * magic, another format version, another vendor/device/driver/cache uuid),
 * and load/save through a VFS over a temporary project: first run
 * (NOT_FOUND), a corrupted file (PARSE, logged, deleted, then NOT_FOUND),
 * bad names, and persistence off (read-only project, disabled cache, no
 * project at all): enabled false, save writes nothing. */
/* nftw (X/Open), for removing the temporary tree. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gfx/pso_cache.h"
#include "zengine/mem.h"

static const ze__pso_device_id_t DEV = {
    .vendor = 0x10de,
    .device = 0x2335,
    .driver = 0x8a5a4000,
    .cache_uuid = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
};

/* ------------------------------------------------------------ log capture */

static char g_last_warn[ZE_LOG_MESSAGE_MAX];
static uint32_t g_warns;

static void capture(void *user, const ze_log_record_t *rec)
{
    (void)user;
    if (rec->level == ZE_LOG_WARN) {
        g_warns++;
        snprintf(g_last_warn, sizeof g_last_warn, "%s", rec->message);
    }
}

/* ------------------------------------------------------------- host files */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static bool host_exists(const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct stat st;
    return lstat(path, &st) == 0;
}

static void host_write(const char *dir, const char *rel, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, size), (ssize_t)size);
    close(fd);
}

/* ------------------------------------------------------------------ world */

typedef struct world_t {
    ze_mem_t *mm;
    ze_vfs_t *vfs; /* over `project`, writable /cache */
    char tmp[64];
    char project[128];
} world_t;

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = capture});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    snprintf(w->tmp, sizeof w->tmp, "/tmp/zepso-XXXXXX");
    if (!mkdtemp(w->tmp))
        return -1;
    snprintf(w->project, sizeof w->project, "%s/project", w->tmp);
    mkdir(w->project, 0755);
    ze_vfs_desc_t d = {.mem = w->mm, .project_root = w->project, .no_engine_mount = true};
    if (ze_vfs_create(&d, &w->vfs) != ZE_OK)
        return -1;
    g_warns = 0;
    g_last_warn[0] = '\0';
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world_t *w = *state;
    if (w->vfs)
        ze_vfs_destroy(w->vfs);
    ze_mem_destroy(w->mm);
    nftw(w->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    ze_mem_sys_free(w);
    ze_log_reset();
    return 0;
}

/* A blob of `n` data bytes (0, 1, 2, ...) from the system allocator. */
static uint8_t *make_blob(const ze__pso_device_id_t *id, size_t n, size_t *size)
{
    uint8_t data[256];
    assert_true(n <= sizeof data);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    uint8_t *blob = NULL;
    assert_int_equal(ze__pso_blob_make(id, data, n, ze_mem_system_allocator(), &blob, size), ZE_OK);
    assert_int_equal(*size, ZE__PSO_HEADER_SIZE + n);
    return blob;
}

static void free_blob(uint8_t *blob, size_t size)
{
    ze_free(ze_mem_system_allocator(), blob, size);
}

static void expect_reject(const void *blob, size_t size, const char *why)
{
    const void *data = (const void *)1;
    size_t data_size = 99;
    char reason[128];
    ze_result r = ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, reason);
    assert_true(r == ZE_ERR_PARSE || r == ZE_ERR_UNSUPPORTED);
    assert_null(data);
    assert_int_equal(data_size, 0);
    if (why && !strstr(reason, why))
        fail_msg("reason '%s' lacks '%s'", reason, why);
}

/* ------------------------------------------------------------ blob tests */

static void test_round_trip(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 200; n += 40) {
        size_t size;
        uint8_t *blob = make_blob(&DEV, n, &size);
        assert_memory_equal(blob, "ZEPSO\0\0\0", 8);
        const void *data;
        size_t data_size;
        char reason[128] = "x";
        assert_int_equal(ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, reason), ZE_OK);
        assert_string_equal(reason, "");
        assert_int_equal(data_size, n);
        assert_ptr_equal(data, blob + ZE__PSO_HEADER_SIZE);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(((const uint8_t *)data)[i], (uint8_t)(i * 7 + 1));
        /* reason is optional */
        assert_int_equal(ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, NULL), ZE_OK);
        free_blob(blob, size);
    }
    /* No data at all: a NULL pointer is fine with size 0. */
    uint8_t *blob;
    size_t size;
    assert_int_equal(ze__pso_blob_make(&DEV, NULL, 0, ze_mem_system_allocator(), &blob, &size),
                     ZE_OK);
    assert_int_equal(size, ZE__PSO_HEADER_SIZE);
    const void *data;
    size_t data_size;
    assert_int_equal(ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, NULL), ZE_OK);
    assert_int_equal(data_size, 0);
    free_blob(blob, size);
}

static void test_truncated_and_padded(void **state)
{
    (void)state;
    size_t size;
    uint8_t *blob = make_blob(&DEV, 48, &size);
    for (size_t n = 0; n < size; n++)
        expect_reject(blob, n, n < ZE__PSO_HEADER_SIZE ? "too short" : "truncated");
    expect_reject(NULL, 0, "too short");
    uint8_t padded[ZE__PSO_HEADER_SIZE + 64];
    memcpy(padded, blob, size);
    padded[size] = 0;
    expect_reject(padded, size + 1, "padded");
    free_blob(blob, size);
}

/* Flip every byte (and every bit) of a small blob: each must be rejected,
 * or (impossible in practice) accepted with the original data. */
static void test_every_flip_rejected(void **state)
{
    (void)state;
    size_t size;
    uint8_t *blob = make_blob(&DEV, 16, &size);
    uint8_t copy[ZE__PSO_HEADER_SIZE + 16];
    uint32_t accepted = 0;
    for (size_t i = 0; i < size; i++) {
        for (int mask = 0; mask <= 8; mask++) {
            memcpy(copy, blob, size);
            copy[i] ^= mask == 8 ? 0xff : (uint8_t)(1u << mask);
            const void *data;
            size_t data_size;
            char reason[128];
            ze_result r = ze__pso_blob_validate(&DEV, copy, size, &data, &data_size, reason);
            if (r == ZE_OK) {
                accepted++;
                assert_int_equal(data_size, 16);
                assert_memory_equal(data, blob + ZE__PSO_HEADER_SIZE, 16);
            } else {
                assert_true(reason[0] != '\0');
            }
        }
    }
    assert_int_equal(accepted, 0);
    /* A flip in the data part reads as corrupt data. */
    memcpy(copy, blob, size);
    copy[ZE__PSO_HEADER_SIZE + 3] ^= 0x10;
    expect_reject(copy, size, "corrupt");
    memcpy(copy, blob, size);
    copy[56] ^= 1;
    expect_reject(copy, size, "corrupt");
    memcpy(copy, blob, size);
    copy[0] = 'X';
    expect_reject(copy, size, "magic");
    free_blob(blob, size);
}

static void test_other_device(void **state)
{
    (void)state;
    ze__pso_device_id_t ids[4] = {DEV, DEV, DEV, DEV};
    ids[0].vendor ^= 1;
    ids[1].device += 1;
    ids[2].driver += 1; /* a driver update */
    ids[3].cache_uuid[15] ^= 0x80;
    for (int i = 0; i < 4; i++) {
        size_t size;
        uint8_t *blob = make_blob(&ids[i], 32, &size);
        const void *data;
        size_t data_size;
        char reason[128];
        assert_int_equal(ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, reason),
                         ZE_ERR_UNSUPPORTED);
        if (!strstr(reason, "written by another device or driver"))
            fail_msg("reason: %s", reason);
        /* ... and accepted by the device that wrote it. */
        assert_int_equal(ze__pso_blob_validate(&ids[i], blob, size, &data, &data_size, NULL),
                         ZE_OK);
        free_blob(blob, size);
    }
}

static void test_other_version(void **state)
{
    (void)state;
    size_t size;
    uint8_t *blob = make_blob(&DEV, 8, &size);
    /* Version 2 with a header checksum that matches it: only the version
     * differs. */
    blob[8] = 2;
    uint64_t h = ze_hash64(blob, 56, 0);
    for (int i = 0; i < 8; i++)
        blob[56 + i] = (uint8_t)(h >> (8 * i));
    const void *data;
    size_t data_size;
    char reason[128];
    assert_int_equal(ze__pso_blob_validate(&DEV, blob, size, &data, &data_size, reason),
                     ZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(reason, "version 2"));
    free_blob(blob, size);
}

/* ------------------------------------------------------------- load / save */

static void test_save_load(void **state)
{
    world_t *w = *state;
    const void *data;
    size_t data_size;
    bool enabled = false;
    ze_vfs_buffer_t buf;
    /* First run: nothing there, quietly. */
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, (ze_allocator_t){0}, &buf, &data,
                                        &data_size, &enabled),
                     ZE_ERR_NOT_FOUND);
    assert_true(enabled);
    assert_null(buf.data);
    assert_int_equal(g_warns, 0);

    uint8_t bytes[1000];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i ^ (i >> 3));
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &DEV, bytes, sizeof bytes), ZE_OK);
    assert_true(host_exists(w->project, ".zengine/pso/pipelines.bin"));
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, (ze_allocator_t){0}, &buf, &data,
                                        &data_size, &enabled),
                     ZE_OK);
    assert_true(enabled);
    assert_int_equal(data_size, sizeof bytes);
    assert_memory_equal(data, bytes, sizeof bytes);
    assert_int_equal(buf.size, ZE__PSO_HEADER_SIZE + sizeof bytes);
    ze_vfs_buffer_free(&buf);

    /* Overwrite (atomic replace) with an empty cache, into a caller's
     * allocator. */
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &DEV, NULL, 0), ZE_OK);
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, ze_mem_system_allocator(), &buf,
                                        &data, &data_size, &enabled),
                     ZE_OK);
    assert_int_equal(data_size, 0);
    ze_vfs_buffer_free(&buf);
    assert_int_equal(g_warns, 0);
}

static void expect_rejected_then_gone(world_t *w, const char *why)
{
    const void *data;
    size_t data_size;
    bool enabled = false;
    ze_vfs_buffer_t buf;
    uint32_t warns = g_warns;
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, (ze_allocator_t){0}, &buf, &data,
                                        &data_size, &enabled),
                     ZE_ERR_PARSE);
    assert_true(enabled);
    assert_null(buf.data);
    assert_null(data);
    assert_int_equal(data_size, 0);
    assert_int_equal(g_warns, warns + 1);
    if (!strstr(g_last_warn, why) || !strstr(g_last_warn, "/cache/pso/pipelines.bin"))
        fail_msg("warning: %s", g_last_warn);
    assert_false(host_exists(w->project, ".zengine/pso/pipelines.bin"));
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, (ze_allocator_t){0}, &buf, &data,
                                        &data_size, &enabled),
                     ZE_ERR_NOT_FOUND);
    assert_int_equal(g_warns, warns + 1); /* once */
}

static void test_load_corrupt_deletes(void **state)
{
    world_t *w = *state;
    uint8_t bytes[64] = {1, 2, 3};
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &DEV, bytes, sizeof bytes), ZE_OK);
    /* Flip a data byte on disk. */
    size_t size;
    uint8_t *blob = make_blob(&DEV, 64, &size);
    blob[size - 1] ^= 0x40;
    host_write(w->project, ".zengine/pso/pipelines.bin", blob, size);
    expect_rejected_then_gone(w, "corrupt");
    /* Truncated on disk. */
    host_write(w->project, ".zengine/pso/pipelines.bin", blob, 20);
    expect_rejected_then_gone(w, "too short");
    free_blob(blob, size);
    /* Written by another driver. */
    ze__pso_device_id_t old = DEV;
    old.driver--;
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &old, bytes, sizeof bytes), ZE_OK);
    expect_rejected_then_gone(w, "written by another device or driver");
}

static void test_bad_names(void **state)
{
    world_t *w = *state;
    const char *bad[] = {"", "Pipelines", "a/b", "../x", "a.b", "a b", "/cache/pso/x", NULL};
    char long_name[ZE__PSO_NAME_MAX + 2];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const void *data;
    size_t data_size;
    bool enabled;
    ze_vfs_buffer_t buf;
    for (int i = 0; i < 8; i++) {
        const char *name = i < 7 ? bad[i] : long_name;
        assert_int_equal(ze__pso_cache_save(w->vfs, name, &DEV, "x", 1), ZE_ERR_INVALID_ARG);
        assert_int_equal(ze__pso_cache_load(w->vfs, name, &DEV, (ze_allocator_t){0}, &buf, &data,
                                            &data_size, &enabled),
                         ZE_ERR_INVALID_ARG);
    }
    assert_int_equal(ze__pso_cache_save(w->vfs, NULL, &DEV, "x", 1), ZE_ERR_INVALID_ARG);
    long_name[ZE__PSO_NAME_MAX] = '\0'; /* the longest allowed */
    assert_int_equal(ze__pso_cache_save(w->vfs, long_name, &DEV, "x", 1), ZE_OK);
    assert_int_equal(ze__pso_cache_save(w->vfs, "a-z_0-9", &DEV, "x", 1), ZE_OK);
    assert_false(host_exists(w->project, ".zengine/pso/Pipelines.bin"));
}

/* Persistence off: load says enabled false (ZE_OK, nothing), save writes
 * nothing and returns ZE_OK, nothing is logged at WARN. */
static void expect_persistence_off(world_t *w, ze_vfs_desc_t d)
{
    ze_vfs_destroy(w->vfs);
    w->vfs = NULL;
    assert_int_equal(ze_vfs_create(&d, &w->vfs), ZE_OK);
    assert_false(ze_vfs_cache_enabled(w->vfs));
    const void *data = (const void *)1;
    size_t data_size = 1;
    bool enabled = true;
    ze_vfs_buffer_t buf;
    assert_int_equal(ze__pso_cache_load(w->vfs, "pipelines", &DEV, (ze_allocator_t){0}, &buf, &data,
                                        &data_size, &enabled),
                     ZE_OK);
    assert_false(enabled);
    assert_null(data);
    assert_int_equal(data_size, 0);
    assert_null(buf.data);
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &DEV, "abc", 3), ZE_OK);
    assert_int_equal(g_warns, 0);
}

static void test_read_only_project(void **state)
{
    world_t *w = *state;
    /* A cache written earlier is not read when the project is read-only. */
    assert_int_equal(ze__pso_cache_save(w->vfs, "pipelines", &DEV, "abc", 3), ZE_OK);
    char p[256];
    snprintf(p, sizeof p, "%s/.zengine/pso/pipelines.bin", w->project);
    assert_int_equal(unlink(p), 0);
    expect_persistence_off(w, (ze_vfs_desc_t){.mem = w->mm,
                                              .project_root = w->project,
                                              .project_read_only = true,
                                              .no_engine_mount = true});
    assert_false(host_exists(w->project, ".zengine/pso/pipelines.bin"));
}

static void test_cache_disabled(void **state)
{
    world_t *w = *state;
    expect_persistence_off(w, (ze_vfs_desc_t){.mem = w->mm,
                                              .project_root = w->project,
                                              .disable_cache = true,
                                              .no_engine_mount = true});
    assert_false(host_exists(w->project, ".zengine/pso"));
}

static void test_no_project(void **state)
{
    world_t *w = *state;
    expect_persistence_off(w, (ze_vfs_desc_t){.mem = w->mm, .no_engine_mount = true});
    assert_false(host_exists(w->project, ".zengine/pso"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated_and_padded),
        cmocka_unit_test(test_every_flip_rejected),
        cmocka_unit_test(test_other_device),
        cmocka_unit_test(test_other_version),
        cmocka_unit_test_setup_teardown(test_save_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_corrupt_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_project, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_disabled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_project, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
