/* Bindings: binders receive the deltas of the components they watch, once
 * per LateFrame (ze_bindings_apply), and a DeltaTracker helper.
 *
 * Storage reports adds, removes and value sets of the types some binder
 * watches (their pools are `watched`, so unwatched types cost nothing)
 * through ze__bindings_note. Every other write (query runs with a
 * writable field, ze_component_get_mut, marks) is found by the row versions
 * (versions.c): watched types are tracked, and each system group's barrier
 * and each apply note the rows written since the last scan, in storage
 * order (ze__bindings_scan). So a system that writes only some of its
 * entities, or whose query it does not iterate, reports only those it
 * reached. Notes are coalesced per entity: for
 * each component, whether it was present when first noted this frame and
 * whether its value was written. The kind is decided at apply time against
 * the world: absent at the start and present now -> ADDED, present then and
 * absent now -> REMOVED, present both and written -> CHANGED, added and
 * removed again -> nothing. Entities keep the order of their first note, and
 * so do one entity's components: each record chains its components in the
 * order they were first noted (commands apply in recording order, so
 * that is the order they were recorded), not in id order.
 *
 * Threads: notes may come from pool threads (value writes in a parallel
 * wave), so the frame's change set is guarded by a mutex. Attach, detach and
 * apply run on the world's thread. Memory: the world's allocator.
 */
#include <pthread.h>
#include <string.h>

#include "ecs_internal.h"

/* One entity touched since the last apply. Keyed by the full handle, so a
 * slot destroyed and reused within a frame gives two records. */
typedef struct bind_entity_t {
    ze_entity_t e;
    uint32_t first, last; /* chain of this record's components in `order` */
} bind_entity_t;

/* One link of a record's chain: a component noted for the entity, what was
 * noted, and the next link (NONE ends it). Links of all records share one
 * array, appended as notes come. */
typedef struct bind_link_t {
    uint32_t comp;
    uint32_t next;
    bool start;   /* present when first noted */
    bool written; /* value written, or removed and re-added */
    uint8_t kind; /* decided at apply: 0 (nothing), ADDED, REMOVED or CHANGED */
} bind_link_t;
#define LINK_NONE UINT32_MAX

/* The frame's change set: records in order of first note, and an index. */
typedef struct bind_set_t {
    ze_array_t records; /* bind_entity_t */
    ze_hashmap_t index; /* entity id (u64) -> u32 position in records */
    ze_array_t order;   /* bind_link_t: each record's components, first note first */
} bind_set_t;

typedef struct binder_rec_t {
    uint32_t id;
    bool per_entity;
    bool snapshot_due; /* first apply after attach: SNAPSHOT instead of deltas */
    bool detached;     /* during an apply; removed after it */
    ze_entity_t entity;
    ze_mask_t mask; /* the types it watches (one for a type binder) */
    ze_binder_fn fn;
    void *user;
} binder_rec_t;

struct ze__bindings_t {
    pthread_mutex_t lock; /* guards `live` and `oom_logged` */
    bind_set_t live;      /* notes since the last apply */
    bool oom_logged;
    /* World thread only. */
    bind_set_t applying; /* the set being delivered (swapped with `live`) */
    ze_array_t binders;  /* binder_rec_t, attach order */
    ze_array_t scratch;  /* uint32_t entity indices for type snapshots */
    uint32_t next_id;
    bool in_apply;
    bool has_detached;
    uint32_t scanned; /* the world version of the last scan */
};

static void set_init(bind_set_t *s, ze_allocator_t a)
{
    ZE_ARRAY_INIT(&s->records, a, bind_entity_t);
    ze_hashmap_init(&s->index, a, sizeof(uint64_t), sizeof(uint32_t));
    ZE_ARRAY_INIT(&s->order, a, bind_link_t);
}

static void set_free(bind_set_t *s)
{
    ze_array_free(&s->records);
    ze_hashmap_free(&s->index);
    ze_array_free(&s->order);
}

static void set_clear(bind_set_t *s)
{
    ze_array_clear(&s->records);
    ze_hashmap_clear(&s->index);
    ze_array_clear(&s->order);
}

static const bind_entity_t *set_find(const bind_set_t *s, ze_entity_t e)
{
    const uint32_t *pos = ze_hashmap_get(&s->index, &e.id);
    return pos ? ze_array_at(&s->records, *pos) : NULL;
}

static ze__bindings_t *bindings_get(ze_world_t *w)
{
    if (w->bindings)
        return w->bindings;
    ze__bindings_t *b = ze_alloc(w->alloc, sizeof *b, _Alignof(ze__bindings_t));
    if (!b)
        return NULL;
    memset(b, 0, sizeof *b);
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        ze_free(w->alloc, b, sizeof *b);
        return NULL;
    }
    set_init(&b->live, w->alloc);
    set_init(&b->applying, w->alloc);
    ZE_ARRAY_INIT(&b->binders, w->alloc, binder_rec_t);
    ZE_ARRAY_INIT(&b->scratch, w->alloc, uint32_t);
    w->bindings = b;
    return b;
}

void ze__bindings_fini(ze_world_t *w)
{
    ze__bindings_t *b = w->bindings;
    /* Storage stops reporting before the state goes away (entities destroyed
     * after this point must not note into freed memory). */
    for (uint32_t i = 0; i < w->pool_count; i++) {
        ze__pool_t *p = w->pool_list[i];
        if (p->watched && !p->has_hooks)
            ze__bit_clear(w->special, p->bit);
        p->watched = false;
    }
    w->watched_count = 0;
    if (!b)
        return;
    set_free(&b->live);
    set_free(&b->applying);
    ze_array_free(&b->binders);
    ze_array_free(&b->scratch);
    pthread_mutex_destroy(&b->lock);
    ze_free(w->alloc, b, sizeof *b);
    w->bindings = NULL;
}

/* ---------------------------------------------------------------- notes */

/* Caller holds b->lock. */
static void note_locked(ze_world_t *w, ze__bindings_t *b, ze_entity_t e, uint32_t comp,
                        ze_delta_kind kind)
{
    bind_set_t *s = &b->live;
    uint32_t *pos = ze_hashmap_get(&s->index, &e.id);
    bind_entity_t *r;
    if (pos) {
        r = ze_array_at(&s->records, *pos);
    } else {
        uint32_t at = s->records.count;
        bind_entity_t fresh = {.e = e, .first = LINK_NONE, .last = LINK_NONE};
        if (ze_array_push(&s->records, &fresh) != ZE_OK) {
            goto oom;
        }
        if (ze_hashmap_put(&s->index, &e.id, &at) != ZE_OK) {
            s->records.count--;
            goto oom;
        }
        r = ze_array_at(&s->records, at);
    }
    /* The record's link for comp (entities have few components noted). */
    bind_link_t *l = NULL;
    for (uint32_t i = r->first; i != LINK_NONE;) {
        bind_link_t *x = ze_array_at(&s->order, i);
        if (x->comp == comp) {
            l = x;
            break;
        }
        i = x->next;
    }
    if (!l) {
        /* The first note of this component: it joins the record's chain. */
        uint32_t link = s->order.count;
        bind_link_t fresh = {comp, LINK_NONE, kind != ZE_DELTA_ADDED, false, 0};
        if (ze_array_push(&s->order, &fresh) != ZE_OK)
            goto oom;
        if (r->last == LINK_NONE)
            r->first = link;
        else
            ((bind_link_t *)ze_array_at(&s->order, r->last))->next = link;
        r->last = link;
        l = ze_array_at(&s->order, link);
    }
    if (kind == ZE_DELTA_CHANGED || (kind == ZE_DELTA_ADDED && l->start))
        l->written = true;
    return;
oom:
    if (!b->oom_logged)
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory recording binding deltas (dropped)");
    b->oom_logged = true;
}

static ze_entity_t handle_of(const ze_world_t *w, uint32_t index)
{
    /* Notes come from live slots (a destroy reports its removals before the
     * generation moves on). */
    return (ze_entity_t){(uint64_t)(w->gen[index] & ZE__GEN_MAX) << 32 | index};
}

void ze__bindings_note(ze_world_t *w, uint32_t index, uint32_t comp, ze_delta_kind kind)
{
    ze__bindings_t *b = w->bindings;
    if (!b || comp >= ZE_MAX_COMPONENTS)
        return;
    pthread_mutex_lock(&b->lock);
    note_locked(w, b, handle_of(w, index), comp, kind);
    pthread_mutex_unlock(&b->lock);
}

void ze__bindings_scan(ze_world_t *w)
{
    ze__bindings_t *b = w->bindings;
    if (!b || !w->watched_count)
        return;
    uint32_t since = b->scanned;
    b->scanned = ze_world_version(w); /* later writes are newer */
    for (uint32_t bit = 0; bit < w->pool_count; bit++) {
        if (!w->pool_list[bit]->watched)
            continue;
        uint32_t c = w->pool_list[bit]->id;
        ze_changed_iter_t it = ze_changed_iter(w, (ze_component_t){c}, since);
        while (ze_changed_next(&it)) {
            /* One lock per run; never across ze_changed_next, whose end may
             * flush deferred commands (which note). */
            pthread_mutex_lock(&b->lock);
            for (uint32_t i = 0; i < it.count; i++)
                note_locked(w, b, handle_of(w, it.indices[i]), c, ZE_DELTA_CHANGED);
            pthread_mutex_unlock(&b->lock);
        }
    }
}

ze_result ze_delta_mark_changed(ze_world_t *w, ze_entity_t e, ze_component_t c)
{
    if (!w || c.id >= w->kernel->component_count)
        return ZE_ERR_INVALID_ARG;
    if (!ze_component_has(w, e, c))
        return ZE_ERR_NOT_FOUND;
    ze_result r = ze_component_mark_changed(w, e, c);
    if (r == ZE_OK && w->pools[c.id]->watched)
        ze__bindings_note(w, ze_entity_index(e), c.id, ZE_DELTA_CHANGED);
    return r;
}

/* -------------------------------------------------------------- binders */

/* Pools of watched types note their changes; the others cost nothing. A
 * watched type is special for destroys too (binder notes at the destroy). */
static void set_watched(ze_world_t *w, ze__pool_t *p, bool on)
{
    if (p->watched == on)
        return;
    p->watched = on;
    w->watched_count += on ? 1 : (uint32_t)-1;
    if (on || p->has_hooks)
        ze__bit_set(w->special, p->bit);
    else
        ze__bit_clear(w->special, p->bit);
}

static void update_watched(ze_world_t *w, const ze__bindings_t *b)
{
    for (uint32_t i = 0; i < w->pool_count; i++) {
        ze__pool_t *p = w->pool_list[i];
        bool on = false;
        for (uint32_t j = 0; !on && j < b->binders.count; j++) {
            const binder_rec_t *r = ze_array_at(&b->binders, j);
            on = !r->detached && ze_mask_has(r->mask, (ze_component_t){p->id});
        }
        set_watched(w, p, on);
    }
}

static ze_binder_t attach(ze_world_t *w, binder_rec_t rec)
{
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire)) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "binder attach inside a parallel wave (refused)");
        return (ze_binder_t){0};
    }
    ze__bindings_t *b = bindings_get(w);
    if (!b) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of memory attaching a binder");
        return (ze_binder_t){0};
    }
    /* Changes the notes do not carry are read from row versions. */
    for (uint32_t i = 0; i < rec.mask.count; i++)
        if (ze_component_track(w, (ze_component_t){rec.mask.ids[i]}) != ZE_OK)
            return (ze_binder_t){0};
    if (!b->binders.count)
        b->scanned = ze_world_version(w); /* what came before: the snapshots */
    if (++b->next_id == 0)
        b->next_id = 1;
    rec.id = b->next_id;
    rec.snapshot_due = true;
    if (ze_array_push(&b->binders, &rec) != ZE_OK) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "out of memory attaching a binder");
        return (ze_binder_t){0};
    }
    for (uint32_t i = 0; i < rec.mask.count; i++)
        set_watched(w, w->pools[rec.mask.ids[i]], true);
    return (ze_binder_t){rec.id};
}

ze_binder_t ze_binder_attach_type(ze_world_t *w, ze_component_t c, ze_binder_fn fn, void *user)
{
    if (!w || !fn || c.id >= w->kernel->component_count)
        return (ze_binder_t){0};
    return attach(w, (binder_rec_t){.mask = ze_mask_of(c), .fn = fn, .user = user});
}

ze_binder_t ze_binder_attach_entity(ze_world_t *w, ze_entity_t e, ze_mask_t components,
                                    ze_binder_fn fn, void *user)
{
    if (!w || !fn || ze_mask_empty(components) ||
        ze__mask_check(w, components, "binder components") != ZE_OK || !ze__alive(w, e))
        return (ze_binder_t){0};
    return attach(w,
                  (binder_rec_t){
                      .per_entity = true, .entity = e, .mask = components, .fn = fn, .user = user});
}

ze_result ze_binder_detach(ze_world_t *w, ze_binder_t binder)
{
    ze__bindings_t *b = w ? w->bindings : NULL;
    if (!b || !binder.id)
        return ZE_ERR_NOT_FOUND;
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire))
        return ZE_ERR_STATE; /* storage reads `watched` from the wave's threads */
    for (uint32_t i = 0; i < b->binders.count; i++) {
        binder_rec_t *r = ze_array_at(&b->binders, i);
        if (r->id != binder.id || r->detached)
            continue;
        if (b->in_apply) {
            /* apply walks the binders by index: mark, remove afterwards */
            r->detached = true;
            b->has_detached = true;
        } else {
            ze_array_remove_ordered(&b->binders, i);
        }
        update_watched(w, b);
        return ZE_OK;
    }
    return ZE_ERR_NOT_FOUND;
}

/* ---------------------------------------------------------------- apply */

/* Delivers one delta to binder `bi` unless it was detached meanwhile. For
 * ADDED/CHANGED/SNAPSHOT the value is read now, so it points into storage;
 * if an earlier callback of this apply removed the component, the delta is
 * dropped (the next apply reports the removal). */
static void emit(ze_world_t *w, ze__bindings_t *b, uint32_t bi, ze_delta_kind kind, ze_entity_t e,
                 uint32_t comp)
{
    const binder_rec_t *r = ze_array_at(&b->binders, bi);
    if (r->detached)
        return;
    ze_binder_fn fn = r->fn;
    void *user = r->user;
    ze_delta_t d = {.kind = kind, .entity = e, .component = {comp}, .value = NULL};
    if (kind != ZE_DELTA_REMOVED) {
        if (!ze_component_has(w, e, d.component))
            return;
        d.value = ze_component_get(w, e, d.component);
    }
    fn(w, &d, user);
}

static void emit_snapshot(ze_world_t *w, ze__bindings_t *b, uint32_t bi)
{
    binder_rec_t r = ZE_ARRAY_AT(&b->binders, binder_rec_t, bi);
    if (r.per_entity) {
        for (uint32_t i = 0; i < r.mask.count; i++)
            if (ze_component_has(w, r.entity, (ze_component_t){r.mask.ids[i]}))
                emit(w, b, bi, ZE_DELTA_SNAPSHOT, r.entity, r.mask.ids[i]);
        return;
    }
    uint32_t comp = r.mask.ids[0];
    const ze__pool_t *p = ze__pool_of(w, comp);
    if (!p || !p->count)
        return;
    /* Callbacks may change the pool: take the entity list first. */
    ze_array_clear(&b->scratch);
    if (ze_array_resize(&b->scratch, p->count) != ZE_OK) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                        "out of memory for a binder snapshot");
        return;
    }
    for (uint32_t d = 0; d < p->count; d++)
        ZE_ARRAY_AT(&b->scratch, uint32_t, d) = ze__pool_entity(p, d);
    uint32_t n = b->scratch.count;
    for (uint32_t i = 0; i < n; i++) {
        ze_entity_t e = ze_entity_from_index(w, ZE_ARRAY_AT(&b->scratch, uint32_t, i));
        if (!ze_entity_is_null(e))
            emit(w, b, bi, ZE_DELTA_SNAPSHOT, e, comp);
    }
}

/* Kinds of one record's components, decided against the world as apply
 * starts (so every binder sees the same answer): into each link's kind.
 * Returns whether any has one. */
static bool decide_kinds(const ze_world_t *w, bind_set_t *set, const bind_entity_t *r)
{
    bool any = false;
    for (uint32_t l = r->first; l != LINK_NONE;) {
        bind_link_t *link = ze_array_at(&set->order, l);
        l = link->next;
        bool now = ze_component_has(w, r->e, (ze_component_t){link->comp});
        link->kind = now && !link->start                   ? ZE_DELTA_ADDED
                     : link->start && !now                 ? ZE_DELTA_REMOVED
                     : now && link->start && link->written ? ZE_DELTA_CHANGED
                                                           : 0;
        any |= link->kind != 0;
    }
    return any;
}

/* The record's deltas for one binder, in the order of the record's chain
 * (first note first). */
static void emit_record(ze_world_t *w, ze__bindings_t *b, uint32_t bi, const bind_set_t *set,
                        const bind_entity_t *r, ze_mask_t watched)
{
    for (uint32_t l = r->first; l != LINK_NONE;) {
        const bind_link_t *link = ze_array_at(&set->order, l);
        l = link->next;
        if (link->kind && ze_mask_has(watched, (ze_component_t){link->comp}))
            emit(w, b, bi, (ze_delta_kind)link->kind, r->e, link->comp);
    }
}

void ze_bindings_apply(ze_world_t *w)
{
    ze__bindings_t *b = w ? w->bindings : NULL;
    if (!b)
        return;
    if (b->in_apply) {
        ze_world_report(w, ZE_LOG_WARN, ZE_OK, "ze_bindings_apply called from a binder (ignored)");
        return;
    }
    /* Writes since the last barrier, then take the frame's change set;
     * notes made by callbacks go to the next apply. */
    ze__bindings_scan(w);
    pthread_mutex_lock(&b->lock);
    bind_set_t set = b->live;
    b->live = b->applying;
    b->oom_logged = false;
    pthread_mutex_unlock(&b->lock);
    b->applying = set;
    b->in_apply = true;

    /* Decide every record's kinds before any callback can change the world
     * (records with none are skipped below). */
    uint32_t nrec = set.records.count;
    for (uint32_t i = 0; i < nrec; i++) {
        bind_entity_t *r = ze_array_at(&set.records, i);
        if (!decide_kinds(w, &set, r))
            r->first = LINK_NONE;
    }

    /* Binders attached by callbacks start at the next apply. */
    uint32_t nb = b->binders.count;
    for (uint32_t bi = 0; bi < nb; bi++) {
        binder_rec_t *rec = ze_array_at(&b->binders, bi);
        if (rec->detached)
            continue;
        if (rec->snapshot_due) {
            rec->snapshot_due = false;
            emit_snapshot(w, b, bi);
            continue;
        }
        binder_rec_t r = *rec;
        if (r.per_entity) {
            const bind_entity_t *er = set_find(&set, r.entity);
            if (er)
                emit_record(w, b, bi, &set, er, r.mask);
            continue;
        }
        for (uint32_t i = 0; i < nrec; i++) {
            const bind_entity_t *er = ze_array_at(&set.records, i);
            if (er->first != LINK_NONE)
                emit_record(w, b, bi, &set, er, r.mask);
        }
    }

    b->in_apply = false;
    set_clear(&b->applying);
    if (b->has_detached) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < b->binders.count; i++) {
            binder_rec_t *r = ze_array_at(&b->binders, i);
            if (!r->detached)
                ZE_ARRAY_AT(&b->binders, binder_rec_t, n++) = *r;
        }
        b->binders.count = n;
        b->has_detached = false;
    }
}

/* --------------------------------------------------------- DeltaTracker */

/* Values live in their own blocks (16-byte aligned, stable while the entry
 * lives), not inside the map, whose slots move on growth. */
typedef struct tracker_entry_t {
    void *value; /* value_size bytes, or NULL when value_size is 0 */
    bool has, dirty, removed;
} tracker_entry_t;

void ze_delta_tracker_init(ze_delta_tracker_t *t, ze_allocator_t alloc, uint32_t value_size)
{
    memset(t, 0, sizeof *t);
    t->alloc = alloc;
    t->value_size = value_size;
    ze_hashmap_init(&t->entries, alloc, sizeof(uint64_t), sizeof(tracker_entry_t));
}

void ze_delta_tracker_free(ze_delta_tracker_t *t)
{
    uint32_t cursor = 0;
    const void *key;
    void *val;
    while (ze_hashmap_next(&t->entries, &cursor, &key, &val)) {
        tracker_entry_t *en = val;
        ze_free(t->alloc, en->value, t->value_size);
    }
    ze_hashmap_free(&t->entries);
}

ze_result ze_delta_tracker_feed(ze_delta_tracker_t *t, const ze_delta_t *d)
{
    if (!t || !d || d->kind < ZE_DELTA_ADDED || d->kind > ZE_DELTA_SNAPSHOT)
        return ZE_ERR_INVALID_ARG;
    tracker_entry_t *en = ze_hashmap_get(&t->entries, &d->entity.id);
    if (!en) {
        if (d->kind == ZE_DELTA_REMOVED)
            return ZE_OK; /* never seen: nothing to forget */
        tracker_entry_t fresh = {0};
        if (t->value_size) {
            fresh.value = ze_alloc(t->alloc, t->value_size, 16);
            if (!fresh.value)
                return ZE_ERR_OUT_OF_MEMORY;
            memset(fresh.value, 0, t->value_size);
        }
        if (ze_hashmap_put(&t->entries, &d->entity.id, &fresh) != ZE_OK) {
            ze_free(t->alloc, fresh.value, t->value_size);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        en = ze_hashmap_get(&t->entries, &d->entity.id);
    }
    en->dirty = true;
    if (d->kind == ZE_DELTA_REMOVED) {
        en->has = false;
        en->removed = true; /* the last value stays readable until clear */
        return ZE_OK;
    }
    en->has = true;
    en->removed = false;
    if (en->value && d->value)
        memcpy(en->value, d->value, t->value_size);
    return ZE_OK;
}

static const tracker_entry_t *tracker_find(const ze_delta_tracker_t *t, ze_entity_t e)
{
    return t ? ze_hashmap_get(&t->entries, &e.id) : NULL;
}

bool ze_delta_tracker_has(const ze_delta_tracker_t *t, ze_entity_t e)
{
    const tracker_entry_t *en = tracker_find(t, e);
    return en && en->has;
}

bool ze_delta_tracker_dirty(const ze_delta_tracker_t *t, ze_entity_t e)
{
    const tracker_entry_t *en = tracker_find(t, e);
    return en && en->dirty;
}

bool ze_delta_tracker_removed(const ze_delta_tracker_t *t, ze_entity_t e)
{
    const tracker_entry_t *en = tracker_find(t, e);
    return en && en->removed;
}

const void *ze_delta_tracker_last(const ze_delta_tracker_t *t, ze_entity_t e)
{
    const tracker_entry_t *en = tracker_find(t, e);
    return en ? en->value : NULL;
}

void ze_delta_tracker_clear(ze_delta_tracker_t *t)
{
    /* Removing during ze_hashmap_next would shift entries under the cursor
     * (backward-shift deletion): collect the removed ids first. */
    ze_array_t gone;
    ZE_ARRAY_INIT(&gone, t->alloc, uint64_t);
    bool all_listed = true;
    uint32_t cursor = 0;
    const void *key;
    void *val;
    while (ze_hashmap_next(&t->entries, &cursor, &key, &val)) {
        tracker_entry_t *en = val;
        en->dirty = false;
        if (en->removed && all_listed && ze_array_push(&gone, key) != ZE_OK)
            all_listed = false;
    }
    for (uint32_t i = 0; i < gone.count; i++) {
        uint64_t id = ZE_ARRAY_AT(&gone, uint64_t, i);
        tracker_entry_t *en = ze_hashmap_get(&t->entries, &id);
        ze_free(t->alloc, en->value, t->value_size);
        ze_hashmap_remove(&t->entries, &id);
    }
    ze_array_free(&gone);
    /* Out of memory for the list: one entry at a time, restarting the walk. */
    for (bool again = !all_listed; again;) {
        again = false;
        cursor = 0;
        while (ze_hashmap_next(&t->entries, &cursor, &key, &val)) {
            tracker_entry_t *en = val;
            if (en->removed) {
                uint64_t id = *(const uint64_t *)key;
                ze_free(t->alloc, en->value, t->value_size);
                ze_hashmap_remove(&t->entries, &id);
                again = true;
                break;
            }
        }
    }
}
