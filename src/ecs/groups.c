/* Packs. Group g owns a set of component types; the entities that
 * have all of them sit at dense positions [0, len) of every owned pool, in
 * the same order, so a query over the set is a loop over packed arrays.
 * Groups nest (sets contained in one another) and are kept sorted by set
 * size, smallest first: a bigger group's range is a prefix of a smaller
 * one's in the pools they share. */
#include <stdio.h>
#include <string.h>

#include "ecs_internal.h"

/* Swap two values: constant-size copies for the common sizes (a run-time
 * sized memcpy of 8 bytes compiled to `rep movsq` and dominated destroys). */
static inline void swap_bytes(uint8_t *x, uint8_t *y, uint32_t size)
{
#define ZE__SWAP_N(n)     \
    do {                  \
        uint8_t t_[n];    \
        memcpy(t_, x, n); \
        memcpy(x, y, n);  \
        memcpy(y, t_, n); \
    } while (0)
    switch (size) {
    case 4:
        ZE__SWAP_N(4);
        return;
    case 8:
        ZE__SWAP_N(8);
        return;
    case 12:
        ZE__SWAP_N(12);
        return;
    case 16:
        ZE__SWAP_N(16);
        return;
    default:
        break;
    }
    uint32_t off = 0;
    for (; off + 64 <= size; off += 64) {
        uint8_t *a = x + off, *b = y + off;
        uint8_t t_[64];
        memcpy(t_, a, 64);
        memcpy(a, b, 64);
        memcpy(b, t_, 64);
    }
    for (; off < size; off++) {
        uint8_t t = x[off];
        x[off] = y[off];
        y[off] = t;
    }
#undef ZE__SWAP_N
}

static void swap_positions(ze__pool_t *p, uint32_t a, uint32_t b)
{
    if (a == b)
        return;
    uint32_t ea = ze__pool_entity(p, a), eb = ze__pool_entity(p, b);
    p->dense[a >> ZE__PAGE_BITS][a & ZE__PAGE_MASK] = eb;
    p->dense[b >> ZE__PAGE_BITS][b & ZE__PAGE_MASK] = ea;
    p->sparse[ea >> ZE__PAGE_BITS][ea & ZE__PAGE_MASK] = b + 1;
    p->sparse[eb >> ZE__PAGE_BITS][eb & ZE__PAGE_MASK] = a + 1;
    /* Swapping values is a relocation: both stay constructed, so no hooks. */
    if (p->size)
        swap_bytes(ze__pool_data(p, a), ze__pool_data(p, b), p->size);
    if (p->ver) { /* versions go with their rows */
        uint32_t va = ze__row_version(p, a), vb = ze__row_version(p, b);
        p->ver[a >> ZE__PAGE_BITS][a & ZE__PAGE_MASK] = vb;
        p->ver[b >> ZE__PAGE_BITS][b & ZE__PAGE_MASK] = va;
        ze__stamp_max(&p->page_max[a >> ZE__PAGE_BITS], vb);
        ze__stamp_max(&p->page_max[b >> ZE__PAGE_BITS], va);
    }
}

/* Move entity `index` to position `to` in every pool of `owned`. */
static void move_to(ze_world_t *w, const ze_mask_t *owned, uint32_t index, uint32_t to)
{
    for (uint32_t i = 0; i < owned->count; i++) {
        ze__pool_t *p = w->pools[owned->ids[i]];
        swap_positions(p, ze__sparse_get(p, index) - 1, to);
    }
}

/* Slot index has every type of the set. */
static bool has_all(const ze_world_t *w, uint32_t index, const ze_mask_t *set)
{
    const uint64_t *row = ze__row(w, index);
    for (uint32_t i = 0; i < set->count; i++)
        if (!ze__bit_get(row, w->pools[set->ids[i]]->bit))
            return false;
    return true;
}

static inline bool in_group(const ze_world_t *w, const ze__group_t *g, uint32_t index)
{
    const ze__pool_t *p = w->pools[g->first_pool];
    uint32_t d = ze__sparse_get(p, index);
    return d && d - 1 < g->len;
}

void ze__groups_after_add(ze_world_t *w, uint32_t index, ze__pool_t *p)
{
    uint64_t gm = p->groups;
    while (gm) { /* ascending: smaller (outer) groups first */
        ze__group_t *g = &w->groups[__builtin_ctzll(gm)];
        gm &= gm - 1;
        if (!has_all(w, index, &g->owned) || in_group(w, g, index))
            continue;
        move_to(w, &g->owned, index, g->len);
        g->len++;
    }
}

void ze__groups_before_remove(ze_world_t *w, uint32_t index, ze__pool_t *p)
{
    uint64_t gm = p->groups;
    while (gm) { /* descending: bigger (inner) groups first */
        uint32_t gi = 63 - (uint32_t)__builtin_clzll(gm);
        gm &= ~((uint64_t)1 << gi);
        ze__group_t *g = &w->groups[gi];
        if (!in_group(w, g, index))
            continue;
        move_to(w, &g->owned, index, g->len - 1);
        g->len--;
    }
}

static void rebuild_pool_bits(ze_world_t *w)
{
    for (uint32_t b = 0; b < w->pool_count; b++) {
        ze__pool_t *p = w->pool_list[b];
        p->groups = 0;
        for (uint32_t g = 0; g < w->group_count; g++)
            if (ze_mask_has(w->groups[g].owned, (ze_component_t){p->id}))
                p->groups |= (uint64_t)1 << g;
        p->plain = !p->has_hooks && !p->groups;
    }
}

/* Component ids for a report: "{Position, Velocity}" (truncated). */
static const char *set_names(const ze_world_t *w, const ze_mask_t *m, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < m->count && at + 1 < size; i++) {
        int n = snprintf(buf + at, size - at, "%s%s", i ? ", " : "{",
                         ze__info(w->kernel, m->ids[i])->name);
        at = n < 0 ? size : at + (size_t)n;
    }
    if (at + 1 < size)
        snprintf(buf + at, size - at, "}");
    return buf;
}

static ze_result group_create(ze_world_t *w, ze_mask_t owned, bool quiet)
{
    if (quiet ? ze_mask_overflowed(owned) : ze__mask_check(w, owned, "pack") != ZE_OK)
        return ZE_ERR_LIMIT;
    if (owned.count < 2) {
        if (!quiet)
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                            "a pack owns at least two component types");
        return ZE_ERR_INVALID_ARG;
    }
    if (owned.ids[owned.count - 1] >= w->kernel->component_count)
        return ZE_ERR_INVALID_ARG;
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        if (!quiet)
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                            "packs cannot be created during iteration");
        return ZE_ERR_STATE;
    }
    ze__world_settle(w); /* the walk below reads masks of dense entries */
    uint32_t insert_at = w->group_count;
    uint32_t start_len = 0;
    for (uint32_t i = 0; i < w->group_count; i++) {
        ze_mask_t other = w->groups[i].owned;
        if (ze_mask_eq(other, owned))
            return ZE_OK;
        bool nested = !ze__mask_meets(other, owned, NULL) || ze_mask_contains(owned, other) ||
                      ze_mask_contains(other, owned);
        if (!nested) {
            if (!quiet) {
                char a[160], b[160];
                ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_CONFLICT,
                                "pack %s overlaps pack %s without nesting in it",
                                set_names(w, &owned, a, sizeof a),
                                set_names(w, &other, b, sizeof b));
            }
            return ZE_ERR_CONFLICT;
        }
        if (ze_mask_contains(other, owned) && w->groups[i].len > start_len)
            start_len = w->groups[i].len; /* a bigger set: its members qualify already */
    }
    if (w->group_count == ZE__MAX_GROUPS) {
        if (!quiet)
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_LIMIT, "at most %d packs per world",
                            ZE__MAX_GROUPS);
        return ZE_ERR_LIMIT;
    }
    /* Every owned pool must exist (an empty one is fine). */
    for (uint32_t i = 0; i < owned.count; i++)
        if (!ze__pool_get(w, owned.ids[i]))
            return ZE_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < w->group_count; i++) {
        if (w->groups[i].owned.count > owned.count) {
            insert_at = i;
            break;
        }
    }
    memmove(&w->groups[insert_at + 1], &w->groups[insert_at],
            (w->group_count - insert_at) * sizeof(ze__group_t));
    ze__group_t *g = &w->groups[insert_at];
    *g = (ze__group_t){.owned = owned, .len = start_len, .first_pool = owned.ids[0]};
    w->group_count++;
    rebuild_pool_bits(w);

    /* Sort existing members in: walk the smallest owned pool past the
     * members already in place. */
    ze__pool_t *walk = NULL;
    for (uint32_t i = 0; i < owned.count; i++) {
        ze__pool_t *p = w->pools[owned.ids[i]];
        if (!walk || p->count < walk->count)
            walk = p;
    }
    for (uint32_t q = 0; q < walk->count; q++) {
        uint32_t index = ze__pool_entity(walk, q);
        if (!has_all(w, index, &g->owned) || in_group(w, g, index))
            continue;
        move_to(w, &g->owned, index, g->len);
        g->len++;
    }
    ze__query_groups_changed(w);
    return ZE_OK;
}

ze_result ze_pack_create(ze_world_t *w, ze_mask_t owned)
{
    ZE__ECS_THREAD_CHECK();
    return group_create(w, owned, false);
}

ze_result ze__group_try_create(ze_world_t *w, ze_mask_t owned);
ze_result ze__group_try_create(ze_world_t *w, ze_mask_t owned)
{
    return group_create(w, owned, true);
}

uint32_t ze_pack_size(const ze_world_t *w, ze_mask_t owned)
{
    ZE__ECS_THREAD_CHECK();
    /* Ghosts of deferred destroys count in a group's range until settled.
     * Worlds are never const objects (ze_world_create allocates them). */
    ze__world_settle((ze_world_t *)w);
    for (uint32_t i = 0; i < w->group_count; i++)
        if (ze_mask_eq(w->groups[i].owned, owned))
            return w->groups[i].len;
    return 0;
}
