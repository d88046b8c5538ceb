/* Imports that never go stale (issue 17): the `.meta` records every file an
 * artifact was cooked from with its content hash, and the start-up check
 * (pool jobs, verdicts through the MainThreadScheduler) compares them. A
 * `.bin` and a texture edited while no engine runs are re-imported at the
 * next start (artifact hashes change, the dependents reload); an unchanged
 * project imports nothing; a renamed texture keeps its uuid and its
 * dependent follows; a settings change re-imports; an unknown setting or an
 * out-of-range value fails naming the key and the last good artifact stays
 * in use. Real files, in-process imports on the job pool. */
/* nftw (asset_fixture.h) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asset_fixture.h"

#define BOX "/models/BoxTextured.gltf"

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    if (!fix_testdata_present()) {
        print_message("skipped: %s/assets is absent\n", ZE_TESTDATA_DIR);
        return 0;
    }
    *state = fix_create(&(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    return 0;
}

static int teardown(void **state)
{
    if (*state)
        fix_destroy(*state);
    ze_log_reset();
    return 0;
}

#define NEED_FIXTURE(f)    \
    fixture_t *f = *state; \
    if (!f)                \
        skip();

/* What the engine does at start: request every source, then frames until
 * the coordinator is idle. */
static ze_uuid_t start(fixture_t *f)
{
    ze_uuid_t u;
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_BACKGROUND, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    return u;
}

/* Edits made while no engine runs reach the (still open) VFS watcher too:
 * deliver them to nobody, so the next start sees the files only as its
 * check does. 6x the fixture's 50 ms debounce. */
static void drop_watch_events(fixture_t *f)
{
    uint64_t end = ze_time_now_ns() + 300000000u;
    while (ze_time_now_ns() < end) {
        ze_vfs_tick(f->vfs);
        usleep(10000);
    }
}

static void restart(fixture_t *f)
{
    fix_close_runtime(f);
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
}

static bool find_sub(fixture_t *f, ze_uuid_t src, ze_asset_type type, ze_uuid_t *out)
{
    ze_uuid_t subs[16];
    uint32_t n = ze_asset_registry_sub_assets(f->reg, src, subs, 16);
    for (uint32_t i = 0; i < n && i < 16; i++) {
        ze_asset_info_t info;
        ze_asset_registry_get(f->reg, subs[i], &info);
        if (info.type == type) {
            *out = subs[i];
            return true;
        }
    }
    return false;
}

/* The content hash of a sub-asset's artifact, read from the cache. */
static uint64_t artifact_hash(fixture_t *f, ze_uuid_t src, ze_asset_type type)
{
    ze_uuid_t sub;
    assert_true(find_sub(f, src, type, &sub));
    ze_asset_info_t info;
    assert_true(ze_asset_registry_get(f->reg, sub, &info));
    ze_vfs_buffer_t b;
    assert_int_equal(ze_vfs_read_file(f->vfs, info.path, (ze_allocator_t){0}, &b), ZE_OK);
    uint64_t h = ze_hash64(b.data, b.size, 0);
    ze_vfs_buffer_free(&b);
    return h;
}

static void edit_meta_settings(fixture_t *f, const char *json)
{
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_int_equal(ze_vfs_meta_set_settings(&m, json, strlen(json)), ZE_OK);
    assert_int_equal(ze_vfs_meta_write(f->vfs, BOX, &m), ZE_OK);
    ze_vfs_meta_free(&m);
}

/* Reverse the order of the box's 24 texture coordinates in its .bin
 * (bytes 576..767): the data changes, the accessor's min/max still hold. */
static void edit_bin(fixture_t *f)
{
    char p[512];
    snprintf(p, sizeof p, "%s/models/BoxTextured0.bin", f->root);
    uint8_t *d = NULL;
    size_t n = 0;
    assert_true(fix_read_host(p, &d, &n));
    assert_true(n >= 768);
    for (int i = 0; i < 12; i++) {
        uint8_t t[8];
        memcpy(t, d + 576 + 8 * i, 8);
        memcpy(d + 576 + 8 * i, d + 576 + 8 * (23 - i), 8);
        memcpy(d + 576 + 8 * (23 - i), t, 8);
    }
    fix_write(f, "models/BoxTextured0.bin", d, n);
    ze_mem_sys_free(d);
}

static void test_meta_records_dependencies_with_hashes(void **state)
{
    NEED_FIXTURE(f);
    start(f);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_true(m.dependencies_known);
    assert_int_equal(m.dependencies.count, 2);
    const ze_vfs_meta_dep_t *d0 = ze_array_at(&m.dependencies, 0);
    const ze_vfs_meta_dep_t *d1 = ze_array_at(&m.dependencies, 1);
    assert_string_equal(d0->path.str, "/models/BoxTextured0.bin");
    assert_string_equal(d1->path.str, "/models/CesiumLogoFlat.png");
    ze_vfs_buffer_t b;
    assert_int_equal(ze_vfs_read_file(f->vfs, d0->path.str, (ze_allocator_t){0}, &b), ZE_OK);
    assert_true((ze_hash64(b.data, b.size, 0) | 1u) == d0->hash);
    ze_vfs_buffer_free(&b);
    assert_true(d1->hash != 0 && d1->hash != d0->hash);
    assert_true(m.settings_hash == 0); /* the defaults */
    ze_vfs_meta_free(&m);
}

static void test_unchanged_project_imports_nothing(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f);
    uint64_t mesh = artifact_hash(f, u, ZE_ASSET_TYPE_MESH);
    restart(f);
    ze_uuid_t u2;
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_BACKGROUND, false, &u2), ZE_OK);
    /* the check runs on the pool: nothing is decided on this thread yet */
    assert_int_equal(fix_state(f, u2), ZE_ASSET_STATE_UNKNOWN);
    assert_false(ze_import_coordinator_idle(f->ic));
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_true(ze_uuid_eq(u, u2));
    assert_int_equal(fix_state(f, u2), ZE_ASSET_STATE_LOADED);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.started, 0); /* 0 imports */
    assert_int_equal(s.up_to_date, 1);
    assert_int_equal(s.outdated, 0);
    assert_int_equal(s.checking, 0);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u2, NULL, 0), 4);
    assert_true(artifact_hash(f, u2, ZE_ASSET_TYPE_MESH) == mesh);
    /* the dependency edges are back too: hot reload of the .bin works
       after a restart */
    ze_uuid_t bin, deps[4];
    assert_true(ze_asset_registry_find_path(f->reg, "/models/BoxTextured0.bin", &bin));
    assert_int_equal(ze_asset_registry_dependents(f->reg, bin, deps, 4), 1);
    assert_true(ze_uuid_eq(deps[0], u));
}

static void test_bin_edited_while_off_is_reimported(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f), mesh;
    uint64_t before = artifact_hash(f, u, ZE_ASSET_TYPE_MESH);
    uint64_t tex_before = artifact_hash(f, u, ZE_ASSET_TYPE_TEXTURE);
    fix_close_runtime(f);
    edit_bin(f); /* no engine runs */
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    start(f);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.outdated, 1);
    assert_int_equal(s.started, 1);
    assert_int_equal(s.succeeded, 1);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_true(artifact_hash(f, u, ZE_ASSET_TYPE_MESH) != before);
    assert_true(artifact_hash(f, u, ZE_ASSET_TYPE_TEXTURE) == tex_before);
    /* a dependent held by the manager is loaded from the new artifact */
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    assert_non_null(ze_asset_get(f->am, mesh));
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
    /* and the next start finds it current */
    restart(f);
    start(f);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 0);
}

static void test_texture_edited_while_off_is_reimported(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f);
    uint64_t tex = artifact_hash(f, u, ZE_ASSET_TYPE_TEXTURE);
    uint64_t mesh = artifact_hash(f, u, ZE_ASSET_TYPE_MESH);
    fix_close_runtime(f);
    fix_copy(f, "gltf/TextureTransformTest/glTF/Arrow.png", "models/CesiumLogoFlat.png");
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    start(f);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.started, 1);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_true(artifact_hash(f, u, ZE_ASSET_TYPE_TEXTURE) != tex);
    assert_true(artifact_hash(f, u, ZE_ASSET_TYPE_MESH) == mesh);
}

static void test_renamed_texture_keeps_uuid_and_dependent_follows(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f), tex;
    assert_true(ze_asset_registry_find_path(f->reg, "/models/CesiumLogoFlat.png", &tex));
    /* rename the image and point the glTF at its new name, as an editor
       would, while the watcher runs */
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/models/CesiumLogoFlat.png", f->root);
    snprintf(to, sizeof to, "%s/models/Logo.png", f->root);
    assert_int_equal(rename(from, to), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/models/BoxTextured.gltf", f->root);
    uint8_t *d = NULL;
    size_t n = 0;
    assert_true(fix_read_host(p, &d, &n));
    char *text = ze_mem_sys_alloc(n + 16);
    memcpy(text, d, n);
    text[n] = '\0';
    char *at = strstr(text, "CesiumLogoFlat.png");
    assert_non_null(at);
    size_t head = (size_t)(at - text);
    char *out = ze_mem_sys_alloc(n + 16);
    int len = snprintf(out, n + 16, "%.*sLogo.png%s", (int)head, text, at + 18);
    fix_write(f, "models/BoxTextured.gltf", out, (size_t)len);
    ze_mem_sys_free(out);
    ze_mem_sys_free(text);
    ze_mem_sys_free(d);
    bool ok = false;
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS,
              ze_import_coordinator_stats(f->ic).succeeded >= 2 &&
                  ze_import_coordinator_idle(f->ic) && fix_state(f, u) == ZE_ASSET_STATE_LOADED,
              ok);
    assert_true(ok);
    /* the image keeps its uuid under its new name */
    ze_uuid_t tex2, deps[4];
    assert_true(ze_asset_registry_find_path(f->reg, "/models/Logo.png", &tex2));
    assert_true(ze_uuid_eq(tex, tex2));
    assert_false(ze_asset_registry_find_path(f->reg, "/models/CesiumLogoFlat.png", &tex2));
    assert_int_equal(ze_asset_registry_dependents(f->reg, tex, deps, 4), 1);
    assert_true(ze_uuid_eq(deps[0], u));
    /* the dependency record follows */
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_int_equal(m.dependencies.count, 2);
    assert_string_equal(((ze_vfs_meta_dep_t *)ze_array_at(&m.dependencies, 1))->path.str,
                        "/models/Logo.png");
    ze_vfs_meta_free(&m);
    /* and the next start needs no import */
    restart(f);
    start(f);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 0);
}

static void test_settings_change_reimports(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f), mesh;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    float before = ze_asset_get(f->am, mesh)->as.mesh.max.y;
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
    fix_close_runtime(f);
    edit_meta_settings(f, "{\"scale\": 2, \"up_axis\": \"z\"}");
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    start(f);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.outdated, 1);
    assert_int_equal(s.started, 1);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    const ze_zemesh_view_t *v = &ze_asset_get(f->am, mesh)->as.mesh;
    /* the box is +-0.5: scaled by 2 and turned Z-up to Y-up, still +-1 */
    assert_true(v->max.y > 1.9f * before && v->max.y < 2.1f * before);
    assert_true(v->min.z < -0.9f);
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_true(m.settings_hash != 0);
    ze_vfs_meta_free(&m);
    /* the same settings: current at the next start */
    restart(f);
    start(f);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 0);
    /* an edit of the sidecar while the watcher runs re-imports too */
    uint64_t done = ze_import_coordinator_stats(f->ic).succeeded;
    edit_meta_settings(f, "{\"scale\": 3}");
    bool ok = false;
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS,
              ze_import_coordinator_stats(f->ic).succeeded > done &&
                  ze_import_coordinator_idle(f->ic),
              ok);
    assert_true(ok);
}

static void expect_bad_setting(fixture_t *f, ze_uuid_t u, ze_uuid_t mesh, const char *json,
                               const char *key)
{
    fix_close_runtime(f);
    edit_meta_settings(f, json);
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    start(f);
    ze_asset_info_t info;
    assert_true(ze_asset_registry_get(f->reg, u, &info));
    assert_int_equal(info.state, ZE_ASSET_STATE_FAILED);
    if (!strstr(info.reason, key))
        fail_msg("'%s': reason '%s' does not name %s", json, info.reason, key);
    /* the last good artifact stays in use */
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    if (!ze_asset_get(f->am, mesh)) {
        ze_asset_info_t mi = {0};
        ze_asset_registry_get(f->reg, mesh, &mi);
        fail_msg("'%s': the last good mesh is not loaded (state %d: %s)", json, mi.state,
                 mi.reason);
    }
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
}

static void test_bad_settings_name_the_key_and_keep_the_artifact(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f), mesh;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    expect_bad_setting(f, u, mesh, "{\"scael\": 2}", "settings.scael: unknown setting");
    expect_bad_setting(f, u, mesh, "{\"scale\": -1}", "settings.scale");
    expect_bad_setting(f, u, mesh, "{\"scale\": 1e9}", "out of range");
    expect_bad_setting(f, u, mesh, "{\"up_axis\": \"x\"}", "settings.up_axis");
    expect_bad_setting(f, u, mesh, "{\"lod_count\": 9}", "settings.lod_count");
    expect_bad_setting(f, u, mesh, "{\"flip_uvs\": 1}", "settings.flip_uvs");
    /* fixed again: imported once, current afterwards */
    fix_close_runtime(f);
    edit_meta_settings(f, "{}");
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    start(f);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
}

static void test_old_sidecar_still_reads(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f);
    fix_close_runtime(f);
    /* a sidecar as the previous writer made it: no dependencies, no
       settings_hash */
    char us[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(u, us);
    char text[512];
    int n = snprintf(text, sizeof text,
                     "{\"format\": \"zengine.meta\", \"version\": 1, \"uuid\": \"%s\", "
                     "\"importer\": \"gltf\", \"source_hash\": \"0000000000000001\", "
                     "\"artifacts\": [], \"sub_assets\": [], \"settings\": {}}\n",
                     us);
    fix_write(f, "models/BoxTextured.gltf.meta", text, (size_t)n);
    drop_watch_events(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    ze_uuid_t u2 = start(f);
    assert_true(ze_uuid_eq(u, u2)); /* the identity is kept */
    assert_int_equal(fix_state(f, u2), ZE_ASSET_STATE_LOADED);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_true(m.dependencies_known);
    assert_int_equal(m.dependencies.count, 2);
    ze_vfs_meta_free(&m);
}

/* The folder walk offers images: a model's texture is left to the model,
 * an image nothing uses is imported on its own; the same after a restart,
 * when the model's dependencies come from its sidecar. */
static void offer_images(fixture_t *f)
{
    ze_uuid_t box;
    assert_int_equal(ze_import_offer(f->ic, "/models/CesiumLogoFlat.png"), ZE_OK);
    assert_int_equal(ze_import_offer(f->ic, "/alone.png"), ZE_OK);
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_BACKGROUND, false, &box), ZE_OK);
    assert_false(ze_import_coordinator_idle(f->ic));
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    ze_uuid_t u;
    ze_asset_info_t info;
    assert_true(ze_asset_registry_find_path(f->reg, "/models/CesiumLogoFlat.png", &u));
    assert_true(ze_asset_registry_get(f->reg, u, &info));
    assert_int_equal(info.type, ZE_ASSET_TYPE_FILE); /* the box's dependency only */
    assert_true(ze_asset_registry_find_path(f->reg, "/alone.png", &u));
    assert_true(ze_asset_registry_get(f->reg, u, &info));
    assert_int_equal(info.type, ZE_ASSET_TYPE_SOURCE);
    assert_int_equal(info.state, ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, NULL, 0), 1);
    assert_int_equal(ze_import_coordinator_stats(f->ic).dependency_only, 1);
    assert_int_equal(fix_state(f, box), ZE_ASSET_STATE_LOADED);
}

static void test_offered_images_only_when_nothing_depends_on_them(void **state)
{
    NEED_FIXTURE(f);
    fix_copy(f, "gltf/TextureTransformTest/glTF/Arrow.png", "alone.png");
    offer_images(f);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 2); /* box, alone.png */
    restart(f);
    offer_images(f);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 0);
    assert_int_equal(ze_import_offer(f->ic, "/notes.txt"), ZE_ERR_UNSUPPORTED);
}

/* The folder walk's registration: nothing read on the calling thread; the
 * pool reads the sidecar and checks it, a tick registers the source. */
static void test_discover_reads_sidecars_on_the_pool(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = start(f), found;
    restart(f);
    fix_copy(f, "gltf/Box/glTF-Embedded/Box.gltf", "fresh.gltf"); /* no sidecar yet */
    drop_watch_events(f);
    assert_int_equal(ze_import_discover(f->ic, BOX), ZE_OK);
    assert_int_equal(ze_import_discover(f->ic, "/fresh.gltf"), ZE_OK);
    assert_int_equal(ze_import_discover(f->ic, "/notes.txt"), ZE_ERR_UNSUPPORTED);
    assert_false(ze_asset_registry_find_path(f->reg, BOX, &found)); /* not yet */
    assert_false(ze_import_coordinator_idle(f->ic));
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_true(ze_asset_registry_find_path(f->reg, BOX, &found));
    assert_true(ze_uuid_eq(found, u)); /* the sidecar's uuid */
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, NULL, 0), 4);
    assert_true(ze_asset_registry_find_path(f->reg, "/fresh.gltf", &found));
    assert_int_equal(fix_state(f, found), ZE_ASSET_STATE_LOADED);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.up_to_date, 1);
    assert_int_equal(s.started, 1); /* fresh.gltf only */
    /* a request made meanwhile registers at once; the discovery yields */
    restart(f);
    assert_int_equal(ze_import_discover(f->ic, BOX), ZE_OK);
    assert_int_equal(ze_import_register(f->ic, BOX, &found), ZE_OK);
    assert_true(ze_uuid_eq(found, u));
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_import_coordinator_stats(f->ic).started, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_meta_records_dependencies_with_hashes),
        T(test_unchanged_project_imports_nothing),
        T(test_bin_edited_while_off_is_reimported),
        T(test_texture_edited_while_off_is_reimported),
        T(test_renamed_texture_keeps_uuid_and_dependent_follows),
        T(test_settings_change_reimports),
        T(test_bad_settings_name_the_key_and_keep_the_artifact),
        T(test_old_sidecar_still_reads),
        T(test_offered_images_only_when_nothing_depends_on_them),
        T(test_discover_reads_sidecars_on_the_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
