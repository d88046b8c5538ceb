/* The watcher: inotify for disk mounts, direct notes for memory mounts,
 * merged into one debounced batch that ze_vfs_tick delivers on the owner
 * thread.
 *
 * Disk mounts: one inotify instance (IN_NONBLOCK, read only from tick, so no
 * thread), one watch per directory, added recursively when the mount is
 * watched. A directory that appears (created, or moved in from outside) gets
 * its watch and is then listed, recursively, so files created before the
 * watch existed are reported too (a later event for the same path merges).
 * Directories are opened beneath the mount root first and watched through
 * /proc/self/fd/N, so a watch never follows a link out of the root.
 * IN_MOVED_FROM is held until the IN_MOVED_TO with the same cookie arrives
 * (a RENAMED event; a moved directory's watches are re-pathed); one still
 * unpaired a tick after the queue was drained moved out of the tree (DELETED,
 * its watches dropped). The rename that completes an atomic write (from a
 * ".ze-tmp.C." or ".ze-tmp.M." file) becomes CREATED or MODIFIED of the
 * target. IN_Q_OVERFLOW becomes a RESCAN event per watched mount, and the
 * watches are re-synced.
 *
 * Batching: raw events merge per path (created+modified = created,
 * created+deleted = nothing, deleted+created = modified...) into the current
 * batch, under a mutex because memory-mount changes arrive from any thread.
 * Tick delivers the batch once no raw event came for the debounce period,
 * or when the batch is ten periods old (continuous changes never starve
 * delivery). Delivery order is the order of first occurrence.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "vfs_internal.h"

enum {
    WATCH_MASK = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM |
                 IN_MOVED_TO | IN_ONLYDIR | IN_EXCL_UNLINK,
    MAX_DELAY_PERIODS = 10,
    READ_BUF = 64 * 1024,
};

typedef struct watch_entry {
    int wd;
    uint32_t slot;
    char *rel; /* directory below the mount point, "" = its root; owned */
    uint32_t rel_len;
} watch_entry;

typedef struct pending_ev {
    ze_vfs_event_kind kind; /* 0 = merged away */
    bool is_dir;
    uint32_t path_off, path_len;
    uint32_t old_off, old_len;
} pending_ev;

typedef struct ev_batch {
    ze_array_t events; /* pending_ev */
    ze_array_t chars;  /* path bytes, NUL-terminated each */
    ze_hashmap_t last; /* path hash -> index of its latest mergeable event */
    uint64_t first_ns, last_ns;
} ev_batch;

typedef struct pending_move {
    uint32_t cookie;
    uint32_t slot;
    ze_path_t path;
    bool is_dir;
    bool temp;                   /* the temporary file of an atomic write */
    ze_vfs_event_kind temp_kind; /* what the write means for the target */
    uint32_t ticks;              /* drains survived unpaired */
} pending_move;

struct ze__vfs_watcher {
    int fd; /* inotify, -1 until a disk mount is watched */
    bool limit_warned;
    ze_array_t watches; /* watch_entry */
    ze_hashmap_t by_wd; /* int wd -> uint32 index */
    ze_array_t moves;   /* pending_move */
    pthread_mutex_t lock;
    ev_batch cur, out;
    uint8_t *buf;
};

/* ------------------------------------------------------------------ batch */

static void batch_init(ze_vfs_t *vfs, ev_batch *b)
{
    ZE_ARRAY_INIT(&b->events, vfs->alloc, pending_ev);
    ZE_ARRAY_INIT(&b->chars, vfs->alloc, char);
    ze_hashmap_init(&b->last, vfs->alloc, sizeof(uint64_t), sizeof(uint32_t));
    b->first_ns = b->last_ns = 0;
}

static void batch_free(ev_batch *b)
{
    ze_array_free(&b->events);
    ze_array_free(&b->chars);
    ze_hashmap_free(&b->last);
}

static void batch_clear(ev_batch *b)
{
    ze_array_clear(&b->events);
    ze_array_clear(&b->chars);
    ze_hashmap_clear(&b->last);
}

static bool push_chars(ev_batch *b, const ze_path_t *p, uint32_t *off)
{
    *off = b->chars.count;
    if (ze_array_resize(&b->chars, b->chars.count + p->len + 1) != ZE_OK)
        return false;
    memcpy((char *)b->chars.data + *off, p->str, p->len + 1);
    return true;
}

static const char *ev_path(const ev_batch *b, uint32_t off)
{
    return (const char *)b->chars.data + off;
}

/* The latest mergeable event for p, or NULL. */
static pending_ev *latest(ev_batch *b, const ze_path_t *p, uint64_t h)
{
    uint32_t *idx = ze_hashmap_get(&b->last, &h);
    if (!idx)
        return NULL;
    pending_ev *e = &ZE_ARRAY_AT(&b->events, pending_ev, *idx);
    /* The map is keyed by hash: check the path itself. */
    if (e->kind == 0 || e->path_len != p->len || memcmp(ev_path(b, e->path_off), p->str, p->len))
        return NULL;
    return e;
}

static void append(ev_batch *b, ze_vfs_event_kind kind, bool is_dir, const ze_path_t *p,
                   const ze_path_t *old, uint64_t h, bool mergeable)
{
    pending_ev e = {.kind = kind, .is_dir = is_dir, .path_len = p->len};
    if (!push_chars(b, p, &e.path_off))
        goto oom;
    if (old) {
        e.old_len = old->len;
        if (!push_chars(b, old, &e.old_off))
            goto oom;
    }
    uint32_t idx = b->events.count;
    if (ze_array_push(&b->events, &e) != ZE_OK)
        goto oom;
    if (mergeable)
        ze_hashmap_put(&b->last, &h, &idx);
    else
        ze_hashmap_remove(&b->last, &h);
    return;
oom:
    ZE__VFS_REPORT((ze_vfs_t *)NULL, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                   "watcher: out of memory, event for '%s' lost", p->str);
}

/* prev then next on one path: the kind that sums them up, 0 for nothing. */
static ze_vfs_event_kind merge(ze_vfs_event_kind prev, ze_vfs_event_kind next)
{
    switch (prev) {
    case ZE_VFS_EVENT_CREATED:
        return next == ZE_VFS_EVENT_DELETED ? 0 : ZE_VFS_EVENT_CREATED;
    case ZE_VFS_EVENT_MODIFIED:
        return next == ZE_VFS_EVENT_DELETED ? ZE_VFS_EVENT_DELETED : ZE_VFS_EVENT_MODIFIED;
    case ZE_VFS_EVENT_DELETED:
        return next == ZE_VFS_EVENT_DELETED ? ZE_VFS_EVENT_DELETED : ZE_VFS_EVENT_MODIFIED;
    default:
        return next;
    }
}

static void raw_locked(ze__vfs_watcher *w, ze_vfs_event_kind kind, bool is_dir, const ze_path_t *p,
                       const ze_path_t *old)
{
    ev_batch *b = &w->cur;
    uint64_t now = ze_time_now_ns();
    if (b->events.count == 0)
        b->first_ns = now;
    b->last_ns = now;
    uint64_t h = ze_path_hash(p);
    if (kind == ZE_VFS_EVENT_RESCAN) {
        append(b, kind, true, p, NULL, h, false);
        return;
    }
    if (kind == ZE_VFS_EVENT_RENAMED) {
        uint64_t ho = ze_path_hash(old);
        pending_ev *po = latest(b, old, ho);
        if (po)
            ze_hashmap_remove(&b->last, &ho); /* later events on old start afresh */
        if (po && po->kind == ZE_VFS_EVENT_CREATED) {
            /* Created and moved within one window: created where it is now. */
            po->kind = 0;
            kind = ZE_VFS_EVENT_CREATED;
        } else {
            append(b, kind, is_dir, p, old, h, false);
            return;
        }
    }
    pending_ev *prev = latest(b, p, h);
    if (prev) {
        prev->kind = merge(prev->kind, kind);
        prev->is_dir = is_dir;
        if (prev->kind == 0)
            ze_hashmap_remove(&b->last, &h);
        return;
    }
    append(b, kind, is_dir, p, NULL, h, true);
}

void ze__vfs_watch_raw(ze_vfs_t *vfs, ze_vfs_event_kind kind, bool is_dir, const ze_path_t *path,
                       const ze_path_t *old_path)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (!w)
        return;
    if (!vfs->include_hidden) {
        ze_path_part_t n = ze_path_name(path);
        if (n.len && ze__name_hidden(n.ptr))
            return;
    }
    pthread_mutex_lock(&w->lock);
    raw_locked(w, kind, is_dir, path, old_path);
    pthread_mutex_unlock(&w->lock);
}

/* --------------------------------------------------------------- watches */

static watch_entry *watch_at(ze__vfs_watcher *w, uint32_t i)
{
    return &ZE_ARRAY_AT(&w->watches, watch_entry, i);
}

static void watch_remove_at(ze_vfs_t *vfs, uint32_t i, bool rm_kernel)
{
    ze__vfs_watcher *w = vfs->watcher;
    watch_entry *e = watch_at(w, i);
    if (rm_kernel)
        inotify_rm_watch(w->fd, e->wd);
    ze_hashmap_remove(&w->by_wd, &e->wd);
    ze_free(vfs->alloc, e->rel, e->rel_len + 1);
    uint32_t last = w->watches.count - 1;
    if (i != last) {
        *e = *watch_at(w, last);
        ze_hashmap_put(&w->by_wd, &e->wd, &i);
    }
    w->watches.count--;
}

static char *dup_rel(ze_vfs_t *vfs, const char *rel, size_t len)
{
    char *s = ze_alloc(vfs->alloc, len + 1, 1);
    if (s) {
        memcpy(s, rel, len);
        s[len] = '\0';
    }
    return s;
}

static bool ensure_fd(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (w->fd >= 0)
        return true;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0) {
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK,
                       "watcher: inotify unavailable (%s): disk changes not reported",
                       strerror(errno));
        return false;
    }
    return true;
}

/* Watch directory rel of mount slot. */
static bool add_watch(ze_vfs_t *vfs, uint32_t slot, const char *rel, size_t rel_len)
{
    ze__vfs_watcher *w = vfs->watcher;
    ze__vfs_mount *m = &vfs->mounts[slot];
    ze_result err;
    int dfd = ze__vfs_disk_open_dir(m->backend, rel, &err);
    if (dfd < 0)
        return false;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", dfd);
    int wd = inotify_add_watch(w->fd, proc, WATCH_MASK);
    int saved = errno;
    close(dfd);
    if (wd < 0) {
        if (saved == ENOSPC && !w->limit_warned) {
            w->limit_warned = true;
            ZE_LOG_WARN(ZE__VFS_CH,
                        "watcher: inotify watch limit reached (fs.inotify.max_user_watches); "
                        "changes below '%s/%s' are not reported",
                        m->point.str, rel);
        }
        return false;
    }
    char *copy = dup_rel(vfs, rel, rel_len);
    if (!copy) {
        inotify_rm_watch(w->fd, wd);
        return false;
    }
    uint32_t *idx = ze_hashmap_get(&w->by_wd, &wd);
    if (idx) {
        /* Same directory reached again (a rescan, or another path to it). */
        watch_entry *e = watch_at(w, *idx);
        ze_free(vfs->alloc, e->rel, e->rel_len + 1);
        e->rel = copy;
        e->rel_len = (uint32_t)rel_len;
        e->slot = slot;
        return true;
    }
    watch_entry e = {.wd = wd, .slot = slot, .rel = copy, .rel_len = (uint32_t)rel_len};
    uint32_t at = w->watches.count;
    if (ze_array_push(&w->watches, &e) != ZE_OK || ze_hashmap_put(&w->by_wd, &wd, &at) != ZE_OK) {
        if (w->watches.count > at)
            w->watches.count = at;
        ze_free(vfs->alloc, copy, rel_len + 1);
        inotify_rm_watch(w->fd, wd);
        return false;
    }
    return true;
}

static bool rel_within(const char *rel, uint32_t len, const char *dir, uint32_t dlen)
{
    if (dlen == 0)
        return true;
    return len >= dlen && memcmp(rel, dir, dlen) == 0 && (len == dlen || rel[dlen] == '/');
}

static void remove_watches_under(ze_vfs_t *vfs, uint32_t slot, const char *rel, uint32_t len)
{
    ze__vfs_watcher *w = vfs->watcher;
    for (uint32_t i = 0; i < w->watches.count;) {
        watch_entry *e = watch_at(w, i);
        if (e->slot == slot && rel_within(e->rel, e->rel_len, rel, len))
            watch_remove_at(vfs, i, true);
        else
            i++;
    }
}

static void repath_watches(ze_vfs_t *vfs, uint32_t slot, const char *from, uint32_t flen,
                           const char *to, uint32_t tlen)
{
    ze__vfs_watcher *w = vfs->watcher;
    for (uint32_t i = 0; i < w->watches.count; i++) {
        watch_entry *e = watch_at(w, i);
        if (e->slot != slot || !rel_within(e->rel, e->rel_len, from, flen))
            continue;
        uint32_t rest = e->rel_len - flen;
        char buf[ZE_PATH_CAPACITY * 2];
        if (tlen + rest >= sizeof buf)
            continue;
        memcpy(buf, to, tlen);
        memcpy(buf + tlen, e->rel + flen, rest);
        char *copy = dup_rel(vfs, buf, tlen + rest);
        if (!copy)
            continue;
        ze_free(vfs->alloc, e->rel, e->rel_len + 1);
        e->rel = copy;
        e->rel_len = tlen + rest;
    }
}

/* Walk directory rel of a disk mount: watch it and every directory below;
 * with `emit`, report each entry as created (a directory that appeared). */
typedef struct tree_walk {
    ze_vfs_t *vfs;
    uint32_t slot;
    bool emit;
    const char *dir;
    size_t dir_len;
    ze_array_t stack; /* char: NUL-separated rels still to visit */
} tree_walk;

static bool tree_sink(void *user, const char *name, size_t len, const ze_vfs_stat_t *st,
                      bool is_link)
{
    tree_walk *t = user;
    ze_vfs_t *vfs = t->vfs;
    if (!vfs->include_hidden && ze__name_hidden(name))
        return true;
    char rel[ZE_PATH_CAPACITY];
    int n = snprintf(rel, sizeof rel, "%.*s%s%.*s", (int)t->dir_len, t->dir, t->dir_len ? "/" : "",
                     (int)len, name);
    if (n < 0 || (size_t)n >= sizeof rel)
        return true;
    if (t->emit) {
        ze_path_t p;
        if (ze__vfs_mount_path(&vfs->mounts[t->slot], rel, (size_t)n, &p) == ZE_OK)
            ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_CREATED, st->is_dir, &p, NULL);
    }
    if (st->is_dir && !is_link) {
        uint32_t at = t->stack.count;
        if (ze_array_resize(&t->stack, at + (uint32_t)n + 1) == ZE_OK)
            memcpy((char *)t->stack.data + at, rel, (size_t)n + 1);
    }
    return true;
}

static void add_tree(ze_vfs_t *vfs, uint32_t slot, const char *rel, size_t rel_len, bool emit)
{
    if (!ensure_fd(vfs))
        return;
    tree_walk t = {.vfs = vfs, .slot = slot, .emit = emit};
    ZE_ARRAY_INIT(&t.stack, vfs->alloc, char);
    if (ze_array_resize(&t.stack, (uint32_t)rel_len + 1) != ZE_OK)
        return;
    memcpy(t.stack.data, rel, rel_len);
    ((char *)t.stack.data)[rel_len] = '\0';
    ze__vfs_backend *b = vfs->mounts[slot].backend;
    char dir[ZE_PATH_CAPACITY];
    while (t.stack.count > 0) {
        /* Pop the last NUL-terminated string. */
        uint32_t end = t.stack.count - 1, start = end;
        const char *s = t.stack.data;
        while (start > 0 && s[start - 1] != '\0')
            start--;
        size_t len = end - start;
        if (len >= sizeof dir) {
            t.stack.count = start;
            continue;
        }
        memcpy(dir, s + start, len + 1);
        t.stack.count = start;
        if (!add_watch(vfs, slot, dir, len))
            continue;
        t.dir = dir;
        t.dir_len = len;
        b->ops->list(b, dir, tree_sink, &t);
    }
    ze_array_free(&t.stack);
}

void ze__vfs_watch_mount_added(ze_vfs_t *vfs, uint32_t slot)
{
    if (vfs->watcher && vfs->mounts[slot].kind == ZE_VFS_BACKEND_DISK)
        add_tree(vfs, slot, "", 0, false);
}

void ze__vfs_watch_mount_removed(ze_vfs_t *vfs, uint32_t slot)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (!w)
        return;
    remove_watches_under(vfs, slot, "", 0);
    for (uint32_t i = 0; i < w->moves.count;) {
        if (ZE_ARRAY_AT(&w->moves, pending_move, i).slot == slot)
            ze_array_remove_swap(&w->moves, i);
        else
            i++;
    }
}

uint32_t ze_vfs_watch_count(const ze_vfs_t *vfs)
{
    return vfs && vfs->watcher ? vfs->watcher->watches.count : 0;
}

/* ------------------------------------------------------- inotify events */

static void overflow(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = vfs->watcher;
    ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK,
                   "watcher: kernel event queue overflowed; asking for a rescan");
    ze_array_clear(&w->moves);
    for (uint32_t i = 0; i < vfs->order_count; i++) {
        uint32_t slot = vfs->order[i];
        const ze__vfs_mount *m = &vfs->mounts[slot];
        if (!m->watch || m->kind != ZE_VFS_BACKEND_DISK)
            continue;
        ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_RESCAN, true, &m->point, NULL);
        add_tree(vfs, slot, "", 0, false); /* directories we may have missed */
    }
}

static pending_move *find_move(ze__vfs_watcher *w, uint32_t cookie, uint32_t *index)
{
    for (uint32_t i = 0; i < w->moves.count; i++) {
        pending_move *m = &ZE_ARRAY_AT(&w->moves, pending_move, i);
        if (m->cookie == cookie) {
            *index = i;
            return m;
        }
    }
    return NULL;
}

static void moved_away(ze_vfs_t *vfs, const pending_move *m)
{
    if (m->temp)
        return;
    ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_DELETED, m->is_dir, &m->path, NULL);
    if (m->is_dir && vfs->mounts[m->slot].used) {
        const char *rel = ze__path_rel(&m->path, &vfs->mounts[m->slot].point);
        remove_watches_under(vfs, m->slot, rel, (uint32_t)strlen(rel));
    }
}

static void handle_event(ze_vfs_t *vfs, const struct inotify_event *ev)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (ev->mask & IN_Q_OVERFLOW) {
        overflow(vfs);
        return;
    }
    uint32_t *idx = ze_hashmap_get(&w->by_wd, &ev->wd);
    if (ev->mask & IN_IGNORED) {
        if (idx)
            watch_remove_at(vfs, *idx, false); /* the kernel dropped it */
        return;
    }
    if (!idx || ev->len == 0)
        return;
    const watch_entry *we = watch_at(w, *idx);
    uint32_t slot = we->slot;
    ze__vfs_mount *mnt = &vfs->mounts[slot];
    if (!mnt->used)
        return;
    const char *name = ev->name;
    size_t nlen = strlen(name);
    bool is_dir = (ev->mask & IN_ISDIR) != 0;
    if (ze__path_name_is_temp(name, nlen)) {
        /* Only the rename that completes an atomic write matters. */
        if ((ev->mask & IN_MOVED_FROM) && ev->cookie) {
            char kind =
                nlen > sizeof(ZE__VFS_TMP_PREFIX) - 1 ? name[sizeof(ZE__VFS_TMP_PREFIX) - 1] : 'M';
            pending_move m = {.cookie = ev->cookie,
                              .slot = slot,
                              .temp = true,
                              .temp_kind =
                                  kind == 'C' ? ZE_VFS_EVENT_CREATED : ZE_VFS_EVENT_MODIFIED};
            m.path.len = 0;
            ze_array_push(&w->moves, &m);
        }
        return;
    }
    if (!vfs->include_hidden && ze__name_hidden(name))
        return;
    char rel[ZE_PATH_CAPACITY];
    int n = snprintf(rel, sizeof rel, "%s%s%s", we->rel, we->rel_len ? "/" : "", name);
    ze_path_t p;
    if (n < 0 || (size_t)n >= sizeof rel || ze__vfs_mount_path(mnt, rel, (size_t)n, &p) != ZE_OK) {
        ZE__VFS_REPORT(vfs, ZE_LOG_WARN, ZE_OK,
                       "watcher: change below '%s' with a path over the limit ignored",
                       mnt->point.str);
        return;
    }
    if (ev->mask & IN_CREATE) {
        ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_CREATED, is_dir, &p, NULL);
        if (is_dir)
            add_tree(vfs, slot, rel, (size_t)n, true);
    } else if (ev->mask & IN_DELETE) {
        ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_DELETED, is_dir, &p, NULL);
    } else if (ev->mask & IN_MOVED_FROM) {
        pending_move m = {.cookie = ev->cookie, .slot = slot, .path = p, .is_dir = is_dir};
        ze_array_push(&w->moves, &m);
    } else if (ev->mask & IN_MOVED_TO) {
        uint32_t mi;
        pending_move *m = find_move(w, ev->cookie, &mi);
        if (m && m->temp) {
            ze__vfs_watch_raw(vfs, m->temp_kind, false, &p, NULL);
        } else if (m && m->slot == slot) {
            ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_RENAMED, is_dir, &p, &m->path);
            if (is_dir) {
                const char *from = ze__path_rel(&m->path, &mnt->point);
                repath_watches(vfs, slot, from, (uint32_t)strlen(from), rel, (uint32_t)n);
            }
        } else {
            if (m)
                moved_away(vfs, m); /* from another mount: gone there */
            ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_CREATED, is_dir, &p, NULL);
            if (is_dir)
                add_tree(vfs, slot, rel, (size_t)n, true);
        }
        if (m)
            ze_array_remove_swap(&w->moves, mi);
    } else if (ev->mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB)) {
        if (!is_dir)
            ze__vfs_watch_raw(vfs, ZE_VFS_EVENT_MODIFIED, false, &p, NULL);
    }
}

static void read_inotify(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (w->fd < 0)
        return;
    for (;;) {
        ssize_t n = read(w->fd, w->buf, READ_BUF);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_IO, "watcher: read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(w->buf + off);
            handle_event(vfs, ev);
            off += (ssize_t)(sizeof(struct inotify_event) + ev->len);
        }
    }
    /* The queue is empty: a MOVED_FROM that waited a whole drain for its
     * MOVED_TO moved out of the watched tree. */
    for (uint32_t i = 0; i < w->moves.count;) {
        pending_move *m = &ZE_ARRAY_AT(&w->moves, pending_move, i);
        if (m->ticks++ >= 1) {
            pending_move copy = *m;
            ze_array_remove_swap(&w->moves, i);
            moved_away(vfs, &copy);
            continue;
        }
        i++;
    }
}

/* --------------------------------------------------------------- delivery */

static void deliver(ze_vfs_t *vfs, const ev_batch *b, uint32_t *count)
{
    for (uint32_t i = 0; i < b->events.count; i++) {
        const pending_ev *pe = &ZE_ARRAY_AT(&b->events, pending_ev, i);
        if (pe->kind == 0)
            continue;
        ze_path_t path, old;
        path.len = pe->path_len;
        memcpy(path.str, ev_path(b, pe->path_off), pe->path_len + 1);
        ze_vfs_event_t ev = {.kind = pe->kind, .is_dir = pe->is_dir, .path = &path};
        if (pe->kind == ZE_VFS_EVENT_RENAMED) {
            old.len = pe->old_len;
            memcpy(old.str, ev_path(b, pe->old_off), pe->old_len + 1);
            ev.old_path = &old;
        }
        ze__vfs_cache_update(vfs, &ev);
        if (pe->kind == ZE_VFS_EVENT_RENAMED && !ze__vfs_is_meta_name(&old))
            ze__vfs_meta_follow(vfs, &old, &path);
        if (pe->kind == ZE_VFS_EVENT_RESCAN && vfs->cache.count > 0)
            ze_vfs_scan_start(vfs, &(ze_vfs_scan_desc_t){.root = path.str}, NULL);
        for (uint32_t s = 0; s < ZE_VFS_MAX_SUBSCRIBERS; s++) {
            ze__vfs_subscriber sub = vfs->subs[s];
            if (sub.fn)
                sub.fn(sub.user, &ev);
        }
        (*count)++;
    }
}

uint32_t ze__vfs_watch_tick(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (!w)
        return 0;
    read_inotify(vfs);
    uint64_t now = ze_time_now_ns();
    pthread_mutex_lock(&w->lock);
    bool ready =
        w->cur.events.count > 0 && (now - w->cur.last_ns >= vfs->debounce_ns ||
                                    now - w->cur.first_ns >= MAX_DELAY_PERIODS * vfs->debounce_ns);
    if (ready) {
        ev_batch t = w->cur;
        w->cur = w->out;
        w->out = t;
    }
    pthread_mutex_unlock(&w->lock);
    uint32_t count = 0;
    if (ready) {
        deliver(vfs, &w->out, &count);
        batch_clear(&w->out);
    }
    return count;
}

/* ------------------------------------------------------------ subscribers */

ze_result ze_vfs_subscribe(ze_vfs_t *vfs, ze_vfs_event_fn fn, void *user,
                           ze_vfs_subscription_t *out)
{
    ZE_CHECK(vfs && fn, ZE_ERR_INVALID_ARG);
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    for (uint32_t s = 0; s < ZE_VFS_MAX_SUBSCRIBERS; s++) {
        if (vfs->subs[s].fn)
            continue;
        uint32_t gen = (++vfs->sub_gen) & 0xffffff;
        vfs->subs[s] = (ze__vfs_subscriber){fn, user, gen ? gen : 1};
        if (out)
            *out = (ze_vfs_subscription_t){(vfs->subs[s].gen << 8) | (s + 1)};
        return ZE_OK;
    }
    ZE__VFS_REPORT(vfs, ZE_LOG_ERROR, ZE_ERR_LIMIT, "subscribe: all %d subscriber slots are in use",
                   ZE_VFS_MAX_SUBSCRIBERS);
    return ZE_ERR_LIMIT;
}

void ze_vfs_unsubscribe(ze_vfs_t *vfs, ze_vfs_subscription_t sub)
{
    ZE_CHECK(vfs, );
    ZE_ASSERT(ze__vfs_on_owner(vfs));
    uint32_t s = (sub.id & 0xff) - 1;
    if ((sub.id & 0xff) == 0 || s >= ZE_VFS_MAX_SUBSCRIBERS)
        return;
    if (vfs->subs[s].fn && vfs->subs[s].gen == (sub.id >> 8))
        vfs->subs[s] = (ze__vfs_subscriber){0};
}

/* ---------------------------------------------------------------- lifetime */

ze_result ze__vfs_watch_init(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = ze_alloc(vfs->alloc, sizeof *w, _Alignof(ze__vfs_watcher));
    uint8_t *buf = ze_alloc(vfs->alloc, READ_BUF, _Alignof(struct inotify_event));
    if (!w || !buf) {
        ze_free(vfs->alloc, w, sizeof *w);
        ze_free(vfs->alloc, buf, READ_BUF);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->buf = buf;
    ZE_ARRAY_INIT(&w->watches, vfs->alloc, watch_entry);
    ZE_ARRAY_INIT(&w->moves, vfs->alloc, pending_move);
    ze_hashmap_init(&w->by_wd, vfs->alloc, sizeof(int), sizeof(uint32_t));
    pthread_mutex_init(&w->lock, NULL);
    batch_init(vfs, &w->cur);
    batch_init(vfs, &w->out);
    vfs->watcher = w;
    return ZE_OK;
}

void ze__vfs_watch_fini(ze_vfs_t *vfs)
{
    ze__vfs_watcher *w = vfs->watcher;
    if (!w)
        return;
    while (w->watches.count)
        watch_remove_at(vfs, w->watches.count - 1, true);
    if (w->fd >= 0)
        close(w->fd);
    ze_array_free(&w->watches);
    ze_array_free(&w->moves);
    ze_hashmap_free(&w->by_wd);
    batch_free(&w->cur);
    batch_free(&w->out);
    pthread_mutex_destroy(&w->lock);
    ze_free(vfs->alloc, w->buf, READ_BUF);
    ze_free(vfs->alloc, w, sizeof *w);
    vfs->watcher = NULL;
}
