/* WorldCommands: recording order, destroy deduplication and dead ids,
 * commands after a destroy, spawn callbacks and pending handles, merge
 * renumbering, large and over-aligned values, values with hooks, flush
 * results, and structural changes requested during a query iteration. */
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
typedef struct Big {
    uint8_t bytes[10 * 1024];
} Big;
typedef struct Wide { /* over-aligned: values land on 64-byte boundaries */
    _Alignas(64) uint64_t v[10];
} Wide;
typedef struct Tracked { /* a value that owns a "resource" (counted) */
    int32_t id;
    int32_t live;
} Tracked;

static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Health);
static ZE_COMPONENT_DECLARE(Big);
static ZE_COMPONENT_DECLARE(Wide);
static ZE_COMPONENT_DECLARE(Tracked);

typedef struct hook_stats_t {
    int copies, dtors, live;
    int misaligned; /* copies from a Wide value not on its boundary */
} hook_stats_t;

static void tracked_copy(void *dst, const void *src, uint32_t n, void *user)
{
    hook_stats_t *s = user;
    Tracked *d = dst;
    const Tracked *f = src;
    /* Copy-constructs (storage copies into fresh memory): dst is not read. */
    for (uint32_t i = 0; i < n; i++) {
        d[i].id = f[i].id;
        d[i].live = 1;
        s->live++;
        s->copies++;
    }
}

static void tracked_dtor(void *ptr, uint32_t n, void *user)
{
    hook_stats_t *s = user;
    Tracked *p = ptr;
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].live)
            s->live--;
        p[i].live = 0;
        s->dtors++;
    }
}

static void wide_copy(void *dst, const void *src, uint32_t n, void *user)
{
    hook_stats_t *s = user;
    if ((uintptr_t)src % 64 != 0 || (uintptr_t)dst % 64 != 0)
        s->misaligned++;
    memcpy(dst, src, sizeof(Wide) * n);
}

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_commands_t *c;
    hook_stats_t tracked, wide;
} fx_t;

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
    ZE_COMPONENT_DEFINE(f.k, Big);
    assert_int_equal(
        ze_component_register(f.k,
                              &(ze_component_desc_t){.name = "Wide",
                                                     .size = sizeof(Wide),
                                                     .align = _Alignof(Wide),
                                                     .hooks = {.copy = wide_copy, .user = &f.wide}},
                              &ZE_ID(Wide)),
        ZE_OK);
    assert_int_equal(ze_component_register(f.k,
                                           &(ze_component_desc_t){.name = "Tracked",
                                                                  .size = sizeof(Tracked),
                                                                  .hooks = {.copy = tracked_copy,
                                                                            .dtor = tracked_dtor,
                                                                            .user = &f.tracked}},
                                           &ZE_ID(Tracked)),
                     ZE_OK);
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

static Position pos_of(ze_world_t *w, ze_entity_t e)
{
    const Position *p = ze_get(w, e, Position);
    assert_non_null(p);
    return *p;
}

/* ------------------------------------------------------------ ordering */

static void test_applied_in_recording_order(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);

    assert_int_equal(ze_cmd_add(f->c, a, ZE_ID(Position)), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, a, Position, {1, 2}), ZE_OK);
    assert_int_equal(ze_cmd_remove(f->c, a, ZE_ID(Position)), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, a, Position, {3, 4}), ZE_OK);
    assert_int_equal(ze_cmd_add(f->c, a, ZE_ID(Position)), ZE_OK); /* present: keeps {3, 4} */
    assert_int_equal(ze_cmd_set_t(f->c, b, Position, {5, 6}), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, b, Velocity, {7, 8}), ZE_OK);
    assert_int_equal(ze_cmd_remove(f->c, b, ZE_ID(Position)), ZE_OK);
    assert_int_equal(ze_commands_count(f->c), 8);

    /* Nothing happens before the flush. */
    assert_false(ze_has(w, a, Position));
    assert_false(ze_has(w, b, Velocity));

    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(ze_commands_count(f->c), 0);
    assert_int_equal(ze_commands_last_skipped(f->c), 0);
    Position pa = pos_of(w, a);
    assert_true(pa.x == 3 && pa.y == 4);
    assert_false(ze_has(w, b, Position));
    const Velocity *vb = ze_get(w, b, Velocity);
    assert_non_null(vb);
    assert_true(vb->x == 7 && vb->y == 8);

    /* The buffer is reusable after a flush, and flushing nothing is fine. */
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, a, Position, {9, 9}), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_true(pos_of(w, a).x == 9);
}

static void test_record_validation(void **state)
{
    fx_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    assert_int_equal(ze_cmd_destroy(f->c, ZE_ENTITY_NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_cmd_add(f->c, e, ZE_COMPONENT_INVALID), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_cmd_set(f->c, e, ZE_ID(Position), NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_cmd_remove(f->c, e, (ze_component_t){63}), ZE_ERR_INVALID_ARG);
    /* A pending handle this buffer never handed out. */
    ze_entity_t fake = {(uint64_t)ZE__GEN_DEAD << 32 | 0};
    assert_int_equal(ze_cmd_set_t(f->c, fake, Position, {1, 1}), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_commands_count(f->c), 0);
}

/* ------------------------------------------------------------- destroy */

static void test_destroy_dedup_and_dead_ids(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w);
    ze_entity_t b = ze_entity_create(w);
    ze_entity_t dead = ze_entity_create(w);
    assert_int_equal(ze_entity_destroy(w, dead), ZE_OK);
    /* The dead handle's slot is reused: a stale destroy must not hit it. */
    ze_entity_t reuse = ze_entity_create(w);
    assert_int_equal(ze_entity_index(reuse), ze_entity_index(dead));
    assert_int_equal(ze_set(w, reuse, Position, {1, 1}), ZE_OK);

    assert_int_equal(ze_cmd_destroy(f->c, a), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, a), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, dead), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, a), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);

    assert_false(ze_entity_alive(w, a));
    assert_true(ze_entity_alive(w, b));
    assert_true(ze_entity_alive(w, reuse));
    assert_true(ze_has(w, reuse, Position));
    assert_int_equal(ze_world_entity_count(w), 2);
    assert_int_equal(ze_commands_last_skipped(f->c), 3); /* two repeats, one dead id */

    /* The skip count is per flush. */
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(ze_commands_last_skipped(f->c), 0);
}

static void test_commands_after_destroy_skipped(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t e = ze_entity_create(w);
    ze_entity_t other = ze_entity_create(w);
    assert_int_equal(ze_cmd_set_t(f->c, e, Position, {1, 2}), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, e), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, e, Velocity, {3, 4}), ZE_OK);
    assert_int_equal(ze_cmd_add(f->c, e, ZE_ID(Health)), ZE_OK);
    assert_int_equal(ze_cmd_remove(f->c, e, ZE_ID(Position)), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, e), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, other, Velocity, {5, 6}), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);

    assert_false(ze_entity_alive(w, e));
    assert_int_equal(ze_commands_last_skipped(f->c), 4);
    assert_int_equal(ze_component_population(w, ZE_ID(Position)), 0);
    assert_int_equal(ze_component_population(w, ZE_ID(Health)), 0);
    assert_int_equal(ze_component_population(w, ZE_ID(Velocity)), 1);
    assert_true(ze_get(w, other, Velocity)->y == 6);
}

static void test_remove_absent_is_a_skip(void **state)
{
    fx_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    assert_int_equal(ze_cmd_remove(f->c, e, ZE_ID(Velocity)), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, e, Health, {5}), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(ze_commands_last_skipped(f->c), 1);
    assert_int_equal(ze_get(f->w, e, Health)->hp, 5);
}

/* ------------------------------------------------- spawn and pending ids */

typedef struct spawn_log_t {
    ze_entity_t entities[64];
    int tags[64];
    uint32_t count;
    ze_world_t *w;
    bool alive_in_callback;
} spawn_log_t;

typedef struct spawn_arg_t {
    spawn_log_t *log;
    int tag;
} spawn_arg_t;

static void on_spawn(ze_world_t *w, ze_entity_t e, void *user)
{
    spawn_arg_t *a = user;
    spawn_log_t *log = a->log;
    assert_ptr_equal(w, log->w);
    log->alive_in_callback = ze_entity_alive(w, e);
    log->entities[log->count] = e;
    log->tags[log->count++] = a->tag;
}

static void test_spawn_callbacks_in_order(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    spawn_log_t log = {.w = w};
    spawn_arg_t args[5];
    ze_entity_t pending[5];
    for (int i = 0; i < 5; i++) {
        args[i] = (spawn_arg_t){&log, 100 + i};
        pending[i] = ze_cmd_spawn(f->c, on_spawn, &args[i]);
        assert_false(ze_entity_is_null(pending[i]));
        /* A pending handle is never alive and never a real handle. */
        assert_false(ze_entity_alive(w, pending[i]));
    }
    assert_int_not_equal(pending[0].id, pending[1].id);
    ze_entity_t plain = ze_cmd_spawn(f->c, NULL, NULL); /* no callback */
    assert_int_equal(ze_world_entity_count(w), 0);

    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(log.count, 5);
    assert_true(log.alive_in_callback);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(log.tags[i], 100 + (int)i);
        assert_true(ze_entity_alive(w, log.entities[i]));
        assert_false(ze_entity_eq(log.entities[i], pending[i]));
        for (uint32_t j = 0; j < i; j++)
            assert_false(ze_entity_eq(log.entities[i], log.entities[j]));
    }
    assert_int_equal(ze_world_entity_count(w), 6);
    /* After the flush the pending handles are gone: recording with them is
     * refused rather than aimed at some other spawn. */
    assert_int_equal(ze_cmd_destroy(f->c, plain), ZE_ERR_INVALID_ARG);
}

static void test_pending_handles_targeted(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    spawn_log_t log = {.w = w};
    spawn_arg_t a0 = {&log, 0}, a1 = {&log, 1};
    ze_entity_t p0 = ze_cmd_spawn(f->c, on_spawn, &a0);
    assert_int_equal(ze_cmd_set_t(f->c, p0, Position, {7, 8}), ZE_OK);
    assert_int_equal(ze_cmd_add(f->c, p0, ZE_ID(Velocity)), ZE_OK);
    ze_entity_t p1 = ze_cmd_spawn(f->c, on_spawn, &a1);
    assert_int_equal(ze_cmd_set_t(f->c, p1, Health, {3}), ZE_OK);
    assert_int_equal(ze_cmd_destroy(f->c, p1), ZE_OK);
    assert_int_equal(ze_cmd_set_t(f->c, p1, Health, {4}), ZE_OK); /* after its destroy */
    assert_int_equal(ze_cmd_set_t(f->c, p0, Health, {9}), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);

    assert_int_equal(log.count, 2);
    ze_entity_t e0 = log.entities[0], e1 = log.entities[1];
    assert_true(ze_entity_alive(w, e0));
    assert_false(ze_entity_alive(w, e1));
    Position p = pos_of(w, e0);
    assert_true(p.x == 7 && p.y == 8);
    assert_true(ze_has(w, e0, Velocity));
    assert_int_equal(ze_get(w, e0, Health)->hp, 9);
    assert_int_equal(ze_component_population(w, ZE_ID(Health)), 1);
    assert_int_equal(ze_commands_last_skipped(f->c), 1);
}

/* ---------------------------------------------------------------- merge */

static void test_merge_renumbers_pending(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_commands_t *src = ze_commands_create(w);
    spawn_log_t log = {.w = w};
    spawn_arg_t args[4] = {{&log, 10}, {&log, 20}, {&log, 21}, {&log, 11}};

    ze_entity_t d0 = ze_cmd_spawn(f->c, on_spawn, &args[0]);
    ze_cmd_set_t(f->c, d0, Health, {10});
    ze_entity_t s0 = ze_cmd_spawn(src, on_spawn, &args[1]);
    ze_entity_t s1 = ze_cmd_spawn(src, on_spawn, &args[2]);
    ze_cmd_set_t(src, s1, Health, {21});
    ze_cmd_set_t(src, s0, Health, {20});
    /* src's ordinals 0 and 1 equal dst's handles 0 and 1 before the merge. */
    assert_int_equal(s0.id, d0.id);

    assert_int_equal(ze_commands_merge(f->c, src), ZE_OK);
    assert_int_equal(ze_commands_count(src), 0);
    assert_int_equal(ze_commands_count(f->c), 6);
    /* dst keeps recording after the merged commands, with its own next
     * ordinal (3). */
    ze_entity_t d1 = ze_cmd_spawn(f->c, on_spawn, &args[3]);
    assert_int_equal(ze_entity_index(d1), 3);
    ze_cmd_set_t(f->c, d1, Health, {11});
    /* dst's own pending handles still name dst's spawns. */
    assert_int_equal(ze_cmd_add(f->c, d0, ZE_ID(Velocity)), ZE_OK);
    /* src is empty and reusable; its old pending handles are void. */
    assert_int_equal(ze_cmd_set_t(src, s0, Health, {0}), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_commands_merge(f->c, src), ZE_OK); /* empty: no-op */

    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(log.count, 4);
    int expect[4] = {10, 20, 21, 11};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(log.tags[i], expect[i]);
        const Health *h = ze_get(w, log.entities[i], Health);
        assert_non_null(h);
        assert_int_equal(h->hp, expect[i]);
        assert_int_equal(ze_has(w, log.entities[i], Velocity), i == 0);
    }
    ze_commands_destroy(src);
}

/* ------------------------------------------------------ values and hooks */

static void fill_big(Big *b, uint32_t seed)
{
    for (uint32_t i = 0; i < sizeof b->bytes; i++)
        b->bytes[i] = (uint8_t)(i * 31u + seed);
}

static void test_large_values(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 40 }; /* 400 KiB of values: the buffer grows many times */
    ze_entity_t e[N];
    static Big big;
    for (uint32_t i = 0; i < N; i++) {
        e[i] = ze_entity_create(w);
        fill_big(&big, i);
        assert_int_equal(ze_cmd_set(f->c, e[i], ZE_ID(Big), &big), ZE_OK);
        ze_cmd_set_t(f->c, e[i], Position, {(float)i, 0});
        memset(&big, 0xee, sizeof big); /* the buffer holds its own copy */
    }
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    for (uint32_t i = 0; i < N; i++) {
        const Big *b = ze_get(w, e[i], Big);
        assert_non_null(b);
        fill_big(&big, i);
        assert_memory_equal(b->bytes, big.bytes, sizeof big.bytes);
        assert_true(pos_of(w, e[i]).x == (float)i);
    }
}

static void test_over_aligned_values_survive_merge(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_commands_t *src = ze_commands_create(w);
    ze_entity_t e[6];
    for (uint32_t i = 0; i < 6; i++) {
        e[i] = ze_entity_create(w);
        Wide v;
        for (uint32_t j = 0; j < 10; j++)
            v.v[j] = i * 100 + j;
        /* Interleave small records so values start at varied offsets. */
        ze_commands_t *c = (i & 1) ? src : f->c;
        for (uint32_t pad = 0; pad < i; pad++)
            ze_cmd_add(c, e[i], ZE_ID(Health));
        assert_int_equal(ze_cmd_set(c, e[i], ZE_ID(Wide), &v), ZE_OK);
    }
    ze_cmd_add(f->c, e[0], ZE_ID(Velocity)); /* dst ends off a 64-byte boundary */
    assert_int_equal(ze_commands_merge(f->c, src), ZE_OK);
    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    assert_int_equal(f->wide.misaligned, 0);
    for (uint32_t i = 0; i < 6; i++) {
        const Wide *v = ze_component_get(w, e[i], ZE_ID(Wide));
        assert_non_null(v);
        assert_true(v->v[9] == i * 100 + 9);
    }
    ze_commands_destroy(src);
}

static void test_set_with_hooks(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    hook_stats_t *s = &f->tracked;
    ze_entity_t a = ze_entity_create(w), gone = ze_entity_create(w);

    Tracked v = {.id = 42, .live = 1}; /* the caller's own value */
    assert_int_equal(ze_cmd_set(f->c, a, ZE_ID(Tracked), &v), ZE_OK);
    assert_int_equal(s->copies, 1); /* copied into the buffer by the hook */
    assert_int_equal(s->live, 1);
    ze_cmd_destroy(f->c, gone);
    ze_cmd_set(f->c, gone, ZE_ID(Tracked), &v); /* skipped: its copy is dropped */
    assert_int_equal(s->live, 2);

    assert_int_equal(ze_commands_flush(f->c), ZE_OK);
    const Tracked *t = ze_component_get(w, a, ZE_ID(Tracked));
    assert_non_null(t);
    assert_int_equal(t->id, 42);
    assert_int_equal(s->copies, 3); /* + into storage */
    assert_int_equal(s->live, 1);   /* only the stored one */

    /* Clearing unapplied commands destroys their buffered values. */
    v.id = 7;
    ze_cmd_set(f->c, a, ZE_ID(Tracked), &v);
    assert_int_equal(s->live, 2);
    ze_commands_clear(f->c);
    assert_int_equal(ze_commands_count(f->c), 0);
    assert_int_equal(s->live, 1);
    assert_int_equal(ze_component_get(w, a, ZE_ID(Tracked)) ? t->id : -1, 42);

    /* So does destroying a buffer that still holds some. */
    ze_commands_t *other = ze_commands_create(w);
    ze_cmd_set(other, a, ZE_ID(Tracked), &v);
    assert_int_equal(s->live, 2);
    ze_commands_destroy(other);
    assert_int_equal(s->live, 1);

    ze_entity_destroy(w, a);
    assert_int_equal(s->live, 0);
}

/* --------------------------------------------------------- flush results */

static void test_flush_reports_first_failure_and_applies_the_rest(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    uint32_t cap = ze_world_capacity(w);
    ze_entity_t last = ZE_ENTITY_NULL;
    for (uint32_t i = 0; i < cap; i++) {
        last = ze_entity_create(w);
        assert_false(ze_entity_is_null(last));
    }
    ze_entity_t p = ze_cmd_spawn(f->c, NULL, NULL); /* the world is full */
    ze_cmd_set_t(f->c, p, Position, {1, 1});        /* its target never existed */
    ze_cmd_set_t(f->c, last, Position, {2, 2});     /* still applied */
    ze_cmd_remove(f->c, last, ZE_ID(Velocity));     /* absent: a skip */
    assert_int_equal(ze_commands_flush(f->c), ZE_ERR_LIMIT);
    assert_int_equal(ze_commands_count(f->c), 0);
    assert_int_equal(ze_commands_last_skipped(f->c), 2);
    assert_true(pos_of(w, last).x == 2);
    assert_int_equal(ze_world_entity_count(w), cap);
}

/* --------------------------------------------- requests during iteration */

static void test_requests_during_iteration_applied_after(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 100 };
    ze_entity_t e[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i] = ze_entity_create(w);
        ze_set(w, e[i], Position, {(float)i, 0});
    }
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    ze_commands_t *world_cmds = ze_world_commands(w);
    assert_non_null(world_cmds);

    uint32_t visited = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++, visited++) {
            ze_entity_t x = ze_iter_entity(&it, i);
            uint32_t k = (uint32_t)p[i].x;
            switch (k % 4) {
            case 0: /* the public API defers */
                assert_int_equal(ze_entity_destroy(w, x), ZE_OK);
                assert_true(ze_entity_alive(w, x));
                break;
            case 1:
                assert_int_equal(ze_component_remove(w, x, ZE_ID(Position)), ZE_OK);
                assert_int_equal(ze_set(w, x, Velocity, {(float)k, 0}), ZE_OK);
                assert_true(ze_has(w, x, Position));
                break;
            case 2: /* the world's own buffer */
                assert_int_equal(ze_cmd_add(world_cmds, x, ZE_ID(Health)), ZE_OK);
                assert_int_equal(ze_cmd_destroy(world_cmds, e[(k + 1) % N]), ZE_OK);
                break;
            default: /* a private buffer flushed mid-iteration waits too */
                assert_int_equal(ze_cmd_set_t(f->c, x, Health, {(int)k}), ZE_OK);
                assert_int_equal(ze_commands_flush(f->c), ZE_OK);
                assert_false(ze_has(w, x, Health));
                break;
            }
        }
    }
    assert_int_equal(visited, N);
    assert_int_equal(ze_commands_count(world_cmds), 0); /* flushed at the end */

    for (uint32_t k = 0; k < N; k++) {
        switch (k % 4) {
        case 0:
            assert_false(ze_entity_alive(w, e[k]));
            break;
        case 1:
            assert_false(ze_has(w, e[k], Position));
            assert_true(ze_get(w, e[k], Velocity)->x == (float)k);
            break;
        case 2:
            assert_true(ze_has(w, e[k], Health));
            break;
        default: /* destroyed by its k-1 neighbour */
            assert_false(ze_entity_alive(w, e[k]));
            break;
        }
    }
}

/* A spawn callback that iterates and records into the world's buffer while
 * that buffer is itself being flushed: applied in the same flush. */
typedef struct reentry_t {
    ze_query_t q;
    ze_entity_t spawned;
    uint32_t seen;
} reentry_t;

static void on_spawn_reenter(ze_world_t *w, ze_entity_t e, void *user)
{
    reentry_t *r = user;
    r->spawned = e;
    ze_iter_t it = ze_query_iter(w, r->q);
    while (ze_query_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            r->seen++;
            ze_entity_destroy(w, ze_iter_entity(&it, i)); /* deferred again */
        }
    }
    ze_cmd_set_t(ze_world_commands(w), e, Velocity, {5, 5});
    ze_commands_flush(ze_world_commands(w)); /* nested: a no-op, the outer applies */
}

static void test_reentrant_flush_of_world_buffer(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t victims[3];
    for (int i = 0; i < 3; i++) {
        victims[i] = ze_entity_create(w);
        ze_set(w, victims[i], Health, {i});
    }
    ze_entity_t holder = ze_entity_create(w);
    ze_set(w, holder, Position, {0, 0});
    reentry_t r = {.q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Health)})};
    ze_query_t qp = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});

    ze_iter_t it = ze_query_iter(w, qp);
    while (ze_query_next(&it)) {
        ze_entity_t p = ze_cmd_spawn(ze_world_commands(w), on_spawn_reenter, &r);
        ze_cmd_set_t(ze_world_commands(w), p, Position, {1, 2});
    }
    assert_int_equal(r.seen, 3);
    assert_true(ze_entity_alive(w, r.spawned));
    for (int i = 0; i < 3; i++)
        assert_false(ze_entity_alive(w, victims[i]));
    assert_true(ze_get(w, r.spawned, Velocity)->x == 5);
    assert_true(pos_of(w, r.spawned).y == 2);
    assert_int_equal(ze_commands_count(ze_world_commands(w)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_applied_in_recording_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_dedup_and_dead_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_after_destroy_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_absent_is_a_skip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spawn_callbacks_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pending_handles_targeted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_renumbers_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_over_aligned_values_survive_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_with_hooks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_reports_first_failure_and_applies_the_rest,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_requests_during_iteration_applied_after, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reentrant_flush_of_world_buffer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
