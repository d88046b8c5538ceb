/* The mem module's allocation counter (ze_mem_owner_stats_t.allocations and
 * ze_mem_allocation_count): exactly one count per successful heap, owner
 * allocator and pool allocation, none for frees, arena pushes, in-place
 * resizes or refused allocations; per owner; per manager. Each case runs
 * with the native allocators and in pass-through mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/mem.h"

enum { N = 1000 };

static ze_mem_t *make_mm(int passthrough)
{
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.passthrough = passthrough}, &mm), ZE_OK);
    return mm;
}

static uint64_t owner_allocs(ze_mem_t *mm, ze_mem_owner o)
{
    return ze_mem_owner_stats(mm, o).allocations;
}

static void check_owner_allocator(int passthrough)
{
    ze_mem_t *mm = make_mm(passthrough);
    assert_int_equal(ze_mem_allocation_count(mm), 0);
    ze_allocator_t a = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME);
    assert_int_equal(ze_mem_allocation_count(mm), 0); /* creating the heap is not one */
    static void *blocks[N];
    for (int i = 0; i < N; i++) {
        blocks[i] = ze_alloc(a, 16 + (size_t)(i % 300), 16);
        assert_non_null(blocks[i]);
    }
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_GAME), N);
    assert_int_equal(ze_mem_allocation_count(mm), N);
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_RENDER), 0);
    for (int i = 0; i < N; i++)
        ze_free(a, blocks[i], 16 + (size_t)(i % 300));
    assert_int_equal(ze_mem_allocation_count(mm), N); /* frees are not counted */

    /* A realloc that moves its block is one allocation; a shrink in place
     * (native heap) is none, in pass-through every resize moves. */
    void *p = ze_alloc(a, 64, 16);
    assert_int_equal(ze_mem_allocation_count(mm), N + 1);
    p = ze_realloc(a, p, 64, 100000, 16);
    assert_non_null(p);
    assert_int_equal(ze_mem_allocation_count(mm), N + 2);
    p = ze_realloc(a, p, 100000, 32, 16);
    assert_non_null(p);
    uint64_t want = N + 2 + (ze_mem_is_passthrough(mm) ? 1 : 0);
    assert_int_equal(ze_mem_allocation_count(mm), want);
    ze_free(a, p, 32);

    /* Another owner counts on its own. */
    ze_allocator_t r = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_RENDER);
    void *q = ze_alloc(r, 48, 16);
    assert_non_null(q);
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_RENDER), 1);
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_GAME), want);
    assert_int_equal(ze_mem_allocation_count(mm), want + 1);
    ze_free(r, q, 48);

    ze_mem_owner_stats_t snap[ZE_MEM_OWNER_COUNT];
    ze_mem_snapshot(mm, snap);
    assert_int_equal(snap[ZE_MEM_OWNER_GAME].allocations, want);
    assert_int_equal(snap[ZE_MEM_OWNER_RENDER].allocations, 1);
    ze_mem_destroy(mm);
}

static void test_owner_allocator_native(void **state)
{
    (void)state;
    check_owner_allocator(-1);
}

static void test_owner_allocator_passthrough(void **state)
{
    (void)state;
    check_owner_allocator(1);
}

static void check_heap_pool_arena(int passthrough)
{
    ze_mem_t *mm = make_mm(passthrough);
    ze_heap_t *h = NULL;
    assert_int_equal(ze_heap_create(mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_ECS}, &h), ZE_OK);
    static void *blocks[N];
    for (int i = 0; i < N; i++)
        assert_non_null(blocks[i] = ze_heap_alloc(h, 8 + (size_t)i * 7, i % 3 ? 16 : 256));
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_ECS), N);
    for (int i = 0; i < N; i++)
        ze_heap_free(h, blocks[i]);
    assert_null(ze_heap_alloc(h, 0, 16)); /* size 0: no allocation */
    assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_ECS), N);
    ze_heap_destroy(h);

    /* Pool: carved and recycled blocks count alike. */
    ze_pool_t pool;
    assert_int_equal(
        ze_pool_init(
            &pool, mm,
            &(ze_pool_desc_t){.owner = ZE_MEM_OWNER_JOB, .block_size = 40, .max_blocks = N}),
        ZE_OK);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++)
            assert_non_null(blocks[i] = ze_pool_alloc(&pool));
        assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_JOB), (uint64_t)(round + 1) * N);
        if (round == 0) {
            assert_null(ze_pool_alloc(&pool)); /* full: refused, not counted */
            assert_int_equal(owner_allocs(mm, ZE_MEM_OWNER_JOB), N);
        }
        for (int i = 0; i < N; i++)
            ze_pool_free(&pool, blocks[i]);
    }
    ze_pool_release(&pool);

    /* Arena pushes are not counted. */
    uint64_t before = ze_mem_allocation_count(mm);
    ze_arena_t arena;
    assert_int_equal(ze_arena_init(&arena, mm, ZE_MEM_OWNER_GAME, 1 << 20), ZE_OK);
    for (int i = 0; i < N; i++)
        assert_non_null(ze_arena_push(&arena, 24, 8));
    ze_allocator_t aa = ze_arena_allocator(&arena);
    assert_non_null(ze_alloc(aa, 100, 16));
    ze_arena_release(&arena);
    ze_scratch_t s = ze_scratch_begin(mm);
    assert_non_null(ze_arena_push(s.arena, 100, 16));
    ze_scratch_end(s);
    assert_int_equal(ze_mem_allocation_count(mm), before);
    assert_int_equal(ze_mem_allocation_count(mm), 3 * (uint64_t)N);
    ze_mem_destroy(mm);
}

static void test_heap_pool_arena_native(void **state)
{
    (void)state;
    check_heap_pool_arena(-1);
}

static void test_heap_pool_arena_passthrough(void **state)
{
    (void)state;
    check_heap_pool_arena(1);
}

/* Refused allocations (fault injection, budget) are not counted. */
static void test_failures_not_counted(void **state)
{
    (void)state;
    ze_mem_budget_config_t c = {.capacity = ZE_MIB(64)};
    c.budget[ZE_MEM_OWNER_GAME] = ZE_MIB(8);
    for (int pt = -1; pt <= 1; pt += 2) {
        ze_mem_t *mm = NULL;
        assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &c, .passthrough = pt}, &mm),
                         ZE_OK);
        ze_allocator_t a = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME);
        void *p = ze_alloc(a, 32, 16);
        assert_non_null(p);
        ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_GAME, true);
        assert_null(ze_alloc(a, 32, 16));
        ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_GAME, false);
        ze_mem_fault_fail_nth(mm, 1);
        assert_null(ze_alloc(a, 32, 16));
        ze_mem_fault_fail_nth(mm, 0);
        assert_null(ze_alloc(a, ZE_MIB(16), 16)); /* over the budget */
        assert_int_equal(ze_mem_allocation_count(mm), 1);
        assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_GAME).failures >= 3);
        ze_free(a, p, 32);
        ze_mem_destroy(mm);
    }
}

/* One thread alternating between two managers keeps their counts apart, and
 * a manager created after another was destroyed starts from zero. */
static void test_managers_counted_apart(void **state)
{
    (void)state;
    ze_mem_t *m1 = make_mm(0), *m2 = make_mm(0);
    ze_allocator_t a1 = ze_mem_owner_allocator(m1, ZE_MEM_OWNER_GAME);
    ze_allocator_t a2 = ze_mem_owner_allocator(m2, ZE_MEM_OWNER_GAME);
    for (int i = 0; i < N; i++) {
        ze_free(a1, ze_alloc(a1, 32, 16), 32);
        if (i % 3 == 0)
            ze_free(a2, ze_alloc(a2, 32, 16), 32);
    }
    assert_int_equal(ze_mem_allocation_count(m1), N);
    assert_int_equal(ze_mem_allocation_count(m2), (N + 2) / 3);
    ze_mem_destroy(m1);
    ze_mem_t *m3 = make_mm(0);
    assert_int_equal(ze_mem_allocation_count(m3), 0);
    ze_allocator_t a3 = ze_mem_owner_allocator(m3, ZE_MEM_OWNER_GAME);
    ze_free(a3, ze_alloc(a3, 32, 16), 32);
    ze_free(a2, ze_alloc(a2, 32, 16), 32);
    assert_int_equal(ze_mem_allocation_count(m3), 1);
    assert_int_equal(ze_mem_allocation_count(m2), (N + 2) / 3 + 1);
    ze_mem_destroy(m3);
    ze_mem_destroy(m2);
}

static int setup_log(void **state)
{
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    return 0;
}

static int teardown_log(void **state)
{
    (void)state;
    ze_log_reset();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_owner_allocator_native),
        cmocka_unit_test(test_owner_allocator_passthrough),
        cmocka_unit_test(test_heap_pool_arena_native),
        cmocka_unit_test(test_heap_pool_arena_passthrough),
        cmocka_unit_test(test_failures_not_counted),
        cmocka_unit_test(test_managers_counted_apart),
    };
    return cmocka_run_group_tests(tests, setup_log, teardown_log);
}
