/* The VFS context: standard mounts, the mount table and its resolution
 * order, the file operations on top of it, and the owner-thread task queue.
 *
 * Resolution of a path: the mounts whose point contains it, highest priority
 * first (ties: the longer point, then the newer mount), minus those outside
 * the deepest opaque mount that contains it. Reads try them in that order and
 * fall through on "not found" (or "not a directory": the path does not exist
 * there either); any other failure, an escape above all, stops the search.
 * Writes go to the first writable one. The table is guarded by a read-write
 * lock held for the duration of each operation, so an unmount waits for the
 * operations using the mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfs_internal.h"

/* ----------------------------------------------------------------- errors */

void ze__vfs_log_failure(ze_vfs_t *vfs, const char *op, const char *path, ze_result e)
{
    ze_log_level level;
    switch (e) {
    case ZE_OK:
    case ZE_ERR_NOT_FOUND:
    case ZE_ERR_EXISTS:
    case ZE_ERR_NOT_EMPTY:
        return; /* routine: the caller decides */
    case ZE_ERR_IO:
    case ZE_ERR_OUT_OF_MEMORY:
        level = ZE_LOG_ERROR;
        break;
    default:
        level = ZE_LOG_WARN;
        break;
    }
    ze_diag(vfs ? &vfs->diag : NULL, level, e, ZE__VFS_CH, path, "%s: %s", op, ze_result_str(e));
}

void ze__vfs_set_write_hook(ze_vfs_t *vfs, ze_vfs_write_hook_fn fn, void *user)
{
    vfs->write_hook = fn;
    vfs->write_hook_user = user;
}

ze_result ze__vfs_path_arg(const char *path, ze_path_t *out)
{
    if (!path)
        return ZE_ERR_INVALID_ARG;
    return ze_path_make(path, out);
}

/* Parse a path argument of a public call, reporting a refusal. */
static ze_result path_arg(ze_vfs_t *vfs, const char *op, const char *path, ze_path_t *out)
{
    ze_result e = ze__vfs_path_arg(path, out);
    if (e) {
        char shown[256];
        snprintf(shown, sizeof shown, "%.200s%s", path ? path : "(null)",
                 e == ZE_ERR_TOO_LONG ? "..." : "");
        if (e == ZE_ERR_PATH_ESCAPE)
            ze_diag(&vfs->diag, ZE_LOG_WARN, e, ZE__VFS_CH, shown,
                    "%s: path escapes its root ('..' climbs above /)", op);
        else if (e == ZE_ERR_TOO_LONG)
            ze_diag(&vfs->diag, ZE_LOG_WARN, e, ZE__VFS_CH, shown,
                    "%s: longer than %d bytes or a name over %d bytes", op, ZE_PATH_MAX_LEN,
                    ZE_PATH_NAME_MAX);
        else
            ze_diag(&vfs->diag, ZE_LOG_WARN, e, ZE__VFS_CH, shown, "%s: %s", op, ze_result_str(e));
    }
    return e;
}

/* ----------------------------------------------------------------- mounts */

ze_vfs_mount_id_t ze__vfs_mount_id(const ze_vfs_t *vfs, uint32_t slot)
{
    return (ze_vfs_mount_id_t){(vfs->mounts[slot].gen << 8) | (slot + 1)};
}

static int mount_slot(const ze_vfs_t *vfs, ze_vfs_mount_id_t id)
{
    uint32_t slot = (id.id & 0xff) - 1;
    if ((id.id & 0xff) == 0 || slot >= ZE_VFS_MAX_MOUNTS)
        return -1;
    const ze__vfs_mount *m = &vfs->mounts[slot];
    return m->used && m->gen == (id.id >> 8) ? (int)slot : -1;
}

static bool point_contains(const ze_path_t *point, const ze_path_t *p)
{
    return ze_path_is_within(p, point);
}

void ze__vfs_resolve(ze_vfs_t *vfs, const ze_path_t *p, ze__vfs_cands *c)
{
    uint32_t opaque_len = 0;
    for (uint32_t i = 0; i < vfs->order_count; i++) {
        const ze__vfs_mount *m = &vfs->mounts[vfs->order[i]];
        if (m->opaque && m->point.len > opaque_len && point_contains(&m->point, p))
            opaque_len = m->point.len;
    }
    c->count = 0;
    for (uint32_t i = 0; i < vfs->order_count; i++) {
        uint32_t slot = vfs->order[i];
        const ze__vfs_mount *m = &vfs->mounts[slot];
        if (!point_contains(&m->point, p))
            continue;
        /* Below an opaque point only mounts at or below it count ("/" has
         * length 1, every other point is longer than its parents). */
        if (opaque_len && m->point.len < opaque_len)
            continue;
        c->slot[c->count] = (uint8_t)slot;
        c->rel[c->count] = ze__path_rel(p, &m->point);
        c->count++;
    }
}

static int mount_cmp(const ze__vfs_mount *a, const ze__vfs_mount *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->point.len != b->point.len)
        return a->point.len > b->point.len ? -1 : 1;
    return a->seq > b->seq ? -1 : 1;
}

static void rebuild_order(ze_vfs_t *vfs)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < ZE_VFS_MAX_MOUNTS; s++)
        if (vfs->mounts[s].used)
            vfs->order[n++] = (uint8_t)s;
    /* Insertion sort: at most ZE_VFS_MAX_MOUNTS entries. */
    for (uint32_t i = 1; i < n; i++) {
        uint8_t v = vfs->order[i];
        uint32_t j = i;
        while (j > 0 && mount_cmp(&vfs->mounts[v], &vfs->mounts[vfs->order[j - 1]]) < 0) {
            vfs->order[j] = vfs->order[j - 1];
            j--;
        }
        vfs->order[j] = v;
    }
    vfs->order_count = n;
}

ze_result ze__vfs_mount_path(const ze__vfs_mount *m, const char *rel, size_t rel_len,
                             ze_path_t *out)
{
    char buf[ZE_PATH_CAPACITY * 2];
    if (m->point.len + 1 + rel_len >= sizeof buf)
        return ZE_ERR_TOO_LONG;
    memcpy(buf, m->point.str, m->point.len);
    size_t n = m->point.len;
    buf[n++] = '/';
    memcpy(buf + n, rel, rel_len);
    n += rel_len;
    return ze_path_from(buf, n, out);
}

ze_result ze_vfs_mount(ze_vfs_t *vfs, const ze_vfs_mount_desc_t *desc, ze_vfs_mount_id_t *out)
{
    ZE_CHECK(vfs && desc, ZE_ERR_INVALID_ARG);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze_path_t point;
    ze_result e = path_arg(vfs, "mount", desc->point ? desc->point : "/", &point);
    if (e)
        return e;
    ze_vfs_backend_kind kind = desc->backend;
    if (kind == ZE_VFS_BACKEND_DEFAULT)
        kind = desc->host_root ? ZE_VFS_BACKEND_DISK : ZE_VFS_BACKEND_MEMORY;
    int slot = -1;
    for (int s = 0; s < ZE_VFS_MAX_MOUNTS; s++)
        if (!vfs->mounts[s].used) {
            slot = s;
            break;
        }
    if (slot < 0) {
        ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_LIMIT, "mount '%s': all %d mount slots are in use",
                       point.str, ZE_VFS_MAX_MOUNTS);
        return ZE_ERR_LIMIT;
    }
    ze__vfs_backend *backend = NULL;
    char *host = NULL;
    size_t host_len = 0;
    bool read_only = desc->read_only;
    if (kind == ZE_VFS_BACKEND_DISK) {
        if (!desc->host_root || !desc->host_root[0]) {
            ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_IO, "mount '%s': a disk mount needs host_root",
                           point.str);
            return ZE_ERR_INVALID_ARG;
        }
        bool writable = false;
        e = ze__vfs_disk_create(vfs->alloc, desc->host_root, &backend, &writable);
        if (e) {
            ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_IO, "mount '%s': host directory '%s': %s",
                           point.str, desc->host_root, ze_result_str(e));
            return e;
        }
        if (!writable && !read_only) {
            ZE_LOG_INFO(ZE__VFS_CH, "mount '%s': '%s' is not writable: mounted read-only",
                        point.str, desc->host_root);
            read_only = true;
        }
        host_len = strlen(desc->host_root);
        host = ze_alloc(vfs->alloc, host_len + 1, 1);
        if (!host) {
            backend->ops->destroy(backend);
            return ZE_ERR_OUT_OF_MEMORY;
        }
        memcpy(host, desc->host_root, host_len + 1);
    } else if (kind == ZE_VFS_BACKEND_MEMORY) {
        e = ze__vfs_memfs_create(vfs->alloc, &backend);
        if (e)
            return e;
    } else {
        return ZE_ERR_INVALID_ARG;
    }
    pthread_rwlock_wrlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    uint32_t gen = (m->gen + 1) & 0xffffff;
    *m = (ze__vfs_mount){
        .point = point,
        .backend = backend,
        .host_root = host,
        .host_root_len = host_len,
        .kind = kind,
        .priority = desc->priority,
        .seq = ++vfs->mount_seq,
        .gen = gen ? gen : 1,
        .used = true,
        .read_only = read_only,
        .opaque = desc->opaque,
        .watch = desc->watch,
    };
    rebuild_order(vfs);
    pthread_rwlock_unlock(&vfs->mount_lock);
    ZE_LOG_DEBUG(ZE__VFS_CH, "mounted %s%s%s at '%s' (priority %d%s)",
                 kind == ZE_VFS_BACKEND_DISK ? "'" : "memory",
                 kind == ZE_VFS_BACKEND_DISK ? desc->host_root : "",
                 kind == ZE_VFS_BACKEND_DISK ? "'" : "", point.str, desc->priority,
                 read_only ? ", read-only" : "");
    if (m->watch)
        ze__vfs_watch_mount_added(vfs, (uint32_t)slot);
    if (out)
        *out = ze__vfs_mount_id(vfs, (uint32_t)slot);
    return ZE_OK;
}

ze_result ze_vfs_unmount(ze_vfs_t *vfs, ze_vfs_mount_id_t id)
{
    ZE_CHECK(vfs, ZE_ERR_INVALID_ARG);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    int slot = mount_slot(vfs, id);
    if (slot < 0)
        return ZE_ERR_NOT_FOUND;
    if (vfs->mounts[slot].watch)
        ze__vfs_watch_mount_removed(vfs, (uint32_t)slot);
    pthread_rwlock_wrlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze__vfs_backend *b = m->backend;
    char *host = m->host_root;
    size_t host_len = m->host_root_len;
    m->used = false;
    m->backend = NULL;
    m->host_root = NULL;
    rebuild_order(vfs);
    pthread_rwlock_unlock(&vfs->mount_lock);
    b->ops->destroy(b);
    if (host)
        ze_free(vfs->alloc, host, host_len + 1);
    return ZE_OK;
}

uint32_t ze_vfs_mount_list(ze_vfs_t *vfs, ze_vfs_mount_info_t *out, uint32_t max)
{
    ZE_CHECK(vfs, 0);
    pthread_rwlock_rdlock(&vfs->mount_lock);
    uint32_t n = vfs->order_count;
    for (uint32_t i = 0; i < n && i < max; i++) {
        uint32_t s = vfs->order[i];
        const ze__vfs_mount *m = &vfs->mounts[s];
        out[i] = (ze_vfs_mount_info_t){
            .id = ze__vfs_mount_id(vfs, s),
            .point = m->point.str,
            .host_root = m->host_root,
            .backend = m->kind,
            .priority = m->priority,
            .read_only = m->read_only,
            .opaque = m->opaque,
            .watch = m->watch,
        };
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return n;
}

bool ze_vfs_cache_enabled(const ze_vfs_t *vfs)
{
    return vfs && vfs->cache_enabled;
}

/* ------------------------------------------------------------ file access */

static inline bool falls_through(ze_result e)
{
    return e == ZE_ERR_NOT_FOUND || e == ZE_ERR_NOT_DIR;
}

void ze_vfs_buffer_free(ze_vfs_buffer_t *b)
{
    if (b && b->data) {
        ze_free(b->alloc, b->data, b->size + 1);
        b->data = NULL;
        b->size = 0;
    }
}

ze_result ze__vfs_stat_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, ze_vfs_stat_t *st)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze_result e = ZE_ERR_NOT_FOUND;
    if (m->used) {
        e = m->backend->ops->stat(m->backend, rel, st);
        if (!e) {
            st->read_only = m->read_only;
            st->mount = ze__vfs_mount_id(vfs, slot);
        }
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return e;
}

int ze__vfs_find_existing(ze_vfs_t *vfs, const ze_path_t *p, ze_vfs_stat_t *st)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, p, &c);
    int found = -1;
    for (uint32_t i = 0; i < c.count; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        ze_result e = m->backend->ops->stat(m->backend, c.rel[i], st);
        if (!e) {
            st->read_only = m->read_only;
            st->mount = ze__vfs_mount_id(vfs, c.slot[i]);
            found = c.slot[i];
            break;
        }
        if (!falls_through(e))
            break;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return found;
}

ze_result ze_vfs_stat(ze_vfs_t *vfs, const char *path, ze_vfs_stat_t *out)
{
    ZE_CHECK(vfs && out, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "stat", path, &p);
    if (e)
        return e;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, &p, &c);
    e = ZE_ERR_NOT_FOUND;
    for (uint32_t i = 0; i < c.count; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        e = m->backend->ops->stat(m->backend, c.rel[i], out);
        if (!e) {
            out->read_only = m->read_only;
            out->mount = ze__vfs_mount_id(vfs, c.slot[i]);
            break;
        }
        if (!falls_through(e))
            break;
    }
    /* The points of mounts are directories even where no backend has them. */
    if (falls_through(e)) {
        for (uint32_t i = 0; i < vfs->order_count; i++) {
            const ze__vfs_mount *m = &vfs->mounts[vfs->order[i]];
            if (ze_path_is_within(&m->point, &p)) {
                memset(out, 0, sizeof *out);
                out->is_dir = true;
                out->read_only = true;
                e = ZE_OK;
                break;
            }
        }
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    ze__vfs_log_failure(vfs, "stat", p.str, e);
    return e;
}

bool ze_vfs_exists(ze_vfs_t *vfs, const char *path)
{
    ze_vfs_stat_t st;
    return ze_vfs_stat(vfs, path, &st) == ZE_OK;
}

ze_result ze__vfs_read_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, ze_allocator_t a,
                          ze_vfs_buffer_t *out)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze_result e = m->used ? m->backend->ops->read_file(m->backend, rel, a, out) : ZE_ERR_NOT_FOUND;
    pthread_rwlock_unlock(&vfs->mount_lock);
    return e;
}

ze_result ze_vfs_read_file(ze_vfs_t *vfs, const char *path, ze_allocator_t alloc,
                           ze_vfs_buffer_t *out)
{
    ZE_CHECK(vfs && out, ZE_ERR_INVALID_ARG);
    memset(out, 0, sizeof *out);
    ze_path_t p;
    ze_result e = path_arg(vfs, "read", path, &p);
    if (e)
        return e;
    if (!alloc.fn)
        alloc = vfs->alloc;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, &p, &c);
    e = ZE_ERR_NOT_FOUND;
    for (uint32_t i = 0; i < c.count; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        e = m->backend->ops->read_file(m->backend, c.rel[i], alloc, out);
        if (!falls_through(e))
            break;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    ze__vfs_log_failure(vfs, "read", p.str, e);
    return e;
}

/* The first writable candidate; READ_ONLY when only read-only ones hold the
 * path, NOT_FOUND when no mount does. Lock held. */
static ze_result write_target(ze_vfs_t *vfs, const ze_path_t *p, uint32_t *slot, const char **rel)
{
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, p, &c);
    for (uint32_t i = 0; i < c.count; i++) {
        if (!vfs->mounts[c.slot[i]].read_only) {
            *slot = c.slot[i];
            *rel = c.rel[i];
            return ZE_OK;
        }
    }
    return c.count ? ZE_ERR_READ_ONLY : ZE_ERR_NOT_FOUND;
}

/* Tell the watcher about a change made on a memory mount (disk mounts are
 * seen by inotify). */
static void note_change(ze_vfs_t *vfs, const ze__vfs_mount *m, ze_vfs_event_kind kind, bool is_dir,
                        const ze_path_t *p, const ze_path_t *old)
{
    if (m->watch && m->kind == ZE_VFS_BACKEND_MEMORY)
        ze__vfs_watch_raw(vfs, kind, is_dir, p, old);
}

static ze_result write_locked(ze_vfs_t *vfs, uint32_t slot, const char *rel, const ze_path_t *p,
                              const void *data, size_t size)
{
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze__vfs_write_opts opts = {
        .hook = vfs->write_hook, .hook_user = vfs->write_hook_user, .vfs_path = p->str};
    ze_result e = m->backend->ops->write(m->backend, rel, data, size, &opts);
    if (!e)
        note_change(vfs, m, opts.existed ? ZE_VFS_EVENT_MODIFIED : ZE_VFS_EVENT_CREATED, false, p,
                    NULL);
    return e;
}

ze_result ze__vfs_write_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, const void *data,
                           size_t size)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze_result e = ZE_ERR_NOT_FOUND;
    ze_path_t p;
    if (m->used) {
        e = m->read_only ? ZE_ERR_READ_ONLY : ze__vfs_mount_path(m, rel, strlen(rel), &p);
        if (!e)
            e = write_locked(vfs, slot, rel, &p, data, size);
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return e;
}

ze_result ze_vfs_write_file(ze_vfs_t *vfs, const char *path, const void *data, size_t size)
{
    ZE_CHECK(vfs && (data || size == 0), ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "write", path, &p);
    if (e)
        return e;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    uint32_t slot;
    const char *rel;
    e = write_target(vfs, &p, &slot, &rel);
    if (!e)
        e = write_locked(vfs, slot, rel, &p, data, size);
    pthread_rwlock_unlock(&vfs->mount_lock);
    if (e == ZE_ERR_READ_ONLY && !vfs->cache_enabled && p.len >= 6 &&
        memcmp(p.str, "/cache", 6) == 0 && (p.len == 6 || p.str[6] == '/'))
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK,
                       "write '%s': caching is disabled (no writable .zengine/)", p.str);
    else if (e != ZE_ERR_FAULT_INJECTED)
        ze__vfs_log_failure(vfs, "write", p.str, e);
    return e;
}

ze_result ze_vfs_delete(ze_vfs_t *vfs, const char *path)
{
    ZE_CHECK(vfs, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "delete", path, &p);
    if (e)
        return e;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, &p, &c);
    e = ZE_ERR_NOT_FOUND;
    for (uint32_t i = 0; i < c.count; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        ze_vfs_stat_t st;
        e = m->backend->ops->stat(m->backend, c.rel[i], &st);
        if (falls_through(e))
            continue;
        if (e)
            break;
        if (m->read_only) {
            e = ZE_ERR_READ_ONLY;
            break;
        }
        bool was_dir = false;
        e = m->backend->ops->remove(m->backend, c.rel[i], &was_dir);
        if (!e)
            note_change(vfs, m, ZE_VFS_EVENT_DELETED, was_dir, &p, NULL);
        break;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    ze__vfs_log_failure(vfs, "delete", p.str, e);
    return e;
}

ze_result ze_vfs_mkdir(ze_vfs_t *vfs, const char *path)
{
    ZE_CHECK(vfs, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "mkdir", path, &p);
    if (e)
        return e;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    uint32_t slot;
    const char *rel;
    e = write_target(vfs, &p, &slot, &rel);
    if (!e) {
        ze__vfs_mount *m = &vfs->mounts[slot];
        e = m->backend->ops->mkdir(m->backend, rel);
        if (!e)
            note_change(vfs, m, ZE_VFS_EVENT_CREATED, true, &p, NULL);
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    ze__vfs_log_failure(vfs, "mkdir", p.str, e);
    return e;
}

ze_result ze_vfs_mkdirs(ze_vfs_t *vfs, const char *path)
{
    ZE_CHECK(vfs, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "mkdirs", path, &p);
    if (e)
        return e;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    uint32_t slot;
    const char *rel;
    e = write_target(vfs, &p, &slot, &rel);
    if (!e) {
        /* Every prefix of rel on that one mount, shortest first. */
        ze__vfs_mount *m = &vfs->mounts[slot];
        char buf[ZE_PATH_CAPACITY];
        size_t n = strlen(rel);
        memcpy(buf, rel, n + 1);
        for (size_t i = 0; !e && i <= n; i++) {
            if (i < n && buf[i] != '/')
                continue;
            if (i == 0)
                continue;
            buf[i] = '\0';
            e = m->backend->ops->mkdir(m->backend, buf);
            if (!e) {
                ze_path_t made;
                if (ze__vfs_mount_path(m, buf, i, &made) == ZE_OK)
                    note_change(vfs, m, ZE_VFS_EVENT_CREATED, true, &made, NULL);
            } else if (e == ZE_ERR_EXISTS) {
                ze_vfs_stat_t st;
                e = m->backend->ops->stat(m->backend, buf, &st);
                if (!e && !st.is_dir)
                    e = ZE_ERR_NOT_DIR;
            }
            if (i < n)
                buf[i] = '/';
        }
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    ze__vfs_log_failure(vfs, "mkdirs", p.str, e);
    return e;
}

ze_result ze__vfs_rename_on(ze_vfs_t *vfs, uint32_t slot, const char *from, const char *to)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze_result e = ZE_ERR_NOT_FOUND;
    if (m->used) {
        bool is_dir = false;
        e = m->read_only ? ZE_ERR_READ_ONLY
                         : m->backend->ops->rename(m->backend, from, to, &is_dir);
        ze_path_t pf, pt;
        if (!e && ze__vfs_mount_path(m, from, strlen(from), &pf) == ZE_OK &&
            ze__vfs_mount_path(m, to, strlen(to), &pt) == ZE_OK)
            note_change(vfs, m, ZE_VFS_EVENT_RENAMED, is_dir, &pt, &pf);
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return e;
}

ze_result ze_vfs_rename(ze_vfs_t *vfs, const char *from, const char *to)
{
    ZE_CHECK(vfs, ZE_ERR_INVALID_ARG);
    ze_path_t pf, pt;
    ze_result e = path_arg(vfs, "rename", from, &pf);
    if (!e)
        e = path_arg(vfs, "rename", to, &pt);
    if (e)
        return e;
    ze_vfs_stat_t st;
    int slot = ze__vfs_find_existing(vfs, &pf, &st);
    if (slot < 0) {
        e = ZE_ERR_NOT_FOUND;
    } else {
        /* `to` must land on the same mount: the one a write to it would
         * use (so /cache, opaque, is never reached from the project). */
        pthread_rwlock_rdlock(&vfs->mount_lock);
        ze__vfs_mount *m = &vfs->mounts[slot];
        uint32_t tslot = UINT32_MAX;
        const char *trel = NULL;
        bool same =
            m->used && write_target(vfs, &pt, &tslot, &trel) == ZE_OK && tslot == (uint32_t)slot;
        char rf[ZE_PATH_CAPACITY], rt[ZE_PATH_CAPACITY];
        if (same) {
            snprintf(rf, sizeof rf, "%s", ze__path_rel(&pf, &m->point));
            snprintf(rt, sizeof rt, "%s", trel);
        }
        bool ro = m->used && m->read_only;
        pthread_rwlock_unlock(&vfs->mount_lock);
        e = ro      ? ZE_ERR_READ_ONLY
            : !same ? ZE_ERR_CROSS_MOUNT
                    : ze__vfs_rename_on(vfs, (uint32_t)slot, rf, rt);
        if (!e && !ze__vfs_is_meta_name(&pf))
            ze__vfs_meta_follow(vfs, &pf, &pt);
    }
    if (e) {
        char both[2 * ZE_PATH_CAPACITY + 8];
        snprintf(both, sizeof both, "%s' -> '%s", pf.str, pt.str);
        ze__vfs_log_failure(vfs, "rename", both, e);
    }
    return e;
}

/* ---------------------------------------------------------------- listing */

typedef struct collect_ctx {
    ze__vfs_listing *l;
    uint32_t rank;
    ze_vfs_mount_id_t mount;
    bool read_only;
    bool failed;
} collect_ctx;

static bool collect_add(collect_ctx *c, const char *name, size_t len, const ze_vfs_stat_t *st,
                        bool is_link)
{
    ze__vfs_lentry ent = {.name_off = c->l->names.count,
                          .name_len = (uint32_t)len,
                          .rank = c->rank,
                          .is_link = is_link,
                          .st = *st};
    ent.st.read_only = c->read_only;
    ent.st.mount = c->mount;
    uint32_t at = c->l->names.count;
    if (ze_array_resize(&c->l->names, at + (uint32_t)len + 1) != ZE_OK ||
        ze_array_push(&c->l->entries, &ent) != ZE_OK) {
        c->failed = true;
        return false;
    }
    memcpy((char *)c->l->names.data + at, name, len);
    ((char *)c->l->names.data)[at + len] = '\0';
    return true;
}

static bool collect_sink(void *user, const char *name, size_t len, const ze_vfs_stat_t *st,
                         bool is_link)
{
    return collect_add(user, name, len, st, is_link);
}

static int lentry_cmp(const void *a, const void *b)
{
    const ze__vfs_lentry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void ze__vfs_listing_free(ze__vfs_listing *l)
{
    ze_array_free(&l->entries);
    ze_array_free(&l->names);
}

ze_result ze__vfs_list_collect(ze_vfs_t *vfs, const ze_path_t *dir, ze__vfs_listing *out)
{
    ZE_ARRAY_INIT(&out->entries, vfs->alloc, ze__vfs_lentry);
    ZE_ARRAY_INIT(&out->names, vfs->alloc, char);
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, dir, &c);
    ze_result e = ZE_ERR_NOT_FOUND;
    bool any = false;
    collect_ctx cc = {.l = out};
    for (uint32_t i = 0; i < c.count && !cc.failed; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        cc.rank = i;
        cc.mount = ze__vfs_mount_id(vfs, c.slot[i]);
        cc.read_only = m->read_only;
        ze_result r = m->backend->ops->list(m->backend, c.rel[i], collect_sink, &cc);
        if (!r) {
            any = true;
            continue;
        }
        if (r == ZE_ERR_NOT_FOUND)
            continue;
        if (r == ZE_ERR_NOT_DIR && !any) {
            /* A file hides what lower mounts have at this path. */
            e = r;
            break;
        }
        if (r != ZE_ERR_NOT_DIR) {
            e = r;
            break;
        }
    }
    /* Mount points below dir appear as directories: the component of each
     * point that follows dir ("/a/b" shows "a" in "/"). */
    for (uint32_t i = 0; i < vfs->order_count && !cc.failed; i++) {
        const ze__vfs_mount *m = &vfs->mounts[vfs->order[i]];
        if (m->point.len <= dir->len || !ze_path_is_within(&m->point, dir))
            continue;
        const char *name = m->point.str + (dir->len == 1 ? 1 : dir->len + 1);
        const char *end = strchr(name, '/');
        size_t len = end ? (size_t)(end - name) : strlen(name);
        ze_vfs_stat_t st = {.is_dir = true};
        cc.rank = UINT32_MAX;
        cc.mount = ze__vfs_mount_id(vfs, vfs->order[i]);
        cc.read_only = m->read_only;
        collect_add(&cc, name, len, &st, false);
        any = true;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    if (cc.failed) {
        ze__vfs_listing_free(out);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (any && (e == ZE_ERR_NOT_FOUND || e == ZE_OK))
        e = ZE_OK;
    if (e) {
        ze__vfs_listing_free(out);
        return e;
    }
    /* Names are final now: point at them, sort, drop shadowed duplicates. */
    ze__vfs_lentry *ents = out->entries.data;
    uint32_t n = out->entries.count;
    for (uint32_t i = 0; i < n; i++)
        ents[i].name = (const char *)out->names.data + ents[i].name_off;
    if (n > 1)
        qsort(ents, n, sizeof *ents, lentry_cmp);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (w > 0 && strcmp(ents[w - 1].name, ents[i].name) == 0)
            continue;
        ents[w++] = ents[i];
    }
    out->entries.count = w;
    return ZE_OK;
}

ze_result ze_vfs_list(ze_vfs_t *vfs, const char *dir, ze_vfs_list_fn fn, void *user)
{
    ZE_CHECK(vfs && fn, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "list", dir, &p);
    if (e)
        return e;
    ze__vfs_listing l;
    e = ze__vfs_list_collect(vfs, &p, &l);
    if (e) {
        ze__vfs_log_failure(vfs, "list", p.str, e);
        return e;
    }
    ze__vfs_lentry *ents = l.entries.data;
    for (uint32_t i = 0; i < l.entries.count; i++) {
        ze_vfs_dirent_t d = {.name = ents[i].name,
                             .name_len = ents[i].name_len,
                             .is_symlink = ents[i].is_link,
                             .stat = ents[i].st};
        if (!fn(user, &d))
            break;
    }
    ze__vfs_listing_free(&l);
    return ZE_OK;
}

/* ---------------------------------------------------------- streamed reads */

ze_result ze_vfs_open(ze_vfs_t *vfs, const char *path, ze_vfs_file_t **out)
{
    ZE_CHECK(vfs && out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_path_t p;
    ze_result e = path_arg(vfs, "open", path, &p);
    if (e)
        return e;
    ze_vfs_file_t *f = ze_alloc(vfs->alloc, sizeof *f, _Alignof(ze_vfs_file_t));
    if (!f)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(f, 0, sizeof *f);
    f->alloc = vfs->alloc;
    f->diag = vfs->diag;
    f->fd = -1;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    ze__vfs_cands c;
    ze__vfs_resolve(vfs, &p, &c);
    e = ZE_ERR_NOT_FOUND;
    for (uint32_t i = 0; i < c.count; i++) {
        ze__vfs_mount *m = &vfs->mounts[c.slot[i]];
        e = m->backend->ops->open(m->backend, c.rel[i], f);
        if (!falls_through(e))
            break;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    if (e) {
        ze_free(vfs->alloc, f, sizeof *f);
        ze__vfs_log_failure(vfs, "open", p.str, e);
        return e;
    }
    *out = f;
    return ZE_OK;
}

ze_result ze_vfs_file_read(ze_vfs_file_t *f, void *buf, size_t n, size_t *got)
{
    ZE_CHECK(f && (buf || n == 0) && got, ZE_ERR_INVALID_ARG);
    *got = 0;
    if (f->blob) {
        if (f->pos < f->blob->size) {
            size_t k = (size_t)ZE_MIN((uint64_t)n, f->blob->size - f->pos);
            memcpy(buf, f->blob->data + f->pos, k);
            f->pos += k;
            *got = k;
        }
        return ZE_OK;
    }
    while (*got < n) {
        ssize_t r = pread(f->fd, (uint8_t *)buf + *got, n - *got, (off_t)(f->pos));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            ze_result e = ze__vfs_errno(errno);
            ze_diag(&f->diag, ZE_LOG_ERROR, e, ZE__VFS_CH, "", "file read at %llu: %s",
                    (unsigned long long)f->pos, ze_result_str(e));
            return e;
        }
        if (r == 0)
            break;
        *got += (size_t)r;
        f->pos += (uint64_t)r;
    }
    return ZE_OK;
}

ze_result ze_vfs_file_seek(ze_vfs_file_t *f, int64_t offset, ze_vfs_whence whence)
{
    ZE_CHECK(f, ZE_ERR_INVALID_ARG);
    int64_t base = whence == ZE_VFS_SEEK_SET   ? 0
                   : whence == ZE_VFS_SEEK_CUR ? (int64_t)f->pos
                   : whence == ZE_VFS_SEEK_END ? (int64_t)f->size
                                               : -1;
    if (base < 0)
        return ZE_ERR_INVALID_ARG;
    int64_t pos;
    if (__builtin_add_overflow(base, offset, &pos) || pos < 0)
        return ZE_ERR_INVALID_ARG;
    f->pos = (uint64_t)pos;
    return ZE_OK;
}

uint64_t ze_vfs_file_tell(const ze_vfs_file_t *f)
{
    return f ? f->pos : 0;
}

uint64_t ze_vfs_file_size(const ze_vfs_file_t *f)
{
    return f ? f->size : 0;
}

void ze_vfs_file_close(ze_vfs_file_t *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    ze__vfs_blob_release(f->blob);
    ze_free(f->alloc, f, sizeof *f);
}

ze_result ze_vfs_host_path(ze_vfs_t *vfs, const char *path, char *buf, size_t cap)
{
    ZE_CHECK(vfs && buf && cap, ZE_ERR_INVALID_ARG);
    ze_path_t p;
    ze_result e = path_arg(vfs, "host_path", path, &p);
    if (e)
        return e;
    ze_vfs_stat_t st;
    int slot = ze__vfs_find_existing(vfs, &p, &st);
    if (slot < 0)
        return ZE_ERR_NOT_FOUND;
    pthread_rwlock_rdlock(&vfs->mount_lock);
    const ze__vfs_mount *m = &vfs->mounts[slot];
    if (!m->used || m->kind != ZE_VFS_BACKEND_DISK)
        e = ZE_ERR_UNSUPPORTED;
    else {
        const char *rel = ze__path_rel(&p, &m->point);
        int n = snprintf(buf, cap, "%s%s%s", m->host_root, rel[0] ? "/" : "", rel);
        if (n < 0 || (size_t)n >= cap)
            e = ZE_ERR_TOO_LONG;
    }
    pthread_rwlock_unlock(&vfs->mount_lock);
    return e;
}

/* ----------------------------------------------------- owner-thread tasks */

static void task_trampoline(void *ctx)
{
    ze__vfs_task *t = ctx;
    ze_vfs_t *vfs = t->vfs;
    t->run(t);
    atomic_fetch_sub_explicit(&vfs->tasks_in_flight, 1, memory_order_acq_rel);
}

void ze__vfs_post(ze_vfs_t *vfs, ze__vfs_task *t)
{
    t->vfs = vfs;
    t->next = NULL;
    atomic_fetch_add_explicit(&vfs->tasks_in_flight, 1, memory_order_acq_rel);
    pthread_mutex_lock(&vfs->task_lock);
    /* Once anything waits in the overflow queue, later tasks queue behind it
     * so that a producer's tasks keep their order. */
    if (!vfs->overflow_head && ze_main_scheduler_post(vfs->sched, task_trampoline, t) == ZE_OK) {
        pthread_mutex_unlock(&vfs->task_lock);
        return;
    }
    if (vfs->overflow_tail)
        vfs->overflow_tail->next = t;
    else
        vfs->overflow_head = t;
    vfs->overflow_tail = t;
    pthread_mutex_unlock(&vfs->task_lock);
}

void ze__vfs_run_tasks(ze_vfs_t *vfs)
{
    if (vfs->owns_sched)
        ze_main_scheduler_drain(vfs->sched);
    pthread_mutex_lock(&vfs->task_lock);
    ze__vfs_task *t = vfs->overflow_head;
    vfs->overflow_head = vfs->overflow_tail = NULL;
    pthread_mutex_unlock(&vfs->task_lock);
    while (t) {
        ze__vfs_task *next = t->next;
        task_trampoline(t);
        t = next;
    }
}

uint32_t ze_vfs_tick(ze_vfs_t *vfs)
{
    ZE_CHECK(vfs, 0);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    ze__vfs_run_tasks(vfs);
    ze__vfs_scans_reap(vfs);
    return ze__vfs_watch_tick(vfs);
}

/* ------------------------------------------------------------ the context */

static bool is_directory(const char *host)
{
    struct stat st;
    return stat(host, &st) == 0 && S_ISDIR(st.st_mode);
}

bool ze_vfs_default_engine_root(char *out, size_t cap, const char **from)
{
    const char *env = getenv("ZENGINE_ASSET_ROOT");
    if (env && env[0]) {
        if (from)
            *from = "ZENGINE_ASSET_ROOT";
        size_t n = strlen(env);
        if (n + 1 > cap)
            return false;
        memcpy(out, env, n + 1);
        return true;
    }
    if (from)
        *from = "beside the executable";
    bool beside = ze_path_beside_executable("ZodiacEngine", out, cap);
    if (beside && is_directory(out))
        return true;
    char installed[PATH_MAX];
    if (ze_path_installed("share/zengine", "ZodiacEngine", installed, sizeof installed) &&
        is_directory(installed) && strlen(installed) < cap) {
        if (from)
            *from = "the install prefix";
        memcpy(out, installed, strlen(installed) + 1);
        return true;
    }
    return beside; /* named in the error when it is missing */
}

static ze_result mount_engine(ze_vfs_t *vfs, const ze_vfs_desc_t *d)
{
    char found[PATH_MAX];
    const char *root = d->engine_root;
    const char *from = "desc.engine_root";
    if (!root || !root[0])
        root = ze_vfs_default_engine_root(found, sizeof found, &from) ? found : NULL;
    if (!root || !is_directory(root)) {
        if (d->require_engine_assets) {
            ZE_LOG_ERROR(ZE__VFS_CH,
                         "engine assets not found (%s: '%s'); set ZENGINE_ASSET_ROOT to the "
                         "ZodiacEngine directory",
                         from, root ? root : "?");
            return ZE_ERR_NOT_FOUND;
        }
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK,
                       "engine assets not found (%s: '%s'): no /ZodiacEngine mount", from,
                       root ? root : "?");
        return ZE_OK;
    }
    ze_result e = ze_vfs_mount(vfs,
                               &(ze_vfs_mount_desc_t){.point = "/ZodiacEngine",
                                                      .backend = ZE_VFS_BACKEND_DISK,
                                                      .host_root = root,
                                                      .priority = -1,
                                                      .read_only = !d->engine_writable,
                                                      .watch = d->watch},
                               NULL);
    return e ? e : ZE_OK;
}

static ze_result mount_project_and_cache(ze_vfs_t *vfs, const ze_vfs_desc_t *d)
{
    if (d->project_root) {
        if (!is_directory(d->project_root)) {
            ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_IO, "project root '%s' is not a directory",
                           d->project_root);
            return ZE_ERR_NOT_FOUND;
        }
        ze_result e = ze_vfs_mount(vfs,
                                   &(ze_vfs_mount_desc_t){.point = "/",
                                                          .backend = ZE_VFS_BACKEND_DISK,
                                                          .host_root = d->project_root,
                                                          .priority = 0,
                                                          .read_only = d->project_read_only,
                                                          .watch = d->watch},
                                   NULL);
        if (e)
            return e;
    }
    /* /cache: <project>/.zengine/ when it is (or can be made) a writable
     * directory; otherwise an empty read-only stand-in, so that paths under
     * /cache never fall through to the project and writes there fail with
     * ZE_ERR_READ_ONLY. */
    char cache[PATH_MAX];
    bool have = false;
    if (d->project_root && !d->disable_cache && !d->project_read_only) {
        int n = snprintf(cache, sizeof cache, "%s/.zengine", d->project_root);
        if (n > 0 && (size_t)n < sizeof cache) {
            if (mkdir(cache, 0755) != 0 && errno != EEXIST)
                ZE_LOG_INFO(ZE__VFS_CH, "cache disabled: cannot create '%s': %s", cache,
                            strerror(errno));
            have = is_directory(cache) && access(cache, W_OK) == 0;
        }
    }
    ze_vfs_mount_desc_t md = {.point = "/cache", .priority = 0, .opaque = true};
    if (have) {
        md.backend = ZE_VFS_BACKEND_DISK;
        md.host_root = cache;
    } else {
        md.backend = ZE_VFS_BACKEND_MEMORY;
        md.read_only = true;
        if (d->project_root && !d->disable_cache)
            ZE_LOG_INFO(ZE__VFS_CH, "cache disabled: the project is read-only");
    }
    ze_vfs_mount_id_t id;
    ze_result e = ze_vfs_mount(vfs, &md, &id);
    if (e)
        return e;
    int slot = mount_slot(vfs, id);
    vfs->cache_enabled = slot >= 0 && !vfs->mounts[slot].read_only;
    return ZE_OK;
}

ze_result ze_vfs_create(const ze_vfs_desc_t *desc, ze_vfs_t **out)
{
    ZE_CHECK(desc && out && desc->mem, ZE_ERR_INVALID_ARG);
    *out = NULL;
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_VFS);
    ze_vfs_t *vfs = ze_alloc(alloc, sizeof *vfs, _Alignof(ze_vfs_t));
    if (!vfs) {
        ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                       "create: out of memory (VFS owner)");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(vfs, 0, sizeof *vfs);
    vfs->mem = desc->mem;
    vfs->alloc = alloc;
    vfs->jobs = desc->jobs;
    vfs->owner = pthread_self();
    vfs->include_hidden = desc->include_hidden;
    vfs->debounce_ns = (uint64_t)(desc->debounce_ms ? desc->debounce_ms : 80) * 1000000u;
    vfs->diag = desc->diag;
    vfs->next_scan_id = 1;
    pthread_rwlock_init(&vfs->mount_lock, NULL);
    pthread_mutex_init(&vfs->task_lock, NULL);
    atomic_init(&vfs->tasks_in_flight, 0);
    atomic_init(&vfs->stopping, false);
    ze__ptable_init(&vfs->cache, alloc, sizeof(ze__cache_entry));
    *out = vfs; /* destroy below handles a partial context */
    ze_result r = ZE_OK;
    vfs->sched = desc->scheduler;
    if (!vfs->sched) {
        r = ze_main_scheduler_create(
            &(ze_main_scheduler_desc_t){.mem = desc->mem, .owner = ZE_MEM_OWNER_VFS}, &vfs->sched);
        vfs->owns_sched = r == ZE_OK;
    }
    if (r == ZE_OK && ze__vfs_watch_init(vfs) != ZE_OK)
        r = ZE_ERR_IO;
    if (r == ZE_OK && !desc->no_engine_mount)
        r = mount_engine(vfs, desc);
    if (r == ZE_OK)
        r = mount_project_and_cache(vfs, desc);
    if (r != ZE_OK) {
        ze_vfs_destroy(vfs);
        *out = NULL;
    }
    return r;
}

void ze_vfs_destroy(ze_vfs_t *vfs)
{
    if (!vfs)
        return;
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    atomic_store_explicit(&vfs->stopping, true, memory_order_release);
    ze__vfs_scans_stop(vfs);
    for (int s = 0; s < ZE_VFS_MAX_MOUNTS; s++)
        if (vfs->mounts[s].used)
            ze_vfs_unmount(vfs, ze__vfs_mount_id(vfs, (uint32_t)s));
    ze__vfs_watch_fini(vfs);
    ze__ptable_free(&vfs->cache);
    if (vfs->owns_sched)
        ze_main_scheduler_destroy(vfs->sched);
    pthread_mutex_destroy(&vfs->task_lock);
    pthread_rwlock_destroy(&vfs->mount_lock);
    ze_free(vfs->alloc, vfs, sizeof *vfs);
}

/* Test hook (vfs_internal.h): every disk mount resolves with the fallback
 * walk instead of openat2. */
void ze__vfs_force_walk(ze_vfs_t *vfs, bool on)
{
    pthread_rwlock_rdlock(&vfs->mount_lock);
    for (uint32_t s = 0; s < ZE_VFS_MAX_MOUNTS; s++)
        if (vfs->mounts[s].used && vfs->mounts[s].kind == ZE_VFS_BACKEND_DISK)
            ze__vfs_disk_force_walk(vfs->mounts[s].backend, on);
    pthread_rwlock_unlock(&vfs->mount_lock);
}
