/* The cooker: import one source, write its artifacts into a folder. Every
 * artifact is first written (and fsynced) under a hidden temporary name;
 * only when all of them are written are they renamed into place, so an
 * import or write failure leaves no artifact behind. (The VFS will take
 * over these writes when the coordinator arrives; the cooker runs in a
 * child `zengine cook` process there.)
 *
 * Models (glTF, assimp) with nodes also get <stem>.scene.json, the node
 * hierarchy as an ECS scene file (src/asset/scene_out.c). The result lists
 * each artifact's sub-asset (uuid, type) in the artifacts' sorted order and
 * the external files the import read (the model's dependencies). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cook/cook_internal.h"
#include "zengine/cook.h"
#include "cook/scene_out.h"

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* mkdir -p; `created` tells whether the last component was made here. */
static ze_result make_dirs(const char *dir, bool *created, ze__asset_error_t *err)
{
    char buf[PATH_MAX];
    size_t n = strlen(dir);
    *created = false;
    if (n == 0 || n >= sizeof buf) {
        ze__asset_error_set(err, "output folder path is empty or too long");
        return ZE_ERR_INVALID_ARG;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0)
            continue;
        char keep = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0755) == 0) {
            if (i == n || (i == n - 1 && dir[n - 1] == '/'))
                *created = true;
        } else if (errno != EEXIST) {
            ze__asset_error_set(err, "cannot create folder '%s': %s", buf, strerror(errno));
            return ZE_ERR_IO;
        }
        buf[i] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ze__asset_error_set(err, "'%s' is not a folder", dir);
        return ZE_ERR_IO;
    }
    return ZE_OK;
}

typedef struct artifact_t {
    char *name; /* relative to out_dir */
    char *tmp;  /* full path of the temporary file */
    char *final_path;
    ze_uuid_t uuid; /* the sub-asset's */
    ze_asset_type type;
    bool written, renamed;
} artifact_t;

static ze_result write_all(int fd, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return ZE_ERR_IO;
        p += w;
        size -= (size_t)w;
    }
    return ZE_OK;
}

static ze_result write_temp(artifact_t *a, const void *data, size_t size, ze__asset_error_t *err)
{
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        ze__asset_error_set(err, "cannot create '%s': %s", a->tmp, strerror(errno));
        return ZE_ERR_IO;
    }
    a->written = true;
    ze_result r = write_all(fd, data, size);
    if (r == ZE_OK && fsync(fd) != 0)
        r = ZE_ERR_IO;
    if (close(fd) != 0)
        r = ZE_ERR_IO;
    if (r != ZE_OK)
        ze__asset_error_set(err, "cannot write '%s': %s", a->tmp, strerror(errno));
    return r;
}

static char *join(ze__astore_t *s, const char *dir, const char *prefix, const char *name)
{
    size_t n = strlen(dir) + strlen(prefix) + strlen(name) + 2;
    if (n > PATH_MAX)
        return NULL;
    char *p = ze__astore_push(s, n, 1);
    if (p)
        snprintf(p, n, "%s/%s%s", dir, prefix, name);
    return p;
}

static int cmp_artifact(const void *a, const void *b)
{
    return strcmp(((const artifact_t *)a)->name, ((const artifact_t *)b)->name);
}

/* ------------------------------------------------------- the artifacts */

static const ze_uuid_t NIL_UUID;

typedef struct cook_ctx_t {
    const ze_cook_desc_t *desc;
    ze_cook_result_t *out;
    ze__astore_t *store;
    ze_allocator_t alloc;
    ze__asset_error_t *err;
    char stem[NAME_MAX + 1];
    char tmp_prefix[64];
    bool dir_ready, created_dir;
    artifact_t *arts;
    uint32_t nart, cap;
    ze_import_settings_t settings; /* validated */
    ze_cook_texture_t *texs;       /* the result's texture reports */
    const char **warnings;         /* the result's warnings */
    uint32_t nwarn, warn_cap;
} cook_ctx_t;

static ze_uuid_t sub_uuid(const cook_ctx_t *c, const char *kind, uint32_t i)
{
    /* the name a reference by path uses ("/models/x.gltf#mesh/0") */
    char label[ZE_ASSET_SUB_NAME_MAX];
    snprintf(label, sizeof label, "%s/%u", kind, i);
    return ze_asset_sub_asset_uuid(c->out->source_uuid, label);
}

/* Something the cook leaves out, kept for the result and reported at WARN
 * (subject: the source) as it happens. */
static ze_result cook_warn(cook_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ze_result cook_warn(cook_ctx_t *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->nwarn == c->warn_cap) {
        uint32_t cap = c->warn_cap ? c->warn_cap * 2 : 8;
        const char **n = ze__astore_array(c->store, cap, sizeof(char *), 16, true);
        if (!n) {
            ze__asset_error_set(c->err, "out of memory");
            return ZE_ERR_OUT_OF_MEMORY;
        }
        if (c->nwarn)
            memcpy(n, c->warnings, c->nwarn * sizeof(char *));
        c->warnings = n;
        c->warn_cap = cap;
    }
    const char *kept = ze__astore_strdup(c->store, msg);
    if (!kept) {
        ze__asset_error_set(c->err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    c->warnings[c->nwarn++] = kept;
    c->out->warnings = c->warnings;
    c->out->warning_count = c->nwarn;
    (void)ze_diag(&c->desc->diag, ZE_LOG_WARN, ZE_OK, "cook", c->desc->source, "%s", msg);
    return ZE_OK;
}

/* Write one artifact under its temporary name (the folder made on the
 * first). The bytes stay the caller's. */
static ze_result emit_named(cook_ctx_t *c, const char *name, ze_uuid_t uuid, const void *bytes,
                            size_t size)
{
    if (!c->dir_ready) {
        ZE__TRY(make_dirs(c->desc->out_dir, &c->created_dir, c->err));
        c->dir_ready = true;
    }
    if (c->nart == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 16;
        artifact_t *n = ze__astore_array(c->store, cap, sizeof(artifact_t), 16, true);
        if (!n) {
            ze__asset_error_set(c->err, "out of memory");
            return ZE_ERR_OUT_OF_MEMORY;
        }
        if (c->nart)
            memcpy(n, c->arts, c->nart * sizeof(artifact_t));
        c->arts = n;
        c->cap = cap;
    }
    artifact_t *a = &c->arts[c->nart];
    a->uuid = uuid;
    a->type = ze_asset_type_of_artifact(name);
    a->name = ze__astore_strdup(c->store, name);
    a->tmp = join(c->store, c->desc->out_dir, c->tmp_prefix, name);
    a->final_path = join(c->store, c->desc->out_dir, "", name);
    if (!a->name || !a->tmp || !a->final_path) {
        ze__asset_error_set(c->err, "output path too long or out of memory");
        return ZE_ERR_LIMIT;
    }
    c->nart++;
    return write_temp(a, bytes, size, c->err);
}

/* <stem>.<kind><index>.<ext>, uuid v5(source uuid, "<kind>/<index>"). */
static ze_result emit(cook_ctx_t *c, const char *kind, uint32_t index, const char *ext,
                      const void *bytes, size_t size)
{
    char name[NAME_MAX + 64];
    snprintf(name, sizeof name, "%s.%s%u.%s", c->stem, kind, index, ext);
    return emit_named(c, name, sub_uuid(c, kind, index), bytes, size);
}

/* A .zetex cooked: emitted, and its figures kept for the result. */
static ze_result emit_texture(cook_ctx_t *c, uint32_t index, const uint8_t *bytes, size_t size,
                              const ze__tex_cook_info_t *info)
{
    ZE__TRY(emit(c, "texture", index, "zetex", bytes, size));
    ze_cook_texture_t *t = &c->texs[c->out->texture_count++];
    *t = (ze_cook_texture_t){.artifact = c->arts[c->nart - 1].name,
                             .format = info->format,
                             .psnr_db = info->psnr_db,
                             .bytes = info->bytes,
                             .rgba8_bytes = info->rgba8_bytes};
    return ZE_OK;
}

/* All written: move them into place; or, on failure, remove every trace. */
static ze_result finish(cook_ctx_t *c, ze_result r)
{
    for (uint32_t i = 0; r == ZE_OK && i < c->nart; i++) {
        if (rename(c->arts[i].tmp, c->arts[i].final_path) != 0) {
            ze__asset_error_set(c->err, "cannot rename '%s': %s", c->arts[i].tmp, strerror(errno));
            r = ZE_ERR_IO;
            break;
        }
        c->arts[i].renamed = true;
    }
    if (r == ZE_OK && !c->dir_ready) {
        /* Nothing to write (a model of points and lines): the folder
           still exists afterwards. */
        r = make_dirs(c->desc->out_dir, &c->created_dir, c->err);
        c->dir_ready = r == ZE_OK;
    }
    if (r == ZE_OK) {
        int dfd = open(c->desc->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    } else if (r != ZE_OK) {
        for (uint32_t i = 0; i < c->nart; i++) {
            if (c->arts[i].renamed)
                unlink(c->arts[i].final_path);
            else if (c->arts[i].written)
                unlink(c->arts[i].tmp);
        }
        if (c->created_dir)
            rmdir(c->desc->out_dir); /* only succeeds when empty */
        memset(&c->out->cooked, 0, sizeof c->out->cooked);
        c->out->textures = NULL;
        c->out->texture_count = 0;
        c->out->warnings = NULL;
        c->out->warning_count = 0;
        c->out->dependencies = NULL;
        c->out->dependency_hashes = NULL;
        c->out->dependency_count = 0;
        return r;
    }
    /* The artifacts sorted by name, their sub-assets in the same order. */
    if (c->nart)
        qsort(c->arts, c->nart, sizeof(artifact_t), cmp_artifact);
    const char **names = ze__astore_array(c->store, c->nart + 1u, sizeof(char *), 16, false);
    ze_uuid_t *uuids = ze__astore_array(c->store, c->nart + 1u, sizeof(ze_uuid_t), 16, false);
    ze_asset_type *types =
        ze__astore_array(c->store, c->nart + 1u, sizeof(ze_asset_type), 16, false);
    const char **no_deps =
        c->out->dependencies ? NULL : ze__astore_array(c->store, 1, sizeof(char *), 16, true);
    uint64_t *no_hashes =
        c->out->dependencies ? NULL : ze__astore_array(c->store, 1, sizeof(uint64_t), 16, true);
    if (!names || !uuids || !types || (!c->out->dependencies && (!no_deps || !no_hashes))) {
        ze__asset_error_set(c->err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < c->nart; i++) {
        names[i] = c->arts[i].name;
        uuids[i] = c->arts[i].uuid;
        types[i] = c->arts[i].type;
    }
    c->out->artifacts = names;
    c->out->textures = c->texs;
    c->out->sub_asset_uuids = uuids;
    c->out->sub_asset_types = types;
    c->out->artifact_count = c->nart;
    if (!c->out->dependencies) {
        c->out->dependencies = no_deps;
        c->out->dependency_hashes = no_hashes;
        c->out->dependency_count = 0;
    }
    return ZE_OK;
}

/* A whole file, allocated from c->alloc. */
static ze_result read_host_file(cook_ctx_t *c, const char *path, uint8_t **data, size_t *size)
{
    uint64_t max = c->desc->max_bytes ? c->desc->max_bytes : (1u << 30);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ze__asset_error_set(c->err, "cannot read '%s': %s", path,
                            fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return ZE_ERR_IO;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        ze__asset_error_set(c->err, "'%s' is %lld bytes, more than the %llu byte limit", path,
                            (long long)st.st_size, (unsigned long long)max);
        return ZE_ERR_LIMIT;
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = ze_alloc(c->alloc, n ? n : 1, 16);
    if (!buf) {
        close(fd);
        ze__asset_error_set(c->err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
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
    if (got != n) {
        ze_free(c->alloc, buf, n ? n : 1);
        ze__asset_error_set(c->err, "cannot read '%s' (changed while reading?)", path);
        return ZE_ERR_IO;
    }
    *data = buf;
    *size = n;
    return ZE_OK;
}

static ze_result read_source(cook_ctx_t *c, uint8_t **data, size_t *size)
{
    return read_host_file(c, c->desc->source, data, size);
}

static void free_source(cook_ctx_t *c, uint8_t *data, size_t size)
{
    ze_free(c->alloc, data, size ? size : 1);
}

/* --------------------------------------------------- models (glTF, assimp) */

/* Colour textures (base colour, emissive) are sRGB; a texture only used
 * for data (metal/rough, normal, occlusion) is linear. Unused: colour. */
static bool texture_is_linear(const ze_model_t *m, uint32_t t)
{
    bool data_use = false;
    for (uint32_t i = 0; i < m->material_count; i++) {
        const ze_model_material_t *mat = &m->materials[i];
        if (mat->base_color.texture == (int32_t)t || mat->emissive.texture == (int32_t)t)
            return false;
        if (mat->metallic_roughness.texture == (int32_t)t || mat->normal.texture == (int32_t)t ||
            mat->occlusion.texture == (int32_t)t)
            data_use = true;
    }
    return data_use;
}

/* Usage hints for "compression": "auto": a normal map (and nothing else
 * reads it) gets BC5; a texture only read as occlusion (its red channel)
 * gets BC4. */
static void texture_usage(const ze_model_t *m, uint32_t t, bool *normal_map, bool *red_only)
{
    bool normal = false, occlusion = false, other = false;
    for (uint32_t i = 0; i < m->material_count; i++) {
        const ze_model_material_t *mat = &m->materials[i];
        if (mat->base_color.texture == (int32_t)t || mat->emissive.texture == (int32_t)t ||
            mat->metallic_roughness.texture == (int32_t)t)
            other = true;
        if (mat->normal.texture == (int32_t)t)
            normal = true;
        if (mat->occlusion.texture == (int32_t)t)
            occlusion = true;
    }
    *normal_map = normal && !other && !occlusion;
    *red_only = occlusion && !other && !normal;
}

/* The model's external files, copied into the result (the model goes),
 * each with the hash of its content: what the `.meta` records so that an
 * edit made while no engine runs is seen at the next start. The files are
 * read once more here, after the import: a change in between is a watcher
 * event, which cooks again anyway. */
static ze_result copy_dependencies(cook_ctx_t *c, const ze_model_t *model)
{
    uint32_t n = model->dependencies ? model->dependency_count : 0;
    const char **deps = ze__astore_array(c->store, n + 1u, sizeof(char *), 16, true);
    uint64_t *hashes = ze__astore_array(c->store, n + 1u, sizeof(uint64_t), 16, true);
    if (!deps || !hashes) {
        ze__asset_error_set(c->err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    const char *slash = strrchr(c->desc->source, '/');
    int dir_len = slash ? (int)(slash - c->desc->source) : 1;
    const char *dir = slash ? c->desc->source : ".";
    for (uint32_t i = 0; i < n; i++) {
        deps[i] = ze__astore_strdup(c->store, model->dependencies[i]);
        if (!deps[i]) {
            ze__asset_error_set(c->err, "out of memory");
            return ZE_ERR_OUT_OF_MEMORY;
        }
        char path[PATH_MAX];
        int len = snprintf(path, sizeof path, "%.*s/%s", dir_len, dir, deps[i]);
        if (len < 0 || (size_t)len >= sizeof path) {
            ze__asset_error_set(c->err, "dependency path too long: '%s'", deps[i]);
            return ZE_ERR_TOO_LONG;
        }
        struct stat st;
        if (stat(path, &st) != 0 && errno == ENOENT) {
            hashes[i] = 0; /* a missing texture (warned about): unknown */
            continue;
        }
        uint8_t *data;
        size_t size;
        ZE__TRY(read_host_file(c, path, &data, &size));
        hashes[i] = ze_hash64(data, size, 0) | 1u;
        free_source(c, data, size);
    }
    c->out->dependencies = deps;
    c->out->dependency_hashes = hashes;
    c->out->dependency_count = n;
    return ZE_OK;
}

static ze_result cook_model(cook_ctx_t *c, const ze_model_t *model)
{
    ze_cook_result_t *out = c->out;
    ze__asset_error_t *err = c->err;
    out->source = model->stats;
    out->cooked.skipped_primitives = model->stats.skipped_primitives;
    ze_uuid_t *mat_ids =
        ze__astore_array(c->store, model->material_count + 1u, sizeof(ze_uuid_t), 16, false);
    ze_uuid_t *tex_ids =
        ze__astore_array(c->store, model->texture_count + 1u, sizeof(ze_uuid_t), 16, false);
    /* the uuid of each mesh's .zemesh, nil when it has none (the scene's) */
    ze_uuid_t *mesh_ids =
        ze__astore_array(c->store, model->mesh_count + 1u, sizeof(ze_uuid_t), 16, true);
    c->texs =
        ze__astore_array(c->store, model->texture_count + 1u, sizeof(ze_cook_texture_t), 16, true);
    if (!mat_ids || !tex_ids || !mesh_ids || !c->texs) {
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < model->material_count; i++)
        mat_ids[i] = sub_uuid(c, "material", i);
    for (uint32_t i = 0; i < model->texture_count; i++)
        tex_ids[i] = sub_uuid(c, "texture", i);

    for (uint32_t i = 0; i < model->mesh_count; i++) {
        uint8_t *bytes = NULL;
        size_t size = 0;
        ze_result wr = ze_asset_zemesh_write_lods(model, i, sub_uuid(c, "mesh", i), mat_ids,
                                                  c->settings.lod_count, c->alloc, &bytes, &size);
        if (wr == ZE_ERR_NOT_FOUND)
            continue; /* a mesh of points and lines only */
        if (wr != ZE_OK) {
            ze__asset_error_set(err, "cannot cook mesh %u: %s", i, ze_result_str(wr));
            return wr;
        }
        /* The counts of what was written, read back from it (which also
           checks the writer against our own reader). */
        ze_zemesh_view_t v;
        ze_result r = ze__asset_zemesh_read(bytes, size, &v, err);
        if (r == ZE_OK)
            r = emit(c, "mesh", i, "zemesh", bytes, size);
        ze_free(c->alloc, bytes, size);
        if (r != ZE_OK)
            return r;
        mesh_ids[i] = v.uuid;
        out->cooked.meshes++;
        out->cooked.submeshes += v.submesh_count;
        out->cooked.vertices += v.vertex_count;
        out->cooked.indices += v.index_count;
    }
    /* Textures before materials: a texture that cannot be cooked is left
       out of them (the default instead) with a warning naming its file. */
    for (uint32_t i = 0; i < model->texture_count; i++) {
        int32_t im = model->textures[i].image;
        if (im < 0 || (uint32_t)im >= model->image_count) {
            tex_ids[i] = NIL_UUID;
            continue; /* only an extension supplies its image */
        }
        const ze_model_image_t *img = &model->images[im];
        if (img->problem) {
            tex_ids[i] = NIL_UUID;
            ZE__TRY(cook_warn(c,
                              "texture %u (image %d%s%s) left out, its materials use the default: "
                              "%s",
                              i, im, img->uri ? ", " : "", img->uri ? img->uri : "", img->problem));
            continue;
        }
        if (img->format != ZE_IMAGE_FORMAT_PNG && img->format != ZE_IMAGE_FORMAT_JPEG &&
            img->format != ZE_IMAGE_FORMAT_TGA) {
            /* e.g. EXT_texture_webp: not decoded by this cooker */
            tex_ids[i] = NIL_UUID;
            ZE__TRY(cook_warn(c,
                              "texture %u (image %d%s%s) left out, its materials use the default: "
                              "its format is not one this cooker decodes (PNG, JPEG, TGA)",
                              i, im, img->uri ? ", " : "", img->uri ? img->uri : ""));
            continue;
        }
        ze_image_desc_t id = {.alloc = c->alloc,
                              .format = img->format,
                              .linear = texture_is_linear(model, i),
                              .max_bytes = c->desc->max_bytes,
                              .no_mips = c->settings.no_mips,
                              .compression = c->settings.compression};
        texture_usage(model, i, &id.normal_map, &id.red_only);
        uint8_t *bytes = NULL;
        size_t size = 0;
        ze__asset_error_t ierr;
        ze__tex_cook_info_t info;
        ze_result r = ze__asset_zetex_cook_ex(img->data, img->size, tex_ids[i], &id, &bytes, &size,
                                              &info, &ierr);
        if (r == ZE_ERR_OUT_OF_MEMORY) {
            ze__asset_error_set(err, "texture %u (image %d%s%s): %s", i, im, img->uri ? ", " : "",
                                img->uri ? img->uri : "", ierr.message);
            return r;
        }
        if (r != ZE_OK) {
            /* a file that passed the structural checks and does not decode */
            tex_ids[i] = NIL_UUID;
            ZE__TRY(cook_warn(c,
                              "texture %u (image %d%s%s) left out, its materials use the default: "
                              "%s",
                              i, im, img->uri ? ", " : "", img->uri ? img->uri : "", ierr.message));
            continue;
        }
        r = emit_texture(c, i, bytes, size, &info);
        ze_free(c->alloc, bytes, size);
        if (r != ZE_OK)
            return r;
        out->cooked.textures++;
    }
    /* a bad image no texture uses is no loss, but still worth a word */
    for (uint32_t im = 0; im < model->image_count; im++) {
        bool used = false;
        for (uint32_t i = 0; i < model->texture_count && !used; i++)
            used = model->textures[i].image == (int32_t)im;
        if (model->images[im].problem && !used)
            ZE__TRY(cook_warn(c, "image %u (%s%sunused) cannot be read: %s", im,
                              model->images[im].uri ? model->images[im].uri : "",
                              model->images[im].uri ? ", " : "", model->images[im].problem));
    }
    for (uint32_t i = 0; i < model->material_count; i++) {
        char *text = NULL;
        size_t size = 0;
        ze_result wr =
            ze_asset_zematerial_write(model, i, mat_ids[i], tex_ids, c->alloc, &text, &size);
        if (wr != ZE_OK) {
            ze__asset_error_set(err, "cannot cook material %u: %s", i, ze_result_str(wr));
            return wr;
        }
        ze_result r = emit(c, "material", i, "zematerial", text, size);
        ze_free(c->alloc, text, size);
        if (r != ZE_OK)
            return r;
        out->cooked.materials++;
    }
    ZE__TRY(copy_dependencies(c, model));
    if (model->node_count == 0)
        return ZE_OK;
    /* The node hierarchy as an ECS scene file. */
    ze_byte_writer_t w = {.alloc = c->alloc};
    uint32_t entities = 0;
    ze_result r = ze__scene_write(model, out->source_uuid, mesh_ids, c->alloc, &w, &entities, err);
    if (r == ZE_OK) {
        char name[NAME_MAX + 64];
        snprintf(name, sizeof name, "%s.scene.json", c->stem);
        r = emit_named(c, name, sub_uuid(c, "scene", 0), w.data, w.size);
    }
    ze_byte_writer_free(&w);
    return r;
}

static ze_result cook_gltf(cook_ctx_t *c)
{
    ze_model_t *model;
    ze_gltf_desc_t gd = {
        .alloc = c->alloc, .max_bytes = c->desc->max_bytes, .keep_bad_images = true};
    ZE__TRY(ze__asset_import_gltf_file(c->desc->source, &gd, &model, c->err));
    c->out->source_hash = model->source_hash;
    ze__cook_apply_settings(model, &c->settings);
    ze_result r = cook_model(c, model);
    ze_asset_model_destroy(model);
    return r;
}

static ze_result cook_assimp(cook_ctx_t *c)
{
    /* assimp reads the file through its own I/O: hash it here */
    uint8_t *data;
    size_t size;
    ZE__TRY(read_source(c, &data, &size));
    c->out->source_hash = ze_hash64(data, size, 0) | 1u;
    free_source(c, data, size);
    ze_model_t *model;
    ZE__TRY(ze__assimp_import(c->desc->source, c->alloc, c->desc->max_bytes, &model, c->err));
    ze__cook_apply_settings(model, &c->settings);
    ze_result r = cook_model(c, model);
    ze_asset_model_destroy(model);
    return r;
}

/* ------------------------------------------------ standalone images, HDR */

static ze_result cook_image(cook_ctx_t *c, bool hdr)
{
    uint8_t *data;
    size_t size;
    ZE__TRY(read_source(c, &data, &size));
    ze_image_desc_t id = {.alloc = c->alloc,
                          .max_bytes = c->desc->max_bytes,
                          .no_mips = c->settings.no_mips,
                          .compression = c->settings.compression};
    c->texs = ze__astore_array(c->store, 1, sizeof(ze_cook_texture_t), 16, true);
    if (!c->texs) {
        free_source(c, data, size);
        ze__asset_error_set(c->err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (!hdr && ze__ends_with_ci(c->desc->source, ".tga"))
        id.format = ZE_IMAGE_FORMAT_TGA;
    uint8_t *bytes = NULL;
    size_t n = 0;
    ze_uuid_t uuid = sub_uuid(c, hdr ? "envmap" : "texture", 0);
    c->out->source_hash = ze_hash64(data, size, 0) | 1u;
    ze__tex_cook_info_t info;
    ze_result r = hdr ? ze__asset_zenvmap_cook(data, size, uuid, &id, &bytes, &n, c->err)
                      : ze__asset_zetex_cook_ex(data, size, uuid, &id, &bytes, &n, &info, c->err);
    free_source(c, data, size);
    if (r != ZE_OK)
        return r;
    r = hdr ? emit(c, "envmap", 0, "zenvmap", bytes, n) : emit_texture(c, 0, bytes, n, &info);
    ze_free(c->alloc, bytes, n);
    if (r == ZE_OK) {
        c->out->source.textures = 1;
        c->out->source.images = 1;
        c->out->cooked.textures = 1;
    }
    return r;
}

static ze_result cook(const ze_cook_desc_t *desc, ze_cook_result_t *out, ze__asset_error_t *err)
{
    ZE_CHECK(desc && out && desc->source && desc->out_dir, ZE_ERR_INVALID_ARG);
    memset(out, 0, sizeof *out);
    ze_allocator_t alloc = ze__asset_alloc_or_default(desc->alloc);
    out->alloc_ = alloc;
    out->source_uuid = desc->source_uuid;
    if (ze_uuid_is_nil(out->source_uuid)) {
        char label[NAME_MAX + 16];
        int n = snprintf(label, sizeof label, "source/%s", base_name(desc->source));
        out->source_uuid =
            ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, label, ZE_MIN((size_t)n, sizeof label - 1));
    }
    out->importer = ze_asset_importer_for(desc->source);
    if (desc->importer) {
        static const char *const known[] = {"gltf", "assimp", "image", "hdr"};
        out->importer = NULL;
        for (size_t i = 0; i < ZE_COUNTOF(known); i++)
            if (strcmp(desc->importer, known[i]) == 0)
                out->importer = known[i];
        if (!out->importer) {
            ze__asset_error_set(err, "unknown importer '%.64s' (one of gltf, assimp, image, hdr)",
                                desc->importer);
            return ZE_ERR_INVALID_ARG;
        }
    }
    if (!out->importer) {
        ze__asset_error_set(err,
                            "no importer for '%s' (this build cooks .gltf, .glb, .obj, .fbx, .png, "
                            ".jpg, .jpeg, .tga and .hdr files)",
                            base_name(desc->source));
        return ZE_ERR_UNSUPPORTED;
    }
    /* Settings first: a bad one writes nothing. */
    ze_import_settings_t settings;
    ze_diag_capture_t scap = {0};
    ze_diag_sink_t ssink = ze_diag_capture_sink(&scap);
    if (ze_import_settings_parse(desc->settings, desc->settings ? strlen(desc->settings) : 0,
                                 out->importer, &settings, desc->source, &ssink) != ZE_OK) {
        ze__asset_error_set(err, "%s", scap.last_message);
        return ZE_ERR_PARSE;
    }
    out->settings_hash = ze_import_settings_hash(&settings);
    ze__astore_t tmp;
    ze__astore_init(&tmp, alloc, 0);
    ze__astore_t *store = ze__astore_push(&tmp, sizeof *store, 16);
    if (!store) {
        ze__astore_release(&tmp);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *store = tmp;
    out->storage_ = store;

    cook_ctx_t c = {
        .desc = desc, .out = out, .store = store, .alloc = alloc, .err = err, .settings = settings};
    /* stem: the file name without its extension */
    const char *bn = base_name(desc->source);
    const char *dot = strrchr(bn, '.');
    size_t stem_len = dot && dot != bn ? (size_t)(dot - bn) : strlen(bn);
    snprintf(c.stem, sizeof c.stem, "%.*s", (int)ZE_MIN(stem_len, (size_t)NAME_MAX - 40), bn);
    snprintf(c.tmp_prefix, sizeof c.tmp_prefix, ".cook-%ld-", (long)getpid());
    ze_result r;
    if (strcmp(out->importer, "gltf") == 0)
        r = cook_gltf(&c);
    else if (strcmp(out->importer, "assimp") == 0)
        r = cook_assimp(&c);
    else
        r = cook_image(&c, strcmp(out->importer, "hdr") == 0);
    return finish(&c, r);
}

ze_result ze_asset_cook(const ze_cook_desc_t *desc, ze_cook_result_t *out)
{
    ze__asset_error_t err = {{0}};
    ze_result r = cook(desc, out, &err);
    return ze__asset_report(desc ? &desc->diag : NULL, r, "cook",
                            desc && desc->source ? desc->source : "", &err);
}
