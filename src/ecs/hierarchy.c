/* HierarchySystem and transform helpers.
 *
 * ze_hierarchy_update derives every Transform's world matrix from its local
 * TRS and its parent's world matrix. The order (parents before children) is
 * computed by a walk, in O(n) for n Transform holders:
 *   1. one query walk lists the entities, their Parent links and pointers to
 *      their Transforms (borrows: no structural change happens meanwhile);
 *   2. each entity's link is resolved to the parent's position in that list
 *      through a map indexed by entity slot (a sparse-set style map that needs
 *      no clearing: an entry counts only when the list points back at it);
 *   3. a walk up the links from every entity not placed yet appends the
 *      unplaced part of its ancestor chain, root end first, so every node is
 *      visited once; meeting a node of the chain being walked is a cycle,
 *      broken by treating the entity whose link closes it as a root;
 *   4. world = parent.world * TRS(local) in that order, for the entities
 *      whose subtree changed (below), each written (and its row stamped)
 *      only when the new matrix differs from the one it holds.
 * Temporaries (37 bytes per Transform, plus 4 per entity slot up to the
 * highest one seen) come from the thread's scratch arena when they fit, else
 * from the world's heap.
 *
 * Unchanged subtrees are skipped (change tracking, versions.c): when no
 * Transform or Parent was written, added or removed since the last update,
 * the update returns at once (a static world costs two compares). When only
 * Transform rows were written or added, step 4 recomputes an entity only if
 * its own row is newer than the last update or its parent's matrix changed
 * in this one; everything else keeps its matrix and its version. A Parent
 * written, added or removed, or a Transform removed (its children become
 * roots), recomputes all (still writing only the matrices that differ).
 *
 * Steps 1-3 run only when the structure may have changed: on the first
 * update, and after a Parent was written, added or removed, or a Transform
 * added (the pool's count grew with no removal) or removed. Each walk keeps
 * the members' order (ze__hier_cache_t: the entities with a resolved parent
 * and those parents, parents first, with their parents' positions). When
 * only Transform rows were written since, members_run uses it: the loose
 * roots (everything else) written since are found through the row versions,
 * as roots_run does, and the members are recomputed in the kept order, so
 * the update costs the rows written plus the members, not the pool.
 *
 * Entities and components are reached through the public API, except the
 * row versions and stamps of the Transform pool. */
#include <string.h>

#include "ecs_internal.h"

#define NONE UINT32_MAX

enum { MAX_TEMP_BLOCKS = 8 };

/* Temporaries: scratch when it has room, else the world's allocator. */
typedef struct temp_t {
    ze_scratch_t scratch;
    ze_allocator_t heap;
    void *blocks[MAX_TEMP_BLOCKS];
    size_t sizes[MAX_TEMP_BLOCKS];
    uint32_t block_count;
} temp_t;

static void *temp_alloc(temp_t *t, size_t size)
{
    ze_arena_t *a = t->scratch.arena;
    /* Room for alignment and the arena's redzone in sanitizer builds: a push
     * that fails would be logged as a budget failure, so ask only when it
     * fits. */
    if (a && a->region.reserved - a->pos > size + 64) {
        void *p = ze_arena_push(a, size, 16);
        if (p)
            return p;
    }
    if (t->block_count == MAX_TEMP_BLOCKS)
        return NULL;
    void *p = ze_alloc(t->heap, size, 16);
    if (p) {
        t->blocks[t->block_count] = p;
        t->sizes[t->block_count++] = size;
    }
    return p;
}

static void temp_release(temp_t *t)
{
    for (uint32_t i = 0; i < t->block_count; i++)
        ze_free(t->heap, t->blocks[i], t->sizes[i]);
    ze_scratch_end(t->scratch);
}

static void cache_arrays_free(ze_world_t *w, ze__hier_cache_t *c)
{
    if (c->cap) {
        ze_free(w->alloc, c->idx, (size_t)c->cap * sizeof *c->idx);
        ze_free(w->alloc, c->parent, (size_t)c->cap * sizeof *c->parent);
        ze_free(w->alloc, c->tf, (size_t)c->cap * sizeof *c->tf);
        ze_free(w->alloc, c->changed, c->cap);
    }
    c->idx = c->parent = NULL;
    c->tf = NULL;
    c->changed = NULL;
    c->cap = c->count = 0;
}

void ze__hierarchy_fini(ze_world_t *w)
{
    ze__hier_cache_t *c = w->hier_cache;
    if (!c)
        return;
    cache_arrays_free(w, c);
    if (c->words)
        ze_free(w->alloc, c->member, (size_t)c->words * sizeof *c->member);
    ze_free(w->alloc, c, sizeof *c);
    w->hier_cache = NULL;
}

static inline bool cache_member(const ze__hier_cache_t *c, uint32_t idx)
{
    return idx / 64 < c->words && (c->member[idx / 64] >> (idx % 64) & 1);
}

/* The cache, empty and invalid, with room for `count` members and entity
 * slots up to max_index; NULL when out of memory (the updates then walk). */
static ze__hier_cache_t *cache_reset(ze_world_t *w, uint32_t count, uint32_t max_index)
{
    ze__hier_cache_t *c = w->hier_cache;
    if (!c) {
        c = ze_alloc(w->alloc, sizeof *c, 16);
        if (!c)
            return NULL;
        memset(c, 0, sizeof *c);
        w->hier_cache = c;
    }
    for (uint32_t i = 0; i < c->count; i++) /* clears only what it set */
        c->member[c->idx[i] / 64] &= ~(1ull << (c->idx[i] % 64));
    c->count = 0;
    c->valid = false;
    if (count > c->cap) {
        cache_arrays_free(w, c);
        uint32_t cap = ZE_MAX(count, 64u);
        c->idx = ze_alloc(w->alloc, (size_t)cap * sizeof *c->idx, 16);
        c->parent = ze_alloc(w->alloc, (size_t)cap * sizeof *c->parent, 16);
        c->tf = ze_alloc(w->alloc, (size_t)cap * sizeof *c->tf, 16);
        c->changed = ze_alloc(w->alloc, cap, 16);
        c->cap = cap;
        if (!c->idx || !c->parent || !c->tf || !c->changed) {
            /* Free what came, by the size asked. */
            if (c->idx)
                ze_free(w->alloc, c->idx, (size_t)cap * sizeof *c->idx);
            if (c->parent)
                ze_free(w->alloc, c->parent, (size_t)cap * sizeof *c->parent);
            if (c->tf)
                ze_free(w->alloc, c->tf, (size_t)cap * sizeof *c->tf);
            if (c->changed)
                ze_free(w->alloc, c->changed, cap);
            c->idx = c->parent = NULL;
            c->tf = NULL;
            c->changed = NULL;
            c->cap = 0;
            return NULL;
        }
    }
    uint32_t words = max_index / 64 + 1;
    if (words > c->words) {
        uint64_t *m = ze_alloc(w->alloc, (size_t)words * sizeof *m, 16);
        if (!m)
            return NULL;
        memset(m, 0, (size_t)words * sizeof *m);
        if (c->words)
            ze_free(w->alloc, c->member, (size_t)c->words * sizeof *c->member);
        c->member = m;
        c->words = words;
    }
    return c;
}

ze_transform_t ze_transform_identity(void)
{
    return (ze_transform_t){
        .position = {0, 0, 0},
        .rotation = ZE_QUAT_IDENTITY,
        .scale = {1, 1, 1},
        .previous_position = {0, 0, 0},
        .world = ze_mat4_identity(),
    };
}

/* parent * TRS(t), written to *out. The same as
 * ze_mat4_mul(*parent, ze_mat4_from_trs(...)) up to rounding, inlined and
 * without building the local matrix: this loop is most of an update, and the
 * two calls cost four times as much. The rotation is that of the normalized
 * quaternion (s = 2 / |q|^2); a zero quaternion gives no rotation. */
static inline void compose(const ze_mat4_t *parent, const ze_transform_t *t, ze_mat4_t *out)
{
    float x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    float n = x * x + y * y + z * z + w * w;
    float s = n > 0.0f ? 2.0f / n : 0.0f;
    float xx = s * x * x, yy = s * y * y, zz = s * z * z;
    float xy = s * x * y, xz = s * x * z, yz = s * y * z;
    float wx = s * w * x, wy = s * w * y, wz = s * w * z;
    const float l[4][3] = {
        {(1.0f - yy - zz) * t->scale.x, (xy + wz) * t->scale.x, (xz - wy) * t->scale.x},
        {(xy - wz) * t->scale.y, (1.0f - xx - zz) * t->scale.y, (yz + wx) * t->scale.y},
        {(xz + wy) * t->scale.z, (yz - wx) * t->scale.z, (1.0f - xx - yy) * t->scale.z},
        {t->position.x, t->position.y, t->position.z},
    };
    ze_mat4_t r;
    if (!parent) {
        for (int c = 0; c < 4; c++) {
            r.m[c][0] = l[c][0];
            r.m[c][1] = l[c][1];
            r.m[c][2] = l[c][2];
            r.m[c][3] = c == 3 ? 1.0f : 0.0f;
        }
    } else {
        const float(*p)[4] = parent->m;
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 4; row++)
                r.m[c][row] = p[0][row] * l[c][0] + p[1][row] * l[c][1] + p[2][row] * l[c][2] +
                              (c == 3 ? p[3][row] : 0.0f);
    }
    *out = r;
}

static ze_query_desc_t transform_query_desc(void)
{
    /* Transform alone: no filter, no auto group, whole-page runs. Not
     * writable: that would stamp every row it visits; the update stamps
     * the rows whose matrix it changes. */
    return (ze_query_desc_t){.with = ZE_MASK(ze_transform_t)};
}

static inline uint32_t stamp_of(_Atomic uint32_t *s)
{
    return atomic_load_explicit(s, memory_order_relaxed);
}

/* A world without Parent links, whose last update is valid: every
 * Transform is a root, and only the rows written since then can have a
 * stale matrix, so only they are visited (through the row versions), not
 * the whole pool: moving k of n entities costs k. */
static ze_result roots_run(ze_world_t *w, ze__pool_t *tp, uint32_t last)
{
    uint32_t version = ze__version_advance(w); /* in a wave: the wave's */
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(ze_transform_t), last);
    while (ze_changed_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t row = ze__sparse_get(tp, it.indices[i]) - 1;
            ze_transform_t *tf = ze__pool_data(tp, row);
            ze_mat4_t m;
            compose(NULL, tf, &m);
            if (memcmp(&m, &tf->world, sizeof m) == 0)
                continue;
            tf->world = m;
            ze__row_stamp(tp, row, version);
        }
    }
    w->hier_version = version;
    w->hier_valid = true;
    w->hier_cycles = false;
    ze__version_advance(w); /* writes after the update are newer than it */
    return ZE_OK;
}

static void report_cycles(ze_world_t *w, uint32_t cycles, ze_entity_t at, ze_entity_t parent)
{
    ze_world_report(w, ZE_LOG_WARN, ZE_OK,
                    "%u Parent cycle(s) broken this update; the first at entity "
                    "%u:%u, whose parent %u:%u is also its descendant (treated as a root)",
                    cycles, ze_entity_index(at), ze_entity_generation(at), ze_entity_index(parent),
                    ze_entity_generation(parent));
}

/* Only Transform rows were written since the last update, whose walk left
 * the members' order in c: the loose roots written since are recomputed
 * through the row versions (as roots_run does), then the members in their
 * order, each only if its row is newer than the last update or its parent's
 * matrix changed in this one. Costs the rows written plus the members, not
 * the whole pool. */
static ze_result members_run(ze_world_t *w, ze__pool_t *tp, uint32_t last, ze__hier_cache_t *c)
{
    uint32_t version = ze__version_advance(w); /* in a wave: the wave's */
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(ze_transform_t), last);
    while (ze_changed_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            if (cache_member(c, it.indices[i]))
                continue; /* below, in order */
            uint32_t row = ze__sparse_get(tp, it.indices[i]) - 1;
            ze_transform_t *tf = ze__pool_data(tp, row);
            ze_mat4_t m;
            compose(NULL, tf, &m);
            if (memcmp(&m, &tf->world, sizeof m) == 0)
                continue;
            tf->world = m;
            ze__row_stamp(tp, row, version);
        }
    }
    for (uint32_t i = 0; i < c->count; i++) {
        uint32_t row = ze__sparse_get(tp, c->idx[i]) - 1, pk = c->parent[i];
        ze_transform_t *tf = c->tf[i] = ze__pool_data(tp, row);
        c->changed[i] = 0;
        if (!(pk != NONE && c->changed[pk]) && !ze__newer(ze__row_version(tp, row), last))
            continue;
        ze_mat4_t m;
        compose(pk == NONE ? NULL : &c->tf[pk]->world, tf, &m);
        if (memcmp(&m, &tf->world, sizeof m) == 0)
            continue;
        tf->world = m;
        ze__row_stamp(tp, row, version);
        c->changed[i] = 1;
    }
    w->hier_version = version;
    w->hier_valid = true;
    w->hier_cycles = c->cycles != 0;
    if (c->cycles)
        report_cycles(w, c->cycles, c->cycle_at, c->cycle_parent);
    ze__version_advance(w); /* writes after the update are newer than it */
    return c->cycles ? ZE_ERR_CYCLE : ZE_OK;
}

/* After a walk's step 3: the members (state[] marks them) into the cache,
 * in `order`, their parents' positions through map[] (free after step 2). */
static void cache_build(ze_world_t *w, ze__pool_t *tp, const ze_entity_t *ent,
                        const uint32_t *parent, const uint32_t *order, uint32_t placed,
                        uint8_t *state, uint32_t *map, uint32_t max_index)
{
    uint32_t count = 0;
    memset(state, 0, placed);
    for (uint32_t k = 0; k < placed; k++) {
        if (parent[k] != NONE) {
            count += !state[k];
            state[k] = 1;
            count += !state[parent[k]];
            state[parent[k]] = 1;
        }
    }
    ze__hier_cache_t *c = cache_reset(w, count, max_index);
    if (!c)
        return; /* the next update walks again */
    for (uint32_t i = 0; i < placed; i++) {
        uint32_t k = order[i];
        if (!state[k])
            continue;
        uint32_t idx = ze_entity_index(ent[k]);
        map[idx] = c->count;
        c->idx[c->count] = idx;
        c->parent[c->count] = parent[k] == NONE ? NONE : map[ze_entity_index(ent[parent[k]])];
        c->member[idx / 64] |= 1ull << (idx % 64);
        c->count++;
    }
    c->transforms = tp->count;
    c->valid = true;
}

static ze_result hierarchy_run(ze_world_t *w, ze_query_t q)
{
    ze__world_settle(w); /* removals of destroyed entities show in the stamps */
    ze__pool_t *tp = ze__pool_of(w, ZE_COMPONENT_ID_TRANSFORM);
    ze__pool_t *pp = ze__pool_of(w, ZE_COMPONENT_ID_PARENT);
    uint32_t last = w->hier_version;
    bool links =
        pp && (ze__newer(stamp_of(&pp->changed), last) || ze__newer(stamp_of(&pp->removed), last));
    bool removed = tp && ze__newer(stamp_of(&tp->removed), last);
    if (w->hier_valid && !links && !removed && !(tp && ze__newer(stamp_of(&tp->changed), last)))
        return w->hier_cycles ? ZE_ERR_CYCLE : ZE_OK; /* nothing written since: as it was */
    bool full = !w->hier_valid || links || removed || !tp || !tp->ver;
    if (!full && (!pp || pp->count == 0))
        return roots_run(w, tp, last);
    ze__hier_cache_t *c = w->hier_cache;
    /* No removal since: an equal count means no Transform was added. */
    if (!full && c && c->valid && c->transforms == tp->count)
        return members_run(w, tp, last, c);
    if (c)
        c->valid = false; /* until this walk rebuilds it */
    uint32_t cap = tp ? tp->count : 0;
    uint32_t version = ze__version_advance(w); /* in a wave: the wave's */
    if (!cap) {
        w->hier_version = version;
        w->hier_valid = true;
        ze__version_advance(w);
        return ZE_OK;
    }
    temp_t t = {.scratch = ze_scratch_begin(ze_kernel_mem(ze_world_kernel(w))), .heap = w->alloc};
    ze_result result = ZE_OK;

    /* 1. Entities, links, Transform pointers and rows. Allocated before the
     * walk: the iterator pops its own scratch use at the end of every run. */
    ze_entity_t *ent = temp_alloc(&t, (size_t)cap * sizeof *ent);
    ze_entity_t *link = temp_alloc(&t, (size_t)cap * sizeof *link);
    ze_transform_t **tf = temp_alloc(&t, (size_t)cap * sizeof *tf);
    uint32_t *row = temp_alloc(&t, (size_t)cap * sizeof *row);
    if (!ent || !link || !tf || !row) {
        result = ZE_ERR_OUT_OF_MEMORY;
        goto done;
    }
    uint32_t n = 0, max_index = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        if (n + it.count > cap) { /* cannot happen: the query is every holder */
            ze_iter_fini(&it);
            break;
        }
        for (uint32_t i = 0; i < it.count; i++, n++) {
            ze_entity_t e = ze_iter_entity(&it, i);
            const ze_parent_t *p = ze_get(w, e, ze_parent_t);
            ent[n] = e;
            link[n] = p ? p->parent : ZE_ENTITY_NULL;
            row[n] = ze__sparse_get(tp, ze_entity_index(e)) - 1;
            tf[n] = ze__pool_data(tp, row[n]); /* written below, stamped there */
            max_index = ZE_MAX(max_index, ze_entity_index(e));
        }
    }

    /* 2. Links to list positions. */
    uint32_t *map = temp_alloc(&t, ((size_t)max_index + 1) * sizeof *map);
    uint32_t *parent = temp_alloc(&t, (size_t)n * sizeof *parent + 1);
    uint32_t *order = temp_alloc(&t, (size_t)n * sizeof *order + 1);
    uint8_t *state = temp_alloc(&t, (size_t)n + 1);
    if (!map || !parent || !order || !state) {
        result = ZE_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (uint32_t k = 0; k < n; k++)
        map[ze_entity_index(ent[k])] = k;
    for (uint32_t k = 0; k < n; k++) {
        ze_entity_t p = link[k];
        uint32_t pi = ze_entity_index(p);
        uint32_t pk = pi <= max_index && !ze_entity_is_null(p) ? map[pi] : NONE;
        /* A dead parent, or one without a Transform, fails this check. */
        parent[k] = pk < n && ze_entity_eq(ent[pk], p) ? pk : NONE;
    }

    /* 3. Parents before children. state: 0 unplaced, 1 on the chain being
     * walked, 2 placed. */
    memset(state, 0, n);
    uint32_t placed = 0, cycles = 0;
    ze_entity_t cycle_at = ZE_ENTITY_NULL, cycle_parent = ZE_ENTITY_NULL;
    for (uint32_t k = 0; k < n; k++) {
        if (state[k])
            continue;
        uint32_t first = placed, cur = k;
        for (;;) {
            state[cur] = 1;
            order[placed++] = cur; /* child end first; reversed below */
            uint32_t p = parent[cur];
            if (p == NONE || state[p] == 2)
                break;
            if (state[p] == 1) {
                if (!cycles++) {
                    cycle_at = ent[cur];
                    cycle_parent = ent[p];
                }
                parent[cur] = NONE; /* the link that closes the cycle is ignored */
                break;
            }
            cur = p;
        }
        for (uint32_t a = first, b = placed - 1; a < b; a++, b--) {
            uint32_t tmp = order[a];
            order[a] = order[b];
            order[b] = tmp;
        }
        for (uint32_t i = first; i < placed; i++)
            state[order[i]] = 2;
    }

    cache_build(w, tp, ent, parent, order, placed, state, map, max_index);
    if (w->hier_cache && w->hier_cache->valid) {
        w->hier_cache->cycles = cycles;
        w->hier_cache->cycle_at = cycle_at;
        w->hier_cache->cycle_parent = cycle_parent;
    }

    /* 4. World matrices, in that order: a child usually follows its parent
     * closely, so the parent's matrix is still in cache. (Level by level in
     * storage order was measured too: 1.6 times slower at 100k entities.)
     * state[k] now says whether k's matrix changed (parents come first). */
    memset(state, 0, n);
    for (uint32_t i = 0; i < placed; i++) {
        uint32_t k = order[i], pk = parent[k];
        if (!full && !(pk != NONE && state[pk]) && !ze__newer(ze__row_version(tp, row[k]), last))
            continue; /* its local transform and its parent's matrix are as they were */
        ze_mat4_t m;
        compose(pk == NONE ? NULL : &tf[pk]->world, tf[k], &m);
        if (memcmp(&m, &tf[k]->world, sizeof m) == 0)
            continue;
        tf[k]->world = m;
        ze__row_stamp(tp, row[k], version);
        state[k] = 1;
    }
    w->hier_version = version;
    w->hier_valid = true;
    w->hier_cycles = cycles != 0;

    if (cycles) {
        report_cycles(w, cycles, cycle_at, cycle_parent);
        result = ZE_ERR_CYCLE;
    }
done:
    if (result == ZE_ERR_OUT_OF_MEMORY)
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "hierarchy update out of memory for %u transforms", cap);
    temp_release(&t);
    ze__version_advance(w); /* writes after the update are newer than it */
    return result;
}

ze_result ze_hierarchy_update(ze_world_t *w)
{
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    ze_query_desc_t d = transform_query_desc();
    ze_query_t q = ze_query_create(w, &d);
    if (!q.id)
        return ZE_ERR_INTERNAL;
    return hierarchy_run(w, q);
}

static void hierarchy_system(ze_world_t *w, const ze_tick_t *t)
{
    /* The system's own query is the update's: no query creation (a cache
     * insert) from inside a possibly parallel wave. */
    if (t->query.id)
        hierarchy_run(w, t->query);
    else
        ze_hierarchy_update(w);
}

ze_system_desc_t ze_hierarchy_system_desc(void)
{
    return (ze_system_desc_t){
        .name = "hierarchy",
        .fn = hierarchy_system,
        .reads = ZE_MASK(ze_parent_t),
        .writes = ZE_MASK(ze_transform_t),
        /* Transform alone, not {Transform, Parent}: that would make an auto
         * group which could clash with the application's own groups. */
        .query = transform_query_desc(),
    };
}

/* previous_position <- position where they differ, stamping those rows.
 * Only rows written since the last snapshot can differ (the others were
 * made equal then): a static world costs one compare. */
static void snapshot_row(ze__pool_t *tp, uint32_t d, ze_transform_t *t, uint32_t version)
{
    if (memcmp(&t->previous_position, &t->position, sizeof t->position) == 0)
        return;
    t->previous_position = t->position;
    ze__row_stamp(tp, d, version);
}

void ze_transforms_snapshot(ze_world_t *w)
{
    ZE_CHECK(w, );
    ze__world_settle(w);
    ze__pool_t *tp = ze__pool_of(w, ZE_COMPONENT_ID_TRANSFORM);
    if (!tp || !tp->count)
        return;
    uint32_t last = w->snap_version;
    if (w->snap_valid && !ze__newer(stamp_of(&tp->changed), last))
        return;
    uint32_t version = ze__version_advance(w);
    if (w->snap_valid && tp->ver) {
        ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(ze_transform_t), last);
        while (ze_changed_next(&it)) {
            uint32_t d0 = it.pos - it.count; /* the run's first row */
            ze_transform_t *t = (ze_transform_t *)(uintptr_t)it.values;
            for (uint32_t i = 0; i < it.count; i++)
                snapshot_row(tp, d0 + i, &t[i], version);
        }
    } else {
        for (uint32_t d = 0; d < tp->count; d++)
            snapshot_row(tp, d, ze__pool_data(tp, d), version);
    }
    w->snap_version = version;
    w->snap_valid = true;
    ze__version_advance(w);
}

/* ------------------------------------------- destroying a parent (world.c) */

/* An entry of the Parent pool, or false for a ghost (a deferred destroy's
 * entry, whose slot is already dead). */
static inline bool parent_entry(const ze_world_t *w, const ze__pool_t *p, uint32_t d,
                                uint32_t *child, ze_entity_t *parent)
{
    uint32_t idx = ze__pool_entity(p, d);
    if (w->gen[idx] & ZE__GEN_DEAD)
        return false;
    *child = idx;
    *parent = ((const ze_parent_t *)ze__pool_data(p, d))->parent;
    return true;
}

static inline ze_entity_t handle_at(const ze_world_t *w, uint32_t idx)
{
    return (ze_entity_t){(uint64_t)w->gen[idx] << 32 | idx};
}

bool ze__hierarchy_collect(ze_world_t *w, ze_entity_t root, bool subtree, ze_array_t *out)
{
    const ze__pool_t *p = ze__pool_of(w, ZE_COMPONENT_ID_PARENT);
    uint32_t n = p ? p->count : 0;
    uint32_t first = out->count, child;
    ze_entity_t parent;
    /* The children: one pass comparing handles (most destroys end here, with
     * nothing found). */
    for (uint32_t d = 0; d < n; d++) {
        if (!parent_entry(w, p, d, &child, &parent) || parent.id != root.id ||
            child == ze_entity_index(root))
            continue;
        ze_entity_t c = handle_at(w, child);
        if (ze_array_push(out, &c) != ZE_OK)
            return false;
    }
    if (!subtree || out->count == first)
        return true;
    /* Their descendants: passes over the pool adding every entity whose
     * parent is collected and that is not yet, until a pass adds none.
     * Storage order usually puts parents first, so one pass often takes
     * several levels; a Parent cycle ends because nothing is added twice. */
    ze_hashmap_t seen;
    ze_hashmap_init(&seen, w->alloc, sizeof(uint64_t), 1);
    bool ok = ze_hashmap_put(&seen, &root.id, &(uint8_t){0}) == ZE_OK;
    for (uint32_t i = first; ok && i < out->count; i++)
        ok = ze_hashmap_put(&seen, &ZE_ARRAY_AT(out, ze_entity_t, i).id, &(uint8_t){0}) == ZE_OK;
    for (bool added = ok; added;) {
        added = false;
        for (uint32_t d = 0; ok && d < n; d++) {
            if (!parent_entry(w, p, d, &child, &parent) || !ze_hashmap_get(&seen, &parent.id))
                continue;
            ze_entity_t c = handle_at(w, child);
            if (ze_hashmap_get(&seen, &c.id))
                continue;
            ok = ze_hashmap_put(&seen, &c.id, &(uint8_t){0}) == ZE_OK &&
                 ze_array_push(out, &c) == ZE_OK;
            added = true;
        }
    }
    ze_hashmap_free(&seen);
    return ok;
}

/* Local TRS; world transforms composed as TRS too: exact while no
 * non-uniform scale meets a rotation below it (then a matrix would hold
 * shear, which TRS cannot). */
typedef struct trs_t {
    ze_vec3_t t;
    ze_quat_t r; /* normalized, as the hierarchy update reads it */
    ze_vec3_t s;
} trs_t;

static trs_t trs_of(const ze_transform_t *t)
{
    return (trs_t){t->position, ze_quat_normalize(t->rotation), t->scale};
}

static ze_vec3_t mul3(ze_vec3_t a, ze_vec3_t b)
{
    return (ze_vec3_t){a.x * b.x, a.y * b.y, a.z * b.z};
}

static ze_vec3_t trs_point(const trs_t *a, ze_vec3_t p)
{
    return ze_vec3_add(a->t, ze_quat_rotate(a->r, mul3(a->s, p)));
}

/* a then b below it: the transform of b in a's space. */
static trs_t trs_compose(const trs_t *a, const trs_t *b)
{
    return (trs_t){trs_point(a, b->t), ze_quat_normalize(ze_quat_mul(a->r, b->r)),
                   mul3(a->s, b->s)};
}

/* e's world transform from the current locals up its Parent chain, with the
 * hierarchy update's rules (a dead parent, or one without a Transform, ends
 * the chain). False when e has no Transform. A cycle is cut after as many
 * links as there are Parent components. */
static bool world_trs(ze_world_t *w, ze_entity_t e, trs_t *out)
{
    const ze_transform_t *t = ze_get(w, e, ze_transform_t);
    if (!t)
        return false;
    trs_t acc = trs_of(t);
    const ze__pool_t *links = ze__pool_of(w, ZE_COMPONENT_ID_PARENT);
    uint32_t left = links ? links->count : 0;
    for (ze_entity_t cur = e; left--;) {
        const ze_parent_t *p = ze_get(w, cur, ze_parent_t);
        const ze_transform_t *pt =
            p && ze__alive(w, p->parent) ? ze_get(w, p->parent, ze_transform_t) : NULL;
        if (!pt)
            break;
        trs_t up = trs_of(pt);
        acc = trs_compose(&up, &acc);
        cur = p->parent;
    }
    *out = acc;
    return true;
}

void ze__hierarchy_detach(ze_world_t *w, ze_entity_t parent, const ze_entity_t *children,
                          uint32_t n)
{
    trs_t pw = {.r = ZE_QUAT_IDENTITY};      /* set by world_trs when `placed` */
    bool placed = world_trs(w, parent, &pw); /* else the children were roots already */
    for (uint32_t i = 0; i < n; i++) {
        ze_entity_t c = children[i];
        const ze_transform_t *ct = placed ? ze_get(w, c, ze_transform_t) : NULL;
        if (ct) {
            trs_t local = trs_of(ct);
            trs_t world = trs_compose(&pw, &local);
            ze_transform_t nt = *ct;
            nt.position = world.t;
            nt.rotation = world.r;
            nt.scale = world.s;
            /* In the new (world) space too, so interpolation does not jump. */
            nt.previous_position = trs_point(&pw, ct->previous_position);
            nt.world = ze_mat4_from_trs(world.t, world.r, world.s); /* a root's, at once */
            ze_component_set(w, c, ZE_ID(ze_transform_t), &nt);
        }
        ze_component_remove(w, c, ZE_ID(ze_parent_t));
    }
}
