/* Queries: cached per world by their full sets; iteration in runs.
 *
 * A query is driven either by a pack whose set lies within the
 * query's `with` (its range is packed in every owned pool) or by the
 * smallest pool of `with`. A run is a stretch of consecutive driver
 * positions, within one storage page, whose entities all pass the filters
 * and agree on which optional components they have. Fields of packed
 * components point into storage; the others are gathered into the thread's
 * scratch arena and, when writable, scattered back at the end of the run.
 *
 * The desc names component ids; the filters test entity masks, whose bits
 * are the world's own numbering of the types it uses. So each query keeps
 * bitsets of its with, without and optional types in that numbering,
 * compiled when first iterated and again whenever the world started using
 * new types (its `layout`): a type the world has no pool for cannot be on
 * any entity (a `with` type then means no match). Parallel waves compile
 * stale queries before they start (ze__queries_refresh). */
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
        if (ze_mask_contains(with, w->groups[g].owned))
            return g; /* groups are sorted by set size: the first hit is the largest */
    return -1;
}

void ze__query_groups_changed(ze_world_t *w)
{
    for (uint32_t q = 1; q <= w->query_count; q++)
        w->queries[q]->group = pick_group(w, w->queries[q]->desc.with);
}

static void query_free(ze_world_t *w, ze__query_t *q)
{
    if (q->bits)
        ze_free(w->alloc, q->bits, sizeof(uint64_t) * 3 * q->words);
    ze_free(w->alloc, q, sizeof *q);
}

void ze__queries_free(ze_world_t *w)
{
    for (uint32_t q = 1; q <= w->query_count; q++)
        query_free(w, w->queries[q]);
    if (w->queries)
        ze_free(w->alloc, w->queries, sizeof(*w->queries) * w->query_cap);
    w->queries = NULL;
    w->query_count = w->query_cap = 0;
}

/* The bitsets of q in the world's current numbering. False when out of
 * memory (the query then matches nothing: reported). */
static bool compile(ze_world_t *w, ze__query_t *q)
{
    uint32_t words = w->mask_words;
    if (q->words != words) {
        uint64_t *bits = ze_alloc(w->alloc, sizeof(uint64_t) * 3 * words, _Alignof(uint64_t));
        if (!bits) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of memory for a query");
            return false;
        }
        if (q->bits)
            ze_free(w->alloc, q->bits, sizeof(uint64_t) * 3 * q->words);
        q->bits = bits;
        q->words = words;
    }
    memset(q->bits, 0, sizeof(uint64_t) * 3 * words);
    q->missing = false;
    const ze_mask_t *sets[3] = {&q->desc.with, &q->desc.without, &q->desc.optional};
    for (uint32_t s = 0; s < 3; s++) {
        for (uint32_t i = 0; i < sets[s]->count; i++) {
            const ze__pool_t *p = ze__pool_of(w, sets[s]->ids[i]);
            if (p)
                ze__bit_set(q->bits + s * words, p->bit);
            else if (s == 0)
                q->missing = true;
        }
    }
    q->layout = w->layout;
    return true;
}

static inline bool fresh(const ze_world_t *w, const ze__query_t *q)
{
    return q->layout == w->layout && q->words == w->mask_words;
}

void ze__queries_refresh(ze_world_t *w)
{
    for (uint32_t q = 1; q <= w->query_count; q++)
        if (!fresh(w, w->queries[q]))
            compile(w, w->queries[q]);
}

/* The desc with its masks checked; ZE_OK or the reported error. */
static ze_result check_desc(ze_world_t *w, const ze_query_desc_t *d)
{
    ze_result r;
    if ((r = ze__mask_check(w, d->with, "query `with`")) != ZE_OK ||
        (r = ze__mask_check(w, d->without, "query `without`")) != ZE_OK ||
        (r = ze__mask_check(w, d->optional, "query `optional`")) != ZE_OK ||
        (r = ze__mask_check(w, d->write, "query `write`")) != ZE_OK)
        return r;
    if (ze_mask_empty(d->with) || ze__mask_meets(d->with, d->without, NULL) ||
        ze__mask_meets(d->optional, d->with, NULL) ||
        ze__mask_meets(d->optional, d->without, NULL) ||
        !ze_mask_contains(ze_mask_or(d->with, d->optional), d->write))
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                               "invalid query (%u with, %u without, %u optional, %u write): "
                               "`with` must be non-empty, the sets disjoint, `write` within "
                               "with|optional",
                               d->with.count, d->without.count, d->optional.count, d->write.count);
    return ZE_OK;
}

ze_query_t ze_query_create(ze_world_t *w, const ze_query_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    if (!w || !desc || check_desc(w, desc) != ZE_OK)
        return (ze_query_t){0};
    /* The key: the four sets as ze_mask_make leaves them (padding zero). */
    ze_query_desc_t key;
    memset(&key, 0, sizeof key);
    key.with = ze_mask_or(ze_mask_make(NULL, 0), desc->with);
    key.without = ze_mask_or(ze_mask_make(NULL, 0), desc->without);
    key.optional = ze_mask_or(ze_mask_make(NULL, 0), desc->optional);
    key.write = ze_mask_or(ze_mask_make(NULL, 0), desc->write);
    uint32_t *found = ze_hashmap_get(&w->query_map, &key);
    if (found)
        return (ze_query_t){*found};
    if (w->query_count + 2 > w->query_cap) {
        uint32_t cap = w->query_cap ? w->query_cap * 2 : 16;
        ze__query_t **q = ze_realloc(w->alloc, w->queries, sizeof(*q) * w->query_cap,
                                     sizeof(*q) * cap, _Alignof(ze__query_t *));
        if (!q)
            return (ze_query_t){0};
        w->queries = q;
        w->query_cap = cap;
    }
    ze__query_t *q = ze_alloc(w->alloc, sizeof *q, _Alignof(ze__query_t));
    if (!q)
        return (ze_query_t){0};
    memset(q, 0, sizeof *q);
    q->desc = key;
    q->group = pick_group(w, key.with);
    /* Terms: with and optional, ascending (the iterator's fields). */
    ze_mask_t terms = ze_mask_or(key.with, key.optional);
    for (uint32_t i = 0; i < terms.count; i++) {
        ze_component_t c = {terms.ids[i]};
        q->terms[q->term_count] = terms.ids[i];
        if (ze_mask_has(key.write, c))
            q->term_write |= (uint64_t)1 << q->term_count;
        if (ze_mask_has(key.optional, c))
            q->term_optional |= (uint64_t)1 << q->term_count;
        q->term_count++;
    }
    uint32_t id = w->query_count + 1;
    if (ze_hashmap_put(&w->query_map, &key, &id) != ZE_OK) {
        query_free(w, q);
        return (ze_query_t){0};
    }
    w->queries[id] = q;
    w->query_count = id;
    /* Auto groups: pack the first query of each set of two or more
     * components, when the set nests with the groups already there. */
    if (w->auto_groups && key.with.count >= 2 &&
        (q->group < 0 || !ze_mask_eq(w->groups[q->group].owned, key.with)) &&
        ze__world_gate(w) == ZE__GATE_NOW)
        ze__group_try_create(w, key.with); /* a conflict just means no group */
    return (ze_query_t){id};
}

/* The entity's row passes q's with and without sets. */
static inline bool passes(const uint64_t *row, const ze__query_t *q)
{
    const uint64_t *with = q->bits, *without = q->bits + q->words;
    for (uint32_t k = 0; k < q->words; k++)
        if ((row[k] & with[k]) != with[k] || (row[k] & without[k]))
            return false;
    return true;
}

/* The optional types of the row, as one word per... compared between rows
 * of a run: equal when they have the same optional types. */
static inline bool same_optional(const uint64_t *a, const uint64_t *b, const ze__query_t *q)
{
    const uint64_t *opt = q->bits + 2 * q->words;
    for (uint32_t k = 0; k < q->words; k++)
        if ((a[k] ^ b[k]) & opt[k])
            return false;
    return true;
}

static inline bool has_optional(const uint64_t *m, const ze__query_t *q)
{
    for (uint32_t k = 0; k < q->words; k++)
        if (q->bits[2 * q->words + k] & m[k])
            return true;
    return false;
}

/* Set up the driver of a walk over q (compiled): false when nothing can
 * match. */
static bool setup_driver(const ze_world_t *w, const ze__query_t *q, uint32_t *driver, uint32_t *end,
                         uint32_t *flags)
{
    *flags = 0;
    if (q->missing)
        return false;
    uint32_t covered; /* with types the driver already guarantees */
    if (q->group >= 0) {
        const ze__group_t *g = &w->groups[q->group];
        *driver = g->first_pool;
        *end = g->len;
        *flags |= IT_GROUP;
        covered = g->owned.count;
    } else {
        const ze__pool_t *best = NULL;
        for (uint32_t i = 0; i < q->desc.with.count; i++) {
            const ze__pool_t *p = w->pools[q->desc.with.ids[i]];
            if (!p->count)
                return false;
            if (!best || p->count < best->count)
                best = p;
        }
        *driver = best->id;
        *end = best->count;
        covered = 1;
    }
    if (q->desc.with.count > covered || q->desc.without.count || q->desc.optional.count)
        *flags |= IT_FILTER;
    return *end > 0;
}

static ze__query_t *ready_query(ze_world_t *w, ze_query_t qh)
{
    if (!w || !qh.id || qh.id > w->query_count)
        return NULL;
    ze__query_t *q = w->queries[qh.id];
    if (!fresh(w, q) && !compile(w, q))
        return NULL;
    return q;
}

uint32_t ze_query_count(ze_world_t *w, ze_query_t qh)
{
    ZE__ECS_THREAD_CHECK();
    ze__world_settle(w);
    const ze__query_t *q = ready_query(w, qh);
    uint32_t driver, end, flags;
    if (!q || !setup_driver(w, q, &driver, &end, &flags))
        return 0;
    if (!(flags & IT_FILTER))
        return end;
    const ze__pool_t *p = w->pools[driver];
    uint32_t n = 0;
    for (uint32_t d = 0; d < end; d++)
        n += passes(ze__row(w, ze__pool_entity(p, d)), q);
    return n;
}

ze_iter_t ze_query_iter(ze_world_t *w, ze_query_t qh)
{
    ze_iter_t it;
    memset(&it, 0, sizeof it);
    it.world = w;
    ZE__ECS_THREAD_CHECK();
    /* Deferred destroys leave ghosts in the dense arrays: remove them
     * before the walk (a frame's first query settles the world). */
    if (w)
        ze__world_settle(w);
    const ze__query_t *q = ready_query(w, qh);
    if (!q)
        return it;
    it.query = qh.id;
    it.term_count = q->term_count;
    memcpy(it.term_ids, q->terms, sizeof(uint16_t) * q->term_count);
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
    const ze__query_t *q = w->queries[it->query];
    uint64_t back = it->gathered & q->term_write;
    uint32_t now = back ? ze__version_now(w) : 0;
    while (back) {
        uint32_t t = (uint32_t)__builtin_ctzll(back);
        back &= back - 1;
        ze__pool_t *p = w->pools[q->terms[t]];
        const uint8_t *src = it->fields[t];
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

/* Field pointer for term t (pool p) over the current run, or NULL
 * (gathering failed: out of scratch). */
static void *field_for(ze_iter_t *it, uint32_t t, ze__pool_t *p, bool packed, uint32_t start)
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
    it->gathered |= (uint64_t)1 << t;
    return buf;
}

bool ze_query_next(ze_iter_t *it)
{
    ZE__ECS_THREAD_CHECK();
    if (!(it->flags & IT_ACTIVE))
        return false;
    finish_run(it);
    ze_world_t *w = it->world;
    const ze__query_t *q = w->queries[it->query];
    const ze__pool_t *drv = w->pools[it->driver];
    uint32_t pos = it->pos, end = it->end;
    const uint64_t *first_row = NULL;
    if (it->flags & IT_FILTER) {
        while (pos < end && !passes(ze__row(w, ze__pool_entity(drv, pos)), q))
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
        first_row = ze__row(w, ze__pool_entity(drv, start));
        pos++;
        while (pos < limit) {
            const uint64_t *row = ze__row(w, ze__pool_entity(drv, pos));
            if (!passes(row, q) || !same_optional(row, first_row, q))
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
    const ze__group_t *g = (it->flags & IT_GROUP) ? &w->groups[q->group] : NULL;
    bool any_optional = first_row && has_optional(first_row, q);
    for (uint32_t t = 0; t < q->term_count; t++) {
        it->fields[t] = NULL;
        ze__pool_t *p = ze__pool_of(w, q->terms[t]);
        if (!p || !p->size)
            continue;
        if ((q->term_optional >> t) & 1 && !(any_optional && ze__bit_get(first_row, p->bit)))
            continue; /* this run's entities lack it */
        bool packed = g ? ze_mask_has(g->owned, (ze_component_t){p->id}) : p->id == it->driver;
        it->fields[t] = field_for(it, t, p, packed, start);
        /* A writable field handed out in place stamps the run's rows (a
         * gathered one stamps them as it is written back). */
        if (((q->term_write >> t) & 1) && it->fields[t] && !((it->gathered >> t) & 1)) {
            uint32_t d0 = packed ? start : ze__sparse_get(p, it->indices[0]) - 1;
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
