/* The public render-backend functions: argument checks, then dispatch
 * through the backend's vtable (backend.h). */
#include <string.h>

#include "gfx/backend.h"

#define LOG_CH "gfx"

/* Upper bound on desc.pending_capacity: a queue of records, not payloads. */
enum { PENDING_CAPACITY_MAX = 1u << 22 };

ze_result ze_render_backend_create(const char *name, const ze_render_backend_desc_t *desc,
                                   ze_render_backend_t **out)
{
    return ze__render_backend_create_with(name, desc, NULL, out);
}

ze_result ze__render_backend_create_with(const char *name, const ze_render_backend_desc_t *desc,
                                         const ze__render_faults_t *faults,
                                         ze_render_backend_t **out)
{
    static const ze__render_faults_t none = {0};
    if (!faults)
        faults = &none;
    ZE_CHECK(out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ZE_CHECK(name && desc && desc->mem, ZE_ERR_INVALID_ARG);
    if (desc->pending_capacity > PENDING_CAPACITY_MAX) {
        ZE_LOG_ERROR(LOG_CH, "pending_capacity %u is above the limit of %u", desc->pending_capacity,
                     (unsigned)PENDING_CAPACITY_MAX);
        return ZE_ERR_LIMIT;
    }
    const ze__render_backend_vtable_t *vt = NULL;
    if (strcmp(name, ze__null_render_backend.name) == 0)
        vt = &ze__null_render_backend;
    else if (strcmp(name, ze__vulkan_render_backend.name) == 0)
        vt = &ze__vulkan_render_backend;
    if (!vt) {
        ZE_LOG_ERROR(LOG_CH, "unknown render backend '%s' (known: null, vulkan)", name);
        return ZE_ERR_NOT_FOUND;
    }
    ze_result r = vt->create(desc, faults, out);
    if (r == ZE_OK) {
        ze__instance_table_init(&(*out)->instances, desc->mem);
        if (vt->mirrors_instances)
            ze__instance_table_track(&(*out)->instances);
        ze__render_textures_init(*out, desc->mem);
        ze__geometry_books_t *g = &(*out)->books;
        ze_hashmap_init(&g->meshes, ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_RENDER),
                        sizeof(ze_uuid_t), sizeof(uint64_t[2]));
        g->vertex_bytes = g->index_bytes = 0;
        g->vertex_budget =
            desc->vertex_budget_bytes ? desc->vertex_budget_bytes : ZE_RENDER_DEFAULT_VERTEX_BUDGET;
        g->index_budget =
            desc->index_budget_bytes ? desc->index_budget_bytes : ZE_RENDER_DEFAULT_INDEX_BUDGET;
        g->instance_budget =
            desc->instance_budget && desc->instance_budget < ZE_RENDER_MAX_INSTANCE_SLOTS
                ? desc->instance_budget
                : ZE_RENDER_DEFAULT_INSTANCE_BUDGET;
        g->instance_logged = false;
        atomic_init(&g->rejections, 0);
    }
    return r;
}

void ze_render_backend_destroy(ze_render_backend_t *b)
{
    if (!b)
        return;
    ze__instance_table_free(&b->instances);
    ze__render_textures_fini(b);
    ze_hashmap_free(&b->books.meshes);
    b->vt->destroy(b);
}

const char *ze_render_backend_name(const ze_render_backend_t *b)
{
    return b ? b->vt->name : "none";
}

const char *ze_render_backend_device(const ze_render_backend_t *b)
{
    return b ? b->vt->device(b) : "none";
}

/* The snapshot crossed a thread boundary: never trust its counts. */
static bool state_ok(const ze_render_state_t *s)
{
    if ((s->instance_update_count && !s->instance_updates) ||
        (s->transform_update_count && !s->transform_updates) ||
        (s->instance_remove_count && !s->instance_removes) || (s->light_count && !s->lights) ||
        s->instance_slots > ZE_RENDER_MAX_INSTANCE_SLOTS) {
        ZE_LOG_ERROR(LOG_CH,
                     "render state of frame %llu rejected: %u instance records at %p, %u "
                     "transforms at %p, %u removes at %p, %u lights at %p, %u slots (limit %u)",
                     (unsigned long long)s->frame, s->instance_update_count,
                     (const void *)s->instance_updates, s->transform_update_count,
                     (const void *)s->transform_updates, s->instance_remove_count,
                     (const void *)s->instance_removes, s->light_count, (const void *)s->lights,
                     s->instance_slots, (unsigned)ZE_RENDER_MAX_INSTANCE_SLOTS);
        return false;
    }
    return true;
}

ze_result ze_render_backend_apply(ze_render_backend_t *b, const ze_render_state_t *scene)
{
    ZE_CHECK(b && scene, ZE_ERR_INVALID_ARG);
    if (!state_ok(scene))
        return ZE_ERR_INVALID_ARG;
    ze__geometry_books_t *g = &b->books;
    if (scene->instance_slots > g->instance_budget) {
        if (!g->instance_logged)
            ZE_LOG_ERROR(LOG_CH,
                         "instance budget exceeded: the state of frame %llu needs %u instance "
                         "slots, the budget is %u (renderer.instance_budget): nothing applied",
                         (unsigned long long)scene->frame, scene->instance_slots,
                         g->instance_budget);
        g->instance_logged = true;
        atomic_fetch_add_explicit(&g->rejections, 1, memory_order_relaxed);
        return ZE_ERR_LIMIT;
    }
    g->instance_logged = false;
    ze_result r = ze__instance_table_apply(&b->instances, scene);
    if (r != ZE_OK && !b->instances.grow_failed) /* once until it fits again */
        ZE_LOG_ERROR(LOG_CH, "instance table: %u slots do not fit (%s)", scene->instance_slots,
                     ze_result_str(r));
    b->instances.grow_failed = r != ZE_OK;
    return r;
}

static ze_result frame_timed(ze_render_backend_t *b, const ze_render_state_t *scene);

/* The frames whose CPU time the steady mean leaves out (uploads). */
enum { CPU_WARMUP_FRAMES = 10 };

ze_result ze_render_backend_frame(ze_render_backend_t *b, const ze_render_state_t *scene)
{
    ZE_CHECK(b && scene, ZE_ERR_INVALID_ARG);
    uint64_t t0 = ze_time_thread_cpu_ns();
    b->drew = false;
    ze_result r = frame_timed(b, scene);
    uint64_t dt = ze_time_thread_cpu_ns() - t0;
    /* one writer (the render thread): plain read-modify-writes */
    uint64_t frames = atomic_load_explicit(&b->cpu_frames, memory_order_relaxed);
    atomic_store_explicit(&b->cpu_last_ns, dt, memory_order_relaxed);
    atomic_store_explicit(&b->cpu_sum_ns,
                          atomic_load_explicit(&b->cpu_sum_ns, memory_order_relaxed) + dt,
                          memory_order_relaxed);
    if (frames >= CPU_WARMUP_FRAMES)
        atomic_store_explicit(&b->cpu_steady_sum_ns,
                              atomic_load_explicit(&b->cpu_steady_sum_ns, memory_order_relaxed) +
                                  dt,
                              memory_order_relaxed);
    atomic_store_explicit(&b->cpu_frames, frames + 1, memory_order_relaxed);
    return r;
}

static ze_result frame_timed(ze_render_backend_t *b, const ze_render_state_t *scene)
{
    ze_result ar = ze_render_backend_apply(b, scene);
    if (ar != ZE_OK)
        return ar;
    const ze_render_overlay_t *ov = scene->overlay;
    if (ov && ((ov->instance_count && !ov->instances) ||
               (ov->atlas_pixels && (!ov->atlas_width || !ov->atlas_height)))) {
        ZE_LOG_ERROR(LOG_CH,
                     "overlay of frame %llu rejected: %u instances at %p, a %ux%u atlas at %p",
                     (unsigned long long)ov->frame, ov->instance_count, (const void *)ov->instances,
                     ov->atlas_width, ov->atlas_height, (const void *)ov->atlas_pixels);
        return ZE_ERR_INVALID_ARG;
    }
    /* part of a scene whose changes have not all arrived: nothing drawn */
    if (!ze__instance_table_drawable(&b->instances, scene))
        return ZE_OK;
    ze_result r = b->vt->frame(b, scene);
    b->drew = r == ZE_OK;
    return r;
}

bool ze__render_backend_drew(const ze_render_backend_t *b)
{
    return b && b->drew;
}

ze_result ze_render_backend_asset_ready(ze_render_backend_t *b, const ze_asset_data_t *data)
{
    ZE_CHECK(b && data, ZE_ERR_INVALID_ARG);
    ZE_CHECK((unsigned)data->type < ZE_ASSET_TYPE_COUNT, ZE_ERR_INVALID_ARG);
    if (data->type != ZE_ASSET_TYPE_MESH || ze_uuid_is_nil(data->uuid))
        return b->vt->asset_ready(b, data);
    /* the geometry budgets: this mesh replaces what its uuid committed */
    ze__geometry_books_t *g = &b->books;
    const uint64_t *old = ze_hashmap_get(&g->meshes, &data->uuid);
    uint64_t nv = (uint64_t)data->as.mesh.vertex_count * ZE_RENDER_VERTEX_BYTES;
    uint64_t ni = (uint64_t)data->as.mesh.index_count * ZE_RENDER_INDEX_BYTES;
    uint64_t v = g->vertex_bytes - (old ? old[0] : 0) + nv;
    uint64_t i = g->index_bytes - (old ? old[1] : 0) + ni;
    if (v > g->vertex_budget || i > g->index_budget) {
        char us[ZE_UUID_STRING_LEN + 1];
        ze_uuid_format(data->uuid, us);
        bool vert = v > g->vertex_budget;
        ZE_LOG_ERROR(LOG_CH,
                     "%s budget exceeded: mesh %s needs %llu bytes (%u %s), %llu are committed, "
                     "the budget is %llu (renderer.%s): mesh refused",
                     vert ? "vertex" : "index", us, (unsigned long long)(vert ? nv : ni),
                     vert ? data->as.mesh.vertex_count : data->as.mesh.index_count,
                     vert ? "vertices" : "indices",
                     (unsigned long long)((vert ? g->vertex_bytes : g->index_bytes) -
                                          (old ? old[vert ? 0 : 1] : 0)),
                     (unsigned long long)(vert ? g->vertex_budget : g->index_budget),
                     vert ? "vertex_budget_bytes" : "index_budget_bytes");
        atomic_fetch_add_explicit(&g->rejections, 1, memory_order_relaxed);
        return ZE_ERR_LIMIT;
    }
    ze_result r = b->vt->asset_ready(b, data);
    if (r != ZE_OK)
        return r;
    uint64_t rec[2] = {nv, ni};
    if (ze_hashmap_put(&g->meshes, &data->uuid, rec) != ZE_OK) {
        /* not booked: the budget undercounts it until it is released */
        ZE_LOG_WARN(LOG_CH, "geometry budget books: no memory for one more mesh");
        return ZE_OK;
    }
    g->vertex_bytes = v;
    g->index_bytes = i;
    return ZE_OK;
}

ze_result ze_render_backend_asset_release(ze_render_backend_t *b, ze_uuid_t uuid)
{
    ZE_CHECK(b && !ze_uuid_is_nil(uuid), ZE_ERR_INVALID_ARG);
    ze_result r = b->vt->asset_release(b, uuid);
    if (r != ZE_OK)
        return r;
    ze__geometry_books_t *g = &b->books;
    const uint64_t *old = ze_hashmap_get(&g->meshes, &uuid);
    if (old) {
        g->vertex_bytes -= old[0];
        g->index_bytes -= old[1];
        ze_hashmap_remove(&g->meshes, &uuid);
    }
    return ZE_OK;
}

ze_result ze_render_backend_screenshot(ze_render_backend_t *b, const char *png_path)
{
    ZE_CHECK(b && png_path && png_path[0], ZE_ERR_INVALID_ARG);
    return b->vt->screenshot(b, png_path);
}

ze_result ze_render_backend_dump_graph(ze_render_backend_t *b, const char *json_path)
{
    ZE_CHECK(b && json_path && json_path[0], ZE_ERR_INVALID_ARG);
    if (!b->vt->dump_graph) {
        ZE_LOG_WARN(LOG_CH, "%s backend: no render graph to dump", b->vt->name);
        return ZE_ERR_UNSUPPORTED;
    }
    return b->vt->dump_graph(b, json_path);
}

ze_result ze_render_backend_use_cache(ze_render_backend_t *b, ze_vfs_t *vfs)
{
    ZE_CHECK(b, ZE_ERR_INVALID_ARG);
    return b->vt->use_cache ? b->vt->use_cache(b, vfs) : ZE_OK;
}

ze_render_stats_t ze_render_backend_stats(const ze_render_backend_t *b)
{
    if (!b)
        return (ze_render_stats_t){0};
    ze_render_stats_t st = b->vt->stats(b);
    ze__instance_table_stats(&b->instances, &st);
    ze_render_backend_t *m = (ze_render_backend_t *)b; /* atomics: loads only */
    st.budget_rejections = atomic_load_explicit(&m->books.rejections, memory_order_relaxed);
    uint64_t frames = atomic_load_explicit(&m->cpu_frames, memory_order_relaxed);
    st.thread_cpu_ms = (double)atomic_load_explicit(&m->cpu_last_ns, memory_order_relaxed) / 1e6;
    if (frames)
        st.thread_cpu_avg_ms = (double)atomic_load_explicit(&m->cpu_sum_ns, memory_order_relaxed) /
                               1e6 / (double)frames;
    if (frames > CPU_WARMUP_FRAMES)
        st.thread_cpu_steady_ms =
            (double)atomic_load_explicit(&m->cpu_steady_sum_ns, memory_order_relaxed) / 1e6 /
            (double)(frames - CPU_WARMUP_FRAMES);
    return st;
}

uint32_t ze_render_backend_resident(const ze_render_backend_t *b, ze_uuid_t uuid)
{
    if (!b || ze_uuid_is_nil(uuid))
        return 0;
    return b->vt->resident(b, uuid);
}
