/* Registering a component with its fields in one line
 * (ZE_COMPONENT_FIELDS / ZE_COMPONENT_DEFINE_FIELDS): the kernel copies the
 * field list, so a list built in a function that has returned still
 * reflects the component; a scene file saved with the fields loads them
 * back into a fresh world; a component registered without fields is
 * skipped field by field with a report (the trap the one-line form
 * avoids). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/ecs.h"
#include "zengine/mem.h"

typedef struct Health {
    float current, max;
    int32_t regen;
} Health;

static ZE_COMPONENT_DECLARE(Health);

/* The list is a compound literal of this frame: gone after the return. */
static __attribute__((noinline)) void register_health(ze_world_t *w)
{
    ZE_COMPONENT_DEFINE_FIELDS(w, Health, ZE_FIELD(Health, current, ZE_FIELD_F32),
                               ZE_FIELD(Health, max, ZE_FIELD_F32),
                               ZE_FIELD(Health, regen, ZE_FIELD_I32));
}

static bool contains(const uint8_t *data, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, needle, n) == 0)
            return true;
    return false;
}

static void scribble_stack(void)
{
    volatile uint8_t junk[4096];
    memset((void *)junk, 0xa5, sizeof junk);
}

static void test_fields_registered_in_one_line(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.name = "a"});
    register_health(w);
    scribble_stack();
    const ze_component_info_t *info = ze_component_info(k, ZE_ID(Health));
    assert_non_null(info);
    assert_int_equal(info->field_count, 3);
    assert_string_equal(info->fields[0].name, "current");
    assert_int_equal(info->fields[2].type, ZE_FIELD_I32);
    assert_int_equal(info->fields[2].offset, offsetof(Health, regen));

    ze_entity_t e = ze_entity_create(w);
    ze_set(w, e, Health, {42.5f, 100.0f, 3});
    ze_byte_writer_t out = {.alloc = ze_mem_system_allocator()};
    assert_int_equal(ze_scene_save_json(w, &out), ZE_OK);
    assert_true(contains(out.data, out.size, "\"regen\": 3"));

    /* a second world of the same kernel loads the fields back */
    ze_world_t *w2 = ze_world_create(k, &(ze_world_desc_t){.name = "b"});
    ze_scene_report_t rep;
    assert_int_equal(ze_scene_load_json(w2, (const char *)out.data, out.size, &rep), ZE_OK);
    assert_int_equal(rep.problems, 0);
    assert_int_equal(rep.entities, 1);
    ze_query_t q = ze_query_create(w2, &(ze_query_desc_t){.with = ZE_MASK(Health)});
    ze_iter_t it = ze_query_iter(w2, q);
    uint32_t seen = 0;
    while (ze_query_next(&it)) {
        const Health *h = ze_field(&it, Health);
        for (uint32_t i = 0; i < it.count; i++, seen++) {
            assert_true(h[i].current == 42.5f && h[i].max == 100.0f);
            assert_int_equal(h[i].regen, 3);
        }
    }
    assert_int_equal(seen, 1);
    ze_byte_writer_free(&out);
    ze_kernel_destroy(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_registered_in_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
