/* Importer settings applied to an imported model before it is cooked:
 * scale, up axis, flipped UVs. Baked into the vertices (so a mesh used on
 * its own, and its bounds, see them) and, as a similarity transform
 * C = scale * R, into the node hierarchy: every local transform L becomes
 * C L C^-1, so the world transform of a vertex is C W v, what the baked
 * mesh under the converted nodes gives. For the one rotation there is
 * (Z-up to Y-up, -90 degrees about X) a node's scale only swaps its y and z
 * components, so TRS stays exact. */
#include <math.h>

#include "cook/cook_internal.h"

static ze_vec3_t conv(ze_vec3_t v, float k, bool z_up)
{
    /* -90 degrees about X: (x, y, z) -> (x, z, -y) */
    return z_up ? (ze_vec3_t){k * v.x, k * v.z, -k * v.y} : (ze_vec3_t){k * v.x, k * v.y, k * v.z};
}

static void conv_array(float *p, uint32_t n, uint32_t stride, float k, bool z_up)
{
    for (uint32_t i = 0; i < n; i++, p += stride) {
        ze_vec3_t v = conv((ze_vec3_t){p[0], p[1], p[2]}, k, z_up);
        p[0] = v.x;
        p[1] = v.y;
        p[2] = v.z;
    }
}

/* The model's arrays are the importer's own allocations (const to the
 * cooker's readers); this is the one writer before cooking. */
void ze__cook_apply_settings(ze_model_t *model, const ze_import_settings_t *s)
{
    float k = (float)s->scale;
    bool z_up = s->up_axis == ZE_UP_AXIS_Z;
    bool move = k != 1.0f || z_up;
    bool have = false;
    ze_vec3_t lo = {0}, hi = {0};
    for (uint32_t m = 0; m < model->mesh_count; m++) {
        const ze_model_mesh_t *mesh = &model->meshes[m];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            ze_model_primitive_t *pr = (ze_model_primitive_t *)&mesh->primitives[p];
            if (pr->skipped)
                continue;
            if (move) {
                conv_array((float *)pr->positions, pr->vertex_count, 3, k, z_up);
                if (pr->normals && z_up)
                    conv_array((float *)pr->normals, pr->vertex_count, 3, 1.0f, z_up);
                if (pr->tangents && z_up)
                    conv_array((float *)pr->tangents, pr->vertex_count, 4, 1.0f, z_up);
                /* the box's corners map to the new box's (k > 0) */
                ze_vec3_t a = conv(pr->min, k, z_up), b = conv(pr->max, k, z_up);
                pr->min = (ze_vec3_t){fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)};
                pr->max = (ze_vec3_t){fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)};
            }
            for (int t = 0; t < 2 && s->flip_uvs; t++) {
                float *uv = (float *)pr->texcoords[t];
                for (uint32_t i = 0; uv && i < pr->vertex_count; i++)
                    uv[2 * i + 1] = 1.0f - uv[2 * i + 1];
            }
            lo = have ? (ze_vec3_t){fminf(lo.x, pr->min.x), fminf(lo.y, pr->min.y),
                                    fminf(lo.z, pr->min.z)}
                      : pr->min;
            hi = have ? (ze_vec3_t){fmaxf(hi.x, pr->max.x), fmaxf(hi.y, pr->max.y),
                                    fmaxf(hi.z, pr->max.z)}
                      : pr->max;
            have = true;
        }
    }
    if (!move)
        return;
    if (have) {
        model->min = lo;
        model->max = hi;
    }
    ze_quat_t r = ze_quat_from_axis_angle((ze_vec3_t){1.0f, 0.0f, 0.0f}, -(float)M_PI / 2.0f);
    ze_quat_t r_inv = {-r.x, -r.y, -r.z, r.w};
    for (uint32_t i = 0; i < model->node_count; i++) {
        ze_model_node_t *n = (ze_model_node_t *)&model->nodes[i];
        n->translation = conv(n->translation, k, z_up);
        if (z_up) {
            n->rotation = ze_quat_normalize(ze_quat_mul(ze_quat_mul(r, n->rotation), r_inv));
            n->scale = (ze_vec3_t){n->scale.x, n->scale.z, n->scale.y};
        }
        n->local = ze_mat4_from_trs(n->translation, n->rotation, n->scale);
    }
}
