/* The real font: DejaVu Sans (the copy the build packages beside the
 * programs, or the system's) baked by stb_truetype: a glyph present with
 * coverage in the atlas, a missing glyph drawn as the replacement box,
 * U+FFFD's own glyph for invalid bytes, kerning ("AV" narrower than the
 * sum of its advances, and the draw list placing V by it), glyphs added
 * on demand growing the atlas without moving the earlier ones, the DPI
 * scale doubling metrics, and no allocations once the glyphs of a frame
 * are baked. */
#include <stdio.h>

#include "ui_test_util.h"

typedef struct font_file_t {
    void *data;
    size_t size;
} font_file_t;

static font_file_t g_font;

static int load_font(void **state)
{
    (void)state;
    const char *paths[] = {ZE_TEST_ENGINE_FONT, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};
    for (size_t i = 0; i < ZE_COUNTOF(paths); i++) {
        if (!paths[i][0])
            continue;
        FILE *f = fopen(paths[i], "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        g_font.data = ze_mem_sys_alloc((size_t)n);
        g_font.size =
            g_font.data && fread(g_font.data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
        fclose(f);
        if (g_font.size)
            return 0;
    }
    print_error("DejaVuSans.ttf not found (fonts-dejavu)\n");
    return -1;
}

static int free_font(void **state)
{
    (void)state;
    ze_mem_sys_free(g_font.data);
    return 0;
}

static ze_ui_desc_t dejavu(float size, float scale)
{
    return (ze_ui_desc_t){
        .font = {.ttf_data = g_font.data, .ttf_size = g_font.size, .size = size},
        .scale = scale,
    };
}

static void test_glyph_present_and_baked(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, dejavu(16, 1), NULL, NULL);
    assert_true(ze_ui_line_height(t.ui) >= 16.0f && ze_ui_line_height(t.ui) <= 22.0f);
    ze_ui_glyph_info_t a;
    assert_true(ze_ui_glyph_info(t.ui, 'A', &a));
    assert_true(a.advance > 6.0f && a.advance < 16.0f);
    assert_true(a.width > 4 && a.height > 8);
    /* Coverage inside the glyph's atlas cell. */
    ze_ui_atlas_t at = ze_ui_font_atlas(t.ui);
    uint32_t x0 = (uint32_t)(a.uv.x0 * (float)at.width + 0.5f);
    uint32_t y0 = (uint32_t)(a.uv.y0 * (float)at.height + 0.5f);
    uint32_t sum = 0;
    for (uint32_t y = y0; y < y0 + (uint32_t)a.height; y++)
        for (uint32_t x = x0; x < x0 + (uint32_t)a.width; x++)
            sum += at.pixels[y * at.width + x];
    assert_true(sum > 255u * 10u);
    /* Non-ASCII, two and three bytes of UTF-8. */
    assert_true(ze_ui_glyph_info(t.ui, 0xe9, NULL));   /* é */
    assert_true(ze_ui_glyph_info(t.ui, 0x20ac, NULL)); /* € */
    ze_ui_glyph_info_t space;
    assert_true(ze_ui_glyph_info(t.ui, ' ', &space));
    assert_true(space.advance > 0.0f && space.width == 0.0f);
    ut_fini(&t);
}

static void build_missing(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_label(ui, "A\xe4\xb8\x80\xee\x80\x80" /* A, U+4E00, U+E000 */ "\xff");
}

static void test_missing_glyph_replacement(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, dejavu(16, 1), build_missing, NULL);
    ze_ui_glyph_info_t cjk, pua, fffd, a;
    assert_false(ze_ui_glyph_info(t.ui, 0x4e00, &cjk)); /* DejaVu has no CJK */
    assert_false(ze_ui_glyph_info(t.ui, 0xe000, &pua));
    assert_true(ze_ui_glyph_info(t.ui, 0xfffd, &fffd)); /* but has U+FFFD itself */
    ze_ui_glyph_info(t.ui, 'A', &a);
    /* Both missing glyphs are the one replacement box. */
    assert_memory_equal(&cjk.uv, &pua.uv, sizeof cjk.uv);
    assert_true(cjk.width > 0 && cjk.advance > 0.0f);
    assert_memory_not_equal(&cjk.uv, &a.uv, sizeof a.uv);
    assert_memory_not_equal(&cjk.uv, &fffd.uv, sizeof a.uv);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    assert_int_equal(dl.count, 4);
    assert_int_equal(dl.instances[0].codepoint, 'A');
    assert_int_equal(dl.instances[1].codepoint, 0x4e00);
    assert_memory_equal(&dl.instances[1].uv, &cjk.uv, sizeof cjk.uv);
    assert_memory_equal(&dl.instances[2].uv, &cjk.uv, sizeof cjk.uv);
    assert_int_equal(dl.instances[3].codepoint, 0xfffd); /* the invalid byte */
    assert_memory_equal(&dl.instances[3].uv, &fffd.uv, sizeof fffd.uv);
    ut_fini(&t);
}

static void build_av(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_label(ui, "AV");
    ze_ui_label(ui, "V");
}

static void test_kerning(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, dejavu(64, 1), build_av, NULL);
    ze_ui_glyph_info_t a, v;
    ze_ui_glyph_info(t.ui, 'A', &a);
    ze_ui_glyph_info(t.ui, 'V', &v);
    float kern = ze_ui_kerning(t.ui, 'A', 'V');
    float w = ze_ui_text_width(t.ui, "AV", 2);
    assert_true(kern < -3.0f); /* A and V tuck together (-131/2048 em) */
    assert_true(w < a.advance + v.advance - 0.5f);
    assert_true(ut_near(w, a.advance + v.advance + kern));
    assert_true(ze_ui_kerning(t.ui, 'H', 'H') == 0.0f);
    /* The draw list places V by the kerned pen: against a lone "V" (its
     * bearing), V in "AV" starts at A's advance plus the kerning (within
     * rounding), not at A's advance. */
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    assert_int_equal(dl.count, 3);
    const ze_ui_instance_t *iv = &dl.instances[1], *alone = &dl.instances[2];
    assert_int_equal(iv->codepoint, 'V');
    assert_int_equal(alone->codepoint, 'V');
    float kerned = a.advance + kern + alone->rect.x0, plain = a.advance + alone->rect.x0;
    assert_true(iv->rect.x0 >= kerned - 1.0f && iv->rect.x0 <= kerned + 1.0f);
    assert_true(iv->rect.x0 < plain - 2.0f);
    assert_true(iv->rect.x1 - iv->rect.x0 == alone->rect.x1 - alone->rect.x0);
    ut_fini(&t);
}

static void test_atlas_grows_on_demand(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, dejavu(48, 1), NULL, NULL);
    ze_ui_atlas_t at0 = ze_ui_font_atlas(t.ui);
    ze_ui_glyph_info_t a;
    ze_ui_glyph_info(t.ui, 'A', &a);
    uint32_t ax = (uint32_t)(a.uv.x0 * (float)at0.width + 0.5f);
    uint32_t ay = (uint32_t)(a.uv.y0 * (float)at0.height + 0.5f);
    uint8_t before[64 * 64];
    uint32_t aw = (uint32_t)a.width, ah = (uint32_t)a.height;
    assert_true(aw <= 64 && ah <= 64);
    for (uint32_t y = 0; y < ah; y++)
        memcpy(before + y * 64, ze_ui_font_atlas(t.ui).pixels + (ay + y) * at0.width + ax, aw);
    uint64_t rev = ze_ui_font_atlas(t.ui).revision;
    uint32_t present = 0;
    for (uint32_t cp = 0x21; cp < 0x500; cp++) /* Latin, Greek, Cyrillic */
        present += ze_ui_glyph_info(t.ui, cp, NULL);
    ze_ui_atlas_t at1 = ze_ui_font_atlas(t.ui);
    assert_true(present > 600);
    assert_true(at1.height > at0.height);
    assert_int_equal(at1.width, at0.width);
    assert_true(at1.revision > rev);
    assert_true(ze_ui_stats(t.ui).glyphs >= present);
    /* 'A' kept its texels; its coordinates follow the taller atlas. */
    ze_ui_glyph_info_t a2;
    ze_ui_glyph_info(t.ui, 'A', &a2);
    assert_true(ut_near(a2.uv.y0 * (float)at1.height, (float)ay));
    for (uint32_t y = 0; y < ah; y++)
        assert_memory_equal(before + y * 64, at1.pixels + (ay + y) * at1.width + ax, aw);
    ut_fini(&t);
}

static void test_dpi_scale_doubles_metrics(void **state)
{
    (void)state;
    ut_t t1, t2;
    ut_init(&t1, dejavu(16, 1), NULL, NULL);
    float w1 = ze_ui_text_width(t1.ui, "Hello, world", 12), h1 = ze_ui_line_height(t1.ui);
    ut_fini(&t1);
    ut_init(&t2, dejavu(16, 2), NULL, NULL);
    float w2 = ze_ui_text_width(t2.ui, "Hello, world", 12), h2 = ze_ui_line_height(t2.ui);
    ut_fini(&t2);
    assert_true(w2 > 1.95f * w1 && w2 < 2.05f * w1);
    assert_true(h2 >= 2.0f * h1 - 1.0f && h2 <= 2.0f * h1 + 1.0f);
}

static void build_text(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_label(ui, "Les na\xc3\xafves \xc3\xa9l\xc3\xa8ves \xe2\x82\xac 42");
    ze_ui_button(ui, "AVATAR");
}

static void test_no_allocations_once_baked(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, dejavu(16, 1), build_text, NULL);
    ut_frames(&t, 2);
    uint64_t before = ze_mem_allocation_count(t.mm);
    ut_frames(&t, 10);
    assert_int_equal(ze_mem_allocation_count(t.mm), before);
    ut_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glyph_present_and_baked),
        cmocka_unit_test(test_missing_glyph_replacement),
        cmocka_unit_test(test_kerning),
        cmocka_unit_test(test_atlas_grows_on_demand),
        cmocka_unit_test(test_dpi_scale_doubles_metrics),
        cmocka_unit_test(test_no_allocations_once_baked),
    };
    return cmocka_run_group_tests(tests, load_font, free_font);
}
