/* The .zenvmap reader on arbitrary bytes, as they are and with the
 * declared size and checksum made right. Whatever it accepts must be safe
 * to walk, and its texels finite and non-negative halves. */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "cook/cook_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const uint8_t *data, size_t size)
{
    ze_tex_view_t v;
    ze__asset_error_t err;
    if (ze__asset_zenvmap_read(data, size, &v, &err) != ZE_OK) {
        ZE_VERIFY(err.message[0] != 0);
        return;
    }
    ZE_VERIFY(v.format == ZE_TEX_FORMAT_RGBA16F);
    for (uint32_t i = 0; i < v.mip_count; i++) {
        ZE_VERIFY(v.mips[i].size == (size_t)v.mips[i].width * v.mips[i].height * 8);
        ZE_VERIFY(v.mips[i].data >= data && v.mips[i].data + v.mips[i].size <= data + size);
        for (size_t k = 0; k < v.mips[i].size; k += 2) {
            uint16_t h;
            memcpy(&h, v.mips[i].data + k, 2);
            float f = ze_asset_f16_to_f32(h);
            ZE_VERIFY(f >= 0.0f && f <= 65504.0f);
        }
    }
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
    return 0;
}
