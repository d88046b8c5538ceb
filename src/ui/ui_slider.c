/* Sliders: a track the mouse drags (the value follows the mouse across the
 * track's rectangle of the previous frame, from min at its left edge to max
 * at its right edge), Left/Right (or gamepad left/right) step a focused
 * slider by 1/100 of the range; a thumb and the value drawn on the track,
 * the label beside it. */
#include <math.h>
#include <stdio.h>

#include "ui/ui_internal.h"

enum { THUMB_WIDTH = 10 }; /* logical pixels */

bool ze_ui_slider_float(ze_ui_t *ui, const char *label, float *value, float min, float max)
{
    ZE_CHECK(ui && ui->in_frame && value, false);
    const ze_ui_style_t *st = &ui->style;
    if (!(min <= max) || !isfinite(min) || !isfinite(max)) {
        ze__ui_error(ui, ZE_ERR_INVALID_ARG, "ui: slider '%s' has range [%g, %g]",
                     label ? label : "", (double)min, (double)max);
        min = max = isfinite(min) ? min : 0.0f;
    }
    float v = isfinite(*value) ? *value : min;
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_signal_t sig = ze__ui_signal_key(ui, key);
    const ze__ui_state *s = ze__ui_state_find(ui, key);
    if ((sig.held || sig.released) && s && (s->flags & ZE__UI_STATE_HAS_RECT)) {
        float w = s->rect.x1 - s->rect.x0;
        float t = w > 0.0f ? (sig.mouse.x - s->rect.x0) / w : 0.0f;
        t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
        v = min + t * (max - min);
    }
    if (sig.focused && ui->in.steps)
        v += (float)ui->in.steps * (max - min) / 100.0f;
    v = v < min ? min : v > max ? max : v;
    bool changed = v != *value;
    *value = v;

    ze_ui_row_begin(ui);
    bool hot = key && (ui->hot == key || ui->active == key);
    ze__ui_push_widget(
        ui, label,
        &(ze_ui_box_desc_t){
            .flags =
                ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
            .width = ze_ui_px(st->slider_width, 1),
            .height = ze_ui_text_size(1),
            .padding_y = st->padding,
            .background = st->colors[hot ? ZE_UI_COLOR_FRAME_HOT : ZE_UI_COLOR_FRAME],
            .corner_radius = st->corner_radius,
            .border_width = st->border_width,
        },
        false);
    float t = max > min ? (v - min) / (max - min) : 0.0f;
    ze_ui_box(ui, NULL,
              &(ze_ui_box_desc_t){
                  .flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_BACKGROUND,
                  .x = t * (st->slider_width - THUMB_WIDTH),
                  .width = ze_ui_px(THUMB_WIDTH, 1),
                  .height = ze_ui_pct(1, 1),
                  .background = st->colors[sig.held ? ZE_UI_COLOR_BUTTON_ACTIVE : ZE_UI_COLOR_GRAB],
                  .corner_radius = st->corner_radius,
              });
    size_t len;
    char text[32];
    int n = snprintf(text, sizeof text, "%.3g", (double)v);
    len = n > 0 ? (size_t)ZE_MIN((size_t)n, sizeof text - 1) : 0;
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_pct(1, 0),
                                    .height = ze_ui_text_size(1),
                                    .align_x = ZE_UI_ALIGN_CENTER},
                text, len);
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui); /* track */
    size_t shown = ze__ui_label_visible(label);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", shown);
    ze_ui_pop_box(ui);
    ze_ui_row_end(ui);
    return changed;
}
