/* Interaction: the frame's events against the previous frame's boxes
 * (the hit list their layout left): hover (the topmost clickable box under the
 * mouse), press/release/click/double click, drag, the wheel (the topmost
 * scrolling box under the mouse), keyboard focus (Tab/Shift+Tab, Up/Down,
 * gamepad navigation in build order), activation (Enter, Space, NAV
 * activate), Escape; then the signal a widget asks for. */
#include <math.h>
#include <string.h>

#include "ui/ui_internal.h"

void ze__ui_hits_begin(ze_ui_t *ui)
{
    ui->hit_count = 0;
    ui->hits_failed = false;
}

void ze__ui_hit_add(ze_ui_t *ui, const ze_ui_box_t *b)
{
    enum {
        TAKES = ZE_UI_BOX_CLICKABLE | ZE_UI_BOX_FOCUSABLE | ZE_UI_BOX_SCROLL_X |
                ZE_UI_BOX_SCROLL_Y | ZE__UI_BOX_WHEEL
    };
    bool keyed = b->key && (b->flags & TAKES);
    bool solid = b->depth > 0 && (b->flags & ZE_UI_BOX_BACKGROUND);
    if (!keyed && !solid)
        return;
    if (ui->hit_count == ui->hit_cap) {
        uint32_t cap = ui->hit_cap ? ui->hit_cap * 2 : 256;
        ze__ui_hit *n =
            ze_realloc(ui->alloc, ui->hits, sizeof *n * ui->hit_cap, sizeof *n * cap, 16);
        if (!n) {
            if (!ui->hits_failed)
                ze__ui_error(ui, ZE_ERR_BUDGET,
                             "ui: the hit list cannot grow past %u boxes (the rest take no input)",
                             ui->hit_cap);
            ui->hits_failed = true;
            return;
        }
        ui->hits = n;
        ui->hit_cap = cap;
    }
    ui->hits[ui->hit_count++] = (ze__ui_hit){
        .key = b->key, .flags = b->flags, .depth = b->depth, .rect = b->rect, .clip = b->clip};
}

void ze__ui_hits_free(ze_ui_t *ui)
{
    ze_free(ui->alloc, ui->hits, sizeof *ui->hits * ui->hit_cap);
    ui->hits = NULL;
    ui->hit_count = ui->hit_cap = 0;
}

/* Topmost keyed box of the previous frame under (x, y) having any of
 * `flags`. */
static const ze__ui_hit *box_at(const ze_ui_t *ui, float x, float y, uint32_t flags)
{
    for (uint32_t i = ui->hit_count; i-- > 0;) {
        const ze__ui_hit *b = &ui->hits[i];
        if (!b->key || !(b->flags & flags))
            continue;
        if (ze__ui_rect_contains(b->rect, x, y) && ze__ui_rect_contains(b->clip, x, y))
            return b;
    }
    return NULL;
}

/* One pass for the hot box (the topmost clickable one under the mouse)
 * and whether any solid box (a background, or a clickable one) is under
 * it: the game is told the UI wants the mouse. */
static void hover_scan(ze_ui_t *ui, float x, float y)
{
    ui->hot = 0;
    ui->hover_any = false;
    for (uint32_t i = ui->hit_count; i-- > 0;) {
        const ze__ui_hit *b = &ui->hits[i];
        bool clickable = b->key && (b->flags & ZE_UI_BOX_CLICKABLE);
        bool solid = clickable || (b->depth > 0 && (b->flags & ZE_UI_BOX_BACKGROUND));
        if (!solid || !ze__ui_rect_contains(b->rect, x, y) || !ze__ui_rect_contains(b->clip, x, y))
            continue;
        ui->hover_any = ui->hover_any || b->depth > 0;
        if (clickable) {
            ui->hot = b->key;
            return;
        }
    }
}

/* Moves the focus to the next (dir > 0) or previous focusable box of the
 * previous frame, in drawing order, wrapping around. */
static void focus_step(ze_ui_t *ui, int dir)
{
    const ze__ui_hit *first = NULL, *last = NULL, *before = NULL, *after = NULL;
    const ze__ui_hit *seen = NULL; /* the last focusable box visited (forward: the next) */
    bool found = false;
    for (uint32_t i = ui->hit_count; i-- > 0;) {
        const ze__ui_hit *b = &ui->hits[i];
        if (!b->key || !(b->flags & ZE_UI_BOX_FOCUSABLE))
            continue;
        if (!last)
            last = b;
        if (found && !before)
            before = b;
        if (b->key == ui->focus && !found) {
            found = true;
            after = seen;
        }
        seen = b;
        first = b;
    }
    const ze__ui_hit *to;
    if (dir > 0)
        to = found && after ? after : first;
    else
        to = found && before ? before : last;
    if (to)
        ui->focus = to->key;
}

static void on_press(ze_ui_t *ui)
{
    ze__ui_input *in = &ui->in;
    ze__ui_popup_press(ui, in->mouse[0], in->mouse[1]);
    const ze__ui_hit *hit = box_at(ui, in->mouse[0], in->mouse[1], ZE_UI_BOX_CLICKABLE);
    ui->active = hit ? hit->key : 0;
    ui->pressed_key = ui->active;
    ui->press_pos[0] = ui->hold_anchor[0] = in->mouse[0];
    ui->press_pos[1] = ui->hold_anchor[1] = in->mouse[1];
    ui->drag_started = false;
    ui->focus = hit && (hit->flags & ZE_UI_BOX_FOCUSABLE) ? hit->key : 0;
}

static void on_release(ze_ui_t *ui)
{
    ze__ui_input *in = &ui->in;
    if (!ui->active)
        return;
    uint64_t k = ui->active;
    ui->released_key = k;
    const ze__ui_hit *hit = box_at(ui, in->mouse[0], in->mouse[1], ZE_UI_BOX_CLICKABLE);
    if (hit && hit->key == k) {
        ui->clicked_key = k;
        float dx = in->mouse[0] - ui->last_click_pos[0];
        float dy = in->mouse[1] - ui->last_click_pos[1];
        float near = ui->drag_threshold * 2.0f;
        if (ui->last_click_key == k && ui->time - ui->last_click_time <= ui->double_click_time &&
            dx * dx + dy * dy <= near * near) {
            ui->dclick_key = k;
            ui->last_click_key = 0; /* a third click starts over */
        } else {
            ui->last_click_key = k;
            ui->last_click_time = ui->time;
            ui->last_click_pos[0] = in->mouse[0];
            ui->last_click_pos[1] = in->mouse[1];
        }
    }
    ui->active = 0;
}

static void on_right_press(ze_ui_t *ui)
{
    ze__ui_input *in = &ui->in;
    ze__ui_popup_press(ui, in->mouse[0], in->mouse[1]);
    const ze__ui_hit *hit = box_at(ui, in->mouse[0], in->mouse[1], ZE_UI_BOX_CLICKABLE);
    ui->rpressed_key = hit ? hit->key : 0;
}

static void cancel(ze_ui_t *ui)
{
    if (ze__ui_popup_escape(ui))
        return; /* Escape closes the top popup first */
    ui->active = 0;
    ui->focus = 0;
}

static void on_key(ze_ui_t *ui, const ze_ui_event_t *e)
{
    ze__ui_input *in = &ui->in;
    in->mods = e->mods;
    if (!e->down)
        return;
    switch (e->key) {
    case ZE_UI_KEY_TAB:
        focus_step(ui, (e->mods & ZE_UI_MOD_SHIFT) ? -1 : 1);
        break;
    case ZE_UI_KEY_UP:
        focus_step(ui, -1);
        break;
    case ZE_UI_KEY_DOWN:
        focus_step(ui, 1);
        break;
    case ZE_UI_KEY_ESCAPE:
        cancel(ui);
        break;
    case ZE_UI_KEY_ENTER:
    case ZE_UI_KEY_KP_ENTER:
    case ZE_UI_KEY_SPACE:
        in->activate = true;
        break;
    case ZE_UI_KEY_LEFT:
        in->steps--;
        break;
    case ZE_UI_KEY_RIGHT:
        in->steps++;
        break;
    default:
        break;
    }
}

static void on_nav(ze_ui_t *ui, uint32_t nav)
{
    switch (nav) {
    case ZE_UI_NAV_UP:
        focus_step(ui, -1);
        break;
    case ZE_UI_NAV_DOWN:
        focus_step(ui, 1);
        break;
    case ZE_UI_NAV_LEFT:
        ui->in.steps--;
        break;
    case ZE_UI_NAV_RIGHT:
        ui->in.steps++;
        break;
    case ZE_UI_NAV_ACTIVATE:
        ui->in.activate = true;
        break;
    case ZE_UI_NAV_CANCEL:
        cancel(ui);
        break;
    default:
        break;
    }
}

static void apply_wheel(ze_ui_t *ui)
{
    ze__ui_input *in = &ui->in;
    float step = ze__ui_px(ui, ui->style.wheel_step);
    for (int a = 0; a < 2; a++) {
        if (in->wheel[a] == 0.0f)
            continue;
        uint32_t flag = a ? ZE_UI_BOX_SCROLL_Y | ZE__UI_BOX_WHEEL : ZE_UI_BOX_SCROLL_X;
        const ze__ui_hit *b = box_at(ui, in->mouse[0], in->mouse[1], flag);
        if (b && a && (b->flags & ZE__UI_BOX_WHEEL)) {
            ui->wheel_key = b->key; /* the box scrolls itself (virtual list) */
            in->wheel_taken = in->wheel[a];
            continue;
        }
        ze__ui_state *s = b ? ze__ui_state_find(ui, b->key) : NULL;
        if (s)
            s->scroll[a] -= in->wheel[a] * step; /* clamped at layout */
    }
}

/* GLFW's modifier keys (left/right shift, control, alt, super): held,
 * they do not repeat. */
static bool is_modifier(uint32_t key)
{
    return key >= 340 && key <= 347;
}

/* Key repeat, ZUI's own (the engine sends edges of the polled state, and
 * scripted runs must repeat the same way): the last key pressed, held,
 * repeats after ui->repeat_delay, then every ui->repeat_interval, as more
 * KEY down events at the end of the frame's events (at most
 * ZE__UI_REPEAT_MAX a frame; a longer frame drops the rest). Returns the
 * repeats due this frame. */
static uint32_t key_repeats(ze_ui_t *ui, const ze_ui_event_t *events, uint32_t count)
{
    bool pressed_now = false;
    for (uint32_t i = 0; i < count; i++) {
        const ze_ui_event_t *e = &events[i];
        if (e->type != ZE_UI_EVENT_KEY || is_modifier(e->key))
            continue;
        if (e->down) {
            ui->repeat_key = e->key;
            ui->repeat_next = ui->time + ui->repeat_delay;
            pressed_now = true;
        } else if (e->key == ui->repeat_key) {
            ui->repeat_key = 0;
            pressed_now = false;
        }
    }
    if (!ui->repeat_key || pressed_now || ui->repeat_delay < 0.0f)
        return 0;
    uint32_t n = 0;
    while (ui->time >= ui->repeat_next && n < ZE__UI_REPEAT_MAX) {
        n++;
        ui->repeat_next += ui->repeat_interval;
    }
    if (ui->time >= ui->repeat_next)
        ui->repeat_next = ui->time + ui->repeat_interval; /* a long frame: no backlog */
    return n;
}

void ze__ui_input_frame(ze_ui_t *ui, const ze_ui_event_t *events, uint32_t count)
{
    ze__ui_input *in = &ui->in;
    in->mouse_prev[0] = in->mouse[0];
    in->mouse_prev[1] = in->mouse[1];
    in->wheel[0] = in->wheel[1] = 0.0f;
    in->activate = false;
    in->steps = 0;
    in->wheel_taken = 0.0f;
    ui->wheel_key = ui->rpressed_key = 0;
    in->events = NULL;
    in->event_count = 0;
    ui->pressed_key = ui->released_key = ui->clicked_key = ui->dclick_key = 0;
    uint32_t repeats = key_repeats(ui, events, count);
    if (count + repeats) {
        ze_ui_event_t *copy = ZE_ARENA_NEW_ARRAY(ui->arena, ze_ui_event_t, count + repeats);
        if (copy) {
            if (count)
                memcpy(copy, events, sizeof *copy * count);
            /* with the modifiers held now (the last key event's) */
            uint32_t mods = in->mods;
            for (uint32_t i = 0; i < count; i++)
                if (events[i].type == ZE_UI_EVENT_KEY)
                    mods = events[i].mods;
            for (uint32_t i = 0; i < repeats; i++)
                copy[count + i] = (ze_ui_event_t){
                    .type = ZE_UI_EVENT_KEY, .key = ui->repeat_key, .mods = mods, .down = true};
            events = copy;
            count += repeats;
            in->events = copy;
            in->event_count = count;
        } else {
            ze__ui_error(ui, ZE_ERR_BUDGET, "ui: frame arena cannot hold %u events", count);
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        const ze_ui_event_t *e = &events[i];
        switch (e->type) {
        case ZE_UI_EVENT_MOUSE_MOVE:
            if (isfinite(e->x) && isfinite(e->y)) {
                in->mouse[0] = e->x;
                in->mouse[1] = e->y;
            }
            break;
        case ZE_UI_EVENT_MOUSE_BUTTON:
            if (e->button >= ZE_UI_MOUSE_BUTTON_COUNT)
                break;
            in->down[e->button] = e->down;
            if (e->button == ZE_UI_MOUSE_LEFT) {
                if (e->down) {
                    on_press(ui);
                } else {
                    ze__ui_dnd_release(ui, in->mouse[0], in->mouse[1]);
                    on_release(ui);
                }
            } else if (e->button == ZE_UI_MOUSE_RIGHT && e->down) {
                on_right_press(ui);
            }
            break;
        case ZE_UI_EVENT_MOUSE_WHEEL:
            if (isfinite(e->x) && isfinite(e->y)) {
                in->wheel[0] += e->x;
                in->wheel[1] += e->y;
            }
            break;
        case ZE_UI_EVENT_KEY:
            on_key(ui, e);
            break;
        case ZE_UI_EVENT_NAV:
            on_nav(ui, e->nav);
            break;
        default:
            break;
        }
    }
    if (ui->active && !in->down[ZE_UI_MOUSE_LEFT])
        ui->active = 0;
    if (ui->active && !ui->drag_started) {
        float dx = in->mouse[0] - ui->press_pos[0], dy = in->mouse[1] - ui->press_pos[1];
        ui->drag_started = dx * dx + dy * dy > ui->drag_threshold * ui->drag_threshold;
    }
    /* A held press moves by what happened after it, not by the move that
     * led to it in the same frame. */
    ui->hold_delta[0] = ui->active ? in->mouse[0] - ui->hold_anchor[0] : 0.0f;
    ui->hold_delta[1] = ui->active ? in->mouse[1] - ui->hold_anchor[1] : 0.0f;
    ui->hold_anchor[0] = in->mouse[0];
    ui->hold_anchor[1] = in->mouse[1];
    apply_wheel(ui);
    hover_scan(ui, in->mouse[0], in->mouse[1]);
}

void ze__ui_input_end(ze_ui_t *ui)
{
    if (ui->hot && !ze__ui_state_find(ui, ui->hot))
        ui->hot = 0;
    if (ui->active && !ze__ui_state_find(ui, ui->active))
        ui->active = 0;
    if (ui->focus && !ze__ui_state_find(ui, ui->focus))
        ui->focus = 0;
    if (ui->edit.key && ui->edit.key != ui->focus)
        ui->edit.key = 0; /* the field lost the focus: its next edit starts afresh */
}

ze_ui_signal_t ze_ui_signal(ze_ui_t *ui, const ze_ui_box_t *box)
{
    return ze__ui_signal_key(ui, box ? box->key : 0);
}

ze_ui_signal_t ze__ui_signal_key(ze_ui_t *ui, uint64_t k)
{
    const ze__ui_input *in = &ui->in;
    ze_ui_signal_t s = {
        .mouse = {in->mouse[0], in->mouse[1]},
        .delta = {in->mouse[0] - in->mouse_prev[0], in->mouse[1] - in->mouse_prev[1]},
    };
    if (!k)
        return s;
    s.hovered = ui->hot == k;
    s.pressed = ui->pressed_key == k;
    s.held = ui->active == k;
    s.released = ui->released_key == k;
    s.focused = ui->focus == k;
    s.clicked = ui->clicked_key == k || (s.focused && in->activate);
    s.double_clicked = ui->dclick_key == k;
    if (s.held) {
        s.delta = (ze_vec2_t){ui->hold_delta[0], ui->hold_delta[1]};
        s.drag = (ze_vec2_t){in->mouse[0] - ui->press_pos[0], in->mouse[1] - ui->press_pos[1]};
        s.dragging = ui->drag_started;
    }
    return s;
}
