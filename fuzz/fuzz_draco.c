/* KHR_draco_mesh_compression through the glTF importer: the input is a
 * header and a Draco stream, placed in a glTF built here (a data: URI
 * buffer holding the stream, a primitive whose POSITION, optional NORMAL
 * and indices accessors come from it). Header: byte 0 = bit 0: a NORMAL
 * (Draco attribute 1) too, bits 1-2: the index component type (UNSIGNED_
 * BYTE, UNSIGNED_SHORT, UNSIGNED_INT, or FLOAT, which must be refused),
 * bit 3: POSITION as normalized UNSIGNED_SHORT instead of FLOAT (the seeds'
 * tetrahedron spans [0, 1], declared as such); bytes 1-2
 * = the point count (little-endian, 0 kept); byte 3 = the triangle count.
 * Whatever imports must cook (the oracle of fuzz_gltf); libdraco must
 * never read outside the stream, and what it decodes is checked like any
 * other data. */
#include <stdio.h>
#include <string.h>

#include "gltf_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    if (size < 5 || size > 65536)
        return 0;
    static const unsigned index_types[] = {5121, 5123, 5125, 5126};
    bool normal = data[0] & 1, short_pos = data[0] & 8;
    unsigned itype = index_types[data[0] >> 1 & 3];
    unsigned points = (unsigned)data[1] | (unsigned)data[2] << 8, faces = data[3];
    const uint8_t *stream = data + 4;
    size_t slen = size - 4;
    char *b = ze_mem_sys_alloc((slen + 2) / 3 * 4 + 1);
    size_t cap = (slen + 2) / 3 * 4 + 4096;
    char *json = ze_mem_sys_alloc(cap);
    if (!b || !json)
        return 0;
    size_t bn = oracle_base64(stream, slen, b);
    b[bn] = '\0';
    char nrm_acc[160] = "", nrm_attr[32] = "", nrm_id[32] = "";
    if (normal) {
        snprintf(nrm_acc, sizeof nrm_acc,
                 ",{\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}", points ? points : 1);
        snprintf(nrm_attr, sizeof nrm_attr, ",\"NORMAL\":2");
        snprintf(nrm_id, sizeof nrm_id, ",\"NORMAL\":1");
    }
    int n = snprintf(
        json, cap,
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"KHR_draco_mesh_compression\"%s],"
        "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"%s],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
        "\"accessors\":[{\"componentType\":%u%s,\"count\":%u,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[%s]},"
        "{\"componentType\":%u,\"count\":%u,\"type\":\"SCALAR\"}%s],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0%s},\"indices\":1,"
        "\"extensions\":{\"KHR_draco_mesh_compression\":{\"bufferView\":0,"
        "\"attributes\":{\"POSITION\":0%s}}}}]}]}",
        short_pos ? ",\"KHR_mesh_quantization\"" : "",
        short_pos ? ",\"KHR_mesh_quantization\"" : "", slen, b, slen, short_pos ? 5123u : 5126u,
        short_pos ? ",\"normalized\":true" : "", points ? points : 1,
        short_pos ? "65535,65535,65535" : "1,1,1", itype, faces ? faces * 3u : 3u, nrm_acc,
        nrm_attr, nrm_id);
    if (n > 0 && (size_t)n < cap)
        gltf_oracle_check((const uint8_t *)json, (size_t)n);
    ze_mem_sys_free(json);
    ze_mem_sys_free(b);
    return 0;
}
