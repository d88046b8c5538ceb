/* Internals of the asset module shared between its files: the allocation
 * store behind imported models, base64, image structure checks, the glTF
 * importer's context and JSON helpers. Not a public header. */
#ifndef ZE_ASSET_INTERNAL_H
#define ZE_ASSET_INTERNAL_H

#include <jansson.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/mem.h"

enum { ZE__ASSET_ERROR_MAX = 512 };

/* A failure's text while it is composed: an inner failure ("cannot read
 * x.bin") is wrapped by its caller ("/buffers/0: ..."). The public entry
 * points report the final text once, through their diagnostics sink
 * (ze__asset_report). One line, NUL-terminated; empty when no error. */
typedef struct ze__asset_error_t {
    char message[ZE__ASSET_ERROR_MAX];
} ze__asset_error_t;

/* r != ZE_OK: report err's text (the result's name when empty) at ERROR.
 * Returns r. */
ze_result ze__asset_report(const ze_diag_sink_t *sink, ze_result r, const char *module,
                           const char *subject, const ze__asset_error_t *err);

/* The readers behind the public ones, with the text in *err. */
ze_result ze__asset_zemesh_read(const void *data, size_t size, ze_zemesh_view_t *out,
                                ze__asset_error_t *err);
ze_result ze__asset_zematerial_read(const void *text, size_t size, ze_zematerial_t *out,
                                    ze__asset_error_t *err);
ze_result ze__asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                               ze__asset_error_t *err);
ze_result ze__asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                 ze__asset_error_t *err);

#define ZE__TRY(expr)              \
    do {                           \
        ze_result ze__r_ = (expr); \
        if (ze__r_ != ZE_OK)       \
            return ze__r_;         \
    } while (0)

/* ------------------------------------------------------------ the store */

/* A bump allocator over a ze_allocator_t: blocks of 64 KiB, a block of
 * its own for anything larger, all freed at once. `limit` caps the bytes
 * taken from the allocator (requests past it fail). */
typedef struct ze__ablock_t ze__ablock_t;
typedef struct ze__astore_t {
    ze_allocator_t alloc;
    ze__ablock_t *blocks;
    uint8_t *cur;
    size_t left;
    uint64_t used;  /* bytes taken from `alloc`, headers included */
    uint64_t limit; /* 0 = none */
} ze__astore_t;

void ze__astore_init(ze__astore_t *s, ze_allocator_t alloc, uint64_t limit);
void ze__astore_release(ze__astore_t *s);
/* NULL on exhaustion (allocator refusal or the limit). */
void *ze__astore_push(ze__astore_t *s, size_t size, size_t align);
void *ze__astore_zero(ze__astore_t *s, size_t size, size_t align);
/* size * count, overflow-checked; NULL on overflow too. */
void *ze__astore_array(ze__astore_t *s, size_t count, size_t size, size_t align, bool zero);
char *ze__astore_strdup(ze__astore_t *s, const char *str);

ze_allocator_t ze__asset_alloc_or_default(ze_allocator_t a);

/* ----------------------------------------------------------------- base64 */

/* Standard alphabet with '=' padding, length a multiple of 4, padding only
 * at the end; anything else is rejected. *out_size <= ze__base64_max(len). */
size_t ze__base64_max(size_t len);
bool ze__base64_decode(const char *src, size_t len, uint8_t *out, size_t *out_size);

/* ----------------------------------------------------------------- images */

/* Structure checks without decoding. On failure `why` says what is wrong. */
ze_image_format ze__image_sniff(const uint8_t *data, size_t size);
bool ze__png_check(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h, const char **why);
bool ze__jpeg_check(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h, const char **why);

/* Decoding through stb_image (src/asset/stbi.c): the format (UNKNOWN =
 * sniffed PNG/JPEG), our structure walk, the caps, then RGBA8 pixels in a
 * block released with ze__pixels_release. `channels` is the source's. */
typedef struct ze__pixels_t {
    uint8_t *rgba;
    uint32_t width, height, channels;
} ze__pixels_t;
ze_result ze__image_decode(const uint8_t *data, size_t size, ze_image_format format,
                           uint32_t max_dim, uint64_t max_bytes, ze_allocator_t alloc,
                           ze__pixels_t *out, ze__asset_error_t *err);
void ze__pixels_release(ze__pixels_t *p);

/* OBJ/FBX through assimp (src/asset/assimp.c) into the model the glTF
 * importer produces; files a material references are read into images. */
ze_result ze__assimp_import(const char *path, ze_allocator_t alloc, uint64_t max_bytes,
                            ze_model_t **out, ze__asset_error_t *err);

/* ------------------------------------------------------------ glTF context */

typedef struct ze__gl_buffer_t {
    const uint8_t *data; /* NULL: an EXT_meshopt_compression fallback without data */
    size_t size;         /* byteLength */
} ze__gl_buffer_t;

typedef struct ze__gl_view_t {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride;   /* 0 = tightly packed */
    uint32_t target;   /* 0 = undefined */
    int64_t attr_user; /* first vertex-attribute accessor using it, -1 */
    bool index_use;
    const uint8_t *data; /* EXT_meshopt_compression: the decoded bytes, else NULL */
} ze__gl_view_t;

typedef struct ze__gl_accessor_t {
    int64_t view; /* -1 = zeros */
    size_t offset;
    uint32_t ctype;     /* 5120..5126 */
    uint32_t csize;     /* bytes of a component */
    uint32_t ncomp;     /* components of an element */
    uint32_t cols;      /* MATn: n columns, else 1 */
    uint32_t col_bytes; /* bytes between columns (padded to 4 for MATn) */
    uint32_t elem_size; /* bytes of an element, padding included */
    size_t stride;      /* bytes between elements */
    uint32_t count;
    bool normalized;
    bool has_min, has_max;
    double min[16], max[16];
    const char *type; /* "SCALAR".."MAT4" */
    /* sparse */
    uint32_t sparse_count;
    uint32_t sparse_index_ctype;
    const uint8_t *sparse_indices; /* resolved, tightly packed */
    const uint8_t *sparse_values;
    /* KHR_draco_mesh_compression: the decoded elements, tightly packed
       (elem_size apart), from bufferView draco_view; NULL: none */
    const uint8_t *draco;
    int64_t draco_view;
    /* decoded data, cached */
    bool checked;
    float *f;
    uint32_t *u;
} ze__gl_accessor_t;

typedef struct ze__gl_ctx_t {
    ze__astore_t *store;
    ze__asset_error_t *err;
    char path[256];
    size_t path_len;
    const char *base_dir;
    uint64_t max_bytes;
    uint64_t file_bytes; /* external bytes read so far */
    json_t *root;
    json_t *j_used; /* extensionsUsed, NULL when absent */
    bool glb;
    const uint8_t *glb_bin; /* NULL: no BIN chunk */
    size_t glb_bin_size;
    bool ext_quantization, ext_texture_transform, ext_emissive_strength, ext_meshopt, ext_draco;
    bool ext_other_images; /* an extension may supply other image formats */
    bool keep_bad_images;  /* ze_gltf_desc_t.keep_bad_images */
    json_t *j_buffers, *j_views, *j_accessors, *j_meshes, *j_materials, *j_textures;
    json_t *j_images, *j_samplers, *j_nodes, *j_scenes, *j_cameras, *j_skins;
    json_t *j_animations;
    uint32_t nbuffers, nviews, naccessors, nmeshes, nmaterials, ntextures, nimages;
    uint32_t nsamplers, nnodes, nscenes, ncameras, nskins, nanimations;
    ze__gl_buffer_t *buffers;
    ze__gl_view_t *views;
    ze__gl_accessor_t *accessors;
    uint32_t *mesh_targets; /* morph targets of each mesh */
    ze_model_t *model;
    /* uniqueness checks of reference arrays: a bitmap kept all zero
       between uses */
    uint8_t *seen;
    uint32_t seen_bits;
    /* dependencies (relative paths), deduplicated at the end */
    const char **deps;
    uint32_t ndeps, deps_cap;
} ze__gl_ctx_t;

/* Errors: "<json pointer>: <message>" (or just the message at the root).
 * Every failure aborts the import, so callers return at once. */
ze_result ze__gl_fail(ze__gl_ctx_t *c, ze_result code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define ZE__GL_FAIL(c, ...) ze__gl_fail((c), ZE_ERR_PARSE, __VA_ARGS__)
size_t ze__gl_push_key(ze__gl_ctx_t *c, const char *key);
size_t ze__gl_push_index(ze__gl_ctx_t *c, size_t index);
void ze__gl_pop(ze__gl_ctx_t *c, size_t mark);

/* JSON getters: type-checked, the key appended to the path in messages.
 * Absent optional properties leave *out at its default and *present false. */
ze_result ze__gl_get_object(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            json_t **out);
/* A non-empty array (glTF arrays have minItems 1). */
ze_result ze__gl_get_array(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                           json_t **out, uint32_t *count);
ze_result ze__gl_get_uint(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required, uint64_t lo,
                          uint64_t hi, uint64_t *out, bool *present);
ze_result ze__gl_get_number(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            double *out, bool *present);
ze_result ze__gl_get_bool(ze__gl_ctx_t *c, json_t *obj, const char *key, bool *out);
ze_result ze__gl_get_string(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                            const char **out);
/* An array of exactly n numbers. */
ze_result ze__gl_get_numbers(ze__gl_ctx_t *c, json_t *obj, const char *key, size_t n, double *out,
                             bool *present);
/* A reference: an integer in [0, limit); `what` names the target array. */
ze_result ze__gl_get_ref(ze__gl_ctx_t *c, json_t *obj, const char *key, bool required,
                         uint32_t limit, const char *what, int64_t *out);
/* An array of unique references. */
ze_result ze__gl_get_refs(ze__gl_ctx_t *c, json_t *obj, const char *key, uint32_t limit,
                          const char *what, uint32_t **out, uint32_t *count);
/* `name` (copied, "" when absent), `extensions` must be an object. */
ze_result ze__gl_common(ze__gl_ctx_t *c, json_t *obj, const char **name);
/* Element i of a top-level array, which must be an object. */
ze_result ze__gl_element(ze__gl_ctx_t *c, json_t *arr, uint32_t i, json_t **out);
/* An extension object of `obj` (NULL when absent). */
ze_result ze__gl_extension(ze__gl_ctx_t *c, json_t *obj, const char *name, json_t **out);
/* Load an external file or a data: URI; `image` selects the media types. */
ze_result ze__gl_load_uri(ze__gl_ctx_t *c, const char *uri, bool image, const uint8_t **data,
                          size_t *size, const char **rel_path, const char **mime);

/* A bufferView's EXT_meshopt_compression object: checked and decoded into
 * gv->data (gltf_meshopt.c; cooker only). */
ze_result ze__gl_meshopt_view(ze__gl_ctx_t *c, json_t *ext, uint32_t index, ze__gl_view_t *gv);
/* A primitive's KHR_draco_mesh_compression object: its stream decoded
 * into the accessors of its attributes and indices (accessor.draco), all
 * checked against the stream (gltf_draco.c; cooker only). */
ze_result ze__gl_draco_primitive(ze__gl_ctx_t *c, json_t *ext, json_t *attrs, int64_t indices,
                                 uint64_t mode);
/* The bytes of a bufferView (decoded when it was compressed). */
static inline const uint8_t *ze__gl_view_data(const ze__gl_ctx_t *c, const ze__gl_view_t *v)
{
    return v->data ? v->data : c->buffers[v->buffer].data + v->offset;
}

/* Parts of the importer, in the order they run. */
ze_result ze__gl_parse_buffers(ze__gl_ctx_t *c);
ze_result ze__gl_parse_views(ze__gl_ctx_t *c);
ze_result ze__gl_parse_accessors(ze__gl_ctx_t *c);
ze_result ze__gl_parse_images(ze__gl_ctx_t *c);
ze_result ze__gl_parse_samplers(ze__gl_ctx_t *c);
ze_result ze__gl_parse_textures(ze__gl_ctx_t *c);
ze_result ze__gl_parse_materials(ze__gl_ctx_t *c);
ze_result ze__gl_parse_cameras(ze__gl_ctx_t *c);
ze_result ze__gl_parse_meshes(ze__gl_ctx_t *c);
ze_result ze__gl_parse_nodes(ze__gl_ctx_t *c);
ze_result ze__gl_parse_skins(ze__gl_ctx_t *c);
ze_result ze__gl_parse_scenes(ze__gl_ctx_t *c);
ze_result ze__gl_parse_animations(ze__gl_ctx_t *c);
/* Data checks (bounds, min/max, finite floats) of accessors nothing
 * decoded yet. */
ze_result ze__gl_check_all_accessors(ze__gl_ctx_t *c);

typedef enum ze__gl_out {
    ZE__GL_OUT_NONE = 0, /* validate only */
    ZE__GL_OUT_FLOAT,    /* float per component, normalization applied */
    ZE__GL_OUT_UINT,     /* integer components as uint32 */
} ze__gl_out;
/* Decode accessor `index` (validated once: data in range, finite floats,
 * min/max honoured); the result is cached on the accessor. The path must
 * name the referencing property; messages about the data name the
 * accessor. */
ze_result ze__gl_decode(ze__gl_ctx_t *c, uint32_t index, ze__gl_out mode);

static inline uint32_t ze__rd_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint16_t ze__rd_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint64_t ze__rd_u64le(const uint8_t *p)
{
    return (uint64_t)ze__rd_u32le(p) | ((uint64_t)ze__rd_u32le(p + 4) << 32);
}
static inline float ze__rd_f32le(const uint8_t *p)
{
    uint32_t u = ze__rd_u32le(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void ze__asset_error_set(ze__asset_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* `s` ends with the lower-case `suffix`, ASCII case ignored in `s` (types.c;
   the importer choice and the cooker's .tga check). */
bool ze__ends_with_ci(const char *s, const char *suffix);

/* .zematerial key names (zematerial.c; the cooker's writer uses them too). */
extern const char *const ze__zematerial_slots[5];
extern const char *const ze__zematerial_alpha[3];

#endif /* ZE_ASSET_INTERNAL_H */
