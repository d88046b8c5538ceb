/* ecs_bench.c — bench_ecs: the ECS (zengine/ecs.h) against flat arrays.
 *
 * Every scenario runs at n = 10000, 100000 and 1000000 entities (ns per
 * entity or per op) against a baseline from this binary, in interleaved
 * rounds (ze_bench_compare: ABBA after one warm-up of each), medians. The
 * baseline is the entity store written the obvious way: a generation array,
 * a 64-bit component mask per slot, and one flat array per component indexed
 * by the slot (packed arrays of the matched entities for iteration).
 *
 * Components: Position = {float x, y}, Velocity = {float x, y},
 * Mass = {float m}, Health = {float hp}.
 *
 * Set-up of every ECS world, as a game does at start-up: register the
 * components, create the world, then the systems' queries, and only then
 * populate it. The queries are created BEFORE any entity exists, with auto
 * groups on (the default), so they create the packs {Position,
 * Velocity} and {Position, Velocity, Mass}; the ECS keeps them packed while
 * the world is populated. Query creation is never timed.
 *
 * Population: entities are created in order and get Position in that order;
 * Velocity is then added in a seeded random order over all entities and Mass
 * to a random half in another random order, so dense arrays do not line up
 * by accident. Iteration goes through ze_query_iter / ze_query_next /
 * ze_field and runs the same (non-inlined) kernel function as the baseline;
 * its results are compared with the baseline's bit for bit afterwards. Random
 * orders are drawn before the clock starts.
 *
 * At the largest n each scenario also gets a `<scenario>_ratio` row (value /
 * baseline of the medians) carrying the target. At the largest n
 * only, destroy_nogroups and iterate_pos_vel_nogroups repeat destroy and
 * iterate_pos_vel (same baselines, same method) in worlds created with
 * no_auto_packs, so no group exists (checked with ze_pack_size); their
 * ratio rows carry no target: they show what the packs cost each
 * side. destroy times n ze_entity_destroy calls (creation order) plus the
 * world's next query iteration, which settles the destroys the ECS deferred
 * (their storage is compacted in bulk there). bytes_per_entity is
 * the growth of peak RSS (VmHWM) of a child forked before anything else ran,
 * for 1M entities with Position + Velocity. commands_add_flush,
 * tick_empty_systems and parallel_speedup measure commands and WorldTick.
 */
#include "bench.h"
#include "ecs_game_bench.h"

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
typedef struct Velocity {
    float x, y;
} Velocity;
typedef struct Mass {
    float m;
} Mass;
typedef struct Health {
    float hp;
} Health;

static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Mass);
static ZE_COMPONENT_DECLARE(Health);

/* Baseline mask bits. */
enum { B_POS = 1u << 0, B_VEL = 1u << 1, B_MASS = 1u << 2, B_HEALTH = 1u << 3 };

static const float DT = 1.0f / 60.0f;

/* The targets at n = 1000000, as value / baseline. */
typedef struct scenario_t {
    const char *name;
    double target;
    bool no_groups; /* informational: world without groups, largest n only */
    bool info;      /* informational: a ratio row without a target */
} scenario_t;

enum {
    S_CREATE_FRESH,
    S_CREATE_REUSE,
    S_ITERATE_PV,
    S_ITERATE_3C,
    S_ADD,
    S_REMOVE,
    S_GET_RANDOM,
    S_DESTROY,
    S_COMMANDS,
    S_ITERATE_PV_NG,
    S_DESTROY_NG,
    S_ITERATE_PV_TRACKED,
    S_CHANGED_1PCT,
    S_COUNT
};

static const scenario_t scenarios[S_COUNT] = {
    [S_CREATE_FRESH] = {.name = "create_fresh", .target = 1.7},
    [S_CREATE_REUSE] = {.name = "create_reuse", .target = 11},
    [S_ITERATE_PV] = {.name = "iterate_pos_vel", .target = 1.25},
    [S_ITERATE_3C] = {.name = "iterate_3comp_half", .target = 1.5},
    [S_ADD] = {.name = "add_component", .target = 5.3},
    [S_REMOVE] = {.name = "remove_component", .target = 20},
    [S_GET_RANDOM] = {.name = "get_random", .target = 3.7},
    [S_DESTROY] = {.name = "destroy", .target = 6.6},
    [S_COMMANDS] = {.name = "commands_add_flush", .target = NAN},
    [S_ITERATE_PV_NG] = {.name = "iterate_pos_vel_nogroups", .target = NAN, .no_groups = true},
    [S_DESTROY_NG] = {.name = "destroy_nogroups", .target = NAN, .no_groups = true},
    /* Change tracking: iterate_pos_vel with Position's rows versioned (the
     * walk stamps each run's rows), and visiting the 1 % of rows written
     * since a version (ze_changed_iter) against a loop over a list of them. */
    [S_ITERATE_PV_TRACKED] = {.name = "iterate_pos_vel_tracked", .target = NAN, .info = true},
    [S_CHANGED_1PCT] = {.name = "changed_iter_1pct", .target = NAN, .info = true},
};

enum { MAX_SIZES = 3 };

/* ---------------------------------------------------------------- helpers */

/* A seeded random permutation of 0..n-1. */
static void shuffle(uint32_t *perm, uint32_t n, uint64_t seed)
{
    ze_rng_t rng;
    ze_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)ze_rng_below(&rng, i);
        uint32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

/* Initial values by creation ordinal. */
static inline Position pos_init(uint32_t k)
{
    return (Position){(float)(k % 1024) * 0.5f, (float)(k / 1024) * 0.25f};
}
static inline Velocity vel_init(uint32_t k)
{
    return (Velocity){1.0f + (float)(k % 7) * 0.125f, -0.5f + (float)(k % 5) * 0.25f};
}
static inline Mass mass_init(uint32_t k)
{
    return (Mass){1.0f + (float)(k % 3) * 0.5f};
}

static uint64_t hash_bytes(const void *p, size_t len)
{
    const uint8_t *s = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* The kernels, shared by the ECS runs and the baselines. Not inlined, so
 * both run the very same code (and so produce the same bits). */
__attribute__((noinline)) static void integrate(Position *restrict p, const Velocity *restrict v,
                                                uint32_t count, float dt)
{
    for (uint32_t i = 0; i < count; i++) {
        p[i].x += v[i].x * dt;
        p[i].y += v[i].y * dt;
    }
}

__attribute__((noinline)) static void integrate_mass(Position *restrict p,
                                                     const Velocity *restrict v,
                                                     const Mass *restrict m, uint32_t count,
                                                     float dt)
{
    for (uint32_t i = 0; i < count; i++) {
        float s = m[i].m * dt;
        p[i].x += v[i].x * s;
        p[i].y += v[i].y * s;
    }
}

/* ------------------------------------------------------------ environment */

typedef ze_bench_ecs_env_t env_t;

/* Default profile, with the ECS owner given room for the 1M-entity worlds
 * (two alive at a time) whatever the profile's own ECS budget is. */
static ze_result env_create(env_t *env)
{
    ze_result res = ze_bench_ecs_env_create(env, ZE_GIB(2), (ze_kernel_desc_t){.name = "bench"});
    if (res != ZE_OK)
        return res;
    ZE_COMPONENT_DEFINE(env->k, Position);
    ZE_COMPONENT_DEFINE(env->k, Velocity);
    ZE_COMPONENT_DEFINE(env->k, Mass);
    ZE_COMPONENT_DEFINE(env->k, Health);
    if (ZE_ID(Position).id == UINT32_MAX || ZE_ID(Velocity).id == UINT32_MAX ||
        ZE_ID(Mass).id == UINT32_MAX || ZE_ID(Health).id == UINT32_MAX) {
        ze_bench_ecs_env_destroy(env);
        return ZE_ERR_STATE;
    }
    return ZE_OK;
}

static void env_destroy(env_t *env)
{
    ze_bench_ecs_env_destroy(env);
}

/* A world as a game sets one up: created, then its systems' queries (and so
 * the packs, unless no_groups), then populated by the caller. */
typedef struct bench_world_t {
    ze_world_t *w;
    ze_query_t q_pv;  /* with Position, Velocity; writes Position */
    ze_query_t q_pvm; /* with Position, Velocity, Mass; writes Position */
} bench_world_t;

static bool world_new_layout(const env_t *env, bench_world_t *bw, bool no_groups)
{
    memset(bw, 0, sizeof(*bw));
    bw->w =
        ze_world_create(env->k, &(ze_world_desc_t){.name = "bench", .no_auto_packs = no_groups});
    if (!bw->w)
        return false;
    bw->q_pv = ze_query_create(
        bw->w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity), .write = ZE_MASK(Position)});
    bw->q_pvm = ze_query_create(bw->w, &(ze_query_desc_t){.with = ZE_MASK(Position, Velocity, Mass),
                                                          .write = ZE_MASK(Position)});
    if (bw->q_pv.id == 0 || bw->q_pvm.id == 0) {
        ze_world_destroy(bw->w);
        bw->w = NULL;
        return false;
    }
    return true;
}

static bool world_new(const env_t *env, bench_world_t *bw)
{
    return world_new_layout(env, bw, false);
}

/* True when the world has no group for either of the queries' sets. */
static bool world_has_no_groups(const ze_world_t *w)
{
    return ze_pack_size(w, ZE_MASK(Position, Velocity)) == 0 &&
           ze_pack_size(w, ZE_MASK(Position, Velocity, Mass)) == 0;
}

static void world_free(bench_world_t *bw)
{
    if (bw->w)
        ze_world_destroy(bw->w);
    bw->w = NULL;
}

/* Creates n entities into e[], Position in creation order, Velocity in the
 * order vperm, Mass (when mperm) on mperm[0..n/2). False on any failure. */
static bool populate(ze_world_t *w, ze_entity_t *e, uint32_t n, const uint32_t *vperm,
                     const uint32_t *mperm)
{
    uint32_t bad = 0;
    for (uint32_t k = 0; k < n; k++) {
        e[k] = ze_entity_create(w);
        Position p = pos_init(k);
        bad += ze_component_set(w, e[k], ZE_ID(Position), &p) != ZE_OK;
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = vperm[j];
        Velocity v = vel_init(k);
        bad += ze_component_set(w, e[k], ZE_ID(Velocity), &v) != ZE_OK;
    }
    if (mperm) {
        for (uint32_t j = 0; j < n / 2; j++) {
            uint32_t k = mperm[j];
            Mass m = mass_init(k);
            bad += ze_component_set(w, e[k], ZE_ID(Mass), &m) != ZE_OK;
        }
    }
    return bad == 0;
}

/* ------------------------------------------------- bytes_per_entity (child) */

typedef struct bytes_report_t {
    int ok;
    int64_t hwm_before, hwm_after;
    int64_t rss_before, rss_after;
} bytes_report_t;

/* In the child: the ECS. The process-wide parts (manager, job system,
 * kernel, registry) and the caller's tables (handles, the random order)
 * exist before the first reading; the world, its queries and the entities
 * are what the growth measures. */
static void bytes_child_ecs(uint32_t n, bytes_report_t *r)
{
    ze_entity_t *e = ze_bench_table_alloc((size_t)n * sizeof(*e));
    uint32_t *vperm = ze_bench_table_alloc((size_t)n * sizeof(*vperm));
    shuffle(vperm, n, 0x5eed0001);
    env_t env;
    if (env_create(&env) != ZE_OK)
        return;
    r->hwm_before = ze_bench_proc_status_bytes("VmHWM");
    r->rss_before = ze_bench_proc_status_bytes("VmRSS");
    bench_world_t bw;
    if (world_new(&env, &bw)) {
        bool ok = populate(bw.w, e, n, vperm, NULL);
        r->hwm_after = ze_bench_proc_status_bytes("VmHWM");
        r->rss_after = ze_bench_proc_status_bytes("VmRSS");
        r->ok = ok && ze_world_entity_count(bw.w) == n &&
                ze_component_population(bw.w, ZE_ID(Velocity)) == n && r->hwm_before >= 0 &&
                r->hwm_after >= 0;
        world_free(&bw);
    }
    env_destroy(&env);
}

/* In the child: the baseline's flat arrays (generation, mask, Position,
 * Velocity), filled in the same orders. */
static void bytes_child_flat(uint32_t n, bytes_report_t *r)
{
    uint32_t *vperm = ze_bench_table_alloc((size_t)n * sizeof(*vperm));
    shuffle(vperm, n, 0x5eed0001);
    r->hwm_before = ze_bench_proc_status_bytes("VmHWM");
    r->rss_before = ze_bench_proc_status_bytes("VmRSS");
    uint32_t *gen = ze_mem_sys_alloc((size_t)n * sizeof(*gen));
    uint64_t *mask = ze_mem_sys_alloc((size_t)n * sizeof(*mask));
    Position *pos = ze_mem_sys_alloc((size_t)n * sizeof(*pos));
    Velocity *vel = ze_mem_sys_alloc((size_t)n * sizeof(*vel));
    if (!gen || !mask || !pos || !vel)
        return;
    for (uint32_t k = 0; k < n; k++) {
        gen[k] = 1;
        mask[k] = B_POS;
        pos[k] = pos_init(k);
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = vperm[j];
        vel[k] = vel_init(k);
        mask[k] |= B_VEL;
    }
    ze_bench_do_not_optimize(gen);
    ze_bench_do_not_optimize(mask);
    ze_bench_do_not_optimize(pos);
    ze_bench_do_not_optimize(vel);
    r->hwm_after = ze_bench_proc_status_bytes("VmHWM");
    r->rss_after = ze_bench_proc_status_bytes("VmRSS");
    r->ok = r->hwm_before >= 0 && r->hwm_after >= 0;
}

typedef struct bytes_child_t {
    uint32_t n;
    bool ecs;
} bytes_child_t;

static void bytes_child(void *report, void *ctx)
{
    const bytes_child_t *c = ctx;
    if (c->ecs)
        bytes_child_ecs(c->n, report);
    else
        bytes_child_flat(c->n, report);
}

static bool measure_bytes(uint32_t n, bool ecs, bytes_report_t *out)
{
    bytes_child_t c = {.n = n, .ecs = ecs};
    return ze_bench_run_in_child(bytes_child, &c, out, sizeof(*out)) && out->ok;
}

static void bench_bytes(ze_bench_t *b)
{
    const char *name = "bytes_per_entity";
    uint32_t n = (uint32_t)ze_bench_size(b, 1000000, 20000);
    bytes_report_t re, rf;
    if (!measure_bytes(n, true, &re)) {
        ze_bench_fail(b, name, "the ECS child could not measure");
        return;
    }
    bool flat_ok = measure_bytes(n, false, &rf);
    /* Peaks do not shrink; a negative difference cannot happen. */
    double ecs = (double)ZE_MAX(re.hwm_after - re.hwm_before, 0) / n;
    double flat = flat_ok ? (double)ZE_MAX(rf.hwm_after - rf.hwm_before, 0) / n : NAN;
    printf("  %s: %u entities with Position+Velocity: VmHWM %lld -> %lld KiB (VmRSS %lld -> "
           "%lld KiB); flat arrays (gen, mask, Position, Velocity): VmHWM %lld -> %lld KiB\n",
           name, n, (long long)(re.hwm_before / 1024), (long long)(re.hwm_after / 1024),
           (long long)(re.rss_before / 1024), (long long)(re.rss_after / 1024),
           (long long)(rf.hwm_before / 1024), (long long)(rf.hwm_after / 1024));
    ze_bench_add(b, name, 1, "bytes", ZE_BENCH_LOWER, ecs, flat, b->smoke ? ZE_BENCH_NONE : 46);
}

/* ----------------------------------------------------------- the fixture */

/* The populated world shared by the iteration, get, add/remove and command
 * scenarios of one size, and the baseline's arrays with the same contents.
 * Baseline slot k is the entity created k-th (handle gen 1 << 32 | k). */
typedef struct fixture_t {
    const env_t *env;
    uint32_t n;
    bench_world_t bw;
    ze_entity_t *e;      /* [n] in creation order */
    uint32_t *ordinal;   /* [max slot + 1]: creation ordinal of an ECS slot */
    uint32_t slot_limit; /* max slot + 1 */
    uint32_t *vperm;     /* [n] order Velocity was added in */
    uint32_t *mperm;     /* [n] Mass went to mperm[0..n/2) */
    uint8_t *has_mass;   /* [n] by ordinal */
    uint32_t *gperm;     /* [n] get_random order */
    ze_entity_t *ge;     /* [n] ECS handles in get order */
    uint64_t *gb;        /* [n] baseline handles in get order */
    uint32_t matched;    /* entities with Mass */

    /* baseline: flat, by slot (packed: every entity has Position+Velocity) */
    uint64_t *bh; /* [n] handles */
    uint32_t *bgen;
    uint64_t *bmask;
    Position *bpos;
    Velocity *bvel;
    Health *bhealth;
    /* baseline for the 3-component pass: packed arrays of the matched ones,
     * in ordinal order; b3ord[i] is the ordinal */
    Position *b3pos;
    Velocity *b3vel;
    Mass *b3mass;
    uint32_t *b3ord;
} fixture_t;

static void fixture_free(fixture_t *f)
{
    world_free(&f->bw);
    void *tables[] = {f->e,    f->ordinal, f->vperm, f->mperm, f->has_mass, f->gperm,
                      f->ge,   f->gb,      f->bh,    f->bgen,  f->bmask,    f->bpos,
                      f->bvel, f->bhealth, f->b3pos, f->b3vel, f->b3mass,   f->b3ord};
    for (size_t i = 0; i < ZE_COUNTOF(tables); i++)
        ze_bench_table_free(tables[i]);
    memset(f, 0, sizeof(*f));
}

static bool fixture_init(fixture_t *f, const env_t *env, uint32_t n, bool no_groups)
{
    memset(f, 0, sizeof(*f));
    f->env = env;
    f->n = n;
    f->e = ze_bench_table_alloc((size_t)n * sizeof(*f->e));
    f->vperm = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    f->mperm = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    f->gperm = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    f->has_mass = ze_bench_table_alloc(n);
    shuffle(f->vperm, n, 0x5eed0001);
    shuffle(f->mperm, n, 0x5eed0002);
    shuffle(f->gperm, n, 0x5eed0003);
    f->matched = n / 2;
    for (uint32_t j = 0; j < f->matched; j++)
        f->has_mass[f->mperm[j]] = 1;

    if (!world_new_layout(env, &f->bw, no_groups) ||
        !populate(f->bw.w, f->e, n, f->vperm, f->mperm) ||
        (no_groups && !world_has_no_groups(f->bw.w))) {
        fixture_free(f);
        return false;
    }
    uint32_t max_slot = 0;
    for (uint32_t k = 0; k < n; k++)
        max_slot = ZE_MAX(max_slot, ze_entity_index(f->e[k]));
    f->slot_limit = max_slot + 1;
    f->ordinal = ze_bench_table_alloc((size_t)f->slot_limit * sizeof(uint32_t));
    for (uint32_t k = 0; k < n; k++)
        f->ordinal[ze_entity_index(f->e[k])] = k;

    f->bh = ze_bench_table_alloc((size_t)n * sizeof(uint64_t));
    f->bgen = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    f->bmask = ze_bench_table_alloc((size_t)n * sizeof(uint64_t));
    f->bpos = ze_bench_table_alloc((size_t)n * sizeof(Position));
    f->bvel = ze_bench_table_alloc((size_t)n * sizeof(Velocity));
    f->bhealth = ze_bench_table_alloc((size_t)n * sizeof(Health));
    for (uint32_t k = 0; k < n; k++) {
        f->bh[k] = (uint64_t)1 << 32 | k;
        f->bgen[k] = 1;
        f->bmask[k] = B_POS | B_VEL | (f->has_mass[k] ? B_MASS : 0);
        f->bpos[k] = pos_init(k);
        f->bvel[k] = vel_init(k);
    }
    uint32_t m = f->matched;
    f->b3pos = ze_bench_table_alloc((size_t)m * sizeof(Position));
    f->b3vel = ze_bench_table_alloc((size_t)m * sizeof(Velocity));
    f->b3mass = ze_bench_table_alloc((size_t)m * sizeof(Mass));
    f->b3ord = ze_bench_table_alloc((size_t)m * sizeof(uint32_t));
    for (uint32_t k = 0, i = 0; k < n; k++) {
        if (!f->has_mass[k])
            continue;
        f->b3ord[i] = k;
        f->b3vel[i] = vel_init(k);
        f->b3mass[i] = mass_init(k);
        i++;
    }
    f->ge = ze_bench_table_alloc((size_t)n * sizeof(ze_entity_t));
    f->gb = ze_bench_table_alloc((size_t)n * sizeof(uint64_t));
    for (uint32_t i = 0; i < n; i++) {
        f->ge[i] = f->e[f->gperm[i]];
        f->gb[i] = f->bh[f->gperm[i]];
    }
    return true;
}

/* Positions back to pos_init, in the ECS through the query API (each run's
 * slot indices), in the baselines directly. */
static bool fixture_reset_positions(fixture_t *f)
{
    uint64_t seen = 0;
    ze_iter_t it = ze_query_iter(f->bw.w, f->bw.q_pv);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t slot = it.indices[i];
            p[i] = pos_init(slot < f->slot_limit ? f->ordinal[slot] : 0);
        }
        seen += it.count;
    }
    for (uint32_t k = 0; k < f->n; k++)
        f->bpos[k] = pos_init(k);
    for (uint32_t i = 0; i < f->matched; i++)
        f->b3pos[i] = pos_init(f->b3ord[i]);
    return seen == f->n;
}

/* The ECS positions in creation order, through ze_get. */
static bool fixture_gather_positions(fixture_t *f, Position *out)
{
    for (uint32_t k = 0; k < f->n; k++) {
        const Position *p = ze_get(f->bw.w, f->e[k], Position);
        if (!p)
            return false;
        out[k] = *p;
    }
    return true;
}

/* ------------------------------------------------------------- iteration */

typedef struct iter_ctx_t {
    fixture_t *f;
    uint32_t passes;
    double *pass_ns; /* [passes] */
    bool failed;
} iter_ctx_t;

static double iter_pv_ecs(void *p)
{
    iter_ctx_t *c = p;
    fixture_t *f = c->f;
    for (uint32_t pass = 0; pass < c->passes; pass++) {
        uint64_t seen = 0;
        uint64_t t0 = ze_bench_now_ns();
        ze_iter_t it = ze_query_iter(f->bw.w, f->bw.q_pv);
        while (ze_query_next(&it)) {
            integrate(ze_field(&it, Position), ze_field(&it, Velocity), it.count, DT);
            seen += it.count;
        }
        uint64_t t1 = ze_bench_now_ns();
        c->pass_ns[pass] = (double)(t1 - t0) / (double)f->n;
        if (seen != f->n)
            c->failed = true;
    }
    return ze_bench_median(c->pass_ns, c->passes);
}

static double iter_pv_base(void *p)
{
    iter_ctx_t *c = p;
    fixture_t *f = c->f;
    for (uint32_t pass = 0; pass < c->passes; pass++) {
        uint64_t t0 = ze_bench_now_ns();
        integrate(f->bpos, f->bvel, f->n, DT);
        ze_bench_clobber();
        uint64_t t1 = ze_bench_now_ns();
        c->pass_ns[pass] = (double)(t1 - t0) / (double)f->n;
    }
    return ze_bench_median(c->pass_ns, c->passes);
}

static double iter_3c_ecs(void *p)
{
    iter_ctx_t *c = p;
    fixture_t *f = c->f;
    for (uint32_t pass = 0; pass < c->passes; pass++) {
        uint64_t seen = 0;
        uint64_t t0 = ze_bench_now_ns();
        ze_iter_t it = ze_query_iter(f->bw.w, f->bw.q_pvm);
        while (ze_query_next(&it)) {
            integrate_mass(ze_field(&it, Position), ze_field(&it, Velocity), ze_field(&it, Mass),
                           it.count, DT);
            seen += it.count;
        }
        uint64_t t1 = ze_bench_now_ns();
        c->pass_ns[pass] = (double)(t1 - t0) / (double)f->matched;
        if (seen != f->matched)
            c->failed = true;
    }
    return ze_bench_median(c->pass_ns, c->passes);
}

static double iter_3c_base(void *p)
{
    iter_ctx_t *c = p;
    fixture_t *f = c->f;
    for (uint32_t pass = 0; pass < c->passes; pass++) {
        uint64_t t0 = ze_bench_now_ns();
        integrate_mass(f->b3pos, f->b3vel, f->b3mass, f->matched, DT);
        ze_bench_clobber();
        uint64_t t1 = ze_bench_now_ns();
        c->pass_ns[pass] = (double)(t1 - t0) / (double)f->matched;
    }
    return ze_bench_median(c->pass_ns, c->passes);
}

/* Passes per round: enough entity updates to time well, at least 3. */
static uint32_t iter_passes(const ze_bench_t *b, uint32_t n)
{
    if (b->smoke)
        return 3;
    uint64_t p = 4000000ull / n;
    return (uint32_t)ZE_MIN(ZE_MAX(p, 5ull), 101ull) | 1u; /* odd: a true median */
}

static bool bench_iterate(ze_bench_t *b, fixture_t *f, uint32_t rounds, int sc,
                          ze_bench_pair_t *out)
{
    const char *name = scenarios[sc].name;
    bool three = sc == S_ITERATE_3C;
    if (!fixture_reset_positions(f)) {
        ze_bench_fail(b, name, "resetting positions through the query saw the wrong count");
        return false;
    }
    iter_ctx_t c = {.f = f, .passes = iter_passes(b, f->n)};
    c.pass_ns = ze_bench_table_alloc(c.passes * sizeof(double));
    if (three)
        *out = ze_bench_compare(rounds, iter_3c_ecs, &c, iter_3c_base, &c);
    else
        *out = ze_bench_compare(rounds, iter_pv_ecs, &c, iter_pv_base, &c);
    ze_bench_table_free(c.pass_ns);
    if (c.failed) {
        ze_bench_fail(b, name, "a pass visited the wrong number of entities");
        return false;
    }
    /* Both sides ran the same number of passes of the same kernel over the
     * same start values: every position must agree bit for bit. */
    Position *got = ze_bench_table_alloc((size_t)f->n * sizeof(Position));
    Position *want = ze_bench_table_alloc((size_t)f->n * sizeof(Position));
    bool ok = fixture_gather_positions(f, got);
    if (three) {
        for (uint32_t k = 0; k < f->n; k++)
            want[k] = pos_init(k);
        for (uint32_t i = 0; i < f->matched; i++)
            want[f->b3ord[i]] = f->b3pos[i];
    } else {
        memcpy(want, f->bpos, (size_t)f->n * sizeof(Position));
    }
    uint64_t hg = hash_bytes(got, (size_t)f->n * sizeof(Position));
    uint64_t hw = hash_bytes(want, (size_t)f->n * sizeof(Position));
    printf("  %s n=%u: %u passes a round; checksum %016llx, baseline %016llx%s\n", name, f->n,
           c.passes, (unsigned long long)hg, (unsigned long long)hw,
           ok && hg == hw ? "" : "  <-- MISMATCH");
    ze_bench_table_free(got);
    ze_bench_table_free(want);
    if (!ok || hg != hw) {
        ze_bench_fail(b, name, "results differ from the baseline's (n=%u)", f->n);
        return false;
    }
    return true;
}

/* ------------------------------------------------------ changed_iter_1pct */

/* 1 % of the entities written (untimed), then the rows written since the
 * version before the writes visited: ns per changed entity. The baseline
 * writes the same entities of its flat arrays and loops over their list.
 * Both sum the x of what they visit (exact in double: the values are
 * multiples of 1/4 below 2^20), and the sums must agree. */
typedef struct changed_ctx_t {
    fixture_t *f;
    uint32_t *pick; /* [count] creation ordinals, sorted */
    uint32_t count;
    double sum;
    uint32_t seen;
} changed_ctx_t;

static double changed_ecs(void *p)
{
    changed_ctx_t *c = p;
    fixture_t *f = c->f;
    ze_world_t *w = f->bw.w;
    uint32_t v = ze_world_version(w);
    for (uint32_t i = 0; i < c->count; i++)
        ze_get_mut(w, f->e[c->pick[i]], Position)->x += 1.0f;
    double sum = 0;
    uint32_t seen = 0;
    uint64_t t0 = ze_bench_now_ns();
    ze_changed_iter_t it = ze_changed_iter(w, ZE_ID(Position), v);
    while (ze_changed_next(&it)) {
        const Position *pos = it.values;
        for (uint32_t i = 0; i < it.count; i++)
            sum += pos[i].x;
        seen += it.count;
    }
    uint64_t t1 = ze_bench_now_ns();
    c->sum = sum;
    c->seen = seen;
    return (double)(t1 - t0) / (double)c->count;
}

static double changed_base(void *p)
{
    changed_ctx_t *c = p;
    fixture_t *f = c->f;
    for (uint32_t i = 0; i < c->count; i++)
        f->bpos[c->pick[i]].x += 1.0f;
    ze_bench_clobber();
    double sum = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->count; i++)
        sum += f->bpos[c->pick[i]].x;
    uint64_t t1 = ze_bench_now_ns();
    c->sum = sum;
    c->seen = c->count;
    return (double)(t1 - t0) / (double)c->count;
}

static bool bench_changed(ze_bench_t *b, fixture_t *f, uint32_t rounds, ze_bench_pair_t *out)
{
    const char *name = scenarios[S_CHANGED_1PCT].name;
    if (!fixture_reset_positions(f)) {
        ze_bench_fail(b, name, "resetting positions through the query saw the wrong count");
        return false;
    }
    changed_ctx_t ce = {.f = f}, cb = {.f = f};
    uint32_t n = ZE_MAX(f->n / 100, 1u);
    uint32_t *pick = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    uint8_t *taken = ze_bench_table_alloc(f->n);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x5eed0004);
    for (uint32_t i = 0; i < n;) {
        uint32_t k = (uint32_t)ze_rng_below(&rng, f->n);
        if (!taken[k]) {
            taken[k] = 1;
            i++;
        }
    }
    for (uint32_t k = 0, i = 0; k < f->n; k++)
        if (taken[k])
            pick[i++] = k;
    ce.pick = cb.pick = pick;
    ce.count = cb.count = n;
    *out = ze_bench_compare(rounds, changed_ecs, &ce, changed_base, &cb);
    ze_bench_table_free(taken);
    ze_bench_table_free(pick);
    if (ce.seen != n || ce.sum != cb.sum) {
        ze_bench_fail(b, name, "n=%u: visited %u of %u written rows; sum %.17g, baseline %.17g",
                      f->n, ce.seen, n, ce.sum, cb.sum);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ get_random */

typedef struct get_ctx_t {
    fixture_t *f;
    double sum;
    uint32_t missing;
} get_ctx_t;

static double get_ecs(void *p)
{
    get_ctx_t *c = p;
    fixture_t *f = c->f;
    ze_world_t *w = f->bw.w;
    double sum = 0;
    uint32_t missing = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < f->n; i++) {
        const Position *pos = ze_get(w, f->ge[i], Position);
        if (pos)
            sum += pos->x;
        else
            missing++;
    }
    uint64_t t1 = ze_bench_now_ns();
    c->sum = sum;
    c->missing += missing;
    return (double)(t1 - t0) / (double)f->n;
}

static double get_base(void *p)
{
    get_ctx_t *c = p;
    fixture_t *f = c->f;
    const Position *pos = f->bpos;
    double sum = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < f->n; i++)
        sum += pos[(uint32_t)f->gb[i]].x;
    uint64_t t1 = ze_bench_now_ns();
    c->sum = sum;
    return (double)(t1 - t0) / (double)f->n;
}

static bool bench_get(ze_bench_t *b, fixture_t *f, uint32_t rounds, ze_bench_pair_t *out)
{
    const char *name = scenarios[S_GET_RANDOM].name;
    if (!fixture_reset_positions(f)) {
        ze_bench_fail(b, name, "resetting positions through the query saw the wrong count");
        return false;
    }
    get_ctx_t ce = {.f = f}, cb = {.f = f};
    *out = ze_bench_compare(rounds, get_ecs, &ce, get_base, &cb);
    if (ce.missing || ce.sum != cb.sum) {
        ze_bench_fail(b, name, "n=%u: %u lookups found nothing; sum %.17g, baseline %.17g", f->n,
                      ce.missing, ce.sum, cb.sum);
        return false;
    }
    return true;
}

/* ---------------------------------------------------- add / remove Health */

typedef struct health_ctx_t {
    fixture_t *f;
    uint32_t failures;
} health_ctx_t;

static void ecs_add_all(health_ctx_t *c)
{
    fixture_t *f = c->f;
    ze_world_t *w = f->bw.w;
    uint32_t bad = 0;
    for (uint32_t k = 0; k < f->n; k++) {
        Health h = {(float)k};
        bad += ze_component_set(w, f->e[k], ZE_ID(Health), &h) != ZE_OK;
    }
    c->failures += bad;
}

static void ecs_remove_all(health_ctx_t *c)
{
    fixture_t *f = c->f;
    ze_world_t *w = f->bw.w;
    uint32_t bad = 0;
    for (uint32_t k = 0; k < f->n; k++)
        bad += ze_remove(w, f->e[k], Health) != ZE_OK;
    c->failures += bad;
}

static void base_add_all(fixture_t *f)
{
    for (uint32_t k = 0; k < f->n; k++) {
        uint32_t idx = (uint32_t)f->bh[k];
        f->bhealth[idx] = (Health){(float)k};
        f->bmask[idx] |= B_HEALTH;
    }
    ze_bench_clobber();
}

static void base_remove_all(fixture_t *f)
{
    for (uint32_t k = 0; k < f->n; k++)
        f->bmask[(uint32_t)f->bh[k]] &= ~(uint64_t)B_HEALTH;
    ze_bench_clobber();
}

static double add_ecs(void *p)
{
    health_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    ecs_add_all(c);
    uint64_t t1 = ze_bench_now_ns();
    if (ze_component_population(c->f->bw.w, ZE_ID(Health)) != c->f->n)
        c->failures++;
    ecs_remove_all(c);
    return (double)(t1 - t0) / (double)c->f->n;
}

static double add_base(void *p)
{
    health_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    base_add_all(c->f);
    uint64_t t1 = ze_bench_now_ns();
    base_remove_all(c->f);
    return (double)(t1 - t0) / (double)c->f->n;
}

static double remove_ecs(void *p)
{
    health_ctx_t *c = p;
    ecs_add_all(c);
    uint64_t t0 = ze_bench_now_ns();
    ecs_remove_all(c);
    uint64_t t1 = ze_bench_now_ns();
    if (ze_component_population(c->f->bw.w, ZE_ID(Health)) != 0)
        c->failures++;
    return (double)(t1 - t0) / (double)c->f->n;
}

static double remove_base(void *p)
{
    health_ctx_t *c = p;
    base_add_all(c->f);
    uint64_t t0 = ze_bench_now_ns();
    base_remove_all(c->f);
    uint64_t t1 = ze_bench_now_ns();
    return (double)(t1 - t0) / (double)c->f->n;
}

/* ------------------------------------------------------ commands_add_flush */

typedef struct cmd_ctx_t {
    fixture_t *f;
    ze_commands_t *cmds;
    uint32_t failures;
} cmd_ctx_t;

/* Record a set of Health for every entity, flush: ns per entity. */
static double cmd_ecs(void *p)
{
    cmd_ctx_t *c = p;
    fixture_t *f = c->f;
    uint32_t bad = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t k = 0; k < f->n; k++) {
        Health h = {(float)k};
        bad += ze_cmd_set(c->cmds, f->e[k], ZE_ID(Health), &h) != ZE_OK;
    }
    bad += ze_commands_flush(c->cmds) != ZE_OK;
    uint64_t t1 = ze_bench_now_ns();
    if (ze_component_population(f->bw.w, ZE_ID(Health)) != f->n)
        bad++;
    health_ctx_t hc = {.f = f};
    ecs_remove_all(&hc);
    c->failures += bad + hc.failures;
    return (double)(t1 - t0) / (double)f->n;
}

/* The same adds made directly. */
static double cmd_direct(void *p)
{
    cmd_ctx_t *c = p;
    health_ctx_t hc = {.f = c->f};
    uint64_t t0 = ze_bench_now_ns();
    ecs_add_all(&hc);
    uint64_t t1 = ze_bench_now_ns();
    ecs_remove_all(&hc);
    c->failures += hc.failures;
    return (double)(t1 - t0) / (double)c->f->n;
}

/* ------------------------------------------------------------ create_fresh */

/* Baseline entity store: generation + mask per slot, a free list. */
typedef struct flat_store_t {
    uint32_t *gen;
    uint64_t *mask;
    uint32_t *free_list;
    uint32_t count, cap, free_count;
} flat_store_t;

typedef struct create_ctx_t {
    const env_t *env;
    uint32_t n;
    ze_entity_t *e;   /* [n] */
    uint64_t *h;      /* [n] baseline handles */
    bench_world_t bw; /* reuse/destroy: the world kept across rounds */
    flat_store_t fs;  /* reuse/destroy: the baseline store */
    const uint32_t *vperm;
    bool no_groups; /* destroy_nogroups: check no group exists */
    uint32_t failures;
} create_ctx_t;

static double fresh_ecs(void *p)
{
    create_ctx_t *c = p;
    bench_world_t bw;
    if (!world_new(c->env, &bw)) {
        c->failures++;
        return NAN;
    }
    ze_world_t *w = bw.w;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++)
        c->e[i] = ze_entity_create(w);
    uint64_t t1 = ze_bench_now_ns();
    if (ze_world_entity_count(w) != c->n || ze_entity_is_null(c->e[c->n - 1]))
        c->failures++;
    world_free(&bw);
    return (double)(t1 - t0) / (double)c->n;
}

static double fresh_base(void *p)
{
    create_ctx_t *c = p;
    ze_allocator_t a = ze_mem_system_allocator();
    flat_store_t s = {0};
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++) {
        if (s.count == s.cap) {
            uint32_t cap = s.cap ? s.cap * 2 : 16;
            uint32_t *gen = ze_realloc(a, s.gen, s.cap * sizeof(*gen), cap * sizeof(*gen), 16);
            uint64_t *mask = ze_realloc(a, s.mask, s.cap * sizeof(*mask), cap * sizeof(*mask), 16);
            if (!gen || !mask) {
                c->failures++;
                break;
            }
            s.gen = gen;
            s.mask = mask;
            s.cap = cap;
        }
        uint32_t idx = s.count++;
        s.gen[idx] = 1;
        s.mask[idx] = 0;
        c->h[i] = (uint64_t)1 << 32 | idx;
    }
    uint64_t t1 = ze_bench_now_ns();
    ze_bench_do_not_optimize(c->h);
    ze_free(a, s.gen, s.cap * sizeof(*s.gen));
    ze_free(a, s.mask, s.cap * sizeof(*s.mask));
    return (double)(t1 - t0) / (double)c->n;
}

/* ------------------------------------------------------------ create_reuse */

static bool flat_store_init(flat_store_t *s, uint32_t n)
{
    memset(s, 0, sizeof(*s));
    s->gen = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    s->mask = ze_bench_table_alloc((size_t)n * sizeof(uint64_t));
    s->free_list = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    s->cap = n;
    return true;
}

static void flat_store_free(flat_store_t *s)
{
    ze_bench_table_free(s->gen);
    ze_bench_table_free(s->mask);
    ze_bench_table_free(s->free_list);
    memset(s, 0, sizeof(*s));
}

/* Baseline create: pop a freed slot (else append); mask starts empty. */
static inline uint64_t flat_create(flat_store_t *s)
{
    uint32_t idx;
    if (s->free_count) {
        idx = s->free_list[--s->free_count];
    } else {
        idx = s->count++;
        s->gen[idx] = 1;
    }
    s->mask[idx] = 0;
    return (uint64_t)s->gen[idx] << 32 | idx;
}

/* Baseline destroy: check the generation, bump it, clear the mask, push the
 * index on the free list. False for a stale handle. */
static inline bool flat_destroy(flat_store_t *s, uint64_t h)
{
    uint32_t idx = (uint32_t)h;
    if (idx >= s->count || s->gen[idx] != (uint32_t)(h >> 32))
        return false;
    s->gen[idx]++;
    s->mask[idx] = 0;
    s->free_list[s->free_count++] = idx;
    return true;
}

static bool ecs_destroy_all(create_ctx_t *c)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++)
        bad += ze_entity_destroy(c->bw.w, c->e[i]) != ZE_OK;
    c->failures += bad;
    return bad == 0;
}

static void flat_destroy_all(create_ctx_t *c)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++)
        bad += !flat_destroy(&c->fs, c->h[i]);
    c->failures += bad;
}

static double reuse_ecs(void *p)
{
    create_ctx_t *c = p;
    ze_world_t *w = c->bw.w;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++)
        c->e[i] = ze_entity_create(w);
    uint64_t t1 = ze_bench_now_ns();
    if (ze_world_entity_count(w) != c->n)
        c->failures++;
    ecs_destroy_all(c);
    return (double)(t1 - t0) / (double)c->n;
}

static double reuse_base(void *p)
{
    create_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++)
        c->h[i] = flat_create(&c->fs);
    uint64_t t1 = ze_bench_now_ns();
    ze_bench_do_not_optimize(c->h);
    flat_destroy_all(c);
    return (double)(t1 - t0) / (double)c->n;
}

/* ----------------------------------------------------------------- destroy */

/* Entities with Position + Velocity (Velocity in random order), destroyed in
 * creation order. */
static double destroy_ecs(void *p)
{
    create_ctx_t *c = p;
    ze_world_t *w = c->bw.w;
    if (!populate(w, c->e, c->n, c->vperm, NULL))
        c->failures++;
    if (c->no_groups && !world_has_no_groups(w))
        c->failures++;
    uint32_t bad = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++)
        bad += ze_entity_destroy(w, c->e[i]) != ZE_OK;
    /* The work the destroys deferred is timed too: the world's next query
     * iteration (a frame's first system) removes their components first. */
    ze_iter_t it = ze_query_iter(w, c->bw.q_pv);
    while (ze_query_next(&it))
        bad += it.count;
    uint64_t t1 = ze_bench_now_ns();
    c->failures += bad;
    if (ze_world_entity_count(w) != 0 || ze_component_population(w, ZE_ID(Position)) != 0)
        c->failures++;
    return (double)(t1 - t0) / (double)c->n;
}

static double destroy_base(void *p)
{
    create_ctx_t *c = p;
    flat_store_t *s = &c->fs;
    for (uint32_t i = 0; i < c->n; i++) {
        c->h[i] = flat_create(s);
        s->mask[(uint32_t)c->h[i]] = B_POS | B_VEL;
    }
    uint32_t bad = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->n; i++)
        bad += !flat_destroy(s, c->h[i]);
    uint64_t t1 = ze_bench_now_ns();
    c->failures += bad;
    return (double)(t1 - t0) / (double)c->n;
}

/* ------------------------------------------------------ tick_empty_systems */

enum { TICK_SYSTEMS = 64 };

static void noop_system(ze_world_t *w, const ze_tick_t *t)
{
    ze_bench_do_not_optimize(t);
}

typedef struct tick_ctx_t {
    ze_worldtick_t *tick;
    ze_world_t *w;
    uint32_t ticks; /* per round */
    ze_system_fn fns[TICK_SYSTEMS];
    ze_tick_t args[TICK_SYSTEMS];
    uint32_t failures;
} tick_ctx_t;

static double tick_ecs(void *p)
{
    tick_ctx_t *c = p;
    uint32_t bad = 0;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->ticks; i++)
        bad += ze_worldtick_run(c->tick, DT) != ZE_OK;
    uint64_t t1 = ze_bench_now_ns();
    c->failures += bad;
    return (double)(t1 - t0) * 1e-3 / (double)c->ticks;
}

/* The same 64 functions called through pointers. */
static double tick_base(void *p)
{
    tick_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < c->ticks; i++) {
        for (uint32_t s = 0; s < TICK_SYSTEMS; s++) {
            ze_system_fn fn = c->fns[s];
            ze_bench_do_not_optimize(&fn);
            fn(c->w, &c->args[s]);
        }
    }
    uint64_t t1 = ze_bench_now_ns();
    return (double)(t1 - t0) * 1e-3 / (double)c->ticks;
}

static void bench_tick(ze_bench_t *b, const env_t *env)
{
    const char *name = "tick_empty_systems";
    tick_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    char(*names)[16] = ze_bench_table_alloc(TICK_SYSTEMS * sizeof(*names));
    ze_world_t *w = ze_world_create(env->k, &(ze_world_desc_t){.name = "tick"});
    c->w = w;
    c->tick = w ? ze_worldtick_create(w) : NULL;
    if (!c->tick) {
        ze_bench_fail(b, name, "ze_worldtick_create failed");
        goto out;
    }
    /* Each system reads Position and writes nothing: no conflicts, so the
     * plan is one wave of 64 (on the job pool). */
    for (uint32_t s = 0; s < TICK_SYSTEMS; s++) {
        snprintf(names[s], sizeof(names[s]), "noop%02u", s);
        ze_system_t id = ze_worldtick_add(
            c->tick,
            &(ze_system_desc_t){.name = names[s], .fn = noop_system, .reads = ZE_MASK(Position)});
        if (id.id == 0) {
            ze_bench_fail(b, name, "ze_worldtick_add failed");
            goto out;
        }
        c->fns[s] = noop_system;
        c->args[s] = (ze_tick_t){.dt = DT, .system = s, .name = names[s]};
    }
    ze_result res = ze_worldtick_commit(c->tick);
    if (res != ZE_OK) {
        ze_bench_fail(b, name, "commit: %s: %s", ze_result_str(res), ze_worldtick_error(c->tick));
        goto out;
    }
    c->ticks = (uint32_t)ze_bench_size(b, 2000, 20);
    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), tick_ecs, c, tick_base, c);
    printf("  %s: %u systems in %u wave(s), %u ticks a round\n", name, TICK_SYSTEMS,
           ze_worldtick_wave_count(c->tick), c->ticks);
    if (c->failures)
        ze_bench_fail(b, name, "%u ticks failed", c->failures);
    else
        ze_bench_add(b, name, TICK_SYSTEMS, "us/op", ZE_BENCH_LOWER, r.value, r.baseline,
                     ZE_BENCH_NONE);
out:
    if (c->tick)
        ze_worldtick_destroy(c->tick);
    if (w)
        ze_world_destroy(w);
    ze_bench_table_free(names);
    ze_bench_table_free(c);
}

/* -------------------------------------------------------- parallel_speedup */

/* Two independent CPU-bound systems (one writes Position, the other
 * Velocity; each runs ~1 ms of arithmetic), so the plan is one wave of two.
 * T1: both called on this thread. Tpool: ze_worldtick_run. T2: the same two
 * pieces of work on two plain pthreads that live across rounds, woken with a
 * semaphore each (the hand-written split, as in job_bench.c). Speed-up
 * relative to the two threads = (T1/Tpool)/(T1/T2) = T2/Tpool, per round,
 * median. */
typedef ze_bench_spin_item_t work_item_t;

static void spin_system(ze_world_t *w, const ze_tick_t *t)
{
    work_item_t *wi = t->user;
    wi->result = ze_bench_spin_work(wi->seed, wi->iters);
}

/* The same work as spin_system, on one of the two plain threads. */
static void spin_item(void *p)
{
    work_item_t *wi = p;
    wi->result = ze_bench_spin_work(wi->seed, wi->iters);
}

typedef struct par_ctx_t {
    ze_worldtick_t *tick;
    work_item_t items[2];
    ze_bench_thread_pair_t threads;
    uint32_t failures;
} par_ctx_t;

static double par_serial(void *p)
{
    par_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < 2; i++)
        spin_system(NULL, &(ze_tick_t){.dt = DT, .user = &c->items[i]});
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static double par_pool(void *p)
{
    par_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    c->failures += ze_worldtick_run(c->tick, DT) != ZE_OK;
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static double par_threads(void *p)
{
    par_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    ze_bench_thread_pair_run(&c->threads);
    ze_bench_do_not_optimize(c->items);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

static void bench_parallel(ze_bench_t *b, const env_t *env)
{
    const char *name = "parallel_speedup";
    par_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    ze_world_t *w = ze_world_create(env->k, &(ze_world_desc_t){.name = "parallel"});
    c->tick = w ? ze_worldtick_create(w) : NULL;
    if (!c->tick) {
        ze_bench_fail(b, name, "ze_worldtick_create failed");
        goto out;
    }
    uint32_t iters = ze_bench_spin_calibrate(ze_bench_size(b, 1000000, 100000));
    for (uint32_t i = 0; i < 2; i++)
        c->items[i] = (work_item_t){.seed = i * 0x9e3779b97f4a7c15ULL + 1, .iters = iters};
    ze_system_t sa = ze_worldtick_add(c->tick, &(ze_system_desc_t){.name = "spin_a",
                                                                   .fn = spin_system,
                                                                   .user = &c->items[0],
                                                                   .writes = ZE_MASK(Position)});
    ze_system_t sb = ze_worldtick_add(c->tick, &(ze_system_desc_t){.name = "spin_b",
                                                                   .fn = spin_system,
                                                                   .user = &c->items[1],
                                                                   .writes = ZE_MASK(Velocity)});
    ze_result res = sa.id && sb.id ? ze_worldtick_commit(c->tick) : ZE_ERR_STATE;
    if (res != ZE_OK) {
        ze_bench_fail(b, name, "setting up the tick: %s: %s", ze_result_str(res),
                      ze_worldtick_error(c->tick));
        goto out;
    }
    ze_bench_thread_pair_start(&c->threads, spin_item, &c->items[0], &c->items[1]);
    ze_bench_load_t load;
    ze_bench_load_begin(&load);
    ze_job_stats_t js0 = ze_job_system_stats(env->js);
    ze_bench_speedup_t sp =
        ze_bench_speedup_rounds(ze_bench_rounds(b, 21), par_serial, par_pool, par_threads, c);
    double m1 = sp.serial, mp = sp.pool, m2 = sp.threads, mr = sp.ratio;
    double other = ze_bench_load_end(&load);
    ze_job_stats_t js1 = ze_job_system_stats(env->js);
    if (other > 0.25)
        printf("  %s: WARNING: other processes kept %.2f CPUs busy meanwhile\n", name, other);
    /* On the 2-core VM the two threads of a side sometimes share one CPU
     * for a whole run (seen for the pool and for the plain threads alike,
     * with no other load): then that side does not speed up and the ratio
     * compares a serial run with a parallel one. */
    if (!b->smoke && m1 / m2 < 1.3)
        printf("  %s: WARNING: two plain threads ran only %.2fx faster than one; the ratio "
               "means little\n",
               name, m1 / m2);
    if (!b->smoke && m1 / mp < 1.3)
        printf("  %s: WARNING: the pool ran only %.2fx faster than one thread\n", name, m1 / mp);
    printf("  %s: 2 systems of %.0f us in %u wave(s); T1 %.3f ms, Tpool %.3f ms, T2 %.3f ms; "
           "pool speed-up %.2fx (%u workers + the calling thread), two threads %.2fx\n",
           name, m1 * 1e3 / 2, ze_worldtick_wave_count(c->tick), m1, mp, m2, m1 / mp,
           ze_job_worker_count(env->js), m1 / m2);
    printf("  %s: systems run on the pool by workers %llu, by the waiting thread %llu, inline "
           "%llu\n",
           name, (unsigned long long)(js1.executed_by_workers - js0.executed_by_workers),
           (unsigned long long)(js1.executed_by_waiters - js0.executed_by_waiters),
           (unsigned long long)(js1.executed_inline - js0.executed_inline));
    ze_bench_thread_pair_stop(&c->threads);
    if (c->failures) {
        ze_bench_fail(b, name, "%u ticks failed", c->failures);
    } else {
        ze_bench_add(b, "parallel_tick", 2, "ms/frame", ZE_BENCH_LOWER, mp, m2, ZE_BENCH_NONE);
        ze_bench_add(b, name, 2, "ratio", ZE_BENCH_HIGHER, mr, ZE_BENCH_NONE, 0.9);
    }
out:
    if (c->tick)
        ze_worldtick_destroy(c->tick);
    if (w)
        ze_world_destroy(w);
    ze_bench_table_free(c);
}

/* ------------------------------------------------------------- one size */

typedef struct result_t {
    bool ok;
    ze_bench_pair_t r;
} result_t;

static void run_fixture_scenarios(ze_bench_t *b, const env_t *env, uint32_t n, uint32_t rounds,
                                  result_t res[S_COUNT])
{
    static const int uses[] = {S_ITERATE_PV, S_ITERATE_3C, S_GET_RANDOM,         S_ADD,
                               S_REMOVE,     S_COMMANDS,   S_ITERATE_PV_TRACKED, S_CHANGED_1PCT};
    bool any = false;
    for (size_t i = 0; i < ZE_COUNTOF(uses); i++)
        any |= ze_bench_enabled(b, scenarios[uses[i]].name);
    if (!any)
        return;
    fixture_t *f = ze_bench_table_alloc(sizeof(*f));
    uint64_t t0 = ze_bench_now_ns();
    if (!fixture_init(f, env, n, false)) {
        ze_bench_fail(b, "setup", "populating %u entities failed", n);
        ze_bench_table_free(f);
        return;
    }
    printf("  n=%u: populated in %.0f ms; groups: {Position,Velocity} %u packed, "
           "{Position,Velocity,Mass} %u packed\n",
           n, (double)(ze_bench_now_ns() - t0) * 1e-6,
           ze_pack_size(f->bw.w, ZE_MASK(Position, Velocity)),
           ze_pack_size(f->bw.w, ZE_MASK(Position, Velocity, Mass)));
    fflush(stdout);

    if (ze_bench_enabled(b, scenarios[S_ITERATE_PV].name))
        res[S_ITERATE_PV].ok = bench_iterate(b, f, rounds, S_ITERATE_PV, &res[S_ITERATE_PV].r);
    if (ze_bench_enabled(b, scenarios[S_ITERATE_3C].name))
        res[S_ITERATE_3C].ok = bench_iterate(b, f, rounds, S_ITERATE_3C, &res[S_ITERATE_3C].r);
    if (ze_bench_enabled(b, scenarios[S_GET_RANDOM].name))
        res[S_GET_RANDOM].ok = bench_get(b, f, rounds, &res[S_GET_RANDOM].r);
    if (ze_bench_enabled(b, scenarios[S_ADD].name)) {
        health_ctx_t ce = {.f = f}, cb = {.f = f};
        res[S_ADD].r = ze_bench_compare(rounds, add_ecs, &ce, add_base, &cb);
        res[S_ADD].ok = ce.failures == 0;
        if (ce.failures)
            ze_bench_fail(b, scenarios[S_ADD].name, "n=%u: %u failures", n, ce.failures);
    }
    if (ze_bench_enabled(b, scenarios[S_REMOVE].name)) {
        health_ctx_t ce = {.f = f}, cb = {.f = f};
        res[S_REMOVE].r = ze_bench_compare(rounds, remove_ecs, &ce, remove_base, &cb);
        res[S_REMOVE].ok = ce.failures == 0;
        if (ce.failures)
            ze_bench_fail(b, scenarios[S_REMOVE].name, "n=%u: %u failures", n, ce.failures);
    }
    if (ze_bench_enabled(b, scenarios[S_COMMANDS].name)) {
        cmd_ctx_t cc = {.f = f, .cmds = ze_commands_create(f->bw.w)};
        if (!cc.cmds) {
            ze_bench_fail(b, scenarios[S_COMMANDS].name, "ze_commands_create failed");
        } else {
            res[S_COMMANDS].r = ze_bench_compare(rounds, cmd_ecs, &cc, cmd_direct, &cc);
            res[S_COMMANDS].ok = cc.failures == 0;
            if (cc.failures)
                ze_bench_fail(b, scenarios[S_COMMANDS].name, "n=%u: %u failures", n, cc.failures);
            ze_commands_destroy(cc.cmds);
        }
    }
    /* Last: from here on Position's rows are versioned in this world. */
    bool track = ze_bench_enabled(b, scenarios[S_ITERATE_PV_TRACKED].name) ||
                 ze_bench_enabled(b, scenarios[S_CHANGED_1PCT].name);
    if (track && ze_component_track(f->bw.w, ZE_ID(Position)) != ZE_OK) {
        ze_bench_fail(b, scenarios[S_ITERATE_PV_TRACKED].name, "ze_component_track failed");
        track = false;
    }
    if (track && ze_bench_enabled(b, scenarios[S_ITERATE_PV_TRACKED].name))
        res[S_ITERATE_PV_TRACKED].ok =
            bench_iterate(b, f, rounds, S_ITERATE_PV_TRACKED, &res[S_ITERATE_PV_TRACKED].r);
    if (track && ze_bench_enabled(b, scenarios[S_CHANGED_1PCT].name))
        res[S_CHANGED_1PCT].ok = bench_changed(b, f, rounds, &res[S_CHANGED_1PCT].r);
    fixture_free(f);
    ze_bench_table_free(f);
}

/* destroy (sc = S_DESTROY) or destroy_nogroups (S_DESTROY_NG): the same
 * rounds, in a world with the packs or with none. */
static void run_destroy(ze_bench_t *b, create_ctx_t *c, uint32_t rounds, int sc, result_t *res)
{
    const char *name = scenarios[sc].name;
    c->failures = 0;
    c->no_groups = scenarios[sc].no_groups;
    if (!world_new_layout(c->env, &c->bw, c->no_groups)) {
        ze_bench_fail(b, name, "world creation failed");
    } else {
        flat_store_init(&c->fs, c->n);
        res->r = ze_bench_compare(rounds, destroy_ecs, c, destroy_base, c);
        res->ok = c->failures == 0;
        if (c->failures)
            ze_bench_fail(b, name, "n=%u: %u failures%s", c->n, c->failures,
                          c->no_groups ? " (or a group existed)" : "");
        flat_store_free(&c->fs);
        world_free(&c->bw);
    }
    c->no_groups = false;
}

/* iterate_pos_vel_nogroups: the fixture's world without groups. */
static void run_nogroups_fixture(ze_bench_t *b, const env_t *env, uint32_t n, uint32_t rounds,
                                 result_t res[S_COUNT])
{
    if (!ze_bench_enabled(b, scenarios[S_ITERATE_PV_NG].name))
        return;
    fixture_t *f = ze_bench_table_alloc(sizeof(*f));
    uint64_t t0 = ze_bench_now_ns();
    if (!fixture_init(f, env, n, true)) {
        ze_bench_fail(b, scenarios[S_ITERATE_PV_NG].name,
                      "populating %u entities with no_auto_packs failed (or a group existed)", n);
        ze_bench_table_free(f);
        return;
    }
    printf("  n=%u, no_auto_packs: populated in %.0f ms; groups: {Position,Velocity} %u packed, "
           "{Position,Velocity,Mass} %u packed\n",
           n, (double)(ze_bench_now_ns() - t0) * 1e-6,
           ze_pack_size(f->bw.w, ZE_MASK(Position, Velocity)),
           ze_pack_size(f->bw.w, ZE_MASK(Position, Velocity, Mass)));
    fflush(stdout);
    res[S_ITERATE_PV_NG].ok = bench_iterate(b, f, rounds, S_ITERATE_PV_NG, &res[S_ITERATE_PV_NG].r);
    fixture_free(f);
    ze_bench_table_free(f);
}

static void run_create_scenarios(ze_bench_t *b, const env_t *env, uint32_t n, uint32_t rounds,
                                 bool largest, result_t res[S_COUNT])
{
    create_ctx_t *c = ze_bench_table_alloc(sizeof(*c));
    c->env = env;
    c->n = n;
    c->e = ze_bench_table_alloc((size_t)n * sizeof(ze_entity_t));
    c->h = ze_bench_table_alloc((size_t)n * sizeof(uint64_t));
    uint32_t *vperm = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    shuffle(vperm, n, 0x5eed0001);
    c->vperm = vperm;

    if (ze_bench_enabled(b, scenarios[S_CREATE_FRESH].name)) {
        c->failures = 0;
        res[S_CREATE_FRESH].r = ze_bench_compare(rounds, fresh_ecs, c, fresh_base, c);
        res[S_CREATE_FRESH].ok = c->failures == 0;
        if (c->failures)
            ze_bench_fail(b, scenarios[S_CREATE_FRESH].name, "n=%u: %u failures", n, c->failures);
    }
    if (ze_bench_enabled(b, scenarios[S_CREATE_REUSE].name)) {
        c->failures = 0;
        if (!world_new(env, &c->bw)) {
            ze_bench_fail(b, scenarios[S_CREATE_REUSE].name, "world creation failed");
        } else {
            flat_store_init(&c->fs, n);
            /* n created and destroyed before the first round, on both sides */
            for (uint32_t i = 0; i < n; i++)
                c->e[i] = ze_entity_create(c->bw.w);
            ecs_destroy_all(c);
            for (uint32_t i = 0; i < n; i++)
                c->h[i] = flat_create(&c->fs);
            flat_destroy_all(c);
            res[S_CREATE_REUSE].r = ze_bench_compare(rounds, reuse_ecs, c, reuse_base, c);
            res[S_CREATE_REUSE].ok = c->failures == 0;
            if (c->failures)
                ze_bench_fail(b, scenarios[S_CREATE_REUSE].name, "n=%u: %u failures", n,
                              c->failures);
            flat_store_free(&c->fs);
            world_free(&c->bw);
        }
    }
    if (ze_bench_enabled(b, scenarios[S_DESTROY].name))
        run_destroy(b, c, rounds, S_DESTROY, &res[S_DESTROY]);
    if (largest && ze_bench_enabled(b, scenarios[S_DESTROY_NG].name))
        run_destroy(b, c, rounds, S_DESTROY_NG, &res[S_DESTROY_NG]);
    ze_bench_table_free(vperm);
    ze_bench_table_free(c->e);
    ze_bench_table_free(c->h);
    ze_bench_table_free(c);
}

/* ------------------------------------------------- 4,096 component types */

/* The rows again in a kernel where 4,096 other component types were
 * registered first, so Position, Velocity, Mass and Health have ids above
 * 4,096 (the registry, the worlds' pool tables and every query are sized
 * to that); the world uses only its few. Each row has its plain baseline
 * (`<row>_4096types`), and `<row>_4096types_vs_few` interleaves the same
 * ECS loop over the two kernels' worlds: median ratio, target <= 1.05.
 * The component ids are globals (ZE_ID), so each round selects its
 * kernel's first. */
enum { FILLER_TYPES = 4096 };

typedef struct kernel_ids_t {
    ze_component_t pos, vel, mass, health;
} kernel_ids_t;

static kernel_ids_t ids_current(void)
{
    return (kernel_ids_t){ZE_ID(Position), ZE_ID(Velocity), ZE_ID(Mass), ZE_ID(Health)};
}

static void ids_select(const kernel_ids_t *ids)
{
    ZE_ID(Position) = ids->pos;
    ZE_ID(Velocity) = ids->vel;
    ZE_ID(Mass) = ids->mass;
    ZE_ID(Health) = ids->health;
}

typedef struct sel_t {
    const kernel_ids_t *ids;
    ze_bench_round_fn fn;
    void *ctx;
} sel_t;

static double sel_round(void *p)
{
    const sel_t *s = p;
    ids_select(s->ids);
    return s->fn(s->ctx);
}

typedef struct many_side_t {
    fixture_t *f;
    const kernel_ids_t *ids;
    iter_ctx_t it;
    get_ctx_t get;
    health_ctx_t health;
} many_side_t;

static void bench_many_types(ze_bench_t *b, const env_t *env, uint32_t n, uint32_t rounds)
{
    static const int scs[] = {S_ITERATE_PV, S_ITERATE_3C, S_GET_RANDOM, S_ADD, S_REMOVE};
    bool any = false;
    for (size_t i = 0; i < ZE_COUNTOF(scs); i++)
        any |= ze_bench_enabled(b, "4096types") || ze_bench_enabled(b, scenarios[scs[i]].name);
    if (!any)
        return;
    const char *name = "4096types";
    kernel_ids_t few = ids_current(), many;
    /* Its own manager: a kernel's heap takes half its owner's budget. (Its
     * job pool idles: these rows run on this thread.) */
    env_t env2;
    if (ze_bench_ecs_env_create(&env2, ZE_GIB(2), (ze_kernel_desc_t){.name = "4096"}) != ZE_OK) {
        ze_bench_fail(b, name, "kernel creation failed");
        return;
    }
    bool ok = true;
    for (uint32_t i = 0; ok && i < FILLER_TYPES; i++) {
        char fname[32];
        snprintf(fname, sizeof(fname), "Filler%u", i);
        ze_component_t c;
        ok = ze_component_register(env2.k, &(ze_component_desc_t){.name = fname, .size = 4}, &c) ==
             ZE_OK;
    }
    ZE_COMPONENT_DEFINE(env2.k, Position);
    ZE_COMPONENT_DEFINE(env2.k, Velocity);
    ZE_COMPONENT_DEFINE(env2.k, Mass);
    ZE_COMPONENT_DEFINE(env2.k, Health);
    many = ids_current();
    ok = ok && many.health.id != UINT32_MAX && many.pos.id > FILLER_TYPES;
    many_side_t sides[2] = {{.ids = &few}, {.ids = &many}};
    for (int s = 0; ok && s < 2; s++) {
        ids_select(sides[s].ids);
        sides[s].f = ze_bench_table_alloc(sizeof(fixture_t));
        ok = fixture_init(sides[s].f, s ? &env2 : env, n, false);
        if (!ok)
            ze_bench_table_free(sides[s].f), sides[s].f = NULL;
    }
    if (!ok) {
        ze_bench_fail(b, name, "setting up the %u-type kernel and its world failed", FILLER_TYPES);
        goto out;
    }
    printf("  %s: Position has id %u in a kernel of %u types (%u in the few-type one)\n", name,
           many.pos.id, ze_component_count(env2.k), few.pos.id);
    for (int s = 0; s < 2; s++) {
        many_side_t *m = &sides[s];
        m->it = (iter_ctx_t){.f = m->f, .passes = iter_passes(b, n)};
        m->it.pass_ns = ze_bench_table_alloc(m->it.passes * sizeof(double));
        m->get = (get_ctx_t){.f = m->f};
        m->health = (health_ctx_t){.f = m->f};
    }
    for (size_t i = 0; i < ZE_COUNTOF(scs); i++) {
        int sc = scs[i];
        ze_bench_round_fn ecs, base;
        void *ctx[2], *base_ctx;
        switch (sc) {
        case S_ITERATE_PV:
        case S_ITERATE_3C:
            ecs = sc == S_ITERATE_PV ? iter_pv_ecs : iter_3c_ecs;
            base = sc == S_ITERATE_PV ? iter_pv_base : iter_3c_base;
            ctx[0] = &sides[0].it, ctx[1] = &sides[1].it, base_ctx = &sides[1].it;
            break;
        case S_GET_RANDOM:
            ecs = get_ecs, base = get_base;
            ctx[0] = &sides[0].get, ctx[1] = &sides[1].get, base_ctx = &sides[1].get;
            break;
        default:
            ecs = sc == S_ADD ? add_ecs : remove_ecs;
            base = sc == S_ADD ? add_base : remove_base;
            ctx[0] = &sides[0].health, ctx[1] = &sides[1].health, base_ctx = &sides[1].health;
            break;
        }
        for (int s = 0; s < 2; s++) {
            ids_select(sides[s].ids);
            fixture_reset_positions(sides[s].f);
        }
        sel_t subject = {&many, ecs, ctx[1]}, plain = {&many, base, base_ctx},
              fewer = {&few, ecs, ctx[0]};
        ze_bench_pair_t r1 = ze_bench_compare(rounds, sel_round, &subject, sel_round, &plain);
        ze_bench_pair_t r2 = ze_bench_compare(rounds, sel_round, &subject, sel_round, &fewer);
        bool failed = sides[0].it.failed || sides[1].it.failed || sides[0].get.missing ||
                      sides[1].get.missing || sides[0].health.failures || sides[1].health.failures;
        if (failed) {
            ze_bench_fail(b, name, "%s: a pass visited the wrong entities", scenarios[sc].name);
            continue;
        }
        char row[ZE_BENCH_NAME_MAX];
        snprintf(row, sizeof(row), "%s_4096types", scenarios[sc].name);
        ze_bench_add(b, row, n, "ns/op", ZE_BENCH_LOWER, r1.value, r1.baseline, ZE_BENCH_NONE);
        snprintf(row, sizeof(row), "%s_4096types_vs_few", scenarios[sc].name);
        ze_bench_add(b, row, n, "ratio", ZE_BENCH_LOWER, r2.ratio, ZE_BENCH_NONE,
                     b->smoke ? ZE_BENCH_NONE : 1.05);
    }
out:
    for (int s = 0; s < 2; s++) {
        if (!sides[s].f)
            continue;
        ids_select(sides[s].ids);
        ze_bench_table_free(sides[s].it.pass_ns);
        fixture_free(sides[s].f);
        ze_bench_table_free(sides[s].f);
    }
    ids_select(&few);
    ze_bench_ecs_env_destroy(&env2);
}

/* -------------------------------------------------------------------- main */

/* The two layouts against the two targets they compete for, at the largest
 * n: which target each meets. */
static void print_tradeoff(const ze_bench_t *b, uint32_t n, const result_t res[S_COUNT])
{
    static const int need[] = {S_ITERATE_PV, S_DESTROY, S_ITERATE_PV_NG, S_DESTROY_NG};
    double ratio[ZE_COUNTOF(need)];
    for (size_t i = 0; i < ZE_COUNTOF(need); i++) {
        const result_t *r = &res[need[i]];
        if (!r->ok || !(r->r.baseline > 0))
            return;
        ratio[i] = r->r.value / r->r.baseline;
    }
    double t_it = scenarios[S_ITERATE_PV].target, t_de = scenarios[S_DESTROY].target;
    bool g_it = ratio[0] <= t_it, g_de = ratio[1] <= t_de;
    bool ng_it = ratio[2] <= t_it, ng_de = ratio[3] <= t_de;
    const char *verdict = (g_it && g_de) || (ng_it && ng_de) ? "one layout meets both targets"
                                                             : "neither layout meets both targets";
    printf("  layout trade-off at n=%u (targets iterate_pos_vel <= %.2f, destroy <= %.2f): "
           "packs: iterate_pos_vel %.2fx %s, destroy %.2fx %s; no_auto_packs: "
           "iterate_pos_vel %.2fx %s, destroy %.2fx %s; %s%s\n",
           n, t_it, t_de, ratio[0], g_it ? "met" : "missed", ratio[1], g_de ? "met" : "missed",
           ratio[2], ng_it ? "met" : "missed", ratio[3], ng_de ? "met" : "missed", verdict,
           b->smoke ? " (smoke sizes: the targets are for n = 1000000)" : "");
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "ecs", argc, argv);

    /* First, before anything else touches memory: the RSS children. */
    if (ze_bench_enabled(&b, "bytes_per_entity"))
        bench_bytes(&b);

    env_t env;
    ze_result res = env_create(&env);
    if (res != ZE_OK) {
        ze_bench_fail(&b, "setup", "creating the manager, job system and kernel: %s",
                      ze_result_str(res));
        return ze_bench_finish(&b);
    }
    if (ze_mem_is_passthrough(env.mm))
        printf("  note: pass-through build, engine allocators forward to malloc\n");

    static const uint32_t full_sizes[] = {10000, 100000, 1000000};
    static const uint32_t smoke_sizes[] = {1000, 5000};
    const uint32_t *sizes = b.smoke ? smoke_sizes : full_sizes;
    uint32_t size_count = b.smoke ? ZE_COUNTOF(smoke_sizes) : ZE_COUNTOF(full_sizes);
    uint32_t rounds = ze_bench_rounds(&b, 9);

    result_t results[MAX_SIZES][S_COUNT];
    memset(results, 0, sizeof(results));
    for (uint32_t s = 0; s < size_count; s++) {
        run_fixture_scenarios(&b, &env, sizes[s], rounds, results[s]);
        run_create_scenarios(&b, &env, sizes[s], rounds, s + 1 == size_count, results[s]);
        if (s + 1 == size_count)
            run_nogroups_fixture(&b, &env, sizes[s], rounds, results[s]);
    }
    /* Rows grouped by scenario, then the ratio rows at the largest size. */
    for (int sc = 0; sc < S_COUNT; sc++)
        for (uint32_t s = 0; s < size_count; s++)
            if (results[s][sc].ok)
                ze_bench_add(&b, scenarios[sc].name, sizes[s], "ns/op", ZE_BENCH_LOWER,
                             results[s][sc].r.value, results[s][sc].r.baseline, ZE_BENCH_NONE);
    uint32_t last = size_count - 1;
    for (int sc = 0; sc < S_COUNT; sc++) {
        const result_t *r = &results[last][sc];
        if (!r->ok || !(r->r.baseline > 0) ||
            (isnan(scenarios[sc].target) && !scenarios[sc].no_groups && !scenarios[sc].info))
            continue;
        char name[ZE_BENCH_NAME_MAX];
        snprintf(name, sizeof(name), "%s_ratio", scenarios[sc].name);
        /* The targets are for n = 1000000: none at smoke sizes; the
         * no-groups rows are informational and never carry one. */
        ze_bench_add(&b, name, sizes[last], "ratio", ZE_BENCH_LOWER, r->r.value / r->r.baseline,
                     ZE_BENCH_NONE, b.smoke ? ZE_BENCH_NONE : scenarios[sc].target);
    }
    print_tradeoff(&b, sizes[last], results[last]);
    bench_many_types(&b, &env, sizes[last], rounds);
    /* The game-shaped world in a kernel and memory manager of its own; its
     * worst ratio goes to the top of the table. */
    ze_bench_ecs_game(&b, rounds);

    if (ze_bench_enabled(&b, "tick_empty_systems"))
        bench_tick(&b, &env);
    if (ze_bench_enabled(&b, "parallel_speedup") || ze_bench_enabled(&b, "parallel_tick"))
        bench_parallel(&b, &env);

    env_destroy(&env);
    return ze_bench_finish(&b);
}
