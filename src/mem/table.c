/* Growable tables in regions of their own (mem.h, "growable table").
 *
 * A table commits its region's pages as its capacity grows (doubling, at
 * least a commit chunk's worth) and, past its reservation, reserves one
 * twice as large, copies the committed elements and releases the old one:
 * at the moment of the move both exist, so a table of N bytes needs about
 * 3N/2 of its owner's range at its largest. Fresh pages are zero (the
 * region commits anonymous memory), which is what a grow promises. */
#include <string.h>

#include "zengine/mem.h"

enum { FIRST_RESERVE = 1u << 16 }; /* bytes: a table's first reservation */

void ze_mem_table_init(ze_mem_table_t *t, ze_mem_t *mm, ze_mem_owner owner, uint32_t elem_size)
{
    memset(t, 0, sizeof *t);
    t->mm = mm;
    t->owner = owner;
    t->elem_size = elem_size ? elem_size : 1;
}

void ze_mem_table_release(ze_mem_table_t *t)
{
    if (t->region.base)
        ze_mem_region_release(&t->region);
    memset(&t->region, 0, sizeof t->region);
    t->capacity = 0;
}

ze_result ze_mem_table_reserve(ze_mem_table_t *t, uint32_t count)
{
    if (count <= t->capacity)
        return ZE_OK;
    uint64_t want = (uint64_t)t->capacity * 2;
    if (want < count)
        want = count;
    size_t bytes = (size_t)(want * t->elem_size);
    if (t->region.base && bytes <= t->region.reserved) {
        ze_result r = ze_mem_region_commit(&t->region, bytes);
        if (r != ZE_OK)
            return r;
    } else {
        size_t reserve = t->region.reserved ? t->region.reserved * 2 : FIRST_RESERVE;
        while (reserve < bytes)
            reserve *= 2;
        ze_mem_region_t fresh = {0};
        ze_result r = ze_mem_region_reserve(t->mm, t->owner, reserve, &fresh);
        if (r == ZE_OK)
            r = ze_mem_region_commit(&fresh, bytes);
        if (r != ZE_OK) {
            if (fresh.base)
                ze_mem_region_release(&fresh);
            return r;
        }
        if (t->region.base) {
            memcpy(fresh.base, t->region.base, (size_t)t->capacity * t->elem_size);
            ze_mem_region_release(&t->region);
        }
        t->region = fresh;
    }
    /* what the commit rounded up to is usable too */
    uint64_t cap = t->region.committed / t->elem_size;
    t->capacity = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    return ZE_OK;
}
