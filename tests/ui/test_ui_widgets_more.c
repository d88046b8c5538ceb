/* Widgets of the second set, driven by scripted events aimed by key path:
 * radio choice, drag-number value after a drag, combo choice (and a press
 * outside / Escape leaving it unchanged, its popup taking the click over
 * a button under it), a 10^6-row virtual list building only its visible
 * rows (first visible row after a wheel scroll and after scroll_to),
 * table column width after a handle drag, an image's instance, a tooltip
 * after N frames of hover, menu bar items and a submenu firing, a context
 * menu, a drag-and-drop payload received (and not received elsewhere),
 * panels docked into splits and tabs (by code and by dragging a tab), the
 * split handle, same-label buttons in two docked panels. */
#include <stdio.h>

#include "ui_test_util.h"

static ze_ui_rect_t centre_of(ut_t *t, const char *path, float *x, float *y)
{
    ze_ui_rect_t r = ut_rect(t, path);
    *x = (r.x0 + r.x1) * 0.5f;
    *y = (r.y0 + r.y1) * 0.5f;
    return r;
}

static void ut_right_click(ut_t *t, float x, float y)
{
    ut_move(t, x, y);
    ut_push(t, (ze_ui_event_t){
                   .type = ZE_UI_EVENT_MOUSE_BUTTON, .button = ZE_UI_MOUSE_RIGHT, .down = true});
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_push(t, (ze_ui_event_t){
                   .type = ZE_UI_EVENT_MOUSE_BUTTON, .button = ZE_UI_MOUSE_RIGHT, .down = false});
    assert_int_equal(ut_frame(t), ZE_OK);
}

/* Press at (x0, y0), move to (x1, y1) over two frames, release there. */
static void ut_drag(ut_t *t, float x0, float y0, float x1, float y1)
{
    ut_move(t, x0, y0);
    ut_button(t, true);
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_move(t, (x0 + x1) * 0.5f, (y0 + y1) * 0.5f);
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_move(t, x1, y1);
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_button(t, false);
    assert_int_equal(ut_frame(t), ZE_OK);
}

static bool alive(ut_t *t, const char *path)
{
    return ze_ui_key_alive(t->ui, ze_ui_key_path(path));
}

/* ------------------------------------------------------ radio, drag number */

typedef struct form_t {
    int choice, changes;
    float speed;
    int quality, below_clicks, combo_changes;
} form_t;

static const char *const g_quality[] = {"Low", "Medium", "High", "Ultra"};

static void build_form(ze_ui_t *ui, void *user)
{
    form_t *f = user;
    ze_ui_window_begin(ui, "W",
                       &(ze_ui_window_desc_t){.x = 10, .y = 10, .width = 400, .height = 400});
    f->changes += ze_ui_radio(ui, "A", &f->choice, 0);
    f->changes += ze_ui_radio(ui, "B", &f->choice, 1);
    f->changes += ze_ui_radio(ui, "C", &f->choice, 2);
    ze_ui_drag_float(ui, "Speed", &f->speed, 0.5f, -100.0f, 100.0f);
    f->combo_changes += ze_ui_combo(ui, "Quality", &f->quality, g_quality, 4);
    if (ze_ui_button(ui, "Below"))
        f->below_clicks++;
    ze_ui_window_end(ui);
}

static void test_radio_choice(void **state)
{
    (void)state;
    form_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_form, &f);
    ut_frames(&t, 1);
    ut_click(&t, "W/B");
    assert_int_equal(f.choice, 1);
    ut_click(&t, "W/C");
    assert_int_equal(f.choice, 2);
    ut_click(&t, "W/C"); /* already chosen: no change */
    assert_int_equal(f.choice, 2);
    assert_int_equal(f.changes, 2);
    /* keyboard: Shift+Tab back to B, Enter */
    ut_key(&t, ZE_UI_KEY_TAB, ZE_UI_MOD_SHIFT);
    ut_frames(&t, 1);
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    assert_int_equal(f.choice, 1);
    ut_fini(&t);
}

static void test_drag_number(void **state)
{
    (void)state;
    form_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_form, &f);
    ut_frames(&t, 1);
    float x, y;
    centre_of(&t, "W/Speed", &x, &y);
    ut_drag(&t, x, y, x + 40, y + 5); /* 40 pixels right at 0.5 per pixel */
    assert_true(ut_near(f.speed, 20.0f));
    /* focused by the press: Right steps by the speed */
    ut_key(&t, ZE_UI_KEY_RIGHT, 0);
    ut_frames(&t, 1);
    assert_true(ut_near(f.speed, 20.5f));
    /* dragged far left: clamped */
    centre_of(&t, "W/Speed", &x, &y);
    ut_drag(&t, x, y, x - 700, y);
    assert_true(ut_near(f.speed, -100.0f));
    ut_fini(&t);
}

static void test_combo_choice(void **state)
{
    (void)state;
    form_t f = {.quality = 3};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_form, &f);
    ut_frames(&t, 1);
    assert_false(alive(&t, "W/Quality/##popup"));
    ut_click(&t, "W/Quality");
    assert_true(alive(&t, "W/Quality/##popup"));
    /* the popup lies over the button below the combo: it takes the click */
    ze_ui_rect_t below = ut_rect(&t, "W/Below");
    float by = (below.y0 + below.y1) * 0.5f;
    int over = -1;
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "W/Quality/##popup/%s", g_quality[i]);
        ze_ui_rect_t item = ut_rect(&t, path);
        if (item.y0 <= by && by < item.y1 && item.x0 <= below.x0 + 10 && below.x0 + 10 < item.x1)
            over = i;
    }
    assert_true(over >= 0);
    ut_move(&t, below.x0 + 10, by);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_int_equal(f.quality, over);
    assert_int_equal(f.combo_changes, 1);
    assert_int_equal(f.below_clicks, 0);
    ut_frames(&t, 1);
    assert_false(alive(&t, "W/Quality/##popup"));

    /* a press outside closes it unchanged */
    ut_click(&t, "W/Quality");
    assert_true(alive(&t, "W/Quality/##popup"));
    ut_move(&t, 700, 550);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 2);
    assert_false(alive(&t, "W/Quality/##popup"));
    /* Escape too; a click on the combo itself toggles it closed */
    ut_click(&t, "W/Quality");
    ut_key(&t, ZE_UI_KEY_ESCAPE, 0);
    ut_frames(&t, 2);
    assert_false(alive(&t, "W/Quality/##popup"));
    ut_click(&t, "W/Quality");
    ut_click(&t, "W/Quality");
    ut_frames(&t, 1);
    assert_false(alive(&t, "W/Quality/##popup"));
    assert_int_equal(f.quality, over);
    /* keyboard: open with Enter (focused), Down to the items, Enter */
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    assert_true(alive(&t, "W/Quality/##popup"));
    for (int i = 0; i < 4; i++) {
        ut_key(&t, ZE_UI_KEY_DOWN, 0); /* Below, then Low, Medium, High... in build order */
        ut_frames(&t, 1);
    }
    assert_int_equal(ze_ui_focus(t.ui).id, ze_ui_key_path("W/Quality/##popup/High").id);
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 2);
    assert_int_equal(f.quality, 2);
    assert_int_equal(f.combo_changes, over == 2 ? 1 : 2);
    assert_false(alive(&t, "W/Quality/##popup"));
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

/* ---------------------------------------------------------- virtual list */

typedef struct list_t {
    uint64_t rows;
    ze_ui_list_range_t range;
    uint64_t built;
} list_t;

static void build_list(ze_ui_t *ui, void *user)
{
    list_t *l = user;
    ze_ui_scroll_begin(ui, "Outer", ze_ui_px(300, 1), ze_ui_px(300, 1));
    l->range = ze_ui_list_begin(ui, "Files", l->rows, 16.0f, ze_ui_px(200, 1), ze_ui_px(160, 1));
    l->built = 0;
    for (uint64_t r = l->range.first; r < l->range.first + l->range.count; r++) {
        ze_ui_list_row_begin(ui, r);
        ze_ui_labelf(ui, "file %llu", (unsigned long long)r);
        ze_ui_list_row_end(ui);
        l->built++;
    }
    ze_ui_list_end(ui);
    ze_ui_spacer(ui, ze_ui_px(10, 1), ze_ui_px(400, 1)); /* the outer region can scroll */
    ze_ui_scroll_end(ui);
}

static void test_virtual_list(void **state)
{
    (void)state;
    list_t l = {.rows = 1000000};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_list, &l);
    ut_frames(&t, 2);
    assert_int_equal(l.range.first, 0);
    assert_int_equal(l.range.count, 10); /* 160 / 16 */
    assert_true(ze_ui_stats(t.ui).boxes < 40);
    ze_ui_rect_t r0 = ut_rect(&t, "Outer/Files/#0");
    ut_assert_rect(r0, 0, 0, 200, 16);

    /* the wheel over the list scrolls the list, not the region around it */
    float x, y;
    centre_of(&t, "Outer/Files", &x, &y);
    ut_move(&t, x, y);
    ut_wheel(&t, -3.0f); /* 3 x 40 pixels = 7.5 rows */
    ut_frames(&t, 1);
    assert_int_equal(l.range.first, 7);
    assert_int_equal(l.range.count, 11); /* half a row shows at each end */
    assert_true(ze_ui_scroll(t.ui, ze_ui_key_path("Outer")).y == 0.0f);
    ut_frames(&t, 1);
    ut_assert_rect(ut_rect(&t, "Outer/Files/#7"), 0, -8, 200, 8);
    assert_false(alive(&t, "Outer/Files/#0")); /* not built: evicted */

    /* a jump to the end clamps to the last full view */
    ze_ui_list_scroll_to(t.ui, ze_ui_key_path("Outer/Files"), 999999);
    ut_frames(&t, 2);
    assert_int_equal(l.range.first, 999990);
    assert_int_equal(l.range.count, 10);
    assert_int_equal(l.built, 10);
    ut_assert_rect(ut_rect(&t, "Outer/Files/#999999"), 0, 144, 200, 160);
    assert_true(ze_ui_stats(t.ui).boxes < 40);

    /* the same view of a 10^3-row list builds the same boxes */
    uint32_t boxes_big = ze_ui_stats(t.ui).boxes;
    l.rows = 1000;
    ut_frames(&t, 2);
    assert_int_equal(l.range.first, 990);
    assert_int_equal(ze_ui_stats(t.ui).boxes, boxes_big);
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

/* ----------------------------------------------------------------- table */

static void build_table(ze_ui_t *ui, void *user)
{
    (void)user;
    static const char *const heads[] = {"Name", "Size", "Type"};
    static const float widths[] = {100, 60, 80};
    ze_ui_table_begin(ui, "T",
                      &(ze_ui_table_desc_t){.columns = 3, .headers = heads, .widths = widths});
    for (int r = 0; r < 3; r++) {
        ze_ui_table_row_begin(ui);
        char name[32];
        snprintf(name, sizeof name, "row%d##%d", r, r);
        ze_ui_table_cell(ui);
        ze_ui_box(ui, name,
                  &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                      .width = ze_ui_pct(1, 0),
                                      .height = ze_ui_px(16, 1)});
        ze_ui_table_cell(ui);
        ze_ui_label(ui, "12 kB");
        ze_ui_table_cell(ui);
        ze_ui_label(ui, "mesh");
        assert_false(ze_ui_table_cell(ui)); /* past the last column */
        ze_ui_table_row_end(ui);
    }
    ze_ui_table_end(ui);
}

static void test_table_column_resize(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_table, NULL);
    ut_frames(&t, 2);
    ze_ui_key_t tk = ze_ui_key_path("T");
    assert_true(ut_near(ze_ui_table_column_width(t.ui, tk, 0), 100));
    ze_ui_rect_t size0 = ut_rect(&t, "T/##col1");
    ze_ui_rect_t cell0 = ut_rect(&t, "T/row0##0");
    float x, y;
    centre_of(&t, "T/##resize0", &x, &y);
    ut_drag(&t, x, y, x + 30, y);
    ut_frames(&t, 1);
    assert_true(ut_near(ze_ui_table_column_width(t.ui, tk, 0), 130));
    assert_true(ut_near(ze_ui_table_column_width(t.ui, tk, 1), 60));
    ze_ui_rect_t size1 = ut_rect(&t, "T/##col1");
    assert_true(ut_near(size1.x0 - size0.x0, 30)); /* the next column moved over */
    ze_ui_rect_t cell1 = ut_rect(&t, "T/row0##0");
    assert_true(ut_near((cell1.x1 - cell1.x0) - (cell0.x1 - cell0.x0), 30)); /* cells follow */
    /* never narrower than the minimum */
    centre_of(&t, "T/##resize1", &x, &y);
    ut_drag(&t, x, y, x - 500, y);
    assert_true(
        ut_near(ze_ui_table_column_width(t.ui, tk, 1), ze_ui_style(t.ui)->column_min_width));
    ut_fini(&t);
}

/* ----------------------------------------------------------------- image */

static void build_image(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_image(ui, "Logo", 42, 64, 32);
}

static void test_image_instance(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){.scale = 2.0f}, build_image, NULL);
    ut_frames(&t, 1);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    uint32_t images = 0;
    for (uint32_t i = 0; i < dl.count; i++) {
        const ze_ui_instance_t *in = &dl.instances[i];
        if (in->kind != ZE_UI_INSTANCE_IMAGE)
            continue;
        images++;
        assert_int_equal(in->texture, 42);
        ut_assert_rect(in->rect, 0, 0, 128, 64); /* logical pixels x 2 */
        ut_assert_rect(in->uv, 0, 0, 1, 1);
    }
    assert_int_equal(images, 1);
    ut_fini(&t);
}

/* --------------------------------------------------------------- tooltip */

static void build_tip(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_window_begin(ui, "W",
                       &(ze_ui_window_desc_t){.x = 10, .y = 10, .width = 200, .height = 80});
    ze_ui_button(ui, "Save");
    ze_ui_tooltip(ui, "Writes the scene");
    ze_ui_window_end(ui);
    /* a window built later, where the tooltip will show */
    ze_ui_window_begin(ui, "Other",
                       &(ze_ui_window_desc_t){.x = 10, .y = 64, .width = 300, .height = 200});
    ze_ui_window_end(ui);
}

static void test_tooltip_after_frames(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_tip, NULL);
    ze_ui_style(t.ui)->tooltip_frames = 10;
    ut_frames(&t, 1);
    float x, y;
    centre_of(&t, "W/Save", &x, &y);
    ut_move(&t, x, y);
    ut_frames(&t, 9);
    assert_false(alive(&t, "W/Save/##tooltip"));
    ut_frames(&t, 1);
    assert_true(alive(&t, "W/Save/##tooltip"));
    /* drawn above the window built after it: the last instances are its */
    ut_frames(&t, 1);
    ze_ui_rect_t tip = ut_rect(&t, "W/Save/##tooltip");
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    const ze_ui_instance_t *last = &dl.instances[dl.count - 1];
    assert_int_equal(last->kind, ZE_UI_INSTANCE_GLYPH);
    assert_true(last->rect.x0 >= tip.x0 && last->rect.x1 <= tip.x1 && last->rect.y0 >= tip.y0);
    assert_true(tip.x0 > x && tip.y0 > y); /* beside the mouse */
    /* leaving the button hides it; coming back counts from zero */
    ut_move(&t, 700, 550);
    ut_frames(&t, 2);
    assert_false(alive(&t, "W/Save/##tooltip"));
    ut_move(&t, x, y);
    ut_frames(&t, 5);
    assert_false(alive(&t, "W/Save/##tooltip"));
    ut_fini(&t);
}

/* ----------------------------------------------------------------- menus */

typedef struct menu_t {
    int saved, quit, recent, deleted;
    int target_clicks;
} menu_t;

static void build_menus(ze_ui_t *ui, void *user)
{
    menu_t *m = user;
    ze_ui_menu_bar_begin(ui);
    if (ze_ui_menu_begin(ui, "File")) {
        m->saved += ze_ui_menu_item(ui, "Save");
        if (ze_ui_menu_begin(ui, "Recent")) {
            m->recent += ze_ui_menu_item(ui, "a.scene");
            ze_ui_menu_end(ui);
        }
        m->quit += ze_ui_menu_item(ui, "Quit");
        ze_ui_menu_end(ui);
    }
    if (ze_ui_menu_begin(ui, "Edit")) {
        ze_ui_menu_item(ui, "Undo");
        ze_ui_menu_end(ui);
    }
    ze_ui_menu_bar_end(ui);
    ze_ui_box_t *b =
        ze_ui_box(ui, "Target",
                  &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_BACKGROUND,
                                      .background = 0x404040ff,
                                      .width = ze_ui_px(300, 1),
                                      .height = ze_ui_px(300, 1)});
    m->target_clicks += ze_ui_signal(ui, b).clicked;
    if (ze_ui_context_menu_begin(ui)) {
        m->deleted += ze_ui_menu_item(ui, "Delete");
        ze_ui_context_menu_end(ui);
    }
}

static void test_menu_items_fire(void **state)
{
    (void)state;
    menu_t m = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_menus, &m);
    ut_frames(&t, 1);
    ut_click(&t, "File");
    assert_true(alive(&t, "File/##popup"));
    ut_rect(&t, "File/##popup/Save");
    /* below its header, over the target, which the click does not reach */
    assert_true(ut_rect(&t, "File/##popup").y0 >= ut_rect(&t, "File").y1 - 0.5f);
    ut_click(&t, "File/##popup/Save");
    assert_int_equal(m.saved, 1);
    assert_int_equal(m.target_clicks, 0);
    ut_frames(&t, 1);
    assert_false(alive(&t, "File/##popup"));

    /* a submenu opens on hover, beside its header; its item closes all */
    ut_click(&t, "File");
    float x, y;
    centre_of(&t, "File/##popup/Recent", &x, &y);
    ut_move(&t, x, y);
    ut_frames(&t, 2);
    assert_true(alive(&t, "File/##popup/Recent/##popup"));
    assert_true(ut_rect(&t, "File/##popup/Recent/##popup").x0 >=
                ut_rect(&t, "File/##popup/Recent").x1 - 0.5f);
    ut_click(&t, "File/##popup/Recent/##popup/a.scene");
    ut_frames(&t, 1);
    assert_int_equal(m.recent, 1);
    assert_false(alive(&t, "File/##popup"));
    assert_false(alive(&t, "File/##popup/Recent/##popup"));

    /* open menus switch on hover; Escape closes */
    ut_click(&t, "File");
    centre_of(&t, "Edit", &x, &y);
    ut_move(&t, x, y);
    ut_frames(&t, 2);
    assert_false(alive(&t, "File/##popup"));
    assert_true(alive(&t, "Edit/##popup"));
    ut_key(&t, ZE_UI_KEY_ESCAPE, 0);
    ut_frames(&t, 2);
    assert_false(alive(&t, "Edit/##popup"));
    assert_int_equal(m.saved, 1);
    assert_int_equal(m.quit, 0);
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

static void test_context_menu(void **state)
{
    (void)state;
    menu_t m = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_menus, &m);
    ut_frames(&t, 1);
    ze_ui_rect_t target = ut_rect(&t, "Target");
    ut_right_click(&t, target.x0 + 50, target.y0 + 60);
    assert_true(alive(&t, "Target/##popup"));
    ze_ui_rect_t pop = ut_rect(&t, "Target/##popup");
    assert_true(ut_near(pop.x0, target.x0 + 50) &&
                ut_near(pop.y0, target.y0 + 60)); /* at the mouse */
    ut_click(&t, "Target/##popup/Delete");
    ut_frames(&t, 1);
    assert_int_equal(m.deleted, 1);
    assert_int_equal(m.target_clicks, 0);
    assert_false(alive(&t, "Target/##popup"));
    /* a left press elsewhere closes it without firing */
    ut_right_click(&t, target.x0 + 10, target.y0 + 10);
    assert_true(alive(&t, "Target/##popup"));
    ut_move(&t, 700, 550);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 2);
    assert_false(alive(&t, "Target/##popup"));
    assert_int_equal(m.deleted, 1);
    ut_fini(&t);
}

/* ---------------------------------------------------------- drag and drop */

typedef struct dnd_t {
    int received, wrong_type, bin_received;
    int value;
    size_t size;
} dnd_t;

static void build_dnd(ze_ui_t *ui, void *user)
{
    dnd_t *d = user;
    ze_ui_row_begin(ui);
    ze_ui_box(ui, "Src",
              &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                  .width = ze_ui_px(50, 1),
                                  .height = ze_ui_px(50, 1)});
    int payload = 1234;
    ze_ui_drag_source(ui, "entity", &payload, sizeof payload);
    ze_ui_box(ui, "Dst",
              &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                  .width = ze_ui_px(50, 1),
                                  .height = ze_ui_px(50, 1)});
    size_t size = 0;
    const void *p = ze_ui_drop_target(ui, "entity", &size);
    if (p) {
        d->received++;
        d->size = size;
        memcpy(&d->value, p, sizeof d->value);
    }
    if (ze_ui_drop_target(ui, "asset", NULL))
        d->wrong_type++;
    ze_ui_box(ui, "Bin",
              &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                  .width = ze_ui_px(50, 1),
                                  .height = ze_ui_px(50, 1)});
    if (ze_ui_drop_target(ui, "entity", NULL))
        d->bin_received++;
    ze_ui_row_end(ui);
}

static void test_drag_and_drop(void **state)
{
    (void)state;
    dnd_t d = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_dnd, &d);
    ut_frames(&t, 1);
    float sx, sy, dx, dy;
    centre_of(&t, "Src", &sx, &sy);
    centre_of(&t, "Dst", &dx, &dy);
    ut_move(&t, sx, sy);
    ut_button(&t, true);
    ut_frames(&t, 1);
    assert_false(ze_ui_drag_active(t.ui, NULL)); /* not past the threshold yet */
    ut_move(&t, (sx + dx) * 0.5f, sy);
    ut_frames(&t, 1);
    assert_true(ze_ui_drag_active(t.ui, "entity"));
    assert_true(ze_ui_wants_mouse(t.ui));
    ut_move(&t, dx, dy);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_int_equal(d.received, 1);
    assert_int_equal(d.value, 1234);
    assert_int_equal(d.size, sizeof(int));
    assert_int_equal(d.wrong_type, 0);
    assert_int_equal(d.bin_received, 0);
    assert_false(ze_ui_drag_active(t.ui, NULL));
    ut_frames(&t, 1);
    assert_int_equal(d.received, 1); /* once */

    /* released over nothing: nobody receives it */
    ut_drag(&t, sx, sy, 700, 500);
    assert_int_equal(d.received, 1);
    assert_int_equal(d.bin_received, 0);
    assert_false(ze_ui_drag_active(t.ui, NULL));
    /* a click (no drag) carries nothing */
    ut_click(&t, "Src");
    assert_int_equal(d.received, 1);
    ut_fini(&t);
}

/* --------------------------------------------------------------- docking */

typedef struct dock_t {
    int scene_ok, insp_ok;
    bool with_inspector;
    bool cover; /* a window built between the space and its panels, over the space */
    int cover_clicks;
    bool scene_shown, insp_shown;
} dock_t;

static void build_dock(ze_ui_t *ui, void *user)
{
    dock_t *d = user;
    ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING, .x = 50, .y = 40});
    ze_ui_dock_space(ui, "Dock", ze_ui_px(600, 1), ze_ui_px(400, 1));
    ze_ui_pop_box(ui);
    if (d->cover) {
        ze_ui_window_begin(ui, "Cover",
                           &(ze_ui_window_desc_t){.x = 40, .y = 30, .width = 200, .height = 120});
        ze_ui_box_t *c = ze_ui_box(ui, "Pad",
                                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                                       .width = ze_ui_pct(1, 0),
                                                       .height = ze_ui_px(80, 1)});
        d->cover_clicks += ze_ui_signal(ui, c).clicked;
        ze_ui_window_end(ui);
    }
    d->scene_shown = d->insp_shown = false;
    /* panels may be built anywhere after their space */
    ze_ui_row_begin(ui);
    if (ze_ui_dock_panel_begin(ui, "Scene")) {
        d->scene_shown = true;
        d->scene_ok += ze_ui_button(ui, "OK");
        ze_ui_dock_panel_end(ui);
    }
    if (d->with_inspector && ze_ui_dock_panel_begin(ui, "Inspector")) {
        d->insp_shown = true;
        d->insp_ok += ze_ui_button(ui, "OK");
        ze_ui_dock_panel_end(ui);
    }
    ze_ui_label(ui, "after the panels");
    ze_ui_row_end(ui);
}

static bool overlaps(ze_ui_rect_t a, ze_ui_rect_t b)
{
    return a.x0 + 4 < b.x1 && b.x0 + 4 < a.x1 && a.y0 + 4 < b.y1 && b.y0 + 4 < a.y1;
}

static void tab_drag_to(ut_t *t, const char *tab, float x, float y)
{
    float tx, ty;
    centre_of(t, tab, &tx, &ty);
    ut_drag(t, tx, ty, x, y);
    ut_frames(t, 1); /* the move applies when the space is next built */
}

static void test_docking(void **state)
{
    (void)state;
    dock_t d = {.with_inspector = true};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_dock, &d);
    ut_frames(&t, 2);
    /* both joined the first leaf as tabs; the first shows */
    assert_true(d.scene_shown);
    assert_false(d.insp_shown);
    ze_ui_rect_t space = ut_rect(&t, "Dock");
    ut_assert_rect(space, 50, 40, 650, 440);
    ze_ui_rect_t scene = ut_rect(&t, "Dock/Scene");
    assert_true(scene.x0 >= space.x0 && scene.x1 <= space.x1 && scene.y1 <= space.y1);
    assert_true(scene.x1 - scene.x0 > 590);
    ut_click(&t, "Dock/Inspector/##tab");
    ut_frames(&t, 1);
    assert_true(d.insp_shown);
    assert_false(d.scene_shown);
    assert_false(alive(&t, "Dock/Scene/OK"));

    /* by code: Inspector split off to the right of Scene */
    assert_int_equal(
        ze_ui_dock_move(t.ui, ze_ui_key_path("Dock"), "Inspector", "Scene", ZE_UI_DOCK_RIGHT),
        ZE_OK);
    ut_frames(&t, 2);
    assert_true(d.scene_shown && d.insp_shown);
    scene = ut_rect(&t, "Dock/Scene");
    ze_ui_rect_t insp = ut_rect(&t, "Dock/Inspector");
    assert_true(scene.x1 <= insp.x0);
    assert_true(ut_near(scene.y0, insp.y0));
    assert_true(scene.x1 - scene.x0 > 280 && insp.x1 - insp.x0 > 280);
    /* same label in two panels: independent */
    ut_click(&t, "Dock/Scene/OK");
    ut_click(&t, "Dock/Inspector/OK");
    ut_click(&t, "Dock/Inspector/OK");
    assert_int_equal(d.scene_ok, 1);
    assert_int_equal(d.insp_ok, 2);

    /* the split's handle: dragged 60 pixels right, Scene widens */
    char path[32] = "";
    for (int i = 0; i < 8 && !path[0]; i++) {
        snprintf(path, sizeof path, "Dock/##split%d", i);
        if (!alive(&t, path))
            path[0] = 0;
    }
    assert_true(path[0]);
    float hx, hy;
    centre_of(&t, path, &hx, &hy);
    ut_drag(&t, hx, hy, hx + 60, hy);
    ut_frames(&t, 1);
    ze_ui_rect_t wider = ut_rect(&t, "Dock/Scene");
    assert_true((wider.x1 - wider.x0) - (scene.x1 - scene.x0) > 50);

    /* by dragging: Inspector's tab dropped in the middle of Scene's leaf:
       a tab there, the split gone, Inspector showing */
    scene = ut_rect(&t, "Dock/Scene");
    tab_drag_to(&t, "Dock/Inspector/##tab", (scene.x0 + scene.x1) * 0.5f,
                (scene.y0 + scene.y1) * 0.5f);
    assert_true(d.insp_shown);
    assert_false(d.scene_shown);
    insp = ut_rect(&t, "Dock/Inspector");
    assert_true(insp.x1 - insp.x0 > 590);
    assert_false(alive(&t, path));
    /* Scene's tab dropped near the bottom edge: a leaf split off below */
    insp = ut_rect(&t, "Dock/Inspector");
    tab_drag_to(&t, "Dock/Scene/##tab", (insp.x0 + insp.x1) * 0.5f, insp.y1 - 10);
    ut_frames(&t, 1);
    assert_true(d.scene_shown && d.insp_shown);
    scene = ut_rect(&t, "Dock/Scene");
    insp = ut_rect(&t, "Dock/Inspector");
    assert_true(scene.y0 >= insp.y1);
    assert_true(ut_near(scene.x0, insp.x0));

    /* a panel not built leaves; its leaf closes */
    d.with_inspector = false;
    ut_frames(&t, 3);
    assert_false(alive(&t, "Dock/Inspector/##tab"));
    scene = ut_rect(&t, "Dock/Scene");
    assert_true(scene.y1 - scene.y0 > 350);
    /* a window built after the space but before its panels is on top of
       them for clicks too, as it is drawn */
    ze_ui_rect_t ok = ut_rect(&t, "Dock/Scene/OK");
    d.cover = true;
    ut_frames(&t, 2);
    ze_ui_rect_t pad = ut_rect(&t, "Cover/Pad");
    assert_true(overlaps(ok, pad));
    ut_move(&t, ZE_MAX(ok.x0, pad.x0) + 2, ZE_MAX(ok.y0, pad.y0) + 2);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_int_equal(d.cover_clicks, 1);
    assert_int_equal(d.scene_ok, 1);
    d.cover = false;
    ut_frames(&t, 1);
    ut_click(&t, "Dock/Scene/OK"); /* and without the window, the button takes it */
    assert_int_equal(d.scene_ok, 2);
    /* unknown panels are refused */
    assert_int_equal(ze_ui_dock_move(t.ui, ze_ui_key_path("Dock"), "Nope", "Scene", ZE_UI_DOCK_TAB),
                     ZE_ERR_NOT_FOUND);
    assert_int_equal(g_ut_log.errors, 1); /* that one */
    ut_fini(&t);
}

/* ------------------------------------------------- no allocation per frame */

typedef struct all_t {
    form_t form;
    list_t list;
    menu_t menu;
    dock_t dock;
} all_t;

static void build_all(ze_ui_t *ui, void *user)
{
    all_t *a = user;
    build_dock(ui, &a->dock);
    build_menus(ui, &a->menu);
    build_table(ui, NULL);
    build_list(ui, &a->list);
    build_form(ui, &a->form); /* its window on top of the rest */
    ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING, .x = 700, .y = 500});
    ze_ui_image(ui, "Logo", 7, 32, 32);
    ze_ui_tooltip(ui, "a logo");
    ze_ui_pop_box(ui);
}

static void test_steady_frames_allocate_nothing(void **state)
{
    (void)state;
    all_t a = {.list = {.rows = 1000000}, .dock = {.with_inspector = true}};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_all, &a);
    ze_ui_style(t.ui)->tooltip_frames = 1;
    ut_frames(&t, 1);
    ut_click(&t, "W/Quality"); /* the combo's popup open */
    float x, y;
    centre_of(&t, "Logo", &x, &y);
    ut_move(&t, x, y); /* its tooltip showing */
    ut_frames(&t, 3);
    assert_true(alive(&t, "W/Quality/##popup"));
    assert_true(alive(&t, "Logo/##tooltip"));
    assert_true(alive(&t, "Dock/Inspector/##tab"));
    uint64_t before = ze_mem_allocation_count(t.mm);
    ut_frames(&t, 5);
    assert_int_equal(ze_mem_allocation_count(t.mm) - before, 0);
    ut_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_radio_choice),
        cmocka_unit_test(test_drag_number),
        cmocka_unit_test(test_combo_choice),
        cmocka_unit_test(test_virtual_list),
        cmocka_unit_test(test_table_column_resize),
        cmocka_unit_test(test_image_instance),
        cmocka_unit_test(test_tooltip_after_frames),
        cmocka_unit_test(test_menu_items_fire),
        cmocka_unit_test(test_context_menu),
        cmocka_unit_test(test_drag_and_drop),
        cmocka_unit_test(test_docking),
        cmocka_unit_test(test_steady_frames_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
