/* zengine/asset.h — the asset pipeline's types and its runtime: the imported
 * model and cooked formats, their bounds-checked readers, the cook result,
 * AssetRegistry, ImportCoordinator, AssetManager. The importers and writers
 * (the cooker) are declared in zengine/cook.h and live in their own library,
 * zengine::cook, linked only by programs that cook (the `zengine` program,
 * tools, tests): the running engine reads only cooked artifacts.
 *
 * The pipeline as a whole: our own glTF 2.0 importer (.gltf and .glb) with strict validation
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
 * the runtime side (end of this header): AssetRegistry, ImportCoordinator
 * (child-process isolation, priorities, hot reload), AssetManager, and
 * references by path ("/models/crate.gltf#mesh/0" <-> uuid, through the
 * registry).
 * Not: the importers and writers themselves (zengine/cook.h: the runtime
 * never links them).
 * Threads: the types' functions and the readers are reentrant; an imported
 * model belongs to one thread at a time and is immutable once returned. The
 * runtime (registry, coordinator, manager) belongs to the main thread unless
 * a function says otherwise.
 * Memory: the readers and cook results take a ze_allocator_t (zero = the
 * system allocator, for tools and tests; the engine passes an owner
 * allocator, e.g. ZE_MEM_OWNER_IMPORT); the runtime objects take the memory
 * manager (owners Asset and Import). A model is one allocation tree freed by
 * ze_asset_model_destroy. jansson allocates its own parse trees internally.
 * Errors: recoverable failures return ze_result and report one line naming
 * the problem to the caller's diagnostics sink (ze_diag_sink_t), for glTF with the JSON pointer of
 * the offending property ("/meshes/0/primitives/0/indices: ..."). Inputs are untrusted: every
 * offset, stride and count is checked with overflow-safe arithmetic, and nothing crashes on
 * malformed data.
 */
#ifndef ZENGINE_ASSET_H
#define ZENGINE_ASSET_H

#include "zengine/base.h"
#include "zengine/job.h"
#include "zengine/mem.h"
#include "zengine/vfs.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    /* Why the image has no data (missing, unreadable or not a valid
       PNG/JPEG file: the message an import would fail with), when the
       importer was told to keep going (ze_gltf_desc_t.keep_bad_images; the
       assimp importer always does); NULL for a good image. The cooker then
       cooks no texture for it and its materials use the default. */
    const char *problem;
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
    /* ze_hash64 of the file's bytes | 1 (file imports; 0 from memory): the
       content hash a `.meta` records, without reading the file again */
    uint64_t source_hash;
    void *internal_; /* the allocation tree */
} ze_model_t;

/* ---------------------------------------------------------------- .zemesh */

/* Little-endian binary, version 2 (layout in src/asset/zemesh.c): magic,
 * version, uuid, attribute set, counts, bounds, submeshes, levels of detail,
 * u32 triangle-list indices, interleaved vertices (streams in ze_vattr
 * order), XXH3 checksum. The reader also takes version 1 (one level per
 * submesh). The same inputs always give the same bytes. */
enum { ZE_ZEMESH_VERSION = 2, ZE_ZEMESH_LOD_MAX = 8 };

/* One level of detail of a submesh: a triangle list over the submesh's own
 * vertices (index-only LODs). error: how far the level's surface may lie
 * from the original, in the mesh's object-space units (meshoptimizer's
 * relative error times meshopt_simplifyScale of the submesh's positions);
 * 0 for level 0, non-decreasing with the level. */
typedef struct ze_zemesh_lod_t {
    uint32_t index_offset, index_count; /* into the index array */
    float error;
} ze_zemesh_lod_t;

typedef struct ze_zemesh_submesh_t {
    uint32_t index_offset, index_count;   /* into the index array: level 0 */
    uint32_t vertex_offset, vertex_count; /* its vertices; indices are absolute */
    ze_uuid_t material;                   /* nil = default material */
    ze_vec3_t min, max;
    /* Levels of detail, finest first: lods[0] is the range above; level
       k + 1 has about half the indices of level k. Its indices follow
       level k's in the index array; the next submesh's follow the last. */
    uint32_t lod_count; /* [1, ZE_ZEMESH_LOD_MAX] */
    ze_zemesh_lod_t lods[ZE_ZEMESH_LOD_MAX];
} ze_zemesh_submesh_t;

/* A validated view into a .zemesh held in memory (no copies): valid while
 * the bytes are. */
typedef struct ze_zemesh_view_t {
    ze_uuid_t uuid;
    uint32_t version;    /* of the file: 1 or ZE_ZEMESH_VERSION */
    uint32_t attributes; /* ZE_VATTR_BIT set; POSITION always */
    uint32_t vertex_stride;
    uint32_t attribute_offset[ZE_VATTR_COUNT]; /* bytes into a vertex */
    /* index_count: the whole index array, every level of every submesh */
    uint32_t vertex_count, index_count, submesh_count;
    uint32_t lod_total; /* levels of all submeshes together */
    ze_vec3_t min, max;
    const uint32_t *indices; /* little-endian hosts only (checked) */
    const uint8_t *vertices;
    const uint8_t *submeshes_; /* read with ze_asset_zemesh_submesh */
    const uint8_t *lods_;      /* the level table (version 2; NULL for 1) */
} ze_zemesh_view_t;

/* Byte size of one vertex with these attributes. */
uint32_t ze_asset_vertex_stride(uint32_t attributes, uint32_t offsets[ZE_VATTR_COUNT]);
/* Validate and view. `data` must be 4-byte aligned. Rejects truncated,
 * inconsistent, unknown-version and bad-checksum files. */
ze_result ze_asset_zemesh_read(const void *data, size_t size, ze_zemesh_view_t *out,
                               const ze_diag_sink_t *diag);
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

ze_result ze_asset_zematerial_read(const void *text, size_t size, ze_zematerial_t *out,
                                   const ze_diag_sink_t *diag);

/* --------------------------------------------------- textures and envmaps */

/* Decoding untrusted images: PNG/JPEG/TGA through stb_image (after our own
 * structure walk of PNG/JPEG; dimensions read and capped before any pixel
 * is decoded; the decoder's memory charged to max_bytes), Radiance .hdr
 * through our own reader. Zero fields are defaults. */
enum { ZE_IMAGE_MAX_DIMENSION = 16384, ZE_TEX_MAX_MIPS = 15 };

/* Texture block compression (settings "compression", below). */
typedef enum ze_tex_compression {
    ZE_TEX_COMPRESSION_NONE = 0, /* RGBA8 */
    ZE_TEX_COMPRESSION_AUTO,     /* the settings' default */
    ZE_TEX_COMPRESSION_BC1,
    ZE_TEX_COMPRESSION_BC3,
    ZE_TEX_COMPRESSION_BC4,
    ZE_TEX_COMPRESSION_BC5,
} ze_tex_compression;

typedef struct ze_image_desc_t {
    ze_allocator_t alloc;   /* zero = the system allocator */
    ze_image_format format; /* UNKNOWN: told by the signature (PNG, JPEG);
                               TGA must be asked for */
    bool linear;            /* data (normals, metal/rough…), not colour:
                               RGBA8_UNORM and a plain box filter */
    uint32_t max_dimension; /* per side; 0 (or more) = ZE_IMAGE_MAX_DIMENSION */
    uint64_t max_bytes;     /* decoded pixels, mips and decoder memory; 0 = 1 GiB */
    bool no_mips;           /* level 0 only (settings "mips": false) */
    /* Block compression of the .zetex (settings "compression"); zero =
       NONE (RGBA8). AUTO: BC5 for a normal map, BC4 for a red-only
       texture, else BC1 when every texel is opaque, BC3 otherwise. */
    ze_tex_compression compression;
    bool normal_map; /* AUTO's usage hints: a normal map (x, y in R, G) */
    bool red_only;   /* only its red channel is read (occlusion) */
} ze_image_desc_t;

typedef enum ze_tex_format {
    ZE_TEX_FORMAT_UNKNOWN = 0,
    ZE_TEX_FORMAT_RGBA8_UNORM = 1,
    ZE_TEX_FORMAT_RGBA8_SRGB = 2,
    ZE_TEX_FORMAT_RGBA16F = 3, /* .zenvmap: RGB, alpha 1 */
    /* Block-compressed .zetex (4x4 texel blocks, rows of blocks top to
       bottom; a level smaller than 4 texels is padded to one block): */
    ZE_TEX_FORMAT_BC1_UNORM = 4, /* 8 bytes a block, RGB, alpha 1 */
    ZE_TEX_FORMAT_BC1_SRGB = 5,
    ZE_TEX_FORMAT_BC3_UNORM = 6, /* 16 bytes: BC1 colour + BC4 alpha */
    ZE_TEX_FORMAT_BC3_SRGB = 7,
    ZE_TEX_FORMAT_BC4_UNORM = 8, /* 8 bytes: red (sampled as r, 0, 0, 1) */
    ZE_TEX_FORMAT_BC5_UNORM = 9, /* 16 bytes: red, green (r, g, 0, 1) */
} ze_tex_format;

/* Bytes of one 4x4 block of a BC format, 0 for the others. */
uint32_t ze_tex_format_block_bytes(ze_tex_format f);
/* "rgba8_unorm", "rgba8_srgb", "rgba16f", "bc1_unorm", "bc1_srgb",
   "bc3_unorm", "bc3_srgb", "bc4_unorm", "bc5_unorm"; "unknown". */
const char *ze_tex_format_name(ze_tex_format f);

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
/* Rejects truncated, padded, inconsistent (dimensions, mip table, padding),
 * unknown-version and bad-checksum files. */
ze_result ze_asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                              const ze_diag_sink_t *diag);

/* As ze_asset_zetex_read; also rejects negative and non-finite texels. */
ze_result ze_asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                const ze_diag_sink_t *diag);
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
    /* The source's importer settings (the `.meta` "settings" object as JSON
       text, see ze_import_settings_parse); NULL = the defaults. Invalid
       settings fail the cook, naming the key. */
    const char *settings;
    /* A failure is reported here once (subject: the source path), at
       ERROR; {0}: the log. */
    ze_diag_sink_t diag;
} ze_cook_desc_t;

typedef struct ze_cook_stats_t {
    uint32_t meshes, submeshes;
    uint64_t vertices, indices;
    uint32_t materials, textures;
    uint32_t skipped_primitives;
} ze_cook_stats_t;

/* One cooked .zetex: its format, the PSNR (dB) of its mip 0 decoded
 * against the source over the channels the format keeps (100: lossless,
 * e.g. uncompressed), and the bytes of its mips (what the GPU holds)
 * against the RGBA8 mips of the same chain. */
typedef struct ze_cook_texture_t {
    const char *artifact; /* relative to out_dir */
    ze_tex_format format;
    double psnr_db;
    uint64_t bytes, rgba8_bytes;
} ze_cook_texture_t;

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
    /* ze_hash64 of the source's bytes | 1, as read by the importer (what a
       `.meta` records; the engine need not read the source again) */
    uint64_t source_hash;
    /* External files the import read, relative to the source's folder,
       sorted and unique (glTF buffers and images, OBJ .mtl and textures). */
    uint32_t dependency_count;
    const char *const *dependencies;
    /* One per dependency: ze_hash64 of its bytes | 1, as the cook saw them. */
    const uint64_t *dependency_hashes; /* 0: the file is missing (a warning) */
    /* ze_import_settings_hash of the settings it was cooked with. */
    uint64_t settings_hash;
    /* The .zetex written, in the order they were cooked. */
    uint32_t texture_count;
    const ze_cook_texture_t *textures;
    /* What the cook left out and why, one line each, naming the file (a
       texture missing, unreadable or undecodable: the materials using it
       fall back to the default; the meshes still cook). Each was also
       reported through desc.diag at WARN. */
    uint32_t warning_count;
    const char *const *warnings;
    ze_allocator_t alloc_;
    void *storage_;
} ze_cook_result_t;

/* ------------------------------------------------------ importer settings
 *
 * The "settings" object of a source's `.meta`, validated. Keys (all
 * optional; {} gives the defaults):
 *   "scale": number in (0, 10000], default 1 — model units to metres
 *   "up_axis": "y" (default) or "z" — a Z-up source is turned to Y-up
 *   "flip_uvs": bool, default false — v becomes 1 - v
 *   "mips": bool, default true — the texture mip chain
 *   "compression": "auto" (default), "none", "bc1", "bc3", "bc4" or "bc5" —
 *     texture block compression; "auto" picks by usage: BC5 for a normal
 *     map, BC4 for a texture only read as occlusion, else BC1 (opaque) or
 *     BC3 (with alpha); sRGB for colour, UNORM for data
 *   "lod_count": integer in [1, 8], default 1 — mesh levels of detail per
 *     submesh, each about half the triangles of the one before (fewer when
 *     the simplifier can reduce no further)
 * scale, up_axis, flip_uvs and lod_count apply to models (gltf, assimp);
 * mips and compression to images and to the textures of models; hdr takes
 * mips only. An unknown key, a key the importer does not take, a wrong
 * type or a value out of range is an error naming the key. The settings
 * are part of an artifact's identity: ze_import_settings_hash is 0 for the
 * defaults and changes with any value. */
typedef enum ze_up_axis {
    ZE_UP_AXIS_Y = 0,
    ZE_UP_AXIS_Z,
} ze_up_axis;

typedef struct ze_import_settings_t {
    double scale; /* 1 */
    ze_up_axis up_axis;
    bool flip_uvs;
    bool no_mips;                   /* "mips": false */
    ze_tex_compression compression; /* AUTO */
    uint32_t lod_count;             /* 1: the mesh as it is; up to ZE_ZEMESH_LOD_MAX */
} ze_import_settings_t;

/* The defaults. */
ze_import_settings_t ze_import_settings_default(void);
/* Parse and validate a settings object (NULL or "" = {}) for `importer`
 * ("gltf", "assimp", "image", "hdr"). On failure *out holds the defaults,
 * and one line "settings.<key>: <problem>" goes to `diag` at ERROR with
 * `subject` (the source's path). ZE_ERR_PARSE. */
ze_result ze_import_settings_parse(const char *json, size_t len, const char *importer,
                                   ze_import_settings_t *out, const char *subject,
                                   const ze_diag_sink_t *diag);
/* The settings' part of an artifact's identity: 0 for the defaults. */
uint64_t ze_import_settings_hash(const ze_import_settings_t *s);

/* The importer for a source file name, by its extension: "gltf" (.gltf,
 * .glb), "assimp" (.obj, .fbx), "image" (.png, .jpg, .jpeg, .tga), "hdr"
 * (.hdr); NULL when none cooks it. */
const char *ze_asset_importer_for(const char *path);
/* Frees the artifact list; call after every ze_asset_cook, failed or not. */
void ze_asset_cook_result_release(ze_cook_result_t *result);
/* The cooker as a function: ze_asset_cook (zengine/cook.h, the zengine::cook
 * library) has this type. The runtime never links it; a program that wants
 * in-process imports hands it to the import coordinator (or the engine's
 * run desc). */
typedef ze_result (*ze_cook_fn)(const ze_cook_desc_t *desc, ze_cook_result_t *out);

/* ============================================================ the runtime
 *
 * AssetRegistry, ImportCoordinator and AssetManager live in the running
 * engine and belong to its main thread (every function below is main-thread
 * only unless it says otherwise). The flow: a source is registered with the
 * uuid of its `.meta` sidecar (created on first sight) -> an import request
 * queues it (Immediate before Background) -> the coordinator's tick starts
 * a `zengine cook` child process (resource-limited, timed out; or a pool job
 * in the in-process mode) writing into /cache/artifacts/<source uuid>/
 * <content hash>/ -> the tick notices the end by polling pidfds (never
 * blocking), completion goes through the MainThreadScheduler, the `.meta`
 * is updated and the sub-assets registered -> the manager loads artifacts
 * that are wanted (pool jobs read and validate them with our checked
 * readers; results come back through the scheduler), counts references,
 * evicts unreferenced ones under its budget and calls on_asset_ready.
 * Hot reload: a watcher event on a source (or a file it depends on) marks
 * it and its dependents Stale and queues a Background re-import; the
 * manager reloads what it holds and calls on_asset_ready again. A failed
 * re-import (garbage, deleted source, crash) leaves the previous artifacts
 * in use and reports the reason in the source's Failed state.
 */

/* ---------------------------------------------------------------- registry */

typedef enum ze_asset_state {
    ZE_ASSET_STATE_UNKNOWN = 0, /* registered, not imported (source) / not loaded */
    ZE_ASSET_STATE_QUEUED,      /* an import is waiting for a slot */
    ZE_ASSET_STATE_IMPORTING,   /* the cooker runs */
    ZE_ASSET_STATE_LOADED,      /* source: cooked and current; sub-asset: data in memory */
    ZE_ASSET_STATE_FAILED,      /* the last import or load failed: see reason */
    ZE_ASSET_STATE_STALE,       /* the source changed; the previous data stays in use */
    ZE_ASSET_STATE_COUNT
} ze_asset_state;
/* "unknown", "queued", "importing", "loaded", "failed", "stale". */
const char *ze_asset_state_name(ze_asset_state state);

enum { ZE_ASSET_REASON_MAX = 256 };

/* A registry entry as seen from outside; strings are borrowed until the
 * next call that changes the entry. */
typedef struct ze_asset_info_t {
    ze_uuid_t uuid;
    ze_asset_type type;
    ze_asset_state state;
    ze_uuid_t source;    /* the source it is cooked from; itself for sources and files */
    const char *path;    /* VFS path: the source file, or the artifact */
    uint32_t generation; /* sources: successful imports; sub-assets: loads */
    const char *reason;  /* why it failed ("" unless FAILED or after a failed re-import) */
} ze_asset_info_t;

typedef struct ze_asset_registry_t ze_asset_registry_t;

/* Called on every state change, after it is applied. */
typedef void (*ze_asset_state_fn)(void *user, const ze_asset_info_t *info,
                                  ze_asset_state old_state);

typedef struct ze_asset_registry_desc_t {
    ze_allocator_t alloc; /* zero = the system allocator (the engine: the Asset owner) */
} ze_asset_registry_desc_t;

ze_result ze_asset_registry_create(const ze_asset_registry_desc_t *desc, ze_asset_registry_t **out);
void ze_asset_registry_destroy(ze_asset_registry_t *reg);

/* Insert an entry (state UNKNOWN), or update the path/type/source of the
 * existing one with that uuid (its state is kept). ZE_ERR_INVALID_ARG for a
 * nil uuid, an UNKNOWN type or a missing path. */
ze_result ze_asset_registry_put(ze_asset_registry_t *reg, ze_uuid_t uuid, ze_asset_type type,
                                ze_uuid_t source, const char *path);
/* Removes the entry and every edge to or from it. */
ze_result ze_asset_registry_remove(ze_asset_registry_t *reg, ze_uuid_t uuid);
bool ze_asset_registry_get(const ze_asset_registry_t *reg, ze_uuid_t uuid, ze_asset_info_t *out);
/* The entry whose path is `path` (sources and files; artifacts too). */
bool ze_asset_registry_find_path(const ze_asset_registry_t *reg, const char *path, ze_uuid_t *out);
uint32_t ze_asset_registry_count(const ze_asset_registry_t *reg);

/* The state machine: UNKNOWN/FAILED/STALE/LOADED -> QUEUED -> IMPORTING ->
 * LOADED | FAILED; any -> STALE; STALE -> LOADED (a failed re-import going
 * back to the data in use); UNKNOWN/STALE/LOADED -> FAILED (a load failed);
 * LOADED -> UNKNOWN (evicted); UNKNOWN -> LOADED (a sub-asset loaded).
 * Anything else is ZE_ERR_STATE. `reason` (optional) is kept for FAILED
 * and cleared by LOADED. A successful import or load (-> LOADED) bumps the
 * generation. */
ze_result ze_asset_registry_set_state(ze_asset_registry_t *reg, ze_uuid_t uuid,
                                      ze_asset_state state, const char *reason);
/* Record that `dependent` is built from `dependency` (a sub-asset from its
 * source, a glTF source from its .bin, a material from its textures).
 * Idempotent. ZE_ERR_NOT_FOUND when either is missing, ZE_ERR_CYCLE when
 * the edge would close a cycle. */
ze_result ze_asset_registry_add_dependency(ze_asset_registry_t *reg, ze_uuid_t dependent,
                                           ze_uuid_t dependency);
/* Drop every edge where `dependent` is the dependent (before re-recording
 * them after a re-import). */
void ze_asset_registry_clear_dependencies(ze_asset_registry_t *reg, ze_uuid_t dependent);
/* Direct dependents; returns how many exist (may exceed max). */
uint32_t ze_asset_registry_dependents(const ze_asset_registry_t *reg, ze_uuid_t uuid,
                                      ze_uuid_t *out, uint32_t max);
/* Mark `uuid` and everything that depends on it, transitively, STALE (each
 * entry once, dependencies before dependents). Returns the number marked. */
uint32_t ze_asset_registry_mark_stale(ze_asset_registry_t *reg, ze_uuid_t uuid);
/* Sub-assets of a source (entries whose `source` is it and that are not
 * the source itself), in artifact order; returns how many exist. */
uint32_t ze_asset_registry_sub_assets(const ze_asset_registry_t *reg, ze_uuid_t source,
                                      ze_uuid_t *out, uint32_t max);
typedef bool (*ze_asset_registry_fn)(void *user, const ze_asset_info_t *info);
/* Every entry, in insertion order; return false to stop. */
void ze_asset_registry_foreach(const ze_asset_registry_t *reg, ze_asset_registry_fn fn, void *user);
enum { ZE_ASSET_MAX_LISTENERS = 16 };
ze_result ze_asset_registry_listen(ze_asset_registry_t *reg, ze_asset_state_fn fn, void *user);
void ze_asset_registry_unlisten(ze_asset_registry_t *reg, ze_asset_state_fn fn, void *user);

/* ------------------------------------------------- references by path */

/* An asset reference names an asset by its project path instead of its uuid:
 *   "/models/crate.gltf#mesh/0"   a sub-asset of a source, by the cooker's name
 *   "/models/crate.gltf"          the file itself (a source, or a file sources read)
 * Sub-asset names are "<kind>/<N>": mesh/N, material/N, texture/N (N: the
 * index in the source's glTF array, or assimp's), envmap/0 (an .hdr) and
 * scene/0 (the node hierarchy); N is decimal without leading zeros. Their
 * uuid is v5(source uuid, name), what the cooker gives them (`zengine cook
 * --json` lists them as sub_assets), so a reference resolves once the
 * registry knows the source, cooked or not, and keeps resolving after its
 * .meta was lost (the new source uuid derives the new sub-asset uuids). The
 * path is a VFS path, normalized ("models/x.gltf" = "/models/x.gltf"). */
enum { ZE_ASSET_SUB_NAME_MAX = 32, ZE_ASSET_REF_MAX = ZE_PATH_CAPACITY + ZE_ASSET_SUB_NAME_MAX };
/* v5(source, name): the identity of sub-asset `name` ("mesh/0") of a source. */
ze_uuid_t ze_asset_sub_asset_uuid(ze_uuid_t source, const char *name);
/* Split and check a reference (`len` bytes): the normalized path, and the
 * sub-asset name ("" when there is none). ZE_ERR_PARSE when malformed (an
 * empty or bad path, an unknown kind, "mesh0", "mesh/01"). Returned only. */
ze_result ze_asset_ref_parse(const char *ref, size_t len, ze_path_t *path,
                             char sub[ZE_ASSET_SUB_NAME_MAX]);
/* The uuid a reference names, through the registry: ZE_ERR_PARSE (see
 * above), ZE_ERR_NOT_FOUND when the registry has no source (or, without a
 * sub-asset, no file) at that path. The sub-asset need not be cooked yet.
 * Returned only: callers report with what they know (the engine names the
 * entity). */
ze_result ze_asset_registry_resolve(const ze_asset_registry_t *reg, const char *ref, size_t len,
                                    ze_uuid_t *out);
/* The reverse, for files that name assets: "<source path>#<sub-asset>" for a
 * cooked sub-asset, the path for a source or file. false (buf "") when the
 * registry does not know the uuid, or its name does not fit `cap`. */
bool ze_asset_registry_ref(const ze_asset_registry_t *reg, ze_uuid_t uuid, char *buf, size_t cap);

/* ------------------------------------------------------ import coordinator */

typedef enum ze_import_priority {
    ZE_IMPORT_BACKGROUND = 0,
    ZE_IMPORT_IMMEDIATE, /* dispatched before any Background request */
} ze_import_priority;

typedef enum ze_import_mode {
    ZE_IMPORT_CHILD_PROCESS = 0, /* the default: `zengine cook` children */
    ZE_IMPORT_IN_PROCESS,        /* desc.in_process_cook on a pool job (tests, tools) */
} ze_import_mode;

typedef struct ze_import_coordinator_t ze_import_coordinator_t;

typedef struct ze_import_coordinator_desc_t {
    ze_mem_t *mem;                  /* required: bookkeeping from the Import owner */
    ze_vfs_t *vfs;                  /* required, with a writable /cache */
    ze_asset_registry_t *registry;  /* required */
    ze_job_system_t *jobs;          /* in-process imports; NULL = on the tick, inline */
    ze_main_scheduler_t *scheduler; /* completions; NULL: the coordinator makes its own */
    ze_import_mode mode;
    /* ZE_IMPORT_IN_PROCESS: the cooker to call, ze_asset_cook of
       zengine::cook (the runtime does not link it); required in that mode. */
    ze_cook_fn in_process_cook;
    /* The `zengine` executable for child imports; NULL = the environment
       variable ZENGINE_COOKER, else "zengine" beside the running program,
       else <prefix>/bin/zengine of an installed engine. */
    const char *cooker;
    uint64_t memory_limit; /* child RLIMIT_AS; 0 = 2 GiB */
    uint32_t cpu_seconds;  /* child RLIMIT_CPU; 0 = 60 */
    uint32_t timeout_ms;   /* child wall clock; 0 = 30000 */
    uint32_t max_running;  /* imports at once; 0 = the job workers (at least 1) */
    bool watch;            /* hot reload: subscribe to the VFS watcher */
    ze_diag_sink_t diag;   /* failed imports and sidecars; {0}: the log (any thread) */
} ze_import_coordinator_desc_t;

ze_result ze_import_coordinator_create(const ze_import_coordinator_desc_t *desc,
                                       ze_import_coordinator_t **out);
/* Kills running children (and waits for in-process jobs), then frees. */
void ze_import_coordinator_destroy(ze_import_coordinator_t *ic);

/* Register the source at VFS `path`: reads its .meta (or creates one with a
 * fresh uuid v4 and writes it) and puts the source in the registry. A
 * source whose meta says it is cooked is then checked on the pool (never
 * on the calling thread): its content hash, the hashes of the files it
 * depends on, its settings' identity and its artifacts' existence. When all
 * match, a later tick makes it LOADED with the meta's sub-assets, without
 * an import; otherwise it stays UNKNOWN (its sub-assets registered when
 * their artifacts exist: the last good ones) and a request made meanwhile
 * queues its import. ze_import_coordinator_idle is false while checks are
 * pending. ZE_ERR_UNSUPPORTED when no importer takes the file. */
ze_result ze_import_register(ze_import_coordinator_t *ic, const char *path, ze_uuid_t *out);
/* Register (if needed) and queue an import. A source already queued moves
 * up to Immediate if asked; one importing is re-queued to run again when
 * it ends (its data changed under it). `force` re-imports a current source. */
ze_result ze_import_request(ze_import_coordinator_t *ic, const char *path,
                            ze_import_priority priority, bool force, ze_uuid_t *out);
/* Register and request a source without reading anything on this thread:
 * a pool job reads its sidecar and checks it (as ze_import_register's
 * check); a later tick registers it with the sidecar's uuid, LOADED when
 * current, else queued (Background). A source without a usable sidecar is
 * then registered by ze_import_request (which writes one). Until then the
 * registry does not know the path (a ze_import_register or request made
 * meanwhile registers it at once, and the discovery yields). The engine's
 * folder walk uses it, so a project of many sources does not stall its
 * start. ZE_ERR_UNSUPPORTED when no importer takes the file. */
ze_result ze_import_discover(ze_import_coordinator_t *ic, const char *path);
/* Offer a file that may be only another source's dependency (an image a
 * glTF uses): once every check and import has ended it is requested
 * (Background) unless a registered source depends on it. The folder walk
 * offers images this way, so a model's textures are not also imported as
 * standalone textures. ze_import_coordinator_idle is false while offers
 * wait. ZE_ERR_UNSUPPORTED when no importer takes the file. */
ze_result ze_import_offer(ze_import_coordinator_t *ic, const char *path);
/* Main thread, once per frame: runs completions, polls children (kills the
 * ones past their timeout), starts queued imports up to max_running.
 * Returns the number of imports that ended during this tick. */
uint32_t ze_import_coordinator_tick(ze_import_coordinator_t *ic);
/* Tick (and ze_vfs_tick when the coordinator watches) until nothing is
 * queued or running, or timeout_ms passes (ZE_ERR_TIMEOUT). Tools and
 * tests; a game never blocks like this. */
ze_result ze_import_coordinator_wait(ze_import_coordinator_t *ic, uint32_t timeout_ms);
bool ze_import_coordinator_idle(const ze_import_coordinator_t *ic);

typedef struct ze_import_stats_t {
    uint64_t requested, started, succeeded, failed;
    uint64_t crashed, timed_out; /* of failed: killed by a signal / by the timeout */
    uint64_t up_to_date;         /* registrations found current: no import */
    uint64_t outdated;           /* registrations whose check found a change */
    uint32_t checking;           /* registrations still being checked (pool jobs) */
    uint64_t dependency_only;    /* offered files left out: a source depends on them */
    /* warnings of succeeded imports (a texture left out...), each reported
       through desc.diag at WARN with the source's path */
    uint64_t warnings;
    uint32_t queued, running;
} ze_import_stats_t;
ze_import_stats_t ze_import_coordinator_stats(const ze_import_coordinator_t *ic);

/* ---------------------------------------------------------- asset manager */

/* A loaded sub-asset. The bytes are the artifact as read, validated; the
 * views point into them. Valid until the asset is reloaded or evicted:
 * consumers (the renderer) copy what they keep. */
typedef struct ze_asset_data_t {
    ze_uuid_t uuid;
    ze_asset_type type;
    uint32_t generation; /* the registry generation of this load */
    union {
        ze_zemesh_view_t mesh;
        ze_zematerial_t material;
        ze_tex_view_t texture; /* TEXTURE and ENVMAP */
        struct {
            const char *json; /* NUL-terminated */
            size_t size;
        } scene;
    } as;
    const uint8_t *bytes;
    size_t size;
} ze_asset_data_t;

/* Called on the main thread when a referenced asset's data is there: its
 * first load, every reload, and an acquire that takes the references from
 * 0 to 1 of an asset whose data stayed in memory after it was released.
 * A load or reload that completes while nobody holds a reference keeps
 * the data (cached) and announces nothing. */
typedef void (*ze_asset_ready_fn)(void *user, const ze_asset_data_t *data);
/* Called on the main thread when the last reference to an announced asset
 * is dropped: a consumer that copied it (the renderer) releases its copy.
 * The manager keeps its own data under the budget; a later acquire
 * announces it again through on_asset_ready. Every on_asset_ready is
 * followed by at most one on_asset_released before the next (a reload
 * while referenced is announced again without a release between). */
typedef void (*ze_asset_released_fn)(void *user, ze_uuid_t uuid, ze_asset_type type);

typedef struct ze_asset_manager_t ze_asset_manager_t;

typedef struct ze_asset_manager_desc_t {
    ze_mem_t *mem;                    /* required: loaded data from the Asset owner */
    ze_vfs_t *vfs;                    /* required */
    ze_asset_registry_t *registry;    /* required */
    ze_import_coordinator_t *imports; /* required: loads of sources not yet cooked */
    ze_job_system_t *jobs;            /* loads; NULL = synchronous, on the tick */
    ze_main_scheduler_t *scheduler;   /* load completions; NULL: the manager's own */
    /* Bytes of loaded data to keep: over it, unreferenced assets are evicted
       (least recently released first). 0 = the Asset owner's budget / 4. */
    uint64_t budget;
    ze_asset_ready_fn on_asset_ready;
    ze_asset_released_fn on_asset_released; /* NULL: none */
    void *user;
    ze_diag_sink_t diag; /* failed loads; {0}: the log */
} ze_asset_manager_desc_t;

ze_result ze_asset_manager_create(const ze_asset_manager_desc_t *desc, ze_asset_manager_t **out);
void ze_asset_manager_destroy(ze_asset_manager_t *am);

/* Take a reference to a sub-asset and start loading it when needed (its
 * source is imported first, Immediate, when it is not cooked). ZE_ERR_NOT_FOUND
 * for a uuid the registry does not know; ZE_ERR_INVALID_ARG for a source. */
ze_result ze_asset_acquire(ze_asset_manager_t *am, ze_uuid_t uuid);
/* Drop a reference; at zero on_asset_released runs (when the asset was
 * announced) and the asset may be evicted (not before the budget needs
 * the room). ZE_ERR_STATE when there is no reference. */
ze_result ze_asset_release(ze_asset_manager_t *am, ze_uuid_t uuid);
/* The loaded data, or NULL while it is not loaded. */
const ze_asset_data_t *ze_asset_get(const ze_asset_manager_t *am, ze_uuid_t uuid);
uint32_t ze_asset_refcount(const ze_asset_manager_t *am, ze_uuid_t uuid);
/* Main thread, once per frame: runs load completions (-> LOADED and
 * on_asset_ready), starts loads (and reloads after re-imports), evicts.
 * Returns the number of assets that became LOADED. */
uint32_t ze_asset_manager_tick(ze_asset_manager_t *am);
/* Tick the manager, the coordinator (and the VFS when it watches) until
 * nothing is loading or importing, or timeout_ms passes (ZE_ERR_TIMEOUT). */
ze_result ze_asset_manager_wait(ze_asset_manager_t *am, uint32_t timeout_ms);

typedef struct ze_asset_manager_stats_t {
    uint64_t loads, reloads, load_failures, evictions;
    uint64_t releases; /* on_asset_released calls: last references dropped */
    uint64_t bytes;    /* loaded data now */
    uint32_t loaded;   /* assets in memory now */
    uint32_t pending;
} ze_asset_manager_stats_t;
ze_asset_manager_stats_t ze_asset_manager_stats(const ze_asset_manager_t *am);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_ASSET_H */
