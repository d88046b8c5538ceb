/* The render graph's Vulkan executor with aliased transients, on whatever
 * device the backend picks (lavapipe in CI) with validation and
 * synchronization validation on: zero messages allowed.
 *
 * Test passes replace the frame's (ze__vk_graph_set_passes): "fill_a"
 * clears transient a to red, "copy_a" copies a into transient b, "fill_c"
 * clears transient c to green, "combine" copies b's left half and c's
 * right half into the target's LDR image. a (passes 0-1) and c (2-3) have
 * the same size and lifetimes that do not overlap: they share one memory
 * slot, so c is written over a's memory; b lives across both. The picture
 * (left red, right green) and zero hazards show the barriers between
 * aliases are right; the stats report the bytes with and without
 * aliasing; a resize rebuilds the graph with the same plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "gfx/vk_internal.h"
#include "gfx/vk_messages.h"
#include "zengine/gfx.h"

enum { W = 64, H = 32 };

typedef struct res_t {
    ze_rg_res_t a, b, c, ldr;
} res_t;

static res_t g_res; /* the test passes' handles (one graph at a time) */

static void clear(const ze_vk_pass_ctx_t *ctx, ze_rg_res_t r, float red, float green)
{
    const ze_vk_image_t *img = &ze__vk_graph_res(ctx->b, r)->image;
    VkClearColorValue c = {{red, green, 0.0f, 1.0f}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(ctx->cmd, img->image, ze__rg_access(ZE_RG_TRANSFER_DST)->layout, &c, 1,
                         &range);
}

static void copy(const ze_vk_pass_ctx_t *ctx, ze_rg_res_t from, ze_rg_res_t to, uint32_t x,
                 uint32_t w)
{
    const ze_vk_image_t *src = &ze__vk_graph_res(ctx->b, from)->image;
    const ze_vk_image_t *dst = &ze__vk_graph_res(ctx->b, to)->image;
    VkImageCopy region = {
        .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .srcOffset = {(int32_t)x, 0, 0},
        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .dstOffset = {(int32_t)x, 0, 0},
        .extent = {w, dst->height, 1},
    };
    vkCmdCopyImage(ctx->cmd, src->image, ze__rg_access(ZE_RG_TRANSFER_SRC)->layout, dst->image,
                   ze__rg_access(ZE_RG_TRANSFER_DST)->layout, 1, &region);
}

static ze_rg_resource_desc_t rgba8(const ze_vk_shape_t *shape)
{
    return (ze_rg_resource_desc_t){.kind = ZE_RG_IMAGE,
                                   .format = VK_FORMAT_R8G8B8A8_UNORM,
                                   .width = shape->width,
                                   .height = shape->height};
}

static void fill_a_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                           const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    ze_rg_resource_desc_t d = rgba8(shape);
    g_res.a = ze__rg_create_resource(g, "a", &d);
    g_res.b = ze__rg_create_resource(g, "b", &d);
    g_res.c = ze__rg_create_resource(g, "c", &d);
    g_res.ldr = ze__rg_find(g, ZE_VK_RES_LDR);
    ze__rg_use(g, pass, g_res.a, ZE_RG_TRANSFER_DST);
}

static ze_result fill_a_record(const ze_vk_pass_ctx_t *ctx)
{
    clear(ctx, g_res.a, 1.0f, 0.0f);
    return ZE_OK;
}

static void copy_a_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                           const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze__rg_use(g, pass, g_res.a, ZE_RG_TRANSFER_SRC);
    ze__rg_use(g, pass, g_res.b, ZE_RG_TRANSFER_DST);
}

static ze_result copy_a_record(const ze_vk_pass_ctx_t *ctx)
{
    copy(ctx, g_res.a, g_res.b, 0, ze__vk_graph_res(ctx->b, g_res.b)->image.width);
    return ZE_OK;
}

static void fill_c_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                           const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze__rg_use(g, pass, g_res.c, ZE_RG_TRANSFER_DST);
}

static ze_result fill_c_record(const ze_vk_pass_ctx_t *ctx)
{
    clear(ctx, g_res.c, 0.0f, 1.0f);
    return ZE_OK;
}

static void combine_declare(ze_vk_backend_t *b, void *state, ze_rg_t *g, ze_rg_pass_t pass,
                            const ze_vk_shape_t *shape)
{
    (void)b;
    (void)state;
    (void)shape;
    ze__rg_use(g, pass, g_res.b, ZE_RG_TRANSFER_SRC);
    ze__rg_use(g, pass, g_res.c, ZE_RG_TRANSFER_SRC);
    ze__rg_use(g, pass, g_res.ldr, ZE_RG_TRANSFER_DST);
}

static ze_result combine_record(const ze_vk_pass_ctx_t *ctx)
{
    uint32_t w = ze__vk_graph_res(ctx->b, g_res.ldr)->image.width;
    copy(ctx, g_res.b, g_res.ldr, 0, w / 2);
    copy(ctx, g_res.c, g_res.ldr, w / 2, w - w / 2);
    return ZE_OK;
}

static const ze_vk_pass_t FILL_A = {
    .name = "fill_a", .kind = ZE_RG_TRANSFER, .declare = fill_a_declare, .record = fill_a_record};
static const ze_vk_pass_t COPY_A = {
    .name = "copy_a", .kind = ZE_RG_TRANSFER, .declare = copy_a_declare, .record = copy_a_record};
static const ze_vk_pass_t FILL_C = {
    .name = "fill_c", .kind = ZE_RG_TRANSFER, .declare = fill_c_declare, .record = fill_c_record};
static const ze_vk_pass_t COMBINE = {.name = "combine",
                                     .kind = ZE_RG_TRANSFER,
                                     .declare = combine_declare,
                                     .record = combine_record};
static const ze_vk_pass_t *const TEST_PASSES[] = {&FILL_A, &COPY_A, &FILL_C, &COMBINE};

/* ------------------------------------------------------------------ */

typedef struct fixture_t {
    ze_mem_t *mm;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    /* Under ASan the layer's synchronization validation leaks (C++
       allocations LeakSanitizer cannot attribute): the dev preset runs it,
       ASan runs the same frames with ordinary validation. */
#if !defined(ZE_SANITIZER_ADDRESS)
    setenv("ZENGINE_VK_SYNC_VALIDATION", "1", 1); /* hazards between aliases count */
#endif
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
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

static void frame(ze_render_backend_t *b, uint32_t w, uint32_t h, uint64_t n)
{
    ze_render_state_t s = {.frame = n, .width = w, .height = h, .sky = {.exposure = 1.0f}};
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
}

static void check_picture(fixture_t *f, ze_render_backend_t *b, uint32_t w, uint32_t h)
{
    ze_allocator_t alloc = ze_mem_owner_allocator(f->mm, ZE_MEM_OWNER_ASSET);
    size_t bytes = (size_t)w * h * 4;
    uint8_t *px = ze_alloc(alloc, bytes, 16);
    assert_int_equal(ze__vk_test_pixels(b, px, bytes), ZE_OK);
    uint32_t wrong = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *p = &px[((size_t)y * w + x) * 4];
            bool left = x < w / 2;
            wrong += p[0] != (left ? 255 : 0) || p[1] != (left ? 0 : 255) || p[2] != 0;
        }
    ze_free(alloc, px, bytes);
    print_message("%ux%u: %u pixels not as expected\n", w, h, wrong);
    assert_int_equal(wrong, 0);
}

static void test_aliased_transients(void **state)
{
    fixture_t *f = *state;
    ze_render_backend_t *rb = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = W, .height = H};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &rb), ZE_OK);
    assert_true(ze_render_backend_stats(rb).validation_enabled);
    ze_vk_backend_t *b = ze__vk(rb);
    assert_int_equal(ze__vk_graph_set_passes(b, TEST_PASSES, 4), ZE_OK);
    for (uint64_t i = 1; i <= 3; i++)
        frame(rb, W, H, i);
    check_picture(f, rb, W, H);

    /* a and c in one slot, b in its own: two of three images' bytes */
    const ze_rg_resource_info_t *a =
        ze__rg_resource(b->graph.rg, ze__rg_index(b->graph.rg, g_res.a));
    const ze_rg_resource_info_t *c =
        ze__rg_resource(b->graph.rg, ze__rg_index(b->graph.rg, g_res.c));
    const ze_rg_resource_info_t *bb =
        ze__rg_resource(b->graph.rg, ze__rg_index(b->graph.rg, g_res.b));
    assert_int_equal(a->slot, c->slot);
    assert_int_not_equal(a->slot, bb->slot);
    assert_int_equal(ze__rg_slot_count(b->graph.rg), 2);
    ze_render_stats_t st = ze_render_backend_stats(rb);
    print_message("transients: %llu bytes aliased, %llu without\n",
                  (unsigned long long)st.transient_bytes,
                  (unsigned long long)st.transient_bytes_unaliased);
    assert_true(st.transient_bytes < st.transient_bytes_unaliased);
    assert_true(st.transient_bytes * 3 <= st.transient_bytes_unaliased * 2 + 4096);
    /* every pass timed, in order */
    assert_int_equal(st.gpu_pass_count, 4);
    assert_string_equal(st.gpu_passes[0].name, "fill_a");
    assert_string_equal(st.gpu_passes[3].name, "combine");

    char path[256];
    snprintf(path, sizeof path, "/tmp/ze_vk_alias_%d.json", (int)getpid());
    assert_int_equal(ze_render_backend_dump_graph(rb, path), ZE_OK);
    json_error_t jerr;
    json_t *dump = json_load_file(path, 0, &jerr);
    remove(path);
    if (!dump)
        fail_msg("%s: %s", path, jerr.text);
    json_t *slot = json_array_get(json_object_get(json_object_get(dump, "aliasing"), "slots"),
                                  (size_t)a->slot);
    json_t *members = json_object_get(slot, "resources");
    assert_int_equal(json_array_size(members), 2);
    assert_string_equal(json_string_value(json_array_get(members, 0)), "a");
    assert_string_equal(json_string_value(json_array_get(members, 1)), "c");
    json_decref(dump);

    /* a resize rebuilds the graph (new images, same plan), the picture too */
    uint64_t builds = b->graph.builds;
    for (uint64_t i = 4; i <= 6; i++)
        frame(rb, W * 2, H + 8, i);
    assert_true(b->graph.builds > builds);
    check_picture(f, rb, W * 2, H + 8);
    assert_int_equal(ze__rg_slot_count(b->graph.rg), 2);

    st = ze_render_backend_stats(rb);
    vk_expect_no_messages(st.validation_messages);
    ze_render_backend_destroy(rb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aliased_transients),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
