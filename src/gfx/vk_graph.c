/* The render graph's Vulkan executor (the core, without Vulkan calls, is
 * rg.c; rg.h says how passes are ordered and barriers derived).
 *
 * The pass table below is the frame, in running order; each pass is one
 * file (vk_pass_*.c) with its own state. A build, for one shape (render
 * size, and the backbuffer when a swapchain image is to be presented),
 * declares the imports every frame has (the target's LDR image; the
 * backbuffer), lets each enabled pass declare its resources and uses,
 * compiles, creates the transients (unbound, in the compile's measure
 * hook: their usage comes from their uses; a pass marked after_previous is
 * ordered after the one declared before it), allocates one device-local
 * block per aliasing slot from our allocator and binds every member at its
 * start, creates the views, and lets the passes write their descriptors.
 * A shape that differs from the built one (a resize, a swapchain image to
 * present or not) rebuilds: the GPU is idled first (descriptor sets and
 * transients may be in use), so rebuilds are for such events, not frames.
 * Recording a frame binds the imports' images for this frame, then for
 * each pass in compiled order: its barrier batch (one vkCmdPipelineBarrier2
 * of the compiled barriers, as they are), a timestamp, its commands, a
 * timestamp; then the final batch (imports into their `after` layouts).
 * Render thread; create/destroy on the main thread. */
#include <string.h>

#include "gfx/vk_internal.h"

/* the frame's passes, in running order (one a line) */
/* clang-format off */
static const ze_vk_pass_t *const PASSES[] = {
    &ze__vk_pass_scatter,
    &ze__vk_pass_bins_clear,
    &ze__vk_pass_cull,
    &ze__vk_pass_bins,
    &ze__vk_pass_place,
    &ze__vk_pass_prepass,
    &ze__vk_pass_forward,
    &ze__vk_pass_pyramid,
    &ze__vk_pass_cull_late,
    &ze__vk_pass_bins_late,
    &ze__vk_pass_place_late,
    &ze__vk_pass_forward_late,
    &ze__vk_pass_tonemap,
    &ze__vk_pass_ui,
    &ze__vk_pass_present,
};
/* clang-format on */
_Static_assert(ZE_COUNTOF(PASSES) <= ZE_VK_MAX_PASSES, "more passes than timestamps");

/* The target's LDR image: written by tone mapping, read by present and
 * screenshots, which expect it in GENERAL after compute writes. */
static const ze_rg_import_t LDR_IMPORT = {
    .before = ZE_RG_STORAGE_WRITE,
    .after = ZE_RG_STORAGE_WRITE,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};
/* A swapchain image: acquired (its semaphore waited on at the transfer
 * stages), presented after the graph. */
static const ze_rg_import_t BACKBUFFER_IMPORT = {
    .before = ZE_RG_TRANSFER_DST,
    .after = ZE_RG_PRESENT,
    .kind = ZE_RG_TRANSFER,
    .discard = true,
};

static VkImageAspectFlags aspect_of(VkFormat f)
{
    return f == VK_FORMAT_D32_SFLOAT ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

/* ------------------------------------------------------- transients */

static void free_transients(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    for (uint32_t i = 0; i < ZE_RG_MAX_RESOURCES; i++) {
        ze_vk_graph_res_t *r = &g->res[i];
        if (r->owned) {
            if (r->image.view)
                vkDestroyImageView(b->device, r->image.view, b->host_cb);
            if (r->image.image)
                vkDestroyImage(b->device, r->image.image, b->host_cb);
            if (r->buffer)
                vkDestroyBuffer(b->device, r->buffer, b->host_cb);
        }
        memset(r, 0, sizeof *r);
    }
    for (uint32_t s = 0; s < g->slot_count; s++)
        ze__vk_mem_free(b, &g->slots[s]);
    g->slot_count = 0;
    g->built = false;
    atomic_store_explicit(&b->transient_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&b->transient_bytes_unaliased, 0, memory_order_relaxed);
}

/* The compile's measure hook: the transient, unbound, with the usage its
 * uses need; its memory requirements. */
static ze_result measure(void *user, uint32_t index, const ze_rg_resource_info_t *info,
                         ze_rg_memory_t *out)
{
    ze_vk_backend_t *b = user;
    ze_vk_graph_res_t *r = &b->graph.res[index];
    VkMemoryRequirements req;
    memset(r, 0, sizeof *r);
    r->owned = true;
    if (info->desc.kind == ZE_RG_IMAGE) {
        VkImageCreateInfo ici = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
            .imageType = VK_IMAGE_TYPE_2D,
            .format = info->desc.format,
            .extent = {info->desc.width, info->desc.height, 1},
            .mipLevels = info->desc.mips,
            .arrayLayers = 1,
            .samples = VK_SAMPLE_COUNT_1_BIT,
            .tiling = VK_IMAGE_TILING_OPTIMAL,
            .usage = info->image_usage,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        };
        ZE__VK_TRY(b, vkCreateImage(b->device, &ici, b->host_cb, &r->image.image), "vkCreateImage");
        vkGetImageMemoryRequirements(b->device, r->image.image, &req);
        r->image.format = info->desc.format;
        r->image.width = info->desc.width;
        r->image.height = info->desc.height;
        r->image.mips = info->desc.mips;
        r->aspect = aspect_of(info->desc.format);
    } else {
        VkBufferCreateInfo bci = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .size = info->desc.size,
            .usage = info->buffer_usage,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        ZE__VK_TRY(b, vkCreateBuffer(b->device, &bci, b->host_cb, &r->buffer), "vkCreateBuffer");
        vkGetBufferMemoryRequirements(b->device, r->buffer, &req);
        r->size = info->desc.size;
    }
    *out = (ze_rg_memory_t){req.size, req.alignment, req.memoryTypeBits};
    return ZE_OK;
}

/* The usages an image view can be made for. */
#define VIEW_USAGE                                                                       \
    (VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |                           \
     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | \
     VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)

/* One block per slot; every member bound at its start; views. */
static ze_result place_transients(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    uint32_t slots = ze__rg_slot_count(g->rg);
    for (uint32_t s = 0; s < slots; s++) {
        const ze_rg_slot_t *slot = ze__rg_slot(g->rg, s);
        VkMemoryRequirements req = {slot->mem.size, slot->mem.align, slot->mem.types};
        ze_result r = ze__vk_mem_alloc(b, &req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &g->slots[s]);
        if (r != ZE_OK)
            return r;
        g->slot_count = s + 1;
    }
    for (uint32_t i = 0; i < ze__rg_resource_count(g->rg); i++) {
        const ze_rg_resource_info_t *info = ze__rg_resource(g->rg, i);
        ze_vk_graph_res_t *res = &g->res[i];
        if (!res->owned)
            continue;
        const ze_vk_alloc_t *m = &g->slots[info->slot];
        if (res->buffer) {
            ZE__VK_TRY(b, vkBindBufferMemory(b->device, res->buffer, m->memory, m->offset),
                       "vkBindBufferMemory");
            continue;
        }
        ZE__VK_TRY(b, vkBindImageMemory(b->device, res->image.image, m->memory, m->offset),
                   "vkBindImageMemory");
        if (!(info->image_usage & VIEW_USAGE))
            continue; /* transfers only: no view may be made of it */
        VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = res->image.image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = res->image.format,
            .subresourceRange = {res->aspect, 0, res->image.mips, 0, 1},
        };
        ZE__VK_TRY(b, vkCreateImageView(b->device, &vci, b->host_cb, &res->image.view),
                   "vkCreateImageView");
    }
    return ZE_OK;
}

/* ------------------------------------------------------------ build */

static bool same_shape(const ze_vk_shape_t *a, const ze_vk_shape_t *b)
{
    /* the backbuffer's handle changes every frame; its presence, format
       and size make the shape */
    return a->width == b->width && a->height == b->height && a->prepass == b->prepass &&
           a->occlusion == b->occlusion &&
           (a->back.image != VK_NULL_HANDLE) == (b->back.image != VK_NULL_HANDLE) &&
           a->back.format == b->back.format && a->back.width == b->back.width &&
           a->back.height == b->back.height;
}

static void declare(ze_vk_backend_t *b, const ze_vk_shape_t *shape)
{
    ze_vk_graph_t *g = &b->graph;
    ze_rg_resource_desc_t ldr = {.kind = ZE_RG_IMAGE,
                                 .format = b->target->image.format,
                                 .width = b->target->image.width,
                                 .height = b->target->image.height};
    ze__rg_import(g->rg, ZE_VK_RES_LDR, &ldr, &LDR_IMPORT);
    if (shape->back.image) {
        ze_rg_resource_desc_t back = {.kind = ZE_RG_IMAGE,
                                      .format = shape->back.format,
                                      .width = shape->back.width,
                                      .height = shape->back.height};
        ze__rg_import(g->rg, ZE_VK_RES_BACKBUFFER, &back, &BACKBUFFER_IMPORT);
    }
    ze_rg_pass_t prev = {0};
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const ze_vk_pass_t *p = g->passes[i];
        if (p->enabled && !p->enabled(shape))
            continue;
        ze_rg_pass_t h = ze__rg_pass(g->rg, p->name, p->kind, p, g->state[i]);
        p->declare(b, g->state[i], g->rg, h, shape);
        if (p->after_previous && prev.id)
            ze__rg_order(g->rg, prev, h);
        prev = h;
    }
}

static void bind_passes(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    for (uint32_t i = 0; i < ze__rg_pass_count(g->rg); i++) {
        ze_rg_compiled_pass_t cp = ze__rg_pass_at(g->rg, i);
        const ze_vk_pass_t *p = cp.exec;
        if (p->bind)
            p->bind(b, cp.user);
    }
}

static void bind_buffer(ze_vk_backend_t *b, const char *name, const ze_vk_buffer_t *buf)
{
    ze_vk_graph_t *g = &b->graph;
    int32_t i = ze__rg_index(g->rg, ze__rg_find(g->rg, name));
    if (i >= 0) {
        g->res[i].buffer = buf->buffer;
        g->res[i].size = buf->size;
    }
}

/* The imports' Vulkan objects for this frame (f: the frame slot's
   buffers; NULL at a build, before any frame). */
static void bind_imports(ze_vk_backend_t *b, const ze_vk_backbuffer_t *back, const ze_vk_frame_t *f)
{
    ze_vk_graph_t *g = &b->graph;
    if (f) {
        bind_buffer(b, ZE_VK_RES_VISIBLE, &f->visible);
        bind_buffer(b, ZE_VK_RES_VISIBLE_COUNT, &f->visible_count);
        bind_buffer(b, ZE_VK_RES_VISIBLE_REFS, &f->refs);
        bind_buffer(b, ZE_VK_RES_INSTANCES, &b->scene.instances);
        bind_buffer(b, ZE_VK_RES_CANDIDATES, &f->candidates);
        bind_buffer(b, ZE_VK_RES_LATE_ARGS, &f->late_args);
        bind_buffer(b, ZE_VK_RES_ELEMENTS, &f->elements);
        bind_buffer(b, ZE_VK_RES_BINS, &f->bins);
        bind_buffer(b, ZE_VK_RES_PLACE_ARGS, &f->place_args);
    }
    int32_t hzb = ze__rg_index(g->rg, ze__rg_find(g->rg, ZE_VK_RES_HZB));
    if (hzb >= 0) {
        g->res[hzb].image = b->hzb.image;
        g->res[hzb].aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    }
    int32_t ldr = ze__rg_index(g->rg, ze__rg_find(g->rg, ZE_VK_RES_LDR));
    if (ldr >= 0) {
        g->res[ldr].image = b->target->image;
        g->res[ldr].aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    }
    int32_t bb = ze__rg_index(g->rg, ze__rg_find(g->rg, ZE_VK_RES_BACKBUFFER));
    if (bb >= 0 && back) {
        g->res[bb].image = (ze_vk_image_t){.image = back->image,
                                           .format = back->format,
                                           .width = back->width,
                                           .height = back->height,
                                           .mips = 1};
        g->res[bb].aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

static ze_result build(ze_vk_backend_t *b, const ze_vk_shape_t *shape)
{
    ze_vk_graph_t *g = &b->graph;
    if (g->built) {
        ze_result r = ze__vk_wait_idle(b);
        if (r != ZE_OK)
            return r;
    }
    free_transients(b);
    ze_result hr = ze__vk_hzb_prepare(b, shape); /* before its users declare it */
    if (hr != ZE_OK)
        return hr;
    ze__rg_reset(g->rg);
    declare(b, shape);
    ze_result r = ze__rg_compile(g->rg);
    if (r == ZE_OK)
        r = place_transients(b);
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE_VK_LOG, "render graph (%ux%u%s): %s", shape->width, shape->height,
                     shape->back.image ? ", presenting" : "", ze_result_str(r));
        free_transients(b);
        return r;
    }
    g->shape = *shape;
    g->built = true;
    g->builds++;
    uint64_t unaliased, aliased;
    ze__rg_memory(g->rg, &unaliased, &aliased);
    atomic_store_explicit(&b->transient_bytes, aliased, memory_order_relaxed);
    atomic_store_explicit(&b->transient_bytes_unaliased, unaliased, memory_order_relaxed);
    bind_imports(b, &shape->back, NULL);
    bind_passes(b);
    uint32_t barriers;
    ze__rg_barriers(g->rg, &barriers);
    ZE_LOG_DEBUG(ZE_VK_LOG,
                 "render graph #%llu: %ux%u%s, %u passes, %u barriers, transients %llu bytes "
                 "(%llu without aliasing)",
                 (unsigned long long)g->builds, shape->width, shape->height,
                 shape->back.image ? " + present" : "", ze__rg_pass_count(g->rg), barriers,
                 (unsigned long long)aliased, (unsigned long long)unaliased);
    return ZE_OK;
}

ze_result ze__vk_graph_prepare(ze_vk_backend_t *b, const ze_vk_shape_t *shape)
{
    if (b->graph.built && same_shape(&b->graph.shape, shape))
        return ZE_OK;
    return build(b, shape);
}

/* --------------------------------------------------------- lifetime */

static void passes_destroy(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    for (uint32_t i = 0; i < g->pass_count; i++)
        if (g->state[i] && g->passes[i]->destroy)
            g->passes[i]->destroy(b, g->state[i]);
}

static ze_result passes_create(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const ze_vk_pass_t *p = g->passes[i];
        ze_result r = p->create ? p->create(b, g->state[i]) : ZE_OK;
        if (r != ZE_OK) {
            ZE_LOG_ERROR(ZE_VK_LOG, "pass '%s': %s", p->name, ze_result_str(r));
            return r;
        }
    }
    return ZE_OK;
}

static size_t state_size(const ze_vk_pass_t *p)
{
    return p->state_size ? p->state_size : 1;
}

static void states_free(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        if (g->state[i])
            ze_free(b->alloc, g->state[i], state_size(g->passes[i]));
        g->state[i] = NULL;
    }
}

/* Each pass's zeroed state, then its long-lived objects. */
static ze_result passes_init(ze_vk_backend_t *b, const ze_vk_pass_t *const *passes, uint32_t n)
{
    ze_vk_graph_t *g = &b->graph;
    ZE_CHECK(n <= ZE_VK_MAX_PASSES, ZE_ERR_LIMIT);
    g->passes = passes;
    g->pass_count = n;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        g->state[i] = ze_alloc(b->alloc, state_size(passes[i]), 16);
        if (!g->state[i])
            return ZE_ERR_OUT_OF_MEMORY;
        memset(g->state[i], 0, state_size(passes[i]));
    }
    return passes_create(b);
}

ze_result ze__vk_graph_create(ze_vk_backend_t *b)
{
    ze_rg_desc_t d = {.alloc = b->alloc, .measure = measure, .measure_user = b};
    ze_result r = ze__rg_create(&d, &b->graph.rg);
    return r == ZE_OK ? passes_init(b, PASSES, ZE_COUNTOF(PASSES)) : r;
}

void ze__vk_graph_destroy(ze_vk_backend_t *b)
{
    ze_vk_graph_t *g = &b->graph;
    if (b->device) {
        free_transients(b);
        passes_destroy(b);
    }
    states_free(b);
    ze__rg_destroy(g->rg);
    g->rg = NULL;
}

ze_result ze__vk_graph_set_passes(ze_vk_backend_t *b, const ze_vk_pass_t *const *passes,
                                  uint32_t count)
{
    ze_result r = ze__vk_wait_idle(b);
    if (r != ZE_OK)
        return r;
    free_transients(b);
    passes_destroy(b);
    states_free(b);
    return passes_init(b, passes, count);
}

ze_result ze__vk_passes_recreate(ze_vk_backend_t *b)
{
    passes_destroy(b);
    ze_result r = passes_create(b);
    if (r == ZE_OK && b->graph.built)
        bind_passes(b);
    return r;
}

/* ----------------------------------------------------------- record */

static void record_batch(ze_vk_backend_t *b, VkCommandBuffer cmd, uint32_t first, uint32_t count)
{
    if (!count)
        return;
    ze_vk_graph_t *g = &b->graph;
    uint32_t total;
    const ze_rg_barrier_t *all = ze__rg_barriers(g->rg, &total);
    VkImageMemoryBarrier2 ib[ZE_RG_MAX_RESOURCES];
    VkBufferMemoryBarrier2 bb[ZE_RG_MAX_RESOURCES];
    uint32_t ni = 0, nb = 0;
    for (uint32_t i = first; i < first + count && i < total; i++) {
        const ze_rg_barrier_t *x = &all[i];
        const ze_vk_graph_res_t *r = &g->res[x->resource];
        if (r->image.image) {
            ib[ni++] = (VkImageMemoryBarrier2){
                .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                .srcStageMask = x->src_stages,
                .srcAccessMask = x->src_access,
                .dstStageMask = x->dst_stages,
                .dstAccessMask = x->dst_access,
                .oldLayout = x->old_layout,
                .newLayout = x->new_layout,
                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .image = r->image.image,
                .subresourceRange = {r->aspect, 0, r->image.mips ? r->image.mips : 1, 0, 1},
            };
        } else if (r->buffer) {
            bb[nb++] = (VkBufferMemoryBarrier2){
                .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                .srcStageMask = x->src_stages,
                .srcAccessMask = x->src_access,
                .dstStageMask = x->dst_stages,
                .dstAccessMask = x->dst_access,
                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .buffer = r->buffer,
                .offset = 0,
                .size = VK_WHOLE_SIZE,
            };
        }
    }
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .bufferMemoryBarrierCount = nb,
        .pBufferMemoryBarriers = bb,
        .imageMemoryBarrierCount = ni,
        .pImageMemoryBarriers = ib,
    };
    if (ni || nb)
        vkCmdPipelineBarrier2(cmd, &di);
}

ze_result ze__vk_graph_record(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_state_t *s,
                              const ze_vk_backbuffer_t *back)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_vk_graph_t *g = &b->graph;
    if (!g->built)
        return ZE_ERR_STATE;
    bind_imports(b, back, f);
    f->timed_count = 0;
    uint32_t n = ze__rg_pass_count(g->rg);
    for (uint32_t pos = 0; pos < n; pos++) {
        ze_rg_compiled_pass_t cp = ze__rg_pass_at(g->rg, pos);
        const ze_vk_pass_t *p = cp.exec;
        record_batch(b, f->cmd, cp.barrier_first, cp.barrier_count);
        /* each pass from when everything before it finished to when it did */
        ze__vk_timestamp(b, f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 2 * pos);
        ze_vk_pass_ctx_t ctx = {.b = b, .f = f, .cmd = f->cmd, .scene = s, .state = cp.user};
        ze_result r = p->record(&ctx);
        if (r != ZE_OK)
            return r;
        ze__vk_timestamp(b, f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 2 * pos + 1);
        if (b->queries)
            f->timed[f->timed_count++] = p->name;
    }
    uint32_t first, count;
    ze__rg_final_barriers(g->rg, &first, &count);
    record_batch(b, f->cmd, first, count);
    return ZE_OK;
}

ze_vk_graph_res_t *ze__vk_graph_res(ze_vk_backend_t *b, ze_rg_res_t res)
{
    int32_t i = b->graph.rg ? ze__rg_index(b->graph.rg, res) : -1;
    return i >= 0 ? &b->graph.res[i] : NULL;
}

ze_result ze__vk_graph_dump(ze_vk_backend_t *b, const char *path)
{
    if (!b->graph.built) {
        ZE_LOG_WARN(ZE_VK_LOG, "dump %s: no render graph built yet", path);
        return ZE_ERR_STATE;
    }
    return ze__rg_dump_json(b->graph.rg, path);
}

void ze__vk_transition(VkCommandBuffer cmd, const ze_vk_image_t *img, ze_rg_use from,
                       ze_rg_pass_kind from_kind, ze_rg_use to, ze_rg_pass_kind to_kind)
{
    ze_rg_barrier_t x = ze__rg_transition(from, from_kind, to, to_kind);
    ze__vk_image_barrier(cmd, img->image, aspect_of(img->format), x.src_stages, x.src_access,
                         x.dst_stages, x.dst_access, x.old_layout, x.new_layout,
                         img->mips ? img->mips : 1);
}
