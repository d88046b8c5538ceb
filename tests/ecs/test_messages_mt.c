/* Messages and binding notes from several threads: concurrent publishers
 * (4 threads, two types) while the main thread pumps, every message
 * delivered exactly once and each thread's messages in its publish order;
 * publishers racing to create a fresh world's bus; and value writes from a
 * parallel WorldTick wave noting binding deltas concurrently. Runs under
 * ThreadSanitizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ecs/ecs_internal.h"

/* Sizes: the whole file runs in about a second under TSan. */
enum { THREADS = 4, PER_THREAD = 20000 };

typedef struct Ping {
    uint32_t thread;
    uint32_t i;
} Ping;
typedef struct Pong { /* another size, so records differ in length */
    uint32_t thread;
    uint32_t i;
    uint8_t pad[40];
} Pong;

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;
typedef struct Health {
    int32_t hp;
} Health;
typedef struct Mass {
    float m;
} Mass;
static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Health);
static ZE_COMPONENT_DECLARE(Mass);

typedef struct fx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    ze_message_type_t ping, pong;
} fx_t;

static int setup(void **state)
{
    static fx_t f;
    memset(&f, 0, sizeof f);
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    f.k = ze_kernel_create(&(ze_kernel_desc_t){0});
    assert_non_null(f.k);
    f.w = ze_world_create(f.k, &(ze_world_desc_t){.capacity = 1u << 16});
    assert_non_null(f.w);
    f.ping = ze__message_register_or_invalid(f.k, "Ping", sizeof(Ping));
    f.pong = ze__message_register_or_invalid(f.k, "Pong", sizeof(Pong));
    assert_true(f.ping.id && f.pong.id);
    ZE_COMPONENT_DEFINE(f.k, Position);
    ZE_COMPONENT_DEFINE(f.k, Velocity);
    ZE_COMPONENT_DEFINE(f.k, Health);
    ZE_COMPONENT_DEFINE(f.k, Mass);
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

/* --------------------------------------------------- concurrent publish */

typedef struct publisher_t {
    fx_t *f;
    uint32_t thread;
    atomic_bool *go;
    uint32_t failures;
} publisher_t;

static void *publish_main(void *arg)
{
    publisher_t *p = arg;
    while (!atomic_load_explicit(p->go, memory_order_acquire))
        ;
    for (uint32_t i = 0; i < PER_THREAD; i++) {
        ze_result r;
        /* The type depends on thread and index, so types interleave within
         * and across threads. */
        if ((i + p->thread) % 3 == 0) {
            Pong m = {.thread = p->thread, .i = i};
            memset(m.pad, (int)(i & 0xff), sizeof m.pad);
            r = ze_message_publish(p->f->w, p->f->pong, &m);
        } else {
            r = ze_message_publish(p->f->w, p->f->ping, &(Ping){p->thread, i});
        }
        if (r != ZE_OK)
            p->failures++;
    }
    return NULL;
}

/* Main-thread side: what arrived. */
typedef struct receiver_t {
    uint32_t next[THREADS]; /* next index expected from each thread */
    uint8_t seen[THREADS][PER_THREAD];
    uint32_t out_of_order, duplicates, corrupt, total;
} receiver_t;

static void receive(receiver_t *r, uint32_t thread, uint32_t i)
{
    if (thread >= THREADS || i >= PER_THREAD) {
        r->corrupt++;
        return;
    }
    if (r->seen[thread][i])
        r->duplicates++;
    r->seen[thread][i] = 1;
    /* One thread's publishes are ordered, so the global order keeps them
     * in sequence even across the two types. */
    if (i != r->next[thread])
        r->out_of_order++;
    r->next[thread] = i + 1;
    r->total++;
}

static void on_ping(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    const Ping *m = payload;
    receive(user, m->thread, m->i);
}

static void on_pong(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    (void)type;
    const Pong *m = payload;
    receiver_t *r = user;
    for (uint32_t b = 0; b < sizeof m->pad; b++)
        if (m->pad[b] != (uint8_t)(m->i & 0xff))
            r->corrupt++;
    receive(r, m->thread, m->i);
}

static void run_publishers(fx_t *f, receiver_t *r, bool pump_while_running)
{
    atomic_bool go;
    atomic_init(&go, false);
    publisher_t pubs[THREADS];
    pthread_t th[THREADS];
    for (uint32_t t = 0; t < THREADS; t++) {
        pubs[t] = (publisher_t){.f = f, .thread = t, .go = &go};
        assert_int_equal(pthread_create(&th[t], NULL, publish_main, &pubs[t]), 0);
    }
    atomic_store_explicit(&go, true, memory_order_release);
    uint32_t pumped = 0, pumps = 0;
    if (pump_while_running) {
        /* The main thread pumps while the publishers run. */
        while (r->total < THREADS * PER_THREAD / 2) {
            pumped += ze_message_pump(f->w);
            pumps++;
        }
    }
    for (uint32_t t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(pubs[t].failures, 0);
    }
    pumped += ze_message_pump(f->w);
    assert_int_equal(pumped, THREADS * PER_THREAD);
    assert_int_equal(ze_message_pump(f->w), 0);
    (void)pumps;
}

static void check_received(const receiver_t *r)
{
    assert_int_equal(r->total, THREADS * PER_THREAD);
    assert_int_equal(r->duplicates, 0);
    assert_int_equal(r->out_of_order, 0);
    assert_int_equal(r->corrupt, 0);
    for (uint32_t t = 0; t < THREADS; t++) {
        assert_int_equal(r->next[t], PER_THREAD);
        for (uint32_t i = 0; i < PER_THREAD; i++)
            assert_int_equal(r->seen[t][i], 1);
    }
}

static void test_publish_from_four_threads_while_pumping(void **state)
{
    fx_t *f = *state;
    static receiver_t r;
    memset(&r, 0, sizeof r);
    ze_message_subscribe(f->w, f->ping, on_ping, &r);
    ze_message_subscribe(f->w, f->pong, on_pong, &r);
    run_publishers(f, &r, true);
    check_received(&r);
}

static void test_publishers_create_the_bus(void **state)
{
    fx_t *f = *state;
    /* Nothing has touched the bus: the four threads race to create it. */
    assert_null(f->w->messages);
    static receiver_t r;
    memset(&r, 0, sizeof r);
    atomic_bool go;
    atomic_init(&go, false);
    publisher_t pubs[THREADS];
    pthread_t th[THREADS];
    for (uint32_t t = 0; t < THREADS; t++) {
        pubs[t] = (publisher_t){.f = f, .thread = t, .go = &go};
        assert_int_equal(pthread_create(&th[t], NULL, publish_main, &pubs[t]), 0);
    }
    atomic_store_explicit(&go, true, memory_order_release);
    for (uint32_t t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(pubs[t].failures, 0);
    }
    ze_message_subscribe(f->w, f->ping, on_ping, &r);
    ze_message_subscribe(f->w, f->pong, on_pong, &r);
    assert_int_equal(ze_message_pump(f->w), THREADS * PER_THREAD);
    check_received(&r);
}

/* -------------------------------------------- binding notes from a wave */

enum { ENTITIES = 2000 };

/* Each system overwrites one component of every entity with ze_set (a
 * value write: allowed inside a parallel wave, and noted as CHANGED). */
static void sys_set_position(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *es = t->user;
    for (uint32_t i = 0; i < ENTITIES; i++)
        ze_set(w, es[i], Position, {(float)i, 1});
}
static void sys_set_velocity(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *es = t->user;
    for (uint32_t i = 0; i < ENTITIES; i++)
        ze_set(w, es[i], Velocity, {(float)i, 2});
}
static void sys_set_health(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *es = t->user;
    for (uint32_t i = 0; i < ENTITIES; i++)
        ze_set(w, es[i], Health, {(int32_t)i});
}
static void sys_set_mass(ze_world_t *w, const ze_tick_t *t)
{
    ze_entity_t *es = t->user;
    for (uint32_t i = 0; i < ENTITIES; i++)
        ze_set(w, es[i], Mass, {(float)i});
}

typedef struct delta_count_t {
    uint32_t changed[64]; /* by component id: the test registers few */
    uint32_t other;
    uint32_t bad_value;
} delta_count_t;

static void on_delta(ze_world_t *w, const ze_delta_t *d, void *user)
{
    (void)w;
    delta_count_t *c = user;
    if (d->kind != ZE_DELTA_CHANGED) {
        c->other++;
        return;
    }
    c->changed[d->component.id]++;
    if (!d->value)
        c->bad_value++;
}

static void test_binding_notes_from_parallel_wave(void **state)
{
    fx_t *f = *state;
    ze_world_t *w = f->w;
    static ze_entity_t es[ENTITIES];
    for (uint32_t i = 0; i < ENTITIES; i++) {
        es[i] = ze_entity_create(w);
        ze_set(w, es[i], Position, {0, 0});
        ze_set(w, es[i], Velocity, {0, 0});
        ze_set(w, es[i], Health, {0});
        ze_set(w, es[i], Mass, {0});
    }
    delta_count_t counts = {0};
    ze_binder_t binders[4] = {
        ze_binder_attach_type(w, ZE_ID(Position), on_delta, &counts),
        ze_binder_attach_type(w, ZE_ID(Velocity), on_delta, &counts),
        ze_binder_attach_type(w, ZE_ID(Health), on_delta, &counts),
        ze_binder_attach_type(w, ZE_ID(Mass), on_delta, &counts),
    };
    for (uint32_t b = 0; b < 4; b++)
        assert_int_not_equal(binders[b].id, 0);
    ze_bindings_apply(w); /* the snapshots */
    memset(&counts, 0, sizeof counts);

    ze_worldtick_t *t = ze_worldtick_create(w);
    assert_non_null(t);
    const struct {
        const char *name;
        ze_system_fn fn;
        ze_mask_t writes;
    } systems[] = {
        {"set_position", sys_set_position, ZE_MASK(Position)},
        {"set_velocity", sys_set_velocity, ZE_MASK(Velocity)},
        {"set_health", sys_set_health, ZE_MASK(Health)},
        {"set_mass", sys_set_mass, ZE_MASK(Mass)},
    };
    for (uint32_t s = 0; s < 4; s++)
        assert_int_not_equal(ze_worldtick_add(t, &(ze_system_desc_t){.name = systems[s].name,
                                                                     .fn = systems[s].fn,
                                                                     .user = es,
                                                                     .writes = systems[s].writes})
                                 .id,
                             0);
    assert_int_equal(ze_worldtick_commit(t), ZE_OK);
    assert_int_equal(ze_worldtick_wave_count(t), 1); /* all four in one parallel wave */
    for (uint32_t frame = 0; frame < 3; frame++) {
        assert_int_equal(ze_worldtick_run(t, 1.0f / 60), ZE_OK);
        ze_bindings_apply(w);
        /* Coalesced: one CHANGED per entity and component per apply. */
        assert_int_equal(counts.changed[ZE_ID(Position).id], ENTITIES * (frame + 1));
        assert_int_equal(counts.changed[ZE_ID(Velocity).id], ENTITIES * (frame + 1));
        assert_int_equal(counts.changed[ZE_ID(Health).id], ENTITIES * (frame + 1));
        assert_int_equal(counts.changed[ZE_ID(Mass).id], ENTITIES * (frame + 1));
        assert_int_equal(counts.other, 0);
        assert_int_equal(counts.bad_value, 0);
    }
    ze_worldtick_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_publish_from_four_threads_while_pumping, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_publishers_create_the_bus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binding_notes_from_parallel_wave, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
