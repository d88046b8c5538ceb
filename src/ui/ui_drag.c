/* Drag numbers: a frame showing a value that a horizontal drag changes by
 * `speed` per logical pixel moved (from the press on: the threshold only
 * decides that it is a drag, no movement is lost); Left/Right (gamepad
 * left/right) step a focused one by `speed`. min < max clamps; otherwise
 * the value is free. The label beside it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

bool ze_ui_drag_float(ze_ui_t *ui, const char *label, float *value, float speed, float min,
                      float max)
{
    ZE_CHECK(ui && ui->in_frame && value, false);
    const ze_ui_style_t *st = &ui->style;
    if (!isfinite(speed) || !isfinite(min) || !isfinite(max)) {
        ze__ui_error(ui, ZE_ERR_INVALID_ARG, "ui: drag number '%s' has speed %g, range [%g, %g]",
                     label ? label : "", (double)speed, (double)min, (double)max);
        speed = 0.0f;
        min = max = 0.0f;
    }
    float v = isfinite(*value) ? *value : 0.0f;
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_signal_t sig = ze__ui_signal_key(ui, key);
    if (sig.held)
        v += sig.delta.x / ui->scale * speed;
    if (sig.focused && ui->in.steps)
        v += (float)ui->in.steps * speed;
    if (min < max)
        v = v < min ? min : v > max ? max : v;
    bool changed = v != *value;
    *value = v;

    ze_ui_row_begin(ui);
    bool hot = key && (ui->hot == key || ui->active == key);
    char text[32];
    int n = snprintf(text, sizeof text, "%.3f", (double)v);
    size_t len = n > 0 ? ZE_MIN((size_t)n, sizeof text - 1) : 0;
    ze__ui_push(ui, key, label, label ? strlen(label) : 0,
                &(ze_ui_box_desc_t){
                    .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | ZE_UI_BOX_BACKGROUND |
                             ZE_UI_BOX_BORDER | ZE_UI_BOX_CLIP,
                    .width = ze_ui_px(st->slider_width * 0.5f, 1),
                    .height = ze_ui_text_size(1),
                    .padding_x = st->padding,
                    .padding_y = st->padding,
                    .align_x = ZE_UI_ALIGN_CENTER,
                    .background = st->colors[hot ? ZE_UI_COLOR_FRAME_HOT : ZE_UI_COLOR_FRAME],
                    .corner_radius = st->corner_radius,
                    .border_width = st->border_width,
                },
                text, len);
    ze_ui_pop_box(ui);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", ze__ui_label_visible(label));
    ze_ui_pop_box(ui);
    ze_ui_row_end(ui);
    return changed;
}
