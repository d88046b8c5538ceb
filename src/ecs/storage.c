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
_Static_assert(ZE__PAGE == 4096, "ze_component_get_inline hard-codes the page size");

/* Sparse pages not yet needed all point here, so a lookup needs no null
 * test (the inline ze_get relies on it). Never written: an entity's page is
 * allocated before its entry is set. */
static const uint32_t zero_page[ZE__PAGE];
#define ZERO_PAGE ((uint32_t *)zero_page)

ze__pool_t *ze__pool_get(ze_world_t *w, uint32_t id)
{
    ze__pool_t *p = w->pools[id];
    if (p)
        return p;
    const ze_component_info_t *info = &w->kernel->components[id];
    p = ze_alloc(w->alloc, sizeof *p, _Alignof(ze__pool_t));
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->id = id;
    p->size = info->size;
    p->align = info->align;
    p->hooks = info->hooks;
    p->has_hooks = info->hooks.ctor || info->hooks.dtor || info->hooks.copy || info->hooks.move;
    p->page_count = w->capacity >> ZE__PAGE_BITS;
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
        if (w->groups[g].owned & ((ze_mask_t)1 << id))
            p->groups |= (ze_mask_t)1 << g;
    p->plain = !p->has_hooks && !p->groups;
    if (p->has_hooks)
        w->hooked_mask |= (ze_mask_t)1 << id;
    w->pools[id] = p;
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
            ze_free(w->alloc, p->dense[i], sizeof(uint32_t) * ZE__PAGE);
        if (p->data && p->data[i])
            ze_free(w->alloc, p->data[i], (size_t)p->size * (i ? ZE__PAGE : p->page0_cap));
    }
    ze_free(w->alloc, p->sparse, table);
    ze_free(w->alloc, p->dense, table);
    ze_free(w->alloc, p->data, table);
    ze_free(w->alloc, p, sizeof *p);
}

static inline bool valid_component(const ze_world_t *w, ze_component_t c)
{
    return c.id < w->kernel->component_count;
}

/* Make room for dense position `d` and sparse slot `index`. */
static bool pool_reserve(ze_world_t *w, ze__pool_t *p, uint32_t d, uint32_t index)
{
    uint32_t page = d >> ZE__PAGE_BITS;
    if (!p->dense[page]) {
        p->dense[page] = ze_alloc(w->alloc, sizeof(uint32_t) * ZE__PAGE, 64);
        if (!p->dense[page])
            return false;
    }
    if (p->size && page == 0 && d >= p->page0_cap) {
        /* The first data page grows (x4 from 16 entries) so that a type with
         * few, large values does not take size x 4096 bytes at once. */
        uint32_t cap = p->page0_cap ? ZE_MIN(p->page0_cap * 4, (uint32_t)ZE__PAGE) : 16;
        void *np = ze_realloc(w->alloc, p->data[0], (size_t)p->size * p->page0_cap,
                              (size_t)p->size * cap, ZE_MAX(p->align, 64u));
        if (!np)
            return false;
        p->data[0] = np;
        p->page0_cap = cap;
    } else if (p->size && page != 0 && !p->data[page]) {
        p->data[page] = ze_alloc(w->alloc, (size_t)p->size * ZE__PAGE, ZE_MAX(p->align, 64u));
        if (!p->data[page])
            return false;
    }
    /* Pages fill in order (d is the next position), so [0, cap) is ready. */
    uint32_t cap = page == 0 && p->size ? p->page0_cap : (page + 1) << ZE__PAGE_BITS;
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
        ZE_LOG_ERROR(ZE__LOG_CH, "world '%s': out of ECS memory adding '%s'", w->name,
                     w->kernel->components[p->id].name);
        *ok = false;
        return NULL;
    }
    p->dense[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK] = index;
    p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK] = d + 1;
    p->count = d + 1;
    w->mask[index] |= (ze_mask_t)1 << p->id;
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
    if (w->bind_mask & ((ze_mask_t)1 << p->id))
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
    if (w->bind_mask & ((ze_mask_t)1 << comp))
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
    }
    p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK] = 0;
    p->count = last;
    w->mask[index] &= ~((ze_mask_t)1 << comp);
}

/* ------------------------------------------------------------- destroy */

/* Destroy's plan for set m (see ze__destroy_plan_t): none when a type has
 * hooks or a binder watches it (their order of calls is the general path's),
 * when m has more than ZE__PLAN_POOLS types, or when its entities are in a
 * group that does not own exactly m, or in more than one group. */
static void plan_build(ze_world_t *w, ze_mask_t m)
{
    ze__destroy_plan_t *pl = &w->plan;
    pl->mask = m;
    pl->npools = 0;
    pl->group = NULL;
    if (__builtin_popcountll(m) > ZE__PLAN_POOLS || (m & (w->bind_mask | w->hooked_mask)))
        return;
    ze__group_t *in = NULL;
    for (uint32_t g = 0; g < w->group_count; g++) {
        ze_mask_t o = w->groups[g].owned;
        if ((o & m) != o)
            continue; /* m's entities are not in it */
        if (o != m)
            return;
        in = &w->groups[g];
    }
    for (ze_mask_t r = m; r; r &= r - 1)
        pl->pools[pl->npools++] = w->pools[__builtin_ctzll(r)];
    pl->group = in;
}

void ze__entity_remove_all(ze_world_t *w, uint32_t index)
{
    ze_mask_t m = w->mask[index];
    if (m & (w->bind_mask | w->hooked_mask)) {
        /* One type at a time: dtors and binder notes in type order. */
        while ((m = w->mask[index]) != 0)
            ze__component_remove_now(w, index, (uint32_t)__builtin_ctzll(m));
        return;
    }
    /* Every component goes, so the entity's entries are holes to fill, not
     * values to keep: each group it is in (innermost first) fills the hole
     * from its end, which moves the hole out to the next group's range; then
     * each pool fills it from its own end. One move per step, not a swap. */
    uint32_t hole[ZE_MAX_COMPONENTS];
    ze_mask_t gm = 0;
    for (ze_mask_t r = m; r; r &= r - 1) {
        uint32_t c = (uint32_t)__builtin_ctzll(r);
        ze__pool_t *p = w->pools[c];
        uint32_t *sp = &p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK];
        hole[c] = *sp - 1;
        *sp = 0;
        gm |= p->groups;
    }
    while (gm) { /* descending: bigger (inner) groups first */
        uint32_t gi = 63 - (uint32_t)__builtin_clzll(gm);
        gm &= ~((ze_mask_t)1 << gi);
        ze__group_t *g = &w->groups[gi];
        if ((m & g->owned) != g->owned)
            continue;
        /* Its entries share one position in every pool the group owns. */
        uint32_t last = --g->len;
        uint32_t h = hole[g->first_pool];
        if (h == last)
            continue;
        uint32_t moved = ze__pool_entity(w->pools[g->first_pool], last);
        for (ze_mask_t o = g->owned; o; o &= o - 1) {
            uint32_t c = (uint32_t)__builtin_ctzll(o);
            move_entry(w->pools[c], last, h, moved);
            hole[c] = last;
        }
    }
    for (ze_mask_t r = m; r; r &= r - 1) {
        uint32_t c = (uint32_t)__builtin_ctzll(r);
        ze__pool_t *p = w->pools[c];
        uint32_t last = --p->count;
        if (hole[c] != last)
            move_entry(p, last, hole[c], ze__pool_entity(p, last));
    }
    w->mask[index] = 0;
    if (w->plan.mask != m)
        plan_build(w, m);
}

/* The planned removals below are what ze__entity_remove_all does for such
 * sets, as straight-line code with few live values: at 1M entities a
 * destroy is bound by the store buffer (the random lines it writes: per
 * pool a dense entry, a value and the moved entity's sparse entry), and the
 * spills and pushes of a register-hungry loop are stores too. */

/* In a group that owns exactly the set: hole h filled from the group's end,
 * then `last` (the hole now) from the pool's end. */
static inline void planned_grouped(ze__pool_t *p, uint32_t idx, uint32_t h, uint32_t last,
                                   uint32_t moved)
{
    p->sparse[idx >> ZE__PAGE_BITS][idx & ZE__PAGE_MASK] = 0;
    if (h != last)
        move_entry(p, last, h, moved);
    uint32_t end = --p->count;
    if (end != last)
        move_entry(p, end, last, ze__pool_entity(p, end));
}

/* In no group: the pool's end fills the hole. */
static inline void planned_single(ze__pool_t *p, uint32_t idx)
{
    uint32_t *sp = &p->sparse[idx >> ZE__PAGE_BITS][idx & ZE__PAGE_MASK];
    uint32_t h = *sp - 1;
    *sp = 0;
    uint32_t end = --p->count;
    if (h != end)
        move_entry(p, end, h, ze__pool_entity(p, end));
}

ze_result ze__entity_remove_planned(const ze__destroy_plan_t *pl, uint32_t idx)
{
    ze__pool_t *const *pp = pl->pools;
    if (!pl->group) {
        switch (pl->npools) {
        case 4:
            planned_single(pp[3], idx);
            /* fall through */
        case 3:
            planned_single(pp[2], idx);
            /* fall through */
        case 2:
            planned_single(pp[1], idx);
            /* fall through */
        default:
            planned_single(pp[0], idx);
        }
        return ZE_OK;
    }
    uint32_t h = ze__sparse_get(pp[0], idx) - 1;
    uint32_t last = --pl->group->len;
    uint32_t moved = ze__pool_entity(pp[0], last);
    switch (pl->npools) { /* a group owns two types at least */
    case 4:
        planned_grouped(pp[3], idx, h, last, moved);
        /* fall through */
    case 3:
        planned_grouped(pp[2], idx, h, last, moved);
        /* fall through */
    default:
        planned_grouped(pp[1], idx, h, last, moved);
        planned_grouped(pp[0], idx, h, last, moved);
    }
    return ZE_OK;
}

/* The common add, inlined into ze_component_add/_set: a plain pool (no
 * hooks, no group) no binder watches, its storage there. False: take
 * pool_insert. */
static inline bool insert_plain(ze_world_t *w, ze__pool_t *p, uint32_t index, ze_mask_t m,
                                const void *value)
{
    uint32_t d = p->count;
    uint32_t *sp = p->sparse[index >> ZE__PAGE_BITS];
    ze_mask_t bit = (ze_mask_t)1 << p->id;
    if (!p->plain || d >= p->cap || sp == ZERO_PAGE || (w->bind_mask & bit))
        return false;
    p->dense[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK] = index;
    sp[index & ZE__PAGE_MASK] = d + 1;
    p->count = d + 1;
    w->mask[index] = m | bit;
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
    if (!valid_component(w, c) || !ze__alive(w, e))
        return NULL;
    uint32_t index = ze_entity_index(e);
    ze_mask_t m = w->mask[index];
    if (m & ((ze_mask_t)1 << c.id)) {
        const ze__pool_t *p = w->pools[c.id];
        return p->size ? ze__pool_data(p, ze__sparse_get(p, index) - 1) : NULL;
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
    if (insert_plain(w, p, index, m, NULL))
        return p->size ? ze__pool_data(p, p->count - 1) : NULL;
    bool ok;
    return pool_insert(w, p, index, NULL, &ok);
}

/* A set over a value the entity has: a value write, not a structural
 * change, so allowed anywhere. */
static ze_result set_existing(ze_world_t *w, uint32_t index, ze_component_t c, const void *value)
{
    ze__pool_t *p = w->pools[c.id];
    if (p->size) {
        void *dst = ze__pool_data(p, ze__sparse_get(p, index) - 1);
        if (p->hooks.copy) {
            /* copy constructs: the old value is destroyed first */
            if (p->hooks.dtor)
                p->hooks.dtor(dst, 1, p->hooks.user);
            p->hooks.copy(dst, value, 1, p->hooks.user);
        } else {
            copy_value(dst, value, p->size);
        }
    }
    if (w->bind_mask & ((ze_mask_t)1 << c.id))
        ze__bindings_note(w, index, c.id, ZE_DELTA_CHANGED);
    return ZE_OK;
}

/* Everything but the plain insert (first use of a type, hooks, groups,
 * binders, new storage pages, iteration, waves, errors). */
__attribute__((noinline)) static ze_result set_slow(ze_world_t *w, ze_entity_t e, ze_component_t c,
                                                    const void *value)
{
    if (!valid_component(w, c) || !value)
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e))
        return ZE_ERR_NOT_FOUND;
    uint32_t index = ze_entity_index(e);
    if (w->mask[index] & ((ze_mask_t)1 << c.id))
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
    /* A pool exists only for a registered type. */
    ze__pool_t *p = c.id < ZE_MAX_COMPONENTS ? w->pools[c.id] : NULL;
    uint32_t index = ze_entity_index(e);
    if (!p || !value || !ze__alive(w, e))
        return set_slow(w, e, c, value);
    ze_mask_t m = w->mask[index];
    if (m & ((ze_mask_t)1 << c.id))
        return set_existing(w, index, c, value);
    if (ze__world_gate(w) == ZE__GATE_NOW && insert_plain(w, p, index, m, value))
        return ZE_OK;
    return set_slow(w, e, c, value);
}

void *ze_component_get(const ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    if (c.id >= ZE_MAX_COMPONENTS)
        return NULL;
    uint32_t index = ze_entity_index(e);
    /* The generation and the sparse entry are independent loads, so the CPU
     * overlaps their cache misses. */
    const ze__pool_t *p = w->pools[c.id];
    if (!p || !ze__alive(w, e) || !p->size)
        return NULL;
    uint32_t d = ze__sparse_get(p, index);
    return d ? ze__pool_data(p, d - 1) : NULL;
}

bool ze_component_has(const ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    return c.id < ZE_MAX_COMPONENTS && ze__alive(w, e) &&
           (w->mask[ze_entity_index(e)] & ((ze_mask_t)1 << c.id));
}

ze_result ze_component_remove(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    if (!valid_component(w, c))
        return ZE_ERR_INVALID_ARG;
    if (!ze__alive(w, e))
        return ZE_ERR_NOT_FOUND;
    uint32_t index = ze_entity_index(e);
    if (!(w->mask[index] & ((ze_mask_t)1 << c.id)))
        return ZE_ERR_NOT_FOUND;
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
    return c.id < ZE_MAX_COMPONENTS && w->pools[c.id] ? w->pools[c.id]->count : 0;
}
