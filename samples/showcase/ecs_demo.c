/* Showcase part 2: the ECS. A few thousand entities with systems on a
 * WorldTick (two of them run in parallel), commands that spawn and destroy,
 * an actor, and a small transform hierarchy. */
#include <math.h>
#include <stdio.h>

#include <zengine/zengine.h>

#include "showcase.h"

typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;
typedef struct Lifetime {
    float seconds;
} Lifetime;
typedef struct Spin {
    float radians_per_second;
} Spin;

/* Ids live in globals so every function of this file can use the macros. */
static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);
static ZE_COMPONENT_DECLARE(Lifetime);
static ZE_COMPONENT_DECLARE(Spin);

static void move(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        const Velocity *v = ze_field(&it, Velocity);
        for (uint32_t i = 0; i < it.count; i++) {
            p[i].x += v[i].x * t->dt;
            p[i].y += v[i].y * t->dt;
        }
    }
}

/* Runs after move (it reads what move writes): keep entities in the box. */
static void bounce(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        const Position *p = ze_field(&it, Position);
        Velocity *v = ze_field(&it, Velocity);
        for (uint32_t i = 0; i < it.count; i++) {
            if (fabsf(p[i].x) > 100.0f && p[i].x * v[i].x > 0)
                v[i].x = -v[i].x;
            if (fabsf(p[i].y) > 100.0f && p[i].y * v[i].y > 0)
                v[i].y = -v[i].y;
        }
    }
}

/* Independent of move/bounce: shares their wave, on another thread. */
static void spin(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const Spin *s = ze_field(&it, Spin);
        for (uint32_t i = 0; i < it.count; i++) {
            ze_quat_t dq =
                ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, s[i].radians_per_second * t->dt);
            tr[i].rotation = ze_quat_normalize(ze_quat_mul(dq, tr[i].rotation));
        }
    }
}

typedef struct expire_stats_t {
    uint32_t expired, spawned;
} expire_stats_t;

static void on_spawned(ze_world_t *w, ze_entity_t e, void *user)
{
    (void)w, (void)e;
    ((expire_stats_t *)user)->spawned++;
}

/* Ages entities; an expired one is destroyed and replaced by a fresh one,
 * all through the system's command buffer. */
static void expire(ze_world_t *w, const ze_tick_t *t)
{
    expire_stats_t *stats = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Lifetime *life = ze_field(&it, Lifetime);
        for (uint32_t i = 0; i < it.count; i++) {
            life[i].seconds -= t->dt;
            if (life[i].seconds > 0)
                continue;
            ze_cmd_destroy(t->cmds, ze_iter_entity(&it, i));
            ze_entity_t fresh = ze_cmd_spawn(t->cmds, on_spawned, stats);
            ze_cmd_set_t(t->cmds, fresh, Position, {0, 0});
            ze_cmd_set_t(t->cmds, fresh, Velocity, {1.5f, -2.0f});
            ze_cmd_set_t(t->cmds, fresh, Lifetime, {3.0f});
            stats->expired++;
        }
    }
}

typedef struct Drone {
    ze_actor_base_t base;
    uint32_t ticks;
} Drone;

static void drone_create(void *self)
{
    Drone *d = self;
    ze_set(d->base.world, d->base.entity, ze_name_t, {"drone"});
}
static void drone_tick(void *self, float dt)
{
    (void)dt;
    ((Drone *)self)->ticks++;
}

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js)
{
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.mem = mm, .jobs = js});
    if (!k)
        return false;
    ZE_COMPONENT_DEFINE(k, Position);
    ZE_COMPONENT_DEFINE(k, Velocity);
    ZE_COMPONENT_DEFINE(k, Lifetime);
    ZE_COMPONENT_DEFINE(k, Spin);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.name = "showcase"});

    /* Systems first (their queries pack what they iterate), then entities. */
    expire_stats_t stats = {0};
    ze_worldtick_t *tick = ze_worldtick_create(w);
    ze_system_t s_move = ze_worldtick_add(tick, &(ze_system_desc_t){.name = "move",
                                                                    .fn = move,
                                                                    .reads = ZE_MASK(Velocity),
                                                                    .writes = ZE_MASK(Position)});
    ze_system_t s_bounce = ze_worldtick_add(tick, &(ze_system_desc_t){.name = "bounce",
                                                                      .fn = bounce,
                                                                      .reads = ZE_MASK(Position),
                                                                      .writes = ZE_MASK(Velocity)});
    ze_system_t s_spin = ze_worldtick_add(
        tick,
        &(ze_system_desc_t){
            .name = "spin", .fn = spin, .reads = ZE_MASK(Spin), .writes = ZE_MASK(ze_transform_t)});
    ze_system_t s_expire = ze_worldtick_add(tick, &(ze_system_desc_t){.name = "expire",
                                                                      .fn = expire,
                                                                      .user = &stats,
                                                                      .writes = ZE_MASK(Lifetime),
                                                                      .uses_commands = true});
    ze_system_desc_t hierarchy_desc = ze_hierarchy_system_desc();
    ze_system_t s_hierarchy = ze_worldtick_add(tick, &hierarchy_desc);

    /* move and bounce conflict (each writes what the other reads): the
     * commit refuses until they are ordered. */
    ze_result first = ze_worldtick_commit(tick);
    printf("ecs: commit without an order: %s (%s)\n", ze_result_str(first),
           ze_worldtick_error(tick));
    ze_worldtick_order(tick, s_move, s_bounce);
    ze_worldtick_order(tick, s_bounce, s_expire);  /* expire destroys what bounce reads */
    ze_worldtick_order(tick, s_spin, s_hierarchy); /* world matrices after rotations */
    if (ze_worldtick_commit(tick) != ZE_OK) {
        printf("ecs: commit failed: %s\n", ze_worldtick_error(tick));
        return false;
    }

    ze_rng_t rng;
    ze_rng_seed(&rng, 2026);
    enum { N = 5000 };
    for (uint32_t i = 0; i < N; i++) {
        ze_entity_t e = ze_entity_create(w);
        ze_set(w, e, Position,
               {(float)ze_rng_unit(&rng) * 200 - 100, (float)ze_rng_unit(&rng) * 200 - 100});
        ze_set(w, e, Velocity,
               {(float)ze_rng_unit(&rng) * 20 - 10, (float)ze_rng_unit(&rng) * 20 - 10});
        ze_set(w, e, Lifetime, {0.5f + (float)ze_rng_unit(&rng) * 4});
        if (i % 10 == 0) {
            ze_add(w, e, ze_transform_t);
            ze_set(w, e, Spin, {1.0f + (float)(i % 7)});
        }
    }
    /* A parent and a child: the child's world position follows the parent. */
    ze_entity_t parent = ze_entity_create(w), child = ze_entity_create(w);
    ze_transform_t pt = ze_transform_identity(), ct = ze_transform_identity();
    pt.position = (ze_vec3_t){10, 0, 0};
    ct.position = (ze_vec3_t){0, 2, 0};
    ze_component_set(w, parent, ZE_ID(ze_transform_t), &pt);
    ze_component_set(w, child, ZE_ID(ze_transform_t), &ct);
    ze_set(w, child, ze_parent_t, {parent});

    ze_actor_t drone = ze_actor_create(w, &(ze_actor_class_t){.name = "Drone",
                                                              .size = sizeof(Drone),
                                                              .on_create = drone_create,
                                                              .on_tick = drone_tick});

    uint64_t t0 = ze_time_now_ns();
    enum { FRAMES = 600 };
    for (int frame = 0; frame < FRAMES; frame++) {
        ze_worldtick_run(tick, 1.0f / 60.0f);
        ze_actors_tick(w, 1.0f / 60.0f);
    }
    uint64_t t1 = ze_time_now_ns();

    ze_transform_t *cw = ze_get(w, child, ze_transform_t);
    Drone *d = ze_actor_get(w, drone);
    printf("ecs: %u systems in %u waves (spin runs beside move on the pool); %d frames of %u "
           "entities in %.1f ms (%.1f us/frame)\n",
           5u, ze_worldtick_wave_count(tick), FRAMES, ze_world_entity_count(w),
           (double)(t1 - t0) / 1e6, (double)(t1 - t0) / 1e3 / FRAMES);
    printf("ecs: %u entities expired and were replaced through commands (%u spawn callbacks)\n",
           stats.expired, stats.spawned);
    printf("ecs: child world position (%.1f, %.1f, %.1f) under its parent at (10, 0, 0)\n",
           cw->world.m[3][0], cw->world.m[3][1], cw->world.m[3][2]);
    printf("ecs: actor '%s' ticked %u times\n", ze_get(w, d->base.entity, ze_name_t)->value,
           d->ticks);
    bool ok = stats.expired == stats.spawned && stats.expired > 0 && d->ticks == FRAMES &&
              fabsf(cw->world.m[3][0] - 10) < 1e-4f && fabsf(cw->world.m[3][1] - 2) < 1e-4f;
    ze_worldtick_destroy(tick);
    ze_kernel_destroy(k);
    return ok;
}
