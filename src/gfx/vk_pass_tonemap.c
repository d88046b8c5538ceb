/* The tone-mapping pass (compute): exposure, the ACES filmic fit
 * (Narkowicz) and sRGB encoding (tonemap.comp, 8x8 threads a group), from
 * the HDR image into the target's RGBA8 image.
 * Graph: reads "hdr" (storage image), writes the imported "ldr".
 * Owns its descriptor set (two storage images), rewritten after every
 * build (the images are new then). Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

typedef struct tonemap_t {
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    ze_rg_res_t hdr, ldr;
} tonemap_t;

static ze_result tonemap_create(ze_vk_backend_t *b, void *state)
{
    tonemap_t *t = state;
    VkDescriptorSetLayoutBinding tb[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo tci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 2,
        .pBindings = tb,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &tci, b->host_cb, &t->set_layout),
               "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2};
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    ZE__VK_TRY(b, vkCreateDescriptorPool(b->device, &pci, b->host_cb, &t->pool),
               "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = t->pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &t->set_layout,
    };
    ZE__VK_TRY(b, vkAllocateDescriptorSets(b->device, &ai, &t->set), "vkAllocateDescriptorSets");
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &t->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pc,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, b->host_cb, &t->layout),
               "vkCreatePipelineLayout");
    return ze__vk_compute_pipeline(b, "tonemap.comp", t->layout, &t->pipeline);
}

static void tonemap_destroy(ze_vk_backend_t *b, void *state)
{
    tonemap_t *t = state;
    if (t->pipeline)
        vkDestroyPipeline(b->device, t->pipeline, b->host_cb);
    if (t->layout)
        vkDestroyPipelineLayout(b->device, t->layout, b->host_cb);
    if (t->pool)
        vkDestroyDescriptorPool(b->device, t->pool, b->host_cb); /* frees the set */
    if (t->set_layout)
        vkDestroyDescriptorSetLayout(b->device, t->set_layout, b->host_cb);
    ze_rg_res_t hdr = t->hdr, ldr = t->ldr;
    memset(t, 0, sizeof *t);
    t->hdr = hdr; /* the graph's handles outlive a pipeline rebuild */
    t->ldr = ldr;
}

static void tonemap_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    tonemap_t *t = state;
    t->hdr = ze__rg_find(g, "hdr");
    t->ldr = ze__rg_find(g, ZE_VK_RES_LDR);
    ze__rg_use(g, pass, t->hdr, ZE_RG_STORAGE_READ);
    ze__rg_use(g, pass, t->ldr, ZE_RG_STORAGE_WRITE);
}

/* Both images in the layout of their uses here (GENERAL). */
static void tonemap_bind(ze_vk_backend_t *b, void *state)
{
    tonemap_t *t = state;
    VkDescriptorImageInfo ii[2] = {
        {VK_NULL_HANDLE, ze__vk_graph_res(b, t->hdr)->image.view,
         ze__rg_access(ZE_RG_STORAGE_READ)->layout},
        {VK_NULL_HANDLE, ze__vk_graph_res(b, t->ldr)->image.view,
         ze__rg_access(ZE_RG_STORAGE_WRITE)->layout},
    };
    VkWriteDescriptorSet w[2];
    for (uint32_t i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = t->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
            .pImageInfo = &ii[i],
        };
    vkUpdateDescriptorSets(b->device, 2, w, 0, NULL);
}

static ze_result tonemap_record(const ze_vk_pass_ctx_t *ctx)
{
    tonemap_t *t = ctx->state;
    const ze_vk_image_t *out = &ze__vk_graph_res(ctx->b, t->ldr)->image;
    const ze_render_state_t *s = ctx->scene;
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->layout, 0, 1, &t->set, 0, NULL);
    float pc[4] = {s->sky.exposure > 0.0f ? s->sky.exposure : 1.0f, 0, 0, 0};
    vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
    vkCmdDispatch(cmd, (out->width + 7) / 8, (out->height + 7) / 8, 1);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_tonemap = {
    .name = "tonemap",
    .kind = ZE_RG_COMPUTE,
    .state_size = sizeof(tonemap_t),
    .create = tonemap_create,
    .destroy = tonemap_destroy,
    .declare = tonemap_declare,
    .bind = tonemap_bind,
    .record = tonemap_record,
};
