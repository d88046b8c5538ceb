/* The glTF importer on GLB containers. Each input is imported as it is
 * (header and chunk checks) and again with its header fixed up (magic,
 * version 2, length = size) so that mutations reach the chunk table, the
 * JSON and the BIN buffer. Whatever imports must cook (see fuzz_gltf.c). */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* The same oracle as fuzz_gltf.c, kept in one file per target. */
static void check(const uint8_t *data, size_t size)
{
    ze_allocator_t a = ze_mem_system_allocator();
    ze_gltf_desc_t desc = {.alloc = a, .max_bytes = ZE_MIB(64)};
    ze_model_t *m = NULL;
    ze_asset_error_t err;
    ze_result r = ze_asset_import_gltf_memory(data, size, &desc, &m, &err);
    if (r != ZE_OK) {
        ZE_VERIFY(m == NULL && err.message[0] != 0 && !strchr(err.message, '\n'));
        return;
    }
    ze_uuid_t ids[64];
    memset(ids, 0, sizeof ids);
    if (m->material_count <= 64 && m->texture_count <= 64) {
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            uint8_t *bytes;
            size_t n;
            r = ze_asset_zemesh_write(m, i, ids[0], ids, a, &bytes, &n);
            if (r == ZE_ERR_NOT_FOUND)
                continue;
            ZE_VERIFY(r == ZE_OK);
            ze_zemesh_view_t v;
            ZE_VERIFY(ze_asset_zemesh_read(bytes, n, &v, &err) == ZE_OK);
            ze_free(a, bytes, n);
        }
        for (uint32_t i = 0; i < m->material_count; i++) {
            char *text;
            size_t n;
            ZE_VERIFY(ze_asset_zematerial_write(m, i, ids[1], ids, a, &text, &n) == ZE_OK);
            ze_zematerial_t mat;
            ZE_VERIFY(ze_asset_zematerial_read(text, n, &mat, &err) == ZE_OK);
            ze_free(a, text, n);
        }
    }
    ze_asset_model_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    check(data, size);
    if (size < 12 || size > ZE_MIB(1))
        return 0;
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *copy = ze_alloc(a, size, 16);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    const uint32_t hdr[3] = {0x46546c67u, 2u, (uint32_t)size};
    memcpy(copy, hdr, sizeof hdr);
    check(copy, size);
    ze_free(a, copy, size);
    return 0;
}
