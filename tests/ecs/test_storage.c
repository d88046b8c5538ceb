/* Entities and component storage: handles, generations, retirement,
 * add/set/get/has/remove semantics, hooks, tags, the component limit. */
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
    assert_true(ze_entity_mask(w, e) == ZE_MASK(Position));
    ze_set(w, e, Velocity, {1, 1});
    assert_true(ze_entity_mask(w, e) == ZE_MASK(Position, Velocity));
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
        Position *p = ze_get(w, es[i], Position);
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
    ze_entity_t e = ze_entity_create(w);
    assert_null(ze_add(w, e, Enemy)); /* no data, but present */
    assert_true(ze_has(w, e, Enemy));
    assert_int_equal(ze_remove(w, e, Enemy), ZE_OK);
    assert_false(ze_has(w, e, Enemy));
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
    assert_int_equal(
        ze_component_register(k, &(ze_component_desc_t){.name = "OneTooMany", .size = 4}, &again),
        ZE_ERR_LIMIT);
    assert_int_equal(again.id, keep.id); /* untouched */
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
    ze_get(b, ze_entity_from_index(b, 50), Position)->y = 1;
    assert_true(ze_world_hash(a) != ze_world_hash(b));
    ze_world_destroy(a);
    ze_world_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_destroy_alive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_handle_after_reuse_reads_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_generation_retirement, setup, teardown),
        cmocka_unit_test(test_capacity_exhausted),
        cmocka_unit_test_setup_teardown(test_component_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swap_remove_keeps_others_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hooks_and_large_components, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tags, setup, teardown),
        cmocka_unit_test(test_registry_limits_and_conflicts),
        cmocka_unit_test_setup_teardown(test_builtin_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_hash, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
