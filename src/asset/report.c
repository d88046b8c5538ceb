/* The asset module's public readers: the internal ones, reported once
 * through the caller's diagnostics sink. */
#include "asset/asset_internal.h"

ze_result ze__asset_report(const ze_diag_sink_t *sink, ze_result r, const char *module,
                           const char *subject, const ze__asset_error_t *err)
{
    if (r == ZE_OK)
        return r;
    const char *text = err && err->message[0] ? err->message : ze_result_str(r);
    return ze_diag(sink, ZE_LOG_ERROR, r, module, subject, "%s", text);
}

ze_result ze_asset_zemesh_read(const void *data, size_t size, ze_zemesh_view_t *out,
                               const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zemesh_read(data, size, out, &err);
    return ze__asset_report(diag, r, "asset", ".zemesh", &err);
}

ze_result ze_asset_zematerial_read(const void *text, size_t size, ze_zematerial_t *out,
                                   const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zematerial_read(text, size, out, &err);
    return ze__asset_report(diag, r, "asset", ".zematerial", &err);
}

ze_result ze_asset_zetex_read(const void *data, size_t size, ze_tex_view_t *out,
                              const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zetex_read(data, size, out, &err);
    return ze__asset_report(diag, r, "asset", ".zetex", &err);
}

ze_result ze_asset_zenvmap_read(const void *data, size_t size, ze_tex_view_t *out,
                                const ze_diag_sink_t *diag)
{
    ze__asset_error_t err;
    ze_result r = ze__asset_zenvmap_read(data, size, out, &err);
    return ze__asset_report(diag, r, "asset", ".zenvmap", &err);
}
