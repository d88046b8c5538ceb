/* KHR_draco_mesh_compression (issue 17): Draco variants of the shared
 * corpus's models, generated here with libdraco's encoder (draco_encode.cpp,
 * the sequential method, which keeps the points in order), cook to the
 * same vertex and index counts and bounds as the plain files: exactly when
 * the values are not quantized, within the quantization step when they are.
 * A primitive is encoded when its attributes are FLOAT accessors no other
 * primitive reads; its accessors lose their bufferViews (the stream is all
 * there is). A truncated or overwritten stream, an attribute id the stream
 * lacks, a count the stream does not decode and a non-triangle primitive
 * are rejected with an error naming the accessors. The corpus is read in
 * place (never written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset_test_util.h"
#include "gltf_variant.h"
#include "zengine/cook.h"
#include "cook/draco.h"
#include "draco_encode.h"

enum { MAX_ACCESSORS = 4096, MAX_ATTRS = 16 };

static json_t *accessor(json_t *root, json_t *ref)
{
    return json_array_get(json_object_get(root, "accessors"), (size_t)json_integer_value(ref));
}

static void use(uint32_t *uses, json_t *ref)
{
    if (json_is_integer(ref) && json_integer_value(ref) >= 0 &&
        json_integer_value(ref) < MAX_ACCESSORS)
        uses[json_integer_value(ref)]++;
}

/* How many places read each accessor (primitives' attributes, indices and
 * targets, skins, animations). */
static void count_uses(json_t *root, uint32_t *uses)
{
    size_t i, j, k;
    json_t *mesh, *prim, *t, *x;
    const char *key;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh)
    {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim)
        {
            json_object_foreach(json_object_get(prim, "attributes"), key, x) use(uses, x);
            use(uses, json_object_get(prim, "indices"));
            json_array_foreach(json_object_get(prim, "targets"), k, t)
            {
                json_object_foreach(t, key, x) use(uses, x);
            }
        }
    }
    json_array_foreach(json_object_get(root, "skins"), i, x)
        use(uses, json_object_get(x, "inverseBindMatrices"));
    json_array_foreach(json_object_get(root, "animations"), i, x)
    {
        json_array_foreach(json_object_get(x, "samplers"), j, t)
        {
            use(uses, json_object_get(t, "input"));
            use(uses, json_object_get(t, "output"));
        }
    }
}

static uint32_t ncomp_of(const char *type)
{
    static const char *const names[] = {"SCALAR", "VEC2", "VEC3", "VEC4"};
    for (uint32_t k = 0; k < 4; k++)
        if (type && strcmp(type, names[k]) == 0)
            return k + 1;
    return 0;
}

/* Element i of an accessor's data, from the original buffers. */
static const uint8_t *elem(json_t *root, bytes_t *data, json_t *a, size_t i, size_t size)
{
    json_t *v = json_array_get(json_object_get(root, "bufferViews"),
                               (size_t)json_integer_value(json_object_get(a, "bufferView")));
    size_t stride = (size_t)json_integer_value(json_object_get(v, "byteStride"));
    size_t off = (size_t)json_integer_value(json_object_get(v, "byteOffset")) +
                 (size_t)json_integer_value(json_object_get(a, "byteOffset"));
    bytes_t *b = &data[json_integer_value(json_object_get(v, "buffer"))];
    return b->p + off + i * (stride ? stride : size);
}

/* Whether the accessor is plain data the generator can read: a view, no
 * sparse, no other reader. */
static bool plain(json_t *a, const uint32_t *uses, json_t *ref)
{
    return a && json_object_get(a, "bufferView") && !json_object_get(a, "sparse") &&
           uses[json_integer_value(ref)] == 1;
}

static atu_draco_kind kind_of(const char *sem)
{
    if (strcmp(sem, "POSITION") == 0)
        return ATU_DRACO_POSITION;
    if (strcmp(sem, "NORMAL") == 0)
        return ATU_DRACO_NORMAL;
    if (strncmp(sem, "TEXCOORD_", 9) == 0)
        return ATU_DRACO_TEXCOORD;
    if (strncmp(sem, "COLOR_", 6) == 0)
        return ATU_DRACO_COLOR;
    return ATU_DRACO_GENERIC;
}

/* The decoded values' min and max where the accessor declares them (a
 * quantized stream moves them by up to a step). */
static void declare_decoded_bounds(json_t *a, const uint8_t *stream, size_t n, uint32_t id,
                                   uint32_t points, uint32_t ncomp)
{
    if (!json_object_get(a, "min"))
        return;
    char err[160];
    ze__draco_mesh_t *m = ze__draco_decode(stream, n, err, sizeof err);
    assert_non_null(m);
    float *v = ze_mem_sys_alloc(sizeof(float) * points * ncomp);
    assert_non_null(v);
    assert_true(ze__draco_values(m, id, 5126, false, ncomp, v));
    json_t *mn = json_array(), *mx = json_array();
    for (uint32_t k = 0; k < ncomp; k++) {
        float lo = v[k], hi = v[k];
        for (uint32_t i = 1; i < points; i++) {
            lo = fminf(lo, v[(size_t)i * ncomp + k]);
            hi = fmaxf(hi, v[(size_t)i * ncomp + k]);
        }
        json_array_append_new(mn, json_real(lo));
        json_array_append_new(mx, json_real(hi));
    }
    json_object_set_new(a, "min", mn);
    json_object_set_new(a, "max", mx);
    ze_mem_sys_free(v);
    ze__draco_free(m);
}

/* Encode one primitive into `packed` (4-byte aligned); false when it is not
 * one the generator takes (left as it is). */
static bool encode_primitive(json_t *root, bytes_t *data, const uint32_t *uses, json_t *prim,
                             int flags, uint8_t *packed, size_t cap, size_t *packed_n,
                             size_t *stream_off, size_t *stream_len)
{
    json_t *mode = json_object_get(prim, "mode");
    json_t *ix = json_object_get(prim, "indices");
    json_t *ia = json_is_integer(ix) ? accessor(root, ix) : NULL;
    if ((mode && json_integer_value(mode) != 4) || !plain(ia, uses, ix))
        return false;
    json_t *attrs = json_object_get(prim, "attributes");
    const char *key;
    json_t *ref;
    uint32_t points = 0, n = 0;
    atu_draco_attr_t at[MAX_ATTRS];
    json_t *acc[MAX_ATTRS];
    const char *sem[MAX_ATTRS];
    json_object_foreach(attrs, key, ref)
    {
        json_t *a = accessor(root, ref);
        uint32_t nc = ncomp_of(json_string_value(json_object_get(a, "type")));
        if (n == MAX_ATTRS || !plain(a, uses, ref) || nc == 0 ||
            json_integer_value(json_object_get(a, "componentType")) != 5126 ||
            json_is_true(json_object_get(a, "normalized")))
            return false;
        uint32_t count = (uint32_t)json_integer_value(json_object_get(a, "count"));
        if (n && count != points)
            return false;
        points = count;
        acc[n] = a;
        sem[n] = key;
        at[n] = (atu_draco_attr_t){.kind = kind_of(key), .ncomp = nc};
        n++;
    }
    uint32_t nidx = (uint32_t)json_integer_value(json_object_get(ia, "count"));
    json_int_t ct = json_integer_value(json_object_get(ia, "componentType"));
    if (!n || nidx % 3 || (ct != 5121 && ct != 5123 && ct != 5125))
        return false;
    float *vals[MAX_ATTRS];
    for (uint32_t k = 0; k < n; k++) {
        vals[k] = ze_mem_sys_alloc(sizeof(float) * points * at[k].ncomp + 4);
        for (uint32_t i = 0; i < points; i++)
            memcpy(vals[k] + (size_t)i * at[k].ncomp, elem(root, data, acc[k], i, 4 * at[k].ncomp),
                   4 * at[k].ncomp);
        at[k].values = vals[k];
    }
    uint32_t *idx = ze_mem_sys_alloc(sizeof(uint32_t) * nidx + 4);
    size_t isize = ct == 5121 ? 1 : ct == 5123 ? 2 : 4;
    for (uint32_t i = 0; i < nidx; i++) {
        const uint8_t *p = elem(root, data, ia, i, isize);
        idx[i] = isize == 1   ? p[0]
                 : isize == 2 ? (uint32_t)(p[0] | p[1] << 8)
                              : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                    (uint32_t)p[3] << 24;
    }
    size_t bound = atu_draco_bound(points, at, n, nidx);
    uint8_t *stream = ze_mem_sys_alloc(bound);
    size_t len = atu_draco_encode(points, at, n, idx, nidx, flags, stream, bound);
    assert_true(len > 0);
    size_t off = (*packed_n + 3) & ~(size_t)3;
    assert_true(off + len <= cap);
    memset(packed + *packed_n, 0, off - *packed_n);
    memcpy(packed + off, stream, len);
    *packed_n = off + len;
    if (!*stream_len) {
        *stream_off = off;
        *stream_len = len;
    }
    /* the stream's view, the accessors without theirs */
    uint32_t decoded_points = points;
    if (flags & ATU_DRACO_EDGEBREAKER) {
        char err[160];
        ze__draco_mesh_t *m = ze__draco_decode(stream, len, err, sizeof err);
        assert_non_null(m);
        decoded_points = ze__draco_points(m);
        json_object_set_new(ia, "count", json_integer((json_int_t)ze__draco_faces(m) * 3));
        json_object_del(ia, "min"); /* optional; the points were renumbered */
        json_object_del(ia, "max");
        ze__draco_free(m);
    }
    json_t *views = json_object_get(root, "bufferViews");
    json_array_append_new(views,
                          json_pack("{s:I,s:I,s:I}", "buffer",
                                    (json_int_t)json_array_size(json_object_get(root, "buffers")),
                                    "byteOffset", (json_int_t)off, "byteLength", (json_int_t)len));
    json_t *ids = json_object();
    for (uint32_t k = 0; k < n; k++) {
        json_object_set_new(ids, sem[k], json_integer(at[k].id));
        json_object_del(acc[k], "bufferView");
        json_object_del(acc[k], "byteOffset");
        if (flags & ATU_DRACO_EDGEBREAKER) /* points split or merged: the stream's count */
            json_object_set_new(acc[k], "count", json_integer(decoded_points));
        if (flags)
            declare_decoded_bounds(acc[k], stream, len, at[k].id, decoded_points, at[k].ncomp);
        ze_mem_sys_free(vals[k]);
    }
    json_object_del(ia, "bufferView");
    json_object_del(ia, "byteOffset");
    json_t *exts = json_object_get(prim, "extensions");
    if (!exts) {
        exts = json_object();
        json_object_set_new(prim, "extensions", exts);
    }
    json_object_set_new(exts, "KHR_draco_mesh_compression",
                        json_pack("{s:I,s:o}", "bufferView", (json_int_t)json_array_size(views) - 1,
                                  "attributes", ids));
    ze_mem_sys_free(idx);
    ze_mem_sys_free(stream);
    return true;
}

/* The variant at `dir`/variant.gltf: every primitive the generator takes
 * compressed into draco.bin (one stream each), the original buffers beside
 * it; *encoded: how many; the first stream's place in draco.bin. */
static void make_draco_variant(const char *model, const char *dir, int flags, char *out, size_t cap,
                               uint32_t *encoded, size_t *stream_off, size_t *stream_len)
{
    char src[1024], from[1024];
    snprintf(src, sizeof src, "%s/%s", ATU_ASSETS, model);
    dir_of(src, from, sizeof from);
    mkdir(dir, 0755);
    json_error_t jerr;
    json_t *root = json_load_file(src, 0, &jerr);
    assert_non_null(root);
    json_t *buffers = json_object_get(root, "buffers");
    size_t nb = json_array_size(buffers), total = 0;
    bytes_t data[16] = {{0}};
    assert_true(nb < 16);
    for (size_t i = 0; i < nb; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", from,
                 json_string_value(json_object_get(json_array_get(buffers, i), "uri")));
        data[i] = slurp(p);
        total += data[i].n;
    }
    static uint32_t uses[MAX_ACCESSORS];
    memset(uses, 0, sizeof uses);
    assert_true(json_array_size(json_object_get(root, "accessors")) < MAX_ACCESSORS);
    count_uses(root, uses);
    size_t packed_cap = 4 * total + 65536, packed_n = 0;
    uint8_t *packed = ze_mem_sys_alloc(packed_cap);
    *encoded = 0;
    *stream_off = *stream_len = 0;
    size_t i, j;
    json_t *mesh, *prim;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh)
    {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim)
        {
            if (encode_primitive(root, data, uses, prim, flags, packed, packed_cap, &packed_n,
                                 stream_off, stream_len))
                (*encoded)++;
        }
    }
    for (size_t k = 0; k < nb; k++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir,
                 json_string_value(json_object_get(json_array_get(buffers, k), "uri")));
        spill(p, data[k].p, data[k].n);
        ze_mem_sys_free(data[k].p);
    }
    if (!packed_n) { /* nothing taken: a buffer is never empty */
        memset(packed, 0, 4);
        packed_n = 4;
    }
    finish_variant(root, from, dir, "draco.bin", packed, packed_n,
                   *encoded ? "KHR_draco_mesh_compression" : NULL, true, out, cap);
    ze_mem_sys_free(packed);
}

static void test_draco_variants_cook_the_same(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    uint32_t models = 0, prims = 0;
    for (size_t i = 0; i < ZE_COUNTOF(k_models); i++) {
        char dir[256], variant[1024], plain_path[1024], tag[32];
        snprintf(dir, sizeof dir, "%s/draco%zu", g_tmp, i);
        uint32_t encoded;
        size_t so, sl;
        make_draco_variant(k_models[i], dir, 0, variant, sizeof variant, &encoded, &so, &sl);
        if (!encoded)
            continue;
        models++;
        prims += encoded;
        snprintf(plain_path, sizeof plain_path, "%s/%s", ATU_ASSETS, k_models[i]);
        snprintf(tag, sizeof tag, "dr%zu", i);
        expect_same_cook(plain_path, variant, tag, 0.0f); /* values kept exactly */
    }
    print_message("%u Draco variants (%u primitives) cook like their plain files\n", models, prims);
    assert_true(models >= 8);
}

/* A 14-bit position step of the plain file's largest extent (and a
 * rounding's margin). */
static float position_step(const char *plain)
{
    ze_vec3_t mn, mx;
    model_bounds(plain, &mn, &mx);
    float extent = fmaxf(fmaxf(mx.x - mn.x, mx.y - mn.y), mx.z - mn.z);
    return extent / 16383.0f * 1.01f + 1e-6f;
}

/* Quantized (positions 14 bits): the bounds within a step of the largest
 * extent, the counts the same. */
static void test_quantized_draco_within_a_step(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    uint32_t models = 0;
    for (size_t i = 0; i < ZE_COUNTOF(k_models); i++) {
        char dir[256], variant[1024], plain_path[1024], tag[32];
        snprintf(dir, sizeof dir, "%s/dracoq%zu", g_tmp, i);
        uint32_t encoded;
        size_t so, sl;
        make_draco_variant(k_models[i], dir, 1, variant, sizeof variant, &encoded, &so, &sl);
        if (!encoded)
            continue;
        models++;
        snprintf(plain_path, sizeof plain_path, "%s/%s", ATU_ASSETS, k_models[i]);
        snprintf(tag, sizeof tag, "drq%zu", i);
        expect_same_cook(plain_path, variant, tag, position_step(plain_path));
    }
    assert_true(models >= 8);
}

/* libdraco's default method (edgebreaker: points reordered, split where
 * attributes seam), quantized: the variants import, the accessor counts
 * being the stream's, with the plain files' triangles and bounds within a
 * step. */
static void test_edgebreaker_streams_import(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    uint32_t models = 0;
    for (size_t i = 0; i < ZE_COUNTOF(k_models); i++) {
        char dir[256], variant[1024], plain_path[1024], o1[256], o2[256];
        snprintf(dir, sizeof dir, "%s/dracoeb%zu", g_tmp, i);
        uint32_t encoded;
        size_t so, sl;
        make_draco_variant(k_models[i], dir, ATU_DRACO_QUANTIZE | ATU_DRACO_EDGEBREAKER, variant,
                           sizeof variant, &encoded, &so, &sl);
        if (!encoded)
            continue;
        models++;
        snprintf(plain_path, sizeof plain_path, "%s/%s", ATU_ASSETS, k_models[i]);
        snprintf(o1, sizeof o1, "%s/eb%zu-plain", g_tmp, i);
        snprintf(o2, sizeof o2, "%s/eb%zu-variant", g_tmp, i);
        ze_cook_result_t a, b;
        cook_counts(plain_path, o1, &a);
        cook_counts(variant, o2, &b);
        assert_int_equal(a.cooked.submeshes, b.cooked.submeshes);
        assert_int_equal(a.source.indices, b.source.indices);
        ze_asset_cook_result_release(&a);
        ze_asset_cook_result_release(&b);
        expect_same_bounds(plain_path, variant, position_step(plain_path));
    }
    assert_true(models >= 8);
}

static json_t *load(const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    assert_non_null(root);
    return root;
}

static void save(json_t *root, const char *path)
{
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
}

/* The first Draco primitive of the variant. */
static json_t *draco_prim(json_t *root)
{
    size_t i, j;
    json_t *mesh, *prim;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh)
    {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim)
        {
            if (json_object_get(json_object_get(prim, "extensions"), "KHR_draco_mesh_compression"))
                return prim;
        }
    }
    fail_msg("no Draco primitive");
    return NULL;
}

static void test_bad_streams_name_the_accessors(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char dir[256], variant[1024];
    snprintf(dir, sizeof dir, "%s/dracobad", g_tmp);
    uint32_t encoded;
    size_t so, sl;
    make_draco_variant("gltf/Box/glTF/Box.gltf", dir, 0, variant, sizeof variant, &encoded, &so,
                       &sl);
    assert_int_equal(encoded, 1);
    char bin[512];
    snprintf(bin, sizeof bin, "%s/draco.bin", dir);
    bytes_t good = slurp(bin);
    /* the plain variant imports */
    ze_model_t *m = NULL;
    ze_diag_capture_t d = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&d);
    if (ze_asset_import_gltf_file(variant, &(ze_gltf_desc_t){0}, &m, &sink) != ZE_OK)
        fail_msg("%s: %s", variant, d.last_message);
    ze_asset_model_destroy(m);

    /* a truncated stream */
    json_t *root = load(variant);
    json_t *views = json_object_get(root, "bufferViews");
    json_t *sv = json_array_get(views, json_array_size(views) - 1);
    json_object_set_new(sv, "byteLength", json_integer((json_int_t)(sl / 2)));
    save(root, variant);
    expect_rejected(variant, "KHR_draco_mesh_compression", "/accessors/");
    root = load(variant);
    sv = json_array_get(json_object_get(root, "bufferViews"),
                        json_array_size(json_object_get(root, "bufferViews")) - 1);
    json_object_set_new(sv, "byteLength", json_integer((json_int_t)sl));
    save(root, variant);

    /* its header overwritten */
    bytes_t bad = slurp(bin);
    memset(bad.p + so, 0x5a, 8);
    spill(bin, bad.p, bad.n);
    expect_rejected(variant, "not a Draco stream", "/accessors/");
    spill(bin, good.p, good.n);

    /* bytes inside it overwritten: refused or decoded, never a crash; what
       decodes is checked like any data */
    for (size_t k = 16; k < sl; k += sl / 7 + 1) {
        memcpy(bad.p, good.p, good.n);
        bad.p[so + k] ^= 0xff;
        spill(bin, bad.p, bad.n);
        m = NULL;
        d = (ze_diag_capture_t){0};
        sink = ze_diag_capture_sink(&d);
        if (ze_asset_import_gltf_file(variant, &(ze_gltf_desc_t){0}, &m, &sink) == ZE_OK)
            ze_asset_model_destroy(m);
    }
    spill(bin, good.p, good.n);
    ze_mem_sys_free(bad.p);
    ze_mem_sys_free(good.p);

    /* an attribute id the stream lacks */
    root = load(variant);
    json_t *ids = json_object_get(json_object_get(json_object_get(draco_prim(root), "extensions"),
                                                  "KHR_draco_mesh_compression"),
                                  "attributes");
    json_t *old = json_incref(json_object_get(ids, "NORMAL"));
    json_object_set_new(ids, "NORMAL", json_integer(99));
    save(root, variant);
    expect_rejected(variant, "Draco attribute 99 is not in the stream", "accessor");

    /* an accessor count the stream does not decode */
    root = load(variant);
    json_t *prim = draco_prim(root);
    ids = json_object_get(
        json_object_get(json_object_get(prim, "extensions"), "KHR_draco_mesh_compression"),
        "attributes");
    json_object_set_new(ids, "NORMAL", old);
    const char *key;
    json_t *ref;
    json_int_t count = 0;
    json_object_foreach(json_object_get(prim, "attributes"), key, ref)
    {
        json_t *a = accessor(root, ref);
        count = json_integer_value(json_object_get(a, "count"));
        json_object_set_new(a, "count", json_integer(count + 3));
    }
    save(root, variant);
    expect_rejected(variant, "decodes", "accessor");

    /* not triangles */
    root = load(variant);
    prim = draco_prim(root);
    json_object_foreach(json_object_get(prim, "attributes"), key, ref)
        json_object_set_new(accessor(root, ref), "count", json_integer(count));
    json_object_set_new(prim, "mode", json_integer(1));
    save(root, variant);
    expect_rejected(variant, "must be TRIANGLES", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draco_variants_cook_the_same),
        cmocka_unit_test(test_quantized_draco_within_a_step),
        cmocka_unit_test(test_edgebreaker_streams_import),
        cmocka_unit_test(test_bad_streams_name_the_accessors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
