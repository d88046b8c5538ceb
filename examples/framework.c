/* The ECS framework on top of entities and components: systems in the
 * frame's groups, messages between them, a binding that watches a
 * component, and a binary snapshot that saves and restores the world.
 *
 * Build: part of the tree (`make test` builds and runs it). It prints its
 * result line only when every step did what it should, else exits 1.
 */
#include <stdio.h>

#include <zengine/zengine.h>

typedef struct Position {
    float x;
} Position;
typedef struct Velocity {
    float x;
} Velocity;
static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);

/* A message: a fixed-size payload, copied when published, delivered to the
 * subscribers at the next BeginFrame (so a system never calls another). */
typedef struct Crossed {
    ze_entity_t who;
} Crossed;
static ZE_MESSAGE_DECLARE(Crossed);

enum { COUNT = 100 };
#define FINISH 0.975f /* the line two of the hundred cross within 1 s */

/* FixedSimulation, every fixed step: move, and tell whoever listens when
 * an entity crosses the line. Systems see the world through their query. */
static void move(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        Position *p = ze_field(&it, Position);
        const Velocity *v = ze_field(&it, Velocity);
        for (uint32_t i = 0; i < it.count; i++) {
            bool before = p[i].x < FINISH;
            p[i].x += v[i].x * t->dt;
            if (before && p[i].x >= FINISH)
                ze_publish(w, Crossed, {ze_iter_entity(&it, i)});
        }
    }
}

/* FixedPost (after the simulation of each step) and FrameView (once per
 * frame, before drawing): both only read, so they may run in parallel
 * with other readers. `user` is where they keep what they found. */
static void leader(ze_world_t *w, const ze_tick_t *t)
{
    float *best = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        const Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++)
            *best = p[i].x > *best ? p[i].x : *best;
    }
}

static void on_crossed(ze_world_t *w, ze_message_type_t type, const void *payload, void *user)
{
    (void)w, (void)type, (void)payload;
    (*(int *)user)++;
}

/* A binder receives what changed, coalesced per entity and frame, when
 * LateFrame applies the bindings: how a renderer or a network layer
 * follows the world without polling every entity. */
static void on_position(ze_world_t *w, const ze_delta_t *d, void *user)
{
    (void)w;
    if (d->kind == ZE_DELTA_CHANGED)
        (*(int *)user)++;
}

int main(void)
{
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = 0.1});
    ze_world_t *w = k ? ze_world_create(k, &(ze_world_desc_t){.name = "race"}) : NULL;
    if (!w)
        return 1;
    ZE_COMPONENT_DEFINE_FIELDS(w, Position, ZE_FIELD(Position, x, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE_FIELDS(w, Velocity, ZE_FIELD(Velocity, x, ZE_FIELD_F32));
    ZE_MESSAGE_DEFINE(w, Crossed);
    for (int i = 0; i < COUNT; i++) {
        ze_entity_t e = ze_entity_create(w);
        ze_set(w, e, Position, {0});
        ze_set(w, e, Velocity, {(float)i * 0.01f}); /* 0 to 0.99 units a second */
    }

    /* 1. Systems in three of the eight groups; a group's masks say what it
     * reads and writes, and the framework orders and parallelizes them. */
    float step_best = 0, view_best = 0;
    ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                         .fn = move,
                                         .group = ZE_GROUP_FIXED_SIMULATION,
                                         .reads = ZE_MASK(Velocity),
                                         .writes = ZE_MASK(Position)});
    ze_system_add(w, &(ze_system_desc_t){.name = "referee",
                                         .fn = leader,
                                         .user = &step_best,
                                         .group = ZE_GROUP_FIXED_POST,
                                         .reads = ZE_MASK(Position)});
    ze_system_add(w, &(ze_system_desc_t){.name = "camera",
                                         .fn = leader,
                                         .user = &view_best,
                                         .group = ZE_GROUP_FRAME_VIEW,
                                         .reads = ZE_MASK(Position)});

    /* 2. A subscriber and a binder. */
    int crossed = 0, moves = 0;
    ze_message_subscribe(w, ZE_MSG_ID(Crossed), on_crossed, &crossed);
    ze_binder_attach_type(w, ZE_ID(Position), on_position, &moves);

    /* 3. Frames of 0.1 s until ten fixed steps ran (1 s of simulated time);
     * the binder's count is kept for the last frame only. */
    while (ze_kernel_frame_stats(k).fixed_steps < 10) {
        moves = 0;
        if (ze_kernel_frame(k, 0.1) != ZE_OK)
            return 1;
    }
    ze_message_pump(w); /* what the last step published: delivered now */
    unsigned long long steps = ze_kernel_frame_stats(k).fixed_steps;
    uint32_t groups = 0;
    ze_system_info_t info[3];
    uint32_t n = ze_world_systems(w, info, 3);
    for (uint32_t i = 0; i < n; i++)
        groups += info[i].runs > 0;

    /* 4. A snapshot: save, wipe the world, load, compare the hashes. */
    uint64_t before = ze_world_hash(w);
    ze_byte_writer_t snap = {.alloc = ze_mem_system_allocator()};
    bool restored = ze_world_save(w, &snap) == ZE_OK && ze_world_clear(w) == ZE_OK &&
                    ze_world_entity_count(w) == 0 &&
                    ze_world_load(w, snap.data, snap.size) == ZE_OK && ze_world_hash(w) == before;
    uint32_t entities = ze_world_entity_count(w);
    ze_byte_writer_free(&snap);
    ze_kernel_destroy(k);

    if (!restored || step_best != view_best || step_best < FINISH) { /* the numbers: below */
        printf("framework: SOMETHING IS WRONG\n");
        return 1;
    }
    printf("framework: %u groups ran %llu steps, %d messages delivered, binder saw %d moves, "
           "snapshot restored %u entities\n",
           groups, steps, crossed, moves, entities);
    return 0;
}
