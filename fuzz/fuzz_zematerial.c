/* The .zematerial reader on arbitrary text: it accepts or rejects with a
 * message, never crashes; what it accepts is within the documented
 * ranges. */
#include <math.h>
#include <string.h>

#include "zengine/asset.h"
#include "cook/cook_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    ze_zematerial_t m;
    ze__asset_error_t err;
    if (ze__asset_zematerial_read(data, size, &m, &err) != ZE_OK) {
        ZE_VERIFY(err.message[0] != 0);
        return 0;
    }
    ZE_VERIFY(m.metallic_factor >= 0.0f && m.metallic_factor <= 1.0f);
    ZE_VERIFY(m.roughness_factor >= 0.0f && m.roughness_factor <= 1.0f);
    ZE_VERIFY(m.alpha_mode <= ZE_ALPHA_BLEND);
    ZE_VERIFY(memchr(m.name, 0, sizeof m.name) != NULL);
    ZE_VERIFY(!m.base_color.present || m.base_color.texcoord < 64);
    return 0;
}
