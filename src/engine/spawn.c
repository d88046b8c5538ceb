/* Spawning from code: ze_engine_spawn instantiates a model's node hierarchy
 * or a prefab (a scene file used as a template) N times.
 *
 * An instance is a root entity (Transform = the spawn transform, Name = the
 * file's stem, Parent = desc.parent when given) with the template's
 * entities below it: the template's roots get the instance root as their
 * Parent, everything else keeps the template's own links and local
 * transforms, so the hierarchy under the root is the model's node for node.
 *
 * Templates: one per asset path, kept for the run (never freed before the
 * ecs stage ends, so a pointer to one may sit in a command buffer). A model's
 * template is its cook's node hierarchy, the `scene/0` sub-asset
 * (<stem>.scene.json, read from /cache); a prefab's, the scene file itself.
 * Either is loaded into a short-lived world of the kernel (capacity
 * 65,536: a bigger template fails to load, reported) and copied into an
 * ECS prefab (ze_prefab_create). The model's cameras lose is_main: a
 * spawned crate's lid camera is not the game's camera. A template is read
 * once per run: a model edited later (hot reload) spawns as it first was.
 *
 * Threads and timing. ze_engine_spawn with desc.cmds only records (a spawn
 * whose callback instantiates, and the root's components) and looks the
 * template up under a mutex: it is safe from any thread, e.g. a system of
 * a parallel wave with its t->cmds. The callback runs where the commands
 * are applied (the group's barrier, main thread): a template that is ready
 * is instantiated there, at once. One that is not (first use; its model
 * not cooked yet) is made ready by ze__spawn_tick (main loop step 9,
 * outside the kernel frame, where worlds may be created): the source is
 * registered and imported (Immediate) when needed, the template read, and
 * every instance waiting for it filled in (roots destroyed meanwhile are
 * skipped). A template that cannot be made (no such file, a failed import,
 * a model without nodes) is reported once, naming the asset and why, and
 * counts in unresolved_assets: the run fails. */
#include <string.h>

#include "engine/engine_internal.h"

enum { TEMPLATE_CAPACITY = 1 << 16 };

typedef enum template_state {
    TEMPLATE_NEW = 0, /* nothing tried yet */
    TEMPLATE_WAITING, /* its model imports */
    TEMPLATE_READY,
    TEMPLATE_FAILED, /* reported */
} template_state;

struct ze__spawn_template_t {
    ze_engine_t *engine;
    ze_path_t path;
    bool model;           /* a source to cook (else a scene file) */
    template_state state; /* main thread */
    ze_prefab_t *prefab;  /* READY */
    ze_array_t waiting;   /* ze_entity_t roots to fill in (main thread) */
    char name[ZE_NAME_MAX];
};

ze_result ze__spawn_init(ze_engine_t *e)
{
    ZE_ARRAY_INIT(&e->spawn.templates, e->alloc, ze__spawn_template_t *);
    if (pthread_mutex_init(&e->spawn.lock, NULL) != 0)
        return ZE_ERR_INTERNAL;
    e->spawn.ready = true;
    return ZE_OK;
}

void ze__spawn_fini(ze_engine_t *e)
{
    if (!e->spawn.ready)
        return;
    for (uint32_t i = 0; i < e->spawn.templates.count; i++) {
        ze__spawn_template_t *t = ZE_ARRAY_AT(&e->spawn.templates, ze__spawn_template_t *, i);
        ze_prefab_destroy(t->prefab);
        ze_array_free(&t->waiting);
        ze_free(e->alloc, t, sizeof *t);
    }
    ze_array_free(&e->spawn.templates);
    pthread_mutex_destroy(&e->spawn.lock);
    e->spawn.ready = false;
}

/* The template of `path`, made (state NEW) on first sight. Any thread. */
static ze__spawn_template_t *template_of(ze_engine_t *e, const ze_path_t *path)
{
    ze__spawn_template_t *found = NULL;
    pthread_mutex_lock(&e->spawn.lock);
    for (uint32_t i = 0; i < e->spawn.templates.count && !found; i++) {
        ze__spawn_template_t *t = ZE_ARRAY_AT(&e->spawn.templates, ze__spawn_template_t *, i);
        if (strcmp(t->path.str, path->str) == 0)
            found = t;
    }
    if (!found && (found = ZE_NEW(e->alloc, ze__spawn_template_t))) {
        memset(found, 0, sizeof *found);
        found->engine = e;
        found->path = *path;
        found->model = ze_asset_importer_for(path->str) != NULL;
        ZE_ARRAY_INIT(&found->waiting, e->alloc, ze_entity_t);
        /* the root's name: the file's stem */
        const char *base = strrchr(path->str, '/');
        base = base ? base + 1 : path->str;
        size_t n = strcspn(base, ".");
        snprintf(found->name, sizeof found->name, "%.*s", (int)(n ? n : strlen(base)), base);
        if (ze_array_push(&e->spawn.templates, &found) != ZE_OK) {
            ze_free(e->alloc, found, sizeof *found);
            found = NULL;
        }
    }
    pthread_mutex_unlock(&e->spawn.lock);
    return found;
}

static void template_failed(ze_engine_t *e, ze__spawn_template_t *t, ze_result r, const char *why)
{
    t->state = TEMPLATE_FAILED;
    ze_array_clear(&t->waiting);
    ze__asset_refs_report(e, t->path.str, "cannot be spawned (ze_engine_spawn)", r, why);
}

/* A template from scene JSON: a short-lived world, then a prefab. */
static ze_result template_build(ze_engine_t *e, ze__spawn_template_t *t, const char *json,
                                size_t len)
{
    char wname[64];
    snprintf(wname, sizeof wname, "template %.50s", t->name);
    ze_world_t *w = ze_world_create(
        e->kernel, &(ze_world_desc_t){.name = wname, .capacity = TEMPLATE_CAPACITY});
    if (!w)
        return ZE_ERR_OUT_OF_MEMORY;
    ze_result r = ze_scene_load_json(w, json, len, NULL); /* problems reported by the world */
    if (r == ZE_OK && t->model) {
        /* a model's cameras are not the game's main camera */
        ze_query_t q = ze_query_create(
            w, &(ze_query_desc_t){.with = ZE_MASK(ze_camera_t), .write = ZE_MASK(ze_camera_t)});
        ze_iter_t it = ze_query_iter(w, q);
        while (ze_query_next(&it)) {
            ze_camera_t *c = ze_field(&it, ze_camera_t);
            for (uint32_t i = 0; i < it.count; i++)
                c[i].is_main = false;
        }
    }
    if (r == ZE_OK)
        r = ze_prefab_create(w, &t->prefab);
    ze_world_destroy(w);
    return r;
}

/* Main thread, outside the kernel frame: move a template on as far as it
 * goes now (NEW or WAITING -> READY, WAITING or FAILED). */
static void template_load(ze_engine_t *e, ze__spawn_template_t *t)
{
    if (t->state == TEMPLATE_READY || t->state == TEMPLATE_FAILED)
        return;
    char why[600];
    ze_path_t file = t->path;
    if (t->model) {
        if (!e->registry || !e->imports) {
            template_failed(e, t, ZE_ERR_STATE,
                            "imports are off (the project has no writable /cache): a model "
                            "cannot be cooked");
            return;
        }
        ze_uuid_t source;
        ze_result r = ze_import_register(e->imports, t->path.str, &source);
        if (r != ZE_OK) {
            snprintf(why, sizeof why, "%s",
                     r == ZE_ERR_NOT_FOUND ? "no such file in the project" : ze_result_str(r));
            template_failed(e, t, r, why);
            return;
        }
        ze_asset_info_t src, scene;
        ze_asset_registry_get(e->registry, source, &src);
        if (src.state == ZE_ASSET_STATE_FAILED) {
            snprintf(why, sizeof why, "its import failed: %.400s", src.reason);
            template_failed(e, t, ZE_ERR_IO, why);
            return;
        }
        if (src.state != ZE_ASSET_STATE_LOADED && src.state != ZE_ASSET_STATE_STALE) {
            if (t->state == TEMPLATE_NEW || src.state == ZE_ASSET_STATE_UNKNOWN)
                (void)ze_import_request(e->imports, t->path.str, ZE_IMPORT_IMMEDIATE, false, NULL);
            t->state = TEMPLATE_WAITING;
            return;
        }
        ze_uuid_t su = ze_asset_sub_asset_uuid(source, "scene/0");
        if (!ze_asset_registry_get(e->registry, su, &scene)) {
            template_failed(e, t, ZE_ERR_NOT_FOUND,
                            "the model has no node hierarchy (its cook made no scene/0)");
            return;
        }
        if (ze_path_make(scene.path, &file) != ZE_OK) {
            template_failed(e, t, ZE_ERR_INTERNAL, "bad artifact path");
            return;
        }
    }
    ze_vfs_buffer_t buf = {0};
    ze_result r = ze_vfs_read_file(e->vfs, file.str, e->alloc, &buf);
    if (r == ZE_OK)
        r = template_build(e, t, (const char *)buf.data, buf.size);
    ze_vfs_buffer_free(&buf);
    if (r != ZE_OK) {
        snprintf(why, sizeof why, "%s %.300s: %s", t->model ? "its node hierarchy" : "the scene",
                 file.str, r == ZE_ERR_NOT_FOUND ? "no such file" : ze_result_str(r));
        template_failed(e, t, r, why);
        return;
    }
    t->state = TEMPLATE_READY;
}

/* The template's entities under `root`. */
static void fill(ze_engine_t *e, ze__spawn_template_t *t, ze_world_t *w, ze_entity_t root)
{
    if (!ze_entity_alive(w, root))
        return; /* destroyed before its template was ready */
    ze_result r = ze_prefab_instantiate(w, t->prefab, root, NULL);
    if (r == ZE_ERR_STATE) /* applied inside an iteration: later */
        (void)ze_array_push(&t->waiting, &root);
    else if (r != ZE_OK)
        ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", t->path.str,
                "spawn: the instance's entities were not created (%s)", ze_result_str(r));
}

/* A recorded spawn applies (main thread, where the commands are flushed). */
static void on_spawned(ze_world_t *w, ze_entity_t root, void *user)
{
    ze__spawn_template_t *t = user;
    ze_engine_t *e = t->engine;
    if (t->state == TEMPLATE_READY)
        fill(e, t, w, root);
    else if (t->state != TEMPLATE_FAILED && ze_array_push(&t->waiting, &root) == ZE_OK)
        e->spawn.pending = true;
}

/* The i-th template, or NULL past the end: under the lock, since a thread
 * recording a spawn may grow the list meanwhile (entries never move). */
static ze__spawn_template_t *template_at(ze_engine_t *e, uint32_t i)
{
    pthread_mutex_lock(&e->spawn.lock);
    ze__spawn_template_t *t = i < e->spawn.templates.count
                                  ? ZE_ARRAY_AT(&e->spawn.templates, ze__spawn_template_t *, i)
                                  : NULL;
    pthread_mutex_unlock(&e->spawn.lock);
    return t;
}

void ze__spawn_tick(ze_engine_t *e)
{
    if (!e->spawn.ready || !e->spawn.pending)
        return;
    bool more = false, filled = false;
    ze__spawn_template_t *t;
    for (uint32_t i = 0; (t = template_at(e, i)) != NULL; i++) {
        if (!t->waiting.count)
            continue;
        template_load(e, t);
        if (t->state != TEMPLATE_READY) {
            more = more || t->waiting.count > 0;
            continue;
        }
        /* fill() may put a root back (inside an iteration): take the list */
        ze_array_t roots = t->waiting;
        ZE_ARRAY_INIT(&t->waiting, e->alloc, ze_entity_t);
        for (uint32_t k = 0; k < roots.count; k++)
            fill(e, t, e->world, ZE_ARRAY_AT(&roots, ze_entity_t, k));
        ze_array_free(&roots);
        filled = true;
        more = more || t->waiting.count > 0;
    }
    e->spawn.pending = more;
    if (filled) {
        /* world matrices and render proxies for the new entities now */
        ze_hierarchy_update(e->world);
        (void)ze__scene_reconcile(e);
    }
}

bool ze__spawn_busy(const ze_engine_t *e)
{
    return e->spawn.ready && e->spawn.pending;
}

ze_result ze_engine_spawn(ze_engine_t *e, const ze_spawn_desc_t *desc)
{
    ZE_CHECK(e && desc && desc->asset && e->world && e->spawn.ready, ZE_ERR_INVALID_ARG);
    ze_path_t path;
    ze_result r = ze_path_make(desc->asset, &path);
    if (r != ZE_OK)
        return ze_diag(&e->diag, ZE_LOG_ERROR, r, "engine", desc->asset,
                       "ze_engine_spawn: not a project path (%s)", ze_result_str(r));
    ze__spawn_template_t *t = template_of(e, &path);
    if (!t)
        return ZE_ERR_OUT_OF_MEMORY;
    uint32_t count = desc->count ? desc->count : 1;
    ze_transform_t identity = ze_transform_identity();
    ze_world_t *w = e->world;
    if (!desc->cmds && !e->in_kernel_frame && t->state != TEMPLATE_READY)
        template_load(e, t); /* now, when nothing else runs */
    for (uint32_t i = 0; i < count; i++) {
        ze_transform_t tr = desc->transforms  ? desc->transforms[i]
                            : desc->transform ? *desc->transform
                                              : identity;
        tr.previous_position = tr.position; /* no interpolation from the origin */
        ze_name_t name;
        snprintf(name.value, sizeof name.value, "%s", t->name);
        ze_entity_t root;
        if (desc->cmds) {
            root = ze_cmd_spawn(desc->cmds, on_spawned, t);
            if (ze_entity_is_null(root))
                return ZE_ERR_OUT_OF_MEMORY;
            r = ze_cmd_set(desc->cmds, root, ZE_ID(ze_transform_t), &tr);
            if (r == ZE_OK)
                r = ze_cmd_set(desc->cmds, root, ZE_ID(ze_name_t), &name);
            if (r == ZE_OK && !ze_entity_is_null(desc->parent))
                r = ze_cmd_set_t(desc->cmds, root, ze_parent_t, {desc->parent});
        } else {
            root = ze_entity_create(w);
            if (ze_entity_is_null(root)) /* full, or refused (a parallel wave): the world said */
                return ZE_ERR_STATE;
            r = ze_component_set(w, root, ZE_ID(ze_transform_t), &tr);
            if (r == ZE_OK)
                r = ze_component_set(w, root, ZE_ID(ze_name_t), &name);
            if (r == ZE_OK && !ze_entity_is_null(desc->parent))
                r = ze_set(w, root, ze_parent_t, {desc->parent});
            if (r == ZE_OK)
                on_spawned(w, root, t);
        }
        if (r != ZE_OK)
            return r;
        if (desc->roots)
            desc->roots[i] = root;
    }
    return ZE_OK;
}
