/* Queries: cached per world by their full sets; iteration in runs.
 *
 * A query is driven either by a pack whose set lies within the
 * query's `with` (its range is packed in every owned pool) or by the
 * smallest pool of `with`. A run is a stretch of consecutive driver
 * positions, within one storage page, whose entities all pass the filters
 * and agree on which optional components they have. Fields of packed
 * components point into storage; the others are gathered into the thread's
 * scratch arena and, when writable, scattered back at the end of the run. */
#include <string.h>

#include "ecs_internal.h"

enum {
    IT_ACTIVE = 1u << 0,  /* holds the world's iteration lock and scratch */
    IT_FILTER = 1u << 1,  /* entities must be checked one by one */
    IT_GROUP = 1u << 2,   /* driven by a pack */
    IT_HAS_RUN = 1u << 3, /* a run was handed out and may need write-back */
};

ze_result ze__group_try_create(ze_world_t *w, ze_mask_t owned);

static int32_t pick_group(const ze_world_t *w, ze_mask_t with)
{
    for (int32_t g = (int32_t)w->group_count - 1; g >= 0; g--)
        if ((w->groups[g].owned & with) == w->groups[g].owned)
            return g; /* groups are sorted by set size: the first hit is the largest */
    return -1;
}

void ze__query_groups_changed(ze_world_t *w)
{
    for (uint32_t q = 1; q <= w->query_count; q++)
        w->queries[q].group = pick_group(w, w->queries[q].desc.with);
}

void ze__queries_free(ze_world_t *w)
{
    if (w->queries)
        ze_free(w->alloc, w->queries, sizeof(ze__query_t) * w->query_cap);
    w->queries = NULL;
    w->query_count = w->query_cap = 0;
}

ze_query_t ze_query_create(ze_world_t *w, const ze_query_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    if (!w || !desc)
        return (ze_query_t){0};
    ze_query_desc_t key = *desc;
    uint32_t n = w->kernel->component_count;
    ze_mask_t known = n >= 64 ? ~(ze_mask_t)0 : (((ze_mask_t)1 << n) - 1);
    if (!key.with || ((key.with | key.without | key.optional) & ~known) ||
        (key.write & ~(key.with | key.optional)) || (key.with & key.without) ||
        (key.optional & (key.with | key.without))) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "invalid query (with %016llx, without %016llx, optional %016llx, write "
                        "%016llx): `with` must be non-empty, the sets disjoint and registered, "
                        "`write` within with|optional",
                        (unsigned long long)key.with, (unsigned long long)key.without,
                        (unsigned long long)key.optional, (unsigned long long)key.write);
        return (ze_query_t){0};
    }
    uint32_t *found = ze_hashmap_get(&w->query_map, &key);
    if (found)
        return (ze_query_t){*found};
    if (w->query_count + 2 > w->query_cap) {
        uint32_t cap = w->query_cap ? w->query_cap * 2 : 16;
        ze__query_t *q = ze_realloc(w->alloc, w->queries, sizeof(ze__query_t) * w->query_cap,
                                    sizeof(ze__query_t) * cap, 16);
        if (!q)
            return (ze_query_t){0};
        w->queries = q;
        w->query_cap = cap;
    }
    uint32_t id = ++w->query_count;
    if (ze_hashmap_put(&w->query_map, &key, &id) != ZE_OK) {
        w->query_count--;
        return (ze_query_t){0};
    }
    w->queries[id] = (ze__query_t){.desc = key, .group = pick_group(w, key.with)};
    /* Auto groups: pack the first query of each set of two or more
     * components, when the set nests with the groups already there. */
    if (w->auto_groups && __builtin_popcountll(key.with) >= 2 &&
        (w->queries[id].group < 0 || w->groups[w->queries[id].group].owned != key.with) &&
        ze__world_gate(w) == ZE__GATE_NOW)
        ze__group_try_create(w, key.with); /* a conflict just means no group */
    return (ze_query_t){id};
}

static inline bool passes(ze_mask_t m, const ze_query_desc_t *d)
{
    return (m & d->with) == d->with && !(m & d->without);
}

/* Set up the driver of a walk over q: returns false when nothing can match. */
static bool setup_driver(const ze_world_t *w, const ze__query_t *q, uint32_t *driver, uint32_t *end,
                         uint32_t *flags)
{
    *flags = 0;
    ze_mask_t covered;
    if (q->group >= 0) {
        const ze__group_t *g = &w->groups[q->group];
        *driver = g->first_pool;
        *end = g->len;
        *flags |= IT_GROUP;
        covered = g->owned;
    } else {
        const ze__pool_t *best = NULL;
        for (ze_mask_t m = q->desc.with; m; m &= m - 1) {
            const ze__pool_t *p = w->pools[__builtin_ctzll(m)];
            if (!p || !p->count)
                return false;
            if (!best || p->count < best->count)
                best = p;
        }
        *driver = best->id;
        *end = best->count;
        covered = (ze_mask_t)1 << best->id;
    }
    if ((q->desc.with & ~covered) || q->desc.without || q->desc.optional)
        *flags |= IT_FILTER;
    return *end > 0;
}

uint32_t ze_query_count(ze_world_t *w, ze_query_t qh)
{
    ZE__ECS_THREAD_CHECK();
    if (!qh.id || qh.id > w->query_count)
        return 0;
    ze__world_settle(w);
    const ze__query_t *q = &w->queries[qh.id];
    uint32_t driver, end, flags;
    if (!setup_driver(w, q, &driver, &end, &flags))
        return 0;
    if (!(flags & IT_FILTER))
        return end;
    const ze__pool_t *p = w->pools[driver];
    uint32_t n = 0;
    for (uint32_t d = 0; d < end; d++)
        n += passes(w->mask[ze__pool_entity(p, d)], &q->desc);
    return n;
}

ze_iter_t ze_query_iter(ze_world_t *w, ze_query_t qh)
{
    ze_iter_t it;
    memset(&it, 0, sizeof it);
    it.world = w;
    ZE__ECS_THREAD_CHECK();
    if (!w || !qh.id || qh.id > w->query_count)
        return it;
    /* Deferred destroys leave ghosts in the dense arrays: remove them
     * before the walk (a frame's first query settles the world). */
    ze__world_settle(w);
    it.query = qh.id;
    const ze__query_t *q = &w->queries[qh.id];
    uint32_t flags;
    if (!setup_driver(w, q, &it.driver, &it.end, &flags))
        return it; /* nothing to visit: no lock taken */
    ze_scratch_t s = ze_scratch_begin(w->kernel->mem);
    it.scratch_arena = s.arena;
    it.scratch_marker = s.marker;
    it.flags = flags | IT_ACTIVE;
    ze__world_iter_begin(w);
    return it;
}

static void finish_run(ze_iter_t *it)
{
    if (!(it->flags & IT_HAS_RUN))
        return;
    it->flags &= ~IT_HAS_RUN;
    ze_world_t *w = it->world;
    const ze__query_t *q = &w->queries[it->query];
    ze_mask_t back = it->gathered & q->desc.write;
    uint32_t now = back ? ze__version_now(w) : 0;
    while (back) {
        uint32_t c = (uint32_t)__builtin_ctzll(back);
        back &= back - 1;
        ze__pool_t *p = w->pools[c];
        const uint8_t *src = it->fields[c];
        for (uint32_t i = 0; i < it->count; i++) {
            uint32_t d = ze__sparse_get(p, it->indices[i]) - 1;
            memcpy(ze__pool_data(p, d), src + (size_t)i * p->size, p->size);
            ze__row_stamp(p, d, now); /* written back: a writable access */
        }
    }
    it->gathered = 0;
    if (it->scratch_arena)
        ze_arena_pop_to(it->scratch_arena, it->scratch_marker);
}

void ze_iter_fini(ze_iter_t *it)
{
    if (!(it->flags & IT_ACTIVE))
        return;
    finish_run(it);
    it->flags &= ~IT_ACTIVE;
    it->count = 0;
    ze_scratch_end((ze_scratch_t){it->scratch_arena, it->scratch_marker});
    ze__world_iter_end(it->world);
}

/* Field pointer for component c over the current run, or NULL (gathering
 * failed: out of scratch). */
static void *field_for(ze_iter_t *it, ze__pool_t *p, bool packed, uint32_t start)
{
    if (packed)
        return ze__pool_data(p, start);
    uint32_t n = it->count;
    uint32_t d0 = ze__sparse_get(p, it->indices[0]) - 1;
    bool contiguous = (d0 >> ZE__PAGE_BITS) == ((d0 + n - 1) >> ZE__PAGE_BITS);
    for (uint32_t i = 1; contiguous && i < n; i++)
        contiguous = ze__sparse_get(p, it->indices[i]) - 1 == d0 + i;
    if (contiguous)
        return ze__pool_data(p, d0);
    uint8_t *buf = it->scratch_arena ? ze_arena_push(it->scratch_arena, (size_t)p->size * n,
                                                     ZE_MAX(p->align, 16u))
                                     : NULL;
    if (!buf)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        memcpy(buf + (size_t)i * p->size, ze__pool_data(p, ze__sparse_get(p, it->indices[i]) - 1),
               p->size);
    it->gathered |= (ze_mask_t)1 << p->id;
    return buf;
}

bool ze_query_next(ze_iter_t *it)
{
    ZE__ECS_THREAD_CHECK();
    if (!(it->flags & IT_ACTIVE))
        return false;
    finish_run(it);
    ze_world_t *w = it->world;
    const ze__query_t *q = &w->queries[it->query];
    const ze__pool_t *drv = w->pools[it->driver];
    uint32_t pos = it->pos, end = it->end;
    ze_mask_t opt = 0;
    if (it->flags & IT_FILTER) {
        while (pos < end && !passes(w->mask[ze__pool_entity(drv, pos)], &q->desc))
            pos++;
    }
    if (pos >= end) {
        it->pos = pos;
        ze_iter_fini(it);
        return false;
    }
    uint32_t start = pos;
    uint32_t limit = ZE_MIN(end, (start | ZE__PAGE_MASK) + 1); /* one page, <= ZE_ITER_CHUNK */
    if (it->flags & IT_FILTER) {
        opt = w->mask[ze__pool_entity(drv, start)] & q->desc.optional;
        pos++;
        while (pos < limit) {
            ze_mask_t m = w->mask[ze__pool_entity(drv, pos)];
            if (!passes(m, &q->desc) || (m & q->desc.optional) != opt)
                break;
            pos++;
        }
    } else {
        pos = limit;
    }
    it->pos = pos;
    it->count = pos - start;
    it->indices = &drv->dense[start >> ZE__PAGE_BITS][start & ZE__PAGE_MASK];
    it->flags |= IT_HAS_RUN;
    ze_mask_t packed =
        (it->flags & IT_GROUP) ? w->groups[q->group].owned : (ze_mask_t)1 << it->driver;
    ze_mask_t terms = q->desc.with | q->desc.optional;
    memset(it->fields, 0, sizeof it->fields);
    for (ze_mask_t m = terms; m; m &= m - 1) {
        uint32_t c = (uint32_t)__builtin_ctzll(m);
        ze__pool_t *p = w->pools[c];
        if (!p || !p->size || ((ze_mask_t)1 << c & q->desc.optional & ~opt))
            continue;
        it->fields[c] = field_for(it, p, (packed >> c) & 1, start);
        /* A writable field handed out in place stamps the run's rows (a
         * gathered one stamps them as it is written back). */
        if (((q->desc.write >> c) & 1) && it->fields[c] && !((it->gathered >> c) & 1)) {
            uint32_t d0 = (packed >> c) & 1 ? start : ze__sparse_get(p, it->indices[0]) - 1;
            ze__rows_stamp(p, d0, it->count, ze__version_now(w));
        }
    }
    return true;
}

ze_entity_t ze_iter_entity(const ze_iter_t *it, uint32_t i)
{
    uint32_t index = it->indices[i];
    return (ze_entity_t){(uint64_t)it->world->gen[index] << 32 | index};
}
