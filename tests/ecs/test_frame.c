/* The framework's frame: fixed-step accumulator (counts, clamp, alpha,
 * exact steps of 1/60 s, no drift, bad steps refused), the eight groups and
 * their write policy (commands and direct calls), system add/remove/enable
 * timing, init/shutdown order, validators and permissions, services, world
 * lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "ecs/ecs_log_capture.h"
#include "zengine/ecs.h"
#include "ecs/ecs_internal.h"

typedef struct Position {
    float x, y;
} Position;
typedef struct Health {
    int hp;
} Health;

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
} fx_t;

static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Health);

static int setup(void **state)
{
    static fx_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = 0.01, .max_substeps = 5});
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.name = "main", .capacity = 4096});
    ZE_COMPONENT_DEFINE(f.k, Position);
    ZE_COMPONENT_DEFINE(f.k, Health);
    *state = &f;
    return f.w ? 0 : -1;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

/* ------------------------------------------------------ accumulator */

typedef struct counter_t {
    int runs[ZE_GROUP_END];
    float last_alpha;
    float last_dt;
    uint64_t last_frame;
} counter_t;

static void count_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    counter_t *c = t->user;
    c->runs[t->group]++;
    c->last_alpha = t->alpha;
    c->last_dt = t->dt;
    c->last_frame = t->frame;
}

static void test_fixed_step_counts_clamp_alpha(void **state)
{
    fx_t *f = *state;
    counter_t c = {0};
    ze_system_add(
        f->w, &(ze_system_desc_t){
                  .name = "sim", .fn = count_fn, .user = &c, .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_add(f->w,
                  &(ze_system_desc_t){
                      .name = "view", .fn = count_fn, .user = &c, .group = ZE_GROUP_FRAME_VIEW});
    /* dt sequence -> expected fixed steps with fixed_dt = 0.01 */
    const double dts[] = {0.01, 0.015, 0.005, 0.0, 0.034, 0.5};
    const uint32_t steps[] = {1, 1, 1, 0, 3, 5};
    int total = 0;
    for (size_t i = 0; i < ZE_COUNTOF(dts); i++) {
        assert_int_equal(ze_kernel_frame(f->k, dts[i]), ZE_OK);
        ze_frame_stats_t st = ze_kernel_frame_stats(f->k);
        assert_int_equal(st.substeps, steps[i]);
        total += (int)steps[i];
        assert_int_equal(c.runs[ZE_GROUP_FIXED_SIMULATION], total);
        assert_true(st.alpha >= 0.0f && st.alpha < 1.0f);
        assert_true(fabsf(c.last_alpha - st.alpha) < 1e-6f); /* alpha reaches FrameView */
    }
    /* after 0.034: 0.004 left -> alpha 0.4; after 0.5: 0.504 -> 5 steps run,
     * 0.454 left, clamped to 0.004 (0.45 dropped) */
    ze_frame_stats_t st = ze_kernel_frame_stats(f->k);
    assert_true(fabs(st.dropped_seconds - 0.45) < 1e-9);
    assert_true(fabsf(st.alpha - 0.4f) < 1e-4f);
    assert_int_equal(st.frame, ZE_COUNTOF(dts));
    assert_int_equal(c.runs[ZE_GROUP_FRAME_VIEW], (int)ZE_COUNTOF(dts));
    assert_true(fabsf(c.last_dt - 0.5f) < 1e-6f); /* FrameView gets the raw dt */
    /* refused inputs */
    assert_int_equal(ze_kernel_frame(f->k, -1.0), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_kernel_frame(f->k, NAN), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_kernel_set_fixed_step(f->k, 0.0, 5), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_kernel_set_fixed_step(f->k, -0.1, 5), ZE_ERR_INVALID_ARG);
    assert_null(ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = -1}));
    assert_true(ze_kernel_fixed_dt(f->k) == 0.01);
}

/* With a 1/60 s step (not a whole number of nanoseconds), whole multiples of
 * the step are whole steps: no step lost or gained to rounding, nothing
 * dropped that was not beyond max_substeps, alpha always in [0, 1). Each
 * row is a sequence of frames on a fresh kernel; the expectations are for
 * the last frame. */
typedef struct step_case_t {
    double dts[4];
    uint32_t frames;
    uint32_t steps;
    double dropped;
    float alpha;
} step_case_t;

static void test_fixed_step_exact_for_sixtieths(void **state)
{
    (void)state;
    const double s = 1.0 / 60.0;
    const step_case_t cases[] = {
        {{s}, 1, 1, 0, 0},
        {{2 * s}, 1, 2, 0, 0},
        {{5 * s}, 1, 5, 0, 0},
        {{0.5}, 1, 5, 0.5 - 5 * s, 0}, /* 30 steps due: 5 run, 25 dropped */
        {{0.1}, 1, 5, s, 0},           /* 6 due */
        {{6.5 * s}, 1, 5, s, 0.5f},    /* 6.5 due: the half step is kept */
        {{s / 2, s / 2}, 2, 1, 0, 0},
        {{s / 3, s / 3, s / 3}, 3, 1, 0, 0},
        {{s / 4, s / 4, s / 4, s / 4}, 4, 1, 0, 0},
        {{s / 2}, 1, 0, 0, 0.5f},
        {{s - 1e-9}, 1, 0, 0, 1.0f}, /* just below a step: alpha just below 1 */
        {{s - 1e-9, 1e-9}, 2, 1, 0, 0},
    };
    for (size_t i = 0; i < ZE_COUNTOF(cases); i++) {
        const step_case_t *c = &cases[i];
        ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = s, .max_substeps = 5});
        assert_non_null(k);
        ze_frame_stats_t st = {0};
        for (uint32_t n = 0; n < c->frames; n++) {
            assert_int_equal(ze_kernel_frame(k, c->dts[n]), ZE_OK);
            st = ze_kernel_frame_stats(k);
            assert_true(st.alpha >= 0.0f && st.alpha < 1.0f);
        }
        if (st.substeps != c->steps || fabs(st.dropped_seconds - c->dropped) > 1e-7 ||
            fabsf(st.alpha - c->alpha) > 1e-6f) {
            print_error("case %zu: %u steps, %.9f s dropped, alpha %.9f; want %u, %.9f, %.9f\n", i,
                        st.substeps, st.dropped_seconds, (double)st.alpha, c->steps, c->dropped,
                        (double)c->alpha);
            fail();
        }
        ze_kernel_destroy(k);
    }
}

/* Long runs: frames that add up to whole steps give exactly those steps,
 * and every second of input is accounted for (run, dropped, or the
 * fraction alpha stands for). */
static void test_fixed_step_long_runs_do_not_drift(void **state)
{
    (void)state;
    const double s = 1.0 / 60.0;
    const struct {
        double dt;
        uint32_t frames;
        uint64_t steps;
    } runs[] = {{s / 2, 2000, 1000}, {s, 600, 600}, {s / 3, 3000, 1000}, {1.0 / 144.0, 1440, 600}};
    for (size_t i = 0; i < ZE_COUNTOF(runs); i++) {
        ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = s, .max_substeps = 5});
        assert_non_null(k);
        for (uint32_t n = 0; n < runs[i].frames; n++)
            assert_int_equal(ze_kernel_frame(k, runs[i].dt), ZE_OK);
        ze_frame_stats_t st = ze_kernel_frame_stats(k);
        if (st.fixed_steps != runs[i].steps) {
            print_error("run %zu: %llu steps, want %llu\n", i, (unsigned long long)st.fixed_steps,
                        (unsigned long long)runs[i].steps);
            fail();
        }
        assert_true(st.dropped_total == 0.0);
        ze_kernel_destroy(k);
    }
    /* Irregular frames, some long enough to drop time. */
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = s, .max_substeps = 3});
    assert_non_null(k);
    ze_rng_t rng;
    ze_rng_seed(&rng, 60);
    double total = 0;
    for (int n = 0; n < 5000; n++) {
        double dt = ze_rng_below(&rng, 10) ? ze_rng_unit(&rng) * 0.04 : ze_rng_unit(&rng) * 0.3;
        if (ze_rng_below(&rng, 4) == 0)
            dt = s * (double)ze_rng_below(&rng, 8); /* whole steps, 0 included */
        total += dt;
        assert_int_equal(ze_kernel_frame(k, dt), ZE_OK);
        ze_frame_stats_t st = ze_kernel_frame_stats(k);
        assert_true(st.alpha >= 0.0f && st.alpha < 1.0f);
        assert_true(st.substeps <= 3);
        double accounted = (double)st.fixed_steps * s + st.dropped_total + (double)st.alpha * s;
        if (fabs(accounted - total) > 1e-6) {
            print_error("frame %d: %.9f s accounted for, %.9f s given\n", n, accounted, total);
            fail();
        }
    }
    ze_kernel_destroy(k);
}

static void test_world_fixed_step_refuses_bad_steps(void **state)
{
    fx_t *f = *state;
    counter_t c = {0};
    ze_system_add(f->w, &(ze_system_desc_t){.name = "sim", .fn = count_fn, .user = &c});
    assert_int_equal(ze_world_begin_frame(f->w, 0.0), ZE_OK); /* plans the group */
    const double bad[] = {0.0, -0.01, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++)
        assert_int_equal(ze_world_fixed_step(f->w, bad[i]), ZE_ERR_INVALID_ARG);
    assert_int_equal(c.runs[ZE_GROUP_FIXED_SIMULATION], 0);
    assert_int_equal(ze_world_fixed_step(f->w, 0.01), ZE_OK);
    assert_int_equal(c.runs[ZE_GROUP_FIXED_SIMULATION], 1);
    assert_true(fabsf(c.last_dt - 0.01f) < 1e-7f);
}

/* ------------------------------------------------------ group order */

typedef struct trace_t {
    char log[64][32];
    int n;
} trace_t;

static void trace_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    trace_t *tr = t->user;
    if (tr->n < 64)
        snprintf(tr->log[tr->n++], 32, "%s", t->name);
}

static void test_groups_run_in_seed_order(void **state)
{
    fx_t *f = *state;
    trace_t tr = {0};
    static const struct {
        const char *name;
        ze_system_group g;
    } sys[] = {{"ui", ZE_GROUP_FRAME_UI},           {"view", ZE_GROUP_FRAME_VIEW},
               {"post", ZE_GROUP_FIXED_POST},       {"sim", ZE_GROUP_FIXED_SIMULATION},
               {"decide", ZE_GROUP_FIXED_DECISION}, {"fin", ZE_GROUP_FIXED_INPUT},
               {"sync", ZE_GROUP_FRAME_SYNC},       {"input", ZE_GROUP_FRAME_INPUT}};
    for (size_t i = 0; i < ZE_COUNTOF(sys); i++)
        assert_int_not_equal(ze_system_add(f->w, &(ze_system_desc_t){.name = sys[i].name,
                                                                     .fn = trace_fn,
                                                                     .user = &tr,
                                                                     .group = sys[i].g})
                                 .id,
                             0);
    ze_kernel_frame(f->k, 0.01);
    const char *expect[] = {"input", "sync", "fin", "decide", "sim", "post", "view", "ui"};
    assert_int_equal(tr.n, 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(tr.log[i], expect[i]);
    for (int g = ZE_GROUP_FRAME_INPUT; g < ZE_GROUP_END; g++)
        assert_true(ze_world_group_seconds(f->w, (ze_system_group)g) >= 0.0);
    assert_string_equal(ze_system_group_name(ZE_GROUP_FIXED_POST), "FixedPost");
}

/* ---------------------------------------------- add/remove/enable timing */

static void test_add_remove_enable_take_effect_next_frame(void **state)
{
    fx_t *f = *state;
    counter_t c = {0};
    ze_system_t s = ze_system_add(
        f->w,
        &(ze_system_desc_t){.name = "s", .fn = count_fn, .user = &c, .group = ZE_GROUP_FRAME_SYNC});
    assert_int_equal(c.runs[ZE_GROUP_FRAME_SYNC], 0); /* not before the next BeginFrame */
    ze_kernel_frame(f->k, 0.0);
    assert_int_equal(c.runs[ZE_GROUP_FRAME_SYNC], 1);
    assert_int_equal(ze_system_enable(f->w, s, false), ZE_OK);
    ze_kernel_frame(f->k, 0.0);
    assert_int_equal(c.runs[ZE_GROUP_FRAME_SYNC], 1);
    ze_system_enable(f->w, s, true);
    ze_kernel_frame(f->k, 0.0);
    assert_int_equal(c.runs[ZE_GROUP_FRAME_SYNC], 2);
    assert_int_equal(ze_system_remove(f->w, s), ZE_OK);
    ze_kernel_frame(f->k, 0.0);
    assert_int_equal(c.runs[ZE_GROUP_FRAME_SYNC], 2);
    assert_int_equal(ze_system_remove(f->w, s), ZE_ERR_NOT_FOUND);
    /* same name in the same group refused; in another group fine */
    ze_system_add(f->w, &(ze_system_desc_t){.name = "dup", .fn = count_fn, .user = &c});
    assert_int_equal(ze_system_add(f->w, &(ze_system_desc_t){.name = "dup", .fn = count_fn}).id, 0);
    assert_int_not_equal(ze_system_add(f->w, &(ze_system_desc_t){.name = "dup",
                                                                 .fn = count_fn,
                                                                 .user = &c,
                                                                 .group = ZE_GROUP_FIXED_POST})
                             .id,
                         0);
}

typedef struct lifecycle_t {
    char order[16][16];
    int n;
} lifecycle_t;
static lifecycle_t g_life;
static void life_init(ze_world_t *w, void *user)
{
    (void)w;
    snprintf(g_life.order[g_life.n++], 16, "init %s", (const char *)user);
}
static void life_shutdown(ze_world_t *w, void *user)
{
    (void)w;
    snprintf(g_life.order[g_life.n++], 16, "down %s", (const char *)user);
}
static void noop_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w, (void)t;
}

static void sleep_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w, (void)t;
    ze_time_sleep_ns(1000000); /* 1 ms: a lower bound for its reported time */
}

/* ze_world_systems: every system with its runs and time inside its
 * function, kept across the group rebuilds that adding a system causes;
 * removed systems are left out. */
static void test_world_systems_report_runs_and_time(void **state)
{
    fx_t *f = *state;
    counter_t c = {0};
    ze_system_t a = ze_system_add(
        f->w, &(ze_system_desc_t){
                  .name = "count", .fn = count_fn, .user = &c, .group = ZE_GROUP_FRAME_INPUT});
    ze_system_add(
        f->w, &(ze_system_desc_t){.name = "sleep", .fn = sleep_fn, .group = ZE_GROUP_FRAME_SYNC});
    assert_int_equal(ze_world_systems(f->w, NULL, 0), 2);
    for (int i = 0; i < 3; i++)
        ze_kernel_frame(f->k, 0.0);
    /* a third system rebuilds the groups: the counts stay */
    ze_system_t late = ze_system_add(
        f->w, &(ze_system_desc_t){.name = "late", .fn = noop_fn, .group = ZE_GROUP_FRAME_SYNC});
    ze_kernel_frame(f->k, 0.0);
    ze_system_info_t info[4];
    assert_int_equal(ze_world_systems(f->w, info, 4), 3);
    assert_string_equal(info[0].name, "count");
    assert_int_equal(info[0].runs, (uint64_t)c.runs[ZE_GROUP_FRAME_INPUT]);
    assert_int_equal(info[0].runs, 4);
    assert_string_equal(info[1].name, "sleep");
    assert_int_equal(info[1].group, ZE_GROUP_FRAME_SYNC);
    assert_int_equal(info[1].runs, 4);
    assert_true(info[1].seconds >= 4 * 0.001);
    assert_true(info[1].enabled);
    assert_string_equal(info[2].name, "late");
    assert_int_equal(info[2].runs, 1);
    /* disabled: listed, not run; removed: gone; cap respected */
    ze_system_enable(f->w, a, false);
    ze_system_remove(f->w, late);
    ze_kernel_frame(f->k, 0.0);
    memset(info, 0, sizeof info);
    assert_int_equal(ze_world_systems(f->w, info, 1), 2);
    assert_string_equal(info[0].name, "count");
    assert_false(info[0].enabled);
    assert_null(info[1].name);
    assert_int_equal(ze_world_systems(NULL, info, 4), 0);
}

static void test_init_and_shutdown_in_plan_order(void **state)
{
    fx_t *f = *state;
    memset(&g_life, 0, sizeof g_life);
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.name = "life", .capacity = 4096});
    /* b writes Position, a reads it: plan order a? no: b before a by edge */
    ze_system_t a = ze_system_add(w, &(ze_system_desc_t){.name = "a",
                                                         .fn = noop_fn,
                                                         .user = "a",
                                                         .reads = ZE_MASK(Position),
                                                         .init = life_init,
                                                         .shutdown = life_shutdown});
    ze_system_t b = ze_system_add(w, &(ze_system_desc_t){.name = "b",
                                                         .fn = noop_fn,
                                                         .user = "b",
                                                         .writes = ZE_MASK(Position),
                                                         .init = life_init,
                                                         .shutdown = life_shutdown});
    assert_int_equal(ze_system_order(w, b, a), ZE_OK);
    assert_int_equal(g_life.n, 0);
    ze_world_begin_frame(w, 0.0);
    assert_int_equal(g_life.n, 2);
    assert_string_equal(g_life.order[0], "init b");
    assert_string_equal(g_life.order[1], "init a");
    ze_world_destroy(w);
    assert_int_equal(g_life.n, 4);
    assert_string_equal(g_life.order[2], "down a");
    assert_string_equal(g_life.order[3], "down b");
}

static void test_conflict_reported_and_group_skipped(void **state)
{
    fx_t *f = *state;
    counter_t c = {0};
    ze_system_t w1 = ze_system_add(
        f->w,
        &(ze_system_desc_t){.name = "w1", .fn = count_fn, .user = &c, .writes = ZE_MASK(Position)});
    ze_system_t w2 = ze_system_add(
        f->w,
        &(ze_system_desc_t){.name = "w2", .fn = count_fn, .user = &c, .writes = ZE_MASK(Position)});
    assert_int_equal(ze_kernel_frame(f->k, 0.01), ZE_ERR_CONFLICT);
    assert_int_equal(c.runs[ZE_GROUP_FIXED_SIMULATION], 0);
    assert_non_null(strstr(ze__world_plan_error(f->w, ZE_GROUP_FIXED_SIMULATION), "w1"));
    assert_non_null(strstr(ze__world_plan_error(f->w, ZE_GROUP_FIXED_SIMULATION), "w2"));
    ze_system_order(f->w, w1, w2);
    assert_int_equal(ze_kernel_frame(f->k, 0.01), ZE_OK);
    assert_int_equal(c.runs[ZE_GROUP_FIXED_SIMULATION], 2);
    assert_string_equal(ze__world_plan_error(f->w, ZE_GROUP_FIXED_SIMULATION), "");
}

/* ------------------------------------------------------ write policy */

typedef struct policy_t {
    ze_entity_t target;
    int spawned;
} policy_t;

static void structural_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    policy_t *p = t->user;
    ze_cmd_destroy(t->cmds, p->target);
    ze_cmd_spawn(t->cmds, NULL, NULL);
}

static void value_fn(ze_world_t *w, const ze_tick_t *t)
{
    policy_t *p = t->user;
    (void)w;
    ze_cmd_set_t(t->cmds, p->target, Position, {42, 42}); /* exists: a value write */
}

static void test_sync_and_view_may_not_change_structure(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    policy_t p = {.target = ze_entity_create(w)};
    ze_set(w, p.target, Position, {0, 0});
    ze_system_add(w, &(ze_system_desc_t){.name = "sync_struct",
                                         .fn = structural_fn,
                                         .user = &p,
                                         .uses_commands = true,
                                         .group = ZE_GROUP_FRAME_SYNC});
    ze_system_add(w, &(ze_system_desc_t){.name = "view_value",
                                         .fn = value_fn,
                                         .user = &p,
                                         .uses_commands = true,
                                         .writes = ZE_MASK(Position),
                                         .group = ZE_GROUP_FRAME_VIEW});
    uint32_t before = ze_world_entity_count(w);
    assert_int_equal(ze_kernel_frame(f->k, 0.0), ZE_ERR_DENIED);
    assert_true(ze_entity_alive(w, p.target));              /* destroy refused */
    assert_int_equal(ze_world_entity_count(w), before);     /* spawn refused */
    assert_true(ze_get(w, p.target, Position)->x == 42.0f); /* value write allowed */
}

static void ui_fn(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    policy_t *p = t->user;
    ze_cmd_spawn(t->cmds, NULL, NULL);
    p->spawned++;
}

typedef struct input_probe_t {
    uint32_t count_seen;
    int runs;
} input_probe_t;
static void input_probe_fn(ze_world_t *w, const ze_tick_t *t)
{
    input_probe_t *ip = t->user;
    ip->count_seen = ze_world_entity_count(w);
    ip->runs++;
}

static void test_frame_ui_commands_applied_at_next_frame_input_barrier(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    policy_t p = {0};
    input_probe_t ip = {0};
    /* a write mask in FrameUI is refused at add */
    assert_int_equal(ze_system_add(w, &(ze_system_desc_t){.name = "bad_ui",
                                                          .fn = ui_fn,
                                                          .writes = ZE_MASK(Position),
                                                          .group = ZE_GROUP_FRAME_UI})
                         .id,
                     0);
    ze_system_add(w, &(ze_system_desc_t){.name = "ui",
                                         .fn = ui_fn,
                                         .user = &p,
                                         .uses_commands = true,
                                         .group = ZE_GROUP_FRAME_UI});
    ze_system_add(
        w, &(ze_system_desc_t){
               .name = "probe", .fn = input_probe_fn, .user = &ip, .group = ZE_GROUP_FRAME_INPUT});
    uint32_t base = ze_world_entity_count(w);
    ze_kernel_frame(f->k, 0.0);
    assert_int_equal(p.spawned, 1);
    assert_int_equal(ze_world_entity_count(w), base); /* deferred past LateFrame */
    ze_kernel_frame(f->k, 0.0);
    /* FrameInput ran before its barrier: it did not see the spawn yet... */
    assert_int_equal(ip.count_seen, base);
    /* ...and after the barrier it exists. */
    assert_int_equal(ze_world_entity_count(w), base + 1);
}

/* Direct calls from inside systems obey the group's policy like commands
 * do: FrameSync and FrameView may write values only, FrameUI nothing; a
 * refusal returns ZE_ERR_DENIED (NULL, a null entity) and logs an error
 * naming the system and its group. Serial and parallel waves alike; the
 * other groups may do anything. */
typedef struct direct_t {
    ze_entity_t target; /* has Position */
    bool add_refused, create_refused;
    ze_result set_new, set_existing, remove, destroy;
    int runs;
} direct_t;

static void direct_fn(ze_world_t *w, const ze_tick_t *t)
{
    direct_t *d = t->user;
    d->runs++;
    d->add_refused = ze_component_add(w, d->target, ZE_ID(Health)) == NULL;
    d->set_new = ze_set(w, d->target, Health, {5});
    d->set_existing = ze_set(w, d->target, Position, {7, 7});
    d->remove = ze_remove(w, d->target, Position);
    ze_entity_t made = ze_entity_create(w);
    d->create_refused = ze_entity_is_null(made);
    d->destroy = ze_entity_destroy(w, d->target);
}

static void test_direct_writes_obey_the_group_policy(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    static log_capture_t cap;
    log_capture_begin(&cap);
    static const struct {
        const char *name;
        ze_system_group group;
        bool values, structure; /* what the group may do */
    } sys[] = {
        {"sync_direct", ZE_GROUP_FRAME_SYNC, true, false},
        {"view_direct_a", ZE_GROUP_FRAME_VIEW, true, false}, /* a and b: one parallel wave */
        {"view_direct_b", ZE_GROUP_FRAME_VIEW, true, false},
        {"ui_direct", ZE_GROUP_FRAME_UI, false, false},
        {"sim_direct", ZE_GROUP_FIXED_SIMULATION, true, true},
        {"input_direct", ZE_GROUP_FRAME_INPUT, true, true},
    };
    direct_t d[ZE_COUNTOF(sys)];
    for (size_t i = 0; i < ZE_COUNTOF(sys); i++) {
        d[i] = (direct_t){.target = ze_entity_create(w)};
        ze_set(w, d[i].target, Position, {0, 0});
        assert_int_not_equal(ze_system_add(w, &(ze_system_desc_t){.name = sys[i].name,
                                                                  .fn = direct_fn,
                                                                  .user = &d[i],
                                                                  .group = sys[i].group})
                                 .id,
                             0);
    }
    assert_int_equal(ze_kernel_frame(f->k, 0.01), ZE_OK);
    for (size_t i = 0; i < ZE_COUNTOF(sys); i++) {
        const direct_t *r = &d[i];
        const char *group = ze_system_group_name(sys[i].group);
        assert_int_equal(r->runs, 1);
        if (sys[i].structure) {
            assert_false(r->add_refused || r->create_refused);
            assert_int_equal(r->set_new, ZE_OK);
            assert_int_equal(r->set_existing, ZE_OK);
            assert_int_equal(r->remove, ZE_OK);
            assert_int_equal(r->destroy, ZE_OK);
            assert_false(ze_entity_alive(w, r->target));
            assert_false(log_captured(&cap, sys[i].name, group, NULL));
            continue;
        }
        assert_true(r->add_refused && r->create_refused);
        assert_int_equal(r->set_new, ZE_ERR_DENIED);
        assert_int_equal(r->remove, ZE_ERR_DENIED);
        assert_int_equal(r->destroy, ZE_ERR_DENIED);
        assert_int_equal(r->set_existing, sys[i].values ? ZE_OK : ZE_ERR_DENIED);
        /* nothing changed but the allowed value */
        assert_true(ze_entity_alive(w, r->target));
        assert_false(ze_has(w, r->target, Health));
        assert_true(ze_get(w, r->target, Position)->x == (sys[i].values ? 7.0f : 0.0f));
        if (!log_captured(&cap, sys[i].name, group, NULL)) {
            log_capture_print(&cap);
            print_error("no error naming system '%s' and group %s\n", sys[i].name, group);
            fail();
        }
    }
    /* Two frame input entities made, two destroyed: the rest untouched. */
    assert_int_equal(ze_world_entity_count(w), 4 + 2);
    /* Outside the systems, the same calls are fine again. */
    assert_int_equal(ze_set(w, d[0].target, Health, {1}), ZE_OK);
    assert_int_equal(ze_entity_destroy(w, d[0].target), ZE_OK);
}

/* ------------------------------------------------ hooks and validators */

static bool positive_hp(ze_world_t *w, ze_entity_t e, const void *value, void *user)
{
    (void)w, (void)e, (void)user;
    return ((const Health *)value)->hp >= 0;
}
static bool not_locked(ze_world_t *w, ze_entity_t e, ze_component_t c, void *user)
{
    (void)w, (void)c;
    return !ze_entity_eq(e, *(ze_entity_t *)user);
}

static void test_validators_and_permissions(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t locked = ze_entity_create(w), free_e = ze_entity_create(w);
    assert_int_equal(ze_hooks_add_validator(w, ZE_ID(Health), positive_hp, NULL), ZE_OK);
    assert_int_equal(ze_hooks_add_write_permission(w, not_locked, &locked), ZE_OK);
    ze_commands_t *c = ze_commands_create(w);
    /* SKIP policy: refused commands skipped, the rest applied */
    ze_cmd_set_t(c, free_e, Health, {-5});     /* 0: invalid value */
    ze_cmd_set_t(c, locked, Health, {10});     /* 1: not permitted */
    ze_cmd_set_t(c, free_e, Position, {1, 1}); /* 2: fine */
    ze_cmd_set_t(c, free_e, Health, {7});      /* 3: fine */
    assert_int_equal(ze_commands_flush(c), ZE_OK);
    const ze_command_rejection_t *rej;
    assert_int_equal(ze_commands_rejections(c, &rej), 2);
    assert_int_equal(rej[0].command, 0);
    assert_int_equal(rej[0].reason, ZE_ERR_INVALID_ARG);
    assert_int_equal(rej[1].command, 1);
    assert_int_equal(rej[1].reason, ZE_ERR_DENIED);
    assert_true(ze_entity_eq(rej[1].entity, locked));
    assert_int_equal(ze_get(w, free_e, Health)->hp, 7);
    assert_null(ze_get(w, locked, Health));
    assert_non_null(ze_get(w, free_e, Position));

    /* FAIL policy: the flush stops at the refusal; the refused command and
     * the tail stay in the buffer (nothing silently lost) */
    ze_world_set_validation_policy(w, ZE_VALIDATION_FAIL);
    ze_entity_t pending = ze_cmd_spawn(c, NULL, NULL); /* 0: applied */
    ze_cmd_set_t(c, pending, Position, {3, 3});        /* 1: applied */
    ze_cmd_set_t(c, free_e, Health, {-1});             /* 2: refused -> stop */
    ze_cmd_set_t(c, pending, Health, {5});             /* 3: kept */
    ze_cmd_destroy(c, locked);                         /* 4: kept */
    uint32_t before = ze_world_entity_count(w);
    assert_int_equal(ze_commands_flush(c), ZE_ERR_DENIED);
    assert_int_equal(ze_world_entity_count(w), before + 1);
    assert_int_equal(ze_commands_count(c), 3);
    assert_int_equal(ze_get(w, free_e, Health)->hp, 7);
    /* the caller fixes the policy and flushes the rest: the pending handle of
     * the spawn that already ran resolves to the entity it made */
    ze_world_set_validation_policy(w, ZE_VALIDATION_SKIP);
    assert_int_equal(ze_commands_flush(c), ZE_OK);
    assert_int_equal(ze_commands_rejections(c, &rej), 2); /* -1 again, and destroy of locked */
    assert_int_equal(ze_commands_count(c), 0);
    ze_entity_t spawned = ze_entity_from_index(w, ze_entity_index(free_e) + 1);
    assert_false(ze_entity_is_null(spawned));
    assert_int_equal(ze_get(w, spawned, Health)->hp, 5);
    assert_true(ze_get(w, spawned, Position)->x == 3.0f);
    assert_true(ze_entity_alive(w, locked));
    ze_commands_destroy(c);
}

/* ---------------------------------------------------- services, lookup */

static uint64_t fake_clock(void *user)
{
    return *(uint64_t *)user;
}

static void test_services_and_world_lookup(void **state)
{
    (void)state;
    uint64_t now = 12345;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.clock = fake_clock, .clock_user = &now});
    const char *tags_a[] = {"gameplay", "server"}, *tags_b[] = {"ui"};
    ze_world_t *a = ze_world_create(
        k, &(ze_world_desc_t){.name = "a", .capacity = 4096, .tags = tags_a, .tag_count = 2});
    ze_world_t *b = ze_world_create(
        k, &(ze_world_desc_t){.name = "b", .capacity = 4096, .tags = tags_b, .tag_count = 1});
    ze_world_t *c = ze_world_create(
        k, &(ze_world_desc_t){.name = "c", .capacity = 4096, .tags = tags_a, .tag_count = 1});
    assert_int_equal(ze_world_id(a), 1);
    assert_int_equal(ze_world_id(c), 3);
    assert_ptr_equal(ze_kernel_find_world(k, 2), b);
    assert_null(ze_kernel_find_world(k, 9));
    assert_ptr_equal(ze_kernel_find_world_by_name(k, "c"), c);
    ze_world_t *found[4];
    assert_int_equal(ze_kernel_find_worlds_by_tag(k, "gameplay", found, 4), 2);
    assert_ptr_equal(found[0], a);
    assert_ptr_equal(found[1], c);
    assert_int_equal(ze_kernel_find_worlds_by_tag(k, "server", found, 4), 1);
    assert_int_equal(ze_kernel_world_count(k), 3);
    assert_ptr_equal(ze_kernel_world_at(k, 1), b);
    /* services: inherited config, a sealed per-world table */
    assert_ptr_equal(ze_world_services(a)->mem, ze_kernel_mem(k));
    assert_true(ze_world_now_ns(a) == 12345);
    int audio = 7;
    assert_int_equal(ze_world_service_register(a, "audio", &audio), ZE_OK);
    assert_ptr_equal(ze_world_service_get(a, "audio"), &audio);
    assert_null(ze_world_service_get(b, "audio"));
    assert_false(ze_world_started(a));
    ze_kernel_frame(k, 0.0);
    assert_true(ze_world_started(a));
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_world_service_register(a, "late", &audio), ZE_ERR_STATE);
    assert_true(log_captured(&cap, "late", "sealed", NULL)); /* says why */
    ze_world_t *fresh = ze_world_create(k, &(ze_world_desc_t){.name = "fresh", .capacity = 64});
    char long_name[ZE_COMPONENT_NAME_MAX + 8];
    memset(long_name, 's', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(ze_world_service_register(fresh, long_name, &audio), ZE_ERR_INVALID_ARG);
    assert_true(log_captured(&cap, "63", "characters", NULL));
    ze_world_destroy(fresh);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_world_destroy(b);
    assert_null(ze_kernel_find_world(k, 2));
    assert_int_equal(ze_world_id(ze_kernel_world_at(k, 1)), 3); /* creation order kept */
    ze_kernel_destroy(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fixed_step_counts_clamp_alpha, setup, teardown),
        cmocka_unit_test(test_fixed_step_exact_for_sixtieths),
        cmocka_unit_test(test_fixed_step_long_runs_do_not_drift),
        cmocka_unit_test_setup_teardown(test_world_fixed_step_refuses_bad_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_groups_run_in_seed_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_remove_enable_take_effect_next_frame, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_world_systems_report_runs_and_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_and_shutdown_in_plan_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflict_reported_and_group_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_and_view_may_not_change_structure, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_frame_ui_commands_applied_at_next_frame_input_barrier,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_direct_writes_obey_the_group_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validators_and_permissions, setup, teardown),
        cmocka_unit_test(test_services_and_world_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
