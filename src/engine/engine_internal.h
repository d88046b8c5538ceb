/* The engine's private state, shared by src/engine/ files (not input.c,
 * project.c, crash.c, which stand alone).
 *
 * One ze_engine_t per run, allocated from the Bootstrap owner. The stage
 * table (stages.c) fills it in init order and empties it in reverse; the
 * main loop (loop.c) and the render thread (render_thread.c) run between.
 * Only the fields marked "render thread" are touched by the render thread:
 * the backend (through ze_render_backend_frame/_screenshot), the mailbox
 * reader side, and the atomics below. Everything else is main-thread only.
 */
#ifndef ZE_ENGINE_INTERNAL_H
#define ZE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/engine.h"

#define ZE__ENGINE_LOG "engine"

/* Why a replay was rejected (ze_input_replay_parse reports it). */
typedef struct ze__input_replay_error_t {
    uint32_t line; /* 1-based; 0 when not about a line */
    char message[160];
} ze__input_replay_error_t;
ze_result ze__input_replay_parse(const char *text, size_t len, ze_allocator_t alloc,
                                 ze_input_replay_t **out, ze__input_replay_error_t *err);

enum {
    ZE__FRAME_SAMPLES = 16384, /* iterations kept for p99 and allocation figures */
};

/* Spawning (spawn.c): templates by asset path. */
typedef struct ze__spawn_template_t ze__spawn_template_t;
typedef struct ze__spawner_t {
    ze_array_t templates; /* ze__spawn_template_t *, kept for the run */
    pthread_mutex_t lock; /* the list: ze_engine_spawn may record from any thread */
    bool ready;           /* initialized */
    bool pending;         /* instances wait for a template (main thread) */
} ze__spawner_t;

/* One stage of initialization (stages.c). */
typedef struct ze__stage_t {
    const char *name;
    ze_result (*init)(ze_engine_t *e); /* cleans up after itself on failure */
    void (*fini)(ze_engine_t *e);
} ze__stage_t;

/* The instance records one render state carries at most; the rest wait
 * in the queue for the next (sync.c): 100,000 whole records are 12.8 MB of
 * a 16 MiB mailbox slot. */
enum { ZE__MAX_STATE_RECORDS = 100000 };

/* What changed in a render proxy since the render thread last had it. */
enum {
    ZE__PROXY_CREATE = 1u << 0,
    ZE__PROXY_MESH = 1u << 1,
    ZE__PROXY_MATERIAL = 1u << 2,
    ZE__PROXY_TRANSFORM = 1u << 3,
    ZE__PROXY_DESTROY = 1u << 4,
    ZE__PROXY_WHOLE = ZE__PROXY_CREATE | ZE__PROXY_MESH | ZE__PROXY_MATERIAL,
};

/* A render proxy: which entity holds render-instance slot `i`, and its
 * place in the change queue (scene.c, sync.c). Serials are those of the
 * state that first carries a change (the delta serial being built + 1).
 * changed_at: the queue's order, no later than its oldest change the
 * render thread may lack; last_change, structural_at: its latest change,
 * its latest create, re-mesh, re-material or destroy; carried_at: the
 * first state that carried it since it joined the queue (0: none). */
typedef struct ze__render_proxy_t {
    ze_entity_t entity;
    ze_uuid_t mesh, material; /* referenced in the resource table */
    uint64_t changed_at, last_change, structural_at, carried_at;
    uint32_t q_prev, q_next; /* the change queue's links (ZE_RENDER_INSTANCE_NONE: end) */
    uint8_t changes;         /* ZE__PROXY_*, since the render thread last had it */
    bool live;
    bool queued; /* in the change queue */
} ze__render_proxy_t;

/* The change queue: proxies with changes the render thread may lack, in
 * changed_at order, linked through the proxies (sync.c says why that
 * order). structural: how many of them hold a create, re-mesh,
 * re-material or destroy. */
typedef struct ze__proxy_queue_t {
    uint32_t head, tail, count, structural;
} ze__proxy_queue_t;

/* A uuid the scene needs in the asset manager (scene.c). */
typedef struct ze__resource_t {
    ze_uuid_t uuid;
    uint32_t refs;       /* proxies and parent resources using it */
    bool acquired;       /* holds one asset-manager reference */
    bool failed;         /* acquire refused for good (logged once) */
    bool reported;       /* unresolved or failed: reported once */
    uint32_t generation; /* of the data whose children were last taken */
    /* refs 0: released once the render thread has every proxy change up
       to this state serial (the removes of its instances); 0: in use */
    uint64_t release_at;
    uint32_t child_count;
    ze_uuid_t *children; /* materials of a mesh, textures of a material */
} ze__resource_t;

/* An asset reference that did not resolve (asset_refs.c). */
typedef struct ze__asset_ref_t {
    char ref[ZE_ASSET_REF_MAX];
} ze__asset_ref_t;

typedef struct ze__frame_sample_t {
    float work_ms;          /* iteration time without the frame-rate cap's sleep */
    uint64_t allocs;        /* ze_mem_allocation_count at the iteration's end, less... */
    uint64_t driver_allocs; /* ...the Vulkan owner's (the driver's, through our callbacks) */
} ze__frame_sample_t;

/* Process-wide context handed from ze_app_main to the run (NULL in
 * ze_app_run). */
typedef struct ze__run_ctx_t {
    const atomic_bool *signal_flag; /* SIGINT/SIGTERM seen */
    const char *trace_path;         /* ZENGINE_TRACE: profiler capture */
    /* Fault sweeps (tests): the Nth memory-manager allocation of the run
       fails (0: none); *init_allocations (optional) receives how many
       allocations initialization made, counted up to the main loop. */
    uint64_t fail_allocation_at;
    uint64_t *init_allocations;
    /* ...counted only during this init stage (NULL: the whole of
       initialization), without the Vulkan owner's allocations (the
       driver's, through our callbacks): sweeps of the Vulkan stages over
       our own allocations. */
    const char *fault_stage;
    /* The process entry point: route jansson's allocations into the
       ThirdParty owner for the run (third_party.c). */
    bool route_third_party;
    /* Lifecycle tests: this init stage fails (ZE_ERR_FAULT_INJECTED); a
       slow null backend; a simulated device loss at this backend frame. */
    const char *fail_stage;
    uint32_t backend_frame_delay_us;
    uint64_t backend_lose_device_at;
    /* Tests: the instance records a state carries at most (0:
       ZE__MAX_STATE_RECORDS), to put more changes in a step than a state
       holds without a million entities. */
    uint32_t state_record_limit;
    /* Tests: called on the render thread after each state it took was
       applied and drawn, with the backend (its instance table: backend.h)
       and the state as the backend received it. */
    void (*render_observer)(ze_render_backend_t *b, const ze_render_state_t *s, void *user);
    void *render_observer_user;
} ze__run_ctx_t;

/* third_party.c: jansson's hooks into the ThirdParty owner of `mm`, and
   back to what they were. Process entry point only. */
void ze__third_party_route(ze_mem_t *mm);
void ze__third_party_unroute(void);

/* ze_app_run with the process context (ze_app_main's, or a test's). */
ze_result ze__app_run_with(const ze_app_desc_t *app, const ze_run_desc_t *run, ze_run_report_t *rep,
                           const ze__run_ctx_t *ctx);

struct ze_engine_t {
    /* ---- what the run was given */
    const ze_app_desc_t *app;
    ze_run_desc_t run;
    ze__run_ctx_t ctx;
    ze_mem_t *mem;
    ze_job_system_t *jobs;
    ze_allocator_t alloc; /* Bootstrap owner */
    ze_project_t project;
    ze_window_config_t window;
    ze_run_report_t *report;

    /* ---- stages (stages.c) */
    uint32_t stages_completed;
    const char *failed_stage;

    /* ---- the window (window.c; main thread only) */
    void *native_window; /* GLFWwindow *; NULL headless */
    bool glfw_initialized;
    bool minimized;                   /* iconified or framebuffer 0x0: simulate, publish nothing */
    bool iconified;                   /* from GLFW's iconify callback */
    int framebuffer_w, framebuffer_h; /* from GLFW's framebuffer-size callback */
    bool cursor_seen;                 /* mouse deltas start at the second position */
    char *clipboard;                  /* NUL-terminated copy for glfwSetClipboardString */
    size_t clipboard_cap;

    /* ---- subsystems, in stage order */
    ze_render_backend_t *backend;
    ze_mailbox_t *mailbox; /* main -> render: ze_render_state_t */
    ze_main_scheduler_t *scheduler;
    ze_vfs_t *vfs;
    bool cache_writable;
    ze_asset_registry_t *registry;
    ze_input_state_t input;      /* everything the devices and the replay said */
    ze_input_state_t game_input; /* what the game sees: less what the UI took (ui_bridge.c) */
    ze_input_replay_t *replay;
    ze_kernel_t *kernel;
    ze_world_t *world;
    ze_import_coordinator_t *imports;
    ze_asset_manager_t *assets;
    bool render_resources; /* the manager's notifications reach the backend */
    uint32_t watches;

    /* ---- the UI (ui_bridge.c): main thread, but the overlay mailbox's
       reader side and ui_atlas_acked (render thread) */
    ze_ui_t *ui;
    ze_vfs_buffer_t ui_font; /* the TTF bytes the context borrows */
    ze_mailbox_t *overlay;   /* main -> render: ze_render_overlay_t */
    bool ui_frame_open;      /* between ze__ui_begin and ze__ui_end */
    bool ui_wants_mouse, ui_wants_keyboard;
    bool ui_mouse_seen; /* a position was sent */
    double ui_mouse_x, ui_mouse_y;
    bool ui_overlay_failed; /* an overlay did not fit (logged once) */
    /* the atlas revision + 1 the render thread has received (0: none);
       the main thread sends the atlas until then */
    atomic_uint_fast64_t ui_atlas_acked;

    /* ---- render proxies and asset references (scene.c) */
    /* the proxies, indexed by render-instance slot, and per entity index
       its slot + 1 (0: none): tables in regions of the Render owner (a
       million instances outgrow an owner's heap) */
    ze_mem_table_t proxy_table, slot_table;
    uint32_t proxy_count; /* slots handed out: the high-water mark */
    ze_array_t free_ids;  /* uint32_t, Render owner */
    ze__proxy_queue_t proxy_queue;
    uint32_t proxies_live;
    ze_binder_t mesh_binder, material_binder;
    bool proxy_resync;                    /* the world was replaced: rebind every Mesh */
    ze_result proxy_error;                /* the first failure since the last reconcile */
    uint32_t sync_version;                /* world version of the last transform scan */
    uint64_t delta_serial;                /* of the last state built (sync.c) */
    atomic_uint_fast64_t render_consumed; /* render thread: the last state applied */
    uint32_t last_records;                /* instance records in the last state */
    uint64_t records_sent;                /* ... summed over states */
    ze_hashmap_t resources;               /* uuid -> ze__resource_t * */
    uint32_t unacquired;                  /* resources waiting for the registry to know them */
    ze_query_t mesh_query;
    ze_array_t ready;         /* ze_uuid_t: loaded this frame, children to take */
    ze_array_t backend_retry; /* ze_uuid_t: the backend's queue was full */
    ze_array_t release_retry; /* ze_uuid_t: releases the backend's queue refused */
    uint32_t releasing;       /* resources at 0 refs waiting for release_at */
    bool instance_budget_logged;
    uint64_t scene_revision;
    char scene_error[240];      /* why the last ze_engine_load_scene failed */
    ze_array_t unresolved_refs; /* ze__asset_ref_t: reported, counted (asset_refs.c) */
    ze_array_t ref_list;        /* ze__asset_ref_t: references that resolved... */
    ze_hashmap_t ref_names;     /* ...by their uuid -> uint32_t index in ref_list */
    ze__spawner_t spawn;        /* spawn.c */
    bool in_kernel_frame;       /* inside ze_kernel_frame (loop.c): no world may be created */
    /* Every module's reports go through the capture (it keeps the last
       error's text for the run report) on to the app's sink. */
    ze_diag_capture_t diag_capture; /* errors: the first kept for the report */
    ze_diag_capture_t warn_capture; /* warnings too (--strict); forwards to diag_capture */
    ze_diag_sink_t diag;            /* into warn_capture */
    uint32_t early_warnings;        /* reported before the engine existed (project file) */

    /* ---- main loop (loop.c) */
    bool virtual_clock;
    bool tracing;        /* this run's profiler capture is recording (--trace) */
    bool paused;         /* ze_engine_set_paused: no ECS frame */
    void *inspector;     /* the hosted inspector's state (app->inspector) */
    uint64_t virtual_ns; /* the kernel's clock in virtual runs */
    uint64_t frame;      /* iterations completed */
    uint64_t sim_steps;
    atomic_bool close_requested;
    uint32_t last_width, last_height;
    ze__frame_sample_t *samples; /* ring of ZE__FRAME_SAMPLES */
    uint64_t sample_count;
    uint32_t last_instances, last_lights;

    /* ---- render thread (render_thread.c) */
    pthread_t render_thread;
    bool render_started;
    atomic_bool render_stop;
    atomic_bool device_lost;
    atomic_uint_fast64_t frames_rendered;
    atomic_uint_fast64_t frames_drawn; /* of those, the ones the backend drew */
    /* a screenshot asked for mid-run (ze_engine_request_screenshot) */
    char shot_path[4096];
    uint64_t shot_from_frame; /* snapshots of this iteration on */
    atomic_bool shot_pending;
    atomic_uint_fast64_t shots_done;
};

/* stages.c */
uint32_t ze__stage_count(void);
const ze__stage_t *ze__stage_at(uint32_t i);
/* Runs every init in order; on failure unwinds the completed ones and
 * returns the error (report->failed_stage/error set). */
ze_result ze__stages_init(ze_engine_t *e);
/* Fini of every completed stage, in reverse. */
void ze__stages_fini(ze_engine_t *e);

/* window.c: open (headless with a logged reason when no window can be
 * made: never an error), close, and step 1's event poll into e->input. */
ze_result ze__window_open(ze_engine_t *e);
void ze__window_close(ze_engine_t *e);
void ze__window_poll(ze_engine_t *e);
bool ze__window_should_close(ze_engine_t *e);
/* The system clipboard (GLFW's), ZUI's callback pair (ze_ui_desc_t):
 * user is the engine; main thread; only while a window is open. */
const char *ze__window_clipboard_get(void *user, size_t *len);
void ze__window_clipboard_set(void *user, const char *text, size_t len);

/* loop.c */
ze_result ze__main_loop(ze_engine_t *e);
/* Virtual-clock runs: import and load the scene's assets before the first
 * iteration (bounded), so what reaches the backend is deterministic too. */
void ze__loop_settle_assets(ze_engine_t *e, uint32_t timeout_ms);

/* render_thread.c */
ze_result ze__render_thread_start(ze_engine_t *e);
/* Sets the stop flag, joins; renders the newest state and takes the
 * screenshot first when one was asked for. */
void ze__render_thread_stop(ze_engine_t *e);

/* ui_bridge.c: the "ui" stage (the context, its font from the VFS, the
 * overlay mailbox), the UI frame's start (step 4: events from e->input)
 * and end (step 11: end_frame, the overlay published). */
ze_result ze__ui_init(ze_engine_t *e);
void ze__ui_fini(ze_engine_t *e);
void ze__ui_begin(ze_engine_t *e, double dt);
/* This iteration's game_input: the input state without what the UI wants
 * (main-loop step 4, after ze__ui_begin; the whole state without a UI). */
void ze__ui_game_input(ze_engine_t *e);
/* Ends the open frame; publishes its overlay unless `publish` is false
 * (minimized). */
void ze__ui_end(ze_engine_t *e, bool publish);

/* sync.c: the render state of this iteration into the mailbox. */
ze_result ze__sync_publish(ze_engine_t *e, float alpha);

/* scene.c */
ze_result ze__scene_init(ze_engine_t *e);
void ze__scene_fini(ze_engine_t *e);
/* Render-instance ids and asset references for the world as it is now. */
ze_result ze__scene_reconcile(ze_engine_t *e);
/* Take a proxy out of the change queue (sync.c, once delivered). */
void ze__proxy_queue_unlink(ze_engine_t *e, uint32_t slot);
void ze__proxy_queue_append(ze_engine_t *e, uint32_t slot);
/* Drop every asset-manager reference (before the manager goes). */
void ze__scene_release_assets(ze_engine_t *e);
/* The manager's on_asset_ready (main thread). */
void ze__scene_on_asset_ready(void *user, const ze_asset_data_t *data);
/* After the manager's tick: children of loaded assets, backend retries. */
void ze__scene_after_tick(ze_engine_t *e);
/* The manager's on_asset_released: the backend's copy goes. */
void ze__scene_on_asset_released(void *user, ze_uuid_t uuid, ze_asset_type type);
/* Resources nobody uses whose instances' removes the render thread has
 * applied: their asset references dropped. Then releases the backend
 * refused, again. */
void ze__scene_release_due(ze_engine_t *e);
/* The scene's asset references once nothing imports or loads any more:
 * each one no source provides (unresolved) or whose import or load failed
 * is reported once at ERROR, naming an entity that uses it. Counts go to
 * *unresolved and *failed. Returns false (nothing checked) while imports
 * or loads are in flight. */
bool ze__scene_check_assets(ze_engine_t *e, uint32_t *unresolved, uint32_t *failed);
/* ze_engine_load_scene; `additive` keeps the world's entities (the start
 * scene: what on_initialized created stays). */
ze_result ze__engine_load_scene(ze_engine_t *e, const char *vfs_path, bool additive);

/* asset_refs.c: the kernel's scene-names hook (asset references by path)
 * and the references that did not resolve (each reported once). */
void ze__asset_refs_init(ze_engine_t *e);
void ze__asset_refs_fini(ze_engine_t *e);
uint32_t ze__asset_refs_unresolved(const ze_engine_t *e);
/* The reference a uuid was resolved from (false: none). */
bool ze__asset_refs_name_of(const ze_engine_t *e, ze_uuid_t u, char *buf, size_t cap);
/* Why `ref` does not name an asset now (for a late report). */
void ze__asset_refs_why(ze_engine_t *e, const char *ref, char *why, size_t cap);
/* Report an asset that could not be used (once per reference), counted in
 * unresolved_assets. */
void ze__asset_refs_report(ze_engine_t *e, const char *ref, const char *what, ze_result r,
                           const char *why);

/* spawn.c: templates (ecs stage), and step 9's part: templates made ready,
 * the instances waiting for them filled in. */
ze_result ze__spawn_init(ze_engine_t *e);
void ze__spawn_fini(ze_engine_t *e);
void ze__spawn_tick(ze_engine_t *e);
bool ze__spawn_busy(const ze_engine_t *e);

/* report.c */
void ze__report_fill(ze_engine_t *e);
void ze__report_sample(ze_engine_t *e, double work_ms);

/* app.c: set the report's error line (printf-style). */
void ze__engine_fail(ze_engine_t *e, ze_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* ZE_ENGINE_INTERNAL_H */
