/* EXT_meshopt_compression through the glTF importer: the input is a
 * header and a compressed stream, placed in a glTF built here (a data: URI
 * buffer holding three positions and the stream, a fallback buffer, a view
 * decoded from the stream and read by a COLOR_0 or an indices accessor).
 * Header: byte 0 = mode (bits 0-1: ATTRIBUTES, TRIANGLES, INDICES, or an
 * unknown one) | filter << 2 (NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL);
 * byte 1 = byteStride (4 * (1 + b % 8) for attributes, 2 or 4 by the low
 * bit for indices, the raw byte when bit 7 is set); bytes 2-3 = count
 * (little-endian, 0 kept). Whatever imports must cook (the oracle of
 * fuzz_gltf); the parameter checks must keep meshoptimizer's own
 * assertions from ever firing. */
#include <stdio.h>
#include <string.h>

#include "gltf_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_log_set_level(ZE_LOG_OFF);
    if (size < 4 || size > 65536)
        return 0;
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES", "POINTS"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    int mode = data[0] & 3, filter = data[0] >> 2 & 3;
    uint32_t stride = data[1] & 0x80 ? data[1] & 0x7f
                      : mode == 0    ? 4u * (1u + data[1] % 8u)
                                     : (data[1] & 1 ? 4u : 2u);
    uint32_t count = (uint32_t)data[2] | (uint32_t)data[3] << 8;
    const uint8_t *stream = data + 4;
    size_t slen = size - 4;
    /* buffer 0: three positions, then the stream */
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint8_t *raw = ze_mem_sys_alloc(36 + slen + 1);
    char *b = ze_mem_sys_alloc((36 + slen + 3) / 3 * 4 + 1);
    char *json = ze_mem_sys_alloc((36 + slen + 3) / 3 * 4 + 4096);
    if (!raw || !b || !json)
        return 0;
    memcpy(raw, pos, 36);
    if (slen)
        memcpy(raw + 36, stream, slen);
    size_t bn = oracle_base64(raw, 36 + slen, b);
    b[bn] = '\0';
    size_t decoded = (size_t)count * stride;
    char user[256];
    if (mode == 0)
        snprintf(user, sizeof user,
                 "{\"bufferView\":2,\"componentType\":5121,\"normalized\":true,\"count\":3,"
                 "\"type\":\"VEC4\"}");
    else
        snprintf(user, sizeof user,
                 "{\"bufferView\":2,\"componentType\":%u,\"count\":%u,\"type\":\"SCALAR\"}",
                 stride == 4 ? 5125u : 5123u, count);
    /* an ATTRIBUTES view is a vertex view: strided like its elements */
    char vstride[32] = "";
    if (mode == 0 && stride >= 4 && stride <= 252)
        snprintf(vstride, sizeof vstride, ",\"byteStride\":%u", stride);
    size_t cap = (36 + slen + 3) / 3 * 4 + 4096;
    int n = snprintf(
        json, cap,
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
        "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
        "{\"byteLength\":%zu,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteLength\":4},"
        "{\"buffer\":1,\"byteLength\":%zu%s,\"extensions\":{\"EXT_meshopt_compression\":{"
        "\"buffer\":0,\"byteOffset\":36,\"byteLength\":%zu,\"byteStride\":%u,\"count\":%u,"
        "\"mode\":\"%s\",\"filter\":\"%s\"}}}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]},%s],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0%s}%s}]}]}",
        36 + slen, b, decoded ? decoded : 1, decoded ? decoded : 1, vstride, slen ? slen : 1,
        stride, count, modes[mode], filters[filter], user, mode == 0 ? ",\"COLOR_0\":1" : "",
        mode == 0 ? "" : ",\"indices\":1");
    if (n > 0)
        gltf_oracle_check((const uint8_t *)json, (size_t)n);
    ze_mem_sys_free(json);
    ze_mem_sys_free(b);
    ze_mem_sys_free(raw);
    return 0;
}
