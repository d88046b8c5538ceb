/* Unload, reload and the geometry budgets of the Vulkan backend, on
 * whatever device it picks (lavapipe in CI), validation on: zero messages.
 *
 *   - level change: 20 times, a level of meshes (enough vertices that the
 *     global vertex buffer grows past its initial size), materials and
 *     textures is sent, drawn, its instances removed and every asset
 *     released (ze_render_backend_asset_release); once the frames that
 *     used them retired, device memory (VkDeviceMemory and the live
 *     sub-allocations), the bindless slots, and the vertex and index
 *     bytes in use and their capacity are back at their values before the
 *     level (the first level warms the per-frame buffers, which keep their
 *     size: those are measured after it; the asset figures from the very
 *     start);
 *   - hot reload: a mesh and a texture sent again while resident replace
 *     the old ones without growing anything;
 *   - budgets: a mesh over the vertex budget is refused (ZE_ERR_LIMIT,
 *     counted) and fits once another is released; a state with more
 *     instance slots than the instance budget is refused by apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/sphere_gltf.h"
#include "zengine/gfx.h"

/* A level: MESHES meshes, one material, TEXTURES textures of SMALL^2
   texels and one of BIG^2 (16 MiB: an allocation of its own). The block
   test: BLOCK_TEXTURES of MID^2 (4 MiB each), more than the 64 MiB block
   the backend starts with has free, so they take a block more. */
enum {
    W = 64,
    H = 48,
    MESHES = 40,
    DRAWN = 8, /* instances of the first meshes drawn (lavapipe is slow) */
    TEXTURES = 6,
    SMALL = 64,
    BIG = 2048,
    MID = 1024,
    BLOCK_TEXTURES = 16,
};

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
    uint8_t *mesh_bytes;
    size_t mesh_size;
    ze_asset_data_t mesh, material;
    uint8_t *texels;
} fixture_t;

static ze_uuid_t uuid_n(uint32_t kind, uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0xD0;
    u.bytes[1] = (uint8_t)kind;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_ASSET);
    if (!sphere_assets(f.alloc, true, uuid_n(1, 0), uuid_n(2, 0), &f.mesh_bytes, &f.mesh_size,
                       &f.mesh, &f.material))
        return -1;
    f.texels = ze_alloc(f.alloc, (size_t)BIG * BIG * 4, 16);
    if (!f.texels)
        return -1;
    for (uint32_t i = 0; i < BIG * BIG * 4; i++)
        f.texels[i] = (uint8_t)(i * 7);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_free(f->alloc, f->mesh_bytes, f->mesh_size);
    ze_free(f->alloc, f->texels, (size_t)BIG * BIG * 4);
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

static ze_render_backend_t *make(fixture_t *f, const ze_render_backend_desc_t *extra)
{
    ze_render_backend_desc_t d = extra ? *extra : (ze_render_backend_desc_t){0};
    d.mem = f->mm;
    d.headless = true;
    d.width = W;
    d.height = H;
    ze_render_backend_t *b = NULL;
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    assert_true(ze_render_backend_stats(b).validation_enabled);
    return b;
}

static ze_asset_data_t mesh_n(fixture_t *f, uint32_t n, uint32_t gen)
{
    ze_asset_data_t d = f->mesh;
    d.uuid = uuid_n(1, n);
    d.generation = gen;
    return d;
}

static ze_asset_data_t texture_n(fixture_t *f, uint32_t n, uint32_t gen, uint32_t size)
{
    ze_asset_data_t a = {.type = ZE_ASSET_TYPE_TEXTURE, .generation = gen, .uuid = uuid_n(3, n)};
    a.as.texture = (ze_tex_view_t){.uuid = a.uuid,
                                   .format = ZE_TEX_FORMAT_RGBA8_SRGB,
                                   .width = size,
                                   .height = size,
                                   .mip_count = 1,
                                   .mips = {{size, size, f->texels, (size_t)size * size * 4}}};
    return a;
}

/* The meshes' own material (their submesh names uuid_n(2, 0)), textured. */
static ze_asset_data_t material_of(fixture_t *f, uint32_t gen)
{
    ze_asset_data_t m = f->material;
    m.generation = gen;
    m.as.material.base_color = (ze_zematerial_texture_t){
        .present = true, .texture = uuid_n(3, 0), .scale = 1, .uv_scale = {1, 1}};
    return m;
}

/* A frame of n instances of meshes 0..n-1 (all slots rewritten: delta 0). */
static void frame(ze_render_backend_t *b, uint32_t n)
{
    static ze_render_instance_t inst[MESHES];
    static uint64_t frame_no;
    ze_render_light_t sun = {.type = ZE_RENDER_LIGHT_DIRECTIONAL,
                             .intensity = 2,
                             .color = {1, 1, 1},
                             .direction = {0, -1, 0}};
    ze_render_state_t s = {.frame = ++frame_no, .width = W, .height = H, .has_camera = true};
    s.camera.view =
        ze_mat4_look_at((ze_vec3_t){0, 0, 30}, (ze_vec3_t){0, 0, 0}, (ze_vec3_t){0, 1, 0});
    s.camera.projection = ze_mat4_perspective(1.0f, (float)W / H, 0.1f, 100.0f);
    s.camera.position = (ze_vec3_t){0, 0, 30};
    s.sky = (ze_render_sky_t){.clear_color = {0.1f, 0.1f, 0.1f}, .exposure = 1};
    s.light_count = 1;
    s.lights = &sun;
    for (uint32_t i = 0; i < n; i++) {
        inst[i] = (ze_render_instance_t){.mesh = uuid_n(1, i), .id = i + 1};
        ze_vec3_t at = {(float)(i % 8) * 2.5f - 9, (float)(i / 8) * 2.5f - 5, 0};
        inst[i].world = ze_mat4_from_trs(at, (ze_quat_t){0, 0, 0, 1}, (ze_vec3_t){1, 1, 1});
    }
    ze_render_state_set_instances(&s, inst, n);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
}

/* Frames until the textures sent are resident (the staging ring takes a
 * few frames for 64 MiB), then enough that everything freed before them
 * has retired. */
static ze_render_stats_t settle_textures(ze_render_backend_t *b, uint32_t n, uint32_t textures)
{
    for (int i = 0; i < 200 && ze_render_backend_stats(b).textures != textures; i++)
        frame(b, n);
    for (int i = 0; i < 4; i++)
        frame(b, n);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.validation_messages, 0);
    return st;
}

static ze_render_stats_t settle(ze_render_backend_t *b, uint32_t n)
{
    return settle_textures(b, n, ze_render_backend_stats(b).textures);
}

static void send_level(fixture_t *f, ze_render_backend_t *b, uint32_t gen)
{
    for (uint32_t i = 0; i <= TEXTURES; i++) {
        ze_asset_data_t t = texture_n(f, i, gen, i < TEXTURES ? SMALL : BIG);
        assert_int_equal(ze_render_backend_asset_ready(b, &t), ZE_OK);
    }
    ze_asset_data_t m = material_of(f, gen);
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    for (uint32_t i = 0; i < MESHES; i++) {
        ze_asset_data_t d = mesh_n(f, i, gen);
        assert_int_equal(ze_render_backend_asset_ready(b, &d), ZE_OK);
    }
}

static void release_level(ze_render_backend_t *b)
{
    for (uint32_t i = 0; i < MESHES; i++)
        assert_int_equal(ze_render_backend_asset_release(b, uuid_n(1, i)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(2, 0)), ZE_OK);
    for (uint32_t i = 0; i <= TEXTURES; i++)
        assert_int_equal(ze_render_backend_asset_release(b, uuid_n(3, i)), ZE_OK);
}

static void print_stats(const char *what, const ze_render_stats_t *s)
{
    if (getenv("ZE_TEST_VERBOSE"))
        printf("%s: device %llu, used %llu, slots %u/%u, vertex %llu/%llu, index %llu/%llu, "
               "meshes %u, textures %u\n",
               what, (unsigned long long)s->gpu_memory_bytes,
               (unsigned long long)s->gpu_memory_used_bytes, s->bindless_slots_used,
               s->bindless_slots_capacity, (unsigned long long)s->vertex_bytes_used,
               (unsigned long long)s->vertex_bytes_capacity,
               (unsigned long long)s->index_bytes_used, (unsigned long long)s->index_bytes_capacity,
               s->meshes, s->textures);
}

static void test_level_change_20_times(void **state)
{
    fixture_t *f = *state;
    /* the vertex buffer must grow for the level: its initial size is 64Ki
       vertices */
    assert_true((uint64_t)MESHES * f->mesh.as.mesh.vertex_count > 65536);
    ze_render_backend_t *b = make(f, NULL);
    ze_render_stats_t start = settle(b, 0);
    print_stats("start", &start);
    assert_int_equal(start.meshes + start.textures + start.materials, 0);
    assert_int_equal(start.vertex_bytes_used, 0);
    assert_int_equal(start.index_bytes_used, 0);
    assert_true(start.bindless_slots_used >= 1); /* the built-ins */
    assert_true(start.gpu_memory_used_bytes > 0 && start.gpu_memory_bytes > 0);
    ze_render_stats_t warm = start;
    uint64_t level_vertex = (uint64_t)MESHES * f->mesh.as.mesh.vertex_count * 48;
    for (uint32_t level = 0; level < 20; level++) {
        send_level(f, b, level + 1);
        ze_render_stats_t in = settle_textures(b, DRAWN, TEXTURES + 1);
        if (level == 0)
            print_stats("level", &in);
        assert_int_equal(in.meshes, MESHES);
        assert_int_equal(in.textures, TEXTURES + 1);
        assert_int_equal(in.materials, 1);
        assert_int_equal(in.vertex_bytes_used, level_vertex);
        assert_true(in.vertex_bytes_capacity > start.vertex_bytes_capacity); /* grew */
        assert_int_equal(in.bindless_slots_used, start.bindless_slots_used + TEXTURES + 1);
        assert_true(in.gpu_memory_used_bytes >=
                    start.gpu_memory_used_bytes + (uint64_t)BIG * BIG * 4);
        assert_true(in.gpu_memory_bytes >= start.gpu_memory_bytes + (uint64_t)BIG * BIG * 4);
        assert_true(in.last_draws > 0);
        /* unload: the instances first, then the assets */
        frame(b, 0);
        release_level(b);
        ze_render_stats_t out = settle(b, 0);
        if (level == 0) {
            print_stats("unloaded", &out);
            warm = out;
        }
        assert_int_equal(out.meshes + out.textures + out.materials, 0);
        assert_int_equal(out.assets_released, (uint64_t)(level + 1) * (MESHES + 2 + TEXTURES));
        assert_int_equal(out.bindless_slots_used, start.bindless_slots_used);
        assert_int_equal(out.vertex_bytes_used, 0);
        assert_int_equal(out.index_bytes_used, 0);
        assert_int_equal(out.vertex_bytes_capacity, start.vertex_bytes_capacity);
        assert_int_equal(out.index_bytes_capacity, start.index_bytes_capacity);
        assert_int_equal(out.gpu_memory_bytes, warm.gpu_memory_bytes);
        assert_int_equal(out.gpu_memory_used_bytes, warm.gpu_memory_used_bytes);
    }
    /* the per-frame buffers are the only thing the first level left */
    assert_true(warm.gpu_memory_bytes >= start.gpu_memory_bytes);
    ze_render_backend_destroy(b);
}

/* A memory block the level needed goes when its last allocation does. */
static void test_empty_block_freed(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, NULL);
    ze_render_stats_t start = settle(b, 0);
    for (uint32_t i = 0; i < BLOCK_TEXTURES; i++) {
        ze_asset_data_t t = texture_n(f, i, 1, MID);
        assert_int_equal(ze_render_backend_asset_ready(b, &t), ZE_OK);
    }
    ze_render_stats_t in = settle_textures(b, 0, BLOCK_TEXTURES);
    print_stats("block level", &in);
    assert_int_equal(in.textures, BLOCK_TEXTURES);
    /* none is dedicated (4 MiB): the 64 MiB more are a block */
    assert_true(in.gpu_memory_bytes >= start.gpu_memory_bytes + (64u << 20));
    for (uint32_t i = 0; i < BLOCK_TEXTURES; i++)
        assert_int_equal(ze_render_backend_asset_release(b, uuid_n(3, i)), ZE_OK);
    ze_render_stats_t out = settle(b, 0);
    assert_int_equal(out.textures, 0);
    assert_int_equal(out.gpu_memory_bytes, start.gpu_memory_bytes);
    assert_int_equal(out.gpu_memory_used_bytes, start.gpu_memory_used_bytes);
    assert_int_equal(out.bindless_slots_used, start.bindless_slots_used);
    ze_render_backend_destroy(b);
}

static void test_hot_reload_replaces(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, NULL);
    send_level(f, b, 1);
    ze_render_stats_t first = settle_textures(b, DRAWN, TEXTURES + 1);
    for (uint32_t gen = 2; gen < 8; gen++) {
        ze_asset_data_t m = mesh_n(f, 3, gen);
        ze_asset_data_t t = texture_n(f, 0, gen, SMALL);
        assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
        assert_int_equal(ze_render_backend_asset_ready(b, &t), ZE_OK);
        ze_render_stats_t st = settle(b, DRAWN);
        assert_int_equal(ze_render_backend_resident(b, uuid_n(1, 3)), gen);
        assert_int_equal(ze_render_backend_resident(b, uuid_n(3, 0)), gen);
        assert_int_equal(st.meshes, MESHES);
        assert_int_equal(st.textures, TEXTURES + 1);
        assert_int_equal(st.vertex_bytes_used, first.vertex_bytes_used);
        assert_int_equal(st.index_bytes_used, first.index_bytes_used);
        assert_int_equal(st.bindless_slots_used, first.bindless_slots_used);
        assert_int_equal(st.gpu_memory_used_bytes, first.gpu_memory_used_bytes);
    }
    /* releasing something not resident is harmless */
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(9, 9)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, (ze_uuid_t){{0}}), ZE_ERR_INVALID_ARG);
    ze_render_stats_t st = settle(b, DRAWN);
    assert_int_equal(st.meshes, MESHES);
    ze_render_backend_destroy(b);
}

static void test_budgets(void **state)
{
    fixture_t *f = *state;
    uint64_t one = (uint64_t)f->mesh.as.mesh.vertex_count * ZE_RENDER_VERTEX_BYTES;
    ze_render_backend_desc_t d = {.vertex_budget_bytes = one * 2 + one / 2, .instance_budget = 4};
    ze_render_backend_t *b = make(f, &d);
    ze_asset_data_t m0 = mesh_n(f, 0, 1), m1 = mesh_n(f, 1, 1), m2 = mesh_n(f, 2, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &m0), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &m1), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &m2), ZE_ERR_LIMIT);
    /* a reload of a committed mesh replaces its share: it fits */
    m1.generation = 2;
    assert_int_equal(ze_render_backend_asset_ready(b, &m1), ZE_OK);
    ze_render_stats_t st = settle(b, 2);
    assert_int_equal(st.budget_rejections, 1);
    assert_int_equal(st.meshes, 2);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(1, 2)), 0);
    /* one released: the third fits */
    frame(b, 1);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(1, 1)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &m2), ZE_OK);
    st = settle(b, 1);
    assert_int_equal(st.meshes, 2);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(1, 2)), 1);
    /* the instance budget: 4 slots fit, 5 do not (nothing applied) */
    frame(b, 3);
    static ze_render_instance_t inst[5];
    for (uint32_t i = 0; i < 5; i++)
        inst[i] = (ze_render_instance_t){.mesh = uuid_n(1, 0), .id = i + 1};
    ze_render_state_t s = {.frame = 1000, .width = W, .height = H};
    ze_render_state_set_instances(&s, inst, 5);
    uint64_t before = ze_render_backend_stats(b).instance_states;
    assert_int_equal(ze_render_backend_apply(b, &s), ZE_ERR_LIMIT);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_LIMIT);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.instance_states, before);
    assert_int_equal(st.instances_live, 3);
    assert_int_equal(st.budget_rejections, 3);
    ze_render_state_set_instances(&s, inst, 4);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    st = settle(b, 4);
    assert_int_equal(st.instances_live, 4);
    ze_render_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_change_20_times),
        cmocka_unit_test(test_empty_block_freed),
        cmocka_unit_test(test_hot_reload_replaces),
        cmocka_unit_test(test_budgets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
