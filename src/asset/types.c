/* Asset types: their names in files and reports, and the sub-asset type of
 * a cooked artifact told by its file name. */
#include "asset/asset_internal.h"

const char *ze_asset_type_name(ze_asset_type type)
{
    static const char *const names[ZE_ASSET_TYPE_COUNT] = {
        [ZE_ASSET_TYPE_UNKNOWN] = "unknown",   [ZE_ASSET_TYPE_SOURCE] = "source",
        [ZE_ASSET_TYPE_FILE] = "file",         [ZE_ASSET_TYPE_MESH] = "mesh",
        [ZE_ASSET_TYPE_MATERIAL] = "material", [ZE_ASSET_TYPE_TEXTURE] = "texture",
        [ZE_ASSET_TYPE_ENVMAP] = "envmap",     [ZE_ASSET_TYPE_SCENE] = "scene",
    };
    if ((unsigned)type >= ZE_ASSET_TYPE_COUNT)
        return "unknown";
    return names[type];
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    /* Something must come before the extension: ".zemesh" alone is no
       artifact name. */
    return n > k && memcmp(s + n - k, suffix, k) == 0;
}

ze_asset_type ze_asset_type_of_artifact(const char *name)
{
    if (!name)
        return ZE_ASSET_TYPE_UNKNOWN;
    static const struct {
        const char *suffix;
        ze_asset_type type;
    } rules[] = {
        {".zemesh", ZE_ASSET_TYPE_MESH},      {".zematerial", ZE_ASSET_TYPE_MATERIAL},
        {".zetex", ZE_ASSET_TYPE_TEXTURE},    {".zenvmap", ZE_ASSET_TYPE_ENVMAP},
        {".scene.json", ZE_ASSET_TYPE_SCENE},
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < ZE_COUNTOF(rules); i++)
        if (has_suffix(name, n, rules[i].suffix))
            return rules[i].type;
    return ZE_ASSET_TYPE_UNKNOWN;
}
