/* The UI overlay pass on the Vulkan backend (lavapipe in CI) with the
 * validation layer on: zero messages allowed. A scene with no geometry
 * (the sky) carries an overlay of known instances; the screenshot PNG (and
 * the LDR image behind it) must show each at its pixels: an opaque
 * rectangle's colour exactly, a border around a fill, a rectangle cut by
 * its clip rectangle, a half-transparent one blended over the sky, rounded
 * corners leaving the sky in the corner, a glyph's coverage from the
 * atlas. A second frame without the atlas's pixels (its revision was
 * uploaded) draws the same; a new revision uploads again; a frame without
 * an overlay shows only the sky. Images: textures sent as assets, drawn
 * through their ze_render_texture_t handles (an sRGB and a UNORM one show
 * the same bytes; a tint halves one; a handle of a texture never sent and
 * an id never handed out show the fallback). ZE_TEST_WRITE_IMAGES=DIR
 * keeps the PNG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfx/vk_internal.h"
#include "png_pixels.h"
#include "zengine/gfx.h"

enum { W = 256, H = 192, AW = 8, AH = 4 };

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_RENDER);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

static ze_render_ui_instance_t rect(float x0, float y0, float x1, float y1, uint32_t color)
{
    return (ze_render_ui_instance_t){
        .rect = {x0, y0, x1, y1}, .clip = {0, 0, W, H}, .color = color, .kind = ZE_RENDER_UI_RECT};
}

/* The overlay's instances (painter's order) and what each must show. */
static void instances(ze_render_ui_instance_t *in, uint32_t *n)
{
    uint32_t k = 0;
    in[k++] = rect(20, 20, 80, 60, 0x20C040FFu); /* opaque green */
    ze_render_ui_instance_t b = rect(100, 20, 160, 60, 0x2040C0FFu);
    b.border_color = 0xFFFF00FFu; /* yellow border, 4 px */
    b.border_width = 4.0f;
    in[k++] = b;
    ze_render_ui_instance_t c = rect(20, 80, 80, 120, 0xFF0000FFu);
    c.clip[2] = 50.0f; /* only x < 50 shows */
    in[k++] = c;
    in[k++] = rect(100, 80, 160, 120, 0xFFFFFF80u); /* white at 50 % */
    ze_render_ui_instance_t r = rect(180, 20, 240, 80, 0xFF8000FFu);
    r.corner_radius = 16.0f;
    in[k++] = r;
    /* a glyph: the atlas's left half (coverage 255) over 20 x 20 pixels */
    in[k++] = (ze_render_ui_instance_t){.rect = {180, 100, 200, 120},
                                        .clip = {0, 0, W, H},
                                        .uv = {0.0f, 0.0f, 0.5f, 1.0f},
                                        .color = 0xFF00FFFFu,
                                        .kind = ZE_RENDER_UI_GLYPH,
                                        .codepoint = 'A'};
    /* the atlas's right half: coverage 0, draws nothing */
    in[k++] = (ze_render_ui_instance_t){.rect = {210, 100, 230, 120},
                                        .clip = {0, 0, W, H},
                                        .uv = {0.5f, 0.0f, 1.0f, 1.0f},
                                        .color = 0xFF00FFFFu,
                                        .kind = ZE_RENDER_UI_GLYPH,
                                        .codepoint = 'B'};
    *n = k;
}

static uint8_t g_atlas[AW * AH];

static ze_render_state_t scene_of(uint64_t frame, const ze_render_overlay_t *ov)
{
    return (ze_render_state_t){
        .frame = frame,
        .width = W,
        .height = H,
        .sky = {.clear_color = {0.1f, 0.15f, 0.25f}, .exposure = 1.0f},
        .overlay = ov,
    };
}

static void expect(const uint8_t *px, uint32_t x, uint32_t y, const uint8_t want[3], int tol,
                   const char *what)
{
    const uint8_t *got = &px[((size_t)y * W + x) * 4];
    bool ok = true;
    for (int ch = 0; ch < 3; ch++)
        ok = ok && abs((int)got[ch] - (int)want[ch]) <= tol;
    if (!ok)
        print_error("%s at %u,%u: got %u %u %u, expected %u %u %u (within %d)\n", what, x, y,
                    got[0], got[1], got[2], want[0], want[1], want[2], tol);
    assert_true(ok);
}

/* Every instance where it belongs, over the sky at (250, 180). */
static void check_overlay(const uint8_t *px)
{
    const uint8_t *sky = &px[((size_t)180 * W + 250) * 4];
    uint8_t s[3] = {sky[0], sky[1], sky[2]};
    static const uint8_t green[3] = {0x20, 0xC0, 0x40}, blue[3] = {0x20, 0x40, 0xC0},
                         yellow[3] = {0xFF, 0xFF, 0x00}, red[3] = {0xFF, 0, 0},
                         orange[3] = {0xFF, 0x80, 0x00}, magenta[3] = {0xFF, 0x00, 0xFF};
    expect(px, 50, 40, green, 0, "opaque rectangle");
    expect(px, 20, 20, green, 0, "its first pixel");
    expect(px, 79, 59, green, 0, "its last pixel");
    expect(px, 80, 40, s, 0, "right of it (x1 is exclusive)");
    expect(px, 50, 60, s, 0, "below it");
    expect(px, 130, 40, blue, 0, "bordered fill");
    expect(px, 101, 40, yellow, 0, "its border");
    expect(px, 130, 58, yellow, 0, "its bottom border");
    expect(px, 30, 100, red, 0, "clipped rectangle, inside the clip");
    expect(px, 60, 100, s, 0, "clipped rectangle, outside the clip");
    uint8_t half[3];
    for (int ch = 0; ch < 3; ch++) /* premultiplied: 255 * a + sky * (1 - a) */
        half[ch] = (uint8_t)((255.0 * 128.0 + s[ch] * 127.0) / 255.0 + 0.5);
    expect(px, 130, 100, half, 1, "half-transparent rectangle");
    expect(px, 210, 50, orange, 0, "rounded rectangle");
    expect(px, 180, 20, s, 0, "its rounded-off corner");
    expect(px, 190, 110, magenta, 0, "glyph, full coverage");
    expect(px, 220, 110, s, 0, "glyph, no coverage");
}

static void test_overlay_in_screenshot(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    assert_true(ze_render_backend_stats(b).validation_enabled);
    for (uint32_t y = 0; y < AH; y++)
        for (uint32_t x = 0; x < AW; x++)
            g_atlas[y * AW + x] = x < AW / 2 ? 255 : 0;
    ze_render_ui_instance_t in[16];
    uint32_t n = 0;
    instances(in, &n);
    ze_render_overlay_t ov = {.frame = 1,
                              .width = W,
                              .height = H,
                              .instance_count = n,
                              .instances = in,
                              .atlas_revision = 7,
                              .atlas_width = AW,
                              .atlas_height = AH,
                              .atlas_pixels = g_atlas};
    ze_render_state_t s = scene_of(1, &ov);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);

    /* the screenshot PNG */
    char path[512];
    const char *dir = getenv("ZE_TEST_WRITE_IMAGES");
    snprintf(path, sizeof path, "%s/ze_vk_ui_%d.png", dir ? dir : "/tmp", (int)getpid());
    assert_int_equal(ze_render_backend_screenshot(b, path), ZE_OK);
    png_pixels_t png;
    assert_true(png_pixels_load(path, &png));
    assert_int_equal(png.width, W);
    assert_int_equal(png.height, H);
    check_overlay(png.rgba);
    png_pixels_release(&png);
    if (!dir)
        remove(path);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.ui_instances, n);
    assert_int_equal(st.ui_atlas_uploads, 1);

    uint8_t *px = ze_alloc(f->alloc, (size_t)W * H * 4, 16);
    assert_non_null(px);
    /* the same revision again, without its pixels: drawn from what was
       uploaded; then a frame of each slot more, the atlas unchanged */
    ov.atlas_pixels = NULL;
    for (uint64_t fr = 2; fr <= 3; fr++) {
        s = scene_of(fr, &ov);
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
        check_overlay(px);
    }
    assert_int_equal(ze_render_backend_stats(b).ui_atlas_uploads, 1);

    /* a new revision of another size: uploaded (a new image) */
    static uint8_t big[AW * 2 * AH];
    for (uint32_t y = 0; y < AH; y++)
        for (uint32_t x = 0; x < AW * 2; x++)
            big[y * AW * 2 + x] = x < AW ? 255 : 0;
    ov.atlas_revision = 8;
    ov.atlas_width = AW * 2;
    ov.atlas_pixels = big;
    s = scene_of(4, &ov);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
    check_overlay(px);
    assert_int_equal(ze_render_backend_stats(b).ui_atlas_uploads, 2);

    /* no overlay: the sky everywhere */
    s = scene_of(5, NULL);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
    const uint8_t *sky = &px[((size_t)180 * W + 250) * 4];
    uint8_t skyc[3] = {sky[0], sky[1], sky[2]};
    expect(px, 50, 40, skyc, 0, "no overlay");
    st = ze_render_backend_stats(b);
    assert_int_equal(st.ui_instances, 0);
    assert_int_equal(st.validation_messages, 0);
    /* the overlay's pass is timed like the others */
    bool timed = false;
    for (uint32_t i = 0; i < st.gpu_pass_count; i++)
        timed = timed || strcmp(st.gpu_passes[i].name, "ui") == 0;
    assert_true(timed);
    ze_free(f->alloc, px, (size_t)W * H * 4);
    ze_render_backend_destroy(b);
}

/* An overlay whose counts promise arrays it lacks is refused before the
 * backend sees it. */
static void test_bad_overlay_refused(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = NULL;
    assert_int_equal(
        ze_render_backend_create("null", &(ze_render_backend_desc_t){.mem = f->mm}, &b), ZE_OK);
    ze_render_overlay_t ov = {.width = W, .height = H, .instance_count = 3};
    ze_render_state_t s = scene_of(1, &ov);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_INVALID_ARG);
    ov.instance_count = 0;
    ov.atlas_pixels = g_atlas; /* pixels without a size */
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_INVALID_ARG);
    ov.atlas_width = AW;
    ov.atlas_height = AH;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.frames, 1);
    assert_int_equal(st.ui_atlas_uploads, 1);
    ze_render_backend_destroy(b);
}

/* A 4x4 texture whose left half is `left` and right half `right`. */
static ze_asset_data_t texture_asset(uint32_t n, ze_tex_format format, const uint8_t left[4],
                                     const uint8_t right[4], uint8_t texels[4 * 4 * 4])
{
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 4; x++)
            memcpy(texels + (y * 4 + x) * 4, x < 2 ? left : right, 4);
    ze_asset_data_t a = {.type = ZE_ASSET_TYPE_TEXTURE, .generation = 1};
    a.uuid.bytes[15] = (uint8_t)n;
    a.uuid.bytes[0] = 0x7e;
    a.as.texture = (ze_tex_view_t){.uuid = a.uuid,
                                   .format = format,
                                   .width = 4,
                                   .height = 4,
                                   .mip_count = 1,
                                   .mips = {{4, 4, texels, 4 * 4 * 4}}};
    return a;
}

static ze_render_ui_instance_t image(float x0, float y0, float x1, float y1, ze_render_texture_t t,
                                     uint32_t tint)
{
    return (ze_render_ui_instance_t){.rect = {x0, y0, x1, y1},
                                     .clip = {0, 0, W, H},
                                     .uv = {0, 0, 1, 1},
                                     .color = tint,
                                     .kind = ZE_RENDER_UI_IMAGE,
                                     .texture = t.id};
}

static void test_images_from_texture_handles(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    static const uint8_t warm[4] = {200, 100, 50, 255}, cool[4] = {30, 90, 210, 255};
    static uint8_t tx_srgb[64], tx_unorm[64];
    ze_asset_data_t srgb = texture_asset(1, ZE_TEX_FORMAT_RGBA8_SRGB, warm, cool, tx_srgb);
    ze_asset_data_t unorm = texture_asset(2, ZE_TEX_FORMAT_RGBA8_UNORM, warm, cool, tx_unorm);
    assert_int_equal(ze_render_backend_asset_ready(b, &srgb), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &unorm), ZE_OK);
    ze_render_texture_t ts = ze_render_backend_ui_texture(b, srgb.uuid);
    ze_render_texture_t tu = ze_render_backend_ui_texture(b, unorm.uuid);
    ze_uuid_t never = srgb.uuid;
    never.bytes[15] = 99;
    ze_render_texture_t tn = ze_render_backend_ui_texture(b, never);
    assert_true(ts.id && tu.id && tn.id && ts.id != tu.id && tu.id != tn.id);
    assert_int_equal(ze_render_backend_ui_texture(b, srgb.uuid).id, ts.id); /* the same handle */
    assert_int_equal(ze_render_backend_ui_texture(b, (ze_uuid_t){0}).id, 0);

    ze_render_ui_instance_t in[5] = {
        image(16, 16, 80, 80, ts, 0xFFFFFFFFu),
        image(96, 16, 160, 80, tu, 0xFFFFFFFFu),
        image(176, 16, 240, 80, ts, 0xFFFFFF80u), /* alpha 1/2 */
        image(16, 96, 80, 160, tn, 0xFFFFFFFFu),
        image(96, 96, 160, 160, (ze_render_texture_t){4242}, 0xFFFFFFFFu),
    };
    ze_render_overlay_t ov = {.frame = 1,
                              .width = W,
                              .height = H,
                              .instance_count = 5,
                              .instances = in,
                              .atlas_revision = 1,
                              .atlas_width = AW,
                              .atlas_height = AH,
                              .atlas_pixels = g_atlas};
    uint8_t *px = ze_alloc(f->alloc, (size_t)W * H * 4, 16);
    assert_non_null(px);
    for (uint64_t fr = 1; fr <= 2; fr++) { /* resident from the first frame on */
        ze_render_state_t s = scene_of(fr, &ov);
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
        const uint8_t *sky = &px[((size_t)180 * W + 250) * 4];
        uint8_t sk[3] = {sky[0], sky[1], sky[2]};
        static const uint8_t pink[3] = {255, 0, 255};
        expect(px, 30, 48, warm, 1, "sRGB texture, left half");
        expect(px, 66, 48, cool, 1, "sRGB texture, right half");
        expect(px, 110, 48, warm, 0, "UNORM texture, left half");
        expect(px, 146, 48, cool, 0, "UNORM texture, right half");
        expect(px, 8, 48, sk, 0, "left of the image");
        uint8_t half[3];
        for (int ch = 0; ch < 3; ch++)
            half[ch] = (uint8_t)((warm[ch] * 128.0 + sk[ch] * 127.0) / 255.0 + 0.5);
        expect(px, 190, 48, half, 2, "tinted to half alpha");
        expect(px, 48, 128, pink, 0, "a texture never sent: the fallback");
        expect(px, 128, 128, pink, 0, "an id never handed out: the fallback");
    }
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.validation_messages, 0);
    assert_int_equal(st.ui_instances, 5);
    ze_free(f->alloc, px, (size_t)W * H * 4);
    ze_render_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlay_in_screenshot),
        cmocka_unit_test(test_bad_overlay_refused),
        cmocka_unit_test(test_images_from_texture_handles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
