/* The ImportCoordinator: registration through `.meta` sidecars, a two-level
 * priority queue, imports in child `zengine cook` processes (or pool jobs),
 * completion on the main thread, hot reload from watcher events.
 *
 * Why the main-thread tick does all bookkeeping: the registry and the VFS
 * mount table belong to the main thread, and a child is watched by polling
 * its pidfd, which costs a syscall, not a blocked worker. Each import cooks
 * into a fresh folder /cache/artifacts/<source uuid>/<sequence>/, so the
 * artifacts in use are never overwritten under a reader; the folder of the
 * previous import is deleted once the new one is recorded. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "asset/asset_internal.h"
#include "asset/child.h"
#include "asset/import_check.h"
#include "asset/runtime_internal.h"

typedef struct import_t {
    ze_uuid_t source;
    ze_path_t path;    /* VFS path of the source */
    ze_path_t out_dir; /* VFS folder of this import's artifacts */
    char importer[16];
    ze__child_t *child; /* child mode, while running */
    /* in-process mode: filled by the job, read on the main thread */
    ze_cook_result_t cook;
    ze_result cook_rc;
    ze_diag_capture_t cook_diag; /* an in-process cook's failure */
    char *settings;              /* the meta's settings text at the start (NULL = {}) */
    size_t settings_len;
    uint64_t settings_hash; /* their identity, recorded with the artifacts */
    char host_source[PATH_MAX];
    char host_out[PATH_MAX];
    ze_import_coordinator_t *owner;
    bool rerun; /* the source changed while it was being cooked */
} import_t;

typedef struct outcome_t {
    bool ok;
    bool crashed, timed_out;
    char reason[ZE__ASSET_ERROR_MAX];
    uint32_t count;
    const char **artifacts; /* file names in out_dir */
    ze_uuid_t *uuids;
    ze_asset_type *types;
    uint32_t dep_count;
    const char **deps;
    uint64_t source_hash; /* of the bytes the cooker read; 0 = unknown */
    uint64_t *dep_hashes; /* one per dependency; 0 = unknown (an older cooker) */
    uint32_t warn_count;
    const char **warnings; /* what the cook left out (a missing texture...) */
    ze__astore_t store;
} outcome_t;

struct ze_import_coordinator_t {
    ze_import_coordinator_desc_t desc;
    ze_allocator_t alloc;
    ze_main_scheduler_t *own_scheduler;
    ze_main_scheduler_t *scheduler;
    ze_array_t queue[2]; /* of ze_uuid_t, per priority (FIFO) */
    ze_array_t running;  /* of import_t * */
    ze_hashmap_t queued; /* uuid -> uint8_t priority */
    char cooker[PATH_MAX];
    uint64_t sequence;
    ze_vfs_subscription_t sub;
    bool subscribed;
    ze_wait_group_t jobs_wg; /* in-process cooks and start-up checks in flight */
    ze_import_stats_t stats;
    /* Start-up checks: the batch being filled, the batches in flight (of
       ze__check_batch_t *), and uuid -> the priority asked meanwhile
       (CHECK_NO_REQUEST: only registered). A verdict is applied only while
       its source is still in `checking`. */
    ze__check_batch_t *filling;
    ze_array_t checks;
    ze_hashmap_t checking;
    /* ze_import_offer: files (of ze_path_t) waiting for every check and
       import to end, to be imported only if no source depends on them */
    ze_array_t offers;
    uint32_t discovering;     /* ze_import_discover items not applied yet */
    uint64_t checks_reported; /* verdicts counted in the last "checks done" line */
};

enum { CHECK_NO_REQUEST = 0xff };
/* Main-thread time a tick spends applying verdicts (they cost registry
   updates, not I/O): the rest waits for the next frame. */
#define CHECK_APPLY_BUDGET_NS 500000u

/* ------------------------------------------------------------ helpers */

static ze_uuid_t file_uuid(const char *vfs_path)
{
    char label[ZE_PATH_CAPACITY + 8];
    int n = snprintf(label, sizeof label, "file:%s", vfs_path);
    return ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, label, ZE_MIN((size_t)n, sizeof label - 1));
}

static bool is_queued(const ze_import_coordinator_t *ic, ze_uuid_t u)
{
    return ze_hashmap_get(&ic->queued, &u) != NULL;
}

static import_t *find_running(const ze_import_coordinator_t *ic, ze_uuid_t u)
{
    for (uint32_t i = 0; i < ic->running.count; i++) {
        import_t *im = *(import_t **)ze_array_at(&ic->running, i);
        if (ze_uuid_eq(im->source, u))
            return im;
    }
    return NULL;
}

static void queue_remove(ze_import_coordinator_t *ic, ze_uuid_t u)
{
    for (int p = 0; p < 2; p++)
        for (uint32_t i = 0; i < ic->queue[p].count; i++)
            if (ze_uuid_eq(*(ze_uuid_t *)ze_array_at(&ic->queue[p], i), u)) {
                ze_array_remove_ordered(&ic->queue[p], i);
                break;
            }
    ze_hashmap_remove(&ic->queued, &u);
}

static ze_result enqueue(ze_import_coordinator_t *ic, ze_uuid_t u, ze_import_priority prio)
{
    uint8_t *have = ze_hashmap_get(&ic->queued, &u);
    if (have) {
        if (*have >= (uint8_t)prio)
            return ZE_OK;
        queue_remove(ic, u); /* moves up to Immediate */
    }
    uint8_t p = (uint8_t)prio;
    ZE__TRY(ze_array_push(&ic->queue[p], &u));
    if (ze_hashmap_put(&ic->queued, &u, &p) != ZE_OK) {
        ze_array_pop(&ic->queue[p], NULL);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    ze_asset_info_t info;
    if (ze_asset_registry_get(ic->desc.registry, u, &info) && info.state != ZE_ASSET_STATE_QUEUED)
        (void)ze_asset_registry_set_state(ic->desc.registry, u, ZE_ASSET_STATE_QUEUED, NULL);
    ic->stats.requested++;
    return ZE_OK;
}

/* --------------------------------------------------- registry listener */

/* A source marked Stale (by the watcher or by anyone) is re-imported. */
static void on_state(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    ze_import_coordinator_t *ic = user;
    (void)old;
    if (info->type != ZE_ASSET_TYPE_SOURCE || info->state != ZE_ASSET_STATE_STALE)
        return;
    import_t *im = find_running(ic, info->uuid);
    if (im) {
        im->rerun = true;
        return;
    }
    if (is_queued(ic, info->uuid)) {
        /* still waiting: it will read the new content anyway */
        (void)ze_asset_registry_set_state(ic->desc.registry, info->uuid, ZE_ASSET_STATE_QUEUED,
                                          NULL);
        return;
    }
    ze_uuid_t u = info->uuid;
    if (enqueue(ic, u, ZE_IMPORT_BACKGROUND) != ZE_OK)
        ze_diag(&ic->desc.diag, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY, "asset", info->path,
                "re-import not queued: out of memory");
}

/* ------------------------------------------------------ watcher events */

/* "X.meta" of a registered source changed (an edited setting): cooked again
 * when its settings' identity is not the one its artifacts were cooked with
 * (the coordinator's own sidecar writes keep it equal). true: it was a
 * sidecar. */
static bool meta_event(ze_import_coordinator_t *ic, const ze_path_t *p)
{
    static const char suffix[] = ".meta";
    size_t n = sizeof suffix - 1;
    if (p->len <= n || memcmp(p->str + p->len - n, suffix, n) != 0)
        return false;
    ze_path_t src;
    ze_uuid_t u;
    ze_asset_info_t info;
    if (ze_path_from(p->str, p->len - n, &src) != ZE_OK ||
        !ze_asset_registry_find_path(ic->desc.registry, src.str, &u) ||
        !ze_asset_registry_get(ic->desc.registry, u, &info) || info.type != ZE_ASSET_TYPE_SOURCE)
        return true;
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, ic->alloc);
    if (ze_vfs_meta_read(ic->desc.vfs, src.str, &m) == ZE_OK) {
        ze_import_settings_t st;
        ze_diag_capture_t quiet = {0};
        ze_diag_sink_t sink = ze_diag_capture_sink(&quiet);
        const char *imp = ze_asset_importer_for(src.str);
        bool valid =
            ze_import_settings_parse(m.settings, m.settings_len, imp, &st, src.str, &sink) == ZE_OK;
        /* invalid: the import reports it, naming the key, and fails */
        if ((!valid || ze_import_settings_hash(&st) != m.settings_hash) && !find_running(ic, u))
            ze_asset_registry_mark_stale(ic->desc.registry, u);
    }
    ze_vfs_meta_free(&m);
    return true;
}

static void on_vfs_event(void *user, const ze_vfs_event_t *ev)
{
    ze_import_coordinator_t *ic = user;
    ze_asset_registry_t *reg = ic->desc.registry;
    if (ev->is_dir && ev->kind != ZE_VFS_EVENT_RESCAN)
        return;
    ze_uuid_t u;
    if ((ev->kind == ZE_VFS_EVENT_CREATED || ev->kind == ZE_VFS_EVENT_MODIFIED) &&
        meta_event(ic, ev->path))
        return;
    switch (ev->kind) {
    case ZE_VFS_EVENT_CREATED:
    case ZE_VFS_EVENT_MODIFIED:
        if (ze_asset_registry_find_path(reg, ev->path->str, &u)) {
            ze_asset_info_t info;
            ze_asset_registry_get(reg, u, &info);
            if (info.type == ZE_ASSET_TYPE_SOURCE || info.type == ZE_ASSET_TYPE_FILE)
                ze_asset_registry_mark_stale(reg, u);
        }
        break;
    case ZE_VFS_EVENT_DELETED:
        if (ze_asset_registry_find_path(reg, ev->path->str, &u)) {
            ze_asset_info_t info;
            ze_asset_registry_get(reg, u, &info);
            if (info.type == ZE_ASSET_TYPE_SOURCE && !find_running(ic, u)) {
                queue_remove(ic, u);
                (void)ze_asset_registry_set_state(reg, u, ZE_ASSET_STATE_FAILED,
                                                  "source deleted; the previous artifacts stay "
                                                  "in use");
                ze_diag(&ic->desc.diag, ZE_LOG_WARN, ZE_OK, "asset", ev->path->str,
                        "source deleted; its cooked data stays in use");
            }
        }
        break;
    case ZE_VFS_EVENT_RENAMED:
        if (ev->old_path && ze_asset_registry_find_path(reg, ev->old_path->str, &u)) {
            ze_asset_info_t info;
            ze_asset_registry_get(reg, u, &info);
            /* the uuid stays; what read the file by its old name is cooked
               again (and records the new name, or fails keeping its data) */
            (void)ze_asset_registry_put(reg, u, info.type, info.source, ev->path->str);
            if (info.type == ZE_ASSET_TYPE_FILE)
                ze_asset_registry_mark_stale(reg, u);
        }
        break;
    case ZE_VFS_EVENT_RESCAN: {
        /* changes were lost: every source below the path may be stale */
        ze_array_t list;
        ZE_ARRAY_INIT(&list, ic->alloc, ze_uuid_t);
        ze__registry_sources_within(reg, ev->path, &list);
        for (uint32_t i = 0; i < list.count; i++)
            ze_asset_registry_mark_stale(reg, *(ze_uuid_t *)ze_array_at(&list, i));
        ze_array_free(&list);
        break;
    }
    }
}

/* ----------------------------------------------------------- lifecycle */

static void default_cooker(char *out, size_t cap)
{
    const char *env = getenv("ZENGINE_COOKER");
    if (env && env[0]) {
        snprintf(out, cap, "%s", env);
        return;
    }
    if (ze_path_beside_executable("zengine", out, cap) && access(out, X_OK) == 0)
        return;
    char installed[PATH_MAX];
    if (ze_path_installed("bin", "zengine", installed, sizeof installed) &&
        access(installed, X_OK) == 0) {
        snprintf(out, cap, "%s", installed);
        return;
    }
    if (!ze_path_beside_executable("zengine", out, cap))
        snprintf(out, cap, "zengine"); /* cannot be named: let exec fail clearly */
}

ze_result ze_import_coordinator_create(const ze_import_coordinator_desc_t *desc,
                                       ze_import_coordinator_t **out)
{
    ZE_CHECK(desc && out && desc->mem && desc->vfs && desc->registry, ZE_ERR_INVALID_ARG);
    if (desc->mode == ZE_IMPORT_IN_PROCESS && !desc->in_process_cook) {
        ze_diag(&desc->diag, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG, "asset", "import coordinator",
                "in-process imports need desc.in_process_cook (ze_asset_cook of zengine::cook)");
        return ZE_ERR_INVALID_ARG;
    }
    *out = NULL;
    if (!ze_vfs_cache_enabled(desc->vfs)) {
        ze_diag(&desc->diag, ZE_LOG_ERROR, ZE_ERR_STATE, "asset", "import coordinator",
                "imports need a writable /cache");
        return ZE_ERR_STATE;
    }
    ze_allocator_t a = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_IMPORT);
    ze_import_coordinator_t *ic = ZE_NEW(a, ze_import_coordinator_t);
    if (!ic)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(ic, 0, sizeof *ic);
    ic->desc = *desc;
    ic->alloc = a;
    if (!ic->desc.memory_limit)
        ic->desc.memory_limit = 2ull << 30;
    if (!ic->desc.cpu_seconds)
        ic->desc.cpu_seconds = 60;
    if (!ic->desc.timeout_ms)
        ic->desc.timeout_ms = 30000;
    if (!ic->desc.max_running)
        ic->desc.max_running = desc->jobs ? ZE_MAX(1u, ze_job_worker_count(desc->jobs)) : 1u;
    if (desc->cooker)
        snprintf(ic->cooker, sizeof ic->cooker, "%s", desc->cooker);
    else
        default_cooker(ic->cooker, sizeof ic->cooker);
    ic->desc.cooker = ic->cooker;
    for (int p = 0; p < 2; p++)
        ZE_ARRAY_INIT(&ic->queue[p], a, ze_uuid_t);
    ZE_ARRAY_INIT(&ic->running, a, import_t *);
    ze_hashmap_init(&ic->queued, a, sizeof(ze_uuid_t), sizeof(uint8_t));
    ZE_ARRAY_INIT(&ic->checks, a, ze__check_batch_t *);
    ze_hashmap_init(&ic->checking, a, sizeof(ze_uuid_t), sizeof(uint8_t));
    ZE_ARRAY_INIT(&ic->offers, a, ze_path_t);
    ic->sequence = (uint64_t)time(NULL) * 1000u;
    ze_wait_group_init(&ic->jobs_wg);
    ze_result r = ZE_OK;
    ic->scheduler = desc->scheduler;
    if (!ic->scheduler) {
        r = ze_main_scheduler_create(
            &(ze_main_scheduler_desc_t){.mem = desc->mem, .owner = ZE_MEM_OWNER_IMPORT},
            &ic->own_scheduler);
        ic->scheduler = ic->own_scheduler;
    }
    if (r == ZE_OK)
        r = ze_asset_registry_listen(desc->registry, on_state, ic);
    if (r == ZE_OK && desc->watch) {
        ze_result e = ze_vfs_subscribe(desc->vfs, on_vfs_event, ic, &ic->sub);
        r = e;
        ic->subscribed = e == ZE_OK;
    }
    if (r != ZE_OK) {
        ze_import_coordinator_destroy(ic);
        return r;
    }
    *out = ic;
    return ZE_OK;
}

static void import_free(ze_import_coordinator_t *ic, import_t *im)
{
    ze__child_destroy(im->child);
    ze_asset_cook_result_release(&im->cook);
    if (im->settings)
        ze_free(ic->alloc, im->settings, im->settings_len + 1);
    ze_free(ic->alloc, im, sizeof *im);
}

static void batch_free(ze_import_coordinator_t *ic, ze__check_batch_t *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->count; i++)
        ze_vfs_meta_free(&b->items[i].meta);
    ze_free(ic->alloc, b, sizeof *b);
}

void ze_import_coordinator_destroy(ze_import_coordinator_t *ic)
{
    if (!ic)
        return;
    if (ic->subscribed)
        ze_vfs_unsubscribe(ic->desc.vfs, ic->sub);
    ze_asset_registry_unlisten(ic->desc.registry, on_state, ic);
    /* In-process jobs post their completion: wait for the jobs, then run
       the completions (which need the registry alive). Children are killed
       by import_free. */
    if (ic->desc.jobs)
        ze_job_wait(ic->desc.jobs, &ic->jobs_wg);
    if (ic->scheduler)
        ze_main_scheduler_drain(ic->scheduler);
    for (uint32_t i = 0; i < ic->running.count; i++)
        import_free(ic, *(import_t **)ze_array_at(&ic->running, i));
    ze_array_free(&ic->running);
    for (uint32_t i = 0; i < ic->checks.count; i++)
        batch_free(ic, *(ze__check_batch_t **)ze_array_at(&ic->checks, i));
    ze_array_free(&ic->checks);
    batch_free(ic, ic->filling);
    ze_hashmap_free(&ic->checking);
    ze_array_free(&ic->offers);
    for (int p = 0; p < 2; p++)
        ze_array_free(&ic->queue[p]);
    ze_hashmap_free(&ic->queued);
    ze_main_scheduler_destroy(ic->own_scheduler);
    ze_free(ic->alloc, ic, sizeof *ic);
}

/* --------------------------------------------------------- registration */

/* Register the sub-assets of a meta (artifacts and uuids in the same order)
 * with their edges to the source. */
static void register_sub_assets(ze_import_coordinator_t *ic, ze_uuid_t source,
                                const ze_vfs_meta_t *m)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    uint32_t n = ZE_MIN(m->artifacts.count, m->sub_assets.count);
    for (uint32_t i = 0; i < n; i++) {
        const ze_path_t *p = ze_array_at(&m->artifacts, i);
        ze_uuid_t u = *(ze_uuid_t *)ze_array_at(&m->sub_assets, i);
        ze_path_part_t name = ze_path_name(p);
        char buf[ZE_PATH_NAME_MAX + 1];
        snprintf(buf, sizeof buf, "%.*s", (int)name.len, name.ptr);
        ze_asset_type t = ze_asset_type_of_artifact(buf);
        if (t == ZE_ASSET_TYPE_UNKNOWN)
            continue;
        if (ze_asset_registry_put(reg, u, t, source, p->str) == ZE_OK)
            (void)ze_asset_registry_add_dependency(reg, u, source);
    }
}

/* ------------------------------------------------------ start-up checks */

static bool is_checking(const ze_import_coordinator_t *ic, ze_uuid_t u)
{
    return ze_hashmap_get(&ic->checking, &u) != NULL;
}

static void check_done(void *ctx)
{
    ze__check_batch_t *b = ctx;
    b->delivered = true; /* applied by the tick, under its budget */
}

static void check_job(void *ctx)
{
    ze__check_batch_t *b = ctx;
    ze__check_run(b);
    ze_import_coordinator_t *ic = b->owner;
    atomic_store_explicit(&b->done, true, memory_order_release);
    if (ze_main_scheduler_post(ic->scheduler, check_done, b) != ZE_OK)
        atomic_store_explicit(&b->post_failed, true, memory_order_release);
}

/* Send the batch being filled to the pool (inline without one). */
static void check_flush(ze_import_coordinator_t *ic)
{
    ze__check_batch_t *b = ic->filling;
    if (!b || !b->count)
        return;
    ic->filling = NULL;
    if (ze_array_push(&ic->checks, &b) != ZE_OK) {
        /* cannot track it: these sources are simply imported */
        for (uint32_t i = 0; i < b->count; i++) {
            if (b->items[i].discover)
                ic->discovering--;
            else if (ze_hashmap_remove(&ic->checking, &b->items[i].source))
                ic->stats.checking--;
        }
        batch_free(ic, b);
        return;
    }
    b->submitted = true;
    if (ic->desc.jobs) {
        ze_job_submit(ic->desc.jobs, check_job, b, &ic->jobs_wg);
    } else {
        ze__check_run(b);
        atomic_store_explicit(&b->done, true, memory_order_release);
        b->delivered = true;
    }
}

/* A batch with room for one more item. */
static ze_result batch_reserve(ze_import_coordinator_t *ic)
{
    if (ic->filling)
        return ZE_OK;
    ic->filling = ZE_NEW(ic->alloc, ze__check_batch_t);
    if (!ic->filling)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(ic->filling, 0, sizeof *ic->filling);
    ic->filling->vfs = ic->desc.vfs;
    ic->filling->alloc = ic->alloc;
    ic->filling->owner = ic;
    atomic_init(&ic->filling->done, false);
    atomic_init(&ic->filling->post_failed, false);
    return ZE_OK;
}

static ze_result check_add(ze_import_coordinator_t *ic, ze_uuid_t u, const ze_path_t *p,
                           const char *importer, ze_vfs_meta_t *m)
{
    ZE__TRY(batch_reserve(ic));
    uint8_t none = CHECK_NO_REQUEST;
    ZE__TRY(ze_hashmap_put(&ic->checking, &u, &none));
    ze__check_item_t *it = &ic->filling->items[ic->filling->count++];
    it->source = u;
    it->path = *p;
    snprintf(it->importer, sizeof it->importer, "%s", importer);
    it->meta = *m;
    ic->stats.checking++;
    if (ic->filling->count == ZE__CHECK_BATCH)
        check_flush(ic);
    return ZE_OK;
}

/* Dependency files of a source: registry entries, and the edges that make
   a change to one re-import the source. */
static void register_dependency(ze_import_coordinator_t *ic, ze_uuid_t source, const char *path)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_uuid_t du;
    if (!ze_asset_registry_find_path(reg, path, &du)) {
        du = file_uuid(path);
        if (ze_asset_registry_put(reg, du, ZE_ASSET_TYPE_FILE, du, path) != ZE_OK)
            return;
    }
    (void)ze_asset_registry_add_dependency(reg, source, du);
}

static void verdict_apply(ze_import_coordinator_t *ic, ze__check_item_t *it, uint8_t prio);

/* A discovery's verdict: the source is registered now, with the uuid its
 * sidecar holds, unless a call on this thread registered it meanwhile. */
static void discover_apply(ze_import_coordinator_t *ic, ze__check_item_t *it)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    ic->discovering--;
    ze_uuid_t u;
    ze_asset_info_t info;
    if (ze_asset_registry_find_path(reg, it->path.str, &u) &&
        ze_asset_registry_get(reg, u, &info) && info.type == ZE_ASSET_TYPE_SOURCE)
        return; /* registered (and checked) the usual way */
    if (!it->meta_ok || ze_uuid_is_nil(it->meta.uuid) ||
        (ze_asset_registry_get(reg, it->meta.uuid, &info) && info.type != ZE_ASSET_TYPE_SOURCE)) {
        /* no sidecar, a damaged one, a uuid taken: the usual way, which
           writes or repairs the sidecar */
        ze_result r = ze_import_request(ic, it->path.str, ZE_IMPORT_BACKGROUND, false, NULL);
        if (r != ZE_OK)
            ze_diag(&ic->desc.diag, ZE_LOG_WARN, r, "asset", it->path.str, "not imported: %s",
                    ze_result_str(r));
        return;
    }
    it->source = it->meta.uuid;
    if (ze_asset_registry_put(reg, it->source, ZE_ASSET_TYPE_SOURCE, it->source, it->path.str) !=
        ZE_OK)
        return;
    if (!it->meta.artifacts.count || it->meta.artifacts.count != it->meta.sub_assets.count) {
        (void)enqueue(ic, it->source, ZE_IMPORT_BACKGROUND); /* never cooked */
        return;
    }
    ic->stats.checking++; /* verdict_apply counts it out */
    verdict_apply(ic, it, ZE_IMPORT_BACKGROUND);
}

static void check_apply(ze_import_coordinator_t *ic, ze__check_item_t *it)
{
    if (it->discover) {
        discover_apply(ic, it);
        return;
    }
    uint8_t *want = ze_hashmap_get(&ic->checking, &it->source);
    if (!want)
        return; /* a forced import overtook the check */
    uint8_t prio = *want;
    ze_hashmap_remove(&ic->checking, &it->source);
    verdict_apply(ic, it, prio);
}

static void verdict_apply(ze_import_coordinator_t *ic, ze__check_item_t *it, uint8_t prio)
{
    ic->stats.checking--;
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_asset_info_t info;
    if (!ze_asset_registry_get(reg, it->source, &info) || info.state != ZE_ASSET_STATE_UNKNOWN)
        return; /* the watcher or a request moved it on */
    /* The artifacts are the last good ones either way: a re-import that
       fails leaves them in use. */
    if (it->current ||
        ze_vfs_exists(ic->desc.vfs, ((ze_path_t *)ze_array_at(&it->meta.artifacts, 0))->str))
        register_sub_assets(ic, it->source, &it->meta);
    for (uint32_t i = 0; i < it->meta.dependencies.count; i++)
        register_dependency(
            ic, it->source,
            ((ze_vfs_meta_dep_t *)ze_array_at(&it->meta.dependencies, i))->path.str);
    if (it->current) {
        (void)ze_asset_registry_set_state(reg, it->source, ZE_ASSET_STATE_LOADED, NULL);
        ic->stats.up_to_date++;
        return;
    }
    ic->stats.outdated++;
    ZE_LOG_INFO("asset", "%s: not current (%s)%s", it->path.str, it->why,
                prio != CHECK_NO_REQUEST ? ": re-imported" : "");
    if (prio != CHECK_NO_REQUEST)
        (void)enqueue(ic, it->source, (ze_import_priority)prio);
}

/* Verdicts that arrived, applied until the tick's budget is spent. */
static void check_tick(ze_import_coordinator_t *ic, uint64_t t0)
{
    check_flush(ic);
    for (uint32_t i = 0; i < ic->checks.count;) {
        ze__check_batch_t *b = *(ze__check_batch_t **)ze_array_at(&ic->checks, i);
        bool ready = b->delivered || (atomic_load_explicit(&b->post_failed, memory_order_acquire) &&
                                      atomic_load_explicit(&b->done, memory_order_acquire));
        if (!ready) {
            i++;
            continue;
        }
        while (b->applied < b->count && ze_time_now_ns() - t0 < CHECK_APPLY_BUDGET_NS)
            check_apply(ic, &b->items[b->applied++]);
        if (b->applied < b->count)
            return;
        ze_array_remove_ordered(&ic->checks, i);
        batch_free(ic, b);
    }
    uint64_t verdicts = ic->stats.up_to_date + ic->stats.outdated;
    if (!ic->checks.count && (!ic->filling || !ic->filling->count) &&
        verdicts != ic->checks_reported) {
        ic->checks_reported = verdicts;
        ZE_LOG_INFO("asset", "sidecar checks done: %llu source(s) current, %llu changed",
                    (unsigned long long)ic->stats.up_to_date,
                    (unsigned long long)ic->stats.outdated);
    }
}

ze_result ze_import_register(ze_import_coordinator_t *ic, const char *path, ze_uuid_t *out)
{
    ZE_CHECK(ic && path, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result ve = ze_path_make(path, &p);
    if (ve != ZE_OK)
        return ve;
    const char *importer = ze_asset_importer_for(p.str);
    if (!importer)
        return ZE_ERR_UNSUPPORTED;
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_uuid_t u;
    if (ze_asset_registry_find_path(reg, p.str, &u)) {
        ze_asset_info_t info;
        ze_asset_registry_get(reg, u, &info);
        if (info.type == ZE_ASSET_TYPE_SOURCE) {
            if (out)
                *out = u;
            return ZE_OK;
        }
        /* a dependency file that is also a source in its own right */
    }
    if (!ze_vfs_exists(ic->desc.vfs, p.str))
        return ZE_ERR_NOT_FOUND;
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, ic->alloc);
    ve = ze_vfs_meta_read(ic->desc.vfs, p.str, &m);
    bool fresh = false;
    if (ve == ZE_ERR_PARSE && m.uuid_recovered) {
        u = m.uuid;
        ze_vfs_meta_free(&m);
        m.uuid = u;
        fresh = true;
    } else if (ve != ZE_OK && ve != ZE_ERR_NOT_FOUND && ve != ZE_ERR_PARSE &&
               ve != ZE_ERR_UNSUPPORTED) {
        /* Memory, I/O: the sidecar may be fine. A new uuid would break
           every reference to the file for good; fail this registration. */
        ze_vfs_meta_free(&m);
        return ze_diag(&ic->desc.diag, ZE_LOG_ERROR, ve, "asset", p.str,
                       "sidecar not read (%s); the source is not registered", ze_result_str(ve));
    } else if (ve != ZE_OK) {
        if (ve != ZE_ERR_NOT_FOUND)
            ze_diag(&ic->desc.diag, ZE_LOG_WARN, ve, "asset", p.str,
                    "unusable sidecar (%s); the file gets a new uuid", ze_result_str(ve));
        ze_vfs_meta_free(&m);
        m.uuid = ze_uuid_v4();
        fresh = true;
    }
    if (fresh) {
        snprintf(m.importer, sizeof m.importer, "%s", importer);
        ve = ze_vfs_meta_write(ic->desc.vfs, p.str, &m);
        if (ve != ZE_OK)
            ze_diag(&ic->desc.diag, ZE_LOG_WARN, ve, "asset", p.str,
                    "cannot write its sidecar (%s)", ze_result_str(ve));
    }
    u = m.uuid;
    ze_result r = ze_asset_registry_put(reg, u, ZE_ASSET_TYPE_SOURCE, u, p.str);
    ze_asset_info_t info;
    if (r == ZE_OK && !fresh && m.source_hash && m.artifacts.count &&
        m.artifacts.count == m.sub_assets.count && ze_asset_registry_get(reg, u, &info) &&
        info.state == ZE_ASSET_STATE_UNKNOWN && !is_checking(ic, u)) {
        /* Cooked once: whether it is still current is for a pool job to
           tell (hashing sources here would stall the frame). */
        if (check_add(ic, u, &p, importer, &m) == ZE_OK)
            m = (ze_vfs_meta_t){0}; /* moved into the item */
    }
    if (m.alloc.fn)
        ze_vfs_meta_free(&m);
    if (r == ZE_OK && out)
        *out = u;
    return r;
}

ze_result ze_import_request(ze_import_coordinator_t *ic, const char *path,
                            ze_import_priority priority, bool force, ze_uuid_t *out)
{
    ZE_CHECK(ic && path && (priority == ZE_IMPORT_BACKGROUND || priority == ZE_IMPORT_IMMEDIATE),
             ZE_ERR_INVALID_ARG);
    ze_uuid_t u;
    ZE__TRY(ze_import_register(ic, path, &u));
    if (out)
        *out = u;
    uint8_t *want = ze_hashmap_get(&ic->checking, &u);
    if (want && !force) {
        /* the check's verdict decides: current, or imported at this priority */
        if (*want == CHECK_NO_REQUEST || *want < (uint8_t)priority)
            *want = (uint8_t)priority;
        return ZE_OK;
    }
    if (want) {
        ze_hashmap_remove(&ic->checking, &u);
        ic->stats.checking--;
    }
    import_t *im = find_running(ic, u);
    if (im) {
        if (force)
            im->rerun = true;
        return ZE_OK;
    }
    ze_asset_info_t info;
    ze_asset_registry_get(ic->desc.registry, u, &info);
    if (info.state == ZE_ASSET_STATE_LOADED && !force)
        return ZE_OK;
    return enqueue(ic, u, priority);
}

ze_result ze_import_offer(ze_import_coordinator_t *ic, const char *path)
{
    ZE_CHECK(ic && path, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ZE__TRY(ze_path_make(path, &p));
    if (!ze_asset_importer_for(p.str))
        return ZE_ERR_UNSUPPORTED;
    return ze_array_push(&ic->offers, &p);
}

ze_result ze_import_discover(ze_import_coordinator_t *ic, const char *path)
{
    ZE_CHECK(ic && path, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ZE__TRY(ze_path_make(path, &p));
    const char *importer = ze_asset_importer_for(p.str);
    if (!importer)
        return ZE_ERR_UNSUPPORTED;
    ze_uuid_t u;
    ze_asset_info_t info;
    if (ze_asset_registry_find_path(ic->desc.registry, p.str, &u) &&
        ze_asset_registry_get(ic->desc.registry, u, &info) && info.type == ZE_ASSET_TYPE_SOURCE)
        return ze_import_request(ic, p.str, ZE_IMPORT_BACKGROUND, false, NULL);
    ZE__TRY(batch_reserve(ic));
    ze__check_item_t *it = &ic->filling->items[ic->filling->count++];
    memset(it, 0, sizeof *it);
    it->path = p;
    it->discover = true;
    snprintf(it->importer, sizeof it->importer, "%s", importer);
    ze_vfs_meta_init(&it->meta, ic->alloc);
    ic->discovering++;
    if (ic->filling->count == ZE__CHECK_BATCH)
        check_flush(ic);
    return ZE_OK;
}

static bool busy_without_offers(const ze_import_coordinator_t *ic)
{
    return ic->running.count || ic->queue[0].count || ic->queue[1].count || ic->checks.count ||
           (ic->filling && ic->filling->count);
}

/* Every check and import ended: the dependency graph is as complete as it
 * gets, so an offered file some source reads is left to that source; the
 * others are requested like any source (a file referenced directly is
 * registered by that reference, not here). */
static void resolve_offers(ze_import_coordinator_t *ic)
{
    if (!ic->offers.count || busy_without_offers(ic))
        return;
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_array_t todo = ic->offers;
    ZE_ARRAY_INIT(&ic->offers, ic->alloc, ze_path_t);
    for (uint32_t i = 0; i < todo.count; i++) {
        const ze_path_t *p = ze_array_at(&todo, i);
        ze_uuid_t u;
        ze_asset_info_t info;
        if (ze_asset_registry_find_path(reg, p->str, &u) && ze_asset_registry_get(reg, u, &info) &&
            info.type == ZE_ASSET_TYPE_FILE && ze_asset_registry_dependents(reg, u, NULL, 0) > 0) {
            ic->stats.dependency_only++;
            continue;
        }
        ze_result r = ze_import_request(ic, p->str, ZE_IMPORT_BACKGROUND, false, NULL);
        if (r != ZE_OK)
            ze_diag(&ic->desc.diag, ZE_LOG_WARN, r, "asset", p->str, "not imported: %s",
                    ze_result_str(r));
    }
    ze_array_free(&todo);
}

/* ------------------------------------------------------------- outcome */

static void outcome_init(outcome_t *o, ze_allocator_t a)
{
    memset(o, 0, sizeof *o);
    ze__astore_init(&o->store, a, 0);
}

static void outcome_fail(outcome_t *o, const char *fmt, const char *arg)
{
    o->ok = false;
    snprintf(o->reason, sizeof o->reason, fmt, arg);
}

static bool plain_name(const char *s)
{
    return s && s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) <= ZE_PATH_NAME_MAX;
}

static ze_asset_type type_by_name(const char *s)
{
    for (int t = ZE_ASSET_TYPE_MESH; t < ZE_ASSET_TYPE_COUNT; t++)
        if (strcmp(s, ze_asset_type_name((ze_asset_type)t)) == 0)
            return (ze_asset_type)t;
    return ZE_ASSET_TYPE_UNKNOWN;
}

/* The child's --json report; untrusted: every field checked. */
static void outcome_from_json(outcome_t *o, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *subs = root ? json_object_get(root, "sub_assets") : NULL;
    json_t *deps = root ? json_object_get(root, "dependencies") : NULL;
    if (!json_is_array(subs)) {
        outcome_fail(o, "cooker report is not valid JSON with sub_assets%s", "");
        json_decref(root);
        return;
    }
    size_t n = json_array_size(subs), nd = json_is_array(deps) ? json_array_size(deps) : 0;
    o->artifacts = ze__astore_array(&o->store, n + 1, sizeof(char *), 8, true);
    o->uuids = ze__astore_array(&o->store, n + 1, sizeof(ze_uuid_t), 8, true);
    o->types = ze__astore_array(&o->store, n + 1, sizeof(ze_asset_type), 8, true);
    o->deps = ze__astore_array(&o->store, nd + 1, sizeof(char *), 8, true);
    if (!o->artifacts || !o->uuids || !o->types || !o->deps || n > ZE_VFS_META_MAX_ARTIFACTS) {
        outcome_fail(o, "cooker report too large%s", "");
        json_decref(root);
        return;
    }
    o->ok = true;
    for (size_t i = 0; i < n && o->ok; i++) {
        json_t *e = json_array_get(subs, i);
        const char *us = json_string_value(json_object_get(e, "uuid"));
        const char *ts = json_string_value(json_object_get(e, "type"));
        const char *as = json_string_value(json_object_get(e, "artifact"));
        ze_uuid_t u;
        if (!us || ze_uuid_parse(us, strlen(us), &u) != ZE_OK || !ts || !plain_name(as) ||
            (o->types[i] = type_by_name(ts)) == ZE_ASSET_TYPE_UNKNOWN) {
            outcome_fail(o, "cooker report: malformed sub_assets entry%s", "");
            break;
        }
        o->uuids[i] = u;
        o->artifacts[i] = ze__astore_strdup(&o->store, as);
        if (!o->artifacts[i])
            outcome_fail(o, "out of memory%s", "");
    }
    for (size_t i = 0; i < nd && o->ok; i++) {
        const char *d = json_string_value(json_array_get(deps, i));
        o->deps[i] = d ? ze__astore_strdup(&o->store, d) : NULL;
        if (!o->deps[i])
            outcome_fail(o, "cooker report: malformed dependencies%s", "");
    }
    /* optional (an older cooker has none); capped: a report is untrusted */
    json_t *warns = root ? json_object_get(root, "warnings") : NULL;
    size_t nw = json_is_array(warns) ? ZE_MIN(json_array_size(warns), (size_t)64) : 0;
    o->warnings = nw ? ze__astore_array(&o->store, nw, sizeof(char *), 8, true) : NULL;
    for (size_t i = 0; o->ok && o->warnings && i < nw; i++) {
        const char *w = json_string_value(json_array_get(warns, i));
        if (w && (o->warnings[o->warn_count] = ze__astore_strdup(&o->store, w)) != NULL)
            o->warn_count++;
    }
    if (o->ok) {
        o->count = (uint32_t)n;
        o->dep_count = (uint32_t)nd;
        /* optional: without it the engine hashes the source itself */
        const char *hs = json_string_value(json_object_get(root, "source_hash"));
        char *end = NULL;
        unsigned long long h = hs ? strtoull(hs, &end, 16) : 0;
        o->source_hash = hs && end && *end == 0 && strlen(hs) == 16 ? (uint64_t)h : 0;
        /* optional too (an older cooker): unknown hashes are never compared */
        json_t *dh = json_object_get(root, "dependency_hashes");
        if (json_is_array(dh) && json_array_size(dh) == nd && nd) {
            o->dep_hashes = ze__astore_array(&o->store, nd, sizeof(uint64_t), 8, true);
            for (size_t i = 0; o->dep_hashes && i < nd; i++) {
                const char *x = json_string_value(json_array_get(dh, i));
                char *xe = NULL;
                unsigned long long v = x ? strtoull(x, &xe, 16) : 0;
                o->dep_hashes[i] = x && xe && *xe == 0 && strlen(x) == 16 ? (uint64_t)v : 0;
            }
        }
    }
    json_decref(root);
}

static void outcome_from_cook(outcome_t *o, const ze_cook_result_t *c, ze_result rc,
                              const ze_diag_capture_t *diag)
{
    if (rc != ZE_OK) {
        outcome_fail(o, "%s", diag->last_message[0] ? diag->last_message : ze_result_str(rc));
        return;
    }
    o->ok = true;
    o->count = c->artifact_count;
    o->artifacts = (const char **)c->artifacts;
    o->uuids = (ze_uuid_t *)c->sub_asset_uuids;
    o->types = (ze_asset_type *)c->sub_asset_types;
    o->dep_count = c->dependency_count;
    o->source_hash = c->source_hash;
    o->dep_hashes = (uint64_t *)c->dependency_hashes;
    o->deps = (const char **)c->dependencies;
    o->warn_count = c->warning_count;
    o->warnings = (const char **)c->warnings;
}

/* -------------------------------------------------------- completion */

static void delete_tree_files(ze_vfs_t *vfs, const char *dir);

typedef struct del_ctx_t {
    ze_vfs_t *vfs;
    const char *dir;
    const char *keep;
} del_ctx_t;

static bool del_entry(void *user, const ze_vfs_dirent_t *e)
{
    del_ctx_t *c = user;
    ze_path_t base, p;
    if (ze_path_make(c->dir, &base) != ZE_OK || ze_path_join(&base, e->name, &p) != ZE_OK)
        return true;
    if (c->keep && strcmp(p.str, c->keep) == 0)
        return true;
    if (e->stat.is_dir)
        delete_tree_files(c->vfs, p.str);
    (void)ze_vfs_delete(c->vfs, p.str);
    return true;
}

static void delete_tree_files(ze_vfs_t *vfs, const char *dir)
{
    del_ctx_t c = {vfs, dir, NULL};
    (void)ze_vfs_list(vfs, dir, del_entry, &c);
}

/* Delete every import folder of a source except `keep`. */
static void sweep_old_imports(ze_import_coordinator_t *ic, ze_uuid_t source, const char *keep)
{
    char us[ZE_UUID_STRING_LEN + 1], dir[64 + ZE_UUID_STRING_LEN];
    ze_uuid_format(source, us);
    snprintf(dir, sizeof dir, "/cache/artifacts/%s", us);
    del_ctx_t c = {ic->desc.vfs, dir, keep};
    (void)ze_vfs_list(ic->desc.vfs, dir, del_entry, &c);
}

static void record_success(ze_import_coordinator_t *ic, import_t *im, const outcome_t *o)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_vfs_t *vfs = ic->desc.vfs;
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, ic->alloc);
    if (ze_vfs_meta_read(vfs, im->path.str, &m) != ZE_OK)
        ze_vfs_meta_free(&m);
    m.uuid = im->source;
    snprintf(m.importer, sizeof m.importer, "%s", im->importer);
    /* The cooker hashed what it read. An old cooker's report without the
       hash leaves 0: the next start imports it again rather than hash the
       source on this thread. */
    m.source_hash = o->source_hash;
    m.settings_hash = im->settings_hash;
    m.import_time = (int64_t)time(NULL);
    ze_array_clear(&m.artifacts);
    ze_array_clear(&m.sub_assets);
    ze_array_clear(&m.dependencies);
    m.dependencies_known = true;
    /* Sub-assets of the previous import that this one no longer makes
       leave the registry. */
    ze_uuid_t old[ZE_VFS_META_MAX_ARTIFACTS];
    uint32_t nold = ze_asset_registry_sub_assets(reg, im->source, old, ZE_COUNTOF(old));
    for (uint32_t i = 0; i < ZE_MIN(nold, (uint32_t)ZE_COUNTOF(old)); i++) {
        bool kept = false;
        for (uint32_t k = 0; k < o->count && !kept; k++)
            kept = ze_uuid_eq(old[i], o->uuids[k]);
        if (!kept)
            (void)ze_asset_registry_remove(reg, old[i]);
    }
    for (uint32_t i = 0; i < o->count; i++) {
        ze_path_t ap;
        if (ze_path_join(&im->out_dir, o->artifacts[i], &ap) != ZE_OK)
            continue;
        (void)ze_vfs_meta_add_artifact(&m, ap.str);
        (void)ze_vfs_meta_add_sub_asset(&m, o->uuids[i]);
        if (ze_asset_registry_put(reg, o->uuids[i], o->types[i], im->source, ap.str) == ZE_OK)
            (void)ze_asset_registry_add_dependency(reg, o->uuids[i], im->source);
    }
    /* The files the source reads: re-importing it when they change. */
    ze_asset_registry_clear_dependencies(reg, im->source);
    ze_path_t folder = ze_path_parent(&im->path);
    for (uint32_t i = 0; i < o->dep_count; i++) {
        ze_path_t dp;
        if (ze_path_join(&folder, o->deps[i], &dp) != ZE_OK)
            continue;
        register_dependency(ic, im->source, dp.str);
        /* with its hash, so an edit made while no engine runs is seen at
           the next start */
        (void)ze_vfs_meta_add_dependency(&m, dp.str, o->dep_hashes ? o->dep_hashes[i] : 0);
    }
    ze_result ve = ze_vfs_meta_write(vfs, im->path.str, &m);
    if (ve != ZE_OK)
        ze_diag(&ic->desc.diag, ZE_LOG_WARN, ve, "asset", im->path.str,
                "cannot write its sidecar (%s)", ze_result_str(ve));
    ze_vfs_meta_free(&m);
    sweep_old_imports(ic, im->source, im->out_dir.str);
}

static void finish_import(ze_import_coordinator_t *ic, import_t *im, outcome_t *o)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_asset_info_t info;
    bool known = ze_asset_registry_get(reg, im->source, &info);
    if (o->ok) {
        ic->stats.succeeded++;
        for (uint32_t i = 0; i < o->warn_count; i++) {
            ic->stats.warnings++;
            ze_diag(&ic->desc.diag, ZE_LOG_WARN, ZE_OK, "asset", im->path.str, "%s",
                    o->warnings[i]);
        }
        if (known)
            record_success(ic, im, o);
    } else {
        ic->stats.failed++;
        ic->stats.crashed += o->crashed;
        ic->stats.timed_out += o->timed_out;
        delete_tree_files(ic->desc.vfs, im->out_dir.str);
        (void)ze_vfs_delete(ic->desc.vfs, im->out_dir.str);
        ze_diag(&ic->desc.diag, ZE_LOG_ERROR,
                o->crashed || o->timed_out ? ZE_ERR_INTERNAL : ZE_ERR_PARSE, "asset", im->path.str,
                "import failed: %s", o->reason);
    }
    if (!known)
        return;
    ze_asset_registry_get(reg, im->source, &info);
    if (im->rerun || info.state == ZE_ASSET_STATE_STALE) {
        /* the source changed while it was cooked: once more */
        (void)ze_asset_registry_set_state(reg, im->source, ZE_ASSET_STATE_QUEUED, NULL);
        ze_hashmap_remove(&ic->queued, &im->source); /* enqueue sees it as new */
        (void)enqueue(ic, im->source, ZE_IMPORT_BACKGROUND);
        return;
    }
    (void)ze_asset_registry_set_state(reg, im->source,
                                      o->ok ? ZE_ASSET_STATE_LOADED : ZE_ASSET_STATE_FAILED,
                                      o->ok ? NULL : o->reason);
}

static void remove_running(ze_import_coordinator_t *ic, import_t *im)
{
    for (uint32_t i = 0; i < ic->running.count; i++)
        if (*(import_t **)ze_array_at(&ic->running, i) == im) {
            ze_array_remove_ordered(&ic->running, i);
            return;
        }
}

/* Main thread, through the scheduler: an in-process cook ended. */
static void in_process_done(void *ctx)
{
    import_t *im = ctx;
    ze_import_coordinator_t *ic = im->owner;
    outcome_t o;
    outcome_init(&o, ic->alloc);
    outcome_from_cook(&o, &im->cook, im->cook_rc, &im->cook_diag);
    remove_running(ic, im);
    finish_import(ic, im, &o);
    ze__astore_release(&o.store);
    import_free(ic, im);
}

static void cook_job(void *ctx)
{
    import_t *im = ctx;
    memset(&im->cook_diag, 0, sizeof im->cook_diag);
    im->cook_diag.min_level = ZE_LOG_ERROR; /* warnings come with the result */
    ze_cook_desc_t d = {.source = im->host_source,
                        .out_dir = im->host_out,
                        .source_uuid = im->source,
                        .settings = im->settings,
                        .diag = ze_diag_capture_sink(&im->cook_diag)};
    ze_result r = im->owner->desc.in_process_cook(&d, &im->cook);
    __atomic_store_n(&im->cook_rc, r, __ATOMIC_RELEASE);
    if (ze_main_scheduler_post(im->owner->scheduler, in_process_done, im) != ZE_OK)
        ze_diag(&im->owner->desc.diag, ZE_LOG_ERROR, ZE_ERR_FULL, "asset", im->path.str,
                "scheduler full: the import completes late");
}

static void child_done(ze_import_coordinator_t *ic, import_t *im)
{
    ze__child_result_t cr;
    ze__child_result(im->child, &cr);
    outcome_t o;
    outcome_init(&o, ic->alloc);
    if (cr.outcome == ZE__CHILD_EXITED && cr.exit_code == 0) {
        outcome_from_json(&o, cr.out, cr.out_len);
    } else {
        outcome_fail(&o, "%s", cr.reason);
        o.crashed = cr.outcome == ZE__CHILD_SIGNALED;
        o.timed_out = cr.outcome == ZE__CHILD_TIMED_OUT;
    }
    remove_running(ic, im);
    finish_import(ic, im, &o);
    ze__astore_release(&o.store);
    import_free(ic, im);
}

/* ------------------------------------------------------------ dispatch */

/* The source's settings as its sidecar holds them now, validated; their
 * identity goes into the `.meta` with the artifacts. false: invalid (the
 * reason, naming the key, in *cap). */
static bool take_settings(ze_import_coordinator_t *ic, import_t *im, ze_diag_capture_t *cap)
{
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, ic->alloc);
    if (ze_vfs_meta_read(ic->desc.vfs, im->path.str, &m) == ZE_OK && m.settings &&
        strcmp(m.settings, "{}") != 0) {
        im->settings = ze_alloc(ic->alloc, m.settings_len + 1, 1);
        if (im->settings) {
            memcpy(im->settings, m.settings, m.settings_len + 1);
            im->settings_len = m.settings_len;
        }
    }
    ze_vfs_meta_free(&m);
    ze_import_settings_t st;
    ze_diag_sink_t sink = ze_diag_capture_sink(cap);
    if (ze_import_settings_parse(im->settings, im->settings_len, im->importer, &st, im->path.str,
                                 &sink) != ZE_OK)
        return false;
    im->settings_hash = ze_import_settings_hash(&st);
    return true;
}

static ze_result start_import(ze_import_coordinator_t *ic, ze_uuid_t u)
{
    ze_asset_registry_t *reg = ic->desc.registry;
    ze_vfs_t *vfs = ic->desc.vfs;
    ze_asset_info_t info;
    if (!ze_asset_registry_get(reg, u, &info))
        return ZE_ERR_NOT_FOUND;
    import_t *im = ZE_NEW(ic->alloc, import_t);
    if (!im)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(im, 0, sizeof *im);
    im->source = u;
    im->cook_rc = ZE_ERR_STATE; /* "not finished" until the job stores its result */
    (void)ze_path_make(info.path, &im->path);
    const char *importer = ze_asset_importer_for(info.path);
    snprintf(im->importer, sizeof im->importer, "%s", importer ? importer : "");
    char us[ZE_UUID_STRING_LEN + 1], dir[96 + ZE_UUID_STRING_LEN];
    ze_uuid_format(u, us);
    /* A coordinator started in the same second as the previous one starts
       from the same sequence: skip folders that exist, which may hold the
       artifacts in use (a failed import deletes its folder). */
    do
        snprintf(dir, sizeof dir, "/cache/artifacts/%s/%llu", us,
                 (unsigned long long)++ic->sequence);
    while (ze_vfs_exists(vfs, dir));
    (void)ze_path_make(dir, &im->out_dir);
    (void)ze_asset_registry_set_state(reg, u, ZE_ASSET_STATE_IMPORTING, NULL);
    ic->stats.started++;
    outcome_t o;
    outcome_init(&o, ic->alloc);
    ze_diag_capture_t scap = {0};
    bool settings_ok = take_settings(ic, im, &scap);
    ze_result ve = settings_ok ? ze_vfs_mkdirs(vfs, dir) : ZE_OK;
    if (ve == ZE_OK && settings_ok)
        ve = ze_vfs_host_path(vfs, dir, im->host_out, sizeof im->host_out);
    if (!settings_ok) {
        /* before any folder or child: the artifacts in use stay */
        outcome_fail(&o, "%s", scap.last_message);
    } else if (ve != ZE_OK) {
        outcome_fail(&o, "cannot prepare the artifact folder: %s", ze_result_str(ve));
    } else if ((ve = ze_vfs_host_path(vfs, info.path, im->host_source, sizeof im->host_source)) !=
               ZE_OK) {
        outcome_fail(&o, "source unavailable: %s", ze_result_str(ve));
    } else if (ze_array_push(&ic->running, &im) != ZE_OK) {
        outcome_fail(&o, "out of memory%s", "");
    } else if (ic->desc.mode == ZE_IMPORT_IN_PROCESS) {
        im->owner = ic;
        if (ic->desc.jobs)
            ze_job_submit(ic->desc.jobs, cook_job, im, &ic->jobs_wg);
        else
            cook_job(im);
        ze__astore_release(&o.store);
        return ZE_OK;
    } else if (strchr(ic->cooker, '/') && access(ic->cooker, X_OK) != 0) {
        /* say which setting fixes it, not only that exec failed */
        char why[PATH_MAX + 200];
        snprintf(why, sizeof why,
                 "no usable cooker: '%s' (%s); set ZENGINE_COOKER or the run's cooker path, or "
                 "install the zengine program beside the game",
                 ic->cooker, strerror(errno));
        remove_running(ic, im);
        outcome_fail(&o, "%.500s", why);
    } else {
        const char *argv[] = {ic->cooker,   "cook",       im->host_source,
                              "--out",      im->host_out, "--json",
                              "--uuid",     us,           im->settings ? "--settings" : NULL,
                              im->settings, NULL};
        ze__child_desc_t cd = {.alloc = ic->alloc,
                               .argv = argv,
                               .memory_limit = ic->desc.memory_limit,
                               .cpu_seconds = ic->desc.cpu_seconds,
                               .timeout_ms = ic->desc.timeout_ms};
        ze__asset_error_t err = {{0}};
        im->owner = ic;
        if (ze__child_spawn(&cd, &im->child, &err) == ZE_OK) {
            ze__astore_release(&o.store);
            return ZE_OK;
        }
        remove_running(ic, im);
        outcome_fail(&o, "%s", err.message);
    }
    im->owner = ic;
    finish_import(ic, im, &o);
    ze__astore_release(&o.store);
    import_free(ic, im);
    return ZE_OK;
}

uint32_t ze_import_coordinator_tick(ze_import_coordinator_t *ic)
{
    if (!ic)
        return 0;
    uint64_t before = ic->stats.succeeded + ic->stats.failed;
    if (ic->own_scheduler)
        ze_main_scheduler_drain(ic->own_scheduler);
    uint64_t now = ze_time_now_ns();
    check_tick(ic, now);
    for (uint32_t i = 0; i < ic->running.count;) {
        import_t *im = *(import_t **)ze_array_at(&ic->running, i);
        if (im->child && ze__child_poll(im->child, now) != ZE__CHILD_RUNNING) {
            child_done(ic, im); /* removes it from `running` */
            continue;
        }
        i++;
    }
    while (ic->running.count < ic->desc.max_running) {
        int p = ic->queue[ZE_IMPORT_IMMEDIATE].count ? ZE_IMPORT_IMMEDIATE : ZE_IMPORT_BACKGROUND;
        if (!ic->queue[p].count)
            break;
        ze_uuid_t u = *(ze_uuid_t *)ze_array_at(&ic->queue[p], 0);
        ze_array_remove_ordered(&ic->queue[p], 0);
        ze_hashmap_remove(&ic->queued, &u);
        (void)start_import(ic, u);
    }
    resolve_offers(ic);
    return (uint32_t)(ic->stats.succeeded + ic->stats.failed - before);
}

bool ze_import_coordinator_idle(const ze_import_coordinator_t *ic)
{
    return !ic || (ic->running.count == 0 && ic->queue[0].count == 0 && ic->queue[1].count == 0 &&
                   ic->checks.count == 0 && (!ic->filling || ic->filling->count == 0) &&
                   ic->offers.count == 0 && ic->discovering == 0);
}

ze_result ze_import_coordinator_wait(ze_import_coordinator_t *ic, uint32_t timeout_ms)
{
    ZE_CHECK(ic, ZE_ERR_INVALID_ARG);
    uint64_t deadline = ze_time_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        if (ic->desc.watch)
            ze_vfs_tick(ic->desc.vfs);
        ze_import_coordinator_tick(ic);
        if (!ic->own_scheduler && ic->scheduler)
            ze_main_scheduler_drain(ic->scheduler);
        if (ze_import_coordinator_idle(ic))
            return ZE_OK;
        if (ze_time_now_ns() >= deadline)
            return ZE_ERR_TIMEOUT;
        ze_time_sleep_ns(2000000);
    }
}

ze_import_stats_t ze_import_coordinator_stats(const ze_import_coordinator_t *ic)
{
    ze_import_stats_t s = {0};
    if (!ic)
        return s;
    s = ic->stats;
    s.queued = ic->queue[0].count + ic->queue[1].count;
    s.running = ic->running.count;
    return s;
}
