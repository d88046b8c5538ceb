/* The main loop: the seed's steps 1-12, once per iteration (docs/engine.md,
 * "Main and render loops"). The frame time is the real clock's, clamped to
 * 250 ms, or with a virtual clock exactly run.fixed_dt; ze_kernel_frame
 * holds the one accumulator. The UI frame is open from the frame time to
 * step 11 (ui_bridge.c). The frame-rate cap runs on every iteration. */
#include <math.h>

#include "engine/engine_internal.h"

enum { MAX_FRAME_NS = 250000000 }; /* the seed's clamp */

static bool should_stop(ze_engine_t *e)
{
    if (e->run.frames && e->frame >= e->run.frames)
        return true;
    if (atomic_load_explicit(&e->close_requested, memory_order_acquire))
        return true;
    if (e->ctx.signal_flag && atomic_load(e->ctx.signal_flag)) {
        ZE_LOG_INFO(ZE__ENGINE_LOG, "interrupted: shutting down");
        return true;
    }
    if (ze__window_should_close(e)) {
        ZE_LOG_INFO(ZE__ENGINE_LOG, "window closed: shutting down");
        return true;
    }
    if (e->input.quit_requested)
        return true;
    return atomic_load_explicit(&e->device_lost, memory_order_acquire);
}

/* Assets whose notification the backend refused (queue full): again, with
 * the data the manager holds now. */
static void retry_backend(ze_engine_t *e)
{
    uint32_t i = 0;
    while (i < e->backend_retry.count) {
        ze_uuid_t u = ZE_ARRAY_AT(&e->backend_retry, ze_uuid_t, i);
        const ze_asset_data_t *d = ze_asset_get(e->assets, u);
        if (d && ze_render_backend_asset_ready(e->backend, d) == ZE_ERR_FULL) {
            i++;
            continue;
        }
        ze_array_remove_ordered(&e->backend_retry, i);
    }
}

/* Steps 8-9: imports (start queued ones, poll children), completions
 * posted by workers, then the asset manager and what the scene holds. */
static void asset_steps(ze_engine_t *e)
{
    if (e->imports)
        ze_import_coordinator_tick(e->imports);
    ze_main_scheduler_drain(e->scheduler);
    if (e->assets) {
        ze__scene_release_due(e);
        retry_backend(e);
        ze_asset_manager_tick(e->assets);
        ze__scene_after_tick(e);
    }
    ze__spawn_tick(e); /* templates made ready: waiting instances filled in */
}

void ze__loop_settle_assets(ze_engine_t *e, uint32_t timeout_ms)
{
    if (!e->assets || !e->imports)
        return;
    /* what on_initialized made (not only the start scene) holds its assets
       now, so they are waited for too */
    (void)ze__scene_reconcile(e);
    uint64_t t0 = ze_time_now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        ze_vfs_tick(e->vfs);
        asset_steps(e);
        /* Done when nothing is importing or loading: a uuid the registry
           still does not know after every import ended never will. */
        bool busy = !ze_import_coordinator_idle(e->imports) ||
                    ze_asset_manager_stats(e->assets).pending > 0 || e->ready.count > 0 ||
                    ze__spawn_busy(e);
        if (!busy)
            break;
        if (ze_time_now_ns() >= deadline) {
            ZE_LOG_WARN(ZE__ENGINE_LOG, "assets still loading after %u ms: starting anyway",
                        timeout_ms);
            return;
        }
        ze_time_sleep_ns(1000000);
    }
    ZE_LOG_INFO(ZE__ENGINE_LOG, "virtual clock: the scene's assets took %.1f ms to import and load",
                (double)(ze_time_now_ns() - t0) / 1e6);
}

ze_result ze__main_loop(ze_engine_t *e)
{
    const ze_app_desc_t *app = e->app;
    void *user = app->user;
    double cap = e->run.max_fps > 0.0 ? e->run.max_fps : (e->virtual_clock ? 0.0 : 60.0);
    uint64_t period_ns = cap > 0.0 ? (uint64_t)llround(1e9 / cap) : 0;
    uint64_t last = ze_time_now_ns();
    uint64_t deadline = last;
    ze_result result = ZE_OK;

    while (!should_stop(e)) {
        uint64_t start = ze_time_now_ns();
        ZE_ZONE_BEGIN("frame");

        /* 1. input: the window's events (GLFW, main thread), then a
           scripted replay when one was given */
        ze_input_begin_frame(&e->input, e->frame);
        ze__window_poll(e);
        if (e->replay)
            ze_input_replay_apply(e->replay, e->frame, &e->input);
        /* 2. file watcher events (hot reload starts here) */
        ze_vfs_tick(e->vfs);
        /* 3. minimized (framebuffer 0x0): keep simulating, render nothing
           (no snapshot is published in step 11) */
        bool skip_render = e->minimized;
        /* 4. frame time */
        double dt;
        if (e->virtual_clock) {
            dt = e->run.fixed_dt;
            if (!e->paused)
                e->virtual_ns += (uint64_t)llround(dt * 1e9);
        } else {
            uint64_t ns = start - last;
            dt = (double)(ns > MAX_FRAME_NS ? MAX_FRAME_NS : ns) * 1e-9;
        }
        last = start;
        /* the UI frame opens with this iteration's input (events from the
           state above), so the game can ask what the UI wants from here */
        ze__ui_begin(e, dt);
        ze__ui_game_input(e); /* the game does not see what the UI took */
        /* 5-7. fixed steps (at most 5) and alpha: the kernel's accumulator */
        ZE_ZONE_BEGIN("simulation");
        ze_result r = ZE_OK;
        if (!e->paused) { /* paused: the simulation and its clock stand still */
            e->in_kernel_frame = true;
            r = ze_kernel_frame(e->kernel, dt);
            e->in_kernel_frame = false;
        }
        ZE_ZONE_END();
        if (r != ZE_OK && result == ZE_OK)
            ZE_LOG_WARN(ZE__ENGINE_LOG, "frame %llu: the ECS frame reported %s",
                        (unsigned long long)e->frame, ze_result_str(r));
        ze_frame_stats_t fs = ze_kernel_frame_stats(e->kernel);
        if (!e->paused)
            e->sim_steps += fs.substeps;
        asset_steps(e);
        /* 10. the application */
        if (app->on_update)
            app->on_update(e, dt, user);
        /* 11. UI: the application builds, the frame ends and its overlay
           goes to the render thread's overlay mailbox (not while minimized);
           then the render state into the render-state mailbox */
        ZE_ZONE_BEGIN("ui");
        if (app->on_render_ui && e->ui)
            app->on_render_ui(e, e->ui, user);
        ze__ui_end(e, !skip_render);
        ZE_ZONE_END();
        ZE_ZONE_BEGIN("sync");
        r = ze__scene_reconcile(e);
        if (r == ZE_OK && !skip_render)
            r = ze__sync_publish(e, fs.alpha);
        ZE_ZONE_END();
        if (r != ZE_OK)
            ZE_LOG_WARN(ZE__ENGINE_LOG, "frame %llu: render state not published (%s)",
                        (unsigned long long)e->frame, ze_result_str(r));
        /* the hosted inspector answers its requests between frames */
        if (e->inspector) {
            ZE_ZONE_BEGIN("inspector");
            app->inspector->step(e, e->inspector);
            ZE_ZONE_END();
        }
        e->frame++;
        if (e->frame == 1) /* tools and tests wait for this line */
            ZE_LOG_INFO(ZE__ENGINE_LOG, "main loop: running (first frame done)");
        uint64_t end = ze_time_now_ns();
        ze__report_sample(e, (double)(end - start) * 1e-6);
        ZE_ZONE_END();
        if (e->tracing && e->run.trace_frames && e->frame >= e->run.trace_frames) {
            ze_trace_pause(); /* written at exit, once every thread is joined */
            e->tracing = false;
        }

        /* 12. frame-rate cap, on every iteration: sleep until this frame's
           deadline; a frame that ran late moves the deadline (no burst to
           catch up). */
        if (period_ns) {
            deadline += period_ns;
            if (deadline < end)
                deadline = end;
            else if (deadline > end)
                ze_time_sleep_ns(deadline - end);
        }
    }
    return result;
}
