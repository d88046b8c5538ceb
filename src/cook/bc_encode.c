/* Block compression encoders (BC1, BC3, BC4, BC5) and the decoder the
 * cooker measures them with (PSNR against the source). Part of the
 * cooker; the runtime only reads the blocks and hands them to the GPU.
 *
 * BC1 (and BC3's colour half): per 4x4 block the principal axis of the
 * texels' colours (power iteration on their covariance), endpoints at the
 * extreme projections, then rounds of least squares (the endpoints that
 * minimise the error for the chosen indices, quantised to 5:6:5, kept when
 * the error drops), then single 5:6:5 steps of each endpoint's channels
 * while the error drops. Always the four-colour mode (c0 > c1, or c0 == c1 with
 * every index 0), so BC1 and BC3 decode alike and alpha is 1. The error is
 * measured on the stored bytes (sRGB textures in sRGB space), uniform
 * weights: what the PSNR counts.
 *
 * BC4 (BC3's alpha, BC5's two channels): the eight-value mode with
 * endpoints searched within +-2 of the block's extremes, and the
 * six-value mode (with exact 0 and 255) when the block holds either; the
 * smaller squared error wins.
 *
 * Texels of a partial block past the level's edge repeat the edge texel.
 * Integer and float operations in a fixed order: the same texels give the
 * same bytes. */
#include <math.h>

#include "cook/cook_internal.h"

/* ------------------------------------------------------------ BC4 blocks */

static void bc4_palette(int a0, int a1, int pal[8])
{
    pal[0] = a0;
    pal[1] = a1;
    if (a0 > a1) {
        for (int i = 1; i < 7; i++)
            pal[i + 1] = ((7 - i) * a0 + i * a1 + 3) / 7;
    } else {
        for (int i = 1; i < 5; i++)
            pal[i + 1] = ((5 - i) * a0 + i * a1 + 2) / 5;
        pal[6] = 0;
        pal[7] = 255;
    }
}

/* Squared error of the best indices for endpoints (a0, a1); idx filled. */
static uint32_t bc4_fit(const uint8_t v[16], int a0, int a1, uint8_t idx[16])
{
    int pal[8];
    bc4_palette(a0, a1, pal);
    uint32_t err = 0;
    for (int t = 0; t < 16; t++) {
        int best = 0, bd = 1 << 30;
        for (int k = 0; k < 8; k++) {
            int d = (int)v[t] - pal[k];
            d *= d;
            if (d < bd) {
                bd = d;
                best = k;
            }
        }
        idx[t] = (uint8_t)best;
        err += (uint32_t)bd;
    }
    return err;
}

static void bc4_encode(const uint8_t v[16], uint8_t out[8])
{
    int lo = 255, hi = 0, lo6 = 255, hi6 = 0;
    for (int t = 0; t < 16; t++) {
        lo = ZE_MIN(lo, (int)v[t]);
        hi = ZE_MAX(hi, (int)v[t]);
        if (v[t] != 0 && v[t] != 255) {
            lo6 = ZE_MIN(lo6, (int)v[t]);
            hi6 = ZE_MAX(hi6, (int)v[t]);
        }
    }
    uint8_t idx[16], best_idx[16] = {0};
    int b0 = hi, b1 = lo;
    uint32_t best = UINT32_MAX;
    if (lo == hi) {
        best = bc4_fit(v, hi, lo, best_idx);
    } else {
        for (int d0 = -2; d0 <= 2 && best; d0++)
            for (int d1 = -2; d1 <= 2 && best; d1++) {
                int a0 = hi + d0, a1 = lo + d1;
                if (a0 > 255 || a1 < 0 || a0 <= a1)
                    continue;
                uint32_t e = bc4_fit(v, a0, a1, idx);
                if (e < best) {
                    best = e;
                    b0 = a0;
                    b1 = a1;
                    memcpy(best_idx, idx, 16);
                }
            }
        if (best && (lo == 0 || hi == 255)) {
            int a0 = lo6 <= hi6 ? lo6 : 0, a1 = lo6 <= hi6 ? hi6 : 0;
            uint32_t e = bc4_fit(v, a0, a1, idx);
            if (e < best) {
                best = e;
                b0 = a0;
                b1 = a1;
                memcpy(best_idx, idx, 16);
            }
        }
    }
    out[0] = (uint8_t)b0;
    out[1] = (uint8_t)b1;
    uint64_t bits = 0;
    for (int t = 0; t < 16; t++)
        bits |= (uint64_t)best_idx[t] << (3 * t);
    for (int k = 0; k < 6; k++)
        out[2 + k] = (uint8_t)(bits >> (8 * k));
}

static void bc4_decode(const uint8_t in[8], uint8_t v[16])
{
    int pal[8];
    bc4_palette(in[0], in[1], pal);
    uint64_t bits = 0;
    for (int k = 0; k < 6; k++)
        bits |= (uint64_t)in[2 + k] << (8 * k);
    for (int t = 0; t < 16; t++)
        v[t] = (uint8_t)pal[(bits >> (3 * t)) & 7u];
}

/* ------------------------------------------------------------ BC1 blocks */

static uint16_t pack565(const float c[3])
{
    int r = (int)lrintf(fminf(fmaxf(c[0], 0.0f), 255.0f) * 31.0f / 255.0f);
    int g = (int)lrintf(fminf(fmaxf(c[1], 0.0f), 255.0f) * 63.0f / 255.0f);
    int b = (int)lrintf(fminf(fmaxf(c[2], 0.0f), 255.0f) * 31.0f / 255.0f);
    return (uint16_t)((r << 11) | (g << 5) | b);
}

static void unpack565(uint16_t c, int out[3])
{
    int r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31;
    out[0] = (r << 3) | (r >> 2);
    out[1] = (g << 2) | (g >> 4);
    out[2] = (b << 3) | (b >> 2);
}

static void bc1_palette(uint16_t c0, uint16_t c1, int pal[4][3])
{
    unpack565(c0, pal[0]);
    unpack565(c1, pal[1]);
    for (int k = 0; k < 3; k++) {
        pal[2][k] = (2 * pal[0][k] + pal[1][k] + 1) / 3;
        pal[3][k] = (pal[0][k] + 2 * pal[1][k] + 1) / 3;
    }
}

/* Squared error of the best four-colour indices for (c0, c1). */
static uint32_t bc1_fit(const uint8_t px[16][4], uint16_t c0, uint16_t c1, uint8_t idx[16])
{
    int pal[4][3];
    bc1_palette(c0, c1, pal);
    uint32_t err = 0;
    for (int t = 0; t < 16; t++) {
        int best = 0, bd = 1 << 30;
        for (int k = 0; k < 4; k++) {
            int dr = px[t][0] - pal[k][0], dg = px[t][1] - pal[k][1], db = px[t][2] - pal[k][2];
            int d = dr * dr + dg * dg + db * db;
            if (d < bd) {
                bd = d;
                best = k;
            }
        }
        idx[t] = (uint8_t)best;
        err += (uint32_t)bd;
    }
    return err;
}

/* The endpoints minimising the squared error for fixed indices. false
 * when the system is singular (every index the same weight). */
static bool bc1_least_squares(const uint8_t px[16][4], const uint8_t idx[16], float e0[3],
                              float e1[3])
{
    static const float w0[4] = {1.0f, 0.0f, 2.0f / 3.0f, 1.0f / 3.0f};
    float aa = 0, ab = 0, bb = 0, ax[3] = {0}, bx[3] = {0};
    for (int t = 0; t < 16; t++) {
        float a = w0[idx[t]], b = 1.0f - a;
        aa += a * a;
        ab += a * b;
        bb += b * b;
        for (int k = 0; k < 3; k++) {
            ax[k] += a * (float)px[t][k];
            bx[k] += b * (float)px[t][k];
        }
    }
    float det = aa * bb - ab * ab;
    if (fabsf(det) < 1e-6f)
        return false;
    for (int k = 0; k < 3; k++) {
        e0[k] = (ax[k] * bb - bx[k] * ab) / det;
        e1[k] = (bx[k] * aa - ax[k] * ab) / det;
    }
    return true;
}

static void bc1_encode(const uint8_t px[16][4], uint8_t out[8])
{
    float mean[3] = {0}, lo[3] = {255, 255, 255}, hi[3] = {0};
    for (int t = 0; t < 16; t++)
        for (int k = 0; k < 3; k++) {
            mean[k] += px[t][k] / 16.0f;
            lo[k] = fminf(lo[k], px[t][k]);
            hi[k] = fmaxf(hi[k], px[t][k]);
        }
    float cov[6] = {0}; /* xx xy xz yy yz zz */
    for (int t = 0; t < 16; t++) {
        float d[3] = {px[t][0] - mean[0], px[t][1] - mean[1], px[t][2] - mean[2]};
        cov[0] += d[0] * d[0];
        cov[1] += d[0] * d[1];
        cov[2] += d[0] * d[2];
        cov[3] += d[1] * d[1];
        cov[4] += d[1] * d[2];
        cov[5] += d[2] * d[2];
    }
    float axis[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    if (axis[0] + axis[1] + axis[2] == 0.0f)
        axis[0] = axis[1] = axis[2] = 1.0f;
    for (int it = 0; it < 8; it++) {
        float n[3] = {cov[0] * axis[0] + cov[1] * axis[1] + cov[2] * axis[2],
                      cov[1] * axis[0] + cov[3] * axis[1] + cov[4] * axis[2],
                      cov[2] * axis[0] + cov[4] * axis[1] + cov[5] * axis[2]};
        float m = fmaxf(fabsf(n[0]), fmaxf(fabsf(n[1]), fabsf(n[2])));
        if (m < 1e-6f)
            break;
        for (int k = 0; k < 3; k++)
            axis[k] = n[k] / m;
    }
    float len2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
    float tmin = 0, tmax = 0;
    for (int t = 0; t < 16; t++) {
        float p = ((px[t][0] - mean[0]) * axis[0] + (px[t][1] - mean[1]) * axis[1] +
                   (px[t][2] - mean[2]) * axis[2]) /
                  len2;
        tmin = t ? fminf(tmin, p) : p;
        tmax = t ? fmaxf(tmax, p) : p;
    }
    float e0[3], e1[3];
    for (int k = 0; k < 3; k++) {
        e0[k] = mean[k] + axis[k] * tmax;
        e1[k] = mean[k] + axis[k] * tmin;
    }
    uint16_t c0 = pack565(e0), c1 = pack565(e1);
    uint8_t idx[16], try_idx[16];
    uint32_t err = bc1_fit(px, c0, c1, idx);
    for (int round = 0; round < 3 && err; round++) {
        if (!bc1_least_squares(px, idx, e0, e1))
            break;
        uint16_t n0 = pack565(e0), n1 = pack565(e1);
        uint32_t e = bc1_fit(px, n0, n1, try_idx);
        if (e >= err)
            break;
        err = e;
        c0 = n0;
        c1 = n1;
        memcpy(idx, try_idx, 16);
    }
    /* Last: each endpoint's channels one 5:6:5 step up or down, kept
       while the error drops. */
    static const uint16_t step[3] = {1u << 11, 1u << 5, 1u};
    static const uint16_t field[3] = {31u << 11, 63u << 5, 31u};
    for (int pass = 0; pass < 2 && err; pass++) {
        bool better = false;
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < 3; k++)
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    uint16_t cur = e ? c1 : c0, v = cur & field[k];
                    if ((sgn < 0 && v == 0) || (sgn > 0 && v == field[k]))
                        continue;
                    uint16_t nv = (uint16_t)(sgn > 0 ? cur + step[k] : cur - step[k]);
                    uint32_t ee = bc1_fit(px, e ? c0 : nv, e ? nv : c1, try_idx);
                    if (ee < err) {
                        err = ee;
                        if (e)
                            c1 = nv;
                        else
                            c0 = nv;
                        memcpy(idx, try_idx, 16);
                        better = true;
                    }
                }
        if (!better)
            break;
    }
    if (c0 < c1) { /* four-colour mode needs c0 > c1: swap, remap 0<->1, 2<->3 */
        uint16_t t = c0;
        c0 = c1;
        c1 = t;
        for (int i = 0; i < 16; i++)
            idx[i] ^= 1u;
    } else if (c0 == c1) {
        memset(idx, 0, 16);
    }
    out[0] = (uint8_t)c0;
    out[1] = (uint8_t)(c0 >> 8);
    out[2] = (uint8_t)c1;
    out[3] = (uint8_t)(c1 >> 8);
    uint32_t bits = 0;
    for (int t = 0; t < 16; t++)
        bits |= (uint32_t)idx[t] << (2 * t);
    for (int k = 0; k < 4; k++)
        out[4 + k] = (uint8_t)(bits >> (8 * k));
}

static void bc1_decode(const uint8_t in[8], uint8_t px[16][4])
{
    uint16_t c0 = (uint16_t)(in[0] | in[1] << 8), c1 = (uint16_t)(in[2] | in[3] << 8);
    int pal[4][3];
    bc1_palette(c0, c1, pal);
    uint32_t bits =
        (uint32_t)in[4] | (uint32_t)in[5] << 8 | (uint32_t)in[6] << 16 | (uint32_t)in[7] << 24;
    for (int t = 0; t < 16; t++) {
        const int *c = pal[(bits >> (2 * t)) & 3u];
        px[t][0] = (uint8_t)c[0];
        px[t][1] = (uint8_t)c[1];
        px[t][2] = (uint8_t)c[2];
        px[t][3] = 255;
    }
}

/* ---------------------------------------------------------------- levels */

static bool is_bc1(ze_tex_format f)
{
    return f == ZE_TEX_FORMAT_BC1_UNORM || f == ZE_TEX_FORMAT_BC1_SRGB;
}

static bool is_bc3(ze_tex_format f)
{
    return f == ZE_TEX_FORMAT_BC3_UNORM || f == ZE_TEX_FORMAT_BC3_SRGB;
}

void ze__bc_encode_level(ze_tex_format f, const uint8_t *rgba, uint32_t w, uint32_t h, uint8_t *out)
{
    uint32_t bw = (w + 3u) / 4u, bh = (h + 3u) / 4u;
    size_t bsize = is_bc1(f) || f == ZE_TEX_FORMAT_BC4_UNORM ? 8 : 16;
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            uint8_t px[16][4], ch[16];
            for (uint32_t t = 0; t < 16; t++) {
                uint32_t x = ZE_MIN(bx * 4 + (t & 3u), w - 1), y = ZE_MIN(by * 4 + t / 4u, h - 1);
                memcpy(px[t], rgba + ((size_t)y * w + x) * 4, 4);
            }
            uint8_t *o = out + ((size_t)by * bw + bx) * bsize;
            if (is_bc1(f)) {
                bc1_encode(px, o);
            } else if (is_bc3(f)) {
                for (int t = 0; t < 16; t++)
                    ch[t] = px[t][3];
                bc4_encode(ch, o);
                bc1_encode(px, o + 8);
            } else {
                for (int c = 0; c < (f == ZE_TEX_FORMAT_BC5_UNORM ? 2 : 1); c++) {
                    for (int t = 0; t < 16; t++)
                        ch[t] = px[t][c];
                    bc4_encode(ch, o + 8 * c);
                }
            }
        }
}

void ze__bc_decode_level(ze_tex_format f, const uint8_t *blocks, uint32_t w, uint32_t h,
                         uint8_t *rgba)
{
    uint32_t bw = (w + 3u) / 4u, bh = (h + 3u) / 4u;
    size_t bsize = is_bc1(f) || f == ZE_TEX_FORMAT_BC4_UNORM ? 8 : 16;
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            const uint8_t *in = blocks + ((size_t)by * bw + bx) * bsize;
            uint8_t px[16][4], ch[16];
            if (is_bc1(f)) {
                bc1_decode(in, px);
            } else if (is_bc3(f)) {
                bc1_decode(in + 8, px);
                bc4_decode(in, ch);
                for (int t = 0; t < 16; t++)
                    px[t][3] = ch[t];
            } else {
                memset(px, 0, sizeof px);
                for (int c = 0; c < (f == ZE_TEX_FORMAT_BC5_UNORM ? 2 : 1); c++) {
                    bc4_decode(in + 8 * c, ch);
                    for (int t = 0; t < 16; t++)
                        px[t][c] = ch[t];
                }
                for (int t = 0; t < 16; t++)
                    px[t][3] = 255;
            }
            for (uint32_t t = 0; t < 16; t++) {
                uint32_t x = bx * 4 + (t & 3u), y = by * 4 + t / 4u;
                if (x < w && y < h)
                    memcpy(rgba + ((size_t)y * w + x) * 4, px[t], 4);
            }
        }
}
