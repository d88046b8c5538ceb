/* The present pass (transfer): blits the target's LDR image into the
 * swapchain image acquired for the frame (vk_swapchain.c says why a blit:
 * channel order, optional storage usage on surface formats, scaling when
 * the window's size and the render size differ for a frame). Only in a
 * shape with a backbuffer. Graph: reads "ldr" (transfer source), writes the
 * imported "backbuffer" (transfer destination), which the graph leaves in
 * PRESENT_SRC_KHR. Render thread. */
#include "gfx/vk_internal.h"

typedef struct present_t {
    ze_rg_res_t ldr, back;
} present_t;

static bool present_enabled(const ze_vk_shape_t *shape)
{
    return shape->back.image != VK_NULL_HANDLE;
}

static void present_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    present_t *p = state;
    p->ldr = ze__rg_find(g, ZE_VK_RES_LDR);
    p->back = ze__rg_find(g, ZE_VK_RES_BACKBUFFER);
    ze__rg_use(g, pass, p->ldr, ZE_RG_TRANSFER_SRC);
    ze__rg_use(g, pass, p->back, ZE_RG_TRANSFER_DST);
}

static ze_result present_record(const ze_vk_pass_ctx_t *ctx)
{
    present_t *p = ctx->state;
    const ze_vk_image_t *src = &ze__vk_graph_res(ctx->b, p->ldr)->image;
    const ze_vk_image_t *dst = &ze__vk_graph_res(ctx->b, p->back)->image;
    bool same = src->width == dst->width && src->height == dst->height;
    VkImageBlit region = {
        .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .srcOffsets = {{0, 0, 0}, {(int32_t)src->width, (int32_t)src->height, 1}},
        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .dstOffsets = {{0, 0, 0}, {(int32_t)dst->width, (int32_t)dst->height, 1}},
    };
    vkCmdBlitImage(ctx->cmd, src->image, ze__rg_access(ZE_RG_TRANSFER_SRC)->layout, dst->image,
                   ze__rg_access(ZE_RG_TRANSFER_DST)->layout, 1, &region,
                   same ? VK_FILTER_NEAREST : VK_FILTER_LINEAR);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_present = {
    .name = "present",
    .kind = ZE_RG_TRANSFER,
    .state_size = sizeof(present_t),
    .enabled = present_enabled,
    .declare = present_declare,
    .record = present_record,
};
