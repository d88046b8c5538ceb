/* The scanner and the content cache.
 *
 * A scan is one job per directory on the job system: the job lists the
 * directory across mounts (ze__vfs_list_collect), packs the entries into one
 * batch (a single allocation: header, entries, path bytes), hands it to the
 * owner thread (ze__vfs_post: the MainThreadScheduler, or the overflow queue
 * when its ring is full, so a worker never spins on a full ring that an owner
 * busy in ze_job_wait would never drain), then submits one job per
 * subdirectory. The last job to finish posts the scan's final task. The owner
 * applies batches to the cache; the scan is complete when the final task has
 * run and every posted batch has been applied (the overflow queue may deliver
 * out of order, so completion counts rather than trusting order). Then cache
 * entries under the root that neither this scan nor the watcher touched since
 * it started are removed, and on_done runs.
 */
#include <sched.h>
#include <string.h>

#include "vfs_internal.h"

typedef struct scan_dir_job {
    struct scan_dir_job *next; /* inline mode stack */
    ze__vfs_scan *scan;
    ze_path_t dir;
} scan_dir_job;

typedef struct batch_entry {
    uint32_t path_off, path_len;
    ze_vfs_stat_t st;
} batch_entry;

typedef struct scan_batch {
    ze__vfs_task task; /* first: the task is the batch */
    ze__vfs_scan *scan;
    size_t bytes;
    uint32_t count;
    batch_entry entries[]; /* then the path bytes */
} scan_batch;

struct ze__vfs_scan {
    ze__vfs_scan *next;
    ze_vfs_t *vfs;
    uint32_t id;
    ze_path_t root;
    ze_vfs_scan_entry_fn on_entry;
    ze_vfs_scan_done_fn on_done;
    void *user;
    ze_wait_group_t wg;
    atomic_uint jobs;   /* directory jobs not finished */
    atomic_uint posted; /* tasks posted, the final one included */
    atomic_ullong errors;
    ze__vfs_task final_task;
    scan_dir_job *inline_stack;
    /* owner thread */
    uint32_t applied;
    bool final_seen;
    bool done;
    uint64_t start_seq;
    uint64_t start_ns;
    ze_vfs_scan_stats_t stats;
};

/* ------------------------------------------------------------------ cache */

static ze__cache_entry *cache_payload(ze__ptable_entry *e)
{
    return (ze__cache_entry *)ze__ptable_payload(e);
}

static void cache_put(ze_vfs_t *vfs, const char *path, uint32_t len, const ze_vfs_stat_t *st)
{
    bool created;
    ze__ptable_entry *e = ze__ptable_insert(&vfs->cache, path, len, &created);
    if (!e) {
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_ERR_OUT_OF_MEMORY,
                       "content cache: out of memory for '%s'", path);
        return;
    }
    ze__cache_entry *c = cache_payload(e);
    c->st = *st;
    c->seq = ++vfs->cache_seq;
}

static bool entry_within(const ze__ptable_entry *e, const char *dir, uint32_t dlen)
{
    if (dlen == 1)
        return true;
    return e->len >= dlen && memcmp(e->path, dir, dlen) == 0 &&
           (e->len == dlen || e->path[dlen] == '/');
}

/* Remove `dir` and everything below it; entries older than `before` only
 * when before != 0 (and then dir itself is kept). Returns how many. */
static uint64_t cache_remove_tree(ze_vfs_t *vfs, const char *dir, uint32_t dlen, uint64_t before)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < vfs->cache.count;) {
        ze__ptable_entry *e = ze__ptable_at(&vfs->cache, i);
        bool drop = entry_within(e, dir, dlen);
        if (drop && before)
            drop = !(e->len == dlen) && cache_payload(e)->seq < before;
        if (drop) {
            char key[ZE_PATH_CAPACITY];
            uint32_t len = e->len;
            memcpy(key, e->path, len);
            ze__ptable_remove(&vfs->cache, key, len);
            n++;
            continue; /* the last entry moved into slot i */
        }
        i++;
    }
    return n;
}

static void cache_refresh(ze_vfs_t *vfs, const ze_path_t *p)
{
    ze_vfs_stat_t st;
    if (ze__vfs_find_existing(vfs, p, &st) >= 0)
        cache_put(vfs, p->str, p->len, &st);
    else
        ze__ptable_remove(&vfs->cache, p->str, p->len);
}

void ze__vfs_cache_update(ze_vfs_t *vfs, const ze_vfs_event_t *ev)
{
    switch (ev->kind) {
    case ZE_VFS_EVENT_CREATED:
    case ZE_VFS_EVENT_MODIFIED:
        cache_refresh(vfs, ev->path);
        break;
    case ZE_VFS_EVENT_DELETED:
        cache_remove_tree(vfs, ev->path->str, ev->path->len, 0);
        break;
    case ZE_VFS_EVENT_RENAMED: {
        /* Move the entries below the old path (a directory) first. */
        const ze_path_t *from = ev->old_path, *to = ev->path;
        for (uint32_t i = 0; i < vfs->cache.count;) {
            ze__ptable_entry *e = ze__ptable_at(&vfs->cache, i);
            if (!(e->len > from->len && entry_within(e, from->str, from->len))) {
                i++;
                continue;
            }
            char old[ZE_PATH_CAPACITY], moved[ZE_PATH_CAPACITY];
            uint32_t len = e->len, rest = e->len - from->len;
            ze__cache_entry saved = *cache_payload(e);
            memcpy(old, e->path, len);
            ze__ptable_remove(&vfs->cache, old, len);
            if (to->len + rest < sizeof moved) {
                memcpy(moved, to->str, to->len);
                memcpy(moved + to->len, old + from->len, rest);
                cache_put(vfs, moved, to->len + rest, &saved.st);
            }
            i = 0; /* entries moved; rare and small, restart */
        }
        ze__ptable_remove(&vfs->cache, from->str, from->len);
        cache_refresh(vfs, to);
        break;
    }
    case ZE_VFS_EVENT_RESCAN:
        break;
    }
}

ze_result ze_vfs_cache_get(ze_vfs_t *vfs, const char *path, ze_vfs_stat_t *out)
{
    ZE_CHECK(vfs && out, ZE_ERR_INVALID_ARG);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze_path_t p;
    ze_result e = ze__vfs_path_arg(path, &p);
    if (e)
        return e;
    ze__ptable_entry *ent = ze__ptable_find(&vfs->cache, p.str, p.len);
    if (!ent)
        return ZE_ERR_NOT_FOUND;
    *out = cache_payload(ent)->st;
    return ZE_OK;
}

uint32_t ze_vfs_cache_count(const ze_vfs_t *vfs)
{
    return vfs ? vfs->cache.count : 0;
}

void ze_vfs_cache_foreach(ze_vfs_t *vfs, const char *dir, bool recursive, ze_vfs_cache_fn fn,
                          void *user)
{
    ZE_CHECK(vfs && fn, );
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze_path_t d;
    if (ze__vfs_path_arg(dir ? dir : "/", &d) != ZE_OK)
        return;
    for (uint32_t i = 0; i < vfs->cache.count; i++) {
        ze__ptable_entry *e = ze__ptable_at(&vfs->cache, i);
        if (e->len == d.len || !entry_within(e, d.str, d.len))
            continue;
        if (!recursive) {
            const char *rest = e->path + (d.len == 1 ? 1 : d.len + 1);
            if (strchr(rest, '/'))
                continue;
        }
        ze_path_t p;
        p.len = e->len;
        memcpy(p.str, e->path, (size_t)e->len + 1);
        if (!fn(user, &p, &cache_payload(e)->st))
            return;
    }
}

/* ------------------------------------------------------------------- scan */

static void scan_check_done(ze__vfs_scan *s)
{
    if (s->done || !s->final_seen ||
        s->applied != atomic_load_explicit(&s->posted, memory_order_acquire))
        return;
    ze_vfs_t *vfs = s->vfs;
    s->done = true;
    if (atomic_load_explicit(&vfs->stopping, memory_order_acquire))
        return;
    s->stats.removed = cache_remove_tree(vfs, s->root.str, s->root.len, s->start_seq + 1);
    s->stats.errors = atomic_load_explicit(&s->errors, memory_order_relaxed);
    s->stats.elapsed_ns = ze_time_now_ns() - s->start_ns;
    ZE_LOG_DEBUG(ZE__VFS_CH, "scan %u of '%s': %llu files, %llu dirs, %llu errors in %.1f ms",
                 s->id, s->root.str, (unsigned long long)s->stats.files,
                 (unsigned long long)s->stats.dirs, (unsigned long long)s->stats.errors,
                 (double)s->stats.elapsed_ns / 1e6);
    if (s->on_done)
        s->on_done(s->user, (ze_vfs_scan_id_t){s->id}, &s->stats);
}

static void apply_batch(ze__vfs_task *t)
{
    scan_batch *b = (scan_batch *)t;
    ze__vfs_scan *s = b->scan;
    ze_vfs_t *vfs = s->vfs;
    if (!atomic_load_explicit(&vfs->stopping, memory_order_acquire)) {
        const char *paths = (const char *)(b->entries + b->count);
        for (uint32_t i = 0; i < b->count; i++) {
            const batch_entry *e = &b->entries[i];
            cache_put(vfs, paths + e->path_off, e->path_len, &e->st);
            if (e->st.is_dir)
                s->stats.dirs++;
            else
                s->stats.files++;
            if (s->on_entry) {
                ze_path_t p;
                p.len = e->path_len;
                memcpy(p.str, paths + e->path_off, e->path_len + 1);
                s->on_entry(s->user, &p, &e->st);
            }
        }
    }
    ze_free(vfs->alloc, b, b->bytes);
    s->applied++;
    scan_check_done(s);
}

static void apply_final(ze__vfs_task *t)
{
    ze__vfs_scan *s = (ze__vfs_scan *)((char *)t - offsetof(ze__vfs_scan, final_task));
    s->final_seen = true;
    s->applied++;
    scan_check_done(s);
}

static void dir_job(void *ctx);

static void submit_dir(ze__vfs_scan *s, scan_dir_job *j)
{
    atomic_fetch_add_explicit(&s->jobs, 1, memory_order_acq_rel);
    if (s->vfs->jobs)
        ze_job_submit(s->vfs->jobs, dir_job, j, &s->wg);
    else {
        j->next = s->inline_stack; /* inline mode: the owner pops it */
        s->inline_stack = j;
    }
}

static void process_dir(ze__vfs_scan *s, const ze_path_t *dir)
{
    ze_vfs_t *vfs = s->vfs;
    ze__vfs_listing l;
    if (ze__vfs_list_collect(vfs, dir, &l) != ZE_OK) {
        atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
        return;
    }
    const ze__vfs_lentry *ents = l.entries.data;
    uint32_t n = l.entries.count, keep = 0;
    size_t path_bytes = 0;
    size_t prefix = dir->len == 1 ? 1 : dir->len + 1;
    for (uint32_t i = 0; i < n; i++) {
        if (!vfs->include_hidden && ze__name_hidden(ents[i].name))
            continue;
        if (prefix + ents[i].name_len > ZE_PATH_MAX_LEN) {
            atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
            continue;
        }
        keep++;
        path_bytes += prefix + ents[i].name_len + 1;
    }
    if (keep) {
        size_t bytes = sizeof(scan_batch) + keep * sizeof(batch_entry) + path_bytes;
        scan_batch *b = ze_alloc(vfs->alloc, bytes, _Alignof(scan_batch));
        if (!b) {
            atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
            ze__vfs_listing_free(&l);
            return;
        }
        b->scan = s;
        b->bytes = bytes;
        b->count = 0;
        b->task.run = apply_batch;
        char *paths = (char *)(b->entries + keep);
        uint32_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!vfs->include_hidden && ze__name_hidden(ents[i].name))
                continue;
            if (prefix + ents[i].name_len > ZE_PATH_MAX_LEN)
                continue;
            char *p = paths + off;
            memcpy(p, dir->str, dir->len);
            p[prefix - 1] = '/';
            memcpy(p + prefix, ents[i].name, ents[i].name_len + 1);
            b->entries[b->count++] =
                (batch_entry){off, (uint32_t)(prefix + ents[i].name_len), ents[i].st};
            off += (uint32_t)(prefix + ents[i].name_len + 1);
        }
        atomic_fetch_add_explicit(&s->posted, 1, memory_order_acq_rel);
        ze__vfs_post(vfs, &b->task);
    }
    /* Subdirectories (not links to them: no loops). */
    for (uint32_t i = 0; i < n; i++) {
        if (!ents[i].st.is_dir || ents[i].is_link)
            continue;
        if (!vfs->include_hidden && ze__name_hidden(ents[i].name))
            continue;
        if (prefix + ents[i].name_len > ZE_PATH_MAX_LEN)
            continue;
        scan_dir_job *j = ze_alloc(vfs->alloc, sizeof *j, _Alignof(scan_dir_job));
        if (!j) {
            atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
            continue;
        }
        j->scan = s;
        j->next = NULL;
        memcpy(j->dir.str, dir->str, dir->len);
        j->dir.str[prefix - 1] = '/';
        memcpy(j->dir.str + prefix, ents[i].name, ents[i].name_len + 1);
        j->dir.len = (uint32_t)(prefix + ents[i].name_len);
        submit_dir(s, j);
    }
    ze__vfs_listing_free(&l);
}

static void finish_job(ze__vfs_scan *s)
{
    /* Every batch of this job was posted before this decrement, and every
     * other job's before theirs: the final task is posted after them all. */
    if (atomic_fetch_sub_explicit(&s->jobs, 1, memory_order_acq_rel) == 1) {
        atomic_fetch_add_explicit(&s->posted, 1, memory_order_acq_rel);
        s->final_task.run = apply_final;
        ze__vfs_post(s->vfs, &s->final_task);
    }
}

static void dir_job(void *ctx)
{
    scan_dir_job *j = ctx;
    ze__vfs_scan *s = j->scan;
    ze_vfs_t *vfs = s->vfs;
    if (!atomic_load_explicit(&vfs->stopping, memory_order_acquire))
        process_dir(s, &j->dir);
    ze_free(vfs->alloc, j, sizeof *j);
    finish_job(s);
}

ze_result ze_vfs_scan_start(ze_vfs_t *vfs, const ze_vfs_scan_desc_t *desc, ze_vfs_scan_id_t *out)
{
    ZE_CHECK(vfs && desc, ZE_ERR_INVALID_ARG);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze_path_t root;
    ze_result e = ze__vfs_path_arg(desc->root ? desc->root : "/", &root);
    if (e) {
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK, "scan '%s': %s", desc->root, ze_result_str(e));
        return e;
    }
    ze__vfs_scan *s = ze_alloc(vfs->alloc, sizeof *s, _Alignof(ze__vfs_scan));
    scan_dir_job *j = ze_alloc(vfs->alloc, sizeof *j, _Alignof(scan_dir_job));
    if (!s || !j) {
        ze_free(vfs->alloc, s, sizeof *s);
        ze_free(vfs->alloc, j, sizeof *j);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(s, 0, sizeof *s);
    s->vfs = vfs;
    s->id = vfs->next_scan_id++;
    s->root = root;
    s->on_entry = desc->on_entry;
    s->on_done = desc->on_done;
    s->user = desc->user;
    ze_wait_group_init(&s->wg);
    atomic_init(&s->jobs, 0);
    atomic_init(&s->posted, 0);
    atomic_init(&s->errors, 0);
    s->start_seq = vfs->cache_seq;
    s->start_ns = ze_time_now_ns();
    s->next = vfs->scans;
    vfs->scans = s;
    j->scan = s;
    j->next = NULL;
    j->dir = root;
    submit_dir(s, j);
    /* Without a job system the walk runs here, directory by directory. */
    while (s->inline_stack) {
        scan_dir_job *top = s->inline_stack;
        s->inline_stack = top->next;
        dir_job(top);
    }
    if (out)
        *out = (ze_vfs_scan_id_t){s->id};
    return ZE_OK;
}

static ze__vfs_scan *find_scan(ze_vfs_t *vfs, uint32_t id)
{
    for (ze__vfs_scan *s = vfs->scans; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

bool ze_vfs_scan_done(ze_vfs_t *vfs, ze_vfs_scan_id_t id)
{
    ZE_CHECK(vfs, true);
    ze__vfs_scan *s = find_scan(vfs, id.id);
    return !s || s->done;
}

/* Owner thread: run every task available now, from the scheduler (whoever
 * owns it: the owner of the VFS is the owner of its scheduler) and the
 * overflow queue. */
static void drain_all(ze_vfs_t *vfs)
{
    if (!vfs->owns_sched)
        ze_main_scheduler_drain(vfs->sched);
    ze__vfs_run_tasks(vfs);
}

void ze_vfs_scan_wait(ze_vfs_t *vfs, ze_vfs_scan_id_t id)
{
    ZE_CHECK(vfs, );
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze__vfs_scan *s = find_scan(vfs, id.id);
    if (!s)
        return;
    /* Jobs never block on the owner (a full ring spills into the overflow
     * queue), so waiting for them first cannot deadlock. */
    if (vfs->jobs)
        ze_job_wait(vfs->jobs, &s->wg);
    while (!s->done) {
        drain_all(vfs);
        if (!s->done)
            sched_yield();
    }
}

static void scan_free(ze_vfs_t *vfs, ze__vfs_scan *s)
{
    ze_free(vfs->alloc, s, sizeof *s);
}

void ze__vfs_scans_reap(ze_vfs_t *vfs)
{
    ze__vfs_scan **link = &vfs->scans;
    while (*link) {
        ze__vfs_scan *s = *link;
        /* The job system touches the wait group after the last job returns:
         * free only once it reads zero. */
        if (s->done && ze_wait_group_done(&s->wg)) {
            *link = s->next;
            scan_free(vfs, s);
        } else {
            link = &s->next;
        }
    }
}

void ze__vfs_scans_stop(ze_vfs_t *vfs)
{
    for (ze__vfs_scan *s = vfs->scans; s; s = s->next)
        if (vfs->jobs)
            ze_job_wait(vfs->jobs, &s->wg);
    /* Every job is done and every task posted: run them (they free their
     * batches without touching the cache while stopping). */
    while (atomic_load_explicit(&vfs->tasks_in_flight, memory_order_acquire) > 0) {
        drain_all(vfs);
        if (atomic_load_explicit(&vfs->tasks_in_flight, memory_order_acquire) > 0)
            sched_yield();
    }
    while (vfs->scans) {
        ze__vfs_scan *s = vfs->scans;
        vfs->scans = s->next;
        scan_free(vfs, s);
    }
}
