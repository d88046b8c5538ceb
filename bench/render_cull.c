/* render_cull.c — suite "render", GPU culling rows (bench/README.md,
 * "render"): the Vulkan backend on whatever device it picks (lavapipe on
 * the development VM and in CI; the H200 figures come from
 * scripts/gpu_run.sh), headless at 1280x720, validation off.
 *
 * n crates (the showcase's crate mesh, 12 triangles) scattered at random
 * in a box around the view, about half of them inside the frustum, all
 * static. After WARM frames, FRAMES frames are rendered; for each the
 * backend's per-pass GPU times (one frame late) and culling counts are
 * read. Rows, medians over the frames:
 *   cull_gpu_ms       the cull pass (test + compaction of n candidates);
 *                     the target on lavapipe: <= 0.5 ms at 10k
 *   forward_gpu_ms    the forward pass drawing the visible ones (no target)
 *   cull_visible      the visible draws of the last frame (a count, no
 *                     target; the frustum-culled ones are n - visible)
 * and again with the depth prepass (ze_render_backend_desc_t
 * .depth_prepass): prepass_gpu_ms, and forward_gpu_ms_after_prepass with
 * forward_gpu_ms of the run without as its baseline (the issue: "measured
 * with and without").
 * No baseline: a GPU pass has no plain-C equivalent in this process; the
 * targets are absolute, as the issue states them. */
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

/* One backend configuration over the scene: medians of the cull, prepass
 * and forward passes' GPU times (NAN for a pass that did not run); false
 * after a failure (reported). */
typedef struct cull_run_t {
    double cull_ms, prepass_ms, forward_ms;
    uint32_t visible, draws;
} cull_run_t;

static bool run_config(ze_bench_t *b, ze_mem_t *mm, const ze_asset_data_t *mesh,
                       ze_render_state_t *s, bool prepass, uint32_t warm, uint32_t frames,
                       cull_run_t *out)
{
    ze_render_backend_t *rb = NULL;
    ze_render_backend_desc_t d = {
        .mem = mm, .headless = true, .width = CULL_W, .height = CULL_H, .depth_prepass = prepass};
    if (ze_render_backend_create("vulkan", &d, &rb) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "no Vulkan device (the rows need lavapipe or a GPU)");
        return false;
    }
    bool ok = ze_render_backend_asset_ready(rb, mesh) == ZE_OK;
    if (!ok)
        ze_bench_fail(b, "cull_gpu_ms", "the backend refused the crate's mesh");
    double *t = ze_bench_table_alloc(sizeof(double) * frames * 3);
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
            t[got] = c;
            t[frames + got] = w;
            t[2 * frames + got] = prepass ? pass_ms(&st, "prepass") : NAN;
            got++;
        }
    }
    if (ok && !got) {
        ze_bench_fail(b, "cull_gpu_ms", "no GPU timestamps (the device has none)");
        ok = false;
    }
    if (ok) {
        out->cull_ms = ze_bench_median(t, got);
        out->forward_ms = ze_bench_median(t + frames, got);
        out->prepass_ms = prepass ? ze_bench_median(t + 2 * frames, got) : NAN;
        out->visible = st.last_draws_visible;
        out->draws = st.last_draws;
        printf("  %s, %ux%u, %u draws%s: cull %.3f ms, %sforward %.3f ms GPU (medians of %u "
               "frames), %u visible\n",
               ze_render_backend_device(rb), CULL_W, CULL_H, out->draws,
               prepass ? ", depth prepass" : "", out->cull_ms, prepass ? "prepass " : "",
               out->forward_ms, got, out->visible);
        if (prepass)
            printf("    (prepass %.3f ms)\n", out->prepass_ms);
        fflush(stdout);
    }
    ze_bench_table_free(t);
    ze_render_backend_destroy(rb);
    return ok;
}

void ze_bench_render_cull(ze_bench_t *b); /* render_bench.c's main */

void ze_bench_render_cull(ze_bench_t *b)
{
    static const char *const rows[] = {"cull_gpu_ms", "forward_gpu_ms", "cull_visible",
                                       "prepass_gpu_ms", "forward_gpu_ms_after_prepass"};
    bool any = false;
    for (size_t i = 0; i < ZE_COUNTOF(rows); i++)
        any |= ze_bench_enabled(b, rows[i]);
    if (!any)
        return;
    const uint32_t n = 10000;
    const uint32_t warm = (uint32_t)ze_bench_size(b, 10, 3);
    const uint32_t frames = (uint32_t)ze_bench_size(b, 40, 5);
    setenv("ZENGINE_VK_VALIDATION", "0", 1); /* timings without the layer */
    ze_mem_t *mm = NULL;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "no memory manager");
        return;
    }
    ze_allocator_t alloc = ze_mem_owner_allocator(mm, ZE_MEM_OWNER_ASSET);
    uint8_t *bytes = NULL;
    size_t size = 0;
    ze_render_instance_t *inst = ZE_NEW_ARRAY(alloc, ze_render_instance_t, n);
    ze_asset_data_t mesh = {.uuid = bench_uuid(1), .type = ZE_ASSET_TYPE_MESH, .generation = 1};
    cull_run_t plain, pre;
    ze_render_state_t s;
    if (!inst || !crate_mesh(b, alloc, &bytes, &size))
        goto done;
    mesh.bytes = bytes;
    mesh.size = size;
    if (ze_asset_zemesh_read(bytes, size, &mesh.as.mesh, NULL) != ZE_OK) {
        ze_bench_fail(b, "cull_gpu_ms", "the crate's mesh does not read back");
        goto done;
    }
    scene_fill(&s, inst, n);
    if (!run_config(b, mm, &mesh, &s, false, warm, frames, &plain) ||
        !run_config(b, mm, &mesh, &s, true, warm, frames, &pre))
        goto done;
    ze_bench_add(b, "cull_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, plain.cull_ms, ZE_BENCH_NONE,
                 0.5);
    ze_bench_add(b, "forward_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, plain.forward_ms,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    ze_bench_add(b, "cull_visible", n, "count", ZE_BENCH_HIGHER, (double)plain.visible,
                 ZE_BENCH_NONE, ZE_BENCH_NONE);
    /* with the prepass: its own time, and forward's against forward alone */
    ze_bench_add(b, "prepass_gpu_ms", n, "ms/frame", ZE_BENCH_LOWER, pre.prepass_ms, ZE_BENCH_NONE,
                 ZE_BENCH_NONE);
    ze_bench_add(b, "forward_gpu_ms_after_prepass", n, "ms/frame", ZE_BENCH_LOWER, pre.forward_ms,
                 plain.forward_ms, ZE_BENCH_NONE);
done:
    if (bytes)
        ze_free(alloc, bytes, size);
    if (inst)
        ze_free(alloc, inst, sizeof *inst * n);
    ze_mem_destroy(mm);
}
