/* Overlays and popups, and the context menu built on them.
 *
 * An overlay (a popup, a tooltip) is a floating box pushed at the root
 * wherever the widget that shows it is being built, so it is positioned in
 * target coordinates and clipped only by the target. At end_frame the
 * overlays are raised: moved to the end of the root's children, so they
 * are drawn last and hit first (the hit list follows the drawing).
 *
 * Popups (combo lists, menus, context menus) are a stack of open levels,
 * each owned by the widget that opened it: a level is open while its
 * owner asks for it every frame. A press outside every open popup closes
 * them (a press on the owner of the next level keeps it: the owner's
 * click toggles it); Escape closes the top level; a level whose owner was
 * not built closes at end_frame. Popup boxes are keyed "##popup" under
 * their owner, so "File/##popup/Save" names a menu item. */
#include "ui/ui_internal.h"

/* ------------------------------------------------------------- overlays */

ze_ui_box_t *ze__ui_push_overlay(ze_ui_t *ui, uint64_t key, const char *label, size_t label_len,
                                 const ze_ui_box_desc_t *desc)
{
    ze_ui_box_t *saved = ui->current;
    bool absorbed = ui->standin_depth > 0;
    if (!absorbed)
        ui->current = ui->root;
    ze_ui_box_desc_t d = *desc;
    d.flags |= ZE_UI_BOX_FLOATING | ZE__UI_BOX_OVERLAY;
    ze_ui_box_t *b = ze__ui_push(ui, key, label, label_len, &d, NULL, 0);
    if (b->standin) {
        /* the stand-in absorbs the overlay's children; its pop only counts */
        ui->current = saved;
        return b;
    }
    b->overlay_return = saved;
    if (ui->overlays_tail)
        ui->overlays_tail->overlay_next = b;
    else
        ui->overlays = b;
    ui->overlays_tail = b;
    return b;
}

void ze__ui_pop_overlay(ze_ui_t *ui)
{
    if (ui->standin_depth) {
        ze_ui_pop_box(ui);
        return;
    }
    ze_ui_box_t *b = ui->current;
    if (!b || !(b->flags & ZE__UI_BOX_OVERLAY)) {
        ze__ui_error(ui, ZE_ERR_STATE, "ui: a popup or tooltip ended with boxes still open");
        ze_ui_pop_box(ui);
        return;
    }
    ze__ui_size_close(ui, b);
    ui->current = b->overlay_return ? b->overlay_return : ui->root;
}

void ze__ui_raise_overlays(ze_ui_t *ui)
{
    ze_ui_box_t *root = ui->root;
    for (ze_ui_box_t *o = ui->overlays; o; o = o->overlay_next) {
        if (!(o->flags & ZE__UI_BOX_CLOSED))
            continue; /* never closed: reported by end_frame */
        /* the root's children: unlink o, append it */
        if (root->last != o) {
            ze_ui_box_t *pred = NULL;
            for (ze_ui_box_t *c = root->first; c && c != o; c = c->next)
                pred = c;
            if (pred)
                pred->next = o->next;
            else
                root->first = o->next;
            o->next = NULL;
            root->last->next = o;
            root->last = o;
        }
    }
}

/* --------------------------------------------------------------- popups */

uint64_t ze__ui_popup_key(uint64_t owner)
{
    return owner ? ze__ui_hash_label("##popup", 7, owner) : 0;
}

bool ze__ui_popup_open(const ze_ui_t *ui, uint64_t owner)
{
    uint32_t level = ui->popup_level;
    return owner && level < ui->popup_depth && ui->popup[level].owner == owner;
}

void ze__ui_popup_show(ze_ui_t *ui, uint64_t owner, float x, float y)
{
    uint32_t level = ui->popup_level;
    if (!owner)
        return;
    if (level >= ZE__UI_POPUP_MAX) {
        ze__ui_error(ui, ZE_ERR_LIMIT, "ui: popups nested deeper than %u do not open",
                     (unsigned)ZE__UI_POPUP_MAX);
        return;
    }
    ui->popup[level] = (ze__ui_popup){.owner = owner, .x = x, .y = y};
    ui->popup_depth = level + 1;
}

void ze__ui_popup_close_level(ze_ui_t *ui)
{
    if (ui->popup_depth > ui->popup_level)
        ui->popup_depth = ui->popup_level;
}

void ze__ui_popup_begin(ze_ui_t *ui, uint64_t owner, float x, float y)
{
    const ze_ui_style_t *st = &ui->style;
    /* keep it on the target */
    float w = (float)ui->width, h = (float)ui->height;
    x = x < 0.0f ? 0.0f : x > w - 1.0f ? ZE_MAX(0.0f, w - 1.0f) : x;
    y = y < 0.0f ? 0.0f : y > h - 1.0f ? ZE_MAX(0.0f, h - 1.0f) : y;
    ze__ui_push_overlay(ui, ze__ui_popup_key(owner), "##popup", 7,
                        &(ze_ui_box_desc_t){
                            .flags = ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER,
                            .x = x / ui->scale,
                            .y = y / ui->scale,
                            .padding_x = st->padding,
                            .padding_y = st->padding,
                            .spacing = st->spacing * 0.5f,
                            .background = st->colors[ZE_UI_COLOR_WINDOW] | 0xffu,
                            .corner_radius = st->corner_radius,
                            .border_width = st->border_width,
                        });
    ui->popup_level++;
}

void ze__ui_popup_end(ze_ui_t *ui)
{
    if (ui->popup_level)
        ui->popup_level--;
    ze__ui_pop_overlay(ui);
}

static bool in_rect_of(const ze_ui_t *ui, uint64_t key, float x, float y)
{
    const ze__ui_state *s = ze__ui_state_find(ui, key);
    return s && (s->flags & ZE__UI_STATE_HAS_RECT) && ze__ui_rect_contains(s->rect, x, y);
}

void ze__ui_popup_press(ze_ui_t *ui, float x, float y)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < ui->popup_depth; i++)
        if (in_rect_of(ui, ze__ui_popup_key(ui->popup[i].owner), x, y))
            keep = i + 1;
    if (keep < ui->popup_depth && in_rect_of(ui, ui->popup[keep].owner, x, y))
        keep++;
    ui->popup_depth = keep;
}

bool ze__ui_popup_escape(ze_ui_t *ui)
{
    if (!ui->popup_depth)
        return false;
    ui->popup_depth--;
    return true;
}

void ze__ui_popup_frame_end(ze_ui_t *ui)
{
    for (uint32_t i = 0; i < ui->popup_depth; i++) {
        if (!ze__ui_state_find(ui, ui->popup[i].owner)) {
            ui->popup_depth = i;
            break;
        }
    }
}

/* --------------------------------------------------------- context menu */

bool ze_ui_context_menu_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, false);
    const ze_ui_box_t *owner = ui->last_keyed;
    uint64_t key = owner ? owner->key : 0;
    if (!key)
        return false;
    if (ui->rpressed_key == key)
        ze__ui_popup_show(ui, key, ui->in.mouse[0], ui->in.mouse[1]);
    if (!ze__ui_popup_open(ui, key))
        return false;
    const ze__ui_popup *p = &ui->popup[ui->popup_level];
    ze__ui_popup_begin(ui, key, p->x, p->y);
    return true;
}

void ze_ui_context_menu_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ze__ui_popup_end(ui);
}
