/* The AssetManager: loads cooked artifacts, counts references, evicts
 * unreferenced data under its budget, announces every (re)load.
 *
 * A load reads the whole artifact on a pool job into the Asset owner's heap
 * and validates it with our checked readers there (checksums cost time);
 * the result comes back through the MainThreadScheduler, where the entry
 * takes the new bytes, the registry says LOADED and on_asset_ready runs.
 * Reloads follow the registry: when a source becomes LOADED again (a
 * re-import), every sub-asset held is read again; when a re-import fails,
 * the sub-assets go back from STALE to the data they still have.
 * Announcements follow the references: on_asset_ready when data arrives
 * for an asset somebody holds (or when an acquire takes a cached one from
 * 0 references to 1), on_asset_released when the last reference to an
 * announced asset goes, so a consumer's copies (the renderer's GPU
 * resources) live exactly as long as somebody uses the asset. */
#include <jansson.h>
#include <stdio.h>

#include "asset/asset_internal.h"
#include "asset/runtime_internal.h"

typedef struct am_entry_t {
    ze_uuid_t uuid;
    uint32_t refs;
    bool loading; /* a load is in flight */
    bool again;   /* a newer artifact arrived while it was in flight */
    bool has_data;
    bool waiting;      /* for its source's import */
    bool announced;    /* on_asset_ready ran and no on_asset_released since */
    uint64_t released; /* tick of the last release (eviction order) */
    ze_asset_data_t data;
    uint8_t *bytes;
    size_t capacity; /* bytes allocated (the buffer's size + 1) */
} am_entry_t;

typedef struct load_t {
    ze_asset_manager_t *am;
    ze_uuid_t uuid;
    ze_asset_type type;
    ze_path_t path;
    ze_result rc;
    char reason[ZE_PATH_CAPACITY + ZE__ASSET_ERROR_MAX + 8];
    ze_asset_data_t data;
    ze_vfs_buffer_t buf;
} load_t;

struct ze_asset_manager_t {
    ze_asset_manager_desc_t desc;
    ze_allocator_t alloc; /* bookkeeping and loaded bytes: the Asset owner */
    ze_main_scheduler_t *own_scheduler;
    ze_main_scheduler_t *scheduler;
    ze_hashmap_t entries; /* uuid -> am_entry_t * */
    ze_wait_group_t wg;
    uint32_t in_flight;
    uint64_t ticks;
    ze_asset_manager_stats_t stats;
};

static am_entry_t *find(const ze_asset_manager_t *am, ze_uuid_t u)
{
    am_entry_t **e = ze_hashmap_get(&am->entries, &u);
    return e ? *e : NULL;
}

/* ------------------------------------------------------------ loading */

static ze_result validate(load_t *l)
{
    ze__asset_error_t err = {{0}};
    ze_result r = ZE_OK;
    const void *d = l->buf.data;
    size_t n = l->buf.size;
    switch (l->type) {
    case ZE_ASSET_TYPE_MESH:
        r = ze__asset_zemesh_read(d, n, &l->data.as.mesh, &err);
        break;
    case ZE_ASSET_TYPE_MATERIAL:
        r = ze__asset_zematerial_read(d, n, &l->data.as.material, &err);
        break;
    case ZE_ASSET_TYPE_TEXTURE:
        r = ze__asset_zetex_read(d, n, &l->data.as.texture, &err);
        break;
    case ZE_ASSET_TYPE_ENVMAP:
        r = ze__asset_zenvmap_read(d, n, &l->data.as.texture, &err);
        break;
    case ZE_ASSET_TYPE_SCENE: {
        json_error_t je;
        json_t *root = json_loadb((const char *)d, n, JSON_REJECT_DUPLICATES, &je);
        const char *fmt = root ? json_string_value(json_object_get(root, "format")) : NULL;
        if (!fmt || strcmp(fmt, "zengine.scene") != 0) {
            snprintf(err.message, sizeof err.message, "not a zengine scene file%s%s",
                     root ? "" : ": ", root ? "" : je.text);
            r = ZE_ERR_PARSE;
        }
        json_decref(root);
        l->data.as.scene.json = (const char *)d;
        l->data.as.scene.size = n;
        break;
    }
    default:
        snprintf(err.message, sizeof err.message, "%s assets are not loadable",
                 ze_asset_type_name(l->type));
        r = ZE_ERR_UNSUPPORTED;
    }
    if (r != ZE_OK)
        snprintf(l->reason, sizeof l->reason, "%.*s: %s", (int)l->path.len, l->path.str,
                 err.message[0] ? err.message : ze_result_str(r));
    return r;
}

static void load_done(void *ctx);

static void load_job(void *ctx)
{
    load_t *l = ctx;
    ze_result ve = ze_vfs_read_file(l->am->desc.vfs, l->path.str, l->am->alloc, &l->buf);
    if (ve != ZE_OK) {
        l->rc = ve;
        snprintf(l->reason, sizeof l->reason, "%.*s: %s", (int)l->path.len, l->path.str,
                 ze_result_str(ve));
    } else {
        l->rc = validate(l);
    }
    if (ze_main_scheduler_post(l->am->scheduler, load_done, l) != ZE_OK) {
        /* the ring is full: spin until the main thread makes room */
        while (ze_main_scheduler_post(l->am->scheduler, load_done, l) != ZE_OK)
            ze_time_sleep_ns(1000000);
    }
}

static void free_bytes(ze_asset_manager_t *am, am_entry_t *e)
{
    if (e->bytes) {
        ze_free(am->alloc, e->bytes, e->capacity);
        am->stats.bytes -= e->capacity;
        am->stats.loaded--;
    }
    e->bytes = NULL;
    e->capacity = 0;
    e->has_data = false;
}

static void evict(ze_asset_manager_t *am, uint64_t need);

static void start_load(ze_asset_manager_t *am, am_entry_t *e)
{
    if (e->loading) {
        e->again = true;
        return;
    }
    ze_asset_info_t info;
    if (!ze_asset_registry_get(am->desc.registry, e->uuid, &info))
        return;
    load_t *l = ZE_NEW(am->alloc, load_t);
    if (!l) {
        (void)ze_asset_registry_set_state(am->desc.registry, e->uuid, ZE_ASSET_STATE_FAILED,
                                          "out of memory");
        return;
    }
    memset(l, 0, sizeof *l);
    l->am = am;
    l->uuid = e->uuid;
    l->type = info.type;
    (void)ze_path_make(info.path, &l->path);
    l->data.uuid = e->uuid;
    l->data.type = info.type;
    e->loading = true;
    e->again = false;
    e->waiting = false;
    am->in_flight++;
    am->stats.pending++;
    if (am->desc.jobs)
        ze_job_submit(am->desc.jobs, load_job, l, &am->wg);
    else
        load_job(l);
}

static void load_done(void *ctx)
{
    load_t *l = ctx;
    ze_asset_manager_t *am = l->am;
    am->in_flight--;
    am->stats.pending--;
    am_entry_t *e = find(am, l->uuid);
    ze_asset_registry_t *reg = am->desc.registry;
    if (!e) {
        ze_vfs_buffer_free(&l->buf);
        ze_free(am->alloc, l, sizeof *l);
        return;
    }
    e->loading = false;
    if (e->again) {
        /* superseded by a newer import: read that one */
        ze_vfs_buffer_free(&l->buf);
        ze_free(am->alloc, l, sizeof *l);
        start_load(am, e);
        return;
    }
    if (l->rc != ZE_OK) {
        am->stats.load_failures++;
        ze_vfs_buffer_free(&l->buf);
        ze_asset_info_t info;
        ze_asset_registry_get(reg, l->uuid, &info);
        if (e->has_data) {
            /* keep what works; say why the new one did not load */
            ze_diag(&am->desc.diag, ZE_LOG_WARN, l->rc, "asset", "",
                    "reload failed, previous data stays: %s", l->reason);
            if (info.state == ZE_ASSET_STATE_STALE)
                (void)ze_asset_registry_set_state(reg, l->uuid, ZE_ASSET_STATE_LOADED, NULL);
        } else {
            ze_diag(&am->desc.diag, ZE_LOG_ERROR, l->rc, "asset", "", "load failed: %s", l->reason);
            (void)ze_asset_registry_set_state(reg, l->uuid, ZE_ASSET_STATE_FAILED, l->reason);
        }
        ze_free(am->alloc, l, sizeof *l);
        return;
    }
    bool reload = e->has_data;
    free_bytes(am, e);
    e->bytes = l->buf.data;
    e->capacity = l->buf.size + 1; /* ze_vfs_read_file adds a NUL */
    e->has_data = true;
    e->data = l->data;
    e->data.bytes = e->bytes;
    e->data.size = l->buf.size;
    am->stats.bytes += e->capacity;
    am->stats.loaded++;
    if (reload)
        am->stats.reloads++;
    else
        am->stats.loads++;
    ze_free(am->alloc, l, sizeof *l);
    ze_asset_info_t info;
    ze_asset_registry_get(reg, e->uuid, &info);
    (void)ze_asset_registry_set_state(reg, e->uuid, ZE_ASSET_STATE_LOADED, NULL);
    if (info.state == ZE_ASSET_STATE_STALE)
        ze__registry_bump_generation(reg, e->uuid); /* a reload is a new generation */
    ze_asset_registry_get(reg, e->uuid, &info);
    e->data.generation = info.generation;
    if (e->refs == 0)
        return; /* cached: announced when somebody acquires it */
    e->announced = true;
    if (am->desc.on_asset_ready)
        am->desc.on_asset_ready(am->desc.user, &e->data);
}

/* ---------------------------------------------------- registry listener */

static void on_state(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    ze_asset_manager_t *am = user;
    (void)old;
    if (info->type != ZE_ASSET_TYPE_SOURCE)
        return;
    if (info->state != ZE_ASSET_STATE_LOADED && info->state != ZE_ASSET_STATE_FAILED)
        return;
    ze_asset_registry_t *reg = am->desc.registry;
    uint32_t cursor = 0;
    const void *k;
    void *v;
    /* Gather first: loads may run synchronously and change the map. */
    ze_array_t todo;
    ZE_ARRAY_INIT(&todo, am->alloc, ze_uuid_t);
    while (ze_hashmap_next(&am->entries, &cursor, &k, &v)) {
        am_entry_t *e = *(am_entry_t **)v;
        ze_asset_info_t si;
        if (ze_asset_registry_get(reg, e->uuid, &si) && ze_uuid_eq(si.source, info->uuid))
            (void)ze_array_push(&todo, &e->uuid);
    }
    for (uint32_t i = 0; i < todo.count; i++) {
        ze_uuid_t u = *(ze_uuid_t *)ze_array_at(&todo, i);
        am_entry_t *e = find(am, u);
        if (!e)
            continue;
        ze_asset_info_t sub;
        if (info->state == ZE_ASSET_STATE_LOADED) {
            if (e->refs || e->has_data || e->waiting)
                start_load(am, e);
        } else if (e->has_data) {
            /* the re-import failed: the data in memory is still good */
            ze_asset_info_t si;
            if (ze_asset_registry_get(reg, u, &si) && si.state == ZE_ASSET_STATE_STALE)
                (void)ze_asset_registry_set_state(reg, u, ZE_ASSET_STATE_LOADED, NULL);
        } else if (e->waiting && ze_asset_registry_get(reg, u, &sub) &&
                   ze_vfs_exists(am->desc.vfs, sub.path)) {
            /* the re-import failed but the last good artifact is there */
            start_load(am, e);
        } else if (e->waiting) {
            e->waiting = false;
            char why[ZE_ASSET_REASON_MAX];
            snprintf(why, sizeof why, "import of %s failed: %s", info->path, info->reason);
            (void)ze_asset_registry_set_state(reg, u, ZE_ASSET_STATE_FAILED, why);
        }
    }
    ze_array_free(&todo);
    /* Sub-assets nobody holds: Stale means nothing for them any more. */
    ze_uuid_t subs[ZE_VFS_META_MAX_ARTIFACTS];
    uint32_t n = ze_asset_registry_sub_assets(reg, info->uuid, subs, ZE_COUNTOF(subs));
    for (uint32_t i = 0; i < ZE_MIN(n, (uint32_t)ZE_COUNTOF(subs)); i++) {
        ze_asset_info_t si;
        am_entry_t *e = find(am, subs[i]);
        if ((!e || (!e->has_data && !e->loading)) && ze_asset_registry_get(reg, subs[i], &si) &&
            si.state == ZE_ASSET_STATE_STALE)
            (void)ze_asset_registry_set_state(reg, subs[i], ZE_ASSET_STATE_UNKNOWN, NULL);
    }
}

/* ----------------------------------------------------------- lifecycle */

ze_result ze_asset_manager_create(const ze_asset_manager_desc_t *desc, ze_asset_manager_t **out)
{
    ZE_CHECK(desc && out && desc->mem && desc->vfs && desc->registry && desc->imports,
             ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_allocator_t a = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_ASSET);
    ze_asset_manager_t *am = ZE_NEW(a, ze_asset_manager_t);
    if (!am)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(am, 0, sizeof *am);
    am->desc = *desc;
    am->alloc = a;
    if (!am->desc.budget)
        am->desc.budget = ze_mem_owner_stats(desc->mem, ZE_MEM_OWNER_ASSET).budget / 4;
    ze_hashmap_init(&am->entries, a, sizeof(ze_uuid_t), sizeof(am_entry_t *));
    ze_wait_group_init(&am->wg);
    ze_result r = ZE_OK;
    am->scheduler = desc->scheduler;
    if (!am->scheduler) {
        r = ze_main_scheduler_create(
            &(ze_main_scheduler_desc_t){.mem = desc->mem, .owner = ZE_MEM_OWNER_ASSET},
            &am->own_scheduler);
        am->scheduler = am->own_scheduler;
    }
    if (r == ZE_OK)
        r = ze_asset_registry_listen(desc->registry, on_state, am);
    if (r != ZE_OK) {
        ze_asset_manager_destroy(am);
        return r;
    }
    *out = am;
    return ZE_OK;
}

void ze_asset_manager_destroy(ze_asset_manager_t *am)
{
    if (!am)
        return;
    ze_asset_registry_unlisten(am->desc.registry, on_state, am);
    if (am->desc.jobs)
        ze_job_wait(am->desc.jobs, &am->wg);
    /* Completions still queued would touch freed entries: run them now
       (entries are still here; their data replaces and is freed below). */
    if (am->scheduler)
        ze_main_scheduler_drain(am->scheduler);
    am->desc.on_asset_ready = NULL;
    uint32_t cursor = 0;
    const void *k;
    void *v;
    while (ze_hashmap_next(&am->entries, &cursor, &k, &v)) {
        am_entry_t *e = *(am_entry_t **)v;
        free_bytes(am, e);
        ze_free(am->alloc, e, sizeof *e);
    }
    ze_hashmap_free(&am->entries);
    ze_main_scheduler_destroy(am->own_scheduler);
    ze_free(am->alloc, am, sizeof *am);
}

/* ---------------------------------------------------------- references */

ze_result ze_asset_acquire(ze_asset_manager_t *am, ze_uuid_t uuid)
{
    ZE_CHECK(am, ZE_ERR_INVALID_ARG);
    ze_asset_info_t info;
    if (!ze_asset_registry_get(am->desc.registry, uuid, &info))
        return ZE_ERR_NOT_FOUND;
    if (info.type < ZE_ASSET_TYPE_MESH)
        return ZE_ERR_INVALID_ARG;
    am_entry_t *e = find(am, uuid);
    if (!e) {
        e = ZE_NEW(am->alloc, am_entry_t);
        if (!e)
            return ZE_ERR_OUT_OF_MEMORY;
        memset(e, 0, sizeof *e);
        e->uuid = uuid;
        if (ze_hashmap_put(&am->entries, &uuid, &e) != ZE_OK) {
            ze_free(am->alloc, e, sizeof *e);
            return ZE_ERR_OUT_OF_MEMORY;
        }
    }
    e->refs++;
    if (e->has_data && !e->announced) {
        /* cached data, released before (or loaded while nobody held it) */
        e->announced = true;
        if (am->desc.on_asset_ready)
            am->desc.on_asset_ready(am->desc.user, &e->data);
    }
    if (e->has_data || e->loading || e->waiting)
        return ZE_OK;
    ze_asset_info_t src;
    ze_asset_registry_get(am->desc.registry, info.source, &src);
    if (src.state == ZE_ASSET_STATE_QUEUED || src.state == ZE_ASSET_STATE_IMPORTING) {
        e->waiting = true;
    } else if (ze_vfs_exists(am->desc.vfs, info.path)) {
        start_load(am, e);
    } else {
        /* not cooked (or the cache was wiped): import first, now */
        e->waiting = true;
        ze_result r =
            ze_import_request(am->desc.imports, src.path, ZE_IMPORT_IMMEDIATE, true, NULL);
        if (r != ZE_OK) {
            e->waiting = false;
            (void)ze_asset_registry_set_state(am->desc.registry, uuid, ZE_ASSET_STATE_FAILED,
                                              "its source cannot be imported");
        }
    }
    return ZE_OK;
}

ze_result ze_asset_release(ze_asset_manager_t *am, ze_uuid_t uuid)
{
    ZE_CHECK(am, ZE_ERR_INVALID_ARG);
    am_entry_t *e = find(am, uuid);
    if (!e || e->refs == 0)
        return ZE_ERR_STATE;
    if (--e->refs == 0) {
        e->released = ++am->ticks;
        if (e->announced) {
            e->announced = false;
            am->stats.releases++;
            if (am->desc.on_asset_released)
                am->desc.on_asset_released(am->desc.user, uuid, e->data.type);
        }
    }
    return ZE_OK;
}

const ze_asset_data_t *ze_asset_get(const ze_asset_manager_t *am, ze_uuid_t uuid)
{
    const am_entry_t *e = am ? find(am, uuid) : NULL;
    return e && e->has_data ? &e->data : NULL;
}

uint32_t ze_asset_refcount(const ze_asset_manager_t *am, ze_uuid_t uuid)
{
    const am_entry_t *e = am ? find(am, uuid) : NULL;
    return e ? e->refs : 0;
}

/* ------------------------------------------------------------ eviction */

/* Drop unreferenced data, least recently released first, until the loaded
 * bytes plus `need` fit the budget. */
static void evict(ze_asset_manager_t *am, uint64_t need)
{
    while (am->stats.bytes + need > am->desc.budget) {
        am_entry_t *victim = NULL;
        uint32_t cursor = 0;
        const void *k;
        void *v;
        while (ze_hashmap_next(&am->entries, &cursor, &k, &v)) {
            am_entry_t *e = *(am_entry_t **)v;
            if (e->refs == 0 && e->has_data && !e->loading &&
                (!victim || e->released < victim->released))
                victim = e;
        }
        if (!victim)
            return;
        free_bytes(am, victim);
        am->stats.evictions++;
        ze_asset_info_t info;
        if (ze_asset_registry_get(am->desc.registry, victim->uuid, &info) &&
            info.state != ZE_ASSET_STATE_UNKNOWN)
            (void)ze_asset_registry_set_state(am->desc.registry, victim->uuid,
                                              ZE_ASSET_STATE_UNKNOWN, NULL);
        ze_hashmap_remove(&am->entries, &victim->uuid);
        ze_free(am->alloc, victim, sizeof *victim);
    }
}

uint32_t ze_asset_manager_tick(ze_asset_manager_t *am)
{
    if (!am)
        return 0;
    uint64_t before = am->stats.loads + am->stats.reloads;
    if (am->own_scheduler)
        ze_main_scheduler_drain(am->own_scheduler);
    evict(am, 0);
    return (uint32_t)(am->stats.loads + am->stats.reloads - before);
}

ze_result ze_asset_manager_wait(ze_asset_manager_t *am, uint32_t timeout_ms)
{
    ZE_CHECK(am, ZE_ERR_INVALID_ARG);
    uint64_t deadline = ze_time_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        ze_vfs_tick(am->desc.vfs);
        ze_import_coordinator_tick(am->desc.imports);
        if (!am->own_scheduler && am->scheduler)
            ze_main_scheduler_drain(am->scheduler);
        ze_asset_manager_tick(am);
        bool waiting = false;
        uint32_t cursor = 0;
        const void *k;
        void *v;
        while (!waiting && ze_hashmap_next(&am->entries, &cursor, &k, &v))
            waiting = (*(am_entry_t **)v)->waiting;
        if (am->in_flight == 0 && !waiting && ze_import_coordinator_idle(am->desc.imports))
            return ZE_OK;
        if (ze_time_now_ns() >= deadline)
            return ZE_ERR_TIMEOUT;
        ze_time_sleep_ns(2000000);
    }
}

ze_asset_manager_stats_t ze_asset_manager_stats(const ze_asset_manager_t *am)
{
    ze_asset_manager_stats_t s = {0};
    if (am)
        s = am->stats;
    return s;
}
