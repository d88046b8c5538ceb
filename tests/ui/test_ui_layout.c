/* Layout with the fixed-metric font (8 x 16): exact rectangles for nested
 * pixel and text sizes, padding and spacing, percent of the parent (and of
 * the nearest ancestor not sized by its children), sums of children,
 * strictness conflicts along and across the layout axis, spacing that
 * gives way, alignment, floating boxes, scroll offsets (set, clamped, by
 * the wheel) and clip rectangles, and the same tree at 2x DPI scale. */
#include "ui_test_util.h"

#include <stdio.h>

/* A strict w x h box. */
#define PX(w, h) (&(ze_ui_box_desc_t){.width = ze_ui_px((w), 1), .height = ze_ui_px((h), 1)})

/* ------------------------------------------------------------ nested */

typedef struct nested_t {
    ze_ui_box_t *a, *b, *c, *d, *e, *f, *txt;
} nested_t;

static void build_nested(ze_ui_t *ui, void *user)
{
    nested_t *l = user;
    l->a = ze_ui_push_box(ui, "A",
                          &(ze_ui_box_desc_t){.width = ze_ui_px(200, 1),
                                              .height = ze_ui_px(100, 1),
                                              .padding_x = 10,
                                              .padding_y = 10,
                                              .spacing = 5});
    l->b = ze_ui_box(ui, "B", PX(50, 20));
    l->c = ze_ui_push_box(
        ui, "C",
        &(ze_ui_box_desc_t){
            .layout = ZE_UI_LAYOUT_ROW, .padding_x = 2, .padding_y = 3, .spacing = 4});
    l->d = ze_ui_box(ui, "D", PX(10, 6));
    l->e = ze_ui_box(ui, "E", PX(20, 8));
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui);
    l->f = ze_ui_box(ui, "F", PX(30, 40));
    l->txt = ze_ui_box(ui, "T",
                       &(ze_ui_box_desc_t){.width = ze_ui_text_size(1),
                                           .height = ze_ui_text_size(1),
                                           .padding_x = 4,
                                           .padding_y = 2,
                                           .text = "Hi!"});
}

static void check_nested(const nested_t *l, float s)
{
    ut_assert_rect(ze_ui_box_rect(l->a), 0, 0, 200 * s, 100 * s);
    ut_assert_rect(ze_ui_box_rect(l->b), 10 * s, 10 * s, 60 * s, 30 * s);
    /* C: below B after the spacing; 2+10+4+20+2 wide, 3+8+3 high */
    ut_assert_rect(ze_ui_box_rect(l->c), 10 * s, 35 * s, 48 * s, 49 * s);
    ut_assert_rect(ze_ui_box_rect(l->d), 12 * s, 38 * s, 22 * s, 44 * s);
    ut_assert_rect(ze_ui_box_rect(l->e), 26 * s, 38 * s, 46 * s, 46 * s);
    ut_assert_rect(ze_ui_box_rect(l->f), 0, 100 * s, 30 * s, 140 * s);
    /* "Hi!": 3 glyphs of 8 plus 4 on each side; 16 plus 2 on each side */
    ut_assert_rect(ze_ui_box_rect(l->txt), 0, 140 * s, 32 * s, 160 * s);
}

static void test_nested_sizes(void **state)
{
    (void)state;
    nested_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_nested, &l);
    assert_int_equal(ut_frame(&t), ZE_OK);
    check_nested(&l, 1.0f);
    ut_assert_rect(ze_ui_box_clip(l.d), 0, 0, UT_W, UT_H);
    /* The text's glyphs: one instance each, 8 x 16 cells after the padding. */
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    uint32_t glyphs = 0;
    for (uint32_t i = 0; i < dl.count; i++) {
        const ze_ui_instance_t *in = &dl.instances[i];
        if (in->kind != ZE_UI_INSTANCE_GLYPH)
            continue;
        ut_assert_rect(in->rect, 4 + 8.0f * glyphs, 142, 12 + 8.0f * glyphs, 158);
        assert_int_equal(in->codepoint, (uint32_t) "Hi!"[glyphs]);
        glyphs++;
    }
    assert_int_equal(glyphs, 3);
    /* Key paths name the same boxes. */
    ut_assert_rect(ut_rect(&t, "A/C/E"), 26, 38, 46, 46);
    ut_fini(&t);
}

static void test_dpi_scale_2x(void **state)
{
    (void)state;
    nested_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){.scale = 2.0f}, build_nested, &l);
    t.w = 1600;
    t.h = 1200;
    assert_int_equal(ut_frame(&t), ZE_OK);
    check_nested(&l, 2.0f);
    assert_true(ze_ui_line_height(t.ui) == 32.0f);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    uint32_t glyphs = 0;
    for (uint32_t i = 0; i < dl.count; i++)
        if (dl.instances[i].kind == ZE_UI_INSTANCE_GLYPH) {
            ut_assert_rect(dl.instances[i].rect, 8 + 16.0f * glyphs, 284, 24 + 16.0f * glyphs, 316);
            glyphs++;
        }
    assert_int_equal(glyphs, 3);
    ut_fini(&t);
}

/* ---------------------------------------------------------- percent */

typedef struct pct_t {
    ze_ui_box_t *p, *q, *r, *s;
} pct_t;

static void build_percent(ze_ui_t *ui, void *user)
{
    pct_t *l = user;
    l->p = ze_ui_push_box(ui, "P",
                          &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW,
                                              .width = ze_ui_px(400, 1),
                                              .height = ze_ui_px(200, 1)});
    l->q = ze_ui_box(
        ui, "Q", &(ze_ui_box_desc_t){.width = ze_ui_pct(0.5f, 1), .height = ze_ui_pct(0.25f, 1)});
    l->r = ze_ui_push_box(ui, "R", &(ze_ui_box_desc_t){0}); /* sized by its children */
    l->s = ze_ui_box(ui, "S",
                     &(ze_ui_box_desc_t){.width = ze_ui_pct(0.25f, 1), .height = ze_ui_px(10, 1)});
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui);
}

static void test_percent_and_children_sizes(void **state)
{
    (void)state;
    pct_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_percent, &l);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_assert_rect(ze_ui_box_rect(l.p), 0, 0, 400, 200);
    ut_assert_rect(ze_ui_box_rect(l.q), 0, 0, 200, 50);
    /* S: a quarter of P (R's size comes from its children), R: S's size */
    ut_assert_rect(ze_ui_box_rect(l.r), 200, 0, 300, 10);
    ut_assert_rect(ze_ui_box_rect(l.s), 200, 0, 300, 10);
    ut_fini(&t);
}

/* -------------------------------------------------------- strictness */

typedef struct strict_t {
    ze_ui_box_t *u[6], *v[6];
    ze_ui_box_t *w4, *w5, *sp1, *sp2;
} strict_t;

static void row_of_two(ze_ui_t *ui, strict_t *l, int i, float su, float sv, float spacing)
{
    char name[24];
    snprintf(name, sizeof name, "T%d", i);
    ze_ui_push_box(ui, name,
                   &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW,
                                       .width = ze_ui_px(100, 1),
                                       .height = ze_ui_px(10, 1),
                                       .spacing = spacing});
    l->u[i] = ze_ui_box(
        ui, "U",
        &(ze_ui_box_desc_t){.width = ze_ui_px(spacing ? 60 : 80, su), .height = ze_ui_px(10, 1)});
    l->v[i] = ze_ui_box(
        ui, "V",
        &(ze_ui_box_desc_t){.width = ze_ui_px(spacing ? 60 : 80, sv), .height = ze_ui_px(10, 1)});
    ze_ui_pop_box(ui);
}

static void build_strict(ze_ui_t *ui, void *user)
{
    strict_t *l = user;
    row_of_two(ui, l, 0, 1.0f, 0.0f, 0);
    row_of_two(ui, l, 1, 0.5f, 0.5f, 0);
    row_of_two(ui, l, 2, 1.0f, 1.0f, 0);
    row_of_two(ui, l, 3, 0.0f, 0.0f, 10);
    ze_ui_push_box(ui, "C4", PX(50, 20));
    l->w4 = ze_ui_box(ui, "W",
                      &(ze_ui_box_desc_t){.width = ze_ui_px(80, 0.25f), .height = ze_ui_px(10, 1)});
    ze_ui_pop_box(ui);
    ze_ui_push_box(ui, "C5", PX(50, 20));
    l->w5 = ze_ui_box(ui, "W",
                      &(ze_ui_box_desc_t){.width = ze_ui_px(80, 0.75f), .height = ze_ui_px(10, 1)});
    ze_ui_pop_box(ui);
    /* Strict children and too much spacing: the spacing gives way. */
    ze_ui_push_box(ui, "C6",
                   &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW,
                                       .width = ze_ui_px(100, 1),
                                       .height = ze_ui_px(10, 1),
                                       .spacing = 30});
    l->sp1 = ze_ui_box(ui, "A", PX(40, 10));
    l->sp2 = ze_ui_box(ui, "B", PX(40, 10));
    ze_ui_pop_box(ui);
}

static void test_strictness_conflicts(void **state)
{
    (void)state;
    strict_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_strict, &l);
    assert_int_equal(ut_frame(&t), ZE_OK);
    /* strict 80 + flexible 80 in 100: the flexible one gives up 60 */
    ut_assert_rect(ze_ui_box_rect(l.u[0]), 0, 0, 80, 10);
    ut_assert_rect(ze_ui_box_rect(l.v[0]), 80, 0, 100, 10);
    /* half strict each: 40 flexible each, 60 too many: 30 each */
    ut_assert_rect(ze_ui_box_rect(l.u[1]), 0, 10, 50, 20);
    ut_assert_rect(ze_ui_box_rect(l.v[1]), 50, 10, 100, 20);
    /* both strict: they keep their size and overflow */
    ut_assert_rect(ze_ui_box_rect(l.u[2]), 0, 20, 80, 30);
    ut_assert_rect(ze_ui_box_rect(l.v[2]), 80, 20, 160, 30);
    /* 60 + 10 + 60 in 100: 30 too many from 120 flexible: 45 each */
    ut_assert_rect(ze_ui_box_rect(l.u[3]), 0, 30, 45, 40);
    ut_assert_rect(ze_ui_box_rect(l.v[3]), 55, 30, 100, 40);
    /* across the axis: 80 in 50, flexible 60: shrinks to 50 */
    ut_assert_rect(ze_ui_box_rect(l.w4), 0, 40, 50, 50);
    /* flexible only 20: 60, overflowing by 10 */
    ut_assert_rect(ze_ui_box_rect(l.w5), 0, 60, 60, 70);
    /* 40 + 30 + 40 strict in 100: spacing 20 */
    ut_assert_rect(ze_ui_box_rect(l.sp1), 0, 80, 40, 90);
    ut_assert_rect(ze_ui_box_rect(l.sp2), 60, 80, 100, 90);
    ut_fini(&t);
}

/* ------------------------------------------------- alignment, floating */

typedef struct align_t {
    ze_ui_box_t *a, *b, *c, *fl, *after;
} align_t;

static void build_align(ze_ui_t *ui, void *user)
{
    align_t *l = user;
    ze_ui_push_box(ui, "Row",
                   &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW,
                                       .width = ze_ui_px(100, 1),
                                       .height = ze_ui_px(50, 1),
                                       .align_x = ZE_UI_ALIGN_END,
                                       .align_y = ZE_UI_ALIGN_CENTER});
    l->a = ze_ui_box(ui, "A", PX(20, 10));
    ze_ui_pop_box(ui);
    ze_ui_push_box(ui, "Col",
                   &(ze_ui_box_desc_t){.width = ze_ui_px(100, 1),
                                       .height = ze_ui_px(100, 1),
                                       .align_x = ZE_UI_ALIGN_CENTER,
                                       .align_y = ZE_UI_ALIGN_CENTER});
    l->b = ze_ui_box(ui, "B", PX(20, 10));
    l->c = ze_ui_box(ui, "C", PX(40, 20));
    ze_ui_pop_box(ui);
    ze_ui_push_box(ui, "Box", PX(100, 100));
    l->fl = ze_ui_box(ui, "F",
                      &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING,
                                          .x = 10,
                                          .y = 20,
                                          .width = ze_ui_px(5, 1),
                                          .height = ze_ui_px(5, 1)});
    l->after = ze_ui_box(ui, "G", PX(30, 30));
    ze_ui_pop_box(ui);
}

static void test_alignment_and_floating(void **state)
{
    (void)state;
    align_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_align, &l);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_assert_rect(ze_ui_box_rect(l.a), 80, 20, 100, 30);
    /* 10 + 20 high in 100: 35 above; centred across */
    ut_assert_rect(ze_ui_box_rect(l.b), 40, 85, 60, 95);
    ut_assert_rect(ze_ui_box_rect(l.c), 30, 95, 70, 115);
    /* Box is at y 150; the floating child takes no room in the flow */
    ut_assert_rect(ze_ui_box_rect(l.fl), 10, 170, 15, 175);
    ut_assert_rect(ze_ui_box_rect(l.after), 0, 150, 30, 180);
    ut_fini(&t);
}

/* ------------------------------------------------------------ scroll */

typedef struct scroll_t {
    ze_ui_box_t *s, *items[10];
} scroll_t;

static void build_scroll(ze_ui_t *ui, void *user)
{
    scroll_t *l = user;
    ze_ui_box(ui, "Top", PX(10, 10));
    l->s = ze_ui_push_box(ui, "S",
                          &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_SCROLL_Y,
                                              .width = ze_ui_px(100, 1),
                                              .height = ze_ui_px(50, 1)});
    for (int i = 0; i < 10; i++) {
        char name[24];
        snprintf(name, sizeof name, "i%d", i);
        l->items[i] = ze_ui_box(ui, name, PX(80, 20));
    }
    ze_ui_pop_box(ui);
}

static void test_scroll_offsets(void **state)
{
    (void)state;
    scroll_t l;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_scroll, &l);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_key_t s = ze_ui_key_path("S");
    ut_assert_rect(ze_ui_box_rect(l.s), 0, 10, 100, 60);
    ut_assert_rect(ze_ui_box_rect(l.items[0]), 0, 10, 80, 30);
    ut_assert_rect(ze_ui_box_clip(l.items[0]), 0, 10, 100, 60);

    ze_ui_set_scroll(t.ui, s, 0, 30);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_assert_rect(ze_ui_box_rect(l.items[0]), 0, -20, 80, 0);
    ut_assert_rect(ze_ui_box_rect(l.items[3]), 0, 40, 80, 60);

    /* Clamped to content (200) minus view (50). */
    ze_ui_set_scroll(t.ui, s, 0, 1000);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_scroll(t.ui, s).y == 150.0f);
    ut_assert_rect(ze_ui_box_rect(l.items[9]), 0, 40, 80, 60);
    ze_ui_set_scroll(t.ui, s, 0, -5);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_scroll(t.ui, s).y == 0.0f);

    /* The wheel over the region: one notch down is the style's 40 pixels. */
    ut_move(&t, 50, 30);
    ut_wheel(&t, -1.0f);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_scroll(t.ui, s).y == 40.0f);
    ut_assert_rect(ze_ui_box_rect(l.items[0]), 0, -30, 80, -10);
    /* Not over it: nothing moves. */
    ut_move(&t, 500, 500);
    ut_wheel(&t, -1.0f);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_scroll(t.ui, s).y == 40.0f);
    /* A scrolling axis never shrinks its children (ten of 20 in 50). */
    assert_true(ze_ui_box_rect(l.items[5]).y1 - ze_ui_box_rect(l.items[5]).y0 == 20.0f);
    ut_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_sizes),
        cmocka_unit_test(test_dpi_scale_2x),
        cmocka_unit_test(test_percent_and_children_sizes),
        cmocka_unit_test(test_strictness_conflicts),
        cmocka_unit_test(test_alignment_and_floating),
        cmocka_unit_test(test_scroll_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
