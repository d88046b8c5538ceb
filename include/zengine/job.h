/* zengine/job.h — thread pool, jobs, wait groups, and the two cross-thread
 * channels: the MainThreadScheduler and the latest-state mailbox.
 *
 * What: one job system per process, created by the entry point and passed to
 * every module through its desc (two pools on two cores would fight). Workers:
 * hw-1, at least 1. A thread waiting on a wait group runs queued jobs while it
 * waits, so a job may wait on jobs it submitted without deadlock.
 * MainThreadScheduler: a fixed ring of 512 slots, lock-free multi-producer /
 * single-consumer with a sequence number per slot; post never allocates; a
 * full ring is an error returned to the poster and counted.
 * Mailbox: three slots with atomic states Free/Writing/Ready/Reading; one
 * writer thread, one reader thread; neither ever blocks on the other. Each slot
 * owns an arena reused only once the slot is no longer readable, so payloads
 * vary in size.
 * Not: I/O waits; nothing blocks a worker on I/O or a child process.
 * Threads: see each function. Atomics are <stdatomic.h> acquire/release on the
 * variables themselves (no standalone fences: ThreadSanitizer cannot see them).
 * Memory: everything comes from the ze_mem_t in the desc (owner JOB, or the
 * owner named in the desc).
 */
#ifndef ZENGINE_JOB_H
#define ZENGINE_JOB_H

#include <stdatomic.h>

#include "zengine/base.h"
#include "zengine/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- job system */

typedef struct ze_job_system_t ze_job_system_t;
typedef void (*ze_job_fn)(void *ctx);

typedef struct ze_job_system_desc_t {
    ze_mem_t *mem;           /* required */
    uint32_t worker_count;   /* 0 = ze_cpu_count() - 1, at least 1 */
    uint32_t queue_capacity; /* 0 = 4096; rounded up to a power of two */
    /* Optional, called on each worker thread as it starts and just before
       it ends (the engine gives each worker the crash handler's alternate
       signal stack this way). */
    void (*thread_enter)(void *user);
    void (*thread_leave)(void *user);
    void *thread_user;
} ze_job_system_desc_t;

ze_result ze_job_system_create(const ze_job_system_desc_t *desc, ze_job_system_t **out);
/* Runs every job still queued, then joins the workers. */
void ze_job_system_destroy(ze_job_system_t *js);
uint32_t ze_job_worker_count(const ze_job_system_t *js);
/* True on one of this system's worker threads. */
bool ze_job_on_worker(const ze_job_system_t *js);

/* Counts outstanding jobs. Zero-initialised = no jobs. */
typedef struct ze_wait_group_t {
    atomic_uint pending;
} ze_wait_group_t;

static inline void ze_wait_group_init(ze_wait_group_t *wg)
{
    atomic_init(&wg->pending, 0);
}
static inline bool ze_wait_group_done(ze_wait_group_t *wg)
{
    return atomic_load_explicit(&wg->pending, memory_order_acquire) == 0;
}

/* Queue fn(ctx) on the pool; `wg` (optional) counts it until it returns.
 * Any thread. Never fails: when the queue is full the job runs inline. */
void ze_job_submit(ze_job_system_t *js, ze_job_fn fn, void *ctx, ze_wait_group_t *wg);
/* Block until wg reaches zero, running queued jobs meanwhile. Any thread. */
void ze_job_wait(ze_job_system_t *js, ze_wait_group_t *wg);

/* fn(ctx, begin, end) over [0, count) in chunks of `grain` (0 = count split
 * into about 4 chunks per thread); returns when all chunks are done. The
 * calling thread takes part. */
typedef void (*ze_job_range_fn)(void *ctx, uint32_t begin, uint32_t end);
void ze_job_parallel_for(ze_job_system_t *js, uint32_t count, uint32_t grain, ze_job_range_fn fn,
                         void *ctx);

typedef struct ze_job_stats_t {
    uint64_t submitted;
    uint64_t executed_by_workers;
    uint64_t executed_by_waiters; /* run by a thread inside ze_job_wait */
    uint64_t executed_inline;     /* queue full at submit */
} ze_job_stats_t;
ze_job_stats_t ze_job_system_stats(ze_job_system_t *js);

/* ------------------------------------------------- main-thread scheduler */

typedef struct ze_main_scheduler_t ze_main_scheduler_t;
typedef void (*ze_task_fn)(void *ctx);

enum { ZE_MAIN_SCHEDULER_SLOTS = 512 };

typedef struct ze_main_scheduler_desc_t {
    ze_mem_t *mem;      /* required */
    ze_mem_owner owner; /* 0 = BOOTSTRAP (the seed's choice) */
    uint32_t capacity;  /* 0 = 512; a power of two */
} ze_main_scheduler_desc_t;

/* The creating thread becomes the owner: only it may drain. */
ze_result ze_main_scheduler_create(const ze_main_scheduler_desc_t *desc, ze_main_scheduler_t **out);
/* Discards tasks still pending (their count is logged). Owner thread. */
void ze_main_scheduler_destroy(ze_main_scheduler_t *s);
/* Any thread; no allocation. ZE_ERR_FULL when the ring is full (the task is
 * not queued; counted in `rejected`). */
ze_result ze_main_scheduler_post(ze_main_scheduler_t *s, ze_task_fn fn, void *ctx);
/* Owner thread: run, in posting order, the tasks that were complete when the
 * drain began (a task posted by a task runs at the next drain). Returns how
 * many ran. */
uint32_t ze_main_scheduler_drain(ze_main_scheduler_t *s);
typedef struct ze_main_scheduler_stats_t {
    uint64_t posted;
    uint64_t executed;
    uint64_t rejected;
} ze_main_scheduler_stats_t;
ze_main_scheduler_stats_t ze_main_scheduler_stats(ze_main_scheduler_t *s);

/* ----------------------------------------------------- latest-state mailbox */

typedef struct ze_mailbox_t ze_mailbox_t;

typedef struct ze_mailbox_desc_t {
    ze_mem_t *mem;          /* required */
    ze_mem_owner owner;     /* 0 = BOOTSTRAP; the render state uses RENDER */
    size_t slot_arena_size; /* per slot, reserved address space; 0 = 4 MiB */
} ze_mailbox_desc_t;

ze_result ze_mailbox_create(const ze_mailbox_desc_t *desc, ze_mailbox_t **out);
void ze_mailbox_destroy(ze_mailbox_t *mb);

/* Writer thread. Claim a slot to fill: a Free one, else the oldest unread
 * (Ready) one, which is thereby replaced. Its arena is reset and returned. */
ze_arena_t *ze_mailbox_begin_write(ze_mailbox_t *mb);
/* Writer thread. Publish the claimed slot; `payload` normally points into its
 * arena. Returns the payload's sequence number (1, 2, 3...). */
uint64_t ze_mailbox_publish(ze_mailbox_t *mb, const void *payload, size_t size);
/* Writer thread. Give the claimed slot back unpublished. */
void ze_mailbox_cancel(ze_mailbox_t *mb);

/* Reader thread. Take the newest Ready payload, releasing the one held
 * before and any older Ready ones; with nothing new, keep the held one.
 * Returns NULL before the first publish. The payload stays valid until the
 * next take. *seq and *size are optional outputs. */
const void *ze_mailbox_take(ze_mailbox_t *mb, size_t *size, uint64_t *seq);

typedef struct ze_mailbox_stats_t {
    uint64_t published;
    uint64_t taken;    /* distinct payloads the reader received */
    uint64_t replaced; /* Ready payloads overwritten or released unread */
} ze_mailbox_stats_t;
ze_mailbox_stats_t ze_mailbox_stats(ze_mailbox_t *mb);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_JOB_H */
