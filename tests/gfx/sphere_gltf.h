/* Test helper: a unit UV sphere as a glTF (JSON with a base64 buffer),
 * imported and cooked by the asset module into a .zemesh the Vulkan tests
 * hand to a backend as an asset notification.
 *
 * Poles on +-Y, the seam at -Z (longitude 0 at +Z, so a vertex faces a
 * camera on +Z): positions, normals (= positions), optionally TEXCOORD_0
 * (u along the longitude, v from the north pole), uint32 indices,
 * counter-clockwise seen from outside; one material (index 0) whose
 * factors the caller gives. Header-only; every allocation from `alloc`. */
#ifndef ZE_TEST_SPHERE_GLTF_H
#define ZE_TEST_SPHERE_GLTF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

enum { SPHERE_SEG = 64, SPHERE_RINGS = 32 };

static inline void sphere_b64(const uint8_t *in, size_t n, char *out)
{
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = T[(v >> 18) & 63];
        out[o++] = T[(v >> 12) & 63];
        out[o++] = i + 1 < n ? T[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? T[v & 63] : '=';
    }
    out[o] = 0;
}

/* The glTF text (free with ze_free(alloc, json, *capacity)). Vertices are
 * 24 bytes (position, normal), 32 with uv. */
static inline char *sphere_gltf(ze_allocator_t alloc, bool uv, size_t *len, size_t *capacity)
{
    const uint32_t nv = (SPHERE_SEG + 1) * (SPHERE_RINGS + 1), ni = SPHERE_SEG * SPHERE_RINGS * 6;
    const uint32_t stride = uv ? 32 : 24, nf = stride / 4;
    size_t vbytes = (size_t)nv * stride, bytes = vbytes + (size_t)ni * 4;
    uint8_t *bin = ze_alloc(alloc, bytes, 4);
    float *v = (float *)bin;
    uint32_t *idx = (uint32_t *)(bin + vbytes);
    for (uint32_t r = 0; r <= SPHERE_RINGS; r++) {
        float th = (float)M_PI * (float)r / SPHERE_RINGS; /* from +Y */
        for (uint32_t s = 0; s <= SPHERE_SEG; s++) {
            float ph = 2.0f * (float)M_PI * (float)s / SPHERE_SEG;
            float x = sinf(th) * sinf(ph), y = cosf(th), z = sinf(th) * cosf(ph);
            float *p = &v[((size_t)r * (SPHERE_SEG + 1) + s) * nf];
            p[0] = p[3] = x;
            p[1] = p[4] = y;
            p[2] = p[5] = z;
            if (uv) {
                p[6] = (float)s / SPHERE_SEG;
                p[7] = (float)r / SPHERE_RINGS;
            }
        }
    }
    uint32_t k = 0;
    for (uint32_t r = 0; r < SPHERE_RINGS; r++)
        for (uint32_t s = 0; s < SPHERE_SEG; s++) {
            uint32_t a = r * (SPHERE_SEG + 1) + s, b = a + SPHERE_SEG + 1;
            /* outside view: a (top-left), b (below), a+1 (right) */
            idx[k++] = a, idx[k++] = b, idx[k++] = a + 1;
            idx[k++] = a + 1, idx[k++] = b, idx[k++] = b + 1;
        }
    char *b64s = ze_alloc(alloc, bytes / 3 * 4 + 8, 1);
    sphere_b64(bin, bytes, b64s);
    size_t cap = strlen(b64s) + 2048;
    char *json = ze_alloc(alloc, cap, 1);
    char uv_attr[32] = "", uv_acc[160] = "";
    if (uv) {
        snprintf(uv_attr, sizeof uv_attr, ",\"TEXCOORD_0\":3");
        snprintf(uv_acc, sizeof uv_acc,
                 ",{\"bufferView\":0,\"byteOffset\":24,\"componentType\":5126,\"count\":%u,"
                 "\"type\":\"VEC2\"}",
                 nv);
    }
    int n = snprintf(
        json, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1%s},"
        "\"indices\":2,\"material\":0}]}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.8,0.2,0.2,1],"
        "\"metallicFactor\":0.1,\"roughnessFactor\":0.5}}],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu,\"byteStride\":%u},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
        "\"min\":[-1,-1,-1],\"max\":[1,1,1]},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":%u,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"byteOffset\":0,\"componentType\":5125,\"count\":%u,"
        "\"type\":\"SCALAR\"}%s]}",
        uv_attr, bytes, b64s, vbytes, stride, vbytes, (size_t)ni * 4, nv, nv, ni, uv_acc);
    ze_free(alloc, b64s, bytes / 3 * 4 + 8);
    ze_free(alloc, bin, bytes);
    *len = (size_t)n;
    *capacity = cap;
    return json;
}

/* The sphere as a cooked mesh notification (`mesh`, viewing *bytes: free
 * with ze_free(alloc, *bytes, *size)) with up to lod_count levels of
 * detail, and its glTF material as a material notification with uuid
 * `material_uuid`. false with a message on stderr. */
static inline bool sphere_assets_lods(ze_allocator_t alloc, bool uv, uint32_t lod_count,
                                      ze_uuid_t mesh_uuid, ze_uuid_t material_uuid, uint8_t **bytes,
                                      size_t *size, ze_asset_data_t *mesh,
                                      ze_asset_data_t *material)
{
    size_t len = 0, cap = 0;
    char *json = sphere_gltf(alloc, uv, &len, &cap);
    ze_model_t *model = NULL;
    ze__asset_error_t err;
    ze_result r =
        ze__asset_import_gltf_memory(json, len, &(ze_gltf_desc_t){.alloc = alloc}, &model, &err);
    ze_free(alloc, json, cap);
    if (r != ZE_OK) {
        fprintf(stderr, "sphere glTF: %s\n", err.message);
        return false;
    }
    bool ok = ze_asset_zemesh_write_lods(model, 0, mesh_uuid, &material_uuid, lod_count, alloc,
                                         bytes, size) == ZE_OK;
    char *mtext = NULL;
    size_t msize = 0;
    memset(material, 0, sizeof *material);
    material->uuid = material_uuid;
    material->type = ZE_ASSET_TYPE_MATERIAL;
    material->generation = 1;
    if (ok &&
        ze_asset_zematerial_write(model, 0, material_uuid, NULL, alloc, &mtext, &msize) == ZE_OK) {
        ok = ze__asset_zematerial_read(mtext, msize, &material->as.material, &err) == ZE_OK;
        ze_free(alloc, mtext, msize);
    } else {
        ok = false;
    }
    ze_asset_model_destroy(model);
    memset(mesh, 0, sizeof *mesh);
    mesh->uuid = mesh_uuid;
    mesh->type = ZE_ASSET_TYPE_MESH;
    mesh->generation = 1;
    if (ok)
        ok = ze__asset_zemesh_read(*bytes, *size, &mesh->as.mesh, &err) == ZE_OK;
    if (!ok)
        fprintf(stderr, "sphere: cooking failed\n");
    return ok;
}

/* The same with one level. */
static inline bool sphere_assets(ze_allocator_t alloc, bool uv, ze_uuid_t mesh_uuid,
                                 ze_uuid_t material_uuid, uint8_t **bytes, size_t *size,
                                 ze_asset_data_t *mesh, ze_asset_data_t *material)
{
    return sphere_assets_lods(alloc, uv, 1, mesh_uuid, material_uuid, bytes, size, mesh, material);
}

#endif /* ZE_TEST_SPHERE_GLTF_H */
