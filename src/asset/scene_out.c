/* The cooker's scene file: the node hierarchy of an imported model as an
 * ECS scene file ("zengine.scene" version 1, see src/ecs/scene_json.c).
 *
 * The cooker runs without an ECS kernel, so the document is written here
 * directly, in the byte layout ze_scene_save_json produces for the same
 * entities: two-space indentation, one member per line, components by
 * built-in id (Transform, Parent, Mesh, Camera, Name), fields in their
 * reflection order, floats as the shortest decimal that reads back to the
 * same single-precision value, in the "C" locale. Loading the file into an
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
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "asset/scene_out.h"

typedef struct sw_t {
    ze_byte_writer_t *out;
} sw_t;

static void put_n(sw_t *s, const char *p, size_t n)
{
    ze_byte_write(s->out, p, n);
}
static void put(sw_t *s, const char *p)
{
    put_n(s, p, strlen(p));
}
static void newline(sw_t *s, int level)
{
    static const char spaces[] = "\n            ";
    put_n(s, spaces, 1 + (size_t)level * 2);
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF), 0 if invalid. As the scene writer's. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* A node name as the Name component holds it: valid UTF-8 (U+FFFD for
 * each invalid byte), at most ZE_NAME_MAX - 1 bytes, cut on a character
 * boundary. Returns the length written to dst. */
static size_t name_value(const char *name, char dst[ZE_NAME_MAX])
{
    const unsigned char *p = (const unsigned char *)name;
    size_t n = strlen(name), o = 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(p + i, n - i);
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

/* A JSON string of valid UTF-8, escaped as the scene writer does. */
static void put_string(sw_t *s, const char *str, size_t n)
{
    put_n(s, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)str[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put_n(s, str + run, i - run);
        char esc[8];
        switch (c) {
        case '"':
            put(s, "\\\"");
            break;
        case '\\':
            put(s, "\\\\");
            break;
        case '\n':
            put(s, "\\n");
            break;
        case '\t':
            put(s, "\\t");
            break;
        case '\r':
            put(s, "\\r");
            break;
        case '\b':
            put(s, "\\b");
            break;
        case '\f':
            put(s, "\\f");
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(s, esc);
            break;
        }
        run = i + 1;
    }
    put_n(s, str + run, n - run);
    put_n(s, "\"", 1);
}

/* The scene loader's conversion of a finite number (values that round to
 * FLT_MAX are accepted; beyond, false), so that what is written is exactly
 * what is read. */
static bool read_f32(double d, float *out)
{
    if (fabs(d) > FLT_MAX) {
        if (fabs(d) >= 0x1.ffffffp+127)
            return false;
        *out = d < 0 ? -FLT_MAX : FLT_MAX;
        return true;
    }
    *out = (float)d;
    return true;
}

/* The shortest "%.Ng" that reads back to the same float, always with a
 * '.' or an exponent; "nan", "inf", "-inf" as strings. */
static void put_f32(sw_t *s, float v)
{
    char buf[40];
    if (isnan(v)) {
        put(s, "\"nan\"");
        return;
    }
    if (isinf(v)) {
        put(s, v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    bool subnormal = v != 0 && fabsf(v) < FLT_MIN;
    for (int prec = subnormal ? 1 : 6; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
        float back;
        if (read_f32(strtod(buf, NULL), &back) && back == v)
            break;
    }
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    put(s, buf);
}

static void put_floats(sw_t *s, const float *v, uint32_t n)
{
    put(s, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(s, ", ");
        put_f32(s, v[i]);
    }
    put(s, "]");
}

static void put_uuid(sw_t *s, ze_uuid_t u)
{
    char buf[ZE_UUID_STRING_LEN + 3];
    buf[0] = '"';
    ze_uuid_format(u, buf + 1);
    buf[ZE_UUID_STRING_LEN + 1] = '"';
    buf[ZE_UUID_STRING_LEN + 2] = 0;
    put(s, buf);
}

/* `"Name": {` ... `}` framing: fields at level 5. */
static void comp_begin(sw_t *s, bool *any_comp, const char *name)
{
    put(s, *any_comp ? "," : "");
    *any_comp = true;
    newline(s, 4);
    put_string(s, name, strlen(name));
    put(s, ": {");
}
static void field(sw_t *s, bool first, const char *name)
{
    put(s, first ? "" : ",");
    newline(s, 5);
    put_string(s, name, strlen(name));
    put(s, ": ");
}
static void comp_end(sw_t *s)
{
    newline(s, 4);
    put(s, "}");
}

static ze_uuid_t node_uuid(ze_uuid_t source, uint32_t i)
{
    char label[32];
    int n = snprintf(label, sizeof label, "node/%u", i);
    return ze_uuid_v5(source, label, (size_t)n);
}

static void put_entity(sw_t *s, const ze_model_t *m, ze_uuid_t source, uint32_t i,
                       const uint8_t *in_scene, const ze_uuid_t *mesh_uuids, bool *main_taken)
{
    const ze_model_node_t *nd = &m->nodes[i];
    newline(s, 2);
    put(s, "{");
    newline(s, 3);
    put(s, "\"uuid\": ");
    put_uuid(s, node_uuid(source, i));
    put(s, ",");
    newline(s, 3);
    put(s, "\"components\": {");
    bool any = false;

    comp_begin(s, &any, "Transform");
    const float pos[3] = {nd->translation.x, nd->translation.y, nd->translation.z};
    const float rot[4] = {nd->rotation.x, nd->rotation.y, nd->rotation.z, nd->rotation.w};
    const float scl[3] = {nd->scale.x, nd->scale.y, nd->scale.z};
    field(s, true, "position");
    put_floats(s, pos, 3);
    field(s, false, "rotation");
    put_floats(s, rot, 4);
    field(s, false, "scale");
    put_floats(s, scl, 3);
    comp_end(s);

    if (nd->parent >= 0 && (uint32_t)nd->parent < m->node_count && in_scene[nd->parent]) {
        comp_begin(s, &any, "Parent");
        field(s, true, "parent");
        put_uuid(s, node_uuid(source, (uint32_t)nd->parent));
        comp_end(s);
    }

    if (nd->mesh >= 0 && (uint32_t)nd->mesh < m->mesh_count &&
        !ze_uuid_is_nil(mesh_uuids[nd->mesh])) {
        comp_begin(s, &any, "Mesh");
        field(s, true, "mesh");
        put_uuid(s, mesh_uuids[nd->mesh]);
        comp_end(s);
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
        comp_begin(s, &any, "Camera");
        field(s, true, "fov_y");
        put_f32(s, fov);
        field(s, false, "near_plane");
        put_f32(s, cam->znear);
        field(s, false, "far_plane");
        put_f32(s, zfar);
        field(s, false, "aspect");
        put_f32(s, aspect);
        field(s, false, "is_main");
        put(s, *main_taken ? "false" : "true");
        *main_taken = true;
        comp_end(s);
    }

    char name[ZE_NAME_MAX];
    size_t name_len = nd->name ? name_value(nd->name, name) : 0;
    if (name_len) {
        comp_begin(s, &any, "Name");
        field(s, true, "value");
        put_string(s, name, name_len);
        comp_end(s);
    }

    newline(s, 3);
    put(s, "}");
    newline(s, 2);
    put(s, "}");
}

ze_result ze__scene_write(const ze_model_t *model, ze_uuid_t source_uuid,
                          const ze_uuid_t *mesh_uuids, ze_allocator_t alloc, ze_byte_writer_t *out,
                          uint32_t *entities, ze_asset_error_t *err)
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
    sw_t s = {.out = out};
    put(&s, "{");
    newline(&s, 1);
    put(&s, "\"format\": \"zengine.scene\",");
    newline(&s, 1);
    put(&s, "\"version\": 1,");
    newline(&s, 1);
    put(&s, "\"entities\": [");
    bool main_taken = false;
    for (uint32_t k = 0; k < count; k++) {
        put(&s, k ? "," : "");
        put_entity(&s, model, source_uuid, order[k], in_scene, mesh_uuids, &main_taken);
    }
    if (count)
        newline(&s, 1);
    put(&s, "]");
    newline(&s, 0);
    put(&s, "}\n");
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
