/* HierarchySystem: world matrices from local TRS, parents first. A 3-level
 * chain with rotation and scale checked against hand-computed positions, in
 * every creation order; reparenting; a destroyed parent (its subtree goes,
 * or its children are detached keeping their world transforms; directly,
 * through commands, deferred by an iteration) and a stale link to its reused
 * slot; a parent without a Transform; cycles detected, broken and reported
 * once per update; a 10k-entity random forest (with a 1,000-deep chain, created in a
 * shuffled order) against a naive recursive computation; the snapshot helper;
 * the system descriptor; and a timing of a 100k-entity update. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "zengine/ecs.h"
#include "ecs/ecs_internal.h"

#define PI_2 1.57079632679f

typedef struct fixture_t {
    ze_kernel_t *k;
    ze_world_t *w;
} fixture_t;

static fixture_t fixture(void)
{
    fixture_t f;
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.name = "hierarchy"});
    assert_non_null(f.w);
    return f;
}

static void fixture_end(fixture_t *f)
{
    ze_kernel_destroy(f->k);
}

static ze_entity_t spawn(ze_world_t *w, ze_vec3_t pos, ze_quat_t rot, ze_vec3_t scale)
{
    ze_entity_t e = ze_entity_create(w);
    assert_false(ze_entity_is_null(e));
    ze_transform_t t = ze_transform_identity();
    t.position = pos;
    t.rotation = rot;
    t.scale = scale;
    assert_int_equal(ze_component_set(w, e, ZE_ID(ze_transform_t), &t), ZE_OK);
    return e;
}

static void set_parent(ze_world_t *w, ze_entity_t child, ze_entity_t parent)
{
    assert_int_equal(ze_set(w, child, ze_parent_t, {parent}), ZE_OK);
}

static ze_vec3_t world_pos(ze_world_t *w, ze_entity_t e)
{
    const ze_transform_t *t = ze_get(w, e, ze_transform_t);
    assert_non_null(t);
    return ze_mat4_transform_point(t->world, (ze_vec3_t){0, 0, 0});
}

static ze_vec3_t world_point(ze_world_t *w, ze_entity_t e, ze_vec3_t local)
{
    const ze_transform_t *t = ze_get(w, e, ze_transform_t);
    assert_non_null(t);
    return ze_mat4_transform_point(t->world, local);
}

static void expect_vec3(ze_vec3_t got, float x, float y, float z)
{
    if (fabsf(got.x - x) > 1e-4f || fabsf(got.y - y) > 1e-4f || fabsf(got.z - z) > 1e-4f) {
        print_error("got (%g, %g, %g), want (%g, %g, %g)\n", got.x, got.y, got.z, x, y, z);
        fail();
    }
}

static void expect_mat4_near(ze_mat4_t a, ze_mat4_t b, float tol)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float d = fabsf(a.m[c][r] - b.m[c][r]);
            float s = fmaxf(1.0f, fabsf(b.m[c][r]));
            if (!(d <= tol * s)) {
                print_error("m[%d][%d]: got %g, want %g\n", c, r, a.m[c][r], b.m[c][r]);
                fail();
            }
        }
}

static bool mat_near(ze_mat4_t a, ze_mat4_t b)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!(fabsf(a.m[c][r] - b.m[c][r]) <= 1e-5f * fmaxf(1.0f, fabsf(b.m[c][r]))))
                return false;
    return true;
}

static ze_mat4_t local_of(ze_world_t *w, ze_entity_t e)
{
    const ze_transform_t *t = ze_get(w, e, ze_transform_t);
    return ze_mat4_from_trs(t->position, t->rotation, t->scale);
}

/* ---------------------------------------------------------------- tests */

static void test_identity(void **state)
{
    (void)state;
    ze_transform_t t = ze_transform_identity();
    assert_true(t.position.x == 0 && t.position.y == 0 && t.position.z == 0);
    assert_true(t.rotation.x == 0 && t.rotation.y == 0 && t.rotation.z == 0 && t.rotation.w == 1);
    assert_true(t.scale.x == 1 && t.scale.y == 1 && t.scale.z == 1);
    expect_mat4_near(t.world, ze_mat4_identity(), 0);

    /* An empty world updates fine. */
    fixture_t f = fixture();
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    fixture_end(&f);
}

/* root A: at (1,0,0), 90 degrees about +Z, scale 2
 * child B: at (1,0,0) in A
 * grandchild C: at (0,1,0) in B, 90 degrees about +X, scale 0.5
 * World positions: B = (1,0,0) + Rz(2,0,0) = (1,2,0);
 * C = A * (1,1,0) = (1,0,0) + Rz(2,2,0) = (-1,2,0);
 * C's local (0,0,1) -> (0,1,0) + Rx(0,0,0.5) = (0,0.5,0) -> B: (1,0.5,0)
 * -> A: (1,0,0) + Rz(2,1,0) = (0,2,0). */
static void check_chain(int order)
{
    fixture_t f = fixture();
    ze_quat_t rz = ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, PI_2);
    ze_quat_t rx = ze_quat_from_axis_angle((ze_vec3_t){1, 0, 0}, PI_2);
    ze_entity_t a = ZE_ENTITY_NULL, b = ZE_ENTITY_NULL, c = ZE_ENTITY_NULL;
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int i = 0; i < 3; i++) {
        switch (perms[order][i]) {
        case 0:
            a = spawn(f.w, (ze_vec3_t){1, 0, 0}, rz, (ze_vec3_t){2, 2, 2});
            break;
        case 1:
            b = spawn(f.w, (ze_vec3_t){1, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
            break;
        case 2:
            c = spawn(f.w, (ze_vec3_t){0, 1, 0}, rx, (ze_vec3_t){0.5f, 0.5f, 0.5f});
            break;
        }
    }
    /* Links made child-first too, so the storage order is mixed up. */
    set_parent(f.w, c, b);
    set_parent(f.w, b, a);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, a), 1, 0, 0);
    expect_vec3(world_pos(f.w, b), 1, 2, 0);
    expect_vec3(world_pos(f.w, c), -1, 2, 0);
    expect_vec3(world_point(f.w, c, (ze_vec3_t){0, 0, 1}), 0, 2, 0);
    /* Running it again changes nothing. */
    ze_mat4_t before = ze_get(f.w, c, ze_transform_t)->world;
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_mat4_near(ze_get(f.w, c, ze_transform_t)->world, before, 0);
    fixture_end(&f);
}

static void test_three_level_chain(void **state)
{
    (void)state;
    for (int order = 0; order < 6; order++)
        check_chain(order);
}

static void test_reparent(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = spawn(f.w, (ze_vec3_t){10, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t b = spawn(f.w, (ze_vec3_t){0, 10, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){3, 3, 3});
    ze_entity_t c = spawn(f.w, (ze_vec3_t){1, 1, 1}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    set_parent(f.w, c, a);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 11, 1, 1);

    set_parent(f.w, c, b); /* moved under b */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 3, 13, 3);

    set_parent(f.w, b, a); /* b itself moves under a: c follows */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, b), 10, 10, 0);
    expect_vec3(world_pos(f.w, c), 13, 13, 3);

    assert_int_equal(ze_remove(f.w, c, ze_parent_t), ZE_OK); /* c becomes a root */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 1, 1, 1);

    set_parent(f.w, c, ZE_ENTITY_NULL); /* a null parent: a root */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 1, 1, 1);
    fixture_end(&f);
}

static void test_parent_destroyed_or_without_transform(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = spawn(f.w, (ze_vec3_t){5, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t b = spawn(f.w, (ze_vec3_t){0, 5, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t c = spawn(f.w, (ze_vec3_t){0, 0, 5}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    set_parent(f.w, b, a);
    set_parent(f.w, c, b);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 5, 5, 5);

    /* b goes, and c with it (its subtree). */
    assert_int_equal(ze_entity_destroy(f.w, b), ZE_OK);
    assert_false(ze_entity_alive(f.w, c));

    /* A link to a dead entity (set by hand: a destroy never leaves one)
     * makes a root. */
    c = spawn(f.w, (ze_vec3_t){0, 0, 5}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    set_parent(f.w, c, b);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 0, 0, 5);

    /* b's slot reused by a new entity with a Transform: the stale link must
     * not attach c to it. */
    ze_entity_t d;
    do /* the free list holds b's and old c's slots */
        d = spawn(f.w, (ze_vec3_t){100, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    while (ze_entity_index(d) != ze_entity_index(b));
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, c), 0, 0, 5);

    /* A parent without a Transform: a root too. */
    ze_entity_t bare = ze_entity_create(f.w);
    set_parent(f.w, a, bare);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, a), 5, 0, 0);
    /* ... until it gets one. */
    assert_int_equal(ze_component_set(f.w, bare, ZE_ID(ze_transform_t),
                                      &(ze_transform_t){.position = {0, 0, 7},
                                                        .rotation = ZE_QUAT_IDENTITY,
                                                        .scale = {1, 1, 1}}),
                     ZE_OK);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, a), 5, 0, 7);
    /* ... and when it loses it again. */
    assert_int_equal(ze_remove(f.w, bare, ze_transform_t), ZE_OK);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, a), 5, 0, 0);
    fixture_end(&f);
}

static void test_cycle_detected_and_reported(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = spawn(f.w, (ze_vec3_t){1, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t b = spawn(f.w, (ze_vec3_t){0, 1, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t c = spawn(f.w, (ze_vec3_t){0, 0, 1}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t s = spawn(f.w, (ze_vec3_t){7, 7, 7}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t r = spawn(f.w, (ze_vec3_t){2, 2, 2}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    set_parent(f.w, a, b);
    set_parent(f.w, b, a); /* a -> b -> a */
    set_parent(f.w, c, a); /* hangs off the cycle */
    set_parent(f.w, s, s); /* its own parent: a cycle too */

    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
    assert_int_equal(ze_log_count(ZE_LOG_WARN), warns + 1); /* two cycles, one report */

    /* Broken at one of a/b: that one is a root, the other its child. */
    ze_vec3_t pa = world_pos(f.w, a), pb = world_pos(f.w, b);
    bool a_root = fabsf(pa.x - 1) < 1e-5f && fabsf(pa.y) < 1e-5f;
    bool b_root = fabsf(pb.y - 1) < 1e-5f && fabsf(pb.x) < 1e-5f;
    assert_true(a_root != b_root);
    expect_vec3(a_root ? pb : pa, 1, 1, 0);
    expect_vec3(world_pos(f.w, c), pa.x, pa.y, pa.z + 1);
    expect_vec3(world_pos(f.w, s), 7, 7, 7);
    expect_vec3(world_pos(f.w, r), 2, 2, 2); /* bystanders are fine */

    /* Still an error on the next update (the data still has the cycles),
     * not reported again while nothing changed... */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
    assert_int_equal(ze_log_count(ZE_LOG_WARN), warns + 1);
    /* ...and again once something did. */
    ze_get_mut(f.w, r, ze_transform_t)->position.x = 3;
    assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
    assert_int_equal(ze_log_count(ZE_LOG_WARN), warns + 2);
    expect_vec3(world_pos(f.w, r), 3, 2, 2);

    /* Fixed: no error, no warning. */
    assert_int_equal(ze_remove(f.w, b, ze_parent_t), ZE_OK);
    assert_int_equal(ze_remove(f.w, s, ze_parent_t), ZE_OK);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(ze_log_count(ZE_LOG_WARN), warns + 2);
    expect_vec3(world_pos(f.w, a), 1, 1, 0);
    expect_vec3(world_pos(f.w, c), 1, 1, 1);

    /* A longer cycle: r -> a -> b -> r. */
    set_parent(f.w, b, r);
    set_parent(f.w, r, a);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
    assert_int_equal(ze_log_count(ZE_LOG_WARN), warns + 3);
    fixture_end(&f);
}

/* ------------------------------------------- destroying a parent */

/* No alive entity's Parent names an entity that is not alive. */
static void expect_no_dangling_parent(ze_world_t *w)
{
    for (uint32_t i = 0; i < ze_world_capacity(w); i++) {
        ze_entity_t e = ze_entity_from_index(w, i);
        const ze_parent_t *p = ze_entity_is_null(e) ? NULL : ze_get(w, e, ze_parent_t);
        if (p && !ze_entity_is_null(p->parent) && !ze_entity_alive(w, p->parent)) {
            print_error("entity %u:%u keeps a Parent link to dead %u:%u\n", ze_entity_index(e),
                        ze_entity_generation(e), ze_entity_index(p->parent),
                        ze_entity_generation(p->parent));
            fail();
        }
    }
}

static ze_entity_t unit(ze_world_t *w, float x, float y, float z)
{
    return spawn(w, (ze_vec3_t){x, y, z}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
}

/* ze_world_clear takes every entity, hierarchies included, at once; the
 * world is usable after. */
static void test_world_clear(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t parent = unit(f.w, 1, 0, 0);
    ze_entity_t prev = parent;
    for (int i = 0; i < 100; i++) { /* a chain 101 deep */
        ze_entity_t c = unit(f.w, 0, 1, 0);
        set_parent(f.w, c, prev);
        prev = c;
    }
    ze_entity_t loose = ze_entity_create(f.w);
    assert_int_equal(ze_world_entity_count(f.w), 102);
    assert_int_equal(ze_world_clear(f.w), ZE_OK);
    assert_int_equal(ze_world_entity_count(f.w), 0);
    assert_false(ze_entity_alive(f.w, parent));
    assert_false(ze_entity_alive(f.w, prev));
    assert_false(ze_entity_alive(f.w, loose));
    ze_entity_t again = unit(f.w, 2, 0, 0);
    assert_true(ze_entity_alive(f.w, again));
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    fixture_end(&f);
}

/* a -> b -> c -> d, a -> e, and an unrelated root r -> s: destroying b
 * takes c and d with it; destroying a takes e; r and s stay. */
static void test_destroy_parent_destroys_subtree(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = unit(f.w, 1, 0, 0), b = unit(f.w, 0, 1, 0), c = unit(f.w, 0, 0, 1);
    ze_entity_t d = unit(f.w, 1, 1, 0), e = unit(f.w, 0, 1, 1);
    ze_entity_t r = unit(f.w, 5, 5, 5), s = unit(f.w, 1, 1, 1);
    ze_entity_t bare = ze_entity_create(f.w); /* a child without a Transform */
    set_parent(f.w, d, c);                    /* links made child-first */
    set_parent(f.w, c, b);
    set_parent(f.w, b, a);
    set_parent(f.w, e, a);
    set_parent(f.w, s, r);
    set_parent(f.w, bare, c);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    uint32_t count = ze_world_entity_count(f.w);

    assert_int_equal(ze_entity_destroy(f.w, b), ZE_OK);
    assert_false(ze_entity_alive(f.w, b));
    assert_false(ze_entity_alive(f.w, c));
    assert_false(ze_entity_alive(f.w, d));
    assert_false(ze_entity_alive(f.w, bare));
    assert_true(ze_entity_alive(f.w, a) && ze_entity_alive(f.w, e));
    assert_true(ze_entity_alive(f.w, r) && ze_entity_alive(f.w, s));
    assert_int_equal(ze_world_entity_count(f.w), count - 4);
    expect_no_dangling_parent(f.w);

    assert_int_equal(ze_entity_destroy(f.w, a), ZE_OK);
    assert_false(ze_entity_alive(f.w, e));
    assert_true(ze_entity_alive(f.w, s));
    expect_no_dangling_parent(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, s), 6, 6, 6); /* still under r */

    /* A Parent cycle (x -> y -> x) is destroyed whole, without looping. */
    ze_entity_t x = unit(f.w, 0, 0, 0), y = unit(f.w, 0, 0, 0);
    set_parent(f.w, x, y);
    set_parent(f.w, y, x);
    assert_int_equal(ze_entity_destroy(f.w, x), ZE_OK);
    assert_false(ze_entity_alive(f.w, y));
    expect_no_dangling_parent(f.w);
    fixture_end(&f);
}

/* g (at (10,0,0), 90 degrees about +Z, scale 2) -> p (at (1,0,0), 90 degrees
 * about +X) -> child (at (0,1,0), scale 0.5) -> grandchild (at (0,0,2)); p
 * has a second child, leaf. Destroying p with ZE_DESTROY_DETACH_CHILDREN:
 * child and leaf become roots at the same world transform, the grandchild
 * stays under child. g moved after the last hierarchy update: the detach
 * composes the current locals, not the last derived matrices. */
static void test_destroy_detaches_children_keeping_world_transform(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_quat_t rz = ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, PI_2);
    ze_quat_t rx = ze_quat_from_axis_angle((ze_vec3_t){1, 0, 0}, PI_2);
    ze_entity_t g = spawn(f.w, (ze_vec3_t){10, 0, 0}, rz, (ze_vec3_t){2, 2, 2});
    ze_entity_t p = spawn(f.w, (ze_vec3_t){1, 0, 0}, rx, (ze_vec3_t){1, 1, 1});
    ze_entity_t child =
        spawn(f.w, (ze_vec3_t){0, 1, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){0.5f, 0.5f, 0.5f});
    ze_entity_t grand = unit(f.w, 0, 0, 2);
    ze_entity_t leaf = unit(f.w, 3, 0, 0);
    set_parent(f.w, p, g);
    set_parent(f.w, child, p);
    set_parent(f.w, grand, child);
    set_parent(f.w, leaf, p);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    ze_get_mut(f.w, g, ze_transform_t)->position.y = 4;
    ze_mat4_t gp = ze_mat4_mul(local_of(f.w, g), local_of(f.w, p));
    ze_mat4_t want_child = ze_mat4_mul(gp, local_of(f.w, child));
    ze_mat4_t want_grand = ze_mat4_mul(want_child, local_of(f.w, grand));
    ze_mat4_t want_leaf = ze_mat4_mul(gp, local_of(f.w, leaf));

    assert_int_equal(ze_entity_destroy_ex(f.w, p, ZE_DESTROY_DETACH_CHILDREN), ZE_OK);
    assert_false(ze_entity_alive(f.w, p));
    assert_true(ze_entity_alive(f.w, child) && ze_entity_alive(f.w, grand) &&
                ze_entity_alive(f.w, leaf) && ze_entity_alive(f.w, g));
    assert_false(ze_has(f.w, child, ze_parent_t));
    assert_false(ze_has(f.w, leaf, ze_parent_t));
    assert_true(ze_entity_eq(ze_get(f.w, grand, ze_parent_t)->parent, child));
    expect_no_dangling_parent(f.w);
    /* The detached roots' derived matrices are right at once... */
    expect_mat4_near(ze_get(f.w, child, ze_transform_t)->world, want_child, 1e-5f);
    expect_mat4_near(ze_get(f.w, leaf, ze_transform_t)->world, want_leaf, 1e-5f);
    /* ...and after an update, for the grandchild too. */
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_mat4_near(ze_get(f.w, child, ze_transform_t)->world, want_child, 1e-5f);
    expect_mat4_near(ze_get(f.w, grand, ze_transform_t)->world, want_grand, 1e-5f);
    expect_mat4_near(ze_get(f.w, leaf, ze_transform_t)->world, want_leaf, 1e-5f);
    /* p's world: (10,4,0) + Rz(2,0,0) = (10,6,0); child's local (0,1,0)
     * under p: (1,0,1) in g, so (10,4,0) + Rz(2,0,2) = (10,6,2). */
    expect_vec3(world_pos(f.w, child), 10, 6, 2);
    fixture_end(&f);
}

static void destroy_while_iterating(ze_world_t *w, ze_entity_t victim, uint32_t flags)
{
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_transform_t)});
    ze_iter_t it = ze_query_iter(w, q);
    assert_true(ze_query_next(&it));
    assert_int_equal(ze_entity_destroy_ex(w, victim, flags), ZE_OK); /* deferred */
    assert_true(ze_entity_alive(w, victim));
    ze_iter_fini(&it);
}

/* Through commands (ze_cmd_destroy, ze_cmd_destroy_ex) and through the
 * world's deferral during an iteration: the same two behaviours. */
static void test_destroy_parent_through_commands(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_commands_t *cmds = ze_commands_create(f.w);
    assert_non_null(cmds);
    ze_entity_t a = unit(f.w, 1, 0, 0), b = unit(f.w, 0, 1, 0), c = unit(f.w, 0, 0, 1);
    set_parent(f.w, b, a);
    set_parent(f.w, c, b);
    assert_int_equal(ze_cmd_destroy(cmds, a), ZE_OK);
    assert_int_equal(ze_cmd_set(cmds, c, ZE_ID(ze_parent_t), &(ze_parent_t){a}), ZE_OK);
    assert_int_equal(ze_commands_flush(cmds), ZE_OK);
    assert_false(ze_entity_alive(f.w, a) || ze_entity_alive(f.w, b) || ze_entity_alive(f.w, c));
    assert_int_equal(ze_commands_last_skipped(cmds), 1); /* the set on c, dead by then */
    expect_no_dangling_parent(f.w);

    ze_entity_t p = unit(f.w, 10, 0, 0), k1 = unit(f.w, 1, 0, 0), k2 = unit(f.w, 0, 2, 0);
    set_parent(f.w, k1, p);
    set_parent(f.w, k2, k1);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(ze_cmd_destroy_ex(cmds, p, ZE_DESTROY_DETACH_CHILDREN), ZE_OK);
    assert_int_equal(ze_commands_flush(cmds), ZE_OK);
    assert_false(ze_entity_alive(f.w, p));
    assert_true(ze_entity_alive(f.w, k1) && ze_entity_alive(f.w, k2));
    assert_false(ze_has(f.w, k1, ze_parent_t));
    expect_no_dangling_parent(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, k1), 11, 0, 0);
    expect_vec3(world_pos(f.w, k2), 11, 2, 0);

    /* Deferred during an iteration, applied when it ends. */
    ze_entity_t q1 = unit(f.w, 0, 0, 0), q2 = unit(f.w, 0, 0, 3);
    set_parent(f.w, q2, q1);
    destroy_while_iterating(f.w, q1, ZE_DESTROY_SUBTREE);
    assert_false(ze_entity_alive(f.w, q1) || ze_entity_alive(f.w, q2));
    ze_entity_t r1 = unit(f.w, 0, 5, 0), r2 = unit(f.w, 0, 0, 3);
    set_parent(f.w, r2, r1);
    destroy_while_iterating(f.w, r1, ZE_DESTROY_DETACH_CHILDREN);
    assert_false(ze_entity_alive(f.w, r1));
    assert_true(ze_entity_alive(f.w, r2) && !ze_has(f.w, r2, ze_parent_t));
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    expect_vec3(world_pos(f.w, r2), 0, 5, 3);
    expect_no_dangling_parent(f.w);
    ze_commands_destroy(cmds);
    fixture_end(&f);
}

/* A write-permission predicate protecting an entity also protects it from
 * its parent's destroy (and a child's Parent from being removed by a
 * detach): the command is refused whole. */
static bool not_protected(ze_world_t *w, ze_entity_t e, ze_component_t c, void *user)
{
    (void)w;
    const ze_entity_t *guarded = user;
    return !ze_entity_eq(e, guarded[0]) ||
           (c.id != ZE_COMPONENT_INVALID.id && c.id != ZE_ID(ze_parent_t).id);
}

static void test_destroy_asks_permission_for_what_it_takes(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t p = unit(f.w, 1, 0, 0), kid = unit(f.w, 0, 1, 0), grand = unit(f.w, 0, 0, 1);
    set_parent(f.w, kid, p);
    set_parent(f.w, grand, kid);
    ze_entity_t guarded[1] = {grand};
    assert_int_equal(ze_hooks_add_write_permission(f.w, not_protected, guarded), ZE_OK);
    ze_commands_t *cmds = ze_commands_create(f.w);
    assert_int_equal(ze_cmd_destroy(cmds, p), ZE_OK);
    assert_int_equal(ze_commands_flush(cmds), ZE_OK);
    const ze_command_rejection_t *rej;
    assert_int_equal(ze_commands_rejections(cmds, &rej), 1);
    assert_int_equal(rej[0].reason, ZE_ERR_DENIED);
    assert_true(ze_entity_eq(rej[0].entity, p));
    assert_int_equal(rej[0].component.id, ZE_COMPONENT_INVALID.id);
    assert_true(ze_entity_alive(f.w, p) && ze_entity_alive(f.w, kid) &&
                ze_entity_alive(f.w, grand));

    /* Detaching kid's children would remove grand's Parent: refused too. */
    assert_int_equal(ze_cmd_destroy_ex(cmds, kid, ZE_DESTROY_DETACH_CHILDREN), ZE_OK);
    assert_int_equal(ze_commands_flush(cmds), ZE_OK);
    assert_int_equal(ze_commands_rejections(cmds, &rej), 1);
    assert_true(ze_entity_alive(f.w, kid));
    assert_true(ze_has(f.w, grand, ze_parent_t));

    /* Detaching p's children touches kid only: allowed. */
    assert_int_equal(ze_cmd_destroy_ex(cmds, p, ZE_DESTROY_DETACH_CHILDREN), ZE_OK);
    assert_int_equal(ze_commands_flush(cmds), ZE_OK);
    assert_int_equal(ze_commands_rejections(cmds, &rej), 0);
    assert_false(ze_entity_alive(f.w, p));
    assert_true(ze_entity_alive(f.w, kid) && !ze_has(f.w, kid, ze_parent_t));
    expect_no_dangling_parent(f.w);
    /* Bad flags are refused when recorded and when called. */
    assert_int_equal(ze_cmd_destroy_ex(cmds, kid, 1u << 7), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_entity_destroy_ex(f.w, kid, 1u << 7), ZE_ERR_INVALID_ARG);
    assert_true(ze_entity_alive(f.w, kid));
    ze_commands_destroy(cmds);
    fixture_end(&f);
}

/* ------------------------------------------------------ random forest */

enum { FOREST_N = 10000, CHAIN = 1000 };

static ze_entity_t g_ent[FOREST_N];
static int g_parent_of[FOREST_N]; /* -1 = root */
static uint32_t g_perm[FOREST_N];
static ze_mat4_t g_memo[FOREST_N];
static bool g_have[FOREST_N];

static ze_mat4_t naive_world(ze_world_t *w, int i)
{
    if (g_have[i])
        return g_memo[i];
    ze_mat4_t local = local_of(w, g_ent[i]);
    ze_mat4_t m = g_parent_of[i] < 0 ? local : ze_mat4_mul(naive_world(w, g_parent_of[i]), local);
    g_memo[i] = m;
    g_have[i] = true;
    return m;
}

static float rnd(ze_rng_t *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)ze_rng_unit(r);
}

static void build_forest(ze_world_t *w, ze_rng_t *rng, uint32_t n)
{
    /* Structure: node i's parent is an earlier node (or none); the first
     * CHAIN nodes form one deep chain. */
    for (uint32_t i = 0; i < n; i++) {
        if (i < CHAIN)
            g_parent_of[i] = i ? (int)i - 1 : -1;
        else
            g_parent_of[i] = ze_rng_below(rng, 5) == 0 ? -1 : (int)ze_rng_below(rng, i);
    }
    /* Created in a shuffled order, so children often precede parents. */
    for (uint32_t i = 0; i < n; i++)
        g_perm[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)ze_rng_below(rng, i + 1);
        uint32_t t = g_perm[i];
        g_perm[i] = g_perm[j];
        g_perm[j] = t;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = g_perm[k];
        bool chain = i < CHAIN; /* unit scale, tiny angles: stays well conditioned */
        ze_vec3_t axis = ze_vec3_normalize(
            (ze_vec3_t){rnd(rng, -1, 1), rnd(rng, -1, 1), rnd(rng, -1, 1) + 0.01f});
        float angle = chain ? rnd(rng, -0.01f, 0.01f) : rnd(rng, -3.0f, 3.0f);
        float s = chain ? 1.0f : rnd(rng, 0.8f, 1.2f);
        g_ent[i] =
            spawn(w, (ze_vec3_t){rnd(rng, -2, 2), rnd(rng, -2, 2), rnd(rng, -2, 2)},
                  ze_quat_from_axis_angle(axis, angle), (ze_vec3_t){s, chain ? 1.0f : s * 1.1f, s});
    }
    for (uint32_t i = 0; i < n; i++) {
        if (g_parent_of[i] >= 0)
            set_parent(w, g_ent[i], g_ent[g_parent_of[i]]);
        else if (ze_rng_below(rng, 2)) /* some roots have a null Parent */
            set_parent(w, g_ent[i], ZE_ENTITY_NULL);
    }
}

static void check_forest(ze_world_t *w, uint32_t n)
{
    memset(g_have, 0, sizeof g_have);
    for (uint32_t i = 0; i < n; i++) {
        ze_mat4_t want = naive_world(w, (int)i);
        const ze_transform_t *t = ze_get(w, g_ent[i], ze_transform_t);
        expect_mat4_near(t->world, want, 1e-5f);
    }
}

static void test_random_forest_against_naive(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_rng_t rng;
    ze_rng_seed(&rng, 1234);
    build_forest(f.w, &rng, FOREST_N);
    /* Some unrelated entities in between, with and without Transforms. */
    for (int i = 0; i < 100; i++)
        ze_entity_create(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    check_forest(f.w, FOREST_N);

    /* Reparent a thousand nodes (to earlier nodes: no cycles), move some
     * locals, destroy a few leaves' parents' links, and check again. */
    for (int r = 0; r < 1000; r++) {
        uint32_t i = CHAIN + (uint32_t)ze_rng_below(&rng, FOREST_N - CHAIN);
        g_parent_of[i] = (int)ze_rng_below(&rng, i);
        set_parent(f.w, g_ent[i], g_ent[g_parent_of[i]]);
        ze_transform_t *t =
            ze_get_mut(f.w, g_ent[(uint32_t)ze_rng_below(&rng, FOREST_N)], ze_transform_t);
        t->position.x += 0.5f;
    }
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    check_forest(f.w, FOREST_N);
    fixture_end(&f);
}

static void test_snapshot_and_system_desc(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = spawn(f.w, (ze_vec3_t){1, 2, 3}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t b = spawn(f.w, (ze_vec3_t){4, 5, 6}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_transforms_snapshot(f.w);
    const ze_transform_t *ta = ze_get(f.w, a, ze_transform_t);
    assert_true(ta->previous_position.x == 1 && ta->previous_position.y == 2 &&
                ta->previous_position.z == 3);
    ze_get_mut(f.w, a, ze_transform_t)->position.x = 9;
    assert_true(ta->previous_position.x == 1);
    ze_transforms_snapshot(f.w);
    assert_true(ze_get(f.w, a, ze_transform_t)->previous_position.x == 9);
    assert_true(ze_get(f.w, b, ze_transform_t)->previous_position.z == 6);

    ze_system_desc_t d = ze_hierarchy_system_desc();
    assert_string_equal(d.name, "hierarchy");
    assert_non_null(d.fn);
    assert_true(ze_mask_eq(d.reads, ZE_MASK(ze_parent_t)));
    assert_true(ze_mask_eq(d.writes, ZE_MASK(ze_transform_t)));

    /* As a system of a WorldTick. */
    set_parent(f.w, b, a);
    ze_worldtick_t *tick = ze_worldtick_create(f.w);
    assert_non_null(tick);
    assert_int_not_equal(ze_worldtick_add(tick, &d).id, 0);
    assert_int_equal(ze_worldtick_commit(tick), ZE_OK);
    assert_int_equal(ze_worldtick_run(tick, 1.0f / 60.0f), ZE_OK);
    expect_vec3(world_pos(f.w, b), 13, 7, 9);
    ze_worldtick_destroy(tick);
    fixture_end(&f);
}

/* Not a pass/fail on speed (machines differ); prints the cost per entity at
 * 10k and 100k so a regression from O(n) shows, and checks a sample. */
/* Without Parent links, an update after the first visits only the rows
 * written since (roots only): the moved ones get their matrices, the rest
 * keep theirs and are not stamped; a Parent added later takes the full
 * path again and children follow their parents. */
static void test_roots_only_moved_rows(void **state)
{
    (void)state;
    fixture_t f = fixture();
    enum { N = 1000 };
    static ze_entity_t e[N];
    for (uint32_t i = 0; i < N; i++)
        e[i] = spawn(f.w, (ze_vec3_t){(float)i, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    uint32_t v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK); /* nothing moved */
    assert_int_equal(ze_changed_count(f.w, ZE_ID(ze_transform_t), v), 0);
    for (uint32_t k = 0; k < 3; k++)
        ze_get_mut(f.w, e[k * 400], ze_transform_t)->position.y = 5.0f;
    v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    /* the three moved rows, stamped again by their new matrices; nobody else */
    assert_int_equal(ze_changed_count(f.w, ZE_ID(ze_transform_t), v), 3);
    for (uint32_t i = 0; i < N; i++) {
        const ze_transform_t *t = ze_get(f.w, e[i], ze_transform_t);
        float y = i % 400 == 0 ? 5.0f : 0.0f;
        assert_true(t->world.m[3][0] == (float)i && t->world.m[3][1] == y);
    }
    /* a link: the full path, the child under its moved parent */
    set_parent(f.w, e[1], e[0]);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    const ze_transform_t *c = ze_get(f.w, e[1], ze_transform_t);
    assert_true(c->world.m[3][0] == 1.0f && c->world.m[3][1] == 5.0f);
    fixture_end(&f);
}

/* ------------------------------------- members' order (only rows changed) */

/* v's Transform rows whose version is newer than v. */
static uint32_t rows_newer(ze_world_t *w, uint32_t v)
{
    return (uint32_t)ze_changed_count(w, ZE_ID(ze_transform_t), v);
}

/* 100k loose roots (half of them with a null Parent) and a small parented
 * subtree: after the first update, moving one loose root or one member
 * recomputes (and stamps) exactly that row, or that member's subtree; the
 * walk's cache holds exactly the members; the matrices match a naive
 * product up the chain. */
static void test_loose_roots_and_members_only_changed(void **state)
{
    (void)state;
    fixture_t f = fixture();
    enum { LOOSE = 100000, MEMBERS = 15 };
    static ze_entity_t loose[LOOSE];
    ze_entity_t m[MEMBERS];
    for (uint32_t i = 0; i < LOOSE / 2; i++)
        loose[i] = spawn(f.w, (ze_vec3_t){(float)i, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    /* A binary tree: m[i]'s parent is m[(i - 1) / 2]. */
    for (uint32_t i = 0; i < MEMBERS; i++) {
        m[i] = spawn(f.w, (ze_vec3_t){1, (float)i, 0},
                     ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, 0.1f), (ze_vec3_t){1, 1, 1});
        if (i)
            set_parent(f.w, m[i], m[(i - 1) / 2]);
    }
    for (uint32_t i = LOOSE / 2; i < LOOSE; i++) {
        loose[i] = spawn(f.w, (ze_vec3_t){(float)i, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
        set_parent(f.w, loose[i], ZE_ENTITY_NULL); /* a Parent naming nobody: still loose */
    }
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    const ze__hier_cache_t *c = f.w->hier_cache;
    assert_non_null(c);
    assert_true(c->valid);
    assert_int_equal(c->count, MEMBERS);
    /* Each member once, parents before children; no loose root. */
    for (uint32_t i = 0; i < MEMBERS; i++) {
        uint32_t at = UINT32_MAX, parent_at = UINT32_MAX;
        for (uint32_t j = 0; j < c->count; j++) {
            at = c->idx[j] == ze_entity_index(m[i]) ? j : at;
            parent_at = i && c->idx[j] == ze_entity_index(m[(i - 1) / 2]) ? j : parent_at;
        }
        assert_true(at != UINT32_MAX);
        assert_int_equal(c->parent[at], parent_at);
        assert_true(parent_at == UINT32_MAX || parent_at < at);
    }

    /* Nothing moved: nothing stamped. */
    uint32_t v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(rows_newer(f.w, v), 0);

    /* One loose root of each kind. */
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t i = k ? LOOSE - 7 : 123;
        ze_get_mut(f.w, loose[i], ze_transform_t)->position.y = 3.0f;
        v = ze_world_version(f.w);
        assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
        assert_int_equal(rows_newer(f.w, v), 1);
        const ze_transform_t *t = ze_get(f.w, loose[i], ze_transform_t);
        assert_true(t->world.m[3][0] == (float)i && t->world.m[3][1] == 3.0f);
        assert_true(f.w->hier_cache->valid && f.w->hier_cache->count == MEMBERS);
    }

    /* A member: its subtree (m[2] has m[5], m[6], m[11..14]: 7 rows); the
     * root of the tree: all 15; a leaf: 1. A row written with its own value:
     * none. */
    static const struct {
        uint32_t member, rows;
    } moves[] = {{2, 7}, {0, MEMBERS}, {13, 1}};
    for (uint32_t k = 0; k < 3; k++) {
        ze_get_mut(f.w, m[moves[k].member], ze_transform_t)->position.z += 1.0f;
        v = ze_world_version(f.w);
        assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
        assert_int_equal(rows_newer(f.w, v), moves[k].rows);
        for (uint32_t i = 0; i < MEMBERS; i++) {
            ze_mat4_t want = local_of(f.w, m[i]);
            for (uint32_t a = i; a; a = (a - 1) / 2)
                want = ze_mat4_mul(local_of(f.w, m[(a - 1) / 2]), want);
            expect_mat4_near(ze_get(f.w, m[i], ze_transform_t)->world, want, 1e-5f);
        }
    }
    (void)ze_get_mut(f.w, m[4], ze_transform_t); /* stamped, same value */
    v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(rows_newer(f.w, v), 0);

    /* Moves of a loose root and a member in one update. */
    ze_get_mut(f.w, loose[5], ze_transform_t)->position.y = 1.0f;
    ze_get_mut(f.w, m[6], ze_transform_t)->position.y = 9.0f; /* m[6], m[13], m[14] */
    v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(rows_newer(f.w, v), 4);

    /* A loose root becomes a member: the walk rebuilds the cache. */
    set_parent(f.w, loose[9], m[14]);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_true(f.w->hier_cache->valid && f.w->hier_cache->count == MEMBERS + 1);
    ze_get_mut(f.w, m[14], ze_transform_t)->position.x = 4.0f;
    v = ze_world_version(f.w);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
    assert_int_equal(rows_newer(f.w, v), 2);
    expect_mat4_near(
        ze_get(f.w, loose[9], ze_transform_t)->world,
        ze_mat4_mul(ze_get(f.w, m[14], ze_transform_t)->world, local_of(f.w, loose[9])), 1e-5f);
    fixture_end(&f);
}

/* Random mixed sequences, two worlds in lockstep: A updates as it does, B
 * is forced to walk every Transform on each update (its last update made
 * invalid). Each step both must hold bit-identical matrices and stamp the
 * same number of rows, and A must match a naive recursive product up the
 * live Parent chains. Steps: moves of loose roots and members, rows written
 * with their own value, reparenting (no cycles), Parent removed, entities
 * destroyed (subtree or detached), Transforms added (to new entities, to
 * one that is somebody's parent without a Transform), Transforms removed. */
enum { MIX_N = 3000, MIX_STEPS = 400 };

static ze_entity_t g_mix[2][MIX_N + MIX_STEPS];
static uint32_t g_mix_count;
static uint32_t g_mix_at[1u << 16]; /* entity slot -> its latest i */

static void mix_note(uint32_t i)
{
    uint32_t slot = ze_entity_index(g_mix[0][i]);
    assert_true(slot < (1u << 16) && ze_entity_eq(g_mix[0][i], g_mix[1][i]));
    g_mix_at[slot] = i;
}

/* i of a live entity. */
static uint32_t mix_index(ze_entity_t e)
{
    uint32_t i = g_mix_at[ze_entity_index(e)];
    assert_true(ze_entity_eq(g_mix[0][i], e));
    return i;
}

static bool mix_alive_tf(ze_world_t *w, ze_entity_t e)
{
    return ze__alive(w, e) && ze_get(w, e, ze_transform_t);
}

/* The world matrix from the live chain, memoized by slot. */
static ze_mat4_t g_naive[MIX_N + MIX_STEPS];
static uint8_t g_naive_have[MIX_N + MIX_STEPS];

static ze_mat4_t mix_naive(ze_world_t *w, uint32_t i)
{
    if (g_naive_have[i])
        return g_naive[i];
    ze_entity_t e = g_mix[0][i];
    ze_mat4_t m = local_of(w, e);
    const ze_parent_t *p = ze_get(w, e, ze_parent_t);
    if (p && mix_alive_tf(w, p->parent))
        m = ze_mat4_mul(mix_naive(w, mix_index(p->parent)), m);
    g_naive[i] = m;
    g_naive_have[i] = 1;
    return m;
}

/* Whether `anc` is `e` or one of its ancestors in w. */
static bool mix_is_ancestor(ze_world_t *w, ze_entity_t anc, ze_entity_t e)
{
    for (uint32_t guard = 0; guard < MIX_N + MIX_STEPS; guard++) {
        if (ze_entity_eq(anc, e))
            return true;
        const ze_parent_t *p = ze_get(w, e, ze_parent_t);
        if (!p || !ze__alive(w, p->parent))
            return false;
        e = p->parent;
    }
    return true; /* a cycle: say so, the caller skips */
}

static ze_transform_t mix_transform(ze_rng_t *r)
{
    ze_transform_t t = ze_transform_identity();
    t.position = (ze_vec3_t){rnd(r, -2, 2), rnd(r, -2, 2), rnd(r, -2, 2)};
    t.rotation = ze_quat_from_axis_angle(
        ze_vec3_normalize((ze_vec3_t){rnd(r, -1, 1), 1, rnd(r, -1, 1)}), rnd(r, -0.3f, 0.3f));
    float s = rnd(r, 0.95f, 1.05f);
    t.scale = (ze_vec3_t){s, s, s};
    return t;
}

static void test_random_mixed_against_full_walk(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_world_t *w[2] = {f.w, ze_world_create(f.k, &(ze_world_desc_t){.name = "full walk"})};
    assert_non_null(w[1]);
    ze_rng_t rng;
    ze_rng_seed(&rng, 777);
    /* Mostly loose roots; about a tenth in small trees. */
    for (uint32_t i = 0; i < MIX_N; i++) {
        ze_transform_t t = mix_transform(&rng);
        int parent = i > 10 && ze_rng_below(&rng, 10) == 0 ? (int)ze_rng_below(&rng, i) : -1;
        for (int k = 0; k < 2; k++) {
            g_mix[k][i] = ze_entity_create(w[k]);
            assert_int_equal(ze_component_set(w[k], g_mix[k][i], ZE_ID(ze_transform_t), &t), ZE_OK);
            if (parent >= 0)
                set_parent(w[k], g_mix[k][i], g_mix[k][parent]);
        }
        mix_note(i);
    }
    g_mix_count = MIX_N;
    uint32_t counts[8] = {0};
    uint32_t stripped = UINT32_MAX, gave_back = 0; /* kind 6 */
    for (uint32_t step = 0; step < MIX_STEPS; step++) {
        uint32_t op = (uint32_t)ze_rng_below(&rng, 100);
        uint32_t moves = 1 + (uint32_t)ze_rng_below(&rng, 4);
        uint32_t kind = op < 60   ? 0
                        : op < 66 ? 1
                        : op < 76 ? 2
                        : op < 80 ? 3
                        : op < 86 ? 4
                        : op < 92 ? 5
                        : op < 96 ? 6
                                  : 7;
        counts[kind]++;
        if (kind == 0) { /* moves (often of members: their parents are picked) */
            for (uint32_t k = 0; k < moves; k++) {
                uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
                if (ze_rng_below(&rng, 2)) {
                    const ze_parent_t *p = ze_get(w[0], g_mix[0][i], ze_parent_t);
                    if (p && ze__alive(w[0], p->parent))
                        i = mix_index(p->parent);
                }
                if (!mix_alive_tf(w[0], g_mix[0][i]))
                    continue;
                float dx = rnd(&rng, -1, 1);
                for (int q = 0; q < 2; q++)
                    ze_get_mut(w[q], g_mix[q][i], ze_transform_t)->position.x += dx;
            }
        } else if (kind == 1) { /* written with the same value */
            uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
            for (int q = 0; q < 2 && mix_alive_tf(w[0], g_mix[0][i]); q++)
                (void)ze_get_mut(w[q], g_mix[q][i], ze_transform_t);
        } else if (kind == 2) { /* reparent, no cycle */
            uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
            uint32_t j = (uint32_t)ze_rng_below(&rng, g_mix_count);
            if (ze__alive(w[0], g_mix[0][i]) && ze__alive(w[0], g_mix[0][j]) &&
                !mix_is_ancestor(w[0], g_mix[0][i], g_mix[0][j]))
                for (int q = 0; q < 2; q++)
                    set_parent(w[q], g_mix[q][i], g_mix[q][j]);
        } else if (kind == 3) { /* Parent removed */
            uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
            for (int q = 0; q < 2 && ze__alive(w[0], g_mix[0][i]); q++)
                ze_component_remove(w[q], g_mix[q][i], ZE_ID(ze_parent_t));
        } else if (kind == 4) { /* destroyed (its subtree, or its children detached) */
            uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
            bool detach = ze_rng_below(&rng, 2), alive = ze__alive(w[0], g_mix[0][i]);
            for (int q = 0; q < 2 && alive; q++)
                assert_int_equal(ze_entity_destroy_ex(w[q], g_mix[q][i],
                                                      detach ? ZE_DESTROY_DETACH_CHILDREN : 0),
                                 ZE_OK);
        } else if (kind == 5) { /* a new entity with a Transform, maybe a child */
            ze_transform_t t = mix_transform(&rng);
            uint32_t j = (uint32_t)ze_rng_below(&rng, g_mix_count);
            bool child = ze_rng_below(&rng, 2) && ze__alive(w[0], g_mix[0][j]);
            for (int q = 0; q < 2; q++) {
                g_mix[q][g_mix_count] = ze_entity_create(w[q]);
                assert_int_equal(
                    ze_component_set(w[q], g_mix[q][g_mix_count], ZE_ID(ze_transform_t), &t),
                    ZE_OK);
                if (child)
                    set_parent(w[q], g_mix[q][g_mix_count], g_mix[q][j]);
            }
            mix_note(g_mix_count++);
        } else if (kind == 6) {
            /* A parent's Transform removed (its children become roots), and
             * at the next such step given back (they are children again,
             * with no Parent written). */
            uint32_t i = stripped;
            if (i == UINT32_MAX) {
                i = (uint32_t)ze_rng_below(&rng, g_mix_count);
                const ze_parent_t *p =
                    ze__alive(w[0], g_mix[0][i]) ? ze_get(w[0], g_mix[0][i], ze_parent_t) : NULL;
                i = p && mix_alive_tf(w[0], p->parent) ? mix_index(p->parent) : i;
            }
            ze_transform_t t = mix_transform(&rng);
            bool alive = ze__alive(w[0], g_mix[0][i]),
                 had = alive && ze_get(w[0], g_mix[0][i], ze_transform_t);
            for (int q = 0; q < 2 && alive; q++) {
                if (had)
                    ze_component_remove(w[q], g_mix[q][i], ZE_ID(ze_transform_t));
                else
                    assert_int_equal(ze_component_set(w[q], g_mix[q][i], ZE_ID(ze_transform_t), &t),
                                     ZE_OK);
            }
            stripped = alive && had ? i : UINT32_MAX;
            gave_back += alive && !had;
        } else { /* several moves of one subtree's members in one update */
            for (uint32_t k = 0; k < moves * 3; k++) {
                uint32_t i = (uint32_t)ze_rng_below(&rng, g_mix_count);
                if (!mix_alive_tf(w[0], g_mix[0][i]) || !ze_get(w[0], g_mix[0][i], ze_parent_t))
                    continue;
                float dy = rnd(&rng, -1, 1);
                for (int q = 0; q < 2; q++)
                    ze_get_mut(w[q], g_mix[q][i], ze_transform_t)->position.y += dy;
            }
        }
        uint32_t rows[2];
        for (int q = 0; q < 2; q++) {
            if (q == 1)
                w[q]->hier_valid = false; /* B: the full walk */
            uint32_t v = ze_world_version(w[q]);
            assert_int_equal(ze_hierarchy_update(w[q]), ZE_OK);
            rows[q] = rows_newer(w[q], v);
        }
        if (step) /* B's first recomputes what A computed at once too */
            assert_int_equal(rows[0], rows[1]);
        memset(g_naive_have, 0, sizeof g_naive_have);
        for (uint32_t i = 0; i < g_mix_count; i++) {
            if (!mix_alive_tf(w[0], g_mix[0][i])) {
                assert_false(mix_alive_tf(w[1], g_mix[1][i]));
                continue;
            }
            const ze_transform_t *a = ze_get(w[0], g_mix[0][i], ze_transform_t);
            const ze_transform_t *b = ze_get(w[1], g_mix[1][i], ze_transform_t);
            assert_non_null(b);
            if (memcmp(&a->world, &b->world, sizeof a->world) != 0) {
                print_error("step %u, entity %u: the update differs from the full walk\n", step, i);
                fail();
            }
            expect_mat4_near(a->world, mix_naive(w[0], i), 1e-4f);
        }
    }
    /* Every kind of step happened. */
    for (int k = 0; k < 8; k++)
        assert_true(counts[k] > 0);
    assert_true(gave_back > 0);
    fixture_end(&f);
}

/* A cycle stays reported (and broken) on updates that only move rows. */
static void test_cycle_kept_when_only_rows_move(void **state)
{
    (void)state;
    fixture_t f = fixture();
    ze_entity_t a = spawn(f.w, (ze_vec3_t){1, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t b = spawn(f.w, (ze_vec3_t){0, 1, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    ze_entity_t c = spawn(f.w, (ze_vec3_t){0, 0, 1}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
    set_parent(f.w, a, b);
    set_parent(f.w, b, a);
    set_parent(f.w, c, b);
    assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
    for (int round = 0; round < 3; round++) {
        ze_get_mut(f.w, a, ze_transform_t)->position.x += 1.0f;
        ze_get_mut(f.w, b, ze_transform_t)->position.y += 1.0f;
        assert_int_equal(ze_hierarchy_update(f.w), ZE_ERR_CYCLE);
        assert_true(f.w->hier_cache->valid);
        /* One of a and b is the root, the other below it; c below b. */
        ze_mat4_t wa = ze_get(f.w, a, ze_transform_t)->world;
        ze_mat4_t wb = ze_get(f.w, b, ze_transform_t)->world;
        ze_mat4_t la = local_of(f.w, a), lb = local_of(f.w, b);
        bool a_root = mat_near(wa, la) && mat_near(wb, ze_mat4_mul(la, lb));
        bool b_root = mat_near(wb, lb) && mat_near(wa, ze_mat4_mul(lb, la));
        assert_true(a_root != b_root);
        assert_true(
            mat_near(ze_get(f.w, c, ze_transform_t)->world, ze_mat4_mul(wb, local_of(f.w, c))));
    }
    fixture_end(&f);
}

static void test_update_timing(void **state)
{
    (void)state;
    for (uint32_t n = 10000; n <= 100000; n *= 10) {
        fixture_t f = fixture();
        ze_rng_t rng;
        ze_rng_seed(&rng, n);
        static ze_entity_t ents[100000];
        for (uint32_t i = 0; i < n; i++) {
            ents[i] = spawn(f.w, (ze_vec3_t){1, 0, 0}, ZE_QUAT_IDENTITY, (ze_vec3_t){1, 1, 1});
            if (i && ze_rng_below(&rng, 8))
                set_parent(f.w, ents[i], ents[ze_rng_below(&rng, i)]);
        }
        assert_int_equal(ze_hierarchy_update(f.w), ZE_OK); /* warm up */
        /* Three cases: nothing changed (skipped), one root moved (its
         * subtree recomputed), a Parent rewritten (everything recomputed). */
        static const char *const what[] = {"static", "one root moved", "reparented"};
        for (int c = 0; c < 3; c++) {
            uint64_t best = UINT64_MAX;
            for (int round = 0; round < 5; round++) {
                if (c == 1)
                    ze_get_mut(f.w, ents[0], ze_transform_t)->position.x += 1.0f;
                if (c == 2)
                    ze_set(f.w, ents[n - 1], ze_parent_t, {ents[0]});
                uint64_t t0 = ze_time_now_ns();
                assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
                uint64_t dt = ze_time_now_ns() - t0;
                best = dt < best ? dt : best;
            }
            printf("hierarchy update, %u entities, %s: %.3f ms (%.1f ns per entity)\n", n, what[c],
                   (double)best / 1e6, (double)best / n);
        }
        ze_get_mut(f.w, ents[0], ze_transform_t)->position.x = 1.0f;
        assert_int_equal(ze_hierarchy_update(f.w), ZE_OK);
        /* Each entity's world x = its depth + 1 (unit offsets along x). */
        for (uint32_t i = 0; i < n; i += n / 100) {
            int depth = 0;
            ze_entity_t e = ents[i];
            const ze_parent_t *p;
            while ((p = ze_get(f.w, e, ze_parent_t)) != NULL) {
                e = p->parent;
                depth++;
            }
            expect_vec3(world_pos(f.w, ents[i]), (float)depth + 1, 0, 0);
        }
        fixture_end(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_world_clear),
        cmocka_unit_test(test_three_level_chain),
        cmocka_unit_test(test_reparent),
        cmocka_unit_test(test_parent_destroyed_or_without_transform),
        cmocka_unit_test(test_cycle_detected_and_reported),
        cmocka_unit_test(test_destroy_parent_destroys_subtree),
        cmocka_unit_test(test_destroy_detaches_children_keeping_world_transform),
        cmocka_unit_test(test_destroy_parent_through_commands),
        cmocka_unit_test(test_destroy_asks_permission_for_what_it_takes),
        cmocka_unit_test(test_random_forest_against_naive),
        cmocka_unit_test(test_snapshot_and_system_desc),
        cmocka_unit_test(test_roots_only_moved_rows),
        cmocka_unit_test(test_loose_roots_and_members_only_changed),
        cmocka_unit_test(test_random_mixed_against_full_walk),
        cmocka_unit_test(test_cycle_kept_when_only_rows_move),
        cmocka_unit_test(test_update_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
