/* mem_bench.c — bench_mem: arenas, pools and the heap against malloc/free.
 *
 * Every allocator row runs the same precomputed operation sequence through
 * the engine allocator and through malloc/free (ze_mem_sys_alloc/free, the
 * obvious way), in interleaved rounds; rows report the medians in ns per
 * operation. Random sizes and indices are drawn before timing starts. Each
 * allocated block gets its first 8 bytes written, as a user would.
 * rss_default_profile measures what creating a manager with the Default
 * profile adds to the resident set, in a child forked before anything else
 * ran.
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/mem.h"

enum {
    BLOCK_SIZE = 64,
    HEAP_MIN_SIZE = 16,
    HEAP_MAX_SIZE = 4096,
};

/* Untimed scratch arrays (index lists, pointer tables). */
static void *table_alloc(size_t bytes)
{
    void *p = ze_mem_sys_alloc(bytes);
    ZE_VERIFY_MSG(p != NULL, "mem_bench: out of memory for a table");
    return p;
}

static inline void touch(void *block, uint64_t v)
{
    memcpy(block, &v, sizeof(v));
}

/* ------------------------------------------------------------- rss (child) */

typedef struct rss_report_t {
    int ok;
    int64_t rss_before, rss_after;
    int64_t anon_before, anon_after;
    uint64_t capacity, reserved, committed;
} rss_report_t;

/* Fork before any other benchmark touches memory; the child creates a
 * Default-profile manager and reports what its resident set gained. */
static void default_rss_child(void *report, void *ctx)
{
    rss_report_t *r = report;
    r->rss_before = ze_bench_proc_status_bytes("VmRSS");
    r->anon_before = ze_bench_proc_status_bytes("RssAnon");
    ze_mem_t *mm = NULL;
    ze_result res = ze_mem_create(&(ze_mem_desc_t){.profile = ZE_MEM_PROFILE_DEFAULT}, &mm);
    r->rss_after = ze_bench_proc_status_bytes("VmRSS");
    r->anon_after = ze_bench_proc_status_bytes("RssAnon");
    if (res == ZE_OK) {
        ze_mem_owner_stats_t stats[ZE_MEM_OWNER_COUNT];
        ze_mem_snapshot(mm, stats);
        for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++) {
            r->reserved += stats[i].reserved;
            r->committed += stats[i].current;
        }
        r->capacity = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT).capacity;
        r->ok = r->rss_before >= 0 && r->rss_after >= 0;
        ze_mem_destroy(mm);
    }
}

static bool measure_default_rss(rss_report_t *out)
{
    return ze_bench_run_in_child(default_rss_child, NULL, out, sizeof(*out)) && out->ok;
}

/* ------------------------------------------------------------- arena_push */

typedef struct arena_ctx_t {
    ze_arena_t arena;
    uint64_t ops;         /* pushes per round, a multiple of reset_every */
    uint32_t reset_every; /* pushes between resets */
    void **ptrs;          /* baseline: blocks to free at each "reset" */
    bool failed;
} arena_ctx_t;

static double arena_round(void *p)
{
    arena_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i += c->reset_every) {
        for (uint32_t j = 0; j < c->reset_every; j++) {
            void *b = ze_arena_push(&c->arena, BLOCK_SIZE, 16);
            if (!b) {
                c->failed = true;
                return NAN;
            }
            touch(b, i + j);
            ze_bench_do_not_optimize(b);
        }
        ze_arena_reset(&c->arena);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

static double arena_malloc_round(void *p)
{
    arena_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i += c->reset_every) {
        for (uint32_t j = 0; j < c->reset_every; j++) {
            void *b = ze_mem_sys_alloc(BLOCK_SIZE);
            if (!b) {
                c->failed = true;
                return NAN;
            }
            touch(b, i + j);
            c->ptrs[j] = b;
        }
        for (uint32_t j = 0; j < c->reset_every; j++)
            ze_mem_sys_free(c->ptrs[j]);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->ops;
}

static void bench_arena(ze_bench_t *b, ze_mem_t *mm)
{
    const char *name = "arena_push";
    arena_ctx_t c = {0};
    c.reset_every = (uint32_t)ze_bench_size(b, 4096, 256);
    c.ops = ze_bench_size(b, 4096 * 1024, 256 * 64);
    /* Room to spare: pass-through builds put redzones between pushes. */
    size_t arena_size = (size_t)c.reset_every * BLOCK_SIZE * 4 + ZE_MIB(1);
    if (ze_arena_init(&c.arena, mm, ZE_MEM_OWNER_GAME, arena_size) != ZE_OK) {
        ze_bench_fail(b, name, "ze_arena_init failed");
        return;
    }
    c.ptrs = table_alloc(c.reset_every * sizeof(void *));
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), arena_round, &c, arena_malloc_round, &c);
    if (c.failed)
        ze_bench_fail(b, name, "an allocation failed");
    else
        ze_bench_add(b, name, c.reset_every, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline,
                     ZE_BENCH_NONE);
    ze_mem_sys_free(c.ptrs);
    ze_arena_release(&c.arena);
}

/* -------------------------------------------------------- pool_alloc_free */

typedef struct churn_ctx_t {
    ze_pool_t pool;
    ze_heap_t *heap;
    uint32_t live;   /* working set: blocks alive at any time */
    uint64_t ops;    /* one op = free a random live block + allocate one */
    uint32_t *index; /* [ops]: which live block each op replaces */
    uint32_t *sizes; /* heap: [live + ops] sizes, fill then one per op */
    void **blocks;   /* [live] */
    bool failed;
} churn_ctx_t;

static double pool_round(void *p)
{
    churn_ctx_t *c = p;
    for (uint32_t i = 0; i < c->live; i++) {
        c->blocks[i] = ze_pool_alloc(&c->pool);
        if (!c->blocks[i]) {
            c->failed = true;
            return NAN;
        }
        touch(c->blocks[i], i);
    }
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        uint32_t k = c->index[i];
        ze_pool_free(&c->pool, c->blocks[k]);
        void *blk = ze_pool_alloc(&c->pool);
        if (!blk) {
            c->failed = true;
            break;
        }
        touch(blk, i);
        c->blocks[k] = blk;
    }
    uint64_t t1 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->live; i++)
        ze_pool_free(&c->pool, c->blocks[i]);
    return c->failed ? NAN : (double)(t1 - t0) / (double)c->ops;
}

static double pool_malloc_round(void *p)
{
    churn_ctx_t *c = p;
    for (uint32_t i = 0; i < c->live; i++) {
        c->blocks[i] = ze_mem_sys_alloc(BLOCK_SIZE);
        if (!c->blocks[i]) {
            c->failed = true;
            return NAN;
        }
        touch(c->blocks[i], i);
    }
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        uint32_t k = c->index[i];
        ze_mem_sys_free(c->blocks[k]);
        void *blk = ze_mem_sys_alloc(BLOCK_SIZE);
        if (!blk) {
            c->failed = true;
            break;
        }
        touch(blk, i);
        c->blocks[k] = blk;
    }
    uint64_t t1 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->live; i++)
        ze_mem_sys_free(c->blocks[i]);
    return c->failed ? NAN : (double)(t1 - t0) / (double)c->ops;
}

static void churn_tables(churn_ctx_t *c, bool sizes, uint64_t seed)
{
    ze_rng_t rng;
    ze_rng_seed(&rng, seed);
    c->index = table_alloc(c->ops * sizeof(uint32_t));
    c->blocks = table_alloc(c->live * sizeof(void *));
    for (uint64_t i = 0; i < c->ops; i++)
        c->index[i] = (uint32_t)ze_rng_below(&rng, c->live);
    if (!sizes)
        return;
    /* log-uniform in [16, 4096]: 16 * 2^(8u) */
    c->sizes = table_alloc((c->live + c->ops) * sizeof(uint32_t));
    double octaves = log2((double)HEAP_MAX_SIZE / HEAP_MIN_SIZE);
    for (uint64_t i = 0; i < c->live + c->ops; i++) {
        double s = HEAP_MIN_SIZE * exp2(octaves * ze_rng_unit(&rng));
        c->sizes[i] = (uint32_t)ZE_MIN(ZE_MAX(s, (double)HEAP_MIN_SIZE), (double)HEAP_MAX_SIZE);
    }
}

static void churn_free_tables(churn_ctx_t *c)
{
    ze_mem_sys_free(c->index);
    ze_mem_sys_free(c->blocks);
    ze_mem_sys_free(c->sizes);
}

static void bench_pool(ze_bench_t *b, ze_mem_t *mm)
{
    const char *name = "pool_alloc_free";
    churn_ctx_t c = {0};
    c.live = (uint32_t)ze_bench_size(b, 10000, 1000);
    c.ops = ze_bench_size(b, 4000000, 20000);
    ze_pool_desc_t pd = {.owner = ZE_MEM_OWNER_GAME,
                         .block_size = BLOCK_SIZE,
                         .block_align = 16,
                         .max_blocks = c.live + 1024};
    if (ze_pool_init(&c.pool, mm, &pd) != ZE_OK) {
        ze_bench_fail(b, name, "ze_pool_init failed");
        return;
    }
    churn_tables(&c, false, 0x9e3779b97f4a7c15ULL);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), pool_round, &c, pool_malloc_round, &c);
    if (c.failed)
        ze_bench_fail(b, name, "an allocation failed");
    else
        ze_bench_add(b, name, c.live, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline, ZE_BENCH_NONE);
    churn_free_tables(&c);
    ze_pool_release(&c.pool);
}

/* -------------------------------------------------------- heap_alloc_free */

static double heap_round(void *p)
{
    churn_ctx_t *c = p;
    for (uint32_t i = 0; i < c->live; i++) {
        c->blocks[i] = ze_heap_alloc(c->heap, c->sizes[i], 16);
        if (!c->blocks[i]) {
            c->failed = true;
            return NAN;
        }
        touch(c->blocks[i], i);
    }
    const uint32_t *sizes = c->sizes + c->live;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        uint32_t k = c->index[i];
        ze_heap_free(c->heap, c->blocks[k]);
        void *blk = ze_heap_alloc(c->heap, sizes[i], 16);
        if (!blk) {
            c->failed = true;
            break;
        }
        touch(blk, i);
        c->blocks[k] = blk;
    }
    uint64_t t1 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->live; i++)
        ze_heap_free(c->heap, c->blocks[i]);
    return c->failed ? NAN : (double)(t1 - t0) / (double)c->ops;
}

static double heap_malloc_round(void *p)
{
    churn_ctx_t *c = p;
    for (uint32_t i = 0; i < c->live; i++) {
        c->blocks[i] = ze_mem_sys_alloc(c->sizes[i]);
        if (!c->blocks[i]) {
            c->failed = true;
            return NAN;
        }
        touch(c->blocks[i], i);
    }
    const uint32_t *sizes = c->sizes + c->live;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->ops; i++) {
        uint32_t k = c->index[i];
        ze_mem_sys_free(c->blocks[k]);
        void *blk = ze_mem_sys_alloc(sizes[i]);
        if (!blk) {
            c->failed = true;
            break;
        }
        touch(blk, i);
        c->blocks[k] = blk;
    }
    uint64_t t1 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->live; i++)
        ze_mem_sys_free(c->blocks[i]);
    return c->failed ? NAN : (double)(t1 - t0) / (double)c->ops;
}

static void bench_heap(ze_bench_t *b, ze_mem_t *mm)
{
    const char *name = "heap_alloc_free";
    churn_ctx_t c = {0};
    c.live = (uint32_t)ze_bench_size(b, 10000, 1000);
    c.ops = ze_bench_size(b, 2000000, 20000);
    ze_heap_desc_t hd = {.owner = ZE_MEM_OWNER_GAME, .max_size = 0, .thread_safe = true};
    if (ze_heap_create(mm, &hd, &c.heap) != ZE_OK) {
        ze_bench_fail(b, name, "ze_heap_create failed");
        return;
    }
    churn_tables(&c, true, 0xd1b54a32d192ed03ULL);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), heap_round, &c, heap_malloc_round, &c);
    if (c.failed) {
        ze_bench_fail(b, name, "an allocation failed");
    } else if (ze_heap_check(c.heap) != ZE_OK) {
        ze_bench_fail(b, name, "ze_heap_check found the heap inconsistent");
    } else {
        ze_heap_stats_t st = ze_heap_stats(c.heap);
        printf("  heap after the rounds: %zu KiB committed, %u free blocks\n", st.committed / 1024,
               st.free_blocks);
        ze_bench_add(b, name, c.live, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline, ZE_BENCH_NONE);
    }
    churn_free_tables(&c);
    ze_heap_destroy(c.heap);
}

/* -------------------------------------------------------------------- main */

/* An engine process always has worker threads, and glibc's malloc skips its
 * locks while a process is single-threaded; a parked thread keeps the
 * baseline on the path the engine would see (the thread-safe heap pays for
 * its lock either way). */
typedef struct parked_t {
    pthread_t thread;
    sem_t wake;
} parked_t;

static void *parked_main(void *p)
{
    parked_t *t = p;
    ze_bench_sem_wait(&t->wake);
    return NULL;
}

static void park_thread(parked_t *t)
{
    ZE_VERIFY(sem_init(&t->wake, 0, 0) == 0);
    ZE_VERIFY(pthread_create(&t->thread, NULL, parked_main, t) == 0);
}

static void unpark_thread(parked_t *t)
{
    sem_post(&t->wake);
    pthread_join(t->thread, NULL);
    sem_destroy(&t->wake);
}

/* The Default profile, with the GAME owner given room for the working sets
 * whatever the profile's own GAME budget is. */
static ze_result bench_mem_create(ze_mem_t **mm)
{
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    const uint64_t want = ZE_GIB(1);
    if (cfg.budget[ZE_MEM_OWNER_GAME] < want) {
        uint64_t sum = 0;
        for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
            sum += cfg.budget[i];
        uint64_t extra = want - cfg.budget[ZE_MEM_OWNER_GAME];
        cfg.budget[ZE_MEM_OWNER_GAME] = want;
        if (sum + extra > cfg.capacity)
            cfg.capacity = sum + extra;
    }
    return ze_mem_create(&(ze_mem_desc_t){.config = &cfg}, mm);
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "mem", argc, argv);

    if (ze_bench_enabled(&b, "rss_default_profile")) {
        rss_report_t r;
        if (!measure_default_rss(&r)) {
            ze_bench_fail(&b, "rss_default_profile", "the child could not measure");
        } else {
            printf("  Default profile: capacity %.1f GiB, %.1f GiB handed to regions, %llu KiB "
                   "committed; VmRSS %lld -> %lld KiB, RssAnon %lld -> %lld KiB\n",
                   (double)r.capacity / (double)ZE_GIB(1), (double)r.reserved / (double)ZE_GIB(1),
                   (unsigned long long)(r.committed / 1024), (long long)(r.rss_before / 1024),
                   (long long)(r.rss_after / 1024), (long long)(r.anon_before / 1024),
                   (long long)(r.anon_after / 1024));
            /* Resident sets do not shrink when a manager is created; a
             * negative difference would be noise from page reclaim. */
            double growth = (double)ZE_MAX(r.rss_after - r.rss_before, 0);
            ze_bench_add(&b, "rss_default_profile", 1, "bytes", ZE_BENCH_LOWER, growth,
                         ZE_BENCH_NONE, ZE_BENCH_NONE);
            /* VmRSS also counts the code pages the first call faults in (with
             * fault-around, 64 KiB at a time); RssAnon is the memory the
             * manager itself made resident. */
            if (r.anon_before >= 0 && r.anon_after >= 0)
                ze_bench_add(&b, "rss_default_profile_anon", 1, "bytes", ZE_BENCH_LOWER,
                             (double)ZE_MAX(r.anon_after - r.anon_before, 0), ZE_BENCH_NONE,
                             ZE_BENCH_NONE);
        }
    }

    ze_mem_t *mm = NULL;
    ze_result res = bench_mem_create(&mm);
    if (res != ZE_OK) {
        ze_bench_fail(&b, "setup", "ze_mem_create: %s", ze_result_str(res));
        return ze_bench_finish(&b);
    }
    if (ze_mem_is_passthrough(mm))
        printf("  note: pass-through build, engine allocators forward to malloc\n");
    parked_t parked;
    park_thread(&parked);
    if (ze_bench_enabled(&b, "arena_push"))
        bench_arena(&b, mm);
    if (ze_bench_enabled(&b, "pool_alloc_free"))
        bench_pool(&b, mm);
    if (ze_bench_enabled(&b, "heap_alloc_free"))
        bench_heap(&b, mm);
    unpark_thread(&parked);
    ze_mem_destroy(mm);
    return ze_bench_finish(&b);
}
