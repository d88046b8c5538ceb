/* Our own GPU memory sub-allocator (no VMA: not packaged for Debian 12).
 *
 * Per memory type, 64 MiB blocks (VkDeviceMemory) carved by a first-fit
 * free list (ze_vk_ranges_t: sorted free ranges, merged on free); every
 * sub-allocation is aligned to max(its alignment, bufferImageGranularity) so
 * buffers and images may share a block. Requests of 16 MiB and more, and
 * those the driver prefers dedicated, get their own VkDeviceMemory. Host-
 * visible blocks are mapped once, for their life. A block whose last
 * sub-allocation is freed is freed too (its slot in the block array stays,
 * empty, for the next new block: allocations keep their block index), so
 * device memory returns to what was held before a level was loaded; frees
 * come only from destroys the frame timeline already cleared.
 * Statistics: device bytes (VkDeviceMemory), bytes in use, live
 * allocations, dedicated ones.
 *
 * The range allocator also hands out the global vertex and index buffers.
 * Threads: create/destroy, or the render thread. */
#include <string.h>

#include "gfx/vk_internal.h"

enum { BLOCK_SIZE = 64u << 20, DEDICATED_MIN = 16u << 20 };

/* -------------------------------------------------------------- ranges */

void ze__vk_ranges_init(ze_vk_ranges_t *r, ze_allocator_t alloc)
{
    ZE_ARRAY_INIT(&r->free, alloc, ze_vk_range_t);
    r->capacity = 0;
}

ze_result ze__vk_ranges_grow(ze_vk_ranges_t *r, uint64_t capacity)
{
    if (capacity <= r->capacity)
        return ZE_OK;
    uint64_t old = r->capacity;
    uint32_t n = r->free.count;
    ze_vk_range_t *last = n ? &ZE_ARRAY_AT(&r->free, ze_vk_range_t, n - 1) : NULL;
    if (last && last->offset + last->size == old) {
        last->size += capacity - old;
    } else {
        ze_vk_range_t add = {old, capacity - old};
        ze_result res = ze_array_push(&r->free, &add);
        if (res != ZE_OK)
            return res;
    }
    r->capacity = capacity;
    return ZE_OK;
}

bool ze__vk_ranges_alloc(ze_vk_ranges_t *r, uint64_t size, uint64_t align, uint64_t *offset)
{
    if (size == 0)
        size = 1;
    for (uint32_t i = 0; i < r->free.count; i++) {
        ze_vk_range_t *f = &ZE_ARRAY_AT(&r->free, ze_vk_range_t, i);
        uint64_t start = (f->offset + align - 1) / align * align;
        uint64_t end = f->offset + f->size;
        if (start > end || end - start < size)
            continue;
        uint64_t head = start - f->offset;
        uint64_t tail = end - (start + size);
        if (head == 0 && tail == 0) {
            ze_array_remove_ordered(&r->free, i);
        } else if (head == 0) {
            f->offset = start + size;
            f->size = tail;
        } else if (tail == 0) {
            f->size = head;
        } else {
            f->size = head;
            ze_vk_range_t rest = {start + size, tail};
            /* insert after i, keeping the order */
            if (ze_array_push(&r->free, &rest) != ZE_OK)
                return false;
            ze_vk_range_t *arr = r->free.data;
            memmove(&arr[i + 2], &arr[i + 1], sizeof *arr * (r->free.count - i - 2));
            arr[i + 1] = rest;
        }
        *offset = start;
        return true;
    }
    return false;
}

void ze__vk_ranges_free(ze_vk_ranges_t *r, uint64_t offset, uint64_t size)
{
    if (size == 0)
        size = 1;
    ze_vk_range_t *arr = r->free.data;
    uint32_t n = r->free.count, i = 0;
    while (i < n && arr[i].offset < offset)
        i++;
    bool merge_prev = i > 0 && arr[i - 1].offset + arr[i - 1].size == offset;
    bool merge_next = i < n && offset + size == arr[i].offset;
    if (merge_prev && merge_next) {
        arr[i - 1].size += size + arr[i].size;
        ze_array_remove_ordered(&r->free, i);
    } else if (merge_prev) {
        arr[i - 1].size += size;
    } else if (merge_next) {
        arr[i].offset = offset;
        arr[i].size += size;
    } else {
        ze_vk_range_t add = {offset, size};
        if (ze_array_push(&r->free, &add) != ZE_OK) {
            ZE_LOG_ERROR(ZE_VK_LOG, "free list: no memory; %llu bytes leak until destroy",
                         (unsigned long long)size);
            return;
        }
        arr = r->free.data;
        memmove(&arr[i + 1], &arr[i], sizeof *arr * (r->free.count - i - 1));
        arr[i] = add;
    }
}

void ze__vk_ranges_fini(ze_vk_ranges_t *r)
{
    ze_array_free(&r->free);
    r->capacity = 0;
}

/* -------------------------------------------------------------- blocks */

void ze__vk_memory_init(ze_vk_backend_t *b)
{
    ze_vk_memory_t *m = &b->mem;
    vkGetPhysicalDeviceMemoryProperties(b->gpu, &m->props);
    m->granularity = b->gpu_props.limits.bufferImageGranularity;
    if (m->granularity == 0)
        m->granularity = 1;
    ZE_ARRAY_INIT(&m->blocks, b->alloc, ze_vk_block_t);
}

void ze__vk_memory_fini(ze_vk_backend_t *b)
{
    ze_vk_memory_t *m = &b->mem;
    for (uint32_t i = 0; i < m->blocks.count; i++) {
        ze_vk_block_t *blk = &ZE_ARRAY_AT(&m->blocks, ze_vk_block_t, i);
        if (!blk->memory)
            continue;
        if (blk->mapped)
            vkUnmapMemory(b->device, blk->memory);
        vkFreeMemory(b->device, blk->memory, b->host_cb);
        ze__vk_ranges_fini(&blk->ranges);
    }
    ze_array_free(&m->blocks);
    if (m->allocations)
        ZE_LOG_WARN(ZE_VK_LOG, "%llu GPU allocations still live at destroy",
                    (unsigned long long)m->allocations);
}

static int find_type(const ze_vk_memory_t *m, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < m->props.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (m->props.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

static void publish(ze_vk_backend_t *b)
{
    atomic_store_explicit(&b->gpu_memory_bytes, b->mem.device_bytes, memory_order_relaxed);
    atomic_store_explicit(&b->mem_used_bytes, b->mem.used_bytes, memory_order_relaxed);
}

static bool block_empty(const ze_vk_block_t *blk)
{
    const ze_vk_ranges_t *r = &blk->ranges;
    return r->free.count == 1 && ZE_ARRAY_AT(&r->free, ze_vk_range_t, 0).offset == 0 &&
           ZE_ARRAY_AT(&r->free, ze_vk_range_t, 0).size == r->capacity;
}

static ze_result device_alloc(ze_vk_backend_t *b, VkDeviceSize size, uint32_t type, bool host,
                              VkDeviceMemory *mem, uint8_t **mapped)
{
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    ZE__VK_TRY(b, vkAllocateMemory(b->device, &ai, b->host_cb, mem), "vkAllocateMemory");
    *mapped = NULL;
    if (host) {
        void *p = NULL;
        VkResult r = vkMapMemory(b->device, *mem, 0, VK_WHOLE_SIZE, 0, &p);
        if (r != VK_SUCCESS) {
            vkFreeMemory(b->device, *mem, b->host_cb);
            return ze__vk_fail(b, r, "vkMapMemory");
        }
        *mapped = p;
    }
    b->mem.device_bytes += size;
    publish(b);
    return ZE_OK;
}

ze_result ze__vk_mem_alloc(ze_vk_backend_t *b, const VkMemoryRequirements *req,
                           VkMemoryPropertyFlags want, ze_vk_alloc_t *out)
{
    ze_vk_memory_t *m = &b->mem;
    int type = find_type(m, req->memoryTypeBits, want);
    if (type < 0 && (want & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
        !(want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        type = find_type(m, req->memoryTypeBits, 0);
    if (type < 0) {
        ZE_LOG_ERROR(ZE_VK_LOG, "no memory type for bits 0x%x, flags 0x%x", req->memoryTypeBits,
                     (unsigned)want);
        return ZE_ERR_UNSUPPORTED;
    }
    /* every host-visible block is mapped, whoever asked for it first */
    bool host =
        (m->props.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
    memset(out, 0, sizeof *out);
    out->type = (uint32_t)type;
    out->size = req->size;
    if (req->size >= DEDICATED_MIN) {
        ze_result r = device_alloc(b, req->size, (uint32_t)type, host, &out->memory, &out->mapped);
        if (r != ZE_OK)
            return r;
        out->block = -1;
        m->dedicated++;
        m->allocations++;
        m->used_bytes += req->size;
        publish(b);
        return ZE_OK;
    }
    uint64_t align = req->alignment > m->granularity ? req->alignment : m->granularity;
    for (uint32_t i = 0; i < m->blocks.count; i++) {
        ze_vk_block_t *blk = &ZE_ARRAY_AT(&m->blocks, ze_vk_block_t, i);
        uint64_t off;
        if (!blk->memory || blk->type != (uint32_t)type ||
            !ze__vk_ranges_alloc(&blk->ranges, req->size, align, &off))
            continue;
        out->memory = blk->memory;
        out->offset = off;
        out->block = (int32_t)i;
        out->mapped = blk->mapped ? blk->mapped + off : NULL;
        m->allocations++;
        m->used_bytes += req->size;
        publish(b);
        return ZE_OK;
    }
    ze_vk_block_t blk = {.type = (uint32_t)type};
    ze_result r = device_alloc(b, BLOCK_SIZE, (uint32_t)type, host, &blk.memory, &blk.mapped);
    if (r != ZE_OK)
        return r;
    ze__vk_ranges_init(&blk.ranges, b->alloc);
    uint64_t off = 0;
    uint32_t at = 0; /* an empty slot of a block freed before, or a new one */
    while (at < m->blocks.count && ZE_ARRAY_AT(&m->blocks, ze_vk_block_t, at).memory)
        at++;
    if (ze__vk_ranges_grow(&blk.ranges, BLOCK_SIZE) != ZE_OK ||
        !ze__vk_ranges_alloc(&blk.ranges, req->size, align, &off) ||
        (at == m->blocks.count && ze_array_push(&m->blocks, &blk) != ZE_OK)) {
        ze__vk_ranges_fini(&blk.ranges);
        if (blk.mapped)
            vkUnmapMemory(b->device, blk.memory);
        vkFreeMemory(b->device, blk.memory, b->host_cb);
        m->device_bytes -= BLOCK_SIZE;
        publish(b);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    ZE_ARRAY_AT(&m->blocks, ze_vk_block_t, at) = blk;
    out->memory = blk.memory;
    out->offset = off;
    out->block = (int32_t)at;
    out->mapped = blk.mapped ? blk.mapped + off : NULL;
    m->allocations++;
    m->used_bytes += req->size;
    publish(b);
    return ZE_OK;
}

void ze__vk_mem_free(ze_vk_backend_t *b, ze_vk_alloc_t *a)
{
    if (!a->memory)
        return;
    ze_vk_memory_t *m = &b->mem;
    if (a->block < 0) {
        if (a->mapped)
            vkUnmapMemory(b->device, a->memory);
        vkFreeMemory(b->device, a->memory, b->host_cb);
        m->device_bytes -= a->size;
        m->dedicated--;
        publish(b);
    } else {
        ze_vk_block_t *blk = &ZE_ARRAY_AT(&m->blocks, ze_vk_block_t, (uint32_t)a->block);
        ze__vk_ranges_free(&blk->ranges, a->offset, a->size);
        if (block_empty(blk)) {
            if (blk->mapped)
                vkUnmapMemory(b->device, blk->memory);
            vkFreeMemory(b->device, blk->memory, b->host_cb);
            ze__vk_ranges_fini(&blk->ranges);
            m->device_bytes -= BLOCK_SIZE;
            memset(blk, 0, sizeof *blk);
        }
    }
    m->allocations--;
    m->used_bytes -= a->size;
    publish(b);
    memset(a, 0, sizeof *a);
}

/* ---------------------------------------------------- buffers and images */

ze_result ze__vk_buffer_create(ze_vk_backend_t *b, VkDeviceSize size, VkBufferUsageFlags usage,
                               bool host, ze_vk_buffer_t *out)
{
    memset(out, 0, sizeof *out);
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    ZE__VK_TRY(b, vkCreateBuffer(b->device, &bci, b->host_cb, &out->buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(b->device, out->buffer, &req);
    VkMemoryPropertyFlags want =
        host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
             : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    ze_result r = ze__vk_mem_alloc(b, &req, want, &out->mem);
    if (r == ZE_OK) {
        VkResult vr = vkBindBufferMemory(b->device, out->buffer, out->mem.memory, out->mem.offset);
        if (vr != VK_SUCCESS) {
            ze__vk_mem_free(b, &out->mem);
            r = ze__vk_fail(b, vr, "vkBindBufferMemory");
        }
    }
    if (r != ZE_OK) {
        vkDestroyBuffer(b->device, out->buffer, b->host_cb);
        memset(out, 0, sizeof *out);
        return r;
    }
    out->size = size;
    out->map = out->mem.mapped;
    return ZE_OK;
}

void ze__vk_buffer_destroy(ze_vk_backend_t *b, ze_vk_buffer_t *buf)
{
    if (buf->buffer)
        vkDestroyBuffer(b->device, buf->buffer, b->host_cb);
    ze__vk_mem_free(b, &buf->mem);
    memset(buf, 0, sizeof *buf);
}

ze_result ze__vk_image_create(ze_vk_backend_t *b, VkFormat format, uint32_t width, uint32_t height,
                              uint32_t mips, VkImageUsageFlags usage, ze_vk_image_t *out)
{
    memset(out, 0, sizeof *out);
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {width, height, 1},
        .mipLevels = mips,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    ZE__VK_TRY(b, vkCreateImage(b->device, &ici, b->host_cb, &out->image), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(b->device, out->image, &req);
    ze_result r = ze__vk_mem_alloc(b, &req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out->mem);
    VkResult vr = VK_SUCCESS;
    if (r == ZE_OK && (vr = vkBindImageMemory(b->device, out->image, out->mem.memory,
                                              out->mem.offset)) != VK_SUCCESS)
        r = ze__vk_fail(b, vr, "vkBindImageMemory");
    if (r == ZE_OK) {
        bool depth = format == VK_FORMAT_D32_SFLOAT;
        VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = out->image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = format,
            .subresourceRange = {depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                 mips, 0, 1},
        };
        if ((vr = vkCreateImageView(b->device, &vci, b->host_cb, &out->view)) != VK_SUCCESS)
            r = ze__vk_fail(b, vr, "vkCreateImageView");
    }
    if (r != ZE_OK) {
        ze__vk_mem_free(b, &out->mem);
        vkDestroyImage(b->device, out->image, b->host_cb);
        memset(out, 0, sizeof *out);
        return r;
    }
    out->format = format;
    out->width = width;
    out->height = height;
    out->mips = mips;
    return ZE_OK;
}

void ze__vk_image_destroy(ze_vk_backend_t *b, ze_vk_image_t *img)
{
    if (img->view)
        vkDestroyImageView(b->device, img->view, b->host_cb);
    if (img->image)
        vkDestroyImage(b->device, img->image, b->host_cb);
    ze__vk_mem_free(b, &img->mem);
    memset(img, 0, sizeof *img);
}
