/* The start-up check of registered sources, off the main thread: is what a
 * `.meta` names still what its files would cook to? A pool job hashes the
 * source and every dependency the sidecar records (streamed, never whole
 * files in memory), checks that the artifacts exist and compares the
 * settings' identity; the verdicts come back to the coordinator through the
 * MainThreadScheduler, which applies them under a per-tick time budget.
 * Internal to the asset module. */
#ifndef ZE_ASSET_IMPORT_CHECK_H
#define ZE_ASSET_IMPORT_CHECK_H

#include <stdatomic.h>

#include "zengine/asset.h"

enum {
    ZE__CHECK_BATCH = 32, /* sources per job: few posts, still spread over workers */
    ZE__CHECK_WHY_MAX = 320,
};

typedef struct ze__check_item_t {
    ze_uuid_t source; /* nil for a discovery until the sidecar is read */
    ze_path_t path;
    char importer[16];
    /* ze_import_discover: the job reads the sidecar too (meta_ok: it read
       and names a uuid; else the main thread registers the usual way) */
    bool discover, meta_ok;
    ze_vfs_meta_t meta; /* as read at registration (or by the job); owned by the item */
    /* the verdict (the job's) */
    bool current;
    char why[ZE__CHECK_WHY_MAX]; /* when not current: what changed */
} ze__check_item_t;

typedef struct ze__check_batch_t {
    ze_vfs_t *vfs;
    ze_allocator_t alloc;
    void *owner; /* the coordinator */
    uint32_t count;
    uint32_t applied; /* main thread: verdicts applied so far */
    bool submitted;
    bool delivered;          /* main thread: the completion ran */
    atomic_bool done;        /* the job finished (its verdicts are written) */
    atomic_bool post_failed; /* the scheduler was full: the tick polls `done` */
    ze__check_item_t items[ZE__CHECK_BATCH];
} ze__check_batch_t;

/* Pool job body (any thread): every item's verdict. Touches only the VFS's
 * thread-safe file operations and the batch. */
void ze__check_run(ze__check_batch_t *b);

/* Streamed hash of a VFS file: the value the cooker records
 * (ze_hash64(bytes) | 1). */
ze_result ze__check_hash_file(ze_vfs_t *vfs, const char *path, uint64_t *out);

#endif
