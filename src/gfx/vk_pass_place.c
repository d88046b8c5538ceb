/* The place passes (compute; shaders/bins.glsl says how): after a bins
 * pass turned the bin counts into offsets, one thread per visible draw
 * of a class range writes its ref (instance slot, material) at its
 * bin's offset + its index in the bin, where its instanced command's
 * firstInstance points. An indirect dispatch of the bins pass's size
 * (place_args: groups over the largest class, the three classes).
 *
 * "place" after "bins" (the early class ranges), "place_late" after
 * "bins_late" (occlusion culling only). Both read the elements, the bins
 * and the dispatch size and write "visible_refs" (imported here: last
 * read by the previous frame's geometry passes; contents not kept).
 * Render thread, or create/destroy. */
#include "gfx/vk_internal.h"

static const ze_rg_import_t REFS_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_GRAPHICS,
    .discard = true,
};

static ze_result place_create(ze_vk_backend_t *b, void *state)
{
    return ze__vk_scene_compute_create(b, state, "place.comp");
}

static ze_result place_late_create(ze_vk_backend_t *b, void *state)
{
    if (!b->occlusion)
        return ZE_OK; /* never in the graph */
    return ze__vk_scene_compute_create(b, state, "place_late.comp");
}

static void place_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                          const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = sizeof(ze_vk_gpu_ref_t)};
    ze_rg_res_t refs = ze__rg_find_or_import(g, ZE_VK_RES_VISIBLE_REFS, &d, &REFS_IMPORT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_PLACE_ARGS), ZE_RG_INDIRECT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_ELEMENTS), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_BINS), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, refs, ZE_RG_STORAGE_WRITE);
}

static ze_result record_phase(const ze_vk_pass_ctx_t *ctx, uint32_t phase)
{
    ze_vk_compute_t *s = ctx->state;
    if (!ctx->f->draws.draws || !ctx->f->draws.slots)
        return ZE_OK;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 1, 1, &ctx->f->set, 0,
                            NULL);
    vkCmdDispatchIndirect(cmd, ctx->f->place_args.buffer, phase * 8 * sizeof(uint32_t));
    return ZE_OK;
}

static ze_result place_record(const ze_vk_pass_ctx_t *ctx)
{
    return record_phase(ctx, 0);
}

static ze_result place_late_record(const ze_vk_pass_ctx_t *ctx)
{
    return record_phase(ctx, 1);
}

const ze_vk_pass_t ze__vk_pass_place = {
    .name = "place",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(ze_vk_compute_t),
    .create = place_create,
    .destroy = ze__vk_compute_destroy,
    .declare = place_declare,
    .record = place_record,
};

const ze_vk_pass_t ze__vk_pass_place_late = {
    .name = "place_late",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(ze_vk_compute_t),
    .create = place_late_create,
    .destroy = ze__vk_compute_destroy,
    .enabled = ze__vk_shape_occlusion,
    .declare = place_declare,
    .record = place_late_record,
};
