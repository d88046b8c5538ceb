/* Mounts and backends through the VFS: priority and fall-through, writes to
 * the highest writable mount, read-only mounts, opaque mounts, the memory
 * backend, listing across mounts, streamed reads, and the standard mounts
 * (/ZodiacEngine from the desc or ZENGINE_ASSET_ROOT, /, /cache enabled or
 * not). Host files live in a fresh mkdtemp directory that is removed. */
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

#include "zengine/vfs.h"

/* ------------------------------------------------------------- host files */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void host_write(const char *dir, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void host_mkdir(const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

static bool host_exists(const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ------------------------------------------------------------------ world */

typedef struct world_t {
    ze_mem_t *mm;
    ze_vfs_t *vfs;
    char tmp[64];
    char a[128], b[128]; /* two host roots */
} world_t;

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    snprintf(w->tmp, sizeof w->tmp, "/tmp/zevfs-mount-XXXXXX");
    if (!mkdtemp(w->tmp))
        return -1;
    snprintf(w->a, sizeof w->a, "%s/a", w->tmp);
    snprintf(w->b, sizeof w->b, "%s/b", w->tmp);
    mkdir(w->a, 0755);
    mkdir(w->b, 0755);
    ze_vfs_desc_t d = {.mem = w->mm, .no_engine_mount = true};
    if (ze_vfs_create(&d, &w->vfs) != ZE_OK)
        return -1;
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world_t *w = *state;
    ze_vfs_destroy(w->vfs);
    ze_mem_destroy(w->mm);
    rm_tree(w->tmp);
    ze_mem_sys_free(w);
    ze_log_reset();
    return 0;
}

static ze_vfs_mount_id_t mount_disk(world_t *w, const char *point, const char *host, int prio,
                                    bool ro)
{
    ze_vfs_mount_id_t id = {0};
    ze_vfs_mount_desc_t d = {.point = point,
                             .backend = ZE_VFS_BACKEND_DISK,
                             .host_root = host,
                             .priority = prio,
                             .read_only = ro};
    assert_int_equal(ze_vfs_mount(w->vfs, &d, &id), ZE_OK);
    assert_true(id.id != 0);
    return id;
}

static void expect_content(ze_vfs_t *vfs, const char *path, const char *want)
{
    ze_vfs_buffer_t b;
    ze_result e = ze_vfs_read_file(vfs, path, (ze_allocator_t){0}, &b);
    if (e)
        fail_msg("read '%s': %s", path, ze_result_str(e));
    assert_int_equal(b.size, strlen(want));
    assert_string_equal((const char *)b.data, want); /* NUL-terminated */
    ze_vfs_buffer_free(&b);
}

/* ------------------------------------------------------------------ tests */

static void test_priority_and_fall_through(void **state)
{
    world_t *w = *state;
    host_write(w->a, "both.txt", "from a");
    host_write(w->b, "both.txt", "from b");
    host_write(w->b, "only_b.txt", "only b");
    mount_disk(w, "/data", w->a, 5, false);
    ze_vfs_mount_id_t low = mount_disk(w, "/data", w->b, 1, false);
    expect_content(w->vfs, "/data/both.txt", "from a");   /* highest first */
    expect_content(w->vfs, "/data/only_b.txt", "only b"); /* falls through */
    ze_vfs_buffer_t b;
    assert_int_equal(ze_vfs_read_file(w->vfs, "/data/none", (ze_allocator_t){0}, &b),
                     ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_read_file(w->vfs, "/elsewhere/x", (ze_allocator_t){0}, &b),
                     ZE_ERR_NOT_FOUND);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(w->vfs, "/data/only_b.txt", &st), ZE_OK);
    assert_int_equal(st.size, 6);
    assert_false(st.is_dir);
    assert_int_equal(st.mount.id, low.id);
    /* Mounts are listed in resolution order. */
    ze_vfs_mount_info_t info[8];
    uint32_t n = ze_vfs_mount_list(w->vfs, info, 8);
    assert_true(n >= 3); /* + the /cache stand-in */
    assert_string_equal(info[0].point, "/data");
    assert_int_equal(info[0].priority, 5);
    assert_string_equal(info[0].host_root, w->a);
    assert_int_equal(info[1].priority, 1);
    /* Unmounting the high one exposes the low one. */
    assert_int_equal(ze_vfs_unmount(w->vfs, info[0].id), ZE_OK);
    expect_content(w->vfs, "/data/both.txt", "from b");
    assert_int_equal(ze_vfs_unmount(w->vfs, info[0].id), ZE_ERR_NOT_FOUND); /* stale */
}

static void test_equal_priority_prefers_deeper_then_newer(void **state)
{
    world_t *w = *state;
    host_write(w->a, "x.txt", "root a");
    host_mkdir(w->a, "sub");
    host_write(w->a, "sub/x.txt", "sub of a");
    host_write(w->b, "x.txt", "b at /sub");
    mount_disk(w, "/", w->a, 0, false);
    mount_disk(w, "/sub", w->b, 0, false);
    expect_content(w->vfs, "/sub/x.txt", "b at /sub"); /* the deeper point wins a tie */
    expect_content(w->vfs, "/x.txt", "root a");
    ze_vfs_mount_id_t newer = mount_disk(w, "/", w->b, 0, false);
    expect_content(w->vfs, "/x.txt", "b at /sub"); /* same point: the newer mount */
    ze_vfs_unmount(w->vfs, newer);
    expect_content(w->vfs, "/x.txt", "root a");
}

static void test_writes_go_to_highest_writable(void **state)
{
    world_t *w = *state;
    mount_disk(w, "/", w->a, 10, true); /* read-only, highest */
    mount_disk(w, "/", w->b, 0, false);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/new.txt", "hello", 5), ZE_OK);
    assert_true(host_exists(w->b, "new.txt"));
    assert_false(host_exists(w->a, "new.txt"));
    expect_content(w->vfs, "/new.txt", "hello");
    /* A file only on the read-only mount cannot be deleted or renamed. */
    host_write(w->a, "ro.txt", "ro");
    assert_int_equal(ze_vfs_delete(w->vfs, "/ro.txt"), ZE_ERR_READ_ONLY);
    assert_int_equal(ze_vfs_rename(w->vfs, "/ro.txt", "/moved.txt"), ZE_ERR_READ_ONLY);
    assert_true(host_exists(w->a, "ro.txt"));
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(w->vfs, "/ro.txt", &st), ZE_OK);
    assert_true(st.read_only);
    /* Overwriting a file that the read-only mount shadows writes below it,
     * and the read still sees the shadowing copy. */
    assert_int_equal(ze_vfs_write_file(w->vfs, "/ro.txt", "rw", 2), ZE_OK);
    expect_content(w->vfs, "/ro.txt", "ro");
    assert_true(host_exists(w->b, "ro.txt"));
}

static void test_read_only_only(void **state)
{
    world_t *w = *state;
    mount_disk(w, "/", w->a, 0, true);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/x", "1", 1), ZE_ERR_READ_ONLY);
    assert_int_equal(ze_vfs_mkdir(w->vfs, "/d"), ZE_ERR_READ_ONLY);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/d/e"), ZE_ERR_READ_ONLY);
    assert_false(host_exists(w->a, "x"));
    assert_false(host_exists(w->a, "d"));
    /* And no mount at all for a path. */
    assert_int_equal(ze_vfs_unmount(w->vfs, (ze_vfs_mount_id_t){0}), ZE_ERR_NOT_FOUND);
}

static void test_opaque_mount(void **state)
{
    world_t *w = *state;
    host_mkdir(w->a, "gen");
    host_write(w->a, "gen/under_root.txt", "project");
    mount_disk(w, "/", w->a, 0, false);
    ze_vfs_mount_desc_t d = {.point = "/gen", .backend = ZE_VFS_BACKEND_MEMORY, .opaque = true};
    assert_int_equal(ze_vfs_mount(w->vfs, &d, NULL), ZE_OK);
    ze_vfs_buffer_t b;
    assert_int_equal(ze_vfs_read_file(w->vfs, "/gen/under_root.txt", (ze_allocator_t){0}, &b),
                     ZE_ERR_NOT_FOUND); /* never falls through to "/" */
    assert_int_equal(ze_vfs_write_file(w->vfs, "/gen/out.bin", "abc", 3), ZE_OK);
    assert_false(host_exists(w->a, "gen/out.bin"));
    expect_content(w->vfs, "/gen/out.bin", "abc");
}

typedef struct names_t {
    char names[32][64];
    bool dirs[32];
    uint32_t n;
} names_t;

static bool collect_names(void *user, const ze_vfs_dirent_t *e)
{
    names_t *n = user;
    assert_true(n->n < 32);
    snprintf(n->names[n->n], sizeof n->names[0], "%s", e->name);
    assert_int_equal(strlen(e->name), e->name_len);
    n->dirs[n->n] = e->stat.is_dir;
    n->n++;
    return true;
}

static void test_listing_merges_mounts(void **state)
{
    world_t *w = *state;
    host_write(w->a, "b.txt", "a's b");
    host_write(w->a, "a.txt", "a");
    host_mkdir(w->a, "dir");
    host_write(w->b, "b.txt", "b's b (hidden by a)");
    host_write(w->b, "c.txt", "c");
    mount_disk(w, "/", w->a, 1, false);
    mount_disk(w, "/", w->b, 0, false);
    ze_vfs_mount_desc_t d = {.point = "/virtual/deep", .backend = ZE_VFS_BACKEND_MEMORY};
    assert_int_equal(ze_vfs_mount(w->vfs, &d, NULL), ZE_OK);
    names_t n = {0};
    assert_int_equal(ze_vfs_list(w->vfs, "/", collect_names, &n), ZE_OK);
    /* Sorted, deduplicated, with mount points (cache, virtual) as dirs. */
    const char *want[] = {"a.txt", "b.txt", "c.txt", "cache", "dir", "virtual"};
    assert_int_equal(n.n, ZE_COUNTOF(want));
    for (uint32_t i = 0; i < n.n; i++)
        assert_string_equal(n.names[i], want[i]);
    assert_true(n.dirs[3] && n.dirs[4] && n.dirs[5]);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(w->vfs, "/virtual", &st), ZE_OK);
    assert_true(st.is_dir);
    names_t v = {0};
    assert_int_equal(ze_vfs_list(w->vfs, "/virtual", collect_names, &v), ZE_OK);
    assert_int_equal(v.n, 1);
    assert_string_equal(v.names[0], "deep");
    names_t none = {0};
    assert_int_equal(ze_vfs_list(w->vfs, "/nope", collect_names, &none), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_list(w->vfs, "/a.txt", collect_names, &none), ZE_ERR_NOT_DIR);
}

static void test_memory_backend(void **state)
{
    world_t *w = *state;
    ze_vfs_mount_desc_t d = {.point = "/mem"};
    ze_vfs_mount_id_t id;
    assert_int_equal(ze_vfs_mount(w->vfs, &d, &id), ZE_OK);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a/x.txt", "x", 1), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/mem/a/b/c"), ZE_OK);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/mem/a/b/c"), ZE_OK);
    assert_int_equal(ze_vfs_mkdir(w->vfs, "/mem/a"), ZE_ERR_EXISTS);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a/x.txt", "first", 5), ZE_OK);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a/x.txt", "second!", 7), ZE_OK);
    expect_content(w->vfs, "/mem/a/x.txt", "second!");
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a/x.txt/y", "no", 2), ZE_ERR_NOT_DIR);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a", "no", 2), ZE_ERR_IS_DIR);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/empty", NULL, 0), ZE_OK);
    expect_content(w->vfs, "/mem/empty", "");
    /* An open file keeps the content it opened. */
    ze_vfs_file_t *f;
    assert_int_equal(ze_vfs_open(w->vfs, "/mem/a/x.txt", &f), ZE_OK);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/a/x.txt", "third", 5), ZE_OK);
    char buf[16] = {0};
    size_t got;
    assert_int_equal(ze_vfs_file_read(f, buf, sizeof buf, &got), ZE_OK);
    assert_int_equal(got, 7);
    assert_memory_equal(buf, "second!", 7);
    ze_vfs_file_close(f);
    /* Delete, rename, directories. */
    assert_int_equal(ze_vfs_delete(w->vfs, "/mem/a"), ZE_ERR_NOT_EMPTY);
    assert_int_equal(ze_vfs_rename(w->vfs, "/mem/a", "/mem/z"), ZE_OK);
    expect_content(w->vfs, "/mem/z/x.txt", "third");
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(w->vfs, "/mem/z/b/c", &st), ZE_OK);
    assert_true(st.is_dir);
    assert_int_equal(ze_vfs_stat(w->vfs, "/mem/a/x.txt", &st), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_delete(w->vfs, "/mem/z/x.txt"), ZE_OK);
    assert_int_equal(ze_vfs_delete(w->vfs, "/mem/z/x.txt"), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_delete(w->vfs, "/mem/z/b/c"), ZE_OK);
    names_t n = {0};
    assert_int_equal(ze_vfs_list(w->vfs, "/mem", collect_names, &n), ZE_OK);
    assert_int_equal(n.n, 2);
    assert_string_equal(n.names[0], "empty");
    assert_string_equal(n.names[1], "z");
    assert_int_equal(ze_vfs_unmount(w->vfs, id), ZE_OK);
}

static void test_streamed_read_and_seek(void **state)
{
    world_t *w = *state;
    char big[10000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    mount_disk(w, "/", w->a, 0, false);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/big.bin", big, sizeof big), ZE_OK);
    ze_vfs_file_t *f;
    assert_int_equal(ze_vfs_open(w->vfs, "/big.bin", &f), ZE_OK);
    assert_int_equal(ze_vfs_file_size(f), sizeof big);
    char buf[4096];
    size_t got, total = 0;
    do {
        assert_int_equal(ze_vfs_file_read(f, buf, 3000, &got), ZE_OK);
        assert_memory_equal(buf, big + total, got);
        total += got;
    } while (got);
    assert_int_equal(total, sizeof big);
    assert_int_equal(ze_vfs_file_seek(f, -26, ZE_VFS_SEEK_END), ZE_OK);
    assert_int_equal(ze_vfs_file_tell(f), sizeof big - 26);
    assert_int_equal(ze_vfs_file_read(f, buf, sizeof buf, &got), ZE_OK);
    assert_int_equal(got, 26);
    assert_int_equal(ze_vfs_file_seek(f, 52, ZE_VFS_SEEK_SET), ZE_OK);
    assert_int_equal(ze_vfs_file_seek(f, 1, ZE_VFS_SEEK_CUR), ZE_OK);
    assert_int_equal(ze_vfs_file_read(f, buf, 2, &got), ZE_OK);
    assert_memory_equal(buf, "bc", 2);
    assert_int_equal(ze_vfs_file_seek(f, -1000000, ZE_VFS_SEEK_CUR), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_vfs_file_seek(f, 20000, ZE_VFS_SEEK_SET), ZE_OK);
    assert_int_equal(ze_vfs_file_read(f, buf, 10, &got), ZE_OK);
    assert_int_equal(got, 0);
    ze_vfs_file_close(f);
    assert_int_equal(ze_vfs_open(w->vfs, "/", &f), ZE_ERR_IS_DIR);
    assert_int_equal(ze_vfs_open(w->vfs, "/missing", &f), ZE_ERR_NOT_FOUND);
    assert_null(f);
}

static void test_disk_directories_and_rename(void **state)
{
    world_t *w = *state;
    mount_disk(w, "/", w->a, 0, false);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/x/y/z"), ZE_OK);
    assert_true(host_exists(w->a, "x/y/z"));
    assert_int_equal(ze_vfs_mkdir(w->vfs, "/x"), ZE_ERR_EXISTS);
    assert_int_equal(ze_vfs_mkdir(w->vfs, "/q/r"), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/x/y/f.txt", "f", 1), ZE_OK);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/x/y/f.txt/sub"), ZE_ERR_NOT_DIR);
    assert_int_equal(ze_vfs_delete(w->vfs, "/x/y"), ZE_ERR_NOT_EMPTY);
    assert_int_equal(ze_vfs_rename(w->vfs, "/x/y/f.txt", "/x/g.txt"), ZE_OK);
    expect_content(w->vfs, "/x/g.txt", "f");
    assert_int_equal(ze_vfs_rename(w->vfs, "/x/nothing", "/x/h"), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_vfs_delete(w->vfs, "/x/y/z"), ZE_OK);
    assert_int_equal(ze_vfs_delete(w->vfs, "/x/y"), ZE_OK);
    assert_false(host_exists(w->a, "x/y"));
    /* Across mounts is refused. */
    ze_vfs_mount_desc_t d = {.point = "/mem"};
    assert_int_equal(ze_vfs_mount(w->vfs, &d, NULL), ZE_OK);
    assert_int_equal(ze_vfs_rename(w->vfs, "/x/g.txt", "/mem/g.txt"), ZE_ERR_CROSS_MOUNT);
    assert_int_equal(ze_vfs_rename(w->vfs, "/x/g.txt", "/cache/g.txt"), ZE_ERR_CROSS_MOUNT);
    char host[512];
    assert_int_equal(ze_vfs_host_path(w->vfs, "/x/g.txt", host, sizeof host), ZE_OK);
    char want[512];
    snprintf(want, sizeof want, "%s/x/g.txt", w->a);
    assert_string_equal(host, want);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/mem/m", "m", 1), ZE_OK);
    assert_int_equal(ze_vfs_host_path(w->vfs, "/mem/m", host, sizeof host), ZE_ERR_UNSUPPORTED);
    assert_int_equal(ze_vfs_host_path(w->vfs, "/x/g.txt", host, 8), ZE_ERR_TOO_LONG);
}

static void test_bad_paths_rejected_by_operations(void **state)
{
    world_t *w = *state;
    mount_disk(w, "/", w->a, 0, false);
    ze_vfs_stat_t st;
    ze_vfs_buffer_t b;
    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    assert_int_equal(ze_vfs_stat(w->vfs, "/../x", &st), ZE_ERR_PATH_ESCAPE);
    assert_true(ze_log_count(ZE_LOG_WARN) > warns); /* said why */
    assert_int_equal(ze_vfs_read_file(w->vfs, NULL, (ze_allocator_t){0}, &b), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_vfs_write_file(w->vfs, "", "x", 1), ZE_ERR_INVALID_ARG);
    char longp[700];
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    assert_int_equal(ze_vfs_write_file(w->vfs, longp, "x", 1), ZE_ERR_TOO_LONG);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/", "x", 1), ZE_ERR_IS_DIR);
    assert_int_equal(ze_vfs_delete(w->vfs, "/"), ZE_ERR_DENIED);
}

/* ------------------------------------------------------ standard mounts */

static void test_standard_mounts(void **state)
{
    world_t *w = *state;
    host_write(w->b, "engine.txt", "engine asset");
    host_write(w->a, "game.txt", "game asset");
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = w->mm, .project_root = w->a, .engine_root = w->b};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    expect_content(vfs, "/ZodiacEngine/engine.txt", "engine asset");
    expect_content(vfs, "/game.txt", "game asset");
    /* Engine assets are read-only; the project overrides them (priority). */
    assert_int_equal(ze_vfs_mkdirs(vfs, "/ZodiacEngine"), ZE_OK);
    assert_int_equal(ze_vfs_write_file(vfs, "/ZodiacEngine/engine.txt", "override", 8), ZE_OK);
    expect_content(vfs, "/ZodiacEngine/engine.txt", "override");
    assert_true(host_exists(w->a, "ZodiacEngine/engine.txt"));
    char eng[256];
    snprintf(eng, sizeof eng, "%s/engine.txt", w->b);
    FILE *f = fopen(eng, "r");
    char got[32] = {0};
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "engine asset");
    /* /cache is <project>/.zengine/, writable, opaque. */
    assert_true(ze_vfs_cache_enabled(vfs));
    assert_true(host_exists(w->a, ".zengine"));
    assert_int_equal(ze_vfs_mkdirs(vfs, "/cache/pso"), ZE_OK);
    assert_int_equal(ze_vfs_write_file(vfs, "/cache/pso/blob.bin", "pso", 3), ZE_OK);
    assert_true(host_exists(w->a, ".zengine/pso/blob.bin"));
    ze_vfs_mount_info_t info[8];
    uint32_t n = ze_vfs_mount_list(vfs, info, 8);
    assert_int_equal(n, 3);
    assert_string_equal(info[0].point, "/cache"); /* deeper than "/" at priority 0 */
    assert_true(info[0].opaque);
    assert_string_equal(info[1].point, "/");
    assert_string_equal(info[2].point, "/ZodiacEngine");
    assert_int_equal(info[2].priority, -1);
    assert_true(info[2].read_only);
    ze_vfs_destroy(vfs);
}

static void test_engine_root_from_environment(void **state)
{
    world_t *w = *state;
    host_write(w->b, "env.txt", "via env");
    setenv("ZENGINE_ASSET_ROOT", w->b, 1);
    ze_vfs_t *vfs;
    assert_int_equal(ze_vfs_create(&(ze_vfs_desc_t){.mem = w->mm}, &vfs), ZE_OK);
    expect_content(vfs, "/ZodiacEngine/env.txt", "via env");
    ze_vfs_destroy(vfs);
    /* A missing root: a warning and no mount, or an error when required. */
    char missing[256];
    snprintf(missing, sizeof missing, "%s/no-such-dir", w->tmp);
    setenv("ZENGINE_ASSET_ROOT", missing, 1);
    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    assert_int_equal(ze_vfs_create(&(ze_vfs_desc_t){.mem = w->mm}, &vfs), ZE_OK);
    assert_true(ze_log_count(ZE_LOG_WARN) > warns);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(vfs, "/ZodiacEngine", &st), ZE_ERR_NOT_FOUND);
    ze_vfs_destroy(vfs);
    vfs = (ze_vfs_t *)1;
    assert_int_equal(
        ze_vfs_create(&(ze_vfs_desc_t){.mem = w->mm, .require_engine_assets = true}, &vfs),
        ZE_ERR_NOT_FOUND);
    assert_null(vfs);
    unsetenv("ZENGINE_ASSET_ROOT");
    /* A missing project is an error: the caller asked for it. */
    assert_int_equal(
        ze_vfs_create(
            &(ze_vfs_desc_t){.mem = w->mm, .no_engine_mount = true, .project_root = missing}, &vfs),
        ZE_ERR_NOT_FOUND);
}

static void test_cache_disabled_when_read_only(void **state)
{
    world_t *w = *state;
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {
        .mem = w->mm, .no_engine_mount = true, .project_root = w->a, .project_read_only = true};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    assert_false(ze_vfs_cache_enabled(vfs));
    assert_false(host_exists(w->a, ".zengine"));
    assert_int_equal(ze_vfs_write_file(vfs, "/cache/x", "x", 1), ZE_ERR_READ_ONLY);
    assert_int_equal(ze_vfs_write_file(vfs, "/x", "x", 1), ZE_ERR_READ_ONLY);
    assert_false(host_exists(w->a, "cache"));
    ze_vfs_destroy(vfs);
    d.project_read_only = false;
    d.disable_cache = true;
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    assert_false(ze_vfs_cache_enabled(vfs));
    assert_int_equal(ze_vfs_write_file(vfs, "/cache/x", "x", 1), ZE_ERR_READ_ONLY);
    assert_false(host_exists(w->a, "cache"));
    assert_int_equal(ze_vfs_write_file(vfs, "/x", "x", 1), ZE_OK);
    ze_vfs_destroy(vfs);
}

static void test_alloc_budget_reported(void **state)
{
    world_t *w = *state;
    mount_disk(w, "/", w->a, 0, false);
    host_write(w->a, "f", "0123456789");
    ze_mem_fault_fail_owner(w->mm, ZE_MEM_OWNER_GAME, true);
    ze_vfs_buffer_t b;
    assert_int_equal(
        ze_vfs_read_file(w->vfs, "/f", ze_mem_owner_allocator(w->mm, ZE_MEM_OWNER_GAME), &b),
        ZE_ERR_OUT_OF_MEMORY);
    ze_mem_fault_fail_owner(w->mm, ZE_MEM_OWNER_GAME, false);
    assert_int_equal(
        ze_vfs_read_file(w->vfs, "/f", ze_mem_owner_allocator(w->mm, ZE_MEM_OWNER_GAME), &b),
        ZE_OK);
    assert_int_equal(b.size, 10);
    ze_vfs_buffer_free(&b);
    assert_null(b.data);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_priority_and_fall_through),
        T(test_equal_priority_prefers_deeper_then_newer),
        T(test_writes_go_to_highest_writable),
        T(test_read_only_only),
        T(test_opaque_mount),
        T(test_listing_merges_mounts),
        T(test_memory_backend),
        T(test_streamed_read_and_seek),
        T(test_disk_directories_and_rename),
        T(test_bad_paths_rejected_by_operations),
        T(test_standard_mounts),
        T(test_engine_root_from_environment),
        T(test_cache_disabled_when_read_only),
        T(test_alloc_budget_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
