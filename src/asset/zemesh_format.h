/* The .zemesh layout constants shared by the reader (asset runtime,
 * zemesh.c) and the writer (cook, zemesh_write.c); the format is described
 * in zemesh.c. */
#ifndef ZE_ASSET_ZEMESH_FORMAT_H
#define ZE_ASSET_ZEMESH_FORMAT_H

#include <stdint.h>

#include "zengine/asset.h"

enum {
    /* version 1 */
    HEADER_SIZE_V1 = 80,
    SUBMESH_SIZE_V1 = 56,
    /* version 2: the header gains the level count (and reserved zeros),
       a submesh its first level and level count, and a level table follows
       the submesh table */
    HEADER_SIZE = 96,
    SUBMESH_SIZE = 64,
    LOD_SIZE = 16,
    CHECKSUM_SIZE = 8,
};

__attribute__((unused)) static const uint8_t g_zemesh_magic[8] = {'Z', 'E', 'M',  'E',
                                                                  'S', 'H', 0x00, 0x1a};

__attribute__((unused)) static const uint32_t g_zemesh_attr_size[ZE_VATTR_COUNT] = {12, 12, 16, 8,
                                                                                    8,  16, 8,  16};

#endif /* ZE_ASSET_ZEMESH_FORMAT_H */
