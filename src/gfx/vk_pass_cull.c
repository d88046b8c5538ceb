/* The cull pass (compute): every instance slot of the device table
 * expanded into its mesh's submesh draws, each tested against the view
 * frustum (when the backend culls: ze_render_backend_desc_t.cull; else
 * all drawn), the visible ones compacted into the frame slot's `visible`
 * commands and `refs` with their counts in `visible_count`, which the
 * geometry passes draw with one vkCmdDrawIndexedIndirectCount per face
 * class (shaders/cull.comp says how). One thread per slot.
 * Graph: reads "instances" (storage); imports "visible_draws",
 * "visible_refs" and "visible_count" (each frame slot's own buffers,
 * bound per frame by vk_graph.c): their last use before the graph is the
 * previous frame's indirect or vertex read, their contents are not kept
 * (the CPU zeroed the counts before the submission: host writes are
 * visible to the queue), and it writes all three (storage).
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

typedef struct cull_t {
    VkPipelineLayout layout;
    VkPipeline pipeline;
} cull_t;

static const ze_rg_import_t INDIRECT_IMPORT = {
    .before = ZE_RG_INDIRECT,
    .kind = ZE_RG_GRAPHICS,
    .discard = true,
};

static const ze_rg_import_t REFS_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_GRAPHICS,
    .discard = true,
};

static ze_result cull_create(ze_vk_backend_t *b, void *state)
{
    cull_t *c = state;
    ze_result r = ze__vk_scene_layout(b, &c->layout);
    if (r != ZE_OK)
        return r;
    return ze__vk_compute_pipeline(b, "cull.comp", c->layout, &c->pipeline);
}

static void cull_destroy(ze_vk_backend_t *b, void *state)
{
    cull_t *c = state;
    ze__vk_pipeline_release(b, &c->layout, &c->pipeline);
}

static void cull_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                         const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    (void)state;
    /* Sizes: one command, one ref, one count. The frame slots' buffers
       grow with the draws (bound per frame, whole): the graph only orders
       them. */
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = sizeof(VkDrawIndexedIndirectCommand)};
    ze_rg_res_t visible = ze__rg_import(g, ZE_VK_RES_VISIBLE, &d, &INDIRECT_IMPORT);
    d.size = sizeof(uint32_t);
    ze_rg_res_t count = ze__rg_import(g, ZE_VK_RES_VISIBLE_COUNT, &d, &INDIRECT_IMPORT);
    d.size = sizeof(ze_vk_gpu_ref_t);
    ze_rg_res_t refs = ze__rg_import(g, ZE_VK_RES_VISIBLE_REFS, &d, &REFS_IMPORT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_INSTANCES), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, visible, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass, count, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pass, refs, ZE_RG_STORAGE_WRITE);
}

static ze_result cull_record(const ze_vk_pass_ctx_t *ctx)
{
    cull_t *c = ctx->state;
    uint32_t slots = ctx->f->draws.draws ? ctx->f->draws.slots : 0;
    if (!slots)
        return ZE_OK;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 1, 1, &ctx->f->set, 0,
                            NULL);
    vkCmdDispatch(cmd, (slots + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP, 1, 1);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_cull = {
    .name = "cull",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(cull_t),
    .create = cull_create,
    .destroy = cull_destroy,
    .declare = cull_declare,
    .record = cull_record,
};
