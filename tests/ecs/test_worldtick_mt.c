/* WorldTick on the job pool: parallel waves give the same world as a serial
 * run (world hash, spawned ids), staging buffers merge deterministically
 * across runs, structural calls inside a parallel wave are refused, and a
 * wide wave of writers under load. Runs under ThreadSanitizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ecs/ecs_internal.h"

/* Sizes: the whole file runs in well under a second under TSan. */

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;
typedef struct Health {
    int32_t hp;
} Health;
typedef struct Mass {
    float m;
} Mass;
typedef struct Score {
    int64_t points;
} Score;

static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Health);
static ZE_COMPONENT_DECLARE(Mass);
static ZE_COMPONENT_DECLARE(Score);

typedef struct fx_t {
    ze_kernel_t *k;
} fx_t;

static void register_components(ze_kernel_t *k)
{
    ZE_COMPONENT_DEFINE(k, Position);
    ZE_COMPONENT_DEFINE(k, Velocity);
    ZE_COMPONENT_DEFINE(k, Health);
    ZE_COMPONENT_DEFINE(k, Mass);
    ZE_COMPONENT_DEFINE(k, Score);
}

static int setup(void **state)
{
    static fx_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    register_components(f.k);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

/* ------------------------------------------------------------ a scenario */

enum { MAX_SPAWNS = 1 << 14 };

/* Per world: what the spawn callbacks saw (main thread, at flush). */
typedef struct sim_t {
    ze_world_t *w;
    ze_worldtick_t *t;
    ze_entity_t spawned[MAX_SPAWNS];
    uint32_t spawned_count;
    uint32_t destroyed;
} sim_t;

static void on_spawn(ze_world_t *w, ze_entity_t e, void *user)
{
    (void)w;
    sim_t *s = user;
    if (s->spawned_count < MAX_SPAWNS)
        s->spawned[s->spawned_count] = e;
    s->spawned_count++;
}

/* Position += Velocity * dt; bouncing at |x| > 50 spawns a particle. */
static void sys_move(ze_world_t *w, const ze_tick_t *t)
{
    sim_t *s = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        const Velocity *v = ze_field(&it, Velocity);
        for (uint32_t i = 0; i < it.count; i++) {
            p[i].x += v[i].x * t->dt;
            p[i].y += v[i].y * t->dt;
            if (p[i].x > 50 || p[i].x < -50) {
                ze_entity_t e = ze_iter_entity(&it, i);
                ze_cmd_set_t(t->cmds, e, Velocity, {-v[i].x, v[i].y});
                ze_entity_t q = ze_cmd_spawn(t->cmds, on_spawn, s);
                ze_cmd_set_t(t->cmds, q, Position, {p[i].x, p[i].y});
                ze_cmd_set_t(t->cmds, q, Health, {5});
            }
        }
    }
}

/* Health decays; at zero the entity is destroyed and leaves some Mass. */
static void sys_decay(ze_world_t *w, const ze_tick_t *t)
{
    sim_t *s = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Health *h = ze_field(&it, Health);
        for (uint32_t i = 0; i < it.count; i++) {
            ze_entity_t e = ze_iter_entity(&it, i);
            h[i].hp -= 1 + (int32_t)(ze_entity_index(e) % 3);
            if (h[i].hp <= 0) {
                ze_cmd_destroy(t->cmds, e);
                ze_cmd_destroy(t->cmds, e); /* deduplicated */
                ze_entity_t q = ze_cmd_spawn(t->cmds, on_spawn, s);
                ze_cmd_set_t(t->cmds, q, Mass, {(float)(ze_entity_index(e) % 5)});
            }
        }
    }
}

/* Mass grows; heavy entities lose it and get Health instead. */
static void sys_grow(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Mass *m = ze_field(&it, Mass);
        for (uint32_t i = 0; i < it.count; i++) {
            m[i].m = m[i].m * 1.05f + 0.01f;
            if (m[i].m > 6) {
                ze_entity_t e = ze_iter_entity(&it, i);
                ze_cmd_remove(t->cmds, e, ZE_ID(Mass));
                ze_cmd_set_t(t->cmds, e, Health, {(int32_t)m[i].m * 3});
            }
        }
    }
}

/* Score from Health and Mass: written in place, or added by command. */
static void sys_score(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        const Health *h = ze_field(&it, Health);
        const Mass *m = ze_field(&it, Mass);
        Score *sc = ze_field(&it, Score);
        for (uint32_t i = 0; i < it.count; i++) {
            int64_t add = h[i].hp + (int64_t)(m[i].m * 10);
            if (sc)
                sc[i].points += add;
            else
                ze_cmd_set_t(t->cmds, ze_iter_entity(&it, i), Score, {add});
        }
    }
}

static void sim_populate(ze_world_t *w, uint32_t n)
{
    ze_rng_t rng;
    ze_rng_seed(&rng, 1234);
    for (uint32_t i = 0; i < n; i++) {
        ze_entity_t e = ze_entity_create(w);
        ze_set(w, e, Position, {(float)(i % 100) - 50, (float)i});
        ze_set(w, e, Velocity, {(float)ze_rng_unit(&rng) * 40 - 20, 1});
        if (i % 3)
            ze_set(w, e, Health, {20 + (int32_t)(i % 50)});
        if (i % 4)
            ze_set(w, e, Mass, {1 + (float)(i % 7) * 0.5f});
    }
}

/* serial: every pair ordered (a chain in registration order), so every
 * wave has one system and runs inline. Otherwise only the conflicts are
 * ordered: {move, decay, grow} then {score}. */
static void sim_init(sim_t *s, ze_kernel_t *k, bool serial, uint32_t n)
{
    memset(s, 0, sizeof *s);
    s->w = ze_world_create(k, &(ze_world_desc_t){.capacity = 1u << 16});
    assert_non_null(s->w);
    sim_populate(s->w, n);
    s->t = ze_worldtick_create(s->w);
    ze_system_t move = ze_worldtick_add(s->t, &(ze_system_desc_t){.name = "move",
                                                                  .fn = sys_move,
                                                                  .user = s,
                                                                  .reads = ZE_MASK(Velocity),
                                                                  .writes = ZE_MASK(Position),
                                                                  .uses_commands = true});
    ze_system_t decay = ze_worldtick_add(s->t, &(ze_system_desc_t){.name = "decay",
                                                                   .fn = sys_decay,
                                                                   .user = s,
                                                                   .writes = ZE_MASK(Health),
                                                                   .uses_commands = true});
    ze_system_t grow = ze_worldtick_add(s->t, &(ze_system_desc_t){.name = "grow",
                                                                  .fn = sys_grow,
                                                                  .user = s,
                                                                  .writes = ZE_MASK(Mass),
                                                                  .uses_commands = true});
    ze_system_t score =
        ze_worldtick_add(s->t, &(ze_system_desc_t){.name = "score",
                                                   .fn = sys_score,
                                                   .user = s,
                                                   .reads = ZE_MASK(Health, Mass),
                                                   .writes = ZE_MASK(Score),
                                                   .uses_commands = true,
                                                   .query = {.with = ZE_MASK(Health, Mass),
                                                             .optional = ZE_MASK(Score),
                                                             .write = ZE_MASK(Score)}});
    assert_true(move.id && decay.id && grow.id && score.id);
    if (serial) {
        ze_worldtick_order(s->t, move, decay);
        ze_worldtick_order(s->t, decay, grow);
        ze_worldtick_order(s->t, grow, score);
    } else {
        ze_worldtick_order(s->t, decay, score);
        ze_worldtick_order(s->t, grow, score);
    }
    assert_int_equal(ze_worldtick_commit(s->t), ZE_OK);
    assert_int_equal(ze_worldtick_wave_count(s->t), serial ? 4 : 2);
}

static void sim_fini(sim_t *s)
{
    ze_worldtick_destroy(s->t);
    ze_world_destroy(s->w);
}

static void test_parallel_equals_serial(void **state)
{
    fx_t *f = *state;
    static sim_t par, ser;
    uint32_t n = 3000;
    sim_init(&par, f->k, false, n);
    sim_init(&ser, f->k, true, n);
    assert_int_equal(ze_world_hash(par.w), ze_world_hash(ser.w));
    uint64_t start = ze_world_hash(par.w);
    for (int tick = 0; tick < 40; tick++) {
        assert_int_equal(ze_worldtick_run(par.t, 0.1f), ZE_OK);
        assert_int_equal(ze_worldtick_run(ser.t, 0.1f), ZE_OK);
        assert_int_equal(ze_world_entity_count(par.w), ze_world_entity_count(ser.w));
        assert_int_equal(ze_world_hash(par.w), ze_world_hash(ser.w));
    }
    /* The scenario did exercise commands. */
    assert_int_not_equal(ze_world_hash(par.w), start);
    assert_true(par.spawned_count > 100);
    assert_int_equal(par.spawned_count, ser.spawned_count);
    uint32_t shown = ZE_MIN(par.spawned_count, (uint32_t)MAX_SPAWNS);
    for (uint32_t i = 0; i < shown; i++)
        assert_true(ze_entity_eq(par.spawned[i], ser.spawned[i]));
    assert_true(ze_component_population(par.w, ZE_ID(Score)) > 0);
    sim_fini(&par);
    sim_fini(&ser);
}

static void test_parallel_runs_are_deterministic(void **state)
{
    (void)state;
    /* Two runs in fresh kernels (own job systems, own thread timing). */
    static sim_t runs[2];
    uint64_t hashes[2];
    for (int r = 0; r < 2; r++) {
        ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
        register_components(k);
        sim_init(&runs[r], k, false, 2000);
        for (int tick = 0; tick < 30; tick++)
            assert_int_equal(ze_worldtick_run(runs[r].t, 0.1f), ZE_OK);
        hashes[r] = ze_world_hash(runs[r].w);
        sim_fini(&runs[r]);
        ze_kernel_destroy(k);
    }
    assert_true(hashes[0] == hashes[1]);
    assert_true(runs[0].spawned_count > 50);
    assert_int_equal(runs[0].spawned_count, runs[1].spawned_count);
    uint32_t shown = ZE_MIN(runs[0].spawned_count, (uint32_t)MAX_SPAWNS);
    for (uint32_t i = 0; i < shown; i++)
        assert_true(ze_entity_eq(runs[0].spawned[i], runs[1].spawned[i]));
}

/* ----------------------------------------- structural calls are refused */

typedef struct refusal_t {
    ze_entity_t target;
    bool create_null, add_null;
    ze_result destroy, set_absent, remove, flush_own, flush_world, set_present;
    bool ran;
} refusal_t;

static void sys_structural(ze_world_t *w, const ze_tick_t *t)
{
    refusal_t *r = t->user;
    r->ran = true;
    r->create_null = ze_entity_is_null(ze_entity_create(w));
    r->destroy = ze_entity_destroy(w, r->target);
    r->add_null = ze_add(w, r->target, Velocity) == NULL;
    r->set_absent = ze_set(w, r->target, Health, {1});
    r->remove = ze_remove(w, r->target, Position);
    ze_cmd_add(t->cmds, r->target, ZE_ID(Mass));
    r->flush_own = ze_commands_flush(t->cmds);
    r->flush_world = ze_commands_flush(ze_world_commands(w));
    /* A value write of a component it already has is no structural change. */
    r->set_present = ze_set(w, r->target, Position, {9, 9});
}

static void sys_structural_b(ze_world_t *w, const ze_tick_t *t)
{
    refusal_t *r = t->user;
    r->ran = true;
    r->create_null = ze_entity_is_null(ze_entity_create(w));
    r->destroy = ze_entity_destroy(w, r->target);
    r->set_absent = ze_set(w, r->target, Velocity, {1, 1});
    r->remove = ze_remove(w, r->target, Mass);
    ze_cmd_add(t->cmds, r->target, ZE_ID(Score));
    r->flush_own = ze_commands_flush(t->cmds);
    r->flush_world = ze_commands_flush(ze_world_commands(w));
    r->set_present = ze_set(w, r->target, Mass, {9});
}

static void test_structural_calls_refused_in_parallel_wave(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    ze_set(w, a, Position, {0, 0});
    ze_set(w, b, Mass, {0});
    refusal_t ra = {.target = a}, rb = {.target = b};
    ze_worldtick_t *t = ze_worldtick_create(w);
    /* Disjoint masks: one wave of two, on the pool. */
    ze_worldtick_add(t, &(ze_system_desc_t){.name = "a",
                                            .fn = sys_structural,
                                            .user = &ra,
                                            .writes = ZE_MASK(Position),
                                            .uses_commands = true});
    ze_worldtick_add(t, &(ze_system_desc_t){.name = "b",
                                            .fn = sys_structural_b,
                                            .user = &rb,
                                            .writes = ZE_MASK(Mass),
                                            .uses_commands = true});
    assert_int_equal(ze_worldtick_commit(t), ZE_OK);
    assert_int_equal(ze_worldtick_wave_count(t), 1);
    assert_int_equal(ze_worldtick_run(t, 0), ZE_OK);

    refusal_t *rs[2] = {&ra, &rb};
    for (int i = 0; i < 2; i++) {
        refusal_t *r = rs[i];
        assert_true(r->ran);
        assert_true(r->create_null);
        assert_int_equal(r->destroy, ZE_ERR_STATE);
        assert_int_equal(r->set_absent, ZE_ERR_STATE);
        assert_int_equal(r->remove, ZE_ERR_STATE);
        assert_int_equal(r->flush_own, ZE_ERR_STATE);
        assert_int_equal(r->flush_world, ZE_ERR_STATE);
        assert_int_equal(r->set_present, ZE_OK);
    }
    assert_true(ra.add_null);
    /* Nothing structural happened, except the commands, after the wave. */
    assert_int_equal(ze_world_entity_count(w), 2);
    assert_true(ze_mask_eq(ze_entity_mask(w, a), ZE_MASK(Position, Mass)));
    assert_true(ze_mask_eq(ze_entity_mask(w, b), ZE_MASK(Mass, Score)));
    assert_true(ze_get(w, a, Position)->x == 9);
    assert_true(ze_get(w, b, Mass)->m == 9);
    /* After the tick structural calls work again. */
    ze_entity_t c = ze_entity_create(w);
    assert_false(ze_entity_is_null(c));
    assert_int_equal(ze_set(w, c, Health, {1}), ZE_OK);
    ze_worldtick_destroy(t);
    ze_world_destroy(w);
}

/* ---------------------------------------------------- a wide busy wave */

typedef struct Lane {
    uint32_t v;
} Lane;

typedef struct lane_ctx_t {
    ze_component_t comp;
    uint32_t salt;
} lane_ctx_t;

/* Each system owns one Lane component: mixes its values and, for some
 * entities, records a set of the next lane's value (applied after the
 * tick) and an occasional spawn. */
static void sys_lane(ze_world_t *w, const ze_tick_t *t)
{
    const lane_ctx_t *c = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Lane *l = ze_iter_field(&it, c->comp);
        for (uint32_t i = 0; i < it.count; i++) {
            /* Enough work per system that the pool's worker joins in. */
            for (int round = 0; round < 32; round++)
                l[i].v = l[i].v * 2654435761u + c->salt;
            if ((l[i].v >> 26) == 0) { /* high bits: the low ones cycle */
                ze_entity_t q = ze_cmd_spawn(t->cmds, NULL, NULL);
                ze_cmd_set(t->cmds, q, c->comp, &(Lane){l[i].v + 0x9e3779b9u});
            }
        }
    }
}

static uint64_t run_lanes(ze_kernel_t *k, ze_component_t *lanes, uint32_t count, bool serial,
                          uint32_t entities, uint32_t ticks)
{
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = 1u << 18});
    for (uint32_t i = 0; i < entities; i++) {
        ze_entity_t e = ze_entity_create(w);
        for (uint32_t l = 0; l < count; l++)
            ze_component_set(w, e, lanes[l], &(Lane){i * 7 + l});
    }
    ze_worldtick_t *t = ze_worldtick_create(w);
    lane_ctx_t ctx[16];
    ze_system_t prev = {0};
    for (uint32_t l = 0; l < count; l++) {
        char name[16];
        snprintf(name, sizeof name, "lane%u", l);
        ctx[l] = (lane_ctx_t){lanes[l], l * 2 + 1};
        ze_system_t s = ze_worldtick_add(t, &(ze_system_desc_t){.name = name,
                                                                .fn = sys_lane,
                                                                .user = &ctx[l],
                                                                .writes = ze_mask_of(lanes[l]),
                                                                .uses_commands = true});
        if (serial && prev.id)
            ze_worldtick_order(t, prev, s);
        prev = s;
    }
    assert_int_equal(ze_worldtick_commit(t), ZE_OK);
    assert_int_equal(ze_worldtick_wave_count(t), serial ? count : 1);
    for (uint32_t i = 0; i < ticks; i++)
        assert_int_equal(ze_worldtick_run(t, 0), ZE_OK);
    uint64_t h = ze_world_hash(w);
    assert_true(ze_world_entity_count(w) > entities); /* spawns happened */
    ze_worldtick_destroy(t);
    ze_world_destroy(w);
    return h;
}

static void test_wide_wave_under_load(void **state)
{
    fx_t *f = *state;
    enum { LANES = 8 };
    ze_component_t lanes[LANES];
    for (uint32_t l = 0; l < LANES; l++) {
        char name[16];
        snprintf(name, sizeof name, "Lane%u", l);
        assert_int_equal(
            ze_component_register(f->k, &(ze_component_desc_t){.name = name, .size = sizeof(Lane)},
                                  &lanes[l]),
            ZE_OK);
    }
    uint32_t entities = 2000, ticks = 60;
    uint64_t par = run_lanes(f->k, lanes, LANES, false, entities, ticks);
    uint64_t par2 = run_lanes(f->k, lanes, LANES, false, entities, ticks);
    uint64_t ser = run_lanes(f->k, lanes, LANES, true, entities, ticks);
    assert_true(par == par2);
    assert_true(par == ser);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parallel_equals_serial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parallel_runs_are_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_structural_calls_refused_in_parallel_wave, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_wide_wave_under_load, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
