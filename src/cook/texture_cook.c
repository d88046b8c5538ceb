/* The .zetex and .zenvmap writers (the format is described in
 * src/asset/texture.c): decode, mip chain, file. Part of the cooker. */
#include <math.h>

#include "asset/tex_format.h"
#include "cook/cook_internal.h"

/* ----------------------------------------------------------------- writer */

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}

/* Allocates a zeroed file with its header and mip table written. */
static uint8_t *begin_file(const uint8_t magic[8], ze_tex_format format, ze_uuid_t uuid,
                           const layout_t *l, uint32_t w, uint32_t h, ze_allocator_t alloc)
{
    uint8_t *buf = ze_alloc(alloc, l->total, 16);
    if (!buf)
        return NULL;
    memset(buf, 0, l->total);
    memcpy(buf, magic, 8);
    put_u32(buf + 8, 1);
    put_u32(buf + 12, (uint32_t)format);
    memcpy(buf + 16, uuid.bytes, 16);
    put_u32(buf + 32, w);
    put_u32(buf + 36, h);
    put_u32(buf + 40, l->mips);
    put_u64(buf + 48, l->total);
    for (uint32_t i = 0; i < l->mips; i++) {
        put_u64(buf + HEADER_SIZE + (size_t)i * MIP_ENTRY_SIZE, l->offset[i]);
        put_u64(buf + HEADER_SIZE + (size_t)i * MIP_ENTRY_SIZE + 8, l->size[i]);
    }
    return buf;
}

static void end_file(uint8_t *buf, size_t total)
{
    put_u64(buf + total - CHECKSUM_SIZE, ze_hash64(buf, total - CHECKSUM_SIZE, 0));
}

/* sRGB <-> linear: a table for decoding and, for encoding, the linear
 * values at the midpoints between sRGB codes, searched (exact, and the
 * rounding happens in sRGB space). */
typedef struct srgb_t {
    float to_linear[256];
    float mid[255];
} srgb_t;

static double srgb_decode(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static void srgb_init(srgb_t *s)
{
    for (int i = 0; i < 256; i++)
        s->to_linear[i] = (float)srgb_decode(i / 255.0);
    for (int i = 0; i < 255; i++)
        s->mid[i] = (float)srgb_decode((i + 0.5) / 255.0);
}

static uint8_t srgb_encode(const srgb_t *s, float linear)
{
    int lo = 0, hi = 255; /* the answer: how many midpoints lie below */
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (s->mid[m] < linear)
            lo = m + 1;
        else
            hi = m;
    }
    return (uint8_t)lo;
}

static void downsample_rgba8(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst,
                             uint32_t dw, uint32_t dh, const srgb_t *srgb)
{
    for (uint32_t y = 0; y < dh; y++) {
        uint32_t y0 = ZE_MIN(2 * y, sh - 1), y1 = ZE_MIN(2 * y + 1, sh - 1);
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t x0 = ZE_MIN(2 * x, sw - 1), x1 = ZE_MIN(2 * x + 1, sw - 1);
            const uint8_t *p[4] = {
                src + ((size_t)y0 * sw + x0) * 4, src + ((size_t)y0 * sw + x1) * 4,
                src + ((size_t)y1 * sw + x0) * 4, src + ((size_t)y1 * sw + x1) * 4};
            uint8_t *o = dst + ((size_t)y * dw + x) * 4;
            for (int c = 0; c < 4; c++) {
                if (srgb && c < 3) {
                    float sum = srgb->to_linear[p[0][c]] + srgb->to_linear[p[1][c]] +
                                srgb->to_linear[p[2][c]] + srgb->to_linear[p[3][c]];
                    o[c] = srgb_encode(srgb, sum * 0.25f);
                } else {
                    o[c] = (uint8_t)((p[0][c] + p[1][c] + p[2][c] + p[3][c] + 2u) >> 2);
                }
            }
        }
    }
}

static void downsample_f32(const float *src, uint32_t sw, uint32_t sh, float *dst, uint32_t dw,
                           uint32_t dh)
{
    for (uint32_t y = 0; y < dh; y++) {
        uint32_t y0 = ZE_MIN(2 * y, sh - 1), y1 = ZE_MIN(2 * y + 1, sh - 1);
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t x0 = ZE_MIN(2 * x, sw - 1), x1 = ZE_MIN(2 * x + 1, sw - 1);
            for (int c = 0; c < 4; c++)
                dst[((size_t)y * dw + x) * 4 + (size_t)c] =
                    (src[((size_t)y0 * sw + x0) * 4 + (size_t)c] +
                     src[((size_t)y0 * sw + x1) * 4 + (size_t)c] +
                     src[((size_t)y1 * sw + x0) * 4 + (size_t)c] +
                     src[((size_t)y1 * sw + x1) * 4 + (size_t)c]) *
                    0.25f;
        }
    }
}

static ze_image_desc_t desc_or_default(const ze_image_desc_t *desc)
{
    ze_image_desc_t d = desc ? *desc : (ze_image_desc_t){0};
    d.alloc = ze__asset_alloc_or_default(d.alloc);
    if (d.max_dimension == 0 || d.max_dimension > ZE_IMAGE_MAX_DIMENSION)
        d.max_dimension = ZE_IMAGE_MAX_DIMENSION;
    if (d.max_bytes == 0)
        d.max_bytes = DEFAULT_MAX_BYTES;
    return d;
}

/* The block format a compression setting gives this texture (AUTO reads
 * its texels: BC1 when all are opaque). UNKNOWN: RGBA8. */
static ze_tex_format pick_format(const ze_image_desc_t *d, const uint8_t *rgba, size_t texels)
{
    ze_tex_compression c = d->compression;
    if (c == ZE_TEX_COMPRESSION_AUTO) {
        if (d->normal_map)
            c = ZE_TEX_COMPRESSION_BC5;
        else if (d->red_only)
            c = ZE_TEX_COMPRESSION_BC4;
        else {
            c = ZE_TEX_COMPRESSION_BC1;
            for (size_t i = 0; i < texels; i++)
                if (rgba[i * 4 + 3] != 255) {
                    c = ZE_TEX_COMPRESSION_BC3;
                    break;
                }
        }
    }
    switch (c) {
    case ZE_TEX_COMPRESSION_BC1:
        return d->linear ? ZE_TEX_FORMAT_BC1_UNORM : ZE_TEX_FORMAT_BC1_SRGB;
    case ZE_TEX_COMPRESSION_BC3:
        return d->linear ? ZE_TEX_FORMAT_BC3_UNORM : ZE_TEX_FORMAT_BC3_SRGB;
    case ZE_TEX_COMPRESSION_BC4:
        return ZE_TEX_FORMAT_BC4_UNORM;
    case ZE_TEX_COMPRESSION_BC5:
        return ZE_TEX_FORMAT_BC5_UNORM;
    default:
        return ZE_TEX_FORMAT_UNKNOWN;
    }
}

/* PSNR of decoded texels against the source over the channels `f` keeps. */
static double psnr(ze_tex_format f, const uint8_t *src, const uint8_t *dec, size_t texels)
{
    int channels = f == ZE_TEX_FORMAT_BC4_UNORM                                    ? 1
                   : f == ZE_TEX_FORMAT_BC5_UNORM                                  ? 2
                   : (f == ZE_TEX_FORMAT_BC3_UNORM || f == ZE_TEX_FORMAT_BC3_SRGB) ? 4
                                                                                   : 3;
    uint64_t sum = 0;
    for (size_t i = 0; i < texels; i++)
        for (int c = 0; c < channels; c++) {
            int d = (int)src[i * 4 + (size_t)c] - (int)dec[i * 4 + (size_t)c];
            sum += (uint64_t)(d * d);
        }
    if (sum == 0)
        return 100.0;
    double mse = (double)sum / ((double)texels * channels);
    return fmin(100.0, 10.0 * log10(255.0 * 255.0 / mse));
}

ze_result ze__asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                               const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                               ze__asset_error_t *err)
{
    return ze__asset_zetex_cook_ex(encoded, size, uuid, desc, bytes, out_size, NULL, err);
}

ze_result ze__asset_zetex_cook_ex(const void *encoded, size_t size, ze_uuid_t uuid,
                                  const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                  ze__tex_cook_info_t *info, ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(bytes && out_size && (encoded || size == 0), ZE_ERR_INVALID_ARG);
    *bytes = NULL;
    *out_size = 0;
    ze_image_desc_t d = desc_or_default(desc);
    ze__pixels_t px;
    static const uint8_t empty = 0;
    ZE__TRY(ze__image_decode(size ? encoded : &empty, size, d.format, d.max_dimension, d.max_bytes,
                             d.alloc, &px, err));
    ze_tex_format format = d.linear ? ZE_TEX_FORMAT_RGBA8_UNORM : ZE_TEX_FORMAT_RGBA8_SRGB;
    uint32_t w = px.width, h = px.height;
    ze_tex_format block = pick_format(&d, px.rgba, (size_t)w * h);
    uint32_t mips = d.no_mips ? 1u : ze_asset_tex_full_mips(w, h);
    /* The RGBA8 chain is built first (the file itself when uncompressed),
       then each level is encoded into the block file. */
    layout_t l, bl = {0};
    if (!make_layout(w, h, mips, format, &l) || l.total > d.max_bytes ||
        (block && (!make_layout(w, h, mips, block, &bl) || bl.total > d.max_bytes - l.total))) {
        ze__pixels_release(&px);
        ze__asset_error_set(err, "texture of %ux%u exceeds the %llu byte cap", w, h,
                            (unsigned long long)d.max_bytes);
        return ZE_ERR_LIMIT;
    }
    uint8_t *buf = begin_file(g_zetex_magic, format, uuid, &l, w, h, d.alloc);
    uint8_t *bbuf =
        buf && block ? begin_file(g_zetex_magic, block, uuid, &bl, w, h, d.alloc) : NULL;
    if (!buf || (block && !bbuf)) {
        if (buf)
            ze_free(d.alloc, buf, l.total);
        ze__pixels_release(&px);
        ze__asset_error_set(err, "out of memory for a %ux%u texture", w, h);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memcpy(buf + l.offset[0], px.rgba, l.size[0]);
    ze__pixels_release(&px);
    srgb_t srgb;
    if (format == ZE_TEX_FORMAT_RGBA8_SRGB)
        srgb_init(&srgb);
    for (uint32_t i = 1; i < l.mips; i++)
        downsample_rgba8(buf + l.offset[i - 1], mip_dim(w, i - 1), mip_dim(h, i - 1),
                         buf + l.offset[i], mip_dim(w, i), mip_dim(h, i),
                         format == ZE_TEX_FORMAT_RGBA8_SRGB ? &srgb : NULL);
    uint64_t rgba8_bytes = 0, block_bytes_sum = 0;
    for (uint32_t i = 0; i < l.mips; i++) {
        rgba8_bytes += l.size[i];
        block_bytes_sum += block ? bl.size[i] : l.size[i];
    }
    double db = 100.0;
    if (block) {
        for (uint32_t i = 0; i < l.mips; i++)
            ze__bc_encode_level(block, buf + l.offset[i], mip_dim(w, i), mip_dim(h, i),
                                bbuf + bl.offset[i]);
        if (info) { /* level 0 decoded again, against the source texels */
            uint8_t *dec = ze_alloc(d.alloc, l.size[0], 16);
            if (!dec) {
                ze_free(d.alloc, buf, l.total);
                ze_free(d.alloc, bbuf, bl.total);
                ze__asset_error_set(err, "out of memory for a %ux%u texture", w, h);
                return ZE_ERR_OUT_OF_MEMORY;
            }
            ze__bc_decode_level(block, bbuf + bl.offset[0], w, h, dec);
            db = psnr(block, buf + l.offset[0], dec, (size_t)w * h);
            ze_free(d.alloc, dec, l.size[0]);
        }
        ze_free(d.alloc, buf, l.total);
        buf = bbuf;
        l = bl;
        format = block;
    }
    end_file(buf, l.total);
    if (info)
        *info = (ze__tex_cook_info_t){
            .format = format, .psnr_db = db, .bytes = block_bytes_sum, .rgba8_bytes = rgba8_bytes};
    *bytes = buf;
    *out_size = l.total;
    return ZE_OK;
}

ze_result ze__asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                 const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                 ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(bytes && out_size && (hdr || size == 0), ZE_ERR_INVALID_ARG);
    *bytes = NULL;
    *out_size = 0;
    ze_image_desc_t d = desc_or_default(desc);
    ze_hdr_image_t img;
    ZE__TRY(ze__asset_hdr_decode(hdr, size, &d, &img, err));
    uint32_t w = img.width, h = img.height;
    layout_t l;
    /* Mips are built in float (RGBA f32, two levels at a time). */
    size_t work = 0;
    bool ok = make_layout(w, h, d.no_mips ? 1u : ze_asset_tex_full_mips(w, h),
                          ZE_TEX_FORMAT_RGBA16F, &l) &&
              ze_size_mul((size_t)w * h, 16, &work) && l.total <= d.max_bytes &&
              work <= d.max_bytes - ZE_MIN(d.max_bytes, l.total);
    if (!ok) {
        ze_asset_hdr_release(&img);
        ze__asset_error_set(err, "environment map of %ux%u exceeds the %llu byte cap", w, h,
                            (unsigned long long)d.max_bytes);
        return ZE_ERR_LIMIT;
    }
    size_t half_work = align16(work / 2 + 16); /* level 1 (a half when one side is 1) */
    float *lv = ze_alloc(d.alloc, work + half_work, 16);
    uint8_t *buf =
        lv ? begin_file(g_zenvmap_magic, ZE_TEX_FORMAT_RGBA16F, uuid, &l, w, h, d.alloc) : NULL;
    if (!buf) {
        if (lv)
            ze_free(d.alloc, lv, work + half_work);
        ze_asset_hdr_release(&img);
        ze__asset_error_set(err, "out of memory for a %ux%u environment map", w, h);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < (size_t)w * h; i++) {
        lv[i * 4 + 0] = img.rgb[i * 3 + 0];
        lv[i * 4 + 1] = img.rgb[i * 3 + 1];
        lv[i * 4 + 2] = img.rgb[i * 3 + 2];
        lv[i * 4 + 3] = 1.0f;
    }
    ze_asset_hdr_release(&img);
    /* Ping-pong: level i lives at `cur`, level i+1 is built at `nxt`; the
       two regions are the front of lv and its tail. */
    float *cur = lv, *nxt = (float *)(void *)((uint8_t *)lv + work);
    for (uint32_t i = 0; i < l.mips; i++) {
        uint32_t mw = mip_dim(w, i), mh = mip_dim(h, i);
        uint8_t *o = buf + l.offset[i];
        for (size_t k = 0; k < (size_t)mw * mh * 4; k++) {
            uint16_t hv = ze_asset_f32_to_f16(cur[k]);
            o[k * 2] = (uint8_t)hv;
            o[k * 2 + 1] = (uint8_t)(hv >> 8);
        }
        if (i + 1 < l.mips) {
            downsample_f32(cur, mw, mh, nxt, mip_dim(w, i + 1), mip_dim(h, i + 1));
            float *t = cur;
            cur = nxt;
            nxt = t;
        }
    }
    ze_free(d.alloc, lv, work + half_work);
    end_file(buf, l.total);
    *bytes = buf;
    *out_size = l.total;
    return ZE_OK;
}
