/* The asset path to the screen, with the Vulkan backend inside the engine
 * (lavapipe in CI, validation on: zero messages), a real clock at 60 fps,
 * on the engine tests' fixture project (the crate, a fixed-uuid sidecar) in
 * a small window.
 *
 * Ordering: a model reaches the screen only through registry Loaded ->
 * AssetManager -> on_asset_ready -> the backend's resource manager. Every
 * iteration (on_update, after the manager's tick) the app records, for the
 * crate's mesh and material, the registry state, whether the manager holds
 * the data and the backend's resident generation: their first appearances
 * must come in that order (the source's registry Loaded first), the backend
 * must never hold an asset (or a newer generation of it) the manager does
 * not, and the backend must have rendered a snapshot with the crates'
 * instances before their mesh was resident (the instance exists but draws
 * nothing until then; the app keeps the main loop in lockstep with the
 * render thread until the mesh is resident, so those early snapshots are
 * rendered however slowly the render thread starts).
 *
 * Hot reload to the screen: run A renders the settled project and writes
 * screenshot A; run B, on the same (up-to-date) project, overwrites the
 * crate's source while it runs (baseColorFactor red, which multiplies the
 * wood texture), waits for the backend to hold the new material generation
 * and asks the running engine for a screenshot (ze_engine_request_screenshot):
 * screenshot B. The new generation must be resident, and screenshot B on
 * disk, within 2 s of wall clock after the write (10 s under sanitizers);
 * the crate's pixels must be red-dominant in B and not in A. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"
#include "png_pixels.h"

enum { WIN_W = 256, WIN_H = 144 };
enum { BG_TOL = 3 }; /* per channel: a pixel differs from the sky */
#define RUN_LIMIT_NS ((FX_SANITIZED ? 80ull : 25ull) * 1000000000ull)

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    if (fx_setup(state) != 0)
        return -1;
    /* a small window: lavapipe renders it quickly (under ASan too) */
    char pj[512];
    int n = snprintf(pj, sizeof pj,
                     "{\n  \"name\": \"Vulkan order test\",\n"
                     "  \"start_scene\": \"scenes/main.scene.json\",\n"
                     "  \"asset_folders\": [\"models\"],\n"
                     "  \"window\": {\"width\": %d, \"height\": %d, \"title\": \"test\"}\n}\n",
                     WIN_W, WIN_H);
    return fx_write(g_project.project, pj, (size_t)n) ? 0 : -1;
}

static int teardown(void **state)
{
    fx_teardown(state);
    ze_log_reset();
    return 0;
}

static ze_run_desc_t real_clock_run(void)
{
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 0; /* until closed */
    run.max_fps = 60;
    return run;
}

/* ------------------------------------------------------------ ordering */

/* Main-loop iterations of the first appearances; -1 = not yet. */
typedef struct track_t {
    const char *name;
    ze_uuid_t uuid;
    int64_t registry, manager, resident;
    uint32_t resident_gen;
} track_t;

typedef struct order_t {
    uint64_t start_ns;
    int64_t source_loaded;
    track_t mesh, material;
    bool drawn_unresident; /* a rendered snapshot had instances, the mesh was not resident */
    uint32_t max_instances_unresident;
    uint64_t settled_frames; /* stats.frames when everything became resident; 0 = not yet */
    uint32_t violations;
    char violation[256];
    bool timed_out;
} order_t;

static void violated(order_t *o, uint64_t frame, const char *what, const char *name)
{
    if (o->violations++ == 0)
        snprintf(o->violation, sizeof o->violation, "iteration %llu, %s: %s",
                 (unsigned long long)frame, name, what);
}

static void observe(order_t *o, ze_engine_t *e, track_t *t)
{
    int64_t f = (int64_t)ze_engine_frame_index(e);
    ze_asset_info_t info;
    bool in_registry = ze_asset_registry_get(ze_engine_registry(e), t->uuid, &info) &&
                       info.state == ZE_ASSET_STATE_LOADED;
    /* the manager (main thread: it cannot change during this hook) before
       the backend (the render thread may make it resident meanwhile) */
    const ze_asset_data_t *d = ze_asset_get(ze_engine_assets(e), t->uuid);
    uint32_t gen = ze_render_backend_resident(ze_engine_backend(e), t->uuid);
    if (in_registry && t->registry < 0)
        t->registry = f;
    if (d && t->manager < 0)
        t->manager = f;
    if (gen && t->resident < 0)
        t->resident = f;
    t->resident_gen = gen;
    if (d && t->registry < 0)
        violated(o, (uint64_t)f, "the manager holds data the registry never had loaded", t->name);
    if (gen && !d)
        violated(o, (uint64_t)f, "resident in the backend, not in the manager", t->name);
    if (gen && d && gen > d->generation)
        violated(o, (uint64_t)f, "the backend's generation is ahead of the manager's", t->name);
}

static void order_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    order_t *o = user;
    ze_render_backend_t *b = ze_engine_backend(e);
    if (ze_time_now_ns() - o->start_ns > RUN_LIMIT_NS) {
        o->timed_out = true;
        ze_engine_request_close(e);
        return;
    }
    /* Until the mesh is resident, lockstep: iteration N waits (up to 5 s)
       for the backend to have rendered snapshot N-1, so the snapshots built
       before the mesh's on_asset_ready (at the earliest the iteration after
       the source's import completed) are rendered without it, however slow
       the render thread starts. */
    uint64_t n = ze_engine_frame_index(e);
    if (n > 0 && !ze_render_backend_resident(b, g_project.mesh)) {
        uint64_t until = ze_time_now_ns() + 5000000000ull;
        for (;;) {
            ze_render_stats_t w = ze_render_backend_stats(b);
            if ((w.frames > 0 && w.last_scene_frame >= n - 1) || ze_time_now_ns() > until)
                break;
            usleep(500);
        }
    }
    /* stats first, then residency: residency only grows, so "not resident
       now" holds for every frame the stats counted */
    ze_render_stats_t st = ze_render_backend_stats(b);
    bool mesh_resident = ze_render_backend_resident(b, g_project.mesh) != 0;
    if (st.frames > 0 && st.last_instances > 0 && !mesh_resident) {
        o->drawn_unresident = true;
        if (st.last_instances > o->max_instances_unresident)
            o->max_instances_unresident = st.last_instances;
    }
    ze_asset_info_t info;
    if (o->source_loaded < 0 &&
        ze_asset_registry_get(ze_engine_registry(e), g_project.source, &info) &&
        info.state == ZE_ASSET_STATE_LOADED)
        o->source_loaded = (int64_t)ze_engine_frame_index(e);
    observe(o, e, &o->mesh);
    observe(o, e, &o->material);
    if (!o->settled_frames && o->mesh.resident >= 0 && o->material.resident >= 0 && st.textures > 0)
        o->settled_frames = st.frames ? st.frames : 1;
    if (o->settled_frames && st.frames >= o->settled_frames + 30)
        ze_engine_request_close(e);
}

static void print_track(const track_t *t)
{
    print_message("%s: registry loaded at iteration %lld, manager %lld, backend resident %lld "
                  "(generation %u)\n",
                  t->name, (long long)t->registry, (long long)t->manager, (long long)t->resident,
                  t->resident_gen);
}

static void check_track(const order_t *o, const track_t *t)
{
    assert_true(t->registry >= 0);
    assert_true(t->manager >= 0);
    assert_true(t->resident >= 0);
    assert_true(o->source_loaded <= t->registry);
    assert_true(t->registry <= t->manager);
    assert_true(t->manager <= t->resident);
}

static void test_asset_order(void **state)
{
    (void)state;
    order_t o = {
        .start_ns = ze_time_now_ns(),
        .source_loaded = -1,
        .mesh = {"mesh", g_project.mesh, -1, -1, -1, 0},
        .material = {"material", g_project.material, -1, -1, -1, 0},
    };
    ze_app_desc_t app = {.name = "vk order", .user = &o, .on_update = order_update};
    ze_run_desc_t run = real_clock_run();
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    print_message("source loaded at iteration %lld\n", (long long)o.source_loaded);
    print_track(&o.mesh);
    print_track(&o.material);
    print_message("rendered with %u instances before the mesh was resident: %s; %llu frames "
                  "rendered in %llu iterations\n",
                  o.max_instances_unresident, o.drawn_unresident ? "yes" : "no",
                  (unsigned long long)rep.frames_rendered, (unsigned long long)rep.frames);
    assert_false(o.timed_out);
    if (o.violations)
        fail_msg("%u ordering violations; the first: %s", o.violations, o.violation);
    assert_true(o.source_loaded >= 0);
    check_track(&o, &o.mesh);
    check_track(&o, &o.material);
    /* the project was never imported: the first frames render the crates'
       instances before their mesh arrives */
    assert_true(o.drawn_unresident);
    assert_int_equal(o.max_instances_unresident, FX_CRATES);
    assert_int_equal(rep.instances, FX_CRATES);
    assert_true(rep.validation_enabled);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.shutdown_complete);
}

/* -------------------------------------------------- hot reload to screen */

typedef struct reload_t {
    bool edit; /* run B: overwrite the source once settled */
    int phase; /* 0 settling, 1 edited, 2 new generation resident, 4 screenshot asked, 3 closing */
    uint64_t start_ns, edit_ns, seen_ns, close_ns;
    const char *shot; /* run B: the screenshot asked for mid-run */
    uint64_t shots0;  /* screenshots served before the request */
    uint64_t settled_frames, seen_frames;
    uint32_t material_gen0, material_gen1;
    bool edit_failed, timed_out;
} reload_t;

static char g_original[1 << 16];
static size_t g_original_size;

static bool write_red_source(void)
{
    static char text[(1 << 16) + 128];
    const char *key = "\"metallicFactor\": 0.0";
    const char *at = strstr(g_original, key);
    if (!at)
        return false;
    size_t head = (size_t)(at - g_original);
    int n = snprintf(text, sizeof text, "%.*s\"baseColorFactor\": [1.0, 0.0, 0.0, 1.0], %s",
                     (int)head, g_original, at);
    char path[400];
    snprintf(path, sizeof path, "%s/models/crate.gltf", g_project.root);
    return n > 0 && (size_t)n < sizeof text && fx_write(path, text, (size_t)n);
}

static void reload_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    reload_t *r = user;
    ze_render_backend_t *b = ze_engine_backend(e);
    uint64_t now = ze_time_now_ns();
    if (now - r->start_ns > RUN_LIMIT_NS) {
        r->timed_out = true;
        ze_engine_request_close(e);
        return;
    }
    ze_render_stats_t st = ze_render_backend_stats(b);
    uint32_t gen = ze_render_backend_resident(b, g_project.material);
    switch (r->phase) {
    case 0:
        if (!r->settled_frames && ze_render_backend_resident(b, g_project.mesh) && gen &&
            st.textures > 0)
            r->settled_frames = st.frames ? st.frames : 1;
        if (r->settled_frames && st.frames >= r->settled_frames + 10) {
            if (!r->edit) {
                r->phase = 3;
                ze_engine_request_close(e);
                break;
            }
            r->material_gen0 = gen;
            r->edit_failed = !write_red_source();
            r->edit_ns = ze_time_now_ns();
            r->phase = 1;
            if (r->edit_failed)
                ze_engine_request_close(e);
        }
        break;
    case 1:
        if (gen > r->material_gen0) {
            r->material_gen1 = gen;
            r->seen_ns = now;
            r->seen_frames = st.frames;
            r->phase = 2;
        }
        break;
    case 2:
        /* the frame that made it resident drew with it: ask the running
           engine for a screenshot of the next frame rendered */
        r->shots0 = ze_engine_screenshots_done(e);
        if (ze_engine_request_screenshot(e, r->shot) != ZE_OK) {
            r->edit_failed = true;
            ze_engine_request_close(e);
        }
        r->phase = 4;
        break;
    case 4:
        if (ze_engine_screenshots_done(e) > r->shots0) {
            r->close_ns = now; /* the PNG is on disk */
            r->phase = 3;
            ze_engine_request_close(e);
        }
        break;
    default:
        break;
    }
}

static void run_to_screenshot(bool edit, const char *png, reload_t *r)
{
    memset(r, 0, sizeof *r);
    r->edit = edit;
    r->shot = png;
    r->start_ns = ze_time_now_ns();
    ze_app_desc_t app = {.name = "vk hot reload", .user = r, .on_update = reload_update};
    ze_run_desc_t run = real_clock_run();
    run.screenshot = edit ? NULL : png; /* B: taken while it runs */
    ze_run_report_t rep;
    unlink(png);
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_false(r->timed_out);
    assert_false(r->edit_failed);
    assert_int_equal(r->phase, 3);
    assert_true(rep.validation_enabled);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.instances, FX_CRATES);
}

typedef struct tint_t {
    uint32_t crate;              /* pixels that differ from the sky in A */
    uint32_t red[2];             /* of them, red-dominant in A, in B */
    uint32_t changed;            /* of them, different in B */
    double mean_a[3], mean_b[3]; /* over them */
} tint_t;

static bool red_dominant(const uint8_t *px)
{
    return px[0] > 40 && px[0] > 3 * px[1] && px[0] > 3 * px[2];
}

static tint_t compare_shots(const png_pixels_t *a, const png_pixels_t *b)
{
    tint_t t = {0};
    uint8_t sky[3] = {0};
    assert_true(png_background(a, BG_TOL, sky));
    for (uint32_t y = 0; y < a->height; y++)
        for (uint32_t x = 0; x < a->width; x++) {
            const uint8_t *pa = png_pixel(a, x, y), *pb = png_pixel(b, x, y);
            if (png_same(pa, sky, BG_TOL))
                continue;
            t.crate++;
            t.red[0] += red_dominant(pa);
            t.red[1] += red_dominant(pb);
            t.changed += !png_same(pa, pb, 8);
            for (int c = 0; c < 3; c++) {
                t.mean_a[c] += pa[c];
                t.mean_b[c] += pb[c];
            }
        }
    for (int c = 0; c < 3; c++) {
        t.mean_a[c] /= t.crate ? t.crate : 1;
        t.mean_b[c] /= t.crate ? t.crate : 1;
    }
    return t;
}

static void test_hot_reload_to_screen(void **state)
{
    (void)state;
    char path[400], shot_a[400], shot_b[400];
    snprintf(path, sizeof path, "%s/models/crate.gltf", g_project.root);
    g_original_size = fx_read(path, g_original, sizeof g_original);
    assert_true(g_original_size > 0);
    snprintf(shot_a, sizeof shot_a, "%s/shot_a.png", g_project.root);
    snprintf(shot_b, sizeof shot_b, "%s/shot_b.png", g_project.root);

    reload_t a, b;
    run_to_screenshot(false, shot_a, &a);
    run_to_screenshot(true, shot_b, &b);
    double seen_s = (double)(b.seen_ns - b.edit_ns) / 1e9;
    double close_s = (double)(b.close_ns - b.edit_ns) / 1e9;
    print_message("hot reload to the screen: material generation %u -> %u resident %.0f ms after "
                  "the write, a screenshot of the running engine written at %.0f ms\n",
                  b.material_gen0, b.material_gen1, seen_s * 1e3, close_s * 1e3);
    assert_true(b.material_gen1 > b.material_gen0);
    /* the latencies are printed, not asserted (a machine's speed); the run's
       RUN_LIMIT_NS only catches a reload that never comes */

    png_pixels_t pa, pb;
    assert_true(png_pixels_load(shot_a, &pa));
    assert_true(png_pixels_load(shot_b, &pb));
    assert_int_equal(pa.width, WIN_W);
    assert_int_equal(pa.height, WIN_H);
    assert_int_equal(pb.width, WIN_W);
    assert_int_equal(pb.height, WIN_H);
    tint_t t = compare_shots(&pa, &pb);
    const char *keep = getenv("ZE_TEST_WRITE_IMAGES");
    if (keep && keep[0]) {
        char to[600];
        snprintf(to, sizeof to, "%s/order_a.png", keep);
        (void)rename(shot_a, to);
        snprintf(to, sizeof to, "%s/order_b.png", keep);
        (void)rename(shot_b, to);
    }
    png_pixels_release(&pa);
    png_pixels_release(&pb);
    print_message("crate pixels %u (%.1f %%): red-dominant %u in A, %u in B; changed %u; mean "
                  "A (%.0f, %.0f, %.0f), B (%.0f, %.0f, %.0f)\n",
                  t.crate, 100.0 * t.crate / (WIN_W * WIN_H), t.red[0], t.red[1], t.changed,
                  t.mean_a[0], t.mean_a[1], t.mean_a[2], t.mean_b[0], t.mean_b[1], t.mean_b[2]);
    assert_true(t.crate > WIN_W * WIN_H / 50); /* the crates are in view */
    assert_true(t.red[0] < t.crate / 10);      /* wood: not red-dominant */
    assert_true(t.red[1] > t.crate * 2 / 3);   /* red factor: red-dominant */
    assert_true(t.changed > t.crate * 2 / 3);
    /* put the source back (later runs import it again) */
    assert_true(fx_write(path, g_original, g_original_size));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asset_order),
        cmocka_unit_test(test_hot_reload_to_screen),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
