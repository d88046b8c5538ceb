/* The text field, scripted: UTF-8 typed as text events, Shift+arrow
 * selection replaced by typing, undo/redo (a typed run is one step, a caret
 * move ends it, a new edit clears redo), Backspace/Delete over multi-byte
 * characters and invalid bytes, input refused whole when the buffer is
 * full, the clipboard round trip through the desc's callbacks and through
 * the context's own, caret placement, drag selection and double click with
 * the mouse, Enter, Escape, the text scrolled to keep the caret in view,
 * and key repeat: a held Backspace deletes again after the delay, at the
 * interval, until released; a held Down walks the focus; a negative delay
 * turns repeat off. */
#include <stdio.h>

#include "ui_test_util.h"

typedef struct field_t {
    char buf[64];
    size_t cap; /* 0 = sizeof buf */
    uint32_t last, all;
} field_t;

static void build_field(ze_ui_t *ui, void *user)
{
    field_t *f = user;
    f->last = ze_ui_text_field(ui, "Name", f->buf, f->cap ? f->cap : sizeof f->buf);
    f->all |= f->last;
    ze_ui_button(ui, "Other");
}

static void focus_field(ut_t *t)
{
    ut_frames(t, 1);
    ut_click(t, "Name");
    assert_true(ze_ui_focus(t->ui).id == ze_ui_key_path("Name").id);
}

static void key_frame(ut_t *t, uint32_t key, uint32_t mods)
{
    ut_key(t, key, mods);
    assert_int_equal(ut_frame(t), ZE_OK);
}

static void type_frame(ut_t *t, const char *text)
{
    ut_type(t, text);
    assert_int_equal(ut_frame(t), ZE_OK);
}

static void test_utf8_selection_undo(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "a\xc3\xb1"
                   "b\xe2\x82\xac"); /* "añb€" */
    assert_string_equal(f.buf, "a\xc3\xb1"
                               "b\xe2\x82\xac");
    assert_true(f.last & ZE_UI_TEXT_CHANGED);
    assert_true(f.last & ZE_UI_TEXT_EDITING);
    /* Shift+Left twice selects "b€"; typing replaces it. */
    ut_key(&t, ZE_UI_KEY_LEFT, ZE_UI_MOD_SHIFT);
    ut_key(&t, ZE_UI_KEY_LEFT, ZE_UI_MOD_SHIFT);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_false(f.last & ZE_UI_TEXT_CHANGED);
    type_frame(&t, "X");
    assert_string_equal(f.buf, "a\xc3\xb1X");
    /* Undo: the selection comes back; undo again: the typed run goes. */
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "a\xc3\xb1"
                               "b\xe2\x82\xac");
    assert_true(f.last & ZE_UI_TEXT_CHANGED);
    type_frame(&t, "Y"); /* replaces the restored selection "b€" */
    assert_string_equal(f.buf, "a\xc3\xb1Y");
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "");
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL); /* nothing left */
    assert_string_equal(f.buf, "");
    assert_false(f.last & ZE_UI_TEXT_CHANGED);
    /* Redo both ways of asking. */
    key_frame(&t, ZE_UI_KEY_Y, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "a\xc3\xb1"
                               "b\xe2\x82\xac");
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL | ZE_UI_MOD_SHIFT);
    assert_string_equal(f.buf, "a\xc3\xb1Y");
    key_frame(&t, ZE_UI_KEY_Y, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "a\xc3\xb1Y");
    /* Backspace and Delete take whole characters. */
    key_frame(&t, ZE_UI_KEY_LEFT, 0);
    key_frame(&t, ZE_UI_KEY_BACKSPACE, 0);
    assert_string_equal(f.buf, "aY");
    key_frame(&t, ZE_UI_KEY_HOME, 0);
    key_frame(&t, ZE_UI_KEY_DELETE, 0);
    assert_string_equal(f.buf, "Y");
    /* A new edit after an undo clears the redo stack. */
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "aY");
    type_frame(&t, "q");
    key_frame(&t, ZE_UI_KEY_Y, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "qaY");
    ut_fini(&t);
}

static void test_typed_runs_undo_as_one_step(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "ab");
    type_frame(&t, "cd"); /* another frame, the same run */
    key_frame(&t, ZE_UI_KEY_LEFT, 0);
    type_frame(&t, "x"); /* after a caret move: a new step */
    assert_string_equal(f.buf, "abcxd");
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "abcd");
    key_frame(&t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "");
    ut_fini(&t);
}

static void test_full_buffer_refuses_whole_input(void **state)
{
    (void)state;
    field_t f = {.cap = 5};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "abc");
    type_frame(&t, "\xc3\xa9"); /* é: two bytes, one left */
    assert_string_equal(f.buf, "abc");
    assert_false(f.last & ZE_UI_TEXT_CHANGED);
    type_frame(&t, "de");
    assert_string_equal(f.buf, "abcd");
    assert_int_equal(f.buf[4], 0);
    ut_fini(&t);
}

typedef struct clip_t {
    char text[128];
    size_t len;
    int sets, gets;
} clip_t;

static const char *clip_get(void *user, size_t *len)
{
    clip_t *c = user;
    c->gets++;
    *len = c->len;
    return c->text;
}

static void clip_set(void *user, const char *text, size_t len)
{
    clip_t *c = user;
    c->sets++;
    memcpy(c->text, text, len);
    c->len = len;
}

static void test_clipboard_callbacks(void **state)
{
    (void)state;
    field_t f = {0};
    clip_t clip = {0};
    ut_t t;
    ut_init(&t,
            (ze_ui_desc_t){
                .clipboard_get = clip_get, .clipboard_set = clip_set, .clipboard_user = &clip},
            build_field, &f);
    focus_field(&t);
    type_frame(&t, "h\xc3\xa9llo");
    key_frame(&t, ZE_UI_KEY_A, ZE_UI_MOD_CTRL);
    key_frame(&t, ZE_UI_KEY_C, ZE_UI_MOD_CTRL);
    assert_int_equal(clip.sets, 1);
    assert_int_equal(clip.len, 6);
    assert_memory_equal(clip.text, "h\xc3\xa9llo", 6);
    key_frame(&t, ZE_UI_KEY_END, 0);
    key_frame(&t, ZE_UI_KEY_V, ZE_UI_MOD_CTRL);
    assert_int_equal(clip.gets, 1);
    assert_string_equal(f.buf, "h\xc3\xa9llohéllo");
    /* Cut: copied, then removed. */
    ut_key(&t, ZE_UI_KEY_LEFT, ZE_UI_MOD_SHIFT);
    ut_key(&t, ZE_UI_KEY_LEFT, ZE_UI_MOD_SHIFT);
    key_frame(&t, ZE_UI_KEY_X, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "h\xc3\xa9llohél");
    assert_int_equal(clip.len, 2);
    assert_memory_equal(clip.text, "lo", 2);
    /* Line breaks from the clipboard become spaces (one line). */
    memcpy(clip.text, "1\n2", 3);
    clip.len = 3;
    key_frame(&t, ZE_UI_KEY_A, ZE_UI_MOD_CTRL);
    key_frame(&t, ZE_UI_KEY_V, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "1 2");
    ut_fini(&t);
}

static void test_clipboard_own(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "ab\xe2\x82\xac");
    key_frame(&t, ZE_UI_KEY_A, ZE_UI_MOD_CTRL);
    key_frame(&t, ZE_UI_KEY_X, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "");
    key_frame(&t, ZE_UI_KEY_V, ZE_UI_MOD_CTRL);
    key_frame(&t, ZE_UI_KEY_V, ZE_UI_MOD_CTRL);
    assert_string_equal(f.buf, "ab\xe2\x82\xac"
                               "ab\xe2\x82\xac");
    ut_fini(&t);
}

static void test_mouse_caret_and_selection(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    strcpy(f.buf, "abcdef");
    focus_field(&t);
    ze_ui_rect_t r = ut_rect(&t, "Name");
    float y = (r.y0 + r.y1) * 0.5f, x0 = r.x0 + 4; /* the style's padding */
    /* 8-pixel cells: 2 px into the third cell is nearest boundary 2. */
    ut_move(&t, x0 + 18, y);
    ut_button(&t, true);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_button(&t, false);
    assert_int_equal(ut_frame(&t), ZE_OK);
    type_frame(&t, "Z");
    assert_string_equal(f.buf, "abZcdef");
    /* Drag from boundary 1 to boundary 4, then delete the selection. */
    ut_frames(&t, 20); /* no double click with the last press */
    ut_move(&t, x0 + 7, y);
    ut_button(&t, true);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_move(&t, x0 + 33, y);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_button(&t, false);
    assert_int_equal(ut_frame(&t), ZE_OK);
    key_frame(&t, ZE_UI_KEY_BACKSPACE, 0);
    assert_string_equal(f.buf, "adef");
    /* A double click selects all. */
    ut_frames(&t, 20);
    ut_click(&t, "Name");
    ut_click(&t, "Name");
    type_frame(&t, "Q");
    assert_string_equal(f.buf, "Q");
    ut_fini(&t);
}

static void test_enter_escape(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "go");
    key_frame(&t, ZE_UI_KEY_ENTER, 0);
    assert_true(f.last & ZE_UI_TEXT_SUBMITTED);
    assert_false(f.last & ZE_UI_TEXT_CHANGED);
    assert_true(ze_ui_wants_keyboard(t.ui));
    key_frame(&t, ZE_UI_KEY_ESCAPE, 0);
    assert_false(f.last & ZE_UI_TEXT_EDITING);
    assert_false(ze_ui_wants_keyboard(t.ui));
    type_frame(&t, "x"); /* not focused: ignored */
    assert_string_equal(f.buf, "go");
    /* Focusing another field, or a click elsewhere, leaves it too. */
    focus_field(&t);
    ut_click(&t, "Other");
    assert_false(ze_ui_wants_keyboard(t.ui));
    ut_fini(&t);
}

static void test_invalid_utf8_in_buffer(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    memcpy(f.buf, "a\xff\xe2\x82z", 6); /* a, a stray byte, a truncated €, z */
    focus_field(&t);
    key_frame(&t, ZE_UI_KEY_END, 0);
    key_frame(&t, ZE_UI_KEY_BACKSPACE, 0);
    assert_string_equal(f.buf, "a\xff\xe2\x82");
    key_frame(&t, ZE_UI_KEY_BACKSPACE, 0); /* each invalid byte is one character */
    assert_string_equal(f.buf, "a\xff\xe2");
    key_frame(&t, ZE_UI_KEY_LEFT, 0);
    key_frame(&t, ZE_UI_KEY_BACKSPACE, 0);
    assert_string_equal(f.buf, "a\xe2");
    /* Drawn: U+FFFD for each invalid byte. */
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    uint32_t cps[8], n = 0;
    for (uint32_t i = 0; i < dl.count && n < 8; i++)
        if (dl.instances[i].kind == ZE_UI_INSTANCE_GLYPH)
            cps[n++] = dl.instances[i].codepoint;
    /* the field's text, then the button's "Other" */
    assert_true(n >= 2);
    assert_int_equal(cps[0], 'a');
    assert_int_equal(cps[1], 0xfffd);
    ut_fini(&t);
}

static void test_scrolls_to_caret(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "0123456789012345678901234567890123456789"); /* 320 px in 192 */
    ze_ui_rect_t r = ut_rect(&t, "Name");
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    float right = -1e9f, left = 1e9f;
    for (uint32_t i = 0; i < dl.count; i++) {
        const ze_ui_instance_t *in = &dl.instances[i];
        if (in->kind == ZE_UI_INSTANCE_GLYPH && in->rect.y0 < r.y1 && in->rect.x0 < r.x1) {
            right = in->rect.x1 > right ? in->rect.x1 : right;
            left = in->rect.x0 < left ? in->rect.x0 : left;
            assert_true(in->clip.x0 >= r.x0 && in->clip.x1 <= r.x1); /* clipped to the field */
        }
    }
    /* (The field's own glyphs: left of its label.) The last character ends
     * at the inner right edge; the first are scrolled out to the left (and
     * culled where wholly outside). */
    assert_true(right == r.x1 - 4);
    assert_true(left < r.x0);
    key_frame(&t, ZE_UI_KEY_HOME, 0);
    dl = ze_ui_draw_list(t.ui);
    left = 1e9f;
    for (uint32_t i = 0; i < dl.count; i++)
        if (dl.instances[i].kind == ZE_UI_INSTANCE_GLYPH && dl.instances[i].rect.y0 < r.y1 &&
            dl.instances[i].rect.x0 < r.x1)
            left = dl.instances[i].rect.x0 < left ? dl.instances[i].rect.x0 : left;
    assert_true(left == r.x0 + 4);
    ut_fini(&t);
}

static void key_edge(ut_t *t, uint32_t key, bool down)
{
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_KEY, .key = key, .down = down});
}

/* ut_frame's dt is 1/60 s: the default delay (0.4 s) is 24 frames, the
 * interval (0.05 s) 3. */
static void test_key_repeat(void **state)
{
    (void)state;
    field_t f = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_field, &f);
    focus_field(&t);
    type_frame(&t, "abcdefghijklmnop"); /* 16 */
    key_edge(&t, ZE_UI_KEY_BACKSPACE, true);
    ut_frames(&t, 1);
    assert_int_equal(strlen(f.buf), 15);
    ut_frames(&t, 20); /* 0.33 s held: before the delay */
    assert_int_equal(strlen(f.buf), 15);
    ut_frames(&t, 19); /* 0.67 s: repeats at 0.40, 0.45 ... 0.65 */
    assert_int_equal(strlen(f.buf), 9);
    key_edge(&t, ZE_UI_KEY_BACKSPACE, false);
    ut_frames(&t, 30);
    assert_int_equal(strlen(f.buf), 9);
    /* pressing another key while one is held moves the repeat to it */
    key_frame(&t, ZE_UI_KEY_HOME, 0);
    key_edge(&t, ZE_UI_KEY_RIGHT, true);
    ut_frames(&t, 1); /* the caret after 'a', Right held */
    key_edge(&t, ZE_UI_KEY_DELETE, true);
    ut_frames(&t, 1);
    assert_string_equal(f.buf, "acdefghi");
    ut_frames(&t, 27); /* 0.47 s after Delete: two repeats, of Delete alone */
    assert_string_equal(f.buf, "aefghi");
    key_edge(&t, ZE_UI_KEY_DELETE, false);
    key_edge(&t, ZE_UI_KEY_RIGHT, false);
    ut_frames(&t, 1);
    ut_fini(&t);
}

static void build_buttons(ze_ui_t *ui, void *user)
{
    (void)user;
    char label[16];
    for (int i = 0; i < 12; i++) {
        snprintf(label, sizeof label, "B%d", i);
        ze_ui_button(ui, label);
    }
}

static int focused_button(ut_t *t)
{
    char label[16];
    for (int i = 0; i < 12; i++) {
        snprintf(label, sizeof label, "B%d", i);
        if (ze_ui_focus(t->ui).id == ze_ui_key_path(label).id)
            return i;
    }
    return -1;
}

static void test_key_repeat_navigates(void **state)
{
    (void)state;
    for (int off = 0; off < 2; off++) {
        ut_t t;
        ut_init(&t, (ze_ui_desc_t){.key_repeat_delay = off ? -1.0f : 0.0f}, build_buttons, NULL);
        ut_frames(&t, 1);
        ut_click(&t, "B0");
        assert_int_equal(focused_button(&t), 0);
        key_edge(&t, ZE_UI_KEY_DOWN, true);
        ut_frames(&t, 1);
        assert_int_equal(focused_button(&t), 1);
        ut_frames(&t, 30); /* 0.52 s held: repeats at 0.40, 0.45, 0.50 */
        assert_int_equal(focused_button(&t), off ? 1 : 4);
        key_edge(&t, ZE_UI_KEY_DOWN, false);
        ut_frames(&t, 30);
        assert_int_equal(focused_button(&t), off ? 1 : 4);
        ut_fini(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_repeat),
        cmocka_unit_test(test_key_repeat_navigates),
        cmocka_unit_test(test_utf8_selection_undo),
        cmocka_unit_test(test_typed_runs_undo_as_one_step),
        cmocka_unit_test(test_full_buffer_refuses_whole_input),
        cmocka_unit_test(test_clipboard_callbacks),
        cmocka_unit_test(test_clipboard_own),
        cmocka_unit_test(test_mouse_caret_and_selection),
        cmocka_unit_test(test_enter_escape),
        cmocka_unit_test(test_invalid_utf8_in_buffer),
        cmocka_unit_test(test_scrolls_to_caret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
