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
    atomic_bool fail; /* fault injection */
    _Atomic(ze_heap_t *) heap;
} ze__owner_t;

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

/* Budget accounting of committed (or pass-through) bytes. */
ze_result ze__mem_account(ze_mem_t *mm, ze_mem_owner owner, size_t bytes);
void ze__mem_unaccount(ze_mem_t *mm, ze_mem_owner owner, size_t bytes);
void ze__scratch_release_all(ze_mem_t *mm);
/* Count and (rate-limited) log a refused allocation. */
void ze__mem_note_failure(ze_mem_t *mm, ze_mem_owner owner, ze_result why, size_t bytes);

#endif
