/* The cooker's scene file: the node hierarchy of an imported model as an
 * ECS scene file ("zengine.scene" version 1, see src/ecs/scene_json.c).
 *
 * The cooker runs without an ECS kernel, so the document is written here
 * through ze_scene_writer_t, the writer behind ze_scene_save_json, with the
 * entities in the order and the shape ze_scene_save_json gives them:
 * components by built-in id (Transform, Parent, Mesh, Camera, Name), fields
 * in their reflection order, in the "C" locale. Loading the file into an
 * empty world and saving that world gives the same bytes back.
 *
 * Entities: one per node reached from the roots of the default scene (else
 * scene 0, else every root node in index order), depth-first, children in
 * order; uuid v5(source uuid, "node/N"). Components:
 *   Transform  the node's TRS (a matrix already decomposed by the importer);
 *   Parent     the parent node's entity, when the node has one;
 *   Mesh       the cooked .zemesh of the node's mesh (none when every
 *              primitive of that mesh was skipped);
 *   Camera     fov_y = yfov, near/far = znear/zfar (an infinite far plane
 *              is +inf), aspect = aspectRatio (0: the viewport's); the
 *              first camera in traversal order is the main one. The ECS
 *              camera is perspective only: an orthographic camera keeps
 *              the component's default fov_y, with aspect xmag / ymag;
 *   Name       the node's name, when it has one: invalid UTF-8 replaced by
 *              U+FFFD, cut to ZE_NAME_MAX - 1 bytes on a character
 *              boundary. */
#include <locale.h>
#include <math.h>
#include <stdio.h>

#include "cook/scene_out.h"

/* A node name as the Name component holds it: valid UTF-8 (U+FFFD for
 * each invalid byte), at most ZE_NAME_MAX - 1 bytes, cut on a character
 * boundary. Returns the length written to dst. */
static size_t name_value(const char *name, char dst[ZE_NAME_MAX])
{
    const unsigned char *p = (const unsigned char *)name;
    size_t n = strlen(name), o = 0;
    for (size_t i = 0; i < n;) {
        size_t len = ze_utf8_valid_len(p + i, n - i);
        const char *src = len ? (const char *)p + i : "\xef\xbf\xbd";
        size_t k = len ? len : 3;
        if (o + k > ZE_NAME_MAX - 1)
            break;
        memcpy(dst + o, src, k);
        o += k;
        i += len ? len : 1;
    }
    dst[o] = 0;
    return o;
}

static void put_floats(ze_scene_writer_t *s, const float *v, uint32_t n)
{
    ze_scene_writer_text(s, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            ze_scene_writer_text(s, ", ");
        ze_scene_writer_real(s, v[i], true);
    }
    ze_scene_writer_text(s, "]");
}

static ze_uuid_t node_uuid(ze_uuid_t source, uint32_t i)
{
    char label[32];
    int n = snprintf(label, sizeof label, "node/%u", i);
    return ze_uuid_v5(source, label, (size_t)n);
}

static void put_entity(ze_scene_writer_t *s, const ze_model_t *m, ze_uuid_t source, uint32_t i,
                       const uint8_t *in_scene, const ze_uuid_t *mesh_uuids, bool *main_taken)
{
    const ze_model_node_t *nd = &m->nodes[i];
    ze_scene_writer_entity(s, node_uuid(source, i));

    ze_scene_writer_component(s, "Transform");
    const float pos[3] = {nd->translation.x, nd->translation.y, nd->translation.z};
    const float rot[4] = {nd->rotation.x, nd->rotation.y, nd->rotation.z, nd->rotation.w};
    const float scl[3] = {nd->scale.x, nd->scale.y, nd->scale.z};
    ze_scene_writer_field(s, "position");
    put_floats(s, pos, 3);
    ze_scene_writer_field(s, "rotation");
    put_floats(s, rot, 4);
    ze_scene_writer_field(s, "scale");
    put_floats(s, scl, 3);
    ze_scene_writer_component_end(s);

    if (nd->parent >= 0 && (uint32_t)nd->parent < m->node_count && in_scene[nd->parent]) {
        ze_scene_writer_component(s, "Parent");
        ze_scene_writer_field(s, "parent");
        ze_scene_writer_uuid(s, node_uuid(source, (uint32_t)nd->parent));
        ze_scene_writer_component_end(s);
    }

    if (nd->mesh >= 0 && (uint32_t)nd->mesh < m->mesh_count &&
        !ze_uuid_is_nil(mesh_uuids[nd->mesh])) {
        ze_scene_writer_component(s, "Mesh");
        ze_scene_writer_field(s, "mesh");
        ze_scene_writer_uuid(s, mesh_uuids[nd->mesh]);
        ze_scene_writer_component_end(s);
    }

    if (nd->camera >= 0 && (uint32_t)nd->camera < m->camera_count) {
        const ze_model_camera_t *cam = &m->cameras[nd->camera];
        float fov = 1.0471976f, aspect = cam->aspect_ratio;
        if (cam->type == ZE_CAMERA_PERSPECTIVE)
            fov = cam->yfov;
        else
            aspect = cam->ymag != 0 ? fabsf(cam->xmag / cam->ymag) : 0.0f;
        float zfar = cam->zfar;
        if (zfar == 0 && cam->type == ZE_CAMERA_PERSPECTIVE)
            zfar = INFINITY;
        ze_scene_writer_component(s, "Camera");
        ze_scene_writer_field(s, "fov_y");
        ze_scene_writer_real(s, fov, true);
        ze_scene_writer_field(s, "near_plane");
        ze_scene_writer_real(s, cam->znear, true);
        ze_scene_writer_field(s, "far_plane");
        ze_scene_writer_real(s, zfar, true);
        ze_scene_writer_field(s, "aspect");
        ze_scene_writer_real(s, aspect, true);
        ze_scene_writer_field(s, "is_main");
        ze_scene_writer_text(s, *main_taken ? "false" : "true");
        *main_taken = true;
        ze_scene_writer_component_end(s);
    }

    char name[ZE_NAME_MAX];
    size_t name_len = nd->name ? name_value(nd->name, name) : 0;
    if (name_len) {
        ze_scene_writer_component(s, "Name");
        ze_scene_writer_field(s, "value");
        ze_scene_writer_string(s, name, name_len);
        ze_scene_writer_component_end(s);
    }

    ze_scene_writer_entity_end(s);
}

ze_result ze__scene_write(const ze_model_t *model, ze_uuid_t source_uuid,
                          const ze_uuid_t *mesh_uuids, ze_allocator_t alloc, ze_byte_writer_t *out,
                          uint32_t *entities, ze__asset_error_t *err)
{
    const uint32_t n = model->node_count;
    *entities = 0;
    /* The roots: the default scene's, else scene 0's, else every root. */
    const uint32_t *roots = NULL;
    uint32_t nroots = 0;
    bool all_roots = false;
    if (model->default_scene >= 0 && (uint32_t)model->default_scene < model->scene_count) {
        roots = model->scenes[model->default_scene].nodes;
        nroots = model->scenes[model->default_scene].node_count;
    } else if (model->scene_count > 0) {
        roots = model->scenes[0].nodes;
        nroots = model->scenes[0].node_count;
    } else {
        all_roots = true;
        nroots = n;
    }
    size_t bytes = (size_t)n * (2 * sizeof(uint32_t) + 1) + 1;
    uint8_t *block = ze_alloc(alloc, bytes, 16);
    if (!block) {
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    uint32_t *order = (uint32_t *)block, *stack = order + n;
    uint8_t *in_scene = (uint8_t *)(stack + n);
    memset(in_scene, 0, (size_t)n + 1);

    /* Depth-first, children in order: push in reverse, each node once
       (the importers guarantee trees; a repeat is dropped, never looped). */
    uint32_t count = 0, sp = 0;
    for (uint32_t k = nroots; k-- > 0;) {
        uint32_t r = all_roots ? k : roots[k];
        if (r >= n || in_scene[r] || (all_roots && model->nodes[r].parent >= 0))
            continue;
        in_scene[r] = 1;
        stack[sp++] = r;
    }
    while (sp) {
        uint32_t i = stack[--sp];
        order[count++] = i;
        const ze_model_node_t *nd = &model->nodes[i];
        for (uint32_t k = nd->child_count; k-- > 0;) {
            uint32_t ch = nd->children[k];
            if (ch >= n || in_scene[ch])
                continue;
            in_scene[ch] = 1;
            stack[sp++] = ch;
        }
    }

    /* Numbers in the "C" locale whatever the process set. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    ze_scene_writer_t s;
    ze_scene_writer_begin(&s, out);
    bool main_taken = false;
    for (uint32_t k = 0; k < count; k++)
        put_entity(&s, model, source_uuid, order[k], in_scene, mesh_uuids, &main_taken);
    ze_scene_writer_end(&s);
    if (c_locale) {
        uselocale(old_locale);
        freelocale(c_locale);
    }
    ze_free(alloc, block, bytes);
    if (out->failed) {
        ze__asset_error_set(err, "out of memory writing the scene file");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *entities = count;
    return ZE_OK;
}
