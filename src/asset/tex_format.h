/* The .zetex/.zenvmap layout shared by the reader (asset runtime,
 * texture.c) and the writers (cook, texture_cook.c); the format is
 * described in texture.c. */
#ifndef ZE_ASSET_TEX_FORMAT_H
#define ZE_ASSET_TEX_FORMAT_H

#include "asset/asset_internal.h"

enum {
    HEADER_SIZE = 64,
    MIP_ENTRY_SIZE = 16,
    CHECKSUM_SIZE = 8,
    DEFAULT_MAX_BYTES = 1 << 30,
};

__attribute__((unused)) static const uint8_t g_zetex_magic[8] = {'Z', 'E',  'T',  'E',
                                                                 'X', 0x00, 0x1a, 0x00};
__attribute__((unused)) static const uint8_t g_zenvmap_magic[8] = {'Z', 'E', 'N', 'V',
                                                                   'M', 'A', 'P', 0x1a};

static inline uint32_t texel_size(ze_tex_format f)
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

/* Bytes of one 4x4 block of a BC format, 0 for an uncompressed one. */
static inline uint32_t block_bytes(ze_tex_format f)
{
    switch (f) {
    case ZE_TEX_FORMAT_BC1_UNORM:
    case ZE_TEX_FORMAT_BC1_SRGB:
    case ZE_TEX_FORMAT_BC4_UNORM:
        return 8;
    case ZE_TEX_FORMAT_BC3_UNORM:
    case ZE_TEX_FORMAT_BC3_SRGB:
    case ZE_TEX_FORMAT_BC5_UNORM:
        return 16;
    default:
        return 0;
    }
}

static inline uint32_t mip_dim(uint32_t d, uint32_t level)
{
    d >>= level;
    return d ? d : 1;
}

static inline size_t align16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

/* Layout of a file: mip offsets and sizes, the total. false on overflow. */
typedef struct layout_t {
    uint32_t mips;
    size_t offset[ZE_TEX_MAX_MIPS], size[ZE_TEX_MAX_MIPS];
    size_t total;
} layout_t;

/* Bytes of one level: texels x texel size, or (BC) blocks x block size,
 * a partial block at the right or bottom edge counting whole. */
static inline bool level_bytes(uint32_t mw, uint32_t mh, ze_tex_format f, size_t *n)
{
    uint32_t bb = block_bytes(f);
    if (bb)
        return ze_size_mul((size_t)((mw + 3u) / 4u) * ((mh + 3u) / 4u), bb, n);
    return ze_size_mul((size_t)mw * mh, texel_size(f), n);
}

static inline bool make_layout(uint32_t w, uint32_t h, uint32_t mips, ze_tex_format f, layout_t *l)
{
    l->mips = mips;
    size_t pos = align16(HEADER_SIZE + (size_t)mips * MIP_ENTRY_SIZE);
    for (uint32_t i = 0; i < mips; i++) {
        size_t n;
        if (!level_bytes(mip_dim(w, i), mip_dim(h, i), f, &n))
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

#endif /* ZE_ASSET_TEX_FORMAT_H */
