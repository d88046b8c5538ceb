/* The .zetex reader on arbitrary bytes, as they are and with the declared
 * size and checksum made right so mutations reach the structural checks.
 * Whatever it accepts must be safe to walk: every texel of every mip. The
 * first byte also picks a second oracle: the bytes as an image to cook
 * (stb_image behind our structure walk and caps), uncompressed or block
 * compressed (BC1/BC3/BC4/BC5, "auto"), whose output the reader must
 * accept. */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const uint8_t *data, size_t size)
{
    ze_tex_view_t v;
    ze__asset_error_t err;
    if (ze__asset_zetex_read(data, size, &v, &err) != ZE_OK) {
        ZE_VERIFY(err.message[0] != 0);
        return;
    }
    volatile uint32_t sink = 0;
    for (uint32_t i = 0; i < v.mip_count; i++) {
        uint32_t bb = ze_tex_format_block_bytes(v.format), w = v.mips[i].width,
                 h = v.mips[i].height;
        ZE_VERIFY(v.mips[i].size ==
                  (bb ? (size_t)((w + 3) / 4) * ((h + 3) / 4) * bb : (size_t)w * h * 4));
        ZE_VERIFY(v.mips[i].data >= data && v.mips[i].data + v.mips[i].size <= data + size);
        for (size_t k = 0; k < v.mips[i].size; k++)
            sink += v.mips[i].data[k];
    }
    (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *copy = ze_alloc(a, size ? size : 1, 16);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    walk(copy, size);
    if (size >= 72) {
        uint64_t n = size;
        memcpy(copy + 48, &n, 8);
        uint64_t sum = ze_hash64(copy, size - 8, 0);
        memcpy(copy + size - 8, &sum, 8);
        walk(copy, size);
    }
    ze_free(a, copy, size ? size : 1);
    if (size >= 1 && (data[0] & 3) == 1) {
        /* As an image: small caps so the fuzzer stays fast. */
        ze_image_desc_t d = {.max_dimension = 512,
                             .max_bytes = 8u << 20,
                             .format =
                                 (data[0] & 4) ? ZE_IMAGE_FORMAT_TGA : ZE_IMAGE_FORMAT_UNKNOWN,
                             .linear = (data[0] & 8) != 0,
                             /* bits 4-6: none, auto, bc1, bc3, bc4, bc5 */
                             .compression = (ze_tex_compression)(((data[0] >> 4) & 7) % 6),
                             .normal_map = (data[0] & 0x80) != 0};
        uint8_t *bytes;
        size_t n;
        ze__asset_error_t err;
        if (ze__asset_zetex_cook(data + 1, size - 1, (ze_uuid_t){{0}}, &d, &bytes, &n, &err) ==
            ZE_OK) {
            ze_tex_view_t v;
            ZE_VERIFY(ze__asset_zetex_read(bytes, n, &v, &err) == ZE_OK);
            ze_free(ze_mem_system_allocator(), bytes, n);
        } else {
            ZE_VERIFY(err.message[0] != 0);
        }
    }
    return 0;
}
