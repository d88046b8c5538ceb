/* Textures and environment maps: .zetex from PNG/JPEG/TGA (stb_image) with
 * mip chains (sRGB-aware), .zenvmap from Radiance .hdr (our RGBE reader:
 * flat and RLE scanlines), both readers' rejection of truncated, flipped,
 * wrong-version and inconsistent files, the decoders' caps and errors,
 * half-float conversion, and the corpus: every texture and .hdr file of
 * ../shared/testdata/assets cooks with the manifest's dimensions, twice to
 * the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
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

static ze_allocator_t A(void)
{
    return ze_mem_system_allocator();
}

/* An uncompressed true-colour TGA (BGRA, top-left origin). */
static size_t make_tga(uint8_t *out, uint32_t w, uint32_t h, const uint8_t *rgba)
{
    memset(out, 0, 18);
    out[2] = 2;
    out[12] = (uint8_t)w;
    out[13] = (uint8_t)(w >> 8);
    out[14] = (uint8_t)h;
    out[15] = (uint8_t)(h >> 8);
    out[16] = 32;
    out[17] = 0x28; /* 8 alpha bits, top-left origin */
    for (size_t i = 0; i < (size_t)w * h; i++) {
        out[18 + i * 4 + 0] = rgba[i * 4 + 2];
        out[18 + i * 4 + 1] = rgba[i * 4 + 1];
        out[18 + i * 4 + 2] = rgba[i * 4 + 0];
        out[18 + i * 4 + 3] = rgba[i * 4 + 3];
    }
    return 18 + (size_t)w * h * 4;
}

static void fix_checksum(uint8_t *b, size_t n)
{
    uint64_t sum = ze_hash64(b, n - 8, 0);
    memcpy(b + n - 8, &sum, 8);
}

static void test_zetex_from_tga_and_mips(void **state)
{
    (void)state;
    /* 2x2: two black, two white texels, alpha 0 and 255. */
    const uint8_t px[16] = {0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255};
    uint8_t tga[64];
    size_t n = make_tga(tga, 2, 2, px);
    ze_uuid_t id = ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, "t", 1);
    for (int linear = 0; linear < 2; linear++) {
        ze_image_desc_t d = {.format = ZE_IMAGE_FORMAT_TGA, .linear = linear != 0};
        uint8_t *bytes;
        size_t size;
        ze__asset_error_t err;
        assert_int_equal(ze__asset_zetex_cook(tga, n, id, &d, &bytes, &size, &err), ZE_OK);
        ze_tex_view_t v;
        assert_int_equal(ze__asset_zetex_read(bytes, size, &v, &err), ZE_OK);
        assert_memory_equal(v.uuid.bytes, id.bytes, 16);
        assert_int_equal(v.format, linear ? ZE_TEX_FORMAT_RGBA8_UNORM : ZE_TEX_FORMAT_RGBA8_SRGB);
        assert_int_equal(v.width, 2);
        assert_int_equal(v.mip_count, 2);
        assert_memory_equal(v.mips[0].data, px, 16);
        assert_int_equal(v.mips[1].width, 1);
        const uint8_t *m1 = v.mips[1].data;
        if (linear) {
            assert_int_equal(m1[0], 128);
        } else {
            /* half the light: sRGB 0.735, not 0.5 */
            assert_true(m1[0] >= 187 && m1[0] <= 188);
        }
        assert_int_equal(m1[3], 128); /* alpha is averaged linearly */
        assert_int_equal(((uintptr_t)v.mips[1].data - (uintptr_t)bytes) % 16, 0);
        ze_free(A(), bytes, size);
    }
}

static void test_zetex_reader_rejects(void **state)
{
    (void)state;
    uint8_t px[5 * 3 * 4];
    for (size_t i = 0; i < sizeof px; i++)
        px[i] = (uint8_t)(i * 37);
    uint8_t tga[128];
    size_t n = make_tga(tga, 5, 3, px);
    ze_image_desc_t d = {.format = ZE_IMAGE_FORMAT_TGA};
    uint8_t *bytes;
    size_t size;
    assert_int_equal(ze__asset_zetex_cook(tga, n, ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, "r", 1), &d,
                                          &bytes, &size, NULL),
                     ZE_OK);
    ze_tex_view_t v;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zetex_read(bytes, size, &v, &err), ZE_OK);
    assert_int_equal(v.mip_count, 3); /* 5x3, 2x1, 1x1 */
    assert_int_equal(v.mips[2].width, 1);
    uint8_t *copy = ze_alloc(A(), size, 16);
    /* every truncation */
    for (size_t k = 0; k < size; k++)
        assert_int_not_equal(ze__asset_zetex_read(bytes, k, &v, &err), ZE_OK);
    /* every flipped byte */
    for (size_t k = 0; k < size; k++) {
        memcpy(copy, bytes, size);
        copy[k] ^= 0x41;
        assert_int_not_equal(ze__asset_zetex_read(copy, size, &v, &err), ZE_OK);
        assert_true(err.message[0] != 0);
    }
    /* another version, checksum right: unsupported */
    memcpy(copy, bytes, size);
    copy[8] = 2;
    fix_checksum(copy, size);
    assert_int_equal(ze__asset_zetex_read(copy, size, &v, &err), ZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "version 2"));
    /* inconsistent fields with a valid checksum */
    static const struct {
        size_t off;
        uint8_t val;
        const char *msg;
    } bad[] = {
        {12, 99, "texel format"}, {32, 6, "mip"},      {36, 0, "dimensions"},
        {40, 4, "mips"},          {44, 1, "reserved"}, {64, 72, "mip 0"},
    };
    for (size_t k = 0; k < ZE_COUNTOF(bad); k++) {
        memcpy(copy, bytes, size);
        copy[bad[k].off] = bad[k].val;
        fix_checksum(copy, size);
        assert_int_equal(ze__asset_zetex_read(copy, size, &v, &err), ZE_ERR_PARSE);
        if (!strstr(err.message, bad[k].msg))
            fail_msg("offset %zu: '%s' lacks '%s'", bad[k].off, err.message, bad[k].msg);
    }
    /* a .zenvmap reader refuses a .zetex */
    assert_int_equal(ze__asset_zenvmap_read(bytes, size, &v, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "magic"));
    ze_free(A(), copy, size);
    ze_free(A(), bytes, size);
}

static void test_images_rejected(void **state)
{
    (void)state;
    uint8_t *bytes;
    size_t size;
    ze__asset_error_t err;
    ze_uuid_t id = {{0}};
    static const char garbage[] = "this is not an image at all";
    assert_int_equal(ze__asset_zetex_cook(garbage, sizeof garbage, id, NULL, &bytes, &size, &err),
                     ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "signature"));
    assert_int_equal(ze__asset_zetex_cook(garbage, 0, id, NULL, &bytes, &size, &err), ZE_ERR_PARSE);
    /* a PNG cut short, a PNG with a bad CRC */
    static const uint8_t png1x1[] = {
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
        0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
        0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
        0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99,
        0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
    assert_int_equal(ze__asset_zetex_cook(png1x1, sizeof png1x1, id, NULL, &bytes, &size, &err),
                     ZE_OK);
    ze_tex_view_t v;
    assert_int_equal(ze__asset_zetex_read(bytes, size, &v, NULL), ZE_OK);
    assert_int_equal(v.width, 1);
    assert_int_equal(v.mip_count, 1);
    ze_free(A(), bytes, size);
    for (size_t k = 0; k < sizeof png1x1; k++)
        assert_int_not_equal(ze__asset_zetex_cook(png1x1, k, id, NULL, &bytes, &size, &err), ZE_OK);
    uint8_t broken[sizeof png1x1];
    memcpy(broken, png1x1, sizeof broken);
    broken[45] ^= 1; /* inside IDAT */
    assert_int_equal(ze__asset_zetex_cook(broken, sizeof broken, id, NULL, &bytes, &size, &err),
                     ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "CRC"));
    /* A Huffman table of 300 codes: stb_image 2.27 writes past its table
       (a fuzz_zetex find); our check refuses it first. */
    static uint8_t jpg[1024];
    size_t jn = 0;
    const uint8_t head[] = {0xff, 0xd8, 0xff, 0xc4, 0x01, 0x3f /* 2+17+300 */, 0x00};
    memcpy(jpg, head, sizeof head);
    jn = sizeof head;
    for (int i = 0; i < 16; i++)
        jpg[jn++] = i == 7 ? 255 : i == 8 ? 45 : 0;
    for (int i = 0; i < 300; i++)
        jpg[jn++] = (uint8_t)i;
    const uint8_t tail[] = {0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01,
                            0x01, 0x01, 0x11, 0x00, 0xff, 0xda, 0x00, 0x08, 0x01,
                            0x01, 0x00, 0x00, 0x3f, 0x00, 0x00, 0xff, 0xd9};
    memcpy(jpg + jn, tail, sizeof tail);
    jn += sizeof tail;
    assert_int_equal(ze__asset_zetex_cook(jpg, jn, id, NULL, &bytes, &size, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "Huffman"));
    /* caps checked before decoding */
    uint8_t px[64 * 4] = {0}, tga[18 + sizeof px];
    size_t n = make_tga(tga, 16, 4, px);
    ze_image_desc_t d = {.format = ZE_IMAGE_FORMAT_TGA, .max_dimension = 8};
    assert_int_equal(ze__asset_zetex_cook(tga, n, id, &d, &bytes, &size, &err), ZE_ERR_LIMIT);
    assert_non_null(strstr(err.message, "16x4"));
    d = (ze_image_desc_t){.format = ZE_IMAGE_FORMAT_TGA, .max_bytes = 100};
    assert_int_equal(ze__asset_zetex_cook(tga, n, id, &d, &bytes, &size, &err), ZE_ERR_LIMIT);
    /* a TGA header claiming more pixels than there are */
    tga[12] = 0xff;
    tga[13] = 0x0f;
    d = (ze_image_desc_t){.format = ZE_IMAGE_FORMAT_TGA};
    assert_int_not_equal(ze__asset_zetex_cook(tga, n, id, &d, &bytes, &size, &err), ZE_OK);
}

static void test_half_floats(void **state)
{
    (void)state;
    assert_int_equal(ze_asset_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(ze_asset_f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(ze_asset_f32_to_f16(0.0f), 0);
    assert_int_equal(ze_asset_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(ze_asset_f32_to_f16(1e9f), 0x7bff); /* clamped */
    assert_int_equal(ze_asset_f32_to_f16(ldexpf(1, -24)), 1);
    assert_int_equal(ze_asset_f32_to_f16(ldexpf(1, -25)), 0);             /* tie to even */
    assert_int_equal(ze_asset_f32_to_f16(ldexpf(3, -25)), 2);             /* tie to even */
    assert_int_equal(ze_asset_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00); /* tie */
    assert_int_equal(ze_asset_f32_to_f16(1.0f + ldexpf(3, -11)), 0x3c02);
    for (uint32_t h = 0; h < 0x7c00; h++)
        assert_int_equal(ze_asset_f32_to_f16(ze_asset_f16_to_f32((uint16_t)h)), h);
}

/* ------------------------------------------------------------------ hdr */

static size_t hdr_header(char *out, size_t cap, const char *res)
{
    return (size_t)snprintf(out, cap,
                            "#?RADIANCE\n# test\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1\n\n%s\n", res);
}

static void test_hdr_flat_and_rle(void **state)
{
    (void)state;
    /* 2x2 flat, bottom-up (+Y): rows are flipped. */
    uint8_t buf[1024];
    size_t n = hdr_header((char *)buf, sizeof buf, "+Y 2 +X 2");
    const uint8_t flat[16] = {128, 64, 32, 129, 0, 0, 0, 0, 255, 255, 255, 0, 128, 128, 128, 130};
    memcpy(buf + n, flat, 16);
    ze_hdr_image_t img;
    ze__asset_error_t err;
    assert_int_equal(ze__asset_hdr_decode(buf, n + 16, NULL, &img, &err), ZE_OK);
    assert_int_equal(img.width, 2);
    /* file row 0 is the bottom row */
    assert_true(img.rgb[6] == 1.0f && img.rgb[7] == 0.5f && img.rgb[8] == 0.25f);
    assert_true(img.rgb[9] == 0.0f);
    assert_true(img.rgb[0] == 0.0f); /* exponent 0 */
    assert_true(img.rgb[3] == 2.0f);
    ze_asset_hdr_release(&img);

    /* 8x1 new-style RLE: R a run of 8, G literals, B run 3 + literal 5, E run 8 */
    n = hdr_header((char *)buf, sizeof buf, "-Y 1 +X 8");
    const uint8_t rle[] = {2,   2,   0, 8,                /* marker */
                           136, 128,                      /* R */
                           8,   1,   2, 3, 4, 5, 6, 7, 8, /* G */
                           131, 64,  5, 1, 2, 3, 4, 5,    /* B */
                           136, 129};                     /* E */
    memcpy(buf + n, rle, sizeof rle);
    assert_int_equal(ze__asset_hdr_decode(buf, n + sizeof rle, NULL, &img, &err), ZE_OK);
    assert_true(img.rgb[0] == 1.0f && img.rgb[1] == 1.0f / 128 && img.rgb[2] == 0.5f);
    assert_true(img.rgb[7 * 3 + 1] == 8.0f / 128 && img.rgb[7 * 3 + 2] == 5.0f / 128);
    ze_asset_hdr_release(&img);
    /* every truncation of it fails */
    for (size_t k = 0; k < n + sizeof rle; k++)
        assert_int_not_equal(ze__asset_hdr_decode(buf, k, NULL, &img, &err), ZE_OK);
    /* a run past the end of the line */
    uint8_t bad[sizeof rle];
    memcpy(bad, rle, sizeof rle);
    bad[4] = 137;
    memcpy(buf + n, bad, sizeof bad);
    assert_int_equal(ze__asset_hdr_decode(buf, n + sizeof bad, NULL, &img, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "run goes past"));
    /* a zero literal, a wrong RLE width */
    memcpy(bad, rle, sizeof rle);
    bad[6] = 0;
    memcpy(buf + n, bad, sizeof bad);
    assert_int_equal(ze__asset_hdr_decode(buf, n + sizeof bad, NULL, &img, &err), ZE_ERR_PARSE);
    memcpy(bad, rle, sizeof rle);
    bad[3] = 9;
    memcpy(buf + n, bad, sizeof bad);
    assert_int_equal(ze__asset_hdr_decode(buf, n + sizeof bad, NULL, &img, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "RLE width"));

    /* headers and resolution lines */
    static const struct {
        const char *text;
        ze_result want;
        const char *msg;
    } cases[] = {
        {"#?NOTHDR\n\n-Y 1 +X 1\n", ZE_ERR_PARSE, "not a Radiance"},
        {"#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n", ZE_ERR_UNSUPPORTED, "XYZE"},
        {"#?RADIANCE\nFORMAT=weird\n\n-Y 1 +X 1\n", ZE_ERR_PARSE, "FORMAT"},
        {"#?RADIANCE\n\n+X 1 -Y 1\n", ZE_ERR_UNSUPPORTED, "resolution"},
        {"#?RADIANCE\n\n-Y 1 +X\n", ZE_ERR_PARSE, "malformed"},
        {"#?RADIANCE\n\n-Y 0 +X 1\n", ZE_ERR_LIMIT, "dimensions"},
        {"#?RADIANCE\n\n-Y 1 +X 99999\n", ZE_ERR_LIMIT, "dimensions"},
        {"#?RADIANCE\n\n-Y 1 +X 1234567890\n", ZE_ERR_PARSE, "malformed"},
        {"#?RADIANCE\n\n-Y 2 +X 2\nabcdefgh", ZE_ERR_PARSE, "truncated"},
        {"#?RADIANCE\nno end of header", ZE_ERR_PARSE, "header"},
    };
    for (size_t k = 0; k < ZE_COUNTOF(cases); k++) {
        ze_result r = ze__asset_hdr_decode(cases[k].text, strlen(cases[k].text), NULL, &img, &err);
        if (r != cases[k].want || !strstr(err.message, cases[k].msg))
            fail_msg("case %zu: %d '%s'", k, r, err.message);
    }
    /* the byte cap */
    n = hdr_header((char *)buf, sizeof buf, "-Y 100 +X 100");
    ze_image_desc_t d = {.max_bytes = 1000};
    assert_int_equal(ze__asset_hdr_decode(buf, n, &d, &img, &err), ZE_ERR_LIMIT);
}

static void test_zenvmap_cook_and_reject(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = hdr_header((char *)buf, sizeof buf, "-Y 2 +X 4");
    for (int i = 0; i < 8; i++) {
        buf[n + (size_t)i * 4 + 0] = (uint8_t)(16 * i + 1);
        buf[n + (size_t)i * 4 + 1] = 128;
        buf[n + (size_t)i * 4 + 2] = 64;
        buf[n + (size_t)i * 4 + 3] = (uint8_t)(128 + i);
    }
    n += 32;
    uint8_t *bytes, *again;
    size_t size, size2;
    ze__asset_error_t err;
    ze_uuid_t id = ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, "env", 3);
    assert_int_equal(ze__asset_zenvmap_cook(buf, n, id, NULL, &bytes, &size, &err), ZE_OK);
    assert_int_equal(ze__asset_zenvmap_cook(buf, n, id, NULL, &again, &size2, &err), ZE_OK);
    assert_int_equal(size, size2);
    assert_memory_equal(bytes, again, size);
    ze_free(A(), again, size2);
    ze_tex_view_t v;
    assert_int_equal(ze__asset_zenvmap_read(bytes, size, &v, &err), ZE_OK);
    assert_int_equal(v.format, ZE_TEX_FORMAT_RGBA16F);
    assert_int_equal(v.mip_count, 3);
    assert_int_equal(v.mips[0].size, 4 * 2 * 8);
    uint16_t h;
    memcpy(&h, v.mips[0].data + 2, 2); /* texel 0, green: 128 * 2^-8 */
    assert_true(ze_asset_f16_to_f32(h) == 0.5f);
    memcpy(&h, v.mips[0].data + 6, 2); /* alpha 1 */
    assert_int_equal(h, 0x3c00);
    uint8_t *copy = ze_alloc(A(), size, 16);
    for (size_t k = 0; k < size; k++)
        assert_int_not_equal(ze__asset_zenvmap_read(bytes, k, &v, &err), ZE_OK);
    for (size_t k = 0; k < size; k++) {
        memcpy(copy, bytes, size);
        copy[k] ^= 0x10;
        assert_int_not_equal(ze__asset_zenvmap_read(copy, size, &v, &err), ZE_OK);
    }
    memcpy(copy, bytes, size);
    copy[8] = 7;
    fix_checksum(copy, size);
    assert_int_equal(ze__asset_zenvmap_read(copy, size, &v, &err), ZE_ERR_UNSUPPORTED);
    /* a negative texel, checksum right */
    memcpy(copy, bytes, size);
    copy[v.mips[0].data - bytes + 1] |= 0x80;
    fix_checksum(copy, size);
    assert_int_equal(ze__asset_zenvmap_read(copy, size, &v, &err), ZE_ERR_PARSE);
    assert_non_null(strstr(err.message, "negative"));
    assert_int_equal(ze__asset_zetex_read(bytes, size, &v, &err), ZE_ERR_PARSE);
    ze_free(A(), copy, size);
    ze_free(A(), bytes, size);
}

/* --------------------------------------------------------------- corpus */

static json_t *g_manifest;
static char g_tmp[64];

static int setup(void **state)
{
    (void)state;
    g_manifest = json_load_file(ASSETS "/manifest.json", 0, NULL);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/ze_tex_XXXXXX");
    return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(g_manifest);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = ze_alloc(A(), (size_t)n + 1, 16);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* Cook into two folders; the same artifacts with the same bytes. */
static void cook_twice(const char *src, const char *tag, ze_cook_result_t *r)
{
    char o1[256], o2[256];
    snprintf(o1, sizeof o1, "%s/%s-1", g_tmp, tag);
    snprintf(o2, sizeof o2, "%s/%s-2", g_tmp, tag);
    ze_diag_capture_t diag = {0};
    ze_cook_desc_t d1 = {.source = src, .out_dir = o1, .diag = ze_diag_capture_sink(&diag)},
                   d2 = {.source = src, .out_dir = o2};
    ze_cook_result_t r2;
    if (ze_asset_cook(&d1, r) != ZE_OK)
        fail_msg("%s: %s", src, diag.last);
    assert_int_equal(ze_asset_cook(&d2, &r2), ZE_OK);
    assert_int_equal(r->artifact_count, r2.artifact_count);
    for (uint32_t i = 0; i < r->artifact_count; i++) {
        char p1[600], p2[600];
        snprintf(p1, sizeof p1, "%s/%s", o1, r->artifacts[i]);
        snprintf(p2, sizeof p2, "%s/%s", o2, r2.artifacts[i]);
        size_t n1, n2;
        uint8_t *a = read_all(p1, &n1), *b = read_all(p2, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        const char *name = r->artifacts[i];
        size_t len = strlen(name);
        ze_tex_view_t tv;
        ze_zemesh_view_t mv;
        ze_zematerial_t mat;
        ze__asset_error_t err;
        ze_result rr = ZE_OK;
        if (len > 6 && strcmp(name + len - 6, ".zetex") == 0)
            rr = ze__asset_zetex_read(a, n1, &tv, &err);
        else if (len > 8 && strcmp(name + len - 8, ".zenvmap") == 0)
            rr = ze__asset_zenvmap_read(a, n1, &tv, &err);
        else if (len > 7 && strcmp(name + len - 7, ".zemesh") == 0) {
            rr = ze__asset_zemesh_read(a, n1, &mv, &err);
            /* meshoptimizer's fetch order: vertices numbered by first use */
            uint32_t next = 0;
            for (uint32_t k = 0; rr == ZE_OK && k < mv.index_count; k++) {
                assert_true(mv.indices[k] <= next);
                if (mv.indices[k] == next)
                    next++;
            }
            if (rr == ZE_OK)
                assert_int_equal(next, mv.vertex_count);
        } else if (r->sub_asset_types[i] == ZE_ASSET_TYPE_SCENE)
            rr = ZE_OK; /* scene files: test_cook_scene */
        else
            rr = ze__asset_zematerial_read(a, n1, &mat, &err);
        if (rr != ZE_OK)
            fail_msg("%s: %s", p1, err.message);
        ze_free(A(), a, n1 + 1);
        ze_free(A(), b, n2 + 1);
    }
    ze_asset_cook_result_release(&r2);
}

static void artifact_view(const char *tag, const char *name, bool envmap, ze_tex_view_t *v,
                          uint8_t **bytes, size_t *size)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s-1/%s", g_tmp, tag, name);
    *bytes = read_all(p, size);
    ze__asset_error_t err;
    ze_result r = envmap ? ze__asset_zenvmap_read(*bytes, *size, v, &err)
                         : ze__asset_zetex_read(*bytes, *size, v, &err);
    assert_int_equal(r, ZE_OK);
}

static void test_corpus_images_and_hdr(void **state)
{
    (void)state;
    if (!g_manifest) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries"), *e;
    size_t i, seen = 0;
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        const char *rel = json_string_value(json_object_get(e, "path"));
        bool hdr = strcmp(fmt, "radiance_hdr") == 0;
        if (!hdr && strcmp(fmt, "png") != 0 && strcmp(fmt, "jpeg") != 0)
            continue;
        json_t *facts = json_object_get(e, "image_facts");
        char src[512], tag[32];
        snprintf(src, sizeof src, "%s/%s", ASSETS, rel);
        snprintf(tag, sizeof tag, "img%zu", i);
        ze_cook_result_t r;
        cook_twice(src, tag, &r);
        assert_string_equal(r.importer, hdr ? "hdr" : "image");
        assert_int_equal(r.source.textures, 1);
        assert_int_equal(r.source.images, 1);
        assert_int_equal(r.cooked.textures, 1);
        assert_int_equal(r.artifact_count, 1);
        ze_tex_view_t v;
        uint8_t *bytes;
        size_t size;
        artifact_view(tag, r.artifacts[0], hdr, &v, &bytes, &size);
        assert_int_equal(v.width, json_integer_value(json_object_get(facts, "width")));
        assert_int_equal(v.height, json_integer_value(json_object_get(facts, "height")));
        assert_int_equal(v.mip_count, ze_asset_tex_full_mips(v.width, v.height));
        assert_int_equal(v.mips[v.mip_count - 1].width, 1);
        assert_int_equal(v.mips[v.mip_count - 1].height, 1);
        ze_uuid_t want = ze_uuid_v5(r.source_uuid, hdr ? "envmap/0" : "texture/0", hdr ? 8 : 9);
        assert_memory_equal(v.uuid.bytes, want.bytes, 16);
        ze_free(A(), bytes, size + 1);
        ze_asset_cook_result_release(&r);
        seen++;
    }
    assert_int_equal(seen, 4);
}

static void test_corpus_assimp(void **state)
{
    (void)state;
    if (!g_manifest) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries"), *e;
    size_t i, seen = 0;
    json_array_foreach(entries, i, e)
    {
        const char *fmt = json_string_value(json_object_get(e, "format"));
        const char *rel = json_string_value(json_object_get(e, "path"));
        if (strcmp(fmt, "obj") != 0 && strcmp(fmt, "fbx") != 0)
            continue;
        char src[512], tag[32];
        snprintf(src, sizeof src, "%s/%s", ASSETS, rel);
        snprintf(tag, sizeof tag, "model%zu", i);
        ze_cook_result_t r;
        cook_twice(src, tag, &r);
        assert_string_equal(r.importer, "assimp");
        json_t *raw =
            json_object_get(json_object_get(json_object_get(e, "assimp_facts"), "raw"), "meshes");
        assert_int_equal(r.source.meshes, json_integer_value(raw));
        assert_int_equal(r.cooked.meshes, r.source.meshes);
        assert_true(r.cooked.indices > 0 && r.cooked.indices % 3 == 0);
        assert_true(r.source.nodes >= 1 && r.source.scenes == 1);
        json_t *obj = json_object_get(e, "obj_text_facts");
        if (obj) {
            /* every polygon fan-triangulated; one material per usemtl */
            assert_int_equal(r.source.indices, 3 * json_integer_value(json_object_get(
                                                       obj, "triangles_after_fan_triangulation")));
            assert_int_equal(r.source.materials,
                             json_array_size(json_object_get(obj, "usemtl_names")));
        }
        json_t *pp = json_object_get(json_object_get(e, "assimp_facts"), "postprocessed");
        if (strcmp(rel, "fbx/box.fbx") == 0 || strcmp(rel, "obj/box.obj") == 0) {
            /* JoinIdenticalVertices as in assimp's default post-processing */
            assert_int_equal(r.source.vertices,
                             json_integer_value(json_object_get(pp, "vertices")));
            assert_int_equal(r.source.indices,
                             3 * json_integer_value(json_object_get(pp, "faces")));
        }
        if (strcmp(rel, "obj/spider.obj") == 0) {
            /* four materials with a diffuse map each, all cooked */
            assert_int_equal(r.cooked.textures, 4);
            assert_int_equal(r.cooked.materials, 4);
        }
        ze_asset_cook_result_release(&r);
        seen++;
    }
    assert_int_equal(seen, 4);
}

static void test_cook_invalid_image_leaves_nothing(void **state)
{
    (void)state;
    char src[256], out[256];
    snprintf(src, sizeof src, "%s/fake.png", g_tmp);
    snprintf(out, sizeof out, "%s/fake-out", g_tmp);
    FILE *f = fopen(src, "wb");
    assert_non_null(f);
    fputs("not a png", f);
    fclose(f);
    /* The import's failure reaches the desc's sink once: the module, the
       source and the reason; the caller gets the code. */
    ze_diag_capture_t diag = {0};
    ze_cook_desc_t d = {.source = src, .out_dir = out, .diag = ze_diag_capture_sink(&diag)};
    ze_cook_result_t r;
    assert_int_equal(ze_asset_cook(&d, &r), ZE_ERR_PARSE);
    assert_string_equal(r.importer, "image");
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.errors, 1);
    assert_int_equal(diag.last_code, ZE_ERR_PARSE);
    if (strncmp(diag.last, "cook: ", 6) != 0 || !strstr(diag.last, "fake.png: ") ||
        !strstr(diag.last, "signature"))
        fail_msg("sink text: '%s'", diag.last);
    assert_int_equal(r.artifact_count, 0);
    ze_asset_cook_result_release(&r);
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0);
    snprintf(src, sizeof src, "%s/fake.hdr", g_tmp);
    f = fopen(src, "wb");
    assert_non_null(f);
    fputs("#?RADIANCE\n\n-Y 4 +X 4\n", f);
    fclose(f);
    d.source = src;
    assert_int_equal(ze_asset_cook(&d, &r), ZE_ERR_PARSE);
    assert_string_equal(r.importer, "hdr");
    assert_non_null(strstr(diag.last_message, "truncated"));
    ze_asset_cook_result_release(&r);
    assert_int_not_equal(stat(out, &st), 0);
    snprintf(src, sizeof src, "%s/garbage.obj", g_tmp);
    f = fopen(src, "wb");
    assert_non_null(f);
    fputs("f 1 2 3\nv nonsense\n\x01\x02", f);
    fclose(f);
    d.source = src;
    assert_int_not_equal(ze_asset_cook(&d, &r), ZE_OK);
    assert_string_equal(r.importer, "assimp");
    assert_int_equal(diag.count, 3);
    assert_true(diag.last_message[0] != 0);
    ze_asset_cook_result_release(&r);
    assert_int_not_equal(stat(out, &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zetex_from_tga_and_mips),
        cmocka_unit_test(test_zetex_reader_rejects),
        cmocka_unit_test(test_images_rejected),
        cmocka_unit_test(test_half_floats),
        cmocka_unit_test(test_hdr_flat_and_rle),
        cmocka_unit_test(test_zenvmap_cook_and_reject),
        cmocka_unit_test(test_corpus_images_and_hdr),
        cmocka_unit_test(test_corpus_assimp),
        cmocka_unit_test(test_cook_invalid_image_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
