/* job_bench.c — bench_job: the main-thread scheduler, the mailbox, job
 * latency and parallel speed-up.
 *
 * Baselines are the obvious way to do the same with a mutex: a mutex-guarded
 * ring of the same capacity (drained by copying the pending tasks out under
 * the lock), a mutex-guarded single slot (memcpy in, memcpy out), a thread
 * created and joined per task, and a static split of the work over two
 * threads. Rounds are interleaved, values are medians.
 * The channel benchmarks run before the job system exists, so its idle
 * workers cannot take CPU from them.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "zengine/job.h"
#include "zengine/mem.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    int rc = pthread_create(t, NULL, fn, arg);
    ZE_VERIFY_MSG(rc == 0, "job_bench: pthread_create failed");
}

/* --------------------------------------------- mpsc: scheduler vs mutex ring */

/* The two queues behind one interface, so both pay the same indirect call. */
typedef struct queue_ops_t {
    ze_result (*post)(void *q, ze_task_fn fn, void *ctx);
    uint32_t (*drain)(void *q);
} queue_ops_t;

static ze_result sched_post(void *q, ze_task_fn fn, void *ctx)
{
    return ze_main_scheduler_post(q, fn, ctx);
}
static uint32_t sched_drain(void *q)
{
    return ze_main_scheduler_drain(q);
}
static const queue_ops_t sched_ops = {sched_post, sched_drain};

enum { RING_CAPACITY = ZE_MAIN_SCHEDULER_SLOTS };

typedef struct ring_task_t {
    ze_task_fn fn;
    void *ctx;
} ring_task_t;

typedef struct mutex_ring_t {
    pthread_mutex_t lock;
    uint32_t head, tail; /* free-running; tail - head = pending */
    ring_task_t slots[RING_CAPACITY];
} mutex_ring_t;

static ze_result ring_post(void *q, ze_task_fn fn, void *ctx)
{
    mutex_ring_t *r = q;
    pthread_mutex_lock(&r->lock);
    if (r->tail - r->head == RING_CAPACITY) {
        pthread_mutex_unlock(&r->lock);
        return ZE_ERR_FULL;
    }
    r->slots[r->tail % RING_CAPACITY] = (ring_task_t){fn, ctx};
    r->tail++;
    pthread_mutex_unlock(&r->lock);
    return ZE_OK;
}

/* Copy out under the lock, run outside it (a task may post). */
static uint32_t ring_drain(void *q)
{
    mutex_ring_t *r = q;
    ring_task_t batch[RING_CAPACITY];
    pthread_mutex_lock(&r->lock);
    uint32_t n = r->tail - r->head;
    for (uint32_t i = 0; i < n; i++)
        batch[i] = r->slots[(r->head + i) % RING_CAPACITY];
    r->head += n;
    pthread_mutex_unlock(&r->lock);
    for (uint32_t i = 0; i < n; i++)
        batch[i].fn(batch[i].ctx);
    return n;
}
static const queue_ops_t ring_ops = {ring_post, ring_drain};

typedef struct mpsc_ctx_t {
    const queue_ops_t *ops;
    void *queue;
    uint32_t producers;
    uint64_t tasks;    /* per round, over all producers */
    uint64_t executed; /* owner thread only (tasks increment it) */
    uint64_t full;     /* posts refused because the ring was full */
    atomic_uint ready;
    atomic_bool go;
} mpsc_ctx_t;

typedef struct mpsc_producer_t {
    mpsc_ctx_t *ctx;
    uint64_t count;
    uint64_t full;
} mpsc_producer_t;

static void mpsc_task(void *ctx)
{
    (*(uint64_t *)ctx)++;
}

static void *mpsc_producer(void *p)
{
    mpsc_producer_t *t = p;
    mpsc_ctx_t *c = t->ctx;
    atomic_fetch_add_explicit(&c->ready, 1, memory_order_release);
    while (!atomic_load_explicit(&c->go, memory_order_acquire))
        cpu_relax();
    for (uint64_t i = 0; i < t->count; i++) {
        /* A full ring is the poster's problem: back off and retry. */
        while (c->ops->post(c->queue, mpsc_task, &c->executed) != ZE_OK) {
            t->full++;
            sched_yield();
        }
    }
    return NULL;
}

/* ns per task, from the start signal to the last task run by the owner. */
static double mpsc_round(void *p)
{
    mpsc_ctx_t *c = p;
    pthread_t threads[2];
    mpsc_producer_t prod[2];
    c->executed = 0;
    atomic_store(&c->ready, 0);
    atomic_store(&c->go, false);
    for (uint32_t i = 0; i < c->producers; i++) {
        prod[i] = (mpsc_producer_t){c, c->tasks / c->producers, 0};
        start_thread(&threads[i], mpsc_producer, &prod[i]);
    }
    while (atomic_load_explicit(&c->ready, memory_order_acquire) < c->producers)
        sched_yield();
    uint64_t t0 = ze_bench_now_ns();
    atomic_store_explicit(&c->go, true, memory_order_release);
    while (c->executed < c->tasks) {
        if (c->ops->drain(c->queue) == 0)
            sched_yield(); /* same back-off for both queues */
    }
    uint64_t t1 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->producers; i++) {
        pthread_join(threads[i], NULL);
        c->full += prod[i].full;
    }
    return (double)(t1 - t0) / (double)c->tasks;
}

/* Single thread: the owner fills the ring and drains it, the cost of the
 * channel without contention (a frame posts a few, drains once). */
static double mpsc_st_round(void *p)
{
    mpsc_ctx_t *c = p;
    c->executed = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t done = 0; done < c->tasks; done += RING_CAPACITY) {
        for (uint32_t i = 0; i < RING_CAPACITY; i++)
            if (c->ops->post(c->queue, mpsc_task, &c->executed) != ZE_OK)
                c->full++;
        c->ops->drain(c->queue);
    }
    uint64_t t1 = ze_bench_now_ns();
    return c->executed == c->tasks ? (double)(t1 - t0) / (double)c->tasks : NAN;
}

/* producers 0: mpsc_st_round; else that many producer threads. */
static void bench_mpsc(ze_bench_t *b, ze_mem_t *mm, uint32_t producers)
{
    char name[ZE_BENCH_NAME_MAX];
    if (producers)
        snprintf(name, sizeof(name), "mpsc_post_drain_%up", producers);
    else
        snprintf(name, sizeof(name), "mpsc_post_drain_st");
    if (!ze_bench_enabled(b, name))
        return;
    ze_main_scheduler_t *sched = NULL;
    ze_result res = ze_main_scheduler_create(
        &(ze_main_scheduler_desc_t){.mem = mm, .capacity = RING_CAPACITY}, &sched);
    if (res != ZE_OK) {
        ze_bench_fail(b, name, "ze_main_scheduler_create: %s", ze_result_str(res));
        return;
    }
    mutex_ring_t *ring = ZE_NEW(ze_mem_system_allocator(), mutex_ring_t);
    ZE_VERIFY(ring != NULL);
    memset(ring, 0, sizeof(*ring));
    pthread_mutex_init(&ring->lock, NULL);

    uint64_t tasks = ze_bench_size(b, 1024 * 1024, 10 * 1024);
    uint32_t rounds = ze_bench_rounds(b, 9);
    mpsc_ctx_t sc = {.ops = &sched_ops, .queue = sched, .producers = producers, .tasks = tasks};
    mpsc_ctx_t rc = {.ops = &ring_ops, .queue = ring, .producers = producers, .tasks = tasks};
    ze_bench_round_fn round = producers ? mpsc_round : mpsc_st_round;
    ze_bench_pair_t r = ze_bench_compare(rounds, round, &sc, round, &rc);
    ze_main_scheduler_stats_t st = ze_main_scheduler_stats(sched);
    uint64_t expected = tasks * (rounds + 1); /* compare adds a warm-up round */
    printf("  %s: scheduler posted %llu, executed %llu, rejected %llu (ring full); "
           "mutex ring full %llu times\n",
           name, (unsigned long long)st.posted, (unsigned long long)st.executed,
           (unsigned long long)st.rejected, (unsigned long long)rc.full);
    if (st.executed != expected || isnan(r.value) || isnan(r.baseline))
        ze_bench_fail(b, name, "scheduler executed %llu of %llu tasks",
                      (unsigned long long)st.executed, (unsigned long long)expected);
    else
        ze_bench_add(b, name, tasks, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline, ZE_BENCH_NONE);
    pthread_mutex_destroy(&ring->lock);
    ze_free(ze_mem_system_allocator(), ring, sizeof(*ring));
    ze_main_scheduler_destroy(sched);
}

/* ------------------------------------------- mailbox vs mutex-guarded slot */

enum { PAYLOAD_SIZE = 256 }; /* a camera, a resize, a few flags */

typedef struct payload_t {
    uint64_t seq;
    uint8_t bytes[PAYLOAD_SIZE - sizeof(uint64_t)];
} payload_t;

typedef struct mutex_slot_t {
    pthread_mutex_t lock;
    uint64_t seq;
    payload_t data;
} mutex_slot_t;

typedef struct mailbox_ctx_t {
    ze_mem_t *mm;
    ze_mailbox_t *mb;   /* single-threaded rounds */
    mutex_slot_t *slot; /* baseline */
    uint64_t count;     /* publishes per round */
    payload_t src;
    uint64_t taken; /* distinct payloads the reader saw (2 threads) */
    uint64_t checksum;
    bool failed;
    atomic_bool writer_done;
    atomic_uint ready;
} mailbox_ctx_t;

static bool mailbox_write(ze_mailbox_t *mb, payload_t *src, uint64_t i)
{
    ze_arena_t *arena = ze_mailbox_begin_write(mb);
    if (!arena)
        return false;
    payload_t *p = ze_arena_push(arena, sizeof(payload_t), 16);
    if (!p) {
        ze_mailbox_cancel(mb);
        return false;
    }
    src->seq = i;
    memcpy(p, src, sizeof(*p));
    ze_mailbox_publish(mb, p, sizeof(*p));
    return true;
}

static void slot_write(mutex_slot_t *s, payload_t *src, uint64_t i)
{
    src->seq = i;
    pthread_mutex_lock(&s->lock);
    memcpy(&s->data, src, sizeof(s->data));
    s->seq++;
    pthread_mutex_unlock(&s->lock);
}

/* The reader copies out under the lock: the writer may overwrite the slot
 * as soon as it is released. Returns true when the payload was new. */
static bool slot_read(mutex_slot_t *s, uint64_t *last_seq, payload_t *out)
{
    bool fresh = false;
    pthread_mutex_lock(&s->lock);
    if (s->seq != *last_seq) {
        memcpy(out, &s->data, sizeof(*out));
        *last_seq = s->seq;
        fresh = true;
    }
    pthread_mutex_unlock(&s->lock);
    return fresh;
}

/* One op = publish one payload, then take it, on one thread. */
static double mailbox_alt_round(void *p)
{
    mailbox_ctx_t *c = p;
    uint64_t sum = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 1; i <= c->count; i++) {
        if (!mailbox_write(c->mb, &c->src, i)) {
            c->failed = true;
            return NAN;
        }
        const payload_t *got = ze_mailbox_take(c->mb, NULL, NULL);
        if (!got) {
            c->failed = true;
            return NAN;
        }
        sum += got->seq + got->bytes[i % sizeof(got->bytes)];
    }
    uint64_t t1 = ze_bench_now_ns();
    c->checksum += sum;
    return (double)(t1 - t0) / (double)c->count;
}

static double slot_alt_round(void *p)
{
    mailbox_ctx_t *c = p;
    payload_t local;
    uint64_t last = c->slot->seq, sum = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 1; i <= c->count; i++) {
        slot_write(c->slot, &c->src, i);
        if (!slot_read(c->slot, &last, &local)) {
            c->failed = true;
            return NAN;
        }
        sum += local.seq + local.bytes[i % sizeof(local.bytes)];
    }
    uint64_t t1 = ze_bench_now_ns();
    c->checksum += sum;
    return (double)(t1 - t0) / (double)c->count;
}

/* Two threads: the writer publishes as fast as it can while the reader keeps
 * taking the newest payload; time per publish. */
typedef struct mailbox_reader_t {
    mailbox_ctx_t *ctx;
    ze_mailbox_t *mb;
} mailbox_reader_t;

static void *mailbox_reader(void *p)
{
    mailbox_reader_t *rd = p;
    mailbox_ctx_t *c = rd->ctx;
    uint64_t last = 0, taken = 0, sum = 0;
    atomic_fetch_add_explicit(&c->ready, 1, memory_order_release);
    for (;;) {
        bool done = atomic_load_explicit(&c->writer_done, memory_order_acquire);
        uint64_t seq = 0;
        const payload_t *got = ze_mailbox_take(rd->mb, NULL, &seq);
        if (got && seq != last) {
            last = seq;
            taken++;
            sum += got->seq + got->bytes[seq % sizeof(got->bytes)];
        }
        /* Once the writer is done, the newest payload must be the last. */
        if (done) {
            if (!got || got->seq != c->count)
                c->failed = true;
            break;
        }
    }
    c->taken += taken;
    c->checksum += sum;
    return NULL;
}

static void *slot_reader(void *p)
{
    mailbox_ctx_t *c = p;
    payload_t local = {0};
    uint64_t last = 0, taken = 0, sum = 0;
    atomic_fetch_add_explicit(&c->ready, 1, memory_order_release);
    for (;;) {
        bool done = atomic_load_explicit(&c->writer_done, memory_order_acquire);
        if (slot_read(c->slot, &last, &local)) {
            taken++;
            sum += local.seq + local.bytes[local.seq % sizeof(local.bytes)];
        }
        if (done) {
            if (local.seq != c->count)
                c->failed = true;
            break;
        }
    }
    c->taken += taken;
    c->checksum += sum;
    return NULL;
}

static double mailbox_2t_round(void *p)
{
    mailbox_ctx_t *c = p;
    /* A fresh mailbox per round: its reader and writer threads are new. */
    ze_mailbox_t *mb = NULL;
    if (ze_mailbox_create(&(ze_mailbox_desc_t){.mem = c->mm, .slot_arena_size = ZE_KIB(64)}, &mb) !=
        ZE_OK) {
        c->failed = true;
        return NAN;
    }
    mailbox_reader_t rd = {c, mb};
    pthread_t reader;
    atomic_store(&c->writer_done, false);
    atomic_store(&c->ready, 0);
    start_thread(&reader, mailbox_reader, &rd);
    while (atomic_load_explicit(&c->ready, memory_order_acquire) == 0)
        sched_yield();
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 1; i <= c->count; i++) {
        if (!mailbox_write(mb, &c->src, i)) {
            c->failed = true;
            break;
        }
    }
    uint64_t t1 = ze_bench_now_ns();
    atomic_store_explicit(&c->writer_done, true, memory_order_release);
    pthread_join(reader, NULL);
    ze_mailbox_destroy(mb);
    return c->failed ? NAN : (double)(t1 - t0) / (double)c->count;
}

static double slot_2t_round(void *p)
{
    mailbox_ctx_t *c = p;
    pthread_t reader;
    c->slot->seq = 0;
    atomic_store(&c->writer_done, false);
    atomic_store(&c->ready, 0);
    start_thread(&reader, slot_reader, c);
    while (atomic_load_explicit(&c->ready, memory_order_acquire) == 0)
        sched_yield();
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 1; i <= c->count; i++)
        slot_write(c->slot, &c->src, i);
    uint64_t t1 = ze_bench_now_ns();
    atomic_store_explicit(&c->writer_done, true, memory_order_release);
    pthread_join(reader, NULL);
    return (double)(t1 - t0) / (double)c->count;
}

static void bench_mailbox(ze_bench_t *b, ze_mem_t *mm)
{
    mutex_slot_t *slot = ZE_NEW(ze_mem_system_allocator(), mutex_slot_t);
    ZE_VERIFY(slot != NULL);
    memset(slot, 0, sizeof(*slot));
    pthread_mutex_init(&slot->lock, NULL);
    mailbox_ctx_t mc = {.mm = mm, .slot = slot};
    mailbox_ctx_t sc = {.mm = mm, .slot = slot};
    for (size_t i = 0; i < sizeof(mc.src.bytes); i++)
        mc.src.bytes[i] = sc.src.bytes[i] = (uint8_t)(i * 31);

    const char *name = "mailbox_publish_take";
    if (ze_bench_enabled(b, name)) {
        ze_result res = ze_mailbox_create(
            &(ze_mailbox_desc_t){.mem = mm, .slot_arena_size = ZE_KIB(64)}, &mc.mb);
        if (res != ZE_OK) {
            ze_bench_fail(b, name, "ze_mailbox_create: %s", ze_result_str(res));
        } else {
            mc.count = sc.count = ze_bench_size(b, 1000000, 10000);
            ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), mailbox_alt_round, &mc,
                                                 slot_alt_round, &sc);
            if (mc.failed || sc.failed)
                ze_bench_fail(b, name, "a publish or take failed");
            else
                ze_bench_add(b, name, mc.count, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline,
                             ZE_BENCH_NONE);
            ze_mailbox_destroy(mc.mb);
            mc.mb = NULL;
        }
    }

    name = "mailbox_publish_take_2t";
    if (ze_bench_enabled(b, name)) {
        mc.count = sc.count = ze_bench_size(b, 1000000, 10000);
        mc.taken = sc.taken = 0;
        uint32_t rounds = ze_bench_rounds(b, 9);
        ze_bench_pair_t r = ze_bench_compare(rounds, mailbox_2t_round, &mc, slot_2t_round, &sc);
        /* compare runs one warm-up round of each on top of `rounds`. The
         * share of payloads the reader saw matters as much as the writer's
         * speed: a mutex writer is fast when it starves its reader. */
        double seen_mb = (double)mc.taken / (double)(mc.count * (rounds + 1));
        double seen_slot = (double)sc.taken / (double)(sc.count * (rounds + 1));
        if (mc.failed || sc.failed) {
            ze_bench_fail(b, name, "a publish failed or the reader missed the last payload");
        } else {
            ze_bench_add(b, name, mc.count, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline,
                         ZE_BENCH_NONE);
            ze_bench_add(b, "mailbox_publish_take_2t_seen", mc.count, "ratio", ZE_BENCH_HIGHER,
                         seen_mb, seen_slot, ZE_BENCH_NONE);
        }
    }
    ze_bench_use_u64(mc.checksum + sc.checksum);
    pthread_mutex_destroy(&slot->lock);
    ze_free(ze_mem_system_allocator(), slot, sizeof(*slot));
}

/* ---------------------------------------------------- job_empty_latency */

/* Submit one empty job and wait for it, again and again. The baseline is
 * what code without a pool does to run something on another thread:
 * pthread_create + pthread_join. It is a low bar, kept because it is the
 * honest alternative; the absolute figure is the one to watch. ze_job_wait
 * may run the job itself (the waiter helps), so the stats of who ran the
 * jobs are printed next to the row. */
typedef struct latency_ctx_t {
    ze_job_system_t *js;
    uint64_t count;
} latency_ctx_t;

static void empty_job(void *ctx)
{
    ze_bench_do_not_optimize(ctx);
}

static void *empty_thread(void *ctx)
{
    ze_bench_do_not_optimize(ctx);
    return NULL;
}

static double job_latency_round(void *p)
{
    latency_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->count; i++) {
        ze_wait_group_t wg;
        ze_wait_group_init(&wg);
        ze_job_submit(c->js, empty_job, NULL, &wg);
        ze_job_wait(c->js, &wg);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->count;
}

static double thread_latency_round(void *p)
{
    latency_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint64_t i = 0; i < c->count; i++) {
        pthread_t t;
        start_thread(&t, empty_thread, NULL);
        pthread_join(t, NULL);
    }
    return (double)(ze_bench_now_ns() - t0) / (double)c->count;
}

static void bench_job_latency(ze_bench_t *b, ze_job_system_t *js)
{
    const char *name = "job_empty_latency";
    if (!ze_bench_enabled(b, name))
        return;
    latency_ctx_t jc = {js, ze_bench_size(b, 200000, 2000)};
    latency_ctx_t tc = {js, ze_bench_size(b, 5000, 200)};
    ze_job_stats_t before = ze_job_system_stats(js);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 9), job_latency_round, &jc, thread_latency_round, &tc);
    ze_job_stats_t after = ze_job_system_stats(js);
    printf("  %s: jobs run by workers %llu, by the waiting thread %llu, inline %llu\n", name,
           (unsigned long long)(after.executed_by_workers - before.executed_by_workers),
           (unsigned long long)(after.executed_by_waiters - before.executed_by_waiters),
           (unsigned long long)(after.executed_inline - before.executed_inline));
    ze_bench_add(b, name, jc.count, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline, ZE_BENCH_NONE);
}

/* ----------------------------------------------------- parallel_speedup */

/* A job set of JOBS independent pieces of pure arithmetic (~50 us each), as
 * one frame's parallel work. T1: all on the calling thread. Tpool: submitted
 * to the pool, the calling thread waits (and helps). T2: split in equal
 * halves over two plain pthreads that live across rounds, woken with a
 * semaphore each while the calling thread waits: the hand-written static
 * split, the best case for two threads. (Threads created per frame are no
 * baseline at all: on the 2-core VM this was written on, a new thread starts
 * on its creator's CPU and is not migrated within a 3 ms frame, so the split
 * ran no faster than T1.) speed-up relative to the two-thread split =
 * (T1/Tpool)/(T1/T2) = T2/Tpool, per round, median. */
enum { JOBS = 64 };

typedef ze_bench_spin_item_t work_item_t;

static void work_job(void *ctx)
{
    work_item_t *w = ctx;
    w->result = ze_bench_spin_work(w->seed, w->iters);
}

static void run_items(work_item_t *items, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; i++)
        work_job(&items[i]);
}

/* One half of the job set, for one of the two plain threads. */
typedef struct half_t {
    work_item_t *items;
    uint32_t begin, end;
} half_t;

static void run_half(void *p)
{
    half_t *h = p;
    run_items(h->items, h->begin, h->end);
}

typedef struct speedup_ctx_t {
    ze_job_system_t *js;
    half_t halves[2];
    ze_bench_thread_pair_t threads;
    work_item_t items[JOBS];
} speedup_ctx_t;

static void halves_start(speedup_ctx_t *c)
{
    for (uint32_t i = 0; i < 2; i++) {
        half_t *h = &c->halves[i];
        h->items = c->items;
        h->begin = i * (JOBS / 2);
        h->end = h->begin + JOBS / 2;
    }
    ze_bench_thread_pair_start(&c->threads, run_half, &c->halves[0], &c->halves[1]);
}

static double time_serial(void *p)
{
    speedup_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    run_items(c->items, 0, JOBS);
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static double time_pool(void *p)
{
    speedup_ctx_t *c = p;
    ze_wait_group_t wg;
    ze_wait_group_init(&wg);
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < JOBS; i++)
        ze_job_submit(c->js, work_job, &c->items[i], &wg);
    ze_job_wait(c->js, &wg);
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static double time_two_threads(void *p)
{
    speedup_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    ze_bench_thread_pair_run(&c->threads);
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static void bench_speedup(ze_bench_t *b, ze_job_system_t *js, uint32_t iters)
{
    const char *name = "parallel_speedup";
    if (!ze_bench_enabled(b, name) && !ze_bench_enabled(b, "parallel_serial") &&
        !ze_bench_enabled(b, "parallel_pool"))
        return;
    speedup_ctx_t *c = ZE_NEW(ze_mem_system_allocator(), speedup_ctx_t);
    ZE_VERIFY(c != NULL);
    memset(c, 0, sizeof(*c));
    c->js = js;
    for (uint32_t i = 0; i < JOBS; i++)
        c->items[i] = (work_item_t){.seed = i * 0x9e3779b97f4a7c15ULL + 1, .iters = iters};

    halves_start(c);
    ze_bench_load_t load;
    ze_bench_load_begin(&load);
    ze_bench_speedup_t sp = ze_bench_speedup_rounds(ze_bench_rounds(b, 21), time_serial, time_pool,
                                                    time_two_threads, c);
    double m1 = sp.serial, mp = sp.pool, m2 = sp.threads, mr = sp.ratio;
    double other = ze_bench_load_end(&load);
    if (other > 0.25)
        printf("  %s: WARNING: other processes kept %.2f CPUs busy meanwhile\n", name, other);
    printf("  %s: %d jobs of %.1f us; T1 %.3f ms, Tpool %.3f ms, T2 %.3f ms; "
           "pool speed-up %.2fx (%u workers + the waiting thread), two threads %.2fx\n",
           name, JOBS, m1 * 1e3 / JOBS, m1, mp, m2, m1 / mp, ze_job_worker_count(js), m1 / m2);
    /* "frame" = the whole job set */
    ze_bench_add(b, "parallel_serial", JOBS, "ms/frame", ZE_BENCH_LOWER, m1, ZE_BENCH_NONE,
                 ZE_BENCH_NONE);
    ze_bench_add(b, "parallel_pool", JOBS, "ms/frame", ZE_BENCH_LOWER, mp, m2, ZE_BENCH_NONE);
    ze_bench_add(b, name, JOBS, "ratio", ZE_BENCH_HIGHER, mr, ZE_BENCH_NONE, 0.9);
    ze_bench_thread_pair_stop(&c->threads);
    ze_free(ze_mem_system_allocator(), c, sizeof(*c));
}

/* -------------------------------------------------------------------- main */

static void *noop_thread(void *arg)
{
    return arg;
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "job", argc, argv);
    ze_mem_t *mm = NULL;
    ze_result res = ze_mem_create(&(ze_mem_desc_t){0}, &mm);
    if (res != ZE_OK) {
        ze_bench_fail(&b, "setup", "ze_mem_create: %s", ze_result_str(res));
        return ze_bench_finish(&b);
    }

    /* glibc skips the atomics of its mutexes while a process has never had a
     * second thread; the engine always has several, so make the baselines
     * pay what they would pay in the engine. */
    pthread_t warm;
    ZE_VERIFY(pthread_create(&warm, NULL, noop_thread, NULL) == 0);
    pthread_join(warm, NULL);

    /* Channels first, with no pool alive. */
    bench_mpsc(&b, mm, 0);
    bench_mpsc(&b, mm, 1);
    bench_mpsc(&b, mm, 2);
    bench_mailbox(&b, mm);

    /* Calibrate before the pool exists, then check that an idle pool does
     * not slow a single thread down (spinning workers would, on 2 cores). */
    uint32_t iters = ze_bench_spin_calibrate(ze_bench_size(&b, 50000, 5000));
    double alone[5];
    speedup_ctx_t *probe = ZE_NEW(ze_mem_system_allocator(), speedup_ctx_t);
    ZE_VERIFY(probe != NULL);
    memset(probe, 0, sizeof(*probe));
    for (uint32_t i = 0; i < JOBS; i++)
        probe->items[i] = (work_item_t){.seed = i + 1, .iters = iters};
    for (int i = 0; i < 5; i++)
        alone[i] = time_serial(probe);

    ze_job_system_t *js = NULL;
    res = ze_job_system_create(&(ze_job_system_desc_t){.mem = mm}, &js);
    if (res != ZE_OK) {
        ze_bench_fail(&b, "setup", "ze_job_system_create: %s", ze_result_str(res));
    } else {
        double with_pool[5];
        for (int i = 0; i < 5; i++)
            with_pool[i] = time_serial(probe);
        double a = ze_bench_median(alone, 5), w = ze_bench_median(with_pool, 5);
        printf("  serial job set: %.3f ms before the pool existed, %.3f ms with it idle%s\n", a, w,
               w > a * 1.1 ? "  <-- idle workers cost CPU" : "");
        bench_job_latency(&b, js);
        bench_speedup(&b, js, iters);
        ze_job_system_destroy(js);
    }
    ze_free(ze_mem_system_allocator(), probe, sizeof(*probe));
    ze_mem_destroy(mm);
    return ze_bench_finish(&b);
}
