/* Regions: first-fit pieces of an owner's reserved range, each followed by
 * one never-committed guard page so an overrun faults instead of corrupting
 * the neighbour. Commit and decommit change page protection; budgets count
 * committed bytes. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "mem_internal.h"

#define LOG_CH "mem"

/* Commit granularity: fewer mprotect calls for small growth steps. */
enum { COMMIT_CHUNK = 64 * 1024 };

static bool take_extent(ze__owner_t *o, size_t len, size_t *off)
{
    for (uint32_t i = 0; i < o->extent_count; i++) {
        ze__extent_t *e = &o->extents[i];
        if (e->len < len)
            continue;
        *off = e->off;
        e->off += len;
        e->len -= len;
        if (!e->len) {
            memmove(e, e + 1, (o->extent_count - i - 1) * sizeof *e);
            o->extent_count--;
        }
        return true;
    }
    return false;
}

static void give_extent(ze__owner_t *o, size_t off, size_t len)
{
    uint32_t i = 0;
    while (i < o->extent_count && o->extents[i].off < off)
        i++;
    bool merge_prev = i > 0 && o->extents[i - 1].off + o->extents[i - 1].len == off;
    bool merge_next = i < o->extent_count && off + len == o->extents[i].off;
    if (merge_prev && merge_next) {
        o->extents[i - 1].len += len + o->extents[i].len;
        memmove(&o->extents[i], &o->extents[i + 1],
                (o->extent_count - i - 1) * sizeof(ze__extent_t));
        o->extent_count--;
    } else if (merge_prev) {
        o->extents[i - 1].len += len;
    } else if (merge_next) {
        o->extents[i].off = off;
        o->extents[i].len += len;
    } else if (o->extent_count < ZE__OWNER_MAX_EXTENTS) {
        memmove(&o->extents[i + 1], &o->extents[i], (o->extent_count - i) * sizeof(ze__extent_t));
        o->extents[i] = (ze__extent_t){off, len};
        o->extent_count++;
    } else {
        /* The table is full of fragments: this range stays unusable until
         * the manager is destroyed. Loud, because it means fragmentation. */
        ZE_LOG_WARN(LOG_CH, "owner address-space table full; %zu bytes unusable", len);
    }
}

ze_result ze_mem_region_reserve(ze_mem_t *mm, ze_mem_owner owner, size_t size, ze_mem_region_t *out)
{
    if (!mm || !out || (unsigned)owner >= ZE_MEM_OWNER_COUNT || size == 0)
        return ZE_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    ze__owner_t *o = &mm->owners[owner];
    ze_result r = ze__mem_fault(mm, owner);
    if (r != ZE_OK)
        return r;
    size_t page = ze_mem_page_size();
    size_t len;
    if (size > SIZE_MAX - 2 * page)
        return ZE_ERR_LIMIT;
    len = ZE_ALIGN_UP(size, page);
    size_t off = 0;
    pthread_mutex_lock(&o->lock);
    bool ok = o->base && take_extent(o, len + page, &off);
    pthread_mutex_unlock(&o->lock);
    if (!ok) {
        /* Not the budget (commits check that): the range is reserved. */
        ze__mem_note_range_full(mm, owner, size);
        return ZE_ERR_BUDGET;
    }
    atomic_fetch_add(&o->reserved, len + page);
    atomic_fetch_add(&o->regions, 1);
    *out = (ze_mem_region_t){.mm = mm, .base = o->base + off, .reserved = len, .owner = owner};
    return ZE_OK;
}

ze_result ze_mem_region_commit(ze_mem_region_t *rg, size_t size)
{
    if (size <= rg->committed)
        return ZE_OK;
    if (size > rg->reserved)
        return ZE_ERR_LIMIT;
    ze_mem_t *mm = rg->mm;
    ze_result r = ze__mem_fault(mm, rg->owner);
    if (r != ZE_OK)
        return r;
    size_t target = ZE_ALIGN_UP(size, (size_t)COMMIT_CHUNK);
    if (target > rg->reserved)
        target = rg->reserved;
    size_t delta = target - rg->committed;
    r = ze__mem_account(mm, rg->owner, delta);
    if (r != ZE_OK) {
        /* Near the budget: commit only what was asked for. */
        target = ZE_ALIGN_UP(size, ze_mem_page_size());
        delta = target - rg->committed;
        r = ze__mem_account(mm, rg->owner, delta);
        if (r != ZE_OK)
            return r;
    }
    if (mprotect(rg->base + rg->committed, delta, PROT_READ | PROT_WRITE) != 0) {
        ze__mem_unaccount(mm, rg->owner, delta);
        ze__mem_note_failure(mm, rg->owner, ZE_ERR_OUT_OF_MEMORY, delta);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    rg->committed = target;
    return ZE_OK;
}

void ze_mem_region_decommit(ze_mem_region_t *rg, size_t keep)
{
    size_t page = ze_mem_page_size();
    keep = ZE_ALIGN_UP(keep, page);
    if (keep >= rg->committed)
        return;
    size_t delta = rg->committed - keep;
    uint8_t *p = rg->base + keep;
    ZE__UNPOISON(p, delta);
    /* MADV_DONTNEED returns the pages; PROT_NONE makes stale use fault. */
    madvise(p, delta, MADV_DONTNEED);
    mprotect(p, delta, PROT_NONE);
    ze__mem_unaccount(rg->mm, rg->owner, delta);
    rg->committed = keep;
}

void ze_mem_region_release(ze_mem_region_t *rg)
{
    if (!rg || !rg->base)
        return;
    ze_mem_region_decommit(rg, 0);
    ze__owner_t *o = &rg->mm->owners[rg->owner];
    size_t page = ze_mem_page_size();
    pthread_mutex_lock(&o->lock);
    give_extent(o, (size_t)(rg->base - o->base), rg->reserved + page);
    pthread_mutex_unlock(&o->lock);
    atomic_fetch_sub(&o->reserved, rg->reserved + page);
    atomic_fetch_sub(&o->regions, 1);
    memset(rg, 0, sizeof *rg);
}
