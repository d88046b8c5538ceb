/* The asset runtime end to end on a real project folder, in-process
 * imports: registration through .meta sidecars, the states an import goes
 * through, sub-assets and dependency edges, an up-to-date source that needs
 * no import, the manager's loads, references and eviction, a wiped cache
 * re-imported on demand, and hot reload through the VFS watcher (a changed
 * source, a changed dependency, garbage, a deleted source). */
/* nftw (asset_fixture.h) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asset_fixture.h"

#define BOX "/models/BoxTextured.gltf"

typedef struct trail_t {
    ze_uuid_t watch;
    ze_asset_state states[32];
    uint32_t n;
} trail_t;

static void on_trail(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    trail_t *t = user;
    (void)old;
    if (ze_uuid_eq(info->uuid, t->watch) && t->n < 32)
        t->states[t->n++] = info->state;
}

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

/* Import the box and wait; returns its uuid. */
static ze_uuid_t import_box(fixture_t *f)
{
    ze_uuid_t u;
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &u), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    return u;
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

static void test_import_states_meta_and_edges(void **state)
{
    NEED_FIXTURE(f);
    /* registration creates the sidecar with a fresh uuid */
    ze_uuid_t u;
    assert_int_equal(ze_import_register(f->ic, BOX, &u), ZE_OK);
    assert_int_equal(ze_uuid_version(u), 4);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_true(ze_uuid_eq(m.uuid, u));
    assert_int_equal(m.artifacts.count, 0);
    trail_t t = {.watch = u};
    assert_int_equal(ze_asset_registry_listen(f->reg, on_trail, &t), ZE_OK);
    assert_true(ze_uuid_eq(import_box(f), u));
    ze_asset_registry_unlisten(f->reg, on_trail, &t);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.states[0], ZE_ASSET_STATE_QUEUED);
    assert_int_equal(t.states[1], ZE_ASSET_STATE_IMPORTING);
    assert_int_equal(t.states[2], ZE_ASSET_STATE_LOADED);
    /* sub-assets: one mesh, one material, one texture, the scene */
    ze_uuid_t subs[16];
    uint32_t n = ze_asset_registry_sub_assets(f->reg, u, subs, 16);
    assert_int_equal(n, 4);
    uint32_t seen[ZE_ASSET_TYPE_COUNT] = {0};
    for (uint32_t i = 0; i < n; i++) {
        ze_asset_info_t info;
        ze_asset_registry_get(f->reg, subs[i], &info);
        seen[info.type]++;
        assert_true(ze_uuid_eq(info.source, u));
        assert_true(strncmp(info.path, "/cache/artifacts/", 17) == 0);
        assert_true(ze_vfs_exists(f->vfs, info.path));
    }
    assert_int_equal(seen[ZE_ASSET_TYPE_MESH], 1);
    assert_int_equal(seen[ZE_ASSET_TYPE_MATERIAL], 1);
    assert_int_equal(seen[ZE_ASSET_TYPE_TEXTURE], 1);
    assert_int_equal(seen[ZE_ASSET_TYPE_SCENE], 1);
    /* the sidecar lists them, uuids in artifact order */
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m), ZE_OK);
    assert_int_equal(m.artifacts.count, 4);
    assert_int_equal(m.sub_assets.count, 4);
    assert_string_equal(m.importer, "gltf");
    assert_true(m.source_hash != 0);
    assert_true(m.import_time > 0);
    /* the .bin and the .png are files the source depends on */
    ze_uuid_t bin, deps[4];
    assert_true(ze_asset_registry_find_path(f->reg, "/models/BoxTextured0.bin", &bin));
    assert_int_equal(ze_asset_registry_dependents(f->reg, bin, deps, 4), 1);
    assert_true(ze_uuid_eq(deps[0], u));
    assert_true(ze_asset_registry_find_path(f->reg, "/models/CesiumLogoFlat.png", &bin));
    /* re-requesting a current source does nothing; force re-imports */
    ze_import_stats_t s0 = ze_import_coordinator_stats(f->ic);
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_BACKGROUND, false, NULL), ZE_OK);
    assert_true(ze_import_coordinator_idle(f->ic));
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_BACKGROUND, true, NULL), ZE_OK);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    ze_import_stats_t s1 = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s1.succeeded, s0.succeeded + 1);
    /* the uuids are stable across re-imports and the old folder is gone */
    ze_uuid_t again[16];
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u, again, 16), 4);
    assert_memory_equal(again, subs, 4 * sizeof(ze_uuid_t));
    ze_vfs_meta_t m2;
    ze_vfs_meta_init(&m2, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_read(f->vfs, BOX, &m2), ZE_OK);
    const ze_path_t *old0 = ze_array_at(&m.artifacts, 0), *new0 = ze_array_at(&m2.artifacts, 0);
    assert_string_not_equal(old0->str, new0->str);
    assert_false(ze_vfs_exists(f->vfs, old0->str));
    assert_true(ze_vfs_exists(f->vfs, new0->str));
    ze_vfs_meta_free(&m);
    ze_vfs_meta_free(&m2);
    /* no importer for it */
    fix_write(f, "notes.txt", "x", 1);
    assert_int_equal(ze_import_register(f->ic, "/notes.txt", NULL), ZE_ERR_UNSUPPORTED);
    assert_int_equal(ze_import_register(f->ic, "/missing.gltf", NULL), ZE_ERR_NOT_FOUND);
}

static void test_up_to_date_source_needs_no_import(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = import_box(f);
    fix_close_runtime(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    ze_uuid_t u2;
    assert_int_equal(ze_import_register(f->ic, BOX, &u2), ZE_OK);
    assert_true(ze_uuid_eq(u, u2)); /* the identity lives in the sidecar */
    /* current after the pool's check, without an import */
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_int_equal(fix_state(f, u2), ZE_ASSET_STATE_LOADED);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.up_to_date, 1);
    assert_int_equal(s.started, 0);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, u2, NULL, 0), 4);
    /* a source changed while the engine was off is not current */
    fix_close_runtime(f);
    fix_copy(f, "gltf/Box/glTF-Embedded/Box.gltf", "models/BoxTextured.gltf");
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS});
    assert_int_equal(ze_import_register(f->ic, BOX, &u2), ZE_OK);
    assert_true(ze_uuid_eq(u, u2));
    assert_int_equal(ze_import_coordinator_wait(f->ic, 20000), ZE_OK);
    assert_int_equal(fix_state(f, u2), ZE_ASSET_STATE_UNKNOWN);
    assert_int_equal(ze_import_coordinator_stats(f->ic).outdated, 1);
}

static void test_manager_loads_counts_and_evicts(void **state)
{
    NEED_FIXTURE(f);
    fix_close_runtime(f);
    /* a budget of one byte: anything unreferenced goes at the next tick */
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS, .budget = 1});
    ze_uuid_t u = import_box(f), mesh, tex, mat;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_TEXTURE, &tex));
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MATERIAL, &mat));
    assert_int_equal(ze_asset_acquire(f->am, u), ZE_ERR_INVALID_ARG); /* a source */
    ze_uuid_t nobody = ze_uuid_v4();
    assert_int_equal(ze_asset_acquire(f->am, nobody), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_acquire(f->am, tex), ZE_OK);
    assert_int_equal(ze_asset_acquire(f->am, mat), ZE_OK);
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_refcount(f->am, mesh), 2);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    const ze_asset_data_t *d = ze_asset_get(f->am, mesh);
    assert_non_null(d);
    assert_int_equal(d->type, ZE_ASSET_TYPE_MESH);
    assert_int_equal(d->as.mesh.vertex_count, 24);
    assert_int_equal(d->as.mesh.index_count, 36);
    assert_true(ze_uuid_eq(d->as.mesh.uuid, mesh));
    const ze_asset_data_t *t = ze_asset_get(f->am, tex);
    assert_non_null(t);
    assert_true(t->as.texture.width > 0 && t->as.texture.mip_count > 1);
    const ze_asset_data_t *mt = ze_asset_get(f->am, mat);
    assert_non_null(mt);
    assert_true(mt->as.material.base_color.present);
    assert_true(ze_uuid_eq(mt->as.material.base_color.texture, tex));
    assert_int_equal(f->ready_count, 3);
    assert_int_equal(fix_state(f, mesh), ZE_ASSET_STATE_LOADED);
    /* referenced data stays even over budget */
    ze_asset_manager_tick(f->am);
    assert_non_null(ze_asset_get(f->am, tex));
    /* released: evicted, back to UNKNOWN; the mesh (still held) stays */
    assert_int_equal(ze_asset_release(f->am, tex), ZE_OK);
    assert_int_equal(ze_asset_release(f->am, tex), ZE_ERR_STATE);
    ze_asset_manager_tick(f->am);
    assert_null(ze_asset_get(f->am, tex));
    assert_int_equal(fix_state(f, tex), ZE_ASSET_STATE_UNKNOWN);
    assert_non_null(ze_asset_get(f->am, mesh));
    ze_asset_manager_stats_t s = ze_asset_manager_stats(f->am);
    assert_int_equal(s.evictions, 1);
    assert_int_equal(s.loads, 3);
    assert_int_equal(s.loaded, 2);
    /* acquired again: loaded again */
    assert_int_equal(ze_asset_acquire(f->am, tex), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    assert_non_null(ze_asset_get(f->am, tex));
}

static uint32_t count_of(const fixture_t *f, ze_uuid_t u, bool released)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < (released ? f->released_count : f->ready_count); i++)
        n += ze_uuid_eq(released ? f->released[i] : f->ready[i].uuid, u);
    return n;
}

/* Announcements follow the references: ready when data is there for a
 * holder, released when the last holder goes, ready again (from the
 * cache, no load) when it is taken again; a load nobody waits for any
 * more is kept quiet. */
static void test_release_announced(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = import_box(f), mesh, tex;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_TEXTURE, &tex));
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_acquire(f->am, tex), ZE_OK);
    assert_int_equal(ze_asset_release(f->am, tex), ZE_OK); /* before its load is done */
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    assert_int_equal(count_of(f, mesh, false), 1);
    assert_int_equal(count_of(f, tex, false), 0); /* nobody held it when it came */
    assert_int_equal(count_of(f, tex, true), 0);
    ze_asset_manager_stats_t s0 = ze_asset_manager_stats(f->am);
    for (uint32_t i = 1; i <= 3; i++) {
        assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
        assert_int_equal(count_of(f, mesh, true), i);
        assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK); /* cached: at once */
        assert_int_equal(count_of(f, mesh, false), i + 1);
    }
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK); /* a second holder: quiet */
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
    assert_int_equal(count_of(f, mesh, false), 4);
    assert_int_equal(count_of(f, mesh, true), 3);
    assert_int_equal(ze_asset_acquire(f->am, tex), ZE_OK);
    assert_int_equal(count_of(f, tex, false), 1);
    assert_int_equal(ze_asset_release(f->am, tex), ZE_OK);
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_release(f->am, mesh), ZE_ERR_STATE);
    assert_int_equal(count_of(f, tex, true), 1);
    assert_int_equal(count_of(f, mesh, true), 4);
    ze_asset_manager_stats_t s1 = ze_asset_manager_stats(f->am);
    assert_int_equal(s1.loads, s0.loads); /* all from memory */
    assert_int_equal(s1.releases, s0.releases + 5);
}

static void test_wiped_cache_is_reimported_on_demand(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = import_box(f), mesh;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    ze_asset_info_t info;
    ze_asset_registry_get(f->reg, mesh, &info);
    assert_int_equal(ze_vfs_delete(f->vfs, info.path), ZE_OK);
    ze_import_stats_t s0 = ze_import_coordinator_stats(f->ic);
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    assert_non_null(ze_asset_get(f->am, mesh));
    assert_int_equal(ze_import_coordinator_stats(f->ic).succeeded, s0.succeeded + 1);
}

/* Acquire the mesh, then change something on disk and measure how long it
 * takes until on_asset_ready brings the next generation. */
static uint32_t reload_after(fixture_t *f, ze_uuid_t mesh, void (*change)(fixture_t *),
                             uint64_t *ms)
{
    const ze_asset_data_t *d = ze_asset_get(f->am, mesh);
    assert_non_null(d);
    uint32_t gen = d->generation;
    uint32_t before = f->ready_count;
    uint64_t t0 = ze_time_now_ns();
    change(f);
    bool ok;
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS, f->ready_count > before, ok);
    *ms = (ze_time_now_ns() - t0) / 1000000u;
    if (!ok)
        fail_msg("no reload within %d ms", FIX_RELOAD_DEADLINE_MS);
    bool mesh_seen = false;
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS, ze_asset_get(f->am, mesh)->generation > gen, mesh_seen);
    assert_true(mesh_seen);
    return ze_asset_get(f->am, mesh)->generation;
}

static void change_source(fixture_t *f)
{
    /* same model, different bytes: an extra space at the end */
    char src[512];
    snprintf(src, sizeof src, "%s/assets/gltf/BoxTextured/glTF/BoxTextured.gltf", ZE_TESTDATA_DIR);
    uint8_t *d = NULL;
    size_t n = 0;
    assert_true(fix_read_host(src, &d, &n));
    d[n] = ' ';
    fix_write(f, "models/BoxTextured.gltf", d, n + 1);
    ze_mem_sys_free(d);
}

static void touch_bin(fixture_t *f)
{
    fix_copy(f, "gltf/BoxTextured/glTF/BoxTextured0.bin", "models/BoxTextured0.bin");
}

static void test_hot_reload(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = import_box(f), mesh;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    uint64_t ms;
    uint32_t g1 = reload_after(f, mesh, change_source, &ms);
    print_message("source changed -> reloaded in %llu ms\n", (unsigned long long)ms);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    assert_int_equal(fix_state(f, mesh), ZE_ASSET_STATE_LOADED);
    /* a dependency (.bin) changed: the glTF is re-cooked, the mesh reloads */
    uint32_t g2 = reload_after(f, mesh, touch_bin, &ms);
    print_message("dependency changed -> reloaded in %llu ms\n", (unsigned long long)ms);
    assert_true(g2 > g1);
    assert_int_equal(ze_asset_get(f->am, mesh)->as.mesh.vertex_count, 24);
}

static void test_garbage_and_deletion_keep_the_old_data(void **state)
{
    NEED_FIXTURE(f);
    ze_uuid_t u = import_box(f), mesh;
    assert_true(find_sub(f, u, ZE_ASSET_TYPE_MESH, &mesh));
    assert_int_equal(ze_asset_acquire(f->am, mesh), ZE_OK);
    assert_int_equal(ze_asset_manager_wait(f->am, 20000), ZE_OK);
    uint32_t gen = ze_asset_get(f->am, mesh)->generation;
    /* garbage: the import fails with its reason, the mesh keeps its data */
    fix_write(f, "models/BoxTextured.gltf", "{\"asset\": 12", 12);
    bool ok;
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS, fix_state(f, u) == ZE_ASSET_STATE_FAILED, ok);
    assert_true(ok);
    ze_asset_info_t info;
    ze_asset_registry_get(f->reg, u, &info);
    assert_true(strlen(info.reason) > 0);
    print_message("garbage: %s\n", info.reason);
    assert_int_equal(fix_state(f, mesh), ZE_ASSET_STATE_LOADED);
    const ze_asset_data_t *d = ze_asset_get(f->am, mesh);
    assert_non_null(d);
    assert_int_equal(d->generation, gen);
    assert_int_equal(d->as.mesh.vertex_count, 24);
    /* fixed again: imported and reloaded */
    fix_copy(f, "gltf/BoxTextured/glTF/BoxTextured.gltf", "models/BoxTextured.gltf");
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS, ze_asset_get(f->am, mesh)->generation > gen, ok);
    assert_true(ok);
    assert_int_equal(fix_state(f, u), ZE_ASSET_STATE_LOADED);
    /* deleted: reported, the data stays in use */
    char p[512];
    snprintf(p, sizeof p, "%s/models/BoxTextured.gltf", f->root);
    assert_int_equal(unlink(p), 0);
    FIX_UNTIL(f, FIX_RELOAD_DEADLINE_MS, fix_state(f, u) == ZE_ASSET_STATE_FAILED, ok);
    assert_true(ok);
    ze_asset_registry_get(f->reg, u, &info);
    assert_non_null(strstr(info.reason, "deleted"));
    assert_non_null(ze_asset_get(f->am, mesh));
    assert_int_equal(fix_state(f, mesh), ZE_ASSET_STATE_LOADED);
}

typedef struct order_t {
    ze_uuid_t started[8];
    uint32_t n;
} order_t;

static void on_start(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    order_t *o = user;
    (void)old;
    if (info->state == ZE_ASSET_STATE_IMPORTING && o->n < 8)
        o->started[o->n++] = info->uuid;
}

static void test_immediate_goes_first(void **state)
{
    NEED_FIXTURE(f);
    fix_close_runtime(f);
    fix_open_runtime(f, &(fix_desc_t){.mode = ZE_IMPORT_IN_PROCESS, .max_running = 1});
    fix_copy(f, "textures/TextureEncodingTest/SlotLabels.png", "models/a.png");
    fix_copy(f, "textures/InterpolationTest/l.jpg", "models/b.jpg");
    /* Let the watcher report those writes now (nobody knows the files yet):
       later they would look like edits and queue re-imports. */
    for (int i = 0; i < 60; i++) {
        ze_vfs_tick(f->vfs);
        usleep(5000);
    }
    order_t o = {0};
    assert_int_equal(ze_asset_registry_listen(f->reg, on_start, &o), ZE_OK);
    ze_uuid_t a, b, c, box;
    assert_int_equal(ze_import_request(f->ic, "/models/a.png", ZE_IMPORT_BACKGROUND, 0, &a), 0);
    assert_int_equal(ze_import_request(f->ic, "/models/b.jpg", ZE_IMPORT_BACKGROUND, 0, &b), 0);
    assert_int_equal(
        ze_import_request(f->ic, "/models/CesiumLogoFlat.png", ZE_IMPORT_BACKGROUND, false, &c),
        ZE_OK);
    assert_int_equal(ze_import_request(f->ic, BOX, ZE_IMPORT_IMMEDIATE, false, &box), ZE_OK);
    /* asking again for Immediate moves a Background request up */
    assert_int_equal(
        ze_import_request(f->ic, "/models/CesiumLogoFlat.png", ZE_IMPORT_IMMEDIATE, false, NULL),
        ZE_OK);
    ze_import_stats_t s = ze_import_coordinator_stats(f->ic);
    assert_int_equal(s.queued, 4);
    assert_int_equal(ze_import_coordinator_wait(f->ic, 30000), ZE_OK);
    ze_asset_registry_unlisten(f->reg, on_start, &o);
    assert_int_equal(o.n, 4);
    assert_true(ze_uuid_eq(o.started[0], box));
    assert_true(ze_uuid_eq(o.started[1], c));
    assert_true(ze_uuid_eq(o.started[2], a));
    assert_true(ze_uuid_eq(o.started[3], b));
    assert_int_equal(fix_state(f, a), ZE_ASSET_STATE_LOADED);
    assert_int_equal(ze_asset_registry_sub_assets(f->reg, a, NULL, 0), 1); /* one .zetex */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_import_states_meta_and_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_up_to_date_source_needs_no_import, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manager_loads_counts_and_evicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_announced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wiped_cache_is_reimported_on_demand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hot_reload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_and_deletion_keep_the_old_data, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_immediate_goes_first, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
