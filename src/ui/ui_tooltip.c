/* Tooltips: for the last keyed box built, once the mouse has rested on it
 * (hovered, nothing held) for style.tooltip_frames consecutive frames, an
 * overlay next to the mouse (drawn above everything, never clipped by a
 * window). The count lives in the box's per-key state, so it restarts
 * when the box is left or not built. */
#include "ui/ui_internal.h"

bool ze_ui_tooltip_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, false);
    ze_ui_box_t *b = ui->last_keyed;
    ze__ui_state *s = b ? b->state : NULL;
    if (!s)
        return false;
    if (ui->hot == b->key && !ui->active)
        s->hover_frames = s->hover_frames < UINT32_MAX ? s->hover_frames + 1 : s->hover_frames;
    else
        s->hover_frames = 0;
    if (s->hover_frames == 0 || s->hover_frames < ui->style.tooltip_frames)
        return false;
    const ze_ui_style_t *st = &ui->style;
    float x = ui->in.mouse[0] + ze__ui_px(ui, 12.0f), y = ui->in.mouse[1] + ze__ui_px(ui, 16.0f);
    ze__ui_push_overlay(ui, ze__ui_hash_label("##tooltip", 9, b->key), "##tooltip", 9,
                        &(ze_ui_box_desc_t){
                            .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
                            .x = x / ui->scale,
                            .y = y / ui->scale,
                            .padding_x = st->padding,
                            .padding_y = st->padding,
                            .spacing = st->spacing,
                            .background = st->colors[ZE_UI_COLOR_WINDOW] | 0xffu,
                            .corner_radius = st->corner_radius,
                            .border_width = st->border_width,
                        });
    return true;
}

void ze_ui_tooltip_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_pop_overlay(ui);
}

void ze_ui_tooltip(ze_ui_t *ui, const char *text)
{
    if (ze_ui_tooltip_begin(ui)) {
        ze_ui_label(ui, text);
        ze_ui_tooltip_end(ui);
    }
}
