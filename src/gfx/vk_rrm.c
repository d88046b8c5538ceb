/* The render resource manager (RRM).
 *
 * asset_ready (main thread) converts what the renderer keeps into a payload
 * from the Render owner — meshes into our vertex layout (ze_vk_vertex_t:
 * position, normal, uv0, tangent) plus u32 indices and submeshes, textures
 * as their RGBA8 mip chain, materials copied whole — and publishes a record
 * in a bounded single-producer single-consumer ring (the null backend's
 * protocol: monotonic 64-bit head/tail, release/acquire on the indices).
 * A full ring is ZE_ERR_FULL (counted; the engine retries next frame).
 *
 * BeginFrame (render thread) drains the ring: every upload of the frame is
 * recorded into the frame's own command buffer ahead of the passes, so one
 * submission carries them. Bytes go through a staging ring (host-visible,
 * 16 MiB; space comes back when the frame that used it retires; an upload
 * bigger than half the ring gets its own staging buffer, freed deferred;
 * when the ring is full the rest of the queue waits for the next frame).
 * Meshes live in one global vertex buffer and one global index buffer
 * (first-fit ranges; both grow by copying when full). Textures are images
 * in a bindless array (descriptor indexing, update-after-bind) with three
 * built-in slots: the hot-pink 4x4 fallback for a texture that is not
 * resident (slot 0), white, and a flat normal. A reloaded asset replaces the
 * old one; the old buffers, images and bindless slots are freed by timeline
 * value (deferred). Materials are resolved against resident textures each
 * frame (vk_forward.c writes the frame's materials SSBO).
 * A scene_revision change is counted; resident assets stay (keyed by uuid:
 * the asset manager does not send them again).
 * Unload: ze_render_backend_asset_release queues a release record (type
 * UNKNOWN) in the same ring, so it is applied in order with the uploads:
 * the resident entry goes, a mesh's vertex and index ranges return to the
 * free lists (reused only behind the next upload's barrier, which waits
 * for every earlier submission), a texture's image and bindless slot are
 * freed by timeline value. When the last mesh is gone, the global buffers
 * go back to their initial size (the seed's ResetGeometryBuffers: a level
 * change does not keep the largest level's buffers). Growth stops at the
 * geometry budgets (desc): a mesh that does not fit under one is refused,
 * logged with the budget and the sizes. */
#include <string.h>

#include "gfx/vk_internal.h"

enum {
    DEFAULT_PENDING = 1024,
    STAGING_SIZE = 16u << 20,
    VB_INITIAL = 1u << 16, /* vertices */
    IB_INITIAL = 1u << 18, /* indices */
};

static bool kept_type(uint32_t type)
{
    return type == ZE_ASSET_TYPE_MESH || type == ZE_ASSET_TYPE_MATERIAL ||
           type == ZE_ASSET_TYPE_TEXTURE || type == ZE_ASSET_TYPE_ENVMAP;
}

/* ------------------------------------------------------ main thread side */

static size_t mesh_payload_size(const ze_zemesh_view_t *v)
{
    return sizeof(ze_vk_mesh_payload_t) + sizeof(ze_vk_submesh_t) * v->submesh_count +
           sizeof(ze_vk_vertex_t) * (size_t)v->vertex_count + sizeof(uint32_t) * v->index_count;
}

_Static_assert((int)ZE_RENDER_LOD_MAX == (int)ZE_ZEMESH_LOD_MAX,
               "every level of a cooked mesh is drawable");

static void read_f32(const uint8_t *p, float *out, int n)
{
    memcpy(out, p, sizeof(float) * (size_t)n);
}

static void mesh_payload(const ze_zemesh_view_t *v, uint8_t *p)
{
    ze_vk_mesh_payload_t *h = (ze_vk_mesh_payload_t *)p;
    memset(h, 0, sizeof *h);
    h->vertex_count = v->vertex_count;
    h->index_count = v->index_count;
    h->submesh_count = v->submesh_count;
    h->min = v->min;
    h->max = v->max;
    ze_vk_submesh_t *subs = (ze_vk_submesh_t *)(h + 1);
    for (uint32_t i = 0; i < v->submesh_count; i++) {
        ze_zemesh_submesh_t sm;
        ze_asset_zemesh_submesh(v, i, &sm);
        subs[i] = (ze_vk_submesh_t){sm.index_offset, sm.index_count, sm.material, {0}, 0, {{0}}};
        subs[i].lod_count = sm.lod_count ? sm.lod_count : 1;
        if (subs[i].lod_count > ZE_RENDER_LOD_MAX)
            subs[i].lod_count = ZE_RENDER_LOD_MAX;
        subs[i].lods[0] = (ze_vk_lod_t){sm.index_offset, sm.index_count, 0.0f};
        for (uint32_t k = 1; k < subs[i].lod_count; k++)
            subs[i].lods[k] =
                (ze_vk_lod_t){sm.lods[k].index_offset, sm.lods[k].index_count, sm.lods[k].error};
        /* the box's bounding sphere (GPU culling: vk_pass_cull.c) */
        ze_vec3_t c = ze_vec3_scale(ze_vec3_add(sm.min, sm.max), 0.5f);
        subs[i].sphere[0] = c.x;
        subs[i].sphere[1] = c.y;
        subs[i].sphere[2] = c.z;
        subs[i].sphere[3] = ze_vec3_length(ze_vec3_sub(sm.max, c));
    }
    ze_vk_vertex_t *verts = (ze_vk_vertex_t *)(subs + v->submesh_count);
    const uint32_t *off = v->attribute_offset;
    bool has_n = v->attributes & ZE_VATTR_BIT(ZE_VATTR_NORMAL);
    bool has_t = v->attributes & ZE_VATTR_BIT(ZE_VATTR_TANGENT);
    bool has_uv = v->attributes & ZE_VATTR_BIT(ZE_VATTR_TEXCOORD0);
    for (uint32_t i = 0; i < v->vertex_count; i++) {
        const uint8_t *src = v->vertices + (size_t)i * v->vertex_stride;
        ze_vk_vertex_t *d = &verts[i];
        memset(d, 0, sizeof *d);
        read_f32(src + off[ZE_VATTR_POSITION], d->pos, 3);
        if (has_n)
            read_f32(src + off[ZE_VATTR_NORMAL], d->normal, 3);
        else
            d->normal[1] = 1.0f;
        if (has_uv)
            read_f32(src + off[ZE_VATTR_TEXCOORD0], d->uv, 2);
        if (has_t)
            read_f32(src + off[ZE_VATTR_TANGENT], d->tangent, 4);
    }
    memcpy(verts + v->vertex_count, v->indices, sizeof(uint32_t) * v->index_count);
}

static size_t tex_payload_size(const ze_tex_view_t *t)
{
    size_t n = sizeof(ze_vk_tex_payload_t);
    for (uint32_t i = 0; i < t->mip_count; i++)
        n += (t->mips[i].size + 15) & ~(size_t)15;
    return n;
}

static void tex_payload(const ze_tex_view_t *t, uint8_t *p)
{
    ze_vk_tex_payload_t *h = (ze_vk_tex_payload_t *)p;
    memset(h, 0, sizeof *h);
    h->format = (uint32_t)t->format;
    h->width = t->width;
    h->height = t->height;
    h->mips = t->mip_count;
    size_t at = sizeof *h;
    for (uint32_t i = 0; i < t->mip_count; i++) {
        h->offset[i] = at;
        h->size[i] = t->mips[i].size;
        memcpy(p + at, t->mips[i].data, t->mips[i].size);
        at += (t->mips[i].size + 15) & ~(size_t)15;
    }
}

/* The ring's next record, zeroed (published by storing *tail + 1), or
 * NULL when it is full (counted). */
static ze_vk_pending_t *ring_reserve(ze_vk_backend_t *b, uint64_t *tail)
{
    *tail = atomic_load_explicit(&b->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&b->head, memory_order_acquire);
    if (*tail - head >= b->capacity) {
        atomic_fetch_add_explicit(&b->assets_rejected, 1, memory_order_relaxed);
        return NULL;
    }
    ze_vk_pending_t *p = &b->ring[*tail % b->capacity];
    memset(p, 0, sizeof *p);
    return p;
}

ze_result ze__vk_rrm_asset_release(ze_vk_backend_t *b, ze_uuid_t uuid)
{
    uint64_t tail;
    ze_vk_pending_t *p = ring_reserve(b, &tail);
    if (!p)
        return ZE_ERR_FULL;
    p->uuid = uuid;
    p->type = ZE_ASSET_TYPE_UNKNOWN;
    atomic_store_explicit(&b->tail, tail + 1, memory_order_release);
    return ZE_OK;
}

/* The Vulkan format of a .zetex format; UNDEFINED for none. A BC level's
 * bytes are rows of 4x4 blocks (ceil(w/4) blocks a row): bufferRowLength
 * 0 (tightly packed) is that pitch, and each level starts 16-aligned (a
 * multiple of the block size). */
static VkFormat tex_vk_format(uint32_t f)
{
    switch ((ze_tex_format)f) {
    case ZE_TEX_FORMAT_RGBA8_UNORM:
        return VK_FORMAT_R8G8B8A8_UNORM;
    case ZE_TEX_FORMAT_RGBA8_SRGB:
        return VK_FORMAT_R8G8B8A8_SRGB;
    case ZE_TEX_FORMAT_BC1_UNORM:
        return VK_FORMAT_BC1_RGB_UNORM_BLOCK;
    case ZE_TEX_FORMAT_BC1_SRGB:
        return VK_FORMAT_BC1_RGB_SRGB_BLOCK;
    case ZE_TEX_FORMAT_BC3_UNORM:
        return VK_FORMAT_BC3_UNORM_BLOCK;
    case ZE_TEX_FORMAT_BC3_SRGB:
        return VK_FORMAT_BC3_SRGB_BLOCK;
    case ZE_TEX_FORMAT_BC4_UNORM:
        return VK_FORMAT_BC4_UNORM_BLOCK;
    case ZE_TEX_FORMAT_BC5_UNORM:
        return VK_FORMAT_BC5_UNORM_BLOCK;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

ze_result ze__vk_rrm_asset_ready(ze_vk_backend_t *b, const ze_asset_data_t *data)
{
    if (data->type == ZE_ASSET_TYPE_UNKNOWN || ze_uuid_is_nil(data->uuid) ||
        data->generation == 0) {
        ZE_LOG_ERROR(ZE_VK_LOG, "asset notification rejected: type %s, generation %u%s",
                     ze_asset_type_name(data->type), data->generation,
                     ze_uuid_is_nil(data->uuid) ? ", nil uuid" : "");
        return ZE_ERR_INVALID_ARG;
    }
    if (!kept_type((uint32_t)data->type))
        return ZE_OK;
    uint64_t tail;
    ze_vk_pending_t *p = ring_reserve(b, &tail);
    if (!p)
        return ZE_ERR_FULL;
    p->uuid = data->uuid;
    p->type = (uint32_t)data->type;
    p->generation = data->generation;
    if (data->type == ZE_ASSET_TYPE_MESH) {
        p->payload_size = mesh_payload_size(&data->as.mesh);
    } else if (data->type == ZE_ASSET_TYPE_TEXTURE) {
        ze_tex_format f = data->as.texture.format;
        VkFormat vf = tex_vk_format((uint32_t)f);
        if (vf == VK_FORMAT_UNDEFINED) {
            ZE_LOG_ERROR(ZE_VK_LOG, "texture of format %d rejected", (int)f);
            return ZE_ERR_UNSUPPORTED;
        }
        /* Block formats are optional (textureCompressionBC): asked of the
           device, which reports them per format. */
        VkFormatProperties fp;
        vkGetPhysicalDeviceFormatProperties(b->gpu, vf, &fp);
        VkFormatFeatureFlags need =
            VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
        if ((fp.optimalTilingFeatures & need) != need) {
            char id[ZE_UUID_STRING_LEN + 1];
            ze_uuid_format(data->uuid, id);
            ZE_LOG_ERROR(ZE_VK_LOG,
                         "texture %s: format %s cannot be sampled on this device (cook it with "
                         "settings \"compression\": \"none\")",
                         id, ze_tex_format_name(f));
            return ZE_ERR_UNSUPPORTED;
        }
        p->payload_size = tex_payload_size(&data->as.texture);
    } else if (data->type == ZE_ASSET_TYPE_MATERIAL) {
        p->material = data->as.material;
    }
    if (p->payload_size) {
        p->payload = ze_alloc(b->alloc, p->payload_size, 16);
        if (!p->payload) {
            ZE_LOG_ERROR(ZE_VK_LOG, "asset %s: no Render memory for %zu bytes",
                         ze_asset_type_name(data->type), p->payload_size);
            atomic_fetch_add_explicit(&b->assets_rejected, 1, memory_order_relaxed);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        if (data->type == ZE_ASSET_TYPE_MESH)
            mesh_payload(&data->as.mesh, p->payload);
        else
            tex_payload(&data->as.texture, p->payload);
    }
    atomic_store_explicit(&b->tail, tail + 1, memory_order_release);
    return ZE_OK;
}

/* ---------------------------------------------------- render thread side */

static void count(ze_vk_backend_t *b, uint32_t type, int32_t n)
{
    atomic_uint_fast32_t *c = &b->counts[type];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + (uint32_t)n,
                          memory_order_relaxed);
}

/* Staging space for `size` bytes: the ring, or a buffer of its own.
 * ZE_ERR_FULL: the ring has no room until a frame retires. */
static ze_result staging_get(ze_vk_backend_t *b, size_t size, VkBuffer *buf, VkDeviceSize *off,
                             uint8_t **map)
{
    uint64_t cap = b->staging.size;
    if (size > cap / 2) {
        ze_vk_buffer_t tmp;
        ze_result r = ze__vk_buffer_create(b, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &tmp);
        if (r != ZE_OK)
            return r;
        *buf = tmp.buffer;
        *off = 0;
        *map = tmp.map;
        ze__vk_defer_buffer(b, &tmp); /* freed once this frame retires */
        return ZE_OK;
    }
    uint64_t head = (b->staging_head + 15) & ~(uint64_t)15;
    uint64_t pos = head % cap;
    if (pos + size > cap)
        head += cap - pos; /* wrap */
    if (head + size - b->staging_tail > cap)
        return ZE_ERR_FULL;
    *buf = b->staging.buffer;
    *off = head % cap;
    *map = b->staging.map + *off;
    b->staging_head = head + size;
    return ZE_OK;
}

static void transfer_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src, VkAccessFlags2 sa,
                             VkPipelineStageFlags2 dst, VkAccessFlags2 da)
{
    VkMemoryBarrier2 mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = src,
        .srcAccessMask = sa,
        .dstStageMask = dst,
        .dstAccessMask = da,
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers = &mb,
    };
    vkCmdPipelineBarrier2(cmd, &di);
}

static void begin_uploads(ze_vk_backend_t *b, VkCommandBuffer cmd)
{
    if (b->uploads_recorded)
        return;
    /* ranges freed this frame may still be read by frames in flight */
    transfer_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_2_COPY_BIT, 0);
    b->uploads_recorded = true;
}

/* Grow a global buffer (vertex or index) to hold `need` more elements. */
static ze_result grow(ze_vk_backend_t *b, VkCommandBuffer cmd, ze_vk_buffer_t *buf,
                      ze_vk_ranges_t *ranges, uint64_t elem, uint64_t need,
                      VkBufferUsageFlags usage)
{
    bool vertex = ranges == &b->vb_ranges;
    uint64_t budget = (vertex ? b->base.books.vertex_budget : b->base.books.index_budget) / elem;
    uint64_t cap = ranges->capacity;
    if (cap + need > budget) {
        /* the books on the main thread admitted it: the free space is cut up */
        ZE_LOG_ERROR(ZE_VK_LOG,
                     "%s budget exceeded: %llu bytes more do not fit in a buffer of %llu bytes "
                     "(its free space is fragmented; the budget is %llu bytes, "
                     "renderer.%s): mesh refused",
                     vertex ? "vertex" : "index", (unsigned long long)(need * elem),
                     (unsigned long long)(cap * elem), (unsigned long long)(budget * elem),
                     vertex ? "vertex_budget_bytes" : "index_budget_bytes");
        atomic_fetch_add_explicit(&b->base.books.rejections, 1, memory_order_relaxed);
        return ZE_ERR_LIMIT;
    }
    uint64_t want = cap * 2 > cap + need ? cap * 2 : cap + need;
    if (want > budget)
        want = budget;
    ze_vk_buffer_t nb;
    ze_result r = ze__vk_buffer_create(b, want * elem, usage, false, &nb);
    if (r != ZE_OK)
        return r;
    if (ze__vk_ranges_grow(ranges, want) != ZE_OK) {
        ze__vk_buffer_destroy(b, &nb);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    transfer_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy c = {0, 0, cap * elem};
    vkCmdCopyBuffer(cmd, buf->buffer, nb.buffer, 1, &c);
    transfer_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    ze__vk_defer_buffer(b, buf);
    *buf = nb;
    ZE_LOG_DEBUG(ZE_VK_LOG, "global buffer grown to %llu elements", (unsigned long long)want);
    return ZE_OK;
}

static ze_result range_get(ze_vk_backend_t *b, VkCommandBuffer cmd, ze_vk_buffer_t *buf,
                           ze_vk_ranges_t *ranges, uint64_t elem, uint64_t n,
                           VkBufferUsageFlags usage, uint64_t *first)
{
    if (ze__vk_ranges_alloc(ranges, n, 1, first))
        return ZE_OK;
    ze_result r = grow(b, cmd, buf, ranges, elem, n, usage);
    if (r != ZE_OK)
        return r;
    return ze__vk_ranges_alloc(ranges, n, 1, first) ? ZE_OK : ZE_ERR_OUT_OF_MEMORY;
}

static const VkBufferUsageFlags VB_USAGE = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
static const VkBufferUsageFlags IB_USAGE = VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

static void mesh_release(ze_vk_backend_t *b, ze_vk_mesh_t *m)
{
    if (m->vertex_count)
        ze__vk_ranges_free(&b->vb_ranges, m->vertex_first, m->vertex_count);
    if (m->index_count)
        ze__vk_ranges_free(&b->ib_ranges, m->index_first, m->index_count);
    if (m->submeshes)
        ze_free(b->alloc, m->submeshes, sizeof *m->submeshes * m->submesh_count);
    memset(m, 0, sizeof *m);
}

static ze_result upload_mesh(ze_vk_backend_t *b, VkCommandBuffer cmd, const ze_vk_pending_t *p)
{
    const ze_vk_mesh_payload_t *h = p->payload;
    const ze_vk_submesh_t *subs = (const ze_vk_submesh_t *)(h + 1);
    const uint8_t *verts = (const uint8_t *)(subs + h->submesh_count);
    size_t vbytes = sizeof(ze_vk_vertex_t) * (size_t)h->vertex_count;
    size_t ibytes = sizeof(uint32_t) * (size_t)h->index_count;
    VkBuffer sbuf;
    VkDeviceSize soff;
    uint8_t *smap;
    ze_result r = staging_get(b, vbytes + ibytes, &sbuf, &soff, &smap);
    if (r != ZE_OK)
        return r;
    memcpy(smap, verts, vbytes + ibytes);
    begin_uploads(b, cmd);
    ze_vk_mesh_t m = {.generation = p->generation, .min = h->min, .max = h->max};
    m.submeshes = ZE_NEW_ARRAY(b->alloc, ze_vk_submesh_t, h->submesh_count ? h->submesh_count : 1);
    if (!m.submeshes)
        return ZE_ERR_OUT_OF_MEMORY;
    m.submesh_count = h->submesh_count;
    memcpy(m.submeshes, subs, sizeof *subs * h->submesh_count);
    r = range_get(b, cmd, &b->vb, &b->vb_ranges, sizeof(ze_vk_vertex_t), h->vertex_count, VB_USAGE,
                  &m.vertex_first);
    if (r == ZE_OK) {
        m.vertex_count = h->vertex_count;
        r = range_get(b, cmd, &b->ib, &b->ib_ranges, sizeof(uint32_t), h->index_count, IB_USAGE,
                      &m.index_first);
    }
    if (r != ZE_OK) {
        mesh_release(b, &m);
        return r;
    }
    m.index_count = h->index_count;
    if (vbytes) {
        VkBufferCopy c = {soff, m.vertex_first * sizeof(ze_vk_vertex_t), vbytes};
        vkCmdCopyBuffer(cmd, sbuf, b->vb.buffer, 1, &c);
    }
    if (ibytes) {
        VkBufferCopy c = {soff + vbytes, m.index_first * sizeof(uint32_t), ibytes};
        vkCmdCopyBuffer(cmd, sbuf, b->ib.buffer, 1, &c);
    }
    ze_vk_mesh_t *old = ze_hashmap_get(&b->meshes, &p->uuid);
    if (old) {
        mesh_release(b, old); /* ranges reused only behind the upload barrier */
        *old = m;
        return ZE_OK;
    }
    r = ze_hashmap_put(&b->meshes, &p->uuid, &m);
    if (r != ZE_OK)
        mesh_release(b, &m);
    return r;
}

/* Copy mips from staging into a fresh image and make it sampleable. */
static ze_result image_upload(ze_vk_backend_t *b, VkCommandBuffer cmd, VkFormat format, uint32_t w,
                              uint32_t h, uint32_t mips, const uint8_t *base,
                              const uint64_t *offset, const uint64_t *size, ze_vk_image_t *out)
{
    size_t total = 0;
    for (uint32_t i = 0; i < mips; i++)
        total = (total + 15) & ~(size_t)15, total += size[i];
    VkBuffer sbuf;
    VkDeviceSize soff;
    uint8_t *smap;
    ze_result r = staging_get(b, total, &sbuf, &soff, &smap);
    if (r != ZE_OK)
        return r;
    r = ze__vk_image_create(b, format, w, h, mips,
                            VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, out);
    if (r != ZE_OK)
        return r;
    begin_uploads(b, cmd);
    ze__vk_image_barrier(cmd, out->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                         VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                         VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, mips);
    VkBufferImageCopy regions[ZE_TEX_MAX_MIPS];
    size_t at = 0;
    for (uint32_t i = 0; i < mips; i++) {
        at = (at + 15) & ~(size_t)15;
        memcpy(smap + at, base + offset[i], size[i]);
        uint32_t mw = w >> i ? w >> i : 1, mh = h >> i ? h >> i : 1;
        regions[i] = (VkBufferImageCopy){
            .bufferOffset = soff + at,
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, i, 0, 1},
            .imageExtent = {mw, mh, 1},
        };
        at += size[i];
    }
    vkCmdCopyBufferToImage(cmd, sbuf, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, mips,
                           regions);
    ze__vk_image_barrier(cmd, out->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                         VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, mips);
    return ZE_OK;
}

static void write_slot(ze_vk_backend_t *b, uint32_t slot, VkImageView view)
{
    VkDescriptorImageInfo ii = {
        .sampler = b->sampler,
        .imageView = view,
        .imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
    };
    VkWriteDescriptorSet w = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = b->bindless_set,
        .dstBinding = 0,
        .dstArrayElement = slot,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        .pImageInfo = &ii,
    };
    vkUpdateDescriptorSets(b->device, 1, &w, 0, NULL);
}

static ze_result upload_texture(ze_vk_backend_t *b, VkCommandBuffer cmd, const ze_vk_pending_t *p)
{
    const ze_vk_tex_payload_t *h = p->payload;
    if (b->free_slot_count == 0) {
        ZE_LOG_ERROR(ZE_VK_LOG, "bindless texture array full (%u)", ZE_VK_MAX_TEXTURES);
        return ZE_ERR_LIMIT;
    }
    VkFormat fmt = tex_vk_format(h->format);
    ze_vk_texture_t t = {.generation = p->generation};
    ze_result r = image_upload(b, cmd, fmt, h->width, h->height, h->mips, p->payload, h->offset,
                               h->size, &t.image);
    if (r != ZE_OK)
        return r;
    t.slot = b->free_slots[--b->free_slot_count];
    write_slot(b, t.slot, t.image.view);
    ze_vk_texture_t *old = ze_hashmap_get(&b->textures, &p->uuid);
    if (old) {
        ze__vk_defer_image(b, &old->image);
        ze__vk_defer_slot(b, old->slot);
        *old = t;
        return ZE_OK;
    }
    r = ze_hashmap_put(&b->textures, &p->uuid, &t);
    if (r != ZE_OK) {
        ze__vk_defer_image(b, &t.image);
        ze__vk_defer_slot(b, t.slot);
    }
    return r;
}

static ze_result process(ze_vk_backend_t *b, VkCommandBuffer cmd, const ze_vk_pending_t *p,
                         bool *is_new)
{
    *is_new = false;
    switch (p->type) {
    case ZE_ASSET_TYPE_MESH:
        *is_new = !ze_hashmap_get(&b->meshes, &p->uuid);
        return upload_mesh(b, cmd, p);
    case ZE_ASSET_TYPE_TEXTURE:
        *is_new = !ze_hashmap_get(&b->textures, &p->uuid);
        return upload_texture(b, cmd, p);
    case ZE_ASSET_TYPE_MATERIAL: {
        ze_vk_material_t *old = ze_hashmap_get(&b->materials, &p->uuid);
        ze_vk_material_t m = {.generation = p->generation, .m = p->material};
        *is_new = !old;
        if (old) {
            *old = m;
            return ZE_OK;
        }
        return ze_hashmap_put(&b->materials, &p->uuid, &m);
    }
    default: /* ENVMAP: resident as a record; sampled by a later sky pass */
        return ZE_OK;
    }
}

static uint64_t ranges_used(const ze_vk_ranges_t *r)
{
    uint64_t free = 0;
    for (uint32_t i = 0; i < r->free.count; i++)
        free += ZE_ARRAY_AT(&r->free, ze_vk_range_t, i).size;
    return r->capacity - free;
}

/* What the stats say is held (render thread, or create). */
static void publish_held(ze_vk_backend_t *b)
{
    const uint64_t vsz = sizeof(ze_vk_vertex_t), isz = sizeof(uint32_t);
    atomic_store_explicit(&b->vb_used, ranges_used(&b->vb_ranges) * vsz, memory_order_relaxed);
    atomic_store_explicit(&b->vb_cap, b->vb_ranges.capacity * vsz, memory_order_relaxed);
    atomic_store_explicit(&b->ib_used, ranges_used(&b->ib_ranges) * isz, memory_order_relaxed);
    atomic_store_explicit(&b->ib_cap, b->ib_ranges.capacity * isz, memory_order_relaxed);
    atomic_store_explicit(&b->slots_used, ZE_VK_MAX_TEXTURES - b->free_slot_count,
                          memory_order_relaxed);
}

/* The global vertex and index buffers at their initial size, empty. */
static ze_result geometry_create(ze_vk_backend_t *b, ze_vk_buffer_t *vb, ze_vk_buffer_t *ib)
{
    ze_result r = ze__vk_buffer_create(b, (VkDeviceSize)VB_INITIAL * sizeof(ze_vk_vertex_t),
                                       VB_USAGE, false, vb);
    if (r == ZE_OK) {
        r = ze__vk_buffer_create(b, (VkDeviceSize)IB_INITIAL * sizeof(uint32_t), IB_USAGE, false,
                                 ib);
        if (r != ZE_OK)
            ze__vk_buffer_destroy(b, vb);
    }
    return r;
}

/* ResetGeometryBuffers: no mesh is resident and the buffers grew. The old
 * ones are freed once the frames in flight retire. */
static void reset_geometry(ze_vk_backend_t *b)
{
    if (b->vb_ranges.capacity <= VB_INITIAL && b->ib_ranges.capacity <= IB_INITIAL)
        return;
    ze_vk_buffer_t vb = {0}, ib = {0};
    ze_vk_ranges_t vr, ir;
    ze__vk_ranges_init(&vr, b->alloc);
    ze__vk_ranges_init(&ir, b->alloc);
    if (geometry_create(b, &vb, &ib) != ZE_OK || ze__vk_ranges_grow(&vr, VB_INITIAL) != ZE_OK ||
        ze__vk_ranges_grow(&ir, IB_INITIAL) != ZE_OK) {
        ZE_LOG_WARN(ZE_VK_LOG, "geometry buffers not reset (no memory): they keep their size");
        ze__vk_defer_buffer(b, &vb);
        ze__vk_defer_buffer(b, &ib);
        ze__vk_ranges_fini(&vr);
        ze__vk_ranges_fini(&ir);
        return;
    }
    ZE_LOG_DEBUG(ZE_VK_LOG, "geometry buffers reset: %llu + %llu bytes back to %llu + %llu",
                 (unsigned long long)b->vb.size, (unsigned long long)b->ib.size,
                 (unsigned long long)vb.size, (unsigned long long)ib.size);
    ze__vk_defer_buffer(b, &b->vb);
    ze__vk_defer_buffer(b, &b->ib);
    ze__vk_ranges_fini(&b->vb_ranges);
    ze__vk_ranges_fini(&b->ib_ranges);
    b->vb = vb;
    b->ib = ib;
    b->vb_ranges = vr;
    b->ib_ranges = ir;
}

/* A release record: drop the uuid's resources (nothing when absent). */
static bool release(ze_vk_backend_t *b, ze_uuid_t uuid)
{
    bool had = false;
    pthread_mutex_lock(&b->lock);
    ze_vk_resident_t *rr = ze_hashmap_get(&b->resident, &uuid);
    if (rr) {
        count(b, rr->type, -1);
        ze_hashmap_remove(&b->resident, &uuid);
        had = true;
    }
    pthread_mutex_unlock(&b->lock);
    ze_vk_mesh_t *m = ze_hashmap_get(&b->meshes, &uuid);
    if (m) {
        mesh_release(b, m);
        ze_hashmap_remove(&b->meshes, &uuid);
    }
    ze_vk_texture_t *t = ze_hashmap_get(&b->textures, &uuid);
    if (t) {
        ze__vk_defer_image(b, &t->image);
        ze__vk_defer_slot(b, t->slot);
        ze_hashmap_remove(&b->textures, &uuid);
    }
    ze_hashmap_remove(&b->materials, &uuid);
    return had;
}

ze_result ze__vk_rrm_begin_frame(ze_vk_backend_t *b, VkCommandBuffer cmd)
{
    ZE__VK_ON_RENDER_THREAD(b);
    b->uploads_recorded = false;
    uint64_t head = atomic_load_explicit(&b->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&b->tail, memory_order_acquire);
    uint64_t received = 0, released = 0;
    ze_result res = ZE_OK;
    for (; head != tail; head++) {
        ze_vk_pending_t *p = &b->ring[head % b->capacity];
        if (p->type == ZE_ASSET_TYPE_UNKNOWN) {
            released += release(b, p->uuid);
            continue;
        }
        bool is_new = false;
        ze_result r = process(b, cmd, p, &is_new);
        if (r == ZE_ERR_FULL)
            break; /* staging ring: next frame */
        if (r == ZE_OK) {
            received++;
            pthread_mutex_lock(&b->lock);
            ze_vk_resident_t *rr = ze_hashmap_get(&b->resident, &p->uuid);
            ze_vk_resident_t nr = {p->generation, p->type};
            if (rr) {
                if (rr->type != p->type) {
                    count(b, rr->type, -1);
                    count(b, p->type, 1);
                }
                *rr = nr;
            } else if (ze_hashmap_put(&b->resident, &p->uuid, &nr) == ZE_OK) {
                count(b, p->type, 1);
            }
            pthread_mutex_unlock(&b->lock);
        } else {
            atomic_fetch_add_explicit(&b->assets_rejected, 1, memory_order_relaxed);
            if (r == ZE_ERR_IO) {
                res = r;
                break;
            }
        }
        (void)is_new;
        if (p->payload)
            ze_free(b->alloc, p->payload, p->payload_size);
        p->payload = NULL;
    }
    atomic_store_explicit(&b->head, head, memory_order_release);
    if (released) {
        atomic_store_explicit(&b->assets_released,
                              atomic_load_explicit(&b->assets_released, memory_order_relaxed) +
                                  released,
                              memory_order_relaxed);
        if (b->meshes.count == 0)
            reset_geometry(b);
    }
    publish_held(b);
    atomic_store_explicit(&b->assets_received,
                          atomic_load_explicit(&b->assets_received, memory_order_relaxed) +
                              received,
                          memory_order_relaxed);
    if (received || released)
        b->resident_serial++; /* the scene's tables follow (vk_scene.c) */
    if (b->uploads_recorded)
        transfer_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT,
                         VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT);
    return res;
}

void ze__vk_rrm_scene_reset(ze_vk_backend_t *b)
{
    atomic_fetch_add_explicit(&b->scene_resets, 1, memory_order_relaxed);
}

uint32_t ze__vk_rrm_texture_slot(ze_vk_backend_t *b, const ze_zematerial_texture_t *t,
                                 uint32_t none)
{
    if (!t->present || ze_uuid_is_nil(t->texture))
        return none;
    const ze_vk_texture_t *tex = ze_hashmap_get(&b->textures, &t->texture);
    return tex ? tex->slot : ZE_VK_TEX_FALLBACK;
}

uint32_t ze__vk_rrm_resident(ze_vk_backend_t *b, ze_uuid_t uuid)
{
    pthread_mutex_lock(&b->lock);
    const ze_vk_resident_t *r = ze_hashmap_get(&b->resident, &uuid);
    uint32_t gen = r ? r->generation : 0;
    pthread_mutex_unlock(&b->lock);
    return gen;
}

/* ------------------------------------------------------ create / destroy */

static ze_result builtin_texture(ze_vk_backend_t *b, VkCommandBuffer cmd, uint32_t size,
                                 const uint8_t rgba[4], VkFormat fmt, ze_vk_image_t *img,
                                 uint32_t *slot)
{
    uint8_t px[4 * 4 * 4];
    for (uint32_t i = 0; i < size * size; i++)
        memcpy(px + 4 * i, rgba, 4);
    uint64_t off = 0, sz = (uint64_t)size * size * 4;
    ze_result r = image_upload(b, cmd, fmt, size, size, 1, px, &off, &sz, img);
    if (r != ZE_OK)
        return r;
    *slot = b->free_slots[--b->free_slot_count];
    write_slot(b, *slot, img->view);
    return ZE_OK;
}

static ze_result descriptors_create(ze_vk_backend_t *b)
{
    VkDescriptorBindingFlags bflags = VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT |
                                      VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT |
                                      VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT;
    VkDescriptorSetLayoutBindingFlagsCreateInfo bfi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
        .bindingCount = 1,
        .pBindingFlags = &bflags,
    };
    VkDescriptorSetLayoutBinding bl = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                       ZE_VK_MAX_TEXTURES, VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .pNext = &bfi,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT,
        .bindingCount = 1,
        .pBindings = &bl,
    };
    ZE__VK_TRY(b, vkCreateDescriptorSetLayout(b->device, &lci, b->host_cb, &b->bindless_layout),
               "vkCreateDescriptorSetLayout");
    /* set 1, per frame slot: vk_draws.c's bindings */
    ze_result fr = ze__vk_frame_layout_create(b);
    if (fr != ZE_OK)
        return fr;
    /* the passes' own sets live in their own pools (vk_pass_*.c) */
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ZE_VK_MAX_TEXTURES},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, ZE_VK_FRAMES},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 10 * ZE_VK_FRAMES},
    };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .flags = VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT,
        .maxSets = 1 + ZE_VK_FRAMES,
        .poolSizeCount = 3,
        .pPoolSizes = sizes,
    };
    ZE__VK_TRY(b, vkCreateDescriptorPool(b->device, &pci, b->host_cb, &b->pool),
               "vkCreateDescriptorPool");
    VkDescriptorSetLayout layouts[1 + ZE_VK_FRAMES] = {b->bindless_layout};
    for (int i = 0; i < ZE_VK_FRAMES; i++)
        layouts[1 + i] = b->frame_layout;
    VkDescriptorSet sets[1 + ZE_VK_FRAMES];
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = b->pool,
        .descriptorSetCount = 1 + ZE_VK_FRAMES,
        .pSetLayouts = layouts,
    };
    ZE__VK_TRY(b, vkAllocateDescriptorSets(b->device, &ai, sets), "vkAllocateDescriptorSets");
    b->bindless_set = sets[0];
    for (int i = 0; i < ZE_VK_FRAMES; i++)
        b->frames[i].set = sets[1 + i];
    return ZE_OK;
}

ze_result ze__vk_rrm_create(ze_vk_backend_t *b)
{
    b->capacity = b->desc.pending_capacity ? b->desc.pending_capacity : DEFAULT_PENDING;
    b->ring = ZE_NEW_ARRAY(b->alloc, ze_vk_pending_t, b->capacity);
    if (!b->ring)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(b->ring, 0, sizeof *b->ring * b->capacity);
    for (uint32_t i = 0; i < ZE_VK_MAX_TEXTURES; i++)
        b->free_slots[i] = ZE_VK_MAX_TEXTURES - 1 - i;
    b->free_slot_count = ZE_VK_MAX_TEXTURES;
    ze__vk_ranges_init(&b->vb_ranges, b->alloc);
    ze__vk_ranges_init(&b->ib_ranges, b->alloc);
    ze_result r =
        ze__vk_buffer_create(b, STAGING_SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &b->staging);
    if (r == ZE_OK)
        r = geometry_create(b, &b->vb, &b->ib);
    if (r == ZE_OK)
        r = ze__vk_ranges_grow(&b->vb_ranges, VB_INITIAL);
    if (r == ZE_OK)
        r = ze__vk_ranges_grow(&b->ib_ranges, IB_INITIAL);
    if (r != ZE_OK)
        return r;
    VkSamplerCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_LINEAR,
        .minFilter = VK_FILTER_LINEAR,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .maxLod = VK_LOD_CLAMP_NONE,
    };
    ZE__VK_TRY(b, vkCreateSampler(b->device, &sci, b->host_cb, &b->sampler), "vkCreateSampler");
    if ((r = descriptors_create(b)) != ZE_OK)
        return r;
    /* built-in textures, uploaded once through a one-shot submission */
    VkCommandBuffer cmd;
    if ((r = ze__vk_oneshot_begin(b, &cmd)) != ZE_OK)
        return r;
    static const uint8_t pink[4] = {255, 0, 255, 255}, white[4] = {255, 255, 255, 255},
                         flat[4] = {128, 128, 255, 255};
    uint32_t pink_slot = 0;
    r = builtin_texture(b, cmd, 4, pink, VK_FORMAT_R8G8B8A8_SRGB, &b->fallback, &pink_slot);
    if (r == ZE_OK)
        r = builtin_texture(b, cmd, 1, white, VK_FORMAT_R8G8B8A8_UNORM, &b->white, &b->white_slot);
    if (r == ZE_OK)
        r = builtin_texture(b, cmd, 1, flat, VK_FORMAT_R8G8B8A8_UNORM, &b->flat_normal,
                            &b->flat_slot);
    b->uploads_recorded = false;
    ze_result r2 = ze__vk_oneshot_end(b, cmd);
    ZE_ASSERT(r != ZE_OK || pink_slot == ZE_VK_TEX_FALLBACK);
    b->staging_tail = b->staging_head;
    ze_hashmap_init(&b->meshes, b->alloc, sizeof(ze_uuid_t), sizeof(ze_vk_mesh_t));
    ze_hashmap_init(&b->textures, b->alloc, sizeof(ze_uuid_t), sizeof(ze_vk_texture_t));
    ze_hashmap_init(&b->materials, b->alloc, sizeof(ze_uuid_t), sizeof(ze_vk_material_t));
    publish_held(b);
    return r != ZE_OK ? r : r2;
}

void ze__vk_rrm_destroy(ze_vk_backend_t *b)
{
    if (b->ring) {
        uint64_t head = atomic_load(&b->head), tail = atomic_load(&b->tail);
        for (; head != tail; head++) {
            ze_vk_pending_t *p = &b->ring[head % b->capacity];
            if (p->payload)
                ze_free(b->alloc, p->payload, p->payload_size);
        }
        ze_free(b->alloc, b->ring, sizeof *b->ring * b->capacity);
        b->ring = NULL;
    }
    if (!b->device)
        return;
    uint32_t cur = 0;
    const void *key;
    void *val;
    while (ze_hashmap_next(&b->meshes, &cur, &key, &val))
        mesh_release(b, val);
    cur = 0;
    while (ze_hashmap_next(&b->textures, &cur, &key, &val))
        ze__vk_image_destroy(b, &((ze_vk_texture_t *)val)->image);
    ze_hashmap_free(&b->meshes);
    ze_hashmap_free(&b->textures);
    ze_hashmap_free(&b->materials);
    ze__vk_image_destroy(b, &b->fallback);
    ze__vk_image_destroy(b, &b->white);
    ze__vk_image_destroy(b, &b->flat_normal);
    ze__vk_buffer_destroy(b, &b->staging);
    ze__vk_buffer_destroy(b, &b->vb);
    ze__vk_buffer_destroy(b, &b->ib);
    ze__vk_ranges_fini(&b->vb_ranges);
    ze__vk_ranges_fini(&b->ib_ranges);
    if (b->sampler)
        vkDestroySampler(b->device, b->sampler, b->host_cb);
    if (b->pool)
        vkDestroyDescriptorPool(b->device, b->pool, b->host_cb);
    if (b->bindless_layout)
        vkDestroyDescriptorSetLayout(b->device, b->bindless_layout, b->host_cb);
    if (b->frame_layout)
        vkDestroyDescriptorSetLayout(b->device, b->frame_layout, b->host_cb);
}
