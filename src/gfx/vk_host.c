/* Vulkan host allocations (VkAllocationCallbacks) in the Vulkan owner.
 *
 * Every vkCreate and vkDestroy call, vkAllocateMemory and vkFreeMemory the
 * backend makes on its objects passes b->host_cb, so what the loader, the layers
 * and the driver allocate on the host for those objects comes out of the
 * memory manager's Vulkan owner (its budget, its statistics, fault
 * injection). Each backend has its own thread-safe heap in that owner:
 * destroying the backend gives the heap's pages back, so the owner's bytes
 * return to zero exactly when Vulkan freed everything it allocated.
 *
 * Blocks: Vulkan may ask for any power-of-two alignment and frees without a
 * size, while ze_heap_alloc aligns up to ZE__VK_HOST_HEAP_ALIGN; so every
 * block carries a 16-byte header just in front of what Vulkan sees (its
 * requested size and its offset from the heap block) and is over-allocated
 * by the alignment: for the common alignments (<= 16) that is 16 bytes a
 * block, and alignments above the heap's are served from the padding.
 * Reallocation is allocate + copy + free (the alignment may differ from
 * the heap block's; drivers rarely reallocate).
 *
 * Threads: the callbacks run on whatever thread the driver calls them from
 * (the heap's lock, relaxed atomics for the counters). create and destroy:
 * the backend's (main thread).
 *
 * Not routed: what the driver allocates without callbacks (its own malloc:
 * ze_mem_unrouted_heap_bytes) and the internal allocations it only reports
 * (pfnInternalAllocation: counted in internal_bytes). */
#include <string.h>

#include "gfx/vk_internal.h"

enum {
    HDR = 16,
    ZE__VK_HOST_HEAP_ALIGN = 4096, /* ze_heap_alloc's largest alignment (mem.h) */
};
/* Largest alignment served (the padding is as large as the alignment). */
#define ZE__VK_HOST_MAX_ALIGN ((size_t)1 << 30)

typedef struct host_hdr_t {
    size_t size;   /* what Vulkan asked for */
    size_t offset; /* from the heap block to the pointer Vulkan sees */
} host_hdr_t;

_Static_assert(sizeof(host_hdr_t) == HDR, "the block header is 16 bytes");

struct ze_vk_host_t {
    ze_heap_t *heap; /* this state is a block of it */
    VkAllocationCallbacks callbacks;
    atomic_uint_fast64_t bytes, peak, blocks, allocations, align_max;
    atomic_uint_fast64_t internal_bytes, internal_peak;
};

static void raise_max(atomic_uint_fast64_t *max, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(max, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(max, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

static VKAPI_ATTR void *VKAPI_CALL host_alloc(void *user, size_t size, size_t align,
                                              VkSystemAllocationScope scope)
{
    (void)scope;
    ze_vk_host_t *h = user;
    if (!ZE_IS_POW2(align) || align > ZE__VK_HOST_MAX_ALIGN)
        return NULL;
    /* Size 0 gets a block of its own, as malloc(0) does: lavapipe records
       empty arrays (a barrier batch without buffers) that way and takes
       NULL for out of memory. */
    size_t a = align < HDR ? HDR : align, total;
    if (!ze_size_add(size ? size : 1, a, &total))
        return NULL;
    uint8_t *raw = ze_heap_alloc(h->heap, total, ZE_MIN(a, (size_t)ZE__VK_HOST_HEAP_ALIGN));
    if (!raw)
        return NULL; /* the owner logged it; Vulkan returns VK_ERROR_OUT_OF_HOST_MEMORY */
    /* raw is aligned to min(a, heap limit) (a multiple of 16), so the
       header fits in front and p + size stays inside raw + total */
    uint8_t *p = (uint8_t *)ZE_ALIGN_UP((uintptr_t)raw + HDR, (uintptr_t)a);
    ZE_ASSERT(((uintptr_t)p & (align - 1)) == 0 && p + size <= raw + total);
    host_hdr_t hdr = {size, (size_t)(p - raw)};
    memcpy(p - HDR, &hdr, sizeof hdr);
    uint64_t now = atomic_fetch_add_explicit(&h->bytes, size, memory_order_relaxed) + size;
    raise_max(&h->peak, now);
    raise_max(&h->align_max, align);
    atomic_fetch_add_explicit(&h->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->allocations, 1, memory_order_relaxed);
    return p;
}

static host_hdr_t header_of(const void *p)
{
    host_hdr_t hdr;
    memcpy(&hdr, (const uint8_t *)p - HDR, sizeof hdr);
    return hdr;
}

static VKAPI_ATTR void VKAPI_CALL host_free(void *user, void *ptr)
{
    if (!ptr)
        return;
    ze_vk_host_t *h = user;
    host_hdr_t hdr = header_of(ptr);
    atomic_fetch_sub_explicit(&h->bytes, hdr.size, memory_order_relaxed);
    atomic_fetch_sub_explicit(&h->blocks, 1, memory_order_relaxed);
    ze_heap_free(h->heap, (uint8_t *)ptr - hdr.offset);
}

static VKAPI_ATTR void *VKAPI_CALL host_realloc(void *user, void *orig, size_t size, size_t align,
                                                VkSystemAllocationScope scope)
{
    if (!orig)
        return host_alloc(user, size, align, scope);
    if (!size) {
        host_free(user, orig);
        return NULL;
    }
    void *p = host_alloc(user, size, align, scope);
    if (!p)
        return NULL; /* the original stays as it was (the Vulkan rule) */
    size_t old = header_of(orig).size;
    memcpy(p, orig, old < size ? old : size);
    host_free(user, orig);
    return p;
}

static VKAPI_ATTR void VKAPI_CALL host_internal_alloc(void *user, size_t size,
                                                      VkInternalAllocationType type,
                                                      VkSystemAllocationScope scope)
{
    (void)type, (void)scope;
    ze_vk_host_t *h = user;
    uint64_t now = atomic_fetch_add_explicit(&h->internal_bytes, size, memory_order_relaxed) + size;
    raise_max(&h->internal_peak, now);
}

static VKAPI_ATTR void VKAPI_CALL host_internal_free(void *user, size_t size,
                                                     VkInternalAllocationType type,
                                                     VkSystemAllocationScope scope)
{
    (void)type, (void)scope;
    ze_vk_host_t *h = user;
    atomic_fetch_sub_explicit(&h->internal_bytes, size, memory_order_relaxed);
}

ze_result ze__vk_host_create(ze_mem_t *mm, ze_vk_host_t **out)
{
    *out = NULL;
    uint64_t budget = ze_mem_owner_stats(mm, ZE_MEM_OWNER_VULKAN).budget;
    if (!budget)
        return ZE_ERR_BUDGET;
    /* The whole budget as address space; a quarter when that is taken (a
       second backend alive at once). */
    ze_heap_t *heap = NULL;
    ze_result r = ZE_ERR_BUDGET;
    for (uint64_t div = 1; div <= 4 && r != ZE_OK; div *= 4) {
        ze_heap_desc_t hd = {
            .owner = ZE_MEM_OWNER_VULKAN,
            .max_size = ZE_ALIGN_UP((size_t)(budget / div), ze_mem_page_size()),
            .thread_safe = true,
        };
        r = ze_heap_create(mm, &hd, &heap);
    }
    if (r != ZE_OK)
        return r;
    ze_vk_host_t *h = ze_heap_alloc(heap, sizeof *h, _Alignof(ze_vk_host_t));
    if (!h) {
        ze_heap_destroy(heap);
        return ZE_ERR_BUDGET;
    }
    memset(h, 0, sizeof *h);
    h->heap = heap;
    h->callbacks = (VkAllocationCallbacks){
        .pUserData = h,
        .pfnAllocation = host_alloc,
        .pfnReallocation = host_realloc,
        .pfnFree = host_free,
        .pfnInternalAllocation = host_internal_alloc,
        .pfnInternalFree = host_internal_free,
    };
    atomic_init(&h->bytes, 0);
    atomic_init(&h->peak, 0);
    atomic_init(&h->blocks, 0);
    atomic_init(&h->allocations, 0);
    atomic_init(&h->align_max, 0);
    atomic_init(&h->internal_bytes, 0);
    atomic_init(&h->internal_peak, 0);
    *out = h;
    return ZE_OK;
}

void ze__vk_host_destroy(ze_vk_host_t *h)
{
    if (!h)
        return;
    uint64_t blocks = atomic_load(&h->blocks);
    if (blocks) {
        /* A block Vulkan still holds would be freed into released pages:
           keep the heap (the owner's bytes stay above zero, the manager
           releases it) and say so. */
        ZE_LOG_ERROR(ZE_VK_LOG,
                     "host allocations: %llu blocks (%llu bytes) not freed by Vulkan after "
                     "destroy: the Vulkan owner's heap is kept",
                     (unsigned long long)blocks, (unsigned long long)atomic_load(&h->bytes));
        return;
    }
    ze_heap_t *heap = h->heap;
    ze_heap_free(heap, h); /* a block of its own in pass-through builds */
    ze_heap_destroy(heap);
}

const VkAllocationCallbacks *ze__vk_host_callbacks(ze_vk_host_t *h)
{
    return h ? &h->callbacks : NULL;
}

ze_vk_host_stats_t ze__vk_host_stats(const ze_vk_host_t *h)
{
    if (!h)
        return (ze_vk_host_stats_t){0};
    ze_vk_host_t *m = (ze_vk_host_t *)h; /* atomics: loads only */
    return (ze_vk_host_stats_t){
        .bytes = atomic_load_explicit(&m->bytes, memory_order_relaxed),
        .peak = atomic_load_explicit(&m->peak, memory_order_relaxed),
        .blocks = atomic_load_explicit(&m->blocks, memory_order_relaxed),
        .allocations = atomic_load_explicit(&m->allocations, memory_order_relaxed),
        .align_max = atomic_load_explicit(&m->align_max, memory_order_relaxed),
        .internal_bytes = atomic_load_explicit(&m->internal_bytes, memory_order_relaxed),
        .internal_peak = atomic_load_explicit(&m->internal_peak, memory_order_relaxed),
    };
}
