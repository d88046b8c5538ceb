/* The coordinator's memory limit on cooker children (label rlimit: not run
 * under sanitizers): a cooker that allocates without bound dies at the
 * limit, the import fails naming it, and the engine goes on. */
/* nftw (asset_fixture.h) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asset_fixture.h"

static void test_memory_hog_fails_at_its_limit(void **state)
{
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    if (!fix_testdata_present())
        skip();
    fixture_t *f = fix_create(&(fix_desc_t){
        .mode = ZE_IMPORT_CHILD_PROCESS, .cooker = ZE_COOKER_PATH, .timeout_ms = 20000});
    char script[256];
    snprintf(script, sizeof script, "%s/fake-hog.sh", f->tmp);
    FILE *fp = fopen(script, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\nexec '%s' hog \"$@\"\n", ZE_FAKE_COOKER_PATH);
    fclose(fp);
    assert_int_equal(chmod(script, 0755), 0);
    fix_close_runtime(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_CHILD_PROCESS,
                                      .cooker = script,
                                      .timeout_ms = 20000,
                                      .memory_limit = 256ull << 20});
    ze_uuid_t u;
    assert_int_equal(
        ze_import_request(f->ic, "/models/BoxTextured.gltf", ZE_IMPORT_IMMEDIATE, false, &u),
        ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_info_t info;
    ze_asset_registry_get(f->reg, u, &info);
    assert_int_equal(info.state, ZE_ASSET_STATE_FAILED);
    print_message("hog: %s\n", info.reason);
    assert_non_null(strstr(info.reason, "memory limit 256 MiB"));
    /* the real cooker under the default limit (2 GiB) still imports */
    fix_close_runtime(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_CHILD_PROCESS,
                                      .cooker = ZE_COOKER_PATH,
                                      .timeout_ms = 20000});
    assert_int_equal(
        ze_import_request(f->ic, "/models/BoxTextured.gltf", ZE_IMPORT_IMMEDIATE, false, &u),
        ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_registry_get(f->reg, u, &info);
    assert_int_equal(info.state, ZE_ASSET_STATE_LOADED);
    fix_destroy(f);
    ze_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_hog_fails_at_its_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
