/* Change tracking: the world's version, row versions, and the iterator over
 * the rows of a component written since a version.
 *
 * Every write stamps what it reaches with the world's current version: the
 * pool's `changed` stamp always (one atomic load, and a store when it moves
 * on), and the row's own version when the type is tracked. A type is
 * tracked when its desc says so (ZE_COMPONENT_TRACKED) or from the first
 * time something asks what changed (ze_changed_iter, ze_component_track, a
 * binder); tracking costs 4 bytes per row and a 4-byte stamp per page of
 * 4096 rows. Row versions move with their rows (storage.c's moves, packs'
 * swaps, settles), so a write is reported once, wherever the row went.
 *
 * The version moves on at ze_world_version (so every write after it is
 * newer than what it returned) and before each wave and after the last
 * one of a system group (worldtick.c): a system's `since` then separates
 * what it saw from what came after. Versions are 32-bit serial numbers:
 * at BeginFrame, once the version moved 2^29 past the last rebase, rows
 * and stamps older than that are raised to it, so two live versions never
 * lie 2^31 apart; a `since` older than 2^30 reports every row.
 *
 * Threads: stamps are relaxed atomics (parallel systems and jobs write rows
 * of one pool); the version itself moves only on the world's thread
 * outside parallel waves. Memory: the world's allocator. */
#include <string.h>

#include "ecs_internal.h"

enum { REBASE_SPAN = 1u << 29 };

bool ze__pool_ver_page(ze_world_t *w, ze__pool_t *p, uint32_t page)
{
    uint32_t *v = ze_alloc(w->alloc, sizeof(uint32_t) * ZE__PAGE, 64);
    if (!v)
        return false;
    memset(v, 0, sizeof(uint32_t) * ZE__PAGE); /* rows are stamped as they come */
    p->ver[page] = v;
    return true;
}

void ze__pool_ver_free(ze_world_t *w, ze__pool_t *p)
{
    if (p->ver) {
        for (uint32_t i = 0; i < p->page_count; i++)
            if (p->ver[i])
                ze_free(w->alloc, p->ver[i], sizeof(uint32_t) * ZE__PAGE);
        ze_free(w->alloc, p->ver, sizeof(void *) * p->page_count);
    }
    if (p->page_max)
        ze_free(w->alloc, (void *)p->page_max, sizeof(*p->page_max) * p->page_count);
    p->ver = NULL;
    p->page_max = NULL;
}

bool ze__pool_track(ze_world_t *w, ze__pool_t *p)
{
    if (p->ver)
        return true;
    ZE_ASSERT(!atomic_load_explicit(&w->in_parallel, memory_order_acquire));
    size_t table = sizeof(void *) * p->page_count;
    p->ver = ze_alloc(w->alloc, table, 16);
    p->page_max = ze_alloc(w->alloc, sizeof(*p->page_max) * p->page_count, 16);
    bool ok = p->ver && p->page_max;
    if (p->ver)
        memset(p->ver, 0, table);
    for (uint32_t i = 0; p->page_max && i < p->page_count; i++)
        atomic_init(&p->page_max[i], 0);
    /* Pages hold rows up to `cap`; each gets its versions. */
    for (uint32_t i = 0; ok && i < p->page_count && p->dense[i]; i++)
        ok = ze__pool_ver_page(w, p, i);
    if (!ok) {
        ze__pool_ver_free(w, p);
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory tracking the changes of '%s' (4 bytes per row)",
                        ze__info(w->kernel, p->id)->name);
        return false;
    }
    /* What happened before is unknown: every row counts as written now. */
    uint32_t now = ze__version_now(w);
    for (uint32_t d = 0; d < p->count; d += ZE__PAGE)
        ze__rows_stamp(p, d, ZE_MIN(p->count - d, (uint32_t)ZE__PAGE), now);
    return true;
}

uint32_t ze__version_advance(ze_world_t *w)
{
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire))
        return ze__version_now(w);
    return atomic_fetch_add_explicit(&w->version, 1, memory_order_relaxed) + 1;
}

uint32_t ze_world_version(ze_world_t *w)
{
    ZE__ECS_THREAD_CHECK();
    uint32_t v = ze__version_now(w);
    ze__version_advance(w);
    return v;
}

/* x, raised to `floor` when older. */
static inline uint32_t raise(uint32_t x, uint32_t floor)
{
    return ze__newer(floor, x) ? floor : x;
}

static inline void raise_atomic(_Atomic uint32_t *s, uint32_t floor)
{
    atomic_store_explicit(s, raise(atomic_load_explicit(s, memory_order_relaxed), floor),
                          memory_order_relaxed);
}

void ze__versions_rebase_if_due(ze_world_t *w)
{
    uint32_t now = ze__version_now(w);
    if (now - w->rebased_at < REBASE_SPAN)
        return;
    uint32_t floor = now - REBASE_SPAN;
    for (uint32_t b = 0; b < w->pool_count; b++) {
        ze__pool_t *p = w->pool_list[b];
        raise_atomic(&p->changed, floor);
        raise_atomic(&p->removed, floor);
        if (!p->ver)
            continue;
        for (uint32_t pg = 0; pg < p->page_count && p->ver[pg]; pg++) {
            raise_atomic(&p->page_max[pg], floor);
            uint32_t *row = p->ver[pg];
            for (uint32_t i = 0; i < ZE__PAGE; i++)
                row[i] = raise(row[i], floor);
        }
    }
    /* The internal consumers start over rather than compare across it. */
    if (ze__newer(floor, w->hier_version))
        w->hier_valid = false;
    if (ze__newer(floor, w->snap_version))
        w->snap_valid = false;
    w->rebased_at = now;
}

/* ------------------------------------------------------------- public */

ze_result ze_component_track(ze_world_t *w, ze_component_t c)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    if (c.id >= w->kernel->component_count)
        return ZE_ERR_INVALID_ARG;
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire))
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                               "ze_component_track of '%s' inside a parallel wave",
                               ze__info(w->kernel, c.id)->name);
    ze__pool_t *p = ze__pool_get(w, c.id);
    if (!p)
        return ZE_ERR_OUT_OF_MEMORY;
    return ze__pool_track(w, p) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

bool ze_component_changed(const ze_world_t *w, ze_entity_t e, ze_component_t c, uint32_t since)
{
    ZE__ECS_THREAD_CHECK();
    if (!ze__alive(w, e) || !ze__has(w, ze_entity_index(e), c.id))
        return false;
    const ze__pool_t *p = w->pools[c.id];
    if (!p->ver) /* untracked: what the pool says, for every row */
        return ze__newer(atomic_load_explicit(&((ze__pool_t *)p)->changed, memory_order_relaxed),
                         since);
    return ze__newer(ze__row_version(p, ze__sparse_get(p, ze_entity_index(e)) - 1), since);
}

ze_changed_iter_t ze_changed_iter(ze_world_t *w, ze_component_t c, uint32_t since)
{
    ze_changed_iter_t it;
    memset(&it, 0, sizeof it);
    it.world = w;
    ZE__ECS_THREAD_CHECK();
    if (!w || c.id >= w->kernel->component_count)
        return it;
    ze__world_settle(w); /* the walk reads dense rows */
    ze__pool_t *p = ze__pool_of(w, c.id);
    if (!p || !p->count)
        return it;
    if (!p->ver) {
        if (atomic_load_explicit(&w->in_parallel, memory_order_acquire)) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                            "ze_changed_iter of '%s' inside a parallel wave: the type is not "
                            "tracked yet (ZE_COMPONENT_TRACKED or ze_component_track first)",
                            ze__info(w->kernel, c.id)->name);
            return it;
        }
        if (!ze__pool_track(w, p))
            return it;
    }
    uint32_t now = ze__version_now(w);
    if (now - since >= 2 * REBASE_SPAN) /* older than any row can be: all of them */
        since = now - 2 * REBASE_SPAN;
    if (!ze__newer(atomic_load_explicit(&p->changed, memory_order_relaxed), since))
        return it; /* nothing written since: no walk, no lock */
    it.comp = c.id;
    it.since = since;
    it.end = p->count;
    it.active = true;
    ze__world_iter_begin(w);
    return it;
}

void ze_changed_fini(ze_changed_iter_t *it)
{
    if (!it->active)
        return;
    it->active = false;
    it->count = 0;
    ze__world_iter_end(it->world);
}

bool ze_changed_next(ze_changed_iter_t *it)
{
    if (!it->active)
        return false;
    const ze__pool_t *p = it->world->pools[it->comp];
    uint32_t pos = it->pos, end = it->end, since = it->since;
    while (pos < end) {
        uint32_t page = pos >> ZE__PAGE_BITS;
        uint32_t limit = ZE_MIN(end, (page + 1) << ZE__PAGE_BITS);
        if (!ze__newer(
                atomic_load_explicit(&((ze__pool_t *)p)->page_max[page], memory_order_relaxed),
                since)) {
            pos = limit; /* an unchanged page: one compare */
            continue;
        }
        const uint32_t *ver = p->ver[page];
        while (pos < limit && !ze__newer(ver[pos & ZE__PAGE_MASK], since))
            pos++;
        if (pos == limit)
            continue;
        uint32_t start = pos;
        while (pos < limit && ze__newer(ver[pos & ZE__PAGE_MASK], since))
            pos++;
        it->pos = pos;
        it->count = pos - start;
        it->indices = &p->dense[page][start & ZE__PAGE_MASK];
        it->values = p->size ? ze__pool_data(p, start) : NULL;
        return true;
    }
    it->pos = pos;
    ze_changed_fini(it);
    return false;
}

ze_entity_t ze_changed_entity(const ze_changed_iter_t *it, uint32_t i)
{
    uint32_t index = it->indices[i];
    return (ze_entity_t){(uint64_t)it->world->gen[index] << 32 | index};
}

uint32_t ze_changed_count(ze_world_t *w, ze_component_t c, uint32_t since)
{
    uint32_t n = 0;
    ze_changed_iter_t it = ze_changed_iter(w, c, since);
    while (ze_changed_next(&it))
        n += it.count;
    return n;
}
