/* The draw list: the laid-out tree in painter's order (parents under
 * children, later siblings on top), one instance per drawn box
 * (background and border in one rounded rectangle), per image and per
 * visible glyph, then each scrolling box's bar. Layout's placement walk
 * emits each box as soon as its rectangle is known (ze__ui_draw_open
 * before its children, ze__ui_draw_close after them), so a frame reads
 * its boxes once after building them; a walk of its own redoes the list
 * when glyphs baked meanwhile grew the atlas. Instances entirely outside
 * their clip rectangle are culled (nothing of them would show). The
 * buffer grows to what the frame needs and is kept; when it cannot grow
 * the list is left empty and the frame returns ZE_ERR_BUDGET: never a
 * truncated list. */
#include <math.h>

#include "ui/ui_internal.h"

static bool visible(ze_ui_rect_t r, ze_ui_rect_t clip)
{
    return r.x1 > clip.x0 && r.x0 < clip.x1 && r.y1 > clip.y0 && r.y0 < clip.y1 && r.x1 > r.x0 &&
           r.y1 > r.y0;
}

static inline ze_ui_instance_t *emit(ze__ui_draw_ctx *d)
{
    ze_ui_t *ui = d->ui;
    uint32_t i = d->count++;
    if (d->failed)
        return NULL;
    if (i == ui->instance_cap) {
        uint32_t cap = ui->instance_cap ? ui->instance_cap * 2 : 1024;
        ze_ui_instance_t *n =
            ze_realloc(ui->alloc, ui->instances, sizeof *n * ui->instance_cap, sizeof *n * cap, 16);
        if (!n) {
            d->failed = true;
            return NULL;
        }
        ui->instances = n;
        ui->instance_cap = cap;
    }
    return &ui->instances[i];
}

static float lead(uint8_t align, float room)
{
    if (room <= 0.0f)
        return 0.0f;
    return align == ZE_UI_ALIGN_CENTER ? room * 0.5f : align == ZE_UI_ALIGN_END ? room : 0.0f;
}

/* roundf (half away from zero), without the libc call x86-64's baseline
 * needs: below 2^23 a float minus its truncation is exact; above, every
 * float is an integer already (and NaN stays NaN). */
static inline float round_half_away(float x)
{
    if (!(fabsf(x) < 8388608.0f))
        return x;
    float t = (float)(int32_t)x;
    if (fabsf(x - t) >= 0.5f)
        t += x < 0.0f ? -1.0f : 1.0f;
    return t;
}

static void draw_text(ze__ui_draw_ctx *d, const ze_ui_box_t *b)
{
    ze_ui_t *ui = d->ui;
    float pad_x = ZE_MIN(b->pad[0], b->sz[0] * 0.5f), pad_y = ZE_MIN(b->pad[1], b->sz[1] * 0.5f);
    float inner_w = b->sz[0] - 2.0f * pad_x, inner_h = b->sz[1] - 2.0f * pad_y;
    float line_h = ui->line_h;
    float pen = b->rect.x0 + pad_x + lead(b->align[0], inner_w - b->text_w);
    float top = b->rect.y0 + pad_y + lead(b->align[1], inner_h - line_h);
    /* A run wholly outside its clip draws nothing: skip it without
     * looking a glyph up (most rows of a long scrolled list). The margin
     * covers glyphs that reach past the advance box (italics, accents). */
    float margin = line_h;
    ze_ui_rect_t run = {pen - margin, top - margin, pen + b->text_w + margin,
                        top + line_h + margin};
    if (!visible(run, b->clip))
        return;
    float baseline = round_half_away(top) + ui->ascent;
    uint32_t prev = 0;
    for (size_t i = 0; i < b->text_len;) {
        uint32_t cp = (unsigned char)b->text[i];
        if (cp < 0x80) /* ASCII: one byte, no decode */
            i++;
        else
            i += ze_ui_utf8_decode(b->text + i, b->text_len - i, &cp);
        ze__ui_glyph g = ze__ui_font_glyph(ui->font, cp);
        if (prev)
            pen += ze__ui_font_kern(ui->font, prev, cp);
        prev = cp;
        float x = round_half_away(pen + g.x0), y = baseline + g.y0;
        pen += g.advance;
        if (!g.w || !g.h)
            continue;
        ze_ui_rect_t r = {x, y, x + g.w, y + g.h};
        if (!visible(r, b->clip))
            continue;
        ze_ui_instance_t *in = emit(d);
        if (!in)
            continue;
        *in = (ze_ui_instance_t){
            .rect = r,
            .clip = b->clip,
            .uv = {g.ax * d->inv_w, g.ay * d->inv_h, (g.ax + g.tw) * d->inv_w,
                   (g.ay + g.th) * d->inv_h},
            .color = b->text_color,
            .kind = ZE_UI_INSTANCE_GLYPH,
            .codepoint = cp,
        };
    }
}

static void draw_scrollbar(ze__ui_draw_ctx *d, const ze_ui_box_t *b)
{
    const ze__ui_state *s = b->state;
    if (!s || !(b->flags & ZE_UI_BOX_SCROLL_Y) || s->max_scroll[1] <= 0.0f)
        return;
    ze_ui_t *ui = d->ui;
    float view = b->sz[1], total = view + s->max_scroll[1];
    float w = ze__ui_px(ui, ui->style.scrollbar_width);
    float h = ZE_MAX(w * 2.0f, view * view / total);
    float y = b->rect.y0 + (view - h) * (s->scroll[1] / s->max_scroll[1]);
    ze_ui_rect_t r = {b->rect.x1 - w, y, b->rect.x1, y + h};
    ze_ui_rect_t clip = ze__ui_rect_intersect(b->clip, b->rect);
    if (!visible(r, clip))
        return;
    ze_ui_instance_t *in = emit(d);
    if (in)
        *in = (ze_ui_instance_t){.rect = r,
                                 .clip = clip,
                                 .color = ui->style.colors[ZE_UI_COLOR_GRAB],
                                 .corner_radius = w * 0.5f,
                                 .kind = ZE_UI_INSTANCE_RECT};
}

void ze__ui_draw_open(ze__ui_draw_ctx *d, const ze_ui_box_t *b)
{
    ze_ui_t *ui = d->ui;
    bool focused = b->key && b->key == ui->focus && (b->flags & ZE_UI_BOX_FOCUSABLE);
    bool rect = (b->flags & (ZE_UI_BOX_BACKGROUND | ZE_UI_BOX_BORDER)) || focused;
    if (rect && visible(b->rect, b->clip)) {
        ze_ui_instance_t *in = emit(d);
        if (in) {
            bool border = (b->flags & ZE_UI_BOX_BORDER) || focused;
            float bw = focused ? ZE_MAX(b->border, ze__ui_px(ui, 1.0f)) : b->border;
            *in = (ze_ui_instance_t){
                .rect = b->rect,
                .clip = b->clip,
                .color = (b->flags & ZE_UI_BOX_BACKGROUND) ? b->background : 0,
                .border_color = !border   ? 0
                                : focused ? ui->style.colors[ZE_UI_COLOR_FOCUS]
                                          : b->border_color,
                .corner_radius = b->radius,
                .border_width = border ? bw : 0.0f,
                .kind = ZE_UI_INSTANCE_RECT,
            };
        }
    }
    if (b->texture && visible(b->rect, b->clip)) {
        ze_ui_instance_t *in = emit(d);
        if (in)
            *in = (ze_ui_instance_t){.rect = b->rect,
                                     .clip = b->clip,
                                     .uv = {0.0f, 0.0f, 1.0f, 1.0f},
                                     .color = 0xffffffffu,
                                     .corner_radius = b->radius,
                                     .kind = ZE_UI_INSTANCE_IMAGE,
                                     .texture = b->texture};
    }
    if (b->text_len)
        draw_text(d, b);
}

void ze__ui_draw_close(ze__ui_draw_ctx *d, const ze_ui_box_t *b)
{
    draw_scrollbar(d, b);
}

static void draw_box(ze__ui_draw_ctx *d, const ze_ui_box_t *b)
{
    ze__ui_draw_open(d, b);
    for (const ze_ui_box_t *c = b->first; c; c = c->next)
        draw_box(d, c);
    ze__ui_draw_close(d, b);
}

void ze__ui_draw_begin(ze_ui_t *ui, ze__ui_draw_ctx *d)
{
    ze_ui_atlas_t at = ze__ui_font_atlas(ui->font);
    *d = (ze__ui_draw_ctx){.ui = ui,
                           .atlas_height = at.height,
                           .inv_w = 1.0f / (float)at.width,
                           .inv_h = 1.0f / (float)at.height};
}

ze_result ze__ui_draw_end(ze_ui_t *ui, ze__ui_draw_ctx *d)
{
    /* Glyphs baked while drawing can grow the atlas: the coordinates of
     * the earlier ones used the old height. Redo the list once. */
    if (ze__ui_font_atlas(ui->font).height != d->atlas_height) {
        ze__ui_draw_begin(ui, d);
        draw_box(d, ui->root);
    }
    if (d->failed) {
        ui->instance_count = 0;
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: the draw list cannot grow to %u instances", d->count);
        return ZE_ERR_BUDGET;
    }
    ui->instance_count = d->count;
    return ZE_OK;
}
