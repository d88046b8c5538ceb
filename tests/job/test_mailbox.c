/* Latest-state mailbox: single-thread semantics (newest wins, the held
 * payload is kept, replacement counting, cancel, arena reuse) and a
 * writer/reader stress run that checks every payload it receives byte for
 * byte, that sequence numbers only go up, and that the last one arrives. */
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
    ze_mailbox_t *mb;
} world_t;

/* Owner left at its default (Bootstrap); 1 MiB per slot is plenty here and
 * leaves room in Bootstrap's range (see test_default_arena_size). */
static world_t world_new(size_t arena_size)
{
    world_t w = {0};
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &w.mm), ZE_OK);
    ze_mailbox_desc_t d = {.mem = w.mm, .slot_arena_size = arena_size ? arena_size : 1 << 20};
    assert_int_equal(ze_mailbox_create(&d, &w.mb), ZE_OK);
    return w;
}

static void world_free(world_t *w)
{
    ze_mailbox_destroy(w->mb);
    ze_mem_destroy(w->mm);
}

/* Publish a copy of a NUL-terminated string, placed in the slot's arena. */
static uint64_t publish_str(ze_mailbox_t *mb, const char *s)
{
    ze_arena_t *a = ze_mailbox_begin_write(mb);
    assert_non_null(a);
    size_t n = strlen(s) + 1;
    char *p = ze_arena_push(a, n, 1);
    assert_non_null(p);
    memcpy(p, s, n);
    return ze_mailbox_publish(mb, p, n);
}

static void expect_take(ze_mailbox_t *mb, const char *want, uint64_t want_seq)
{
    size_t size = 0;
    uint64_t seq = 0;
    const char *p = ze_mailbox_take(mb, &size, &seq);
    assert_non_null(p);
    assert_string_equal(p, want);
    assert_int_equal(size, strlen(want) + 1);
    assert_int_equal(seq, want_seq);
}

static void expect_stats(ze_mailbox_t *mb, uint64_t published, uint64_t taken, uint64_t replaced)
{
    ze_mailbox_stats_t s = ze_mailbox_stats(mb);
    assert_int_equal(s.published, published);
    assert_int_equal(s.taken, taken);
    assert_int_equal(s.replaced, replaced);
}

static void test_take_before_publish_is_null(void **state)
{
    (void)state;
    world_t w = world_new(0);
    size_t size = 99;
    uint64_t seq = 99;
    assert_null(ze_mailbox_take(w.mb, &size, &seq));
    assert_int_equal(size, 0);
    assert_int_equal(seq, 0);
    assert_null(ze_mailbox_take(w.mb, NULL, NULL));
    expect_stats(w.mb, 0, 0, 0);
    world_free(&w);
}

static void test_take_keeps_held_when_nothing_new(void **state)
{
    (void)state;
    world_t w = world_new(0);
    assert_int_equal(publish_str(w.mb, "one"), 1);
    expect_take(w.mb, "one", 1);
    const void *p1 = ze_mailbox_take(w.mb, NULL, NULL);
    expect_take(w.mb, "one", 1);
    assert_ptr_equal(ze_mailbox_take(w.mb, NULL, NULL), p1);
    expect_stats(w.mb, 1, 1, 0); /* the same payload counts once */
    assert_int_equal(publish_str(w.mb, "two"), 2);
    expect_take(w.mb, "two", 2);
    expect_stats(w.mb, 2, 2, 0);
    world_free(&w);
}

static void test_newest_wins_and_replacements_count(void **state)
{
    (void)state;
    world_t w = world_new(0);
    assert_int_equal(publish_str(w.mb, "s1"), 1);
    expect_take(w.mb, "s1", 1);                   /* the reader holds slot A */
    assert_int_equal(publish_str(w.mb, "s2"), 2); /* Free slot B */
    assert_int_equal(publish_str(w.mb, "s3"), 3); /* Free slot C */
    expect_stats(w.mb, 3, 1, 0);
    /* No Free slot left: the writer replaces the oldest unread one (s2). */
    assert_int_equal(publish_str(w.mb, "s4"), 4);
    expect_stats(w.mb, 4, 1, 1);
    /* The reader jumps to s4; s3 is released unread; s1 goes back to Free. */
    expect_take(w.mb, "s4", 4);
    expect_stats(w.mb, 4, 2, 2);
    /* Two slots are Free again: no replacement for the next two. */
    assert_int_equal(publish_str(w.mb, "s5"), 5);
    assert_int_equal(publish_str(w.mb, "s6"), 6);
    expect_stats(w.mb, 6, 2, 2);
    expect_take(w.mb, "s6", 6);
    ze_mailbox_stats_t s = ze_mailbox_stats(w.mb);
    assert_int_equal(s.published, s.taken + s.replaced);
    world_free(&w);
}

static void test_writer_without_reader_keeps_latest(void **state)
{
    (void)state;
    world_t w = world_new(0);
    char buf[32];
    for (int i = 1; i <= 50; i++) {
        snprintf(buf, sizeof buf, "state %d", i);
        assert_int_equal(publish_str(w.mb, buf), (uint64_t)i);
    }
    /* Three slots, so all but the newest three were replaced. */
    expect_stats(w.mb, 50, 0, 47);
    expect_take(w.mb, "state 50", 50);
    expect_stats(w.mb, 50, 1, 49);
    world_free(&w);
}

static void test_cancel_gives_slot_back(void **state)
{
    (void)state;
    world_t w = world_new(0);
    ze_mailbox_cancel(w.mb); /* nothing claimed: no effect */
    assert_int_equal(publish_str(w.mb, "a"), 1);
    expect_take(w.mb, "a", 1);
    for (int i = 0; i < 10; i++) { /* a leaked slot would run out by now */
        ze_arena_t *arena = ze_mailbox_begin_write(w.mb);
        assert_non_null(ze_arena_push(arena, 64, 8));
        ze_mailbox_cancel(w.mb);
    }
    expect_take(w.mb, "a", 1); /* nothing new was published */
    expect_stats(w.mb, 1, 1, 0);
    assert_int_equal(publish_str(w.mb, "b"), 2); /* cancel used no number */
    expect_take(w.mb, "b", 2);
    world_free(&w);
}

static void test_begin_twice_restarts(void **state)
{
    (void)state;
    world_t w = world_new(0);
    ze_arena_t *a = ze_mailbox_begin_write(w.mb);
    assert_non_null(ze_arena_push(a, 1000, 8));
    assert_true(ze_arena_marker(a) >= 1000);
    ze_arena_t *b = ze_mailbox_begin_write(w.mb);
    assert_ptr_equal(a, b);
    assert_int_equal(ze_arena_marker(b), 0);
    assert_int_equal(ze_mailbox_publish(w.mb, NULL, 0), 1);
    /* Publishing with no slot claimed is a programmer error: refused. */
    assert_int_equal(ze_mailbox_publish(w.mb, NULL, 0), 0);
    expect_stats(w.mb, 1, 0, 0);
    world_free(&w);
}

/* Each claim resets the slot's arena: payloads close to the arena size can
 * be published forever. */
static void test_arena_reused(void **state)
{
    (void)state;
    enum { ARENA = 64 * 1024, BIG = 60 * 1024 };
    world_t w = world_new(ARENA);
    for (uint32_t i = 1; i <= 30; i++) {
        ze_arena_t *a = ze_mailbox_begin_write(w.mb);
        uint8_t *p = ze_arena_push(a, BIG, 16);
        assert_non_null(p);
        memset(p, (int)i, BIG);
        assert_int_equal(ze_mailbox_publish(w.mb, p, BIG), i);
        if (i % 4 == 0) {
            size_t size;
            const uint8_t *q = ze_mailbox_take(w.mb, &size, NULL);
            assert_int_equal(size, BIG);
            assert_int_equal(q[0], i);
            assert_int_equal(q[BIG - 1], i);
        }
    }
    world_free(&w);
}

/* The all-defaults mailbox (Bootstrap owner, 4 MiB slot arenas) can be
 * created even after the owner's general heap exists, and a payload can fill
 * most of a slot. */
static void test_default_arena_size(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    void *blk = ze_alloc(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP), 64, 16);
    assert_non_null(blk);
    uint64_t before = ze_mem_owner_stats(mm, ZE_MEM_OWNER_BOOTSTRAP).reserved;
    ze_mailbox_t *mb = NULL;
    ze_mailbox_desc_t d = {.mem = mm};
    assert_int_equal(ze_mailbox_create(&d, &mb), ZE_OK);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_BOOTSTRAP).reserved >= before + 3 * (4 << 20));
    ze_arena_t *a = ze_mailbox_begin_write(mb);
    uint8_t *p = ze_arena_push(a, 3 << 20, 16);
    assert_non_null(p);
    p[(3 << 20) - 1] = 7;
    assert_int_equal(ze_mailbox_publish(mb, p, 3 << 20), 1);
    size_t size = 0;
    const uint8_t *q = ze_mailbox_take(mb, &size, NULL);
    assert_int_equal(size, 3 << 20);
    assert_int_equal(q[size - 1], 7);
    ze_free(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_BOOTSTRAP), blk, 64);
    ze_mailbox_destroy(mb);
    ze_mem_destroy(mm);
}

static void test_slots_come_from_desc_owner(void **state)
{
    (void)state;
    ze_mem_t *mm = NULL;
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &mm), ZE_OK);
    uint64_t before = ze_mem_owner_stats(mm, ZE_MEM_OWNER_RENDER).reserved;
    ze_mailbox_t *mb = NULL;
    ze_mailbox_desc_t d = {.mem = mm, .owner = ZE_MEM_OWNER_RENDER, .slot_arena_size = 1 << 20};
    assert_int_equal(ze_mailbox_create(&d, &mb), ZE_OK);
    assert_true(ze_mem_owner_stats(mm, ZE_MEM_OWNER_RENDER).reserved >= before + 3 * (1 << 20));
    ze_mailbox_destroy(mb);
    ze_mem_destroy(mm);
}

/* ------------------------------------------------------------- stress */

#ifdef ZE_SANITIZER_THREAD
/* Measured: the full 8..4096-byte range is fine under TSan too. */
enum { STRESS_N = 1000000, MAX_WORDS = 512 };
#else
enum { STRESS_N = 1000000, MAX_WORDS = 512 };
#endif

/* Payload of sequence `seq`: 1..MAX_WORDS 64-bit words (8..4096 bytes), each
 * derived from seq and its index, so a torn or stale payload is detected. */
static uint32_t payload_words(uint64_t seq)
{
    return 1 + (uint32_t)(ze_hash_u64(seq) % MAX_WORDS);
}

static uint64_t payload_word(uint64_t seq, uint32_t i)
{
    return seq * 0x9E3779B97F4A7C15ull ^ ((uint64_t)i << 40 | i);
}

typedef struct stress_t {
    ze_mailbox_t *mb;
    atomic_uint writer_errors;
    atomic_bool writer_done;
} stress_t;

static void *writer_main(void *arg)
{
    stress_t *st = arg;
    for (uint64_t seq = 1; seq <= STRESS_N; seq++) {
        if (seq % 1024 == 0) { /* now and then, abandon a write first */
            ze_arena_t *a = ze_mailbox_begin_write(st->mb);
            uint64_t *junk = ze_arena_push(a, 64, 8);
            if (junk)
                memset(junk, 0xee, 64);
            ze_mailbox_cancel(st->mb);
        }
        ze_arena_t *a = ze_mailbox_begin_write(st->mb);
        uint32_t n = payload_words(seq);
        uint64_t *p = ze_arena_push(a, (size_t)n * 8, 8);
        if (!p) {
            atomic_fetch_add(&st->writer_errors, 1);
            ze_mailbox_cancel(st->mb);
            continue;
        }
        for (uint32_t i = 0; i < n; i++)
            p[i] = payload_word(seq, i);
        if (ze_mailbox_publish(st->mb, p, (size_t)n * 8) != seq)
            atomic_fetch_add(&st->writer_errors, 1);
    }
    atomic_store(&st->writer_done, true);
    return NULL;
}

static void test_stress_writer_reader(void **state)
{
    (void)state;
    world_t w = world_new(0);
    stress_t st = {.mb = w.mb};
    atomic_init(&st.writer_errors, 0);
    atomic_init(&st.writer_done, false);
    pthread_t writer;
    assert_int_equal(pthread_create(&writer, NULL, writer_main, &st), 0);

    uint64_t last = 0, distinct = 0, bad_payloads = 0, backwards = 0;
    uint32_t idle = 0;
    while (last != STRESS_N) {
        size_t size = 0;
        uint64_t seq = 0;
        const uint64_t *p = ze_mailbox_take(w.mb, &size, &seq);
        if (!p || seq == last) {
            /* Nothing new. Once the writer is done, the last take must have
             * returned STRESS_N: give it a bounded number of tries. */
            if (atomic_load(&st.writer_done) && ++idle > 1000)
                break;
            sched_yield();
            continue;
        }
        if (seq < last)
            backwards++;
        last = seq;
        distinct++;
        uint32_t n = payload_words(seq);
        if (size != (size_t)n * 8) {
            bad_payloads++;
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (p[i] != payload_word(seq, i)) {
                bad_payloads++;
                break;
            }
        }
    }
    pthread_join(writer, NULL);
    assert_int_equal(atomic_load(&st.writer_errors), 0);
    assert_int_equal(backwards, 0);
    assert_int_equal(bad_payloads, 0);
    assert_int_equal(last, STRESS_N); /* the final state always arrives */
    ze_mailbox_stats_t s = ze_mailbox_stats(w.mb);
    assert_int_equal(s.published, STRESS_N);
    assert_int_equal(s.taken, distinct);
    assert_int_equal(s.published, s.taken + s.replaced);
    print_message("mailbox stress: %llu published, %llu taken, %llu replaced\n",
                  (unsigned long long)s.published, (unsigned long long)s.taken,
                  (unsigned long long)s.replaced);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_before_publish_is_null),
        cmocka_unit_test(test_take_keeps_held_when_nothing_new),
        cmocka_unit_test(test_newest_wins_and_replacements_count),
        cmocka_unit_test(test_writer_without_reader_keeps_latest),
        cmocka_unit_test(test_cancel_gives_slot_back),
        cmocka_unit_test(test_begin_twice_restarts),
        cmocka_unit_test(test_arena_reused),
        cmocka_unit_test(test_default_arena_size),
        cmocka_unit_test(test_slots_come_from_desc_owner),
        cmocka_unit_test(test_stress_writer_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
