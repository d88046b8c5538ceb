/* Pipelines' shared parts: SPIR-V loading and the pipeline cache with its
 * persistence (src/gfx/pso_cache.h: a validated blob under /cache/pso of
 * desc.vfs). Each pass builds its own pipelines (vk_pass_*.c) through the
 * cache. SPIR-V is compiled by glslc at build time and loaded through the
 * VFS (/ZodiacEngine/shaders/<name>.spv) once the engine attached one, from
 * <asset root>/shaders/<name>.spv before (the asset root:
 * $ZENGINE_ASSET_ROOT, else ZodiacEngine/ beside the executable).
 * Create/destroy (main thread). */
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

static ze_result shader_module(ze_vk_backend_t *b, const char *where, const uint8_t *code,
                               size_t size, VkShaderModule *out)
{
    if (size == 0 || size % 4 != 0 || ((const uint32_t *)(const void *)code)[0] != 0x07230203u) {
        ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: not SPIR-V (%zu bytes)", where, size);
        return ZE_ERR_PARSE;
    }
    VkShaderModuleCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = (const uint32_t *)(const void *)code,
    };
    VkResult vr = vkCreateShaderModule(b->device, &ci, b->host_cb, out);
    return vr == VK_SUCCESS ? ZE_OK : ze__vk_fail(b, vr, "vkCreateShaderModule");
}

/* Through the backend's VFS when it has one (the engine attaches it at the
 * pso_cache stage and rebuilds the pipelines: /ZodiacEngine/shaders, the
 * mount of the engine's packaged assets); before that, and for a backend
 * made without one (tools, tests), from the asset root on disk. */
ze_result ze__vk_shader_load(ze_vk_backend_t *b, const char *name, VkShaderModule *out)
{
    if (b->desc.vfs) {
        char vpath[128];
        snprintf(vpath, sizeof vpath, "/ZodiacEngine/shaders/%.64s.spv", name);
        ze_vfs_buffer_t buf = {0};
        ze_result r = ze_vfs_read_file(b->desc.vfs, vpath, b->alloc, &buf);
        if (r != ZE_OK) {
            ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: %s", vpath, ze_result_str(r));
            return r;
        }
        r = shader_module(b, vpath, buf.data, buf.size, out);
        ze_vfs_buffer_free(&buf);
        return r;
    }
    char root[4096], path[4200];
    asset_root(root, sizeof root);
    snprintf(path, sizeof path, "%.4000s/shaders/%.64s.spv", root, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: cannot open (set ZENGINE_ASSET_ROOT?)", path);
        return ZE_ERR_NOT_FOUND;
    }
    ze_result r = ZE_ERR_IO;
    uint8_t *code = NULL;
    long size = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (code = ze_alloc(b->alloc, (size_t)size, 4)) &&
        fread(code, 1, (size_t)size, f) == (size_t)size)
        r = shader_module(b, path, code, (size_t)size, out);
    else
        ZE_LOG_ERROR(ZE_VK_LOG, "shader %s: unreadable", path);
    if (code)
        ze_free(b->alloc, code, (size_t)size);
    fclose(f);
    return r;
}

ze_result ze__vk_scene_layout(ze_vk_backend_t *b, VkPipelineLayout *out)
{
    VkDescriptorSetLayout sets[2] = {b->bindless_layout, b->frame_layout};
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = sets,
    };
    ZE__VK_TRY(b, vkCreatePipelineLayout(b->device, &lci, b->host_cb, out),
               "vkCreatePipelineLayout");
    return ZE_OK;
}

void ze__vk_pipeline_release(ze_vk_backend_t *b, VkPipelineLayout *layout, VkPipeline *pipeline)
{
    if (*pipeline)
        vkDestroyPipeline(b->device, *pipeline, b->host_cb);
    if (*layout)
        vkDestroyPipelineLayout(b->device, *layout, b->host_cb);
    *pipeline = VK_NULL_HANDLE;
    *layout = VK_NULL_HANDLE;
}

ze_result ze__vk_scene_compute_create(ze_vk_backend_t *b, ze_vk_compute_t *c, const char *shader)
{
    ze_result r = ze__vk_scene_layout(b, &c->layout);
    if (r != ZE_OK)
        return r;
    return ze__vk_compute_pipeline(b, shader, c->layout, &c->pipeline);
}

void ze__vk_compute_destroy(ze_vk_backend_t *b, void *state)
{
    ze_vk_compute_t *c = state;
    ze__vk_pipeline_release(b, &c->layout, &c->pipeline);
}

bool ze__vk_shape_occlusion(const ze_vk_shape_t *shape)
{
    return shape->occlusion;
}

ze_result ze__vk_compute_pipeline(ze_vk_backend_t *b, const char *name, VkPipelineLayout layout,
                                  VkPipeline *out)
{
    VkShaderModule cs;
    ze_result r = ze__vk_shader_load(b, name, &cs);
    if (r != ZE_OK)
        return r;
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                  VK_SHADER_STAGE_COMPUTE_BIT, cs, "main", NULL},
        .layout = layout,
    };
    VkResult vr = vkCreateComputePipelines(b->device, b->pipeline_cache, 1, &ci, b->host_cb, out);
    vkDestroyShaderModule(b->device, cs, b->host_cb);
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

ze_result ze__vk_pipeline_cache_create(ze_vk_backend_t *b)
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
        VkResult vr = vkCreatePipelineCache(b->device, &pci, b->host_cb, &b->pipeline_cache);
        if (vr != VK_SUCCESS && pci.initialDataSize) { /* the driver refused the data */
            pci.initialDataSize = 0;
            pci.pInitialData = NULL;
            vr = vkCreatePipelineCache(b->device, &pci, b->host_cb, &b->pipeline_cache);
        }
        ze_vfs_buffer_free(&blob);
        if (vr != VK_SUCCESS)
            return ze__vk_fail(b, vr, "vkCreatePipelineCache");
    }
    return ZE_OK;
}

void ze__vk_pipeline_cache_destroy(ze_vk_backend_t *b)
{
    ze__vk_pso_save(b);
    if (b->pipeline_cache)
        vkDestroyPipelineCache(b->device, b->pipeline_cache, b->host_cb);
    b->pipeline_cache = VK_NULL_HANDLE;
}
