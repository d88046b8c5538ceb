/* Open-addressing hash map: linear probing, backward-shift deletion, keys and
 * values as fixed-size byte blobs. Slot layout: u64 hash (0 = empty; real
 * hashes with value 0 are remapped to 1), key bytes, value bytes. */
#include <string.h>

#include "zengine/base.h"

static inline uint8_t *slot_at(const ze_hashmap_t *m, uint32_t i)
{
    return m->slots + (size_t)i * m->slot_size;
}
static inline uint64_t slot_hash(const uint8_t *s)
{
    uint64_t h;
    memcpy(&h, s, 8);
    return h;
}
static inline uint64_t key_hash(const ze_hashmap_t *m, const void *key)
{
    uint64_t h = ze_hash64(key, m->key_size, 0x5a45u);
    return h ? h : 1;
}

void ze_hashmap_init(ze_hashmap_t *m, ze_allocator_t alloc, uint32_t key_size, uint32_t val_size)
{
    ZE_ASSERT(key_size > 0);
    uint32_t kv = 8 + key_size;
    uint32_t val_offset = val_size ? ZE_ALIGN_UP(kv, 8u) : kv;
    *m = (ze_hashmap_t){
        .key_size = key_size,
        .val_size = val_size,
        .val_offset = val_offset,
        .slot_size = ZE_ALIGN_UP(val_offset + val_size, 8u),
        .alloc = alloc,
    };
}

void ze_hashmap_free(ze_hashmap_t *m)
{
    if (m->slots)
        ze_free(m->alloc, m->slots, (size_t)m->capacity * m->slot_size);
    m->slots = NULL;
    m->capacity = m->count = 0;
}

static void insert_fresh(ze_hashmap_t *m, uint64_t h, const uint8_t *slot_src)
{
    uint32_t mask = m->capacity - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint8_t *s = slot_at(m, i);
        if (!slot_hash(s)) {
            memcpy(s, slot_src, m->slot_size);
            return;
        }
    }
}

static ze_result rehash(ze_hashmap_t *m, uint32_t new_cap)
{
    size_t bytes;
    if (!ze_size_mul(new_cap, m->slot_size, &bytes))
        return ZE_ERR_LIMIT;
    uint8_t *fresh = ze_alloc(m->alloc, bytes, 16);
    if (!fresh)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(fresh, 0, bytes);
    uint8_t *old = m->slots;
    uint32_t old_cap = m->capacity;
    m->slots = fresh;
    m->capacity = new_cap;
    for (uint32_t i = 0; i < old_cap; i++) {
        uint8_t *s = old + (size_t)i * m->slot_size;
        uint64_t h = slot_hash(s);
        if (h)
            insert_fresh(m, h, s);
    }
    if (old)
        ze_free(m->alloc, old, (size_t)old_cap * m->slot_size);
    return ZE_OK;
}

ze_result ze_hashmap_reserve(ze_hashmap_t *m, uint32_t count)
{
    uint64_t need = (uint64_t)count * 4 / 3 + 1;
    uint64_t cap = m->capacity ? m->capacity : 16;
    while (cap < need)
        cap *= 2;
    if (cap > (1u << 31))
        return ZE_ERR_LIMIT;
    return cap > m->capacity ? rehash(m, (uint32_t)cap) : ZE_OK;
}

static uint8_t *find(const ze_hashmap_t *m, const void *key, uint64_t h)
{
    if (!m->capacity)
        return NULL;
    uint32_t mask = m->capacity - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint8_t *s = slot_at(m, i);
        uint64_t sh = slot_hash(s);
        if (!sh)
            return NULL;
        if (sh == h && memcmp(s + 8, key, m->key_size) == 0)
            return s;
    }
}

void *ze_hashmap_get(const ze_hashmap_t *m, const void *key)
{
    uint8_t *s = find(m, key, key_hash(m, key));
    return s ? s + m->val_offset : NULL;
}

ze_result ze_hashmap_put(ze_hashmap_t *m, const void *key, const void *val)
{
    uint64_t h = key_hash(m, key);
    uint8_t *s = find(m, key, h);
    if (!s) {
        if ((uint64_t)(m->count + 1) * 4 > (uint64_t)m->capacity * 3) {
            ze_result r = ze_hashmap_reserve(m, m->count + 1 > 12 ? m->count * 2 : 12);
            if (r != ZE_OK)
                return r;
        }
        uint32_t mask = m->capacity - 1;
        uint32_t i = (uint32_t)h & mask;
        while (slot_hash(slot_at(m, i)))
            i = (i + 1) & mask;
        s = slot_at(m, i);
        memcpy(s, &h, 8);
        memcpy(s + 8, key, m->key_size);
        m->count++;
    }
    if (m->val_size) {
        if (val)
            memcpy(s + m->val_offset, val, m->val_size);
        else
            memset(s + m->val_offset, 0, m->val_size);
    }
    return ZE_OK;
}

bool ze_hashmap_remove(ze_hashmap_t *m, const void *key)
{
    uint8_t *s = find(m, key, key_hash(m, key));
    if (!s)
        return false;
    uint32_t mask = m->capacity - 1;
    uint32_t hole = (uint32_t)((s - m->slots) / m->slot_size);
    /* Backward shift: move later members of the probe run into the hole when
     * their home slot is not between the hole and their position. */
    for (uint32_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
        uint8_t *cur = slot_at(m, i);
        uint64_t h = slot_hash(cur);
        if (!h)
            break;
        uint32_t home = (uint32_t)h & mask;
        bool movable = ((i - home) & mask) >= ((i - hole) & mask);
        if (movable) {
            memcpy(slot_at(m, hole), cur, m->slot_size);
            hole = i;
        }
    }
    memset(slot_at(m, hole), 0, m->slot_size);
    m->count--;
    return true;
}

void ze_hashmap_clear(ze_hashmap_t *m)
{
    /* backward-shift deletion leaves no tombstones: empty is all zero */
    if (m->slots && m->count)
        memset(m->slots, 0, (size_t)m->capacity * m->slot_size);
    m->count = 0;
}

bool ze_hashmap_next(const ze_hashmap_t *m, uint32_t *cursor, const void **key, void **val)
{
    for (uint32_t i = *cursor; i < m->capacity; i++) {
        uint8_t *s = slot_at(m, i);
        if (slot_hash(s)) {
            *cursor = i + 1;
            if (key)
                *key = s + 8;
            if (val)
                *val = s + m->val_offset;
            return true;
        }
    }
    *cursor = m->capacity;
    return false;
}
