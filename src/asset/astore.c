/* The allocation store behind imported models and cook results: a bump
 * allocator over a caller's ze_allocator_t, freed all at once. Also the
 * module's small shared helpers (default allocator, error text). */
#include <stdarg.h>
#include <stdio.h>

#include "asset/asset_internal.h"

struct ze__ablock_t {
    ze__ablock_t *next;
    size_t size; /* bytes allocated, this header included */
};

enum { ZE__ABLOCK_SIZE = 64 * 1024, ZE__ABLOCK_HDR = 16 };
_Static_assert(sizeof(ze__ablock_t) <= ZE__ABLOCK_HDR, "block header fits its slot");

ze_allocator_t ze__asset_alloc_or_default(ze_allocator_t a)
{
    return a.fn ? a : ze_mem_system_allocator();
}

void ze__asset_error_set(ze__asset_error_t *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* One line, whatever the input echoed into it held (JSON strings may
       carry \n and other control characters). */
    for (char *p = err->message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

void ze__astore_init(ze__astore_t *s, ze_allocator_t alloc, uint64_t limit)
{
    memset(s, 0, sizeof *s);
    s->alloc = ze__asset_alloc_or_default(alloc);
    s->limit = limit;
}

void ze__astore_release(ze__astore_t *s)
{
    ze__ablock_t *b = s->blocks;
    while (b) {
        ze__ablock_t *next = b->next;
        ze_free(s->alloc, b, b->size);
        b = next;
    }
    s->blocks = NULL;
    s->cur = NULL;
    s->left = 0;
    s->used = 0;
}

static ze__ablock_t *astore_block(ze__astore_t *s, size_t payload)
{
    size_t total;
    if (!ze_size_add(payload, ZE__ABLOCK_HDR, &total))
        return NULL;
    if (s->limit && (total > s->limit || s->used > s->limit - total))
        return NULL;
    ze__ablock_t *b = ze_alloc(s->alloc, total, 16);
    if (!b)
        return NULL;
    b->size = total;
    s->used += total;
    return b;
}

void *ze__astore_push(ze__astore_t *s, size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    if (align < 1)
        align = 1;
    if (s->cur) {
        size_t pad = (size_t)(-(uintptr_t)s->cur & (align - 1));
        if (pad <= s->left && size <= s->left - pad) {
            uint8_t *p = s->cur + pad;
            s->cur = p + size;
            s->left -= pad + size;
            return p;
        }
    }
    /* Blocks are 16-aligned after their 16-byte header; larger alignments
       are never asked for. */
    if (align > 16)
        return NULL;
    if (size > ZE__ABLOCK_SIZE / 4) {
        /* A block of its own, kept behind the current one. */
        ze__ablock_t *b = astore_block(s, size);
        if (!b)
            return NULL;
        if (s->blocks) {
            b->next = s->blocks->next;
            s->blocks->next = b;
        } else {
            b->next = NULL;
            s->blocks = b;
        }
        return (uint8_t *)b + ZE__ABLOCK_HDR;
    }
    ze__ablock_t *b = astore_block(s, ZE__ABLOCK_SIZE);
    if (!b)
        return NULL;
    b->next = s->blocks;
    s->blocks = b;
    s->cur = (uint8_t *)b + ZE__ABLOCK_HDR;
    s->left = ZE__ABLOCK_SIZE;
    uint8_t *p = s->cur;
    s->cur += size;
    s->left -= size;
    return p;
}

void *ze__astore_zero(ze__astore_t *s, size_t size, size_t align)
{
    void *p = ze__astore_push(s, size, align);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

void *ze__astore_array(ze__astore_t *s, size_t count, size_t size, size_t align, bool zero)
{
    size_t total;
    if (!ze_size_mul(count, size, &total))
        return NULL;
    return zero ? ze__astore_zero(s, total, align) : ze__astore_push(s, total, align);
}

char *ze__astore_strdup(ze__astore_t *s, const char *str)
{
    size_t n = strlen(str);
    char *p = ze__astore_push(s, n + 1, 1);
    if (p)
        memcpy(p, str, n + 1);
    return p;
}
