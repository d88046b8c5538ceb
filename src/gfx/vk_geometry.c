/* The geometry passes' shared parts (forward, depth prepass): their
 * pipeline (our vertex layout, forward.vert, a fragment shader of the
 * pass's; cull mode and front face dynamic, set per face class) and the
 * recording of the cull pass's visible draws: one indirect count draw per
 * face class (the vertex stage reads each draw's ref and instance row).
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

ze_result ze__vk_geometry_pipeline(ze_vk_backend_t *b, const ze_vk_geometry_desc_t *d,
                                   VkPipeline *out)
{
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    ze_result r = ze__vk_shader_load(b, "forward.vert", &vs);
    if (r == ZE_OK)
        r = ze__vk_shader_load(b, d->fragment, &fs);
    if (r != ZE_OK) {
        if (vs)
            vkDestroyShaderModule(b->device, vs, b->host_cb);
        return r;
    }
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT,
         vs, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT,
         fs, "main", NULL},
    };
    VkVertexInputBindingDescription vb = {0, sizeof(ze_vk_vertex_t), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription va[4] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ze_vk_vertex_t, pos)},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ze_vk_vertex_t, normal)},
        {2, 0, VK_FORMAT_R32G32_SFLOAT, offsetof(ze_vk_vertex_t, uv)},
        {3, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(ze_vk_vertex_t, tangent)},
    };
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 4,
        .pVertexAttributeDescriptions = va,
    };
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkPipelineViewportStateCreateInfo vp = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1,
    };
    /* Cull mode and front face are dynamic: back faces culled for
       single-sided materials, the front face clockwise for mirrored
       instances, none culled for double-sided ones (whose back faces the
       fragment shader shades with flipped normals); one draw per class
       (the cull pass's). Projections are y-down, so glTF's counter-clockwise
       front faces stay counter-clockwise. */
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE,
        .depthWriteEnable = d->depth_write,
        .depthCompareOp = d->depth_compare,
    };
    VkPipelineColorBlendAttachmentState att = {.colorWriteMask = 0xF};
    uint32_t colors = d->color_format != VK_FORMAT_UNDEFINED ? 1u : 0u;
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = colors,
        .pAttachments = &att,
    };
    VkDynamicState dyn[4] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                             VK_DYNAMIC_STATE_CULL_MODE, VK_DYNAMIC_STATE_FRONT_FACE};
    VkPipelineDynamicStateCreateInfo dy = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = 4,
        .pDynamicStates = dyn,
    };
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = colors,
        .pColorAttachmentFormats = &d->color_format,
        .depthAttachmentFormat = d->depth_format,
    };
    VkGraphicsPipelineCreateInfo gci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rci,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vi,
        .pInputAssemblyState = &ia,
        .pViewportState = &vp,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cb,
        .pDynamicState = &dy,
        .layout = d->layout,
    };
    VkResult vr = vkCreateGraphicsPipelines(b->device, b->pipeline_cache, 1, &gci, b->host_cb, out);
    vkDestroyShaderModule(b->device, vs, b->host_cb);
    vkDestroyShaderModule(b->device, fs, b->host_cb);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateGraphicsPipelines");
}

void ze__vk_geometry_declare(ze_rg_t *g, ze_rg_pass_t pass)
{
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_VISIBLE), ZE_RG_INDIRECT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_VISIBLE_COUNT), ZE_RG_INDIRECT);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_VISIBLE_REFS), ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, ze__rg_find(g, ZE_VK_RES_INSTANCES), ZE_RG_STORAGE_READ);
}

/* `region`: 0 the early draws, 1 the late ones (the bins passes'
   instanced commands of class ranges 0..2 or 3..5, their counts from
   ZE_VK_DRAW_COUNTS). */
static void record_draws(ze_vk_backend_t *b, const ze_vk_frame_t *f, VkCommandBuffer cmd,
                         VkPipeline pipeline, VkPipelineLayout layout, uint32_t width,
                         uint32_t height, uint32_t region)
{
    const ze_vk_draw_list_t *dl = &f->draws;
    if (!dl->draws)
        return;
    VkViewport vp = {0, 0, (float)width, (float)height, 0.0f, 1.0f};
    VkRect2D sc = {{0, 0}, {width, height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    VkDescriptorSet sets[2] = {b->bindless_set, f->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 2, sets, 0, NULL);
    VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &b->vb.buffer, &zero);
    vkCmdBindIndexBuffer(cmd, b->ib.buffer, 0, VK_INDEX_TYPE_UINT32);
    static const VkCullModeFlags cull[ZE_VK_FACE_CLASSES] = {
        VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_NONE};
    static const VkFrontFace front[ZE_VK_FACE_CLASSES] = {
        VK_FRONT_FACE_COUNTER_CLOCKWISE, VK_FRONT_FACE_CLOCKWISE, VK_FRONT_FACE_COUNTER_CLOCKWISE};
    const VkDeviceSize cmd_size = sizeof(VkDrawIndexedIndirectCommand);
    const uint32_t first_range = region ? ZE_VK_FACE_CLASSES : 0;
    for (uint32_t k = 0; k < ZE_VK_FACE_CLASSES; k++) {
        vkCmdSetCullMode(cmd, cull[k]);
        vkCmdSetFrontFace(cmd, front[k]);
        vkCmdDrawIndexedIndirectCount(
            cmd, f->visible.buffer, (VkDeviceSize)(first_range + k) * dl->bins * cmd_size,
            f->visible_count.buffer, (ZE_VK_DRAW_COUNTS + first_range + k) * sizeof(uint32_t),
            dl->bins, (uint32_t)cmd_size);
    }
}

void ze__vk_geometry_record(ze_vk_backend_t *b, const ze_vk_frame_t *f, VkCommandBuffer cmd,
                            VkPipeline pipeline, VkPipelineLayout layout, uint32_t width,
                            uint32_t height)
{
    record_draws(b, f, cmd, pipeline, layout, width, height, 0);
}

void ze__vk_geometry_record_late(ze_vk_backend_t *b, const ze_vk_frame_t *f, VkCommandBuffer cmd,
                                 VkPipeline pipeline, VkPipelineLayout layout, uint32_t width,
                                 uint32_t height)
{
    record_draws(b, f, cmd, pipeline, layout, width, height, 1);
}
