/* The memory backend: a path table of files and directories under one mutex.
 * File contents are immutable blobs with a reference count: a write builds a
 * new blob and swaps it in (atomic, like the disk backend), and open files
 * keep reading the blob they opened. Meant for tests and generated content,
 * so listing and deleting directories scan the table (O(entries)). */
#include <string.h>
#include <time.h>

#include "vfs_internal.h"

typedef struct mem_node {
    ze__vfs_blob *blob; /* files; NULL for directories */
    int64_t mtime_ns;
    bool is_dir;
} mem_node;

typedef struct mem_backend {
    ze__vfs_backend base;
    pthread_mutex_t lock;
    ze__ptable nodes; /* payload: mem_node; the root "" is implicit */
} mem_backend;

static inline mem_backend *as_mem(ze__vfs_backend *b)
{
    return (mem_backend *)b;
}

static int64_t now_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void ze__vfs_blob_release(ze__vfs_blob *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        ze_free(b->alloc, b, sizeof(*b) + b->size);
}

static mem_node *node_of(ze__ptable_entry *e)
{
    return e ? (mem_node *)ze__ptable_payload(e) : NULL;
}

static mem_node *find(mem_backend *m, const char *rel)
{
    return node_of(ze__ptable_find(&m->nodes, rel, (uint32_t)strlen(rel)));
}

/* Checks that the parent of rel is a directory. Lock held. */
static ze_result parent_ok(mem_backend *m, const char *rel)
{
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return ZE_OK;
    mem_node *p = node_of(ze__ptable_find(&m->nodes, rel, (uint32_t)(slash - rel)));
    if (!p)
        return ZE_ERR_NOT_FOUND;
    return p->is_dir ? ZE_OK : ZE_ERR_NOT_DIR;
}

static void node_stat(const mem_node *n, ze_vfs_stat_t *out)
{
    memset(out, 0, sizeof *out);
    out->is_dir = n->is_dir;
    out->size = n->blob ? n->blob->size : 0;
    out->mtime_ns = n->mtime_ns;
}

static ze_result mem_stat(ze__vfs_backend *b, const char *rel, ze_vfs_stat_t *out)
{
    mem_backend *m = as_mem(b);
    if (!rel[0]) {
        memset(out, 0, sizeof *out);
        out->is_dir = true;
        return ZE_OK;
    }
    pthread_mutex_lock(&m->lock);
    mem_node *n = find(m, rel);
    ze_result e = ZE_ERR_NOT_FOUND;
    if (n) {
        node_stat(n, out);
        e = ZE_OK;
    }
    pthread_mutex_unlock(&m->lock);
    return e;
}

/* A reference to the blob of file rel. */
static ze_result take_blob(mem_backend *m, const char *rel, ze__vfs_blob **out)
{
    if (!rel[0])
        return ZE_ERR_IS_DIR;
    pthread_mutex_lock(&m->lock);
    mem_node *n = find(m, rel);
    ze_result e = ZE_OK;
    if (!n)
        e = ZE_ERR_NOT_FOUND;
    else if (n->is_dir)
        e = ZE_ERR_IS_DIR;
    else {
        atomic_fetch_add_explicit(&n->blob->refs, 1, memory_order_relaxed);
        *out = n->blob;
    }
    pthread_mutex_unlock(&m->lock);
    return e;
}

static ze_result mem_read_file(ze__vfs_backend *b, const char *rel, ze_allocator_t alloc,
                               ze_vfs_buffer_t *out)
{
    ze__vfs_blob *blob;
    ze_result e = take_blob(as_mem(b), rel, &blob);
    if (e)
        return e;
    uint8_t *data = ze_alloc(alloc, blob->size + 1, 16);
    if (!data) {
        ze__vfs_blob_release(blob);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memcpy(data, blob->data, blob->size);
    data[blob->size] = '\0';
    out->data = data;
    out->size = blob->size;
    out->alloc = alloc;
    ze__vfs_blob_release(blob);
    return ZE_OK;
}

static ze_result mem_open(ze__vfs_backend *b, const char *rel, ze_vfs_file_t *f)
{
    ze__vfs_blob *blob;
    ze_result e = take_blob(as_mem(b), rel, &blob);
    if (e)
        return e;
    f->blob = blob;
    f->size = blob->size;
    return ZE_OK;
}

static ze_result mem_write(ze__vfs_backend *b, const char *rel, const void *data, size_t size,
                           ze__vfs_write_opts *opts)
{
    mem_backend *m = as_mem(b);
    if (!rel[0])
        return ZE_ERR_IS_DIR;
    size_t bytes;
    if (!ze_size_add(sizeof(ze__vfs_blob), size, &bytes))
        return ZE_ERR_OUT_OF_MEMORY;
    ze__vfs_blob *blob = ze_alloc(b->alloc, bytes, 16);
    if (!blob)
        return ZE_ERR_OUT_OF_MEMORY;
    atomic_init(&blob->refs, 1);
    blob->size = size;
    blob->alloc = b->alloc;
    if (size)
        memcpy(blob->data, data, size / 2);
    if (opts->hook && !opts->hook(opts->hook_user, opts->vfs_path, size / 2, size)) {
        ze__vfs_blob_release(blob); /* a crash before the swap: nothing changed */
        return ZE_ERR_FAULT_INJECTED;
    }
    if (size)
        memcpy(blob->data + size / 2, (const uint8_t *)data + size / 2, size - size / 2);
    ze__vfs_blob *old = NULL;
    pthread_mutex_lock(&m->lock);
    ze_result e = parent_ok(m, rel);
    if (!e) {
        bool created;
        ze__ptable_entry *ent = ze__ptable_insert(&m->nodes, rel, (uint32_t)strlen(rel), &created);
        mem_node *n = node_of(ent);
        if (!n)
            e = ZE_ERR_OUT_OF_MEMORY;
        else if (n->is_dir)
            e = ZE_ERR_IS_DIR;
        else {
            opts->existed = !created;
            old = n->blob;
            n->blob = blob;
            n->mtime_ns = now_realtime_ns();
            blob = NULL;
        }
    }
    pthread_mutex_unlock(&m->lock);
    ze__vfs_blob_release(old);
    ze__vfs_blob_release(blob);
    return e;
}

/* Whether some entry lies below dir (rel "a" has "a/..."). Lock held. */
static bool has_children(mem_backend *m, const char *rel, size_t len)
{
    for (uint32_t i = 0; i < m->nodes.count; i++) {
        ze__ptable_entry *e = ze__ptable_at(&m->nodes, i);
        if (len == 0 || (e->len > len && e->path[len] == '/' && memcmp(e->path, rel, len) == 0))
            return true;
    }
    return false;
}

static ze_result mem_remove(ze__vfs_backend *b, const char *rel, bool *was_dir)
{
    mem_backend *m = as_mem(b);
    if (!rel[0])
        return ZE_ERR_DENIED;
    size_t len = strlen(rel);
    ze__vfs_blob *old = NULL;
    pthread_mutex_lock(&m->lock);
    mem_node *n = find(m, rel);
    ze_result e = ZE_OK;
    if (!n)
        e = ZE_ERR_NOT_FOUND;
    else if (n->is_dir && has_children(m, rel, len))
        e = ZE_ERR_NOT_EMPTY;
    else {
        *was_dir = n->is_dir;
        old = n->blob;
        ze__ptable_remove(&m->nodes, rel, (uint32_t)len);
    }
    pthread_mutex_unlock(&m->lock);
    ze__vfs_blob_release(old);
    return e;
}

static ze_result mem_mkdir(ze__vfs_backend *b, const char *rel)
{
    mem_backend *m = as_mem(b);
    if (!rel[0])
        return ZE_ERR_EXISTS;
    pthread_mutex_lock(&m->lock);
    ze_result e = parent_ok(m, rel);
    if (!e) {
        bool created;
        mem_node *n = node_of(ze__ptable_insert(&m->nodes, rel, (uint32_t)strlen(rel), &created));
        if (!n)
            e = ZE_ERR_OUT_OF_MEMORY;
        else if (!created)
            e = ZE_ERR_EXISTS;
        else {
            n->is_dir = true;
            n->mtime_ns = now_realtime_ns();
        }
    }
    pthread_mutex_unlock(&m->lock);
    return e;
}

/* Re-key one entry (lock held). */
static ze_result rekey(mem_backend *m, const char *from, uint32_t flen, const char *to,
                       uint32_t tlen)
{
    ze__ptable_entry *src = ze__ptable_find(&m->nodes, from, flen);
    if (!src)
        return ZE_ERR_NOT_FOUND;
    mem_node saved = *node_of(src);
    bool created;
    mem_node *dst = node_of(ze__ptable_insert(&m->nodes, to, tlen, &created));
    if (!dst)
        return ZE_ERR_OUT_OF_MEMORY;
    ze__vfs_blob *replaced = created ? NULL : dst->blob;
    *dst = saved;
    ze__ptable_remove(&m->nodes, from, flen);
    ze__vfs_blob_release(replaced);
    return ZE_OK;
}

static ze_result mem_rename(ze__vfs_backend *b, const char *from, const char *to, bool *is_dir)
{
    mem_backend *m = as_mem(b);
    if (!from[0] || !to[0])
        return ZE_ERR_DENIED;
    size_t flen = strlen(from), tlen = strlen(to);
    if (tlen > flen && to[flen] == '/' && memcmp(to, from, flen) == 0)
        return ZE_ERR_INVALID_ARG; /* a directory into itself */
    pthread_mutex_lock(&m->lock);
    mem_node *src = find(m, from);
    mem_node *dst = find(m, to);
    ze_result e = parent_ok(m, to);
    if (!src)
        e = ZE_ERR_NOT_FOUND;
    else if (!e && dst && dst->is_dir != src->is_dir)
        e = dst->is_dir ? ZE_ERR_IS_DIR : ZE_ERR_NOT_DIR;
    else if (!e && dst && dst->is_dir && has_children(m, to, tlen))
        e = ZE_ERR_NOT_EMPTY;
    if (!e && !(flen == tlen && memcmp(from, to, flen) == 0)) {
        *is_dir = src->is_dir;
        if (src->is_dir) {
            /* Children first; entries move, so restart after each. */
            char path[2 * ZE_PATH_CAPACITY];
            for (uint32_t i = 0; !e && i < m->nodes.count;) {
                ze__ptable_entry *ent = ze__ptable_at(&m->nodes, i);
                if (ent->len > flen && ent->path[flen] == '/' &&
                    memcmp(ent->path, from, flen) == 0) {
                    size_t rest = ent->len - flen;
                    if (tlen + rest >= sizeof path) {
                        e = ZE_ERR_TOO_LONG;
                        break;
                    }
                    char old[ZE_PATH_CAPACITY];
                    memcpy(old, ent->path, ent->len + 1);
                    memcpy(path, to, tlen);
                    memcpy(path + tlen, old + flen, rest + 1);
                    e = rekey(m, old, (uint32_t)(flen + rest), path, (uint32_t)(tlen + rest));
                    i = 0;
                    continue;
                }
                i++;
            }
        }
        if (!e)
            e = rekey(m, from, (uint32_t)flen, to, (uint32_t)tlen);
    }
    pthread_mutex_unlock(&m->lock);
    return e;
}

static ze_result mem_list(ze__vfs_backend *b, const char *rel, ze__vfs_list_sink sink, void *user)
{
    mem_backend *m = as_mem(b);
    size_t len = strlen(rel);
    pthread_mutex_lock(&m->lock);
    ze_result e = ZE_OK;
    if (len) {
        mem_node *dir = find(m, rel);
        e = !dir ? ZE_ERR_NOT_FOUND : !dir->is_dir ? ZE_ERR_NOT_DIR : ZE_OK;
    }
    for (uint32_t i = 0; !e && i < m->nodes.count; i++) {
        ze__ptable_entry *ent = ze__ptable_at(&m->nodes, i);
        const char *name;
        if (len == 0)
            name = ent->path;
        else if (ent->len > len && ent->path[len] == '/' && memcmp(ent->path, rel, len) == 0)
            name = ent->path + len + 1;
        else
            continue;
        if (strchr(name, '/'))
            continue; /* deeper */
        ze_vfs_stat_t st;
        node_stat(node_of(ent), &st);
        if (!sink(user, name, strlen(name), &st, false))
            break;
    }
    pthread_mutex_unlock(&m->lock);
    return e;
}

static void mem_destroy(ze__vfs_backend *b)
{
    mem_backend *m = as_mem(b);
    for (uint32_t i = 0; i < m->nodes.count; i++)
        ze__vfs_blob_release(node_of(ze__ptable_at(&m->nodes, i))->blob);
    ze__ptable_free(&m->nodes);
    pthread_mutex_destroy(&m->lock);
    ze_free(b->alloc, m, sizeof *m);
}

static const ze__vfs_backend_ops mem_ops = {
    .stat = mem_stat,
    .read_file = mem_read_file,
    .open = mem_open,
    .write = mem_write,
    .remove = mem_remove,
    .mkdir = mem_mkdir,
    .rename = mem_rename,
    .list = mem_list,
    .destroy = mem_destroy,
};

ze_result ze__vfs_memfs_create(ze_allocator_t alloc, ze__vfs_backend **out)
{
    mem_backend *m = ze_alloc(alloc, sizeof *m, _Alignof(mem_backend));
    if (!m)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(m, 0, sizeof *m);
    m->base.ops = &mem_ops;
    m->base.alloc = alloc;
    pthread_mutex_init(&m->lock, NULL);
    ze__ptable_init(&m->nodes, alloc, sizeof(mem_node));
    *out = &m->base;
    return ZE_OK;
}
