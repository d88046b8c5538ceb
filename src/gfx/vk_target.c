/* Targets: what a frame's final image goes to. The offscreen (headless)
 * target owns one RGBA8 image the tone-mapping pass writes and screenshots
 * read; there is nothing to present into (no backbuffer, no semaphores).
 * The window target behind the same interface (ze_vk_target_ops_t) is
 * vk_swapchain.c. Render thread, or create/destroy. */
#include <string.h>

#include "gfx/vk_internal.h"

static ze_result offscreen_image(ze_vk_target_t *t)
{
    return ze__vk_image_create(t->b, VK_FORMAT_R8G8B8A8_UNORM, t->width, t->height, 1,
                               ZE_VK_LDR_USAGE, &t->image);
}

static void offscreen_backbuffer(ze_vk_target_t *t, ze_vk_backbuffer_t *out)
{
    (void)t;
    *out = (ze_vk_backbuffer_t){0};
}

static ze_result offscreen_acquire(ze_vk_target_t *t, ze_vk_backbuffer_t *out)
{
    offscreen_backbuffer(t, out);
    return ZE_OK;
}

static void offscreen_sync(ze_vk_target_t *t, ze_vk_submit_sync_t *sync)
{
    (void)t;
    *sync = (ze_vk_submit_sync_t){0};
}

static ze_result offscreen_present(ze_vk_target_t *t)
{
    (void)t;
    return ZE_OK;
}

static ze_result offscreen_resize(ze_vk_target_t *t, uint32_t width, uint32_t height)
{
    ZE__VK_ON_RENDER_THREAD(t->b);
    if (width == t->width && height == t->height)
        return ZE_OK;
    ze__vk_defer_image(t->b, &t->image);
    t->width = width;
    t->height = height;
    return offscreen_image(t);
}

static void offscreen_destroy(ze_vk_target_t *t)
{
    ze__vk_image_destroy(t->b, &t->image);
    ze_free(t->b->alloc, t, sizeof *t);
}

static const ze_vk_target_ops_t OFFSCREEN = {
    .name = "offscreen",
    .acquire = offscreen_acquire,
    .backbuffer = offscreen_backbuffer,
    .sync = offscreen_sync,
    .present = offscreen_present,
    .resize = offscreen_resize,
    .destroy = offscreen_destroy,
};

ze_result ze__vk_target_offscreen_create(ze_vk_backend_t *b, uint32_t width, uint32_t height,
                                         ze_vk_target_t **out)
{
    ze_vk_target_t *t = ZE_NEW(b->alloc, ze_vk_target_t);
    if (!t)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(t, 0, sizeof *t);
    t->ops = &OFFSCREEN;
    t->b = b;
    t->width = width;
    t->height = height;
    ze_result r = offscreen_image(t);
    if (r != ZE_OK) {
        ze_free(b->alloc, t, sizeof *t);
        return r;
    }
    *out = t;
    return ZE_OK;
}
