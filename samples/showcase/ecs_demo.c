/* Showcase part 2: the ECS. A few thousand entities with systems on a
 * WorldTick (two of them run in parallel), commands that spawn and destroy,
 * an actor, and a small transform hierarchy. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <zengine/zengine.h>

#include "showcase.h"

/* What the demo kernel reported (the plan error is printed). */
static ze_diag_capture_t g_ecs_diag = {.pass_on = true};

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

typedef struct Expired {
    uint32_t index;
    float age;
} Expired;
static ZE_MESSAGE_DECLARE(Expired);

static void on_expired(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w, (void)type, (void)payload;
    (*(uint32_t *)user)++;
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
            ze_publish(w, Expired, {it.indices[i], life[i].seconds});
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

typedef struct hud_t {
    uint32_t frames, last_population;
} hud_t;

/* FrameUI: reads only (the group may not write); counts what it shows. */
static void hud(ze_world_t *w, const ze_tick_t *t)
{
    hud_t *h = t->user;
    h->frames++;
    h->last_population = ze_query_count(w, t->query);
}

static bool load_scene(ze_world_t *w)
{
    FILE *f = fopen(SHOWCASE_SCENE, "rb");
    if (!f) {
        printf("ecs: cannot open %s\n", SHOWCASE_SCENE);
        return false;
    }
    char text[16384];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    ze_scene_report_t report;
    ze_result r = ze_scene_load_json(w, text, n, &report);
    if (r != ZE_OK) {
        printf("ecs: scene load failed: %s\n", ze_result_str(r));
        return false;
    }
    printf("ecs: scene %s: %u entities, %u problems\n", "showcase.scene.json", report.entities,
           report.problems);
    /* Saving it again gives the same bytes. */
    ze_byte_writer_t out = {
        .alloc = ze_mem_owner_allocator(ze_world_services(w)->mem, ZE_MEM_OWNER_GAME)};
    bool same =
        ze_scene_save_json(w, &out) == ZE_OK && out.size == n && memcmp(out.data, text, n) == 0;
    ze_byte_writer_free(&out);
    printf("ecs: scene saved back byte-identical: %s\n", same ? "yes" : "NO");
    return same;
}

bool showcase_ecs(ze_mem_t *mm, ze_job_system_t *js)
{
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){
        .mem = mm, .jobs = js, .fixed_dt = 1.0 / 60.0, .diag = ze_diag_capture_sink(&g_ecs_diag)});
    if (!k)
        return false;
    /* one line each, with the fields (scene files and snapshots use them) */
    ZE_COMPONENT_DEFINE_FIELDS(k, Position, ZE_FIELD(Position, x, ZE_FIELD_F32),
                               ZE_FIELD(Position, y, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE_FIELDS(k, Velocity, ZE_FIELD(Velocity, x, ZE_FIELD_F32),
                               ZE_FIELD(Velocity, y, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE_FIELDS(k, Lifetime, ZE_FIELD(Lifetime, seconds, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE_FIELDS(k, Spin, ZE_FIELD(Spin, radians_per_second, ZE_FIELD_F32));
    ZE_MESSAGE_DEFINE(k, Expired);
    ze_world_t *w = ze_world_create(k, &(ze_world_desc_t){.name = "showcase"});
    bool scene_ok = load_scene(w);

    /* Systems first (their queries pack what they iterate), then entities. */
    expire_stats_t stats = {0};
    hud_t hud_state = {0};
    uint32_t expired_messages = 0;
    ze_message_subscribe(w, ZE_MSG_ID(Expired), on_expired, &expired_messages);
    ze_system_t s_move = ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                                              .fn = move,
                                                              .reads = ZE_MASK(Velocity),
                                                              .writes = ZE_MASK(Position),
                                                              .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_t s_bounce =
        ze_system_add(w, &(ze_system_desc_t){.name = "bounce",
                                             .fn = bounce,
                                             .reads = ZE_MASK(Position),
                                             .writes = ZE_MASK(Velocity),
                                             .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_add(w, &(ze_system_desc_t){.name = "spin",
                                         .fn = spin,
                                         .reads = ZE_MASK(Spin),
                                         .writes = ZE_MASK(ze_transform_t),
                                         .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_add(w, &(ze_system_desc_t){.name = "expire",
                                         .fn = expire,
                                         .user = &stats,
                                         .writes = ZE_MASK(Lifetime),
                                         .uses_commands = true,
                                         .group = ZE_GROUP_FIXED_POST});
    ze_system_desc_t hierarchy_desc = ze_hierarchy_system_desc();
    hierarchy_desc.group = ZE_GROUP_FRAME_VIEW; /* world matrices for the renderer */
    ze_system_add(w, &hierarchy_desc);
    ze_system_add(w, &(ze_system_desc_t){.name = "hud",
                                         .fn = hud,
                                         .user = &hud_state,
                                         .reads = ZE_MASK(Lifetime),
                                         .group = ZE_GROUP_FRAME_UI});

    /* move and bounce conflict (each writes what the other reads): the
     * first frame reports it and skips their group until they are ordered. */
    ze_result first = ze_kernel_frame(k, 0.0);
    printf("ecs: first frame without an order: %s (%s)\n", ze_result_str(first),
           g_ecs_diag.last_message);
    ze_system_order(w, s_move, s_bounce);

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

    /* 600 frames of a display that mostly runs at 60 Hz, with a hitch every
     * 100 frames: the accumulator catches up (at most 5 steps) and the
     * interpolation factor carries the rest. */
    double group_time[ZE_GROUP_END] = {0};
    uint64_t t0 = ze_time_now_ns();
    enum { FRAMES = 600 };
    uint64_t steps = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        double dt = frame % 100 == 99 ? 0.120 : 1.0 / 60.0;
        if (ze_kernel_frame(k, dt) != ZE_OK)
            printf("ecs: frame %d reported an error\n", frame);
        steps += ze_kernel_frame_stats(k).substeps;
        for (int g = ZE_GROUP_FRAME_INPUT; g < ZE_GROUP_END; g++)
            group_time[g] += ze_world_group_seconds(w, (ze_system_group)g);
    }
    uint64_t t1 = ze_time_now_ns();
    ze_frame_stats_t fs = ze_kernel_frame_stats(k);

    const ze_transform_t *cw = ze_get(w, child, ze_transform_t);
    Drone *d = ze_actor_get(w, drone);
    printf("ecs: %d frames, %llu fixed steps, %.3f s dropped by the clamp; %u entities; %.1f "
           "us/frame\n",
           FRAMES, (unsigned long long)steps, fs.dropped_total, ze_world_entity_count(w),
           (double)(t1 - t0) / 1e3 / FRAMES);
    printf("ecs: per group (us/frame):");
    for (int g = ZE_GROUP_FRAME_INPUT; g < ZE_GROUP_END; g++)
        printf(" %s %.1f", ze_system_group_name((ze_system_group)g), group_time[g] * 1e6 / FRAMES);
    printf("\n");
    printf("ecs: %u entities expired and were replaced through commands (%u spawn callbacks, %u "
           "Expired messages delivered)\n",
           stats.expired, stats.spawned, expired_messages);
    printf("ecs: hud saw %u entities with a lifetime on its last frame\n",
           hud_state.last_population);
    printf("ecs: child world position (%.1f, %.1f, %.1f) under its parent at (10, 0, 0)\n",
           cw->world.m[3][0], cw->world.m[3][1], cw->world.m[3][2]);
    printf("ecs: actor '%s' ticked %u times (once per fixed step)\n",
           ze_get(w, d->base.entity, ze_name_t)->value, d->ticks);
    bool ok = scene_ok && stats.expired == stats.spawned && stats.expired > 0 &&
              d->ticks == steps && expired_messages > 0 && expired_messages <= stats.expired &&
              hud_state.frames == FRAMES + 1 && fabsf(cw->world.m[3][0] - 10) < 1e-4f &&
              fabsf(cw->world.m[3][1] - 2) < 1e-4f;
    ze_kernel_destroy(k);
    return ok;
}
