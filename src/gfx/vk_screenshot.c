/* Screenshots: read back the target's last image (RGBA8, sRGB-encoded by
 * the tone-mapping pass) through a host-visible buffer and a one-shot
 * submission, then write it with our PNG writer (png_write.c, zlib's
 * deflate; memory from the Render owner). Render thread. */
#include <string.h>

#include "gfx/png_write.h"
#include "gfx/vk_internal.h"

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
    /* as the render graph leaves it (vk_graph.c: the LDR import's `after`),
       to a copy source and back, by the graph's access table */
    ze__vk_transition(cmd, img, ZE_RG_STORAGE_WRITE, ZE_RG_COMPUTE, ZE_RG_TRANSFER_SRC,
                      ZE_RG_TRANSFER);
    VkBufferImageCopy c = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {w, h, 1},
    };
    vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &c);
    ze__vk_transition(cmd, img, ZE_RG_TRANSFER_SRC, ZE_RG_TRANSFER, ZE_RG_STORAGE_WRITE,
                      ZE_RG_COMPUTE);
    r = ze__vk_oneshot_end(b, cmd);
    if (r == ZE_OK)
        ze__vk_timestamps_poll(b, b->next_value - 1); /* the GPU is idle: every frame's */
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
    r = ze__png_write(png_path, w, h, px, b->alloc);
    ze_free(b->alloc, px, size);
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE_VK_LOG, "screenshot %s: cannot write the PNG (%s)", png_path,
                     ze_result_str(r));
        return r;
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
