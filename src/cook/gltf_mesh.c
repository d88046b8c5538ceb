/* glTF meshes and primitives: attribute semantics and their accessor types
 * (with KHR_mesh_quantization when the file uses it), equal counts, the
 * vertex-attribute layout rules, index accessors (range, restart values),
 * topology counts, morph targets; then the decoded streams of triangle
 * primitives, with strips and fans converted to triangle lists. Points and
 * lines (and primitives without POSITION) are validated, counted as
 * skipped and carry no data. */
#include <math.h>

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
    MAX_SETS = 64, /* TEXCOORD_n etc.: n below this (sets must be contiguous) */
};

/* Tolerances of the unit-length checks: quantized normals (8-bit) are off
 * by up to ~0.007. */
#define UNIT_TOLERANCE   0.01
#define WEIGHT_TOLERANCE 0.01

typedef enum sem_kind {
    SEM_POSITION,
    SEM_NORMAL,
    SEM_TANGENT,
    SEM_TEXCOORD,
    SEM_COLOR,
    SEM_JOINTS,
    SEM_WEIGHTS,
    SEM_CUSTOM,
    SEM_SETS = 4, /* TEXCOORD, COLOR, JOINTS, WEIGHTS carry a set index */
} sem_kind;

static bool parse_semantic(const char *key, sem_kind *kind, uint32_t *set)
{
    static const struct {
        const char *name;
        sem_kind kind;
    } plain[] = {{"POSITION", SEM_POSITION}, {"NORMAL", SEM_NORMAL}, {"TANGENT", SEM_TANGENT}};
    static const struct {
        const char *prefix;
        sem_kind kind;
    } sets[] = {{"TEXCOORD_", SEM_TEXCOORD},
                {"COLOR_", SEM_COLOR},
                {"JOINTS_", SEM_JOINTS},
                {"WEIGHTS_", SEM_WEIGHTS}};
    *set = 0;
    for (size_t i = 0; i < ZE_COUNTOF(plain); i++)
        if (strcmp(key, plain[i].name) == 0) {
            *kind = plain[i].kind;
            return true;
        }
    for (size_t i = 0; i < ZE_COUNTOF(sets); i++) {
        size_t n = strlen(sets[i].prefix);
        if (strncmp(key, sets[i].prefix, n) != 0)
            continue;
        const char *d = key + n;
        if (!*d || (d[0] == '0' && d[1]))
            return false; /* no digits, or a leading zero */
        uint32_t v = 0;
        for (; *d; d++) {
            if (*d < '0' || *d > '9' || v >= MAX_SETS)
                return false;
            v = v * 10 + (uint32_t)(*d - '0');
        }
        if (v >= MAX_SETS)
            return false;
        *kind = sets[i].kind;
        *set = v;
        return true;
    }
    if (key[0] == '_') {
        *kind = SEM_CUSTOM;
        return true;
    }
    return false;
}

static bool is(const ze__gl_accessor_t *a, uint32_t ct, bool norm)
{
    return a->ctype == ct && a->normalized == norm;
}

/* Accessor types the specification allows per semantic (vertex attributes
 * when !target, morph targets otherwise). */
static bool type_allowed(const ze__gl_ctx_t *c, sem_kind kind, const ze__gl_accessor_t *a,
                         bool target, const char **expect)
{
    const bool q = c->ext_quantization;
    const bool f = is(a, CT_FLOAT, false);
    const bool bn = is(a, CT_BYTE, true), sn = is(a, CT_SHORT, true);
    const bool ubn = is(a, CT_UBYTE, true), usn = is(a, CT_USHORT, true);
    switch (kind) {
    case SEM_POSITION:
        *expect = q ? "VEC3 of FLOAT, or (KHR_mesh_quantization) of BYTE/SHORT, normalized or "
                      "not, or (vertices) UNSIGNED_BYTE/UNSIGNED_SHORT"
                    : "VEC3 of FLOAT";
        if (strcmp(a->type, "VEC3") != 0)
            return false;
        if (f)
            return true;
        if (!q)
            return false;
        if (a->ctype == CT_BYTE || a->ctype == CT_SHORT)
            return true;
        return !target && (a->ctype == CT_UBYTE || a->ctype == CT_USHORT);
    case SEM_NORMAL:
        *expect =
            target ? (q ? "VEC3 of FLOAT or (KHR_mesh_quantization) BYTE/SHORT" : "VEC3 of FLOAT")
                   : (q ? "VEC3 of FLOAT or (KHR_mesh_quantization) normalized "
                          "BYTE/SHORT"
                        : "VEC3 of FLOAT");
        if (strcmp(a->type, "VEC3") != 0)
            return false;
        if (f)
            return true;
        if (!q)
            return false;
        return target ? (a->ctype == CT_BYTE || a->ctype == CT_SHORT) : (bn || sn);
    case SEM_TANGENT:
        *expect =
            target ? (q ? "VEC3 of FLOAT or (KHR_mesh_quantization) BYTE/SHORT" : "VEC3 of FLOAT")
                   : (q ? "VEC4 of FLOAT or (KHR_mesh_quantization) normalized "
                          "BYTE/SHORT"
                        : "VEC4 of FLOAT");
        if (strcmp(a->type, target ? "VEC3" : "VEC4") != 0)
            return false;
        if (f)
            return true;
        if (!q)
            return false;
        return target ? (a->ctype == CT_BYTE || a->ctype == CT_SHORT) : (bn || sn);
    case SEM_TEXCOORD:
        *expect = "VEC2 of FLOAT, normalized UNSIGNED_BYTE or normalized UNSIGNED_SHORT (more "
                  "with KHR_mesh_quantization)";
        if (strcmp(a->type, "VEC2") != 0)
            return false;
        if (f || ubn || usn)
            return true;
        if (target)
            return bn || sn;
        return q && a->ctype != CT_UINT && a->ctype != CT_FLOAT;
    case SEM_COLOR:
        *expect = "VEC3 or VEC4 of FLOAT, normalized UNSIGNED_BYTE or normalized "
                  "UNSIGNED_SHORT";
        if (strcmp(a->type, "VEC3") != 0 && strcmp(a->type, "VEC4") != 0)
            return false;
        return f || ubn || usn || (target && (bn || sn));
    case SEM_JOINTS:
        *expect = "VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT";
        return !target && strcmp(a->type, "VEC4") == 0 &&
               (is(a, CT_UBYTE, false) || is(a, CT_USHORT, false));
    case SEM_WEIGHTS:
        *expect = "VEC4 of FLOAT, normalized UNSIGNED_BYTE or normalized UNSIGNED_SHORT";
        return !target && strcmp(a->type, "VEC4") == 0 && (f || ubn || usn);
    default:
        *expect = "";
        return true;
    }
}

static const char *ct_name(uint32_t ct)
{
    switch (ct) {
    case CT_BYTE:
        return "BYTE";
    case CT_UBYTE:
        return "UNSIGNED_BYTE";
    case CT_SHORT:
        return "SHORT";
    case CT_USHORT:
        return "UNSIGNED_SHORT";
    case CT_UINT:
        return "UNSIGNED_INT";
    default:
        return "FLOAT";
    }
}

static const char *mode_name(uint64_t mode)
{
    static const char *const names[] = {"POINTS",    "LINES",          "LINE_LOOP",   "LINE_STRIP",
                                        "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};
    return mode < ZE_COUNTOF(names) ? names[mode] : "?";
}

/* The specification's element counts per topology. */
static bool topology_count_ok(uint64_t mode, uint64_t p, const char **need)
{
    switch (mode) {
    case ZE_PRIM_POINTS:
        *need = "at least 1";
        return p >= 1;
    case ZE_PRIM_LINES:
        *need = "an even number, at least 2";
        return p >= 2 && p % 2 == 0;
    case ZE_PRIM_LINE_LOOP:
    case ZE_PRIM_LINE_STRIP:
        *need = "at least 2";
        return p >= 2;
    case ZE_PRIM_TRIANGLES:
        *need = "a multiple of 3, at least 3";
        return p >= 3 && p % 3 == 0;
    default:
        *need = "at least 3";
        return p >= 3;
    }
}

typedef struct prim_attrs_t {
    int64_t acc[ZE_VATTR_COUNT];     /* the streams we decode, -1 = absent */
    int64_t normal_any, tangent_any; /* for checks */
    uint32_t count;
    bool has_count;
} prim_attrs_t;

/* Vertex-attribute layout rules on the accessor's buffer view. */
static ze_result check_attribute_view(ze__gl_ctx_t *c, uint32_t acc_index)
{
    ze__gl_accessor_t *a = &c->accessors[acc_index];
    if (a->view < 0)
        return ZE_OK;
    ze__gl_view_t *v = &c->views[a->view];
    if (v->target == TARGET_ELEMENT)
        return ZE__GL_FAIL(c,
                           "bufferView %lld holds indices (target 34963) but accessor %u is a "
                           "vertex attribute",
                           (long long)a->view, acc_index);
    if ((v->offset + a->offset) % 4 != 0)
        return ZE__GL_FAIL(c, "vertex attribute data of accessor %u is not aligned to 4 bytes",
                           acc_index);
    if (v->attr_user < 0) {
        v->attr_user = acc_index;
    } else if (v->attr_user != acc_index && v->stride == 0) {
        return ZE__GL_FAIL(c,
                           "bufferView %lld is used by several vertex attribute accessors "
                           "(%lld and %u) and must define byteStride",
                           (long long)a->view, (long long)v->attr_user, acc_index);
    }
    return ZE_OK;
}

static ze_result parse_attributes(ze__gl_ctx_t *c, json_t *attrs, prim_attrs_t *pa)
{
    uint64_t set_mask[SEM_SETS] = {0};
    uint32_t first_count = 0;
    int64_t position = -1;
    const char *key;
    json_t *val;
    for (int k = 0; k < ZE_VATTR_COUNT; k++)
        pa->acc[k] = -1;
    pa->normal_any = pa->tangent_any = -1;
    size_t mark = ze__gl_push_key(c, "attributes");
    /* POSITION first, so counts compare against it. */
    if (json_object_get(attrs, "POSITION")) {
        ZE__TRY(ze__gl_get_ref(c, attrs, "POSITION", true, c->naccessors, "accessor", &position));
        first_count = c->accessors[position].count;
        pa->has_count = true;
    }
    json_object_foreach(attrs, key, val)
    {
        sem_kind kind;
        uint32_t set;
        size_t m2 = ze__gl_push_key(c, key);
        if (!parse_semantic(key, &kind, &set))
            return ZE__GL_FAIL(c,
                               "unknown attribute semantic '%.60s' (application-specific "
                               "semantics must start with '_')",
                               key);
        ze__gl_pop(c, m2);
        int64_t ai;
        ZE__TRY(ze__gl_get_ref(c, attrs, key, true, c->naccessors, "accessor", &ai));
        m2 = ze__gl_push_key(c, key);
        ze__gl_accessor_t *a = &c->accessors[ai];
        const char *expect;
        if (!type_allowed(c, kind, a, false, &expect))
            return ZE__GL_FAIL(c, "accessor %lld is %s%s of %s; %s must be %s", (long long)ai,
                               a->normalized ? "normalized " : "", a->type, ct_name(a->ctype), key,
                               expect);
        if (kind == SEM_POSITION && !a->has_min)
            return ZE__GL_FAIL(c, "POSITION accessor %lld must define min and max", (long long)ai);
        if (!pa->has_count) {
            first_count = a->count;
            pa->has_count = true;
        } else if (a->count != first_count) {
            return ZE__GL_FAIL(c,
                               "accessor %lld has count %u but %s has %u (all attributes of a "
                               "primitive must have the same count)",
                               (long long)ai, a->count, position >= 0 ? "POSITION" : "the first",
                               first_count);
        }
        ZE__TRY(check_attribute_view(c, (uint32_t)ai));
        if (kind >= SEM_TEXCOORD && kind <= SEM_WEIGHTS)
            set_mask[kind - SEM_TEXCOORD] |= 1ull << set;
        switch (kind) {
        case SEM_POSITION:
            pa->acc[ZE_VATTR_POSITION] = ai;
            break;
        case SEM_NORMAL:
            pa->acc[ZE_VATTR_NORMAL] = ai;
            break;
        case SEM_TANGENT:
            pa->acc[ZE_VATTR_TANGENT] = ai;
            break;
        case SEM_TEXCOORD:
            if (set < 2)
                pa->acc[ZE_VATTR_TEXCOORD0 + set] = ai;
            break;
        case SEM_COLOR:
            if (set == 0)
                pa->acc[ZE_VATTR_COLOR0] = ai;
            break;
        case SEM_JOINTS:
            if (set == 0)
                pa->acc[ZE_VATTR_JOINTS0] = ai;
            break;
        case SEM_WEIGHTS:
            /* Every WEIGHTS_n set is checked for its sum below. */
            if (set == 0)
                pa->acc[ZE_VATTR_WEIGHTS0] = ai;
            break;
        default:
            break;
        }
        ze__gl_pop(c, m2);
    }
    static const char *const set_names[SEM_SETS] = {"TEXCOORD", "COLOR", "JOINTS", "WEIGHTS"};
    for (int s = 0; s < SEM_SETS; s++) {
        uint64_t m = set_mask[s];
        if (m & (m + 1)) /* not of the form 2^n - 1 */
            return ZE__GL_FAIL(c, "%s sets must be numbered from 0 without gaps", set_names[s]);
    }
    if (set_mask[2] != set_mask[3])
        return ZE__GL_FAIL(c, "JOINTS_n and WEIGHTS_n must come in pairs");
    ze__gl_pop(c, mark);
    pa->count = first_count;
    return ZE_OK;
}

static ze_result parse_targets(ze__gl_ctx_t *c, json_t *prim, uint32_t vertex_count,
                               uint32_t *ntargets)
{
    json_t *targets;
    ZE__TRY(ze__gl_get_array(c, prim, "targets", false, &targets, ntargets));
    if (!targets)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, "targets");
    for (uint32_t t = 0; t < *ntargets; t++) {
        size_t m2 = ze__gl_push_index(c, t);
        json_t *jt;
        ZE__TRY(ze__gl_element(c, targets, t, &jt));
        if (json_object_size(jt) == 0)
            return ZE__GL_FAIL(c, "a morph target must have at least one attribute");
        const char *key;
        json_t *val;
        json_object_foreach(jt, key, val)
        {
            sem_kind kind;
            uint32_t set;
            int64_t ai;
            size_t m3 = ze__gl_push_key(c, key);
            if (!parse_semantic(key, &kind, &set) || kind == SEM_JOINTS || kind == SEM_WEIGHTS)
                return ZE__GL_FAIL(c, "'%.60s' is not a morph target attribute", key);
            ze__gl_pop(c, m3);
            ZE__TRY(ze__gl_get_ref(c, jt, key, true, c->naccessors, "accessor", &ai));
            m3 = ze__gl_push_key(c, key);
            ze__gl_accessor_t *a = &c->accessors[ai];
            const char *expect;
            if (!type_allowed(c, kind, a, true, &expect))
                return ZE__GL_FAIL(c, "accessor %lld is %s%s of %s; morph target %s must be %s",
                                   (long long)ai, a->normalized ? "normalized " : "", a->type,
                                   ct_name(a->ctype), key, expect);
            if (kind == SEM_POSITION && !a->has_min)
                return ZE__GL_FAIL(c,
                                   "morph target POSITION accessor %lld must define min and "
                                   "max",
                                   (long long)ai);
            if (a->count != vertex_count)
                return ZE__GL_FAIL(c,
                                   "accessor %lld has count %u but the primitive has %u "
                                   "vertices",
                                   (long long)ai, a->count, vertex_count);
            ZE__TRY(check_attribute_view(c, (uint32_t)ai));
            ze__gl_pop(c, m3);
        }
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    return ZE_OK;
}

/* The index accessor: type, view rules, values in range. */
static ze_result parse_indices(ze__gl_ctx_t *c, int64_t ii, uint32_t vertex_count)
{
    size_t mark = ze__gl_push_key(c, "indices");
    ze__gl_accessor_t *a = &c->accessors[ii];
    if (strcmp(a->type, "SCALAR") != 0 || a->normalized ||
        (a->ctype != CT_UBYTE && a->ctype != CT_USHORT && a->ctype != CT_UINT))
        return ZE__GL_FAIL(c,
                           "accessor %lld is %s%s of %s; indices must be SCALAR of "
                           "UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT, not normalized",
                           (long long)ii, a->normalized ? "normalized " : "", a->type,
                           ct_name(a->ctype));
    if (a->view >= 0) {
        ze__gl_view_t *v = &c->views[a->view];
        if (v->stride)
            return ZE__GL_FAIL(c, "bufferView %lld of indices must not define byteStride",
                               (long long)a->view);
        if (v->target == TARGET_ARRAY)
            return ZE__GL_FAIL(c,
                               "bufferView %lld of indices has target 34962 "
                               "(ARRAY_BUFFER)",
                               (long long)a->view);
    }
    ZE__TRY(ze__gl_decode(c, (uint32_t)ii, ZE__GL_OUT_UINT));
    const uint32_t restart = a->ctype == CT_UBYTE    ? 0xffu
                             : a->ctype == CT_USHORT ? 0xffffu
                                                     : 0xffffffffu;
    const uint32_t *u = a->u;
    for (uint32_t e = 0; e < a->count; e++) {
        if (u[e] == restart)
            return ZE__GL_FAIL(c,
                               "index at element %u is the primitive-restart value %u, which "
                               "glTF forbids",
                               e, u[e]);
        if (u[e] >= vertex_count)
            return ZE__GL_FAIL(c,
                               "index %u at element %u is out of range (the primitive has %u "
                               "vertices)",
                               u[e], e, vertex_count);
    }
    ze__gl_pop(c, mark);
    return ZE_OK;
}

/* Unit length of normals (n = 3) and tangents (xyz of 4, w = +-1). */
static ze_result check_unit(ze__gl_ctx_t *c, const char *key, const float *v, uint32_t count,
                            uint32_t n)
{
    for (uint32_t e = 0; e < count; e++) {
        const float *p = v + (size_t)e * n;
        double len = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        if (fabs(len - 1.0) > UNIT_TOLERANCE) {
            ze__gl_push_key(c, "attributes");
            ze__gl_push_key(c, key);
            return ZE__GL_FAIL(c, "element %u is not of unit length (%g)", e, len);
        }
        if (n == 4 && p[3] != 1.0f && p[3] != -1.0f) {
            ze__gl_push_key(c, "attributes");
            ze__gl_push_key(c, key);
            return ZE__GL_FAIL(c, "element %u has w = %g; the handedness must be 1 or -1", e,
                               (double)p[3]);
        }
    }
    return ZE_OK;
}

static ze_result check_weights(ze__gl_ctx_t *c, json_t *attrs)
{
    /* Sum over every WEIGHTS_n set of a vertex must be 1. */
    const char *key;
    json_t *val;
    float *sum = NULL;
    uint32_t count = 0;
    json_object_foreach(attrs, key, val)
    {
        if (strncmp(key, "WEIGHTS_", 8) != 0)
            continue;
        uint32_t ai = (uint32_t)json_integer_value(val);
        size_t mark = ze__gl_push_key(c, "attributes");
        ze__gl_push_key(c, key);
        ZE__TRY(ze__gl_decode(c, ai, ZE__GL_OUT_FLOAT));
        ze__gl_pop(c, mark);
        const ze__gl_accessor_t *a = &c->accessors[ai];
        if (!sum) {
            count = a->count;
            sum = ze__astore_array(c->store, count, sizeof(float), 16, true);
            if (!sum)
                return ze__gl_fail(c, ZE_ERR_LIMIT, "out of memory");
        }
        for (uint32_t e = 0; e < count; e++)
            sum[e] += a->f[(size_t)e * 4] + a->f[(size_t)e * 4 + 1] + a->f[(size_t)e * 4 + 2] +
                      a->f[(size_t)e * 4 + 3];
    }
    for (uint32_t e = 0; sum && e < count; e++)
        if (fabs((double)sum[e] - 1.0) > WEIGHT_TOLERANCE) {
            ze__gl_push_key(c, "attributes");
            ze__gl_push_key(c, "WEIGHTS_0");
            return ZE__GL_FAIL(c, "the weights of vertex %u sum to %g, not 1", e, (double)sum[e]);
        }
    return ZE_OK;
}

/* Triangle list of a triangle primitive. */
static ze_result build_indices(ze__gl_ctx_t *c, ze_model_primitive_t *p, const uint32_t *src,
                               uint32_t n)
{
    uint32_t tris = p->mode == ZE_PRIM_TRIANGLES ? n / 3 : n - 2;
    size_t total;
    if (!ze_size_mul(tris, 3, &total) || total > UINT32_MAX)
        return ze__gl_fail(c, ZE_ERR_LIMIT, "too many indices");
    uint32_t *out = ze__astore_array(c->store, total, sizeof(uint32_t), 16, false);
    if (!out)
        return ze__gl_fail(c, ZE_ERR_LIMIT, "indices exceed the import's memory limit");
#define SRC(i) (src ? src[(i)] : (uint32_t)(i))
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t *o = out + (size_t)t * 3;
        if (p->mode == ZE_PRIM_TRIANGLES) {
            o[0] = SRC(3 * t);
            o[1] = SRC(3 * t + 1);
            o[2] = SRC(3 * t + 2);
        } else if (p->mode == ZE_PRIM_TRIANGLE_STRIP) {
            /* The specification's order: {v_i, v_i+(1+i%2), v_i+(2-i%2)}. */
            o[0] = SRC(t);
            o[1] = SRC(t + 1 + (t & 1u));
            o[2] = SRC(t + 2 - (t & 1u));
        } else { /* fan */
            o[0] = SRC(t + 1);
            o[1] = SRC(t + 2);
            o[2] = SRC(0);
        }
    }
#undef SRC
    p->indices = out;
    p->index_count = (uint32_t)total;
    return ZE_OK;
}

static ze_result decode_streams(ze__gl_ctx_t *c, const prim_attrs_t *pa, ze_model_primitive_t *p)
{
    static const char *const keys[ZE_VATTR_COUNT] = {"POSITION",   "NORMAL",     "TANGENT",
                                                     "TEXCOORD_0", "TEXCOORD_1", "COLOR_0",
                                                     "JOINTS_0",   "WEIGHTS_0"};
    for (int k = 0; k < ZE_VATTR_COUNT; k++) {
        if (pa->acc[k] < 0)
            continue;
        uint32_t ai = (uint32_t)pa->acc[k];
        size_t mark = ze__gl_push_key(c, "attributes");
        ze__gl_push_key(c, keys[k]);
        ZE__TRY(ze__gl_decode(c, ai, k == ZE_VATTR_JOINTS0 ? ZE__GL_OUT_UINT : ZE__GL_OUT_FLOAT));
        ze__gl_pop(c, mark);
        const ze__gl_accessor_t *a = &c->accessors[ai];
        p->attributes |= ZE_VATTR_BIT(k);
        switch (k) {
        case ZE_VATTR_POSITION:
            p->positions = a->f;
            break;
        case ZE_VATTR_NORMAL:
            p->normals = a->f;
            break;
        case ZE_VATTR_TANGENT:
            p->tangents = a->f;
            break;
        case ZE_VATTR_TEXCOORD0:
        case ZE_VATTR_TEXCOORD1:
            p->texcoords[k - ZE_VATTR_TEXCOORD0] = a->f;
            break;
        case ZE_VATTR_COLOR0:
            if (a->ncomp == 4) {
                p->colors = a->f;
            } else {
                float *rgba =
                    ze__astore_array(c->store, (size_t)a->count * 4, sizeof(float), 16, false);
                if (!rgba)
                    return ze__gl_fail(c, ZE_ERR_LIMIT, "colors exceed the memory limit");
                for (uint32_t e = 0; e < a->count; e++) {
                    memcpy(rgba + (size_t)e * 4, a->f + (size_t)e * 3, 3 * sizeof(float));
                    rgba[(size_t)e * 4 + 3] = 1.0f;
                }
                p->colors = rgba;
            }
            break;
        case ZE_VATTR_JOINTS0: {
            uint16_t *j =
                ze__astore_array(c->store, (size_t)a->count * 4, sizeof(uint16_t), 16, false);
            if (!j)
                return ze__gl_fail(c, ZE_ERR_LIMIT, "joints exceed the memory limit");
            for (size_t e = 0; e < (size_t)a->count * 4; e++)
                j[e] = (uint16_t)a->u[e]; /* UNSIGNED_BYTE/SHORT only: fits */
            p->joints = j;
            break;
        }
        case ZE_VATTR_WEIGHTS0:
            p->weights = a->f;
            break;
        default:
            break;
        }
    }
    /* Bounds of the positions (min/max of the accessor after conversion). */
    ze_vec3_t mn = {INFINITY, INFINITY, INFINITY}, mx = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t e = 0; e < p->vertex_count; e++) {
        const float *v = p->positions + (size_t)e * 3;
        mn.x = fminf(mn.x, v[0]);
        mn.y = fminf(mn.y, v[1]);
        mn.z = fminf(mn.z, v[2]);
        mx.x = fmaxf(mx.x, v[0]);
        mx.y = fmaxf(mx.y, v[1]);
        mx.z = fmaxf(mx.z, v[2]);
    }
    p->min = mn;
    p->max = mx;
    return ZE_OK;
}

static ze_result parse_primitive(ze__gl_ctx_t *c, json_t *jp, ze_model_primitive_t *p,
                                 uint32_t *ntargets)
{
    ZE__TRY(ze__gl_common(c, jp, NULL));
    json_t *attrs;
    uint64_t mode = ZE_PRIM_TRIANGLES;
    int64_t ii, mat;
    ZE__TRY(ze__gl_get_object(c, jp, "attributes", true, &attrs));
    ZE__TRY(ze__gl_get_uint(c, jp, "mode", false, 0, 6, &mode, NULL));
    ZE__TRY(ze__gl_get_ref(c, jp, "indices", false, c->naccessors, "accessor", &ii));
    ZE__TRY(ze__gl_get_ref(c, jp, "material", false, c->nmaterials, "material", &mat));
    if (json_object_size(attrs) == 0) {
        ze__gl_push_key(c, "attributes");
        return ZE__GL_FAIL(c, "a primitive must have at least one attribute");
    }
    prim_attrs_t pa;
    memset(&pa, 0, sizeof pa);
    ZE__TRY(parse_attributes(c, attrs, &pa));
    json_t *draco = NULL;
    if (c->ext_draco)
        ZE__TRY(ze__gl_extension(c, jp, "KHR_draco_mesh_compression", &draco));
    if (draco)
        ZE__TRY(ze__gl_draco_primitive(c, draco, attrs, ii, mode));
    ZE__TRY(parse_targets(c, jp, pa.count, ntargets));
    p->mode = (ze_prim_mode)mode;
    p->material = (int32_t)mat;
    p->target_count = *ntargets;
    const bool has_position = pa.acc[ZE_VATTR_POSITION] >= 0;
    p->vertex_count = has_position ? pa.count : 0;

    uint64_t elements = pa.count;
    if (ii >= 0) {
        ZE__TRY(parse_indices(c, ii, pa.count));
        elements = c->accessors[ii].count;
        p->source_indices = c->accessors[ii].count;
    }
    const char *need;
    if (!topology_count_ok(mode, elements, &need)) {
        if (ii >= 0)
            ze__gl_push_key(c, "indices");
        return ZE__GL_FAIL(c, "%s needs %s %s, found %llu", mode_name(mode), need,
                           ii >= 0 ? "indices" : "vertices", (unsigned long long)elements);
    }

    /* Data checks of the semantics, whatever the mode. */
    if (json_object_get(attrs, "NORMAL")) {
        uint32_t ai = (uint32_t)json_integer_value(json_object_get(attrs, "NORMAL"));
        size_t mark = ze__gl_push_key(c, "attributes");
        ze__gl_push_key(c, "NORMAL");
        ZE__TRY(ze__gl_decode(c, ai, ZE__GL_OUT_FLOAT));
        ze__gl_pop(c, mark);
        ZE__TRY(check_unit(c, "NORMAL", c->accessors[ai].f, pa.count, 3));
    }
    if (json_object_get(attrs, "TANGENT")) {
        uint32_t ai = (uint32_t)json_integer_value(json_object_get(attrs, "TANGENT"));
        size_t mark = ze__gl_push_key(c, "attributes");
        ze__gl_push_key(c, "TANGENT");
        ZE__TRY(ze__gl_decode(c, ai, ZE__GL_OUT_FLOAT));
        ze__gl_pop(c, mark);
        ZE__TRY(check_unit(c, "TANGENT", c->accessors[ai].f, pa.count, 4));
    }
    ZE__TRY(check_weights(c, attrs));

    ze_model_stats_t *st = &c->model->stats;
    if (has_position)
        st->vertices += pa.count;
    if (ii >= 0)
        st->indices += c->accessors[ii].count;
    if (mode < ZE_PRIM_TRIANGLES || !has_position) {
        p->skipped = true;
        st->skipped_primitives++;
        return ZE_OK;
    }
    ZE__TRY(decode_streams(c, &pa, p));
    return build_indices(c, p, ii >= 0 ? c->accessors[ii].u : NULL, (uint32_t)elements);
}

ze_result ze__gl_parse_meshes(ze__gl_ctx_t *c)
{
    ze_model_t *m = c->model;
    ze_model_mesh_t *meshes =
        ze__astore_array(c->store, c->nmeshes + 1u, sizeof(ze_model_mesh_t), 16, true);
    c->mesh_targets = ze__astore_array(c->store, c->nmeshes + 1u, sizeof(uint32_t), 4, true);
    if (!meshes || !c->mesh_targets)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    ze_vec3_t mn = {INFINITY, INFINITY, INFINITY}, mx = {-INFINITY, -INFINITY, -INFINITY};
    bool any = false;
    size_t top = ze__gl_push_key(c, "meshes");
    for (uint32_t i = 0; i < c->nmeshes; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *jm, *jprims;
        uint32_t nprims;
        ZE__TRY(ze__gl_element(c, c->j_meshes, i, &jm));
        ZE__TRY(ze__gl_common(c, jm, &meshes[i].name));
        ZE__TRY(ze__gl_get_array(c, jm, "primitives", true, &jprims, &nprims));
        ze_model_primitive_t *prims =
            ze__astore_array(c->store, nprims, sizeof(ze_model_primitive_t), 16, true);
        if (!prims)
            return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
        size_t m2 = ze__gl_push_key(c, "primitives");
        for (uint32_t k = 0; k < nprims; k++) {
            size_t m3 = ze__gl_push_index(c, k);
            json_t *jp;
            uint32_t ntargets = 0;
            ZE__TRY(ze__gl_element(c, jprims, k, &jp));
            ZE__TRY(parse_primitive(c, jp, &prims[k], &ntargets));
            if (k == 0)
                c->mesh_targets[i] = ntargets;
            else if (ntargets != c->mesh_targets[i])
                return ZE__GL_FAIL(c,
                                   "has %u morph targets but primitive 0 has %u (all "
                                   "primitives of a mesh must have the same number)",
                                   ntargets, c->mesh_targets[i]);
            if (!prims[k].skipped) {
                any = true;
                mn.x = fminf(mn.x, prims[k].min.x);
                mn.y = fminf(mn.y, prims[k].min.y);
                mn.z = fminf(mn.z, prims[k].min.z);
                mx.x = fmaxf(mx.x, prims[k].max.x);
                mx.y = fmaxf(mx.y, prims[k].max.y);
                mx.z = fmaxf(mx.z, prims[k].max.z);
            }
            ze__gl_pop(c, m3);
        }
        ze__gl_pop(c, m2);
        json_t *jw;
        uint32_t nw;
        ZE__TRY(ze__gl_get_array(c, jm, "weights", false, &jw, &nw));
        if (jw) {
            if (nw != c->mesh_targets[i]) {
                ze__gl_push_key(c, "weights");
                return ZE__GL_FAIL(c, "has %u weights but the mesh has %u morph targets", nw,
                                   c->mesh_targets[i]);
            }
            float *w = ze__astore_array(c->store, nw, sizeof(float), 16, false);
            double *tmp = ze__astore_array(c->store, nw, sizeof(double), 16, false);
            if (!w || !tmp)
                return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
            ZE__TRY(ze__gl_get_numbers(c, jm, "weights", nw, tmp, NULL));
            for (uint32_t k = 0; k < nw; k++)
                w[k] = (float)tmp[k];
            meshes[i].weights = w;
            meshes[i].weight_count = nw;
        }
        meshes[i].primitives = prims;
        meshes[i].primitive_count = nprims;
        m->stats.primitives += nprims;
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    m->meshes = meshes;
    m->mesh_count = c->nmeshes;
    if (any) {
        m->min = mn;
        m->max = mx;
    }
    return ZE_OK;
}
