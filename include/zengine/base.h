/* zengine/base.h — the engine's ground floor.
 *
 * What: result codes, assert tiers, logger, monotonic clock, signal names,
 * hashing, UUIDs, UTF-8 validation, plain math structs, the allocator
 * interface, a dynamic array and an open-addressing hash map that take an
 * allocator, and profiler zones with a Chrome trace-event writer.
 * Not: memory management (zengine/mem.h implements the allocator interface),
 * threads (zengine/job.h).
 * Threads: everything here is thread-safe except containers, which belong to
 * one thread at a time.
 * Memory: base never allocates on its own; containers and the profiler use the
 * allocator they are given. Globals (the documented list): the log
 * configuration and sink, the profiler hooks.
 * Errors: recoverable failures return ze_result (0 = ZE_OK) and report their
 * text through a diagnostics sink (ze_diag_sink_t, below): the one way every
 * module says what went wrong.
 */
#ifndef ZENGINE_BASE_H
#define ZENGINE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- results */

typedef enum ze_result {
    ZE_OK = 0,
    ZE_ERR_INVALID_ARG,   /* a parameter is out of its documented range */
    ZE_ERR_OUT_OF_MEMORY, /* the system refused memory (mmap, malloc) */
    ZE_ERR_BUDGET,        /* a memory owner's budget would be exceeded */
    ZE_ERR_FULL,          /* a bounded container or queue is full */
    ZE_ERR_EMPTY,         /* nothing to take */
    ZE_ERR_NOT_FOUND,
    ZE_ERR_EXISTS,
    ZE_ERR_IO,
    ZE_ERR_PARSE,       /* malformed input */
    ZE_ERR_UNSUPPORTED, /* valid but not handled (format version, feature) */
    ZE_ERR_LIMIT,       /* a documented hard limit was reached */
    ZE_ERR_STATE,       /* call not allowed in the object's current state */
    ZE_ERR_DENIED,      /* a policy, hook or permission refused */
    ZE_ERR_CONFLICT,
    ZE_ERR_CYCLE,
    ZE_ERR_TIMEOUT,
    ZE_ERR_FAULT_INJECTED, /* a test hook made this fail on purpose */
    ZE_ERR_INTERNAL,
    /* Paths and files (the VFS): */
    ZE_ERR_PATH_ESCAPE, /* `..` above the root, or a symlink out of it */
    ZE_ERR_TOO_LONG,    /* a path or name over its documented length */
    ZE_ERR_NOT_DIR,     /* a path component (or list/mkdir target) is not a directory */
    ZE_ERR_IS_DIR,      /* a file operation on a directory */
    ZE_ERR_NOT_EMPTY,   /* delete of a directory that has entries */
    ZE_ERR_READ_ONLY,   /* no writable place holds the path */
    ZE_ERR_CROSS_MOUNT, /* a rename between two mounts */
    ZE_ERR_LOOP,        /* too many symbolic links */
    ZE_RESULT_COUNT
} ze_result;

/* Stable, lowercase name of a result ("ok", "budget exceeded"...). */
const char *ze_result_str(ze_result r);

/* ------------------------------------------------------------ assert tiers */

/* Tier 1, ZE_ASSERT: debug builds only (ZE_DEBUG); programmer errors on hot
 * paths. Tier 2, ZE_CHECK: always compiled; logs and returns `ret` from the
 * calling function (define ZE_CHECK_ABORT to abort instead, for death tests
 * and debugging). Tier 3, ZE_VERIFY: always compiled, aborts with a message;
 * for states the program cannot continue from. */
void ze__assert_fail(const char *expr, const char *file, int line, const char *msg);
void ze__check_fail(const char *expr, const char *file, int line);

#define ZE_VERIFY(cond)                                       \
    do {                                                      \
        if (!(cond))                                          \
            ze__assert_fail(#cond, __FILE__, __LINE__, NULL); \
    } while (0)
#define ZE_VERIFY_MSG(cond, msg)                             \
    do {                                                     \
        if (!(cond))                                         \
            ze__assert_fail(#cond, __FILE__, __LINE__, msg); \
    } while (0)
#ifdef ZE_DEBUG
#define ZE_ASSERT(cond) ZE_VERIFY(cond)
#else
#define ZE_ASSERT(cond) ((void)0)
#endif
#ifdef ZE_CHECK_ABORT
#define ZE_CHECK(cond, ret) ZE_VERIFY(cond)
#else
#define ZE_CHECK(cond, ret)                            \
    do {                                               \
        if (!(cond)) {                                 \
            ze__check_fail(#cond, __FILE__, __LINE__); \
            return ret;                                \
        }                                              \
    } while (0)
#endif

#define ZE_UNUSED(x)      ((void)(x))
#define ZE_COUNTOF(a)     (sizeof(a) / sizeof((a)[0]))
#define ZE_MIN(a, b)      ((a) < (b) ? (a) : (b))
#define ZE_MAX(a, b)      ((a) > (b) ? (a) : (b))
#define ZE_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ZE_IS_POW2(x)     ((x) != 0 && (((x) & ((x)-1)) == 0))
#define ZE_KIB(x)         ((uint64_t)(x) << 10)
#define ZE_MIB(x)         ((uint64_t)(x) << 20)
#define ZE_GIB(x)         ((uint64_t)(x) << 30)

/* Overflow-checked size arithmetic: return false on overflow. */
static inline bool ze_size_add(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
static inline bool ze_size_mul(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* ------------------------------------------------------------------ logger */

typedef enum ze_log_level {
    ZE_LOG_TRACE = 0,
    ZE_LOG_DEBUG,
    ZE_LOG_INFO,
    ZE_LOG_WARN,
    ZE_LOG_ERROR,
    ZE_LOG_FATAL,
    ZE_LOG_OFF, /* as a threshold: nothing passes */
    ZE_LOG_LEVEL_COUNT
} ze_log_level;

enum {
    ZE_LOG_MESSAGE_MAX = 512, /* longer messages are truncated, marked "..." */
    ZE_LOG_CHANNEL_MAX = 16,  /* channel names are truncated to 15 chars */
};

/* One formatted message, as the sink and the ring buffer see it. */
typedef struct ze_log_record_t {
    uint64_t seq;     /* 1, 2, 3... process-wide order of emission */
    uint64_t time_ns; /* ze_time_now_ns() at emission */
    uint32_t thread;  /* ze_thread_id() of the emitter */
    ze_log_level level;
    char channel[ZE_LOG_CHANNEL_MAX];
    char message[ZE_LOG_MESSAGE_MAX];
} ze_log_record_t;

typedef void (*ze_log_sink_fn)(void *user, const ze_log_record_t *rec);

typedef struct ze_log_desc_t {
    ze_log_level level;  /* threshold; 0 (TRACE) is taken as "default": INFO,
                            or ZENGINE_LOG_LEVEL when set */
    bool explicit_level; /* use `level` as given, even TRACE */
    bool quiet;          /* no stderr output (a sink may still print) */
    ze_log_sink_fn sink; /* optional; called under the log lock */
    void *sink_user;
    ze_log_record_t *ring;  /* optional storage for the ring buffer */
    uint32_t ring_capacity; /* records in `ring`; a power of two */
} ze_log_desc_t;

/* Configure the process logger (callable any time; the last call wins).
 * Without a configured ring the logger keeps a small built-in ring of 64
 * records. ZENGINE_LOG_LEVEL (trace|debug|info|warn|error|fatal|off) sets
 * the default threshold. */
void ze_log_configure(const ze_log_desc_t *desc);
/* Back to defaults; forgets any ring storage the caller supplied. */
void ze_log_reset(void);
void ze_log_set_level(ze_log_level level);
ze_log_level ze_log_get_level(void);
/* Parse "trace".."off" (case-insensitive); ZE_ERR_PARSE otherwise. */
ze_result ze_log_level_parse(const char *s, ze_log_level *out);
const char *ze_log_level_name(ze_log_level level);

void ze_log(ze_log_level level, const char *channel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ze_logv(ze_log_level level, const char *channel, const char *fmt, va_list ap);
/* Copy records with seq > *cursor into out (oldest first); advances *cursor.
 * Returns the number copied. Records overwritten before being read are
 * skipped; *dropped (optional) receives how many. */
uint32_t ze_log_ring_read(uint64_t *cursor, ze_log_record_t *out, uint32_t max, uint64_t *dropped);
/* For crash handlers: write the last `max` records of the ring to `fd` as
 * text lines ("[warn ] channel: message"), using only write(2). Takes the
 * log lock only if it is free (the crashing thread may hold it) and reads
 * the ring without it otherwise (a record being written may come out
 * garbled). Returns the records written. */
uint32_t ze_log_crash_dump(int fd, uint32_t max);
/* Count of records emitted at or above `level` since start (tests use it). */
uint64_t ze_log_count(ze_log_level level);
void ze_log_flush(void);

#define ZE_LOG_TRACE(ch, ...) ze_log(ZE_LOG_TRACE, ch, __VA_ARGS__)
#define ZE_LOG_DEBUG(ch, ...) ze_log(ZE_LOG_DEBUG, ch, __VA_ARGS__)
#define ZE_LOG_INFO(ch, ...)  ze_log(ZE_LOG_INFO, ch, __VA_ARGS__)
#define ZE_LOG_WARN(ch, ...)  ze_log(ZE_LOG_WARN, ch, __VA_ARGS__)
#define ZE_LOG_ERROR(ch, ...) ze_log(ZE_LOG_ERROR, ch, __VA_ARGS__)
#define ZE_LOG_FATAL(ch, ...) ze_log(ZE_LOG_FATAL, ch, __VA_ARGS__)

/* ------------------------------------------------------------- diagnostics */

/* One report of a recoverable failure (or a warning worth a user's eyes).
 * The strings live only for the duration of the sink call. */
typedef struct ze_diag_t {
    ze_result code;      /* what failed; ZE_OK for a warning that failed nothing */
    ze_log_level level;  /* ZE_LOG_WARN or ZE_LOG_ERROR (INFO for notes) */
    const char *module;  /* "vfs", "asset", "cook", "ecs", "engine", "gfx"... */
    const char *subject; /* the path, asset, scene, system concerned; "" if none */
    const char *message; /* one line, no trailing newline: what happened and why */
} ze_diag_t;

typedef void (*ze_diag_fn)(void *user, const ze_diag_t *d);

/* Where a module reports: a field `diag` of the kernel, VFS, asset, cook and
 * app descriptions (objects made from those pass it on). {NULL, NULL} is the
 * default: the process logger, channel = module, "subject: message". A sink
 * may be called from any thread the module runs on; it must be thread-safe
 * when the module is (ze_diag_capture_t is). */
typedef struct ze_diag_sink_t {
    ze_diag_fn fn;
    void *user;
} ze_diag_sink_t;

/* Report through `sink` (NULL or fn NULL: the log). The message is formatted
 * into ZE_LOG_MESSAGE_MAX bytes. Returns `code`, so a failure path reads
 * `return ze_diag(sink, ZE_LOG_ERROR, ZE_ERR_PARSE, "ecs", path, "...")`. */
ze_result ze_diag(const ze_diag_sink_t *sink, ze_log_level level, ze_result code,
                  const char *module, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
ze_result ze_diagv(const ze_diag_sink_t *sink, ze_log_level level, ze_result code,
                   const char *module, const char *subject, const char *fmt, va_list ap);
/* Pass an already built report on (a sink that forwards). */
void ze_diag_emit(const ze_diag_sink_t *sink, const ze_diag_t *d);

enum { ZE_DIAG_TEXT_MAX = 640 }; /* "module: subject: message" */

/* The capture sink: keeps the first and the last report as one line of text
 * ("module: subject: message") with their codes, and counts reports; with
 * `pass_on`, also passes each on to `forward` ({0}: the log). Thread-safe.
 * For tests, for tools that print a failure their own way (the command
 * line, the cooker child's reply), and for a console. Zero-initialise, then
 * ze_diag_capture_sink. */
typedef struct ze_diag_capture_t {
    ze_diag_sink_t forward;
    bool pass_on;
    ze_log_level min_level; /* reports below it are counted, not kept (0: all kept) */
    uint32_t count;         /* reports received */
    uint32_t errors;        /* of them, at ZE_LOG_ERROR or above */
    ze_result first_code, last_code;
    char first[ZE_DIAG_TEXT_MAX];
    char last[ZE_DIAG_TEXT_MAX];
    char last_message[ZE_LOG_MESSAGE_MAX]; /* the last report's message alone */
    int lock_;                             /* internal */
} ze_diag_capture_t;
ze_diag_sink_t ze_diag_capture_sink(ze_diag_capture_t *c);
/* Format a report as the capture keeps it. Returns `buf`. */
const char *ze_diag_format(const ze_diag_t *d, char *buf, size_t cap);

/* ------------------------------------------------------------- time, ids */

uint64_t ze_time_now_ns(void); /* CLOCK_MONOTONIC */
/* CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID): what it
   spent working, not blocked. */
uint64_t ze_time_thread_cpu_ns(void);
double ze_time_now_s(void);
void ze_time_sleep_ns(uint64_t ns);
/* Small dense id of the calling thread: 1, 2, 3... in order of first call. */
uint32_t ze_thread_id(void);
/* Logical CPUs available to the process (sched_getaffinity), at least 1. */
uint32_t ze_cpu_count(void);
/* "SIGSEGV", "SIGABRT", "SIGBUS", "SIGFPE", "SIGILL", "SIGKILL", "SIGXCPU"
 * or "SIGTERM" for those signals, NULL for any other. Async-signal-safe
 * (static strings, no allocation): crash handlers call it. */
const char *ze_signal_name(int sig);
/* "<folder of the running program>/<name>" into out (from /proc/self/exe);
 * false when the program's path is unknown or the result does not fit. */
bool ze_path_beside_executable(const char *name, char *out, size_t cap);
/* Where an installed engine keeps a file: "<prefix>/<subdir>/<name>" (subdir
 * such as "bin" or "share/zengine"), the prefix being the one the shared
 * libzengine was loaded from, else the prefix the build was configured to
 * install to. false when no such file exists there. */
bool ze_path_installed(const char *subdir, const char *name, char *out, size_t cap);

/* ------------------------------------------------------------------ hashing */

/* xxHash3, 64-bit. */
uint64_t ze_hash64(const void *data, size_t len, uint64_t seed);
/* A fast bijective mixer for integer keys. */
static inline uint64_t ze_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
/* ----------------------------------------------------------------- random */

/* Deterministic PRNG (splitmix64 seeded xoshiro256**), one per user. */
typedef struct ze_rng_t {
    uint64_t s[4];
} ze_rng_t;
void ze_rng_seed(ze_rng_t *r, uint64_t seed);
uint64_t ze_rng_next(ze_rng_t *r);
/* Uniform in [0, bound) without modulo bias; bound > 0. */
uint64_t ze_rng_below(ze_rng_t *r, uint64_t bound);
double ze_rng_unit(ze_rng_t *r); /* [0, 1) */

/* -------------------------------------------------------------------- uuid */

typedef struct ze_uuid_t {
    uint8_t bytes[16];
} ze_uuid_t;

enum { ZE_UUID_STRING_LEN = 36 }; /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */

ze_uuid_t ze_uuid_v4(void);
/* Name-based (SHA-1) UUID of `name` in namespace `ns`: stable forever. */
ze_uuid_t ze_uuid_v5(ze_uuid_t ns, const void *name, size_t len);
/* Exactly 36 characters in canonical form (either case); no braces, no
 * trailing bytes. ZE_ERR_PARSE otherwise, *out untouched. */
ze_result ze_uuid_parse(const char *s, size_t len, ze_uuid_t *out);
/* Writes 36 lowercase characters and a NUL into buf[37]. */
void ze_uuid_format(ze_uuid_t u, char buf[ZE_UUID_STRING_LEN + 1]);
bool ze_uuid_is_nil(ze_uuid_t u);
bool ze_uuid_eq(ze_uuid_t a, ze_uuid_t b);
int ze_uuid_version(ze_uuid_t u);
/* The engine's namespace for v5 identities of sub-assets and similar. */
extern const ze_uuid_t ZE_UUID_NAMESPACE_ZENGINE;

/* -------------------------------------------------------------------- text */

/* Length (1 to 4) of the valid UTF-8 sequence that starts s[0..n), 0 when
 * none starts there (and when n is 0). Valid as RFC 3629 says: no overlong
 * forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. */
size_t ze_utf8_valid_len(const unsigned char *s, size_t n);

/* -------------------------------------------------------------------- math */

/* Plain public structs; cglm does the work behind the functions. Matrices
 * are column-major (m[column][row]), right-handed, as Vulkan/glTF expect. */
typedef struct ze_vec2_t {
    float x, y;
} ze_vec2_t;
typedef struct ze_vec3_t {
    float x, y, z;
} ze_vec3_t;
typedef struct ze_vec4_t {
    float x, y, z, w;
} ze_vec4_t;
typedef struct ze_quat_t {
    float x, y, z, w; /* identity = {0, 0, 0, 1} */
} ze_quat_t;
typedef struct ze_mat4_t {
    float m[4][4];
} ze_mat4_t;

#define ZE_QUAT_IDENTITY ((ze_quat_t){0.0f, 0.0f, 0.0f, 1.0f})

ze_vec3_t ze_vec3_add(ze_vec3_t a, ze_vec3_t b);
ze_vec3_t ze_vec3_sub(ze_vec3_t a, ze_vec3_t b);
ze_vec3_t ze_vec3_scale(ze_vec3_t a, float s);
float ze_vec3_dot(ze_vec3_t a, ze_vec3_t b);
ze_vec3_t ze_vec3_cross(ze_vec3_t a, ze_vec3_t b);
float ze_vec3_length(ze_vec3_t a);
ze_vec3_t ze_vec3_normalize(ze_vec3_t a); /* zero stays zero */
ze_vec3_t ze_vec3_lerp(ze_vec3_t a, ze_vec3_t b, float t);

ze_quat_t ze_quat_from_axis_angle(ze_vec3_t axis, float radians);
ze_quat_t ze_quat_mul(ze_quat_t a, ze_quat_t b);
ze_quat_t ze_quat_normalize(ze_quat_t q);
ze_quat_t ze_quat_slerp(ze_quat_t a, ze_quat_t b, float t);
ze_vec3_t ze_quat_rotate(ze_quat_t q, ze_vec3_t v);

ze_mat4_t ze_mat4_identity(void);
ze_mat4_t ze_mat4_mul(ze_mat4_t a, ze_mat4_t b); /* a * b */
ze_mat4_t ze_mat4_from_trs(ze_vec3_t t, ze_quat_t r, ze_vec3_t s);
/* false when the matrix is singular (out untouched). */
bool ze_mat4_inverse(ze_mat4_t m, ze_mat4_t *out);
ze_mat4_t ze_mat4_transpose(ze_mat4_t m);
ze_vec4_t ze_mat4_mul_vec4(ze_mat4_t m, ze_vec4_t v);
ze_vec3_t ze_mat4_transform_point(ze_mat4_t m, ze_vec3_t p);
/* Vulkan clip space: depth 0..1, y down. */
ze_mat4_t ze_mat4_perspective(float fovy_radians, float aspect, float znear, float zfar);
ze_mat4_t ze_mat4_look_at(ze_vec3_t eye, ze_vec3_t center, ze_vec3_t up);

/* -------------------------------------------------------------- allocator */

/* The allocator interface: one function and a user pointer. The function is
 * realloc-shaped: ptr == NULL allocates, new_size == 0 frees, otherwise it
 * resizes; old_size is the size the block was allocated with (allocators
 * that need it for accounting rely on it being exact). `align` is a power of
 * two; blocks are at least 16-byte aligned. Returns NULL on failure (and
 * leaves ptr valid). zengine/mem.h supplies implementations. */
typedef void *(*ze_alloc_fn)(void *user, void *ptr, size_t old_size, size_t new_size, size_t align);
typedef struct ze_allocator_t {
    ze_alloc_fn fn;
    void *user;
} ze_allocator_t;

static inline void *ze_alloc(ze_allocator_t a, size_t size, size_t align)
{
    return size ? a.fn(a.user, NULL, 0, size, align) : NULL;
}
static inline void ze_free(ze_allocator_t a, void *ptr, size_t size)
{
    if (ptr)
        a.fn(a.user, ptr, size, 0, 16);
}
static inline void *ze_realloc(ze_allocator_t a, void *ptr, size_t old_size, size_t new_size,
                               size_t align)
{
    return a.fn(a.user, ptr, old_size, new_size, align);
}
#define ZE_NEW(a, T)          ((T *)ze_alloc((a), sizeof(T), _Alignof(T)))
#define ZE_NEW_ARRAY(a, T, n) ((T *)ze_alloc((a), sizeof(T) * (size_t)(n), _Alignof(T)))

/* ------------------------------------------------------------ dynamic array */

/* A growable array of fixed-size elements. Pointers into it are invalidated
 * by any call that may grow it. */
typedef struct ze_array_t {
    void *data;
    uint32_t count;
    uint32_t capacity;
    uint32_t elem_size;
    uint32_t elem_align;
    ze_allocator_t alloc;
} ze_array_t;

void ze_array_init(ze_array_t *a, ze_allocator_t alloc, uint32_t elem_size, uint32_t elem_align);
void ze_array_free(ze_array_t *a);
ze_result ze_array_reserve(ze_array_t *a, uint32_t capacity);
ze_result ze_array_resize(ze_array_t *a, uint32_t count); /* new elements zeroed */
/* Appends a copy of *elem (NULL: a zeroed element). */
ze_result ze_array_push(ze_array_t *a, const void *elem);
bool ze_array_pop(ze_array_t *a, void *out); /* out may be NULL */
void ze_array_remove_swap(ze_array_t *a, uint32_t index);
void ze_array_remove_ordered(ze_array_t *a, uint32_t index);
void ze_array_clear(ze_array_t *a);
static inline void *ze_array_at(const ze_array_t *a, uint32_t i)
{
    return (char *)a->data + (size_t)i * a->elem_size;
}
#define ZE_ARRAY_INIT(a, alloc, T) ze_array_init((a), (alloc), sizeof(T), _Alignof(T))
#define ZE_ARRAY_AT(a, T, i)       (((T *)(a)->data)[(i)])

/* --------------------------------------------------------------- hash map */

/* Open addressing with linear probing and backward-shift deletion (no
 * tombstones). Keys and values are fixed-size byte blobs compared with
 * memcmp; keys are hashed with xxHash3. Load factor kept at or below 3/4.
 * Value pointers are invalidated by put/remove. */
typedef struct ze_hashmap_t {
    uint8_t *slots; /* [capacity] of {hash u64, key, value}, hash 0 = empty */
    uint32_t count;
    uint32_t capacity; /* power of two, or 0 */
    uint32_t key_size;
    uint32_t val_size;
    uint32_t slot_size;
    uint32_t val_offset;
    ze_allocator_t alloc;
} ze_hashmap_t;

void ze_hashmap_init(ze_hashmap_t *m, ze_allocator_t alloc, uint32_t key_size, uint32_t val_size);
void ze_hashmap_free(ze_hashmap_t *m);
ze_result ze_hashmap_reserve(ze_hashmap_t *m, uint32_t count);
/* Insert or overwrite. */
ze_result ze_hashmap_put(ze_hashmap_t *m, const void *key, const void *val);
/* Pointer to the value inside the map, or NULL. */
void *ze_hashmap_get(const ze_hashmap_t *m, const void *key);
bool ze_hashmap_remove(ze_hashmap_t *m, const void *key);
void ze_hashmap_clear(ze_hashmap_t *m);
/* Iteration: start with *cursor = 0; returns false at the end. */
bool ze_hashmap_next(const ze_hashmap_t *m, uint32_t *cursor, const void **key, void **val);

/* --------------------------------------------------------- profiler zones */

/* Per-thread begin/end zones written to Chrome trace-event JSON (opens in
 * Perfetto / chrome://tracing). Off until ze_trace_start; each thread records
 * into its own buffer of `events_per_thread` events (further events are
 * dropped and counted). Zone names must be string literals or otherwise
 * outlive the capture. With tracing off a zone costs one atomic load
 * and a branch (bench_trace `zones_off` measures it against zones compiled
 * out); defining ZE_TRACE_DISABLED before including this header compiles the
 * ZE_ZONE_ macros out. */
typedef struct ze_trace_desc_t {
    ze_allocator_t alloc;       /* required: buffers come from here */
    uint32_t events_per_thread; /* 0 = 65536 */
    uint32_t max_threads;       /* 0 = 64 */
    uint32_t gpu_events;        /* spans of the GPU track; 0 = 16384 */
} ze_trace_desc_t;

ze_result ze_trace_start(const ze_trace_desc_t *desc);
/* Stop recording and keep what was recorded for ze_trace_stop; any thread
 * may still be inside a zone (its end is not recorded: the writer closes
 * zones left open at their thread's last timestamp). No-op when not
 * recording. */
void ze_trace_pause(void);
/* Stop recording, write the capture (may be NULL to discard), free buffers.
 * Works after ze_trace_pause too. Call when no other thread is inside a
 * zone (threads joined or idle). ZE_ERR_STATE without a capture. The JSON:
 * "B"/"E" events per thread (zones), "X" events with "dur" on the GPU
 * track (tid 0), "M" thread_name events for named threads. */
ze_result ze_trace_stop(FILE *out);
bool ze_trace_active(void);
void ze_trace_begin(const char *name);
void ze_trace_end(void);
uint64_t ze_trace_dropped(void);
/* The calling thread's name in captures ("main", "render", "worker 2"): a
 * string that outlives every capture (a literal). Kept per thread, so it
 * may be called before a capture starts. */
void ze_trace_thread_name(const char *name);
/* A span of GPU work on the GPU track: times in ze_time_now_ns's clock
 * (the backend aligns its timestamps to it), the name copied (up to 31
 * bytes). Any thread; dropped and counted when the track is full. */
void ze_trace_gpu_span(const char *name, uint64_t begin_ns, uint64_t end_ns);

#ifdef ZE_TRACE_DISABLED
#define ZE_ZONE_BEGIN(name) ((void)(name))
#define ZE_ZONE_END()       ((void)0)
#else
/* Not API: the capture's switch. The macros test it inline, so with
 * tracing off a zone costs a load and a predicted branch, not two calls
 * (bench_trace's zones_off row: <= 1 % against zones compiled out). */
extern int ze__trace_on;
#define ZE__TRACE_ON() __builtin_expect(__atomic_load_n(&ze__trace_on, __ATOMIC_RELAXED), 0)
#define ZE_ZONE_BEGIN(name)       \
    do {                          \
        if (ZE__TRACE_ON())       \
            ze_trace_begin(name); \
    } while (0)
#define ZE_ZONE_END()       \
    do {                    \
        if (ZE__TRACE_ON()) \
            ze_trace_end(); \
    } while (0)
#endif

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_BASE_H */
