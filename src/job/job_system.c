/* Job system: a worker pool fed by one bounded lock-free MPMC queue.
 *
 * The queue is Dmitry Vyukov's bounded MPMC ring: every cell carries a
 * sequence number that says whose turn it is (a producer of lap n sees
 * seq == pos, a consumer sees seq == pos + 1), so push and pop are one CAS on
 * a cursor plus one release store, with no lock and no allocation.
 *
 * Sleeping. Idle workers and idle waiters block on condition variables under
 * one mutex; a producer only touches the mutex when the matching "idle" count
 * is non-zero, so the common path of a busy pool costs no syscalls. The
 * counts and the queue cursors use sequentially consistent operations: that
 * is the Dekker pattern (the sleeper increments its count then re-checks the
 * queue; the producer advances the cursor then reads the count), and without
 * standalone fences only seq_cst on both sides guarantees that at least one
 * of the two sees the other. On x86 the RMWs are lock-prefixed anyway and
 * seq_cst loads are plain loads, so this costs nothing there.
 */
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <string.h>

#include "zengine/job.h"

enum {
    JOB_DEFAULT_QUEUE = 4096,
    JOB_MAX_QUEUE = 1u << 24, /* 16 M cells x 32 bytes: beyond that it is a typo */
    JOB_MAX_WORKERS = 256,
    /* How long an idle thread polls before it yields and then sleeps. Waking a
     * sleeper costs a futex call and tens of microseconds of scheduler
     * latency; a short poll catches the next burst of jobs without it. */
    JOB_WORKER_SPIN_NS = 50000,
    JOB_WAITER_SPIN_NS = 20000,
    JOB_YIELDS = 16,
};

typedef struct job_cell_t {
    atomic_size_t seq;
    ze_job_fn fn;
    void *ctx;
    ze_wait_group_t *wg;
} job_cell_t;

typedef struct job_t {
    ze_job_fn fn;
    void *ctx;
    ze_wait_group_t *wg;
} job_t;

/* One cache line per worker so their counters do not bounce between cores. */
typedef struct job_worker_t {
    alignas(64) pthread_t thread;
    ze_job_system_t *js;
    atomic_uint_least64_t executed; /* written by its worker only */
} job_worker_t;

/* Cache lines by access pattern: read-only after create (every push and
 * pop reads cells/mask), the two cursors, the idle counts (read by every
 * submit, written only around sleeping), the waiters' counters (written per
 * helped job), and the mutex and condvars (touched only to sleep or wake). */
struct ze_job_system_t {
    ze_allocator_t alloc;
    job_cell_t *cells;
    size_t mask;
    job_worker_t *workers;
    uint32_t worker_count;  /* threads running */
    uint32_t workers_alloc; /* entries in `workers` */
    size_t cells_bytes;
    void (*thread_enter)(void *user); /* the desc's worker hooks */
    void (*thread_leave)(void *user);
    void *thread_user;

    alignas(64) atomic_size_t enq;
    alignas(64) atomic_size_t deq;
    alignas(64) atomic_uint idle_workers;
    atomic_uint idle_waiters;
    atomic_bool stop;
    alignas(64) atomic_uint_least64_t executed_by_waiters;
    atomic_uint_least64_t executed_inline;

    alignas(64) pthread_mutex_t lock;
    pthread_cond_t work_cv; /* idle workers */
    pthread_cond_t done_cv; /* idle waiters: a wait group hit zero, or new work */
};

/* Which system, if any, the calling thread works for (ze_job_on_worker). A
 * per-thread identity, not shared state: each worker sets its own. */
static _Thread_local const ze_job_system_t *t_worker_of;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ------------------------------------------------------------------ queue */

static bool queue_push(ze_job_system_t *js, ze_job_fn fn, void *ctx, ze_wait_group_t *wg)
{
    size_t pos = atomic_load_explicit(&js->enq, memory_order_relaxed);
    job_cell_t *c;
    for (;;) {
        c = &js->cells[pos & js->mask];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            /* seq_cst: the cursor advance is the producer's half of the
             * sleep/wake handshake (see the file comment). */
            if (atomic_compare_exchange_weak_explicit(&js->enq, &pos, pos + 1, memory_order_seq_cst,
                                                      memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return false; /* the cell still holds last lap's job: full */
        } else {
            pos = atomic_load_explicit(&js->enq, memory_order_relaxed);
        }
    }
    c->fn = fn;
    c->ctx = ctx;
    c->wg = wg;
    atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
    return true;
}

static bool queue_pop(ze_job_system_t *js, job_t *out)
{
    size_t pos = atomic_load_explicit(&js->deq, memory_order_relaxed);
    job_cell_t *c;
    for (;;) {
        c = &js->cells[pos & js->mask];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)(pos + 1);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&js->deq, &pos, pos + 1, memory_order_seq_cst,
                                                      memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return false; /* empty, or the next job is claimed but not yet written */
        } else {
            pos = atomic_load_explicit(&js->deq, memory_order_relaxed);
        }
    }
    out->fn = c->fn;
    out->ctx = c->ctx;
    out->wg = c->wg;
    atomic_store_explicit(&c->seq, pos + js->mask + 1, memory_order_release);
    return true;
}

/* True when a job is queued or being queued. The consumer's half of the
 * sleep/wake handshake: called after the sleeper's seq_cst increment. A claimed
 * but unpublished cell counts as work, so nobody sleeps past a push in flight. */
static bool queue_has_work(ze_job_system_t *js)
{
    size_t e = atomic_load_explicit(&js->enq, memory_order_seq_cst);
    size_t d = atomic_load_explicit(&js->deq, memory_order_seq_cst);
    return (intptr_t)(e - d) > 0;
}

/* ------------------------------------------------------- running and waking */

static void wait_group_finish(ze_job_system_t *js, ze_wait_group_t *wg)
{
    /* After this decrement the wait group may be gone (it usually lives on the
     * waiter's stack): only `js` may be touched below. */
    if (atomic_fetch_sub_explicit(&wg->pending, 1, memory_order_seq_cst) != 1)
        return;
    if (atomic_load_explicit(&js->idle_waiters, memory_order_seq_cst) != 0) {
        pthread_mutex_lock(&js->lock);
        pthread_cond_broadcast(&js->done_cv);
        pthread_mutex_unlock(&js->lock);
    }
}

static inline void run_job(ze_job_system_t *js, const job_t *j)
{
    ZE_ZONE_BEGIN("job");
    j->fn(j->ctx);
    ZE_ZONE_END();
    if (j->wg)
        wait_group_finish(js, j->wg);
}

/* After a push: wake one idle worker; with none idle, wake the idle waiters
 * instead, since a waiter asleep in ze_job_wait may be the only thread left
 * to run the job (every worker can itself be blocked in a nested wait). */
static void wake_for_work(ze_job_system_t *js)
{
    if (atomic_load_explicit(&js->idle_workers, memory_order_seq_cst) != 0) {
        pthread_mutex_lock(&js->lock);
        pthread_cond_signal(&js->work_cv);
        pthread_mutex_unlock(&js->lock);
    } else if (atomic_load_explicit(&js->idle_waiters, memory_order_seq_cst) != 0) {
        pthread_mutex_lock(&js->lock);
        pthread_cond_broadcast(&js->done_cv);
        pthread_mutex_unlock(&js->lock);
    }
}

/* Poll for work for about `ns`, then yield a few times. True when work showed
 * up (or `wg`, when given, reached zero); false means: go to sleep. */
static bool spin_for_work(ze_job_system_t *js, ze_wait_group_t *wg, uint64_t ns)
{
    uint64_t start = ze_time_now_ns();
    for (uint32_t i = 1;; i++) {
        if (wg && ze_wait_group_done(wg))
            return true;
        if (queue_has_work(js))
            return true;
        if (atomic_load_explicit(&js->stop, memory_order_relaxed))
            return false;
        cpu_relax();
        if ((i & 63) == 0 && ze_time_now_ns() - start > ns)
            break;
    }
    for (uint32_t i = 0; i < JOB_YIELDS; i++) {
        sched_yield();
        if ((wg && ze_wait_group_done(wg)) || queue_has_work(js))
            return true;
    }
    return false;
}

/* Workers' names in profiler captures (they must outlive every capture). */
static const char *const g_worker_names[] = {
    "worker 0",  "worker 1",  "worker 2",  "worker 3",  "worker 4",  "worker 5",
    "worker 6",  "worker 7",  "worker 8",  "worker 9",  "worker 10", "worker 11",
    "worker 12", "worker 13", "worker 14", "worker 15",
};

static void *worker_main(void *arg)
{
    job_worker_t *w = arg;
    ze_job_system_t *js = w->js;
    t_worker_of = js;
    size_t index = (size_t)(w - js->workers);
    ze_trace_thread_name(index < ZE_COUNTOF(g_worker_names) ? g_worker_names[index] : "worker");
    if (js->thread_enter)
        js->thread_enter(js->thread_user);
    job_t j;
    for (;;) {
        if (queue_pop(js, &j)) {
            /* Counted before running: a waiter that sees the job's wait group
             * reach zero then sees the count too (the release of the
             * decrement orders it). */
            atomic_store_explicit(&w->executed,
                                  atomic_load_explicit(&w->executed, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
            run_job(js, &j);
            continue;
        }
        /* Destroy runs every queued job first: leave only once it is empty. */
        if (atomic_load_explicit(&js->stop, memory_order_seq_cst) && !queue_has_work(js))
            break;
        if (spin_for_work(js, NULL, JOB_WORKER_SPIN_NS))
            continue;
        pthread_mutex_lock(&js->lock);
        atomic_fetch_add_explicit(&js->idle_workers, 1, memory_order_seq_cst);
        while (!atomic_load_explicit(&js->stop, memory_order_seq_cst) && !queue_has_work(js))
            pthread_cond_wait(&js->work_cv, &js->lock);
        atomic_fetch_sub_explicit(&js->idle_workers, 1, memory_order_seq_cst);
        pthread_mutex_unlock(&js->lock);
    }
    if (js->thread_leave)
        js->thread_leave(js->thread_user);
    t_worker_of = NULL;
    return NULL;
}

/* ------------------------------------------------------------ public API */

static void system_free(ze_job_system_t *js)
{
    pthread_cond_destroy(&js->done_cv);
    pthread_cond_destroy(&js->work_cv);
    pthread_mutex_destroy(&js->lock);
    ze_free(js->alloc, js->workers, sizeof(job_worker_t) * js->workers_alloc);
    ze_free(js->alloc, js->cells, js->cells_bytes);
    ze_free(js->alloc, js, sizeof *js);
}

ze_result ze_job_system_create(const ze_job_system_desc_t *desc, ze_job_system_t **out)
{
    ZE_CHECK(desc && out && desc->mem, ZE_ERR_INVALID_ARG);
    *out = NULL;
    uint32_t workers = desc->worker_count;
    if (workers == 0) {
        uint32_t cpus = ze_cpu_count();
        workers = cpus > 1 ? cpus - 1 : 1;
    }
    uint32_t cap = desc->queue_capacity ? desc->queue_capacity : JOB_DEFAULT_QUEUE;
    if (workers > JOB_MAX_WORKERS || cap > JOB_MAX_QUEUE) {
        ZE_LOG_ERROR("job", "job system: %u workers / queue of %u exceed the limits (%u / %u)",
                     workers, cap, (unsigned)JOB_MAX_WORKERS, (unsigned)JOB_MAX_QUEUE);
        return ZE_ERR_INVALID_ARG;
    }
    /* The sequence scheme needs two cells at least: with one, a producer
     * could not tell "full" from "my turn". */
    size_t cells = 2;
    while (cells < cap)
        cells <<= 1;

    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, ZE_MEM_OWNER_JOB);
    ze_job_system_t *js = ze_alloc(alloc, sizeof *js, _Alignof(ze_job_system_t));
    if (!js)
        return ZE_ERR_OUT_OF_MEMORY;
    memset(js, 0, sizeof *js);
    js->alloc = alloc;
    js->thread_enter = desc->thread_enter;
    js->thread_leave = desc->thread_leave;
    js->thread_user = desc->thread_user;
    js->mask = cells - 1;
    js->cells_bytes = cells * sizeof(job_cell_t);
    js->cells = ze_alloc(alloc, js->cells_bytes, 64);
    js->workers = ze_alloc(alloc, sizeof(job_worker_t) * workers, _Alignof(job_worker_t));
    js->workers_alloc = workers;
    pthread_mutex_init(&js->lock, NULL);
    pthread_cond_init(&js->work_cv, NULL);
    pthread_cond_init(&js->done_cv, NULL);
    if (!js->cells || !js->workers) {
        ZE_LOG_ERROR("job", "job system: out of memory for %zu queue cells", cells);
        system_free(js);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < cells; i++)
        atomic_init(&js->cells[i].seq, i);
    atomic_init(&js->enq, 0);
    atomic_init(&js->deq, 0);
    atomic_init(&js->idle_workers, 0);
    atomic_init(&js->idle_waiters, 0);
    atomic_init(&js->stop, false);
    atomic_init(&js->executed_by_waiters, 0);
    atomic_init(&js->executed_inline, 0);

    for (uint32_t i = 0; i < workers; i++) {
        job_worker_t *w = &js->workers[i];
        memset(w, 0, sizeof *w);
        w->js = js;
        atomic_init(&w->executed, 0);
        int err = pthread_create(&w->thread, NULL, worker_main, w);
        if (err == 0)
            js->worker_count = i + 1;
        if (err != 0) {
            ZE_LOG_ERROR("job", "job system: cannot start worker %u of %u (%s)", i, workers,
                         strerror(err));
            ze_job_system_destroy(js); /* joins the ones already running */
            return ZE_ERR_INTERNAL;
        }
    }
    *out = js;
    return ZE_OK;
}

void ze_job_system_destroy(ze_job_system_t *js)
{
    if (!js)
        return;
    ZE_ASSERT(!ze_job_on_worker(js)); /* a worker cannot join itself */
    pthread_mutex_lock(&js->lock);
    atomic_store_explicit(&js->stop, true, memory_order_seq_cst);
    pthread_cond_broadcast(&js->work_cv);
    pthread_cond_broadcast(&js->done_cv);
    pthread_mutex_unlock(&js->lock);
    uint32_t workers = js->worker_count;
    for (uint32_t i = 0; i < workers; i++)
        pthread_join(js->workers[i].thread, NULL);
    /* Jobs run during shutdown may have queued more after the workers left. */
    job_t j;
    while (queue_pop(js, &j)) {
        run_job(js, &j);
        atomic_fetch_add_explicit(&js->executed_by_waiters, 1, memory_order_relaxed);
    }
    system_free(js);
}

uint32_t ze_job_worker_count(const ze_job_system_t *js)
{
    return js->worker_count;
}

bool ze_job_on_worker(const ze_job_system_t *js)
{
    return js && t_worker_of == js;
}

void ze_job_submit(ze_job_system_t *js, ze_job_fn fn, void *ctx, ze_wait_group_t *wg)
{
    ZE_ASSERT(js && fn);
    /* Count before queueing: a worker may finish the job before push returns. */
    if (wg)
        atomic_fetch_add_explicit(&wg->pending, 1, memory_order_relaxed);
    if (queue_push(js, fn, ctx, wg)) {
        wake_for_work(js);
        return;
    }
    /* Full queue: run it here. The caller's progress is the back-pressure. */
    atomic_fetch_add_explicit(&js->executed_inline, 1, memory_order_relaxed);
    job_t j = {fn, ctx, wg};
    run_job(js, &j);
}

void ze_job_wait(ze_job_system_t *js, ze_wait_group_t *wg)
{
    ZE_ASSERT(js && wg);
    job_t j;
    while (!ze_wait_group_done(wg)) {
        /* Help: any queued job may be one this wait group depends on. */
        if (queue_pop(js, &j)) {
            atomic_fetch_add_explicit(&js->executed_by_waiters, 1, memory_order_relaxed);
            run_job(js, &j);
            continue;
        }
        /* Nothing queued: what is left runs on other threads. */
        if (spin_for_work(js, wg, JOB_WAITER_SPIN_NS))
            continue;
        pthread_mutex_lock(&js->lock);
        atomic_fetch_add_explicit(&js->idle_waiters, 1, memory_order_seq_cst);
        while (atomic_load_explicit(&wg->pending, memory_order_seq_cst) != 0 && !queue_has_work(js))
            pthread_cond_wait(&js->done_cv, &js->lock);
        atomic_fetch_sub_explicit(&js->idle_waiters, 1, memory_order_seq_cst);
        pthread_mutex_unlock(&js->lock);
    }
}

/* ---------------------------------------------------------- parallel for */

typedef struct pfor_t {
    ze_job_range_fn fn;
    void *ctx;
    uint32_t count;
    uint32_t grain;
    /* 64-bit: every thread overshoots by one grain at the end, which could
     * wrap a 32-bit cursor when count is close to UINT32_MAX. */
    atomic_uint_least64_t next;
} pfor_t;

/* Chunks are claimed dynamically, so a helper that starts late (or never
 * gets a core) costs nothing: the others take its share. */
static void pfor_chunks(void *arg)
{
    pfor_t *p = arg;
    for (;;) {
        uint64_t begin = atomic_fetch_add_explicit(&p->next, p->grain, memory_order_relaxed);
        if (begin >= p->count)
            return;
        uint64_t end = begin + p->grain;
        p->fn(p->ctx, (uint32_t)begin, end < p->count ? (uint32_t)end : p->count);
    }
}

void ze_job_parallel_for(ze_job_system_t *js, uint32_t count, uint32_t grain, ze_job_range_fn fn,
                         void *ctx)
{
    ZE_ASSERT(js && fn);
    if (count == 0)
        return;
    uint32_t threads = js->worker_count + 1;
    if (grain == 0) {
        uint64_t target = (uint64_t)threads * 4;
        grain = (uint32_t)((count + target - 1) / target);
    }
    uint64_t chunks = ((uint64_t)count + grain - 1) / grain;
    if (chunks <= 1) {
        fn(ctx, 0, count);
        return;
    }
    pfor_t p = {.fn = fn, .ctx = ctx, .count = count, .grain = grain};
    atomic_init(&p.next, 0);
    ze_wait_group_t wg;
    ze_wait_group_init(&wg);
    uint64_t helpers = ZE_MIN(chunks - 1, (uint64_t)js->worker_count);
    for (uint64_t i = 0; i < helpers; i++)
        ze_job_submit(js, pfor_chunks, &p, &wg);
    pfor_chunks(&p);
    ze_job_wait(js, &wg);
}

ze_job_stats_t ze_job_system_stats(ze_job_system_t *js)
{
    ze_job_stats_t s = {0};
    for (uint32_t i = 0; i < js->worker_count; i++)
        s.executed_by_workers +=
            atomic_load_explicit(&js->workers[i].executed, memory_order_relaxed);
    s.executed_by_waiters = atomic_load_explicit(&js->executed_by_waiters, memory_order_relaxed);
    s.executed_inline = atomic_load_explicit(&js->executed_inline, memory_order_relaxed);
    /* Every queued job advanced the enqueue cursor once; no second counter
     * on the submit path. */
    s.submitted =
        (uint64_t)atomic_load_explicit(&js->enq, memory_order_relaxed) + s.executed_inline;
    return s;
}
