/* The framework's frame: eight system groups per world, each one WorldTick
 * DAG, run by BeginFrame / FixedStep / LateFrame; the kernel's frame (its
 * fixed-step accumulator is kernel.c's); the per-group write policy and
 * barriers.
 *
 * Systems are kept per world in registration order. An add, remove or
 * order change marks its group dirty; the group's WorldTick is rebuilt at the
 * next BeginFrame (the plan is cached until then). A group whose plan fails
 * (conflict, cycle) does not run until fixed; the error is logged once and
 * reported once through the kernel's diagnostics sink.
 *
 * Barriers. After each group its commands are flushed: FrameSync and
 * FrameView with structural commands refused; FrameUI's are kept and
 * applied at the next FrameInput barrier, before FrameInput's own. Direct
 * calls made by those groups' systems meet the same policy at once
 * (g_group_writes, checked by storage). Then the components in each
 * system's write mask that some binder watches are marked changed for the
 * entities the system's query matched.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ecs/ecs_internal.h"

#define G_COUNT (ZE_GROUP_END - 1) /* groups 1..8 stored at 0..7 */

typedef struct sys_entry_t {
    ze_system_desc_t desc; /* name points at `name` */
    char name[ZE_COMPONENT_NAME_MAX];
    uint32_t group;      /* 1..8 */
    uint32_t tick_index; /* 1-based handle in the group's current WorldTick */
    bool enabled, removed, initialized;
    /* runs and time of the calls before the group's last rebuild (those
       since are in its sys_call_t) */
    uint64_t runs, ns;
    int32_t call; /* its place in the group's calls, -1 when none */
} sys_entry_t;

typedef struct sys_edge_t {
    uint32_t before, after; /* entry indices */
} sys_edge_t;

/* What run_system calls for a system of a group's current WorldTick. */
typedef struct sys_call_t {
    ze_system_fn fn;
    void *user;
    /* written by the thread running the system (one at a time), read by
       ze_world_systems between frames */
    _Atomic uint64_t runs, ns;
} sys_call_t;

struct ze__systems_t {
    ze_array_t entries; /* sys_entry_t; never shrinks: handles are index + 1 */
    ze_array_t edges;   /* sys_edge_t */
    ze_worldtick_t *ticks[G_COUNT];
    /* sys_call_t per group, written only when the group is rebuilt (at a
     * BeginFrame, before any system runs), so the threads of a wave read
     * it while a system adds others to `entries`. */
    ze_array_t calls[G_COUNT];
    bool dirty[G_COUNT];
    bool failed[G_COUNT];
    ze_result fail_code[G_COUNT];
    char errors[G_COUNT][256];
    double seconds[G_COUNT];
    ze_commands_t *ui_deferred;
    uint64_t frame;
};

static const char *const g_group_names[ZE_GROUP_END] = {
    [ZE_GROUP_DEFAULT] = "Default",
    [ZE_GROUP_FRAME_INPUT] = "FrameInput",
    [ZE_GROUP_FRAME_SYNC] = "FrameSync",
    [ZE_GROUP_FIXED_INPUT] = "FixedInput",
    [ZE_GROUP_FIXED_DECISION] = "FixedDecision",
    [ZE_GROUP_FIXED_SIMULATION] = "FixedSimulation",
    [ZE_GROUP_FIXED_POST] = "FixedPost",
    [ZE_GROUP_FRAME_VIEW] = "FrameView",
    [ZE_GROUP_FRAME_UI] = "FrameUI",
};

const char *ze_system_group_name(ze_system_group group)
{
    return (unsigned)group < ZE_GROUP_END ? g_group_names[group] : "?";
}

/* What each group's systems may write: their commands are vetted at the
 * barrier (run_group), their direct calls by storage (ze__write_denied). */
static const uint8_t g_group_writes[ZE_GROUP_END] = {
    [ZE_GROUP_FRAME_SYNC] = ZE__WRITES_VALUES,
    [ZE_GROUP_FRAME_VIEW] = ZE__WRITES_VALUES,
    [ZE_GROUP_FRAME_UI] = ZE__WRITES_NONE,
};

/* The system running on this thread, for reports. Thread-local, not in the
 * world: the systems of a parallel wave run on several threads at once. */
static _Thread_local const char *t_running_system;

/* Every framework system runs through this: it marks the system running on
 * its thread and calls the system's own function with its own user
 * pointer (the WorldTick holds the system's place in the group's `calls`
 * instead). */
static void run_system(ze_world_t *w, const ze_tick_t *t)
{
    sys_call_t *c =
        &ZE_ARRAY_AT(&w->systems->calls[t->group - 1], sys_call_t, (uint32_t)(uintptr_t)t->user);
    ze_tick_t tick = *t;
    tick.user = c->user;
    const char *outer = t_running_system;
    t_running_system = t->name;
    uint64_t t0 = ze_time_now_ns();
    c->fn(w, &tick);
    atomic_fetch_add_explicit(&c->runs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->ns, ze_time_now_ns() - t0, memory_order_relaxed);
    t_running_system = outer;
}

ze_result ze__write_refused(ze_world_t *w, const char *call, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, call);
    vsnprintf(what, sizeof what, call, ap);
    va_end(ap);
    const char *group = g_group_names[w->running_group < ZE_GROUP_END ? w->running_group : 0];
    ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_DENIED,
                    "%s from system '%s' refused: %s systems may %s", what,
                    t_running_system ? t_running_system : "?", group,
                    w->group_writes == ZE__WRITES_NONE
                        ? "not write (record commands: they apply at the next FrameInput)"
                        : "write values of existing components only");
    return ZE_ERR_DENIED;
}

static ze__systems_t *systems_of(ze_world_t *w)
{
    if (!w->systems) {
        ze__systems_t *s = ZE_NEW(w->alloc, ze__systems_t);
        if (!s)
            return NULL;
        memset(s, 0, sizeof *s);
        ZE_ARRAY_INIT(&s->entries, w->alloc, sys_entry_t);
        ZE_ARRAY_INIT(&s->edges, w->alloc, sys_edge_t);
        for (uint32_t g = 0; g < G_COUNT; g++)
            ZE_ARRAY_INIT(&s->calls[g], w->alloc, sys_call_t);
        s->ui_deferred = ze_commands_create(w);
        if (!s->ui_deferred) {
            ze_free(w->alloc, s, sizeof *s);
            return NULL;
        }
        w->systems = s;
    }
    return w->systems;
}

static inline sys_entry_t *entry_at(ze__systems_t *s, uint32_t i)
{
    return &ZE_ARRAY_AT(&s->entries, sys_entry_t, i);
}

static sys_entry_t *entry_of(ze_world_t *w, ze_system_t h)
{
    ze__systems_t *s = w->systems;
    if (!s || !h.id || h.id > s->entries.count)
        return NULL;
    sys_entry_t *e = entry_at(s, h.id - 1);
    return e->removed ? NULL : e;
}

ze_system_t ze_system_add(ze_world_t *w, const ze_system_desc_t *desc)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w && desc && desc->fn && desc->name && desc->name[0], (ze_system_t){0});
    uint32_t group = desc->group == ZE_GROUP_DEFAULT ? ZE_GROUP_FIXED_SIMULATION : desc->group;
    if (group >= ZE_GROUP_END) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "system '%s': unknown group %d",
                        desc->name, (int)desc->group);
        return (ze_system_t){0};
    }
    if (strlen(desc->name) >= ZE_COMPONENT_NAME_MAX) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "system name '%.40s...' longer than %d characters", desc->name,
                        ZE_COMPONENT_NAME_MAX - 1);
        return (ze_system_t){0};
    }
    /* FrameUI only reads: its systems may not declare a write mask. */
    if (group == ZE_GROUP_FRAME_UI &&
        (!ze_mask_empty(desc->writes) || !ze_mask_empty(desc->query.write))) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "system '%s': FrameUI systems may not write components", desc->name);
        return (ze_system_t){0};
    }
    ze__systems_t *s = systems_of(w);
    if (!s)
        return (ze_system_t){0};
    for (uint32_t i = 0; i < s->entries.count; i++) {
        sys_entry_t *e = entry_at(s, i);
        if (!e->removed && e->group == group && strcmp(e->name, desc->name) == 0) {
            ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "system '%s' already exists in %s",
                            desc->name, g_group_names[group]);
            return (ze_system_t){0};
        }
    }
    sys_entry_t e = {.desc = *desc, .group = group, .enabled = true, .call = -1};
    snprintf(e.name, sizeof e.name, "%s", desc->name);
    if (ze_array_push(&s->entries, &e) != ZE_OK)
        return (ze_system_t){0};
    s->dirty[group - 1] = true;
    return (ze_system_t){s->entries.count};
}

ze_result ze_system_remove(ze_world_t *w, ze_system_t h)
{
    sys_entry_t *e = entry_of(w, h);
    if (!e)
        return ZE_ERR_NOT_FOUND;
    e->removed = true; /* shutdown and unplanning at the next BeginFrame */
    w->systems->dirty[e->group - 1] = true;
    return ZE_OK;
}

ze_result ze_system_enable(ze_world_t *w, ze_system_t h, bool enabled)
{
    sys_entry_t *e = entry_of(w, h);
    if (!e)
        return ZE_ERR_NOT_FOUND;
    e->enabled = enabled;
    ze_worldtick_t *t = w->systems->ticks[e->group - 1];
    if (t && e->tick_index)
        ze__worldtick_set_enabled(t, (ze_system_t){e->tick_index}, enabled);
    return ZE_OK;
}

ze_result ze_system_order(ze_world_t *w, ze_system_t before, ze_system_t after)
{
    sys_entry_t *a = entry_of(w, before), *b = entry_of(w, after);
    if (!a || !b || a == b)
        return ZE_ERR_NOT_FOUND;
    if (a->group != b->group) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "systems '%s' and '%s' are in different groups (%s, %s): groups "
                        "already run in a fixed order",
                        a->name, b->name, g_group_names[a->group], g_group_names[b->group]);
        return ZE_ERR_INVALID_ARG;
    }
    ze__systems_t *s = w->systems;
    ze_result r = ze_array_push(&s->edges, &(sys_edge_t){before.id - 1, after.id - 1});
    if (r == ZE_OK)
        s->dirty[a->group - 1] = true;
    return r;
}

const char *ze__world_plan_error(const ze_world_t *w, ze_system_group group)
{
    if (!w->systems || group == ZE_GROUP_DEFAULT || group >= ZE_GROUP_END)
        return "";
    return w->systems->errors[group - 1];
}

double ze_world_group_seconds(const ze_world_t *w, ze_system_group group)
{
    if (!w->systems || group == ZE_GROUP_DEFAULT || group >= ZE_GROUP_END)
        return 0.0;
    return w->systems->seconds[group - 1];
}

/* ------------------------------------------------------------ planning */

static void call_init(ze_world_t *w, sys_entry_t *e)
{
    if (!e->initialized) {
        e->initialized = true;
        if (e->desc.init)
            e->desc.init(w, e->desc.user);
    }
}

static void call_shutdown(ze_world_t *w, sys_entry_t *e)
{
    if (e->initialized) {
        e->initialized = false;
        if (e->desc.shutdown)
            e->desc.shutdown(w, e->desc.user);
    }
}

/* Rebuild group g's WorldTick from the world's systems. */
/* Adds the counts of an entry's current call (none: nothing) to *runs
 * and *ns. */
static void fold_counts(ze__systems_t *s, const sys_entry_t *e, uint64_t *runs, uint64_t *ns)
{
    ze_array_t *calls = &s->calls[e->group - 1];
    if (e->call < 0 || (uint32_t)e->call >= calls->count)
        return;
    sys_call_t *c = &ZE_ARRAY_AT(calls, sys_call_t, (uint32_t)e->call);
    *runs += atomic_load_explicit(&c->runs, memory_order_relaxed);
    *ns += atomic_load_explicit(&c->ns, memory_order_relaxed);
}

static void rebuild_group(ze_world_t *w, ze__systems_t *s, uint32_t g)
{
    uint32_t slot = g - 1;
    /* Removed systems of this group shut down first, in reverse order. */
    for (uint32_t i = s->entries.count; i-- > 0;) {
        sys_entry_t *e = entry_at(s, i);
        if (e->group == g && e->removed)
            call_shutdown(w, e);
    }
    if (s->ticks[slot])
        ze_worldtick_destroy(s->ticks[slot]);
    s->ticks[slot] = NULL;
    s->failed[slot] = false;
    s->errors[slot][0] = '\0';
    ze_worldtick_t *t = ze_worldtick_create(w);
    if (!t) {
        s->failed[slot] = true;
        snprintf(s->errors[slot], sizeof s->errors[slot], "out of memory");
        return;
    }
    s->ticks[slot] = t;
    /* the calls' counts go back to their entries before the calls go */
    for (uint32_t i = 0; i < s->entries.count; i++) {
        sys_entry_t *e = entry_at(s, i);
        if (e->group != g)
            continue;
        fold_counts(s, e, &e->runs, &e->ns);
        e->call = -1;
    }
    ze_array_clear(&s->calls[slot]);
    for (uint32_t i = 0; i < s->entries.count; i++) {
        sys_entry_t *e = entry_at(s, i);
        if (e->group != g)
            continue; /* other groups keep their plans and indices */
        e->tick_index = 0;
        if (e->removed)
            continue;
        ze_system_desc_t run = e->desc;
        run.fn = run_system;
        run.user = (void *)(uintptr_t)s->calls[slot].count;
        e->call = (int32_t)s->calls[slot].count;
        sys_call_t call = {.fn = e->desc.fn, .user = e->desc.user};
        atomic_init(&call.runs, 0);
        atomic_init(&call.ns, 0);
        if (ze_array_push(&s->calls[slot], &call) != ZE_OK) {
            s->failed[slot] = true;
            snprintf(s->errors[slot], sizeof s->errors[slot], "out of memory");
            return;
        }
        ze_system_t th = ze_worldtick_add(t, &run);
        e->tick_index = th.id;
        if (th.id && !e->enabled)
            ze__worldtick_set_enabled(t, th, false);
    }
    for (uint32_t i = 0; i < s->edges.count; i++) {
        const sys_edge_t *edge = &ZE_ARRAY_AT(&s->edges, sys_edge_t, i);
        sys_entry_t *a = entry_at(s, edge->before), *b = entry_at(s, edge->after);
        if (a->group == g && !a->removed && !b->removed && a->tick_index && b->tick_index)
            ze_worldtick_order(t, (ze_system_t){a->tick_index}, (ze_system_t){b->tick_index});
    }
    ze_result cr = ze_worldtick_commit(t);
    if (cr != ZE_OK) {
        s->failed[slot] = true;
        s->fail_code[slot] = cr;
        snprintf(s->errors[slot], sizeof s->errors[slot], "%s", ze_worldtick_error(t));
        ze_world_report(w, ZE_LOG_ERROR, cr, "%s systems do not run: %s", ze_system_group_name(g),
                        s->errors[slot]);
        return;
    }
    /* init callbacks of new systems in plan order */
    const uint32_t *order;
    uint32_t n = ze__worldtick_plan(t, &order);
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t i = 0; i < s->entries.count; i++) {
            sys_entry_t *e = entry_at(s, i);
            if (e->group == g && !e->removed && e->tick_index == order[k] + 1)
                call_init(w, e);
        }
    }
}

static void apply_pending(ze_world_t *w, ze__systems_t *s)
{
    for (uint32_t g = 1; g < ZE_GROUP_END; g++) {
        if (s->dirty[g - 1]) {
            s->dirty[g - 1] = false;
            rebuild_group(w, s, g);
        }
    }
}

ze_result ze_world_plan_systems(ze_world_t *w)
{
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    ze__systems_t *s = w->systems;
    if (!s)
        return ZE_OK;
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                               "ze_world_plan_systems during an iteration or a wave");
    apply_pending(w, s);
    for (uint32_t g = 0; g < G_COUNT; g++)
        if (s->failed[g])
            return s->fail_code[g] != ZE_OK ? s->fail_code[g] : ZE_ERR_CONFLICT;
    return ZE_OK;
}

void ze__systems_fini(ze_world_t *w)
{
    ze__systems_t *s = w->systems;
    if (!s)
        return;
    /* shutdown in reverse plan order, groups last to first */
    for (uint32_t g = ZE_GROUP_END - 1; g >= 1; g--) {
        ze_worldtick_t *t = s->ticks[g - 1];
        const uint32_t *order = NULL;
        uint32_t n = t ? ze__worldtick_plan(t, &order) : 0;
        for (uint32_t k = n; k-- > 0;)
            for (uint32_t i = 0; i < s->entries.count; i++) {
                sys_entry_t *e = entry_at(s, i);
                if (e->group == g && e->tick_index == order[k] + 1)
                    call_shutdown(w, e);
            }
        for (uint32_t i = s->entries.count; i-- > 0;) /* any not in a plan */
            if (entry_at(s, i)->group == g)
                call_shutdown(w, entry_at(s, i));
        if (t)
            ze_worldtick_destroy(t);
    }
    ze_commands_destroy(s->ui_deferred);
    ze_array_free(&s->entries);
    ze_array_free(&s->edges);
    for (uint32_t g = 0; g < G_COUNT; g++)
        ze_array_free(&s->calls[g]);
    ze_free(w->alloc, s, sizeof *s);
    w->systems = NULL;
}

/* ----------------------------------------------------------- running */

static uint64_t now_ns(const ze_world_t *w)
{
    return ze_world_now_ns(w);
}

static ze_result run_group(ze_world_t *w, uint32_t g, double dt, float alpha)
{
    ze__systems_t *s = w->systems;
    if (!s)
        return ZE_OK;
    uint32_t slot = g - 1;
    ze_result r = ZE_OK;
    uint64_t t0 = now_ns(w);
    ze_worldtick_t *t = s->ticks[slot];
    ze_commands_t *main = NULL;
    if (t && !s->failed[slot]) {
        bool late = g == ZE_GROUP_FRAME_VIEW || g == ZE_GROUP_FRAME_UI;
        ze__worldtick_set_context(t, late ? alpha : 0.0f, g, s->frame);
        uint8_t outer_writes = w->group_writes, outer_group = w->running_group;
        w->group_writes = g_group_writes[g];
        w->running_group = (uint8_t)g;
        r = ze__worldtick_run_ex(t, (float)dt, &main);
        w->group_writes = outer_writes;
        w->running_group = outer_group;
    }
    /* The barrier. */
    ze_result f = ZE_OK;
    switch (g) {
    case ZE_GROUP_FRAME_INPUT:
        /* last frame's FrameUI commands first: they were recorded earlier */
        if (ze_commands_count(s->ui_deferred))
            f = ze_commands_flush(s->ui_deferred);
        if (main) {
            ze_result m = ze_commands_flush(main);
            f = f != ZE_OK ? f : m;
        }
        break;
    case ZE_GROUP_FRAME_SYNC:
    case ZE_GROUP_FRAME_VIEW:
        if (main)
            f = ze__commands_flush_ex(main, ZE__FLUSH_VALUES_ONLY | ZE__FLUSH_NEVER_STOP);
        break;
    case ZE_GROUP_FRAME_UI:
        if (main && ze_commands_count(main))
            f = ze_commands_merge(s->ui_deferred, main);
        break;
    default:
        if (main)
            f = ze_commands_flush(main);
        break;
    }
    /* Bindings: the rows the group's systems and commands wrote (their
     * versions), in storage order after the notes of direct sets. */
    if (w->watched_count)
        ze__bindings_scan(w);
    /* The barrier settles the destroys its commands (or the systems)
     * deferred: one bulk pass, before the next group's queries. */
    ze__world_settle(w);
    s->seconds[slot] += (double)(now_ns(w) - t0) * 1e-9;
    return r != ZE_OK ? r : f;
}

static void keep_first(ze_result *first, ze_result r)
{
    if (*first == ZE_OK && r != ZE_OK)
        *first = r;
}

ze_result ze_world_begin_frame(ze_world_t *w, double dt)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE, "begin_frame during iteration or a wave");
        return ZE_ERR_STATE;
    }
    w->started = true; /* seals the world's service scope, and the kernel's */
    w->scope.sealed = true;
    w->kernel->scope.sealed = true;
    ze__versions_rebase_if_due(w);
    ze__systems_t *s = systems_of(w);
    if (!s)
        return ZE_ERR_OUT_OF_MEMORY;
    s->frame++;
    memset(s->seconds, 0, sizeof s->seconds);
    apply_pending(w, s);
    ze_result first = ZE_OK;
    for (uint32_t g = 0; g < G_COUNT; g++)
        if (s->failed[g])
            keep_first(&first, ZE_ERR_CONFLICT);
    ze_message_pump(w);
    keep_first(&first, run_group(w, ZE_GROUP_FRAME_INPUT, dt, 0.0f));
    keep_first(&first, run_group(w, ZE_GROUP_FRAME_SYNC, dt, 0.0f));
    return first;
}

ze_result ze_world_fixed_step(ze_world_t *w, double fixed_dt)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    if (!isfinite(fixed_dt) || fixed_dt <= 0.0) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                        "fixed step of %g s refused (must be positive)", fixed_dt);
        return ZE_ERR_INVALID_ARG;
    }
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return ZE_ERR_STATE;
    ze_transforms_snapshot(w); /* previous_position <- position, for interpolation */
    ze_result first = ZE_OK;
    for (uint32_t g = ZE_GROUP_FIXED_INPUT; g <= ZE_GROUP_FIXED_POST; g++)
        keep_first(&first, run_group(w, g, fixed_dt, 0.0f));
    ze_actors_tick(w, (float)fixed_dt);
    return first;
}

ze_result ze_world_late_frame(ze_world_t *w, double dt, float alpha)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(w, ZE_ERR_INVALID_ARG);
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return ZE_ERR_STATE;
    ze_result first = ZE_OK;
    keep_first(&first, run_group(w, ZE_GROUP_FRAME_VIEW, dt, alpha));
    keep_first(&first, run_group(w, ZE_GROUP_FRAME_UI, dt, alpha));
    ze_bindings_apply(w);
    return first;
}

/* ----------------------------------------------------- kernel frame */

ze_result ze_kernel_set_fixed_step(ze_kernel_t *k, double fixed_dt, uint32_t max_substeps)
{
    if (!k || !isfinite(fixed_dt) || fixed_dt <= 0.0 || fixed_dt > ZE__FIXED_DT_MAX ||
        max_substeps == 0) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                          "fixed step %g s with %u sub-steps refused: the step must be "
                          "positive, at most %g s, and at least one sub-step allowed",
                          fixed_dt, max_substeps, ZE__FIXED_DT_MAX);
        return ZE_ERR_INVALID_ARG;
    }
    k->fixed_dt = fixed_dt;
    k->max_substeps = max_substeps;
    ze__fixed_clock_set_step(k, fixed_dt);
    return ZE_OK;
}

double ze_kernel_fixed_dt(const ze_kernel_t *k)
{
    return k->fixed_dt;
}

ze_frame_stats_t ze_kernel_frame_stats(const ze_kernel_t *k)
{
    return k->stats;
}

ze_result ze_kernel_begin_frame(ze_kernel_t *k, double dt)
{
    ZE__ECS_THREAD_CHECK();
    ze_result first = ZE_OK;
    k->stats.frame++;
    for (uint32_t i = 0; i < k->world_count; i++)
        keep_first(&first, ze_world_begin_frame(k->worlds[i], dt));
    return first;
}

ze_result ze_kernel_fixed_step(ze_kernel_t *k)
{
    ZE__ECS_THREAD_CHECK();
    ze_result first = ZE_OK;
    k->stats.fixed_steps++;
    for (uint32_t i = 0; i < k->world_count; i++)
        keep_first(&first, ze_world_fixed_step(k->worlds[i], k->fixed_dt));
    return first;
}

ze_result ze_kernel_late_frame(ze_kernel_t *k, double dt, float alpha)
{
    ZE__ECS_THREAD_CHECK();
    ze_result first = ZE_OK;
    for (uint32_t i = 0; i < k->world_count; i++)
        keep_first(&first, ze_world_late_frame(k->worlds[i], dt, alpha));
    return first;
}

ze_result ze_kernel_frame(ze_kernel_t *k, double dt)
{
    ZE__ECS_THREAD_CHECK();
    ZE_CHECK(k, ZE_ERR_INVALID_ARG);
    if (!isfinite(dt) || dt < 0.0 || dt > ZE__FRAME_DT_MAX) {
        ze__kernel_report(k, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "kernel frame with dt = %g refused",
                          dt);
        return ZE_ERR_INVALID_ARG;
    }
    ze_result first = ze_kernel_begin_frame(k, dt);
    /* The accumulator (kernel.c) counts exact units, so whole multiples of
     * the step are whole steps and alpha stays below 1. */
    ze__fixed_advance_t adv = ze__fixed_clock_advance(k, dt);
    for (uint32_t i = 0; i < adv.steps; i++)
        keep_first(&first, ze_kernel_fixed_step(k));
    k->stats.substeps = adv.steps;
    k->stats.alpha = adv.alpha;
    k->stats.dropped_seconds = adv.dropped_seconds;
    k->stats.dropped_total += adv.dropped_seconds;
    keep_first(&first, ze_kernel_late_frame(k, dt, adv.alpha));
    return first;
}

/* ------------------------------------------------------------ profiling */

uint32_t ze_world_systems(const ze_world_t *w, ze_system_info_t *out, uint32_t cap)
{
    ze__systems_t *s = w ? w->systems : NULL;
    if (!s)
        return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->entries.count; i++) {
        sys_entry_t *e = entry_at(s, i);
        if (e->removed)
            continue;
        if (n < cap && out) {
            uint64_t runs = e->runs, ns = e->ns;
            fold_counts(s, e, &runs, &ns);
            out[n] = (ze_system_info_t){.name = e->name,
                                        .group = (ze_system_group)e->group,
                                        .enabled = e->enabled,
                                        .runs = runs,
                                        .seconds = (double)ns * 1e-9};
        }
        n++;
    }
    return n;
}
