/* Assets by path (main thread): scene files and the C API name an asset
 * "/models/crate.gltf#mesh/0" (zengine/asset.h, "references by path")
 * instead of its uuid.
 *
 * The kernel's scene-names hook (ze_kernel_set_scene_names, set by the ecs
 * stage) resolves such strings when a scene file is loaded and writes them
 * back when one is saved, through the asset registry: a UUID field whose
 * uuid the registry can name (a source, or a cooked sub-asset of a source)
 * is saved as its reference, anything else as the uuid. A path the registry
 * does not know yet but that is an importable file of the project (outside
 * the asset folders, say) is registered on the spot — its .meta read, or
 * written with a fresh uuid — and queued for import, so the reference
 * resolves at once and the asset arrives like any other.
 *
 * A reference that does not resolve is reported once (per reference and
 * run) at ERROR, naming the entity, the component and field, the reference
 * and why; it counts in the run's unresolved_assets, so the run fails. The
 * field holds the nil uuid. */
#include <string.h>

#include "engine/engine_internal.h"

/* Why `ref` does not resolve, or ZE_OK with *out. Quiet: callers report. */
static ze_result resolve(ze_engine_t *e, const char *ref, size_t len, ze_uuid_t *out, char *why,
                         size_t cap)
{
    why[0] = '\0';
    if (ze_uuid_parse(ref, len, out) == ZE_OK)
        return ZE_OK;
    ze_path_t path;
    char sub[ZE_ASSET_SUB_NAME_MAX];
    if (ze_asset_ref_parse(ref, len, &path, sub) != ZE_OK) {
        const char *hash = memchr(ref, '#', len);
        size_t sn = hash ? len - (size_t)(hash - ref) - 1 : 0;
        const char *digit = hash ? hash + 1 : NULL;
        while (digit && digit < ref + len && (*digit < '0' || *digit > '9'))
            digit++;
        if (hash && digit < ref + len && digit > hash + 1 && !memchr(hash, '/', sn + 1))
            snprintf(why, cap, "a sub-asset is named <kind>/<index>: write '#%.*s/%.*s'",
                     (int)(digit - hash - 1), hash + 1, (int)(ref + len - digit), digit);
        else
            snprintf(why, cap,
                     "not a uuid nor an asset reference: expected a project path with an "
                     "optional sub-asset, e.g. /models/crate.gltf#mesh/0 (sub-assets: mesh/N, "
                     "material/N, texture/N, envmap/0, scene/0)");
        return ZE_ERR_PARSE;
    }
    if (!e->registry) {
        snprintf(why, cap, "no asset registry in this run");
        return ZE_ERR_STATE;
    }
    ze_result r = ze_asset_registry_resolve(e->registry, ref, len, out);
    if (r == ZE_ERR_NOT_FOUND) {
        /* A file of the project the asset folders did not cover. */
        if (!ze_vfs_exists(e->vfs, path.str)) {
            snprintf(why, cap, "no file %.300s in the project", path.str);
            return ZE_ERR_NOT_FOUND;
        }
        if (!ze_asset_importer_for(path.str)) {
            snprintf(why, cap, "%.300s is not an asset source (no importer takes it)", path.str);
            return ZE_ERR_UNSUPPORTED;
        }
        if (!e->imports) {
            snprintf(why, cap, "imports are off (the project has no writable /cache)");
            return ZE_ERR_STATE;
        }
        ze_result ir = ze_import_request(e->imports, path.str, ZE_IMPORT_BACKGROUND, false, NULL);
        if (ir != ZE_OK) {
            snprintf(why, cap, "%.300s could not be registered: %s", path.str, ze_result_str(ir));
            return ir;
        }
        r = ze_asset_registry_resolve(e->registry, ref, len, out);
    }
    if (r != ZE_OK) {
        snprintf(why, cap, "%s", ze_result_str(r));
        return r;
    }
    /* A source that is cooked and current knows its sub-assets: say now
       when the one named is not among them. */
    ze_asset_info_t src, sa;
    ze_uuid_t source;
    if (sub[0] && ze_asset_registry_find_path(e->registry, path.str, &source) &&
        ze_asset_registry_get(e->registry, source, &src) && src.type == ZE_ASSET_TYPE_SOURCE &&
        src.state == ZE_ASSET_STATE_LOADED && !ze_asset_registry_get(e->registry, *out, &sa)) {
        ze_uuid_t subs[16];
        uint32_t n = ze_asset_registry_sub_assets(e->registry, source, subs, ZE_COUNTOF(subs));
        size_t w = (size_t)snprintf(why, cap, "%.300s has no sub-asset %s (it has:", path.str, sub);
        for (uint32_t i = 0; i < n && i < ZE_COUNTOF(subs) && w < cap; i++) {
            char name[ZE_ASSET_REF_MAX];
            if (ze_asset_registry_ref(e->registry, subs[i], name, sizeof name)) {
                const char *h = strchr(name, '#');
                w += (size_t)snprintf(why + w, cap - w, " %s", h ? h + 1 : name);
            }
        }
        if (w < cap)
            snprintf(why + w, cap - w, "%s)", n > ZE_COUNTOF(subs) ? " ..." : "");
        return ZE_ERR_NOT_FOUND;
    }
    return ZE_OK;
}

/* Report an unresolved reference once per run ("<ref>: <what>: <why>"),
 * and count it. */
static void unresolved(ze_engine_t *e, const char *ref, size_t len, const char *what, ze_result r,
                       const char *why)
{
    char key[ZE_ASSET_REF_MAX];
    size_t n = len < sizeof key - 1 ? len : sizeof key - 1;
    memcpy(key, ref, n);
    key[n] = '\0';
    for (uint32_t i = 0; i < e->unresolved_refs.count; i++)
        if (strcmp(ZE_ARRAY_AT(&e->unresolved_refs, ze__asset_ref_t, i).ref, key) == 0)
            return;
    ze__asset_ref_t rec;
    memcpy(rec.ref, key, n + 1);
    (void)ze_array_push(&e->unresolved_refs, &rec);
    ze_diag(&e->diag, ZE_LOG_ERROR, r == ZE_OK ? ZE_ERR_NOT_FOUND : r, "engine", key, "%s: %s",
            what, why);
}

/* A reference that resolved: kept by uuid, so that a scene saved before
 * its source is cooked still names it, and so that a sub-asset the cook
 * then does not provide is reported with the reference, not the uuid. */
static void remember(ze_engine_t *e, const char *ref, size_t len, ze_uuid_t u)
{
    ze_uuid_t parsed;
    if (len >= ZE_ASSET_REF_MAX || ze_uuid_parse(ref, len, &parsed) == ZE_OK ||
        ze_hashmap_get(&e->ref_names, &u))
        return;
    ze__asset_ref_t rec;
    memcpy(rec.ref, ref, len);
    rec.ref[len] = '\0';
    uint32_t i = e->ref_list.count;
    if (ze_array_push(&e->ref_list, &rec) == ZE_OK &&
        ze_hashmap_put(&e->ref_names, &u, &i) != ZE_OK)
        e->ref_list.count--;
}

bool ze__asset_refs_name_of(const ze_engine_t *e, ze_uuid_t u, char *buf, size_t cap)
{
    const uint32_t *i = ze_hashmap_get(&e->ref_names, &u);
    if (!i || !cap)
        return false;
    int w = snprintf(buf, cap, "%s", ZE_ARRAY_AT(&e->ref_list, ze__asset_ref_t, *i).ref);
    return w > 0 && (size_t)w < cap;
}

void ze__asset_refs_why(ze_engine_t *e, const char *ref, char *why, size_t cap)
{
    ze_uuid_t u;
    if (resolve(e, ref, strlen(ref), &u, why, cap) == ZE_OK)
        snprintf(why, cap, "its source was imported but provides no such asset");
}

void ze__asset_refs_report(ze_engine_t *e, const char *ref, const char *what, ze_result r,
                           const char *why)
{
    unresolved(e, ref, strlen(ref), what, r, why);
}

static ze_result names_resolve(void *user, const ze_scene_name_ctx_t *ctx, const char *name,
                               size_t len, ze_uuid_t *out)
{
    ze_engine_t *e = user;
    char why[600];
    ze_result r = resolve(e, name, len, out, why, sizeof why);
    if (r == ZE_OK)
        remember(e, name, len, *out);
    if (r != ZE_OK) {
        char what[480], us[ZE_UUID_STRING_LEN + 1];
        ze_uuid_format(ctx->entity, us);
        snprintf(what, sizeof what,
                 "asset reference of entity '%.64s' (%s), %.64s.%.64s (%.120s) does not resolve",
                 ctx->entity_name ? ctx->entity_name : "(unnamed)", us, ctx->component, ctx->field,
                 ctx->json_path);
        unresolved(e, name, len, what, r, why);
    }
    return r;
}

static bool names_name(void *user, ze_uuid_t uuid, char *buf, size_t cap)
{
    ze_engine_t *e = user;
    return (e->registry && ze_asset_registry_ref(e->registry, uuid, buf, cap)) ||
           ze__asset_refs_name_of(e, uuid, buf, cap);
}

void ze__asset_refs_init(ze_engine_t *e)
{
    ZE_ARRAY_INIT(&e->unresolved_refs, e->alloc, ze__asset_ref_t);
    ZE_ARRAY_INIT(&e->ref_list, e->alloc, ze__asset_ref_t);
    ze_hashmap_init(&e->ref_names, e->alloc, sizeof(ze_uuid_t), sizeof(uint32_t));
    ze_kernel_set_scene_names(e->kernel, &(ze_scene_names_t){
                                             .resolve = names_resolve,
                                             .name = names_name,
                                             .user = e,
                                         });
}

void ze__asset_refs_fini(ze_engine_t *e)
{
    if (e->kernel)
        ze_kernel_set_scene_names(e->kernel, NULL);
    ze_array_free(&e->unresolved_refs);
    ze_array_free(&e->ref_list);
    ze_hashmap_free(&e->ref_names);
}

uint32_t ze__asset_refs_unresolved(const ze_engine_t *e)
{
    return e->unresolved_refs.count;
}

ze_result ze_engine_asset_uuid(ze_engine_t *e, const char *ref, ze_uuid_t *out)
{
    ZE_CHECK(e && ref && out, ZE_ERR_INVALID_ARG);
    char why[600];
    size_t len = strlen(ref);
    ze_result r = resolve(e, ref, len, out, why, sizeof why);
    if (r == ZE_OK)
        remember(e, ref, len, *out);
    if (r != ZE_OK) {
        *out = (ze_uuid_t){{0}};
        unresolved(e, ref, len, "asset reference of ze_engine_asset_uuid does not resolve", r, why);
    }
    return r;
}

bool ze_engine_asset_ref(ze_engine_t *e, ze_uuid_t uuid, char *buf, size_t cap)
{
    if (buf && cap)
        buf[0] = '\0';
    return e && names_name(e, uuid, buf, cap);
}

ze_result ze_engine_save_scene(ze_engine_t *e, const char *vfs_path)
{
    ZE_CHECK(e && vfs_path && e->world && e->vfs, ZE_ERR_INVALID_ARG);
    ze_byte_writer_t out = {.alloc = e->alloc};
    ze_result r = ze_scene_save_json(e->world, &out); /* the world reports a bad state */
    if (r == ZE_OK)
        r = ze_vfs_write_file(e->vfs, vfs_path, out.data, out.size);
    if (r != ZE_OK && r != ZE_ERR_STATE)
        ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", vfs_path, "scene not saved: %s",
                ze_result_str(r));
    ze_byte_writer_free(&out);
    return r;
}
