/* zengine/engine.h — the running engine: process bootstrap, the
 * application layer, staged initialization, the main and render loops,
 * input, project files, the crash handler.
 *
 * What: a game is a C program that fills a ze_app_desc_t with the seed's
 * GameApplication hooks and calls ze_app_main(&app, argc, argv). The entry
 * point installs the crash handler, parses the one command-line grammar,
 * creates the memory manager (profile from the command line, else the
 * project, else Default), the profiler, the job system and the logger, then
 * initializes the engine as a table of stages (each with init and fini; a
 * failure unwinds exactly the completed stages in reverse and names the
 * stage), starts the render thread and runs the main loop:
 *   1 poll input  2 VFS tick  3 (minimized: skip)  4 frame time, clamped to
 *   250 ms  5-6 ze_kernel_frame (the one accumulator: fixed steps, at most 5)
 *   7 alpha  8 import tick  9 scheduler drain (+ asset manager tick)
 *   10 on_update  11 on_render_ui with the engine's ZUI context, the UI's
 *   draw list and glyph atlas published to the render thread's overlay
 *   mailbox, sync ECS -> render state, the snapshot published to the
 *   render-state mailbox  12 frame-rate cap (every iteration, also when
 *   nothing was published).
 * UI: the engine owns one ZUI context (font: the packaged DejaVu, else the
 * fixed font; memory: the UI owner), also in headless runs; a memory
 * profile without a UI budget (Server) runs without one. Each iteration its frame begins
 * after the frame time is known (step 4) with ze_ui_event_t values made
 * from the input state (mouse position, buttons 0-2, wheel, key edges,
 * text), so ze_engine_ui_wants_mouse/_keyboard are valid for on_update;
 * on_render_ui builds; the frame ends before the overlay is published. The
 * render thread draws the newest overlay over each frame it renders; a UI
 * frame it misses is replaced, never waited for.
 * The render thread takes the newest snapshot and drives the render backend;
 * it never touches ECS data. Shutdown: render thread joined first, then the
 * stages in reverse.
 * Deterministic runs: with `frames` and `fixed_dt` set, a virtual clock
 * advances by fixed_dt per iteration, so iteration N's state is the same on
 * every run.
 * Assets: scene files and the C API name them by path
 * ("/models/crate.gltf#mesh/0": ze_engine_asset_uuid); ze_engine_spawn
 * instantiates a model's node hierarchy or a prefab N times, also from
 * systems (through their commands).
 * Not: the editor (--launchEditor is refused until it exists), physics,
 * audio, scripting.
 * Threads: everything here runs on the main thread except where noted
 * (ze_engine_spawn with commands: any thread); the hooks are called on the
 * main thread.
 * Memory: the engine's state comes from the Bootstrap owner; subsystems use
 * their own owners.
 * Errors: ze_result, and the reason through ze_app_desc_t.diag (the log by
 * default). A run that did not do what was asked fails loudly: non-zero
 * result, "ok": false in --stats, the cause in ze_run_report_t.error.
 * ze_app_main returns a process exit status (0 ok, 1 runtime failure, 2
 * usage error).
 */
#ifndef ZENGINE_ENGINE_H
#define ZENGINE_ENGINE_H
#include "zengine/asset.h"
#include "zengine/base.h"
#include "zengine/ecs.h"
#include "zengine/gfx.h"
#include "zengine/job.h"
#include "zengine/mem.h"
#include "zengine/ui.h"
#include "zengine/vfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ input */

/* Key codes: printable keys are their upper-case ASCII (ZE_KEY_A = 'A',
 * ZE_KEY_0 = '0', ZE_KEY_SPACE = ' '), the rest follow GLFW's numbering so
 * a GLFW window maps keys one to one. */
enum {
    ZE_KEY_UNKNOWN = 0,
    ZE_KEY_SPACE = 32,
    ZE_KEY_0 = 48,
    ZE_KEY_9 = 57,
    ZE_KEY_A = 65,
    ZE_KEY_Z = 90,
    ZE_KEY_ESCAPE = 256,
    ZE_KEY_ENTER = 257,
    ZE_KEY_TAB = 258,
    ZE_KEY_BACKSPACE = 259,
    ZE_KEY_RIGHT = 262,
    ZE_KEY_LEFT = 263,
    ZE_KEY_DOWN = 264,
    ZE_KEY_UP = 265,
    ZE_KEY_F1 = 290,
    ZE_KEY_F12 = 301,
    ZE_KEY_LEFT_SHIFT = 340,
    ZE_KEY_LEFT_CONTROL = 341,
    ZE_KEY_LEFT_ALT = 342,
    ZE_KEY_COUNT = 349,
};
enum {
    ZE_INPUT_TEXT_MAX = 32, /* text codepoints kept per frame (more are dropped) */
    ZE_MOUSE_BUTTON_COUNT = 8,
    ZE_GAMEPAD_COUNT = 4,
    ZE_GAMEPAD_AXIS_COUNT = 6,    /* left x/y, right x/y, left/right trigger */
    ZE_GAMEPAD_BUTTON_COUNT = 15, /* GLFW's gamepad layout */
};

typedef struct ze_gamepad_state_t {
    bool connected;
    float axes[ZE_GAMEPAD_AXIS_COUNT]; /* -1..1, triggers 0..1 */
    uint32_t buttons;                  /* bit per button */
} ze_gamepad_state_t;

/* The polled state of one frame (step 1 of the main loop). */
typedef struct ze_input_state_t {
    uint64_t frame;
    uint8_t keys[(ZE_KEY_COUNT + 7) / 8];     /* down now */
    uint8_t previous[(ZE_KEY_COUNT + 7) / 8]; /* down last frame */
    double mouse_x, mouse_y;                  /* window pixels */
    double mouse_dx, mouse_dy;                /* since last frame */
    double scroll_x, scroll_y;                /* this frame */
    uint32_t mouse_buttons, previous_mouse_buttons;
    ze_gamepad_state_t gamepads[ZE_GAMEPAD_COUNT];
    uint32_t text[ZE_INPUT_TEXT_MAX]; /* characters typed this frame (codepoints) */
    uint32_t text_count;
    bool quit_requested; /* window close, or a replay's `quit` */
} ze_input_state_t;

bool ze_input_key_down(const ze_input_state_t *in, int key);
bool ze_input_key_pressed(const ze_input_state_t *in, int key);  /* went down this frame */
bool ze_input_key_released(const ze_input_state_t *in, int key); /* went up this frame */
bool ze_input_mouse_down(const ze_input_state_t *in, int button);
/* Parse a key name ("W", "SPACE", "ESCAPE", "LEFT", "F1"...); UNKNOWN if none. */
int ze_input_key_from_name(const char *name, size_t len);

/* A scripted input file for headless runs, one event per line:
 *   <frame> key <NAME> down|up
 *   <frame> mouse <x> <y>
 *   <frame> button <0-7> down|up
 *   <frame> scroll <dx> <dy>
 *   <frame> gamepad <0-3> connect|disconnect
 *   <frame> gamepad <0-3> axis <0-5> <value -1..1>
 *   <frame> gamepad <0-3> button <0-14> down|up
 *   <frame> text <codepoint, decimal 1..1114111>
 *   <frame> quit
 * Frames are main-loop iterations (from 0), non-decreasing; `#` starts a
 * comment; blank lines are ignored. */
typedef struct ze_input_replay_t ze_input_replay_t;
/* ZE_ERR_PARSE with "line N: why" reported to `diag` (NULL: the log). */
ze_result ze_input_replay_parse(const char *text, size_t len, ze_allocator_t alloc,
                                ze_input_replay_t **out, const ze_diag_sink_t *diag);
void ze_input_replay_destroy(ze_input_replay_t *r);
uint32_t ze_input_replay_event_count(const ze_input_replay_t *r);
/* Apply the events of `frame` to `state` (call once per frame, in order,
 * after ze_input_begin_frame). */
void ze_input_replay_apply(ze_input_replay_t *r, uint64_t frame, ze_input_state_t *state);
/* previous <- keys, deltas, scroll and text cleared, frame set. */
void ze_input_begin_frame(ze_input_state_t *state, uint64_t frame);
/* A typed character (the window's text input, a replay's `text`): kept in
 * state->text, at most ZE_INPUT_TEXT_MAX per frame (more are dropped). */
void ze_input_text(ze_input_state_t *state, uint32_t codepoint);

/* ---------------------------------------------------------- project.json */

enum { ZE_PROJECT_MAX_FOLDERS = 16, ZE_PROJECT_STRING_MAX = 256 };

typedef struct ze_window_config_t {
    uint32_t width, height; /* 0 = 1280 x 720 */
    char title[ZE_PROJECT_STRING_MAX];
    bool vsync;
    bool headless; /* set by --headless or the absence of a display */
} ze_window_config_t;

/* The renderer's settings (project.json "renderer"). Geometry budgets (0 =
 * the backend's defaults, zengine/gfx.h ZE_RENDER_DEFAULT_*): the bytes of
 * the global vertex buffer (48 a vertex) and index buffer (4 an index),
 * and the instance slots (render proxies); over one, the mesh or the
 * instance is refused with ZE_ERR_LIMIT and a logged error naming the
 * budget. culling: "occlusion" (the default: frustum and occlusion),
 * "frustum" or "none" (ze_render_cull_mode); depth_prepass (default off). */
typedef struct ze_renderer_config_t {
    uint64_t vertex_budget_bytes, index_budget_bytes;
    uint32_t instance_budget;
    ze_render_cull_mode culling;
    bool depth_prepass;
} ze_renderer_config_t;

typedef struct ze_project_t {
    char name[ZE_PROJECT_STRING_MAX];
    char start_scene[ZE_PROJECT_STRING_MAX];                           /* VFS path, "" = none */
    char asset_folders[ZE_PROJECT_MAX_FOLDERS][ZE_PROJECT_STRING_MAX]; /* VFS dirs */
    uint32_t asset_folder_count;
    char memory_profile[32]; /* "" = default */
    ze_window_config_t window;
    ze_renderer_config_t renderer;
    char root[4096]; /* host directory of the project (the file's folder) */
} ze_project_t;

/* Parse project.json text. Required: name (non-empty string). Optional:
 * start_scene, asset_folders (array of strings), memory_profile
 * ("default" | "editor" | "server"), window {width, height (1..16384),
 * title, vsync}, renderer {vertex_budget_bytes, index_budget_bytes
 * (integers 1 MiB..64 GiB), instance_budget (1..2^26), culling
 * ("occlusion" | "frustum" | "none"), depth_prepass (boolean)}. Wrong types or values fail
 * (ZE_ERR_PARSE, the reason with its JSON path reported to `diag` at ERROR); unknown keys are
 * reported (WARN, the first 8) and skipped. diag NULL: the log. */
ze_result ze_project_parse(const char *text, size_t len, ze_project_t *out,
                           const ze_diag_sink_t *diag);
/* Read and parse a file (reports name it); out->root becomes its folder. */
ze_result ze_project_load(const char *path, ze_project_t *out, const ze_diag_sink_t *diag);

/* ------------------------------------------------------------ crash handler */

/* Fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) -> the signal, a
 * backtrace and the last log lines on stderr and in
 * `<dir>/crash-<pid>.log`, then the default action (the process still dies
 * by that signal). Runs on an alternate stack; uses only pre-opened
 * descriptors and async-signal-safe calls after the fault. dir NULL = the
 * current directory. */
ze_result ze_crash_handler_install(const char *dir);
void ze_crash_handler_uninstall(void);
/* The crash log path chosen at install ("" before). */
const char *ze_crash_handler_log_path(void);
/* Every thread the engine starts (job workers, the render thread) calls
 * _thread_enter first and _thread_leave before it ends: its own alternate
 * signal stack, so a stack overflow there is reported like one on the main
 * thread. Harmless when the handler is not installed (a fault then kills
 * the process unreported). ZE_ERR_OUT_OF_MEMORY when the stack cannot be
 * mapped. */
ze_result ze_crash_handler_thread_enter(void);
void ze_crash_handler_thread_leave(void);

/* ------------------------------------------------------------ application */

typedef struct ze_engine_t ze_engine_t;

/* A tool the engine hosts for one run, on the main thread: the inspector
 * (zengine/inspect.h: ze_inspector_tool(), in zengine::inspect, so a game
 * that does not use it links no HTTP library). `start` runs once the start
 * scene is loaded and the render thread runs (a failure ends the run with
 * its error), `step` once per iteration after step 11 (the world is
 * between frames), `stop` after the last iteration, before on_closing. */
typedef struct ze_engine_tool_t {
    const char *name;
    ze_result (*start)(ze_engine_t *e, void **state);
    void (*step)(ze_engine_t *e, void *state);
    void (*stop)(ze_engine_t *e, void *state);
} ze_engine_tool_t;

/* The seed's GameApplication hooks; any may be NULL. */
typedef struct ze_app_desc_t {
    const char *name;
    void *user;
    /* Before the engine exists (memory, jobs and logger do). */
    void (*on_initializing)(void *user);
    void (*override_window_config)(void *user, ze_window_config_t *config);
    /* The engine is up: register components and systems, load scenes. A
       failure ends the run (the engine unwinds). */
    ze_result (*on_initialized)(ze_engine_t *e, void *user);
    /* Once per main-loop iteration, after the fixed steps (step 10). */
    void (*on_update)(ze_engine_t *e, double dt, void *user);
    /* Step 11, every iteration (of a run with a UI: see ze_engine_ui):
       build the UI with the engine's context (its frame is open; it ends
       after the hook and goes to the render thread's overlay mailbox). */
    void (*on_render_ui)(ze_engine_t *e, ze_ui_t *ui, void *user);
    /* The last hook with live engine state. */
    void (*on_closing)(ze_engine_t *e, void *user);
    /* After shutdown: only the app's own and OS resources. */
    void (*on_closed)(void *user);
    /* Where every module of the run reports problems (the project file, the
       VFS, imports and loads, the ECS, scene loads, a failed start): {0} =
       the log. Called from the main thread and from job workers. */
    ze_diag_sink_t diag;
    /* Hosted when the run asks for it (--inspect PORT, ze_run_desc_t.inspect);
       a run that asks without one fails, saying so. */
    const ze_engine_tool_t *inspector;
} ze_app_desc_t;

/* What a run is told (the command line, or a test). */
typedef struct ze_run_desc_t {
    const char *project; /* project.json; required */
    bool headless;       /* no window (also without a display) */
    uint64_t frames;     /* iterations to run; 0 = until closed */
    /* > 0 (with frames): a virtual clock of this step; the scene's assets are
       then imported and loaded before the first iteration (at most 30 s), so
       what reaches the backend is deterministic too */
    double fixed_dt;
    const char *screenshot;     /* PNG of the last frame (backends with images) */
    const char *dump_graph;     /* JSON of the compiled render graph after the last
                                   frame (backends with a graph: Vulkan) */
    const char *stats;          /* JSON written at exit */
    const char *input_script;   /* replayed input (headless) */
    const char *backend;        /* "null" (NULL) or "vulkan" */
    const char *memory_profile; /* NULL = the project's, else default */
    double max_fps;             /* frame-rate cap; 0 = 60 without a virtual clock, none with */
    ze_import_mode import_mode; /* child processes (default) or in-process */
    ze_cook_fn in_process_cook; /* in-process: ze_asset_cook (link zengine::cook) */
    const char *cooker;         /* NULL: zengine beside the program */
    bool no_cache;              /* run without /cache (read-only project) */
    bool strict;                /* --strict: a reported warning fails the run too */
    /* --trace FILE: Chrome trace JSON of the zones of every thread (main,
       render, job workers) and the GPU passes' times as their own track,
       written at exit (NULL: the environment variable ZENGINE_TRACE, else
       none); --trace-frames N: only the first N iterations (0 = all) */
    const char *trace;
    uint64_t trace_frames;
    /* --inspect PORT: serve the running world over HTTP on 127.0.0.1:PORT
       (0 = a free port, logged) through the app's inspector tool;
       --inspect-write: allow writes (set a field, pause) with the token
       logged at start */
    bool inspect;
    uint16_t inspect_port;
    bool inspect_write;
} ze_run_desc_t;

enum { ZE_ENGINE_MAX_STAGES = 24 };

/* What a run did: the --stats JSON, and more for tests. */
typedef struct ze_run_report_t {
    ze_result result;
    char failed_stage[32];                 /* "" when initialization succeeded */
    char error[256];                       /* one line when result != ZE_OK */
    uint32_t stages_completed;             /* at the peak of initialization */
    char stages[ZE_ENGINE_MAX_STAGES][32]; /* their names, in init order */
    uint32_t stages_unwound;               /* fini calls made (must equal completed) */
    uint64_t frames;                       /* main-loop iterations */
    uint64_t sim_steps;
    double avg_frame_ms, p99_frame_ms; /* main-loop iteration wall time */
    uint32_t instances, lights;        /* in the last published snapshot */
    /* render proxies: instance records the snapshots carried (changes
       only: created, moved, re-meshed, destroyed; resent until the render
       thread had them), over the run and in the last snapshot */
    uint64_t instance_records;
    uint32_t instance_records_last;
    /* What the run reported (every module, through the app's sink). A run
       fails (result != ZE_OK, "ok": false) when an error was reported, when
       an asset reference never resolved or its import or load failed, or
       with --strict when a warning was reported. */
    uint32_t warnings, errors;
    uint32_t unresolved_assets, failed_assets;
    /* our heap allocations per iteration, steady state (the Vulkan owner
       excluded) */
    double allocations_per_frame;
    /* the Vulkan driver's allocations through our VkAllocationCallbacks
       (the Vulkan owner), per iteration, steady state: not the engine's */
    double vulkan_allocations_per_frame;
    /* the ThirdParty owner's peak (jansson, routed by ze_app_main) and the C
       library heap in use at the end of the run: what GLFW, the Vulkan
       loader and driver and other libraries without hooks hold, outside
       every budget (ze_mem_unrouted_heap_bytes) */
    uint64_t third_party_bytes_peak, unrouted_heap_bytes;
    /* Vulkan: host memory the loader, layers and driver hold through the
       backend's allocation callbacks (the Vulkan owner), at the end of the
       run (device still up) and at its highest, and the allocations they
       served (allocations_per_frame includes them); what the driver
       reported allocating itself (internal allocations, outside every
       budget) */
    uint64_t vulkan_host_bytes, vulkan_host_bytes_peak, vulkan_host_allocations;
    uint64_t vulkan_internal_bytes;
    uint64_t validation_messages;
    uint64_t frames_rendered; /* by the render thread */
    /* of those, the frames the backend drew (not a scene whose changes
       were still arriving, not a failed frame) */
    uint64_t frames_drawn;
    uint32_t meshes_resident, materials_resident, textures_resident; /* in the backend */
    /* the backend's last frame: render-thread CPU time; Vulkan: GPU time of
       each render-graph pass, in the order they ran (--stats: "gpu_passes") */
    double render_cpu_ms;
    /* the render thread's own CPU time per frame (not blocked): the last
       frame's, the mean after the first 10 frames (ze_render_stats_t) */
    double render_thread_cpu_ms, render_thread_cpu_steady_ms;
    uint32_t gpu_pass_count;
    ze_render_pass_time_t gpu_passes[ZE_RENDER_MAX_PASS_TIMES];
    uint64_t gpu_memory_bytes;
    /* what the backend holds at the end (ze_render_stats_t): releases
       applied, bindless slots taken, vertex and index bytes in use, and
       meshes or states a geometry budget refused */
    uint64_t assets_released;
    uint32_t bindless_slots_used;
    uint64_t vertex_bytes_used, index_bytes_used;
    uint64_t budget_rejections;
    /* Vulkan: the last completed frame's draws (instance x submesh):
       candidates, drawn, outside the view frustum, hidden by occlusion
       culling (GPU culling) */
    uint32_t draws, draws_visible, draws_frustum_culled, draws_occlusion_culled;
    /* Vulkan: that frame's instanced draw commands and their triangles */
    uint32_t draw_commands;
    uint64_t triangles;
    bool validation_enabled;
    uint64_t snapshots_published, snapshots_replaced; /* replaced: never seen by render */
    uint64_t world_hash;                              /* ze_world_hash of the main world at exit */
    char backend[32];
    char device[128];
    bool shutdown_complete;
} ze_run_report_t;

/* Parse the one grammar:
 *   zengine run --project FILE [--headless] [--frames N] [--fixed-dt S]
 *     [--screenshot PNG] [--dump-graph JSON] [--stats JSON] [--log-level L]
 *     [--memory-profile P] [--input FILE] [--backend NAME] [--max-fps F]
 *     [--strict]
 * (`--projectConfigFile` = `--project`; `--launchEditor` is refused with a
 * clear error until the editor exists). argv[0] is the program or "run".
 * Errors: ZE_ERR_INVALID_ARG with a one-line reason reported to `diag`
 * (NULL: the log). Strings point into argv. `log_level` is set when
 * --log-level is given. */
ze_result ze_run_parse_args(int argc, char **argv, ze_run_desc_t *out, ze_log_level *log_level,
                            bool *log_level_set, const ze_diag_sink_t *diag);

/* The whole process bootstrap for a game's main(): crash handler, the
 * arguments above, memory manager, profiler, jobs, logger, the app, run,
 * shutdown. Returns the exit status. */
int ze_app_main(const ze_app_desc_t *app, int argc, char **argv);
/* ze_app_main without the argument parsing and process-wide setup (the
 * crash handler, signal handlers): tests and tools. `report` optional. */
ze_result ze_app_run(const ze_app_desc_t *app, const ze_run_desc_t *run, ze_run_report_t *report);
/* Write a report as the --stats JSON object. */
ze_result ze_run_report_write_json(const ze_run_report_t *report, const char *path);

/* ------------------------------------------------------- engine accessors */

ze_mem_t *ze_engine_mem(ze_engine_t *e);
ze_job_system_t *ze_engine_jobs(ze_engine_t *e);
ze_kernel_t *ze_engine_kernel(ze_engine_t *e);
ze_world_t *ze_engine_world(ze_engine_t *e); /* the main world */
ze_vfs_t *ze_engine_vfs(ze_engine_t *e);
ze_asset_registry_t *ze_engine_registry(ze_engine_t *e);
ze_import_coordinator_t *ze_engine_imports(ze_engine_t *e);
ze_asset_manager_t *ze_engine_assets(ze_engine_t *e);
ze_render_backend_t *ze_engine_backend(ze_engine_t *e);
ze_main_scheduler_t *ze_engine_scheduler(ze_engine_t *e);
/* This iteration's input as the game sees it: while the UI wants the mouse
 * (ze_engine_ui_wants_mouse) new button presses and the wheel are held
 * back (a button already down for the game stays down until released);
 * while it wants the keyboard, new key presses and typed text are. */
const ze_input_state_t *ze_engine_input(const ze_engine_t *e);
const ze_project_t *ze_engine_project(const ze_engine_t *e);
uint64_t ze_engine_frame_index(const ze_engine_t *e);
/* Instance records the render snapshots carried so far (main thread; see
 * ze_run_report_t.instance_records). */
uint64_t ze_engine_instance_records(const ze_engine_t *e);
/* The run's window, a GLFWwindow * (main thread only, GLFW's rule: resize,
 * iconify, close it from hooks); NULL in headless runs. */
void *ze_engine_native_window(ze_engine_t *e);
/* Ends the main loop after this iteration (like a window close); any
 * thread. */
void ze_engine_request_close(ze_engine_t *e);
/* What the run was told (main thread). */
const ze_run_desc_t *ze_engine_run_desc(const ze_engine_t *e);
/* The hosted inspector's state (ze_engine_tool_t.start's), NULL when none
 * runs (main thread). */
void *ze_engine_inspector(ze_engine_t *e);
/* Paused: iterations go on (input, assets, UI, rendering) but the ECS
 * frame does not run, so the simulation and the virtual time stand still
 * (main thread). */
void ze_engine_set_paused(ze_engine_t *e, bool paused);
bool ze_engine_paused(const ze_engine_t *e);
/* Ask the render thread for a PNG of the first frame it renders from a
 * snapshot published from this iteration on (backends with images). Returns
 * at once; ze_engine_screenshots_done counts the requests served (written,
 * or failed with a logged reason). ZE_ERR_FULL while one is pending;
 * ZE_ERR_INVALID_ARG for a path over 4095 bytes. */
ze_result ze_engine_request_screenshot(ze_engine_t *e, const char *png_path);
uint64_t ze_engine_screenshots_done(const ze_engine_t *e);
/* The engine's ZUI context (main thread; NULL before the "ui" stage, after
 * it is shut down, and in a memory profile without a UI budget, where
 * on_render_ui is not called either). Its frame is open from step 4 to the end of
 * step 11: widgets may be built from on_update as well as on_render_ui. */
ze_ui_t *ze_engine_ui(ze_engine_t *e);
/* This iteration: the UI is under the mouse or holds a press / a text
 * field has the keyboard: the game should ignore that input (false
 * without a UI). */
bool ze_engine_ui_wants_mouse(const ze_engine_t *e);
bool ze_engine_ui_wants_keyboard(const ze_engine_t *e);
/* Replace the main world's entities with a scene file (VFS path); Mesh
 * components get render instances and their assets are acquired. Asset
 * fields (Mesh.mesh, Material.material, any UUID field) may name assets by
 * path: "/models/crate.gltf#mesh/0" (zengine/asset.h, "references by
 * path"); one that does not resolve is reported once, naming the entity,
 * component and reference, and counts in unresolved_assets (the run fails). */
ze_result ze_engine_load_scene(ze_engine_t *e, const char *vfs_path);
/* Write the main world as a scene file (VFS path, written atomically). UUID
 * fields the asset registry can name are written as references by path
 * ("/models/crate.gltf#mesh/0"), others as uuids. */
ze_result ze_engine_save_scene(ze_engine_t *e, const char *vfs_path);
/* The uuid of an asset reference: a path with a sub-asset
 * ("/models/crate.gltf#mesh/0"), a path alone (the file's own uuid), or a
 * uuid string. A project file the registry does not know yet is registered
 * (its .meta read, or written) and queued for import. ZE_ERR_PARSE,
 * ZE_ERR_NOT_FOUND...: reported once per reference (ERROR) and counted in
 * unresolved_assets; *out is nil. */
ze_result ze_engine_asset_uuid(ze_engine_t *e, const char *ref, ze_uuid_t *out);
/* The reverse: the reference files use for a uuid the registry can name;
 * false (buf "") otherwise. */
bool ze_engine_asset_ref(ze_engine_t *e, ze_uuid_t uuid, char *buf, size_t cap);

/* Spawning from code: `count` instances of a model's node hierarchy (its
 * cook's scene/0) or of a prefab (a scene file used as a template). Each
 * instance is a root entity — Transform = its spawn transform, Name = the
 * file's stem, Parent = `parent` when set — with the template's entities
 * below it, their own local transforms and links kept (a model's cameras
 * are never main). */
typedef struct ze_spawn_desc_t {
    const char *asset; /* "/models/crate.gltf" or "/prefabs/tower.scene.json" */
    uint32_t count;    /* instances; 0 = 1 */
    /* Root transforms: transforms[i] for instance i when set, else
     *transform for every one, else the identity. */
    const ze_transform_t *transforms;
    const ze_transform_t *transform;
    ze_entity_t parent; /* optional: the roots' parent (an alive entity) */
    /* Record into these commands: a system passes its t->cmds (declare
       uses_commands), which makes the call safe on any thread; the
       instances appear when the commands apply. NULL: spawn now (main
       thread, not from a parallel wave). */
    ze_commands_t *cmds;
    /* Optional, `count` entries: each instance's root (pending handles of
       `cmds` when recorded, usable by its later commands). */
    ze_entity_t *roots;
} ze_spawn_desc_t;
/* The template is read once per run, at first use: when the model is not
 * cooked yet (its first run) it is imported first and the roots get their
 * children at the end of a later main-loop iteration. An asset that cannot
 * be spawned (no such file, a failed import, a model without nodes) is
 * reported once and counts in unresolved_assets (the run fails).
 * ZE_ERR_INVALID_ARG, ZE_ERR_OUT_OF_MEMORY, or what the world refused. */
ze_result ze_engine_spawn(ze_engine_t *e, const ze_spawn_desc_t *desc);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_ENGINE_H */
