/* Tree nodes: a header (an arrow and the label) that toggles the node on
 * a click or Enter; the open flag lives in the header's per-key state, so
 * a node that is not built (its parent closed) forgets it. Open: an
 * indented column keyed by the header's key ("Scene/Camera" names node
 * "Camera" under node "Scene"), closed by ze_ui_tree_end. */
#include "ui/ui_internal.h"

bool ze_ui_tree_begin(ze_ui_t *ui, const char *label)
{
    ZE_CHECK(ui && ui->in_frame, false);
    const ze_ui_style_t *st = &ui->style;
    uint64_t key = ze__ui_widget_key(ui, label);
    const ze__ui_state *prev = ze__ui_state_find(ui, key);
    bool open = prev && (prev->flags & ZE__UI_STATE_OPEN);
    if (ze__ui_signal_key(ui, key).clicked)
        open = !open;
    bool hot = key && ui->hot == key;
    ze_ui_box_t *head = ze__ui_push_widget(
        ui, label,
        &(ze_ui_box_desc_t){
            .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | (hot ? ZE_UI_BOX_BACKGROUND : 0),
            .layout = ZE_UI_LAYOUT_ROW,
            .align_y = ZE_UI_ALIGN_CENTER,
            .spacing = st->spacing,
            .background = st->colors[ZE_UI_COLOR_BUTTON_HOT],
            .corner_radius = st->corner_radius,
        },
        false);
    if (head->state) {
        if (open)
            head->state->flags |= ZE__UI_STATE_OPEN;
        else
            head->state->flags &= ~(uint32_t)ZE__UI_STATE_OPEN;
    }
    static const char arrow_open[] = "\xe2\x96\xbe", arrow_closed[] = "\xe2\x96\xb8"; /* ▾ ▸ */
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                open ? arrow_open : arrow_closed, 3);
    ze_ui_pop_box(ui);
    ze__ui_push(ui, 0, NULL, 0,
                &(ze_ui_box_desc_t){.width = ze_ui_text_size(1), .height = ze_ui_text_size(1)},
                label ? label : "", ze__ui_label_visible(label));
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui); /* header */
    if (!open)
        return false;
    ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW});
    ze_ui_spacer(ui, ze_ui_px(st->indent, 1), ze_ui_px(0, 1));
    ze_ui_box_t *col = ze_ui_push_box(ui, NULL, &(ze_ui_box_desc_t){.spacing = st->spacing});
    if (!col->standin && key && head->key) {
        col->seed = key;
        col->seed_box = head;
    }
    return true;
}

void ze_ui_tree_end(ze_ui_t *ui)
{
    ze_ui_pop_box(ui); /* column */
    ze_ui_pop_box(ui); /* indent row */
}
