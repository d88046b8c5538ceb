/* The disk backend: confinement (`..`, absolute paths, symlinks out, and
 * symlinked directories inside the root cannot read or write outside it),
 * checked with openat2 and with the fallback walk; atomic writes, including
 * a crash mid-write simulated in-process and by a child killed with SIGKILL,
 * which must leave the old file intact and no temporary file in listings;
 * special files. Everything happens in a fresh mkdtemp directory. */
/* nftw, mkfifo. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vfs/vfs_internal.h"
#include "zengine/vfs.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void host_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void host_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, cap - 1);
    assert_true(n >= 0);
    buf[n] = '\0';
    close(fd);
}

typedef struct world_t {
    ze_mem_t *mm;
    ze_vfs_t *vfs;
    char tmp[64];
    char root[128];
    char outside[128];
    char secret[160];
    /* crash hook */
    int hook_mode; /* 0 none, 1 fail in-process, 2 SIGKILL */
    int hook_calls;
    ze_diag_capture_t diag; /* the VFS's sink */
} world_t;

static bool write_hook(void *user, const char *path, uint64_t written, uint64_t size)
{
    world_t *w = user;
    (void)path;
    w->hook_calls++;
    assert_int_equal(written, size / 2);
    if (w->hook_mode == 2)
        raise(SIGKILL); /* the child dies with half the temporary file written */
    return w->hook_mode != 1;
}

static void pathf(char *out, size_t cap, const char *a, const char *b)
{
    snprintf(out, cap, "%s/%s", a, b);
}

static void make_link(const world_t *w, const char *target, const char *name)
{
    char p[256];
    pathf(p, sizeof p, w->root, name);
    assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    snprintf(w->tmp, sizeof w->tmp, "/tmp/zevfs-disk-XXXXXX");
    if (!mkdtemp(w->tmp))
        return -1;
    pathf(w->root, sizeof w->root, w->tmp, "root");
    pathf(w->outside, sizeof w->outside, w->tmp, "outside");
    pathf(w->secret, sizeof w->secret, w->outside, "secret.txt");
    mkdir(w->root, 0755);
    mkdir(w->outside, 0755);
    host_write(w->secret, "top secret");
    char p[256];
    pathf(p, sizeof p, w->root, "inner");
    mkdir(p, 0755);
    pathf(p, sizeof p, w->root, "inner/real.txt");
    host_write(p, "inside");
    pathf(p, sizeof p, w->root, "sub");
    mkdir(p, 0755);
    make_link(w, "../outside/secret.txt", "link_out");
    make_link(w, w->secret, "abs_link");
    make_link(w, "../outside", "dir_link");
    make_link(w, "/etc", "etc_link");
    make_link(w, "inner", "inner_link");
    make_link(w, "inner/real.txt", "file_link");
    make_link(w, "loop", "loop");
    make_link(w, "..", "sub/up");
    make_link(w, "../..", "sub/up2");
    make_link(w, "up/dir_link", "sub/chain"); /* link to a link that leaves */
    ze_vfs_desc_t d = {.mem = w->mm,
                       .no_engine_mount = true,
                       .project_root = w->root,
                       .disable_cache = true,
                       .diag = ze_diag_capture_sink(&w->diag)};
    if (ze_vfs_create(&d, &w->vfs) != ZE_OK)
        return -1;
    ze__vfs_set_write_hook(w->vfs, write_hook, w);
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

static ze_result read_err(ze_vfs_t *vfs, const char *path)
{
    ze_vfs_buffer_t b;
    ze_result e = ze_vfs_read_file(vfs, path, (ze_allocator_t){0}, &b);
    if (!e)
        ze_vfs_buffer_free(&b);
    return e;
}

static void expect_read(ze_vfs_t *vfs, const char *path, const char *want)
{
    ze_vfs_buffer_t b;
    ze_result e = ze_vfs_read_file(vfs, path, (ze_allocator_t){0}, &b);
    if (e)
        fail_msg("read '%s': %s", path, ze_result_str(e));
    assert_string_equal((const char *)b.data, want);
    ze_vfs_buffer_free(&b);
}

#define EXPECT_ERR(call, want)                                                  \
    do {                                                                        \
        ze_result got_ = (call);                                                \
        if (got_ != (want))                                                     \
            fail_msg("%s: got '%s', expected '%s'", #call, ze_result_str(got_), \
                     ze_result_str(want));                                      \
    } while (0)

typedef struct names_t {
    char all[1024];
} names_t;

static bool collect(void *user, const ze_vfs_dirent_t *e)
{
    names_t *n = user;
    strncat(n->all, e->name, sizeof n->all - strlen(n->all) - 2);
    strncat(n->all, " ", sizeof n->all - strlen(n->all) - 1);
    return true;
}

static void check_confinement(world_t *w)
{
    ze_vfs_t *vfs = w->vfs;
    /* `..` never reaches a backend: the path itself is refused. */
    /* A failing read is reported to the VFS's sink, once, with the
       operation, the path and the reason; the caller gets the code. */
    uint32_t reports = w->diag.count;
    EXPECT_ERR(read_err(vfs, "/../outside/secret.txt"), ZE_ERR_PATH_ESCAPE);
    assert_int_equal(w->diag.count, reports + 1);
    assert_int_equal(w->diag.last_code, ZE_ERR_PATH_ESCAPE);
    if (!strstr(w->diag.last, "vfs: ") || !strstr(w->diag.last, "read: path escapes its root"))
        fail_msg("sink text: '%s'", w->diag.last);
    /* routine outcomes are only returned */
    EXPECT_ERR(read_err(vfs, "/no_such_file.txt"), ZE_ERR_NOT_FOUND);
    assert_int_equal(w->diag.count, reports + 1);
    EXPECT_ERR(read_err(vfs, "/../outside/secret.txt"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/inner/../../outside/secret.txt"), ZE_ERR_PATH_ESCAPE);
    /* Absolute host paths are VFS paths under the root, not host paths. */
    char abs[256];
    snprintf(abs, sizeof abs, "%s", w->secret);
    EXPECT_ERR(read_err(vfs, abs), ZE_ERR_NOT_FOUND);
    EXPECT_ERR(read_err(vfs, "/etc/passwd"), ZE_ERR_NOT_FOUND);
    /* Links that leave the root, at the end or in the middle of a path. */
    EXPECT_ERR(read_err(vfs, "/link_out"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/abs_link"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/dir_link/secret.txt"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/etc_link/passwd"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/sub/up2/outside/secret.txt"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/sub/chain/secret.txt"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(read_err(vfs, "/loop"), ZE_ERR_LOOP);
    ze_vfs_stat_t st;
    EXPECT_ERR(ze_vfs_stat(vfs, "/link_out", &st), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_stat(vfs, "/dir_link", &st), ZE_ERR_PATH_ESCAPE);
    ze_vfs_file_t *f;
    EXPECT_ERR(ze_vfs_open(vfs, "/dir_link/secret.txt", &f), ZE_ERR_PATH_ESCAPE);
    names_t n = {{0}};
    EXPECT_ERR(ze_vfs_list(vfs, "/dir_link", collect, &n), ZE_ERR_PATH_ESCAPE);
    /* Writes through links out of the root. */
    EXPECT_ERR(ze_vfs_write_file(vfs, "/dir_link/planted.txt", "x", 1), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_write_file(vfs, "/sub/up2/outside/planted.txt", "x", 1), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_mkdir(vfs, "/dir_link/newdir"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_mkdirs(vfs, "/etc_link/zengine"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_delete(vfs, "/dir_link/secret.txt"), ZE_ERR_PATH_ESCAPE);
    EXPECT_ERR(ze_vfs_rename(vfs, "/inner/real.txt", "/dir_link/stolen.txt"), ZE_ERR_PATH_ESCAPE);
    char p[256];
    pathf(p, sizeof p, w->outside, "planted.txt");
    assert_int_equal(access(p, F_OK), -1);
    pathf(p, sizeof p, w->outside, "newdir");
    assert_int_equal(access(p, F_OK), -1);
    pathf(p, sizeof p, w->outside, "stolen.txt");
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(access(w->secret, F_OK), 0);
    /* Links that stay inside work, including a symlinked directory. */
    expect_read(vfs, "/inner_link/real.txt", "inside");
    expect_read(vfs, "/file_link", "inside");
    expect_read(vfs, "/sub/up/inner/real.txt", "inside");
    assert_int_equal(ze_vfs_write_file(vfs, "/inner_link/via_link.txt", "ok", 2), ZE_OK);
    expect_read(vfs, "/inner/via_link.txt", "ok");
    assert_int_equal(ze_vfs_delete(vfs, "/inner/via_link.txt"), ZE_OK);
    /* Listings leave out links whose target is outside. */
    memset(&n, 0, sizeof n);
    assert_int_equal(ze_vfs_list(vfs, "/", collect, &n), ZE_OK);
    assert_string_equal(n.all, "cache file_link inner inner_link sub ");
    memset(&n, 0, sizeof n);
    assert_int_equal(ze_vfs_list(vfs, "/sub", collect, &n), ZE_OK);
    assert_string_equal(n.all, "up ");
    /* Writing over a link replaces the link, never its target. */
    char before[64];
    host_read(w->secret, before, sizeof before);
    assert_int_equal(ze_vfs_write_file(vfs, "/abs_link", "replaced", 8), ZE_OK);
    char after[64];
    host_read(w->secret, after, sizeof after);
    assert_string_equal(before, after);
    expect_read(vfs, "/abs_link", "replaced");
    struct stat lst;
    pathf(p, sizeof p, w->root, "abs_link");
    assert_int_equal(lstat(p, &lst), 0);
    assert_true(S_ISREG(lst.st_mode));
}

static void test_confinement_openat2(void **state)
{
    world_t *w = *state;
    check_confinement(w);
}

static void test_confinement_walk(void **state)
{
    world_t *w = *state;
    ze__vfs_force_walk(w->vfs, true);
    check_confinement(w);
}

static void test_walk_matches_openat2_on_plain_paths(void **state)
{
    world_t *w = *state;
    ze__vfs_force_walk(w->vfs, true);
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/a/b/c"), ZE_OK);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/a/b/c/f.txt", "walked", 6), ZE_OK);
    expect_read(w->vfs, "/a/b/c/f.txt", "walked");
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_stat(w->vfs, "/a/b", &st), ZE_OK);
    assert_true(st.is_dir);
    assert_int_equal(ze_vfs_stat(w->vfs, "/", &st), ZE_OK);
    assert_true(st.is_dir);
    EXPECT_ERR(ze_vfs_stat(w->vfs, "/a/b/c/f.txt/x", &st), ZE_ERR_NOT_DIR);
    EXPECT_ERR(ze_vfs_stat(w->vfs, "/a/nope/x", &st), ZE_ERR_NOT_FOUND);
    ze__vfs_force_walk(w->vfs, false);
    expect_read(w->vfs, "/a/b/c/f.txt", "walked");
    EXPECT_ERR(ze_vfs_stat(w->vfs, "/a/b/c/f.txt/x", &st), ZE_ERR_NOT_DIR);
}

static uint32_t count_temp_files(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '^\\.ze-tmp\\.' ", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned n = 0;
    assert_int_equal(fscanf(p, "%u", &n), 1);
    pclose(p);
    return n;
}

static void expect_listing_without_temps(world_t *w)
{
    names_t n = {{0}};
    assert_int_equal(ze_vfs_list(w->vfs, "/inner", collect, &n), ZE_OK);
    assert_string_equal(n.all, "real.txt save.dat ");
}

static void test_atomic_write_replaces(void **state)
{
    world_t *w = *state;
    assert_int_equal(ze_vfs_write_file(w->vfs, "/inner/save.dat", "version 1", 9), ZE_OK);
    expect_read(w->vfs, "/inner/save.dat", "version 1");
    char p[256];
    pathf(p, sizeof p, w->root, "inner/save.dat");
    chmod(p, 0600);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/inner/save.dat", "version 22", 10), ZE_OK);
    expect_read(w->vfs, "/inner/save.dat", "version 22");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* the replaced file's mode is kept */
    assert_int_equal(w->hook_calls, 2);
    pathf(p, sizeof p, w->root, "inner");
    assert_int_equal(count_temp_files(p), 0);
    expect_listing_without_temps(w);
}

static void test_crash_mid_write_in_process(void **state)
{
    world_t *w = *state;
    assert_int_equal(ze_vfs_write_file(w->vfs, "/inner/save.dat", "the old content", 15), ZE_OK);
    w->hook_mode = 1;
    char big[8192];
    memset(big, 'N', sizeof big);
    EXPECT_ERR(ze_vfs_write_file(w->vfs, "/inner/save.dat", big, sizeof big),
               ZE_ERR_FAULT_INJECTED);
    w->hook_mode = 0;
    expect_read(w->vfs, "/inner/save.dat", "the old content");
    char dir[256];
    pathf(dir, sizeof dir, w->root, "inner");
    assert_int_equal(count_temp_files(dir), 1); /* the dead write's litter... */
    expect_listing_without_temps(w);            /* ...is never listed */
    /* A later write succeeds; the litter does not get in its way. */
    assert_int_equal(ze_vfs_write_file(w->vfs, "/inner/save.dat", "new", 3), ZE_OK);
    expect_read(w->vfs, "/inner/save.dat", "new");
}

static void test_crash_mid_write_killed_child(void **state)
{
    world_t *w = *state;
    assert_int_equal(ze_vfs_write_file(w->vfs, "/inner/save.dat", "survives the crash", 18), ZE_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The child: a 1 MiB save, killed once half of it is on disk. */
        static char payload[1 << 20];
        memset(payload, 'X', sizeof payload);
        w->hook_mode = 2;
        ze_vfs_write_file(w->vfs, "/inner/save.dat", payload, sizeof payload);
        _exit(0); /* not reached */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    expect_read(w->vfs, "/inner/save.dat", "survives the crash");
    char dir[256];
    pathf(dir, sizeof dir, w->root, "inner");
    assert_int_equal(count_temp_files(dir), 1);
    expect_listing_without_temps(w);
}

static void test_special_files(void **state)
{
    world_t *w = *state;
    char p[256];
    pathf(p, sizeof p, w->root, "pipe");
    assert_int_equal(mkfifo(p, 0644), 0);
    /* Reading a FIFO must not hang (nobody writes to it). */
    EXPECT_ERR(read_err(w->vfs, "/pipe"), ZE_ERR_UNSUPPORTED);
    ze_vfs_file_t *f;
    EXPECT_ERR(ze_vfs_open(w->vfs, "/pipe", &f), ZE_ERR_UNSUPPORTED);
    EXPECT_ERR(read_err(w->vfs, "/inner"), ZE_ERR_IS_DIR);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_confinement_openat2),
        T(test_confinement_walk),
        T(test_walk_matches_openat2_on_plain_paths),
        T(test_atomic_write_replaces),
        T(test_crash_mid_write_in_process),
        T(test_crash_mid_write_killed_child),
        T(test_special_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
