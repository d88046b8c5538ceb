/* zengine/asset.h — the asset pipeline: importers, cooked formats, cooker.
 *
 * What: our own glTF 2.0 importer (.gltf and .glb) with strict validation
 * into an imported model (meshes with decoded triangle-list primitives, PBR
 * metallic-roughness materials, textures, samplers, images, the node
 * hierarchy, scenes, cameras, and the source's counts); OBJ and FBX through
 * assimp into the same model; the cooked mesh format `.zemesh` (writer with
 * meshoptimizer's cache and fetch ordering, bounds-checked reader); the
 * cooked material format `.zematerial` (JSON); textures `.zetex` (PNG/JPEG/
 * TGA through stb_image, mip chains) and environment maps `.zenvmap`
 * (Radiance .hdr through our own reader); and the cooker (`ze_asset_cook`)
 * behind `zengine cook`, which imports one source and writes its artifacts
 * atomically.
 * Not yet (later slices of the asset-pipeline issue): the AssetRegistry,
 * ImportCoordinator (child-process isolation, priorities), AssetManager,
 * hot reload, `.meta` identities, LODs and scene files of the node
 * hierarchy.
 * Threads: every function is reentrant; an imported model belongs to one
 * thread at a time and is immutable once returned.
 * Memory: every call takes a ze_allocator_t (zero = the system allocator,
 * for tools and tests; the engine passes an owner allocator, e.g.
 * ZE_MEM_OWNER_IMPORT). A model is one allocation tree freed by
 * ze_asset_model_destroy. jansson allocates its own parse trees internally.
 * Errors: recoverable failures return ze_result and fill a ze_asset_error_t
 * with one line naming the problem, for glTF with the JSON pointer of the
 * offending property ("/meshes/0/primitives/0/indices: ..."). Inputs are
 * untrusted: every offset, stride and count is checked with overflow-safe
 * arithmetic, and nothing crashes on malformed data.
 */
#ifndef ZENGINE_ASSET_H
#define ZENGINE_ASSET_H

#include "zengine/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

enum { ZE_ASSET_ERROR_MAX = 512 };

/* One line, NUL-terminated, no trailing newline; empty when no error. */
typedef struct ze_asset_error_t {
    char message[ZE_ASSET_ERROR_MAX];
} ze_asset_error_t;

/* ------------------------------------------------------------ the model */

/* Vertex streams of an imported primitive, also the attribute bits of a
 * cooked mesh (ze_zemesh_view_t.attributes). */
typedef enum ze_vattr {
    ZE_VATTR_POSITION = 0, /* f32 x3 */
    ZE_VATTR_NORMAL,       /* f32 x3 */
    ZE_VATTR_TANGENT,      /* f32 x4 (w = handedness) */
    ZE_VATTR_TEXCOORD0,    /* f32 x2 */
    ZE_VATTR_TEXCOORD1,    /* f32 x2 */
    ZE_VATTR_COLOR0,       /* f32 x4 (RGB sources get alpha 1) */
    ZE_VATTR_JOINTS0,      /* u16 x4 */
    ZE_VATTR_WEIGHTS0,     /* f32 x4 */
    ZE_VATTR_COUNT
} ze_vattr;

#define ZE_VATTR_BIT(a) (1u << (a))

/* glTF primitive modes, values as in the file. */
typedef enum ze_prim_mode {
    ZE_PRIM_POINTS = 0,
    ZE_PRIM_LINES = 1,
    ZE_PRIM_LINE_LOOP = 2,
    ZE_PRIM_LINE_STRIP = 3,
    ZE_PRIM_TRIANGLES = 4,
    ZE_PRIM_TRIANGLE_STRIP = 5,
    ZE_PRIM_TRIANGLE_FAN = 6,
} ze_prim_mode;

/* One glTF primitive. Triangle modes are converted to a triangle list in
 * `indices` (non-indexed primitives get 0..n-1); points, lines and
 * primitives without POSITION are `skipped`: validated, counted, no data. */
typedef struct ze_model_primitive_t {
    ze_prim_mode mode;         /* as in the source */
    bool skipped;              /* not a triangle primitive (or no POSITION) */
    int32_t material;          /* index into model->materials, -1 = default */
    uint32_t attributes;       /* ZE_VATTR_BIT set of the streams below */
    uint32_t vertex_count;     /* the POSITION accessor's count */
    uint32_t source_indices;   /* the index accessor's count, 0 if none */
    uint32_t index_count;      /* triangle-list indices (multiple of 3) */
    uint32_t target_count;     /* morph targets (validated, not decoded) */
    const float *positions;    /* [vertex_count * 3] */
    const float *normals;      /* [vertex_count * 3] or NULL */
    const float *tangents;     /* [vertex_count * 4] or NULL */
    const float *texcoords[2]; /* [vertex_count * 2] or NULL */
    const float *colors;       /* [vertex_count * 4] or NULL */
    const uint16_t *joints;    /* [vertex_count * 4] or NULL */
    const float *weights;      /* [vertex_count * 4] or NULL */
    const uint32_t *indices;   /* [index_count], each < vertex_count */
    ze_vec3_t min, max;        /* of the positions (zero when skipped) */
} ze_model_primitive_t;

typedef struct ze_model_mesh_t {
    const char *name; /* "" when the source has none */
    uint32_t primitive_count;
    const ze_model_primitive_t *primitives;
    uint32_t weight_count; /* default morph weights */
    const float *weights;
} ze_model_mesh_t;

/* A material's reference to a texture, with KHR_texture_transform. */
typedef struct ze_model_texref_t {
    int32_t texture;   /* index into model->textures, -1 = none */
    uint32_t texcoord; /* TEXCOORD set (the transform's override applied) */
    float scale;       /* normalTexture.scale / occlusionTexture.strength, else 1 */
    bool has_transform;
    ze_vec2_t offset; /* KHR_texture_transform; identity when absent */
    float rotation;
    ze_vec2_t uv_scale;
} ze_model_texref_t;

typedef enum ze_alpha_mode {
    ZE_ALPHA_OPAQUE = 0,
    ZE_ALPHA_MASK,
    ZE_ALPHA_BLEND,
} ze_alpha_mode;

typedef struct ze_model_material_t {
    const char *name;
    ze_vec4_t base_color_factor;
    float metallic_factor, roughness_factor;
    ze_vec3_t emissive_factor;
    float emissive_strength; /* KHR_materials_emissive_strength, else 1 */
    ze_alpha_mode alpha_mode;
    float alpha_cutoff;
    bool double_sided;
    ze_model_texref_t base_color, metallic_roughness, normal, occlusion, emissive;
} ze_model_material_t;

/* glTF sampler values (WebGL enums); 0 = undefined (the runtime picks). */
typedef struct ze_model_sampler_t {
    uint32_t mag_filter, min_filter, wrap_s, wrap_t;
} ze_model_sampler_t;

typedef struct ze_model_texture_t {
    const char *name;
    int32_t image;   /* -1 when only an extension supplies the image */
    int32_t sampler; /* -1 = default sampler */
} ze_model_texture_t;

typedef enum ze_image_format {
    ZE_IMAGE_FORMAT_UNKNOWN = 0, /* a format an extension declares */
    ZE_IMAGE_FORMAT_PNG,
    ZE_IMAGE_FORMAT_JPEG,
    ZE_IMAGE_FORMAT_TGA, /* standalone textures only; TGA has no signature */
} ze_image_format;

/* Images are checked structurally (PNG chunk walk with CRCs, JPEG marker
 * walk to EOI) and kept as encoded bytes; decoding is the texture cooker's. */
typedef struct ze_model_image_t {
    const char *name;
    const char *uri; /* relative path of an external file (resolved against
                        the source's folder), NULL for embedded data */
    ze_image_format format;
    uint32_t width, height; /* from the PNG/JPEG header */
    const uint8_t *data;
    size_t size;
} ze_model_image_t;

typedef enum ze_camera_type {
    ZE_CAMERA_PERSPECTIVE = 0,
    ZE_CAMERA_ORTHOGRAPHIC,
} ze_camera_type;

typedef struct ze_model_camera_t {
    const char *name;
    ze_camera_type type;
    float yfov, aspect_ratio; /* perspective; aspect 0 = the viewport's */
    float xmag, ymag;         /* orthographic */
    float znear, zfar;        /* zfar 0 = infinite (perspective only) */
} ze_model_camera_t;

typedef struct ze_model_node_t {
    const char *name;
    int32_t parent; /* -1 for a root */
    uint32_t child_count;
    const uint32_t *children;
    int32_t mesh, camera, skin; /* -1 = none */
    bool has_matrix;            /* the source gave a matrix, not TRS */
    ze_vec3_t translation;      /* decomposed from the matrix if needed */
    ze_quat_t rotation;
    ze_vec3_t scale;
    ze_mat4_t local; /* parent-relative transform */
} ze_model_node_t;

typedef struct ze_model_scene_t {
    const char *name;
    uint32_t node_count;
    const uint32_t *nodes; /* root nodes */
} ze_model_scene_t;

/* Counts found in the source before any processing (the `--json` facts).
 * vertices: POSITION accessor counts summed over primitives (a shared
 * accessor counted each time); indices: index accessor counts summed. */
typedef struct ze_model_stats_t {
    uint32_t meshes, primitives, materials, textures, images, samplers;
    uint32_t nodes, scenes, cameras, skins, animations;
    uint32_t accessors, buffer_views, buffers;
    uint64_t vertices, indices;
    uint32_t root_nodes;     /* nodes without a parent */
    uint32_t max_node_depth; /* 1 for a lone root, 0 without nodes */
    uint32_t skipped_primitives;
} ze_model_stats_t;

typedef struct ze_model_t {
    ze_model_stats_t stats;
    bool binary;           /* came from a GLB container */
    int32_t default_scene; /* the `scene` property, -1 when absent */
    uint32_t mesh_count, material_count, texture_count, sampler_count;
    uint32_t image_count, camera_count, node_count, scene_count;
    const ze_model_mesh_t *meshes;
    const ze_model_material_t *materials;
    const ze_model_texture_t *textures;
    const ze_model_sampler_t *samplers;
    const ze_model_image_t *images;
    const ze_model_camera_t *cameras;
    const ze_model_node_t *nodes;
    const ze_model_scene_t *scenes;
    ze_vec3_t min, max; /* union of the kept primitives' bounds (local) */
    /* External files read, relative to the source's folder, sorted and
       unique (buffers and images): a cook's dependencies. */
    uint32_t dependency_count;
    const char *const *dependencies;
    void *internal_; /* the allocation tree */
} ze_model_t;

/* ------------------------------------------------------------ glTF import */

typedef struct ze_gltf_desc_t {
    ze_allocator_t alloc; /* zero = ze_mem_system_allocator() */
    /* Folder of relative URIs when importing from memory; NULL: external
       URIs are an error (ze_asset_import_gltf_file sets it to the file's
       folder). Absolute paths, schemes and `..` escaping the folder are
       always refused. */
    const char *base_dir;
    /* Cap on any file read and on the model's memory; 0 = 1 GiB. */
    uint64_t max_bytes;
} ze_gltf_desc_t;

/* Import a .gltf or .glb file (the container is told by its first bytes,
 * not its name). On failure *out is NULL and err (optional) says why. */
ze_result ze_asset_import_gltf_file(const char *path, const ze_gltf_desc_t *desc, ze_model_t **out,
                                    ze_asset_error_t *err);
/* The same from bytes in memory (JSON text or GLB). */
ze_result ze_asset_import_gltf_memory(const void *data, size_t size, const ze_gltf_desc_t *desc,
                                      ze_model_t **out, ze_asset_error_t *err);
void ze_asset_model_destroy(ze_model_t *model);

/* ---------------------------------------------------------------- .zemesh */

/* Little-endian binary, version 1 (layout in src/asset/zemesh.c): magic,
 * version, uuid, attribute set, counts, bounds, submeshes, u32 triangle-list
 * indices, interleaved vertices (streams in ze_vattr order), XXH3 checksum.
 * The same inputs always give the same bytes. */
enum { ZE_ZEMESH_VERSION = 1 };

typedef struct ze_zemesh_submesh_t {
    uint32_t index_offset, index_count;   /* into the index array */
    uint32_t vertex_offset, vertex_count; /* its vertices; indices are absolute */
    ze_uuid_t material;                   /* nil = default material */
    ze_vec3_t min, max;
} ze_zemesh_submesh_t;

/* A validated view into a .zemesh held in memory (no copies): valid while
 * the bytes are. */
typedef struct ze_zemesh_view_t {
    ze_uuid_t uuid;
    uint32_t attributes; /* ZE_VATTR_BIT set; POSITION always */
    uint32_t vertex_stride;
    uint32_t attribute_offset[ZE_VATTR_COUNT]; /* bytes into a vertex */
    uint32_t vertex_count, index_count, submesh_count;
    ze_vec3_t min, max;
    const uint32_t *indices; /* little-endian hosts only (checked) */
    const uint8_t *vertices;
    const uint8_t *submeshes_; /* read with ze_asset_zemesh_submesh */
} ze_zemesh_view_t;

/* Byte size of one vertex with these attributes. */
uint32_t ze_asset_vertex_stride(uint32_t attributes, uint32_t offsets[ZE_VATTR_COUNT]);
/* Cook one mesh of a model into .zemesh bytes allocated from `alloc`
 * (free with ze_free(alloc, *bytes, *size)). material_uuids: one per model
 * material (NULL: nil uuids). ZE_ERR_NOT_FOUND when every primitive of the
 * mesh is skipped. */
ze_result ze_asset_zemesh_write(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                const ze_uuid_t *material_uuids, ze_allocator_t alloc,
                                uint8_t **bytes, size_t *size);
/* Validate and view. `data` must be 4-byte aligned. Rejects truncated,
 * inconsistent, unknown-version and bad-checksum files. */
ze_result ze_asset_zemesh_read(const void *data, size_t size, ze_zemesh_view_t *out,
                               ze_asset_error_t *err);
void ze_asset_zemesh_submesh(const ze_zemesh_view_t *view, uint32_t i, ze_zemesh_submesh_t *out);

/* ------------------------------------------------------------ .zematerial */

/* JSON, version 1: PBR metallic-roughness factors, alpha mode, texture
 * references by uuid with texcoord set and KHR_texture_transform. */
enum { ZE_ZEMATERIAL_VERSION = 1 };

typedef struct ze_zematerial_texture_t {
    bool present;
    ze_uuid_t texture;
    uint32_t texcoord;
    float scale; /* normal scale / occlusion strength, else 1 */
    ze_vec2_t offset;
    float rotation;
    ze_vec2_t uv_scale;
} ze_zematerial_texture_t;

typedef struct ze_zematerial_t {
    ze_uuid_t uuid;
    char name[128]; /* truncated */
    ze_vec4_t base_color_factor;
    float metallic_factor, roughness_factor;
    ze_vec3_t emissive_factor;
    float emissive_strength;
    ze_alpha_mode alpha_mode;
    float alpha_cutoff;
    bool double_sided;
    ze_zematerial_texture_t base_color, metallic_roughness, normal, occlusion, emissive;
} ze_zematerial_t;

/* Material `index` of a model as .zematerial text (no NUL) allocated from
 * `alloc` (free with ze_free(alloc, *text, *size)). texture_uuids: one per
 * model texture. */
ze_result ze_asset_zematerial_write(const ze_model_t *model, uint32_t index, ze_uuid_t uuid,
                                    const ze_uuid_t *texture_uuids, ze_allocator_t alloc,
                                    char **text, size_t *size);
ze_result ze_asset_zematerial_read(const void *text, size_t size, ze_zematerial_t *out,
                                   ze_asset_error_t *err);

/* --------------------------------------------------- textures and envmaps */

/* Decoding untrusted images: PNG/JPEG/TGA through stb_image (after our own
 * structure walk of PNG/JPEG; dimensions read and capped before any pixel
 * is decoded; the decoder's memory charged to max_bytes), Radiance .hdr
 * through our own reader. Zero fields are defaults. */
enum { ZE_IMAGE_MAX_DIMENSION = 16384, ZE_TEX_MAX_MIPS = 15 };

typedef struct ze_image_desc_t {
    ze_allocator_t alloc;   /* zero = the system allocator */
    ze_image_format format; /* UNKNOWN: told by the signature (PNG, JPEG);
                               TGA must be asked for */
    bool linear;            /* data (normals, metal/rough…), not colour:
                               RGBA8_UNORM and a plain box filter */
    uint32_t max_dimension; /* per side; 0 (or more) = ZE_IMAGE_MAX_DIMENSION */
    uint64_t max_bytes;     /* decoded pixels, mips and decoder memory; 0 = 1 GiB */
} ze_image_desc_t;

typedef enum ze_tex_format {
    ZE_TEX_FORMAT_UNKNOWN = 0,
    ZE_TEX_FORMAT_RGBA8_UNORM = 1,
    ZE_TEX_FORMAT_RGBA8_SRGB = 2,
    ZE_TEX_FORMAT_RGBA16F = 3, /* .zenvmap: RGB, alpha 1 */
} ze_tex_format;

/* .zetex and .zenvmap, version 1 (layout in src/asset/texture.c): magic,
 * version, format, uuid, size, mip table, mips (box-filtered chain down to
 * 1x1, each 16-byte aligned), XXH3 checksum. Same input, same bytes. */
enum { ZE_ZETEX_VERSION = 1, ZE_ZENVMAP_VERSION = 1 };

typedef struct ze_tex_mip_t {
    uint32_t width, height; /* max(1, width >> level), … */
    const uint8_t *data;    /* rows top to bottom, no padding; RGBA16F as
                               little-endian halves (2-byte aligned when the
                               file is) */
    size_t size;
} ze_tex_mip_t;

/* A validated view into a .zetex/.zenvmap held in memory: valid while the
 * bytes are. */
typedef struct ze_tex_view_t {
    ze_uuid_t uuid;
    ze_tex_format format;
    uint32_t width, height, mip_count;
    ze_tex_mip_t mips[ZE_TEX_MAX_MIPS];
} ze_tex_view_t;

/* Mips of a full chain: floor(log2(max(w, h))) + 1. */
uint32_t ze_asset_tex_full_mips(uint32_t width, uint32_t height);
/* Decode an encoded image and cook it into .zetex bytes allocated from
 * desc->alloc (free with ze_free(alloc, *bytes, *size)). Colour textures
 * (desc->linear false) are RGBA8_SRGB with mips averaged in linear light. */
ze_result ze_asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                              const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                              ze_asset_error_t *err);
/* Rejects truncated, padded, inconsistent (dimensions, mip table, padding),
 * unknown-version and bad-checksum files. */
ze_result ze_asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                              ze_asset_error_t *err);

/* A decoded Radiance .hdr: float RGB, top row first. */
typedef struct ze_hdr_image_t {
    uint32_t width, height;
    float *rgb; /* [width * height * 3] */
    ze_allocator_t alloc_;
    size_t size_;
} ze_hdr_image_t;

ze_result ze_asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                              ze_hdr_image_t *out, ze_asset_error_t *err);
void ze_asset_hdr_release(ze_hdr_image_t *img);
/* Decode a .hdr and cook it into .zenvmap bytes (RGBA16F equirect + mips). */
ze_result ze_asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                ze_asset_error_t *err);
/* As ze_asset_zetex_read; also rejects negative and non-finite texels. */
ze_result ze_asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                ze_asset_error_t *err);
/* IEEE half conversions (round to nearest even; the cooker clamps to
 * ±65504 instead of overflowing to infinity). */
uint16_t ze_asset_f32_to_f16(float f);
float ze_asset_f16_to_f32(uint16_t h);

/* ------------------------------------------------------------------ cook */

/* What a registry entry is. Cooked sub-assets are told by their artifact's
 * name: ".zemesh", ".zematerial", ".zetex", ".zenvmap", ".scene.json". */
typedef enum ze_asset_type {
    ZE_ASSET_TYPE_UNKNOWN = 0,
    ZE_ASSET_TYPE_SOURCE,   /* a source file an importer cooks */
    ZE_ASSET_TYPE_FILE,     /* a file sources read (.bin buffer, external image) */
    ZE_ASSET_TYPE_MESH,     /* .zemesh */
    ZE_ASSET_TYPE_MATERIAL, /* .zematerial */
    ZE_ASSET_TYPE_TEXTURE,  /* .zetex */
    ZE_ASSET_TYPE_ENVMAP,   /* .zenvmap */
    ZE_ASSET_TYPE_SCENE,    /* .scene.json: the node hierarchy (ECS scene file) */
    ZE_ASSET_TYPE_COUNT
} ze_asset_type;
/* "source", "file", "mesh", "material", "texture", "envmap", "scene";
 * "unknown" for anything else. */
const char *ze_asset_type_name(ze_asset_type type);
/* The sub-asset type of an artifact file name, UNKNOWN when none. */
ze_asset_type ze_asset_type_of_artifact(const char *name);

typedef struct ze_cook_desc_t {
    ze_allocator_t alloc; /* zero = the system allocator */
    const char *source;   /* a file path */
    const char *out_dir;  /* created if missing */
    /* The source's identity (later: from its .meta). Nil: UUID v5 of
       "source/<file name>" in ZE_UUID_NAMESPACE_ZENGINE. Sub-assets get
       v5(source uuid, "mesh/N" | "material/N" | "texture/N"). */
    ze_uuid_t source_uuid;
    uint64_t max_bytes; /* as ze_gltf_desc_t.max_bytes */
    /* Force an importer ("gltf", "assimp", "image", "hdr") instead of the
       one the extension picks; NULL = by extension. */
    const char *importer;
} ze_cook_desc_t;

typedef struct ze_cook_stats_t {
    uint32_t meshes, submeshes;
    uint64_t vertices, indices;
    uint32_t materials, textures;
    uint32_t skipped_primitives;
} ze_cook_stats_t;

typedef struct ze_cook_result_t {
    const char *importer; /* "gltf", "assimp", "image" or "hdr" */
    ze_model_stats_t source;
    ze_cook_stats_t cooked;
    ze_uuid_t source_uuid;
    uint32_t artifact_count;
    const char *const *artifacts; /* relative to out_dir, sorted */
    /* One per artifact, same order: its uuid v5(source uuid, "mesh/N" |
       "material/N" | "texture/N" | "envmap/0" | "scene/0") and type. */
    const ze_uuid_t *sub_asset_uuids;
    const ze_asset_type *sub_asset_types;
    /* External files the import read, relative to the source's folder,
       sorted and unique (glTF buffers and images, OBJ .mtl and textures). */
    uint32_t dependency_count;
    const char *const *dependencies;
    ze_asset_error_t error;
    ze_allocator_t alloc_;
    void *storage_;
} ze_cook_result_t;

/* The importer for a source file name, by its extension: "gltf" (.gltf,
 * .glb), "assimp" (.obj, .fbx), "image" (.png, .jpg, .jpeg, .tga), "hdr"
 * (.hdr); NULL when none cooks it. */
const char *ze_asset_importer_for(const char *path);
/* Import `source` and write its artifacts into out_dir: each one written
 * to a temporary name and renamed only when all are written, so a failure
 * leaves no artifact behind. Artifacts: <stem>.mesh<N>.zemesh for each mesh
 * with triangles, <stem>.material<N>.zematerial, <stem>.texture<N>.zetex for
 * each texture with a PNG/JPEG/TGA image (a standalone image:
 * <stem>.texture0.zetex), <stem>.envmap0.zenvmap for a .hdr. */
ze_result ze_asset_cook(const ze_cook_desc_t *desc, ze_cook_result_t *out);
/* Frees the artifact list; call after every ze_asset_cook, failed or not. */
void ze_asset_cook_result_release(ze_cook_result_t *result);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_ASSET_H */
