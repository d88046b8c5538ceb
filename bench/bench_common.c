/* bench_common.c — the harness behind bench.h. */
#define _GNU_SOURCE /* nftw */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "zengine/mem.h"

/* The units schema.json allows; rows point at these strings. */
static const char *const bench_units[] = {
    "ns/op", "us/op", "ms/frame", "ops/s", "items/s", "MB/s", "bytes", "s", "ratio", "count", "dB",
};

enum { BENCH_ROUNDS_MAX = 101 };

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [--smoke] [--out DIR] [--filter SUBSTR] [--rounds N]\n"
            "  --smoke          tiny sizes and 3 rounds (what ctest runs)\n"
            "  --out DIR        where <suite>.json goes (default build/bench)\n"
            "  --filter SUBSTR  only benchmarks whose name contains SUBSTR\n"
            "  --rounds N       rounds per benchmark (default: each benchmark's own, >= 5)\n",
            prog);
}

/* "--opt VALUE" or "--opt=VALUE"; advances *i past a separate value. */
static const char *option_value(int argc, char **argv, int *i, const char *opt)
{
    size_t len = strlen(opt);
    const char *arg = argv[*i];
    if (strncmp(arg, opt, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", argv[0], opt);
        usage(stderr, argv[0]);
        exit(2);
    }
    *i += 1;
    return argv[*i];
}

void ze_bench_init(ze_bench_t *b, const char *suite, int argc, char **argv)
{
    memset(b, 0, sizeof(*b));
    b->suite = suite;
    b->out_dir = "build/bench";
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "--smoke") == 0) {
            b->smoke = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, argv[0]);
            exit(0);
        } else if ((v = option_value(argc, argv, &i, "--out")) != NULL) {
            b->out_dir = v;
        } else if ((v = option_value(argc, argv, &i, "--filter")) != NULL) {
            b->filter = v[0] ? v : NULL;
        } else if ((v = option_value(argc, argv, &i, "--rounds")) != NULL) {
            char *end = NULL;
            long r = strtol(v, &end, 10);
            if (end == v || *end != '\0' || r < 1 || r > BENCH_ROUNDS_MAX) {
                fprintf(stderr, "%s: --rounds wants 1..%d, got '%s'\n", argv[0], BENCH_ROUNDS_MAX,
                        v);
                exit(2);
            }
            b->rounds = (uint32_t)r;
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], argv[i]);
            usage(stderr, argv[0]);
            exit(2);
        }
    }
    ze_bench_machine_string(b->machine, sizeof(b->machine));
    ze_bench_load_begin(&b->load_start);
    printf("suite %s%s: %s\n", suite, b->smoke ? " (smoke)" : "", b->machine);
    fflush(stdout);
}

bool ze_bench_enabled(const ze_bench_t *b, const char *name)
{
    return b->filter == NULL || strstr(name, b->filter) != NULL;
}

uint32_t ze_bench_rounds(const ze_bench_t *b, uint32_t full)
{
    if (b->rounds)
        return b->rounds;
    return b->smoke ? 3 : full;
}

uint64_t ze_bench_size(const ze_bench_t *b, uint64_t full, uint64_t smoke)
{
    return b->smoke ? smoke : full;
}

static const char *intern_unit(const char *unit)
{
    for (size_t i = 0; i < ZE_COUNTOF(bench_units); i++)
        if (strcmp(unit, bench_units[i]) == 0)
            return bench_units[i];
    return NULL;
}

void ze_bench_add(ze_bench_t *b, const char *name, uint64_t n, const char *unit,
                  ze_bench_better better, double value, double baseline, double target)
{
    const char *u = intern_unit(unit);
    ZE_VERIFY_MSG(u != NULL, "ze_bench_add: unit not in schema.json");
    ZE_VERIFY_MSG(strlen(name) > 0 && strlen(name) < ZE_BENCH_NAME_MAX,
                  "ze_bench_add: name empty or too long");
    ZE_VERIFY_MSG(n >= 1, "ze_bench_add: n must be >= 1");
    for (uint32_t i = 0; i < b->row_count; i++)
        ZE_VERIFY_MSG(!(b->rows[i].n == n && strcmp(b->rows[i].name, name) == 0),
                      "ze_bench_add: duplicate (name, n)");
    if (!isfinite(value)) {
        ze_bench_fail(b, name, "value is not a finite number");
        return;
    }
    if (b->row_count == b->row_capacity) {
        uint32_t cap = b->row_capacity ? b->row_capacity * 2 : 16;
        ze_bench_row_t *rows =
            ze_realloc(ze_mem_system_allocator(), b->rows, b->row_capacity * sizeof(*rows),
                       cap * sizeof(*rows), _Alignof(ze_bench_row_t));
        ZE_VERIFY_MSG(rows != NULL, "ze_bench_add: out of memory");
        b->rows = rows;
        b->row_capacity = cap;
    }
    ze_bench_row_t *r = &b->rows[b->row_count++];
    memset(r, 0, sizeof(*r));
    memcpy(r->name, name, strlen(name) + 1);
    r->n = n;
    r->unit = u;
    r->better = better;
    r->value = value;
    r->baseline = isfinite(baseline) ? baseline : NAN;
    r->target = isfinite(target) ? target : NAN;
}

void ze_bench_fail(ze_bench_t *b, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench %s/%s FAILED: ", b->suite, name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    b->failures++;
}

/* ---------------------------------------------------------------- measuring */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ze_bench_median(double *v, size_t count)
{
    if (count == 0)
        return NAN;
    qsort(v, count, sizeof(*v), cmp_double);
    if (count % 2)
        return v[count / 2];
    return 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

ze_bench_pair_t ze_bench_compare(uint32_t rounds, ze_bench_round_fn subject, void *subject_ctx,
                                 ze_bench_round_fn baseline, void *baseline_ctx)
{
    double vs[BENCH_ROUNDS_MAX], bs[BENCH_ROUNDS_MAX], rs[BENCH_ROUNDS_MAX];
    if (rounds < 1)
        rounds = 1;
    if (rounds > BENCH_ROUNDS_MAX)
        rounds = BENCH_ROUNDS_MAX;
    /* Warm-up: page faults, caches, the allocator's first growth. */
    (void)subject(subject_ctx);
    (void)baseline(baseline_ctx);
    for (uint32_t i = 0; i < rounds; i++) {
        if (i % 2 == 0) {
            vs[i] = subject(subject_ctx);
            bs[i] = baseline(baseline_ctx);
        } else {
            bs[i] = baseline(baseline_ctx);
            vs[i] = subject(subject_ctx);
        }
        rs[i] = bs[i] > 0 ? vs[i] / bs[i] : NAN;
    }
    ze_bench_pair_t p;
    p.ratio = ze_bench_median(rs, rounds);
    p.value = ze_bench_median(vs, rounds);
    p.baseline = ze_bench_median(bs, rounds);
    return p;
}

/* ------------------------------------------------------------------ helpers */

void *ze_bench_table_alloc(size_t bytes)
{
    void *p = ze_mem_sys_alloc(bytes ? bytes : 1);
    ZE_VERIFY_MSG(p != NULL, "bench: out of memory for a table");
    memset(p, 0, bytes); /* touched now, not inside a timed loop */
    return p;
}

void ze_bench_table_free(void *p)
{
    ze_mem_sys_free(p);
}

ze_mem_budget_config_t ze_bench_mem_config_with_ecs(uint64_t ecs_bytes)
{
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    if (cfg.budget[ZE_MEM_OWNER_ECS] < ecs_bytes) {
        uint64_t sum = 0;
        for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
            sum += cfg.budget[i];
        uint64_t extra = ecs_bytes - cfg.budget[ZE_MEM_OWNER_ECS];
        cfg.budget[ZE_MEM_OWNER_ECS] = ecs_bytes;
        if (sum + extra > cfg.capacity)
            cfg.capacity = sum + extra;
    }
    return cfg;
}

int64_t ze_bench_proc_status_bytes(const char *field)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t len = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (len <= 0)
        return -1;
    buf[len] = '\0';
    const char *p = strstr(buf, field);
    if (!p)
        return -1;
    p += strlen(field);
    while (*p == ' ' || *p == '\t' || *p == ':')
        p++;
    return strtoll(p, NULL, 10) * 1024;
}

bool ze_bench_run_in_child(void (*child)(void *report, void *ctx), void *ctx, void *report,
                           size_t size)
{
    int fds[2];
    memset(report, 0, size);
    if (pipe(fds) != 0)
        return false;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        memset(report, 0, size); /* this copy's pages are the child's before it measures */
        child(report, ctx);
        ssize_t w = write(fds[1], report, size);
        _exit(w == (ssize_t)size ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got;
    do {
        got = read(fds[0], report, size);
    } while (got < 0 && errno == EINTR);
    close(fds[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return got == (ssize_t)size && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
}

/* --------------------------------------------------------- parallel speed-up */

uint64_t ze_bench_spin_work(uint64_t x, uint32_t iters)
{
    for (uint32_t i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x += i;
    }
    return x;
}

uint32_t ze_bench_spin_calibrate(uint64_t ns)
{
    uint32_t iters = 10000;
    double per_iter[7];
    for (int i = 0; i < 7; i++) {
        uint64_t t0 = ze_bench_now_ns();
        ze_bench_use_u64(ze_bench_spin_work((uint64_t)i + 1, iters));
        per_iter[i] = (double)(ze_bench_now_ns() - t0) / iters;
    }
    double m = ze_bench_median(per_iter, 7);
    double n = m > 0 ? (double)ns / m : 1e5;
    return (uint32_t)ZE_MIN(ZE_MAX(n, 100.0), 1e8);
}

void ze_bench_sem_wait(sem_t *s)
{
    while (sem_wait(s) != 0 && errno == EINTR) {
    }
}

static void *bench_thread_main(void *p)
{
    ze_bench_thread_t *t = p;
    for (;;) {
        ze_bench_sem_wait(&t->go);
        if (t->quit)
            return NULL;
        t->fn(t->arg);
        sem_post(&t->done);
    }
}

void ze_bench_thread_pair_start(ze_bench_thread_pair_t *p, void (*fn)(void *arg), void *arg0,
                                void *arg1)
{
    for (uint32_t i = 0; i < 2; i++) {
        ze_bench_thread_t *t = &p->t[i];
        t->fn = fn;
        t->arg = i == 0 ? arg0 : arg1;
        t->quit = false;
        ZE_VERIFY(sem_init(&t->go, 0, 0) == 0 && sem_init(&t->done, 0, 0) == 0);
        ZE_VERIFY_MSG(pthread_create(&t->thread, NULL, bench_thread_main, t) == 0,
                      "bench: pthread_create failed");
    }
}

void ze_bench_thread_pair_run(ze_bench_thread_pair_t *p)
{
    sem_post(&p->t[0].go);
    sem_post(&p->t[1].go);
    ze_bench_sem_wait(&p->t[0].done);
    ze_bench_sem_wait(&p->t[1].done);
}

void ze_bench_thread_pair_stop(ze_bench_thread_pair_t *p)
{
    for (uint32_t i = 0; i < 2; i++) {
        ze_bench_thread_t *t = &p->t[i];
        t->quit = true;
        sem_post(&t->go);
        pthread_join(t->thread, NULL);
        sem_destroy(&t->go);
        sem_destroy(&t->done);
    }
}

ze_bench_speedup_t ze_bench_speedup_rounds(uint32_t rounds, ze_bench_round_fn serial,
                                           ze_bench_round_fn pool, ze_bench_round_fn threads,
                                           void *ctx)
{
    double t1[BENCH_ROUNDS_MAX], tp[BENCH_ROUNDS_MAX], t2[BENCH_ROUNDS_MAX];
    double ratio[BENCH_ROUNDS_MAX];
    rounds = ZE_MIN(ZE_MAX(rounds, 1u), (uint32_t)BENCH_ROUNDS_MAX);
    /* warm-up */
    (void)serial(ctx);
    (void)pool(ctx);
    (void)threads(ctx);
    for (uint32_t r = 0; r < rounds; r++) {
        /* rotate the order so no variant always runs first */
        for (uint32_t k = 0; k < 3; k++) {
            switch ((r + k) % 3) {
            case 0:
                t1[r] = serial(ctx);
                break;
            case 1:
                tp[r] = pool(ctx);
                break;
            default:
                t2[r] = threads(ctx);
                break;
            }
        }
        ratio[r] = t2[r] / tp[r];
    }
    ze_bench_speedup_t s;
    s.serial = ze_bench_median(t1, rounds);
    s.pool = ze_bench_median(tp, rounds);
    s.threads = ze_bench_median(t2, rounds);
    s.ratio = ze_bench_median(ratio, rounds);
    return s;
}

/* --------------------------------------------------------------------- load */

/* Busy seconds of all CPUs since boot: every /proc/stat "cpu" field but
 * idle and iowait (steal counts as busy: the hypervisor had the core). */
static double proc_stat_busy_s(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[10] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                     &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    if (got < 8 || hz <= 0)
        return -1;
    /* user nice system idle iowait irq softirq steal (guest is in user) */
    unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return (double)busy / (double)hz;
}

static double self_cpu_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ze_bench_load_begin(ze_bench_load_t *l)
{
    l->wall_ns = ze_time_now_ns();
    l->busy_s = proc_stat_busy_s();
    l->self_s = self_cpu_s();
}

double ze_bench_load_end(const ze_bench_load_t *l)
{
    double busy = proc_stat_busy_s();
    double wall = (double)(ze_time_now_ns() - l->wall_ns) * 1e-9;
    /* /proc/stat ticks at 100 Hz: a fifth of a second resolves 0.05 CPUs. */
    if (busy < 0 || l->busy_s < 0 || wall < 0.2)
        return -1;
    double other = (busy - l->busy_s) - (self_cpu_s() - l->self_s);
    return ZE_MAX(other, 0.0) / wall;
}

/* ------------------------------------------------------------------ machine */

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        /* x86: "model name"; some ARM kernels only give "Hardware". */
        if (strncmp(line, "model name", 10) != 0 && strncmp(line, "Hardware", 8) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        const char *s = colon + 1;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strcspn(s, "\r\n");
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        if (len == 0)
            continue;
        snprintf(buf, size, "%.*s", (int)len, s);
        break;
    }
    fclose(f);
}

void ze_bench_machine_string(char *buf, size_t size)
{
    char model[160];
    cpu_model(model, sizeof(model));
    struct utsname u;
    const char *kernel = uname(&u) == 0 ? u.release : "unknown kernel";
    snprintf(buf, size, "%s, %u cores, %s", model, ze_cpu_count(), kernel);
}

int ze_bench_mkdirs(const char *path)
{
    char buf[ZE_BENCH_PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = saved;
    }
    struct stat st;
    if (stat(buf, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void ze_bench_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool ze_bench_env_open(ze_bench_t *b, char *dir, ze_mem_t **mm, ze_job_system_t **jobs)
{
    *mm = NULL;
    *jobs = NULL;
    if (!mkdtemp(dir)) {
        ze_bench_fail(b, "setup", "mkdtemp failed");
        return false;
    }
    if (ze_mem_create(&(ze_mem_desc_t){0}, mm) != ZE_OK ||
        ze_job_system_create(&(ze_job_system_desc_t){.mem = *mm}, jobs) != ZE_OK) {
        ze_bench_fail(b, "setup", "memory manager or job system");
        ze_mem_destroy(*mm);
        *mm = NULL;
        rmdir(dir);
        return false;
    }
    return true;
}

void ze_bench_env_close(const char *dir, ze_mem_t *mm, ze_job_system_t *jobs)
{
    ze_job_system_destroy(jobs);
    ze_mem_destroy(mm);
    ze_bench_remove_tree(dir);
}

/* ------------------------------------------------------------------- output */

static int write_json(const ze_bench_t *b, const char *path)
{
    json_t *root = json_object();
    json_t *results = json_array();
    int rc = -1;
    if (!root || !results)
        goto done;
    json_object_set_new(root, "suite", json_string(b->suite));
    json_object_set_new(root, "machine", json_string(b->machine));
    for (uint32_t i = 0; i < b->row_count; i++) {
        const ze_bench_row_t *r = &b->rows[i];
        json_t *o = json_object();
        if (!o)
            goto done;
        json_object_set_new(o, "name", json_string(r->name));
        json_object_set_new(o, "n", json_integer((json_int_t)r->n));
        json_object_set_new(o, "unit", json_string(r->unit));
        json_object_set_new(o, "better",
                            json_string(r->better == ZE_BENCH_HIGHER ? "higher" : "lower"));
        json_object_set_new(o, "value", json_real(r->value));
        if (!isnan(r->baseline))
            json_object_set_new(o, "baseline", json_real(r->baseline));
        if (!isnan(r->target))
            json_object_set_new(o, "target", json_real(r->target));
        json_array_append_new(results, o);
    }
    json_object_set(root, "results", results);
    rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
done:
    json_decref(results);
    json_decref(root);
    return rc;
}

static void format_num(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (isnan(v))
        snprintf(buf, size, "-");
    else if (a == 0)
        snprintf(buf, size, "0");
    else if (a >= 1e9)
        snprintf(buf, size, "%.4g", v);
    else if (a >= 1000)
        snprintf(buf, size, "%.0f", v);
    else if (a >= 10)
        snprintf(buf, size, "%.1f", v);
    else if (a >= 1)
        snprintf(buf, size, "%.2f", v);
    else
        snprintf(buf, size, "%.3g", v);
}

/* PASS/MISS against the target when there is one (meeting it is enough),
 * else against the baseline (it must be beaten); empty with neither. */
static const char *row_mark(const ze_bench_row_t *r)
{
    bool higher = r->better == ZE_BENCH_HIGHER;
    if (!isnan(r->target))
        return (higher ? r->value >= r->target : r->value <= r->target) ? "PASS" : "MISS";
    if (!isnan(r->baseline))
        return (higher ? r->value > r->baseline : r->value < r->baseline) ? "PASS" : "MISS";
    return "";
}

enum { COLS = 9, CELL = ZE_BENCH_NAME_MAX };

static void row_cells(const ze_bench_row_t *r, char cells[COLS][CELL])
{
    snprintf(cells[0], CELL, "%s", r->name);
    snprintf(cells[1], CELL, "%llu", (unsigned long long)r->n);
    snprintf(cells[2], CELL, "%s", r->unit);
    format_num(cells[3], CELL, r->value);
    format_num(cells[4], CELL, r->baseline);
    if (!isnan(r->baseline) && r->baseline != 0)
        snprintf(cells[5], CELL, "%.3f", r->value / r->baseline);
    else
        snprintf(cells[5], CELL, "-");
    format_num(cells[6], CELL, r->target);
    snprintf(cells[7], CELL, "%s", r->better == ZE_BENCH_HIGHER ? "higher" : "lower");
    snprintf(cells[8], CELL, "%s", row_mark(r));
}

static void print_table(const ze_bench_t *b)
{
    static const char *const head[COLS] = {"name",  "n",      "unit",   "value", "baseline",
                                           "ratio", "target", "better", "mark"};
    /* numbers right-aligned, text left-aligned */
    static const bool right[COLS] = {false, true, false, true, true, true, true, false, false};
    size_t width[COLS];
    char cells[COLS][CELL];
    for (int c = 0; c < COLS; c++)
        width[c] = strlen(head[c]);
    for (uint32_t i = 0; i < b->row_count; i++) {
        row_cells(&b->rows[i], cells);
        for (int c = 0; c < COLS; c++)
            width[c] = ZE_MAX(width[c], strlen(cells[c]));
    }
    printf("\n");
    for (int c = 0; c < COLS; c++)
        printf(right[c] ? "%*s  " : "%-*s  ", (int)width[c], head[c]);
    printf("\n");
    for (uint32_t i = 0; i < b->row_count; i++) {
        row_cells(&b->rows[i], cells);
        for (int c = 0; c < COLS; c++)
            printf(right[c] ? "%*s  " : "%-*s  ", (int)width[c], cells[c]);
        printf("\n");
    }
    printf("ratio = value / baseline; mark: against the target when there is one, else "
           "against the baseline\n");
}

int ze_bench_finish(ze_bench_t *b)
{
    int code = b->failures ? 1 : 0;
    char path[ZE_BENCH_PATH_MAX];
    int len = snprintf(path, sizeof(path), "%s/%s.json", b->out_dir, b->suite);
    print_table(b);
    double load = ze_bench_load_end(&b->load_start);
    if (load >= 0)
        printf("background load: %.2f CPUs busy with other processes during the run%s\n", load,
               load > 0.25 ? " -- WARNING: figures (parallel ones above all) are unreliable" : "");
    if (len < 0 || (size_t)len >= sizeof(path)) {
        fprintf(stderr, "bench %s: output path too long\n", b->suite);
        code = 1;
    } else if (ze_bench_mkdirs(b->out_dir) != 0) {
        fprintf(stderr, "bench %s: cannot create %s: %s\n", b->suite, b->out_dir, strerror(errno));
        code = 1;
    } else if (write_json(b, path) != 0) {
        fprintf(stderr, "bench %s: cannot write %s\n", b->suite, path);
        code = 1;
    } else {
        printf("wrote %s\n", path);
    }
    if (b->failures)
        fprintf(stderr, "bench %s: %u benchmark(s) failed\n", b->suite, b->failures);
    ze_free(ze_mem_system_allocator(), b->rows, b->row_capacity * sizeof(*b->rows));
    b->rows = NULL;
    b->row_count = b->row_capacity = 0;
    fflush(stdout);
    return code;
}

ze_result ze_bench_ecs_env_create(ze_bench_ecs_env_t *env, uint64_t ecs_bytes,
                                  ze_kernel_desc_t kernel)
{
    memset(env, 0, sizeof(*env));
    ze_mem_budget_config_t cfg = ze_bench_mem_config_with_ecs(ecs_bytes);
    ze_result res = ze_mem_create(&(ze_mem_desc_t){.config = &cfg}, &env->mm);
    if (res == ZE_OK)
        res = ze_job_system_create(&(ze_job_system_desc_t){.mem = env->mm}, &env->js);
    if (res == ZE_OK) {
        kernel.mem = env->mm;
        kernel.jobs = env->js;
        env->k = ze_kernel_create(&kernel);
        if (!env->k)
            res = ZE_ERR_STATE;
    }
    if (res != ZE_OK)
        ze_bench_ecs_env_destroy(env);
    return res;
}

void ze_bench_ecs_env_destroy(ze_bench_ecs_env_t *env)
{
    if (env->k)
        ze_kernel_destroy(env->k);
    if (env->js)
        ze_job_system_destroy(env->js);
    if (env->mm)
        ze_mem_destroy(env->mm);
    memset(env, 0, sizeof(*env));
}
