/* Job system: every job runs exactly once, wait groups, waiters that help
 * (nested waits with a single worker), the queue-full inline path, shutdown
 * with queued work, and sleep/wake races. parallel_for has its own file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "zengine/job.h"

#ifdef ZE_SANITIZER_THREAD
enum { SCALE = 4 }; /* TSan runs ~10x slower: divide the big loops */
#else
enum { SCALE = 1 };
#endif

typedef struct world_t {
    ze_mem_t *mm;
    ze_job_system_t *js;
    ze_allocator_t alloc; /* test-side buffers */
} world_t;

static world_t world_new(uint32_t workers, uint32_t queue)
{
    world_t w = {0};
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &w.mm), ZE_OK);
    ze_job_system_desc_t d = {.mem = w.mm, .worker_count = workers, .queue_capacity = queue};
    assert_int_equal(ze_job_system_create(&d, &w.js), ZE_OK);
    w.alloc = ze_mem_owner_allocator(w.mm, ZE_MEM_OWNER_GAME);
    return w;
}

static void world_free(world_t *w)
{
    ze_job_system_destroy(w->js);
    ze_mem_destroy(w->mm);
}

static uint64_t executed_total(ze_job_stats_t s)
{
    return s.executed_by_workers + s.executed_by_waiters + s.executed_inline;
}

/* ------------------------------------------------------ exactly once */

typedef struct hits_t {
    atomic_uint *count; /* one counter per job index */
    uint32_t n;
} hits_t;

typedef struct hit_job_t {
    hits_t *hits;
    uint32_t index;
} hit_job_t;

static void hit(void *arg)
{
    hit_job_t *j = arg;
    atomic_fetch_add_explicit(&j->hits->count[j->index], 1, memory_order_relaxed);
}

static void test_defaults(void **state)
{
    (void)state;
    world_t w = world_new(0, 0);
    uint32_t cpus = ze_cpu_count();
    assert_int_equal(ze_job_worker_count(w.js), cpus > 1 ? cpus - 1 : 1);
    assert_false(ze_job_on_worker(w.js));
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.submitted, 0);
    assert_int_equal(executed_total(s), 0);
    world_free(&w);
}

static void on_worker_probe(void *arg)
{
    void **a = arg;
    atomic_store((atomic_bool *)a[1], ze_job_on_worker((ze_job_system_t *)a[0]));
}

static void test_on_worker(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    /* A job that reaches a worker reports true; force it there by not
     * waiting (a waiter would run it itself). */
    atomic_bool seen = false;
    void *args[2] = {w.js, &seen};
    ze_wait_group_t wg = {0};
    ze_job_submit(w.js, on_worker_probe, args, &wg);
    while (!ze_wait_group_done(&wg))
        sched_yield();
    assert_true(atomic_load(&seen));
    assert_int_equal(ze_job_system_stats(w.js).executed_by_workers, 1);
    world_free(&w);
}

static void test_jobs_run_exactly_once(void **state)
{
    (void)state;
    world_t w = world_new(0, 0);
    const uint32_t n = 20000 / SCALE;
    hits_t hits = {ze_alloc(w.alloc, sizeof(atomic_uint) * n, 16), n};
    hit_job_t *jobs = ze_alloc(w.alloc, sizeof(hit_job_t) * n, 16);
    assert_non_null(hits.count);
    assert_non_null(jobs);
    for (uint32_t i = 0; i < n; i++) {
        atomic_init(&hits.count[i], 0);
        jobs[i] = (hit_job_t){&hits, i};
    }
    /* Two wait groups interleaved: each covers exactly its own jobs. */
    ze_wait_group_t even = {0}, odd = {0};
    for (uint32_t i = 0; i < n; i++)
        ze_job_submit(w.js, hit, &jobs[i], (i & 1) ? &odd : &even);
    ze_job_wait(w.js, &even);
    for (uint32_t i = 0; i < n; i += 2)
        assert_int_equal(atomic_load(&hits.count[i]), 1);
    ze_job_wait(w.js, &odd);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(atomic_load(&hits.count[i]), 1);
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.submitted, n);
    assert_int_equal(executed_total(s), n);
    ze_free(w.alloc, jobs, sizeof(hit_job_t) * n);
    ze_free(w.alloc, hits.count, sizeof(atomic_uint) * n);
    world_free(&w);
}

/* Several outside threads submit and wait at once, on one pool. */
typedef struct submitter_t {
    ze_job_system_t *js;
    hit_job_t *jobs;
    uint32_t n;
} submitter_t;

static void *submitter_main(void *arg)
{
    submitter_t *s = arg;
    ze_wait_group_t wg = {0};
    for (uint32_t i = 0; i < s->n; i++) {
        ze_job_submit(s->js, hit, &s->jobs[i], &wg);
        if ((i & 255) == 255)
            ze_job_wait(s->js, &wg); /* mix waits into the submissions */
    }
    ze_job_wait(s->js, &wg);
    return NULL;
}

static void test_concurrent_submitters(void **state)
{
    (void)state;
    world_t w = world_new(2, 256);
    enum { THREADS = 3 };
    const uint32_t per = 20000 / SCALE, n = per * THREADS;
    hits_t hits = {ze_alloc(w.alloc, sizeof(atomic_uint) * n, 16), n};
    hit_job_t *jobs = ze_alloc(w.alloc, sizeof(hit_job_t) * n, 16);
    assert_non_null(hits.count);
    assert_non_null(jobs);
    for (uint32_t i = 0; i < n; i++) {
        atomic_init(&hits.count[i], 0);
        jobs[i] = (hit_job_t){&hits, i};
    }
    pthread_t t[THREADS];
    submitter_t sub[THREADS];
    for (int i = 0; i < THREADS; i++) {
        sub[i] = (submitter_t){w.js, jobs + (size_t)i * per, per};
        assert_int_equal(pthread_create(&t[i], NULL, submitter_main, &sub[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(atomic_load(&hits.count[i]), 1);
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.submitted, n);
    assert_int_equal(executed_total(s), n);
    ze_free(w.alloc, jobs, sizeof(hit_job_t) * n);
    ze_free(w.alloc, hits.count, sizeof(atomic_uint) * n);
    world_free(&w);
}

/* ------------------------------------------------------- nested waits */

typedef struct tree_t {
    ze_job_system_t *js;
    atomic_uint nodes;
} tree_t;

typedef struct tree_node_t {
    tree_t *tree;
    uint32_t depth;
} tree_node_t;

/* Each node submits two children and waits for them: every inner node is a
 * job blocked in ze_job_wait. With one worker that only completes if the
 * waiting worker runs its own children. */
static void tree_job(void *arg)
{
    tree_node_t *n = arg;
    atomic_fetch_add(&n->tree->nodes, 1);
    if (n->depth == 0)
        return;
    tree_node_t kids[2] = {{n->tree, n->depth - 1}, {n->tree, n->depth - 1}};
    ze_wait_group_t wg = {0};
    ze_job_submit(n->tree->js, tree_job, &kids[0], &wg);
    ze_job_submit(n->tree->js, tree_job, &kids[1], &wg);
    ze_job_wait(n->tree->js, &wg);
}

static void test_nested_waits_one_worker(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    enum { DEPTH = 10 }; /* 2047 nodes, waits nested 10 deep */
    tree_t tree = {.js = w.js};
    atomic_init(&tree.nodes, 0);
    tree_node_t root = {&tree, DEPTH};
    ze_wait_group_t wg = {0};
    ze_job_submit(w.js, tree_job, &root, &wg);
    ze_job_wait(w.js, &wg);
    assert_int_equal(atomic_load(&tree.nodes), (1u << (DEPTH + 1)) - 1);
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.submitted, (1u << (DEPTH + 1)) - 1);
    assert_int_equal(executed_total(s), (1u << (DEPTH + 1)) - 1);
    assert_int_equal(s.executed_inline, 0);
    assert_true(s.executed_by_waiters > 0);
    world_free(&w);
}

/* A chain: each job submits one child and waits; the worker is the only
 * thread involved once main stops helping. */
typedef struct chain_t {
    ze_job_system_t *js;
    uint32_t left;
    atomic_uint ran;
    atomic_bool all_on_worker;
} chain_t;

static void chain_job(void *arg)
{
    chain_t *c = arg;
    atomic_fetch_add(&c->ran, 1);
    if (!ze_job_on_worker(c->js))
        atomic_store(&c->all_on_worker, false);
    if (c->left == 0)
        return;
    c->left--;
    ze_wait_group_t wg = {0};
    ze_job_submit(c->js, chain_job, c, &wg);
    ze_job_wait(c->js, &wg);
}

static void test_nested_chain_on_worker(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    chain_t c = {.js = w.js, .left = 200};
    atomic_init(&c.ran, 0);
    atomic_init(&c.all_on_worker, true);
    ze_wait_group_t wg = {0};
    ze_job_submit(w.js, chain_job, &c, &wg);
    /* Poll instead of ze_job_wait so main never helps: the one worker must
     * run all 201 jobs while 200 of them sit in nested waits on its stack. */
    while (!ze_wait_group_done(&wg))
        sched_yield();
    assert_int_equal(atomic_load(&c.ran), 201);
    assert_true(atomic_load(&c.all_on_worker));
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.executed_by_workers, 1);
    assert_int_equal(s.executed_by_waiters, 200);
    world_free(&w);
}

/* The one worker sleeps in a nested wait when a job its wait group needs is
 * queued by a thread that does not wait: the submit must wake the sleeping
 * waiter (no idle worker is left to wake), or this hangs. */
typedef struct owed_t {
    ze_job_system_t *js;
    ze_wait_group_t owed;
    atomic_bool waiting;
    atomic_bool paid_on_worker;
} owed_t;

static void pay_job(void *arg)
{
    owed_t *o = arg;
    atomic_store(&o->paid_on_worker, ze_job_on_worker(o->js));
    /* Drop the reservation taken below; this job's own count drops after. */
    atomic_fetch_sub(&o->owed.pending, 1);
}

static void owing_job(void *arg)
{
    owed_t *o = arg;
    atomic_store(&o->waiting, true);
    ze_job_wait(o->js, &o->owed);
}

static void test_submit_wakes_sleeping_waiter(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    for (int round = 0; round < 5; round++) {
        owed_t o = {.js = w.js};
        /* A reservation: the count of a job still to come (the wait group is
         * public; this stands for work another thread will submit). */
        atomic_init(&o.owed.pending, 1);
        atomic_init(&o.waiting, false);
        atomic_init(&o.paid_on_worker, false);
        ze_wait_group_t outer = {0};
        ze_job_submit(w.js, owing_job, &o, &outer);
        while (!atomic_load(&o.waiting))
            sched_yield();
        /* Long past the waiter's spin and yields: it is asleep now. */
        ze_time_sleep_ns(5 * 1000 * 1000);
        ze_job_submit(w.js, pay_job, &o, &o.owed);
        while (!ze_wait_group_done(&outer))
            sched_yield();
        assert_true(atomic_load(&o.paid_on_worker));
    }
    world_free(&w);
}

/* Main sleeps in ze_job_wait while the only job runs long on the worker:
 * completion must wake it. Varying the job length walks the race between
 * the waiter going to sleep and the job finishing. */
typedef struct slow_t {
    atomic_bool started;
    uint64_t ns;
} slow_t;

static void slow_job(void *arg)
{
    slow_t *s = arg;
    atomic_store(&s->started, true);
    ze_time_sleep_ns(s->ns);
}

static void test_waiter_wakes_on_completion(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    for (uint32_t round = 0; round < 200 / SCALE; round++) {
        slow_t s = {.ns = (round % 20) * 5000 + (round % 3 == 0 ? 3000000 : 0)};
        atomic_init(&s.started, false);
        ze_wait_group_t wg = {0};
        ze_job_submit(w.js, slow_job, &s, &wg);
        while (!atomic_load(&s.started))
            sched_yield();
        ze_job_wait(w.js, &wg);
        assert_true(ze_wait_group_done(&wg));
        /* Let the worker fall asleep sometimes, so submits must wake it. */
        if (round % 7 == 0)
            ze_time_sleep_ns(1000 * 1000);
    }
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.executed_by_workers, 200 / SCALE);
    world_free(&w);
}

/* ---------------------------------------------------------- queue full */

typedef struct gate_t {
    atomic_bool entered;
    atomic_bool open;
    atomic_uint after; /* jobs that ran */
} gate_t;

static void gate_job(void *arg)
{
    gate_t *g = arg;
    atomic_store(&g->entered, true);
    while (!atomic_load(&g->open))
        sched_yield();
}

static void count_job(void *arg)
{
    gate_t *g = arg;
    atomic_fetch_add(&g->after, 1);
}

static void test_queue_full_runs_inline(void **state)
{
    (void)state;
    world_t w = world_new(1, 2); /* two cells */
    gate_t g;
    atomic_init(&g.entered, false);
    atomic_init(&g.open, false);
    atomic_init(&g.after, 0);
    ze_wait_group_t wg = {0};
    ze_job_submit(w.js, gate_job, &g, &wg);
    while (!atomic_load(&g.entered))
        sched_yield();
    /* The worker is stuck in the gate: two jobs fit, the other eight run
     * here, inside submit, before it returns. */
    for (int i = 0; i < 10; i++)
        ze_job_submit(w.js, count_job, &g, &wg);
    assert_int_equal(atomic_load(&g.after), 8);
    ze_job_stats_t s = ze_job_system_stats(w.js);
    assert_int_equal(s.executed_inline, 8);
    assert_int_equal(s.submitted, 11);
    atomic_store(&g.open, true);
    ze_job_wait(w.js, &wg);
    assert_int_equal(atomic_load(&g.after), 10);
    assert_int_equal(executed_total(ze_job_system_stats(w.js)), 11);
    world_free(&w);
}

static void test_queue_capacity_rounds_up(void **state)
{
    (void)state;
    world_t w = world_new(1, 3); /* rounded up to 4 */
    gate_t g;
    atomic_init(&g.entered, false);
    atomic_init(&g.open, false);
    atomic_init(&g.after, 0);
    ze_wait_group_t wg = {0};
    ze_job_submit(w.js, gate_job, &g, &wg);
    while (!atomic_load(&g.entered))
        sched_yield();
    for (int i = 0; i < 6; i++)
        ze_job_submit(w.js, count_job, &g, &wg);
    assert_int_equal(ze_job_system_stats(w.js).executed_inline, 2);
    atomic_store(&g.open, true);
    ze_job_wait(w.js, &wg);
    assert_int_equal(atomic_load(&g.after), 6);
    world_free(&w);
}

/* ------------------------------------------------------------- destroy */

typedef struct spawner_t {
    ze_job_system_t *js;
    gate_t *gate;
} spawner_t;

static void spawn_job(void *arg)
{
    spawner_t *s = arg;
    atomic_fetch_add(&s->gate->after, 1);
    /* Submitting during shutdown is allowed: this one must run as well. */
    ze_job_submit(s->js, count_job, s->gate, NULL);
}

static void *open_later(void *arg)
{
    gate_t *g = arg;
    ze_time_sleep_ns(20 * 1000 * 1000);
    atomic_store(&g->open, true);
    return NULL;
}

static void test_destroy_runs_queued_jobs(void **state)
{
    (void)state;
    world_t w = world_new(1, 0);
    gate_t g;
    atomic_init(&g.entered, false);
    atomic_init(&g.open, false);
    atomic_init(&g.after, 0);
    ze_job_submit(w.js, gate_job, &g, NULL);
    while (!atomic_load(&g.entered))
        sched_yield();
    spawner_t sp = {w.js, &g};
    for (int i = 0; i < 100; i++)
        ze_job_submit(w.js, count_job, &g, NULL);
    ze_job_submit(w.js, spawn_job, &sp, NULL);
    /* The gate opens while destroy is already waiting for the worker, so
     * destroy starts with 101 jobs still queued. */
    pthread_t opener;
    assert_int_equal(pthread_create(&opener, NULL, open_later, &g), 0);
    ze_mem_t *mm = w.mm;
    ze_job_system_t *js = w.js;
    ze_job_system_destroy(js);
    pthread_join(opener, NULL);
    assert_int_equal(atomic_load(&g.after), 102);
    ze_mem_destroy(mm);
}

static void test_create_rejects_bad_desc(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    ze_job_system_t *js = (ze_job_system_t *)&mm; /* must be cleared */
    ze_job_system_desc_t d = {.mem = mm, .worker_count = 100000};
    assert_int_equal(ze_job_system_create(&d, &js), ZE_ERR_INVALID_ARG);
    assert_null(js);
    d = (ze_job_system_desc_t){.mem = mm, .queue_capacity = UINT32_MAX};
    assert_int_equal(ze_job_system_create(&d, &js), ZE_ERR_INVALID_ARG);
    ze_mem_destroy(mm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_on_worker),
        cmocka_unit_test(test_jobs_run_exactly_once),
        cmocka_unit_test(test_concurrent_submitters),
        cmocka_unit_test(test_nested_waits_one_worker),
        cmocka_unit_test(test_nested_chain_on_worker),
        cmocka_unit_test(test_submit_wakes_sleeping_waiter),
        cmocka_unit_test(test_waiter_wakes_on_completion),
        cmocka_unit_test(test_queue_full_runs_inline),
        cmocka_unit_test(test_queue_capacity_rounds_up),
        cmocka_unit_test(test_destroy_runs_queued_jobs),
        cmocka_unit_test(test_create_rejects_bad_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
