/* The path table: dense entries + an open-addressing index (linear probing,
 * backward-shift deletion). Keys are full path strings; the hash only picks
 * the probe start. Used by the memory backend and the content cache. */
#include <string.h>

#include "vfs_internal.h"

void ze__ptable_init(ze__ptable *t, ze_allocator_t alloc, uint32_t payload_size)
{
    memset(t, 0, sizeof *t);
    t->alloc = alloc;
    t->entry_size = (uint32_t)ZE_ALIGN_UP(sizeof(ze__ptable_entry) + payload_size, (size_t)16);
}

void ze__ptable_free(ze__ptable *t)
{
    for (uint32_t i = 0; i < t->count; i++) {
        ze__ptable_entry *e = ze__ptable_at(t, i);
        ze_free(t->alloc, e->path, (size_t)e->len + 1);
    }
    ze_free(t->alloc, t->entries, (size_t)t->cap * t->entry_size);
    ze_free(t->alloc, t->index, (size_t)t->index_cap * sizeof(uint32_t));
    uint32_t payload = t->entry_size;
    ze_allocator_t a = t->alloc;
    memset(t, 0, sizeof *t);
    t->alloc = a;
    t->entry_size = payload;
}

static uint64_t hash_path(const char *path, uint32_t len)
{
    return ze_hash64(path, len, 0x7a65766673ULL);
}

/* Slot of `path` in the index, or of the empty slot where it would go. */
static uint32_t probe(const ze__ptable *t, const char *path, uint32_t len, uint64_t h, bool *found)
{
    uint32_t mask = t->index_cap - 1;
    for (uint32_t s = (uint32_t)h & mask;; s = (s + 1) & mask) {
        uint32_t v = t->index[s];
        if (v == 0) {
            *found = false;
            return s;
        }
        ze__ptable_entry *e = ze__ptable_at(t, v - 1);
        if (e->hash == h && e->len == len && memcmp(e->path, path, len) == 0) {
            *found = true;
            return s;
        }
    }
}

ze__ptable_entry *ze__ptable_find(const ze__ptable *t, const char *path, uint32_t len)
{
    if (t->count == 0)
        return NULL;
    bool found;
    uint32_t s = probe(t, path, len, hash_path(path, len), &found);
    return found ? ze__ptable_at(t, t->index[s] - 1) : NULL;
}

static bool grow_index(ze__ptable *t, uint32_t want)
{
    uint32_t cap = t->index_cap ? t->index_cap : 64;
    while (cap / 4 * 3 < want)
        cap *= 2;
    if (cap == t->index_cap)
        return true;
    uint32_t *idx = ze_alloc(t->alloc, (size_t)cap * sizeof(uint32_t), _Alignof(uint32_t));
    if (!idx)
        return false;
    memset(idx, 0, (size_t)cap * sizeof(uint32_t));
    for (uint32_t i = 0; i < t->count; i++) {
        ze__ptable_entry *e = ze__ptable_at(t, i);
        uint32_t s = (uint32_t)e->hash & (cap - 1);
        while (idx[s])
            s = (s + 1) & (cap - 1);
        idx[s] = i + 1;
    }
    ze_free(t->alloc, t->index, (size_t)t->index_cap * sizeof(uint32_t));
    t->index = idx;
    t->index_cap = cap;
    return true;
}

ze__ptable_entry *ze__ptable_insert(ze__ptable *t, const char *path, uint32_t len, bool *created)
{
    *created = false;
    if (!grow_index(t, t->count + 1))
        return NULL;
    uint64_t h = hash_path(path, len);
    bool found;
    uint32_t s = probe(t, path, len, h, &found);
    if (found)
        return ze__ptable_at(t, t->index[s] - 1);
    if (t->count == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        void *e = ze_realloc(t->alloc, t->entries, (size_t)t->cap * t->entry_size,
                             (size_t)cap * t->entry_size, 16);
        if (!e)
            return NULL;
        t->entries = e;
        t->cap = cap;
    }
    char *copy = ze_alloc(t->alloc, (size_t)len + 1, 1);
    if (!copy)
        return NULL;
    memcpy(copy, path, len);
    copy[len] = '\0';
    ze__ptable_entry *e = ze__ptable_at(t, t->count);
    memset(e, 0, t->entry_size);
    e->path = copy;
    e->len = len;
    e->hash = h;
    t->index[s] = ++t->count;
    *created = true;
    return e;
}

bool ze__ptable_remove(ze__ptable *t, const char *path, uint32_t len)
{
    if (t->count == 0)
        return false;
    bool found;
    uint32_t mask = t->index_cap - 1;
    uint32_t s = probe(t, path, len, hash_path(path, len), &found);
    if (!found)
        return false;
    uint32_t victim = t->index[s] - 1;
    ze__ptable_entry *e = ze__ptable_at(t, victim);
    ze_free(t->alloc, e->path, (size_t)e->len + 1);
    /* Backward-shift deletion: pull later members of the probe run into the
     * hole when their home slot does not lie after the hole. */
    uint32_t hole = s;
    for (uint32_t j = (hole + 1) & mask; t->index[j]; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)ze__ptable_at(t, t->index[j] - 1)->hash & mask;
        bool stays = (j > hole) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays)
            continue;
        t->index[hole] = t->index[j];
        hole = j;
    }
    t->index[hole] = 0;
    /* Dense entries: move the last one into the victim's place. */
    uint32_t last = t->count - 1;
    if (victim != last) {
        ze__ptable_entry *le = ze__ptable_at(t, last);
        bool f2;
        uint32_t ls = probe(t, le->path, le->len, le->hash, &f2);
        ZE_ASSERT(f2);
        memcpy(e, le, t->entry_size);
        t->index[ls] = victim + 1;
    }
    t->count--;
    return true;
}
