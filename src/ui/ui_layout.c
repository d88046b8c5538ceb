/* Layout, solved per axis in four passes over the tree (after Ryan
 * Fleury's UI series), fused into two walks that do both axes:
 *   1. pre-order: sizes that need nothing else (pixels, text) and percent
 *      of the nearest ancestor whose size does not come from its children;
 *   2. post-order: sizes from the children (sum along the layout axis, max
 *      across), which also gives every box its content extent;
 *   3. pre-order: conflicts: children that do not fit give up the
 *      flexible share of their size (1 - strictness), in proportion to it;
 *      a scrolling axis never shrinks its children; percent children of a
 *      box are re-evaluated once its size is final;
 *   4. pre-order, both axes: positions (spacing, alignment, floating
 *      boxes, scroll offsets clamped to the content) and clip rectangles.
 * Padding and spacing give way when a box is smaller than they are, so
 * children that can shrink always end up inside their parent. */
#include "ui/ui_internal.h"

static float clamp01(float v)
{
    return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

static bool scrolls(const ze_ui_box_t *b, int a)
{
    return (b->flags & (a ? ZE_UI_BOX_SCROLL_Y : ZE_UI_BOX_SCROLL_X)) != 0;
}

static bool floating(const ze_ui_box_t *b)
{
    return (b->flags & ZE_UI_BOX_FLOATING) != 0;
}

static float pad_of(const ze_ui_box_t *b, int a)
{
    return ZE_MIN(b->pad[a], b->sz[a] * 0.5f);
}

static float content_of(const ze_ui_box_t *b, int a)
{
    return ZE_MAX(0.0f, b->sz[a] - 2.0f * pad_of(b, a));
}

/* Pass 1, one axis of one box. */
static inline void size_standalone_axis(ze_ui_t *ui, ze_ui_box_t *b, int a)
{
    if (b->depth > 0) {
        ze_ui_size_t s = b->size[a];
        float pad = 2.0f * b->pad[a];
        switch (s.kind) {
        case ZE_UI_SIZE_PIXELS:
            b->sz[a] = ZE_MAX(0.0f, ze__ui_px(ui, s.value));
            break;
        case ZE_UI_SIZE_TEXT:
            b->sz[a] = (a == 0 ? b->text_w : ui->line_h) + pad;
            break;
        case ZE_UI_SIZE_PERCENT: {
            const ze_ui_box_t *p = b->parent;
            while (p->parent && p->size[a].kind == ZE_UI_SIZE_CHILDREN)
                p = p->parent;
            b->sz[a] = ZE_MAX(0.0f, s.value * content_of(p, a));
            break;
        }
        case ZE_UI_SIZE_CHILDREN:
        default:
            b->sz[a] = 0.0f;
            break;
        }
    }
}

/* Passes 1 and 2 in one walk, both axes: pass 1 on the way down (a box's
 * standalone size needs only its ancestors' pass-1 sizes), pass 2 on the
 * way up (a box sized by its children needs them complete). No size of
 * one axis depends on the other's (text has one line), and a walk over
 * 10k boxes costs more than the arithmetic at each. */
static void size_boxes(ze_ui_t *ui, ze_ui_box_t *b)
{
    size_standalone_axis(ui, b, 0);
    size_standalone_axis(ui, b, 1);
    if (!b->first) {
        b->content[0] = b->content[1] = 0.0f;
        for (int a = 0; a < 2; a++)
            if (b->depth > 0 && b->size[a].kind == ZE_UI_SIZE_CHILDREN)
                b->sz[a] = 2.0f * b->pad[a];
        return;
    }
    float sum[2] = {0.0f, 0.0f}, most[2] = {0.0f, 0.0f};
    uint32_t n = 0;
    for (ze_ui_box_t *c = b->first; c; c = c->next) {
        size_boxes(ui, c);
        if (floating(c))
            continue;
        for (int a = 0; a < 2; a++) {
            sum[a] += c->sz[a];
            most[a] = ZE_MAX(most[a], c->sz[a]);
        }
        n++;
    }
    for (int a = 0; a < 2; a++) {
        b->content[a] =
            a == b->axis ? sum[a] + (n > 1 ? b->spacing * (float)(n - 1) : 0.0f) : most[a];
        if (b->depth > 0 && b->size[a].kind == ZE_UI_SIZE_CHILDREN)
            b->sz[a] = b->content[a] + 2.0f * b->pad[a];
    }
}

void ze__ui_size_open(ze_ui_t *ui, ze_ui_box_t *b)
{
    ze_ui_box_t *p = b->parent;
    if (!p)
        return;
    if (p->flags & ZE__UI_BOX_CLOSED)
        ui->resize = true; /* built into a closed box: its sizes are stale */
    size_standalone_axis(ui, b, 0);
    size_standalone_axis(ui, b, 1);
    for (int a = 0; a < 2; a++)
        if (b->size[a].kind == ZE_UI_SIZE_PERCENT &&
            (p->depth == 0 || p->size[a].kind != ZE_UI_SIZE_CHILDREN))
            p->flags |= ZE__UI_BOX_PCT_CHILD;
}

/* Pass 2 for one box, as size_boxes does it, the children's sums having
 * been added as each closed (in the same order, so the same floats). */
void ze__ui_size_close(ze_ui_t *ui, ze_ui_box_t *b)
{
    (void)ui;
    b->flags |= ZE__UI_BOX_CLOSED;
    if (b->flow_count > 1)
        b->content[b->axis] += b->spacing * (float)(b->flow_count - 1);
    for (int a = 0; a < 2; a++)
        if (b->depth > 0 && b->size[a].kind == ZE_UI_SIZE_CHILDREN)
            b->sz[a] = b->content[a] + 2.0f * b->pad[a];
    ze_ui_box_t *p = b->parent;
    if (!p || floating(b))
        return;
    int along = p->axis;
    p->content[along] += b->sz[along];
    p->content[1 - along] = ZE_MAX(p->content[1 - along], b->sz[1 - along]);
    p->flow_count++;
}

static float lead_of(uint8_t align, float room)
{
    if (room <= 0.0f)
        return 0.0f;
    return align == ZE_UI_ALIGN_CENTER ? room * 0.5f : align == ZE_UI_ALIGN_END ? room : 0.0f;
}

/* Passes 3 and 4 in one walk, both axes at once: a box's children get
 * their final sizes (the conflicts at the box), then their positions, and
 * the recursion does the same inside each. A frame's walk also writes
 * each box's draw instances and hit record as soon as its rectangle is
 * known: the boxes are read once after they are built. Two loops over the children
 * (a third only when they conflict along the layout axis): a box with
 * thousands of children is visited by as few loops as its work needs. */
static void place(ze_ui_t *ui, ze_ui_box_t *b, ze__ui_draw_ctx *draw)
{
    if (draw) {
        ze__ui_draw_open(draw, b);
        ze__ui_hit_add(ui, b);
    }
    if (!b->first && !b->state)
        return; /* an anonymous leaf: nothing to solve or place inside */
    const int along = b->axis, across = 1 - along;
    const float avail[2] = {content_of(b, 0), content_of(b, 1)};
    /* percent children are re-evaluated once the box's size is final */
    bool pct[2];
    for (int a = 0; a < 2; a++)
        pct[a] = b->depth == 0 || b->size[a].kind != ZE_UI_SIZE_CHILDREN;
    const bool shrink_across = !scrolls(b, across), shrink_along = !scrolls(b, along);

    /* Pass 3. The sums pass 2 left (content) tell whether any child needs
     * a change: without percent children to re-evaluate and with the
     * children fitting on both axes, the sizes stand and the children are
     * visited once, to be placed. */
    float sum, most;
    uint32_t n = 0;
    bool fits = !(b->flags & ZE__UI_BOX_PCT_CHILD) &&
                (!shrink_across || b->content[across] <= avail[across]) &&
                (!shrink_along || b->content[along] <= avail[along]);
    if (fits) {
        sum = most = 0.0f; /* unused: the extents are the content */
    } else {
        /* percent sizes; across the layout axis each child gives up what
         * does not fit of its flexible share; along it, the sums */
        float flex = 0.0f;
        sum = most = 0.0f;
        for (ze_ui_box_t *c = b->first; c; c = c->next) {
            for (int a = 0; a < 2; a++)
                if (pct[a] && c->size[a].kind == ZE_UI_SIZE_PERCENT)
                    c->sz[a] = ZE_MAX(0.0f, c->size[a].value * avail[a]);
            if (floating(c))
                continue;
            if (shrink_across && c->sz[across] > avail[across]) {
                float flexible = c->sz[across] * (1.0f - clamp01(c->size[across].strictness));
                c->sz[across] -= ZE_MIN(c->sz[across] - avail[across], flexible);
            }
            most = ZE_MAX(most, c->sz[across]);
            sum += c->sz[along];
            flex += c->sz[along] * (1.0f - clamp01(c->size[along].strictness));
            n++;
        }
        /* along: children that do not fit give up the flexible share of
           their size, in proportion to it */
        float total = sum + (n > 1 ? b->spacing * (float)(n - 1) : 0.0f);
        if (shrink_along && total > avail[along] && flex > 0.0f) {
            float k = ZE_MIN(1.0f, (total - avail[along]) / flex);
            sum = 0.0f;
            for (ze_ui_box_t *c = b->first; c; c = c->next) {
                if (floating(c))
                    continue;
                c->sz[along] -= c->sz[along] * (1.0f - clamp01(c->size[along].strictness)) * k;
                sum += c->sz[along];
            }
        }
    }

    /* Pass 4: positions. Spacing gives way when the children do not fit. */
    float spacing = b->spacing;
    float extent[2] = {b->content[0], b->content[1]};
    if (!fits) {
        if (n > 1 && shrink_along && sum + spacing * (float)(n - 1) > avail[along])
            spacing = ZE_MAX(0.0f, (avail[along] - sum) / (float)(n - 1));
        extent[along] = sum + (n > 1 ? spacing * (float)(n - 1) : 0.0f);
        extent[across] = most;
    }
    const float start[2] = {b->rect.x0, b->rect.y0};
    float origin[2], scroll[2] = {0.0f, 0.0f};
    for (int a = 0; a < 2; a++) {
        origin[a] = start[a] + pad_of(b, a);
        b->content[a] = extent[a];
        if (b->state) {
            float max_scroll = scrolls(b, a) ? ZE_MAX(0.0f, extent[a] - avail[a]) : 0.0f;
            float v = b->state->scroll[a];
            v = v < 0.0f ? 0.0f : v > max_scroll ? max_scroll : v;
            b->state->scroll[a] = v;
            b->state->max_scroll[a] = max_scroll;
            scroll[a] = v;
        }
    }
    float cursor =
        origin[along] + lead_of(b->align[along], avail[along] - extent[along]) - scroll[along];
    ze_ui_rect_t child_clip =
        (b->flags & ZE_UI_BOX_CLIP) ? ze__ui_rect_intersect(b->clip, b->rect) : b->clip;
    for (ze_ui_box_t *c = b->first; c; c = c->next) {
        float pos[2];
        if (floating(c)) {
            pos[0] = start[0] + c->fixed[0];
            pos[1] = start[1] + c->fixed[1];
        } else {
            pos[along] = cursor;
            cursor += c->sz[along] + spacing;
            pos[across] = origin[across] +
                          lead_of(b->align[across], avail[across] - c->sz[across]) - scroll[across];
        }
        c->rect = (ze_ui_rect_t){pos[0], pos[1], pos[0] + c->sz[0], pos[1] + c->sz[1]};
        c->clip = child_clip;
        place(ui, c, draw);
    }
    if (b->state) {
        b->state->rect = b->rect;
        b->state->clip = b->clip;
        b->state->flags |= ZE__UI_STATE_HAS_RECT;
    }
    if (draw)
        ze__ui_draw_close(draw, b);
}

void ze__ui_layout(ze_ui_t *ui, bool resize, ze__ui_draw_ctx *draw)
{
    ze_ui_box_t *root = ui->root;
    if (resize)
        size_boxes(ui, root);
    else if (!(root->flags & ZE__UI_BOX_CLOSED))
        ze__ui_size_close(ui, root); /* the root is never popped */
    root->rect = (ze_ui_rect_t){0.0f, 0.0f, root->sz[0], root->sz[1]};
    root->clip = root->rect;
    if (draw)
        ze__ui_hits_begin(ui);
    place(ui, root, draw);
}
