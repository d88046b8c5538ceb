/* Internal: persistence of the Vulkan pipeline cache (vkGetPipelineCacheData)
 * under /cache/pso/<name>.bin, behind a header of our own that is validated
 * before the driver ever sees the data.
 *
 * Blob layout (little-endian, ZE__PSO_HEADER_SIZE = 64 bytes, then the data):
 *   0  magic "ZEPSO\0\0\0"          40 u64 data size
 *   8  u32 format version (1)       48 u64 XXH3 (ze_hash64, seed 0) of the data
 *  12  u32 vendorID                 56 u64 XXH3 (seed 0) of bytes 0..55
 *  16  u32 deviceID
 *  20  u32 driverVersion
 *  24  u8  pipelineCacheUUID[16]
 * The driver validates its own data header too; ours makes a stale or torn
 * file an ordinary, logged rejection instead of trusting the driver with it.
 *
 * No Vulkan types: the device identity comes in as plain integers and bytes
 * (VkPhysicalDeviceProperties vendorID, deviceID, driverVersion,
 * pipelineCacheUUID), so this module is testable and fuzzable without a GPU.
 *
 * Names: [a-z0-9_-]+, at most ZE__PSO_NAME_MAX bytes ("pipelines").
 * Threads: any; the functions keep no state. Not a public header. */
#ifndef ZE_GFX_PSO_CACHE_H
#define ZE_GFX_PSO_CACHE_H

#include "zengine/base.h"
#include "zengine/vfs.h"

enum {
    ZE__PSO_VERSION = 1,      /* the format version written and accepted */
    ZE__PSO_HEADER_SIZE = 64, /* bytes before the data */
    ZE__PSO_UUID_SIZE = 16,   /* VK_UUID_SIZE */
    ZE__PSO_NAME_MAX = 64,    /* bytes of a cache name, without the NUL */
};

/* The device identity a blob belongs to; any difference rejects it. */
typedef struct ze__pso_device_id_t {
    uint32_t vendor, device, driver;
    uint8_t cache_uuid[ZE__PSO_UUID_SIZE];
} ze__pso_device_id_t;

/* Header + a copy of `data` (size bytes; NULL allowed when size is 0) into a
 * new block from `alloc` (required): *out, *out_size = ZE__PSO_HEADER_SIZE +
 * size; free it with ze_free(alloc, *out, *out_size). ZE_ERR_OUT_OF_MEMORY
 * when the allocator refuses (nothing logged). */
ze_result ze__pso_blob_make(const ze__pso_device_id_t *id, const void *data, size_t size,
                            ze_allocator_t alloc, uint8_t **out, size_t *out_size);

/* Checks a blob against the device. ZE_OK: *data points inside `blob`
 * (ZE__PSO_HEADER_SIZE bytes in, no copy) and *data_size is the data's
 * size. ZE_ERR_PARSE with the reason (reason may be NULL) for: too short,
 * bad magic, a corrupt header, a size mismatch (truncated or padded) and a
 * data checksum mismatch ("corrupt"); ZE_ERR_UNSUPPORTED for another format
 * version and for another vendor, device, driver or cache UUID ("written by
 * another device or driver"). Never logs, never reads outside blob[0, size). */
ze_result ze__pso_blob_validate(const ze__pso_device_id_t *id, const void *blob, size_t size,
                                const void **data, size_t *data_size, char reason[128]);

/* Loads /cache/pso/<name>.bin. *enabled tells whether persistence is on
 * (the VFS has a writable /cache); when it is off: ZE_OK with nothing loaded
 * (*data NULL, *data_size 0) — not an error. Otherwise:
 *   ZE_OK             *out_blob holds the file (read with `alloc`, {0} = the
 *                     VFS owner; free it with ze_vfs_buffer_free after the
 *                     pipeline cache is created) and *data / *data_size
 *                     point inside it;
 *   ZE_ERR_NOT_FOUND  no file yet (first run), not logged;
 *   ZE_ERR_PARSE      the blob was rejected (any validate failure): logged at
 *                     WARN with the reason, the file deleted so it is not
 *                     tried again; start with an empty cache;
 *   other             the VFS's error (already logged by the VFS);
 *   ZE_ERR_INVALID_ARG a bad name.
 * On any result but ZE_OK, *out_blob is empty and *data NULL. */
ze_result ze__pso_cache_load(ze_vfs_t *vfs, const char *name, const ze__pso_device_id_t *id,
                             ze_allocator_t alloc, ze_vfs_buffer_t *out_blob, const void **data,
                             size_t *data_size, bool *enabled);

/* Writes header + data to /cache/pso/<name>.bin atomically (creating
 * /cache/pso). Without a writable /cache: ZE_OK and nothing written (the
 * caller logs that once, at INFO). The blob is built in a transient block of
 * the system allocator (ze_mem_system_allocator), freed before returning.
 * Errors: ZE_ERR_INVALID_ARG (bad name), ZE_ERR_OUT_OF_MEMORY, or the VFS's
 * error as a ze_result (logged by the VFS). */
ze_result ze__pso_cache_save(ze_vfs_t *vfs, const char *name, const ze__pso_device_id_t *id,
                             const void *data, size_t size);

#endif /* ZE_GFX_PSO_CACHE_H */
