/* MainThreadScheduler: posting order, the full ring, tasks posted during a
 * drain, shutdown with pending tasks, and a multi-producer stress run that
 * checks every task runs exactly once and in per-producer order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "zengine/job.h"

typedef struct world_t {
    ze_mem_t *mm;
    ze_main_scheduler_t *s;
} world_t;

static world_t world_new(uint32_t capacity)
{
    world_t w = {0};
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &w.mm), ZE_OK);
    ze_main_scheduler_desc_t d = {.mem = w.mm, .capacity = capacity};
    assert_int_equal(ze_main_scheduler_create(&d, &w.s), ZE_OK);
    return w;
}

static void world_free(world_t *w)
{
    ze_main_scheduler_destroy(w->s);
    ze_mem_destroy(w->mm);
}

/* Appends its index to a log, so order is visible. */
typedef struct order_log_t {
    uint32_t got[1024];
    uint32_t n;
} order_log_t;

typedef struct order_task_t {
    order_log_t *log;
    uint32_t index;
} order_task_t;

static void record(void *arg)
{
    order_task_t *t = arg;
    t->log->got[t->log->n++] = t->index;
}

static void test_runs_in_posting_order(void **state)
{
    (void)state;
    world_t w = world_new(0);
    order_log_t log = {0};
    order_task_t tasks[100];
    for (uint32_t i = 0; i < 100; i++) {
        tasks[i] = (order_task_t){&log, i};
        assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[i]), ZE_OK);
    }
    assert_int_equal(log.n, 0); /* nothing runs before the drain */
    assert_int_equal(ze_main_scheduler_drain(w.s), 100);
    assert_int_equal(log.n, 100);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(log.got[i], i);
    assert_int_equal(ze_main_scheduler_drain(w.s), 0);
    world_free(&w);
}

static void test_full_ring_is_an_error(void **state)
{
    (void)state;
    world_t w = world_new(0); /* default: 512 */
    order_log_t log = {0};
    order_task_t tasks[ZE_MAIN_SCHEDULER_SLOTS + 1];
    for (uint32_t i = 0; i <= ZE_MAIN_SCHEDULER_SLOTS; i++)
        tasks[i] = (order_task_t){&log, i};
    for (uint32_t i = 0; i < ZE_MAIN_SCHEDULER_SLOTS; i++)
        assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[i]), ZE_OK);
    assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[512]), ZE_ERR_FULL);
    assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[512]), ZE_ERR_FULL);
    ze_main_scheduler_stats_t st = ze_main_scheduler_stats(w.s);
    assert_int_equal(st.posted, 512);
    assert_int_equal(st.rejected, 2);
    assert_int_equal(st.executed, 0);
    /* The rejected task was not queued: exactly 512 run. */
    assert_int_equal(ze_main_scheduler_drain(w.s), 512);
    assert_int_equal(log.n, 512);
    assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[512]), ZE_OK);
    assert_int_equal(ze_main_scheduler_drain(w.s), 1);
    assert_int_equal(log.got[512], 512);
    st = ze_main_scheduler_stats(w.s);
    assert_int_equal(st.posted, 513);
    assert_int_equal(st.executed, 513);
    world_free(&w);
}

/* Many laps around a small ring, with the ring full at each drain. */
static void test_many_laps(void **state)
{
    (void)state;
    world_t w = world_new(4);
    order_log_t log = {0};
    order_task_t tasks[5];
    for (uint32_t i = 0; i < 5; i++)
        tasks[i] = (order_task_t){&log, i};
    for (int lap = 0; lap < 200; lap++) {
        log.n = 0;
        for (uint32_t i = 0; i < 4; i++)
            assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[i]), ZE_OK);
        assert_int_equal(ze_main_scheduler_post(w.s, record, &tasks[4]), ZE_ERR_FULL);
        assert_int_equal(ze_main_scheduler_drain(w.s), 4);
        for (uint32_t i = 0; i < 4; i++)
            assert_int_equal(log.got[i], i);
    }
    ze_main_scheduler_stats_t st = ze_main_scheduler_stats(w.s);
    assert_int_equal(st.posted, 800);
    assert_int_equal(st.executed, 800);
    assert_int_equal(st.rejected, 200);
    world_free(&w);
}

typedef struct repost_t {
    ze_main_scheduler_t *s;
    int first_runs;
    int second_runs;
} repost_t;

static void second_task(void *arg)
{
    repost_t *r = arg;
    r->second_runs++;
}

static void first_task(void *arg)
{
    repost_t *r = arg;
    r->first_runs++;
    assert_int_equal(ze_main_scheduler_post(r->s, second_task, r), ZE_OK);
}

static void test_task_posted_during_drain_runs_next_drain(void **state)
{
    (void)state;
    world_t w = world_new(2); /* the repost reuses the slot being drained */
    repost_t r = {.s = w.s};
    assert_int_equal(ze_main_scheduler_post(w.s, first_task, &r), ZE_OK);
    assert_int_equal(ze_main_scheduler_post(w.s, first_task, &r), ZE_OK);
    assert_int_equal(ze_main_scheduler_drain(w.s), 2);
    assert_int_equal(r.first_runs, 2);
    assert_int_equal(r.second_runs, 0);
    assert_int_equal(ze_main_scheduler_drain(w.s), 2);
    assert_int_equal(r.second_runs, 2);
    assert_int_equal(ze_main_scheduler_drain(w.s), 0);
    world_free(&w);
}

typedef struct capture_t {
    int matches;
} capture_t;

static void capture_sink(void *user, const ze_log_record_t *rec)
{
    capture_t *c = user;
    if (strstr(rec->message, "discarding 10 pending"))
        c->matches++;
}

static void count_task(void *arg)
{
    (*(int *)arg)++;
}

static void test_destroy_discards_pending(void **state)
{
    (void)state;
    world_t w = world_new(0);
    int ran = 0;
    for (int i = 0; i < 12; i++)
        assert_int_equal(ze_main_scheduler_post(w.s, count_task, &ran), ZE_OK);
    assert_int_equal(ze_main_scheduler_drain(w.s), 12);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ze_main_scheduler_post(w.s, count_task, &ran), ZE_OK);
    capture_t cap = {0};
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_INFO,
                                      .explicit_level = true,
                                      .quiet = true,
                                      .sink = capture_sink,
                                      .sink_user = &cap});
    world_free(&w);
    ze_log_reset();
    assert_int_equal(ran, 12); /* discarded, not run */
    assert_int_equal(cap.matches, 1);
}

static void test_create_rejects_bad_capacity(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    ze_main_scheduler_t *s = NULL;
    static const uint32_t bad[] = {1, 3, 300, 513};
    for (size_t i = 0; i < ZE_COUNTOF(bad); i++) {
        ze_main_scheduler_desc_t d = {.mem = mm, .capacity = bad[i]};
        assert_int_equal(ze_main_scheduler_create(&d, &s), ZE_ERR_INVALID_ARG);
        assert_null(s);
    }
    /* Slots come from the owner named in the desc. */
    ze_mem_owner_stats_t before = ze_mem_owner_stats(mm, ZE_MEM_OWNER_UI);
    ze_main_scheduler_desc_t d = {.mem = mm, .owner = ZE_MEM_OWNER_UI, .capacity = 4096};
    assert_int_equal(ze_main_scheduler_create(&d, &s), ZE_OK);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_UI).current > before.current);
    ze_main_scheduler_destroy(s);
    ze_mem_destroy(mm);
}

/* ------------------------------------------------------------- stress */

#ifdef ZE_SANITIZER_THREAD
enum { PRODUCERS = 4, PER_PRODUCER = 250000 }; /* still 10^6 posts */
#else
enum { PRODUCERS = 4, PER_PRODUCER = 500000 };
#endif

typedef struct stress_t stress_t;

/* What a task carries: who posted it and its rank in that producer's
 * stream. Built before the threads start, read-only afterwards. */
typedef struct ticket_t {
    stress_t *st;
    uint32_t producer;
    uint32_t seq;
} ticket_t;

struct stress_t {
    ze_main_scheduler_t *s;
    ticket_t *tickets; /* PRODUCERS x PER_PRODUCER */
    /* Owner thread only (tasks run there). */
    uint32_t expected[PRODUCERS];
    uint64_t ran;
    uint64_t out_of_order;
    /* Producers. */
    atomic_uint_least64_t rejections;
    atomic_uint post_errors;
};

static void stress_task(void *arg)
{
    ticket_t *t = arg;
    stress_t *st = t->st;
    /* Seeing exactly 0, 1, 2... per producer proves no loss, no duplicate
     * and no reordering at once. Resynchronise so one fault is counted once. */
    if (t->seq != st->expected[t->producer])
        st->out_of_order++;
    st->expected[t->producer] = t->seq + 1;
    st->ran++;
}

typedef struct producer_arg_t {
    stress_t *st;
    uint32_t id;
} producer_arg_t;

static void *producer_main(void *arg)
{
    producer_arg_t *p = arg;
    stress_t *st = p->st;
    ticket_t *mine = st->tickets + (size_t)p->id * PER_PRODUCER;
    uint64_t rejected = 0;
    for (uint32_t i = 0; i < PER_PRODUCER; i++) {
        ze_result r;
        while ((r = ze_main_scheduler_post(st->s, stress_task, &mine[i])) == ZE_ERR_FULL) {
            rejected++;
            sched_yield(); /* the owner needs the core to drain */
        }
        if (r != ZE_OK)
            atomic_fetch_add(&st->post_errors, 1);
    }
    atomic_fetch_add(&st->rejections, rejected);
    return NULL;
}

static void test_stress_many_producers(void **state)
{
    (void)state;
    world_t w = world_new(0);
    const size_t total = (size_t)PRODUCERS * PER_PRODUCER;
    /* Tens of MiB of tickets: an arena of the test's own owner. */
    ze_arena_t arena;
    assert_int_equal(ze_arena_init(&arena, w.mm, ZE_MEM_OWNER_GAME, sizeof(ticket_t) * total),
                     ZE_OK);
    stress_t st = {.s = w.s};
    atomic_init(&st.rejections, 0);
    atomic_init(&st.post_errors, 0);
    st.tickets = ZE_ARENA_NEW_ARRAY(&arena, ticket_t, total);
    assert_non_null(st.tickets);
    for (uint32_t p = 0; p < PRODUCERS; p++)
        for (uint32_t i = 0; i < PER_PRODUCER; i++)
            st.tickets[(size_t)p * PER_PRODUCER + i] = (ticket_t){&st, p, i};

    pthread_t threads[PRODUCERS];
    producer_arg_t args[PRODUCERS];
    for (uint32_t p = 0; p < PRODUCERS; p++) {
        args[p] = (producer_arg_t){&st, p};
        assert_int_equal(pthread_create(&threads[p], NULL, producer_main, &args[p]), 0);
    }
    /* This thread created the scheduler: it is the owner and drains while the
     * producers post. */
    uint64_t drained = 0;
    while (drained < total) {
        uint32_t n = ze_main_scheduler_drain(w.s);
        drained += n;
        if (n == 0)
            sched_yield();
    }
    for (uint32_t p = 0; p < PRODUCERS; p++)
        pthread_join(threads[p], NULL);
    assert_int_equal(ze_main_scheduler_drain(w.s), 0);

    assert_int_equal(atomic_load(&st.post_errors), 0);
    assert_int_equal(st.out_of_order, 0);
    assert_int_equal(st.ran, total);
    for (uint32_t p = 0; p < PRODUCERS; p++)
        assert_int_equal(st.expected[p], PER_PRODUCER);
    ze_main_scheduler_stats_t s = ze_main_scheduler_stats(w.s);
    assert_int_equal(s.posted, total);
    assert_int_equal(s.executed, s.posted);
    assert_int_equal(s.rejected, atomic_load(&st.rejections));
    ze_arena_release(&arena);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_in_posting_order),
        cmocka_unit_test(test_full_ring_is_an_error),
        cmocka_unit_test(test_many_laps),
        cmocka_unit_test(test_task_posted_during_drain_runs_next_drain),
        cmocka_unit_test(test_destroy_discards_pending),
        cmocka_unit_test(test_create_rejects_bad_capacity),
        cmocka_unit_test(test_stress_many_producers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
