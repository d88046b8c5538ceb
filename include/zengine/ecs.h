/* zengine/ecs.h — entities, components, queries, commands, actors, WorldTick.
 *
 * What: a kernel holds the component registry, the memory manager and the job
 * system; worlds are created from it. An entity is a 64-bit handle (32-bit
 * index + 32-bit generation, 0 invalid); a stale handle is never alive and
 * never reads another entity's data. Components are registered at run time
 * (at most ZE_MAX_COMPONENTS per kernel) and stored in one sparse set per type
 * with paged dense arrays; owning groups keep the entities that have all of a
 * set of components packed at the front of those arrays in the same order, so
 * a query over them is a plain loop over arrays whatever order the components
 * were added in. Queries are cached per world, keyed by their full sets.
 * Commands defer structural changes; WorldTick runs systems in dependency
 * waves, in parallel on the job system where their masks allow.
 * Not: system groups, fixed step, messages, snapshots (issue "ECS framework").
 * Threads: a world belongs to one thread (the main thread). Inside a parallel
 * wave, systems may read and write component values through their queries and
 * record commands into their own buffer (ze_tick_t.cmds); structural calls
 * on the world from a wave are refused with ZE_ERR_STATE.
 * Memory: everything comes from the kernel's memory manager, owner ECS.
 * Errors: ze_result for recoverable failures; pointers returned by get/add are
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
    ZE_MAX_COMPONENTS = 64, /* one bit each in ze_mask_t */
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

typedef uint64_t ze_mask_t;

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
 * and alignment returns the same id; with a different layout, or past
 * ZE_MAX_COMPONENTS, it fails: *out untouched, error logged, ZE_ERR_LIMIT /
 * ZE_ERR_CONFLICT returned. */
ze_result ze_component_register(ze_kernel_t *k, const ze_component_desc_t *desc,
                                ze_component_t *out);
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
#define ZE_TAG(kw, T)                                            \
    ze_component_t ZE_ID(T) = ze__component_register_or_invalid( \
        ze__kernel_of(kw), &(ze_component_desc_t){.name = #T, .size = 0})

static inline ze_mask_t ze_mask_of(ze_component_t c)
{
    return c.id < ZE_MAX_COMPONENTS ? (ze_mask_t)1 << c.id : 0;
}
#define ZE__MASK1(T)                                       ze_mask_of(ZE_ID(T))
#define ZE__MASK_N(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define ZE__M1(a)                                          ZE__MASK1(a)
#define ZE__M2(a, ...)                                     (ZE__MASK1(a) | ZE__M1(__VA_ARGS__))
#define ZE__M3(a, ...)                                     (ZE__MASK1(a) | ZE__M2(__VA_ARGS__))
#define ZE__M4(a, ...)                                     (ZE__MASK1(a) | ZE__M3(__VA_ARGS__))
#define ZE__M5(a, ...)                                     (ZE__MASK1(a) | ZE__M4(__VA_ARGS__))
#define ZE__M6(a, ...)                                     (ZE__MASK1(a) | ZE__M5(__VA_ARGS__))
#define ZE__M7(a, ...)                                     (ZE__MASK1(a) | ZE__M6(__VA_ARGS__))
#define ZE__M8(a, ...)                                     (ZE__MASK1(a) | ZE__M7(__VA_ARGS__))
/* ZE_MASK(Position, Velocity): the bits of up to 8 component types. */
#define ZE_MASK(...)                                                                        \
    ZE__MASK_N(__VA_ARGS__, ZE__M8, ZE__M7, ZE__M6, ZE__M5, ZE__M4, ZE__M3, ZE__M2, ZE__M1) \
    (__VA_ARGS__)

/* ------------------------------------------------------------- kernel */

typedef struct ze_kernel_desc_t {
    ze_mem_t *mem;         /* NULL: the kernel creates (and owns) one */
    ze_job_system_t *jobs; /* NULL: the kernel creates (and owns) one */
    const char *name;
} ze_kernel_desc_t;

/* NULL on failure (reason logged). Built-in components (ecs builtins below)
 * are registered first, so their ids are the same in every kernel. */
ze_kernel_t *ze_kernel_create(const ze_kernel_desc_t *desc);
/* Destroys the kernel's worlds (in reverse creation order) too. */
void ze_kernel_destroy(ze_kernel_t *k);
ze_mem_t *ze_kernel_mem(const ze_kernel_t *k);
ze_job_system_t *ze_kernel_jobs(const ze_kernel_t *k);

/* -------------------------------------------------------------- worlds */

typedef struct ze_world_desc_t {
    const char *name;
    uint32_t capacity;       /* entity slots (address space reserved); 0 = 1 Mi */
    uint32_t actor_capacity; /* 0 = 1024 */
    bool no_auto_groups;     /* see ze_query_create */
} ze_world_desc_t;

ze_world_t *ze_world_create(ze_kernel_t *k, const ze_world_desc_t *desc);
void ze_world_destroy(ze_world_t *w);
ze_kernel_t *ze_world_kernel(const ze_world_t *w);
const char *ze_world_name(const ze_world_t *w);
uint32_t ze_world_entity_count(const ze_world_t *w);
uint32_t ze_world_capacity(const ze_world_t *w);
/* Order-independent hash of every alive entity (handle) and the bytes of its
 * non-transient components: equal worlds hash equal. */
uint64_t ze_world_hash(const ze_world_t *w);

/* ------------------------------------------------------ entity calls */

/* ZE_ENTITY_NULL when every slot is in use or retired (logged). */
ze_entity_t ze_entity_create(ze_world_t *w);
/* Removes all components (their dtors run) and frees the slot; the slot's
 * generation moves on, and a slot whose generation would wrap is retired.
 * ZE_ERR_NOT_FOUND when `e` is not alive. Deferred while a query is being
 * iterated (applied when the last iteration ends). */
ze_result ze_entity_destroy(ze_world_t *w, ze_entity_t e);
bool ze_entity_alive(const ze_world_t *w, ze_entity_t e);
/* The alive handle for a slot index, or ZE_ENTITY_NULL. */
ze_entity_t ze_entity_from_index(const ze_world_t *w, uint32_t index);
/* Component bits of an alive entity (0 when not alive). */
ze_mask_t ze_entity_mask(const ze_world_t *w, ze_entity_t e);

/* --------------------------------------------------- component calls */

/* Add (default value: ctor or zero) if absent; returns the component either
 * way, NULL when `e` is not alive or the call is refused. */
void *ze_component_add(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Add or overwrite with a copy of *value. */
ze_result ze_component_set(ze_world_t *w, ze_entity_t e, ze_component_t c, const void *value);
/* NULL when absent or `e` is not alive (never inserts). */
void *ze_component_get(const ze_world_t *w, ze_entity_t e, ze_component_t c);
bool ze_component_has(const ze_world_t *w, ze_entity_t e, ze_component_t c);
/* ZE_ERR_NOT_FOUND when absent (a no-op that says so) or `e` not alive. */
ze_result ze_component_remove(ze_world_t *w, ze_entity_t e, ze_component_t c);
/* Number of entities that have c. */
uint32_t ze_component_population(const ze_world_t *w, ze_component_t c);

#define ze_set(w, e, T, ...) ze_component_set((w), (e), ZE_ID(T), &(T)__VA_ARGS__)
#define ze_get(w, e, T)      ((T *)ze_component_get((w), (e), ZE_ID(T)))
#define ze_add(w, e, T)      ((T *)ze_component_add((w), (e), ZE_ID(T)))
#define ze_has(w, e, T)      ze_component_has((w), (e), ZE_ID(T))
#define ze_remove(w, e, T)   ze_component_remove((w), (e), ZE_ID(T))

/* ------------------------------------------------------------- groups */

/* An owning group: the entities that have every component of `owned` are
 * kept at the front of those components' dense arrays, in the same order, so
 * iterating them is a loop over packed arrays. Groups may nest (one's set
 * contains the other's) but may not partially overlap: ZE_ERR_CONFLICT, with
 * both sets logged. Creating a group sorts existing entities in. Adding or
 * removing an owned component costs a few swaps. */
ze_result ze_group_create(ze_world_t *w, ze_mask_t owned);
/* Length of the packed range of the group with exactly this set (0 if none). */
uint32_t ze_group_size(const ze_world_t *w, ze_mask_t owned);

/* ------------------------------------------------------------ queries */

typedef struct ze_query_desc_t {
    ze_mask_t with;     /* required */
    ze_mask_t without;  /* excluded */
    ze_mask_t optional; /* fields may be NULL for a run */
    ze_mask_t write;    /* of with|optional: written back when gathered */
} ze_query_desc_t;

typedef struct ze_query_t {
    uint32_t id; /* 0 = invalid */
} ze_query_t;

/* A cached query, keyed by its full sets. With auto groups on (the default),
 * the first query whose `with` has two or more components creates an owning
 * group for that set when the set can nest with the existing groups. */
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
    const uint32_t *indices;         /* entity slot indices of the run */
    void *fields[ZE_MAX_COMPONENTS]; /* by component id; NULL if absent */
    ze_world_t *world;
    /* internal */
    uint32_t query;
    uint32_t pos, end, driver;
    uint32_t flags;
    ze_mask_t gathered;
    void *scratch_arena;
    size_t scratch_marker;
} ze_iter_t;

ze_iter_t ze_query_iter(ze_world_t *w, ze_query_t q);
bool ze_query_next(ze_iter_t *it);
/* Ends an iteration early (flushes write-back, releases the world). Not
 * needed after ze_query_next returned false. */
void ze_iter_fini(ze_iter_t *it);
ze_entity_t ze_iter_entity(const ze_iter_t *it, uint32_t i);
#define ze_field(it, T) ((T *)(it)->fields[ZE_ID(T).id])

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
 * entity after its destroy are skipped. */
ze_result ze_cmd_destroy(ze_commands_t *c, ze_entity_t e);
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
} ze_tick_t;

typedef void (*ze_system_fn)(ze_world_t *w, const ze_tick_t *t);

typedef struct ze_system_desc_t {
    const char *name; /* required, unique within the tick */
    ze_system_fn fn;  /* required */
    void *user;
    ze_mask_t reads, writes;
    bool uses_commands;
    /* The system's query; when `query.with` is 0 it is
     * {with = reads | writes, write = writes}. */
    ze_query_desc_t query;
} ze_system_desc_t;

typedef struct ze_worldtick_t ze_worldtick_t;
typedef struct ze_system_t {
    uint32_t id; /* 0 = invalid */
} ze_system_t;

ze_worldtick_t *ze_worldtick_create(ze_world_t *w);
void ze_worldtick_destroy(ze_worldtick_t *t);
ze_system_t ze_worldtick_add(ze_worldtick_t *t, const ze_system_desc_t *desc);
ze_result ze_worldtick_order(ze_worldtick_t *t, ze_system_t before, ze_system_t after);
/* Build the plan. ZE_ERR_CONFLICT naming both systems when two conflicting
 * systems (one writes what the other reads or writes) are not ordered;
 * ZE_ERR_CYCLE naming the systems on a cycle. The message is also available
 * from ze_worldtick_error. */
ze_result ze_worldtick_commit(ze_worldtick_t *t);
const char *ze_worldtick_error(const ze_worldtick_t *t);
/* Run every wave (committing first if needed), then flush the commands. */
ze_result ze_worldtick_run(ze_worldtick_t *t, float dt);
uint32_t ze_worldtick_wave_count(const ze_worldtick_t *t);

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
    uint32_t render_instance; /* runtime only: ZE_RENDER_INSTANCE_NONE when unbound */
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
