/* Widgets driven by scripted ze_ui_event_t sequences, aimed by key path:
 * button click counts (and a press dragged off that is no click), double
 * click, checkbox toggles (mouse and Enter), slider value after a drag and
 * after arrow steps, Tab / Shift+Tab order and gamepad navigation with
 * activation, Escape, tree node open state (and eviction of a closed
 * node's children), same-label buttons in two windows staying independent,
 * a window moved by dragging its title, the wheel over a scroll region,
 * wants_mouse / wants_keyboard. */
#include <stdio.h>

#include "ui_test_util.h"

/* ----------------------------------------------------------- button */

typedef struct app_t {
    int ok_clicks, left_delete, right_delete, a, b, c;
    bool check;
    float volume;
    int dclicks;
    char name[64];
} app_t;

static void build_buttons(ze_ui_t *ui, void *user)
{
    app_t *app = user;
    ze_ui_window_begin(ui, "Main",
                       &(ze_ui_window_desc_t){.x = 20, .y = 20, .width = 300, .height = 200});
    if (ze_ui_button(ui, "OK"))
        app->ok_clicks++;
    ze_ui_checkbox(ui, "Mute", &app->check);
    ze_ui_slider_float(ui, "Volume", &app->volume, 0.0f, 100.0f);
    ze_ui_window_end(ui);
}

static void test_button_click_count(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_buttons, &app);
    ut_frames(&t, 1);
    for (int i = 0; i < 3; i++)
        ut_click(&t, "Main/OK");
    assert_int_equal(app.ok_clicks, 3);

    /* Pressed, dragged off, released elsewhere: no click. */
    ze_ui_rect_t r = ut_rect(&t, "Main/OK");
    ut_move(&t, r.x0 + 2, r.y0 + 2);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, 700, 500);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_int_equal(app.ok_clicks, 3);
    /* A press that starts outside and is released over it: no click either. */
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, r.x0 + 2, r.y0 + 2);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_int_equal(app.ok_clicks, 3);
    ut_fini(&t);
}

typedef struct dbl_t {
    int clicks, doubles;
} dbl_t;

static void build_double(ze_ui_t *ui, void *user)
{
    dbl_t *d = user;
    ze_ui_box_t *b = ze_ui_box(ui, "Icon",
                               &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLICKABLE,
                                                   .width = ze_ui_px(50, 1),
                                                   .height = ze_ui_px(50, 1)});
    ze_ui_signal_t s = ze_ui_signal(ui, b);
    d->clicks += s.clicked;
    d->doubles += s.double_clicked;
}

static void test_double_click(void **state)
{
    (void)state;
    dbl_t d = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_double, &d);
    ut_frames(&t, 1);
    ut_click(&t, "Icon");
    ut_click(&t, "Icon"); /* 4 frames of 1/60 s: within 0.3 s */
    assert_int_equal(d.clicks, 2);
    assert_int_equal(d.doubles, 1);
    /* A third click starts over; after a pause, two clicks are not a double. */
    ut_click(&t, "Icon");
    assert_int_equal(d.doubles, 1);
    ut_frames(&t, 30); /* half a second */
    ut_click(&t, "Icon");
    assert_int_equal(d.doubles, 1);
    assert_int_equal(d.clicks, 4);
    ut_fini(&t);
}

static void test_checkbox(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_buttons, &app);
    ut_frames(&t, 1);
    ut_click(&t, "Main/Mute");
    assert_true(app.check);
    ut_click(&t, "Main/Mute");
    assert_false(app.check);
    /* Focused by the click: Enter toggles it. */
    assert_true(ze_ui_focus(t.ui).id == ze_ui_key_path("Main/Mute").id);
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    assert_true(app.check);
    ut_fini(&t);
}

static void test_slider_drag(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_buttons, &app);
    ut_frames(&t, 1);
    ze_ui_rect_t r = ut_rect(&t, "Main/Volume");
    float w = r.x1 - r.x0, y = (r.y0 + r.y1) * 0.5f;
    assert_true(w == 160.0f); /* the style's slider width */
    ut_move(&t, r.x0 + 0.25f * w, y);
    ut_button(&t, true);
    ut_frames(&t, 1);
    assert_true(app.volume == 25.0f);
    ut_move(&t, r.x0 + 0.75f * w, y + 30); /* off the track vertically: still dragging */
    ut_frames(&t, 1);
    assert_true(app.volume == 75.0f);
    ut_move(&t, r.x1 + 100, y);
    ut_frames(&t, 1);
    assert_true(app.volume == 100.0f); /* clamped */
    ut_move(&t, r.x0 + 0.5f * w, y);
    ut_button(&t, false);
    ut_frames(&t, 1);
    assert_true(app.volume == 50.0f);
    ut_move(&t, r.x0 + 0.9f * w, y); /* released: moving does nothing */
    ut_frames(&t, 1);
    assert_true(app.volume == 50.0f);
    /* Focused by the press: Left/Right step by a hundredth of the range. */
    ut_key(&t, ZE_UI_KEY_RIGHT, 0);
    ut_key(&t, ZE_UI_KEY_RIGHT, 0);
    ut_frames(&t, 1);
    assert_true(app.volume == 52.0f);
    ut_nav(&t, ZE_UI_NAV_LEFT);
    ut_frames(&t, 1);
    assert_true(app.volume == 51.0f);
    ut_fini(&t);
}

/* -------------------------------------------------------- focus, Tab */

static void build_abc(ze_ui_t *ui, void *user)
{
    app_t *app = user;
    app->a += ze_ui_button(ui, "A");
    app->b += ze_ui_button(ui, "B");
    ze_ui_label(ui, "not focusable");
    app->c += ze_ui_button(ui, "C");
    ze_ui_text_field(ui, "Name", app->name, sizeof app->name);
}

static uint64_t focus(ut_t *t)
{
    return ze_ui_focus(t->ui).id;
}

static uint64_t key(const char *path)
{
    return ze_ui_key_path(path).id;
}

static void test_tab_order(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_abc, &app);
    ut_frames(&t, 1);
    assert_true(focus(&t) == 0);
    ut_key(&t, ZE_UI_KEY_TAB, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("A"));
    ut_key(&t, ZE_UI_KEY_TAB, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("B"));
    ut_key(&t, ZE_UI_KEY_TAB, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("C")); /* the label is skipped */
    ut_key(&t, ZE_UI_KEY_TAB, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("Name"));
    assert_true(ze_ui_wants_keyboard(t.ui));
    ut_key(&t, ZE_UI_KEY_TAB, 0); /* wraps */
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("A"));
    assert_false(ze_ui_wants_keyboard(t.ui));
    ut_key(&t, ZE_UI_KEY_TAB, ZE_UI_MOD_SHIFT);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("Name"));
    ut_key(&t, ZE_UI_KEY_TAB, ZE_UI_MOD_SHIFT);
    ut_key(&t, ZE_UI_KEY_TAB, ZE_UI_MOD_SHIFT); /* two in one frame */
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("B"));
    /* Enter and Space activate the focused button only. */
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    ut_key(&t, ZE_UI_KEY_SPACE, 0);
    ut_frames(&t, 1);
    assert_int_equal(app.b, 2);
    assert_int_equal(app.a + app.c, 0);
    /* Escape leaves the focus. */
    ut_key(&t, ZE_UI_KEY_ESCAPE, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == 0);
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    assert_int_equal(app.b, 2);
    ut_fini(&t);
}

static void test_gamepad_navigation(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_abc, &app);
    ut_frames(&t, 1);
    ut_nav(&t, ZE_UI_NAV_DOWN);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("A"));
    ut_nav(&t, ZE_UI_NAV_DOWN);
    ut_nav(&t, ZE_UI_NAV_DOWN);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("C"));
    ut_nav(&t, ZE_UI_NAV_ACTIVATE);
    ut_frames(&t, 1);
    assert_int_equal(app.c, 1);
    ut_nav(&t, ZE_UI_NAV_UP);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("B"));
    /* The arrow keys move the focus too. */
    ut_key(&t, ZE_UI_KEY_UP, 0);
    ut_frames(&t, 1);
    assert_true(focus(&t) == key("A"));
    ut_nav(&t, ZE_UI_NAV_CANCEL);
    ut_frames(&t, 1);
    assert_true(focus(&t) == 0);
    ut_fini(&t);
}

/* -------------------------------------------------------------- tree */

typedef struct tree_t {
    bool root_open, child_open;
} tree_t;

static void build_tree(ze_ui_t *ui, void *user)
{
    tree_t *tr = user;
    tr->root_open = tr->child_open = false;
    if (ze_ui_tree_begin(ui, "Scene")) {
        tr->root_open = true;
        if (ze_ui_tree_begin(ui, "Camera")) {
            tr->child_open = true;
            ze_ui_label(ui, "fov 60");
            ze_ui_tree_end(ui);
        }
        ze_ui_label(ui, "Light");
        ze_ui_tree_end(ui);
    }
    ze_ui_button(ui, "After");
}

static void test_tree_open_state(void **state)
{
    (void)state;
    tree_t tr = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_tree, &tr);
    ut_frames(&t, 1);
    assert_false(tr.root_open);
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("Scene/Camera")));
    ze_ui_rect_t after_closed = ut_rect(&t, "After");
    ut_click(&t, "Scene");
    assert_true(tr.root_open);
    ut_frames(&t, 1);
    assert_true(tr.root_open); /* stays open */
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("Scene/Camera")));
    /* The children are indented and push "After" down. */
    ze_ui_rect_t cam = ut_rect(&t, "Scene/Camera"), scene = ut_rect(&t, "Scene");
    assert_true(cam.x0 == scene.x0 + 16.0f);
    assert_true(ut_rect(&t, "After").y0 > after_closed.y0);
    ut_click(&t, "Scene/Camera");
    assert_true(tr.child_open);
    /* Close the parent: the child is not built, so its state goes. */
    ut_click(&t, "Scene");
    assert_false(tr.root_open);
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("Scene/Camera")));
    ut_click(&t, "Scene");
    assert_true(tr.root_open);
    assert_false(tr.child_open);
    /* Enter on the focused header toggles it. */
    assert_true(focus(&t) == key("Scene"));
    ut_key(&t, ZE_UI_KEY_ENTER, 0);
    ut_frames(&t, 1);
    assert_false(tr.root_open);
    ut_fini(&t);
}

/* ------------------------------------------------- windows, same labels */

static void build_two_windows(ze_ui_t *ui, void *user)
{
    app_t *app = user;
    if (ze_ui_window_begin(ui, "Left",
                           &(ze_ui_window_desc_t){.x = 10, .y = 10, .width = 200, .height = 150})) {
        app->left_delete += ze_ui_button(ui, "Delete");
        ze_ui_window_end(ui);
    }
    if (ze_ui_window_begin(
            ui, "Right", &(ze_ui_window_desc_t){.x = 300, .y = 10, .width = 200, .height = 150})) {
        app->right_delete += ze_ui_button(ui, "Delete");
        ze_ui_window_end(ui);
    }
}

static void test_same_label_in_two_windows(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_two_windows, &app);
    assert_int_equal(ut_frame(&t), ZE_OK); /* no duplicate reported */
    assert_true(key("Left/Delete") != key("Right/Delete"));
    ut_click(&t, "Left/Delete");
    assert_int_equal(app.left_delete, 1);
    assert_int_equal(app.right_delete, 0);
    ut_click(&t, "Right/Delete");
    ut_click(&t, "Right/Delete");
    assert_int_equal(app.left_delete, 1);
    assert_int_equal(app.right_delete, 2);
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

static void build_two_panels(ze_ui_t *ui, void *user)
{
    app_t *app = user;
    ze_ui_row_begin(ui);
    ze_ui_panel_begin(ui, "Left", ze_ui_px(150, 1), ze_ui_px(100, 1));
    ze_ui_label(ui, "left");
    app->left_delete += ze_ui_button(ui, "Delete");
    ze_ui_panel_end(ui);
    ze_ui_panel_begin(ui, "Right", ze_ui_children(1), ze_ui_children(1));
    app->right_delete += ze_ui_button(ui, "Delete");
    ze_ui_panel_end(ui);
    ze_ui_row_end(ui);
}

static void test_same_label_in_two_panels(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_two_panels, &app);
    assert_int_equal(ut_frame(&t), ZE_OK);
    /* Panels in the flow: a row, the style's spacing between them; the
     * second is sized by its button plus padding. */
    ut_assert_rect(ut_rect(&t, "Left"), 0, 0, 150, 100);
    ut_assert_rect(ut_rect(&t, "Right"), 154, 34, 154 + 64 + 8, 34 + 24 + 8); /* centred */
    ut_assert_rect(ut_rect(&t, "Left/Delete"), 4, 24, 68, 48);                /* below the label */
    ut_click(&t, "Right/Delete");
    assert_int_equal(app.right_delete, 1);
    assert_int_equal(app.left_delete, 0);
    ut_click(&t, "Left/Delete");
    assert_int_equal(app.right_delete, 1);
    assert_int_equal(app.left_delete, 1);
    ut_fini(&t);
}

static void test_widgets_at_2x(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){.scale = 2.0f}, build_two_panels, &app);
    t.w = 1600;
    t.h = 1200;
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_assert_rect(ut_rect(&t, "Left"), 0, 0, 300, 200);
    ut_assert_rect(ut_rect(&t, "Right"), 308, 68, 308 + 144, 68 + 64);
    ut_assert_rect(ut_rect(&t, "Left/Delete"), 8, 48, 136, 96);
    ut_click(&t, "Left/Delete"); /* events are in pixels too */
    assert_int_equal(app.left_delete, 1);
    ut_fini(&t);
}

static void test_window_moves_by_title(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_two_windows, &app);
    ut_frames(&t, 1);
    ze_ui_rect_t w0 = ut_rect(&t, "Left"), b0 = ut_rect(&t, "Left/Delete");
    ut_assert_rect(w0, 10, 10, 210, 160);
    ze_ui_rect_t title = ut_rect(&t, "Left/##title");
    assert_true(title.y0 == 10.0f && title.x1 == 210.0f);
    float x = title.x0 + 30, y = (title.y0 + title.y1) * 0.5f;
    ut_move(&t, x, y);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, x + 20, y + 10);
    ut_frames(&t, 1);
    ut_move(&t, x + 50, y + 30);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    ut_move(&t, x + 200, y + 200); /* released: the window stays */
    ut_frames(&t, 2);
    ut_assert_rect(ut_rect(&t, "Left"), 60, 40, 260, 190);
    ze_ui_rect_t b1 = ut_rect(&t, "Left/Delete");
    ut_assert_rect(b1, b0.x0 + 50, b0.y0 + 30, b0.x1 + 50, b0.y1 + 30);
    /* Dragging the body (not the title) does not move it. */
    ze_ui_rect_t w1 = ut_rect(&t, "Left");
    ut_move(&t, w1.x0 + 100, w1.y1 - 10);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, w1.x0 + 150, w1.y1 + 40);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    ut_assert_rect(ut_rect(&t, "Left"), 60, 40, 260, 190);
    assert_int_equal(app.left_delete, 0);
    ut_fini(&t);
}

/* A window resized by its grip, then collapsed and expanded by double
 * clicks on its title; the other window is untouched. */
static void test_window_resize_and_collapse(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_two_windows, &app);
    ut_frames(&t, 1);
    ut_assert_rect(ut_rect(&t, "Left"), 10, 10, 210, 160);
    ze_ui_rect_t grip = ut_rect(&t, "Left/##grip");
    ut_assert_rect(grip, 198, 148, 210, 160);
    float gx = grip.x0 + 6, gy = grip.y0 + 6;
    ut_move(&t, gx, gy);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, gx + 40, gy + 25);
    ut_frames(&t, 1);
    ut_move(&t, gx + 80, gy + 50);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 2);
    ut_assert_rect(ut_rect(&t, "Left"), 10, 10, 290, 210);
    ut_assert_rect(ut_rect(&t, "Left/##grip"), 278, 198, 290, 210);
    ut_assert_rect(ut_rect(&t, "Right"), 300, 10, 500, 160);
    /* never smaller than a title and a grip */
    grip = ut_rect(&t, "Left/##grip");
    ut_move(&t, grip.x0 + 6, grip.y0 + 6);
    ut_button(&t, true);
    ut_frames(&t, 1);
    ut_move(&t, -400, -400);
    ut_frames(&t, 1);
    ut_button(&t, false);
    ut_frames(&t, 1);
    ze_ui_rect_t small = ut_rect(&t, "Left");
    ze_ui_rect_t title = ut_rect(&t, "Left/##title");
    assert_true(small.x1 - small.x0 >= 60.0f);
    assert_true(small.y1 - small.y0 >= title.y1 - title.y0 + 12.0f);
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("Left/Delete")));
    /* double click on the title: only the title is left, the content is
       not built */
    float tx = (title.x0 + title.x1) * 0.5f, ty = (title.y0 + title.y1) * 0.5f;
    ut_move(&t, tx, ty);
    for (int i = 0; i < 2; i++) {
        ut_button(&t, true);
        ut_button(&t, false);
        ut_frames(&t, 1);
    }
    ut_frames(&t, 1);
    ze_ui_rect_t folded = ut_rect(&t, "Left");
    assert_true(ut_near(folded.y1 - folded.y0, title.y1 - title.y0));
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("Left/Delete")));
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("Left/##grip")));
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("Right/Delete")));
    /* and again: expanded, at the size the grip left */
    for (int i = 0; i < 2; i++) {
        ut_button(&t, true);
        ut_button(&t, false);
        ut_frames(&t, 1);
    }
    ut_frames(&t, 1);
    ze_ui_rect_t back = ut_rect(&t, "Left");
    assert_true(ut_near(back.y1 - back.y0, small.y1 - small.y0));
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("Left/Delete")));
    assert_int_equal(app.left_delete, 0);
    ut_fini(&t);
}

/* Callers that pair every begin with an end, whatever it returned: the
 * end after a collapsed begin does nothing, and the frame is balanced. */
static void build_always_end(ze_ui_t *ui, void *user)
{
    app_t *app = user;
    ze_ui_window_begin(ui, "Left",
                       &(ze_ui_window_desc_t){.x = 10, .y = 10, .width = 200, .height = 150});
    app->left_delete += ze_ui_button(ui, "Delete");
    ze_ui_window_end(ui);
}

static void test_window_end_after_collapse(void **state)
{
    (void)state;
    app_t app = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_always_end, &app);
    ut_frames(&t, 1);
    ze_ui_rect_t title = ut_rect(&t, "Left/##title");
    ut_move(&t, title.x0 + 30, (title.y0 + title.y1) * 0.5f);
    for (int i = 0; i < 2; i++) {
        ut_button(&t, true);
        ut_button(&t, false);
        assert_int_equal(ut_frame(&t), ZE_OK);
    }
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_rect_t w = ut_rect(&t, "Left");
    assert_true(ut_near(w.y1 - w.y0, title.y1 - title.y0));
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

/* ------------------------------------------------------ scroll region */

static void build_list(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_scroll_begin(ui, "List", ze_ui_px(200, 1), ze_ui_px(100, 1));
    for (int i = 0; i < 20; i++) {
        char name[24];
        snprintf(name, sizeof name, "Item %d", i);
        ze_ui_button(ui, name);
    }
    ze_ui_scroll_end(ui);
}

static void test_scroll_region_wheel(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_list, NULL);
    ut_frames(&t, 1);
    ze_ui_rect_t first = ut_rect(&t, "List/Item 0");
    ut_move(&t, 50, 50);
    ut_wheel(&t, -1.0f);
    ut_frames(&t, 1);
    assert_true(ze_ui_scroll(t.ui, ze_ui_key_path("List")).y == 40.0f);
    ze_ui_rect_t moved = ut_rect(&t, "List/Item 0");
    assert_true(moved.y0 == first.y0 - 40.0f);
    /* Far down: clamped to content - view; the last item ends at the bottom. */
    ut_wheel(&t, -100.0f);
    ut_frames(&t, 1);
    ze_ui_rect_t last = ut_rect(&t, "List/Item 19");
    assert_true(last.y1 == 100.0f);
    /* Items under the mouse inside the view still take clicks. */
    assert_true(ze_ui_wants_mouse(t.ui));
    ut_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_button_click_count),
        cmocka_unit_test(test_double_click),
        cmocka_unit_test(test_checkbox),
        cmocka_unit_test(test_slider_drag),
        cmocka_unit_test(test_tab_order),
        cmocka_unit_test(test_gamepad_navigation),
        cmocka_unit_test(test_tree_open_state),
        cmocka_unit_test(test_same_label_in_two_windows),
        cmocka_unit_test(test_same_label_in_two_panels),
        cmocka_unit_test(test_widgets_at_2x),
        cmocka_unit_test(test_window_moves_by_title),
        cmocka_unit_test(test_window_resize_and_collapse),
        cmocka_unit_test(test_window_end_after_collapse),
        cmocka_unit_test(test_scroll_region_wheel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
