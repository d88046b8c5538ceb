/* The cooker's public entry points: the internal ones, reported once
 * through the caller's diagnostics sink. */
#include "cook/cook_internal.h"

ze_result ze_asset_import_gltf_file(const char *path, const ze_gltf_desc_t *desc, ze_model_t **out,
                                    const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_import_gltf_file(path, desc, out, &err);
    return ze__asset_report(diag, r, "cook", path, &err);
}

ze_result ze_asset_import_gltf_memory(const void *data, size_t size, const ze_gltf_desc_t *desc,
                                      ze_model_t **out, const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_import_gltf_memory(data, size, desc, out, &err);
    return ze__asset_report(diag, r, "cook", "glTF", &err);
}

ze_result ze_asset_zetex_cook(const void *encoded, size_t size, ze_uuid_t uuid,
                              const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                              const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zetex_cook(encoded, size, uuid, desc, bytes, out_size, &err);
    return ze__asset_report(diag, r, "cook", "image", &err);
}

ze_result ze_asset_hdr_decode(const void *data, size_t size, const ze_image_desc_t *desc,
                              ze_hdr_image_t *out, const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_hdr_decode(data, size, desc, out, &err);
    return ze__asset_report(diag, r, "cook", ".hdr", &err);
}

ze_result ze_asset_zenvmap_cook(const void *hdr, size_t size, ze_uuid_t uuid,
                                const ze_image_desc_t *desc, uint8_t **bytes, size_t *out_size,
                                const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zenvmap_cook(hdr, size, uuid, desc, bytes, out_size, &err);
    return ze__asset_report(diag, r, "cook", ".hdr", &err);
}
