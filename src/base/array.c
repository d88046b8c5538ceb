/* Growable array over an allocator. */
#include <string.h>

#include "zengine/base.h"

void ze_array_init(ze_array_t *a, ze_allocator_t alloc, uint32_t elem_size, uint32_t elem_align)
{
    ZE_ASSERT(elem_size > 0);
    *a = (ze_array_t){
        .elem_size = elem_size, .elem_align = elem_align ? elem_align : 1, .alloc = alloc};
}

void ze_array_free(ze_array_t *a)
{
    if (a->data)
        ze_free(a->alloc, a->data, (size_t)a->capacity * a->elem_size);
    a->data = NULL;
    a->count = a->capacity = 0;
}

ze_result ze_array_reserve(ze_array_t *a, uint32_t capacity)
{
    if (capacity <= a->capacity)
        return ZE_OK;
    size_t old_bytes = (size_t)a->capacity * a->elem_size, new_bytes;
    if (!ze_size_mul(capacity, a->elem_size, &new_bytes))
        return ZE_ERR_LIMIT;
    size_t align = a->elem_align < 16 ? 16 : a->elem_align;
    void *p = ze_realloc(a->alloc, a->data, old_bytes, new_bytes, align);
    if (!p)
        return ZE_ERR_OUT_OF_MEMORY;
    a->data = p;
    a->capacity = capacity;
    return ZE_OK;
}

static ze_result grow_for(ze_array_t *a, uint32_t needed)
{
    if (needed <= a->capacity)
        return ZE_OK;
    if (needed < a->count) /* wrapped */
        return ZE_ERR_LIMIT;
    uint64_t cap = a->capacity ? (uint64_t)a->capacity * 2 : 8;
    while (cap < needed)
        cap *= 2;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    return ze_array_reserve(a, (uint32_t)cap);
}

ze_result ze_array_resize(ze_array_t *a, uint32_t count)
{
    if (count > a->count) {
        ze_result r = grow_for(a, count);
        if (r != ZE_OK)
            return r;
        memset(ze_array_at(a, a->count), 0, (size_t)(count - a->count) * a->elem_size);
    }
    a->count = count;
    return ZE_OK;
}

ze_result ze_array_push(ze_array_t *a, const void *elem)
{
    if (a->count == UINT32_MAX)
        return ZE_ERR_LIMIT;
    ze_result r = grow_for(a, a->count + 1);
    if (r != ZE_OK)
        return r;
    void *dst = ze_array_at(a, a->count);
    if (elem)
        memcpy(dst, elem, a->elem_size);
    else
        memset(dst, 0, a->elem_size);
    a->count++;
    return ZE_OK;
}

bool ze_array_pop(ze_array_t *a, void *out)
{
    if (!a->count)
        return false;
    a->count--;
    if (out)
        memcpy(out, ze_array_at(a, a->count), a->elem_size);
    return true;
}

void ze_array_remove_swap(ze_array_t *a, uint32_t index)
{
    ZE_ASSERT(index < a->count);
    a->count--;
    if (index != a->count)
        memcpy(ze_array_at(a, index), ze_array_at(a, a->count), a->elem_size);
}

void ze_array_remove_ordered(ze_array_t *a, uint32_t index)
{
    ZE_ASSERT(index < a->count);
    memmove(ze_array_at(a, index), ze_array_at(a, index + 1),
            (size_t)(a->count - index - 1) * a->elem_size);
    a->count--;
}

void ze_array_clear(ze_array_t *a)
{
    a->count = 0;
}
