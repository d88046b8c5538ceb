/* The box tree: keys (labels hashed with the parent's seed), push/pop,
 * per-key state binding with duplicate detection, the depth limit, the
 * stand-in box that absorbs what cannot be built, key paths for messages,
 * and the anonymous row/column/spacer helpers. */
#include <string.h>

#include "ui/ui_internal.h"

/* ------------------------------------------------------------------ keys */

uint64_t ze__ui_hash_label(const char *label, size_t len, uint64_t seed)
{
    /* "Title###id": only "###id" is hashed, so the shown part may change. */
    for (size_t i = 0; i + 3 <= len; i++) {
        if (label[i] == '#' && label[i + 1] == '#' && label[i + 2] == '#') {
            label += i;
            len -= i;
            break;
        }
    }
    uint64_t h = ze_hash64(label, len, seed);
    return h ? h : 1;
}

size_t ze__ui_label_visible(const char *label)
{
    if (!label)
        return 0;
    const char *hash = strstr(label, "##");
    return hash ? (size_t)(hash - label) : strlen(label);
}

ze_ui_key_t ze_ui_key_root(void)
{
    return (ze_ui_key_t){ZE__UI_ROOT_SEED};
}

ze_ui_key_t ze_ui_key_child(ze_ui_key_t parent, const char *label)
{
    if (!label || !*label)
        return parent; /* anonymous boxes are transparent */
    return (ze_ui_key_t){ze__ui_hash_label(label, strlen(label), parent.id)};
}

ze_ui_key_t ze_ui_key_path(const char *path)
{
    ze_ui_key_t k = ze_ui_key_root();
    if (!path)
        return k;
    const char *s = path;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n)
            k.id = ze__ui_hash_label(s, n, k.id);
        s += n;
        if (*s == '/')
            s++;
    }
    return k;
}

ze_ui_key_t ze_ui_current_seed(const ze_ui_t *ui)
{
    return (ze_ui_key_t){ui->current ? ui->current->seed : ZE__UI_ROOT_SEED};
}

void ze__ui_box_path(const ze_ui_box_t *parent, const char *leaf, size_t leaf_len, char *buf,
                     size_t cap)
{
    if (!cap)
        return;
    size_t pos = cap - 1; /* filled backwards: buf[pos..cap-1) */
    buf[pos] = 0;
    bool cut = false, any = false;
    const char *seg = leaf;
    size_t seg_len = leaf_len;
    const ze_ui_box_t *b = parent ? parent->seed_box : NULL;
    for (;;) {
        if (seg && seg_len) {
            size_t need = seg_len + (any ? 1 : 0);
            if (need > pos) {
                cut = true;
                break;
            }
            if (any)
                buf[--pos] = '/';
            pos -= seg_len;
            memcpy(buf + pos, seg, seg_len);
            any = true;
        }
        if (!b)
            break;
        seg = b->label;
        seg_len = b->label_len;
        b = b->parent ? b->parent->seed_box : NULL;
    }
    if (cut && pos >= 4) {
        pos -= 4;
        memcpy(buf + pos, ".../", 4);
    }
    memmove(buf, buf + pos, cap - pos);
    if (!buf[0] && cap > 7)
        memcpy(buf, "(root)", 7);
}

/* ------------------------------------------------------------- push/pop */

static ze_ui_box_t *standin(ze_ui_t *ui)
{
    ui->standin_depth++;
    ui->standin = (ze_ui_box_t){.standin = true, .parent = ui->current};
    return &ui->standin;
}

static uint32_t color_or(uint32_t c, uint32_t fallback)
{
    return c ? c : fallback;
}

ze_ui_box_t *ze__ui_push(ze_ui_t *ui, uint64_t key, const char *label, size_t label_len,
                         const ze_ui_box_desc_t *d, const char *text, size_t text_len)
{
    static const ze_ui_box_desc_t zero;
    if (!d)
        d = &zero;
    if (ui->standin_depth) {
        ui->standin_depth++;
        return &ui->standin;
    }
    ze_ui_box_t *parent = ui->current;
    uint32_t depth = parent ? parent->depth + 1 : 0;
    if (depth > ui->max_depth) {
        char path[512];
        ze__ui_box_path(parent, label, label_len, path, sizeof path);
        ze__ui_error(ui, ZE_ERR_LIMIT, "ui: tree deeper than %u boxes at '%s'", ui->max_depth,
                     path);
        return standin(ui);
    }
    if (!text && d->text) {
        text = d->text;
        text_len = strlen(text);
    }
    /* One push for the box and copies of its label and text behind it,
     * zeroed as one run of a size known only here: libc's memset, where a
     * constant 240 bytes compiles to rep stos, slow at this size. */
    size_t label_bytes = label_len ? label_len + 1 : 0, text_bytes = text ? text_len + 1 : 0;
    ze_ui_box_t *b = ze_arena_push_zero(ui->arena, sizeof *b + label_bytes + text_bytes, 64);
    if (!b) {
        char path[512];
        ze__ui_box_path(parent, label, label_len, path, sizeof path);
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: frame arena exhausted (%zu bytes) at '%s'",
                     ui->arena->region.reserved, path);
        return standin(ui);
    }
    char *tail = (char *)(b + 1);
    const char *label_copy = "";
    if (label_bytes) {
        memcpy(tail, label, label_len);
        tail[label_len] = 0;
        label_copy = tail;
        tail += label_bytes;
    }
    const char *text_copy = NULL;
    if (text_bytes) {
        if (text_len)
            memcpy(tail, text, text_len);
        tail[text_len] = 0;
        text_copy = tail;
    }
    b->parent = parent;
    b->depth = depth;
    b->label = label_copy;
    b->label_len = (uint32_t)label_len;
    uint32_t order = ui->box_count++;
    if (key) {
        ze__ui_state *s = ze__ui_state_get(ui, key);
        if (s && s->built == ui->frame) {
            char path[512];
            ze__ui_box_path(parent, label, label_len, path, sizeof path);
            ze__ui_error(ui, ZE_ERR_EXISTS,
                         "ui: duplicate key '%s' in one frame (the second box takes no input; "
                         "give it a \"##id\" suffix)",
                         path);
            /* Never merged: this box gets no state, and its children keys
             * unlike the first's so they do not collide in turn. */
            b->seed = ze_hash_u64(key ^ ((uint64_t)order << 32 | 0x9e37u));
            key = 0;
            s = NULL;
        }
        if (s) {
            s->built = ui->frame;
            b->state = s;
        } else if (key) {
            key = 0; /* the table is full: reported; the box still lays out */
        }
    }
    b->key = key;
    if (key)
        ui->last_keyed = b;
    bool own_seed = b->seed || (key && !(d->flags & ZE_UI_BOX_SEED_PARENT));
    if (!b->seed)
        b->seed = own_seed ? key : (parent ? parent->seed : 0);
    b->seed_box = own_seed ? b : (parent ? parent->seed_box : NULL);

    uint32_t flags = d->flags;
    if (flags & (ZE_UI_BOX_SCROLL_X | ZE_UI_BOX_SCROLL_Y))
        flags |= ZE_UI_BOX_CLIP;
    b->flags = flags;
    b->size[0] = d->width;
    b->size[1] = d->height;
    b->axis = d->layout == ZE_UI_LAYOUT_ROW ? 0 : 1;
    b->align[0] = (uint8_t)d->align_x;
    b->align[1] = (uint8_t)d->align_y;
    b->pad[0] = ze__ui_px(ui, d->padding_x);
    b->pad[1] = ze__ui_px(ui, d->padding_y);
    b->spacing = ze__ui_px(ui, d->spacing);
    b->fixed[0] = ze__ui_px(ui, d->x);
    b->fixed[1] = ze__ui_px(ui, d->y);
    b->text = text_copy;
    b->text_len = (uint32_t)text_len;
    b->text_w = text_copy ? ze__ui_text_width(ui, text_copy, text_len) : 0.0f;
    b->background = d->background;
    b->text_color = color_or(d->text_color, ui->style.colors[ZE_UI_COLOR_TEXT]);
    b->border_color = color_or(d->border_color, ui->style.colors[ZE_UI_COLOR_BORDER]);
    b->radius = ze__ui_px(ui, d->corner_radius);
    b->border = ze__ui_px(ui, d->border_width);
    b->texture = d->texture;

    if (parent) {
        if (parent->last)
            parent->last->next = b;
        else
            parent->first = b;
        parent->last = b;
    }
    ui->current = b;
    ze__ui_size_open(ui, b);
    return b;
}

ze_ui_box_t *ze_ui_push_box(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc)
{
    ZE_CHECK(ui && ui->in_frame, ui ? &ui->standin : NULL);
    size_t n = label ? strlen(label) : 0;
    uint64_t key = n ? ze__ui_hash_label(label, n, ui->current->seed) : 0;
    return ze__ui_push(ui, key, label, n, desc, NULL, 0);
}

uint64_t ze__ui_widget_key(const ze_ui_t *ui, const char *label)
{
    size_t n = label ? strlen(label) : 0;
    return n && ui->current ? ze__ui_hash_label(label, n, ui->current->seed) : 0;
}

ze_ui_box_t *ze__ui_push_widget(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc,
                                bool show_label)
{
    ZE_CHECK(ui && ui->in_frame, ui ? &ui->standin : NULL);
    size_t n = label ? strlen(label) : 0;
    uint64_t key = n ? ze__ui_hash_label(label, n, ui->current->seed) : 0;
    return ze__ui_push(ui, key, label, n, desc, show_label ? (label ? label : "") : NULL,
                       show_label ? ze__ui_label_visible(label) : 0);
}

ze_ui_box_t *ze_ui_push_box_key(ze_ui_t *ui, ze_ui_key_t key, const ze_ui_box_desc_t *desc)
{
    ZE_CHECK(ui && ui->in_frame, ui ? &ui->standin : NULL);
    return ze__ui_push(ui, key.id, key.id ? "#key" : NULL, key.id ? 4 : 0, desc, NULL, 0);
}

void ze_ui_pop_box(ze_ui_t *ui)
{
    if (!ui || !ui->in_frame)
        return;
    if (ui->standin_depth) {
        ui->standin_depth--;
        return;
    }
    if (ui->current == ui->root) {
        ze__ui_error(ui, ZE_ERR_STATE, "ui: pop_box without a matching push");
        return;
    }
    ze__ui_size_close(ui, ui->current);
    ui->current = ui->current->parent;
}

ze_ui_box_t *ze_ui_box(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc)
{
    ze_ui_box_t *b = ze_ui_push_box(ui, label, desc);
    ze_ui_pop_box(ui);
    return b;
}

ze_ui_key_t ze_ui_box_key(const ze_ui_box_t *box)
{
    return (ze_ui_key_t){box ? box->key : 0};
}

ze_ui_rect_t ze_ui_box_rect(const ze_ui_box_t *box)
{
    return box ? box->rect : (ze_ui_rect_t){0};
}

ze_ui_rect_t ze_ui_box_clip(const ze_ui_box_t *box)
{
    return box ? box->clip : (ze_ui_rect_t){0};
}

/* -------------------------------------------------------- layout helpers */

/* The rows and columns keep their descs in the context: a desc built per
 * call is a 100-byte compound literal, which gcc zeroes with rep stos, a
 * slow instruction at that size, in the loop of a long list. */
void ze_ui_row_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ui->row_desc.spacing = ui->style.spacing;
    ze__ui_push(ui, 0, NULL, 0, &ui->row_desc, NULL, 0);
}

void ze_ui_row_end(ze_ui_t *ui)
{
    ze_ui_pop_box(ui);
}

void ze_ui_column_begin(ze_ui_t *ui)
{
    ZE_CHECK(ui && ui->in_frame, );
    ui->column_desc.spacing = ui->style.spacing;
    ze__ui_push(ui, 0, NULL, 0, &ui->column_desc, NULL, 0);
}

void ze_ui_column_end(ze_ui_t *ui)
{
    ze_ui_pop_box(ui);
}

void ze_ui_spacer(ze_ui_t *ui, ze_ui_size_t width, ze_ui_size_t height)
{
    ze_ui_box(ui, NULL, &(ze_ui_box_desc_t){.width = width, .height = height});
}
