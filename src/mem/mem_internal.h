/* Internals shared by the mem module's files. Not a public header. */
#ifndef ZE_MEM_INTERNAL_H
#define ZE_MEM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "zengine/mem.h"

#if defined(ZE_SANITIZER_ADDRESS)
#include <sanitizer/asan_interface.h>
#define ZE__POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define ZE__UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ZE__POISON(p, n)   ((void)(p), (void)(n))
#define ZE__UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Free address ranges of an owner's reservation, sorted by offset and
 * coalesced; a fixed table (limit enforced in region.c). */
enum { ZE__OWNER_MAX_EXTENTS = 512 };
/* Address space each owner reserves beyond its budget for guard pages. */
enum { ZE__GUARD_ALLOWANCE = 1 << 20 };

typedef struct ze__extent_t {
    size_t off, len;
} ze__extent_t;

typedef struct ze__owner_t {
    pthread_mutex_t lock; /* extents and the lazy heap */
    uint8_t *base;        /* reservation; NULL when the budget is 0 */
    size_t size;
    uint64_t budget;
    ze__extent_t extents[ZE__OWNER_MAX_EXTENTS];
    uint32_t extent_count;
    atomic_uint_fast64_t current, peak, reserved, regions, failures, warnings;
    atomic_uint_fast64_t last_warn_ns, last_fail_log_ns;
    atomic_uint_fast64_t allocs_shared; /* allocations of threads without a count slot */
    atomic_bool fail;                   /* fault injection */
    atomic_bool fault_exempt;           /* not counted by fail_nth */
    _Atomic(ze_heap_t *) heap;
} ze__owner_t;

/* Allocation counters of one thread for one manager: written only by that
 * thread (relaxed load + store, no read-modify-write), read by anyone.
 * Slots stay on the manager's list until it is destroyed. */
typedef struct ze__count_slot_t {
    atomic_uint_fast64_t allocs[ZE_MEM_OWNER_COUNT];
    uint64_t thread_serial; /* the writing thread's process-unique serial */
    struct ze__count_slot_t *next;
} ze__count_slot_t;

typedef struct ze__scratch_slot_t {
    ze_arena_t arena;
    struct ze__scratch_slot_t *next;
} ze__scratch_slot_t;

struct ze_mem_t {
    uint64_t id; /* process-unique, so thread-local caches detect a new manager */
    uint64_t capacity;
    bool passthrough;
    float warn_ratio;
    uint64_t warn_cooldown_ns;
    atomic_bool fault_any; /* fast-path gate: any fault injection armed */
    atomic_bool fault_armed;
    atomic_uint_fast64_t fault_nth, fault_counter;
    pthread_mutex_t scratch_lock;
    ze__scratch_slot_t *scratch;
    pthread_mutex_t count_lock;
    ze__count_slot_t *counts; /* per-thread allocation counters */
    ze__owner_t owners[ZE_MEM_OWNER_COUNT];
};

/* Fault injection check for one allocation of `owner`: ZE_OK or
 * ZE_ERR_FAULT_INJECTED. Inline so the disarmed case is one relaxed load. */
ze_result ze__mem_fault_slow(ze_mem_t *mm, ze_mem_owner owner);
static inline ze_result ze__mem_fault(ze_mem_t *mm, ze_mem_owner owner)
{
    if (__builtin_expect(atomic_load_explicit(&mm->fault_any, memory_order_relaxed), 0))
        return ze__mem_fault_slow(mm, owner);
    return ZE_OK;
}

/* Allocation counting: the calling thread's slot for its last manager is
 * cached in thread-local storage (initial-exec: one %fs-relative load, also
 * in the shared library), keyed by the manager's process-unique id. */
typedef struct ze__count_tls_t {
    uint64_t mm_id;
    ze__count_slot_t *slot;
} ze__count_tls_t;
extern _Thread_local ze__count_tls_t ze__t_count __attribute__((tls_model("initial-exec")));
void ze__mem_count_slow(ze_mem_t *mm, ze_mem_owner owner);
static inline void ze__mem_count_alloc(ze_mem_t *mm, ze_mem_owner owner)
{
    ze__count_slot_t *s = ze__t_count.slot;
    if (__builtin_expect(ze__t_count.mm_id != mm->id, 0)) { /* ids start at 1 */
        ze__mem_count_slow(mm, owner);
        return;
    }
    atomic_uint_fast64_t *c = &s->allocs[owner];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}
void ze__mem_count_release_all(ze_mem_t *mm);

/* Budget accounting of committed (or pass-through) bytes. */
ze_result ze__mem_account(ze_mem_t *mm, ze_mem_owner owner, size_t bytes);
void ze__mem_unaccount(ze_mem_t *mm, ze_mem_owner owner, size_t bytes);
void ze__scratch_release_all(ze_mem_t *mm);
/* Count and (rate-limited) log a refused allocation. */
void ze__mem_note_failure(ze_mem_t *mm, ze_mem_owner owner, ze_result why, size_t bytes);
/* The same for failures that are not the budget's: a heap whose own range
 * is full (heap_max: that range), or an owner's address range with no room
 * for a region of that size. The budget's own failure is reported where it
 * is checked (ze__mem_account). */
void ze__mem_note_heap_full(ze_mem_t *mm, ze_mem_owner owner, size_t bytes, size_t heap_max);
void ze__mem_note_range_full(ze_mem_t *mm, ze_mem_owner owner, size_t bytes);

#endif
