/* The cull passes (compute; shaders/cull.glsl says how).
 *
 * "cull": every instance slot of the device table expanded into its
 * mesh's submesh draws, each tested against the view frustum (when the
 * backend culls: ze_render_backend_desc_t.cull; else all drawn) and, with
 * occlusion culling, against the previous frame's depth pyramid
 * (vk_pass_pyramid.c); the visible ones compacted into the frame slot's
 * `elements` with their counts in `visible_count` and counted in their
 * bins, which the bins and place passes (vk_pass_bins.c,
 * vk_pass_place.c) turn into instanced commands and their refs; the
 * occluded ones listed as late candidates. One thread per slot.
 * Graph: reads "instances" (storage); imports "cull_elements" and
 * "visible_count" (each frame slot's own buffers, bound per frame by
 * vk_graph.c): their last use before the graph is the previous frame's
 * place pass or indirect read, their contents are not kept (the CPU
 * zeroed the counts before the submission: host writes are visible to
 * the queue); writes both and "draw_bins" (storage). With
 * occlusion culling it also imports "hzb" (the pyramid, kept from frame to
 * frame: sampled here), "cull_candidates" and "cull_late_args" (the frame
 * slot's: written here).
 *
 * "cull_late" (occlusion culling only): after the pyramid pass, one thread
 * per candidate (an indirect dispatch of the early cull's size), each
 * tested against this frame's pyramid; those not hidden are appended to
 * the late class ranges (bins_late, place_late, then "forward_late" draw
 * them). Reads the pyramid (sampled), the candidates (storage), their
 * dispatch size (indirect) and the instance table; writes the elements,
 * bins and counts.
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

static const ze_rg_import_t ELEMENTS_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};

/* The pyramid: sampled by the cull passes, before and after the graph;
   its contents are the previous frame's. */
static const ze_rg_import_t HZB_IMPORT = {
    .before = ZE_RG_SAMPLED,
    .after = ZE_RG_SAMPLED,
    .kind = ZE_RG_COMPUTE,
};

static const ze_rg_import_t CANDIDATES_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_COMPUTE,
    .discard = true,
};

static ze_result cull_create(ze_vk_backend_t *b, void *state)
{
    ze_vk_compute_t *c = state;
    ze_result r =
        b->occlusion ? ze__vk_hzb_layout(b, &c->layout) : ze__vk_scene_layout(b, &c->layout);
    if (r != ZE_OK)
        return r;
    return ze__vk_compute_pipeline(b, b->occlusion ? "cull_occlusion.comp" : "cull.comp", c->layout,
                                   &c->pipeline);
}

static void cull_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                         const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    /* Sizes: one element. The frame slots' buffers grow with the draws
       (bound per frame, whole): the graph only orders them. The counters
       are the bins' tail. */
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = sizeof(ze_vk_gpu_element_t)};
    ze_rg_res_t elements = ze__rg_import(g, ZE_VK_RES_ELEMENTS, &d, &ELEMENTS_IMPORT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_INSTANCES), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, elements, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_BINS), ZE_RG_STORAGE_WRITE);
    if (!shape->occlusion)
        return;
    const ze_vk_hzb_t *z = &b->hzb;
    ze_rg_resource_desc_t hd = {.kind = ZE_RG_IMAGE,
                                .format = VK_FORMAT_R32_SFLOAT,
                                .width = z->image.width,
                                .height = z->image.height,
                                .mips = z->levels};
    ze__rg_use(g, pass, ze__rg_import(g, ZE_VK_RES_HZB, &hd, &HZB_IMPORT), ZE_RG_SAMPLED);
    d.size = sizeof(ze_vk_gpu_candidate_t);
    ze__rg_use(g, pass, ze__rg_import(g, ZE_VK_RES_CANDIDATES, &d, &CANDIDATES_IMPORT),
               ZE_RG_STORAGE_WRITE);
}

static ze_result cull_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_compute_t *c = ctx->state;
    uint32_t slots = ctx->f->draws.draws ? ctx->f->draws.slots : 0;
    if (!slots)
        return ZE_OK;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline);
    VkDescriptorSet sets[2] = {ctx->f->set, ctx->b->hzb.set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 1,
                            ctx->b->occlusion ? 2 : 1, sets, 0, NULL);
    vkCmdDispatch(cmd, (slots + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP, 1, 1);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_cull = {
    .name = "cull",
    .kind = ZE_RG_COMPUTE,
    .after_previous = true, /* counts in the bins bins_clear zeroed */
    .state_size = sizeof(ze_vk_compute_t),
    .create = cull_create,
    .destroy = ze__vk_compute_destroy,
    .declare = cull_declare,
    .record = cull_record,
};

/* ------------------------------------------------------- late cull */

static ze_result late_create(ze_vk_backend_t *b, void *state)
{
    ze_vk_compute_t *c = state;
    if (!b->occlusion)
        return ZE_OK; /* never in the graph */
    ze_result r = ze__vk_hzb_layout(b, &c->layout);
    if (r != ZE_OK)
        return r;
    return ze__vk_compute_pipeline(b, "cull_late.comp", c->layout, &c->pipeline);
}

static void late_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                         const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_HZB), ZE_RG_SAMPLED);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_CANDIDATES), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_LATE_ARGS), ZE_RG_INDIRECT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_INSTANCES), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_ELEMENTS), ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_BINS), ZE_RG_STORAGE_WRITE);
}

static ze_result late_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_compute_t *c = ctx->state;
    if (!ctx->f->draws.draws || !ctx->f->draws.slots)
        return ZE_OK;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline);
    VkDescriptorSet sets[2] = {ctx->f->set, ctx->b->hzb.set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 1, 2, sets, 0, NULL);
    vkCmdDispatchIndirect(cmd, ctx->f->late_args.buffer, 0);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_cull_late = {
    .name = "cull_late",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(ze_vk_compute_t),
    .create = late_create,
    .destroy = ze__vk_compute_destroy,
    .enabled = ze__vk_shape_occlusion,
    .declare = late_declare,
    .record = late_record,
};
