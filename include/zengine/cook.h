/* zengine/cook.h — the cooker: importers and writers of cooked artifacts.
 *
 * What: our own strict glTF 2.0 importer (.gltf/.glb), OBJ and FBX through
 * assimp, PNG/JPEG/TGA through stb_image behind our own container checks,
 * Radiance .hdr through our own reader, the .zemesh writer (meshoptimizer's
 * cache and fetch ordering), the .zematerial writer, the .zetex and
 * .zenvmap writers, and ze_asset_cook (one source -> its artifacts), which
 * `zengine cook` runs.
 * Not: the runtime (zengine/asset.h). This library is zengine::cook; only
 * programs that cook link it (the `zengine` program, which the engine runs
 * as its resource-limited child cooker, tools and tests). The engine
 * runtime and game programs never contain it: third-party decoders have a
 * long CVE history.
 * Threads: every function is reentrant.
 * Memory: as zengine/asset.h (explicit allocators; zero = the system one).
 * Errors: ze_result, and one line naming the problem reported to the
 * caller's diagnostics sink (a desc field or the last parameter).
 */
#ifndef ZENGINE_COOK_H
#define ZENGINE_COOK_H

#include "zengine/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    /* An image whose file is missing or unreadable, or whose bytes are not
       a valid PNG/JPEG, fails the import (false: the strict validation) or
       is kept without data, the reason in ze_model_image_t.problem (true:
       what the cooker asks for, so that a model degrades instead of
       failing). Malformed JSON always fails. */
    bool keep_bad_images;
} ze_gltf_desc_t;

/* Import a .gltf or .glb file (the container is told by its first bytes,
 * not its name). On failure *out is NULL and err (optional) says why. */
ze_result ze_asset_import_gltf_file(const char *path, const ze_gltf_desc_t *desc, ze_model_t **out,
                                    const ze_diag_sink_t *diag);
/* The same from bytes in memory (JSON text or GLB). */
ze_result ze_asset_import_gltf_memory(const void *data, size_t size, const ze_gltf_desc_t *desc,
                                      ze_model_t **out, const ze_diag_sink_t *diag);
void ze_asset_model_destroy(ze_model_t *model);

/* Cook one mesh of a model into .zemesh bytes allocated from `alloc`
 * (free with ze_free(alloc, *bytes, *size)). material_uuids: one per model
 * material (NULL: nil uuids). ZE_ERR_NOT_FOUND when every primitive of the
 * mesh is skipped. */
ze_result ze_asset_zemesh_write(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                const ze_uuid_t *material_uuids, ze_allocator_t alloc,
                                uint8_t **bytes, size_t *size);
/* The same with up to lod_count ([1, ZE_ZEMESH_LOD_MAX]) levels of detail
 * per submesh (ze_zemesh_submesh_t.lods): meshopt_simplify from level 0 to
 * about half the previous level's indices, within a relative error of 1 %
 * at level 1 doubling per level, borders locked; a submesh stops early when
 * a level would drop less than 1/8 of the previous one's indices.
 * ze_asset_zemesh_write is lod_count 1. */
ze_result ze_asset_zemesh_write_lods(const ze_model_t *model, uint32_t mesh, ze_uuid_t uuid,
                                     const ze_uuid_t *material_uuids, uint32_t lod_count,
                                     ze_allocator_t alloc, uint8_t **bytes, size_t *size);

/* Material `index` of a model as .zematerial text (no NUL) allocated from
 * `alloc` (free with ze_free(alloc, *text, *size)). texture_uuids: one per
 * model texture; a nil one (a texture not cooked) leaves its slots out, so
 * the runtime's default stands in. */
ze_result ze_asset_zematerial_write(const ze_model_t *model, uint32_t index, ze_uuid_t uuid,
                                    const ze_uuid_t *texture_uuids, ze_allocator_t alloc,
                                    char **text, size_t *size);

/* Decode an encoded image and cook it into .zetex bytes allocated from
 * desc->alloc (free with ze_free(alloc, *bytes, *size)). Colour textures
 * (desc->linear false) are RGBA8_SRGB with mips averaged in linear light. */
ze_result ze_asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                              const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                              const ze_diag_sink_t *diag);

/* A decoded Radiance .hdr: float RGB, top row first. */
typedef struct ze_hdr_image_t {
    uint32_t width, height;
    float *rgb; /* [width * height * 3] */
    ze_allocator_t alloc_;
    size_t size_;
} ze_hdr_image_t;

ze_result ze_asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                              ze_hdr_image_t *out, const ze_diag_sink_t *diag);
void ze_asset_hdr_release(ze_hdr_image_t *img);
/* Decode a .hdr and cook it into .zenvmap bytes (RGBA16F equirect + mips). */
ze_result ze_asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                const ze_diag_sink_t *diag);

/* Import `source` and write its artifacts into out_dir: each one written
 * to a temporary name and renamed only when all are written, so a failure
 * leaves no artifact behind. Artifacts: <stem>.mesh<N>.zemesh for each mesh
 * with triangles, <stem>.material<N>.zematerial, <stem>.texture<N>.zetex for
 * each texture with a PNG/JPEG/TGA image (a standalone image:
 * <stem>.texture0.zetex), <stem>.envmap0.zenvmap for a .hdr, and
 * <stem>.scene.json (the node hierarchy as an ECS scene file: one entity per
 * node with Name, Transform, Parent, Mesh, Camera) for models with nodes.
 * Models degrade rather than fail: a texture whose file is missing or
 * unreadable, or whose image does not decode, is left out with a warning
 * naming it (out->warnings, and desc.diag at WARN); the materials using it
 * fall back to the default and the meshes still cook. */
ze_result ze_asset_cook(const ze_cook_desc_t *desc, ze_cook_result_t *out);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_COOK_H */
