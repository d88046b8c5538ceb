/* Frame pacing on one timeline semaphore, command buffers, deferred
 * destruction, GPU timestamps, one-shot submissions (render thread; create
 * and destroy on the main thread).
 *
 * Every submission signals the next timeline value. ZE_VK_FRAMES frame
 * slots each own a command pool and a command buffer; a slot is reused once
 * the timeline reached the value of its previous submission (waits are
 * bounded: 10 s, then the device counts as lost, so a hung GPU never hangs
 * the engine). A resource released during the run is queued with the value
 * of the submission that may still use it (the next one) and destroyed when
 * the timeline passes that value: buffers, images, bindless slots.
 * Timestamps: ZE_VK_TIMESTAMPS queries per slot (a begin and an end per
 * render-graph pass, written by vk_graph.c), read once the timeline shows
 * the frame done (at the next frame's begin, or after an idle wait: never a
 * stall) and published as the stats' per-pass list. */
#include <stdio.h>
#include <string.h>

#include "gfx/vk_internal.h"

/* How long the host waits for the device before calling it lost: a hang
 * deadline, not a speed. A GPU that stalls for 10 s is gone (drivers reset
 * long before). A CPU device (lavapipe) shares the cores with everything
 * else: its first frame, which compiles every pipeline, took over 10 s in
 * CI's loaded stage (half of one core), so it gets 100 s. */
static uint64_t wait_ns(const ze_vk_backend_t *b)
{
    return b->gpu_props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 100ull * 1000000000ull
                                                                  : 10ull * 1000000000ull;
}

ze_result ze__vk_frames_create(ze_vk_backend_t *b)
{
    VkSemaphoreTypeCreateInfo tci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    ZE__VK_TRY(b, vkCreateSemaphore(b->device, &sci, b->host_cb, &b->timeline),
               "vkCreateSemaphore");
    b->next_value = 1;
    ZE_ARRAY_INIT(&b->dead, b->alloc, ze_vk_dead_t);
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
        .queueFamilyIndex = b->queue_family,
    };
    for (int i = 0; i < ZE_VK_FRAMES; i++) {
        ze_vk_frame_t *f = &b->frames[i];
        ZE__VK_TRY(b, vkCreateCommandPool(b->device, &pci, b->host_cb, &f->pool),
                   "vkCreateCommandPool");
        VkCommandBufferAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = f->pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        ZE__VK_TRY(b, vkAllocateCommandBuffers(b->device, &ai, &f->cmd),
                   "vkAllocateCommandBuffers");
    }
    ZE__VK_TRY(b, vkCreateCommandPool(b->device, &pci, b->host_cb, &b->oneshot_pool),
               "vkCreateCommandPool");
    if (b->timestamp_period > 0.0f) {
        VkQueryPoolCreateInfo qci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = ZE_VK_FRAMES * ZE_VK_TIMESTAMPS,
        };
        ZE__VK_TRY(b, vkCreateQueryPool(b->device, &qci, b->host_cb, &b->queries),
                   "vkCreateQueryPool");
        vkResetQueryPool(b->device, b->queries, 0, ZE_VK_FRAMES * ZE_VK_TIMESTAMPS);
    }
    return ZE_OK;
}

static void destroy_dead(ze_vk_backend_t *b, ze_vk_dead_t *d)
{
    switch (d->kind) {
    case ZE_VK_DEAD_BUFFER:
        ze__vk_buffer_destroy(b, &d->buffer);
        break;
    case ZE_VK_DEAD_IMAGE:
        ze__vk_image_destroy(b, &d->image);
        break;
    case ZE_VK_DEAD_SLOT:
        b->free_slots[b->free_slot_count++] = d->slot;
        break;
    }
}

void ze__vk_retire(ze_vk_backend_t *b, uint64_t completed)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < b->dead.count; i++) {
        ze_vk_dead_t *d = &ZE_ARRAY_AT(&b->dead, ze_vk_dead_t, i);
        if (d->value <= completed)
            destroy_dead(b, d);
        else
            ZE_ARRAY_AT(&b->dead, ze_vk_dead_t, keep++) = *d;
    }
    b->dead.count = keep;
}

void ze__vk_frames_destroy(ze_vk_backend_t *b)
{
    ze__vk_retire(b, UINT64_MAX);
    ze_array_free(&b->dead);
    for (int i = 0; i < ZE_VK_FRAMES; i++) {
        ze_vk_frame_t *f = &b->frames[i];
        ze__vk_buffer_destroy(b, &f->data);
        ze__vk_buffer_destroy(b, &f->visible);
        ze__vk_buffer_destroy(b, &f->refs);
        ze__vk_buffer_destroy(b, &f->visible_count);
        ze__vk_buffer_destroy(b, &f->candidates);
        ze__vk_buffer_destroy(b, &f->late_args);
        ze__vk_buffer_destroy(b, &f->elements);
        ze__vk_buffer_destroy(b, &f->bins);
        ze__vk_buffer_destroy(b, &f->place_args);
        if (f->pool)
            vkDestroyCommandPool(b->device, f->pool, b->host_cb);
        f->pool = VK_NULL_HANDLE;
    }
    if (b->oneshot_pool)
        vkDestroyCommandPool(b->device, b->oneshot_pool, b->host_cb);
    if (b->queries)
        vkDestroyQueryPool(b->device, b->queries, b->host_cb);
    if (b->timeline)
        vkDestroySemaphore(b->device, b->timeline, b->host_cb);
    b->oneshot_pool = VK_NULL_HANDLE;
    b->queries = VK_NULL_HANDLE;
    b->timeline = VK_NULL_HANDLE;
}

static void push_dead(ze_vk_backend_t *b, ze_vk_dead_t *d)
{
    d->value = b->next_value;
    if (ze_array_push(&b->dead, d) != ZE_OK) {
        /* no memory for the queue: wait for the GPU and destroy now */
        ZE_LOG_WARN(ZE_VK_LOG, "deferred-free queue: no memory; waiting for the GPU instead");
        (void)ze__vk_wait_idle(b);
        destroy_dead(b, d);
    }
}

void ze__vk_defer_buffer(ze_vk_backend_t *b, ze_vk_buffer_t *buf)
{
    if (!buf->buffer)
        return;
    ze_vk_dead_t d = {.kind = ZE_VK_DEAD_BUFFER, .buffer = *buf};
    push_dead(b, &d);
    memset(buf, 0, sizeof *buf);
}

void ze__vk_defer_image(ze_vk_backend_t *b, ze_vk_image_t *img)
{
    if (!img->image)
        return;
    ze_vk_dead_t d = {.kind = ZE_VK_DEAD_IMAGE, .image = *img};
    push_dead(b, &d);
    memset(img, 0, sizeof *img);
}

void ze__vk_defer_slot(ze_vk_backend_t *b, uint32_t slot)
{
    ze_vk_dead_t d = {.kind = ZE_VK_DEAD_SLOT, .slot = slot};
    push_dead(b, &d);
}

ze_result ze__vk_wait_value(ze_vk_backend_t *b, uint64_t value)
{
    ZE__VK_ON_RENDER_THREAD(b);
    if (value == 0 || b->lost)
        return b->lost ? ZE_ERR_IO : ZE_OK;
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &b->timeline,
        .pValues = &value,
    };
    uint64_t limit = wait_ns(b);
    VkResult r = vkWaitSemaphores(b->device, &wi, limit);
    if (r == VK_TIMEOUT) {
        ZE_LOG_ERROR(ZE_VK_LOG, "the device did not reach timeline value %llu in %llu s",
                     (unsigned long long)value, (unsigned long long)(limit / 1000000000ull));
        r = VK_ERROR_DEVICE_LOST;
    }
    if (r != VK_SUCCESS)
        return ze__vk_fail(b, r, "vkWaitSemaphores");
    if (value > b->waited_value)
        b->waited_value = value;
    return ZE_OK;
}

ze_result ze__vk_wait_idle(ze_vk_backend_t *b)
{
    return ze__vk_wait_value(b, b->next_value - 1);
}

static void read_timestamps(ze_vk_backend_t *b, uint32_t slot)
{
    ze_vk_frame_t *f = &b->frames[slot];
    uint32_t n = f->timed_count;
    f->timed_count = 0;
    if (!b->queries || !n)
        return;
    uint64_t t[ZE_VK_TIMESTAMPS];
    if (vkGetQueryPoolResults(b->device, b->queries, slot * ZE_VK_TIMESTAMPS, 2 * n,
                              sizeof t[0] * 2 * n, t, sizeof t[0],
                              VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
        return;
    ze_render_pass_time_t times[ZE_VK_MAX_PASSES];
    /* The profiler's GPU track: each pass placed on the CPU clock from its
       frame's submission on (the GPU starts no earlier; there is no common
       clock without VK_EXT_calibrated_timestamps), offsets from the
       frame's first timestamp. */
    bool tracing = ze_trace_active();
    for (uint32_t i = 0; i < n; i++) {
        snprintf(times[i].name, sizeof times[i].name, "%s", f->timed[i]);
        uint64_t ticks = t[2 * i + 1] >= t[2 * i] ? t[2 * i + 1] - t[2 * i] : 0;
        times[i].gpu_ms = (double)ticks * b->timestamp_period / 1e6;
        if (tracing && t[2 * i] >= t[0]) {
            uint64_t at =
                f->submit_ns + (uint64_t)((double)(t[2 * i] - t[0]) * (double)b->timestamp_period);
            ze_trace_gpu_span(f->timed[i], at,
                              at + (uint64_t)((double)ticks * (double)b->timestamp_period));
        }
    }
    pthread_mutex_lock(&b->lock);
    memcpy(b->pass_times, times, sizeof times[0] * n);
    b->pass_time_count = n;
    pthread_mutex_unlock(&b->lock);
}

void ze__vk_timestamps_poll(ze_vk_backend_t *b, uint64_t completed)
{
    /* oldest first, so the newest frame's times (and counts) are the ones
       left */
    for (uint32_t k = 0; k < ZE_VK_FRAMES; k++) { /* frame_slot: the oldest frame */
        uint32_t slot = (b->frame_slot + k) % ZE_VK_FRAMES;
        if (b->frames[slot].value > completed)
            continue;
        if (b->frames[slot].timed_count)
            read_timestamps(b, slot);
        ze__vk_draws_retire(b, &b->frames[slot]);
    }
}

void ze__vk_timestamps_flush(ze_vk_backend_t *b)
{
    for (uint32_t k = 0; k < ZE_VK_FRAMES; k++) {
        uint32_t slot = (b->frame_slot + k) % ZE_VK_FRAMES; /* oldest first */
        if (b->frames[slot].timed_count)
            read_timestamps(b, slot);
    }
}

ze_result ze__vk_frame_begin(ze_vk_backend_t *b, ze_vk_frame_t **out)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_vk_frame_t *f = &b->frames[b->frame_slot];
    ze_result r = ze__vk_wait_value(b, f->value);
    if (r != ZE_OK)
        return r;
    uint64_t done = 0;
    ZE__VK_TRY(b, vkGetSemaphoreCounterValue(b->device, b->timeline, &done),
               "vkGetSemaphoreCounterValue");
    /* frees up to what was waited for: a frame the counter shows done but
       nobody waited for is, to the validation layer, still running (its
       memory reused now would be a hazard it reports); a frame later */
    ze__vk_retire(b, done < b->waited_value ? done : b->waited_value);
    b->staging_tail = f->staging_end > b->staging_tail ? f->staging_end : b->staging_tail;
    ze__vk_timestamps_poll(b, done); /* this slot's, and the last frame's when it is done */
    if (b->queries)
        vkResetQueryPool(b->device, b->queries, b->frame_slot * ZE_VK_TIMESTAMPS, ZE_VK_TIMESTAMPS);
    ZE__VK_TRY(b, vkResetCommandPool(b->device, f->pool, 0), "vkResetCommandPool");
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    ZE__VK_TRY(b, vkBeginCommandBuffer(f->cmd, &bi), "vkBeginCommandBuffer");
    *out = f;
    return ZE_OK;
}

/* The timeline value, plus the target's binary semaphores when given
 * (vkQueueSubmit2 mixes both kinds; a binary one ignores its value). */
static ze_result submit(ze_vk_backend_t *b, VkCommandBuffer cmd, const ze_vk_submit_sync_t *sync)
{
    ZE__VK_TRY(b, vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    uint64_t value = b->next_value;
    VkSemaphoreSubmitInfo sig[2] = {{
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = b->timeline,
        .value = value,
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    }};
    uint32_t nsig = 1;
    if (sync && sync->signal)
        sig[nsig++] = (VkSemaphoreSubmitInfo){
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
            .semaphore = sync->signal,
            .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        };
    VkSemaphoreSubmitInfo wait = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = sync ? sync->wait : VK_NULL_HANDLE,
        .stageMask = sync ? sync->wait_stage : 0,
    };
    VkCommandBufferSubmitInfo cbi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
        .commandBuffer = cmd,
    };
    VkSubmitInfo2 si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .waitSemaphoreInfoCount = wait.semaphore ? 1u : 0u,
        .pWaitSemaphoreInfos = &wait,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cbi,
        .signalSemaphoreInfoCount = nsig,
        .pSignalSemaphoreInfos = sig,
    };
    ZE__VK_TRY(b, vkQueueSubmit2(b->queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
    b->next_value = value + 1;
    return ZE_OK;
}

ze_result ze__vk_frame_submit(ze_vk_backend_t *b, ze_vk_frame_t *f, const ze_vk_submit_sync_t *sync)
{
    ZE__VK_ON_RENDER_THREAD(b);
    f->value = b->next_value;
    f->staging_end = b->staging_head;
    f->submit_ns = ze_time_now_ns();
    ze_result r = submit(b, f->cmd, sync);
    if (r != ZE_OK)
        return r;
    b->frame_slot = (b->frame_slot + 1) % ZE_VK_FRAMES;
    return ZE_OK;
}

ze_result ze__vk_oneshot_begin(ze_vk_backend_t *b, VkCommandBuffer *out)
{
    ZE__VK_ON_RENDER_THREAD(b);
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = b->oneshot_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    ZE__VK_TRY(b, vkAllocateCommandBuffers(b->device, &ai, out), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult vr = vkBeginCommandBuffer(*out, &bi);
    if (vr != VK_SUCCESS) {
        vkFreeCommandBuffers(b->device, b->oneshot_pool, 1, out);
        return ze__vk_fail(b, vr, "vkBeginCommandBuffer");
    }
    return ZE_OK;
}

ze_result ze__vk_oneshot_end(ze_vk_backend_t *b, VkCommandBuffer cmd)
{
    ZE__VK_ON_RENDER_THREAD(b);
    ze_result r = submit(b, cmd, NULL);
    if (r == ZE_OK)
        r = ze__vk_wait_idle(b);
    if (r == ZE_OK || !b->lost)
        vkFreeCommandBuffers(b->device, b->oneshot_pool, 1, &cmd);
    return r;
}

void ze__vk_timestamp(ze_vk_backend_t *b, VkCommandBuffer cmd, VkPipelineStageFlags2 stage,
                      uint32_t query)
{
    if (!b->queries)
        return;
    ZE_ASSERT(query < ZE_VK_TIMESTAMPS);
    vkCmdWriteTimestamp2(cmd, stage, b->queries, b->frame_slot * ZE_VK_TIMESTAMPS + query);
}

void ze__vk_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                          VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                          VkImageLayout from, VkImageLayout to, uint32_t mips)
{
    VkImageMemoryBarrier2 ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, mips, 0, 1},
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .imageMemoryBarrierCount = 1,
        .pImageMemoryBarriers = &ib,
    };
    vkCmdPipelineBarrier2(cmd, &di);
}
