/* The allocation counter under concurrency (also run under TSan): threads
 * allocate from a shared owner allocator, a shared thread-safe heap and
 * their own pools while another thread reads the counters; the total is
 * exact, and reads never go backwards. Threads that exit keep their counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/mem.h"

enum { THREADS = 2, PER_THREAD = 20000, WAVES = 3 };

typedef struct shared_t {
    ze_mem_t *mm;
    ze_heap_t *heap; /* thread-safe */
    atomic_bool stop;
    atomic_int failed;
} shared_t;

static void *worker(void *p)
{
    shared_t *s = p;
    ze_allocator_t a = ze_mem_owner_allocator(s->mm, ZE_MEM_OWNER_GAME);
    ze_pool_t pool;
    if (ze_pool_init(&pool, s->mm,
                     &(ze_pool_desc_t){
                         .owner = ZE_MEM_OWNER_JOB, .block_size = 32, .max_blocks = 64}) != ZE_OK) {
        atomic_fetch_add(&s->failed, 1);
        return NULL;
    }
    /* PER_THREAD allocations of each kind: owner allocator (GAME), shared
       heap (ECS), own pool (JOB). */
    for (int i = 0; i < PER_THREAD; i++) {
        size_t sz = 16 + (size_t)(i % 200);
        void *x = ze_alloc(a, sz, 16);
        void *y = ze_heap_alloc(s->heap, sz, 16);
        void *z = ze_pool_alloc(&pool);
        if (!x || !y || !z)
            atomic_fetch_add(&s->failed, 1);
        ze_free(a, x, sz);
        ze_heap_free(s->heap, y);
        ze_pool_free(&pool, z);
    }
    ze_pool_release(&pool);
    return NULL;
}

static void *reader(void *p)
{
    shared_t *s = p;
    uint64_t last = 0;
    while (!atomic_load(&s->stop)) {
        /* GAME first: every count read later is at least as high. */
        ze_mem_owner_stats_t g = ze_mem_owner_stats(s->mm, ZE_MEM_OWNER_GAME);
        uint64_t n = ze_mem_allocation_count(s->mm);
        if (n < last || g.allocations > n)
            atomic_fetch_add(&s->failed, 1);
        last = n;
    }
    return NULL;
}

static void test_counts_exact_across_threads(void **state)
{
    (void)state;
    shared_t s = {0};
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &s.mm), ZE_OK);
    assert_int_equal(
        ze_heap_create(s.mm, &(ze_heap_desc_t){.owner = ZE_MEM_OWNER_ECS, .thread_safe = true},
                       &s.heap),
        ZE_OK);
    pthread_t r;
    assert_int_equal(pthread_create(&r, NULL, reader, &s), 0);
    /* Several waves: the threads of a wave exit before the next one starts,
       so later threads get counter slots of their own. */
    for (int w = 0; w < WAVES; w++) {
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++)
            assert_int_equal(pthread_create(&t[i], NULL, worker, &s), 0);
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        uint64_t per_kind = (uint64_t)(w + 1) * THREADS * PER_THREAD;
        assert_int_equal(ze_mem_owner_stats(s.mm, ZE_MEM_OWNER_GAME).allocations, per_kind);
        assert_int_equal(ze_mem_owner_stats(s.mm, ZE_MEM_OWNER_ECS).allocations, per_kind);
        assert_int_equal(ze_mem_owner_stats(s.mm, ZE_MEM_OWNER_JOB).allocations, per_kind);
        assert_int_equal(ze_mem_allocation_count(s.mm), 3 * per_kind);
    }
    atomic_store(&s.stop, true);
    pthread_join(r, NULL);
    assert_int_equal(atomic_load(&s.failed), 0);
    ze_heap_destroy(s.heap);
    ze_mem_destroy(s.mm);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_exact_across_threads),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ze_log_reset();
    return rc;
}
