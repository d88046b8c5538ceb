/* Service scopes: a world's lookups fall back to its kernel's scope, a
 * world's own service shadows the kernel's of the same name, registering
 * after the world starts (or, for the kernel's scope, after any of its
 * worlds started) is an error naming the seal, a name is registered once
 * per scope, and release callbacks run in reverse order of registration,
 * world scopes (after their systems' shutdown) before the kernel's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "ecs/ecs_internal.h"
#include "ecs_log_capture.h"

typedef struct release_log_t {
    char order[16];
    uint32_t n;
    bool shutdown_saw_service;
} release_log_t;

static release_log_t g_log;

static void on_release(void *service, void *user)
{
    (void)service;
    if (g_log.n + 1 < sizeof g_log.order)
        g_log.order[g_log.n++] = *(const char *)user;
}

static int setup(void **state)
{
    memset(&g_log, 0, sizeof g_log);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    *state = NULL;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ze_log_reset();
    return 0;
}

static void test_lookup_falls_back_to_the_kernel(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *a = ze_world_create(k, &(ze_world_desc_t){.name = "a", .capacity = 64});
    ze_world_t *b = ze_world_create(k, &(ze_world_desc_t){.name = "b", .capacity = 64});
    int audio = 1, input = 2, own_audio = 3;
    assert_int_equal(ze_kernel_service_add(k, &(ze_service_desc_t){"audio", &audio, NULL, NULL}),
                     ZE_OK);
    assert_int_equal(ze_kernel_service_add(k, &(ze_service_desc_t){"input", &input, NULL, NULL}),
                     ZE_OK);
    assert_ptr_equal(ze_kernel_service_get(k, "audio"), &audio);
    /* Not registered in the world: the kernel's. */
    assert_ptr_equal(ze_world_service_get(a, "audio"), &audio);
    assert_ptr_equal(ze_world_service_get(b, "input"), &input);
    assert_null(ze_world_service_get(a, "physics"));
    /* The world's own shadows the kernel's, in that world only. */
    assert_int_equal(ze_world_service_register(a, "audio", &own_audio), ZE_OK);
    assert_ptr_equal(ze_world_service_get(a, "audio"), &own_audio);
    assert_ptr_equal(ze_world_service_get(b, "audio"), &audio);
    assert_ptr_equal(ze_kernel_service_get(k, "audio"), &audio);
    /* Once per scope. */
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_world_service_register(a, "audio", &audio), ZE_ERR_CONFLICT);
    assert_int_equal(ze_kernel_service_add(k, &(ze_service_desc_t){"input", &audio, NULL, NULL}),
                     ZE_ERR_CONFLICT);
    assert_true(log_captured(&cap, "input", "already", "kernel"));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_kernel_destroy(k);
}

static void test_registering_after_start_is_an_error(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *a = ze_world_create(k, &(ze_world_desc_t){.name = "a", .capacity = 64});
    ze_world_t *b = ze_world_create(k, &(ze_world_desc_t){.name = "b", .capacity = 64});
    int x = 0;
    assert_int_equal(ze_world_service_register(a, "early", &x), ZE_OK);
    assert_int_equal(ze_world_begin_frame(a, 0.0), ZE_OK); /* a starts */
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_world_service_register(a, "late", &x), ZE_ERR_STATE);
    assert_true(log_captured(&cap, "late", "sealed", "started"));
    /* A world that has not started may still compose its scope... */
    assert_int_equal(ze_world_service_register(b, "late", &x), ZE_OK);
    /* ...but the kernel's scope is sealed once any of its worlds started. */
    assert_int_equal(ze_kernel_service_add(k, &(ze_service_desc_t){"global", &x, NULL, NULL}),
                     ZE_ERR_STATE);
    assert_true(log_captured(&cap, "global", "sealed", "kernel"));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    /* Lookups still work. */
    assert_ptr_equal(ze_world_service_get(a, "early"), &x);
    ze_kernel_destroy(k);
}

static void shutdown_uses_service(ze_world_t *w, void *user)
{
    (void)user;
    g_log.shutdown_saw_service = ze_world_service_get(w, "A") != NULL;
}

static void noop(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
}

static void test_released_in_reverse_order(void **state)
{
    (void)state;
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){0});
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.capacity = 64});
    static const char tags[] = "ABCXY";
    int s[5];
    for (int i = 0; i < 3; i++) /* world: A, B, C */
        assert_int_equal(
            ze_world_service_add(
                w, &(ze_service_desc_t){(char[]){tags[i], 0}, &s[i], on_release, (void *)&tags[i]}),
            ZE_OK);
    for (int i = 3; i < 5; i++) /* kernel: X, Y */
        assert_int_equal(
            ze_kernel_service_add(
                k, &(ze_service_desc_t){(char[]){tags[i], 0}, &s[i], on_release, (void *)&tags[i]}),
            ZE_OK);
    ze_system_add(
        w, &(ze_system_desc_t){.name = "user", .fn = noop, .shutdown = shutdown_uses_service});
    assert_int_equal(ze_world_plan_systems(w), ZE_OK);
    ze_world_destroy(w);
    assert_true(g_log.shutdown_saw_service); /* systems shut down first */
    assert_string_equal(g_log.order, "CBA");
    ze_kernel_destroy(k); /* then the kernel's, after its worlds */
    assert_string_equal(g_log.order, "CBAYX");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lookup_falls_back_to_the_kernel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_registering_after_start_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_released_in_reverse_order, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
