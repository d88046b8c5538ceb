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
ze_result ze__asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                               ze_hdr_image_t *out, ze__asset_error_t *err);
ze_result ze__asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                 const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                 ze__asset_error_t *err);

/* Scale, up axis and flipped UVs applied to an imported model (settings_apply.c). */
void ze__cook_apply_settings(ze_model_t *model, const ze_import_settings_t *s);

#endif
