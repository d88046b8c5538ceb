/* The depth pyramid pass (compute) and the pyramid itself, for occlusion
 * culling (ze_render_backend_desc_t.cull = ZE_RENDER_CULL_DEFAULT; hzb.h
 * says what a pyramid holds and how a bounding sphere is tested against
 * it; docs/gfx.md "Occlusion culling" the frame's order):
 *
 *   cull (early)  frustum, then the previous frame's pyramid: the
 *                 occluded draws become late candidates
 *   prepass, forward   the early draws
 *   pyramid       this frame's depth so far into the pyramid (this pass)
 *   cull_late     the candidates against it: those not hidden
 *   forward_late  are drawn, over the early draws' colour and depth
 *
 * The pyramid is the backend's (b->hzb), kept from frame to frame: made
 * at a graph build for the render size (the GPU idle), its first frame
 * without history (the early cull tests nothing then). Its contents are
 * the last recorded frame's depth; the frame constants carry the
 * view-projection it was made with (prev_view_proj).
 * Graph: reads "depth" (sampled), writes the imported "hzb" (storage,
 * every level: one dispatch a level, a barrier between levels inside the
 * pass), which both cull passes read (sampled).
 * Render thread, or create/destroy and builds. */
#include <string.h>

#include "gfx/vk_internal.h"

#define HZB_FORMAT VK_FORMAT_R32_SFLOAT

/* ------------------------------------------------------ the pyramid */

ze_result ze__vk_hzb_create(ze_vk_backend_t *b)
{
    ze_vk_hzb_t *z = &b->hzb;
    VkDescriptorSetLayoutBinding bl = {0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1,
                                       VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1,
        .pBindings = &bl,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &lci, b->host_cb, &z->set_layout),
               "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1};
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    ZE__VK_TRY(b, vkCreateDescriptorPool(b->device, &pci, b->host_cb, &z->pool),
               "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = z->pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &z->set_layout,
    };
    ZE__VK_TRY(b, vkAllocateDescriptorSets(b->device, &ai, &z->set), "vkAllocateDescriptorSets");
    return ZE_OK;
}

ze_result ze__vk_hzb_layout(ze_vk_backend_t *b, VkPipelineLayout *out)
{
    VkDescriptorSetLayout sets[3] = {b->bindless_layout, b->frame_layout, b->hzb.set_layout};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 3,
        .pSetLayouts = sets,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, b->host_cb, out),
               "vkCreatePipelineLayout");
    return ZE_OK;
}

/* The image and its views (the GPU idle: destroyed at once). */
static void image_free(ze_vk_backend_t *b)
{
    ze_vk_hzb_t *z = &b->hzb;
    for (uint32_t i = 0; i < ZE_HZB_MAX_LEVELS; i++) {
        if (z->level_views[i])
            vkDestroyImageView(b->device, z->level_views[i], b->host_cb);
        z->level_views[i] = VK_NULL_HANDLE;
    }
    if (z->image.image)
        ze__vk_image_destroy(b, &z->image);
    z->levels = z->depth_width = z->depth_height = 0;
    z->history = false;
}

void ze__vk_hzb_destroy(ze_vk_backend_t *b)
{
    ze_vk_hzb_t *z = &b->hzb;
    image_free(b);
    if (z->pool)
        vkDestroyDescriptorPool(b->device, z->pool, b->host_cb); /* frees the set */
    if (z->set_layout)
        vkDestroyDescriptorSetLayout(b->device, z->set_layout, b->host_cb);
    memset(z, 0, sizeof *z);
}

static ze_result image_make(ze_vk_backend_t *b, uint32_t w, uint32_t h)
{
    ze_vk_hzb_t *z = &b->hzb;
    uint32_t lw[ZE_HZB_MAX_LEVELS], lh[ZE_HZB_MAX_LEVELS];
    uint32_t levels = ze__hzb_levels(w, h, lw, lh);
    if (!levels) {
        ZE_LOG_ERROR(ZE_VK_LOG, "depth pyramid: %ux%u needs more than %u levels", w, h,
                     ZE_HZB_MAX_LEVELS);
        return ZE_ERR_LIMIT;
    }
    ze_result r =
        ze__vk_image_create(b, HZB_FORMAT, lw[0], lh[0], levels,
                            VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, &z->image);
    if (r != ZE_OK)
        return r;
    z->levels = levels;
    z->depth_width = w;
    z->depth_height = h;
    for (uint32_t i = 0; i < levels; i++) {
        VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = z->image.image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = HZB_FORMAT,
            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, i, 1, 0, 1},
        };
        ZE__VK_TRY(b, vkCreateImageView(b->device, &vci, b->host_cb, &z->level_views[i]),
                   "vkCreateImageView");
    }
    /* the layout every frame finds it in (its import's `before`) */
    VkCommandBuffer cmd;
    if ((r = ze__vk_oneshot_begin(b, &cmd)) != ZE_OK)
        return r;
    ze__vk_image_barrier(cmd, z->image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE,
                         VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                         VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, levels);
    if ((r = ze__vk_oneshot_end(b, cmd)) != ZE_OK)
        return r;
    VkDescriptorImageInfo ii = {VK_NULL_HANDLE, z->image.view,
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet wr = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = z->set,
        .dstBinding = 0,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
        .pImageInfo = &ii,
    };
    vkUpdateDescriptorSets(b->device, 1, &wr, 0, NULL);
    return ZE_OK;
}

ze_result ze__vk_hzb_prepare(ze_vk_backend_t *b, const ze_vk_shape_t *shape)
{
    ze_vk_hzb_t *z = &b->hzb;
    if (!shape->occlusion ||
        (z->image.image && z->depth_width == shape->width && z->depth_height == shape->height))
        return ZE_OK;
    image_free(b);
    ze_result r = image_make(b, shape->width, shape->height);
    if (r != ZE_OK)
        image_free(b);
    return r;
}

/* --------------------------------------------------------- the pass */

typedef struct pyramid_t {
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet sets[ZE_HZB_MAX_LEVELS]; /* one a level: depth, the level below, the level */
    VkPipelineLayout layout;
    VkPipeline pipeline;
    ze_rg_res_t depth, hzb;
} pyramid_t;

static bool pyramid_enabled(const ze_vk_shape_t *shape)
{
    return shape->occlusion;
}

static ze_result pyramid_create(ze_vk_backend_t *b, void *state)
{
    pyramid_t *p = state;
    VkDescriptorSetLayoutBinding bl[3] = {
        {0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 3,
        .pBindings = bl,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &lci, b->host_cb, &p->set_layout),
               "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize sizes[2] = {
        {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, ZE_HZB_MAX_LEVELS},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * ZE_HZB_MAX_LEVELS},
    };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = ZE_HZB_MAX_LEVELS,
        .poolSizeCount = 2,
        .pPoolSizes = sizes,
    };
    ZE__VK_TRY(b, vkCreateDescriptorPool(b->device, &pci, b->host_cb, &p->pool),
               "vkCreateDescriptorPool");
    VkDescriptorSetLayout layouts[ZE_HZB_MAX_LEVELS];
    for (uint32_t i = 0; i < ZE_HZB_MAX_LEVELS; i++)
        layouts[i] = p->set_layout;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = p->pool,
        .descriptorSetCount = ZE_HZB_MAX_LEVELS,
        .pSetLayouts = layouts,
    };
    ZE__VK_TRY(b, vkAllocateDescriptorSets(b->device, &ai, p->sets), "vkAllocateDescriptorSets");
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 32};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pc,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &plci, b->host_cb, &p->layout),
               "vkCreatePipelineLayout");
    return ze__vk_compute_pipeline(b, "pyramid.comp", p->layout, &p->pipeline);
}

static void pyramid_destroy(ze_vk_backend_t *b, void *state)
{
    pyramid_t *p = state;
    ze__vk_pipeline_release(b, &p->layout, &p->pipeline);
    if (p->pool)
        vkDestroyDescriptorPool(b->device, p->pool, b->host_cb); /* frees the sets */
    if (p->set_layout)
        vkDestroyDescriptorSetLayout(b->device, p->set_layout, b->host_cb);
    ze_rg_res_t depth = p->depth, hzb = p->hzb;
    memset(p, 0, sizeof *p);
    p->depth = depth; /* the graph's handles outlive a pipeline rebuild */
    p->hzb = hzb;
}

static void pyramid_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    pyramid_t *p = state;
    p->depth = ze__rg_find(g, "depth");
    p->hzb = ze__rg_find(g, ZE_VK_RES_HZB); /* imported by the cull pass */
    ze__rg_use(g, pass, p->depth, ZE_RG_SAMPLED);
    ze__rg_use(g, pass, p->hzb, ZE_RG_STORAGE_WRITE);
}

/* Level i's set: the depth image (sampled), level i - 1 (level 0: itself,
   unread) and level i (storage, GENERAL). */
static void pyramid_bind(ze_vk_backend_t *b, void *state)
{
    pyramid_t *p = state;
    const ze_vk_hzb_t *z = &b->hzb;
    const ze_vk_graph_res_t *depth = ze__vk_graph_res(b, p->depth);
    if (!depth || !z->levels)
        return;
    for (uint32_t i = 0; i < z->levels; i++) {
        VkDescriptorImageInfo ii[3] = {
            {VK_NULL_HANDLE, depth->image.view, ze__rg_access(ZE_RG_SAMPLED)->layout},
            {VK_NULL_HANDLE, z->level_views[i ? i - 1 : 0], VK_IMAGE_LAYOUT_GENERAL},
            {VK_NULL_HANDLE, z->level_views[i], VK_IMAGE_LAYOUT_GENERAL},
        };
        VkWriteDescriptorSet w[3];
        for (uint32_t k = 0; k < 3; k++)
            w[k] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstSet = p->sets[i],
                .dstBinding = k,
                .descriptorCount = 1,
                .descriptorType =
                    k == 0 ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                .pImageInfo = &ii[k],
            };
        vkUpdateDescriptorSets(b->device, 3, w, 0, NULL);
    }
}

static ze_result pyramid_record(const ze_vk_pass_ctx_t *ctx)
{
    pyramid_t *p = ctx->state;
    ze_vk_hzb_t *z = &ctx->b->hzb;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    uint32_t sw = z->depth_width, sh = z->depth_height;
    uint32_t lw[ZE_HZB_MAX_LEVELS], lh[ZE_HZB_MAX_LEVELS];
    ze__hzb_levels(sw, sh, lw, lh);
    for (uint32_t i = 0; i < z->levels; i++) {
        if (i) /* level i - 1 written, read next */
            ze__vk_image_barrier(
                cmd, z->image.image, VK_IMAGE_ASPECT_COLOR_BIT,
                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, z->levels);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->sets[i],
                                0, NULL);
        uint32_t dw = lw[i], dh = lh[i];
        uint32_t pc[8] = {i, sw, sh, 0, dw, dh, 0, 0};
        vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
        vkCmdDispatch(cmd, (dw + 7) / 8, (dh + 7) / 8, 1);
        sw = dw;
        sh = dh;
    }
    /* what the next frame's early cull tests against */
    memcpy(z->view_proj, z->next_view_proj, sizeof z->view_proj);
    z->history = true;
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_pyramid = {
    .name = "pyramid",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(pyramid_t),
    .create = pyramid_create,
    .destroy = pyramid_destroy,
    .enabled = pyramid_enabled,
    .declare = pyramid_declare,
    .bind = pyramid_bind,
    .record = pyramid_record,
};
