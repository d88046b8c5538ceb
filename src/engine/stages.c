/* Engine initialization as a table of stages, in the seed's order for what
 * exists (docs/engine.md, "Lifecycle"). Each stage has an init that either
 * completes or cleans up after itself, and a fini. The engine counts the
 * completed stages; a failure unwinds exactly those, in reverse, and the run
 * reports the stage's name. The run context's `fail_stage` makes a named stage fail with
 * ZE_ERR_FAULT_INJECTED before its init runs (lifecycle tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_internal.h"
#include "gfx/backend.h" /* test faults of the run context */

/* ------------------------------------------------------------- window */

/* The configuration the project and override_window_config chose, then the
 * GLFW window (window.c) unless the run is headless or no display exists
 * (logged; the run goes on headless). */
static ze_result window_init(ze_engine_t *e)
{
    ze_window_config_t *w = &e->window;
    if (!w->width)
        w->width = 1280;
    if (!w->height)
        w->height = 720;
    if (!w->title[0])
        snprintf(w->title, sizeof w->title, "%s", e->project.name);
    ze_result r = ze__window_open(e);
    if (r == ZE_OK && w->headless)
        ZE_LOG_DEBUG(ZE__ENGINE_LOG, "window: %ux%u '%s' (headless)", w->width, w->height,
                     w->title);
    return r;
}

static void window_fini(ze_engine_t *e)
{
    ze__window_close(e); /* after render_device: the surface is gone */
}

/* ------------------------------------------------------- render device */

static ze_result render_device_init(ze_engine_t *e)
{
    const char *name = e->run.backend ? e->run.backend : "null";
    ze_render_backend_desc_t d = {
        .mem = e->mem,
        .headless = e->window.headless,
        .width = e->window.width,
        .height = e->window.height,
        .title = e->window.title,
        .vsync = e->window.vsync,

        .native_window = e->native_window,
        .vertex_budget_bytes = e->project.renderer.vertex_budget_bytes,
        .index_budget_bytes = e->project.renderer.index_budget_bytes,
        .instance_budget = e->project.renderer.instance_budget,
        .cull = e->project.renderer.culling,
        .depth_prepass = e->project.renderer.depth_prepass,
    };
    ze__render_faults_t faults = {.frame_delay_us = e->ctx.backend_frame_delay_us,
                                  .lose_device_at_frame = e->ctx.backend_lose_device_at};
    ze_result r = ze__render_backend_create_with(name, &d, &faults, &e->backend);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "render backend '%s': %s", name,
                        r == ZE_ERR_NOT_FOUND ? "no such backend" : ze_result_str(r));
        return r;
    }
    /* Snapshots are built in the mailbox slots' arenas: 16 MiB of address
       space each, committed as used; a state carries at most 100,000
       instance records (sync.c), the rest follow in the next ones. */
    r = ze_mailbox_create(&(ze_mailbox_desc_t){.mem = e->mem,
                                               .owner = ZE_MEM_OWNER_RENDER,
                                               .slot_arena_size = ZE_MIB(16)},
                          &e->mailbox);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "render-state mailbox: %s", ze_result_str(r));
        ze_render_backend_destroy(e->backend);
        e->backend = NULL;
        return r;
    }
    ZE_LOG_INFO(ZE__ENGINE_LOG, "render device: %s (%s)", ze_render_backend_name(e->backend),
                ze_render_backend_device(e->backend));
    return ZE_OK;
}

static void render_device_fini(ze_engine_t *e)
{
    ze_mailbox_destroy(e->mailbox);
    e->mailbox = NULL;
    ze_render_backend_destroy(e->backend);
    e->backend = NULL;
}

/* ----------------------------------------------------------- scheduler */

/* Created early (the seed creates it last, for editor panels): the VFS
 * scanner, the import coordinator and the asset manager post their
 * completions to it, and step 9 of the main loop drains it. */
static ze_result scheduler_init(ze_engine_t *e)
{
    ze_result r = ze_main_scheduler_create(
        &(ze_main_scheduler_desc_t){.mem = e->mem, .owner = ZE_MEM_OWNER_BOOTSTRAP}, &e->scheduler);
    if (r != ZE_OK)
        ze__engine_fail(e, r, "main-thread scheduler: %s", ze_result_str(r));
    return r;
}

static void scheduler_fini(ze_engine_t *e)
{
    ze_main_scheduler_destroy(e->scheduler); /* discards what is still pending */
    e->scheduler = NULL;
}

/* ----------------------------------------------------------------- vfs */

static bool is_dir(const char *path)
{
    struct stat st;
    return path && path[0] && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The engine's packaged assets: $ZENGINE_ASSET_ROOT, else ZodiacEngine/
 * beside the executable. Optional until the renderer ships shaders. */
static bool engine_asset_root(char *buf, size_t cap)
{
    return ze_vfs_default_engine_root(buf, cap, NULL) && is_dir(buf);
}

static ze_result vfs_init(ze_engine_t *e)
{
    char engine_root[4096];
    bool engine_assets = engine_asset_root(engine_root, sizeof engine_root);
    ze_vfs_desc_t d = {
        .mem = e->mem,
        .jobs = e->jobs,
        .scheduler = e->scheduler,
        .project_root = e->project.root,
        .engine_root = engine_assets ? engine_root : NULL,
        .no_engine_mount = !engine_assets,
        .disable_cache = e->run.no_cache,
        .watch = true,
        .diag = e->diag,
    };
    ze_result r = ze_vfs_create(&d, &e->vfs);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "file system for project %s: %s", e->project.root, ze_result_str(r));
        return r;
    }
    e->cache_writable = ze_vfs_cache_enabled(e->vfs);
    ZE_LOG_INFO(ZE__ENGINE_LOG, "vfs: project %s, engine assets %s, /cache %s", e->project.root,
                engine_assets ? engine_root : "(none)", e->cache_writable ? "writable" : "off");
    return ZE_OK;
}

static void vfs_fini(ze_engine_t *e)
{
    ze_vfs_destroy(e->vfs);
    e->vfs = NULL;
    e->cache_writable = false;
}

/* ----------------------------------------------------------- pso cache */

/* The seed's "optional writable /cache/pso mount and cache load": the
 * backend persists its pipeline cache under /cache/pso (a read-only project
 * runs with persistence off, not an error); at fini, before the VFS goes,
 * the cache is saved and detached. */
static ze_result pso_cache_init(ze_engine_t *e)
{
    ZE_LOG_INFO(ZE__ENGINE_LOG, "pipeline cache: persistence %s", e->cache_writable ? "on" : "off");
    ze_result r = ze_render_backend_use_cache(e->backend, e->vfs);
    if (r != ZE_OK)
        ZE_LOG_ERROR(ZE__ENGINE_LOG, "pipeline cache: %s", ze_result_str(r));
    return r;
}

static void pso_cache_fini(ze_engine_t *e)
{
    (void)ze_render_backend_use_cache(e->backend, NULL);
}

/* ------------------------------------------------------ asset registry */

static ze_result asset_registry_init(ze_engine_t *e)
{
    ze_result r = ze_asset_registry_create(
        &(ze_asset_registry_desc_t){.alloc = ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_ASSET)},
        &e->registry);
    if (r != ZE_OK)
        ze__engine_fail(e, r, "asset registry: %s", ze_result_str(r));
    return r;
}

static void asset_registry_fini(ze_engine_t *e)
{
    ze_asset_registry_destroy(e->registry);
    e->registry = NULL;
}

/* --------------------------------------------------------------- input */

/* The Input owner when the profile gives it a budget (Server does not). */
static ze_allocator_t input_allocator(ze_engine_t *e)
{
    bool has = ze_mem_owner_stats(e->mem, ZE_MEM_OWNER_INPUT).budget > 0;
    return ze_mem_owner_allocator(e->mem, has ? ZE_MEM_OWNER_INPUT : ZE_MEM_OWNER_BOOTSTRAP);
}

static ze_result read_host_file(const char *path, ze_allocator_t a, char **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ZE_ERR_NOT_FOUND;
    ze_result r = ZE_ERR_IO;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        r = n > (64 << 20) ? ZE_ERR_LIMIT : ZE_OK;
        if (r == ZE_OK && !(buf = ze_alloc(a, (size_t)n + 1, 16)))
            r = ZE_ERR_OUT_OF_MEMORY;
        if (r == ZE_OK && fread(buf, 1, (size_t)n, f) != (size_t)n)
            r = ZE_ERR_IO;
    }
    fclose(f);
    if (r != ZE_OK) {
        ze_free(a, buf, (size_t)n + 1);
        return r;
    }
    buf[n] = 0;
    *out = buf;
    *size = (size_t)n;
    return ZE_OK;
}

static ze_result input_init(ze_engine_t *e)
{
    memset(&e->input, 0, sizeof e->input);
    memset(&e->game_input, 0, sizeof e->game_input);
    if (!e->run.input_script)
        return ZE_OK;
    ze_allocator_t a = input_allocator(e);
    char *text = NULL;
    size_t n = 0;
    ze_result r = read_host_file(e->run.input_script, a, &text, &n);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "input script %s: %s", e->run.input_script, ze_result_str(r));
        return r;
    }
    ze__input_replay_error_t err = {0};
    r = ze__input_replay_parse(text, n, a, &e->replay, &err);
    ze_free(a, text, n + 1);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "input script %s:%u: %s", e->run.input_script, err.line,
                        err.message[0] ? err.message : ze_result_str(r));
        e->replay = NULL;
        return r;
    }
    ZE_LOG_INFO(ZE__ENGINE_LOG, "input: replaying %u events from %s",
                ze_input_replay_event_count(e->replay), e->run.input_script);
    return ZE_OK;
}

static void input_fini(ze_engine_t *e)
{
    ze_input_replay_destroy(e->replay);
    e->replay = NULL;
}

/* ----------------------------------------------------------------- ecs */

/* The kernel's clock in runs with a virtual clock: the loop's virtual time,
 * so systems that read ze_world_now_ns see the same values on every run. */
static uint64_t virtual_clock(void *user)
{
    return ((const ze_engine_t *)user)->virtual_ns;
}

static ze_result ecs_init(ze_engine_t *e)
{
    e->kernel = ze_kernel_create(&(ze_kernel_desc_t){
        .mem = e->mem,
        .jobs = e->jobs,
        .name = "engine",
        .fixed_dt = 1.0 / 60.0,
        .max_substeps = 5,
        .clock = e->virtual_clock ? virtual_clock : NULL,
        .clock_user = e,
        .diag = e->diag,
    });
    if (!e->kernel) {
        ze__engine_fail(e, ZE_ERR_OUT_OF_MEMORY, "ECS kernel could not be created");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    ze_result r = ZE_OK;
    e->world = ze_world_create(e->kernel, &(ze_world_desc_t){.name = "main"});
    if (!e->world) {
        r = ZE_ERR_OUT_OF_MEMORY;
        ze__engine_fail(e, r, "main world could not be created");
    }
    /* World matrices after every fixed step (FixedPost), so gameplay in the
       next step and the render sync both see current ones. */
    if (r == ZE_OK) {
        ze_system_desc_t h = ze_hierarchy_system_desc();
        h.group = ZE_GROUP_FIXED_POST;
        if (!ze_system_add(e->world, &h).id) {
            r = ZE_ERR_INTERNAL;
            ze__engine_fail(e, r, "hierarchy system could not be added");
        }
    }
    if (r == ZE_OK && (r = ze__scene_init(e)) != ZE_OK)
        ze__engine_fail(e, r, "render proxies: %s", ze_result_str(r));
    if (r == ZE_OK)
        ze__asset_refs_init(e); /* scene files name assets by path */
    if (r == ZE_OK && (r = ze__spawn_init(e)) != ZE_OK) {
        ze__engine_fail(e, r, "spawn templates: %s", ze_result_str(r));
        ze__asset_refs_fini(e);
        ze__scene_fini(e);
    }
    if (r != ZE_OK) {
        ze_kernel_destroy(e->kernel);
        e->kernel = NULL;
        e->world = NULL;
    }
    return r;
}

static void ecs_fini(ze_engine_t *e)
{
    ze__spawn_fini(e); /* prefabs before their kernel */
    ze__asset_refs_fini(e);
    ze__scene_fini(e);
    ze_kernel_destroy(e->kernel); /* and its worlds */
    e->kernel = NULL;
    e->world = NULL;
}

/* -------------------------------------------------------------- import */

typedef struct walk_t {
    ze_array_t dirs;  /* ze_path_t still to list */
    ze_array_t files; /* ze_path_t of importable files */
    const ze_path_t *dir;
    bool failed;
} walk_t;

static bool walk_entry(void *user, const ze_vfs_dirent_t *d)
{
    walk_t *w = user;
    if (d->name[0] == '.')
        return true; /* hidden: .zengine, editor droppings */
    ze_path_t p;
    if (ze_path_join(w->dir, d->name, &p) != ZE_OK)
        return true;
    /* /cache holds artifacts, /ZodiacEngine the engine's own files. */
    if (strcmp(p.str, "/cache") == 0 || strcmp(p.str, "/ZodiacEngine") == 0)
        return true;
    ze_array_t *to = NULL;
    if (d->stat.is_dir && !d->is_symlink)
        to = &w->dirs;
    else if (!d->stat.is_dir && ze_asset_importer_for(p.str))
        to = &w->files;
    if (to && ze_array_push(to, &p) != ZE_OK)
        w->failed = true;
    return !w->failed;
}

/* Register every importable file below the project's asset folders (the
 * whole project when it names none) and queue a Background import for
 * those not cooked yet. Files that fail are logged and skipped. */
static ze_result register_asset_folders(ze_engine_t *e)
{
    walk_t w = {0};
    ZE_ARRAY_INIT(&w.dirs, e->alloc, ze_path_t);
    ZE_ARRAY_INIT(&w.files, e->alloc, ze_path_t);
    uint32_t nfolders = e->project.asset_folder_count;
    for (uint32_t i = 0; i < (nfolders ? nfolders : 1) && !w.failed; i++) {
        ze_path_t p;
        if (ze_path_make(nfolders ? e->project.asset_folders[i] : "/", &p) == ZE_OK)
            w.failed = ze_array_push(&w.dirs, &p) != ZE_OK;
    }
    ze_path_t dir;
    while (!w.failed && ze_array_pop(&w.dirs, &dir)) {
        w.dir = &dir;
        ze_result ve = ze_vfs_list(e->vfs, dir.str, walk_entry, &w);
        if (ve != ZE_OK)
            ZE_LOG_WARN(ZE__ENGINE_LOG, "asset folder %s: %s", dir.str, ze_result_str(ve));
    }
    uint32_t queued = 0;
    for (uint32_t i = 0; i < w.files.count && !w.failed; i++) {
        const ze_path_t *p = ze_array_at(&w.files, i);
        /* sources are registered now (games look them up in
           on_initialized) and checked on the pool; an image may be only a
           model's texture: imported alone only when no source depends on
           it */
        const char *imp = ze_asset_importer_for(p->str);
        ze_result r =
            strcmp(imp, "image") == 0
                ? ze_import_offer(e->imports, p->str)
                : ze_import_request(e->imports, p->str, ZE_IMPORT_BACKGROUND, false, NULL);
        if (r != ZE_OK)
            ZE_LOG_WARN(ZE__ENGINE_LOG, "%s: not imported: %s", p->str, ze_result_str(r));
        else
            queued++;
    }
    ze_result r = w.failed ? ZE_ERR_OUT_OF_MEMORY : ZE_OK;
    ze_import_stats_t s = ze_import_coordinator_stats(e->imports);
    ZE_LOG_INFO(ZE__ENGINE_LOG,
                "import: %u source(s) registered, checked on the pool (%u queued so far)", queued,
                s.queued);
    ze_array_free(&w.dirs);
    ze_array_free(&w.files);
    return r;
}

static ze_result import_init(ze_engine_t *e)
{
    if (!e->cache_writable) {
        ZE_LOG_WARN(ZE__ENGINE_LOG, "imports and asset loading are off: the project has no "
                                    "writable /cache (cooked artifacts live there)");
        return ZE_OK;
    }
    ze_result r = ze_import_coordinator_create(
        &(ze_import_coordinator_desc_t){
            .mem = e->mem,
            .vfs = e->vfs,
            .registry = e->registry,
            .jobs = e->jobs,
            .scheduler = e->scheduler,
            .mode = e->run.import_mode,
            .in_process_cook = e->run.in_process_cook,
            .cooker = e->run.cooker,
            .watch = true,
            .diag = e->diag,
        },
        &e->imports);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "import coordinator: %s", ze_result_str(r));
        return r;
    }
    r = register_asset_folders(e);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "asset folders: %s", ze_result_str(r));
        ze_import_coordinator_destroy(e->imports);
        e->imports = NULL;
    }
    return r;
}

static void import_fini(ze_engine_t *e)
{
    ze_import_coordinator_destroy(e->imports); /* kills running children */
    e->imports = NULL;
}

/* ------------------------------------------------------- asset manager */

static ze_result asset_manager_init(ze_engine_t *e)
{
    if (!e->imports)
        return ZE_OK; /* no /cache: nothing can be loaded (logged by "import") */
    ze_result r = ze_asset_manager_create(
        &(ze_asset_manager_desc_t){
            .mem = e->mem,
            .vfs = e->vfs,
            .registry = e->registry,
            .imports = e->imports,
            .jobs = e->jobs,
            .scheduler = e->scheduler,
            .on_asset_ready = ze__scene_on_asset_ready,
            .on_asset_released = ze__scene_on_asset_released,
            .user = e,
            .diag = e->diag,
        },
        &e->assets);
    if (r != ZE_OK)
        ze__engine_fail(e, r, "asset manager: %s", ze_result_str(r));
    return r;
}

static void asset_manager_fini(ze_engine_t *e)
{
    ze__scene_release_assets(e);
    ze_asset_manager_destroy(e->assets);
    e->assets = NULL;
}

/* ---------------------------------------------------- render resources */

/* From here on the manager's on_asset_ready reaches the backend's pending
 * queue (a full queue keeps the notification for the next frame). */
static ze_result render_resources_init(ze_engine_t *e)
{
    e->render_resources = true;
    return ZE_OK;
}

static void render_resources_fini(ze_engine_t *e)
{
    e->render_resources = false;
    ze_array_clear(&e->backend_retry);
    ze_array_clear(&e->release_retry);
}

/* ------------------------------------------------------------- watcher */

/* The VFS was created watching (the "vfs" stage) and the coordinator
 * subscribed to it; this stage records what is watched. */
static ze_result watcher_init(ze_engine_t *e)
{
    e->watches = ze_vfs_watch_count(e->vfs);
    ZE_LOG_INFO(ZE__ENGINE_LOG, "watcher: %u director%s watched, hot reload %s", e->watches,
                e->watches == 1 ? "y" : "ies", e->imports && e->watches ? "on" : "off");
    return ZE_OK;
}

static void watcher_fini(ze_engine_t *e)
{
    e->watches = 0;
}

/* --------------------------------------------------------------- table */

static const ze__stage_t g_stages[] = {
    {"window", window_init, window_fini},
    {"render_device", render_device_init, render_device_fini},
    {"scheduler", scheduler_init, scheduler_fini},
    {"vfs", vfs_init, vfs_fini},
    {"pso_cache", pso_cache_init, pso_cache_fini},
    {"asset_registry", asset_registry_init, asset_registry_fini},
    {"input", input_init, input_fini},
    {"ui", ze__ui_init, ze__ui_fini}, /* ui_bridge.c: context, font, overlay mailbox */
    {"ecs", ecs_init, ecs_fini},
    {"import", import_init, import_fini},
    {"asset_manager", asset_manager_init, asset_manager_fini},
    {"render_resources", render_resources_init, render_resources_fini},
    {"watcher", watcher_init, watcher_fini},
};
_Static_assert(ZE_COUNTOF(g_stages) <= ZE_ENGINE_MAX_STAGES, "raise ZE_ENGINE_MAX_STAGES");

uint32_t ze__stage_count(void)
{
    return (uint32_t)ZE_COUNTOF(g_stages);
}

const ze__stage_t *ze__stage_at(uint32_t i)
{
    return i < ZE_COUNTOF(g_stages) ? &g_stages[i] : NULL;
}

/* A sweep of one stage (the run context's fault_stage): the Nth of the
 * stage's own allocations fails, or (counting run) they are counted. */
static void sweep_arm(ze_engine_t *e)
{
    ze_mem_fault_exempt_owner(e->mem, ZE_MEM_OWNER_VULKAN, true);
    ze_mem_fault_fail_nth(e->mem,
                          e->ctx.fail_allocation_at ? e->ctx.fail_allocation_at : UINT64_MAX);
}

static void sweep_disarm(ze_engine_t *e)
{
    if (e->ctx.init_allocations)
        *e->ctx.init_allocations = ze_mem_fault_counter(e->mem);
    ze_mem_fault_fail_nth(e->mem, 0);
    ze_mem_fault_exempt_owner(e->mem, ZE_MEM_OWNER_VULKAN, false);
}

ze_result ze__stages_init(ze_engine_t *e)
{
    ze_run_report_t *rep = e->report;
    for (uint32_t i = 0; i < ZE_COUNTOF(g_stages); i++) {
        const ze__stage_t *s = &g_stages[i];
        ze_result r;
        rep->error[0] = 0;
        bool swept = e->ctx.fault_stage && strcmp(e->ctx.fault_stage, s->name) == 0;
        if (swept)
            sweep_arm(e);
        if (e->ctx.fail_stage && strcmp(e->ctx.fail_stage, s->name) == 0) {
            r = ZE_ERR_FAULT_INJECTED;
            ze__engine_fail(e, r, "fault injected");
        } else {
            ZE_ZONE_BEGIN(s->name); /* the table's literals */
            r = s->init(e);
            ZE_ZONE_END();
        }
        if (swept)
            sweep_disarm(e);
        if (r != ZE_OK) {
            char detail[sizeof rep->error];
            snprintf(detail, sizeof detail, "%s", rep->error[0] ? rep->error : ze_result_str(r));
            snprintf(rep->error, sizeof rep->error, "initialization failed at stage '%s': %.200s",
                     s->name, detail);
            snprintf(rep->failed_stage, sizeof rep->failed_stage, "%s", s->name);
            e->failed_stage = s->name;
            ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", "run", "%s", rep->error);
            ze__stages_fini(e);
            return r;
        }
        snprintf(rep->stages[i], sizeof rep->stages[i], "%s", s->name);
        e->stages_completed = i + 1;
        rep->stages_completed = e->stages_completed;
    }
    return ZE_OK;
}

void ze__stages_fini(ze_engine_t *e)
{
    while (e->stages_completed > 0) {
        const ze__stage_t *s = &g_stages[--e->stages_completed];
        ZE_ZONE_BEGIN(s->name);
        s->fini(e);
        ZE_ZONE_END();
        e->report->stages_unwound++;
        ZE_LOG_DEBUG(ZE__ENGINE_LOG, "stage '%s' shut down", s->name);
    }
}
