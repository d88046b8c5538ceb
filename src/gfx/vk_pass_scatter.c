/* The scatter pass (compute): the instance records of the frame (the rows
 * of the slots that changed since the last frame, vk_scene.c) written into
 * the device-local instance table, one thread per record
 * (shaders/scatter.comp). When the table grew, the new buffer is first
 * filled with empty rows and the old one's rows copied in (transfer,
 * behind a barrier of its own before the records land).
 * Graph: imports "instances" (the scene's table, contents kept; its last
 * use before the graph is the previous frame's vertex read) and writes it
 * (storage). Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

static const ze_rg_import_t INSTANCES_IMPORT = {
    .before = ZE_RG_STORAGE_READ,
    .kind = ZE_RG_GRAPHICS,
};

static ze_result scatter_create(ze_vk_backend_t *b, void *state)
{
    return ze__vk_scene_compute_create(b, state, "scatter.comp");
}

static void scatter_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    (void)state;
    ze_rg_resource_desc_t d = {.kind = ZE_RG_BUFFER, .size = sizeof(ze_vk_gpu_instance_t)};
    ze_rg_res_t t = ze__rg_import(g, ZE_VK_RES_INSTANCES, &d, &INSTANCES_IMPORT);
    ze__rg_use(g, pass, t, ZE_RG_STORAGE_WRITE);
}

/* A grown table: empty rows everywhere, then the old rows. */
static void grow_copy(ze_vk_backend_t *b, VkCommandBuffer cmd)
{
    ze_vk_scene_t *sc = &b->scene;
    vkCmdFillBuffer(cmd, sc->instances.buffer, 0, VK_WHOLE_SIZE, ZE_VK_NO_HANDLE);
    VkMemoryBarrier2 fill = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_CLEAR_BIT,
        .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
        .dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers = &fill,
    };
    if (sc->grown_from.buffer) {
        vkCmdPipelineBarrier2(cmd, &di);
        VkBufferCopy region = {0, 0, sc->grown_from.size};
        vkCmdCopyBuffer(cmd, sc->grown_from.buffer, sc->instances.buffer, 1, &region);
        ze__vk_defer_buffer(b, &sc->grown_from); /* freed once this frame retires */
    }
    VkMemoryBarrier2 done = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
        .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        .dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
    };
    di.pMemoryBarriers = &done;
    vkCmdPipelineBarrier2(cmd, &di);
    sc->grown = false;
}

static ze_result scatter_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_compute_t *s = ctx->state;
    VkCommandBuffer cmd = ctx->cmd;
    if (ctx->b->scene.grown)
        grow_copy(ctx->b, cmd);
    uint32_t n = ctx->f->draws.updates;
    if (!n)
        return ZE_OK;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 1, 1, &ctx->f->set, 0,
                            NULL);
    vkCmdDispatch(cmd, (n + ZE_VK_CULL_GROUP - 1) / ZE_VK_CULL_GROUP, 1, 1);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_scatter = {
    .name = "scatter",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(ze_vk_compute_t),
    .create = scatter_create,
    .destroy = ze__vk_compute_destroy,
    .declare = scatter_declare,
    .record = scatter_record,
};
