/* .zematerial: the cooked material, JSON (jansson), version 1.
 *
 *   {
 *     "format": "zematerial", "version": 1,
 *     "uuid": "<material uuid>", "name": "...",
 *     "alpha_mode": "opaque" | "mask" | "blend", "alpha_cutoff": 0.5,
 *     "double_sided": false,
 *     "base_color_factor": [r, g, b, a], "metallic_factor": 1,
 *     "roughness_factor": 1, "emissive_factor": [r, g, b],
 *     "emissive_strength": 1,
 *     "textures": {            (only the slots in use)
 *       "base_color" | "metallic_roughness" | "normal" | "occlusion" |
 *       "emissive": {
 *         "texture": "<texture uuid>", "texcoord": 0,
 *         "scale": 1,           (normal scale / occlusion strength)
 *         "transform": { "offset": [u, v], "rotation": r, "scale": [u, v] }
 *       }
 *     }
 *   }
 *
 * Keys are written in this order with reals at 9 significant digits, so the
 * same material always gives the same bytes. The reader is strict: unknown
 * keys, wrong types and out-of-range factors are errors.
 */
#include "asset/asset_internal.h"

/* The file's key names, shared with the writer (src/cook/zematerial_write.c). */
const char *const ze__zematerial_slots[5] = {"base_color", "metallic_roughness", "normal",
                                             "occlusion", "emissive"};
const char *const ze__zematerial_alpha[3] = {"opaque", "mask", "blend"};

/* The writer is the cooker's (src/cook/zematerial_write.c). */

/* ----------------------------------------------------------------- reader */

typedef struct rd_t {
    ze__asset_error_t *err;
} rd_t;

static ze_result rfail(rd_t *r, const char *path, const char *msg)
{
    ze__asset_error_set(r->err, "zematerial: %s: %s", path, msg);
    return ZE_ERR_PARSE;
}

static ze_result only_keys(rd_t *r, json_t *o, const char *path, const char *const *keys, size_t n)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < n; i++)
            if (strcmp(key, keys[i]) == 0)
                known = true;
        if (!known) {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown key '%.80s'", key);
            return rfail(r, path, msg);
        }
    }
    return ZE_OK;
}

static ze_result rd_num(rd_t *r, json_t *o, const char *key, double lo, double hi, float *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return rfail(r, key, "missing");
    if (!json_is_number(v))
        return rfail(r, key, "must be a number");
    double d = json_number_value(v);
    if (d < lo || d > hi)
        return rfail(r, key, "out of range");
    *out = (float)d;
    return ZE_OK;
}

static ze_result rd_vec(rd_t *r, json_t *o, const char *key, size_t n, double lo, double hi,
                        float *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return rfail(r, key, "missing");
    if (!json_is_array(v) || json_array_size(v) != n)
        return rfail(r, key, "wrong length or not an array");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e))
            return rfail(r, key, "must hold numbers");
        double d = json_number_value(e);
        if (d < lo || d > hi)
            return rfail(r, key, "out of range");
        out[i] = (float)d;
    }
    return ZE_OK;
}

static ze_result rd_uuid(rd_t *r, json_t *o, const char *key, ze_uuid_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return rfail(r, key, "must be a uuid string");
    if (ze_uuid_parse(json_string_value(v), json_string_length(v), out) != ZE_OK)
        return rfail(r, key, "is not a uuid");
    return ZE_OK;
}

static ze_result rd_texture(rd_t *r, json_t *o, ze_zematerial_texture_t *t)
{
    static const char *const keys[] = {"texture", "texcoord", "scale", "transform"};
    ZE__TRY(only_keys(r, o, "textures", keys, ZE_COUNTOF(keys)));
    ZE__TRY(rd_uuid(r, o, "texture", &t->texture));
    float tc;
    json_t *jtc = json_object_get(o, "texcoord");
    if (!json_is_integer(jtc))
        return rfail(r, "texcoord", "must be an integer");
    ZE__TRY(rd_num(r, o, "texcoord", 0, 63, &tc));
    t->texcoord = (uint32_t)tc;
    ZE__TRY(rd_num(r, o, "scale", -1e30, 1e30, &t->scale));
    t->offset = (ze_vec2_t){0, 0};
    t->rotation = 0;
    t->uv_scale = (ze_vec2_t){1, 1};
    json_t *tr = json_object_get(o, "transform");
    if (tr) {
        static const char *const tkeys[] = {"offset", "rotation", "scale"};
        if (!json_is_object(tr))
            return rfail(r, "transform", "must be an object");
        ZE__TRY(only_keys(r, tr, "transform", tkeys, ZE_COUNTOF(tkeys)));
        float off[2], sc[2];
        ZE__TRY(rd_vec(r, tr, "offset", 2, -1e30, 1e30, off));
        ZE__TRY(rd_num(r, tr, "rotation", -1e30, 1e30, &t->rotation));
        ZE__TRY(rd_vec(r, tr, "scale", 2, -1e30, 1e30, sc));
        t->offset = (ze_vec2_t){off[0], off[1]};
        t->uv_scale = (ze_vec2_t){sc[0], sc[1]};
    }
    t->present = true;
    return ZE_OK;
}

static ze_result rd_material(rd_t *r, json_t *o, ze_zematerial_t *m)
{
    static const char *const keys[] = {"format",
                                       "version",
                                       "uuid",
                                       "name",
                                       "alpha_mode",
                                       "alpha_cutoff",
                                       "double_sided",
                                       "base_color_factor",
                                       "metallic_factor",
                                       "roughness_factor",
                                       "emissive_factor",
                                       "emissive_strength",
                                       "textures"};
    if (!json_is_object(o))
        return rfail(r, "/", "must be an object");
    json_t *fmt = json_object_get(o, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "zematerial") != 0)
        return rfail(r, "format", "not a zematerial document");
    json_t *ver = json_object_get(o, "version");
    if (!json_is_integer(ver))
        return rfail(r, "version", "must be an integer");
    if (json_integer_value(ver) != ZE_ZEMATERIAL_VERSION) {
        ze__asset_error_set(r->err, "zematerial: version %lld is not supported (this reader: %d)",
                            (long long)json_integer_value(ver), ZE_ZEMATERIAL_VERSION);
        return ZE_ERR_UNSUPPORTED;
    }
    ZE__TRY(only_keys(r, o, "/", keys, ZE_COUNTOF(keys)));
    ZE__TRY(rd_uuid(r, o, "uuid", &m->uuid));
    json_t *name = json_object_get(o, "name");
    if (!json_is_string(name))
        return rfail(r, "name", "must be a string");
    snprintf(m->name, sizeof m->name, "%s", json_string_value(name));
    json_t *am = json_object_get(o, "alpha_mode");
    if (!json_is_string(am))
        return rfail(r, "alpha_mode", "must be a string");
    bool found = false;
    for (int i = 0; i < 3; i++)
        if (strcmp(json_string_value(am), ze__zematerial_alpha[i]) == 0) {
            m->alpha_mode = (ze_alpha_mode)i;
            found = true;
        }
    if (!found)
        return rfail(r, "alpha_mode", "must be opaque, mask or blend");
    ZE__TRY(rd_num(r, o, "alpha_cutoff", 0, 1e30, &m->alpha_cutoff));
    json_t *ds = json_object_get(o, "double_sided");
    if (!json_is_boolean(ds))
        return rfail(r, "double_sided", "must be a boolean");
    m->double_sided = json_is_true(ds);
    float bc[4], em[3];
    ZE__TRY(rd_vec(r, o, "base_color_factor", 4, 0, 1, bc));
    m->base_color_factor = (ze_vec4_t){bc[0], bc[1], bc[2], bc[3]};
    ZE__TRY(rd_num(r, o, "metallic_factor", 0, 1, &m->metallic_factor));
    ZE__TRY(rd_num(r, o, "roughness_factor", 0, 1, &m->roughness_factor));
    ZE__TRY(rd_vec(r, o, "emissive_factor", 3, 0, 1, em));
    m->emissive_factor = (ze_vec3_t){em[0], em[1], em[2]};
    ZE__TRY(rd_num(r, o, "emissive_strength", 0, 1e30, &m->emissive_strength));
    json_t *tex = json_object_get(o, "textures");
    if (!json_is_object(tex))
        return rfail(r, "textures", "must be an object");
    ZE__TRY(only_keys(r, tex, "textures", ze__zematerial_slots, 5));
    ze_zematerial_texture_t *slots[5] = {&m->base_color, &m->metallic_roughness, &m->normal,
                                         &m->occlusion, &m->emissive};
    for (int i = 0; i < 5; i++) {
        json_t *t = json_object_get(tex, ze__zematerial_slots[i]);
        if (!t)
            continue;
        if (!json_is_object(t))
            return rfail(r, ze__zematerial_slots[i], "must be an object");
        ZE__TRY(rd_texture(r, t, slots[i]));
    }
    return ZE_OK;
}

ze_result ze__asset_zematerial_read(const void *text, size_t size, ze_zematerial_t *out,
                                    ze__asset_error_t *err)
{
    ze__asset_error_t scratch;
    if (!err)
        err = &scratch;
    err->message[0] = 0;
    ZE_CHECK(out != NULL && (text != NULL || size == 0), ZE_ERR_INVALID_ARG);
    json_error_t jerr;
    json_t *root = json_loadb(size ? text : "", size, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        ze__asset_error_set(err, "zematerial: invalid JSON at line %d, column %d: %s", jerr.line,
                            jerr.column, jerr.text);
        return ZE_ERR_PARSE;
    }
    ze_zematerial_t m;
    memset(&m, 0, sizeof m);
    rd_t r = {err};
    ze_result res = rd_material(&r, root, &m);
    json_decref(root);
    if (res == ZE_OK)
        *out = m;
    return res;
}
