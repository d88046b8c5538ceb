/* The inspector's endpoints, answered on the main thread between frames
 * from the world as it stands (docs/inspect.md lists them). Reads only:
 * the writes are api_write.c's. */
#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "inspect/inspect_internal.h"

enum { PAGE_DEFAULT = 100, PAGE_MAX = 1000, LOG_MAX = 256 };

static void finish(ze_inspector_t *in, ze__insp_req_t *req, ze__jw_t *w, unsigned status)
{
    (void)in;
    req->answer = ze__jw_take(w);
    req->content_type = NULL;
    req->status = req->answer ? status : MHD_HTTP_INTERNAL_SERVER_ERROR;
}

void ze__inspect_error(ze_inspector_t *in, ze__insp_req_t *req, unsigned status, const char *msg)
{
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "error");
    ze__jw_str(&w, msg);
    ze__jw_obj_end(&w);
    finish(in, req, &w, status);
}

/* A whole number argument: `def` when absent, false when malformed. */
static bool arg_u64(const ze__insp_req_t *req, const char *key, uint64_t def, uint64_t *out)
{
    const char *s = ze__inspect_arg(req, key);
    *out = def;
    if (!s)
        return true;
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

ze_world_t *ze__inspect_world_arg(ze_inspector_t *in, ze__insp_req_t *req)
{
    uint64_t i;
    ze_kernel_t *k = ze_engine_kernel(in->engine);
    if (!arg_u64(req, "world", 0, &i) || i >= ze_kernel_world_count(k)) {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND, "no such world (?world=INDEX)");
        return NULL;
    }
    return ze_kernel_world_at(k, (uint32_t)i);
}

static void worlds(ze_inspector_t *in, ze__insp_req_t *req)
{
    ze_kernel_t *k = ze_engine_kernel(in->engine);
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    ze__jw_key(&w, "worlds");
    ze__jw_arr(&w);
    for (uint32_t i = 0; i < ze_kernel_world_count(k); i++) {
        ze_world_t *wd = ze_kernel_world_at(k, i);
        ze__jw_obj(&w);
        ze__jw_key(&w, "index");
        ze__jw_u64(&w, i);
        ze__jw_key(&w, "name");
        ze__jw_str(&w, ze_world_name(wd));
        ze__jw_key(&w, "main");
        ze__jw_bool(&w, wd == ze_engine_world(in->engine));
        ze__jw_key(&w, "entities");
        ze__jw_u64(&w, ze_world_entity_count(wd));
        ze__jw_key(&w, "capacity");
        ze__jw_u64(&w, ze_world_capacity(wd));
        ze__jw_key(&w, "systems");
        ze__jw_u64(&w, ze_world_systems(wd, NULL, 0));
        ze__jw_obj_end(&w);
    }
    ze__jw_arr_end(&w);
    ze__jw_key(&w, "components");
    ze__jw_arr(&w);
    for (uint32_t c = 0; c < ze_component_count(k); c++) {
        const ze_component_info_t *ci = ze_component_info(k, (ze_component_t){c});
        if (ci)
            ze__jw_str(&w, ci->name);
    }
    ze__jw_arr_end(&w);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

/* ?with=A,B: the component ids, false (answered) when one is unknown. */
static bool with_arg(ze_inspector_t *in, ze__insp_req_t *req, ze_component_t *ids, uint32_t cap,
                     uint32_t *n)
{
    *n = 0;
    const char *s = ze__inspect_arg(req, "with");
    ze_kernel_t *k = ze_engine_kernel(in->engine);
    while (s && *s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char name[ZE_COMPONENT_NAME_MAX];
        if (len >= sizeof name) {
            ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST,
                              "a component name in ?with= is too long (no such component)");
            return false;
        }
        if (len && *n == cap) {
            char msg[64];
            snprintf(msg, sizeof msg, "at most %u components in ?with=", cap);
            ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST, msg);
            return false;
        }
        if (len) {
            memcpy(name, s, len);
            name[len] = '\0';
            if (ze_component_find(k, name, &ids[*n]) != ZE_OK) {
                char msg[ZE_COMPONENT_NAME_MAX + 40];
                snprintf(msg, sizeof msg, "no component '%s' (?with=A,B)", name);
                ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST, msg);
                return false;
            }
            (*n)++;
        }
        s = comma ? comma + 1 : NULL;
    }
    return true;
}

/* An id is generation << 32 | index: past 2^53 a JSON number loses bits
 * in JavaScript, so ids travel as decimal strings. */
void ze__inspect_entity_id(ze__jw_t *w, ze_entity_t e)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)e.id);
    ze__jw_str(w, s);
}

static void entity_summary(ze__jw_t *w, const ze_world_t *wd, ze_entity_t e)
{
    ze_kernel_t *k = ze_world_kernel(wd);
    ze__jw_obj(w);
    ze__jw_key(w, "id");
    ze__inspect_entity_id(w, e);
    ze__jw_key(w, "index");
    ze__jw_u64(w, (uint32_t)e.id);
    const ze_name_t *name = ze_component_get(wd, e, ZE_ID(ze_name_t));
    if (name) {
        ze__jw_key(w, "name");
        ze__jw_strn(w, name->value, strnlen(name->value, sizeof name->value));
    }
    ze__jw_key(w, "components");
    ze__jw_arr(w);
    ze_component_t ids[64];
    uint32_t n = ze_entity_components(wd, e, ids, ZE_COUNTOF(ids));
    for (uint32_t i = 0; i < n && i < ZE_COUNTOF(ids); i++) {
        const ze_component_info_t *ci = ze_component_info(k, ids[i]);
        ze__jw_str(w, ci ? ci->name : "?");
    }
    ze__jw_arr_end(w);
    ze__jw_obj_end(w);
}

static void entities(ze_inspector_t *in, ze__insp_req_t *req)
{
    ze_world_t *wd = ze__inspect_world_arg(in, req);
    if (!wd)
        return;
    uint64_t offset, limit;
    if (!arg_u64(req, "offset", 0, &offset) || !arg_u64(req, "limit", PAGE_DEFAULT, &limit) ||
        limit > PAGE_MAX) {
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST,
                          "offset and limit are whole numbers (limit at most 1000)");
        return;
    }
    ze_component_t with[8];
    uint32_t nwith;
    if (!with_arg(in, req, with, ZE_COUNTOF(with), &nwith))
        return;
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    ze__jw_key(&w, "world");
    ze__jw_str(&w, ze_world_name(wd));
    ze__jw_key(&w, "offset");
    ze__jw_u64(&w, offset);
    ze__jw_key(&w, "entities");
    ze__jw_arr(&w);
    /* the slots in index order: the same entity keeps its place across pages */
    uint64_t matched = 0, listed = 0;
    uint32_t slots = ze_world_slot_count(wd);
    for (uint32_t i = 0; i < slots; i++) {
        ze_entity_t e = ze_entity_from_index(wd, i);
        if (ze_entity_is_null(e))
            continue;
        bool ok = true;
        for (uint32_t c = 0; c < nwith && ok; c++)
            ok = ze_component_has(wd, e, with[c]);
        if (!ok)
            continue;
        if (matched++ >= offset && listed < limit) {
            entity_summary(&w, wd, e);
            listed++;
        }
    }
    ze__jw_arr_end(&w);
    ze__jw_key(&w, "total");
    ze__jw_u64(&w, matched);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void scalar(ze__jw_t *w, ze_field_type t, const uint8_t *p)
{
    union {
        bool b;
        uint8_t u8;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
    } v;
    switch (t) {
    case ZE_FIELD_BOOL:
        memcpy(&v.b, p, 1);
        ze__jw_bool(w, v.b);
        break;
    case ZE_FIELD_U8:
        ze__jw_u64(w, p[0]);
        break;
    case ZE_FIELD_I32:
        memcpy(&v.i32, p, 4);
        ze__jw_i64(w, v.i32);
        break;
    case ZE_FIELD_U32:
        memcpy(&v.u32, p, 4);
        ze__jw_u64(w, v.u32);
        break;
    case ZE_FIELD_I64:
        memcpy(&v.i64, p, 8);
        ze__jw_i64(w, v.i64);
        break;
    case ZE_FIELD_U64:
    case ZE_FIELD_ENTITY:
        memcpy(&v.u64, p, 8);
        ze__jw_u64(w, v.u64);
        break;
    case ZE_FIELD_F64:
        memcpy(&v.d, p, 8);
        ze__jw_f64(w, v.d);
        break;
    default: /* F32 and the float vectors' elements */
        memcpy(&v.f, p, 4);
        ze__jw_f64(w, v.f);
        break;
    }
}

uint32_t ze__inspect_vector_len(ze_field_type t)
{
    switch (t) {
    case ZE_FIELD_VEC2:
        return 2;
    case ZE_FIELD_VEC3:
        return 3;
    case ZE_FIELD_VEC4:
    case ZE_FIELD_QUAT:
        return 4;
    case ZE_FIELD_MAT4:
        return 16;
    default:
        return 0;
    }
}

uint32_t ze__inspect_field_size(ze_field_type t)
{
    switch (t) {
    case ZE_FIELD_BOOL:
    case ZE_FIELD_U8:
    case ZE_FIELD_CHARS:
        return 1;
    case ZE_FIELD_I32:
    case ZE_FIELD_U32:
    case ZE_FIELD_F32:
        return 4;
    case ZE_FIELD_UUID:
        return 16;
    case ZE_FIELD_I64:
    case ZE_FIELD_U64:
    case ZE_FIELD_F64:
    case ZE_FIELD_ENTITY:
        return 8;
    default:
        return 4 * ze__inspect_vector_len(t);
    }
}

static void field_value(ze__jw_t *w, const ze_field_desc_t *f, const uint8_t *base)
{
    const uint8_t *p = base + f->offset;
    if (f->type == ZE_FIELD_CHARS) {
        uint32_t n = f->count ? f->count : 1;
        ze__jw_strn(w, (const char *)p, strnlen((const char *)p, n));
        return;
    }
    if (f->type == ZE_FIELD_UUID) {
        ze_uuid_t u;
        char s[ZE_UUID_STRING_LEN + 1];
        memcpy(&u, p, sizeof u);
        ze_uuid_format(u, s);
        ze__jw_str(w, s);
        return;
    }
    uint32_t count = f->count > 1 ? f->count : 1, vec = ze__inspect_vector_len(f->type);
    uint32_t size = ze__inspect_field_size(f->type);
    if (count > 1)
        ze__jw_arr(w);
    for (uint32_t i = 0; i < count; i++, p += size) {
        if (!vec) {
            scalar(w, f->type, p);
            continue;
        }
        ze__jw_arr(w);
        for (uint32_t j = 0; j < vec; j++)
            scalar(w, ZE_FIELD_F32, p + 4 * j);
        ze__jw_arr_end(w);
    }
    if (count > 1)
        ze__jw_arr_end(w);
}

bool ze__inspect_parse_entity(const char *s, ze_entity_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || (*end && *end != '/'))
        return false;
    out->id = v;
    return true;
}

static void entity(ze_inspector_t *in, ze__insp_req_t *req, const char *id)
{
    ze_world_t *wd = ze__inspect_world_arg(in, req);
    if (!wd)
        return;
    ze_entity_t e;
    if (!ze__inspect_parse_entity(id, &e) || !ze_entity_alive(wd, e)) {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND, "no such entity (an id from /api/entities)");
        return;
    }
    ze_kernel_t *k = ze_world_kernel(wd);
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    ze__jw_key(&w, "id");
    ze__inspect_entity_id(&w, e);
    ze__jw_key(&w, "components");
    ze__jw_obj(&w);
    ze_component_t ids[64];
    uint32_t n = ze_entity_components(wd, e, ids, ZE_COUNTOF(ids));
    for (uint32_t i = 0; i < n && i < ZE_COUNTOF(ids); i++) {
        const ze_component_info_t *ci = ze_component_info(k, ids[i]);
        if (!ci)
            continue;
        ze__jw_key(&w, ci->name);
        const uint8_t *data = ze_component_get(wd, e, ids[i]);
        if (!ci->size || !data) {
            ze__jw_bool(&w, true); /* a tag: present */
            continue;
        }
        ze__jw_obj(&w);
        if (!ci->field_count) {
            ze__jw_key(&w, "$size"); /* no reflection: only its size */
            ze__jw_u64(&w, ci->size);
        }
        for (uint32_t f = 0; f < ci->field_count; f++) {
            ze__jw_key(&w, ci->fields[f].name);
            field_value(&w, &ci->fields[f], data);
        }
        ze__jw_obj_end(&w);
    }
    ze__jw_obj_end(&w);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void systems(ze_inspector_t *in, ze__insp_req_t *req)
{
    ze_world_t *wd = ze__inspect_world_arg(in, req);
    if (!wd)
        return;
    ze_system_info_t infos[256];
    uint32_t n = ze_world_systems(wd, infos, ZE_COUNTOF(infos));
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    ze__jw_key(&w, "count");
    ze__jw_u64(&w, n);
    ze__jw_key(&w, "systems");
    ze__jw_arr(&w);
    for (uint32_t i = 0; i < n && i < ZE_COUNTOF(infos); i++) {
        ze__jw_obj(&w);
        ze__jw_key(&w, "name");
        ze__jw_str(&w, infos[i].name);
        ze__jw_key(&w, "group");
        ze__jw_str(&w, ze_system_group_name(infos[i].group));
        ze__jw_key(&w, "enabled");
        ze__jw_bool(&w, infos[i].enabled);
        ze__jw_key(&w, "runs");
        ze__jw_u64(&w, infos[i].runs);
        ze__jw_key(&w, "ms");
        ze__jw_f64(&w, infos[i].seconds * 1e3);
        ze__jw_key(&w, "ms_per_run");
        ze__jw_f64(&w, infos[i].runs ? infos[i].seconds * 1e3 / (double)infos[i].runs : 0.0);
        ze__jw_obj_end(&w);
    }
    ze__jw_arr_end(&w);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void gpu_passes(ze__jw_t *w, const ze_render_stats_t *rs)
{
    ze__jw_arr(w);
    for (uint32_t i = 0; i < rs->gpu_pass_count && i < ZE_RENDER_MAX_PASS_TIMES; i++) {
        ze__jw_obj(w);
        ze__jw_key(w, "name");
        ze__jw_str(w, rs->gpu_passes[i].name);
        ze__jw_key(w, "gpu_ms");
        ze__jw_f64(w, rs->gpu_passes[i].gpu_ms);
        ze__jw_obj_end(w);
    }
    ze__jw_arr_end(w);
}

static void stats(ze_inspector_t *in, ze__insp_req_t *req, bool gpu_only)
{
    ze_render_stats_t rs = ze_render_backend_stats(ze_engine_backend(in->engine));
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    if (!gpu_only) {
        double sum = 0.0, max = 0.0;
        for (uint32_t i = 0; i < in->frame_count; i++) {
            sum += in->frame_ms[i];
            max = in->frame_ms[i] > max ? in->frame_ms[i] : max;
        }
        ze_frame_stats_t fs = ze_kernel_frame_stats(ze_engine_kernel(in->engine));
        ze_inspector_stats_t is = ze_inspector_stats(in);
        ze__jw_key(&w, "paused");
        ze__jw_bool(&w, ze_engine_paused(in->engine));
        ze__jw_key(&w, "frame_ms_avg");
        ze__jw_f64(&w, in->frame_count ? sum / in->frame_count : 0.0);
        ze__jw_key(&w, "frame_ms_max");
        ze__jw_f64(&w, max);
        ze__jw_key(&w, "frames_sampled");
        ze__jw_u64(&w, in->frame_count);
        ze__jw_key(&w, "fixed_steps");
        ze__jw_u64(&w, fs.fixed_steps);
        ze__jw_key(&w, "render_frames");
        ze__jw_u64(&w, rs.frames);
        ze__jw_key(&w, "render_cpu_ms");
        ze__jw_f64(&w, rs.thread_cpu_ms);
        ze__jw_key(&w, "instances");
        ze__jw_u64(&w, rs.last_instances);
        ze__jw_key(&w, "lights");
        ze__jw_u64(&w, rs.last_lights);
        ze__jw_key(&w, "draws");
        ze__jw_u64(&w, rs.last_draws);
        ze__jw_key(&w, "draws_visible");
        ze__jw_u64(&w, rs.last_draws_visible);
        ze__jw_key(&w, "triangles");
        ze__jw_u64(&w, rs.last_triangles);
        ze__jw_key(&w, "gpu_memory_bytes");
        ze__jw_u64(&w, rs.gpu_memory_bytes);
        ze__jw_key(&w, "inspector");
        ze__jw_obj(&w);
        ze__jw_key(&w, "requests");
        ze__jw_u64(&w, is.requests);
        ze__jw_key(&w, "connections");
        ze__jw_u64(&w, is.connections);
        ze__jw_key(&w, "refused");
        ze__jw_u64(&w, is.refused);
        ze__jw_key(&w, "last_step_ms");
        ze__jw_f64(&w, is.last_step_ms);
        ze__jw_obj_end(&w);
    }
    ze__jw_key(&w, "gpu_passes");
    gpu_passes(&w, &rs);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void memory(ze_inspector_t *in, ze__insp_req_t *req)
{
    ze_mem_owner_stats_t s[ZE_MEM_OWNER_COUNT];
    ze_mem_snapshot(in->mem, s);
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "owners");
    ze__jw_arr(&w);
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++) {
        ze__jw_obj(&w);
        ze__jw_key(&w, "name");
        ze__jw_str(&w, ze_mem_owner_name((ze_mem_owner)i));
        ze__jw_key(&w, "budget");
        ze__jw_u64(&w, s[i].budget);
        ze__jw_key(&w, "current");
        ze__jw_u64(&w, s[i].current);
        ze__jw_key(&w, "peak");
        ze__jw_u64(&w, s[i].peak);
        ze__jw_key(&w, "regions");
        ze__jw_u64(&w, s[i].regions);
        ze__jw_key(&w, "failures");
        ze__jw_u64(&w, s[i].failures);
        ze__jw_key(&w, "allocations");
        ze__jw_u64(&w, s[i].allocations);
        ze__jw_obj_end(&w);
    }
    ze__jw_arr_end(&w);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

typedef struct asset_walk_t {
    ze__jw_t *w;
    uint64_t offset, limit, seen;
} asset_walk_t;

static bool asset_one(void *user, const ze_asset_info_t *info)
{
    asset_walk_t *a = user;
    if (a->seen++ < a->offset || a->seen > a->offset + a->limit)
        return true; /* counted for the total */
    char u[ZE_UUID_STRING_LEN + 1];
    ze__jw_obj(a->w);
    ze_uuid_format(info->uuid, u);
    ze__jw_key(a->w, "uuid");
    ze__jw_str(a->w, u);
    ze__jw_key(a->w, "type");
    ze__jw_str(a->w, ze_asset_type_name(info->type));
    ze__jw_key(a->w, "state");
    ze__jw_str(a->w, ze_asset_state_name(info->state));
    ze__jw_key(a->w, "path");
    ze__jw_str(a->w, info->path);
    ze__jw_key(a->w, "generation");
    ze__jw_u64(a->w, info->generation);
    if (info->reason && info->reason[0]) {
        ze__jw_key(a->w, "reason");
        ze__jw_str(a->w, info->reason);
    }
    ze__jw_obj_end(a->w);
    return true;
}

static void assets(ze_inspector_t *in, ze__insp_req_t *req)
{
    uint64_t offset, limit;
    if (!arg_u64(req, "offset", 0, &offset) || !arg_u64(req, "limit", PAGE_DEFAULT, &limit) ||
        limit > PAGE_MAX) {
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST,
                          "offset and limit are whole numbers (limit at most 1000)");
        return;
    }
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "assets");
    ze__jw_arr(&w);
    asset_walk_t a = {.w = &w, .offset = offset, .limit = limit};
    const ze_asset_registry_t *reg = ze_engine_registry(in->engine);
    if (reg)
        ze_asset_registry_foreach(reg, asset_one, &a);
    ze__jw_arr_end(&w);
    ze__jw_key(&w, "total");
    ze__jw_u64(&w, a.seen);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void log_ring(ze_inspector_t *in, ze__insp_req_t *req)
{
    uint64_t cursor, limit;
    if (!arg_u64(req, "after", 0, &cursor) || !arg_u64(req, "limit", LOG_MAX, &limit) ||
        limit > LOG_MAX) {
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST,
                          "after (a seq) and limit are whole numbers (limit at most 256)");
        return;
    }
    ze_log_record_t *recs = ze_heap_alloc(in->heap, sizeof *recs * (size_t)(limit ? limit : 1), 16);
    if (!recs) {
        ze__inspect_error(in, req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
        return;
    }
    uint64_t dropped = 0;
    uint32_t n = limit ? ze_log_ring_read(&cursor, recs, (uint32_t)limit, &dropped) : 0;
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "next");
    ze__jw_u64(&w, cursor);
    ze__jw_key(&w, "dropped");
    ze__jw_u64(&w, dropped);
    ze__jw_key(&w, "records");
    ze__jw_arr(&w);
    for (uint32_t i = 0; i < n; i++) {
        ze__jw_obj(&w);
        ze__jw_key(&w, "seq");
        ze__jw_u64(&w, recs[i].seq);
        ze__jw_key(&w, "time_ns");
        ze__jw_u64(&w, recs[i].time_ns);
        ze__jw_key(&w, "thread");
        ze__jw_u64(&w, recs[i].thread);
        ze__jw_key(&w, "level");
        ze__jw_str(&w, ze_log_level_name(recs[i].level));
        ze__jw_key(&w, "channel");
        ze__jw_strn(&w, recs[i].channel, strnlen(recs[i].channel, sizeof recs[i].channel));
        ze__jw_key(&w, "message");
        ze__jw_strn(&w, recs[i].message, strnlen(recs[i].message, sizeof recs[i].message));
        ze__jw_obj_end(&w);
    }
    ze__jw_arr_end(&w);
    ze__jw_obj_end(&w);
    ze_heap_free(in->heap, recs);
    finish(in, req, &w, MHD_HTTP_OK);
}

static void page(ze_inspector_t *in, ze__insp_req_t *req)
{
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_raw(&w, ze__inspect_page, ze__inspect_page_len);
    finish(in, req, &w, MHD_HTTP_OK);
    req->content_type = "text/html; charset=utf-8";
}

static void index_(ze_inspector_t *in, ze__insp_req_t *req)
{
    static const char *const eps[] = {
        "/api/worlds", "/api/entities", "/api/entities/ID", "/api/systems", "/api/stats",
        "/api/gpu",    "/api/memory",   "/api/assets",      "/api/log",
    };
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "endpoints");
    ze__jw_arr(&w);
    for (size_t i = 0; i < ZE_COUNTOF(eps); i++)
        ze__jw_str(&w, eps[i]);
    ze__jw_arr_end(&w);
    ze__jw_key(&w, "writes");
    ze__jw_bool(&w, in->allow_writes);
    ze__jw_obj_end(&w);
    finish(in, req, &w, MHD_HTTP_OK);
}

void ze__inspect_answer(ze_inspector_t *in, ze__insp_req_t *req)
{
    const char *u = req->url;
    if (req->post) {
        ze__inspect_write(in, req);
        return;
    }
    if (strcmp(u, "/") == 0 || strcmp(u, "/index.html") == 0)
        page(in, req);
    else if (strcmp(u, "/api") == 0 || strcmp(u, "/api/") == 0)
        index_(in, req);
    else if (strcmp(u, "/api/worlds") == 0)
        worlds(in, req);
    else if (strcmp(u, "/api/entities") == 0)
        entities(in, req);
    else if (strncmp(u, "/api/entities/", 14) == 0 && !strchr(u + 14, '/'))
        entity(in, req, u + 14);
    else if (strcmp(u, "/api/systems") == 0)
        systems(in, req);
    else if (strcmp(u, "/api/stats") == 0)
        stats(in, req, false);
    else if (strcmp(u, "/api/gpu") == 0)
        stats(in, req, true);
    else if (strcmp(u, "/api/memory") == 0)
        memory(in, req);
    else if (strcmp(u, "/api/assets") == 0)
        assets(in, req);
    else if (strcmp(u, "/api/log") == 0)
        log_ring(in, req);
    else
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND, "no such endpoint (GET /api lists them)");
}
