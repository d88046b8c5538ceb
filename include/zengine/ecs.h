/* zengine/ecs.h — entities, components, queries, commands, systems, the
 * framework (kernel frame, groups, messages, bindings), snapshots, scene files,
 * prefabs.
 *
 * What: a kernel holds the component registry, the memory manager and the job
 * system; worlds are created from it. An entity is a 64-bit handle (32-bit
 * index + 32-bit generation, 0 invalid); a stale handle is never alive and
 * never reads another entity's data. Components are registered at run time
 * (up to ZE_MAX_COMPONENTS per kernel, also after worlds were filled) and
 * stored in one sparse set per type
 * with paged dense arrays; packs (owning storage sets; "group" is the word of
 * the system groups) keep the entities that have all of a set of components
 * packed at the front of those arrays in the same order, so a query over
 * them is a plain loop over arrays whatever order the components were added
 * in. Queries are cached per world, keyed by their full sets. Commands defer
 * structural changes. Systems (ze_system_add) run in the eight groups of the
 * frame, in dependency waves, in parallel on the job system where their
 * masks allow. Scene files (JSON through the components' field reflection)
 * and binary snapshots save and load worlds; prefabs copy entities out of a
 * world and instantiate them again.
 * Not: assets and rendering. A UUID field is a uuid to the ECS; names for
 * them in scene files ("/models/crate.gltf#mesh/0") go through a hook the
 * engine sets on the kernel (ze_kernel_set_scene_names). Render sync and
 * physics live above (engine).
 * Threads: a world belongs to one thread (the main thread). Inside a parallel
 * wave, systems may read and write component values through their queries and
 * record commands into their own buffer (ze_tick_t.cmds); structural calls
 * on the world from a wave are refused with ZE_ERR_STATE.
 * Memory: everything comes from the kernel's memory manager, owner ECS.
 * Errors: ze_result for recoverable failures, the text through the kernel's
 * diagnostics sink (ze_kernel_desc_t.diag); pointers returned by get/add are
 * borrows valid until the next structural change of that component type.
 */
#ifndef ZENGINE_ECS_H
#define ZENGINE_ECS_H

#include "zengine/base.h"
#include "zengine/job.h"
#include "zengine/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    ZE_MAX_COMPONENTS = 65535,    /* component types per kernel (ids fit 16 bits) */
    ZE_MAX_MESSAGE_TYPES = 65535, /* message types per kernel */
    ZE_MASK_MAX = 31,             /* component types in one ze_mask_t */
    ZE_DEFAULT_WORLD_CAPACITY = 1u << 20,
    ZE_MAX_WORLD_CAPACITY = 1u << 28, /* 268 M entity slots */
    ZE_DEFAULT_ACTOR_CAPACITY = 1024,
    ZE_COMPONENT_NAME_MAX = 64,
};

typedef struct ze_kernel_t ze_kernel_t;
typedef struct ze_world_t ze_world_t;

/* ------------------------------------------------------------ entities */

typedef struct ze_entity_t {
    uint64_t id; /* generation << 32 | index; 0 = none */
} ze_entity_t;

#define ZE_ENTITY_NULL ((ze_entity_t){0})
static inline uint32_t ze_entity_index(ze_entity_t e)
{
    return (uint32_t)e.id;
}
static inline uint32_t ze_entity_generation(ze_entity_t e)
{
    return (uint32_t)(e.id >> 32);
}
static inline bool ze_entity_eq(ze_entity_t a, ze_entity_t b)
{
    return a.id == b.id;
}
static inline bool ze_entity_is_null(ze_entity_t e)
{
    return e.id == 0;
}

/* ---------------------------------------------------------- components */

typedef struct ze_component_t {
    uint32_t id; /* 0..ZE_MAX_COMPONENTS-1 within its kernel */
} ze_component_t;

/* A set of component types: up to ZE_MASK_MAX ids, ascending, no repeats
 * (what a query term, a system's reads or a pack lists). A value (64
 * bytes); build it with ZE_MASK / ze_mask_make, combine with ze_mask_or and
 * friends. An operation whose result would hold more than ZE_MASK_MAX types
 * gives an overflowed mask (count ZE_MASK_OVERFLOW), which every call
 * taking a mask refuses with an error naming the limit. Masks are
 * independent of how worlds store entities: each world keeps its own bit
 * per type it uses, so a world's entity table grows with the types it
 * uses, not with the registry. */
enum { ZE_MASK_OVERFLOW = 0xffff };
typedef struct ze_mask_t {
    uint16_t count;
    uint16_t ids[ZE_MASK_MAX];
} ze_mask_t;

typedef enum ze_field_type {
    ZE_FIELD_NONE = 0,
    ZE_FIELD_BOOL,
    ZE_FIELD_U8,
    ZE_FIELD_I32,
    ZE_FIELD_U32,
    ZE_FIELD_I64,
    ZE_FIELD_U64,
    ZE_FIELD_F32,
    ZE_FIELD_F64,
    ZE_FIELD_VEC2,
    ZE_FIELD_VEC3,
    ZE_FIELD_VEC4,
    ZE_FIELD_QUAT,
    ZE_FIELD_MAT4,
    ZE_FIELD_UUID,
    ZE_FIELD_ENTITY,
    ZE_FIELD_CHARS, /* char array of `count` bytes, NUL-terminated */
    ZE_FIELD_TYPE_COUNT
} ze_field_type;

/* Reflection of one member: used by scene files, snapshots and the
 * inspector. `count` > 1 makes it an array (or the size of a CHARS field). */
typedef struct ze_field_desc_t {
    const char *name;
    ze_field_type type;
    uint32_t offset;
    uint32_t count; /* 0 = 1 */
} ze_field_desc_t;
#define ZE_FIELD(T, member, ftype)                       \
    {                                                    \
#member, ftype, (uint32_t)offsetof(T, member), 0 \
    }
#define ZE_FIELD_ARRAY(T, member, ftype, n)                \
    {                                                      \
#member, ftype, (uint32_t)offsetof(T, member), (n) \
    }

/* Lifecycle hooks, all optional; they act on `count` consecutive elements.
 * Without `ctor` new components are zeroed; without `copy`/`move`, memcpy.
 * `copy` and `move` construct into uninitialised memory (a set over an
 * existing value runs `dtor` on it first); `move` leaves the source dead. */
typedef struct ze_component_hooks_t {
    void (*ctor)(void *ptr, uint32_t count, void *user);
    void (*dtor)(void *ptr, uint32_t count, void *user);
    void (*copy)(void *dst, const void *src, uint32_t count, void *user);
    void (*move)(void *dst, void *src, uint32_t count, void *user);
    void *user;
} ze_component_hooks_t;

enum {
    ZE_COMPONENT_TRANSIENT = 1u << 0, /* not saved in snapshots or scene files */
    /* Row versions from the first add in every world (see change tracking
     * below): 4 bytes per row. Without the flag a world starts tracking the
     * type the first time something asks what changed. */
    ZE_COMPONENT_TRACKED = 1u << 1,
};

typedef struct ze_component_desc_t {
    const char *name;        /* required, unique within the kernel */
    size_t size;             /* 0 = a tag: presence only, no data */
    size_t align;            /* 0 = the largest power of two dividing size, at most 16 */
    uint64_t stable_id;      /* id in files; 0 = xxHash of the name */
    uint32_t schema_version; /* 0 = 1 */
    uint32_t flags;
    ze_component_hooks_t hooks;
    const ze_field_desc_t *fields;
    uint32_t field_count;
} ze_component_desc_t;

typedef struct ze_component_info_t {
    const char *name;
    uint32_t size, align;
    uint64_t stable_id;
    uint32_t schema_version, flags;
    ze_component_hooks_t hooks;
    const ze_field_desc_t *fields;
    uint32_t field_count;
} ze_component_info_t;

/* Register a component. Registering the same name again with the same size
 * and alignment returns the same id; with a different layout, past
 * ZE_MAX_COMPONENTS, or above 1 MiB of size or 4096 of alignment, it fails:
 * *out untouched, an error naming the limit logged, ZE_ERR_CONFLICT /
 * ZE_ERR_LIMIT returned (ZE_ERR_INVALID_ARG for a name longer than
 * ZE_COMPONENT_NAME_MAX - 1 or an alignment that is not a power of two
 * dividing the size). */
ze_result ze_component_register(ze_kernel_t *k, const ze_component_desc_t *desc,
                                ze_component_t *out);
/* Seal the registry: later component and message registrations fail with
 * ZE_ERR_STATE, naming the seal. (While a world of the kernel runs a
 * parallel wave the registry is sealed too: pool threads read it.) */
void ze_kernel_seal(ze_kernel_t *k);
bool ze_kernel_sealed(const ze_kernel_t *k);
ze_result ze_component_find(const ze_kernel_t *k, const char *name, ze_component_t *out);
const ze_component_info_t *ze_component_info(const ze_kernel_t *k, ze_component_t c);
uint32_t ze_component_count(const ze_kernel_t *k);

/* The type-safe layer. ZE_COMPONENT(k_or_w, T) declares a local variable
 * holding T's id (flecs style); ZE_COMPONENT_DECLARE(T) / _DEFINE(k, T) do
 * the same with a global for use across functions. Then
 *   ze_set(w, e, Position, {1, 2});  Position *p = ze_get(w, e, Position);
 * On registration failure the id is ZE_COMPONENT_INVALID and every call with
 * it fails cleanly. */
#define ZE_COMPONENT_INVALID    ((ze_component_t){UINT32_MAX})
#define ZE_ID(T)                ze__id_##T
#define ZE_COMPONENT_DECLARE(T) ze_component_t ZE_ID(T) = {UINT32_MAX}
#define ZE_COMPONENT_DEFINE(kw, T)                 \
    (ZE_ID(T) = ze__component_register_or_invalid( \
         ze__kernel_of(kw),                        \
         &(ze_component_desc_t){.name = #T, .size = sizeof(T), .align = _Alignof(T)}))
#define ZE_COMPONENT(kw, T)                                      \
    ze_component_t ZE_ID(T) = ze__component_register_or_invalid( \
        ze__kernel_of(kw),                                       \
        &(ze_component_desc_t){.name = #T, .size = sizeof(T), .align = _Alignof(T)})
/* The same with reflection, in one line (the kernel copies the list):
 *   ZE_COMPONENT_FIELDS(w, Position, ZE_FIELD(Position, x, ZE_FIELD_F32),
 *                                    ZE_FIELD(Position, y, ZE_FIELD_F32));
 * and ZE_COMPONENT_DEFINE_FIELDS(kw, T, ...) for a ZE_COMPONENT_DECLARE'd id.
 * Scene files, snapshots and the inspector read and write the fields. */
#define ZE__FIELD_LIST(...) ((const ze_field_desc_t[]){__VA_ARGS__})
#define ZE__FIELD_COUNT(...) \
    ((uint32_t)(sizeof ZE__FIELD_LIST(__VA_ARGS__) / sizeof(ze_field_desc_t)))
#define ZE__COMPONENT_DESC_FIELDS(T, ...)                          \
    (&(ze_component_desc_t){.name = #T,                            \
                            .size = sizeof(T),                     \
                            .align = _Alignof(T),                  \
                            .fields = ZE__FIELD_LIST(__VA_ARGS__), \
                            .field_count = ZE__FIELD_COUNT(__VA_ARGS__)})
#define ZE_COMPONENT_FIELDS(kw, T, ...)                          \
    ze_component_t ZE_ID(T) = ze__component_register_or_invalid( \
        ze__kernel_of(kw), ZE__COMPONENT_DESC_FIELDS(T, __VA_ARGS__))
#define ZE_COMPONENT_DEFINE_FIELDS(kw, T, ...)                       \
    (ZE_ID(T) = ze__component_register_or_invalid(ze__kernel_of(kw), \
                                                  ZE__COMPONENT_DESC_FIELDS(T, __VA_ARGS__)))
#define ZE_TAG(kw, T)                                            \
    ze_component_t ZE_ID(T) = ze__component_register_or_invalid( \
        ze__kernel_of(kw), &(ze_component_desc_t){.name = #T, .size = 0})

/* The set of `n` ids (any order, repeats allowed; an invalid id, such as
 * ZE_COMPONENT_INVALID, overflows it: calls then refuse it). */
ze_mask_t ze_mask_make(const ze_component_t *ids, uint32_t n);
ze_mask_t ze_mask_of(ze_component_t c);
ze_mask_t ze_mask_or(ze_mask_t a, ze_mask_t b);
ze_mask_t ze_mask_and(ze_mask_t a, ze_mask_t b);
ze_mask_t ze_mask_minus(ze_mask_t a, ze_mask_t b); /* a without b's types */
bool ze_mask_has(ze_mask_t m, ze_component_t c);
bool ze_mask_eq(ze_mask_t a, ze_mask_t b);
/* Every type of `sub` is in `m`. */
bool ze_mask_contains(ze_mask_t m, ze_mask_t sub);
#define ZE_MASK_EMPTY ((ze_mask_t){0})
static inline bool ze_mask_empty(ze_mask_t m)
{
    return m.count == 0;
}
static inline bool ze_mask_overflowed(ze_mask_t m)
{
    return m.count > ZE_MASK_MAX;
}
#define ZE__MASK_N(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define ZE__I1(a)                                          ZE_ID(a)
#define ZE__I2(a, ...)                                     ZE_ID(a), ZE__I1(__VA_ARGS__)
#define ZE__I3(a, ...)                                     ZE_ID(a), ZE__I2(__VA_ARGS__)
#define ZE__I4(a, ...)                                     ZE_ID(a), ZE__I3(__VA_ARGS__)
#define ZE__I5(a, ...)                                     ZE_ID(a), ZE__I4(__VA_ARGS__)
#define ZE__I6(a, ...)                                     ZE_ID(a), ZE__I5(__VA_ARGS__)
#define ZE__I7(a, ...)                                     ZE_ID(a), ZE__I6(__VA_ARGS__)
#define ZE__I8(a, ...)                                     ZE_ID(a), ZE__I7(__VA_ARGS__)
#define ZE__IDS(...)                                                                        \
    ZE__MASK_N(__VA_ARGS__, ZE__I8, ZE__I7, ZE__I6, ZE__I5, ZE__I4, ZE__I3, ZE__I2, ZE__I1) \
    (__VA_ARGS__)
#define ZE__ID_LIST(...) ((const ze_component_t[]){ZE__IDS(__VA_ARGS__)})
/* ZE_MASK(Position, Velocity): the set of up to 8 component types (more:
 * ze_mask_make, ze_mask_or). */
#define ZE_MASK(...)                       \
    ze_mask_make(ZE__ID_LIST(__VA_ARGS__), \
                 (uint32_t)(sizeof ZE__ID_LIST(__VA_ARGS__) / sizeof(ze_component_t)))

/* ------------------------------------------------------------- kernel */

/* Monotonic time in nanoseconds, as a service (tests and replays supply
 * their own). */
typedef uint64_t (*ze_clock_fn)(void *user);

typedef struct ze_kernel_desc_t {
    ze_mem_t *mem;         /* NULL: the kernel creates (and owns) one */
    ze_job_system_t *jobs; /* NULL: the kernel creates (and owns) one */
    const char *name;
    double fixed_dt;       /* seconds per fixed step; 0 = 1/60; < 0 rejected */
    uint32_t max_substeps; /* fixed steps per frame at most; 0 = 5 */
    ze_clock_fn clock;     /* NULL: ze_time_now_ns */
    void *clock_user;
    /* Where the kernel's worlds report problems (scene loads, plans, refused
       writes...); {0}: the process logger. */
    ze_diag_sink_t diag;
} ze_kernel_desc_t;

/* NULL on failure (reason logged). Built-in components (ecs builtins below)
 * are registered first, so their ids are the same in every kernel. */
ze_kernel_t *ze_kernel_create(const ze_kernel_desc_t *desc);
/* Destroys the kernel's worlds (in reverse creation order) too. */
void ze_kernel_destroy(ze_kernel_t *k);
ze_mem_t *ze_kernel_mem(const ze_kernel_t *k);
ze_job_system_t *ze_kernel_jobs(const ze_kernel_t *k);
/* Debug builds (ZE_DEBUG): mark the calling thread as one that must never
 * call into ECS (the engine's render thread); every world, entity,
 * component, query, command and kernel-frame entry point then asserts.
 * Release builds: a no-op. (The inline getters below, ze_get and
 * ze_component_get_inline, have no slow path and are not checked.) */
void ze_ecs_forbid_thread(bool forbid);

/* -------------------------------------------------------------- worlds */

typedef struct ze_world_desc_t {
    const char *name;
    uint32_t capacity;       /* entity slots, exactly (address space reserved); 0 = 1 Mi;
                                above ZE_MAX_WORLD_CAPACITY refused */
    uint32_t actor_capacity; /* 0 = 1024 */
    bool no_auto_packs;      /* see ze_query_create */
    const char *const *tags; /* optional, `tag_count` strings (copied) */
    uint32_t tag_count;
} ze_world_desc_t;

ze_world_t *ze_world_create(ze_kernel_t *k, const ze_world_desc_t *desc);
void ze_world_destroy(ze_world_t *w);
ze_kernel_t *ze_world_kernel(const ze_world_t *w);
const char *ze_world_name(const ze_world_t *w);
uint32_t ze_world_entity_count(const ze_world_t *w);
uint32_t ze_world_capacity(const ze_world_t *w);
/* Slots ever used: every alive entity's index is below it (a walk over
 * ze_entity_from_index stops here, not at the capacity). */
uint32_t ze_world_slot_count(const ze_world_t *w);
/* Order-independent hash of every alive entity (handle) and the bytes of its
 * non-transient components: equal worlds hash equal. A component with a
 * formatter counts as what its formatter writes, one with fields as its
 * fields, any other as its raw bytes. */
uint64_t ze_world_hash(const ze_world_t *w);

/* ------------------------------------------------------ entity calls */

/* ZE_ENTITY_NULL when every slot is in use or retired (logged). */
ze_entity_t ze_entity_create(ze_world_t *w);
/* Removes all components (their dtors run) and frees the slot; the slot's
 * generation moves on, and a slot whose generation would wrap is retired.
 * The entities whose Parent leads to `e` (its subtree) are destroyed with
 * it, so no Parent link is left naming a dead entity. ZE_ERR_NOT_FOUND when
 * `e` is not alive. Deferred while a query is being iterated (applied when
 * the last iteration ends). */
ze_result ze_entity_destroy(ze_world_t *w, ze_entity_t e);
/* What a destroy does to the entities whose Parent names the one destroyed
 * (its children). */
typedef enum ze_destroy_flags {
    ZE_DESTROY_SUBTREE = 0, /* the default: children, their children... all go */
    /* Children stay, as roots: their Parent is removed and their Transform
     * set to the world transform they had (composed from the current local
     * transforms up the chain, so exact unless a non-uniformly scaled
     * ancestor rotates them: TRS cannot hold shear). Their own children
     * stay attached to them. */
    ZE_DESTROY_DETACH_CHILDREN = 1u << 0,
} ze_destroy_flags;
/* ze_entity_destroy with ze_destroy_flags. Cost: when the world holds
 * Parent components, finding the children walks them (one pass over the
 * packed Parent values per level of the subtree); without any, nothing. */
ze_result ze_entity_destroy_ex(ze_world_t *w, ze_entity_t e, uint32_t flags);
bool ze_entity_alive(const ze_world_t *w, ze_entity_t e);
/* The alive handle for a slot index, or ZE_ENTITY_NULL. */
ze_entity_t ze_entity_from_index(const ze_world_t *w, uint32_t index);
/* Destroy every entity of the world at once (dtors and bindings as for
 * ze_entity_destroy, component hooks' permission not asked, like a
 * snapshot load): linear, where destroying a hierarchy entity by entity
 * searches for children each time. ZE_ERR_STATE during an iteration. */
ze_result ze_world_clear(ze_world_t *w);
/* The component types of an alive entity, ascending: writes up to `max`
 * into out and returns how many it has (0 when not alive). */
uint32_t ze_entity_components(const ze_world_t *w, ze_entity_t e, ze_component_t *out,
                              uint32_t max);
/* The same as a mask (empty when not alive; overflowed past ZE_MASK_MAX). */
ze_mask_t ze_entity_mask(const ze_world_t *w, ze_entity_t e);

/* --------------------------------------------------- component calls */

/* Add (default value: ctor or zero) if absent; returns the component either
 * way, NULL when `e` is not alive or the call is refused (or deferred by an
 * open iteration). For a tag (size 0) it returns a non-NULL pointer to
 * a shared read-only placeholder, the same for every tag and entity: it
 * means "present" and has zero bytes behind it. */
void *ze_component_add(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Add or overwrite with a copy of *value. */
ze_result ze_component_set(ze_world_t *w, ze_entity_t e, ze_component_t c, const void *value);
/* NULL when absent or `e` is not alive (never inserts); NULL for tags,
 * which have no data (ze_component_has tells presence). Read-only: a write
 * goes through ze_component_get_mut (or _set), which change tracking sees. */
const void *ze_component_get(const ze_world_t *w, ze_entity_t e, ze_component_t c);
bool ze_component_has(const ze_world_t *w, ze_entity_t e, ze_component_t c);
/* ZE_ERR_NOT_FOUND when absent (a no-op that says so) or `e` not alive. */
ze_result ze_component_remove(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Number of entities that have c. */
uint32_t ze_component_population(const ze_world_t *w, ze_component_t c);

/* ze_component_get, inlined: the same checks, but the caller's loop can
 * overlap the cache misses of consecutive lookups. It reads the first fields
 * of the world and pool structs (declared here, kept in sync with the
 * library by static asserts in src/ecs/storage.c), and relies on every
 * sparse page pointer being valid (pages not yet used share a zero page). */
typedef struct ze__pool_prefix_t {
    uint32_t size, id;
    uint32_t *const *sparse;
    uint8_t *const *data;
} ze__pool_prefix_t;
typedef struct ze__world_prefix_t {
    const uint32_t *gen;
    uint32_t fresh, pool_cap;
    const ze__pool_prefix_t *const *pools; /* [pool_cap], by component id */
} ze__world_prefix_t;

/* `size` is the component's size (a constant at typed call sites). */
static inline void *ze__get_sized(const ze_world_t *w, ze_entity_t e, ze_component_t c, size_t size)
{
    const ze__world_prefix_t *wp = (const ze__world_prefix_t *)(const void *)w;
    uint32_t index = (uint32_t)e.id;
    if (c.id >= wp->pool_cap || index >= wp->fresh)
        return NULL;
    const ze__pool_prefix_t *p = wp->pools[c.id];
    if (!p || !size || size != p->size)
        return NULL;
    /* Both loads depend only on `index`: their misses overlap. Handle 0
     * has generation 0, which no live slot has. */
    uint32_t gen = wp->gen[index];
    uint32_t d = p->sparse[index >> 12][index & 4095];
    if (gen != (uint32_t)(e.id >> 32) || !d)
        return NULL;
    d -= 1;
    return p->data[d >> 12] + (size_t)(d & 4095) * size;
}

static inline const void *ze_component_get_inline(const ze_world_t *w, ze_entity_t e,
                                                  ze_component_t c)
{
    const ze__world_prefix_t *wp = (const ze__world_prefix_t *)(const void *)w;
    const ze__pool_prefix_t *p = c.id < wp->pool_cap ? wp->pools[c.id] : NULL;
    return p ? ze__get_sized(w, e, c, p->size) : NULL;
}

#define ze_set(w, e, T, ...) ze_component_set((w), (e), ZE_ID(T), &(T)__VA_ARGS__)
/* ze_get reads (const T *); ze_get_mut is the write access (stamps the row). */
#define ze_get(w, e, T)     ((const T *)ze__get_sized((w), (e), ZE_ID(T), sizeof(T)))
#define ze_add(w, e, T)     ((T *)ze_component_add((w), (e), ZE_ID(T)))
#define ze_has(w, e, T)     ze_component_has((w), (e), ZE_ID(T))
#define ze_remove(w, e, T)  ze_component_remove((w), (e), ZE_ID(T))
#define ze_get_mut(w, e, T) ((T *)ze_component_get_mut((w), (e), ZE_ID(T)))

/* ----------------------------------------------------- change tracking */

/* Every world counts versions, and writable access stamps the rows it
 * reaches with the current one: ze_component_set and _add (a new row counts
 * as written), ze_component_get_mut (ze_get_mut), ze_component_mark_changed
 * (and ze_delta_mark_changed), command sets and adds, loads, and every run a
 * query iteration hands out, for the components in the query's `write`
 * set. Reads stamp nothing: ze_get, ze_component_get and fields not in
 * `write` (so a write through such a pointer is not seen: mark it). A row's
 * version moves with it through storage (packs, removals of others), and a
 * removed row is gone from the answers.
 *
 * The version moves on at each ze_world_version call and before every wave
 * of systems (ze_tick_t.since is the version a system last ran at), so
 *   uint32_t v = ze_world_version(w);  ...frames...
 *   ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(T), v);
 * visits exactly the rows of T written after the call, in runs.
 * Versions are 32-bit serial numbers (a since older than 2^30 versions
 * reports every row). Row versions cost 4 bytes per row of a tracked type:
 * a type is tracked from its first add with ZE_COMPONENT_TRACKED (the
 * built-in Transform, Mesh, Camera, Light, Material), else from the first
 * ze_component_track, ze_changed_iter or binder on it in that world (then
 * every row it had counts as written at that moment). Untracked types keep
 * one stamp per type: "something changed". */

/* The current version; every write after this call gets a newer one (on
 * the world's thread; inside a parallel wave the wave's version, unmoved). */
uint32_t ze_world_version(ze_world_t *w);
/* Start keeping row versions of c in this world now. ZE_ERR_STATE inside a
 * parallel wave. */
ze_result ze_component_track(ze_world_t *w, ze_component_t c);
/* ze_component_get that counts as a write (stamps the row). */
void *ze_component_get_mut(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Stamp e's row of c as written (after writes through a plain pointer).
 * ZE_ERR_NOT_FOUND when absent or e not alive. */
ze_result ze_component_mark_changed(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Whether e's row of c was written after `since` (false when absent; for an
 * untracked type, whether any row of c was). */
bool ze_component_changed(const ze_world_t *w, ze_entity_t e, ze_component_t c, uint32_t since);

/* The rows of one component written after a version, in runs of
 * consecutive storage rows (within one storage page): it.count entities,
 * their slot indices, and it.count consecutive values (NULL for tags),
 * borrowed from storage, no copy. An unchanged page costs one compare, a
 * type unchanged as a whole one. Structural calls are deferred while it is
 * open, as for queries; ze_changed_fini ends it early. */
typedef struct ze_changed_iter_t {
    uint32_t count;
    const uint32_t *indices; /* entity slot indices (ze_changed_entity) */
    const void *values;      /* it.count values of the component */
    ze_world_t *world;
    /* internal */
    uint32_t comp, since, pos, end;
    bool active;
} ze_changed_iter_t;
ze_changed_iter_t ze_changed_iter(ze_world_t *w, ze_component_t c, uint32_t since);
bool ze_changed_next(ze_changed_iter_t *it);
void ze_changed_fini(ze_changed_iter_t *it);
ze_entity_t ze_changed_entity(const ze_changed_iter_t *it, uint32_t i);
/* How many rows of c were written after `since` (walks them). */
uint32_t ze_changed_count(ze_world_t *w, ze_component_t c, uint32_t since);

/* -------------------------------------------------------------- packs */

/* A pack: the entities that have every component of `owned` are
 * kept at the front of those components' dense arrays, in the same order, so
 * iterating them is a loop over packed arrays. Packs may nest (one's set
 * contains the other's) but may not partially overlap: ZE_ERR_CONFLICT, with
 * both sets logged. Creating a pack sorts existing entities in. Adding or
 * removing an owned component costs a few swaps. */
ze_result ze_pack_create(ze_world_t *w, ze_mask_t owned);
/* Length of the packed range of the pack with exactly this set (0 if none). */
uint32_t ze_pack_size(const ze_world_t *w, ze_mask_t owned);

/* ------------------------------------------------------------ queries */

typedef struct ze_query_desc_t {
    ze_mask_t with;     /* required */
    ze_mask_t without;  /* excluded */
    ze_mask_t optional; /* fields may be NULL for a run */
    ze_mask_t write;    /* of with|optional: written back when gathered, and
                           every run's rows stamped as written (change tracking) */
} ze_query_desc_t;
/* A query has at most ZE_QUERY_MAX_TERMS types in with + optional. */
enum { ZE_QUERY_MAX_TERMS = 2 * ZE_MASK_MAX };

typedef struct ze_query_t {
    uint32_t id; /* 0 = invalid */
} ze_query_t;

/* A cached query, keyed by its full sets. With auto packs on (the default),
 * the first query whose `with` has two or more components creates a pack for that set when the set
 * can nest with the existing packs. */
ze_query_t ze_query_create(ze_world_t *w, const ze_query_desc_t *desc);
/* Number of entities the query matches now (walks them). */
uint32_t ze_query_count(ze_world_t *w, ze_query_t q);

enum { ZE_ITER_CHUNK = 4096 }; /* max entities per run */

/* Iteration hands out runs: it.count entities and, per component, a pointer
 * to it.count consecutive values (ze_field). Components packed for the run
 * point straight into storage; others are gathered into a per-iterator buffer
 * and, if in `write`, scattered back when the run ends. Structural calls on
 * the world while an iteration is open are deferred to its end. Gathered
 * values live in the thread's scratch arena: scratch memory taken while a run
 * is open is released by the next ze_query_next. */
typedef struct ze_iter_t {
    uint32_t count;
    const uint32_t *indices; /* entity slot indices of the run */
    ze_world_t *world;
    /* The run's fields by term: term_ids[i] (the query's with and optional
     * types, ascending) has fields[i], NULL if absent. ze_field finds them. */
    uint32_t term_count;
    uint16_t term_ids[ZE_QUERY_MAX_TERMS];
    void *fields[ZE_QUERY_MAX_TERMS];
    /* internal */
    uint32_t query;
    uint32_t pos, end, driver;
    uint32_t flags;
    uint64_t gathered; /* bit i: term i was gathered */
    void *scratch_arena;
    size_t scratch_marker;
} ze_iter_t;

ze_iter_t ze_query_iter(ze_world_t *w, ze_query_t q);
bool ze_query_next(ze_iter_t *it);
/* Ends an iteration early (flushes write-back, releases the world). Not
 * needed after ze_query_next returned false. */
void ze_iter_fini(ze_iter_t *it);
ze_entity_t ze_iter_entity(const ze_iter_t *it, uint32_t i);
/* The run's values of component c (NULL when not a term or absent). */
static inline void *ze_iter_field(const ze_iter_t *it, ze_component_t c)
{
    for (uint32_t i = 0; i < it->term_count; i++)
        if (it->term_ids[i] == c.id)
            return it->fields[i];
    return NULL;
}
#define ze_field(it, T) ((T *)ze_iter_field((it), ZE_ID(T)))

/* ----------------------------------------------------------- commands */

/* A buffer of deferred structural changes, applied in recording order by
 * ze_commands_flush. Values are copied into the buffer (any size). */
typedef struct ze_commands_t ze_commands_t;
typedef void (*ze_spawn_fn)(ze_world_t *w, ze_entity_t e, void *user);

ze_commands_t *ze_commands_create(ze_world_t *w);
void ze_commands_destroy(ze_commands_t *c);
/* Records a spawn; returns a pending handle usable by later commands of the
 * same buffer (resolved at flush). `fn` (optional) gets the real entity. */
ze_entity_t ze_cmd_spawn(ze_commands_t *c, ze_spawn_fn fn, void *user);
/* Destroy is deduplicated and safe on dead ids; commands recorded for an
 * entity after its destroy are skipped. It takes the entity's subtree with
 * it (ze_entity_destroy); _ex takes ze_destroy_flags. */
ze_result ze_cmd_destroy(ze_commands_t *c, ze_entity_t e);
ze_result ze_cmd_destroy_ex(ze_commands_t *c, ze_entity_t e, uint32_t flags);
ze_result ze_cmd_add(ze_commands_t *c, ze_entity_t e, ze_component_t comp);
ze_result ze_cmd_set(ze_commands_t *c, ze_entity_t e, ze_component_t comp, const void *value);
ze_result ze_cmd_remove(ze_commands_t *c, ze_entity_t e, ze_component_t comp);
#define ze_cmd_set_t(c, e, T, ...) ze_cmd_set((c), (e), ZE_ID(T), &(T)__VA_ARGS__)
/* Append src's commands to dst (src is cleared). */
ze_result ze_commands_merge(ze_commands_t *dst, ze_commands_t *src);
uint32_t ze_commands_count(const ze_commands_t *c);
/* Apply and clear. Returns ZE_OK, or the first failure (the remaining
 * commands are still applied; ze_commands_last_skipped counts skips).
 * Called while an iteration of the world is open, it hands the commands to
 * the world's buffer, applied when the iteration ends. */
ze_result ze_commands_flush(ze_commands_t *c);
uint32_t ze_commands_last_skipped(const ze_commands_t *c);
void ze_commands_clear(ze_commands_t *c);
/* The world's own buffer (used for deferral during iteration). */
ze_commands_t *ze_world_commands(ze_world_t *w);

/* ---------------------------------------------------------- WorldTick */

typedef struct ze_tick_t {
    float dt;
    ze_commands_t *cmds; /* this system's buffer (staging in parallel waves);
                            NULL unless the system set uses_commands */
    ze_query_t query;    /* the system's query */
    void *user;
    uint32_t system; /* index of the system in its tick */
    const char *name;
    float alpha;    /* interpolation factor (FrameView, FrameUI); 0 elsewhere */
    uint32_t group; /* ze_system_group of the system */
    uint64_t frame; /* kernel frame counter */
    /* The world version this system last ran at (0 before its first run):
     * ze_changed_iter(w, c, t->since) gives what others wrote since then
     * (systems of its own wave write nothing it reads). */
    uint32_t since;
} ze_tick_t;

typedef void (*ze_system_fn)(ze_world_t *w, const ze_tick_t *t);

/* The eight groups of the frame, in execution order (ZenECS): BeginFrame
 * runs FrameInput, FrameSync; each fixed step FixedInput, FixedDecision,
 * FixedSimulation, FixedPost; LateFrame FrameView, FrameUI. 0 picks
 * FixedSimulation. */
typedef enum ze_system_group {
    ZE_GROUP_DEFAULT = 0,
    ZE_GROUP_FRAME_INPUT,
    ZE_GROUP_FRAME_SYNC,
    ZE_GROUP_FIXED_INPUT,
    ZE_GROUP_FIXED_DECISION,
    ZE_GROUP_FIXED_SIMULATION,
    ZE_GROUP_FIXED_POST,
    ZE_GROUP_FRAME_VIEW,
    ZE_GROUP_FRAME_UI,
    ZE_GROUP_END
} ze_system_group;

typedef struct ze_system_desc_t {
    const char *name; /* required, unique within the tick / group */
    ze_system_fn fn;  /* required */
    void *user;
    ze_mask_t reads, writes;
    bool uses_commands;
    /* The system's query; when `query.with` is 0 it is
     * {with = reads | writes, write = writes}. */
    ze_query_desc_t query;
    /* Framework (ze_system_add): the group, and callbacks run when the world
     * starts (plan order) and when it is destroyed (reverse plan order). */
    ze_system_group group;
    void (*init)(ze_world_t *w, void *user);
    void (*shutdown)(ze_world_t *w, void *user);
} ze_system_desc_t;

typedef struct ze_system_t {
    uint32_t id; /* 0 = invalid */
} ze_system_t;

/* -------------------------------------------------------------- Worker */

/* A job a system schedules (ZenECS's IWorker). `cmds` is the job's own
 * command buffer: its structural changes go there. */
typedef void (*ze_world_job_fn)(ze_world_t *w, ze_commands_t *cmds, void *user);
/* From a system, during its run (t is its tick): run fn(w, cmds, user) on
 * the kernel's job pool. The jobs of a wave finish before the next wave
 * starts, so before the group's barrier; their commands are applied at the
 * barrier (with the group's policy) in a fixed order: each system's own
 * commands, then its jobs' in the order it scheduled them, systems in their
 * group's order (wave, then registration), whatever order the pool ran
 * them in. Jobs may read and
 * write what their system's masks allow, through queries made beforehand
 * and ze_get / ze_get_mut; from a system's first job until its wave ends
 * every structural call on the world is refused, as in a parallel wave
 * (record it in `cmds` or the system's buffer). `user` must outlive the
 * job. ZE_ERR_STATE outside a system's run. Any thread of the wave. */
ze_result ze_system_schedule(ze_world_t *w, const ze_tick_t *t, ze_world_job_fn fn, void *user);

/* -------------------------------------------------------------- actors */

/* Tier 1: a C "class". Instances are `size` bytes (at least
 * sizeof(ze_actor_base_t), which must be the first member), allocated from
 * the world's actor arena, ticked in creation order. */
typedef struct ze_actor_base_t {
    ze_world_t *world;
    ze_entity_t entity;
    uint32_t handle;
} ze_actor_base_t;

typedef struct ze_actor_class_t {
    const char *name;
    size_t size;
    void (*on_create)(void *self);
    void (*on_tick)(void *self, float dt);
    void (*on_destroy)(void *self);
} ze_actor_class_t;

typedef struct ze_actor_t {
    uint32_t id; /* index + generation; 0 = invalid */
} ze_actor_t;

/* Creates the entity, the instance (zeroed, base filled), calls on_create.
 * {0} when the actor capacity is reached (logged). */
ze_actor_t ze_actor_create(ze_world_t *w, const ze_actor_class_t *cls);
/* on_destroy, then the entity is destroyed and the instance freed. The actor
 * owns its entity: destroying the entity directly leaves the actor alive
 * with a dead handle. Both calls are refused inside a parallel wave
 * ({0} / ZE_ERR_STATE); at most 1 Mi actors per world. */
ze_result ze_actor_destroy(ze_world_t *w, ze_actor_t a);
void *ze_actor_get(ze_world_t *w, ze_actor_t a); /* NULL when stale */
uint32_t ze_actor_count(const ze_world_t *w);
/* on_tick of every actor in creation order (refused from inside on_tick). */
void ze_actors_tick(ze_world_t *w, float dt);

/* ----------------------------------------------------- built-in components */

/* Registered first in every kernel, so their ids are constants. Names in
 * files: "Transform", "Parent", "Mesh", "Camera", "Light", "Material", "Name",
 * "RigidBody", "UUID". */
typedef struct ze_transform_t {
    ze_vec3_t position; /* local, relative to the parent */
    ze_quat_t rotation;
    ze_vec3_t scale;
    ze_vec3_t previous_position; /* position at the last fixed step (interpolation) */
    ze_mat4_t world;             /* derived by the hierarchy update; never authored */
} ze_transform_t;

typedef struct ze_parent_t {
    ze_entity_t parent;
} ze_parent_t;

enum { ZE_RENDER_INSTANCE_NONE = UINT32_MAX };
typedef struct ze_mesh_t {
    ze_uuid_t mesh;
    /* reserved (not saved; ZE_RENDER_INSTANCE_NONE): the engine keeps
       render bindings outside the world, so binding is not a write */
    uint32_t render_instance;
} ze_mesh_t;

typedef struct ze_camera_t {
    float fov_y; /* radians */
    float near_plane, far_plane;
    float aspect;
    bool is_main; /* exactly one camera should be main */
} ze_camera_t;

typedef enum ze_light_type {
    ZE_LIGHT_DIRECTIONAL = 0,
    ZE_LIGHT_POINT,
    ZE_LIGHT_SPOT,
} ze_light_type;

typedef struct ze_light_t {
    ze_light_type type;
    float intensity;
    float range;      /* point and spot */
    float spot_angle; /* spot, radians */
    ze_vec3_t color;
} ze_light_t;

typedef struct ze_material_t {
    ze_uuid_t material; /* per-instance override of the mesh's materials */
} ze_material_t;

enum { ZE_NAME_MAX = 128 };
typedef struct ze_name_t {
    char value[ZE_NAME_MAX];
} ze_name_t;

typedef enum ze_motion_type {
    ZE_MOTION_STATIC = 0,
    ZE_MOTION_KINEMATIC,
    ZE_MOTION_DYNAMIC,
} ze_motion_type;

enum { ZE_BODY_NONE = UINT32_MAX };
typedef struct ze_rigidbody_t {
    ze_motion_type motion;
    float mass, friction, restitution;
    uint32_t body_id; /* runtime: ZE_BODY_NONE = inactive (physics is not in yet) */
} ze_rigidbody_t;

typedef struct ze_uuid_component_t {
    ze_uuid_t value; /* stable identity across sessions (scene files) */
} ze_uuid_component_t;

enum {
    ZE_COMPONENT_ID_TRANSFORM = 0,
    ZE_COMPONENT_ID_PARENT,
    ZE_COMPONENT_ID_MESH,
    ZE_COMPONENT_ID_CAMERA,
    ZE_COMPONENT_ID_LIGHT,
    ZE_COMPONENT_ID_MATERIAL,
    ZE_COMPONENT_ID_NAME,
    ZE_COMPONENT_ID_RIGIDBODY,
    ZE_COMPONENT_ID_UUID,
    ZE_BUILTIN_COMPONENT_COUNT
};
#define ze__id_ze_transform_t      ((ze_component_t){ZE_COMPONENT_ID_TRANSFORM})
#define ze__id_ze_parent_t         ((ze_component_t){ZE_COMPONENT_ID_PARENT})
#define ze__id_ze_mesh_t           ((ze_component_t){ZE_COMPONENT_ID_MESH})
#define ze__id_ze_camera_t         ((ze_component_t){ZE_COMPONENT_ID_CAMERA})
#define ze__id_ze_light_t          ((ze_component_t){ZE_COMPONENT_ID_LIGHT})
#define ze__id_ze_material_t       ((ze_component_t){ZE_COMPONENT_ID_MATERIAL})
#define ze__id_ze_name_t           ((ze_component_t){ZE_COMPONENT_ID_NAME})
#define ze__id_ze_rigidbody_t      ((ze_component_t){ZE_COMPONENT_ID_RIGIDBODY})
#define ze__id_ze_uuid_component_t ((ze_component_t){ZE_COMPONENT_ID_UUID})

/* A transform at the origin with unit scale (world = identity). */
ze_transform_t ze_transform_identity(void);

/* HierarchySystem: world matrices from local TRS, parents before children.
 * An entity whose Parent is dead (or not a Transform holder) is treated as
 * a root; a cycle through Parent links is broken at the entity where it is
 * found and reported once. Returns ZE_ERR_CYCLE when a cycle was found. */
ze_result ze_hierarchy_update(ze_world_t *w);
/* A system running ze_hierarchy_update (reads Parent, writes Transform). */
ze_system_desc_t ze_hierarchy_system_desc(void);
/* previous_position <- position for every Transform (before a fixed step). */
void ze_transforms_snapshot(ze_world_t *w);

/* =================================================================== *
 * Framework (ZenECS): kernel frame, groups, messages, bindings, hooks,
 * snapshots, scene files, services.
 * =================================================================== */

/* ------------------------------------------------------ kernel and worlds */

/* Worlds are numbered from 1 in creation order and stepped in that order. */
uint32_t ze_world_id(const ze_world_t *w);
ze_world_t *ze_kernel_find_world(const ze_kernel_t *k, uint32_t id);
ze_world_t *ze_kernel_find_world_by_name(const ze_kernel_t *k, const char *name);
/* Worlds carrying `tag`, in creation order; returns how many there are (may
 * exceed max). */
uint32_t ze_kernel_find_worlds_by_tag(const ze_kernel_t *k, const char *tag, ze_world_t **out,
                                      uint32_t max);
bool ze_world_has_tag(const ze_world_t *w, const char *tag);
uint32_t ze_kernel_world_count(const ze_kernel_t *k);
ze_world_t *ze_kernel_world_at(const ze_kernel_t *k, uint32_t i);

/* ----------------------------------------------------------------- frame */

/* ze_kernel_frame(k, dt) = BeginFrame(dt) -> FixedStep(fixed_dt) x N ->
 * LateFrame(dt, alpha), over every world in creation order. The kernel's
 * accumulator is the engine's only one: it adds dt, runs at most
 * max_substeps steps, then clamps what is left below one step and reports
 * the time it dropped (no spiral of death); alpha = leftover / fixed_dt,
 * always in [0, 1). Time is counted exactly in a unit that makes the step
 * whole (1/60 s = 50,000,000 thirds of a nanosecond), so frames adding up to
 * whole steps run exactly those steps, with no drift and alpha 0.
 * A negative, non-finite or above 1e6 s dt is refused (ZE_ERR_INVALID_ARG,
 * nothing runs). */
typedef struct ze_frame_stats_t {
    uint64_t frame;         /* frames begun so far */
    uint32_t substeps;      /* fixed steps of the last frame */
    float alpha;            /* passed to FrameView and FrameUI */
    double dropped_seconds; /* accumulated time clamped away by the last frame */
    double dropped_total;   /* since the kernel was created */
    uint64_t fixed_steps;   /* since the kernel was created */
} ze_frame_stats_t;

ze_result ze_kernel_frame(ze_kernel_t *k, double dt);
ze_frame_stats_t ze_kernel_frame_stats(const ze_kernel_t *k);
/* ZE_ERR_INVALID_ARG when fixed_dt <= 0, above 1e6 s or not finite, or
 * max_substeps 0. */
ze_result ze_kernel_set_fixed_step(ze_kernel_t *k, double fixed_dt, uint32_t max_substeps);
double ze_kernel_fixed_dt(const ze_kernel_t *k);
/* The phases one by one (ze_kernel_frame calls these). */
ze_result ze_kernel_begin_frame(ze_kernel_t *k, double dt);
ze_result ze_kernel_fixed_step(ze_kernel_t *k);
ze_result ze_kernel_late_frame(ze_kernel_t *k, double dt, float alpha);
/* Per-world phases (what the kernel runs for each world). fixed_step
 * refuses a fixed_dt <= 0 or not finite (ZE_ERR_INVALID_ARG, nothing runs). */
ze_result ze_world_begin_frame(ze_world_t *w, double dt);
ze_result ze_world_fixed_step(ze_world_t *w, double fixed_dt);
ze_result ze_world_late_frame(ze_world_t *w, double dt, float alpha);
/* Seconds spent in each group during the last frame (all fixed steps
 * summed), for profiling panels. */
double ze_world_group_seconds(const ze_world_t *w, ze_system_group group);
const char *ze_system_group_name(ze_system_group group);

/* ---------------------------------------------------------------- systems */

/* Systems of the eight groups. An add or remove takes effect at the next
 * BeginFrame (the plan is cached until then). Write policy per group,
 * checked when the system is added, when its commands are flushed, and at
 * each direct call it makes: FrameInput and the Fixed groups may do
 * anything; FrameSync and FrameView may write values (a write mask is
 * allowed) but their structural commands and direct structural calls
 * (entity create/destroy, component add, set of an absent component,
 * remove, actor create/destroy, world and scene loads) are refused
 * (ZE_ERR_DENIED, NULL or a null entity; logged naming the system and
 * group); FrameUI systems may declare no write mask, their direct writes
 * (value sets too) are refused likewise, and their commands are applied at
 * the next frame's FrameInput barrier. Writes through pointers (ze_get,
 * query fields) are not checked. A barrier after each group flushes its
 * commands. */
ze_system_t ze_system_add(ze_world_t *w, const ze_system_desc_t *desc);
ze_result ze_system_remove(ze_world_t *w, ze_system_t s);
ze_result ze_system_enable(ze_world_t *w, ze_system_t s, bool enabled);
/* Both systems in the same group. A group whose systems conflict (one
 * writes what another reads or writes, unordered: ZE_ERR_CONFLICT) or whose
 * order has a cycle (ZE_ERR_CYCLE) does not run; the frame returns that code
 * and the kernel's diagnostics sink gets one ERROR naming the systems when
 * the plan is built. */
ze_result ze_system_order(ze_world_t *w, ze_system_t before, ze_system_t after);
/* Build the plans of the groups that changed now instead of at the next
 * BeginFrame (init callbacks run then, in plan order): ZE_ERR_CONFLICT or
 * ZE_ERR_CYCLE when a group's plan fails (reported, naming the systems, the
 * component and ze_system_order). ze_app_main's engine calls it after
 * on_initialized, so a conflict fails start-up before any frame. */
ze_result ze_world_plan_systems(ze_world_t *w);

/* A system as profiling panels and the inspector show it. */
typedef struct ze_system_info_t {
    const char *name; /* valid until the system is removed */
    ze_system_group group;
    bool enabled;
    uint64_t runs;  /* calls of its function since it was added */
    double seconds; /* time inside its function, summed over those calls */
} ze_system_info_t;
/* The world's systems (removed ones left out), in the order they were
 * added: fills at most `cap` of `out` (NULL with 0: count only) and returns
 * how many there are. The world's thread, between frames. */
uint32_t ze_world_systems(const ze_world_t *w, ze_system_info_t *out, uint32_t cap);

/* --------------------------------------------------------------- messages */

typedef struct ze_message_type_t {
    uint32_t id; /* 0 = invalid */
} ze_message_type_t;

/* Typed payloads of a fixed size, registered in the kernel. */
ze_result ze_message_register(ze_kernel_t *k, const char *name, size_t size,
                              ze_message_type_t *out);
ze_message_type_t ze__message_register_or_invalid(ze_kernel_t *k, const char *name, size_t size);
#define ZE_MSG_ID(T)          ze__msg_##T
#define ZE_MESSAGE_DECLARE(T) ze_message_type_t ZE_MSG_ID(T) = {0}
#define ZE_MESSAGE_DEFINE(kw, T) \
    (ZE_MSG_ID(T) = ze__message_register_or_invalid(ze__kernel_of(kw), #T, sizeof(T)))
#define ZE_MESSAGE(kw, T)            \
    ze_message_type_t ZE_MSG_ID(T) = \
        ze__message_register_or_invalid(ze__kernel_of(kw), #T, sizeof(T))

typedef void (*ze_message_fn)(ze_world_t *w, ze_message_type_t type, const void *payload,
                              void *user);
typedef struct ze_subscription_t {
    uint32_t id; /* 0 = invalid */
} ze_subscription_t;

/* Any thread (systems of parallel waves too). The payload is copied (16-byte
 * aligned when delivered); it is delivered at the next BeginFrame, in
 * publish order across all types. A message published during delivery is
 * delivered at the following pump; a pump from inside delivery is ignored.
 * At most 256 MiB may wait between pumps (then ZE_ERR_FULL). */
ze_result ze_message_publish(ze_world_t *w, ze_message_type_t type, const void *payload);
#define ze_publish(w, T, ...) ze_message_publish((w), ZE_MSG_ID(T), &(T)__VA_ARGS__)
ze_subscription_t ze_message_subscribe(ze_world_t *w, ze_message_type_t type, ze_message_fn fn,
                                       void *user);
ze_result ze_message_unsubscribe(ze_world_t *w, ze_subscription_t s);
/* Deliver what was published before this call (BeginFrame does it); returns
 * how many messages it took off the queue. */
uint32_t ze_message_pump(ze_world_t *w);

/* --------------------------------------------------------------- bindings */

typedef enum ze_delta_kind {
    ZE_DELTA_ADDED = 1,
    ZE_DELTA_CHANGED,
    ZE_DELTA_REMOVED,
    ZE_DELTA_SNAPSHOT, /* the state at attach time */
} ze_delta_kind;

typedef struct ze_delta_t {
    ze_delta_kind kind;
    ze_entity_t entity;
    ze_component_t component;
    const void *value; /* current value; NULL for REMOVED and for tags */
} ze_delta_t;

typedef void (*ze_binder_fn)(ze_world_t *w, const ze_delta_t *delta, void *user);
typedef struct ze_binder_t {
    uint32_t id; /* 0 = invalid */
} ze_binder_t;

/* A binder receives the deltas of one component type, or of a set of
 * components of one entity. It gets SNAPSHOT deltas of the current state at
 * its first apply. Added/removed come from applied changes (direct calls and
 * commands); changed from ze_set / set commands over an existing value, from
 * ze_delta_mark_changed, and, at each group barrier, from the row versions
 * (change tracking): the rows written since, by query runs with the
 * component writable, ze_get_mut or marks, so only what a system really
 * reached (watched types are tracked from the attach on). ze_bindings_apply
 * (LateFrame runs it) delivers the frame's deltas coalesced per (entity,
 * component), binders in attach order, entities in order of first change,
 * and one entity's components in order of first change too (so commands
 * arrive in the order they were recorded, not by component id). */
ze_binder_t ze_binder_attach_type(ze_world_t *w, ze_component_t c, ze_binder_fn fn, void *user);
ze_binder_t ze_binder_attach_entity(ze_world_t *w, ze_entity_t e, ze_mask_t components,
                                    ze_binder_fn fn, void *user);
ze_result ze_binder_detach(ze_world_t *w, ze_binder_t b);
ze_result ze_delta_mark_changed(ze_world_t *w, ze_entity_t e, ze_component_t c);
void ze_bindings_apply(ze_world_t *w);

/* DeltaTracker: a binder-side helper keeping, per entity, whether it has the
 * component, whether it changed since the last clear, whether it was removed,
 * and a copy of its last value. */
typedef struct ze_delta_tracker_t {
    ze_allocator_t alloc;
    uint32_t value_size;
    ze_hashmap_t entries; /* entity id -> entry */
} ze_delta_tracker_t;

void ze_delta_tracker_init(ze_delta_tracker_t *t, ze_allocator_t alloc, uint32_t value_size);
void ze_delta_tracker_free(ze_delta_tracker_t *t);
ze_result ze_delta_tracker_feed(ze_delta_tracker_t *t, const ze_delta_t *d);
bool ze_delta_tracker_has(const ze_delta_tracker_t *t, ze_entity_t e);
bool ze_delta_tracker_dirty(const ze_delta_tracker_t *t, ze_entity_t e);
bool ze_delta_tracker_removed(const ze_delta_tracker_t *t, ze_entity_t e);
const void *ze_delta_tracker_last(const ze_delta_tracker_t *t, ze_entity_t e);
/* Forget dirty flags and removed entries (last() of a removed entity stays
 * valid until then). */
void ze_delta_tracker_clear(ze_delta_tracker_t *t);

/* ------------------------------------------------- hooks and validators */

/* Run when a command applies (ze_commands_flush). A write-permission
 * predicate may refuse a structural or value command on (entity, type); a
 * validator may refuse a value of its type. A refused command is skipped and
 * recorded (ze_commands_rejections); the world's policy then decides: SKIP
 * (go on quietly), LOG (go on, log each), FAIL (stop: the flush returns
 * ZE_ERR_DENIED and the refused command and everything after it stay in the
 * buffer, never silently lost). A destroy asks the predicates about the
 * entity itself (component ZE_COMPONENT_INVALID) and each of its components,
 * then the same about every descendant it would take, or, detaching, about
 * each child's Parent and Transform. */
typedef bool (*ze_write_permission_fn)(ze_world_t *w, ze_entity_t e, ze_component_t c, void *user);
typedef bool (*ze_validator_fn)(ze_world_t *w, ze_entity_t e, const void *value, void *user);
typedef enum ze_validation_policy {
    ZE_VALIDATION_SKIP = 0,
    ZE_VALIDATION_LOG,
    ZE_VALIDATION_FAIL,
} ze_validation_policy;

ze_result ze_hooks_add_write_permission(ze_world_t *w, ze_write_permission_fn fn, void *user);
ze_result ze_hooks_add_validator(ze_world_t *w, ze_component_t c, ze_validator_fn fn, void *user);
void ze_world_set_validation_policy(ze_world_t *w, ze_validation_policy policy);

typedef struct ze_command_rejection_t {
    uint32_t command; /* position in the buffer at the flush, from 0 */
    ze_entity_t entity;
    ze_component_t component; /* ZE_COMPONENT_INVALID for a spawn or destroy */
    ze_result
        reason; /* ZE_ERR_DENIED (permission or group policy) or ZE_ERR_INVALID_ARG (validator) */
} ze_command_rejection_t;
/* The rejections of the last flush of `c` (valid until its next flush). */
uint32_t ze_commands_rejections(const ze_commands_t *c, const ze_command_rejection_t **out);

/* -------------------------------------------------------------- snapshots */

/* A growable byte buffer and a bounds-checked reader, for snapshots and
 * formatters. Writes after a failure are ignored; `failed` says so. */
typedef struct ze_byte_writer_t {
    ze_allocator_t alloc;
    uint8_t *data;
    size_t size, cap;
    bool failed;
} ze_byte_writer_t;
typedef struct ze_byte_reader_t {
    const uint8_t *data;
    size_t size, pos;
    bool failed;
} ze_byte_reader_t;
bool ze_byte_write(ze_byte_writer_t *w, const void *p, size_t n);
bool ze_byte_read(ze_byte_reader_t *r, void *p, size_t n);
void ze_byte_writer_free(ze_byte_writer_t *w);

/* Per-component record formatter (optional; raw bytes otherwise). */
typedef struct ze_component_formatter_t {
    ze_result (*write)(ze_byte_writer_t *out, const void *value, void *user);
    ze_result (*read)(ze_byte_reader_t *in, void *value, void *user);
    void *user;
} ze_component_formatter_t;
ze_result ze_component_set_formatter(ze_kernel_t *k, ze_component_t c,
                                     const ze_component_formatter_t *f);

/* Upgrade one record of component `stable_id` from schema `from_version` to
 * from_version + 1: read the old record, write the new one. Chains of
 * migrations run in order. */
typedef ze_result (*ze_migration_fn)(ze_byte_reader_t *old_record, ze_byte_writer_t *new_record,
                                     void *user);
ze_result ze_snapshot_add_migration(ze_kernel_t *k, uint64_t stable_id, uint32_t from_version,
                                    ze_migration_fn fn, void *user);

/* Binary world snapshot: header (magic, format version, endianness, flags),
 * entity table (generations, free list in order, alive set), one section per
 * non-transient component pool (stable id, schema version, records),
 * checksum. Save -> load -> save is byte-identical. Load validates the whole
 * file before touching the world: on any error the world is unchanged. */
ze_result ze_world_save(const ze_world_t *w, ze_byte_writer_t *out);
ze_result ze_world_load(ze_world_t *w, const void *data, size_t size);

/* ------------------------------------------------------------ scene files */

/* JSON through component reflection:
 * {"format": "zengine.scene", "version": 1, "entities": [{"uuid": "...",
 * "components": {"Name": {"value": "..."}, ...}}, ...]}. Entities are the
 * ones with a UUID component (save gives one to entities that lack it);
 * Parent refers to the parent's uuid. Save -> load -> save is byte-identical.
 * Load reports unknown components and fields with their JSON path to the
 * kernel's diagnostics sink (WARN; the first 16, then a count) and goes on;
 * malformed JSON or wrong types fail with nothing applied (reported at
 * ERROR). `report` (optional) counts them. */
typedef struct ze_scene_report_t {
    uint32_t problems;   /* found (each reported, up to 16) */
    uint32_t entities;   /* loaded */
    uint32_t unresolved; /* names the kernel's resolver did not resolve (see below) */
} ze_scene_report_t;
ze_result ze_scene_save_json(ze_world_t *w, ze_byte_writer_t *out);
ze_result ze_scene_load_json(ze_world_t *w, const char *json, size_t len,
                             ze_scene_report_t *report);

/* Names for UUID fields. The ECS does not know what a uuid stands for; a
 * hook set on the kernel may let scene files name it instead (the engine
 * sets one that reads asset references, "/models/crate.gltf#mesh/0").
 * Load: a UUID field's string that is not a uuid goes to `resolve` (without
 * a hook it is a type error); when it does not resolve, the hook reports why
 * (once, through its own sink, with what ctx names), the field is left nil,
 * the load goes on and report.unresolved counts it. Save: `name` may give
 * the text to write instead of a uuid (NUL-terminated, at most cap - 1
 * bytes); false writes the uuid. A name must resolve back to its uuid, so
 * that save -> load -> save stays byte-identical. Main thread, like loads
 * and saves. */
enum { ZE_SCENE_NAME_MAX = 1024 };
typedef struct ze_scene_name_ctx_t {
    ze_world_t *world;
    const char *json_path;   /* "$.entities[4].components.Mesh.mesh" */
    ze_uuid_t entity;        /* the entity's uuid in the file */
    const char *entity_name; /* its Name in the file, NULL when it has none */
    const char *component, *field;
} ze_scene_name_ctx_t;
typedef struct ze_scene_names_t {
    ze_result (*resolve)(void *user, const ze_scene_name_ctx_t *ctx, const char *name, size_t len,
                         ze_uuid_t *out);
    bool (*name)(void *user, ze_uuid_t uuid, char *buf, size_t cap);
    void *user;
} ze_scene_names_t;
/* Set (a copy is kept) or clear (NULL) the kernel's names. */
void ze_kernel_set_scene_names(ze_kernel_t *k, const ze_scene_names_t *names);

/* The scene file writer behind ze_scene_save_json, for tools that write
 * scene files without a world (the asset cooker): the same calls give the
 * same bytes, so a world that loads the file saves it back unchanged.
 *   ze_scene_writer_begin(&s, out);          {"format": ..., "entities": [
 *   ze_scene_writer_entity(&s, uuid);          {"uuid": ..., "components": {
 *   ze_scene_writer_component(&s, "Name");       "Name": {
 *   ze_scene_writer_field(&s, "value");            "value": <one value>
 *   ze_scene_writer_string(&s, "Crate", 5);
 *   ze_scene_writer_component_end(&s);           }
 *   ze_scene_writer_entity_end(&s);            }}
 *   ze_scene_writer_end(&s);                 ]}
 * Two-space indentation, one member per line, commas between members, a
 * final newline. Values: _string escapes '"', '\\' and control characters
 * (\n \t \r \b \f, else \u00XX), keeps valid UTF-8 and writes each byte
 * that starts no valid sequence as U+FFFD, counted in `replaced`; _real the
 * shortest "%.Ng" that reads back to the same float (f32) or double, always
 * with a '.' or an exponent, NaN and infinities as the strings "nan", "inf"
 * and "-inf"; _uuid a quoted uuid; _text its text as it is (true, null, '[',
 * ", ", ']'...). Numbers follow the thread's locale: write in the "C" one
 * (uselocale). Running out of memory shows in out->failed. */
typedef struct ze_scene_writer_t {
    ze_byte_writer_t *out;
    uint32_t replaced; /* bytes of invalid UTF-8 written as U+FFFD */
    bool any_entity, any_component, any_field;
} ze_scene_writer_t;
void ze_scene_writer_begin(ze_scene_writer_t *s, ze_byte_writer_t *out);
void ze_scene_writer_end(ze_scene_writer_t *s);
void ze_scene_writer_entity(ze_scene_writer_t *s, ze_uuid_t uuid);
void ze_scene_writer_entity_end(ze_scene_writer_t *s);
void ze_scene_writer_component(ze_scene_writer_t *s, const char *name);
void ze_scene_writer_component_end(ze_scene_writer_t *s);
void ze_scene_writer_field(ze_scene_writer_t *s, const char *name);
void ze_scene_writer_string(ze_scene_writer_t *s, const char *str, size_t n);
void ze_scene_writer_real(ze_scene_writer_t *s, double v, bool f32);
void ze_scene_writer_uuid(ze_scene_writer_t *s, ze_uuid_t u);
void ze_scene_writer_text(ze_scene_writer_t *s, const char *text);

/* ---------------------------------------------------------------- prefabs */

/* A prefab: entities copied out of a world as a template, instantiated any
 * number of times into worlds of the same kernel (the engine builds them
 * from scene files and from a model's cooked node hierarchy: ze_engine_spawn).
 * Every component is copied (through its copy hook) except UUID and
 * transient ones: an instance is new entities. Reflected ENTITY fields
 * (Parent, and a game's own) that point at an entity of the template point
 * at the instance's copy of it; those pointing elsewhere become null. A
 * component that keeps handles in raw, unreflected bytes is copied as it
 * is. Main thread; a prefab is immutable and may outlive its source world. */
typedef struct ze_prefab_t ze_prefab_t;
/* Every alive entity of `src`, in index order. */
ze_result ze_prefab_create(ze_world_t *src, ze_prefab_t **out);
void ze_prefab_destroy(ze_prefab_t *p);
uint32_t ze_prefab_entity_count(const ze_prefab_t *p);
/* New entities in `w`, one per prefab entity (`out`, optional, receives
 * them in prefab order: ze_prefab_entity_count entries). The prefab's roots
 * (entities without a Parent inside it) get Parent = `parent` unless it is
 * null. ZE_ERR_STATE inside an iteration or a parallel wave (record a
 * ze_cmd_spawn whose callback instantiates instead: the engine's spawn does),
 * ZE_ERR_DENIED by the group write policy, ZE_ERR_NOT_FOUND for a dead
 * `parent`; on failure no entity of the instance is left. */
ze_result ze_prefab_instantiate(ze_world_t *w, const ze_prefab_t *p, ze_entity_t parent,
                                ze_entity_t *out);

/* --------------------------------------------------------------- services */

/* The kernel's configuration, inherited by every world. */
typedef struct ze_services_t {
    ze_mem_t *mem;
    ze_job_system_t *jobs;
    ze_clock_fn clock;
    void *clock_user;
    ze_diag_sink_t diag; /* the kernel desc's */
} ze_services_t;
const ze_services_t *ze_world_services(const ze_world_t *w);
uint64_t ze_world_now_ns(const ze_world_t *w);
/* Report to the kernel's sink: module "ecs", subject = the world's name
 * (w NULL: the log, no subject). Returns `code`. */
ze_result ze_world_report(const ze_world_t *w, ze_log_level level, ze_result code, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));
/* Service scopes (ZenECS's ServiceContainer): named services (function
 * tables, user state) in the kernel's scope and in each world's, whose
 * lookups fall back to the kernel's (a world's own shadows a kernel's of
 * the same name). A world's scope is sealed when the world starts (its
 * first BeginFrame), the kernel's when any of its worlds starts: later
 * registration fails with ZE_ERR_STATE, naming the seal; a name twice in
 * one scope is ZE_ERR_CONFLICT. When a scope ends, each service's
 * `release` (optional) runs, in reverse order of registration: a world's
 * at its destroy, after its systems' shutdown; the kernel's at its
 * destroy, after its worlds'. Names up to ZE_COMPONENT_NAME_MAX - 1. */
typedef struct ze_service_desc_t {
    const char *name; /* copied */
    void *service;
    void (*release)(void *service, void *user);
    void *user;
} ze_service_desc_t;
ze_result ze_world_service_add(ze_world_t *w, const ze_service_desc_t *desc);
ze_result ze_kernel_service_add(ze_kernel_t *k, const ze_service_desc_t *desc);
/* ze_world_service_add without a release. */
ze_result ze_world_service_register(ze_world_t *w, const char *name, void *service);
/* The world's service, else the kernel's; NULL when neither has it. */
void *ze_world_service_get(const ze_world_t *w, const char *name);
void *ze_kernel_service_get(const ze_kernel_t *k, const char *name);
bool ze_world_started(const ze_world_t *w);

/* -------------------------------------------------------- internals */

ze_component_t ze__component_register_or_invalid(ze_kernel_t *k, const ze_component_desc_t *d);
static inline ze_kernel_t *ze__kernel_from_kernel(ze_kernel_t *k)
{
    return k;
}
#define ze__kernel_of(kw) \
    _Generic((kw), ze_kernel_t * : ze__kernel_from_kernel, ze_world_t * : ze_world_kernel)(kw)

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_ECS_H */
