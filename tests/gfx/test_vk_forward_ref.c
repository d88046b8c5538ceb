/* The forward frame against its committed reference, on whatever device
 * the Vulkan backend picks (lavapipe in CI) with the validation layer on:
 * zero messages allowed.
 *
 * tests/gfx/data/forward_ref.png was rendered by the hand-wired forward
 * renderer (forward pass + ACES compute pass with hand-written barriers)
 * before it moved onto the render graph, and looked at before it was
 * committed; the frame the graph renders now must match it. The scene uses
 * what the forward pass does: four instances of one cooked sphere with
 * overlapping depth, a non-uniform scale (the normal matrix), three
 * materials (a dielectric, a rough metal, an uploaded 8x8 checker texture
 * with its mip chain) and the hot-pink fallback for a texture that is not
 * resident, one directional light, two point lights with a range, exposure,
 * and a size that is not a multiple of the tone-mapping workgroup (8x8).
 * A resize to another size and back (the graph is rebuilt each time) must
 * give the same picture again, and so must a backend with the depth
 * prepass (depth first, forward shading at equal depth).
 * Synchronization validation is on too (hazards count as messages).
 * ZE_TEST_WRITE_IMAGES=DIR writes what the test renders (to look at);
 * ZE_TEST_WRITE_REF=PATH writes the reference (only when regenerating it on
 * purpose: look at it before committing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/png_pixels.h"
#include "gfx/sphere_gltf.h"
#include "gfx/vk_internal.h"
#include "gfx/vk_messages.h"
#include "zengine/gfx.h"

enum { W = 300, H = 200, CHECKER = 8 };

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    /* Under ASan the layer's synchronization validation leaks (C++
       allocations LeakSanitizer cannot attribute): the dev preset runs it,
       ASan runs the same frames with ordinary validation. */
#if !defined(ZE_SANITIZER_ADDRESS)
    setenv("ZENGINE_VK_SYNC_VALIDATION", "1", 1); /* and the graph's barriers checked */
#endif
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

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0x5B;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

enum {
    MESH = 1,
    MAT_RED = 2,   /* the sphere's own glTF material */
    MAT_METAL = 3, /* rough gold */
    MAT_CHECK = 4, /* base colour: the checker texture */
    MAT_PINK = 5,  /* base colour: a texture never sent (the fallback) */
    TEX_CHECK = 6,
    TEX_MISSING = 7,
};

typedef struct assets_t {
    uint8_t *mesh_bytes;
    size_t mesh_size;
    ze_asset_data_t mesh, red, metal, check, pink, tex;
    uint8_t texels[CHECKER * CHECKER * 4 + 4 * 4 * 4 + 2 * 2 * 4 + 4];
} assets_t;

/* An 8x8 sRGB checker (2x2 cells of cream and teal) with its mips, each
 * level the average of the one above (the box filter is enough here). */
static void checker(assets_t *a)
{
    ze_tex_view_t *t = &a->tex.as.texture;
    memset(&a->tex, 0, sizeof a->tex);
    a->tex.uuid = uuid_n(TEX_CHECK);
    a->tex.type = ZE_ASSET_TYPE_TEXTURE;
    a->tex.generation = 1;
    t->uuid = a->tex.uuid;
    t->format = ZE_TEX_FORMAT_RGBA8_SRGB;
    t->width = t->height = CHECKER;
    t->mip_count = 4;
    uint8_t *p = a->texels;
    for (uint32_t y = 0; y < CHECKER; y++)
        for (uint32_t x = 0; x < CHECKER; x++, p += 4) {
            bool on = ((x / 2) + (y / 2)) % 2 == 0;
            p[0] = on ? 240 : 20;
            p[1] = on ? 220 : 140;
            p[2] = on ? 180 : 150;
            p[3] = 255;
        }
    uint8_t *prev = a->texels;
    for (uint32_t level = 0, size = CHECKER; level < 4; level++, size /= 2) {
        t->mips[level] = (ze_tex_mip_t){size, size, level ? p : a->texels, (size_t)size * size * 4};
        if (!level)
            continue;
        for (uint32_t y = 0; y < size; y++)
            for (uint32_t x = 0; x < size; x++, p += 4)
                for (int c = 0; c < 4; c++) {
                    uint32_t s2 = size * 2, sum = 0;
                    for (uint32_t dy = 0; dy < 2; dy++)
                        for (uint32_t dx = 0; dx < 2; dx++)
                            sum += prev[((y * 2 + dy) * s2 + x * 2 + dx) * 4 + c];
                    p[c] = (uint8_t)(sum / 4);
                }
        prev = (uint8_t *)t->mips[level].data;
    }
}

static void material_from(const ze_asset_data_t *base, uint32_t id, ze_asset_data_t *out)
{
    *out = *base;
    out->uuid = uuid_n(id);
    out->as.material.uuid = out->uuid;
}

static void assets_make(fixture_t *f, assets_t *a)
{
    assert_true(sphere_assets(f->alloc, true, uuid_n(MESH), uuid_n(MAT_RED), &a->mesh_bytes,
                              &a->mesh_size, &a->mesh, &a->red));
    material_from(&a->red, MAT_METAL, &a->metal);
    a->metal.as.material.base_color_factor = (ze_vec4_t){1.0f, 0.77f, 0.34f, 1.0f};
    a->metal.as.material.metallic_factor = 1.0f;
    a->metal.as.material.roughness_factor = 0.35f;
    material_from(&a->red, MAT_CHECK, &a->check);
    a->check.as.material.base_color_factor = (ze_vec4_t){1, 1, 1, 1};
    a->check.as.material.metallic_factor = 0.0f;
    a->check.as.material.roughness_factor = 0.8f;
    a->check.as.material.base_color.present = true;
    a->check.as.material.base_color.texture = uuid_n(TEX_CHECK);
    material_from(&a->check, MAT_PINK, &a->pink);
    a->pink.as.material.base_color.texture = uuid_n(TEX_MISSING);
    checker(a);
}

static void assets_send(ze_render_backend_t *b, const assets_t *a)
{
    const ze_asset_data_t *all[] = {&a->mesh, &a->red, &a->metal, &a->check, &a->pink, &a->tex};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        assert_int_equal(ze_render_backend_asset_ready(b, all[i]), ZE_OK);
}

/* ------------------------------------------------------------ scene */

static const ze_vec3_t EYE = {0.4f, 1.1f, 5.0f};
static const float FOV = 0.7f;

typedef struct scene_t {
    ze_render_instance_t inst[4];
    ze_render_light_t lights[3];
    ze_render_state_t s;
} scene_t;

static ze_mat4_t place(float x, float y, float z, float sx, float sy, float sz)
{
    return ze_mat4_from_trs((ze_vec3_t){x, y, z}, (ze_quat_t){0, 0, 0, 1}, (ze_vec3_t){sx, sy, sz});
}

static void scene_make(scene_t *sc, uint32_t w, uint32_t h)
{
    memset(sc, 0, sizeof *sc);
    /* a squashed sphere as the floor, three spheres overlapping in depth */
    sc->inst[0] = (ze_render_instance_t){.world = place(0, -1.05f, 0, 4.0f, 0.08f, 3.0f),
                                         .mesh = uuid_n(MESH),
                                         .material = uuid_n(MAT_CHECK),
                                         .id = 1};
    sc->inst[1] = (ze_render_instance_t){
        .world = place(-1.1f, -0.1f, 0, 0.9f, 0.9f, 0.9f), .mesh = uuid_n(MESH), .id = 2};
    sc->inst[2] = (ze_render_instance_t){.world = place(1.0f, 0.0f, -0.6f, 1.0f, 1.0f, 1.0f),
                                         .mesh = uuid_n(MESH),
                                         .material = uuid_n(MAT_METAL),
                                         .id = 3};
    sc->inst[3] = (ze_render_instance_t){.world = place(0.1f, -0.45f, 1.0f, 0.5f, 0.5f, 0.5f),
                                         .mesh = uuid_n(MESH),
                                         .material = uuid_n(MAT_PINK),
                                         .id = 4};
    float l = sqrtf(0.5f * 0.5f + 0.8f * 0.8f + 0.6f * 0.6f);
    sc->lights[0] = (ze_render_light_t){.type = ZE_RENDER_LIGHT_DIRECTIONAL,
                                        .intensity = 2.5f,
                                        .color = {1.0f, 0.95f, 0.9f},
                                        .direction = {-0.5f / l, -0.8f / l, -0.6f / l}};
    sc->lights[1] = (ze_render_light_t){.type = ZE_RENDER_LIGHT_POINT,
                                        .intensity = 6.0f,
                                        .range = 4.0f,
                                        .color = {0.3f, 0.5f, 1.0f},
                                        .position = {-2.0f, 0.8f, 1.5f}};
    sc->lights[2] = (ze_render_light_t){.type = ZE_RENDER_LIGHT_POINT,
                                        .intensity = 4.0f,
                                        .range = 3.0f,
                                        .color = {1.0f, 0.4f, 0.2f},
                                        .position = {2.2f, 1.2f, 1.0f}};
    ze_render_state_t *s = &sc->s;
    s->frame = 1;
    s->width = w;
    s->height = h;
    s->has_camera = true;
    s->sky = (ze_render_sky_t){.clear_color = {0.12f, 0.1f, 0.2f}, .exposure = 1.3f};
    ze_render_state_set_instances(s, sc->inst, 4);
    s->light_count = 3;
    s->lights = sc->lights;
    float aspect = (float)w / (float)h;
    s->camera.view = ze_mat4_look_at(EYE, (ze_vec3_t){0, -0.3f, 0}, (ze_vec3_t){0, 1, 0});
    s->camera.projection = ze_mat4_perspective(FOV, aspect, 0.1f, 50.0f);
    s->camera.position = EYE;
    s->camera.fov_y = FOV;
    s->camera.near_plane = 0.1f;
    s->camera.far_plane = 50.0f;
    s->camera.aspect = aspect;
}

/* ------------------------------------------------------------ helpers */

static void frames(ze_render_backend_t *b, scene_t *sc, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        sc->s.frame++;
        assert_int_equal(ze_render_backend_frame(b, &sc->s), ZE_OK);
    }
}

static void write_named(ze_render_backend_t *b, const char *name)
{
    const char *dir = getenv("ZE_TEST_WRITE_IMAGES");
    if (!dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(ze_render_backend_screenshot(b, path), ZE_OK);
}

/* The last frame against the committed reference: fewer than 0.5 % of the
 * pixels may differ by more than 8/255 in a channel, and the mean
 * difference must stay under 1/255 (`zengine compare`'s defaults). */
static void compare_reference(fixture_t *f, ze_render_backend_t *b, const char *what)
{
    size_t bytes = (size_t)W * H * 4;
    uint8_t *px = ze_alloc(f->alloc, bytes, 16);
    assert_int_equal(ze__vk_test_pixels(b, px, bytes), ZE_OK);
    png_pixels_t ref;
    char path[1024];
    snprintf(path, sizeof path, "%s/forward_ref.png", ZE_TEST_DATA);
    assert_true(png_pixels_load(path, &ref));
    assert_int_equal(ref.width, W);
    assert_int_equal(ref.height, H);
    uint64_t differing = 0, sum = 0;
    int worst = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        int pw = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)px[i * 4 + c] - (int)ref.rgba[i * 4 + c]);
            sum += (uint64_t)d;
            pw = d > pw ? d : pw;
        }
        differing += pw > 8;
        worst = pw > worst ? pw : worst;
    }
    png_pixels_release(&ref);
    ze_free(f->alloc, px, bytes);
    double mean = (double)sum / ((double)W * H * 3);
    print_message("%s: %llu pixels differ by more than 8 (of %u), largest %d, mean %.3f\n", what,
                  (unsigned long long)differing, W * H, worst, mean);
    assert_true(differing * 200 < (uint64_t)W * H);
    assert_true(mean < 1.0);
}

static ze_render_backend_t *make_with(fixture_t *f, bool prepass)
{
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {
        .mem = f->mm, .headless = true, .width = W, .height = H, .depth_prepass = prepass};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    assert_true(ze_render_backend_stats(b).validation_enabled);
    return b;
}

static ze_render_backend_t *make(fixture_t *f)
{
    return make_with(f, false);
}

/* -------------------------------------------------------------- tests */

static void test_forward_frame_matches_reference(void **state)
{
    fixture_t *f = *state;
    assets_t *a = ZE_NEW(f->alloc, assets_t);
    assets_make(f, a);
    ze_render_backend_t *b = make(f);
    assets_send(b, a);
    scene_t sc;
    scene_make(&sc, W, H);
    frames(b, &sc, 3);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.meshes, 1);
    assert_int_equal(st.materials, 4);
    assert_int_equal(st.textures, 1);
    const char *ref = getenv("ZE_TEST_WRITE_REF");
    if (ref) {
        assert_int_equal(ze_render_backend_screenshot(b, ref), ZE_OK);
        print_message("reference written to %s\n", ref);
    }
    write_named(b, "forward.png");
    compare_reference(f, b, "forward frame");

    /* another size (the graph is rebuilt), then back */
    scene_make(&sc, 220, 160);
    frames(b, &sc, 2);
    scene_make(&sc, W, H);
    frames(b, &sc, 2);
    write_named(b, "forward_after_resize.png");
    compare_reference(f, b, "after a resize and back");

    st = ze_render_backend_stats(b);
    vk_expect_no_messages(st.validation_messages);
    ze_render_backend_destroy(b);
    ze_free(f->alloc, a->mesh_bytes, a->mesh_size);
    ze_free(f->alloc, a, sizeof *a);
}

static void render_pixels(fixture_t *f, const assets_t *a, const ze_asset_data_t *extra,
                          bool prepass, uint8_t *px)
{
    ze_render_backend_t *b = make_with(f, prepass);
    assets_send(b, a);
    assert_int_equal(ze_render_backend_asset_ready(b, extra), ZE_OK);
    scene_t sc;
    scene_make(&sc, W, H);
    sc.inst[3].material = extra->uuid; /* the small front sphere */
    frames(b, &sc, 3);
    assert_int_equal(ze__vk_test_pixels(b, px, (size_t)W * H * 4), ZE_OK);
    vk_expect_no_messages(ze_render_backend_stats(b).validation_messages);
    ze_render_backend_destroy(b);
}

/* An alpha-masked material whose alpha is under its cutoff everywhere: the
 * prepass must discard it as forward shading does, or its depth would hide
 * what is behind it. Prepass on and off: the same pixels. */
static void test_depth_prepass_alpha_mask(void **state)
{
    fixture_t *f = *state;
    assets_t *a = ZE_NEW(f->alloc, assets_t);
    assets_make(f, a);
    ze_asset_data_t ghost;
    material_from(&a->red, 9, &ghost);
    ghost.as.material.alpha_mode = ZE_ALPHA_MASK;
    ghost.as.material.alpha_cutoff = 0.5f;
    ghost.as.material.base_color_factor.w = 0.2f;
    size_t bytes = (size_t)W * H * 4;
    uint8_t *on = ze_alloc(f->alloc, bytes, 16), *off = ze_alloc(f->alloc, bytes, 16);
    assert_true(on && off);
    render_pixels(f, a, &ghost, false, off);
    render_pixels(f, a, &ghost, true, on);
    size_t differ = 0;
    for (size_t i = 0; i < bytes; i++)
        differ += on[i] != off[i];
    print_message("masked-out sphere, prepass on vs off: %zu bytes differ\n", differ);
    assert_int_equal(differ, 0);
    ze_free(f->alloc, on, bytes);
    ze_free(f->alloc, off, bytes);
    ze_free(f->alloc, a->mesh_bytes, a->mesh_size);
    ze_free(f->alloc, a, sizeof *a);
}

/* With the depth prepass (depth first, then shading where the depth is
 * equal): the same picture, and a "prepass" pass timed before "forward". */
static void test_depth_prepass_same_frame(void **state)
{
    fixture_t *f = *state;
    assets_t *a = ZE_NEW(f->alloc, assets_t);
    assets_make(f, a);
    ze_render_backend_t *b = make_with(f, true);
    assets_send(b, a);
    scene_t sc;
    scene_make(&sc, W, H);
    frames(b, &sc, 3);
    write_named(b, "forward_prepass.png");
    compare_reference(f, b, "forward frame after a depth prepass");
    ze_render_stats_t st = ze_render_backend_stats(b);
    vk_expect_no_messages(st.validation_messages);
    int pre = -1, fwd = -1;
    for (uint32_t i = 0; i < st.gpu_pass_count; i++) {
        if (strcmp(st.gpu_passes[i].name, "prepass") == 0)
            pre = (int)i;
        if (strcmp(st.gpu_passes[i].name, "forward") == 0)
            fwd = (int)i;
    }
    assert_true(pre >= 0 && fwd > pre);
    ze_render_backend_destroy(b);
    ze_free(f->alloc, a->mesh_bytes, a->mesh_size);
    ze_free(f->alloc, a, sizeof *a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_frame_matches_reference),
        cmocka_unit_test(test_depth_prepass_same_frame),
        cmocka_unit_test(test_depth_prepass_alpha_mask),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
