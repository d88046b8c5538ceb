/* The forward pass (graphics): depth + Cook-Torrance shading into the
 * HDR image (RGBA16F: base colour texture, metallic/roughness, normal map
 * with tangents, alpha mask; one directional light, up to
 * ZE_VK_MAX_POINT_LIGHTS point lights with the glTF range window; ambient
 * = sky colour x 0.1 x base colour; cleared to the sky colour) in one
 * vkCmdDrawIndexedIndirectCount per face class over the cull pass's
 * visible draws, vertices and indices from the RRM's global buffers.
 * Graph: creates "hdr" (colour attachment) and "depth" (depth attachment),
 * both transients of the render size; reads the cull pass's output
 * (vk_geometry.c says how). Forward fragment shading is the
 * phase-1 exception to DESIGN's compute rule for full-screen work.
 * With occlusion culling the depth is kept (the pyramid pass reads it),
 * and "forward_late" draws the late cull's draws over both images
 * (loaded; depth tested less-than and written, with or without a
 * prepass: the prepass drew only the early draws).
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

typedef struct forward_t {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    ze_rg_res_t hdr, depth;
    bool prepass, keep_depth;
} forward_t;

static ze_result forward_create(ze_vk_backend_t *b, void *state)
{
    forward_t *fw = state;
    ze_result lr = ze__vk_scene_layout(b, &fw->layout);
    if (lr != ZE_OK)
        return lr;
    /* after a depth prepass: equal depth, not written (each pixel shaded
       once); else the usual less-than with writes */
    ze_vk_geometry_desc_t gd = {
        .layout = fw->layout,
        .fragment = "forward.frag",
        .color_format = ZE_VK_HDR_FORMAT,
        .depth_format = ZE_VK_DEPTH_FORMAT,
        .depth_write = !b->prepass,
        .depth_compare = b->prepass ? VK_COMPARE_OP_EQUAL : VK_COMPARE_OP_LESS,
    };
    return ze__vk_geometry_pipeline(b, &gd, &fw->pipeline);
}

static void forward_destroy(ze_vk_backend_t *b, void *state)
{
    forward_t *fw = state;
    ze__vk_pipeline_release(b, &fw->layout, &fw->pipeline);
}

static void forward_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    forward_t *fw = state;
    ze_rg_resource_desc_t d = {.kind = ZE_RG_IMAGE,
                               .format = ZE_VK_HDR_FORMAT,
                               .width = shape->width,
                               .height = shape->height};
    fw->hdr = ze__rg_create_resource(g, "hdr", &d);
    ze__rg_use(g, pass, fw->hdr, ZE_RG_COLOR_ATTACHMENT);
    fw->prepass = shape->prepass;
    fw->keep_depth = shape->occlusion;
    if (fw->prepass) { /* the prepass's depth, tested only */
        fw->depth = ze__rg_find(g, "depth");
        ze__rg_use(g, pass, fw->depth, ZE_RG_DEPTH_READ);
    } else {
        d.format = ZE_VK_DEPTH_FORMAT;
        fw->depth = ze__rg_create_resource(g, "depth", &d);
        ze__rg_use(g, pass, fw->depth, ZE_RG_DEPTH_ATTACHMENT);
    }
    ze__vk_geometry_declare(g, pass);
}

static ze_result forward_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_backend_t *b = ctx->b;
    forward_t *fw = ctx->state;
    const ze_render_state_t *s = ctx->scene;
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
        .imageLayout =
            ze__rg_access(fw->prepass ? ZE_RG_DEPTH_READ : ZE_RG_DEPTH_ATTACHMENT)->layout,
        .loadOp = fw->prepass ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = fw->keep_depth ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
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
    ze__vk_geometry_record(b, ctx->f, cmd, fw->pipeline, fw->layout, w, h);
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

/* ------------------------------------------------------ late forward */

static bool late_enabled(const ze_vk_shape_t *shape)
{
    return shape->occlusion;
}

static ze_result late_create(ze_vk_backend_t *b, void *state)
{
    forward_t *fw = state;
    if (!b->occlusion)
        return ZE_OK; /* never in the graph */
    ze_result lr = ze__vk_scene_layout(b, &fw->layout);
    if (lr != ZE_OK)
        return lr;
    ze_vk_geometry_desc_t gd = {
        .layout = fw->layout,
        .fragment = "forward.frag",
        .color_format = ZE_VK_HDR_FORMAT,
        .depth_format = ZE_VK_DEPTH_FORMAT,
        .depth_write = true,
        .depth_compare = VK_COMPARE_OP_LESS,
    };
    return ze__vk_geometry_pipeline(b, &gd, &fw->pipeline);
}

static void late_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                         const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    forward_t *fw = state;
    fw->hdr = ze__rg_find(g, "hdr");
    fw->depth = ze__rg_find(g, "depth");
    ze__rg_use(g, pass, fw->hdr, ZE_RG_COLOR_ATTACHMENT);
    ze__rg_use(g, pass, fw->depth, ZE_RG_DEPTH_ATTACHMENT);
    ze__vk_geometry_declare(g, pass);
}

static ze_result late_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_backend_t *b = ctx->b;
    forward_t *fw = ctx->state;
    if (!ctx->f->draws.draws)
        return ZE_OK;
    const ze_vk_image_t *hdr = &ze__vk_graph_res(b, fw->hdr)->image;
    const ze_vk_image_t *depth = &ze__vk_graph_res(b, fw->depth)->image;
    uint32_t w = hdr->width, h = hdr->height;
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = hdr->view,
        .imageLayout = ze__rg_access(ZE_RG_COLOR_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth->view,
        .imageLayout = ze__rg_access(ZE_RG_DEPTH_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {w, h}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
    };
    vkCmdBeginRendering(ctx->cmd, &ri);
    ze__vk_geometry_record_late(b, ctx->f, ctx->cmd, fw->pipeline, fw->layout, w, h);
    vkCmdEndRendering(ctx->cmd);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_forward_late = {
    .name = "forward_late",
    .kind = ZE_RG_GRAPHICS,
    .state_size = sizeof(forward_t),
    .create = late_create,
    .destroy = forward_destroy,
    .enabled = late_enabled,
    .declare = late_declare,
    .record = late_record,
};
