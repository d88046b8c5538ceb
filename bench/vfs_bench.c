/* vfs_bench.c — bench_vfs: paths, small reads, scans and watcher latency.
 *
 * path_normalize: ze_path_from over a fixed set of typical, messy paths,
 *   against the obvious normalizer (split into a component stack left to
 *   right, pop on "..", join).
 * read_small: ze_vfs_read_file of a 4 KiB file on a disk mount (path
 *   normalization, mount lookup, openat2 beneath the root, fstat, read, close,
 *   a heap block for the result), against open + fstat + read + close of the
 *   same file into a reused buffer. Target: at most 2x the baseline.
 * scan: a scan of a tree of 100 directories x 100 files (10,000 files) on
 *   the job system until on_done has run on the owner thread (cache filled),
 *   items (files + directories) per second, against a single-threaded
 *   opendir/readdir/fstatat walk of the same tree. Each round uses a fresh
 *   context so the cache starts empty.
 * watch_latency: time from the return of a write(2) to a watched file to
 *   the event reaching a subscriber in ze_vfs_tick (ticking continuously),
 *   with the default 80 ms debounce (the figure a user sees; target 100 ms),
 *   and with a 1 ms debounce (target 2 ms: the quiet period plus at most 1 ms
 *   of our own), whose baseline is the same event read from a bare inotify
 *   descriptor with no debounce at all (so its ratio is large by design).
 * Everything lives in a mkdtemp directory under /tmp, removed at the end.
 */
#include "bench.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/vfs.h"

enum { SMALL_SIZE = 4096 };

static bool write_host(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    return ok;
}

/* --------------------------------------------------------- path_normalize */

static const char *const k_paths[] = {
    "textures\\env/./sky/../sky_01.hdr",
    "/assets/models/hero/hero.gltf",
    "models//props///crate/../barrel/barrel.glb",
    "/ZodiacEngine/shaders/pbr/lighting.comp.glsl",
    "scenes/level_01/./sublevel/../../level_02/main.scene.json",
    "/cache/artifacts/0f/8fad5bd9cb469fa16570867728950e.zemesh",
    "a/b/c/d/e/f/g/h/../../../x.png",
    "ui\\fonts\\DejaVuSans.ttf",
};

typedef struct path_ctx {
    uint64_t ops;
    size_t lens[ZE_COUNTOF(k_paths)];
} path_ctx;

static double normalize_round(void *p)
{
    path_ctx *c = p;
    ze_path_t out;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        size_t k = i % ZE_COUNTOF(k_paths);
        ze_result e = ze_path_from(k_paths[k], c->lens[k], &out);
        ze_bench_use_u64((uint64_t)e + out.len);
        ze_bench_do_not_optimize(&out);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

/* The obvious way: a stack of (start, length) components. */
static int naive_normalize(const char *s, size_t len, char *out, size_t cap)
{
    size_t start[128], clen[128], depth = 0, i = 0;
    while (i < len) {
        while (i < len && (s[i] == '/' || s[i] == '\\'))
            i++;
        size_t b = i;
        while (i < len && s[i] != '/' && s[i] != '\\')
            i++;
        size_t n = i - b;
        if (n == 0 || (n == 1 && s[b] == '.'))
            continue;
        if (n == 2 && s[b] == '.' && s[b + 1] == '.') {
            if (depth == 0)
                return -1;
            depth--;
            continue;
        }
        if (depth == 128)
            return -1;
        start[depth] = b;
        clen[depth++] = n;
    }
    size_t w = 0;
    for (size_t d = 0; d < depth; d++) {
        if (w + 1 + clen[d] >= cap)
            return -1;
        out[w++] = '/';
        memcpy(out + w, s + start[d], clen[d]);
        w += clen[d];
    }
    if (w == 0)
        out[w++] = '/';
    out[w] = '\0';
    return (int)w;
}

static double naive_round(void *p)
{
    path_ctx *c = p;
    char out[ZE_PATH_CAPACITY];
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        size_t k = i % ZE_COUNTOF(k_paths);
        int n = naive_normalize(k_paths[k], c->lens[k], out, sizeof out);
        ze_bench_use_u64((uint64_t)n);
        ze_bench_do_not_optimize(out);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

static void bench_path(ze_bench_t *b)
{
    path_ctx c = {.ops = ze_bench_size(b, 2000000, 20000)};
    for (size_t i = 0; i < ZE_COUNTOF(k_paths); i++)
        c.lens[i] = strlen(k_paths[i]);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), normalize_round, &c, naive_round, &c);
    ze_bench_add(b, "path_normalize", ZE_COUNTOF(k_paths), "ns/op", ZE_BENCH_LOWER, r.value,
                 r.baseline, ZE_BENCH_NONE);
}

/* ------------------------------------------------------------- read_small */

typedef struct read_ctx {
    ze_vfs_t *vfs;
    ze_allocator_t alloc;
    const char *vfs_path;
    char host_path[1200];
    uint64_t ops;
    uint8_t *buf;
    bool failed;
} read_ctx;

static double vfs_read_round(void *p)
{
    read_ctx *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        ze_vfs_buffer_t out;
        if (ze_vfs_read_file(c->vfs, c->vfs_path, c->alloc, &out) != ZE_OK ||
            out.size != SMALL_SIZE) {
            c->failed = true;
            break;
        }
        ze_bench_use_u64(out.data[i % SMALL_SIZE]);
        ze_vfs_buffer_free(&out);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

static double raw_read_round(void *p)
{
    read_ctx *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        int fd = open(c->host_path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || read(fd, c->buf, (size_t)st.st_size) != SMALL_SIZE) {
            c->failed = true;
            if (fd >= 0)
                close(fd);
            break;
        }
        close(fd);
        ze_bench_use_u64(c->buf[i % SMALL_SIZE]);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

static void bench_read(ze_bench_t *b, ze_mem_t *mm, const char *dir)
{
    char project[1024];
    snprintf(project, sizeof project, "%s/read", dir);
    read_ctx c = {.vfs_path = "/assets/textures/small.bin",
                  .ops = ze_bench_size(b, 20000, 500),
                  .alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME)};
    mkdir(project, 0755);
    snprintf(c.host_path, sizeof c.host_path, "%s/assets", project);
    mkdir(c.host_path, 0755);
    snprintf(c.host_path, sizeof c.host_path, "%s/assets/textures", project);
    mkdir(c.host_path, 0755);
    snprintf(c.host_path, sizeof c.host_path, "%s/assets/textures/small.bin", project);
    uint8_t data[SMALL_SIZE];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 131u);
    c.buf = ze_mem_sys_alloc(SMALL_SIZE);
    if (!c.buf || !write_host(c.host_path, data, sizeof data)) {
        ze_bench_fail(b, "read_small", "cannot create %s", c.host_path);
        ze_mem_sys_free(c.buf);
        return;
    }
    ze_vfs_desc_t d = {.mem = mm, .project_root = project, .no_engine_mount = true};
    if (ze_vfs_create(&d, &c.vfs) != ZE_OK) {
        ze_bench_fail(b, "read_small", "ze_vfs_create failed");
        ze_mem_sys_free(c.buf);
        return;
    }
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), vfs_read_round, &c, raw_read_round, &c);
    if (c.failed)
        ze_bench_fail(b, "read_small", "a read failed");
    else
        ze_bench_add(b, "read_small", SMALL_SIZE, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline,
                     2.0 * r.baseline);
    ze_vfs_destroy(c.vfs);
    ze_mem_sys_free(c.buf);
}

/* ------------------------------------------------------------------- scan */

typedef struct scan_ctx {
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    char root[1024];
    uint64_t items;
    uint64_t got;
    bool done;
    bool failed;
} scan_ctx;

static void scan_done(void *user, ze_vfs_scan_id_t id, const ze_vfs_scan_stats_t *st)
{
    scan_ctx *c = user;
    (void)id;
    c->got = st->files + st->dirs;
    c->done = true;
}

static double vfs_scan_round(void *p)
{
    scan_ctx *c = p;
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = c->mm,
                       .jobs = c->jobs,
                       .project_root = c->root,
                       .no_engine_mount = true,
                       .disable_cache = true};
    if (ze_vfs_create(&d, &vfs) != ZE_OK) {
        c->failed = true;
        return NAN;
    }
    c->done = false;
    uint64_t t0 = ze_bench_now_ns();
    ze_vfs_scan_id_t id;
    ze_vfs_scan_desc_t sd = {.on_done = scan_done, .user = c};
    if (ze_vfs_scan_start(vfs, &sd, &id) != ZE_OK)
        c->failed = true;
    else
        ze_vfs_scan_wait(vfs, id);
    uint64_t t1 = ze_bench_now_ns();
    /* + 1: the /cache mount point the listing of "/" shows. */
    if (!c->done || c->got != c->items + 1)
        c->failed = true;
    ze_vfs_destroy(vfs);
    return (double)c->got / ((double)(t1 - t0) / 1e9);
}

static uint64_t walk(int dirfd)
{
    DIR *d = fdopendir(dirfd);
    if (!d)
        return 0;
    uint64_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        n++;
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (sub >= 0)
                n += walk(sub);
        }
    }
    closedir(d);
    return n;
}

static double raw_scan_round(void *p)
{
    scan_ctx *c = p;
    uint64_t t0 = ze_bench_now_ns();
    int fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    uint64_t n = fd >= 0 ? walk(fd) : 0;
    uint64_t t1 = ze_bench_now_ns();
    if (n != c->items)
        c->failed = true;
    return (double)n / ((double)(t1 - t0) / 1e9);
}

static void bench_scan(ze_bench_t *b, ze_mem_t *mm, ze_job_system_t *jobs, const char *dir)
{
    uint32_t dirs = (uint32_t)ze_bench_size(b, 100, 10);
    uint32_t files = (uint32_t)ze_bench_size(b, 100, 20);
    scan_ctx c = {.mm = mm, .jobs = jobs, .items = (uint64_t)dirs * files + dirs};
    snprintf(c.root, sizeof c.root, "%s/scan", dir);
    mkdir(c.root, 0755);
    char p[1200];
    for (uint32_t i = 0; i < dirs; i++) {
        snprintf(p, sizeof p, "%s/d%03u", c.root, i);
        mkdir(p, 0755);
        for (uint32_t f = 0; f < files; f++) {
            snprintf(p, sizeof p, "%s/d%03u/asset_%04u.bin", c.root, i, f);
            if (!write_host(p, p, 16)) {
                ze_bench_fail(b, "scan", "cannot create %s", p);
                return;
            }
        }
    }
    ze_bench_load_t load;
    ze_bench_load_begin(&load);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 7), vfs_scan_round, &c, raw_scan_round, &c);
    double busy = ze_bench_load_end(&load);
    if (c.failed) {
        ze_bench_fail(b, "scan", "a scan did not see the whole tree");
        return;
    }
    printf("  scan: %u files in %u directories, %u worker(s)%s\n", dirs * files, dirs,
           ze_job_worker_count(jobs), busy > 0.25 ? " (background load: figures noisy)" : "");
    ze_bench_add(b, "scan", (uint64_t)dirs * files, "items/s", ZE_BENCH_HIGHER, r.value, r.baseline,
                 ZE_BENCH_NONE);
}

/* ---------------------------------------------------------- watch_latency */

typedef struct watch_ctx {
    uint64_t seen_ns;
    uint32_t events;
} watch_ctx;

static void on_change(void *user, const ze_vfs_event_t *ev)
{
    watch_ctx *c = user;
    (void)ev;
    if (!c->seen_ns)
        c->seen_ns = ze_bench_now_ns();
    c->events++;
}

/* Median latency (µs) of `samples` writes seen through the VFS. */
static double vfs_latency(ze_mem_t *mm, const char *project, uint32_t debounce_ms, uint32_t samples,
                          bool *failed)
{
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = mm,
                       .project_root = project,
                       .no_engine_mount = true,
                       .disable_cache = true,
                       .watch = true,
                       .debounce_ms = debounce_ms};
    if (ze_vfs_create(&d, &vfs) != ZE_OK) {
        *failed = true;
        return NAN;
    }
    watch_ctx c = {0};
    ze_vfs_subscribe(vfs, on_change, &c, NULL);
    double v[64];
    char path[1100];
    snprintf(path, sizeof path, "%s/watched.txt", project);
    uint32_t n = 0;
    for (uint32_t i = 0; i < samples && i < ZE_COUNTOF(v); i++) {
        c.seen_ns = 0;
        c.events = 0;
        if (!write_host(path, "changed", 7)) {
            *failed = true;
            break;
        }
        uint64_t t0 = ze_bench_now_ns();
        while (!c.seen_ns && ze_bench_now_ns() - t0 < 2000000000ull)
            ze_vfs_tick(vfs);
        if (!c.seen_ns) {
            *failed = true;
            break;
        }
        v[n++] = (double)(c.seen_ns - t0) / 1e3;
        /* Let any straggler of this write drain before the next one. */
        uint64_t quiet = ze_bench_now_ns() + 3ull * debounce_ms * 1000000ull;
        while (ze_bench_now_ns() < quiet)
            ze_vfs_tick(vfs);
    }
    ze_vfs_destroy(vfs);
    return ze_bench_median(v, n);
}

/* The same writes read from a bare inotify descriptor. */
static double raw_latency(const char *project, uint32_t samples, bool *failed)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, project, IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE) < 0) {
        *failed = true;
        if (fd >= 0)
            close(fd);
        return NAN;
    }
    double v[64];
    char path[1100], buf[4096];
    snprintf(path, sizeof path, "%s/watched.txt", project);
    uint32_t n = 0;
    for (uint32_t i = 0; i < samples && i < ZE_COUNTOF(v); i++) {
        while (read(fd, buf, sizeof buf) > 0) {
        }
        if (!write_host(path, "changed", 7)) {
            *failed = true;
            break;
        }
        uint64_t t0 = ze_bench_now_ns();
        while (read(fd, buf, sizeof buf) <= 0 && ze_bench_now_ns() - t0 < 2000000000ull) {
        }
        v[n++] = (double)(ze_bench_now_ns() - t0) / 1e3;
    }
    close(fd);
    return ze_bench_median(v, n);
}

static void bench_watch(ze_bench_t *b, ze_mem_t *mm, const char *dir)
{
    char project[1024];
    snprintf(project, sizeof project, "%s/watch", dir);
    mkdir(project, 0755);
    uint32_t samples = (uint32_t)ze_bench_size(b, 15, 3);
    bool failed = false;
    double v80 = vfs_latency(mm, project, 0, samples, &failed);
    double v1 = vfs_latency(mm, project, 1, samples * 4, &failed);
    double raw = raw_latency(project, samples * 4, &failed);
    if (failed) {
        ze_bench_fail(b, "watch_latency", "an event did not arrive");
        return;
    }
    /* Microseconds: the schema has no "ms" unit; 80 ms debounce = 80000. */
    ze_bench_add(b, "watch_latency", 80, "us/op", ZE_BENCH_LOWER, v80, ZE_BENCH_NONE, 100000.0);
    /* Target: the 1 ms quiet period plus at most 1 ms of our own. */
    ze_bench_add(b, "watch_latency_debounce_1ms", 1, "us/op", ZE_BENCH_LOWER, v1, raw, 2000.0);
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "vfs", argc, argv);
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_WARN, .explicit_level = true});
    char dir[] = "/tmp/zevfs-bench-XXXXXX";
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    if (!ze_bench_env_open(&b, dir, &mm, &jobs))
        return ze_bench_finish(&b);
    if (ze_bench_enabled(&b, "path_normalize"))
        bench_path(&b);
    if (ze_bench_enabled(&b, "read_small"))
        bench_read(&b, mm, dir);
    if (ze_bench_enabled(&b, "scan"))
        bench_scan(&b, mm, jobs, dir);
    if (ze_bench_enabled(&b, "watch_latency"))
        bench_watch(&b, mm, dir);
    ze_bench_env_close(dir, mm, jobs);
    return ze_bench_finish(&b);
}
