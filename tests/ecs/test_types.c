/* Component and message types without a small ceiling: 4,096 component
 * types in one kernel (worlds using hundreds of them, queries, packs,
 * snapshots and scene files over them), types registered after a world
 * filled, masks and their limit, the sealed registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ecs/ecs_internal.h"
#include "ecs_log_capture.h"

enum { TYPES = 4096 };

typedef struct Value {
    uint32_t v;
} Value;

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_component_t c[TYPES]; /* Type0..Type4095, each a Value */
} fx_t;

static fx_t g_fx;

static int setup(void **state)
{
    fx_t *f = &g_fx;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f->k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f->k);
    for (uint32_t i = 0; i < TYPES; i++) {
        char name[32];
        snprintf(name, sizeof name, "Type%u", i);
        ze_component_desc_t d = {.name = name,
                                 .size = sizeof(Value),
                                 .fields =
                                     (const ze_field_desc_t[]){ZE_FIELD(Value, v, ZE_FIELD_U32)},
                                 .field_count = 1};
        assert_int_equal(ze_component_register(f->k, &d, &f->c[i]), ZE_OK);
    }
    assert_int_equal(ze_component_count(f->k), ZE_BUILTIN_COMPONENT_COUNT + TYPES);
    f->w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1 << 16});
    assert_non_null(f->w);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

/* Entity i has types (i * 7 + j * 131) % TYPES for j < 1 + i % 5. */
static uint32_t type_of(uint32_t i, uint32_t j)
{
    return (i * 7 + j * 131) % TYPES;
}
static uint32_t types_of(uint32_t i)
{
    return 1 + i % 5;
}

static void test_4096_types_in_one_kernel(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    ze_component_t found;
    assert_int_equal(ze_component_find(f->k, "Type4095", &found), ZE_OK);
    assert_int_equal(found.id, f->c[TYPES - 1].id);
    assert_string_equal(ze_component_info(f->k, f->c[3000])->name, "Type3000");
    /* 1,000 entities over many types, and one with all 4,096: the world's
     * masks widen to 64 words. (Entities stay within one storage page of
     * slots: a type costs 16 KiB of sparse page per 4,096 slots it is used
     * in, so 4,096 types spread over many slots cost that many pages.) */
    enum { N = 1000 };
    static ze_entity_t e[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i] = ze_entity_create(w);
        for (uint32_t j = 0; j < types_of(i); j++)
            assert_int_equal(ze_component_set(w, e[i], f->c[type_of(i, j)], &(Value){i * 10 + j}),
                             ZE_OK);
    }
    ze_entity_t all = ze_entity_create(w);
    for (uint32_t i = TYPES; i-- > 0;)
        ze_component_set(w, all, f->c[i], &(Value){i});
    assert_int_equal(w->mask_words, (TYPES + 63) / 64);
    static ze_component_t every[TYPES];
    assert_int_equal(ze_entity_components(w, all, every, TYPES), TYPES);
    for (uint32_t i = 0; i < TYPES; i++)
        assert_int_equal(every[i].id, f->c[i].id);
    assert_true(ze_mask_overflowed(ze_entity_mask(w, all)));
    for (uint32_t i = 0; i < N; i++) {
        ze_component_t ids[8];
        uint32_t n = ze_entity_components(w, e[i], ids, 8);
        assert_int_equal(n, types_of(i));
        for (uint32_t j = 0; j + 1 < n; j++)
            assert_true(ids[j].id < ids[j + 1].id); /* ascending */
        for (uint32_t j = 0; j < types_of(i); j++) {
            const Value *v = ze_component_get(w, e[i], f->c[type_of(i, j)]);
            assert_non_null(v);
            assert_int_equal(v->v, i * 10 + j);
        }
    }
    /* A query over two high ids, and one with a `without`. */
    uint32_t a = type_of(3, 0), b = type_of(3, 1); /* entity 3 has both */
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ze_mask_or(ze_mask_of(f->c[a]), ze_mask_of(f->c[b])),
                              .write = ze_mask_of(f->c[a])});
    assert_int_not_equal(q.id, 0);
    uint32_t want = 1; /* `all` */
    for (uint32_t i = 0; i < N; i++)
        want += ze_component_has(w, e[i], f->c[a]) && ze_component_has(w, e[i], f->c[b]);
    uint32_t seen = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        Value *va = ze_iter_field(&it, f->c[a]);
        const Value *vb = ze_iter_field(&it, f->c[b]);
        assert_non_null(va);
        assert_non_null(vb);
        for (uint32_t k = 0; k < it.count; k++) {
            ze_entity_t x = ze_iter_entity(&it, k);
            assert_ptr_equal(&va[k], ze_component_get(w, x, f->c[a]));
            va[k].v += 1000;
        }
        seen += it.count;
    }
    assert_int_equal(seen, want);
    assert_true(seen >= 1);
    assert_int_equal(((const Value *)ze_component_get(w, e[3], f->c[a]))->v, 30 + 1000);
    assert_int_equal(ze_pack_size(w, ze_mask_or(ze_mask_of(f->c[a]), ze_mask_of(f->c[b]))), seen);
    /* Snapshot and scene round trips keep every entity and value. */
    uint64_t h = ze_world_hash(w);
    ze_byte_writer_t snap = {.alloc = w->alloc}, scene = {.alloc = w->alloc};
    assert_int_equal(ze_world_save(w, &snap), ZE_OK);
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1 << 16});
    assert_int_equal(ze_world_load(w2, snap.data, snap.size), ZE_OK);
    assert_true(ze_world_hash(w2) == h);
    ze_world_destroy(w2);
    assert_int_equal(ze_scene_save_json(w, &scene), ZE_OK);
    ze_world_t *w3 = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1 << 16});
    ze_scene_report_t rep;
    assert_int_equal(ze_scene_load_json(w3, (const char *)scene.data, scene.size, &rep), ZE_OK);
    assert_int_equal(rep.problems, 0);
    assert_int_equal(ze_world_entity_count(w3), ze_world_entity_count(w));
    ze_byte_writer_free(&snap);
    assert_true(ze_world_hash(w3) != 0);
    assert_int_equal(((const Value *)ze_component_get(
                          w3, ze_entity_from_index(w3, ze_entity_index(all)), f->c[4000]))
                         ->v,
                     4000);
    ze_byte_writer_free(&scene);
    ze_world_destroy(w3);
}

static void test_query_over_types_registered_after_filling(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    enum { N = 20000 };
    static ze_entity_t e[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i] = ze_entity_create(w);
        ze_component_set(w, e[i], f->c[0], &(Value){i});
    }
    /* A query made now over Late, which has no pool in the world yet (nor
     * exists: it is registered below, so made with its id after). */
    ze_component_t late[100];
    for (uint32_t i = 0; i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "Late%u", i);
        assert_int_equal(
            ze_component_register(f->k, &(ze_component_desc_t){.name = name, .size = sizeof(Value)},
                                  &late[i]),
            ZE_OK);
    }
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ze_mask_or(ze_mask_of(f->c[0]), ze_mask_of(late[77]))});
    assert_int_not_equal(q.id, 0);
    assert_int_equal(ze_query_count(w, q), 0); /* no entity has it yet */
    uint32_t want = 0;
    for (uint32_t i = 0; i < N; i += 3) {
        ze_component_set(w, e[i], late[77], &(Value){i * 2});
        want++;
    }
    for (uint32_t i = 1; i < N; i += 97)
        ze_component_set(w, e[i], late[99], &(Value){1}); /* another late one */
    assert_int_equal(ze_query_count(w, q), want);
    uint32_t seen = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const Value *v0 = ze_iter_field(&it, f->c[0]);
        const Value *v77 = ze_iter_field(&it, late[77]);
        for (uint32_t k = 0; k < it.count; k++)
            assert_int_equal(v77[k].v, v0[k].v * 2);
        seen += it.count;
    }
    assert_int_equal(seen, want);
    /* Without: those lacking Late99. */
    ze_query_t qn = ze_query_create(
        w, &(ze_query_desc_t){.with = ze_mask_of(f->c[0]), .without = ze_mask_of(late[99])});
    assert_int_equal(ze_query_count(w, qn), N - (N + 96) / 97);
}

static void idle(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
}

static void test_mask_operations_and_limit(void **state)
{
    fx_t *f = *state;
    ze_mask_t m = ZE_MASK_EMPTY;
    for (uint32_t i = ZE_MASK_MAX; i-- > 0;)
        m = ze_mask_or(m, ze_mask_of(f->c[i * 100]));
    assert_int_equal(m.count, ZE_MASK_MAX);
    for (uint32_t i = 0; i + 1 < m.count; i++)
        assert_true(m.ids[i] < m.ids[i + 1]);
    assert_true(ze_mask_has(m, f->c[300]));
    assert_false(ze_mask_has(m, f->c[301]));
    assert_true(ze_mask_eq(ze_mask_or(m, ze_mask_of(f->c[300])), m)); /* repeats: one */
    assert_true(ze_mask_eq(ze_mask_and(m, ze_mask_of(f->c[500])), ze_mask_of(f->c[500])));
    assert_int_equal(ze_mask_minus(m, ze_mask_of(f->c[0])).count, ZE_MASK_MAX - 1);
    assert_true(ze_mask_contains(m, ze_mask_of(f->c[700])));
    /* One more type overflows, and what takes the mask says so. */
    ze_mask_t over = ze_mask_or(m, ze_mask_of(f->c[1]));
    assert_true(ze_mask_overflowed(over));
    assert_true(ze_mask_overflowed(ze_mask_of(ZE_COMPONENT_INVALID)));
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_query_create(f->w, &(ze_query_desc_t){.with = over}).id, 0);
    assert_true(log_captured(&cap, "query `with`", "31", "limit"));
    assert_int_equal(ze_pack_create(f->w, over), ZE_ERR_LIMIT);
    ze_worldtick_t *t = ze_worldtick_create(f->w);
    assert_int_equal(
        ze_worldtick_add(t, &(ze_system_desc_t){.name = "wide", .fn = idle, .reads = over}).id, 0);
    assert_true(log_captured(&cap, "wide", "31", NULL));
    ze_worldtick_destroy(t);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    /* A mask of 31 is fine for a query. */
    assert_int_not_equal(ze_query_create(f->w, &(ze_query_desc_t){.with = m}).id, 0);
}

static void register_in_wave(ze_world_t *w, const ze_tick_t *t)
{
    ze_result *out = t->user;
    ze_component_t c;
    *out = ze_component_register(ze_world_kernel(w),
                                 &(ze_component_desc_t){.name = "InWave", .size = 4}, &c);
}

static void test_sealed_registry(void **state)
{
    fx_t *f = *state;
    /* While a world runs a parallel wave, pool threads read the registry:
     * registering then is refused. */
    ze_result in_wave = ZE_OK;
    ze_worldtick_t *t = ze_worldtick_create(f->w);
    ze_worldtick_add(t, &(ze_system_desc_t){.name = "reg",
                                            .fn = register_in_wave,
                                            .user = &in_wave,
                                            .reads = ze_mask_of(f->c[0])});
    ze_worldtick_add(
        t, &(ze_system_desc_t){.name = "other", .fn = idle, .reads = ze_mask_of(f->c[1])});
    assert_int_equal(ze_worldtick_commit(t), ZE_OK);
    assert_int_equal(ze_worldtick_wave_count(t), 1); /* both in one wave */
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_worldtick_run(t, 0), ZE_OK);
    assert_int_equal(in_wave, ZE_ERR_STATE);
    assert_true(log_captured(&cap, "InWave", "sealed", "parallel wave"));
    ze_worldtick_destroy(t);
    /* ze_kernel_seal: components and messages refused, by name. */
    ze_component_t c;
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "Before", .size = 4}, &c),
        ZE_OK);
    assert_false(ze_kernel_sealed(f->k));
    ze_kernel_seal(f->k);
    assert_true(ze_kernel_sealed(f->k));
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "After", .size = 4}, &c),
        ZE_ERR_STATE);
    assert_true(log_captured(&cap, "After", "sealed", "ze_kernel_seal"));
    ze_message_type_t m;
    assert_int_equal(ze_message_register(f->k, "LateMsg", 4, &m), ZE_ERR_STATE);
    assert_true(log_captured(&cap, "LateMsg", "sealed", NULL));
    /* What is registered stays findable; re-registering the same is fine. */
    assert_int_equal(
        ze_component_register(f->k, &(ze_component_desc_t){.name = "Before", .size = 4}, &c),
        ZE_OK);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_4096_types_in_one_kernel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_over_types_registered_after_filling, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mask_operations_and_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sealed_registry, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
