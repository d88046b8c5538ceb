/* The Radiance .hdr reader on arbitrary bytes (headers, resolution lines,
 * flat and RLE scanlines). Whatever decodes must cook to a .zenvmap that
 * our reader accepts. */
#include <math.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    ze_image_desc_t d = {.max_dimension = 1024, .max_bytes = 16u << 20};
    ze_hdr_image_t img;
    ze__asset_error_t err;
    if (ze__asset_hdr_decode(data, size, &d, &img, &err) != ZE_OK) {
        ZE_VERIFY(err.message[0] != 0);
        return 0;
    }
    for (size_t i = 0; i < (size_t)img.width * img.height * 3; i++)
        ZE_VERIFY(isfinite(img.rgb[i]) && img.rgb[i] >= 0.0f);
    ze_asset_hdr_release(&img);
    uint8_t *bytes;
    size_t n;
    ZE_VERIFY(ze__asset_zenvmap_cook(data, size, (ze_uuid_t){{0}}, &d, &bytes, &n, &err) == ZE_OK);
    ze_tex_view_t v;
    ZE_VERIFY(ze__asset_zenvmap_read(bytes, n, &v, &err) == ZE_OK);
    ze_free(ze_mem_system_allocator(), bytes, n);
    return 0;
}
