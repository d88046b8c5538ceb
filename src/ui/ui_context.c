/* The ZUI context: create/destroy, the frame (begin: arenas swap, events;
 * end: layout, state eviction, draw list), the per-key state table, error
 * reporting and the queries tools and tests use. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

/* ------------------------------------------------------------- errors */

void ze__ui_error(ze_ui_t *ui, ze_result r, const char *fmt, ...)
{
    char msg[ZE_LOG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ui->frame_result == ZE_OK)
        ui->frame_result = r;
    /* The same problem every frame is logged once, not sixty times a
     * second: a message this frame or the previous one already had is
     * skipped; at most ZE__UI_LOGGED_PER_FRAME messages a frame. */
    uint64_t h = ze_hash64(msg, strlen(msg), 0);
    bool seen = false;
    for (uint32_t i = 0; i < ui->prev_error_count; i++)
        seen = seen || ui->prev_errors[i] == h;
    for (uint32_t i = 0; i < ui->error_count; i++)
        if (ui->errors[i] == h)
            return;
    if (ui->error_count >= ZE__UI_LOGGED_PER_FRAME)
        return;
    ui->errors[ui->error_count++] = h;
    if (!seen)
        ze_log(ZE_LOG_ERROR, ZE__UI_CH, "%s (%s)", msg, ze_result_str(r));
}

char *ze__ui_strdup(ze_ui_t *ui, const char *s, size_t len)
{
    char *p = ze_arena_push(ui->arena, len + 1, 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *ze__ui_vformat(ze_ui_t *ui, size_t *len, const char *fmt, va_list ap)
{
    /* One pass for the usual short label: formatted on the stack, then
     * copied; a longer one is measured and formatted again. */
    char small[256];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof small) {
        *len = (size_t)n;
        return ze__ui_strdup(ui, small, (size_t)n);
    }
    char *p = ze_arena_push(ui->arena, (size_t)n + 1, 1);
    if (!p)
        return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    *len = (size_t)n;
    return p;
}

/* ---------------------------------------------------------- state table */

static ze__ui_state *slot_at(const ze_ui_t *ui, uint32_t i)
{
    return &ui->state_chunks[i / ZE__UI_STATE_CHUNK][i % ZE__UI_STATE_CHUNK];
}

ze__ui_state *ze__ui_state_find(const ze_ui_t *ui, uint64_t key)
{
    if (!key)
        return NULL;
    const uint32_t *idx = ze_hashmap_get(&ui->state_map, &key);
    return idx ? slot_at(ui, *idx) : NULL;
}

static bool grow_chunks(ze_ui_t *ui)
{
    if (ui->state_chunk_count == ui->state_chunk_cap) {
        uint32_t cap = ui->state_chunk_cap ? ui->state_chunk_cap * 2 : 8;
        ze__ui_state **n = ze_realloc(ui->alloc, ui->state_chunks, sizeof *n * ui->state_chunk_cap,
                                      sizeof *n * cap, 16);
        if (!n)
            return false;
        ui->state_chunks = n;
        ui->state_chunk_cap = cap;
    }
    ze__ui_state *chunk = ZE_NEW_ARRAY(ui->alloc, ze__ui_state, ZE__UI_STATE_CHUNK);
    if (!chunk)
        return false;
    memset(chunk, 0, sizeof *chunk * ZE__UI_STATE_CHUNK);
    ui->state_chunks[ui->state_chunk_count++] = chunk;
    return true;
}

ze__ui_state *ze__ui_state_get(ze_ui_t *ui, uint64_t key)
{
    ze__ui_state *s = ze__ui_state_find(ui, key);
    if (s)
        return s;
    uint32_t i;
    if (ui->free_state) {
        i = ui->free_state - 1;
        ui->free_state = slot_at(ui, i)->next_free;
    } else {
        if (ui->state_slots == ui->state_chunk_count * ZE__UI_STATE_CHUNK && !grow_chunks(ui)) {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: the state table cannot grow");
            return NULL;
        }
        i = ui->state_slots++;
    }
    s = slot_at(ui, i);
    if (ze_hashmap_put(&ui->state_map, &key, &i) != ZE_OK) {
        s->key = 0;
        s->next_free = ui->free_state;
        ui->free_state = i + 1;
        ze__ui_error(ui, ZE_ERR_BUDGET, "ui: the state table cannot grow");
        return NULL;
    }
    *s = (ze__ui_state){.key = key};
    ui->live_states++;
    return s;
}

/* Keys not built this frame lose their state. */
static void evict_unbuilt(ze_ui_t *ui)
{
    for (uint32_t i = 0; i < ui->state_slots; i++) {
        ze__ui_state *s = slot_at(ui, i);
        if (!s->key || s->built == ui->frame)
            continue;
        ze_hashmap_remove(&ui->state_map, &s->key);
        s->key = 0;
        s->next_free = ui->free_state;
        ui->free_state = i + 1;
        ui->live_states--;
    }
}

/* -------------------------------------------------------- create/destroy */

ze_result ze_ui_create(const ze_ui_desc_t *desc, ze_ui_t **out)
{
    ZE_CHECK(desc && out, ZE_ERR_INVALID_ARG);
    *out = NULL;
    if (!desc->mem) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: desc.mem is required");
        return ZE_ERR_INVALID_ARG;
    }
    if (desc->max_depth > ZE__UI_MAX_DEPTH || desc->scale < 0.0f ||
        (unsigned)desc->owner >= ZE_MEM_OWNER_COUNT) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: desc out of range (max_depth %u of at most %u, scale %g)",
                     desc->max_depth, (unsigned)ZE__UI_MAX_DEPTH, (double)desc->scale);
        return ZE_ERR_INVALID_ARG;
    }
    ze_mem_owner owner = desc->owner ? desc->owner : ZE_MEM_OWNER_UI;
    ze_allocator_t alloc = ze_mem_owner_allocator(desc->mem, owner);
    ze_ui_t *ui = ZE_NEW(alloc, ze_ui_t);
    if (!ui) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: the %s owner refused the context", ze_mem_owner_name(owner));
        return ZE_ERR_BUDGET;
    }
    *ui = (ze_ui_t){
        .mm = desc->mem,
        .alloc = alloc,
        .owner = owner,
        .style = desc->style ? *desc->style : ze_ui_style_default(),
        .scale = desc->scale > 0.0f ? desc->scale : 1.0f,
        .max_depth = desc->max_depth ? desc->max_depth : ZE__UI_DEFAULT_DEPTH,
        .double_click_time = desc->double_click_time > 0.0f ? desc->double_click_time : 0.3f,
        .clip_get = desc->clipboard_get,
        .clip_set = desc->clipboard_set,
        .clip_user = desc->clipboard_user,
        .last_click_time = -1e9,
        .repeat_delay = desc->key_repeat_delay != 0.0f ? desc->key_repeat_delay : 0.4f,
        .repeat_interval = desc->key_repeat_interval > 0.0f ? desc->key_repeat_interval : 0.05f,
    };
    ui->drag_threshold = ze__ui_px(ui, desc->drag_threshold > 0.0f ? desc->drag_threshold : 3.0f);
    ui->row_desc = (ze_ui_box_desc_t){.layout = ZE_UI_LAYOUT_ROW,
                                      .align_y = ZE_UI_ALIGN_CENTER,
                                      .width = ze_ui_children(1),
                                      .height = ze_ui_children(1)};
    ui->column_desc = (ze_ui_box_desc_t){.width = ze_ui_children(1), .height = ze_ui_children(1)};
    ze_hashmap_init(&ui->state_map, alloc, sizeof(uint64_t), sizeof(uint32_t));
    size_t frame_mem = desc->frame_memory ? desc->frame_memory : ZE__UI_DEFAULT_FRAME_MEMORY;
    ze_result r = ze_arena_init(&ui->arenas[0], ui->mm, owner, frame_mem);
    if (r == ZE_OK) {
        r = ze_arena_init(&ui->arenas[1], ui->mm, owner, frame_mem);
        if (r != ZE_OK)
            ze_arena_release(&ui->arenas[0]);
    }
    if (r != ZE_OK) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: frame arenas of %zu bytes: %s", frame_mem, ze_result_str(r));
        ze_hashmap_free(&ui->state_map);
        ze_free(alloc, ui, sizeof *ui);
        return r;
    }
    ui->arena = &ui->arenas[0];
    r = ze__ui_font_create(ui, &desc->font, ui->scale, &ui->font);
    if (r != ZE_OK) {
        ze_arena_release(&ui->arenas[0]);
        ze_arena_release(&ui->arenas[1]);
        ze_hashmap_free(&ui->state_map);
        ze_free(alloc, ui, sizeof *ui);
        return r;
    }
    ui->line_h = ze__ui_font_line_height(ui->font);
    ui->ascent = ze__ui_font_ascent(ui->font);
    *out = ui;
    return ZE_OK;
}

void ze_ui_destroy(ze_ui_t *ui)
{
    if (!ui)
        return;
    ze__ui_text_edit_free(ui);
    ze__ui_dnd_free(ui);
    ze__ui_dock_free(ui);
    ze__ui_hits_free(ui);
    ze__ui_font_destroy(ui->font);
    for (uint32_t i = 0; i < ui->state_chunk_count; i++)
        ze_free(ui->alloc, ui->state_chunks[i], sizeof(ze__ui_state) * ZE__UI_STATE_CHUNK);
    ze_free(ui->alloc, ui->state_chunks, sizeof *ui->state_chunks * ui->state_chunk_cap);
    ze_hashmap_free(&ui->state_map);
    ze_free(ui->alloc, ui->instances, sizeof *ui->instances * ui->instance_cap);
    ze_free(ui->alloc, ui->clip_own, ui->clip_own_cap);
    ze_arena_release(&ui->arenas[0]);
    ze_arena_release(&ui->arenas[1]);
    ze_allocator_t a = ui->alloc;
    ze_free(a, ui, sizeof *ui);
}

float ze_ui_scale(const ze_ui_t *ui)
{
    return ui->scale;
}

/* ---------------------------------------------------------------- frame */

ze_result ze_ui_begin_frame(ze_ui_t *ui, uint32_t width, uint32_t height, float dt,
                            const ze_ui_event_t *events, uint32_t count)
{
    ZE_CHECK(ui, ZE_ERR_INVALID_ARG);
    ZE_CHECK(events || !count, ZE_ERR_INVALID_ARG);
    if (ui->in_frame) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: begin_frame inside a frame");
        return ZE_ERR_STATE;
    }
    ui->frame++;
    /* Two arenas alternate: the previous frame's boxes stay readable
     * while this one builds (a pointer kept past its frame reads stale
     * values, never freed memory). */
    ui->arena = &ui->arenas[ui->frame & 1];
    ze_arena_reset(ui->arena);
    ui->time += dt > 0.0f ? dt : 0.0f;
    ui->width = width;
    ui->height = height;
    ui->frame_result = ZE_OK;
    ui->resize = false;
    memcpy(ui->prev_errors, ui->errors, sizeof ui->errors);
    ui->prev_error_count = ui->error_count;
    ui->error_count = 0;
    ui->box_count = 0;
    ui->last_keyed = NULL;
    ui->dock_cur = NULL;
    ui->overlays = ui->overlays_tail = NULL;
    ui->popup_level = 0;
    ui->table = NULL;
    ui->list = NULL;
    ui->standin_depth = 0;

    ze__ui_input_frame(ui, events, count);

    /* The root: the whole target, a column, never keyed. */
    ui->current = NULL;
    ui->root = ze__ui_push(ui, 0, "", 0,
                           &(ze_ui_box_desc_t){.width = ze_ui_px((float)width / ui->scale, 1),
                                               .height = ze_ui_px((float)height / ui->scale, 1)},
                           NULL, 0);
    if (!ui->root) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: the frame arena cannot hold the root box");
        return ZE_ERR_BUDGET;
    }
    ui->root->seed = ZE__UI_ROOT_SEED;
    ui->root->sz[0] = (float)width;
    ui->root->sz[1] = (float)height;
    ui->current = ui->root;
    ui->in_frame = true;
    return ZE_OK;
}

ze_result ze_ui_end_frame(ze_ui_t *ui)
{
    ZE_CHECK(ui, ZE_ERR_INVALID_ARG);
    if (!ui->in_frame) {
        ZE_LOG_ERROR(ZE__UI_CH, "ui: end_frame without begin_frame");
        return ZE_ERR_STATE;
    }
    if (ui->current != ui->root || ui->standin_depth) {
        char path[256];
        ze__ui_box_path(ui->current->parent, ui->current->label, ui->current->label_len, path,
                        sizeof path);
        ze__ui_error(ui, ZE_ERR_STATE, "ui: frame ended with boxes still open at '%s'", path);
        ui->current = ui->root;
        ui->standin_depth = 0;
        ui->resize = true; /* the open boxes never closed: no sizes from children */
    }
    ui->popup_level = 0;
    ui->table = NULL;
    ui->list = NULL;
    ze__ui_raise_overlays(ui);
    /* Nothing below changes what is drawn: evicted keys were not built,
     * and popups and drags change the next frame. */
    ze__ui_draw_ctx draw;
    ze__ui_draw_begin(ui, &draw);
    ze__ui_layout(ui, ui->resize, &draw);
    evict_unbuilt(ui);
    ze__ui_input_end(ui);
    ze__ui_popup_frame_end(ui);
    ze__ui_dnd_frame_end(ui);
    ze_result r = ze__ui_draw_end(ui, &draw);
    if (r != ZE_OK && ui->frame_result == ZE_OK)
        ui->frame_result = r;
    ui->last_frame_bytes = ui->arena->pos;
    ui->in_frame = false;
    return ui->frame_result;
}

/* -------------------------------------------------------------- queries */

bool ze_ui_key_rect(const ze_ui_t *ui, ze_ui_key_t key, ze_ui_rect_t *out)
{
    const ze__ui_state *s = ze__ui_state_find(ui, key.id);
    if (!s || !(s->flags & ZE__UI_STATE_HAS_RECT))
        return false;
    if (out)
        *out = s->rect;
    return true;
}

bool ze_ui_key_alive(const ze_ui_t *ui, ze_ui_key_t key)
{
    return ze__ui_state_find(ui, key.id) != NULL;
}

void ze_ui_set_scroll(ze_ui_t *ui, ze_ui_key_t key, float x, float y)
{
    ze__ui_state *s = ze__ui_state_find(ui, key.id);
    if (s) {
        s->scroll[0] = x;
        s->scroll[1] = y;
    }
}

ze_vec2_t ze_ui_scroll(const ze_ui_t *ui, ze_ui_key_t key)
{
    const ze__ui_state *s = ze__ui_state_find(ui, key.id);
    return s ? (ze_vec2_t){s->scroll[0], s->scroll[1]} : (ze_vec2_t){0, 0};
}

ze_ui_key_t ze_ui_focus(const ze_ui_t *ui)
{
    return (ze_ui_key_t){ui->focus};
}

void ze_ui_set_focus(ze_ui_t *ui, ze_ui_key_t key)
{
    ui->focus = key.id;
}

bool ze_ui_wants_mouse(const ze_ui_t *ui)
{
    return ui->hover_any || ui->active;
}

bool ze_ui_wants_keyboard(const ze_ui_t *ui)
{
    return ui->focus && ui->edit.key == ui->focus;
}

ze_ui_draw_list_t ze_ui_draw_list(const ze_ui_t *ui)
{
    return (ze_ui_draw_list_t){
        .instances = ui->instances,
        .count = ui->instance_count,
        .width = ui->width,
        .height = ui->height,
        .frame = ui->frame,
        .atlas_revision = ze__ui_font_atlas(ui->font).revision,
    };
}

ze_ui_atlas_t ze_ui_font_atlas(const ze_ui_t *ui)
{
    return ze__ui_font_atlas(ui->font);
}

ze_ui_stats_t ze_ui_stats(const ze_ui_t *ui)
{
    return (ze_ui_stats_t){
        .frame = ui->frame,
        .boxes = ui->box_count,
        .instances = ui->instance_count,
        .states = ui->live_states,
        .glyphs = ze__ui_font_glyph_count(ui->font),
        .frame_bytes = ui->last_frame_bytes,
    };
}
