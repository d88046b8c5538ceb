/* ecs_game_bench.c — bench_ecs's game-shaped world (issue "ECS: every
 * query as fast as plain arrays", section Targets).
 *
 * n = 1,000,000 entities (--smoke: 2,000), every one with a Transform
 * (GameTransform here: the built-in names Transform and Mesh are taken);
 * subsets drawn independently (seeded) get Spin (30 %), Bob (30 %), Orbit
 * (10 %), Velocity (50 %) and GameMesh (80 %), all those adds shuffled together
 * into one random order after the Transforms. The world is created with
 * the five systems' queries first (auto packs on, as a game starts), one
 * per pair with GameTransform: {GameTransform, Spin} .. {GameTransform, GameMesh}; the
 * first four write GameTransform, the GameMesh system reads it and writes GameMesh.
 *
 * Rows, each a pair in interleaved rounds (ze_bench_compare), ns per
 * matching entity, medians:
 *   game_<c>             the scalar kernel of system <c> (spin, bob, orbit,
 *                        velocity, mesh); timed from ze_query_iter to the
 *                        last run, ze_field pointers handed to the kernel
 *                        run by run. Baseline: packed arrays of exactly the
 *                        matching entities (a GameTransform copy and a <c> each),
 *                        the same kernel (not inlined, this file, release
 *                        flags) over them in one call.
 *   game_<c>_sse         the same with the system's SSE kernel on both sides.
 *   game_<c>_after_churn the first iteration after 1 % of all entities
 *                        changed composition (<c> added to those of a fixed
 *                        seeded 1 % that lack it, removed from those that
 *                        have it; untimed), whatever maintenance the ECS
 *                        defers to that iteration included. Baseline: the
 *                        packed arrays kept exact by swap-remove and append
 *                        at churn time (untimed), then the same loop.
 *   game_velocity_without_spin  {Transform, Velocity} without Spin: another
 *                        query shape (a `without` term), scalar kernel.
 *   game_worst_ratio     the largest game_<c>(_sse) ratio, moved to the top
 *                        of the table.
 * Targets (expected_rows.json): every game_<c>(_sse) <= 1.15 x its
 * baseline, after_churn and other shapes <= 2 x.
 *
 * Checked after every row: both sides ran the same passes of the same
 * kernel over the same start values, so every entity's written component
 * read back through ze_get (GameTransform, or GameMesh for the GameMesh system) equals
 * the baseline's copy bit for bit: the writes landed in storage. */
#include "ecs_game_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>

#include "zengine/ecs.h"
#include "zengine/mem.h"

typedef struct GameTransform {
    float pos[3];
    float rot[4];
    float scale[3];
} GameTransform;
typedef struct Spin {
    float axis[3];
    float rate;
} Spin;
typedef struct Bob {
    float amp, freq;
} Bob;
typedef struct Orbit {
    float center[3];
    float speed;
} Orbit;
typedef struct Velocity {
    float v[3];
} Velocity;
typedef struct GameMesh {
    float offset[3];
    float center[3];
    uint32_t mesh, material;
} GameMesh;

static ZE_COMPONENT_DECLARE(GameTransform);
static ZE_COMPONENT_DECLARE(Spin);
static ZE_COMPONENT_DECLARE(Bob);
static ZE_COMPONENT_DECLARE(Orbit);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(GameMesh);

#define DT (1.0f / 60.0f)

enum { SYS_SPIN, SYS_BOB, SYS_ORBIT, SYS_VELOCITY, SYS_MESH, SYS_COUNT };

/* ------------------------------------------------------------- kernels */

/* Not inlined: the ECS runs and the baselines call the very same code. */
__attribute__((noinline)) static void k_spin(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Spin *s = cp;
    for (uint32_t i = 0; i < n; i++) {
        float a = s[i].rate * DT;
        t[i].rot[0] += s[i].axis[0] * a;
        t[i].rot[1] += s[i].axis[1] * a;
        t[i].rot[2] += s[i].axis[2] * a;
    }
}
__attribute__((noinline)) static void k_bob(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Bob *b = cp;
    for (uint32_t i = 0; i < n; i++)
        t[i].pos[1] += b[i].amp * b[i].freq * DT;
}
__attribute__((noinline)) static void k_orbit(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Orbit *o = cp;
    for (uint32_t i = 0; i < n; i++) {
        float k = o[i].speed * DT;
        t[i].pos[0] += (o[i].center[0] - t[i].pos[0]) * k;
        t[i].pos[1] += (o[i].center[1] - t[i].pos[1]) * k;
        t[i].pos[2] += (o[i].center[2] - t[i].pos[2]) * k;
    }
}
__attribute__((noinline)) static void k_velocity(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Velocity *v = cp;
    for (uint32_t i = 0; i < n; i++) {
        t[i].pos[0] += v[i].v[0] * DT;
        t[i].pos[1] += v[i].v[1] * DT;
        t[i].pos[2] += v[i].v[2] * DT;
    }
}
/* The GameMesh system reads GameTransform and writes GameMesh (its bounds' centre). */
__attribute__((noinline)) static void k_mesh(void *restrict tp, void *restrict cp, uint32_t n)
{
    const GameTransform *t = tp;
    GameMesh *m = cp;
    for (uint32_t i = 0; i < n; i++) {
        m[i].center[0] = t[i].pos[0] + m[i].offset[0];
        m[i].center[1] = t[i].pos[1] + m[i].offset[1];
        m[i].center[2] = t[i].pos[2] + m[i].offset[2];
    }
}

/* Three floats into lanes 0..2 (lane 3 zero) and back, touching no fourth
 * float. */
static inline __m128 load3(const float *p)
{
    __m128 xy = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)p);
    return _mm_movelh_ps(xy, _mm_load_ss(p + 2));
}
static inline void store3(float *p, __m128 v)
{
    _mm_storel_pi((__m64 *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}

__attribute__((noinline)) static void k_spin_sse(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Spin *s = cp;
    for (uint32_t i = 0; i < n; i++) {
        __m128 a = _mm_set1_ps(s[i].rate * DT);
        store3(t[i].rot, _mm_add_ps(load3(t[i].rot), _mm_mul_ps(load3(s[i].axis), a)));
    }
}
__attribute__((noinline)) static void k_bob_sse(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Bob *b = cp;
    const __m128 dt = _mm_set_ss(DT);
    for (uint32_t i = 0; i < n; i++) {
        __m128 y = _mm_load_ss(&t[i].pos[1]);
        __m128 d = _mm_mul_ss(_mm_mul_ss(_mm_load_ss(&b[i].amp), _mm_load_ss(&b[i].freq)), dt);
        _mm_store_ss(&t[i].pos[1], _mm_add_ss(y, d));
    }
}
__attribute__((noinline)) static void k_orbit_sse(void *restrict tp, void *restrict cp, uint32_t n)
{
    GameTransform *t = tp;
    const Orbit *o = cp;
    for (uint32_t i = 0; i < n; i++) {
        __m128 k = _mm_set1_ps(o[i].speed * DT);
        __m128 p = load3(t[i].pos);
        store3(t[i].pos, _mm_add_ps(p, _mm_mul_ps(_mm_sub_ps(load3(o[i].center), p), k)));
    }
}
__attribute__((noinline)) static void k_velocity_sse(void *restrict tp, void *restrict cp,
                                                     uint32_t n)
{
    GameTransform *t = tp;
    const Velocity *v = cp;
    const __m128 dt = _mm_set1_ps(DT);
    for (uint32_t i = 0; i < n; i++)
        store3(t[i].pos, _mm_add_ps(load3(t[i].pos), _mm_mul_ps(load3(v[i].v), dt)));
}
__attribute__((noinline)) static void k_mesh_sse(void *restrict tp, void *restrict cp, uint32_t n)
{
    const GameTransform *t = tp;
    GameMesh *m = cp;
    for (uint32_t i = 0; i < n; i++)
        store3(m[i].center, _mm_add_ps(load3(t[i].pos), load3(m[i].offset)));
}

typedef void (*kernel_fn)(void *restrict t, void *restrict c, uint32_t n);

typedef struct system_t {
    const char *name;
    uint32_t percent;
    kernel_fn scalar, sse;
    bool writes_other; /* the GameMesh system writes its component, not GameTransform */
} system_t;

static const system_t g_systems[SYS_COUNT] = {
    [SYS_SPIN] = {"spin", 30, k_spin, k_spin_sse, false},
    [SYS_BOB] = {"bob", 30, k_bob, k_bob_sse, false},
    [SYS_ORBIT] = {"orbit", 10, k_orbit, k_orbit_sse, false},
    [SYS_VELOCITY] = {"velocity", 50, k_velocity, k_velocity_sse, false},
    [SYS_MESH] = {"mesh", 80, k_mesh, k_mesh_sse, true},
};

/* ---------------------------------------------------------- the world */

static GameTransform transform_init(uint32_t e)
{
    return (GameTransform){.pos = {(float)(e % 1000), (float)(e % 37) * 0.25f, (float)(e / 1000)},
                           .rot = {0, 0, 0, 1},
                           .scale = {1, 1, 1}};
}

/* Component <sys>'s value for entity e (its size at most 32 bytes). */
static void component_init(int sys, uint32_t e, void *out)
{
    float f = (float)(e % 97) * 0.125f;
    switch (sys) {
    case SYS_SPIN:
        *(Spin *)out = (Spin){{0.0f, 1.0f, 0.5f}, 1.0f + f};
        break;
    case SYS_BOB:
        *(Bob *)out = (Bob){0.5f + f, 2.0f};
        break;
    case SYS_ORBIT:
        *(Orbit *)out = (Orbit){{f, 0.0f, -f}, 0.75f};
        break;
    case SYS_VELOCITY:
        *(Velocity *)out = (Velocity){{f, 1.0f, -0.5f}};
        break;
    default:
        *(GameMesh *)out = (GameMesh){{0.5f, f, 0.5f}, {0, 0, 0}, e % 16, e % 5};
        break;
    }
}

static ze_component_t comp_of(int sys)
{
    static const ze_component_t *const ids[SYS_COUNT] = {&ZE_ID(Spin), &ZE_ID(Bob), &ZE_ID(Orbit),
                                                         &ZE_ID(Velocity), &ZE_ID(GameMesh)};
    return *ids[sys];
}

static size_t size_of(int sys)
{
    static const size_t sizes[SYS_COUNT] = {sizeof(Spin), sizeof(Bob), sizeof(Orbit),
                                            sizeof(Velocity), sizeof(GameMesh)};
    return sizes[sys];
}

typedef struct game_t {
    ze_bench_ecs_env_t env;
    ze_world_t *w;
    ze_query_t q[SYS_COUNT];
    ze_query_t q_without; /* {GameTransform, Velocity} without Spin */
    uint32_t n;
    ze_entity_t *ent; /* [n] */
    uint8_t *has;     /* [n]: bit s = has system s's component */
    uint32_t *churn;  /* [n / 100]: the 1 % whose composition changes */
    uint32_t churn_count;
} game_t;

static void shuffle(uint32_t *a, uint32_t n, ze_rng_t *rng)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)ze_rng_below(rng, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static bool game_create(game_t *g, uint32_t n)
{
    memset(g, 0, sizeof(*g));
    g->n = n;
    if (ze_bench_ecs_env_create(&g->env, ZE_GIB(2), (ze_kernel_desc_t){.name = "game"}) != ZE_OK)
        return false;
    ze_kernel_t *k = g->env.k;
    ZE_COMPONENT_DEFINE(k, GameTransform);
    ZE_COMPONENT_DEFINE(k, Spin);
    ZE_COMPONENT_DEFINE(k, Bob);
    ZE_COMPONENT_DEFINE(k, Orbit);
    ZE_COMPONENT_DEFINE(k, Velocity);
    ZE_COMPONENT_DEFINE(k, GameMesh);
    g->w = ze_world_create(k, &(ze_world_desc_t){.name = "game", .capacity = n});
    if (!g->w)
        return false;
    for (int s = 0; s < SYS_COUNT; s++) {
        ze_mask_t with = ze_mask_or(ze_mask_of(ZE_ID(GameTransform)), ze_mask_of(comp_of(s)));
        ze_mask_t write = ze_mask_of(g_systems[s].writes_other ? comp_of(s) : ZE_ID(GameTransform));
        g->q[s] = ze_query_create(g->w, &(ze_query_desc_t){.with = with, .write = write});
        if (!g->q[s].id)
            return false;
    }
    g->q_without = ze_query_create(
        g->w, &(ze_query_desc_t){
                  .with = ze_mask_or(ze_mask_of(ZE_ID(GameTransform)), ze_mask_of(ZE_ID(Velocity))),
                  .without = ze_mask_of(ZE_ID(Spin)),
                  .write = ze_mask_of(ZE_ID(GameTransform))});
    if (!g->q_without.id)
        return false;
    g->ent = ze_bench_table_alloc((size_t)n * sizeof(ze_entity_t));
    g->has = ze_bench_table_alloc(n);
    memset(g->has, 0, n);
    uint32_t bad = 0;
    for (uint32_t e = 0; e < n; e++) {
        g->ent[e] = ze_entity_create(g->w);
        GameTransform t = transform_init(e);
        bad += ze_component_set(g->w, g->ent[e], ZE_ID(GameTransform), &t) != ZE_OK;
    }
    /* Independent subsets, all their adds in one shuffled order. */
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x9a3e5ull);
    uint32_t total = 0;
    for (int s = 0; s < SYS_COUNT; s++)
        total += (uint32_t)((uint64_t)n * g_systems[s].percent / 100);
    uint32_t *adds = ze_bench_table_alloc((size_t)total * sizeof(uint32_t));
    uint32_t *perm = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    uint32_t at = 0;
    for (int s = 0; s < SYS_COUNT; s++) {
        for (uint32_t i = 0; i < n; i++)
            perm[i] = i;
        shuffle(perm, n, &rng);
        uint32_t m = (uint32_t)((uint64_t)n * g_systems[s].percent / 100);
        for (uint32_t i = 0; i < m; i++)
            adds[at++] = perm[i] * SYS_COUNT + (uint32_t)s;
    }
    shuffle(adds, total, &rng);
    for (uint32_t i = 0; i < total; i++) {
        uint32_t e = adds[i] / SYS_COUNT;
        int s = (int)(adds[i] % SYS_COUNT);
        uint8_t v[32];
        component_init(s, e, v);
        bad += ze_component_set(g->w, g->ent[e], comp_of(s), v) != ZE_OK;
        g->has[e] |= (uint8_t)(1u << s);
    }
    /* The churned 1 %: a seeded sample. */
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    shuffle(perm, n, &rng);
    g->churn_count = ZE_MAX(n / 100, 1u);
    g->churn = ze_bench_table_alloc((size_t)g->churn_count * sizeof(uint32_t));
    memcpy(g->churn, perm, (size_t)g->churn_count * sizeof(uint32_t));
    ze_bench_table_free(perm);
    ze_bench_table_free(adds);
    return bad == 0;
}

static void game_destroy(game_t *g)
{
    if (g->w)
        ze_world_destroy(g->w);
    ze_bench_ecs_env_destroy(&g->env);
    if (g->ent)
        ze_bench_table_free(g->ent);
    if (g->has)
        ze_bench_table_free(g->has);
    if (g->churn)
        ze_bench_table_free(g->churn);
}

/* ---------------------------------------------------- one system's row */

/* The baseline of one system: packed copies of exactly its matches, kept
 * exact through churn; every entity's GameTransform (or component) outside
 * the set is remembered so a re-added entity continues from it. */
typedef struct row_t {
    game_t *g;
    int sys;
    uint8_t without; /* systems' bits a match must lack (a `without` term) */
    ze_query_t q;
    kernel_fn kernel;
    bool churn; /* after_churn rounds */
    uint32_t passes;
    double *pass_ns;
    /* baseline */
    GameTransform *bt;     /* [n] slots used: count */
    uint8_t *bc;           /* [n * csize] */
    uint32_t *bent;        /* [n] slot -> entity */
    int32_t *slot;         /* [n] entity -> slot or -1 */
    GameTransform *rest_t; /* [n] entities outside the set */
    uint32_t count;
    size_t csize;
    uint8_t *has; /* [n] the baseline's own membership (bit sys) */
    bool failed;
    char why[160];
} row_t;

static bool row_match(const row_t *r, uint8_t has)
{
    return ((has >> r->sys) & 1) && !(has & r->without);
}

/* Both sides back to the start values; the baseline's arrays rebuilt. */
static bool row_reset(row_t *r)
{
    game_t *g = r->g;
    uint32_t bad = 0;
    r->count = 0;
    for (uint32_t e = 0; e < g->n; e++) {
        GameTransform t = transform_init(e);
        bad += ze_component_set(g->w, g->ent[e], ZE_ID(GameTransform), &t) != ZE_OK;
        r->rest_t[e] = t;
        r->slot[e] = -1;
        if (!row_match(r, g->has[e]))
            continue;
        uint8_t v[32];
        component_init(r->sys, e, v);
        bad += ze_component_set(g->w, g->ent[e], comp_of(r->sys), v) != ZE_OK;
        r->slot[e] = (int32_t)r->count;
        r->bent[r->count] = e;
        r->bt[r->count] = t;
        memcpy(r->bc + (size_t)r->count * r->csize, v, r->csize);
        r->count++;
    }
    memcpy(r->has, g->has, g->n);
    return bad == 0;
}

/* The 1 % toggled: on the ECS world (ecs) or the baseline's arrays. */
static void churn_ecs(row_t *r)
{
    game_t *g = r->g;
    uint8_t bit = (uint8_t)(1u << r->sys);
    for (uint32_t i = 0; i < g->churn_count; i++) {
        uint32_t e = g->churn[i];
        if (g->has[e] & bit) {
            if (ze_component_remove(g->w, g->ent[e], comp_of(r->sys)) != ZE_OK)
                r->failed = true;
        } else {
            uint8_t v[32];
            component_init(r->sys, e, v);
            if (ze_component_set(g->w, g->ent[e], comp_of(r->sys), v) != ZE_OK)
                r->failed = true;
        }
        g->has[e] ^= bit;
    }
}

static void churn_base(row_t *r)
{
    uint8_t bit = (uint8_t)(1u << r->sys);
    for (uint32_t i = 0; i < r->g->churn_count; i++) {
        uint32_t e = r->g->churn[i];
        if (r->has[e] & bit) {
            uint32_t s = (uint32_t)r->slot[e], last = --r->count;
            r->rest_t[e] = r->bt[s];
            r->bt[s] = r->bt[last];
            memcpy(r->bc + (size_t)s * r->csize, r->bc + (size_t)last * r->csize, r->csize);
            r->bent[s] = r->bent[last];
            r->slot[r->bent[s]] = (int32_t)s;
            r->slot[e] = -1;
        } else {
            uint32_t s = r->count++;
            r->bt[s] = r->rest_t[e];
            component_init(r->sys, e, r->bc + (size_t)s * r->csize);
            r->bent[s] = e;
            r->slot[e] = (int32_t)s;
        }
        r->has[e] ^= bit;
    }
}

static uint32_t ecs_matches(const row_t *r)
{
    uint32_t m = 0;
    for (uint32_t e = 0; e < r->g->n; e++)
        m += row_match(r, r->g->has[e]);
    return m;
}

static double pass_ecs(row_t *r, uint32_t expect)
{
    game_t *g = r->g;
    uint64_t seen = 0;
    ze_component_t other = comp_of(r->sys);
    uint64_t t0 = ze_bench_now_ns();
    ze_iter_t it = ze_query_iter(g->w, r->q);
    while (ze_query_next(&it)) {
        r->kernel(ze_iter_field(&it, ZE_ID(GameTransform)), ze_iter_field(&it, other), it.count);
        seen += it.count;
    }
    uint64_t t1 = ze_bench_now_ns();
    if (seen != expect && !r->failed) {
        r->failed = true;
        snprintf(r->why, sizeof(r->why), "the query visited %llu entities, %u match",
                 (unsigned long long)seen, expect);
    }
    return (double)(t1 - t0) / (double)ZE_MAX(expect, 1u);
}

static double pass_base(row_t *r)
{
    uint64_t t0 = ze_bench_now_ns();
    r->kernel(r->bt, r->bc, r->count);
    ze_bench_clobber();
    uint64_t t1 = ze_bench_now_ns();
    return (double)(t1 - t0) / (double)ZE_MAX(r->count, 1u);
}

static double round_ecs(void *p)
{
    row_t *r = p;
    if (r->churn) {
        churn_ecs(r);
        return pass_ecs(r, ecs_matches(r)); /* the first iteration after it */
    }
    uint32_t m = r->count;
    for (uint32_t i = 0; i < r->passes; i++)
        r->pass_ns[i] = pass_ecs(r, m);
    return ze_bench_median(r->pass_ns, r->passes);
}

static double round_base(void *p)
{
    row_t *r = p;
    if (r->churn) {
        churn_base(r);
        return pass_base(r);
    }
    for (uint32_t i = 0; i < r->passes; i++)
        r->pass_ns[i] = pass_base(r);
    return ze_bench_median(r->pass_ns, r->passes);
}

/* Every entity's written component, read through ze_get, against the
 * baseline's. */
static bool row_check(row_t *r)
{
    game_t *g = r->g;
    for (uint32_t e = 0; e < g->n; e++) {
        const void *got;
        const void *want;
        size_t len;
        if (g_systems[r->sys].writes_other) {
            if (r->slot[e] < 0)
                continue;
            got = ze_component_get(g->w, g->ent[e], comp_of(r->sys));
            want = r->bc + (size_t)r->slot[e] * r->csize;
            len = r->csize;
        } else {
            got = ze_component_get(g->w, g->ent[e], ZE_ID(GameTransform));
            want = r->slot[e] < 0 ? &r->rest_t[e] : &r->bt[r->slot[e]];
            len = sizeof(GameTransform);
        }
        if (!got || memcmp(got, want, len) != 0) {
            snprintf(r->why, sizeof(r->why),
                     "entity %u: its %s read through ze_get differs from "
                     "the baseline's",
                     e, g_systems[r->sys].writes_other ? "component" : "GameTransform");
            return false;
        }
    }
    return true;
}

static uint32_t passes_for(const ze_bench_t *b, uint32_t m)
{
    if (b->smoke)
        return 3;
    uint64_t p = 4000000ull / ZE_MAX(m, 1u);
    return (uint32_t)ZE_MIN(ZE_MAX(p, 5ull), 101ull) | 1u;
}

enum { VARIANT_SCALAR, VARIANT_SSE, VARIANT_CHURN, VARIANT_WITHOUT, VARIANT_COUNT };

/* One row: reset, the rounds, the check. The ratio, or NAN on failure. */
static double run_row(ze_bench_t *b, row_t *r, int variant, uint32_t rounds)
{
    static const char *const suffix[VARIANT_COUNT] = {"", "_sse", "_after_churn", "_without_spin"};
    char name[ZE_BENCH_NAME_MAX];
    snprintf(name, sizeof(name), "game_%s%s", g_systems[r->sys].name, suffix[variant]);
    r->kernel = variant == VARIANT_SSE ? g_systems[r->sys].sse : g_systems[r->sys].scalar;
    r->churn = variant == VARIANT_CHURN;
    r->failed = false;
    r->why[0] = 0;
    if (!row_reset(r)) {
        ze_bench_fail(b, name, "resetting the world's values failed");
        return NAN;
    }
    r->passes = passes_for(b, r->count);
    ze_bench_pair_t p = ze_bench_compare(rounds, round_ecs, r, round_base, r);
    if (!r->failed && ecs_matches(r) != r->count)
        snprintf(r->why, sizeof(r->why), "the world and the baseline disagree on the matches"),
            r->failed = true;
    if (r->failed || !row_check(r)) {
        ze_bench_fail(b, name, "%s", r->why[0] ? r->why : "churn failed");
        return NAN;
    }
    ze_bench_add(b, name, r->g->n, "ns/op", ZE_BENCH_LOWER, p.value, p.baseline, ZE_BENCH_NONE);
    printf("  %s n=%u: %u matching, %.3f ns vs %.3f ns a match (%.2fx)%s\n", name, r->g->n,
           r->count, p.value, p.baseline, p.value / p.baseline,
           r->churn ? "; first pass after the churn" : "");
    return p.baseline > 0 ? p.value / p.baseline : NAN;
}

void ze_bench_ecs_game(ze_bench_t *b, uint32_t rounds)
{
    if (!ze_bench_enabled(b, "game_"))
        return;
    uint32_t n = (uint32_t)ze_bench_size(b, 1000000, 2000);
    game_t *g = ze_bench_table_alloc(sizeof(*g));
    uint64_t t0 = ze_bench_now_ns();
    if (!game_create(g, n)) {
        ze_bench_fail(b, "game_spin", "building the game-shaped world failed");
        game_destroy(g);
        ze_bench_table_free(g);
        return;
    }
    printf("  game world: %u entities, built in %.0f ms; packs:", n,
           (double)(ze_bench_now_ns() - t0) * 1e-6);
    for (int s = 0; s < SYS_COUNT; s++)
        printf(" {GameTransform, %s} %u", g_systems[s].name,
               ze_pack_size(g->w,
                            ze_mask_or(ze_mask_of(ZE_ID(GameTransform)), ze_mask_of(comp_of(s)))));
    printf("\n");
    row_t r = {.g = g};
    r.bt = ze_bench_table_alloc((size_t)n * sizeof(GameTransform));
    r.rest_t = ze_bench_table_alloc((size_t)n * sizeof(GameTransform));
    r.bc = ze_bench_table_alloc((size_t)n * 32);
    r.bent = ze_bench_table_alloc((size_t)n * sizeof(uint32_t));
    r.slot = ze_bench_table_alloc((size_t)n * sizeof(int32_t));
    r.has = ze_bench_table_alloc(n);
    r.pass_ns = ze_bench_table_alloc(101 * sizeof(double));
    double worst = 0;
    const char *worst_name = NULL;
    static char worst_buf[ZE_BENCH_NAME_MAX];
    for (int s = 0; s < SYS_COUNT; s++) {
        r.sys = s;
        r.csize = size_of(s);
        r.without = 0;
        r.q = g->q[s];
        for (int v = 0; v < VARIANT_WITHOUT; v++) {
            double ratio = run_row(b, &r, v, rounds);
            if (v != VARIANT_CHURN && ratio > worst) {
                worst = ratio;
                snprintf(worst_buf, sizeof(worst_buf), "game_%s%s", g_systems[s].name,
                         v == VARIANT_SSE ? "_sse" : "");
                worst_name = worst_buf;
            }
        }
    }
    /* Another query shape: a `without` term (target <= 2 x). */
    r.sys = SYS_VELOCITY;
    r.csize = size_of(SYS_VELOCITY);
    r.without = 1u << SYS_SPIN;
    r.q = g->q_without;
    run_row(b, &r, VARIANT_WITHOUT, rounds);
    if (worst_name) {
        ze_bench_add(b, "game_worst_ratio", n, "ratio", ZE_BENCH_LOWER, worst, ZE_BENCH_NONE,
                     b->smoke ? ZE_BENCH_NONE : 1.15);
        /* to the top of the table */
        ze_bench_row_t top = b->rows[b->row_count - 1];
        memmove(b->rows + 1, b->rows, (size_t)(b->row_count - 1) * sizeof(*b->rows));
        b->rows[0] = top;
        printf("  game_worst_ratio: %.2fx (%s)\n", worst, worst_name);
    }
    ze_bench_table_free(r.bt);
    ze_bench_table_free(r.rest_t);
    ze_bench_table_free(r.bc);
    ze_bench_table_free(r.bent);
    ze_bench_table_free(r.slot);
    ze_bench_table_free(r.has);
    ze_bench_table_free(r.pass_ns);
    game_destroy(g);
    ze_bench_table_free(g);
}
