/* The Vulkan host allocation callbacks (vk_host.c) called from several
 * threads at once, as a driver may: each thread allocates, reallocates and
 * frees blocks of mixed sizes and alignments (up to 8 KiB, above the
 * heap's own limit), checking each block's alignment and that its contents
 * survive the other threads' traffic and reallocation. At the end every
 * counter is back to zero and destroying the callbacks' heap returns the
 * Vulkan owner to zero bytes. Runs under ThreadSanitizer (label
 * concurrency). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "gfx/vk_internal.h"

enum { THREADS = 4, SLOTS = 64, OPS = 4000 };

typedef struct block_t {
    uint8_t *p;
    size_t size, align;
    uint8_t seed;
} block_t;

typedef struct worker_t {
    const VkAllocationCallbacks *cb;
    uint32_t rng;
    atomic_uint *bad;
    block_t slots[SLOTS];
} worker_t;

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void fill(block_t *b)
{
    for (size_t i = 0; i < b->size; i++)
        b->p[i] = (uint8_t)(b->seed + i);
}

static bool intact(const block_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b->p[i] != (uint8_t)(b->seed + i))
            return false;
    return true;
}

static void *run(void *arg)
{
    worker_t *w = arg;
    const VkAllocationCallbacks *cb = w->cb;
    void *u = cb->pUserData;
    const VkSystemAllocationScope scope = VK_SYSTEM_ALLOCATION_SCOPE_COMMAND;
    for (int op = 0; op < OPS; op++) {
        block_t *b = &w->slots[next(&w->rng) % SLOTS];
        if (!b->p) {
            b->align = (size_t)1 << (next(&w->rng) % 14); /* 1 .. 8 KiB */
            b->size = next(&w->rng) % 3000;
            b->seed = (uint8_t)next(&w->rng);
            b->p = cb->pfnAllocation(u, b->size, b->align, scope);
            if (!b->p || ((uintptr_t)b->p & (b->align - 1)))
                atomic_fetch_add(w->bad, 1);
            if (b->p)
                fill(b);
        } else if (next(&w->rng) % 2) {
            size_t size = next(&w->rng) % 5000;
            uint8_t *q = cb->pfnReallocation(u, b->p, size, b->align, scope);
            if (size == 0) {
                b->p = NULL; /* freed */
                continue;
            }
            if (!q || ((uintptr_t)q & (b->align - 1))) {
                atomic_fetch_add(w->bad, 1);
                continue;
            }
            b->p = q;
            if (!intact(b, b->size < size ? b->size : size))
                atomic_fetch_add(w->bad, 1);
            b->size = size;
            fill(b);
        } else {
            if (!intact(b, b->size))
                atomic_fetch_add(w->bad, 1);
            cb->pfnFree(u, b->p);
            b->p = NULL;
        }
    }
    for (int i = 0; i < SLOTS; i++) {
        if (w->slots[i].p && !intact(&w->slots[i], w->slots[i].size))
            atomic_fetch_add(w->bad, 1);
        cb->pfnFree(u, w->slots[i].p);
    }
    return NULL;
}

static void test_callbacks_from_threads(void **state)
{
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    ze_vk_host_t *h = NULL;
    assert_int_equal(ze__vk_host_create(mm, &h), ZE_OK);
    static worker_t w[THREADS];
    atomic_uint bad;
    atomic_init(&bad, 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].cb = ze__vk_host_callbacks(h);
        w[i].rng = 0x9E3779B9u * (uint32_t)(i + 1);
        w[i].bad = &bad;
        assert_int_equal(pthread_create(&t[i], NULL, run, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&bad), 0);
    ze_vk_host_stats_t hs = ze__vk_host_stats(h);
    print_message("%llu allocations, peak %llu bytes, largest alignment %llu\n",
                  (unsigned long long)hs.allocations, (unsigned long long)hs.peak,
                  (unsigned long long)hs.align_max);
    assert_int_equal(hs.bytes, 0);
    assert_int_equal(hs.blocks, 0);
    assert_true(hs.allocations > 0);
    assert_int_equal(hs.align_max, 8192);
    ze__vk_host_destroy(h);
    assert_int_equal(ze_mem_owner_stats(mm, ZE_MEM_OWNER_VULKAN).current, 0);
    ze_mem_destroy(mm);
    ze_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callbacks_from_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
