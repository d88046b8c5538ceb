/* Block-compressed textures on the Vulkan backend (lavapipe in CI), the
 * validation layer on: zero messages allowed. Textures cooked by the
 * cooker as BC1 (sRGB and UNORM), BC3, BC4 and BC5 (8 x 8, four flat 4x4
 * quadrants) are sent as assets and drawn as UI images; the pixels at each
 * quadrant's centre must be what the test's reference decoder
 * (tests/asset/bc_ref.h) makes of the blocks, as a sampler returns them
 * (BC4: r, 0, 0; BC5: r, g, 0; an sRGB format: the stored value, which the
 * sampler decodes to linear and the UI pass re-encodes to sRGB,
 * src/gfx/vk_pass_ui.c). A 37 x 23 BC1 texture with its full mip
 * chain (partial blocks at every level) uploads and becomes resident. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../asset/bc_ref.h"
#include "cook/cook_internal.h"
#include "gfx/vk_internal.h"
#include "zengine/gfx.h"

enum { W = 256, H = 192, AW = 8, AH = 4 };

static uint8_t g_atlas[AW * AH];

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
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

static size_t make_tga(uint8_t *out, uint32_t w, uint32_t h, const uint8_t *rgba)
{
    memset(out, 0, 18);
    out[2] = 2;
    out[12] = (uint8_t)w;
    out[13] = (uint8_t)(w >> 8);
    out[14] = (uint8_t)h;
    out[15] = (uint8_t)(h >> 8);
    out[16] = 32;
    out[17] = 0x28;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        out[18 + i * 4 + 0] = rgba[i * 4 + 2];
        out[18 + i * 4 + 1] = rgba[i * 4 + 1];
        out[18 + i * 4 + 2] = rgba[i * 4 + 0];
        out[18 + i * 4 + 3] = rgba[i * 4 + 3];
    }
    return 18 + (size_t)w * h * 4;
}

typedef struct tex_t {
    uint8_t *bytes;
    size_t size;
    ze_asset_data_t asset;
    int kind;
} tex_t;

static void cook(uint32_t n, const uint8_t *rgba, uint32_t w, uint32_t h, bool linear,
                 ze_tex_compression c, bool mips, int kind, ze_tex_format want, tex_t *t)
{
    uint8_t *tga = ze_mem_sys_alloc(18 + (size_t)w * h * 4);
    size_t sz = make_tga(tga, w, h, rgba);
    ze_asset_data_t a = {.type = ZE_ASSET_TYPE_TEXTURE, .generation = 1};
    a.uuid.bytes[0] = 0xbc;
    a.uuid.bytes[15] = (uint8_t)n;
    ze_image_desc_t d = {
        .format = ZE_IMAGE_FORMAT_TGA, .linear = linear, .compression = c, .no_mips = !mips};
    ze__asset_error_t err;
    assert_int_equal(ze__asset_zetex_cook(tga, sz, a.uuid, &d, &t->bytes, &t->size, &err), ZE_OK);
    ze_mem_sys_free(tga);
    assert_int_equal(ze_asset_zetex_read(t->bytes, t->size, &a.as.texture, NULL), ZE_OK);
    assert_int_equal(a.as.texture.format, want);
    t->asset = a;
    t->kind = kind;
}

static ze_render_ui_instance_t image(float x0, float y0, float x1, float y1, ze_render_texture_t t)
{
    return (ze_render_ui_instance_t){.rect = {x0, y0, x1, y1},
                                     .clip = {0, 0, W, H},
                                     .uv = {0, 0, 1, 1},
                                     .color = 0xFFFFFFFFu,
                                     .kind = ZE_RENDER_UI_IMAGE,
                                     .texture = t.id};
}

static void test_bc_textures_sampled(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);

    /* 8 x 8: four flat quadrants, alpha 255 (BC1) or graded per quadrant */
    static const uint8_t quad[4][4] = {
        {200, 100, 50, 255}, {30, 90, 210, 160}, {250, 240, 20, 255}, {10, 180, 120, 90}};
    uint8_t px[8 * 8 * 4];
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 8; x++)
            memcpy(px + (y * 8 + x) * 4, quad[(y / 4) * 2 + x / 4], 4);
    uint8_t opaque[8 * 8 * 4];
    memcpy(opaque, px, sizeof px);
    for (int i = 0; i < 64; i++)
        opaque[i * 4 + 3] = 255;
    enum { N = 5 };
    tex_t t[N + 1];
    cook(1, opaque, 8, 8, false, ZE_TEX_COMPRESSION_BC1, false, 1, ZE_TEX_FORMAT_BC1_SRGB, &t[0]);
    cook(2, opaque, 8, 8, true, ZE_TEX_COMPRESSION_BC1, false, 1, ZE_TEX_FORMAT_BC1_UNORM, &t[1]);
    cook(3, px, 8, 8, false, ZE_TEX_COMPRESSION_AUTO, false, 3, ZE_TEX_FORMAT_BC3_SRGB, &t[2]);
    cook(4, px, 8, 8, true, ZE_TEX_COMPRESSION_BC4, false, 4, ZE_TEX_FORMAT_BC4_UNORM, &t[3]);
    cook(5, px, 8, 8, true, ZE_TEX_COMPRESSION_BC5, false, 5, ZE_TEX_FORMAT_BC5_UNORM, &t[4]);
    /* partial blocks at every mip level */
    uint8_t *big = ze_mem_sys_alloc(37 * 23 * 4);
    for (int i = 0; i < 37 * 23 * 4; i++)
        big[i] = (uint8_t)(i * 7 + i / 148);
    cook(6, big, 37, 23, false, ZE_TEX_COMPRESSION_BC1, true, 1, ZE_TEX_FORMAT_BC1_SRGB, &t[N]);
    assert_int_equal(t[N].asset.as.texture.mip_count, 6);
    ze_mem_sys_free(big);
    ze_render_ui_instance_t in[N];
    for (int i = 0; i <= N; i++)
        assert_int_equal(ze_render_backend_asset_ready(b, &t[i].asset), ZE_OK);
    for (int i = 0; i < N; i++) {
        ze_render_texture_t h = ze_render_backend_ui_texture(b, t[i].asset.uuid);
        float x0 = 8.0f + 48.0f * (float)i;
        in[i] = image(x0, 16, x0 + 40, 56, h);
    }
    ze_render_overlay_t ov = {.frame = 1,
                              .width = W,
                              .height = H,
                              .instance_count = N,
                              .instances = in,
                              .atlas_revision = 1,
                              .atlas_width = AW,
                              .atlas_height = AH,
                              .atlas_pixels = g_atlas};
    uint8_t *shot = ze_alloc(f->alloc, (size_t)W * H * 4, 16);
    assert_non_null(shot);
    /* The scene's sky behind a BC3 quadrant of alpha < 255 blends: drawn
       over the sky, so only the opaque quadrants are compared there. */
    for (uint64_t fr = 1; fr <= 2; fr++) {
        ze_render_state_t s = {.frame = fr,
                               .width = W,
                               .height = H,
                               .sky = {.clear_color = {0.1f, 0.15f, 0.25f}, .exposure = 1.0f},
                               .overlay = &ov};
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        assert_int_equal(ze__vk_test_pixels(b, shot, (size_t)W * H * 4), ZE_OK);
        for (int i = 0; i < N; i++) {
            const ze_tex_view_t *v = &t[i].asset.as.texture;
            uint8_t dec[8 * 8 * 4];
            bcref_level(t[i].kind, v->mips[0].data, 8, 8, dec);
            for (int q = 0; q < 4; q++) {
                uint32_t tx = (uint32_t)(q % 2) * 4 + 2, ty = (uint32_t)(q / 2) * 4 + 2;
                const uint8_t *want = dec + (ty * 8 + tx) * 4;
                if (want[3] != 255)
                    continue;
                uint32_t sx = 8 + 48 * (uint32_t)i + (uint32_t)(q % 2) * 20 + 10;
                uint32_t sy = 16 + (uint32_t)(q / 2) * 20 + 10;
                const uint8_t *got = shot + ((size_t)sy * W + sx) * 4;
                bool srgb =
                    v->format == ZE_TEX_FORMAT_BC1_SRGB || v->format == ZE_TEX_FORMAT_BC3_SRGB;
                bool ok = true;
                for (int c = 0; c < 3; c++)
                    ok = ok && abs((int)got[c] - (int)want[c]) <=
                                   (srgb ? 4 : 2); /* the round trip through linear */
                if (!ok)
                    print_error("%s quadrant %d at %u,%u: got %u %u %u, decoded %u %u %u\n",
                                ze_tex_format_name(v->format), q, sx, sy, got[0], got[1], got[2],
                                want[0], want[1], want[2]);
                assert_true(ok);
            }
        }
    }
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.validation_messages, 0);
    assert_int_equal(st.textures, N + 1);
    assert_true(ze_render_backend_resident(b, t[N].asset.uuid) != 0);
    ze_free(f->alloc, shot, (size_t)W * H * 4);
    ze_render_backend_destroy(b);
    for (int i = 0; i <= N; i++)
        ze_free(ze_mem_system_allocator(), t[i].bytes, t[i].size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bc_textures_sampled),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
