/* Pipeline-cache blobs: our header around vkGetPipelineCacheData's bytes,
 * validated before the driver sees them, and their load/save under
 * /cache/pso/. See gfx/pso_cache.h for the layout. The header is written and
 * read byte by byte (little-endian), so no struct padding or host byte order
 * reaches the file. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gfx/pso_cache.h"
#include "zengine/mem.h"

#define LOG_CH  "gfx"
#define PSO_DIR "/cache/pso"

static const uint8_t MAGIC[8] = {'Z', 'E', 'P', 'S', 'O', 0, 0, 0};

enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 8,
    OFF_VENDOR = 12,
    OFF_DEVICE = 16,
    OFF_DRIVER = 20,
    OFF_UUID = 24,
    OFF_DATA_SIZE = 40,
    OFF_DATA_HASH = 48,
    OFF_HEADER_HASH = 56,
};

_Static_assert(OFF_HEADER_HASH + 8 == ZE__PSO_HEADER_SIZE, "header layout");
_Static_assert(OFF_UUID + ZE__PSO_UUID_SIZE == OFF_DATA_SIZE, "header layout");

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

ze_result ze__pso_blob_make(const ze__pso_device_id_t *id, const void *data, size_t size,
                            ze_allocator_t alloc, uint8_t **out, size_t *out_size)
{
    ZE_CHECK(id && (data || size == 0) && alloc.fn && out && out_size, ZE_ERR_INVALID_ARG);
    *out = NULL;
    *out_size = 0;
    ZE_CHECK(size <= SIZE_MAX - ZE__PSO_HEADER_SIZE, ZE_ERR_INVALID_ARG);
    size_t total = ZE__PSO_HEADER_SIZE + size;
    uint8_t *b = ze_alloc(alloc, total, 16);
    if (!b)
        return ZE_ERR_OUT_OF_MEMORY;
    memcpy(b + OFF_MAGIC, MAGIC, sizeof MAGIC);
    put_u32(b + OFF_VERSION, ZE__PSO_VERSION);
    put_u32(b + OFF_VENDOR, id->vendor);
    put_u32(b + OFF_DEVICE, id->device);
    put_u32(b + OFF_DRIVER, id->driver);
    memcpy(b + OFF_UUID, id->cache_uuid, ZE__PSO_UUID_SIZE);
    put_u64(b + OFF_DATA_SIZE, (uint64_t)size);
    put_u64(b + OFF_DATA_HASH, ze_hash64(data, size, 0));
    put_u64(b + OFF_HEADER_HASH, ze_hash64(b, OFF_HEADER_HASH, 0));
    if (size)
        memcpy(b + ZE__PSO_HEADER_SIZE, data, size);
    *out = b;
    *out_size = total;
    return ZE_OK;
}

static ze_result reject(char *reason, ze_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ze_result reject(char *reason, ze_result r, const char *fmt, ...)
{
    if (reason) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, 128, fmt, ap);
        va_end(ap);
    }
    return r;
}

ze_result ze__pso_blob_validate(const ze__pso_device_id_t *id, const void *blob, size_t size,
                                const void **data, size_t *data_size, char reason[128])
{
    ZE_CHECK(id && (blob || size == 0) && data && data_size, ZE_ERR_INVALID_ARG);
    *data = NULL;
    *data_size = 0;
    if (reason)
        reason[0] = '\0';
    const uint8_t *b = blob;
    if (size < ZE__PSO_HEADER_SIZE)
        return reject(reason, ZE_ERR_PARSE, "too short: %zu bytes, the header alone is %d", size,
                      ZE__PSO_HEADER_SIZE);
    if (memcmp(b + OFF_MAGIC, MAGIC, sizeof MAGIC) != 0)
        return reject(reason, ZE_ERR_PARSE, "bad magic (not a ZEPSO pipeline cache)");
    uint32_t version = get_u32(b + OFF_VERSION);
    if (version != ZE__PSO_VERSION)
        return reject(reason, ZE_ERR_UNSUPPORTED, "format version %u, this build reads %d", version,
                      ZE__PSO_VERSION);
    if (get_u64(b + OFF_HEADER_HASH) != ze_hash64(b, OFF_HEADER_HASH, 0))
        return reject(reason, ZE_ERR_PARSE, "corrupt header (checksum mismatch)");
    uint32_t vendor = get_u32(b + OFF_VENDOR), device = get_u32(b + OFF_DEVICE);
    uint32_t driver = get_u32(b + OFF_DRIVER);
    if (vendor != id->vendor || device != id->device || driver != id->driver)
        return reject(reason, ZE_ERR_UNSUPPORTED,
                      "written by another device or driver (%x:%x driver %x; this is %x:%x "
                      "driver %x)",
                      vendor, device, driver, id->vendor, id->device, id->driver);
    if (memcmp(b + OFF_UUID, id->cache_uuid, ZE__PSO_UUID_SIZE) != 0)
        return reject(reason, ZE_ERR_UNSUPPORTED,
                      "written by another device or driver (other pipeline cache uuid)");
    uint64_t want = get_u64(b + OFF_DATA_SIZE);
    uint64_t have = (uint64_t)(size - ZE__PSO_HEADER_SIZE);
    if (want != have)
        return reject(reason, ZE_ERR_PARSE, "%s: header says %llu data bytes, file has %llu",
                      want > have ? "truncated" : "padded", (unsigned long long)want,
                      (unsigned long long)have);
    const uint8_t *d = b + ZE__PSO_HEADER_SIZE;
    if (get_u64(b + OFF_DATA_HASH) != ze_hash64(d, (size_t)have, 0))
        return reject(reason, ZE_ERR_PARSE, "corrupt data (checksum mismatch)");
    *data = d;
    *data_size = (size_t)have;
    return ZE_OK;
}

/* "/cache/pso/<name>.bin" into out; false for a name outside [a-z0-9_-]+. */
static bool pso_path(const char *name, char out[ZE__PSO_NAME_MAX + 32])
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > ZE__PSO_NAME_MAX) {
        ZE_LOG_ERROR(LOG_CH, "pipeline cache name '%.80s': 1 to %d characters of [a-z0-9_-]",
                     name ? name : "(null)", ZE__PSO_NAME_MAX);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            ZE_LOG_ERROR(LOG_CH, "pipeline cache name '%.80s': only [a-z0-9_-] allowed", name);
            return false;
        }
    }
    snprintf(out, ZE__PSO_NAME_MAX + 32, PSO_DIR "/%s.bin", name);
    return true;
}

ze_result ze__pso_cache_load(ze_vfs_t *vfs, const char *name, const ze__pso_device_id_t *id,
                             ze_allocator_t alloc, ze_vfs_buffer_t *out_blob, const void **data,
                             size_t *data_size, bool *enabled)
{
    ZE_CHECK(vfs && id && out_blob && data && data_size && enabled, ZE_ERR_INVALID_ARG);
    memset(out_blob, 0, sizeof *out_blob);
    *data = NULL;
    *data_size = 0;
    *enabled = ze_vfs_cache_enabled(vfs);
    char path[ZE__PSO_NAME_MAX + 32];
    if (!pso_path(name, path))
        return ZE_ERR_INVALID_ARG;
    if (!*enabled)
        return ZE_OK;
    ze_vfs_buffer_t buf;
    ze_result e = ze_vfs_read_file(vfs, path, alloc, &buf);
    if (e == ZE_ERR_NOT_FOUND)
        return ZE_ERR_NOT_FOUND;
    if (e)
        return e;
    char reason[128];
    ze_result r = ze__pso_blob_validate(id, buf.data, buf.size, data, data_size, reason);
    if (r != ZE_OK) {
        ze_vfs_buffer_free(&buf);
        ZE_LOG_WARN(LOG_CH, "pipeline cache '%s' rejected: %s; starting with an empty cache", path,
                    reason);
        ze_vfs_delete(vfs, path); /* not tried again; a failure is logged by the VFS */
        return ZE_ERR_PARSE;
    }
    *out_blob = buf;
    return ZE_OK;
}

ze_result ze__pso_cache_save(ze_vfs_t *vfs, const char *name, const ze__pso_device_id_t *id,
                             const void *data, size_t size)
{
    ZE_CHECK(vfs && id && (data || size == 0), ZE_ERR_INVALID_ARG);
    char path[ZE__PSO_NAME_MAX + 32];
    if (!pso_path(name, path))
        return ZE_ERR_INVALID_ARG;
    if (!ze_vfs_cache_enabled(vfs))
        return ZE_OK;
    ze_result e = ze_vfs_mkdirs(vfs, PSO_DIR);
    if (e)
        return e;
    /* Transient (one save, at shutdown or on demand): the system allocator,
     * as this function has no owner to charge. */
    ze_allocator_t sys = ze_mem_system_allocator();
    uint8_t *blob;
    size_t blob_size;
    ze_result r = ze__pso_blob_make(id, data, size, sys, &blob, &blob_size);
    if (r != ZE_OK) {
        ZE_LOG_ERROR(LOG_CH, "pipeline cache '%s': no memory for %zu bytes", path,
                     size + ZE__PSO_HEADER_SIZE);
        return r;
    }
    e = ze_vfs_write_file(vfs, path, blob, blob_size);
    ze_free(sys, blob, blob_size);
    return e ? e : ZE_OK;
}
