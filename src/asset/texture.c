/* Cooked textures: `.zetex` (PNG/JPEG/TGA decoded through stb_image, RGBA8
 * with a box-filtered mip chain) and `.zenvmap` (a Radiance .hdr
 * equirectangular environment map, RGBA16F with a mip chain): their
 * bounds-checked readers (the asset runtime). The writers are the
 * cooker's (src/cook/texture_cook.c). Both files share one layout.
 *
 * File format, version 1. Little-endian whatever the host; offsets from
 * the start of the file.
 *
 *   header (64 bytes)
 *     0  magic        "ZETEX\0\x1a\0" (.zetex) or "ZENVMAP\x1a" (.zenvmap)
 *     8  u32 version  1
 *    12  u32 format   ze_tex_format: .zetex RGBA8_UNORM, RGBA8_SRGB or a
 *                     block format (BC1/BC3 UNORM or SRGB, BC4, BC5 UNORM),
 *                     .zenvmap RGBA16F
 *    16  uuid[16]     the texture's identity
 *    32  u32 width, u32 height   of mip 0, each 1..ZE_IMAGE_MAX_DIMENSION
 *    40  u32 mips     1..the full chain (floor(log2(max(w, h))) + 1)
 *    44  u32 flags    0 (reserved)
 *    48  u64 size     bytes of the whole file, checksum included
 *    56  u64 reserved 0
 *   mip table[mips] (16 bytes each): u64 offset, u64 size
 *   mip data         mip i is max(1, width >> i) x max(1, height >> i)
 *                    texels, rows top to bottom, no row padding (a block
 *                    format: rows of 4x4 blocks, ceil(w/4) x ceil(h/4)
 *                    blocks of 8 or 16 bytes, the texels of a partial
 *                    block past the edge are padding); each mip
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

#include "asset/tex_format.h"

uint32_t ze_asset_tex_full_mips(uint32_t width, uint32_t height)
{
    uint32_t m = ZE_MAX(width, height), n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
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

uint32_t ze_tex_format_block_bytes(ze_tex_format f)
{
    return block_bytes(f);
}

const char *ze_tex_format_name(ze_tex_format f)
{
    switch (f) {
    case ZE_TEX_FORMAT_RGBA8_UNORM:
        return "rgba8_unorm";
    case ZE_TEX_FORMAT_RGBA8_SRGB:
        return "rgba8_srgb";
    case ZE_TEX_FORMAT_RGBA16F:
        return "rgba16f";
    case ZE_TEX_FORMAT_BC1_UNORM:
        return "bc1_unorm";
    case ZE_TEX_FORMAT_BC1_SRGB:
        return "bc1_srgb";
    case ZE_TEX_FORMAT_BC3_UNORM:
        return "bc3_unorm";
    case ZE_TEX_FORMAT_BC3_SRGB:
        return "bc3_srgb";
    case ZE_TEX_FORMAT_BC4_UNORM:
        return "bc4_unorm";
    case ZE_TEX_FORMAT_BC5_UNORM:
        return "bc5_unorm";
    default:
        return "unknown";
    }
}

/* ----------------------------------------------------------------- reader */

#define FAIL(code, ...)                        \
    do {                                       \
        ze__asset_error_set(err, __VA_ARGS__); \
        return (code);                         \
    } while (0)

static ze_result tex_read(const char *what, const uint8_t magic[8], uint32_t version,
                          const void *data, size_t size, ze_tex_view_t *out, ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
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
    bool format_ok = envmap ? t.format == ZE_TEX_FORMAT_RGBA16F
                            : (t.format == ZE_TEX_FORMAT_RGBA8_UNORM ||
                               t.format == ZE_TEX_FORMAT_RGBA8_SRGB || block_bytes(t.format) != 0);
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
    if (!make_layout(t.width, t.height, t.mip_count, t.format, &l) || l.total != size)
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

ze_result ze__asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                               ze__asset_error_t *err)
{
    return tex_read("zetex", g_zetex_magic, ZE_ZETEX_VERSION, data, size, out, err);
}

ze_result ze__asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                 ze__asset_error_t *err)
{
    return tex_read("zenvmap", g_zenvmap_magic, ZE_ZENVMAP_VERSION, data, size, out, err);
}
