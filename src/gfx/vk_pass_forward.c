/* The forward pass (graphics): depth + Cook-Torrance shading into the
 * HDR image (RGBA16F: base colour texture, metallic/roughness, normal map
 * with tangents, alpha mask; one directional light, up to
 * ZE_VK_MAX_POINT_LIGHTS point lights with the glTF range window; ambient
 * = sky colour x 0.1 x base colour; cleared to the sky colour) in one
 * vkCmdDrawIndexedIndirectCount over the frame's draw list (vk_draws.c),
 * or with GPU culling over the cull pass's visible draws, vertices and
 * indices from the RRM's global buffers.
 * Graph: creates "hdr" (colour attachment) and "depth" (depth attachment),
 * both transients of the render size; with culling reads "visible_draws"
 * and "visible_count" (indirect). Forward fragment shading is the
 * phase-1 exception to DESIGN's compute rule for full-screen work.
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

#define HDR_FORMAT   VK_FORMAT_R16G16B16A16_SFLOAT
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT

typedef struct forward_t {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    ze_rg_res_t hdr, depth;
    ze_rg_res_t visible, count; /* culling: the cull pass's output */
    bool culled;
} forward_t;

static ze_result forward_pipeline(ze_vk_backend_t *b, forward_t *fw)
{
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    ze_result r = ze__vk_shader_load(b, "forward.vert", &vs);
    if (r == ZE_OK)
        r = ze__vk_shader_load(b, "forward.frag", &fs);
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
       (vk_draws.c). Projections are y-down, so glTF's counter-clockwise
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
        .depthWriteEnable = VK_TRUE,
        .depthCompareOp = VK_COMPARE_OP_LESS,
    };
    VkPipelineColorBlendAttachmentState att = {.colorWriteMask = 0xF};
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &att,
    };
    VkDynamicState dyn[4] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                             VK_DYNAMIC_STATE_CULL_MODE, VK_DYNAMIC_STATE_FRONT_FACE};
    VkPipelineDynamicStateCreateInfo dy = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = 4,
        .pDynamicStates = dyn,
    };
    VkFormat color = HDR_FORMAT;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color,
        .depthAttachmentFormat = DEPTH_FORMAT,
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
        .layout = fw->layout,
    };
    VkResult vr =
        vkCreateGraphicsPipelines(b->device, b->pipeline_cache, 1, &gci, b->host_cb, &fw->pipeline);
    vkDestroyShaderModule(b->device, vs, b->host_cb);
    vkDestroyShaderModule(b->device, fs, b->host_cb);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateGraphicsPipelines");
}

static ze_result forward_create(ze_vk_backend_t *b, void *state)
{
    forward_t *fw = state;
    VkDescriptorSetLayout sets[2] = {b->bindless_layout, b->frame_layout};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = sets,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, b->host_cb, &fw->layout),
               "vkCreatePipelineLayout");
    return forward_pipeline(b, fw);
}

static void forward_destroy(ze_vk_backend_t *b, void *state)
{
    forward_t *fw = state;
    if (fw->pipeline)
        vkDestroyPipeline(b->device, fw->pipeline, b->host_cb);
    if (fw->layout)
        vkDestroyPipelineLayout(b->device, fw->layout, b->host_cb);
    fw->pipeline = VK_NULL_HANDLE;
    fw->layout = VK_NULL_HANDLE;
}

static void forward_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    forward_t *fw = state;
    ze_rg_resource_desc_t d = {
        .kind = ZE_RG_IMAGE, .format = HDR_FORMAT, .width = shape->width, .height = shape->height};
    fw->hdr = ze__rg_create_resource(g, "hdr", &d);
    d.format = DEPTH_FORMAT;
    fw->depth = ze__rg_create_resource(g, "depth", &d);
    ze__rg_use(g, pass, fw->hdr, ZE_RG_COLOR_ATTACHMENT);
    ze__rg_use(g, pass, fw->depth, ZE_RG_DEPTH_ATTACHMENT);
    fw->culled = shape->cull;
    if (fw->culled) {
        fw->visible = ze__rg_find(g, ZE_VK_RES_VISIBLE);
        fw->count = ze__rg_find(g, ZE_VK_RES_VISIBLE_COUNT);
        ze__rg_use(g, pass, fw->visible, ZE_RG_INDIRECT);
        ze__rg_use(g, pass, fw->count, ZE_RG_INDIRECT);
    }
}

static ze_result forward_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_backend_t *b = ctx->b;
    forward_t *fw = ctx->state;
    const ze_render_state_t *s = ctx->scene;
    ze_vk_draw_list_t dl = ctx->f->draws;
    VkBuffer count = dl.buffer;
    if (fw->culled) {
        dl.buffer = ctx->f->visible.buffer;
        dl.indirect = 0;
        dl.count = 0;
        count = ctx->f->visible_count.buffer;
    }
    const ze_vk_image_t *hdr = &ze__vk_graph_res(b, fw->hdr)->image;
    const ze_vk_image_t *depth = &ze__vk_graph_res(b, fw->depth)->image;
    VkCommandBuffer cmd = ctx->cmd;
    uint32_t w = hdr->width, h = hdr->height;
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = hdr->view,
        .imageLayout = ze__rg_access(ZE_RG_COLOR_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.color = {{s->sky.clear_color.x, s->sky.clear_color.y, s->sky.clear_color.z,
                              1.0f}},
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth->view,
        .imageLayout = ze__rg_access(ZE_RG_DEPTH_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {w, h}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
    };
    vkCmdBeginRendering(cmd, &ri);
    if (dl.draws) {
        VkViewport vp = {0, 0, (float)w, (float)h, 0.0f, 1.0f};
        VkRect2D sc = {{0, 0}, {w, h}};
        vkCmdSetViewport(cmd, 0, 1, &vp);
        vkCmdSetScissor(cmd, 0, 1, &sc);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, fw->pipeline);
        VkDescriptorSet sets[2] = {b->bindless_set, ctx->f->set};
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, fw->layout, 0, 2, sets, 0,
                                NULL);
        VkDeviceSize zero = 0;
        vkCmdBindVertexBuffers(cmd, 0, 1, &b->vb.buffer, &zero);
        vkCmdBindIndexBuffer(cmd, b->ib.buffer, 0, VK_INDEX_TYPE_UINT32);
        static const VkCullModeFlags cull[ZE_VK_FACE_CLASSES] = {
            VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_NONE};
        static const VkFrontFace front[ZE_VK_FACE_CLASSES] = {VK_FRONT_FACE_COUNTER_CLOCKWISE,
                                                              VK_FRONT_FACE_CLOCKWISE,
                                                              VK_FRONT_FACE_COUNTER_CLOCKWISE};
        const VkDeviceSize cmd_size = sizeof(VkDrawIndexedIndirectCommand);
        for (uint32_t k = 0; k < ZE_VK_FACE_CLASSES; k++) {
            if (!dl.class_draws[k])
                continue;
            vkCmdSetCullMode(cmd, cull[k]);
            vkCmdSetFrontFace(cmd, front[k]);
            vkCmdDrawIndexedIndirectCount(cmd, dl.buffer, dl.indirect + k * dl.stride * cmd_size,
                                          count, dl.count + k * sizeof(uint32_t), dl.class_draws[k],
                                          (uint32_t)cmd_size);
        }
    }
    vkCmdEndRendering(cmd);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_forward = {
    .name = "forward",
    .kind = ZE_RG_GRAPHICS,
    .state_size = sizeof(forward_t),
    .create = forward_create,
    .destroy = forward_destroy,
    .declare = forward_declare,
    .record = forward_record,
};
