/* Actors (tier 1): lifecycle order (on_create, on_tick in creation order,
 * on_destroy), creations and destructions in the middle of a tick, stale
 * handles after destroy and after slot reuse, the capacity limit, class
 * validation, instance reuse, and on_destroy in reverse creation order when
 * the world goes away. Every callback appends to one event log that the
 * tests compare against the expected sequence. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "zengine/ecs.h"

/* ------------------------------------------------------------ event log */

enum { MAX_EVENTS = 4096, MAX_TAGS = 4096 };

typedef struct probe_t {
    ze_actor_base_t base;
    int tag; /* 1, 2, 3... in creation order */
    int ticks;
    float last_dt;
} probe_t;

static char g_log[MAX_EVENTS * 8];
static int g_next_tag;
static ze_actor_t g_handle[MAX_TAGS]; /* by tag */
static ze_world_t *g_world;

/* Scripted reactions, by tag: on the given tick count, destroy these tags
 * and create this many new probes. */
typedef struct script_t {
    int on_tick;      /* react when ticks reaches this (0 = never) */
    int destroy[4];   /* tags, 0 = none */
    int create;       /* new probes to create */
    int destroy_self; /* on that tick */
} script_t;
static script_t g_script[MAX_TAGS];

static void log_event(char kind, int tag)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%s%c%d", g_log[0] ? " " : "", kind, tag);
    strncat(g_log, buf, sizeof g_log - strlen(g_log) - 1);
}

static void reset_log(void)
{
    g_log[0] = 0;
}

static const ze_actor_class_t g_probe_class;

static void probe_create(void *self)
{
    probe_t *p = self;
    /* The instance arrives zeroed with its base filled in. */
    assert_int_equal(p->tag, 0);
    assert_int_equal(p->ticks, 0);
    assert_non_null(p->base.world);
    assert_true(ze_entity_alive(p->base.world, p->base.entity));
    assert_int_not_equal(p->base.handle, 0);
    p->tag = ++g_next_tag;
    assert_true(p->tag < MAX_TAGS);
    g_handle[p->tag] = (ze_actor_t){p->base.handle};
    /* What an on_create typically does: give its entity components. */
    ze_transform_t t = ze_transform_identity();
    t.position.x = (float)p->tag;
    assert_int_equal(ze_component_set(p->base.world, p->base.entity, ZE_ID(ze_transform_t), &t),
                     ZE_OK);
    log_event('c', p->tag);
}

static void probe_tick(void *self, float dt)
{
    probe_t *p = self;
    p->ticks++;
    p->last_dt = dt;
    log_event('t', p->tag);
    const script_t *s = &g_script[p->tag];
    if (s->on_tick && s->on_tick == p->ticks) {
        for (int i = 0; i < 4 && s->destroy[i]; i++)
            assert_int_equal(ze_actor_destroy(p->base.world, g_handle[s->destroy[i]]), ZE_OK);
        for (int i = 0; i < s->create; i++)
            assert_int_not_equal(ze_actor_create(p->base.world, &g_probe_class).id, 0);
        if (s->destroy_self)
            assert_int_equal(ze_actor_destroy(p->base.world, (ze_actor_t){p->base.handle}), ZE_OK);
    }
}

static void probe_destroy(void *self)
{
    probe_t *p = self;
    /* The entity and its components are still there. */
    const ze_transform_t *t = ze_get(p->base.world, p->base.entity, ze_transform_t);
    assert_non_null(t);
    assert_true(t->position.x == (float)p->tag);
    /* Still resolvable while on its way out, but not destroyable twice. */
    assert_ptr_equal(ze_actor_get(p->base.world, (ze_actor_t){p->base.handle}), p);
    assert_int_equal(ze_actor_destroy(p->base.world, (ze_actor_t){p->base.handle}),
                     ZE_ERR_NOT_FOUND);
    log_event('d', p->tag);
    const script_t *s = &g_script[p->tag];
    if (!s->on_tick) { /* scripted destroys without a tick: on destroy */
        for (int i = 0; i < 4 && s->destroy[i]; i++)
            ze_actor_destroy(p->base.world, g_handle[s->destroy[i]]);
    }
}

static const ze_actor_class_t g_probe_class = {
    .name = "probe",
    .size = sizeof(probe_t),
    .on_create = probe_create,
    .on_tick = probe_tick,
    .on_destroy = probe_destroy,
};

typedef struct fixture_t {
    ze_kernel_t *k;
    ze_world_t *w;
} fixture_t;

static fixture_t fixture(uint32_t actor_capacity)
{
    fixture_t f;
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    f.w = ze_world_create(f.k,
                          &(ze_world_desc_t){.name = "actors", .actor_capacity = actor_capacity});
    assert_non_null(f.w);
    reset_log();
    g_next_tag = 0;
    memset(g_handle, 0, sizeof g_handle);
    memset(g_script, 0, sizeof g_script);
    g_world = f.w;
    return f;
}

static void fixture_end(fixture_t *f)
{
    ze_kernel_destroy(f->k); /* destroys the world too */
}

static ze_actor_t make(ze_world_t *w)
{
    ze_actor_t a = ze_actor_create(w, &g_probe_class);
    assert_int_not_equal(a.id, 0);
    return a;
}

#define expect_log(want)                  \
    do {                                  \
        assert_string_equal(g_log, want); \
        reset_log();                      \
    } while (0)

/* ---------------------------------------------------------------- tests */

static void test_lifecycle_order(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    assert_int_equal(ze_actor_count(f.w), 0);
    ze_actors_tick(f.w, 0.5f); /* no manager yet: nothing happens */

    ze_actor_t a = make(f.w), b = make(f.w), c = make(f.w);
    expect_log("c1 c2 c3");
    assert_int_equal(ze_actor_count(f.w), 3);
    assert_int_equal(ze_world_entity_count(f.w), 3);

    probe_t *pb = ze_actor_get(f.w, b);
    assert_non_null(pb);
    assert_int_equal(pb->tag, 2);
    assert_int_equal(pb->base.handle, b.id);
    assert_ptr_equal(pb->base.world, f.w);
    ze_entity_t eb = pb->base.entity;
    assert_true(ze_has(f.w, eb, ze_transform_t));

    ze_actors_tick(f.w, 0.25f);
    expect_log("t1 t2 t3");
    assert_true(pb->last_dt == 0.25f);

    assert_int_equal(ze_actor_destroy(f.w, b), ZE_OK);
    expect_log("d2");
    assert_false(ze_entity_alive(f.w, eb));
    assert_null(ze_actor_get(f.w, b));
    assert_int_equal(ze_actor_count(f.w), 2);
    assert_int_equal(ze_world_entity_count(f.w), 2);

    ze_actors_tick(f.w, 0.25f);
    expect_log("t1 t3");
    ze_actor_t d = make(f.w);
    expect_log("c4");
    ze_actors_tick(f.w, 0.25f);
    expect_log("t1 t3 t4"); /* d reused b's slot but ticks after c */

    assert_int_equal(ze_actor_destroy(f.w, a), ZE_OK);
    assert_int_equal(ze_actor_destroy(f.w, d), ZE_OK);
    assert_int_equal(ze_actor_destroy(f.w, c), ZE_OK);
    expect_log("d1 d4 d3");
    assert_int_equal(ze_actor_count(f.w), 0);
    ze_actors_tick(f.w, 0.25f);
    expect_log("");
    fixture_end(&f);
}

static void test_changes_during_tick(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    for (int i = 0; i < 4; i++)
        make(f.w);
    expect_log("c1 c2 c3 c4");
    /* On its first tick, 2 destroys 3 (not ticked yet) and 1 (ticked),
     * creates 5 (ticked from the next tick on). */
    g_script[2] = (script_t){.on_tick = 1, .destroy = {3, 1}, .create = 1};
    /* On its second tick, 4 destroys itself and creates two more. */
    g_script[4] = (script_t){.on_tick = 2, .create = 2, .destroy_self = 1};
    ze_actors_tick(f.w, 1.0f);
    expect_log("t1 t2 d3 d1 c5 t4");
    assert_int_equal(ze_actor_count(f.w), 3);
    ze_actors_tick(f.w, 1.0f);
    expect_log("t2 t4 c6 c7 d4 t5");
    ze_actors_tick(f.w, 1.0f);
    expect_log("t2 t5 t6 t7");
    assert_int_equal(ze_actor_count(f.w), 4);
    assert_int_equal(ze_world_entity_count(f.w), 4);
    fixture_end(&f);
}

static void test_stale_handles(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    ze_actor_t a = make(f.w);
    ze_entity_t ea = ((probe_t *)ze_actor_get(f.w, a))->base.entity;
    assert_int_equal(ze_actor_destroy(f.w, a), ZE_OK);
    /* After destroy. */
    assert_null(ze_actor_get(f.w, a));
    assert_int_equal(ze_actor_destroy(f.w, a), ZE_ERR_NOT_FOUND);
    assert_false(ze_entity_alive(f.w, ea));

    /* After slot reuse: the new actor takes the same slot, the old handle
     * still resolves to nothing and cannot destroy the new one. */
    ze_actor_t b = make(f.w);
    assert_int_not_equal(a.id, b.id);
    assert_null(ze_actor_get(f.w, a));
    probe_t *pb = ze_actor_get(f.w, b);
    assert_non_null(pb);
    assert_int_equal(pb->tag, 2);
    assert_int_equal(ze_actor_destroy(f.w, a), ZE_ERR_NOT_FOUND);
    assert_ptr_equal(ze_actor_get(f.w, b), pb);
    assert_int_equal(ze_actor_count(f.w), 1);

    /* Handles that never existed. */
    assert_null(ze_actor_get(f.w, (ze_actor_t){0}));
    assert_int_equal(ze_actor_destroy(f.w, (ze_actor_t){0}), ZE_ERR_NOT_FOUND);
    assert_null(ze_actor_get(f.w, (ze_actor_t){b.id + 1}));
    assert_null(ze_actor_get(f.w, (ze_actor_t){UINT32_MAX}));

    /* Many reuses of one slot: every old handle stays stale. */
    ze_actor_t old[64];
    for (int i = 0; i < 64; i++) {
        assert_int_equal(ze_actor_destroy(f.w, b), ZE_OK);
        old[i] = b;
        b = make(f.w);
    }
    for (int i = 0; i < 64; i++) {
        assert_int_not_equal(old[i].id, b.id);
        assert_null(ze_actor_get(f.w, old[i]));
    }
    assert_non_null(ze_actor_get(f.w, b));

    /* A handle from another world's manager is not this world's actor. */
    ze_world_t *w2 = ze_world_create(f.k, &(ze_world_desc_t){.name = "other"});
    assert_non_null(w2);
    assert_null(ze_actor_get(w2, b));
    assert_int_equal(ze_actor_destroy(w2, b), ZE_ERR_NOT_FOUND);
    ze_world_destroy(w2);
    fixture_end(&f);
}

/* With the largest capacity the handle keeps 12 generation bits: a slot
 * reused 4,095 times is retired rather than wrapping to an old handle. */
static void test_generation_retirement(void **state)
{
    (void)state;
    fixture_t f = fixture(1u << 20);
    enum { N = 5000 };
    static uint32_t ids[N];
    ze_actor_class_t bare = {.name = "bare", .size = sizeof(ze_actor_base_t)};
    for (int i = 0; i < N; i++) {
        ze_actor_t a = ze_actor_create(f.w, &bare);
        assert_int_not_equal(a.id, 0);
        ids[i] = a.id;
        assert_int_equal(ze_actor_destroy(f.w, a), ZE_OK);
    }
    for (int i = 0; i < N; i++) {
        assert_null(ze_actor_get(f.w, (ze_actor_t){ids[i]}));
        for (int j = i + 1; j < N; j++)
            assert_true(ids[i] != ids[j]);
    }
    fixture_end(&f);
}

static void test_capacity_limit(void **state)
{
    (void)state;
    fixture_t f = fixture(4);
    ze_actor_t a[4];
    for (int i = 0; i < 4; i++)
        a[i] = make(f.w);
    uint64_t errors = ze_log_count(ZE_LOG_ERROR);
    ze_actor_t over = ze_actor_create(f.w, &g_probe_class);
    assert_int_equal(over.id, 0);
    assert_int_equal(ze_log_count(ZE_LOG_ERROR), errors + 1); /* said why */
    assert_int_equal(ze_actor_count(f.w), 4);
    assert_int_equal(ze_world_entity_count(f.w), 4); /* no entity leaked */
    expect_log("c1 c2 c3 c4");

    assert_int_equal(ze_actor_destroy(f.w, a[1]), ZE_OK);
    ze_actor_t again = ze_actor_create(f.w, &g_probe_class);
    assert_int_not_equal(again.id, 0);
    assert_int_equal(ze_actor_create(f.w, &g_probe_class).id, 0);
    fixture_end(&f);

    /* The default limit is ZE_DEFAULT_ACTOR_CAPACITY. */
    f = fixture(0);
    for (uint32_t i = 0; i < ZE_DEFAULT_ACTOR_CAPACITY; i++)
        make(f.w);
    assert_int_equal(ze_actor_create(f.w, &g_probe_class).id, 0);
    assert_int_equal(ze_actor_count(f.w), ZE_DEFAULT_ACTOR_CAPACITY);
    reset_log();
    ze_actors_tick(f.w, 0.0f);
    assert_int_equal(strlen(g_log) > 0, 1);
    fixture_end(&f);
}

static void test_world_destroy_reverse_order(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    ze_actor_t a[5];
    for (int i = 0; i < 5; i++)
        a[i] = make(f.w);
    assert_int_equal(ze_actor_destroy(f.w, a[1]), ZE_OK);
    ze_actor_t six = make(f.w); /* reuses the slot of 2, created last */
    (void)six;
    expect_log("c1 c2 c3 c4 c5 d2 c6");
    ze_world_destroy(f.w);
    expect_log("d6 d5 d4 d3 d1");
    ze_kernel_destroy(f.k);

    /* Kernel destroy takes its worlds, and their actors, with it; an
     * on_destroy that destroys an older actor removes it from the walk. */
    f = fixture(0);
    for (int i = 0; i < 4; i++)
        make(f.w);
    g_script[4] = (script_t){.destroy = {2}};
    reset_log();
    ze_kernel_destroy(f.k);
    expect_log("d4 d2 d3 d1");
}

static void test_class_validation(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    uint64_t errors = ze_log_count(ZE_LOG_ERROR);
    ze_actor_class_t small = {.name = "small", .size = sizeof(ze_actor_base_t) - 1};
    assert_int_equal(ze_actor_create(f.w, &small).id, 0);
    ze_actor_class_t nameless = {.size = sizeof(probe_t)};
    assert_int_equal(ze_actor_create(f.w, &nameless).id, 0);
    assert_int_equal(ze_log_count(ZE_LOG_ERROR), errors + 2);
    assert_int_equal(ze_actor_count(f.w), 0);
    assert_int_equal(ze_world_entity_count(f.w), 0);

    /* A class with no callbacks at all is fine. */
    ze_actor_class_t bare = {.name = "bare", .size = sizeof(ze_actor_base_t)};
    ze_actor_t a = ze_actor_create(f.w, &bare);
    assert_int_not_equal(a.id, 0);
    ze_actors_tick(f.w, 1.0f);
    assert_int_equal(ze_actor_destroy(f.w, a), ZE_OK);
    fixture_end(&f);
}

typedef struct big_t {
    ze_actor_base_t base;
    uint8_t payload[3000];
} big_t;

static void test_instances_zeroed_and_reused(void **state)
{
    (void)state;
    fixture_t f = fixture(0);
    ze_actor_class_t big = {.name = "big", .size = sizeof(big_t)};
    ze_actor_class_t bare = {.name = "bare", .size = sizeof(ze_actor_base_t)};
    ze_actor_t a = ze_actor_create(f.w, &big);
    ze_actor_t s = ze_actor_create(f.w, &bare);
    big_t *pa = ze_actor_get(f.w, a);
    assert_non_null(pa);
    assert_int_equal((uintptr_t)pa % 16, 0);
    memset(pa->payload, 0xAB, sizeof pa->payload);
    assert_int_equal(ze_actor_destroy(f.w, a), ZE_OK);

    /* Same size class: the freed block comes back, zeroed. */
    ze_actor_t b = ze_actor_create(f.w, &big);
    big_t *pb = ze_actor_get(f.w, b);
    assert_ptr_equal(pb, pa);
    for (size_t i = 0; i < sizeof pb->payload; i++)
        assert_int_equal(pb->payload[i], 0);
    assert_true(ze_entity_alive(f.w, pb->base.entity));
    assert_int_equal(pb->base.handle, b.id);
    assert_non_null(ze_actor_get(f.w, s));

    /* Churn: many creates and destroys stay within a few blocks. */
    for (int i = 0; i < 10000; i++) {
        ze_actor_t t = ze_actor_create(f.w, (i & 1) ? &big : &bare);
        assert_int_not_equal(t.id, 0);
        assert_int_equal(ze_actor_destroy(f.w, t), ZE_OK);
    }
    assert_int_equal(ze_actor_count(f.w), 2);
    fixture_end(&f);
}

/* Random creates, destroys and ticks against a model: the list of alive
 * tags in creation order. */
static void test_churn_against_model(void **state)
{
    (void)state;
    fixture_t f = fixture(32);
    ze_rng_t rng;
    ze_rng_seed(&rng, 42);
    int alive[64];
    int alive_n = 0;
    for (int round = 0; round < 3000; round++) {
        uint64_t r = ze_rng_below(&rng, 10);
        if (r < 5 && (alive_n < 32 || round % 64 == 0)) {
            ze_actor_t a = ze_actor_create(f.w, &g_probe_class);
            if (alive_n == 32) { /* full: refused (now and then, not to flood the log) */
                assert_int_equal(a.id, 0);
                continue;
            }
            assert_int_not_equal(a.id, 0);
            probe_t *p = ze_actor_get(f.w, a);
            alive[alive_n++] = p->tag;
        } else if (r < 8 && alive_n) {
            int i = (int)ze_rng_below(&rng, (uint64_t)alive_n);
            assert_int_equal(ze_actor_destroy(f.w, g_handle[alive[i]]), ZE_OK);
            memmove(&alive[i], &alive[i + 1], (size_t)(alive_n - i - 1) * sizeof alive[0]);
            alive_n--;
        } else {
            reset_log();
            ze_actors_tick(f.w, 0.0f);
            char want[sizeof g_log];
            want[0] = 0;
            for (int i = 0; i < alive_n; i++) {
                char buf[16];
                snprintf(buf, sizeof buf, "%st%d", i ? " " : "", alive[i]);
                strcat(want, buf);
            }
            assert_string_equal(g_log, want);
        }
        reset_log();
        assert_int_equal(ze_actor_count(f.w), (uint32_t)alive_n);
    }
    fixture_end(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle_order),
        cmocka_unit_test(test_changes_during_tick),
        cmocka_unit_test(test_stale_handles),
        cmocka_unit_test(test_generation_retirement),
        cmocka_unit_test(test_capacity_limit),
        cmocka_unit_test(test_world_destroy_reverse_order),
        cmocka_unit_test(test_class_validation),
        cmocka_unit_test(test_instances_zeroed_and_reused),
        cmocka_unit_test(test_churn_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
