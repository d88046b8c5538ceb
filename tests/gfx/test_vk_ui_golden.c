/* ZUI's golden images (issue "ZUI"): one frame of real widgets built by
 * ZUI with the packaged DejaVu Sans (a window with a label, a button, a
 * checkbox, a slider, radio buttons, a drag-number, a text field with
 * UTF-8, a combo, a tree node, a panel), drawn by the Vulkan
 * backend's ui pass (lavapipe in CI, validation on: zero messages) at 1x
 * and at 2x DPI scale, compared with tests/gfx/data/ui_golden_1x.png and
 * ui_golden_2x.png (committed after looking at them): fewer than 0.5 % of
 * the pixels may differ by more than 8/255 in a channel, mean difference
 * under 1/255. The instance stream's hash is the same when a second
 * context builds the same frame (deterministic layout and text).
 * ZE_TEST_WRITE_REF=DIR writes the references there (only when
 * regenerating them on purpose: look at them before committing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/vk_internal.h"
#include "png_pixels.h"
#include "zengine/gfx.h"
#include "zengine/ui.h"

#ifndef ZE_TEST_ENGINE_FONT
#error "ZE_TEST_ENGINE_FONT must be defined"
#endif

enum { W1 = 320, H1 = 240 }; /* logical size; 2x renders 640 x 480 */

typedef struct fixture_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
    uint8_t *font;
    size_t font_size;
} fixture_t;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    static fixture_t f;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &f.mm) != ZE_OK)
        return -1;
    f.alloc = ze_mem_owner_allocator(f.mm, ZE_MEM_OWNER_UI);
    FILE *in = fopen(ZE_TEST_ENGINE_FONT, "rb");
    if (!in)
        return -1;
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    fseek(in, 0, SEEK_SET);
    f.font_size = n > 0 ? (size_t)n : 0;
    f.font = f.font_size ? ze_alloc(f.alloc, f.font_size, 16) : NULL;
    bool ok = f.font && fread(f.font, 1, f.font_size, in) == f.font_size;
    fclose(in);
    *state = &f;
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    ze_free(f->alloc, f->font, f->font_size);
    ze_mem_destroy(f->mm);
    ze_log_reset();
    return 0;
}

/* The frame, built the same way every time. */
static void build(ze_ui_t *ui, uint32_t w, uint32_t h)
{
    static const char *const items[] = {"Forward", "Deferred", "Path traced"};
    assert_int_equal(ze_ui_begin_frame(ui, w, h, 1.0f / 60.0f, NULL, 0), ZE_OK);
    ze_ui_window_begin(ui, "Golden", &(ze_ui_window_desc_t){8, 8, 200, 224});
    ze_ui_label(ui, "ZEngine UI: golden frame");
    (void)ze_ui_button(ui, "Press me");
    bool on = true;
    (void)ze_ui_checkbox(ui, "Enabled", &on);
    float v = 0.35f;
    (void)ze_ui_slider_float(ui, "Volume", &v, 0.0f, 1.0f);
    int mode = 1;
    ze_ui_row_begin(ui);
    (void)ze_ui_radio(ui, "Low", &mode, 0);
    (void)ze_ui_radio(ui, "High", &mode, 1);
    ze_ui_row_end(ui);
    float d = 12.5f;
    (void)ze_ui_drag_float(ui, "Speed", &d, 0.1f, 0.0f, 100.0f);
    static char text[64];
    snprintf(text, sizeof text, "h\xc3\xa9llo w\xc3\xb6rld");
    (void)ze_ui_text_field(ui, "Name", text, sizeof text);
    int choice = 1;
    (void)ze_ui_combo(ui, "Renderer", &choice, items, 3);
    ze_ui_window_end(ui);
    ze_ui_window_begin(ui, "Scene", &(ze_ui_window_desc_t){216, 8, 96, 120});
    if (ze_ui_tree_begin(ui, "Root")) {
        ze_ui_label(ui, "Crate");
        ze_ui_label(ui, "Ground");
        ze_ui_tree_end(ui);
    }
    ze_ui_panel_begin(ui, "Note", ze_ui_pct(1.0f, 1.0f), ze_ui_px(28, 1.0f));
    ze_ui_label(ui, "panel");
    ze_ui_panel_end(ui);
    ze_ui_window_end(ui);
    assert_int_equal(ze_ui_end_frame(ui), ZE_OK);
}

static ze_ui_t *context(fixture_t *f, float scale)
{
    ze_ui_t *ui = NULL;
    ze_ui_desc_t d = {
        .mem = f->mm,
        .font = {.ttf_data = f->font, .ttf_size = f->font_size, .size = 14},
        .scale = scale,
    };
    assert_int_equal(ze_ui_create(&d, &ui), ZE_OK);
    return ui;
}

/* Two frames (the second sees the first's rectangles, as a running game
 * does), then the hash of the instance stream. */
static uint64_t frame_hash(ze_ui_t *ui, uint32_t w, uint32_t h)
{
    build(ui, w, h);
    build(ui, w, h);
    ze_ui_draw_list_t dl = ze_ui_draw_list(ui);
    assert_true(dl.count > 50);
    return ze_hash64(dl.instances, sizeof *dl.instances * dl.count, 0);
}

static void compare(fixture_t *f, const uint8_t *px, uint32_t w, uint32_t h, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", ZE_TEST_DATA, name);
    png_pixels_t ref;
    if (!png_pixels_load(path, &ref))
        fail_msg("reference %s missing (ZE_TEST_WRITE_REF=DIR writes it)", path);
    assert_int_equal(ref.width, w);
    assert_int_equal(ref.height, h);
    uint64_t differing = 0, sum = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        int worst = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)px[i * 4 + c] - (int)ref.rgba[i * 4 + c]);
            sum += (uint64_t)d;
            worst = d > worst ? d : worst;
        }
        differing += worst > 8;
    }
    png_pixels_release(&ref);
    double mean = (double)sum / ((double)w * h * 3);
    print_message("%s: %llu of %u pixels differ by more than 8, mean %.3f\n", name,
                  (unsigned long long)differing, w * h, mean);
    assert_true(differing * 200 < (uint64_t)w * h);
    assert_true(mean < 1.0);
    (void)f;
}

static void golden(fixture_t *f, float scale, const char *name)
{
    uint32_t w = (uint32_t)(W1 * scale), h = (uint32_t)(H1 * scale);
    ze_ui_t *ui = context(f, scale);
    uint64_t hash = frame_hash(ui, w, h);
    ze_ui_t *again = context(f, scale);
    uint64_t hash2 = frame_hash(again, w, h);
    print_message("%gx: instance stream hash %016llx (a second context: %016llx)\n", scale,
                  (unsigned long long)hash, (unsigned long long)hash2);
    assert_true(hash == hash2);
    ze_ui_destroy(again);

    ze_ui_draw_list_t dl = ze_ui_draw_list(ui);
    ze_ui_atlas_t at = ze_ui_font_atlas(ui);
    ze_render_overlay_t ov = {
        .frame = 1,
        .width = dl.width,
        .height = dl.height,
        .instance_count = dl.count,
        .instances = (const ze_render_ui_instance_t *)dl.instances,
        .atlas_revision = at.revision,
        .atlas_width = at.width,
        .atlas_height = at.height,
        .atlas_pixels = at.pixels,
    };
    ze_render_backend_t *b = NULL;
    ze_render_backend_desc_t d = {.mem = f->mm, .headless = true, .width = w, .height = h};
    assert_int_equal(ze_render_backend_create("vulkan", &d, &b), ZE_OK);
    assert_true(ze_render_backend_stats(b).validation_enabled);
    ze_render_state_t s = {
        .frame = 1,
        .width = w,
        .height = h,
        .sky = {.clear_color = {0.05f, 0.07f, 0.12f}, .exposure = 1.0f},
        .overlay = &ov,
    };
    assert_int_equal(ze_render_backend_frame(b, &s), ZE_OK);
    size_t bytes = (size_t)w * h * 4;
    uint8_t *px = ze_alloc(f->alloc, bytes, 16);
    assert_non_null(px);
    assert_int_equal(ze__vk_test_pixels(b, px, bytes), ZE_OK);
    ze_render_stats_t st = ze_render_backend_stats(b);
    assert_int_equal(st.validation_messages, 0);
    assert_int_equal(st.ui_instances, dl.count);
    const char *ref_dir = getenv("ZE_TEST_WRITE_REF");
    if (ref_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ref_dir, name);
        assert_int_equal(ze_render_backend_screenshot(b, path), ZE_OK);
        print_message("reference written to %s\n", path);
    }
    compare(f, px, w, h, name);
    ze_free(f->alloc, px, bytes);
    ze_render_backend_destroy(b);
    ze_ui_destroy(ui);
}

static void test_golden_1x(void **state)
{
    golden(*state, 1.0f, "ui_golden_1x.png");
}

static void test_golden_2x(void **state)
{
    golden(*state, 2.0f, "ui_golden_2x.png");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_1x),
        cmocka_unit_test(test_golden_2x),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
