/* Internals shared by the ecs module's files. Not a public header. */
#ifndef ZE_ECS_INTERNAL_H
#define ZE_ECS_INTERNAL_H

#include <stdatomic.h>
#include <string.h>

#include "zengine/ecs.h"

/* ------------------------------------------------------------ worldtick */

/* The per-group scheduler behind ze_system_* (one per world and group): a
 * DAG of systems from their read/write masks and explicit orders, run in
 * waves of systems that may run in parallel. Not a public API: games use
 * ze_system_add. Tests and the ECS benchmark drive it directly. */
typedef struct ze_worldtick_t ze_worldtick_t;
ze_worldtick_t *ze_worldtick_create(ze_world_t *w);
void ze_worldtick_destroy(ze_worldtick_t *t);
ze_system_t ze_worldtick_add(ze_worldtick_t *t, const ze_system_desc_t *desc);
ze_result ze_worldtick_order(ze_worldtick_t *t, ze_system_t before, ze_system_t after);
/* Build the plan. ZE_ERR_CONFLICT naming both systems when two conflicting
 * systems (one writes what the other reads or writes) are not ordered;
 * ZE_ERR_CYCLE naming the systems on a cycle; the text from
 * ze_worldtick_error (the framework reports it through the kernel's sink). */
ze_result ze_worldtick_commit(ze_worldtick_t *t);
const char *ze_worldtick_error(const ze_worldtick_t *t);
/* Run every wave (committing first if needed), then flush the commands. */
ze_result ze_worldtick_run(ze_worldtick_t *t, float dt);
uint32_t ze_worldtick_wave_count(const ze_worldtick_t *t);
/* The kernel's own reports (ze_world_report for a world's): its
 * diagnostics sink, module "ecs"; NULL: the log. Return `code`. */
ze_result ze__kernel_report(const ze_kernel_t *k, ze_log_level level, ze_result code,
                            const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The last planning error of a group ("" if none): what was reported. */
const char *ze__world_plan_error(const ze_world_t *w, ze_system_group group);

#define ZE__LOG_CH "ecs"

/* Storage pages: 4096 entries. Sparse pages map entity index -> dense
 * position + 1 (0 = absent, so fresh zeroed pages need no init); dense pages
 * hold entity indices and component data at the same dense position. */
enum { ZE__PAGE_BITS = 12, ZE__PAGE = 1u << ZE__PAGE_BITS, ZE__PAGE_MASK = ZE__PAGE - 1 };

/* Generation word of a slot: low 31 bits the generation (1..2^31-1), the
 * top bit set while the slot is dead. Handles never carry the top bit, so a
 * dead slot never matches a handle. */
#define ZE__GEN_DEAD 0x80000000u
#define ZE__GEN_MAX  0x7fffffffu

/* The first fields of ze__pool_t and ze_world_t mirror ze__pool_prefix_t and
 * ze__world_prefix_t of ecs.h, which the inline ze_get reads (checked by
 * static asserts in storage.c). */
typedef struct ze__pool_t {
    uint32_t size; /* 0 for tags */
    uint32_t id;
    uint32_t **sparse; /* [page_count] -> u32[ZE__PAGE]; pages never used: a shared zero page */
    uint8_t **data;    /* [page_count] -> size * ZE__PAGE bytes (page 0: page0_cap) */
    uint32_t align;
    uint32_t count; /* dense entries */
    ze_component_hooks_t hooks;
    bool has_hooks;
    uint32_t page_count; /* entries of each page table (capacity / ZE__PAGE, rounded up) */
    uint32_t **dense;    /* [page_count] -> u32[ZE__PAGE] entity indices */
    uint32_t page0_cap;  /* entries allocated in data page 0 (it grows) */
    uint32_t dense0_cap; /* entries allocated in dense page 0 (it grows too) */
    uint64_t groups;     /* bit g: group g owns this pool */
    uint32_t cap;        /* dense positions [0, cap) have their dense and data pages */
    bool plain;          /* no hooks and no group: adds take storage.c's short path */
    bool watched;        /* a binder watches the type: storage notes its changes */
    uint32_t bit;        /* the world's bit for the type in entity masks */
    /* Scratch of one destroy or settle (storage.c), world thread only. */
    uint32_t hole, dead;
    size_t off;
    /* Change tracking (versions.c). `changed`: the newest version stamped
     * on a row (a write or an add); `removed`: the newest removal. Rows
     * carry versions only once the type is tracked (ze__pool_track): then
     * ver[page][i] is the version of dense row page * ZE__PAGE + i (it
     * moves with the row) and page_max[page] the newest of its page. The
     * stamps are atomics: parallel systems and jobs write rows of one pool
     * (relaxed: they are hints about values the writers order otherwise). */
    _Atomic uint32_t changed, removed;
    uint32_t **ver;             /* [page_count] -> u32[ZE__PAGE], like dense; NULL: untracked */
    _Atomic uint32_t *page_max; /* [page_count] */
} ze__pool_t;

enum { ZE__MAX_GROUPS = 32 };

typedef struct ze__group_t {
    ze_mask_t owned; /* component ids, ascending */
    uint32_t len;
    uint32_t first_pool; /* lowest component id owned (membership test) */
} ze__group_t;

/* A cached query: its desc (the key), its terms (with and optional,
 * ascending: the iterator's fields), and the world-local bitsets of with,
 * without and optional it filters with, compiled against the world's bits
 * (query.c; recompiled when the world's layout changed). */
typedef struct ze__query_t {
    ze_query_desc_t desc;
    int32_t group; /* group whose set is within desc.with (largest), or -1 */
    uint32_t term_count;
    uint16_t terms[ZE_QUERY_MAX_TERMS];
    uint64_t term_write, term_optional; /* bit i: term i writable / optional */
    uint32_t layout;                    /* w->layout it was compiled against (0: never) */
    uint32_t words;                     /* of each bitset */
    uint64_t *bits;                     /* with[words], without[words], optional[words] */
    bool missing; /* a `with` type has no pool in the world: matches nothing */
} ze__query_t;

/* One registered component type (kernel.c): what ze_component_info shows,
 * its name's storage and its snapshot formatter. Kept in chunks that never
 * move, so info pointers stay valid as the registry grows. */
typedef struct ze__component_rec_t {
    ze_component_info_t info;
    char name[ZE_COMPONENT_NAME_MAX];
    ze_component_formatter_t formatter;
} ze__component_rec_t;
enum { ZE__REC_CHUNK_BITS = 8, ZE__REC_CHUNK = 1u << ZE__REC_CHUNK_BITS };

typedef struct ze__message_rec_t {
    char name[ZE_COMPONENT_NAME_MAX];
    uint32_t size;
} ze__message_rec_t;

/* A service scope (services.c): services in registration order and an
 * index by name; sealed once composition is over. */
typedef struct ze__scope_t {
    ze_array_t list;    /* service_t, registration order */
    ze_hashmap_t index; /* xxHash of the name -> u32 first position with it */
    bool sealed;
} ze__scope_t;
void ze__scope_init(ze__scope_t *s, ze_allocator_t a);
void ze__scope_fini(ze__scope_t *s); /* releases in reverse order */

typedef struct ze__actor_manager_t ze__actor_manager_t;
typedef struct ze__messages_t ze__messages_t;     /* messages.c */
typedef struct ze__bindings_t ze__bindings_t;     /* bindings.c */
typedef struct ze__migrations_t ze__migrations_t; /* snapshot.c */
typedef struct ze__systems_t ze__systems_t;       /* systems.c: the eight groups */
typedef struct ze__hooks_t ze__hooks_t;           /* commands.c: permissions, validators */
typedef struct ze__worker_t ze__worker_t;         /* worker.c: jobs systems schedule */

struct ze_kernel_t {
    char name[64];
    ze_mem_t *mem;
    ze_job_system_t *jobs;
    bool owns_mem, owns_jobs;
    ze_heap_t *heap;      /* the kernel's own, in the ECS owner */
    ze_allocator_t alloc; /* over `heap` */
    /* The registry: records in chunks of ZE__REC_CHUNK, indexes by name and
     * by stable id. Sealed by ze_kernel_seal. */
    ze__component_rec_t **comp_chunks;
    uint32_t comp_chunk_cap;
    uint32_t component_count;
    ze_hashmap_t comp_by_name;   /* xxHash of the name -> u32 first id with it */
    ze_hashmap_t comp_by_stable; /* stable id -> u32 id */
    bool sealed;
    ze_world_t **worlds;
    uint32_t world_count, world_cap;
    uint32_t next_world_id;
    /* framework */
    ze_services_t services;
    double fixed_dt;
    uint32_t max_substeps;
    /* The fixed-step accumulator (kernel.c): time in units of 1/step_den
     * ns, chosen so that one step is a whole step_units. */
    int64_t accumulator;      /* units; may sit up to the slack below 0 */
    double accumulator_carry; /* the fraction of a unit rounding left, [-0.5, 0.5] */
    int64_t step_units;
    int64_t step_den;
    ze_frame_stats_t stats;
    ze__migrations_t *migrations;
    ze__message_rec_t *messages; /* [message_cap], index = message type id (0 unused) */
    uint32_t message_cap;
    uint32_t message_count;       /* ids 1..message_count */
    ze_hashmap_t msg_by_name;     /* xxHash of the name -> u32 first id with it */
    ze__scope_t scope;            /* the kernel's services (worlds fall back to it) */
    ze_scene_names_t scene_names; /* names of UUID fields in scene files (scene_json.c) */
};

/* The record of registered component `id` (< component_count). */
static inline ze__component_rec_t *ze__rec(const ze_kernel_t *k, uint32_t id)
{
    return &k->comp_chunks[id >> ZE__REC_CHUNK_BITS][id & (ZE__REC_CHUNK - 1)];
}
static inline const ze_component_info_t *ze__info(const ze_kernel_t *k, uint32_t id)
{
    return &ze__rec(k, id)->info;
}

struct ze_world_t {
    /* hot prefix (see ze__world_prefix_t) */
    uint32_t *gen;      /* [capacity] */
    uint32_t fresh;     /* slots ever handed out */
    uint32_t pool_cap;  /* entries of `pools` */
    ze__pool_t **pools; /* [pool_cap] by component id; NULL: not used in this world */

    /* The types this world uses, by their bit in entity masks (a pool gets
     * the next bit when it is created), and the entity masks: mask_words
     * words per slot (storage.c widens them when the 65th, 129th... type
     * arrives). `layout` counts pool creations: queries recompile. */
    ze__pool_t **pool_list; /* [pool_count] by bit */
    uint32_t pool_count, pool_list_cap;
    uint32_t mask_words;
    uint32_t layout;
    uint64_t *special;  /* [mask_words]: types with hooks or a binder */
    uint64_t *tmp_bits; /* [mask_words]: scratch of one call (world thread) */

    ze_kernel_t *kernel;
    char name[64];
    ze_allocator_t alloc;
    uint32_t capacity;

    /* entity table */
    ze_mem_region_t gen_region, mask_region;
    uint64_t *mask;     /* [capacity * mask_words]; a dead slot's first word: next free index */
    uint32_t free_head; /* UINT32_MAX = empty */
    uint32_t alive;
    uint32_t retired;
    /* Deferred destroys (storage.c): slots already dead and on the free list
     * whose components are still in the pools ("ghost" entries), removed in
     * bulk by ze__world_settle. `pend` is a region (4 bytes per slot at
     * most, committed as it fills); pend_union is every ghost's types. */
    uint32_t *pend;
    uint32_t pend_count, pend_cap;
    uint64_t *pend_union; /* [mask_words] */
    ze_mem_region_t pend_region;
    bool pend_stuck; /* growing failed: destroy at once until the next settle */

    ze__group_t groups[ZE__MAX_GROUPS];
    uint32_t group_count;
    bool auto_groups;

    ze__query_t **queries; /* [query_count + 1], index 0 unused; each stays put */
    uint32_t query_count, query_cap;
    ze_hashmap_t query_map; /* ze_query_desc_t -> uint32_t id */

    /* Structural calls are deferred while iter_depth > 0 and refused while
     * in_parallel (a WorldTick wave on the pool). */
    atomic_int iter_depth;
    atomic_bool in_parallel;
    ze_commands_t *deferred;
    bool flushing_deferred;

    ze__actor_manager_t *actors;
    uint32_t actor_capacity;

    /* framework */
    uint32_t id;
    char **tags;
    uint32_t tag_count;
    bool started;
    ze__systems_t *systems;
    ze__messages_t *messages;
    ze__bindings_t *bindings;
    uint32_t watched_count; /* pools with `watched` set */
    ze__hooks_t *hooks;
    ze_validation_policy policy;
    ze__scope_t scope; /* the world's services (services.c) */
    /* While a group's systems run (systems.c sets these around the run,
     * on the world's thread, before any wave's jobs start): its write
     * policy (ze__writes_t), which direct calls obey as commands do, and
     * the group, for the report. */
    uint8_t group_writes;
    uint8_t running_group;

    /* The Worker (worker.c): jobs scheduled by systems; jobs_open while a
     * WorldTick wave runs (ze_system_schedule is allowed then). */
    ze__worker_t *worker;
    atomic_bool jobs_open;

    /* Change tracking (versions.c): writes stamp rows with `version`;
     * ze_world_version and the start of each wave move it on. */
    _Atomic uint32_t version;
    uint32_t rebased_at;                 /* version of the last rebase (wrap-around guard) */
    uint32_t hier_version;               /* hierarchy.c: the version of its last update */
    bool hier_valid;                     /* world matrices were computed once */
    bool hier_cycles;                    /* and Parent cycles were broken then */
    struct ze__hier_cache_t *hier_cache; /* hierarchy.c: the members' order */
    uint32_t snap_version;               /* hierarchy.c: of the last ze_transforms_snapshot */
    bool snap_valid;
};

/* storage.c */
ze__pool_t *ze__pool_get(ze_world_t *w, uint32_t id); /* creates on first use */
/* The component ids of slot idx, ascending, into out[max]; returns how many
 * it has. */
uint32_t ze__entity_components(const ze_world_t *w, uint32_t idx, ze_component_t *out,
                               uint32_t max);
void ze__pool_free(ze_world_t *w, ze__pool_t *p);
static inline uint32_t ze__sparse_get(const ze__pool_t *p, uint32_t index)
{
    return p->sparse[index >> ZE__PAGE_BITS][index & ZE__PAGE_MASK]; /* no null pages */
}
static inline void *ze__pool_data(const ze__pool_t *p, uint32_t dense)
{
    return p->data[dense >> ZE__PAGE_BITS] + (size_t)(dense & ZE__PAGE_MASK) * p->size;
}
static inline uint32_t ze__pool_entity(const ze__pool_t *p, uint32_t dense)
{
    return p->dense[dense >> ZE__PAGE_BITS][dense & ZE__PAGE_MASK];
}
static inline bool ze__alive(const ze_world_t *w, ze_entity_t e)
{
    uint32_t idx = ze_entity_index(e);
    return idx < w->fresh && w->gen[idx] == ze_entity_generation(e) && e.id != 0;
}

/* ---------------------------------------------------- entity masks */

static inline uint64_t *ze__row(const ze_world_t *w, uint32_t idx)
{
    return w->mask + (size_t)idx * w->mask_words;
}
static inline bool ze__bit_get(const uint64_t *row, uint32_t bit)
{
    return (row[bit >> 6] >> (bit & 63)) & 1;
}
static inline void ze__bit_set(uint64_t *row, uint32_t bit)
{
    row[bit >> 6] |= (uint64_t)1 << (bit & 63);
}
static inline void ze__bit_clear(uint64_t *row, uint32_t bit)
{
    row[bit >> 6] &= ~((uint64_t)1 << (bit & 63));
}
/* The pool of component id c in w, or NULL. */
static inline ze__pool_t *ze__pool_of(const ze_world_t *w, uint32_t c)
{
    return c < w->pool_cap ? w->pools[c] : NULL;
}
/* Slot idx (alive) has component c. */
static inline bool ze__has(const ze_world_t *w, uint32_t idx, uint32_t c)
{
    const ze__pool_t *p = ze__pool_of(w, c);
    return p && ze__bit_get(ze__row(w, idx), p->bit);
}
/* The mask helpers take a short path for the usual world of at most 64
 * types (one word per slot): a loop of run-time length and a memset call
 * cost creates and destroys a third more. */
static inline bool ze__one_word(const ze_world_t *w)
{
    return __builtin_expect(w->mask_words == 1, 1);
}
static inline void ze__row_zero(const ze_world_t *w, uint64_t *row)
{
    if (ze__one_word(w))
        row[0] = 0;
    else
        memset(row, 0, sizeof(uint64_t) * w->mask_words);
}
static inline bool ze__row_empty(const ze_world_t *w, const uint64_t *row)
{
    if (ze__one_word(w))
        return !row[0];
    for (uint32_t k = 0; k < w->mask_words; k++)
        if (row[k])
            return false;
    return true;
}
static inline bool ze__row_meets(const ze_world_t *w, const uint64_t *row, const uint64_t *set)
{
    if (ze__one_word(w))
        return (row[0] & set[0]) != 0;
    for (uint32_t k = 0; k < w->mask_words; k++)
        if (row[k] & set[k])
            return true;
    return false;
}
/* set |= row */
static inline void ze__row_or(const ze_world_t *w, uint64_t *set, const uint64_t *row)
{
    if (ze__one_word(w)) {
        set[0] |= row[0];
        return;
    }
    for (uint32_t k = 0; k < w->mask_words; k++)
        set[k] |= row[k];
}
/* The free list's link lives in a dead slot's first mask word. */
static inline uint32_t ze__free_next(const ze_world_t *w, uint32_t idx)
{
    return (uint32_t)w->mask[(size_t)idx * w->mask_words];
}
static inline void ze__free_link(ze_world_t *w, uint32_t idx, uint32_t next)
{
    uint64_t *row = ze__row(w, idx);
    ze__row_zero(w, row);
    row[0] = next;
}
/* Each bit of row (of mask_words words), lowest first: `bit` set. */
#define ZE__FOR_BITS(w, row, bit)                                                    \
    for (uint32_t ze__k_ = 0, bit = 0; ze__k_ < (w)->mask_words; ze__k_++)           \
        for (uint64_t ze__m_ = (row)[ze__k_];                                        \
             ze__m_ && ((bit = ze__k_ * 64 + (uint32_t)__builtin_ctzll(ze__m_)), 1); \
             ze__m_ &= ze__m_ - 1)

/* ----------------------------------------------------- change tracking */

/* Versions are 32-bit and compared as serial numbers (a is newer than b
 * when a - b, as a signed 32-bit number, is positive); versions.c rebases
 * rows older than 2^29 versions at BeginFrame so that no comparison wraps. */
static inline bool ze__newer(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}
static inline uint32_t ze__version_now(const ze_world_t *w)
{
    return atomic_load_explicit(&((ze_world_t *)w)->version, memory_order_relaxed);
}
/* *s = the newer of *s and v (a load and a compare when it already is). */
static inline void ze__stamp_max(_Atomic uint32_t *s, uint32_t v)
{
    uint32_t cur = atomic_load_explicit(s, memory_order_relaxed);
    while (ze__newer(v, cur) && !atomic_compare_exchange_weak_explicit(
                                    s, &cur, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}
/* Rows [d, d + n) of p, within one page, written at version v. */
static inline void ze__rows_stamp(ze__pool_t *p, uint32_t d, uint32_t n, uint32_t v)
{
    ze__stamp_max(&p->changed, v);
    if (p->ver) {
        uint32_t *row = &p->ver[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK];
        for (uint32_t i = 0; i < n; i++)
            row[i] = v;
        ze__stamp_max(&p->page_max[d >> ZE__PAGE_BITS], v);
    }
}
static inline void ze__row_stamp(ze__pool_t *p, uint32_t d, uint32_t v)
{
    ze__rows_stamp(p, d, 1, v);
}
/* The row at dense position `from` moves to `to`: its version goes along. */
static inline void ze__row_version_move(ze__pool_t *p, uint32_t from, uint32_t to)
{
    if (p->ver) {
        uint32_t v = p->ver[from >> ZE__PAGE_BITS][from & ZE__PAGE_MASK];
        p->ver[to >> ZE__PAGE_BITS][to & ZE__PAGE_MASK] = v;
        ze__stamp_max(&p->page_max[to >> ZE__PAGE_BITS], v);
    }
}
static inline uint32_t ze__row_version(const ze__pool_t *p, uint32_t d)
{
    return p->ver[d >> ZE__PAGE_BITS][d & ZE__PAGE_MASK];
}
/* versions.c: start keeping row versions for p (every row stamped with the
 * current version: what happened before is unknown, so it counts as new).
 * False when out of memory (reported). */
bool ze__pool_track(ze_world_t *w, ze__pool_t *p);
/* versions.c: the version writes stamp from now on is a new one (world
 * thread; inside a parallel wave the wave's version stays). Returns it. */
uint32_t ze__version_advance(ze_world_t *w);
/* versions.c: at BeginFrame, rows older than 2^29 versions are rebased. */
void ze__versions_rebase_if_due(ze_world_t *w);
/* versions.c: the ver pages of dense page `page` (allocation with the
 * dense page in storage.c) and their release. */
bool ze__pool_ver_page(ze_world_t *w, ze__pool_t *p, uint32_t page);
void ze__pool_ver_free(ze_world_t *w, ze__pool_t *p);

/* The structural gate: go ahead now, record for after the iteration
 * (deferred), or refuse (parallel wave). Inline: every add, set, remove and
 * destroy asks. */
typedef enum ze__gate_t { ZE__GATE_NOW = 0, ZE__GATE_DEFER, ZE__GATE_REFUSE } ze__gate_t;
static inline ze__gate_t ze__world_gate(ze_world_t *w)
{
    if (atomic_load_explicit(&w->in_parallel, memory_order_acquire))
        return ZE__GATE_REFUSE;
    if (atomic_load_explicit(&w->iter_depth, memory_order_acquire) > 0)
        return ZE__GATE_DEFER;
    return ZE__GATE_NOW;
}
/* The group write policy for direct calls. FrameSync and FrameView may
 * write values only, FrameUI nothing (systems.c's table); commands are
 * vetted at the group's barrier, direct calls here: every structural call
 * (create, destroy, add, set of an absent component, remove, loads) and,
 * under WRITES_NONE, a value set too, asks before it does anything. One
 * byte compared when no such group runs. */
typedef enum ze__writes_t {
    ZE__WRITES_ANY = 0,
    ZE__WRITES_VALUES, /* values of components the entity has */
    ZE__WRITES_NONE,
} ze__writes_t;
static inline bool ze__write_denied(const ze_world_t *w, bool structural)
{
    return w->group_writes != ZE__WRITES_ANY && (structural || w->group_writes == ZE__WRITES_NONE);
}
/* systems.c: logs the refusal of `call` (printf format) naming the running
 * system and its group; returns ZE_ERR_DENIED. */
ze_result ze__write_refused(ze_world_t *w, const char *call, ...)
    __attribute__((format(printf, 2, 3), cold));

/* The render-thread guard (ze_ecs_forbid_thread, kernel.c): debug builds
 * assert at the public entry points that the calling thread is not one that
 * must stay out of the ECS. A thread-local load; nothing in release. */
#ifdef ZE_DEBUG
extern _Thread_local bool ze__ecs_thread_forbidden;
#define ZE__ECS_THREAD_CHECK()                                                \
    ZE_VERIFY_MSG(!ze__ecs_thread_forbidden, "ECS called from a thread that " \
                                             "ze_ecs_forbid_thread marked (render thread)")
#else
#define ZE__ECS_THREAD_CHECK() ((void)0)
#endif

/* worker.c: the end of a wave (world thread): wait for the jobs its
 * systems scheduled (leaving the parallel state they put the world in);
 * merge the command buffers of one system's jobs into `dst`, in schedule
 * order (after that system's own commands); forget the wave's jobs. */
void ze__worker_wave_wait(ze_world_t *w);
ze_result ze__worker_merge(ze_world_t *w, ze_commands_t *dst, uint32_t system);
void ze__worker_wave_end(ze_world_t *w);
void ze__worker_fini(ze_world_t *w);

/* world.c */
void ze__world_iter_begin(ze_world_t *w);
void ze__world_iter_end(ze_world_t *w);
/* WorldTick brackets a parallel wave with these. */
void ze__world_parallel_begin(ze_world_t *w);
void ze__world_parallel_end(ze_world_t *w);

/* query.c */
void ze__queries_free(ze_world_t *w);
void ze__query_groups_changed(ze_world_t *w);
/* Recompile every query whose bitsets predate the world's layout (before a
 * parallel wave, whose threads must not). */
void ze__queries_refresh(ze_world_t *w);

/* mask.c: a mask's validity, reported naming the limit (`what` names the
 * mask in the message); ZE_ERR_LIMIT when overflowed, ZE_ERR_INVALID_ARG
 * when it names an unregistered type. */
ze_result ze__mask_check(const ze_world_t *w, ze_mask_t m, const char *what);
/* Whether a and b share a type; the first shared one in *first. */
bool ze__mask_meets(ze_mask_t a, ze_mask_t b, uint32_t *first);

/* groups.c: keep packs packed around adds and removes. */
void ze__groups_after_add(ze_world_t *w, uint32_t index, ze__pool_t *p);
void ze__groups_before_remove(ze_world_t *w, uint32_t index, ze__pool_t *p);
/* storage.c: remove every component of slot `index` now (a destroy of an
 * entity with hooked or watched components: dtors and binder notes in type
 * order). */
void ze__entity_remove_all(ze_world_t *w, uint32_t index);
/* storage.c: remove the ghost entries of the deferred destroys (w->pend):
 * one linear pass over each pool they touch when they are a large part of
 * it, else one entity at a time. Does nothing while the world is iterated
 * or in a parallel wave (no ghosts can exist then: destroys are deferred or
 * refused). Everything that walks dense arrays, reads a group's length, or
 * reuses a slot settles first. */
void ze__pending_flush(ze_world_t *w);
static inline void ze__world_settle(ze_world_t *w)
{
    if (w->pend_count || w->pend_stuck)
        ze__pending_flush(w);
}

/* kernel.c: the fixed-step accumulator behind ze_kernel_frame. set_step
 * takes a validated step (finite, > 0, at most ZE__FIXED_DT_MAX seconds);
 * advance adds a frame's dt (finite, 0..ZE__FRAME_DT_MAX) and says how many
 * steps to run, what it dropped beyond max_substeps, and alpha. */
#define ZE__FIXED_DT_MAX 1e6 /* seconds: keeps every count of units in int64 */
#define ZE__FRAME_DT_MAX 1e6
typedef struct ze__fixed_advance_t {
    uint32_t steps;
    double dropped_seconds;
    float alpha; /* [0, 1) */
} ze__fixed_advance_t;
void ze__fixed_clock_set_step(ze_kernel_t *k, double fixed_dt);
ze__fixed_advance_t ze__fixed_clock_advance(ze_kernel_t *k, double dt);

/* The members' order, kept between updates (one per world): the entities
 * that have a resolved Parent or are someone's resolved parent ("members";
 * every other Transform is a loose root), parents before children, each
 * with its parent's position in the order, as the last walk found them.
 * Valid while no Parent was written, added or removed, no Transform added or
 * removed since (hierarchy_run checks these before using it). In
 * this header for the tests. */
typedef struct ze__hier_cache_t {
    uint32_t *idx;       /* [count] entity slots, parents first */
    uint32_t *parent;    /* [count] the parent's position in idx, or UINT32_MAX (a root) */
    ze_transform_t **tf; /* [count] this update's Transforms (rows may move between) */
    uint8_t *changed;    /* [count] this update's: the matrix was written */
    uint32_t count, cap;
    uint64_t *member; /* [words] bit per entity slot: a member */
    uint32_t words;
    uint32_t transforms; /* Transform pool's count at the walk */
    uint32_t cycles;     /* broken at the walk, with the first one's entities */
    ze_entity_t cycle_at, cycle_parent;
    bool valid;
} ze__hier_cache_t;

/* hierarchy.c: frees the members' order it keeps (world destroy). */
void ze__hierarchy_fini(ze_world_t *w);
/* hierarchy.c, for destroys (world.c, commands.c). collect appends to `out`
 * (ze_entity_t) the entities whose Parent names `root` (its children) or,
 * with `subtree`, leads to it (every descendant), parents before their
 * children; one pass over the Parent pool when nothing is found, one more
 * per level of a subtree otherwise. False when out of memory (`out` then
 * holds part). detach makes `children` of `parent` roots: Parent removed,
 * Transform set to the world transform they had. */
bool ze__hierarchy_collect(ze_world_t *w, ze_entity_t root, bool subtree, ze_array_t *out);
void ze__hierarchy_detach(ze_world_t *w, ze_entity_t parent, const ze_entity_t *children,
                          uint32_t n);
/* world.c: destroy `e` alone, its children untouched (for callers that
 * destroy every entity, such as a snapshot load). */
void ze__entity_destroy_flat(ze_world_t *w, ze_entity_t e);

/* builtins.c */
ze_result ze__builtins_register(ze_kernel_t *k);

/* actors.c (NULL-safe: no manager yet = nothing to do) */
void ze__actors_fini(ze_world_t *w);

/* bindings.c: storage reports adds, removes and value sets of components in
 * w->bind_mask (only those: zero cost otherwise). */
void ze__bindings_note(ze_world_t *w, uint32_t index, uint32_t comp, ze_delta_kind kind);
void ze__bindings_fini(ze_world_t *w);
/* Note CHANGED for the rows of watched types written since the last scan
 * (row versions: every group barrier and every apply). */
void ze__bindings_scan(ze_world_t *w);
/* messages.c */
void ze__messages_fini(ze_world_t *w);
/* snapshot.c */
void ze__migrations_fini(ze_kernel_t *k);
/* systems.c */
void ze__systems_fini(ze_world_t *w);
/* worldtick.c, for the framework's groups: run without the final flush
 * (the group barrier flushes with its policy), context for ze_tick_t,
 * per-system enable, and the plan (system indices in wave order). */
ze_result ze__worldtick_run_ex(ze_worldtick_t *t, float dt, ze_commands_t **main);
void ze__worldtick_set_context(ze_worldtick_t *t, float alpha, uint32_t group, uint64_t frame);
void ze__worldtick_set_enabled(ze_worldtick_t *t, ze_system_t s, bool enabled);
uint32_t ze__worldtick_plan(const ze_worldtick_t *t, const uint32_t **order);

/* commands.c: flush with a group's policy. VALUES_ONLY refuses structural
 * commands (FrameSync, FrameView); NEVER_STOP ignores the FAIL policy. */
enum { ZE__FLUSH_VALUES_ONLY = 1u << 0, ZE__FLUSH_NEVER_STOP = 1u << 1 };
ze_result ze__commands_flush_ex(ze_commands_t *c, uint32_t flags);
void ze__hooks_fini(ze_world_t *w);

/* The scene reader's structural pass (scene_scan.c): spans of a document's
 * top-level values and of its entities, without building a tree. */
enum { ZE__SCAN_MAX_DEPTH = 2048 }; /* the JSON library's own nesting limit */
typedef struct ze__json_span_t {
    size_t off, len; /* bytes of the text */
} ze__json_span_t;
typedef struct ze__scene_key_t {
    ze__json_span_t key;   /* between the quotes, escapes undecoded */
    ze__json_span_t value; /* the value's bytes */
    bool entities;         /* the key is "entities" */
} ze__scene_key_t;
typedef struct ze__scene_scan_t {
    bool root_object;              /* the document is an object */
    ze__json_span_t root;          /* the value when it is not */
    bool entities_array;           /* "entities" is an array: its elements follow */
    ze__json_span_t entities_span; /* the array's bytes */
    ze_array_t entities;           /* ze__json_span_t: the first `keep` elements */
    uint64_t entity_count;         /* every element */
    ze_array_t others;             /* ze__scene_key_t: every top-level member, in order */
    ze_hashmap_t keys;             /* hash of a decoded key -> position */
    ze_allocator_t alloc;
    const char *err; /* ZE_ERR_PARSE: what, and at which byte */
    size_t err_at;
} ze__scene_scan_t;
/* ZE_OK, ZE_ERR_PARSE (err, err_at) or ZE_ERR_OUT_OF_MEMORY; free in every
 * case. */
ze_result ze__scene_scan(const char *text, size_t n, size_t keep, ze_allocator_t a,
                         ze__scene_scan_t *out);
void ze__scene_scan_free(ze__scene_scan_t *s);
/* 1-based line and column of byte `at`. */
void ze__scene_scan_position(const char *text, size_t at, int *line, int *column);

/* One entity's JSON as a flat tree (scene_dom.c): nodes in document
 * order, a container's children follow it up to its `end`; strings
 * decoded and NUL-terminated in `chars`. Reused from entity to entity. */
enum {
    ZE__J_NULL,
    ZE__J_FALSE,
    ZE__J_TRUE,
    ZE__J_INT,
    ZE__J_REAL,
    ZE__J_STRING,
    ZE__J_ARRAY,
    ZE__J_OBJECT,
};
typedef struct ze__jnode_t {
    uint8_t type;
    uint32_t end;   /* index after this node's subtree */
    uint32_t count; /* array, object: children; string: bytes */
    uint32_t key;   /* an object member's key in chars; UINT32_MAX: none */
    uint32_t key_len;
    union {
        int64_t i;
        double d;
        uint32_t str; /* offset in chars */
    } v;
} ze__jnode_t;
typedef struct ze__jdoc_t {
    ze_allocator_t alloc;
    ze__jnode_t *nodes;
    uint32_t count, cap;
    char *chars;
    size_t used, chars_cap;
    const char *err; /* ZE_ERR_PARSE: what, at which byte of the text */
    size_t err_at;
} ze__jdoc_t;
/* Parses text[0..n) as one value (whitespace around it allowed) whose
 * container sits at base_depth in the document: ZE_OK, ZE_ERR_PARSE or
 * ZE_ERR_OUT_OF_MEMORY. The root is nodes[0]. */
ze_result ze__jdoc_parse(ze__jdoc_t *d, const char *text, size_t n, uint32_t base_depth);
void ze__jdoc_free(ze__jdoc_t *d);
const ze__jnode_t *ze__jn_get(const ze__jdoc_t *d, const ze__jnode_t *obj, const char *key);
static inline const ze__jnode_t *ze__jn_first(const ze__jdoc_t *d, const ze__jnode_t *n)
{
    (void)d; /* n NULL: no children (an absent member) */
    return n && n->count && (n->type == ZE__J_ARRAY || n->type == ZE__J_OBJECT) ? n + 1 : NULL;
}
static inline const ze__jnode_t *ze__jn_next(const ze__jdoc_t *d, const ze__jnode_t *parent,
                                             const ze__jnode_t *c)
{
    return c->end < parent->end ? &d->nodes[c->end] : NULL;
}
static inline const char *ze__jn_str(const ze__jdoc_t *d, const ze__jnode_t *n)
{
    return d->chars + n->v.str;
}
static inline const char *ze__jn_key(const ze__jdoc_t *d, const ze__jnode_t *n)
{
    return d->chars + n->key;
}

#endif
