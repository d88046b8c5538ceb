/* Helpers of the tests that write variants of the corpus's glTF files
 * (test_gltf_compressed, test_gltf_draco): whole files in and out, images
 * copied beside a variant, extensions declared, and the comparison of a
 * variant's cook with its plain file's. Included once per test program
 * (after cmocka, asset_test_util.h and zengine/cook.h). */
#ifndef ZE_TESTS_GLTF_VARIANT_H
#define ZE_TESTS_GLTF_VARIANT_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The corpus's .gltf files with external buffers (the generators read
 * them; embedded data URIs are the other tests'), and the programs'
 * group setup: a scratch folder and the manifest, the log quiet. */
static const char *const k_models[] = {
    "gltf/Box/glTF/Box.gltf",
    "gltf/BoxAnimated/glTF/BoxAnimated.gltf",
    "gltf/BoxInterleaved/glTF/BoxInterleaved.gltf",
    "gltf/BoxTextured/glTF/BoxTextured.gltf",
    "gltf/Cameras/glTF/Cameras.gltf",
    "gltf/MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf",
    "gltf/MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf",
    "gltf/MultiUVTest/glTF/MultiUVTest.gltf",
    "gltf/NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf",
    "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
    "gltf/TextureTransformTest/glTF/TextureTransformTest.gltf",
    "gltf/VertexColorTest/glTF/VertexColorTest.gltf",
};

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    atu_manifest_setup(state);
    return atu_tmp_setup(state);
}

static int teardown(void **state)
{
    atu_manifest_teardown(state);
    atu_tmp_teardown(state);
    ze_log_reset();
    return 0;
}

typedef struct bytes_t {
    uint8_t *p;
    size_t n;
} bytes_t;

static bytes_t slurp(const char *path)
{
    bytes_t b = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    b.n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.p = ze_mem_sys_alloc(b.n + 1);
    assert_int_equal(fread(b.p, 1, b.n, f), b.n);
    fclose(f);
    return b;
}

static void spill(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void dir_of(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s", path);
    char *s = strrchr(out, '/');
    if (s)
        *s = '\0';
}

/* Images beside the variant (the glTF names them relative to itself). */
static void copy_images(json_t *root, const char *from, const char *to)
{
    size_t i;
    json_t *img;
    json_array_foreach(json_object_get(root, "images"), i, img)
    {
        const char *uri = json_string_value(json_object_get(img, "uri"));
        if (!uri || strncmp(uri, "data:", 5) == 0 || strchr(uri, '/') || strchr(uri, '%'))
            continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", from, uri);
        snprintf(b, sizeof b, "%s/%s", to, uri);
        bytes_t d = slurp(a);
        spill(b, d.p, d.n);
        ze_mem_sys_free(d.p);
    }
}

static void add_extension(json_t *root, const char *name, bool required)
{
    const char *keys[2] = {"extensionsUsed", "extensionsRequired"};
    for (int k = 0; k < (required ? 2 : 1); k++) {
        json_t *a = json_object_get(root, keys[k]);
        if (!a) {
            a = json_array();
            json_object_set_new(root, keys[k], a);
        }
        json_array_append_new(a, json_string(name));
    }
}

/* The variant's end: the new buffer `bin` (n bytes) beside it and in its
 * buffers, the extension declared (NULL: none), the images copied, the
 * document written to `dir`/variant.gltf (its path in out) and freed. */
static void finish_variant(json_t *root, const char *from, const char *dir, const char *bin,
                           const uint8_t *data, size_t n, const char *ext, bool required, char *out,
                           size_t cap)
{
    json_array_append_new(json_object_get(root, "buffers"),
                          json_pack("{s:s,s:I}", "uri", bin, "byteLength", (json_int_t)n));
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, bin);
    spill(p, data, n);
    if (ext)
        add_extension(root, ext, required);
    copy_images(root, from, dir);
    snprintf(out, cap, "%s/variant.gltf", dir);
    assert_int_equal(json_dump_file(root, out, JSON_INDENT(1)), 0);
    json_decref(root);
}

/* The geometry is what is compared: textures cook uncompressed without
 * mips and one LOD is built (block compression in a debug build under a
 * loaded CI machine was most of this test's time). */
static void cook_counts(const char *src, const char *out, ze_cook_result_t *r)
{
    ze_diag_capture_t d = {0};
    ze_cook_desc_t desc = {.source = src,
                           .out_dir = out,
                           .settings =
                               "{\"mips\": false, \"compression\": \"none\", \"lod_count\": 1}",
                           .diag = ze_diag_capture_sink(&d)};
    if (ze_asset_cook(&desc, r) != ZE_OK)
        fail_msg("%s: %s", src, d.last_message);
}

static void model_bounds(const char *src, ze_vec3_t *mn, ze_vec3_t *mx)
{
    ze_model_t *m;
    ze_diag_capture_t d = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&d);
    if (ze_asset_import_gltf_file(src, &(ze_gltf_desc_t){0}, &m, &sink) != ZE_OK)
        fail_msg("%s: %s", src, d.last_message);
    *mn = m->min;
    *mx = m->max;
    ze_asset_model_destroy(m);
}

/* The variant's bounds within tol of the plain file's on every axis. */
static void expect_same_bounds(const char *plain, const char *variant, float tol)
{
    ze_vec3_t amin, amax, bmin, bmax;
    model_bounds(plain, &amin, &amax);
    model_bounds(variant, &bmin, &bmax);
    const float *x = &amin.x, *y = &bmin.x, *X = &amax.x, *Y = &bmax.x;
    for (int k = 0; k < 3; k++)
        if (fabsf(x[k] - y[k]) > tol || fabsf(X[k] - Y[k]) > tol)
            fail_msg("%s: bounds differ from the plain file's on axis %d", variant, k);
}

static void expect_same_cook(const char *plain, const char *variant, const char *tag, float tol)
{
    char o1[256], o2[256];
    snprintf(o1, sizeof o1, "%s/%s-plain", g_tmp, tag);
    snprintf(o2, sizeof o2, "%s/%s-variant", g_tmp, tag);
    ze_cook_result_t a, b;
    cook_counts(plain, o1, &a);
    cook_counts(variant, o2, &b);
    assert_int_equal(a.cooked.meshes, b.cooked.meshes);
    assert_int_equal(a.cooked.submeshes, b.cooked.submeshes);
    if (a.cooked.vertices != b.cooked.vertices || a.cooked.indices != b.cooked.indices)
        fail_msg("%s: %llu/%llu vertices/indices, the plain file %llu/%llu", variant,
                 (unsigned long long)b.cooked.vertices, (unsigned long long)b.cooked.indices,
                 (unsigned long long)a.cooked.vertices, (unsigned long long)a.cooked.indices);
    assert_int_equal(a.source.vertices, b.source.vertices);
    ze_asset_cook_result_release(&a);
    ze_asset_cook_result_release(&b);
    expect_same_bounds(plain, variant, tol);
}

/* The import fails with a message holding part1 (and part2). */
static void expect_rejected(const char *path, const char *part1, const char *part2)
{
    ze_model_t *m = NULL;
    ze_diag_capture_t d = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&d);
    ze_result r = ze_asset_import_gltf_file(path, &(ze_gltf_desc_t){0}, &m, &sink);
    if (r == ZE_OK || !strstr(d.last_message, part1) || (part2 && !strstr(d.last_message, part2)))
        fail_msg("%s: %s '%s', expected '%s' and '%s'", path, ze_result_str(r), d.last_message,
                 part1, part2 ? part2 : "");
    assert_null(m);
}

#endif
