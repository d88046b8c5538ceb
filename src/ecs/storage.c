/* Component storage: one sparse set per type. Sparse pages map an entity
 * index to its dense position + 1; dense pages hold entity indices and data
 * at the same position. Pages are ZE__PAGE entries and never move, so
 * pointers stay valid until that type's next structural change, and there is
 * no copy on growth (and no doubling slack in memory). */
#include <string.h>

#include "ecs_internal.h"

/* The inline ze_get in ecs.h reads these prefixes. */
_Static_assert(offsetof(ze__pool_t, size) == offsetof(ze__pool_prefix_t, size), "pool prefix");
_Static_assert(offsetof(ze__pool_t, id) == offsetof(ze__pool_prefix_t, id), "pool prefix");
_Static_assert(offsetof(ze__pool_t, sparse) == offsetof(ze__pool_prefix_t, sparse), "pool prefix");
_Static_assert(offsetof(ze__pool_t, data) == offsetof(ze__pool_prefix_t, data), "pool prefix");
_Static_assert(offsetof(ze_world_t, gen) == offsetof(ze__world_prefix_t, gen), "world prefix");
_Static_assert(offsetof(ze_world_t, fresh) == offsetof(ze__world_prefix_t, fresh), "world prefix");
_Static_assert(offsetof(ze_world_t, pools) == offsetof(ze__world_prefix_t, pools), "world prefix");
_Static_assert(offsetof(ze_world_t, pool_cap) == offsetof(ze__world_prefix_t, pool_cap),
               "world prefix");
_Static_assert(ZE__PAGE == 4096, "ze_component_get_inline hard-codes the page size");

/* Sparse pages not yet needed all point here, so a lookup needs no null
 * test (the inline ze_get relies on it). Never written: an entity's page is
 * allocated before its entry is set. */
static const uint32_t zero_page[ZE__PAGE];
#define ZERO_PAGE ((uint32_t *)zero_page)

/* Room in w->pools for component id `id` (the table is sized to the
 * registry, which may grow after the world was created). */
static bool pools_reserve(ze_world_t *w, uint32_t id)
{
    if (id < w->pool_cap)
        return true;
    uint32_t cap = ZE_MAX(ZE_MAX(id + 1, w->kernel->component_count), w->pool_cap * 2);
    cap = ZE_ALIGN_UP(ZE_MAX(cap, 16u), 16u);
    ze__pool_t **t = ze_realloc(w->alloc, w->pools, sizeof(*t) * w->pool_cap, sizeof(*t) * cap,
                                _Alignof(ze__pool_t *));
    if (!t)
        return false;
    memset(t + w->pool_cap, 0, sizeof(*t) * (cap - w->pool_cap));
    w->pools = t;
    w->pool_cap = cap;
    return true;
}

/* A world-sized bitset (special, pend_union, tmp_bits) one word longer. */
static bool bitset_widen(ze_world_t *w, uint64_t **set, uint32_t words)
{
    uint64_t *n = ze_realloc(w->alloc, *set, sizeof(uint64_t) * words,
                             sizeof(uint64_t) * (words + 1), _Alignof(uint64_t));
    if (!n)
        return false;
    n[words] = 0;
    *set = n;
    return true;
}

/* Entity masks one word wider (the world's 65th, 129th... type): a new
 * region for the table, the rows copied over. The world-sized bitsets grow
 * with them. */
static bool masks_widen(ze_world_t *w)
{
    uint32_t old = w->mask_words, nw = old + 1;
    if (!bitset_widen(w, &w->special, old) || !bitset_widen(w, &w->pend_union, old) ||
        !bitset_widen(w, &w->tmp_bits, old))
        return false; /* the longer ones are fine: they stay zero-extended */
    ze_mem_region_t r;
    if (ze_mem_region_reserve(w->kernel->mem, ZE_MEM_OWNER_ECS,
                              (size_t)w->capacity * nw * sizeof(uint64_t), &r) != ZE_OK)
        return false;
    size_t rows = ZE_MAX((size_t)w->fresh, w->mask_region.committed / (old * sizeof(uint64_t)));
    rows = ZE_MIN(rows, (size_t)w->capacity);
    if (rows && ze_mem_region_commit(&r, rows * nw * sizeof(uint64_t)) != ZE_OK) {
        ze_mem_region_release(&r);
        return false;
    }
    uint64_t *dst = (uint64_t *)r.base;
    for (size_t i = 0; i < rows; i++) {
        memcpy(dst + i * nw, w->mask + i * old, old * sizeof(uint64_t));
        dst[i * nw + old] = 0;
    }
    ze_mem_region_release(&w->mask_region);
    w->mask_region = r;
    w->mask = dst;
    w->mask_words = nw;
    return true;
}

uint32_t ze__entity_components(const ze_world_t *w, uint32_t idx, ze_component_t *out, uint32_t max)
{
    /* Ascending ids: repeated minimum over the row (entities have few). */
    const uint64_t *row = ze__row(w, idx);
    uint32_t n = 0, prev = 0;
    for (bool first = true;; first = false) {
        uint32_t best = UINT32_MAX;
        ZE__FOR_BITS(w, row, b)
        {
            uint32_t id = w->pool_list[b]->id;
            if ((first || id > prev) && id < best)
                best = id;
        }
        if (best == UINT32_MAX)
            return n;
        if (n < max)
            out[n] = (ze_component_t){best};
        n++;
        prev = best;
    }
}

ze__pool_t *ze__pool_get(ze_world_t *w, uint32_t id)
{
    ze__pool_t *p = ze__pool_of(w, id);
    if (p)
        return p;
    if (id >= w->kernel->component_count || !pools_reserve(w, id))
        return NULL;
    /* The type's bit in entity masks, and room for it in pool_list. */
    if (w->pool_count == w->mask_words * 64 && !masks_widen(w)) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of ECS memory widening entity masks to %u types", w->pool_count + 1);
        return NULL;
    }
    if (w->pool_count == w->pool_list_cap) {
        uint32_t cap = w->pool_list_cap ? w->pool_list_cap * 2 : 16;
        ze__pool_t **t = ze_realloc(w->alloc, w->pool_list, sizeof(*t) * w->pool_list_cap,
                                    sizeof(*t) * cap, _Alignof(ze__pool_t *));
        if (!t)
            return NULL;
        w->pool_list = t;
        w->pool_list_cap = cap;
    }
    const ze_component_info_t *info = ze__info(w->kernel, id);
    p = ze_alloc(w->alloc, sizeof *p, _Alignof(ze__pool_t));
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->id = id;
    p->size = info->size;
    p->align = info->align;
    p->hooks = info->hooks;
    p->has_hooks = info->hooks.ctor || info->hooks.dtor || info->hooks.copy || info->hooks.move;
    /* The capacity is the world's exact slot count; the last page may be
     * partly beyond it. */
    p->page_count = (uint32_t)(((uint64_t)w->capacity + ZE__PAGE - 1) >> ZE__PAGE_BITS);
    size_t table = sizeof(void *) * p->page_count;
    p->sparse = ze_alloc(w->alloc, table, 16);
    p->dense = ze_alloc(w->alloc, table, 16);
    p->data = p->size ? ze_alloc(w->alloc, table, 16) : NULL;
    /* Tables set up before the check: ze__pool_free walks them. */
    for (uint32_t i = 0; p->sparse && i < p->page_count; i++)
        p->sparse[i] = ZERO_PAGE;
    if (p->dense)
        memset(p->dense, 0, table);
    if (p->data)
        memset(p->data, 0, table);
    if (!p->sparse || !p->dense || (p->size && !p->data)) {
        ze__pool_free(w, p);
        return NULL;
    }
    /* Groups created before this pool existed may own its type. */
    for (uint32_t g = 0; g < w->group_count; g++)
        if (ze_mask_has(w->groups[g].owned, (ze_component_t){id}))
            p->groups |= (uint64_t)1 << g;
    p->plain = !p->has_hooks && !p->groups;
    if ((info->flags & ZE_COMPONENT_TRACKED) && !ze__pool_track(w, p)) {
        ze__pool_free(w, p);
        return NULL;
    }
    p->bit = w->pool_count++;
    w->pool_list[p->bit] = p;
    if (p->has_hooks)
        ze__bit_set(w->special, p->bit);
    w->pools[id] = p;
    w->layout++; /* queries recompile their bitsets */
    return p;
}

void ze__pool_free(ze_world_t *w, ze__pool_t *p)
{
    if (!p)
        return;
    size_t table = sizeof(void *) * p->page_count;
    for (uint32_t i = 0; i < p->page_count; i++) {
        if (p->sparse && p->sparse[i] && p->sparse[i] != ZERO_PAGE)
            ze_free(w->alloc, p->sparse[i], sizeof(uint32_t) * ZE__PAGE);
        if (p->dense && p->dense[i])
            ze_free(w->alloc, p->dense[i], sizeof(uint32_t) * (i ? ZE__PAGE : p->dense0_cap));
        if (p->data && p->data[i])
            ze_free(w->alloc, p->data[i], (size_t)p->size * (i ? ZE__PAGE : p->page0_cap));
    }
    ze__pool_ver_free(w, p);
    ze_free(w->alloc, p->sparse, table);
    ze_free(w->alloc, p->dense, table);
    ze_free(w->alloc, p->data, table);
    ze_free(w->alloc, p, sizeof *p);
}

/* What ze_component_add returns for a tag (a component of size 0): a
 * pointer that says "present", not data. One shared placeholder for every
 * tag and entity, read-only and never read by the library: there are zero
 * bytes behind it to use. */
static const _Alignas(16) uint8_t tag_placeholder[16];
#define TAG_PRESENT ((void *)tag_placeholder)

static inline bool valid_component(const ze_world_t *w, ze_component_t c)
{
    return c.id < w->kernel->component_count;
}

/* Make room for dense position `d` and sparse slot `index`. */
static bool pool_reserve(ze_world_t *w, ze__pool_t *p, uint32_t d, uint32_t index)
{
    uint32_t page = d >> ZE__PAGE_BITS;
    uint32_t page0 = p->size ? ZE_MIN(p->dense0_cap, p->page0_cap) : p->dense0_cap;
    if (page == 0 && d >= page0) {
        /* The first dense and data pages grow (x4 from 16 entries) so that a
         * type with few entities, small or large, does not take 4096
         * entries at once (a kernel may have thousands of types). */
        uint32_t cap = page0 ? ZE_MIN(page0 * 4, (uint32_t)ZE__PAGE) : 16;
        if (p->dense0_cap < cap) {
            uint32_t *nd = ze_realloc(w->alloc, p->dense[0], sizeof(uint32_t) * p->dense0_cap,
                                      sizeof(uint32_t) * cap, 64);
            if (!nd)
                return false;
            p->dense[0] = nd;
            p->dense0_cap = cap;
        }
        if (p->size && p->page0_cap < cap) {
            void *np = ze_realloc(w->alloc, p->data[0], (size_t)p->size * p->page0_cap,
                                  (size_t)p->size * cap, ZE_MAX(p->align, 64u));
            if (!np)
                return false;
            p->data[0] = np;
            p->page0_cap = cap;
        }
        page0 = cap;
    } else if (page != 0 && !p->dense[page]) {
        p->dense[page] = ze_alloc(w->alloc, sizeof(uint32_t) * ZE__PAGE, 64);
        if (!p->dense[page])
            return false;
    }
    if (p->size && page != 0 && !p->data[page]) {
        p->data[page] = ze_alloc(w->alloc, (size_t)p->size * ZE__PAGE, ZE_MAX(p->align, 64u));
        if (!p->data[page])
            return false;
    }
    if (p->ver && !p->ver[page] && !ze__pool_ver_page(w, p, page))
        return false;
    /* Pages fill in order (d is the next position), so [0, cap) is ready. */
    uint32_t cap = page == 0 ? page0 : (page + 1) << ZE__PAGE_BITS;
    if (cap > p->cap)
        p->cap = cap;
    uint32_t sp = index >> ZE__PAGE_BITS;
    if (p->sparse[sp] == ZERO_PAGE) {
        uint32_t *fresh = ze_alloc(w->alloc, sizeof(uint32_t) * ZE__PAGE, 64);
        if (!fresh)
            return false;
        memset(fresh, 0, sizeof(uint32_t) * ZE__PAGE);
        p->sparse[sp] = fresh;
    }
    return true;
}

static inline void copy_value(void *dst, const void *src, uint32_t size)
{
    /* Constant-size copies for the common sizes: memcpy with a run-time
     * size is a library call, and adds are hot. */
    switch (size) {
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    case 12:
        memcpy(dst, src, 12);
        break;
    case 16:
        memcpy(dst, src, 16);
        break;
    default:
        memcpy(dst, src, size);
        break;
    }
}

/* Move the entry at dense position `from` (entity `moved`) to the empty
 * position `to`: raw bytes, so only for pools without hooks. */
static inline void move_entry(ze__pool_t *p, uint32_t from, uint32_t to, uint32_t moved)
{
    p->dense[to >> ZE__PAGE_BITS][to & ZE__PAGE_MASK] = moved;
    p->sparse[moved >> ZE__PAGE_BITS][moved & ZE__PAGE_MASK] = to + 1;
    if (p->size)
        copy_value(ze__pool_data(p, to), ze__pool_data(p, from), p->size);
    ze__row_version_move(p, from, to);
}

/* Insert index into p (absent), value from `value` (copy) or default.
 * Returns the data pointer (NULL for tags or on failure via *ok). */
static inline void *pool_insert(ze_world_t *w, ze__pool_t *p, uint32_t index, const void *value,
                                bool *ok)
{
    uint32_t d = p->count;
    /* Pages already there (the common case) need no call. */
    bool ready = d < p->cap && p->sparse[index >> ZE__PAGE_BITS] != ZERO_PAGE;
    if (!ready && !pool_reserve(w, p, d, index)) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of ECS memory adding '%s'",
                        ze__info(w->kernel, p->id)->name);
        *ok = false;
        return NULL;
    }
    p->dense[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK] = index;
    p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK] = d + 1;
    p->count = d + 1;
    ze__bit_set(ze__row(w, index), p->bit);
    ze__row_stamp(p, d, ze__version_now(w)); /* a new row counts as changed */
    void *dst = NULL;
    if (p->size) {
        dst = ze__pool_data(p, d);
        if (value) {
            if (p->hooks.copy)
                p->hooks.copy(dst, value, 1, p->hooks.user);
            else
                copy_value(dst, value, p->size);
        } else if (p->hooks.ctor) {
            p->hooks.ctor(dst, 1, p->hooks.user);
        } else {
            memset(dst, 0, p->size);
        }
    }
    if (p->watched)
        ze__bindings_note(w, index, p->id, ZE_DELTA_ADDED);
    *ok = true;
    if (p->groups) { /* joining a group moves the value */
        ze__groups_after_add(w, index, p);
        return p->size ? ze__pool_data(p, ze__sparse_get(p, index) - 1) : NULL;
    }
    return dst;
}

void ze__component_remove_now(ze_world_t *w, uint32_t index, uint32_t comp);
void ze__component_remove_now(ze_world_t *w, uint32_t index, uint32_t comp)
{
    ze__pool_t *p = w->pools[comp];
    if (p->watched)
        ze__bindings_note(w, index, comp, ZE_DELTA_REMOVED);
    if (p->groups)
        ze__groups_before_remove(w, index, p);
    uint32_t d = ze__sparse_get(p, index) - 1;
    uint32_t last = p->count - 1;
    if (p->size) {
        void *dst = ze__pool_data(p, d);
        if (p->hooks.dtor)
            p->hooks.dtor(dst, 1, p->hooks.user);
        if (d != last) {
            void *src = ze__pool_data(p, last);
            if (p->hooks.move)
                p->hooks.move(dst, src, 1, p->hooks.user);
            else
                copy_value(dst, src, p->size);
        }
    }
    if (d != last) {
        uint32_t moved = ze__pool_entity(p, last);
        p->dense[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK] = moved;
        p->sparse[moved >> ZE__PAGE_BITS][moved & ZE__PAGE_MASK] = d + 1;
        ze__row_version_move(p, last, d);
    }
    p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK] = 0;
    p->count = last;
    ze__bit_clear(ze__row(w, index), p->bit);
    ze__stamp_max(&p->removed, ze__version_now(w));
}

/* ------------------------------------------------------------- destroy */

/* Remove slot `index`'s entries from the pools of set m, none with hooks or
 * watched by a binder. Every component goes, so the entity's entries are
 * holes to fill, not values to keep: each group it is in (innermost first)
 * fills the hole from its end, which moves the hole out to the next group's
 * range; then each pool fills it from its own end. One move per step, not a
 * swap. Reads nothing of the slot but its sparse entries, so it also serves
 * ghosts (whose mask word is the free list's link by then). */
/* Every type of group g is in the bitset m. */
static inline bool has_group(const ze_world_t *w, const uint64_t *m, const ze__group_t *g)
{
    for (uint32_t i = 0; i < g->owned.count; i++)
        if (!ze__bit_get(m, w->pools[g->owned.ids[i]]->bit))
            return false;
    return true;
}

static void remove_holes(ze_world_t *w, uint32_t index, const uint64_t *m)
{
    uint64_t gm = 0;
    ZE__FOR_BITS(w, m, b)
    {
        ze__pool_t *p = w->pool_list[b];
        uint32_t *sp = &p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK];
        p->hole = *sp - 1;
        *sp = 0;
        gm |= p->groups;
    }
    while (gm) { /* descending: bigger (inner) groups first */
        uint32_t gi = 63 - (uint32_t)__builtin_clzll(gm);
        gm &= ~((uint64_t)1 << gi);
        ze__group_t *g = &w->groups[gi];
        if (!has_group(w, m, g))
            continue;
        /* Its entries share one position in every pool the group owns. */
        uint32_t last = --g->len;
        uint32_t h = w->pools[g->first_pool]->hole;
        if (h == last)
            continue;
        uint32_t moved = ze__pool_entity(w->pools[g->first_pool], last);
        for (uint32_t i = 0; i < g->owned.count; i++) {
            ze__pool_t *p = w->pools[g->owned.ids[i]];
            move_entry(p, last, h, moved);
            p->hole = last;
        }
    }
    uint32_t now = ze__version_now(w);
    ZE__FOR_BITS(w, m, b)
    {
        ze__pool_t *p = w->pool_list[b];
        uint32_t last = --p->count;
        if (p->hole != last)
            move_entry(p, last, p->hole, ze__pool_entity(p, last));
        ze__stamp_max(&p->removed, now);
    }
}

/* The lowest component id of row (not empty). */
static uint32_t lowest_component(const ze_world_t *w, const uint64_t *row)
{
    uint32_t best = UINT32_MAX;
    ZE__FOR_BITS(w, row, b)
    {
        if (w->pool_list[b]->id < best)
            best = w->pool_list[b]->id;
    }
    return best;
}

void ze__entity_remove_all(ze_world_t *w, uint32_t index)
{
    uint64_t *row = ze__row(w, index);
    if (ze__row_meets(w, row, w->special)) {
        /* One type at a time: dtors and binder notes in type order. */
        while (!ze__row_empty(w, row))
            ze__component_remove_now(w, index, lowest_component(w, row));
        return;
    }
    remove_holes(w, index, row);
    ze__row_zero(w, row);
}

/* Deferred destroys. ze_entity_destroy of an entity whose components have
 * no hooks and no binder kills the slot at once (generation, free list) and
 * appends its index to w->pend; its entries stay in the pools as ghosts:
 * consistent sparse <-> dense entries that no lookup reaches (lookups check
 * the generation first) and that settle removes before anything walks the
 * dense arrays, reads a group's length or reuses a slot.
 *
 * Settling many ghosts is a bulk pass per pool instead of a random swap per
 * entity: mark the ghosts' dense positions in a bitmap (reading their sparse
 * entries in destroy order, sequential when entities die in creation
 * order), shorten each group by its ghosts, then compact each pool in one
 * forward pass. The pass is stable, so every group's packed prefix stays
 * aligned across the pools it owns; a pool in no group may instead fill its
 * holes from its end, whichever moves fewer entries. Few ghosts (fewer than
 * a quarter of the entries they sit among) go one entity at a time. */
enum { BULK_SHARE = 4 };

/* The ghost's types into w->tmp_bits, from their sparse entries among
 * the types of u (the mask row holds the free list's link). */
static inline const uint64_t *ghost_mask(ze_world_t *w, uint32_t index, const uint64_t *u)
{
    uint64_t *m = w->tmp_bits;
    memset(m, 0, sizeof(uint64_t) * w->mask_words);
    ZE__FOR_BITS(w, u, b)
    {
        if (ze__sparse_get(w->pool_list[b], index))
            ze__bit_set(m, b);
    }
    return m;
}

static inline bool bit_at(const uint64_t *b, uint32_t i)
{
    return (b[i >> 6] >> (i & 63)) & 1;
}

/* Mark the ghosts of pool p in b (zeroed, count bits) and clear their
 * sparse entries. Returns how many there were. */
static uint32_t mark_ghosts(ze__pool_t *p, const uint32_t *pend, uint32_t n, uint64_t *b)
{
    uint32_t dead = 0;
    uint32_t *const *sparse = p->sparse;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = pend[i];
        uint32_t *sp = &sparse[idx >> ZE__PAGE_BITS][idx & ZE__PAGE_MASK];
        uint32_t s = *sp;
        if (!s)
            continue; /* not of this type (or a never-used page: nothing written) */
        *sp = 0;
        s -= 1;
        b[s >> 6] |= (uint64_t)1 << (s & 63);
        dead++;
    }
    return dead;
}

/* Number of set bits of b in [0, len). */
static uint32_t bits_below(const uint64_t *b, uint32_t len)
{
    uint32_t n = 0, k = 0;
    for (; (k + 1) * 64 <= len; k++)
        n += (uint32_t)__builtin_popcountll(b[k]);
    if (len & 63)
        n += (uint32_t)__builtin_popcountll(b[k] & (((uint64_t)1 << (len & 63)) - 1));
    return n;
}

/* Stable: survivors keep their order, moved down over the ghosts. */
static void compact_stable(ze__pool_t *p, const uint64_t *b, uint32_t first)
{
    uint32_t count = p->count, words = (count + 63) >> 6;
    uint32_t to = first;
    for (uint32_t k = first >> 6; k < words; k++) {
        uint64_t live = ~b[k];
        if (k == first >> 6)
            live &= ~(uint64_t)0 << (first & 63);
        if (k + 1 == words && (count & 63))
            live &= ((uint64_t)1 << (count & 63)) - 1;
        while (live) {
            uint32_t from = k * 64 + (uint32_t)__builtin_ctzll(live);
            live &= live - 1;
            move_entry(p, from, to, ze__pool_entity(p, from));
            to++;
        }
    }
}

/* Unordered: each hole below the new end takes the last survivor. */
static void compact_fill(ze__pool_t *p, const uint64_t *b, uint32_t first, uint32_t left)
{
    uint32_t hi = p->count;
    uint32_t words = (left + 63) >> 6;
    for (uint32_t k = first >> 6; k < words; k++) {
        uint64_t holes = b[k];
        if (k + 1 == words && (left & 63))
            holes &= ((uint64_t)1 << (left & 63)) - 1;
        while (holes) {
            uint32_t h = k * 64 + (uint32_t)__builtin_ctzll(holes);
            holes &= holes - 1;
            do
                hi--;
            while (bit_at(b, hi));
            move_entry(p, hi, h, ze__pool_entity(p, hi));
        }
    }
}

/* First set bit of b at or after 0 (b has one). */
static uint32_t first_bit(const uint64_t *b)
{
    uint32_t k = 0;
    while (!b[k])
        k++;
    return k * 64 + (uint32_t)__builtin_ctzll(b[k]);
}

/* The bulk pass over the pools of u. False (nothing changed) when the
 * bitmaps cannot be allocated. */
static bool settle_bulk(ze_world_t *w, const uint32_t *pend, uint32_t n, const uint64_t *u)
{
    size_t words = 0;
    ZE__FOR_BITS(w, u, b)
    {
        ze__pool_t *p = w->pool_list[b];
        p->off = words;
        words += ((size_t)p->count + 63) >> 6;
    }
    size_t bytes = ZE_MAX(words, (size_t)1) * sizeof(uint64_t);
    uint64_t *bits = ze_alloc(w->alloc, bytes, 64);
    if (!bits)
        return false;
    memset(bits, 0, bytes);
    ZE__FOR_BITS(w, u, b)
    {
        ze__pool_t *p = w->pool_list[b];
        ZE_ASSERT(!p->has_hooks);
        p->dead = mark_ghosts(p, pend, n, bits + p->off);
    }
    /* A ghost in a group has every owned type, so it sits at the same
     * position below len in every owned pool: count it in the first. */
    for (uint32_t g = 0; g < w->group_count; g++) {
        ze__group_t *gr = &w->groups[g];
        const ze__pool_t *first = w->pools[gr->first_pool];
        if (ze__bit_get(u, first->bit) && first->dead)
            gr->len -= bits_below(bits + first->off, gr->len);
    }
    ZE__FOR_BITS(w, u, bit)
    {
        ze__pool_t *p = w->pool_list[bit];
        if (!p->dead)
            continue;
        const uint64_t *b = bits + p->off;
        uint32_t first = first_bit(b), left = p->count - p->dead;
        /* stable moves every survivor past the first hole */
        if (p->groups || p->count - first - p->dead <= p->dead)
            compact_stable(p, b, first);
        else
            compact_fill(p, b, first, left);
        p->count = left;
        ze__stamp_max(&p->removed, ze__version_now(w));
    }
    ze_free(w->alloc, bits, bytes);
    return true;
}

void ze__pending_flush(ze_world_t *w)
{
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        ZE_ASSERT(!w->pend_count); /* meanwhile destroys are recorded or refused */
        return;
    }
    w->pend_stuck = false; /* growing the list may be tried again */
    uint32_t n = w->pend_count;
    if (!n)
        return;
    const uint64_t *u = w->pend_union; /* cleared at the end (nothing adds meanwhile) */
    w->pend_count = 0;
    /* At most n ghosts per pool of u: bulk when that is a fair share of
     * the entries. */
    uint64_t entries = 0, types = 0;
    ZE__FOR_BITS(w, u, b)
    {
        entries += w->pool_list[b]->count;
        types++;
    }
    uint64_t most = (uint64_t)n * types;
    if (!(most * BULK_SHARE >= entries && settle_bulk(w, w->pend, n, u))) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t idx = w->pend[i];
            remove_holes(w, idx, ghost_mask(w, idx, u));
        }
    }
    memset(w->pend_union, 0, sizeof(uint64_t) * w->mask_words);
}

/* The common add, inlined into ze_component_add/_set: a plain pool (no
 * hooks, no group) no binder watches, its storage there. False: take
 * pool_insert. */
static inline bool insert_plain(ze_world_t *w, ze__pool_t *p, uint32_t index, uint64_t *row,
                                const void *value)
{
    uint32_t d = p->count;
    uint32_t *sp = p->sparse[index >> ZE__PAGE_BITS];
    if (!p->plain || d >= p->cap || sp == ZERO_PAGE || p->watched)
        return false;
    p->dense[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK] = index;
    sp[index & ZE__PAGE_MASK] = d + 1;
    p->count = d + 1;
    ze__bit_set(row, p->bit);
    ze__row_stamp(p, d, ze__version_now(w));
    if (p->size) {
        void *dst = ze__pool_data(p, d);
        if (value)
            copy_value(dst, value, p->size);
        else
            memset(dst, 0, p->size);
    }
    return true;
}

void *ze_component_add(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    if (!valid_component(w, c) || !ze__alive(w, e))
        return NULL;
    uint32_t index = ze_entity_index(e);
    if (ze__has(w, index, c.id)) {
        const ze__pool_t *p = w->pools[c.id];
        return p->size ? ze__pool_data(p, ze__sparse_get(p, index) - 1) : TAG_PRESENT;
    }
    if (ze__write_denied(w, true)) {
        ze__write_refused(w, "ze_component_add of '%s'", ze__info(w->kernel, c.id)->name);
        return NULL;
    }
    switch (ze__world_gate(w)) {
    case ZE__GATE_REFUSE:
        return NULL;
    case ZE__GATE_DEFER:
        ze_cmd_add(w->deferred, e, c);
        return NULL;
    case ZE__GATE_NOW:
        break;
    }
    ze__pool_t *p = ze__pool_get(w, c.id);
    if (!p)
        return NULL;
    if (insert_plain(w, p, index, ze__row(w, index), NULL))
        return p->size ? ze__pool_data(p, p->count - 1) : TAG_PRESENT;
    bool ok;
    void *data = pool_insert(w, p, index, NULL, &ok);
    return ok && !p->size ? TAG_PRESENT : data;
}

/* A set over a value the entity has: a value write, not a structural
 * change, so allowed anywhere. */
static ze_result set_existing(ze_world_t *w, uint32_t index, ze_component_t c, const void *value)
{
    ze__pool_t *p = w->pools[c.id];
    uint32_t d = ze__sparse_get(p, index) - 1;
    ze__row_stamp(p, d, ze__version_now(w));
    if (p->size) {
        void *dst = ze__pool_data(p, d);
        if (p->hooks.copy) {
            /* copy constructs: the old value is destroyed first */
            if (p->hooks.dtor)
                p->hooks.dtor(dst, 1, p->hooks.user);
            p->hooks.copy(dst, value, 1, p->hooks.user);
        } else {
            copy_value(dst, value, p->size);
        }
    }
    if (p->watched)
        ze__bindings_note(w, index, c.id, ZE_DELTA_CHANGED);
    return ZE_OK;
}

/* Everything but the plain insert (first use of a type, hooks, groups,
 * binders, new storage pages, iteration, waves, a group policy, errors). */
__attribute__((noinline)) static ze_result set_slow(ze_world_t *w, ze_entity_t e, ze_component_t c,
                                                    const void *value)
{
    if (!valid_component(w, c) || !value)
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e))
        return ZE_ERR_NOT_FOUND;
    uint32_t index = ze_entity_index(e);
    bool has = ze__has(w, index, c.id);
    if (ze__write_denied(w, !has))
        return ze__write_refused(w, "ze_component_set of '%s'", ze__info(w->kernel, c.id)->name);
    if (has)
        return set_existing(w, index, c, value);
    switch (ze__world_gate(w)) {
    case ZE__GATE_REFUSE:
        return ZE_ERR_STATE;
    case ZE__GATE_DEFER:
        return ze_cmd_set(w->deferred, e, c, value);
    case ZE__GATE_NOW:
        break;
    }
    ze__pool_t *p = ze__pool_get(w, c.id);
    if (!p)
        return ZE_ERR_OUT_OF_MEMORY;
    bool ok;
    pool_insert(w, p, index, value, &ok);
    return ok ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

ze_result ze_component_set(ze_world_t *w, ze_entity_t e, ze_component_t c, const void *value)
{
    ZE__ECS_THREAD_CHECK();
    /* A pool exists only for a registered type. */
    ze__pool_t *p = ze__pool_of(w, c.id);
    uint32_t index = ze_entity_index(e);
    if (!p || !value || !ze__alive(w, e) || w->group_writes)
        return set_slow(w, e, c, value); /* set_slow applies the group policy */
    uint64_t *row = ze__row(w, index);
    if (ze__bit_get(row, p->bit))
        return set_existing(w, index, c, value);
    if (ze__world_gate(w) == ZE__GATE_NOW && insert_plain(w, p, index, row, value))
        return ZE_OK;
    return set_slow(w, e, c, value);
}

const void *ze_component_get(const ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    uint32_t index = ze_entity_index(e);
    /* The generation and the sparse entry are independent loads, so the CPU
     * overlaps their cache misses. */
    const ze__pool_t *p = ze__pool_of(w, c.id);
    if (!p || !ze__alive(w, e) || !p->size)
        return NULL;
    uint32_t d = ze__sparse_get(p, index);
    return d ? ze__pool_data(p, d - 1) : NULL;
}

void *ze_component_get_mut(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    if (!ze__alive(w, e))
        return NULL;
    ze__pool_t *p = ze__pool_of(w, c.id);
    uint32_t d = p && p->size ? ze__sparse_get(p, ze_entity_index(e)) : 0;
    if (!d)
        return NULL;
    ze__row_stamp(p, d - 1, ze__version_now(w));
    return ze__pool_data(p, d - 1);
}

ze_result ze_component_mark_changed(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    if (!w || !valid_component(w, c))
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e) || !ze__has(w, ze_entity_index(e), c.id))
        return ZE_ERR_NOT_FOUND;
    ze__pool_t *p = w->pools[c.id];
    ze__row_stamp(p, ze__sparse_get(p, ze_entity_index(e)) - 1, ze__version_now(w));
    return ZE_OK;
}

bool ze_component_has(const ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    return ze__alive(w, e) && ze__has(w, ze_entity_index(e), c.id);
}

ze_result ze_component_remove(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    if (!valid_component(w, c))
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e))
        return ZE_ERR_NOT_FOUND;
    uint32_t index = ze_entity_index(e);
    if (!ze__has(w, index, c.id))
        return ZE_ERR_NOT_FOUND;
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_component_remove of '%s'", ze__info(w->kernel, c.id)->name);
    switch (ze__world_gate(w)) {
    case ZE__GATE_REFUSE:
        return ZE_ERR_STATE;
    case ZE__GATE_DEFER:
        return ze_cmd_remove(w->deferred, e, c);
    case ZE__GATE_NOW:
        break;
    }
    ze__component_remove_now(w, index, c.id);
    return ZE_OK;
}

uint32_t ze_component_population(const ze_world_t *w, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    /* Pools count the ghosts of deferred destroys until settled. Worlds are
     * never const objects (ze_world_create allocates them). */
    ze__world_settle((ze_world_t *)w);
    const ze__pool_t *p = ze__pool_of(w, c.id);
    return p ? p->count : 0;
}
