/* Occlusion culling (the cull, pyramid, cull_late and forward_late passes;
 * docs/gfx.md "Occlusion culling") against a CPU reference, on whatever
 * device the Vulkan backend picks (lavapipe in CI), validation on,
 * synchronization validation too in the dev preset: zero messages.
 *
 * The reference replays the GPU's frame on the CPU: the previous frame's
 * instances rasterised into a depth image (pixel centres, depth
 * interpolated in screen space, as Vulkan does), its pyramid
 * (ze__hzb_reduce), the early test of this frame's spheres against it
 * (ze__hzb_occluded, the previous view), the depth of the instances that
 * pass, its pyramid, and the late test of the candidates against that one.
 * Rasterisers differ at triangle edges and in the last bits of depth, so
 * each decision is made twice: with the depth image pushed back (every
 * pixel the farthest of its 3x3 neighbours, plus a little) and the sphere
 * 1 % larger, it must still be occluded; with the depth pulled forward and
 * the sphere 1 % smaller, still not. An instance whose decisions are not
 * that clear is taken out of the scene, and the reference is replayed
 * until every decision is; then the GPU's occlusion-culled count must
 * equal the reference's exactly.
 *   - a static scene: three large spheres in front of 300 small ones;
 *   - a moved occluder: what the previous frame's pyramid hid but this
 *     frame shows is drawn late (the reference counts such rescues);
 * and in both, the picture equals culling off byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/hzb.h"
#include "gfx/sphere_gltf.h"
#include "gfx/vk_internal.h"
#include "gfx/vk_messages.h"
#include "zengine/gfx.h"

enum { W = 160, H = 120, MAX_INST = 320 };

static const ze_vec3_t EYE = {0.0f, 0.5f, 5.0f};
static const float FOV = 0.9f, NEAR = 0.1f, FAR = 40.0f;

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
    uint8_t *mesh_bytes;
    size_t mesh_size;
    ze_asset_data_t mesh, material;
    float centre[3], radius; /* the submesh's bounding sphere, local (as vk_rrm.c makes it) */
} fixture_t;

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0x0C;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
#if !defined(ZE_SANITIZER_ADDRESS)
    setenv("ZENGINE_VK_SYNC_VALIDATION", "1", 1); /* the pyramid and late-pass barriers */
#endif
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_ASSET);
    if (!sphere_assets(f.alloc, false, uuid_n(1), uuid_n(2), &f.mesh_bytes, &f.mesh_size, &f.mesh,
                       &f.material))
        return -1;
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(&f.mesh.as.mesh, 0, &sm);
    ze_vec3_t c = ze_vec3_scale(ze_vec3_add(sm.min, sm.max), 0.5f);
    f.centre[0] = c.x;
    f.centre[1] = c.y;
    f.centre[2] = c.z;
    f.radius = ze_vec3_length(ze_vec3_sub(sm.max, c));
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_free(f->alloc, f->mesh_bytes, f->mesh_size);
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

static ze_render_backend_t *make(fixture_t *f, ze_render_cull_mode mode)
{
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {
        .mem = f->mm, .headless = true, .width = W, .height = H, .cull = mode};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    assert_true(ze_render_backend_stats(b).validation_enabled);
    assert_int_equal(ze_render_backend_asset_ready(b, &f->mesh), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &f->material), ZE_OK);
    return b;
}

/* ------------------------------------------------------------ scene */

typedef struct scene_t {
    ze_render_instance_t inst[MAX_INST];
    uint32_t n;
    ze_render_light_t sun;
    ze_render_state_t s;
} scene_t;

static void scene_init(scene_t *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->sun = (ze_render_light_t){.type = ZE_RENDER_LIGHT_DIRECTIONAL,
                                  .intensity = 3.0f,
                                  .color = {1, 1, 1},
                                  .direction = {-0.48f, -0.64f, -0.6f}};
    ze_render_state_t *s = &sc->s;
    s->width = W;
    s->height = H;
    s->has_camera = true;
    s->sky = (ze_render_sky_t){.clear_color = {0.1f, 0.12f, 0.2f}, .exposure = 1.0f};
    s->light_count = 1;
    s->lights = &sc->sun;
    float aspect = (float)W / (float)H;
    s->camera.view = ze_mat4_look_at(EYE, (ze_vec3_t){0.0f, 0.0f, 0.0f}, (ze_vec3_t){0, 1, 0});
    s->camera.projection = ze_mat4_perspective(FOV, aspect, NEAR, FAR);
    s->camera.position = EYE;
    s->camera.fov_y = FOV;
    s->camera.near_plane = NEAR;
    s->camera.far_plane = FAR;
    s->camera.aspect = aspect;
}

static void scene_add(scene_t *sc, ze_vec3_t at, float scale)
{
    assert_true(sc->n < MAX_INST);
    ze_mat4_t w = ze_mat4_from_trs(at, (ze_quat_t){0, 0, 0, 1}, (ze_vec3_t){scale, scale, scale});
    sc->inst[sc->n] = (ze_render_instance_t){.world = w, .mesh = uuid_n(1), .id = sc->n + 1};
    sc->n++;
}

static void scene_remove(scene_t *sc, uint32_t i)
{
    sc->inst[i] = sc->inst[--sc->n];
}

/* A point at normalised screen position (nx, ny in [-1, 1]) and distance d
   along the view direction. */
static ze_vec3_t on_screen(float nx, float ny, float d)
{
    ze_vec3_t fwd = ze_vec3_normalize(ze_vec3_scale(EYE, -1.0f));
    ze_vec3_t right = ze_vec3_normalize(ze_vec3_cross(fwd, (ze_vec3_t){0, 1, 0}));
    ze_vec3_t up = ze_vec3_cross(right, fwd);
    float t = tanf(FOV * 0.5f), aspect = (float)W / (float)H;
    ze_vec3_t dir = ze_vec3_add(
        fwd, ze_vec3_add(ze_vec3_scale(right, nx * t * aspect), ze_vec3_scale(up, ny * t)));
    return ze_vec3_add(EYE, ze_vec3_scale(dir, d));
}

/* ------------------------------------------------------- reference */

static ze_mat4_t view_proj(const scene_t *sc)
{
    return ze_mat4_mul(sc->s.camera.projection, sc->s.camera.view);
}

static void xform(const ze_mat4_t *m, const float p[3], float out[4])
{
    for (int r = 0; r < 4; r++)
        out[r] = m->m[0][r] * p[0] + m->m[1][r] * p[1] + m->m[2][r] * p[2] + m->m[3][r];
}

static float edge(const float a[2], const float b[2], const float c[2])
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* The instance's triangles into `depth` (W x H, nearest kept). */
static void raster(const fixture_t *f, const ze_mat4_t *vp, const ze_mat4_t *world, float *depth)
{
    const ze_zemesh_view_t *m = &f->mesh.as.mesh;
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(m, 0, &sm);
    ze_mat4_t mvp = ze_mat4_mul(*vp, *world);
    for (uint32_t t = 0; t + 2 < sm.index_count; t += 3) {
        float v[3][2], z[3];
        bool ok = true;
        for (int k = 0; k < 3; k++) {
            uint32_t idx = m->indices[sm.index_offset + t + (uint32_t)k];
            const float *p = (const float *)(m->vertices + (size_t)idx * m->vertex_stride +
                                             m->attribute_offset[ZE_VATTR_POSITION]);
            float c[4];
            xform(&mvp, p, c);
            ok &= c[3] > 1e-4f;
            v[k][0] = (c[0] / c[3] * 0.5f + 0.5f) * (float)W;
            v[k][1] = (c[1] / c[3] * 0.5f + 0.5f) * (float)H;
            z[k] = c[2] / c[3];
        }
        float area = edge(v[0], v[1], v[2]);
        if (!ok || fabsf(area) < 1e-12f)
            continue;
        float x0 = fminf(v[0][0], fminf(v[1][0], v[2][0])),
              x1 = fmaxf(v[0][0], fmaxf(v[1][0], v[2][0]));
        float y0 = fminf(v[0][1], fminf(v[1][1], v[2][1])),
              y1 = fmaxf(v[0][1], fmaxf(v[1][1], v[2][1]));
        int px0 = (int)fmaxf(0.0f, floorf(x0)), px1 = (int)fminf((float)W - 1, ceilf(x1));
        int py0 = (int)fmaxf(0.0f, floorf(y0)), py1 = (int)fminf((float)H - 1, ceilf(y1));
        for (int py = py0; py <= py1; py++)
            for (int px = px0; px <= px1; px++) {
                float c[2] = {(float)px + 0.5f, (float)py + 0.5f};
                float w0 = edge(v[1], v[2], c) / area, w1 = edge(v[2], v[0], c) / area;
                float w2 = 1.0f - w0 - w1;
                if (w0 < 0.0f || w1 < 0.0f || w2 < 0.0f)
                    continue;
                float d = w0 * z[0] + w1 * z[1] + w2 * z[2];
                float *o = &depth[py * W + px];
                if (d >= 0.0f && d <= 1.0f && d < *o)
                    *o = d;
            }
    }
}

/* A depth image pushed back (sign > 0: each pixel the farthest of its 3x3
   neighbours, plus a little) or pulled forward (< 0). */
static void perturb(const float *in, float *out, int sign)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float v = in[y * W + x];
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    float n = xx >= 0 && xx < W && yy >= 0 && yy < H ? in[yy * W + xx] : 1.0f;
                    v = sign > 0 ? fmaxf(v, n) : fminf(v, n);
                }
            v += sign > 0 ? 2e-5f : -2e-5f;
            out[y * W + x] = fminf(1.0f, fmaxf(0.0f, v));
        }
}

typedef struct pyramid_t {
    ze_hzb_t z;
    float *texels; /* every level, one after another */
} pyramid_t;

static void pyramid_make(const fixture_t *f, const float *depth, pyramid_t *p)
{
    ze_hzb_t *z = &p->z;
    memset(z, 0, sizeof *z);
    z->depth_width = W;
    z->depth_height = H;
    z->levels = ze__hzb_levels(W, H, z->width, z->height);
    assert_true(z->levels > 0);
    size_t total = 0;
    for (uint32_t i = 0; i < z->levels; i++)
        total += (size_t)z->width[i] * z->height[i];
    p->texels = ze_alloc(f->alloc, total * sizeof(float), 16);
    assert_non_null(p->texels);
    float *at = p->texels;
    const float *src = depth;
    uint32_t sw = W, sh = H;
    for (uint32_t i = 0; i < z->levels; i++) {
        ze__hzb_reduce(src, sw, sh, at, z->width[i], z->height[i]);
        z->texels[i] = at;
        src = at;
        sw = z->width[i];
        sh = z->height[i];
        at += (size_t)sw * sh;
    }
}

static void pyramid_free(const fixture_t *f, pyramid_t *p)
{
    size_t total = 0;
    for (uint32_t i = 0; i < p->z.levels; i++)
        total += (size_t)p->z.width[i] * p->z.height[i];
    ze_free(f->alloc, p->texels, total * sizeof(float));
}

/* The two pyramids of a set of instances' depth: pushed back, pulled forward. */
typedef struct bounds_t {
    pyramid_t far, near;
} bounds_t;

static void bounds_make(const fixture_t *f, const scene_t *sc, const bool *skip,
                        const ze_mat4_t *vp, bounds_t *out)
{
    static float depth[W * H], moved[W * H];
    for (int i = 0; i < W * H; i++)
        depth[i] = 1.0f;
    for (uint32_t i = 0; i < sc->n; i++)
        if (!skip || !skip[i])
            raster(f, vp, &sc->inst[i].world, depth);
    perturb(depth, moved, +1);
    pyramid_make(f, moved, &out->far);
    perturb(depth, moved, -1);
    pyramid_make(f, moved, &out->near);
}

static void bounds_free(const fixture_t *f, bounds_t *b)
{
    pyramid_free(f, &b->far);
    pyramid_free(f, &b->near);
}

/* 1: occluded beyond doubt, 0: visible beyond doubt, -1: too close to call. */
static int decide(const fixture_t *f, const bounds_t *b, const ze_mat4_t *vp,
                  const ze_render_instance_t *inst)
{
    float c[4], vpm[16];
    xform(&inst->world, f->centre, c);
    float s = 0.0f;
    for (int col = 0; col < 3; col++) {
        const float *m = inst->world.m[col];
        s = fmaxf(s, sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]));
    }
    float r = f->radius * s;
    memcpy(vpm, vp, sizeof vpm);
    if (ze__hzb_occluded(&b->far.z, vpm, c, r * 1.01f))
        return 1;
    if (!ze__hzb_occluded(&b->near.z, vpm, c, r * 0.99f))
        return 0;
    return -1;
}

/* The GPU's second frame, replayed: `prev` drawn the frame before (all of
 * it: a first frame has no history), `sc` this frame, one camera. Returns
 * the occlusion-culled count, or -1 (and *unclear: an instance) when a
 * decision is too close to call; *rescued: candidates drawn late. */
static int replay(const fixture_t *f, const scene_t *prev, const scene_t *sc, uint32_t *unclear,
                  uint32_t *rescued)
{
    ze_mat4_t vp = view_proj(sc);
    bounds_t before;
    bounds_make(f, prev, NULL, &vp, &before);
    static bool cand[MAX_INST];
    int result = 0;
    for (uint32_t i = 0; i < sc->n && result >= 0; i++) {
        int d = decide(f, &before, &vp, &sc->inst[i]);
        cand[i] = d == 1;
        if (d < 0) {
            *unclear = i;
            result = -1;
        }
    }
    bounds_free(f, &before);
    if (result < 0)
        return -1;
    bounds_t early;
    bounds_make(f, sc, cand, &vp, &early); /* the early draws' depth */
    *rescued = 0;
    for (uint32_t i = 0; i < sc->n && result >= 0; i++) {
        if (!cand[i])
            continue;
        int d = decide(f, &early, &vp, &sc->inst[i]);
        if (d < 0) {
            *unclear = i;
            result = -1;
        } else {
            result += d;
            *rescued += d == 0;
        }
    }
    bounds_free(f, &early);
    return result;
}

/* Instances too close to call leave both scenes until none is. */
static uint32_t settle(const fixture_t *f, scene_t *prev, scene_t *sc, uint32_t *rescued)
{
    assert_int_equal(prev->n, sc->n);
    for (;;) {
        uint32_t unclear = 0;
        int n = replay(f, prev, sc, &unclear, rescued);
        if (n >= 0)
            return (uint32_t)n;
        scene_remove(prev, unclear);
        scene_remove(sc, unclear);
    }
}

/* ------------------------------------------------------------ frames */

static void frame(ze_render_backend_t *b, scene_t *sc)
{
    ze_render_state_set_instances(&sc->s, sc->inst, sc->n);
    sc->s.frame++;
    assert_int_equal(ze_render_backend_frame(b, &sc->s), ZE_OK);
}

/* `prev` then `sc` with `mode`; the pixels and the statistics of the second. */
static ze_render_stats_t two_frames(fixture_t *f, ze_render_cull_mode mode, scene_t *prev,
                                    scene_t *sc, uint8_t *px)
{
    ze_render_backend_t *b = make(f, mode);
    frame(b, prev);
    sc->s.frame = prev->s.frame;
    frame(b, sc);
    assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    vk_expect_no_messages(st.validation_messages);
    ze_render_backend_destroy(b);
    return st;
}

/* The reference's count, which the GPU matched. */
static uint32_t check(fixture_t *f, scene_t *prev, scene_t *sc, const char *what, uint32_t *rescued)
{
    uint32_t want = settle(f, prev, sc, rescued);
    static uint8_t on[W * H * 4], off[W * H * 4];
    ze_render_stats_t st = two_frames(f, ZE_RENDER_CULL_DEFAULT, prev, sc, on);
    ze_render_stats_t st_off = two_frames(f, ZE_RENDER_CULL_NONE, prev, sc, off);
    print_message("%s: %u instances, %u drawn, %u occlusion-culled (reference %u, %u drawn "
                  "late), %u frustum-culled\n",
                  what, sc->n, st.last_draws_visible, st.last_draws_occlusion_culled, want,
                  *rescued, st.last_draws_frustum_culled);
    assert_int_equal(st.last_draws, sc->n);
    assert_int_equal(st.last_draws_frustum_culled, 0);
    assert_int_equal(st.last_draws_occlusion_culled, want);
    assert_int_equal(st.last_draws_visible, sc->n - want);
    assert_int_equal(st_off.last_draws_visible, sc->n);
    size_t differ = 0;
    for (size_t i = 0; i < sizeof on; i++)
        differ += on[i] != off[i];
    assert_int_equal(differ, 0);
    return want;
}

/* -------------------------------------------------------------- tests */

/* Three large spheres in front of 300 small ones scattered through the
 * view (inside the frustum, 8 to 19 units away): the hidden ones culled,
 * exactly as many as the reference says, at least a tenth of them. */
static void test_static_scene_culls_hidden_instances(void **state)
{
    fixture_t *f = *state;
    static scene_t sc, prev;
    scene_init(&sc);
    for (int k = -1; k <= 1; k++)
        scene_add(&sc, on_screen(0.45f * (float)k, 0.05f * (float)k, 4.0f), 0.8f);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x0CC1);
    while (sc.n < 303) {
        float nx = (float)ze_rng_below(&rng, 1000) / 1000.0f * 1.7f - 0.85f;
        float ny = (float)ze_rng_below(&rng, 1000) / 1000.0f * 1.7f - 0.85f;
        float d = 8.0f + (float)ze_rng_below(&rng, 1000) / 1000.0f * 11.0f;
        scene_add(&sc, on_screen(nx, ny, d), 0.12f);
    }
    prev = sc;
    uint32_t rescued = 0;
    uint32_t culled = check(f, &prev, &sc, "static", &rescued);
    assert_true(sc.n > 250); /* few were too close to call */
    assert_true(culled >= sc.n / 10 && culled < sc.n);
    assert_int_equal(rescued, 0); /* nothing moved: no candidate is drawn late */
}

/* The occluder moves between the frames: the previous frame's pyramid hides
 * instances this frame shows; they are drawn late, and the picture is
 * still culling off's. */
static void test_moved_occluder_draws_late(void **state)
{
    fixture_t *f = *state;
    static scene_t sc, prev;
    scene_init(&prev);
    scene_add(&prev, on_screen(-0.3f, 0.0f, 4.0f), 1.0f);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x0CC2);
    while (prev.n < 201) {
        float nx = (float)ze_rng_below(&rng, 1000) / 1000.0f * 1.2f - 0.6f;
        float ny = (float)ze_rng_below(&rng, 1000) / 1000.0f * 1.2f - 0.6f;
        float d = 9.0f + (float)ze_rng_below(&rng, 1000) / 1000.0f * 8.0f;
        scene_add(&prev, on_screen(nx, ny, d), 0.1f);
    }
    sc = prev;
    sc.inst[0].world = ze_mat4_from_trs(on_screen(0.3f, 0.0f, 4.0f), (ze_quat_t){0, 0, 0, 1},
                                        (ze_vec3_t){1.0f, 1.0f, 1.0f});
    uint32_t rescued = 0;
    check(f, &prev, &sc, "moved occluder", &rescued);
    assert_true(sc.n > 150);
    assert_true(rescued > 0); /* the late pass drew something */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_scene_culls_hidden_instances),
        cmocka_unit_test(test_moved_occluder_draws_late),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
