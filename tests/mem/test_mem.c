/* Tests of the mem module: profiles, owners and budgets, regions, arenas,
 * pools, the TLSF heap, scratch, the 80 % warning and fault injection. Run
 * under ASan (pass-through build) as well as natively. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>

#include <pthread.h>
#include <string.h>

#include "zengine/mem.h"

static int setup_mm(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_mem_t *mm = NULL;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK)
        return -1;
    *state = mm;
    return 0;
}

static int teardown_mm(void **state)
{
    ze_mem_destroy(*state);
    ze_log_reset();
    return 0;
}

static void test_profiles(void **state)
{
    (void)state;
    for (int p = 0; p < ZE_MEM_PROFILE_COUNT; p++) {
        ze_mem_budget_config_t c = ze_mem_profile_config((ze_mem_profile)p);
        uint64_t sum = 0;
        for (int o = 0; o < ZE_MEM_OWNER_COUNT; o++)
            sum += c.budget[o];
        assert_true(c.capacity == ZE_GIB(8));
        assert_true(sum <= c.capacity);
        assert_true(c.budget[ZE_MEM_OWNER_BOOTSTRAP] > 0);
        ze_mem_profile parsed;
        assert_int_equal(ze_mem_profile_parse(ze_mem_profile_name((ze_mem_profile)p), &parsed),
                         ZE_OK);
        assert_int_equal(parsed, p);
    }
    ze_mem_profile x;
    assert_int_equal(ze_mem_profile_parse("huge", &x), ZE_ERR_PARSE);
    assert_true(ze_mem_profile_config(ZE_MEM_PROFILE_EDITOR).budget[ZE_MEM_OWNER_EDITOR] > 0);
    assert_true(ze_mem_profile_config(ZE_MEM_PROFILE_SERVER).budget[ZE_MEM_OWNER_UI] == 0);
    assert_string_equal(ze_mem_owner_name(ZE_MEM_OWNER_ECS), "ECS");
}

static void test_budgets_over_capacity_rejected(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(64)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(48);
    c.budget[ZE_MEM_OWNER_ECS] = ZE_MIB(32);
    ze_mem_t *mm = (ze_mem_t *)1;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &c}, &mm), ZE_ERR_INVALID_ARG);
    assert_null(mm);
}

static void test_region_commit_and_budget(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(64)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(4);
    ze_mem_t *mm;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &c}, &mm), ZE_OK);
    ze_mem_region_t r;
    /* Budget bounds the address space of an owner too. */
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_GAME, ZE_MIB(8), &r), ZE_ERR_BUDGET);
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_ECS, 4096, &r), ZE_ERR_BUDGET);
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_GAME, ZE_MIB(2), &r), ZE_OK);
    ze_mem_owner_stats_t s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.current == 0 && s.reserved >= ZE_MIB(2) && s.regions == 1);
    assert_int_equal(ze_mem_region_commit(&r, 100), ZE_OK);
    assert_true(r.committed >= 100);
    memset(r.base, 0xab, r.committed);
    s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.current == r.committed && s.peak == r.committed);
    assert_int_equal(ze_mem_region_commit(&r, ZE_MIB(3)), ZE_ERR_LIMIT);
    assert_int_equal(ze_mem_region_commit(&r, ZE_MIB(2)), ZE_OK);
    memset(r.base, 1, ZE_MIB(2));
    ze_mem_region_decommit(&r, 4096);
    s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.current == 4096 && s.peak == ZE_MIB(2));
    assert_int_equal(r.base[0], 1); /* kept pages keep their content */

    /* A second region that would push committed bytes over budget. */
    ze_mem_region_t r2;
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_GAME, ZE_MIB(1), &r2), ZE_OK);
    assert_int_equal(ze_mem_region_commit(&r2, ZE_MIB(1)), ZE_OK);
    ze_mem_region_release(&r);
    ze_mem_region_release(&r2);
    s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.current == 0 && s.reserved == 0 && s.regions == 0);
    /* Address space is reusable after release (extents coalesce). */
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_GAME, ZE_MIB(3), &r), ZE_OK);
    ze_mem_region_release(&r);
    ze_mem_destroy(mm);
}

static void test_budget_overrun_is_error(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(64)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(1);
    ze_mem_t *mm;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &c}, &mm), ZE_OK);
    ze_heap_t *h;
    assert_int_equal(
        ze_heap_create(mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME, .max_size = ZE_KIB(900)},
                       &h),
        ZE_OK);
    static void *blocks[1024];
    int got = 0;
    while (got < 1024 && (blocks[got] = ze_heap_alloc(h, 4096, 16)) != NULL)
        got++;
    /* Roughly the budget's worth, then a clean NULL (no crash). */
    assert_true(got > 150 && got < 260);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).failures > 0);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current <= ZE_MIB(1));
    for (int i = 0; i < got; i++)
        ze_heap_free(h, blocks[i]);
    ze_heap_destroy(h);
    ze_mem_destroy(mm);
}

static void capture_errors(void *user, const ze_log_record_t *rec);

/* A growing heap: small blocks past its first range go to further
 * segments, large blocks to regions of their own whose pages go back to
 * the owner on free; the heap checks out throughout and holds up to the
 * budget, not to its first range. */
static void test_heap_grows_by_regions(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(256)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(96);
    ze_mem_t *mm;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &c}, &mm), ZE_OK);
    ze_heap_t *h;
    assert_int_equal(ze_heap_create(mm,
                                    &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME,
                                                      .max_size = ZE_MIB(2),
                                                      .thread_safe = true,
                                                      .grow = true},
                                    &h),
                     ZE_OK);
    enum { SMALL = 3000 };
    static uint8_t *small[SMALL];
    for (int i = 0; i < SMALL; i++) { /* ~12 MiB of 4 KiB blocks: six times the first range */
        small[i] = ze_heap_alloc(h, 4096, 64);
        assert_non_null(small[i]);
        assert_int_equal((uintptr_t)small[i] % 64, 0);
        memset(small[i], i & 0xff, 4096);
    }
    assert_int_equal(ze_heap_check(h), ZE_OK);
    /* Two huge blocks, one aligned, one grown by realloc. */
    uint8_t *huge = ze_heap_alloc(h, ZE_MIB(40), 4096);
    assert_non_null(huge);
    assert_int_equal((uintptr_t)huge % 4096, 0);
    memset(huge, 0xab, ZE_MIB(40));
    assert_true(ze_heap_block_size(h, huge) >= ZE_MIB(40));
    uint8_t *grown = ze_heap_alloc(h, 100, 16);
    memset(grown, 0x5c, 100);
    grown = ze_heap_realloc(h, grown, ZE_MIB(3), 16);
    assert_non_null(grown);
    assert_int_equal(grown[99], 0x5c);
    grown = ze_heap_realloc(h, grown, ZE_MIB(20), 16);
    assert_non_null(grown);
    assert_int_equal(grown[0], 0x5c);
    ze_heap_stats_t st = ze_heap_stats(h);
    assert_int_equal(st.live_blocks, SMALL + 2);
    assert_true(st.used >= (size_t)SMALL * 4096 + ZE_MIB(60));
    assert_true(st.committed >= st.used);
    for (int i = 0; i < SMALL; i++)
        assert_int_equal(small[i][4095], i & 0xff);
    assert_int_equal(ze_heap_check(h), ZE_OK);
    /* More than the budget: refused cleanly. */
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = capture_errors});
    assert_null(ze_heap_alloc(h, ZE_MIB(60), 16));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    uint64_t before = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current;
    ze_heap_free(h, huge);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current + ZE_MIB(40) <= before);
    ze_heap_free(h, grown);
    /* The freed range is reusable: now the 60 MiB fit. */
    void *again = ze_heap_alloc(h, ZE_MIB(60), 16);
    assert_non_null(again);
    ze_heap_free(h, again);
    for (int i = 0; i < SMALL; i += 2)
        ze_heap_free(h, small[i]);
    assert_int_equal(ze_heap_check(h), ZE_OK);
    for (int i = 1; i < SMALL; i += 2)
        ze_heap_free(h, small[i]);
    assert_int_equal(ze_heap_check(h), ZE_OK);
    assert_int_equal(ze_heap_stats(h).live_blocks, 0);
    ze_heap_destroy(h);
    ze_mem_owner_stats_t s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.current == 0 && s.reserved == 0 && s.regions == 0);
    ze_mem_destroy(mm);
}

static void test_warning_at_80_percent_with_cooldown(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(64)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(1);
    ze_mem_t *mm;
    assert_int_equal(
        ze_mem_create(&(ze_mem_desc_t){.config = &c, .warn_cooldown_ns = 3600ull * 1000000000ull},
                      &mm),
        ZE_OK);
    ze_mem_region_t r;
    assert_int_equal(ze_mem_region_reserve(mm, ZE_MEM_OWNER_GAME, ZE_KIB(1000), &r), ZE_OK);
    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    assert_int_equal(ze_mem_region_commit(&r, ZE_KIB(700)), ZE_OK);
    assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).warnings, 0);
    assert_int_equal(ze_mem_region_commit(&r, ZE_KIB(900)), ZE_OK);
    assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).warnings, 1);
    assert_true(ze_log_count(ZE_LOG_WARN) > warns);
    /* Drop below and cross again: the cooldown keeps it quiet. */
    ze_mem_region_decommit(&r, ZE_KIB(128));
    assert_int_equal(ze_mem_region_commit(&r, ZE_KIB(900)), ZE_OK);
    assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).warnings, 1);
    ze_mem_region_release(&r);
    ze_mem_destroy(mm);
}

static void test_arena(void **state)
{
    ze_mem_t *mm = *state;
    ze_arena_t a;
    assert_int_equal(ze_arena_init(&a, mm, ZE_MEM_OWNER_GAME, ZE_MIB(1)), ZE_OK);
    uint8_t *p1 = ze_arena_push(&a, 10, 1);
    assert_non_null(p1);
    memset(p1, 1, 10);
    ze_arena_marker_t m = ze_arena_marker(&a);
    uint64_t *p2 = ze_arena_push(&a, 64, 64);
    assert_non_null(p2);
    assert_int_equal((uintptr_t)p2 % 64, 0);
    p2[7] = 42;
    int *z = ZE_ARENA_NEW(&a, int);
    assert_int_equal(*z, 0);
    ze_arena_pop_to(&a, m);
    uint64_t *p3 = ze_arena_push(&a, 64, 64);
    assert_ptr_equal(p3, p2);                      /* popped space is reused */
    assert_null(ze_arena_push(&a, ZE_MIB(2), 16)); /* over the arena's size */
    ze_arena_reset(&a);
    assert_int_equal(ze_arena_marker(&a), 0);
    /* Fill most of it: pages are committed on demand. */
    for (int i = 0; i < 15; i++)
        assert_non_null(ze_arena_push(&a, ZE_KIB(60), 16));
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current >= ZE_KIB(900));
    ze_arena_reset(&a);
    ze_arena_trim(&a, 0);
    assert_int_equal(a.region.committed, 0);
    ze_arena_release(&a);
}

static void test_arena_allocator_grows_last_block(void **state)
{
    ze_mem_t *mm = *state;
    ze_arena_t a;
    assert_int_equal(ze_arena_init(&a, mm, ZE_MEM_OWNER_GAME, ZE_MIB(1)), ZE_OK);
    ze_allocator_t al = ze_arena_allocator(&a);
    ze_array_t arr;
    ZE_ARRAY_INIT(&arr, al, uint32_t);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(ze_array_push(&arr, &i), ZE_OK);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(ZE_ARRAY_AT(&arr, uint32_t, i), i);
    /* Growing in place keeps the arena compact: far below the sum of all
     * the intermediate capacities. */
    assert_true(ze_arena_marker(&a) < 10000 * 4 * 2 + 256);
    ze_array_free(&arr);
    assert_true(ze_arena_marker(&a) < 64);
    ze_arena_release(&a);
}

static void test_pool(void **state)
{
    ze_mem_t *mm = *state;
    ze_pool_t p;
    assert_int_equal(
        ze_pool_init(
            &p, mm,
            &(ze_pool_desc_t){.owner = ZE_MEM_OWNER_GAME, .block_size = 24, .max_blocks = 100}),
        ZE_OK);
    void *blocks[100];
    for (int i = 0; i < 100; i++) {
        blocks[i] = ze_pool_alloc(&p);
        assert_non_null(blocks[i]);
        assert_int_equal((uintptr_t)blocks[i] % 16, 0);
        memset(blocks[i], i, 24);
    }
    assert_null(ze_pool_alloc(&p)); /* full */
    for (int i = 0; i < 100; i++)
        assert_int_equal(((uint8_t *)blocks[i])[23], i); /* no overlap */
    ze_pool_free(&p, blocks[50]);
    void *again = ze_pool_alloc(&p);
    assert_non_null(again);
    if (!ze_mem_is_passthrough(mm))
        assert_ptr_equal(again, blocks[50]);
    blocks[50] = again;
    for (int i = 0; i < 100; i++)
        ze_pool_free(&p, blocks[i]);
    assert_int_equal(p.live, 0);
    ze_pool_release(&p);
    assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current, 0);
}

static void heap_random_ops(ze_mem_t *mm, bool thread_safe, uint64_t seed)
{
    ze_heap_t *h;
    assert_int_equal(ze_heap_create(mm,
                                    &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME,
                                                      .max_size = ZE_MIB(64),
                                                      .thread_safe = thread_safe},
                                    &h),
                     ZE_OK);
    enum { LIVE = 2000 };
    static struct {
        uint8_t *p;
        size_t n;
        uint8_t tag;
    } live[LIVE];
    memset(live, 0, sizeof live);
    ze_rng_t rng;
    ze_rng_seed(&rng, seed);
    for (int step = 0; step < 40000; step++) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, LIVE);
        if (live[i].p) {
            for (size_t k = 0; k < live[i].n; k += 61)
                assert_int_equal(live[i].p[k], live[i].tag);
            if (ze_rng_below(&rng, 4) == 0) {
                size_t n = 1 + ze_rng_below(&rng, 8192);
                uint8_t *q = ze_heap_realloc(h, live[i].p, n, 16);
                assert_non_null(q);
                size_t keep = n < live[i].n ? n : live[i].n;
                for (size_t k = 0; k < keep; k += 61)
                    assert_int_equal(q[k], live[i].tag);
                memset(q, live[i].tag, n);
                live[i].p = q;
                live[i].n = n;
            } else {
                ze_heap_free(h, live[i].p);
                live[i].p = NULL;
            }
        } else {
            /* Log-uniform sizes 1..65536, some over-aligned. */
            size_t n = (size_t)1 << ze_rng_below(&rng, 16);
            n += ze_rng_below(&rng, n);
            size_t align =
                ze_rng_below(&rng, 8) == 0 ? (size_t)1 << (4 + ze_rng_below(&rng, 9)) : 16;
            uint8_t *p = ze_heap_alloc(h, n, align);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % align, 0);
            assert_true(ze_heap_block_size(h, p) >= n);
            live[i].p = p;
            live[i].n = n;
            live[i].tag = (uint8_t)step;
            memset(p, live[i].tag, n);
        }
        if (step % 4000 == 0)
            assert_int_equal(ze_heap_check(h), ZE_OK);
    }
    ze_heap_stats_t st = ze_heap_stats(h);
    uint32_t n_live = 0;
    for (int i = 0; i < LIVE; i++)
        n_live += live[i].p != NULL;
    assert_int_equal(st.live_blocks, n_live);
    for (int i = 0; i < LIVE; i++)
        ze_heap_free(h, live[i].p);
    assert_int_equal(ze_heap_check(h), ZE_OK);
    st = ze_heap_stats(h);
    assert_int_equal(st.live_blocks, 0);
    assert_int_equal(st.used, 0);
    if (!ze_mem_is_passthrough(mm)) {
        assert_true(st.cached_blocks > 0); /* small frees were cached */
        ze_heap_trim(h);
        assert_int_equal(ze_heap_check(h), ZE_OK);
        st = ze_heap_stats(h);
        assert_int_equal(st.cached_blocks, 0);
        assert_int_equal(st.free_blocks, 1); /* everything merged back */
    }
    ze_heap_destroy(h);
}

static void test_heap_random(void **state)
{
    heap_random_ops(*state, false, 1);
    heap_random_ops(*state, true, 2);
}

static void test_heap_native_and_passthrough(void **state)
{
    (void)state;
    for (int mode = -1; mode <= 1; mode += 2) {
        ze_mem_t *mm;
        assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.passthrough = mode}, &mm), ZE_OK);
        assert_int_equal(ze_mem_is_passthrough(mm), mode > 0);
        heap_random_ops(mm, true, 3);
        assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current, 0);
        ze_mem_destroy(mm);
    }
}

typedef struct heap_thread_arg_t {
    ze_heap_t *h;
    uint64_t seed;
    bool huge; /* one allocation in 64 is 1 MiB or more */
} heap_thread_arg_t;

static void *heap_thread(void *arg)
{
    heap_thread_arg_t *t = arg;
    void *mine[256] = {0};
    ze_rng_t rng;
    ze_rng_seed(&rng, t->seed);
    for (int step = 0; step < 50000; step++) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, 256);
        if (mine[i]) {
            if (*(uint64_t *)mine[i] != t->seed + i)
                return (void *)1;
            ze_heap_free(t->h, mine[i]);
            mine[i] = NULL;
        } else {
            size_t size = 16 + ze_rng_below(&rng, 2000);
            if (t->huge && ze_rng_below(&rng, 64) == 0)
                size += ZE_MIB(1);
            mine[i] = ze_heap_alloc(t->h, size, 16);
            if (!mine[i])
                return (void *)1;
            *(uint64_t *)mine[i] = t->seed + i;
        }
    }
    for (int i = 0; i < 256; i++)
        ze_heap_free(t->h, mine[i]);
    return NULL;
}

static void test_heap_thread_safe_concurrent(void **state)
{
    ze_mem_t *mm = *state;
    ze_heap_t *h;
    assert_int_equal(
        ze_heap_create(mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME, .thread_safe = true}, &h),
        ZE_OK);
    pthread_t th[4];
    heap_thread_arg_t args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (heap_thread_arg_t){h, 1000u * (uint64_t)(i + 1), false};
        pthread_create(&th[i], NULL, heap_thread, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(th[i], &ret);
        assert_null(ret);
    }
    assert_int_equal(ze_heap_check(h), ZE_OK);
    assert_int_equal(ze_heap_stats(h).live_blocks, 0);
    ze_heap_destroy(h);
}

/* The same on a growing heap whose first range is too small for the four
 * threads' blocks: segments are added and huge blocks come and go while
 * other threads allocate and free. */
static void test_heap_grows_concurrently(void **state)
{
    ze_mem_t *mm = *state;
    ze_heap_t *h;
    assert_int_equal(ze_heap_create(mm,
                                    &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME,
                                                      .max_size = ZE_KIB(512),
                                                      .thread_safe = true,
                                                      .grow = true},
                                    &h),
                     ZE_OK);
    pthread_t th[4];
    heap_thread_arg_t args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (heap_thread_arg_t){h, 7000u * (uint64_t)(i + 1), true};
        pthread_create(&th[i], NULL, heap_thread, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(th[i], &ret);
        assert_null(ret);
    }
    assert_int_equal(ze_heap_check(h), ZE_OK);
    assert_int_equal(ze_heap_stats(h).live_blocks, 0);
    ze_heap_destroy(h);
    ze_mem_owner_stats_t s = ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME);
    assert_true(s.reserved == 0 && s.regions == 0 && s.current == 0); /* all back */
}

static void test_owner_allocator(void **state)
{
    ze_mem_t *mm = *state;
    ze_allocator_t a = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ECS);
    ze_allocator_t b = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ECS);
    assert_ptr_equal(a.user, b.user); /* one heap per owner */
    void *p = ze_alloc(a, 1000, 16);
    assert_non_null(p);
    p = ze_realloc(a, p, 1000, 5000, 16);
    assert_non_null(p);
    ze_free(a, p, 5000);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_ECS).regions >= 1 || ze_mem_is_passthrough(mm));
    /* An owner without a budget refuses, cleanly. */
    ze_allocator_t none = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_EDITOR);
    assert_null(ze_alloc(none, 16, 16));
}

/* Error records of the log, for the message tests. */
static char g_last_error[ZE_LOG_MESSAGE_MAX];
static uint32_t g_errors;
static void capture_errors(void *user, const ze_log_record_t *rec)
{
    (void)user;
    if (rec->level < ZE_LOG_ERROR)
        return;
    g_errors++;
    snprintf(g_last_error, sizeof g_last_error, "%s", rec->message);
}

/* A request a fixed heap cannot hold although the budget could (the
 * 100,000-entity scene of 23 MB in a 16 MiB heap of the 64 MiB Bootstrap
 * owner) is reported as a full heap, not as an exceeded budget; the
 * budget's own refusal keeps its message. The owner's own heap grows by
 * regions and takes that block. */
static void test_heap_full_is_not_a_budget_failure(void **state)
{
    ze_mem_t *mm = *state;
    if (ze_mem_is_passthrough(mm))
        skip(); /* every block comes from malloc: no heap to fill */
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = capture_errors});
    g_errors = 0;
    ze_heap_t *fixed;
    assert_int_equal(ze_heap_create(mm,
                                    &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_BOOTSTRAP,
                                                      .max_size = ZE_MIB(16),
                                                      .thread_safe = true},
                                    &fixed),
                     ZE_OK);
    assert_null(ze_heap_alloc(fixed, 23074847, 16));
    assert_int_equal(g_errors, 1);
    assert_non_null(strstr(g_last_error, "owner Bootstrap: its heap is full"));
    assert_non_null(strstr(g_last_error, "23074847"));
    assert_null(strstr(g_last_error, "budget exceeded"));
    ze_heap_destroy(fixed);
    ze_allocator_t boot = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP);
    void *big = ze_alloc(boot, 23074847, 16);
    assert_non_null(big);
    memset(big, 7, 23074847);
    ze_free(boot, big, 23074847);
    assert_int_equal(g_errors, 1);
    /* A region bigger than an owner's whole range (another owner: reports
     * of one owner are rate-limited): its range, not its budget. */
    ze_mem_region_t r;
    uint64_t input = ze_mem_owner_stats(mm, ZE_MEM_OWNER_INPUT).budget;
    assert_int_not_equal(
        ze_mem_region_reserve(mm, ZE_MEM_OWNER_INPUT, (size_t)input + ZE_MIB(1), &r), ZE_OK);
    assert_int_equal(g_errors, 2);
    assert_non_null(strstr(g_last_error, "owner Input: no room in its address range"));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
}

/* Regression: a fresh heap grew by exactly the request, then searched one
 * size class higher and failed for large first allocations. */
static void test_heap_large_first_allocation(void **state)
{
    ze_mem_t *mm = *state;
    const size_t sizes[] = {20000000, 32000000, 16u << 20, 33554432, 1000000};
    for (size_t i = 0; i < ZE_COUNTOF(sizes); i++) {
        ze_heap_t *h;
        assert_int_equal(
            ze_heap_create(
                mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME, .max_size = ZE_MIB(48)}, &h),
            ZE_OK);
        void *p = ze_heap_alloc(h, sizes[i], 16);
        assert_non_null(p);
        memset(p, 1, sizes[i]);
        ze_heap_free(h, p);
        assert_int_equal(ze_heap_check(h), ZE_OK);
        ze_heap_destroy(h);
    }
    void *q = ze_alloc(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME), 20000000, 16);
    assert_non_null(q);
    ze_free(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME), q, 20000000);
}

static void test_scratch_nests(void **state)
{
    ze_mem_t *mm = *state;
    ze_scratch_t s1 = ze_scratch_begin(mm);
    assert_non_null(s1.arena);
    char *a = ze_arena_push(s1.arena, 100, 1);
    strcpy(a, "outer");
    ze_scratch_t s2 = ze_scratch_begin(mm);
    assert_ptr_equal(s2.arena, s1.arena);
    char *b = ze_arena_push(s2.arena, ZE_MIB(1), 16);
    assert_non_null(b);
    ze_scratch_end(s2);
    assert_string_equal(a, "outer");
    assert_int_equal(ze_arena_marker(s1.arena), s2.marker);
    ze_scratch_end(s1);
    assert_int_equal(ze_arena_marker(s1.arena), 0);
}

/* A scope that needs 2 MiB every time keeps its pages committed (no page
 * faults on every use); once uses get small, the burst's pages are given
 * back within the trim window (64 outermost ends), down to 256 KiB. */
static void test_scratch_keeps_what_is_used(void **state)
{
    ze_mem_t *mm = *state;
    for (int i = 0; i < 200; i++) {
        ze_scratch_t s = ze_scratch_begin(mm);
        assert_non_null(ze_arena_push(s.arena, ZE_MIB(2), 16));
        ze_scratch_end(s);
        assert_true(s.arena->region.committed >= ZE_MIB(2));
    }
    ze_arena_t *arena = NULL;
    for (int i = 0; i < 2 * 64; i++) {
        ze_scratch_t s = ze_scratch_begin(mm);
        arena = s.arena;
        assert_non_null(ze_arena_push(s.arena, 1000, 16));
        ze_scratch_end(s);
    }
    assert_true(arena->region.committed <= ZE_KIB(256));
}

static void test_fault_injection_nth(void **state)
{
    ze_mem_t *mm = *state;
    ze_pool_t p;
    assert_int_equal(
        ze_pool_init(&p, mm, &(ze_pool_desc_t){.owner = ZE_MEM_OWNER_GAME, .block_size = 32}),
        ZE_OK);
    /* Sweep: fail each of the first 5 allocations in turn. */
    for (uint64_t n = 1; n <= 5; n++) {
        ze_mem_fault_fail_nth(mm, n);
        void *got[5];
        for (uint64_t i = 1; i <= 5; i++) {
            got[i - 1] = ze_pool_alloc(&p);
            if (i == n)
                assert_null(got[i - 1]);
            else
                assert_non_null(got[i - 1]);
        }
        for (int i = 0; i < 5; i++)
            ze_pool_free(&p, got[i]);
    }
    ze_mem_fault_fail_nth(mm, UINT64_MAX);
    ze_heap_t *h;
    assert_int_equal(ze_heap_create(mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME}, &h), ZE_OK);
    void *x = ze_heap_alloc(h, 100, 16);
    assert_non_null(x);
    assert_true(ze_mem_fault_counter(mm) >= 2); /* reserve (+commit) + alloc */
    ze_heap_free(h, x);
    ze_heap_destroy(h);
    ze_mem_fault_fail_nth(mm, 0);
    ze_pool_release(&p);
}

static void test_fault_injection_owner(void **state)
{
    ze_mem_t *mm = *state;
    ze_arena_t a;
    assert_int_equal(ze_arena_init(&a, mm, ZE_MEM_OWNER_UI, 0), ZE_OK);
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_UI, true);
    assert_null(ze_arena_push(&a, 8, 8));
    ze_arena_t b;
    assert_int_equal(ze_arena_init(&b, mm, ZE_MEM_OWNER_UI, 0), ZE_ERR_FAULT_INJECTED);
    /* Other owners are unaffected. */
    ze_arena_t c;
    assert_int_equal(ze_arena_init(&c, mm, ZE_MEM_OWNER_GAME, 0), ZE_OK);
    assert_non_null(ze_arena_push(&c, 8, 8));
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_UI, false);
    assert_non_null(ze_arena_push(&a, 8, 8));
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_UI).failures >= 2);
    ze_arena_release(&a);
    ze_arena_release(&c);
}

/* Every allocation of a small multi-allocation routine fails in turn; each
 * failure must be reported and leave nothing behind (ASan checks leaks). */
static ze_result build_structure(ze_mem_t *mm, ze_heap_t **out_heap, ze_pool_t *pool)
{
    ze_heap_t *h;
    ze_result r = ze_heap_create(mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_GAME}, &h);
    if (r != ZE_OK)
        return r;
    r = ze_pool_init(pool, mm, &(ze_pool_desc_t){.owner = ZE_MEM_OWNER_GAME, .block_size = 48});
    if (r != ZE_OK)
        goto fail_heap;
    void *a = ze_heap_alloc(h, 300, 16);
    void *b = ze_pool_alloc(pool);
    void *c = ze_heap_alloc(h, 5000, 64);
    if (!a || !b || !c) {
        ze_heap_free(h, a);
        ze_pool_free(pool, b);
        ze_heap_free(h, c);
        r = ZE_ERR_OUT_OF_MEMORY;
        goto fail_pool;
    }
    ze_heap_free(h, a);
    ze_pool_free(pool, b);
    ze_heap_free(h, c);
    *out_heap = h;
    return ZE_OK;
fail_pool:
    ze_pool_release(pool);
fail_heap:
    ze_heap_destroy(h);
    return r;
}

static void test_fault_sweep(void **state)
{
    ze_mem_t *mm = *state;
    ze_heap_t *h;
    ze_pool_t pool;
    ze_mem_fault_fail_nth(mm, UINT64_MAX);
    assert_int_equal(build_structure(mm, &h, &pool), ZE_OK);
    uint64_t total = ze_mem_fault_counter(mm);
    ze_heap_destroy(h);
    ze_pool_release(&pool);
    assert_true(total >= 4);
    for (uint64_t n = 1; n <= total; n++) {
        ze_mem_fault_fail_nth(mm, n);
        assert_int_not_equal(build_structure(mm, &h, &pool), ZE_OK);
        assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).current, 0);
        assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).regions, 0);
    }
    ze_mem_fault_fail_nth(mm, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_budgets_over_capacity_rejected),
        cmocka_unit_test(test_region_commit_and_budget),
        cmocka_unit_test(test_budget_overrun_is_error),
        cmocka_unit_test(test_heap_grows_by_regions),
        cmocka_unit_test(test_warning_at_80_percent_with_cooldown),
        cmocka_unit_test_setup_teardown(test_arena, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_arena_allocator_grows_last_block, setup_mm,
                                        teardown_mm),
        cmocka_unit_test_setup_teardown(test_pool, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_heap_random, setup_mm, teardown_mm),
        cmocka_unit_test(test_heap_native_and_passthrough),
        cmocka_unit_test_setup_teardown(test_heap_thread_safe_concurrent, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_heap_grows_concurrently, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_owner_allocator, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_heap_full_is_not_a_budget_failure, setup_mm,
                                        teardown_mm),
        cmocka_unit_test_setup_teardown(test_heap_large_first_allocation, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_scratch_nests, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_scratch_keeps_what_is_used, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_fault_injection_nth, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_fault_injection_owner, setup_mm, teardown_mm),
        cmocka_unit_test_setup_teardown(test_fault_sweep, setup_mm, teardown_mm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
