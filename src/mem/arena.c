/* Linear arena over one region: push, pop to a marker, reset. In
 * pass-through builds every byte not handed out is poisoned and pushes are
 * separated by a poisoned redzone, so AddressSanitizer reports overruns and
 * use after pop. */
#include <string.h>

#include "mem_internal.h"

enum { REDZONE = 16, DEFAULT_ARENA = 16 << 20 };

ze_result ze_arena_init(ze_arena_t *a, ze_mem_t *mm, ze_mem_owner owner, size_t max_size)
{
    if (!a || !mm)
        return ZE_ERR_INVALID_ARG;
    memset(a, 0, sizeof *a);
    ze_result r = ze_mem_region_reserve(mm, owner, max_size ? max_size : DEFAULT_ARENA, &a->region);
    if (r != ZE_OK)
        return r;
    a->poison = mm->passthrough;
    return ZE_OK;
}

void ze_arena_release(ze_arena_t *a)
{
    if (!a || !a->region.base)
        return;
    ze_mem_region_release(&a->region);
    memset(a, 0, sizeof *a);
}

static bool grow(ze_arena_t *a, size_t end)
{
    size_t old = a->region.committed;
    if (ze_mem_region_commit(&a->region, end) != ZE_OK)
        return false;
    if (a->poison)
        ZE__POISON(a->region.base + old, a->region.committed - old);
    return true;
}

void *ze_arena_push(ze_arena_t *a, size_t size, size_t align)
{
    ZE_ASSERT(ZE_IS_POW2(align));
    if (ze__mem_fault(a->region.mm, a->region.owner) != ZE_OK)
        return NULL;
    size_t start = a->poison ? a->pos + REDZONE : a->pos;
    start = ZE_ALIGN_UP(start, align);
    size_t end;
    if (!ze_size_add(start, size, &end) || end > a->region.reserved) {
        ze__mem_note_failure(a->region.mm, a->region.owner, ZE_ERR_LIMIT, size);
        return NULL;
    }
    if (end > a->region.committed && !grow(a, end))
        return NULL;
    a->pos = end;
    if (end > a->peak)
        a->peak = end;
    uint8_t *p = a->region.base + start;
    if (a->poison)
        ZE__UNPOISON(p, size);
    return p;
}

void *ze_arena_push_zero(ze_arena_t *a, size_t size, size_t align)
{
    void *p = ze_arena_push(a, size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

void ze_arena_pop_to(ze_arena_t *a, ze_arena_marker_t marker)
{
    ZE_ASSERT(marker <= a->pos);
    if (marker >= a->pos)
        return;
    if (a->poison)
        ZE__POISON(a->region.base + marker, a->pos - marker);
    a->pos = marker;
}

void ze_arena_reset(ze_arena_t *a)
{
    ze_arena_pop_to(a, 0);
}

void ze_arena_trim(ze_arena_t *a, size_t slack)
{
    size_t keep;
    if (!ze_size_add(a->pos, slack, &keep))
        return;
    ze_mem_region_decommit(&a->region, keep);
}

static void *arena_alloc_fn(void *user, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    ze_arena_t *a = user;
    uint8_t *top = a->region.base + a->pos;
    bool is_last = ptr && (uint8_t *)ptr + old_size == top;
    if (new_size == 0) {
        if (is_last)
            ze_arena_pop_to(a, (size_t)((uint8_t *)ptr - a->region.base));
        return NULL;
    }
    if (is_last && ((uintptr_t)ptr & (align - 1)) == 0) {
        size_t start = (size_t)((uint8_t *)ptr - a->region.base), end;
        if (ze_size_add(start, new_size, &end) && end <= a->region.reserved &&
            (end <= a->region.committed || grow(a, end))) {
            if (a->poison) {
                if (end > a->pos)
                    ZE__UNPOISON(a->region.base + a->pos, end - a->pos);
                else
                    ZE__POISON(a->region.base + end, a->pos - end);
            }
            a->pos = end;
            if (end > a->peak)
                a->peak = end;
            return ptr;
        }
        return NULL;
    }
    void *p = ze_arena_push(a, new_size, align < 16 ? 16 : align);
    if (p && ptr)
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
    return p;
}

ze_allocator_t ze_arena_allocator(ze_arena_t *a)
{
    return (ze_allocator_t){arena_alloc_fn, a};
}
