/* vfs_internal.h — what the files of src/vfs share: the backend interface,
 * the context, mounts, the path table, and the hooks between the context,
 * the scanner, the watcher and the sidecars. Tests include it for the test
 * hooks (ze__vfs_disk_force_walk). */
#ifndef ZE_VFS_INTERNAL_H
#define ZE_VFS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/vfs.h"

#define ZE__VFS_CH "vfs"
/* A report without a subject to the VFS's sink (vfs NULL: the log). */
#define ZE__VFS_REPORT(vfs, level, code, ...) \
    ze_diag((vfs) ? &(vfs)->diag : NULL, level, code, ZE__VFS_CH, "", __VA_ARGS__)

/* Test hook of atomic writes (ze__vfs_set_write_hook): called once, when
 * half of the data (rounded down) has reached the temporary file. Returning
 * false abandons the write at that point as a crash would: the temporary
 * file stays on disk, the target is untouched, and the write returns
 * ZE_ERR_FAULT_INJECTED. */
typedef bool (*ze_vfs_write_hook_fn)(void *user, const char *path, uint64_t written, uint64_t size);
void ze__vfs_set_write_hook(ze_vfs_t *vfs, ze_vfs_write_hook_fn fn, void *user);
/* Temporary files of atomic writes: ".ze-tmp.<C|M>.<pid>.<n>.<name>", C when
 * the target did not exist, M when it was replaced (the watcher reports the
 * rename that completes the write as a creation or a modification). */
#define ZE__VFS_TMP_PREFIX ".ze-tmp."

/* ------------------------------------------------------------- backends */

typedef struct ze__vfs_backend ze__vfs_backend;

/* One directory entry from a backend; stat describes the target of links. */
typedef bool (*ze__vfs_list_sink)(void *user, const char *name, size_t len, const ze_vfs_stat_t *st,
                                  bool is_link);

typedef struct ze__vfs_write_opts {
    ze_vfs_write_hook_fn hook;
    void *hook_user;
    const char *vfs_path; /* for the hook */
    bool existed;         /* out: the target existed before */
} ze__vfs_write_opts;

/* `rel` is the path below the mount point without a leading slash ("" for
 * the backend's root), already normalized. */
typedef struct ze__vfs_backend_ops {
    ze_result (*stat)(ze__vfs_backend *b, const char *rel, ze_vfs_stat_t *out);
    ze_result (*read_file)(ze__vfs_backend *b, const char *rel, ze_allocator_t alloc,
                           ze_vfs_buffer_t *out);
    ze_result (*open)(ze__vfs_backend *b, const char *rel, ze_vfs_file_t *f);
    ze_result (*write)(ze__vfs_backend *b, const char *rel, const void *data, size_t size,
                       ze__vfs_write_opts *opts);
    ze_result (*remove)(ze__vfs_backend *b, const char *rel, bool *was_dir);
    ze_result (*mkdir)(ze__vfs_backend *b, const char *rel);
    ze_result (*rename)(ze__vfs_backend *b, const char *from, const char *to, bool *is_dir);
    ze_result (*list)(ze__vfs_backend *b, const char *rel, ze__vfs_list_sink sink, void *user);
    void (*destroy)(ze__vfs_backend *b);
} ze__vfs_backend_ops;

struct ze__vfs_backend {
    const ze__vfs_backend_ops *ops;
    ze_allocator_t alloc;
};

/* Memory backend file contents: immutable once published, shared by open
 * files, replaced whole by writes. */
typedef struct ze__vfs_blob {
    atomic_uint refs;
    size_t size;
    ze_allocator_t alloc;
    uint8_t data[];
} ze__vfs_blob;
void ze__vfs_blob_release(ze__vfs_blob *b);

struct ze_vfs_file_t {
    ze_allocator_t alloc;
    ze_diag_sink_t diag; /* the VFS's */
    int fd;              /* disk; -1 otherwise */
    ze__vfs_blob *blob;  /* memory */
    uint64_t size;
    uint64_t pos;
};

/* Disk backend. The root is held open (O_PATH); every open is resolved
 * beneath it with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or, where
 * the kernel lacks openat2, by a component-by-component O_NOFOLLOW walk that
 * follows links itself and refuses any that leave the root. */
ze_result ze__vfs_disk_create(ze_allocator_t alloc, const char *host_root, ze__vfs_backend **out,
                              bool *writable);
/* An fd for directory `rel` (O_RDONLY | O_DIRECTORY), resolved beneath the
 * root; -errno-like negative ze_result on failure is returned through err. */
int ze__vfs_disk_open_dir(ze__vfs_backend *b, const char *rel, ze_result *err);
/* Test hook: resolve with the fallback walk even when openat2 exists. */
void ze__vfs_disk_force_walk(ze__vfs_backend *b, bool on);
/* The same for every disk mount of a context. */
void ze__vfs_force_walk(ze_vfs_t *vfs, bool on);
ze_result ze__vfs_errno(int e);

ze_result ze__vfs_memfs_create(ze_allocator_t alloc, ze__vfs_backend **out);

/* --------------------------------------------------------- path table */

/* An open-addressing table keyed by path strings (compared in full, not by
 * hash alone), with a fixed-size payload per entry. Entries are dense
 * (swap-removed); pointers to them are invalidated by insert and remove. */
typedef struct ze__ptable_entry {
    char *path; /* NUL-terminated copy, owned */
    uint32_t len;
    uint32_t pad_;
    uint64_t hash;
} ze__ptable_entry;

typedef struct ze__ptable {
    ze_allocator_t alloc;
    uint8_t *entries; /* count * entry_size */
    uint32_t count, cap;
    uint32_t entry_size; /* header + payload, 16-aligned */
    uint32_t *index;     /* entry index + 1, 0 = empty */
    uint32_t index_cap;  /* power of two */
} ze__ptable;

void ze__ptable_init(ze__ptable *t, ze_allocator_t alloc, uint32_t payload_size);
void ze__ptable_free(ze__ptable *t);
static inline ze__ptable_entry *ze__ptable_at(const ze__ptable *t, uint32_t i)
{
    return (ze__ptable_entry *)(t->entries + (size_t)i * t->entry_size);
}
static inline void *ze__ptable_payload(ze__ptable_entry *e)
{
    return (uint8_t *)e + sizeof(ze__ptable_entry);
}
ze__ptable_entry *ze__ptable_find(const ze__ptable *t, const char *path, uint32_t len);
/* Finds or inserts (payload zeroed); *created tells which. NULL: no memory. */
ze__ptable_entry *ze__ptable_insert(ze__ptable *t, const char *path, uint32_t len, bool *created);
bool ze__ptable_remove(ze__ptable *t, const char *path, uint32_t len);

/* --------------------------------------------------------------- mounts */

typedef struct ze__vfs_mount {
    ze_path_t point;
    ze__vfs_backend *backend;
    char *host_root; /* disk only, owned */
    size_t host_root_len;
    ze_vfs_backend_kind kind;
    int32_t priority;
    uint32_t seq; /* mount order */
    uint32_t gen;
    bool used, read_only, opaque, watch;
} ze__vfs_mount;

/* Mounts that may hold a path, in the order reads try them. */
typedef struct ze__vfs_cands {
    uint32_t count;
    uint8_t slot[ZE_VFS_MAX_MOUNTS];
    const char *rel[ZE_VFS_MAX_MOUNTS];
} ze__vfs_cands;

/* Work handed to the owner thread: through the scheduler, or, when its ring
 * is full, a queue that ze_vfs_tick runs (never dropped, never spinning in a
 * worker that the owner might be waiting on). */
typedef struct ze__vfs_task ze__vfs_task;
struct ze__vfs_task {
    ze__vfs_task *next;
    ze_vfs_t *vfs;
    void (*run)(ze__vfs_task *t);
};

typedef struct ze__vfs_watcher ze__vfs_watcher;
typedef struct ze__vfs_scan ze__vfs_scan;

typedef struct ze__vfs_subscriber {
    ze_vfs_event_fn fn;
    void *user;
    uint32_t gen;
} ze__vfs_subscriber;

struct ze_vfs_t {
    ze_mem_t *mem;
    ze_allocator_t alloc;
    ze_job_system_t *jobs;
    ze_main_scheduler_t *sched;
    bool owns_sched;
    pthread_t owner;

    pthread_rwlock_t mount_lock; /* readers: every file operation; writer: (un)mount */
    ze__vfs_mount mounts[ZE_VFS_MAX_MOUNTS];
    uint8_t order[ZE_VFS_MAX_MOUNTS]; /* used slots, resolution order */
    uint32_t order_count;
    uint32_t mount_seq;
    bool cache_enabled;

    bool include_hidden;
    uint64_t debounce_ns;
    ze_vfs_write_hook_fn write_hook;
    void *write_hook_user;
    ze_diag_sink_t diag;

    /* tasks for the owner thread */
    pthread_mutex_t task_lock;
    ze__vfs_task *overflow_head, *overflow_tail;
    atomic_uint tasks_in_flight;
    atomic_bool stopping;

    /* scanner and content cache (owner thread) */
    ze__vfs_scan *scans;
    uint32_t next_scan_id;
    ze__ptable cache; /* payload: ze__cache_entry */
    uint64_t cache_seq;

    ze__vfs_watcher *watcher;
    ze__vfs_subscriber subs[ZE_VFS_MAX_SUBSCRIBERS];
    uint32_t sub_gen;
};

static inline bool ze__vfs_on_owner(const ze_vfs_t *vfs)
{
    return pthread_equal(pthread_self(), vfs->owner) != 0;
}

/* Resolution; the caller holds mount_lock for reading. */
void ze__vfs_resolve(ze_vfs_t *vfs, const ze_path_t *p, ze__vfs_cands *c);
/* A mount's VFS path for `rel` below it. */
ze_result ze__vfs_mount_path(const ze__vfs_mount *m, const char *rel, size_t rel_len,
                             ze_path_t *out);
ze_vfs_mount_id_t ze__vfs_mount_id(const ze_vfs_t *vfs, uint32_t slot);
/* Parse a user path; logs nothing. */
ze_result ze__vfs_path_arg(const char *path, ze_path_t *out);
const char *ze__path_rel(const ze_path_t *p, const ze_path_t *point);
bool ze__path_name_is_temp(const char *name, size_t len);
static inline bool ze__name_hidden(const char *name)
{
    return name[0] == '.';
}
/* Report a failed operation once, at the level its kind deserves, to the
 * VFS's sink (vfs NULL: the log). */
void ze__vfs_log_failure(ze_vfs_t *vfs, const char *op, const char *path, ze_result e);

/* Queue a task for the owner thread. */
void ze__vfs_post(ze_vfs_t *vfs, ze__vfs_task *t);
/* Owner thread: run queued tasks (the scheduler when owned, the overflow). */
void ze__vfs_run_tasks(ze_vfs_t *vfs);

/* A directory's merged listing across mounts, sorted by name. */
typedef struct ze__vfs_lentry {
    const char *name;
    uint32_t name_off, name_len;
    uint32_t rank; /* position of the mount in resolution order */
    bool is_link;
    ze_vfs_stat_t st;
} ze__vfs_lentry;
typedef struct ze__vfs_listing {
    ze_array_t entries; /* ze__vfs_lentry */
    ze_array_t names;   /* char, NUL-separated */
} ze__vfs_listing;
ze_result ze__vfs_list_collect(ze_vfs_t *vfs, const ze_path_t *dir, ze__vfs_listing *out);
void ze__vfs_listing_free(ze__vfs_listing *l);

/* Operations on one mount slot (sidecars, the watcher); take mount_lock. */
ze_result ze__vfs_stat_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, ze_vfs_stat_t *st);
ze_result ze__vfs_read_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, ze_allocator_t a,
                          ze_vfs_buffer_t *out);
ze_result ze__vfs_write_on(ze_vfs_t *vfs, uint32_t slot, const char *rel, const void *data,
                           size_t size);
ze_result ze__vfs_rename_on(ze_vfs_t *vfs, uint32_t slot, const char *from, const char *to);
/* The first mount (slot) where `p` exists, with its rel; -1 when none. */
int ze__vfs_find_existing(ze_vfs_t *vfs, const ze_path_t *p, ze_vfs_stat_t *st);

/* ------------------------------------------------------- scanner, cache */

typedef struct ze__cache_entry {
    ze_vfs_stat_t st;
    uint64_t seq; /* cache_seq at the last update */
} ze__cache_entry;

void ze__vfs_scans_stop(ze_vfs_t *vfs); /* destroy: wait for jobs, free */
void ze__vfs_scans_reap(ze_vfs_t *vfs); /* tick: free scans whose jobs are gone */
void ze__vfs_cache_update(ze_vfs_t *vfs, const ze_vfs_event_t *ev);

/* -------------------------------------------------------------- watcher */

ze_result ze__vfs_watch_init(ze_vfs_t *vfs);
void ze__vfs_watch_fini(ze_vfs_t *vfs);
/* Owner thread, mount table write-locked by the caller or not: takes what
 * it needs. */
void ze__vfs_watch_mount_added(ze_vfs_t *vfs, uint32_t slot);
void ze__vfs_watch_mount_removed(ze_vfs_t *vfs, uint32_t slot);
/* A change made through the VFS on an unwatched-by-the-kernel (memory)
 * mount; any thread. */
void ze__vfs_watch_raw(ze_vfs_t *vfs, ze_vfs_event_kind kind, bool is_dir, const ze_path_t *path,
                       const ze_path_t *old_path);
uint32_t ze__vfs_watch_tick(ze_vfs_t *vfs);

/* ------------------------------------------------------------- sidecars */

/* After a rename of a source (through the VFS or seen by the watcher):
 * move its sidecar. Owner thread or any thread (the VFS call). */
void ze__vfs_meta_follow(ze_vfs_t *vfs, const ze_path_t *from, const ze_path_t *to);
bool ze__vfs_is_meta_name(const ze_path_t *p);

#endif /* ZE_VFS_INTERNAL_H */
