/* A first look at the ECS: components, a system, a query loop, deferred
 * commands and a parent/child transform hierarchy. (Actors, C "classes"
 * ticked per frame, are in docs/ecs.md.)
 *
 * Build: part of the tree (`make test` builds and runs it). It checks its
 * own results, prints its result line only when they hold, else exits 1.
 */
#include <math.h>
#include <stdio.h>

#include <zengine/zengine.h>

/* Components are plain structs. Their ids live in globals so that functions
 * (like the system below) can name them. */
typedef struct Position {
    float x, y;
} Position;
typedef struct Velocity {
    float x, y;
} Velocity;
static ZE_COMPONENT_DECLARE(Position);
static ZE_COMPONENT_DECLARE(Velocity);

/* A system: called once per fixed step with its query (Position and
 * Velocity, as its read and write masks say). The inner loop is a plain loop
 * over arrays. */
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

static void on_spawned(ze_world_t *w, ze_entity_t e, void *user)
{
    (void)w;
    (void)e;
    int *spawned = user;
    (*spawned)++;
}

static bool near(float a, float b)
{
    return fabsf(a - b) < 1e-4f;
}

int main(void)
{
    int ok = 1;
    /* Fixed steps of 0.1 s; problems (a conflict between systems, a bad
       scene file) are reported to the log ({0} diag). */
    ze_kernel_t *k = ze_kernel_create(&(ze_kernel_desc_t){.fixed_dt = 0.1});
    ze_world_t *w = k ? ze_world_create(k, &(ze_world_desc_t){.name = "game"}) : NULL;
    if (!w)
        return 1;
    /* One line each, with the fields (scene files and snapshots use them). */
    ZE_COMPONENT_DEFINE_FIELDS(w, Position, ZE_FIELD(Position, x, ZE_FIELD_F32),
                               ZE_FIELD(Position, y, ZE_FIELD_F32));
    ZE_COMPONENT_DEFINE_FIELDS(w, Velocity, ZE_FIELD(Velocity, x, ZE_FIELD_F32),
                               ZE_FIELD(Velocity, y, ZE_FIELD_F32));

    /* 1. Entities and components. */
    ze_entity_t slow = ze_entity_create(w);
    ze_set(w, slow, Position, {0, 0});
    ze_set(w, slow, Velocity, {1, 0});
    ze_entity_t fast = ze_entity_create(w);
    ze_set(w, fast, Position, {0, 0});
    ze_set(w, fast, Velocity, {0, 3});
    ze_entity_t rock = ze_entity_create(w); /* no Velocity: the system skips it */
    ze_set(w, rock, Position, {5, 5});

    /* 2. A system in the FixedSimulation group (the default), then frames:
     * each runs as many fixed steps of 0.1 s as the time that passed. */
    ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                         .fn = move,
                                         .reads = ZE_MASK(Velocity),
                                         .writes = ZE_MASK(Position)});
    while (ze_kernel_frame_stats(k).fixed_steps < 10)
        if (ze_kernel_frame(k, 0.05) != ZE_OK) /* two frames per step */
            return 1;
    const Position *ps = ze_get(w, slow, Position);
    const Position *pf = ze_get(w, fast, Position);
    printf("after 10 steps: slow at (%.1f, %.1f), fast at (%.1f, %.1f)\n", ps->x, ps->y, pf->x,
           pf->y);
    ok &= near(ps->x, 1) && near(pf->y, 3);
    float slow_x = ps->x, fast_y = pf->y; /* copies: the pointers are borrows */

    /* 3. A query of our own: every Position, moving or not. */
    ze_query_t all = ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(Position)});
    float sum_x = 0;
    ze_iter_t it = ze_query_iter(w, all);
    while (ze_query_next(&it)) {
        const Position *p = ze_field(&it, Position);
        for (uint32_t i = 0; i < it.count; i++)
            sum_x += p[i].x;
    }
    printf("sum of x over %u positions: %.1f\n", ze_query_count(w, all), sum_x);
    ok &= near(sum_x, 6);

    /* 4. Deferred changes: recorded now, applied by the flush. */
    ze_commands_t *cmds = ze_commands_create(w);
    int spawned = 0;
    for (int i = 0; i < 2; i++) {
        ze_entity_t e = ze_cmd_spawn(cmds, on_spawned, &spawned);
        ze_cmd_set_t(cmds, e, Position, {(float)i, 0});
    }
    ze_cmd_destroy(cmds, rock);
    ze_commands_flush(cmds);
    printf("spawned %d, rock alive: %s, entities: %u\n", spawned,
           ze_entity_alive(w, rock) ? "yes" : "no", ze_world_entity_count(w));
    uint32_t entities = ze_world_entity_count(w);
    ok &= spawned == 2 && !ze_entity_alive(w, rock) && entities == 4;

    /* 5. A parent and a child. The parent stands at (10, 0, 0), turned 90
     * degrees about Z and scaled 2; the child sits 1 unit along the parent's
     * x axis, which now points along world y, twice as long. */
    ze_entity_t parent = ze_entity_create(w);
    ze_transform_t pt = ze_transform_identity();
    pt.position = (ze_vec3_t){10, 0, 0};
    pt.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 0, 1}, 1.5707963f);
    pt.scale = (ze_vec3_t){2, 2, 2};
    ze_component_set(w, parent, ZE_ID(ze_transform_t), &pt);
    ze_entity_t child = ze_entity_create(w);
    ze_transform_t ct = ze_transform_identity();
    ct.position = (ze_vec3_t){1, 0, 0};
    ze_component_set(w, child, ZE_ID(ze_transform_t), &ct);
    ze_set(w, child, ze_parent_t, {parent});
    ze_hierarchy_update(w);
    ze_vec3_t cw =
        ze_mat4_transform_point(ze_get(w, child, ze_transform_t)->world, (ze_vec3_t){0, 0, 0});
    printf("child world position: (%.1f, %.1f, %.1f)\n", cw.x, cw.y, cw.z);
    ok &= near(cw.x, 10) && near(cw.y, 2) && near(cw.z, 0);

    ze_commands_destroy(cmds);
    ze_kernel_destroy(k); /* takes the world with it */
    /* The result line (its test asserts it), only when every check held. */
    if (ok)
        printf("ecs_basics: slow at x=%.1f, fast at y=%.1f, %u entities, child at (%.1f, %.1f, "
               "%.1f)\n",
               slow_x, fast_y, entities, cw.x, cw.y, cw.z);
    else
        printf("SOMETHING IS WRONG\n");
    return ok ? 0 : 1;
}
