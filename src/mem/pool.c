/* Pool of fixed-size blocks: an intrusive free list over a region carved
 * front to back. Pass-through builds hand every block to the system
 * allocator so AddressSanitizer sees double frees and overruns. */
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

ze_result ze_pool_init(ze_pool_t *p, ze_mem_t *mm, const ze_pool_desc_t *desc)
{
    if (!p || !mm || !desc || desc->block_size == 0)
        return ZE_ERR_INVALID_ARG;
    memset(p, 0, sizeof *p);
    uint32_t align = desc->block_align ? desc->block_align : 16;
    if (!ZE_IS_POW2(align) || align > 4096)
        return ZE_ERR_INVALID_ARG;
    uint64_t bs = ZE_ALIGN_UP((uint64_t)ZE_MAX(desc->block_size, (uint32_t)sizeof(void *)), align);
    uint32_t max = desc->max_blocks ? desc->max_blocks : 65536;
    if (bs > UINT32_MAX)
        return ZE_ERR_LIMIT;
    p->block_size = (uint32_t)bs;
    p->max_blocks = max;
    p->passthrough = mm->passthrough;
    if (p->passthrough) {
        /* Keep an empty region only to remember the manager and owner. */
        p->region = (ze_mem_region_t){.mm = mm, .owner = desc->owner};
        return ze__mem_fault(mm, desc->owner); /* counts like a native pool's region */
    }
    return ze_mem_region_reserve(mm, desc->owner, (size_t)bs * max, &p->region);
}

void ze_pool_release(ze_pool_t *p)
{
    if (!p)
        return;
    if (p->passthrough) {
        /* Blocks still live are the caller's leak; ASan reports them. */
        ze__mem_unaccount(p->region.mm, p->region.owner, (size_t)p->live * p->block_size);
    } else {
        ze_mem_region_release(&p->region);
    }
    memset(p, 0, sizeof *p);
}

void *ze_pool_alloc(ze_pool_t *p)
{
    ze_mem_t *mm = p->region.mm;
    if (ze__mem_fault(mm, p->region.owner) != ZE_OK)
        return NULL;
    void *b = p->free_list;
    if (b) {
        p->free_list = *(void **)b;
        p->live++;
        ze__mem_count_alloc(mm, p->region.owner);
        return b;
    }
    if (p->live >= p->max_blocks) { /* no free block and nothing left to carve */
        ze__mem_note_failure(mm, p->region.owner, ZE_ERR_FULL, p->block_size);
        return NULL;
    }
    if (p->passthrough) {
        if (ze__mem_account(mm, p->region.owner, p->block_size) != ZE_OK)
            return NULL;
        void *m = NULL;
        size_t align = p->block_size & (~p->block_size + 1); /* lowest set bit */
        if (align < sizeof(void *))
            align = sizeof(void *);
        if (align > 4096)
            align = 4096;
        if (posix_memalign(&m, align, p->block_size) != 0) {
            ze__mem_unaccount(mm, p->region.owner, p->block_size);
            return NULL;
        }
        p->live++;
        ze__mem_count_alloc(mm, p->region.owner);
        return m;
    }
    size_t end = (size_t)(p->bumped + 1) * p->block_size;
    if (end > p->region.committed && ze_mem_region_commit(&p->region, end) != ZE_OK)
        return NULL;
    b = p->region.base + (size_t)p->bumped * p->block_size;
    p->bumped++;
    p->live++;
    ze__mem_count_alloc(mm, p->region.owner);
    return b;
}

void ze_pool_free(ze_pool_t *p, void *block)
{
    if (!block)
        return;
    ZE_ASSERT(p->live > 0);
    p->live--;
    if (p->passthrough) {
        free(block);
        ze__mem_unaccount(p->region.mm, p->region.owner, p->block_size);
        return;
    }
    ZE_ASSERT((uint8_t *)block >= p->region.base &&
              (uint8_t *)block < p->region.base + (size_t)p->bumped * p->block_size &&
              ((size_t)((uint8_t *)block - p->region.base) % p->block_size) == 0);
    *(void **)block = p->free_list;
    p->free_list = block;
}
