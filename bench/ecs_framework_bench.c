/* ecs_framework_bench.c — bench_ecs_framework: the ECS framework (kernel
 * frame and groups, messages, snapshots, scene files; zengine/ecs.h).
 *
 * Rows (issue "ECS framework", section "Benchmarks: ecs_framework.json"):
 *
 *   frame_overhead           one ze_kernel_frame with dt = 4 * fixed_dt (so
 *                            exactly 4 fixed steps: fixed_dt = 1/64 s is a
 *                            whole number of nanoseconds) and one no-op
 *                            system per group, each iterating a query over
 *                            Position, which all n = 10000 entities have,
 *                            without touching the values. µs per frame.
 *                            Baseline: the same 20 system calls a frame makes
 *                            (FrameInput, FrameSync, 4 x the four Fixed
 *                            groups, FrameView, FrameUI), the same function
 *                            and queries, called through pointers in a plain
 *                            loop: the floor of the work itself, so value -
 *                            baseline is what the framework adds. Target 50.
 *   message_publish_deliver  publish n 16-byte messages of 3 types (in a
 *                            seeded random interleaving, drawn before the
 *                            clock), one subscriber each, then one
 *                            ze_message_pump; ns per message. The handler
 *                            checks every message arrives once, in publish
 *                            order across types. Baseline: the same through
 *                            a growable array of (type, payload) records and
 *                            a loop calling the type's handler. Target 100.
 *   snapshot_save            ze_world_save of a world of n = 1M entities with
 *                            a Transform each, into a ze_byte_writer_t whose
 *                            memory is reused (size reset to 0); MB/s of
 *                            snapshot bytes (1 MB = 10^6 bytes). Every round's
 *                            output must equal the first save byte for byte.
 *   snapshot_load            ze_world_load of that snapshot into a second
 *                            world (each load replaces it whole); MB/s. Every
 *                            round checks entity count and ze_world_hash
 *                            against the saved world's.
 *                            Both snapshot rows: baseline a plain memcpy of
 *                            the same bytes (pre-touched buffers), MB/s, and a
 *                            `_ratio` row (value / baseline of the medians)
 *                            with the target: save >= 0.3, load >=
 *                            0.15.
 *   scene_json_load          ze_scene_load_json of the scene ze_scene_save_json
 *                            wrote for n = 10000 entities (UUID, Name,
 *                            Transform) into a fresh world (created and
 *                            destroyed outside the clock); entities per
 *                            second. Checked: no problems reported, n
 *                            entities, and (once, before the rounds) load ->
 *                            save gives the same bytes. Baseline: jansson's
 *                            json_loadb of the same text, parse only (the
 *                            json_decref is not timed), in entities/s.
 *                            scene_json_load_ratio: value / baseline of the
 *                            medians, target >= 0.5 (issue "ECS: every query
 *                            as fast as plain arrays").
 *   scene_json_load_1m       the same at n = 1,000,000 (~300 MB of JSON; the
 *                            reader parses one entity at a time, the baseline
 *                            builds the whole tree), 3 rounds; and its _ratio,
 *                            target >= 0.5.
 *   hierarchy_static_members_1m  issue 18: ze_hierarchy_update of a world
 *                            of n = 1,000,000 static loose crates (Transform
 *                            only), 8 parents with 8 children each and 16
 *                            spinning loose crates; each round turns the 16
 *                            crates and 2 of the parents (their 16 children
 *                            follow), then times the update; µs per update.
 *                            Baseline: the same update with the members'
 *                            order dropped first (the walk over every
 *                            Transform that the update did before issue 18:
 *                            it recomputes the same rows). Each round checks
 *                            a turned crate's and a child's matrices.
 *
 * Every pair runs in interleaved rounds (ze_bench_compare), medians of 9.
 * One memory manager whose ECS budget is raised to hold the 1M-entity
 * worlds (two alive, plus what a load may build before it swaps), one job
 * system, one kernel; each benchmark creates its worlds and destroys them,
 * so ze_kernel_frame in frame_overhead steps that benchmark's world alone.
 * --smoke: tiny sizes (it runs under ASan and TSan in ctest), no targets.
 */
#include "bench.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zengine/ecs.h"
#include "zengine/job.h"
#include "zengine/mem.h"
#include "ecs/ecs_internal.h"

typedef struct Position {
    float x, y;
} Position;

static ZE_COMPONENT_DECLARE(Position);

/* 1/64 s: 15625000 ns exactly, so dt = 4 * FIXED_DT is exactly 4 steps and
 * the accumulator is empty after every frame (1/60 is not a whole number of
 * nanoseconds: 4 * 1/60 s would make 3 steps now and then). */
static const double FIXED_DT = 1.0 / 64.0;

/* ---------------------------------------------------------------- helpers */

static inline double seconds_since(uint64_t t0)
{
    return (double)(ze_bench_now_ns() - t0) * 1e-9;
}

/* ------------------------------------------------------------ environment */

typedef ze_bench_ecs_env_t env_t;

/* Default profile, with the ECS owner raised so that two 1M-entity worlds
 * with a Transform each (116 bytes a component) fit, plus whatever a load
 * builds before it replaces the world (the kernel's heap grows by regions). */
static ze_result env_create(env_t *env)
{
    ze_result res = ze_bench_ecs_env_create(
        env, ZE_GIB(4),
        (ze_kernel_desc_t){.name = "bench", .fixed_dt = FIXED_DT, .max_substeps = 5});
    if (res != ZE_OK)
        return res;
    ZE_COMPONENT_DEFINE(env->k, Position);
    if (ZE_ID(Position).id == UINT32_MAX) {
        ze_bench_ecs_env_destroy(env);
        return ZE_ERR_STATE;
    }
    return ZE_OK;
}

static void env_destroy(env_t *env)
{
    ze_bench_ecs_env_destroy(env);
}

/* --------------------------------------------------------- frame_overhead */

enum {
    FRAME_GROUPS = 8,
    FIXED_STEPS = 4,
    FRAME_CALLS = 4 + 4 * FIXED_STEPS, /* system runs in one frame */
};

static const ze_system_group frame_groups[FRAME_GROUPS] = {
    ZE_GROUP_FRAME_INPUT,      ZE_GROUP_FRAME_SYNC, ZE_GROUP_FIXED_INPUT, ZE_GROUP_FIXED_DECISION,
    ZE_GROUP_FIXED_SIMULATION, ZE_GROUP_FIXED_POST, ZE_GROUP_FRAME_VIEW,  ZE_GROUP_FRAME_UI,
};

static bool group_is_fixed(ze_system_group g)
{
    return g >= ZE_GROUP_FIXED_INPUT && g <= ZE_GROUP_FIXED_POST;
}

typedef struct frame_sys_t {
    uint64_t visits; /* entities seen by the system's iterations */
    uint64_t runs;
    char pad[48]; /* one cache line each: systems may run on pool threads */
} frame_sys_t;

typedef struct frame_ctx_t {
    ze_kernel_t *k;
    ze_world_t *w;
    uint32_t n, frames; /* entities; frames per round */
    double dt;
    frame_sys_t sys[FRAME_GROUPS];
    /* the baseline's call sequence of one frame */
    ze_system_fn fns[FRAME_CALLS];
    ze_tick_t args[FRAME_CALLS];
    uint32_t failures;
    char why[160];
} frame_ctx_t;

/* Iterates its query (Position, all entities) and does nothing with it. */
static void frame_noop_system(ze_world_t *w, const ze_tick_t *t)
{
    frame_sys_t *s = t->user;
    uint64_t seen = 0;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_bench_do_not_optimize(ze_field(&it, Position));
        seen += it.count;
    }
    s->visits += seen;
    s->runs++;
}

static void frame_reset_counts(frame_ctx_t *c)
{
    for (uint32_t i = 0; i < FRAME_GROUPS; i++)
        c->sys[i].visits = c->sys[i].runs = 0;
}

/* Every system ran as often as its group does (4 times for the Fixed
 * groups) and saw every entity each time. */
static void frame_check_counts(frame_ctx_t *c, const char *side)
{
    for (uint32_t i = 0; i < FRAME_GROUPS; i++) {
        uint64_t runs = (uint64_t)c->frames * (group_is_fixed(frame_groups[i]) ? FIXED_STEPS : 1);
        if (c->sys[i].runs != runs || c->sys[i].visits != runs * c->n) {
            if (!c->failures)
                snprintf(c->why, sizeof(c->why),
                         "%s: %s system ran %llu times over %llu entities, expected %llu x %u",
                         side, ze_system_group_name(frame_groups[i]),
                         (unsigned long long)c->sys[i].runs, (unsigned long long)c->sys[i].visits,
                         (unsigned long long)runs, c->n);
            c->failures++;
        }
    }
}

static double frame_ecs(void *p)
{
    frame_ctx_t *c = p;
    frame_reset_counts(c);
    uint32_t bad = 0, wrong_steps = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t f = 0; f < c->frames; f++) {
        bad += ze_kernel_frame(c->k, c->dt) != ZE_OK;
        wrong_steps += ze_kernel_frame_stats(c->k).substeps != FIXED_STEPS;
    }
    uint64_t t1 = ze_bench_now_ns();
    if ((bad || wrong_steps) && !c->failures)
        snprintf(c->why, sizeof(c->why), "%u frames failed, %u did not make %u fixed steps", bad,
                 wrong_steps, FIXED_STEPS);
    c->failures += bad + wrong_steps;
    frame_check_counts(c, "ze_kernel_frame");
    return (double)(t1 - t0) * 1e-3 / (double)c->frames;
}

/* The same system runs, called through pointers. */
static double frame_base(void *p)
{
    frame_ctx_t *c = p;
    frame_reset_counts(c);
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t f = 0; f < c->frames; f++) {
        for (uint32_t s = 0; s < FRAME_CALLS; s++) {
            ze_system_fn fn = c->fns[s];
            ze_bench_do_not_optimize(&fn);
            fn(c->w, &c->args[s]);
        }
    }
    uint64_t t1 = ze_bench_now_ns();
    frame_check_counts(c, "baseline");
    return (double)(t1 - t0) * 1e-3 / (double)c->frames;
}

static void bench_frame(ze_bench_t *b, const env_t *env)
{
    const char *name = "frame_overhead";
    frame_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->k = env->k;
    c->n = (uint32_t)ze_bench_size(b, 10000, 1000);
    c->frames = (uint32_t)ze_bench_size(b, 200, 5);
    c->dt = FIXED_STEPS * FIXED_DT;
    c->w = ze_world_create(env->k, &(ze_world_desc_t){.name = "frame"});
    if (!c->w) {
        ze_bench_fail(b, name, "ze_world_create failed");
        goto out;
    }
    if (ze_kernel_world_count(env->k) != 1) {
        ze_bench_fail(b, name, "the kernel steps %u worlds, expected this one alone",
                      ze_kernel_world_count(env->k));
        goto out;
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        ze_entity_t e = ze_entity_create(c->w);
        bad += ze_set(c->w, e, Position, {(float)i, (float)(i % 7)}) != ZE_OK;
    }
    if (bad) {
        ze_bench_fail(b, name, "populating %u entities: %u failures", c->n, bad);
        goto out;
    }
    static const char *const sys_names[FRAME_GROUPS] = {
        "noop_frame_input", "noop_frame_sync", "noop_fixed_input", "noop_fixed_decision",
        "noop_fixed_sim",   "noop_fixed_post", "noop_frame_view",  "noop_frame_ui",
    };
    for (uint32_t i = 0; i < FRAME_GROUPS; i++) {
        ze_system_t s = ze_system_add(c->w, &(ze_system_desc_t){.name = sys_names[i],
                                                                .fn = frame_noop_system,
                                                                .user = &c->sys[i],
                                                                .reads = ZE_MASK(Position),
                                                                .group = frame_groups[i]});
        if (s.id == 0) {
            ze_bench_fail(b, name, "ze_system_add (%s) failed",
                          ze_system_group_name(frame_groups[i]));
            goto out;
        }
    }
    /* The baseline: the system runs of one frame, in the frame's order,
     * with the query the framework gives the systems (same key: same id). */
    ze_query_t q = ze_query_create(c->w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    if (q.id == 0) {
        ze_bench_fail(b, name, "ze_query_create failed");
        goto out;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < FRAME_GROUPS; i++) {
        uint32_t times = group_is_fixed(frame_groups[i]) ? FIXED_STEPS : 1;
        for (uint32_t r = 0; r < times; r++) {
            /* the Fixed groups interleave per step: I D S P, I D S P, ... */
            uint32_t slot = i < 2    ? i
                            : i >= 6 ? 2 + 4 * FIXED_STEPS + (i - 6)
                                     : 2 + r * 4 + (i - 2);
            c->fns[slot] = frame_noop_system;
            c->args[slot] =
                (ze_tick_t){.dt = group_is_fixed(frame_groups[i]) ? (float)FIXED_DT : (float)c->dt,
                            .query = q,
                            .user = &c->sys[i],
                            .system = 0,
                            .name = sys_names[i],
                            .group = frame_groups[i]};
            k++;
        }
    }
    ZE_VERIFY(k == FRAME_CALLS);
    /* One frame to apply the adds and build the plans; each group's plan
     * must have been built. */
    ze_result res = ze_kernel_frame(env->k, c->dt);
    for (uint32_t i = 0; i < FRAME_GROUPS; i++) {
        const char *err = ze__world_plan_error(c->w, frame_groups[i]);
        if (err && err[0]) {
            ze_bench_fail(b, name, "plan of %s: %s", ze_system_group_name(frame_groups[i]), err);
            goto out;
        }
    }
    if (res != ZE_OK) {
        ze_bench_fail(b, name, "first frame: %s", ze_result_str(res));
        goto out;
    }

    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), frame_ecs, c, frame_base, c);
    if (c->failures) {
        ze_bench_fail(b, name, "%u failures: %s", c->failures, c->why);
        goto out;
    }
    /* Where the last frame's time went, per group (all fixed steps summed). */
    printf("  %s: %u entities, 8 systems, %u frames a round; last frame by group (us):", name, c->n,
           c->frames);
    for (uint32_t i = 0; i < FRAME_GROUPS; i++)
        printf(" %s %.1f", ze_system_group_name(frame_groups[i]),
               ze_world_group_seconds(c->w, frame_groups[i]) * 1e6);
    printf("\n  %s: the 20 system runs alone take %.2f us; the framework adds %.2f us a frame\n",
           name, r.baseline, r.value - r.baseline);
    ze_bench_add(b, name, c->n, "us/op", ZE_BENCH_LOWER, r.value, r.baseline,
                 b->smoke ? ZE_BENCH_NONE : 50);
out:
    if (c->w)
        ze_world_destroy(c->w);
    ze_bench_table_free(c);
}

/* ------------------------------------------------ message_publish_deliver */

enum { MSG_TYPES = 3, MSG_PAYLOAD = 16 };

/* Three 16-byte payloads; each starts with its publish sequence number. */
typedef struct MsgDamage {
    uint32_t seq;
    uint32_t target;
    float amount, radius;
} MsgDamage;
typedef struct MsgSpawn {
    uint32_t seq;
    uint32_t kind;
    uint64_t owner;
} MsgSpawn;
typedef struct MsgSound {
    uint32_t seq;
    float gain, pitch, pan;
} MsgSound;
_Static_assert(sizeof(MsgDamage) == MSG_PAYLOAD && sizeof(MsgSpawn) == MSG_PAYLOAD &&
                   sizeof(MsgSound) == MSG_PAYLOAD,
               "16-byte messages");

/* The baseline's record: the type, then the payload. */
typedef struct base_msg_t {
    uint32_t type; /* 0..MSG_TYPES-1 */
    uint32_t size;
    uint8_t payload[MSG_PAYLOAD];
} base_msg_t;

typedef struct msg_ctx_t {
    ze_world_t *w;
    uint32_t n;
    const uint8_t *sel; /* [n] type of message i, drawn before the clock */
    ze_message_type_t types[MSG_TYPES];
    /* what the handlers saw */
    uint32_t expected; /* next sequence number */
    uint32_t order_errors;
    uint64_t per_type[MSG_TYPES];
    double sum;
    /* the baseline's queue (grows x2, reused between rounds) */
    base_msg_t *queue;
    uint32_t count, cap;
    ze_message_fn handlers[MSG_TYPES];
    void *users[MSG_TYPES];
    uint32_t failures;
    char why[160];
} msg_ctx_t;

static inline uint32_t msg_type_index(const msg_ctx_t *c, ze_message_type_t t)
{
    for (uint32_t i = 0; i < MSG_TYPES; i++)
        if (c->types[i].id == t.id)
            return i;
    return UINT32_MAX;
}

static inline void msg_check(msg_ctx_t *c, uint32_t ti, uint32_t seq)
{
    if (seq != c->expected || seq >= c->n || c->sel[seq] != ti)
        c->order_errors++;
    c->expected = seq + 1;
    c->per_type[ti < MSG_TYPES ? ti : 0]++;
}

static void on_damage(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    msg_ctx_t *c = user;
    MsgDamage m;
    memcpy(&m, payload, sizeof(m));
    msg_check(c, msg_type_index(c, type) == 0 ? 0 : UINT32_MAX, m.seq);
    c->sum += m.amount;
}
static void on_spawn(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    msg_ctx_t *c = user;
    MsgSpawn m;
    memcpy(&m, payload, sizeof(m));
    msg_check(c, msg_type_index(c, type) == 1 ? 1 : UINT32_MAX, m.seq);
    c->sum += (double)m.kind;
}
static void on_sound(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w;
    msg_ctx_t *c = user;
    MsgSound m;
    memcpy(&m, payload, sizeof(m));
    msg_check(c, msg_type_index(c, type) == 2 ? 2 : UINT32_MAX, m.seq);
    c->sum += m.gain;
}

/* Message i's payload, written into p (16 bytes). */
static inline void msg_make(uint32_t ti, uint32_t i, void *p)
{
    switch (ti) {
    case 0: {
        MsgDamage m = {i, i * 7u, (float)(i & 255), 2.5f};
        memcpy(p, &m, sizeof(m));
        break;
    }
    case 1: {
        MsgSpawn m = {i, i & 15u, (uint64_t)i << 20};
        memcpy(p, &m, sizeof(m));
        break;
    }
    default: {
        MsgSound m = {i, (float)(i & 7) * 0.125f, 1.0f, -0.5f};
        memcpy(p, &m, sizeof(m));
        break;
    }
    }
}

static void msg_reset(msg_ctx_t *c)
{
    c->expected = 0;
    c->order_errors = 0;
    memset(c->per_type, 0, sizeof(c->per_type));
}

static void msg_verify(msg_ctx_t *c, const char *side, uint32_t delivered, uint32_t publish_fails)
{
    uint64_t seen = c->per_type[0] + c->per_type[1] + c->per_type[2];
    if (delivered != c->n || seen != c->n || c->expected != c->n || c->order_errors ||
        publish_fails) {
        if (!c->failures)
            snprintf(c->why, sizeof(c->why),
                     "%s: published %u (%u refused), delivered %u, handlers saw %llu, %u out of "
                     "order",
                     side, c->n, publish_fails, delivered, (unsigned long long)seen,
                     c->order_errors);
        c->failures++;
    }
}

static double msg_ecs(void *p)
{
    msg_ctx_t *c = p;
    msg_reset(c);
    uint32_t refused = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t ti = c->sel[i];
        uint8_t payload[MSG_PAYLOAD];
        msg_make(ti, i, payload);
        refused += ze_message_publish(c->w, c->types[ti], payload) != ZE_OK;
    }
    uint32_t delivered = ze_message_pump(c->w);
    uint64_t t1 = ze_bench_now_ns();
    msg_verify(c, "bus", delivered, refused);
    return (double)(t1 - t0) / (double)c->n;
}

static double msg_base(void *p)
{
    msg_ctx_t *c = p;
    msg_reset(c);
    static const uint32_t sizes[MSG_TYPES] = {sizeof(MsgDamage), sizeof(MsgSpawn),
                                              sizeof(MsgSound)};
    ze_allocator_t sys = ze_mem_system_allocator();
    uint32_t refused = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t ti = c->sel[i];
        if (c->count == c->cap) {
            uint32_t cap = c->cap ? c->cap * 2 : 64;
            base_msg_t *q = ze_realloc(sys, c->queue, sizeof(base_msg_t) * c->cap,
                                       sizeof(base_msg_t) * cap, _Alignof(base_msg_t));
            if (!q) {
                refused++;
                continue;
            }
            c->queue = q;
            c->cap = cap;
        }
        uint8_t payload[MSG_PAYLOAD];
        msg_make(ti, i, payload); /* what the caller hands to publish */
        base_msg_t *m = &c->queue[c->count++];
        m->type = ti;
        m->size = sizes[ti];
        memcpy(m->payload, payload, sizes[ti]);
    }
    uint32_t delivered = 0;
    for (uint32_t i = 0; i < c->count; i++) {
        const base_msg_t *m = &c->queue[i];
        c->handlers[m->type](c->w, c->types[m->type], m->payload, c->users[m->type]);
        delivered++;
    }
    c->count = 0;
    uint64_t t1 = ze_bench_now_ns();
    msg_verify(c, "baseline", delivered, refused);
    return (double)(t1 - t0) / (double)c->n;
}

static void bench_messages(ze_bench_t *b, const env_t *env)
{
    const char *name = "message_publish_deliver";
    msg_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->n = (uint32_t)ze_bench_size(b, 100000, 1000);
    uint8_t *sel = ze_bench_table_alloc(c->n);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x5eed0004);
    for (uint32_t i = 0; i < c->n; i++)
        sel[i] = (uint8_t)ze_rng_below(&rng, MSG_TYPES);
    c->sel = sel;
    c->w = ze_world_create(env->k, &(ze_world_desc_t){.name = "messages"});
    if (!c->w) {
        ze_bench_fail(b, name, "ze_world_create failed");
        goto out;
    }
    static const char *const type_names[MSG_TYPES] = {"MsgDamage", "MsgSpawn", "MsgSound"};
    c->handlers[0] = on_damage;
    c->handlers[1] = on_spawn;
    c->handlers[2] = on_sound;
    for (uint32_t i = 0; i < MSG_TYPES; i++) {
        c->users[i] = c;
        ze_result res = ze_message_register(env->k, type_names[i], MSG_PAYLOAD, &c->types[i]);
        if (res != ZE_OK || c->types[i].id == 0) {
            ze_bench_fail(b, name, "ze_message_register(%s): %s", type_names[i],
                          ze_result_str(res));
            goto out;
        }
        if (ze_message_subscribe(c->w, c->types[i], c->handlers[i], c).id == 0) {
            ze_bench_fail(b, name, "ze_message_subscribe(%s) failed", type_names[i]);
            goto out;
        }
    }
    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), msg_ecs, c, msg_base, c);
    ze_bench_do_not_optimize(&c->sum);
    if (c->failures) {
        ze_bench_fail(b, name, "%u failures: %s", c->failures, c->why);
        goto out;
    }
    printf("  %s: %u messages of 3 types a round (%llu/%llu/%llu in the last), 1 subscriber "
           "each\n",
           name, c->n, (unsigned long long)c->per_type[0], (unsigned long long)c->per_type[1],
           (unsigned long long)c->per_type[2]);
    ze_bench_add(b, name, c->n, "ns/op", ZE_BENCH_LOWER, r.value, r.baseline,
                 b->smoke ? ZE_BENCH_NONE : 100);
out:
    if (c->w)
        ze_world_destroy(c->w);
    if (c->queue)
        ze_free(ze_mem_system_allocator(), c->queue, sizeof(base_msg_t) * c->cap);
    ze_bench_table_free(sel);
    ze_bench_table_free(c);
}

/* ------------------------------------------------------------- snapshots */

typedef struct snap_ctx_t {
    ze_world_t *src, *dst;
    uint32_t n;          /* entities created (the row's n) */
    uint32_t alive;      /* after the holes */
    ze_byte_writer_t wr; /* memory reused between rounds */
    uint8_t *ref;        /* the first save */
    uint8_t *copy;       /* the memcpy baseline's destination */
    size_t size;
    uint64_t hash; /* ze_world_hash of src */
    uint32_t failures;
    char why[200];
} snap_ctx_t;

static inline double mb_per_s(size_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / ((double)ns * 1e-9) * 1e-6 : NAN;
}

static double snap_save(void *p)
{
    snap_ctx_t *c = p;
    c->wr.size = 0;
    uint64_t t0 = ze_bench_now_ns();
    ze_result r = ze_world_save(c->src, &c->wr);
    uint64_t t1 = ze_bench_now_ns();
    if (r != ZE_OK || c->wr.failed || c->wr.size != c->size ||
        memcmp(c->wr.data, c->ref, c->size) != 0) {
        if (!c->failures)
            snprintf(c->why, sizeof(c->why), "save: %s, %zu bytes (first save %zu)%s",
                     ze_result_str(r), c->wr.size, c->size,
                     r == ZE_OK && c->wr.size == c->size ? ", different bytes" : "");
        c->failures++;
    }
    return mb_per_s(c->size, t1 - t0);
}

static double snap_load(void *p)
{
    snap_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    ze_result r = ze_world_load(c->dst, c->ref, c->size);
    uint64_t t1 = ze_bench_now_ns();
    uint32_t count = ze_world_entity_count(c->dst);
    uint64_t h = r == ZE_OK ? ze_world_hash(c->dst) : 0;
    if (r != ZE_OK || count != c->alive || h != c->hash) {
        if (!c->failures)
            snprintf(c->why, sizeof(c->why),
                     "load: %s, %u entities (saved %u), hash %016llx (saved %016llx)",
                     ze_result_str(r), count, c->alive, (unsigned long long)h,
                     (unsigned long long)c->hash);
        c->failures++;
    }
    return mb_per_s(c->size, t1 - t0);
}

static double snap_memcpy(void *p)
{
    snap_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    memcpy(c->copy, c->ref, c->size);
    ze_bench_do_not_optimize(c->copy);
    uint64_t t1 = ze_bench_now_ns();
    return mb_per_s(c->size, t1 - t0);
}

static void snap_rows(ze_bench_t *b, const char *name, uint32_t n, ze_bench_pair_t r, double target)
{
    ze_bench_add(b, name, n, "MB/s", ZE_BENCH_HIGHER, r.value, r.baseline, ZE_BENCH_NONE);
    if (r.baseline > 0) {
        char ratio_name[ZE_BENCH_NAME_MAX];
        snprintf(ratio_name, sizeof(ratio_name), "%s_ratio", name);
        ze_bench_add(b, ratio_name, n, "ratio", ZE_BENCH_HIGHER, r.value / r.baseline,
                     ZE_BENCH_NONE, b->smoke ? ZE_BENCH_NONE : target);
    }
}

static void bench_snapshots(ze_bench_t *b, const env_t *env, bool do_save, bool do_load)
{
    const char *name = do_save ? "snapshot_save" : "snapshot_load";
    snap_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->n = (uint32_t)ze_bench_size(b, 1000000, 2000);
    c->wr = (ze_byte_writer_t){.alloc = ze_mem_system_allocator()};
    c->src = ze_world_create(env->k, &(ze_world_desc_t){.name = "snapshot_src"});
    c->dst = ze_world_create(env->k, &(ze_world_desc_t){.name = "snapshot_dst"});
    if (!c->src || !c->dst) {
        ze_bench_fail(b, name, "ze_world_create failed");
        goto out;
    }
    uint64_t t0 = ze_bench_now_ns();
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        ze_entity_t e = ze_entity_create(c->src);
        ze_transform_t t = ze_transform_identity();
        t.position = (ze_vec3_t){(float)(i % 1024) * 0.5f, (float)(i / 1024) * 0.25f,
                                 (float)(i % 13) - 6.0f};
        t.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, (float)(i % 360) * 0.0174533f);
        t.scale = (ze_vec3_t){1.0f + (float)(i % 3) * 0.5f, 1.0f, 1.0f};
        t.previous_position = t.position;
        bad += ze_component_set(c->src, e, ZE_ID(ze_transform_t), &t) != ZE_OK;
    }
    /* A few holes, so the entity table has a free list to save in order. */
    for (uint32_t i = 1; i < c->n; i += 97) {
        ze_entity_t e = ze_entity_from_index(c->src, i);
        if (!ze_entity_is_null(e))
            bad += ze_entity_destroy(c->src, e) != ZE_OK;
    }
    if (bad) {
        ze_bench_fail(b, name, "populating %u entities: %u failures", c->n, bad);
        goto out;
    }
    ze_hierarchy_update(c->src); /* world matrices as a running game has them */
    c->alive = ze_world_entity_count(c->src);
    c->hash = ze_world_hash(c->src);
    ze_result res = ze_world_save(c->src, &c->wr);
    if (res != ZE_OK || c->wr.failed || c->wr.size == 0) {
        ze_bench_fail(b, name, "first save: %s", ze_result_str(res));
        goto out;
    }
    c->size = c->wr.size;
    c->ref = ze_bench_table_alloc(c->size);
    c->copy = ze_bench_table_alloc(c->size);
    memcpy(c->ref, c->wr.data, c->size);
    printf("  snapshot: %u entities created, %u alive, a Transform each (%zu bytes), built in "
           "%.0f ms; snapshot %zu bytes (%.1f an entity)\n",
           c->n, c->alive, sizeof(ze_transform_t), seconds_since(t0) * 1e3, c->size,
           (double)c->size / c->alive);
    fflush(stdout);

    uint32_t rounds = ze_bench_rounds(b, 9);
    if (do_save) {
        ze_bench_pair_t r = ze_bench_compare(rounds, snap_save, c, snap_memcpy, c);
        if (c->failures)
            ze_bench_fail(b, "snapshot_save", "%u failures: %s", c->failures, c->why);
        else
            snap_rows(b, "snapshot_save", c->n, r, 0.3);
    }
    if (do_load) {
        c->failures = 0;
        ze_bench_pair_t r = ze_bench_compare(rounds, snap_load, c, snap_memcpy, c);
        if (c->failures) {
            ze_bench_fail(b, "snapshot_load", "%u failures: %s", c->failures, c->why);
        } else {
            /* Save -> load -> save is byte-identical. */
            c->wr.size = 0;
            res = ze_world_save(c->dst, &c->wr);
            if (res != ZE_OK || c->wr.size != c->size || memcmp(c->wr.data, c->ref, c->size))
                ze_bench_fail(b, "snapshot_load",
                              "saving the loaded world: %s, %zu bytes (first %zu)%s",
                              ze_result_str(res), c->wr.size, c->size,
                              c->wr.size == c->size ? ", different bytes" : "");
            else
                snap_rows(b, "snapshot_load", c->n, r, 0.15);
        }
    }
out:
    ze_byte_writer_free(&c->wr);
    if (c->dst)
        ze_world_destroy(c->dst);
    if (c->src)
        ze_world_destroy(c->src);
    if (c->ref)
        ze_bench_table_free(c->ref);
    if (c->copy)
        ze_bench_table_free(c->copy);
    ze_bench_table_free(c);
}

/* --------------------------------------------------------- scene_json_load */

typedef struct scene_ctx_t {
    ze_kernel_t *k;
    const char *text;
    size_t len;
    uint32_t n;
    uint32_t failures;
    char why[400];
} scene_ctx_t;

static double scene_ecs(void *p)
{
    scene_ctx_t *c = p;
    ze_world_t *w = ze_world_create(c->k, &(ze_world_desc_t){.name = "scene_load"});
    if (!w) {
        c->failures++;
        snprintf(c->why, sizeof(c->why), "ze_world_create failed");
        return NAN;
    }
    ze_scene_report_t *rep = ze_bench_table_alloc(sizeof(*rep));
    uint64_t t0 = ze_bench_now_ns();
    ze_result r = ze_scene_load_json(w, c->text, c->len, rep);
    uint64_t t1 = ze_bench_now_ns();
    uint32_t count = ze_world_entity_count(w);
    if (r != ZE_OK || rep->problems || rep->entities != c->n || count != c->n) {
        if (!c->failures)
            snprintf(c->why, sizeof(c->why),
                     "%s, %u problems (see the log), %u entities loaded, %u alive, "
                     "expected %u",
                     ze_result_str(r), rep->problems, rep->entities, count, c->n);
        c->failures++;
    }
    ze_bench_table_free(rep);
    ze_world_destroy(w);
    return (double)c->n / ((double)(t1 - t0) * 1e-9);
}

static double scene_jansson(void *p)
{
    scene_ctx_t *c = p;
    json_error_t err;
    uint64_t t0 = ze_bench_now_ns();
    json_t *root = json_loadb(c->text, c->len, 0, &err);
    uint64_t t1 = ze_bench_now_ns();
    json_t *ents = root ? json_object_get(root, "entities") : NULL;
    if (!ents || json_array_size(ents) != c->n) {
        if (!c->failures)
            snprintf(c->why, sizeof(c->why), "jansson: %s",
                     root ? "no \"entities\" array of the expected size" : err.text);
        c->failures++;
    }
    json_decref(root);
    return (double)c->n / ((double)(t1 - t0) * 1e-9);
}

static void bench_scene(ze_bench_t *b, const env_t *env, const char *name, uint32_t n_full,
                        uint32_t n_smoke, uint32_t rounds)
{
    scene_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->k = env->k;
    c->n = (uint32_t)ze_bench_size(b, n_full, n_smoke);
    ze_byte_writer_t text = {.alloc = ze_mem_system_allocator()};
    ze_byte_writer_t again = {.alloc = ze_mem_system_allocator()};
    ze_world_t *w = ze_world_create(env->k, &(ze_world_desc_t){.name = "scene_src"});
    ze_world_t *back = NULL;
    ze_scene_report_t *rep = ze_bench_table_alloc(sizeof(*rep));
    if (!w) {
        ze_bench_fail(b, name, "ze_world_create failed");
        goto out;
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        ze_entity_t e = ze_entity_create(w);
        ze_uuid_component_t u = {ze_uuid_v5(ZE_UUID_NAMESPACE_ZENGINE, &i, sizeof(i))};
        ze_name_t nm;
        memset(&nm, 0, sizeof(nm));
        snprintf(nm.value, sizeof(nm.value), "entity_%u", i);
        ze_transform_t t = ze_transform_identity();
        t.position = (ze_vec3_t){(float)(i % 100) * 0.5f, (float)(i / 100) * 0.25f, -1.5f};
        t.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, (float)(i % 90) * 0.01f);
        t.scale = (ze_vec3_t){1.0f, 2.0f, 0.5f};
        bad += ze_component_set(w, e, ZE_ID(ze_uuid_component_t), &u) != ZE_OK;
        bad += ze_component_set(w, e, ZE_ID(ze_name_t), &nm) != ZE_OK;
        bad += ze_component_set(w, e, ZE_ID(ze_transform_t), &t) != ZE_OK;
    }
    ze_result res = bad ? ZE_ERR_STATE : ze_scene_save_json(w, &text);
    if (res != ZE_OK || text.failed || text.size == 0) {
        ze_bench_fail(b, name, "building the scene: %u failures, save: %s", bad,
                      ze_result_str(res));
        goto out;
    }
    c->text = (const char *)text.data;
    c->len = text.size;
    /* The scene reads back to the same bytes (load -> save). */
    back = ze_world_create(env->k, &(ze_world_desc_t){.name = "scene_back"});
    res = back ? ze_scene_load_json(back, c->text, c->len, rep) : ZE_ERR_STATE;
    if (res == ZE_OK)
        res = ze_scene_save_json(back, &again);
    if (res != ZE_OK || again.size != text.size || memcmp(again.data, text.data, text.size)) {
        ze_bench_fail(b, name, "load -> save round trip: %s, %zu bytes (first %zu)%s",
                      ze_result_str(res), again.size, text.size,
                      res == ZE_OK && again.size == text.size ? ", different bytes" : "");
        goto out;
    }
    printf("  %s: %u entities (UUID, Name, Transform), %zu bytes of JSON (%.0f an entity)\n", name,
           c->n, c->len, (double)c->len / c->n);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, rounds), scene_ecs, c, scene_jansson, c);
    if (c->failures) {
        ze_bench_fail(b, name, "%u failures: %s", c->failures, c->why);
        goto out;
    }
    ze_bench_add(b, name, c->n, "items/s", ZE_BENCH_HIGHER, r.value, r.baseline, ZE_BENCH_NONE);
    if (r.baseline > 0) {
        char ratio_name[ZE_BENCH_NAME_MAX];
        snprintf(ratio_name, sizeof(ratio_name), "%s_ratio", name);
        ze_bench_add(b, ratio_name, c->n, "ratio", ZE_BENCH_HIGHER, r.value / r.baseline,
                     ZE_BENCH_NONE, b->smoke ? ZE_BENCH_NONE : 0.5);
    }
out:
    if (back)
        ze_world_destroy(back);
    if (w)
        ze_world_destroy(w);
    ze_byte_writer_free(&text);
    ze_byte_writer_free(&again);
    ze_bench_table_free(rep);
    ze_bench_table_free(c);
}

/* -------------------------------------------------------------------- main */

/* ------------------------------------------------------------ hierarchy */

enum { HIER_PARENTS = 8, HIER_CHILDREN = 8, HIER_SPIN = 16, HIER_SPIN_PARENTS = 2 };

typedef struct hier_ctx_t {
    ze_world_t *w;
    ze_entity_t spin[HIER_SPIN];
    ze_entity_t parent[HIER_PARENTS];
    ze_entity_t child[HIER_PARENTS][HIER_CHILDREN];
    float angle;
    uint32_t failures;
    char why[160];
} hier_ctx_t;

static void hier_turn(hier_ctx_t *c)
{
    c->angle += 0.01f;
    ze_quat_t q = ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, c->angle);
    for (uint32_t i = 0; i < HIER_SPIN; i++)
        ze_get_mut(c->w, c->spin[i], ze_transform_t)->rotation = q;
    for (uint32_t i = 0; i < HIER_SPIN_PARENTS; i++)
        ze_get_mut(c->w, c->parent[i], ze_transform_t)->rotation = q;
}

static bool hier_near(ze_mat4_t a, ze_mat4_t b)
{
    for (int col = 0; col < 4; col++)
        for (int r = 0; r < 4; r++)
            if (!(fabsf(a.m[col][r] - b.m[col][r]) <= 1e-4f))
                return false;
    return true;
}

static void hier_check(hier_ctx_t *c, const char *who)
{
    const ze_transform_t *s = ze_get(c->w, c->spin[3], ze_transform_t);
    const ze_transform_t *p = ze_get(c->w, c->parent[1], ze_transform_t);
    const ze_transform_t *k = ze_get(c->w, c->child[1][5], ze_transform_t);
    ze_mat4_t ks = ze_mat4_mul(p->world, ze_mat4_from_trs(k->position, k->rotation, k->scale));
    if (!hier_near(s->world, ze_mat4_from_trs(s->position, s->rotation, s->scale)) ||
        !hier_near(k->world, ks)) {
        if (!c->failures++)
            snprintf(c->why, sizeof c->why, "%s: a turned crate's or a child's matrix is stale",
                     who);
    }
}

static double hier_round(hier_ctx_t *c, bool drop_order, const char *who)
{
    hier_turn(c);
    if (drop_order && c->w->hier_cache)
        c->w->hier_cache->valid = false;
    uint64_t t0 = ze_bench_now_ns();
    ze_result res = ze_hierarchy_update(c->w);
    uint64_t t1 = ze_bench_now_ns();
    if (res != ZE_OK && !c->failures++)
        snprintf(c->why, sizeof c->why, "%s: ze_hierarchy_update: %s", who, ze_result_str(res));
    hier_check(c, who);
    return (double)(t1 - t0) / 1e3;
}

static double hier_members(void *ctx)
{
    return hier_round(ctx, false, "members' order");
}

static double hier_full_walk(void *ctx)
{
    return hier_round(ctx, true, "full walk");
}

static void bench_hierarchy(ze_bench_t *b, const env_t *env)
{
    const char *name = "hierarchy_static_members_1m";
    uint32_t n = (uint32_t)ze_bench_size(b, 1000000, 20000);
    hier_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->w = ze_world_create(env->k, &(ze_world_desc_t){.name = "hierarchy"});
    if (!c->w) {
        ze_bench_fail(b, name, "ze_world_create failed");
        goto out;
    }
    ze_transform_t t = ze_transform_identity();
    for (uint32_t i = 0; i < n; i++) {
        t.position = (ze_vec3_t){(float)(i % 1000), 0, (float)(i / 1000)};
        ze_entity_t e = ze_entity_create(c->w);
        if (ze_entity_is_null(e) || ze_component_set(c->w, e, ZE_ID(ze_transform_t), &t) != ZE_OK) {
            ze_bench_fail(b, name, "creating crate %u failed", i);
            goto out;
        }
        if (i < HIER_SPIN)
            c->spin[i] = e;
        else if (i < HIER_SPIN + HIER_PARENTS)
            c->parent[i - HIER_SPIN] = e;
    }
    for (uint32_t p = 0; p < HIER_PARENTS; p++)
        for (uint32_t k = 0; k < HIER_CHILDREN; k++) {
            t.position = (ze_vec3_t){1.0f + (float)k, 0.5f, 0};
            ze_entity_t e = ze_entity_create(c->w);
            if (ze_entity_is_null(e) ||
                ze_component_set(c->w, e, ZE_ID(ze_transform_t), &t) != ZE_OK ||
                ze_set(c->w, e, ze_parent_t, {c->parent[p]}) != ZE_OK) {
                ze_bench_fail(b, name, "creating a child failed");
                goto out;
            }
            c->child[p][k] = e;
        }
    if (ze_hierarchy_update(c->w) != ZE_OK) {
        ze_bench_fail(b, name, "the first ze_hierarchy_update failed");
        goto out;
    }
    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), hier_members, c, hier_full_walk, c);
    if (c->failures) {
        ze_bench_fail(b, name, "%u failures: %s", c->failures, c->why);
        goto out;
    }
    printf("  %s: %u static crates, %u parents x %u children, %u spinning crates and %u "
           "spinning parents; us per update\n",
           name, n, HIER_PARENTS, HIER_CHILDREN, HIER_SPIN, HIER_SPIN_PARENTS);
    ze_bench_add(b, name, n, "us/op", ZE_BENCH_LOWER, r.value, r.baseline, ZE_BENCH_NONE);
out:
    if (c->w)
        ze_world_destroy(c->w);
    ze_bench_table_free(c);
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "ecs_framework", argc, argv);

    env_t env;
    ze_result res = env_create(&env);
    if (res != ZE_OK) {
        ze_bench_fail(&b, "setup", "creating the manager, job system and kernel: %s",
                      ze_result_str(res));
        return ze_bench_finish(&b);
    }
    if (ze_mem_is_passthrough(env.mm))
        printf("  note: pass-through build, engine allocators forward to malloc\n");

    /* First, while its world is the kernel's only one. */
    if (ze_bench_enabled(&b, "frame_overhead"))
        bench_frame(&b, &env);
    if (ze_bench_enabled(&b, "message_publish_deliver"))
        bench_messages(&b, &env);
    bool save =
        ze_bench_enabled(&b, "snapshot_save") || ze_bench_enabled(&b, "snapshot_save_ratio");
    bool load =
        ze_bench_enabled(&b, "snapshot_load") || ze_bench_enabled(&b, "snapshot_load_ratio");
    if (save || load)
        bench_snapshots(&b, &env, save, load);
    if (ze_bench_enabled(&b, "scene_json_load") || ze_bench_enabled(&b, "scene_json_load_ratio"))
        bench_scene(&b, &env, "scene_json_load", 10000, 200, 9);
    if (ze_bench_enabled(&b, "scene_json_load_1m") ||
        ze_bench_enabled(&b, "scene_json_load_1m_ratio"))
        bench_scene(&b, &env, "scene_json_load_1m", 1000000, 500, 3);

    if (ze_bench_enabled(&b, "hierarchy_static_members_1m"))
        bench_hierarchy(&b, &env);

    env_destroy(&env);
    return ze_bench_finish(&b);
}
