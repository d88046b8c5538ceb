/* zengine/vfs.h — the virtual file system: paths, mounts, backends, scanner,
 * watcher, .meta sidecars.
 *
 * What: every file access of the engine goes through a ze_vfs_t. Paths are
 * normalized fixed-capacity values (ze_path_t, "/a/b/c.ext"). A mount table
 * maps VFS subtrees to backends (disk: every open resolved beneath the
 * backend's root, no `..`, absolute or symlink escape; memory: for tests and
 * generated content) with priorities: reads try the highest priority first and
 * fall through on not-found, writes go to the highest-priority writable mount.
 * Standard mounts: /ZodiacEngine (engine assets, priority -1), / (the project,
 * 0), /cache (<project>/.zengine/, writable, or disabled). Writes are atomic
 * (temporary file, fsync, rename, fsync of the directory). A scanner walks
 * trees on the job system and fills a content cache on the main thread; a
 * watcher (inotify, recursive, debounced) turns changes into events delivered
 * by ze_vfs_tick; `.meta` sidecars store per-file JSON (uuid, importer, hash,
 * artifacts, settings) and follow their file through renames.
 * Not: assets. The VFS knows files, not what they are: it never guesses
 * importers, and the asset module fills in the sidecars.
 * Threads: file operations (stat, read, open, write, delete, mkdir, rename,
 * list, meta read/write) may be called from any thread. The owner thread (the
 * one that created the ze_vfs_t, normally the main thread) alone calls mount,
 * unmount, tick, subscribe, scan start/wait and the content-cache functions;
 * watcher events and scan results reach it only inside ze_vfs_tick (scan
 * results through the MainThreadScheduler). A ze_vfs_file_t belongs to one
 * thread at a time.
 * Memory: the VFS allocates from the VFS owner of the memory manager in its
 * desc; a ze_path_t never allocates. Whole-file reads allocate from the
 * allocator the caller passes (or the VFS owner).
 * Errors: every operation returns ze_result (0 = ZE_OK). Failures the caller
 * cannot expect are reported once to the desc's diagnostics sink (default:
 * the log, channel "vfs"): escape attempts and permission refusals at WARN,
 * I/O at ERROR, with the operation and the path; routine outcomes (not
 * found, exists, not empty) are only returned.
 */
#ifndef ZENGINE_VFS_H
#define ZENGINE_VFS_H

#include "zengine/base.h"
#include "zengine/job.h"
#include "zengine/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

/* -------------------------------------------------------------------- path */

enum {
    ZE_PATH_CAPACITY = 512, /* bytes of ze_path_t.str, including the NUL */
    ZE_PATH_MAX_LEN = 511,  /* longest normalized path */
    ZE_PATH_NAME_MAX = 255, /* longest component (NAME_MAX on Linux) */
};

/* A normalized VFS path: absolute, '/'-separated, no `.` or `..`
 * components, no repeated or trailing slash ("/" is the root). Immutable
 * by convention: build one with ze_path_make/join, read `str`. A zeroed
 * ze_path_t (len 0) is "no path"; functions reject it. */
typedef struct ze_path_t {
    uint32_t len;               /* bytes before the NUL; 1 for "/" */
    char str[ZE_PATH_CAPACITY]; /* NUL-terminated */
} ze_path_t;

/* A view into a path (not NUL-terminated). */
typedef struct ze_path_part_t {
    const char *ptr;
    uint32_t len;
} ze_path_part_t;

/* Normalize `s` (NUL-terminated, or `len` bytes for ze_path_from): back
 * slashes count as slashes, repeated slashes fold, `.` is removed, `..`
 * removes the component before it and is ZE_ERR_PATH_ESCAPE above the root, a
 * trailing slash is dropped; a path without a leading slash is taken from the
 * root. ZE_ERR_INVALID_ARG for an empty string or a NUL inside `len`,
 * ZE_ERR_TOO_LONG when the result (or one component) is over the limits
 * above. No allocation; `out` is untouched on error. */
ze_result ze_path_make(const char *s, ze_path_t *out);
ze_result ze_path_from(const char *s, size_t len, ze_path_t *out);
/* `rel` below `base` ("a/../b", "/x": a leading slash does not reset to the
 * root); `..` may climb out of base but not above the root. An empty `rel`
 * gives base. out may be base. */
ze_result ze_path_join(const ze_path_t *base, const char *rel, ze_path_t *out);
/* The last component with `suffix` appended ("/a/t.png" + ".meta"); suffix
 * must not be empty or hold a slash; the root has no name to extend. */
ze_result ze_path_add_suffix(const ze_path_t *p, const char *suffix, ze_path_t *out);
ze_path_t ze_path_root(void);
/* "/a/b" -> "/a", "/a" -> "/", "/" -> "/". */
ze_path_t ze_path_parent(const ze_path_t *p);
/* "/a/b.tar.gz": name "b.tar.gz", extension ".gz", stem "b.tar". A name
 * starting with its only dot (".gitignore") has no extension; the root's
 * name is empty. */
ze_path_part_t ze_path_name(const ze_path_t *p);
ze_path_part_t ze_path_extension(const ze_path_t *p);
ze_path_part_t ze_path_stem(const ze_path_t *p);
bool ze_path_is_root(const ze_path_t *p);
/* True when p is dir or lies below it, component-wise ("/ab" is not within
 * "/a"). */
bool ze_path_is_within(const ze_path_t *p, const ze_path_t *dir);
/* Byte order of the strings (which sorts a directory before its entries). */
int ze_path_compare(const ze_path_t *a, const ze_path_t *b);
bool ze_path_eq(const ze_path_t *a, const ze_path_t *b);
uint64_t ze_path_hash(const ze_path_t *p); /* xxHash3 of str */

/* ------------------------------------------------------------ the context */

typedef struct ze_vfs_t ze_vfs_t;

typedef struct ze_vfs_desc_t {
    ze_mem_t *mem;                  /* required */
    ze_job_system_t *jobs;          /* the scanner's pool; NULL: scans run on the caller */
    ze_main_scheduler_t *scheduler; /* scan results; NULL: the VFS makes its own, drained
                                       by ze_vfs_tick. Must belong to the creating thread. */
    const char *project_root;       /* host directory mounted at "/" (priority 0); NULL: none */
    bool project_read_only;         /* mount the project read-only (sidecars go to /cache) */
    const char *engine_root;        /* host directory of /ZodiacEngine; NULL: the environment
                                       variable ZENGINE_ASSET_ROOT, else ZodiacEngine/ beside
                                       the executable, else the install prefix's
                                       share/zengine/ZodiacEngine */
    bool require_engine_assets;     /* a missing engine root fails creation (else: a warning
                                       and no /ZodiacEngine mount) */
    bool no_engine_mount;           /* do not look for engine assets at all */
    bool engine_writable;           /* mount /ZodiacEngine writable (engine development) */
    bool disable_cache;             /* no /cache even when <project>/.zengine/ is writable */
    bool watch;                     /* watch the project and engine mounts */
    uint32_t debounce_ms;           /* watcher quiet period before delivery; 0 = 80 */
    bool include_hidden;            /* scanner and watcher also see names starting with '.' */
    ze_diag_sink_t diag;            /* failures reported here; {0}: the log */
} ze_vfs_desc_t;

/* Creates the context and the standard mounts. ZE_ERR_NOT_FOUND when the
 * project root is missing, or the engine root with require_engine_assets. */
ze_result ze_vfs_create(const ze_vfs_desc_t *desc, ze_vfs_t **out);
/* Owner thread. Stops scans (waits for their jobs, runs the tasks they
 * posted to the scheduler), releases every watch, unmounts everything. Open
 * ze_vfs_file_t handles must be closed first. */
void ze_vfs_destroy(ze_vfs_t *vfs);
/* Owner thread, once per frame: runs scan results (when the VFS owns its
 * scheduler), reads the watcher and, once the changes have been quiet for
 * the debounce period (or after ten periods of continuous changes), delivers
 * them to subscribers, in order, on this thread. Returns the number of events
 * delivered. */
uint32_t ze_vfs_tick(ze_vfs_t *vfs);
/* Where the engine's packaged assets are looked for when a desc names none:
 * $ZENGINE_ASSET_ROOT (existence not checked), else ZodiacEngine/ beside the
 * executable when it exists, else <prefix>/share/zengine/ZodiacEngine of an
 * installed engine when it exists (ze_path_installed), else the path beside
 * the executable (for the error message). `from` (optional) says which. */
bool ze_vfs_default_engine_root(char *out, size_t cap, const char **from);
/* Whether /cache is a writable directory. */
bool ze_vfs_cache_enabled(const ze_vfs_t *vfs);

/* ------------------------------------------------------------------ mounts */

enum {
    ZE_VFS_MAX_MOUNTS = 32,
};

typedef struct ze_vfs_mount_id_t {
    uint32_t id; /* generation << 8 | slot + 1; 0 = none */
} ze_vfs_mount_id_t;

typedef enum ze_vfs_backend_kind {
    ZE_VFS_BACKEND_DEFAULT = 0, /* disk when host_root is set, else memory */
    ZE_VFS_BACKEND_DISK,
    ZE_VFS_BACKEND_MEMORY,
} ze_vfs_backend_kind;

typedef struct ze_vfs_mount_desc_t {
    const char *point; /* VFS directory where the backend appears; NULL = "/" */
    ze_vfs_backend_kind backend;
    const char *host_root; /* disk: an existing host directory */
    int32_t priority;      /* higher is tried first; ties: the longer point, then the
                              newer mount */
    bool read_only;        /* a disk root the process cannot write is read-only anyway */
    bool opaque;           /* paths below the point never fall through to mounts
                              outside it (/cache is opaque) */
    bool watch;            /* deliver change events for this mount */
} ze_vfs_mount_desc_t;

typedef struct ze_vfs_mount_info_t {
    ze_vfs_mount_id_t id;
    const char *point;     /* borrowed until unmount */
    const char *host_root; /* disk: borrowed until unmount; memory: NULL */
    ze_vfs_backend_kind backend;
    int32_t priority;
    bool read_only, opaque, watch;
} ze_vfs_mount_info_t;

/* Owner thread. ZE_ERR_NOT_FOUND / NOT_DIR for a bad host root,
 * ZE_ERR_LIMIT past ZE_VFS_MAX_MOUNTS. A watched disk mount adds its
 * directory watches now. */
ze_result ze_vfs_mount(ze_vfs_t *vfs, const ze_vfs_mount_desc_t *desc, ze_vfs_mount_id_t *out);
/* Owner thread. Open files of the mount stay readable until closed. */
ze_result ze_vfs_unmount(ze_vfs_t *vfs, ze_vfs_mount_id_t id);
/* The mounts in resolution order (highest priority first); returns how many
 * exist (may exceed max). */
uint32_t ze_vfs_mount_list(ze_vfs_t *vfs, ze_vfs_mount_info_t *out, uint32_t max);
/* Where a file is on the host (for tools that need a file name), from the
 * first disk mount where it exists, into buf. NOT_FOUND, or UNSUPPORTED for
 * memory mounts. The VFS's own opens never go through this string. */
ze_result ze_vfs_host_path(ze_vfs_t *vfs, const char *path, char *buf, size_t cap);

/* ----------------------------------------------------------- file access */

typedef struct ze_vfs_stat_t {
    uint64_t size;    /* bytes; 0 for directories */
    int64_t mtime_ns; /* modification time, ns since the Unix epoch */
    bool is_dir;
    bool read_only;          /* the mount that answered is read-only */
    ze_vfs_mount_id_t mount; /* the mount that answered */
} ze_vfs_stat_t;

/* A whole file: `size` bytes followed by a NUL (text is a C string). */
typedef struct ze_vfs_buffer_t {
    uint8_t *data;
    size_t size;
    ze_allocator_t alloc; /* where data came from */
} ze_vfs_buffer_t;
void ze_vfs_buffer_free(ze_vfs_buffer_t *b);

ze_result ze_vfs_stat(ze_vfs_t *vfs, const char *path, ze_vfs_stat_t *out);
bool ze_vfs_exists(ze_vfs_t *vfs, const char *path);
/* Reads the whole file; alloc {0} = the VFS owner's heap. */
ze_result ze_vfs_read_file(ze_vfs_t *vfs, const char *path, ze_allocator_t alloc,
                           ze_vfs_buffer_t *out);
/* Atomic replace on the highest-priority writable mount: readers see the
 * old content or the new, never a mix, and a crash leaves the old file. The
 * parent directory must exist. Temporary files (".ze-tmp.*") never appear in
 * listings, scans or events. */
ze_result ze_vfs_write_file(ze_vfs_t *vfs, const char *path, const void *data, size_t size);
/* A file or an empty directory, on the first mount that has it (which must
 * be writable). Sidecars are left alone: whether a file's identity dies with
 * it is the asset module's call. */
ze_result ze_vfs_delete(ze_vfs_t *vfs, const char *path);
/* One directory on the highest-priority writable mount (parent must exist);
 * ZE_ERR_EXISTS when it is there. */
ze_result ze_vfs_mkdir(ze_vfs_t *vfs, const char *path);
/* Every missing directory of the path; OK when it exists. */
ze_result ze_vfs_mkdirs(ze_vfs_t *vfs, const char *path);
/* Rename within the mount that has `from` (replacing `to`); the file's
 * sidecar moves with it, so its uuid follows. */
ze_result ze_vfs_rename(ze_vfs_t *vfs, const char *from, const char *to);

typedef struct ze_vfs_dirent_t {
    const char *name; /* NUL-terminated, valid during the callback */
    uint32_t name_len;
    bool is_symlink; /* the entry is a link (stat describes its target) */
    ze_vfs_stat_t stat;
} ze_vfs_dirent_t;
/* Return false to stop. */
typedef bool (*ze_vfs_list_fn)(void *user, const ze_vfs_dirent_t *entry);
/* The entries of a directory across every mount that has it (a name in a
 * higher-priority mount hides the same name below), plus mount points
 * directly inside it, sorted by name. Links whose target is outside the root
 * are left out. */
ze_result ze_vfs_list(ze_vfs_t *vfs, const char *dir, ze_vfs_list_fn fn, void *user);

/* Streamed reading. */
typedef struct ze_vfs_file_t ze_vfs_file_t;
typedef enum ze_vfs_whence { ZE_VFS_SEEK_SET = 0, ZE_VFS_SEEK_CUR, ZE_VFS_SEEK_END } ze_vfs_whence;
ze_result ze_vfs_open(ze_vfs_t *vfs, const char *path, ze_vfs_file_t **out);
/* Up to n bytes at the current position; *got = 0 at the end. */
ze_result ze_vfs_file_read(ze_vfs_file_t *f, void *buf, size_t n, size_t *got);
/* Positions past the end are allowed (reads there return 0 bytes); before
 * the start is ZE_ERR_INVALID_ARG. */
ze_result ze_vfs_file_seek(ze_vfs_file_t *f, int64_t offset, ze_vfs_whence whence);
uint64_t ze_vfs_file_tell(const ze_vfs_file_t *f);
uint64_t ze_vfs_file_size(const ze_vfs_file_t *f); /* at open */
void ze_vfs_file_close(ze_vfs_file_t *f);

/* ---------------------------------------------------------------- watcher */

typedef enum ze_vfs_event_kind {
    ZE_VFS_EVENT_CREATED = 1,
    ZE_VFS_EVENT_MODIFIED, /* content or attributes; also a file replaced by rename */
    ZE_VFS_EVENT_DELETED,
    ZE_VFS_EVENT_RENAMED, /* old_path -> path, within the watched mounts */
    ZE_VFS_EVENT_RESCAN,  /* changes were lost (kernel queue overflow): rescan `path` */
} ze_vfs_event_kind;

typedef struct ze_vfs_event_t {
    ze_vfs_event_kind kind;
    bool is_dir;
    const ze_path_t *path;     /* borrowed for the callback */
    const ze_path_t *old_path; /* RENAMED only, else NULL */
} ze_vfs_event_t;

typedef void (*ze_vfs_event_fn)(void *user, const ze_vfs_event_t *event);

typedef struct ze_vfs_subscription_t {
    uint32_t id;
} ze_vfs_subscription_t;

enum { ZE_VFS_MAX_SUBSCRIBERS = 32 };

/* Owner thread. Subscribers are called from ze_vfs_tick in subscription
 * order; one may unsubscribe (itself or another) from its callback. */
ze_result ze_vfs_subscribe(ze_vfs_t *vfs, ze_vfs_event_fn fn, void *user,
                           ze_vfs_subscription_t *out);
void ze_vfs_unsubscribe(ze_vfs_t *vfs, ze_vfs_subscription_t sub);
/* Directories watched right now (inotify watches). */
uint32_t ze_vfs_watch_count(const ze_vfs_t *vfs);

/* ------------------------------------------------ scanner and content cache */

typedef struct ze_vfs_scan_id_t {
    uint32_t id; /* 0 = none */
} ze_vfs_scan_id_t;

typedef struct ze_vfs_scan_stats_t {
    uint64_t files;
    uint64_t dirs;
    uint64_t errors;  /* directories that could not be listed, paths over the limit */
    uint64_t removed; /* cache entries under the root that no longer exist */
    uint64_t elapsed_ns;
} ze_vfs_scan_stats_t;

/* Main thread, per entry, as results arrive (order between directories is
 * not defined). */
typedef void (*ze_vfs_scan_entry_fn)(void *user, const ze_path_t *path, const ze_vfs_stat_t *st);
typedef void (*ze_vfs_scan_done_fn)(void *user, ze_vfs_scan_id_t id,
                                    const ze_vfs_scan_stats_t *stats);

typedef struct ze_vfs_scan_desc_t {
    const char *root; /* VFS directory to walk; NULL = "/" */
    ze_vfs_scan_entry_fn on_entry;
    ze_vfs_scan_done_fn on_done;
    void *user;
} ze_vfs_scan_desc_t;

/* Owner thread. Walks `root` recursively, one job per directory; results
 * reach the content cache (and on_entry) on the owner thread; at the end,
 * cache entries under root that the walk did not see (and nothing updated
 * since it began) are removed, then on_done runs. Symlinked directories are
 * listed but not walked (no loops). Hidden names are skipped unless the
 * desc's include_hidden. */
ze_result ze_vfs_scan_start(ze_vfs_t *vfs, const ze_vfs_scan_desc_t *desc, ze_vfs_scan_id_t *out);
bool ze_vfs_scan_done(ze_vfs_t *vfs, ze_vfs_scan_id_t id);
/* Owner thread: block until the scan is done, running its results (this
 * drains the scheduler, which runs other tasks posted to it too). */
void ze_vfs_scan_wait(ze_vfs_t *vfs, ze_vfs_scan_id_t id);

/* The content cache (owner thread): what the scans and the watcher saw. */
ze_result ze_vfs_cache_get(ze_vfs_t *vfs, const char *path, ze_vfs_stat_t *out);
uint32_t ze_vfs_cache_count(const ze_vfs_t *vfs);
typedef bool (*ze_vfs_cache_fn)(void *user, const ze_path_t *path, const ze_vfs_stat_t *st);
/* Entries within `dir` (recursive, or direct children only), unordered;
 * return false to stop. O(entries in the cache). */
void ze_vfs_cache_foreach(ze_vfs_t *vfs, const char *dir, bool recursive, ze_vfs_cache_fn fn,
                          void *user);

/* ------------------------------------------------------------ .meta sidecars */

enum {
    ZE_VFS_META_VERSION = 1,       /* the format version written */
    ZE_VFS_META_IMPORTER_MAX = 64, /* importer name, including the NUL */
    ZE_VFS_META_MAX_ARTIFACTS = 64,
    ZE_VFS_META_MAX_DEPENDENCIES = 4096,
    ZE_VFS_META_MAX_SUB_ASSETS = 65536,
    ZE_VFS_META_MAX_SETTINGS = 1 << 20, /* bytes of the settings object's JSON */
    ZE_VFS_META_MAX_FILE = 4 << 20,     /* bytes of a sidecar file */
};

/* A file an artifact was cooked from besides its source (a glTF's .bin,
 * its images), with the content hash it had then. */
typedef struct ze_vfs_meta_dep_t {
    ze_path_t path; /* VFS path */
    uint64_t hash;  /* as source_hash; 0 = unknown (never compared) */
} ze_vfs_meta_dep_t;

/* The content of "<file>.meta". The VFS stores it; the asset module fills
 * it in. Arrays and the settings text come from `alloc`. */
typedef struct ze_vfs_meta_t {
    uint32_t version; /* of the file read; written files get ZE_VFS_META_VERSION */
    ze_uuid_t uuid;   /* required, not nil */
    char importer[ZE_VFS_META_IMPORTER_MAX];
    uint64_t source_hash;  /* of the source content (xxHash3 by convention), 0 = none */
    int64_t import_time;   /* seconds since the Unix epoch, 0 = never */
    ze_array_t artifacts;  /* of ze_path_t: cooked outputs */
    ze_array_t sub_assets; /* of ze_uuid_t */
    /* of ze_vfs_meta_dep_t, sorted by path as added. A sidecar written
       before dependencies were recorded has none and dependencies_known
       false: its artifacts cannot be trusted to be current. */
    ze_array_t dependencies;
    bool dependencies_known;
    /* Identity of the importer settings the artifacts were cooked with
       (the asset module's hash of the validated settings), 0 = none. */
    uint64_t settings_hash;
    char *settings; /* importer settings, a JSON object kept as compact text
                       (NUL-terminated); NULL = {} */
    size_t settings_len;
    ze_allocator_t alloc;
    bool uuid_recovered; /* set by a rejected parse: `uuid` is the file's */
} ze_vfs_meta_t;

/* alloc {0} = the system allocator (tools, fuzzing). */
void ze_vfs_meta_init(ze_vfs_meta_t *m, ze_allocator_t alloc);
void ze_vfs_meta_free(ze_vfs_meta_t *m); /* back to an empty, initialised meta */
ze_result ze_vfs_meta_add_artifact(ze_vfs_meta_t *m, const char *path);
ze_result ze_vfs_meta_add_sub_asset(ze_vfs_meta_t *m, ze_uuid_t uuid);
/* Also sets dependencies_known. */
ze_result ze_vfs_meta_add_dependency(ze_vfs_meta_t *m, const char *path, uint64_t hash);
/* Must be a JSON object; stored compact. NULL clears. */
ze_result ze_vfs_meta_set_settings(ze_vfs_meta_t *m, const char *json, size_t len);

/* Parse sidecar text into m (which must be initialised; it is reset
 * first). ZE_ERR_PARSE, or ZE_ERR_UNSUPPORTED for a newer format version,
 * with the reason reported to `diag` (NULL: the log) at WARN. After a
 * rejection m->uuid_recovered says whether m->uuid is still the file's uuid
 * (regenerate the rest and write it back to keep the identity). */
ze_result ze_vfs_meta_parse(const char *text, size_t len, ze_vfs_meta_t *m,
                            const ze_diag_sink_t *diag);
/* The sidecar text (indented JSON, stable key order, trailing newline);
 * parse(format(m)) gives m back. alloc {0} = the system allocator. */
ze_result ze_vfs_meta_format(const ze_vfs_meta_t *m, ze_allocator_t alloc, ze_vfs_buffer_t *out);

/* Where the sidecar of `source` lives: "<source>.meta" on the mount that
 * provides the source when that mount is writable, else
 * "/cache/meta<source>.meta". NOT_FOUND when the source does not exist. */
ze_result ze_vfs_meta_path(ze_vfs_t *vfs, const char *source, ze_path_t *out);
/* Read and parse the sidecar of `source`. A malformed one is reported to the
 * VFS's sink (WARN, the sidecar's path and the reason) and returned as
 * ZE_ERR_PARSE; see m->uuid_recovered. */
ze_result ze_vfs_meta_read(ze_vfs_t *vfs, const char *source, ze_vfs_meta_t *m);
/* Atomically write the sidecar of `source` (creating /cache/meta/...
 * directories as needed). */
ze_result ze_vfs_meta_write(ze_vfs_t *vfs, const char *source, const ze_vfs_meta_t *m);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_VFS_H */
