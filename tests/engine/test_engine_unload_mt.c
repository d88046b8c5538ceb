/* Level changes through the running engine and its render thread (null
 * backend): a level of crates (mesh, material, texture) and an empty one
 * replace each other 20 times. Each time the level goes, every asset it
 * used is released to the backend (its resident counts and geometry bytes
 * go back to 0, the asset manager holds no reference) and each time it
 * comes back it is uploaded again; no frame the backend draws has an
 * instance whose mesh was released; replacing the level with itself
 * releases nothing. And the instance budget of project.json: a scene with
 * more Mesh entities than it allows fails to load with ZE_ERR_LIMIT, the
 * instances within the budget kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_engine_fixture.h"
#include "engine/engine_internal.h"
#include "gfx/backend.h"

enum { CYCLES = 20, WAIT_FRAMES = 2000 };

typedef struct unload_t {
    int phase;
    uint32_t cycles, waited, replaced;
    uint64_t released_before_replace;
    uint64_t level_vertex_bytes;
    const char *failure;
    /* render thread */
    atomic_uint violations, frames_with_instances;
    atomic_bool seen_resident;
} unload_t;

static void observe(ze_render_backend_t *b, const ze_render_state_t *s, void *user)
{
    (void)s;
    unload_t *u = user;
    const ze__instance_table_t *t = &b->instances;
    bool any = false;
    for (uint32_t i = 0; i < t->slots; i++) {
        if (!t->live[i])
            continue;
        any = true;
        bool resident = ze_render_backend_resident(b, t->rows[i].mesh) != 0;
        if (resident)
            atomic_store(&u->seen_resident, true);
        else if (atomic_load(&u->seen_resident))
            atomic_fetch_add(&u->violations, 1); /* drawn after its release */
    }
    if (any)
        atomic_fetch_add(&u->frames_with_instances, 1);
}

static bool write_empty_scene(void)
{
    static const char scene[] =
        "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n"
        "{\"uuid\": \"00000000-0000-4000-8000-000000000001\", \"components\": {"
        "\"Transform\": {\"position\": [0, 2, 10]}, \"Camera\": {\"is_main\": true}}}\n]}\n";
    char path[400];
    snprintf(path, sizeof path, "%s/scenes/empty.scene.json", g_project.root);
    return fx_write(path, scene, sizeof scene - 1);
}

static void fail_with(ze_engine_t *e, unload_t *u, const char *why)
{
    if (!u->failure)
        u->failure = why;
    ze_engine_request_close(e);
}

static void unload_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    unload_t *u = user;
    if (u->failure)
        return;
    ze_render_stats_t st = ze_render_backend_stats(e->backend);
    uint32_t held = st.meshes + st.materials + st.textures;
    switch (u->phase) {
    case 0: /* the start scene (crates) is there: go to the empty level */
    case 4:
        if (u->phase == 4 && ++u->cycles == CYCLES) {
            ze_engine_request_close(e);
            return;
        }
        if (ze_engine_load_scene(e, "/scenes/empty.scene.json") != ZE_OK)
            fail_with(e, u, "the empty scene did not load");
        u->phase = 1;
        u->waited = 0;
        return;
    case 1: /* wait until everything is released */
        if (held == 0 && st.vertex_bytes_used == 0 && st.index_bytes_used == 0 &&
            ze_asset_refcount(e->assets, g_project.mesh) == 0 &&
            ze_asset_refcount(e->assets, g_project.material) == 0) {
            if (ze_engine_load_scene(e, "/scenes/main.scene.json") != ZE_OK)
                fail_with(e, u, "the level did not load");
            u->phase = 2;
            u->waited = 0;
        } else if (++u->waited > WAIT_FRAMES) {
            fail_with(e, u, "the level's assets were not released");
        }
        return;
    case 2: /* wait until the level is resident again */
        if (st.meshes == 1 && st.materials >= 1 && st.textures >= 1) {
            if (u->level_vertex_bytes == 0)
                u->level_vertex_bytes = st.vertex_bytes_used;
            if (st.vertex_bytes_used != u->level_vertex_bytes || st.vertex_bytes_used == 0)
                fail_with(e, u, "the level's vertex bytes differ from the first time");
            u->phase = 4;
            if (u->cycles == 0) { /* once: the level replaced by itself */
                u->released_before_replace = st.assets_released;
                if (ze_engine_load_scene(e, "/scenes/main.scene.json") != ZE_OK)
                    fail_with(e, u, "the level did not load over itself");
                u->phase = 3;
            }
            u->waited = 0;
        } else if (++u->waited > WAIT_FRAMES) {
            fail_with(e, u, "the level's assets did not come back");
        }
        return;
    case 3: /* a few frames after the self-replace: nothing was released */
        if (++u->waited < 30)
            return;
        if (st.assets_released != u->released_before_replace || st.meshes != 1)
            fail_with(e, u, "replacing the level with itself released its assets");
        u->replaced++;
        u->phase = 4;
        return;
    default:
        return;
    }
}

static void test_level_change_20_times(void **state)
{
    (void)state;
    assert_true(write_empty_scene());
    unload_t u;
    memset(&u, 0, sizeof u);
    ze_app_desc_t app = {.name = "unload", .user = &u, .on_update = unload_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = CYCLES * 2 * WAIT_FRAMES;
    run.fixed_dt = 1.0 / 60.0;
    run.max_fps = 500;
    ze__run_ctx_t ctx = {.render_observer = observe, .render_observer_user = &u};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    printf("unload: %u cycles, %u frames with instances, %u violations, level %llu vertex "
           "bytes\n",
           u.cycles, atomic_load(&u.frames_with_instances), atomic_load(&u.violations),
           (unsigned long long)u.level_vertex_bytes);
    if (u.failure)
        fail_msg("%s (cycle %u)", u.failure, u.cycles);
    assert_int_equal(u.cycles, CYCLES);
    assert_int_equal(u.replaced, 1);
    assert_int_equal(atomic_load(&u.violations), 0);
    assert_true(atomic_load(&u.frames_with_instances) > CYCLES);
    assert_true(u.level_vertex_bytes > 0);
}

/* ------------------------------------------------------ instance budget */

typedef struct budget_t {
    ze_result load;
    uint32_t live;
} budget_t;

static ze_result budget_init(ze_engine_t *e, void *user)
{
    budget_t *b = user;
    b->load = ze_engine_load_scene(e, "/scenes/main.scene.json");
    b->live = e->proxies_live;
    return ZE_OK;
}

static void test_instance_budget(void **state)
{
    (void)state;
    /* the same project, with a budget of 2 instances and no start scene */
    char path[400];
    snprintf(path, sizeof path, "%s/budget.json", g_project.root);
    const char *pj = "{\"name\": \"Budget\", \"asset_folders\": [\"models\"],\n"
                     " \"renderer\": {\"instance_budget\": 2}}\n";
    assert_true(fx_write(path, pj, strlen(pj)));
    budget_t b = {0};
    ze_app_desc_t app = {.name = "budget", .user = &b, .on_initialized = budget_init};
    ze_run_desc_t run = fx_run(&g_project);
    run.project = path;
    run.frames = 3;
    run.fixed_dt = 1.0 / 60.0;
    ze_run_report_t rep;
    (void)ze__app_run_with(&app, &run, &rep, &(ze__run_ctx_t){0});
    assert_int_equal(b.load, ZE_ERR_LIMIT);
    assert_int_equal(b.live, 2);
    assert_int_equal(rep.instances, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_change_20_times),
        cmocka_unit_test(test_instance_budget),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
