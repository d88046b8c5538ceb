/* The instance table every backend keeps (backend.h): render proxies as
 * the engine's states create, move and destroy them.
 *
 * Apply grows the arrays to the state's instance_slots first (doubling;
 * on failure nothing is applied), then removes, whole records and
 * transforms, in that order. The table hash is the wrapping sum of the
 * live rows' digests, kept up to date by subtracting a row's digest
 * before it changes and adding it after, so it costs one digest per
 * record, never a walk. A transform for a slot that is not live, or any
 * record for a slot at or above instance_slots, is refused (counted, the
 * first logged): the engine never sends one, so it means a bug upstream.
 * Render thread; the pub_* figures are relaxed atomics for any thread. */
#include <string.h>

#include "gfx/backend.h"

#define LOG_CH "gfx"

uint64_t ze_render_instance_digest(uint64_t id, ze_uuid_t mesh, ze_uuid_t material,
                                   const ze_mat4_t *world)
{
    struct {
        uint64_t id;
        ze_uuid_t mesh, material;
        ze_mat4_t world;
    } k;
    memset(&k, 0, sizeof k);
    k.id = id;
    k.mesh = mesh;
    k.material = material;
    k.world = *world;
    return ze_hash64(&k, sizeof k, 0x7a656e67696e6531ull);
}

ze_mat4_t ze_render_instance_matrix(const ze_render_instance_t *in, float alpha)
{
    ze_mat4_t m = in->world;
    if (in->flags & ZE_RENDER_INSTANCE_INTERPOLATE) {
        ze_vec3_t p = ze_vec3_lerp(in->previous_position,
                                   (ze_vec3_t){m.m[3][0], m.m[3][1], m.m[3][2]}, alpha);
        m.m[3][0] = p.x;
        m.m[3][1] = p.y;
        m.m[3][2] = p.z;
    }
    return m;
}

static uint64_t row_digest(const ze_render_instance_t *r)
{
    return ze_render_instance_digest(r->id, r->mesh, r->material, &r->world);
}

void ze__instance_table_init(ze__instance_table_t *t, ze_mem_t *mm)
{
    memset(t, 0, sizeof *t);
    ze_mem_table_init(&t->row_table, mm, ZE_MEM_OWNER_RENDER, sizeof(ze_render_instance_t));
    ze_mem_table_init(&t->live_table, mm, ZE_MEM_OWNER_RENDER, 1);
    ze_mem_table_init(&t->touched_table, mm, ZE_MEM_OWNER_RENDER, sizeof(uint32_t));
    ze_mem_table_init(&t->marked_table, mm, ZE_MEM_OWNER_RENDER, 1);
}

void ze__instance_table_track(ze__instance_table_t *t)
{
    t->track = true;
}

void ze__instance_table_untouch(ze__instance_table_t *t)
{
    for (uint32_t i = 0; i < t->touched_count; i++)
        t->marked[t->touched[i]] = 0;
    t->touched_count = 0;
}

/* Each slot at most once: the list never outgrows the capacity. */
static inline void touch(ze__instance_table_t *t, uint32_t k)
{
    if (t->track && !t->marked[k]) {
        t->marked[k] = 1;
        t->touched[t->touched_count++] = k;
    }
}

void ze__instance_table_free(ze__instance_table_t *t)
{
    ze_mem_table_release(&t->row_table);
    ze_mem_table_release(&t->live_table);
    ze_mem_table_release(&t->touched_table);
    ze_mem_table_release(&t->marked_table);
    t->rows = NULL;
    t->live = NULL;
    t->touched = NULL;
    t->marked = NULL;
    t->touched_count = 0;
    t->capacity = t->slots = t->live_count = 0;
}

/* Every table at `slots` or more (a failure keeps what grew: capacity is
 * the smallest, and the tables' contents stay valid). */
static ze_result grow(ze__instance_table_t *t, uint32_t slots)
{
    if (slots <= t->capacity)
        return ZE_OK;
    ze_result r = ze_mem_table_reserve(&t->row_table, slots);
    if (r == ZE_OK)
        r = ze_mem_table_reserve(&t->live_table, slots);
    if (r == ZE_OK && t->track)
        r = ze_mem_table_reserve(&t->touched_table, slots);
    if (r == ZE_OK && t->track)
        r = ze_mem_table_reserve(&t->marked_table, slots);
    t->rows = ze_mem_table_data(&t->row_table);
    t->live = ze_mem_table_data(&t->live_table);
    t->touched = ze_mem_table_data(&t->touched_table);
    t->marked = ze_mem_table_data(&t->marked_table);
    if (r != ZE_OK)
        return r;
    uint32_t cap = t->row_table.capacity;
    if (t->live_table.capacity < cap)
        cap = t->live_table.capacity;
    if (t->track && t->touched_table.capacity < cap)
        cap = t->touched_table.capacity;
    if (t->track && t->marked_table.capacity < cap)
        cap = t->marked_table.capacity;
    t->capacity = cap;
    return ZE_OK;
}

static void refuse(ze__instance_table_t *t, const char *what, uint32_t slot, uint32_t slots,
                   uint64_t *refused)
{
    (*refused)++;
    if (!t->refused_logged) {
        t->refused_logged = true;
        ZE_LOG_ERROR(LOG_CH, "instance table: %s for slot %u refused (%u slots, %u live)", what,
                     slot, slots, t->live_count);
    }
}

ze_result ze__instance_table_apply(ze__instance_table_t *t, const ze_render_state_t *s)
{
    if (s->delta_serial && s->delta_serial == t->applied_serial)
        return ZE_OK;
    ze_result r = grow(t, s->instance_slots);
    if (r != ZE_OK)
        return r;
    uint64_t refused = 0;
    uint32_t slots = s->instance_slots;
    for (uint32_t i = 0; i < s->instance_remove_count; i++) {
        uint32_t k = s->instance_removes[i];
        if (k >= slots) {
            refuse(t, "a remove", k, slots, &refused);
            continue;
        }
        if (t->live[k]) {
            t->hash -= row_digest(&t->rows[k]);
            t->live[k] = 0;
            t->live_count--;
            touch(t, k);
        }
    }
    for (uint32_t i = 0; i < s->instance_update_count; i++) {
        const ze_render_instance_t *in = &s->instance_updates[i];
        uint32_t k = in->slot;
        if (k >= slots) {
            refuse(t, "a record", k, slots, &refused);
            continue;
        }
        if (t->live[k])
            t->hash -= row_digest(&t->rows[k]);
        else
            t->live_count++;
        t->rows[k] = *in;
        t->live[k] = 1;
        t->hash += row_digest(in);
        touch(t, k);
    }
    for (uint32_t i = 0; i < s->transform_update_count; i++) {
        const ze_render_transform_t *tr = &s->transform_updates[i];
        uint32_t k = tr->slot;
        if (k >= slots || !t->live[k]) {
            refuse(t, "a transform", k, slots, &refused);
            continue;
        }
        ze_render_instance_t *row = &t->rows[k];
        t->hash -= row_digest(row);
        row->world = tr->world;
        row->previous_position = tr->previous_position;
        row->flags = tr->flags;
        t->hash += row_digest(row);
        touch(t, k);
    }
    /* Slots above the engine's high-water mark are free there: drop any
       row they still hold (a table shrunk by a scene change). */
    for (uint32_t k = slots; k < t->slots; k++) {
        if (t->live[k]) {
            t->hash -= row_digest(&t->rows[k]);
            t->live[k] = 0;
            t->live_count--;
            touch(t, k);
        }
    }
    t->slots = slots;
    t->applied_serial = s->delta_serial;
    if (!s->instances_pending) {
        t->drawn_revision = s->scene_revision;
        t->drawn_any = true;
    }
    uint32_t records =
        s->instance_update_count + s->transform_update_count + s->instance_remove_count;
    atomic_store_explicit(&t->pub_live, t->live_count, memory_order_relaxed);
    atomic_store_explicit(&t->pub_last_records, records, memory_order_relaxed);
    atomic_store_explicit(&t->pub_hash, t->hash, memory_order_relaxed);
    atomic_store_explicit(&t->pub_records,
                          atomic_load_explicit(&t->pub_records, memory_order_relaxed) + records,
                          memory_order_relaxed);
    atomic_store_explicit(&t->pub_states,
                          atomic_load_explicit(&t->pub_states, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (refused)
        atomic_store_explicit(&t->pub_refused,
                              atomic_load_explicit(&t->pub_refused, memory_order_relaxed) + refused,
                              memory_order_relaxed);
    return ZE_OK;
}

bool ze__instance_table_drawable(const ze__instance_table_t *t, const ze_render_state_t *s)
{
    return !s->instances_pending || (t->drawn_any && t->drawn_revision == s->scene_revision);
}

void ze__instance_table_stats(const ze__instance_table_t *t, ze_render_stats_t *out)
{
    ze__instance_table_t *m = (ze__instance_table_t *)t; /* atomics: loads only */
    out->instances_live = (uint32_t)atomic_load_explicit(&m->pub_live, memory_order_relaxed);
    out->instance_table_hash = atomic_load_explicit(&m->pub_hash, memory_order_relaxed);
    out->last_instance_records =
        (uint32_t)atomic_load_explicit(&m->pub_last_records, memory_order_relaxed);
    out->instance_records = atomic_load_explicit(&m->pub_records, memory_order_relaxed);
    out->instance_states = atomic_load_explicit(&m->pub_states, memory_order_relaxed);
    out->instance_records_refused = atomic_load_explicit(&m->pub_refused, memory_order_relaxed);
}
