/* The ECS reports through its kernel's diagnostics sink, never around it:
 * a refused call, a bad scene file and a plan conflict each reach the sink
 * once, and the process log sees none of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/ecs.h"

static void nop(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
}

static void test_reports_reach_the_kernel_sink(void **state)
{
    (void)state;
    ze_diag_capture_t diag = {0};
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.diag = ze_diag_capture_sink(&diag)});
    assert_non_null(k);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.name = "diag"});
    assert_non_null(w);
    uint64_t logged = ze_log_count(ZE_LOG_WARN);

    /* a refused call */
    assert_int_not_equal(ze_kernel_frame(k, -1.0), ZE_OK);
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.errors, 1);

    /* a scene with an unknown component and a malformed one */
    const char *scene =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [{\"uuid\": "
        "\"6f0f3c8e-2d1b-4a4e-9a51-0c6d2f7f8b01\", \"components\": {\"Bogus\": {}}}]}";
    ze_scene_report_t rep;
    assert_int_equal(ze_scene_load_json(w, scene, strlen(scene), &rep), ZE_OK);
    assert_int_equal(rep.problems, 1);
    assert_int_equal(diag.count, 2);
    if (!strstr(diag.last, "ecs: world 'diag': scene: $.entities[0].components.Bogus"))
        fail_msg("sink text: '%s'", diag.last);
    assert_int_equal(ze_scene_load_json(w, "{", 1, &rep), ZE_ERR_PARSE);
    assert_int_equal(diag.count, 3);
    assert_int_equal(diag.last_code, ZE_ERR_PARSE);

    /* a plan conflict, reported once when the plan is built */
    ze_mask_t t = ZE_MASK(ze_transform_t);
    ze_system_add(w, &(ze_system_desc_t){.name = "a", .fn = nop, .writes = t});
    ze_system_add(w, &(ze_system_desc_t){.name = "b", .fn = nop, .writes = t});
    assert_int_equal(ze_world_plan_systems(w), ZE_ERR_CONFLICT);
    assert_int_equal(diag.count, 4);
    assert_non_null(strstr(diag.last, "ze_system_order"));
    assert_int_equal(ze_kernel_frame(k, 1.0 / 60.0), ZE_ERR_CONFLICT);
    assert_int_equal(diag.count, 4); /* not again every frame */

    assert_int_equal(ze_log_count(ZE_LOG_WARN), logged);
    ze_kernel_destroy(k);
}

/* Typos get a suggestion; a component without reflected fields says so. */
typedef struct Health {
    float hp, regen;
} Health;
typedef struct Plain {
    float x;
} Plain;
static ZE_COMPONENT_DECLARE(Health);
static ZE_COMPONENT_DECLARE(Plain);

static void test_did_you_mean(void **state)
{
    (void)state;
    ze_diag_capture_t diag = {0};
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.diag = ze_diag_capture_sink(&diag)});
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.name = "typo"});
    assert_non_null(w);
    ZE_COMPONENT_DEFINE_FIELDS(w, Health, ZE_FIELD(Health, hp, ZE_FIELD_F32),
                               ZE_FIELD(Health, regen, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE(w, Plain);
    const char *head = "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [{\"uuid\": "
                       "\"6f0f3c8e-2d1b-4a4e-9a51-0c6d2f7f8b01\", \"components\": {";
    char scene[512];
    ze_scene_report_t rep;
    snprintf(scene, sizeof scene, "%s\"Helth\": {\"hp\": 1}}}]}", head);
    assert_int_equal(ze_scene_load_json(w, scene, strlen(scene), &rep), ZE_OK);
    if (!strstr(diag.last, "unknown component (skipped) (did you mean 'Health'?)"))
        fail_msg("component typo: '%s'", diag.last);
    snprintf(scene, sizeof scene, "%s\"Health\": {\"hq\": 1}}}]}", head);
    assert_int_equal(ze_scene_load_json(w, scene, strlen(scene), &rep), ZE_OK);
    if (!strstr(diag.last, "Health.hq: unknown field (skipped) (did you mean 'hp'?)"))
        fail_msg("field typo: '%s'", diag.last);
    snprintf(scene, sizeof scene, "%s\"Zzzzzz\": {}}}]}", head);
    assert_int_equal(ze_scene_load_json(w, scene, strlen(scene), &rep), ZE_OK);
    assert_null(strstr(diag.last, "did you mean")); /* nothing close */
    snprintf(scene, sizeof scene, "%s\"Plain\": {\"x\": 1}}}]}", head);
    assert_int_equal(ze_scene_load_json(w, scene, strlen(scene), &rep), ZE_OK);
    if (!strstr(diag.last, "Plain was registered without fields") ||
        !strstr(diag.last, "ZE_COMPONENT_DEFINE_FIELDS"))
        fail_msg("no fields: '%s'", diag.last);
    ze_kernel_destroy(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reports_reach_the_kernel_sink),
        cmocka_unit_test(test_did_you_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
