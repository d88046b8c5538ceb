/* Change tracking: which rows of a component were written since a version.
 * A static world reports nothing; k writes report exactly k rows, however
 * they were made; versions move with their rows through packs, removals
 * and settles; destroys, adds and removes; a system's `since`; the
 * hierarchy writes only the matrices that change; version wrap-around;
 * and random operation sequences against a reference model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "ecs/ecs_internal.h"

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;

static ZE_COMPONENT_DECLARE(Position); /* tracked from its first add */
static ZE_COMPONENT_DECLARE(Velocity); /* tracked on demand */

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
} fx_t;

static int setup(void **state)
{
    static fx_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    ZE_ID(Position) = ze__component_register_or_invalid(
        f.k, &(ze_component_desc_t){
                 .name = "Position", .size = sizeof(Position), .flags = ZE_COMPONENT_TRACKED});
    ZE_COMPONENT_DEFINE(f.k, Velocity);
    assert_int_not_equal(ZE_ID(Position).id, UINT32_MAX);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.capacity = 1 << 16});
    assert_non_null(f.w);
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

/* The changed rows of c since v, as a bitmap by slot index; checks that
 * each run's values are the entities' values in storage. */
static uint32_t changed_slots(ze_world_t *w, ze_component_t c, uint32_t v, uint8_t *out,
                              uint32_t cap)
{
    memset(out, 0, cap);
    uint32_t n = 0;
    ze_changed_iter_t it = ze_changed_iter(w, c, v);
    while (ze_changed_next(&it)) {
        assert_true(it.count > 0);
        for (uint32_t i = 0; i < it.count; i++) {
            ze_entity_t e = ze_changed_entity(&it, i);
            assert_true(ze_entity_alive(w, e));
            assert_true(ze_component_changed(w, e, c, v));
            assert_ptr_equal((const uint8_t *)it.values + (size_t)i * sizeof(Position),
                             ze_component_get(w, e, c));
            assert_true(it.indices[i] < cap);
            assert_int_equal(out[it.indices[i]], 0); /* each row once */
            out[it.indices[i]] = 1;
            n++;
        }
    }
    assert_int_equal(ze_changed_count(w, c, v), n);
    return n;
}

static ze_entity_t spawn(ze_world_t *w, float x)
{
    ze_entity_t e = ze_entity_create(w);
    assert_int_equal(ze_set(w, e, Position, {x, 0}), ZE_OK);
    return e;
}

static void read_only(ze_world_t *w, const ze_tick_t *t)
{
    float sum = 0;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        const Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++)
            sum += p[i].x;
    }
    *(float *)t->user += sum;
}

/* ------------------------------------------------------------- static */

static void test_static_world_reports_nothing(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 10000 };
    static ze_entity_t e[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i] = spawn(w, (float)i);
        ze_set(w, e[i], ze_transform_t, {.rotation = ZE_QUAT_IDENTITY, .scale = {1, 1, 1}});
        if (i % 3)
            ze_set(w, e[i], ze_parent_t, {e[i / 3]});
    }
    /* Parent is not tracked by default: from now on (a first question
     * would count every row as written at that moment). */
    assert_int_equal(ze_component_track(w, ZE_ID(ze_parent_t)), ZE_OK);
    float sum = 0;
    ze_system_add(w,
                  &(ze_system_desc_t){
                      .name = "reader", .fn = read_only, .user = &sum, .reads = ZE_MASK(Position)});
    ze_system_desc_t h = ze_hierarchy_system_desc();
    h.group = ZE_GROUP_FIXED_POST;
    ze_system_add(w, &h);
    /* Two frames settle the world: matrices computed, previous positions
     * caught up. */
    for (int i = 0; i < 2; i++)
        assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    uint32_t v = ze_world_version(w);
    for (int i = 0; i < 30; i++)
        assert_int_equal(ze_kernel_frame(f->k, 1.0 / 30.0), ZE_OK); /* 2 steps each */
    assert_true(sum > 0);
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 0);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v), 0);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_parent_t), v), 0);
    assert_false(ze_component_changed(w, e[7], ZE_ID(ze_transform_t), v));
    /* One write is seen, by the hierarchy too (its matrix and its
     * children's change). */
    ze_get_mut(w, e[N - 1], ze_transform_t)->position.x = 5; /* a leaf */
    assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v), 1);
    assert_true(ze_get(w, e[N - 1], ze_transform_t)->world.m[3][0] != 0);
}

/* ------------------------------------------------------------ k writes */

static void test_k_writes_report_k_rows(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 20000, K = 777 };
    static ze_entity_t e[N];
    static uint8_t want[1 << 16], got[1 << 16];
    for (uint32_t i = 0; i < N; i++)
        e[i] = spawn(w, (float)i);
    ze_rng_t rng;
    ze_rng_seed(&rng, 42);
    uint32_t v = ze_world_version(w);
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 0);
    memset(want, 0, sizeof want);
    uint32_t k = 0;
    while (k < K) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, N);
        ze_entity_t x = e[i];
        switch (ze_rng_below(&rng, 3)) { /* three ways to write */
        case 0:
            ze_set(w, x, Position, {-1, -1});
            break;
        case 1:
            ze_get_mut(w, x, Position)->y = 3;
            break;
        default:
            assert_int_equal(ze_component_mark_changed(w, x, ZE_ID(Position)), ZE_OK);
            break;
        }
        k += !want[ze_entity_index(x)];
        want[ze_entity_index(x)] = 1; /* a row written twice counts once */
    }
    assert_int_equal(changed_slots(w, ZE_ID(Position), v, got, sizeof got), K);
    assert_memory_equal(got, want, sizeof want);
    /* Reads see nothing new; a later version sees nothing. */
    uint32_t v2 = ze_world_version(w);
    float s = 0;
    for (uint32_t i = 0; i < N; i++)
        s += ze_get(w, e[i], Position)->x +
             ((const Position *)ze_component_get(w, e[i], ZE_ID(Position)))->y;
    assert_true(s != 0);
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v2), 0);
    assert_int_equal(changed_slots(w, ZE_ID(Position), v, got, sizeof got), K);

    /* A query run with Position writable writes exactly its matches: those
     * with Velocity (K of them, fresh), and nobody else. */
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity), .write = ZE_MASK(Position)});
    memset(want, 0, sizeof want);
    for (uint32_t n = 0; n < K;) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, N);
        if (!ze_has(w, e[i], Velocity)) {
            ze_set(w, e[i], Velocity, {1, 1});
            want[ze_entity_index(e[i])] = 1;
            n++;
        }
    }
    uint32_t v3 = ze_world_version(w); /* after the adds (and the pack's moves) */
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v3), 0);
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
    }
    assert_int_equal(changed_slots(w, ZE_ID(Position), v3, got, sizeof got), K);
    assert_memory_equal(got, want, sizeof want);
    /* Velocity was only read, and is tracked from its first question on:
     * every row counts as written then, none after. */
    assert_int_equal(ze_changed_count(w, ZE_ID(Velocity), v3), K);
    uint32_t v4 = ze_world_version(w);
    it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
    }
    assert_int_equal(ze_changed_count(w, ZE_ID(Velocity), v4), 0);
}

/* ------------------------------------------------------- moves and life */

static void test_versions_move_with_rows(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 9000 };
    static ze_entity_t e[N];
    static uint8_t want[1 << 16], got[1 << 16];
    for (uint32_t i = 0; i < N; i++)
        e[i] = spawn(w, (float)i);
    uint32_t v = ze_world_version(w);
    memset(want, 0, sizeof want);
    for (uint32_t i = 0; i < N; i += 7) {
        ze_set(w, e[i], Position, {(float)i, 1});
        want[ze_entity_index(e[i])] = 1;
    }
    /* Moves: a pack sorts rows in, adds in random order swap them, removals
     * move the last row into each hole, deferred destroys settle in bulk. */
    assert_int_equal(ze_pack_create(w, ZE_MASK(Position, Velocity)), ZE_OK);
    ze_rng_t rng;
    ze_rng_seed(&rng, 7);
    for (uint32_t n = 0; n < N / 2; n++) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, N);
        if (!ze_has(w, e[i], Velocity))
            ze_set(w, e[i], Velocity, {0, 0});
    }
    for (uint32_t i = 1; i < N; i += 5) {
        if (ze_has(w, e[i], Velocity))
            ze_remove(w, e[i], Velocity);
    }
    for (uint32_t i = 3; i < N; i += 11) { /* unchanged ones (i % 7 != 0) */
        if (i % 7) {
            ze_entity_destroy(w, e[i]);
            e[i] = ZE_ENTITY_NULL;
        }
    }
    assert_true(ze_pack_size(w, ZE_MASK(Position, Velocity)) > 0);
    assert_int_equal(changed_slots(w, ZE_ID(Position), v, got, sizeof got), (N + 6) / 7);
    assert_memory_equal(got, want, sizeof want);
    /* The values reported are the written ones. */
    for (uint32_t i = 0; i < N; i += 7)
        assert_true(ze_get(w, e[i], Position)->y == 1);
}

static void test_destroy_add_remove(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = spawn(w, 1), b = spawn(w, 2), c = spawn(w, 3), d = ze_entity_create(w);
    ze_entity_t keep = spawn(w, 4);
    (void)keep;
    uint32_t v = ze_world_version(w);
    ze_set(w, a, Position, {10, 0}); /* written, then destroyed: gone */
    ze_set(w, b, Position, {20, 0}); /* written, then removed: gone */
    ze_remove(w, c, Position);       /* removed, then added back: new */
    ze_set(w, c, Position, {30, 0});
    ze_set(w, d, Position, {40, 0}); /* added: new */
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 4);
    ze_entity_destroy(w, a);
    ze_remove(w, b, Position);
    uint8_t got[64];
    assert_int_equal(changed_slots(w, ZE_ID(Position), v, got, sizeof got), 2);
    assert_true(got[ze_entity_index(c)] && got[ze_entity_index(d)]);
    assert_false(ze_component_changed(w, a, ZE_ID(Position), v)); /* dead */
    assert_false(ze_component_changed(w, b, ZE_ID(Position), v)); /* absent */
    /* a's slot reused: a fresh entity without Position is not a change of
     * Position; given one, it is. */
    ze_entity_t r = ze_entity_create(w);
    assert_int_equal(ze_entity_index(r), ze_entity_index(a));
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 2);
    ze_set(w, r, Position, {50, 0});
    assert_int_equal(changed_slots(w, ZE_ID(Position), v, got, sizeof got), 3);
    assert_true(got[ze_entity_index(r)]);
    /* Errors: absent, dead, unknown type. */
    assert_int_equal(ze_component_mark_changed(w, b, ZE_ID(Position)), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_component_mark_changed(w, a, ZE_ID(Position)), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_component_mark_changed(w, r, (ze_component_t){999}), ZE_ERR_INVALID_ARG);
    assert_null(ze_get_mut(w, b, Position));
    assert_int_equal(ze_changed_count(w, ZE_COMPONENT_INVALID, 0), 0);
    /* Structural calls while the iterator is open are deferred to its end. */
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(Position), v);
    assert_true(ze_changed_next(&it));
    assert_int_equal(ze_entity_destroy(w, c), ZE_OK);
    assert_true(ze_entity_alive(w, c));
    ze_changed_fini(&it);
    assert_false(ze_entity_alive(w, c));
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 2);
}

/* -------------------------------------------------------- systems' since */

typedef struct since_probe_t {
    uint32_t seen[8];
    uint32_t runs;
} since_probe_t;

static void count_since(ze_world_t *w, const ze_tick_t *t)
{
    since_probe_t *p = t->user;
    if (p->runs < 8)
        p->seen[p->runs] = ze_changed_count(w, ZE_ID(Position), t->since);
    p->runs++;
}

static void write_one(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *e = t->user;
    if (t->frame == 2)
        ze_get_mut(w, *e, Position)->x += 1;
}

static void test_system_since(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t e[4];
    for (int i = 0; i < 4; i++)
        e[i] = spawn(w, (float)i);
    since_probe_t probe = {0};
    ze_system_add(w, &(ze_system_desc_t){.name = "writer",
                                         .group = ZE_GROUP_FRAME_INPUT,
                                         .fn = write_one,
                                         .user = &e[2],
                                         .writes = ZE_MASK(Position)});
    ze_system_add(w, &(ze_system_desc_t){.name = "counter",
                                         .group = ZE_GROUP_FRAME_VIEW,
                                         .fn = count_since,
                                         .user = &probe,
                                         .reads = ZE_MASK(Position)});
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            ze_set(w, e[0], Position, {9, 9}); /* from outside the frame */
        assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    }
    assert_int_equal(probe.runs, 4);
    /* First run: everything (since 0); then frame 2's one write; then the
     * outside write before frame 3; then nothing. */
    assert_int_equal(probe.seen[0], 4);
    assert_int_equal(probe.seen[1], 1);
    assert_int_equal(probe.seen[2], 1);
    assert_int_equal(probe.seen[3], 0);
}

/* ----------------------------------------------------------- hierarchy */

static void test_hierarchy_writes_only_what_changes(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    /* Two trees: root0 -> c0 -> g0, root1 -> c1 -> g1, and a loose root. */
    ze_entity_t n[7];
    for (int i = 0; i < 7; i++) {
        n[i] = ze_entity_create(w);
        ze_set(w, n[i], ze_transform_t,
               {.position = {1, 0, 0}, .rotation = ZE_QUAT_IDENTITY, .scale = {1, 1, 1}});
    }
    ze_set(w, n[1], ze_parent_t, {n[0]});
    ze_set(w, n[2], ze_parent_t, {n[1]});
    ze_set(w, n[4], ze_parent_t, {n[3]});
    ze_set(w, n[5], ze_parent_t, {n[4]});
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    uint32_t v = ze_world_version(w);
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v), 0);
    /* Moving root1 changes its subtree's matrices, nothing else. */
    ze_get_mut(w, n[3], ze_transform_t)->position.y = 2;
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    uint8_t got[64];
    memset(got, 0, sizeof got);
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(ze_transform_t), v);
    uint32_t count = 0;
    while (ze_changed_next(&it))
        for (uint32_t i = 0; i < it.count; i++, count++)
            got[it.indices[i]] = 1;
    assert_int_equal(count, 3);
    assert_true(got[ze_entity_index(n[3])] && got[ze_entity_index(n[4])] &&
                got[ze_entity_index(n[5])]);
    assert_true(ze_get(w, n[5], ze_transform_t)->world.m[3][1] == 2);
    assert_true(ze_get(w, n[5], ze_transform_t)->world.m[3][0] == 3);
    /* A write that leaves the local transform as it was changes no matrix. */
    uint32_t v2 = ze_world_version(w);
    assert_int_equal(ze_component_mark_changed(w, n[0], ZE_ID(ze_transform_t)), ZE_OK);
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v2), 1); /* the mark */
    /* Reparenting recomputes all, still writing only what differs: g0
     * moves under root1's child. */
    uint32_t v3 = ze_world_version(w);
    ze_set(w, n[2], ze_parent_t, {n[4]});
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v3), 1);
    assert_true(ze_get(w, n[2], ze_transform_t)->world.m[3][1] == 2);
    /* Removing a Parent makes a root: its matrix changes. */
    uint32_t v4 = ze_world_version(w);
    ze_remove(w, n[5], ze_parent_t);
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v4), 1);
    assert_true(ze_get(w, n[5], ze_transform_t)->world.m[3][0] == 1);
    /* A parent losing its Transform: its children become roots. */
    uint32_t v5 = ze_world_version(w);
    ze_remove(w, n[0], ze_transform_t);
    assert_int_equal(ze_hierarchy_update(w), ZE_OK);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v5), 1); /* n[1] */
    assert_true(ze_get(w, n[1], ze_transform_t)->world.m[3][0] == 1);
}

static void test_transform_snapshot_writes_only_movers(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    ze_set(w, a, ze_transform_t, {.position = {1, 0, 0}, .scale = {1, 1, 1}});
    ze_set(w, b, ze_transform_t, {.position = {2, 0, 0}, .scale = {1, 1, 1}});
    ze_transforms_snapshot(w);
    uint32_t v = ze_world_version(w);
    ze_transforms_snapshot(w);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v), 0);
    ze_get_mut(w, b, ze_transform_t)->position.x = 5;
    uint32_t v2 = ze_world_version(w);
    ze_transforms_snapshot(w);
    assert_int_equal(ze_changed_count(w, ZE_ID(ze_transform_t), v2), 1);
    assert_true(ze_get(w, b, ze_transform_t)->previous_position.x == 5);
    assert_true(ze_get(w, a, ze_transform_t)->previous_position.x == 1);
}

/* ------------------------------------------------------------ wrap-around */

static void test_versions_wrap(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t old = spawn(w, 1), fresh = spawn(w, 2);
    /* Move the version to the end of the 32-bit range the way a long run
     * does: 2^29 at a time, each followed by a BeginFrame (which rebases). */
    while (ze__version_now(w) < 0xe0000000u) {
        atomic_store(&w->version, ze__version_now(w) + (1u << 29) + 1);
        assert_int_equal(ze_world_begin_frame(w, 0.0), ZE_OK);
    }
    atomic_store(&w->version, 0xfffffff0u);
    uint32_t v = ze_world_version(w);
    for (int i = 0; i < 64; i++) /* across the wrap */
        ze_world_version(w);
    assert_true(ze__version_now(w) < 0x100u);
    ze_set(w, fresh, Position, {3, 0});
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), v), 1);
    assert_true(ze_component_changed(w, fresh, ZE_ID(Position), v));
    assert_false(ze_component_changed(w, old, ZE_ID(Position), v));
    /* 2^29 versions later BeginFrame raises old rows, so they never come
     * to look newer than a recent since. */
    atomic_store(&w->version, ze__version_now(w) + (1u << 29) + 5);
    assert_int_equal(ze_world_begin_frame(w, 0.0), ZE_OK);
    uint32_t recent = ze_world_version(w);
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), recent), 0);
    atomic_store(&w->version, ze__version_now(w) + (1u << 29) + 5);
    assert_int_equal(ze_world_begin_frame(w, 0.0), ZE_OK);
    atomic_store(&w->version, ze__version_now(w) + (1u << 29) + 5);
    assert_int_equal(ze_world_begin_frame(w, 0.0), ZE_OK);
    uint32_t late = ze_world_version(w);
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), late), 0);
    /* A since older than 2^30: every row. */
    assert_int_equal(ze_changed_count(w, ZE_ID(Position), recent), 2);
}

/* ------------------------------------------------- random against a model */

enum { MODEL_N = 3000 };

typedef struct model_t {
    ze_entity_t e[MODEL_N];
    bool alive[MODEL_N], pos[MODEL_N], vel[MODEL_N], changed[MODEL_N];
} model_t;

static void model_check(ze_world_t *w, const model_t *m, uint32_t v)
{
    static uint8_t got[1 << 16];
    uint32_t n = changed_slots(w, ZE_ID(Position), v, got, sizeof got), want = 0;
    for (uint32_t i = 0; i < MODEL_N; i++) {
        if (!m->alive[i])
            continue;
        bool c = m->pos[i] && m->changed[i];
        want += c;
        assert_int_equal(got[ze_entity_index(m->e[i])], c);
        assert_int_equal(ze_has(w, m->e[i], Position), m->pos[i]);
    }
    assert_int_equal(n, want);
}

static void test_random_against_model(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    static model_t m;
    memset(&m, 0, sizeof m);
    ze_rng_t rng;
    ze_rng_seed(&rng, 2026);
    ze_query_t pv = ze_query_create(
        w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity), .write = ZE_MASK(Position)});
    ze_query_t p_only = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    uint32_t v = ze_world_version(w);
    for (uint32_t step = 0; step < 60000; step++) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, MODEL_N);
        uint32_t op = (uint32_t)ze_rng_below(&rng, 100);
        if (!m.alive[i]) {
            m.e[i] = ze_entity_create(w);
            m.alive[i] = true;
            m.pos[i] = m.vel[i] = m.changed[i] = false;
            if (op < 70) {
                ze_set(w, m.e[i], Position, {(float)i, 0});
                m.pos[i] = m.changed[i] = true;
            }
            continue;
        }
        ze_entity_t e = m.e[i];
        if (op < 8) {
            ze_entity_destroy(w, e);
            m.alive[i] = false;
        } else if (op < 20) {
            if (m.pos[i]) {
                ze_remove(w, e, Position);
                m.pos[i] = m.changed[i] = false;
            } else {
                ze_add(w, e, Position);
                m.pos[i] = m.changed[i] = true;
            }
        } else if (op < 40) { /* Velocity: moves Position rows through the pack */
            if (m.vel[i])
                ze_remove(w, e, Velocity);
            else
                ze_set(w, e, Velocity, {1, 0});
            m.vel[i] = !m.vel[i];
        } else if (op < 55) {
            if (m.pos[i]) {
                ze_set(w, e, Position, {0, (float)step});
                m.changed[i] = true;
            }
        } else if (op < 57) { /* a writable walk: every P+V entity */
            ze_iter_t it = ze_query_iter(w, pv);
            while (ze_query_next(&it)) {
            }
            for (uint32_t j = 0; j < MODEL_N; j++)
                if (m.alive[j] && m.pos[j] && m.vel[j])
                    m.changed[j] = true;
        } else if (op < 60) { /* a read-only walk */
            ze_iter_t it = ze_query_iter(w, p_only);
            while (ze_query_next(&it)) {
            }
        } else if (op < 61) { /* checkpoint */
            model_check(w, &m, v);
            v = ze_world_version(w);
            for (uint32_t j = 0; j < MODEL_N; j++)
                m.changed[j] = false;
        }
    }
    model_check(w, &m, v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_static_world_reports_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_k_writes_report_k_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_versions_move_with_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_add_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_system_since, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hierarchy_writes_only_what_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transform_snapshot_writes_only_movers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_versions_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_against_model, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
