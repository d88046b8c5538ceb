/* A minimal game: a C program whose main() hands the engine its hooks
 * through ze_app_main, which parses the command line, starts everything,
 * runs the main loop and shuts down. The game registers a component and a
 * system, spawns three crates (a model the engine imports by itself), and
 * at the end says where the first one got to.
 *
 * Run it in a project folder (project.json, models/crate.gltf):
 *   example_minimal_game --project project.json                 (a window)
 *   example_minimal_game --project project.json --headless --frames 120 --fixed-dt 0.0166667
 * The second is its test: 120 iterations on a virtual clock of 1/60 s, so
 * every run computes the same thing, however fast the machine is.
 */
#include <stdio.h>

#include <zengine/zengine.h>

/* The game's own component: a speed along +X, in metres per second. */
typedef struct Drift {
    float speed;
} Drift;
static ZE_COMPONENT_DECLARE(Drift);

/* What the game keeps between hooks (ze_app_desc_t.user). */
typedef struct game_t {
    ze_entity_t crates[3];
    uint64_t frames, steps;
    uint32_t drifting; /* entities with a Drift at the end */
    float x;           /* crate 0's position at the end */
} game_t;

/* A system: each fixed step (60 Hz), every entity with a Transform and a
 * Drift moves. The engine draws what the Transforms say. */
static void drift(ze_world_t *w, const ze_tick_t *t)
{
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const Drift *d = ze_field(&it, Drift);
        for (uint32_t i = 0; i < it.count; i++)
            tr[i].position.x += d[i].speed * t->dt;
    }
}

/* The engine is up: register, add systems, make the first entities. A
 * failure ends the run (the engine reported why). */
static ze_result on_initialized(ze_engine_t *e, void *user)
{
    game_t *g = user;
    ze_world_t *w = ze_engine_world(e);
    ZE_COMPONENT_DEFINE_FIELDS(w, Drift, ZE_FIELD(Drift, speed, ZE_FIELD_F32));
    ze_system_t s = ze_system_add(w, &(ze_system_desc_t){.name = "drift",
                                                         .fn = drift,
                                                         .reads = ZE_MASK(Drift),
                                                         .writes = ZE_MASK(ze_transform_t)});
    if (!s.id)
        return ZE_ERR_INTERNAL;
    /* Three copies of the model, 3 m apart; each root entity gets a Drift. */
    ze_transform_t at[3];
    for (int i = 0; i < 3; i++) {
        at[i] = ze_transform_identity();
        at[i].position = (ze_vec3_t){0, 0, -3.0f * (float)i};
    }
    ze_result r = ze_engine_spawn(
        e, &(ze_spawn_desc_t){
               .asset = "/models/crate.gltf", .count = 3, .transforms = at, .roots = g->crates});
    for (int i = 0; r == ZE_OK && i < 3; i++)
        r = ze_set(w, g->crates[i], Drift, {2.0f});
    return r;
}

/* Once per iteration, after the fixed steps: input, game rules, UI state.
 * Here: Escape ends the game (in a window; headless runs end by --frames). */
static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt, (void)user;
    if (ze_input_key_pressed(ze_engine_input(e), ZE_KEY_ESCAPE))
        ze_engine_request_close(e);
}

/* The last hook with the engine alive: read what the run did. */
static void on_closing(ze_engine_t *e, void *user)
{
    game_t *g = user;
    g->frames = ze_engine_frame_index(e);
    g->steps = ze_kernel_frame_stats(ze_engine_kernel(e)).fixed_steps;
    const ze_transform_t *t = ze_get(ze_engine_world(e), g->crates[0], ze_transform_t);
    g->x = t ? t->position.x : -1;
    g->drifting = ze_component_population(ze_engine_world(e), ZE_ID(Drift));
}

int main(int argc, char **argv)
{
    game_t game = {0};
    ze_app_desc_t app = {.name = "minimal_game",
                         .user = &game,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .on_closing = on_closing};
    int status = ze_app_main(&app, argc, argv); /* 0 ok, 1 a failed run, 2 a usage error */
    if (status == 0)
        printf("minimal_game: %llu frames, %llu fixed steps, %u crates, crate 0 at x=%.2f\n",
               (unsigned long long)game.frames, (unsigned long long)game.steps, game.drifting,
               game.x);
    return status;
}
