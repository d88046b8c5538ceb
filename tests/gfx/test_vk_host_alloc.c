/* Vulkan host allocations in the Vulkan memory owner (vk_host.c).
 *
 * The backend on whatever device it picks (lavapipe in CI) with the
 * validation layer on: its VkAllocationCallbacks serve what the loader,
 * the layer and the driver allocate for its objects, so the Vulkan owner
 * holds bytes while it lives (counted by the mem module as allocations of
 * that owner) and none after destroy, which only happens when Vulkan freed
 * every block it allocated (a block still held keeps the heap). No
 * validation or Vulkan warning may be logged, destroy included (the layer
 * checks that an object's destroy passes the callbacks its create did).
 *
 * The callbacks alone, without a device: every power-of-two alignment up
 * to 1 MiB (above the heap's own 4 KiB limit) honoured, by allocation and
 * reallocation; reallocation keeps the contents; size 0 gets a block (as
 * malloc(0), which lavapipe relies on); a refused allocation (fault
 * injection on the owner) returns NULL and leaves the original intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/vk_internal.h"
#include "zengine/gfx.h"

enum { W = 128, H = 96 };

static atomic_uint g_vk_problems; /* warnings and errors on the "vulkan" channel */
static atomic_bool g_expected;    /* a test provokes one: not printed */

static void sink(void *user, const ze_log_record_t *rec)
{
    (void)user;
    if (rec->level >= ZE_LOG_WARN && strcmp(rec->channel, ZE_VK_LOG) == 0) {
        atomic_fetch_add(&g_vk_problems, 1);
        if (!atomic_load(&g_expected))
            print_error("vulkan: %s\n", rec->message);
    }
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL, .sink = sink});
    static ze_mem_t *mm;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK)
        return -1;
    *state = mm;
    return 0;
}

static int teardown(void **state)
{
    ze_mem_destroy(*state);
    ze_log_reset();
    return 0;
}

static ze_mem_owner_stats_t owner(ze_mem_t *mm)
{
    return ze_mem_owner_stats(mm, ZE_MEM_OWNER_VULKAN);
}

static void test_backend_host_bytes_in_the_vulkan_owner(void **state)
{
    ze_mem_t *mm = *state;
    atomic_store(&g_vk_problems, 0);
    assert_int_equal(owner(mm).current, 0);
    uint64_t owner_allocs = owner(mm).allocations;

    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_true(st.validation_enabled);
    assert_non_null(ze__vk(b)->host_cb); /* routed */
    assert_true(st.host_bytes > 0);
    assert_true(st.host_bytes_peak >= st.host_bytes);
    assert_true(st.host_allocations > 0);
    /* through the mem module: the owner's bytes and its allocation count */
    ze_mem_owner_stats_t alive = owner(mm);
    assert_true(alive.current > 0);
    assert_true(alive.current >= st.host_bytes);
    assert_true(alive.allocations - owner_allocs >= st.host_allocations);

    /* frames: command pools, the graph's transients, timestamps */
    for (uint64_t fr = 1; fr <= 3; fr++) {
        ze_render_state_t s = {
            .frame = fr,
            .width = W,
            .height = H,
            .sky = {.clear_color = {0.1f, 0.15f, 0.25f}, .exposure = 1.0f},
        };
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    }
    /* a resize: the target's image and the graph's transients again */
    ze_render_state_t big = {.frame = 4, .width = 2 * W, .height = 2 * H};
    assert_int_equal(ze_render_backend_frame(b, &big), ZE_OK);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.validation_messages, 0);
    assert_true(st.host_bytes > 0);
    ze_vk_host_stats_t hs = ze__vk_host_stats(ze__vk(b)->host);
    print_message("Vulkan owner: %llu bytes requested now (peak %llu) in %llu blocks, %llu "
                  "allocations, largest alignment %llu, %llu bytes committed of %llu reserved, "
                  "driver's own %llu\n",
                  (unsigned long long)hs.bytes, (unsigned long long)hs.peak,
                  (unsigned long long)hs.blocks, (unsigned long long)hs.allocations,
                  (unsigned long long)hs.align_max, (unsigned long long)owner(mm).current,
                  (unsigned long long)owner(mm).reserved, (unsigned long long)hs.internal_bytes);
    assert_true(hs.blocks > 0);
    assert_true(ZE_IS_POW2(hs.align_max));

    ze_render_backend_destroy(b);
    /* every block freed by Vulkan (else the heap would be kept) */
    assert_int_equal(owner(mm).current, 0);
    assert_true(owner(mm).peak >= alive.current);
    assert_int_equal(owner(mm).failures, 0);
    assert_int_equal(atomic_load(&g_vk_problems), 0); /* destroy included */
}

/* A second backend in the same manager gets its own heap again. */
static void test_backend_twice(void **state)
{
    ze_mem_t *mm = *state;
    atomic_store(&g_vk_problems, 0);
    for (int i = 0; i < 2; i++) {
        ze_render_backend_t *b = NULL;
        ze_render_backend_desc_t d = {.mem = mm, .headless = true, .width = W, .height = H};
        assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
        assert_true(owner(mm).current > 0);
        ze_render_backend_destroy(b);
        assert_int_equal(owner(mm).current, 0);
    }
    assert_int_equal(atomic_load(&g_vk_problems), 0);
}

/* ------------------------------------------------------- the callbacks */

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7);
}

static bool filled(const uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (uint8_t)(seed + i * 7))
            return false;
    return true;
}

static bool aligned(const void *p, size_t align)
{
    return ((uintptr_t)p & (align - 1)) == 0;
}

static void test_callbacks_alignment_and_realloc(void **state)
{
    ze_mem_t *mm = *state;
    ze_vk_host_t *h = NULL;
    assert_int_equal(ze__vk_host_create(mm, &h), ZE_OK);
    const VkAllocationCallbacks *cb = ze__vk_host_callbacks(h);
    assert_non_null(cb);
    void *u = cb->pUserData;
    const VkSystemAllocationScope obj = VK_SYSTEM_ALLOCATION_SCOPE_OBJECT;
    enum { N = 21 }; /* alignments 1 .. 1 MiB */
    uint8_t *p[N];
    for (int i = 0; i < N; i++) {
        size_t align = (size_t)1 << i, size = 3 + (size_t)i * 37;
        p[i] = cb->pfnAllocation(u, size, align, obj);
        assert_non_null(p[i]);
        if (!aligned(p[i], align))
            fail_msg("alignment %zu: got %p", align, (void *)p[i]);
        fill(p[i], size, (uint8_t)i);
    }
    ze_vk_host_stats_t hs = ze__vk_host_stats(h);
    assert_int_equal(hs.blocks, N);
    assert_int_equal(hs.align_max, (uint64_t)1 << (N - 1));
    uint64_t sum = 0;
    for (int i = 0; i < N; i++)
        sum += 3 + (uint64_t)i * 37;
    assert_int_equal(hs.bytes, sum);
    /* grow each: contents kept, alignment kept */
    for (int i = 0; i < N; i++) {
        size_t align = (size_t)1 << i, size = 3 + (size_t)i * 37;
        uint8_t *q = cb->pfnReallocation(u, p[i], size * 50, align, obj);
        assert_non_null(q);
        assert_true(aligned(q, align));
        assert_true(filled(q, size, (uint8_t)i));
        fill(q, size * 50, (uint8_t)(i + 1));
        p[i] = q;
    }
    /* shrink each */
    for (int i = 0; i < N; i++) {
        size_t align = (size_t)1 << i;
        uint8_t *q = cb->pfnReallocation(u, p[i], 5, align, obj);
        assert_non_null(q);
        assert_true(aligned(q, align));
        assert_true(filled(q, 5, (uint8_t)(i + 1)));
        p[i] = q;
    }
    assert_int_equal(ze__vk_host_stats(h).bytes, 5 * N);
    for (int i = 0; i < N; i++)
        cb->pfnFree(u, p[i]);
    cb->pfnFree(u, NULL);

    /* size 0: a block of its own, freed like any */
    void *z0 = cb->pfnAllocation(u, 0, 8, obj), *z1 = cb->pfnAllocation(u, 0, 8, obj);
    assert_non_null(z0);
    assert_non_null(z1);
    assert_ptr_not_equal(z0, z1);
    cb->pfnFree(u, z0);
    cb->pfnFree(u, z1);
    /* reallocation from NULL allocates, to 0 frees */
    void *r = cb->pfnReallocation(u, NULL, 64, 64, obj);
    assert_non_null(r);
    assert_true(aligned(r, 64));
    assert_null(cb->pfnReallocation(u, r, 0, 64, obj));
    /* not a power of two: refused */
    assert_null(cb->pfnAllocation(u, 16, 24, obj));

    /* the owner refuses: NULL, the original untouched */
    uint8_t *keep = cb->pfnAllocation(u, 100, 32, obj);
    assert_non_null(keep);
    fill(keep, 100, 9);
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_VULKAN, true);
    assert_null(cb->pfnAllocation(u, 100, 32, obj));
    assert_null(cb->pfnReallocation(u, keep, 1000, 32, obj));
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_VULKAN, false);
    assert_true(filled(keep, 100, 9));
    assert_int_equal(ze__vk_host_stats(h).bytes, 100);
    cb->pfnFree(u, keep);

    /* internal allocations are only counted */
    cb->pfnInternalAllocation(u, 4096, VK_INTERNAL_ALLOCATION_TYPE_EXECUTABLE, obj);
    assert_int_equal(ze__vk_host_stats(h).internal_bytes, 4096);
    cb->pfnInternalFree(u, 4096, VK_INTERNAL_ALLOCATION_TYPE_EXECUTABLE, obj);
    hs = ze__vk_host_stats(h);
    assert_int_equal(hs.internal_bytes, 0);
    assert_int_equal(hs.internal_peak, 4096);

    assert_int_equal(hs.bytes, 0);
    assert_int_equal(hs.blocks, 0);
    assert_true(owner(mm).current > 0);
    ze__vk_host_destroy(h);
    assert_int_equal(owner(mm).current, 0);
}

/* A block Vulkan never freed keeps the heap (and says so): the owner's
 * bytes stay above zero, which is what the backend test relies on. */
static void test_unfreed_block_keeps_the_heap(void **state)
{
    ze_mem_t *mm = *state;
    atomic_store(&g_vk_problems, 0);
    ze_vk_host_t *h = NULL;
    assert_int_equal(ze__vk_host_create(mm, &h), ZE_OK);
    const VkAllocationCallbacks *cb = ze__vk_host_callbacks(h);
    void *p = cb->pfnAllocation(cb->pUserData, 48, 16, VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
    assert_non_null(p);
    atomic_store(&g_expected, true);
    ze__vk_host_destroy(h); /* kept */
    atomic_store(&g_expected, false);
    assert_int_equal(atomic_load(&g_vk_problems), 1);
    assert_true(owner(mm).current > 0);
    cb->pfnFree(cb->pUserData, p); /* still valid: the heap was kept */
    ze__vk_host_destroy(h);
    assert_int_equal(owner(mm).current, 0);
    atomic_store(&g_vk_problems, 0);
}

/* A manager whose Vulkan owner has no budget: no callbacks, the backend
 * still runs (Vulkan allocates with the C library; a warning says so). */
static void test_no_budget_unrouted(void **state)
{
    (void)state;
    ze_mem_budget_config_t cfg = ze_mem_profile_config(ZE_MEM_PROFILE_DEFAULT);
    cfg.budget[ZE_MEM_OWNER_VULKAN] = 0;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.config = &cfg}, &mm), ZE_OK);
    ze_vk_host_t *h = NULL;
    assert_int_equal(ze__vk_host_create(mm, &h), ZE_ERR_BUDGET);
    assert_null(h);
    assert_null(ze__vk_host_callbacks(NULL));
    ze_mem_destroy(mm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend_host_bytes_in_the_vulkan_owner),
        cmocka_unit_test(test_backend_twice),
        cmocka_unit_test(test_callbacks_alignment_and_realloc),
        cmocka_unit_test(test_unfreed_block_keeps_the_heap),
        cmocka_unit_test(test_no_budget_unrouted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
