/* The cooker's sub-assets, dependencies and scene files, against the shared
 * corpus (../shared/testdata/assets; skipped when absent): every cooked
 * artifact has its sub-asset (uuid v5(source uuid, "<kind>/<N>"), type told
 * by its name) in the artifacts' order; dependencies are the manifest's;
 * <stem>.scene.json loads into a real ECS world with no problem reported,
 * holds one entity per node of the default scene in depth-first order
 * with the importer's hierarchy, meshes and cameras, is byte-identical when
 * cooked twice and when saved back from the world. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asset_test_util.h"
#include "zengine/asset.h"
#include "zengine/ecs.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

#define ASSETS ATU_ASSETS

static ze_kernel_t *g_kernel;

static ze_allocator_t A(void)
{
    return ze_mem_system_allocator();
}

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    atu_manifest_setup(state);
    g_kernel = ze_kernel_create(&(ze_kernel_desc_t){0});
    return atu_tmp_setup(state) == 0 && g_kernel ? 0 : -1;
}

static int teardown(void **state)
{
    atu_manifest_teardown(state);
    atu_tmp_teardown(state);
    ze_kernel_destroy(g_kernel);
    ze_log_reset();
    return 0;
}

typedef struct blob_t {
    char *data;
    size_t size;
} blob_t;

static blob_t read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    blob_t b = {ze_alloc(A(), (size_t)n + 1, 16), (size_t)n};
    assert_non_null(b.data);
    assert_int_equal(fread(b.data, 1, b.size, f), b.size);
    b.data[b.size] = 0;
    fclose(f);
    return b;
}

static void blob_free(blob_t *b)
{
    ze_free(A(), b->data, b->size + 1);
}

static ze_uuid_t label_uuid(ze_uuid_t source, const char *kind, uint32_t i)
{
    char label[64];
    int n = snprintf(label, sizeof label, "%s/%u", kind, i);
    return ze_uuid_v5(source, label, (size_t)n);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---------------------------------------------------------------- types */

static void test_asset_types(void **state)
{
    (void)state;
    static const char *const names[] = {"unknown",  "source",  "file",   "mesh",
                                        "material", "texture", "envmap", "scene"};
    for (int t = 0; t < ZE_ASSET_TYPE_COUNT; t++)
        assert_string_equal(ze_asset_type_name((ze_asset_type)t), names[t]);
    assert_string_equal(ze_asset_type_name(ZE_ASSET_TYPE_COUNT), "unknown");
    assert_string_equal(ze_asset_type_name((ze_asset_type)-1), "unknown");
    assert_int_equal(ze_asset_type_of_artifact("a.mesh0.zemesh"), ZE_ASSET_TYPE_MESH);
    assert_int_equal(ze_asset_type_of_artifact("a.material3.zematerial"), ZE_ASSET_TYPE_MATERIAL);
    assert_int_equal(ze_asset_type_of_artifact("dir/a.texture0.zetex"), ZE_ASSET_TYPE_TEXTURE);
    assert_int_equal(ze_asset_type_of_artifact("sky.envmap0.zenvmap"), ZE_ASSET_TYPE_ENVMAP);
    assert_int_equal(ze_asset_type_of_artifact("Box.scene.json"), ZE_ASSET_TYPE_SCENE);
    assert_int_equal(ze_asset_type_of_artifact("Box.json"), ZE_ASSET_TYPE_UNKNOWN);
    assert_int_equal(ze_asset_type_of_artifact("Box.gltf"), ZE_ASSET_TYPE_UNKNOWN);
    assert_int_equal(ze_asset_type_of_artifact("x.zemesh.bak"), ZE_ASSET_TYPE_UNKNOWN);
    assert_int_equal(ze_asset_type_of_artifact(""), ZE_ASSET_TYPE_UNKNOWN);
    assert_int_equal(ze_asset_type_of_artifact(NULL), ZE_ASSET_TYPE_UNKNOWN);
}

/* ------------------------------------------------------------- cooking */

static void cook_with(const char *src, const char *out, const char *settings, ze_cook_result_t *r)
{
    ze_diag_capture_t diag = {0};
    ze_cook_desc_t d = {
        .source = src, .out_dir = out, .settings = settings, .diag = ze_diag_capture_sink(&diag)};
    if (ze_asset_cook(&d, r) != ZE_OK)
        fail_msg("%s: %s", src, diag.last);
}

static void cook(const char *src, const char *out, ze_cook_result_t *r)
{
    cook_with(src, out, NULL, r);
}

/* The whole corpus, twice: what is checked here is sub-assets and scenes,
 * so textures cook uncompressed without mips and one LOD is built (block
 * compression in a debug build was most of this test's time under load). */
static const char k_light[] = "{\"mips\": false, \"compression\": \"none\", \"lod_count\": 1}";

/* Sub-assets: one per artifact, same order; uuid v5(source, "<kind>/<N>")
 * from the artifact's name "<stem>.<kind><N>.<ext>" or "<stem>.scene.json";
 * the artifacts' files exist. Returns the index of the scene, or -1. */
static int check_sub_assets(const ze_cook_result_t *r, const char *out)
{
    int scene = -1;
    assert_non_null(r->sub_asset_uuids);
    assert_non_null(r->sub_asset_types);
    for (uint32_t i = 0; i < r->artifact_count; i++) {
        const char *name = r->artifacts[i];
        ze_asset_type t = r->sub_asset_types[i];
        assert_int_equal(t, ze_asset_type_of_artifact(name));
        assert_int_not_equal(t, ZE_ASSET_TYPE_UNKNOWN);
        ze_uuid_t want;
        if (t == ZE_ASSET_TYPE_SCENE) {
            assert_int_equal(scene, -1);
            scene = (int)i;
            want = label_uuid(r->source_uuid, "scene", 0);
        } else {
            const char *kind = ze_asset_type_name(t);
            char pat[32];
            snprintf(pat, sizeof pat, ".%s", kind);
            const char *p = strstr(name, pat);
            assert_non_null(p);
            want = label_uuid(r->source_uuid, kind, (uint32_t)strtoul(p + strlen(pat), NULL, 10));
        }
        if (!ze_uuid_eq(r->sub_asset_uuids[i], want))
            fail_msg("%s: sub-asset uuid is not v5(source, its label)", name);
        char p[1024];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", out, name);
        assert_int_equal(stat(p, &st), 0);
    }
    return scene;
}

/* The dependencies equal the manifest's (paths relative to the assets
 * folder there, to the source's folder here), sorted and unique. */
static void check_dependencies(const ze_cook_result_t *r, json_t *entry)
{
    const char *rel = json_string_value(json_object_get(entry, "path"));
    json_t *want = json_object_get(entry, "dependencies");
    assert_non_null(r->dependencies);
    for (uint32_t i = 1; i < r->dependency_count; i++)
        assert_true(strcmp(r->dependencies[i - 1], r->dependencies[i]) < 0);
    if (!json_is_array(want))
        return;
    size_t dir_len = (size_t)(base_name(rel) - rel);
    if (json_array_size(want) != r->dependency_count)
        fail_msg("%s: %u dependencies, the manifest lists %zu", rel, r->dependency_count,
                 json_array_size(want));
    size_t k;
    json_t *d;
    json_array_foreach(want, k, d)
    {
        const char *path = json_string_value(d);
        assert_true(strncmp(path, rel, dir_len) == 0);
        bool found = false;
        for (uint32_t i = 0; i < r->dependency_count && !found; i++)
            found = strcmp(r->dependencies[i], path + dir_len) == 0;
        if (!found)
            fail_msg("%s: dependency %s missing", rel, path);
    }
}

/* ------------------------------------------------------------- scenes */

typedef struct loaded_t {
    ze_world_t *w;
    blob_t text;
    json_t *doc;
    uint32_t count;
} loaded_t;

/* Load the scene file into a fresh world: no problem reported, and the
 * world saves back to the same bytes. */
static void load_scene(const char *path, loaded_t *l)
{
    l->text = read_file(path);
    l->w = ze_world_create(g_kernel, &(ze_world_desc_t){.capacity = 1 << 16});
    assert_non_null(l->w);
    ze_scene_report_t rep;
    ze_result r = ze_scene_load_json(l->w, l->text.data, l->text.size, &rep);
    if (r != ZE_OK || rep.problems != 0)
        fail_msg("%s: load %s, %u problem(s) (see the log)", path, ze_result_str(r), rep.problems);
    l->count = rep.entities;
    assert_int_equal(ze_world_entity_count(l->w), l->count);
    ze_byte_writer_t out = {.alloc = A()};
    assert_int_equal(ze_scene_save_json(l->w, &out), ZE_OK);
    if (out.size != l->text.size || memcmp(out.data, l->text.data, out.size) != 0)
        fail_msg("%s: the world saves different bytes:\n%.*s", path, (int)out.size,
                 (const char *)out.data);
    ze_byte_writer_free(&out);
    l->doc = json_loadb(l->text.data, l->text.size, 0, NULL);
    assert_non_null(l->doc);
}

static void unload_scene(loaded_t *l)
{
    json_decref(l->doc);
    blob_free(&l->text);
    ze_world_destroy(l->w);
}

static ze_entity_t find_entity(ze_world_t *w, ze_uuid_t u)
{
    uint32_t n = ze_world_entity_count(w);
    for (uint32_t i = 0; i < n; i++) {
        ze_entity_t e = ze_entity_from_index(w, i);
        const ze_uuid_component_t *c = ze_get(w, e, ze_uuid_component_t);
        if (c && ze_uuid_eq(c->value, u))
            return e;
    }
    return ZE_ENTITY_NULL;
}

static ze_uuid_t entity_uuid(ze_world_t *w, ze_entity_t e)
{
    const ze_uuid_component_t *c = ze_get(w, e, ze_uuid_component_t);
    assert_non_null(c);
    return c->value;
}

/* The expected order: depth-first from the default scene's roots (else
 * scene 0's, else every root), children in order. */
static void dfs(const ze_model_t *m, uint32_t i, uint32_t *order, uint32_t *n)
{
    order[(*n)++] = i;
    for (uint32_t k = 0; k < m->nodes[i].child_count; k++)
        dfs(m, m->nodes[i].children[k], order, n);
}

static uint32_t expected_order(const ze_model_t *m, uint32_t *order)
{
    uint32_t n = 0;
    int32_t s = m->default_scene >= 0 ? m->default_scene : m->scene_count ? 0 : -1;
    if (s >= 0) {
        for (uint32_t k = 0; k < m->scenes[s].node_count; k++)
            dfs(m, m->scenes[s].nodes[k], order, &n);
    } else {
        for (uint32_t i = 0; i < m->node_count; i++)
            if (m->nodes[i].parent < 0)
                dfs(m, i, order, &n);
    }
    return n;
}

static bool has_artifact(const ze_cook_result_t *r, ze_uuid_t u, ze_asset_type t)
{
    for (uint32_t i = 0; i < r->artifact_count; i++)
        if (r->sub_asset_types[i] == t && ze_uuid_eq(r->sub_asset_uuids[i], u))
            return true;
    return false;
}

/* The scene against the model the importer gives: entities in order with
 * node uuids, parents, meshes (exactly those cooked), transforms, cameras
 * (the first one main). */
static void check_scene_against_model(const ze_cook_result_t *r, const ze_model_t *m,
                                      const loaded_t *l)
{
    uint32_t *order = ze_alloc(A(), (m->node_count + 1u) * sizeof(uint32_t), 16);
    assert_non_null(order);
    uint32_t n = expected_order(m, order);
    assert_int_equal(l->count, n);
    json_t *ents = json_object_get(l->doc, "entities");
    assert_int_equal(json_array_size(ents), n);
    bool main_seen = false;
    for (uint32_t k = 0; k < n; k++) {
        const ze_model_node_t *nd = &m->nodes[order[k]];
        ze_uuid_t u = label_uuid(r->source_uuid, "node", order[k]);
        ze_uuid_t doc_u;
        const char *s = json_string_value(json_object_get(json_array_get(ents, k), "uuid"));
        assert_non_null(s);
        assert_int_equal(ze_uuid_parse(s, strlen(s), &doc_u), ZE_OK);
        assert_true(ze_uuid_eq(doc_u, u));
        ze_entity_t e = find_entity(l->w, u);
        assert_false(ze_entity_is_null(e));

        const ze_transform_t *t = ze_get(l->w, e, ze_transform_t);
        assert_non_null(t);
        assert_memory_equal(&t->position, &nd->translation, sizeof t->position);
        assert_memory_equal(&t->rotation, &nd->rotation, sizeof t->rotation);
        assert_memory_equal(&t->scale, &nd->scale, sizeof t->scale);

        const ze_parent_t *p = ze_get(l->w, e, ze_parent_t);
        if (nd->parent < 0) {
            assert_null(p);
        } else {
            assert_non_null(p);
            ze_uuid_t pu = entity_uuid(l->w, p->parent);
            assert_true(ze_uuid_eq(pu, label_uuid(r->source_uuid, "node", (uint32_t)nd->parent)));
        }

        const ze_mesh_t *mesh = ze_get(l->w, e, ze_mesh_t);
        ze_uuid_t mu = nd->mesh >= 0 ? label_uuid(r->source_uuid, "mesh", (uint32_t)nd->mesh)
                                     : (ze_uuid_t){{0}};
        if (nd->mesh >= 0 && has_artifact(r, mu, ZE_ASSET_TYPE_MESH)) {
            assert_non_null(mesh);
            assert_true(ze_uuid_eq(mesh->mesh, mu));
        } else {
            assert_null(mesh);
        }

        const ze_camera_t *cam = ze_get(l->w, e, ze_camera_t);
        if (nd->camera >= 0) {
            const ze_model_camera_t *mc = &m->cameras[nd->camera];
            assert_non_null(cam);
            assert_int_equal(cam->is_main, !main_seen);
            main_seen = true;
            assert_true(cam->near_plane == mc->znear);
            if (mc->type == ZE_CAMERA_PERSPECTIVE) {
                assert_true(cam->fov_y == mc->yfov);
                assert_true(cam->aspect == mc->aspect_ratio);
                assert_true(mc->zfar == 0 ? isinf(cam->far_plane) : cam->far_plane == mc->zfar);
            }
        } else {
            assert_null(cam);
        }

        const ze_name_t *name = ze_get(l->w, e, ze_name_t);
        if (nd->name && nd->name[0]) {
            assert_non_null(name);
            assert_true(strncmp(name->value, nd->name, ZE_NAME_MAX - 1) == 0 ||
                        strlen(nd->name) >= ZE_NAME_MAX - 1);
        } else {
            assert_null(name);
        }
    }
    ze_free(A(), order, (m->node_count + 1u) * sizeof(uint32_t));
}

static void scene_path(const ze_cook_result_t *r, int scene, const char *out, char *p, size_t cap)
{
    assert_true(scene >= 0);
    snprintf(p, cap, "%s/%s", out, r->artifacts[scene]);
}

static void assert_same_file(const char *a, const char *b)
{
    blob_t x = read_file(a), y = read_file(b);
    assert_int_equal(x.size, y.size);
    assert_memory_equal(x.data, y.data, x.size);
    blob_free(&x);
    blob_free(&y);
}

/* Every valid glTF/GLB model, OBJ and FBX of the corpus: sub-assets,
 * dependencies, and the scene against the imported model; cooked twice,
 * the scene's bytes are the same. */
static void test_corpus_scenes(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries"), *e;
    size_t i, gltf = 0, assimp = 0;
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        const char *rel = json_string_value(json_object_get(e, "path"));
        bool is_gltf = !strcmp(fmt, "gltf") || !strcmp(fmt, "glb");
        bool is_assimp = !strcmp(fmt, "obj") || !strcmp(fmt, "fbx");
        if (strcmp(kind, "valid") != 0 || (!is_gltf && !is_assimp))
            continue;
        char src[1024], o1[256], o2[256];
        snprintf(src, sizeof src, "%s/%s", ASSETS, rel);
        snprintf(o1, sizeof o1, "%s/m%zu-1", g_tmp, i);
        snprintf(o2, sizeof o2, "%s/m%zu-2", g_tmp, i);
        ze_cook_result_t r1, r2;
        cook_with(src, o1, k_light, &r1);
        cook_with(src, o2, k_light, &r2);
        int scene = check_sub_assets(&r1, o1);
        assert_int_equal(r1.artifact_count, r1.cooked.meshes + r1.cooked.materials +
                                                r1.cooked.textures + (r1.source.nodes ? 1 : 0));
        assert_int_equal(r2.artifact_count, r1.artifact_count);
        if (is_gltf)
            check_dependencies(&r1, e);
        if (r1.source.nodes) {
            char p1[1400], p2[1400];
            scene_path(&r1, scene, o1, p1, sizeof p1);
            scene_path(&r2, scene, o2, p2, sizeof p2);
            assert_same_file(p1, p2);
            ze_model_t *m = NULL;
            ze__asset_error_t err;
            if (is_gltf)
                assert_int_equal(ze__asset_import_gltf_file(src, &(ze_gltf_desc_t){0}, &m, &err),
                                 ZE_OK);
            loaded_t l;
            load_scene(p1, &l);
            if (m) {
                check_scene_against_model(&r1, m, &l);
                ze_asset_model_destroy(m);
            } else {
                /* assimp: one root, every node under it */
                assert_int_equal(l.count, r1.source.nodes);
            }
            unload_scene(&l);
        } else {
            assert_int_equal(scene, -1);
        }
        ze_asset_cook_result_release(&r1);
        ze_asset_cook_result_release(&r2);
        if (is_gltf)
            gltf++;
        else
            assimp++;
    }
    print_message("scenes of %zu glTF and %zu assimp models checked\n", gltf, assimp);
    assert_true(gltf >= 15);
    assert_int_equal(assimp, 4);
}

/* MultiUVTest: scene roots [2, 1], node 1 the parent of camera node 0. */
static void test_gltf_hierarchy_and_camera(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    const char *src = ASSETS "/gltf/MultiUVTest/glTF/MultiUVTest.gltf";
    char out[256], p[1400];
    snprintf(out, sizeof out, "%s/multiuv", g_tmp);
    ze_cook_result_t r;
    cook(src, out, &r);
    int scene = check_sub_assets(&r, out);
    assert_string_equal(r.artifacts[scene], "MultiUVTest.scene.json");
    assert_int_equal(r.dependency_count, 3);
    assert_string_equal(r.dependencies[0], "MultiUVTest.bin");
    assert_string_equal(r.dependencies[1], "uv0.png");
    assert_string_equal(r.dependencies[2], "uv1.png");
    scene_path(&r, scene, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    assert_int_equal(l.count, 3);
    ze_uuid_t n0 = label_uuid(r.source_uuid, "node", 0), n1 = label_uuid(r.source_uuid, "node", 1),
              n2 = label_uuid(r.source_uuid, "node", 2);
    /* depth-first from the roots in the scene's order: 2, 1, 0 */
    ze_entity_t e2 = ze_entity_from_index(l.w, 0), e1 = ze_entity_from_index(l.w, 1),
                e0 = ze_entity_from_index(l.w, 2);
    assert_true(ze_uuid_eq(entity_uuid(l.w, e2), n2));
    assert_true(ze_uuid_eq(entity_uuid(l.w, e1), n1));
    assert_true(ze_uuid_eq(entity_uuid(l.w, e0), n0));
    const ze_parent_t *par = ze_get(l.w, e0, ze_parent_t);
    assert_non_null(par);
    assert_true(ze_entity_eq(par->parent, e1));
    assert_null(ze_get(l.w, e1, ze_parent_t));
    assert_null(ze_get(l.w, e2, ze_parent_t));
    const ze_mesh_t *mesh = ze_get(l.w, e2, ze_mesh_t);
    assert_non_null(mesh);
    assert_true(ze_uuid_eq(mesh->mesh, label_uuid(r.source_uuid, "mesh", 0)));
    assert_true(has_artifact(&r, mesh->mesh, ZE_ASSET_TYPE_MESH));
    const ze_camera_t *cam = ze_get(l.w, e0, ze_camera_t);
    assert_non_null(cam);
    assert_true(cam->is_main);
    assert_true(fabsf(cam->fov_y - 0.50338f) < 1e-5f);
    assert_true(fabsf(cam->aspect - 16.0f / 9.0f) < 1e-5f);
    assert_true(cam->near_plane == 0.1f && cam->far_plane == 100.0f);
    assert_string_equal(ze_get(l.w, e0, ze_name_t)->value, "Correction_Camera");
    assert_string_equal(ze_get(l.w, e1, ze_name_t)->value, "Camera");
    const ze_transform_t *t = ze_get(l.w, e1, ze_transform_t);
    assert_true(fabsf(t->position.x - 7.481131553649902f) == 0.0f);
    unload_scene(&l);
    ze_asset_cook_result_release(&r);
}

/* Cameras: a perspective camera (main) and an orthographic one. */
static void test_gltf_two_cameras(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char out[256], p[1400];
    snprintf(out, sizeof out, "%s/cameras", g_tmp);
    ze_cook_result_t r;
    cook(ASSETS "/gltf/Cameras/glTF/Cameras.gltf", out, &r);
    int scene = check_sub_assets(&r, out);
    scene_path(&r, scene, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    assert_int_equal(l.count, 3);
    assert_int_equal(ze_component_population(l.w, ZE_ID(ze_camera_t)), 2);
    const ze_camera_t *c1 =
        ze_get(l.w, find_entity(l.w, label_uuid(r.source_uuid, "node", 1)), ze_camera_t);
    const ze_camera_t *c2 =
        ze_get(l.w, find_entity(l.w, label_uuid(r.source_uuid, "node", 2)), ze_camera_t);
    assert_non_null(c1);
    assert_non_null(c2);
    assert_true(c1->is_main);
    assert_false(c2->is_main);
    assert_true(c1->fov_y == 0.7f && c1->aspect == 1.0f && c1->far_plane == 100.0f);
    assert_true(c2->aspect == 1.0f && c2->near_plane == 0.01f);
    unload_scene(&l);
    ze_asset_cook_result_release(&r);
}

/* Box.gltf: a root with a matrix over the mesh node; Box0.bin a dependency. */
static void test_gltf_box_matrix_parent(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char out[256], p[1400];
    snprintf(out, sizeof out, "%s/box", g_tmp);
    ze_cook_result_t r;
    cook(ASSETS "/gltf/Box/glTF/Box.gltf", out, &r);
    assert_int_equal(r.artifact_count, 3);
    assert_string_equal(r.artifacts[2], "Box.scene.json");
    assert_int_equal(r.sub_asset_types[2], ZE_ASSET_TYPE_SCENE);
    assert_int_equal(r.dependency_count, 1);
    assert_string_equal(r.dependencies[0], "Box0.bin");
    int scene = check_sub_assets(&r, out);
    scene_path(&r, scene, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    assert_int_equal(l.count, 2);
    ze_entity_t root = find_entity(l.w, label_uuid(r.source_uuid, "node", 0));
    ze_entity_t child = find_entity(l.w, label_uuid(r.source_uuid, "node", 1));
    assert_true(ze_entity_eq(ze_get(l.w, child, ze_parent_t)->parent, root));
    /* the matrix is a rotation of -90 degrees about x */
    const ze_transform_t *t = ze_get(l.w, root, ze_transform_t);
    assert_true(fabsf(t->rotation.x + 0.70710678f) < 1e-5f &&
                fabsf(t->rotation.w - 0.70710678f) < 1e-5f);
    assert_true(
        ze_uuid_eq(ze_get(l.w, child, ze_mesh_t)->mesh, label_uuid(r.source_uuid, "mesh", 0)));
    assert_null(ze_get(l.w, root, ze_mesh_t));
    unload_scene(&l);
    ze_asset_cook_result_release(&r);
}

/* spider.obj: the .mtl and the four textures are dependencies; every
 * cooked mesh hangs under the one root. */
static void test_obj_dependencies_and_scene(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char out[256], p[1400];
    snprintf(out, sizeof out, "%s/spider", g_tmp);
    ze_cook_result_t r;
    cook(ASSETS "/obj/spider.obj", out, &r);
    assert_string_equal(r.importer, "assimp");
    static const char *const deps[] = {"SpiderTex.jpg", "drkwood2.jpg", "engineflare1.jpg",
                                       "spider.mtl", "wal67ar_small.jpg"};
    assert_int_equal(r.dependency_count, ZE_COUNTOF(deps));
    for (size_t k = 0; k < ZE_COUNTOF(deps); k++)
        assert_string_equal(r.dependencies[k], deps[k]);
    int scene = check_sub_assets(&r, out);
    scene_path(&r, scene, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    assert_int_equal(l.count, r.source.nodes);
    ze_entity_t root = ze_entity_from_index(l.w, 0);
    assert_true(ze_uuid_eq(entity_uuid(l.w, root), label_uuid(r.source_uuid, "node", 0)));
    assert_null(ze_get(l.w, root, ze_parent_t));
    uint32_t meshes = 0;
    for (uint32_t k = 1; k < l.count; k++) {
        ze_entity_t e = ze_entity_from_index(l.w, k);
        const ze_parent_t *par = ze_get(l.w, e, ze_parent_t);
        assert_non_null(par);
        assert_true(ze_entity_eq(par->parent, root));
        const ze_mesh_t *m = ze_get(l.w, e, ze_mesh_t);
        if (m) {
            assert_true(has_artifact(&r, m->mesh, ZE_ASSET_TYPE_MESH));
            meshes++;
        }
    }
    assert_true(meshes > 0 && meshes <= r.cooked.meshes);
    unload_scene(&l);
    ze_asset_cook_result_release(&r);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

/* One OBJ object with two materials: assimp gives one node two meshes.
 * The node keeps its first and gets a child (identity transform, its
 * name, numbered after the source's nodes) for the second, so the scene
 * holds both. */
static void test_assimp_node_with_several_meshes(void **state)
{
    (void)state;
    char dir[256], src[300], out[300], p[1400];
    snprintf(dir, sizeof dir, "%s/twomat", g_tmp);
    mkdir(dir, 0755);
    snprintf(src, sizeof src, "%s/two.mtl", dir);
    write_text(src, "newmtl A\nKd 1 0 0\nnewmtl B\nKd 0 0 1\n");
    snprintf(src, sizeof src, "%s/two.obj", dir);
    write_text(src, "mtllib two.mtl\no Both\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                    "v 0 0 1\nv 1 0 1\nv 1 1 1\n"
                    "usemtl A\nf 1 2 3\nf 1 3 4\nusemtl B\nf 5 6 7\n");
    snprintf(out, sizeof out, "%s/out", dir);
    ze_cook_result_t r;
    cook(src, out, &r);
    assert_int_equal(r.cooked.meshes, 2);
    ze_model_t *m = NULL;
    ze__asset_error_t err = {{0}};
    assert_int_equal(ze__assimp_import(src, A(), 0, &m, &err), ZE_OK);
    assert_true(m->node_count > r.source.nodes); /* the extra child */
    int scene = check_sub_assets(&r, out);
    scene_path(&r, scene, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    check_scene_against_model(&r, m, &l);
    /* both meshes are in the scene */
    bool seen[2] = {false, false};
    for (uint32_t k = 0; k < l.count; k++) {
        const ze_mesh_t *me = ze_get(l.w, ze_entity_from_index(l.w, k), ze_mesh_t);
        for (uint32_t i = 0; me && i < 2; i++)
            seen[i] |= ze_uuid_eq(me->mesh, label_uuid(r.source_uuid, "mesh", i));
    }
    assert_true(seen[0] && seen[1]);
    unload_scene(&l);
    ze_asset_model_destroy(m);
    ze_asset_cook_result_release(&r);
}

/* A synthetic glTF without scenes: every root in index order; a long
 * UTF-8 name cut on a character boundary, escapes, an unnamed node, an
 * infinite far plane and no aspect ratio; no meshes, so no dependency. */
static void test_gltf_without_scenes(void **state)
{
    (void)state;
    char src[256], out[256], p[1400];
    snprintf(src, sizeof src, "%s/synthetic.gltf", g_tmp);
    snprintf(out, sizeof out, "%s/synthetic", g_tmp);
    char long_name[256] = "";
    for (int k = 0; k < 100; k++)
        strcat(long_name, "\u00e9"); /* 100 x U+00E9: 200 bytes of UTF-8 */
    FILE *f = fopen(src, "wb");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\": {\"version\": \"2.0\"},"
            " \"cameras\": [{\"type\": \"perspective\","
            " \"perspective\": {\"yfov\": 1.0, \"znear\": 0.5}}],"
            " \"nodes\": [{\"name\": \"%s\", \"children\": [1]},"
            " {\"name\": \"child \\\"q\\\"\\n\", \"camera\": 0,"
            " \"translation\": [1e-7, -0.0, 3.4028235e38]},"
            " {\"rotation\": [0, 0.7071068, 0, 0.7071068]}]}",
            long_name);
    fclose(f);
    ze_cook_result_t r;
    cook(src, out, &r);
    assert_int_equal(r.artifact_count, 1);
    assert_string_equal(r.artifacts[0], "synthetic.scene.json");
    assert_int_equal(check_sub_assets(&r, out), 0);
    assert_int_equal(r.dependency_count, 0);
    scene_path(&r, 0, out, p, sizeof p);
    loaded_t l;
    load_scene(p, &l);
    assert_int_equal(l.count, 3);
    ze_entity_t e0 = ze_entity_from_index(l.w, 0), e1 = ze_entity_from_index(l.w, 1),
                e2 = ze_entity_from_index(l.w, 2);
    assert_true(ze_uuid_eq(entity_uuid(l.w, e2), label_uuid(r.source_uuid, "node", 2)));
    const ze_name_t *n0 = ze_get(l.w, e0, ze_name_t);
    assert_non_null(n0);
    assert_int_equal(strlen(n0->value), 126); /* 63 whole characters */
    assert_memory_equal(n0->value, "\xc3\xa9\xc3\xa9", 4);
    assert_string_equal(ze_get(l.w, e1, ze_name_t)->value, "child \"q\"\n");
    assert_null(ze_get(l.w, e2, ze_name_t));
    assert_true(ze_entity_eq(ze_get(l.w, e1, ze_parent_t)->parent, e0));
    assert_null(ze_get(l.w, e2, ze_parent_t));
    const ze_camera_t *cam = ze_get(l.w, e1, ze_camera_t);
    assert_non_null(cam);
    assert_true(cam->is_main && cam->fov_y == 1.0f && cam->near_plane == 0.5f);
    assert_true(isinf(cam->far_plane) && cam->far_plane > 0 && cam->aspect == 0.0f);
    const ze_transform_t *t = ze_get(l.w, e1, ze_transform_t);
    assert_true(t->position.x == 1e-7f && signbit(t->position.y) && t->position.z == FLT_MAX);
    unload_scene(&l);
    ze_asset_cook_result_release(&r);
}

/* Images and .hdr: one sub-asset, no scene, no dependencies. */
static void test_image_sub_asset(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries"), *e;
    size_t i, seen[2] = {0, 0};
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        bool hdr = strcmp(fmt, "radiance_hdr") == 0;
        if ((!hdr && strcmp(fmt, "png") != 0 && strcmp(fmt, "jpeg") != 0) || seen[hdr])
            continue; /* one of each kind: test_texture cooks them all */
        char src[1024], out[256];
        snprintf(src, sizeof src, "%s/%s", ASSETS, json_string_value(json_object_get(e, "path")));
        snprintf(out, sizeof out, "%s/img%zu", g_tmp, i);
        ze_cook_result_t r;
        cook(src, out, &r);
        assert_int_equal(r.artifact_count, 1);
        assert_int_equal(check_sub_assets(&r, out), -1);
        assert_int_equal(r.sub_asset_types[0], hdr ? ZE_ASSET_TYPE_ENVMAP : ZE_ASSET_TYPE_TEXTURE);
        assert_int_equal(r.dependency_count, 0);
        assert_non_null(r.dependencies);
        ze_asset_cook_result_release(&r);
        assert_null(r.sub_asset_uuids);
        seen[hdr]++;
    }
    assert_int_equal(seen[0], 1);
    assert_int_equal(seen[1], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asset_types),
        cmocka_unit_test(test_corpus_scenes),
        cmocka_unit_test(test_gltf_hierarchy_and_camera),
        cmocka_unit_test(test_gltf_two_cameras),
        cmocka_unit_test(test_gltf_box_matrix_parent),
        cmocka_unit_test(test_obj_dependencies_and_scene),
        cmocka_unit_test(test_assimp_node_with_several_meshes),
        cmocka_unit_test(test_gltf_without_scenes),
        cmocka_unit_test(test_image_sub_asset),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
