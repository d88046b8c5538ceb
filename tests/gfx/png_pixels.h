/* Test helper: a PNG file's pixels as RGBA8 (the bytes as stored: sRGB
 * values, no conversion), decoded by the asset module's public texture cook
 * (ze_asset_zetex_cook with `linear`, then ze_asset_zetex_read's mip 0), and
 * the image's background: the colour most of its four corners share.
 * Header-only; no malloc outside src/mem (the system allocator of the
 * memory module). */
#ifndef ZE_TEST_PNG_PIXELS_H
#define ZE_TEST_PNG_PIXELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

typedef struct png_pixels_t {
    uint32_t width, height;
    const uint8_t *rgba; /* width * height * 4, top row first */
    uint8_t *bytes_;     /* the .zetex */
    size_t size_;
} png_pixels_t;

/* false (with a line on stderr) when the file cannot be read or decoded. */
static inline bool png_pixels_load(const char *path, png_pixels_t *out)
{
    memset(out, 0, sizeof *out);
    static uint8_t file[4 << 20];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "png_pixels: cannot open %s\n", path);
        return false;
    }
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    ze__asset_error_t err;
    ze_image_desc_t desc = {.alloc = ze_mem_system_allocator(), .linear = true};
    if (ze__asset_zetex_cook(file, n, (ze_uuid_t){{1}}, &desc, &out->bytes_, &out->size_, &err) !=
        ZE_OK) {
        fprintf(stderr, "png_pixels: %s: %s\n", path, err.message);
        return false;
    }
    ze_tex_view_t v;
    if (ze__asset_zetex_read(out->bytes_, out->size_, &v, &err) != ZE_OK) {
        fprintf(stderr, "png_pixels: %s: %s\n", path, err.message);
        ze_free(ze_mem_system_allocator(), out->bytes_, out->size_);
        out->bytes_ = NULL;
        return false;
    }
    out->width = v.width;
    out->height = v.height;
    out->rgba = v.mips[0].data;
    return true;
}

static inline void png_pixels_release(png_pixels_t *p)
{
    if (p->bytes_)
        ze_free(ze_mem_system_allocator(), p->bytes_, p->size_);
    memset(p, 0, sizeof *p);
}

static inline const uint8_t *png_pixel(const png_pixels_t *p, uint32_t x, uint32_t y)
{
    return p->rgba + ((size_t)y * p->width + x) * 4;
}

/* Channels of a and b all within tol. */
static inline bool png_same(const uint8_t *a, const uint8_t *b, int tol)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)a[c] - (int)b[c]) > tol)
            return false;
    return true;
}

/* The colour at least two corners share (within tol): the background of a
 * framed render. false when no two corners agree. */
static inline bool png_background(const png_pixels_t *p, int tol, uint8_t out[3])
{
    const uint8_t *c[4] = {png_pixel(p, 0, 0), png_pixel(p, p->width - 1, 0),
                           png_pixel(p, 0, p->height - 1),
                           png_pixel(p, p->width - 1, p->height - 1)};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (png_same(c[i], c[j], tol)) {
                memcpy(out, c[i], 3);
                return true;
            }
    return false;
}

/* The fraction of pixels that differ from `bg` by more than tol. */
static inline double png_coverage(const png_pixels_t *p, const uint8_t bg[3], int tol)
{
    uint64_t hit = 0;
    for (uint32_t y = 0; y < p->height; y++)
        for (uint32_t x = 0; x < p->width; x++)
            hit += !png_same(png_pixel(p, x, y), bg, tol);
    return p->width && p->height ? (double)hit / ((double)p->width * p->height) : 0.0;
}

#endif /* ZE_TEST_PNG_PIXELS_H */
