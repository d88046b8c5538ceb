/* OBJ and FBX through assimp (Debian's libassimp, C API), converted into the
 * model the glTF importer produces so the .zemesh/.zematerial/.zetex
 * writers are shared.
 *
 * Post-processing: Triangulate, JoinIdenticalVertices, SortByPType (points
 * and lines end up in meshes of their own, which are skipped and counted),
 * FlipUVs (the model's texture origin is glTF's, top left),
 * RemoveRedundantMaterials and ValidateDataStructure. Each aiMesh becomes
 * one model mesh with one primitive. Skins, animations, lights and
 * embedded raw (uncompressed) textures are not imported.
 *
 * assimp's output is treated as untrusted: every pointer and count is
 * checked before use (a NULL array, an index past its array, a face that is
 * not a triangle in a triangle mesh, non-finite positions are errors;
 * non-finite normals, tangents, texcoords and colours become defaults), and
 * the node walk is bounded (depth, count) against cycles. assimp allocates
 * inside its own library; everything we keep is copied into the model's
 * store. Crashes inside assimp itself are the import isolation's business
 * (a child process, a later slice).
 *
 * Counts (--json): meshes = primitives = aiMeshes, materials, cameras and
 * nodes of the post-processed scene, scenes 1, vertices and indices summed
 * over meshes (indices: face corners), textures = images = distinct texture
 * files and embedded textures the materials reference.
 *
 * Texture files named by a material are resolved against the source's
 * folder ('\' read as '/', leading "./" dropped). A texture that is
 * absolute or climbs out with "..", missing, unreadable or not a valid
 * PNG/JPEG is kept without data, the reason naming it in its image's
 * `problem`: the cooker warns and its materials fall back to the default.
 *
 * Dependencies: assimp opens files through our aiFileIO callbacks
 * (read-only; any write mode is refused), which record every regular file
 * it opened besides the source (an OBJ's .mtl library); with the texture
 * files read they are the model's dependencies, relative to the source's
 * folder (files outside it are not listed).
 */
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"

_Static_assert(sizeof(ai_real) == sizeof(float), "assimp built with single precision");

enum {
    MAX_NODE_DEPTH = 256,
    MAX_NODES = 1 << 20,
    MAX_TEXTURES = 4096,
    MAX_OPENED = 4096, /* files assimp opened, recorded as dependencies */
    DEFAULT_MAX_BYTES = 1 << 30,
};

typedef struct ai_ctx_t {
    ze__astore_t *store;
    ze__asset_error_t *err;
    const struct aiScene *scene;
    ze_model_t *model;
    char dir[PATH_MAX];
    uint64_t max_bytes, file_bytes;
    /* textures: one per distinct reference (a path or "*N") */
    const char **tex_keys;
    ze_model_texture_t *textures;
    ze_model_image_t *images;
    uint32_t ntex;
    /* files assimp opened (relative to dir, normalized), repeats included */
    const char *source;
    const char **opened;
    uint32_t nopened;
} ai_ctx_t;

#define FAIL(code, ...)                                      \
    do {                                                     \
        ze__asset_error_set(c->err, "assimp: " __VA_ARGS__); \
        return (code);                                       \
    } while (0)

static const char *ai_str(ai_ctx_t *c, const struct aiString *s)
{
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    char *p = ze__astore_push(c->store, n + 1, 1);
    if (p) {
        memcpy(p, s->data, n);
        p[n] = 0;
        /* an embedded NUL ends the name */
    }
    return p;
}

static float fin(float v, float dflt)
{
    return isfinite(v) ? v : dflt;
}

static float clamp01(float v, float dflt)
{
    if (!isfinite(v))
        return dflt;
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* ------------------------------------------------------------------ meshes */

static ze_result convert_mesh(ai_ctx_t *c, uint32_t index, ze_model_mesh_t *out)
{
    const struct aiMesh *am = c->scene->mMeshes[index];
    if (!am)
        FAIL(ZE_ERR_PARSE, "mesh %u is missing", index);
    ze_model_primitive_t *p = ze__astore_zero(c->store, sizeof *p, 16);
    if (!p)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    out->name = ai_str(c, &am->mName);
    out->primitive_count = 1;
    out->primitives = p;
    if (!out->name)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t nv = am->mNumVertices, nf = am->mNumFaces;
    p->material = am->mMaterialIndex < c->scene->mNumMaterials ? (int32_t)am->mMaterialIndex : -1;
    p->vertex_count = nv;
    c->model->stats.vertices += nv;
    if (nf && !am->mFaces)
        FAIL(ZE_ERR_PARSE, "mesh %u: %u faces but no face array", index, nf);
    uint64_t corners = 0;
    for (uint32_t f = 0; f < nf; f++)
        corners += am->mFaces[f].mNumIndices;
    c->model->stats.indices += corners;
    p->source_indices = corners > UINT32_MAX ? UINT32_MAX : (uint32_t)corners;
    /* Triangulated polygons carry the NGON encoding flag next to TRIANGLE. */
    bool triangles = (am->mPrimitiveTypes & ~(unsigned)aiPrimitiveType_NGONEncodingFlag) ==
                     aiPrimitiveType_TRIANGLE;
    if (!triangles || nv == 0 || nf == 0 || !am->mVertices) {
        p->mode = (am->mPrimitiveTypes & aiPrimitiveType_POINT)  ? ZE_PRIM_POINTS
                  : (am->mPrimitiveTypes & aiPrimitiveType_LINE) ? ZE_PRIM_LINES
                                                                 : ZE_PRIM_TRIANGLES;
        p->skipped = true;
        c->model->stats.skipped_primitives++;
        return ZE_OK;
    }
    p->mode = ZE_PRIM_TRIANGLES;
    if ((uint64_t)nf * 3 > UINT32_MAX)
        FAIL(ZE_ERR_LIMIT, "mesh %u: too many faces", index);
    uint32_t *ix = ze__astore_array(c->store, (size_t)nf * 3, 4, 4, false);
    float *pos = ze__astore_array(c->store, (size_t)nv * 3, 4, 4, false);
    if (!ix || !pos)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t f = 0; f < nf; f++) {
        const struct aiFace *fc = &am->mFaces[f];
        if (fc->mNumIndices != 3 || !fc->mIndices)
            FAIL(ZE_ERR_PARSE, "mesh %u: face %u has %u corners in a triangle mesh", index, f,
                 fc->mNumIndices);
        for (int k = 0; k < 3; k++) {
            if (fc->mIndices[k] >= nv)
                FAIL(ZE_ERR_PARSE, "mesh %u: face %u: vertex %u out of range (%u vertices)", index,
                     f, fc->mIndices[k], nv);
            ix[(size_t)f * 3 + (size_t)k] = fc->mIndices[k];
        }
    }
    ze_vec3_t mn = {INFINITY, INFINITY, INFINITY}, mx = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < nv; v++) {
        struct aiVector3D a = am->mVertices[v];
        if (!isfinite(a.x) || !isfinite(a.y) || !isfinite(a.z))
            FAIL(ZE_ERR_PARSE, "mesh %u: vertex %u has a non-finite position", index, v);
        pos[(size_t)v * 3] = a.x;
        pos[(size_t)v * 3 + 1] = a.y;
        pos[(size_t)v * 3 + 2] = a.z;
        mn.x = fminf(mn.x, a.x);
        mn.y = fminf(mn.y, a.y);
        mn.z = fminf(mn.z, a.z);
        mx.x = fmaxf(mx.x, a.x);
        mx.y = fmaxf(mx.y, a.y);
        mx.z = fmaxf(mx.z, a.z);
    }
    p->positions = pos;
    p->indices = ix;
    p->index_count = nf * 3;
    p->min = mn;
    p->max = mx;
    p->attributes = ZE_VATTR_BIT(ZE_VATTR_POSITION);
    if (am->mNormals) {
        float *n = ze__astore_array(c->store, (size_t)nv * 3, 4, 4, false);
        if (!n)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t v = 0; v < nv; v++) {
            n[(size_t)v * 3] = fin(am->mNormals[v].x, 0);
            n[(size_t)v * 3 + 1] = fin(am->mNormals[v].y, 0);
            n[(size_t)v * 3 + 2] = fin(am->mNormals[v].z, 0);
        }
        p->normals = n;
        p->attributes |= ZE_VATTR_BIT(ZE_VATTR_NORMAL);
    }
    if (am->mNormals && am->mTangents && am->mBitangents) {
        float *t = ze__astore_array(c->store, (size_t)nv * 4, 4, 4, false);
        if (!t)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t v = 0; v < nv; v++) {
            struct aiVector3D n = am->mNormals[v], tg = am->mTangents[v], b = am->mBitangents[v];
            /* handedness: the sign of (n x t) . b */
            float cx = n.y * tg.z - n.z * tg.y, cy = n.z * tg.x - n.x * tg.z,
                  cz = n.x * tg.y - n.y * tg.x;
            float d = cx * b.x + cy * b.y + cz * b.z;
            t[(size_t)v * 4] = fin(tg.x, 1);
            t[(size_t)v * 4 + 1] = fin(tg.y, 0);
            t[(size_t)v * 4 + 2] = fin(tg.z, 0);
            t[(size_t)v * 4 + 3] = d < 0 ? -1.0f : 1.0f;
        }
        p->tangents = t;
        p->attributes |= ZE_VATTR_BIT(ZE_VATTR_TANGENT);
    }
    for (int k = 0; k < 2; k++) {
        if (!am->mTextureCoords[k])
            continue;
        float *uv = ze__astore_array(c->store, (size_t)nv * 2, 4, 4, false);
        if (!uv)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t v = 0; v < nv; v++) {
            uv[(size_t)v * 2] = fin(am->mTextureCoords[k][v].x, 0);
            uv[(size_t)v * 2 + 1] = fin(am->mTextureCoords[k][v].y, 0);
        }
        p->texcoords[k] = uv;
        p->attributes |= ZE_VATTR_BIT(ZE_VATTR_TEXCOORD0 + k);
    }
    if (am->mColors[0]) {
        float *col = ze__astore_array(c->store, (size_t)nv * 4, 4, 4, false);
        if (!col)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t v = 0; v < nv; v++) {
            col[(size_t)v * 4] = fin(am->mColors[0][v].r, 1);
            col[(size_t)v * 4 + 1] = fin(am->mColors[0][v].g, 1);
            col[(size_t)v * 4 + 2] = fin(am->mColors[0][v].b, 1);
            col[(size_t)v * 4 + 3] = fin(am->mColors[0][v].a, 1);
        }
        p->colors = col;
        p->attributes |= ZE_VATTR_BIT(ZE_VATTR_COLOR0);
    }
    return ZE_OK;
}

/* --------------------------------------------------------------- textures */

static ze_result read_texture_file(ai_ctx_t *c, const char *rel, const uint8_t **data, size_t *size)
{
    char full[PATH_MAX];
    if ((size_t)snprintf(full, sizeof full, "%s/%s", c->dir, rel) >= sizeof full)
        FAIL(ZE_ERR_LIMIT, "texture path '%s' is too long", rel);
    int fd = open(full, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        FAIL(ZE_ERR_IO, "texture file '%s' cannot be read: %s", rel,
             fd < 0 ? strerror(e) : "not a regular file");
    }
    uint64_t left = c->max_bytes > c->file_bytes ? c->max_bytes - c->file_bytes : 0;
    if ((uint64_t)st.st_size > left) {
        close(fd);
        FAIL(ZE_ERR_LIMIT, "texture file '%s' is over the byte limit", rel);
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = ze__astore_push(c->store, n ? n : 1, 16);
    if (!buf) {
        close(fd);
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    }
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (got != n)
        FAIL(ZE_ERR_IO, "texture file '%s' changed while being read", rel);
    c->file_bytes += n;
    *data = buf;
    *size = n;
    return ZE_OK;
}

/* Normalize a material's texture path: '\' -> '/', "./" dropped; NULL when
 * it is absolute or climbs out of the folder. */
static char *normalize_path(ai_ctx_t *c, const char *raw)
{
    size_t n = strlen(raw);
    char *p = ze__astore_push(c->store, n + 1, 1);
    if (!p)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        p[o++] = raw[i] == '\\' ? '/' : raw[i];
    p[o] = 0;
    while (p[0] == '.' && p[1] == '/')
        memmove(p, p + 2, strlen(p + 2) + 1);
    if (p[0] == 0 || p[0] == '/' || (p[0] && p[1] == ':') || strstr(p, "..") != NULL)
        return NULL;
    return p;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char a = s[n - k + i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != suffix[i])
            return false;
    }
    return true;
}

/* The model texture for a material's reference (created on first use). */
static ze_result texture_for(ai_ctx_t *c, const char *raw, int32_t *out)
{
    for (uint32_t i = 0; i < c->ntex; i++)
        if (strcmp(c->tex_keys[i], raw) == 0) {
            *out = (int32_t)i;
            return ZE_OK;
        }
    if (c->ntex == MAX_TEXTURES)
        FAIL(ZE_ERR_LIMIT, "more than %d textures", MAX_TEXTURES);
    const uint8_t *data = NULL;
    size_t size = 0;
    const char *uri = NULL, *problem = NULL, *full = NULL;
    ze_result r = ZE_OK;
    if (raw[0] == '*') {
        /* "*N": an embedded texture */
        char *end = NULL;
        errno = 0;
        unsigned long k = strtoul(raw + 1, &end, 10);
        const struct aiTexture *t = NULL;
        if (errno == 0 && end && *end == 0 && end != raw + 1 && k < c->scene->mNumTextures &&
            c->scene->mTextures)
            t = c->scene->mTextures[k];
        if (!t || !t->pcData)
            FAIL(ZE_ERR_PARSE, "material references a missing embedded texture '%s'", raw);
        if (t->mHeight != 0) {
            *out = -1; /* raw ARGB texels: not decoded by this cooker */
            return ZE_OK;
        }
        data = (const uint8_t *)t->pcData;
        size = t->mWidth;
        uint8_t *copy = ze__astore_push(c->store, size ? size : 1, 16);
        if (!copy)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(copy, data, size);
        data = copy;
    } else {
        char *rel = normalize_path(c, raw);
        if (!rel)
            problem = "the path is absolute or leaves the source's folder";
        else if ((r = read_texture_file(c, rel, &data, &size)) != ZE_OK)
            full = c->err->message + strlen("assimp: "); /* names the file */
        if (r == ZE_ERR_OUT_OF_MEMORY)
            return r;
        uri = rel;
    }
    uint32_t i = c->ntex;
    c->tex_keys[i] = ze__astore_strdup(c->store, raw);
    if (!c->tex_keys[i])
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    ze_model_image_t *im = &c->images[i];
    im->name = uri ? uri : c->tex_keys[i];
    im->uri = uri;
    const char *why = NULL;
    if (!problem && !full) {
        im->data = data;
        im->size = size;
        im->format = ze__image_sniff(data, size);
        if (im->format == ZE_IMAGE_FORMAT_UNKNOWN && uri && ends_with_ci(uri, ".tga"))
            im->format = ZE_IMAGE_FORMAT_TGA;
        if (im->format == ZE_IMAGE_FORMAT_UNKNOWN)
            problem = "neither a PNG, a JPEG nor a .tga file";
        else if (im->format == ZE_IMAGE_FORMAT_PNG &&
                 !ze__png_check(data, size, &im->width, &im->height, &why))
            problem = why;
        else if (im->format == ZE_IMAGE_FORMAT_JPEG &&
                 !ze__jpeg_check(data, size, &im->width, &im->height, &why))
            problem = why;
    }
    if (problem || full) {
        /* A texture that cannot be had degrades to the material's default
           (the cooker warns); the import goes on. */
        char msg[2 * ZE__ASSET_ERROR_MAX];
        if (full)
            snprintf(msg, sizeof msg, "%.500s", full);
        else
            snprintf(msg, sizeof msg, "texture '%.400s': %.500s", raw, problem);
        im->problem = ze__astore_strdup(c->store, msg);
        if (!im->problem)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        c->err->message[0] = 0;
        im->data = NULL;
        im->size = 0;
        im->width = im->height = 0;
        im->format = ZE_IMAGE_FORMAT_UNKNOWN;
    }
    c->textures[i].name = im->name;
    c->textures[i].image = (int32_t)i;
    c->textures[i].sampler = -1;
    c->ntex++;
    *out = (int32_t)i;
    return ZE_OK;
}

static void texref_default(ze_model_texref_t *t)
{
    memset(t, 0, sizeof *t);
    t->texture = -1;
    t->scale = 1;
    t->uv_scale = (ze_vec2_t){1, 1};
}

static ze_result material_texture(ai_ctx_t *c, const struct aiMaterial *am, enum aiTextureType a,
                                  enum aiTextureType b, ze_model_texref_t *out)
{
    enum aiTextureType types[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        if (aiGetMaterialTextureCount(am, types[k]) == 0)
            continue;
        struct aiString path;
        unsigned int uv = 0;
        memset(&path, 0, sizeof path);
        if (aiGetMaterialTexture(am, types[k], 0, &path, NULL, &uv, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS)
            continue;
        const char *raw = ai_str(c, &path);
        if (!raw)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        if (!raw[0])
            continue;
        ZE__TRY(texture_for(c, raw, &out->texture));
        out->texcoord = uv <= 1 ? uv : 0;
        return ZE_OK;
    }
    return ZE_OK;
}

static ze_result convert_material(ai_ctx_t *c, uint32_t index, ze_model_material_t *m)
{
    const struct aiMaterial *am = c->scene->mMaterials[index];
    if (!am)
        FAIL(ZE_ERR_PARSE, "material %u is missing", index);
    struct aiString name;
    memset(&name, 0, sizeof name);
    m->name =
        aiGetMaterialString(am, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS ? ai_str(c, &name) : "";
    if (!m->name)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    struct aiColor4D col = {1, 1, 1, 1};
    if (aiGetMaterialColor(am, AI_MATKEY_BASE_COLOR, &col) != aiReturn_SUCCESS &&
        aiGetMaterialColor(am, AI_MATKEY_COLOR_DIFFUSE, &col) != aiReturn_SUCCESS)
        col = (struct aiColor4D){1, 1, 1, 1};
    ai_real opacity = 1, metallic = 0, roughness = 1;
    unsigned int one = 1;
    if (aiGetMaterialFloatArray(am, AI_MATKEY_OPACITY, &opacity, &one) != aiReturn_SUCCESS)
        opacity = 1;
    one = 1;
    if (aiGetMaterialFloatArray(am, AI_MATKEY_METALLIC_FACTOR, &metallic, &one) != aiReturn_SUCCESS)
        metallic = 0;
    one = 1;
    if (aiGetMaterialFloatArray(am, AI_MATKEY_ROUGHNESS_FACTOR, &roughness, &one) !=
        aiReturn_SUCCESS)
        roughness = 1;
    float alpha = clamp01(col.a, 1) * clamp01(opacity, 1);
    m->base_color_factor =
        (ze_vec4_t){clamp01(col.r, 1), clamp01(col.g, 1), clamp01(col.b, 1), alpha};
    m->metallic_factor = clamp01(metallic, 0);
    m->roughness_factor = clamp01(roughness, 1);
    struct aiColor4D em = {0, 0, 0, 1};
    if (aiGetMaterialColor(am, AI_MATKEY_COLOR_EMISSIVE, &em) != aiReturn_SUCCESS)
        em = (struct aiColor4D){0, 0, 0, 1};
    m->emissive_factor = (ze_vec3_t){clamp01(em.r, 0), clamp01(em.g, 0), clamp01(em.b, 0)};
    m->emissive_strength = 1;
    int two = 0;
    one = 1;
    if (aiGetMaterialIntegerArray(am, AI_MATKEY_TWOSIDED, &two, &one) != aiReturn_SUCCESS)
        two = 0;
    m->double_sided = two != 0;
    m->alpha_mode = alpha < 1 ? ZE_ALPHA_BLEND : ZE_ALPHA_OPAQUE;
    m->alpha_cutoff = 0.5f;
    texref_default(&m->base_color);
    texref_default(&m->metallic_roughness);
    texref_default(&m->normal);
    texref_default(&m->occlusion);
    texref_default(&m->emissive);
    ZE__TRY(
        material_texture(c, am, aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE, &m->base_color));
    ZE__TRY(
        material_texture(c, am, aiTextureType_NORMALS, aiTextureType_NORMAL_CAMERA, &m->normal));
    ZE__TRY(material_texture(c, am, aiTextureType_EMISSIVE, aiTextureType_EMISSION_COLOR,
                             &m->emissive));
    ZE__TRY(material_texture(c, am, aiTextureType_AMBIENT_OCCLUSION, aiTextureType_LIGHTMAP,
                             &m->occlusion));
    return ZE_OK;
}

/* ------------------------------------------------------------ file access */

static FILE *io_fp(struct aiFile *f)
{
    return (FILE *)(void *)f->UserData;
}

static size_t io_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    return size && count ? fread(buf, size, count, io_fp(f)) : 0;
}

static size_t io_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0; /* opened read-only */
}

static size_t io_tell(struct aiFile *f)
{
    off_t p = ftello(io_fp(f));
    return p < 0 ? 0 : (size_t)p;
}

static size_t io_size(struct aiFile *f)
{
    struct stat st;
    return fstat(fileno(io_fp(f)), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
}

static enum aiReturn io_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    int whence = origin == aiOrigin_SET   ? SEEK_SET
                 : origin == aiOrigin_CUR ? SEEK_CUR
                 : origin == aiOrigin_END ? SEEK_END
                                          : -1;
    if (whence < 0)
        return aiReturn_FAILURE;
    /* as assimp's own stream: a negative offset arrives as a huge size_t */
    return fseeko(io_fp(f), (off_t)offset, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}

static void io_flush(struct aiFile *f)
{
    (void)f;
}

/* A file assimp opened, relative to the source's folder (NULL: outside). */
static const char *io_relative(const ai_ctx_t *c, const char *path)
{
    size_t dl = strlen(c->dir);
    if (strcmp(c->dir, ".") == 0 && path[0] != '/')
        return path;
    if (dl && strncmp(path, c->dir, dl) == 0) {
        if (c->dir[dl - 1] == '/')
            return path + dl;
        if (path[dl] == '/')
            return path + dl + 1;
    }
    return NULL;
}

static void io_record(ai_ctx_t *c, const char *path)
{
    if (strcmp(path, c->source) == 0 || c->nopened == MAX_OPENED)
        return;
    const char *rel = io_relative(c, path);
    char *p = rel ? normalize_path(c, rel) : NULL;
    const char *slash = strrchr(c->source, '/');
    if (!p || strcmp(p, slash ? slash + 1 : c->source) == 0)
        return; /* outside the folder, or the source again */
    if (!c->opened) {
        c->opened = ze__astore_array(c->store, MAX_OPENED, sizeof(char *), 16, false);
        if (!c->opened)
            return;
    }
    c->opened[c->nopened++] = p;
}

static struct aiFile *io_open(struct aiFileIO *io, const char *path, const char *mode)
{
    ai_ctx_t *c = (ai_ctx_t *)(void *)io->UserData;
    if (!path || !mode || mode[0] != 'r' || strchr(mode, '+') || strchr(mode, 'w') ||
        strchr(mode, 'a'))
        return NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct stat st;
    struct aiFile *f = NULL;
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode))
        f = ze__astore_zero(c->store, sizeof *f, 16);
    if (!f) {
        fclose(fp);
        return NULL;
    }
    f->ReadProc = io_read;
    f->WriteProc = io_write;
    f->TellProc = io_tell;
    f->FileSizeProc = io_size;
    f->SeekProc = io_seek;
    f->FlushProc = io_flush;
    f->UserData = (aiUserData)(void *)fp;
    io_record(c, path);
    return f;
}

static void io_close(struct aiFileIO *io, struct aiFile *f)
{
    (void)io;
    if (f && f->UserData) {
        fclose(io_fp(f));
        f->UserData = NULL;
    }
}

/* ------------------------------------------------------------------ nodes */

typedef struct walk_t {
    const struct aiNode *node;
    int32_t parent;
    uint32_t depth;
} walk_t;

static uint32_t count_nodes(const struct aiNode *root, uint32_t *depth_out)
{
    /* Bounded depth-first walk (an explicit stack sized by MAX_NODES would
       be large; recursion is bounded by MAX_NODE_DEPTH instead). */
    struct frame {
        const struct aiNode *n;
        uint32_t next;
    } st[MAX_NODE_DEPTH];
    uint32_t sp = 0, count = 0, maxd = 0;
    st[sp++] = (struct frame){root, 0};
    count = 1;
    maxd = 1;
    while (sp) {
        struct frame *f = &st[sp - 1];
        if (!f->n->mChildren || f->next >= f->n->mNumChildren) {
            sp--;
            continue;
        }
        const struct aiNode *ch = f->n->mChildren[f->next++];
        if (!ch)
            return UINT32_MAX;
        if (sp == MAX_NODE_DEPTH || ++count > MAX_NODES)
            return UINT32_MAX;
        st[sp++] = (struct frame){ch, 0};
        if (sp > maxd)
            maxd = sp;
    }
    *depth_out = maxd;
    return count;
}

/* The meshes of an aiNode that index the scene's meshes. */
static uint32_t node_meshes(const ai_ctx_t *c, const struct aiNode *n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; n->mMeshes && i < n->mNumMeshes; i++)
        k += n->mMeshes[i] < c->scene->mNumMeshes;
    return k;
}

/* Count the extra nodes the several-mesh nodes need (bounded like nodes). */
static uint32_t count_extra(const ai_ctx_t *c, const struct aiNode *root)
{
    struct frame {
        const struct aiNode *n;
        uint32_t next;
    } st[MAX_NODE_DEPTH];
    uint32_t sp = 0, extra = 0;
    st[sp++] = (struct frame){root, 0};
    uint32_t k = node_meshes(c, root);
    extra += k > 1 ? k - 1 : 0;
    while (sp) {
        struct frame *f = &st[sp - 1];
        if (!f->n->mChildren || f->next >= f->n->mNumChildren) {
            sp--;
            continue;
        }
        const struct aiNode *ch = f->n->mChildren[f->next++];
        k = node_meshes(c, ch);
        extra += k > 1 ? k - 1 : 0;
        if (extra > MAX_NODES)
            return UINT32_MAX;
        st[sp++] = (struct frame){ch, 0};
    }
    return extra;
}

/* A node holds one mesh in the model: an aiNode with several keeps its
 * first and gets one child per further mesh (identity transform, its name),
 * numbered after every source node so the source's node/N uuids stay. */
static ze_result convert_nodes(ai_ctx_t *c)
{
    const struct aiNode *root = c->scene->mRootNode;
    ze_model_t *m = c->model;
    if (!root)
        return ZE_OK;
    uint32_t depth = 0, n = count_nodes(root, &depth);
    uint32_t extra = n == UINT32_MAX ? 0 : count_extra(c, root);
    if (n == UINT32_MAX || extra == UINT32_MAX)
        FAIL(ZE_ERR_LIMIT, "node hierarchy is broken, deeper than %d or larger than %d nodes",
             MAX_NODE_DEPTH, MAX_NODES);
    ze_model_node_t *nodes = ze__astore_array(c->store, n + extra, sizeof *nodes, 16, true);
    walk_t *queue = ze__astore_array(c->store, n, sizeof *queue, 16, false);
    if (!nodes || !queue)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    /* Breadth-first: a node's children get consecutive numbers. */
    uint32_t head = 0, tail = 0, syn = n;
    queue[tail++] = (walk_t){root, -1, 1};
    while (head < tail) {
        walk_t w = queue[head];
        uint32_t id = head++;
        ze_model_node_t *nd = &nodes[id];
        nd->name = ai_str(c, &w.node->mName);
        if (!nd->name)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        nd->parent = w.parent;
        nd->mesh = nd->camera = nd->skin = -1;
        uint32_t meshes[2] = {0}, nm = 0; /* the first valid one, and whether more follow */
        for (uint32_t i = 0; w.node->mMeshes && i < w.node->mNumMeshes; i++)
            if (w.node->mMeshes[i] < c->scene->mNumMeshes && nm++ == 0)
                meshes[0] = w.node->mMeshes[i];
        if (nm)
            nd->mesh = (int32_t)meshes[0];
        struct aiVector3D s, t;
        struct aiQuaternion q;
        aiDecomposeMatrix(&w.node->mTransformation, &s, &q, &t);
        nd->translation = (ze_vec3_t){fin(t.x, 0), fin(t.y, 0), fin(t.z, 0)};
        nd->rotation = (ze_quat_t){fin(q.x, 0), fin(q.y, 0), fin(q.z, 0), fin(q.w, 1)};
        nd->scale = (ze_vec3_t){fin(s.x, 1), fin(s.y, 1), fin(s.z, 1)};
        nd->local = ze_mat4_from_trs(nd->translation, nd->rotation, nd->scale);
        uint32_t nch = w.node->mChildren ? w.node->mNumChildren : 0;
        uint32_t more = nm > 1 ? nm - 1 : 0;
        uint32_t *ch = nch + more ? ze__astore_array(c->store, nch + more, 4, 4, false) : NULL;
        if (nch + more && !ch)
            FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
        for (uint32_t k = 0; k < nch; k++) {
            if (tail >= n)
                FAIL(ZE_ERR_PARSE, "node hierarchy changed while walked");
            ch[k] = tail;
            queue[tail++] = (walk_t){w.node->mChildren[k], (int32_t)id, w.depth + 1};
        }
        uint32_t k = nch, seen = 0;
        for (uint32_t i = 0; more && i < w.node->mNumMeshes; i++) {
            if (w.node->mMeshes[i] >= c->scene->mNumMeshes || seen++ == 0)
                continue;
            if (syn >= n + extra)
                FAIL(ZE_ERR_PARSE, "node hierarchy changed while walked");
            ze_model_node_t *x = &nodes[syn];
            x->name = nd->name;
            x->parent = (int32_t)id;
            x->mesh = (int32_t)w.node->mMeshes[i];
            x->camera = x->skin = -1;
            x->rotation = ZE_QUAT_IDENTITY;
            x->scale = (ze_vec3_t){1, 1, 1};
            x->local = ze_mat4_identity();
            ch[k++] = syn++;
        }
        nd->child_count = k;
        nd->children = ch;
    }
    uint32_t *roots = ze__astore_array(c->store, 1, 4, 4, false);
    ze_model_scene_t *sc = ze__astore_zero(c->store, sizeof *sc, 16);
    if (!roots || !sc)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    roots[0] = 0;
    sc->name = "";
    sc->node_count = 1;
    sc->nodes = roots;
    m->nodes = nodes;
    m->node_count = syn;
    m->scenes = sc;
    m->scene_count = 1;
    m->default_scene = 0;
    /* the facts found in the source: its own nodes */
    m->stats.nodes = n;
    m->stats.scenes = 1;
    m->stats.root_nodes = 1;
    m->stats.max_node_depth = depth;
    return ZE_OK;
}

/* ------------------------------------------------------------------ import */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static ze_result convert(ai_ctx_t *c)
{
    const struct aiScene *s = c->scene;
    ze_model_t *m = c->model;
    if (s->mNumMeshes && !s->mMeshes)
        FAIL(ZE_ERR_PARSE, "scene has %u meshes but no mesh array", s->mNumMeshes);
    if (s->mNumMaterials && !s->mMaterials)
        FAIL(ZE_ERR_PARSE, "scene has %u materials but no material array", s->mNumMaterials);
    ze_model_mesh_t *meshes =
        ze__astore_array(c->store, s->mNumMeshes + 1u, sizeof *meshes, 16, true);
    ze_model_material_t *mats =
        ze__astore_array(c->store, s->mNumMaterials + 1u, sizeof *mats, 16, true);
    c->tex_keys = ze__astore_array(c->store, MAX_TEXTURES, sizeof(char *), 16, true);
    c->textures = ze__astore_array(c->store, MAX_TEXTURES, sizeof *c->textures, 16, true);
    c->images = ze__astore_array(c->store, MAX_TEXTURES, sizeof *c->images, 16, true);
    if (!meshes || !mats || !c->tex_keys || !c->textures || !c->images)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    ze_vec3_t mn = {INFINITY, INFINITY, INFINITY}, mx = {-INFINITY, -INFINITY, -INFINITY};
    bool any = false;
    for (uint32_t i = 0; i < s->mNumMeshes; i++) {
        ZE__TRY(convert_mesh(c, i, &meshes[i]));
        const ze_model_primitive_t *p = &meshes[i].primitives[0];
        if (!p->skipped) {
            any = true;
            mn = (ze_vec3_t){fminf(mn.x, p->min.x), fminf(mn.y, p->min.y), fminf(mn.z, p->min.z)};
            mx = (ze_vec3_t){fmaxf(mx.x, p->max.x), fmaxf(mx.y, p->max.y), fmaxf(mx.z, p->max.z)};
        }
    }
    for (uint32_t i = 0; i < s->mNumMaterials; i++)
        ZE__TRY(convert_material(c, i, &mats[i]));
    ZE__TRY(convert_nodes(c));
    m->meshes = meshes;
    m->mesh_count = s->mNumMeshes;
    m->materials = mats;
    m->material_count = s->mNumMaterials;
    m->textures = c->textures;
    m->texture_count = c->ntex;
    m->images = c->images;
    m->image_count = c->ntex;
    m->min = any ? mn : (ze_vec3_t){0, 0, 0};
    m->max = any ? mx : (ze_vec3_t){0, 0, 0};
    m->stats.meshes = m->stats.primitives = s->mNumMeshes;
    m->stats.materials = s->mNumMaterials;
    m->stats.textures = m->stats.images = c->ntex;
    m->stats.cameras = s->mCameras ? s->mNumCameras : 0;
    m->stats.animations = s->mAnimations ? s->mNumAnimations : 0;
    /* dependencies: the texture files read and the files assimp opened
       (an OBJ's .mtl), sorted and unique */
    const char **deps =
        ze__astore_array(c->store, c->ntex + c->nopened + 1u, sizeof(char *), 16, false);
    if (!deps)
        FAIL(ZE_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t nd = 0;
    for (uint32_t i = 0; i < c->ntex; i++)
        if (c->images[i].uri)
            deps[nd++] = c->images[i].uri;
    for (uint32_t i = 0; i < c->nopened; i++)
        deps[nd++] = c->opened[i];
    qsort(deps, nd, sizeof(char *), cmp_str);
    uint32_t u = 0;
    for (uint32_t i = 0; i < nd; i++)
        if (u == 0 || strcmp(deps[u - 1], deps[i]) != 0)
            deps[u++] = deps[i];
    m->dependencies = deps;
    m->dependency_count = u;
    return ZE_OK;
}

ze_result ze__assimp_import(const char *path, ze_allocator_t alloc, uint64_t max_bytes,
                            ze_model_t **out, ze__asset_error_t *err)
{
    *out = NULL;
    max_bytes = max_bytes ? max_bytes : DEFAULT_MAX_BYTES;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        ze__asset_error_set(err, "cannot read '%s': %s", path,
                            errno ? strerror(errno) : "not a regular file");
        return ZE_ERR_IO;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        ze__asset_error_set(err, "'%s' is %lld bytes, more than the %llu byte limit", path,
                            (long long)st.st_size, (unsigned long long)max_bytes);
        return ZE_ERR_LIMIT;
    }
    ze__astore_t tmp;
    ze__astore_init(&tmp, alloc, 0);
    ze__astore_t *store = ze__astore_push(&tmp, sizeof *store, 16);
    ai_ctx_t *c = store ? ze__astore_zero(&tmp, sizeof *c, 16) : NULL;
    ze_model_t *m = c ? ze__astore_zero(&tmp, sizeof *m, 16) : NULL;
    if (!m) {
        ze__astore_release(&tmp);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *store = tmp; /* the store now lives inside itself */
    store->limit = max_bytes;
    c->store = store;
    c->err = err;
    c->model = m;
    c->max_bytes = max_bytes;
    c->source = path;
    m->default_scene = -1;
    m->internal_ = store;
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(c->dir, sizeof c->dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(c->dir, sizeof c->dir, ".");
    if (slash == path)
        snprintf(c->dir, sizeof c->dir, "/");

    const unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                           aiProcess_SortByPType | aiProcess_FlipUVs |
                           aiProcess_RemoveRedundantMaterials | aiProcess_ValidateDataStructure;
    struct aiFileIO io = {.OpenProc = io_open, .CloseProc = io_close, .UserData = (aiUserData)c};
    const struct aiScene *scene = aiImportFileEx(path, flags, &io);
    ze_result r = ZE_OK;
    if (!scene) {
        const char *why = aiGetErrorString();
        ze__asset_error_set(err, "assimp: %s", why && why[0] ? why : "import failed");
        r = ZE_ERR_PARSE;
    } else if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        ze__asset_error_set(err, "assimp: the scene is incomplete");
        r = ZE_ERR_PARSE;
    } else {
        c->scene = scene;
        r = convert(c);
    }
    if (scene)
        aiReleaseImport(scene);
    if (r != ZE_OK) {
        ze__astore_t copy = *store;
        ze__astore_release(&copy);
        return r;
    }
    *out = m;
    return ZE_OK;
}
