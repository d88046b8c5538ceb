/* Windows and panels. A window is a floating box at (x, y) from its
 * parent's corner (windows belong at the root: screen coordinates), with a
 * title bar that moves it while dragged (the position lives in the
 * window's per-key state) and a content column that takes the rest of the
 * height (strictness 0: the conflict solver gives it what the title leaves)
 * and scrolls vertically. A grip in the bottom-right corner ("##grip",
 * shown while hovered or held) resizes it when dragged (the size lives in
 * the window's state, so a collapse keeps it), down to GRIP_MIN_W x the title plus a grip; a double
 * click on the title collapses it to the title, and another expands it:
 * collapsed, ze_ui_window_begin closes the window itself and returns
 * false, and a ze_ui_window_end after it does nothing. Content keys are seeded by the window's key,
 * so "Inventory/Delete" names a button in window "Inventory". A panel is a box in the flow with a
 * background, a border and padding. */
#include "ui/ui_internal.h"

enum {
    GRIP = 12,       /* the resize grip's side, logical pixels */
    GRIP_MIN_W = 60, /* the narrowest a grip makes a window, logical pixels */
};

bool ze_ui_window_begin(ze_ui_t *ui, const char *title, const ze_ui_window_desc_t *desc)
{
    ZE_CHECK(ui && ui->in_frame, false);
    static const ze_ui_window_desc_t zero;
    if (!desc)
        desc = &zero;
    const ze_ui_style_t *st = &ui->style;
    ui->window_closed = false;
    float w = desc->width > 0.0f ? desc->width : 300.0f;
    float h = desc->height > 0.0f ? desc->height : 200.0f;
    uint64_t key = ze__ui_widget_key(ui, title);
    uint64_t title_key = key ? ze__ui_hash_label("##title", 7, key) : 0;
    uint64_t grip_key = key ? ze__ui_hash_label("##grip", 6, key) : 0;
    const ze__ui_state *prev = ze__ui_state_find(ui, key);
    /* the size a grip drag left (pixels in the window's state, logical
       here), then this frame's drag */
    if (prev && (prev->flags & ZE__UI_STATE_SIZE_SET)) {
        w = prev->size[0] / ui->scale;
        h = prev->size[1] / ui->scale;
    }
    ze_ui_signal_t resize = ze__ui_signal_key(ui, grip_key);
    if (resize.held) {
        float min_h = ui->line_h / ui->scale + 2.0f * st->padding + GRIP;
        w = ZE_MAX(GRIP_MIN_W, w + resize.delta.x / ui->scale);
        h = ZE_MAX(min_h, h + resize.delta.y / ui->scale);
    }
    bool collapsed = prev && (prev->flags & ZE__UI_STATE_COLLAPSED);
    if (ze__ui_signal_key(ui, title_key).double_clicked)
        collapsed = !collapsed;
    float pos[2] = {ze__ui_px(ui, desc->x), ze__ui_px(ui, desc->y)};
    if (prev && (prev->flags & ZE__UI_STATE_POS_SET)) {
        pos[0] = prev->pos[0];
        pos[1] = prev->pos[1];
    }
    ze_ui_signal_t drag = ze__ui_signal_key(ui, title_key);
    if (drag.held) {
        pos[0] += drag.delta.x;
        pos[1] += drag.delta.y;
    }
    ze_ui_box_t *win =
        ze__ui_push_widget(ui, title,
                           &(ze_ui_box_desc_t){
                               .flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_CLICKABLE |
                                        ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER | ZE_UI_BOX_CLIP,
                               .x = pos[0] / ui->scale,
                               .y = pos[1] / ui->scale,
                               .width = ze_ui_px(w, 1),
                               .height = collapsed ? ze_ui_children(1) : ze_ui_px(h, 1),
                               .background = st->colors[ZE_UI_COLOR_WINDOW],
                               .corner_radius = st->corner_radius,
                               .border_width = st->border_width,
                           },
                           false);
    if (win->state) {
        win->state->pos[0] = pos[0];
        win->state->pos[1] = pos[1];
        win->state->flags |= ZE__UI_STATE_POS_SET;
        win->state->flags = collapsed ? win->state->flags | ZE__UI_STATE_COLLAPSED
                                      : win->state->flags & ~(uint32_t)ZE__UI_STATE_COLLAPSED;
        if (resize.held) {
            win->state->size[0] = ze__ui_px(ui, w);
            win->state->size[1] = ze__ui_px(ui, h);
            win->state->flags |= ZE__UI_STATE_SIZE_SET;
        }
    }
    size_t shown = ze__ui_label_visible(title);
    ze__ui_push(
        ui, title_key, "##title", 7,
        &(ze_ui_box_desc_t){
            .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_BACKGROUND,
            .width = ze_ui_pct(1, 1),
            .height = ze_ui_text_size(1),
            .padding_x = st->padding,
            .padding_y = st->padding,
            .align_y = ZE_UI_ALIGN_CENTER,
            .background = st->colors[drag.held ? ZE_UI_COLOR_TITLE_ACTIVE : ZE_UI_COLOR_TITLE],
        },
        title ? title : "", shown);
    ze_ui_pop_box(ui);
    if (collapsed) {
        ze_ui_pop_box(ui); /* the window: its title alone */
        ui->window_closed = true;
        return false;
    }
    ze__ui_push(ui, key ? ze__ui_hash_label("##content", 9, key) : 0, "##content", 9,
                &(ze_ui_box_desc_t){
                    .flags = ZE_UI_BOX_SCROLL_Y | ZE_UI_BOX_SEED_PARENT,
                    .width = ze_ui_pct(1, 0),
                    .height = ze_ui_pct(1, 0),
                    .padding_x = st->padding,
                    .padding_y = st->padding,
                    .spacing = st->spacing,
                },
                NULL, 0);
    return true;
}

void ze_ui_window_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    if (ui->window_closed && !ui->standin_depth) {
        ui->window_closed = false; /* collapsed: begin closed it */
        return;
    }
    ze_ui_pop_box(ui); /* content */
    ze_ui_box_t *win = ui->current;
    if (!ui->standin_depth && win && win->key) {
        /* the grip, over the content's corner (pixels: the window's size) */
        uint64_t grip_key = ze__ui_hash_label("##grip", 6, win->key);
        ze_ui_signal_t sig = ze__ui_signal_key(ui, grip_key);
        float w = win->size[0].value, h = win->size[1].value; /* logical */
        ze__ui_push(ui, grip_key, "##grip", 6,
                    &(ze_ui_box_desc_t){
                        .flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_CLICKABLE |
                                 (sig.hovered || sig.held ? ZE_UI_BOX_BACKGROUND : 0u),
                        .x = w - GRIP,
                        .y = h - GRIP,
                        .width = ze_ui_px(GRIP, 1),
                        .height = ze_ui_px(GRIP, 1),
                        .background = ui->style.colors[ZE_UI_COLOR_GRAB],
                        .corner_radius = ui->style.corner_radius,
                    },
                    NULL, 0);
        ze_ui_pop_box(ui);
    }
    ze_ui_pop_box(ui); /* window */
}

void ze_ui_panel_begin(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height)
{
    ZE_CHECK(ui && ui->in_frame, );
    const ze_ui_style_t *st = &ui->style;
    ze__ui_push_widget(ui, label,
                       &(ze_ui_box_desc_t){
                           .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
                           .width = width,
                           .height = height,
                           .padding_x = st->padding,
                           .padding_y = st->padding,
                           .spacing = st->spacing,
                           .background = st->colors[ZE_UI_COLOR_PANEL],
                           .corner_radius = st->corner_radius,
                           .border_width = st->border_width,
                       },
                       false);
}

void ze_ui_panel_end(ze_ui_t *ui)
{
    ze_ui_pop_box(ui);
}
