/* The UI overlay pass (graphics): the scene's overlay (ZUI's draw list,
 * ze_render_overlay_t) alpha-blended over the tone-mapped LDR image in one
 * instanced draw: six vertices per instance (ui.vert clips the quad to the
 * instance's clip rectangle), ui.frag shades rounded rectangles with their
 * border, glyphs from the 8-bit atlas, and images from the backend's
 * bindless textures (set 1, the geometry passes' set). On every target, so
 * screenshots show it; nothing is drawn for a frame without an overlay.
 * Images: an instance carries a ze_render_texture_t id (texture_handle.c);
 * recording resolves each id to its texture's uuid, the uuid to the
 * resident texture's bindless slot (the fallback's when it is not
 * resident), and writes the slot, and whether the texture is sRGB (the
 * shader then encodes what it samples back to sRGB, the space the overlay
 * blends in), into the GPU's copy of the instance.
 * Graph: the imported "ldr" as a colour attachment (loaded and stored),
 * ordered after tone mapping (after_previous: both write it) and before
 * present, which reads it.
 * Data: per frame slot, one host-visible buffer (grown by doubling, the old
 * one freed by timeline value) holds the instances (the storage buffer the
 * shaders read) and, in a frame that uploads the atlas, its pixels (the
 * copy's source); the slot's descriptor set (instances, atlas) is
 * rewritten when either changed, which is safe because the slot's
 * previous frame has finished. The atlas is one R8 image, uploaded inside
 * this pass's commands when an overlay carries a revision other than the
 * one uploaded (re-created, the old one freed by timeline value, when its
 * size changed); a 1x1 empty one stands in until the first atlas arrives.
 * Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

#define ATLAS_FORMAT VK_FORMAT_R8_UNORM

typedef struct ui_slot_t {
    ze_vk_buffer_t data; /* instances, then atlas pixels when uploading */
    VkDescriptorSet set; /* binding 0: instances, 1: the atlas */
    /* what the set holds: its buffer is current, and the atlas of that
       generation (handles may be reused once freed: not compared) */
    bool buffer_bound;
    uint64_t atlas_bound;
} ui_slot_t;

typedef struct ui_pass_t {
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkSampler sampler;
    ui_slot_t slots[ZE_VK_FRAMES];
    ze_vk_image_t atlas;
    uint64_t atlas_gen;      /* images made so far (the current one's number) */
    uint64_t atlas_revision; /* uploaded revision + 1; 0: the stand-in or none */
    ze_rg_res_t ldr;
} ui_pass_t;

typedef struct ui_push_t {
    float to_ndc[2], frag_to_ui[2];
} ui_push_t;

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a)
{
    return (v + a - 1) / a * a;
}

/* ------------------------------------------------------------- create */

static ze_result ui_pipeline(ze_vk_backend_t *b, ui_pass_t *u)
{
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    ze_result r = ze__vk_shader_load(b, "ui.vert", &vs);
    if (r == ZE_OK)
        r = ze__vk_shader_load(b, "ui.frag", &fs);
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
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
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
    };
    /* premultiplied alpha over the image; its alpha stays 1 */
    VkPipelineColorBlendAttachmentState att = {
        .blendEnable = VK_TRUE,
        .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .alphaBlendOp = VK_BLEND_OP_ADD,
        .colorWriteMask = 0xF,
    };
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &att,
    };
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = 2,
        .pDynamicStates = dyn,
    };
    VkFormat color = VK_FORMAT_R8G8B8A8_UNORM; /* every target's LDR image */
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color,
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
        .layout = u->layout,
    };
    VkResult vr =
        vkCreateGraphicsPipelines(b->device, b->pipeline_cache, 1, &gci, b->host_cb, &u->pipeline);
    vkDestroyShaderModule(b->device, vs, b->host_cb);
    vkDestroyShaderModule(b->device, fs, b->host_cb);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateGraphicsPipelines");
}

static ze_result ui_create(ze_vk_backend_t *b, void *state)
{
    ui_pass_t *u = state;
    VkDescriptorSetLayoutBinding sb[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
         VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 2,
        .pBindings = sb,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &sci, b->host_cb, &u->set_layout),
               "vkCreateDescriptorSetLayout");
    VkDescriptorPoolSize sizes[2] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, ZE_VK_FRAMES},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ZE_VK_FRAMES},
    };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = ZE_VK_FRAMES,
        .poolSizeCount = 2,
        .pPoolSizes = sizes,
    };
    ZE__VK_TRY(b, vkCreateDescriptorPool(b->device, &pci, b->host_cb, &u->pool),
               "vkCreateDescriptorPool");
    VkDescriptorSetLayout layouts[ZE_VK_FRAMES];
    VkDescriptorSet sets[ZE_VK_FRAMES];
    for (uint32_t i = 0; i < ZE_VK_FRAMES; i++)
        layouts[i] = u->set_layout;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = u->pool,
        .descriptorSetCount = ZE_VK_FRAMES,
        .pSetLayouts = layouts,
    };
    ZE__VK_TRY(b, vkAllocateDescriptorSets(b->device, &ai, sets), "vkAllocateDescriptorSets");
    for (uint32_t i = 0; i < ZE_VK_FRAMES; i++)
        u->slots[i].set = sets[i];
    VkPushConstantRange pc = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                              sizeof(ui_push_t)};
    VkDescriptorSetLayout set_layouts[2] = {u->set_layout, b->bindless_layout};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = set_layouts,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pc,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, b->host_cb, &u->layout),
               "vkCreatePipelineLayout");
    VkSamplerCreateInfo smp = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_LINEAR,
        .minFilter = VK_FILTER_LINEAR,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    ZE__VK_TRY(b, vkCreateSampler(b->device, &smp, b->host_cb, &u->sampler), "vkCreateSampler");
    return ui_pipeline(b, u);
}

/* Create and destroy run with no frame in flight (the GPU idle). */
static void ui_destroy(ze_vk_backend_t *b, void *state)
{
    ui_pass_t *u = state;
    for (uint32_t i = 0; i < ZE_VK_FRAMES; i++)
        ze__vk_buffer_destroy(b, &u->slots[i].data);
    ze__vk_image_destroy(b, &u->atlas);
    if (u->pipeline)
        vkDestroyPipeline(b->device, u->pipeline, b->host_cb);
    if (u->layout)
        vkDestroyPipelineLayout(b->device, u->layout, b->host_cb);
    if (u->sampler)
        vkDestroySampler(b->device, u->sampler, b->host_cb);
    if (u->pool)
        vkDestroyDescriptorPool(b->device, u->pool, b->host_cb); /* frees the sets */
    if (u->set_layout)
        vkDestroyDescriptorSetLayout(b->device, u->set_layout, b->host_cb);
    ze_rg_res_t ldr = u->ldr;
    memset(u, 0, sizeof *u);
    u->ldr = ldr; /* the graph's handle outlives a pipeline rebuild */
}

static void ui_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                       const ze_vk_shape_t *shape)
{
    (void)b;
    (void)shape;
    ui_pass_t *u = state;
    u->ldr = ze__rg_find(g, ZE_VK_RES_LDR);
    ze__rg_use(g, pass, u->ldr, ZE_RG_COLOR_ATTACHMENT);
}

/* ------------------------------------------------------------- record */

/* The slot's buffer holds at least `bytes` (the old one freed once the GPU
 * is past it). */
static ze_result slot_buffer(ze_vk_backend_t *b, ui_slot_t *s, VkDeviceSize bytes)
{
    if (s->data.buffer && s->data.size >= bytes)
        return ZE_OK;
    VkDeviceSize cap = s->data.size ? s->data.size : 64 * 1024;
    while (cap < bytes)
        cap *= 2;
    ze__vk_defer_buffer(b, &s->data);
    s->buffer_bound = false;
    return ze__vk_buffer_create(
        b, cap, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true,
        &s->data);
}

/* The atlas image from `offset` of the slot's buffer: a new image when the
 * size changed (or none exists), behind barriers that order the copy after
 * earlier frames' sampling and the sampling after the copy. */
static ze_result upload_atlas(ze_vk_backend_t *b, ui_pass_t *u, VkCommandBuffer cmd,
                              const ze_vk_buffer_t *src, VkDeviceSize offset, uint32_t w,
                              uint32_t h)
{
    bool fresh = !u->atlas.image || u->atlas.width != w || u->atlas.height != h;
    if (fresh) {
        if (u->atlas.image)
            ze__vk_defer_image(b, &u->atlas);
        ze_result r = ze__vk_image_create(
            b, ATLAS_FORMAT, w, h, 1, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
            &u->atlas);
        if (r != ZE_OK)
            return r;
        u->atlas_gen++;
    }
    /* the whole image is replaced: its old contents are not needed */
    ze__vk_image_barrier(cmd, u->atlas.image, VK_IMAGE_ASPECT_COLOR_BIT,
                         fresh ? VK_PIPELINE_STAGE_2_NONE : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
                         VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1);
    VkBufferImageCopy region = {
        .bufferOffset = offset,
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {w, h, 1},
    };
    vkCmdCopyBufferToImage(cmd, src->buffer, u->atlas.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           1, &region);
    ze__vk_image_barrier(cmd, u->atlas.image, VK_IMAGE_ASPECT_COLOR_BIT,
                         VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 1);
    return ZE_OK;
}

static void bind_slot(ze_vk_backend_t *b, ui_pass_t *u, ui_slot_t *s)
{
    if (s->buffer_bound && s->atlas_bound == u->atlas_gen)
        return;
    VkDescriptorBufferInfo bi = {s->data.buffer, 0, VK_WHOLE_SIZE};
    VkDescriptorImageInfo ii = {u->sampler, u->atlas.view,
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet w[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
         .dstSet = s->set,
         .dstBinding = 0,
         .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         .pBufferInfo = &bi},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
         .dstSet = s->set,
         .dstBinding = 1,
         .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
         .pImageInfo = &ii},
    };
    vkUpdateDescriptorSets(b->device, 2, w, 0, NULL);
    s->buffer_bound = true;
    s->atlas_bound = u->atlas_gen;
}

/* The GPU copy's image instances: texture id -> bindless slot, and the
 * sRGB flag in _pad. Ids are resolved in runs under one lock each. */
static void resolve_images(ze_vk_backend_t *b, ze_render_ui_instance_t *gpu, uint32_t count)
{
    enum { RUN = 64 };
    uint32_t at[RUN], ids[RUN];
    ze_uuid_t uuids[RUN];
    uint32_t i = 0;
    while (i < count) {
        uint32_t n = 0;
        for (; i < count && n < RUN; i++) {
            if (gpu[i].kind != ZE_RENDER_UI_IMAGE)
                continue;
            at[n] = i;
            ids[n++] = gpu[i].texture;
        }
        if (!n)
            break;
        ze__render_textures_resolve(&b->base, ids, uuids, n);
        for (uint32_t k = 0; k < n; k++) {
            const ze_vk_texture_t *tex =
                ze_uuid_is_nil(uuids[k]) ? NULL : ze_hashmap_get(&b->textures, &uuids[k]);
            ze_render_ui_instance_t *in = &gpu[at[k]];
            in->texture = tex ? tex->slot : ZE_VK_TEX_FALLBACK;
            /* sRGB images come back linear from the sampler: re-encoded
               (the pink fallback is one) */
            VkFormat fmt = tex ? tex->image.format : VK_FORMAT_R8G8B8A8_SRGB;
            in->_pad = fmt == VK_FORMAT_R8G8B8A8_SRGB || fmt == VK_FORMAT_BC1_RGB_SRGB_BLOCK ||
                       fmt == VK_FORMAT_BC3_SRGB_BLOCK;
        }
    }
}

static ze_result ui_record(const ze_vk_pass_ctx_t *ctx)
{
    ze_vk_backend_t *b = ctx->b;
    ui_pass_t *u = ctx->state;
    const ze_render_overlay_t *ov = ctx->scene->overlay;
    uint32_t count = ov ? ov->instance_count : 0;
    atomic_store_explicit(&b->ui_instances, count, memory_order_relaxed);
    if (!ov)
        return ZE_OK;
    bool upload = ov->atlas_pixels && ov->atlas_revision + 1 != u->atlas_revision;
    bool stand_in = !upload && !u->atlas.image; /* a 1x1 empty atlas */
    if (!count && !upload)
        return ZE_OK;
    uint32_t aw = upload ? ov->atlas_width : 1, ah = upload ? ov->atlas_height : 1;
    VkDeviceSize inst_bytes = sizeof(ze_render_ui_instance_t) * (VkDeviceSize)count;
    VkDeviceSize atlas_off = align_up(inst_bytes, 256);
    VkDeviceSize atlas_bytes = upload || stand_in ? (VkDeviceSize)aw * ah : 0;
    ui_slot_t *s = &u->slots[(size_t)(ctx->f - b->frames)];
    ze_result r = slot_buffer(b, s, atlas_off + atlas_bytes);
    if (r != ZE_OK)
        return r;
    if (count) { /* host-coherent: visible to the submission that follows */
        memcpy(s->data.map, ov->instances, (size_t)inst_bytes);
        resolve_images(b, (ze_render_ui_instance_t *)(void *)s->data.map, count);
    }
    if (upload || stand_in) {
        if (upload)
            memcpy(s->data.map + atlas_off, ov->atlas_pixels, (size_t)atlas_bytes);
        else
            s->data.map[atlas_off] = 0;
        r = upload_atlas(b, u, ctx->cmd, &s->data, atlas_off, aw, ah);
        if (r != ZE_OK)
            return r;
        u->atlas_revision = upload ? ov->atlas_revision + 1 : 0;
        if (upload)
            atomic_fetch_add_explicit(&b->ui_atlas_uploads, 1, memory_order_relaxed);
    }
    if (!count)
        return ZE_OK;
    bind_slot(b, u, s);

    const ze_vk_image_t *ldr = &ze__vk_graph_res(b, u->ldr)->image;
    uint32_t w = ldr->width, h = ldr->height;
    float uw = (float)(ov->width ? ov->width : w), uh = (float)(ov->height ? ov->height : h);
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = ldr->view,
        .imageLayout = ze__rg_access(ZE_RG_COLOR_ATTACHMENT)->layout,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {w, h}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
    };
    VkCommandBuffer cmd = ctx->cmd;
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, 0, (float)w, (float)h, 0.0f, 1.0f};
    VkRect2D sc = {{0, 0}, {w, h}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, u->pipeline);
    VkDescriptorSet sets[2] = {s->set, b->bindless_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, u->layout, 0, 2, sets, 0, NULL);
    ui_push_t pc = {{2.0f / uw, 2.0f / uh}, {uw / (float)w, uh / (float)h}};
    vkCmdPushConstants(cmd, u->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof pc, &pc);
    vkCmdDraw(cmd, 6, count, 0, 0); /* the overlay's one draw */
    vkCmdEndRendering(cmd);
    return ZE_OK;
}

const ze_vk_pass_t ze__vk_pass_ui = {
    .name = "ui",
    .kind = ZE_RG_GRAPHICS,
    .state_size = sizeof(ui_pass_t),
    .create = ui_create,
    .destroy = ui_destroy,
    .after_previous = true,
    .declare = ui_declare,
    .record = ui_record,
};
