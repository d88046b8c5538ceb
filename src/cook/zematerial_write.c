/* The .zematerial writer (the format is described in
 * src/asset/zematerial.c). Part of the cooker. */
#include "cook/cook_internal.h"
#include "zengine/cook.h"

/* ----------------------------------------------------------------- writer */

static json_t *vec(const float *f, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_real((double)f[i]));
    return a;
}

static json_t *uuid_json(ze_uuid_t u)
{
    char s[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(u, s);
    return json_string(s);
}

static json_t *texref_json(const ze_model_texref_t *t, const ze_uuid_t *texture_uuids)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "texture", uuid_json(texture_uuids[t->texture]));
    json_object_set_new(o, "texcoord", json_integer(t->texcoord));
    json_object_set_new(o, "scale", json_real((double)t->scale));
    if (t->has_transform) {
        json_t *tr = json_object();
        float off[2] = {t->offset.x, t->offset.y}, sc[2] = {t->uv_scale.x, t->uv_scale.y};
        json_object_set_new(tr, "offset", vec(off, 2));
        json_object_set_new(tr, "rotation", json_real((double)t->rotation));
        json_object_set_new(tr, "scale", vec(sc, 2));
        json_object_set_new(o, "transform", tr);
    }
    return o;
}

ze_result ze_asset_zematerial_write(const ze_model_t *model, uint32_t index, ze_uuid_t uuid,
                                    const ze_uuid_t *texture_uuids, ze_allocator_t alloc,
                                    char **text, size_t *size)
{
    ZE_CHECK(model && text && size && index < model->material_count, ZE_ERR_INVALID_ARG);
    alloc = ze__asset_alloc_or_default(alloc);
    const ze_model_material_t *m = &model->materials[index];
    const ze_model_texref_t *refs[5] = {&m->base_color, &m->metallic_roughness, &m->normal,
                                        &m->occlusion, &m->emissive};
    for (int i = 0; i < 5; i++)
        ZE_CHECK(refs[i]->texture < 0 || texture_uuids != NULL, ZE_ERR_INVALID_ARG);
    json_t *o = json_object();
    if (!o)
        return ZE_ERR_OUT_OF_MEMORY;
    float bc[4] = {m->base_color_factor.x, m->base_color_factor.y, m->base_color_factor.z,
                   m->base_color_factor.w};
    float em[3] = {m->emissive_factor.x, m->emissive_factor.y, m->emissive_factor.z};
    json_object_set_new(o, "format", json_string("zematerial"));
    json_object_set_new(o, "version", json_integer(ZE_ZEMATERIAL_VERSION));
    json_object_set_new(o, "uuid", uuid_json(uuid));
    json_object_set_new(o, "name", json_string(m->name ? m->name : ""));
    json_object_set_new(o, "alpha_mode", json_string(ze__zematerial_alpha[m->alpha_mode]));
    json_object_set_new(o, "alpha_cutoff", json_real((double)m->alpha_cutoff));
    json_object_set_new(o, "double_sided", json_boolean(m->double_sided));
    json_object_set_new(o, "base_color_factor", vec(bc, 4));
    json_object_set_new(o, "metallic_factor", json_real((double)m->metallic_factor));
    json_object_set_new(o, "roughness_factor", json_real((double)m->roughness_factor));
    json_object_set_new(o, "emissive_factor", vec(em, 3));
    json_object_set_new(o, "emissive_strength", json_real((double)m->emissive_strength));
    json_t *tex = json_object();
    for (int i = 0; tex && i < 5; i++)
        if (refs[i]->texture >= 0 && !ze_uuid_is_nil(texture_uuids[refs[i]->texture]))
            json_object_set_new(tex, ze__zematerial_slots[i], texref_json(refs[i], texture_uuids));
    json_object_set_new(o, "textures", tex);

    const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(9);
    size_t n = json_dumpb(o, NULL, 0, flags);
    char *buf = n ? ze_alloc(alloc, n + 1, 16) : NULL;
    if (!buf) {
        json_decref(o);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (json_dumpb(o, buf, n, flags) != n) {
        json_decref(o);
        ze_free(alloc, buf, n + 1);
        return ZE_ERR_INTERNAL;
    }
    json_decref(o);
    buf[n] = '\n';
    *text = buf;
    *size = n + 1;
    return ZE_OK;
}
