/* The .zemesh reader on arbitrary bytes, as they are (magic, version, size
 * and checksum checks) and again with the checksum recomputed so that
 * mutations reach the structural checks. Whatever the reader accepts must
 * be safe to walk: every submesh, every level of detail of it, and every
 * index inside the vertices. */
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"
#include "cook/cook_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const uint8_t *data, size_t size)
{
    ze_zemesh_view_t v;
    ze__asset_error_t err;
    if (ze__asset_zemesh_read(data, size, &v, &err) != ZE_OK) {
        ZE_VERIFY(err.message[0] != 0);
        return;
    }
    volatile uint32_t sink = 0;
    for (uint32_t i = 0; i < v.submesh_count; i++) {
        ze_zemesh_submesh_t s;
        ze_asset_zemesh_submesh(&v, i, &s);
        ZE_VERIFY(s.lod_count >= 1 && s.lod_count <= ZE_ZEMESH_LOD_MAX);
        for (uint32_t l = 0; l < s.lod_count; l++) {
            const ze_zemesh_lod_t *lod = &s.lods[l];
            ZE_VERIFY((uint64_t)lod->index_offset + lod->index_count <= v.index_count);
            ZE_VERIFY(l == 0 || lod->error >= s.lods[l - 1].error);
            for (uint32_t k = 0; k < lod->index_count; k++) {
                uint32_t ix = v.indices[lod->index_offset + k];
                ZE_VERIFY(ix >= s.vertex_offset && ix < s.vertex_offset + s.vertex_count);
                sink += v.vertices[(size_t)ix * v.vertex_stride + v.vertex_stride - 1];
            }
        }
    }
    (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    /* The reader wants 4-byte alignment: copy into an aligned block. */
    ze_allocator_t a = ze_mem_system_allocator();
    uint8_t *copy = ze_alloc(a, size ? size : 1, 16);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    walk(copy, size);
    if (size >= 88) {
        /* The declared size and the checksum made right. */
        uint64_t n = size;
        memcpy(copy + 72, &n, 8);
        uint64_t sum = ze_hash64(copy, size - 8, 0);
        memcpy(copy + size - 8, &sum, 8);
        walk(copy, size);
    }
    ze_free(a, copy, size ? size : 1);
    return 0;
}
