/* bench/bench.h — the benchmark harness shared by every bench_<suite> program.
 *
 * What: command-line options (--smoke, --out DIR, --filter SUBSTR, --rounds
 * N), timing and median helpers, an optimisation barrier, the machine
 * string, result collection, and the output: <out>/<suite>.json (schema in
 * bench/schema.json) plus an aligned table on stdout.
 * Not: statistics beyond the median; benchmarks are noisy, so every suite
 * compares against a baseline measured in the same process, in interleaved
 * rounds, and reports medians.
 * Threads: the harness belongs to the main thread.
 * Memory: results live in the system allocator (ze_mem_system_allocator);
 * nothing here calls malloc directly (tests check every object with nm -u).
 * Errors: harness misuse (unknown unit, duplicate row) aborts with a message;
 * a benchmark that cannot run reports it with ze_bench_fail and the program
 * exits non-zero after writing what it has.
 */
#ifndef ZENGINE_BENCH_H
#define ZENGINE_BENCH_H

#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zengine/base.h"
#include "zengine/ecs.h"
#include "zengine/job.h"
#include "zengine/mem.h"

enum {
    ZE_BENCH_NAME_MAX = 64, /* row names, including the NUL */
    ZE_BENCH_MACHINE_MAX = 256,
    ZE_BENCH_PATH_MAX = 1024, /* --out directory and the files under it */
};

typedef enum ze_bench_better { ZE_BENCH_LOWER = 0, ZE_BENCH_HIGHER } ze_bench_better;

/* "No baseline" / "no target" in ze_bench_add. */
#define ZE_BENCH_NONE NAN

typedef struct ze_bench_row_t {
    char name[ZE_BENCH_NAME_MAX];
    uint64_t n;
    const char *unit; /* one of the units in schema.json (interned) */
    ze_bench_better better;
    double value;
    double baseline; /* NAN: none */
    double target;   /* NAN: none */
} ze_bench_row_t;

/* A point to measure background load from (ze_bench_load_begin). */
typedef struct ze_bench_load_t {
    uint64_t wall_ns;
    double busy_s; /* all CPUs, from /proc/stat; < 0 when unknown */
    double self_s; /* this process */
} ze_bench_load_t;

typedef struct ze_bench_t {
    const char *suite;
    bool smoke;          /* --smoke: tiny sizes, few rounds (ctest) */
    const char *out_dir; /* --out; default "build/bench" */
    const char *filter;  /* --filter; NULL = everything */
    uint32_t rounds;     /* --rounds; 0 = each benchmark's own choice */
    char machine[ZE_BENCH_MACHINE_MAX];
    ze_bench_row_t *rows;
    uint32_t row_count;
    uint32_t row_capacity;
    uint32_t failures; /* ze_bench_fail calls */
    ze_bench_load_t load_start;
} ze_bench_t;

/* Parse argv; prints usage and exits (0 for --help, 2 for a bad option). */
void ze_bench_init(ze_bench_t *b, const char *suite, int argc, char **argv);
/* Write <out>/<suite>.json, print the table, free the rows. Returns the
 * process exit code: 0, or 1 when writing failed or a benchmark failed. */
int ze_bench_finish(ze_bench_t *b);

/* True when `name` passes --filter (a plain substring match). */
bool ze_bench_enabled(const ze_bench_t *b, const char *name);
/* Rounds to run: --rounds when given, else 3 in smoke mode, else `full`
 * (callers pass >= 5). */
uint32_t ze_bench_rounds(const ze_bench_t *b, uint32_t full);
/* `full` normally, `smoke` with --smoke. */
uint64_t ze_bench_size(const ze_bench_t *b, uint64_t full, uint64_t smoke);

/* Record one row. unit: "ns/op", "us/op", "ms/frame", "ops/s", "items/s",
 * "MB/s", "bytes", "s", "ratio", "count" or "dB"; baseline/target: ZE_BENCH_NONE when absent.
 * (name, n) must be unique within the suite. */
void ze_bench_add(ze_bench_t *b, const char *name, uint64_t n, const char *unit,
                  ze_bench_better better, double value, double baseline, double target);
/* A benchmark could not run: print why; the exit code becomes 1. */
void ze_bench_fail(ze_bench_t *b, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------- measuring */

static inline uint64_t ze_bench_now_ns(void)
{
    return ze_time_now_ns();
}

/* Median of v[0..count) (sorts v in place). count 0 gives NAN. */
double ze_bench_median(double *v, size_t count);

/* One timed round of a benchmark: do the work, return the measurement
 * (ns/op, seconds...); setup and teardown inside are not to be timed. */
typedef double (*ze_bench_round_fn)(void *ctx);

typedef struct ze_bench_pair_t {
    double value;    /* median of the subject's rounds */
    double baseline; /* median of the baseline's rounds */
    double ratio;    /* median of the per-round value/baseline */
} ze_bench_pair_t;

/* Run `rounds` rounds of subject and baseline interleaved, alternating which
 * goes first (ABBA...), after one untimed warm-up of each. */
ze_bench_pair_t ze_bench_compare(uint32_t rounds, ze_bench_round_fn subject, void *subject_ctx,
                                 ze_bench_round_fn baseline, void *baseline_ctx);

/* Optimisation barriers: the compiler must assume `p`'s memory is read and
 * may have been written, so the work that produced it cannot be dropped. */
static inline void ze_bench_do_not_optimize(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}
static inline void ze_bench_use_u64(uint64_t v)
{
    __asm__ volatile("" : : "r"(v) : "memory");
}
static inline void ze_bench_clobber(void)
{
    __asm__ volatile("" : : : "memory");
}

/* Background load: CPUs kept busy by other processes between begin and
 * end (from /proc/stat minus this process's CPU time); negative when
 * unknown. A parallel figure measured while another process held a core
 * means little; ze_bench_finish prints a warning above 0.25. */
void ze_bench_load_begin(ze_bench_load_t *l);
double ze_bench_load_end(const ze_bench_load_t *l);

/* "<cpu model>, <cores> cores, <kernel>" into buf (also done by init). */
void ze_bench_machine_string(char *buf, size_t size);

/* mkdir -p. 0 on success, -1 with errno set. */
int ze_bench_mkdirs(const char *path);
/* rm -r, without following links; a missing path is left alone. */
void ze_bench_remove_tree(const char *path);

/* What the suites that work on files and jobs start from: a fresh folder
 * (mkdtemp of `dir`, a template ending in XXXXXX, rewritten in place), a
 * memory manager and a job system, both with default settings. On failure
 * it reports a "setup" failure, undoes what it made and returns false. */
bool ze_bench_env_open(ze_bench_t *b, char *dir, ze_mem_t **mm, ze_job_system_t **jobs);
/* Destroys the job system and the memory manager, then removes the folder. */
void ze_bench_env_close(const char *dir, ze_mem_t *mm, ze_job_system_t *jobs);

/* --------------------------------------------------------------- helpers */

/* Zeroed ze_mem_sys_alloc block, touched outside timed loops; aborts when out of memory. */
void *ze_bench_table_alloc(size_t bytes);
/* Frees a ze_bench_table_alloc block. */
void ze_bench_table_free(void *p);

/* Default-profile config with the ECS budget raised to >= ecs_bytes (capacity grown). */
ze_mem_budget_config_t ze_bench_mem_config_with_ecs(uint64_t ecs_bytes);

/* A memory manager (ze_bench_mem_config_with_ecs(ecs_bytes)), a job system
 * and a kernel made from `kernel` (its mem and jobs filled in): the ECS
 * suites' environment. Destroy undoes a partial create too. */
typedef struct ze_bench_ecs_env_t {
    ze_mem_t *mm;
    ze_job_system_t *js;
    ze_kernel_t *k;
} ze_bench_ecs_env_t;
ze_result ze_bench_ecs_env_create(ze_bench_ecs_env_t *env, uint64_t ecs_bytes,
                                  ze_kernel_desc_t kernel);
void ze_bench_ecs_env_destroy(ze_bench_ecs_env_t *env);

/* A /proc/self/status field ("VmRSS", "VmHWM"...) in bytes, -1 if unknown; no stdio. */
int64_t ze_bench_proc_status_bytes(const char *field);

/* Fork; child(report, ctx) fills a zeroed report the parent gets back; false on any failure. */
bool ze_bench_run_in_child(void (*child)(void *report, void *ctx), void *ctx, void *report,
                           size_t size);

/* ---------------------------------------------------- parallel speed-up */

/* One piece of CPU-bound work on its own cache line: result = ze_bench_spin_work(seed, iters). */
typedef struct ze_bench_spin_item_t {
    _Alignas(64) uint64_t seed;
    uint64_t result; /* each item's runner writes only its own line */
    uint32_t iters;
} ze_bench_spin_item_t;

/* `iters` rounds of xorshift arithmetic on x (no memory traffic). */
uint64_t ze_bench_spin_work(uint64_t x, uint32_t iters);
/* Iterations of ze_bench_spin_work taking about `ns` (median of 7 probes). */
uint32_t ze_bench_spin_calibrate(uint64_t ns);

/* sem_wait, retried on EINTR. */
void ze_bench_sem_wait(sem_t *s);

/* A persistent pthread that runs fn(arg) each time `go` is posted, then posts `done`. */
typedef struct ze_bench_thread_t {
    pthread_t thread;
    sem_t go, done;
    void (*fn)(void *arg);
    void *arg;
    bool quit; /* written before `go` is posted */
} ze_bench_thread_t;

/* Two persistent threads (the hand-written two-thread baseline of parallel_speedup). */
typedef struct ze_bench_thread_pair_t {
    ze_bench_thread_t t[2];
} ze_bench_thread_pair_t;

/* Start the pair: thread i runs fn(arg_i) on each ze_bench_thread_pair_run. */
void ze_bench_thread_pair_start(ze_bench_thread_pair_t *p, void (*fn)(void *arg), void *arg0,
                                void *arg1);
/* Wake both threads and wait until both have run their work once. */
void ze_bench_thread_pair_run(ze_bench_thread_pair_t *p);
/* Ask both threads to quit, join them and destroy their semaphores. */
void ze_bench_thread_pair_stop(ze_bench_thread_pair_t *p);

/* Medians of ze_bench_speedup_rounds (ms per round as the round functions return them). */
typedef struct ze_bench_speedup_t {
    double serial;  /* T1 */
    double pool;    /* Tpool */
    double threads; /* T2 */
    double ratio;   /* median of the per-round T2/Tpool */
} ze_bench_speedup_t;

/* Warm up serial/pool/threads once, then `rounds` (<= 101) rounds in rotating order. */
ze_bench_speedup_t ze_bench_speedup_rounds(uint32_t rounds, ze_bench_round_fn serial,
                                           ze_bench_round_fn pool, ze_bench_round_fn threads,
                                           void *ctx);

#endif /* ZENGINE_BENCH_H */
