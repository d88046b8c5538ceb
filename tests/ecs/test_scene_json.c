/* Scene files: the document's shape, byte-identical round trips of every
 * built-in and field type, parents by uuid, entities updated by uuid,
 * unknown components and fields reported with their JSON paths, malformed
 * documents and wrong types rejected with nothing applied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "ecs/ecs_internal.h"

/* Every reflected field type, arrays included. */
typedef struct Everything {
    bool flag;
    uint8_t byte;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    uint64_t u64_big;
    float f32;
    double f64;
    ze_vec2_t v2;
    ze_vec3_t v3;
    ze_vec4_t v4;
    ze_quat_t q;
    ze_mat4_t m;
    ze_uuid_t id;
    ze_entity_t target;
    char label[16];
    int32_t ints[3];
    ze_entity_t links[2];
} Everything;

static const ze_field_desc_t g_everything_fields[] = {
    ZE_FIELD(Everything, flag, ZE_FIELD_BOOL),
    ZE_FIELD(Everything, byte, ZE_FIELD_U8),
    ZE_FIELD(Everything, i32, ZE_FIELD_I32),
    ZE_FIELD(Everything, u32, ZE_FIELD_U32),
    ZE_FIELD(Everything, i64, ZE_FIELD_I64),
    ZE_FIELD(Everything, u64, ZE_FIELD_U64),
    ZE_FIELD(Everything, u64_big, ZE_FIELD_U64),
    ZE_FIELD(Everything, f32, ZE_FIELD_F32),
    ZE_FIELD(Everything, f64, ZE_FIELD_F64),
    ZE_FIELD(Everything, v2, ZE_FIELD_VEC2),
    ZE_FIELD(Everything, v3, ZE_FIELD_VEC3),
    ZE_FIELD(Everything, v4, ZE_FIELD_VEC4),
    ZE_FIELD(Everything, q, ZE_FIELD_QUAT),
    ZE_FIELD(Everything, m, ZE_FIELD_MAT4),
    ZE_FIELD(Everything, id, ZE_FIELD_UUID),
    ZE_FIELD(Everything, target, ZE_FIELD_ENTITY),
    ZE_FIELD_ARRAY(Everything, label, ZE_FIELD_CHARS, 16),
    ZE_FIELD_ARRAY(Everything, ints, ZE_FIELD_I32, 3),
    ZE_FIELD_ARRAY(Everything, links, ZE_FIELD_ENTITY, 2),
};

typedef struct Health {
    int32_t hp, max;
} Health;
typedef struct Owning {
    void *p;
} Owning;
static void owning_dtor(void *ptr, uint32_t count, void *user)
{
    (void)ptr;
    (void)count;
    (void)user;
}

typedef struct fixture_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_component_t everything, health, tag, owning, cache;
} fixture_t;

/* What the kernel's diagnostics sink received during the last load. */
typedef struct seen_t {
    uint32_t count;
    char messages[16][256];
} seen_t;
static seen_t g_seen;

static void seen_fn(void *user, const ze_diag_t *d)
{
    (void)user;
    const char *m = d->message;
    if (!strncmp(m, "scene: ", 7))
        m += 7;
    if (g_seen.count < 16)
        snprintf(g_seen.messages[g_seen.count], sizeof g_seen.messages[0], "%s", m);
    g_seen.count++;
}

static int setup(void **state)
{
    static fixture_t f;
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){.diag = {seen_fn, NULL}});
    if (!f.k)
        return -1;
    if (ze_component_register(
            f.k,
            &(ze_component_desc_t){.name = "Everything",
                                   .size = sizeof(Everything),
                                   .align = _Alignof(Everything),
                                   .fields = g_everything_fields,
                                   .field_count = ZE_COUNTOF(g_everything_fields)},
            &f.everything) != ZE_OK ||
        ze_component_register(f.k, &(ze_component_desc_t){.name = "Health", .size = sizeof(Health)},
                              &f.health) ||
        ze_component_register(f.k, &(ze_component_desc_t){.name = "Selected"}, &f.tag) ||
        ze_component_register(f.k,
                              &(ze_component_desc_t){.name = "Owning",
                                                     .size = sizeof(Owning),
                                                     .hooks = {.dtor = owning_dtor}},
                              &f.owning) ||
        ze_component_register(
            f.k,
            &(ze_component_desc_t){.name = "Cache", .size = 4, .flags = ZE_COMPONENT_TRANSIENT},
            &f.cache))
        return -1;
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.name = "scene", .capacity = 10000});
    *state = &f;
    return f.w ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

static ze_byte_writer_t writer(const fixture_t *f)
{
    return (ze_byte_writer_t){.alloc = f->k->alloc};
}

static ze_world_t *fresh_world(const fixture_t *f)
{
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 10000});
    assert_non_null(w);
    return w;
}

static void assert_same_bytes(const ze_byte_writer_t *a, const ze_byte_writer_t *b)
{
    if (a->size != b->size || memcmp(a->data, b->data, a->size) != 0) {
        print_error("first:\n%.*s\nsecond:\n%.*s\n", (int)a->size, (const char *)a->data,
                    (int)b->size, (const char *)b->data);
        fail();
    }
}

static bool contains(const ze_byte_writer_t *w, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= w->size; i++)
        if (!memcmp(w->data + i, s, n))
            return true;
    return false;
}

static ze_result load_json(ze_world_t *w, const char *json, size_t len, ze_scene_report_t *rep)
{
    memset(&g_seen, 0, sizeof g_seen);
    return ze_scene_load_json(w, json, len, rep);
}

static bool reported(const ze_scene_report_t *r, const char *prefix)
{
    (void)r;
    for (uint32_t i = 0; i < g_seen.count && i < 16; i++)
        if (!strncmp(g_seen.messages[i], prefix, strlen(prefix)))
            return true;
    return false;
}

static ze_entity_t find_by_uuid(ze_world_t *w, ze_uuid_t u)
{
    for (uint32_t i = 0; i < w->fresh; i++) {
        ze_entity_t e = ze_entity_from_index(w, i);
        const ze_uuid_component_t *c = ze_get(w, e, ze_uuid_component_t);
        if (c && ze_uuid_eq(c->value, u))
            return e;
    }
    return ZE_ENTITY_NULL;
}

static ze_uuid_t uuid_of(ze_world_t *w, ze_entity_t e)
{
    const ze_uuid_component_t *c = ze_get(w, e, ze_uuid_component_t);
    assert_non_null(c);
    return c->value;
}

static ze_uuid_t uuid_from(const char *s)
{
    ze_uuid_t u;
    assert_int_equal(ze_uuid_parse(s, strlen(s), &u), ZE_OK);
    return u;
}

static void test_shape_is_exact(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_set(f->w, e, ze_uuid_component_t, {uuid_from("0b7e5c4a-1f3d-4e2a-9c8b-7a6d5e4f3a2b")});
    ze_set(f->w, e, ze_name_t, {"Sun \"bright\"\n"});
    ze_component_add(f->w, e, f->tag);
    ze_entity_t g = ze_entity_create(f->w);
    ze_set(f->w, g, ze_uuid_component_t, {uuid_from("11111111-2222-4333-8444-555555555555")});
    ze_set(f->w, g, ze_parent_t, {e});
    ze_component_set(f->w, g, f->health, &(Health){7, -1});
    ze_byte_writer_t out = writer(f);
    assert_int_equal(ze_scene_save_json(f->w, &out), ZE_OK);
    static const char expect[] = "{\n"
                                 "  \"format\": \"zengine.scene\",\n"
                                 "  \"version\": 1,\n"
                                 "  \"entities\": [\n"
                                 "    {\n"
                                 "      \"uuid\": \"0b7e5c4a-1f3d-4e2a-9c8b-7a6d5e4f3a2b\",\n"
                                 "      \"components\": {\n"
                                 "        \"Name\": {\n"
                                 "          \"value\": \"Sun \\\"bright\\\"\\n\"\n"
                                 "        },\n"
                                 "        \"Selected\": {}\n"
                                 "      }\n"
                                 "    },\n"
                                 "    {\n"
                                 "      \"uuid\": \"11111111-2222-4333-8444-555555555555\",\n"
                                 "      \"components\": {\n"
                                 "        \"Parent\": {\n"
                                 "          \"parent\": \"0b7e5c4a-1f3d-4e2a-9c8b-7a6d5e4f3a2b\"\n"
                                 "        },\n"
                                 "        \"Health\": {\n"
                                 "          \"$base64\": \"BwAAAP////8=\"\n"
                                 "        }\n"
                                 "      }\n"
                                 "    }\n"
                                 "  ]\n"
                                 "}\n";
    if (out.size != strlen(expect) || memcmp(out.data, expect, out.size) != 0) {
        print_error("got:\n%.*s\n", (int)out.size, (const char *)out.data);
        fail();
    }
    ze_byte_writer_free(&out);

    /* An empty world. */
    ze_world_t *w2 = fresh_world(f);
    assert_int_equal(ze_scene_save_json(w2, &out), ZE_OK);
    static const char empty[] = "{\n  \"format\": \"zengine.scene\",\n  \"version\": 1,\n"
                                "  \"entities\": []\n}\n";
    assert_int_equal(out.size, strlen(empty));
    assert_memory_equal(out.data, empty, out.size);
    ze_byte_writer_free(&out);
    ze_world_destroy(w2);
}

/* A world using every built-in component and every field type. */
static void populate(fixture_t *f, ze_world_t *w)
{
    ze_entity_t root = ze_entity_create(w);
    ze_entity_t a = ze_entity_create(w), b = ze_entity_create(w);
    ze_entity_t hole = ze_entity_create(w);
    ze_entity_t c = ze_entity_create(w);
    ze_entity_destroy(w, hole);

    ze_transform_t t = ze_transform_identity();
    t.position = (ze_vec3_t){0.1f, -0.0f, 1e-40f};
    t.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, 0.7f);
    t.scale = (ze_vec3_t){FLT_MAX, FLT_MIN, 3.14159274f};
    ze_component_set(w, root, ZE_ID(ze_transform_t), &t);
    ze_set(w, root, ze_name_t, {"root \xc3\xa9\xe2\x82\xac \x01 tab\there"});
    ze_set(w, root, ze_camera_t, {1.2f, 0.01f, 5000.0f, 1.5f, true});
    ze_set(w, a, ze_parent_t, {root});
    ze_component_add(w, a, ZE_ID(ze_transform_t));
    ze_set(w, a, ze_mesh_t, {ze_uuid_v4(), 77});
    ze_set(w, a, ze_material_t, {ze_uuid_v4()});
    ze_set(w, a, ze_light_t, {ZE_LIGHT_SPOT, 2.5f, 30.0f, 0.5f, {1, 0.5f, 0.25f}});
    ze_set(w, b, ze_parent_t, {a});
    ze_set(w, b, ze_rigidbody_t, {ZE_MOTION_DYNAMIC, 80.0f, 0.3f, 0.9f, ZE_BODY_NONE});
    ze_component_set(w, b, f->health, &(Health){100, 150});
    ze_component_add(w, b, f->tag);
    ze_component_set(w, b, f->cache, &(uint32_t){99});  /* transient: not saved */
    ze_component_set(w, b, f->owning, &(Owning){NULL}); /* not writable: skipped */

    Everything ev = {
        .flag = true,
        .byte = 255,
        .i32 = INT32_MIN,
        .u32 = UINT32_MAX,
        .i64 = INT64_MIN,
        .u64 = 12345678901234ull,
        .u64_big = UINT64_MAX,
        .f32 = NAN,
        .f64 = 0.1,
        .v2 = {INFINITY, -INFINITY},
        .v3 = {1, 2, 3},
        .v4 = {-1, -2, -3, -4},
        .q = {0, 0, 0, 1},
        .m = ze_mat4_from_trs((ze_vec3_t){1, 2, 3}, ZE_QUAT_IDENTITY, (ze_vec3_t){2, 2, 2}),
        .id = ze_uuid_v4(),
        .target = root,
        .label = "fifteen chars!!",
        .ints = {-1, 0, 1},
        .links = {ZE_ENTITY_NULL, b},
    };
    ze_component_set(w, c, f->everything, &ev);
}

static void test_round_trip_every_type(void **state)
{
    fixture_t *f = *state;
    populate(f, f->w);
    ze_byte_writer_t s1 = writer(f), s2 = writer(f), s3 = writer(f);
    assert_int_equal(ze_scene_save_json(f->w, &s1), ZE_OK);
    assert_true(contains(&s1, "\"u64_big\": \"18446744073709551615\""));
    assert_true(contains(&s1, "\"f32\": \"nan\""));
    assert_true(contains(&s1, "\"f64\": 0.1,"));
    assert_true(contains(&s1, "\"position\": [0.1, -0.0, 1e-40]"));
    assert_true(contains(&s1, "\"v2\": [\"inf\", \"-inf\"]"));
    assert_true(contains(&s1, "\"links\": [null, \""));
    assert_true(contains(&s1, "\\u0001 tab\\there"));
    assert_false(contains(&s1, "Owning"));
    assert_false(contains(&s1, "Cache"));

    ze_world_t *w2 = fresh_world(f);
    ze_scene_report_t rep;
    assert_int_equal(load_json(w2, (const char *)s1.data, s1.size, &rep), ZE_OK);
    assert_int_equal(rep.problems, 0);
    assert_int_equal(rep.entities, 4);
    assert_int_equal(ze_world_entity_count(w2), 4);
    assert_int_equal(ze_scene_save_json(w2, &s2), ZE_OK);
    assert_same_bytes(&s1, &s2);

    /* Values, field by field (the world hash covers reflected fields and
     * raw bytes of the rest; entity handles differ, so compare values). */
    for (uint32_t i = 0; i < f->w->fresh; i++) {
        ze_entity_t e = ze_entity_from_index(f->w, i);
        if (ze_entity_is_null(e))
            continue;
        ze_entity_t e2 = find_by_uuid(w2, uuid_of(f->w, e));
        assert_false(ze_entity_is_null(e2));
        ze_mask_t m = ze_mask_minus(ze_mask_minus(ze_entity_mask(f->w, e), ze_mask_of(f->cache)),
                                    ze_mask_of(f->owning));
        assert_true(ze_mask_eq(ze_entity_mask(w2, e2), m));
        const ze_transform_t *t1 = ze_get(f->w, e, ze_transform_t);
        if (t1) {
            const ze_transform_t *t2 = ze_get(w2, e2, ze_transform_t);
            assert_memory_equal(&t1->position, &t2->position, sizeof t1->position);
            assert_memory_equal(&t1->rotation, &t2->rotation, sizeof t1->rotation);
            assert_memory_equal(&t1->scale, &t2->scale, sizeof t1->scale);
        }
        const ze_name_t *n1 = ze_get(f->w, e, ze_name_t);
        if (n1)
            assert_string_equal(n1->value, ze_get(w2, e2, ze_name_t)->value);
        const ze_camera_t *c1 = ze_get(f->w, e, ze_camera_t);
        if (c1) {
            const ze_camera_t *c2 = ze_get(w2, e2, ze_camera_t);
            assert_true(c1->fov_y == c2->fov_y && c1->near_plane == c2->near_plane &&
                        c1->far_plane == c2->far_plane && c1->aspect == c2->aspect &&
                        c1->is_main == c2->is_main);
        }
        const ze_light_t *l1 = ze_get(f->w, e, ze_light_t);
        if (l1) {
            const ze_light_t *l2 = ze_get(w2, e2, ze_light_t);
            assert_int_equal(l1->type, l2->type);
            assert_true(l1->intensity == l2->intensity && l1->range == l2->range &&
                        l1->spot_angle == l2->spot_angle);
            assert_memory_equal(&l1->color, &l2->color, sizeof l1->color);
        }
        const ze_mesh_t *m1 = ze_get(f->w, e, ze_mesh_t);
        if (m1) {
            const ze_mesh_t *m2 = ze_get(w2, e2, ze_mesh_t);
            assert_true(ze_uuid_eq(m1->mesh, m2->mesh));
            assert_int_equal(m2->render_instance, ZE_RENDER_INSTANCE_NONE); /* runtime only */
        }
        const ze_material_t *ma1 = ze_get(f->w, e, ze_material_t);
        if (ma1)
            assert_true(ze_uuid_eq(ma1->material, ze_get(w2, e2, ze_material_t)->material));
        const ze_rigidbody_t *r1 = ze_get(f->w, e, ze_rigidbody_t);
        if (r1) {
            const ze_rigidbody_t *r2 = ze_get(w2, e2, ze_rigidbody_t);
            assert_int_equal(r1->motion, r2->motion);
            assert_true(r1->mass == r2->mass && r1->friction == r2->friction &&
                        r1->restitution == r2->restitution);
        }
        const ze_parent_t *p1 = ze_get(f->w, e, ze_parent_t);
        if (p1) {
            const ze_parent_t *p2 = ze_get(w2, e2, ze_parent_t);
            assert_true(ze_uuid_eq(uuid_of(f->w, p1->parent), uuid_of(w2, p2->parent)));
        }
        const Health *h1 = ze_component_get(f->w, e, f->health);
        if (h1)
            assert_memory_equal(h1, ze_component_get(w2, e2, f->health), sizeof *h1);
        const Everything *v1 = ze_component_get(f->w, e, f->everything);
        if (v1) {
            const Everything *v2 = ze_component_get(w2, e2, f->everything);
            assert_int_equal(v1->flag, v2->flag);
            assert_int_equal(v1->byte, v2->byte);
            assert_int_equal(v1->i32, v2->i32);
            assert_int_equal(v1->u32, v2->u32);
            assert_true(v1->i64 == v2->i64 && v1->u64 == v2->u64 && v1->u64_big == v2->u64_big);
            assert_true(isnan(v2->f32));
            assert_true(v1->f64 == v2->f64);
            assert_memory_equal(&v1->v2, &v2->v2, sizeof v1->v2);
            assert_memory_equal(&v1->v3, &v2->v3, sizeof v1->v3);
            assert_memory_equal(&v1->v4, &v2->v4, sizeof v1->v4);
            assert_memory_equal(&v1->q, &v2->q, sizeof v1->q);
            assert_memory_equal(&v1->m, &v2->m, sizeof v1->m);
            assert_true(ze_uuid_eq(v1->id, v2->id));
            assert_true(ze_uuid_eq(uuid_of(f->w, v1->target), uuid_of(w2, v2->target)));
            assert_string_equal(v1->label, v2->label);
            assert_memory_equal(v1->ints, v2->ints, sizeof v1->ints);
            assert_true(ze_entity_is_null(v2->links[0]));
            assert_true(ze_uuid_eq(uuid_of(f->w, v1->links[1]), uuid_of(w2, v2->links[1])));
        }
    }
    /* Loading the same file again updates the same entities. */
    assert_int_equal(load_json(w2, (const char *)s1.data, s1.size, &rep), ZE_OK);
    assert_int_equal(ze_world_entity_count(w2), 4);
    assert_int_equal(ze_scene_save_json(w2, &s3), ZE_OK);
    assert_same_bytes(&s1, &s3);
    ze_world_destroy(w2);
    ze_byte_writer_free(&s1);
    ze_byte_writer_free(&s2);
    ze_byte_writer_free(&s3);
}

static void test_save_assigns_uuids(void **state)
{
    fixture_t *f = *state;
    ze_entity_t a = ze_entity_create(f->w), b = ze_entity_create(f->w);
    ze_entity_t c = ze_entity_create(f->w);
    ze_set(f->w, a, ze_name_t, {"a"});
    ze_uuid_t same = ze_uuid_v4();
    ze_set(f->w, b, ze_uuid_component_t, {same});
    ze_set(f->w, c, ze_uuid_component_t, {same}); /* a repeat: c gets a new one */
    ze_byte_writer_t s = writer(f), s2 = writer(f);
    assert_int_equal(ze_scene_save_json(f->w, &s), ZE_OK);
    assert_true(ze_has(f->w, a, ze_uuid_component_t));
    assert_int_equal(ze_uuid_version(uuid_of(f->w, a)), 4);
    assert_true(ze_uuid_eq(uuid_of(f->w, b), same));
    assert_false(ze_uuid_eq(uuid_of(f->w, c), same));
    /* Stable from then on. */
    assert_int_equal(ze_scene_save_json(f->w, &s2), ZE_OK);
    assert_same_bytes(&s, &s2);
    ze_byte_writer_free(&s);
    ze_byte_writer_free(&s2);
}

static void test_parents_by_uuid_forward_references(void **state)
{
    fixture_t *f = *state;
    /* The child comes first and names its parent by uuid. */
    static const char doc[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": ["
        "{\"uuid\": \"aaaaaaaa-0000-4000-8000-000000000001\", \"components\": {"
        "  \"Parent\": {\"parent\": \"aaaaaaaa-0000-4000-8000-000000000002\"},"
        "  \"Transform\": {\"position\": [1, 2, 3]}}},"
        "{\"uuid\": \"aaaaaaaa-0000-4000-8000-000000000002\", \"components\": {"
        "  \"Transform\": {\"position\": [10, 0, 0], \"scale\": [2, 2, 2]}}}]}";
    ze_scene_report_t rep;
    assert_int_equal(load_json(f->w, doc, strlen(doc), &rep), ZE_OK);
    assert_int_equal(rep.problems, 0);
    ze_entity_t child = find_by_uuid(f->w, uuid_from("aaaaaaaa-0000-4000-8000-000000000001"));
    ze_entity_t parent = find_by_uuid(f->w, uuid_from("aaaaaaaa-0000-4000-8000-000000000002"));
    assert_false(ze_entity_is_null(child) || ze_entity_is_null(parent));
    assert_true(ze_entity_eq(ze_get(f->w, child, ze_parent_t)->parent, parent));
    /* Omitted fields keep the default (a new Transform is the identity). */
    const ze_transform_t *t = ze_get(f->w, child, ze_transform_t);
    assert_true(t->position.x == 1 && t->position.z == 3 && t->scale.x == 1 && t->rotation.w == 1);
    assert_int_equal(ze_hierarchy_update(f->w), ZE_OK);
    assert_true(ze_get(f->w, child, ze_transform_t)->world.m[3][0] == 12.0f);

    /* A reference to a uuid that exists in the world but not in the file. */
    static const char doc2[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": ["
        "{\"uuid\": \"bbbbbbbb-0000-4000-8000-000000000001\", \"components\": {"
        "  \"Parent\": {\"parent\": \"aaaaaaaa-0000-4000-8000-000000000002\"}}},"
        "{\"uuid\": \"bbbbbbbb-0000-4000-8000-000000000002\", \"components\": {"
        "  \"Parent\": {\"parent\": \"cccccccc-0000-4000-8000-000000000000\"}}}]}";
    assert_int_equal(load_json(f->w, doc2, strlen(doc2), &rep), ZE_OK);
    ze_entity_t other = find_by_uuid(f->w, uuid_from("bbbbbbbb-0000-4000-8000-000000000001"));
    assert_true(ze_entity_eq(ze_get(f->w, other, ze_parent_t)->parent, parent));
    /* ... and one to nobody: reported, set to null. */
    assert_int_equal(rep.problems, 1);
    assert_true(reported(&rep, "$.entities[1].components.Parent.parent"));
    ze_entity_t dangling = find_by_uuid(f->w, uuid_from("bbbbbbbb-0000-4000-8000-000000000002"));
    assert_true(ze_entity_is_null(ze_get(f->w, dangling, ze_parent_t)->parent));
}

static void test_existing_entities_updated(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_set(f->w, e, ze_uuid_component_t, {uuid_from("dddddddd-0000-4000-8000-000000000001")});
    ze_set(f->w, e, ze_name_t, {"old"});
    ze_set(f->w, e, ze_rigidbody_t, {ZE_MOTION_KINEMATIC, 5, 0, 0, 0});
    ze_set(f->w, e, ze_camera_t, {1, 2, 3, 4, false});
    static const char doc[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": ["
        "{\"uuid\": \"DDDDDDDD-0000-4000-8000-000000000001\", \"components\": {"
        "  \"Name\": {\"value\": \"new\"}, \"Camera\": {\"is_main\": true}}}]}";
    ze_scene_report_t rep;
    assert_int_equal(load_json(f->w, doc, strlen(doc), &rep), ZE_OK);
    assert_int_equal(ze_world_entity_count(f->w), 1);
    assert_string_equal(ze_get(f->w, e, ze_name_t)->value, "new");
    assert_int_equal(ze_get(f->w, e, ze_rigidbody_t)->motion, ZE_MOTION_KINEMATIC); /* kept */
    const ze_camera_t *c = ze_get(f->w, e, ze_camera_t);
    assert_true(c->is_main && c->fov_y == 1 && c->far_plane == 3); /* other fields kept */
}

static void test_unknown_reported_rest_loaded(void **state)
{
    fixture_t *f = *state;
    static const char doc[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"comment\": \"hi\", \"entities\": ["
        "{\"uuid\": \"eeeeeeee-0000-4000-8000-000000000001\", \"components\": {"
        "  \"Name\": {\"value\": \"kept\"}}},"
        "{\"uuid\": \"eeeeeeee-0000-4000-8000-000000000002\", \"extra\": 1, \"components\": {"
        "  \"Bogus\": {\"x\": 1},"
        "  \"Transform\": {\"position\": [4, 5, 6], \"wobble\": 3},"
        "  \"Health\": {\"$base64\": \"AAAA\"},"
        "  \"Selected\": {\"why\": 1},"
        "  \"UUID\": {\"value\": \"eeeeeeee-0000-4000-8000-000000000002\"}}}]}";
    ze_scene_report_t rep;
    assert_int_equal(load_json(f->w, doc, strlen(doc), &rep), ZE_OK);
    assert_int_equal(rep.entities, 2);
    assert_true(reported(&rep, "$.comment"));
    assert_true(reported(&rep, "$.entities[1].extra"));
    assert_true(reported(&rep, "$.entities[1].components.Bogus"));
    assert_true(reported(&rep, "$.entities[1].components.Transform.wobble"));
    assert_true(reported(&rep, "$.entities[1].components.Health.$base64")); /* 3 bytes, not 8 */
    assert_true(reported(&rep, "$.entities[1].components.Selected.why"));
    assert_true(reported(&rep, "$.entities[1].components.UUID"));
    assert_int_equal(rep.problems, 7);
    ze_entity_t e = find_by_uuid(f->w, uuid_from("eeeeeeee-0000-4000-8000-000000000002"));
    assert_true(ze_get(f->w, e, ze_transform_t)->position.y == 5);
    assert_false(ze_component_has(f->w, e, f->health));
    assert_true(ze_component_has(f->w, e, f->tag));
    ze_entity_t k = find_by_uuid(f->w, uuid_from("eeeeeeee-0000-4000-8000-000000000001"));
    assert_string_equal(ze_get(f->w, k, ze_name_t)->value, "kept");

    /* More problems than the report holds: counted, the first 16 kept. */
    char big[8192];
    int n = snprintf(big, sizeof big,
                     "{\"format\": \"zengine.scene\", \"version\": 1, "
                     "\"entities\": [{\"uuid\": "
                     "\"eeeeeeee-0000-4000-8000-000000000003\", "
                     "\"components\": {");
    for (int i = 0; i < 40; i++)
        n += snprintf(big + n, sizeof big - (size_t)n, "%s\"Nope%d\": {}", i ? ", " : "", i);
    n += snprintf(big + n, sizeof big - (size_t)n, "}}]}");
    assert_int_equal(load_json(f->w, big, (size_t)n, &rep), ZE_OK);
    assert_int_equal(rep.problems, 40);
    assert_true(reported(&rep, "$.entities[0].components.Nope15"));
    assert_false(reported(&rep, "$.entities[0].components.Nope16"));
    /* The report is optional. */
    assert_int_equal(load_json(f->w, big, (size_t)n, NULL), ZE_OK);
}

static void expect_nothing_applied(fixture_t *f, const char *doc, ze_result want, const char *path)
{
    uint64_t h = ze_world_hash(f->w);
    uint32_t count = ze_world_entity_count(f->w);
    ze_scene_report_t rep;
    ze_result r = load_json(f->w, doc, strlen(doc), &rep);
    if (r != want || (path && !reported(&rep, path))) {
        print_error("doc %s: result %s, report[0] '%s'\n", doc, ze_result_str(r),
                    g_seen.count ? g_seen.messages[0] : "");
        fail();
    }
    assert_int_equal(rep.entities, 0);
    assert_int_equal(ze_world_hash(f->w), h);
    assert_int_equal(ze_world_entity_count(f->w), count);
}

#define HEAD "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": ["
#define E1                                                                                         \
    "{\"uuid\": \"ffffffff-0000-4000-8000-000000000001\", \"components\": {\"Name\": {\"value\": " \
    "\"x\"}}}"

static void test_malformed_and_wrong_types_apply_nothing(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_set(f->w, e, ze_name_t, {"before"});
    expect_nothing_applied(f, "", ZE_ERR_PARSE, "$: malformed JSON");
    expect_nothing_applied(f, HEAD E1, ZE_ERR_PARSE, "$: malformed JSON"); /* truncated */
    expect_nothing_applied(f, HEAD E1 "]} trailing", ZE_ERR_PARSE, "$: malformed JSON");
    expect_nothing_applied(f, "[]", ZE_ERR_PARSE, "$:");
    expect_nothing_applied(f, "{\"format\": \"other\", \"version\": 1, \"entities\": []}",
                           ZE_ERR_PARSE, "$.format");
    expect_nothing_applied(f, "{\"format\": \"zengine.scene\", \"version\": 2, \"entities\": []}",
                           ZE_ERR_UNSUPPORTED, "$.version");
    expect_nothing_applied(f,
                           "{\"format\": \"zengine.scene\", \"version\": \"1\", "
                           "\"entities\": []}",
                           ZE_ERR_PARSE, "$.version");
    expect_nothing_applied(f, "{\"format\": \"zengine.scene\", \"version\": 1}", ZE_ERR_PARSE,
                           "$.entities");
    expect_nothing_applied(f, HEAD "{\"components\": {}}]}", ZE_ERR_PARSE, "$.entities[0].uuid");
    expect_nothing_applied(f, HEAD "{\"uuid\": \"00000000-0000-0000-0000-000000000000\"}]}",
                           ZE_ERR_PARSE, "$.entities[0].uuid");
    expect_nothing_applied(f, HEAD E1 "," E1 "]}", ZE_ERR_PARSE, "$.entities[1].uuid");
    expect_nothing_applied(f, HEAD E1 ", 7]}", ZE_ERR_PARSE, "$.entities[1]");
    /* Wrong value types after a valid entity: that entity is not applied. */
    static const char *const bad[][2] = {
        {"\"Transform\": {\"position\": \"x\"}", "$.entities[1].components.Transform.position"},
        {"\"Transform\": {\"position\": [1, 2]}", "$.entities[1].components.Transform.position"},
        {"\"Transform\": {\"rotation\": [1, 2, 3, true]}",
         "$.entities[1].components.Transform.rotation"},
        {"\"Transform\": 5", "$.entities[1].components.Transform"},
        {"\"Camera\": {\"is_main\": 1}", "$.entities[1].components.Camera.is_main"},
        {"\"Camera\": {\"fov_y\": 1e39}", "$.entities[1].components.Camera.fov_y"},
        {"\"Camera\": {\"fov_y\": \"fast\"}", "$.entities[1].components.Camera.fov_y"},
        {"\"Light\": {\"type\": 2.5}", "$.entities[1].components.Light.type"},
        {"\"Light\": {\"type\": 3000000000}", "$.entities[1].components.Light.type"},
        {"\"Name\": {\"value\": 3}", "$.entities[1].components.Name.value"},
        {"\"Mesh\": {\"mesh\": \"not-a-uuid\"}", "$.entities[1].components.Mesh.mesh"},
        {"\"Parent\": {\"parent\": 12}", "$.entities[1].components.Parent.parent"},
        {"\"Health\": {\"$base64\": \"!!!!\"}", "$.entities[1].components.Health.$base64"},
        {"\"Health\": {\"$base64\": 1}", "$.entities[1].components.Health.$base64"},
    };
    char doc[1024];
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++) {
        snprintf(doc, sizeof doc,
                 HEAD E1 ", {\"uuid\": \"ffffffff-0000-4000-8000-000000000002\", "
                         "\"components\": {%s}}]}",
                 bad[i][0]);
        expect_nothing_applied(f, doc, ZE_ERR_PARSE, bad[i][1]);
    }
    /* A name that does not fit its 128-byte field. */
    char longname[200];
    memset(longname, 'n', 150);
    longname[150] = 0;
    snprintf(doc, sizeof doc,
             HEAD "{\"uuid\": \"ffffffff-0000-4000-8000-000000000003\", "
                  "\"components\": {\"Name\": {\"value\": \"%s\"}}}]}",
             longname);
    expect_nothing_applied(f, doc, ZE_ERR_PARSE, "$.entities[0].components.Name.value");
    /* Duplicate keys are malformed. */
    expect_nothing_applied(f, HEAD "]", ZE_ERR_PARSE, NULL);
    expect_nothing_applied(f,
                           "{\"format\": \"zengine.scene\", \"format\": \"zengine.scene\", "
                           "\"version\": 1, \"entities\": []}",
                           ZE_ERR_PARSE, "$: malformed JSON");
    assert_string_equal(ze_get(f->w, e, ze_name_t)->value, "before");
}

static void test_capacity_checked_before_applying(void **state)
{
    fixture_t *f = *state;
    ze_world_t *tiny = ze_world_create(f->k, &(ze_world_desc_t){.capacity = 1});
    for (uint32_t i = 0; i < ze_world_capacity(tiny) - 1; i++)
        ze_entity_create(tiny);
    static const char doc[] = HEAD "{\"uuid\": \"12345678-0000-4000-8000-000000000001\"},"
                                   "{\"uuid\": \"12345678-0000-4000-8000-000000000002\"}]}";
    ze_scene_report_t rep;
    uint32_t before = ze_world_entity_count(tiny);
    assert_int_equal(load_json(tiny, doc, strlen(doc), &rep), ZE_ERR_LIMIT);
    assert_int_equal(ze_world_entity_count(tiny), before);
    ze_world_destroy(tiny);
}

/* A names hook: "name:<N>" <-> v5(namespace, "<N>") for N < 100; anything
 * else does not resolve (the hook records what it was told). */
typedef struct names_t {
    uint32_t resolves, misses;
    char last_ctx[512];
} names_t;

static ze_result names_resolve(void *user, const ze_scene_name_ctx_t *ctx, const char *name,
                               size_t len, ze_uuid_t *out)
{
    names_t *n = user;
    n->resolves++;
    unsigned v;
    char tail;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), name);
    if (sscanf(buf, "name:%u%c", &v, &tail) == 1 && v < 100) {
        *out = ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, buf, strlen(buf));
        return ZE_OK;
    }
    n->misses++;
    char es[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(ctx->entity, es);
    snprintf(n->last_ctx, sizeof n->last_ctx, "%s %s %s.%s %s '%s'", ctx->json_path, es,
             ctx->component, ctx->field, ctx->entity_name ? ctx->entity_name : "-", buf);
    return ZE_ERR_NOT_FOUND;
}

static bool names_name(void *user, ze_uuid_t u, char *buf, size_t cap)
{
    (void)user;
    for (unsigned v = 0; v < 100; v++) {
        char s[32];
        int k = snprintf(s, sizeof s, "name:%u", v);
        if (ze_uuid_eq(ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, s, (size_t)k), u)) {
            snprintf(buf, cap, "%s", s);
            return true;
        }
    }
    return false;
}

static void test_names_hook(void **state)
{
    fixture_t *f = *state;
    static const char doc[] =
        HEAD "{\"uuid\": \"abababab-0000-4000-8000-000000000001\", \"components\": {"
             "  \"Mesh\": {\"mesh\": \"name:7\"}, \"Name\": {\"value\": \"Crate\"}}},"
             "{\"uuid\": \"abababab-0000-4000-8000-000000000002\", \"components\": {"
             "  \"Material\": {\"material\": \"name:700\"},"
             "  \"Everything\": {\"id\": \"d0d0d0d0-0000-4000-8000-000000000009\"}}}]}";
    /* Without a hook a name is a type error, and nothing is applied. */
    ze_world_t *w = fresh_world(f);
    ze_scene_report_t rep;
    assert_int_equal(load_json(w, doc, strlen(doc), &rep), ZE_ERR_PARSE);
    assert_true(reported(&rep, "$.entities[0].components.Mesh.mesh: expected a uuid string"));
    assert_int_equal(ze_world_entity_count(w), 0);

    names_t n = {0};
    ze_kernel_set_scene_names(
        f->k, &(ze_scene_names_t){.resolve = names_resolve, .name = names_name, .user = &n});
    assert_int_equal(load_json(w, doc, strlen(doc), &rep), ZE_OK);
    assert_int_equal(rep.entities, 2);
    assert_int_equal(rep.unresolved, 1);
    assert_int_equal(n.resolves, 2); /* once per value: not again while checking */
    assert_int_equal(n.misses, 1);
    assert_string_equal(n.last_ctx, "$.entities[1].components.Material.material "
                                    "abababab-0000-4000-8000-000000000002 Material.material - "
                                    "'name:700'");
    ze_entity_t crate = find_by_uuid(w, uuid_from("abababab-0000-4000-8000-000000000001"));
    ze_entity_t other = find_by_uuid(w, uuid_from("abababab-0000-4000-8000-000000000002"));
    assert_true(ze_uuid_eq(ze_get(w, crate, ze_mesh_t)->mesh,
                           ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, "name:7", 6)));
    assert_true(ze_uuid_is_nil(ze_get(w, other, ze_material_t)->material)); /* left nil */

    /* Saved with the hook's names, uuids where it has none; the round trip
       is byte-identical. */
    ze_byte_writer_t a = writer(f), b = writer(f);
    assert_int_equal(ze_scene_save_json(w, &a), ZE_OK);
    assert_true(contains(&a, "\"mesh\": \"name:7\""));
    assert_true(contains(&a, "\"id\": \"d0d0d0d0-0000-4000-8000-000000000009\""));
    assert_true(contains(&a, "\"material\": \"00000000-0000-0000-0000-000000000000\""));
    ze_world_t *w2 = fresh_world(f);
    assert_int_equal(load_json(w2, (const char *)a.data, a.size, &rep), ZE_OK);
    assert_int_equal(rep.unresolved, 0);
    assert_int_equal(ze_scene_save_json(w2, &b), ZE_OK);
    assert_same_bytes(&a, &b);
    /* An empty string is no name. */
    static const char empty[] = HEAD "{\"uuid\": \"abababab-0000-4000-8000-000000000003\", "
                                     "\"components\": {\"Mesh\": {\"mesh\": \"\"}}}]}";
    assert_int_equal(load_json(w2, empty, strlen(empty), &rep), ZE_ERR_PARSE);
    ze_kernel_set_scene_names(f->k, NULL);
    ze_byte_writer_free(&a);
    ze_byte_writer_free(&b);
    ze_world_destroy(w);
    ze_world_destroy(w2);
}

static void test_refused_during_iteration(void **state)
{
    fixture_t *f = *state;
    ze_entity_t e = ze_entity_create(f->w);
    ze_set(f->w, e, ze_name_t, {"x"});
    ze_query_t q = ze_query_create(f->w, &(ze_query_desc_t){.with = ZE_MASK(ze_name_t)});
    ze_iter_t it = ze_query_iter(f->w, q);
    assert_true(ze_query_next(&it));
    ze_byte_writer_t s = writer(f);
    assert_int_equal(ze_scene_save_json(f->w, &s), ZE_ERR_STATE);
    ze_scene_report_t rep;
    assert_int_equal(load_json(f->w, HEAD "]}", strlen(HEAD "]}"), &rep), ZE_ERR_STATE);
    ze_iter_fini(&it);
    assert_int_equal(load_json(f->w, HEAD "]}", strlen(HEAD "]}"), &rep), ZE_OK);
    ze_byte_writer_free(&s);
}

/* The JSON library's blocks while a hook counts them: live and peak. */
static size_t g_json_live, g_json_peak;
static void *counting_alloc(size_t size)
{
    uint8_t *p = ze_alloc(ze_mem_system_allocator(), size + 16, 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    g_json_live += size;
    g_json_peak = g_json_live > g_json_peak ? g_json_live : g_json_peak;
    return p + 16;
}
static void counting_free(void *ptr)
{
    if (!ptr)
        return;
    uint8_t *p = (uint8_t *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    g_json_live -= size;
    ze_free(ze_mem_system_allocator(), p, size + 16);
}

/* The reader parses one entity at a time, into its own tree: the JSON
 * library's memory stays small whatever the document's size; forward and backward
 * references across the whole document still resolve. */
static void test_streaming_holds_one_entity(void **state)
{
    fixture_t *f = *state;
    enum { COUNT = 3000 };
    ze_byte_writer_t doc = {.alloc = ze_mem_system_allocator()};
    char buf[512];
    ze_byte_write(&doc, HEAD, strlen(HEAD));
    for (uint32_t i = 0; i < COUNT; i++) {
        /* each entity's parent is the next one: every reference is forward */
        int n = snprintf(buf, sizeof buf,
                         "%s{\"uuid\": \"dddddddd-0000-4000-8000-%012u\", \"components\": {"
                         "\"Transform\": {\"position\": [%u.0, 2.5, 3.0]}",
                         i ? ",\n" : "", i + 1, i);
        if (i + 1 < COUNT)
            n += snprintf(buf + n, sizeof buf - (size_t)n,
                          ", \"Parent\": {\"parent\": \"dddddddd-0000-4000-8000-%012u\"}", i + 2);
        n += snprintf(buf + n, sizeof buf - (size_t)n, "}}");
        ze_byte_write(&doc, buf, (size_t)n);
    }
    ze_byte_write(&doc, "]}\n", 3);
    assert_false(doc.failed);
    json_malloc_t pm;
    json_free_t pf;
    json_get_alloc_funcs(&pm, &pf);
    g_json_live = g_json_peak = 0;
    json_set_alloc_funcs(counting_alloc, counting_free);
    ze_world_t *w = ze_world_create(f->k, &(ze_world_desc_t){.capacity = COUNT});
    ze_scene_report_t rep;
    ze_result r = load_json(w, (const char *)doc.data, doc.size, &rep);
    json_set_alloc_funcs(pm, pf);
    assert_int_equal(r, ZE_OK);
    assert_int_equal(rep.entities, COUNT);
    assert_int_equal(rep.problems, 0);
    assert_int_equal(g_json_live, 0);
    /* the whole tree would take several times the text (~400 KB) */
    assert_true(g_json_peak < 8192);
    assert_true(doc.size > 100 * 1024);
    for (uint32_t i = 0; i + 1 < COUNT; i += 97) {
        char u[40], v[40];
        snprintf(u, sizeof u, "dddddddd-0000-4000-8000-%012u", i + 1);
        snprintf(v, sizeof v, "dddddddd-0000-4000-8000-%012u", i + 2);
        ze_entity_t e = find_by_uuid(w, uuid_from(u));
        assert_true(ze_get(w, e, ze_transform_t)->position.x == (float)i);
        assert_true(ze_entity_eq(ze_get(w, e, ze_parent_t)->parent, find_by_uuid(w, uuid_from(v))));
    }
    ze_world_destroy(w);
    ze_byte_writer_free(&doc);
}

/* Malformed JSON anywhere is reported at its line and column in the whole
 * document, whether the structural pass or the library found it; top-level
 * keys are compared decoded. */
static void test_malformed_positions_and_escaped_keys(void **state)
{
    fixture_t *f = *state;
    static const char bad_token[] = "{\"format\": \"zengine.scene\", \"version\": 1,\n"
                                    "\"entities\": [\n"
                                    "  {\"uuid\": \"ffffffff-0000-4000-8000-000000000001\"},\n"
                                    "  {\"uuid\": tru}\n"
                                    "]}\n";
    expect_nothing_applied(f, bad_token, ZE_ERR_PARSE, "$: malformed JSON at line 4, column");
    static const char bad_structure[] = "{\"format\": \"zengine.scene\", \"version\": 1,\n"
                                        "\"entities\": [\n"
                                        "  {\"uuid\": \"ffffffff-0000-4000-8000-000000000001\"}\n"
                                        "  {\"uuid\": \"ffffffff-0000-4000-8000-000000000002\"}\n"
                                        "]}\n";
    expect_nothing_applied(f, bad_structure, ZE_ERR_PARSE, "$: malformed JSON at line 4, column 3");
    static const char bad_escape[] = "{\"format\": \"zengine.scene\", \"version\": 1, "
                                     "\"entities\": [], \"x\\q\": 1}";
    expect_nothing_applied(f, bad_escape, ZE_ERR_PARSE, "$: malformed JSON at line 1");
    expect_nothing_applied(f,
                           "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [], "
                           "\"entit\\u0069es\": []}",
                           ZE_ERR_PARSE, "$: malformed JSON");
    static const char escaped[] = "{\"form\\u0061t\": \"zengine.scene\", \"version\": 1, "
                                  "\"entit\\u0069es\": [" E1 "]}";
    ze_scene_report_t rep;
    assert_int_equal(load_json(f->w, escaped, strlen(escaped), &rep), ZE_OK);
    assert_int_equal(rep.entities, 1);
    assert_int_equal(rep.problems, 0);
    /* An entity without "components" (found by fuzzing the tree reader). */
    static const char bare[] = HEAD "{\"uuid\": \"ffffffff-0000-4000-8000-0000000000b1\"}]}";
    assert_int_equal(load_json(f->w, bare, strlen(bare), &rep), ZE_OK);
    assert_int_equal(rep.entities, 1);
    assert_false(
        ze_entity_is_null(find_by_uuid(f->w, uuid_from("ffffffff-0000-4000-8000-0000000000b1"))));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shape_is_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_every_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_assigns_uuids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parents_by_uuid_forward_references, setup, teardown),
        cmocka_unit_test_setup_teardown(test_existing_entities_updated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_reported_rest_loaded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_and_wrong_types_apply_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capacity_checked_before_applying, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_hook, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_during_iteration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streaming_holds_one_entity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_positions_and_escaped_keys, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
