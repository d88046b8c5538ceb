/* The glTF importer on GLB containers. Each input is imported as it is
 * (header and chunk checks) and again with its header fixed up (magic,
 * version 2, length = size) so that mutations reach the chunk table, the
 * JSON and the BIN buffer. Whatever imports must cook (see fuzz_gltf.c). */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"

#include "gltf_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    gltf_oracle_check(data, size);
    if (size < 12 || size > ZE_MIB(1))
        return 0;
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *copy = ze_alloc(a, size, 16);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    const uint32_t hdr[3] = {0x46546c67u, 2u, (uint32_t)size};
    memcpy(copy, hdr, sizeof hdr);
    gltf_oracle_check(copy, size);
    ze_free(a, copy, size);
    return 0;
}
