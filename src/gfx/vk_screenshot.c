/* Screenshots: read back the target's last image (RGBA8, sRGB-encoded by
 * the tone-mapping pass) through a host-visible buffer and a one-shot
 * submission, then write PNG with stb_image_write (Debian's libstb-dev),
 * compiled in this one file with its allocations routed through the
 * Render owner: STBIW_MALLOC/REALLOC_SIZED/FREE go to the functions below,
 * which prefix each block with its size (stb frees without one); the
 * allocator of the write in progress is a thread-local set around the call.
 * Render thread. */
#include <string.h>

#include "gfx/vk_internal.h"

static _Thread_local const ze_allocator_t *t_alloc;

enum { HDR = 16 };

static void *stbiw_malloc(size_t size)
{
    if (!t_alloc)
        return NULL;
    uint8_t *p = ze_alloc(*t_alloc, size + HDR, 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    return p + HDR;
}

static void stbiw_free(void *ptr)
{
    if (!ptr || !t_alloc)
        return;
    uint8_t *p = (uint8_t *)ptr - HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    ze_free(*t_alloc, p, size + HDR);
}

static void *stbiw_realloc(void *ptr, size_t old, size_t size)
{
    (void)old;
    void *n = stbiw_malloc(size);
    if (!n)
        return NULL;
    if (ptr) {
        size_t was;
        memcpy(&was, (uint8_t *)ptr - HDR, sizeof was);
        memcpy(n, ptr, was < size ? was : size);
        stbiw_free(ptr);
    }
    return n;
}

#define STBIW_MALLOC(sz)                  stbiw_malloc(sz)
#define STBIW_REALLOC_SIZED(p, oldsz, sz) stbiw_realloc((p), (oldsz), (sz))
#define STBIW_FREE(p)                     stbiw_free(p)
#define STBIW_ASSERT(x)                   ZE_ASSERT(x)
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#elif defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmissing-prototypes"
#pragma clang diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#elif defined(__clang__)
#pragma clang diagnostic pop
#endif

ze_result ze__vk_read_pixels(ze_vk_backend_t *b, uint8_t **pixels, size_t *size, uint32_t *width,
                             uint32_t *height)
{
    ZE__VK_ON_RENDER_THREAD(b);
    if (b->lost)
        return ZE_ERR_IO;
    if (!b->has_image)
        return ZE_ERR_STATE;
    ze_vk_image_t *img = &b->target->image;
    uint32_t w = img->width, h = img->height;
    size_t bytes = (size_t)w * h * 4;
    ze_vk_buffer_t rb;
    ze_result r = ze__vk_buffer_create(b, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, &rb);
    if (r != ZE_OK)
        return r;
    VkCommandBuffer cmd;
    if ((r = ze__vk_oneshot_begin(b, &cmd)) != ZE_OK) {
        ze__vk_buffer_destroy(b, &rb);
        return r;
    }
    ze__vk_image_barrier(cmd, img->image, VK_IMAGE_ASPECT_COLOR_BIT,
                         VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                         VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                         VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL,
                         VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 1);
    VkBufferImageCopy c = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {w, h, 1},
    };
    vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &c);
    ze__vk_image_barrier(cmd, img->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                         0, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
                         VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, 1);
    r = ze__vk_oneshot_end(b, cmd);
    if (r == ZE_OK) {
        *pixels = ze_alloc(b->alloc, bytes, 16);
        if (*pixels) {
            memcpy(*pixels, rb.map, bytes);
            *size = bytes;
            *width = w;
            *height = h;
        } else {
            r = ZE_ERR_OUT_OF_MEMORY;
        }
    }
    if (b->lost)
        ze__vk_defer_buffer(b, &rb); /* the GPU may still own it: freed at destroy */
    else
        ze__vk_buffer_destroy(b, &rb);
    return r;
}

ze_result ze__vk_screenshot(ze_vk_backend_t *b, const char *png_path)
{
    uint8_t *px = NULL;
    size_t size = 0;
    uint32_t w = 0, h = 0;
    ze_result r = ze__vk_read_pixels(b, &px, &size, &w, &h);
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE_VK_LOG, "screenshot %s: %s", png_path,
                     r == ZE_ERR_STATE ? "nothing rendered yet" : ze_result_str(r));
        return r;
    }
    t_alloc = &b->alloc;
    int ok = stbi_write_png(png_path, (int)w, (int)h, 4, px, (int)w * 4);
    t_alloc = NULL;
    ze_free(b->alloc, px, size);
    if (!ok) {
        ZE_LOG_ERROR(ZE_VK_LOG, "screenshot %s: cannot write the PNG", png_path);
        return ZE_ERR_IO;
    }
    ZE_LOG_INFO(ZE_VK_LOG, "screenshot %s (%ux%u)", png_path, w, h);
    return ZE_OK;
}

ze_result ze__vk_test_pixels(ze_render_backend_t *rb, uint8_t *rgba, size_t size)
{
    ze_vk_backend_t *b = ze__vk(rb);
    uint8_t *px = NULL;
    size_t n = 0;
    uint32_t w = 0, h = 0;
    ze_result r = ze__vk_read_pixels(b, &px, &n, &w, &h);
    if (r != ZE_OK)
        return r;
    if (n != size)
        r = ZE_ERR_INVALID_ARG;
    else
        memcpy(rgba, px, n);
    ze_free(b->alloc, px, n);
    return r;
}
