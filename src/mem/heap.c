/* General heap: two-level segregated fit (TLSF, Masmano et al.), O(1)
 * allocate and free. One growable area per heap: the heap's own header sits
 * at the start of its region and the area behind it is committed as the heap
 * grows; a zero-size "sentinel" block always ends the area.
 *
 * Block layout (16-byte header, payload 16-byte aligned, sizes multiples of
 * 16): prev_phys (valid only when the previous block is free), size | flags,
 * then the payload, whose first 16 bytes hold the free-list links of a free
 * block. The header does not overlap the previous payload: simpler, and it
 * keeps every payload 16-byte aligned.
 *
 * Small blocks (payload < 512 bytes) freed while their exact size class has
 * fewer than QUICK_CAP cached blocks go onto a per-class "quick" list instead
 * of being merged: the next allocation of that size pops one without touching
 * neighbours or free lists (the same trick as glibc's tcache, and the reason
 * the heap beats malloc on mixed sizes). Quick blocks stay marked used, so
 * nothing merges into them; when the heap would otherwise have to grow, all
 * quick blocks are released into the general lists first.
 *
 * A heap created with `grow` is not limited to its first range: when that
 * range is full it reserves another region of the owner's range (a
 * "segment": its own first block and sentinel, so blocks never merge across
 * segments; segments stay until the heap is destroyed), and a block of
 * HUGE_MIN bytes or more is a region of its own ("huge": the pages go back
 * to the owner on free instead of staying committed in a free list). A huge
 * block carries a block header flagged FLAG_HUGE, so free and realloc tell
 * it apart from one test of the header they read anyway, preceded by its
 * region. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

#define LOG_CH "mem"

enum {
    ALIGN_LOG2 = 4,
    ALIGN = 1 << ALIGN_LOG2,
    SL_LOG2 = 5,
    SL_COUNT = 1 << SL_LOG2,
    FL_SHIFT = SL_LOG2 + ALIGN_LOG2,
    SMALL_BLOCK = 1 << FL_SHIFT, /* below this, one first-level class */
    FL_MAX = 40,                 /* largest block class: 2^40 bytes */
    FL_COUNT = FL_MAX - FL_SHIFT + 1,
    HDR = 16,
    MIN_PAYLOAD = 16,
    MAX_ALIGN = 4096,
    DEFAULT_HEAP = 64 << 20,
    MIN_GROW = 256 << 10,
    QUICK_CLASSES = SMALL_BLOCK / ALIGN, /* exact 16-byte classes below 512 */
    QUICK_CAP = 32,                      /* cached blocks per class */
    MAX_SEGMENTS = 64,                   /* ranges of a growing heap */
    HUGE_MIN = 1 << 20,                  /* a growing heap's blocks this large are regions */
};

#define FLAG_FREE      ((size_t)1)
#define FLAG_PREV_FREE ((size_t)2)
#define FLAG_QUICK     ((size_t)4) /* used block parked on a quick list */
#define FLAG_HUGE      ((size_t)8) /* a block that is a region of its own */
#define FLAG_MASK      ((size_t)15)

typedef struct block_t {
    struct block_t *prev_phys;
    size_t size;
    struct block_t *next_free, *prev_free;
} block_t;

/* A full segment of a growing heap (the current one is the heap's region,
 * area and sentinel). */
typedef struct segment_t {
    ze_mem_region_t region;
    uint8_t *area;
    block_t *sentinel;
} segment_t;

struct ze_heap_t {
    atomic_flag lock;
    bool thread_safe;
    bool passthrough;
    bool grow;
    ze_mem_t *mm;
    ze_mem_owner owner;
    ze_mem_region_t region; /* the current segment */
    uint8_t *area;          /* its first block */
    block_t *sentinel;
    size_t segment_size;          /* a new segment's least reservation */
    segment_t full[MAX_SEGMENTS]; /* [0] holds the heap's own header */
    uint32_t full_count;
    size_t huge_used, huge_committed;
    uint32_t huge_live;
    uint64_t fl_bitmap;
    uint32_t sl_bitmap[FL_COUNT];
    block_t *heads[FL_COUNT][SL_COUNT];
    size_t used, free_bytes;
    uint32_t live, free_count;
    block_t *quick[QUICK_CLASSES];
    uint32_t quick_count[QUICK_CLASSES];
    uint32_t quick_total;
    size_t quick_bytes;
};

/* ------------------------------------------------------------- helpers */

static inline size_t bsize(const block_t *b)
{
    return b->size & ~FLAG_MASK;
}
static inline bool is_free(const block_t *b)
{
    return b->size & FLAG_FREE;
}
static inline bool prev_free(const block_t *b)
{
    return b->size & FLAG_PREV_FREE;
}
static inline void *payload(block_t *b)
{
    return (uint8_t *)b + HDR;
}
static inline block_t *from_payload(const void *p)
{
    return (block_t *)((uint8_t *)p - HDR);
}
static inline block_t *next_phys(const block_t *b)
{
    return (block_t *)((uint8_t *)b + HDR + bsize(b));
}
static inline void set_size(block_t *b, size_t s)
{
    b->size = s | (b->size & FLAG_MASK);
}
static inline int fls_sz(size_t x)
{
    return 63 - __builtin_clzll((unsigned long long)x);
}

static void mapping(size_t size, int *fl, int *sl)
{
    if (size < SMALL_BLOCK) {
        *fl = 0;
        *sl = (int)(size / (SMALL_BLOCK / SL_COUNT));
    } else {
        int f = fls_sz(size);
        *sl = (int)(size >> (f - SL_LOG2)) ^ SL_COUNT;
        *fl = f - (FL_SHIFT - 1);
    }
}

/* Round up so that any block in the found class is large enough. */
static void mapping_search(size_t size, int *fl, int *sl)
{
    if (size >= SMALL_BLOCK)
        size += ((size_t)1 << (fls_sz(size) - SL_LOG2)) - 1;
    mapping(size, fl, sl);
}

static void list_remove(ze_heap_t *h, block_t *b)
{
    int fl, sl;
    mapping(bsize(b), &fl, &sl);
    if (b->prev_free)
        b->prev_free->next_free = b->next_free;
    else
        h->heads[fl][sl] = b->next_free;
    if (b->next_free)
        b->next_free->prev_free = b->prev_free;
    if (!h->heads[fl][sl]) {
        h->sl_bitmap[fl] &= ~(1u << sl);
        if (!h->sl_bitmap[fl])
            h->fl_bitmap &= ~(1ull << fl);
    }
    h->free_count--;
    h->free_bytes -= bsize(b);
}

static void list_insert(ze_heap_t *h, block_t *b)
{
    int fl, sl;
    mapping(bsize(b), &fl, &sl);
    b->prev_free = NULL;
    b->next_free = h->heads[fl][sl];
    if (b->next_free)
        b->next_free->prev_free = b;
    h->heads[fl][sl] = b;
    h->sl_bitmap[fl] |= 1u << sl;
    h->fl_bitmap |= 1ull << fl;
    h->free_count++;
    h->free_bytes += bsize(b);
}

static block_t *find_free(ze_heap_t *h, size_t size)
{
    int fl, sl;
    mapping_search(size, &fl, &sl);
    if (fl >= FL_COUNT)
        return NULL;
    uint32_t sl_map = h->sl_bitmap[fl] & (~0u << sl);
    if (!sl_map) {
        uint64_t fl_map = fl + 1 < 64 ? h->fl_bitmap & (~0ull << (fl + 1)) : 0;
        if (!fl_map)
            return NULL;
        fl = __builtin_ctzll(fl_map);
        sl_map = h->sl_bitmap[fl];
    }
    sl = __builtin_ctz(sl_map);
    return h->heads[fl][sl];
}

/* Mark b free, merge with free neighbours, insert. b is not in any list. */
static block_t *release_block(ze_heap_t *h, block_t *b)
{
    b->size |= FLAG_FREE;
    if (prev_free(b)) {
        block_t *prev = b->prev_phys;
        list_remove(h, prev);
        set_size(prev, bsize(prev) + HDR + bsize(b));
        b = prev;
    }
    block_t *next = next_phys(b);
    if (is_free(next)) {
        list_remove(h, next);
        set_size(b, bsize(b) + HDR + bsize(next));
        next = next_phys(b);
    }
    next->prev_phys = b;
    next->size |= FLAG_PREV_FREE;
    list_insert(h, b);
    return b;
}

/* b is used and not in a list: cut its tail beyond `size` into a free
 * block when the remainder can hold a block. */
static void split_tail(ze_heap_t *h, block_t *b, size_t size)
{
    size_t total = bsize(b);
    if (total < size + HDR + MIN_PAYLOAD)
        return;
    set_size(b, size);
    block_t *rest = next_phys(b);
    rest->size = (total - size - HDR) & ~FLAG_MASK; /* prev (b) is used */
    release_block(h, rest);
}

/* The current segment is full: reserve the next one (at least the first's
 * size) and make its committed part one free block. */
static bool add_segment(ze_heap_t *h, size_t need)
{
    if (h->full_count == MAX_SEGMENTS)
        return false;
    size_t want;
    if (!ze_size_add(need, 2 * HDR + MIN_GROW, &want))
        return false;
    ze_mem_region_t rg;
    if (ze_mem_region_reserve(h->mm, h->owner, ZE_MAX(want, h->segment_size), &rg) != ZE_OK)
        return false;
    size_t first = ZE_MIN(ZE_MAX(want, ZE_MAX((size_t)MIN_GROW, h->segment_size / 8)), rg.reserved);
    if (ze_mem_region_commit(&rg, first) != ZE_OK &&
        ze_mem_region_commit(&rg, ZE_MIN(want, rg.reserved)) != ZE_OK) {
        ze_mem_region_release(&rg);
        return false;
    }
    h->full[h->full_count++] = (segment_t){h->region, h->area, h->sentinel};
    h->region = rg;
    h->area = rg.base;
    block_t *b = (block_t *)h->area;
    b->prev_phys = NULL;
    b->size = (rg.committed - HDR) - HDR; /* used, prev used */
    h->sentinel = next_phys(b);
    h->sentinel->size = 0;
    release_block(h, b);
    return true;
}

static bool grow(ze_heap_t *h, size_t need)
{
    size_t old_end = h->region.committed;
    size_t area_bytes = old_end - (size_t)(h->area - h->region.base);
    size_t step = ZE_MAX(need + HDR, ZE_MAX((size_t)MIN_GROW, area_bytes / 2));
    size_t want;
    if (!ze_size_add(old_end, step, &want))
        return false;
    if (want > h->region.reserved)
        want = h->region.reserved;
    if (want < old_end + need + HDR || ze_mem_region_commit(&h->region, want) != ZE_OK) {
        /* Retry with the bare minimum when the larger step was refused. */
        if (!ze_size_add(old_end, need + HDR, &want) || want > h->region.reserved)
            return h->grow && add_segment(h, need);
        if (ze_mem_region_commit(&h->region, want) != ZE_OK)
            return false;
    }
    size_t new_end = h->region.committed;
    block_t *b = h->sentinel; /* becomes the new block */
    b->size = ((new_end - HDR) - ((size_t)((uint8_t *)b - h->region.base) + HDR)) |
              (b->size & FLAG_PREV_FREE);
    block_t *s = next_phys(b);
    s->size = 0;
    h->sentinel = s;
    release_block(h, b);
    return true;
}

static inline void lock(ze_heap_t *h)
{
    if (!h->thread_safe)
        return;
    int spins = 0;
    while (atomic_flag_test_and_set_explicit(&h->lock, memory_order_acquire)) {
        if (++spins > 64) {
            sched_yield();
            spins = 0;
        }
    }
}
static inline void unlock(ze_heap_t *h)
{
    if (h->thread_safe)
        atomic_flag_clear_explicit(&h->lock, memory_order_release);
}

/* -------------------------------------------------------- pass-through */

/* Each block comes from the system allocator with a prefix recording its
 * size and prefix length, so budgets stay exact and ASan sees every block. */
typedef struct pt_prefix_t {
    size_t size;
    size_t prefix;
} pt_prefix_t;

static void *pt_alloc(ze_heap_t *h, size_t size, size_t align)
{
    size_t prefix = align < 16 ? 16 : align;
    size_t total;
    if (!ze_size_add(size, prefix, &total))
        return NULL;
    if (ze__mem_account(h->mm, h->owner, size) != ZE_OK)
        return NULL;
    void *raw = NULL;
    if (posix_memalign(&raw, prefix, total) != 0) {
        ze__mem_unaccount(h->mm, h->owner, size);
        return NULL;
    }
    uint8_t *p = (uint8_t *)raw + prefix;
    ((pt_prefix_t *)p)[-1] = (pt_prefix_t){size, prefix};
    lock(h);
    h->live++;
    h->used += size;
    unlock(h);
    ze__mem_count_alloc(h->mm, h->owner);
    return p;
}

static void pt_free(ze_heap_t *h, void *ptr)
{
    pt_prefix_t pre = ((pt_prefix_t *)ptr)[-1];
    lock(h);
    h->live--;
    h->used -= pre.size;
    unlock(h);
    ze__mem_unaccount(h->mm, h->owner, pre.size);
    free((uint8_t *)ptr - pre.prefix);
}

/* ---------------------------------------------------------------- API */

ze_result ze_heap_create(ze_mem_t *mm, const ze_heap_desc_t *desc, ze_heap_t **out)
{
    if (!mm || !desc || !out)
        return ZE_ERR_INVALID_ARG;
    *out = NULL;
    if (mm->passthrough) {
        ze_result fr = ze__mem_fault(mm, desc->owner); /* counts like a native heap's region */
        if (fr != ZE_OK)
            return fr;
        ze_heap_t *h = calloc(1, sizeof *h);
        if (!h)
            return ZE_ERR_OUT_OF_MEMORY;
        atomic_flag_clear(&h->lock);
        h->mm = mm;
        h->owner = desc->owner;
        h->thread_safe = desc->thread_safe;
        h->passthrough = true;
        *out = h;
        return ZE_OK;
    }
    ze_mem_region_t rg;
    size_t max = desc->max_size ? desc->max_size : DEFAULT_HEAP;
    if (max > ((size_t)1 << (FL_MAX - 1))) /* largest size class the lists index */
        max = (size_t)1 << (FL_MAX - 1);
    ze_result r = ze_mem_region_reserve(mm, desc->owner, max, &rg);
    if (r != ZE_OK)
        return r;
    size_t area_off = ZE_ALIGN_UP(sizeof(ze_heap_t), (size_t)ALIGN);
    size_t first = ZE_MAX((size_t)MIN_GROW, area_off + 2 * HDR + MIN_PAYLOAD);
    r = ze_mem_region_commit(&rg, ZE_MIN(first, rg.reserved));
    if (r == ZE_OK && rg.committed < area_off + 2 * HDR + MIN_PAYLOAD)
        r = ZE_ERR_LIMIT;
    if (r != ZE_OK) {
        ze_mem_region_release(&rg);
        return r;
    }
    ze_heap_t *h = (ze_heap_t *)rg.base;
    memset(h, 0, sizeof *h);
    atomic_flag_clear(&h->lock);
    h->mm = mm;
    h->owner = desc->owner;
    h->thread_safe = desc->thread_safe;
    h->grow = desc->grow;
    h->segment_size = rg.reserved;
    h->region = rg;
    h->area = rg.base + area_off;
    block_t *b = (block_t *)h->area;
    size_t end = rg.committed;
    b->size = (end - HDR) - (area_off + HDR); /* used, prev used */
    h->sentinel = next_phys(b);
    h->sentinel->size = 0;
    release_block(h, b);
    *out = h;
    return ZE_OK;
}

void ze_heap_destroy(ze_heap_t *h)
{
    if (!h)
        return;
    if (h->passthrough) {
        /* Blocks still live are leaks the caller owns; ASan reports them. */
        ze__mem_unaccount(h->mm, h->owner, h->used);
        free(h);
        return;
    }
    /* h lives inside the first segment: copy before releasing. */
    ze_mem_region_t regions[MAX_SEGMENTS + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->full_count; i++)
        regions[n++] = h->full[i].region;
    regions[n++] = h->region;
    while (n--)
        ze_mem_region_release(&regions[n]);
}

/* ------------------------------------------------------------ huge blocks */

/* A huge block's region, stored before its block header. */
static ze_mem_region_t *huge_region(block_t *b)
{
    return (ze_mem_region_t *)((uint8_t *)b - sizeof(ze_mem_region_t));
}

static void *huge_alloc(ze_heap_t *h, size_t size, size_t align)
{
    size_t off = ZE_ALIGN_UP(sizeof(ze_mem_region_t) + HDR, align);
    size_t asize = ZE_ALIGN_UP(size, (size_t)ALIGN), total;
    if (!ze_size_add(off, asize, &total))
        return NULL;
    ze_mem_region_t rg;
    if (ze_mem_region_reserve(h->mm, h->owner, total, &rg) != ZE_OK)
        return NULL;
    if (ze_mem_region_commit(&rg, total) != ZE_OK) {
        ze_mem_region_release(&rg);
        return NULL;
    }
    block_t *b = (block_t *)(rg.base + off - HDR);
    b->prev_phys = NULL;
    b->size = asize | FLAG_HUGE;
    memcpy(huge_region(b), &rg, sizeof rg);
    lock(h);
    h->huge_live++;
    h->huge_used += asize;
    h->huge_committed += rg.committed;
    unlock(h);
    return payload(b);
}

static void huge_free(ze_heap_t *h, block_t *b)
{
    ze_mem_region_t rg;
    memcpy(&rg, huge_region(b), sizeof rg);
    lock(h);
    h->huge_live--;
    h->huge_used -= bsize(b);
    h->huge_committed -= rg.committed;
    unlock(h);
    ze_mem_region_release(&rg);
}

static size_t class_round(size_t size)
{
    if (size < SMALL_BLOCK)
        return size;
    size_t r = ((size_t)1 << (fls_sz(size) - SL_LOG2)) - 1;
    return (size + r) & ~r;
}

static void flush_quick(ze_heap_t *h)
{
    for (uint32_t c = 0; c < QUICK_CLASSES; c++) {
        block_t *q = h->quick[c];
        while (q) {
            block_t *next = q->next_free;
            q->size &= ~FLAG_QUICK;
            release_block(h, q);
            q = next;
        }
        h->quick[c] = NULL;
        h->quick_count[c] = 0;
    }
    h->quick_total = 0;
    h->quick_bytes = 0;
}

static void *alloc_locked(ze_heap_t *h, size_t size, size_t align)
{
    size_t asize = ZE_ALIGN_UP(ZE_MAX(size, (size_t)MIN_PAYLOAD), (size_t)ALIGN);
    size_t search = asize;
    if (align > ALIGN)
        search = asize + align + HDR + MIN_PAYLOAD; /* room for a leading gap */
    if (align <= ALIGN && asize < SMALL_BLOCK) {
        uint32_t c = (uint32_t)(asize / ALIGN);
        block_t *q = h->quick[c];
        if (q) {
            h->quick[c] = q->next_free;
            h->quick_count[c]--;
            h->quick_total--;
            h->quick_bytes -= asize;
            q->size &= ~FLAG_QUICK;
            h->live++;
            h->used += asize;
            return payload(q);
        }
    }
    block_t *b = find_free(h, search);
    if (!b && h->quick_total) {
        flush_quick(h); /* cached blocks may merge into what we need */
        b = find_free(h, search);
    }
    if (!b) {
        /* Grow by the rounded-up class size: find_free looks one class
         * above `search`, so a block of exactly `search` bytes would not
         * be found again. */
        if (!grow(h, class_round(search)))
            return NULL;
        b = find_free(h, search);
        if (!b)
            return NULL;
    }
    list_remove(h, b);
    b->size &= ~FLAG_FREE;
    next_phys(b)->size &= ~FLAG_PREV_FREE;
    if (align > ALIGN) {
        uintptr_t p = (uintptr_t)payload(b);
        uintptr_t aligned = ZE_ALIGN_UP(p, (uintptr_t)align);
        if (aligned != p && aligned - p < HDR + MIN_PAYLOAD)
            aligned = ZE_ALIGN_UP(p + HDR + MIN_PAYLOAD, (uintptr_t)align);
        size_t gap = (size_t)(aligned - p);
        if (gap) {
            /* Cut the leading gap off as a free block of its own. */
            size_t total = bsize(b);
            block_t *nb = (block_t *)((uint8_t *)b + gap);
            nb->size = total - gap; /* flags fixed below */
            set_size(b, gap - HDR);
            nb->prev_phys = b;
            nb->size |= FLAG_PREV_FREE;
            release_block(h, b); /* may merge with a free predecessor; sets nb's link */
            b = nb;
        }
    }
    split_tail(h, b, asize);
    h->live++;
    h->used += bsize(b);
    return payload(b);
}

void *ze_heap_alloc(ze_heap_t *h, size_t size, size_t align)
{
    if (!size)
        return NULL;
    if (align < ALIGN)
        align = ALIGN;
    if (!ZE_IS_POW2(align) || align > MAX_ALIGN || size > ((size_t)1 << FL_MAX))
        return NULL;
    if (ze__mem_fault(h->mm, h->owner) != ZE_OK)
        return NULL;
    if (h->passthrough)
        return pt_alloc(h, size, align);
    if (h->grow && size >= HUGE_MIN) {
        /* the region calls report a refusal themselves */
        void *p = huge_alloc(h, size, align);
        if (p)
            ze__mem_count_alloc(h->mm, h->owner);
        return p;
    }
    lock(h);
    void *p = alloc_locked(h, size, align);
    /* Why it failed: the heap's own range is full, or the owner's budget
     * refused a commit (reported there, by ze__mem_account); a growing
     * heap's new segment reported its own refusal. */
    bool full =
        !p && !h->grow &&
        h->region.committed + size + ZE_MAX(align, (size_t)ALIGN) + 2 * HDR > h->region.reserved;
    unlock(h);
    if (__builtin_expect(!p, 0) && full)
        ze__mem_note_heap_full(h->mm, h->owner, size, h->region.reserved);
    else if (p)
        ze__mem_count_alloc(h->mm, h->owner);
    return p;
}

/* b lies in one of the heap's segments (for the assert). */
static inline bool in_heap(const ze_heap_t *h, const block_t *b)
{
    if ((const uint8_t *)b >= h->area && b < h->sentinel)
        return true;
    for (uint32_t i = 0; i < h->full_count; i++)
        if ((const uint8_t *)b >= h->full[i].area && b < h->full[i].sentinel)
            return true;
    return false;
}

void ze_heap_free(ze_heap_t *h, void *ptr)
{
    if (!ptr)
        return;
    if (h->passthrough) {
        pt_free(h, ptr);
        return;
    }
    block_t *b = from_payload(ptr);
    lock(h); /* before the check: neighbours' frees rewrite headers and the sentinel */
    if (b->size & FLAG_HUGE) {
        unlock(h);
        huge_free(h, b);
        return;
    }
    ZE_ASSERT(in_heap(h, b) && !is_free(b) && !(b->size & FLAG_QUICK));
    size_t sz = bsize(b);
    h->live--;
    h->used -= sz;
    uint32_t c = (uint32_t)(sz / ALIGN);
    if (sz < SMALL_BLOCK && h->quick_count[c] < QUICK_CAP) {
        b->size |= FLAG_QUICK;
        b->next_free = h->quick[c];
        h->quick[c] = b;
        h->quick_count[c]++;
        h->quick_total++;
        h->quick_bytes += sz;
    } else {
        release_block(h, b);
    }
    unlock(h);
}

size_t ze_heap_block_size(ze_heap_t *h, const void *ptr)
{
    if (h->passthrough)
        return ((const pt_prefix_t *)ptr)[-1].size;
    lock(h);
    size_t n = bsize(from_payload(ptr)); /* a huge block's too */
    unlock(h);
    return n;
}

void *ze_heap_realloc(ze_heap_t *h, void *ptr, size_t new_size, size_t align)
{
    if (!ptr)
        return ze_heap_alloc(h, new_size, align);
    if (!new_size) {
        ze_heap_free(h, ptr);
        return NULL;
    }
    size_t old;
    if (h->passthrough) {
        old = ze_heap_block_size(h, ptr);
    } else {
        /* The header is read under the lock: a neighbour's free rewrites its
         * flag bits concurrently. */
        lock(h);
        block_t *b = from_payload(ptr);
        old = bsize(b);
        bool huge = b->size & FLAG_HUGE;
        if (!huge && new_size <= old && ((uintptr_t)ptr & (ZE_MAX(align, 16) - 1)) == 0 &&
            !(h->grow && new_size >= HUGE_MIN)) {
            h->used -= old;
            split_tail(h, b, ZE_ALIGN_UP(ZE_MAX(new_size, (size_t)MIN_PAYLOAD), (size_t)ALIGN));
            h->used += bsize(b);
            unlock(h);
            return ptr;
        }
        unlock(h);
    }
    void *p = ze_heap_alloc(h, new_size, align);
    if (!p)
        return NULL;
    memcpy(p, ptr, old < new_size ? old : new_size);
    ze_heap_free(h, ptr);
    return p;
}

static void *heap_alloc_fn(void *user, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    (void)old_size;
    return ze_heap_realloc(user, ptr, new_size, align);
}

ze_allocator_t ze_heap_allocator(ze_heap_t *h)
{
    return (ze_allocator_t){heap_alloc_fn, h};
}

void ze_heap_trim(ze_heap_t *h)
{
    if (h->passthrough)
        return;
    lock(h);
    flush_quick(h);
    unlock(h);
}

ze_heap_stats_t ze_heap_stats(ze_heap_t *h)
{
    lock(h);
    size_t committed = h->region.committed + h->huge_committed;
    for (uint32_t i = 0; i < h->full_count; i++)
        committed += h->full[i].region.committed;
    ze_heap_stats_t s = {
        .used = h->used + h->huge_used,
        .free = h->free_bytes + h->quick_bytes,
        .committed = h->passthrough ? h->used : committed,
        .live_blocks = h->live + h->huge_live,
        .free_blocks = h->free_count + h->quick_total,
        .cached_blocks = h->quick_total,
    };
    unlock(h);
    return s;
}

#define CHECK(cond)                                               \
    do {                                                          \
        if (!(cond)) {                                            \
            ZE_LOG_ERROR(LOG_CH, "heap check failed: %s", #cond); \
            r = ZE_ERR_INTERNAL;                                  \
            goto done;                                            \
        }                                                         \
    } while (0)

ze_result ze_heap_check(ze_heap_t *h)
{
    if (h->passthrough)
        return ZE_OK;
    ze_result r = ZE_OK;
    lock(h);
    uint32_t walk_free = 0, walk_used = 0, walk_quick = 0;
    size_t used_bytes = 0;
    for (uint32_t seg = 0; seg <= h->full_count; seg++) {
        const segment_t cur = {h->region, h->area, h->sentinel};
        const segment_t *sg = seg < h->full_count ? &h->full[seg] : &cur;
        uint8_t *end = sg->region.base + sg->region.committed;
        bool prev_was_free = false;
        block_t *prev = NULL;
        block_t *b = (block_t *)sg->area;
        while (b != sg->sentinel) {
            CHECK((uint8_t *)b + HDR <= end);
            CHECK(bsize(b) % ALIGN == 0 && bsize(b) >= MIN_PAYLOAD);
            CHECK(prev_free(b) == prev_was_free);
            if (prev_was_free)
                CHECK(b->prev_phys == prev);
            if (is_free(b)) {
                CHECK(!prev_was_free); /* free neighbours are always merged */
                CHECK(!(b->size & FLAG_QUICK));
                walk_free++;
            } else if (b->size & FLAG_QUICK) {
                walk_quick++;
            } else {
                walk_used++;
                used_bytes += bsize(b);
            }
            prev_was_free = is_free(b);
            prev = b;
            b = next_phys(b);
            CHECK((uint8_t *)b <= end - HDR);
        }
        CHECK((uint8_t *)sg->sentinel + HDR == end && bsize(sg->sentinel) == 0);
        CHECK(prev_free(sg->sentinel) == prev_was_free);
    }
    CHECK(walk_used == h->live && used_bytes == h->used && walk_free == h->free_count);
    uint32_t list_free = 0;
    for (int fl = 0; fl < FL_COUNT; fl++) {
        CHECK(((h->fl_bitmap >> fl) & 1) == (h->sl_bitmap[fl] != 0));
        for (int sl = 0; sl < SL_COUNT; sl++) {
            block_t *f = h->heads[fl][sl];
            CHECK(((h->sl_bitmap[fl] >> sl) & 1) == (f != NULL));
            block_t *back = NULL;
            for (; f; back = f, f = f->next_free) {
                int cfl, csl;
                mapping(bsize(f), &cfl, &csl);
                CHECK(is_free(f) && cfl == fl && csl == sl && f->prev_free == back);
                CHECK(++list_free <= walk_free);
            }
        }
    }
    CHECK(list_free == walk_free);
    uint32_t list_quick = 0;
    for (uint32_t c = 0; c < QUICK_CLASSES; c++) {
        uint32_t n = 0;
        for (block_t *q = h->quick[c]; q; q = q->next_free) {
            CHECK((q->size & FLAG_QUICK) && !is_free(q) && bsize(q) == (size_t)c * ALIGN);
            CHECK(++n <= QUICK_CAP);
        }
        CHECK(n == h->quick_count[c]);
        list_quick += n;
    }
    CHECK(list_quick == walk_quick && list_quick == h->quick_total);
done:
    unlock(h);
    return r;
}

/* ------------------------------------------------------ owner allocator */

static void *owner_alloc_fn(void *user, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    (void)old_size;
    return ze_heap_realloc(user, ptr, new_size, align);
}

static void *refuse_alloc_fn(void *user, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    (void)user, (void)ptr, (void)old_size, (void)new_size, (void)align;
    return NULL;
}

ze_allocator_t ze_mem_owner_allocator(ze_mem_t *mm, ze_mem_owner owner)
{
    ze__owner_t *o = &mm->owners[owner];
    ze_heap_t *h = atomic_load_explicit(&o->heap, memory_order_acquire);
    if (!h && o->budget) {
        /* Created outside the owner lock (creation reserves a region, which
         * takes that lock); the loser of a race destroys its heap. It starts
         * with a sixteenth of the owner's range and grows by regions, so
         * arenas, pools, tables and large blocks share the rest. */
        ze_heap_t *fresh = NULL;
        size_t max =
            ZE_ALIGN_UP(ZE_MAX((size_t)(o->budget / 16), (size_t)ZE_MIB(1)), ze_mem_page_size());
        if (ze_heap_create(mm,
                           &(ze_heap_desc_t){
                               .owner = owner, .max_size = max, .thread_safe = true, .grow = true},
                           &fresh) == ZE_OK) {
            ze_heap_t *expected = NULL;
            if (atomic_compare_exchange_strong_explicit(&o->heap, &expected, fresh,
                                                        memory_order_acq_rel, memory_order_acquire))
                h = fresh;
            else {
                ze_heap_destroy(fresh);
                h = expected;
            }
        }
    }
    if (!h)
        return (ze_allocator_t){refuse_alloc_fn, NULL};
    return (ze_allocator_t){owner_alloc_fn, h};
}
