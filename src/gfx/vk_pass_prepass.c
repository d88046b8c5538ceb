/* The depth prepass (graphics, optional: ze_render_backend_desc_t
 * .depth_prepass): the frame's visible geometry into the depth image only
 * (forward.vert, prepass.frag: alpha-masked materials discard as forward
 * shading does), so the forward pass that follows tests for equal depth
 * without writing it and shades each pixel once.
 * Graph: creates "depth" (depth attachment, the render size), which the
 * forward pass then reads (depth read); reads the cull pass's output like
 * forward.
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

typedef struct prepass_t {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    ze_rg_res_t depth;
} prepass_t;

static bool prepass_enabled(const ze_vk_shape_t *shape)
{
    return shape->prepass;
}

static ze_result prepass_create(ze_vk_backend_t *b, void *state)
{
    prepass_t *p = state;
    ze_result lr = ze__vk_scene_layout(b, &p->layout);
    if (lr != ZE_OK)
        return lr;
    ze_vk_geometry_desc_t gd = {
        .layout = p->layout,
        .fragment = "prepass.frag",
        .color_format = VK_FORMAT_UNDEFINED,
        .depth_format = ZE_VK_DEPTH_FORMAT,
        .depth_write = true,
        .depth_compare = VK_COMPARE_OP_LESS,
    };
    return ze__vk_geometry_pipeline(b, &gd, &p->pipeline);
}

static void prepass_destroy(ze_vk_backend_t *b, void *state)
{
    prepass_t *p = state;
    ze__vk_pipeline_release(b, &p->layout, &p->pipeline);
}

static void prepass_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    prepass_t *p = state;
    ze_rg_resource_desc_t d = {.kind = ZE_RG_IMAGE,
                               .format = ZE_VK_DEPTH_FORMAT,
                               .width = shape->width,
                               .height = shape->height};
    p->depth = ze__rg_create_resource(g, "depth", &d);
    ze__rg_use(g, pass, p->depth, ZE_RG_DEPTH_ATTACHMENT);
    ze__vk_geometry_declare(g, pass);
}

static ze_result prepass_record(const ze_vk_pass_ctx_t *ctx)
{
    prepass_t *p = ctx->state;
    const ze_vk_image_t *depth = &ze__vk_graph_res(ctx->b, p->depth)->image;
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth->view,
        .imageLayout = ze__rg_access(ZE_RG_DEPTH_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {depth->width, depth->height}},
        .layerCount = 1,
        .pDepthAttachment = &da,
    };
    vkCmdBeginRendering(ctx->cmd, &ri);
    ze__vk_geometry_record(ctx->b, ctx->f, ctx->cmd, p->pipeline, p->layout, depth->width,
                           depth->height);
    vkCmdEndRendering(ctx->cmd);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_prepass = {
    .name = "prepass",
    .kind = ZE_RG_GRAPHICS,
    .state_size = sizeof(prepass_t),
    .create = prepass_create,
    .destroy = prepass_destroy,
    .enabled = prepass_enabled,
    .declare = prepass_declare,
    .record = prepass_record,
};
