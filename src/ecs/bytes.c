/* Byte writer and bounds-checked reader: the plumbing of snapshots, their
 * formatters and migrations, and the scene JSON writer.
 *
 * The writer grows through its own allocator (doubling, from 256 bytes); a
 * failed growth or a writer without an allocator marks it failed, and every
 * later write is ignored, so a caller may write a whole record and check
 * `failed` once. The reader never reads past `size`: a short read marks it
 * failed, leaves the destination untouched and keeps failing. */
#include <string.h>

#include "ecs_internal.h"

/* Internal (snapshot.c, scene_json.c): make room for `extra` more bytes and
 * return where they go, or NULL (writer marked failed). Lets hot loops write
 * into the buffer directly. */
uint8_t *ze__byte_reserve(ze_byte_writer_t *w, size_t extra);

uint8_t *ze__byte_reserve(ze_byte_writer_t *w, size_t extra)
{
    if (!w || w->failed)
        return NULL;
    if (extra > SIZE_MAX - w->size) {
        w->failed = true;
        return NULL;
    }
    size_t need = w->size + extra;
    if (need > w->cap) {
        if (!w->alloc.fn) {
            w->failed = true;
            return NULL;
        }
        size_t cap = w->cap ? w->cap : 256;
        while (cap < need)
            cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        uint8_t *p = ze_realloc(w->alloc, w->data, w->cap, cap, 16);
        if (!p) {
            w->failed = true;
            return NULL;
        }
        w->data = p;
        w->cap = cap;
    }
    return w->data + w->size;
}

bool ze_byte_write(ze_byte_writer_t *w, const void *p, size_t n)
{
    if (!w || w->failed)
        return false;
    if (!n)
        return true;
    uint8_t *dst = ze__byte_reserve(w, n);
    if (!dst)
        return false;
    if (p)
        memcpy(dst, p, n);
    else
        memset(dst, 0, n); /* NULL writes zeros (padding, placeholders) */
    w->size += n;
    return true;
}

bool ze_byte_read(ze_byte_reader_t *r, void *p, size_t n)
{
    if (!r || r->failed)
        return false;
    if (r->pos > r->size || n > r->size - r->pos) {
        r->failed = true;
        return false;
    }
    if (p && n)
        memcpy(p, r->data + r->pos, n);
    r->pos += n; /* p == NULL skips */
    return true;
}

void ze_byte_writer_free(ze_byte_writer_t *w)
{
    if (!w)
        return;
    if (w->data && w->alloc.fn)
        ze_free(w->alloc, w->data, w->cap);
    w->data = NULL;
    w->size = w->cap = 0;
    w->failed = false;
}
