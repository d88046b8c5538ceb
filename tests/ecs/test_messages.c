/* Messages: the type registry (same name and size -> same id, conflicts,
 * limits), delivery in publish order across types and in subscription
 * order within a type, payload copies and alignment, republish during
 * delivery going to the next pump (a chain stops), subscribe and
 * unsubscribe during delivery, many messages, and worlds kept apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ecs/ecs_internal.h"
#include "ecs/ecs_log_capture.h"

typedef struct Damage {
    uint32_t target;
    int32_t amount;
} Damage;
typedef struct Spawned {
    double at;
    char name[20];
} Spawned;
typedef struct Blob {
    uint8_t bytes[1000];
} Blob;

/* ------------------------------------------------------------ fixture */

/* ze_publish(w, Damage, {...}) needs the id in scope under ZE_MSG_ID(Damage). */
static ze_message_type_t ZE_MSG_ID(Damage);

enum { LOG_MAX = 1 << 17 };

/* What subscribers saw, in call order. */
typedef struct log_entry_t {
    uint32_t type;
    uint32_t tag; /* which subscriber */
    int64_t key;  /* from the payload */
} log_entry_t;

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_message_type_t damage, spawned, blob;
    log_entry_t log[LOG_MAX];
    uint32_t count;
} fx_t;

static int setup(void **state)
{
    static fx_t f;
    memset(&f, 0, sizeof f);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.capacity = 4096});
    assert_non_null(f.w);
    ZE_MSG_ID(Damage) = ze__message_register_or_invalid(f.k, "Damage", sizeof(Damage));
    ZE_MESSAGE(f.w, Spawned); /* a world names its kernel too */
    ZE_MESSAGE(f.k, Blob);
    f.damage = ZE_MSG_ID(Damage);
    f.spawned = ZE_MSG_ID(Spawned);
    f.blob = ZE_MSG_ID(Blob);
    assert_true(f.damage.id && f.spawned.id && f.blob.id);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    ze_kernel_destroy(f->k);
    ze_log_reset();
    return 0;
}

static int64_t key_of(const fx_t *f, ze_message_type_t type, const void *payload)
{
    if (type.id == f->damage.id)
        return ((const Damage *)payload)->amount;
    if (type.id == f->spawned.id)
        return (int64_t)((const Spawned *)payload)->at;
    if (type.id == f->blob.id)
        return ((const Blob *)payload)->bytes[0] | ((const Blob *)payload)->bytes[999] << 8;
    return -1;
}

static void log_push(fx_t *f, ze_message_type_t type, uint32_t tag, int64_t key)
{
    assert_true(f->count < LOG_MAX);
    f->log[f->count++] = (log_entry_t){type.id, tag, key};
}

/* Subscriber 1 and 2: log what they get. */
static void on_log1(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    fx_t *f = user;
    log_push(f, type, 1, key_of(f, type, payload));
}
static void on_log2(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    fx_t *f = user;
    log_push(f, type, 2, key_of(f, type, payload));
}

static void publish_damage(fx_t *f, int32_t amount)
{
    assert_int_equal(ze_publish(f->w, Damage, {.target = 7, .amount = amount}), ZE_OK);
}
static void publish_spawned(fx_t *f, double at)
{
    Spawned s = {.at = at};
    snprintf(s.name, sizeof s.name, "spawn-%d", (int)at);
    assert_int_equal(ze_message_publish(f->w, f->spawned, &s), ZE_OK);
}
static void publish_blob(fx_t *f, uint8_t first, uint8_t last)
{
    Blob b;
    memset(&b, 0xAB, sizeof b);
    b.bytes[0] = first;
    b.bytes[999] = last;
    assert_int_equal(ze_message_publish(f->w, f->blob, &b), ZE_OK);
}

/* ------------------------------------------------------------ registry */

static void test_register_same_name_same_id(void **state)
{
    fx_t *f = *state;
    ze_message_type_t again = {0};
    assert_int_equal(ze_message_register(f->k, "Damage", sizeof(Damage), &again), ZE_OK);
    assert_int_equal(again.id, f->damage.id);
    /* Ids are 1, 2, 3 in registration order. */
    assert_int_equal(f->damage.id, 1);
    assert_int_equal(f->spawned.id, 2);
    assert_int_equal(f->blob.id, 3);

    /* Same name, other size: refused, *out untouched. */
    ze_message_type_t out = {99};
    assert_int_equal(ze_message_register(f->k, "Damage", sizeof(Damage) + 4, &out),
                     ZE_ERR_CONFLICT);
    assert_int_equal(out.id, 99);
    assert_int_equal(ze__message_register_or_invalid(f->k, "Damage", 1).id, 0);

    /* Bad arguments and limits (each error names its limit). */
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_message_register(f->k, "", 4, &out), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_message_register(f->k, NULL, 4, &out), ZE_ERR_INVALID_ARG);
    char longname[ZE_COMPONENT_NAME_MAX + 8];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    assert_int_equal(ze_message_register(f->k, longname, 4, &out), ZE_ERR_INVALID_ARG);
    assert_true(log_captured(&cap, "63", "characters", NULL));
    assert_int_equal(ze_message_register(f->k, "Huge", 64 * 1024 + 1, &out), ZE_ERR_LIMIT);
    assert_true(log_captured(&cap, "Huge", "65536", "limit"));
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    ze_message_type_t max_ok = {0};
    assert_int_equal(ze_message_register(f->k, "Max", 64 * 1024, &max_ok), ZE_OK);
    assert_int_equal(max_ok.id, 4);
}

static void test_register_limit_types(void **state)
{
    fx_t *f = *state;
    char name[32];
    ze_message_type_t t = {0};
    for (uint32_t i = f->k->message_count + 1; i <= ZE_MAX_MESSAGE_TYPES; i++) {
        snprintf(name, sizeof name, "Msg%u", i);
        assert_int_equal(ze_message_register(f->k, name, 8, &t), ZE_OK);
        assert_int_equal(t.id, i);
    }
    static log_capture_t cap;
    log_capture_begin(&cap);
    assert_int_equal(ze_message_register(f->k, "OneTooMany", 8, &t), ZE_ERR_LIMIT);
    assert_true(log_captured(&cap, "OneTooMany", "65535", "limit")); /* names the limit */
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    /* Finding an existing one still works at the limit. */
    assert_int_equal(ze_message_register(f->k, "Msg200", 8, &t), ZE_OK);
    assert_int_equal(t.id, 200);
    /* The last id is usable end to end. */
    ze_message_type_t last = {ZE_MAX_MESSAGE_TYPES};
    assert_int_not_equal(ze_message_subscribe(f->w, last, on_log1, f).id, 0);
    uint64_t v = 42;
    assert_int_equal(ze_message_publish(f->w, last, &v), ZE_OK);
    assert_int_equal(ze_message_pump(f->w), 1);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->log[0].type, ZE_MAX_MESSAGE_TYPES);
}

static void test_publish_and_subscribe_validation(void **state)
{
    fx_t *f = *state;
    Damage d = {1, 2};
    assert_int_equal(ze_message_publish(f->w, (ze_message_type_t){0}, &d), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_message_publish(f->w, (ze_message_type_t){200}, &d), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_message_publish(f->w, f->damage, NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_message_subscribe(f->w, (ze_message_type_t){0}, on_log1, f).id, 0);
    assert_int_equal(ze_message_subscribe(f->w, (ze_message_type_t){9}, on_log1, f).id, 0);
    assert_int_equal(ze_message_subscribe(f->w, f->damage, NULL, f).id, 0);
    assert_int_equal(ze_message_unsubscribe(f->w, (ze_subscription_t){0}), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_message_unsubscribe(f->w, (ze_subscription_t){12345}), ZE_ERR_NOT_FOUND);
    /* A world that never used its bus pumps nothing. */
    assert_int_equal(ze_message_pump(f->w), 0);
}

/* --------------------------------------------------------------- order */

static void test_order_across_types_interleaved(void **state)
{
    fx_t *f = *state;
    ze_message_subscribe(f->w, f->damage, on_log1, f);
    ze_message_subscribe(f->w, f->spawned, on_log1, f);
    ze_message_subscribe(f->w, f->blob, on_log1, f);

    /* A fixed interleaving with runs of one type, keys unique per type. */
    static const char pattern[] = "DSBBDSSDBDDSBSBD";
    uint32_t n = (uint32_t)strlen(pattern);
    log_entry_t expect[64];
    for (uint32_t i = 0; i < n; i++) {
        int64_t key = 10 + i;
        switch (pattern[i]) {
        case 'D':
            publish_damage(f, (int32_t)key);
            expect[i] = (log_entry_t){f->damage.id, 1, key};
            break;
        case 'S':
            publish_spawned(f, (double)key);
            expect[i] = (log_entry_t){f->spawned.id, 1, key};
            break;
        default:
            publish_blob(f, (uint8_t)key, (uint8_t)(key + 1));
            expect[i] = (log_entry_t){f->blob.id, 1, key | (key + 1) << 8};
            break;
        }
    }
    /* Nothing is delivered before the pump. */
    assert_int_equal(f->count, 0);
    assert_int_equal(ze_message_pump(f->w), n);
    assert_int_equal(f->count, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(f->log[i].type, expect[i].type);
        assert_int_equal(f->log[i].key, expect[i].key);
    }
    /* The queue is empty now. */
    assert_int_equal(ze_message_pump(f->w), 0);
    assert_int_equal(f->count, n);
}

static void test_subscribers_in_subscription_order(void **state)
{
    fx_t *f = *state;
    ze_message_subscribe(f->w, f->damage, on_log2, f);
    ze_message_subscribe(f->w, f->damage, on_log1, f);
    ze_message_subscribe(f->w, f->spawned, on_log1, f);
    ze_message_subscribe(f->w, f->damage, on_log2, f); /* the same function twice */
    publish_damage(f, 1);
    publish_spawned(f, 2);
    publish_damage(f, 3);
    assert_int_equal(ze_message_pump(f->w), 3);
    const log_entry_t expect[] = {
        {1, 2, 1}, {1, 1, 1}, {1, 2, 1}, {2, 1, 2}, {1, 2, 3}, {1, 1, 3}, {1, 2, 3},
    };
    assert_int_equal(f->count, (sizeof expect / sizeof expect[0]));
    for (uint32_t i = 0; i < f->count; i++) {
        assert_int_equal(f->log[i].type, expect[i].type);
        assert_int_equal(f->log[i].tag, expect[i].tag);
        assert_int_equal(f->log[i].key, expect[i].key);
    }
}

static void test_message_without_subscribers_is_consumed(void **state)
{
    fx_t *f = *state;
    publish_damage(f, 1);
    publish_spawned(f, 2);
    assert_int_equal(ze_message_pump(f->w), 2);
    ze_message_subscribe(f->w, f->damage, on_log1, f);
    assert_int_equal(ze_message_pump(f->w), 0);
    assert_int_equal(f->count, 0); /* not kept for late subscribers */
}

/* ------------------------------------------------------------- payloads */

typedef struct payload_check_t {
    uint32_t seen;
    uint32_t bad;
} payload_check_t;

static void on_blob_check(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    payload_check_t *c = user;
    const Blob *b = payload;
    if ((uintptr_t)payload % 16)
        c->bad++;
    for (uint32_t i = 1; i < 999; i++)
        if (b->bytes[i] != (uint8_t)(i * 7 + c->seen))
            c->bad++;
    c->seen++;
}

static void on_big_check(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    payload_check_t *c = user;
    const uint32_t *words = payload;
    for (uint32_t i = 0; i < 16 * 1024; i++)
        if (words[i] != i * 2654435761u)
            c->bad++;
    c->seen++;
}

static void on_signal(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    payload_check_t *c = user;
    if (payload)
        c->bad++;
    c->seen++;
}

static void test_payload_copied_and_aligned(void **state)
{
    fx_t *f = *state;
    payload_check_t blobs = {0}, big = {0}, signals = {0};
    ze_message_subscribe(f->w, f->blob, on_blob_check, &blobs);

    /* The payload is copied at publish: the source may change afterwards. */
    Blob b;
    for (uint32_t m = 0; m < 5; m++) {
        for (uint32_t i = 0; i < sizeof b.bytes; i++)
            b.bytes[i] = (uint8_t)(i * 7 + m);
        assert_int_equal(ze_message_publish(f->w, f->blob, &b), ZE_OK);
        publish_damage(f, (int32_t)m); /* odd-sized records in between */
    }
    memset(&b, 0, sizeof b);

    /* The largest payload, and a payload-less type. */
    ze_message_type_t big_t = ze__message_register_or_invalid(f->k, "Big", 64 * 1024);
    ze_message_type_t signal_t = ze__message_register_or_invalid(f->k, "Signal", 0);
    assert_true(big_t.id && signal_t.id);
    ze_message_subscribe(f->w, big_t, on_big_check, &big);
    ze_message_subscribe(f->w, signal_t, on_signal, &signals);
    static uint32_t words[16 * 1024];
    for (uint32_t i = 0; i < 16 * 1024; i++)
        words[i] = i * 2654435761u;
    assert_int_equal(ze_message_publish(f->w, big_t, words), ZE_OK);
    assert_int_equal(ze_message_publish(f->w, signal_t, NULL), ZE_OK);
    memset(words, 0, sizeof words);

    assert_int_equal(ze_message_pump(f->w), 12);
    assert_int_equal(blobs.seen, 5);
    assert_int_equal(blobs.bad, 0);
    assert_int_equal(big.seen, 1);
    assert_int_equal(big.bad, 0);
    assert_int_equal(signals.seen, 1);
    assert_int_equal(signals.bad, 0);
}

/* ------------------------------------------------------------ republish */

typedef struct chain_t {
    fx_t *f;
    int32_t limit;
    uint32_t calls;
    int32_t last;
} chain_t;

/* Republishes its own type with amount + 1 until the limit. */
static void on_chain(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    chain_t *c = user;
    const Damage *d = payload;
    c->calls++;
    c->last = d->amount;
    if (d->amount < c->limit)
        assert_int_equal(ze_message_publish(w, type, &(Damage){d->target, d->amount + 1}), ZE_OK);
}

static void test_republish_goes_to_next_pump_and_chain_stops(void **state)
{
    fx_t *f = *state;
    chain_t c = {.f = f, .limit = 5};
    ze_message_subscribe(f->w, f->damage, on_chain, &c);
    ze_message_subscribe(f->w, f->damage, on_log1, f); /* sees the same stream */
    publish_damage(f, 1);

    for (int32_t pump = 1; pump <= 5; pump++) {
        /* One message per pump: the republished one waits for the next. */
        assert_int_equal(ze_message_pump(f->w), 1);
        assert_int_equal(c.calls, (uint32_t)pump);
        assert_int_equal(c.last, pump);
    }
    /* amount 5 did not republish: the chain is over. */
    assert_int_equal(ze_message_pump(f->w), 0);
    assert_int_equal(ze_message_pump(f->w), 0);
    assert_int_equal(c.calls, 5);
    assert_int_equal(f->count, 5);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(f->log[i].key, (int64_t)i + 1);
}

/* On Damage: publishes a Spawned (another type) and a Damage marker. */
static void on_cross_publish(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    fx_t *f = user;
    const Damage *d = payload;
    if (d->amount < 100) {
        publish_spawned(f, 1000 + d->amount);
        ze_message_publish(w, type, &(Damage){0, 100 + d->amount});
    }
}

static void test_publish_during_delivery_keeps_publish_order(void **state)
{
    fx_t *f = *state;
    ze_message_subscribe(f->w, f->damage, on_cross_publish, f);
    ze_message_subscribe(f->w, f->damage, on_log1, f);
    ze_message_subscribe(f->w, f->spawned, on_log1, f);
    publish_damage(f, 1);
    publish_spawned(f, 2);
    publish_damage(f, 3);
    assert_int_equal(ze_message_pump(f->w), 3);
    /* First pump: the three published before it. */
    assert_int_equal(f->count, 3);
    /* Second pump: what the deliveries published, in their publish order. */
    assert_int_equal(ze_message_pump(f->w), 4);
    const log_entry_t expect[] = {
        {1, 1, 1},    {2, 1, 2},   {1, 1, 3}, /* first pump */
        {2, 1, 1001}, {1, 1, 101}, {2, 1, 1003}, {1, 1, 103},
    };
    assert_int_equal(f->count, (sizeof expect / sizeof expect[0]));
    for (uint32_t i = 0; i < f->count; i++) {
        assert_int_equal(f->log[i].type, expect[i].type);
        assert_int_equal(f->log[i].key, expect[i].key);
    }
    assert_int_equal(ze_message_pump(f->w), 0);
}

/* ------------------------------------------- subscribe during delivery */

typedef struct unsub_t {
    ze_subscription_t self, other;
    uint32_t calls;
} unsub_t;

/* Unsubscribes `other` on its first call (and itself on its second). */
static void on_unsub_other(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)type;
    (void)payload;
    unsub_t *u = user;
    u->calls++;
    if (u->calls == 1)
        assert_int_equal(ze_message_unsubscribe(w, u->other), ZE_OK);
    if (u->calls == 2)
        assert_int_equal(ze_message_unsubscribe(w, u->self), ZE_OK);
    /* Unsubscribing twice is reported, not crashed on. */
    if (u->calls == 2)
        assert_int_equal(ze_message_unsubscribe(w, u->self), ZE_ERR_NOT_FOUND);
}

static void on_count(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    (void)payload;
    (*(uint32_t *)user)++;
}

static void test_unsubscribe_during_delivery(void **state)
{
    fx_t *f = *state;
    unsub_t u = {0};
    uint32_t before = 0, victim = 0, after = 0;
    ze_message_subscribe(f->w, f->damage, on_count, &before);
    u.self = ze_message_subscribe(f->w, f->damage, on_unsub_other, &u);
    u.other = ze_message_subscribe(f->w, f->damage, on_count, &victim);
    ze_message_subscribe(f->w, f->damage, on_count, &after);
    for (int32_t i = 0; i < 4; i++)
        publish_damage(f, i);
    assert_int_equal(ze_message_pump(f->w), 4);
    /* The victim was dropped before its turn on the first message; the
     * subscriber after it was not skipped. */
    assert_int_equal(victim, 0);
    assert_int_equal(before, 4);
    assert_int_equal(after, 4);
    assert_int_equal(u.calls, 2); /* unsubscribed itself on the second */

    /* After the pump the tombstones are gone: both ids are unknown, and the
     * remaining subscribers still work. */
    assert_int_equal(ze_message_unsubscribe(f->w, u.other), ZE_ERR_NOT_FOUND);
    assert_int_equal(ze_message_unsubscribe(f->w, u.self), ZE_ERR_NOT_FOUND);
    publish_damage(f, 9);
    assert_int_equal(ze_message_pump(f->w), 1);
    assert_int_equal(before, 5);
    assert_int_equal(after, 5);
    assert_int_equal(victim, 0);
}

typedef struct late_sub_t {
    fx_t *f;
    bool done;
    uint32_t late_calls;
} late_sub_t;

static void on_late(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    (void)payload;
    ((late_sub_t *)user)->late_calls++;
}

/* Subscribes another subscriber (many, to make the array grow) on its first
 * call, and tries a nested pump. */
static void on_subscribe_more(ze_world_t *w, ze_message_type_t type, const void *payload,
                              void *user)
{
    (void)payload;
    late_sub_t *l = user;
    if (l->done)
        return;
    l->done = true;
    for (int i = 0; i < 100; i++)
        assert_int_not_equal(ze_message_subscribe(w, type, on_late, l).id, 0);
    assert_int_equal(ze_message_pump(w), 0); /* refused from inside delivery */
}

static void test_subscribe_during_delivery(void **state)
{
    fx_t *f = *state;
    late_sub_t l = {.f = f};
    ze_message_subscribe(f->w, f->damage, on_subscribe_more, &l);
    publish_damage(f, 1);
    publish_damage(f, 2);
    publish_damage(f, 3);
    assert_int_equal(ze_message_pump(f->w), 3);
    /* New subscribers start with the next message: 2 messages x 100. */
    assert_int_equal(l.late_calls, 200);
}

static void test_unsubscribe_outside_delivery(void **state)
{
    fx_t *f = *state;
    uint32_t a = 0, b = 0;
    ze_subscription_t sa = ze_message_subscribe(f->w, f->damage, on_count, &a);
    ze_subscription_t sb = ze_message_subscribe(f->w, f->damage, on_count, &b);
    assert_int_not_equal(sa.id, sb.id);
    publish_damage(f, 1);
    assert_int_equal(ze_message_unsubscribe(f->w, sa), ZE_OK);
    assert_int_equal(ze_message_unsubscribe(f->w, sa), ZE_ERR_NOT_FOUND);
    /* Unsubscribed before the pump: not delivered. */
    assert_int_equal(ze_message_pump(f->w), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
}

/* --------------------------------------------------------------- volume */

typedef struct volume_t {
    fx_t *f;
    uint32_t next; /* expected sequence index */
    uint32_t bad;
} volume_t;

static void on_volume(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    volume_t *v = user;
    fx_t *f = v->f;
    uint32_t i = (uint32_t)key_of(f, type, payload);
    /* type follows i % 3, payload carries i */
    uint32_t want = i % 3 == 0 ? f->damage.id : i % 3 == 1 ? f->spawned.id : f->blob.id;
    if (i != v->next || type.id != want)
        v->bad++;
    v->next++;
}

static void test_many_messages(void **state)
{
    fx_t *f = *state;
    volume_t v = {.f = f};
    ze_message_subscribe(f->w, f->damage, on_volume, &v);
    ze_message_subscribe(f->w, f->spawned, on_volume, &v);
    ze_message_subscribe(f->w, f->blob, on_volume, &v);
    /* Blob keys are 16 bits: keep i below 65536. */
    enum { N = 60000 };
    for (uint32_t round = 0; round < 2; round++) {
        v.next = 0;
        for (uint32_t i = 0; i < N; i++) {
            if (i % 3 == 0)
                publish_damage(f, (int32_t)i);
            else if (i % 3 == 1)
                publish_spawned(f, (double)i);
            else
                publish_blob(f, (uint8_t)(i & 0xff), (uint8_t)(i >> 8));
        }
        assert_int_equal(ze_message_pump(f->w), N);
        assert_int_equal(v.next, N);
        assert_int_equal(v.bad, 0);
    }
}

static void test_worlds_are_separate(void **state)
{
    fx_t *f = *state;
    ze_world_t *w2 = ze_world_create(f->k, &(ze_world_desc_t){.name = "second", .capacity = 4096});
    assert_non_null(w2);
    uint32_t in1 = 0, in2 = 0;
    ze_message_subscribe(f->w, f->damage, on_count, &in1);
    ze_message_subscribe(w2, f->damage, on_count, &in2);
    publish_damage(f, 1);
    assert_int_equal(ze_message_publish(w2, f->damage, &(Damage){0, 2}), ZE_OK);
    assert_int_equal(ze_message_publish(w2, f->damage, &(Damage){0, 3}), ZE_OK);
    assert_int_equal(ze_message_pump(w2), 2);
    assert_int_equal(in1, 0);
    assert_int_equal(in2, 2);
    assert_int_equal(ze_message_pump(f->w), 1);
    assert_int_equal(in1, 1);
    /* A world destroyed with messages still queued frees them (ASan). */
    assert_int_equal(ze_message_publish(w2, f->damage, &(Damage){0, 4}), ZE_OK);
    ze_world_destroy(w2);
}

/* ---------------------------------------------------- the kernel frame */

typedef struct frame_pub_t {
    int32_t step;
} frame_pub_t;

/* A fixed-step system publishing one Damage per step. */
static void sys_publish(ze_world_t *w, const ze_tick_t *t)
{
    frame_pub_t *p = t->user;
    assert_int_equal(ze_publish(w, Damage, {.target = 0, .amount = p->step++}), ZE_OK);
}

static void test_kernel_frame_pumps_at_begin_frame(void **state)
{
    fx_t *f = *state;
    frame_pub_t pub = {0};
    assert_int_not_equal(
        ze_system_add(f->w, &(ze_system_desc_t){.name = "publish",
                                                .fn = sys_publish,
                                                .user = &pub,
                                                .group = ZE_GROUP_FIXED_SIMULATION})
            .id,
        0);
    chain_t chain = {.f = f, .limit = 1000};
    ze_message_subscribe(f->w, f->damage, on_log1, f);
    assert_int_equal(ze_kernel_set_fixed_step(f->k, 0.5, 5), ZE_OK);

    /* Frame 1: two steps publish 0 and 1; nothing is delivered yet. */
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK);
    assert_int_equal(pub.step, 2);
    assert_int_equal(f->count, 0);
    /* Frame 2: BeginFrame delivers 0 and 1 (before the steps publish 2, 3). */
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK);
    assert_int_equal(f->count, 2);
    assert_int_equal(f->log[0].key, 0);
    assert_int_equal(f->log[1].key, 1);

    /* A republishing subscriber under the frame loop: each frame delivers
     * what the previous one published, never more. */
    ze_message_subscribe(f->w, f->damage, on_chain, &chain);
    f->count = 0;
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK); /* 2, 3 (+ republished 3, 4) */
    assert_int_equal(f->count, 2);
    assert_int_equal(chain.calls, 2);
    f->count = 0;
    assert_int_equal(ze_kernel_frame(f->k, 1.0), ZE_OK); /* 3, 4 republished, then 4, 5 */
    assert_int_equal(f->count, 4);
    assert_int_equal(f->log[0].key, 3);
    assert_int_equal(f->log[1].key, 4);
    assert_int_equal(f->log[2].key, 4);
    assert_int_equal(f->log[3].key, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_register_same_name_same_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_register_limit_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_publish_and_subscribe_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_across_types_interleaved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscribers_in_subscription_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_message_without_subscribers_is_consumed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_payload_copied_and_aligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_republish_goes_to_next_pump_and_chain_stops, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_publish_during_delivery_keeps_publish_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unsubscribe_during_delivery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscribe_during_delivery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsubscribe_outside_delivery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_worlds_are_separate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_frame_pumps_at_begin_frame, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
