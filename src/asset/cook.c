/* The cooker: import one source, write its artifacts into a folder. Every
 * artifact is first written (and fsynced) under a hidden temporary name;
 * only when all of them are written are they renamed into place, so an
 * import or write failure leaves no artifact behind. (The VFS will take
 * over these writes when the coordinator arrives; the cooker runs in a
 * child `zengine cook` process there.) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asset/asset_internal.h"

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char a = s[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != b)
            return false;
    }
    return true;
}

const char *ze_asset_importer_for(const char *path)
{
    if (!path)
        return NULL;
    if (ends_with_ci(path, ".gltf") || ends_with_ci(path, ".glb"))
        return "gltf";
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* mkdir -p; `created` tells whether the last component was made here. */
static ze_result make_dirs(const char *dir, bool *created, ze_asset_error_t *err)
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

static ze_result write_temp(artifact_t *a, const void *data, size_t size, ze_asset_error_t *err)
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

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static ze_result cook_gltf(const ze_cook_desc_t *desc, ze_cook_result_t *out, ze__astore_t *store,
                           ze_allocator_t alloc)
{
    ze_asset_error_t *err = &out->error;
    ze_model_t *model;
    ze_gltf_desc_t gd = {.alloc = alloc, .max_bytes = desc->max_bytes};
    ZE__TRY(ze_asset_import_gltf_file(desc->source, &gd, &model, err));
    out->source = model->stats;
    out->cooked.skipped_primitives = model->stats.skipped_primitives;

    /* Identities of the sub-assets. */
    ze_uuid_t *mesh_ids =
        ze__astore_array(store, model->mesh_count + 1u, sizeof(ze_uuid_t), 16, false);
    ze_uuid_t *mat_ids =
        ze__astore_array(store, model->material_count + 1u, sizeof(ze_uuid_t), 16, false);
    ze_uuid_t *tex_ids =
        ze__astore_array(store, model->texture_count + 1u, sizeof(ze_uuid_t), 16, false);
    uint32_t max_artifacts = model->mesh_count + model->material_count;
    artifact_t *arts = ze__astore_array(store, max_artifacts + 1u, sizeof(artifact_t), 16, true);
    if (!mesh_ids || !mat_ids || !tex_ids || !arts) {
        ze_asset_model_destroy(model);
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    char label[32];
    for (uint32_t i = 0; i < model->mesh_count; i++) {
        int n = snprintf(label, sizeof label, "mesh/%u", i);
        mesh_ids[i] = ze_uuid_v5(out->source_uuid, label, (size_t)n);
    }
    for (uint32_t i = 0; i < model->material_count; i++) {
        int n = snprintf(label, sizeof label, "material/%u", i);
        mat_ids[i] = ze_uuid_v5(out->source_uuid, label, (size_t)n);
    }
    for (uint32_t i = 0; i < model->texture_count; i++) {
        int n = snprintf(label, sizeof label, "texture/%u", i);
        tex_ids[i] = ze_uuid_v5(out->source_uuid, label, (size_t)n);
    }

    bool created_dir = false;
    ze_result r = make_dirs(desc->out_dir, &created_dir, err);
    /* stem: the file name without its extension */
    const char *bn = base_name(desc->source);
    const char *dot = strrchr(bn, '.');
    size_t stem_len = dot && dot != bn ? (size_t)(dot - bn) : strlen(bn);
    char stem[NAME_MAX + 1];
    snprintf(stem, sizeof stem, "%.*s", (int)ZE_MIN(stem_len, (size_t)NAME_MAX - 40), bn);
    char tmp_prefix[64];
    snprintf(tmp_prefix, sizeof tmp_prefix, ".cook-%ld-", (long)getpid());

    uint32_t nart = 0;
    for (uint32_t i = 0; r == ZE_OK && i < model->mesh_count + model->material_count; i++) {
        bool is_mesh = i < model->mesh_count;
        uint32_t index = is_mesh ? i : i - model->mesh_count;
        uint8_t *bytes = NULL;
        size_t size = 0;
        ze_result wr;
        if (is_mesh)
            wr =
                ze_asset_zemesh_write(model, index, mesh_ids[index], mat_ids, alloc, &bytes, &size);
        else
            wr = ze_asset_zematerial_write(model, index, mat_ids[index], tex_ids, alloc,
                                           (char **)&bytes, &size);
        if (wr == ZE_ERR_NOT_FOUND)
            continue; /* a mesh of points and lines only */
        if (wr != ZE_OK) {
            ze__asset_error_set(err, "cannot cook %s %u: %s", is_mesh ? "mesh" : "material", index,
                                ze_result_str(wr));
            r = wr;
            break;
        }
        char name[NAME_MAX + 64];
        snprintf(name, sizeof name, "%s.%s%u.%s", stem, is_mesh ? "mesh" : "material", index,
                 is_mesh ? "zemesh" : "zematerial");
        artifact_t *a = &arts[nart];
        a->name = ze__astore_strdup(store, name);
        a->tmp = join(store, desc->out_dir, tmp_prefix, name);
        a->final_path = join(store, desc->out_dir, "", name);
        if (!a->name || !a->tmp || !a->final_path) {
            ze__asset_error_set(err, "output path too long or out of memory");
            r = ZE_ERR_LIMIT;
        } else {
            nart++;
            r = write_temp(a, bytes, size, err);
        }
        ze_free(alloc, bytes, size);
        if (r == ZE_OK) {
            if (is_mesh) {
                const ze_model_mesh_t *m = &model->meshes[index];
                out->cooked.meshes++;
                for (uint32_t k = 0; k < m->primitive_count; k++) {
                    if (m->primitives[k].skipped)
                        continue;
                    out->cooked.submeshes++;
                    out->cooked.vertices += m->primitives[k].vertex_count;
                    out->cooked.indices += m->primitives[k].index_count;
                }
            } else {
                out->cooked.materials++;
            }
        }
    }
    /* All written: move them into place. */
    for (uint32_t i = 0; r == ZE_OK && i < nart; i++) {
        if (rename(arts[i].tmp, arts[i].final_path) != 0) {
            ze__asset_error_set(err, "cannot rename '%s': %s", arts[i].tmp, strerror(errno));
            r = ZE_ERR_IO;
            break;
        }
        arts[i].renamed = true;
    }
    if (r == ZE_OK) {
        int dfd = open(desc->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    } else {
        for (uint32_t i = 0; i < nart; i++) {
            if (arts[i].renamed)
                unlink(arts[i].final_path);
            else if (arts[i].written)
                unlink(arts[i].tmp);
        }
        if (created_dir)
            rmdir(desc->out_dir); /* only succeeds when empty */
        memset(&out->cooked, 0, sizeof out->cooked);
    }
    ze_asset_model_destroy(model);
    if (r != ZE_OK)
        return r;
    const char **names = ze__astore_array(store, nart + 1u, sizeof(char *), 16, false);
    if (!names) {
        ze__asset_error_set(err, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < nart; i++)
        names[i] = arts[i].name;
    qsort(names, nart, sizeof(char *), cmp_name);
    out->artifacts = names;
    out->artifact_count = nart;
    return ZE_OK;
}

ze_result ze_asset_cook(const ze_cook_desc_t *desc, ze_cook_result_t *out)
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
    if (!out->importer) {
        ze__asset_error_set(&out->error,
                            "no importer for '%s' (this build cooks .gltf and .glb files)",
                            base_name(desc->source));
        return ZE_ERR_UNSUPPORTED;
    }
    ze__astore_t tmp;
    ze__astore_init(&tmp, alloc, 0);
    ze__astore_t *store = ze__astore_push(&tmp, sizeof *store, 16);
    if (!store) {
        ze__astore_release(&tmp);
        ze__asset_error_set(&out->error, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    *store = tmp;
    out->storage_ = store;
    return cook_gltf(desc, out, store, alloc);
}

void ze_asset_cook_result_release(ze_cook_result_t *result)
{
    if (!result || !result->storage_)
        return;
    ze__astore_t copy = *(ze__astore_t *)result->storage_;
    ze__astore_release(&copy);
    result->storage_ = NULL;
    result->artifacts = NULL;
    result->artifact_count = 0;
}
