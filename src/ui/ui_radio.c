/* Radio buttons: one of a group of options sharing an int; a click (or
 * Enter/Space/activate while focused) selects this one's option. A round
 * frame with a dot when selected, the label beside it. */
#include "ui/ui_internal.h"

bool ze_ui_radio(ze_ui_t *ui, const char *label, int *value, int option)
{
    ZE_CHECK(ui && ui->in_frame && value, false);
    const ze_ui_style_t *st = &ui->style;
    uint64_t key = ze__ui_widget_key(ui, label);
    bool changed = false;
    if (ze__ui_signal_key(ui, key).clicked && *value != option) {
        *value = option;
        changed = true;
    }
    float side = ze__ui_font_line_height(ui->font) / ui->scale;
    ze__ui_push_widget(ui, label,
                       &(ze_ui_box_desc_t){
                           .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE,
                           .layout = ZE_UI_LAYOUT_ROW,
                           .align_y = ZE_UI_ALIGN_CENTER,
                           .spacing = st->spacing,
                       },
                       false);
    bool hot = key && (ui->hot == key || ui->active == key);
    ze_ui_push_box(ui, NULL,
                   &(ze_ui_box_desc_t){
                       .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
                       .width = ze_ui_px(side, 1),
                       .height = ze_ui_px(side, 1),
                       .align_x = ZE_UI_ALIGN_CENTER,
                       .align_y = ZE_UI_ALIGN_CENTER,
                       .background = st->colors[hot ? ZE_UI_COLOR_FRAME_HOT : ZE_UI_COLOR_FRAME],
                       .corner_radius = side * 0.5f,
                       .border_width = st->border_width,
                   });
    if (*value == option)
        ze_ui_box(ui, NULL,
                  &(ze_ui_box_desc_t){
                      .flags = ZE_UI_BOX_BACKGROUND,
                      .width = ze_ui_pct(0.5f, 1),
                      .height = ze_ui_pct(0.5f, 1),
                      .background = st->colors[ZE_UI_COLOR_CHECK],
                      .corner_radius = side * 0.25f,
                  });
    ze_ui_pop_box(ui);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", ze__ui_label_visible(label));
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui);
    return changed;
}
