/* Text fields: single-line UTF-8 editing of a caller's buffer. The focused
 * field owns the context's one text-edit state: caret and selection (byte
 * offsets on character boundaries), a horizontal scroll that keeps the
 * caret in view, and undo/redo stacks of whole-buffer snapshots (a run of
 * typed characters is one step; at most ZE__UI_UNDO_MAX steps each, the
 * oldest dropped). Mouse: a press places the caret (Shift extends), a drag
 * selects, a double click selects all. The clipboard goes through the
 * desc's callbacks, or the context's own buffer without them. Input that
 * does not fit the buffer is refused whole. */
#include <string.h>

#include "ui/ui_internal.h"

/* ------------------------------------------------------------ undo stacks */

static void stack_free(ze_ui_t *ui, ze__ui_undo_stack *st)
{
    ze_free(ui->alloc, st->recs, sizeof *st->recs * st->cap);
    ze_free(ui->alloc, st->bytes, st->bytes_cap);
    *st = (ze__ui_undo_stack){0};
}

static void stack_drop_oldest(ze__ui_undo_stack *st)
{
    uint32_t n = st->recs[0].len;
    memmove(st->bytes, st->bytes + n, st->used - n);
    st->used -= n;
    memmove(st->recs, st->recs + 1, sizeof *st->recs * (st->count - 1));
    st->count--;
    for (uint32_t i = 0; i < st->count; i++)
        st->recs[i].offset -= n;
}

static bool stack_push(ze_ui_t *ui, ze__ui_undo_stack *st, const char *text, size_t len,
                       size_t caret, size_t anchor)
{
    if (st->count == ZE__UI_UNDO_MAX)
        stack_drop_oldest(st);
    if (st->count == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 16;
        ze__ui_undo_rec *n =
            ze_realloc(ui->alloc, st->recs, sizeof *n * st->cap, sizeof *n * cap, 16);
        if (!n)
            return false;
        st->recs = n;
        st->cap = cap;
    }
    if (st->used + len > st->bytes_cap) {
        size_t cap = st->bytes_cap ? st->bytes_cap : 256;
        while (cap < st->used + len)
            cap *= 2;
        char *n = ze_realloc(ui->alloc, st->bytes, st->bytes_cap, cap, 16);
        if (!n)
            return false;
        st->bytes = n;
        st->bytes_cap = cap;
    }
    if (len)
        memcpy(st->bytes + st->used, text, len);
    st->recs[st->count++] =
        (ze__ui_undo_rec){(uint32_t)st->used, (uint32_t)len, (uint32_t)caret, (uint32_t)anchor};
    st->used += len;
    return true;
}

void ze__ui_text_edit_reset(ze_ui_t *ui, uint64_t key, size_t len)
{
    ze__ui_text_edit *ed = &ui->edit;
    ed->key = key;
    ed->caret = ed->anchor = len;
    ed->scroll = 0.0f;
    ed->typing = ed->selecting = false;
    ed->undo.count = ed->redo.count = 0;
    ed->undo.used = ed->redo.used = 0;
}

void ze__ui_text_edit_free(ze_ui_t *ui)
{
    stack_free(ui, &ui->edit.undo);
    stack_free(ui, &ui->edit.redo);
}

/* ------------------------------------------------------------------ edits */

typedef struct field {
    ze_ui_t *ui;
    ze__ui_text_edit *ed;
    char *buf;
    size_t cap, len;
    uint32_t result;
} field;

static size_t sel_lo(const field *f)
{
    return ZE_MIN(f->ed->caret, f->ed->anchor);
}

static size_t sel_hi(const field *f)
{
    return ZE_MAX(f->ed->caret, f->ed->anchor);
}

/* Snapshot before an edit; typed text joins the step it continues. */
static void remember(field *f, bool typing)
{
    ze__ui_text_edit *ed = f->ed;
    if (!(typing && ed->typing)) {
        if (!stack_push(f->ui, &ed->undo, f->buf, f->len, ed->caret, ed->anchor))
            ze__ui_error(f->ui, ZE_ERR_BUDGET, "ui: no memory for the text field's undo step");
        ed->redo.count = 0;
        ed->redo.used = 0;
    }
    ed->typing = typing;
}

/* Replaces [lo, hi) with text[0..n); false (nothing changes) when the
 * result would not fit. */
static bool replace_range(field *f, size_t lo, size_t hi, const char *text, size_t n, bool typing)
{
    if (lo == hi && n == 0)
        return false;
    if (f->len - (hi - lo) + n > f->cap - 1)
        return false;
    remember(f, typing); /* before anything moves: undo restores caret and selection */
    memmove(f->buf + lo + n, f->buf + hi, f->len - hi);
    if (n)
        memcpy(f->buf + lo, text, n);
    f->len = f->len - (hi - lo) + n;
    f->buf[f->len] = 0;
    f->ed->caret = f->ed->anchor = lo + n;
    f->result |= ZE_UI_TEXT_CHANGED;
    return true;
}

static bool replace(field *f, const char *text, size_t n, bool typing)
{
    return replace_range(f, sel_lo(f), sel_hi(f), text, n, typing);
}

static void restore(field *f, ze__ui_undo_stack *from, ze__ui_undo_stack *to)
{
    if (!from->count)
        return;
    ze__ui_undo_rec r = from->recs[from->count - 1];
    if (r.len > f->cap - 1)
        return;
    if (!stack_push(f->ui, to, f->buf, f->len, f->ed->caret, f->ed->anchor)) {
        ze__ui_error(f->ui, ZE_ERR_BUDGET, "ui: no memory for the text field's undo step");
        return;
    }
    from->count--;
    from->used = r.offset;
    memcpy(f->buf, from->bytes + r.offset, r.len);
    f->len = r.len;
    f->buf[f->len] = 0;
    f->ed->caret = ZE_MIN(r.caret, r.len);
    f->ed->anchor = ZE_MIN(r.anchor, r.len);
    f->ed->typing = false;
    f->result |= ZE_UI_TEXT_CHANGED;
}

static void copy_selection(field *f)
{
    ze_ui_t *ui = f->ui;
    size_t lo = sel_lo(f), n = sel_hi(f) - lo;
    if (!n)
        return;
    if (ui->clip_set) {
        ui->clip_set(ui->clip_user, f->buf + lo, n);
        return;
    }
    if (n > ui->clip_own_cap) {
        char *p = ze_realloc(ui->alloc, ui->clip_own, ui->clip_own_cap, n, 16);
        if (!p) {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: no memory for the clipboard");
            return;
        }
        ui->clip_own = p;
        ui->clip_own_cap = n;
    }
    memcpy(ui->clip_own, f->buf + lo, n);
    ui->clip_own_len = n;
}

static void paste(field *f)
{
    ze_ui_t *ui = f->ui;
    size_t n = 0;
    const char *text = NULL;
    if (ui->clip_get)
        text = ui->clip_get(ui->clip_user, &n);
    else {
        text = ui->clip_own;
        n = ui->clip_own_len;
    }
    if (!text || !n)
        return;
    /* One line: line breaks and other controls become spaces (a copy in
     * the frame arena; the clipboard's text is borrowed). */
    char *line = ze__ui_strdup(ui, text, n);
    if (!line) {
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: frame arena exhausted pasting %zu bytes", n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = ' ';
    replace(f, line, n, false);
}

static size_t encode_utf8(uint32_t cp, char out[4])
{
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        cp = ZE__UI_REPLACEMENT;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static void move_caret(field *f, size_t to, bool extend)
{
    f->ed->caret = to;
    if (!extend)
        f->ed->anchor = to;
    f->ed->typing = false;
}

static void on_key(field *f, const ze_ui_event_t *e)
{
    ze__ui_text_edit *ed = f->ed;
    bool ctrl = e->mods & ZE_UI_MOD_CTRL, shift = e->mods & ZE_UI_MOD_SHIFT;
    bool sel = ed->caret != ed->anchor;
    switch (e->key) {
    case ZE_UI_KEY_LEFT:
        move_caret(f, sel && !shift ? sel_lo(f) : ze__ui_utf8_prev(f->buf, f->len, ed->caret),
                   shift);
        break;
    case ZE_UI_KEY_RIGHT:
        move_caret(f, sel && !shift ? sel_hi(f) : ze__ui_utf8_next(f->buf, f->len, ed->caret),
                   shift);
        break;
    case ZE_UI_KEY_HOME:
        move_caret(f, 0, shift);
        break;
    case ZE_UI_KEY_END:
        move_caret(f, f->len, shift);
        break;
    case ZE_UI_KEY_BACKSPACE:
        if (sel)
            replace(f, NULL, 0, false);
        else
            replace_range(f, ze__ui_utf8_prev(f->buf, f->len, ed->caret), ed->caret, NULL, 0,
                          false);
        break;
    case ZE_UI_KEY_DELETE:
        if (sel)
            replace(f, NULL, 0, false);
        else
            replace_range(f, ed->caret, ze__ui_utf8_next(f->buf, f->len, ed->caret), NULL, 0,
                          false);
        break;
    case ZE_UI_KEY_ENTER:
    case ZE_UI_KEY_KP_ENTER:
        f->result |= ZE_UI_TEXT_SUBMITTED;
        ed->typing = false;
        break;
    case ZE_UI_KEY_A:
        if (ctrl) {
            ed->anchor = 0;
            ed->caret = f->len;
            ed->typing = false;
        }
        break;
    case ZE_UI_KEY_C:
        if (ctrl)
            copy_selection(f);
        break;
    case ZE_UI_KEY_X:
        if (ctrl && sel) {
            copy_selection(f);
            replace(f, NULL, 0, false);
        }
        break;
    case ZE_UI_KEY_V:
        if (ctrl)
            paste(f);
        break;
    case ZE_UI_KEY_Z:
        if (ctrl && shift)
            restore(f, &ed->redo, &ed->undo);
        else if (ctrl)
            restore(f, &ed->undo, &ed->redo);
        break;
    case ZE_UI_KEY_Y:
        if (ctrl)
            restore(f, &ed->redo, &ed->undo);
        break;
    default:
        break;
    }
}

static void on_events(field *f)
{
    const ze__ui_input *in = &f->ui->in;
    for (uint32_t i = 0; i < in->event_count; i++) {
        const ze_ui_event_t *e = &in->events[i];
        if (e->type == ZE_UI_EVENT_KEY && e->down) {
            on_key(f, e);
        } else if (e->type == ZE_UI_EVENT_TEXT) {
            if (e->codepoint < 0x20 || e->codepoint == 0x7f)
                continue; /* controls arrive as keys */
            char utf8[4];
            size_t n = encode_utf8(e->codepoint, utf8);
            replace(f, utf8, n, true);
        }
    }
}

/* Caret placement from the mouse, against the previous frame's box. */
static void on_mouse(field *f, ze_ui_signal_t sig, const ze__ui_state *s, float pad)
{
    ze__ui_text_edit *ed = f->ed;
    if (!s || !(s->flags & ZE__UI_STATE_HAS_RECT))
        return;
    float x = sig.mouse.x - (s->rect.x0 + pad) + ed->scroll;
    if (sig.double_clicked) {
        ed->anchor = 0;
        ed->caret = f->len;
        ed->selecting = false;
        ed->typing = false;
        return;
    }
    if (sig.pressed) {
        bool extend = f->ui->in.mods & ZE_UI_MOD_SHIFT;
        move_caret(f, ze__ui_text_hit(f->ui, f->buf, f->len, x), extend);
        ed->selecting = true;
    } else if (sig.held && ed->selecting) {
        ed->caret = ze__ui_text_hit(f->ui, f->buf, f->len, x);
    }
    if (!sig.held && !sig.pressed)
        ed->selecting = false;
}

/* ------------------------------------------------------------------ widget */

uint32_t ze_ui_text_field(ze_ui_t *ui, const char *label, char *buf, size_t cap)
{
    ZE_CHECK(ui && ui->in_frame && buf && cap, 0);
    const ze_ui_style_t *st = &ui->style;
    field f = {.ui = ui, .ed = &ui->edit, .buf = buf, .cap = cap, .len = strnlen(buf, cap)};
    if (f.len == cap) {
        f.len = cap - 1; /* not terminated: the caller's last byte becomes the NUL */
        buf[f.len] = 0;
    }
    uint64_t key = ze__ui_widget_key(ui, label);
    float pad = ze__ui_px(ui, st->padding);
    float inner = ze__ui_px(ui, st->text_field_width) - 2.0f * pad;
    bool focused = key && ui->focus == key;
    ze__ui_text_edit *ed = &ui->edit;
    if (focused) {
        if (ed->key != key)
            ze__ui_text_edit_reset(ui, key, f.len);
        /* The caller may have changed the text since the last frame. */
        ed->caret = ZE_MIN(ed->caret, f.len);
        ed->anchor = ZE_MIN(ed->anchor, f.len);
        if (ze__ui_utf8_next(buf, f.len, ze__ui_utf8_prev(buf, f.len, ed->caret)) != ed->caret)
            ed->caret = ze__ui_utf8_prev(buf, f.len, ed->caret);
        if (ze__ui_utf8_next(buf, f.len, ze__ui_utf8_prev(buf, f.len, ed->anchor)) != ed->anchor)
            ed->anchor = ze__ui_utf8_prev(buf, f.len, ed->anchor);
        on_mouse(&f, ze__ui_signal_key(ui, key), ze__ui_state_find(ui, key), pad);
        on_events(&f);
        f.result |= ZE_UI_TEXT_EDITING;
        float cx = ze__ui_text_width(ui, buf, ed->caret);
        if (cx - ed->scroll > inner)
            ed->scroll = cx - inner;
        if (cx < ed->scroll)
            ed->scroll = cx;
        float total = ze__ui_text_width(ui, buf, f.len);
        if (ed->scroll > 0.0f && total - ed->scroll < inner)
            ed->scroll = ZE_MAX(0.0f, total - inner);
    }
    float scroll = focused ? ed->scroll : 0.0f;
    bool hot = key && ui->hot == key;
    ze_ui_row_begin(ui);
    ze__ui_push_widget(
        ui, label,
        &(ze_ui_box_desc_t){
            .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | ZE_UI_BOX_BACKGROUND |
                     ZE_UI_BOX_BORDER | ZE_UI_BOX_CLIP,
            .width = ze_ui_px(st->text_field_width, 1),
            .height = ze_ui_text_size(1),
            .padding_x = st->padding,
            .padding_y = st->padding,
            .background = st->colors[hot ? ZE_UI_COLOR_FRAME_HOT : ZE_UI_COLOR_FRAME],
            .corner_radius = st->corner_radius,
            .border_width = st->border_width,
        },
        false);
    float line = ze__ui_font_line_height(ui->font) / ui->scale;
    float s = ui->scale;
    if (focused && ed->caret != ed->anchor) {
        float x0 = ze__ui_text_width(ui, buf, sel_lo(&f)),
              x1 = ze__ui_text_width(ui, buf, sel_hi(&f));
        ze_ui_box(ui, NULL,
                  &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_BACKGROUND,
                                      .x = (pad + x0 - scroll) / s,
                                      .y = st->padding,
                                      .width = ze_ui_px((x1 - x0) / s, 1),
                                      .height = ze_ui_px(line, 1),
                                      .background = st->colors[ZE_UI_COLOR_SELECTION]});
    }
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING,
                                    .x = (pad - scroll) / s,
                                    .y = st->padding,
                                    .width = ze_ui_text_size(1),
                                    .height = ze_ui_text_size(1)},
                buf, f.len);
    ze_ui_pop_box(ui);
    if (focused) {
        float cx = ze__ui_text_width(ui, buf, ed->caret);
        ze_ui_box(ui, NULL,
                  &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_BACKGROUND,
                                      .x = (pad + cx - scroll) / s,
                                      .y = st->padding,
                                      .width = ze_ui_px(1, 1),
                                      .height = ze_ui_px(line, 1),
                                      .background = st->colors[ZE_UI_COLOR_CARET]});
    }
    ze_ui_pop_box(ui); /* field */
    size_t shown = ze__ui_label_visible(label);
    if (shown) {
        ze__ui_push(ui, 0, NULL, 0,
                    &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                    label, shown);
        ze_ui_pop_box(ui);
    }
    ze_ui_row_end(ui);
    return f.result;
}
