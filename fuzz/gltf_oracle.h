/* The oracle shared by the glTF fuzz targets (fuzz_gltf.c, fuzz_glb.c,
 * fuzz_meshopt.c, fuzz_draco.c): whatever imports must
 * cook. Every mesh with triangles writes a .zemesh that our reader accepts,
 * every material a .zematerial that reads back; a refused input gives one
 * error line and no model. Included by each of them (not a target itself:
 * fuzz/CMakeLists.txt builds only fuzz_*.c). */
#ifndef ZE_FUZZ_GLTF_ORACLE_H
#define ZE_FUZZ_GLTF_ORACLE_H

#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

/* Standard base64 of n bytes into out (4 per 3, padded): a data: URI
 * buffer of the glTF a fuzz target builds. Returns the characters written. */
static inline size_t oracle_base64(const uint8_t *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t w = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[w++] = t[v >> 18 & 63];
        out[w++] = t[v >> 12 & 63];
        out[w++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[w++] = i + 2 < n ? t[v & 63] : '=';
    }
    return w;
}

static void gltf_oracle_check(const uint8_t *data, size_t size)
{
    ze_allocator_t a = ze_mem_system_allocator();
    ze_gltf_desc_t desc = {.alloc = a, .max_bytes = ZE_MIB(64)};
    ze_model_t *m = NULL;
    ze__asset_error_t err;
    ze_result r = ze__asset_import_gltf_memory(data, size, &desc, &m, &err);
    if (r != ZE_OK) {
        ZE_VERIFY(m == NULL && err.message[0] != 0 && !strchr(err.message, '\n'));
        return;
    }
    ze_uuid_t ids[64];
    memset(ids, 0, sizeof ids);
    for (uint32_t i = 0; i < 64; i++)
        ids[i].bytes[0] = (uint8_t)i;
    /* Uuid tables sized for the model (at most 64 of each in the fuzzer's
       small inputs; larger models skip the cooking step). */
    if (m->material_count <= 64 && m->texture_count <= 64) {
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            uint8_t *bytes;
            size_t n;
            r = ze_asset_zemesh_write(m, i, ids[0], ids, a, &bytes, &n);
            if (r == ZE_ERR_NOT_FOUND)
                continue;
            ZE_VERIFY(r == ZE_OK);
            ze_zemesh_view_t v;
            ZE_VERIFY(ze__asset_zemesh_read(bytes, n, &v, &err) == ZE_OK);
            ze_free(a, bytes, n);
        }
        for (uint32_t i = 0; i < m->material_count; i++) {
            char *text;
            size_t n;
            ZE_VERIFY(ze_asset_zematerial_write(m, i, ids[1], ids, a, &text, &n) == ZE_OK);
            ze_zematerial_t mat;
            ZE_VERIFY(ze__asset_zematerial_read(text, n, &mat, &err) == ZE_OK);
            ze_free(a, text, n);
        }
    }
    ze_asset_model_destroy(m);
}

#endif
