/* Render proxies through the running engine and its render thread (null
 * backend): changes reach the backend's instance table losslessly even
 * when a slow backend takes about one state in five; a static scene sends
 * nothing after its first state and k moved entities send k records; the
 * contents the backend holds (matrices and their interpolation, material
 * overrides, the main camera, light directions) against the world. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_engine_fixture.h"
#include "engine/engine_internal.h"
#include "gfx/backend.h"

/* The world's side of the backend's table hash: every entity with a Mesh,
 * as the engine sends it. */
static uint64_t world_instance_hash(ze_world_t *w, uint32_t *count)
{
    ze_query_t q =
        ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_mesh_t),
                                              .optional = ZE_MASK(ze_transform_t, ze_material_t)});
    uint64_t h = 0;
    uint32_t n = 0;
    ze_mat4_t id = ze_mat4_identity();
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_mesh_t *m = ze_field(&it, ze_mesh_t);
        const ze_transform_t *t = ze_field(&it, ze_transform_t);
        const ze_material_t *mat = ze_field(&it, ze_material_t);
        for (uint32_t i = 0; i < it.count; i++, n++)
            h += ze_render_instance_digest(ze_iter_entity(&it, i).id, m[i].mesh,
                                           mat ? mat[i].material : (ze_uuid_t){{0}},
                                           t ? &t[i].world : &id);
    }
    *count = n;
    return h;
}

static ze_entity_t spawn_crate(ze_world_t *w, ze_uuid_t mesh, ze_vec3_t at)
{
    ze_entity_t ent = ze_entity_create(w);
    ze_transform_t t = ze_transform_identity();
    t.position = at;
    t.previous_position = at;
    ze_component_set(w, ent, ZE_ID(ze_transform_t), &t);
    ze_set(w, ent, ze_mesh_t, {.mesh = mesh, .render_instance = ZE_RENDER_INSTANCE_NONE});
    return ent;
}

/* Wait (a hang deadline, never a speed) until the render thread has
 * applied the last state the main thread built. */
static void wait_applied(ze_engine_t *e)
{
    uint64_t deadline = ze_time_now_ns() + 20ull * 1000000000ull;
    while (atomic_load_explicit(&e->render_consumed, memory_order_acquire) != e->delta_serial) {
        assert_true(ze_time_now_ns() < deadline);
        ze_time_sleep_ns(200000);
    }
}

/* ------------------------------------------------------------ lossless */

enum { STEPS = 1000, MAX_LIVE = 400 };

typedef struct random_game_t {
    ze_rng_t rng;
    ze_entity_t live[MAX_LIVE];
    uint32_t count;
    uint64_t creates, moves, destroys, materials;
    /* at the end (on_closing) */
    uint64_t world_hash, table_hash, refused;
    uint32_t world_count, table_live;
} random_game_t;

static void random_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    random_game_t *g = user;
    ze_world_t *w = ze_engine_world(e);
    for (int op = 0; op < 3; op++) {
        double r = ze_rng_unit(&g->rng);
        uint32_t pick = g->count ? (uint32_t)(ze_rng_unit(&g->rng) * g->count) % g->count : 0;
        if (g->count < MAX_LIVE && (r < 0.35 || g->count == 0)) {
            ze_vec3_t at = {(float)(ze_rng_unit(&g->rng) * 40.0 - 20.0), 0,
                            (float)(ze_rng_unit(&g->rng) * 40.0 - 20.0)};
            g->live[g->count++] = spawn_crate(w, g_project.mesh, at);
            g->creates++;
        } else if (r < 0.75) {
            ze_transform_t *t = ze_get_mut(w, g->live[pick], ze_transform_t);
            assert_non_null(t);
            t->position.y += (float)ze_rng_unit(&g->rng);
            g->moves++;
        } else if (r < 0.93) {
            assert_int_equal(ze_entity_destroy(w, g->live[pick]), ZE_OK);
            g->live[pick] = g->live[--g->count];
            g->destroys++;
        } else {
            if (ze_has(w, g->live[pick], ze_material_t))
                assert_int_equal(ze_remove(w, g->live[pick], ze_material_t), ZE_OK);
            else
                ze_set(w, g->live[pick], ze_material_t, {.material = g_project.material});
            g->materials++;
        }
    }
}

static void random_closing(ze_engine_t *e, void *user)
{
    random_game_t *g = user;
    g->world_hash = world_instance_hash(ze_engine_world(e), &g->world_count);
    ze_render_stats_t st = ze_render_backend_stats(ze_engine_backend(e));
    g->table_hash = st.instance_table_hash;
    g->table_live = st.instances_live;
    g->refused = st.instance_records_refused;
}

static void test_lossless_through_a_slow_backend(void **state)
{
    (void)state;
    random_game_t g;
    memset(&g, 0, sizeof g);
    ze_rng_seed(&g.rng, 0xC0FFEE);
    ze_app_desc_t app = {
        .name = "proxies", .user = &g, .on_update = random_update, .on_closing = random_closing};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = STEPS;
    run.fixed_dt = 1.0 / 60.0; /* a virtual clock, one step per iteration... */
    run.max_fps = 250;         /* ...paced at 4 ms: the backend's 20 ms take 1 in 5 */
    ze__run_ctx_t ctx = {.backend_frame_delay_us = 20000};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    printf("lossless: %llu creates, %llu moves, %llu destroys, %llu material changes; "
           "%llu of %llu states rendered; %u instances\n",
           (unsigned long long)g.creates, (unsigned long long)g.moves,
           (unsigned long long)g.destroys, (unsigned long long)g.materials,
           (unsigned long long)rep.frames_rendered, (unsigned long long)rep.frames, g.world_count);
    assert_true(rep.frames_rendered * 2 < rep.frames); /* most states were never seen */
    assert_true(g.destroys > 50 && g.moves > 300 && g.materials > 20);
    assert_int_equal(g.refused, 0);
    assert_int_equal(g.table_live, g.world_count);
    assert_true(g.table_hash == g.world_hash);
}

/* ------------------------------------------------- records per state */

#if FX_SANITIZED
enum { STATIC_N = 20000 };
#else
enum { STATIC_N = 100000 };
#endif
enum { MOVED_K = 37, STATIC_FRAMES = 5, MOVING_FRAMES = 6 };

typedef struct count_game_t {
    ze_entity_t *ents;
    uint32_t frame;
    /* records of the state built in iteration i (read in i + 1) */
    uint32_t records[STATIC_FRAMES + MOVING_FRAMES + 8];
    uint32_t built;
} count_game_t;

static ze_result count_initialized(ze_engine_t *e, void *user)
{
    count_game_t *g = user;
    ze_world_t *w = ze_engine_world(e);
    for (uint32_t i = 0; i < STATIC_N; i++)
        g->ents[i] =
            spawn_crate(w, g_project.mesh, (ze_vec3_t){(float)(i % 300), 0, (float)(i / 300)});
    return ZE_OK;
}

/* Iteration f (0-based): after waiting for the render thread, the records
 * of the state iteration f - 1 built are known. Iterations 1..STATIC are
 * static; from STATIC_FRAMES + 1 on, the same MOVED_K crates move each
 * iteration for MOVING_FRAMES iterations, then rest. */
static void count_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    count_game_t *g = user;
    ze_world_t *w = ze_engine_world(e);
    if (g->frame > 0) {
        wait_applied(e);
        g->records[g->built++] = e->last_records;
    }
    if (g->frame > STATIC_FRAMES && g->frame <= STATIC_FRAMES + MOVING_FRAMES) {
        for (uint32_t k = 0; k < MOVED_K; k++) {
            ze_transform_t *t = ze_get_mut(w, g->ents[k * 101], ze_transform_t);
            t->position.y += 0.25f;
        }
    }
    g->frame++;
}

static void test_static_sends_nothing_moved_send_k(void **state)
{
    (void)state;
    count_game_t g;
    memset(&g, 0, sizeof g);
    static ze_entity_t ents[STATIC_N];
    g.ents = ents;
    ze_app_desc_t app = {.name = "proxies",
                         .user = &g,
                         .on_initialized = count_initialized,
                         .on_update = count_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = STATIC_FRAMES + MOVING_FRAMES + 6;
    run.fixed_dt = 1.0 / 60.0;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    /* the crates and the start scene's */
    uint32_t total = STATIC_N + FX_CRATES;
    assert_int_equal(rep.instances, total);
    /* records[i]: the state of iteration i. The first ones carried every
       instance (at most ZE__MAX_STATE_RECORDS each: the rest followed in
       the next), the static ones after them nothing. */
    uint32_t first = total < ZE__MAX_STATE_RECORDS ? total : ZE__MAX_STATE_RECORDS;
    assert_int_equal(g.records[0], first);
    assert_int_equal(g.records[1], total - first);
    for (uint32_t i = 2; i <= STATIC_FRAMES; i++)
        assert_int_equal(g.records[i], 0);
    /* moved in iteration STATIC+1: the state of that iteration carries the
       k (their Transform written in on_update), and each following one
       while they move; the fixed steps after they stop write their
       previous positions once more (interpolation ends), then nothing */
    for (uint32_t i = STATIC_FRAMES + 1; i <= STATIC_FRAMES + MOVING_FRAMES + 1; i++)
        assert_int_equal(g.records[i], MOVED_K);
    for (uint32_t i = STATIC_FRAMES + MOVING_FRAMES + 3; i < g.built; i++)
        assert_int_equal(g.records[i], 0);
}

/* --------------------------------------------------------- contents */

typedef struct velocity_t {
    ze_vec3_t v;
} velocity_t;

static ze_component_t g_velocity;

static void move_system(ze_world_t *w, const ze_tick_t *t)
{
    ze_component_t ZE_ID(velocity_t) = g_velocity;
    ze_iter_t it = ze_query_iter(w, t->query);
    while (ze_query_next(&it)) {
        ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const velocity_t *v = ze_field(&it, velocity_t);
        for (uint32_t i = 0; i < it.count; i++)
            tr[i].position = ze_vec3_add(tr[i].position, ze_vec3_scale(v[i].v, t->dt));
    }
}

typedef struct contents_t {
    /* the last state the render thread received (observer) */
    bool seen;
    float alpha;
    ze_render_camera_t camera;
    bool has_camera;
    ze_render_light_t lights[4];
    uint32_t light_count;
    ze_entity_t mover, overridden;
} contents_t;

static void observe(ze_render_backend_t *b, const ze_render_state_t *s, void *user)
{
    (void)b;
    contents_t *c = user;
    c->seen = true;
    c->alpha = s->alpha;
    c->has_camera = s->has_camera;
    c->camera = s->camera;
    c->light_count = s->light_count < 4 ? s->light_count : 4;
    memcpy(c->lights, s->lights, sizeof *s->lights * c->light_count);
}

static ze_result contents_initialized(ze_engine_t *e, void *user)
{
    contents_t *c = user;
    ze_world_t *w = ze_engine_world(e);
    ze_kernel_t *k = ze_engine_kernel(e);
    ze_component_desc_t vd = {.name = "Velocity", .size = sizeof(velocity_t)};
    if (ze_component_register(k, &vd, &g_velocity) != ZE_OK)
        return ZE_ERR_INTERNAL;
    ze_component_t ZE_ID(velocity_t) = g_velocity;
    ze_system_t s = ze_system_add(w, &(ze_system_desc_t){.name = "move",
                                                         .fn = move_system,
                                                         .group = ZE_GROUP_FIXED_SIMULATION,
                                                         .reads = ZE_MASK(velocity_t),
                                                         .writes = ZE_MASK(ze_transform_t)});
    if (!s.id)
        return ZE_ERR_INTERNAL;
    ze_result r = ze_engine_load_scene(e, "/scenes/main.scene.json");
    if (r != ZE_OK)
        return r;
    c->mover = spawn_crate(w, g_project.mesh, (ze_vec3_t){-4, 0, -3});
    ze_set(w, c->mover, velocity_t, {{3.0f, 0.0f, 1.5f}});
    c->overridden = spawn_crate(w, g_project.mesh, (ze_vec3_t){4, 0, -3});
    ze_set(w, c->overridden, ze_material_t, {.material = g_project.material});
    return ZE_OK;
}

static const ze_render_instance_t *row_of(const ze__instance_table_t *t, ze_entity_t ent)
{
    const ze_render_instance_t *found = NULL;
    for (uint32_t i = 0; i < t->slots; i++)
        if (t->live[i] && t->rows[i].id == ent.id) {
            assert_null(found); /* one row per entity */
            found = &t->rows[i];
        }
    return found;
}

static void assert_mat_eq(const ze_mat4_t *a, const ze_mat4_t *b)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            assert_true(fabsf(a->m[c][r] - b->m[c][r]) <= 1e-5f);
}

static void contents_closing(ze_engine_t *e, void *user)
{
    contents_t *c = user;
    ze_world_t *w = ze_engine_world(e);
    const ze__instance_table_t *t = &ze_engine_backend(e)->instances;
    assert_true(c->seen);
    uint32_t rows = 0;
    ze_query_t q =
        ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_mesh_t, ze_transform_t),
                                              .optional = ZE_MASK(ze_material_t, ze_parent_t)});
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_mesh_t *m = ze_field(&it, ze_mesh_t);
        const ze_transform_t *tr = ze_field(&it, ze_transform_t);
        const ze_material_t *mat = ze_field(&it, ze_material_t);
        const ze_parent_t *par = ze_field(&it, ze_parent_t);
        for (uint32_t i = 0; i < it.count; i++, rows++) {
            ze_entity_t ent = ze_iter_entity(&it, i);
            const ze_render_instance_t *row = row_of(t, ent);
            assert_non_null(row);
            assert_true(ze_uuid_eq(row->mesh, m[i].mesh));
            ze_uuid_t want = mat ? mat[i].material : (ze_uuid_t){{0}};
            assert_true(ze_uuid_eq(row->material, want));
            assert_mat_eq(&row->world, &tr[i].world);
            bool child = par && ze_entity_alive(w, par[i].parent);
            assert_int_equal(row->flags, child ? 0u : ZE_RENDER_INSTANCE_INTERPOLATE);
            /* the matrix drawn: the translation between the last two
               steps at the state's alpha (children as they are) */
            ze_mat4_t drawn = ze_render_instance_matrix(row, c->alpha);
            ze_mat4_t want_m = tr[i].world;
            if (!child) {
                ze_vec3_t p = ze_vec3_lerp(tr[i].previous_position, tr[i].position, c->alpha);
                want_m.m[3][0] = p.x;
                want_m.m[3][1] = p.y;
                want_m.m[3][2] = p.z;
            }
            assert_mat_eq(&drawn, &want_m);
        }
    }
    assert_int_equal(rows, FX_CRATES + 2);
    assert_int_equal(t->live_count, FX_CRATES + 2);
    /* the mover moved: its two positions differ, and it is drawn between */
    const ze_transform_t *mt = ze_get(w, c->mover, ze_transform_t);
    assert_true(mt->position.x != mt->previous_position.x);
    assert_true(ze_uuid_eq(row_of(t, c->overridden)->material, g_project.material));
    /* the main camera, at [0, 2, 10] and static */
    assert_true(c->has_camera);
    assert_true(fabsf(c->camera.position.x) < 1e-5f && fabsf(c->camera.position.y - 2) < 1e-5f &&
                fabsf(c->camera.position.z - 10) < 1e-5f);
    assert_true(fabsf(c->camera.fov_y - 1.0f) < 1e-6f);
    /* the sun: -Z of its rotation (about x by -0.4794255 * 2 rad) */
    assert_int_equal(c->light_count, FX_LIGHTS);
    const ze_render_light_t *sun = NULL;
    for (uint32_t i = 0; i < c->light_count; i++)
        if (c->lights[i].type == ZE_RENDER_LIGHT_DIRECTIONAL)
            sun = &c->lights[i];
    assert_non_null(sun);
    ze_quat_t rot = {-0.4794255f, 0, 0, 0.8775826f};
    ze_vec3_t dir = ze_quat_rotate(rot, (ze_vec3_t){0, 0, -1});
    assert_true(fabsf(sun->direction.x - dir.x) < 1e-4f &&
                fabsf(sun->direction.y - dir.y) < 1e-4f && fabsf(sun->direction.z - dir.z) < 1e-4f);
}

static void test_contents_the_backend_holds(void **state)
{
    (void)state;
    contents_t c;
    memset(&c, 0, sizeof c);
    ze_app_desc_t app = {.name = "proxies",
                         .user = &c,
                         .on_initialized = contents_initialized,
                         .on_closing = contents_closing};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 12;
    run.fixed_dt = 1.0 / 45.0; /* iterations of 1/45 s... */
    ze__run_ctx_t ctx = {.render_observer = observe, .render_observer_user = &c};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    assert_int_equal(rep.instances, FX_CRATES + 2);
}

/* ------------------------------------------------------ scene replace */

enum { REPLACES = 20, SCENE_CRATES = 300 };

typedef struct replace_t {
    uint32_t loads, frames_seen, mixed, empty_seen;
    int phase; /* 0: scene A (crates with the material override), 1: B (without) */
    uint32_t frame;
} replace_t;

/* Render thread: every state drawn holds one scene's crates, never both. */
static void observe_replace(ze_render_backend_t *b, const ze_render_state_t *s, void *user)
{
    (void)s;
    replace_t *r = user;
    const ze__instance_table_t *t = &b->instances;
    uint32_t with = 0, without = 0;
    for (uint32_t i = 0; i < t->slots; i++) {
        if (!t->live[i])
            continue;
        if (ze_uuid_is_nil(t->rows[i].material))
            without++;
        else
            with++;
    }
    r->frames_seen++;
    if (with && without)
        r->mixed++;
    if (!with && !without)
        r->empty_seen++;
}

static bool write_replace_scene(const char *name, bool material)
{
    char mesh[ZE_UUID_STRING_LEN + 1], mat[ZE_UUID_STRING_LEN + 1];
    fx_uuid_str(g_project.mesh, mesh);
    fx_uuid_str(g_project.material, mat);
    static char scene[1 << 17];
    size_t n = (size_t)snprintf(
        scene, sizeof scene, "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n");
    for (int c = 1; c <= SCENE_CRATES; c++) {
        char comp[400];
        snprintf(comp, sizeof comp,
                 "\"Transform\": {\"position\": [%d, 0, %d]}, \"Mesh\": {\"mesh\": \"%s\"}%s%s%s",
                 c % 20, c / 20, mesh, material ? ", \"Material\": {\"material\": \"" : "",
                 material ? mat : "", material ? "\"}" : "");
        n += (size_t)fx_entity(scene + n, sizeof scene - n, c, comp);
    }
    n += (size_t)snprintf(scene + n, sizeof scene - n, "\n]}\n");
    char path[400];
    snprintf(path, sizeof path, "%s/scenes/%s", g_project.root, name);
    return n < sizeof scene && fx_write(path, scene, n);
}

static void replace_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    replace_t *r = user;
    if (r->frame++ % 4 == 3 && r->loads < REPLACES) {
        r->phase ^= 1;
        ze_result res =
            ze_engine_load_scene(e, r->phase ? "/scenes/b.scene.json" : "/scenes/a.scene.json");
        assert_int_equal(res, ZE_OK);
        r->loads++;
    }
}

static void test_scene_replace_never_mixes(void **state)
{
    (void)state;
    assert_true(write_replace_scene("a.scene.json", true));
    assert_true(write_replace_scene("b.scene.json", false));
    replace_t r;
    memset(&r, 0, sizeof r);
    ze_app_desc_t app = {.name = "proxies", .user = &r, .on_update = replace_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = REPLACES * 4 + 8;
    run.fixed_dt = 1.0 / 60.0;
    run.max_fps = 250; /* the render thread sees most states */
    ze__run_ctx_t ctx = {.render_observer = observe_replace, .render_observer_user = &r};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    printf("replace: %u loads, %u frames drawn, %u mixed\n", r.loads, r.frames_seen, r.mixed);
    assert_int_equal(r.loads, REPLACES);
    assert_true(r.frames_seen > REPLACES);
    assert_int_equal(r.mixed, 0);
    assert_int_equal(rep.instances, SCENE_CRATES);
}

/* ------------------------------------- more moves than a state carries */

/* Every crate moves every step and a state carries fewer records than
 * that (the knob stands in for a million crates against 100,000): the
 * scene is still drawn while they move, and no crate is left behind,
 * whether the render thread takes every state or skips some. */
enum { OVER_MOVERS = 300, OVER_LIMIT = 64, OVER_FRAMES = 120, OVER_REST = 16 };

typedef struct over_t {
    ze_entity_t ents[OVER_MOVERS];
    uint32_t frame;
    /* render thread (read after the run) */
    float last_y[OVER_MOVERS];
    uint32_t updates[OVER_MOVERS];
    uint32_t drawn_moving, states_moving;
    /* on_closing */
    uint64_t world_hash, table_hash, refused;
    uint32_t world_count, table_live;
} over_t;

/* Movers sit at x = 1000 + i: the row's x names the mover. */
static void observe_over(ze_render_backend_t *b, const ze_render_state_t *s, void *user)
{
    over_t *o = user;
    const ze__instance_table_t *t = &b->instances;
    bool moving = s->frame < OVER_FRAMES;
    if (moving) {
        o->states_moving++;
        o->drawn_moving += ze__instance_table_drawable(t, s);
    }
    for (uint32_t k = 0; k < t->slots; k++) {
        float x = t->rows[k].world.m[3][0];
        if (!t->live[k] || x < 1000.0f || x >= 1000.0f + OVER_MOVERS)
            continue;
        uint32_t i = (uint32_t)(x - 1000.0f);
        float y = t->rows[k].world.m[3][1];
        if (y != o->last_y[i]) {
            o->last_y[i] = y;
            if (moving)
                o->updates[i]++;
        }
    }
}

static ze_result over_initialized(ze_engine_t *e, void *user)
{
    over_t *o = user;
    for (uint32_t i = 0; i < OVER_MOVERS; i++)
        o->ents[i] = spawn_crate(ze_engine_world(e), g_project.mesh,
                                 (ze_vec3_t){1000.0f + (float)i, -1.0f, 0});
    return ZE_OK;
}

/* The first half waits for the render thread every iteration (it takes
 * every state), the second every third (it skips some); at rest it waits
 * again each time: the queue's last rounds (the moves, then the steps
 * that end their interpolation) drain in (300 + 4) / 64 states each. */
static void over_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    over_t *o = user;
    if (o->frame < OVER_FRAMES / 2 || o->frame >= OVER_FRAMES || o->frame % 3 == 0)
        wait_applied(e);
    if (o->frame < OVER_FRAMES) {
        ze_world_t *w = ze_engine_world(e);
        for (uint32_t i = 0; i < OVER_MOVERS; i++)
            ze_get_mut(w, o->ents[i], ze_transform_t)->position.y = (float)o->frame;
    }
    o->frame++;
}

static void over_closing(ze_engine_t *e, void *user)
{
    over_t *o = user;
    wait_applied(e);
    o->world_hash = world_instance_hash(ze_engine_world(e), &o->world_count);
    ze_render_stats_t st = ze_render_backend_stats(ze_engine_backend(e));
    o->table_hash = st.instance_table_hash;
    o->table_live = st.instances_live;
    o->refused = st.instance_records_refused;
}

static void test_more_moves_than_a_state_carries(void **state)
{
    (void)state;
    static over_t o;
    memset(&o, 0, sizeof o);
    for (uint32_t i = 0; i < OVER_MOVERS; i++)
        o.last_y[i] = -1.0f;
    ze_app_desc_t app = {.name = "proxies",
                         .user = &o,
                         .on_initialized = over_initialized,
                         .on_update = over_update,
                         .on_closing = over_closing};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = OVER_FRAMES + OVER_REST;
    run.fixed_dt = 1.0 / 60.0;
    ze__run_ctx_t ctx = {.state_record_limit = OVER_LIMIT,
                         .render_observer = observe_over,
                         .render_observer_user = &o};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    uint32_t least = UINT32_MAX;
    for (uint32_t i = 0; i < OVER_MOVERS; i++)
        least = o.updates[i] < least ? o.updates[i] : least;
    printf("over the limit: %u of %u states drawn while moving; every crate updated at least "
           "%u times\n",
           o.drawn_moving, o.states_moving, least);
    /* Taking every state in the first half, the render thread turns the
       head over each time: 60 states of 64 records over ~300 movers. */
    assert_true(least >= 6);
    /* The creates take (300 + 4) / 64 states; after them every state is
       drawn, though moves wait. */
    assert_true(o.drawn_moving >= OVER_FRAMES / 4);
    assert_int_equal(o.refused, 0);
    assert_int_equal(o.table_live, o.world_count);
    assert_true(o.table_hash == o.world_hash);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless_through_a_slow_backend),
        cmocka_unit_test(test_static_sends_nothing_moved_send_k),
        cmocka_unit_test(test_contents_the_backend_holds),
        cmocka_unit_test(test_scene_replace_never_mixes),
        cmocka_unit_test(test_more_moves_than_a_state_carries),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
