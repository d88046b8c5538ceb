/* Asset types: their names in files and reports, the sub-asset type of a
 * cooked artifact told by its file name, the importer a source file's name
 * asks for, and releasing a cook result (the runtime reads results of
 * in-process cooks). */
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

/* `s` ends with the lower-case `suffix`, ignoring ASCII case in `s`. */
bool ze__ends_with_ci(const char *s, const char *suffix)
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
    if (ze__ends_with_ci(path, ".gltf") || ze__ends_with_ci(path, ".glb"))
        return "gltf";
    if (ze__ends_with_ci(path, ".png") || ze__ends_with_ci(path, ".jpg") ||
        ze__ends_with_ci(path, ".jpeg") || ze__ends_with_ci(path, ".tga"))
        return "image";
    if (ze__ends_with_ci(path, ".hdr"))
        return "hdr";
    if (ze__ends_with_ci(path, ".obj") || ze__ends_with_ci(path, ".fbx"))
        return "assimp";
    return NULL;
}

void ze_asset_cook_result_release(ze_cook_result_t *result)
{
    if (!result || !result->storage_)
        return;
    ze__astore_t copy = *(ze__astore_t *)result->storage_;
    ze__astore_release(&copy);
    result->storage_ = NULL;
    result->artifacts = NULL;
    result->sub_asset_uuids = NULL;
    result->sub_asset_types = NULL;
    result->artifact_count = 0;
    result->dependencies = NULL;
    result->dependency_count = 0;
    result->textures = NULL;
    result->texture_count = 0;
    result->warnings = NULL;
    result->warning_count = 0;
}
