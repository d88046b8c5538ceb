/* The inspector's writes, applied on the main thread between frames (the
 * server thread has checked the write switch and the token already):
 *   POST /api/pause                               {"paused": true}
 *   POST /api/entities/ID/components/NAME?world=I {"field": value, ...}
 * A field write converts every value first and applies nothing when one is
 * wrong (unknown field, wrong type, out of range); the component is then
 * set as a whole (ze_component_set: change tracking sees it). */
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect/inspect_internal.h"

static void ok_answer(ze_inspector_t *in, ze__insp_req_t *req, const char *what)
{
    ze__jw_t w;
    ze__jw_init(&w, in->heap);
    ze__jw_obj(&w);
    ze__jw_key(&w, "ok");
    ze__jw_str(&w, what);
    ze__jw_key(&w, "frame");
    ze__jw_u64(&w, ze_engine_frame_index(in->engine));
    ze__jw_key(&w, "paused");
    ze__jw_bool(&w, ze_engine_paused(in->engine));
    ze__jw_obj_end(&w);
    req->answer = ze__jw_take(&w);
    req->content_type = NULL;
    req->status = req->answer ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
    atomic_fetch_add(&in->writes, 1);
}

static bool integral(const json_t *v, double lo, double hi, double *out)
{
    if (!json_is_number(v))
        return false;
    double d = json_number_value(v);
    if (d != floor(d) || d < lo || d > hi)
        return false;
    *out = d;
    return true;
}

/* One element of type t from v into p; false when it does not fit. */
static bool put_scalar(ze_field_type t, const json_t *v, uint8_t *p)
{
    double d;
    switch (t) {
    case ZE_FIELD_BOOL: {
        if (!json_is_boolean(v))
            return false;
        bool b = json_is_true(v);
        memcpy(p, &b, 1);
        return true;
    }
    case ZE_FIELD_U8:
        if (!integral(v, 0, 255, &d))
            return false;
        p[0] = (uint8_t)d;
        return true;
    case ZE_FIELD_I32: {
        if (!integral(v, INT32_MIN, INT32_MAX, &d))
            return false;
        int32_t x = (int32_t)d;
        memcpy(p, &x, 4);
        return true;
    }
    case ZE_FIELD_U32: {
        if (!integral(v, 0, UINT32_MAX, &d))
            return false;
        uint32_t x = (uint32_t)d;
        memcpy(p, &x, 4);
        return true;
    }
    case ZE_FIELD_I64: {
        if (!json_is_integer(v))
            return false;
        int64_t x = (int64_t)json_integer_value(v);
        memcpy(p, &x, 8);
        return true;
    }
    case ZE_FIELD_U64:
    case ZE_FIELD_ENTITY: {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return false;
        uint64_t x = (uint64_t)json_integer_value(v);
        memcpy(p, &x, 8);
        return true;
    }
    case ZE_FIELD_F64:
        if (!json_is_number(v))
            return false;
        d = json_number_value(v);
        memcpy(p, &d, 8);
        return true;
    default: { /* F32, vector elements: finite, within float's range */
        if (!json_is_number(v) || !(fabs(json_number_value(v)) <= FLT_MAX))
            return false;
        float f = (float)json_number_value(v);
        memcpy(p, &f, 4);
        return true;
    }
    }
}

static bool put_element(ze_field_type t, const json_t *v, uint8_t *p)
{
    uint32_t vec = ze__inspect_vector_len(t);
    if (!vec)
        return put_scalar(t, v, p);
    if (!json_is_array(v) || json_array_size(v) != vec)
        return false;
    for (uint32_t j = 0; j < vec; j++)
        if (!put_scalar(ZE_FIELD_F32, json_array_get(v, j), p + 4 * j))
            return false;
    return true;
}

static bool put_field(const ze_field_desc_t *f, const json_t *v, uint8_t *base)
{
    uint8_t *p = base + f->offset;
    if (f->type == ZE_FIELD_CHARS) {
        uint32_t n = f->count ? f->count : 1;
        if (!json_is_string(v) || json_string_length(v) >= n)
            return false;
        memset(p, 0, n);
        memcpy(p, json_string_value(v), json_string_length(v));
        return true;
    }
    if (f->type == ZE_FIELD_UUID) {
        ze_uuid_t u;
        if (!json_is_string(v) ||
            ze_uuid_parse(json_string_value(v), json_string_length(v), &u) != ZE_OK)
            return false;
        memcpy(p, &u, sizeof u);
        return true;
    }
    uint32_t count = f->count > 1 ? f->count : 1, size = ze__inspect_field_size(f->type);
    if (count == 1)
        return put_element(f->type, v, p);
    if (!json_is_array(v) || json_array_size(v) != count)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (!put_element(f->type, json_array_get(v, i), p + (size_t)i * size))
            return false;
    return true;
}

static void set_component(ze_inspector_t *in, ze__insp_req_t *req, json_t *body, const char *rest)
{
    /* rest: "ID/components/NAME" */
    ze_entity_t e;
    const char *slash = strchr(rest, '/');
    if (!ze__inspect_parse_entity(rest, &e) || !slash || strncmp(slash, "/components/", 12) != 0) {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND,
                          "writes go to /api/entities/ID/components/NAME");
        return;
    }
    const char *name = slash + 12;
    ze_kernel_t *k = ze_engine_kernel(in->engine);
    ze_world_t *wd = ze__inspect_world_arg(in, req);
    if (!wd)
        return;
    ze_component_t c;
    if (!ze_entity_alive(wd, e)) {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND, "no such entity");
        return;
    }
    if (ze_component_find(k, name, &c) != ZE_OK || !ze_component_has(wd, e, c)) {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND, "the entity has no such component");
        return;
    }
    const ze_component_info_t *ci = ze_component_info(k, c);
    if (!ci->size || !ci->field_count) {
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST,
                          "the component has no reflected fields to write");
        return;
    }
    uint8_t *copy = ze_heap_alloc(in->heap, ci->size, ci->align ? ci->align : 16);
    if (!copy) {
        ze__inspect_error(in, req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
        return;
    }
    memcpy(copy, ze_component_get(wd, e, c), ci->size);
    const char *key;
    json_t *v;
    char msg[200] = "";
    json_object_foreach(body, key, v)
    {
        const ze_field_desc_t *f = NULL;
        for (uint32_t i = 0; i < ci->field_count && !f; i++)
            if (strcmp(ci->fields[i].name, key) == 0)
                f = &ci->fields[i];
        if (!f) {
            snprintf(msg, sizeof msg, "%.60s has no field '%.60s'", ci->name, key);
            break;
        }
        if (!put_field(f, v, copy)) {
            snprintf(msg, sizeof msg, "%.60s.%.60s: the value does not fit the field's type",
                     ci->name, key);
            break;
        }
    }
    ze_result r = msg[0] ? ZE_OK : ze_component_set(wd, e, c, copy);
    ze_heap_free(in->heap, copy);
    if (msg[0])
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST, msg);
    else if (r != ZE_OK)
        ze__inspect_error(in, req, MHD_HTTP_CONFLICT, ze_result_str(r));
    else
        ok_answer(in, req, "set");
}

void ze__inspect_write(ze_inspector_t *in, ze__insp_req_t *req)
{
    json_error_t err;
    json_t *body = json_loadb(req->body, req->body_len, 0, &err);
    if (!body || !json_is_object(body)) {
        char msg[200];
        snprintf(msg, sizeof msg, "the body is not a JSON object: %.150s",
                 body ? "another value" : err.text);
        json_decref(body);
        ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST, msg);
        return;
    }
    if (strcmp(req->url, "/api/pause") == 0) {
        json_t *p = json_object_get(body, "paused");
        if (!json_is_boolean(p))
            ze__inspect_error(in, req, MHD_HTTP_BAD_REQUEST, "{\"paused\": true|false}");
        else {
            ze_engine_set_paused(in->engine, json_is_true(p));
            ok_answer(in, req, json_is_true(p) ? "paused" : "running");
        }
    } else if (strncmp(req->url, "/api/entities/", 14) == 0) {
        set_component(in, req, body, req->url + 14);
    } else {
        ze__inspect_error(in, req, MHD_HTTP_NOT_FOUND,
                          "writes: /api/pause, /api/entities/ID/components/NAME");
    }
    json_decref(body);
}
