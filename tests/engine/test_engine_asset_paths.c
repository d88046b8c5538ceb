/* Assets by path (issue "The first hour"): scene files name assets
 * "/models/crate.gltf#mesh/0". The showcase's own project is copied into a
 * temporary folder and run with --stats (null backend, in-process imports):
 * its scene rewritten to references by path loads every crate after the
 * models' .meta sidecars were deleted (the sources get new uuids, the
 * references follow); its scene as it is (uuids) still loads with the
 * sidecars, and not without them; references that do not resolve are
 * reported once each, naming the entity, the component and the reference,
 * and fail the run; the engine saves scenes with references, and a saved
 * scene loads back and saves to the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"

#define SHOWCASE ZE_ENGINE_TEST_ASSETS "/.."

/* The showcase scene's mesh uuids: v5(meta uuid, "mesh/0") of crate.gltf
 * and ground.gltf as their committed sidecars name them. */
static const char k_crate_uuid[] = "0daa6e4e-2228-5205-8e89-28dfd3b80540";
static const char k_ground_uuid[] = "60d4381e-100d-59d0-b1fa-4e0700eb5e3d";
enum { SHOWCASE_CRATES = 10, SHOWCASE_MESHES = SHOWCASE_CRATES + 1 };

typedef struct heard_t {
    char all[16384];
    size_t len;
    uint32_t count;
} heard_t;

static void heard_fn(void *user, const ze_diag_t *d)
{
    heard_t *h = user;
    char line[ZE_DIAG_TEXT_MAX];
    ze_diag_format(d, line, sizeof line);
    int n = snprintf(h->all + h->len, sizeof h->all - h->len, "%s\n", line);
    if (n > 0 && h->len + (size_t)n < sizeof h->all)
        h->len += (size_t)n;
    h->count++;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* `text` with every `from` replaced by `to` (into a static buffer). */
static char *replace(const char *text, const char *from, const char *to)
{
    static char out[1 << 17];
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = text; *p;) {
        if (!strncmp(p, from, fl)) {
            assert_true(n + tl < sizeof out);
            memcpy(out + n, to, tl);
            n += tl;
            p += fl;
        } else {
            assert_true(n + 1 < sizeof out);
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return out;
}

/* A copy of the showcase project: project.json, the models (with their
 * sidecars or not) and its scene, given as text. */
static void showcase_copy(fx_project_t *p, bool with_meta, const char *scene)
{
    memset(p, 0, sizeof *p);
    const char *tmp = getenv("TMPDIR");
    snprintf(p->root, sizeof p->root, "%s/zengine-paths-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(p->root));
    char from[600], to[600];
    snprintf(to, sizeof to, "%s/models", p->root);
    assert_int_equal(mkdir(to, 0755), 0);
    snprintf(to, sizeof to, "%s/scenes", p->root);
    assert_int_equal(mkdir(to, 0755), 0);
    snprintf(p->project, sizeof p->project, "%s/project.json", p->root);
    assert_true(fx_copy(SHOWCASE "/project.json", p->project));
    static const char *const models[] = {"crate.gltf", "crate.png", "ground.gltf",
                                         "crate.gltf.meta", "ground.gltf.meta"};
    for (size_t i = 0; i < ZE_COUNTOF(models); i++) {
        if (!with_meta && strstr(models[i], ".meta"))
            continue;
        snprintf(from, sizeof from, "%s/models/%s", SHOWCASE, models[i]);
        snprintf(to, sizeof to, "%s/models/%s", p->root, models[i]);
        assert_true(fx_copy(from, to));
    }
    snprintf(to, sizeof to, "%s/scenes/main.scene.json", p->root);
    assert_true(fx_write(to, scene, strlen(scene)));
}

static const char *showcase_scene(void)
{
    static char text[1 << 17];
    assert_true(fx_read(SHOWCASE "/scenes/main.scene.json", text, sizeof text) > 0);
    return text;
}

/* The showcase scene with references by path instead of mesh uuids. */
static const char *path_scene(void)
{
    static char text[1 << 17];
    snprintf(text, sizeof text, "%s",
             replace(showcase_scene(), k_crate_uuid, "/models/crate.gltf#mesh/0"));
    return replace(text, k_ground_uuid, "models/ground.gltf#mesh/0"); /* relative: normalized */
}

static ze_run_desc_t paths_run(const fx_project_t *p, char *stats, size_t cap)
{
    snprintf(stats, cap, "%s/stats.json", p->root);
    ze_run_desc_t run = fx_run(p);
    run.frames = 3;
    run.fixed_dt = 1.0 / 60.0; /* imports and loads settle before the first frame */
    run.backend = "null";
    run.stats = stats;
    return run;
}

static ze_result run_app(const ze_app_desc_t *app, const ze_run_desc_t *run, ze_run_report_t *rep)
{
    ze_result r = ze_app_run(app, run, rep);
    assert_int_equal(ze_run_report_write_json(rep, run->stats), ZE_OK);
    return r;
}

static const char *stats_text(const char *path)
{
    static char text[65536];
    assert_true(fx_read(path, text, sizeof text) > 0);
    return text;
}

static void test_the_setup_is_what_it_claims(void **state)
{
    (void)state;
    /* The uuids replaced are the committed sidecars' derivations. */
    ze_uuid_t crate, ground, u;
    assert_int_equal(ze_uuid_parse("5a1c0de0-7e57-4c4a-9a7e-c0ffee000001", 36, &crate), ZE_OK);
    assert_int_equal(ze_uuid_parse("5a1c0de0-7e57-4c4a-9a7e-c0ffee000002", 36, &ground), ZE_OK);
    assert_int_equal(ze_uuid_parse(k_crate_uuid, 36, &u), ZE_OK);
    assert_true(ze_uuid_eq(u, ze_asset_sub_asset_uuid(crate, "mesh/0")));
    assert_int_equal(ze_uuid_parse(k_ground_uuid, 36, &u), ZE_OK);
    assert_true(ze_uuid_eq(u, ze_asset_sub_asset_uuid(ground, "mesh/0")));
    const char *scene = path_scene();
    assert_null(strstr(scene, k_crate_uuid));
    assert_int_equal(count_of(scene, "\"/models/crate.gltf#mesh/0\""), SHOWCASE_CRATES);
}

static void test_paths_load_the_crates_without_meta(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700], meta[700];
    showcase_copy(&p, false, path_scene());
    ze_run_desc_t run = paths_run(&p, stats, sizeof stats);
    heard_t h = {0};
    ze_app_desc_t app = {.name = "paths", .diag = {heard_fn, &h}};
    ze_run_report_t rep;
    ze_result r = run_app(&app, &run, &rep);
    print_message("%s: %s\n%s", ze_result_str(r), rep.error, h.all);
    assert_int_equal(r, ZE_OK);
    assert_int_equal(rep.instances, SHOWCASE_MESHES);
    assert_int_equal(rep.unresolved_assets, 0);
    assert_int_equal(rep.failed_assets, 0);
    assert_int_equal(rep.meshes_resident, 2); /* the crate's and the ground's */
    assert_non_null(strstr(stats_text(stats), "\"ok\": true"));
    /* The sources got new identities (fresh sidecars): the paths followed. */
    snprintf(meta, sizeof meta, "%s/models/crate.gltf.meta", p.root);
    char text[4096];
    assert_true(fx_read(meta, text, sizeof text) > 0);
    assert_null(strstr(text, "5a1c0de0-7e57-4c4a-9a7e-c0ffee000001"));
    fx_project_remove(&p);
}

static void test_uuids_still_load(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700];
    showcase_copy(&p, true, showcase_scene());
    ze_run_desc_t run = paths_run(&p, stats, sizeof stats);
    ze_run_report_t rep;
    ze_app_desc_t app = {.name = "uuids"};
    assert_int_equal(run_app(&app, &run, &rep), ZE_OK);
    assert_int_equal(rep.instances, SHOWCASE_MESHES);
    assert_int_equal(rep.unresolved_assets, 0);
    assert_non_null(strstr(stats_text(stats), "\"ok\": true"));
    fx_project_remove(&p);

    /* The same scene without the sidecars: the uuids name nothing. */
    showcase_copy(&p, false, showcase_scene());
    run = paths_run(&p, stats, sizeof stats);
    heard_t h = {0};
    app.diag = (ze_diag_sink_t){heard_fn, &h};
    assert_int_equal(run_app(&app, &run, &rep), ZE_ERR_NOT_FOUND);
    assert_int_equal(rep.unresolved_assets, 2);
    assert_non_null(strstr(h.all, k_crate_uuid));
    assert_non_null(strstr(h.all, "does not need the .meta"));
    assert_non_null(strstr(stats_text(stats), "\"ok\": false"));
    fx_project_remove(&p);
}

static void test_unresolved_references_fail_the_run(void **state)
{
    (void)state;
    static const char scene[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000001\", \"components\": {\"Name\": "
        "{\"value\": \"Lost 1\"}, \"Mesh\": {\"mesh\": \"/models/lost.gltf#mesh/0\"}}},\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000002\", \"components\": {\"Name\": "
        "{\"value\": \"Lost 2\"}, \"Mesh\": {\"mesh\": \"/models/lost.gltf#mesh/0\"}}},\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000003\", \"components\": {\"Name\": "
        "{\"value\": \"Typo\"}, \"Mesh\": {\"mesh\": \"/models/crate.gltf#mesh0\"}}},\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000004\", \"components\": {\"Name\": "
        "{\"value\": \"Seventh\"}, \"Mesh\": {\"mesh\": \"/models/crate.gltf#mesh/7\"}}},\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000005\", \"components\": {\"Name\": "
        "{\"value\": \"Good\"}, \"Mesh\": {\"mesh\": \"/models/crate.gltf#mesh/0\"}}}\n]}\n";
    fx_project_t p;
    char stats[700];
    showcase_copy(&p, false, scene);
    ze_run_desc_t run = paths_run(&p, stats, sizeof stats);
    heard_t h = {0};
    ze_app_desc_t app = {.name = "unresolved", .diag = {heard_fn, &h}};
    ze_run_report_t rep;
    ze_result r = run_app(&app, &run, &rep);
    print_message("%s: %s\n%s", ze_result_str(r), rep.error, h.all);
    assert_int_equal(r, ZE_ERR_NOT_FOUND);
    assert_int_equal(rep.unresolved_assets, 3);
    assert_int_equal(rep.meshes_resident, 1); /* the good one's */
    assert_non_null(strstr(rep.error, "3 asset reference(s) never resolved"));
    /* once per reference, naming an entity, the component and field */
    assert_int_equal(count_of(h.all, "/models/lost.gltf#mesh/0: asset reference"), 1);
    assert_non_null(strstr(h.all, "entity 'Lost 1' (00000000-0000-4000-8000-000000000001), "
                                  "Mesh.mesh ($.entities[0].components.Mesh.mesh)"));
    assert_non_null(strstr(h.all, "no file /models/lost.gltf in the project"));
    assert_non_null(strstr(h.all, "entity 'Typo'"));
    assert_non_null(strstr(h.all, "write '#mesh/0'"));
    /* a sub-asset the model does not have: known once it was cooked */
    assert_non_null(strstr(h.all, "/models/crate.gltf#mesh/7: asset reference of entity "
                                  "'Seventh'"));
    assert_non_null(strstr(h.all, "has no sub-asset mesh/7 (it has:"));
    assert_non_null(strstr(h.all, " mesh/0"));
    assert_non_null(strstr(stats_text(stats), "\"ok\": false"));
    fx_project_remove(&p);
}

/* Saving: references by path where the registry can name the uuid; a
 * saved scene loads and saves back to the same bytes. The C API takes
 * references too. */
typedef struct saver_t {
    const char *load; /* a scene to load in on_initialized (VFS path), or NULL */
    const char *save; /* where on_update saves at the first frame */
    ze_uuid_t crate_mesh;
    char crate_ref[ZE_ASSET_REF_MAX];
    ze_result saved;
} saver_t;

static ze_result saver_init(ze_engine_t *e, void *user)
{
    saver_t *s = user;
    if (ze_engine_asset_uuid(e, "/models/crate.gltf#mesh/0", &s->crate_mesh) != ZE_OK)
        return ZE_ERR_INTERNAL;
    return s->load ? ze_engine_load_scene(e, s->load) : ZE_OK;
}

static void saver_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    saver_t *s = user;
    if (ze_engine_frame_index(e) != 0)
        return;
    s->saved = ze_engine_save_scene(e, s->save);
    ze_engine_asset_ref(e, s->crate_mesh, s->crate_ref, sizeof s->crate_ref);
}

static void test_saved_scenes_use_paths(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700], path[700];
    showcase_copy(&p, false, path_scene());
    ze_run_desc_t run = paths_run(&p, stats, sizeof stats);
    saver_t s = {.save = "/scenes/saved.scene.json"};
    ze_app_desc_t app = {
        .name = "saver", .user = &s, .on_initialized = saver_init, .on_update = saver_update};
    ze_run_report_t rep;
    assert_int_equal(run_app(&app, &run, &rep), ZE_OK);
    assert_int_equal(s.saved, ZE_OK);
    assert_string_equal(s.crate_ref, "/models/crate.gltf#mesh/0");
    /* the crate's mesh uuid derives from the new sidecar's uuid */
    char meta[4096];
    snprintf(path, sizeof path, "%s/models/crate.gltf.meta", p.root);
    assert_true(fx_read(path, meta, sizeof meta) > 0);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    assert_int_equal(ze_vfs_meta_parse(meta, strlen(meta), &m, NULL), ZE_OK);
    assert_true(ze_uuid_eq(s.crate_mesh, ze_asset_sub_asset_uuid(m.uuid, "mesh/0")));
    ze_vfs_meta_free(&m);

    static char first[1 << 17], second[1 << 17];
    snprintf(path, sizeof path, "%s/scenes/saved.scene.json", p.root);
    assert_true(fx_read(path, first, sizeof first) > 0);
    assert_int_equal(count_of(first, "\"mesh\": \"/models/crate.gltf#mesh/0\""), SHOWCASE_CRATES);
    assert_int_equal(count_of(first, "\"mesh\": \"/models/ground.gltf#mesh/0\""), 1);
    assert_int_equal(count_of(first, "\"mesh\": \"0"), 0);

    /* Load the saved scene, save it again: the same bytes. */
    s = (saver_t){.load = "/scenes/saved.scene.json", .save = "/scenes/again.scene.json"};
    assert_int_equal(run_app(&app, &run, &rep), ZE_OK);
    assert_int_equal(rep.instances, SHOWCASE_MESHES);
    snprintf(path, sizeof path, "%s/scenes/again.scene.json", p.root);
    assert_true(fx_read(path, second, sizeof second) > 0);
    assert_string_equal(first, second);
    fx_project_remove(&p);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_ERROR});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_setup_is_what_it_claims),
        cmocka_unit_test(test_paths_load_the_crates_without_meta),
        cmocka_unit_test(test_uuids_still_load),
        cmocka_unit_test(test_unresolved_references_fail_the_run),
        cmocka_unit_test(test_saved_scenes_use_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
