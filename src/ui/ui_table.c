/* Tables: a header row of column headers, each followed by a handle that a
 * drag resizes the column with (width in the header's per-key state,
 * logical pixels, at least style.column_min_width), then rows of cells
 * that take their column's width and clip what they hold. Headers are
 * keyed "##col<i>" and handles "##resize<i>" under the table
 * ("Assets/##resize0"); rows and cells are anonymous, so the widgets in a
 * cell are keyed under the table: give them unique labels ("Delete##3"). */
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

enum { HANDLE = 4 }; /* logical pixels */

static uint64_t col_key(uint64_t table, const char *what, uint32_t i, char *buf, size_t cap,
                        size_t *len)
{
    int n = snprintf(buf, cap, "##%s%u", what, i);
    *len = n > 0 ? ZE_MIN((size_t)n, cap - 1) : 0;
    return table ? ze__ui_hash_label(buf, *len, table) : 0;
}

void ze_ui_table_begin(ze_ui_t *ui, const char *label, const ze_ui_table_desc_t *desc)
{
    ZE_CHECK(ui && ui->in_frame && desc, );
    const ze_ui_style_t *st = &ui->style;
    uint32_t columns = desc->columns;
    if (!columns) {
        ze__ui_error(ui, ZE_ERR_INVALID_ARG, "ui: table '%s' has no columns", label ? label : "");
        columns = 1;
    }
    ze_ui_box_t *tb = ze__ui_push_widget(ui, label,
                                         &(ze_ui_box_desc_t){
                                             .flags = ZE_UI_BOX_BORDER | ZE_UI_BOX_CLIP,
                                             .border_width = st->border_width,
                                         },
                                         false);
    ze__ui_table *t = tb->standin ? NULL : ZE_ARENA_NEW(ui->arena, ze__ui_table);
    float *w = t ? ZE_ARENA_NEW_ARRAY(ui->arena, float, columns) : NULL;
    if (!tb->standin && (!t || !w)) {
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: frame arena exhausted building table '%s'",
                     label ? label : "");
        return;
    }
    if (t) {
        *t = (ze__ui_table){.prev = ui->table, .box = tb, .width = w, .columns = columns};
        ui->table = t;
    }
    float min_w = st->column_min_width > 1.0f ? st->column_min_width : 1.0f;
    float line = ze__ui_font_line_height(ui->font) / ui->scale;
    ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW});
    for (uint32_t i = 0; i < columns; i++) {
        char buf[32];
        size_t n;
        uint64_t hk = col_key(tb->key, "col", i, buf, sizeof buf, &n);
        const ze__ui_state *hs = ze__ui_state_find(ui, hk);
        float width = desc->widths && desc->widths[i] > 0.0f ? desc->widths[i] : 100.0f;
        if (hs && (hs->flags & ZE__UI_STATE_POS_SET))
            width = hs->value;
        char rbuf[32];
        size_t rn;
        uint64_t rk = col_key(tb->key, "resize", i, rbuf, sizeof rbuf, &rn);
        ze_ui_signal_t rs = ze__ui_signal_key(ui, rk);
        if (rs.held)
            width += rs.delta.x / ui->scale;
        width = ZE_MAX(width, min_w);
        if (w)
            w[i] = width;
        const char *head = desc->headers && desc->headers[i] ? desc->headers[i] : "";
        ze_ui_box_t *hb = ze__ui_push(ui, hk, buf, n,
                                      &(ze_ui_box_desc_t){
                                          .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_CLIP,
                                          .width = ze_ui_px(width, 1),
                                          .height = ze_ui_text_size(1),
                                          .padding_x = st->padding,
                                          .padding_y = st->padding,
                                          .background = st->colors[ZE_UI_COLOR_TITLE],
                                      },
                                      head, ze__ui_label_visible(head));
        if (hb->state) {
            hb->state->value = width;
            hb->state->flags |= ZE__UI_STATE_POS_SET;
        }
        ze_ui_pop_box(ui);
        bool lit = rs.held || rs.hovered;
        ze__ui_push(
            ui, rk, rbuf, rn,
            &(ze_ui_box_desc_t){
                .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_BACKGROUND,
                .width = ze_ui_px(HANDLE, 1),
                .height = ze_ui_px(line + 2.0f * st->padding, 1),
                .background = st->colors[lit ? ZE_UI_COLOR_BUTTON_ACTIVE : ZE_UI_COLOR_BORDER],
            },
            NULL, 0);
        ze_ui_pop_box(ui);
    }
    ze_ui_pop_box(ui); /* header row */
}

void ze_ui_table_row_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_table *t = ui->table;
    if (t && t->row_open)
        ze_ui_table_row_end(ui);
    ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW});
    if (t) {
        t->row_open = true;
        t->col = 0;
    }
}

bool ze_ui_table_cell(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, false);
    ze__ui_table *t = ui->table;
    if (!t || !t->row_open)
        return false;
    if (t->cell_open) {
        ze_ui_pop_box(ui);
        t->cell_open = false;
    }
    if (t->col >= t->columns)
        return false;
    ze_ui_push_box(ui, NULL,
                   &(ze_ui_box_desc_t){
                       .flags = ZE_UI_BOX_CLIP,
                       .layout = ZE_UI_LAYOUT_ROW,
                       .width = ze_ui_px(t->width[t->col] + HANDLE, 1),
                       .height = ze_ui_children(1),
                       .align_y = ZE_UI_ALIGN_CENTER,
                       .padding_x = ui->style.padding,
                       .padding_y = ui->style.padding * 0.5f,
                       .spacing = ui->style.spacing,
                   });
    t->col++;
    t->cell_open = true;
    return true;
}

void ze_ui_table_row_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_table *t = ui->table;
    if (t && t->cell_open) {
        ze_ui_pop_box(ui);
        t->cell_open = false;
    }
    if (t)
        t->row_open = false;
    ze_ui_pop_box(ui);
}

void ze_ui_table_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_table *t = ui->table;
    if (t && t->row_open)
        ze_ui_table_row_end(ui);
    if (t && !ui->standin_depth && ui->current == t->box)
        ui->table = t->prev;
    ze_ui_pop_box(ui);
}

float ze_ui_table_column_width(const ze_ui_t *ui, ze_ui_key_t table, uint32_t column)
{
    ZE_CHECK(ui, 0.0f);
    char buf[32];
    size_t n;
    const ze__ui_state *s =
        ze__ui_state_find(ui, col_key(table.id, "col", column, buf, sizeof buf, &n));
    return s && (s->flags & ZE__UI_STATE_POS_SET) ? s->value : 0.0f;
}
