/* Combo boxes: a frame showing the chosen item and an arrow; a click (or
 * Enter) opens a popup below it listing the items, each keyed by its label
 * under the popup ("Quality/##popup/High"); choosing one sets the index
 * and closes the popup; a press outside or Escape closes it unchanged. */
#include "ui/ui_internal.h"

bool ze_ui_combo(ze_ui_t *ui, const char *label, int *index, const char *const *items, int count)
{
    ZE_CHECK(ui && ui->in_frame && index && (items || count <= 0), false);
    const ze_ui_style_t *st = &ui->style;
    if (count < 0)
        count = 0;
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_signal_t sig = ze__ui_signal_key(ui, key);
    bool open = ze__ui_popup_open(ui, key);
    if (sig.clicked) {
        if (open)
            ze__ui_popup_close_level(ui);
        else
            ze__ui_popup_show(ui, key, 0, 0);
        open = !open;
    }
    const ze__ui_state *s = ze__ui_state_find(ui, key);
    ze_ui_rect_t r = s && (s->flags & ZE__UI_STATE_HAS_RECT) ? s->rect : (ze_ui_rect_t){0};
    int cur = *index;
    const char *shown = cur >= 0 && cur < count && items[cur] ? items[cur] : "";

    ze_ui_row_begin(ui);
    bool hot = key && (ui->hot == key || ui->active == key);
    ze__ui_push_widget(
        ui, label,
        &(ze_ui_box_desc_t){
            .flags =
                ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
            .layout = ZE_UI_LAYOUT_ROW,
            .width = ze_ui_px(st->slider_width, 1),
            .height = ze_ui_children(1),
            .padding_x = st->padding,
            .padding_y = st->padding,
            .align_y = ZE_UI_ALIGN_CENTER,
            .background = st->colors[hot ? ZE_UI_COLOR_FRAME_HOT : ZE_UI_COLOR_FRAME],
            .corner_radius = st->corner_radius,
            .border_width = st->border_width,
        },
        false);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLIP,
                                    .width = ze_ui_pct(1, 0),
                                    .height = ze_ui_text_size(1)},
                shown, ze__ui_label_visible(shown));
    ze_ui_pop_box(ui);
    static const char arrow[] = "\xe2\x96\xbe"; /* ▾ */
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                arrow, 3);
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui); /* frame */
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", ze__ui_label_visible(label));
    ze_ui_pop_box(ui);
    ze_ui_row_end(ui);

    bool changed = false, chosen = false;
    if (open && ze__ui_popup_open(ui, key)) {
        ze__ui_popup_begin(ui, key, r.x0, r.y1);
        for (int i = 0; i < count; i++) {
            const char *item = items[i] ? items[i] : "";
            uint64_t ik = ze__ui_widget_key(ui, item);
            ze_ui_signal_t is = ze__ui_signal_key(ui, ik);
            bool lit = is.hovered || is.focused || i == cur;
            ze__ui_push_widget(
                ui, item,
                &(ze_ui_box_desc_t){
                    .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE |
                             (lit ? ZE_UI_BOX_BACKGROUND : 0),
                    .width = ze_ui_px(st->slider_width - 2.0f * st->padding, 1),
                    .height = ze_ui_text_size(1),
                    .padding_x = st->padding,
                    .padding_y = st->padding * 0.5f,
                    .background = st->colors[i == cur && !is.hovered ? ZE_UI_COLOR_SELECTION
                                                                     : ZE_UI_COLOR_BUTTON_HOT],
                    .corner_radius = st->corner_radius,
                },
                true);
            ze_ui_pop_box(ui);
            if (is.clicked) {
                changed = i != *index;
                *index = i;
                chosen = true;
            }
        }
        ze__ui_popup_end(ui);
        if (chosen)
            ze__ui_popup_close_level(ui); /* back at the combo's level */
    }
    return changed;
}
