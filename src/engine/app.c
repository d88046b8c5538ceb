/* The process bootstrap (ze_app_main) and one run of the application
 * (ze_app_run): the seed's EntryPoint and GameApplication.
 *
 * ze_app_main: crash handler (moved to <project>/.zengine once the
 * arguments name the project), arguments, SIGINT/SIGTERM, logger, then the
 * run. A run: project file (its memory profile is needed before the memory
 * manager exists), memory manager, profiler (ZENGINE_TRACE), job system,
 * on_initializing, override_window_config, the engine's stages,
 * on_initialized, the start scene, render thread, main loop, render thread
 * joined, on_closing, stages unwound, job system and memory manager gone,
 * on_closed. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_internal.h"

void ze__engine_fail(ze_engine_t *e, ze_result r, const char *fmt, ...)
{
    (void)r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->report->error, sizeof e->report->error, fmt, ap);
    va_end(ap);
}

/* ----------------------------------------------------------- accessors */

ze_mem_t *ze_engine_mem(ze_engine_t *e)
{
    return e ? e->mem : NULL;
}
ze_job_system_t *ze_engine_jobs(ze_engine_t *e)
{
    return e ? e->jobs : NULL;
}
ze_kernel_t *ze_engine_kernel(ze_engine_t *e)
{
    return e ? e->kernel : NULL;
}
ze_world_t *ze_engine_world(ze_engine_t *e)
{
    return e ? e->world : NULL;
}
ze_vfs_t *ze_engine_vfs(ze_engine_t *e)
{
    return e ? e->vfs : NULL;
}
ze_asset_registry_t *ze_engine_registry(ze_engine_t *e)
{
    return e ? e->registry : NULL;
}
ze_import_coordinator_t *ze_engine_imports(ze_engine_t *e)
{
    return e ? e->imports : NULL;
}
ze_asset_manager_t *ze_engine_assets(ze_engine_t *e)
{
    return e ? e->assets : NULL;
}
ze_render_backend_t *ze_engine_backend(ze_engine_t *e)
{
    return e ? e->backend : NULL;
}
ze_main_scheduler_t *ze_engine_scheduler(ze_engine_t *e)
{
    return e ? e->scheduler : NULL;
}
const ze_input_state_t *ze_engine_input(const ze_engine_t *e)
{
    return e ? &e->game_input : NULL;
}
const ze_project_t *ze_engine_project(const ze_engine_t *e)
{
    return e ? &e->project : NULL;
}
uint64_t ze_engine_instance_records(const ze_engine_t *e)
{
    return e ? e->records_sent : 0;
}

uint64_t ze_engine_frame_index(const ze_engine_t *e)
{
    return e ? e->frame : 0;
}
void *ze_engine_native_window(ze_engine_t *e)
{
    return e ? e->native_window : NULL;
}
void ze_engine_request_close(ze_engine_t *e)
{
    if (e)
        atomic_store_explicit(&e->close_requested, true, memory_order_release);
}

const ze_run_desc_t *ze_engine_run_desc(const ze_engine_t *e)
{
    return e ? &e->run : NULL;
}
void *ze_engine_inspector(ze_engine_t *e)
{
    return e ? e->inspector : NULL;
}
void ze_engine_set_paused(ze_engine_t *e, bool paused)
{
    if (e)
        e->paused = paused;
}
bool ze_engine_paused(const ze_engine_t *e)
{
    return e && e->paused;
}

ze_result ze_engine_request_screenshot(ze_engine_t *e, const char *png_path)
{
    ZE_CHECK(e && png_path && png_path[0], ZE_ERR_INVALID_ARG);
    size_t n = strlen(png_path);
    if (n >= sizeof e->shot_path)
        return ZE_ERR_INVALID_ARG;
    if (atomic_load_explicit(&e->shot_pending, memory_order_acquire))
        return ZE_ERR_FULL;
    /* The render thread reads these only after it sees shot_pending. */
    memcpy(e->shot_path, png_path, n + 1);
    e->shot_from_frame = e->frame;
    atomic_store_explicit(&e->shot_pending, true, memory_order_release);
    return ZE_OK;
}

uint64_t ze_engine_screenshots_done(const ze_engine_t *e)
{
    return e ? atomic_load_explicit(&((ze_engine_t *)e)->shots_done, memory_order_acquire) : 0;
}

/* ----------------------------------------------------------------- run */

/* The job system's worker hooks: each worker gets the crash handler's
 * alternate stack (a failure to map one leaves that worker unreported). */
static void crash_thread_enter(void *user)
{
    (void)user;
    (void)ze_crash_handler_thread_enter();
}

static void crash_thread_leave(void *user)
{
    (void)user;
    ze_crash_handler_thread_leave();
}

static bool known_stage(const char *name)
{
    for (uint32_t i = 0; i < ze__stage_count(); i++)
        if (strcmp(ze__stage_at(i)->name, name) == 0)
            return true;
    return false;
}

/* A failure before the engine exists: into the report and the app's sink. */
static ze_result fail_early(const ze_app_desc_t *app, ze_run_report_t *rep, ze_result r,
                            const char *fmt, const char *arg)
{
    rep->result = r;
    snprintf(rep->error, sizeof rep->error, fmt, arg);
    return ze_diag(&app->diag, ZE_LOG_ERROR, r, "engine", "run", "%s", rep->error);
}

/* A run that did not do what was asked fails, naming why: an error was
 * reported, an asset reference never resolved or failed, or (--strict) a
 * warning was reported. */
static ze_result judge_run(ze_engine_t *e, ze_result r)
{
    ze_run_report_t *rep = e->report;
    uint32_t unresolved = 0, failed = 0;
    if (e->assets && !ze__scene_check_assets(e, &unresolved, &failed))
        ze_diag(&e->diag, ZE_LOG_WARN, ZE_OK, "engine", "run",
                "the run ended with imports or loads in flight: their assets were not checked");
    unresolved += ze__asset_refs_unresolved(e); /* references by path */
    rep->unresolved_assets = unresolved;
    rep->failed_assets = failed;
    const ze_diag_capture_t *errs = &e->diag_capture, *all = &e->warn_capture;
    rep->errors = errs->errors;
    rep->warnings = all->count - all->errors + e->early_warnings;
    if (r != ZE_OK)
        return r;
    if (unresolved || failed) {
        snprintf(rep->error, sizeof rep->error,
                 "%u asset reference(s) never resolved, %u failed to import or load", unresolved,
                 failed);
        r = unresolved ? ZE_ERR_NOT_FOUND : ZE_ERR_IO;
    } else if (errs->errors) {
        snprintf(rep->error, sizeof rep->error, "%u error(s) reported; the first: %.200s",
                 errs->errors, errs->first);
        r = errs->first_code != ZE_OK ? errs->first_code : ZE_ERR_INTERNAL;
    } else if (e->run.strict && rep->warnings) {
        snprintf(rep->error, sizeof rep->error,
                 "--strict: %u warning(s) reported; the first: %.200s", rep->warnings,
                 all->first[0] ? all->first : "(in the project file)");
        r = ZE_ERR_DENIED;
    }
    return r;
}

/* An output file of the run (--stats, --screenshot, --dump-graph) must be
 * writable where it is asked for: checked before anything starts, with the
 * system's reason. */
static bool output_writable(const char *flag, const char *path, char *why, size_t cap)
{
    if (!path)
        return true;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (access(dir, W_OK) == 0)
        return true;
    snprintf(why, cap, "%s %.150s: cannot write into its folder: %s", flag, path, strerror(errno));
    return false;
}

/* The profiler, when --trace (or ZENGINE_TRACE) names a capture file.
 * True when this run started the capture (and so writes it). */
static bool trace_begin(const char *path, ze_mem_t *mm)
{
    ze_trace_thread_name("main");
    if (!path)
        return false;
    ze_result r = ze_trace_start(
        &(ze_trace_desc_t){.alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP)});
    if (r != ZE_OK)
        ZE_LOG_WARN(ZE__ENGINE_LOG, "profiler: not started (%s)", ze_result_str(r));
    return r == ZE_OK;
}

/* After every other thread of the run was joined. */
static void trace_end(const ze_app_desc_t *app, const char *path, bool started)
{
    if (!started)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        ze_diag(&app->diag, ZE_LOG_WARN, ZE_ERR_IO, "engine", path, "trace not written: %s",
                strerror(errno));
    uint64_t dropped = ze_trace_dropped();
    ze_result r = ze_trace_stop(f);
    long size = f ? ftell(f) : -1;
    if (f && (fclose(f) != 0 || r != ZE_OK))
        ze_diag(&app->diag, ZE_LOG_WARN, ZE_ERR_IO, "engine", path, "trace not written: %s",
                ze_result_str(r != ZE_OK ? r : ZE_ERR_IO));
    else if (f)
        ZE_LOG_INFO(ZE__ENGINE_LOG,
                    "profiler: capture written to %s (%ld bytes, %llu events "
                    "dropped)",
                    path, size, (unsigned long long)dropped);
}

/* The engine's part of a run, with memory and jobs up. */
static ze_result engine_run(ze_engine_t *e)
{
    const ze_app_desc_t *app = e->app;
    ze_run_report_t *rep = e->report;
    void *user = app->user;

    if (app->on_initializing)
        app->on_initializing(user);
    e->window = e->project.window;
    e->window.headless = e->window.headless || e->run.headless;
    if (app->override_window_config)
        app->override_window_config(user, &e->window);

    ze_result r = ze__stages_init(e);
    if (r != ZE_OK)
        return r; /* unwound, failed_stage and error set */

    bool initialized = false;
    if (app->on_initialized) {
        r = app->on_initialized(e, user);
        if (r != ZE_OK)
            snprintf(rep->error, sizeof rep->error, "on_initialized failed: %s", ze_result_str(r));
    }
    initialized = r == ZE_OK;
    /* The systems' plans now: a conflict fails start-up before any frame,
       with one error naming both systems (reported by the world). */
    if (r == ZE_OK && (r = ze_world_plan_systems(e->world)) != ZE_OK)
        snprintf(rep->error, sizeof rep->error, "the systems cannot be planned: %.200s",
                 e->diag_capture.last_message);
    /* The start scene, unless the application loaded a scene itself (its
       components are registered by now). It is added to the main world:
       entities on_initialized created stay. */
    if (r == ZE_OK && e->project.start_scene[0] && e->scene_revision == 0) {
        r = ze__engine_load_scene(e, e->project.start_scene, true);
        if (r != ZE_OK)
            snprintf(rep->error, sizeof rep->error, "start %s", e->scene_error);
        /* (the scene's problems were reported by the world and the engine) */
    }
    if (r == ZE_OK) {
        r = ze__render_thread_start(e);
        if (r != ZE_OK)
            snprintf(rep->error, sizeof rep->error, "render thread: %s", ze_result_str(r));
    }
    if (r == ZE_OK && e->virtual_clock)
        ze__loop_settle_assets(e, 30000);
    if (r == ZE_OK && e->ctx.init_allocations && !e->ctx.fault_stage)
        *e->ctx.init_allocations = ze_mem_fault_counter(e->mem);
    if (r == ZE_OK && e->run.inspect) {
        r = app->inspector->start(e, &e->inspector);
        if (r != ZE_OK)
            snprintf(rep->error, sizeof rep->error, "inspector: %s (port %u)", ze_result_str(r),
                     (unsigned)e->run.inspect_port);
    }
    if (r == ZE_OK) {
        r = ze__main_loop(e);
        if (e->inspector) {
            app->inspector->stop(e, e->inspector);
            e->inspector = NULL;
        }
        ze__render_thread_stop(e); /* joined first, before any stage fini */
        if (r == ZE_OK && atomic_load(&e->device_lost)) {
            r = ZE_ERR_IO;
            snprintf(rep->error, sizeof rep->error,
                     "device lost: the render backend failed at its frame %llu",
                     (unsigned long long)atomic_load(&e->frames_rendered) + 1);
        }
    }
    if (initialized)
        r = judge_run(e, r);
    if (initialized && app->on_closing)
        app->on_closing(e, user);
    if (r != ZE_OK && rep->error[0])
        ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", "run", "%s", rep->error);
    rep->result = r;
    ze__report_fill(e); /* while the world and the backend exist */
    ze__stages_fini(e);
    return r;
}

ze_result ze__app_run_with(const ze_app_desc_t *app, const ze_run_desc_t *run, ze_run_report_t *rep,
                           const ze__run_ctx_t *ctx)
{
    memset(rep, 0, sizeof *rep);
    static const ze_app_desc_t no_app = {0};
    if (!app)
        app = &no_app;
    ze_result r = ZE_OK;
    if (!run || !run->project || !run->project[0])
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "%s",
                       "no project file given (--project FILE)");
    else if (ctx->fail_stage && !known_stage(ctx->fail_stage))
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "fail_stage '%s' is not an engine stage",
                       ctx->fail_stage);
    else if (ctx->fault_stage && !known_stage(ctx->fault_stage))
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "fault_stage '%s' is not an engine stage",
                       ctx->fault_stage);
    else if (run->fixed_dt < 0.0 || run->fixed_dt != run->fixed_dt || run->fixed_dt > 1.0)
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "%s", "fixed_dt must be in (0, 1] seconds");
    else if (run->max_fps < 0.0 || run->max_fps != run->max_fps)
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "%s", "max_fps must be 0 or positive");
    else if (run->inspect && !(app->inspector && app->inspector->start && app->inspector->step &&
                               app->inspector->stop))
        r = fail_early(app, rep, ZE_ERR_UNSUPPORTED, "%s",
                       "--inspect: this program hosts no inspector (link zengine::inspect and "
                       "set ze_app_desc_t.inspector = ze_inspector_tool())");
    else if (run->inspect_write && !run->inspect)
        r = fail_early(app, rep, ZE_ERR_INVALID_ARG, "%s", "--inspect-write needs --inspect PORT");
    char why[600];
    const char *trace_path = run && run->trace ? run->trace : ctx->trace_path;
    if (r == ZE_OK && (!output_writable("--stats", run->stats, why, sizeof why) ||
                       !output_writable("--screenshot", run->screenshot, why, sizeof why) ||
                       !output_writable("--dump-graph", run->dump_graph, why, sizeof why) ||
                       !output_writable("--trace", trace_path, why, sizeof why)))
        r = fail_early(app, rep, ZE_ERR_IO, "%.250s", why);

    /* The project before the memory manager: it may choose the profile. */
    ze_project_t *project = NULL;
    ze_project_t local_project;
    uint32_t project_warnings = 0;
    if (r == ZE_OK) {
        project = &local_project;
        ze_diag_capture_t pdiag = {
            .forward = app->diag, .pass_on = true, .min_level = ZE_LOG_ERROR};
        ze_diag_sink_t psink = ze_diag_capture_sink(&pdiag);
        r = ze_project_load(run->project, project, &psink);
        project_warnings = pdiag.count - pdiag.errors;
        if (r != ZE_OK) {
            rep->result = r;
            snprintf(rep->error, sizeof rep->error, "project %.80s: %.160s", run->project,
                     pdiag.last_message[0] ? pdiag.last_message : ze_result_str(r));
        }
    }
    ze_mem_profile profile = ZE_MEM_PROFILE_DEFAULT;
    if (r == ZE_OK) {
        const char *p = run->memory_profile && run->memory_profile[0] ? run->memory_profile
                                                                      : project->memory_profile;
        if (p[0] && ze_mem_profile_parse(p, &profile) != ZE_OK)
            r = fail_early(app, rep, ZE_ERR_INVALID_ARG,
                           "memory profile '%s' is not default, editor or server", p);
    }
    ze_mem_t *mm = NULL;
    if (r == ZE_OK && (r = ze_mem_create(&(ze_mem_desc_t){.profile = profile}, &mm)) != ZE_OK)
        fail_early(app, rep, r, "memory manager (%s profile) could not be created",
                   ze_mem_profile_name(profile));
    /* (a sweep of one stage is armed by the stage: stages.c) */
    if (r == ZE_OK && ctx->fail_allocation_at && !ctx->fault_stage)
        ze_mem_fault_fail_nth(mm, ctx->fail_allocation_at);
    else if (r == ZE_OK && ctx->init_allocations && !ctx->fault_stage)
        ze_mem_fault_fail_nth(mm, UINT64_MAX); /* count from here */
    if (r == ZE_OK && ctx->route_third_party)
        ze__third_party_route(mm);
    bool tracing = r == ZE_OK && trace_begin(trace_path, mm);
    ze_job_system_t *jobs = NULL;
    if (r == ZE_OK &&
        (r = ze_job_system_create(&(ze_job_system_desc_t){.mem = mm,
                                                          .thread_enter = crash_thread_enter,
                                                          .thread_leave = crash_thread_leave},
                                  &jobs)) != ZE_OK)
        fail_early(app, rep, r, "%s", "job system could not be created");

    ze_engine_t *e = NULL;
    ze_allocator_t boot = {0};
    if (r == ZE_OK) {
        boot = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP);
        e = ZE_NEW(boot, ze_engine_t);
        if (!e)
            r = fail_early(app, rep, ZE_ERR_OUT_OF_MEMORY, "%s", "engine state: out of memory");
    }
    if (r == ZE_OK) {
        memset(e, 0, sizeof *e);
        e->app = app;
        e->run = *run;
        e->ctx = *ctx;
        e->mem = mm;
        e->jobs = jobs;
        e->alloc = boot;
        e->project = *project;
        e->report = rep;
        e->tracing = tracing;
        e->diag_capture =
            (ze_diag_capture_t){.forward = app->diag, .pass_on = true, .min_level = ZE_LOG_ERROR};
        e->warn_capture = (ze_diag_capture_t){.forward = ze_diag_capture_sink(&e->diag_capture),
                                              .pass_on = true,
                                              .min_level = ZE_LOG_WARN};
        e->diag = ze_diag_capture_sink(&e->warn_capture);
        e->early_warnings = project_warnings;
        e->virtual_clock = run->fixed_dt > 0.0;
        atomic_init(&e->close_requested, false);
        atomic_init(&e->render_stop, false);
        atomic_init(&e->device_lost, false);
        atomic_init(&e->frames_rendered, 0);
        atomic_init(&e->frames_drawn, 0);
        atomic_init(&e->shot_pending, false);
        atomic_init(&e->shots_done, 0);
        r = engine_run(e);
        rep->shutdown_complete = e->stages_completed == 0;
        ze_free(boot, e->samples, sizeof(ze__frame_sample_t) * ZE__FRAME_SAMPLES);
        ze_free(boot, e, sizeof *e);
    }
    if (jobs)
        ze_job_system_destroy(jobs);
    trace_end(app, trace_path, tracing);
    if (mm) {
        ze_mem_owner_stats_t tp = ze_mem_owner_stats(mm, ZE_MEM_OWNER_THIRD_PARTY);
        rep->third_party_bytes_peak = tp.peak;
        if (ctx->route_third_party)
            ze__third_party_unroute();
        ze_mem_destroy(mm);
    }
    if (!rep->failed_stage[0] && rep->stages_completed == 0 && r != ZE_OK)
        rep->shutdown_complete = true; /* nothing was started */
    rep->result = r;
    if (app->on_closed)
        app->on_closed(app->user);
    return r;
}

ze_result ze_app_run(const ze_app_desc_t *app, const ze_run_desc_t *run, ze_run_report_t *report)
{
    ze_run_report_t local;
    ze__run_ctx_t ctx = {0};
    return ze__app_run_with(app, run, report ? report : &local, &ctx);
}

/* ------------------------------------------------------------- process */

static atomic_bool g_stop_signal; /* SIGINT/SIGTERM: end the run cleanly */

static void on_stop_signal(int sig)
{
    (void)sig;
    atomic_store(&g_stop_signal, true);
}

/* <project folder>/.zengine when it exists or can be made, else NULL (the
 * current directory). */
static const char *crash_dir(const char *project, char *buf, size_t cap)
{
    const char *slash = strrchr(project, '/');
    int n = slash ? snprintf(buf, cap, "%.*s/.zengine", (int)(slash - project), project)
                  : snprintf(buf, cap, ".zengine");
    if (n <= 0 || (size_t)n >= cap)
        return NULL;
    struct stat st;
    if (stat(buf, &st) == 0)
        return S_ISDIR(st.st_mode) ? buf : NULL;
    return mkdir(buf, 0755) == 0 ? buf : NULL;
}

int ze_app_main(const ze_app_desc_t *app, int argc, char **argv)
{
    /* 1. the crash handler (the log in the current directory until the
       project's folder is known) */
    ze_result cr = ze_crash_handler_install(NULL);
    /* 2. the arguments */
    ze_run_desc_t run;
    ze_log_level level = ZE_LOG_INFO;
    bool level_set = false;
    ze_diag_capture_t args_diag = {0};
    ze_diag_sink_t args_sink = ze_diag_capture_sink(&args_diag);
    if (ze_run_parse_args(argc, argv, &run, &level, &level_set, &args_sink) != ZE_OK) {
        fprintf(stderr, "zengine: %s\n", args_diag.last_message);
        ze_crash_handler_uninstall();
        return 2;
    }
    char dir[4200];
    const char *cdir = crash_dir(run.project, dir, sizeof dir);
    if (cr == ZE_OK && cdir)
        cr = ze_crash_handler_install(cdir); /* moves the log beside the project */
    if (cr != ZE_OK)
        fprintf(stderr, "zengine: crash handler not installed (%s)\n", ze_result_str(cr));

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    atomic_store(&g_stop_signal, false);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    ze_log_configure(&(ze_log_desc_t){.level = level_set ? level : ZE_LOG_INFO});
    if (level_set && level == ZE_LOG_TRACE)
        ze_log_set_level(ZE_LOG_TRACE); /* TRACE reads as "default" in the desc */

    const char *trace = getenv("ZENGINE_TRACE");
    ze__run_ctx_t ctx = {.signal_flag = &g_stop_signal,
                         .trace_path = trace && trace[0] ? trace : NULL,
                         .route_third_party = true};
    ze_run_report_t report;
    ze_result r = ze__app_run_with(app, &run, &report, &ctx);
    if (run.stats) {
        ze_result w = ze_run_report_write_json(&report, run.stats);
        if (w != ZE_OK) {
            ze_diag(&app->diag, ZE_LOG_ERROR, w, "engine", run.stats, "stats not written: %s",
                    ze_result_str(w));
            if (r == ZE_OK)
                r = w;
        }
    }
    /* (a failure was reported through the app's sink: the log) */
    ze_log_flush();

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    ze_crash_handler_uninstall();
    if (r == ZE_OK)
        return 0;
    return r == ZE_ERR_INVALID_ARG ? 2 : 1;
}
