/* Imports in child processes through the coordinator: the real `zengine
 * cook` (the dev tree's in sanitizer builds) imports a model; a cooker
 * that crashes and one that hangs (1 s timeout) become Failed imports with
 * their reasons while the engine goes on ticking, and the next import
 * works. The misbehaving cookers are the test helper `fake_cooker` behind
 * a two-line script, so the coordinator runs them exactly as it runs the
 * real one. */
/* nftw (asset_fixture.h) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asset_fixture.h"

#define BOX "/models/BoxTextured.gltf"

static bool cooker_present(void)
{
    if (access(ZE_COOKER_PATH, X_OK) != 0) {
        fail_msg("the cooker %s is missing (sanitizer builds run the dev tree's zengine: "
                 "build the dev preset first)",
                 ZE_COOKER_PATH);
    }
    return true;
}

/* An executable script in the fixture's folder running the fake cooker
 * with `behaviour` before the coordinator's arguments. */
static void fake_script(const fixture_t *f, const char *behaviour, char *out, size_t cap)
{
    snprintf(out, cap, "%s/fake-%s.sh", f->tmp, behaviour);
    FILE *fp = fopen(out, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\nexec '%s' %s \"$@\"\n", ZE_FAKE_COOKER_PATH, behaviour);
    fclose(fp);
    assert_int_equal(chmod(out, 0755), 0);
}

static int teardown(void **state)
{
    if (*state)
        fix_destroy(*state);
    ze_log_reset();
    return 0;
}

static int setup_real(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    if (!fix_testdata_present())
        return 0;
    cooker_present();
    *state = fix_create(&(fix_desc_t){
        .mode = ZE_IMPORT_CHILD_PROCESS, .cooker = ZE_COOKER_PATH, .timeout_ms = 20000});
    return 0;
}

static void reopen_with(fixture_t *f, const char *cooker, uint32_t timeout_ms)
{
    fix_close_runtime(f);
    fix_open_runtime(
        f,
        &(fix_desc_t){.mode = ZE_IMPORT_CHILD_PROCESS, .cooker = cooker, .timeout_ms = timeout_ms});
}

static void test_child_import_of_a_real_model(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    ze_uuid_t u, subs[8];
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_info_t info;
    ze_asset_registry_get(f->reg, u, &info);
    assert_int_equal(info.state, ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, subs, 8), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(ze_asset_acquire(f->am, subs[i]), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 30000), ZE_OK);
    for (int i = 0; i < 4; i++)
        assert_non_null(ze_asset_get(f->am, subs[i]));
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.succeeded, 1);
    assert_int_equal(s.failed, 0);
}

/* The model's texture is missing: the child's cook succeeds without it,
 * the coordinator reports the child's warning (naming the file) and the
 * material, mesh and scene load; when the file appears, the source cooks
 * again (the missing file was a dependency) and the texture is there. */
static void test_child_import_degrades_without_its_texture(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    char png[256];
    snprintf(png, sizeof png, "%s/models/CesiumLogoFlat.png", f->root);
    assert_int_equal(unlink(png), 0);
    ze_uuid_t u, subs[8];
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, subs, 8), 3); /* no texture */
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.succeeded, 1);
    assert_int_equal(s.warnings, 1);
    assert_int_equal(f->diag.errors, 0);
    assert_non_null(strstr(f->diag.last, "CesiumLogoFlat.png"));
    assert_non_null(strstr(f->diag.last, BOX));
    for (int i = 0; i < 3; i++)
        assert_int_equal(ze_asset_acquire(f->am, subs[i]), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 30000), ZE_OK);
    for (int i = 0; i < 3; i++)
        assert_non_null(ze_asset_get(f->am, subs[i]));

    fix_copy(f, "gltf/BoxTextured/glTF/CesiumLogoFlat.png", "models/CesiumLogoFlat.png");
    bool ok;
    FIX_UNTIL(f, 30000,
              ze_import_coordinator_stats(f->ic).succeeded == 2 &&
                  ze_asset_registry_sub_assets(f->reg, u, NULL, 0) == 4,
              ok);
    assert_true(ok);
    assert_int_equal(ze_import_coordinator_stats(f->ic).warnings, 1); /* none the second time */
}

/* A cooker that fails some way; the reason must say how, the engine keeps
 * ticking (each tick returns promptly), and the real cooker works after. */
static ze_import_stats_t expect_failure(fixture_t *f, const char *behaviour, uint32_t timeout_ms,
                                        const char *needle)
{
    char script[256];
    fake_script(f, behaviour, script, sizeof script);
    reopen_with(f, script, timeout_ms);
    ze_uuid_t u;
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    uint64_t t0 = ze_time_now_ns(), worst = 0;
    ze_asset_info_t info;
    do {
        uint64_t a = ze_time_now_ns();
        ze_vfs_tick(f->vfs);
        ze_import_coordinator_tick(f->ic);
        ze_asset_manager_tick(f->am);
        uint64_t b = ze_time_now_ns();
        worst = b - a > worst ? b - a : worst;
        usleep(2000);
        ze_asset_registry_get(f->reg, u, &info);
    } while (info.state != ZE_ASSET_STATE_FAILED && ze_time_now_ns() - t0 < 30000000000ull);
    assert_int_equal(info.state, ZE_ASSET_STATE_FAILED);
    print_message("%s: \"%s\" after %llu ms; slowest tick %llu us\n", behaviour, info.reason,
                  (unsigned long long)((ze_time_now_ns() - t0) / 1000000u),
                  (unsigned long long)(worst / 1000u));
    assert_non_null(strstr(info.reason, needle));
    /* the main thread was never blocked on the child (a spawn costs a fork) */
    assert_true(worst < 500000000ull);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.succeeded, 0);
    /* nothing of the failed import is left in the cache */
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, NULL, 0), 0);
    /* the engine goes on: the real cooker imports it now */
    reopen_with(f, ZE_COOKER_PATH, 30000);
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_registry_get(f->reg, u, &info);
    assert_int_equal(info.state, ZE_ASSET_STATE_LOADED);
    return s;
}

static void test_crashing_cooker(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    ze_import_stats_t s = expect_failure(f, "crash", 20000, "SIGSEGV");
    assert_int_equal(s.crashed, 1);
}

static void test_hanging_cooker(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    ze_import_stats_t s = expect_failure(f, "hang", 1000, "timed out");
    assert_int_equal(s.timed_out, 1);
}

static void test_cooker_with_bad_report(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    /* exits 0 but prints something that is not the cooker's report */
    (void)expect_failure(f, "ok", 20000, "report");
}

static void test_missing_cooker(void **state)
{
    fixture_t *f = *state;
    if (!f)
        skip();
    char missing[256];
    snprintf(missing, sizeof missing, "%s/no-such-cooker", f->tmp);
    reopen_with(f, missing, 5000);
    ze_uuid_t u;
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_info_t info;
    ze_asset_registry_get(f->reg, u, &info);
    assert_int_equal(info.state, ZE_ASSET_STATE_FAILED);
    print_message("missing cooker: %s\n", info.reason);
    assert_true(strlen(info.reason) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_child_import_of_a_real_model, setup_real, teardown),
        cmocka_unit_test_setup_teardown(test_child_import_degrades_without_its_texture, setup_real,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_crashing_cooker, setup_real, teardown),
        cmocka_unit_test_setup_teardown(test_hanging_cooker, setup_real, teardown),
        cmocka_unit_test_setup_teardown(test_cooker_with_bad_report, setup_real, teardown),
        cmocka_unit_test_setup_teardown(test_missing_cooker, setup_real, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
