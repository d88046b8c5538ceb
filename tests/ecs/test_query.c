/* Queries and packs: packing whatever the add order, nesting and
 * conflicts, filters, optional fields, gather and write-back, deferral of
 * structural changes during iteration. */
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
typedef struct Mass {
    float m;
} Mass;
typedef struct Frozen {
    int unused;
} Frozen;

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_component_t pos, vel, mass, frozen;
} fx_t;

static int setup_impl(void **state, bool auto_groups)
{
    static fx_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    f.w =
        ze_world_create(f.k, &(ze_world_desc_t){.capacity = 100000, .no_auto_packs = !auto_groups});
    ZE_COMPONENT(f.k, Position);
    ZE_COMPONENT(f.k, Velocity);
    ZE_COMPONENT(f.k, Mass);
    ZE_TAG(f.k, Frozen);
    f.pos = ZE_ID(Position);
    f.vel = ZE_ID(Velocity);
    f.mass = ZE_ID(Mass);
    f.frozen = ZE_ID(Frozen);
    *state = &f;
    return 0;
}
static int setup(void **state)
{
    return setup_impl(state, true);
}
static int setup_manual(void **state)
{
    return setup_impl(state, false);
}
static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

#define M(f, x) ze_mask_of((f)->x)

/* order[0..n) = 0, 1, ... n - 1, shuffled (Fisher-Yates) when rng is given. */
static void fill_order(uint32_t *order, uint32_t n, ze_rng_t *rng)
{
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = n - 1; rng && i > 0; i--) {
        uint32_t j = (uint32_t)ze_rng_below(rng, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* n entities with Position; Velocity added to a random 3/4 in random
 * order; Mass to a random half; Frozen to every 10th. */
static void populate(fx_t *f, uint32_t n, ze_entity_t *out)
{
    ze_world_t *w = f->w;
    ze_rng_t rng;
    ze_rng_seed(&rng, 99);
    for (uint32_t i = 0; i < n; i++) {
        out[i] = ze_entity_create(w);
        ze_component_set(w, out[i], f->pos, &(Position){(float)i, 0});
    }
    uint32_t *order = ze_mem_sys_alloc(sizeof(uint32_t) * n);
    fill_order(order, n, &rng);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        if (i % 4 != 3)
            ze_component_set(w, out[i], f->vel, &(Velocity){1, (float)i});
        if ((i * 2654435761u) % 2 == 0)
            ze_component_set(w, out[i], f->mass, &(Mass){(float)i});
        if (i % 10 == 0)
            ze_component_add(w, out[i], f->frozen);
    }
    ze_mem_sys_free(order);
}

static void test_group_packs_random_order(void **state)
{
    fx_t *f = *state;
    enum { N = 20000 };
    static ze_entity_t es[N];
    populate(f, N, es);
    ze_query_t q = ze_query_create(
        f->w, &(ze_query_desc_t){.with = ze_mask_or(M(f, pos), M(f, vel)), .write = M(f, pos)});
    assert_int_not_equal(q.id, 0);
    /* The auto group sorted existing entities in. */
    assert_int_equal(ze_pack_size(f->w, ze_mask_or(M(f, pos), M(f, vel))), N - N / 4);
    uint32_t seen = 0, runs = 0;
    ze_iter_t it = ze_query_iter(f->w, q);
    while (ze_query_next(&it)) {
        Position *p = ze_iter_field(&it, f->pos);
        Velocity *v = ze_iter_field(&it, f->vel);
        assert_non_null(p);
        assert_non_null(v);
        /* packed: pointers into storage, no gathering */
        assert_int_equal(it.gathered, 0);
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t idx = it.indices[i];
            assert_true(p[i].x == (float)idx && v[i].y == (float)idx);
            p[i].y += v[i].x;
        }
        seen += it.count;
        runs++;
    }
    assert_int_equal(seen, N - N / 4);
    assert_true(runs <= (N + ZE__PAGE - 1) / ZE__PAGE + 1);
    for (uint32_t i = 0; i < N; i++)
        assert_true(((Position *)ze_component_get(f->w, es[i], f->pos))->y ==
                    (i % 4 != 3 ? 1.0f : 0.0f));
    assert_int_equal(ze_query_count(f->w, q), N - N / 4);
}

static void test_group_maintained_by_add_remove(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    assert_int_equal(ze_pack_create(w, ze_mask_or(M(f, pos), M(f, vel))), ZE_OK);
    enum { N = 3000 };
    static ze_entity_t es[N];
    populate(f, N, es);
    ze_rng_t rng;
    ze_rng_seed(&rng, 5);
    for (int step = 0; step < 20000; step++) {
        uint32_t i = (uint32_t)ze_rng_below(&rng, N);
        if (!ze_entity_alive(w, es[i]))
            continue;
        switch (ze_rng_below(&rng, 4)) {
        case 0:
            ze_component_remove(w, es[i], f->vel);
            break;
        case 1:
            ze_component_set(w, es[i], f->vel, &(Velocity){1, (float)i});
            break;
        case 2:
            ze_component_remove(w, es[i], f->pos);
            break;
        default:
            ze_component_set(w, es[i], f->pos, &(Position){(float)i, 0});
            break;
        }
        if (step % 997 == 0) {
            ze_entity_destroy(w, es[i]);
        }
    }
    /* Invariant: [0, len) of both pools = exactly the entities with both,
     * same order, and every value still belongs to its entity. */
    uint32_t len = ze_pack_size(w, ze_mask_or(M(f, pos), M(f, vel)));
    const ze__pool_t *pp = w->pools[f->pos.id], *vp = w->pools[f->vel.id];
    uint32_t both = 0;
    for (uint32_t i = 0; i < N; i++)
        both += ze_component_has(w, es[i], f->pos) && ze_component_has(w, es[i], f->vel);
    assert_int_equal(len, both);
    for (uint32_t d = 0; d < len; d++) {
        uint32_t idx = ze__pool_entity(pp, d);
        assert_int_equal(ze__pool_entity(vp, d), idx);
        assert_true(((Position *)ze__pool_data(pp, d))->x == (float)idx);
        assert_true(((Velocity *)ze__pool_data(vp, d))->y == (float)idx);
    }
}

static void test_nested_groups_and_conflicts(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 5000 };
    static ze_entity_t es[N];
    populate(f, N, es);
    ze_mask_t pv = ze_mask_or(M(f, pos), M(f, vel)), pvm = ze_mask_or(pv, M(f, mass));
    assert_int_equal(ze_pack_create(w, pvm), ZE_OK); /* bigger first */
    assert_int_equal(ze_pack_create(w, pv), ZE_OK);  /* then the one containing it */
    assert_int_equal(ze_pack_create(w, pv), ZE_OK);  /* idempotent */
    /* {Velocity, Mass} overlaps {Position, Velocity} without nesting. */
    assert_int_equal(ze_pack_create(w, ze_mask_or(M(f, vel), M(f, mass))), ZE_ERR_CONFLICT);
    assert_int_equal(ze_pack_create(w, M(f, pos)), ZE_ERR_INVALID_ARG);
    uint32_t n_pv = 0, n_pvm = 0;
    for (uint32_t i = 0; i < N; i++) {
        ze_mask_t m = ze_entity_mask(w, es[i]);
        n_pv += ze_mask_contains(m, pv);
        n_pvm += ze_mask_contains(m, pvm);
    }
    assert_int_equal(ze_pack_size(w, pv), n_pv);
    assert_int_equal(ze_pack_size(w, pvm), n_pvm);
    /* The three-component query is packed too. */
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = pvm});
    uint32_t seen = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        assert_int_equal(it.gathered, 0);
        Mass *m = ze_iter_field(&it, f->mass);
        for (uint32_t i = 0; i < it.count; i++)
            assert_true(m[i].m == (float)it.indices[i]);
        seen += it.count;
    }
    assert_int_equal(seen, n_pvm);
    /* Removing Mass keeps both ranges consistent. */
    for (uint32_t i = 0; i < N; i += 3)
        ze_component_remove(w, es[i], f->mass);
    n_pvm = 0;
    for (uint32_t i = 0; i < N; i++)
        n_pvm += ze_mask_contains(ze_entity_mask(w, es[i]), pvm);
    assert_int_equal(ze_pack_size(w, pvm), n_pvm);
    assert_int_equal(ze_query_count(w, q), n_pvm);
}

static void test_filters_optional_and_gather(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 6000 };
    static ze_entity_t es[N];
    populate(f, N, es);
    /* Not packed (manual world, no groups): Velocity is gathered and, being
     * writable, scattered back. Frozen entities are excluded; Mass optional. */
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ze_mask_or(M(f, pos), M(f, vel)),
                                                         .without = M(f, frozen),
                                                         .optional = M(f, mass),
                                                         .write = M(f, vel)});
    assert_int_equal(ze_pack_size(w, ze_mask_or(M(f, pos), M(f, vel))), 0);
    uint32_t seen = 0, with_mass = 0, gathered_runs = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        Position *p = ze_iter_field(&it, f->pos);
        Velocity *v = ze_iter_field(&it, f->vel);
        Mass *m = ze_iter_field(&it, f->mass);
        gathered_runs += it.gathered != 0;
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t idx = it.indices[i];
            assert_true(idx % 10 != 0 && idx % 4 != 3);
            assert_true(p[i].x == (float)idx && v[i].y == (float)idx);
            bool has_mass = (idx * 2654435761u) % 2 == 0;
            assert_int_equal(m != NULL, has_mass); /* runs split by presence */
            if (m)
                assert_true(m[i].m == (float)idx);
            v[i].x = 42;
        }
        seen += it.count;
        with_mass += m ? it.count : 0;
    }
    assert_true(gathered_runs > 0);
    uint32_t expect = 0, expect_mass = 0;
    for (uint32_t i = 0; i < N; i++) {
        bool match = i % 10 != 0 && i % 4 != 3;
        expect += match;
        expect_mass += match && (i * 2654435761u) % 2 == 0;
        const Velocity *v = ze_component_get(w, es[i], f->vel);
        if (v)
            assert_true(v->x == (match ? 42.0f : 1.0f)); /* written back */
    }
    assert_int_equal(seen, expect);
    assert_int_equal(with_mass, expect_mass);
    assert_int_equal(ze_query_count(w, q), expect);
}

static void test_query_cache_and_validation(void **state)
{
    fx_t *f = *state;
    ze_query_desc_t d = {.with = M(f, pos), .without = M(f, frozen)};
    ze_query_t a = ze_query_create(f->w, &d), b = ze_query_create(f->w, &d);
    assert_int_equal(a.id, b.id);
    d.optional = M(f, mass);
    assert_int_not_equal(ze_query_create(f->w, &d).id, a.id); /* keyed by the full sets */
    assert_int_equal(ze_query_create(f->w, &(ze_query_desc_t){0}).id, 0);
    assert_int_equal(
        ze_query_create(f->w, &(ze_query_desc_t){.with = M(f, pos), .without = M(f, pos)}).id, 0);
    assert_int_equal(
        ze_query_create(f->w, &(ze_query_desc_t){.with = M(f, pos), .write = M(f, vel)}).id, 0);
    assert_int_equal(
        ze_query_create(f->w, &(ze_query_desc_t){.with = ze_mask_of((ze_component_t){60})}).id, 0);
    /* Nothing matches: no run, and the world is not left locked. */
    ze_iter_t it = ze_query_iter(f->w, a);
    assert_false(ze_query_next(&it));
    assert_int_equal(atomic_load(&f->w->iter_depth), 0);
}

static void test_structural_changes_deferred_during_iteration(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 1000 };
    static ze_entity_t es[N];
    for (int i = 0; i < N; i++) {
        es[i] = ze_entity_create(w);
        ze_component_set(w, es[i], f->pos, &(Position){(float)i, 0});
        ze_component_set(w, es[i], f->vel, &(Velocity){0, 0});
    }
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ze_mask_or(M(f, pos), M(f, vel))});
    uint32_t visited = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            ze_entity_t e = ze_iter_entity(&it, i);
            if (it.indices[i] % 2)
                assert_int_equal(ze_entity_destroy(w, e), ZE_OK); /* deferred */
            else
                assert_null(ze_component_add(w, e, f->mass));           /* deferred */
            assert_int_equal(ze_component_remove(w, e, f->vel), ZE_OK); /* deferred */
            visited++;
        }
        /* Nothing moved while iterating. */
        assert_int_equal(ze_world_entity_count(w), N);
    }
    assert_int_equal(visited, N);
    /* Applied when the iteration ended. */
    assert_int_equal(ze_world_entity_count(w), N / 2);
    for (int i = 0; i < N; i++) {
        if (i % 2) {
            assert_false(ze_entity_alive(w, es[i]));
        } else {
            assert_true(ze_component_has(w, es[i], f->mass));
            assert_false(ze_component_has(w, es[i], f->vel));
        }
    }
    /* ze_iter_fini ends an iteration early and releases the world. */
    it = ze_query_iter(w, ze_query_create(w, &(ze_query_desc_t){.with = M(f, pos)}));
    assert_true(ze_query_next(&it));
    ze_entity_destroy(w, ze_iter_entity(&it, 0));
    ze_iter_fini(&it);
    assert_int_equal(ze_world_entity_count(w), N / 2 - 1);
}

/* Storage invariants: every pool's sparse and dense entries agree, and every
 * group holds exactly the alive entities with its whole set, packed at the
 * front of each pool it owns, in the same order. Deferred destroys are
 * settled first (their ghosts are in the pools until then). */
static void check_storage(ze_world_t *w)
{
    ze__world_settle(w);
    assert_int_equal(w->pend_count, 0);
    for (uint32_t c = 0; c < w->pool_cap; c++) {
        const ze__pool_t *p = w->pools[c];
        if (!p)
            continue;
        uint32_t have = 0;
        for (uint32_t i = 0; i < w->fresh; i++)
            have += !(w->gen[i] & ZE__GEN_DEAD) && ze__has(w, i, c);
        assert_int_equal(p->count, have);
        for (uint32_t d = 0; d < p->count; d++) {
            uint32_t e = ze__pool_entity(p, d);
            assert_int_equal(ze__sparse_get(p, e), d + 1);
            assert_false(w->gen[e] & ZE__GEN_DEAD);
            assert_true(ze__has(w, e, c));
        }
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        const ze__group_t *gr = &w->groups[g];
        uint32_t members = 0;
        for (uint32_t i = 0; i < w->fresh; i++)
            members += !(w->gen[i] & ZE__GEN_DEAD) &&
                       ze_mask_contains(ze_entity_mask(w, ze_entity_from_index(w, i)), gr->owned);
        assert_int_equal(gr->len, members);
        const ze__pool_t *first = w->pools[gr->first_pool];
        for (uint32_t d = 0; d < gr->len; d++) {
            uint32_t e = ze__pool_entity(first, d);
            assert_true(ze_mask_contains(ze_entity_mask(w, ze_entity_from_index(w, e)), gr->owned));
            for (uint32_t o = 0; o < gr->owned.count; o++)
                assert_int_equal(ze__pool_entity(w->pools[gr->owned.ids[o]], d), e);
        }
    }
}

/* The model of the random-operation tests: component c of entity i (c 3
 * being the tag Frozen) holds {val[i] + c, val[i] * 3 + c, val[i] ^ c}, cut
 * to its size. Checks every component of every entity still alive. */
static void check_values(const fx_t *f, const ze_entity_t *es, const uint32_t *val, uint32_t n,
                         const ze_component_t *comps, uint32_t ncomps)
{
    for (uint32_t i = 0; i < n; i++) {
        if (ze_entity_is_null(es[i]))
            continue;
        for (uint32_t c = 0; c < ncomps; c++) {
            const uint32_t *v = ze_component_get(f->w, es[i], comps[c]);
            if (c == 3 || !v)
                continue;
            uint32_t size = ze_component_info(f->k, comps[c])->size;
            uint32_t want[3] = {val[i] + c, val[i] * 3 + c, val[i] ^ c};
            assert_memory_equal(v, want, size);
        }
    }
}

/* Destroys on every removal path (the planned ones: one group owning exactly
 * the set, or no group; the general one: nested groups, two disjoint groups,
 * sets with extra types) mixed with creates, adds and removes, against a
 * model of every value; a group created halfway drops the plans. */
static void test_destroy_paths_keep_storage_consistent(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_component_t a, b;
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "A", .size = 4}, &a), ZE_OK);
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "B", .size = 12}, &b), ZE_OK);
    const ze_component_t comps[6] = {f->pos, f->vel, f->mass, f->frozen, a, b};
    const ze_mask_t pv = ze_mask_or(M(f, pos), M(f, vel)),
                    ab = ze_mask_or(ze_mask_of(a), ze_mask_of(b));
    assert_int_equal(ze_pack_create(w, pv), ZE_OK);
    assert_int_equal(ze_pack_create(w, ze_mask_or(pv, M(f, mass))), ZE_OK);
    const ze_mask_t sets[] = {
        pv,                         /* planned: its group owns exactly the set */
        ze_mask_or(pv, M(f, mass)), /* planned: the inner group */
        M(f, pos),                  /* planned: in no group */
        ze_mask_or(M(f, mass), M(f, frozen)),
        ze_mask_or(pv, M(f, frozen)), /* general: a group owning part of the set */
        ze_mask_or(ab, pv),           /* general: two groups (once {A,B} exists) */
        ab,                           /* planned once {A,B} exists */
        ZE_MASK_EMPTY,
    };
    enum { N = 6000, OPS = 12000 };
    static ze_entity_t es[N];
    static uint32_t val[N]; /* every value of entity i derives from val[i] */
    ze_rng_t rng;
    ze_rng_seed(&rng, 4242);
    for (uint32_t i = 0; i < N; i++)
        es[i] = ZE_ENTITY_NULL;
    for (uint32_t op = 0; op < OPS; op++) {
        if (op == OPS / 2)
            assert_int_equal(ze_pack_create(w, ab), ZE_OK); /* sorts members in */
        uint32_t i = (uint32_t)ze_rng_below(&rng, N);
        uint32_t r = (uint32_t)ze_rng_below(&rng, 10);
        ze_entity_t e = es[i];
        if (ze_entity_is_null(e)) {
            e = es[i] = ze_entity_create(w);
            val[i] = op;
            ze_mask_t m = sets[ze_rng_below(&rng, ZE_COUNTOF(sets))];
            for (uint32_t c = 0; c < 6; c++) {
                if (!ze_mask_has(m, comps[c]))
                    continue;
                uint32_t v[3] = {val[i] + c, val[i] * 3 + c, val[i] ^ c};
                if (c == 3)
                    ze_component_add(w, e, comps[c]);
                else
                    assert_int_equal(ze_component_set(w, e, comps[c], v), ZE_OK);
            }
        } else if (r < 5) {
            assert_int_equal(ze_entity_destroy(w, e), ZE_OK);
            assert_false(ze_entity_alive(w, e));
            assert_null(ze_component_get(w, e, f->pos));
            es[i] = ZE_ENTITY_NULL;
        } else {
            uint32_t c = (uint32_t)ze_rng_below(&rng, 6);
            if (ze_component_has(w, e, comps[c])) {
                assert_int_equal(ze_component_remove(w, e, comps[c]), ZE_OK);
            } else if (c == 3) {
                ze_component_add(w, e, comps[c]);
            } else {
                uint32_t v[3] = {val[i] + c, val[i] * 3 + c, val[i] ^ c};
                assert_int_equal(ze_component_set(w, e, comps[c], v), ZE_OK);
            }
        }
        if (op % 1000 == 999 || op == OPS / 2)
            check_storage(w);
    }
    check_storage(w);
    check_values(f, es, val, N, comps, 6);
    /* A destroy is deferred: the handle is dead at once, its entries stay
     * as ghosts until a settle (here: a group's size). */
    ze_entity_t e = ze_entity_create(w);
    ze_component_set(w, e, f->pos, &(Position){1, 1});
    ze_component_set(w, e, f->vel, &(Velocity){1, 1});
    uint32_t packed = ze_pack_size(w, pv);
    assert_int_equal(ze_entity_destroy(w, e), ZE_OK);
    assert_false(ze_entity_alive(w, e));
    assert_null(ze_component_get(w, e, f->pos));
    assert_null(ze__get_sized(w, e, f->pos, sizeof(Position)));
    assert_false(ze_component_has(w, e, f->vel));
    assert_int_equal(w->pend_count, 1);
    assert_int_equal(ze_pack_size(w, pv), packed - 1);
    assert_int_equal(w->pend_count, 0);
    check_storage(w);
}

/* Mass destroys settled in bulk (a pass per pool) and one by one, with
 * nested groups, a disjoint group, pools in no group (data and a tag): random
 * shares of the alive entities destroyed in random or creation order, adds
 * and removes on survivors while ghosts are still in the pools, then a
 * settle by a query, a group size, a population, or a create; storage and
 * every survivor's values checked against a model. */
static void test_bulk_destroy_keeps_storage_consistent(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_component_t a, b, loose;
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "A", .size = 4}, &a), ZE_OK);
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "B", .size = 12}, &b), ZE_OK);
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "Loose", .size = 8}, &loose),
        ZE_OK); /* in no group */
    const ze_component_t comps[7] = {f->pos, f->vel, f->mass, f->frozen, a, b, loose};
    const ze_mask_t pv = ze_mask_or(M(f, pos), M(f, vel)),
                    ab = ze_mask_or(ze_mask_of(a), ze_mask_of(b));
    assert_int_equal(ze_pack_create(w, pv), ZE_OK);
    assert_int_equal(ze_pack_create(w, ze_mask_or(pv, M(f, mass))), ZE_OK);
    assert_int_equal(ze_pack_create(w, ab), ZE_OK);
    ze_query_t q_pv = ze_query_create(w, &(ze_query_desc_t){.with = pv});
    enum { N = 20000 };
    static ze_entity_t es[N];
    static uint32_t val[N];
    static uint32_t order[N];
    ze_rng_t rng;
    ze_rng_seed(&rng, 777);
    const uint32_t shares[] = {100, 10, 30, 60, 90, 100, 3, 50};
    for (uint32_t round = 0; round < ZE_COUNTOF(shares); round++) {
        /* refill: random sets, components added in random order */
        for (uint32_t i = 0; i < N; i++) {
            if (!ze_entity_is_null(es[i]))
                continue;
            es[i] = ze_entity_create(w);
            val[i] = round * N + i;
        }
        for (uint32_t c = 0; c < 7; c++) {
            fill_order(order, N, &rng);
            for (uint32_t k = 0; k < N; k++) {
                uint32_t i = order[k];
                if (ze_component_has(w, es[i], comps[c]) || ze_rng_below(&rng, 4) == 0)
                    continue;
                uint32_t v[3] = {val[i] + c, val[i] * 3 + c, val[i] ^ c};
                if (c == 3)
                    ze_component_add(w, es[i], comps[c]);
                else
                    assert_int_equal(ze_component_set(w, es[i], comps[c], v), ZE_OK);
            }
        }
        check_storage(w);
        /* destroy a share, in creation order or at random */
        bool in_order = round % 2 == 0;
        fill_order(order, N, in_order ? NULL : &rng);
        uint32_t killed = 0;
        for (uint32_t k = 0; k < N; k++) {
            uint32_t i = order[k];
            if (ze_rng_below(&rng, 100) >= shares[round])
                continue;
            ze_entity_t e = es[i];
            assert_int_equal(ze_entity_destroy(w, e), ZE_OK);
            assert_false(ze_entity_alive(w, e));
            assert_null(ze__get_sized(w, e, f->pos, sizeof(Position)));
            assert_int_equal(ze_entity_destroy(w, e), ZE_ERR_NOT_FOUND);
            es[i] = ZE_ENTITY_NULL;
            killed++;
        }
        assert_true(killed == 0 || w->pend_count > 0);
        /* structural changes on survivors among the ghosts */
        for (uint32_t k = 0; k < N / 20; k++) {
            uint32_t i = (uint32_t)ze_rng_below(&rng, N), c = (uint32_t)ze_rng_below(&rng, 7);
            if (ze_entity_is_null(es[i]))
                continue;
            if (ze_component_has(w, es[i], comps[c])) {
                assert_int_equal(ze_component_remove(w, es[i], comps[c]), ZE_OK);
            } else if (c == 3) {
                ze_component_add(w, es[i], comps[c]);
            } else {
                uint32_t v[3] = {val[i] + c, val[i] * 3 + c, val[i] ^ c};
                assert_int_equal(ze_component_set(w, es[i], comps[c], v), ZE_OK);
            }
        }
        /* the settle: what a frame or a caller would do next */
        uint32_t want_pv = 0;
        for (uint32_t i = 0; i < N; i++)
            want_pv += !ze_entity_is_null(es[i]) && ze_mask_contains(ze_entity_mask(w, es[i]), pv);
        switch (round % 4) {
        case 0: {
            uint32_t seen = 0;
            ze_iter_t it = ze_query_iter(w, q_pv);
            while (ze_query_next(&it))
                for (uint32_t j = 0; j < it.count; j++)
                    seen += ze_entity_alive(w, ze_iter_entity(&it, j));
            assert_int_equal(seen, want_pv);
            break;
        }
        case 1:
            assert_int_equal(ze_pack_size(w, pv), want_pv);
            break;
        case 2:
            ze_component_population(w, f->mass);
            break;
        default:
            ze_entity_destroy(w, ze_entity_create(w)); /* reuses a slot: settles first */
            break;
        }
        assert_int_equal(w->pend_count, 0);
        check_storage(w);
        assert_int_equal(ze_query_count(w, q_pv), want_pv);
        check_values(f, es, val, N, comps, 7);
    }
}

/* Destroys are deferred only for plain data: a component with a dtor runs
 * it at the destroy, and a destroyed slot is reused only once its ghosts
 * are gone (LIFO order kept). */
static uint32_t g_dtors;
static void count_dtor(void *p, uint32_t n, void *user)
{
    (void)p;
    (void)user;
    g_dtors += n;
}

static void test_destroy_dtor_immediate_and_reuse(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_component_t h;
    assert_int_equal(
        ze_component_register(
            f->k,
            &(ze_component_desc_t){.name = "Hooked", .size = 8, .hooks = {.dtor = count_dtor}}, &h),
        ZE_OK);
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    ze_component_add(w, a, h);
    ze_component_set(w, a, f->pos, &(Position){1, 2});
    ze_component_set(w, b, f->pos, &(Position){3, 4});
    g_dtors = 0;
    assert_int_equal(ze_entity_destroy(w, a), ZE_OK);
    assert_int_equal(g_dtors, 1);       /* at the destroy */
    assert_int_equal(w->pend_count, 0); /* not deferred */
    assert_int_equal(ze_entity_destroy(w, b), ZE_OK);
    assert_int_equal(w->pend_count, 1);  /* deferred */
    ze_entity_t c = ze_entity_create(w); /* b's slot, LIFO */
    assert_int_equal(w->pend_count, 0);
    assert_int_equal(ze_entity_index(c), ze_entity_index(b));
    assert_int_equal(ze_entity_generation(c), ze_entity_generation(b) + 1);
    assert_null(ze__get_sized(w, c, f->pos, sizeof(Position)));
    assert_false(ze_component_has(w, c, f->pos));
    ze_entity_t d = ze_entity_create(w); /* then a's */
    assert_int_equal(ze_entity_index(d), ze_entity_index(a));
    assert_int_equal(ze_component_population(w, f->pos), 0);
    check_storage(w);
}

/* Out of ECS memory: a destroy that cannot be deferred (no room for the
 * pending list) removes at once; a settle that cannot allocate its bitmaps
 * removes one entity at a time. Both leave storage consistent. */
static void test_destroy_without_memory(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_mem_t *mm = ze_kernel_mem(f->k);
    assert_int_equal(ze_pack_create(w, ze_mask_or(M(f, pos), M(f, vel))), ZE_OK);
    enum { N = 5000 };
    static ze_entity_t es[N];
    for (uint32_t i = 0; i < N; i++) {
        es[i] = ze_entity_create(w);
        ze_component_set(w, es[i], f->pos, &(Position){(float)i, 0});
        if (i % 3)
            ze_component_set(w, es[i], f->vel, &(Velocity){0, (float)i});
    }
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_ECS, true);
    assert_int_equal(ze_entity_destroy(w, es[0]), ZE_OK); /* no pending list yet */
    assert_int_equal(w->pend_count, 0);
    assert_false(ze_entity_alive(w, es[0]));
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_ECS, false);
    check_storage(w);
    for (uint32_t i = 1; i < N; i += 2)
        assert_int_equal(ze_entity_destroy(w, es[i]), ZE_OK);
    assert_int_equal(w->pend_count, N / 2);
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_ECS, true);
    ze__world_settle(w); /* bulk would fit: its bitmaps cannot be allocated */
    ze_mem_fault_fail_owner(mm, ZE_MEM_OWNER_ECS, false);
    assert_int_equal(w->pend_count, 0);
    check_storage(w);
    assert_int_equal(ze_component_population(w, f->pos), N / 2 - 1);
    for (uint32_t i = 2; i < N; i += 2) {
        const Position *p = ze_component_get(w, es[i], f->pos);
        assert_non_null(p);
        assert_true(p->x == (float)i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_group_packs_random_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_maintained_by_add_remove, setup_manual,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_nested_groups_and_conflicts, setup_manual, teardown),
        cmocka_unit_test_setup_teardown(test_filters_optional_and_gather, setup_manual, teardown),
        cmocka_unit_test_setup_teardown(test_query_cache_and_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_structural_changes_deferred_during_iteration, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_destroy_paths_keep_storage_consistent, setup_manual,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bulk_destroy_keeps_storage_consistent, setup_manual,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_destroy_dtor_immediate_and_reuse, setup_manual,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_destroy_without_memory, setup_manual, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
