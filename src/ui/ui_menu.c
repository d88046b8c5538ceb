/* Menus: a menu bar (a row in the flow whose children are keyed as if they
 * were its parent's: "File" under the window), menu headers that open a
 * popup below them (in the bar) or beside them (in another menu: a
 * submenu), and menu items that fire on a click or Enter and close every
 * open popup. While one of the bar's menus is open, hovering another
 * header switches to it; in a menu, hovering a submenu's header opens it. */
#include "ui/ui_internal.h"

static ze_ui_box_t *item_box(ze_ui_t *ui, const char *label, bool lit)
{
    const ze_ui_style_t *st = &ui->style;
    return ze__ui_push_widget(
        ui, label,
        &(ze_ui_box_desc_t){
            .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | (lit ? ZE_UI_BOX_BACKGROUND : 0),
            .width = ze_ui_text_size(1),
            .height = ze_ui_text_size(1),
            .padding_x = st->padding * 2.0f,
            .padding_y = st->padding * 0.5f,
            .align_y = ZE_UI_ALIGN_CENTER,
            .background = st->colors[ZE_UI_COLOR_BUTTON_HOT],
            .corner_radius = st->corner_radius,
        },
        true);
}

void ze_ui_menu_bar_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    const ze_ui_style_t *st = &ui->style;
    ze__ui_push(ui, ze__ui_widget_key(ui, "##menubar"), "##menubar", 9,
                &(ze_ui_box_desc_t){
                    .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_SEED_PARENT,
                    .layout = ZE_UI_LAYOUT_ROW,
                    .width = ze_ui_pct(1, 0),
                    .align_y = ZE_UI_ALIGN_CENTER,
                    .padding_x = st->padding,
                    .spacing = st->spacing,
                    .background = st->colors[ZE_UI_COLOR_TITLE],
                },
                NULL, 0);
}

void ze_ui_menu_bar_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze_ui_pop_box(ui);
}

bool ze_ui_menu_begin(ze_ui_t *ui, const char *label)
{
    ZE_CHECK(ui && ui->in_frame, false);
    uint64_t key = ze__ui_widget_key(ui, label);
    uint32_t level = ui->popup_level;
    bool open = ze__ui_popup_open(ui, key);
    ze_ui_signal_t sig = ze__ui_signal_key(ui, key);
    const ze__ui_state *s = ze__ui_state_find(ui, key);
    ze_ui_rect_t r = s && (s->flags & ZE__UI_STATE_HAS_RECT) ? s->rect : (ze_ui_rect_t){0};
    if (sig.clicked) {
        if (open)
            ze__ui_popup_close_level(ui);
        else
            ze__ui_popup_show(ui, key, 0, 0);
        open = !open;
    } else if (!open && sig.hovered && !ui->active &&
               (level > 0 || (level < ui->popup_depth && ui->popup[level].owner != key))) {
        ze__ui_popup_show(ui, key, 0, 0);
        open = true;
    }
    item_box(ui, label, open || sig.hovered);
    ze_ui_pop_box(ui);
    if (!open || !ze__ui_popup_open(ui, key))
        return false;
    /* anchored to the header, wherever it is now */
    if (level == 0)
        ze__ui_popup_begin(ui, key, r.x0, r.y1);
    else
        ze__ui_popup_begin(ui, key, r.x1, r.y0);
    return true;
}

void ze_ui_menu_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_popup_end(ui);
}

bool ze_ui_menu_item(ze_ui_t *ui, const char *label)
{
    ZE_CHECK(ui && ui->in_frame, false);
    uint64_t key = ze__ui_widget_key(ui, label);
    ze_ui_signal_t sig = ze__ui_signal_key(ui, key);
    item_box(ui, label, sig.hovered || sig.focused);
    ze_ui_pop_box(ui);
    if (sig.clicked)
        ui->popup_depth = 0; /* chosen: every menu closes */
    return sig.clicked;
}
