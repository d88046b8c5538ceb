/* A reference decoder of BC1, BC3, BC4 and BC5 blocks, written for the
 * tests from the Khronos Data Format Specification (S3TC and RGTC
 * chapters), independent of the cooker's own decoder: both BC1 modes (a
 * four-colour block when c0 > c1, else three colours and transparent
 * black), both BC4 modes (eight values when r0 > r1, else six with 0 and
 * 1), interpolation in float and rounded once. A GPU may round the
 * interpolated values differently by one step: compare with a tolerance of
 * at least 1. Header-only; include after the standard headers. */
#ifndef ZE_TEST_BC_REF_H
#define ZE_TEST_BC_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline float bcref_5(unsigned v)
{
    return (float)v / 31.0f;
}

static inline float bcref_6(unsigned v)
{
    return (float)v / 63.0f;
}

/* One BC1 colour block to 16 RGBA texels (0..1), `three_ok`: the
 * three-colour mode applies when c0 <= c1 (false for BC3's colour, which
 * is always four-colour). */
static inline void bcref_bc1(const uint8_t b[8], bool three_ok, float out[16][4])
{
    unsigned c0 = b[0] | (unsigned)b[1] << 8, c1 = b[2] | (unsigned)b[3] << 8;
    float p[4][4];
    p[0][0] = bcref_5(c0 >> 11);
    p[0][1] = bcref_6((c0 >> 5) & 63u);
    p[0][2] = bcref_5(c0 & 31u);
    p[1][0] = bcref_5(c1 >> 11);
    p[1][1] = bcref_6((c1 >> 5) & 63u);
    p[1][2] = bcref_5(c1 & 31u);
    p[0][3] = p[1][3] = 1.0f;
    bool four = c0 > c1 || !three_ok;
    for (int k = 0; k < 3; k++) {
        if (four) {
            p[2][k] = (2.0f * p[0][k] + p[1][k]) / 3.0f;
            p[3][k] = (p[0][k] + 2.0f * p[1][k]) / 3.0f;
        } else {
            p[2][k] = (p[0][k] + p[1][k]) / 2.0f;
            p[3][k] = 0.0f;
        }
    }
    p[2][3] = 1.0f;
    p[3][3] = four ? 1.0f : 0.0f;
    uint32_t bits = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    for (int t = 0; t < 16; t++)
        memcpy(out[t], p[(bits >> (2 * t)) & 3u], sizeof out[t]);
}

/* One BC4 block to 16 values (0..1). */
static inline void bcref_bc4(const uint8_t b[8], float out[16])
{
    float r0 = b[0] / 255.0f, r1 = b[1] / 255.0f, p[8];
    p[0] = r0;
    p[1] = r1;
    if (b[0] > b[1]) {
        for (int i = 1; i <= 6; i++)
            p[i + 1] = ((7 - i) * r0 + i * r1) / 7.0f;
    } else {
        for (int i = 1; i <= 4; i++)
            p[i + 1] = ((5 - i) * r0 + i * r1) / 5.0f;
        p[6] = 0.0f;
        p[7] = 1.0f;
    }
    uint64_t bits = 0;
    for (int k = 0; k < 6; k++)
        bits |= (uint64_t)b[2 + k] << (8 * k);
    for (int t = 0; t < 16; t++)
        out[t] = p[(bits >> (3 * t)) & 7u];
}

/* 0..1 to a byte, rounded. */
static inline uint8_t bcref_byte(float v)
{
    return (uint8_t)lrintf(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f);
}

/* A whole level of `blocks` (format by block kind: 1 = BC1, 3 = BC3,
 * 4 = BC4, 5 = BC5) to w x h RGBA8 texels: BC4 as (r, 0, 0, 255), BC5 as
 * (r, g, 0, 255), what a sampler returns. */
static inline void bcref_level(int kind, const uint8_t *blocks, uint32_t w, uint32_t h,
                               uint8_t *rgba)
{
    uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    size_t bs = kind == 1 || kind == 4 ? 8 : 16;
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            const uint8_t *b = blocks + ((size_t)by * bw + bx) * bs;
            float px[16][4], ch[16];
            memset(px, 0, sizeof px);
            if (kind == 1) {
                bcref_bc1(b, true, px);
            } else if (kind == 3) {
                bcref_bc1(b + 8, false, px);
                bcref_bc4(b, ch);
                for (int t = 0; t < 16; t++)
                    px[t][3] = ch[t];
            } else {
                for (int c = 0; c < (kind == 5 ? 2 : 1); c++) {
                    bcref_bc4(b + 8 * c, ch);
                    for (int t = 0; t < 16; t++)
                        px[t][c] = ch[t];
                }
                for (int t = 0; t < 16; t++)
                    px[t][3] = 1.0f;
            }
            for (uint32_t t = 0; t < 16; t++) {
                uint32_t x = bx * 4 + (t & 3), y = by * 4 + t / 4;
                if (x < w && y < h)
                    for (int c = 0; c < 4; c++)
                        rgba[((size_t)y * w + x) * 4 + c] = bcref_byte(px[t][c]);
            }
        }
}

#endif
