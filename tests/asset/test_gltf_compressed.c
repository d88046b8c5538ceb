/* Compressed glTF (issue 17): EXT_meshopt_compression and KHR_mesh_quantization
 * variants of the shared corpus's models, generated here with
 * meshoptimizer's encoders and our own quantizer, cook to the same vertex
 * and index counts and bounds as the plain files (quantized normals and
 * texture coordinates within their step); a corrupted or truncated
 * compressed stream, bad parameters and a plain view on a data-less
 * fallback buffer are rejected with an error naming the view and the
 * accessors that read it. The corpus is read in place (never written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset_test_util.h"
#include "gltf_variant.h"
#include "zengine/cook.h"

static bool used_as_indices(json_t *root, json_int_t view, int *size)
{
    size_t i, j;
    json_t *mesh, *prim;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh)
    {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim)
        {
            json_t *ix = json_object_get(prim, "indices");
            if (!json_is_integer(ix))
                continue;
            json_t *acc =
                json_array_get(json_object_get(root, "accessors"), (size_t)json_integer_value(ix));
            if (json_integer_value(json_object_get(acc, "bufferView")) != view)
                continue;
            json_int_t ct = json_integer_value(json_object_get(acc, "componentType"));
            *size = ct == 5123 ? 2 : ct == 5125 ? 4 : 1;
            return true;
        }
    }
    return false;
}

/* The variant: every view the codec can take is compressed into
 * `compressed.bin` (ATTRIBUTES at its stride, or 4; INDICES for index
 * views of 2 or 4 bytes); a buffer all of whose views were compressed
 * loses its uri and becomes a fallback buffer. `out` gets the variant's
 * path; the stream of view `want_view` goes to *stream (offset, length in
 * compressed.bin) for the corruption tests. */
static void make_meshopt_variant(const char *model, const char *dir, char *out, size_t cap,
                                 size_t *stream_off, size_t *stream_len)
{
    char src[1024], from[1024];
    snprintf(src, sizeof src, "%s/%s", ATU_ASSETS, model);
    dir_of(src, from, sizeof from);
    mkdir(dir, 0755);
    json_error_t jerr;
    json_t *root = json_load_file(src, 0, &jerr);
    assert_non_null(root);
    json_t *buffers = json_object_get(root, "buffers"),
           *views = json_object_get(root, "bufferViews");
    size_t nb = json_array_size(buffers);
    bytes_t data[16] = {{0}};
    bool all_compressed[16];
    assert_true(nb < 16);
    for (size_t i = 0; i < nb; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", from,
                 json_string_value(json_object_get(json_array_get(buffers, i), "uri")));
        data[i] = slurp(p);
        all_compressed[i] = true;
    }
    size_t total = 0;
    for (size_t k = 0; k < nb; k++)
        total += data[k].n;
    /* the encoders' bounds exceed their input by a header and a tail per
       stream: room for all of it */
    size_t packed_cap = 4 * total + 128 * json_array_size(views) + 4096, packed_n = 0;
    uint8_t *packed = ze_mem_sys_alloc(packed_cap);
    *stream_off = *stream_len = 0;
    size_t i;
    json_t *v;
    json_array_foreach(views, i, v)
    {
        size_t b = (size_t)json_integer_value(json_object_get(v, "buffer"));
        size_t off = (size_t)json_integer_value(json_object_get(v, "byteOffset"));
        size_t len = (size_t)json_integer_value(json_object_get(v, "byteLength"));
        size_t stride = (size_t)json_integer_value(json_object_get(v, "byteStride"));
        int isize = 0;
        bool indices = used_as_indices(root, (json_int_t)i, &isize);
        const char *mode = indices ? "INDICES" : "ATTRIBUTES";
        if (indices)
            stride = (size_t)isize;
        else if (!stride)
            stride = 4;
        if ((indices && isize == 1) || len % stride || (!indices && stride % 4)) {
            all_compressed[b] = false; /* left as it is */
            continue;
        }
        size_t count = len / stride;
        size_t bound = indices ? meshopt_encodeIndexSequenceBound(count, count)
                               : meshopt_encodeVertexBufferBound(count, stride);
        uint8_t *enc = ze_mem_sys_alloc(bound);
        size_t n;
        if (indices && stride == 2) {
            uint32_t *wide = ze_mem_sys_alloc(count * 4);
            for (size_t k = 0; k < count; k++)
                wide[k] = (uint32_t)data[b].p[off + 2 * k] | (uint32_t)data[b].p[off + 2 * k + 1]
                                                                 << 8;
            n = meshopt_encodeIndexSequence(enc, bound, wide, count);
            ze_mem_sys_free(wide);
        } else if (indices) {
            n = meshopt_encodeIndexSequence(enc, bound, (const uint32_t *)(data[b].p + off), count);
        } else {
            n = meshopt_encodeVertexBuffer(enc, bound, data[b].p + off, count, stride);
        }
        assert_true(n > 0);
        size_t at = (packed_n + 3) & ~(size_t)3;
        assert_true(at + n <= packed_cap);
        memset(packed + packed_n, 0, at - packed_n);
        memcpy(packed + at, enc, n);
        packed_n = at + n;
        ze_mem_sys_free(enc);
        if (!*stream_len) {
            *stream_off = at;
            *stream_len = n;
        }
        json_t *e = json_pack("{s:I,s:I,s:I,s:I,s:I,s:s}", "buffer", (json_int_t)nb, "byteOffset",
                              (json_int_t)at, "byteLength", (json_int_t)n, "byteStride",
                              (json_int_t)stride, "count", (json_int_t)count, "mode", mode);
        json_t *exts = json_object_get(v, "extensions");
        if (!exts) {
            exts = json_object();
            json_object_set_new(v, "extensions", exts);
        }
        json_object_set_new(exts, "EXT_meshopt_compression", e);
    }
    assert_true(*stream_len > 0);
    bool required = false;
    for (size_t k = 0; k < nb; k++) {
        json_t *b = json_array_get(buffers, k);
        if (all_compressed[k]) {
            json_object_del(b, "uri");
            required = true;
        } else {
            char p[1200];
            snprintf(p, sizeof p, "%s/%s", dir, json_string_value(json_object_get(b, "uri")));
            spill(p, data[k].p, data[k].n);
        }
        json_object_set_new(b, "extensions",
                            json_pack("{s:{s:b}}", "EXT_meshopt_compression", "fallback", 1));
        ze_mem_sys_free(data[k].p);
    }
    finish_variant(root, from, dir, "compressed.bin", packed, packed_n, "EXT_meshopt_compression",
                   required, out, cap);
    ze_mem_sys_free(packed);
}

static void test_meshopt_variants_cook_the_same(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    for (size_t i = 0; i < ZE_COUNTOF(k_models); i++) {
        char dir[256], variant[1024], plain[1024];
        snprintf(dir, sizeof dir, "%s/meshopt%zu", g_tmp, i);
        size_t so, sl;
        make_meshopt_variant(k_models[i], dir, variant, sizeof variant, &so, &sl);
        snprintf(plain, sizeof plain, "%s/%s", ATU_ASSETS, k_models[i]);
        char tag[32];
        snprintf(tag, sizeof tag, "mo%zu", i);
        expect_same_cook(plain, variant, tag, 0.0f); /* lossless codec */
    }
    print_message("%zu meshopt variants cook like their plain files\n", ZE_COUNTOF(k_models));
}

/* Float data of accessor `a` (tightly packed or strided FLOAT, no sparse)
 * from the original buffers. */
static const float *float_elem(json_t *root, bytes_t *data, json_t *a, size_t i, size_t ncomp)
{
    json_t *v = json_array_get(json_object_get(root, "bufferViews"),
                               (size_t)json_integer_value(json_object_get(a, "bufferView")));
    size_t stride = (size_t)json_integer_value(json_object_get(v, "byteStride"));
    size_t off = (size_t)json_integer_value(json_object_get(v, "byteOffset")) +
                 (size_t)json_integer_value(json_object_get(a, "byteOffset"));
    bytes_t *b = &data[json_integer_value(json_object_get(v, "buffer"))];
    return (const float *)(b->p + off + i * (stride ? stride : ncomp * 4));
}

/* KHR_mesh_quantization: every primitive's NORMAL becomes normalized SHORT
 * (stride 8) and every TEXCOORD_n whose values lie in [0, 1] normalized
 * UNSIGNED_SHORT, in new accessors over `quant.bin`; positions stay. */
static void make_quantized_variant(const char *model, const char *dir, char *out, size_t cap,
                                   uint32_t *quantized)
{
    char src[1024], from[1024];
    snprintf(src, sizeof src, "%s/%s", ATU_ASSETS, model);
    dir_of(src, from, sizeof from);
    mkdir(dir, 0755);
    json_error_t jerr;
    json_t *root = json_load_file(src, 0, &jerr);
    assert_non_null(root);
    json_t *buffers = json_object_get(root, "buffers"), *accs = json_object_get(root, "accessors");
    json_t *views = json_object_get(root, "bufferViews");
    size_t nb = json_array_size(buffers), total = 0;
    bytes_t data[16] = {{0}};
    for (size_t i = 0; i < nb; i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, i), "uri"));
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", from, uri);
        data[i] = slurp(p);
        snprintf(p, sizeof p, "%s/%s", dir, uri);
        spill(p, data[i].p, data[i].n);
        total += data[i].n;
    }
    uint8_t *q = ze_mem_sys_alloc(4 * total + 16);
    size_t qn = 0;
    *quantized = 0;
    size_t i, j;
    json_t *mesh, *prim;
    json_array_foreach(json_object_get(root, "meshes"), i, mesh)
    {
        json_array_foreach(json_object_get(mesh, "primitives"), j, prim)
        {
            json_t *attrs = json_object_get(prim, "attributes");
            const char *sem;
            json_t *ai;
            json_object_foreach(attrs, sem, ai)
            {
                bool normal = strcmp(sem, "NORMAL") == 0;
                bool uv = strncmp(sem, "TEXCOORD_", 9) == 0;
                json_t *a = json_array_get(accs, (size_t)json_integer_value(ai));
                if ((!normal && !uv) ||
                    json_integer_value(json_object_get(a, "componentType")) != 5126 ||
                    json_object_get(a, "sparse") || !json_object_get(a, "bufferView"))
                    continue;
                size_t count = (size_t)json_integer_value(json_object_get(a, "count"));
                size_t nc = normal ? 3 : 2, stride = normal ? 8 : 4;
                bool fits = true;
                for (size_t k = 0; k < count && uv; k++)
                    for (size_t c = 0; c < 2; c++) {
                        float f = float_elem(root, data, a, k, nc)[c];
                        fits = fits && f >= 0.0f && f <= 1.0f;
                    }
                if (!fits)
                    continue;
                size_t at = (qn + 3) & ~(size_t)3;
                memset(q + qn, 0, at - qn + count * stride);
                for (size_t k = 0; k < count; k++) {
                    const float *f = float_elem(root, data, a, k, nc);
                    for (size_t c = 0; c < nc; c++) {
                        long v = normal ? lroundf(f[c] * 32767.0f) : lroundf(f[c] * 65535.0f);
                        uint16_t w = (uint16_t)(normal ? (int16_t)v : (uint16_t)v);
                        memcpy(q + at + k * stride + 2 * c, &w, 2);
                    }
                }
                qn = at + count * stride;
                json_array_append_new(views,
                                      json_pack("{s:I,s:I,s:I,s:I,s:I}", "buffer", (json_int_t)nb,
                                                "byteOffset", (json_int_t)at, "byteLength",
                                                (json_int_t)(count * stride), "byteStride",
                                                (json_int_t)stride, "target", (json_int_t)34962));
                json_array_append_new(
                    accs, json_pack("{s:I,s:I,s:I,s:b,s:s}", "bufferView",
                                    (json_int_t)(json_array_size(views) - 1), "componentType",
                                    (json_int_t)(normal ? 5122 : 5123), "count", (json_int_t)count,
                                    "normalized", 1, "type", normal ? "VEC3" : "VEC2"));
                json_object_set_new(attrs, sem,
                                    json_integer((json_int_t)json_array_size(accs) - 1));
                (*quantized)++;
            }
        }
    }
    json_array_append_new(buffers, json_pack("{s:s,s:I}", "uri", "quant.bin", "byteLength",
                                             (json_int_t)(qn ? qn : 4)));
    char p[1200];
    snprintf(p, sizeof p, "%s/quant.bin", dir);
    spill(p, q, qn ? qn : 4);
    ze_mem_sys_free(q);
    for (size_t k = 0; k < nb; k++)
        ze_mem_sys_free(data[k].p);
    add_extension(root, "KHR_mesh_quantization", true);
    copy_images(root, from, dir);
    snprintf(out, cap, "%s/quantized.gltf", dir);
    assert_int_equal(json_dump_file(root, out, JSON_INDENT(1)), 0);
    json_decref(root);
}

/* Decoded normals and UVs of both files, primitive by primitive, within
 * the quantization step. */
static void expect_within_step(const char *plain, const char *variant)
{
    ze_model_t *a, *b;
    ze_diag_capture_t d = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&d);
    assert_int_equal(ze_asset_import_gltf_file(plain, &(ze_gltf_desc_t){0}, &a, &sink), ZE_OK);
    if (ze_asset_import_gltf_file(variant, &(ze_gltf_desc_t){0}, &b, &sink) != ZE_OK)
        fail_msg("%s: %s", variant, d.last_message);
    assert_int_equal(a->mesh_count, b->mesh_count);
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const ze_model_primitive_t *x = &a->meshes[m].primitives[p];
            const ze_model_primitive_t *y = &b->meshes[m].primitives[p];
            assert_int_equal(x->vertex_count, y->vertex_count);
            for (uint32_t k = 0; x->normals && k < 3 * x->vertex_count; k++)
                if (fabsf(x->normals[k] - y->normals[k]) > 1.0f / 32767.0f)
                    fail_msg("%s: normal component %u off by more than a step", variant, k);
            for (int t = 0; t < 2; t++)
                for (uint32_t k = 0; x->texcoords[t] && k < 2 * x->vertex_count; k++)
                    if (fabsf(x->texcoords[t][k] - y->texcoords[t][k]) > 1.0f / 65535.0f)
                        fail_msg("%s: uv component %u off by more than a step", variant, k);
        }
    ze_asset_model_destroy(a);
    ze_asset_model_destroy(b);
}

static void test_quantized_variants_cook_the_same(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    uint32_t total = 0;
    for (size_t i = 0; i < ZE_COUNTOF(k_models); i++) {
        char dir[256], variant[1024], plain[1024], tag[32];
        snprintf(dir, sizeof dir, "%s/quant%zu", g_tmp, i);
        uint32_t n = 0;
        make_quantized_variant(k_models[i], dir, variant, sizeof variant, &n);
        total += n;
        snprintf(plain, sizeof plain, "%s/%s", ATU_ASSETS, k_models[i]);
        snprintf(tag, sizeof tag, "q%zu", i);
        expect_same_cook(plain, variant, tag, 0.0f); /* positions are not quantized */
        expect_within_step(plain, variant);
    }
    assert_true(total >= 10); /* the corpus has normals and UVs to quantize */
    print_message("%u attributes quantized in %zu variants\n", total, ZE_COUNTOF(k_models));
}

static void edit_variant(const char *path, const char *key, json_t *value)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    json_t *e = json_object_get(
        json_object_get(json_array_get(json_object_get(root, "bufferViews"), 0), "extensions"),
        "EXT_meshopt_compression");
    assert_non_null(e);
    json_object_set_new(e, key, value);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
}

static void test_corrupted_streams_name_the_accessor(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    char dir[256], variant[1024], bin[1100];
    snprintf(dir, sizeof dir, "%s/corrupt", g_tmp);
    size_t so, sl;
    make_meshopt_variant("gltf/Box/glTF/Box.gltf", dir, variant, sizeof variant, &so, &sl);
    snprintf(bin, sizeof bin, "%s/compressed.bin", dir);
    bytes_t good = slurp(bin);
    /* view 0 holds Box's indices (accessor 0): a bad header byte */
    bytes_t b = {ze_mem_sys_alloc(good.n), good.n};
    memcpy(b.p, good.p, good.n);
    b.p[so] ^= 0x5a;
    spill(bin, b.p, b.n);
    expect_rejected(variant, "/bufferViews/0/extensions/EXT_meshopt_compression: corrupted",
                    "/accessors/0");
    /* garbage in the middle of the stream */
    memcpy(b.p, good.p, good.n);
    for (size_t k = so + 1; k < so + sl; k++)
        b.p[k] = (uint8_t)(k * 131u + 7u);
    spill(bin, b.p, b.n);
    ze_model_t *m = NULL;
    ze_diag_capture_t d = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&d);
    /* either the codec or the accessor checks refuse it, never a crash */
    assert_int_not_equal(ze_asset_import_gltf_file(variant, &(ze_gltf_desc_t){0}, &m, &sink),
                         ZE_OK);
    assert_true(strstr(d.last_message, "/accessors/") || strstr(d.last_message, "/meshes/"));
    spill(bin, good.p, good.n);
    /* truncated: the stream claims fewer bytes than it needs */
    edit_variant(variant, "byteLength", json_integer((json_int_t)(sl / 2)));
    expect_rejected(variant, "EXT_meshopt_compression: corrupted", "/accessors/0");
    /* parameters checked before the decoder sees them */
    edit_variant(variant, "byteLength", json_integer((json_int_t)good.n * 4));
    expect_rejected(variant, "does not fit", NULL);
    edit_variant(variant, "byteLength", json_integer((json_int_t)sl));
    edit_variant(variant, "byteStride", json_integer(3));
    expect_rejected(variant, "byteStride of 2 or 4", NULL);
    edit_variant(variant, "byteStride", json_integer(2));
    edit_variant(variant, "mode", json_string("TRIANGLES"));
    expect_rejected(variant, "", NULL); /* 36 indices: decodes, or the data is refused */
    edit_variant(variant, "mode", json_string("SQUARES"));
    expect_rejected(variant, "mode 'SQUARES'", NULL);
    edit_variant(variant, "mode", json_string("INDICES"));
    edit_variant(variant, "filter", json_string("OCTAHEDRAL"));
    expect_rejected(variant, "filter OCTAHEDRAL does not fit", NULL);
    edit_variant(variant, "filter", json_string("NONE"));
    edit_variant(variant, "count", json_integer(35));
    expect_rejected(variant, "is not the bufferView's byteLength", NULL);
    ze_mem_sys_free(b.p);
    ze_mem_sys_free(good.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meshopt_variants_cook_the_same),
        cmocka_unit_test(test_quantized_variants_cook_the_same),
        cmocka_unit_test(test_corrupted_streams_name_the_accessor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
