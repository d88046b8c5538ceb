/* Bindings: binder delta sequences for adds, sets, removes and destroys made
 * by direct calls and by commands; coalescing within a frame (add+set,
 * add+remove, remove+add, repeated sets, destroy and slot reuse); snapshots
 * on attach; type and entity binders, attach order and order of first
 * change (entities, and one entity's components); detach (also from a callback); explicit
 * marks and the rows systems and query walks actually wrote; the bind mask; and the DeltaTracker.
 */
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
typedef struct Health {
    int32_t hp;
} Health;
typedef struct Frozen { /* a tag */
    char unused;
} Frozen;

static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Health);
static ZE_COMPONENT_DECLARE(Frozen);

/* ------------------------------------------------------------ fixture */

enum { LOG_MAX = 4096 };

typedef struct seen_t {
    uint32_t binder; /* tag given at attach */
    ze_delta_kind kind;
    ze_entity_t e;
    uint32_t comp;
    bool has_value;
    float x; /* Position/Velocity .x or Health.hp */
} seen_t;

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_commands_t *c;
    seen_t log[LOG_MAX];
    uint32_t count;
} fx_t;

/* `user` of the logging binders: which binder, and where to log. */
typedef struct tag_t {
    fx_t *f;
    uint32_t binder;
} tag_t;

static int setup(void **state)
{
    static fx_t f;
    memset(&f, 0, sizeof f);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.capacity = 4096});
    assert_non_null(f.w);
    ZE_COMPONENT_DEFINE(f.k, Position);
    ZE_COMPONENT_DEFINE(f.k, Velocity);
    ZE_COMPONENT_DEFINE(f.k, Health);
    ZE_ID(Frozen) =
        ze__component_register_or_invalid(f.k, &(ze_component_desc_t){.name = "Frozen", .size = 0});
    assert_int_not_equal(ZE_ID(Frozen).id, UINT32_MAX);
    f.c = ze_commands_create(f.w);
    assert_non_null(f.c);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_commands_destroy(f->c);
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

static void on_delta(ze_world_t *w, const ze_delta_t *d, void *user)
{
    tag_t *t = user;
    fx_t *f = t->f;
    assert_ptr_equal(w, f->w);
    assert_true(f->count < LOG_MAX);
    seen_t s = {.binder = t->binder, .kind = d->kind, .e = d->entity, .comp = d->component.id};
    s.has_value = d->value != NULL;
    if (d->value) {
        if (d->component.id == ZE_ID(Health).id)
            s.x = (float)((const Health *)d->value)->hp;
        else if (d->component.id == ZE_ID(Frozen).id)
            s.x = -1; /* a tag has no value: must not get here */
        else
            s.x = ((const Position *)d->value)->x; /* Position and Velocity share layout */
        /* The value points into storage: it is the current value. */
        assert_ptr_equal(d->value, ze_component_get(w, d->entity, d->component));
    }
    f->log[f->count++] = s;
}

/* Expect exactly this sequence since the last check, then forget it. */
typedef struct want_t {
    uint32_t binder;
    ze_delta_kind kind;
    ze_entity_t e;
    ze_component_t comp;
    float x; /* checked when the kind carries a value and comp is not a tag */
} want_t;

static void expect_log(fx_t *f, const want_t *want, uint32_t n)
{
    if (f->count != n) {
        for (uint32_t i = 0; i < f->count; i++)
            print_message("  got[%u] binder %u kind %d entity %llx comp %u x %g\n", i,
                          f->log[i].binder, (int)f->log[i].kind, (unsigned long long)f->log[i].e.id,
                          f->log[i].comp, (double)f->log[i].x);
    }
    assert_int_equal(f->count, n);
    for (uint32_t i = 0; i < n; i++) {
        const seen_t *s = &f->log[i];
        assert_int_equal(s->binder, want[i].binder);
        assert_int_equal(s->kind, want[i].kind);
        assert_true(ze_entity_eq(s->e, want[i].e));
        assert_int_equal(s->comp, want[i].comp.id);
        bool tag = want[i].comp.id == ZE_ID(Frozen).id;
        if (want[i].kind == ZE_DELTA_REMOVED || tag) {
            assert_false(s->has_value);
        } else {
            assert_true(s->has_value);
            assert_true(s->x == want[i].x);
        }
    }
    f->count = 0;
}
#define EXPECT(f, ...)                                                      \
    do {                                                                    \
        const want_t want_[] = {__VA_ARGS__};                               \
        expect_log((f), want_, (uint32_t)(sizeof want_ / sizeof want_[0])); \
    } while (0)
#define EXPECT_NONE(f) expect_log((f), NULL, 0)

#define P    ZE_ID(Position)
#define V    ZE_ID(Velocity)
#define H    ZE_ID(Health)
#define FZ   ZE_ID(Frozen)
#define ADD  ZE_DELTA_ADDED
#define CHG  ZE_DELTA_CHANGED
#define REM  ZE_DELTA_REMOVED
#define SNAP ZE_DELTA_SNAPSHOT

/* The types some binder watches (what storage notes). */
static ze_mask_t watched(const ze_world_t *w)
{
    ze_mask_t m = ze_mask_make(NULL, 0);
    for (uint32_t b = 0; b < w->pool_count; b++)
        if (w->pool_list[b]->watched)
            m = ze_mask_or(m, ze_mask_of((ze_component_t){w->pool_list[b]->id}));
    return m;
}

static ze_entity_t spawn_pos(ze_world_t *w, float x)
{
    ze_entity_t e = ze_entity_create(w);
    assert_int_equal(ze_set(w, e, Position, {x, 0}), ZE_OK);
    return e;
}

/* ------------------------------------------------------------ snapshots */

static void test_snapshot_on_first_apply(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = spawn_pos(w, 1), b = ze_entity_create(w), c = spawn_pos(w, 3);
    ze_set(w, b, Velocity, {2, 0});
    tag_t t1 = {f, 1};
    ze_binder_t bd = ze_binder_attach_type(w, P, on_delta, &t1);
    assert_int_not_equal(bd.id, 0);
    assert_true(ze_mask_eq(watched(w), ZE_MASK(Position)));
    EXPECT_NONE(f); /* nothing until apply */
    ze_bindings_apply(w);
    EXPECT(f, {1, SNAP, a, P, 1}, {1, SNAP, c, P, 3});
    /* Once only. */
    ze_bindings_apply(w);
    EXPECT_NONE(f);
}

static void test_snapshot_replaces_same_frame_deltas(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1}, t2 = {f, 2};
    ze_entity_t a = spawn_pos(w, 1);
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    EXPECT(f, {1, SNAP, a, P, 1});

    /* Changes, then a second binder attaches in the same frame: the old
     * binder gets the deltas, the new one only the snapshot of the state. */
    ze_set(w, a, Position, {5, 0});
    ze_entity_t b = spawn_pos(w, 6);
    ze_binder_attach_type(w, P, on_delta, &t2);
    ze_set(w, b, Position, {7, 0});
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, a, P, 5}, {1, ADD, b, P, 7}, {2, SNAP, a, P, 5}, {2, SNAP, b, P, 7});
}

/* --------------------------------------------------- direct-call deltas */

static void test_direct_calls_add_set_remove_destroy(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t keep = spawn_pos(w, 1), gone = spawn_pos(w, 2), doomed = spawn_pos(w, 3);
    ze_set(w, doomed, Velocity, {9, 9}); /* not watched */
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0; /* snapshots: covered above */

    ze_entity_t fresh = ze_entity_create(w);
    assert_non_null(ze_add(w, fresh, Position)); /* default (zero) value */
    ze_set(w, keep, Position, {10, 0});
    assert_int_equal(ze_remove(w, gone, Position), ZE_OK);
    assert_int_equal(ze_entity_destroy(w, doomed), ZE_OK);
    ze_set(w, keep, Velocity, {4, 4}); /* unwatched type: no delta */
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, fresh, P, 0}, {1, CHG, keep, P, 10}, {1, REM, gone, P, 0},
           {1, REM, doomed, P, 0});
    ze_bindings_apply(w);
    EXPECT_NONE(f);

    /* ze_component_add on a present component is no change. */
    assert_non_null(ze_add(w, keep, Position));
    ze_bindings_apply(w);
    EXPECT_NONE(f);
}

static void test_coalescing_within_a_frame(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t present = spawn_pos(w, 1), readded = spawn_pos(w, 2),
                set_then_removed = spawn_pos(w, 3);
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0;

    /* added, then set twice: one ADDED with the latest value */
    ze_entity_t added = spawn_pos(w, 20);
    ze_set(w, added, Position, {21, 0});
    ze_set(w, added, Position, {22, 0});
    /* added, then removed: nothing */
    ze_entity_t blink = spawn_pos(w, 30);
    ze_remove(w, blink, Position);
    /* added, then the entity destroyed: nothing */
    ze_entity_t ghost = spawn_pos(w, 40);
    ze_entity_destroy(w, ghost);
    /* set three times: one CHANGED */
    ze_set(w, present, Position, {11, 0});
    ze_set(w, present, Position, {12, 0});
    ze_set(w, present, Position, {13, 0});
    /* present at the start, removed, added again: CHANGED (new value) */
    ze_remove(w, readded, Position);
    ze_set(w, readded, Position, {14, 0});
    /* set, then removed: REMOVED */
    ze_set(w, set_then_removed, Position, {15, 0});
    ze_remove(w, set_then_removed, Position);
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, added, P, 22}, {1, CHG, present, P, 13}, {1, CHG, readded, P, 14},
           {1, REM, set_then_removed, P, 0});
}

static void test_destroy_and_slot_reuse_in_one_frame(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t old = spawn_pos(w, 1);
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0;

    ze_entity_destroy(w, old);
    ze_entity_t reused = spawn_pos(w, 2); /* LIFO free list: same slot */
    assert_int_equal(ze_entity_index(reused), ze_entity_index(old));
    assert_false(ze_entity_eq(reused, old));
    ze_bindings_apply(w);
    /* Two entities, not one CHANGED: the old handle goes, the new comes. */
    EXPECT(f, {1, REM, old, P, 0}, {1, ADD, reused, P, 2});
}

static void test_entities_in_order_of_first_change(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t th = {f, 1};
    ze_entity_t e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = ze_entity_create(w);
        ze_set(w, e[i], Health, {i});
        ze_set(w, e[i], Position, {(float)i, 0});
    }
    ze_binder_attach_type(w, H, on_delta, &th);
    tag_t tp = {f, 2};
    ze_binder_attach_type(w, P, on_delta, &tp);
    ze_bindings_apply(w);
    f->count = 0;

    ze_set(w, e[2], Position, {20, 0}); /* e2 first (through another type) */
    ze_set(w, e[3], Health, {30});
    ze_set(w, e[0], Health, {10});
    ze_set(w, e[2], Health, {21});
    ze_set(w, e[3], Health, {31});
    ze_bindings_apply(w);
    /* Binders in attach order; within each, entities by first change. */
    EXPECT(f, {1, CHG, e[2], H, 21}, {1, CHG, e[3], H, 31}, {1, CHG, e[0], H, 10},
           {2, CHG, e[2], P, 20});
}

static void test_tag_components(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t a = ze_entity_create(w);
    ze_add(w, a, Frozen);
    ze_binder_attach_type(w, FZ, on_delta, &t1);
    ze_bindings_apply(w);
    EXPECT(f, {1, SNAP, a, FZ, 0});
    ze_entity_t b = ze_entity_create(w);
    ze_add(w, b, Frozen);
    ze_remove(w, a, Frozen);
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, b, FZ, 0}, {1, REM, a, FZ, 0});
}

/* ------------------------------------------------------------- commands */

typedef struct spawned_t {
    ze_entity_t e;
} spawned_t;

static void on_spawn(ze_world_t *w, ze_entity_t e, void *user)
{
    (void)w;
    ((spawned_t *)user)->e = e;
}

static void test_commands_produce_deltas(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t a = spawn_pos(w, 1), b = spawn_pos(w, 2), c = spawn_pos(w, 3);
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0;

    spawned_t sp = {0};
    ze_entity_t pending = ze_cmd_spawn(f->c, on_spawn, &sp);
    assert_int_equal(ze_cmd_set_t(f->c, pending, Position, {100, 0}), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, a, Position, {11, 0}), ZE_OK);
    assert_int_equal(ze_cmd_remove(f->c, b, P), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, c), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, pending, Position, {101, 0}), ZE_OK);
    /* Nothing noted before the flush. */
    ze_bindings_apply(w);
    EXPECT_NONE(f);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_false(ze_entity_is_null(sp.e));
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, sp.e, P, 101}, {1, CHG, a, P, 11}, {1, REM, b, P, 0}, {1, REM, c, P, 0});

    /* add then remove within one buffer: nothing. */
    ze_entity_t d = ze_entity_create(w);
    ze_cmd_add(f->c, d, P);
    ze_cmd_remove(f->c, d, P);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    ze_bindings_apply(w);
    EXPECT_NONE(f);
}

static void test_deferred_changes_during_iteration(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t a = spawn_pos(w, 1), b = spawn_pos(w, 2);
    ze_binder_attach_type(w, V, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0;
    /* Adds requested while a query is open are deferred to its end, and
     * reported when they apply. */
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            ze_entity_t e = ze_iter_entity(&it, i);
            ze_set(w, e, Velocity, {ze_get(w, e, Position)->x * 10, 0});
        }
    }
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, a, V, 10}, {1, ADD, b, V, 20});
}

/* ------------------------------------------------ type and entity binders */

static void test_entity_binder(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t te = {f, 1}, th = {f, 2};
    ze_entity_t me = spawn_pos(w, 1), other = spawn_pos(w, 2);
    ze_set(w, me, Health, {50});
    ze_set(w, other, Velocity, {3, 0});
    ze_binder_t eb = ze_binder_attach_entity(w, me, ZE_MASK(Position, Velocity), on_delta, &te);
    ze_binder_t tb = ze_binder_attach_type(w, H, on_delta, &th);
    assert_int_not_equal(eb.id, 0);
    assert_int_not_equal(tb.id, 0);
    assert_true(ze_mask_eq(watched(w), ZE_MASK(Position, Velocity, Health)));
    ze_bindings_apply(w);
    /* The entity binder's snapshot: its components in the set it has. */
    EXPECT(f, {1, SNAP, me, P, 1}, {2, SNAP, me, H, 50});

    ze_set(w, other, Position, {20, 0}); /* not my entity */
    ze_set(w, me, Velocity, {7, 0});     /* added */
    ze_set(w, me, Position, {8, 0});     /* changed */
    ze_set(w, me, Health, {49});         /* not in my set */
    ze_set(w, other, Health, {10});      /* new health */
    ze_bindings_apply(w);
    /* Components of one entity in the order they changed. */
    EXPECT(f, {1, ADD, me, V, 7}, {1, CHG, me, P, 8}, {2, ADD, other, H, 10},
           {2, CHG, me, H, 49}); /* `other` changed first */

    /* Destroying the entity: REMOVED for each watched component it had. */
    ze_entity_destroy(w, me);
    ze_bindings_apply(w);
    EXPECT(f, {1, REM, me, P, 0}, {1, REM, me, V, 0}, {2, REM, me, H, 0});
    /* The slot's next entity is someone else. */
    ze_entity_t next = spawn_pos(w, 9);
    assert_int_equal(ze_entity_index(next), ze_entity_index(me));
    ze_bindings_apply(w);
    EXPECT_NONE(f);

    /* Attach validation. */
    assert_int_equal(ze_binder_attach_entity(w, me, ZE_MASK(Position), on_delta, &te).id, 0);
    assert_int_equal(ze_binder_attach_entity(w, next, ze_mask_make(NULL, 0), on_delta, &te).id, 0);
    assert_int_equal(
        ze_binder_attach_entity(w, next, ze_mask_of((ze_component_t){60}), on_delta, &te).id, 0);
    assert_int_equal(ze_binder_attach_entity(w, next, ZE_MASK(Position), NULL, &te).id, 0);
    assert_int_equal(ze_binder_attach_type(w, (ze_component_t){60}, on_delta, &te).id, 0);
    assert_int_equal(ze_binder_attach_type(w, ZE_COMPONENT_INVALID, on_delta, &te).id, 0);
}

/* One entity's deltas come in the order its changes were recorded (the
 * first change of each component counts), not in component-id order:
 * commands, direct calls, and a remove + re-add. */
static void test_entity_deltas_in_recording_order(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t te = {f, 1};
    ze_entity_t e = ze_entity_create(w);
    assert_int_not_equal(
        ze_binder_attach_entity(w, e, ZE_MASK(Position, Velocity, Health), on_delta, &te).id, 0);
    ze_bindings_apply(w);
    EXPECT_NONE(f); /* nothing of the set yet */
    assert_true(H.id > V.id && V.id > P.id);

    /* Commands, recorded against id order. */
    ze_cmd_set_t(f->c, e, Health, {1});
    ze_cmd_set_t(f->c, e, Velocity, {2, 0});
    ze_cmd_set_t(f->c, e, Position, {3, 0});
    ze_cmd_set_t(f->c, e, Health, {4}); /* again: H keeps its first place */
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, e, H, 4}, {1, ADD, e, V, 2}, {1, ADD, e, P, 3});

    /* Direct calls. */
    ze_set(w, e, Velocity, {5, 0});
    ze_set(w, e, Health, {6});
    ze_set(w, e, Position, {7, 0});
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, e, V, 5}, {1, CHG, e, H, 6}, {1, CHG, e, P, 7});

    /* Remove and re-add (a change), then a removal. */
    ze_cmd_remove(f->c, e, P);
    ze_cmd_remove(f->c, e, H);
    ze_cmd_set_t(f->c, e, Position, {8, 0});
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, e, P, 8}, {1, REM, e, H, 0});
}

static void test_binders_in_attach_order(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t[3] = {{f, 1}, {f, 2}, {f, 3}};
    ze_entity_t a = ze_entity_create(w);
    ze_binder_attach_type(w, V, on_delta, &t[0]);
    ze_binder_attach_entity(w, a, ZE_MASK(Position), on_delta, &t[1]);
    ze_binder_attach_type(w, P, on_delta, &t[2]);
    ze_bindings_apply(w);
    EXPECT_NONE(f); /* nothing to snapshot */
    ze_set(w, a, Position, {1, 0});
    ze_set(w, a, Velocity, {2, 0});
    ze_bindings_apply(w);
    EXPECT(f, {1, ADD, a, V, 2}, {2, ADD, a, P, 1}, {3, ADD, a, P, 1});
}

/* ---------------------------------------------------------------- detach */

static void test_detach(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1}, t2 = {f, 2};
    ze_entity_t a = spawn_pos(w, 1);
    ze_binder_t b1 = ze_binder_attach_type(w, P, on_delta, &t1);
    ze_binder_t b2 = ze_binder_attach_type(w, H, on_delta, &t2);
    ze_bindings_apply(w);
    EXPECT(f, {1, SNAP, a, P, 1});
    assert_int_equal(ze_binder_detach(w, b1), ZE_OK);
    assert_int_equal(ze_binder_detach(w, b1), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_binder_detach(w, (ze_binder_t){0}), ZE_ERR_NOT_FOUND);
    /* Nobody watches Position now: storage stops reporting it. */
    assert_true(ze_mask_eq(watched(w), ZE_MASK(Health)));
    ze_set(w, a, Position, {2, 0});
    ze_set(w, a, Health, {3});
    ze_bindings_apply(w);
    EXPECT(f, {2, ADD, a, H, 3});
    assert_int_equal(ze_binder_detach(w, b2), ZE_OK);
    assert_true(ze_mask_empty(watched(w)));
    ze_set(w, a, Health, {4});
    ze_bindings_apply(w);
    EXPECT_NONE(f);
    /* Attaching again starts with a fresh snapshot. */
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    EXPECT(f, {1, SNAP, a, P, 2});
}

typedef struct detacher_t {
    tag_t tag;
    ze_binder_t victim; /* detached on the first delta */
    ze_binder_t self;   /* detached on the second delta */
    uint32_t calls;
} detacher_t;

static void on_detacher(ze_world_t *w, const ze_delta_t *d, void *user)
{
    detacher_t *x = user;
    on_delta(w, d, &x->tag);
    x->calls++;
    if (x->calls == 1)
        assert_int_equal(ze_binder_detach(w, x->victim), ZE_OK);
    if (x->calls == 2)
        assert_int_equal(ze_binder_detach(w, x->self), ZE_OK);
    /* Nested apply is refused, quietly. */
    ze_bindings_apply(w);
}

static void test_detach_during_apply(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t2 = {f, 2}, t3 = {f, 3};
    detacher_t x = {.tag = {f, 1}};
    ze_entity_t e[3];
    for (int i = 0; i < 3; i++)
        e[i] = spawn_pos(w, (float)i);
    x.self = ze_binder_attach_type(w, P, on_detacher, &x);
    x.victim = ze_binder_attach_type(w, P, on_delta, &t2);
    ze_binder_attach_type(w, P, on_delta, &t3);
    ze_bindings_apply(w);
    /* The detacher got two snapshots (then detached itself), the victim
     * nothing, the third binder all three. */
    EXPECT(f, {1, SNAP, e[0], P, 0}, {1, SNAP, e[1], P, 1}, {3, SNAP, e[0], P, 0},
           {3, SNAP, e[1], P, 1}, {3, SNAP, e[2], P, 2});
    ze_set(w, e[1], Position, {5, 0});
    ze_bindings_apply(w);
    EXPECT(f, {3, CHG, e[1], P, 5});
    assert_int_equal(ze_binder_detach(w, x.self), ZE_ERR_NOT_FOUND);
}

/* ------------------------------------------------ callbacks that write */

typedef struct writer_t {
    tag_t tag;
    ze_entity_t target;
    bool done;
} writer_t;

/* Once armed, its next delta makes it write another entity. */
static void on_writer(ze_world_t *w, const ze_delta_t *d, void *user)
{
    writer_t *x = user;
    on_delta(w, d, &x->tag);
    if (x->done)
        return;
    x->done = true;
    ze_set(w, x->target, Position, {99, 0});
}

static void test_changes_made_by_binders_go_to_next_apply(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = spawn_pos(w, 1), b = spawn_pos(w, 2);
    writer_t x = {.tag = {f, 1}, .target = b, .done = true};
    ze_binder_attach_type(w, P, on_writer, &x);
    ze_bindings_apply(w);
    f->count = 0;
    x.done = false; /* armed */
    ze_set(w, a, Position, {3, 0});
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, a, P, 3});
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, b, P, 99});
}

/* --------------------------------------------------------- change marks */

static void test_mark_changed(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t t1 = {f, 1};
    ze_entity_t a = spawn_pos(w, 1), b = ze_entity_create(w);
    ze_set(w, a, Health, {5});
    ze_binder_attach_type(w, P, on_delta, &t1);
    ze_bindings_apply(w);
    f->count = 0;
    /* A write through a pointer is invisible until marked. */
    ((Position *)ze_get(w, a, Position))->x = 42; /* a plain pointer */
    ze_bindings_apply(w);
    EXPECT_NONE(f);
    ((Position *)ze_get(w, a, Position))->x = 43;
    assert_int_equal(ze_delta_mark_changed(w, a, P), ZE_OK);
    assert_int_equal(ze_delta_mark_changed(w, a, P), ZE_OK);
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, a, P, 43});
    /* Absent component, dead entity, bad id; an unwatched type is fine. */
    assert_int_equal(ze_delta_mark_changed(w, b, P), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_delta_mark_changed(w, ZE_ENTITY_NULL, P), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_delta_mark_changed(w, a, (ze_component_t){99}), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_delta_mark_changed(w, a, H), ZE_OK);
    ze_bindings_apply(w);
    EXPECT_NONE(f);
}

/* Walks every run of q to the end. */
static void walk(ze_world_t *w, ze_query_t q)
{
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
    }
}

static void test_iterated_writes_are_changed(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t tp = {f, 1}, tv = {f, 2};
    ze_entity_t e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = spawn_pos(w, (float)i);
        if (i != 1)
            ze_set(w, e[i], Velocity, {(float)(10 + i), 0});
    }
    ze_set(w, e[3], Health, {1});
    ze_binder_attach_type(w, P, on_delta, &tp);
    ze_binder_attach_type(w, V, on_delta, &tv);
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity),
                                                         .without = ZE_MASK(Health),
                                                         .write = ZE_MASK(Position)});
    ze_query_t q2 = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position),
                                                          .optional = ZE_MASK(Velocity),
                                                          .write = ZE_MASK(Velocity)});
    ze_bindings_apply(w);
    f->count = 0;

    /* A query with Position writable that nobody iterates (a system that
     * did nothing this frame) changes nothing. */
    ze_bindings_apply(w);
    EXPECT_NONE(f);

    /* Iterated: Position changed for e0 and e2 (e1 lacks Velocity, e3 has
     * Health). Velocity is only read: not changed. */
    walk(w, q);
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, e[0], P, 0}, {1, CHG, e[2], P, 2});

    /* Optional terms may be absent: only entities having them changed. */
    walk(w, q2);
    ze_bindings_apply(w);
    EXPECT(f, {2, CHG, e[0], V, 10}, {2, CHG, e[2], V, 12}, {2, CHG, e[3], V, 13});

    /* A read-only walk, and a write through ze_get_mut of one entity. */
    walk(w, ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)}));
    ze_get_mut(w, e[1], Position)->x = 7;
    ze_bindings_apply(w);
    EXPECT(f, {1, CHG, e[1], P, 7});
}

/* A system group's barrier reports what its systems reached, not what
 * their write masks allow. */
static void writes_first(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *target = t->user;
    ze_get_mut(w, *target, Position)->x += 100;
}

static void test_systems_report_what_they_wrote(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t tp = {f, 1};
    ze_entity_t a = spawn_pos(w, 1), b = spawn_pos(w, 2);
    (void)b;
    ze_system_t s = ze_system_add(
        w, &(ze_system_desc_t){
               .name = "one", .fn = writes_first, .user = &a, .writes = ZE_MASK(Position)});
    assert_int_not_equal(s.id, 0);
    ze_binder_attach_type(w, P, on_delta, &tp);
    ze_bindings_apply(w);
    f->count = 0;
    assert_int_equal(ze_kernel_frame(f->k, 1.0 / 60.0), ZE_OK);
    EXPECT(f, {1, CHG, a, P, 101});
}

/* ---------------------------------------------------------- DeltaTracker */

static void on_track(ze_world_t *w, const ze_delta_t *d, void *user)
{
    (void)w;
    assert_int_equal(ze_delta_tracker_feed(user, d), ZE_OK);
}

static void test_delta_tracker_states(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_delta_tracker_t t;
    ze_delta_tracker_init(&t, w->alloc, sizeof(Position));
    ze_entity_t a = spawn_pos(w, 1), b = spawn_pos(w, 2), never = ze_entity_create(w);
    ze_binder_attach_type(w, P, on_track, &t);
    ze_bindings_apply(w);

    /* Snapshot: present, dirty, values copied. */
    assert_true(ze_delta_tracker_has(&t, a) && ze_delta_tracker_dirty(&t, a));
    assert_false(ze_delta_tracker_removed(&t, a));
    const Position *la = ze_delta_tracker_last(&t, a);
    assert_non_null(la);
    assert_true(la->x == 1);
    assert_true(((const Position *)ze_delta_tracker_last(&t, b))->x == 2);
    assert_false(ze_delta_tracker_has(&t, never));
    assert_false(ze_delta_tracker_dirty(&t, never));
    assert_null(ze_delta_tracker_last(&t, never));

    ze_delta_tracker_clear(&t);
    assert_true(ze_delta_tracker_has(&t, a));
    assert_false(ze_delta_tracker_dirty(&t, a));
    assert_false(ze_delta_tracker_dirty(&t, b));

    /* A change: dirty again, new value; the copy is the tracker's own. */
    ze_set(w, a, Position, {5, 0});
    ze_bindings_apply(w);
    assert_true(ze_delta_tracker_dirty(&t, a));
    assert_false(ze_delta_tracker_dirty(&t, b));
    ((Position *)ze_get(w, a, Position))->x = 6; /* not marked: the tracker keeps 5 */
    assert_true(((const Position *)ze_delta_tracker_last(&t, a))->x == 5);

    /* Removed: not present, removed, dirty, last value still readable. */
    ze_remove(w, a, Position);
    ze_bindings_apply(w);
    assert_false(ze_delta_tracker_has(&t, a));
    assert_true(ze_delta_tracker_removed(&t, a));
    assert_true(ze_delta_tracker_dirty(&t, a));
    assert_true(((const Position *)ze_delta_tracker_last(&t, a))->x == 5);
    /* clear forgets removed entries entirely */
    ze_delta_tracker_clear(&t);
    assert_false(ze_delta_tracker_removed(&t, a));
    assert_false(ze_delta_tracker_has(&t, a));
    assert_null(ze_delta_tracker_last(&t, a));
    assert_true(ze_delta_tracker_has(&t, b));

    /* Removed and added back before a clear: present again, not removed. */
    ze_entity_destroy(w, b);
    ze_bindings_apply(w);
    assert_true(ze_delta_tracker_removed(&t, b));
    ze_delta_t again = {ZE_DELTA_ADDED, b, P, &(Position){7, 0}};
    assert_int_equal(ze_delta_tracker_feed(&t, &again), ZE_OK);
    assert_true(ze_delta_tracker_has(&t, b));
    assert_false(ze_delta_tracker_removed(&t, b));
    assert_true(((const Position *)ze_delta_tracker_last(&t, b))->x == 7);

    /* REMOVED of an entity never seen: nothing to keep. Bad input refused. */
    ze_delta_t rm = {ZE_DELTA_REMOVED, never, P, NULL};
    assert_int_equal(ze_delta_tracker_feed(&t, &rm), ZE_OK);
    assert_false(ze_delta_tracker_removed(&t, never));
    ze_delta_t bad = {(ze_delta_kind)0, never, P, NULL};
    assert_int_equal(ze_delta_tracker_feed(&t, &bad), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_delta_tracker_feed(&t, NULL), ZE_ERR_INVALID_ARG);

    /* Many entities, most removed: clear sweeps them all. */
    ze_entity_t many[300];
    for (uint32_t i = 0; i < 300; i++) {
        many[i] = ze_entity_create(w);
        ze_set(w, many[i], Position, {(float)i, 0});
    }
    ze_bindings_apply(w);
    for (uint32_t i = 0; i < 300; i++)
        if (i % 3)
            ze_entity_destroy(w, many[i]);
    ze_bindings_apply(w);
    ze_delta_tracker_clear(&t);
    for (uint32_t i = 0; i < 300; i++) {
        assert_int_equal(ze_delta_tracker_has(&t, many[i]), i % 3 == 0);
        assert_false(ze_delta_tracker_removed(&t, many[i]));
        assert_false(ze_delta_tracker_dirty(&t, many[i]));
    }
    assert_int_equal(t.entries.count, 100 + 1); /* + b */
    ze_delta_tracker_free(&t);
}

static void test_tracker_for_tags(void **state)
{
    fx_t *f = *state;
    ze_delta_tracker_t t;
    ze_delta_tracker_init(&t, f->w->alloc, 0);
    ze_entity_t a = ze_entity_create(f->w);
    ze_add(f->w, a, Frozen);
    ze_binder_attach_type(f->w, FZ, on_track, &t);
    ze_bindings_apply(f->w);
    assert_true(ze_delta_tracker_has(&t, a));
    assert_null(ze_delta_tracker_last(&t, a));
    ze_delta_tracker_free(&t);
}

/* ---------------------------------------------------- the kernel frame */

/* Position.x += Velocity.x for entities with both (a fixed-step system). */
static void sys_move(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        const Velocity *v = ze_field(&it, Velocity);
        for (uint32_t i = 0; i < it.count; i++)
            p[i].x += v[i].x;
    }
}

/* Spawns one entity with Health through its command buffer, once. */
static void sys_spawn_once(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    int *left = t->user;
    if (*left > 0) {
        (*left)--;
        ze_entity_t e = ze_cmd_spawn(t->cmds, NULL, NULL);
        ze_cmd_set_t(t->cmds, e, Health, {77});
    }
}

static void test_kernel_frame_applies_at_late_frame(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    tag_t tp = {f, 1}, th = {f, 2};
    ze_entity_t still = spawn_pos(w, 1), moving = spawn_pos(w, 2);
    ze_set(w, moving, Velocity, {10, 0});
    int spawns = 1;
    assert_int_not_equal(ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                                              .fn = sys_move,
                                                              .reads = ZE_MASK(Velocity),
                                                              .writes = ZE_MASK(Position),
                                                              .group = ZE_GROUP_FIXED_SIMULATION})
                             .id,
                         0);
    assert_int_not_equal(ze_system_add(w, &(ze_system_desc_t){.name = "spawn",
                                                              .fn = sys_spawn_once,
                                                              .user = &spawns,
                                                              .uses_commands = true,
                                                              .group = ZE_GROUP_FIXED_POST})
                             .id,
                         0);
    ze_binder_attach_type(w, P, on_delta, &tp);
    ze_binder_attach_type(w, H, on_delta, &th);
    assert_int_equal(ze_kernel_set_fixed_step(f->k, 0.5, 5), ZE_OK);

    /* Frame 1: two steps, then LateFrame applies: the binders' first apply
     * is their snapshot (values after the steps); the spawned Health too. */
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK);
    assert_int_equal(f->count, 3);
    assert_int_equal(f->log[0].kind, SNAP);
    assert_int_equal(f->log[2].kind, SNAP);
    assert_true(f->log[2].x == 77);
    ze_entity_t spawned = f->log[2].e;
    f->count = 0;
    /* Frame 2: the system's write mask marks Position changed for the
     * entities its query matched (not `still`), once for both steps. */
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK);
    EXPECT(f, {1, CHG, moving, P, 42});
    /* Frame 3 with an explicit change and a destroy. */
    ze_set(w, still, Position, {5, 0});
    ze_entity_destroy(w, spawned);
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK);
    EXPECT(f, {1, CHG, still, P, 5}, {1, CHG, moving, P, 62}, {2, REM, spawned, H, 0});
}

/* ------------------------------------------------------------ lifetime */

static void test_world_destroyed_with_pending_deltas(void **state)
{
    fx_t *f = *state;
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.name = "second", .capacity = 4096});
    assert_non_null(w2);
    tag_t t1 = {f, 1};
    ze_entity_t a = spawn_pos(w2, 1);
    ze_binder_attach_type(w2, P, on_delta, &t1);
    ze_binder_attach_entity(w2, a, ZE_MASK(Position), on_delta, &t1);
    ze_set(w2, a, Position, {2, 0});
    spawn_pos(w2, 3);
    /* Destroying the world frees the pending set and binders (ASan), and
     * delivers nothing. */
    ze_world_destroy(w2);
    EXPECT_NONE(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_snapshot_on_first_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_replaces_same_frame_deltas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_direct_calls_add_set_remove_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_coalescing_within_a_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_and_slot_reuse_in_one_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entities_in_order_of_first_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tag_components, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_produce_deltas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deferred_changes_during_iteration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_binder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_deltas_in_recording_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binders_in_attach_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detach, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detach_during_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changes_made_by_binders_go_to_next_apply, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mark_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iterated_writes_are_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_systems_report_what_they_wrote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delta_tracker_states, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tracker_for_tags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_frame_applies_at_late_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_destroyed_with_pending_deltas, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
