/* Cooked formats and the cooker: .zemesh written from an imported model and
 * read back (streams, defaults, rebased indices), the reader's rejection of
 * every truncation, every flipped byte, a wrong version and inconsistent
 * fields; .zematerial round trips and rejections; ze_asset_cook's
 * determinism (same input, same bytes) and its atomicity (a failed cook
 * leaves nothing behind). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

#define ASSETS ZE_TESTDATA_DIR "/assets"

static char g_doc[1 << 15];

static const char *doc(const char *text)
{
    snprintf(g_doc, sizeof g_doc, "%s", text);
    for (char *p = g_doc; *p; p++)
        if (*p == '\'')
            *p = '"';
    return g_doc;
}

/* Two triangle primitives with different streams, a points primitive, two
 * materials and a texture. Buffer: 3 positions, 3 normals, 3 uvs, u16
 * indices 0 1 2 (+2 pad), 3 RGBA float colours. */
static const char *two_prims(void)
{
    static uint8_t buf[36 + 36 + 24 + 8 + 48];
    static char b64[512];
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    float uv[6] = {0, 0, 1, 0, 0, 1};
    uint16_t idx[4] = {0, 1, 2, 0};
    float col[12] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0.5f};
    memcpy(buf, pos, 36);
    memcpy(buf + 36, nrm, 36);
    memcpy(buf + 72, uv, 24);
    memcpy(buf + 96, idx, 8);
    memcpy(buf + 104, col, 48);
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, n = sizeof buf;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)buf[i] << 16 | (i + 1 < n ? (uint32_t)buf[i + 1] << 8 : 0) |
                     (i + 2 < n ? buf[i + 2] : 0);
        b64[o++] = t[(v >> 18) & 63];
        b64[o++] = t[(v >> 12) & 63];
        b64[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        b64[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    b64[o] = 0;
    static char json[4096];
    snprintf(json, sizeof json,
             "{'asset':{'version':'2.0'},'buffers':[{'byteLength':%zu,'uri':"
             "'data:application/octet-stream;base64,%s'}],'bufferViews':["
             "{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,'byteLength':36},"
             "{'buffer':0,'byteOffset':72,'byteLength':24},{'buffer':0,'byteOffset':96,"
             "'byteLength':6},{'buffer':0,'byteOffset':104,'byteLength':48}],'accessors':["
             "{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],"
             "'max':[1,1,0]},{'bufferView':1,'componentType':5126,'count':3,'type':'VEC3'},"
             "{'bufferView':2,'componentType':5126,'count':3,'type':'VEC2'},{'bufferView':3,"
             "'componentType':5123,'count':3,'type':'SCALAR'},{'bufferView':4,'componentType':"
             "5126,'count':3,'type':'VEC4'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0,"
             "'NORMAL':1,'TEXCOORD_0':2},'indices':3,'material':1},{'attributes':{'POSITION':0,"
             "'COLOR_0':4},'mode':6},{'attributes':{'POSITION':0},'mode':0}]},{'primitives':["
             "{'attributes':{'POSITION':0},'mode':0}]}],'images':[{'uri':'data:image/png;base64,"
             "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJ"
             "RU5ErkJggg=='}],'textures':[{'source':0}],'materials':[{'name':'plain'},{'name':"
             "'textured','pbrMetallicRoughness':{'baseColorTexture':{'index':0,'extensions':{"
             "'KHR_texture_transform':{'rotation':0.5}}},'roughnessFactor':0.25},'alphaMode':"
             "'BLEND','emissiveFactor':[0,0.5,1]}],'extensionsUsed':['KHR_texture_transform']}",
             sizeof buf, b64);
    return doc(json);
}

static ze_model_t *import(const char *json)
{
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_result r = ze__asset_import_gltf_memory(json, strlen(json), NULL, &m, &err);
    if (r != ZE_OK)
        fail_msg("%s", err.message);
    return m;
}

static const ze_uuid_t g_mats[2] = {{{1}}, {{2}}};
static const ze_uuid_t g_tex[1] = {{{3}}};

static void write_mesh(ze_model_t *m, uint8_t **bytes, size_t *size)
{
    ze_uuid_t id = {{0xab}};
    assert_int_equal(
        ze_asset_zemesh_write(m, 0, id, g_mats, ze_mem_system_allocator(), bytes, size), ZE_OK);
}

static float f32_at(const uint8_t *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static void test_zemesh_round_trip(void **state)
{
    (void)state;
    ze_model_t *m = import(two_prims());
    uint8_t *bytes;
    size_t size;
    write_mesh(m, &bytes, &size);
    ze_zemesh_view_t v;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zemesh_read(bytes, size, &v, &err), ZE_OK);
    assert_int_equal(v.uuid.bytes[0], 0xab);
    uint32_t want = ZE_VATTR_BIT(ZE_VATTR_POSITION) | ZE_VATTR_BIT(ZE_VATTR_NORMAL) |
                    ZE_VATTR_BIT(ZE_VATTR_TEXCOORD0) | ZE_VATTR_BIT(ZE_VATTR_COLOR0);
    assert_int_equal(v.attributes, want);
    assert_int_equal(v.vertex_stride, 12 + 12 + 8 + 16);
    assert_int_equal(v.submesh_count, 2); /* the points primitive is skipped */
    assert_int_equal(v.vertex_count, 6);
    assert_int_equal(v.index_count, 3 + 3);
    ze_zemesh_submesh_t s0, s1;
    ze_asset_zemesh_submesh(&v, 0, &s0);
    ze_asset_zemesh_submesh(&v, 1, &s1);
    assert_int_equal(s0.index_count, 3);
    assert_int_equal(s1.index_offset, 3);
    assert_int_equal(s1.vertex_offset, 3);
    assert_memory_equal(s0.material.bytes, g_mats[1].bytes, 16);
    assert_true(ze_uuid_is_nil(s1.material));
    /* The fan (1,2,0) rebased onto the second primitive's vertices, which
       meshoptimizer renumbers in first-use order: source 1, 2, 0 become
       3, 4, 5. */
    assert_int_equal(v.indices[3], 3);
    assert_int_equal(v.indices[4], 4);
    assert_int_equal(v.indices[5], 5);
    assert_true(v.max.x == 1.0f && v.min.z == 0.0f);
    /* Streams: the first primitive's normal and uv, default colour; the
       second's colour, default normal (0) and uv (0). */
    const uint8_t *v1 = v.vertices + 1 * v.vertex_stride;
    assert_true(f32_at(v1 + v.attribute_offset[ZE_VATTR_POSITION]) == 1.0f);
    assert_true(f32_at(v1 + v.attribute_offset[ZE_VATTR_NORMAL] + 8) == 1.0f);
    assert_true(f32_at(v1 + v.attribute_offset[ZE_VATTR_TEXCOORD0]) == 1.0f);
    assert_true(f32_at(v1 + v.attribute_offset[ZE_VATTR_COLOR0] + 12) == 1.0f);
    const uint8_t *v5 = v.vertices + 4 * v.vertex_stride; /* source vertex 2 */
    assert_true(f32_at(v5 + v.attribute_offset[ZE_VATTR_COLOR0] + 8) == 1.0f);
    assert_true(f32_at(v5 + v.attribute_offset[ZE_VATTR_COLOR0] + 12) == 0.5f);
    assert_true(f32_at(v5 + v.attribute_offset[ZE_VATTR_NORMAL] + 8) == 0.0f);
    /* Same model, same bytes; a fresh import too. */
    uint8_t *again;
    size_t again_size;
    write_mesh(m, &again, &again_size);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, bytes, size);
    ze_free(ze_mem_system_allocator(), again, again_size);
    ze_model_t *m2 = import(two_prims());
    write_mesh(m2, &again, &again_size);
    assert_memory_equal(again, bytes, size);
    ze_free(ze_mem_system_allocator(), again, again_size);
    /* A mesh of points only has nothing to cook. */
    assert_int_equal(ze_asset_zemesh_write(m, 1, g_mats[0], NULL, ze_mem_system_allocator(), &again,
                                           &again_size),
                     ZE_ERR_NOT_FOUND);
    ze_asset_model_destroy(m2);
    ze_asset_model_destroy(m);
    ze_free(ze_mem_system_allocator(), bytes, size);
}

/* Rewrite the checksum so that only the field under test is wrong. */
static void reseal(uint8_t *b, size_t size)
{
    uint64_t sum = ze_hash64(b, size - 8, 0);
    for (int i = 0; i < 8; i++)
        b[size - 8 + (size_t)i] = (uint8_t)(sum >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static ze_result read_copy(const uint8_t *src, size_t size, void (*edit)(uint8_t *, size_t),
                           ze__asset_error_t *err)
{
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *b = ze_alloc(a, size ? size : 1, 16);
    memcpy(b, src, size);
    if (edit) {
        edit(b, size);
        reseal(b, size);
    }
    ze_zemesh_view_t v;
    ze_result r = ze__asset_zemesh_read(b, size, &v, err);
    ze_free(a, b, size ? size : 1);
    return r;
}

static void e_version(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 8, 3);
}
static void e_attr(uint8_t *b, size_t n)
{
    (void)n;
    b[13] |= 0x01; /* bit 8: an unknown stream */
}
static void e_stride(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 32, 44);
}
static void e_vcount(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 36, 5);
}
static void e_subs(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 44, 0);
}
static void e_index(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 96 + 2 * 64 + 2 * 16, 5); /* first index: a vertex of the second submesh */
}
static void e_sub_range(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 96 + 64 + 4, 6);          /* second submesh claims 6 indices, */
    put32(b + 96 + 2 * 64 + 16 + 4, 6); /* so does its level 0 */
}
static void e_bounds(uint8_t *b, size_t n)
{
    (void)n;
    put32(b + 48, 0x7fc00000u); /* NaN */
}

static void test_zemesh_rejections(void **state)
{
    (void)state;
    ze_model_t *m = import(two_prims());
    uint8_t *bytes;
    size_t size;
    write_mesh(m, &bytes, &size);
    ze_asset_model_destroy(m);
    ze__asset_error_t err;
    for (size_t cut = 0; cut < size; cut++)
        assert_int_not_equal(read_copy(bytes, cut, NULL, &err), ZE_OK);
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *b = ze_alloc(a, size, 16);
    ze_zemesh_view_t v;
    for (size_t i = 0; i < size; i++) {
        memcpy(b, bytes, size);
        b[i] ^= 0x10;
        assert_int_not_equal(ze__asset_zemesh_read(b, size, &v, &err), ZE_OK);
    }
    ze_free(a, b, size);
    assert_int_equal(read_copy(bytes, size, e_version, &err), ZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "version 3"));
    struct {
        void (*edit)(uint8_t *, size_t);
        const char *expect;
    } cases[] = {
        {e_attr, "unknown attribute bits"}, {e_stride, "vertex stride"},
        {e_vcount, "do not add up"},        {e_subs, "no submeshes"},
        {e_index, "outside its vertices"},  {e_sub_range, "runs past"},
        {e_bounds, "invalid bounds"},
    };
    for (size_t i = 0; i < ZE_COUNTOF(cases); i++) {
        assert_int_equal(read_copy(bytes, size, cases[i].edit, &err), ZE_ERR_PARSE);
        if (!strstr(err.message, cases[i].expect))
            fail_msg("'%s' lacks '%s'", err.message, cases[i].expect);
    }
    /* The checksum alone. */
    b = ze_alloc(a, size, 16);
    memcpy(b, bytes, size);
    b[size - 1] ^= 1;
    assert_int_equal(ze__asset_zemesh_read(b, size, &v, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "checksum"));
    /* Views need 4-byte alignment. */
    if (size >= ZE_MIB(1)) { /* bounds the copy below for the optimizer too */
        fail();
        return;
    }
    uint8_t *odd = ze_alloc(a, size + 1, 16);
    memcpy(odd + 1, bytes, size);
    assert_int_equal(ze__asset_zemesh_read(odd + 1, size, &v, &err), ZE_ERR_INVALID_ARG);
    ze_free(a, odd, size + 1);
    ze_free(a, b, size);
    ze_free(a, bytes, size);
}

static void test_zematerial(void **state)
{
    (void)state;
    ze_model_t *m = import(two_prims());
    ze_allocator_t a = ze_mem_system_allocator();
    size_t size;
    ze_uuid_t id = {{9}};
    char *raw;
    assert_int_equal(ze_asset_zematerial_write(m, 1, id, g_tex, a, &raw, &size), ZE_OK);
    /* The text has no NUL; keep a terminated copy for the string searches. */
    static char text[4096];
    assert_true(size < sizeof text);
    memcpy(text, raw, size);
    text[size] = 0;
    ze_zematerial_t mat;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zematerial_read(text, size, &mat, &err), ZE_OK);
    assert_memory_equal(mat.uuid.bytes, id.bytes, 16);
    assert_string_equal(mat.name, "textured");
    assert_int_equal(mat.alpha_mode, ZE_ALPHA_BLEND);
    assert_true(mat.roughness_factor == 0.25f && mat.metallic_factor == 1.0f);
    assert_true(mat.emissive_factor.z == 1.0f && mat.emissive_strength == 1.0f);
    assert_true(mat.base_color.present && !mat.normal.present);
    assert_memory_equal(mat.base_color.texture.bytes, g_tex[0].bytes, 16);
    assert_true(mat.base_color.rotation == 0.5f && mat.base_color.uv_scale.x == 1.0f);
    /* Deterministic text. */
    char *again;
    size_t again_size;
    assert_int_equal(ze_asset_zematerial_write(m, 1, id, g_tex, a, &again, &again_size), ZE_OK);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, text, size);
    ze_free(a, again, again_size);
    /* Every truncation inside the object is rejected. */
    const char *close = strrchr(text, '}');
    for (size_t cut = 0; cut < (size_t)(close - text); cut++)
        assert_int_not_equal(ze__asset_zematerial_read(text, cut, &mat, &err), ZE_OK);
    struct {
        const char *from, *to;
        ze_result r;
    } edits[] = {
        {"\"version\": 1", "\"version\": 2", ZE_ERR_UNSUPPORTED},
        {"\"alpha_mode\": \"blend\"", "\"alpha_mode\": \"fancy\"", ZE_ERR_PARSE},
        {"\"roughness_factor\": 0.25", "\"roughness_factor\": 1.25", ZE_ERR_PARSE},
        {"\"double_sided\": false", "\"double_sided\": 0", ZE_ERR_PARSE},
        {"\"name\":", "\"extra\": 1, \"name\":", ZE_ERR_PARSE},
        {"\"format\": \"zematerial\"", "\"format\": \"zemesh\"", ZE_ERR_PARSE},
        {"\"texcoord\": 0", "\"texcoord\": 0.5", ZE_ERR_PARSE},
        {"\"uuid\": \"09", "\"uuid\": \"x9", ZE_ERR_PARSE},
    };
    for (size_t i = 0; i < ZE_COUNTOF(edits); i++) {
        char buf[4096];
        const char *at = strstr(text, edits[i].from);
        if (!at)
            fail_msg("'%s' not in:\n%.*s", edits[i].from, (int)size, text);
        int n = snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)(at - text), text, edits[i].to,
                         (int)(size - (size_t)(at - text) - strlen(edits[i].from)),
                         at + strlen(edits[i].from));
        assert_int_equal(ze__asset_zematerial_read(buf, (size_t)n, &mat, &err), edits[i].r);
        assert_true(err.message[0] != 0);
    }
    ze_free(a, raw, size);
    ze_asset_model_destroy(m);
}

/* ------------------------------------------------------------- the cooker */

static size_t list_dir(const char *dir, char names[][128], size_t max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(names[n++], 128, "%.127s", e->d_name);
    }
    closedir(d);
    return n;
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    size_t n = fread(buf, 1, cap, fp);
    fclose(fp);
    return n;
}

static void remove_tree(const char *dir)
{
    char names[64][128];
    size_t n = list_dir(dir, names, 64);
    for (size_t i = 0; i < n; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

static void test_cook_deterministic_and_atomic(void **state)
{
    (void)state;
    struct stat st;
    if (stat(ASSETS "/manifest.json", &st) != 0) {
        print_message("[  SKIPPED ] %s absent: the shared test corpus is missing\n", ASSETS);
        skip();
        return;
    }
    char root[] = "/tmp/ze_cook_XXXXXX";
    assert_non_null(mkdtemp(root));
    char out1[600], out2[600];
    snprintf(out1, sizeof out1, "%s/a/b", root);
    snprintf(out2, sizeof out2, "%s/c", root);
    const char *src = ASSETS "/gltf/MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf";
    ze_cook_result_t r1, r2;
    ze_cook_desc_t d1 = {.source = src, .out_dir = out1};
    ze_cook_desc_t d2 = {.source = src, .out_dir = out2};
    assert_int_equal(ze_asset_cook(&d1, &r1), ZE_OK);
    assert_int_equal(ze_asset_cook(&d2, &r2), ZE_OK);
    assert_string_equal(r1.importer, "gltf");
    assert_int_equal(r1.source.primitives, 7);
    assert_int_equal(r1.cooked.meshes, 3);
    assert_int_equal(r1.cooked.submeshes, 3);
    assert_int_equal(r1.cooked.skipped_primitives, 4);
    assert_int_equal(r1.cooked.indices, 18 + 12 + 18);
    assert_int_equal(r1.artifact_count, 4); /* three meshes and the scene file */
    for (uint32_t i = 1; i < r1.artifact_count; i++)
        assert_true(strcmp(r1.artifacts[i - 1], r1.artifacts[i]) < 0);
    assert_string_equal(r1.artifacts[0], "MeshPrimitiveModes.mesh4.zemesh");
    /* Identical bytes in both folders, and every mesh reads back. */
    static uint8_t a[1 << 16] __attribute__((aligned(16))), b[1 << 16];
    for (uint32_t i = 0; i < r1.artifact_count; i++) {
        char p1[800], p2[800];
        snprintf(p1, sizeof p1, "%s/%s", out1, r1.artifacts[i]);
        snprintf(p2, sizeof p2, "%s/%s", out2, r2.artifacts[i]);
        size_t n1 = read_all(p1, a, sizeof a), n2 = read_all(p2, b, sizeof b);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        if (r1.sub_asset_types[i] == ZE_ASSET_TYPE_SCENE)
            continue;
        ze_zemesh_view_t v;
        ze__asset_error_t err;
        assert_int_equal(ze__asset_zemesh_read(a, n1, &v, &err), ZE_OK);
    }
    char names[16][128];
    assert_int_equal(list_dir(out1, names, 16), 4); /* no temporaries left */
    /* The sub-asset uuids derive from the source's. */
    ze_uuid_t want = ze_uuid_v5(r1.source_uuid, "mesh/4", 6);
    ze_zemesh_view_t v;
    char p[800];
    snprintf(p, sizeof p, "%s/%s", out1, r1.artifacts[0]);
    size_t n = read_all(p, a, sizeof a);
    assert_int_equal(ze__asset_zemesh_read(a, n, &v, NULL), ZE_OK);
    assert_memory_equal(v.uuid.bytes, want.bytes, 16);
    ze_asset_cook_result_release(&r1);
    ze_asset_cook_result_release(&r2);

    /* A failing import writes nothing, not even the folder. */
    char out3[600];
    snprintf(out3, sizeof out3, "%s/d", root);
    ze_diag_capture_t diag3 = {0};
    ze_cook_desc_t d3 = {.source = ASSETS "/gltf-invalid/mesh_data/index_buffer_oob.gltf",
                         .out_dir = out3,
                         .diag = ze_diag_capture_sink(&diag3)};
    ze_cook_result_t r3;
    assert_int_not_equal(ze_asset_cook(&d3, &r3), ZE_OK);
    /* reported once, naming the source and the JSON pointer */
    assert_int_equal(diag3.count, 1);
    assert_non_null(strstr(diag3.last, "index_buffer_oob.gltf: "));
    assert_non_null(strstr(diag3.last_message, "/meshes/0/primitives/0/indices"));
    assert_int_equal(r3.artifact_count, 0);
    ze_asset_cook_result_release(&r3);
    assert_int_not_equal(stat(out3, &st), 0);
    /* An unknown source type is refused before anything happens. */
    ze_cook_desc_t d4 = {.source = ASSETS "/obj/spider.mtl", .out_dir = out3};
    assert_int_equal(ze_asset_cook(&d4, &r3), ZE_ERR_UNSUPPORTED);
    ze_asset_cook_result_release(&r3);
    /* Writing into a folder that cannot be created fails cleanly. */
    ze_cook_desc_t d5 = {.source = src, .out_dir = "/proc/ze_no_such_dir/x"};
    assert_int_equal(ze_asset_cook(&d5, &r3), ZE_ERR_IO);
    ze_asset_cook_result_release(&r3);

    remove_tree(out1);
    snprintf(p, sizeof p, "%s/a", root);
    rmdir(p);
    remove_tree(out2);
    rmdir(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zemesh_round_trip),
        cmocka_unit_test(test_zemesh_rejections),
        cmocka_unit_test(test_zematerial),
        cmocka_unit_test(test_cook_deterministic_and_atomic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
