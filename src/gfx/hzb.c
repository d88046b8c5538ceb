/* The depth pyramid's CPU reference (hzb.h says what; pyramid.comp and
 * cull.glsl port it). */
#include "gfx/hzb.h"

#include <float.h>
#include <math.h>

static uint32_t pow2_at_least(uint32_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 31))
        p <<= 1;
    return p;
}

uint32_t ze__hzb_levels(uint32_t w, uint32_t h, uint32_t *width, uint32_t *height)
{
    if (!w || !h)
        return 0;
    w = pow2_at_least((w + 1) / 2);
    h = pow2_at_least((h + 1) / 2);
    uint32_t n = 0;
    for (;;) {
        if (n == ZE_HZB_MAX_LEVELS)
            return 0;
        if (width)
            width[n] = w;
        if (height)
            height[n] = h;
        n++;
        if (w == 1 && h == 1)
            return n;
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
    }
}

void ze__hzb_reduce(const float *src, uint32_t src_w, uint32_t src_h, float *dst, uint32_t dst_w,
                    uint32_t dst_h)
{
    for (uint32_t y = 0; y < dst_h; y++)
        for (uint32_t x = 0; x < dst_w; x++) {
            float d = 0.0f;
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t sx = 2 * x + (k & 1), sy = 2 * y + (k >> 1);
                if (sx < src_w && sy < src_h)
                    d = fmaxf(d, src[sy * src_w + sx]);
            }
            dst[y * dst_w + x] = d;
        }
}

bool ze__hzb_occluded(const ze_hzb_t *z, const float vp[16], const float c[3], float r)
{
    if (!z || !z->levels || !(r >= 0.0f))
        return false;
    float umin = FLT_MAX, umax = -FLT_MAX, vmin = FLT_MAX, vmax = -FLT_MAX, near = FLT_MAX;
    for (int i = 0; i < 8; i++) {
        float px = c[0] + ((i & 1) ? r : -r);
        float py = c[1] + ((i & 2) ? r : -r);
        float pz = c[2] + ((i & 4) ? r : -r);
        float cx = vp[0] * px + vp[4] * py + vp[8] * pz + vp[12];
        float cy = vp[1] * px + vp[5] * py + vp[9] * pz + vp[13];
        float cz = vp[2] * px + vp[6] * py + vp[10] * pz + vp[14];
        float cw = vp[3] * px + vp[7] * py + vp[11] * pz + vp[15];
        if (!(cw > 1e-5f))
            return false; /* behind or at the camera: no rectangle to speak of */
        float x = cx / cw, y = cy / cw, d = cz / cw;
        umin = fminf(umin, x);
        umax = fmaxf(umax, x);
        vmin = fminf(vmin, y);
        vmax = fmaxf(vmax, y);
        near = fminf(near, d);
    }
    if (!(near > 0.0f))
        return false; /* reaches the near plane */
    const float w = (float)z->depth_width, h = (float)z->depth_height;
    float fx0 = (umin * 0.5f + 0.5f) * w, fx1 = (umax * 0.5f + 0.5f) * w;
    float fy0 = (vmin * 0.5f + 0.5f) * h, fy1 = (vmax * 0.5f + 0.5f) * h;
    if (!(fx1 >= 0.0f && fy1 >= 0.0f && fx0 < w && fy0 < h))
        return false; /* off screen (or not a number): the frustum's business */
    int32_t x0 = fx0 > 0.0f ? (int32_t)fx0 : 0, y0 = fy0 > 0.0f ? (int32_t)fy0 : 0;
    int32_t x1 = fx1 < w - 1.0f ? (int32_t)fx1 : (int32_t)z->depth_width - 1;
    int32_t y1 = fy1 < h - 1.0f ? (int32_t)fy1 : (int32_t)z->depth_height - 1;
    /* the finest level where the rectangle spans at most 2x2 texels */
    uint32_t level = 0;
    while (level + 1 < z->levels && ((x1 >> (level + 1)) - (x0 >> (level + 1)) > 1 ||
                                     (y1 >> (level + 1)) - (y0 >> (level + 1)) > 1))
        level++;
    const uint32_t s = level + 1, lw = z->width[level];
    const float *t = z->texels[level];
    uint32_t tx0 = (uint32_t)x0 >> s, tx1 = (uint32_t)x1 >> s;
    uint32_t ty0 = (uint32_t)y0 >> s, ty1 = (uint32_t)y1 >> s;
    float far = fmaxf(fmaxf(t[ty0 * lw + tx0], t[ty0 * lw + tx1]),
                      fmaxf(t[ty1 * lw + tx0], t[ty1 * lw + tx1]));
    return near > far;
}
