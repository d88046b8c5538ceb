/* KHR_draco_mesh_compression: a primitive whose attributes and indices
 * come from one Draco stream in a bufferView, decoded by Debian's libdraco
 * (draco.h) into memory of the import's store, element by element into
 * the accessors' own component types. Everything the stream says is
 * checked against the accessors before it is used: the point count
 * against each attribute accessor's count, three corners a face against
 * the index accessor's count, every corner against the points, each
 * attribute's components against its accessor's type. A stream that does
 * not decode fails with an error naming the bufferView and the accessors
 * it was to fill. The decoded data then goes through the same checks as
 * any other (bounds, min/max, finiteness, index range).
 *
 * Limits: triangles only (mode 4), with indices; an accessor filled from
 * two different streams is refused. libdraco's own allocations are outside
 * the store: the cooker's process limit caps them. */
#include <stdio.h>
#include <string.h>

#include "asset/asset_internal.h"
#include "cook/draco.h"

enum { CT_UBYTE = 5121, CT_USHORT = 5123, CT_UINT = 5125, MODE_TRIANGLES = 4 };

/* "/accessors/0 (POSITION), /accessors/3 (indices)": what the stream fills. */
static void users(json_t *map, json_t *attrs, int64_t indices, char *out, size_t cap)
{
    size_t w = 0;
    const char *key;
    json_t *val;
    out[0] = '\0';
    json_object_foreach(map, key, val)
    {
        json_t *acc = json_object_get(attrs, key);
        if (json_is_integer(acc) && w + 48 < cap)
            w += (size_t)snprintf(out + w, cap - w, "%s/accessors/%lld (%.24s)", w ? ", " : "",
                                  (long long)json_integer_value(acc), key);
    }
    if (indices >= 0 && w + 40 < cap)
        snprintf(out + w, cap - w, "%s/accessors/%lld (indices)", w ? ", " : "",
                 (long long)indices);
}

/* Room for an accessor's decoded elements, refused when another stream
 * already filled it. */
static ze_result claim(ze__gl_ctx_t *c, uint32_t index, int64_t view, uint8_t **out)
{
    ze__gl_accessor_t *a = &c->accessors[index];
    if (a->draco && a->draco_view != view)
        return ZE__GL_FAIL(c,
                           "accessor %u is filled by two Draco streams (bufferViews %lld and %lld)",
                           index, (long long)a->draco_view, (long long)view);
    size_t bytes;
    if (!ze_size_mul((size_t)a->count, a->elem_size, &bytes))
        return ze__gl_fail(c, ZE_ERR_LIMIT, "accessor %u is too large", index);
    *out = ze__astore_array(c->store, bytes ? bytes : 1, 1, 16, false);
    if (!*out)
        return ze__gl_fail(c, ZE_ERR_LIMIT,
                           "accessor %u: %u decoded elements exceed the import's memory limit",
                           index, a->count);
    return ZE_OK;
}

static void fill(ze__gl_accessor_t *a, const uint8_t *data, int64_t view)
{
    a->draco = data;
    a->draco_view = view;
    a->stride = a->elem_size;
    a->checked = false; /* the decoded data is checked, not the fallback's */
    a->f = NULL;
    a->u = NULL;
}

static ze_result attributes(ze__gl_ctx_t *c, const ze__draco_mesh_t *m, json_t *map, json_t *attrs,
                            int64_t view)
{
    uint32_t points = ze__draco_points(m);
    const char *key;
    json_t *val;
    json_object_foreach(map, key, val)
    {
        size_t mark = ze__gl_push_key(c, key);
        if (!json_is_integer(val) || json_integer_value(val) < 0 ||
            json_integer_value(val) > UINT32_MAX)
            return ZE__GL_FAIL(c, "must be a Draco attribute id (an unsigned integer)");
        uint32_t id = (uint32_t)json_integer_value(val);
        json_t *acc = json_object_get(attrs, key);
        if (!json_is_integer(acc))
            return ZE__GL_FAIL(c, "attribute %.40s is not among the primitive's attributes", key);
        uint32_t ai = (uint32_t)json_integer_value(acc); /* checked by parse_attributes */
        ze__gl_accessor_t *a = &c->accessors[ai];
        uint32_t comps = ze__draco_components(m, id);
        if (comps == 0)
            return ZE__GL_FAIL(c,
                               "Draco attribute %u is not in the stream of bufferView %lld "
                               "(accessor %u)",
                               id, (long long)view, ai);
        if (a->cols != 1 || comps != a->ncomp)
            return ZE__GL_FAIL(c, "Draco attribute %u has %u components; accessor %u is %s", id,
                               comps, ai, a->type);
        if (a->count != points)
            return ZE__GL_FAIL(c,
                               "accessor %u has %u elements; the Draco stream of bufferView "
                               "%lld decodes %u points",
                               ai, a->count, (long long)view, points);
        uint8_t *data;
        ZE__TRY(claim(c, ai, view, &data));
        if (!ze__draco_values(m, id, a->ctype, a->normalized, a->ncomp, data))
            return ZE__GL_FAIL(c,
                               "Draco attribute %u's values do not convert to accessor %u's "
                               "type (component type %u%s)",
                               id, ai, a->ctype, a->normalized ? ", normalized" : "");
        fill(a, data, view);
        ze__gl_pop(c, mark);
    }
    return ZE_OK;
}

static ze_result indices_of(ze__gl_ctx_t *c, const ze__draco_mesh_t *m, int64_t ii, int64_t view)
{
    ze__gl_accessor_t *a = &c->accessors[ii];
    uint32_t faces = ze__draco_faces(m), points = ze__draco_points(m);
    if ((uint64_t)faces * 3u != a->count)
        return ZE__GL_FAIL(c,
                           "indices accessor %lld has %u elements; the Draco stream of "
                           "bufferView %lld decodes %u triangles (%llu corners)",
                           (long long)ii, a->count, (long long)view, faces,
                           (unsigned long long)faces * 3u);
    if (a->ncomp != 1 || (a->ctype != CT_UBYTE && a->ctype != CT_USHORT && a->ctype != CT_UINT))
        return ZE__GL_FAIL(c, "indices accessor %lld must be SCALAR unsigned integers",
                           (long long)ii);
    uint32_t *corners = ze__astore_array(c->store, (size_t)faces * 3u + 1u, 4, 16, false);
    uint8_t *data;
    if (!corners)
        return ze__gl_fail(c, ZE_ERR_LIMIT,
                           "indices accessor %lld: %u triangles exceed the import's memory limit",
                           (long long)ii, faces);
    ZE__TRY(claim(c, (uint32_t)ii, view, &data));
    ze__draco_indices(m, corners);
    uint32_t max = a->ctype == CT_UBYTE ? 0xffu : a->ctype == CT_USHORT ? 0xffffu : 0xffffffffu;
    for (size_t k = 0; k < (size_t)faces * 3u; k++) {
        uint32_t v = corners[k];
        if (v >= points || v > max)
            return ZE__GL_FAIL(c,
                               "the Draco stream of bufferView %lld has corner %zu at point %u "
                               "(of %u; indices accessor %lld holds at most %u)",
                               (long long)view, k, v, points, (long long)ii, max);
        if (a->ctype == CT_UBYTE)
            data[k] = (uint8_t)v;
        else if (a->ctype == CT_USHORT)
            memcpy(data + k * 2, &(uint16_t){(uint16_t)v}, 2);
        else
            memcpy(data + k * 4, &v, 4);
    }
    fill(a, data, view);
    return ZE_OK;
}

/* A stream's header and the counts its connectivity starts with (the
 * bitstream of the KHR_draco_mesh_compression specification, version 2.2,
 * which every current encoder writes): read before libdraco sees the
 * stream, so that counts the glTF does not expect are refused before
 * libdraco sizes its tables by them. NULL, or what is wrong. */
typedef struct draco_head_t {
    uint32_t faces, vertices; /* vertices: the points (sequential), at most them (edgebreaker) */
    bool sequential;
} draco_head_t;

static bool var32(const uint8_t *p, size_t n, size_t *at, uint32_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (*at >= n)
            return false;
        uint8_t b = p[(*at)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (uint32_t)v;
            return v <= UINT32_MAX;
        }
    }
    return false;
}

static const char *draco_head(const uint8_t *p, size_t n, draco_head_t *h)
{
    if (n < 11 || memcmp(p, "DRACO", 5) != 0)
        return "not a Draco stream (no DRACO header)";
    if (p[5] != 2 || p[6] != 2)
        return "a Draco bitstream other than version 2.2";
    if (p[7] != 1)
        return "the Draco stream holds a point cloud, not a triangle mesh";
    if (p[8] > 1)
        return "an unknown Draco encoding method";
    if (p[10] & 0x80)
        return "the Draco stream holds metadata, which is not read";
    size_t at = 11;
    uint32_t symbols, splits;
    h->sequential = p[8] == 0;
    if (h->sequential)
        return var32(p, n, &at, &h->faces) && var32(p, n, &at, &h->vertices)
                   ? NULL
                   : "the Draco stream ends in its connectivity header";
    at++; /* the traversal type */
    if (!var32(p, n, &at, &h->vertices) || !var32(p, n, &at, &h->faces) || ++at > n ||
        !var32(p, n, &at, &symbols) || !var32(p, n, &at, &splits))
        return "the Draco stream ends in its connectivity header";
    if (symbols > h->faces || splits > symbols)
        return "the Draco stream's connectivity header is inconsistent";
    return NULL;
}

/* The stream's counts against the accessors, and the accessors' room
 * against the import's memory cap, before anything is decoded. */
static ze_result expect(ze__gl_ctx_t *c, const draco_head_t *h, json_t *map, json_t *attrs,
                        int64_t indices, int64_t view)
{
    const ze__gl_accessor_t *ia = &c->accessors[indices];
    uint64_t bytes = (uint64_t)ia->count * ia->elem_size;
    if ((uint64_t)h->faces * 3u != ia->count)
        return ZE__GL_FAIL(c,
                           "indices accessor %lld has %u elements; the Draco stream of "
                           "bufferView %lld decodes %u triangles",
                           (long long)indices, ia->count, (long long)view, h->faces);
    const char *key;
    json_t *val;
    json_object_foreach(map, key, val)
    {
        json_t *acc = json_object_get(attrs, key);
        if (!json_is_integer(acc))
            continue; /* named below */
        uint32_t ai = (uint32_t)json_integer_value(acc);
        const ze__gl_accessor_t *a = &c->accessors[ai];
        if (h->sequential ? a->count != h->vertices : a->count < h->vertices)
            return ZE__GL_FAIL(c,
                               "accessor %u has %u elements; the Draco stream of bufferView "
                               "%lld decodes %s%u points",
                               ai, a->count, (long long)view, h->sequential ? "" : "at least ",
                               h->vertices);
        bytes += (uint64_t)a->count * a->elem_size;
    }
    if (bytes > c->max_bytes)
        return ze__gl_fail(c, ZE_ERR_LIMIT,
                           "the Draco stream of bufferView %lld decodes %llu bytes, above the "
                           "import's memory limit",
                           (long long)view, (unsigned long long)bytes);
    return ZE_OK;
}

ze_result ze__gl_draco_primitive(ze__gl_ctx_t *c, json_t *ext, json_t *attrs, int64_t indices,
                                 uint64_t mode)
{
    size_t mark = ze__gl_push_key(c, "extensions");
    ze__gl_push_key(c, "KHR_draco_mesh_compression");
    int64_t view;
    json_t *map;
    ZE__TRY(ze__gl_get_ref(c, ext, "bufferView", true, c->nviews, "bufferView", &view));
    ZE__TRY(ze__gl_get_object(c, ext, "attributes", true, &map));
    if (mode != MODE_TRIANGLES)
        return ZE__GL_FAIL(c, "a Draco primitive must be TRIANGLES (mode 4), not mode %llu",
                           (unsigned long long)mode);
    if (indices < 0)
        return ZE__GL_FAIL(c, "a Draco primitive must have indices");
    const ze__gl_view_t *v = &c->views[view];
    if (!v->data && !c->buffers[v->buffer].data)
        return ZE__GL_FAIL(c, "bufferView %lld lies in a buffer without data", (long long)view);
    char err[160], who[400];
    draco_head_t head;
    const char *bad = draco_head(ze__gl_view_data(c, v), v->length, &head);
    if (bad) {
        users(map, attrs, indices, who, sizeof who);
        return ZE__GL_FAIL(c, "bufferView %lld: %s; %s get no data", (long long)view, bad, who);
    }
    ZE__TRY(expect(c, &head, map, attrs, indices, view));
    ze__draco_mesh_t *m = ze__draco_decode(ze__gl_view_data(c, v), v->length, err, sizeof err);
    if (!m) {
        users(map, attrs, indices, who, sizeof who);
        return ZE__GL_FAIL(c, "bufferView %lld: %s; %s get no data", (long long)view, err, who);
    }
    size_t m2 = ze__gl_push_key(c, "attributes");
    ze_result r = attributes(c, m, map, attrs, view);
    if (r == ZE_OK) {
        ze__gl_pop(c, m2);
        r = indices_of(c, m, indices, view);
    }
    ze__draco_free(m);
    if (r == ZE_OK)
        ze__gl_pop(c, mark);
    return r;
}
