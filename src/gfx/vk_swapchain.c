/* The window target: a swapchain over the backend's surface (created from
 * desc.native_window at create), behind ze_vk_target_ops_t.
 *
 * Images: the tone-mapping pass writes the target's own LDR image (RGBA8
 * UNORM, sRGB-encoded by the shader, like the offscreen target: screenshots
 * read it), and the render graph's present pass (vk_pass_present.c) blits
 * it into the swapchain image acquire() hands out, which the graph leaves
 * in PRESENT_SRC_KHR; present() presents it. Blitting rather than writing
 * the swapchain image from
 * the compute pass: storage usage on a surface format is optional, the
 * shader's rgba8 qualifier would not match B8G8R8A8, and a blit converts
 * channel order and scales when the window's size and the render size
 * differ for a frame (a resize the main thread has not published yet).
 * Formats: B8G8R8A8_UNORM, then R8G8B8A8_UNORM (values copied as they are,
 * already sRGB-encoded); an *_SRGB-only surface would encode twice (warned).
 * Present modes: FIFO with vsync; else MAILBOX, then IMMEDIATE, then FIFO.
 *
 * The state machine (swap_state):
 *   OK              an image can be acquired
 *   NEEDS_RECREATE  resize (the scene's size changed), acquire out-of-date
 *                   (recreated at once, frame not presented), suboptimal
 *                   acquire or present (presented, then recreated at the next
 *                   acquire), present out-of-date
 *   MINIMIZED       the surface's extent is 0x0: nothing is acquired; every
 *                   acquire checks the surface again and recreates once it
 *                   is non-zero
 * A frame without an image still renders into the LDR image (the frame's
 * uploads are submitted, screenshots work); only the blit and present are
 * skipped (the graph has no present pass then). Recreation waits for the queue (vkQueueWaitIdle:
 * presents and submissions), builds the new swapchain from the old one, then destroys the old one
 * and its semaphores; every one after the first is counted (stats.swapchain_recreates). Semaphores:
 * one binary "acquired" semaphore per frame slot (the slot's timeline wait orders its reuse) that
 * the frame's submission waits on at the transfer stages (the graph's first barrier on the image
 * waits there too: the backbuffer is imported as last used by a transfer write); one binary
 * "rendered" semaphore per swapchain image that the submission signals and
 * the present waits on.
 * Threads: create on the main thread; everything else on the render thread;
 * destroy after it is joined (the backend waits for the device first). */
#include <string.h>

#include "gfx/vk_internal.h"

enum { MAX_IMAGES = 8 };

typedef enum swap_state {
    SWAP_OK = 0,
    SWAP_NEEDS_RECREATE,
    SWAP_MINIMIZED,
} swap_state;

static const char *const STATE_NAMES[] = {"ok", "needs_recreate", "minimized"};

typedef struct swap_t {
    ze_vk_target_t base; /* first: the target */
    swap_state state;
    VkSwapchainKHR swapchain;
    VkSurfaceFormatKHR format;
    VkPresentModeKHR mode;
    VkExtent2D extent;
    uint32_t count;
    VkImage images[MAX_IMAGES];
    VkSemaphore rendered[MAX_IMAGES];
    VkSemaphore acquired[ZE_VK_FRAMES];
    bool have_image; /* acquired this frame, to blit and present */
    uint32_t index;  /* of the acquired image */
    uint32_t slot;   /* frame slot whose "acquired" semaphore was used */
    uint64_t created;
} swap_t;

static swap_t *swap_of(ze_vk_target_t *t)
{
    return (swap_t *)t;
}

static ze_result ldr_image(ze_vk_target_t *t)
{
    return ze__vk_image_create(t->b, VK_FORMAT_R8G8B8A8_UNORM, t->width, t->height, 1,
                               ZE_VK_LDR_USAGE, &t->image);
}

static void set_state(swap_t *s, swap_state to)
{
    if (s->state != to)
        ZE_LOG_DEBUG(ZE_VK_LOG, "swapchain: %s -> %s", STATE_NAMES[s->state], STATE_NAMES[to]);
    s->state = to;
}

static ze_result choose_format(swap_t *s)
{
    ze_vk_backend_t *b = s->base.b;
    uint32_t n = 0;
    VkSurfaceFormatKHR f[64];
    ZE__VK_TRY(b, vkGetPhysicalDeviceSurfaceFormatsKHR(b->gpu, b->surface, &n, NULL),
               "vkGetPhysicalDeviceSurfaceFormatsKHR");
    n = n > 64 ? 64 : n;
    VkResult vr = vkGetPhysicalDeviceSurfaceFormatsKHR(b->gpu, b->surface, &n, f);
    if (vr < 0)
        return ze__vk_fail(b, vr, "vkGetPhysicalDeviceSurfaceFormatsKHR");
    if (n == 0) {
        ZE_LOG_ERROR(ZE_VK_LOG, "the window's surface offers no formats");
        return ZE_ERR_UNSUPPORTED;
    }
    static const VkFormat WANT[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
    for (size_t w = 0; w < ZE_COUNTOF(WANT); w++)
        for (uint32_t i = 0; i < n; i++)
            if (f[i].format == WANT[w] && f[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
                s->format = f[i];
                return ZE_OK;
            }
    s->format = f[0];
    ZE_LOG_WARN(ZE_VK_LOG,
                "swapchain: no B8G8R8A8/R8G8B8A8 UNORM surface format; using format %d "
                "(colours may be encoded twice)",
                (int)f[0].format);
    return ZE_OK;
}

static VkPresentModeKHR choose_mode(swap_t *s)
{
    ze_vk_backend_t *b = s->base.b;
    if (b->desc.vsync)
        return VK_PRESENT_MODE_FIFO_KHR; /* always supported */
    uint32_t n = 0;
    VkPresentModeKHR m[16];
    if (vkGetPhysicalDeviceSurfacePresentModesKHR(b->gpu, b->surface, &n, NULL) != VK_SUCCESS)
        return VK_PRESENT_MODE_FIFO_KHR;
    n = n > 16 ? 16 : n;
    if (vkGetPhysicalDeviceSurfacePresentModesKHR(b->gpu, b->surface, &n, m) < 0)
        return VK_PRESENT_MODE_FIFO_KHR;
    static const VkPresentModeKHR WANT[] = {VK_PRESENT_MODE_MAILBOX_KHR,
                                            VK_PRESENT_MODE_IMMEDIATE_KHR};
    for (size_t w = 0; w < ZE_COUNTOF(WANT); w++)
        for (uint32_t i = 0; i < n; i++)
            if (m[i] == WANT[w])
                return m[i];
    return VK_PRESENT_MODE_FIFO_KHR;
}

static void destroy_semaphores(ze_vk_backend_t *b, VkSemaphore *sems, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (sems[i])
            vkDestroySemaphore(b->device, sems[i], b->host_cb);
        sems[i] = VK_NULL_HANDLE;
    }
}

static ze_result create_semaphores(ze_vk_backend_t *b, VkSemaphore *sems, uint32_t n)
{
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < n; i++)
        ZE__VK_TRY(b, vkCreateSemaphore(b->device, &sci, b->host_cb, &sems[i]),
                   "vkCreateSemaphore");
    return ZE_OK;
}

static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* (Re)create the swapchain for the surface's current extent; a 0x0 extent
 * leaves the old one (if any) in place and enters MINIMIZED. */
static ze_result recreate(swap_t *s)
{
    ze_vk_target_t *t = &s->base;
    ze_vk_backend_t *b = t->b;
    VkSurfaceCapabilitiesKHR caps;
    ZE__VK_TRY(b, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(b->gpu, b->surface, &caps),
               "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    VkExtent2D ext = caps.currentExtent;
    if (ext.width == UINT32_MAX) /* the surface takes the swapchain's size */
        ext = (VkExtent2D){
            clamp_u32(t->width, caps.minImageExtent.width, caps.maxImageExtent.width),
            clamp_u32(t->height, caps.minImageExtent.height, caps.maxImageExtent.height)};
    if (ext.width == 0 || ext.height == 0) {
        set_state(s, SWAP_MINIMIZED);
        return ZE_OK;
    }
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
        ZE_LOG_ERROR(ZE_VK_LOG, "swapchain: the surface's images cannot be transfer targets");
        return ZE_ERR_UNSUPPORTED;
    }
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount)
        count = caps.maxImageCount;
    count = count > MAX_IMAGES ? MAX_IMAGES : count;
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha))
        for (uint32_t bit = 1; bit <= VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR; bit <<= 1)
            if (caps.supportedCompositeAlpha & bit) {
                alpha = (VkCompositeAlphaFlagBitsKHR)bit;
                break;
            }
    /* presents and submissions that use the old images and semaphores */
    ZE__VK_TRY(b, vkQueueWaitIdle(b->queue), "vkQueueWaitIdle");
    VkSwapchainKHR old = s->swapchain;
    VkSwapchainCreateInfoKHR ci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = b->surface,
        .minImageCount = count,
        .imageFormat = s->format.format,
        .imageColorSpace = s->format.colorSpace,
        .imageExtent = ext,
        .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = caps.currentTransform,
        .compositeAlpha = alpha,
        .presentMode = s->mode,
        .clipped = VK_TRUE,
        .oldSwapchain = old,
    };
    VkSwapchainKHR sc = VK_NULL_HANDLE;
    VkResult vr = vkCreateSwapchainKHR(b->device, &ci, b->host_cb, &sc);
    if (old)
        vkDestroySwapchainKHR(b->device, old, b->host_cb);
    s->swapchain = VK_NULL_HANDLE;
    destroy_semaphores(b, s->rendered, MAX_IMAGES);
    destroy_semaphores(b, s->acquired, ZE_VK_FRAMES);
    s->count = 0;
    s->have_image = false;
    if (vr != VK_SUCCESS)
        return ze__vk_fail(b, vr, "vkCreateSwapchainKHR");
    s->swapchain = sc;
    uint32_t n = 0;
    ZE__VK_TRY(b, vkGetSwapchainImagesKHR(b->device, sc, &n, NULL), "vkGetSwapchainImagesKHR");
    n = n > MAX_IMAGES ? MAX_IMAGES : n;
    vr = vkGetSwapchainImagesKHR(b->device, sc, &n, s->images);
    if (vr < 0)
        return ze__vk_fail(b, vr, "vkGetSwapchainImagesKHR");
    s->count = n;
    ze_result r = create_semaphores(b, s->rendered, n);
    if (r == ZE_OK)
        r = create_semaphores(b, s->acquired, ZE_VK_FRAMES);
    if (r != ZE_OK)
        return r;
    s->extent = ext;
    if (s->created++)
        atomic_fetch_add_explicit(&b->swapchain_recreates, 1, memory_order_relaxed);
    set_state(s, SWAP_OK);
    ZE_LOG_DEBUG(ZE_VK_LOG, "swapchain: %ux%u, %u images, format %d, present mode %d", ext.width,
                 ext.height, n, (int)s->format.format, (int)s->mode);
    return ZE_OK;
}

/* The image acquired for this frame (have_image), else what a frame would
 * present into while the swapchain is usable (its first image). */
static void swap_backbuffer(ze_vk_target_t *t, ze_vk_backbuffer_t *out)
{
    swap_t *s = swap_of(t);
    *out = (ze_vk_backbuffer_t){0};
    if (!s->count || (s->state == SWAP_MINIMIZED && !s->have_image))
        return;
    *out = (ze_vk_backbuffer_t){
        .image = s->images[s->have_image ? s->index : 0],
        .format = s->format.format,
        .width = s->extent.width,
        .height = s->extent.height,
    };
}

static ze_result swap_acquire(ze_vk_target_t *t, ze_vk_backbuffer_t *out)
{
    swap_t *s = swap_of(t);
    ze_vk_backend_t *b = t->b;
    ZE__VK_ON_RENDER_THREAD(b);
    *out = (ze_vk_backbuffer_t){0};
    s->have_image = false;
    if (s->state != SWAP_OK) {
        ze_result r = recreate(s);
        if (r != ZE_OK || s->state != SWAP_OK)
            return r; /* minimized: render, do not present */
    }
    s->slot = b->frame_slot;
    VkResult vr = vkAcquireNextImageKHR(b->device, s->swapchain, 1000000000ull,
                                        s->acquired[s->slot], VK_NULL_HANDLE, &s->index);
    switch (vr) {
    case VK_SUCCESS:
        s->have_image = true;
        swap_backbuffer(t, out);
        return ZE_OK;
    case VK_SUBOPTIMAL_KHR: /* signalled: present it, recreate next frame */
        s->have_image = true;
        swap_backbuffer(t, out);
        set_state(s, SWAP_NEEDS_RECREATE);
        return ZE_OK;
    case VK_ERROR_OUT_OF_DATE_KHR: /* recreate now; this frame is not presented */
        set_state(s, SWAP_NEEDS_RECREATE);
        return recreate(s);
    case VK_TIMEOUT:
    case VK_NOT_READY:
        ZE_LOG_DEBUG(ZE_VK_LOG, "swapchain: no image within 1 s: frame not presented");
        return ZE_OK;
    default:
        return ze__vk_fail(b, vr, "vkAcquireNextImageKHR");
    }
}

static void swap_sync(ze_vk_target_t *t, ze_vk_submit_sync_t *sync)
{
    swap_t *s = swap_of(t);
    *sync = (ze_vk_submit_sync_t){0};
    if (!s->have_image)
        return;
    sync->wait = s->acquired[s->slot];
    sync->wait_stage = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    sync->signal = s->rendered[s->index];
}

static ze_result swap_present(ze_vk_target_t *t)
{
    swap_t *s = swap_of(t);
    ze_vk_backend_t *b = t->b;
    ZE__VK_ON_RENDER_THREAD(b);
    if (!s->have_image)
        return ZE_OK;
    s->have_image = false;
    VkPresentInfoKHR pi = {
        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
        .waitSemaphoreCount = 1,
        .pWaitSemaphores = &s->rendered[s->index],
        .swapchainCount = 1,
        .pSwapchains = &s->swapchain,
        .pImageIndices = &s->index,
    };
    VkResult vr = vkQueuePresentKHR(b->queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR) {
        set_state(s, SWAP_NEEDS_RECREATE);
        return ZE_OK;
    }
    if (vr != VK_SUCCESS)
        return ze__vk_fail(b, vr, "vkQueuePresentKHR");
    return ZE_OK;
}

/* The scene's size changed (GPU idle): a new LDR image now, a new swapchain
 * at the next acquire (unless the surface is 0x0 then). */
static ze_result swap_resize(ze_vk_target_t *t, uint32_t width, uint32_t height)
{
    swap_t *s = swap_of(t);
    ZE__VK_ON_RENDER_THREAD(t->b);
    if (width == t->width && height == t->height)
        return ZE_OK;
    ze__vk_defer_image(t->b, &t->image);
    t->width = width;
    t->height = height;
    set_state(s, SWAP_NEEDS_RECREATE);
    return ldr_image(t);
}

static void swap_destroy(ze_vk_target_t *t)
{
    swap_t *s = swap_of(t);
    ze_vk_backend_t *b = t->b;
    if (s->swapchain)
        vkDestroySwapchainKHR(b->device, s->swapchain, b->host_cb);
    destroy_semaphores(b, s->rendered, MAX_IMAGES);
    destroy_semaphores(b, s->acquired, ZE_VK_FRAMES);
    ze__vk_image_destroy(b, &t->image);
    ze_free(b->alloc, s, sizeof *s);
}

static const ze_vk_target_ops_t SWAPCHAIN = {
    .name = "swapchain",
    .acquire = swap_acquire,
    .backbuffer = swap_backbuffer,
    .sync = swap_sync,
    .present = swap_present,
    .resize = swap_resize,
    .destroy = swap_destroy,
};

ze_result ze__vk_target_swapchain_create(ze_vk_backend_t *b, uint32_t width, uint32_t height,
                                         ze_vk_target_t **out)
{
    swap_t *s = ZE_NEW(b->alloc, swap_t);
    if (!s)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(s, 0, sizeof *s);
    s->base.ops = &SWAPCHAIN;
    s->base.b = b;
    s->base.width = width;
    s->base.height = height;
    VkFormatProperties fp;
    ze_result r = choose_format(s);
    if (r == ZE_OK) {
        vkGetPhysicalDeviceFormatProperties(b->gpu, s->format.format, &fp);
        if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
            ZE_LOG_ERROR(ZE_VK_LOG, "swapchain: format %d cannot be a blit target",
                         (int)s->format.format);
            r = ZE_ERR_UNSUPPORTED;
        }
    }
    s->mode = choose_mode(s);
    if (r == ZE_OK)
        r = ldr_image(&s->base);
    if (r == ZE_OK)
        r = recreate(s); /* 0x0 at start: MINIMIZED until the window shows */
    if (r != ZE_OK) {
        swap_destroy(&s->base);
        return r;
    }
    ZE_LOG_INFO(ZE_VK_LOG, "window target: swapchain %ux%u (%s), format %d, present mode %s",
                s->extent.width, s->extent.height, STATE_NAMES[s->state], (int)s->format.format,
                s->mode == VK_PRESENT_MODE_FIFO_KHR        ? "fifo"
                : s->mode == VK_PRESENT_MODE_MAILBOX_KHR   ? "mailbox"
                : s->mode == VK_PRESENT_MODE_IMMEDIATE_KHR ? "immediate"
                                                           : "other");
    *out = &s->base;
    return ZE_OK;
}
