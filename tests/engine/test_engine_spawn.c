/* Spawning from code (issue "The first hour"): one ze_engine_spawn call in
 * a system (recorded into its commands, in a wave with another system)
 * spawns 1,000 crates from the model; under each root the hierarchy is the
 * model's, node for node (names, parent links, local transforms, mesh
 * references), as the glTF importer reads the model. A second call, once
 * the template is known, instantiates at the group's barrier (a later
 * group sees it in the same step). A prefab (a scene file used as a
 * template) spawns at once from on_initialized, under a parent. An asset
 * that cannot be spawned fails the run, reported once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "engine/test_engine_fixture.h"

enum { CRATES = 1000, LATE = 10, PAIRS = 3, MAX_INDEX = 16384 };

typedef struct spawn_t {
    ze_engine_t *e;
    ze_result first, second, pair;
    ze_entity_t holder;
    uint64_t second_frame;
    uint32_t cameras_before, cameras_after; /* FixedPost, the second spawn's step */
    bool checked_prefab;
    uint32_t pair_children_at_once;
    const char *fail_asset; /* a run that spawns what cannot be */
    pthread_t main_thread;
    bool staged; /* the spawner recorded into a staging buffer (a wave of two) */
} spawn_t;

static ze_transform_t crate_at(uint32_t i)
{
    ze_transform_t t = ze_transform_identity();
    t.position = (ze_vec3_t){(float)(i % 40) * 2.0f, 0.0f, (float)(i / 40) * -2.0f};
    t.scale = (ze_vec3_t){1.0f, 1.0f + (float)(i % 3), 1.0f};
    return t;
}

static void spawner(ze_world_t *w, const ze_tick_t *t)
{
    spawn_t *s = t->user;
    static ze_transform_t tr[CRATES];
    if (t->frame == 1) {
        s->staged = t->cmds != ze_world_commands(w);
        if (!pthread_equal(pthread_self(), s->main_thread))
            print_message("the spawner ran on a worker thread\n");
        for (uint32_t i = 0; i < CRATES; i++)
            tr[i] = crate_at(i);
        s->first = ze_engine_spawn(s->e, &(ze_spawn_desc_t){.asset = "/models/crate.gltf",
                                                            .count = CRATES,
                                                            .transforms = tr,
                                                            .cmds = t->cmds});
    } else if (t->frame == 4) {
        ze_transform_t up = ze_transform_identity();
        up.position.y = 50.0f;
        s->second_frame = t->frame;
        s->second = ze_engine_spawn(s->e, &(ze_spawn_desc_t){.asset = "models/crate.gltf",
                                                             .count = LATE,
                                                             .transform = &up,
                                                             .cmds = t->cmds});
    }
}

static void bystander(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
}

static void checker(ze_world_t *w, const ze_tick_t *t)
{
    spawn_t *s = t->user;
    if (s->second_frame && t->frame == s->second_frame) /* after the spawner's barrier */
        s->cameras_after = ze_component_population(w, ZE_ID(ze_camera_t));
    else if (t->frame == 3)
        s->cameras_before = ze_component_population(w, ZE_ID(ze_camera_t));
}

static const char k_pair[] =
    "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n"
    "{\"uuid\": \"70000000-0000-4000-8000-000000000001\", \"components\": {\"Name\": {\"value\": "
    "\"Base\"}, \"Transform\": {\"position\": [0, 0, 0], \"rotation\": [0, 0, 0, 1], \"scale\": "
    "[2, 2, 2]}}},\n"
    "{\"uuid\": \"70000000-0000-4000-8000-000000000002\", \"components\": {\"Name\": {\"value\": "
    "\"Top\"}, \"Parent\": {\"parent\": \"70000000-0000-4000-8000-000000000001\"}, "
    "\"Transform\": {\"position\": [0, 1, 0], \"rotation\": [0, 0, 0, 1], \"scale\": [1, 1, 1]}, "
    "\"Mesh\": {\"mesh\": \"/models/crate.gltf#mesh/0\"}}}\n]}\n";

static uint32_t children_of(ze_world_t *w, ze_entity_t parent, ze_entity_t *out, uint32_t max)
{
    uint32_t n = 0;
    ze_query_t q = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_parent_t)});
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_parent_t *p = ze_field(&it, ze_parent_t);
        for (uint32_t i = 0; i < it.count; i++)
            if (ze_entity_eq(p[i].parent, parent) && n < max)
                out[n++] = ze_iter_entity(&it, i);
    }
    return n;
}

static ze_result on_init(ze_engine_t *e, void *user)
{
    spawn_t *s = user;
    s->e = e;
    ze_world_t *w = ze_engine_world(e);
    if (s->fail_asset) {
        ze_result r = ze_engine_spawn(e, &(ze_spawn_desc_t){.asset = s->fail_asset});
        ze_result r2 = ze_engine_spawn(e, &(ze_spawn_desc_t){.asset = s->fail_asset, .count = 2});
        return r == ZE_OK && r2 == ZE_OK ? ZE_OK : ZE_ERR_INTERNAL;
    }
    ze_mask_t cam = ZE_MASK(ze_camera_t), light = ZE_MASK(ze_light_t);
    if (!ze_system_add(w, &(ze_system_desc_t){.name = "bystander", .fn = bystander, .reads = light})
             .id ||
        !ze_system_add(
             w,
             &(ze_system_desc_t){
                 .name = "spawner", .fn = spawner, .user = s, .reads = cam, .uses_commands = true})
             .id ||
        !ze_system_add(w, &(ze_system_desc_t){.name = "checker",
                                              .fn = checker,
                                              .user = s,
                                              .reads = cam,
                                              .group = ZE_GROUP_FIXED_POST})
             .id)
        return ZE_ERR_INTERNAL;
    /* A prefab, now: three pairs under a holder. */
    s->holder = ze_entity_create(w);
    ze_set(w, s->holder, ze_name_t, {"holder"});
    ze_transform_t at = ze_transform_identity();
    at.position.x = -30.0f;
    ze_entity_t roots[PAIRS];
    s->pair = ze_engine_spawn(e, &(ze_spawn_desc_t){.asset = "/prefabs/pair.scene.json",
                                                    .count = PAIRS,
                                                    .transform = &at,
                                                    .parent = s->holder,
                                                    .roots = roots});
    ze_entity_t kids[4];
    for (uint32_t i = 0; i < PAIRS; i++)
        s->pair_children_at_once += children_of(w, roots[i], kids, 4);
    return ZE_OK;
}

/* The model as the importer reads it, against what one instance holds. */
typedef struct check_t {
    ze_world_t *w;
    const ze_model_t *model;
    ze_uuid_t source;
    ze_entity_t *kids;   /* [MAX_INDEX * 4]: children by parent index */
    uint32_t *kid_count; /* [MAX_INDEX] */
    uint32_t nodes_seen;
} check_t;

static bool near(float a, float b)
{
    return a - b < 1e-5f && b - a < 1e-5f;
}

static void check_node(check_t *c, uint32_t node, ze_entity_t ent)
{
    const ze_model_node_t *n = &c->model->nodes[node];
    c->nodes_seen++;
    const ze_name_t *name = ze_get(c->w, ent, ze_name_t);
    assert_non_null(name);
    assert_string_equal(name->value, n->name);
    const ze_transform_t *t = ze_get(c->w, ent, ze_transform_t);
    assert_non_null(t);
    assert_true(near(t->position.x, n->translation.x) && near(t->position.y, n->translation.y) &&
                near(t->position.z, n->translation.z));
    assert_true(near(t->rotation.x, n->rotation.x) && near(t->rotation.w, n->rotation.w));
    assert_true(near(t->scale.y, n->scale.y));
    const ze_mesh_t *m = ze_get(c->w, ent, ze_mesh_t);
    if (n->mesh >= 0) {
        char label[32];
        snprintf(label, sizeof label, "mesh/%d", n->mesh);
        assert_non_null(m);
        assert_true(ze_uuid_eq(m->mesh, ze_asset_sub_asset_uuid(c->source, label)));
    } else {
        assert_null(m);
    }
    const ze_camera_t *cam = ze_get(c->w, ent, ze_camera_t);
    assert_true((cam != NULL) == (n->camera >= 0));
    if (cam)
        assert_false(cam->is_main);
    uint32_t idx = ze_entity_index(ent);
    assert_true(idx < MAX_INDEX);
    assert_int_equal(c->kid_count[idx], n->child_count);
    for (uint32_t k = 0; k < n->child_count; k++)
        check_node(c, n->children[k], c->kids[idx * 4 + k]);
}

static ze_entity_t g_kids[MAX_INDEX * 4];
static uint32_t g_kid_count[MAX_INDEX];

static void on_closing(ze_engine_t *e, void *user)
{
    spawn_t *s = user;
    if (s->fail_asset)
        return;
    ze_world_t *w = ze_engine_world(e);
    memset(g_kid_count, 0, sizeof g_kid_count);
    /* children by parent, in entity order (the order they were made) */
    assert_true(ze_world_entity_count(w) < MAX_INDEX);
    uint32_t seen = 0;
    for (uint32_t idx = 0; idx < MAX_INDEX; idx++) {
        ze_entity_t ent = ze_entity_from_index(w, idx);
        if (ze_entity_is_null(ent))
            continue;
        seen++;
        const ze_parent_t *p = ze_get(w, ent, ze_parent_t);
        if (!p)
            continue;
        uint32_t pi = ze_entity_index(p->parent);
        assert_true(pi < MAX_INDEX);
        if (g_kid_count[pi] < 4)
            g_kids[pi * 4 + g_kid_count[pi]] = ent;
        g_kid_count[pi]++;
    }
    assert_int_equal(seen, ze_world_entity_count(w)); /* every entity was looked at */

    ze_model_t *model = NULL;
    assert_int_equal(ze_asset_import_gltf_file(ZE_ENGINE_TEST_ASSETS "/crate.gltf",
                                               &(ze_gltf_desc_t){0}, &model, NULL),
                     ZE_OK);
    const ze_model_scene_t *scene = &model->scenes[model->default_scene];
    check_t c = {.w = w,
                 .model = model,
                 .source = g_project.source,
                 .kids = g_kids,
                 .kid_count = g_kid_count};
    uint32_t roots = 0, late = 0;
    for (uint32_t idx = 0; idx < MAX_INDEX; idx++) {
        ze_entity_t ent = ze_entity_from_index(w, idx);
        const ze_name_t *name = ze_entity_is_null(ent) ? NULL : ze_get(w, ent, ze_name_t);
        if (!name || strcmp(name->value, "crate") != 0)
            continue;
        const ze_transform_t *t = ze_get(w, ent, ze_transform_t);
        assert_non_null(t);
        assert_false(ze_has(w, ent, ze_parent_t));
        if (t->position.y == 50.0f) {
            late++;
        } else {
            /* the instance's root: the transform it was spawned at */
            ze_transform_t want = crate_at(roots);
            assert_true(near(t->position.x, want.position.x) &&
                        near(t->position.z, want.position.z) && near(t->scale.y, want.scale.y));
            roots++;
        }
        /* below it, the model's root nodes, and their subtrees */
        assert_int_equal(g_kid_count[idx], scene->node_count);
        for (uint32_t k = 0; k < scene->node_count; k++)
            check_node(&c, scene->nodes[k], g_kids[idx * 4 + k]);
    }
    assert_int_equal(roots, CRATES);
    assert_int_equal(late, LATE);
    assert_int_equal(c.nodes_seen, (CRATES + LATE) * model->node_count);
    ze_asset_model_destroy(model);

    /* the prefab: pair roots under the holder, Base under each, Top under Base */
    ze_entity_t pairs[8], base[2], top[2];
    assert_int_equal(children_of(w, s->holder, pairs, 8), PAIRS);
    for (uint32_t i = 0; i < PAIRS; i++) {
        assert_string_equal(ze_get(w, pairs[i], ze_name_t)->value, "pair");
        assert_true(near(ze_get(w, pairs[i], ze_transform_t)->position.x, -30.0f));
        assert_int_equal(children_of(w, pairs[i], base, 2), 1);
        assert_string_equal(ze_get(w, base[0], ze_name_t)->value, "Base");
        assert_true(near(ze_get(w, base[0], ze_transform_t)->scale.x, 2.0f));
        assert_int_equal(children_of(w, base[0], top, 2), 1);
        assert_string_equal(ze_get(w, top[0], ze_name_t)->value, "Top");
        assert_true(ze_uuid_eq(ze_get(w, top[0], ze_mesh_t)->mesh, g_project.mesh));
        assert_false(ze_has(w, top[0], ze_uuid_component_t)); /* a new entity */
    }
    s->checked_prefab = true;
}

static ze_run_desc_t spawn_run(char *stats, size_t cap)
{
    snprintf(stats, cap, "%s/stats.json", g_project.root);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 8;
    run.fixed_dt = 1.0 / 60.0; /* one fixed step per iteration */
    run.backend = "null";
    run.stats = stats;
    return run;
}

static void test_spawn_from_a_system(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/prefabs", g_project.root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/prefabs/pair.scene.json", g_project.root);
    assert_true(fx_write(path, k_pair, strlen(k_pair)));
    char stats[700];
    ze_run_desc_t run = spawn_run(stats, sizeof stats);
    spawn_t s = {.main_thread = pthread_self()};
    ze_app_desc_t app = {
        .name = "spawn", .user = &s, .on_initialized = on_init, .on_closing = on_closing};
    ze_run_report_t rep;
    ze_result r = ze_app_run(&app, &run, &rep);
    print_message("%s: %s\n", ze_result_str(r), rep.error);
    assert_int_equal(r, ZE_OK);
    assert_int_equal(s.first, ZE_OK);
    assert_true(s.staged);
    assert_int_equal(s.second, ZE_OK);
    assert_int_equal(s.pair, ZE_OK);
    assert_int_equal(s.pair_children_at_once, PAIRS); /* a scene file: at once */
    assert_true(s.checked_prefab);
    /* the second spawn was instantiated at its group's barrier */
    assert_int_equal(s.cameras_after, s.cameras_before + LATE);
    /* every crate is drawn: the scene's, the spawned ones, the pairs' tops */
    assert_int_equal(rep.instances, FX_CRATES + CRATES + LATE + PAIRS);
    assert_int_equal(rep.unresolved_assets, 0);
}

static void test_what_cannot_be_spawned_fails_the_run(void **state)
{
    (void)state;
    static const char *const assets[] = {"/models/nothere.gltf", "/prefabs/nothere.scene.json"};
    for (size_t i = 0; i < ZE_COUNTOF(assets); i++) {
        char stats[700];
        ze_run_desc_t run = spawn_run(stats, sizeof stats);
        run.frames = 2;
        spawn_t s = {.fail_asset = assets[i]};
        ze_diag_capture_t cap = {0};
        ze_app_desc_t app = {.name = "spawn-fail",
                             .user = &s,
                             .on_initialized = on_init,
                             .diag = ze_diag_capture_sink(&cap)};
        ze_run_report_t rep;
        assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_NOT_FOUND);
        print_message("%s\n", cap.first);
        assert_int_equal(rep.unresolved_assets, 1);
        assert_non_null(strstr(cap.first, assets[i]));
        assert_non_null(strstr(cap.first, "cannot be spawned (ze_engine_spawn)"));
        assert_non_null(strstr(cap.first, "no such file"));
        assert_int_equal(cap.errors, 2); /* once for both calls, and the run's line */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_from_a_system),
        cmocka_unit_test(test_what_cannot_be_spawned_fails_the_run),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
