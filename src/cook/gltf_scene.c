/* glTF cameras, the node hierarchy (TRS or a decomposable matrix; disjoint
 * strict trees: one parent at most, no cycles, unique children), scenes of
 * root nodes, skins and animations (validated, not imported: the scene and
 * animation formats come with later slices). */
#include <math.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"

enum { CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_FLOAT = 5126 };

#define ROTATION_TOLERANCE 1e-3 /* |length - 1| of a node's quaternion */
#define MATRIX_TOLERANCE   1e-3 /* cosine between a matrix's basis columns */

/* ----------------------------------------------------------------- cameras */

static ze_result positive(ze__gl_ctx_t *c, json_t *j, const char *key, bool required,
                          bool allow_zero, float *out, bool *present)
{
    double v = 0;
    bool has;
    ZE__TRY(ze__gl_get_number(c, j, key, required, &v, &has));
    if (present)
        *present = has;
    if (!has)
        return ZE_OK;
    if (allow_zero ? v < 0.0 : v <= 0.0) {
        ze__gl_push_key(c, key);
        return ZE__GL_FAIL(c, "%g must be %s", v, allow_zero ? "at least 0" : "greater than 0");
    }
    *out = (float)v;
    return ZE_OK;
}

static ze_result parse_camera(ze__gl_ctx_t *c, json_t *j, ze_model_camera_t *cam)
{
    const char *type;
    json_t *persp, *ortho;
    ZE__TRY(ze__gl_common(c, j, &cam->name));
    ZE__TRY(ze__gl_get_string(c, j, "type", true, &type));
    ZE__TRY(ze__gl_get_object(c, j, "perspective", false, &persp));
    ZE__TRY(ze__gl_get_object(c, j, "orthographic", false, &ortho));
    if (strcmp(type, "perspective") == 0) {
        if (!persp) {
            ze__gl_push_key(c, "perspective");
            return ZE__GL_FAIL(c, "required property is missing (type is perspective)");
        }
        if (ortho) {
            ze__gl_push_key(c, "orthographic");
            return ZE__GL_FAIL(c, "must not be defined when type is perspective");
        }
        size_t mark = ze__gl_push_key(c, "perspective");
        bool has_far;
        cam->type = ZE_CAMERA_PERSPECTIVE;
        ZE__TRY(ze__gl_common(c, persp, NULL));
        ZE__TRY(positive(c, persp, "yfov", true, false, &cam->yfov, NULL));
        ZE__TRY(positive(c, persp, "znear", true, false, &cam->znear, NULL));
        ZE__TRY(positive(c, persp, "zfar", false, false, &cam->zfar, &has_far));
        ZE__TRY(positive(c, persp, "aspectRatio", false, false, &cam->aspect_ratio, NULL));
        if (has_far && !(cam->zfar > cam->znear)) {
            ze__gl_push_key(c, "zfar");
            return ZE__GL_FAIL(c, "zfar %g must be greater than znear %g", (double)cam->zfar,
                               (double)cam->znear);
        }
        ze__gl_pop(c, mark);
    } else if (strcmp(type, "orthographic") == 0) {
        if (!ortho) {
            ze__gl_push_key(c, "orthographic");
            return ZE__GL_FAIL(c, "required property is missing (type is orthographic)");
        }
        if (persp) {
            ze__gl_push_key(c, "perspective");
            return ZE__GL_FAIL(c, "must not be defined when type is orthographic");
        }
        size_t mark = ze__gl_push_key(c, "orthographic");
        double xmag, ymag;
        cam->type = ZE_CAMERA_ORTHOGRAPHIC;
        ZE__TRY(ze__gl_common(c, ortho, NULL));
        ZE__TRY(ze__gl_get_number(c, ortho, "xmag", true, &xmag, NULL));
        ZE__TRY(ze__gl_get_number(c, ortho, "ymag", true, &ymag, NULL));
        ZE__TRY(positive(c, ortho, "zfar", true, false, &cam->zfar, NULL));
        ZE__TRY(positive(c, ortho, "znear", true, true, &cam->znear, NULL));
        if (xmag == 0.0 || ymag == 0.0) {
            ze__gl_push_key(c, xmag == 0.0 ? "xmag" : "ymag");
            return ZE__GL_FAIL(c, "must not be zero");
        }
        if (!(cam->zfar > cam->znear)) {
            ze__gl_push_key(c, "zfar");
            return ZE__GL_FAIL(c, "zfar %g must be greater than znear %g", (double)cam->zfar,
                               (double)cam->znear);
        }
        cam->xmag = (float)xmag;
        cam->ymag = (float)ymag;
        ze__gl_pop(c, mark);
    } else {
        ze__gl_push_key(c, "type");
        return ZE__GL_FAIL(c, "'%.40s' is neither perspective nor orthographic", type);
    }
    return ZE_OK;
}

ze_result ze__gl_parse_cameras(ze__gl_ctx_t *c)
{
    ze_model_camera_t *cams =
        ze__astore_array(c->store, c->ncameras + 1u, sizeof(ze_model_camera_t), 16, true);
    if (!cams)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t top = ze__gl_push_key(c, "cameras");
    for (uint32_t i = 0; i < c->ncameras; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ZE__TRY(ze__gl_element(c, c->j_cameras, i, &j));
        ZE__TRY(parse_camera(c, j, &cams[i]));
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->cameras = cams;
    c->model->camera_count = c->ncameras;
    return ZE_OK;
}

/* ------------------------------------------------------------------- nodes */

/* A glTF matrix (column-major) into TRS; false when it is not decomposable
 * (projective last row, or shear). */
static bool decompose(const double m[16], ze_vec3_t *t, ze_quat_t *r, ze_vec3_t *s)
{
    if (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0)
        return false;
    double col[3][3];
    double len[3];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            col[i][k] = m[i * 4 + k];
        len[i] = sqrt(col[i][0] * col[i][0] + col[i][1] * col[i][1] + col[i][2] * col[i][2]);
    }
    for (int i = 0; i < 3; i++)
        for (int k = i + 1; k < 3; k++) {
            if (len[i] == 0.0 || len[k] == 0.0)
                continue;
            double d = col[i][0] * col[k][0] + col[i][1] * col[k][1] + col[i][2] * col[k][2];
            if (fabs(d) > MATRIX_TOLERANCE * len[i] * len[k])
                return false;
        }
    double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
                 col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
                 col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
    if (det < 0)
        len[0] = -len[0];
    *t = (ze_vec3_t){(float)m[12], (float)m[13], (float)m[14]};
    *s = (ze_vec3_t){(float)len[0], (float)len[1], (float)len[2]};
    /* Rotation matrix R[row][col] from the normalized columns. */
    double R[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            R[k][i] = len[i] != 0.0 ? col[i][k] / len[i] : (i == k ? 1.0 : 0.0);
    double tr = R[0][0] + R[1][1] + R[2][2], qx, qy, qz, qw;
    if (tr > 0) {
        double q = sqrt(tr + 1.0) * 2;
        qw = 0.25 * q;
        qx = (R[2][1] - R[1][2]) / q;
        qy = (R[0][2] - R[2][0]) / q;
        qz = (R[1][0] - R[0][1]) / q;
    } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
        double q = sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]) * 2;
        qw = (R[2][1] - R[1][2]) / q;
        qx = 0.25 * q;
        qy = (R[0][1] + R[1][0]) / q;
        qz = (R[0][2] + R[2][0]) / q;
    } else if (R[1][1] > R[2][2]) {
        double q = sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]) * 2;
        qw = (R[0][2] - R[2][0]) / q;
        qx = (R[0][1] + R[1][0]) / q;
        qy = 0.25 * q;
        qz = (R[1][2] + R[2][1]) / q;
    } else {
        double q = sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]) * 2;
        qw = (R[1][0] - R[0][1]) / q;
        qx = (R[0][2] + R[2][0]) / q;
        qy = (R[1][2] + R[2][1]) / q;
        qz = 0.25 * q;
    }
    *r = (ze_quat_t){(float)qx, (float)qy, (float)qz, (float)qw};
    return true;
}

static bool mesh_has_skin_attributes(ze__gl_ctx_t *c, uint32_t mesh)
{
    json_t *prims = json_object_get(json_array_get(c->j_meshes, mesh), "primitives");
    for (size_t k = 0; k < json_array_size(prims); k++) {
        json_t *attrs = json_object_get(json_array_get(prims, k), "attributes");
        if (!json_object_get(attrs, "JOINTS_0") || !json_object_get(attrs, "WEIGHTS_0"))
            return false;
    }
    return true;
}

static ze_result parse_node(ze__gl_ctx_t *c, json_t *j, ze_model_node_t *n)
{
    int64_t camera, skin, mesh;
    uint32_t *children, nchildren;
    double mat[16], t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    bool has_m, has_t, has_r, has_s;
    ZE__TRY(ze__gl_common(c, j, &n->name));
    ZE__TRY(ze__gl_get_ref(c, j, "camera", false, c->ncameras, "camera", &camera));
    ZE__TRY(ze__gl_get_refs(c, j, "children", c->nnodes, "node", &children, &nchildren));
    ZE__TRY(ze__gl_get_ref(c, j, "skin", false, c->nskins, "skin", &skin));
    ZE__TRY(ze__gl_get_ref(c, j, "mesh", false, c->nmeshes, "mesh", &mesh));
    ZE__TRY(ze__gl_get_numbers(c, j, "matrix", 16, mat, &has_m));
    ZE__TRY(ze__gl_get_numbers(c, j, "translation", 3, t, &has_t));
    ZE__TRY(ze__gl_get_numbers(c, j, "rotation", 4, r, &has_r));
    ZE__TRY(ze__gl_get_numbers(c, j, "scale", 3, s, &has_s));
    if (has_m && (has_t || has_r || has_s)) {
        ze__gl_push_key(c, "matrix");
        return ZE__GL_FAIL(c, "matrix must not be defined together with translation, rotation "
                              "or scale");
    }
    if (has_r) {
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (fabs(len - 1.0) > ROTATION_TOLERANCE) {
            ze__gl_push_key(c, "rotation");
            return ZE__GL_FAIL(c, "rotation is not a unit quaternion (length %g)", len);
        }
    }
    if (skin >= 0 && mesh < 0) {
        ze__gl_push_key(c, "skin");
        return ZE__GL_FAIL(c, "a node with a skin must also have a mesh");
    }
    if (skin >= 0 && !mesh_has_skin_attributes(c, (uint32_t)mesh)) {
        ze__gl_push_key(c, "skin");
        return ZE__GL_FAIL(c,
                           "mesh %lld of a skinned node lacks JOINTS_0/WEIGHTS_0 in a "
                           "primitive",
                           (long long)mesh);
    }
    json_t *jw;
    uint32_t nw;
    ZE__TRY(ze__gl_get_array(c, j, "weights", false, &jw, &nw));
    if (jw) {
        size_t wmark = ze__gl_push_key(c, "weights");
        if (mesh < 0)
            return ZE__GL_FAIL(c, "weights need a mesh on the node");
        if (nw != c->mesh_targets[mesh])
            return ZE__GL_FAIL(c, "has %u weights but mesh %lld has %u morph targets", nw,
                               (long long)mesh, c->mesh_targets[mesh]);
        for (uint32_t k = 0; k < nw; k++)
            if (!json_is_number(json_array_get(jw, k))) {
                ze__gl_push_index(c, k);
                return ZE__GL_FAIL(c, "must be a number");
            }
        ze__gl_pop(c, wmark);
    }
    n->camera = (int32_t)camera;
    n->skin = (int32_t)skin;
    n->mesh = (int32_t)mesh;
    n->children = children;
    n->child_count = nchildren;
    n->has_matrix = has_m;
    if (has_m) {
        if (!decompose(mat, &n->translation, &n->rotation, &n->scale)) {
            ze__gl_push_key(c, "matrix");
            return ZE__GL_FAIL(c, "matrix is not decomposable into translation, rotation and "
                                  "scale");
        }
        for (int col = 0; col < 4; col++)
            for (int row = 0; row < 4; row++)
                n->local.m[col][row] = (float)mat[col * 4 + row];
    } else {
        n->translation = (ze_vec3_t){(float)t[0], (float)t[1], (float)t[2]};
        n->rotation = (ze_quat_t){(float)r[0], (float)r[1], (float)r[2], (float)r[3]};
        n->scale = (ze_vec3_t){(float)s[0], (float)s[1], (float)s[2]};
        n->local = ze_mat4_from_trs(n->translation, n->rotation, n->scale);
    }
    return ZE_OK;
}

ze_result ze__gl_parse_nodes(ze__gl_ctx_t *c)
{
    ze_model_node_t *nodes =
        ze__astore_array(c->store, c->nnodes + 1u, sizeof(ze_model_node_t), 16, true);
    uint32_t *depth = ze__astore_array(c->store, c->nnodes + 1u, sizeof(uint32_t), 4, true);
    uint32_t *stack = ze__astore_array(c->store, c->nnodes + 1u, sizeof(uint32_t), 4, false);
    if (!nodes || !depth || !stack)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < c->nnodes; i++)
        nodes[i].parent = -1;
    size_t top = ze__gl_push_key(c, "nodes");
    for (uint32_t i = 0; i < c->nnodes; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ZE__TRY(ze__gl_element(c, c->j_nodes, i, &j));
        ZE__TRY(parse_node(c, j, &nodes[i]));
        ze__gl_pop(c, mark);
    }
    /* One parent per node. */
    for (uint32_t i = 0; i < c->nnodes; i++) {
        for (uint32_t k = 0; k < nodes[i].child_count; k++) {
            uint32_t ch = nodes[i].children[k];
            if (ch == i || nodes[ch].parent >= 0) {
                ze__gl_push_index(c, i);
                ze__gl_push_key(c, "children");
                ze__gl_push_index(c, k);
                if (ch == i)
                    return ZE__GL_FAIL(c, "node %u lists itself as a child", i);
                return ZE__GL_FAIL(c,
                                   "node %u already has parent %d (the hierarchy must be "
                                   "disjoint trees)",
                                   ch, nodes[ch].parent);
            }
            nodes[ch].parent = (int32_t)i;
        }
    }
    /* No cycles: walk up from every node; depth 0 = not yet known. With one
       parent each, a walk that meets a node of its own walk is a loop. */
    uint32_t max_depth = 0, roots = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        if (depth[i])
            continue;
        uint32_t sp = 0, cur = i;
        for (;;) {
            if (depth[cur] == UINT32_MAX) { /* on this walk: a loop */
                ze__gl_push_index(c, cur);
                return ZE__GL_FAIL(c, "node %u is part of a cycle in the node hierarchy", cur);
            }
            if (depth[cur])
                break;
            depth[cur] = UINT32_MAX;
            stack[sp++] = cur;
            if (nodes[cur].parent < 0)
                break;
            cur = (uint32_t)nodes[cur].parent;
        }
        uint32_t d = depth[cur] != UINT32_MAX ? depth[cur] : 0;
        while (sp) {
            uint32_t k = stack[--sp];
            depth[k] = ++d;
            if (d > max_depth)
                max_depth = d;
        }
    }
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (nodes[i].parent < 0)
            roots++;
    ze__gl_pop(c, top);
    c->model->nodes = nodes;
    c->model->node_count = c->nnodes;
    c->model->stats.root_nodes = roots;
    c->model->stats.max_node_depth = max_depth;
    return ZE_OK;
}

/* ------------------------------------------------------------------- skins */

ze_result ze__gl_parse_skins(ze__gl_ctx_t *c)
{
    size_t top = ze__gl_push_key(c, "skins");
    for (uint32_t i = 0; i < c->nskins; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        int64_t ibm, skeleton;
        uint32_t *joints, njoints;
        ZE__TRY(ze__gl_element(c, c->j_skins, i, &j));
        ZE__TRY(ze__gl_common(c, j, NULL));
        ZE__TRY(
            ze__gl_get_ref(c, j, "inverseBindMatrices", false, c->naccessors, "accessor", &ibm));
        ZE__TRY(ze__gl_get_ref(c, j, "skeleton", false, c->nnodes, "node", &skeleton));
        if (!json_object_get(j, "joints")) {
            ze__gl_push_key(c, "joints");
            return ZE__GL_FAIL(c, "required property is missing");
        }
        ZE__TRY(ze__gl_get_refs(c, j, "joints", c->nnodes, "node", &joints, &njoints));
        if (ibm >= 0) {
            const ze__gl_accessor_t *a = &c->accessors[ibm];
            ze__gl_push_key(c, "inverseBindMatrices");
            if (strcmp(a->type, "MAT4") != 0 || a->ctype != CT_FLOAT)
                return ZE__GL_FAIL(c, "accessor %lld must be MAT4 of FLOAT", (long long)ibm);
            if (a->count < njoints)
                return ZE__GL_FAIL(c, "accessor %lld has %u matrices for %u joints", (long long)ibm,
                                   a->count, njoints);
        }
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    return ZE_OK;
}

/* ------------------------------------------------------------------ scenes */

ze_result ze__gl_parse_scenes(ze__gl_ctx_t *c)
{
    ze_model_scene_t *scenes =
        ze__astore_array(c->store, c->nscenes + 1u, sizeof(ze_model_scene_t), 16, true);
    if (!scenes)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    const ze_model_node_t *nodes = c->model->nodes;
    size_t top = ze__gl_push_key(c, "scenes");
    for (uint32_t i = 0; i < c->nscenes; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        uint32_t *roots, n;
        ZE__TRY(ze__gl_element(c, c->j_scenes, i, &j));
        ZE__TRY(ze__gl_common(c, j, &scenes[i].name));
        ZE__TRY(ze__gl_get_refs(c, j, "nodes", c->nnodes, "node", &roots, &n));
        for (uint32_t k = 0; k < n; k++)
            if (nodes[roots[k]].parent >= 0) {
                ze__gl_push_key(c, "nodes");
                ze__gl_push_index(c, k);
                return ZE__GL_FAIL(c, "node %u is not a root node (its parent is node %d)",
                                   roots[k], nodes[roots[k]].parent);
            }
        scenes[i].nodes = roots;
        scenes[i].node_count = n;
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    c->model->scenes = scenes;
    c->model->scene_count = c->nscenes;
    return ZE_OK;
}

/* -------------------------------------------------------------- animations */

typedef struct anim_sampler_t {
    uint32_t input, output;
    int interp; /* 0 LINEAR, 1 STEP, 2 CUBICSPLINE */
} anim_sampler_t;

static ze_result parse_anim_sampler(ze__gl_ctx_t *c, json_t *j, anim_sampler_t *s)
{
    int64_t in, out;
    const char *interp;
    ZE__TRY(ze__gl_common(c, j, NULL));
    ZE__TRY(ze__gl_get_ref(c, j, "input", true, c->naccessors, "accessor", &in));
    ZE__TRY(ze__gl_get_ref(c, j, "output", true, c->naccessors, "accessor", &out));
    ZE__TRY(ze__gl_get_string(c, j, "interpolation", false, &interp));
    s->interp = 0;
    if (interp) {
        if (strcmp(interp, "STEP") == 0)
            s->interp = 1;
        else if (strcmp(interp, "CUBICSPLINE") == 0)
            s->interp = 2;
        else if (strcmp(interp, "LINEAR") != 0) {
            ze__gl_push_key(c, "interpolation");
            return ZE__GL_FAIL(c, "'%.40s' is not one of LINEAR, STEP, CUBICSPLINE", interp);
        }
    }
    const ze__gl_accessor_t *a = &c->accessors[in];
    size_t mark = ze__gl_push_key(c, "input");
    if (strcmp(a->type, "SCALAR") != 0 || a->ctype != CT_FLOAT)
        return ZE__GL_FAIL(c, "accessor %lld must be SCALAR of FLOAT", (long long)in);
    if (!a->has_min)
        return ZE__GL_FAIL(c, "accessor %lld must define min and max", (long long)in);
    if (s->interp == 2 && a->count < 2)
        return ZE__GL_FAIL(c, "CUBICSPLINE needs at least 2 keyframes, found %u", a->count);
    ZE__TRY(ze__gl_decode(c, (uint32_t)in, ZE__GL_OUT_FLOAT));
    for (uint32_t k = 0; k < a->count; k++) {
        if (a->f[k] < 0.0f)
            return ZE__GL_FAIL(c, "keyframe time %u is negative (%g)", k, (double)a->f[k]);
        if (k > 0 && !(a->f[k] > a->f[k - 1]))
            return ZE__GL_FAIL(c,
                               "keyframe times must strictly increase (time %u: %g after "
                               "%g)",
                               k, (double)a->f[k], (double)a->f[k - 1]);
    }
    ze__gl_pop(c, mark);
    s->input = (uint32_t)in;
    s->output = (uint32_t)out;
    return ZE_OK;
}

static ze_result parse_animation(ze__gl_ctx_t *c, json_t *j)
{
    json_t *jch, *jsa;
    uint32_t nch, nsa;
    ZE__TRY(ze__gl_common(c, j, NULL));
    ZE__TRY(ze__gl_get_array(c, j, "channels", true, &jch, &nch));
    ZE__TRY(ze__gl_get_array(c, j, "samplers", true, &jsa, &nsa));
    anim_sampler_t *samplers = ze__astore_array(c->store, nsa, sizeof(anim_sampler_t), 8, false);
    uint64_t *targets = ze__astore_array(c->store, nch, sizeof(uint64_t), 8, false);
    if (!samplers || !targets)
        return ze__gl_fail(c, ZE_ERR_OUT_OF_MEMORY, "out of memory");
    size_t mark = ze__gl_push_key(c, "samplers");
    for (uint32_t i = 0; i < nsa; i++) {
        size_t m2 = ze__gl_push_index(c, i);
        json_t *js;
        ZE__TRY(ze__gl_element(c, jsa, i, &js));
        ZE__TRY(parse_anim_sampler(c, js, &samplers[i]));
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    mark = ze__gl_push_key(c, "channels");
    uint32_t ntargets = 0;
    for (uint32_t i = 0; i < nch; i++) {
        size_t m2 = ze__gl_push_index(c, i);
        json_t *jc, *jt;
        int64_t si, node;
        const char *path;
        ZE__TRY(ze__gl_element(c, jch, i, &jc));
        ZE__TRY(ze__gl_common(c, jc, NULL));
        ZE__TRY(ze__gl_get_ref(c, jc, "sampler", true, nsa, "animation sampler", &si));
        ZE__TRY(ze__gl_get_object(c, jc, "target", true, &jt));
        size_t m3 = ze__gl_push_key(c, "target");
        ZE__TRY(ze__gl_common(c, jt, NULL));
        ZE__TRY(ze__gl_get_ref(c, jt, "node", false, c->nnodes, "node", &node));
        ZE__TRY(ze__gl_get_string(c, jt, "path", true, &path));
        int p;
        if (strcmp(path, "translation") == 0)
            p = 0;
        else if (strcmp(path, "rotation") == 0)
            p = 1;
        else if (strcmp(path, "scale") == 0)
            p = 2;
        else if (strcmp(path, "weights") == 0)
            p = 3;
        else {
            ze__gl_push_key(c, "path");
            return ZE__GL_FAIL(c, "'%.40s' is not one of translation, rotation, scale, weights",
                               path);
        }
        uint32_t values = 1;
        if (node >= 0) {
            const ze_model_node_t *n = &c->model->nodes[node];
            if (p < 3 && n->has_matrix) {
                ze__gl_push_key(c, "node");
                return ZE__GL_FAIL(c, "node %lld has a matrix and cannot be animated",
                                   (long long)node);
            }
            if (p == 3) {
                if (n->mesh < 0 || c->mesh_targets[n->mesh] == 0) {
                    ze__gl_push_key(c, "node");
                    return ZE__GL_FAIL(c, "node %lld has no mesh with morph targets to animate",
                                       (long long)node);
                }
                values = c->mesh_targets[n->mesh];
            }
            uint64_t key = ((uint64_t)node << 2) | (uint64_t)p;
            for (uint32_t k = 0; k < ntargets; k++)
                if (targets[k] == key)
                    return ZE__GL_FAIL(c,
                                       "another channel of this animation already targets "
                                       "node %lld's %s",
                                       (long long)node, path);
            targets[ntargets++] = key;
        }
        ze__gl_pop(c, m3);
        /* The output accessor fits the path and the keyframes. */
        const anim_sampler_t *s = &samplers[si];
        const ze__gl_accessor_t *out = &c->accessors[s->output];
        bool ok;
        if (p == 0 || p == 2)
            ok = strcmp(out->type, "VEC3") == 0 && out->ctype == CT_FLOAT;
        else if (p == 1)
            ok = strcmp(out->type, "VEC4") == 0 &&
                 (out->ctype == CT_FLOAT ||
                  (out->normalized && (out->ctype == CT_BYTE || out->ctype == CT_UBYTE ||
                                       out->ctype == CT_SHORT || out->ctype == CT_USHORT)));
        else
            ok = strcmp(out->type, "SCALAR") == 0 &&
                 (out->ctype == CT_FLOAT ||
                  (out->normalized && (out->ctype == CT_BYTE || out->ctype == CT_UBYTE ||
                                       out->ctype == CT_SHORT || out->ctype == CT_USHORT)));
        if (!ok) {
            ze__gl_push_key(c, "sampler");
            return ZE__GL_FAIL(c, "output accessor %u (%s) does not fit the path '%s'", s->output,
                               out->type, path);
        }
        uint64_t expect =
            (uint64_t)c->accessors[s->input].count * values * (s->interp == 2 ? 3 : 1);
        if (node >= 0 && out->count != expect) {
            ze__gl_push_key(c, "sampler");
            return ZE__GL_FAIL(c, "output accessor %u has %u elements, expected %llu", s->output,
                               out->count, (unsigned long long)expect);
        }
        ze__gl_pop(c, m2);
    }
    ze__gl_pop(c, mark);
    return ZE_OK;
}

ze_result ze__gl_parse_animations(ze__gl_ctx_t *c)
{
    size_t top = ze__gl_push_key(c, "animations");
    for (uint32_t i = 0; i < c->nanimations; i++) {
        size_t mark = ze__gl_push_index(c, i);
        json_t *j;
        ZE__TRY(ze__gl_element(c, c->j_animations, i, &j));
        ZE__TRY(parse_animation(c, j));
        ze__gl_pop(c, mark);
    }
    ze__gl_pop(c, top);
    return ZE_OK;
}
