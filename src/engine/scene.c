/* Scenes, render proxies and the assets they need (main thread).
 *
 * Binding rule: every Mesh component has a render-instance id, stable while
 * its entity keeps the component. Ids are assigned by a reconciliation pass
 * (ze__scene_reconcile) that runs after a scene load and on every main-loop
 * iteration before the snapshot is built, so entities created or destroyed
 * by any means (scene load, game code, commands) are covered: a Mesh whose
 * id is unset, unknown, or bound to another entity (a copied component)
 * gets a fresh id from the free list; a proxy the pass did not see (its
 * entity lost the Mesh or died) is released and its id reused. The pass
 * costs one walk over the Mesh components and one over the proxies.
 *
 * Asset references: each distinct mesh uuid (and Material override) in use
 * holds one reference in the AssetManager, taken when the first instance
 * needs it and dropped with the last. When a mesh is loaded, its submeshes'
 * materials are referenced too, and a material's textures: the backend gets
 * them all through on_asset_ready. A uuid the registry does not know yet
 * (its source is not imported) waits in the table and is retried each
 * iteration. Assets reach the backend only through the manager's
 * on_asset_ready; when the backend's pending queue is full, the uuid is
 * kept and sent again next iteration with the data the manager holds.
 *
 * Unload: a resource whose last user goes is not released at once. It
 * waits (refs 0, release_at = the serial of the next state, the one that
 * carries its instances' removes) until the render thread has applied
 * every proxy change up to that state: then its manager reference is
 * dropped, the manager's on_asset_released reaches the backend, and the
 * backend frees the GPU resources behind the frames still in flight. So
 * no frame draws an instance whose mesh or textures were freed, and a
 * scene replace that uses an asset again (the same crate in the next
 * level) takes it back while it waits, with no release and no upload. */
#include <string.h>

#include "engine/engine_internal.h"

/* ------------------------------------------------------------ resources */

static ze__resource_t *res_find(ze_engine_t *e, ze_uuid_t u)
{
    ze__resource_t **r = ze_hashmap_get(&e->resources, &u);
    return r ? *r : NULL;
}

static void res_try_acquire(ze_engine_t *e, ze__resource_t *r)
{
    if (r->acquired || r->failed || !e->assets)
        return;
    ze_result rc = ze_asset_acquire(e->assets, r->uuid);
    if (rc == ZE_OK) {
        r->acquired = true;
        e->unacquired--;
        /* Already in memory (another user loaded it): no on_asset_ready
           will come, so take its children now. */
        if (ze_asset_get(e->assets, r->uuid))
            (void)ze_array_push(&e->ready, &r->uuid);
    } else if (rc != ZE_ERR_NOT_FOUND) {
        char s[ZE_UUID_STRING_LEN + 1];
        ze_uuid_format(r->uuid, s);
        ZE_LOG_WARN(ZE__ENGINE_LOG, "asset %s cannot be used: %s", s, ze_result_str(rc));
        r->failed = true;
        e->unacquired--;
    }
}

static void res_unref(ze_engine_t *e, ze_uuid_t u);

static ze_result res_ref(ze_engine_t *e, ze_uuid_t u);

static void res_set_children(ze_engine_t *e, ze__resource_t *r, const ze_uuid_t *kids, uint32_t n);

static ze_result res_ref(ze_engine_t *e, ze_uuid_t u)
{
    if (ze_uuid_is_nil(u))
        return ZE_OK;
    ze__resource_t *r = res_find(e, u);
    if (!r) {
        r = ZE_NEW(e->alloc, ze__resource_t);
        if (!r)
            return ZE_ERR_OUT_OF_MEMORY;
        memset(r, 0, sizeof *r);
        r->uuid = u;
        if (ze_hashmap_put(&e->resources, &u, &r) != ZE_OK) {
            ze_free(e->alloc, r, sizeof *r);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        e->unacquired++;
    }
    if (r->refs++ == 0) {
        if (r->release_at) { /* taken back while it waited */
            r->release_at = 0;
            e->releasing--;
        }
        res_try_acquire(e, r);
    }
    return ZE_OK;
}

static void res_unref(ze_engine_t *e, ze_uuid_t u)
{
    if (ze_uuid_is_nil(u))
        return;
    ze__resource_t *r = res_find(e, u);
    if (!r || --r->refs > 0)
        return;
    r->release_at = e->delta_serial + 1;
    e->releasing++;
}

/* The release itself (see the rule at the top). */
static void res_drop(ze_engine_t *e, ze__resource_t *r)
{
    ze_uuid_t u = r->uuid;
    e->releasing--;
    ze_hashmap_remove(&e->resources, &u);
    res_set_children(e, r, NULL, 0);
    if (r->acquired)
        (void)ze_asset_release(e->assets, u);
    else if (!r->failed)
        e->unacquired--;
    ze_free(e->alloc, r, sizeof *r);
}

/* Replace the children of r (reference the new ones before dropping the
 * old, so shared children stay loaded). */
static void res_set_children(ze_engine_t *e, ze__resource_t *r, const ze_uuid_t *kids, uint32_t n)
{
    ze_uuid_t *old = r->children;
    uint32_t old_n = r->child_count;
    r->children = NULL;
    r->child_count = 0;
    if (n) {
        r->children = ZE_NEW_ARRAY(e->alloc, ze_uuid_t, n);
        if (r->children) {
            memcpy(r->children, kids, sizeof *kids * n);
            r->child_count = n;
            for (uint32_t i = 0; i < n; i++)
                if (res_ref(e, kids[i]) != ZE_OK)
                    r->children[i] = (ze_uuid_t){{0}};
        }
    }
    for (uint32_t i = 0; i < old_n; i++)
        res_unref(e, old[i]);
    ze_free(e->alloc, old, sizeof *old * old_n);
}

/* The uuids a loaded asset needs: a mesh's submesh materials, a material's
 * textures (each once). */
static uint32_t children_of(const ze_asset_data_t *d, ze_uuid_t *out, uint32_t max)
{
    uint32_t n = 0;
#define ADD(u)                                        \
    do {                                              \
        ze_uuid_t u_ = (u);                           \
        bool seen_ = ze_uuid_is_nil(u_);              \
        for (uint32_t k_ = 0; k_ < n && !seen_; k_++) \
            seen_ = ze_uuid_eq(out[k_], u_);          \
        if (!seen_ && n < max)                        \
            out[n++] = u_;                            \
    } while (0)
    if (d->type == ZE_ASSET_TYPE_MESH) {
        for (uint32_t i = 0; i < d->as.mesh.submesh_count; i++) {
            ze_zemesh_submesh_t sm;
            ze_asset_zemesh_submesh(&d->as.mesh, i, &sm);
            ADD(sm.material);
        }
    } else if (d->type == ZE_ASSET_TYPE_MATERIAL) {
        const ze_zematerial_t *m = &d->as.material;
        const ze_zematerial_texture_t *t[] = {&m->base_color, &m->metallic_roughness, &m->normal,
                                              &m->occlusion, &m->emissive};
        for (uint32_t i = 0; i < ZE_COUNTOF(t); i++)
            if (t[i]->present)
                ADD(t[i]->texture);
    }
#undef ADD
    return n;
}

static ze__render_proxy_t *proxy_at(ze_engine_t *e, uint32_t slot);

static void uuid_list_remove(ze_array_t *a, ze_uuid_t u)
{
    for (uint32_t i = 0; i < a->count; i++)
        if (ze_uuid_eq(ZE_ARRAY_AT(a, ze_uuid_t, i), u)) {
            ze_array_remove_ordered(a, i);
            return;
        }
}

static void uuid_list_add(ze_array_t *a, ze_uuid_t u)
{
    for (uint32_t i = 0; i < a->count; i++)
        if (ze_uuid_eq(ZE_ARRAY_AT(a, ze_uuid_t, i), u))
            return;
    (void)ze_array_push(a, &u);
}

void ze__scene_on_asset_released(void *user, ze_uuid_t uuid, ze_asset_type type)
{
    ze_engine_t *e = user;
    (void)type;
    if (!e->render_resources || !e->backend)
        return;
    uuid_list_remove(&e->backend_retry, uuid); /* not to be uploaded after all */
    if (ze_render_backend_asset_release(e->backend, uuid) == ZE_ERR_FULL)
        uuid_list_add(&e->release_retry, uuid);
}

/* The newest proxy-change serial the render thread has all of: every
 * change up to the oldest one still queued (the queue is in change
 * order; what left it was delivered). */
static uint64_t delivered_through(ze_engine_t *e)
{
    if (!e->render_resources || !e->backend || e->proxy_queue.count == 0)
        return UINT64_MAX;
    return proxy_at(e, e->proxy_queue.head)->changed_at - 1;
}

void ze__scene_release_due(ze_engine_t *e)
{
    /* releases the backend refused (its queue was full), in order */
    while (e->release_retry.count) {
        ze_uuid_t u = ZE_ARRAY_AT(&e->release_retry, ze_uuid_t, 0);
        if (e->backend && ze_render_backend_asset_release(e->backend, u) == ZE_ERR_FULL)
            break;
        ze_array_remove_ordered(&e->release_retry, 0);
    }
    /* a parent's release makes its children due: a few rounds */
    for (int round = 0; round < 4 && e->releasing; round++) {
        uint64_t through = delivered_through(e);
        ze_uuid_t due[64];
        uint32_t n = 0;
        uint32_t cursor = 0;
        const void *k;
        void *v;
        while (n < ZE_COUNTOF(due) && ze_hashmap_next(&e->resources, &cursor, &k, &v)) {
            const ze__resource_t *r = *(ze__resource_t **)v;
            if (r->refs == 0 && r->release_at && r->release_at <= through)
                due[n++] = r->uuid;
        }
        if (!n)
            break;
        for (uint32_t i = 0; i < n; i++) {
            ze__resource_t *r = res_find(e, due[i]);
            if (r && r->refs == 0 && r->release_at)
                res_drop(e, r);
        }
    }
}

void ze__scene_on_asset_ready(void *user, const ze_asset_data_t *data)
{
    ze_engine_t *e = user;
    uuid_list_remove(&e->release_retry, data->uuid); /* it is wanted again */
    ze_result br =
        e->render_resources && e->backend ? ze_render_backend_asset_ready(e->backend, data) : ZE_OK;
    if (br == ZE_ERR_FULL) {
        uuid_list_add(&e->backend_retry, data->uuid);
    } else if (br == ZE_ERR_LIMIT) {
        /* over a geometry budget: the backend logged the sizes; the run
           counts it as an error, naming the asset */
        char ref[ZE_ASSET_REF_MAX];
        if (!ze_engine_asset_ref(e, data->uuid, ref, sizeof ref))
            ze_uuid_format(data->uuid, ref);
        ze_diag(&e->diag, ZE_LOG_ERROR, ZE_ERR_LIMIT, "engine", ref,
                "%s not uploaded: over a geometry budget (project.json renderer settings)",
                ze_asset_type_name(data->type));
    }
    /* Children are referenced after the manager's tick: acquiring from
       inside its callback would change the manager under its feet. */
    (void)ze_array_push(&e->ready, &data->uuid);
}

void ze__scene_after_tick(ze_engine_t *e)
{
    /* Resources the registry did not know: maybe it does now. */
    if (e->unacquired) {
        uint32_t cursor = 0;
        const void *k;
        void *v;
        while (ze_hashmap_next(&e->resources, &cursor, &k, &v))
            res_try_acquire(e, *(ze__resource_t **)v);
    }
    /* Loaded (or reloaded) assets we hold: take their children. New
       entries may be appended while this runs; they are handled too. */
    for (uint32_t i = 0; i < e->ready.count; i++) {
        ze_uuid_t u = ZE_ARRAY_AT(&e->ready, ze_uuid_t, i);
        ze__resource_t *r = res_find(e, u);
        const ze_asset_data_t *d = r && r->acquired ? ze_asset_get(e->assets, u) : NULL;
        if (!d || (r->generation == d->generation && r->generation))
            continue;
        r->generation = d->generation;
        ze_uuid_t kids[64];
        uint32_t n = children_of(d, kids, ZE_COUNTOF(kids));
        res_set_children(e, r, kids, n);
    }
    ze_array_clear(&e->ready);
}

void ze__scene_release_assets(ze_engine_t *e)
{
    uint32_t cursor = 0;
    const void *k;
    void *v;
    while (ze_hashmap_next(&e->resources, &cursor, &k, &v)) {
        ze__resource_t *r = *(ze__resource_t **)v;
        if (r->acquired && e->assets)
            (void)ze_asset_release(e->assets, r->uuid);
        if (r->acquired || !r->failed) {
            r->acquired = false;
            r->failed = true; /* never again: the manager is going */
        }
    }
    e->unacquired = 0;
    ze_array_clear(&e->ready);
    ze_array_clear(&e->backend_retry);
    ze_array_clear(&e->release_retry);
}

/* An entity of the scene that references `u` as its mesh or material, and
 * how many do: for the report. */
static ze_entity_t user_of(ze_engine_t *e, ze_uuid_t u, uint32_t *count)
{
    ze_entity_t first = {0};
    *count = 0;
    const ze__render_proxy_t *proxies = ze_mem_table_data(&e->proxy_table);
    for (uint32_t id = 0; id < e->proxy_count; id++) {
        const ze__render_proxy_t *p = &proxies[id];
        if (p->live && (ze_uuid_eq(p->mesh, u) || ze_uuid_eq(p->material, u)) && !(*count)++)
            first = p->entity;
    }
    return first;
}

bool ze__scene_check_assets(ze_engine_t *e, uint32_t *unresolved, uint32_t *failed)
{
    *unresolved = 0;
    *failed = 0;
    if (!e->assets || !e->imports || !ze_import_coordinator_idle(e->imports) ||
        ze_asset_manager_stats(e->assets).pending > 0)
        return false;
    uint32_t cursor = 0;
    const void *k;
    void *v;
    while (ze_hashmap_next(&e->resources, &cursor, &k, &v)) {
        ze__resource_t *r = *(ze__resource_t **)v;
        ze_asset_info_t info;
        bool known = ze_asset_registry_get(e->registry, r->uuid, &info);
        bool is_failed = r->failed || (known && info.state == ZE_ASSET_STATE_FAILED);
        bool is_unresolved = !r->acquired && !r->failed && !known;
        if (!is_failed && !is_unresolved)
            continue;
        if (is_failed)
            (*failed)++;
        else
            (*unresolved)++;
        if (r->reported)
            continue;
        r->reported = true;
        char us[ZE_UUID_STRING_LEN + 1];
        ze_uuid_format(r->uuid, us);
        uint32_t n = 0;
        ze_entity_t ent = user_of(e, r->uuid, &n);
        const ze_name_t *name = n ? ze_get(e->world, ent, ze_name_t) : NULL;
        char who[200];
        if (n == 1)
            snprintf(who, sizeof who, "entity '%.64s'", name ? name->value : "(unnamed)");
        else if (n > 1)
            snprintf(who, sizeof who, "entity '%.64s' and %u more",
                     name ? name->value : "(unnamed)", n - 1);
        else
            snprintf(who, sizeof who, "a loaded mesh or material");
        char ref[ZE_ASSET_REF_MAX], why[600];
        if (is_unresolved && ze__asset_refs_name_of(e, r->uuid, ref, sizeof ref)) {
            ze__asset_refs_why(e, ref, why, sizeof why);
            ze_diag(&e->diag, ZE_LOG_ERROR, ZE_ERR_NOT_FOUND, "engine", ref,
                    "asset reference of %s does not resolve: %s", who, why);
        } else if (is_unresolved)
            ze_diag(&e->diag, ZE_LOG_ERROR, ZE_ERR_NOT_FOUND, "engine", us,
                    "asset referenced by %s is provided by no imported source (is its model in an "
                    "asset folder of project.json, with its .meta? a reference by path, "
                    "\"/models/crate.gltf#mesh/0\", does not need the .meta)",
                    who);
        else
            ze_diag(&e->diag, ZE_LOG_ERROR, ZE_ERR_IO, "engine", known ? info.path : us,
                    "asset used by %s failed: %s", who,
                    known && info.reason && info.reason[0] ? info.reason : "(see above)");
    }
    return true;
}

/* -------------------------------------------------------- render proxies */

static void on_mesh_delta(ze_world_t *w, const ze_delta_t *d, void *user);
static void on_material_delta(ze_world_t *w, const ze_delta_t *d, void *user);

ze_result ze__scene_init(ze_engine_t *e)
{
    ze_allocator_t render = ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_RENDER);
    ze_mem_table_init(&e->proxy_table, e->mem, ZE_MEM_OWNER_RENDER, sizeof(ze__render_proxy_t));
    ze_mem_table_init(&e->slot_table, e->mem, ZE_MEM_OWNER_RENDER, sizeof(uint32_t));
    e->proxy_count = 0;
    ZE_ARRAY_INIT(&e->free_ids, render, uint32_t);
    e->proxy_queue =
        (ze__proxy_queue_t){.head = ZE_RENDER_INSTANCE_NONE, .tail = ZE_RENDER_INSTANCE_NONE};
    ZE_ARRAY_INIT(&e->ready, e->alloc, ze_uuid_t);
    ZE_ARRAY_INIT(&e->backend_retry, e->alloc, ze_uuid_t);
    ZE_ARRAY_INIT(&e->release_retry, e->alloc, ze_uuid_t);
    e->releasing = 0;
    e->instance_budget_logged = false;
    ze_hashmap_init(&e->resources, e->alloc, sizeof(ze_uuid_t), sizeof(ze__resource_t *));
    e->unacquired = 0;
    e->proxies_live = 0;
    e->proxy_resync = false;
    e->proxy_error = ZE_OK;
    e->sync_version = 0;
    e->delta_serial = 0;
    atomic_store(&e->render_consumed, 0);
    /* Mesh alone in `with` (Transform optional): the engine never creates
       a pack that could clash with the application's groups. It writes
       nothing: a walk must not count as a change. */
    e->mesh_query = ze_query_create(
        e->world, &(ze_query_desc_t){.with = ZE_MASK(ze_mesh_t),
                                     .optional = ZE_MASK(ze_transform_t, ze_material_t)});
    /* Mesh before Material: a new entity's Mesh binds before its
       Material override is looked at (binders run in attach order). */
    e->mesh_binder = ze_binder_attach_type(e->world, ZE_ID(ze_mesh_t), on_mesh_delta, e);
    e->material_binder =
        ze_binder_attach_type(e->world, ZE_ID(ze_material_t), on_material_delta, e);
    ze_result r = ZE_OK;
    if (!e->mesh_query.id || !e->mesh_binder.id || !e->material_binder.id ||
        ze_array_reserve(&e->ready, 64) != ZE_OK ||
        ze_array_reserve(&e->backend_retry, 16) != ZE_OK)
        r = ZE_ERR_OUT_OF_MEMORY;
    if (r != ZE_OK)
        ze__scene_fini(e);
    return r;
}

void ze__scene_fini(ze_engine_t *e)
{
    uint32_t cursor = 0;
    const void *k;
    void *v;
    while (ze_hashmap_next(&e->resources, &cursor, &k, &v)) {
        ze__resource_t *r = *(ze__resource_t **)v;
        ze_free(e->alloc, r->children, sizeof *r->children * r->child_count);
        ze_free(e->alloc, r, sizeof *r);
    }
    ze_hashmap_free(&e->resources);
    if (e->world && e->mesh_binder.id)
        (void)ze_binder_detach(e->world, e->mesh_binder);
    if (e->world && e->material_binder.id)
        (void)ze_binder_detach(e->world, e->material_binder);
    e->mesh_binder = e->material_binder = (ze_binder_t){0};
    ze_mem_table_release(&e->proxy_table);
    ze_mem_table_release(&e->slot_table);
    e->proxy_count = 0;
    ze_array_free(&e->free_ids);
    e->proxy_queue =
        (ze__proxy_queue_t){.head = ZE_RENDER_INSTANCE_NONE, .tail = ZE_RENDER_INSTANCE_NONE};
    ze_array_free(&e->ready);
    ze_array_free(&e->backend_retry);
    ze_array_free(&e->release_retry);
    e->unacquired = 0;
    e->releasing = 0;
    e->proxies_live = 0;
}

static void proxy_fail(ze_engine_t *e, ze_result r)
{
    if (e->proxy_error == ZE_OK)
        e->proxy_error = r;
}

static ze__render_proxy_t *proxy_at(ze_engine_t *e, uint32_t slot)
{
    return &((ze__render_proxy_t *)ze_mem_table_data(&e->proxy_table))[slot];
}

/* A change that alters the instance set (a create, re-mesh, re-material
 * or destroy): until every such one has been carried, a state says
 * instances_pending. Transforms alone never hold a frame back. */
static bool proxy_structural(const ze__render_proxy_t *p)
{
    return (p->changes & (ZE__PROXY_WHOLE | ZE__PROXY_DESTROY)) != 0;
}

void ze__proxy_queue_unlink(ze_engine_t *e, uint32_t slot)
{
    ze__proxy_queue_t *q = &e->proxy_queue;
    ze__render_proxy_t *p = proxy_at(e, slot);
    if (p->q_prev != ZE_RENDER_INSTANCE_NONE)
        proxy_at(e, p->q_prev)->q_next = p->q_next;
    else
        q->head = p->q_next;
    if (p->q_next != ZE_RENDER_INSTANCE_NONE)
        proxy_at(e, p->q_next)->q_prev = p->q_prev;
    else
        q->tail = p->q_prev;
    p->q_prev = p->q_next = ZE_RENDER_INSTANCE_NONE;
    p->queued = false;
    q->count--;
    if (proxy_structural(p))
        q->structural--;
}

/* Join the tail (its change is the newest queued), not carried yet. */
void ze__proxy_queue_append(ze_engine_t *e, uint32_t slot)
{
    ze__proxy_queue_t *q = &e->proxy_queue;
    ze__render_proxy_t *p = proxy_at(e, slot);
    p->changed_at = e->delta_serial + 1;
    p->carried_at = 0;
    p->q_prev = q->tail;
    p->q_next = ZE_RENDER_INSTANCE_NONE;
    if (q->tail != ZE_RENDER_INSTANCE_NONE)
        proxy_at(e, q->tail)->q_next = slot;
    else
        q->head = slot;
    q->tail = slot;
    q->count++;
    if (proxy_structural(p))
        q->structural++;
    p->queued = true;
}

/* Note a change. A queued proxy keeps its place: every state carries the
 * queue's head, so one carried stays in every later state until the
 * render thread has it (sync.c), and one not carried yet is not pushed
 * back by those that change again. */
static void proxy_mark(ze_engine_t *e, uint32_t slot, uint8_t what)
{
    ze__render_proxy_t *p = proxy_at(e, slot);
    bool was_structural = proxy_structural(p);
    p->changes |= what;
    p->last_change = e->delta_serial + 1;
    if (what & (ZE__PROXY_WHOLE | ZE__PROXY_DESTROY))
        p->structural_at = p->last_change;
    if (!p->queued)
        ze__proxy_queue_append(e, slot);
    else if (!was_structural && proxy_structural(p))
        e->proxy_queue.structural++;
}

/* The entity index's slot (NONE: none); `grow`: room for it first. */
static uint32_t slot_get(ze_engine_t *e, uint32_t index)
{
    if (index >= e->slot_table.capacity)
        return ZE_RENDER_INSTANCE_NONE;
    return ((const uint32_t *)ze_mem_table_data(&e->slot_table))[index] - 1u;
}

static ze_result slot_put(ze_engine_t *e, uint32_t index, uint32_t slot)
{
    ze_result r = ze_mem_table_reserve(&e->slot_table, index + 1);
    if (r != ZE_OK)
        return r;
    ((uint32_t *)ze_mem_table_data(&e->slot_table))[index] = slot + 1u;
    return ZE_OK;
}

static ze_result slot_new(ze_engine_t *e, uint32_t *out)
{
    uint32_t i;
    if (!ze_array_pop(&e->free_ids, &i)) {
        uint32_t budget = e->project.renderer.instance_budget ? e->project.renderer.instance_budget
                                                              : ZE_RENDER_DEFAULT_INSTANCE_BUDGET;
        if (e->proxy_count >= budget || e->proxy_count >= ZE_RENDER_MAX_INSTANCE_SLOTS) {
            if (!e->instance_budget_logged)
                ze_diag(&e->diag, ZE_LOG_ERROR, ZE_ERR_LIMIT, "engine", "renderer",
                        "instance budget exceeded: %u instances use every slot of the budget "
                        "(renderer.instance_budget = %u); more Mesh entities get no render "
                        "instance",
                        e->proxy_count, budget);
            e->instance_budget_logged = true;
            return ZE_ERR_LIMIT;
        }
        i = e->proxy_count;
        ze_result r = ze_mem_table_reserve(&e->proxy_table, i + 1);
        if (r != ZE_OK)
            return r;
        e->proxy_count++;
        ze__render_proxy_t *p = proxy_at(e, i);
        memset(p, 0, sizeof *p);
        p->q_prev = p->q_next = ZE_RENDER_INSTANCE_NONE;
    }
    *out = i;
    return ZE_OK;
}

static void proxy_set_material(ze_engine_t *e, ze__render_proxy_t *p, ze_uuid_t want)
{
    if (ze_uuid_eq(p->material, want))
        return;
    ze_uuid_t old = p->material;
    p->material = res_ref(e, want) == ZE_OK ? want : (ze_uuid_t){{0}};
    res_unref(e, old);
}

static void proxy_unbind(ze_engine_t *e, ze_entity_t ent)
{
    uint32_t slot = slot_get(e, ze_entity_index(ent));
    if (slot == ZE_RENDER_INSTANCE_NONE)
        return;
    ze__render_proxy_t *p = proxy_at(e, slot);
    if (!p->live || !ze_entity_eq(p->entity, ent))
        return;                                                       /* gone already */
    (void)slot_put(e, ze_entity_index(ent), ZE_RENDER_INSTANCE_NONE); /* in range: no grow */
    res_unref(e, p->mesh);
    res_unref(e, p->material);
    p->mesh = p->material = (ze_uuid_t){{0}};
    p->live = false;
    p->entity = ZE_ENTITY_NULL;
    e->proxies_live--;
    proxy_mark(e, slot, ZE__PROXY_DESTROY);
    if (ze_array_push(&e->free_ids, &slot) != ZE_OK)
        proxy_fail(e, ZE_ERR_OUT_OF_MEMORY); /* the slot is lost, nothing else */
}

/* An entity has (or changed) its Mesh: bind it to a slot, or update it. */
static void proxy_bind(ze_engine_t *e, ze_entity_t ent, const ze_mesh_t *m)
{
    ze_world_t *w = e->world;
    uint32_t slot = slot_get(e, ze_entity_index(ent));
    ze__render_proxy_t *p = slot != ZE_RENDER_INSTANCE_NONE ? proxy_at(e, slot) : NULL;
    if (p && p->live && ze_entity_eq(p->entity, ent)) {
        if (!ze_uuid_eq(p->mesh, m->mesh)) {
            ze_uuid_t old = p->mesh;
            p->mesh = res_ref(e, m->mesh) == ZE_OK ? m->mesh : (ze_uuid_t){{0}};
            res_unref(e, old);
            proxy_mark(e, slot, ZE__PROXY_MESH);
        }
        return;
    }
    ze_result r = slot_new(e, &slot);
    if (r == ZE_OK) {
        r = slot_put(e, ze_entity_index(ent), slot);
        if (r != ZE_OK)
            (void)ze_array_push(&e->free_ids, &slot); /* reserved above */
    }
    if (r != ZE_OK) {
        proxy_fail(e, r);
        return;
    }
    p = proxy_at(e, slot);
    p->entity = ent;
    p->live = true;
    p->mesh = res_ref(e, m->mesh) == ZE_OK ? m->mesh : (ze_uuid_t){{0}};
    const ze_material_t *mat = ze_get(w, ent, ze_material_t);
    p->material = (ze_uuid_t){{0}};
    proxy_set_material(e, p, mat ? mat->material : (ze_uuid_t){{0}});
    e->proxies_live++;
    proxy_mark(e, slot, ZE__PROXY_CREATE);
}

static void on_mesh_delta(ze_world_t *w, const ze_delta_t *d, void *user)
{
    (void)w;
    ze_engine_t *e = user;
    if (e->proxy_resync)
        return; /* the world was replaced: everything is rebound */
    if (d->kind == ZE_DELTA_REMOVED)
        proxy_unbind(e, d->entity);
    else if (d->value)
        proxy_bind(e, d->entity, d->value);
}

static void on_material_delta(ze_world_t *w, const ze_delta_t *d, void *user)
{
    (void)w;
    ze_engine_t *e = user;
    if (e->proxy_resync)
        return;
    uint32_t slot = slot_get(e, ze_entity_index(d->entity));
    if (slot == ZE_RENDER_INSTANCE_NONE)
        return; /* no Mesh: bound with its Material when one comes */
    ze__render_proxy_t *p = proxy_at(e, slot);
    if (!p->live || !ze_entity_eq(p->entity, d->entity))
        return;
    const ze_material_t *mat = d->kind == ZE_DELTA_REMOVED ? NULL : d->value;
    ze_uuid_t want = mat ? mat->material : (ze_uuid_t){{0}};
    if (!ze_uuid_eq(p->material, want)) {
        proxy_set_material(e, p, want);
        proxy_mark(e, slot, ZE__PROXY_MATERIAL);
    }
}

/* Every proxy released (destroys queued), then every Mesh bound again,
 * into the lowest slots. */
static void resync(ze_engine_t *e)
{
    ze_world_t *w = e->world;
    for (uint32_t s = 0; s < e->proxy_count; s++) {
        ze__render_proxy_t *p = proxy_at(e, s);
        if (!p->live)
            continue;
        res_unref(e, p->mesh);
        res_unref(e, p->material);
        p->mesh = p->material = (ze_uuid_t){{0}};
        p->live = false;
        p->entity = ZE_ENTITY_NULL;
        proxy_mark(e, s, ZE__PROXY_DESTROY);
    }
    e->proxies_live = 0;
    e->instance_budget_logged = false; /* a new scene: said again if it does not fit */
    if (e->slot_table.capacity)
        memset(ze_mem_table_data(&e->slot_table), 0,
               sizeof(uint32_t) * (size_t)e->slot_table.capacity);
    /* free slots, highest first, so pops hand out 0, 1, 2... */
    e->free_ids.count = 0;
    if (ze_array_reserve(&e->free_ids, e->proxy_count) != ZE_OK) {
        proxy_fail(e, ZE_ERR_OUT_OF_MEMORY);
        return;
    }
    for (uint32_t s = e->proxy_count; s-- > 0;)
        (void)ze_array_push(&e->free_ids, &s);
    ze_iter_t it = ze_query_iter(w, e->mesh_query);
    while (ze_query_next(&it)) {
        const ze_mesh_t *m = ze_field(&it, ze_mesh_t);
        for (uint32_t i = 0; i < it.count; i++)
            proxy_bind(e, ze_iter_entity(&it, i), &m[i]);
    }
}

/* The rows whose Transform was written since the last scan, for the
 * entities that have a slot. */
static void scan_transforms(ze_engine_t *e)
{
    ze_world_t *w = e->world;
    uint32_t since = e->sync_version;
    e->sync_version = ze_world_version(w);
    uint32_t n = e->slot_table.capacity;
    const uint32_t *slot1 = ze_mem_table_data(&e->slot_table); /* slot + 1 */
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(ze_transform_t), since);
    while (ze_changed_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t idx = it.indices[i];
            if (idx < n && slot1[idx])
                proxy_mark(e, slot1[idx] - 1u, ZE__PROXY_TRANSFORM);
        }
    }
}

ze_result ze__scene_reconcile(ze_engine_t *e)
{
    /* inside the kernel's frame (a system spawning) LateFrame delivers the
       deltas and the next reconcile scans */
    if (e->in_kernel_frame)
        return ZE_OK;
    ze_bindings_apply(e->world);
    if (e->proxy_resync) {
        e->proxy_resync = false;
        resync(e);
    }
    scan_transforms(e);
    ze_result r = e->proxy_error;
    e->proxy_error = ZE_OK;
    return r;
}

/* ---------------------------------------------------------- scene load */

ze_result ze_engine_load_scene(ze_engine_t *e, const char *vfs_path)
{
    return ze__engine_load_scene(e, vfs_path, false);
}

ze_result ze__engine_load_scene(ze_engine_t *e, const char *vfs_path, bool additive)
{
    ZE_CHECK(e && vfs_path && e->world && e->vfs, ZE_ERR_INVALID_ARG);
    ze_world_t *w = e->world;
    e->scene_error[0] = 0;
    /* The file and the backup of the world are as large as the scene: not
     * the Bootstrap owner's (its 64 MiB held the engine's own state and
     * refused a 23 MB, 100,000-entity scene). The text is an asset's, the
     * backup the ECS's. */
    ze_vfs_buffer_t buf = {0};
    ze_result ve = ze_vfs_read_file(e->vfs, vfs_path,
                                    ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_ASSET), &buf);
    if (ve != ZE_OK) {
        snprintf(e->scene_error, sizeof e->scene_error, "scene %.150s: %s", vfs_path,
                 ze_result_str(ve));
        return ze_diag(&e->diag, ZE_LOG_ERROR, ve, "engine", vfs_path, "scene not loaded: %s",
                       ze_result_str(ve));
    }
    /* Replace the world's entities; on failure put the old ones back. */
    ze_byte_writer_t saved = {.alloc = ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_ECS)};
    ze_result r = ze_world_save(w, &saved);
    if (r == ZE_OK) {
        if (!additive)
            (void)ze_world_clear(w);
        ze_scene_report_t rep;
        uint32_t errors = e->diag_capture.errors;
        r = ze_scene_load_json(w, (const char *)buf.data, buf.size, &rep);
        if (r != ZE_OK) {
            /* the world reported why, through the same sink */
            snprintf(e->scene_error, sizeof e->scene_error, "scene %.60s: %.160s", vfs_path,
                     e->diag_capture.errors > errors ? e->diag_capture.last_message
                                                     : ze_result_str(r));
            ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", vfs_path,
                    "scene not loaded; the world keeps its previous entities");
            if (ze_world_load(w, saved.data, saved.size) != ZE_OK)
                ZE_LOG_ERROR(ZE__ENGINE_LOG, "scene %s: the previous world could not be restored",
                             vfs_path);
            e->proxy_resync = true; /* the restored entities are new handles */
        } else {
            ZE_LOG_INFO(ZE__ENGINE_LOG, "scene %s: %u entities, %u problem(s)", vfs_path,
                        rep.entities, rep.problems);
        }
    }
    ze_byte_writer_free(&saved);
    ze_vfs_buffer_free(&buf);
    if (r != ZE_OK) {
        if (!e->scene_error[0])
            snprintf(e->scene_error, sizeof e->scene_error, "scene %.150s: %s", vfs_path,
                     ze_result_str(r));
        return r;
    }
    /* World matrices now (the first frame may run no fixed step) and no
       interpolation from wherever the old entities were. */
    ze_hierarchy_update(w);
    ze_transforms_snapshot(w);
    e->scene_revision++;
    e->proxy_resync = true;
    return ze__scene_reconcile(e);
}
