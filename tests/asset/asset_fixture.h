/* A project on disk for the asset-runtime tests: a temporary folder with a
 * model copied in from ../shared/testdata, a memory manager, a job system,
 * a watched VFS, a registry, a coordinator and a manager. Header-only so
 * each test program stays one file plus this. */
#ifndef ZE_TEST_ASSET_FIXTURE_H
#define ZE_TEST_ASSET_FIXTURE_H
/* Users define _GNU_SOURCE before their first include (nftw). */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/asset.h"
#include "zengine/cook.h"

#define ZE_MAYBE_UNUSED __attribute__((unused))

/* A hang deadline, not a latency bound (reloads typically take 60-150 ms;
 * the latency is printed, and measured by bench/, never asserted). */
enum { FIX_RELOAD_DEADLINE_MS = 30000 };

typedef struct fix_ready_t {
    ze_uuid_t uuid;
    ze_asset_type type;
    uint32_t generation;
    uint64_t time_ns;
} fix_ready_t;

typedef struct fixture_t {
    char tmp[64];
    char root[128];
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    ze_vfs_t *vfs;
    ze_asset_registry_t *reg;
    ze_import_coordinator_t *ic;
    ze_asset_manager_t *am;
    fix_ready_t ready[256];
    uint32_t ready_count;
    ze_uuid_t released[256]; /* on_asset_released, in order */
    uint32_t released_count;
    ze_diag_capture_t diag; /* the coordinator's reports (passed on to the log) */
} fixture_t;

ZE_MAYBE_UNUSED static int fix_rm_entry(const char *path, const struct stat *st, int flag,
                                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

ZE_MAYBE_UNUSED static void fix_on_ready(void *user, const ze_asset_data_t *data)
{
    fixture_t *f = user;
    if (f->ready_count < 256)
        f->ready[f->ready_count++] =
            (fix_ready_t){data->uuid, data->type, data->generation, ze_time_now_ns()};
}

ZE_MAYBE_UNUSED static void fix_on_released(void *user, ze_uuid_t uuid, ze_asset_type type)
{
    fixture_t *f = user;
    (void)type;
    if (f->released_count < 256)
        f->released[f->released_count++] = uuid;
}

ZE_MAYBE_UNUSED static bool fix_read_host(const char *path, uint8_t **data, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    *data = ze_mem_sys_alloc((size_t)n + 1);
    *size = fread(*data, 1, (size_t)n, fp);
    fclose(fp);
    return *size == (size_t)n;
}

/* Write a project file the way an editor would (in place, not renamed). */
ZE_MAYBE_UNUSED static void fix_write(const fixture_t *f, const char *rel, const void *data,
                                      size_t size)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", f->root, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        fail_msg("cannot write %s", p);
    close(fd);
}

ZE_MAYBE_UNUSED static void fix_copy(const fixture_t *f, const char *from_testdata, const char *rel)
{
    char src[512];
    snprintf(src, sizeof src, "%s/assets/%s", ZE_TESTDATA_DIR, from_testdata);
    uint8_t *d = NULL;
    size_t n = 0;
    if (!fix_read_host(src, &d, &n))
        fail_msg("cannot read %s", src);
    fix_write(f, rel, d, n);
    ze_mem_sys_free(d);
}

ZE_MAYBE_UNUSED static bool fix_testdata_present(void)
{
    struct stat st;
    return stat(ZE_TESTDATA_DIR "/assets/manifest.json", &st) == 0;
}

/* BoxTextured: a .gltf with an external .bin and a .png. */
ZE_MAYBE_UNUSED static void fix_add_box(const fixture_t *f)
{
    char p[256];
    snprintf(p, sizeof p, "%s/models", f->root);
    mkdir(p, 0755);
    fix_copy(f, "gltf/BoxTextured/glTF/BoxTextured.gltf", "models/BoxTextured.gltf");
    fix_copy(f, "gltf/BoxTextured/glTF/BoxTextured0.bin", "models/BoxTextured0.bin");
    fix_copy(f, "gltf/BoxTextured/glTF/CesiumLogoFlat.png", "models/CesiumLogoFlat.png");
}

typedef struct fix_desc_t {
    ze_import_mode mode;
    const char *cooker;
    uint32_t timeout_ms;
    uint64_t memory_limit;
    uint64_t budget;
    uint32_t max_running;
} fix_desc_t;

ZE_MAYBE_UNUSED static void fix_open_runtime(fixture_t *f, const fix_desc_t *d)
{
    assert_int_equal(
        ze_asset_registry_create(
            &(ze_asset_registry_desc_t){.alloc = ze_mem_owner_allocator(f->mm, ZE_MEM_OWNER_ASSET)},
            &f->reg),
        ZE_OK);
    ze_import_coordinator_desc_t cd = {.mem = f->mm,
                                       .vfs = f->vfs,
                                       .registry = f->reg,
                                       .jobs = f->jobs,
                                       .mode = d->mode,
                                       .in_process_cook = ze_asset_cook,
                                       .cooker = d->cooker,
                                       .timeout_ms = d->timeout_ms,
                                       .memory_limit = d->memory_limit,
                                       .max_running = d->max_running,
                                       .watch = true,
                                       .diag = ze_diag_capture_sink(&f->diag)};
    assert_int_equal(ze_import_coordinator_create(&cd, &f->ic), ZE_OK);
    ze_asset_manager_desc_t md = {.mem = f->mm,
                                  .vfs = f->vfs,
                                  .registry = f->reg,
                                  .imports = f->ic,
                                  .jobs = f->jobs,
                                  .budget = d->budget,
                                  .on_asset_ready = fix_on_ready,
                                  .on_asset_released = fix_on_released,
                                  .user = f};
    assert_int_equal(ze_asset_manager_create(&md, &f->am), ZE_OK);
}

ZE_MAYBE_UNUSED static void fix_close_runtime(fixture_t *f)
{
    ze_asset_manager_destroy(f->am);
    ze_import_coordinator_destroy(f->ic);
    ze_asset_registry_destroy(f->reg);
    f->am = NULL;
    f->ic = NULL;
    f->reg = NULL;
}

ZE_MAYBE_UNUSED static fixture_t *fix_create(const fix_desc_t *d)
{
    fixture_t *f = ze_mem_sys_alloc(sizeof *f);
    memset(f, 0, sizeof *f);
    snprintf(f->tmp, sizeof f->tmp, "/tmp/zeasset-XXXXXX");
    if (!mkdtemp(f->tmp))
        fail_msg("mkdtemp");
    snprintf(f->root, sizeof f->root, "%s/project", f->tmp);
    mkdir(f->root, 0755);
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &f->mm), ZE_OK);
    assert_int_equal(
        ze_job_system_create(&(ze_job_system_desc_t){.mem = f->mm, .worker_count = 2}, &f->jobs),
        ZE_OK);
    fix_add_box(f);
    f->diag.pass_on = true; /* forward {0}: the log */
    ze_vfs_desc_t vd = {.mem = f->mm,
                        .jobs = f->jobs,
                        .project_root = f->root,
                        .no_engine_mount = true,
                        .watch = true,
                        .debounce_ms = 50};
    assert_int_equal(ze_vfs_create(&vd, &f->vfs), ZE_OK);
    fix_open_runtime(f, d);
    return f;
}

ZE_MAYBE_UNUSED static void fix_destroy(fixture_t *f)
{
    fix_close_runtime(f);
    ze_vfs_destroy(f->vfs);
    ze_job_system_destroy(f->jobs);
    ze_mem_destroy(f->mm);
    nftw(f->tmp, fix_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    ze_mem_sys_free(f);
}

/* One frame of the engine's main loop, as far as assets go. */
ZE_MAYBE_UNUSED static void fix_frame(fixture_t *f)
{
    ze_vfs_tick(f->vfs);
    ze_import_coordinator_tick(f->ic);
    ze_asset_manager_tick(f->am);
    usleep(2000);
}

ZE_MAYBE_UNUSED static ze_asset_state fix_state(const fixture_t *f, ze_uuid_t u)
{
    ze_asset_info_t info;
    assert_true(ze_asset_registry_get(f->reg, u, &info));
    return info.state;
}

/* Frames until `pred` holds or `ms` pass; `ok` tells which. */
#define FIX_UNTIL(f, ms, pred, ok)                                           \
    do {                                                                     \
        uint64_t fix_deadline_ = ze_time_now_ns() + (uint64_t)(ms)*1000000u; \
        while (!((ok) = (pred)) && ze_time_now_ns() < fix_deadline_)         \
            fix_frame(f);                                                    \
    } while (0)

#endif
