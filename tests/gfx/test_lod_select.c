/* ze_render_lod_select, the CPU reference of the cull pass's level choice:
 * levels switch exactly where their projected error crosses the threshold
 * (just below it: that level; just above: the one before), inside the
 * bounding sphere gives level 0, one level always 0, and the choice
 * against a brute-force reference over random inputs. GPU-free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>

#include "zengine/gfx.h"

static const float g_err[4] = {0.0f, 0.01f, 0.04f, 0.16f};

/* The distance (from the sphere's centre) at which level i's projected
 * error equals thr, for scale 1, radius r, proj p. */
static float crossing(uint32_t i, float r, float p, float thr)
{
    return g_err[i] * p / thr + r;
}

static void test_lod_select_boundaries(void **state)
{
    (void)state;
    const float r = 1.0f, p = 540.0f, thr = 1.0f;
    for (uint32_t i = 1; i < 4; i++) {
        float d = crossing(i, r, p, thr);
        /* a little farther: level i passes; a little nearer: it does not */
        assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, d * 1.001f, r, p, thr), i);
        assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, d * 0.999f, r, p, thr), i - 1);
    }
    /* far away: the coarsest; near: the finest */
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 1e6f, r, p, thr), 3);
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 2.0f, r, p, thr), 0);
    /* a world scale of 2 doubles the error: the crossing moves out */
    float d2 = crossing(2, r, p, thr);
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, d2 * 1.5f, r, p, thr), 2);
    assert_int_equal(ze_render_lod_select(g_err, 4, 2.0f, d2 * 1.5f, r, p, thr), 1);
    /* a larger threshold accepts coarser levels at the same distance */
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, d2 * 1.5f, r, p, 4.0f), 3);
}

static void test_lod_select_inside_and_one_level(void **state)
{
    (void)state;
    /* inside the sphere, on it, or just outside with a huge threshold */
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 0.5f, 1.0f, 540.0f, 1e9f), 0);
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 1.0f, 1.0f, 540.0f, 1e9f), 0);
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 0.0f, 1.0f, 540.0f, 1e9f), 0);
    /* within 1e-4 of the surface the distance is clamped, not divided by 0 */
    assert_int_equal(ze_render_lod_select(g_err, 4, 1.0f, 1.00001f, 1.0f, 540.0f, 1e9f), 3);
    /* one level, or none */
    assert_int_equal(ze_render_lod_select(g_err, 1, 1.0f, 1e6f, 1.0f, 540.0f, 1.0f), 0);
    assert_int_equal(ze_render_lod_select(g_err, 0, 1.0f, 1e6f, 1.0f, 540.0f, 1.0f), 0);
    /* equal errors: the last of them (the cheapest) wins */
    const float flat[3] = {0.0f, 0.0f, 0.0f};
    assert_int_equal(ze_render_lod_select(flat, 3, 1.0f, 5.0f, 1.0f, 540.0f, 0.5f), 2);
}

/* Brute force: the highest i whose projected error is within the
 * threshold, evaluated level by level in double precision. */
static uint32_t reference(const float *e, uint32_t n, float s, float d, float r, float p, float t)
{
    if (d <= r)
        return 0;
    double near = d - r > 1e-4 ? d - r : 1e-4, best = 0;
    for (uint32_t i = 0; i < n; i++)
        if ((double)e[i] * s * p / near <= t)
            best = i;
    return (uint32_t)best;
}

static void test_lod_select_random(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint32_t mismatch = 0, near_tie = 0;
    for (int it = 0; it < 100000; it++) {
        float e[8] = {0};
        uint32_t n = 1;
        float u[6];
        for (int k = 0; k < 6; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            u[k] = (float)(x >> 40) / (float)(1u << 24);
        }
        n = 1 + (uint32_t)(u[0] * 8.0f) % 8;
        for (uint32_t i = 1; i < n; i++)
            e[i] = e[i - 1] + 0.02f * u[(i % 5) + 1];
        float s = 0.5f + 2.0f * u[1], r = 0.1f + 3.0f * u[2], d = 200.0f * u[3];
        float p = 540.0f, t = 0.5f + 2.0f * u[4];
        uint32_t got = ze_render_lod_select(e, n, s, d, r, p, t);
        uint32_t want = reference(e, n, s, d, r, p, t);
        if (got != want) {
            /* float against double may differ only at a tie */
            double near = d - r > 1e-4 ? d - r : 1e-4;
            uint32_t k = got > want ? got : want;
            double proj = (double)e[k] * s * p / near;
            if (fabs(proj - t) > 1e-4 * t)
                mismatch++;
            else
                near_tie++;
        }
    }
    assert_int_equal(mismatch, 0);
    assert_true(near_tie < 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lod_select_boundaries),
        cmocka_unit_test(test_lod_select_inside_and_one_level),
        cmocka_unit_test(test_lod_select_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
