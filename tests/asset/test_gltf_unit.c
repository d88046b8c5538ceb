/* The glTF importer on small hand-written documents: decoding (interleaved,
 * normalized, sparse, matrix padding, strips and fans), the node hierarchy,
 * materials and cameras, GLB containers, URI resolution against a folder,
 * memory limits, and one rejection per rule of the specification that the
 * importer enforces, each checked for its JSON pointer and message.
 * Documents are written with ' for " to stay readable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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

/* ------------------------------------------------------------- helpers */

static char g_doc[1 << 16];

/* printf into g_doc, then ' -> ". */
static const char *doc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *doc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g_doc, sizeof g_doc, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof g_doc);
    for (char *p = g_doc; *p; p++)
        if (*p == '\'')
            *p = '"';
    return g_doc;
}

static char g_b64[1 << 14];

static const char *b64(const void *data, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *p = data;
    size_t o = 0;
    assert_true(n / 3 * 4 + 8 < sizeof g_b64);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        g_b64[o++] = t[(v >> 18) & 63];
        g_b64[o++] = t[(v >> 12) & 63];
        g_b64[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        g_b64[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    g_b64[o] = 0;
    return g_b64;
}

static ze_result import(const char *json, ze_model_t **m, ze__asset_error_t *err)
{
    ze_gltf_desc_t desc = {.alloc = ze_mem_system_allocator()};
    return ze__asset_import_gltf_memory(json, strlen(json), &desc, m, err);
}

static ze_model_t *import_ok(const char *json)
{
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_result r = import(json, &m, &err);
    if (r != ZE_OK)
        fail_msg("rejected: %s\n%s", err.message, json);
    return m;
}

static void import_fails(const char *json, const char *expect)
{
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_result r = import(json, &m, &err);
    if (r == ZE_OK)
        fail_msg("accepted, expected '%s':\n%s", expect, json);
    assert_null(m);
    assert_null(strchr(err.message, '\n'));
    if (!strstr(err.message, expect))
        fail_msg("message '%s' lacks '%s'", err.message, expect);
}

/* A triangle: positions (0,0,0) (1,0,0) (0,1,0) then u16 indices 0 1 2. */
#define TRI_B64 "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA="
#define ASSET   "'asset':{'version':'2.0'}"
#define TRI_BUFFER \
    "'buffers':[{'byteLength':44,'uri':'data:application/octet-stream;base64," TRI_B64 "'}]"
#define TRI_VIEWS                                                 \
    "'bufferViews':[{'buffer':0,'byteLength':36,'target':34962}," \
    "{'buffer':0,'byteOffset':36,'byteLength':6,'target':34963}]"
#define TRI_ACCESSORS                                                              \
    "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"   \
    "'min':[0,0,0],'max':[1,1,0]},{'bufferView':1,'componentType':5123,'count':3," \
    "'type':'SCALAR'}]"
#define TRI_MESH "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}]"
#define TRI      ASSET "," TRI_BUFFER "," TRI_VIEWS "," TRI_ACCESSORS

/* ------------------------------------------------------------ decoding */

static void test_triangle(void **state)
{
    (void)state;
    ze_model_t *m = import_ok(doc("{" TRI "," TRI_MESH "}"));
    assert_int_equal(m->mesh_count, 1);
    const ze_model_primitive_t *p = &m->meshes[0].primitives[0];
    assert_false(p->skipped);
    assert_int_equal(p->vertex_count, 3);
    assert_int_equal(p->index_count, 3);
    assert_int_equal(p->attributes, ZE_VATTR_BIT(ZE_VATTR_POSITION));
    assert_true(p->positions[3] == 1.0f && p->positions[7] == 1.0f);
    assert_int_equal(p->indices[2], 2);
    assert_int_equal(p->material, -1);
    assert_true(p->min.x == 0.0f && p->max.y == 1.0f && p->max.z == 0.0f);
    assert_int_equal(m->stats.vertices, 3);
    assert_int_equal(m->stats.indices, 3);
    assert_int_equal(m->default_scene, -1);
    ze_asset_model_destroy(m);
}

/* Five vertices along a zigzag, drawn as a strip, a fan and, unindexed,
 * as points. */
static void test_strip_fan_points(void **state)
{
    (void)state;
    float v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0};
    char json[8192];
    snprintf(json, sizeof json,
             "{" ASSET ",'buffers':[{'byteLength':60,'uri':'data:application/octet-stream;base64,"
             "%s'}],'bufferViews':[{'buffer':0,'byteLength':60}],'accessors':[{'bufferView':0,"
             "'componentType':5126,'count':5,'type':'VEC3','min':[0,0,0],'max':[1,2,0]}],"
             "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':5},"
             "{'attributes':{'POSITION':0},'mode':6},{'attributes':{'POSITION':0},'mode':0},"
             "{'attributes':{'POSITION':0},'mode':3}]}]}",
             b64(v, sizeof v));
    ze_model_t *m = import_ok(doc("%s", json));
    const ze_model_primitive_t *strip = &m->meshes[0].primitives[0];
    const ze_model_primitive_t *fan = &m->meshes[0].primitives[1];
    static const uint32_t want_strip[9] = {0, 1, 2, 1, 3, 2, 2, 3, 4};
    static const uint32_t want_fan[9] = {1, 2, 0, 2, 3, 0, 3, 4, 0};
    assert_int_equal(strip->index_count, 9);
    assert_memory_equal(strip->indices, want_strip, sizeof want_strip);
    assert_int_equal(fan->index_count, 9);
    assert_memory_equal(fan->indices, want_fan, sizeof want_fan);
    assert_true(m->meshes[0].primitives[2].skipped);
    assert_null(m->meshes[0].primitives[2].positions);
    assert_true(m->meshes[0].primitives[3].skipped);
    assert_int_equal(m->stats.skipped_primitives, 2);
    assert_int_equal(m->stats.vertices, 20);
    assert_int_equal(m->stats.indices, 0);
    ze_asset_model_destroy(m);
}

/* POSITION and NORMAL interleaved (stride 24), TEXCOORD_0 as normalized
 * bytes with stride 4, COLOR_0 as normalized RGB shorts (alpha 1 added). */
static void test_interleaved_and_normalized(void **state)
{
    (void)state;
    uint8_t buf[3 * 24 + 3 * 4 + 3 * 8];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < 3; i++) {
        float pos[3] = {(float)i, (float)(i * 2), 0}, nrm[3] = {0, 0, 1};
        memcpy(buf + i * 24, pos, 12);
        memcpy(buf + i * 24 + 12, nrm, 12);
        buf[72 + i * 4] = (uint8_t)(i == 2 ? 255 : i * 51);
        buf[72 + i * 4 + 1] = 0;
        uint16_t rgb[3] = {65535, 0, (uint16_t)(i * 1000)};
        memcpy(buf + 84 + i * 8, rgb, 6);
    }
    char json[8192];
    snprintf(json, sizeof json,
             "{" ASSET ",'buffers':[{'byteLength':%zu,'uri':'data:application/gltf-buffer;base64,"
             "%s'}],'bufferViews':[{'buffer':0,'byteLength':72,'byteStride':24},"
             "{'buffer':0,'byteOffset':72,'byteLength':12,'byteStride':4},"
             "{'buffer':0,'byteOffset':84,'byteLength':24,'byteStride':8}],"
             "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
             "'min':[0,0,0],'max':[2,4,0]},{'bufferView':0,'byteOffset':12,'componentType':5126,"
             "'count':3,'type':'VEC3'},{'bufferView':1,'componentType':5121,'normalized':true,"
             "'count':3,'type':'VEC2'},{'bufferView':2,'componentType':5123,'normalized':true,"
             "'count':3,'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0,"
             "'NORMAL':1,'TEXCOORD_0':2,'COLOR_0':3}}]}]}",
             sizeof buf, b64(buf, sizeof buf));
    ze_model_t *m = import_ok(doc("%s", json));
    const ze_model_primitive_t *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->attributes,
                     ZE_VATTR_BIT(ZE_VATTR_POSITION) | ZE_VATTR_BIT(ZE_VATTR_NORMAL) |
                         ZE_VATTR_BIT(ZE_VATTR_TEXCOORD0) | ZE_VATTR_BIT(ZE_VATTR_COLOR0));
    assert_true(p->positions[3 * 2 + 1] == 4.0f);
    assert_true(p->normals[3 * 1 + 2] == 1.0f);
    assert_true(fabsf(p->texcoords[0][2] - 0.2f) < 1e-6f);
    assert_true(p->texcoords[0][4] == 1.0f);
    assert_true(p->colors[0] == 1.0f && p->colors[3] == 1.0f);
    assert_true(fabsf(p->colors[4 * 2 + 2] - 2000.0f / 65535.0f) < 1e-6f);
    /* Non-indexed triangles get 0..n-1. */
    assert_int_equal(p->index_count, 3);
    assert_int_equal(p->indices[1], 1);
    ze_asset_model_destroy(m);
}

/* A sparse accessor over a base (values substituted at elements 1 and 3)
 * and one over implicit zeros, each drawn as a strip. */
static void test_sparse(void **state)
{
    (void)state;
    float base[4 * 3] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    uint16_t idx[2] = {1, 3};
    float vals[6] = {5, 5, 0, 7, 7, 0};
    uint8_t all[48 + 4 + 24];
    memcpy(all, base, 48);
    memcpy(all + 48, idx, 4);
    memcpy(all + 52, vals, 24);
    char json[8192];
    snprintf(json, sizeof json,
             "{" ASSET ",'buffers':[{'byteLength':%zu,'uri':'data:application/octet-stream;"
             "base64,%s'}],'bufferViews':[{'buffer':0,'byteLength':48},{'buffer':0,'byteOffset':"
             "48,'byteLength':4},{'buffer':0,'byteOffset':52,'byteLength':24}],'accessors':["
             "{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3','min':[0,0,0],'max':"
             "[7,7,0],'sparse':{'count':2,'indices':{'bufferView':1,'componentType':5123},"
             "'values':{'bufferView':2}}},{'componentType':5126,'count':4,'type':'VEC3','min':"
             "[0,0,0],'max':[7,7,0],'sparse':{'count':2,'indices':{'bufferView':1,"
             "'componentType':5123},'values':{'bufferView':2}}}],'meshes':[{'primitives':["
             "{'attributes':{'POSITION':0},'mode':5},{'attributes':{'POSITION':1},'mode':5}]}]}",
             sizeof all, b64(all, sizeof all));
    ze_model_t *m = import_ok(doc("%s", json));
    const float *a = m->meshes[0].primitives[0].positions;
    const float *z = m->meshes[0].primitives[1].positions;
    assert_true(a[0] == 0 && a[3] == 5 && a[4] == 5 && a[6] == 2 && a[9] == 7 && a[10] == 7);
    assert_true(z[0] == 0 && z[3] == 5 && z[6] == 0 && z[9] == 7);
    assert_true(m->meshes[0].primitives[1].max.x == 7.0f);
    ze_asset_model_destroy(m);
}

/* MAT2 of bytes: each column starts on a 4-byte boundary. The padding bytes
 * (200) would break the declared min/max if they were read. */
static void test_matrix_column_padding(void **state)
{
    (void)state;
    uint8_t buf[16] = {1, 2, 200, 200, 3, 4, 200, 200, 5, 6, 200, 200, 7, 8, 200, 200};
    char json[4096];
    snprintf(json, sizeof json,
             "{" ASSET ",'buffers':[{'byteLength':16,'uri':'data:application/octet-stream;base64,"
             "%s'}],'bufferViews':[{'buffer':0,'byteLength':16}],'accessors':[{'bufferView':0,"
             "'componentType':5121,'count':2,'type':'MAT2','min':[1,2,3,4],'max':[5,6,7,8]}]}",
             b64(buf, sizeof buf));
    ze_model_t *m = import_ok(doc("%s", json));
    ze_asset_model_destroy(m);
    /* Float bounds are compared after rounding to single precision. */
    float f[3] = {0.1f, 0.2f, 0.3f};
    snprintf(json, sizeof json,
             "{" ASSET ",'buffers':[{'byteLength':12,'uri':'data:application/octet-stream;base64,"
             "%s'}],'bufferViews':[{'buffer':0,'byteLength':12}],'accessors':[{'bufferView':0,"
             "'componentType':5126,'count':1,'type':'VEC3','min':[0.1,0.2,0.3],'max':[0.1,0.2,"
             "0.3]}]}",
             b64(f, sizeof f));
    m = import_ok(doc("%s", json));
    ze_asset_model_destroy(m);
}

/* ------------------------------------------------- nodes, materials... */

static void test_nodes_scenes_cameras(void **state)
{
    (void)state;
    /* Node 1's matrix: scale 2, a quarter turn about Z, translation
       (1,2,3). */
    ze_model_t *m = import_ok(
        doc("{" TRI "," TRI_MESH ",'nodes':[{'name':'root','children':[1,2]},{'matrix':[0,2,0,0,"
            "-2,0,0,0,0,0,2,0,1,2,3,1],'children':[3]},{'translation':[1,0,0],'rotation':[0,0,0,1],"
            "'scale':[1,1,1],'camera':1},{'mesh':0}],'scenes':[{'nodes':[0]}],'scene':0,"
            "'cameras':[{'type':'perspective','perspective':{'yfov':0.8,'znear':0.1}},"
            "{'type':'orthographic','orthographic':{'xmag':1,'ymag':-1,'znear':0,'zfar':10}}]}"));
    assert_int_equal(m->node_count, 4);
    assert_string_equal(m->nodes[0].name, "root");
    assert_int_equal(m->nodes[0].parent, -1);
    assert_int_equal(m->nodes[3].parent, 1);
    assert_int_equal(m->nodes[0].child_count, 2);
    const ze_model_node_t *n1 = &m->nodes[1];
    assert_true(n1->has_matrix);
    assert_true(fabsf(n1->scale.x - 2) < 1e-6f && fabsf(n1->scale.z - 2) < 1e-6f);
    assert_true(fabsf(n1->rotation.z - sqrtf(0.5f)) < 1e-6f &&
                fabsf(n1->rotation.w - sqrtf(0.5f)) < 1e-6f);
    assert_true(n1->translation.y == 2.0f && n1->local.m[3][2] == 3.0f);
    assert_int_equal(m->nodes[2].camera, 1);
    assert_true(m->nodes[2].local.m[3][0] == 1.0f);
    assert_int_equal(m->stats.root_nodes, 1);
    assert_int_equal(m->stats.max_node_depth, 3);
    assert_int_equal(m->scene_count, 1);
    assert_int_equal(m->default_scene, 0);
    assert_int_equal(m->scenes[0].nodes[0], 0);
    assert_int_equal(m->cameras[0].type, ZE_CAMERA_PERSPECTIVE);
    assert_true(m->cameras[0].zfar == 0.0f && m->cameras[0].aspect_ratio == 0.0f);
    assert_int_equal(m->cameras[1].type, ZE_CAMERA_ORTHOGRAPHIC);
    assert_true(m->cameras[1].ymag == -1.0f);
    ze_asset_model_destroy(m);
}

#define PNG_1X1                                                                          \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAA" \
    "BJRU5ErkJggg=="

static void test_materials_textures(void **state)
{
    (void)state;
    ze_model_t *m = import_ok(
        doc("{" TRI ",'extensionsUsed':['KHR_texture_transform','KHR_materials_emissive_strength'],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1,'material':1}]}],"
            "'images':[{'uri':'data:image/png;base64," PNG_1X1 "','name':'px'}],"
            "'samplers':[{'magFilter':9729,'minFilter':9987,'wrapS':33648}],"
            "'textures':[{'source':0,'sampler':0},{'source':0}],"
            "'materials':[{},{'name':'m','pbrMetallicRoughness':{'baseColorFactor':[1,0.5,0.25,1],"
            "'metallicFactor':0,'baseColorTexture':{'index':1,'texCoord':1,'extensions':{"
            "'KHR_texture_transform':{'offset':[0.5,0],'rotation':1.5,'scale':[2,3],"
            "'texCoord':0}}}},'normalTexture':{'index':0,'scale':0.5},'occlusionTexture':{"
            "'index':0,'strength':0.25},'emissiveFactor':[1,1,0],'alphaMode':'MASK',"
            "'alphaCutoff':0.3,'doubleSided':true,'extensions':{'KHR_materials_emissive_strength':"
            "{'emissiveStrength':4}}}]}"));
    assert_int_equal(m->material_count, 2);
    const ze_model_material_t *d = &m->materials[0], *x = &m->materials[1];
    assert_true(d->base_color_factor.w == 1.0f && d->metallic_factor == 1.0f);
    assert_int_equal(d->base_color.texture, -1);
    assert_int_equal(d->alpha_mode, ZE_ALPHA_OPAQUE);
    assert_string_equal(x->name, "m");
    assert_true(x->base_color_factor.y == 0.5f && x->metallic_factor == 0.0f);
    assert_int_equal(x->base_color.texture, 1);
    assert_int_equal(x->base_color.texcoord, 0); /* the transform's override */
    assert_true(x->base_color.has_transform && x->base_color.offset.x == 0.5f &&
                x->base_color.rotation == 1.5f && x->base_color.uv_scale.y == 3.0f);
    assert_true(x->normal.scale == 0.5f && x->occlusion.scale == 0.25f);
    assert_int_equal(x->alpha_mode, ZE_ALPHA_MASK);
    assert_true(x->double_sided && x->emissive_strength == 4.0f);
    assert_int_equal(m->meshes[0].primitives[0].material, 1);
    assert_int_equal(m->images[0].format, ZE_IMAGE_FORMAT_PNG);
    assert_int_equal(m->images[0].width, 1);
    assert_null(m->images[0].uri);
    assert_int_equal(m->textures[1].sampler, -1);
    assert_int_equal(m->samplers[0].wrap_t, 0);
    ze_asset_model_destroy(m);
}

/* ------------------------------------------------------------------ GLB */

static size_t make_glb(uint8_t *out, size_t cap, const char *json, const void *bin, size_t bin_len,
                       size_t bin_pad, const char *extra_chunk)
{
    size_t jlen = strlen(json), jpad = (4 - jlen % 4) % 4;
    size_t total = 12 + 8 + jlen + jpad;
    if (bin)
        total += 8 + bin_len + bin_pad;
    if (extra_chunk)
        total += 8 + 4;
    assert_true(total <= cap);
    uint32_t h[3] = {0x46546c67, 2, (uint32_t)total};
    memcpy(out, h, 12);
    uint32_t ch[2] = {(uint32_t)(jlen + jpad), 0x4e4f534a};
    memcpy(out + 12, ch, 8);
    memcpy(out + 20, json, jlen);
    memset(out + 20 + jlen, ' ', jpad);
    size_t pos = 20 + jlen + jpad;
    if (bin) {
        uint32_t bh[2] = {(uint32_t)(bin_len + bin_pad), 0x004e4942};
        memcpy(out + pos, bh, 8);
        memcpy(out + pos + 8, bin, bin_len);
        memset(out + pos + 8 + bin_len, 0, bin_pad);
        pos += 8 + bin_len + bin_pad;
    }
    if (extra_chunk) {
        uint32_t eh[2] = {4, 0};
        memcpy(eh + 1, extra_chunk, 4);
        memcpy(out + pos, eh, 8);
        memset(out + pos + 8, 0, 4);
        pos += 12;
    }
    return pos;
}

static ze_result import_bytes(const uint8_t *b, size_t n, ze__asset_error_t *err)
{
    ze_model_t *m = NULL;
    ze_result r = ze__asset_import_gltf_memory(b, n, NULL, &m, err);
    if (r == ZE_OK) {
        assert_int_equal(m->stats.vertices, 3);
        assert_true(m->binary);
        ze_asset_model_destroy(m);
    }
    return r;
}

static void test_glb(void **state)
{
    (void)state;
    static const uint8_t tri[44] = {0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
                                    0x3f, 0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0x80, 0x3f, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0};
    char json[2048];
    snprintf(json, sizeof json, "%s",
             doc("{" ASSET ",'buffers':[{'byteLength':42}]," TRI_VIEWS "," TRI_ACCESSORS
                 "," TRI_MESH "}"));
    static uint8_t glb[8192];
    ze__asset_error_t err;
    size_t n = make_glb(glb, sizeof glb, json, tri, 42, 2, NULL);
    assert_int_equal(import_bytes(glb, n, &err), ZE_OK);
    /* An unknown chunk type after BIN is ignored. */
    n = make_glb(glb, sizeof glb, json, tri, 42, 2, "XTRA");
    assert_int_equal(import_bytes(glb, n, &err), ZE_OK);
    /* A second JSON chunk is not. */
    n = make_glb(glb, sizeof glb, json, tri, 42, 2, "JSON");
    assert_int_not_equal(import_bytes(glb, n, &err), ZE_OK);
    assert_non_null(strstr(err.message, "second JSON chunk"));
    /* A BIN chunk 6 bytes longer than byteLength: more than padding. */
    n = make_glb(glb, sizeof glb, json, tri, 44, 4, NULL);
    assert_int_not_equal(import_bytes(glb, n, &err), ZE_OK);
    assert_non_null(strstr(err.message, "plus 3 bytes of padding"));
    /* No BIN chunk for a buffer without uri. */
    n = make_glb(glb, sizeof glb, json, NULL, 0, 0, NULL);
    assert_int_not_equal(import_bytes(glb, n, &err), ZE_OK);
    assert_non_null(strstr(err.message, "no BIN chunk"));
    /* Every truncation of a valid GLB is rejected (never a crash). */
    n = make_glb(glb, sizeof glb, json, tri, 42, 2, NULL);
    for (size_t cut = 0; cut < n; cut++)
        assert_int_not_equal(import_bytes(glb, cut, &err), ZE_OK);
    /* Header fields: version, a chunk length that wraps. */
    glb[4] = 1;
    assert_int_equal(import_bytes(glb, n, &err), ZE_ERR_UNSUPPORTED);
    glb[4] = 2;
    uint32_t huge = 0xfffffffcu;
    memcpy(glb + 12, &huge, 4);
    assert_int_not_equal(import_bytes(glb, n, &err), ZE_OK);
    assert_non_null(strstr(err.message, "runs past the end"));
    /* JSON padded with NUL instead of spaces is not JSON. */
    n = make_glb(glb, sizeof glb, json, tri, 42, 2, NULL);
    size_t jlen = strlen(json);
    if (jlen % 4) {
        glb[20 + jlen] = 0;
        assert_int_not_equal(import_bytes(glb, n, &err), ZE_OK);
        assert_non_null(strstr(err.message, "invalid JSON"));
    }
}

/* --------------------------------------------------------- external files */

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

static void test_external_uris(void **state)
{
    (void)state;
    char dir[] = "/tmp/ze_gltf_uri_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    static const uint8_t tri[44] = {0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
                                    0x3f, 0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0x80, 0x3f, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0};
    write_file(dir, "tri angle.bin", tri, sizeof tri);
    write_file(dir, "short.bin", tri, 10);
    ze_gltf_desc_t desc = {.base_dir = dir};
    struct {
        const char *uri;
        const char *expect; /* NULL: imports */
    } cases[] = {
        {"tri%20angle.bin", NULL},
        {"sub/../tri%20angle.bin", NULL},
        {"./sub/./../tri%20angle.bin", NULL},
        {"../tri%20angle.bin", "escapes the source's folder"},
        {"sub/../../x.bin", "escapes the source's folder"},
        {"sub%2F..%2F..%2Fx.bin", "escapes the source's folder"},
        {"/etc/passwd", "absolute paths are refused"},
        {"file:///etc/passwd", "scheme is not supported"},
        {"http://example.com/a.bin", "scheme is not supported"},
        {"C:/x.bin", "scheme is not supported"},
        {"a%2", "truncated percent escape"},
        {"a%zz.bin", "invalid percent escape"},
        {"a%00.bin", "forbidden character"},
        {"a\\\\b.bin", "refused"},
        {"missing.bin", "not found"},
        {"short.bin", "less than its byteLength"},
        {"sub", "not a regular file"},
        {"", "URI is empty"},
    };
    for (size_t i = 0; i < ZE_COUNTOF(cases); i++) {
        const char *json = doc("{" ASSET ",'buffers':[{'byteLength':44,'uri':'%s'}]," TRI_VIEWS
                               "," TRI_ACCESSORS "," TRI_MESH "}",
                               cases[i].uri);
        ze_model_t *m = NULL;
        ze__asset_error_t err;
        ze_result r = ze__asset_import_gltf_memory(json, strlen(json), &desc, &m, &err);
        if (!cases[i].expect) {
            if (r != ZE_OK)
                fail_msg("%s: %s", cases[i].uri, err.message);
            assert_int_equal(m->dependency_count, 1);
            assert_string_equal(m->dependencies[0], "tri angle.bin");
            ze_asset_model_destroy(m);
        } else {
            if (r == ZE_OK)
                fail_msg("%s accepted", cases[i].uri);
            if (!strstr(err.message, cases[i].expect))
                fail_msg("%s: '%s' lacks '%s'", cases[i].uri, err.message, cases[i].expect);
            assert_true(strncmp(err.message, "/buffers/0", 10) == 0);
        }
    }
    /* Without a folder, external files are refused. */
    const char *json = doc("{" ASSET ",'buffers':[{'byteLength':44,'uri':'tri%%20angle.bin'}]}");
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    assert_int_not_equal(ze__asset_import_gltf_memory(json, strlen(json), NULL, &m, &err), ZE_OK);
    assert_non_null(strstr(err.message, "without a base folder"));
    char path[700];
    snprintf(path, sizeof path, "%s/tri angle.bin", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/short.bin", dir);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

/* ------------------------------------------------------------- limits */

static void test_memory_limit(void **state)
{
    (void)state;
    /* 4 billion implicit-zero positions: refused by the limit, not an
       allocation of 48 GB. */
    const char *json = doc("{" ASSET ",'accessors':[{'componentType':5126,'count':4294967295,"
                           "'type':'VEC3','min':[0,0,0],'max':[0,0,0]}],'meshes':[{'primitives':"
                           "[{'attributes':{'POSITION':0}}]}]}");
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_gltf_desc_t desc = {.max_bytes = ZE_MIB(4)};
    ze_result r = ze__asset_import_gltf_memory(json, strlen(json), &desc, &m, &err);
    assert_int_equal(r, ZE_ERR_LIMIT);
    assert_non_null(strstr(err.message, "memory limit"));
    /* A sparse accessor over zeros with a huge count validates without
       walking every element. */
    uint16_t idx[1] = {7};
    float val[3] = {1, 2, 3};
    uint8_t buf[16];
    memcpy(buf, idx, 2);
    memset(buf + 2, 0, 2);
    memcpy(buf + 4, val, 12);
    char text[4096];
    snprintf(text, sizeof text,
             "{" ASSET ",'buffers':[{'byteLength':16,'uri':'data:application/octet-stream;base64,"
             "%s'}],'bufferViews':[{'buffer':0,'byteLength':2},{'buffer':0,'byteOffset':4,"
             "'byteLength':12}],'accessors':[{'componentType':5126,'count':4000000000,'type':"
             "'VEC3','min':[0,0,0],'max':[1,2,3],'sparse':{'count':1,'indices':{'bufferView':0,"
             "'componentType':5123},'values':{'bufferView':1}}}]}",
             b64(buf, sizeof buf));
    m = import_ok(doc("%s", text));
    ze_asset_model_destroy(m);
}

/* ------------------------------------------------------------ rejections */

typedef struct bad_t {
    const char *json;   /* ' for " */
    const char *expect; /* substring of the message (pointer included) */
} bad_t;

#define MESH_WITH(prim) "'meshes':[{'primitives':[" prim "]}]"

static const bad_t g_bad[] = {
    /* document, asset, extensions */
    {"[]", "must be an object"},
    {"{}", "/asset: required property is missing"},
    {"{'asset':{'version':'3.0'}}", "/asset/version: glTF version 3.0 is not supported"},
    {"{'asset':{'version':'2'}}", "/asset/version: '2' is not a version"},
    {"{'asset':{'version':'2.0','minVersion':'2.1'}}",
     "/asset/minVersion: the asset needs glTF 2.1"},
    {"{'asset':{'version':2.0}}", "/asset/version: must be a string, not a number"},
    {"{" ASSET ",'asset':{'version':'2.0'}}", "invalid JSON"},
    {"{" ASSET ",'extensionsUsed':['KHR_materials_pbrSpecularGlossiness'],'extensionsRequired':["
     "'KHR_materials_pbrSpecularGlossiness']}",
     "/extensionsRequired/0: required extension 'KHR_materials_pbrSpecularGlossiness' is not "
     "supported"},
    {"{" ASSET ",'extensionsRequired':['KHR_texture_transform']}", "is not in extensionsUsed"},
    {"{" ASSET ",'extensionsUsed':['A','A']}", "/extensionsUsed/1: extension 'A' is listed twice"},
    {"{" ASSET ",'nodes':[{'extensions':{'EXT_x':{}}}]}",
     "/nodes/0/extensions/EXT_x: extension 'EXT_x' is not listed in extensionsUsed"},
    {"{" ASSET ",'extensionsUsed':['EXT_x'],'nodes':[{'extensions':{'EXT_x':1}}]}",
     "/nodes/0/extensions/EXT_x: must be an object"},
    {"{" ASSET ",'meshes':[]}", "/meshes: array must not be empty"},
    {"{" ASSET ",'nodes':[1]}", "/nodes/0: must be an object, not a number"},
    {"{" ASSET ",'nodes':[{'name':3}]}", "/nodes/0/name: must be a string"},
    /* control characters from the input never break the one-line message
       (fuzz finds: a \n in a media type, in an extension's name) */
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:appli\\ncation/x;base64,AA=='}]}",
     "media type 'appli?cation/x' is not allowed"},
    {"{" ASSET ",'materials':[{'extensions':{'KHR_x\\u0001y':{}}}]}",
     "/materials/0/extensions/KHR_x?y: extension 'KHR_x?y' is not listed"},
    /* buffers and views */
    {"{" ASSET ",'buffers':[{'byteLength':0,'uri':'data:application/octet-stream;base64,'}]}",
     "/buffers/0/byteLength: value 0 is out of range"},
    {"{" ASSET ",'buffers':[{'byteLength':4}]}", "/buffers/0: buffer has no uri"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:text/plain;base64,AA=='}]}",
     "/buffers/0/uri: invalid data URI: media type 'text/plain' is not allowed"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream,AA=='}]}",
     "only base64 payloads"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream;base64,AA='}]}",
     "malformed base64"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream;base64,A=AA'}]}",
     "malformed base64"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream;base64,AA*A'}]}",
     "malformed base64"},
    {"{" ASSET ",'buffers':[{'byteLength':2,'uri':'data:application/octet-stream;base64,AA=='}]}",
     "/buffers/0: buffer data is 1 bytes, less than its byteLength 2"},
    {"{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream;x;base64,AA=='}]}",
     "is not name=value"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS ",'bufferViews':[{'buffer':1,'byteLength':4}]}",
     "/bufferViews/0/buffer: unresolved reference: buffer 1 does not exist (there are 1)"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteOffset':9223372036854775807,'byteLength':4}]}",
     "/bufferViews/0/byteOffset: bufferView (byteOffset 9223372036854775807"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':4,'byteStride':3}]}",
     "/bufferViews/0/byteStride: value 3 is out of range [4, 252]"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':4,'byteStride':6}]}",
     "/bufferViews/0/byteStride: byteStride 6 is not a multiple of 4"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':4,'target':1}]}",
     "/bufferViews/0/target: target 1 is neither"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS ",'bufferViews':[{'buffer':0,'byteLength':4.0}]}",
     "/bufferViews/0/byteLength: must be an integer, not a number with a fraction or exponent"},
    /* accessors */
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'byteOffset':0,'componentType':5126,'count':1,'type':'VEC3'}]}",
     "/accessors/0/byteOffset: byteOffset must not be defined without a bufferView"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5124,'count':1,'type':'VEC3'}]}",
     "/accessors/0/componentType: componentType 5124 is not one of"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':1,'type':'VEC5'}]}",
     "/accessors/0/type: type 'VEC5' is not one of"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'normalized':true,'count':1,'type':'VEC3'}]}",
     "/accessors/0/normalized: normalized must not be true for FLOAT components"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':0,'type':'VEC3'}]}",
     "/accessors/0/count: value 0 is out of range"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':1,'type':'VEC3','min':[0,0]}]}",
     "/accessors/0/min: must have exactly 3 elements, not 2"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':1,'type':'VEC3','min':[0,0,0]}]}",
     "/accessors/0/min: min and max must be defined together"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3'}]}",
     "/accessors/0: 4 elements of 12 bytes (stride 12) from byteOffset 0 do not fit in "
     "bufferView 0 (36 bytes)"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'byteOffset':2,'componentType':5126,'count':1,"
     "'type':'VEC3'}]}",
     "/accessors/0/byteOffset: accessor data is not aligned to its 4-byte component"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'byteOffset':18446744073709551612,'componentType':"
     "5126,'count':1,'type':'VEC3'}]}",
     "invalid JSON"},
    {"{" ASSET "," TRI_BUFFER
     ",'bufferViews':[{'buffer':0,'byteLength':36,'byteStride':8}],'accessors':[{"
     "'bufferView':0,'componentType':5126,'count':1,'type':'VEC3'}]}",
     "/accessors/0: bufferView 0's byteStride 8 is smaller than the element size 12"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
     "'min':[0,0,0],'max':[1,1,1]}]}",
     "/accessors/0/max/2: the declared maximum 1 is not the data's maximum 0"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3',"
     "'min':[0,0,0],'max':[1,0.5,0]}]}",
     "/accessors/0/max/1: the data holds 1, above the declared maximum 0.5"},
    /* sparse */
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{'count':3,"
     "'indices':{'bufferView':1,'componentType':5123},'values':{'bufferView':0}}}]}",
     "/accessors/0/sparse/count: value 3 is out of range [1, 2]"},
    {"{" ASSET "," TRI_BUFFER
     ",'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,"
     "'byteLength':6}],'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{"
     "'count':2,'indices':{'bufferView':1,'byteOffset':3,'componentType':5121},'values':{"
     "'bufferView':0}}}]}",
     "/accessors/0/sparse/indices: sparse index 2 (element 1) is not below the accessor's count "
     "2"},
    {"{" ASSET "," TRI_BUFFER
     ",'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,"
     "'byteLength':6}],'accessors':[{'componentType':5126,'count':9,'type':'SCALAR','sparse':{"
     "'count':3,'indices':{'bufferView':1,'componentType':5121},'values':{'bufferView':0}}}]}",
     "/accessors/0/sparse/indices: sparse indices must strictly increase (element 1: 0 after 0)"},
    {"{" ASSET "," TRI_BUFFER
     ",'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,"
     "'byteLength':6}],'accessors':[{'componentType':5126,'count':9,'type':'SCALAR','sparse':{"
     "'count':3,'indices':{'bufferView':1,'componentType':5123},'values':{'bufferView':0,"
     "'byteOffset':28}}}]}",
     "/accessors/0/sparse/values: 3 sparse values of 4 bytes from byteOffset 28 do not fit"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':9,'type':'SCALAR','sparse':{'count':1,"
     "'indices':{'bufferView':1,'componentType':5123},'values':{'bufferView':0}}}]}",
     "/accessors/0/sparse/indices/bufferView: bufferView 1 of sparse indices must not define "
     "byteStride or target"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'componentType':5126,'count':9,'type':'SCALAR','sparse':{'count':1,"
     "'indices':{'bufferView':1,'componentType':5126},'values':{'bufferView':0}}}]}",
     "/accessors/0/sparse/indices/componentType: sparse indices must be 5121, 5123 or 5125"},
    /* meshes and primitives */
    {"{" TRI "," MESH_WITH("{'attributes':{}}") "}",
     "/meshes/0/primitives/0/attributes: a primitive must have at least one attribute"},
    {"{" TRI "," MESH_WITH("{'attributes':{'FOO':0}}") "}",
     "/meshes/0/primitives/0/attributes/FOO: unknown attribute semantic 'FOO'"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0,'TEXCOORD_01':0}}") "}",
     "attributes/TEXCOORD_01: unknown attribute semantic"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0,'_CUSTOM':1}}") "}",
     "/meshes/0/primitives/0/attributes/_CUSTOM: bufferView 1 holds indices"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':1}}") "}",
     "/meshes/0/primitives/0/attributes/POSITION: accessor 1 is SCALAR of UNSIGNED_SHORT; "
     "POSITION must be VEC3 of FLOAT"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'}]," MESH_WITH(
         "{'attributes':{'POSITION':0}}") "}",
     "/meshes/0/primitives/0/attributes/POSITION: POSITION accessor 0 must define min and max"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0},'indices':0}") "}",
     "/meshes/0/primitives/0/indices: accessor 0 is VEC3 of FLOAT; indices must be SCALAR"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0},'mode':7}") "}",
     "/meshes/0/primitives/0/mode: value 7 is out of range [0, 6]"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0},'mode':1}") "}",
     "/meshes/0/primitives/0: LINES needs an even number, at least 2 vertices, found 3"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0},'material':0}") "}",
     "/meshes/0/primitives/0/material: unresolved reference: material 0 does not exist"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':36,'target':34963},{'buffer':0,"
     "'byteOffset':36,'byteLength':6}]," MESH_WITH("{'attributes':{'POSITION':0}}") "}",
     "/meshes/0/primitives/0/attributes/POSITION: bufferView 0 holds indices"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,"
     "'byteLength':6,'target':34962}]," MESH_WITH("{'attributes':{'POSITION':0},'indices':1}") "}",
     "/meshes/0/primitives/0/indices: bufferView 1 of indices has target 34962"},
    {"{" ASSET "," TRI_BUFFER "," TRI_ACCESSORS
     ",'bufferViews':[{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':34,"
     "'byteLength':10,'byteStride':4}]," MESH_WITH("{'attributes':{'POSITION':0},'indices':1}") "}",
     "/meshes/0/primitives/0/indices: bufferView 1 of indices must not define byteStride"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':"
     "[0,0,0],'max':[1,1,0]},{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'}]"
     "," MESH_WITH("{'attributes':{'POSITION':0,'NORMAL':1}}") "}",
     "bufferView 0 is used by several vertex attribute accessors (0 and 1) and must define "
     "byteStride"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':"
     "[0,0,0],'max':[1,1,0]},{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'}]"
     "," MESH_WITH("{'attributes':{'POSITION':0,'NORMAL':0}}") "}",
     "/meshes/0/primitives/0/attributes/NORMAL: element 0 is not of unit length (0)"},
    {"{" TRI "," MESH_WITH("{'attributes':{'POSITION':0,'TEXCOORD_1':0}}") "}",
     "attributes/TEXCOORD_1: accessor 0 is VEC3 of FLOAT; TEXCOORD_1 must be VEC2"},
    {"{" TRI ",'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':0}]},"
     "{'attributes':{'POSITION':0}}]}]}",
     "/meshes/0/primitives/1: has 0 morph targets but primitive 0 has 1"},
    {"{" TRI ",'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':0}]}"
     "],'weights':[0,1]}]}",
     "/meshes/0/weights: has 2 weights but the mesh has 1 morph targets"},
    {"{" TRI ",'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'JOINTS_0':0}]}"
     "]}]}",
     "/meshes/0/primitives/0/targets/0/JOINTS_0: 'JOINTS_0' is not a morph target attribute"},
    /* nodes and scenes */
    {"{" ASSET ",'nodes':[{'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],'translation':[0,0,0]}]}",
     "/nodes/0/matrix: matrix must not be defined together with translation"},
    {"{" ASSET ",'nodes':[{'matrix':[1,0,0,0,1,1,0,0,0,0,1,0,0,0,0,1]}]}",
     "/nodes/0/matrix: matrix is not decomposable"},
    {"{" ASSET ",'nodes':[{'matrix':[1,0,0,1,0,1,0,0,0,0,1,0,0,0,0,1]}]}",
     "/nodes/0/matrix: matrix is not decomposable"},
    {"{" ASSET ",'nodes':[{'rotation':[0,0,0,2]}]}", "/nodes/0/rotation: rotation is not a unit "
                                                     "quaternion"},
    {"{" ASSET ",'nodes':[{'children':[0]}]}", "/nodes/0/children/0: node 0 lists itself"},
    {"{" ASSET ",'nodes':[{'children':[1,1]},{}]}", "/nodes/0/children/1: node 1 is listed twice"},
    {"{" ASSET ",'nodes':[{'children':[2]},{'children':[2]},{}]}",
     "/nodes/1/children/0: node 2 already has parent 0"},
    {"{" ASSET ",'nodes':[{'children':[1]},{}],'scenes':[{'nodes':[1]}]}",
     "/scenes/0/nodes/0: node 1 is not a root node (its parent is node 0)"},
    {"{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[0]}],'scene':1}",
     "/scene: unresolved reference: scene 1 does not exist (there are 1)"},
    {"{" TRI "," TRI_MESH ",'nodes':[{'skin':0}],'skins':[{'joints':[0]}]}",
     "/nodes/0/skin: a node with a skin must also have a mesh"},
    {"{" TRI "," TRI_MESH ",'nodes':[{'mesh':0,'skin':0}],'skins':[{'joints':[0]}]}",
     "/nodes/0/skin: mesh 0 of a skinned node lacks JOINTS_0/WEIGHTS_0"},
    {"{" TRI "," TRI_MESH ",'nodes':[{'mesh':0,'weights':[1]}]}",
     "/nodes/0/weights: has 1 weights but mesh 0 has 0 morph targets"},
    {"{" ASSET ",'nodes':[{}],'skins':[{'joints':[]}]}", "/skins/0/joints: array must not be "
                                                         "empty"},
    /* cameras */
    {"{" ASSET ",'cameras':[{'type':'perspective','perspective':{'znear':0.1}}]}",
     "/cameras/0/perspective/yfov: required property is missing"},
    {"{" ASSET ",'cameras':[{'type':'perspective','perspective':{'yfov':1,'znear':1,'zfar':1}}]}",
     "/cameras/0/perspective/zfar: zfar 1 must be greater than znear 1"},
    {"{" ASSET ",'cameras':[{'type':'perspective','perspective':{'yfov':0,'znear':1}}]}",
     "/cameras/0/perspective/yfov: 0 must be greater than 0"},
    {"{" ASSET ",'cameras':[{'type':'orthographic','orthographic':{'xmag':0,'ymag':1,'znear':0,"
     "'zfar':1}}]}",
     "/cameras/0/orthographic/xmag: must not be zero"},
    {"{" ASSET ",'cameras':[{'type':'fisheye'}]}", "/cameras/0/type: 'fisheye' is neither"},
    {"{" ASSET ",'cameras':[{'type':'perspective','perspective':{'yfov':1,'znear':1},"
     "'orthographic':{}}]}",
     "/cameras/0/orthographic: must not be defined when type is perspective"},
    /* materials, textures, samplers, images */
    {"{" ASSET ",'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,1,1.5,1]}}]}",
     "/materials/0/pbrMetallicRoughness/baseColorFactor/2: 1.5 is outside [0, 1]"},
    {"{" ASSET ",'materials':[{'alphaMode':'CUTOUT'}]}",
     "/materials/0/alphaMode: 'CUTOUT' is not one of OPAQUE, MASK, BLEND"},
    {"{" ASSET ",'materials':[{'normalTexture':{'index':0}}]}",
     "/materials/0/normalTexture/index: unresolved reference: texture 0 does not exist"},
    {"{" ASSET ",'materials':[{'occlusionTexture':{}}]}",
     "/materials/0/occlusionTexture/index: required property is missing"},
    {"{" ASSET ",'samplers':[{'wrapS':1234}]}", "/samplers/0/wrapS: 1234 is not a valid value"},
    {"{" ASSET ",'textures':[{'source':0}]}",
     "/textures/0/source: unresolved reference: image 0 does not exist"},
    {"{" ASSET ",'images':[{}]}", "/images/0: an image needs a uri or a bufferView"},
    {"{" TRI ",'images':[{'uri':'data:image/png;base64," PNG_1X1 "','bufferView':0}]}",
     "/images/0: uri and bufferView must not both be defined"},
    {"{" TRI ",'images':[{'bufferView':0}]}", "/images/0/mimeType: required property is missing"},
    {"{" TRI ",'images':[{'bufferView':0,'mimeType':'image/png'}]}",
     "/images/0: image data (36 bytes) is neither PNG nor JPEG"},
    {"{" ASSET ",'images':[{'uri':'data:image/png;base64," PNG_1X1 "','mimeType':'image/jpeg'}]}",
     "/images/0: mimeType is image/jpeg but the data is PNG"},
    {"{" ASSET ",'images':[{'uri':'data:image/gif;base64,AA=='}]}",
     "media type 'image/gif' is not allowed for an image"},
    {"{" ASSET ",'images':[{'uri':'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAe"
     "FcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=='}]}",
     "/images/0: PNG chunk CRC mismatch"},
    {"{" ASSET ",'images':[{'uri':'data:image/jpeg;base64,/9j/2wBDAAgGBgcGBQ=='}]}",
     "/images/0: JPEG is truncated"},
    /* animations */
    {"{" TRI ",'nodes':[{}],'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':"
     "'translation'}}],'samplers':[{'input':1,'output':0}]}]}",
     "/animations/0/samplers/0/input: accessor 1 must be SCALAR of FLOAT"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'nodes':[{'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}],'accessors':[{'bufferView':"
     "0,'componentType':5126,'count':3,'type':'SCALAR','min':[0],'max':[0]},{'bufferView':0,"
     "'componentType':5126,'count':3,'type':'VEC3'}],'animations':[{'channels':[{'sampler':0,"
     "'target':{'node':0,'path':'scale'}}],'samplers':[{'input':0,'output':1}]}]}",
     "/animations/0/samplers/0/input: keyframe times must strictly increase"},
    {"{" ASSET "," TRI_BUFFER "," TRI_VIEWS
     ",'nodes':[{'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}],'animations':[{'channels':"
     "[{'sampler':0,'target':{'node':0,'path':'scale'}}],'samplers':[{'input':2,'output':0}]}],"
     "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],"
     "'max':[1,1,0]},{'bufferView':1,'componentType':5123,'count':3,'type':'SCALAR'},{"
     "'bufferView':0,'byteOffset':8,'componentType':5126,'count':2,'type':'SCALAR','min':[0],"
     "'max':[1]}]}",
     "/animations/0/channels/0/target/node: node 0 has a matrix and cannot be animated"},
};

static void test_rejections(void **state)
{
    (void)state;
    for (size_t i = 0; i < ZE_COUNTOF(g_bad); i++)
        import_fails(doc("%s", g_bad[i].json), g_bad[i].expect);
    print_message("%zu malformed documents rejected with their pointers\n", ZE_COUNTOF(g_bad));
}

/* An image in a format only an extension explains is kept, undecoded. */
static void test_extension_image_formats(void **state)
{
    (void)state;
    ze_model_t *m = import_ok(doc("{" ASSET ",'extensionsUsed':['EXT_texture_webp'],'images':[{"
                                  "'uri':'data:image/png;base64,UklGRgAAAABXRUJQ'}]}"));
    assert_int_equal(m->images[0].format, ZE_IMAGE_FORMAT_UNKNOWN);
    ze_asset_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangle),
        cmocka_unit_test(test_strip_fan_points),
        cmocka_unit_test(test_interleaved_and_normalized),
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_matrix_column_padding),
        cmocka_unit_test(test_nodes_scenes_cameras),
        cmocka_unit_test(test_materials_textures),
        cmocka_unit_test(test_glb),
        cmocka_unit_test(test_external_uris),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_extension_image_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
