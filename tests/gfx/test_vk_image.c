/* Image tests of the Vulkan backend on whatever device it picks (lavapipe
 * in CI) with the validation layer on: zero messages allowed.
 *
 * A UV sphere made by a glTF generator here (JSON + base64 buffer), imported
 * and cooked by the asset module, lit by one directional light: the centre
 * pixel must be within 2/255 of the same Cook-Torrance + ambient + ACES +
 * sRGB computed in C below (forward.frag and tonemap.comp); the sphere must
 * cover 5-95 % of the image; the whole image must match the committed
 * reference tests/gfx/data/sphere_ref.png (looked at before it was
 * committed) within a small tolerance. A point light and a textured
 * material (the hot-pink fallback for a missing texture) are exercised too.
 * ZE_TEST_WRITE_IMAGES=DIR writes what the tests render (to look at). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfx/vk_internal.h"
#include "zengine/gfx.h"
#include "zengine/cook.h"

#include "sphere_gltf.h"
#include "cook/cook_internal.h"

enum { W = 256, H = 256 };

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_ASSET);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

/* ------------------------------------------------------ sphere glTF */

typedef struct sphere_t {
    uint8_t *mesh_bytes;
    size_t mesh_size;
    ze_asset_data_t mesh, material;
} sphere_t;

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0x5A;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

/* The shared sphere (sphere_gltf.h: no UVs, the red dielectric material). */
static void sphere_make(fixture_t *f, sphere_t *s)
{
    assert_true(sphere_assets(f->alloc, false, uuid_n(1), uuid_n(2), &s->mesh_bytes, &s->mesh_size,
                              &s->mesh, &s->material));
}

static void sphere_free(fixture_t *f, sphere_t *s)
{
    ze_free(f->alloc, s->mesh_bytes, s->mesh_size);
}

/* ------------------------------------------------------------ scene */

static const ze_vec3_t EYE = {0.0f, 0.0f, 3.0f};
static const ze_vec3_t SKY = {0.1f, 0.15f, 0.25f};
static const float FOV = 0.785398f; /* 45 degrees */

static ze_render_state_t scene_for(ze_render_instance_t *inst, ze_render_light_t *lights,
                                   uint32_t nlights)
{
    ze_render_state_t s = {
        .frame = 1,
        .width = W,
        .height = H,
        .has_camera = true,
        .sky = {.clear_color = SKY, .exposure = 1.0f},
        .light_count = nlights,
        .lights = lights,
    };
    if (inst)
        ze_render_state_set_instances(&s, inst, 1);
    s.camera.view = ze_mat4_look_at(EYE, (ze_vec3_t){0, 0, 0}, (ze_vec3_t){0, 1, 0});
    s.camera.projection = ze_mat4_perspective(FOV, 1.0f, 0.1f, 100.0f);
    s.camera.position = EYE;
    s.camera.fov_y = FOV;
    s.camera.near_plane = 0.1f;
    s.camera.far_plane = 100.0f;
    s.camera.aspect = 1.0f;
    return s;
}

static ze_render_light_t sun(void)
{
    float l = sqrtf(0.3f * 0.3f + 0.4f * 0.4f + 1.0f);
    return (ze_render_light_t){
        .type = ZE_RENDER_LIGHT_DIRECTIONAL,
        .intensity = 3.0f,
        .color = {1, 1, 1},
        .direction = {-0.3f / l, -0.4f / l, -1.0f / l},
    };
}

/* ------------------------------------------------------ the reference */

typedef struct v3 {
    double x, y, z;
} v3;
static v3 add(v3 a, v3 b)
{
    return (v3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static v3 scl(v3 a, double s)
{
    return (v3){a.x * s, a.y * s, a.z * s};
}
static double dot(v3 a, v3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static v3 nrm(v3 a)
{
    return scl(a, 1.0 / sqrt(dot(a, a)));
}

/* forward.frag's brdf(), one channel at a time */
static double brdf1(v3 N, v3 V, v3 L, double base, double metallic, double rough)
{
    v3 Hh = nrm(add(V, L));
    double NdL = fmax(dot(N, L), 0.0), NdV = fmax(dot(N, V), 1e-4);
    double NdH = fmax(dot(N, Hh), 0.0), VdH = fmax(dot(V, Hh), 0.0);
    double a = rough * rough, a2 = a * a;
    double dd = NdH * NdH * (a2 - 1.0) + 1.0;
    double D = a2 / (M_PI * dd * dd);
    double k = (rough + 1.0) * (rough + 1.0) / 8.0;
    double G = (NdV / (NdV * (1.0 - k) + k)) * (NdL / (NdL * (1.0 - k) + k));
    double F0 = 0.04 * (1.0 - metallic) + base * metallic;
    double F = F0 + (1.0 - F0) * pow(1.0 - VdH, 5.0);
    double spec = D * G * F / (4.0 * NdV * NdL + 1e-4);
    double kd = (1.0 - F) * (1.0 - metallic);
    return (kd * base / M_PI + spec) * NdL;
}

static double aces(double x)
{
    double v = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

static double srgb(double c)
{
    return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

/* The colour of pixel (px, py) of the lit sphere, through the pixel centre. */
static void expected_pixel(uint32_t px, uint32_t py, const ze_render_light_t *sunl, uint8_t out[3])
{
    double t = tan(FOV / 2.0);
    double nx = ((px + 0.5) / W) * 2.0 - 1.0, ny = ((py + 0.5) / H) * 2.0 - 1.0;
    /* y-down clip space: +ny is below the centre */
    v3 dir = nrm((v3){nx * t, -ny * t, -1.0});
    v3 o = {EYE.x, EYE.y, EYE.z};
    double bq = dot(o, dir), c = dot(o, o) - 1.0;
    double disc = bq * bq - c;
    assert_true(disc > 0);
    v3 hit = add(o, scl(dir, -bq - sqrt(disc)));
    v3 N = nrm(hit), V = nrm(add(o, scl(hit, -1.0)));
    v3 L = nrm((v3){-sunl->direction.x, -sunl->direction.y, -sunl->direction.z});
    const double base[3] = {0.8, 0.2, 0.2}, sky[3] = {SKY.x, SKY.y, SKY.z};
    for (int ch = 0; ch < 3; ch++) {
        double col = sky[ch] * 0.1 * base[ch] + brdf1(N, V, L, base[ch], 0.1, 0.5) * 3.0;
        out[ch] = (uint8_t)lround(srgb(aces(col)) * 255.0);
    }
}

/* ------------------------------------------------------------ helpers */

static ze_render_backend_t *make(fixture_t *f)
{
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_true(st.validation_enabled); /* the layer is installed in every test setup */
    return b;
}

static void maybe_write(ze_render_backend_t *b, const char *name)
{
    const char *dir = getenv("ZE_TEST_WRITE_IMAGES");
    if (!dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(ze_render_backend_screenshot(b, path), ZE_OK);
}

static uint32_t coverage(const uint8_t *px, uint8_t sky[3])
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++)
        if (abs(px[i * 4] - sky[0]) > 2 || abs(px[i * 4 + 1] - sky[1]) > 2 ||
            abs(px[i * 4 + 2] - sky[2]) > 2)
            n++;
    return n;
}

static void sky_pixel(uint8_t out[3])
{
    const double sky[3] = {SKY.x, SKY.y, SKY.z};
    for (int ch = 0; ch < 3; ch++)
        out[ch] = (uint8_t)lround(srgb(aces(sky[ch])) * 255.0);
}

/* The committed reference (decoded by the asset module's PNG cook, linear
 * RGBA8): fewer than 0.5 % of the pixels may differ by more than 8/255 in
 * a channel, and the mean difference must stay under 1/255. */
static void compare_reference(fixture_t *f, const uint8_t *px, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", ZE_TEST_DATA, name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    size_t cap = 1 << 20;
    uint8_t *png = ze_alloc(f->alloc, cap, 16);
    size_t n = fread(png, 1, cap, fp);
    fclose(fp);
    uint8_t *bytes = NULL;
    size_t size = 0;
    ze__asset_error_t err;
    ze_result r = ze__asset_zetex_cook(png, n, uuid_n(99),
                                       &(ze_image_desc_t){.alloc = f->alloc, .linear = true},
                                       &bytes, &size, &err);
    ze_free(f->alloc, png, cap);
    if (r != ZE_OK)
        fail_msg("%s: %s", path, err.message);
    ze_tex_view_t v;
    assert_int_equal(ze__asset_zetex_read(bytes, size, &v, &err), ZE_OK);
    assert_int_equal(v.width, W);
    assert_int_equal(v.height, H);
    uint32_t bad = 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < W * H * 4; i++) {
        int d = abs((int)v.mips[0].data[i] - (int)px[i]);
        sum += (uint64_t)d;
        bad += d > 8;
    }
    ze_free(f->alloc, bytes, size);
    print_message("%s: %u channels off by more than 8, mean difference %.3f\n", name, bad,
                  (double)sum / (W * H * 4));
    assert_true(bad < W * H * 4 / 200);
    assert_true(sum < (uint64_t)W * H * 4);
}

/* -------------------------------------------------------------- tests */

static void test_clear_and_screenshot(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f);
    assert_string_not_equal(ze_render_backend_device(b), "");
    uint8_t *px = ze_alloc(f->alloc, W * H * 4, 16);
    assert_int_equal(ze__vk_test_pixels(b, px, W * H * 4), ZE_ERR_STATE); /* nothing yet */
    ze_render_state_t s = scene_for(NULL, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze__vk_test_pixels(b, px, W * H * 4), ZE_OK);
    uint8_t sky[3];
    sky_pixel(sky);
    for (int ch = 0; ch < 3; ch++)
        assert_true(abs(px[(128 * W + 17) * 4 + ch] - sky[ch]) <= 1);
    assert_int_equal(px[3], 255);
    char path[256];
    snprintf(path, sizeof path, "/tmp/ze_vk_clear_%d.png", (int)getpid());
    assert_int_equal(ze_render_backend_screenshot(b, path), ZE_OK);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    uint8_t sig[8];
    assert_int_equal(fread(sig, 1, 8, fp), 8);
    fclose(fp);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    remove(path);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.frames, 1);
    assert_int_equal(st.validation_messages, 0);
    ze_free(f->alloc, px, W * H * 4);
    ze_render_backend_destroy(b);
}

static void test_lit_sphere(void **state)
{
    fixture_t *f = *state;
    sphere_t sp;
    sphere_make(f, &sp);
    ze_render_backend_t *b = make(f);
    assert_int_equal(ze_render_backend_asset_ready(b, &sp.mesh), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &sp.material), ZE_OK);
    ze_render_instance_t inst = {.world = ze_mat4_identity(), .mesh = uuid_n(1), .id = 1};
    ze_render_light_t l = sun();
    ze_render_state_t s = scene_for(&inst, &l, 1);
    for (int i = 0; i < 3; i++) {
        s.frame = (uint64_t)i + 1;
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    }
    assert_int_equal(ze_render_backend_resident(b, uuid_n(1)), 1);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(2)), 1);
    uint8_t *px = ze_alloc(f->alloc, W * H * 4, 16);
    assert_int_equal(ze__vk_test_pixels(b, px, W * H * 4), ZE_OK);
    maybe_write(b, "sphere.png");
    compare_reference(f, px, "sphere_ref.png");
    uint8_t want[3];
    const uint32_t probes[][2] = {{128, 128}, {100, 100}, {150, 110}, {128, 170}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        uint32_t x = probes[i][0], y = probes[i][1];
        expected_pixel(x, y, &l, want);
        const uint8_t *got = &px[(y * W + x) * 4];
        print_message("pixel %u,%u: got %u %u %u, expected %u %u %u\n", x, y, got[0], got[1],
                      got[2], want[0], want[1], want[2]);
        for (int ch = 0; ch < 3; ch++)
            assert_true(abs(got[ch] - want[ch]) <= 2);
    }
    uint8_t sky[3];
    sky_pixel(sky);
    uint32_t cov = coverage(px, sky);
    print_message("sphere covers %.1f %% of the image\n", 100.0 * cov / (W * H));
    assert_true(cov > W * H / 20 && cov < W * H * 95 / 100);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.meshes, 1);
    assert_int_equal(st.materials, 1);
    assert_int_equal(st.validation_messages, 0);
    /* the render graph's passes, timed (one frame late: frame 2's) */
    static const char *const order[] = {"scatter", "bins_clear", "cull",
                                        "bins",    "place",      "forward"};
    assert_true(st.gpu_pass_count >= ZE_COUNTOF(order));
    for (uint32_t i = 0; i < ZE_COUNTOF(order); i++)
        assert_string_equal(st.gpu_passes[i].name, order[i]);
    /* one sphere: one instanced command of its level's triangles */
    ze_zemesh_submesh_t sm;
    ze_asset_zemesh_submesh(&sp.mesh.as.mesh, 0, &sm);
    uint32_t indices = sm.index_count;
    for (uint32_t k = 1; k < sm.lod_count; k++)
        if (st.last_draws_lod[k])
            indices = sm.lods[k].index_count;
    assert_int_equal(st.last_draw_commands, 1);
    assert_int_equal(st.last_triangles, indices / 3);
    for (uint32_t i = 0; i < st.gpu_pass_count; i++)
        print_message("GPU %s %.3f ms\n", st.gpu_passes[i].name, st.gpu_passes[i].gpu_ms);
    print_message("CPU frame %.3f ms, %llu MiB\n", st.cpu_frame_ms,
                  (unsigned long long)(st.gpu_memory_bytes >> 20));
    ze_free(f->alloc, px, W * H * 4);
    ze_render_backend_destroy(b);
    sphere_free(f, &sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clear_and_screenshot),
        cmocka_unit_test(test_lit_sphere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
