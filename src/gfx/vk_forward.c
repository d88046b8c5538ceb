/* Pipelines and passes of phase 1: a forward pass (depth + Cook-Torrance
 * shading into an RGBA16F image: base colour texture, metallic/roughness,
 * normal map; one directional light, up to ZE_VK_MAX_POINT_LIGHTS point
 * lights; cleared to the sky colour) and the ACES tone-mapping compute pass
 * into the target's RGBA8 image (sRGB encoded in the shader).
 *
 * Forward fragment shading is the phase-1 exception to DESIGN's compute
 * rule for full-screen work; tone mapping already runs as compute. Draws
 * come from one vkCmdDrawIndexedIndirectCount over a per-frame list of
 * indexed commands (one per instance and submesh; firstInstance indexes the
 * per-draw SSBO: world and normal matrices, material index), vertices and
 * indices from the RRM's global buffers. SPIR-V is compiled by glslc at
 * build time and loaded from <asset root>/shaders/<name>.spv (the asset
 * root: $ZENGINE_ASSET_ROOT, else ZodiacEngine/ beside the executable).
 * Render thread, or create/destroy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfx/pso_cache.h"
#include "gfx/vk_internal.h"

static void asset_root(char *out, size_t cap)
{
    if (!ze_vfs_default_engine_root(out, cap, NULL))
        snprintf(out, cap, "ZodiacEngine"); /* relative: the open fails clearly */
}

ze_result ze__vk_shader_load(ze_vk_backend_t *b, const char *name, VkShaderModule *out)
{
    char root[4096], path[4200];
    asset_root(root, sizeof root);
    snprintf(path, sizeof path, "%.4000s/shaders/%.64s.spv", root, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: cannot open (set ZENGINE_ASSET_ROOT?)", path);
        return ZE_ERR_NOT_FOUND;
    }
    ze_result r = ZE_ERR_IO;
    uint32_t *code = NULL;
    long size = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && size % 4 == 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (code = ze_alloc(b->alloc, (size_t)size, 4)) &&
        fread(code, 1, (size_t)size, f) == (size_t)size) {
        VkShaderModuleCreateInfo ci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = (size_t)size,
            .pCode = code,
        };
        VkResult vr = vkCreateShaderModule(b->device, &ci, NULL, out);
        r = vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateShaderModule");
    } else {
        ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: unreadable or not SPIR-V", path);
    }
    if (code)
        ze_free(b->alloc, code, (size_t)size);
    fclose(f);
    return r;
}

static ze_result forward_pipeline(ze_vk_backend_t *b)
{
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    ze_result r = ze__vk_shader_load(b, "forward.vert", &vs);
    if (r == ZE_OK)
        r = ze__vk_shader_load(b, "forward.frag", &fs);
    if (r != ZE_OK) {
        if (vs)
            vkDestroyShaderModule(b->device, vs, NULL);
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
    /* No culling: double-sided and single-sided materials alike (the
       fragment shader flips back-facing normals). Projections are y-down,
       so glTF's counter-clockwise front faces stay counter-clockwise. */
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
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = 2,
        .pDynamicStates = dyn,
    };
    VkFormat color = VK_FORMAT_R16G16B16A16_SFLOAT;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color,
        .depthAttachmentFormat = VK_FORMAT_D32_SFLOAT,
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
        .layout = b->forward_layout,
    };
    VkResult vr = vkCreateGraphicsPipelines(b->device, b->pipeline_cache, 1, &gci, NULL,
                                            &b->forward_pipeline);
    vkDestroyShaderModule(b->device, vs, NULL);
    vkDestroyShaderModule(b->device, fs, NULL);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateGraphicsPipelines");
}

static ze_result tonemap_pipeline(ze_vk_backend_t *b)
{
    VkShaderModule cs;
    ze_result r = ze__vk_shader_load(b, "tonemap.comp", &cs);
    if (r != ZE_OK)
        return r;
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                  VK_SHADER_STAGE_COMPUTE_BIT, cs, "main", NULL},
        .layout = b->tonemap_pipeline_layout,
    };
    VkResult vr =
        vkCreateComputePipelines(b->device, b->pipeline_cache, 1, &ci, NULL, &b->tonemap_pipeline);
    vkDestroyShaderModule(b->device, cs, NULL);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateComputePipelines");
}

static const char *PSO_NAME = "pipelines";

static void pso_id(ze_vk_backend_t *b, ze__pso_device_id_t *id)
{
    id->vendor = b->gpu_props.vendorID;
    id->device = b->gpu_props.deviceID;
    id->driver = b->gpu_props.driverVersion;
    memcpy(id->cache_uuid, b->gpu_props.pipelineCacheUUID, ZE__PSO_UUID_SIZE);
}

/* Destroy: the pipeline cache's data to /cache/pso (when persistence is on). */
void ze__vk_pso_save(ze_vk_backend_t *b)
{
    if (!b->desc.vfs || !b->pso_persist || !b->pipeline_cache || b->lost)
        return;
    size_t size = 0;
    if (vkGetPipelineCacheData(b->device, b->pipeline_cache, &size, NULL) != VK_SUCCESS || !size)
        return;
    void *data = ze_alloc(b->alloc, size, 16);
    if (!data)
        return;
    size_t got = size;
    ze__pso_device_id_t id;
    pso_id(b, &id);
    if (vkGetPipelineCacheData(b->device, b->pipeline_cache, &got, data) == VK_SUCCESS &&
        ze__pso_cache_save(b->desc.vfs, PSO_NAME, &id, data, got) == ZE_OK)
        ZE_LOG_DEBUG(ZE_VK_LOG, "pipeline cache: %zu bytes saved", got);
    ze_free(b->alloc, data, size);
}

ze_result ze__vk_forward_create(ze_vk_backend_t *b)
{
    if (!b->pipeline_cache) {
        VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
        ze_vfs_buffer_t blob = {0};
        if (b->desc.vfs) {
            ze__pso_device_id_t id;
            pso_id(b, &id);
            const void *data = NULL;
            size_t size = 0;
            bool on = false;
            if (ze__pso_cache_load(b->desc.vfs, PSO_NAME, &id, (ze_allocator_t){0}, &blob, &data,
                                   &size, &on) == ZE_OK &&
                data) {
                pci.initialDataSize = size;
                pci.pInitialData = data;
            }
            b->pso_persist = on;
            ZE_LOG_INFO(ZE_VK_LOG, "pipeline cache: %zu bytes loaded, persistence %s", size,
                        on ? "on" : "off");
        }
        VkResult vr = vkCreatePipelineCache(b->device, &pci, NULL, &b->pipeline_cache);
        if (vr != VK_SUCCESS && pci.initialDataSize) { /* the driver refused the data */
            pci.initialDataSize = 0;
            pci.pInitialData = NULL;
            vr = vkCreatePipelineCache(b->device, &pci, NULL, &b->pipeline_cache);
        }
        ze_vfs_buffer_free(&blob);
        if (vr != VK_SUCCESS)
            return ze__vk_fail(b, vr, "vkCreatePipelineCache");
    }
    VkDescriptorSetLayout sets[2] = {b->bindless_layout, b->frame_layout};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = sets,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, NULL, &b->forward_layout),
               "vkCreatePipelineLayout");
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
    VkPipelineLayoutCreateInfo tci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &b->tonemap_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pc,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &tci, NULL, &b->tonemap_pipeline_layout),
               "vkCreatePipelineLayout");
    ze_result r = forward_pipeline(b);
    return r == ZE_OK ? tonemap_pipeline(b) : r;
}

void ze__vk_forward_destroy(ze_vk_backend_t *b)
{
    if (b->forward_pipeline)
        vkDestroyPipeline(b->device, b->forward_pipeline, NULL);
    if (b->tonemap_pipeline)
        vkDestroyPipeline(b->device, b->tonemap_pipeline, NULL);
    if (b->forward_layout)
        vkDestroyPipelineLayout(b->device, b->forward_layout, NULL);
    if (b->tonemap_pipeline_layout)
        vkDestroyPipelineLayout(b->device, b->tonemap_pipeline_layout, NULL);
    ze__vk_pso_save(b);
    if (b->pipeline_cache)
        vkDestroyPipelineCache(b->device, b->pipeline_cache, NULL);
    b->pipeline_cache = VK_NULL_HANDLE;
}

/* ------------------------------------------------------- per-frame data */

typedef struct layout_t {
    VkDeviceSize materials, draws, indirect, count, total;
} layout_t;

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a)
{
    return (v + a - 1) / a * a;
}

static layout_t frame_layout(uint32_t draws, uint32_t materials)
{
    layout_t l;
    l.materials = align_up(sizeof(ze_vk_gpu_frame_t), 256);
    l.draws = align_up(l.materials + sizeof(ze_vk_gpu_material_t) * materials, 256);
    l.indirect = align_up(l.draws + sizeof(ze_vk_gpu_draw_t) * draws, 256);
    l.count = align_up(l.indirect + sizeof(VkDrawIndexedIndirectCommand) * draws, 256);
    l.total = l.count + 256;
    return l;
}

static ze_result frame_data(ze_vk_backend_t *b, ze_vk_frame_t *f, uint32_t draws)
{
    uint32_t want = draws + 1; /* materials: at most one per draw, plus the default */
    if (f->data.buffer && draws <= f->draw_capacity && want <= f->material_capacity)
        return ZE_OK;
    uint32_t cap = f->draw_capacity ? f->draw_capacity : 64;
    while (cap < want)
        cap *= 2;
    layout_t l = frame_layout(cap, cap);
    ze__vk_defer_buffer(b, &f->data);
    ze_result r = ze__vk_buffer_create(b, l.total,
                                       VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                       true, &f->data);
    if (r != ZE_OK) {
        f->draw_capacity = f->material_capacity = 0;
        return r;
    }
    f->draw_capacity = f->material_capacity = cap;
    VkDescriptorBufferInfo bi[3] = {
        {f->data.buffer, 0, sizeof(ze_vk_gpu_frame_t)},
        {f->data.buffer, l.materials, sizeof(ze_vk_gpu_material_t) * cap},
        {f->data.buffer, l.draws, sizeof(ze_vk_gpu_draw_t) * cap},
    };
    VkWriteDescriptorSet w[3];
    for (uint32_t i = 0; i < 3; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = f->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType =
                i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &bi[i],
        };
    vkUpdateDescriptorSets(b->device, 3, w, 0, NULL);
    return ZE_OK;
}

static void gpu_material(ze_vk_backend_t *b, const ze_zematerial_t *m, ze_vk_gpu_material_t *g)
{
    memcpy(g->base_color, &m->base_color_factor, sizeof g->base_color);
    g->params[0] = m->metallic_factor;
    g->params[1] = m->roughness_factor;
    g->params[2] = m->normal.present ? m->normal.scale : 1.0f;
    g->params[3] = m->alpha_cutoff;
    g->tex[0] = ze__vk_rrm_texture_slot(b, &m->base_color, ZE_VK_TEX_NONE);
    g->tex[1] = ze__vk_rrm_texture_slot(b, &m->metallic_roughness, ZE_VK_TEX_NONE);
    g->tex[2] = ze__vk_rrm_texture_slot(b, &m->normal, ZE_VK_TEX_NONE);
    g->tex[3] = (m->alpha_mode == ZE_ALPHA_MASK ? ZE_VK_MAT_MASK : 0u) |
                (m->double_sided ? ZE_VK_MAT_DOUBLE_SIDED : 0u);
}

static uint32_t material_index(ze_vk_backend_t *b, ze_uuid_t uuid, ze_vk_gpu_material_t *mats,
                               uint32_t *count)
{
    if (ze_uuid_is_nil(uuid))
        return 0;
    ze_vk_material_t *m = ze_hashmap_get(&b->materials, &uuid);
    if (!m)
        return 0;
    if (m->stamp != b->frame_calls) {
        m->stamp = b->frame_calls;
        m->gpu_index = (*count)++;
        gpu_material(b, &m->m, &mats[m->gpu_index]);
    }
    return m->gpu_index;
}

static void mat_copy(float dst[16], const ze_mat4_t *m)
{
    memcpy(dst, m, sizeof(float) * 16);
}

static uint32_t count_draws(ze_vk_backend_t *b, const ze_render_scene_t *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const ze_vk_mesh_t *m = ze_hashmap_get(&b->meshes, &s->instances[i].mesh);
        if (m)
            n += m->submesh_count;
    }
    return n;
}

static void fill_frame(ze_vk_backend_t *b, const ze_render_scene_t *s, ze_vk_gpu_frame_t *g)
{
    memset(g, 0, sizeof *g);
    ze_mat4_t vp = ze_mat4_mul(s->camera.projection, s->camera.view);
    mat_copy(g->view_proj, &vp);
    g->camera_pos[0] = s->camera.position.x;
    g->camera_pos[1] = s->camera.position.y;
    g->camera_pos[2] = s->camera.position.z;
    g->sky[0] = s->sky.clear_color.x;
    g->sky[1] = s->sky.clear_color.y;
    g->sky[2] = s->sky.clear_color.z;
    g->sky[3] = 0.1f; /* ambient: a tenth of the sky colour */
    uint32_t points = 0;
    bool sun = false;
    for (uint32_t i = 0; i < s->light_count; i++) {
        const ze_render_light_t *l = &s->lights[i];
        if (l->type == ZE_RENDER_LIGHT_DIRECTIONAL && !sun) {
            sun = true;
            g->light_dir[0] = l->direction.x;
            g->light_dir[1] = l->direction.y;
            g->light_dir[2] = l->direction.z;
            g->light_dir[3] = 1.0f;
            g->light_color[0] = l->color.x * l->intensity;
            g->light_color[1] = l->color.y * l->intensity;
            g->light_color[2] = l->color.z * l->intensity;
        } else if (l->type != ZE_RENDER_LIGHT_DIRECTIONAL && points < ZE_VK_MAX_POINT_LIGHTS) {
            float *p = g->point_pos[points], *c = g->point_color[points];
            p[0] = l->position.x;
            p[1] = l->position.y;
            p[2] = l->position.z;
            p[3] = l->range;
            c[0] = l->color.x * l->intensity;
            c[1] = l->color.y * l->intensity;
            c[2] = l->color.z * l->intensity;
            points++;
        }
    }
    g->counts[0] = points;
}

/* Draw list, materials and the frame constants into f->data. */
static ze_result build_draws(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_scene_t *s)
{
    uint32_t draws = s->has_camera ? count_draws(b, s) : 0;
    ze_result r = frame_data(b, f, draws);
    if (r != ZE_OK)
        return r;
    layout_t l = frame_layout(f->draw_capacity, f->material_capacity);
    uint8_t *base = f->data.map;
    fill_frame(b, s, (ze_vk_gpu_frame_t *)base);
    ze_vk_gpu_material_t *mats = (ze_vk_gpu_material_t *)(base + l.materials);
    ze_vk_gpu_draw_t *gd = (ze_vk_gpu_draw_t *)(base + l.draws);
    VkDrawIndexedIndirectCommand *cmds = (VkDrawIndexedIndirectCommand *)(base + l.indirect);
    /* material 0: the default (white, non-metal, roughness 0.5) */
    mats[0] = (ze_vk_gpu_material_t){
        .base_color = {1, 1, 1, 1},
        .params = {0.0f, 0.5f, 1.0f, 0.5f},
        .tex = {ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, ZE_VK_TEX_NONE, 0},
    };
    uint32_t nmat = 1, n = 0;
    for (uint32_t i = 0; i < s->instance_count && draws; i++) {
        const ze_render_instance_t *in = &s->instances[i];
        const ze_vk_mesh_t *m = ze_hashmap_get(&b->meshes, &in->mesh);
        if (!m)
            continue;
        ze_mat4_t inv, nrm;
        if (!ze_mat4_inverse(in->world, &inv))
            inv = ze_mat4_identity();
        nrm = ze_mat4_transpose(inv);
        for (uint32_t k = 0; k < m->submesh_count && n < draws; k++) {
            const ze_vk_submesh_t *sm = &m->submeshes[k];
            ze_uuid_t mu = ze_uuid_is_nil(in->material) ? sm->material : in->material;
            mat_copy(gd[n].world, &in->world);
            mat_copy(gd[n].normal, &nrm);
            gd[n].material = material_index(b, mu, mats, &nmat);
            cmds[n] = (VkDrawIndexedIndirectCommand){
                .indexCount = sm->index_count,
                .instanceCount = 1,
                .firstIndex = (uint32_t)m->index_first + sm->index_offset,
                .vertexOffset = (int32_t)m->vertex_first,
                .firstInstance = n,
            };
            n++;
        }
    }
    *(uint32_t *)(base + l.count) = n;
    b->draws = n;
    return ZE_OK;
}

/* ----------------------------------------------------------- recording */

static void write_tonemap_set(ze_vk_backend_t *b, ze_vk_image_t *out)
{
    VkDescriptorImageInfo ii[2] = {
        {VK_NULL_HANDLE, b->hdr.view, VK_IMAGE_LAYOUT_GENERAL},
        {VK_NULL_HANDLE, out->view, VK_IMAGE_LAYOUT_GENERAL},
    };
    VkWriteDescriptorSet w[2];
    for (uint32_t i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = b->tonemap_set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
            .pImageInfo = &ii[i],
        };
    vkUpdateDescriptorSets(b->device, 2, w, 0, NULL);
}

ze_result ze__vk_forward_record(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_render_scene_t *s,
                                ze_vk_image_t *out)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_result r = build_draws(b, f, s);
    if (r != ZE_OK)
        return r;
    VkCommandBuffer cmd = f->cmd;
    uint32_t w = out->width, h = out->height;
    ze__vk_image_barrier(
        cmd, b->hdr.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
        VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 1);
    ze__vk_image_barrier(
        cmd, b->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, 1);
    ze__vk_timestamp(b, cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, 0);
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = b->hdr.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.color = {{s->sky.clear_color.x, s->sky.clear_color.y, s->sky.clear_color.z,
                              1.0f}},
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = b->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
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
    if (b->draws) {
        VkViewport vp = {0, 0, (float)w, (float)h, 0.0f, 1.0f};
        VkRect2D sc = {{0, 0}, {w, h}};
        vkCmdSetViewport(cmd, 0, 1, &vp);
        vkCmdSetScissor(cmd, 0, 1, &sc);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, b->forward_pipeline);
        VkDescriptorSet sets[2] = {b->bindless_set, f->set};
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, b->forward_layout, 0, 2, sets,
                                0, NULL);
        VkDeviceSize zero = 0;
        vkCmdBindVertexBuffers(cmd, 0, 1, &b->vb.buffer, &zero);
        vkCmdBindIndexBuffer(cmd, b->ib.buffer, 0, VK_INDEX_TYPE_UINT32);
        layout_t l = frame_layout(f->draw_capacity, f->material_capacity);
        vkCmdDrawIndexedIndirectCount(cmd, f->data.buffer, l.indirect, f->data.buffer, l.count,
                                      b->draws, sizeof(VkDrawIndexedIndirectCommand));
    }
    vkCmdEndRendering(cmd);
    ze__vk_timestamp(b, cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, 1);

    /* ACES tone mapping: HDR -> the target's RGBA8 image */
    ze__vk_image_barrier(
        cmd, b->hdr.image, VK_IMAGE_ASPECT_COLOR_BIT,
        VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, 1);
    ze__vk_image_barrier(
        cmd, out->image, VK_IMAGE_ASPECT_COLOR_BIT,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, 0,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 1);
    ze__vk_timestamp(b, cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 2);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->tonemap_pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->tonemap_pipeline_layout, 0, 1,
                            &b->tonemap_set, 0, NULL);
    float pc[4] = {s->sky.exposure > 0.0f ? s->sky.exposure : 1.0f, 0, 0, 0};
    vkCmdPushConstants(cmd, b->tonemap_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc,
                       pc);
    vkCmdDispatch(cmd, (w + 7) / 8, (h + 7) / 8, 1);
    ze__vk_timestamp(b, cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 3);
    return ZE_OK;
}

void ze__vk_forward_bind_target(ze_vk_backend_t *b, ze_vk_image_t *out)
{
    write_tonemap_set(b, out);
}
