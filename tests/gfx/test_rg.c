/* The render graph's core without a GPU (src/gfx/rg.c, rg_dump.c).
 *
 * A synthetic 10-pass frame (two-phase culling, depth prepass, depth
 * pyramid, G-buffer, lighting, sky, bloom, tone mapping, present) declared
 * out of order compiles to the committed JSON tests/gfx/data/rg_10pass.json
 * (ZE_TEST_WRITE_EXPECTED=DIR writes what it produced, to look at before
 * committing a change); its transients alias (bytes with and without);
 * barriers follow the access table's rules; a cycle, a read of something
 * nobody writes and two unordered writers fail to compile with an error
 * naming the passes and resources; declaration mistakes are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfx/rg.h"
#include "zengine/mem.h"

/* ------------------------------------------------------ log capture */

typedef struct captured_t {
    char last_error[ZE_LOG_MESSAGE_MAX];
    uint32_t errors;
} captured_t;

static captured_t g_cap;

static void sink(void *user, const ze_log_record_t *rec)
{
    (void)user;
    if (rec->level >= ZE_LOG_ERROR && strcmp(rec->channel, ZE_RG_LOG) == 0) {
        snprintf(g_cap.last_error, sizeof g_cap.last_error, "%s", rec->message);
        g_cap.errors++;
    }
}

static int setup(void **state)
{
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL, .sink = sink});
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ze_log_reset();
    return 0;
}

static void expect_error(const char *const *parts)
{
    print_message("error: %s\n", g_cap.last_error);
    for (; *parts; parts++)
        if (!strstr(g_cap.last_error, *parts))
            fail_msg("'%s' missing from the error \"%s\"", *parts, g_cap.last_error);
}

/* ---------------------------------------------------------- helpers */

static uint32_t bytes_per_pixel(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return 16;
    default:
        return 4;
    }
}

/* What a device would say, roughly: pixels x bytes (mips add a third),
 * 64 KiB alignment for images, 256 for buffers; depth in types 0x2 only. */
static ze_result measure(void *user, uint32_t index, const ze_rg_resource_info_t *r,
                         ze_rg_memory_t *out)
{
    uint32_t *calls = user;
    (void)index;
    (*calls)++;
    if (r->desc.kind == ZE_RG_BUFFER) {
        *out = (ze_rg_memory_t){r->desc.size, 256, 0x7};
        return ZE_OK;
    }
    uint64_t px = (uint64_t)r->desc.width * r->desc.height * bytes_per_pixel(r->desc.format);
    if (r->desc.mips > 1)
        px += px / 3;
    *out = (ze_rg_memory_t){(px + 0xFFFF) & ~(uint64_t)0xFFFF, 0x10000,
                            r->desc.format == VK_FORMAT_D32_SFLOAT ? 0x2u : 0x7u};
    return ZE_OK;
}

typedef struct graph_t {
    ze_rg_t *g;
    uint32_t measured;
} graph_t;

static void graph_make(graph_t *gr)
{
    memset(gr, 0, sizeof *gr);
    ze_rg_desc_t d = {
        .alloc = ze_mem_system_allocator(), .measure = measure, .measure_user = &gr->measured};
    assert_int_equal(ze__rg_create(&d, &gr->g), ZE_OK);
}

static ze_rg_resource_desc_t image(VkFormat f, uint32_t w, uint32_t h)
{
    return (ze_rg_resource_desc_t){.kind = ZE_RG_IMAGE, .format = f, .width = w, .height = h};
}

static ze_rg_resource_desc_t buffer(uint64_t size)
{
    return (ze_rg_resource_desc_t){.kind = ZE_RG_BUFFER, .size = size};
}

static ze_rg_pass_t find_pass(ze_rg_t *g, const char *name, uint32_t *position)
{
    for (uint32_t i = 0; i < ze__rg_pass_count(g); i++) {
        ze_rg_compiled_pass_t p = ze__rg_pass_at(g, i);
        if (strcmp(p.name, name) == 0) {
            if (position)
                *position = i;
            return p.handle;
        }
    }
    fail_msg("no pass '%s'", name);
    return (ze_rg_pass_t){0};
}

/* The barrier before pass `pass` (or in the final batch: pass NULL) on
 * resource `res`; NULL when there is none. */
static const ze_rg_barrier_t *barrier_on(ze_rg_t *g, const char *pass, const char *res)
{
    uint32_t first, count, total;
    if (pass) {
        uint32_t pos = 0;
        find_pass(g, pass, &pos);
        ze_rg_compiled_pass_t p = ze__rg_pass_at(g, pos);
        first = p.barrier_first;
        count = p.barrier_count;
    } else {
        ze__rg_final_barriers(g, &first, &count);
    }
    const ze_rg_barrier_t *b = ze__rg_barriers(g, &total);
    int32_t ri = ze__rg_index(g, ze__rg_find(g, res));
    assert_true(ri >= 0);
    for (uint32_t i = first; i < first + count; i++)
        if (b[i].resource == (uint32_t)ri)
            return &b[i];
    return NULL;
}

/* ------------------------------------------------- the 10-pass frame */

enum { FW = 1920, FH = 1080 };

/* Declared in running order; hdr's second writer (sky) is ordered after
 * the first explicitly, depth's (gbuffer, after the prepass) by the data:
 * hzb reads the prepass's depth before gbuffer writes it. */
static void declare_frame(ze_rg_t *g)
{
    ze_rg_import_t keep = {.before = ZE_RG_STORAGE_READ, .kind = ZE_RG_COMPUTE};
    ze_rg_import_t ldr_imp = {.before = ZE_RG_STORAGE_WRITE,
                              .after = ZE_RG_STORAGE_WRITE,
                              .kind = ZE_RG_COMPUTE,
                              .discard = true};
    ze_rg_import_t back_imp = {.before = ZE_RG_TRANSFER_DST,
                               .after = ZE_RG_PRESENT,
                               .kind = ZE_RG_TRANSFER,
                               .discard = true};
    ze_rg_resource_desc_t d = buffer(64u << 20);
    ze_rg_res_t instances = ze__rg_import(g, "instances", &d, &keep);
    d = image(VK_FORMAT_R8G8B8A8_UNORM, FW, FH);
    ze_rg_res_t ldr = ze__rg_import(g, "ldr", &d, &ldr_imp);
    d = image(VK_FORMAT_B8G8R8A8_UNORM, FW, FH);
    ze_rg_res_t back = ze__rg_import(g, "backbuffer", &d, &back_imp);
    d = buffer(1u << 20);
    ze_rg_res_t draws = ze__rg_create_resource(g, "draws", &d);
    ze_rg_res_t draws_late = ze__rg_create_resource(g, "draws_late", &d);
    d = image(VK_FORMAT_D32_SFLOAT, FW, FH);
    ze_rg_res_t depth = ze__rg_create_resource(g, "depth", &d);
    d = image(VK_FORMAT_R32_SFLOAT, FW / 2, FH / 2);
    d.mips = 10;
    ze_rg_res_t hzb = ze__rg_create_resource(g, "hzb", &d);
    d = image(VK_FORMAT_R8G8B8A8_SRGB, FW, FH);
    ze_rg_res_t albedo = ze__rg_create_resource(g, "gbuffer_albedo", &d);
    d = image(VK_FORMAT_R16G16B16A16_SFLOAT, FW, FH);
    ze_rg_res_t normal = ze__rg_create_resource(g, "gbuffer_normal", &d);
    ze_rg_res_t hdr = ze__rg_create_resource(g, "hdr", &d);
    d = image(VK_FORMAT_R16G16B16A16_SFLOAT, FW / 2, FH / 2);
    ze_rg_res_t bloom = ze__rg_create_resource(g, "bloom", &d);

    ze_rg_pass_t p;
    p = ze__rg_pass(g, "cull", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, instances, ZE_RG_STORAGE_READ);
    ze__rg_use(g, p, draws, ZE_RG_STORAGE_WRITE);
    p = ze__rg_pass(g, "depth_prepass", ZE_RG_GRAPHICS, NULL, NULL);
    ze__rg_use(g, p, draws, ZE_RG_INDIRECT);
    ze__rg_use(g, p, depth, ZE_RG_DEPTH_ATTACHMENT);
    p = ze__rg_pass(g, "hzb", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, depth, ZE_RG_SAMPLED);
    ze__rg_use(g, p, hzb, ZE_RG_STORAGE_WRITE);
    p = ze__rg_pass(g, "cull_late", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, instances, ZE_RG_STORAGE_READ);
    ze__rg_use(g, p, hzb, ZE_RG_SAMPLED);
    ze__rg_use(g, p, draws_late, ZE_RG_STORAGE_WRITE);
    p = ze__rg_pass(g, "gbuffer", ZE_RG_GRAPHICS, NULL, NULL);
    ze__rg_use(g, p, draws_late, ZE_RG_INDIRECT);
    ze__rg_use(g, p, depth, ZE_RG_DEPTH_ATTACHMENT);
    ze__rg_use(g, p, albedo, ZE_RG_COLOR_ATTACHMENT);
    ze__rg_use(g, p, normal, ZE_RG_COLOR_ATTACHMENT);
    ze_rg_pass_t lighting = ze__rg_pass(g, "lighting", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, lighting, albedo, ZE_RG_SAMPLED);
    ze__rg_use(g, lighting, normal, ZE_RG_SAMPLED);
    ze__rg_use(g, lighting, depth, ZE_RG_SAMPLED);
    ze__rg_use(g, lighting, hdr, ZE_RG_STORAGE_WRITE);
    ze_rg_pass_t sky = ze__rg_pass(g, "sky", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, sky, depth, ZE_RG_SAMPLED);
    ze__rg_use(g, sky, hdr, ZE_RG_STORAGE_WRITE);
    ze__rg_order(g, lighting, sky);
    p = ze__rg_pass(g, "bloom", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, hdr, ZE_RG_SAMPLED);
    ze__rg_use(g, p, bloom, ZE_RG_STORAGE_WRITE);
    p = ze__rg_pass(g, "tonemap", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, hdr, ZE_RG_SAMPLED);
    ze__rg_use(g, p, bloom, ZE_RG_SAMPLED);
    ze__rg_use(g, p, ldr, ZE_RG_STORAGE_WRITE);
    p = ze__rg_pass(g, "present", ZE_RG_TRANSFER, NULL, NULL);
    ze__rg_use(g, p, ldr, ZE_RG_TRANSFER_SRC);
    ze__rg_use(g, p, back, ZE_RG_TRANSFER_DST);
}

static bool read_file(const char *path, char *buf, size_t cap, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    *len = fread(buf, 1, cap - 1, f);
    buf[*len] = 0;
    fclose(f);
    return true;
}

static void test_ten_pass_frame(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    declare_frame(gr.g);
    assert_int_equal(ze__rg_compile(gr.g), ZE_OK);
    assert_int_equal(ze__rg_pass_count(gr.g), 10);
    assert_int_equal(gr.measured, 8); /* every transient, once */

    const char *want[] = {"cull",     "depth_prepass", "hzb",   "cull_late", "gbuffer",
                          "lighting", "sky",           "bloom", "tonemap",   "present"};
    for (uint32_t i = 0; i < 10; i++)
        assert_string_equal(ze__rg_pass_at(gr.g, i).name, want[i]);

    char path[256];
    snprintf(path, sizeof path, "/tmp/ze_rg_10pass_%d.json", (int)getpid());
    assert_int_equal(ze__rg_dump_json(gr.g, path), ZE_OK);
    static char got[1 << 18], expected[1 << 18];
    size_t got_len = 0, want_len = 0;
    assert_true(read_file(path, got, sizeof got, &got_len));
    remove(path);
    const char *dir = getenv("ZE_TEST_WRITE_EXPECTED");
    if (dir) {
        char out[1024];
        snprintf(out, sizeof out, "%s/rg_10pass.json", dir);
        FILE *f = fopen(out, "wb");
        assert_non_null(f);
        fwrite(got, 1, got_len, f);
        fclose(f);
        print_message("written %s\n", out);
    }
    snprintf(path, sizeof path, "%s/rg_10pass.json", ZE_TEST_DATA);
    assert_true(read_file(path, expected, sizeof expected, &want_len));
    if (got_len != want_len || memcmp(got, expected, got_len) != 0)
        fail_msg("the dump differs from %s (ZE_TEST_WRITE_EXPECTED=DIR writes it)", path);

    /* the same declarations again (a rebuild) give the same bytes */
    ze__rg_reset(gr.g);
    declare_frame(gr.g);
    assert_int_equal(ze__rg_compile(gr.g), ZE_OK);
    snprintf(path, sizeof path, "/tmp/ze_rg_10pass_again_%d.json", (int)getpid());
    assert_int_equal(ze__rg_dump_json(gr.g, path), ZE_OK);
    assert_true(read_file(path, expected, sizeof expected, &want_len));
    remove(path);
    assert_true(want_len == got_len && memcmp(got, expected, got_len) == 0);
    ze__rg_destroy(gr.g);
}

static void test_aliasing(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    declare_frame(gr.g);
    assert_int_equal(ze__rg_compile(gr.g), ZE_OK);
    uint64_t without, with;
    ze__rg_memory(gr.g, &without, &with);
    print_message("transients: %llu bytes without aliasing, %llu with (%.1f %% saved)\n",
                  (unsigned long long)without, (unsigned long long)with,
                  100.0 * (double)(without - with) / (double)without);
    assert_true(with < without);
    /* the sum of the slots, and each member fits its slot */
    uint64_t sum = 0;
    for (uint32_t s = 0; s < ze__rg_slot_count(gr.g); s++)
        sum += ze__rg_slot(gr.g, s)->mem.size;
    assert_int_equal(sum, with);
    uint64_t each = 0;
    for (uint32_t i = 0; i < ze__rg_resource_count(gr.g); i++) {
        const ze_rg_resource_info_t *r = ze__rg_resource(gr.g, i);
        if (r->imported) {
            assert_int_equal(r->slot, -1);
            continue;
        }
        each += r->mem.size;
        const ze_rg_slot_t *s = ze__rg_slot(gr.g, (uint32_t)r->slot);
        assert_true(r->mem.size <= s->mem.size);
        assert_true(s->mem.types & r->mem.types);
        /* no two members of a slot live at the same time, nor mix types */
        for (uint32_t k = 0; k < ze__rg_resource_count(gr.g); k++) {
            const ze_rg_resource_info_t *o = ze__rg_resource(gr.g, k);
            if (k == i || o->slot != r->slot)
                continue;
            assert_true(o->last < r->first || r->last < o->first);
            assert_int_equal(o->desc.kind, r->desc.kind);
        }
    }
    assert_int_equal(each, without);
    /* the pyramid, the G-buffer normals and bloom take turns in one
       slot; the late draws reuse the early ones' memory */
    int32_t slot_of[4];
    const char *names[4] = {"hzb", "gbuffer_normal", "bloom", "draws"};
    for (int i = 0; i < 4; i++)
        slot_of[i] = ze__rg_resource(gr.g, ze__rg_index(gr.g, ze__rg_find(gr.g, names[i])))->slot;
    assert_int_equal(slot_of[0], slot_of[1]);
    assert_int_equal(slot_of[0], slot_of[2]);
    assert_int_equal(
        slot_of[3],
        ze__rg_resource(gr.g, ze__rg_index(gr.g, ze__rg_find(gr.g, "draws_late")))->slot);
    /* an aliased transient starts behind its slot's previous user: the
       normals behind the pyramid (written by hzb, read by cull_late); the
       pyramid, first in the slot, behind the previous frame's bloom (read
       by tone mapping) */
    const ze_rg_barrier_t *b = barrier_on(gr.g, "gbuffer", "gbuffer_normal");
    assert_non_null(b);
    assert_int_equal(b->old_layout, VK_IMAGE_LAYOUT_UNDEFINED);
    assert_int_equal(b->new_layout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    assert_int_equal(b->src_stages, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    assert_int_equal(b->src_access, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    b = barrier_on(gr.g, "hzb", "hzb");
    assert_non_null(b);
    assert_int_equal(b->old_layout, VK_IMAGE_LAYOUT_UNDEFINED);
    assert_int_equal(b->new_layout, VK_IMAGE_LAYOUT_GENERAL);
    assert_int_equal(b->src_stages, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    ze__rg_destroy(gr.g);
}

/* The rules of rg.h on small graphs. */
static void test_barrier_rules(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R16G16B16A16_SFLOAT, 64, 64);
    ze_rg_res_t a = ze__rg_create_resource(g, "a", &d);
    ze_rg_res_t buf = ze__rg_create_resource(
        g, "buf", &(ze_rg_resource_desc_t){.kind = ZE_RG_BUFFER, .size = 4096});
    ze_rg_pass_t w = ze__rg_pass(g, "write", ZE_RG_GRAPHICS, NULL, NULL);
    ze__rg_use(g, w, a, ZE_RG_COLOR_ATTACHMENT);
    ze_rg_pass_t r1 = ze__rg_pass(g, "read_fragment", ZE_RG_GRAPHICS, NULL, NULL);
    ze__rg_use(g, r1, a, ZE_RG_SAMPLED);
    ze__rg_use(g, r1, buf, ZE_RG_STORAGE_WRITE);
    ze_rg_pass_t r2 = ze__rg_pass(g, "read_fragment_again", ZE_RG_GRAPHICS, NULL, NULL);
    ze__rg_use(g, r2, a, ZE_RG_SAMPLED);
    ze_rg_pass_t r3 = ze__rg_pass(g, "read_compute", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, r3, a, ZE_RG_SAMPLED);
    ze__rg_use(g, r3, buf, ZE_RG_STORAGE_READ);
    assert_int_equal(ze__rg_compile(g), ZE_OK);

    const ze_rg_barrier_t *b = barrier_on(g, "write", "a");
    assert_non_null(b);
    assert_int_equal(b->old_layout, VK_IMAGE_LAYOUT_UNDEFINED);
    assert_int_equal(b->new_layout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    assert_int_equal(b->dst_stages, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT);
    /* a wraps onto itself: behind the previous frame's compute read */
    assert_true(b->src_stages & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    b = barrier_on(g, "read_fragment", "a");
    assert_non_null(b);
    assert_int_equal(b->src_stages, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT);
    assert_int_equal(b->src_access, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    assert_int_equal(b->dst_access, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    assert_int_equal(b->new_layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    /* the same read at the same stages: already visible, no barrier */
    assert_null(barrier_on(g, "read_fragment_again", "a"));
    /* a read at a stage not covered yet: waits for the write again */
    b = barrier_on(g, "read_compute", "a");
    assert_non_null(b);
    assert_int_equal(b->dst_stages, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    assert_int_equal(b->old_layout, b->new_layout);
    assert_true(b->src_access & VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    /* buffers: no layouts, a memory dependency from the fragment write */
    b = barrier_on(g, "read_compute", "buf");
    assert_non_null(b);
    assert_int_equal(b->src_access, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    assert_int_equal(b->src_stages, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT);
    assert_int_equal(b->dst_access, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);

    /* imports: from `before`, into `after` at the end; unused ones untouched */
    ze__rg_reset(g);
    ze_rg_import_t imp = {.before = ZE_RG_TRANSFER_DST,
                          .after = ZE_RG_PRESENT,
                          .kind = ZE_RG_TRANSFER,
                          .discard = true};
    ze_rg_res_t back = ze__rg_import(g, "back", &d, &imp);
    ze__rg_import(g, "unused", &d, &imp);
    ze_rg_pass_t blit = ze__rg_pass(g, "blit", ZE_RG_TRANSFER, NULL, NULL);
    ze__rg_use(g, blit, back, ZE_RG_TRANSFER_DST);
    assert_int_equal(ze__rg_compile(g), ZE_OK);
    b = barrier_on(g, "blit", "back");
    assert_non_null(b);
    assert_int_equal(b->old_layout, VK_IMAGE_LAYOUT_UNDEFINED); /* discarded */
    assert_int_equal(b->src_stages, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT);
    b = barrier_on(g, NULL, "back");
    assert_non_null(b);
    assert_int_equal(b->old_layout, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    assert_int_equal(b->new_layout, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    assert_int_equal(b->src_access, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    assert_null(barrier_on(g, NULL, "unused"));
    assert_int_equal(gr.measured, 2); /* the first graph's two transients */

    /* outside a graph: a screenshot's copy and back, by the same table */
    ze_rg_barrier_t t =
        ze__rg_transition(ZE_RG_STORAGE_WRITE, ZE_RG_COMPUTE, ZE_RG_TRANSFER_SRC, ZE_RG_TRANSFER);
    assert_int_equal(t.old_layout, VK_IMAGE_LAYOUT_GENERAL);
    assert_int_equal(t.new_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    assert_int_equal(t.src_stages, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    assert_int_equal(t.src_access, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    assert_int_equal(t.dst_stages, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT);
    assert_int_equal(t.dst_access, VK_ACCESS_2_TRANSFER_READ_BIT);
    ze__rg_destroy(g);
}

/* -------------------------------------------------------- bad input */

static void test_cycle(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R8G8B8A8_UNORM, 8, 8);
    ze_rg_res_t x = ze__rg_create_resource(g, "x", &d), y = ze__rg_create_resource(g, "y", &d);
    ze_rg_res_t z = ze__rg_create_resource(g, "z", &d);
    ze_rg_pass_t a = ze__rg_pass(g, "alpha", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t b = ze__rg_pass(g, "beta", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t c = ze__rg_pass(g, "gamma", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, a, x, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, b, x, ZE_RG_SAMPLED);
    ze__rg_use(g, b, y, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, c, y, ZE_RG_SAMPLED);
    ze__rg_use(g, c, z, ZE_RG_STORAGE_WRITE);
    ze__rg_order(g, c, a); /* against the data */
    assert_int_equal(ze__rg_compile(g), ZE_ERR_CYCLE);
    assert_false(ze__rg_compiled(g));
    expect_error((const char *const[]){"cycle", "'alpha' writes 'x' that 'beta' reads",
                                       "'beta' writes 'y' that 'gamma' reads",
                                       "'gamma' is ordered before 'alpha'", NULL});
    assert_int_equal(ze__rg_dump_json(g, "/tmp/never.json"), ZE_ERR_STATE);

    /* through a write-after-read: beta reads the imported history before
       alpha overwrites it, and beta is asked to run after alpha */
    ze__rg_reset(g);
    ze_rg_import_t hist = {.before = ZE_RG_SAMPLED, .kind = ZE_RG_COMPUTE};
    ze_rg_res_t h = ze__rg_import(g, "history", &d, &hist);
    b = ze__rg_pass(g, "beta", ZE_RG_COMPUTE, NULL, NULL);
    a = ze__rg_pass(g, "alpha", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, b, h, ZE_RG_SAMPLED);
    ze__rg_use(g, a, h, ZE_RG_STORAGE_WRITE);
    ze__rg_order(g, a, b);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_CYCLE);
    expect_error((const char *const[]){"'beta' reads 'history' before 'alpha' writes it",
                                       "'alpha' is ordered before 'beta'", NULL});
    ze__rg_destroy(g);
}

static void test_read_without_writer(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R8G8B8A8_UNORM, 8, 8);
    ze_rg_res_t ghost = ze__rg_create_resource(g, "ghost", &d);
    ze_rg_res_t out = ze__rg_create_resource(g, "out", &d);
    ze_rg_pass_t p = ze__rg_pass(g, "reader", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, ghost, ZE_RG_SAMPLED);
    ze__rg_use(g, p, out, ZE_RG_STORAGE_WRITE);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_NOT_FOUND);
    expect_error(
        (const char *const[]){"'reader' reads 'ghost'", "no pass declared before it", NULL});

    /* a writer declared after the read does not count */
    ze__rg_reset(g);
    ghost = ze__rg_create_resource(g, "ghost", &d);
    p = ze__rg_pass(g, "reader", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, ghost, ZE_RG_SAMPLED);
    ze_rg_pass_t late = ze__rg_pass(g, "writer", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, late, ghost, ZE_RG_STORAGE_WRITE);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_NOT_FOUND);
    expect_error((const char *const[]){"'reader' reads 'ghost'", NULL});

    /* imported with its contents: fine; imported to be discarded: not */
    ze__rg_reset(g);
    ze_rg_import_t hist = {.before = ZE_RG_SAMPLED, .kind = ZE_RG_COMPUTE};
    ze_rg_res_t kept = ze__rg_import(g, "history", &d, &hist);
    out = ze__rg_create_resource(g, "out", &d);
    p = ze__rg_pass(g, "reader", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, kept, ZE_RG_SAMPLED);
    ze__rg_use(g, p, out, ZE_RG_STORAGE_WRITE);
    assert_int_equal(ze__rg_compile(g), ZE_OK);
    assert_null(barrier_on(g, "reader", "history")); /* as it was left: nothing to wait for */
    ze__rg_reset(g);
    ze_rg_import_t gone = {.discard = true};
    ze_rg_res_t lost = ze__rg_import(g, "scratch", &d, &gone);
    p = ze__rg_pass(g, "reader", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, lost, ZE_RG_SAMPLED);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_NOT_FOUND);
    expect_error((const char *const[]){"'reader' reads 'scratch'", NULL});
    ze__rg_destroy(g);
}

static void test_unordered_writers(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R16G16B16A16_SFLOAT, 8, 8);
    ze_rg_res_t hdr = ze__rg_create_resource(g, "hdr", &d);
    ze_rg_res_t ldr = ze__rg_create_resource(g, "ldr", &d);
    ze_rg_pass_t a = ze__rg_pass(g, "lighting", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t b = ze__rg_pass(g, "sky", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t c = ze__rg_pass(g, "tonemap", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, a, hdr, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, b, hdr, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, c, hdr, ZE_RG_SAMPLED);
    ze__rg_use(g, c, ldr, ZE_RG_STORAGE_WRITE);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_CONFLICT);
    expect_error((const char *const[]){"'lighting' and 'sky' both write 'hdr'",
                                       "nothing orders 'lighting' before 'sky'", NULL});
    /* an order the wrong way round does not settle it */
    ze__rg_order(g, b, a);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_CONFLICT);
    ze__rg_reset(g);
    hdr = ze__rg_create_resource(g, "hdr", &d);
    ldr = ze__rg_create_resource(g, "ldr", &d);
    a = ze__rg_pass(g, "lighting", ZE_RG_COMPUTE, NULL, NULL);
    b = ze__rg_pass(g, "sky", ZE_RG_COMPUTE, NULL, NULL);
    c = ze__rg_pass(g, "tonemap", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, a, hdr, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, b, hdr, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, c, hdr, ZE_RG_SAMPLED);
    ze__rg_use(g, c, ldr, ZE_RG_STORAGE_WRITE);
    ze__rg_order(g, a, b);
    assert_int_equal(ze__rg_compile(g), ZE_OK);
    /* the second writer waits for the first (write after write) */
    const ze_rg_barrier_t *w = barrier_on(g, "sky", "hdr");
    assert_non_null(w);
    assert_int_equal(w->src_access, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    ze__rg_destroy(g);
}

/* Declaration order where the edges allow it; an explicit order moves a
 * pass ahead of its declaration. */
static void test_order(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R8G8B8A8_UNORM, 8, 8);
    ze_rg_res_t x = ze__rg_create_resource(g, "x", &d), y = ze__rg_create_resource(g, "y", &d);
    ze_rg_res_t z = ze__rg_create_resource(g, "z", &d);
    ze_rg_pass_t px = ze__rg_pass(g, "make_x", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t py = ze__rg_pass(g, "make_y", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t pz = ze__rg_pass(g, "combine", ZE_RG_COMPUTE, NULL, NULL);
    ze_rg_pass_t pw = ze__rg_pass(g, "early", ZE_RG_TRANSFER, NULL, NULL);
    ze__rg_use(g, px, x, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, py, y, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, pz, x, ZE_RG_SAMPLED);
    ze__rg_use(g, pz, y, ZE_RG_SAMPLED);
    ze__rg_use(g, pz, z, ZE_RG_STORAGE_WRITE);
    ze__rg_order(g, py, px);
    ze__rg_order(g, pw, py);
    assert_int_equal(ze__rg_compile(g), ZE_OK);
    const char *want[] = {"early", "make_y", "make_x", "combine"};
    for (uint32_t i = 0; i < 4; i++)
        assert_string_equal(ze__rg_pass_at(g, i).name, want[i]);
    assert_int_equal(ze__rg_pass_at(g, 0).declared, 3);
    ze__rg_destroy(g);
}

static void test_declaration_errors(void **state)
{
    (void)state;
    graph_t gr;
    graph_make(&gr);
    ze_rg_t *g = gr.g;
    ze_rg_resource_desc_t d = image(VK_FORMAT_R8G8B8A8_UNORM, 8, 8);
    ze_rg_res_t x = ze__rg_create_resource(g, "x", &d);
    assert_int_equal(ze__rg_create_resource(g, "x", &d).id, 0);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_EXISTS);
    expect_error((const char *const[]){"'x' declared twice", NULL});

    ze__rg_reset(g);
    assert_int_equal(ze__rg_find(g, "x").id, 0);
    ze_rg_pass_t p = ze__rg_pass(g, "p", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, x, ZE_RG_STORAGE_WRITE); /* a handle from before the reset */
    assert_int_equal(ze__rg_compile(g), ZE_ERR_INVALID_ARG);
    expect_error((const char *const[]){"not a handle of this graph", NULL});

    ze__rg_reset(g);
    x = ze__rg_create_resource(g, "x", &d);
    p = ze__rg_pass(g, "shade", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, x, ZE_RG_COLOR_ATTACHMENT);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_INVALID_ARG);
    expect_error((const char *const[]){"'shade'", "color_attachment", "'x'", NULL});

    ze__rg_reset(g);
    x = ze__rg_create_resource(g, "x", &d);
    p = ze__rg_pass(g, "twice", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, x, ZE_RG_STORAGE_WRITE);
    ze__rg_use(g, p, x, ZE_RG_SAMPLED);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_INVALID_ARG);
    expect_error((const char *const[]){"'twice' uses 'x' twice", NULL});

    ze__rg_reset(g);
    ze_rg_res_t b =
        ze__rg_create_resource(g, "b", &(ze_rg_resource_desc_t){.kind = ZE_RG_BUFFER, .size = 64});
    p = ze__rg_pass(g, "sample", ZE_RG_COMPUTE, NULL, NULL);
    ze__rg_use(g, p, b, ZE_RG_SAMPLED);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_INVALID_ARG);
    expect_error((const char *const[]){"'sample'", "'b'", NULL});

    ze__rg_reset(g);
    for (uint32_t i = 0; i <= ZE_RG_MAX_PASSES; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%u", i);
        ze__rg_pass(g, name, ZE_RG_COMPUTE, NULL, NULL);
    }
    assert_int_equal(ze__rg_compile(g), ZE_ERR_LIMIT);
    ze__rg_reset(g);
    ze__rg_pass(g, "a name far too long for the graph's names", ZE_RG_COMPUTE, NULL, NULL);
    assert_int_equal(ze__rg_compile(g), ZE_ERR_INVALID_ARG);
    ze__rg_reset(g);
    assert_int_equal(ze__rg_compile(g), ZE_OK); /* empty is fine */
    assert_int_equal(ze__rg_pass_count(g), 0);
    ze__rg_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_pass_frame),
        cmocka_unit_test(test_aliasing),
        cmocka_unit_test(test_barrier_rules),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_read_without_writer),
        cmocka_unit_test(test_unordered_writers),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_declaration_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
