/* Importer settings: the "settings" object of a `.meta`, validated into
 * ze_import_settings_t, and its hash, which is part of an artifact's
 * identity (a change re-imports).
 *
 * Why strict: a misspelt key ("flip_uv") silently ignored would cook with
 * the defaults and look like an importer bug; every key is known, typed and
 * ranged, and the one error names it. The runtime validates before an
 * import starts (the asset keeps its last good artifact on an error) and
 * the cooker validates again (it also runs by hand). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "asset/asset_internal.h"

enum {
    APPLIES_MODEL = 1, /* gltf, assimp */
    APPLIES_IMAGE = 2, /* image */
    APPLIES_HDR = 4,   /* hdr */
};

typedef enum key_id { K_SCALE, K_UP_AXIS, K_FLIP_UVS, K_MIPS, K_COMPRESSION, K_LOD_COUNT } key_id;

static const struct {
    const char *name;
    key_id id;
    int applies;
} k_keys[] = {
    {"scale", K_SCALE, APPLIES_MODEL},
    {"up_axis", K_UP_AXIS, APPLIES_MODEL},
    {"flip_uvs", K_FLIP_UVS, APPLIES_MODEL},
    {"mips", K_MIPS, APPLIES_MODEL | APPLIES_IMAGE | APPLIES_HDR},
    {"compression", K_COMPRESSION, APPLIES_MODEL | APPLIES_IMAGE},
    {"lod_count", K_LOD_COUNT, APPLIES_MODEL},
};

/* Limits: a scale beyond these is a unit mistake, not a wish. */
#define SCALE_MAX 10000.0
enum { LOD_COUNT_MAX = ZE_ZEMESH_LOD_MAX };

ze_import_settings_t ze_import_settings_default(void)
{
    return (ze_import_settings_t){
        .scale = 1.0, .compression = ZE_TEX_COMPRESSION_AUTO, .lod_count = 1};
}

static int applies_of(const char *importer)
{
    if (!importer)
        return 0;
    if (strcmp(importer, "gltf") == 0 || strcmp(importer, "assimp") == 0)
        return APPLIES_MODEL;
    if (strcmp(importer, "image") == 0)
        return APPLIES_IMAGE;
    if (strcmp(importer, "hdr") == 0)
        return APPLIES_HDR;
    return 0;
}

static ze_result fail(const ze_diag_sink_t *diag, const char *subject, ze_import_settings_t *out,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static ze_result fail(const ze_diag_sink_t *diag, const char *subject, ze_import_settings_t *out,
                      const char *fmt, ...)
{
    *out = ze_import_settings_default();
    va_list ap;
    va_start(ap, fmt);
    ze_diagv(diag, ZE_LOG_ERROR, ZE_ERR_PARSE, "asset", subject ? subject : "", fmt, ap);
    va_end(ap);
    return ZE_ERR_PARSE;
}

static ze_result take(const char *key, key_id id, json_t *v, ze_import_settings_t *s,
                      const ze_diag_sink_t *diag, const char *subject)
{
    switch (id) {
    case K_SCALE: {
        double d = json_is_number(v) ? json_number_value(v) : NAN;
        if (!json_is_number(v))
            return fail(diag, subject, s, "settings.%s: expected a number", key);
        if (!(d > 0.0 && d <= SCALE_MAX))
            return fail(diag, subject, s, "settings.%s: %g is out of range (0, %g]", key, d,
                        SCALE_MAX);
        s->scale = d;
        return ZE_OK;
    }
    case K_UP_AXIS: {
        const char *a = json_string_value(v);
        if (a && strcmp(a, "y") == 0)
            s->up_axis = ZE_UP_AXIS_Y;
        else if (a && strcmp(a, "z") == 0)
            s->up_axis = ZE_UP_AXIS_Z;
        else
            return fail(diag, subject, s, "settings.%s: expected \"y\" or \"z\"", key);
        return ZE_OK;
    }
    case K_FLIP_UVS:
    case K_MIPS:
        if (!json_is_boolean(v))
            return fail(diag, subject, s, "settings.%s: expected true or false", key);
        if (id == K_FLIP_UVS)
            s->flip_uvs = json_is_true(v);
        else
            s->no_mips = !json_is_true(v);
        return ZE_OK;
    case K_COMPRESSION: {
        static const struct {
            const char *name;
            ze_tex_compression c;
        } k_comp[] = {
            {"auto", ZE_TEX_COMPRESSION_AUTO}, {"none", ZE_TEX_COMPRESSION_NONE},
            {"bc1", ZE_TEX_COMPRESSION_BC1},   {"bc3", ZE_TEX_COMPRESSION_BC3},
            {"bc4", ZE_TEX_COMPRESSION_BC4},   {"bc5", ZE_TEX_COMPRESSION_BC5},
        };
        const char *c = json_string_value(v);
        for (size_t i = 0; c && i < ZE_COUNTOF(k_comp); i++)
            if (strcmp(c, k_comp[i].name) == 0) {
                s->compression = k_comp[i].c;
                return ZE_OK;
            }
        return fail(diag, subject, s,
                    "settings.%s: expected \"auto\", \"none\", \"bc1\", \"bc3\", \"bc4\" or "
                    "\"bc5\"",
                    key);
    }
    case K_LOD_COUNT: {
        if (!json_is_integer(v))
            return fail(diag, subject, s, "settings.%s: expected an integer", key);
        json_int_t n = json_integer_value(v);
        if (n < 1 || n > LOD_COUNT_MAX)
            return fail(diag, subject, s, "settings.%s: %lld is out of range [1, %d]", key,
                        (long long)n, LOD_COUNT_MAX);
        s->lod_count = (uint32_t)n;
        return ZE_OK;
    }
    }
    return ZE_ERR_INTERNAL;
}

ze_result ze_import_settings_parse(const char *json, size_t len, const char *importer,
                                   ze_import_settings_t *out, const char *subject,
                                   const ze_diag_sink_t *diag)
{
    ZE_CHECK(out, ZE_ERR_INVALID_ARG);
    *out = ze_import_settings_default();
    if (!json || len == 0)
        return ZE_OK;
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(root)) {
        json_decref(root);
        return fail(diag, subject, out, "settings: not a JSON object%s%s", root ? "" : ": ",
                    root ? "" : jerr.text);
    }
    int applies = applies_of(importer);
    ze_result r = ZE_OK;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        size_t k = 0;
        while (k < ZE_COUNTOF(k_keys) && strcmp(k_keys[k].name, key) != 0)
            k++;
        if (k == ZE_COUNTOF(k_keys)) {
            r = fail(diag, subject, out,
                     "settings.%.64s: unknown setting (known: scale, up_axis, flip_uvs, mips, "
                     "compression, lod_count)",
                     key);
            break;
        }
        if (!(k_keys[k].applies & applies)) {
            r = fail(diag, subject, out, "settings.%s: does not apply to the %s importer", key,
                     importer ? importer : "(none)");
            break;
        }
        if ((r = take(key, k_keys[k].id, v, out, diag, subject)) != ZE_OK)
            break;
    }
    json_decref(root);
    return r;
}

uint64_t ze_import_settings_hash(const ze_import_settings_t *s)
{
    if (!s)
        return 0;
    ze_import_settings_t d = ze_import_settings_default();
    if (s->scale == d.scale && s->up_axis == d.up_axis && s->flip_uvs == d.flip_uvs &&
        s->no_mips == d.no_mips && s->compression == d.compression && s->lod_count == d.lod_count)
        return 0; /* so sidecars from before settings existed stay current */
    /* Fields packed explicitly: the struct's padding is not part of it. */
    uint8_t buf[32] = {0};
    memcpy(buf, &s->scale, sizeof s->scale);
    buf[8] = (uint8_t)s->up_axis;
    buf[9] = s->flip_uvs;
    buf[10] = s->no_mips;
    buf[11] = (uint8_t)s->compression;
    memcpy(buf + 12, &s->lod_count, sizeof s->lod_count);
    return ze_hash64(buf, 16, 0x5e77u) | 1u;
}
