/* Docking: a dock space is a box split into a tree of nodes, each a split
 * (two children side by side or stacked, a handle between them that a
 * drag moves) or a leaf (a tab bar over a content area). Dock panels are
 * built anywhere after their space in the frame; each sits in one leaf
 * and only the leaf's active tab builds its content (the panel box is
 * pushed into the leaf's content box, wherever the caller is). A panel
 * the space has not seen joins the first leaf as a tab.
 *
 * Dragging a tab and releasing it over a leaf docks the panel there: in
 * the middle, as a tab; within a quarter of an edge, into a new leaf split
 * off on that side (the move is applied when the space is next built).
 * ze_ui_dock_move does the same from code. A leaf left without panels
 * closes and its sibling takes the parent split's place; a panel not
 * built for a frame leaves its space.
 *
 * The tree and the titles live in the context's heap, per space, and
 * change only when a panel moves, joins or leaves: a frame that builds the
 * same panels allocates nothing. Keys: the space "Dock", a panel
 * "Dock/Scene", its tab "Dock/Scene/##tab", a node "Dock/##node<i>", a
 * split's handle "Dock/##split<i>". */
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

enum { HANDLE = 4 }; /* logical pixels */

/* ---------------------------------------------------------------- tree */

static int32_t node_new(ze_ui_t *ui, ze__ui_dock *d)
{
    for (uint32_t i = 0; i < d->node_count; i++)
        if (!d->nodes[i].used) {
            d->nodes[i] = (ze__ui_dock_node){.used = true, .parent = -1, .child = {-1, -1}};
            return (int32_t)i;
        }
    if (d->node_count == d->node_cap) {
        uint32_t cap = d->node_cap ? d->node_cap * 2 : 8;
        ze__ui_dock_node *n = ze_realloc(ui->alloc, d->nodes, sizeof *n * d->node_cap,
                                         sizeof *n * cap, _Alignof(ze__ui_dock_node));
        if (!n) {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: the dock tree cannot grow");
            return -1;
        }
        d->nodes = n;
        d->node_cap = cap;
    }
    int32_t i = (int32_t)d->node_count++;
    d->nodes[i] = (ze__ui_dock_node){.used = true, .parent = -1, .child = {-1, -1}};
    return i;
}

static ze__ui_dock_panel *panel_find(ze__ui_dock *d, uint64_t key)
{
    for (uint32_t i = 0; i < d->panel_count; i++)
        if (d->panels[i].key == key)
            return &d->panels[i];
    return NULL;
}

static uint32_t panels_in(const ze__ui_dock *d, int32_t node)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->panel_count; i++)
        n += d->panels[i].node == node;
    return n;
}

static int32_t first_leaf(const ze__ui_dock *d)
{
    int32_t n = d->root;
    while (n >= 0 && d->nodes[n].split)
        n = d->nodes[n].child[0];
    return n;
}

/* n takes old's place under old's parent (or as the root). */
static void replace_in_parent(ze__ui_dock *d, int32_t old, int32_t n)
{
    int32_t p = d->nodes[old].parent;
    d->nodes[n].parent = p;
    if (p < 0) {
        d->root = n;
        return;
    }
    for (int c = 0; c < 2; c++)
        if (d->nodes[p].child[c] == old)
            d->nodes[p].child[c] = n;
}

/* A leaf without panels closes (not the root): its sibling takes the
 * split's place. */
static void close_if_empty(ze__ui_dock *d, int32_t leaf)
{
    if (leaf < 0 || leaf == d->root || panels_in(d, leaf))
        return;
    int32_t s = d->nodes[leaf].parent;
    int32_t sib = d->nodes[s].child[0] == leaf ? d->nodes[s].child[1] : d->nodes[s].child[0];
    replace_in_parent(d, s, sib);
    d->nodes[leaf].used = false;
    d->nodes[s].used = false;
}

static void move_panel(ze_ui_t *ui, ze__ui_dock *d, ze__ui_dock_panel *p, int32_t target,
                       ze_ui_dock_where where)
{
    int32_t src = p->node;
    if (target < 0 || target >= (int32_t)d->node_count || !d->nodes[target].used ||
        d->nodes[target].split)
        return;
    if (where == ZE_UI_DOCK_TAB) {
        if (target == src)
            return;
        p->node = target;
        d->nodes[target].active = p->key;
        close_if_empty(d, src);
        return;
    }
    if (target == src && panels_in(d, src) == 1)
        return; /* splitting a leaf off itself */
    int32_t leaf = node_new(ui, d), split = node_new(ui, d);
    if (leaf < 0 || split < 0) {
        if (leaf >= 0)
            d->nodes[leaf].used = false;
        return;
    }
    bool first = where == ZE_UI_DOCK_LEFT || where == ZE_UI_DOCK_TOP;
    ze__ui_dock_node *s = &d->nodes[split];
    s->split = true;
    s->axis = (where == ZE_UI_DOCK_LEFT || where == ZE_UI_DOCK_RIGHT) ? 0 : 1;
    s->ratio = 0.5f;
    replace_in_parent(d, target, split);
    s->child[0] = first ? leaf : target;
    s->child[1] = first ? target : leaf;
    d->nodes[leaf].parent = split;
    d->nodes[target].parent = split;
    p->node = leaf;
    d->nodes[leaf].active = p->key;
    if (d->nodes[src].active == p->key)
        d->nodes[src].active = 0;
    close_if_empty(d, src);
}

/* --------------------------------------------------------------- spaces */

static ze__ui_dock *dock_get(ze_ui_t *ui, uint64_t key)
{
    for (uint32_t i = 0; i < ui->dock_count; i++)
        if (ui->docks[i].key == key)
            return &ui->docks[i];
    if (ui->dock_count == ui->dock_cap) {
        uint32_t cap = ui->dock_cap ? ui->dock_cap * 2 : 2;
        ze__ui_dock *n = ze_realloc(ui->alloc, ui->docks, sizeof *n * ui->dock_cap, sizeof *n * cap,
                                    _Alignof(ze__ui_dock));
        if (!n)
            return NULL;
        ui->docks = n;
        ui->dock_cap = cap;
    }
    ze__ui_dock *d = &ui->docks[ui->dock_count];
    *d = (ze__ui_dock){.key = key, .root = -1};
    d->root = node_new(ui, d);
    if (d->root < 0)
        return NULL;
    ui->dock_count++;
    return d;
}

void ze__ui_dock_free(ze_ui_t *ui)
{
    for (uint32_t i = 0; i < ui->dock_count; i++) {
        ze__ui_dock *d = &ui->docks[i];
        for (uint32_t k = 0; k < d->panel_count; k++)
            ze_free(ui->alloc, d->panels[k].title, d->panels[k].title_len + 1);
        ze_free(ui->alloc, d->panels, sizeof *d->panels * d->panel_cap);
        ze_free(ui->alloc, d->nodes, sizeof *d->nodes * d->node_cap);
    }
    ze_free(ui->alloc, ui->docks, sizeof *ui->docks * ui->dock_cap);
    ui->docks = NULL;
    ui->dock_count = ui->dock_cap = 0;
}

static void remove_panel(ze_ui_t *ui, ze__ui_dock *d, uint32_t i)
{
    ze__ui_dock_panel p = d->panels[i];
    ze_free(ui->alloc, p.title, p.title_len + 1);
    d->panels[i] = d->panels[--d->panel_count];
    if (d->nodes[p.node].active == p.key)
        d->nodes[p.node].active = 0;
    close_if_empty(d, p.node);
}

static uint64_t sub_key(uint64_t seed, const char *what, int32_t i, char *buf, size_t cap,
                        size_t *len)
{
    int n = snprintf(buf, cap, "##%s%d", what, (int)i);
    *len = n > 0 ? ZE_MIN((size_t)n, cap - 1) : 0;
    return seed ? ze__ui_hash_label(buf, *len, seed) : 0;
}

/* The leaf under (x, y) at the last frame, and where in it. */
static int32_t drop_target(ze_ui_t *ui, ze__ui_dock *d, float x, float y, ze_ui_dock_where *where)
{
    for (uint32_t i = 0; i < d->node_count; i++) {
        if (!d->nodes[i].used || d->nodes[i].split)
            continue;
        char buf[32];
        size_t n;
        const ze__ui_state *s =
            ze__ui_state_find(ui, sub_key(d->key, "node", (int32_t)i, buf, sizeof buf, &n));
        if (!s || !(s->flags & ZE__UI_STATE_HAS_RECT) || !ze__ui_rect_contains(s->rect, x, y))
            continue;
        float w = s->rect.x1 - s->rect.x0, h = s->rect.y1 - s->rect.y0;
        float fx = w > 0 ? (x - s->rect.x0) / w : 0.5f, fy = h > 0 ? (y - s->rect.y0) / h : 0.5f;
        /* the nearest edge within a quarter, else the middle */
        float dl = fx, dr = 1.0f - fx, dt = fy, db = 1.0f - fy;
        float m = ZE_MIN(ZE_MIN(dl, dr), ZE_MIN(dt, db));
        *where = m >= 0.25f ? ZE_UI_DOCK_TAB
                 : m == dl  ? ZE_UI_DOCK_LEFT
                 : m == dr  ? ZE_UI_DOCK_RIGHT
                 : m == dt  ? ZE_UI_DOCK_TOP
                            : ZE_UI_DOCK_BOTTOM;
        return (int32_t)i;
    }
    return -1;
}

static void build_node(ze_ui_t *ui, ze__ui_dock *d, int32_t i, ze_ui_size_t w, ze_ui_size_t h)
{
    const ze_ui_style_t *st = &ui->style;
    ze__ui_dock_node *nd = &d->nodes[i];
    char buf[32];
    size_t n;
    uint64_t nk = sub_key(d->key, "node", i, buf, sizeof buf, &n);
    ze__ui_push(ui, nk, buf, n,
                &(ze_ui_box_desc_t){
                    .flags = ZE_UI_BOX_CLIP | ZE_UI_BOX_SEED_PARENT |
                             (nd->split ? 0 : ZE_UI_BOX_BORDER | ZE_UI_BOX_BACKGROUND),
                    .layout = nd->split && nd->axis == 0 ? ZE_UI_LAYOUT_ROW : ZE_UI_LAYOUT_COLUMN,
                    .width = w,
                    .height = h,
                    .background = st->colors[ZE_UI_COLOR_PANEL],
                    .border_width = st->border_width,
                },
                NULL, 0);
    if (nd->split) {
        int a = nd->axis;
        char hb[32];
        size_t hn;
        uint64_t hk = sub_key(d->key, "split", i, hb, sizeof hb, &hn);
        ze_ui_signal_t hs = ze__ui_signal_key(ui, hk);
        const ze__ui_state *ns = ze__ui_state_find(ui, nk);
        if (hs.held && ns && (ns->flags & ZE__UI_STATE_HAS_RECT)) {
            float extent = a ? ns->rect.y1 - ns->rect.y0 : ns->rect.x1 - ns->rect.x0;
            float moved = a ? hs.delta.y : hs.delta.x;
            if (extent > 0.0f)
                nd->ratio += moved / extent;
            nd->ratio = nd->ratio < 0.1f ? 0.1f : nd->ratio > 0.9f ? 0.9f : nd->ratio;
        }
        float r = nd->ratio;
        int32_t c0 = nd->child[0], c1 = nd->child[1];
        ze_ui_size_t full = ze_ui_pct(1, 0);
        build_node(ui, d, c0, a ? full : ze_ui_pct(r, 0), a ? ze_ui_pct(r, 0) : full);
        ze__ui_push(ui, hk, hb, hn,
                    &(ze_ui_box_desc_t){
                        .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_BACKGROUND,
                        .width = a ? full : ze_ui_px(HANDLE, 1),
                        .height = a ? ze_ui_px(HANDLE, 1) : full,
                        .background = st->colors[hs.held || hs.hovered ? ZE_UI_COLOR_BUTTON_ACTIVE
                                                                       : ZE_UI_COLOR_BORDER],
                    },
                    NULL, 0);
        ze_ui_pop_box(ui);
        build_node(ui, d, c1, a ? full : ze_ui_pct(1.0f - r, 0), a ? ze_ui_pct(1.0f - r, 0) : full);
        ze_ui_pop_box(ui);
        return;
    }
    /* a leaf: its active tab must be one of its panels */
    bool active_here = false;
    uint64_t first = 0;
    for (uint32_t k = 0; k < d->panel_count; k++) {
        if (d->panels[k].node != i)
            continue;
        first = first ? first : d->panels[k].key;
        active_here = active_here || d->panels[k].key == nd->active;
    }
    if (!active_here)
        nd->active = first;
    ze_ui_push_box(ui, NULL,
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_BACKGROUND,
                                       .layout = ZE_UI_LAYOUT_ROW,
                                       .width = ze_ui_pct(1, 0),
                                       .spacing = 1,
                                       .background = st->colors[ZE_UI_COLOR_TITLE]});
    for (uint32_t k = 0; k < d->panel_count; k++) {
        ze__ui_dock_panel *p = &d->panels[k];
        if (p->node != i)
            continue;
        uint64_t tk = ze__ui_hash_label("##tab", 5, p->key);
        ze_ui_signal_t ts = ze__ui_signal_key(ui, tk);
        if (ts.clicked)
            nd->active = p->key;
        if (ts.released && ui->drag_started && !d->drop_panel) {
            ze_ui_dock_where where = ZE_UI_DOCK_TAB;
            int32_t target = drop_target(ui, d, ts.mouse.x, ts.mouse.y, &where);
            if (target >= 0) {
                d->drop_panel = p->key;
                d->drop_node = target;
                d->drop_where = where;
            }
        }
        bool on = nd->active == p->key;
        ze__ui_push(ui, tk, "##tab", 5,
                    &(ze_ui_box_desc_t){
                        .flags = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_BACKGROUND,
                        .width = ze_ui_text_size(1),
                        .height = ze_ui_text_size(1),
                        .padding_x = st->padding * 2.0f,
                        .padding_y = st->padding,
                        .background = st->colors[on           ? ZE_UI_COLOR_TITLE_ACTIVE
                                                 : ts.hovered ? ZE_UI_COLOR_BUTTON_HOT
                                                              : ZE_UI_COLOR_BUTTON],
                    },
                    p->title, ze__ui_label_visible(p->title));
        ze_ui_pop_box(ui);
    }
    ze_ui_pop_box(ui); /* tab bar */
    ze_ui_box_t *content = ze_ui_push_box(ui, NULL,
                                          &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLIP,
                                                              .width = ze_ui_pct(1, 0),
                                                              .height = ze_ui_pct(1, 0)});
    if (d->content && !content->standin)
        d->content[i] = content;
    ze_ui_pop_box(ui);
    ze_ui_pop_box(ui); /* node */
}

void ze_ui_dock_space(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height)
{
    ZE_CHECK(ui && ui->in_frame, );
    uint64_t key = ze__ui_widget_key(ui, label);
    ze__ui_dock *d = key ? dock_get(ui, key) : NULL;
    ui->dock_cur = NULL;
    if (!d) {
        ze__ui_error(ui, key ? ZE_ERR_BUDGET : ZE_ERR_INVALID_ARG, "ui: dock space '%s' %s",
                     label ? label : "", key ? "cannot be kept (no memory)" : "needs a label");
        return;
    }
    /* the previous frame's drop, then the panels it did not build */
    if (d->drop_panel) {
        ze__ui_dock_panel *p = panel_find(d, d->drop_panel);
        if (p)
            move_panel(ui, d, p, d->drop_node, (ze_ui_dock_where)d->drop_where);
        d->drop_panel = 0;
    }
    for (uint32_t i = d->panel_count; i-- > 0;)
        if (d->panels[i].built + 1 < ui->frame)
            remove_panel(ui, d, i);
    d->content = ZE_ARENA_NEW_ARRAY(ui->arena, ze_ui_box_t *, d->node_count);
    if (d->content)
        memset(d->content, 0, sizeof *d->content * d->node_count);
    d->content_count = d->content ? d->node_count : 0;
    d->frame = ui->frame;
    ze_ui_box_t *sb = ze__ui_push_widget(
        ui, label, &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_CLIP, .width = width, .height = height},
        false);
    if (!sb->standin)
        build_node(ui, d, d->root, ze_ui_pct(1, 0), ze_ui_pct(1, 0));
    ze_ui_pop_box(ui);
    ui->dock_cur = d;
}

bool ze_ui_dock_panel_begin(ze_ui_t *ui, const char *title)
{
    ZE_CHECK(ui && ui->in_frame, false);
    ze__ui_dock *d = ui->dock_cur;
    if (!d || d->frame != ui->frame || !title || !*title) {
        ze__ui_error(ui, ZE_ERR_STATE, "ui: dock panel '%s' %s", title ? title : "",
                     d && d->frame == ui->frame ? "needs a title" : "built before its dock space");
        return false;
    }
    size_t len = strlen(title);
    uint64_t key = ze__ui_hash_label(title, len, d->key);
    ze__ui_dock_panel *p = panel_find(d, key);
    if (!p) {
        if (d->panel_count == d->panel_cap) {
            uint32_t cap = d->panel_cap ? d->panel_cap * 2 : 8;
            ze__ui_dock_panel *n = ze_realloc(ui->alloc, d->panels, sizeof *n * d->panel_cap,
                                              sizeof *n * cap, _Alignof(ze__ui_dock_panel));
            if (!n) {
                ze__ui_error(ui, ZE_ERR_BUDGET, "ui: dock panel '%s' cannot join its space", title);
                return false;
            }
            d->panels = n;
            d->panel_cap = cap;
        }
        char *copy = ze_alloc(ui->alloc, len + 1, 1);
        if (!copy) {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: dock panel '%s' cannot join its space", title);
            return false;
        }
        memcpy(copy, title, len + 1);
        int32_t leaf = first_leaf(d);
        p = &d->panels[d->panel_count++];
        *p = (ze__ui_dock_panel){.key = key, .node = leaf, .title = copy, .title_len = len};
        if (!d->nodes[leaf].active)
            d->nodes[leaf].active = key;
    }
    p->built = ui->frame;
    if (d->nodes[p->node].active != key || p->node >= (int32_t)d->content_count ||
        !d->content[p->node])
        return false; /* another tab shows, or it joined this frame: next frame */
    ze_ui_box_t *saved = ui->current;
    ui->current = d->content[p->node];
    ze_ui_box_t *b = ze__ui_push(ui, key, title, len,
                                 &(ze_ui_box_desc_t){
                                     .flags = ZE_UI_BOX_SCROLL_Y,
                                     .width = ze_ui_pct(1, 0),
                                     .height = ze_ui_pct(1, 0),
                                     .padding_x = ui->style.padding,
                                     .padding_y = ui->style.padding,
                                     .spacing = ui->style.spacing,
                                 },
                                 NULL, 0);
    if (b->standin) {
        ui->current = saved;
        ze_ui_pop_box(ui);
        return false;
    }
    b->overlay_return = saved;
    return true;
}

void ze_ui_dock_panel_end(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    if (ui->standin_depth) {
        ze_ui_pop_box(ui);
        return;
    }
    ze_ui_box_t *b = ui->current;
    ze_ui_box_t *back = b ? b->overlay_return : NULL;
    ze_ui_pop_box(ui);
    if (back)
        ui->current = back;
    /* Hit testing follows the drawing order (the hit list the layout
     * writes), so the panel takes clicks where it is drawn: inside its
     * space, under whatever was built over the space. */
}

ze_result ze_ui_dock_move(ze_ui_t *ui, ze_ui_key_t space, const char *panel, const char *target,
                          ze_ui_dock_where where)
{
    ZE_CHECK(ui && panel && target && (unsigned)where <= ZE_UI_DOCK_BOTTOM, ZE_ERR_INVALID_ARG);
    ze__ui_dock *d = NULL;
    for (uint32_t i = 0; i < ui->dock_count; i++)
        if (ui->docks[i].key == space.id)
            d = &ui->docks[i];
    ze__ui_dock_panel *p =
        d ? panel_find(d, ze__ui_hash_label(panel, strlen(panel), d->key)) : NULL;
    ze__ui_dock_panel *t =
        d ? panel_find(d, ze__ui_hash_label(target, strlen(target), d->key)) : NULL;
    if (!p || !t) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: dock move of '%s' to '%s': %s", panel, target,
                     !d ? "no such dock space" : "the panel is not in the space");
        return ZE_ERR_NOT_FOUND;
    }
    if (ui->in_frame && d->frame == ui->frame) {
        /* the space is built: the tree changes when it is next built */
        d->drop_panel = p->key;
        d->drop_node = t->node;
        d->drop_where = where;
        return ZE_OK;
    }
    move_panel(ui, d, p, t->node, where);
    return ZE_OK;
}
