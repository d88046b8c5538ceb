/* Prefabs: a hierarchy copied out of a world and instantiated several times
 * into another one; entity references remapped inside an instance; UUID and
 * transient components left out; copy and destroy hooks balanced; the
 * prefab outlives its source; refused during an iteration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/ecs.h"

typedef struct Link {
    ze_entity_t target;
    int32_t weight;
} Link;
static const ze_field_desc_t g_link_fields[] = {
    ZE_FIELD(Link, target, ZE_FIELD_ENTITY),
    ZE_FIELD(Link, weight, ZE_FIELD_I32),
};

/* A value with hooks: every construction and destruction counted. */
typedef struct Owned {
    int32_t value;
} Owned;
static int g_live;
static void owned_copy(void *dst, const void *src, uint32_t n, void *user)
{
    (void)user;
    memcpy(dst, src, sizeof(Owned) * n);
    g_live += (int)n;
}
static void owned_move(void *dst, void *src, uint32_t n, void *user)
{
    (void)user;
    memcpy(dst, src, sizeof(Owned) * n);
}
static void owned_ctor(void *p, uint32_t n, void *user)
{
    (void)user;
    memset(p, 0, sizeof(Owned) * n);
    g_live += (int)n;
}
static void owned_dtor(void *p, uint32_t n, void *user)
{
    (void)p;
    (void)user;
    g_live -= (int)n;
}

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *src, *dst;
    ze_component_t link, owned, cache, marked;
    ze_entity_t root, child, leaf, other;
} fx_t;

static int setup(void **state)
{
    static fx_t f;
    memset(&f, 0, sizeof f);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    if (!f.k ||
        ze_component_register(f.k,
                              &(ze_component_desc_t){.name = "Link",
                                                     .size = sizeof(Link),
                                                     .fields = g_link_fields,
                                                     .field_count = ZE_COUNTOF(g_link_fields)},
                              &f.link) ||
        ze_component_register(f.k,
                              &(ze_component_desc_t){.name = "Owned",
                                                     .size = sizeof(Owned),
                                                     .hooks = {.ctor = owned_ctor,
                                                               .dtor = owned_dtor,
                                                               .copy = owned_copy,
                                                               .move = owned_move}},
                              &f.owned) ||
        ze_component_register(
            f.k,
            &(ze_component_desc_t){.name = "Cache", .size = 4, .flags = ZE_COMPONENT_TRANSIENT},
            &f.cache) ||
        ze_component_register(f.k, &(ze_component_desc_t){.name = "Marked"}, &f.marked))
        return -1;
    f.src = ze_world_create(f.k, &(ze_world_desc_t){.name = "template", .capacity = 64});
    f.dst = ze_world_create(f.k, &(ze_world_desc_t){.name = "game", .capacity = 4096});
    if (!f.src || !f.dst)
        return -1;
    /* root -> child -> leaf; leaf links to root; root links to `other`,
       which dies before the prefab is made. */
    ze_world_t *w = f.src;
    f.other = ze_entity_create(w);
    f.root = ze_entity_create(w);
    f.child = ze_entity_create(w);
    f.leaf = ze_entity_create(w);
    ze_transform_t t = ze_transform_identity();
    t.position = (ze_vec3_t){1, 2, 3};
    ze_component_set(w, f.root, (ze_component_t){ZE_COMPONENT_ID_TRANSFORM}, &t);
    ze_set(w, f.root, ze_name_t, {"root"});
    ze_set(w, f.root, ze_uuid_component_t, {ze_uuid_v4()});
    ze_component_set(w, f.root, f.link, &(Link){f.other, 5});
    uint32_t cache = 77;
    ze_component_set(w, f.root, f.cache, &cache);
    t.position = (ze_vec3_t){0, 1, 0};
    ze_component_set(w, f.child, (ze_component_t){ZE_COMPONENT_ID_TRANSFORM}, &t);
    ze_set(w, f.child, ze_parent_t, {f.root});
    ze_component_set(w, f.child, f.owned, &(Owned){42});
    ze_component_add(w, f.child, f.marked);
    ze_set(w, f.leaf, ze_parent_t, {f.child});
    ze_component_set(w, f.leaf, f.link, &(Link){f.root, 9});
    ze_entity_destroy(w, f.other);
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

static void test_instances_are_copies_with_their_own_links(void **state)
{
    fx_t *f = *state;
    int live_before = g_live;
    ze_prefab_t *p = NULL;
    assert_int_equal(ze_prefab_create(f->src, &p), ZE_OK);
    assert_int_equal(ze_prefab_entity_count(p), 3);
    assert_int_equal(g_live, live_before + 1); /* the prefab's copy of Owned */

    ze_world_t *w = f->dst;
    ze_entity_t holder = ze_entity_create(w);
    ze_entity_t a[3], b[3];
    assert_int_equal(ze_prefab_instantiate(w, p, holder, a), ZE_OK);
    assert_int_equal(ze_prefab_instantiate(w, p, ZE_ENTITY_NULL, b), ZE_OK);
    assert_int_equal(ze_world_entity_count(w), 7);
    /* order: root, child, leaf (the source's index order) */
    assert_string_equal(ze_get(w, a[0], ze_name_t)->value, "root");
    assert_true(ze_get(w, a[0], ze_transform_t)->position.z == 3);
    assert_true(ze_entity_eq(ze_get(w, a[0], ze_parent_t)->parent, holder)); /* the root */
    assert_false(ze_has(w, b[0], ze_parent_t));                              /* no holder */
    assert_true(ze_entity_eq(ze_get(w, a[1], ze_parent_t)->parent, a[0]));
    assert_true(ze_entity_eq(ze_get(w, a[2], ze_parent_t)->parent, a[1]));
    assert_true(ze_entity_eq(ze_get(w, b[2], ze_parent_t)->parent, b[1]));
    const Link *la = ze_component_get(w, a[2], f->link);
    const Link *lb = ze_component_get(w, b[2], f->link);
    assert_true(ze_entity_eq(la->target, a[0]) && la->weight == 9);
    assert_true(ze_entity_eq(lb->target, b[0]));
    /* a reference out of the template became null */
    assert_true(ze_entity_is_null(((const Link *)ze_component_get(w, a[0], f->link))->target));
    assert_int_equal(((const Owned *)ze_component_get(w, a[1], f->owned))->value, 42);
    assert_true(ze_component_has(w, b[1], f->marked));
    /* not copied: the identity and what is transient */
    assert_false(ze_has(w, a[0], ze_uuid_component_t));
    assert_false(ze_component_has(w, a[0], f->cache));
    /* the prefab outlives its source */
    ze_world_t *gone = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 8});
    ze_entity_t x = ze_entity_create(gone);
    ze_set(gone, x, ze_name_t, {"lone"});
    ze_prefab_t *q = NULL;
    assert_int_equal(ze_prefab_create(gone, &q), ZE_OK);
    ze_world_destroy(gone);
    ze_entity_t c[1];
    assert_int_equal(ze_prefab_instantiate(w, q, ZE_ENTITY_NULL, c), ZE_OK);
    assert_string_equal(ze_get(w, c[0], ze_name_t)->value, "lone");
    ze_prefab_destroy(q);
    /* a dead parent is refused, with nothing made */
    ze_entity_t dead = ze_entity_create(w);
    ze_entity_destroy(w, dead);
    uint32_t n = ze_world_entity_count(w);
    assert_int_equal(ze_prefab_instantiate(w, p, dead, NULL), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_world_entity_count(w), n);
    ze_prefab_destroy(p);
    ze_world_clear(w);
    assert_int_equal(g_live, live_before); /* every copy destroyed */
}

static void test_refused_during_an_iteration(void **state)
{
    fx_t *f = *state;
    ze_prefab_t *p = NULL;
    assert_int_equal(ze_prefab_create(f->src, &p), ZE_OK);
    ze_world_t *w = f->dst;
    ze_entity_t e = ze_entity_create(w);
    ze_set(w, e, ze_name_t, {"x"});
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_name_t)});
    ze_iter_t it = ze_query_iter(w, q);
    assert_true(ze_query_next(&it));
    uint32_t n = ze_world_entity_count(w);
    assert_int_equal(ze_prefab_instantiate(w, p, ZE_ENTITY_NULL, NULL), ZE_ERR_STATE);
    ze_iter_fini(&it);
    assert_int_equal(ze_world_entity_count(w), n);
    assert_int_equal(ze_prefab_instantiate(w, p, ZE_ENTITY_NULL, NULL), ZE_OK);
    assert_int_equal(ze_world_entity_count(w), n + 3);
    ze_prefab_destroy(p);
    ze_world_clear(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instances_are_copies_with_their_own_links),
        cmocka_unit_test(test_refused_during_an_iteration),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
