/* glTF buffers, buffer views and accessors: structure, bounds and the
 * decoding of accessor data (strided, matrix-padded, normalized, sparse),
 * with the data checks of the specification: every element inside its
 * buffer, floats finite, values inside and equal to the declared min/max.
 * Every offset, stride and count is checked with overflow-safe arithmetic
 * before a byte is read. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"

enum {
    CT_BYTE = 5120,
    CT_UBYTE = 5121,
    CT_SHORT = 5122,
    CT_USHORT = 5123,
    CT_UINT = 5125,
    CT_FLOAT = 5126,
    TARGET_ARRAY = 34962,
    TARGET_ELEMENT = 34963,
};

static uint32_t component_size(uint32_t ct)
{
    switch (ct) {
    case CT_BYTE:
    case CT_UBYTE:
        return 1;
    case CT_SHORT:
    case CT_USHORT:
        return 2;
    case CT_UINT:
    case CT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------ buffers */

/* A buffer marked {"EXT_meshopt_compression": {"fallback": true}}. */
static bool fallback_buffer(ze__gl_ctx_t *c, json_t *b)
{
    if (!c->ext_meshopt)
        return false;
    json_t *e = json_object_get(json_object_get(b, "extensions"), "EXT_meshopt_compression");
    return json_is_true(json_object_get(e, "fallback"));
}

ze_result ze__gl_parse_buffers(ze__gl_ctx_t *c)
{
    c->buffers = ze__astore_array(c->store, c->nbuffers + 1u, sizeof(ze__gl_buffer_t), 8, true);
    if (!c->buffers)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "buffers");
    for (uint32_t i = 0; i < c->nbuffers; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *b;
        ZE__TRY(ze__gl_element(c, c->j_buffers, i, &b));
        ZE__TRY(ze__gl_common(c, b, NULL));
        uint64_t len;
        const char *uri;
        ZE__TRY(ze__gl_get_uint(c, b, "byteLength", true, 1, SIZE_MAX, &len, NULL));
        ZE__TRY(ze__gl_get_string(c, b, "uri", false, &uri));
        const uint8_t *data;
        size_t size;
        if (uri) {
            const char *rel, *mime;
            size_t m2 = ze__gl_push_key(c, "uri");
            ZE__TRY(ze__gl_load_uri(c, uri, false, &data, &size, &rel, &mime));
            ze__gl_pop(c, m2);
            if (size < len)
                return ZE__GL_FAIL(c, "buffer data is %zu bytes, less than its byteLength %llu",
                                   size, (unsigned long long)len);
        } else if (c->glb && i == 0 && c->glb_bin) {
            data = c->glb_bin;
            size = c->glb_bin_size;
            if (size < len)
                return ZE__GL_FAIL(c,
                                   "the GLB BIN chunk holds %zu bytes, less than the buffer's "
                                   "byteLength %llu",
                                   size, (unsigned long long)len);
            if (size - len > 3)
                return ZE__GL_FAIL(c,
                                   "the GLB BIN chunk holds %zu bytes, more than byteLength %llu "
                                   "plus 3 bytes of padding",
                                   size, (unsigned long long)len);
        } else if (fallback_buffer(c, b)) {
            /* only EXT_meshopt_compression views (decoded elsewhere) use it */
            data = NULL;
            size = (size_t)len;
        } else if (c->glb && i == 0) {
            return ZE__GL_FAIL(c, "buffer has no uri and the GLB has no BIN chunk");
        } else {
            return ZE__GL_FAIL(c, "buffer has no uri (only the first buffer of a GLB may "
                                  "omit it)");
        }
        c->buffers[i].data = data;
        c->buffers[i].size = (size_t)len;
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    return ZE_OK;
}

ze_result ze__gl_parse_views(ze__gl_ctx_t *c)
{
    c->views = ze__astore_array(c->store, c->nviews + 1u, sizeof(ze__gl_view_t), 8, true);
    if (!c->views)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "bufferViews");
    for (uint32_t i = 0; i < c->nviews; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *v;
        ZE__TRY(ze__gl_element(c, c->j_views, i, &v));
        ZE__TRY(ze__gl_common(c, v, NULL));
        int64_t buf;
        uint64_t off = 0, len, stride = 0, target = 0;
        bool has_stride, has_target;
        ZE__TRY(ze__gl_get_ref(c, v, "buffer", true, c->nbuffers, "buffer", &buf));
        ZE__TRY(ze__gl_get_uint(c, v, "byteOffset", false, 0, SIZE_MAX, &off, NULL));
        ZE__TRY(ze__gl_get_uint(c, v, "byteLength", true, 1, SIZE_MAX, &len, NULL));
        ZE__TRY(ze__gl_get_uint(c, v, "byteStride", false, 4, 252, &stride, &has_stride));
        ZE__TRY(ze__gl_get_uint(c, v, "target", false, 0, UINT32_MAX, &target, &has_target));
        if (has_stride && stride % 4 != 0) {
            ze__gl_push_key(c, "byteStride");
            return ZE__GL_FAIL(c, "byteStride %llu is not a multiple of 4",
                               (unsigned long long)stride);
        }
        if (has_target && target != TARGET_ARRAY && target != TARGET_ELEMENT) {
            ze__gl_push_key(c, "target");
            return ZE__GL_FAIL(c,
                               "target %llu is neither 34962 (ARRAY_BUFFER) nor 34963 "
                               "(ELEMENT_ARRAY_BUFFER)",
                               (unsigned long long)target);
        }
        size_t end;
        size_t bsize = c->buffers[buf].size;
        if (!ze_size_add((size_t)off, (size_t)len, &end) || end > bsize) {
            ze__gl_push_key(c, off >= bsize ? "byteOffset" : "byteLength");
            return ZE__GL_FAIL(c,
                               "bufferView (byteOffset %llu, byteLength %llu) does not fit in "
                               "buffer %lld of %zu bytes",
                               (unsigned long long)off, (unsigned long long)len, (long long)buf,
                               bsize);
        }
        ze__gl_view_t *gv = &c->views[i];
        gv->buffer = (uint32_t)buf;
        gv->offset = (size_t)off;
        gv->length = (size_t)len;
        gv->stride = (uint32_t)stride;
        gv->target = (uint32_t)target;
        gv->attr_user = -1;
        json_t *mo = NULL;
        if (c->ext_meshopt)
            ZE__TRY(ze__gl_extension(c, v, "EXT_meshopt_compression", &mo));
        if (mo)
            ZE__TRY(ze__gl_meshopt_view(c, mo, i, gv));
        else if (!c->buffers[buf].data)
            return ZE__GL_FAIL(c,
                               "reads buffer %lld, a fallback buffer without data "
                               "(EXT_meshopt_compression views only)",
                               (long long)buf);
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    return ZE_OK;
}

/* ---------------------------------------------------------------- accessors */

static bool parse_type(const char *s, uint32_t *ncomp, uint32_t *cols)
{
    static const struct {
        const char *name;
        uint32_t n, cols;
    } types[] = {{"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
                 {"MAT2", 4, 2},   {"MAT3", 9, 3}, {"MAT4", 16, 4}};
    for (size_t i = 0; i < ZE_COUNTOF(types); i++)
        if (strcmp(s, types[i].name) == 0) {
            *ncomp = types[i].n;
            *cols = types[i].cols;
            return true;
        }
    return false;
}

static const uint8_t *view_bytes(ze__gl_ctx_t *c, uint32_t view)
{
    return ze__gl_view_data(c, &c->views[view]);
}

static uint32_t read_index(const uint8_t *p, uint32_t ctype)
{
    switch (ctype) {
    case CT_UBYTE:
        return p[0];
    case CT_USHORT:
        return ze__rd_u16le(p);
    default:
        return ze__rd_u32le(p);
    }
}

/* The sparse part of accessor `a` (path: /accessors/i/sparse). */
static ze_result parse_sparse(ze__gl_ctx_t *c, json_t *sp, ze__gl_accessor_t *a)
{
    uint64_t count;
    ZE__TRY(ze__gl_get_uint(c, sp, "count", true, 1, a->count, &count, NULL));
    ZE__TRY(ze__gl_common(c, sp, NULL));
    json_t *ji, *jv;
    ZE__TRY(ze__gl_get_object(c, sp, "indices", true, &ji));
    ZE__TRY(ze__gl_get_object(c, sp, "values", true, &jv));

    /* indices */
    size_t mark = ze__gl_push_key(c, "indices");
    int64_t iview;
    uint64_t ioff = 0, ict;
    ZE__TRY(ze__gl_common(c, ji, NULL));
    ZE__TRY(ze__gl_get_ref(c, ji, "bufferView", true, c->nviews, "bufferView", &iview));
    ZE__TRY(ze__gl_get_uint(c, ji, "byteOffset", false, 0, SIZE_MAX, &ioff, NULL));
    ZE__TRY(ze__gl_get_uint(c, ji, "componentType", true, 0, UINT32_MAX, &ict, NULL));
    if (ict != CT_UBYTE && ict != CT_USHORT && ict != CT_UINT) {
        ze__gl_push_key(c, "componentType");
        return ZE__GL_FAIL(c, "sparse indices must be 5121, 5123 or 5125, not %llu",
                           (unsigned long long)ict);
    }
    const ze__gl_view_t *v = &c->views[iview];
    if (v->stride || v->target) {
        ze__gl_push_key(c, "bufferView");
        return ZE__GL_FAIL(c,
                           "bufferView %lld of sparse indices must not define byteStride or "
                           "target",
                           (long long)iview);
    }
    uint32_t isize = component_size((uint32_t)ict);
    size_t need, end;
    if ((v->offset + ioff) % isize != 0) {
        ze__gl_push_key(c, "byteOffset");
        return ZE__GL_FAIL(c, "sparse indices are not aligned to their %u-byte component", isize);
    }
    if (!ze_size_mul((size_t)count, isize, &need) || !ze_size_add((size_t)ioff, need, &end) ||
        end > v->length)
        return ZE__GL_FAIL(c,
                           "%llu sparse indices from byteOffset %llu do not fit in "
                           "bufferView %lld (%zu bytes)",
                           (unsigned long long)count, (unsigned long long)ioff, (long long)iview,
                           v->length);
    const uint8_t *idx = view_bytes(c, (uint32_t)iview) + ioff;
    uint32_t prev = 0;
    for (uint64_t k = 0; k < count; k++) {
        uint32_t ix = read_index(idx + k * isize, (uint32_t)ict);
        if (ix >= a->count)
            return ZE__GL_FAIL(c,
                               "sparse index %u (element %llu) is not below the accessor's "
                               "count %u",
                               ix, (unsigned long long)k, a->count);
        if (k > 0 && ix <= prev)
            return ZE__GL_FAIL(c,
                               "sparse indices must strictly increase (element %llu: %u "
                               "after %u)",
                               (unsigned long long)k, ix, prev);
        prev = ix;
    }
    ze__gl_pop(c, mark);

    /* values */
    mark = ze__gl_push_key(c, "values");
    int64_t vview;
    uint64_t voff = 0;
    ZE__TRY(ze__gl_common(c, jv, NULL));
    ZE__TRY(ze__gl_get_ref(c, jv, "bufferView", true, c->nviews, "bufferView", &vview));
    ZE__TRY(ze__gl_get_uint(c, jv, "byteOffset", false, 0, SIZE_MAX, &voff, NULL));
    v = &c->views[vview];
    if (v->stride || v->target) {
        ze__gl_push_key(c, "bufferView");
        return ZE__GL_FAIL(c,
                           "bufferView %lld of sparse values must not define byteStride or "
                           "target",
                           (long long)vview);
    }
    if ((v->offset + voff) % a->csize != 0) {
        ze__gl_push_key(c, "byteOffset");
        return ZE__GL_FAIL(c, "sparse values are not aligned to their %u-byte component", a->csize);
    }
    if (!ze_size_mul((size_t)count, a->elem_size, &need) ||
        !ze_size_add((size_t)voff, need, &end) || end > v->length)
        return ZE__GL_FAIL(c,
                           "%llu sparse values of %u bytes from byteOffset %llu do not fit "
                           "in bufferView %lld (%zu bytes)",
                           (unsigned long long)count, a->elem_size, (unsigned long long)voff,
                           (long long)vview, v->length);
    ze__gl_pop(c, mark);

    a->sparse_count = (uint32_t)count;
    a->sparse_index_ctype = (uint32_t)ict;
    a->sparse_indices = idx;
    a->sparse_values = view_bytes(c, (uint32_t)vview) + voff;
    return ZE_OK;
}

ze_result ze__gl_parse_accessors(ze__gl_ctx_t *c)
{
    c->accessors =
        ze__astore_array(c->store, c->naccessors + 1u, sizeof(ze__gl_accessor_t), 16, true);
    if (!c->accessors)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "accessors");
    for (uint32_t i = 0; i < c->naccessors; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ZE__TRY(ze__gl_element(c, c->j_accessors, i, &j));
        ZE__TRY(ze__gl_common(c, j, NULL));
        ze__gl_accessor_t *a = &c->accessors[i];
        int64_t view;
        uint64_t off = 0, ct, count;
        bool has_off;
        const char *type;
        ZE__TRY(ze__gl_get_ref(c, j, "bufferView", false, c->nviews, "bufferView", &view));
        ZE__TRY(ze__gl_get_uint(c, j, "byteOffset", false, 0, SIZE_MAX, &off, &has_off));
        ZE__TRY(ze__gl_get_uint(c, j, "componentType", true, 0, UINT32_MAX, &ct, NULL));
        ZE__TRY(ze__gl_get_bool(c, j, "normalized", &a->normalized));
        ZE__TRY(ze__gl_get_uint(c, j, "count", true, 1, UINT32_MAX, &count, NULL));
        ZE__TRY(ze__gl_get_string(c, j, "type", true, &type));
        if (has_off && view < 0) {
            ze__gl_push_key(c, "byteOffset");
            return ZE__GL_FAIL(c, "byteOffset must not be defined without a bufferView");
        }
        a->csize = component_size((uint32_t)ct);
        if (a->csize == 0) {
            ze__gl_push_key(c, "componentType");
            return ZE__GL_FAIL(c,
                               "componentType %llu is not one of 5120, 5121, 5122, 5123, "
                               "5125, 5126",
                               (unsigned long long)ct);
        }
        a->ctype = (uint32_t)ct;
        if (!parse_type(type, &a->ncomp, &a->cols)) {
            ze__gl_push_key(c, "type");
            return ZE__GL_FAIL(c,
                               "type '%.40s' is not one of SCALAR, VEC2, VEC3, VEC4, MAT2, "
                               "MAT3, MAT4",
                               type);
        }
        a->type = type;
        if (a->normalized && (ct == CT_FLOAT || ct == CT_UINT)) {
            ze__gl_push_key(c, "normalized");
            return ZE__GL_FAIL(c, "normalized must not be true for %s components",
                               ct == CT_FLOAT ? "FLOAT" : "UNSIGNED_INT");
        }
        a->count = (uint32_t)count;
        a->view = view;
        a->offset = (size_t)off;
        if (a->cols > 1) {
            /* Matrix columns start on 4-byte boundaries. */
            uint32_t rows = a->ncomp / a->cols;
            a->col_bytes = ZE_ALIGN_UP(rows * a->csize, 4u);
            a->elem_size = a->col_bytes * a->cols;
        } else {
            a->col_bytes = a->ncomp * a->csize;
            a->elem_size = a->col_bytes;
        }
        a->stride = a->elem_size;
        ZE__TRY(ze__gl_get_numbers(c, j, "min", a->ncomp, a->min, &a->has_min));
        ZE__TRY(ze__gl_get_numbers(c, j, "max", a->ncomp, a->max, &a->has_max));
        if (a->has_min != a->has_max) {
            ze__gl_push_key(c, a->has_min ? "min" : "max");
            return ZE__GL_FAIL(c, "min and max must be defined together");
        }
        if (view >= 0) {
            const ze__gl_view_t *v = &c->views[view];
            if (off % a->csize != 0 || (v->offset + off) % a->csize != 0) {
                ze__gl_push_key(c, "byteOffset");
                return ZE__GL_FAIL(c, "accessor data is not aligned to its %u-byte component",
                                   a->csize);
            }
            if (v->stride) {
                if (v->stride < a->elem_size)
                    return ZE__GL_FAIL(c,
                                       "bufferView %lld's byteStride %u is smaller than the "
                                       "element size %u",
                                       (long long)view, v->stride, a->elem_size);
                if (v->stride % a->csize != 0)
                    return ZE__GL_FAIL(c,
                                       "bufferView %lld's byteStride %u is not a multiple of "
                                       "the component size %u",
                                       (long long)view, v->stride, a->csize);
                a->stride = v->stride;
            }
            size_t span, end;
            if (!ze_size_mul(a->stride, (size_t)(a->count - 1), &span) ||
                !ze_size_add(span, a->elem_size, &span) || !ze_size_add(a->offset, span, &end) ||
                end > v->length)
                return ZE__GL_FAIL(c,
                                   "%u elements of %u bytes (stride %zu) from byteOffset %zu "
                                   "do not fit in bufferView %lld (%zu bytes)",
                                   a->count, a->elem_size, a->stride, a->offset, (long long)view,
                                   v->length);
        }
        json_t *sp;
        ZE__TRY(ze__gl_get_object(c, j, "sparse", false, &sp));
        if (sp) {
            size_t m2 = ze__gl_push_key(c, "sparse");
            ZE__TRY(parse_sparse(c, sp, a));
            ze__gl_pop(c, m2);
        }
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    return ZE_OK;
}

/* ---------------------------------------------------------------- decoding */

static double read_component(const uint8_t *p, uint32_t ct)
{
    switch (ct) {
    case CT_BYTE:
        return (double)(int8_t)p[0];
    case CT_UBYTE:
        return (double)p[0];
    case CT_SHORT:
        return (double)(int16_t)ze__rd_u16le(p);
    case CT_USHORT:
        return (double)ze__rd_u16le(p);
    case CT_UINT:
        return (double)ze__rd_u32le(p);
    default:
        return (double)ze__rd_f32le(p);
    }
}

static float to_float(double v, uint32_t ct, bool normalized)
{
    if (!normalized)
        return (float)v;
    switch (ct) {
    case CT_BYTE:
        return (float)fmax(v / 127.0, -1.0);
    case CT_UBYTE:
        return (float)(v / 255.0);
    case CT_SHORT:
        return (float)fmax(v / 32767.0, -1.0);
    case CT_USHORT:
        return (float)(v / 65535.0);
    default:
        return (float)v;
    }
}

/* Declared bounds as the data's type sees them: floats rounded to single
 * precision, as the specification asks. */
static double declared(const ze__gl_accessor_t *a, double v)
{
    return a->ctype == CT_FLOAT ? (double)(float)v : v;
}

/* A data error at /accessors/<index>[/<key>/<component>]. */
static ze_result data_fail(ze__gl_ctx_t *c, uint32_t index, const char *key, uint32_t component,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static ze_result data_fail(ze__gl_ctx_t *c, uint32_t index, const char *key, uint32_t component,
                           const char *fmt, ...)
{
    ze__gl_pop(c, 0);
    ze__gl_push_key(c, "accessors");
    ze__gl_push_index(c, index);
    if (key) {
        ze__gl_push_key(c, key);
        ze__gl_push_index(c, component);
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ZE__GL_FAIL(c, "%s", msg);
}

/* ---------------------------------------------------------- fast paths */

/* The general loop below costs, per component, a switch on the component
 * type, a conversion to double, a finiteness test and two compares: most of
 * an import's time on large meshes. The common cases (FLOAT data wanted as
 * floats, unsigned integers wanted as uint32; not sparse, from a
 * bufferView, strided or not) are copied instead, a chunk at a time so that the chunk is
 * still in L1/L2 when branch-free reductions the compiler vectorizes check
 * it: finiteness from the exponent bits, min/max in independent lanes. They
 * only decide whether the data is valid: on any failure the general loop
 * runs from the start and reports the first offending element and component
 * exactly as it always has. The copies need a little-endian host. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_HOST 1
#else
#define FAST_HOST 0
#endif

enum {
    FAST_CHUNK = 4096, /* components per chunk: 16 KiB of output */
};

typedef enum fast_res {
    FAST_NA,      /* not a case with a fast path */
    FAST_OK,      /* decoded and (when asked) checked: valid */
    FAST_INVALID, /* a check failed: the general loop finds and reports it */
} fast_res;

/* Element-wise copies; `size` a constant where inlined, so that memcpy
 * becomes plain moves. */
static inline __attribute__((always_inline)) void
copy_elems(uint8_t *dst, const uint8_t *src, size_t count, size_t stride, size_t size)
{
    for (size_t e = 0; e < count; e++)
        memcpy(dst + e * size, src + e * stride, size);
}

static void copy_strided(uint8_t *dst, const uint8_t *src, size_t count, size_t stride, size_t size)
{
    if (stride == size) {
        memcpy(dst, src, count * size);
        return;
    }
    switch (size) {
    case 4:
        copy_elems(dst, src, count, stride, 4);
        break;
    case 8:
        copy_elems(dst, src, count, stride, 8);
        break;
    case 12:
        copy_elems(dst, src, count, stride, 12);
        break;
    case 16:
        copy_elems(dst, src, count, stride, 16);
        break;
    default:
        copy_elems(dst, src, count, stride, size);
        break;
    }
}

/* True when none of the n floats is an infinity or a NaN (exponent bits all
 * ones: adding one to the exponent carries into the sign bit). */
static bool all_finite(const float *p, size_t n)
{
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, p + i, 4);
        acc |= (u & 0x7f800000u) + 0x00800000u;
    }
    return (acc & 0x80000000u) == 0;
}

/* Min/max per component of `count` elements of n components, folded into
 * mn/mx. For n <= 4 (inlined with a constant n) four elements make one
 * block of 4n independent lanes, which vectorizes; lanes are folded at the
 * end. The order only matters to the sign of a zero, and -0 == +0 in every
 * comparison that decides validity. */
#define MINMAX_BODY(T)                                       \
    T lmn[16], lmx[16];                                      \
    const uint32_t w = n <= 4 ? 4 : 1, lanes = n * w;        \
    for (uint32_t j = 0; j < lanes; j++) {                   \
        lmn[j] = mn[j % n];                                  \
        lmx[j] = mx[j % n];                                  \
    }                                                        \
    size_t blocks = count / w;                               \
    for (size_t b = 0; b < blocks; b++, p += lanes)          \
        for (uint32_t j = 0; j < lanes; j++) {               \
            lmn[j] = p[j] < lmn[j] ? p[j] : lmn[j];          \
            lmx[j] = p[j] > lmx[j] ? p[j] : lmx[j];          \
        }                                                    \
    for (size_t e = blocks * w; e < count; e++, p += n)      \
        for (uint32_t k = 0; k < n; k++) {                   \
            lmn[k] = p[k] < lmn[k] ? p[k] : lmn[k];          \
            lmx[k] = p[k] > lmx[k] ? p[k] : lmx[k];          \
        }                                                    \
    for (uint32_t j = 0; j < lanes; j++) {                   \
        mn[j % n] = lmn[j] < mn[j % n] ? lmn[j] : mn[j % n]; \
        mx[j % n] = lmx[j] > mx[j % n] ? lmx[j] : mx[j % n]; \
    }

static inline __attribute__((always_inline)) void minmax_f32_n(const float *p, size_t count,
                                                               uint32_t n, float *mn, float *mx)
{
    MINMAX_BODY(float)
}

static inline __attribute__((always_inline)) void
minmax_u32_n(const uint32_t *p, size_t count, uint32_t n, uint32_t *mn, uint32_t *mx)
{
    MINMAX_BODY(uint32_t)
}
#undef MINMAX_BODY

static void minmax_f32(const float *p, size_t count, uint32_t n, float *mn, float *mx)
{
    switch (n) {
    case 1:
        minmax_f32_n(p, count, 1, mn, mx);
        break;
    case 2:
        minmax_f32_n(p, count, 2, mn, mx);
        break;
    case 3:
        minmax_f32_n(p, count, 3, mn, mx);
        break;
    case 4:
        minmax_f32_n(p, count, 4, mn, mx);
        break;
    default:
        minmax_f32_n(p, count, n, mn, mx);
        break;
    }
}

static void minmax_u32(const uint32_t *p, size_t count, uint32_t n, uint32_t *mn, uint32_t *mx)
{
    switch (n) {
    case 1:
        minmax_u32_n(p, count, 1, mn, mx);
        break;
    case 2:
        minmax_u32_n(p, count, 2, mn, mx);
        break;
    case 4:
        minmax_u32_n(p, count, 4, mn, mx);
        break;
    default:
        minmax_u32_n(p, count, n, mn, mx);
        break;
    }
}

/* Elements per chunk: a multiple of 4 (whole min/max blocks). */
static size_t chunk_elems(uint32_t n)
{
    size_t per = FAST_CHUNK / n;
    return per - per % 4;
}

/* FLOAT components to floats (fout NULL: check only). */
static fast_res fast_float(const ze__gl_accessor_t *a, const uint8_t *base, float *fout, bool check)
{
    const uint32_t n = a->ncomp;
    const bool bounds = check && a->has_min;
    const size_t per = chunk_elems(n);
    float scratch[FAST_CHUNK];
    float mn[16], mx[16];
    for (uint32_t k = 0; k < n; k++) {
        mn[k] = INFINITY;
        mx[k] = -INFINITY;
    }
    for (size_t e0 = 0; e0 < a->count; e0 += per) {
        size_t cnt = a->count - e0 < per ? a->count - e0 : per;
        float *dst = fout ? fout + e0 * n : scratch;
        copy_strided((uint8_t *)dst, base + e0 * a->stride, cnt, a->stride, a->elem_size);
        if (check && !all_finite(dst, cnt * n))
            return FAST_INVALID;
        if (bounds)
            minmax_f32(dst, cnt, n, mn, mx);
    }
    if (bounds)
        for (uint32_t k = 0; k < n; k++)
            if ((double)mn[k] != declared(a, a->min[k]) || (double)mx[k] != declared(a, a->max[k]))
                return FAST_INVALID;
    return FAST_OK;
}

/* n components of `count` elements of unsigned integers to uint32. */
static void widen(uint32_t *dst, const uint8_t *src, size_t count, uint32_t n, size_t stride,
                  uint32_t ctype)
{
    const uint32_t csize = component_size(ctype);
    if (stride != (size_t)n * csize) {
        for (size_t e = 0; e < count; e++)
            for (uint32_t k = 0; k < n; k++)
                dst[e * n + k] = read_index(src + e * stride + (size_t)k * csize, ctype);
        return;
    }
    const size_t total = count * n;
    switch (ctype) {
    case CT_UBYTE:
        for (size_t i = 0; i < total; i++)
            dst[i] = src[i];
        break;
    case CT_USHORT:
        for (size_t i = 0; i < total; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            dst[i] = h;
        }
        break;
    default:
        memcpy(dst, src, total * 4);
        break;
    }
}

/* UNSIGNED_BYTE/SHORT/INT components to uint32 (uout NULL: check only).
 * Integers are always finite: only min/max are left to check. */
static fast_res fast_uint(const ze__gl_accessor_t *a, const uint8_t *base, uint32_t *uout,
                          bool check)
{
    const uint32_t n = a->ncomp;
    const bool bounds = check && a->has_min;
    if (!uout && !bounds)
        return FAST_OK;
    const size_t per = chunk_elems(n);
    uint32_t scratch[FAST_CHUNK];
    uint32_t mn[16], mx[16];
    for (uint32_t k = 0; k < n; k++) {
        mn[k] = UINT32_MAX;
        mx[k] = 0;
    }
    for (size_t e0 = 0; e0 < a->count; e0 += per) {
        size_t cnt = a->count - e0 < per ? a->count - e0 : per;
        uint32_t *dst = uout ? uout + e0 * n : scratch;
        widen(dst, base + e0 * a->stride, cnt, n, a->stride, a->ctype);
        if (bounds)
            minmax_u32(dst, cnt, n, mn, mx);
    }
    if (bounds)
        for (uint32_t k = 0; k < n; k++)
            if ((double)mn[k] != a->min[k] || (double)mx[k] != a->max[k])
                return FAST_INVALID;
    return FAST_OK;
}

ze_result ze__gl_decode(ze__gl_ctx_t *c, uint32_t index, ze__gl_out mode)
{
    ze__gl_accessor_t *a = &c->accessors[index];
    if ((mode == ZE__GL_OUT_FLOAT && a->f) || (mode == ZE__GL_OUT_UINT && a->u) ||
        (mode == ZE__GL_OUT_NONE && a->checked))
        return ZE_OK;
    if (mode == ZE__GL_OUT_UINT && a->ctype == CT_FLOAT)
        return ze__gl_fail(c, ZE_ERR_INTERNAL, "accessor %u: integers requested from floats",
                           index);
    const uint32_t n = a->ncomp;
    const bool zero_base = a->view < 0 && !a->draco;
    /* Nothing to check in an all-zero accessor (as the reference validator
       does, min/max are not compared against implicit zeros). */
    if (mode == ZE__GL_OUT_NONE && zero_base && a->sparse_count == 0) {
        a->checked = true;
        return ZE_OK;
    }
    float *fout = NULL;
    uint32_t *uout = NULL;
    if (mode != ZE__GL_OUT_NONE) {
        size_t total;
        if (!ze_size_mul((size_t)a->count, n, &total))
            return ze__gl_fail(c, ZE_ERR_LIMIT, "accessor %u is too large", index);
        void *p = ze__astore_array(c->store, total, 4, 16, zero_base);
        if (!p)
            return ze__gl_fail(c, ZE_ERR_LIMIT,
                               "accessor %u: %u elements exceed the import's memory limit", index,
                               a->count);
        if (mode == ZE__GL_OUT_FLOAT)
            fout = p;
        else
            uout = p;
    }
    const bool check = !a->checked;
    if (FAST_HOST && !zero_base && a->sparse_count == 0 && a->elem_size == n * a->csize) {
        const uint8_t *src = a->draco ? a->draco : view_bytes(c, (uint32_t)a->view) + a->offset;
        bool is_uint = a->ctype == CT_UBYTE || a->ctype == CT_USHORT || a->ctype == CT_UINT;
        fast_res fr = FAST_NA;
        if (a->ctype == CT_FLOAT && mode != ZE__GL_OUT_UINT)
            fr = fast_float(a, src, fout, check);
        else if (is_uint && mode != ZE__GL_OUT_FLOAT)
            fr = fast_uint(a, src, uout, check);
        if (fr == FAST_OK) {
            a->checked = true;
            if (fout)
                a->f = fout;
            if (uout)
                a->u = uout;
            return ZE_OK;
        }
    }
    double mn[16], mx[16];
    for (uint32_t k = 0; k < n; k++) {
        mn[k] = INFINITY;
        mx[k] = -INFINITY;
    }
    const bool is_float = a->ctype == CT_FLOAT;
    const uint32_t rows = n / a->cols;
    const uint8_t *base = zero_base  ? NULL
                          : a->draco ? a->draco
                                     : view_bytes(c, (uint32_t)a->view) + a->offset;
    const uint32_t isize = a->sparse_count ? component_size(a->sparse_index_ctype) : 0;
    /* An all-zero base with only a few substitutions: walk only those
       unless the caller wants every element written. */
    const bool sparse_only = zero_base && mode == ZE__GL_OUT_NONE;
    uint32_t next_sparse =
        a->sparse_count ? read_index(a->sparse_indices, a->sparse_index_ctype) : UINT32_MAX;
    uint32_t cursor = 0;
    const uint32_t iterations = sparse_only ? a->sparse_count : a->count;
    for (uint32_t it = 0; it < iterations; it++) {
        uint32_t e = sparse_only ? next_sparse : it;
        const uint8_t *src;
        if (e == next_sparse) {
            src = a->sparse_values + (size_t)cursor * a->elem_size;
            cursor++;
            next_sparse =
                cursor < a->sparse_count
                    ? read_index(a->sparse_indices + (size_t)cursor * isize, a->sparse_index_ctype)
                    : UINT32_MAX;
        } else if (base) {
            src = base + (size_t)e * a->stride;
        } else {
            src = NULL; /* zeros: output already zeroed */
            if (check)
                for (uint32_t k = 0; k < n; k++) {
                    mn[k] = fmin(mn[k], 0.0);
                    mx[k] = fmax(mx[k], 0.0);
                }
            continue;
        }
        for (uint32_t col = 0; col < a->cols; col++) {
            const uint8_t *cp = src + (size_t)col * a->col_bytes;
            for (uint32_t row = 0; row < rows; row++) {
                uint32_t k = col * rows + row;
                double v = read_component(cp + (size_t)row * a->csize, a->ctype);
                if (check) {
                    if (is_float && !isfinite(v))
                        return data_fail(c, index, NULL, 0,
                                         "element %u component %u is not a finite number (%g)", e,
                                         k, v);
                    if (v < mn[k])
                        mn[k] = v;
                    if (v > mx[k])
                        mx[k] = v;
                }
                if (fout)
                    fout[(size_t)e * n + k] = to_float(v, a->ctype, a->normalized);
                else if (uout)
                    uout[(size_t)e * n + k] = (uint32_t)v;
            }
        }
    }
    if (sparse_only && a->sparse_count < a->count)
        for (uint32_t k = 0; k < n; k++) {
            mn[k] = fmin(mn[k], 0.0);
            mx[k] = fmax(mx[k], 0.0);
        }
    if (check && a->has_min && (!zero_base || a->sparse_count)) {
        for (uint32_t k = 0; k < n; k++) {
            double dmin = declared(a, a->min[k]), dmax = declared(a, a->max[k]);
            if (mn[k] < dmin)
                return data_fail(c, index, "min", k,
                                 "the data holds %.9g, below the declared minimum %.9g", mn[k],
                                 dmin);
            if (mx[k] > dmax)
                return data_fail(c, index, "max", k,
                                 "the data holds %.9g, above the declared maximum %.9g", mx[k],
                                 dmax);
            if (mn[k] != dmin)
                return data_fail(c, index, "min", k,
                                 "the declared minimum %.9g is not the data's minimum %.9g", dmin,
                                 mn[k]);
            if (mx[k] != dmax)
                return data_fail(c, index, "max", k,
                                 "the declared maximum %.9g is not the data's maximum %.9g", dmax,
                                 mx[k]);
        }
    }
    a->checked = true;
    if (fout)
        a->f = fout;
    if (uout)
        a->u = uout;
    return ZE_OK;
}

ze_result ze__gl_check_all_accessors(ze__gl_ctx_t *c)
{
    for (uint32_t i = 0; i < c->naccessors; i++) {
        if (c->accessors[i].checked)
            continue;
        ze__gl_pop(c, 0);
        ze__gl_push_key(c, "accessors");
        ze__gl_push_index(c, i);
        ZE__TRY(ze__gl_decode(c, i, ZE__GL_OUT_NONE));
    }
    ze__gl_pop(c, 0);
    return ZE_OK;
}
