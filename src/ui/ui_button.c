/* Buttons and checkboxes: a clickable, focusable box that reports a click
 * (mouse release over it, or Enter/Space/activate while focused). */
#include "ui/ui_internal.h"

static uint32_t button_color(const ze_ui_t *ui, uint64_t key)
{
    const uint32_t *c = ui->style.colors;
    if (key && ui->active == key)
        return c[ZE_UI_COLOR_BUTTON_ACTIVE];
    if (key && ui->hot == key)
        return c[ZE_UI_COLOR_BUTTON_HOT];
    return c[ZE_UI_COLOR_BUTTON];
}

bool ze_ui_button(ze_ui_t *ui, const char *label)
{
    ZE_CHECK(ui && ui->in_frame, false);
    const ze_ui_style_t *st = &ui->style;
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_box_t *b = ze__ui_push_widget(ui, label,
                                        &(ze_ui_box_desc_t){
                                            .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE |
                                                     ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
                                            .width = ze_ui_text_size(1),
                                            .height = ze_ui_text_size(1),
                                            .align_x = ZE_UI_ALIGN_CENTER,
                                            .align_y = ZE_UI_ALIGN_CENTER,
                                            .padding_x = st->padding * 2.0f,
                                            .padding_y = st->padding,
                                            .background = button_color(ui, key),
                                            .corner_radius = st->corner_radius,
                                            .border_width = st->border_width,
                                        },
                                        true);
    ze_ui_pop_box(ui);
    return ze_ui_signal(ui, b).clicked;
}

/* A checkbox's or radio button's widget: a square frame (its corners
 * `frame_radius` x the side; a negative value: the style's corners) with a
 * mark inside when `marked` (`mark_size` of the frame, corners
 * `mark_radius` of the side, negative: half the style's), the label
 * beside it. One shape, two widgets (ui_radio.c). */
void ze__ui_mark_widget(ze_ui_t *ui, uint64_t key, const char *label, bool marked,
                        float frame_radius, float mark_size, float mark_radius)
{
    const ze_ui_style_t *st = &ui->style;
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
                       .corner_radius = frame_radius < 0 ? st->corner_radius : side * frame_radius,
                       .border_width = st->border_width,
                   });
    if (marked)
        ze_ui_box(
            ui, NULL,
            &(ze_ui_box_desc_t){
                .flags = ZE_UI_BOX_BACKGROUND,
                .width = ze_ui_pct(mark_size, 1),
                .height = ze_ui_pct(mark_size, 1),
                .background = st->colors[ZE_UI_COLOR_CHECK],
                .corner_radius = mark_radius < 0 ? st->corner_radius * 0.5f : side * mark_radius,
            });
    ze_ui_pop_box(ui);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", ze__ui_label_visible(label));
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui);
}

bool ze_ui_checkbox(ze_ui_t *ui, const char *label, bool *value)
{
    ZE_CHECK(ui && ui->in_frame && value, false);
    uint64_t key = ze__ui_widget_key(ui, label);
    bool toggled = ze__ui_signal_key(ui, key).clicked;
    if (toggled)
        *value = !*value;
    ze__ui_mark_widget(ui, key, label, *value, -1.0f, 0.6f, -1.0f);
    return toggled;
}
