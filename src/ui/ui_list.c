/* Virtual lists: a clipped box over `rows` rows of one height of which
 * only the visible ones are built (a 10^6-row list costs what its view
 * shows). The scroll offset lives in the list's per-key state as a double
 * (10^6 rows of 20 pixels is past a float's exact integers) and is turned
 * into a first row and a fraction each frame, so no box ever sits at a
 * large coordinate. The wheel over the list scrolls it (the list takes the
 * wheel itself: a scrolling parent does not move as well);
 * ze_ui_list_scroll_to jumps. Rows are keyed "#<index>" under the list
 * ("Files/#41"), so a row's state and its widgets' follow the row, not
 * the slot it is drawn in. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

ze_ui_list_range_t ze_ui_list_begin(ze_ui_t *ui, const char *label, uint64_t rows, float row_height,
                                    ze_ui_size_t width, ze_ui_size_t height)
{
    ze_ui_list_range_t none = {0, 0};
    ZE_CHECK(ui && ui->in_frame, none);
    const ze_ui_style_t *st = &ui->style;
    if (!(row_height >= 1.0f) || !isfinite(row_height)) {
        ze__ui_error(ui, ZE_ERR_INVALID_ARG, "ui: list '%s' has row height %g", label ? label : "",
                     (double)row_height);
        row_height = 1.0f;
    }
    uint64_t key = ze__ui_widget_key(ui, label);
    const ze__ui_state *prev = ze__ui_state_find(ui, key);
    double row_px = (double)ze__ui_px(ui, row_height);
    double view;
    if (prev && (prev->flags & ZE__UI_STATE_HAS_RECT))
        view = (double)(prev->rect.y1 - prev->rect.y0);
    else if (height.kind == ZE_UI_SIZE_PIXELS)
        view = (double)ze__ui_px(ui, height.value);
    else
        view = (double)ui->height;
    double off = prev ? prev->offset : 0.0;
    if (key && ui->wheel_key == key)
        off -= (double)ui->in.wheel_taken * (double)ze__ui_px(ui, st->wheel_step);
    double max_off = ZE_MAX(0.0, (double)rows * row_px - view);
    off = off < 0.0 ? 0.0 : off > max_off ? max_off : off;
    uint64_t first = rows ? (uint64_t)(off / row_px) : 0;
    if (first >= rows)
        first = rows ? rows - 1 : 0;
    double frac = off - (double)first * row_px;
    uint64_t count = (uint64_t)ceil((view + frac) / row_px);
    count = ZE_MIN(count, rows - first);

    ze_ui_box_t *b =
        ze__ui_push_widget(ui, label,
                           &(ze_ui_box_desc_t){
                               .flags = ZE_UI_BOX_CLIP | ZE_UI_BOX_BACKGROUND | ZE__UI_BOX_WHEEL,
                               .width = width,
                               .height = height,
                               .background = st->colors[ZE_UI_COLOR_FRAME],
                           },
                           false);
    if (b->state) {
        b->state->offset = off;
        b->state->value = (float)row_px;
        b->state->max_scroll[1] = (float)max_off;
        b->state->scroll[1] = (float)off; /* ze_ui_scroll reads it (approximate past 2^24) */
    }
    ze__ui_list *l = b->standin ? NULL : ZE_ARENA_NEW(ui->arena, ze__ui_list);
    if (l) {
        *l = (ze__ui_list){
            .prev = ui->list, .box = b, .row_height = row_height, .rows = rows, .first = first};
        l->count = count;
        ui->list = l;
    }
    /* the rows' column, shifted up by the fraction of the first row */
    ze_ui_push_box(ui, NULL,
                   &(ze_ui_box_desc_t){
                       .flags = ZE_UI_BOX_FLOATING,
                       .y = (float)(-frac) / ui->scale,
                       .width = ze_ui_pct(1, 1),
                       .height = ze_ui_children(1),
                   });
    /* the bar: where the view is in the whole */
    if (prev && (prev->flags & ZE__UI_STATE_HAS_RECT) && max_off > 0.0) {
        float w = prev->rect.x1 - prev->rect.x0, bar = ze__ui_px(ui, st->scrollbar_width);
        double total = (double)rows * row_px;
        float h = (float)ZE_MAX((double)bar * 2.0, view * view / total);
        float y = (float)((view - (double)h) * (off / max_off));
        ze_ui_box(ui, NULL,
                  &(ze_ui_box_desc_t){
                      .flags = ZE_UI_BOX_FLOATING | ZE_UI_BOX_BACKGROUND,
                      .x = (w - bar) / ui->scale,
                      .y = (y + (float)frac) / ui->scale, /* inside the shifted column */
                      .width = ze_ui_px(st->scrollbar_width, 1),
                      .height = ze_ui_px(h / ui->scale, 1),
                      .background = st->colors[ZE_UI_COLOR_GRAB],
                      .corner_radius = st->scrollbar_width * 0.5f,
                  });
    }
    return (ze_ui_list_range_t){first, count};
}

void ze_ui_list_row_begin(ze_ui_t *ui, uint64_t row)
{
    ZE_CHECK(ui && ui->in_frame, );
    float h = ui->list ? ui->list->row_height : ze__ui_font_line_height(ui->font) / ui->scale;
    char label[24];
    int n = snprintf(label, sizeof label, "#%" PRIu64, row);
    size_t len = n > 0 ? ZE_MIN((size_t)n, sizeof label - 1) : 0;
    ze__ui_push(ui, ze__ui_hash_label(label, len, ze_ui_current_seed(ui).id), label, len,
                &(ze_ui_box_desc_t){
                    .layout = ZE_UI_LAYOUT_ROW,
                    .width = ze_ui_pct(1, 0),
                    .height = ze_ui_px(h, 1),
                    .align_y = ZE_UI_ALIGN_CENTER,
                    .padding_x = ui->style.padding,
                    .spacing = ui->style.spacing,
                },
                NULL, 0);
}

void ze_ui_list_row_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze_ui_pop_box(ui);
}

void ze_ui_list_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze_ui_pop_box(ui); /* rows */
    if (ui->list && !ui->standin_depth && ui->current == ui->list->box)
        ui->list = ui->list->prev;
    ze_ui_pop_box(ui); /* list */
}

void ze_ui_list_scroll_to(ze_ui_t *ui, ze_ui_key_t list, uint64_t row)
{
    ZE_CHECK(ui, );
    ze__ui_state *s = ze__ui_state_find(ui, list.id);
    if (s)
        s->offset = (double)row * (double)s->value; /* clamped when next built */
}
