/* The hash map against a direct-indexed model under arbitrary put/remove
 * sequences over a small key space (collisions and backward shifts are
 * frequent). */
#include <string.h>

#include "zengine/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t model[256];
    memset(model, -1, sizeof model);
    ze_hashmap_t m;
    ze_hashmap_init(&m, ze_mem_system_allocator(), 1, sizeof(int32_t));
    uint32_t count = 0;
    for (size_t i = 0; i + 2 <= size; i += 2) {
        uint8_t key = data[i + 1];
        if (data[i] & 1) {
            int32_t v = data[i];
            ZE_VERIFY(ze_hashmap_put(&m, &key, &v) == ZE_OK);
            count += model[key] < 0;
            model[key] = v;
        } else {
            bool removed = ze_hashmap_remove(&m, &key);
            ZE_VERIFY(removed == (model[key] >= 0));
            count -= removed;
            model[key] = -1;
        }
        ZE_VERIFY(m.count == count);
    }
    for (int k = 0; k < 256; k++) {
        uint8_t key = (uint8_t)k;
        int32_t *v = ze_hashmap_get(&m, &key);
        ZE_VERIFY(model[k] < 0 ? v == NULL : v && *v == model[k]);
    }
    ze_hashmap_free(&m);
    return 0;
}
