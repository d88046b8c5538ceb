/* Multi-threaded VFS: the scanner on the job system (results on the owner
 * thread, the content cache, stale entries removed by a rescan, a full
 * scheduler ring spilling into the overflow queue without losing results,
 * destroy during a scan), memory-mount changes made on worker threads and
 * delivered only inside ze_vfs_tick on the owner thread, and readers racing
 * an atomic writer (every read sees one whole version). Run under TSan. */
/* nftw. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/vfs.h"

enum { DIRS = 20, FILES_PER_DIR = 25 };

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

typedef struct world_t {
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    char tmp[64];
    char root[128];
    pthread_t main_thread;
    /* scan callbacks */
    uint32_t entries;
    uint32_t done_calls;
    ze_vfs_scan_stats_t stats;
    bool wrong_thread;
} world_t;

static void make_tree(world_t *w)
{
    char p[512];
    for (int d = 0; d < DIRS; d++) {
        snprintf(p, sizeof p, "%s/dir%02d", w->root, d);
        mkdir(p, 0755);
        for (int f = 0; f < FILES_PER_DIR; f++) {
            snprintf(p, sizeof p, "%s/dir%02d/file%02d.bin", w->root, d, f);
            int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            assert_true(fd >= 0);
            assert_int_equal(write(fd, p, (size_t)(d + f)), d + f);
            close(fd);
        }
    }
    snprintf(p, sizeof p, "%s/.hidden", w->root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/.hidden/skipped.txt", w->root);
    close(open(p, O_WRONLY | O_CREAT, 0644));
}

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    w->main_thread = pthread_self();
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    if (ze_job_system_create(&(ze_job_system_desc_t){.mem = w->mm, .worker_count = 2}, &w->jobs) !=
        ZE_OK)
        return -1;
    snprintf(w->tmp, sizeof w->tmp, "/tmp/zevfs-mt-XXXXXX");
    if (!mkdtemp(w->tmp))
        return -1;
    snprintf(w->root, sizeof w->root, "%s/project", w->tmp);
    mkdir(w->root, 0755);
    make_tree(w);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world_t *w = *state;
    ze_job_system_destroy(w->jobs);
    ze_mem_destroy(w->mm);
    nftw(w->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    assert_false(w->wrong_thread);
    ze_mem_sys_free(w);
    ze_log_reset();
    return 0;
}

static void on_entry(void *user, const ze_path_t *path, const ze_vfs_stat_t *st)
{
    world_t *w = user;
    (void)st;
    if (!pthread_equal(pthread_self(), w->main_thread))
        w->wrong_thread = true;
    assert_null(strstr(path->str, ".hidden"));
    w->entries++;
}

static void on_done(void *user, ze_vfs_scan_id_t id, const ze_vfs_scan_stats_t *stats)
{
    world_t *w = user;
    (void)id;
    if (!pthread_equal(pthread_self(), w->main_thread))
        w->wrong_thread = true;
    w->done_calls++;
    w->stats = *stats;
}

static ze_vfs_t *make_vfs(world_t *w, ze_job_system_t *jobs, ze_main_scheduler_t *sched)
{
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = w->mm,
                       .jobs = jobs,
                       .scheduler = sched,
                       .no_engine_mount = true,
                       .project_root = w->root,
                       .disable_cache = true};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    return vfs;
}

static bool count_cb(void *user, const ze_path_t *p, const ze_vfs_stat_t *st)
{
    (void)p, (void)st;
    (*(uint32_t *)user)++;
    return true;
}

static void check_full_scan(world_t *w, ze_vfs_t *vfs)
{
    assert_int_equal(w->done_calls, 1);
    assert_int_equal(w->stats.files, DIRS * FILES_PER_DIR);
    assert_int_equal(w->stats.dirs, DIRS + 1); /* + the /cache stand-in mount point */
    assert_int_equal(w->stats.errors, 0);
    assert_int_equal(w->entries, DIRS * FILES_PER_DIR + DIRS + 1);
    assert_int_equal(ze_vfs_cache_count(vfs), DIRS * FILES_PER_DIR + DIRS + 1);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_cache_get(vfs, "/dir03/file04.bin", &st), ZE_OK);
    assert_int_equal(st.size, 7);
    assert_false(st.is_dir);
    assert_int_equal(ze_vfs_cache_get(vfs, "/dir03", &st), ZE_OK);
    assert_true(st.is_dir);
    assert_int_equal(ze_vfs_cache_get(vfs, "/.hidden/skipped.txt", &st), ZE_ERR_NOT_FOUND);
    uint32_t n = 0;
    ze_vfs_cache_foreach(vfs, "/dir07", false, count_cb, &n);
    assert_int_equal(n, FILES_PER_DIR);
    n = 0;
    ze_vfs_cache_foreach(vfs, "/", false, count_cb, &n);
    assert_int_equal(n, DIRS + 1);
    n = 0;
    ze_vfs_cache_foreach(vfs, "/", true, count_cb, &n);
    assert_int_equal(n, DIRS * FILES_PER_DIR + DIRS + 1);
}

static void test_scan_on_jobs(void **state)
{
    world_t *w = *state;
    ze_vfs_t *vfs = make_vfs(w, w->jobs, NULL);
    ze_vfs_scan_id_t id;
    ze_vfs_scan_desc_t sd = {.on_entry = on_entry, .on_done = on_done, .user = w};
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    /* Results arrive only on this thread, through tick. */
    while (!ze_vfs_scan_done(vfs, id)) {
        ze_vfs_tick(vfs);
        ze_time_sleep_ns(100000);
    }
    check_full_scan(w, vfs);
    /* A rescan after deletions drops what is gone. */
    char p[512];
    for (int f = 0; f < 5; f++) {
        snprintf(p, sizeof p, "%s/dir01/file%02d.bin", w->root, f);
        assert_int_equal(unlink(p), 0);
    }
    w->done_calls = 0;
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    ze_vfs_scan_wait(vfs, id);
    assert_int_equal(w->done_calls, 1);
    assert_int_equal(w->stats.removed, 5);
    assert_int_equal(ze_vfs_cache_count(vfs), DIRS * FILES_PER_DIR + DIRS + 1 - 5);
    ze_vfs_stat_t st;
    assert_int_equal(ze_vfs_cache_get(vfs, "/dir01/file00.bin", &st), ZE_ERR_NOT_FOUND);
    /* A scan of a subtree only touches that subtree. */
    w->done_calls = 0;
    sd.root = "/dir02";
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    ze_vfs_scan_wait(vfs, id);
    assert_int_equal(w->stats.files, FILES_PER_DIR);
    assert_int_equal(w->stats.removed, 0);
    assert_int_equal(ze_vfs_cache_count(vfs), DIRS * FILES_PER_DIR + DIRS + 1 - 5);
    /* A missing root is an error in the stats, not a hang. */
    w->done_calls = 0;
    sd.root = "/nope";
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    ze_vfs_scan_wait(vfs, id);
    assert_int_equal(w->done_calls, 1);
    assert_int_equal(w->stats.errors, 1);
    ze_vfs_destroy(vfs);
}

static void test_scan_with_full_scheduler(void **state)
{
    world_t *w = *state;
    /* A 2-slot ring owned by "the application", drained only by it: most
     * batches spill into the overflow queue, none may be lost. */
    ze_main_scheduler_t *sched;
    assert_int_equal(
        ze_main_scheduler_create(&(ze_main_scheduler_desc_t){.mem = w->mm, .capacity = 2}, &sched),
        ZE_OK);
    ze_vfs_t *vfs = make_vfs(w, w->jobs, sched);
    ze_vfs_scan_id_t id;
    ze_vfs_scan_desc_t sd = {.on_entry = on_entry, .on_done = on_done, .user = w};
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    /* First nothing drains the ring, so it fills (an event, not a race
       between the workers and this thread); then the application's frames
       drain it and the overflow until the scan is done. */
    uint64_t deadline = ze_time_now_ns() + 30ull * 1000000000ull;
    while (ze_main_scheduler_stats(sched).rejected == 0 && ze_time_now_ns() < deadline)
        ze_time_sleep_ns(100000);
    assert_true(ze_main_scheduler_stats(sched).rejected > 0);
    while (!ze_vfs_scan_done(vfs, id)) {
        ze_main_scheduler_drain(sched); /* the application's frame step */
        ze_vfs_tick(vfs);
        ze_time_sleep_ns(100000);
    }
    check_full_scan(w, vfs);
    ze_vfs_destroy(vfs);
    ze_main_scheduler_destroy(sched);
}

static void test_scan_inline_without_jobs(void **state)
{
    world_t *w = *state;
    ze_vfs_t *vfs = make_vfs(w, NULL, NULL);
    ze_vfs_scan_id_t id;
    ze_vfs_scan_desc_t sd = {.on_entry = on_entry, .on_done = on_done, .user = w};
    assert_int_equal(ze_vfs_scan_start(vfs, &sd, &id), ZE_OK);
    assert_int_equal(w->done_calls, 0); /* results still wait for the owner's tick */
    ze_vfs_tick(vfs);
    assert_true(ze_vfs_scan_done(vfs, id));
    check_full_scan(w, vfs);
    ze_vfs_destroy(vfs);
}

static void test_destroy_during_scan(void **state)
{
    world_t *w = *state;
    for (int i = 0; i < 20; i++) {
        ze_vfs_t *vfs = make_vfs(w, w->jobs, NULL);
        ze_vfs_scan_desc_t sd = {.on_entry = on_entry, .on_done = on_done, .user = w};
        assert_int_equal(ze_vfs_scan_start(vfs, &sd, NULL), ZE_OK);
        if (i % 2)
            ze_vfs_tick(vfs);
        ze_vfs_destroy(vfs); /* waits for the jobs, frees every batch */
    }
}

/* ------------------------------------------- memory-mount events from workers */

typedef struct writer_ctx {
    ze_vfs_t *vfs;
    int index;
} writer_ctx;

static void *writer_main(void *arg)
{
    writer_ctx *c = arg;
    char path[64];
    for (int i = 0; i < 50; i++) {
        snprintf(path, sizeof path, "/mem/t%d_%d.txt", c->index, i);
        ze_vfs_write_file(c->vfs, path, path, strlen(path));
    }
    return NULL;
}

typedef struct ev_count {
    pthread_t main_thread;
    atomic_uint created;
    atomic_bool wrong_thread;
} ev_count;

static void count_events(void *user, const ze_vfs_event_t *ev)
{
    ev_count *c = user;
    if (!pthread_equal(pthread_self(), c->main_thread))
        atomic_store(&c->wrong_thread, true);
    if (ev->kind == ZE_VFS_EVENT_CREATED)
        atomic_fetch_add(&c->created, 1);
}

static void test_memory_events_from_threads(void **state)
{
    world_t *w = *state;
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = w->mm, .no_engine_mount = true, .debounce_ms = 20};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    ze_vfs_mount_desc_t md = {.point = "/mem", .watch = true};
    assert_int_equal(ze_vfs_mount(vfs, &md, NULL), ZE_OK);
    ev_count c = {.main_thread = pthread_self()};
    atomic_init(&c.created, 0);
    atomic_init(&c.wrong_thread, false);
    assert_int_equal(ze_vfs_subscribe(vfs, count_events, &c, NULL), ZE_OK);
    pthread_t th[4];
    writer_ctx ctx[4];
    for (int i = 0; i < 4; i++) {
        ctx[i] = (writer_ctx){vfs, i};
        pthread_create(&th[i], NULL, writer_main, &ctx[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&c.created), 0); /* nothing outside tick */
    uint64_t deadline = ze_time_now_ns() + 3000000000ull;
    while (atomic_load(&c.created) < 200 && ze_time_now_ns() < deadline) {
        ze_vfs_tick(vfs);
        ze_time_sleep_ns(1000000);
    }
    assert_int_equal(atomic_load(&c.created), 200);
    assert_false(atomic_load(&c.wrong_thread));
    ze_vfs_destroy(vfs);
}

/* ------------------------------------------------ readers against a writer */

enum { VERSION_SIZE = 4096 };

typedef struct race_ctx {
    ze_vfs_t *vfs;
    const char *path;
    atomic_bool stop;
    atomic_uint torn;
    atomic_uint reads;
} race_ctx;

static void *reader_main(void *arg)
{
    race_ctx *c = arg;
    while (!atomic_load(&c->stop)) {
        ze_vfs_buffer_t b;
        if (ze_vfs_read_file(c->vfs, c->path, (ze_allocator_t){0}, &b) != ZE_OK)
            continue;
        bool ok = b.size == VERSION_SIZE;
        for (size_t i = 1; ok && i < b.size; i++)
            ok = b.data[i] == b.data[0];
        if (!ok)
            atomic_fetch_add(&c->torn, 1);
        atomic_fetch_add(&c->reads, 1);
        ze_vfs_buffer_free(&b);
    }
    return NULL;
}

static void race(ze_vfs_t *vfs, const char *path, int writes)
{
    static char va[VERSION_SIZE], vb[VERSION_SIZE];
    memset(va, 'A', sizeof va);
    memset(vb, 'B', sizeof vb);
    assert_int_equal(ze_vfs_write_file(vfs, path, va, sizeof va), ZE_OK);
    race_ctx c = {.vfs = vfs, .path = path};
    atomic_init(&c.stop, false);
    atomic_init(&c.torn, 0);
    atomic_init(&c.reads, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, reader_main, &c);
    for (int i = 0; i < writes; i++)
        assert_int_equal(ze_vfs_write_file(vfs, path, i % 2 ? va : vb, VERSION_SIZE), ZE_OK);
    while (atomic_load(&c.reads) < 20)
        ze_time_sleep_ns(100000);
    atomic_store(&c.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&c.torn), 0);
}

static void test_readers_never_see_a_torn_write(void **state)
{
    world_t *w = *state;
    ze_vfs_t *vfs = make_vfs(w, w->jobs, NULL);
    ze_vfs_mount_desc_t md = {.point = "/mem"};
    assert_int_equal(ze_vfs_mount(vfs, &md, NULL), ZE_OK);
    race(vfs, "/mem/state.bin", 2000);
    race(vfs, "/dir00/state.bin", 100); /* disk: each write fsyncs */
    ze_vfs_destroy(vfs);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_scan_on_jobs),
        T(test_scan_with_full_scheduler),
        T(test_scan_inline_without_jobs),
        T(test_destroy_during_scan),
        T(test_memory_events_from_threads),
        T(test_readers_never_see_a_torn_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
