/* Pipeline-cache blob validation (gfx/pso_cache.h) on arbitrary bytes:
 * never crashes or reads outside the input; a rejection always says why;
 * whatever is accepted points inside the input and is exactly the blob that
 * ze__pso_blob_make writes for that data (the format has one encoding).
 * Seeds in corpus/pso_blob/ are blobs for FUZZ_DEV below: a valid one, one
 * from another driver, a truncated one. */
#include <string.h>

#include "gfx/pso_cache.h"
#include "zengine/mem.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const ze__pso_device_id_t FUZZ_DEV = {
    .vendor = 0x10de,
    .device = 0x2335,
    .driver = 0x8a5a4000,
    .cache_uuid = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ze_log_set_level(ZE_LOG_OFF);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const void *payload;
    size_t payload_size;
    char reason[128];
    ze_result r = ze__pso_blob_validate(&FUZZ_DEV, data, size, &payload, &payload_size, reason);
    if (r != ZE_OK) {
        ZE_VERIFY(r == ZE_ERR_PARSE || r == ZE_ERR_UNSUPPORTED);
        ZE_VERIFY(reason[0] != '\0' && memchr(reason, '\0', 128) != NULL);
        ZE_VERIFY(payload == NULL && payload_size == 0);
        return 0;
    }
    ZE_VERIFY(payload == data + ZE__PSO_HEADER_SIZE);
    ZE_VERIFY(payload_size == size - ZE__PSO_HEADER_SIZE);
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *again;
    size_t again_size;
    ZE_VERIFY(ze__pso_blob_make(&FUZZ_DEV, payload, payload_size, a, &again, &again_size) == ZE_OK);
    ZE_VERIFY(again_size == size && memcmp(again, data, size) == 0);
    ze_free(a, again, again_size);
    return 0;
}
