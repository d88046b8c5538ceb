/* The cooker's entry points with their failure text in a ze__asset_error_t
 * (for callers that wrap it); the public ones in zengine/cook.h report
 * through a diagnostics sink. */
#ifndef ZE_COOK_INTERNAL_H
#define ZE_COOK_INTERNAL_H

#include "asset/asset_internal.h"
#include "zengine/cook.h"

ze_result ze__asset_import_gltf_file(const char *path, const ze_gltf_desc_t *desc, ze_model_t **out,
                                     ze__asset_error_t *err);
ze_result ze__asset_import_gltf_memory(const void *data, size_t size, const ze_gltf_desc_t *desc,
                                       ze_model_t **out, ze__asset_error_t *err);
ze_result ze__asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                               const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                               ze__asset_error_t *err);
/* What a texture cook wrote, for the cook report: its format, the PSNR of
 * mip 0 decoded against the source (dB, over the channels the format
 * keeps; 100 when lossless) and the bytes of its mips against the RGBA8
 * mips of the same chain. */
typedef struct ze__tex_cook_info_t {
    ze_tex_format format;
    double psnr_db;
    uint64_t bytes, rgba8_bytes;
} ze__tex_cook_info_t;

ze_result ze__asset_zetex_cook_ex(const void *encoded, size_t size, ze_uuid_t uuid,
                                  const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                  ze__tex_cook_info_t *info, ze__asset_error_t *err);

/* One mip level of RGBA8 texels to BC1/BC3/BC4/BC5 blocks and back
 * (bc_encode.c); `out` holds ceil(w/4) * ceil(h/4) blocks. */
void ze__bc_encode_level(ze_tex_format f, const uint8_t *rgba, uint32_t w, uint32_t h,
                         uint8_t *out);
void ze__bc_decode_level(ze_tex_format f, const uint8_t *blocks, uint32_t w, uint32_t h,
                         uint8_t *rgba);

ze_result ze__asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                               ze_hdr_image_t *out, ze__asset_error_t *err);
ze_result ze__asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                 const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                 ze__asset_error_t *err);

/* Scale, up axis and flipped UVs applied to an imported model (settings_apply.c). */
void ze__cook_apply_settings(ze_model_t *model, const ze_import_settings_t *s);

#endif
