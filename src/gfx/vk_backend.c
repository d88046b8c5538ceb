/* The "vulkan" render backend: the vtable over vk_*.c.
 *
 * Create (main thread, the engine's render_device stage): the host
 * allocation callbacks (vk_host.c; destroyed last), instance and
 * validation, device, memory, frames, RRM (built-in textures uploaded
 * once), the pipeline cache, the render graph's passes (their pipelines),
 * the target (the swapchain over desc.native_window's surface, else
 * offscreen) and the graph built for it (vk_graph.c). A
 * failure unwinds what exists and returns ZE_ERR_UNSUPPORTED (no usable
 * device, missing shaders) or the failing stage's error.
 * Frame (render thread): the first call records the render thread (debug
 * builds assert every later Vulkan call is on it); then BeginFrame (wait
 * for the slot, retire deferred frees, drain the RRM queue into uploads),
 * the target's image to present into (the swapchain's, if any), the
 * graph rebuilt if its shape changed, the graph's passes, one submission
 * (the timeline plus the target's binary semaphores), present. A lost
 * device — a Vulkan call that returns VK_ERROR_DEVICE_LOST, a wait that
 * times out, or the test fault lose_device_at_frame — makes this and every later
 * frame return ZE_ERR_IO. Destroy (main thread, render thread joined): waits for the
 * GPU (bounded), then tears down in reverse. */
#include <string.h>

#include "gfx/vk_internal.h"

static void vk_destroy(ze_render_backend_t *rb);

static ze_vk_shape_t shape_of(const ze_vk_backend_t *b, const ze_vk_backbuffer_t *back)
{
    return (ze_vk_shape_t){b->target->width, b->target->height, *back, b->prepass, b->occlusion};
}

static ze_result create_stages(ze_vk_backend_t *b)
{
    ze_result r = ze__vk_instance_create(b);
    if (r == ZE_OK)
        r = ze__vk_device_create(b);
    if (r != ZE_OK)
        return r;
    ze__vk_memory_init(b);
    if ((r = ze__vk_frames_create(b)) != ZE_OK || (r = ze__vk_rrm_create(b)) != ZE_OK ||
        (r = ze__vk_scene_create(b)) != ZE_OK || (r = ze__vk_hzb_create(b)) != ZE_OK ||
        (r = ze__vk_pipeline_cache_create(b)) != ZE_OK || (r = ze__vk_graph_create(b)) != ZE_OK)
        return r;
    uint32_t w = b->desc.width ? b->desc.width : 1280;
    uint32_t h = b->desc.height ? b->desc.height : 720;
    if (b->surface)
        r = ze__vk_target_swapchain_create(b, w, h, &b->target);
    else
        r = ze__vk_target_offscreen_create(b, w, h, &b->target);
    if (r != ZE_OK)
        return r;
    ze_vk_backbuffer_t back;
    b->target->ops->backbuffer(b->target, &back);
    ze_vk_shape_t shape = shape_of(b, &back);
    return ze__vk_graph_prepare(b, &shape);
}

static ze_result vk_create(const ze_render_backend_desc_t *desc, const ze__render_faults_t *faults,
                           ze_render_backend_t **out)
{
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_RENDER);
    ze_vk_backend_t *b = ZE_NEW(alloc, ze_vk_backend_t);
    if (!b) {
        ZE_LOG_ERROR(ZE_VK_LOG, "the Render owner refused %zu bytes", sizeof *b);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(b, 0, sizeof *b);
    b->base.vt = &ze__vulkan_render_backend;
    b->alloc = alloc;
    b->desc = *desc;
    b->cull = desc->cull != ZE_RENDER_CULL_NONE;
    b->occlusion = desc->cull == ZE_RENDER_CULL_DEFAULT;
    b->prepass = desc->depth_prepass;
    b->lod_error_px = desc->lod_error_px == 0.0f ? 1.0f : desc->lod_error_px;
    b->lose_device_at_frame = faults->lose_device_at_frame;
    b->desc.title = NULL; /* not kept */
    snprintf(b->device_name, sizeof b->device_name, "vulkan (no device)");
    atomic_init(&b->tail, 0);
    atomic_init(&b->head, 0);
    atomic_init(&b->swapchain_recreates, 0);
    atomic_init(&b->ui_instances, 0);
    atomic_init(&b->ui_atlas_uploads, 0);
    pthread_mutex_init(&b->lock, NULL);
    ze_hashmap_init(&b->resident, alloc, sizeof(ze_uuid_t), sizeof(ze_vk_resident_t));
    if (b->desc.headless)
        b->desc.native_window = NULL; /* offscreen */
    ze_result hr = ze__vk_host_create(desc->mem, &b->host);
    if (hr != ZE_OK)
        ZE_LOG_WARN(ZE_VK_LOG,
                    "host allocations outside the budgets (the Vulkan owner: %s): Vulkan "
                    "allocates with the C library",
                    ze_result_str(hr));
    b->host_cb = ze__vk_host_callbacks(b->host);
    b->desc.title = desc->title; /* the application name, while creating */
    ze_result r = create_stages(b);
    b->desc.title = NULL;
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE_VK_LOG, "vulkan backend unavailable: %s", ze_result_str(r));
        vk_destroy(&b->base);
        return r == ZE_ERR_OUT_OF_MEMORY || r == ZE_ERR_BUDGET ? r : ZE_ERR_UNSUPPORTED;
    }
    *out = &b->base;
    return ZE_OK;
}

static void vk_destroy(ze_render_backend_t *rb)
{
    ze_vk_backend_t *b = ze__vk(rb);
    b->render_thread_known = false; /* the render thread was joined */
    if (b->device)
        (void)vkDeviceWaitIdle(b->device);
    if (b->device && !b->lost && ze_trace_active())
        ze__vk_timestamps_flush(b);
    if (b->device) {
        ze__vk_graph_destroy(b);
        ze__vk_pipeline_cache_destroy(b);
        if (b->target)
            b->target->ops->destroy(b->target);
        b->target = NULL;
    }
    if (b->device) {
        ze__vk_hzb_destroy(b);
        ze__vk_scene_destroy(b);
    }
    ze__vk_rrm_destroy(b);
    if (b->device) {
        ze__vk_frames_destroy(b);
        ze__vk_memory_fini(b);
    }
    uint64_t msgs = atomic_load(&b->validation_messages);
    ze__vk_instance_destroy(b);
    ze__vk_host_destroy(b->host); /* every Vulkan object is gone */
    b->host = NULL;
    b->host_cb = NULL;
    if (msgs)
        ZE_LOG_WARN(ZE_VK_LOG, "%llu validation messages during the run", (unsigned long long)msgs);
    ze_hashmap_free(&b->resident);
    pthread_mutex_destroy(&b->lock);
    ze_free(b->alloc, b, sizeof *b);
}

/* The target's image at the new size; the graph follows at prepare (its
 * shape changed). */
static ze_result resize(ze_vk_backend_t *b, uint32_t w, uint32_t h)
{
    ze_result r = ze__vk_wait_idle(b);
    return r == ZE_OK ? b->target->ops->resize(b->target, w, h) : r;
}

static ze_result vk_frame(ze_render_backend_t *rb, const ze_render_state_t *scene)
{
    ze_vk_backend_t *b = ze__vk(rb);
    if (!b->render_thread_known) {
        b->render_thread = pthread_self();
        b->render_thread_known = true;
    }
    ZE__VK_ON_RENDER_THREAD(b);
    if (b->lost)
        return ZE_ERR_IO;
    b->frame_calls++;
    if (b->lose_device_at_frame && b->frame_calls == b->lose_device_at_frame) {
        b->lost = true;
        ZE_LOG_ERROR(ZE_VK_LOG, "device lost (simulated) at frame %llu",
                     (unsigned long long)b->frame_calls);
        return ZE_ERR_IO;
    }
    uint64_t t0 = ze_time_now_ns();
    ze_result r = ZE_OK;
    if (scene->width && scene->height &&
        (scene->width != b->target->width || scene->height != b->target->height))
        r = resize(b, scene->width, scene->height);
    ze_vk_frame_t *f = NULL;
    if (r == ZE_OK)
        r = ze__vk_frame_begin(b, &f);
    if (r == ZE_OK)
        r = ze__vk_rrm_begin_frame(b, f->cmd);
    if (scene->scene_revision != b->revision) {
        b->revision = scene->scene_revision;
        ze__vk_rrm_scene_reset(b);
    }
    ze_vk_backbuffer_t back = {0};
    if (r == ZE_OK)
        r = b->target->ops->acquire(b->target, &back);
    ze_vk_shape_t shape = shape_of(b, &back);
    if (r == ZE_OK)
        r = ze__vk_graph_prepare(b, &shape);
    bool built = false;
    if (r == ZE_OK)
        built = (r = ze__vk_draws_build(b, f, scene)) == ZE_OK;
    if (r == ZE_OK)
        r = ze__vk_graph_record(b, f, scene, &back);
    ze_vk_submit_sync_t sync = {0};
    if (r == ZE_OK) {
        b->target->ops->sync(b->target, &sync);
        r = ze__vk_frame_submit(b, f, &sync);
    }
    if (built && r != ZE_OK)
        b->scene.resync = true; /* its instance records never reached the GPU */
    if (r == ZE_OK)
        r = b->target->ops->present(b->target);
    if (b->lost)
        return ZE_ERR_IO;
    if (r != ZE_OK)
        return r;
    b->has_image = true;
    atomic_store_explicit(&b->cpu_frame_ns, ze_time_now_ns() - t0, memory_order_relaxed);
    uint32_t live = b->base.instances.live_count;
    atomic_store_explicit(&b->last_instances, live, memory_order_relaxed);
    atomic_store_explicit(&b->last_lights, scene->light_count, memory_order_relaxed);
    atomic_store_explicit(&b->last_scene_frame, scene->frame, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->instances_drawn, live, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->frames_done, 1, memory_order_relaxed);
    return ZE_OK;
}

static ze_result vk_asset_ready(ze_render_backend_t *rb, const ze_asset_data_t *data)
{
    return ze__vk_rrm_asset_ready(ze__vk(rb), data);
}

static ze_result vk_asset_release(ze_render_backend_t *rb, ze_uuid_t uuid)
{
    return ze__vk_rrm_asset_release(ze__vk(rb), uuid);
}

/* Startup (no frame has run: the pipelines can be rebuilt here on the main
 * thread) or shutdown (the render thread is joined). */
static ze_result vk_use_cache(ze_render_backend_t *rb, ze_vfs_t *vfs)
{
    ze_vk_backend_t *b = ze__vk(rb);
    if (!vfs) {
        ze__vk_pso_save(b);
        b->desc.vfs = NULL;
        b->pso_persist = false;
        return ZE_OK;
    }
    if (b->frame_calls) {
        ZE_LOG_WARN(ZE_VK_LOG, "pipeline cache: attached after the first frame: ignored");
        return ZE_ERR_STATE;
    }
    /* Rebuild the pipelines from the persisted cache. The old ones (built
       without it at create) go first, with nothing saved: no VFS yet. */
    b->desc.vfs = NULL;
    ze__vk_pipeline_cache_destroy(b);
    b->desc.vfs = vfs;
    ze_result r = ze__vk_pipeline_cache_create(b);
    if (r == ZE_OK)
        r = ze__vk_passes_recreate(b);
    if (r != ZE_OK) {
        /* The stage that attached it fails and is not unwound: the VFS
           goes before the backend, which must not save into it then (the
           Vulkan fault sweep found the use after free). */
        b->desc.vfs = NULL;
        b->pso_persist = false;
    }
    return r;
}

static ze_result vk_dump_graph(ze_render_backend_t *rb, const char *json_path)
{
    ze_vk_backend_t *b = ze__vk(rb);
    ZE__VK_ON_RENDER_THREAD(b);
    return ze__vk_graph_dump(b, json_path);
}

static ze_result vk_screenshot(ze_render_backend_t *rb, const char *png_path)
{
    ze_vk_backend_t *b = ze__vk(rb);
    ZE__VK_ON_RENDER_THREAD(b);
    return ze__vk_screenshot(b, png_path);
}

static uint64_t ld(const atomic_uint_fast64_t *a)
{
    return atomic_load_explicit((atomic_uint_fast64_t *)a, memory_order_relaxed);
}

static uint32_t ld32(const atomic_uint_fast32_t *a)
{
    return (uint32_t)atomic_load_explicit((atomic_uint_fast32_t *)a, memory_order_relaxed);
}

static ze_render_stats_t vk_stats(const ze_render_backend_t *rb)
{
    ze_vk_backend_t *b = (ze_vk_backend_t *)rb; /* the lock: not state */
    ze_render_stats_t st = {
        .frames = ld(&b->frames_done),
        .instances_drawn = ld(&b->instances_drawn),
        .last_instances = ld32(&b->last_instances),
        .last_lights = ld32(&b->last_lights),
        .last_scene_frame = ld(&b->last_scene_frame),
        .assets_received = ld(&b->assets_received),
        .assets_rejected = ld(&b->assets_rejected),
        .meshes = ld32(&b->counts[ZE_ASSET_TYPE_MESH]),
        .materials = ld32(&b->counts[ZE_ASSET_TYPE_MATERIAL]),
        .textures = ld32(&b->counts[ZE_ASSET_TYPE_TEXTURE]),
        .envmaps = ld32(&b->counts[ZE_ASSET_TYPE_ENVMAP]),
        .validation_messages = ld(&b->validation_messages),
        .scene_resets = ld(&b->scene_resets),
        .validation_enabled = b->validation,
        .cpu_frame_ms = (double)ld(&b->cpu_frame_ns) / 1e6,
        .gpu_memory_bytes = ld(&b->gpu_memory_bytes),
        .transient_bytes = ld(&b->transient_bytes),
        .transient_bytes_unaliased = ld(&b->transient_bytes_unaliased),
        .swapchain_recreates = ld(&b->swapchain_recreates),
        .ui_instances = ld32(&b->ui_instances),
        .ui_atlas_uploads = ld(&b->ui_atlas_uploads),
        .assets_released = ld(&b->assets_released),
        .gpu_memory_used_bytes = ld(&b->mem_used_bytes),
        .bindless_slots_used = ld32(&b->slots_used),
        .bindless_slots_capacity = ZE_VK_MAX_TEXTURES,
        .vertex_bytes_used = ld(&b->vb_used),
        .vertex_bytes_capacity = ld(&b->vb_cap),
        .index_bytes_used = ld(&b->ib_used),
        .index_bytes_capacity = ld(&b->ib_cap),
    };
    ze_vk_host_stats_t hs = ze__vk_host_stats(b->host);
    st.host_bytes = hs.bytes;
    st.host_bytes_peak = hs.peak;
    st.host_allocations = hs.allocations;
    st.host_internal_bytes = hs.internal_bytes;
    st.last_draws = ld32(&b->last_draws);
    st.last_draws_visible = ld32(&b->last_draws_visible);
    st.last_draws_occlusion_culled = ld32(&b->last_draws_occluded);
    st.last_draws_frustum_culled =
        st.last_draws - st.last_draws_visible - st.last_draws_occlusion_culled;
    for (uint32_t k = 0; k < ZE_RENDER_LOD_MAX; k++)
        st.last_draws_lod[k] = ld32(&b->last_draws_lod[k]);
    st.last_draw_commands = ld32(&b->last_draw_commands);
    st.last_triangles = atomic_load_explicit(&b->last_triangles, memory_order_relaxed);
    pthread_mutex_lock(&b->lock);
    st.gpu_pass_count = b->pass_time_count;
    memcpy(st.gpu_passes, b->pass_times, sizeof st.gpu_passes[0] * b->pass_time_count);
    pthread_mutex_unlock(&b->lock);
    return st;
}

static uint32_t vk_resident(const ze_render_backend_t *rb, ze_uuid_t uuid)
{
    return ze__vk_rrm_resident((ze_vk_backend_t *)rb, uuid);
}

static const char *vk_device(const ze_render_backend_t *rb)
{
    return ((const ze_vk_backend_t *)rb)->device_name;
}

const ze__render_backend_vtable_t ze__vulkan_render_backend = {
    .name = "vulkan",
    .create = vk_create,
    .destroy = vk_destroy,
    .frame = vk_frame,
    .asset_ready = vk_asset_ready,
    .asset_release = vk_asset_release,
    .screenshot = vk_screenshot,
    .dump_graph = vk_dump_graph,
    .use_cache = vk_use_cache,
    .stats = vk_stats,
    .resident = vk_resident,
    .device = vk_device,
    .mirrors_instances = true,
};
