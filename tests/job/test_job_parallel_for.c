/* ze_job_parallel_for: every index covered exactly once, chunk bounds and
 * counts for many (count, grain) pairs, and parallel_for nested in jobs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "zengine/job.h"

#ifdef ZE_SANITIZER_THREAD
enum { SCALE = 4 }; /* TSan runs ~10x slower: skip the slowest pairs */
#else
enum { SCALE = 1 };
#endif

typedef struct world_t {
    ze_mem_t *mm;
    ze_job_system_t *js;
    ze_allocator_t alloc; /* test-side buffers */
} world_t;

static world_t world_new(uint32_t workers, uint32_t queue)
{
    world_t w = {0};
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &w.mm), ZE_OK);
    ze_job_system_desc_t d = {.mem = w.mm, .worker_count = workers, .queue_capacity = queue};
    assert_int_equal(ze_job_system_create(&d, &w.js), ZE_OK);
    w.alloc = ze_mem_owner_allocator(w.mm, ZE_MEM_OWNER_GAME);
    return w;
}

static void world_free(world_t *w)
{
    ze_job_system_destroy(w->js);
    ze_mem_destroy(w->mm);
}

/* -------------------------------------------------------- parallel for */

typedef struct cover_t {
    atomic_uchar *seen;
    uint32_t count;
    uint32_t grain;
    atomic_uint calls;
    atomic_bool bad_range;
} cover_t;

static void cover_range(void *arg, uint32_t begin, uint32_t end)
{
    cover_t *c = arg;
    atomic_fetch_add(&c->calls, 1);
    if (begin >= end || end > c->count || (c->grain && end - begin > c->grain))
        atomic_store(&c->bad_range, true);
    for (uint32_t i = begin; i < end && i < c->count; i++)
        atomic_fetch_add_explicit(&c->seen[i], 1, memory_order_relaxed);
}

static void check_cover(world_t *w, uint32_t count, uint32_t grain)
{
    cover_t c = {.count = count, .grain = grain};
    size_t bytes = count ? count : 1;
    c.seen = ze_alloc(w->alloc, bytes, 16);
    assert_non_null(c.seen);
    for (uint32_t i = 0; i < count; i++)
        atomic_init(&c.seen[i], 0);
    atomic_init(&c.calls, 0);
    atomic_init(&c.bad_range, false);
    ze_job_parallel_for(w->js, count, grain, cover_range, &c);
    assert_false(atomic_load(&c.bad_range));
    for (uint32_t i = 0; i < count; i++) {
        if (atomic_load(&c.seen[i]) != 1)
            fail_msg("count %u grain %u: index %u seen %u times", count, grain, i,
                     (unsigned)atomic_load(&c.seen[i]));
    }
    if (count == 0)
        assert_int_equal(atomic_load(&c.calls), 0);
    else if (grain)
        assert_int_equal(atomic_load(&c.calls), ((uint64_t)count + grain - 1) / grain);
    ze_free(w->alloc, c.seen, bytes);
}

static void test_parallel_for_covers_each_index_once(void **state)
{
    (void)state;
    static const uint32_t counts[] = {0, 1, 2, 3, 7, 64, 1000, 4097, 100000};
    static const uint32_t grains[] = {0, 1, 2, 3, 7, 64, 1000, 100000, UINT32_MAX};
    for (uint32_t workers = 1; workers <= 3; workers += 2) {
        world_t w = world_new(workers, 64);
        for (size_t i = 0; i < ZE_COUNTOF(counts); i++) {
            for (size_t j = 0; j < ZE_COUNTOF(grains); j++) {
                /* grain 1 over 100000 is 100k chunks: fine, just slow under TSan */
                if (SCALE > 1 && counts[i] > 5000 && grains[j] == 1)
                    continue;
                check_cover(&w, counts[i], grains[j]);
            }
        }
        world_free(&w);
    }
}

/* parallel_for from inside jobs of a parallel_for: the inner callers are
 * workers and waiters at once. */
typedef struct nest_t {
    ze_job_system_t *js;
    atomic_uint total;
} nest_t;

static void inner_range(void *arg, uint32_t begin, uint32_t end)
{
    nest_t *n = arg;
    atomic_fetch_add(&n->total, end - begin);
}

static void outer_range(void *arg, uint32_t begin, uint32_t end)
{
    nest_t *n = arg;
    for (uint32_t i = begin; i < end; i++)
        ze_job_parallel_for(n->js, 1000, 10, inner_range, n);
}

static void test_parallel_for_nested(void **state)
{
    (void)state;
    world_t w = world_new(1, 16);
    nest_t n = {.js = w.js};
    atomic_init(&n.total, 0);
    ze_job_parallel_for(w.js, 64, 1, outer_range, &n);
    assert_int_equal(atomic_load(&n.total), 64 * 1000);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_for_covers_each_index_once),
        cmocka_unit_test(test_parallel_for_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
