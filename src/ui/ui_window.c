/* Windows and panels. A window is a floating box at (x, y) from its
 * parent's corner (windows belong at the root: screen coordinates), with a
 * title bar that moves it while dragged (the position lives in the
 * window's per-key state) and a content column that takes the rest of the
 * height (strictness 0: the conflict solver gives it what the title leaves)
 * and scrolls vertically. Content keys are seeded by the window's key, so
 * "Inventory/Delete" names a button in window "Inventory". A panel is a box
 * in the flow with a background, a border and padding. */
#include "ui/ui_internal.h"

bool ze_ui_window_begin(ze_ui_t *ui, const char *title, const ze_ui_window_desc_t *desc)
{
    ZE_CHECK(ui && ui->in_frame, false);
    static const ze_ui_window_desc_t zero;
    if (!desc)
        desc = &zero;
    const ze_ui_style_t *st = &ui->style;
    float w = desc->width > 0.0f ? desc->width : 300.0f;
    float h = desc->height > 0.0f ? desc->height : 200.0f;
    uint64_t key = ze__ui_widget_key(ui, title);
    uint64_t title_key = key ? ze__ui_hash_label("##title", 7, key) : 0;
    const ze__ui_state *prev = ze__ui_state_find(ui, key);
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
                               .height = ze_ui_px(h, 1),
                               .background = st->colors[ZE_UI_COLOR_WINDOW],
                               .corner_radius = st->corner_radius,
                               .border_width = st->border_width,
                           },
                           false);
    if (win->state) {
        win->state->pos[0] = pos[0];
        win->state->pos[1] = pos[1];
        win->state->flags |= ZE__UI_STATE_POS_SET;
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
    ze_ui_pop_box(ui); /* content */
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
