/* The GPU-resident scene: the instance table on the device and the tables
 * the cull pass and the shaders index by handle.
 *
 * The backend's instance table (instance_table.c) lists the slots each
 * apply touched. Each frame those slots take the handles of their new mesh
 * and material override and drop their old ones (a slot holds what its
 * GPU row references, in `refs`), and their rows go to the frame's
 * records, which the scatter pass (vk_pass_scatter.c) writes into the
 * device-local table: the render thread's work is linear in the changes,
 * not in the instances.
 *
 * Handles are dense indices of uuids, held by reference count: a mesh's by
 * the instances drawing it, a material's by the instances overriding it and
 * by the submeshes of every mesh in the table (pinned at each table build,
 * so a submesh material referenced by nobody else still has an index).
 * The tables (materials: index 0 the default, handle h at h + 1; meshes by
 * handle: their range of submeshes; submeshes: index range, vertex offset,
 * material, bounds) are rebuilt on the CPU when a handle was created or
 * freed or a resident asset changed (a mesh uploaded, a texture made
 * resident: materials resolve texture slots), O(handles + submeshes), and
 * copied into each frame slot that lacks them (vk_draws.c).
 *
 * The device table grows to the slots by doubling: the new buffer is
 * filled with ZE_VK_NO_HANDLE rows (nothing drawn) and the old one copied
 * in by the scatter pass, then freed by timeline value. Render thread. */
#include <string.h>

#include "gfx/vk_internal.h"

/* ------------------------------------------------------------ handles */

static void handles_init(ze_vk_handles_t *h, ze_allocator_t alloc)
{
    ze_hashmap_init(&h->ids, alloc, sizeof(ze_uuid_t), sizeof(uint32_t));
    ZE_ARRAY_INIT(&h->entries, alloc, ze_vk_handle_t);
    ZE_ARRAY_INIT(&h->free, alloc, uint32_t);
}

static void handles_fini(ze_vk_handles_t *h)
{
    ze_hashmap_free(&h->ids);
    ze_array_free(&h->entries);
    ze_array_free(&h->free);
}

static ze_vk_handle_t *entry(const ze_vk_handles_t *h, uint32_t i)
{
    return (ze_vk_handle_t *)ze_array_at(&h->entries, i);
}

/* One more reference to uuid's handle (a new one when it has none: the
 * tables must be rebuilt). ZE_VK_NO_HANDLE for nil or out of memory. */
static uint32_t acquire(ze_vk_scene_t *sc, ze_vk_handles_t *h, ze_uuid_t uuid)
{
    if (ze_uuid_is_nil(uuid))
        return ZE_VK_NO_HANDLE;
    uint32_t *id = ze_hashmap_get(&h->ids, &uuid);
    if (id) {
        entry(h, *id)->refs++;
        return *id;
    }
    uint32_t i;
    if (h->free.count) {
        ze_array_pop(&h->free, &i);
    } else {
        i = h->entries.count;
        if (ze_array_resize(&h->entries, i + 1) != ZE_OK)
            return ZE_VK_NO_HANDLE;
    }
    if (ze_hashmap_put(&h->ids, &uuid, &i) != ZE_OK) {
        (void)ze_array_push(&h->free, &i); /* reserved: the slot exists */
        return ZE_VK_NO_HANDLE;
    }
    *entry(h, i) = (ze_vk_handle_t){.uuid = uuid, .refs = 1};
    sc->tables_serial++;
    return i;
}

static void release(ze_vk_scene_t *sc, ze_vk_handles_t *h, uint32_t i)
{
    if (i == ZE_VK_NO_HANDLE)
        return;
    ze_vk_handle_t *e = entry(h, i);
    if (--e->refs)
        return;
    ze_hashmap_remove(&h->ids, &e->uuid);
    e->uuid = (ze_uuid_t){0};
    e->submeshes = 0;
    /* the free list has room for every entry: reserved as entries grow */
    if (ze_array_push(&h->free, &i) != ZE_OK)
        ZE_LOG_ERROR(ZE_VK_LOG, "scene: a freed handle could not be listed");
    sc->tables_serial++;
}

/* -------------------------------------------------------------- create */

ze_result ze__vk_scene_create(ze_vk_backend_t *b)
{
    ze_vk_scene_t *sc = &b->scene;
    memset(sc, 0, sizeof *sc);
    handles_init(&sc->meshes, b->alloc);
    handles_init(&sc->materials, b->alloc);
    ze_mem_table_init(&sc->refs_table, b->desc.mem, ZE_MEM_OWNER_RENDER, sizeof(ze_vk_slot_refs_t));
    ZE_ARRAY_INIT(&sc->pins, b->alloc, uint32_t);
    ZE_ARRAY_INIT(&sc->materials_gpu, b->alloc, ze_vk_gpu_material_t);
    ZE_ARRAY_INIT(&sc->meshes_gpu, b->alloc, ze_vk_gpu_mesh_t);
    ZE_ARRAY_INIT(&sc->submeshes_gpu, b->alloc, ze_vk_gpu_submesh_t);
    sc->tables_serial = 1; /* the default material's table is due */
    sc->created = true;
    return ZE_OK;
}

void ze__vk_scene_destroy(ze_vk_backend_t *b)
{
    ze_vk_scene_t *sc = &b->scene;
    if (!sc->created)
        return;
    sc->created = false;
    ze__vk_buffer_destroy(b, &sc->instances);
    ze__vk_buffer_destroy(b, &sc->grown_from);
    handles_fini(&sc->meshes);
    handles_fini(&sc->materials);
    ze_mem_table_release(&sc->refs_table);
    ze_array_free(&sc->pins);
    ze_array_free(&sc->materials_gpu);
    ze_array_free(&sc->meshes_gpu);
    ze_array_free(&sc->submeshes_gpu);
    sc->refs = NULL;
}

/* ---------------------------------------------------------------- sync */

static ze_result refs_reserve(ze_vk_scene_t *sc, uint32_t slots)
{
    if (slots <= sc->refs_capacity)
        return ZE_OK;
    uint32_t old = sc->refs_capacity;
    ze_result r = ze_mem_table_reserve(&sc->refs_table, slots);
    sc->refs = ze_mem_table_data(&sc->refs_table);
    if (r != ZE_OK)
        return r;
    sc->refs_capacity = sc->refs_table.capacity;
    for (uint32_t i = old; i < sc->refs_capacity; i++)
        sc->refs[i] = (ze_vk_slot_refs_t){ZE_VK_NO_HANDLE, ZE_VK_NO_HANDLE};
    return ZE_OK;
}

static uint32_t submeshes_of(const ze_vk_scene_t *sc, uint32_t mesh)
{
    return mesh == ZE_VK_NO_HANDLE ? 0 : entry(&sc->meshes, mesh)->submeshes;
}

/* A touched slot's references follow its row: the new ones taken before
 * the old ones go, so a handle that stays never drops to 0. */
static void slot_sync(ze_vk_backend_t *b, uint32_t k)
{
    ze_vk_scene_t *sc = &b->scene;
    const ze__instance_table_t *t = &b->base.instances;
    ze_vk_slot_refs_t *r = &sc->refs[k];
    ze_vk_slot_refs_t now = {ZE_VK_NO_HANDLE, ZE_VK_NO_HANDLE};
    if (t->live[k]) {
        const ze_render_instance_t *in = &t->rows[k];
        now.mesh = acquire(sc, &sc->meshes, in->mesh);
        now.material = acquire(sc, &sc->materials, in->material);
    }
    sc->draws += submeshes_of(sc, now.mesh);
    sc->draws -= submeshes_of(sc, r->mesh);
    release(sc, &sc->meshes, r->mesh);
    release(sc, &sc->materials, r->material);
    *r = now;
}

/* The tables from the handles and what is resident now. */
static ze_result tables_build(ze_vk_backend_t *b)
{
    ze_vk_scene_t *sc = &b->scene;
    ze_array_clear(&sc->meshes_gpu);
    ze_array_clear(&sc->submeshes_gpu);
    ze_array_clear(&sc->materials_gpu);
    /* the submeshes' materials: new pins first, the old ones dropped after */
    uint32_t old_pins = sc->pins.count;
    ze_result r = ze_array_resize(&sc->meshes_gpu, sc->meshes.entries.count);
    sc->draws = 0;
    sc->bins = 0;
    for (uint32_t h = 0; h < sc->meshes.entries.count && r == ZE_OK; h++) {
        ze_vk_handle_t *e = entry(&sc->meshes, h);
        ze_vk_gpu_mesh_t *g = ze_array_at(&sc->meshes_gpu, h);
        const ze_vk_mesh_t *m = e->refs ? ze_hashmap_get(&b->meshes, &e->uuid) : NULL;
        g->first_submesh = sc->submeshes_gpu.count;
        e->submeshes = 0;
        for (uint32_t k = 0; m && k < m->submesh_count && r == ZE_OK; k++) {
            const ze_vk_submesh_t *sm = &m->submeshes[k];
            uint32_t mh = acquire(sc, &sc->materials, sm->material);
            if (mh != ZE_VK_NO_HANDLE)
                r = ze_array_push(&sc->pins, &mh);
            ze_vk_gpu_submesh_t gs = {
                .index_count = sm->index_count,
                .first_index = (uint32_t)m->index_first + sm->index_offset,
                .vertex_offset = (int32_t)m->vertex_first,
                .material = mh == ZE_VK_NO_HANDLE ? 0 : mh + 1,
            };
            memcpy(gs.sphere, sm->sphere, sizeof gs.sphere);
            gs.lod[0] = sm->lod_count;
            /* its bins: one per level (level 0 when it has none) */
            gs.lod[1] = sc->bins;
            for (uint32_t l = 0; l < sm->lod_count; l++) {
                gs.levels[l][0] = (uint32_t)m->index_first + sm->lods[l].index_offset;
                gs.levels[l][1] = sm->lods[l].index_count;
                memcpy(&gs.levels[l][2], &sm->lods[l].error, sizeof(float));
            }
            if (r == ZE_OK)
                r = ze_array_push(&sc->submeshes_gpu, &gs);
            if (r == ZE_OK) {
                e->submeshes++;
                sc->bins += sm->lod_count > 1 ? sm->lod_count : 1;
            }
        }
        g->submesh_count = e->submeshes;
        sc->draws += (uint64_t)e->refs * e->submeshes;
    }
    for (uint32_t i = 0; i < old_pins; i++)
        release(sc, &sc->materials, ZE_ARRAY_AT(&sc->pins, uint32_t, i));
    if (old_pins && sc->pins.count >= old_pins) {
        uint32_t keep = sc->pins.count - old_pins;
        memmove(sc->pins.data, ze_array_at(&sc->pins, old_pins), sizeof(uint32_t) * keep);
        sc->pins.count = keep;
    }
    if (r == ZE_OK)
        r = ze_array_resize(&sc->materials_gpu, 1 + sc->materials.entries.count);
    if (r != ZE_OK)
        return r;
    ze_vk_gpu_material_t *mats = sc->materials_gpu.data;
    ze__vk_gpu_material_default(&mats[0]);
    for (uint32_t h = 0; h < sc->materials.entries.count; h++) {
        const ze_vk_handle_t *e = entry(&sc->materials, h);
        const ze_vk_material_t *m = e->refs ? ze_hashmap_get(&b->materials, &e->uuid) : NULL;
        if (m)
            ze__vk_gpu_material(b, &m->m, &mats[1 + h]);
        else
            mats[1 + h] = mats[0]; /* not resident (yet): the default */
    }
    /* the pins' acquires and releases changed the serial: this build is
       of what is there now */
    sc->built_serial = ++sc->tables_serial;
    return ZE_OK;
}

/* The device table at `slots` rows or more: a new buffer, filled with
 * empty rows, the old one's rows copied in at the scatter pass. */
static ze_result instances_reserve(ze_vk_backend_t *b, uint32_t slots)
{
    ze_vk_scene_t *sc = &b->scene;
    if (slots <= sc->instance_capacity && sc->instances.buffer)
        return ZE_OK;
    uint32_t cap = sc->instance_capacity ? sc->instance_capacity : 1024;
    while (cap < slots)
        cap = cap > UINT32_MAX / 2 ? slots : cap * 2;
    ze_vk_buffer_t nb = {0};
    ze_result r =
        ze__vk_buffer_create(b, sizeof(ze_vk_gpu_instance_t) * (VkDeviceSize)cap,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             false, &nb);
    if (r != ZE_OK)
        return r;
    if (sc->grown) /* grown twice before a scatter ran: copy the oldest */
        ze__vk_defer_buffer(b, &sc->instances);
    else
        sc->grown_from = sc->instances;
    sc->instances = nb;
    sc->instance_capacity = cap;
    sc->grown = true;
    return ZE_OK;
}

ze_result ze__vk_scene_sync(ze_vk_backend_t *b)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_vk_scene_t *sc = &b->scene;
    ze__instance_table_t *t = &b->base.instances;
    ze_result r = refs_reserve(sc, t->capacity);
    if (r == ZE_OK)
        r = instances_reserve(b, t->slots);
    if (r != ZE_OK)
        return r;
    if (sc->resync) { /* every row the device table may hold, once more */
        sc->resync = false;
        for (uint32_t k = 0; k < t->capacity && k < sc->instance_capacity; k++)
            if (!t->marked[k]) {
                t->marked[k] = 1;
                t->touched[t->touched_count++] = k;
            }
    }
    for (uint32_t i = 0; i < t->touched_count; i++)
        slot_sync(b, t->touched[i]);
    if (sc->resident_seen != b->resident_serial) {
        sc->resident_seen = b->resident_serial;
        sc->tables_serial++;
    }
    if (sc->built_serial != sc->tables_serial)
        r = tables_build(b);
    return r;
}

uint32_t ze__vk_scene_pending(const ze_vk_backend_t *b)
{
    return b->base.instances.touched_count;
}

static void gpu_row(const ze_render_instance_t *in, const ze_vk_slot_refs_t *r,
                    ze_vk_gpu_instance_t *g)
{
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 4; c++)
            g->rows[row][c] = in->world.m[c][row]; /* column-major */
    g->previous[0] = in->previous_position.x;
    g->previous[1] = in->previous_position.y;
    g->previous[2] = in->previous_position.z;
    g->previous[3] = 0.0f;
    g->mesh = r->mesh;
    g->material = r->material == ZE_VK_NO_HANDLE ? 0 : r->material + 1;
    g->flags = in->flags;
    g->_pad = 0;
}

uint32_t ze__vk_scene_records(ze_vk_backend_t *b, ze_vk_gpu_update_t *out)
{
    ze_vk_scene_t *sc = &b->scene;
    ze__instance_table_t *t = &b->base.instances;
    uint32_t n = t->touched_count;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = t->touched[i];
        ze_vk_gpu_update_t *u = &out[i];
        memset(u, 0, sizeof *u);
        u->slot = k;
        if (t->live[k] && sc->refs[k].mesh != ZE_VK_NO_HANDLE) {
            gpu_row(&t->rows[k], &sc->refs[k], &u->row);
        } else {
            memset(&u->row, 0, sizeof u->row);
            u->row.mesh = ZE_VK_NO_HANDLE;
        }
    }
    ze__instance_table_untouch(t);
    return n;
}
