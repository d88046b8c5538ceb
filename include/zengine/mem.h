/* zengine/mem.h — the memory manager, owners and budgets, allocators.
 *
 * What: one ze_mem_t per process, created by the entry point and passed to
 * every module in its desc (never a global). A configured capacity (8 GiB by
 * default) is split into named owners with budgets (profiles Default, Editor,
 * Server). Each owner with a budget reserves its own address range (PROT_NONE,
 * MAP_NORESERVE) when the manager is created and commits pages as it grows, so
 * start-up RSS stays small and a process under an RLIMIT_AS below the capacity
 * starts when its owners fit. Over an owner: virtual regions, linear arenas
 * (markers), pools (fixed-size blocks), a general O(1) TLSF heap (optionally
 * thread-safe), per-thread scratch arenas. Per-owner statistics (current =
 * committed bytes, peak), a warning at 80 % of a budget (with a cooldown), and
 * fault injection (fail the Nth allocation, or every allocation of an owner).
 * Not: GPU memory (gfx has its own sub-allocator).
 * Threads: the manager, regions and the statistics are thread-safe; an arena or
 * a pool belongs to one thread at a time; a heap is thread-safe when created
 * with `thread_safe`.
 * Memory: malloc/free appear only in src/mem/. In pass-through builds
 * (ZE_MEM_PASSTHROUGH, the asan preset) heap and pool blocks come from the
 * system allocator one by one so AddressSanitizer sees each, and arenas poison
 * what they release; budgets are still enforced.
 * Errors: budget overruns are ZE_ERR_BUDGET results (or NULL from the
 * pointer-returning calls, with the reason logged once per cooldown).
 */
#ifndef ZENGINE_MEM_H
#define ZENGINE_MEM_H

#include "zengine/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ze_mem_owner {
    ZE_MEM_OWNER_BOOTSTRAP = 0, /* application state, scheduler slots */
    ZE_MEM_OWNER_LOGGING,
    ZE_MEM_OWNER_JOB,
    ZE_MEM_OWNER_VFS,
    ZE_MEM_OWNER_ASSET,
    ZE_MEM_OWNER_INPUT,
    ZE_MEM_OWNER_ECS,
    ZE_MEM_OWNER_IMPORT,
    ZE_MEM_OWNER_UI,
    ZE_MEM_OWNER_RENDER, /* CPU side of the renderer: snapshots, staging lists */
    ZE_MEM_OWNER_EDITOR,
    ZE_MEM_OWNER_SCRATCH, /* per-thread scratch arenas */
    ZE_MEM_OWNER_GAME,    /* the application's own allocations */
    /* third-party libraries that take allocation hooks (jansson, routed by
       the engine's entry point) */
    ZE_MEM_OWNER_THIRD_PARTY,
    /* host memory the Vulkan loader, layers and driver allocate for the
       render backend's objects (its VkAllocationCallbacks, gfx) */
    ZE_MEM_OWNER_VULKAN,
    ZE_MEM_OWNER_INSPECT, /* the inspector's requests and answers (zengine::inspect) */
    ZE_MEM_OWNER_COUNT
} ze_mem_owner;

typedef enum ze_mem_profile {
    ZE_MEM_PROFILE_DEFAULT = 0,
    ZE_MEM_PROFILE_EDITOR,
    ZE_MEM_PROFILE_SERVER,
    ZE_MEM_PROFILE_COUNT
} ze_mem_profile;

/* Budgets in bytes; an owner with budget 0 is declared but unusable. The sum
 * of budgets must not exceed the capacity. */
typedef struct ze_mem_budget_config_t {
    uint64_t capacity;
    uint64_t budget[ZE_MEM_OWNER_COUNT];
} ze_mem_budget_config_t;

enum { ZE_MEM_DEFAULT_CAPACITY_GIB = 8 };

const char *ze_mem_owner_name(ze_mem_owner owner);
const char *ze_mem_profile_name(ze_mem_profile profile);
/* "default" / "editor" / "server", case-insensitive. */
ze_result ze_mem_profile_parse(const char *s, ze_mem_profile *out);
ze_mem_budget_config_t ze_mem_profile_config(ze_mem_profile profile);

typedef struct ze_mem_t ze_mem_t;

typedef struct ze_mem_desc_t {
    ze_mem_profile profile;               /* used when `config` is NULL */
    const ze_mem_budget_config_t *config; /* explicit budgets */
    float warn_ratio;                     /* 0 = 0.8 */
    uint64_t warn_cooldown_ns;            /* 0 = 1 s */
    int passthrough;                      /* 0 = as built (ZE_MEM_PASSTHROUGH), 1 = on, -1 = off */
} ze_mem_desc_t;

/* Reserves every owner's range. ZE_ERR_INVALID_ARG when budgets exceed the
 * capacity, ZE_ERR_OUT_OF_MEMORY (naming the owner in the log) when the
 * address space is refused. */
ze_result ze_mem_create(const ze_mem_desc_t *desc, ze_mem_t **out);
/* Releases every owner's range; outstanding blocks become invalid. */
void ze_mem_destroy(ze_mem_t *mm);
bool ze_mem_is_passthrough(const ze_mem_t *mm);
size_t ze_mem_page_size(void);

typedef struct ze_mem_owner_stats_t {
    uint64_t budget;
    uint64_t reserved; /* address space handed out to regions */
    uint64_t current;  /* committed bytes (pass-through: live block bytes) */
    uint64_t peak;     /* highest `current` seen */
    uint64_t regions;  /* live regions (arenas, pools, heaps, tables) */
    uint64_t failures; /* refused allocations (budget, faults) */
    uint64_t warnings; /* 80 % warnings emitted */
    /* Successful allocations served since the manager was created: every
       ze_heap_alloc (so every owner-allocator allocation, and a realloc that
       moves its block; an in-place resize is not one) and every
       ze_pool_alloc, pass-through builds included. Arena pushes are not
       counted (arenas are bump allocators), nor regions or the system
       allocator. Per-thread counters summed on read. */
    uint64_t allocations;
} ze_mem_owner_stats_t;

ze_mem_owner_stats_t ze_mem_owner_stats(ze_mem_t *mm, ze_mem_owner owner);
/* Snapshot of every owner at once (the editor's memory panel). */
void ze_mem_snapshot(ze_mem_t *mm, ze_mem_owner_stats_t out[ZE_MEM_OWNER_COUNT]);
/* `allocations` summed over every owner (the engine's allocations per frame
 * are differences of this). Any thread. */
uint64_t ze_mem_allocation_count(ze_mem_t *mm);
/* Prints a table of owners to the log at INFO. */
void ze_mem_log_stats(ze_mem_t *mm);

/* ---------------------------------------------------------- fault injection */

/* The Nth allocation counted from this call (1 = the next) fails with
 * ZE_ERR_FAULT_INJECTED; 0 disarms. Counted: region reserve/commit, arena
 * push, pool alloc, heap alloc. */
void ze_mem_fault_fail_nth(ze_mem_t *mm, uint64_t n);
/* Every allocation of `owner` fails while `fail` is true. */
void ze_mem_fault_fail_owner(ze_mem_t *mm, ze_mem_owner owner, bool fail);
/* `owner`'s allocations neither count toward nor take the Nth failure
 * while `exempt` is true (sweeps over our own allocations: the Vulkan
 * owner holds the driver's, made through our callbacks). */
void ze_mem_fault_exempt_owner(ze_mem_t *mm, ze_mem_owner owner, bool exempt);
/* Allocations counted since the last ze_mem_fault_fail_nth (for sweeps:
 * run once unarmed with n = UINT64_MAX to learn how many there are). */
uint64_t ze_mem_fault_counter(ze_mem_t *mm);

/* ----------------------------------------------------------------- regions */

/* A contiguous piece of an owner's reserved range, committed from its start
 * as it grows. The building block of arenas, pools and heaps; also used
 * directly for large tables that must never move (entity arrays). */
typedef struct ze_mem_region_t {
    ze_mem_t *mm;
    uint8_t *base;
    size_t reserved;  /* bytes of address space */
    size_t committed; /* bytes from base that are readable and writable */
    ze_mem_owner owner;
} ze_mem_region_t;

ze_result ze_mem_region_reserve(ze_mem_t *mm, ze_mem_owner owner, size_t size,
                                ze_mem_region_t *out);
/* Ensure at least `size` bytes from base are committed (rounded up to the
 * commit granularity). ZE_ERR_BUDGET when the owner's budget would be exceeded,
 * ZE_ERR_LIMIT when size > reserved. */
ze_result ze_mem_region_commit(ze_mem_region_t *r, size_t size);
/* Give back committed pages past `keep` bytes (their content is lost). */
void ze_mem_region_decommit(ze_mem_region_t *r, size_t keep);
void ze_mem_region_release(ze_mem_region_t *r);

/* ------------------------------------------------------ growable table */

/* An array of fixed-size elements in a region of its own, for tables too
 * large for an owner's heap (render proxies, instance tables): committed
 * as it grows, and when it outgrows its reservation it moves to one twice
 * as large (copied; pointers into it are invalid after a grow). Elements
 * a grow adds are zero. One thread at a time. */
typedef struct ze_mem_table_t {
    ze_mem_region_t region;
    ze_mem_t *mm;
    ze_mem_owner owner;
    uint32_t elem_size;
    uint32_t capacity; /* elements committed */
} ze_mem_table_t;

void ze_mem_table_init(ze_mem_table_t *t, ze_mem_t *mm, ze_mem_owner owner, uint32_t elem_size);
/* At least `count` elements. ZE_ERR_BUDGET (the owner's budget or range is
 * full: logged by the manager) leaves the table as it was. */
ze_result ze_mem_table_reserve(ze_mem_table_t *t, uint32_t count);
void ze_mem_table_release(ze_mem_table_t *t);
static inline void *ze_mem_table_data(const ze_mem_table_t *t)
{
    return t->region.base;
}

/* ------------------------------------------------------------ linear arena */

typedef struct ze_arena_t {
    ze_mem_region_t region;
    size_t pos;
    size_t peak;
    bool poison; /* pass-through builds: poison what is popped, redzones */
} ze_arena_t;

/* An arena of at most max_size bytes (address space reserved now, pages
 * committed as pushes reach them). max_size 0 = 16 MiB. */
ze_result ze_arena_init(ze_arena_t *a, ze_mem_t *mm, ze_mem_owner owner, size_t max_size);
void ze_arena_release(ze_arena_t *a);
/* NULL when the arena or the owner's budget is exhausted. align: power of
 * two. Contents are not initialised. */
void *ze_arena_push(ze_arena_t *a, size_t size, size_t align);
void *ze_arena_push_zero(ze_arena_t *a, size_t size, size_t align);
#define ZE_ARENA_NEW(a, T)          ((T *)ze_arena_push_zero((a), sizeof(T), _Alignof(T)))
#define ZE_ARENA_NEW_ARRAY(a, T, n) ((T *)ze_arena_push((a), sizeof(T) * (size_t)(n), _Alignof(T)))
typedef size_t ze_arena_marker_t;
static inline ze_arena_marker_t ze_arena_marker(const ze_arena_t *a)
{
    return a->pos;
}
void ze_arena_pop_to(ze_arena_t *a, ze_arena_marker_t marker);
void ze_arena_reset(ze_arena_t *a);
/* Decommit pages beyond the current position (keeps `slack` bytes). */
void ze_arena_trim(ze_arena_t *a, size_t slack);
/* An allocator view: allocations push; frees are ignored except that the most
 * recent block can grow or shrink in place. */
ze_allocator_t ze_arena_allocator(ze_arena_t *a);

/* ------------------------------------------------------------------- pool */

typedef struct ze_pool_desc_t {
    ze_mem_owner owner;
    uint32_t block_size;  /* >= 1; rounded up to block_align */
    uint32_t block_align; /* 0 = 16 */
    uint32_t max_blocks;  /* 0 = 65536 */
} ze_pool_desc_t;

typedef struct ze_pool_t {
    ze_mem_region_t region;
    void *free_list;
    uint32_t block_size;
    uint32_t max_blocks;
    uint32_t bumped; /* blocks ever carved from the region */
    uint32_t live;
    bool passthrough;
} ze_pool_t;

ze_result ze_pool_init(ze_pool_t *p, ze_mem_t *mm, const ze_pool_desc_t *desc);
void ze_pool_release(ze_pool_t *p);
void *ze_pool_alloc(ze_pool_t *p); /* NULL when full or over budget */
void ze_pool_free(ze_pool_t *p, void *block);

/* ------------------------------------------------------------------- heap */

typedef struct ze_heap_t ze_heap_t;

typedef struct ze_heap_desc_t {
    ze_mem_owner owner;
    size_t max_size;  /* address space for the heap; 0 = 64 MiB (grow: its first region's) */
    bool thread_safe; /* serialise alloc/free with a lock */
    /* Grow by regions: when the heap's range is full it reserves another
     * region of the owner's range (at least max_size; at most 64 in all),
     * and blocks of 1 MiB or more get a region each, whose pages go back to
     * the owner when the block is freed. Only the owner's budget and range
     * then limit the heap. Without it the heap holds at most max_size. */
    bool grow;
} ze_heap_desc_t;

ze_result ze_heap_create(ze_mem_t *mm, const ze_heap_desc_t *desc, ze_heap_t **out);
void ze_heap_destroy(ze_heap_t *h);
/* O(1) two-level segregated fit. size 0 returns NULL. align: power of two
 * up to 4096. */
void *ze_heap_alloc(ze_heap_t *h, size_t size, size_t align);
void ze_heap_free(ze_heap_t *h, void *ptr);
void *ze_heap_realloc(ze_heap_t *h, void *ptr, size_t new_size, size_t align);
/* Usable size of a live block. */
size_t ze_heap_block_size(ze_heap_t *h, const void *ptr);
ze_allocator_t ze_heap_allocator(ze_heap_t *h);
/* Walks every block and free list; ZE_ERR_INTERNAL on any inconsistency. */
ze_result ze_heap_check(ze_heap_t *h);
typedef struct ze_heap_stats_t {
    size_t used;      /* bytes in live blocks (usable sizes) */
    size_t free;      /* bytes in free and cached blocks */
    size_t committed; /* bytes committed for the heap */
    uint32_t live_blocks;
    uint32_t free_blocks;   /* includes cached ones */
    uint32_t cached_blocks; /* small freed blocks kept for reuse of their size */
} ze_heap_stats_t;
ze_heap_stats_t ze_heap_stats(ze_heap_t *h);
/* Release the cached small blocks into the general free lists, where they
 * merge with their neighbours. (Allocation does this by itself before the
 * heap would grow.) */
void ze_heap_trim(ze_heap_t *h);

/* The general-purpose allocator of an owner: a thread-safe heap created on
 * first use, growing by regions (ze_heap_desc_t.grow): a block may be as
 * large as the owner's budget and free range allow. Modules pass it to
 * their containers. */
ze_allocator_t ze_mem_owner_allocator(ze_mem_t *mm, ze_mem_owner owner);

/* ---------------------------------------------------------------- scratch */

/* Per-thread scratch: a thread's own arena in the SCRATCH owner (created on
 * its first use, 8 MiB of address space, kept until the manager is
 * destroyed). Begin/end nest like a stack. */
typedef struct ze_scratch_t {
    ze_arena_t *arena;
    ze_arena_marker_t marker;
} ze_scratch_t;

ze_scratch_t ze_scratch_begin(ze_mem_t *mm); /* arena NULL when unavailable */
void ze_scratch_end(ze_scratch_t s);

/* ------------------------------------------------------------ system memory */

/* The C library's allocator behind the interface, unbudgeted: for tools and
 * tests that need memory before or without a manager, and as the baseline of
 * the benchmarks. Engine modules use owners instead. */
ze_allocator_t ze_mem_system_allocator(void);
void *ze_mem_sys_alloc(size_t size);
void ze_mem_sys_free(void *ptr);
/* Bytes in use in the C library's heap (glibc mallinfo2): what libraries
 * that allocate with malloc and take no hooks hold (GLFW, the Vulkan loader
 * and driver, X11...), plus ze_mem_sys_alloc users and, in pass-through
 * builds, every owner's blocks. No owner budget covers them; the engine's
 * report shows them separately. */
uint64_t ze_mem_unrouted_heap_bytes(void);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_MEM_H */
