/* MainThreadScheduler: a bounded lock-free MPSC ring, drained by its owner.
 *
 * Vyukov's sequence-per-slot scheme: slot i starts with seq == i; a producer
 * that claimed position pos (CAS on the enqueue cursor) writes fn/ctx and
 * publishes with seq = pos + 1 (release); the consumer frees the slot with
 * seq = pos + capacity, which is the value a producer one lap later waits for.
 *
 * Why not the seed's drain ("exchange the write cursor to 0, then spin on
 * each ready flag"): a producer that claimed a slot after the exchange writes
 * into slot 0.. while the drain is still reading those slots, so a task can
 * be overwritten or run twice. Here the cursors only grow, and the drain never
 * waits for a producer: it runs what was complete when it began and stops at
 * the first slot that is claimed but not yet written (that one, and all after
 * it, run at the next drain, so posting order is kept).
 */
#include <pthread.h>
#include <stdalign.h>
#include <string.h>

#include "zengine/job.h"

typedef struct task_slot_t {
    atomic_size_t seq;
    ze_task_fn fn;
    void *ctx;
} task_slot_t;

/* Three cache lines, by who writes them: read-only after create (every post
 * reads slots/mask), the producers' cursor, the owner's drain state. Sharing
 * a line between the owner's per-task writes and the producers' reads made
 * every post a cache miss. */
struct ze_main_scheduler_t {
    ze_allocator_t alloc;
    task_slot_t *slots;
    size_t mask;
    pthread_t owner_thread;
    alignas(64) atomic_size_t enq;
    atomic_uint_least64_t rejected; /* producers, only when full */
    alignas(64) size_t deq;         /* owner thread only */
    bool draining;
    atomic_uint_least64_t executed; /* written by the owner only */
};

/* Used only by ZE_ASSERT, which release builds compile out. */
__attribute__((unused)) static inline bool on_owner(const ze_main_scheduler_t *s)
{
    return pthread_equal(pthread_self(), s->owner_thread) != 0;
}

ze_result ze_main_scheduler_create(const ze_main_scheduler_desc_t *desc, ze_main_scheduler_t **out)
{
    ZE_CHECK(desc && out && desc->mem, ZE_ERR_INVALID_ARG);
    *out = NULL;
    uint32_t cap = desc->capacity ? desc->capacity : ZE_MAIN_SCHEDULER_SLOTS;
    /* Two slots at least: with one, a producer could not tell its own turn
     * from the unconsumed task of the previous lap. */
    if (!ZE_IS_POW2(cap) || cap < 2) {
        ZE_LOG_ERROR("job", "main scheduler: capacity %u must be a power of two >= 2", cap);
        return ZE_ERR_INVALID_ARG;
    }
    ZE_CHECK((unsigned)desc->owner < ZE_MEM_OWNER_COUNT, ZE_ERR_INVALID_ARG);
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, desc->owner);
    ze_main_scheduler_t *s = ze_alloc(alloc, sizeof *s, _Alignof(ze_main_scheduler_t));
    if (!s)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
    s->slots = ze_alloc(alloc, sizeof(task_slot_t) * cap, _Alignof(task_slot_t));
    if (!s->slots) {
        ZE_LOG_ERROR("job", "main scheduler: out of memory for %u slots", cap);
        ze_free(alloc, s, sizeof *s);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    s->mask = cap - 1;
    for (size_t i = 0; i < cap; i++) {
        atomic_init(&s->slots[i].seq, i);
        s->slots[i].fn = NULL;
        s->slots[i].ctx = NULL;
    }
    s->owner_thread = pthread_self();
    atomic_init(&s->enq, 0);
    atomic_init(&s->executed, 0);
    atomic_init(&s->rejected, 0);
    *out = s;
    return ZE_OK;
}

void ze_main_scheduler_destroy(ze_main_scheduler_t *s)
{
    if (!s)
        return;
    ZE_ASSERT(on_owner(s));
    size_t pending = atomic_load_explicit(&s->enq, memory_order_acquire) - s->deq;
    if (pending)
        ZE_LOG_INFO("job", "main scheduler: discarding %zu pending task(s)", pending);
    ze_free(s->alloc, s->slots, sizeof(task_slot_t) * (s->mask + 1));
    ze_free(s->alloc, s, sizeof *s);
}

ze_result ze_main_scheduler_post(ze_main_scheduler_t *s, ze_task_fn fn, void *ctx)
{
    ZE_CHECK(s && fn, ZE_ERR_INVALID_ARG);
    size_t pos = atomic_load_explicit(&s->enq, memory_order_relaxed);
    task_slot_t *slot;
    for (;;) {
        slot = &s->slots[pos & s->mask];
        size_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&s->enq, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (diff < 0) {
            /* The slot still holds the task posted one lap ago: the ring
             * has `capacity` tasks the owner has not drained yet. */
            atomic_fetch_add_explicit(&s->rejected, 1, memory_order_relaxed);
            return ZE_ERR_FULL;
        } else {
            pos = atomic_load_explicit(&s->enq, memory_order_relaxed);
        }
    }
    slot->fn = fn;
    slot->ctx = ctx;
    atomic_store_explicit(&slot->seq, pos + 1, memory_order_release);
    return ZE_OK;
}

uint32_t ze_main_scheduler_drain(ze_main_scheduler_t *s)
{
    ZE_ASSERT(on_owner(s));
    /* A task that drains would run tasks posted by tasks in the same drain,
     * which the contract forbids (and could loop forever). */
    ZE_CHECK(!s->draining, 0);
    s->draining = true;
    size_t end = atomic_load_explicit(&s->enq, memory_order_acquire);
    size_t mask = s->mask, start = s->deq, pos = start;
    while (pos != end) {
        task_slot_t *slot = &s->slots[pos & mask];
        if (atomic_load_explicit(&slot->seq, memory_order_acquire) != pos + 1)
            break; /* claimed, not yet written: next drain, order kept */
        ze_task_fn fn = slot->fn;
        void *ctx = slot->ctx;
        /* Free the slot before running the task so that the task itself (or
         * any producer) can post into it; the new post lands past `end`. */
        atomic_store_explicit(&slot->seq, pos + mask + 1, memory_order_release);
        pos++;
        fn(ctx);
    }
    /* Bookkeeping once per drain, not per task: the loop stays short. */
    s->deq = pos;
    uint32_t ran = (uint32_t)(pos - start);
    atomic_store_explicit(&s->executed,
                          atomic_load_explicit(&s->executed, memory_order_relaxed) + ran,
                          memory_order_relaxed);
    s->draining = false;
    return ran;
}

ze_main_scheduler_stats_t ze_main_scheduler_stats(ze_main_scheduler_t *s)
{
    ze_main_scheduler_stats_t st;
    /* Every accepted post advanced the cursor exactly once. */
    st.posted = (uint64_t)atomic_load_explicit(&s->enq, memory_order_relaxed);
    st.executed = atomic_load_explicit(&s->executed, memory_order_relaxed);
    st.rejected = atomic_load_explicit(&s->rejected, memory_order_relaxed);
    return st;
}
