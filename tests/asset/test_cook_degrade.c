/* Models degrade, they do not fail: a texture whose file is missing, whose
 * bytes are not an image, or whose image does not decode is left out of the
 * cook with a warning naming the file; the materials using it fall back to
 * the default (the slot is absent from the .zematerial) and the meshes
 * still cook. The strict glTF import (the validator's view) still fails on
 * the same file. Models are written by the test: a glTF through our own
 * importer, an OBJ through assimp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asset_test_util.h"
#include "zengine/asset.h"
#include "zengine/cook.h"

static void write_bytes(const char *dir, const char *name, const void *data, size_t size)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    write_bytes(dir, name, text, strlen(text));
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static size_t put_chunk(uint8_t *out, const char type[4], const uint8_t *data, uint32_t n)
{
    out[0] = (uint8_t)(n >> 24), out[1] = (uint8_t)(n >> 16), out[2] = (uint8_t)(n >> 8);
    out[3] = (uint8_t)n;
    memcpy(out + 4, type, 4);
    if (n)
        memcpy(out + 8, data, n);
    uint32_t crc = crc32_of(out + 4, 4 + (size_t)n);
    out[8 + n] = (uint8_t)(crc >> 24), out[9 + n] = (uint8_t)(crc >> 16);
    out[10 + n] = (uint8_t)(crc >> 8), out[11 + n] = (uint8_t)crc;
    return 12 + (size_t)n;
}

/* A PNG that passes the structural checks (signature, chunk CRCs, IHDR,
 * IDAT, IEND) but whose IDAT is not a zlib stream: stb_image refuses it. */
static size_t undecodable_png(uint8_t out[128])
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t ihdr[13] = {0, 0, 0, 2, 0, 0, 0, 2, 8, 6, 0, 0, 0}; /* 2x2 RGBA8 */
    static const uint8_t idat[8] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04};
    memcpy(out, sig, 8);
    size_t n = 8;
    n += put_chunk(out + n, "IHDR", ihdr, sizeof ihdr);
    n += put_chunk(out + n, "IDAT", idat, sizeof idat);
    n += put_chunk(out + n, "IEND", NULL, 0);
    return n;
}

static bool copy_good_png(const char *dir, const char *name)
{
    uint8_t *d;
    size_t n;
    FILE *f = fopen(ATU_ASSETS "/gltf/BoxTextured/glTF/CesiumLogoFlat.png", "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    d = ze_mem_sys_alloc(n);
    assert_int_equal(fread(d, 1, n, f), n);
    fclose(f);
    write_bytes(dir, name, d, n);
    ze_mem_sys_free(d);
    return true;
}

/* A triangle whose one material names four textures: base colour (file
 * missing), normal (not an image), occlusion (undecodable PNG), emissive
 * (a good PNG). Returns the .gltf's path in path[512]. */
static void write_gltf(const char *dir, char path[512])
{
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    write_bytes(dir, "tri.bin", tri, sizeof tri);
    write_text(dir, "bad.png", "this is not an image at all");
    uint8_t png[128];
    write_bytes(dir, "undecodable.png", png, undecodable_png(png));
    if (!copy_good_png(dir, "good.png"))
        skip();
    write_text(
        dir, "tri.gltf",
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"tri.bin\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},"
        "\"normalTexture\":{\"index\":1},\"occlusionTexture\":{\"index\":2},"
        "\"emissiveTexture\":{\"index\":3},\"emissiveFactor\":[1,1,1]}],"
        "\"textures\":[{\"source\":0},{\"source\":1},{\"source\":2},{\"source\":3}],"
        "\"images\":[{\"uri\":\"missing.png\"},{\"uri\":\"bad.png\"},"
        "{\"uri\":\"undecodable.png\"},{\"uri\":\"good.png\"}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}");
    snprintf(path, 512, "%s/tri.gltf", dir);
}

/* The cooked material `stem`.material0.zematerial of out_dir. */
static ze_zematerial_t read_material(const char *out_dir, const char *stem)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s.material0.zematerial", out_dir, stem);
    FILE *f = fopen(p, "rb");
    if (!f)
        fail_msg("%s missing", p);
    char text[8192];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    ze_zematerial_t m;
    assert_int_equal(ze_asset_zematerial_read(text, n, &m, NULL), ZE_OK);
    return m;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!hay || !strstr(hay, needle))
        fail_msg("'%s' does not name '%s'", hay ? hay : "(null)", needle);
}

static const uint64_t *dependency_hash(const ze_cook_result_t *r, const char *name)
{
    for (uint32_t i = 0; i < r->dependency_count; i++)
        if (strcmp(r->dependencies[i], name) == 0)
            return &r->dependency_hashes[i];
    return NULL;
}

static void test_gltf_strict_import_still_fails(void **state)
{
    (void)state;
    char dir[64], path[512];
    assert_true(atu_make_tmp(dir, "ze_degrade"));
    write_gltf(dir, path);
    ze_diag_capture_t cap = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&cap);
    ze_model_t *m = NULL;
    assert_int_not_equal(ze_asset_import_gltf_file(path, NULL, &m, &sink), ZE_OK);
    assert_null(m);
    assert_contains(cap.last_message, "missing.png");
    assert_contains(cap.last_message, "not found");

    /* kept going: each bad image says why, the good ones have their bytes */
    ze_gltf_desc_t gd = {.keep_bad_images = true};
    assert_int_equal(ze_asset_import_gltf_file(path, &gd, &m, NULL), ZE_OK);
    assert_int_equal(m->image_count, 4);
    assert_contains(m->images[0].problem, "missing.png");
    assert_null(m->images[0].data);
    assert_contains(m->images[1].problem, "neither PNG nor JPEG");
    assert_contains(m->images[1].problem, "/images/1");
    assert_null(m->images[2].problem); /* structurally fine: the cooker finds out */
    assert_null(m->images[3].problem);
    assert_non_null(m->images[3].data);
    assert_int_equal(m->mesh_count, 1);
    /* the missing file is a dependency: the model cooks again when it appears */
    bool listed = false;
    for (uint32_t i = 0; i < m->dependency_count; i++)
        listed |= strcmp(m->dependencies[i], "missing.png") == 0;
    assert_true(listed);
    ze_asset_model_destroy(m);
    atu_remove_tree(dir);
}

static void test_gltf_cook_degrades(void **state)
{
    (void)state;
    char dir[64], path[512], out[128];
    assert_true(atu_make_tmp(dir, "ze_degrade"));
    write_gltf(dir, path);
    snprintf(out, sizeof out, "%s/out", dir);
    ze_diag_capture_t cap = {0};
    ze_cook_desc_t cd = {.source = path, .out_dir = out, .diag = ze_diag_capture_sink(&cap)};
    ze_cook_result_t r;
    assert_int_equal(ze_asset_cook(&cd, &r), ZE_OK);
    assert_int_equal(r.cooked.meshes, 1);
    assert_int_equal(r.cooked.materials, 1);
    assert_int_equal(r.cooked.textures, 1); /* good.png only */
    assert_int_equal(r.texture_count, 1);
    assert_int_equal(r.warning_count, 3);
    assert_contains(r.warnings[0], "missing.png");
    assert_contains(r.warnings[1], "bad.png");
    assert_contains(r.warnings[2], "undecodable.png");
    for (uint32_t i = 0; i < r.warning_count; i++)
        assert_contains(r.warnings[i], "use the default");
    /* each warning went through the sink at WARN, as it happened */
    assert_int_equal(cap.count, 3);
    assert_int_equal(cap.errors, 0);
    assert_contains(cap.first, "missing.png");
    assert_contains(cap.last, "undecodable.png");
    assert_contains(cap.last, path); /* subject: the source */
    /* the missing file is listed with an unknown hash, the others hashed */
    const uint64_t *h = dependency_hash(&r, "missing.png");
    assert_non_null(h);
    assert_true(*h == 0);
    h = dependency_hash(&r, "good.png");
    assert_non_null(h);
    assert_true(*h != 0);
    ze_asset_cook_result_release(&r);

    ze_zematerial_t mat = read_material(out, "tri");
    assert_false(mat.base_color.present);
    assert_false(mat.normal.present);
    assert_false(mat.occlusion.present);
    assert_true(mat.emissive.present);
    assert_false(ze_uuid_is_nil(mat.emissive.texture));
    atu_remove_tree(dir);
}

/* The same through assimp: an OBJ whose .mtl names a missing diffuse map,
 * an emissive map that is not an image and a bump map outside the folder. */
static void test_obj_cook_degrades(void **state)
{
    (void)state;
    char dir[64], path[512], out[128];
    assert_true(atu_make_tmp(dir, "ze_degrade"));
    write_text(dir, "tri.mtl",
               "newmtl m\nKd 1 1 1\nmap_Kd gone.png\nmap_Ke junk.png\nmap_bump ../outside.png\n");
    write_text(dir, "junk.png", "not a png");
    write_text(dir, "tri.obj",
               "mtllib tri.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
               "usemtl m\nf 1/1 2/2 3/3\n");
    snprintf(path, sizeof path, "%s/tri.obj", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    ze_diag_capture_t cap = {0};
    ze_cook_desc_t cd = {.source = path, .out_dir = out, .diag = ze_diag_capture_sink(&cap)};
    ze_cook_result_t r;
    assert_int_equal(ze_asset_cook(&cd, &r), ZE_OK);
    assert_int_equal(r.cooked.meshes, 1);
    assert_int_equal(r.cooked.textures, 0);
    assert_true(r.warning_count >= 2);
    bool gone = false, junk = false;
    for (uint32_t i = 0; i < r.warning_count; i++) {
        gone |= strstr(r.warnings[i], "gone.png") != NULL;
        junk |= strstr(r.warnings[i], "junk.png") != NULL;
    }
    assert_true(gone);
    assert_true(junk);
    assert_int_equal(cap.errors, 0);
    assert_int_equal(cap.count, r.warning_count);
    ze_asset_cook_result_release(&r);
    ze_zematerial_t mat = read_material(out, "tri");
    assert_false(mat.base_color.present);
    assert_false(mat.emissive.present);
    assert_false(mat.normal.present);
    atu_remove_tree(dir);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_strict_import_still_fails),
        cmocka_unit_test(test_gltf_cook_degrades),
        cmocka_unit_test(test_obj_cook_degrades),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
