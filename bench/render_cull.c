/* render_cull.c — suite "render", GPU culling rows (bench/README.md,
 * "render"): the Vulkan backend on whatever device it picks (lavapipe on
 * the development VM and in CI; the H200 figures come from
 * scripts/gpu_run.sh), headless at 1280x720, validation off.
 *
 * n crates (the showcase's crate mesh, 12 triangles) scattered at random
 * in a box around the view, about half of them inside the frustum, all
 * static; n = 1000 and 10000, and 100000 and 1000000 in full runs. After
 * the warm-up frames, the measured frames are rendered; for each the
 * backend's per-pass GPU times (one frame late) and culling counts are
 * read. Rows, medians over the frames, at each n:
 *   frustum culling only (ZE_RENDER_CULL_FRUSTUM):
 *   cull_gpu_ms       the cull passes (bins_clear, cull, bins, place: the
 *                     test of n candidates and their compaction into
 *                     instanced commands);
 *                     the target on lavapipe: <= 0.5 ms at 10k
 *   forward_gpu_ms    the forward pass drawing the visible ones (no target)
 *   cull_visible      the visible draws of the last frame (a count, no
 *                     target; the frustum-culled ones are n - visible)
 *   cull_draw_commands the instanced commands drawing them (a count: one
 *                     per face class and level of detail in view)
 *   with occlusion culling (the default; docs/gfx.md "Occlusion culling"),
 *   each pass on its own:
 *   occlusion_cull_gpu_ms      the early cull (frustum + the previous
 *                              frame's pyramid, with its compaction)
 *   occlusion_forward_gpu_ms   forward shading of the early draws
 *   pyramid_gpu_ms             building the depth pyramid
 *   cull_late_gpu_ms           the late cull of the candidates (with
 *                              bins_late and place_late)
 *   forward_late_gpu_ms        forward shading of the late draws
 *   occlusion_visible          draws drawn (early + late)
 *   occlusion_culled           draws hidden by occlusion culling
 *   occlusion_geometry_gpu_ms  every pass of the frame before tone
 *                              mapping; baseline: the same passes of the
 *                              frustum-only run (scatter, cull, forward)
 * and at 10k again with the depth prepass (ze_render_backend_desc_t
 * .depth_prepass, frustum only): prepass_gpu_ms, and
 * forward_gpu_ms_after_prepass with forward_gpu_ms of the run without as
 * its baseline (the issue: "measured with and without").
 * No baseline for a single pass: a GPU pass has no plain-C equivalent in
 * this process; the targets are absolute, as the issue states them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "zengine/cook.h"
#include "zengine/gfx.h"

enum { CULL_W = 1280, CULL_H = 720 };

static ze_uuid_t bench_uuid(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0xB7;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

static double pass_ms(const ze_render_stats_t *st, const char *name)
{
    for (uint32_t i = 0; i < st->gpu_pass_count; i++)
        if (strcmp(st->gpu_passes[i].name, name) == 0)
            return st->gpu_passes[i].gpu_ms;
    return NAN;
}

/* The crate's mesh as .zemesh bytes (from `alloc`). */
static bool crate_mesh(ze_bench_t *b, ze_allocator_t alloc, uint8_t **bytes, size_t *size)
{
    ze_model_t *model = NULL;
    ze_gltf_desc_t gd = {.alloc = alloc};
    if (ze_asset_import_gltf_file(ZE_BENCH_SHOWCASE_MODELS "/crate.gltf", &gd, &model, NULL) !=
        ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "cannot import %s/crate.gltf", ZE_BENCH_SHOWCASE_MODELS);
        return false;
    }
    ze_uuid_t nil = {{0}};
    bool ok = ze_asset_zemesh_write(model, 0, bench_uuid(1), &nil, alloc, bytes, size) == ZE_OK;
    ze_asset_model_destroy(model);
    if (!ok)
        ze_bench_fail(b, "cull_gpu_ms", "cannot cook the crate's mesh");
    return ok;
}

static void scene_fill(ze_render_state_t *s, ze_render_instance_t *inst, uint32_t n)
{
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x5EED);
    for (uint32_t i = 0; i < n; i++) {
        /* a box around the view: x, y in +-60, z from -100 to +20 (the
           camera at z = 10 looking down -z sees about half of it) */
        ze_vec3_t p = {(float)(ze_rng_unit(&rng) * 120.0 - 60.0),
                       (float)(ze_rng_unit(&rng) * 80.0 - 40.0),
                       (float)(ze_rng_unit(&rng) * 120.0 - 100.0)};
        ze_quat_t q =
            ze_quat_from_axis_angle((ze_vec3_t){0, 1, 0}, (float)ze_rng_unit(&rng) * 6.28f);
        inst[i] = (ze_render_instance_t){
            .world = ze_mat4_from_trs(p, q, (ze_vec3_t){0.5f, 0.5f, 0.5f}),
            .mesh = bench_uuid(1),
            .id = i + 1,
        };
    }
    memset(s, 0, sizeof *s);
    s->width = CULL_W;
    s->height = CULL_H;
    s->has_camera = true;
    s->sky = (ze_render_sky_t){.clear_color = {0.1f, 0.12f, 0.2f}, .exposure = 1.0f};
    ze_render_state_set_instances(s, inst, n);
    ze_vec3_t eye = {0, 5, 10};
    float aspect = (float)CULL_W / (float)CULL_H;
    s->camera.view = ze_mat4_look_at(eye, (ze_vec3_t){0, 0, -40}, (ze_vec3_t){0, 1, 0});
    s->camera.projection = ze_mat4_perspective(0.9f, aspect, 0.1f, 200.0f);
    s->camera.position = eye;
    s->camera.fov_y = 0.9f;
    s->camera.near_plane = 0.1f;
    s->camera.far_plane = 200.0f;
    s->camera.aspect = aspect;
}

/* The passes a run times, by name. */
enum {
    P_SCATTER,
    P_BINS_CLEAR,
    P_CULL,
    P_BINS,
    P_PLACE,
    P_PREPASS,
    P_FORWARD,
    P_PYRAMID,
    P_LATE,
    P_BINS_LATE,
    P_PLACE_LATE,
    P_FORWARD_LATE,
    P_COUNT
};
static const char *const PASS_NAMES[P_COUNT] = {
    "scatter", "bins_clear", "cull",      "bins",      "place",      "prepass",
    "forward", "pyramid",    "cull_late", "bins_late", "place_late", "forward_late"};

/* One backend configuration over the scene: the medians of each pass's GPU
 * time (NAN for a pass that did not run) and the last frame's counts;
 * false after a failure (reported). */
typedef struct cull_run_t {
    double ms[P_COUNT];
    uint32_t visible, draws, occluded, commands;
} cull_run_t;

/* A culling phase's passes together: the test and the compaction into
   instanced commands (the bins and place passes); NAN if none ran. */
static double phase_ms(const cull_run_t *r, bool late)
{
    static const int early[] = {P_BINS_CLEAR, P_CULL, P_BINS, P_PLACE};
    static const int after[] = {P_LATE, P_BINS_LATE, P_PLACE_LATE};
    const int *p = late ? after : early;
    uint32_t n = late ? 3 : 4;
    double sum = NAN;
    for (uint32_t i = 0; i < n; i++)
        if (!isnan(r->ms[p[i]]))
            sum = (isnan(sum) ? 0.0 : sum) + r->ms[p[i]];
    return sum;
}

static bool run_config(ze_bench_t *b, ze_mem_t *mm, const ze_asset_data_t *mesh,
                       ze_render_state_t *s, ze_render_cull_mode mode, bool prepass, uint32_t warm,
                       uint32_t frames, cull_run_t *out)
{
    ze_render_backend_t *rb = NULL;
    ze_render_backend_desc_t d = {.mem = mm,
                                  .headless = true,
                                  .width = CULL_W,
                                  .height = CULL_H,
                                  .depth_prepass = prepass,
                                  .cull = mode};
    if (ze_render_backend_create("vulkan", &d, &rb) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "no Vulkan device (the rows need lavapipe or a GPU)");
        return false;
    }
    bool ok = ze_render_backend_asset_ready(rb, mesh) == ZE_OK;
    if (!ok)
        ze_bench_fail(b, "cull_gpu_ms", "the backend refused the crate's mesh");
    double *t = ze_bench_table_alloc(sizeof(double) * frames * P_COUNT);
    uint32_t got = 0;
    ze_render_stats_t st = {0};
    for (uint32_t f = 0; ok && f < warm + frames; f++) {
        s->frame = f + 1;
        if (ze_render_backend_frame(rb, s) != ZE_OK) {
            ze_bench_fail(b, "cull_gpu_ms", "frame %u failed", f + 1);
            ok = false;
            break;
        }
        st = ze_render_backend_stats(rb);
        double c = pass_ms(&st, "cull"), w = pass_ms(&st, "forward");
        if (f >= warm && !isnan(c) && !isnan(w)) {
            for (uint32_t p = 0; p < P_COUNT; p++)
                t[p * frames + got] = pass_ms(&st, PASS_NAMES[p]);
            got++;
        }
    }
    if (ok && !got) {
        ze_bench_fail(b, "cull_gpu_ms", "no GPU timestamps (the device has none)");
        ok = false;
    }
    if (ok) {
        for (uint32_t p = 0; p < P_COUNT; p++)
            out->ms[p] = isnan(t[p * frames]) ? NAN : ze_bench_median(t + p * frames, got);
        out->visible = st.last_draws_visible;
        out->draws = st.last_draws;
        out->occluded = st.last_draws_occlusion_culled;
        out->commands = st.last_draw_commands;
        printf("  %s, %ux%u, %u draws, %s%s:", ze_render_backend_device(rb), CULL_W, CULL_H,
               out->draws, mode == ZE_RENDER_CULL_DEFAULT ? "occlusion" : "frustum",
               prepass ? ", depth prepass" : "");
        for (uint32_t p = 0; p < P_COUNT; p++)
            if (!isnan(out->ms[p]))
                printf(" %s %.3f", PASS_NAMES[p], out->ms[p]);
        printf(" ms GPU (medians of %u frames); %u visible in %u instanced commands, %u "
               "occlusion-culled\n",
               got, out->visible, out->commands, out->occluded);
        fflush(stdout);
    }
    ze_bench_table_free(t);
    ze_render_backend_destroy(rb);
    return ok;
}

/* Every pass before tone mapping that ran. */
static double geometry_ms(const cull_run_t *r)
{
    double sum = 0.0;
    for (uint32_t p = 0; p < P_COUNT; p++)
        if (!isnan(r->ms[p]))
            sum += r->ms[p];
    return sum;
}

static const char *const ROWS[] = {
    "cull_gpu_ms",           "forward_gpu_ms",           "cull_visible",
    "cull_draw_commands",    "prepass_gpu_ms",           "forward_gpu_ms_after_prepass",
    "occlusion_cull_gpu_ms", "occlusion_forward_gpu_ms", "pyramid_gpu_ms",
    "cull_late_gpu_ms",      "forward_late_gpu_ms",      "occlusion_visible",
    "occlusion_culled",      "occlusion_geometry_gpu_ms"};

/* The rows of one n (false after a failure, reported). */
static bool rows_at(ze_bench_t *b, ze_mem_t *mm, const ze_asset_data_t *mesh,
                    ze_render_instance_t *inst, uint32_t n)
{
    ze_render_state_t s;
    scene_fill(&s, inst, n);
    /* the big scenes: fewer frames (lavapipe renders a million crates in
       seconds, not milliseconds) */
    bool big = n > 10000;
    uint32_t warm = (uint32_t)ze_bench_size(b, big ? 3 : 10, 3);
    uint32_t frames = (uint32_t)ze_bench_size(b, big ? 5 : 40, 5);
    cull_run_t plain, occ, pre;
    if (!run_config(b, mm, mesh, &s, ZE_RENDER_CULL_FRUSTUM, false, warm, frames, &plain) ||
        !run_config(b, mm, mesh, &s, ZE_RENDER_CULL_DEFAULT, false, warm, frames, &occ))
        return false;
    ze_bench_add(b, "cull_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, phase_ms(&plain, false),
                 ZE_BENCH_NONE, n == 10000 ? 0.5 : ZE_BENCH_NONE);
    ze_bench_add(b, "forward_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, plain.ms[P_FORWARD],
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "cull_visible", n, "count", ZE_BENCH_HIGHER, (double)plain.visible,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "cull_draw_commands", n, "count", ZE_BENCH_LOWER, (double)plain.commands,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "occlusion_cull_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, phase_ms(&occ, false),
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "occlusion_forward_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, occ.ms[P_FORWARD],
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "pyramid_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, occ.ms[P_PYRAMID],
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "cull_late_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, phase_ms(&occ, true),
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "forward_late_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, occ.ms[P_FORWARD_LATE],
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "occlusion_visible", n, "count", ZE_BENCH_HIGHER, (double)occ.visible,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "occlusion_culled", n, "count", ZE_BENCH_HIGHER, (double)occ.occluded,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "occlusion_geometry_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, geometry_ms(&occ),
                 geometry_ms(&plain), ZE_BENCH_NONE);
    if (n != 10000)
        return true;
    /* with the prepass: its own time, and forward's against forward alone */
    if (!run_config(b, mm, mesh, &s, ZE_RENDER_CULL_FRUSTUM, true, warm, frames, &pre))
        return false;
    ze_bench_add(b, "prepass_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, pre.ms[P_PREPASS],
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "forward_gpu_ms_after_prepass", n, "ms/frame", ZE_BENCH_LOWER,
                 pre.ms[P_FORWARD], plain.ms[P_FORWARD], ZE_BENCH_NONE);
    return true;
}

void ze_bench_render_cull(ze_bench_t *b); /* render_bench.c's main */

void ze_bench_render_cull(ze_bench_t *b)
{
    bool any = false;
    for (size_t i = 0; i < ZE_COUNTOF(ROWS); i++)
        any |= ze_bench_enabled(b, ROWS[i]);
    if (!any)
        return;
    const uint32_t sizes[] = {1000, 10000, 100000, 1000000};
    const uint32_t count = ze_bench_size(b, 4, 2) == 4 ? 4 : 2; /* the big ones in full runs */
    const uint32_t nmax = sizes[count - 1];
    setenv("ZENGINE_VK_VALIDATION", "0", 1); /* timings without the layer */
    ze_mem_t *mm = NULL;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "no memory manager");
        return;
    }
    ze_allocator_t alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ASSET);
    uint8_t *bytes = NULL;
    size_t size = 0;
    ze_render_instance_t *inst = ZE_NEW_ARRAY(alloc, ze_render_instance_t, nmax);
    ze_asset_data_t mesh = {.uuid = bench_uuid(1), .type = ZE_ASSET_TYPE_MESH, .generation = 1};
    if (!inst || !crate_mesh(b, alloc, &bytes, &size))
        goto done;
    mesh.bytes = bytes;
    mesh.size = size;
    if (ze_asset_zemesh_read(bytes, size, &mesh.as.mesh, NULL) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "the crate's mesh does not read back");
        goto done;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!rows_at(b, mm, &mesh, inst, sizes[i]))
            break;
done:
    if (bytes)
        ze_free(alloc, bytes, size);
    if (inst)
        ze_free(alloc, inst, sizeof *inst * nmax);
    ze_mem_destroy(mm);
}
