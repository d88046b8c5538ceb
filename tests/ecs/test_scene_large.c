/* A million entities through a scene file and a snapshot in the engine's
 * Default memory profile (label `large`: dev builds only). The owners are
 * the engine's: the file's text is the Asset owner's, the world and its
 * snapshot the ECS owner's, the JSON library's trees the ThirdParty
 * owner's (its hooks routed as the engine's entry point routes them). The
 * reader parses one entity at a time into a tree of its own and hands the
 * library only the top-level values: the ThirdParty peak stays far below
 * the file's size. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "zengine/ecs.h"

enum { N = 1000000, HDR = 16 };

static ze_allocator_t g_json_alloc;

static void *json_alloc_hook(size_t size)
{
    uint8_t *p = ze_alloc(g_json_alloc, size + HDR, 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    return p + HDR;
}

static void json_free_hook(void *ptr)
{
    if (!ptr)
        return;
    uint8_t *p = (uint8_t *)ptr - HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    ze_free(g_json_alloc, p, size + HDR);
}

static ze_transform_t transform_of(uint32_t i)
{
    ze_transform_t t = {
        .position = {(float)i, (float)(i % 1000) * 0.5f, -(float)(i % 7)},
        .rotation = {0, 0, 0, 1},
        .scale = {1, 1, 1},
    };
    return t;
}

static void test_million_entity_scene_and_snapshot(void **state)
{
    (void)state;
    ze_mem_t *mm;
    assert_int_equal(
        ze_mem_create(&(ze_mem_desc_t){.profile = ZE_MEM_PROFILE_DEFAULT, .passthrough = -1}, &mm),
        ZE_OK);
    json_malloc_t prev_malloc;
    json_free_t prev_free;
    json_get_alloc_funcs(&prev_malloc, &prev_free);
    g_json_alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_THIRD_PARTY);
    json_set_alloc_funcs(json_alloc_hook, json_free_hook);

    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.mem = mm});
    assert_non_null(k);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = N});
    assert_non_null(w);
    const ze_component_t tc = {ZE_COMPONENT_ID_TRANSFORM};
    ze_entity_t prev = ZE_ENTITY_NULL;
    for (uint32_t i = 0; i < N; i++) {
        ze_entity_t e = ze_entity_create(w);
        assert_false(ze_entity_is_null(e));
        ze_transform_t t = transform_of(i);
        assert_int_equal(ze_component_set(w, e, tc, &t), ZE_OK);
        if (i % 100 == 1) /* 1 % are children of the entity before them */
            assert_int_equal(ze_set(w, e, ze_parent_t, {prev}), ZE_OK);
        prev = e;
    }

    /* The scene file: saved into the Asset owner's heap, as the engine
     * reads one; loaded into a second world. */
    uint64_t t0 = ze_time_now_ns();
    ze_byte_writer_t text = {.alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ASSET)};
    assert_int_equal(ze_scene_save_json(w, &text), ZE_OK);
    assert_true(text.size > (size_t)N * 100);
    uint64_t hash = ze_world_hash(w);
    ze_world_destroy(w); /* the engine replaces a world's entities: one at a time */
    uint64_t t1 = ze_time_now_ns();
    ze_world_t *w2 = ze_world_create(k, &(ze_world_desc_t){.capacity = N});
    assert_non_null(w2);
    ze_scene_report_t rep;
    assert_int_equal(ze_scene_load_json(w2, (const char *)text.data, text.size, &rep), ZE_OK);
    assert_int_equal(rep.entities, N);
    assert_int_equal(rep.problems, 0);
    assert_int_equal(ze_world_entity_count(w2), N);
    /* The JSON library never held the document. */
    ze_mem_owner_stats_t tp = ze_mem_owner_stats(mm, ZE_MEM_OWNER_THIRD_PARTY);
    uint64_t t2 = ze_time_now_ns();
    print_message("scene: %zu bytes, saved in %.1f s, loaded in %.1f s; ThirdParty peak %llu "
                  "KiB\n",
                  text.size, (double)(t1 - t0) * 1e-9, (double)(t2 - t1) * 1e-9,
                  (unsigned long long)(tp.peak >> 10));
    assert_true(tp.peak < ZE_MIB(1));
    ze_byte_writer_free(&text);
    assert_int_equal(ze_world_hash(w2), hash);
    for (uint32_t i = 0; i < N; i += 99991) {
        ze_entity_t e = ze_entity_from_index(w2, i);
        const ze_transform_t *t = ze_component_get(w2, e, tc);
        ze_transform_t want = transform_of(i);
        assert_non_null(t);
        assert_memory_equal(&t->position, &want.position, sizeof want.position);
    }
    const ze_parent_t *p = ze_get(w2, ze_entity_from_index(w2, 101), ze_parent_t);
    assert_non_null(p);
    assert_true(ze_entity_eq(p->parent, ze_entity_from_index(w2, 100)));

    /* The snapshot of the loaded world, in the ECS owner's heap (where the
     * engine keeps the backup of the world it replaces), into a third. */
    ze_byte_writer_t snap = {.alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ECS)};
    assert_int_equal(ze_world_save(w2, &snap), ZE_OK);
    ze_world_destroy(w2);
    uint64_t t3 = ze_time_now_ns();
    ze_world_t *w3 = ze_world_create(k, &(ze_world_desc_t){.capacity = N});
    assert_non_null(w3);
    assert_int_equal(ze_world_load(w3, snap.data, snap.size), ZE_OK);
    assert_int_equal(ze_world_entity_count(w3), N);
    uint64_t t4 = ze_time_now_ns();
    assert_int_equal(ze_world_hash(w3), hash);
    print_message("snapshot: %zu bytes, saved in %.1f s, loaded in %.1f s; ECS peak %llu MiB of "
                  "%llu\n",
                  snap.size, (double)(t3 - t2) * 1e-9, (double)(t4 - t3) * 1e-9,
                  (unsigned long long)(ze_mem_owner_stats(mm, ZE_MEM_OWNER_ECS).peak >> 20),
                  (unsigned long long)(ze_mem_owner_stats(mm, ZE_MEM_OWNER_ECS).budget >> 20));
    ze_byte_writer_free(&snap);

    ze_kernel_destroy(k);
    json_set_alloc_funcs(prev_malloc, prev_free);
    ze_mem_destroy(mm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_million_entity_scene_and_snapshot)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
