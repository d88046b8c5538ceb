/* GPU frustum culling (the cull pass, vk_pass_cull.c) against a CPU
 * reference, on whatever device the Vulkan backend picks (lavapipe in CI)
 * with the validation layer on, synchronization validation too in the dev
 * preset: zero messages allowed.
 *
 * The contract: a draw (an instance x a submesh) is drawn unless the
 * bounding sphere of its submesh's box (centre, half-diagonal; through the
 * world matrix: the centre transformed, the radius scaled by the largest
 * axis scale) lies entirely behind one of the six planes of the view
 * frustum. The reference here computes the same in double precision from
 * the camera's matrices; instances are placed a small margin (1 % of the
 * radius) from the decision so float rounding cannot flip one.
 *   - for each plane, a sphere just outside is culled, just inside drawn;
 *   - random scenes (placements near random planes, rotations, non-uniform
 *     scales): the visible count equals the reference's;
 *   - culling on and off give the same picture (culled instances were
 *     outside the view: nothing visible is lost), with occlusion culling
 *     too (its own reference: test_vk_occlusion);
 *   - the candidate buffers grow (a few draws, then hundreds);
 *   - no camera: nothing is drawn;
 * and the rasteriser's face culling: back faces of single-sided materials
 * are culled, with the winding flipped for a mirrored instance (a
 * negative determinant: it looks like the unmirrored one, not like its
 * inside), none for double-sided materials (seen from inside a sphere:
 * single-sided shows nothing, double-sided its inner wall). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/sphere_gltf.h"
#include "gfx/vk_internal.h"
#include "gfx/vk_messages.h"
#include "zengine/gfx.h"

enum { W = 96, H = 64 };

static const ze_vec3_t EYE = {0.0f, 0.5f, 5.0f};
static const float FOV = 0.9f, NEAR = 0.1f, FAR = 40.0f;

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
    uint8_t *mesh_bytes, *lod_bytes;
    size_t mesh_size, lod_size;
    ze_asset_data_t mesh, material, double_sided, lod_mesh;
    double centre[3], radius; /* the submesh's bounding sphere, local */
} fixture_t;

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0xC1;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
#if !defined(ZE_SANITIZER_ADDRESS)
    setenv("ZENGINE_VK_SYNC_VALIDATION", "1", 1); /* the cull -> draw barriers checked */
#endif
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_ASSET);
    if (!sphere_assets(f.alloc, false, uuid_n(1), uuid_n(2), &f.mesh_bytes, &f.mesh_size, &f.mesh,
                       &f.material))
        return -1;
    ze_asset_data_t lod_material;
    if (!sphere_assets_lods(f.alloc, false, 4, uuid_n(4), uuid_n(2), &f.lod_bytes, &f.lod_size,
                            &f.lod_mesh, &lod_material))
        return -1;
    f.double_sided = f.material;
    f.double_sided.uuid = uuid_n(3);
    f.double_sided.as.material.uuid = f.double_sided.uuid;
    f.double_sided.as.material.double_sided = true;
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(&f.mesh.as.mesh, 0, &sm);
    double half[3] = {((double)sm.max.x - sm.min.x) / 2, ((double)sm.max.y - sm.min.y) / 2,
                      ((double)sm.max.z - sm.min.z) / 2};
    f.centre[0] = ((double)sm.min.x + sm.max.x) / 2;
    f.centre[1] = ((double)sm.min.y + sm.max.y) / 2;
    f.centre[2] = ((double)sm.min.z + sm.max.z) / 2;
    f.radius = sqrt(half[0] * half[0] + half[1] * half[1] + half[2] * half[2]);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_free(f->alloc, f->mesh_bytes, f->mesh_size);
    ze_free(f->alloc, f->lod_bytes, f->lod_size);
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
    assert_int_equal(ze_render_backend_asset_ready(b, &f->double_sided), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &f->lod_mesh), ZE_OK);
    return b;
}

/* ------------------------------------------------------------ scene */

typedef struct scene_t {
    ze_render_instance_t *inst;
    uint32_t cap;
    ze_render_light_t sun;
    ze_render_state_t s;
} scene_t;

static void scene_init(fixture_t *f, scene_t *sc, uint32_t cap)
{
    memset(sc, 0, sizeof *sc);
    sc->cap = cap;
    sc->inst = ZE_NEW_ARRAY(f->alloc, ze_render_instance_t, cap);
    assert_non_null(sc->inst);
    sc->sun = (ze_render_light_t){.type = ZE_RENDER_LIGHT_DIRECTIONAL,
                                  .intensity = 3.0f,
                                  .color = {1, 1, 1},
                                  .direction = {-0.48f, -0.64f, -0.6f}};
    ze_render_state_t *s = &sc->s;
    s->width = W;
    s->height = H;
    s->has_camera = true;
    s->sky = (ze_render_sky_t){.clear_color = {0.1f, 0.12f, 0.2f}, .exposure = 1.0f};
    s->instance_updates = sc->inst;
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

static void scene_free(fixture_t *f, scene_t *sc)
{
    ze_free(f->alloc, sc->inst, sizeof *sc->inst * sc->cap);
}

static void scene_add(scene_t *sc, ze_mat4_t world)
{
    assert_true(sc->s.instance_update_count < sc->cap);
    uint32_t i = sc->s.instance_update_count++;
    sc->inst[i] = (ze_render_instance_t){.world = world, .mesh = uuid_n(1), .id = i + 1};
}

/* Render the scene twice, then read the pixels: the GPU is idle after it,
 * so the statistics are the last frame's. */
static ze_render_stats_t render(ze_render_backend_t *b, scene_t *sc, uint8_t *px)
{
    ze_render_state_set_instances(&sc->s, sc->inst, sc->s.instance_update_count);
    for (int i = 0; i < 2; i++) {
        sc->s.frame++;
        assert_int_equal(ze_render_backend_frame(b, &sc->s), ZE_OK);
    }
    static uint8_t scratch[W * H * 4];
    assert_int_equal(ze__vk_test_pixels(b, px ? px : scratch, sizeof scratch), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    vk_expect_no_messages(st.validation_messages);
    return st;
}

/* -------------------------------------------------------- reference */

typedef struct frustum_t {
    double p[6][4]; /* inward, normalised: inside when dot(n, x) + d >= 0 */
} frustum_t;

/* Clip space -w <= x, y <= w, 0 <= z <= w of M = P V, as half-spaces of
 * world space: row 3 +- row 0, row 3 +- row 1, row 2, row 3 - row 2. */
static frustum_t frustum_of(const ze_render_state_t *s)
{
    double m[4][4] = {{0}}; /* m[row][col] = (P V)[row][col] */
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            for (int k = 0; k < 4; k++)
                m[r][c] += (double)s->camera.projection.m[k][r] * (double)s->camera.view.m[c][k];
    frustum_t f;
    for (int c = 0; c < 4; c++) {
        f.p[0][c] = m[3][c] + m[0][c];
        f.p[1][c] = m[3][c] - m[0][c];
        f.p[2][c] = m[3][c] + m[1][c];
        f.p[3][c] = m[3][c] - m[1][c];
        f.p[4][c] = m[2][c];
        f.p[5][c] = m[3][c] - m[2][c];
    }
    for (int i = 0; i < 6; i++) {
        double l = sqrt(f.p[i][0] * f.p[i][0] + f.p[i][1] * f.p[i][1] + f.p[i][2] * f.p[i][2]);
        for (int c = 0; c < 4; c++)
            f.p[i][c] /= l;
    }
    return f;
}

static double plane_distance(const frustum_t *fr, int i, const double x[3])
{
    return fr->p[i][0] * x[0] + fr->p[i][1] * x[1] + fr->p[i][2] * x[2] + fr->p[i][3];
}

/* The world sphere of an instance: centre, radius. */
static void world_sphere(const fixture_t *f, const ze_mat4_t *w, double c[3], double *r)
{
    for (int k = 0; k < 3; k++)
        c[k] = w->m[0][k] * f->centre[0] + w->m[1][k] * f->centre[1] + w->m[2][k] * f->centre[2] +
               w->m[3][k];
    double s = 0.0;
    for (int col = 0; col < 3; col++) {
        double l = sqrt((double)w->m[col][0] * w->m[col][0] + (double)w->m[col][1] * w->m[col][1] +
                        (double)w->m[col][2] * w->m[col][2]);
        s = l > s ? l : s;
    }
    *r = f->radius * s;
}

/* Visible by the reference; *margin: how far (in radii) the closest plane
 * decision is from flipping. */
static bool reference_visible(const fixture_t *f, const frustum_t *fr, const ze_mat4_t *w,
                              double *margin)
{
    double c[3], r;
    world_sphere(f, w, c, &r);
    bool vis = true;
    double closest = INFINITY;
    for (int i = 0; i < 6; i++) {
        double d = plane_distance(fr, i, c) + r; /* < 0: entirely behind */
        vis &= d >= 0.0;
        closest = fabs(d) / r < closest ? fabs(d) / r : closest;
    }
    *margin = closest;
    return vis;
}

static uint32_t reference_count(const fixture_t *f, const scene_t *sc)
{
    frustum_t fr = frustum_of(&sc->s);
    uint32_t n = 0;
    for (uint32_t i = 0; i < sc->s.instance_update_count; i++) {
        double margin;
        n += reference_visible(f, &fr, &sc->inst[i].world, &margin);
    }
    return n;
}

/* The instanced commands the GPU should issue for a scene of the 1-level
 * mesh: one per face class with visible draws (double-sided material,
 * mirrored world matrix, plain). */
static uint32_t reference_commands(const fixture_t *f, const scene_t *sc)
{
    frustum_t fr = frustum_of(&sc->s);
    ze_uuid_t two_sided = uuid_n(3);
    bool used[3] = {false, false, false};
    for (uint32_t i = 0; i < sc->s.instance_update_count; i++) {
        const ze_render_instance_t *in = &sc->inst[i];
        double margin;
        if (!reference_visible(f, &fr, &in->world, &margin))
            continue;
        const float(*m)[4] = in->world.m;
        double det = m[0][0] * ((double)m[1][1] * m[2][2] - (double)m[1][2] * m[2][1]) -
                     m[1][0] * ((double)m[0][1] * m[2][2] - (double)m[0][2] * m[2][1]) +
                     m[2][0] * ((double)m[0][1] * m[1][2] - (double)m[0][2] * m[1][1]);
        used[ze_uuid_eq(in->material, two_sided) ? 2 : det < 0 ? 1 : 0] = true;
    }
    return (uint32_t)used[0] + used[1] + used[2];
}

/* The 1-level mesh's triangles. */
static uint32_t sphere_triangles(const fixture_t *f)
{
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(&f->mesh.as.mesh, 0, &sm);
    return sm.index_count / 3;
}

static ze_mat4_t at(const double c[3], float scale)
{
    /* the sphere's local centre is (about) the origin: place that point */
    return ze_mat4_from_trs((ze_vec3_t){(float)c[0], (float)c[1], (float)c[2]},
                            (ze_quat_t){0, 0, 0, 1}, (ze_vec3_t){scale, scale, scale});
}

/* -------------------------------------------------------------- tests */

/* For each plane: a sphere whose near side is 1 % of its radius beyond the
 * plane is culled; one that reaches 1 % across it is drawn. */
static void test_each_plane_just_outside_and_inside(void **state)
{
    fixture_t *f = *state;
    static const char *const names[6] = {"left", "right", "bottom", "top", "near", "far"};
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_DEFAULT);
    scene_t sc;
    scene_init(f, &sc, 4);
    frustum_t fr = frustum_of(&sc.s);
    const float scale = 0.3f;
    double r = f->radius * scale;
    /* a point well inside: on the view axis, 8 units in front of the eye */
    double eye[3] = {EYE.x, EYE.y, EYE.z},
           len = sqrt(EYE.x * EYE.x + EYE.y * EYE.y + EYE.z * EYE.z);
    double inner[3];
    for (int k = 0; k < 3; k++)
        inner[k] = eye[k] - eye[k] / len * 8.0;
    for (int i = 0; i < 6; i++) {
        for (int outside = 0; outside < 2; outside++) {
            /* onto plane i along its normal, then out (or in) */
            double d = plane_distance(&fr, i, inner);
            double along = outside ? -(r * 1.01) : -(r * 0.99);
            double c[3];
            for (int k = 0; k < 3; k++)
                c[k] = inner[k] - fr.p[i][k] * d + fr.p[i][k] * along;
            sc.s.instance_update_count = 0;
            scene_add(&sc, at(c, scale));
            double margin;
            bool want = reference_visible(f, &fr, &sc.inst[0].world, &margin);
            assert_int_equal(want, !outside); /* the placement is what it says */
            ze_render_stats_t st = render(b, &sc, NULL);
            print_message("%-6s plane, just %s: %u of %u drawn\n", names[i],
                          outside ? "outside" : "inside ", st.last_draws_visible, st.last_draws);
            assert_int_equal(st.last_draws, 1);
            assert_int_equal(st.last_draws_visible, want ? 1 : 0);
            assert_int_equal(st.last_draws_frustum_culled, want ? 0 : 1);
        }
    }
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

static float uniform(ze_rng_t *rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)ze_rng_unit(rng);
}

/* Random scenes: half the instances straddle a random plane (within two
 * radii of it), the rest anywhere in a box around the frustum; random
 * rotations and non-uniform scales, a third mirrored and a third
 * double-sided (the three face classes are culled as three ranges of one
 * dispatch). The GPU's count equals the reference's. */
static void test_random_scenes_match_reference(void **state)
{
    fixture_t *f = *state;
    enum { SCENES = 4, N = 250 };
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_FRUSTUM); /* occlusion: test_vk_occlusion */
    scene_t sc;
    scene_init(f, &sc, N);
    frustum_t fr = frustum_of(&sc.s);
    ze_rng_t rng;
    ze_rng_seed(&rng, 0xC0111);
    for (int scene = 0; scene < SCENES; scene++) {
        sc.s.instance_update_count = 0;
        while (sc.s.instance_update_count < N) {
            ze_vec3_t axis = {uniform(&rng, -1, 1), uniform(&rng, -1, 1), uniform(&rng, -1, 1)};
            if (ze_vec3_length(axis) < 1e-3f)
                continue;
            ze_quat_t q = ze_quat_from_axis_angle(ze_vec3_normalize(axis), uniform(&rng, 0, 6.3f));
            ze_vec3_t s = {uniform(&rng, 0.1f, 0.6f), uniform(&rng, 0.1f, 0.6f),
                           uniform(&rng, 0.1f, 0.6f)};
            double c[3];
            if (ze_rng_below(&rng, 2)) {
                /* near plane i: a point inside, moved to within 2 radii of it */
                double inner[3] = {uniform(&rng, -2, 2), uniform(&rng, -1.5f, 1.5f),
                                   uniform(&rng, -20, 2)};
                int i = (int)ze_rng_below(&rng, 6);
                double d = plane_distance(&fr, i, inner);
                double smax = fmax(s.x, fmax(s.y, s.z)) * f->radius;
                double off = uniform(&rng, -2.0f, 2.0f) * smax;
                for (int k = 0; k < 3; k++)
                    c[k] = inner[k] - fr.p[i][k] * d + fr.p[i][k] * off;
            } else {
                c[0] = uniform(&rng, -25, 25);
                c[1] = uniform(&rng, -20, 20);
                c[2] = uniform(&rng, -45, 8);
            }
            ze_mat4_t w =
                ze_mat4_from_trs((ze_vec3_t){(float)c[0], (float)c[1], (float)c[2]}, q, s);
            double margin;
            (void)reference_visible(f, &fr, &w, &margin);
            if (margin < 0.01)
                continue;                   /* too close to call in float: placed again */
            if (ze_rng_below(&rng, 3) == 0) /* mirrored: x scale negated */
                for (int k = 0; k < 4; k++)
                    w.m[0][k] = -w.m[0][k];
            scene_add(&sc, w);
            if (ze_rng_below(&rng, 3) == 0)
                sc.inst[sc.s.instance_update_count - 1].material = uuid_n(3); /* double-sided */
        }
        uint32_t want = reference_count(f, &sc);
        ze_render_stats_t st = render(b, &sc, NULL);
        print_message("scene %d: %u of %u drawn (reference %u)\n", scene, st.last_draws_visible,
                      st.last_draws, want);
        assert_int_equal(st.last_draws, N);
        assert_int_equal(st.last_draws_visible, want);
        assert_true(want > 0 && want < N); /* both outcomes occur */
        /* instanced: one command per face class in view, every drawn
           sphere's triangles */
        uint32_t commands = reference_commands(f, &sc);
        print_message("  %u instanced commands (reference %u), %llu triangles\n",
                      st.last_draw_commands, commands, (unsigned long long)st.last_triangles);
        assert_int_equal(st.last_draw_commands, commands);
        assert_int_equal(st.last_triangles, (uint64_t)want * sphere_triangles(f));
    }
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

/* Culling removes only what could not be seen: the same picture with
 * culling on and off, with instances in view, across its edges and out of
 * it. */
static void test_culling_on_and_off_same_image(void **state)
{
    fixture_t *f = *state;
    scene_t sc;
    scene_init(f, &sc, 64);
    for (int x = -6; x <= 6; x++)
        for (int z = 0; z < 4; z++) {
            double c[3] = {x * 1.1, -0.4 + 0.3 * (x & 1), -z * 3.0};
            scene_add(&sc, at(c, 0.5f));
        }
    double behind[3] = {0, 0, 9}; /* behind the camera */
    scene_add(&sc, at(behind, 0.5f));
    static uint8_t on[W * H * 4], off[W * H * 4], occ[W * H * 4];
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_NONE);
    ze_render_stats_t st_off = render(b, &sc, off);
    ze_render_backend_destroy(b);
    b = make(f, ZE_RENDER_CULL_FRUSTUM);
    ze_render_stats_t st_on = render(b, &sc, on);
    ze_render_backend_destroy(b);
    b = make(f, ZE_RENDER_CULL_DEFAULT); /* and occlusion culling */
    ze_render_stats_t st_occ = render(b, &sc, occ);
    ze_render_backend_destroy(b);
    assert_int_equal(st_occ.last_draws_frustum_culled, st_on.last_draws_frustum_culled);
    assert_int_equal(st_occ.last_draws_visible + st_occ.last_draws_occlusion_culled,
                     st_on.last_draws_visible);
    assert_memory_equal(occ, off, sizeof off);
    print_message("culling off: %u of %u drawn; on: %u of %u drawn (reference %u)\n",
                  st_off.last_draws_visible, st_off.last_draws, st_on.last_draws_visible,
                  st_on.last_draws, reference_count(f, &sc));
    assert_int_equal(st_off.last_draws_visible, sc.s.instance_update_count);
    assert_int_equal(st_off.last_draws_frustum_culled, 0);
    assert_int_equal(st_on.last_draws_visible, reference_count(f, &sc));
    assert_true(st_on.last_draws_frustum_culled > 0);
    size_t differ = 0;
    for (size_t i = 0; i < sizeof on; i++)
        differ += on[i] != off[i];
    assert_int_equal(differ, 0);
    /* and something was drawn: not the clear colour everywhere */
    size_t lit = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        lit += memcmp(&on[i * 4], &on[0], 3) != 0;
    assert_true(lit > (size_t)W * H / 20);
    scene_free(f, &sc);
}

/* The visible-draw buffers grow with the candidates (64 at first, doubled
 * as needed): a few draws, then hundreds, then a few again. No camera:
 * nothing drawn. (Hundreds, not thousands: each is a 4,096-triangle
 * sphere, and lavapipe on a loaded CI core draws a few million a second.) */
static void test_growth_and_no_camera(void **state)
{
    fixture_t *f = *state;
    enum { MANY = 700 };
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_DEFAULT);
    scene_t sc;
    scene_init(f, &sc, MANY);
    const uint32_t sizes[] = {3, MANY, 5};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        sc.s.instance_update_count = 0;
        for (uint32_t i = 0; i < sizes[k]; i++) {
            /* a grid in front of the camera, every other one off to the side */
            double c[3] = {(i % 2) ? 30.0 + (i % 50) : (double)(i % 50) * 0.02 - 0.5,
                           (double)((i / 50) % 30) * 0.04 - 0.3, -1.0 - (double)(i / 350)};
            scene_add(&sc, at(c, 0.02f));
        }
        uint32_t want = reference_count(f, &sc);
        ze_render_stats_t st = render(b, &sc, NULL);
        print_message("%u candidates: %u drawn (reference %u)\n", sizes[k], st.last_draws_visible,
                      want);
        assert_int_equal(st.last_draws, sizes[k]);
        assert_int_equal(st.last_draws_visible, want);
    }
    sc.s.has_camera = false;
    ze_render_stats_t st = render(b, &sc, NULL);
    assert_int_equal(st.last_draws, 0);
    assert_int_equal(st.last_draws_visible, 0);
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

static size_t clear_pixels(const uint8_t *px, const uint8_t *clear)
{
    size_t n = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        n += memcmp(&px[i * 4], clear, 3) == 0;
    return n;
}

/* A mirrored single-sided sphere looks like the unmirrored one (the mesh
 * is symmetric in x): its front faces are clockwise now, and culling them
 * as back faces would show its inside, shaded like a bowl. */
static void test_mirrored_instance_keeps_its_front_faces(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_DEFAULT);
    scene_t sc;
    scene_init(f, &sc, 1);
    static uint8_t plain[W * H * 4], mirrored[W * H * 4];
    ze_mat4_t w = ze_mat4_from_trs((ze_vec3_t){0, 0, 0}, (ze_quat_t){0, 0, 0, 1},
                                   (ze_vec3_t){1.5f, 1.5f, 1.5f});
    scene_add(&sc, w);
    render(b, &sc, plain);
    sc.inst[0].world = ze_mat4_from_trs((ze_vec3_t){0, 0, 0}, (ze_quat_t){0, 0, 0, 1},
                                        (ze_vec3_t){-1.5f, 1.5f, 1.5f});
    render(b, &sc, mirrored);
    uint64_t sum = 0, differing = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        int worst = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)plain[i * 4 + c] - (int)mirrored[i * 4 + c]);
            sum += (uint64_t)d;
            worst = d > worst ? d : worst;
        }
        differing += worst > 8;
    }
    double mean = (double)sum / ((double)W * H * 3);
    print_message("mirrored vs plain: %llu pixels differ by more than 8, mean %.3f; sphere covers "
                  "%zu pixels\n",
                  (unsigned long long)differing, mean, (size_t)W * H - clear_pixels(plain, plain));
    assert_true((size_t)W * H - clear_pixels(plain, plain) > (size_t)W * H / 10);
    assert_true(differing * 200 < (uint64_t)W * H);
    assert_true(mean < 1.0);
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

/* From inside a sphere: single-sided, every face is a back face (nothing
 * drawn but the sky); double-sided, the inner wall fills the view. */
static void test_inside_a_sphere_single_and_double_sided(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_DEFAULT);
    scene_t sc;
    scene_init(f, &sc, 1);
    static uint8_t px[W * H * 4];
    ze_mat4_t w = ze_mat4_from_trs(EYE, (ze_quat_t){0, 0, 0, 1}, (ze_vec3_t){4, 4, 4});
    scene_add(&sc, w);
    sc.sun.direction = (ze_vec3_t){0, 0, -1}; /* the wall the camera faces is lit from behind it */
    ze_render_stats_t st = render(b, &sc, px);
    assert_int_equal(st.last_draws_visible, 1); /* the camera is inside: not frustum-culled */
    uint8_t clear[3];
    memcpy(clear, px, 3);
    size_t single = clear_pixels(px, clear);
    sc.inst[0].material = uuid_n(3);
    render(b, &sc, px);
    size_t both = clear_pixels(px, clear);
    print_message("inside a sphere: %zu of %u pixels show the sky single-sided, %zu "
                  "double-sided\n",
                  single, W * H, both);
    assert_int_equal(single, (size_t)W * H);
    assert_true(both < (size_t)W * H / 100);
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

/* Levels of detail: random spheres of the 4-level mesh at random
 * distances and scales in view; the visible draws per level the cull pass
 * counts equal ze_render_lod_select's choices (the CPU reference) for the
 * same spheres, with spheres whose choice sits within 1 % of a level's
 * threshold (where float order may flip it) drawn again elsewhere. The
 * 1-level mesh always draws level 0. */
static void test_lod_choice_matches_reference(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, ZE_RENDER_CULL_FRUSTUM);
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(&f->lod_mesh.as.mesh, 0, &sm);
    print_message("LOD mesh: %u levels, errors", sm.lod_count);
    float err[ZE_RENDER_LOD_MAX] = {0};
    for (uint32_t l = 0; l < sm.lod_count; l++) {
        err[l] = sm.lods[l].error;
        print_message(" %g (%u indices)", (double)err[l], sm.lods[l].index_count);
    }
    print_message("\n");
    assert_true(sm.lod_count >= 3);
    enum { N = 400 };
    scene_t sc;
    scene_init(f, &sc, N + 1);
    frustum_t fr = frustum_of(&sc.s);
    float proj = fabsf(sc.s.camera.projection.m[1][1]) * (float)H * 0.5f;
    uint32_t want[ZE_RENDER_LOD_MAX] = {0};
    uint64_t triangles = 0;
    ze_rng_t rng;
    ze_rng_seed(&rng, 0x10D5u);
    double dir[3] = {-EYE.x, -EYE.y, -EYE.z};
    double dl = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int k = 0; k < 3; k++)
        dir[k] /= dl;
    uint32_t tries = 0;
    while (sc.s.instance_update_count < N) {
        assert_true(++tries < 100 * N);
        double d = 1.0 + 6.0 * (double)uniform(&rng, 0, 1);
        float scale = (float)(0.3 + 1.7 * (double)uniform(&rng, 0, 1));
        double c[3] = {EYE.x + dir[0] * d + ((double)uniform(&rng, 0, 1) - 0.5) * 0.4 * d,
                       EYE.y + dir[1] * d + ((double)uniform(&rng, 0, 1) - 0.5) * 0.3 * d,
                       EYE.z + dir[2] * d};
        ze_mat4_t w = at(c, scale);
        double margin;
        if (!reference_visible(f, &fr, &w, &margin) || margin < 0.01)
            continue;
        double wc[3], r;
        world_sphere(f, &w, wc, &r);
        double dx = wc[0] - EYE.x, dy = wc[1] - EYE.y, dz = wc[2] - EYE.z;
        float dist = (float)sqrt(dx * dx + dy * dy + dz * dz);
        bool tie = false;
        for (uint32_t l = 1; l < sm.lod_count; l++) {
            double px = err[l] * scale * proj / fmax(dist - r, 1e-4);
            tie |= fabs(px - 1.0) < 0.01;
        }
        if (tie)
            continue;
        uint32_t lod = ze_render_lod_select(err, sm.lod_count, scale, dist, (float)r, proj, 1.0f);
        want[lod]++;
        triangles += sm.lods[lod].index_count / 3;
        scene_add(&sc, w);
        sc.inst[sc.s.instance_update_count - 1].mesh = uuid_n(4);
    }
    /* and one of the 1-level mesh, close and far: level 0 */
    scene_add(&sc, at((double[3]){0.0, 0.0, -30.0}, 1.0f));
    want[0]++;
    triangles += sphere_triangles(f);
    /* instanced: one command per level in use, and one for that sphere */
    uint32_t commands = 1;
    for (uint32_t l = 0; l < ZE_RENDER_LOD_MAX; l++)
        commands += want[l] > (l == 0 ? 1u : 0u);
    ze_render_stats_t st = render(b, &sc, NULL);
    print_message("%u instanced commands (reference %u), %llu triangles (reference %llu)\n",
                  st.last_draw_commands, commands, (unsigned long long)st.last_triangles,
                  (unsigned long long)triangles);
    assert_int_equal(st.last_draw_commands, commands);
    assert_int_equal(st.last_triangles, triangles);
    uint32_t levels_used = 0;
    for (uint32_t l = 0; l < ZE_RENDER_LOD_MAX; l++) {
        print_message("level %u: %u drawn, reference %u\n", l, st.last_draws_lod[l], want[l]);
        assert_int_equal(st.last_draws_lod[l], want[l]);
        levels_used += want[l] > 0;
    }
    assert_int_equal(st.last_draws_visible, N + 1);
    assert_true(levels_used >= 3); /* the scene exercises the choice */
    scene_free(f, &sc);
    ze_render_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_plane_just_outside_and_inside),
        cmocka_unit_test(test_random_scenes_match_reference),
        cmocka_unit_test(test_culling_on_and_off_same_image),
        cmocka_unit_test(test_growth_and_no_camera),
        cmocka_unit_test(test_mirrored_instance_keeps_its_front_faces),
        cmocka_unit_test(test_inside_a_sphere_single_and_double_sided),
        cmocka_unit_test(test_lod_choice_matches_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
