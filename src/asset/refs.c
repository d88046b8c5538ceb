/* Asset references by path: "<VFS path>#<sub-asset>" <-> uuid.
 *
 * A sub-asset's name is the cooker's: "<kind>/<N>" (mesh/N, material/N,
 * texture/N, envmap/0, scene/0), and its uuid is v5(source uuid, name), the
 * identity ze_asset_cook gives it. So a reference resolves as soon as the
 * registry knows the source (its .meta read, or written with a fresh uuid
 * when it was lost), before anything is cooked; and the reverse (for files
 * the engine writes) reads the kind and index back from the artifact's
 * name, <stem>.<kind><N>.<ext> or <stem>.scene.json, and checks that they
 * derive the uuid. */
#include <stdio.h>
#include <string.h>

#include "asset/asset_internal.h"

static const struct {
    const char *kind;
    bool only_zero; /* one per source: envmap/0, scene/0 */
} k_kinds[] = {
    {"mesh", false}, {"material", false}, {"texture", false}, {"envmap", true}, {"scene", true},
};

ze_uuid_t ze_asset_sub_asset_uuid(ze_uuid_t source, const char *name)
{
    return ze_uuid_v5(source, name, name ? strlen(name) : 0);
}

/* "<kind>/<N>", N decimal without leading zeros, below 2^32. */
static bool sub_name_ok(const char *s, size_t n)
{
    for (size_t k = 0; k < ZE_COUNTOF(k_kinds); k++) {
        size_t kl = strlen(k_kinds[k].kind);
        if (n < kl + 2 || memcmp(s, k_kinds[k].kind, kl) != 0 || s[kl] != '/')
            continue;
        const char *d = s + kl + 1;
        size_t dn = n - kl - 1;
        if (dn > 10 || (dn > 1 && d[0] == '0'))
            return false;
        uint64_t v = 0;
        for (size_t i = 0; i < dn; i++) {
            if (d[i] < '0' || d[i] > '9')
                return false;
            v = v * 10 + (uint64_t)(d[i] - '0');
        }
        return v <= UINT32_MAX && (!k_kinds[k].only_zero || v == 0);
    }
    return false;
}

ze_result ze_asset_ref_parse(const char *ref, size_t len, ze_path_t *path,
                             char sub[ZE_ASSET_SUB_NAME_MAX])
{
    ZE_CHECK(ref && path && sub, ZE_ERR_INVALID_ARG);
    const char *hash = memchr(ref, '#', len);
    size_t plen = hash ? (size_t)(hash - ref) : len;
    sub[0] = '\0';
    if (plen == 0 || memchr(ref, '\0', len))
        return ZE_ERR_PARSE;
    if (hash) {
        size_t sn = len - plen - 1;
        if (sn >= ZE_ASSET_SUB_NAME_MAX || !sub_name_ok(hash + 1, sn))
            return ZE_ERR_PARSE;
        memcpy(sub, hash + 1, sn);
        sub[sn] = '\0';
    }
    ze_result r = ze_path_from(ref, plen, path);
    return r == ZE_OK ? ZE_OK : ZE_ERR_PARSE;
}

/* The entry of `path` of one of the wanted types (a path may be both a
 * source and a file another source reads). */
typedef struct find_t {
    const char *path;
    bool want_file;
    ze_uuid_t found;
    bool ok;
} find_t;

static bool find_fn(void *user, const ze_asset_info_t *info)
{
    find_t *f = user;
    if (strcmp(info->path, f->path) != 0)
        return true;
    if (info->type == ZE_ASSET_TYPE_SOURCE || (f->want_file && info->type == ZE_ASSET_TYPE_FILE)) {
        f->found = info->uuid;
        f->ok = true;
        return false;
    }
    return true;
}

static bool find_source(const ze_asset_registry_t *reg, const char *path, bool or_file,
                        ze_uuid_t *out)
{
    ze_uuid_t u;
    ze_asset_info_t info;
    if (!ze_asset_registry_find_path(reg, path, &u) || !ze_asset_registry_get(reg, u, &info))
        return false;
    if (info.type == ZE_ASSET_TYPE_SOURCE || (or_file && info.type == ZE_ASSET_TYPE_FILE)) {
        *out = u;
        return true;
    }
    /* Indexed under another entry: the slow way (rare). */
    find_t f = {.path = path, .want_file = or_file};
    ze_asset_registry_foreach(reg, find_fn, &f);
    if (f.ok)
        *out = f.found;
    return f.ok;
}

ze_result ze_asset_registry_resolve(const ze_asset_registry_t *reg, const char *ref, size_t len,
                                    ze_uuid_t *out)
{
    ZE_CHECK(reg && ref && out, ZE_ERR_INVALID_ARG);
    ze_path_t path;
    char sub[ZE_ASSET_SUB_NAME_MAX];
    ZE__TRY(ze_asset_ref_parse(ref, len, &path, sub));
    ze_uuid_t source;
    if (!find_source(reg, path.str, !sub[0], &source))
        return ZE_ERR_NOT_FOUND;
    *out = sub[0] ? ze_asset_sub_asset_uuid(source, sub) : source;
    return ZE_OK;
}

/* "<kind>/<N>" from an artifact's file name; false when it has none. */
static bool sub_name_of_artifact(const char *artifact, char out[ZE_ASSET_SUB_NAME_MAX])
{
    const char *base = strrchr(artifact, '/');
    base = base ? base + 1 : artifact;
    size_t n = strlen(base);
    static const char scene_ext[] = ".scene.json";
    if (n > sizeof scene_ext - 1 && strcmp(base + n - (sizeof scene_ext - 1), scene_ext) == 0) {
        snprintf(out, ZE_ASSET_SUB_NAME_MAX, "scene/0");
        return true;
    }
    const char *ext = strrchr(base, '.');
    if (!ext || ext == base)
        return false;
    /* the part before the extension ends with .<kind><digits> */
    const char *dot = ext - 1;
    while (dot > base && *dot != '.')
        dot--;
    if (*dot != '.')
        return false;
    const char *kind = dot + 1;
    const char *digits = kind;
    while (digits < ext && (*digits < '0' || *digits > '9'))
        digits++;
    if (digits == kind || digits == ext)
        return false;
    int w = snprintf(out, ZE_ASSET_SUB_NAME_MAX, "%.*s/%.*s", (int)(digits - kind), kind,
                     (int)(ext - digits), digits);
    return w > 0 && w < ZE_ASSET_SUB_NAME_MAX && sub_name_ok(out, (size_t)w);
}

bool ze_asset_registry_ref(const ze_asset_registry_t *reg, ze_uuid_t uuid, char *buf, size_t cap)
{
    ze_asset_info_t info, src;
    if (!buf || !cap)
        return false;
    buf[0] = '\0';
    if (!reg || !ze_asset_registry_get(reg, uuid, &info))
        return false;
    int w = -1;
    if (info.type == ZE_ASSET_TYPE_SOURCE || info.type == ZE_ASSET_TYPE_FILE) {
        w = snprintf(buf, cap, "%s", info.path);
    } else if (ze_asset_registry_get(reg, info.source, &src) && src.type == ZE_ASSET_TYPE_SOURCE) {
        char sub[ZE_ASSET_SUB_NAME_MAX];
        if (sub_name_of_artifact(info.path, sub) &&
            ze_uuid_eq(ze_asset_sub_asset_uuid(src.uuid, sub), uuid))
            w = snprintf(buf, cap, "%s#%s", src.path, sub);
    }
    if (w <= 0 || (size_t)w >= cap) {
        buf[0] = '\0';
        return false;
    }
    return true;
}
