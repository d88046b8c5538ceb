/* The render-backend interface and the null backend: create/destroy, names,
 * frame counting, asset notifications becoming resident at the next frame,
 * reloads, the bounded pending queue, the simulated device loss, scene
 * revisions, snapshot validation, screenshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "zengine/gfx.h"
#include "gfx/backend.h"

typedef struct fixture_t {
    ze_mem_t *mm;
} fixture_t;

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(ze_mem_owner_stats(f->mm, ZE_MEM_OWNER_RENDER).regions <= 1, 1);
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

static ze_render_backend_t *make_faulty(fixture_t *f, ze_render_backend_desc_t d,
                                        ze__render_faults_t faults)
{
    d.mem = f->mm;
    ze_render_backend_t *b = NULL;
    assert_int_equal(ze__render_backend_create_with("null", &d, &faults, &b), ZE_OK);
    assert_non_null(b);
    return b;
}

static ze_render_backend_t *make(fixture_t *f, ze_render_backend_desc_t d)
{
    d.mem = f->mm;
    ze_render_backend_t *b = NULL;
    assert_int_equal(ze_render_backend_create("null", &d, &b), ZE_OK);
    assert_non_null(b);
    return b;
}

static ze_uuid_t uuid_n(uint32_t n)
{
    ze_uuid_t u = {{0}};
    u.bytes[0] = 0xA5;
    memcpy(u.bytes + 4, &n, sizeof n);
    return u;
}

static ze_asset_data_t asset(uint32_t n, ze_asset_type type, uint32_t gen)
{
    static const uint8_t bytes[64];
    return (ze_asset_data_t){
        .uuid = uuid_n(n), .type = type, .generation = gen, .bytes = bytes, .size = sizeof bytes};
}

/* A state carrying the whole set inst[0..ni) at slots 0..ni-1. */
static ze_render_state_t scene_of(uint64_t frame, ze_render_instance_t *inst, uint32_t ni,
                                  const ze_render_light_t *lights, uint32_t nl)
{
    for (uint32_t i = 0; inst && i < ni; i++)
        inst[i].slot = i;
    return (ze_render_state_t){
        .frame = frame,
        .width = 1280,
        .height = 720,
        .sky = {.exposure = 1.0f},
        .instance_slots = ni,
        .instance_count = ni,
        .instance_update_count = ni,
        .instance_updates = inst,
        .light_count = nl,
        .lights = lights,
    };
}

static void test_create_destroy_names(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.headless = true});
    assert_string_equal(ze_render_backend_name(b), "null");
    assert_string_equal(ze_render_backend_device(b), "null (headless)");
    ze_render_stats_t s = ze_render_backend_stats(b);
    assert_int_equal(s.frames, 0);
    assert_int_equal(s.assets_received, 0);
    assert_true(ze_mem_owner_stats(f->mm, ZE_MEM_OWNER_RENDER).current > 0);
    ze_render_backend_destroy(b);

    b = make(f, (ze_render_backend_desc_t){.headless = false, .pending_capacity = 3});
    assert_string_equal(ze_render_backend_device(b), "null");
    ze_render_backend_destroy(b);
    ze_render_backend_destroy(NULL);
}

static void test_bad_create(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = (ze_render_backend_t *)1;
    ze_render_backend_desc_t d = {.mem = f->mm};
    assert_int_equal(ze_render_backend_create("metal", &d, &b), ZE_ERR_NOT_FOUND);
    assert_null(b);
    assert_int_equal(ze_render_backend_create("", &d, &b), ZE_ERR_NOT_FOUND);
    /* "vulkan" is known; with no usable device it is unsupported */
    setenv("ZENGINE_VK_FORCE_NO_DEVICE", "1", 1);
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_ERR_UNSUPPORTED);
    unsetenv("ZENGINE_VK_FORCE_NO_DEVICE");
    assert_null(b);
    assert_int_equal(ze_render_backend_create(NULL, &d, &b), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_create("null", NULL, &b), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_create("null", &(ze_render_backend_desc_t){0}, &b),
                     ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_create("null", &d, NULL), ZE_ERR_INVALID_ARG);
    d.pending_capacity = UINT32_MAX;
    assert_int_equal(ze_render_backend_create("null", &d, &b), ZE_ERR_LIMIT);
    assert_null(b);
    /* The Render owner refusing memory is an error, not a crash. */
    d.pending_capacity = 0;
    ze_mem_fault_fail_owner(f->mm, ZE_MEM_OWNER_RENDER, true);
    assert_int_equal(ze_render_backend_create("null", &d, &b), ZE_ERR_OUT_OF_MEMORY);
    ze_mem_fault_fail_owner(f->mm, ZE_MEM_OWNER_RENDER, false);
    assert_null(b);
    /* Every allocation of create failing in turn leaves nothing behind
       (a first create makes the Render owner's heap, which stays). */
    assert_int_equal(ze_render_backend_create("null", &d, &b), ZE_OK);
    ze_render_backend_destroy(b);
    b = NULL;
    uint64_t before = ze_mem_owner_stats(f->mm, ZE_MEM_OWNER_RENDER).current;
    for (uint64_t n = 1; n <= 8; n++) {
        ze_mem_fault_fail_nth(f->mm, n);
        ze_result r = ze_render_backend_create("null", &d, &b);
        ze_mem_fault_fail_nth(f->mm, 0);
        if (r == ZE_OK)
            ze_render_backend_destroy(b);
        else
            assert_null(b);
        assert_int_equal(ze_mem_owner_stats(f->mm, ZE_MEM_OWNER_RENDER).current, before);
    }
}

static void test_frame_counts(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.headless = true});
    ze_render_instance_t inst[5];
    ze_render_light_t lights[2];
    memset(inst, 0, sizeof inst);
    memset(lights, 0, sizeof lights);
    for (int i = 0; i < 5; i++) {
        inst[i].world = ze_mat4_identity();
        inst[i].mesh = uuid_n((uint32_t)i);
        inst[i].id = (uint32_t)i;
    }
    lights[1].type = ZE_RENDER_LIGHT_POINT;

    ze_render_state_t s = scene_of(10, inst, 5, lights, 2);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    s = scene_of(11, inst, 3, lights, 1);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    s = scene_of(12, NULL, 0, NULL, 0); /* an empty scene is fine */
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    s = scene_of(14, inst, 4, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);

    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.frames, 4);
    assert_int_equal(st.instances_drawn, 5 + 3 + 0 + 4);
    assert_int_equal(st.last_instances, 4);
    assert_int_equal(st.last_lights, 0);
    assert_int_equal(st.last_scene_frame, 14);
    assert_int_equal(st.scene_resets, 0);
    assert_int_equal(st.validation_messages, 0);
    ze_render_backend_destroy(b);
}

/* Whether the last call drew: true after a drawn frame, false after one
 * whose scene still had changes to arrive (nothing drawn), however the
 * frame before went. */
static void test_drew_is_the_last_call(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.headless = true});
    ze_render_instance_t inst[2];
    memset(inst, 0, sizeof inst);
    for (int i = 0; i < 2; i++) {
        inst[i].world = ze_mat4_identity();
        inst[i].mesh = uuid_n((uint32_t)i);
        inst[i].id = (uint32_t)i;
    }
    assert_false(ze__render_backend_drew(b));
    ze_render_state_t s = scene_of(1, inst, 2, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_true(ze__render_backend_drew(b));
    s = scene_of(2, inst, 2, NULL, 0);
    s.instances_pending = true; /* a new scene, part of it still to come */
    s.scene_revision = 7;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_false(ze__render_backend_drew(b));
    s.instances_pending = false;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_true(ze__render_backend_drew(b));
    ze_render_backend_destroy(b);
}

/* The render thread's own CPU time per frame: counted for every frame
 * (no figure asserted, only that it is measured), the steady mean only
 * after the first 10. */
static void test_thread_cpu_time_counted(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.headless = true});
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_true(st.thread_cpu_ms == 0.0 && st.thread_cpu_avg_ms == 0.0);
    enum { N = 4096 };
    static ze_render_instance_t inst[N];
    for (uint32_t i = 0; i < N; i++)
        inst[i] = (ze_render_instance_t){.world = ze_mat4_identity(), .slot = i, .id = i + 1};
    for (uint64_t frame = 1; frame <= 12; frame++) {
        ze_render_state_t s = scene_of(frame, inst, N, NULL, 0);
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        st = ze_render_backend_stats(b);
        assert_true(st.thread_cpu_ms > 0.0);
        assert_true(st.thread_cpu_avg_ms > 0.0);
        if (frame <= 10)
            assert_true(st.thread_cpu_steady_ms == 0.0);
        else
            assert_true(st.thread_cpu_steady_ms > 0.0);
    }
    ze_render_backend_destroy(b);
}

static void test_bad_snapshot_rejected(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){0});
    ze_render_instance_t inst[1] = {{.world = ze_mat4_identity()}};
    ze_render_light_t light[1] = {{.type = ZE_RENDER_LIGHT_DIRECTIONAL}};
    ze_render_state_t s = scene_of(1, NULL, 3, light, 1);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_INVALID_ARG);
    s = scene_of(2, inst, 1, NULL, 2);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_frame(b, NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_frame(NULL, &s), ZE_ERR_INVALID_ARG);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.frames, 0);
    assert_int_equal(st.instances_drawn, 0);
    /* Rejected snapshots are not frames: the backend keeps working. */
    s = scene_of(3, inst, 1, light, 1);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_stats(b).frames, 1);
    assert_int_equal(ze_render_backend_stats(b).last_scene_frame, 3);
    ze_render_backend_destroy(b);
}

static void test_assets_resident_after_next_frame(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){0});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    ze_asset_data_t m = asset(1, ZE_ASSET_TYPE_MESH, 3);
    ze_asset_data_t mat = asset(2, ZE_ASSET_TYPE_MATERIAL, 1);
    ze_asset_data_t tex = asset(3, ZE_ASSET_TYPE_TEXTURE, 1);
    ze_asset_data_t env = asset(4, ZE_ASSET_TYPE_ENVMAP, 2);
    ze_asset_data_t tex2 = asset(5, ZE_ASSET_TYPE_TEXTURE, 7);
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &mat), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &tex), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &env), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &tex2), ZE_OK);
    /* Not resident before the render thread's next frame. */
    assert_int_equal(ze_render_backend_resident(b, m.uuid), 0);
    assert_int_equal(ze_render_backend_stats(b).assets_received, 0);

    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, m.uuid), 3);
    assert_int_equal(ze_render_backend_resident(b, mat.uuid), 1);
    assert_int_equal(ze_render_backend_resident(b, env.uuid), 2);
    assert_int_equal(ze_render_backend_resident(b, tex2.uuid), 7);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(99)), 0);
    assert_int_equal(ze_render_backend_resident(b, (ze_uuid_t){{0}}), 0);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.assets_received, 5);
    assert_int_equal(st.meshes, 1);
    assert_int_equal(st.materials, 1);
    assert_int_equal(st.textures, 2);
    assert_int_equal(st.envmaps, 1);

    /* A reload: a higher generation replaces the resident one, counts stay. */
    m.generation = 4;
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, m.uuid), 3);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, m.uuid), 4);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.assets_received, 6);
    assert_int_equal(st.meshes, 1);

    /* Two reloads before a frame: the last one wins. */
    tex.generation = 2;
    assert_int_equal(ze_render_backend_asset_ready(b, &tex), ZE_OK);
    tex.generation = 3;
    assert_int_equal(ze_render_backend_asset_ready(b, &tex), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, tex.uuid), 3);
    assert_int_equal(ze_render_backend_stats(b).textures, 2);

    /* Scenes, sources and files are accepted and ignored; garbage is not. */
    ze_asset_data_t scene = asset(20, ZE_ASSET_TYPE_SCENE, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &scene), ZE_OK);
    ze_asset_data_t src = asset(21, ZE_ASSET_TYPE_SOURCE, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &src), ZE_OK);
    ze_asset_data_t bad = asset(22, ZE_ASSET_TYPE_UNKNOWN, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &bad), ZE_ERR_INVALID_ARG);
    bad = asset(22, ZE_ASSET_TYPE_COUNT, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &bad), ZE_ERR_INVALID_ARG);
    bad = asset(22, ZE_ASSET_TYPE_MESH, 0); /* loaded assets have generation >= 1 */
    assert_int_equal(ze_render_backend_asset_ready(b, &bad), ZE_ERR_INVALID_ARG);
    bad = (ze_asset_data_t){.type = ZE_ASSET_TYPE_MESH, .generation = 1};
    assert_int_equal(ze_render_backend_asset_ready(b, &bad), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_asset_ready(b, NULL), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, scene.uuid), 0);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.assets_received, 8);
    assert_int_equal(st.assets_rejected, 0);
    ze_render_backend_destroy(b);
}

static void test_full_queue(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.pending_capacity = 4});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    for (uint32_t i = 1; i <= 4; i++) {
        ze_asset_data_t a = asset(i, ZE_ASSET_TYPE_MESH, i);
        assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
    }
    ze_asset_data_t extra = asset(5, ZE_ASSET_TYPE_MESH, 5);
    assert_int_equal(ze_render_backend_asset_ready(b, &extra), ZE_ERR_FULL);
    assert_int_equal(ze_render_backend_asset_ready(b, &extra), ZE_ERR_FULL);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.assets_rejected, 2);
    assert_int_equal(st.assets_received, 0);
    /* The next frame drains the queue; the retry then succeeds. */
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &extra), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.assets_received, 5);
    assert_int_equal(st.assets_rejected, 2);
    assert_int_equal(st.meshes, 5);
    for (uint32_t i = 1; i <= 5; i++)
        assert_int_equal(ze_render_backend_resident(b, uuid_n(i)), i);
    /* Many rounds through a small ring (indices wrap past the capacity). */
    for (uint32_t round = 0; round < 50; round++) {
        for (uint32_t i = 0; i < 4; i++) {
            ze_asset_data_t a = asset(100 + i, ZE_ASSET_TYPE_TEXTURE, round + 1);
            assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
        }
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    }
    assert_int_equal(ze_render_backend_resident(b, uuid_n(103)), 50);
    assert_int_equal(ze_render_backend_stats(b).textures, 4);
    assert_int_equal(ze_render_backend_stats(b).assets_received, 5 + 200);
    ze_render_backend_destroy(b);
}

/* A mesh asset of v vertices and i indices (the budgets read the counts). */
static ze_asset_data_t mesh_of(uint32_t n, uint32_t gen, uint32_t v, uint32_t i)
{
    ze_asset_data_t a = asset(n, ZE_ASSET_TYPE_MESH, gen);
    a.as.mesh.vertex_count = v;
    a.as.mesh.index_count = i;
    return a;
}

/* Releases share the ring with the notifications, in order: a level's
 * assets loaded and released 20 times leave nothing resident, the
 * geometry bytes at 0, and a release then a ready of the same uuid ends
 * resident; a full ring refuses a release like a notification. */
static void test_release_protocol(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){.pending_capacity = 64});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    for (uint32_t level = 0; level < 20; level++) {
        for (uint32_t i = 0; i < 8; i++) {
            ze_asset_data_t m = mesh_of(i, level + 1, 100 + i, 300);
            ze_asset_data_t t = asset(100 + i, ZE_ASSET_TYPE_TEXTURE, level + 1);
            ze_asset_data_t mt = asset(200 + i, ZE_ASSET_TYPE_MATERIAL, level + 1);
            assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
            assert_int_equal(ze_render_backend_asset_ready(b, &t), ZE_OK);
            assert_int_equal(ze_render_backend_asset_ready(b, &mt), ZE_OK);
        }
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        ze_render_stats_t st = ze_render_backend_stats(b);
        assert_int_equal(st.meshes + st.textures + st.materials, 24);
        assert_int_equal(st.vertex_bytes_used, (8 * 100 + 28) * ZE_RENDER_VERTEX_BYTES);
        assert_int_equal(st.index_bytes_used, 8 * 300 * ZE_RENDER_INDEX_BYTES);
        for (uint32_t i = 0; i < 8; i++) {
            assert_int_equal(ze_render_backend_asset_release(b, uuid_n(i)), ZE_OK);
            assert_int_equal(ze_render_backend_asset_release(b, uuid_n(100 + i)), ZE_OK);
            assert_int_equal(ze_render_backend_asset_release(b, uuid_n(200 + i)), ZE_OK);
        }
        assert_int_equal(ze_render_backend_resident(b, uuid_n(3)), level + 1); /* next frame */
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        st = ze_render_backend_stats(b);
        assert_int_equal(st.meshes + st.textures + st.materials, 0);
        assert_int_equal(st.vertex_bytes_used, 0);
        assert_int_equal(st.index_bytes_used, 0);
        assert_int_equal(st.assets_released, (level + 1) * 24);
        assert_int_equal(ze_render_backend_resident(b, uuid_n(3)), 0);
    }
    /* release then ready: resident; ready then release: gone */
    ze_asset_data_t m = mesh_of(1, 7, 10, 30);
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(1)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    ze_asset_data_t m2 = mesh_of(2, 7, 10, 30);
    assert_int_equal(ze_render_backend_asset_ready(b, &m2), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(2)), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(1)), 7);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(2)), 0);
    assert_int_equal(ze_render_backend_stats(b).vertex_bytes_used, 10 * ZE_RENDER_VERTEX_BYTES);
    /* a full ring */
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(ze_render_backend_asset_release(b, uuid_n(500 + i)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(1)), ZE_ERR_FULL);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_resident(b, uuid_n(1)), 7); /* the refused one */
    ze_render_backend_destroy(b);
}

/* The geometry budgets are the backend layer's: the null backend refuses
 * like Vulkan. */
static void test_budgets(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b =
        make(f, (ze_render_backend_desc_t){.vertex_budget_bytes = 1000 * ZE_RENDER_VERTEX_BYTES,
                                           .index_budget_bytes = 3000 * ZE_RENDER_INDEX_BYTES,
                                           .instance_budget = 2});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    ze_asset_data_t a = mesh_of(1, 1, 600, 100), c = mesh_of(2, 1, 600, 100);
    ze_asset_data_t d = mesh_of(3, 1, 100, 2901);
    assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &c), ZE_ERR_LIMIT); /* vertices */
    assert_int_equal(ze_render_backend_asset_ready(b, &d), ZE_ERR_LIMIT); /* indices */
    a.generation = 2;
    a.as.mesh.vertex_count = 1000; /* a reload replaces its own share: exactly the budget */
    assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
    assert_int_equal(ze_render_backend_asset_release(b, uuid_n(1)), ZE_OK);
    assert_int_equal(ze_render_backend_asset_ready(b, &c), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.budget_rejections, 2);
    assert_int_equal(st.meshes, 1);
    ze_render_instance_t inst[3] = {{.mesh = uuid_n(2), .id = 1}, {.id = 2}, {.id = 3}};
    s = scene_of(2, inst, 3, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_LIMIT);
    s = scene_of(3, inst, 2, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    st = ze_render_backend_stats(b);
    assert_int_equal(st.instances_live, 2);
    assert_int_equal(st.budget_rejections, 3);
    ze_render_backend_destroy(b);
}

static void test_device_lost(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make_faulty(f, (ze_render_backend_desc_t){0},
                                         (ze__render_faults_t){.lose_device_at_frame = 3});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    ze_render_state_t bad = scene_of(1, NULL, 1, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &bad), ZE_ERR_INVALID_ARG); /* not a frame */
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    uint64_t errors = ze_log_count(ZE_LOG_ERROR);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_IO);
    assert_true(ze_log_count(ZE_LOG_ERROR) > errors);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_IO);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_IO);
    assert_int_equal(ze_render_backend_stats(b).frames, 2);
    /* Notifications are still taken (the engine may be shutting down). */
    ze_asset_data_t a = asset(1, ZE_ASSET_TYPE_MESH, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
    ze_render_backend_destroy(b);

    b = make_faulty(f, (ze_render_backend_desc_t){0},
                    (ze__render_faults_t){.lose_device_at_frame = 1});
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_ERR_IO);
    assert_int_equal(ze_render_backend_stats(b).frames, 0);
    ze_render_backend_destroy(b);
}

static void test_scene_revision(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){0});
    ze_asset_data_t m = asset(1, ZE_ASSET_TYPE_MESH, 1);
    assert_int_equal(ze_render_backend_asset_ready(b, &m), ZE_OK);
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK); /* revision 0: the start */
    assert_int_equal(ze_render_backend_stats(b).scene_resets, 0);
    s.scene_revision = 1;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_stats(b).scene_resets, 1);
    s.scene_revision = 2;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    s.scene_revision = 5;
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.scene_resets, 3);
    /* Assets are keyed by uuid: a scene reload keeps them resident. */
    assert_int_equal(st.meshes, 1);
    assert_int_equal(ze_render_backend_resident(b, m.uuid), 1);
    ze_render_backend_destroy(b);
}

static void test_screenshot_and_frame_delay(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make_faulty(f, (ze_render_backend_desc_t){0},
                                         (ze__render_faults_t){.frame_delay_us = 20000});
    ze_render_state_t s = scene_of(1, NULL, 0, NULL, 0);
    uint64_t t0 = ze_time_now_ns();
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    assert_true(ze_time_now_ns() - t0 >= 40000000ull);
    assert_int_equal(ze_render_backend_screenshot(b, "/tmp/ze_null_shot.png"), ZE_ERR_UNSUPPORTED);
    assert_int_equal(ze_render_backend_screenshot(b, NULL), ZE_ERR_INVALID_ARG);
    ze_render_backend_destroy(b);
    /* NULL handles: harmless answers. */
    assert_int_equal(ze_render_backend_stats(NULL).frames, 0);
    assert_int_equal(ze_render_backend_resident(NULL, uuid_n(1)), 0);
    assert_int_equal(ze_render_backend_asset_ready(NULL, NULL), ZE_ERR_INVALID_ARG);
}

/* Steady state: frames and notifications allocate nothing once the
 * resident table holds the working set. */
static void test_no_allocations_in_steady_state(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *b = make(f, (ze_render_backend_desc_t){0});
    ze_render_instance_t inst[8] = {{.world = ze_mat4_identity()}};
    ze_render_state_t s = scene_of(1, inst, 8, NULL, 0);
    for (uint32_t i = 1; i <= 100; i++) {
        ze_asset_data_t a = asset(i, ZE_ASSET_TYPE_MESH, 1);
        assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
    }
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    uint64_t allocs = ze_mem_allocation_count(f->mm);
    for (uint32_t frame = 0; frame < 100; frame++) {
        ze_asset_data_t a = asset(1 + frame % 100, ZE_ASSET_TYPE_MESH, 2 + frame);
        assert_int_equal(ze_render_backend_asset_ready(b, &a), ZE_OK);
        assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
        (void)ze_render_backend_stats(b);
        (void)ze_render_backend_resident(b, a.uuid);
    }
    assert_int_equal(ze_mem_allocation_count(f->mm), allocs);
    ze_render_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_destroy_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drew_is_the_last_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thread_cpu_time_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_snapshot_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_assets_resident_after_next_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_protocol, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budgets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_revision, setup, teardown),
        cmocka_unit_test_setup_teardown(test_screenshot_and_frame_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_allocations_in_steady_state, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
