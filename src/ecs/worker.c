/* The Worker (ZenECS's IWorker): systems schedule jobs on the kernel's job
 * pool; the jobs of a wave finish before the next wave starts (so before
 * the group's barrier), and what they change structurally goes through
 * their own command buffers, merged into the group's buffer in a fixed
 * order: by the scheduling system's place in the group (registration
 * order), then in the order that system scheduled them, whatever order the
 * pool ran them in. The barrier applies them with the group's policy.
 *
 * From a system's first scheduled job until its wave ends the world is in
 * the parallel state (ze__world_parallel_begin): the jobs read and write
 * component values beside the systems, and every structural call on the
 * world is refused (record it in the job's or the system's buffer).
 *
 * Threads: ze_system_schedule from any system, on any thread of a wave
 * (records under a mutex); the wave's end on the world's thread. Memory:
 * the world's allocator (thread-safe); records and command buffers are
 * kept and reused across waves. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ecs_internal.h"

typedef struct job_rec_t {
    ze_world_t *world;
    ze_world_job_fn fn;
    void *user;
    ze_commands_t *cmds;
    uint32_t system; /* the scheduling system's index in its group */
    uint64_t seq;    /* schedule order (one system schedules from one thread) */
} job_rec_t;

struct ze__worker_t {
    pthread_mutex_t lock; /* guards everything below during a wave */
    job_rec_t **jobs;     /* [count]; records never move (jobs hold them) */
    uint32_t count, cap;  /* cap: records allocated (reused) */
    uint64_t next_seq;
    ze_wait_group_t wg;
    bool made_parallel; /* the world entered the parallel state for the jobs */
};

static ze__worker_t *worker_get(ze_world_t *w)
{
    /* Created on first use, possibly by several systems of a wave at
     * once: the first to install it wins (as the message bus). */
    _Atomic(ze__worker_t *) *slot = (_Atomic(ze__worker_t *) *)&w->worker;
    ze__worker_t *k = atomic_load_explicit(slot, memory_order_acquire);
    if (k)
        return k;
    k = ze_alloc(w->alloc, sizeof *k, _Alignof(ze__worker_t));
    if (!k)
        return NULL;
    memset(k, 0, sizeof *k);
    ze_wait_group_init(&k->wg);
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        ze_free(w->alloc, k, sizeof *k);
        return NULL;
    }
    ze__worker_t *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(slot, &expected, k, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        pthread_mutex_destroy(&k->lock);
        ze_free(w->alloc, k, sizeof *k);
        return expected;
    }
    return k;
}

void ze__worker_fini(ze_world_t *w)
{
    ze__worker_t *k = w->worker;
    if (!k)
        return;
    for (uint32_t i = 0; i < k->cap; i++) {
        if (k->jobs[i]->cmds)
            ze_commands_destroy(k->jobs[i]->cmds);
        ze_free(w->alloc, k->jobs[i], sizeof(job_rec_t));
    }
    if (k->jobs)
        ze_free(w->alloc, k->jobs, sizeof(*k->jobs) * k->cap);
    pthread_mutex_destroy(&k->lock);
    ze_free(w->alloc, k, sizeof *k);
    w->worker = NULL;
}

/* The next record (allocated once, reused), its buffer empty. Caller holds
 * the lock. */
static job_rec_t *next_record(ze_world_t *w, ze__worker_t *k)
{
    if (k->count == k->cap) {
        uint32_t cap = k->cap ? k->cap * 2 : 64;
        job_rec_t **t = ze_alloc(w->alloc, sizeof(*t) * cap, _Alignof(job_rec_t *));
        if (!t)
            return NULL;
        if (k->jobs) {
            memcpy(t, k->jobs, sizeof(*t) * k->cap);
            ze_free(w->alloc, k->jobs, sizeof(*t) * k->cap);
        }
        memset(t + k->cap, 0, sizeof(*t) * (cap - k->cap));
        k->jobs = t;
        uint32_t have = k->cap;
        k->cap = cap;
        for (uint32_t i = have; i < cap; i++) {
            t[i] = ze_alloc(w->alloc, sizeof(job_rec_t), _Alignof(job_rec_t));
            if (!t[i]) {
                k->cap = i;
                break;
            }
            memset(t[i], 0, sizeof(job_rec_t));
        }
        if (k->count == k->cap)
            return NULL;
    }
    job_rec_t *r = k->jobs[k->count];
    if (!r->cmds && !(r->cmds = ze_commands_create(w)))
        return NULL;
    k->count++;
    return r;
}

static void run_rec(void *ctx)
{
    job_rec_t *r = ctx;
    r->fn(r->world, r->cmds, r->user);
}

ze_result ze_system_schedule(ze_world_t *w, const ze_tick_t *t, ze_world_job_fn fn, void *user)
{
    ZE_CHECK(w && t && fn, ZE_ERR_INVALID_ARG);
    if (!atomic_load_explicit(&w->jobs_open, memory_order_acquire))
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_STATE,
                               "ze_system_schedule outside a system's run (system '%s')",
                               t->name ? t->name : "?");
    ze__worker_t *k = worker_get(w);
    if (!k)
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                               "out of memory creating the world's worker");
    /* A serial wave's system runs on the world's thread: its jobs will run
     * beside it, so the world enters the parallel state now (storage
     * settled, queries compiled) until the wave ends. In a parallel wave it
     * already is. */
    if (!atomic_load_explicit(&w->in_parallel, memory_order_acquire)) {
        ze__world_parallel_begin(w);
        k->made_parallel = true;
    }
    pthread_mutex_lock(&k->lock);
    job_rec_t *r = next_record(w, k);
    if (r) {
        r->world = w;
        r->fn = fn;
        r->user = user;
        r->system = t->system;
        r->seq = k->next_seq++;
    }
    pthread_mutex_unlock(&k->lock);
    if (!r)
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_OUT_OF_MEMORY,
                               "out of memory scheduling a job of system '%s'",
                               t->name ? t->name : "?");
    ze_job_system_t *js = ze_kernel_jobs(w->kernel);
    if (js)
        ze_job_submit(js, run_rec, r, &k->wg);
    else
        run_rec(r); /* no pool: the same order of effects, on this thread */
    return ZE_OK;
}

static int by_key(const void *a, const void *b)
{
    const job_rec_t *x = *(job_rec_t *const *)a, *y = *(job_rec_t *const *)b;
    if (x->system != y->system)
        return x->system < y->system ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ze__worker_wave_wait(ze_world_t *w)
{
    ze__worker_t *k = w->worker;
    if (!k || !k->count)
        return;
    ze_job_system_t *js = ze_kernel_jobs(w->kernel);
    if (js)
        ze_job_wait(js, &k->wg); /* this thread runs queued jobs meanwhile */
    /* Every job has returned: order them by (system, schedule order). */
    qsort(k->jobs, k->count, sizeof *k->jobs, by_key);
    if (k->made_parallel) {
        k->made_parallel = false;
        ze__world_parallel_end(w);
        /* What the system deferred before its first job (an iteration was
         * open then) applies now, as when its iteration ended. */
        if (!atomic_load_explicit(&w->iter_depth, memory_order_acquire) &&
            ze_commands_count(w->deferred))
            ze_commands_flush(w->deferred);
    }
}

ze_result ze__worker_merge(ze_world_t *w, ze_commands_t *dst, uint32_t system)
{
    ze__worker_t *k = w->worker;
    ze_result r = ZE_OK;
    for (uint32_t i = 0; k && i < k->count; i++) {
        job_rec_t *j = k->jobs[i];
        if (j->system != system)
            continue;
        if (ze_commands_count(j->cmds)) {
            ze_result m = ze_commands_merge(dst, j->cmds);
            if (m != ZE_OK && r == ZE_OK)
                r = m;
        }
        ze_commands_clear(j->cmds); /* reused by the next wave's jobs */
    }
    return r;
}

void ze__worker_wave_end(ze_world_t *w)
{
    if (w->worker)
        w->worker->count = 0;
}
