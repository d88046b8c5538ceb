/* glTF images (loaded and checked structurally, not decoded), samplers,
 * textures and PBR metallic-roughness materials with their texture
 * references, KHR_texture_transform and KHR_materials_emissive_strength. */
#include "cook/cook_internal.h"
#include "zengine/cook.h"

/* ------------------------------------------------------------------ images */

/* The image's bytes (an external file, a data: URI or a bufferView),
 * checked structurally against its signature and mimeType. */
static ze_result load_image(ze__gl_ctx_t *c, const char *uri, int64_t view, const char *mime,
                            ze_model_image_t *img)
{
    const uint8_t *data;
    size_t size;
    if (uri) {
        const char *rel, *data_mime;
        size_t m2 = ze__gl_push_key(c, "uri");
        ZE__TRY(ze__gl_load_uri(c, uri, true, &data, &size, &rel, &data_mime));
        ze__gl_pop(c, m2);
        img->uri = rel;
        if (data_mime)
            mime = mime ? mime : data_mime;
    } else {
        const ze__gl_view_t *v = &c->views[view];
        if (v->stride) {
            ze__gl_push_key(c, "bufferView");
            return ZE__GL_FAIL(c, "bufferView %lld of an image must not define byteStride",
                               (long long)view);
        }
        data = ze__gl_view_data(c, v);
        size = v->length;
    }
    ze_image_format fmt = ze__image_sniff(data, size);
    const char *why = NULL;
    bool ok = true;
    if (fmt == ZE_IMAGE_FORMAT_PNG)
        ok = ze__png_check(data, size, &img->width, &img->height, &why);
    else if (fmt == ZE_IMAGE_FORMAT_JPEG)
        ok = ze__jpeg_check(data, size, &img->width, &img->height, &why);
    else if (!c->ext_other_images)
        return ZE__GL_FAIL(c, "image data (%zu bytes) is neither PNG nor JPEG", size);
    if (!ok)
        return ZE__GL_FAIL(c, "%s", why);
    if (mime && fmt != ZE_IMAGE_FORMAT_UNKNOWN &&
        strcmp(mime, fmt == ZE_IMAGE_FORMAT_PNG ? "image/png" : "image/jpeg") != 0)
        return ZE__GL_FAIL(c, "mimeType is %s but the data is %s", mime,
                           fmt == ZE_IMAGE_FORMAT_PNG ? "PNG" : "JPEG");
    img->format = fmt;
    img->data = data;
    img->size = size;
    return ZE_OK;
}

ze_result ze__gl_parse_images(ze__gl_ctx_t *c)
{
    ze_model_image_t *images =
        ze__astore_array(c->store, c->nimages + 1u, sizeof(ze_model_image_t), 16, true);
    if (!images)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "images");
    for (uint32_t i = 0; i < c->nimages; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ze_model_image_t *img = &images[i];
        ZE__TRY(ze__gl_element(c, c->j_images, i, &j));
        ZE__TRY(ze__gl_common(c, j, &img->name));
        const char *uri, *mime;
        int64_t view;
        ZE__TRY(ze__gl_get_string(c, j, "uri", false, &uri));
        ZE__TRY(ze__gl_get_ref(c, j, "bufferView", false, c->nviews, "bufferView", &view));
        ZE__TRY(ze__gl_get_string(c, j, "mimeType", false, &mime));
        if (mime && strcmp(mime, "image/png") != 0 && strcmp(mime, "image/jpeg") != 0) {
            ze__gl_push_key(c, "mimeType");
            return ZE__GL_FAIL(c, "mimeType '%.60s' is neither image/png nor image/jpeg", mime);
        }
        if (uri && view >= 0)
            return ZE__GL_FAIL(c, "uri and bufferView must not both be defined");
        if (!uri && view < 0)
            return ZE__GL_FAIL(c, "an image needs a uri or a bufferView");
        if (view >= 0 && !mime) {
            ze__gl_push_key(c, "mimeType");
            return ZE__GL_FAIL(c, "required property is missing (the image is in a bufferView)");
        }
        ze_result r = load_image(c, uri, view, mime, img);
        if (r != ZE_OK) {
            /* Only the data's own failures degrade (an out-of-memory does
               not): the message an import would fail with becomes the
               image's problem. */
            if (!c->keep_bad_images || r == ZE_ERR_OUT_OF_MEMORY)
                return r;
            img->problem = ze__astore_strdup(c->store, c->err->message);
            if (!img->problem)
                return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
            c->err->message[0] = 0;
            img->format = ZE_IMAGE_FORMAT_UNKNOWN;
            img->data = NULL;
            img->size = 0;
            img->width = img->height = 0;
        }
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->images = images;
    c->model->image_count = c->nimages;
    return ZE_OK;
}

/* ---------------------------------------------------------------- samplers */

static bool in_set(uint64_t v, const uint32_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v == set[i])
            return true;
    return false;
}

static ze_result sampler_enum(ze__gl_ctx_t *c, json_t *j, const char *key, const uint32_t *set,
                              size_t n, uint32_t *out)
{
    uint64_t v = 0;
    bool present;
    ZE__TRY(ze__gl_get_uint(c, j, key, false, 0, UINT32_MAX, &v, &present));
    if (present && !in_set(v, set, n)) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "%llu is not a valid value", (unsigned long long)v);
    }
    *out = (uint32_t)v;
    return ZE_OK;
}

ze_result ze__gl_parse_samplers(ze__gl_ctx_t *c)
{
    static const uint32_t mag[] = {9728, 9729};
    static const uint32_t min[] = {9728, 9729, 9984, 9985, 9986, 9987};
    static const uint32_t wrap[] = {33071, 33648, 10497};
    ze_model_sampler_t *samplers =
        ze__astore_array(c->store, c->nsamplers + 1u, sizeof(ze_model_sampler_t), 16, true);
    if (!samplers)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "samplers");
    for (uint32_t i = 0; i < c->nsamplers; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ze_model_sampler_t *s = &samplers[i];
        ZE__TRY(ze__gl_element(c, c->j_samplers, i, &j));
        ZE__TRY(ze__gl_common(c, j, NULL));
        ZE__TRY(sampler_enum(c, j, "magFilter", mag, ZE_COUNTOF(mag), &s->mag_filter));
        ZE__TRY(sampler_enum(c, j, "minFilter", min, ZE_COUNTOF(min), &s->min_filter));
        ZE__TRY(sampler_enum(c, j, "wrapS", wrap, ZE_COUNTOF(wrap), &s->wrap_s));
        ZE__TRY(sampler_enum(c, j, "wrapT", wrap, ZE_COUNTOF(wrap), &s->wrap_t));
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->samplers = samplers;
    c->model->sampler_count = c->nsamplers;
    return ZE_OK;
}

/* ---------------------------------------------------------------- textures */

ze_result ze__gl_parse_textures(ze__gl_ctx_t *c)
{
    ze_model_texture_t *textures =
        ze__astore_array(c->store, c->ntextures + 1u, sizeof(ze_model_texture_t), 16, true);
    if (!textures)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "textures");
    for (uint32_t i = 0; i < c->ntextures; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        int64_t sampler, source;
        ZE__TRY(ze__gl_element(c, c->j_textures, i, &j));
        ZE__TRY(ze__gl_common(c, j, &textures[i].name));
        ZE__TRY(ze__gl_get_ref(c, j, "sampler", false, c->nsamplers, "sampler", &sampler));
        ZE__TRY(ze__gl_get_ref(c, j, "source", false, c->nimages, "image", &source));
        textures[i].sampler = (int32_t)sampler;
        textures[i].image = (int32_t)source;
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->textures = textures;
    c->model->texture_count = c->ntextures;
    return ZE_OK;
}

/* --------------------------------------------------------------- materials */

static ze_result unit_number(ze__gl_ctx_t *c, json_t *j, const char *key, float *out)
{
    double v;
    bool present;
    ZE__TRY(ze__gl_get_number(c, j, key, false, &v, &present));
    if (!present)
        return ZE_OK;
    if (v < 0.0 || v > 1.0) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "%g is outside [0, 1]", v);
    }
    *out = (float)v;
    return ZE_OK;
}

static ze_result unit_numbers(ze__gl_ctx_t *c, json_t *j, const char *key, size_t n, float *out)
{
    double v[4];
    bool present;
    ZE__TRY(ze__gl_get_numbers(c, j, key, n, v, &present));
    if (!present)
        return ZE_OK;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0.0 || v[i] > 1.0) {
            ze__gl_push_key(c, key);
            ze__gl_push_index(c, i);
            return ZE__GL_FAIL(c, "%g is outside [0, 1]", v[i]);
        }
        out[i] = (float)v[i];
    }
    return ZE_OK;
}

/* A textureInfo (or normal/occlusion textureInfo: `extra` names its
 * scale/strength property). */
static ze_result parse_texref(ze__gl_ctx_t *c, json_t *parent, const char *key, const char *extra,
                              ze_model_texref_t *out)
{
    out->texture = -1;
    out->texcoord = 0;
    out->scale = 1.0f;
    out->has_transform = false;
    out->offset = (ze_vec2_t){0.0f, 0.0f};
    out->rotation = 0.0f;
    out->uv_scale = (ze_vec2_t){1.0f, 1.0f};
    json_t *j;
    ZE__TRY(ze__gl_get_object(c, parent, key, false, &j));
    if (!j)
        return ZE_OK;
    size_t mark = ze__gl_push_key(c, key);
    int64_t index;
    uint64_t texcoord = 0;
    ZE__TRY(ze__gl_common(c, j, NULL));
    ZE__TRY(ze__gl_get_ref(c, j, "index", true, c->ntextures, "texture", &index));
    ZE__TRY(ze__gl_get_uint(c, j, "texCoord", false, 0, 63, &texcoord, NULL));
    if (extra) {
        double v;
        bool present;
        ZE__TRY(ze__gl_get_number(c, j, extra, false, &v, &present));
        if (present) {
            if (strcmp(extra, "strength") == 0 && (v < 0.0 || v > 1.0)) {
                ze__gl_push_key(c, extra);
                return ZE__GL_FAIL(c, "%g is outside [0, 1]", v);
            }
            out->scale = (float)v;
        }
    }
    json_t *tt;
    ZE__TRY(ze__gl_extension(c, j, "KHR_texture_transform", &tt));
    if (tt) {
        size_t m2 = ze__gl_push_key(c, "extensions");
        ze__gl_push_key(c, "KHR_texture_transform");
        double off[2] = {0, 0}, scale[2] = {1, 1}, rot = 0;
        uint64_t tc;
        bool has_tc;
        ZE__TRY(ze__gl_common(c, tt, NULL));
        ZE__TRY(ze__gl_get_numbers(c, tt, "offset", 2, off, NULL));
        ZE__TRY(ze__gl_get_numbers(c, tt, "scale", 2, scale, NULL));
        ZE__TRY(ze__gl_get_number(c, tt, "rotation", false, &rot, NULL));
        ZE__TRY(ze__gl_get_uint(c, tt, "texCoord", false, 0, 63, &tc, &has_tc));
        if (has_tc)
            texcoord = tc;
        out->has_transform = true;
        out->offset = (ze_vec2_t){(float)off[0], (float)off[1]};
        out->uv_scale = (ze_vec2_t){(float)scale[0], (float)scale[1]};
        out->rotation = (float)rot;
        ze__gl_pop(c, m2);
    }
    out->texture = (int32_t)index;
    out->texcoord = (uint32_t)texcoord;
    ze__gl_pop(c, mark);
    return ZE_OK;
}

static ze_result parse_material(ze__gl_ctx_t *c, json_t *j, ze_model_material_t *m)
{
    m->base_color_factor = (ze_vec4_t){1, 1, 1, 1};
    m->metallic_factor = 1.0f;
    m->roughness_factor = 1.0f;
    m->emissive_strength = 1.0f;
    m->alpha_mode = ZE_ALPHA_OPAQUE;
    m->alpha_cutoff = 0.5f;
    ZE__TRY(ze__gl_common(c, j, &m->name));
    json_t *pbr;
    ZE__TRY(ze__gl_get_object(c, j, "pbrMetallicRoughness", false, &pbr));
    if (pbr) {
        size_t mark = ze__gl_push_key(c, "pbrMetallicRoughness");
        float f[4] = {1, 1, 1, 1};
        ZE__TRY(ze__gl_common(c, pbr, NULL));
        ZE__TRY(unit_numbers(c, pbr, "baseColorFactor", 4, f));
        m->base_color_factor = (ze_vec4_t){f[0], f[1], f[2], f[3]};
        ZE__TRY(unit_number(c, pbr, "metallicFactor", &m->metallic_factor));
        ZE__TRY(unit_number(c, pbr, "roughnessFactor", &m->roughness_factor));
        ZE__TRY(parse_texref(c, pbr, "baseColorTexture", NULL, &m->base_color));
        ZE__TRY(parse_texref(c, pbr, "metallicRoughnessTexture", NULL, &m->metallic_roughness));
        ze__gl_pop(c, mark);
    } else {
        m->base_color.texture = m->metallic_roughness.texture = -1;
    }
    ZE__TRY(parse_texref(c, j, "normalTexture", "scale", &m->normal));
    ZE__TRY(parse_texref(c, j, "occlusionTexture", "strength", &m->occlusion));
    ZE__TRY(parse_texref(c, j, "emissiveTexture", NULL, &m->emissive));
    float e[3] = {0, 0, 0};
    ZE__TRY(unit_numbers(c, j, "emissiveFactor", 3, e));
    m->emissive_factor = (ze_vec3_t){e[0], e[1], e[2]};
    const char *alpha;
    ZE__TRY(ze__gl_get_string(c, j, "alphaMode", false, &alpha));
    if (alpha) {
        if (strcmp(alpha, "OPAQUE") == 0)
            m->alpha_mode = ZE_ALPHA_OPAQUE;
        else if (strcmp(alpha, "MASK") == 0)
            m->alpha_mode = ZE_ALPHA_MASK;
        else if (strcmp(alpha, "BLEND") == 0)
            m->alpha_mode = ZE_ALPHA_BLEND;
        else {
            ze__gl_push_key(c, "alphaMode");
            return ZE__GL_FAIL(c, "'%.40s' is not one of OPAQUE, MASK, BLEND", alpha);
        }
    }
    double cutoff;
    bool has_cutoff;
    ZE__TRY(ze__gl_get_number(c, j, "alphaCutoff", false, &cutoff, &has_cutoff));
    if (has_cutoff) {
        if (cutoff < 0.0) {
            ze__gl_push_key(c, "alphaCutoff");
            return ZE__GL_FAIL(c, "%g is negative", cutoff);
        }
        m->alpha_cutoff = (float)cutoff;
    }
    ZE__TRY(ze__gl_get_bool(c, j, "doubleSided", &m->double_sided));
    json_t *es;
    ZE__TRY(ze__gl_extension(c, j, "KHR_materials_emissive_strength", &es));
    if (es) {
        size_t mark = ze__gl_push_key(c, "extensions");
        ze__gl_push_key(c, "KHR_materials_emissive_strength");
        double s;
        bool present;
        ZE__TRY(ze__gl_common(c, es, NULL));
        ZE__TRY(ze__gl_get_number(c, es, "emissiveStrength", false, &s, &present));
        if (present) {
            if (s < 0.0) {
                ze__gl_push_key(c, "emissiveStrength");
                return ZE__GL_FAIL(c, "%g is negative", s);
            }
            m->emissive_strength = (float)s;
        }
        ze__gl_pop(c, mark);
    }
    return ZE_OK;
}

ze_result ze__gl_parse_materials(ze__gl_ctx_t *c)
{
    ze_model_material_t *mats =
        ze__astore_array(c->store, c->nmaterials + 1u, sizeof(ze_model_material_t), 16, true);
    if (!mats)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "materials");
    for (uint32_t i = 0; i < c->nmaterials; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ZE__TRY(ze__gl_element(c, c->j_materials, i, &j));
        ZE__TRY(parse_material(c, j, &mats[i]));
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->materials = mats;
    c->model->material_count = c->nmaterials;
    return ZE_OK;
}
