/* EXT_meshopt_compression: bufferViews whose bytes come compressed from
 * another buffer, decoded by meshoptimizer's decoders (Debian's
 * libmeshoptimizer, already the mesh writer's) into memory of the import's
 * store; every parameter checked before a decoder sees it (meshoptimizer
 * asserts on bad sizes rather than returning an error), and the decoders'
 * own input checks turn corrupted data into an error naming the view and
 * the accessors that read it. The decoded view then goes through the same
 * accessor checks as any other (bounds, min/max, finiteness, index range).
 *
 * Limits: the decoded size is count * byteStride, which must equal the
 * view's byteLength, and comes out of the import's memory cap. */
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

#include "asset/asset_internal.h"

/* "/accessors/3, /accessors/7" for the accessors reading `view` (the
 * corrupted data's users), "no accessor" when none. */
static void readers(const ze__gl_ctx_t *c, uint32_t view, char *out, size_t cap)
{
    size_t w = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < c->naccessors && w + 24 < cap; i++) {
        json_t *bv = json_object_get(json_array_get(c->j_accessors, i), "bufferView");
        if (json_is_integer(bv) && json_integer_value(bv) == (json_int_t)view)
            w += (size_t)snprintf(out + w, cap - w, "%s/accessors/%u", w ? ", " : "", i);
    }
    if (!w)
        snprintf(out, cap, "no accessor");
}

typedef enum mode_t_ { MODE_ATTRIBUTES, MODE_TRIANGLES, MODE_INDICES } mode_t_;
typedef enum filter_t_ { FILTER_NONE, FILTER_OCT, FILTER_QUAT, FILTER_EXP } filter_t_;

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

ze_result ze__gl_meshopt_view(ze__gl_ctx_t *c, json_t *ext, uint32_t index, ze__gl_view_t *gv)
{
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    size_t m0 = ze__gl_push_key(c, "extensions");
    ze__gl_push_key(c, "EXT_meshopt_compression");
    int64_t buf;
    uint64_t off = 0, len, stride, count;
    const char *ms, *fs = NULL;
    ZE__TRY(ze__gl_get_ref(c, ext, "buffer", true, c->nbuffers, "buffer", &buf));
    ZE__TRY(ze__gl_get_uint(c, ext, "byteOffset", false, 0, SIZE_MAX, &off, NULL));
    ZE__TRY(ze__gl_get_uint(c, ext, "byteLength", true, 1, SIZE_MAX, &len, NULL));
    ZE__TRY(ze__gl_get_uint(c, ext, "byteStride", true, 1, 256, &stride, NULL));
    ZE__TRY(ze__gl_get_uint(c, ext, "count", true, 1, UINT32_MAX, &count, NULL));
    ZE__TRY(ze__gl_get_string(c, ext, "mode", true, &ms));
    ZE__TRY(ze__gl_get_string(c, ext, "filter", false, &fs));
    int mode = pick(ms, modes, 3), filter = fs ? pick(fs, filters, 4) : FILTER_NONE;
    if (mode < 0)
        return ZE__GL_FAIL(c, "mode '%.40s' is none of ATTRIBUTES, TRIANGLES, INDICES", ms);
    if (filter < 0)
        return ZE__GL_FAIL(c, "filter '%.40s' is none of NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL",
                           fs);
    const ze__gl_buffer_t *src = &c->buffers[buf];
    size_t end;
    if (!src->data)
        return ZE__GL_FAIL(c,
                           "buffer %lld holds no data (a fallback buffer), so no compressed "
                           "stream either",
                           (long long)buf);
    if (!ze_size_add((size_t)off, (size_t)len, &end) || end > src->size)
        return ZE__GL_FAIL(c,
                           "the compressed stream (byteOffset %llu, byteLength %llu) does not fit "
                           "in buffer %lld of %zu bytes",
                           (unsigned long long)off, (unsigned long long)len, (long long)buf,
                           src->size);
    if (mode == MODE_ATTRIBUTES && stride % 4 != 0)
        return ZE__GL_FAIL(c, "ATTRIBUTES need a byteStride that is a multiple of 4, not %llu",
                           (unsigned long long)stride);
    if (mode != MODE_ATTRIBUTES && stride != 2 && stride != 4)
        return ZE__GL_FAIL(c, "%s need a byteStride of 2 or 4, not %llu", ms,
                           (unsigned long long)stride);
    if (mode == MODE_TRIANGLES && count % 3 != 0)
        return ZE__GL_FAIL(c, "TRIANGLES need a count that is a multiple of 3, not %llu",
                           (unsigned long long)count);
    if (filter != FILTER_NONE &&
        (mode != MODE_ATTRIBUTES || (filter == FILTER_OCT && stride != 4 && stride != 8) ||
         (filter == FILTER_QUAT && stride != 8)))
        return ZE__GL_FAIL(c, "filter %s does not fit mode %s with byteStride %llu", fs, ms,
                           (unsigned long long)stride);
    size_t total;
    if (!ze_size_mul((size_t)count, (size_t)stride, &total) || total != gv->length)
        return ZE__GL_FAIL(c, "count %llu x byteStride %llu is not the bufferView's byteLength %zu",
                           (unsigned long long)count, (unsigned long long)stride, gv->length);
    uint8_t *out = ze__astore_zero(c->store, total, 16);
    if (!out)
        return ze__gl_fail(c, ZE_ERR_LIMIT, "%zu decoded bytes exceed the import's memory limit",
                           total);
    const uint8_t *in = src->data + off;
    int rc;
    const char *fn;
    if (mode == MODE_ATTRIBUTES) {
        fn = "meshopt_decodeVertexBuffer";
        rc = meshopt_decodeVertexBuffer(out, (size_t)count, (size_t)stride, in, (size_t)len);
    } else if (mode == MODE_TRIANGLES) {
        fn = "meshopt_decodeIndexBuffer";
        rc = meshopt_decodeIndexBuffer(out, (size_t)count, (size_t)stride, in, (size_t)len);
    } else {
        fn = "meshopt_decodeIndexSequence";
        rc = meshopt_decodeIndexSequence(out, (size_t)count, (size_t)stride, in, (size_t)len);
    }
    if (rc != 0) {
        char who[160];
        readers(c, index, who, sizeof who);
        return ZE__GL_FAIL(c, "corrupted %s data (%s returned %d), read by %s", ms, fn, rc, who);
    }
    if (filter == FILTER_OCT)
        meshopt_decodeFilterOct(out, (size_t)count, (size_t)stride);
    else if (filter == FILTER_QUAT)
        meshopt_decodeFilterQuat(out, (size_t)count, (size_t)stride);
    else if (filter == FILTER_EXP)
        meshopt_decodeFilterExp(out, (size_t)count, (size_t)stride);
    gv->data = out;
    ze__gl_pop(c, m0);
    return ZE_OK;
}
