/* Scene files: a world's entities as JSON, through component reflection.
 *
 *   {
 *     "format": "zengine.scene",
 *     "version": 1,
 *     "entities": [
 *       {
 *         "uuid": "8d1c…",
 *         "components": {
 *           "Transform": {
 *             "position": [0.0, 1.5, 0.0],
 *             ...
 *
 * Save writes every alive entity, by ascending entity index; an entity
 * without a UUID component (or with the nil uuid, or one already used by an
 * entity of lower index) is given a fresh v4 UUID first. Its components
 * follow by component id, except UUID (that is the "uuid" key) and transient
 * ones:
 *   - reflected components: an object of their fields in declaration order.
 *     BOOL true/false; integers as JSON integers (a U64 above INT64_MAX as a
 *     decimal string, the parser's integers being signed 64-bit); F32 and F64
 *     as the shortest decimal that reads back to the same bits (at most 9 and
 *     17 digits), always with a '.' or an exponent, "nan"/"inf"/"-inf" as
 *     strings; VEC2/3/4 and QUAT [x, y, (z, (w))]; MAT4 16 numbers in memory
 *     (column-major) order; UUID a string; ENTITY the referenced entity's
 *     uuid, or null when it is not alive; CHARS a string (invalid UTF-8
 *     written as U+FFFD, logged). An array field (`count` > 1) is a JSON
 *     array of its elements. A UUID field is written as the name the
 *     kernel's names hook gives it (ze_kernel_set_scene_names: the engine's
 *     asset paths), when it gives one; on load, a string that is not a uuid
 *     goes to the hook (resolve), once per value, while applying.
 *   - tags: {}.
 *   - plain data without reflection: {"$base64": "<the raw bytes>"} (same
 *     layout and byte order as the writer: the escape hatch for components
 *     registered with ZE_COMPONENT, not a portable format).
 *   - components with dtor/copy/move hooks and no reflection cannot be
 *     written: skipped, with a warning.
 * Two-space indentation, one member per line, values on one line, a final
 * newline, in the "C" locale: the same world always gives the same bytes,
 * and save -> load into an empty world -> save is byte-identical.
 *
 * Load streams: scene_scan.c finds the spans of the top-level values (read
 * with jansson) and of every entity (each parsed alone into a reusable
 * tree, scene_dom.c, once to check and once to apply), so no tree ever
 * holds the document. It checks everything before changing anything:
 * "format", "version", the shape, every uuid (valid, not nil, no repeats),
 * every known value's JSON type and range, room for the new entities.
 * Malformed JSON and wrong types fail with the JSON path of the first
 * problem in the report and nothing applied. Unknown keys, components and
 * fields, base64 values of the wrong size, and entity references to uuids
 * that exist neither in the document nor in the world are reported with
 * their path and skipped (references become null). Then it applies in two
 * passes: entities (an entity of the world with the same uuid is updated,
 * else one is created with that UUID), then components (an existing value
 * keeps the fields the document leaves out, a new one starts from its
 * default), so references resolve whatever the order. Components the
 * document does not list are left alone. Only running out of memory while
 * applying can leave a partial load (ZE_ERR_OUT_OF_MEMORY). */
#include <float.h>
#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ecs_internal.h"

uint8_t *ze__byte_reserve(ze_byte_writer_t *w, size_t extra);

enum { SCENE_VERSION = 1 };
#define SCENE_FORMAT "zengine.scene"
#define RAW_KEY      "$base64"

static const uint32_t k_elem_size[ZE_FIELD_TYPE_COUNT] = {
    [ZE_FIELD_BOOL] = 1,  [ZE_FIELD_U8] = 1,    [ZE_FIELD_I32] = 4,    [ZE_FIELD_U32] = 4,
    [ZE_FIELD_I64] = 8,   [ZE_FIELD_U64] = 8,   [ZE_FIELD_F32] = 4,    [ZE_FIELD_F64] = 8,
    [ZE_FIELD_VEC2] = 8,  [ZE_FIELD_VEC3] = 12, [ZE_FIELD_VEC4] = 16,  [ZE_FIELD_QUAT] = 16,
    [ZE_FIELD_MAT4] = 64, [ZE_FIELD_UUID] = 16, [ZE_FIELD_ENTITY] = 8, [ZE_FIELD_CHARS] = 1,
};
/* Floats in a vector type (0: not a vector). */
static const uint32_t k_vec_len[ZE_FIELD_TYPE_COUNT] = {
    [ZE_FIELD_VEC2] = 2, [ZE_FIELD_VEC3] = 3,  [ZE_FIELD_VEC4] = 4,
    [ZE_FIELD_QUAT] = 4, [ZE_FIELD_MAT4] = 16,
};

static uint32_t field_count(const ze_field_desc_t *fd)
{
    return fd->count ? fd->count : 1;
}

/* A field descriptor that lies inside its component (registration does
 * not check reflection, so files do). */
static bool field_ok(const ze_component_info_t *info, const ze_field_desc_t *fd)
{
    if (!fd->name || fd->type <= ZE_FIELD_NONE || fd->type >= ZE_FIELD_TYPE_COUNT)
        return false;
    uint64_t bytes = (uint64_t)k_elem_size[fd->type] * field_count(fd);
    return (uint64_t)fd->offset + bytes <= info->size;
}

static bool raw_ok(const ze_component_info_t *info)
{
    return !info->hooks.dtor && !info->hooks.copy && !info->hooks.move;
}

/* The loader's float conversion, shared with the writer's shortest-digits
 * search so that what is written is exactly what is read. Values that
 * round to FLT_MAX are accepted; beyond, false. */
static bool double_to_f32(double d, float *out)
{
    if (isnan(d)) {
        *out = NAN;
        return true;
    }
    if (fabs(d) > FLT_MAX) {
        if (isinf(d)) {
            *out = (float)d;
            return true;
        }
        if (fabs(d) >= 0x1.ffffffp+127)
            return false;
        *out = d < 0 ? -FLT_MAX : FLT_MAX;
        return true;
    }
    *out = (float)d;
    return true;
}

/* ================================================================ save */

static void put_n(ze_scene_writer_t *e, const char *s, size_t n)
{
    ze_byte_write(e->out, s, n);
}
static void put(ze_scene_writer_t *e, const char *s)
{
    put_n(e, s, strlen(s));
}
static void newline(ze_scene_writer_t *e, int level)
{
    static const char spaces[] = "\n                                ";
    put_n(e, spaces, 1 + (size_t)level * 2);
}

void ze_scene_writer_text(ze_scene_writer_t *s, const char *text)
{
    put(s, text);
}

void ze_scene_writer_string(ze_scene_writer_t *e, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    put_n(e, "\"", 1);
    size_t run = 0; /* start of the pending run of bytes written as they are */
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        size_t len = c >= 0x80 ? ze_utf8_valid_len(s + i, n - i) : 0;
        if (len) {
            i += len;
            continue;
        }
        put_n(e, (const char *)s + run, i - run);
        char esc[8];
        switch (c) {
        case '"':
            put(e, "\\\"");
            break;
        case '\\':
            put(e, "\\\\");
            break;
        case '\n':
            put(e, "\\n");
            break;
        case '\t':
            put(e, "\\t");
            break;
        case '\r':
            put(e, "\\r");
            break;
        case '\b':
            put(e, "\\b");
            break;
        case '\f':
            put(e, "\\f");
            break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                put(e, esc);
            } else {
                put(e, "\xef\xbf\xbd"); /* U+FFFD */
                e->replaced++;
            }
            break;
        }
        i++;
        run = i;
    }
    put_n(e, (const char *)s + run, n - run);
    put_n(e, "\"", 1);
}

/* Shortest "%.Ng" (N from min to max digits) that reads back to `v`. */
void ze_scene_writer_real(ze_scene_writer_t *e, double v, bool f32)
{
    char buf[40];
    if (isnan(v)) {
        put(e, "\"nan\"");
        return;
    }
    if (isinf(v)) {
        put(e, v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    /* %g drops trailing zeros, so starting at 6 (15) digits finds the
     * shortest form, except for subnormals, which have fewer digits. */
    bool subnormal = v != 0 && fabs(v) < (f32 ? FLT_MIN : DBL_MIN);
    for (int prec = subnormal ? 1 : f32 ? 6 : 15; prec <= (f32 ? 9 : 17); prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        float fb;
        if (f32 ? double_to_f32(back, &fb) && fb == (float)v : back == v)
            break;
    }
    /* A real always looks like one ("1.0", not "1", which reads as an
     * integer and would lose the sign of -0.0). */
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    put(e, buf);
}

void ze_scene_writer_uuid(ze_scene_writer_t *e, ze_uuid_t u)
{
    char buf[ZE_UUID_STRING_LEN + 3];
    buf[0] = '"';
    ze_uuid_format(u, buf + 1);
    buf[ZE_UUID_STRING_LEN + 1] = '"';
    buf[ZE_UUID_STRING_LEN + 2] = 0;
    put(e, buf);
}

/* The framing: members of one object separated by commas, each on its own
 * line; an object's closing brace on a line of its own unless it is empty. */
void ze_scene_writer_begin(ze_scene_writer_t *e, ze_byte_writer_t *out)
{
    *e = (ze_scene_writer_t){.out = out};
    put(e, "{");
    newline(e, 1);
    put(e, "\"format\": \"" SCENE_FORMAT "\",");
    newline(e, 1);
    put(e, "\"version\": 1,");
    newline(e, 1);
    put(e, "\"entities\": [");
}

void ze_scene_writer_end(ze_scene_writer_t *e)
{
    if (e->any_entity)
        newline(e, 1);
    put(e, "]");
    newline(e, 0);
    put(e, "}\n");
}

void ze_scene_writer_entity(ze_scene_writer_t *e, ze_uuid_t uuid)
{
    put(e, e->any_entity ? "," : "");
    e->any_entity = true;
    e->any_component = false;
    newline(e, 2);
    put(e, "{");
    newline(e, 3);
    put(e, "\"uuid\": ");
    ze_scene_writer_uuid(e, uuid);
    put(e, ",");
    newline(e, 3);
    put(e, "\"components\": {");
}

void ze_scene_writer_entity_end(ze_scene_writer_t *e)
{
    if (e->any_component)
        newline(e, 3);
    put(e, "}");
    newline(e, 2);
    put(e, "}");
}

void ze_scene_writer_component(ze_scene_writer_t *e, const char *name)
{
    put(e, e->any_component ? "," : "");
    e->any_component = true;
    e->any_field = false;
    newline(e, 4);
    ze_scene_writer_string(e, name, strlen(name));
    put(e, ": {");
}

void ze_scene_writer_component_end(ze_scene_writer_t *e)
{
    if (e->any_field)
        newline(e, 4);
    put(e, "}");
}

void ze_scene_writer_field(ze_scene_writer_t *e, const char *name)
{
    put(e, e->any_field ? "," : "");
    e->any_field = true;
    newline(e, 5);
    ze_scene_writer_string(e, name, strlen(name));
    put(e, ": ");
}

static void put_elem(ze_scene_writer_t *e, const ze_world_t *w, ze_field_type t, const uint8_t *p)
{
    char buf[32];
    switch (t) {
    case ZE_FIELD_BOOL:
        put(e, p[0] ? "true" : "false");
        return;
    case ZE_FIELD_U8:
        snprintf(buf, sizeof buf, "%u", (unsigned)p[0]);
        break;
    case ZE_FIELD_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, sizeof buf, "%ld", (long)v);
        break;
    }
    case ZE_FIELD_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, sizeof buf, "%lu", (unsigned long)v);
        break;
    }
    case ZE_FIELD_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, sizeof buf, "%lld", (long long)v);
        break;
    }
    case ZE_FIELD_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, sizeof buf, v > INT64_MAX ? "\"%llu\"" : "%llu", (unsigned long long)v);
        break;
    }
    case ZE_FIELD_F32: {
        float v;
        memcpy(&v, p, 4);
        ze_scene_writer_real(e, v, true);
        return;
    }
    case ZE_FIELD_F64: {
        double v;
        memcpy(&v, p, 8);
        ze_scene_writer_real(e, v, false);
        return;
    }
    case ZE_FIELD_VEC2:
    case ZE_FIELD_VEC3:
    case ZE_FIELD_VEC4:
    case ZE_FIELD_QUAT:
    case ZE_FIELD_MAT4:
        put(e, "[");
        for (uint32_t i = 0; i < k_vec_len[t]; i++) {
            float v;
            memcpy(&v, p + 4 * i, 4);
            if (i)
                put(e, ", ");
            ze_scene_writer_real(e, v, true);
        }
        put(e, "]");
        return;
    case ZE_FIELD_UUID: {
        ze_uuid_t u;
        memcpy(&u, p, sizeof u);
        /* A name the kernel's hook gives (an asset path), else the uuid. */
        const ze_scene_names_t *nm = &w->kernel->scene_names;
        char name[ZE_SCENE_NAME_MAX];
        if (nm->name && !ze_uuid_is_nil(u) && nm->name(nm->user, u, name, sizeof name) && name[0]) {
            ze_scene_writer_string(e, name, strnlen(name, sizeof name - 1));
            return;
        }
        ze_scene_writer_uuid(e, u);
        return;
    }
    case ZE_FIELD_ENTITY: {
        ze_entity_t ref;
        memcpy(&ref, p, sizeof ref);
        const ze_uuid_component_t *u =
            ze_component_get(w, ref, (ze_component_t){ZE_COMPONENT_ID_UUID});
        if (u)
            ze_scene_writer_uuid(e, u->value);
        else
            put(e, "null");
        return;
    }
    default:
        put(e, "null");
        return;
    }
    put(e, buf);
}

static void put_field(ze_scene_writer_t *e, const ze_world_t *w, const ze_field_desc_t *fd,
                      const uint8_t *p)
{
    uint32_t n = field_count(fd);
    if (fd->type == ZE_FIELD_CHARS) {
        /* NUL-terminated within the array: an unterminated value is cut. */
        ze_scene_writer_string(e, (const char *)p, strnlen((const char *)p, n - 1));
        return;
    }
    if (n == 1 && !fd->count) {
        put_elem(e, w, fd->type, p);
        return;
    }
    put(e, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(e, ", ");
        put_elem(e, w, fd->type, p + (size_t)i * k_elem_size[fd->type]);
    }
    put(e, "]");
}

static void put_base64(ze_scene_writer_t *e, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    put(e, "\"");
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[v >> 18 & 63];
        q[1] = tab[v >> 12 & 63];
        q[2] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        put_n(e, q, 4);
    }
    put(e, "\"");
}

/* Random (version 4) uuids for a save's new entities, from one system
 * uuid stirred by splitmix64: the system generator costs several system
 * calls per uuid (a million-entity world spent seconds there), and these
 * need to be unique in the world (checked), not secret. */
typedef struct uuid_gen_t {
    uint64_t state;
} uuid_gen_t;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static ze_uuid_t uuid_next(uuid_gen_t *g)
{
    if (!g->state) {
        ze_uuid_t seed = ze_uuid_v4();
        g->state = ze_hash64(seed.bytes, sizeof seed.bytes, ze_time_now_ns()) | 1;
    }
    ze_uuid_t u;
    uint64_t a = splitmix64(&g->state), b = splitmix64(&g->state);
    memcpy(u.bytes, &a, 8);
    memcpy(u.bytes + 8, &b, 8);
    u.bytes[6] = (uint8_t)((u.bytes[6] & 0x0f) | 0x40); /* version 4 */
    u.bytes[8] = (uint8_t)((u.bytes[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    return u;
}

/* Every alive entity gets a uuid, unique in the world. */
static ze_result assign_uuids(ze_world_t *w)
{
    uuid_gen_t gen = {0};
    const ze_component_t uc = {ZE_COMPONENT_ID_UUID};
    ze_hashmap_t seen;
    ze_hashmap_init(&seen, w->alloc, sizeof(ze_uuid_t), 1);
    ze_result r = ZE_OK;
    for (uint32_t idx = 0; idx < w->fresh && r == ZE_OK; idx++) {
        ze_entity_t e = ze_entity_from_index(w, idx);
        if (ze_entity_is_null(e))
            continue;
        const ze_uuid_component_t *u = ze_component_get(w, e, uc);
        ze_uuid_component_t v = u ? *u : (ze_uuid_component_t){0};
        bool fresh_id = !u || ze_uuid_is_nil(v.value) || ze_hashmap_get(&seen, &v.value);
        if (u && fresh_id && !ze_uuid_is_nil(v.value))
            ze_world_report(w, ZE_LOG_WARN, ZE_OK, "entity %u repeats a uuid; given a new one",
                            idx);
        while (fresh_id) {
            v.value = uuid_next(&gen);
            fresh_id = ze_hashmap_get(&seen, &v.value) != NULL;
        }
        if (!u || !ze_uuid_eq(u->value, v.value))
            r = ze_component_set(w, e, uc, &v);
        uint8_t one = 1;
        if (r == ZE_OK)
            r = ze_hashmap_put(&seen, &v.value, &one);
    }
    ze_hashmap_free(&seen);
    return r;
}

ze_result ze_scene_save_json(ze_world_t *w, ze_byte_writer_t *out)
{
    ZE__ECS_THREAD_CHECK();
    if (!w || !out)
        return ZE_ERR_INVALID_ARG;
    if (ze__world_gate(w) != ZE__GATE_NOW) {
        ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                        "scene save during an iteration or parallel wave");
        return ZE_ERR_STATE;
    }
    if (out->failed)
        return ZE_ERR_OUT_OF_MEMORY;
    ze_result r = assign_uuids(w);
    if (r != ZE_OK)
        return r;
    const ze_kernel_t *k = w->kernel;
    /* Numbers in the "C" locale whatever the process set. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old_locale = c_locale ? uselocale(c_locale) : (locale_t)0;

    ze_scene_writer_t e;
    ze_scene_writer_begin(&e, out);
    /* Types warned about once; an entity's types in id order. */
    size_t warned_bytes = ZE_MAX((size_t)k->component_count, (size_t)1);
    uint8_t *warned = ze_alloc(w->alloc, warned_bytes, 1);
    size_t ids_bytes = sizeof(ze_component_t) * ZE_MAX(w->pool_count, 1u);
    ze_component_t *ids = ze_alloc(w->alloc, ids_bytes, _Alignof(ze_component_t));
    if (!warned || !ids) {
        out->failed = true;
        goto done;
    }
    memset(warned, 0, warned_bytes);
    for (uint32_t idx = 0; idx < w->fresh; idx++) {
        ze_entity_t ent = ze_entity_from_index(w, idx);
        if (ze_entity_is_null(ent))
            continue;
        const ze_uuid_component_t *u =
            ze_component_get(w, ent, (ze_component_t){ZE_COMPONENT_ID_UUID});
        ze_scene_writer_entity(&e, u->value);
        uint32_t nc = ze__entity_components(w, idx, ids, w->pool_count);
        for (uint32_t ci = 0; ci < nc; ci++) {
            uint32_t c = ids[ci].id;
            const ze_component_info_t *info = ze__info(k, c);
            if (c == ZE_COMPONENT_ID_UUID || (info->flags & ZE_COMPONENT_TRANSIENT))
                continue;
            if (!info->field_count && info->size && !raw_ok(info)) {
                if (!warned[c])
                    ze_world_report(w, ZE_LOG_WARN, ZE_OK,
                                    "component '%s' has hooks and no reflection: not "
                                    "written to the scene",
                                    info->name);
                warned[c] = 1;
                continue;
            }
            const uint8_t *data = info->size ? ze_component_get(w, ent, (ze_component_t){c}) : NULL;
            ze_scene_writer_component(&e, info->name);
            if (!info->field_count && info->size) {
                ze_scene_writer_field(&e, RAW_KEY);
                put_base64(&e, data, info->size);
            } else {
                for (uint32_t f = 0; f < info->field_count; f++) {
                    const ze_field_desc_t *fd = &info->fields[f];
                    if (!field_ok(info, fd))
                        continue;
                    ze_scene_writer_field(&e, fd->name);
                    put_field(&e, w, fd, data + fd->offset);
                }
            }
            ze_scene_writer_component_end(&e);
        }
        ze_scene_writer_entity_end(&e);
    }
    ze_scene_writer_end(&e);
done:
    if (warned)
        ze_free(w->alloc, warned, warned_bytes);
    if (ids)
        ze_free(w->alloc, ids, ids_bytes);
    if (c_locale) {
        uselocale(old_locale);
        freelocale(c_locale);
    }
    if (e.replaced)
        ze_world_report(w, ZE_LOG_WARN, ZE_OK, "%u invalid UTF-8 sequence(s) written as U+FFFD",
                        e.replaced);
    return out->failed ? ZE_ERR_OUT_OF_MEMORY : ZE_OK;
}

/* ================================================================ load */

/* A reference to a uuid not (yet) seen while checking: checked again once
 * every entity of the document is known. */
typedef struct pending_ref_t {
    ze_uuid_t uuid;
    uint32_t entity;
    const char *component, *field; /* the kernel's names */
} pending_ref_t;

typedef struct loader_t {
    ze_world_t *w;
    const ze_kernel_t *k;
    ze_scene_report_t *rep;
    const char *text;                  /* the document */
    ze__scene_scan_t scan;             /* its spans */
    ze__jdoc_t doc;                    /* the entity being checked or applied (scene_dom.c) */
    const ze__jnode_t *cur_ent;        /* its root */
    ze_uuid_t *uuids;                  /* [count] */
    ze_array_t pending;                /* pending_ref_t */
    bool pending_oom;                  /* a reference could not be recorded */
    const char *cur_cname, *cur_fname; /* the kernel's names of the value being checked */
    uint32_t count;
    ze_hashmap_t doc_map;   /* uuid -> uint32_t position in the document */
    ze_hashmap_t world_map; /* uuid -> ze_entity_t, the world before the load */
    ze_entity_t *resolved;  /* [count] */
    ze_hashmap_t skip;      /* doc entity << 32 | component -> u8: reported and skipped */
    ze_result failure;      /* the code a FAIL reports */
    /* the value being converted, for the names hook */
    uint32_t cur_entity;
    const char *cur_component, *cur_field;
} loader_t;

/* The entity's tree (ze__jdoc_t), read with jansson-like names. */
typedef ze__jnode_t jv_t;
#define J_TYPE(v, t)     ((v) && (v)->type == (t))
#define J_IS_STRING(v)   J_TYPE(v, ZE__J_STRING)
#define J_IS_OBJECT(v)   J_TYPE(v, ZE__J_OBJECT)
#define J_IS_ARRAY(v)    J_TYPE(v, ZE__J_ARRAY)
#define J_IS_INTEGER(v)  J_TYPE(v, ZE__J_INT)
#define J_IS_REAL(v)     J_TYPE(v, ZE__J_REAL)
#define J_IS_NULL(v)     J_TYPE(v, ZE__J_NULL)
#define J_IS_BOOLEAN(v)  (J_TYPE(v, ZE__J_TRUE) || J_TYPE(v, ZE__J_FALSE))
#define J_STR(L, v)      ze__jn_str(&(L)->doc, (v))
#define J_LEN(v)         ((size_t)(v)->count)
#define J_GET(L, o, key) ze__jn_get(&(L)->doc, (o), (key))
/* Members (or elements) of o in document order; key: the member's name. */
#define J_FOREACH(L, o, key, v)                                                                    \
    for (const jv_t *v = ze__jn_first(&(L)->doc, (o)); v && ((key) = ze__jn_key(&(L)->doc, v), 1); \
         v = ze__jn_next(&(L)->doc, (o), v))
#define J_EACH(L, o, v) \
    for (const jv_t *v = ze__jn_first(&(L)->doc, (o)); v; v = ze__jn_next(&(L)->doc, (o), v))

/* Components reported and skipped, per document entity. A failure to record
 * one only costs a second report of it. */
static void skip_add(loader_t *L, uint32_t ei, uint32_t c)
{
    uint64_t key = (uint64_t)ei << 32 | c;
    ze_hashmap_put(&L->skip, &key, &(uint8_t){1});
}
static bool skip_has(const loader_t *L, uint32_t ei, uint32_t c)
{
    uint64_t key = (uint64_t)ei << 32 | c;
    return ze_hashmap_get(&L->skip, &key) != NULL;
}

__attribute__((format(printf, 3, 4))) static void note(loader_t *L, ze_log_level level,
                                                       const char *fmt, ...)
{
    ze_scene_report_t *rep = L->rep;
    char msg[ZE_LOG_MESSAGE_MAX - 96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The first 16 problems; a failure (ERROR) always. */
    if (rep->problems < 16 || level >= ZE_LOG_ERROR)
        ze_world_report(L->w, level, level >= ZE_LOG_ERROR ? L->failure : ZE_OK, "scene: %s", msg);
    else if (rep->problems == 16)
        ze_world_report(L->w, ZE_LOG_WARN, ZE_OK, "scene: more problems; not reported");
    if (rep->problems < UINT32_MAX)
        rep->problems++;
}
#define PROBLEM(L, ...)   note((L), ZE_LOG_WARN, __VA_ARGS__)
#define FAIL(L, res, ...) ((L)->failure = (res), note((L), ZE_LOG_ERROR, __VA_ARGS__), (res))

/* Edit distance (insert, delete, substitute, ASCII case ignored), capped:
 * names longer than 63 bytes are not compared. */
static uint32_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return UINT32_MAX;
    uint32_t row[64];
    for (size_t j = 0; j <= m; j++)
        row[j] = (uint32_t)j;
    for (size_t i = 1; i <= n; i++) {
        uint32_t diag = row[0];
        row[0] = (uint32_t)i;
        for (size_t j = 1; j <= m; j++) {
            uint32_t up = row[j];
            uint32_t cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
            uint32_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

/* " (did you mean 'X'?)" for the closest candidate within a third of the
 * name's length (at least 1, at most 3 edits); "" when none is close. */
static const char *suggest(const char *key, const char *const *names, uint32_t count, char *buf,
                           size_t cap)
{
    uint32_t limit = (uint32_t)strlen(key) / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    const char *best = NULL;
    uint32_t best_d = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++) {
        if (!names[i])
            continue;
        uint32_t d = edit_distance(key, names[i]);
        if (d <= limit && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    buf[0] = '\0';
    if (best)
        snprintf(buf, cap, " (did you mean '%.63s'?)", best);
    return buf;
}

static const char *suggest_component(const ze_kernel_t *k, const char *key, char *buf, size_t cap)
{
    const char *names[256];
    uint32_t n = 0, total = ze_component_count(k);
    buf[0] = '\0';
    for (uint32_t base = 0; base < total && !buf[0]; base += n) {
        n = 0;
        for (uint32_t c = base; c < total && n < 256; c++)
            names[n++] = ze_component_info(k, (ze_component_t){c})->name;
        suggest(key, names, n, buf, cap);
    }
    return buf;
}

static bool parse_uuid(const loader_t *L, const jv_t *v, ze_uuid_t *out)
{
    return J_IS_STRING(v) && ze_uuid_parse(J_STR(L, v), J_LEN(v), out) == ZE_OK;
}

static bool lookup(const loader_t *L, ze_uuid_t u, ze_entity_t *out)
{
    const uint32_t *pos = ze_hashmap_get(&L->doc_map, &u);
    if (pos) {
        if (out)
            *out = L->resolved ? L->resolved[*pos] : ZE_ENTITY_NULL;
        return true;
    }
    const ze_entity_t *e = ze_hashmap_get(&L->world_map, &u);
    if (e && out)
        *out = *e;
    return e != NULL;
}

static bool get_real(const loader_t *L, const jv_t *v, double *out)
{
    if (J_IS_REAL(v)) {
        *out = v->v.d;
        return true;
    }
    if (J_IS_INTEGER(v)) {
        *out = (double)v->v.i;
        return true;
    }
    if (J_IS_STRING(v)) {
        const char *s = J_STR(L, v);
        if (!strcmp(s, "nan"))
            *out = NAN;
        else if (!strcmp(s, "inf"))
            *out = INFINITY;
        else if (!strcmp(s, "-inf"))
            *out = -INFINITY;
        else
            return false;
        return true;
    }
    return false;
}

static bool get_u64(const loader_t *L, const jv_t *v, uint64_t *out)
{
    if (J_IS_INTEGER(v)) {
        int64_t i = v->v.i;
        if (i < 0)
            return false;
        *out = (uint64_t)i;
        return true;
    }
    if (!J_IS_STRING(v))
        return false;
    const char *s = J_STR(L, v);
    size_t n = J_LEN(v);
    if (n == 0 || n > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return false;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *out = x;
    return true;
}

/* A UUID field's string that is not a uuid, through the kernel's names
 * hook (applying only: each value is resolved once). Nil when it does not
 * resolve; the hook said why. */
static ze_uuid_t resolve_name(loader_t *L, const jv_t *v)
{
    const ze_scene_names_t *nm = &L->k->scene_names;
    const jv_t *ent = L->cur_ent;
    const jv_t *name = J_GET(L, J_GET(L, J_GET(L, ent, "components"), "Name"), "value");
    char path[256];
    snprintf(path, sizeof path, "$.entities[%u].components.%.64s.%.64s", L->cur_entity,
             L->cur_component, L->cur_field);
    ze_scene_name_ctx_t ctx = {
        .world = L->w,
        .json_path = path,
        .entity_name = J_IS_STRING(name) ? J_STR(L, name) : NULL,
        .component = L->cur_component,
        .field = L->cur_field,
    };
    parse_uuid(L, J_GET(L, ent, "uuid"), &ctx.entity);
    ze_uuid_t u = {{0}};
    if (nm->resolve(nm->user, &ctx, J_STR(L, v), J_LEN(v), &u) != ZE_OK || ze_uuid_is_nil(u)) {
        u = (ze_uuid_t){{0}};
        L->rep->unresolved++;
        if (L->rep->problems < UINT32_MAX)
            L->rep->problems++;
    }
    return u;
}

/* One element of type t from v into dst (NULL: check only). Returns NULL,
 * or what was expected. Checking records a reference to a uuid not seen
 * yet (L->pending). */
static const char *convert_elem(loader_t *L, ze_field_type t, const jv_t *v, uint8_t *dst)
{
    switch (t) {
    case ZE_FIELD_BOOL:
        if (!J_IS_BOOLEAN(v))
            return "expected true or false";
        if (dst)
            *dst = v->type == ZE__J_TRUE ? 1 : 0;
        return NULL;
    case ZE_FIELD_U8:
    case ZE_FIELD_I32:
    case ZE_FIELD_U32:
    case ZE_FIELD_I64: {
        static const int64_t lo[] = {0, INT32_MIN, 0, INT64_MIN};
        static const int64_t hi[] = {UINT8_MAX, INT32_MAX, UINT32_MAX, INT64_MAX};
        static const char *const what[] = {
            "expected an integer in 0..255", "expected a 32-bit signed integer",
            "expected a 32-bit unsigned integer", "expected a 64-bit signed integer"};
        uint32_t i = t == ZE_FIELD_U8 ? 0 : t == ZE_FIELD_I32 ? 1 : t == ZE_FIELD_U32 ? 2 : 3;
        if (!J_IS_INTEGER(v) || v->v.i < lo[i] || v->v.i > hi[i])
            return what[i];
        if (dst) {
            int64_t x = v->v.i;
            if (t == ZE_FIELD_U8) {
                *dst = (uint8_t)x;
            } else if (t == ZE_FIELD_I32) {
                int32_t y = (int32_t)x;
                memcpy(dst, &y, 4);
            } else if (t == ZE_FIELD_U32) {
                uint32_t y = (uint32_t)x;
                memcpy(dst, &y, 4);
            } else {
                int64_t y = (int64_t)x;
                memcpy(dst, &y, 8);
            }
        }
        return NULL;
    }
    case ZE_FIELD_U64: {
        uint64_t x;
        if (!get_u64(L, v, &x))
            return "expected a 64-bit unsigned integer (or its decimal string)";
        if (dst)
            memcpy(dst, &x, 8);
        return NULL;
    }
    case ZE_FIELD_F32: {
        double d;
        float f;
        if (!get_real(L, v, &d))
            return "expected a number (or \"nan\", \"inf\", \"-inf\")";
        if (!double_to_f32(d, &f))
            return "number out of the range of a float";
        if (dst)
            memcpy(dst, &f, 4);
        return NULL;
    }
    case ZE_FIELD_F64: {
        double d;
        if (!get_real(L, v, &d))
            return "expected a number (or \"nan\", \"inf\", \"-inf\")";
        if (dst)
            memcpy(dst, &d, 8);
        return NULL;
    }
    case ZE_FIELD_VEC2:
    case ZE_FIELD_VEC3:
    case ZE_FIELD_VEC4:
    case ZE_FIELD_QUAT:
    case ZE_FIELD_MAT4: {
        static const char *const what[] = {
            [ZE_FIELD_VEC2] = "expected an array of 2 numbers",
            [ZE_FIELD_VEC3] = "expected an array of 3 numbers",
            [ZE_FIELD_VEC4] = "expected an array of 4 numbers",
            [ZE_FIELD_QUAT] = "expected an array of 4 numbers (x, y, z, w)",
            [ZE_FIELD_MAT4] = "expected an array of 16 numbers",
        };
        uint32_t n = k_vec_len[t];
        if (!J_IS_ARRAY(v) || J_LEN(v) != n)
            return what[t];
        uint32_t i = 0;
        J_EACH(L, v, x)
        {
            const char *err = convert_elem(L, ZE_FIELD_F32, x, dst ? dst + 4 * i : NULL);
            if (err)
                return err;
            i++;
        }
        return NULL;
    }
    case ZE_FIELD_UUID: {
        ze_uuid_t u;
        if (!parse_uuid(L, v, &u)) {
            if (!L->k->scene_names.resolve)
                return "expected a uuid string";
            if (!J_IS_STRING(v) || J_LEN(v) == 0)
                return "expected a uuid or a name (a non-empty string)";
            if (!dst)
                return NULL;
            u = resolve_name(L, v);
        }
        if (dst)
            memcpy(dst, &u, sizeof u);
        return NULL;
    }
    case ZE_FIELD_ENTITY: {
        ze_entity_t e = ZE_ENTITY_NULL;
        ze_uuid_t u;
        if (J_IS_NULL(v)) {
            /* stays null */
        } else if (!parse_uuid(L, v, &u)) {
            return "expected an entity uuid string or null";
        } else if (!lookup(L, u, dst ? &e : NULL) && !dst) {
            /* maybe an entity further on: checked when all are known */
            pending_ref_t pr = {u, L->cur_entity, L->cur_cname, L->cur_fname};
            if (ze_array_push(&L->pending, &pr) != ZE_OK)
                L->pending_oom = true;
        }
        if (dst)
            memcpy(dst, &e, sizeof e);
        return NULL;
    }
    default:
        return "unsupported field type";
    }
}

static const char *convert_field(loader_t *L, const ze_field_desc_t *fd, const jv_t *v,
                                 uint8_t *dst)
{
    uint32_t n = field_count(fd);
    if (fd->type == ZE_FIELD_CHARS) {
        if (!J_IS_STRING(v))
            return "expected a string";
        size_t len = J_LEN(v);
        if (len >= n)
            return "string too long for the field";
        if (dst) {
            memcpy(dst, J_STR(L, v), len);
            memset(dst + len, 0, n - len);
        }
        return NULL;
    }
    if (!fd->count)
        return convert_elem(L, fd->type, v, dst);
    if (!J_IS_ARRAY(v) || J_LEN(v) != n)
        return "expected an array of the field's length";
    uint32_t i = 0;
    J_EACH(L, v, x)
    {
        const char *err =
            convert_elem(L, fd->type, x, dst ? dst + (size_t)i * k_elem_size[fd->type] : NULL);
        if (err)
            return err;
        i++;
    }
    return NULL;
}

/* Strict base64 (padding required, no whitespace); returns the decoded
 * length, or SIZE_MAX when malformed. dst NULL: measure only. */
static size_t base64_decode(const char *s, size_t n, uint8_t *dst)
{
    if (n % 4)
        return SIZE_MAX;
    size_t out = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            char c = s[i + j];
            int x;
            if (c >= 'A' && c <= 'Z')
                x = c - 'A';
            else if (c >= 'a' && c <= 'z')
                x = c - 'a' + 26;
            else if (c >= '0' && c <= '9')
                x = c - '0' + 52;
            else if (c == '+')
                x = 62;
            else if (c == '/')
                x = 63;
            else if (c == '=' && i + 4 == n && j >= 2 && (j == 3 || s[i + 3] == '='))
                x = -1;
            else
                return SIZE_MAX;
            if (x < 0)
                pad++, x = 0;
            else if (pad)
                return SIZE_MAX;
            v = v << 6 | (uint32_t)x;
        }
        uint8_t b[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
        /* Canonical: the bits under the padding are zero. */
        if ((pad == 1 && b[2]) || (pad == 2 && (b[1] || b[2])))
            return SIZE_MAX;
        for (int j = 0; j < 3 - pad; j++) {
            if (dst)
                dst[out] = b[j];
            out++;
        }
    }
    return out;
}

/* Checks (dst NULL) or applies one component's JSON object. */
static ze_result component_body(loader_t *L, uint32_t ei, const char *cname, uint32_t c,
                                const jv_t *obj, uint8_t *dst)
{
    const ze_component_info_t *info = ze__info(L->k, c);
    const char *key;
    if (!J_IS_OBJECT(obj))
        return FAIL(L, ZE_ERR_PARSE, "$.entities[%u].components.%s: expected an object", ei, cname);
    J_FOREACH(L, obj, key, v)
    {
        if (!info->field_count && info->size && !strcmp(key, RAW_KEY)) {
            if (!J_IS_STRING(v))
                return FAIL(L, ZE_ERR_PARSE,
                            "$.entities[%u].components.%s." RAW_KEY ": expected a string", ei,
                            cname);
            size_t n = base64_decode(J_STR(L, v), J_LEN(v), NULL);
            if (n == SIZE_MAX)
                return FAIL(L, ZE_ERR_PARSE,
                            "$.entities[%u].components.%s." RAW_KEY ": malformed base64", ei,
                            cname);
            if (n != info->size) {
                if (!dst) {
                    PROBLEM(L,
                            "$.entities[%u].components.%s." RAW_KEY ": %zu bytes, the "
                            "component has %u (component skipped)",
                            ei, cname, n, info->size);
                    skip_add(L, ei, c);
                }
            } else if (dst) {
                base64_decode(J_STR(L, v), J_LEN(v), dst);
            }
            continue;
        }
        const ze_field_desc_t *fd = NULL;
        for (uint32_t f = 0; f < info->field_count && !fd; f++)
            if (field_ok(info, &info->fields[f]) && !strcmp(info->fields[f].name, key))
                fd = &info->fields[f];
        if (!fd) {
            if (!dst) {
                char hint[128];
                const char *names[64];
                uint32_t nn = 0;
                for (uint32_t f = 0; f < info->field_count && nn < 64; f++)
                    if (field_ok(info, &info->fields[f]))
                        names[nn++] = info->fields[f].name;
                if (!info->field_count)
                    snprintf(hint, sizeof hint,
                             " (%s was registered without fields: register them, e.g. with "
                             "ZE_COMPONENT_DEFINE_FIELDS, so scene files can set them)",
                             cname);
                else
                    suggest(key, names, nn, hint, sizeof hint);
                PROBLEM(L, "$.entities[%u].components.%s.%s: unknown field (skipped)%s", ei, cname,
                        key, hint);
            }
            continue;
        }
        L->cur_entity = ei;
        L->cur_component = cname;
        L->cur_field = key;
        L->cur_cname = info->name;
        L->cur_fname = fd->name;
        const char *err = convert_field(L, fd, v, dst ? dst + fd->offset : NULL);
        if (err)
            return FAIL(L, ZE_ERR_PARSE, "$.entities[%u].components.%s.%s: %s", ei, cname, key,
                        err);
    }
    return ZE_OK;
}

/* One span of the document through the JSON library. A failure is the
 * document's: malformed JSON at its line and column in the whole text. */
static ze_result parse_span(loader_t *L, ze__json_span_t sp, json_t **out)
{
    json_error_t jerr;
    *out = json_loadb(L->text + sp.off, sp.len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (*out)
        return ZE_OK;
    /* jansson's allocation failures surface as an out-of-memory code or, on
     * some paths, as an error with no position and no text. */
    if (json_error_code(&jerr) == json_error_out_of_memory || (jerr.line < 0 && !jerr.text[0]))
        return FAIL(L, ZE_ERR_OUT_OF_MEMORY,
                    "$: out of memory parsing %zu bytes of JSON (nothing applied; the JSON "
                    "library's memory is the ThirdParty owner's)",
                    sp.len);
    int line, col;
    ze__scene_scan_position(L->text, sp.off, &line, &col);
    if (jerr.line > 0) {
        col = jerr.line == 1 ? col + jerr.column - 1 : jerr.column;
        line += jerr.line - 1;
    }
    return FAIL(L, ZE_ERR_PARSE, "$: malformed JSON at line %d, column %d: %s", line, col,
                jerr.text);
}

/* One entity's span into L->doc (scene_dom.c). A failure is the
 * document's: malformed JSON at its line and column in the whole text. */
static ze_result parse_entity(loader_t *L, uint32_t i)
{
    ze__json_span_t sp = *(const ze__json_span_t *)ze_array_at(&L->scan.entities, i);
    ze_result r = ze__jdoc_parse(&L->doc, L->text + sp.off, sp.len, 2);
    L->cur_ent = r == ZE_OK ? &L->doc.nodes[0] : NULL;
    if (r == ZE_ERR_OUT_OF_MEMORY)
        return FAIL(L, r, "$: out of memory parsing $.entities[%u] (%zu bytes)", i, sp.len);
    if (r != ZE_OK) {
        int line, col;
        ze__scene_scan_position(L->text, sp.off + L->doc.err_at, &line, &col);
        return FAIL(L, r, "$: malformed JSON at line %d, column %d: %s", line, col, L->doc.err);
    }
    return ZE_OK;
}

/* The document's top level: everything but the entities. */
static ze_result validate_header(loader_t *L)
{
    const ze__scene_scan_t *sc = &L->scan;
    json_t *v = NULL;
    if (!sc->root_object) {
        ze_result r = parse_span(L, sc->root, &v);
        json_decref(v);
        return r != ZE_OK ? r : FAIL(L, ZE_ERR_PARSE, "$: expected an object");
    }
    /* Every top-level value through the library first (its tokens), then
     * the checks in the order of the whole-document reader. */
    json_t *format = NULL, *version = NULL;
    bool has_entities = false, entities_ok = sc->entities_array;
    ze_result r = ZE_OK;
    uint32_t nk = sc->others.count;
    for (uint32_t i = 0; i < nk && r == ZE_OK; i++) {
        const ze__scene_key_t *k = ze_array_at(&sc->others, i);
        json_t *key = NULL;
        r = parse_span(L, (ze__json_span_t){k->key.off - 1, k->key.len + 2}, &key);
        if (r != ZE_OK)
            break;
        const char *name = json_string_value(key);
        if (!strcmp(name, "entities"))
            has_entities = true;
        if (!(k->entities && sc->entities_array)) {
            r = parse_span(L, k->value, &v);
            if (r == ZE_OK && !strcmp(name, "format"))
                format = json_incref(v);
            else if (r == ZE_OK && !strcmp(name, "version"))
                version = json_incref(v);
            json_decref(v);
            v = NULL;
        }
        json_decref(key);
    }
    if (r == ZE_OK) {
        if (!json_is_string(format) || strcmp(json_string_value(format), SCENE_FORMAT) != 0)
            r = FAIL(L, ZE_ERR_PARSE, "$.format: expected \"" SCENE_FORMAT "\"");
        else if (!json_is_integer(version) || json_integer_value(version) < 1)
            r = FAIL(L, ZE_ERR_PARSE, "$.version: expected a positive integer");
        else if (json_integer_value(version) != SCENE_VERSION)
            r = FAIL(L, ZE_ERR_UNSUPPORTED, "$.version: %lld, this build reads %d",
                     (long long)json_integer_value(version), SCENE_VERSION);
        else if (!has_entities || !entities_ok)
            r = FAIL(L, ZE_ERR_PARSE, "$.entities: expected an array");
        else if (sc->entity_count > L->w->capacity)
            r = FAIL(L, ZE_ERR_LIMIT, "$.entities: %llu entities, the world's capacity is %u",
                     (unsigned long long)sc->entity_count, L->w->capacity);
    }
    json_decref(format);
    json_decref(version);
    for (uint32_t i = 0; i < nk && r == ZE_OK; i++) {
        const ze__scene_key_t *k = ze_array_at(&sc->others, i);
        json_t *key = NULL;
        r = parse_span(L, (ze__json_span_t){k->key.off - 1, k->key.len + 2}, &key);
        const char *name = key ? json_string_value(key) : "";
        if (r == ZE_OK && strcmp(name, "format") && strcmp(name, "version") &&
            strcmp(name, "entities"))
            PROBLEM(L, "$.%s: unknown key (skipped)", name);
        json_decref(key);
    }
    if (r == ZE_OK)
        L->count = (uint32_t)sc->entity_count;
    return r;
}

/* One entity of the document: its shape, its uuid (recorded), its
 * components' values. */
static ze_result validate_entity(loader_t *L, uint32_t i, const jv_t *ent, uint32_t *fresh_needed)
{
    const char *key;
    if (!J_IS_OBJECT(ent))
        return FAIL(L, ZE_ERR_PARSE, "$.entities[%u]: expected an object", i);
    ze_uuid_t u;
    if (!parse_uuid(L, J_GET(L, ent, "uuid"), &u) || ze_uuid_is_nil(u))
        return FAIL(L, ZE_ERR_PARSE, "$.entities[%u].uuid: expected a non-nil uuid string", i);
    const uint32_t *dup = ze_hashmap_get(&L->doc_map, &u);
    if (dup)
        return FAIL(L, ZE_ERR_PARSE, "$.entities[%u].uuid: repeats $.entities[%u].uuid", i, *dup);
    if (ze_hashmap_put(&L->doc_map, &u, &i) != ZE_OK)
        return ZE_ERR_OUT_OF_MEMORY;
    L->uuids[i] = u;
    if (!ze_hashmap_get(&L->world_map, &u))
        (*fresh_needed)++;
    const jv_t *comps = J_GET(L, ent, "components");
    if (comps && !J_IS_OBJECT(comps))
        return FAIL(L, ZE_ERR_PARSE, "$.entities[%u].components: expected an object", i);
    J_FOREACH(L, ent, key, v)
    {
        if (strcmp(key, "uuid") && strcmp(key, "components"))
            PROBLEM(L, "$.entities[%u].%s: unknown key (skipped)", i, key);
    }
    if (!comps)
        return ZE_OK;
    J_FOREACH(L, comps, key, v)
    {
        ze_component_t c;
        if (ze_component_find(L->k, key, &c) != ZE_OK) {
            char hint[128];
            PROBLEM(L, "$.entities[%u].components.%s: unknown component (skipped)%s", i, key,
                    suggest_component(L->k, key, hint, sizeof hint));
            continue;
        }
        const ze_component_info_t *info = ze__info(L->k, c.id);
        if (c.id == ZE_COMPONENT_ID_UUID) {
            PROBLEM(L,
                    "$.entities[%u].components.%s: the entity's uuid is its \"uuid\" key "
                    "(skipped)",
                    i, key);
            skip_add(L, i, c.id);
            continue;
        }
        if (!info->field_count && info->size && !raw_ok(info)) {
            PROBLEM(L,
                    "$.entities[%u].components.%s: has hooks and no reflection, cannot "
                    "be read from a scene (skipped)",
                    i, key);
            skip_add(L, i, c.id);
            continue;
        }
        ze_result r = component_body(L, i, key, c.id, v, NULL);
        if (r != ZE_OK)
            return r;
    }
    return ZE_OK;
}

/* Every entity, one parsed at a time, then what needed all of them: forward
 * references and the room for new entities. */
static ze_result validate(loader_t *L)
{
    ze_result r = validate_header(L);
    if (r != ZE_OK)
        return r;
    uint32_t fresh_needed = 0;
    for (uint32_t i = 0; i < L->count && r == ZE_OK; i++) {
        r = parse_entity(L, i);
        if (r != ZE_OK)
            break;
        r = validate_entity(L, i, L->cur_ent, &fresh_needed);
        L->cur_ent = NULL;
    }
    if (r != ZE_OK)
        return r;
    if (L->pending_oom)
        return ZE_ERR_OUT_OF_MEMORY;
    const pending_ref_t *last = NULL;
    for (uint32_t p = 0; p < L->pending.count; p++) {
        const pending_ref_t *pr = ze_array_at(&L->pending, p);
        if (lookup(L, pr->uuid, NULL))
            continue;
        /* one report per field, like its first dangling element */
        if (!last || last->entity != pr->entity || last->component != pr->component ||
            last->field != pr->field)
            PROBLEM(L,
                    "$.entities[%u].components.%s.%s: refers to an entity that is not in the "
                    "scene or the world (set to null)",
                    pr->entity, pr->component, pr->field);
        last = pr;
    }
    const ze_world_t *w = L->w;
    uint32_t free_slots = (w->capacity - w->fresh) + (w->fresh - w->alive - w->retired);
    if (fresh_needed > free_slots)
        return FAIL(L, ZE_ERR_LIMIT, "$.entities: %u new entities, the world has room for %u",
                    fresh_needed, free_slots);
    return ZE_OK;
}

static ze_result apply(loader_t *L)
{
    ze_world_t *w = L->w;
    const ze_component_t uc = {ZE_COMPONENT_ID_UUID};
    /* Pass 1: every entity exists. */
    for (uint32_t i = 0; i < L->count; i++) {
        ze_uuid_component_t u = {L->uuids[i]};
        const ze_entity_t *have = ze_hashmap_get(&L->world_map, &u.value);
        if (have) {
            L->resolved[i] = *have;
            continue;
        }
        ze_entity_t e = ze_entity_create(w);
        if (ze_entity_is_null(e))
            return ZE_ERR_OUT_OF_MEMORY;
        L->resolved[i] = e;
        if (ze_component_set(w, e, uc, &u) != ZE_OK)
            return ZE_ERR_OUT_OF_MEMORY;
    }
    /* Pass 2: components, each entity parsed again; references resolve to
     * pass 1's entities. */
    for (uint32_t i = 0; i < L->count; i++) {
        if (parse_entity(L, i) != ZE_OK)
            return ZE_ERR_OUT_OF_MEMORY; /* checked before: only memory can fail */
        const jv_t *comps = J_GET(L, L->cur_ent, "components");
        const char *key;
        ze_entity_t e = L->resolved[i];
        ze_result r = ZE_OK;
        J_FOREACH(L, comps, key, v)
        {
            ze_component_t c;
            if (ze_component_find(L->k, key, &c) != ZE_OK || skip_has(L, i, c.id))
                continue;
            bool had = ze_component_has(w, e, c);
            uint8_t *dst = ze_component_add(w, e, c);
            if (!ze_component_has(w, e, c)) {
                r = ZE_ERR_OUT_OF_MEMORY;
                break;
            }
            if (dst && ze__info(L->k, c.id)->size)       /* a tag's add gives no data */
                component_body(L, i, key, c.id, v, dst); /* validated: cannot fail */
            if (had)
                ze_delta_mark_changed(w, e, c);
        }
        L->cur_ent = NULL;
        if (r != ZE_OK)
            return r;
    }
    return ZE_OK;
}

void ze_kernel_set_scene_names(ze_kernel_t *k, const ze_scene_names_t *names)
{
    ZE__ECS_THREAD_CHECK();
    if (k)
        k->scene_names = names ? *names : (ze_scene_names_t){0};
}

ze_result ze_scene_load_json(ze_world_t *w, const char *json, size_t len, ze_scene_report_t *report)
{
    ZE__ECS_THREAD_CHECK();
    ze_scene_report_t local;
    ze_scene_report_t *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    if (!w || (!json && len))
        return ZE_ERR_INVALID_ARG;
    loader_t L = {.w = w, .k = w->kernel, .rep = rep, .text = json ? json : ""};
    L.doc.alloc = w->alloc;
    if (ze__write_denied(w, true))
        return ze__write_refused(w, "ze_scene_load_json");
    if (ze__world_gate(w) != ZE__GATE_NOW)
        return FAIL(&L, ZE_ERR_STATE, "$: load during an iteration or parallel wave");
    /* The structure first, then the top level and each entity on its own
     * through the JSON library: its tree never holds more than one entity
     * (scene_scan.c). */
    ze_result r = ze__scene_scan(L.text, len, w->capacity, w->alloc, &L.scan);
    if (r == ZE_ERR_PARSE) {
        int line, col;
        ze__scene_scan_position(L.text, L.scan.err_at, &line, &col);
        r = FAIL(&L, ZE_ERR_PARSE, "$: malformed JSON at line %d, column %d: %s", line, col,
                 L.scan.err);
        ze__scene_scan_free(&L.scan);
        return r;
    }
    ze_hashmap_init(&L.doc_map, w->alloc, sizeof(ze_uuid_t), sizeof(uint32_t));
    ze_hashmap_init(&L.skip, w->alloc, sizeof(uint64_t), 1);
    ze_hashmap_init(&L.world_map, w->alloc, sizeof(ze_uuid_t), sizeof(ze_entity_t));
    ZE_ARRAY_INIT(&L.pending, w->alloc, pending_ref_t);
    /* Numbers in the "C" locale whatever the process set (scene_dom.c's
     * strtod). */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    /* The world's uuids (the lowest entity index wins a repeated one). */
    for (uint32_t idx = 0; idx < w->fresh && r == ZE_OK; idx++) {
        ze_entity_t e = ze_entity_from_index(w, idx);
        const ze_uuid_component_t *u =
            ze_entity_is_null(e) ? NULL
                                 : ze_component_get(w, e, (ze_component_t){ZE_COMPONENT_ID_UUID});
        if (u && !ze_uuid_is_nil(u->value) && !ze_hashmap_get(&L.world_map, &u->value))
            r = ze_hashmap_put(&L.world_map, &u->value, &e);
    }
    size_t n = r == ZE_OK ? L.scan.entities.count : 0;
    if (n) {
        L.resolved = ze_alloc(w->alloc, n * sizeof *L.resolved, _Alignof(ze_entity_t));
        L.uuids = ze_alloc(w->alloc, n * sizeof *L.uuids, _Alignof(ze_uuid_t));
        if (!L.resolved || !L.uuids)
            r = ZE_ERR_OUT_OF_MEMORY;
    }
    if (r == ZE_OK)
        r = validate(&L);
    if (r == ZE_OK) {
        r = apply(&L);
        if (r != ZE_OK)
            L.failure = r,
            note(&L, ZE_LOG_ERROR,
                 "$: out of memory while applying: the world holds part of the scene");
        else
            rep->entities = L.count;
    } else if (r == ZE_ERR_OUT_OF_MEMORY) {
        L.failure = r;
        note(&L, ZE_LOG_ERROR, "$: out of memory (nothing applied)");
    }
    if (L.resolved)
        ze_free(w->alloc, L.resolved, n * sizeof *L.resolved);
    if (L.uuids)
        ze_free(w->alloc, L.uuids, n * sizeof *L.uuids);
    ze_array_free(&L.pending);
    ze_hashmap_free(&L.skip);
    ze_hashmap_free(&L.doc_map);
    ze_hashmap_free(&L.world_map);
    ze__scene_scan_free(&L.scan);
    ze__jdoc_free(&L.doc);
    if (c_locale) {
        uselocale(old_locale);
        freelocale(c_locale);
    }
    return r;
}
