/* Entities and component storage: handles, generations, retirement,
 * add/set/get/has/remove semantics, hooks, tags, the component limit and
 * the errors naming each registration limit, the world capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "ecs/ecs_internal.h"
#include "ecs/ecs_log_capture.h"

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;
typedef struct Big {
    uint8_t bytes[1000];
} Big;

typedef struct fixture_t {
    ze_kernel_t *k;
    ze_world_t *w;
} fixture_t;

static int setup(void **state)
{
    static fixture_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    if (!f.k)
        return -1;
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.name = "test", .capacity = 10000});
    *state = &f;
    return f.w ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

static void test_create_destroy_alive(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    assert_false(ze_entity_is_null(a));
    assert_false(ze_entity_eq(a, b));
    assert_true(ze_entity_alive(w, a) && ze_entity_alive(w, b));
    assert_int_equal(ze_world_entity_count(w), 2);
    assert_int_equal(ze_entity_destroy(w, a), ZE_OK);
    assert_false(ze_entity_alive(w, a));
    assert_int_equal(ze_entity_destroy(w, a), ZE_ERR_NOT_FOUND);
    assert_false(ze_entity_alive(w, ZE_ENTITY_NULL));
    assert_false(ze_entity_alive(w, (ze_entity_t){(uint64_t)1 << 32 | 9999}));
    assert_int_equal(ze_world_entity_count(w), 1);
}

static void test_stale_handle_after_reuse_reads_nothing(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ZE_COMPONENT(f->k, Position);
    ze_entity_t a = ze_entity_create(w);
    ze_set(w, a, Position, {1, 2});
    ze_entity_destroy(w, a);
    ze_entity_t b = ze_entity_create(w); /* reuses a's slot */
    assert_int_equal(ze_entity_index(a), ze_entity_index(b));
    assert_int_not_equal(ze_entity_generation(a), ze_entity_generation(b));
    ze_set(w, b, Position, {7, 8});
    assert_false(ze_entity_alive(w, a));
    assert_null(ze_get(w, a, Position)); /* never b's data */
    assert_false(ze_has(w, a, Position));
    assert_int_equal(ze_set(w, a, Position, {9, 9}), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_remove(w, a, Position), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_entity_destroy(w, a), ZE_ERR_NOT_FOUND);
    assert_true(ze_get(w, b, Position)->x == 7);
    /* A forged handle with the slot's next generation is not alive either. */
    ze_entity_destroy(w, b);
    ze_entity_t forged = {(uint64_t)(ze_entity_generation(b) + 1) << 32 | ze_entity_index(b)};
    assert_false(ze_entity_alive(w, forged));
    assert_true(ze_entity_is_null(ze_entity_from_index(w, ze_entity_index(b))));
}

static void test_generation_retirement(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t a = ze_entity_create(w);
    uint32_t idx = ze_entity_index(a);
    /* Jump the slot to its last generation (2^31 - 1) without 2 billion cycles. */
    w->gen[idx] = ZE__GEN_MAX;
    ze_entity_t last = ze_entity_from_index(w, idx);
    assert_int_equal(ze_entity_generation(last), ZE__GEN_MAX);
    assert_int_equal(ze_entity_destroy(w, last), ZE_OK);
    /* The slot is retired: new entities never land on it again. */
    for (int i = 0; i < 100; i++) {
        ze_entity_t e = ze_entity_create(w);
        assert_int_not_equal(ze_entity_index(e), idx);
    }
    assert_false(ze_entity_alive(w, last));
    assert_int_equal(w->retired, 1);
    /* The same on a deferred destroy (plain data): the slot is retired at
     * the destroy, its ghost entry removed later. */
    ZE_COMPONENT(f->k, Position);
    ze_entity_t b = ze_entity_create(w), c = ze_entity_create(w);
    ze_set(w, b, Position, {1, 1});
    ze_set(w, c, Position, {2, 2});
    assert_int_equal(ze_entity_destroy(w, b), ZE_OK);
    uint32_t cidx = ze_entity_index(c);
    w->gen[cidx] = ZE__GEN_MAX;
    c = ze_entity_from_index(w, cidx);
    assert_int_equal(ze_entity_destroy(w, c), ZE_OK);
    assert_int_equal(w->pend_count, 2);
    assert_false(ze_entity_alive(w, c));
    assert_int_equal(w->retired, 2);
    assert_int_equal(ze_component_population(w, ZE_ID(Position)), 0);
    for (int i = 0; i < 100; i++)
        assert_int_not_equal(ze_entity_index(ze_entity_create(w)), cidx);
}

static void test_capacity_exhausted(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = 4096});
    assert_int_equal(ze_world_capacity(w), 4096);
    for (int i = 0; i < 4096; i++)
        assert_false(ze_entity_is_null(ze_entity_create(w)));
    assert_true(ze_entity_is_null(ze_entity_create(w)));
    ze_kernel_destroy(k);
}

/* A capacity that is not a multiple of the storage page is honoured as
 * asked: that many entities, not one more, and components work up to the
 * last slot. */
static void test_capacity_honoured_exactly(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ZE_COMPONENT(k, Position);
    const uint32_t caps[] = {1, 100, 4097, 5000};
    for (size_t c = 0; c < ZE_COUNTOF(caps); c++) {
        ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = caps[c]});
        assert_non_null(w);
        assert_int_equal(ze_world_capacity(w), caps[c]);
        ze_entity_t last = ZE_ENTITY_NULL;
        for (uint32_t i = 0; i < caps[c]; i++) {
            last = ze_entity_create(w);
            assert_false(ze_entity_is_null(last));
        }
        assert_true(ze_entity_is_null(ze_entity_create(w)));
        assert_int_equal(ze_world_entity_count(w), caps[c]);
        assert_int_equal(ze_entity_index(last), caps[c] - 1);
        assert_int_equal(ze_set(w, last, Position, {1, 2}), ZE_OK);
        assert_true(ze_get(w, last, Position)->y == 2.0f);
        /* a freed slot is usable again; still no more than asked */
        assert_int_equal(ze_entity_destroy(w, last), ZE_OK);
        assert_false(ze_entity_is_null(ze_entity_create(w)));
        assert_true(ze_entity_is_null(ze_entity_create(w)));
        ze_world_destroy(w);
    }
    /* Above the limit: refused, not clamped. */
    assert_null(ze_world_create(k, &(ze_world_desc_t){.capacity = ZE_MAX_WORLD_CAPACITY + 1}));
    ze_kernel_destroy(k);
}

static void test_component_semantics(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ZE_COMPONENT(f->k, Position);
    ZE_COMPONENT(f->k, Velocity);
    ze_entity_t e = ze_entity_create(w);
    /* Absent reads as absent: no silent default insert. */
    assert_null(ze_get(w, e, Position));
    assert_false(ze_has(w, e, Position));
    assert_int_equal(ze_component_population(w, ZE_ID(Position)), 0);
    /* Removing an absent component is a no-op that reports so. */
    assert_int_equal(ze_remove(w, e, Position), ZE_ERR_NOT_FOUND);
    Position *p = ze_add(w, e, Position);
    assert_non_null(p);
    assert_true(p->x == 0 && p->y == 0);         /* zeroed default */
    assert_ptr_equal(ze_add(w, e, Position), p); /* add again returns it */
    assert_int_equal(ze_set(w, e, Position, {3, 4}), ZE_OK);
    assert_true(ze_get(w, e, Position)->y == 4);
    assert_true(ze_mask_eq(ze_entity_mask(w, e), ZE_MASK(Position)));
    ze_set(w, e, Velocity, {1, 1});
    assert_true(ze_mask_eq(ze_entity_mask(w, e), ZE_MASK(Position, Velocity)));
    assert_int_equal(ze_remove(w, e, Position), ZE_OK);
    assert_null(ze_get(w, e, Position));
    assert_true(ze_get(w, e, Velocity)->x == 1);
    assert_int_equal(ze_component_population(w, ZE_ID(Velocity)), 1);
    ze_entity_destroy(w, e);
    assert_int_equal(ze_component_population(w, ZE_ID(Velocity)), 0);
    assert_null(ze_component_get(w, e, ZE_COMPONENT_INVALID));
    assert_int_equal(ze_component_set(w, e, ZE_COMPONENT_INVALID, &(Position){0}),
                     ZE_ERR_INVALID_ARG);
}

static void test_swap_remove_keeps_others_intact(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ZE_COMPONENT(f->k, Position);
    ze_entity_t es[5000];
    for (int i = 0; i < 5000; i++) {
        es[i] = ze_entity_create(w);
        ze_set(w, es[i], Position, {(float)i, (float)-i});
    }
    ze_rng_t rng;
    ze_rng_seed(&rng, 3);
    bool removed[5000] = {0};
    for (int n = 0; n < 2500; n++) {
        int i = (int)ze_rng_below(&rng, 5000);
        if (!removed[i]) {
            assert_int_equal(ze_remove(w, es[i], Position), ZE_OK);
            removed[i] = true;
        }
    }
    for (int i = 0; i < 5000; i++) {
        const Position *p = ze_get(w, es[i], Position);
        if (removed[i])
            assert_null(p);
        else
            assert_true(p && p->x == (float)i && p->y == (float)-i);
    }
}

static int g_ctor, g_dtor, g_copy, g_move;
static void big_ctor(void *p, uint32_t n, void *u)
{
    (void)u;
    g_ctor += (int)n;
    memset(p, 0xab, sizeof(Big) * n);
}
static void big_dtor(void *p, uint32_t n, void *u)
{
    (void)p, (void)u;
    g_dtor += (int)n;
}
static void big_copy(void *d, const void *s, uint32_t n, void *u)
{
    (void)u;
    g_copy += (int)n;
    memcpy(d, s, sizeof(Big) * n);
}
static void big_move(void *d, void *s, uint32_t n, void *u)
{
    (void)u;
    g_move += (int)n;
    memcpy(d, s, sizeof(Big) * n);
}

static void test_hooks_and_large_components(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_component_t big;
    assert_int_equal(
        ze_component_register(
            f->k,
            &(ze_component_desc_t){
                .name = "Big",
                .size = sizeof(Big),
                .align = 8,
                .hooks = {.ctor = big_ctor, .dtor = big_dtor, .copy = big_copy, .move = big_move}},
            &big),
        ZE_OK);
    g_ctor = g_dtor = g_copy = g_move = 0;
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    Big *pa = ze_component_add(w, a, big);
    assert_int_equal(g_ctor, 1);
    assert_int_equal(pa->bytes[999], 0xab);
    Big v;
    memset(&v, 7, sizeof v);
    assert_int_equal(ze_component_set(w, b, big, &v), ZE_OK);
    assert_int_equal(g_copy, 1);
    assert_int_equal(ze_component_remove(w, a, big), ZE_OK); /* b moves into a's slot */
    assert_int_equal(g_dtor, 1);
    assert_int_equal(g_move, 1);
    assert_int_equal(((Big *)ze_component_get(w, b, big))->bytes[500], 7);
    ze_entity_destroy(w, b);
    assert_int_equal(g_dtor, 2);
    ze_entity_t c = ze_entity_create(w);
    ze_component_add(w, c, big);
    ze_world_destroy(w); /* remaining components are destroyed */
    assert_int_equal(g_dtor, 3);
    f->w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 10000});
}

static void test_tags(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    typedef struct Enemy {
        char unused;
    } Enemy;
    ZE_TAG(f->k, Enemy);
    assert_int_equal(ze_component_info(f->k, ZE_ID(Enemy))->size, 0);
    ze_entity_t e = ze_entity_create(w), e2 = ze_entity_create(w);
    /* No data, but added: a non-NULL placeholder, the same for every tag and
     * entity, whether the tag was there already or not. */
    void *tag = ze_component_add(w, e, ZE_ID(Enemy));
    assert_non_null(tag);
    assert_true(ze_has(w, e, Enemy));
    assert_ptr_equal(ze_component_add(w, e, ZE_ID(Enemy)), tag); /* present already */
    assert_ptr_equal(ze_add(w, e2, Enemy), tag);
    assert_null(ze_component_get(w, e, ZE_ID(Enemy))); /* get reads data: a tag has none */
    assert_null(ze_component_add(w, ZE_ENTITY_NULL, ZE_ID(Enemy)));
    assert_int_equal(ze_remove(w, e, Enemy), ZE_OK);
    assert_false(ze_has(w, e, Enemy));
    assert_true(ze_has(w, e2, Enemy));
}

static void test_registry_limits_and_conflicts(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_int_equal(ze_component_count(k), ZE_BUILTIN_COMPONENT_COUNT);
    ze_component_t t;
    assert_int_equal(ze_component_find(k, "Transform", &t), ZE_OK);
    assert_int_equal(t.id, ZE_ID(ze_transform_t).id);
    ZE_COMPONENT(k, Position);
    ze_component_t again;
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "Position", .size = 8, .align = 4},
                              &again),
        ZE_OK);
    assert_int_equal(again.id, ZE_ID(Position).id);
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "Position", .size = 12}, &again),
        ZE_ERR_CONFLICT);
    char name[32];
    uint32_t n = ze_component_count(k);
    for (uint32_t i = n; i < ZE_MAX_COMPONENTS; i++) {
        snprintf(name, sizeof name, "C%u", i);
        assert_int_equal(
            ze_component_register(k, &(ze_component_desc_t){.name = name, .size = 4}, &again),
            ZE_OK);
    }
    ze_component_t keep = again;
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "OneTooMany", .size = 4}, &again),
        ZE_ERR_LIMIT);
    assert_int_equal(again.id, keep.id); /* untouched */
    /* The error names the limit. */
    assert_true(log_captured(&cap, "OneTooMany", "65535", "limit"));
    ze_log_reset();
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_kernel_destroy(k);
}

/* Every limit a registration can hit is named in its error. */
static void test_registry_errors_name_the_limit(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    static log_capture_t cap;
    log_capture_begin(&cap);
    ze_component_t c = {77};
    char long_name[ZE_COMPONENT_NAME_MAX + 8];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(ze_component_register(k, &(ze_component_desc_t){.name = long_name}, &c),
                     ZE_ERR_INVALID_ARG);
    assert_true(log_captured(&cap, "63", "characters", NULL));
    assert_int_equal(ze_component_register(
                         k, &(ze_component_desc_t){.name = "Huge", .size = (1u << 20) + 16}, &c),
                     ZE_ERR_LIMIT);
    assert_true(log_captured(&cap, "Huge", "1048576", "limit"));
    assert_int_equal(
        ze_component_register(
            k, &(ze_component_desc_t){.name = "Wide", .size = 8192, .align = 8192}, &c),
        ZE_ERR_LIMIT);
    assert_true(log_captured(&cap, "Wide", "4096", "limit"));
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "Odd", .size = 6, .align = 3}, &c),
        ZE_ERR_INVALID_ARG);
    assert_true(log_captured(&cap, "Odd", "power of two", NULL));
    assert_int_equal(c.id, 77); /* untouched every time */
    assert_int_equal(ze_component_count(k), ZE_BUILTIN_COMPONENT_COUNT);
    ze_log_reset();
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_kernel_destroy(k);
}

static void test_builtin_defaults(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ze_entity_t e = ze_entity_create(w);
    ze_transform_t *t = ze_add(w, e, ze_transform_t);
    assert_true(t->scale.x == 1 && t->rotation.w == 1 && t->world.m[3][3] == 1);
    ze_mesh_t *m = ze_add(w, e, ze_mesh_t);
    assert_int_equal(m->render_instance, ZE_RENDER_INSTANCE_NONE);
    assert_string_equal(ze_component_info(f->k, ZE_ID(ze_rigidbody_t))->name, "RigidBody");
}

static void test_world_hash(void **state)
{
    fixture_t *f = *state;
    ZE_COMPONENT(f->k, Position);
    ze_world_t *a = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    ze_world_t *b = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    for (int i = 0; i < 100; i++) {
        ze_set(a, ze_entity_create(a), Position, {(float)i, 0});
        ze_set(b, ze_entity_create(b), Position, {(float)i, 0});
    }
    assert_true(ze_world_hash(a) == ze_world_hash(b));
    ze_get_mut(b, ze_entity_from_index(b, 50), Position)->y = 1;
    assert_true(ze_world_hash(a) != ze_world_hash(b));
    ze_world_destroy(a);
    ze_world_destroy(b);
}

/* Adds through the short path (a plain pool, storage there) and the long
 * one (first use, new pages: data page 0 grows 16 -> 64 -> ... -> 4096,
 * then whole pages; new sparse pages) read back the same. */
static void test_add_paths_and_page_growth(void **state)
{
    fixture_t *f = *state;
    ze_world_t *w = f->w;
    ZE_COMPONENT(f->k, Position);
    ZE_COMPONENT(f->k, Velocity);
    enum { N = 9000 }; /* three sparse pages, three dense pages */
    static ze_entity_t es[N];
    for (int i = 0; i < N; i++)
        es[i] = ze_entity_create(w);
    for (int i = N - 1; i >= 0; i--) { /* sparse pages from the top down */
        if (i % 2)
            assert_int_equal(ze_set(w, es[i], Position, {(float)i, (float)-i}), ZE_OK);
        else
            *ze_add(w, es[i], Position) = (Position){(float)i, (float)-i};
        assert_int_equal(ze_component_population(w, ZE_ID(Position)), (uint32_t)(N - i));
    }
    for (int i = 0; i < N; i++) {
        const Position *p = ze_get(w, es[i], Position);
        assert_true(p && p->x == (float)i && p->y == (float)-i);
        assert_ptr_equal(ze_component_get(w, es[i], ZE_ID(Position)), p);
    }
    /* Setting a value it has is a write; adding it again returns it. */
    assert_int_equal(ze_set(w, es[5], Position, {50, 50}), ZE_OK);
    assert_true(ze_add(w, es[5], Position)->x == 50);
    assert_int_equal(ze_component_population(w, ZE_ID(Position)), N);
    /* Velocity only on the first slot: the other slots' sparse pages were
     * never needed, and read as absent. */
    ze_set(w, es[0], Velocity, {1, 1});
    assert_null(ze_get(w, es[N - 1], Velocity));
    assert_null(ze_component_get(w, es[N - 1], ZE_ID(Velocity)));
    assert_null(ze_component_get_inline(w, es[N - 1], ZE_ID(Velocity)));
    assert_false(ze_has(w, es[N - 1], Velocity));
    assert_int_equal(ze_remove(w, es[N - 1], Velocity), ZE_ERR_NOT_FOUND);
    assert_true(ze_get(w, es[0], Velocity)->x == 1);
    /* Refusals and bad arguments on the short path's entry. */
    assert_int_equal(ze_component_set(w, es[1], ZE_ID(Position), NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_component_set(w, ZE_ENTITY_NULL, ZE_ID(Position), &(Position){0}),
                     ZE_ERR_NOT_FOUND);
}

/* A destroy frees the slot at once: the next create reuses it (last freed
 * first), stale handles read nothing, queries and populations no longer
 * count it; whichever removal path ran (a world with packs, one
 * without), the worlds hash equal. */
static void test_destroy_then_create_iterate_hash(void **state)
{
    fixture_t *f = *state;
    ZE_COMPONENT(f->k, Position);
    ZE_COMPONENT(f->k, Velocity);
    ze_world_t *ws[2] = {
        ze_world_create(f->k, &(ze_world_desc_t){.capacity = 8192}),
        ze_world_create(f->k, &(ze_world_desc_t){.capacity = 8192, .no_auto_packs = true}),
    };
    enum { N = 5000 };
    static ze_entity_t es[2][N];
    for (int v = 0; v < 2; v++) {
        ze_world_t *w = ws[v];
        ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity)});
        assert_int_equal(ze_pack_size(w, ZE_MASK(Position, Velocity)), 0);
        for (int i = 0; i < N; i++) {
            es[v][i] = ze_entity_create(w);
            ze_set(w, es[v][i], Position, {(float)i, 0});
        }
        for (int i = 0; i < N; i++) {              /* Velocity in a scattered order */
            int k = (int)((uint32_t)i * 761u % N); /* 761 and N coprime: a permutation */
            ze_set(w, es[v][k], Velocity, {0, (float)k});
        }
        for (int i = 0; i < N; i += 3) {
            ze_entity_t e = es[v][i];
            assert_int_equal(ze_entity_destroy(w, e), ZE_OK);
            assert_false(ze_entity_alive(w, e));
            assert_null(ze_get(w, e, Position));
            if (i % 2) { /* then create at once: the freed slot comes back, empty */
                ze_entity_t n = ze_entity_create(w);
                assert_int_equal(ze_entity_index(n), ze_entity_index(e));
                assert_null(ze_get(w, n, Position));
                assert_null(ze_get(w, e, Position));
                assert_true(ze_mask_empty(ze_entity_mask(w, n)));
                ze_set(w, n, Velocity, {0, -1});
                assert_null(ze_get(w, e, Velocity));
                es[v][i] = n;
            } else {
                es[v][i] = ZE_ENTITY_NULL;
            }
        }
        uint32_t pv = 0;
        for (int i = 0; i < N; i++)
            pv += i % 3 != 0;
        assert_int_equal(ze_query_count(w, q), pv);
        assert_int_equal(ze_component_population(w, ZE_ID(Position)), pv);
        uint32_t seen = 0;
        ze_iter_t it = ze_query_iter(w, q);
        while (ze_query_next(&it)) {
            Position *p = ze_field(&it, Position);
            Velocity *vel = ze_field(&it, Velocity);
            for (uint32_t j = 0; j < it.count; j++) {
                assert_true(p[j].x == vel[j].y); /* values moved with their entity */
                assert_true(ze_entity_alive(w, ze_iter_entity(&it, j)));
            }
            seen += it.count;
        }
        assert_int_equal(seen, pv);
        if (v == 0) /* the group was kept and destroys took the planned path */
            assert_int_equal(ze_pack_size(w, ZE_MASK(Position, Velocity)), pv);
        for (int i = 0; i < N; i++) {
            if (ze_entity_is_null(es[v][i]))
                continue;
            const Velocity *vel = ze_get(w, es[v][i], Velocity);
            assert_non_null(vel);
            if (i % 3)
                assert_true(ze_get(w, es[v][i], Position)->x == (float)i && vel->y == (float)i);
        }
    }
    assert_true(ze_world_hash(ws[0]) == ze_world_hash(ws[1]));
    ze_world_destroy(ws[0]);
    ze_world_destroy(ws[1]);
}

/* A component holding a pointer (interned names, with hooks): equal worlds
 * point at different copies of equal strings. The hash follows the
 * formatter, so they hash equal, and a snapshot round trip keeps the hash. */
typedef struct Named {
    const char *name;
} Named;
static const char *const g_names[] = {"alpha", "beta", "gamma"};
static char g_copies[3][8] = {"alpha", "beta", "gamma"}; /* equal text, other addresses */
static void named_copy(void *d, const void *s, uint32_t n, void *u)
{
    (void)u;
    memcpy(d, s, sizeof(Named) * n);
}
static ze_result named_write(ze_byte_writer_t *out, const void *value, void *user)
{
    (void)user;
    const char *s = ((const Named *)value)->name;
    uint8_t len = (uint8_t)strlen(s);
    ze_byte_write(out, &len, 1);
    ze_byte_write(out, s, len);
    return ZE_OK;
}
static ze_result named_read(ze_byte_reader_t *in, void *value, void *user)
{
    (void)user;
    uint8_t len;
    char buf[16] = {0};
    if (!ze_byte_read(in, &len, 1) || len >= sizeof buf || !ze_byte_read(in, buf, len))
        return ZE_ERR_PARSE;
    for (int i = 0; i < 3; i++) {
        if (strcmp(buf, g_names[i]) == 0) {
            ((Named *)value)->name = g_names[i];
            return ZE_OK;
        }
    }
    return ZE_ERR_PARSE;
}

static void test_world_hash_follows_formatter(void **state)
{
    fixture_t *f = *state;
    ze_component_t named;
    assert_int_equal(ze_component_register(f->k,
                                           &(ze_component_desc_t){.name = "Named",
                                                                  .size = sizeof(Named),
                                                                  .hooks = {.copy = named_copy}},
                                           &named),
                     ZE_OK);
    ze_world_t *a = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    ze_world_t *b = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    for (int i = 0; i < 30; i++) {
        ze_component_set(a, ze_entity_create(a), named, &(Named){g_names[i % 3]});
        ze_component_set(b, ze_entity_create(b), named, &(Named){g_copies[i % 3]});
    }
    assert_true(ze_world_hash(a) != ze_world_hash(b)); /* raw bytes: the pointers differ */
    assert_int_equal(
        ze_component_set_formatter(
            f->k, named, &(ze_component_formatter_t){.write = named_write, .read = named_read}),
        ZE_OK);
    uint64_t h = ze_world_hash(a);
    assert_true(h == ze_world_hash(b));
    ze_component_set(b, ze_entity_from_index(b, 7), named, &(Named){g_copies[0]});
    assert_true(h != ze_world_hash(b)); /* a different name still counts */
    /* Round trip: the loaded world points into g_names again. */
    ze_byte_writer_t buf = {.alloc = ze_mem_system_allocator()};
    assert_int_equal(ze_world_save(a, &buf), ZE_OK);
    ze_world_t *c = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 4096});
    assert_int_equal(ze_world_load(c, buf.data, buf.size), ZE_OK);
    assert_true(ze_world_hash(c) == h);
    ze_byte_writer_free(&buf);
    ze_world_destroy(a);
    ze_world_destroy(b);
    ze_world_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_destroy_alive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_handle_after_reuse_reads_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_generation_retirement, setup, teardown),
        cmocka_unit_test(test_capacity_exhausted),
        cmocka_unit_test(test_capacity_honoured_exactly),
        cmocka_unit_test_setup_teardown(test_component_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swap_remove_keeps_others_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hooks_and_large_components, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tags, setup, teardown),
        cmocka_unit_test(test_registry_limits_and_conflicts),
        cmocka_unit_test(test_registry_errors_name_the_limit),
        cmocka_unit_test_setup_teardown(test_builtin_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_paths_and_page_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_then_create_iterate_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_hash_follows_formatter, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
