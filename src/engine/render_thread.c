/* The render thread: the seed's render loop (steps 1-8) through the render
 * backend interface. It takes the newest render-state snapshot from the
 * latest-state mailbox and, when it is newer than the last one rendered,
 * hands it to the backend with the newest UI overlay from the overlay
 * mailbox attached (a copy of the snapshot's struct; ui_bridge.c says how
 * the glyph atlas is acknowledged); with nothing new it sleeps about a millisecond
 * (the null backend has no vsync to wait on). It never touches ECS data:
 * debug builds make any ECS call from it assert (ze_ecs_forbid_thread).
 * A ZE_ERR_IO from the backend is a lost device: the thread sets the flag
 * the main loop watches and ends. Started after initialization, joined
 * before any stage is shut down. */
#include "engine/engine_internal.h"
#include "gfx/backend.h" /* ze__render_backend_drew */

static void *render_main(void *arg)
{
    ze_engine_t *e = arg;
    (void)ze_crash_handler_thread_enter(); /* a stack overflow here is reported */
    ze_trace_thread_name("render");
    ze_ecs_forbid_thread(true);
    uint64_t rendered_seq = 0;
    uint32_t errors = 0;
    bool stopping = false;
    for (;;) {
        /* Read the stop flag before taking: after it is seen, one more take
           still renders the last state the main loop published. */
        stopping = atomic_load_explicit(&e->render_stop, memory_order_acquire);
        uint64_t seq = 0;
        const ze_render_state_t *scene = ze_mailbox_take(e->mailbox, NULL, &seq);
        if (scene && seq != rendered_seq) {
            /* the instance changes first: once they are in the backend's
               table the main thread may stop resending them (sync.c) */
            if (ze_render_backend_apply(e->backend, scene) == ZE_OK)
                atomic_store_explicit(&e->render_consumed, scene->delta_serial,
                                      memory_order_release);
            /* the newest UI overlay (or the one held: a missed UI frame is
               simply not drawn), attached to a copy of the snapshot */
            const ze_render_overlay_t *ov =
                e->overlay ? ze_mailbox_take(e->overlay, NULL, NULL) : NULL;
            ze_render_state_t framed = *scene;
            framed.overlay = ov;
            ZE_ZONE_BEGIN("render frame");
            ze_result r = ze_render_backend_frame(e->backend, &framed);
            ZE_ZONE_END();
            rendered_seq = seq;
            if (e->ctx.render_observer)
                e->ctx.render_observer(e->backend, &framed, e->ctx.render_observer_user);
            bool drew = r == ZE_OK && ze__render_backend_drew(e->backend);
            /* the backend has this atlas revision: the main thread stops
               sending its pixels (not before a frame was drawn: a scene
               whose instances have not all arrived draws nothing, and its
               UI pass never saw the atlas) */
            if (drew && ov && ov->atlas_pixels)
                atomic_store_explicit(&e->ui_atlas_acked, ov->atlas_revision + 1,
                                      memory_order_release);
            if (r == ZE_ERR_IO) { /* reported by the main thread */
                atomic_store_explicit(&e->device_lost, true, memory_order_release);
                break;
            }
            if (r != ZE_OK && errors++ < 3)
                ZE_LOG_WARN(ZE__ENGINE_LOG, "render: frame %llu failed: %s",
                            (unsigned long long)scene->frame, ze_result_str(r));
            atomic_fetch_add_explicit(&e->frames_rendered, 1, memory_order_relaxed);
            if (drew)
                atomic_fetch_add_explicit(&e->frames_drawn, 1, memory_order_relaxed);
            /* a screenshot asked for mid-run, from a new enough snapshot */
            if (drew && atomic_load_explicit(&e->shot_pending, memory_order_acquire) &&
                scene->frame >= e->shot_from_frame) {
                ze_result sr = ze_render_backend_screenshot(e->backend, e->shot_path);
                if (sr != ZE_OK)
                    ze_diag(&e->diag, ZE_LOG_ERROR, sr, "engine", e->shot_path,
                            "screenshot not written: %s", ze_result_str(sr));
                atomic_store_explicit(&e->shot_pending, false, memory_order_release);
                atomic_fetch_add_explicit(&e->shots_done, 1, memory_order_release);
            }
        } else if (!stopping) {
            ze_time_sleep_ns(1000000);
        }
        if (stopping)
            break;
    }
    if (e->run.screenshot && !atomic_load(&e->device_lost)) {
        ze_result r = rendered_seq ? ze_render_backend_screenshot(e->backend, e->run.screenshot)
                                   : ZE_ERR_STATE;
        /* a run asked for a picture and got none: an error (the null
           backend has no images: ZE_ERR_UNSUPPORTED, its own warning) */
        if (r == ZE_ERR_STATE)
            ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", e->run.screenshot,
                    "screenshot not written: nothing was rendered");
        else if (r != ZE_OK && r != ZE_ERR_UNSUPPORTED)
            ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", e->run.screenshot,
                    "screenshot not written: %s", ze_result_str(r));
    }
    /* the graph the last frame ran (the backend logs its own failures) */
    if (e->run.dump_graph && !atomic_load(&e->device_lost))
        (void)ze_render_backend_dump_graph(e->backend, e->run.dump_graph);
    ze_ecs_forbid_thread(false);
    ze_crash_handler_thread_leave();
    return NULL;
}

ze_result ze__render_thread_start(ze_engine_t *e)
{
    atomic_store(&e->render_stop, false);
    if (pthread_create(&e->render_thread, NULL, render_main, e) != 0)
        return ZE_ERR_INTERNAL;
    e->render_started = true;
    return ZE_OK;
}

void ze__render_thread_stop(ze_engine_t *e)
{
    if (!e->render_started)
        return;
    atomic_store_explicit(&e->render_stop, true, memory_order_release);
    pthread_join(e->render_thread, NULL);
    e->render_started = false;
}
