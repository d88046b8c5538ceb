/* The depth pyramid's rules (src/gfx/hzb.c, the CPU reference of
 * pyramid.comp and the cull shaders' occlusion test), without a GPU:
 *   - the levels are an image's mip chain (Vulkan's sizes) down to 1x1;
 *   - a texel is the farthest of the texels under it, 0 beyond the image;
 *   - the test is conservative: over random depth images and spheres,
 *     whatever it calls occluded has every depth pixel under its screen
 *     rectangle nearer than the sphere's box (brute force), and it calls
 *     enough occluded that the check means something;
 *   - spheres at or behind the camera, across the near plane, off screen
 *     or not numbers are never occluded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/hzb.h"
#include "zengine/base.h"

enum { W = 97, H = 61 }; /* odd sizes: the padding to powers of two matters */

typedef struct pyramid_t {
    ze_hzb_t z;
    float texels[2 * 64 * 32 + 64];
} pyramid_t;

static void build(const float *depth, uint32_t w, uint32_t h, pyramid_t *p)
{
    ze_hzb_t *z = &p->z;
    memset(z, 0, sizeof *z);
    z->depth_width = w;
    z->depth_height = h;
    z->levels = ze__hzb_levels(w, h, z->width, z->height);
    assert_true(z->levels > 0);
    float *at = p->texels;
    const float *src = depth;
    uint32_t sw = w, sh = h;
    for (uint32_t i = 0; i < z->levels; i++) {
        assert_true(at + (size_t)z->width[i] * z->height[i] <= p->texels + ZE_COUNTOF(p->texels));
        ze__hzb_reduce(src, sw, sh, at, z->width[i], z->height[i]);
        z->texels[i] = at;
        src = at;
        sw = z->width[i];
        sh = z->height[i];
        at += (size_t)sw * sh;
    }
}

static void test_levels_are_a_mip_chain(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},      {2, 1},       {3, 5},   {97, 61},
                                        {1280, 720}, {1920, 1080}, {4096, 7}};
    for (size_t k = 0; k < ZE_COUNTOF(sizes); k++) {
        uint32_t w = sizes[k][0], h = sizes[k][1], lw[ZE_HZB_MAX_LEVELS], lh[ZE_HZB_MAX_LEVELS];
        uint32_t n = ze__hzb_levels(w, h, lw, lh);
        assert_true(n >= 1);
        /* level 0 covers the depth at 2 pixels a texel, as powers of two */
        assert_true(lw[0] * 2 >= w && lh[0] * 2 >= h);
        assert_true((lw[0] & (lw[0] - 1)) == 0 && (lh[0] & (lh[0] - 1)) == 0);
        assert_true(lw[0] < w || w == 1); /* the smallest such power */
        /* Vulkan: floor(log2(max)) + 1 levels, each max(1, the last / 2) */
        uint32_t m = lw[0] > lh[0] ? lw[0] : lh[0], want = 1;
        while (m >>= 1)
            want++;
        assert_int_equal(n, want);
        for (uint32_t i = 1; i < n; i++) {
            assert_int_equal(lw[i], lw[i - 1] > 1 ? lw[i - 1] / 2 : 1);
            assert_int_equal(lh[i], lh[i - 1] > 1 ? lh[i - 1] / 2 : 1);
        }
        assert_true(lw[n - 1] == 1 && lh[n - 1] == 1);
    }
    assert_int_equal(ze__hzb_levels(0, 5, NULL, NULL), 0);
    assert_int_equal(ze__hzb_levels(1u << 20, 4, NULL, NULL), 0); /* past the level limit */
}

static void test_reduce_keeps_the_farthest(void **state)
{
    (void)state;
    /* 3x3: the last column and row have no partners; beyond them, 0 */
    const float src[9] = {0.1f, 0.5f, 0.2f, 0.3f, 0.4f, 0.9f, 0.7f, 0.6f, 0.8f};
    float dst[4];
    ze__hzb_reduce(src, 3, 3, dst, 2, 2);
    assert_true(dst[0] == 0.5f);
    assert_true(dst[1] == 0.9f);
    assert_true(dst[2] == 0.7f);
    assert_true(dst[3] == 0.8f);
    float wide[4];
    ze__hzb_reduce(src, 3, 3, wide, 4, 1); /* a texel with nothing under it */
    assert_true(wide[2] == 0.0f && wide[3] == 0.0f);
}

/* A simple perspective camera at the origin looking down -z (column-major,
   Vulkan clip: depth 0 at near, 1 at far). */
static void camera(float vp[16])
{
    const float n = 0.5f, f = 100.0f, t = 1.0f / tanf(0.45f), a = (float)W / (float)H;
    memset(vp, 0, sizeof(float) * 16);
    vp[0] = t / a;
    vp[5] = t;
    vp[10] = f / (n - f);
    vp[11] = -1.0f;
    vp[14] = n * f / (n - f);
}

/* The rectangle and nearest depth the test computes, by brute force over
   the box's corners (none behind the camera). */
static bool rect_of(const float vp[16], const float c[3], float r, int *x0, int *x1, int *y0,
                    int *y1, float *near)
{
    float umin = FLT_MAX, umax = -FLT_MAX, vmin = FLT_MAX, vmax = -FLT_MAX;
    *near = FLT_MAX;
    for (int i = 0; i < 8; i++) {
        float p[3] = {c[0] + ((i & 1) ? r : -r), c[1] + ((i & 2) ? r : -r),
                      c[2] + ((i & 4) ? r : -r)};
        float q[4];
        for (int k = 0; k < 4; k++)
            q[k] = vp[k] * p[0] + vp[4 + k] * p[1] + vp[8 + k] * p[2] + vp[12 + k];
        if (q[3] <= 1e-5f)
            return false;
        umin = fminf(umin, q[0] / q[3]);
        umax = fmaxf(umax, q[0] / q[3]);
        vmin = fminf(vmin, q[1] / q[3]);
        vmax = fmaxf(vmax, q[1] / q[3]);
        *near = fminf(*near, q[2] / q[3]);
    }
    *x0 = (int)floorf((umin * 0.5f + 0.5f) * W);
    *x1 = (int)floorf((umax * 0.5f + 0.5f) * W);
    *y0 = (int)floorf((vmin * 0.5f + 0.5f) * H);
    *y1 = (int)floorf((vmax * 0.5f + 0.5f) * H);
    *x0 = *x0 < 0 ? 0 : *x0;
    *y0 = *y0 < 0 ? 0 : *y0;
    *x1 = *x1 > W - 1 ? W - 1 : *x1;
    *y1 = *y1 > H - 1 ? H - 1 : *y1;
    return *x0 <= *x1 && *y0 <= *y1;
}

static float frand(ze_rng_t *rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)ze_rng_below(rng, 1u << 20) / (float)(1u << 20);
}

static void test_conservative_over_random_scenes(void **state)
{
    (void)state;
    static float depth[W * H];
    static pyramid_t p;
    float vp[16];
    camera(vp);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x4B2);
    uint32_t occluded = 0, tested = 0;
    for (int scene = 0; scene < 40; scene++) {
        /* background, then walls: random rectangles at random depths */
        for (int i = 0; i < W * H; i++)
            depth[i] = 1.0f;
        for (int k = 0; k < 6; k++) {
            int x0 = (int)ze_rng_below(&rng, W), y0 = (int)ze_rng_below(&rng, H);
            int x1 = x0 + (int)ze_rng_below(&rng, W), y1 = y0 + (int)ze_rng_below(&rng, H);
            float d = frand(&rng, 0.5f, 0.99f);
            for (int y = y0; y <= y1 && y < H; y++)
                for (int x = x0; x <= x1 && x < W; x++)
                    depth[y * W + x] = fminf(depth[y * W + x], d);
        }
        build(depth, W, H, &p);
        for (int k = 0; k < 500; k++) {
            float c[3] = {frand(&rng, -8, 8), frand(&rng, -5, 5), frand(&rng, -60, -2)};
            float r = frand(&rng, 0.05f, 2.0f);
            bool occ = ze__hzb_occluded(&p.z, vp, c, r);
            int x0, x1, y0, y1;
            float near;
            if (!rect_of(vp, c, r, &x0, &x1, &y0, &y1, &near)) {
                assert_false(occ); /* not on screen, or at the camera */
                continue;
            }
            tested++;
            if (!occ)
                continue;
            occluded++;
            assert_true(near > 0.0f);
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++)
                    assert_true(depth[y * W + x] < near);
        }
    }
    print_message("%u of %u spheres on screen occluded\n", occluded, tested);
    assert_true(tested > 10000);
    assert_true(occluded > tested / 20); /* the check is not vacuous */
}

static void test_never_occluded(void **state)
{
    (void)state;
    static float depth[W * H];
    static pyramid_t p;
    for (int i = 0; i < W * H; i++)
        depth[i] = 0.0f; /* everything at the near plane: hides all it can */
    build(depth, W, H, &p);
    float vp[16];
    camera(vp);
    const float ahead[3] = {0, 0, -20}, behind[3] = {0, 0, 20}, at_eye[3] = {0, 0, 0};
    const float aside[3] = {500, 0, -20}, near_plane[3] = {0, 0, -0.6f};
    assert_true(ze__hzb_occluded(&p.z, vp, ahead, 1.0f)); /* the control */
    assert_false(ze__hzb_occluded(&p.z, vp, behind, 1.0f));
    assert_false(ze__hzb_occluded(&p.z, vp, at_eye, 1.0f));
    assert_false(ze__hzb_occluded(&p.z, vp, aside, 1.0f));
    assert_false(ze__hzb_occluded(&p.z, vp, near_plane, 0.2f)); /* reaches the near plane */
    assert_false(ze__hzb_occluded(&p.z, vp, ahead, NAN));
    assert_false(ze__hzb_occluded(&p.z, vp, ahead, -1.0f));
    const float nan_c[3] = {NAN, 0, -20};
    assert_false(ze__hzb_occluded(&p.z, vp, nan_c, 1.0f));
    assert_false(ze__hzb_occluded(NULL, vp, ahead, 1.0f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_are_a_mip_chain),
        cmocka_unit_test(test_reduce_keeps_the_farthest),
        cmocka_unit_test(test_conservative_over_random_scenes),
        cmocka_unit_test(test_never_occluded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
