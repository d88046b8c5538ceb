/* Cooked textures: `.zetex` (PNG/JPEG/TGA decoded through stb_image, RGBA8
 * with a box-filtered mip chain) and `.zenvmap` (a Radiance .hdr
 * equirectangular environment map, RGBA16F with a mip chain), their
 * writers and their bounds-checked readers. Both files share one layout.
 *
 * File format, version 1. Little-endian whatever the host; offsets from
 * the start of the file.
 *
 *   header (64 bytes)
 *     0  magic        "ZETEX\0\x1a\0" (.zetex) or "ZENVMAP\x1a" (.zenvmap)
 *     8  u32 version  1
 *    12  u32 format   ze_tex_format: .zetex RGBA8_UNORM or RGBA8_SRGB,
 *                     .zenvmap RGBA16F
 *    16  uuid[16]     the texture's identity
 *    32  u32 width, u32 height   of mip 0, each 1..ZE_IMAGE_MAX_DIMENSION
 *    40  u32 mips     1..the full chain (floor(log2(max(w, h))) + 1)
 *    44  u32 flags    0 (reserved)
 *    48  u64 size     bytes of the whole file, checksum included
 *    56  u64 reserved 0
 *   mip table[mips] (16 bytes each): u64 offset, u64 size
 *   mip data         mip i is max(1, width >> i) x max(1, height >> i)
 *                    texels, rows top to bottom, no row padding; each mip
 *                    starts at the next 16-byte boundary after the
 *                    previous one (zero padding) and nothing else is there
 *   u64 checksum     ze_hash64 (XXH3, seed 0) of everything before it
 *
 * Mips: a 2x2 box filter (a source row or column past the edge of an odd
 * size is clamped, so the last row or column of an odd level is dropped).
 * sRGB textures are averaged in linear light, alpha linearly; RGBA16F in
 * float before rounding to half (values above 65504 clamp to 65504). The
 * same input always gives the same bytes.
 */
#include <math.h>

#include "asset/asset_internal.h"

enum {
    HEADER_SIZE = 64,
    MIP_ENTRY_SIZE = 16,
    CHECKSUM_SIZE = 8,
    DEFAULT_MAX_BYTES = 1 << 30,
};

static const uint8_t g_zetex_magic[8] = {'Z', 'E', 'T', 'E', 'X', 0x00, 0x1a, 0x00};
static const uint8_t g_zenvmap_magic[8] = {'Z', 'E', 'N', 'V', 'M', 'A', 'P', 0x1a};

static uint32_t texel_size(ze_tex_format f)
{
    switch (f) {
    case ZE_TEX_FORMAT_RGBA8_UNORM:
    case ZE_TEX_FORMAT_RGBA8_SRGB:
        return 4;
    case ZE_TEX_FORMAT_RGBA16F:
        return 8;
    default:
        return 0;
    }
}

uint32_t ze_asset_tex_full_mips(uint32_t width, uint32_t height)
{
    uint32_t m = ZE_MAX(width, height), n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
}

static uint32_t mip_dim(uint32_t d, uint32_t level)
{
    d >>= level;
    return d ? d : 1;
}

static size_t align16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

/* Layout of a file: mip offsets and sizes, the total. false on overflow. */
typedef struct layout_t {
    uint32_t mips;
    size_t offset[ZE_TEX_MAX_MIPS], size[ZE_TEX_MAX_MIPS];
    size_t total;
} layout_t;

static bool make_layout(uint32_t w, uint32_t h, uint32_t mips, uint32_t tsize, layout_t *l)
{
    l->mips = mips;
    size_t pos = align16(HEADER_SIZE + (size_t)mips * MIP_ENTRY_SIZE);
    for (uint32_t i = 0; i < mips; i++) {
        size_t n;
        if (!ze_size_mul((size_t)mip_dim(w, i) * mip_dim(h, i), tsize, &n))
            return false;
        l->offset[i] = pos;
        l->size[i] = n;
        if (!ze_size_add(pos, n, &pos))
            return false;
        if (i + 1 < mips)
            pos = align16(pos);
    }
    return ze_size_add(pos, CHECKSUM_SIZE, &l->total);
}

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

uint16_t ze_asset_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (ax >= 0x477fe000u)
        return (uint16_t)(sign | 0x7bffu); /* clamp to 65504 (also infinity) */
    if (ax < 0x38800000u) {                /* half subnormal or zero */
        if (ax < 0x33000000u)
            return (uint16_t)sign;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - (ax >> 23);
        uint32_t hv = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (hv & 1u)))
            hv++;
        return (uint16_t)(sign | hv);
    }
    uint32_t hv = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (hv & 1u)))
        hv++;
    return (uint16_t)(sign | hv);
}

float ze_asset_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = ldexpf((float)m, -24);
        return sign ? -f : f;
    }
    if (e == 31)
        x = sign | 0x7f800000u | (m << 13);
    else
        x = sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
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

ze_result ze_asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                              const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                              ze_asset_error_t *err)
{
    ze_asset_error_t scratch;
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
    layout_t l;
    if (!make_layout(w, h, ze_asset_tex_full_mips(w, h), 4, &l) || l.total > d.max_bytes) {
        ze__pixels_release(&px);
        ze__asset_error_set(err, "texture of %ux%u exceeds the %llu byte cap", w, h,
                            (unsigned long long)d.max_bytes);
        return ZE_ERR_LIMIT;
    }
    uint8_t *buf = begin_file(g_zetex_magic, format, uuid, &l, w, h, d.alloc);
    if (!buf) {
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
    end_file(buf, l.total);
    *bytes = buf;
    *out_size = l.total;
    return ZE_OK;
}

ze_result ze_asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                ze_asset_error_t *err)
{
    ze_asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(bytes && out_size && (hdr || size == 0), ZE_ERR_INVALID_ARG);
    *bytes = NULL;
    *out_size = 0;
    ze_image_desc_t d = desc_or_default(desc);
    ze_hdr_image_t img;
    ZE__TRY(ze_asset_hdr_decode(hdr, size, &d, &img, err));
    uint32_t w = img.width, h = img.height;
    layout_t l;
    /* Mips are built in float (RGBA f32, two levels at a time). */
    size_t work = 0;
    bool ok = make_layout(w, h, ze_asset_tex_full_mips(w, h), 8, &l) &&
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

/* ----------------------------------------------------------------- reader */

#define FAIL(code, ...)                        \
    do {                                       \
        ze__asset_error_set(err, __VA_ARGS__); \
        return (code);                         \
    } while (0)

static ze_result tex_read(const char *what, const uint8_t magic[8], uint32_t version,
                          const void *data, size_t size, ze_tex_view_t *out, ze_asset_error_t *err)
{
    ze_asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(out != NULL && (data != NULL || size == 0), ZE_ERR_INVALID_ARG);
    const uint8_t *b = data;
    if (size < HEADER_SIZE + CHECKSUM_SIZE)
        FAIL(ZE_ERR_PARSE, "%s: truncated: %zu bytes, shorter than the header", what, size);
    if (memcmp(b, magic, 8) != 0)
        FAIL(ZE_ERR_PARSE, "%s: bad magic (not a .%s file)", what, what);
    uint32_t v = ze__rd_u32le(b + 8);
    if (v != version)
        FAIL(ZE_ERR_UNSUPPORTED, "%s: format version %u is not supported (this reader: %u)", what,
             v, version);
    uint64_t declared = ze__rd_u64le(b + 48);
    if (declared != size)
        FAIL(ZE_ERR_PARSE, "%s: truncated or padded: the header says %llu bytes, there are %zu",
             what, (unsigned long long)declared, size);
    if (ze__rd_u64le(b + size - CHECKSUM_SIZE) != ze_hash64(b, size - CHECKSUM_SIZE, 0))
        FAIL(ZE_ERR_PARSE, "%s: checksum mismatch (the file is corrupted)", what);

    ze_tex_view_t t;
    memset(&t, 0, sizeof t);
    t.format = (ze_tex_format)ze__rd_u32le(b + 12);
    memcpy(t.uuid.bytes, b + 16, 16);
    t.width = ze__rd_u32le(b + 32);
    t.height = ze__rd_u32le(b + 36);
    t.mip_count = ze__rd_u32le(b + 40);
    bool envmap = magic == g_zenvmap_magic;
    bool format_ok =
        envmap ? t.format == ZE_TEX_FORMAT_RGBA16F
               : (t.format == ZE_TEX_FORMAT_RGBA8_UNORM || t.format == ZE_TEX_FORMAT_RGBA8_SRGB);
    if (!format_ok)
        FAIL(ZE_ERR_PARSE, "%s: unknown texel format %u", what, (unsigned)t.format);
    if (ze__rd_u32le(b + 44) != 0 || ze__rd_u64le(b + 56) != 0)
        FAIL(ZE_ERR_PARSE, "%s: reserved header fields are not zero", what);
    if (t.width == 0 || t.height == 0 || t.width > ZE_IMAGE_MAX_DIMENSION ||
        t.height > ZE_IMAGE_MAX_DIMENSION)
        FAIL(ZE_ERR_PARSE, "%s: dimensions %ux%u out of range", what, t.width, t.height);
    if (t.mip_count == 0 || t.mip_count > ze_asset_tex_full_mips(t.width, t.height))
        FAIL(ZE_ERR_PARSE, "%s: %u mips for %ux%u", what, t.mip_count, t.width, t.height);
    layout_t l;
    if (!make_layout(t.width, t.height, t.mip_count, texel_size(t.format), &l) || l.total != size)
        FAIL(ZE_ERR_PARSE, "%s: mip sizes do not add up to the file size", what);
    for (uint32_t i = 0; i < t.mip_count; i++) {
        const uint8_t *e = b + HEADER_SIZE + (size_t)i * MIP_ENTRY_SIZE;
        if (ze__rd_u64le(e) != l.offset[i] || ze__rd_u64le(e + 8) != l.size[i])
            FAIL(ZE_ERR_PARSE, "%s: mip %u: offset or size does not match its dimensions", what, i);
        t.mips[i].width = mip_dim(t.width, i);
        t.mips[i].height = mip_dim(t.height, i);
        t.mips[i].data = b + l.offset[i];
        t.mips[i].size = l.size[i];
    }
    /* Padding is zero: one file, one byte sequence. */
    size_t pos = HEADER_SIZE + (size_t)t.mip_count * MIP_ENTRY_SIZE;
    for (uint32_t i = 0; i < t.mip_count; i++) {
        for (; pos < l.offset[i]; pos++)
            if (b[pos])
                FAIL(ZE_ERR_PARSE, "%s: non-zero padding before mip %u", what, i);
        pos = l.offset[i] + l.size[i];
    }
    if (envmap) {
        /* Texels are finite, non-negative halves (what the cooker writes). */
        for (uint32_t i = 0; i < t.mip_count; i++)
            for (size_t k = 0; k < t.mips[i].size; k += 2) {
                uint16_t hv = ze__rd_u16le(t.mips[i].data + k);
                if ((hv & 0x7c00u) == 0x7c00u || ((hv & 0x8000u) && hv != 0x8000u))
                    FAIL(ZE_ERR_PARSE, "%s: mip %u holds a negative or non-finite texel", what, i);
            }
    }
    *out = t;
    return ZE_OK;
}

ze_result ze_asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                              ze_asset_error_t *err)
{
    return tex_read("zetex", g_zetex_magic, ZE_ZETEX_VERSION, data, size, out, err);
}

ze_result ze_asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                ze_asset_error_t *err)
{
    return tex_read("zenvmap", g_zenvmap_magic, ZE_ZENVMAP_VERSION, data, size, out, err);
}
