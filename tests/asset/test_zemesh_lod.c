/* Mesh levels of detail (.zemesh version 2): the cooker's levels of a
 * generated UV sphere and of a corpus model (fewer indices level by level,
 * errors non-decreasing and in object-space units, indices inside the
 * submesh's vertices, level 0 the mesh as cooked without levels, the same
 * bytes every time), the reader's rejection of every inconsistent level
 * field, version 1 files still read (one level), and the lod_count
 * setting's range. */
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
#include "../gfx/sphere_gltf.h"

#define ASSETS ZE_TESTDATA_DIR "/assets"

static ze_model_t *sphere_model(void)
{
    ze_allocator_t a = ze_mem_system_allocator();
    size_t len = 0, cap = 0;
    char *json = sphere_gltf(a, true, &len, &cap);
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_result r = ze__asset_import_gltf_memory(json, len, NULL, &m, &err);
    ze_free(a, json, cap);
    if (r != ZE_OK)
        fail_msg("%s", err.message);
    return m;
}

static void write_lods(const ze_model_t *m, uint32_t lods, uint8_t **bytes, size_t *size)
{
    ze_uuid_t id = {{0x5f}};
    assert_int_equal(
        ze_asset_zemesh_write_lods(m, 0, id, NULL, lods, ze_mem_system_allocator(), bytes, size),
        ZE_OK);
}

/* The level invariants every cooked mesh must meet; returns the levels of
 * submesh 0. */
static uint32_t check_levels(const ze_zemesh_view_t *v)
{
    uint32_t first = 0;
    for (uint32_t i = 0; i < v->submesh_count; i++) {
        ze_zemesh_submesh_t s;
        ze_asset_zemesh_submesh(v, i, &s);
        assert_true(s.lod_count >= 1 && s.lod_count <= ZE_ZEMESH_LOD_MAX);
        assert_int_equal(s.lods[0].index_offset, s.index_offset);
        assert_int_equal(s.lods[0].index_count, s.index_count);
        assert_true(s.lods[0].error == 0.0f);
        float extent = fmaxf(s.max.x - s.min.x, fmaxf(s.max.y - s.min.y, s.max.z - s.min.z));
        for (uint32_t k = 0; k < s.lod_count; k++) {
            const ze_zemesh_lod_t *l = &s.lods[k];
            assert_true(l->index_count > 0 && l->index_count % 3 == 0);
            if (k > 0) {
                assert_true(l->index_offset ==
                            s.lods[k - 1].index_offset + s.lods[k - 1].index_count);
                /* at least 1/8 fewer indices than the level before */
                assert_true(l->index_count <=
                            s.lods[k - 1].index_count - s.lods[k - 1].index_count / 8);
                assert_true(isfinite(l->error) && l->error >= s.lods[k - 1].error);
                /* object-space units: within the simplifier's relative
                   target (1 % doubling per level) of the extent */
                assert_true(l->error <= 0.01f * (float)(1u << (k - 1)) * extent * 1.001f);
            }
            for (uint32_t j = 0; j < l->index_count; j++) {
                uint32_t ix = v->indices[l->index_offset + j];
                assert_true(ix >= s.vertex_offset && ix < s.vertex_offset + s.vertex_count);
            }
        }
        if (i == 0)
            first = s.lod_count;
    }
    return first;
}

static void test_lods_sphere(void **state)
{
    (void)state;
    ze_allocator_t a = ze_mem_system_allocator();
    ze_model_t *m = sphere_model();
    uint8_t *one, *four, *again;
    size_t one_size, four_size, again_size;
    write_lods(m, 1, &one, &one_size);
    write_lods(m, 4, &four, &four_size);
    write_lods(m, 4, &again, &again_size);
    assert_int_equal(again_size, four_size);
    assert_memory_equal(again, four, four_size);
    ze_free(a, again, again_size);
    ze_zemesh_view_t v1, v4;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zemesh_read(one, one_size, &v1, &err), ZE_OK);
    assert_int_equal(ze__asset_zemesh_read(four, four_size, &v4, &err), ZE_OK);
    assert_int_equal(v4.version, ZE_ZEMESH_VERSION);
    assert_int_equal(check_levels(&v1), 1);
    assert_int_equal(check_levels(&v4), 4);
    assert_int_equal(v4.lod_total, 4);
    ze_zemesh_submesh_t s1, s4;
    ze_asset_zemesh_submesh(&v1, 0, &s1);
    ze_asset_zemesh_submesh(&v4, 0, &s4);
    /* The sphere's 4096 triangles halve exactly (its border is only the
       uv seam, which the simplifier keeps). */
    assert_int_equal(s4.lods[1].index_count, s4.lods[0].index_count / 2);
    assert_true(s4.lods[1].error > 0.0f);
    /* Level 0 and the vertices are the mesh cooked without levels. */
    assert_int_equal(v4.vertex_count, v1.vertex_count);
    assert_int_equal(s1.index_count, s4.index_count);
    assert_memory_equal(v4.indices, v1.indices, (size_t)s1.index_count * 4);
    assert_memory_equal(v4.vertices, v1.vertices, (size_t)v1.vertex_count * v1.vertex_stride);
    /* The index array holds every level. */
    uint32_t sum = 0;
    for (uint32_t k = 0; k < s4.lod_count; k++)
        sum += s4.lods[k].index_count;
    assert_int_equal(v4.index_count, sum);
    /* The writer takes 1 to ZE_ZEMESH_LOD_MAX. */
    ze_uuid_t id = {{1}};
    assert_int_equal(ze_asset_zemesh_write_lods(m, 0, id, NULL, 0, a, &again, &again_size),
                     ZE_ERR_INVALID_ARG);
    assert_int_equal(
        ze_asset_zemesh_write_lods(m, 0, id, NULL, ZE_ZEMESH_LOD_MAX + 1, a, &again, &again_size),
        ZE_ERR_INVALID_ARG);
    /* All eight asked for: the sphere stops when it cannot halve any more. */
    write_lods(m, ZE_ZEMESH_LOD_MAX, &again, &again_size);
    ze_zemesh_view_t v8;
    assert_int_equal(ze__asset_zemesh_read(again, again_size, &v8, &err), ZE_OK);
    assert_true(check_levels(&v8) >= 4);
    ze_free(a, again, again_size);
    ze_free(a, one, one_size);
    ze_free(a, four, four_size);
    ze_asset_model_destroy(m);
}

/* ------------------------------------------------------------ rejections */

static void reseal(uint8_t *b, size_t size)
{
    uint64_t sum = ze_hash64(b, size - 8, 0);
    memcpy(b + size - 8, &sum, 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Offsets into a one-submesh version 2 file. */
enum { SUB = 96, LODS = 96 + 64 };

static void test_lods_rejections(void **state)
{
    (void)state;
    ze_allocator_t a = ze_mem_system_allocator();
    ze_model_t *m = sphere_model();
    uint8_t *src;
    size_t size;
    write_lods(m, 4, &src, &size);
    ze_asset_model_destroy(m);
    const uint32_t l2 = LODS + 2 * 16; /* level 2's entry */
    const uint32_t idx_at = LODS + 4 * 16;
    const uint32_t l2_first = get32(src + l2);
    const uint32_t nverts = get32(src + 36);
    float err1;
    memcpy(&err1, src + LODS + 16 + 8, 4);
    const float nan = NAN, tiny = err1 * 0.5f, one = 1.0f;
    struct {
        uint32_t at, value;
        const char *expect;
    } cases[] = {
        {SUB + 60, 0, "levels of detail (1 to 8)"},
        {SUB + 60, 9, "levels of detail (1 to 8)"},
        {SUB + 60, 3, "of the 4 levels"},
        {SUB + 56, 1, "are not the next in the table"},
        {80, 5, "do not add up"},
        {84, 1, "reserved header bytes"},
        {l2, l2_first + 3, "level 2 does not follow"},
        {LODS + 4, get32(src + LODS + 4) - 3, "level 0 has"},
        {l2 + 4, 0, "level 2 has 0 indices"},
        {l2 + 4, get32(src + l2 + 4) + 1, "level 2 has"},
        {l2 + 12, 7, "reserved bytes are not zero"},
        {idx_at + 4 * l2_first, nverts, "outside its vertices"},
    };
    uint8_t *b = ze_alloc(a, size, 16);
    ze_zemesh_view_t v;
    ze__asset_error_t err;
    for (size_t i = 0; i < ZE_COUNTOF(cases); i++) {
        memcpy(b, src, size);
        put32(b + cases[i].at, cases[i].value);
        reseal(b, size);
        assert_int_equal(ze__asset_zemesh_read(b, size, &v, &err), ZE_ERR_PARSE);
        if (!strstr(err.message, cases[i].expect))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].expect);
    }
    /* Errors: finite, 0 at level 0, never below the previous level's. */
    struct {
        uint32_t at;
        float value;
    } errs[] = {{LODS + 8, one}, {l2 + 8, nan}, {l2 + 8, tiny}, {l2 + 8, INFINITY}};
    for (size_t i = 0; i < ZE_COUNTOF(errs); i++) {
        memcpy(b, src, size);
        memcpy(b + errs[i].at, &errs[i].value, 4);
        reseal(b, size);
        assert_int_equal(ze__asset_zemesh_read(b, size, &v, &err), ZE_ERR_PARSE);
        if (!strstr(err.message, "error"))
            fail_msg("error case %zu: '%s'", i, err.message);
    }
    /* The header's and table's bytes: every truncation and flipped byte. */
    for (size_t cut = 0; cut < idx_at; cut++)
        assert_int_not_equal(ze__asset_zemesh_read(src, cut, &v, &err), ZE_OK);
    for (size_t i = 0; i < idx_at; i++) {
        memcpy(b, src, size);
        b[i] ^= 0x10;
        assert_int_not_equal(ze__asset_zemesh_read(b, size, &v, &err), ZE_OK);
    }
    ze_free(a, b, size);
    ze_free(a, src, size);
}

/* A version 2 file of one-level submeshes rewritten as version 1 (80-byte
 * header, 56-byte submeshes, no level table) reads as the same mesh. */
static void test_lods_reads_version1(void **state)
{
    (void)state;
    ze_allocator_t a = ze_mem_system_allocator();
    ze_model_t *m = sphere_model();
    uint8_t *src;
    size_t size;
    write_lods(m, 1, &src, &size);
    ze_asset_model_destroy(m);
    ze_zemesh_view_t v2;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zemesh_read(src, size, &v2, &err), ZE_OK);
    const size_t nsub = v2.submesh_count, rest = size - 96 - nsub * (64 + 16);
    const size_t size1 = 80 + nsub * 56 + rest;
    uint8_t *b = ze_alloc(a, size1, 16);
    memcpy(b, src, 80);
    put32(b + 8, 1);
    uint64_t n = size1;
    memcpy(b + 72, &n, 8);
    for (size_t i = 0; i < nsub; i++)
        memcpy(b + 80 + i * 56, src + 96 + i * 64, 56);
    memcpy(b + 80 + nsub * 56, src + 96 + nsub * (64 + 16), rest);
    reseal(b, size1);
    ze_zemesh_view_t v1;
    assert_int_equal(ze__asset_zemesh_read(b, size1, &v1, &err), ZE_OK);
    assert_int_equal(v1.version, 1);
    assert_int_equal(v1.lod_total, v1.submesh_count);
    assert_int_equal(v1.index_count, v2.index_count);
    assert_memory_equal(v1.indices, v2.indices, (size_t)v2.index_count * 4);
    ze_zemesh_submesh_t s1, s2;
    ze_asset_zemesh_submesh(&v1, 0, &s1);
    ze_asset_zemesh_submesh(&v2, 0, &s2);
    assert_int_equal(s1.lod_count, 1);
    assert_int_equal(s1.lods[0].index_count, s2.index_count);
    assert_memory_equal(&s1, &s2, sizeof s1);
    /* Version 1 with a version 2 header's size is rejected. */
    put32(b + 8, 2);
    reseal(b, size1);
    assert_int_equal(ze__asset_zemesh_read(b, size1, &v1, &err), ZE_ERR_PARSE);
    ze_free(a, b, size1);
    ze_free(a, src, size);
}

/* ---------------------------------------------------------------- cooker */

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
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%.600s/%.255s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static uint8_t g_a[1 << 20] __attribute__((aligned(16))), g_b[1 << 20] __attribute__((aligned(16)));

/* Cook the corpus model with `settings` into root/sub; the mesh's bytes in
 * buf. */
static size_t cook_mesh(const char *root, const char *sub, const char *settings, uint8_t *buf,
                        ze_cook_result_t *r)
{
    const char *src = ASSETS "/gltf/NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf";
    char out[600], p[800];
    snprintf(out, sizeof out, "%s/%s", root, sub);
    ze_cook_desc_t d = {.source = src, .out_dir = out, .settings = settings};
    assert_int_equal(ze_asset_cook(&d, r), ZE_OK);
    size_t n = 0;
    for (uint32_t i = 0; i < r->artifact_count; i++)
        if (r->sub_asset_types[i] == ZE_ASSET_TYPE_MESH) {
            snprintf(p, sizeof p, "%s/%s", out, r->artifacts[i]);
            n = read_all(p, buf, sizeof g_a);
        }
    assert_true(n > 0 && n < sizeof g_a);
    remove_tree(out);
    return n;
}

static void test_lods_cook_corpus(void **state)
{
    (void)state;
    struct stat st;
    if (stat(ASSETS "/manifest.json", &st) != 0) {
        print_message("[  SKIPPED ] %s absent: the shared test corpus is missing\n", ASSETS);
        skip();
        return;
    }
    char root[] = "/tmp/ze_lods_XXXXXX";
    assert_non_null(mkdtemp(root));
    ze_cook_result_t r1, r2, r3, r0;
    size_t n1 = cook_mesh(root, "a", "{\"lod_count\": 4}", g_a, &r1);
    size_t n2 = cook_mesh(root, "b", "{\"lod_count\": 4}", g_b, &r2);
    assert_int_equal(n1, n2);
    assert_memory_equal(g_a, g_b, n1); /* deterministic */
    assert_int_not_equal(r1.settings_hash, 0);
    ze_zemesh_view_t v, w;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zemesh_read(g_a, n1, &v, &err), ZE_OK);
    assert_int_equal(check_levels(&v), 4);
    ze_zemesh_submesh_t s, t;
    ze_asset_zemesh_submesh(&v, 0, &s);
    for (uint32_t k = 1; k < 4; k++)
        assert_true(s.lods[k].index_count < s.lods[k - 1].index_count);
    assert_true(s.lods[3].error > 0.0f);
    /* Scaled by 2 at import: the same levels, errors twice as large (they
       are in the cooked mesh's units). */
    size_t n3 = cook_mesh(root, "c", "{\"lod_count\": 4, \"scale\": 2}", g_b, &r3);
    assert_int_equal(ze__asset_zemesh_read(g_b, n3, &w, &err), ZE_OK);
    assert_int_equal(check_levels(&w), 4);
    ze_asset_zemesh_submesh(&w, 0, &t);
    for (uint32_t k = 1; k < 4; k++) {
        assert_int_equal(t.lods[k].index_count, s.lods[k].index_count);
        assert_true(fabsf(t.lods[k].error - 2.0f * s.lods[k].error) <= 1e-3f * t.lods[k].error);
    }
    /* The defaults: one level, and the cook's counts are level 0's. */
    size_t n0 = cook_mesh(root, "d", NULL, g_b, &r0);
    assert_int_equal(ze__asset_zemesh_read(g_b, n0, &w, &err), ZE_OK);
    assert_int_equal(check_levels(&w), 1);
    assert_int_equal(r0.settings_hash, 0);
    assert_int_equal(w.index_count, s.index_count);
    assert_memory_equal(w.indices, v.indices, (size_t)s.index_count * 4);
    ze_asset_cook_result_release(&r0);
    ze_asset_cook_result_release(&r1);
    ze_asset_cook_result_release(&r2);
    ze_asset_cook_result_release(&r3);
    rmdir(root);
}

/* -------------------------------------------------------------- settings */

static void test_lods_setting_range(void **state)
{
    (void)state;
    ze_import_settings_t s;
    for (int n = 1; n <= 8; n++) {
        char json[64];
        snprintf(json, sizeof json, "{\"lod_count\": %d}", n);
        assert_int_equal(ze_import_settings_parse(json, strlen(json), "gltf", &s, "x.gltf", NULL),
                         ZE_OK);
        assert_int_equal(s.lod_count, (uint32_t)n);
        uint64_t h = ze_import_settings_hash(&s);
        assert_true(n == 1 ? h == 0 : h != 0);
    }
    assert_int_equal(ze_import_settings_default().lod_count, 1);
    const char *bad[] = {"{\"lod_count\": 0}", "{\"lod_count\": 9}", "{\"lod_count\": -1}",
                         "{\"lod_count\": 2.5}", "{\"lod_count\": \"4\"}"};
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++) {
        ze_diag_capture_t cap = {0};
        ze_diag_sink_t sink = ze_diag_capture_sink(&cap);
        assert_int_equal(
            ze_import_settings_parse(bad[i], strlen(bad[i]), "assimp", &s, "m.obj", &sink),
            ZE_ERR_PARSE);
        assert_int_equal(s.lod_count, 1); /* the defaults on failure */
        if (!strstr(cap.last, "settings.lod_count"))
            fail_msg("%s: '%s'", bad[i], cap.last);
    }
    ze_diag_capture_t cap = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&cap);
    const char *img = "{\"lod_count\": 2}";
    assert_int_equal(ze_import_settings_parse(img, strlen(img), "image", &s, "t.png", &sink),
                     ZE_ERR_PARSE);
    assert_non_null(strstr(cap.last, "settings.lod_count: does not apply"));
    /* Two counts, two identities. */
    ze_import_settings_t a = ze_import_settings_default(), b = a;
    a.lod_count = 2;
    b.lod_count = 3;
    assert_true(ze_import_settings_hash(&a) != ze_import_settings_hash(&b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lods_sphere),         cmocka_unit_test(test_lods_rejections),
        cmocka_unit_test(test_lods_reads_version1), cmocka_unit_test(test_lods_cook_corpus),
        cmocka_unit_test(test_lods_setting_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
