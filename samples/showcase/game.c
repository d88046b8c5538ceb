/* The showcase game: a project (project/project.json), a scene with a
 * camera, a sun, two lamps orbiting, a ground and a stack and ring of
 * crates (a glTF model cooked through the asset pipeline), and the game's
 * own components and systems moving things. Everything else — bootstrap,
 * staged initialization, the loops, the render thread, imports, hot reload
 * — is the engine's (ze_app_main).
 *
 * Keys (a window, or a --input replay in headless runs): SPACE pauses the
 * spinning, ESCAPE quits. The HUD (hud.c, from on_render_ui) shows the
 * frame rate and counts and has a pause button too.
 *
 * `--instances N` (0 by default: the scene as it is) scatters N more crates
 * around the scene in a fixed pattern (a sunflower spiral outside the ring,
 * sizes and turns from a hash of the index): every 4th spins, every 8th
 * also bobs (`--moving P`: P % of them spin and half of those bob; 25 by
 * default, 0 for a static scene). `--cube S` puts them in a cube of S
 * units centred on the origin instead (positions from a hash of the index,
 * one crate of 1 unit in every S^3/N cubic units; the ground hides those
 * below it and the camera's far plane the rest beyond it): the renderer's
 * fixed 1M-crate scene is `--instances 1000000 --cube 600 --moving 0`.
 * The game then loads the start scene itself and adds them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "showcase.h"

/* ------------------------------------------------------------ components */

typedef struct Spin {
    ze_vec3_t axis;
    float speed; /* radians per second */
} Spin;

typedef struct Bob {
    float amplitude, speed, phase, base_y;
} Bob;

typedef struct Orbit {
    ze_vec3_t center;
    float radius, speed, angle;
} Orbit;

#define TRY(expr)                \
    do {                         \
        ze_result try_ = (expr); \
        if (try_ != ZE_OK)       \
            return try_;         \
    } while (0)

static ZE_COMPONENT_DECLARE(Spin);
static ZE_COMPONENT_DECLARE(Bob);
static ZE_COMPONENT_DECLARE(Orbit);

static const ze_field_desc_t k_spin_fields[] = {
    ZE_FIELD(Spin, axis, ZE_FIELD_VEC3),
    ZE_FIELD(Spin, speed, ZE_FIELD_F32),
};
static const ze_field_desc_t k_bob_fields[] = {
    ZE_FIELD(Bob, amplitude, ZE_FIELD_F32),
    ZE_FIELD(Bob, speed, ZE_FIELD_F32),
    ZE_FIELD(Bob, phase, ZE_FIELD_F32),
    ZE_FIELD(Bob, base_y, ZE_FIELD_F32),
};
static const ze_field_desc_t k_orbit_fields[] = {
    ZE_FIELD(Orbit, center, ZE_FIELD_VEC3),
    ZE_FIELD(Orbit, radius, ZE_FIELD_F32),
    ZE_FIELD(Orbit, speed, ZE_FIELD_F32),
    ZE_FIELD(Orbit, angle, ZE_FIELD_F32),
};

/* ------------------------------------------------------------ game state */

enum { TRAIL_MAX = 12 };

typedef struct game_t {
    ze_engine_t *engine;
    bool paused;
    uint64_t spin_steps, bob_steps, orbit_steps;
    float max_bob_y, min_bob_y;
    /* the crate model's registry states, as they happen */
    ze_uuid_t crate;
    ze_asset_state trail[TRAIL_MAX];
    uint32_t trail_count;
    showcase_hud_t hud; /* hud.c */
    uint32_t instances; /* --instances N: extra crates */
    uint32_t moving;    /* --moving P: percent of them spinning (half of those bob) */
    uint32_t cube;      /* --cube S: the crates fill an S-unit cube (0: the spiral) */
    bool ok;
} game_t;

/* the backends keep the instances (render proxies): a state carries only
   what changed, so the scene may hold a million crates */
enum { INSTANCES_MAX = 1000000, CUBE_MAX = 10000 };

/* --------------------------------------------------------------- systems */

static void spin_system(ze_world_t *w, const ze_tick_t *t)
{
    game_t *g = t->user;
    if (g->paused)
        return;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const Spin *s = ze_field(&it, Spin);
        for (uint32_t i = 0; i < it.count; i++) {
            ze_quat_t dq =
                ze_quat_from_axis_angle(ze_vec3_normalize(s[i].axis), s[i].speed * t->dt);
            tr[i].rotation = ze_quat_normalize(ze_quat_mul(dq, tr[i].rotation));
        }
        g->spin_steps += it.count;
    }
}

static void bob_system(ze_world_t *w, const ze_tick_t *t)
{
    game_t *g = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        Bob *b = ze_field(&it, Bob);
        for (uint32_t i = 0; i < it.count; i++) {
            b[i].phase = fmodf(b[i].phase + b[i].speed * t->dt, 6.2831853f);
            float y = b[i].base_y + b[i].amplitude * sinf(b[i].phase);
            tr[i].position.y = y;
            g->max_bob_y = y > g->max_bob_y ? y : g->max_bob_y;
            g->min_bob_y = y < g->min_bob_y ? y : g->min_bob_y;
        }
        g->bob_steps += it.count;
    }
}

static void orbit_system(ze_world_t *w, const ze_tick_t *t)
{
    game_t *g = t->user;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        Orbit *o = ze_field(&it, Orbit);
        for (uint32_t i = 0; i < it.count; i++) {
            o[i].angle = fmodf(o[i].angle + o[i].speed * t->dt, 6.2831853f);
            tr[i].position =
                (ze_vec3_t){o[i].center.x + o[i].radius * cosf(o[i].angle), o[i].center.y,
                            o[i].center.z + o[i].radius * sinf(o[i].angle)};
        }
        g->orbit_steps += it.count;
    }
}

/* FrameInput: the polled state (a window's, or the replayed script's). */
static void input_system(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    game_t *g = t->user;
    const ze_input_state_t *in = ze_engine_input(g->engine);
    if (ze_input_key_pressed(in, ZE_KEY_SPACE)) {
        g->paused = !g->paused;
        printf("showcase: frame %llu: SPACE -> spinning %s\n", (unsigned long long)in->frame,
               g->paused ? "paused" : "resumed");
    }
}

/* ----------------------------------------------------------------- hooks */

static void on_asset_state(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    game_t *g = user;
    (void)old;
    if (!ze_uuid_eq(info->uuid, g->crate) || g->trail_count == TRAIL_MAX)
        return;
    g->trail[g->trail_count++] = info->state;
    printf("showcase: crate.gltf is %s%s%s\n", ze_asset_state_name(info->state),
           info->reason[0] ? ": " : "", info->reason);
}

/* A well-mixed 32-bit hash of the crate index (the pattern's only input). */
static uint32_t hash_u32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static float hash_unit(uint32_t i, uint32_t salt) /* 0..1 */
{
    return (float)(hash_u32(i * 4u + salt) >> 8) * (1.0f / 16777216.0f);
}

/* --instances N: the start scene, then N crates of the scene's crate mesh
   on a sunflower spiral from radius 7.5 (outside the ring) outward, about
   one crate per square unit, leaving the ground just in front of the camera
   free. Deterministic: everything comes from the index. */
static ze_result scatter_crates(ze_engine_t *e, game_t *g)
{
    ze_world_t *w = ze_engine_world(e);
    const char *scene = ze_engine_project(e)->start_scene;
    if (ze_uuid_is_nil(g->crate) || !scene[0]) {
        printf("showcase: --instances needs the crate model and a start scene\n");
        return ZE_ERR_NOT_FOUND;
    }
    TRY(ze_engine_load_scene(e, scene));
    ze_mesh_t mesh = {.mesh = ze_uuid_v5(g->crate, "mesh/0", 6),
                      .render_instance = ZE_RENDER_INSTANCE_NONE};
    const float golden = 2.3999632f; /* radians: pi * (3 - sqrt 5) */
    uint32_t spinning = 0, bobbing = 0;
    const float side = (float)g->cube;
    for (uint32_t i = 0, k = 0; i < g->instances; k++) {
        /* spot k of the spiral, or of the cube; spots near the camera
           (0, 4.5, 12) stay free so the near ones do not hide the scene */
        float px, py, pz, size;
        if (g->cube) {
            px = side * (hash_unit(k, 4) - 0.5f);
            py = side * (hash_unit(k, 5) - 0.5f);
            pz = side * (hash_unit(k, 6) - 0.5f);
            size = 1.0f;
        } else {
            float r = sqrtf(56.25f + (float)k / 3.14159265f);
            float a = (float)k * golden;
            px = r * cosf(a);
            pz = r * sinf(a);
            size = 0.35f + 0.35f * hash_unit(i, 0);
            py = size * 0.5f;
        }
        float dy = g->cube ? py - 4.5f : 0.0f;
        if (px * px + dy * dy + (pz - 12.0f) * (pz - 12.0f) < 20.0f)
            continue;
        ze_transform_t t = ze_transform_identity();
        t.position = (ze_vec3_t){px, py, pz};
        t.rotation = ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, 6.2831853f * hash_unit(i, 1));
        t.scale = (ze_vec3_t){size, size, size};
        t.previous_position = t.position;
        ze_entity_t c = ze_entity_create(w);
        TRY(ze_component_set(w, c, ZE_ID(ze_transform_t), &t));
        TRY(ze_component_set(w, c, ZE_ID(ze_mesh_t), &mesh));
        /* at 25 % (the default, the demo's picture) every 4th spins and
           every 8th also bobs; else the first P of every 100 spin and every
           other one of those bobs */
        bool spins = i % 4 == 0, bobs = i % 8 == 0;
        if (g->moving != 25) {
            spins = i % 100 < g->moving;
            bobs = spins && i % 2 == 0;
        }
        if (spins) {
            float speed = (0.4f + 0.8f * hash_unit(i, 2)) * (i % 8 == 0 ? 1.0f : -1.0f);
            TRY(ze_set(w, c, Spin, {.axis = {0, 1, 0}, .speed = speed}));
            spinning++;
        }
        if (bobs) {
            TRY(ze_set(w, c, Bob,
                       {.amplitude = 0.3f,
                        .speed = 1.2f,
                        .phase = 6.2831853f * hash_unit(i, 3),
                        .base_y = py + 0.35f}));
            bobbing++;
        }
        i++;
    }
    ze_hierarchy_update(w); /* world matrices before the first iteration */
    printf("showcase: %u extra crates scattered %s (%u spinning, %u of them bobbing)\n",
           g->instances, g->cube ? "in a cube" : "on a spiral", spinning, bobbing);
    return ZE_OK;
}

static ze_result register_component(ze_kernel_t *k, const char *name, size_t size, size_t align,
                                    const ze_field_desc_t *fields, uint32_t n, ze_component_t *out)
{
    return ze_component_register(
        k,
        &(ze_component_desc_t){
            .name = name, .size = size, .align = align, .fields = fields, .field_count = n},
        out);
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    game_t *g = user;
    g->engine = e;
    ze_kernel_t *k = ze_engine_kernel(e);
    ze_world_t *w = ze_engine_world(e);
    TRY(register_component(k, "Spin", sizeof(Spin), _Alignof(Spin), k_spin_fields,
                           ZE_COUNTOF(k_spin_fields), &ZE_ID(Spin)));
    TRY(register_component(k, "Bob", sizeof(Bob), _Alignof(Bob), k_bob_fields,
                           ZE_COUNTOF(k_bob_fields), &ZE_ID(Bob)));
    TRY(register_component(k, "Orbit", sizeof(Orbit), _Alignof(Orbit), k_orbit_fields,
                           ZE_COUNTOF(k_orbit_fields), &ZE_ID(Orbit)));
    /* Bob and Orbit write positions, Spin rotations: all three write the
       Transform, so the WorldTick needs their order. */
    ze_system_t spin = ze_system_add(w, &(ze_system_desc_t){.name = "spin",
                                                            .fn = spin_system,
                                                            .user = g,
                                                            .reads = ZE_MASK(Spin),
                                                            .writes = ZE_MASK(ze_transform_t),
                                                            .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_t bob = ze_system_add(w, &(ze_system_desc_t){.name = "bob",
                                                           .fn = bob_system,
                                                           .user = g,
                                                           .writes = ZE_MASK(Bob, ze_transform_t),
                                                           .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_t orbit =
        ze_system_add(w, &(ze_system_desc_t){.name = "orbit",
                                             .fn = orbit_system,
                                             .user = g,
                                             .writes = ZE_MASK(Orbit, ze_transform_t),
                                             .group = ZE_GROUP_FIXED_SIMULATION});
    ze_system_add(
        w, &(ze_system_desc_t){
               .name = "input", .fn = input_system, .user = g, .group = ZE_GROUP_FRAME_INPUT});
    TRY(ze_system_order(w, spin, bob));
    TRY(ze_system_order(w, bob, orbit));
    /* The model the scene uses: follow its import. */
    if (ze_asset_registry_find_path(ze_engine_registry(e), "/models/crate.gltf", &g->crate)) {
        ze_asset_info_t info;
        ze_asset_registry_get(ze_engine_registry(e), g->crate, &info);
        g->trail[g->trail_count++] = info.state;
        printf("showcase: crate.gltf is %s (registered from the project's asset folders)\n",
               ze_asset_state_name(info.state));
        TRY(ze_asset_registry_listen(ze_engine_registry(e), on_asset_state, g));
    }
    printf("showcase: components Spin, Bob, Orbit and their systems registered\n");
    if (g->instances)
        TRY(scatter_crates(e, g));
    return ZE_OK;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    showcase_hud_frame(&((game_t *)user)->hud, e, dt);
    if (ze_input_key_pressed(ze_engine_input(e), ZE_KEY_ESCAPE))
        ze_engine_request_close(e);
    uint64_t f = ze_engine_frame_index(e);
    if (f % 150 == 0) {
        ze_render_stats_t rs = ze_render_backend_stats(ze_engine_backend(e));
        printf("showcase: frame %4llu: backend rendered %llu frames, %u instances, %u lights; "
               "resident %u meshes, %u materials, %u textures\n",
               (unsigned long long)f, (unsigned long long)rs.frames, rs.last_instances,
               rs.last_lights, rs.meshes, rs.materials, rs.textures);
    }
}

/* The HUD (hud.c); its pause button does what SPACE does. */
static void on_render_ui(ze_engine_t *e, ze_ui_t *ui, void *user)
{
    game_t *g = user;
    if (showcase_hud_build(&g->hud, e, ui, g->paused)) {
        g->paused = !g->paused;
        printf("showcase: frame %llu: pause button -> spinning %s\n",
               (unsigned long long)ze_engine_frame_index(e), g->paused ? "paused" : "resumed");
    }
}

static void on_closing(ze_engine_t *e, void *user)
{
    game_t *g = user;
    ze_render_stats_t rs = ze_render_backend_stats(ze_engine_backend(e));
    printf("showcase: crate.gltf went");
    for (uint32_t i = 0; i < g->trail_count; i++)
        printf("%s%s", i ? " -> " : " ", ze_asset_state_name(g->trail[i]));
    printf("\nshowcase: systems moved %llu spins, %llu bobs (y %.2f..%.2f), %llu orbits\n",
           (unsigned long long)g->spin_steps, (unsigned long long)g->bob_steps,
           (double)g->min_bob_y, (double)g->max_bob_y, (unsigned long long)g->orbit_steps);
    printf("showcase: the render thread rendered %llu frames (last: %u instances, %u lights); "
           "resident %u meshes, %u materials, %u textures\n",
           (unsigned long long)rs.frames, rs.last_instances, rs.last_lights, rs.meshes,
           rs.materials, rs.textures);
    ze_asset_info_t info = {0};
    bool crate_loaded = ze_asset_registry_get(ze_engine_registry(e), g->crate, &info) &&
                        info.state == ZE_ASSET_STATE_LOADED;
    g->ok = crate_loaded && g->bob_steps > 0 && g->orbit_steps > 0 && rs.last_instances > 0 &&
            rs.meshes > 0;
    /* With --instances, every crate reached the backend. */
    uint32_t meshes = ze_component_population(ze_engine_world(e), ZE_ID(ze_mesh_t));
    if (g->instances && rs.last_instances != meshes) {
        printf("showcase: the last frame had %u instances of %u\n", rs.last_instances, meshes);
        g->ok = false;
    }
    ze_asset_registry_unlisten(ze_engine_registry(e), on_asset_state, g);
}

static void on_closed(void *user)
{
    game_t *g = user;
    printf("== showcase %s\n", g->ok ? "ok" : "FAILED");
}

int showcase_game(int argc, char **argv)
{
    static game_t game = {.min_bob_y = 1e9f, .max_bob_y = -1e9f, .moving = 25};
    ze_app_desc_t app = {.name = "ZEngine Showcase",
                         .user = &game,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .on_render_ui = on_render_ui,
                         .on_closing = on_closing,
                         .on_closed = on_closed};
    /* Without --project: the build tree's copy of project/ (running it in
       the source tree would write its cache and sidecars there). */
    bool has_project = false;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--project") == 0 || strcmp(argv[i], "--projectConfigFile") == 0)
            has_project = true;
    char *args[64];
    int n = 0;
    args[n++] = argv[0];
    if (!has_project) {
        args[n++] = "--project";
        args[n++] = SHOWCASE_PROJECT;
    }
    for (int i = 1; i < argc && n < 63; i++) {
        /* The game's own option; the rest is the engine's grammar. */
        static const struct {
            const char *name;
            long max;
        } k_opts[] = {{"--instances", INSTANCES_MAX}, {"--moving", 100}, {"--cube", CUBE_MAX}};
        uint32_t *k_dst[] = {&game.instances, &game.moving, &game.cube};
        const char *v = NULL;
        size_t o = 0;
        for (; o < ZE_COUNTOF(k_opts) && !v; o++) {
            size_t len = strlen(k_opts[o].name);
            if (strcmp(argv[i], k_opts[o].name) == 0)
                v = i + 1 < argc ? argv[++i] : "";
            else if (strncmp(argv[i], k_opts[o].name, len) == 0 && argv[i][len] == '=')
                v = argv[i] + len + 1;
        }
        if (!v) {
            args[n++] = argv[i];
            continue;
        }
        o--; /* the option that matched */
        char *end = NULL;
        long count = strtol(v, &end, 10);
        if (!v[0] || *end || count < 0 || count > k_opts[o].max) {
            fprintf(stderr, "showcase: %s wants 0..%ld, got '%s'\n", k_opts[o].name, k_opts[o].max,
                    v);
            return 2;
        }
        *k_dst[o] = (uint32_t)count;
    }
    args[n] = NULL;
    int status = ze_app_main(&app, n, args);
    return status == 0 && !game.ok ? 1 : status;
}
