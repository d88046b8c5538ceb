/* The AssetRegistry on its own: entries and paths, the state machine (legal
 * and refused transitions, generations, reasons), dependency edges with
 * cycle refusal, transitive stale marking, sub-assets, listeners. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "zengine/asset.h"

static ze_uuid_t id(int n)
{
    char s[16];
    int k = snprintf(s, sizeof s, "id/%d", n);
    return ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, s, (size_t)k);
}

static ze_asset_registry_t *make(void)
{
    ze_asset_registry_t *reg = NULL;
    assert_int_equal(ze_asset_registry_create(&(ze_asset_registry_desc_t){0}, &reg), ZE_OK);
    return reg;
}

static ze_asset_state state_of(ze_asset_registry_t *reg, ze_uuid_t u)
{
    ze_asset_info_t info;
    assert_true(ze_asset_registry_get(reg, u, &info));
    return info.state;
}

static void test_put_get_find(void **state)
{
    (void)state;
    ze_asset_registry_t *reg = make();
    ze_uuid_t nil = {{0}};
    assert_int_equal(ze_asset_registry_put(reg, nil, ZE_ASSET_TYPE_SOURCE, nil, "/a.gltf"),
                     ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_asset_registry_put(reg, id(1), ZE_ASSET_TYPE_UNKNOWN, nil, "/a.gltf"),
                     ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_asset_registry_put(reg, id(1), ZE_ASSET_TYPE_SOURCE, nil, "/a.gltf"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(2), ZE_ASSET_TYPE_MESH, id(1), "/c/a.zemesh"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_count(reg), 2);
    ze_asset_info_t info;
    assert_true(ze_asset_registry_get(reg, id(2), &info));
    assert_int_equal(info.type, ZE_ASSET_TYPE_MESH);
    assert_int_equal(info.state, ZE_ASSET_STATE_UNKNOWN);
    assert_true(ze_uuid_eq(info.source, id(1)));
    assert_string_equal(info.path, "/c/a.zemesh");
    assert_string_equal(info.reason, "");
    assert_true(ze_asset_registry_get(reg, id(1), &info));
    assert_true(ze_uuid_eq(info.source, id(1))); /* a source is its own source */
    ze_uuid_t u;
    assert_true(ze_asset_registry_find_path(reg, "/a.gltf", &u));
    assert_true(ze_uuid_eq(u, id(1)));
    assert_false(ze_asset_registry_find_path(reg, "/b.gltf", &u));
    /* put again: a rename keeps the state */
    assert_int_equal(ze_asset_registry_set_state(reg, id(1), ZE_ASSET_STATE_QUEUED, NULL), ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(1), ZE_ASSET_TYPE_SOURCE, nil, "/b.gltf"),
                     ZE_OK);
    assert_false(ze_asset_registry_find_path(reg, "/a.gltf", &u));
    assert_true(ze_asset_registry_find_path(reg, "/b.gltf", &u));
    assert_int_equal(state_of(reg, id(1)), ZE_ASSET_STATE_QUEUED);
    assert_int_equal(ze_asset_registry_count(reg), 2);
    assert_int_equal(ze_asset_registry_remove(reg, id(1)), ZE_OK);
    assert_int_equal(ze_asset_registry_remove(reg, id(1)), ZE_ERR_NOT_FOUND);
    assert_false(ze_asset_registry_get(reg, id(1), NULL));
    assert_false(ze_asset_registry_find_path(reg, "/b.gltf", &u));
    assert_int_equal(ze_asset_registry_count(reg), 1);
    ze_asset_registry_destroy(reg);
}

static void test_state_machine(void **state)
{
    (void)state;
    ze_asset_registry_t *reg = make();
    ze_uuid_t nil = {{0}}, s = id(1);
    assert_int_equal(ze_asset_registry_put(reg, s, ZE_ASSET_TYPE_SOURCE, nil, "/s.png"), ZE_OK);
    /* UNKNOWN -> IMPORTING skips the queue: refused */
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_IMPORTING, NULL),
                     ZE_ERR_STATE);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_QUEUED, NULL), ZE_OK);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_IMPORTING, NULL), ZE_OK);
    /* IMPORTING -> QUEUED: refused (the coordinator re-runs instead) */
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_QUEUED, NULL),
                     ZE_ERR_STATE);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_FAILED, "boom: bad"),
                     ZE_OK);
    ze_asset_info_t info;
    ze_asset_registry_get(reg, s, &info);
    assert_string_equal(info.reason, "boom: bad");
    assert_int_equal(info.generation, 0);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_QUEUED, NULL), ZE_OK);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_IMPORTING, NULL), ZE_OK);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_LOADED, NULL), ZE_OK);
    ze_asset_registry_get(reg, s, &info);
    assert_string_equal(info.reason, "");
    assert_int_equal(info.generation, 1);
    /* STALE -> LOADED (a failed re-import going back) keeps the generation */
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_STALE, NULL), ZE_OK);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_LOADED, NULL), ZE_OK);
    ze_asset_registry_get(reg, s, &info);
    assert_int_equal(info.generation, 1);
    assert_int_equal(ze_asset_registry_set_state(reg, s, ZE_ASSET_STATE_COUNT, NULL),
                     ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_asset_registry_set_state(reg, id(9), ZE_ASSET_STATE_QUEUED, NULL),
                     ZE_ERR_NOT_FOUND);
    assert_string_equal(ze_asset_state_name(ZE_ASSET_STATE_STALE), "stale");
    assert_string_equal(ze_asset_type_name(ZE_ASSET_TYPE_MATERIAL), "material");
    ze_asset_registry_destroy(reg);
}

/* bin <- gltf <- {mesh, material}; tex.png <- material; mesh -> scene */
static void build_graph(ze_asset_registry_t *reg)
{
    ze_uuid_t nil = {{0}};
    assert_int_equal(ze_asset_registry_put(reg, id(1), ZE_ASSET_TYPE_FILE, nil, "/m.bin"), ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(2), ZE_ASSET_TYPE_SOURCE, nil, "/m.gltf"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(3), ZE_ASSET_TYPE_MESH, id(2), "/c/m.zemesh"),
                     ZE_OK);
    assert_int_equal(
        ze_asset_registry_put(reg, id(4), ZE_ASSET_TYPE_MATERIAL, id(2), "/c/m.zematerial"), ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(5), ZE_ASSET_TYPE_SOURCE, nil, "/t.png"), ZE_OK);
    assert_int_equal(
        ze_asset_registry_put(reg, id(6), ZE_ASSET_TYPE_SCENE, id(2), "/c/m.scene.json"), ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, id(7), ZE_ASSET_TYPE_SOURCE, nil, "/other.png"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(2), id(1)), ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(3), id(2)), ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(4), id(2)), ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(4), id(5)), ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(6), id(3)), ZE_OK);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(6), id(3)), ZE_OK); /* idempotent */
}

static void test_dependents_and_cycles(void **state)
{
    (void)state;
    ze_asset_registry_t *reg = make();
    build_graph(reg);
    ze_uuid_t out[8];
    assert_int_equal(ze_asset_registry_dependents(reg, id(2), out, 8), 2);
    assert_true(ze_uuid_eq(out[0], id(3)));
    assert_true(ze_uuid_eq(out[1], id(4)));
    assert_int_equal(ze_asset_registry_dependents(reg, id(3), out, 8), 1);
    assert_int_equal(ze_asset_registry_dependents(reg, id(7), out, 8), 0);
    /* closing a loop anywhere along the chain is refused */
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(1), id(6)), ZE_ERR_CYCLE);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(2), id(3)), ZE_ERR_CYCLE);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(2), id(2)), ZE_ERR_CYCLE);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(2), id(99)), ZE_ERR_NOT_FOUND);
    /* sub-assets: by source, in insertion order, without files or other sources */
    assert_int_equal(ze_asset_registry_sub_assets(reg, id(2), out, 8), 3);
    assert_true(ze_uuid_eq(out[0], id(3)));
    assert_true(ze_uuid_eq(out[2], id(6)));
    /* clearing a dependent's edges */
    ze_asset_registry_clear_dependencies(reg, id(4));
    assert_int_equal(ze_asset_registry_dependents(reg, id(5), out, 8), 0);
    assert_int_equal(ze_asset_registry_dependents(reg, id(2), out, 8), 1);
    /* removing an entry drops its edges both ways */
    assert_int_equal(ze_asset_registry_remove(reg, id(3)), ZE_OK);
    assert_int_equal(ze_asset_registry_dependents(reg, id(2), out, 8), 0);
    assert_int_equal(ze_asset_registry_add_dependency(reg, id(1), id(6)), ZE_OK); /* no loop now */
    ze_asset_registry_destroy(reg);
}

typedef struct rec_t {
    ze_uuid_t uuid[64];
    ze_asset_state from[64], to[64];
    uint32_t n;
} rec_t;

static void on_change(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    rec_t *r = user;
    if (r->n < 64) {
        r->uuid[r->n] = info->uuid;
        r->from[r->n] = old;
        r->to[r->n] = info->state;
        r->n++;
    }
}

static void test_mark_stale_is_transitive(void **state)
{
    (void)state;
    ze_asset_registry_t *reg = make();
    build_graph(reg);
    rec_t rec = {0};
    assert_int_equal(ze_asset_registry_listen(reg, on_change, &rec), ZE_OK);
    /* the .bin changed: the glTF, its mesh and material and the scene built
       from the mesh go stale, the unrelated texture does not */
    assert_int_equal(ze_asset_registry_mark_stale(reg, id(1)), 5);
    assert_int_equal(rec.n, 5);
    assert_true(ze_uuid_eq(rec.uuid[0], id(1)));
    assert_true(ze_uuid_eq(rec.uuid[1], id(2))); /* breadth first: sources before builds */
    assert_true(ze_uuid_eq(rec.uuid[4], id(6)));
    for (uint32_t i = 0; i < rec.n; i++)
        assert_int_equal(rec.to[i], ZE_ASSET_STATE_STALE);
    assert_int_equal(state_of(reg, id(5)), ZE_ASSET_STATE_UNKNOWN);
    assert_int_equal(state_of(reg, id(7)), ZE_ASSET_STATE_UNKNOWN);
    /* again: nothing new is marked */
    assert_int_equal(ze_asset_registry_mark_stale(reg, id(1)), 0);
    /* the texture changed: only the material (and the texture) */
    assert_int_equal(ze_asset_registry_mark_stale(reg, id(5)), 1);
    ze_asset_registry_unlisten(reg, on_change, &rec);
    uint32_t before = rec.n;
    assert_int_equal(ze_asset_registry_set_state(reg, id(7), ZE_ASSET_STATE_QUEUED, NULL), ZE_OK);
    assert_int_equal(rec.n, before);
    ze_asset_registry_destroy(reg);
}

static bool count_fn(void *user, const ze_asset_info_t *info)
{
    (void)info;
    return ++*(uint32_t *)user < 3;
}

static void test_foreach_and_limits(void **state)
{
    (void)state;
    ze_asset_registry_t *reg = make();
    build_graph(reg);
    uint32_t n = 0;
    ze_asset_registry_foreach(reg, count_fn, &n);
    assert_int_equal(n, 3); /* stopped by the callback */
    rec_t rec = {0};
    for (int i = 0; i < ZE_ASSET_MAX_LISTENERS; i++)
        assert_int_equal(ze_asset_registry_listen(reg, on_change, &rec), ZE_OK);
    assert_int_equal(ze_asset_registry_listen(reg, on_change, &rec), ZE_ERR_LIMIT);
    /* many entries: paths stay findable */
    ze_uuid_t nil = {{0}};
    for (int i = 100; i < 2100; i++) {
        char p[32];
        snprintf(p, sizeof p, "/many/%d.png", i);
        assert_int_equal(ze_asset_registry_put(reg, id(i), ZE_ASSET_TYPE_SOURCE, nil, p), ZE_OK);
    }
    for (int i = 100; i < 2100; i += 97) {
        char p[32];
        snprintf(p, sizeof p, "/many/%d.png", i);
        ze_uuid_t u;
        assert_true(ze_asset_registry_find_path(reg, p, &u));
        assert_true(ze_uuid_eq(u, id(i)));
    }
    assert_int_equal(ze_asset_registry_count(reg), 7 + 2000);
    ze_asset_registry_destroy(reg);
}

/* References by path: the grammar, resolution through the registry (the
 * sub-asset need not be cooked yet), and the reverse from artifact names. */
static void test_references_by_path(void **state)
{
    (void)state;
    ze_path_t p;
    char sub[ZE_ASSET_SUB_NAME_MAX];
    static const char *const good[][3] = {
        {"/models/crate.gltf#mesh/0", "/models/crate.gltf", "mesh/0"},
        {"models/crate.gltf#material/12", "/models/crate.gltf", "material/12"},
        {"/a/./b.glb#texture/3", "/a/b.glb", "texture/3"},
        {"/sky.hdr#envmap/0", "/sky.hdr", "envmap/0"},
        {"/m.gltf#scene/0", "/m.gltf", "scene/0"},
        {"/m.gltf", "/m.gltf", ""},
    };
    for (size_t i = 0; i < ZE_COUNTOF(good); i++) {
        assert_int_equal(ze_asset_ref_parse(good[i][0], strlen(good[i][0]), &p, sub), ZE_OK);
        assert_string_equal(p.str, good[i][1]);
        assert_string_equal(sub, good[i][2]);
    }
    static const char *const bad[] = {
        "",
        "#mesh/0",
        "/m.gltf#",
        "/m.gltf#mesh0",
        "/m.gltf#mesh/01",
        "/m.gltf#mesh/",
        "/m.gltf#mesh/x",
        "/m.gltf#node/0",
        "/m.gltf#scene/1",
        "/m.gltf#envmap/2",
        "/../m.gltf#mesh/0",
        "/m.gltf#mesh/4294967296",
        "/m.gltf#mesh/0#mesh/1",
    };
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++)
        if (ze_asset_ref_parse(bad[i], strlen(bad[i]), &p, sub) != ZE_ERR_PARSE) {
            print_error("'%s' parsed\n", bad[i]);
            fail();
        }

    ze_asset_registry_t *reg = make();
    ze_uuid_t src = id(1), u;
    assert_int_equal(ze_asset_registry_resolve(reg, "/m/crate.gltf#mesh/0", 20, &u),
                     ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_asset_registry_put(reg, src, ZE_ASSET_TYPE_SOURCE, src, "/m/crate.gltf"),
                     ZE_OK);
    /* not cooked: the derived uuid all the same */
    const char *ref = "/m/crate.gltf#mesh/0";
    assert_int_equal(ze_asset_registry_resolve(reg, ref, strlen(ref), &u), ZE_OK);
    assert_true(ze_uuid_eq(u, ze_uuid_v5(src, "mesh/0", 6)));
    assert_true(ze_uuid_eq(u, ze_asset_sub_asset_uuid(src, "mesh/0")));
    assert_int_equal(ze_asset_registry_resolve(reg, "m/crate.gltf", 12, &u), ZE_OK);
    assert_true(ze_uuid_eq(u, src));
    assert_int_equal(ze_asset_registry_resolve(reg, "/m/crate.gltf#mesh0", 19, &u), ZE_ERR_PARSE);

    /* The reverse needs the registry to know the sub-asset (cooked). */
    char buf[ZE_ASSET_REF_MAX];
    ze_uuid_t mesh = ze_asset_sub_asset_uuid(src, "mesh/0");
    assert_false(ze_asset_registry_ref(reg, mesh, buf, sizeof buf));
    assert_string_equal(buf, "");
    ze_uuid_t tex = ze_asset_sub_asset_uuid(src, "texture/11");
    ze_uuid_t scene = ze_asset_sub_asset_uuid(src, "scene/0");
    assert_int_equal(ze_asset_registry_put(reg, mesh, ZE_ASSET_TYPE_MESH, src,
                                           "/cache/artifacts/x/1/crate.v2.mesh0.zemesh"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, tex, ZE_ASSET_TYPE_TEXTURE, src,
                                           "/cache/artifacts/x/1/crate.texture11.zetex"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, scene, ZE_ASSET_TYPE_SCENE, src,
                                           "/cache/artifacts/x/1/crate.scene.json"),
                     ZE_OK);
    assert_true(ze_asset_registry_ref(reg, mesh, buf, sizeof buf));
    assert_string_equal(buf, "/m/crate.gltf#mesh/0");
    assert_true(ze_asset_registry_ref(reg, tex, buf, sizeof buf));
    assert_string_equal(buf, "/m/crate.gltf#texture/11");
    assert_true(ze_asset_registry_ref(reg, scene, buf, sizeof buf));
    assert_string_equal(buf, "/m/crate.gltf#scene/0");
    assert_true(ze_asset_registry_ref(reg, src, buf, sizeof buf));
    assert_string_equal(buf, "/m/crate.gltf");
    assert_false(ze_asset_registry_ref(reg, mesh, buf, 8)); /* does not fit */
    /* an artifact whose name does not derive its uuid is not named */
    ze_uuid_t odd = id(77);
    assert_int_equal(ze_asset_registry_put(reg, odd, ZE_ASSET_TYPE_MESH, src,
                                           "/cache/artifacts/x/1/crate.mesh5.zemesh"),
                     ZE_OK);
    assert_false(ze_asset_registry_ref(reg, odd, buf, sizeof buf));
    /* a file other sources read, at a path that is also a source */
    ze_uuid_t file = id(2), png = id(3);
    assert_int_equal(ze_asset_registry_put(reg, file, ZE_ASSET_TYPE_FILE, file, "/m/crate.png"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_put(reg, png, ZE_ASSET_TYPE_SOURCE, png, "/m/crate.png"),
                     ZE_OK);
    assert_int_equal(ze_asset_registry_resolve(reg, "/m/crate.png#texture/0", 22, &u), ZE_OK);
    assert_true(ze_uuid_eq(u, ze_asset_sub_asset_uuid(png, "texture/0")));
    ze_asset_registry_destroy(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_find),
        cmocka_unit_test(test_state_machine),
        cmocka_unit_test(test_dependents_and_cycles),
        cmocka_unit_test(test_mark_stale_is_transitive),
        cmocka_unit_test(test_foreach_and_limits),
        cmocka_unit_test(test_references_by_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
