/* The engine's UI: one ZUI context per run and the overlay channel to the
 * render thread (DESIGN.md §3: the second latest-state mailbox instance).
 *
 * Stage "ui" (after "input"; "window" is earlier: with a window open, the
 * context's clipboard is the system's, window.c): the packaged DejaVu read through the VFS
 * (/ZodiacEngine/fonts/DejaVuSans.ttf; without it, or when it does not
 * load, the fixed font, with a warning), the context, and the overlay
 * mailbox (three slots of OVERLAY_SLOT bytes of address space, committed
 * as used), all from the UI owner. A memory profile that gives UI no
 * budget (Server: a dedicated server shows nothing) runs without a UI:
 * ze_engine_ui is NULL and on_render_ui is not called (logged). Headless
 * runs build the UI too.
 *
 * Each iteration (loop.c): ze__ui_begin after the frame time (step 4)
 * turns the input state into ze_ui_event_t values — a mouse move when the
 * position changed (the first frame: off the target, until the input has a
 * position), left/right/middle button edges, the wheel, every key that
 * went down or up (with the modifiers held), the typed text — and begins
 * the frame for the window's size; ze__ui_end after on_render_ui (step 11)
 * ends it and copies the draw list (and the glyph atlas, see below) into a
 * slot arena of the overlay mailbox, then publishes it before the render
 * scene. A refused slot arena (an overlay too large) skips that overlay
 * (logged once): the render thread keeps drawing the one it holds, and the
 * simulation never waits.
 *
 * The atlas: the latest-state mailbox may replace an overlay before the
 * render thread sees it, so each overlay carries the atlas's pixels until
 * the render thread reports (ui_atlas_acked, release/acquire) that a frame
 * with that revision succeeded; later overlays carry only the revision. */
#include <stddef.h>
#include <string.h>

#include "engine/engine_internal.h"

#define FONT_PATH "/ZodiacEngine/fonts/DejaVuSans.ttf"

enum {
    EVENTS_MAX = 128,       /* per frame: more key edges than that are dropped */
    OVERLAY_SLOT = 8 << 20, /* per slot: ~75,000 instances beside the largest atlas */
    MOUSE_BUTTONS_UI = 3,   /* left, right, middle: GLFW's 0, 1, 2 */
    KEY_LEFT_SUPER = 343,   /* GLFW's modifiers the engine does not name */
    KEY_RIGHT_SHIFT = 344,
    KEY_RIGHT_CONTROL = 345,
    KEY_RIGHT_ALT = 346,
    KEY_RIGHT_SUPER = 347,
};

/* The draw list crosses to gfx as it is: the two instance types are one
 * layout. */
#define SAME_FIELD(f, g)                                                      \
    (offsetof(ze_ui_instance_t, f) == offsetof(ze_render_ui_instance_t, g) && \
     sizeof(((ze_ui_instance_t *)0)->f) == sizeof(((ze_render_ui_instance_t *)0)->g))
_Static_assert(sizeof(ze_ui_instance_t) == sizeof(ze_render_ui_instance_t) &&
                   SAME_FIELD(rect, rect) && SAME_FIELD(clip, clip) && SAME_FIELD(uv, uv) &&
                   SAME_FIELD(color, color) && SAME_FIELD(border_color, border_color) &&
                   SAME_FIELD(corner_radius, corner_radius) &&
                   SAME_FIELD(border_width, border_width) && SAME_FIELD(kind, kind) &&
                   SAME_FIELD(texture, texture) && SAME_FIELD(codepoint, codepoint),
               "ze_ui_instance_t and ze_render_ui_instance_t share one layout");
_Static_assert((int)ZE_UI_INSTANCE_RECT == (int)ZE_RENDER_UI_RECT &&
                   (int)ZE_UI_INSTANCE_GLYPH == (int)ZE_RENDER_UI_GLYPH &&
                   (int)ZE_UI_INSTANCE_IMAGE == (int)ZE_RENDER_UI_IMAGE,
               "instance kinds");
_Static_assert((int)ZE_UI_KEY_ESCAPE == ZE_KEY_ESCAPE && (int)ZE_UI_KEY_SPACE == ZE_KEY_SPACE &&
                   (int)ZE_UI_KEY_A == ZE_KEY_A && (int)ZE_UI_KEY_UP == ZE_KEY_UP,
               "ZUI's key codes are the engine's (GLFW's)");

/* ------------------------------------------------------------- accessors */

ze_ui_t *ze_engine_ui(ze_engine_t *e)
{
    return e ? e->ui : NULL;
}

bool ze_engine_ui_wants_mouse(const ze_engine_t *e)
{
    return e && e->ui && e->ui_wants_mouse;
}

bool ze_engine_ui_wants_keyboard(const ze_engine_t *e)
{
    return e && e->ui && e->ui_wants_keyboard;
}

/* ----------------------------------------------------------------- stage */

ze_result ze__ui_init(ze_engine_t *e)
{
    const ze_mem_owner owner = ZE_MEM_OWNER_UI;
    memset(&e->ui_font, 0, sizeof e->ui_font);
    e->ui = NULL;
    e->overlay = NULL;
    if (ze_mem_owner_stats(e->mem, owner).budget == 0) {
        ZE_LOG_INFO(ZE__ENGINE_LOG, "ui: off (the memory profile gives the UI owner no budget)");
        return ZE_OK;
    }
    ze_ui_desc_t d = {.mem = e->mem, .owner = owner};
    if (e->native_window) { /* the system clipboard; headless: ZUI's own */
        d.clipboard_get = ze__window_clipboard_get;
        d.clipboard_set = ze__window_clipboard_set;
        d.clipboard_user = e;
    }
    ze_result ve =
        ze_vfs_read_file(e->vfs, FONT_PATH, ze_mem_owner_allocator(e->mem, owner), &e->ui_font);
    if (ve == ZE_ERR_OUT_OF_MEMORY) {
        ze__engine_fail(e, ZE_ERR_OUT_OF_MEMORY, "ui: no memory for the font %s", FONT_PATH);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    if (ve == ZE_OK) {
        d.font.ttf_data = e->ui_font.data;
        d.font.ttf_size = e->ui_font.size;
    } else {
        ZE_LOG_WARN(ZE__ENGINE_LOG, "ui: %s: %s: the fixed font instead", FONT_PATH,
                    ze_result_str(ve));
    }
    ze_result r = ze_ui_create(&d, &e->ui);
    if (r == ZE_ERR_PARSE) {
        ZE_LOG_WARN(ZE__ENGINE_LOG, "ui: %s does not load: the fixed font instead", FONT_PATH);
        d.font = (ze_ui_font_desc_t){.fixed = true};
        r = ze_ui_create(&d, &e->ui);
    }
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "ui: context: %s", ze_result_str(r));
        e->ui = NULL;
        ze_vfs_buffer_free(&e->ui_font);
        return r;
    }
    r = ze_mailbox_create(
        &(ze_mailbox_desc_t){.mem = e->mem, .owner = owner, .slot_arena_size = OVERLAY_SLOT},
        &e->overlay);
    if (r != ZE_OK) {
        ze__engine_fail(e, r, "ui: overlay mailbox: %s", ze_result_str(r));
        e->overlay = NULL;
        ze__ui_fini(e);
        return r;
    }
    atomic_store_explicit(&e->ui_atlas_acked, 0, memory_order_relaxed);
    e->ui_frame_open = e->ui_wants_mouse = e->ui_wants_keyboard = false;
    e->ui_mouse_seen = e->ui_overlay_failed = false;
    e->ui_mouse_x = e->ui_mouse_y = 0.0;
    ZE_LOG_INFO(ZE__ENGINE_LOG, "ui: %s", d.font.ttf_data ? "DejaVu Sans" : "the fixed font");
    return ZE_OK;
}

/* After the render thread was joined (it reads the overlay mailbox). */
void ze__ui_fini(ze_engine_t *e)
{
    ze_mailbox_destroy(e->overlay);
    e->overlay = NULL;
    ze_ui_destroy(e->ui);
    e->ui = NULL;
    ze_vfs_buffer_free(&e->ui_font);
    e->ui_frame_open = false;
}

/* ---------------------------------------------------------------- events */

static bool key_bit(const uint8_t *bits, int k)
{
    return (bits[k >> 3] >> (k & 7)) & 1u;
}

static uint32_t mods_of(const ze_input_state_t *in)
{
    uint32_t m = 0;
    if (key_bit(in->keys, ZE_KEY_LEFT_SHIFT) || key_bit(in->keys, KEY_RIGHT_SHIFT))
        m |= ZE_UI_MOD_SHIFT;
    if (key_bit(in->keys, ZE_KEY_LEFT_CONTROL) || key_bit(in->keys, KEY_RIGHT_CONTROL))
        m |= ZE_UI_MOD_CTRL;
    if (key_bit(in->keys, ZE_KEY_LEFT_ALT) || key_bit(in->keys, KEY_RIGHT_ALT))
        m |= ZE_UI_MOD_ALT;
    if (key_bit(in->keys, KEY_LEFT_SUPER) || key_bit(in->keys, KEY_RIGHT_SUPER))
        m |= ZE_UI_MOD_SUPER;
    return m;
}

typedef struct events_t {
    ze_ui_event_t ev[EVENTS_MAX];
    uint32_t n;
} events_t;

static void push(events_t *q, ze_ui_event_t ev)
{
    if (q->n < EVENTS_MAX)
        q->ev[q->n++] = ev;
}

/* This iteration's input state as events, in the order move, buttons,
 * wheel, keys, text (the polled state keeps no finer order). */
static void input_events(ze_engine_t *e, events_t *q)
{
    const ze_input_state_t *in = &e->input;
    bool moved = in->mouse_x != e->ui_mouse_x || in->mouse_y != e->ui_mouse_y;
    if (moved || !e->ui_mouse_seen) {
        /* until the input has a position the pointer is off the target */
        bool known = moved || e->ui_mouse_seen;
        push(q, (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_MOVE,
                                .x = known ? (float)in->mouse_x : -1.0f,
                                .y = known ? (float)in->mouse_y : -1.0f});
        e->ui_mouse_seen = true;
        e->ui_mouse_x = in->mouse_x;
        e->ui_mouse_y = in->mouse_y;
    }
    uint32_t changed = in->mouse_buttons ^ in->previous_mouse_buttons;
    for (uint32_t b = 0; b < MOUSE_BUTTONS_UI; b++)
        if (changed & (1u << b))
            push(q, (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_BUTTON,
                                    .button = b,
                                    .down = (in->mouse_buttons >> b) & 1u});
    if (in->scroll_x != 0.0 || in->scroll_y != 0.0)
        push(q, (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_WHEEL,
                                .x = (float)in->scroll_x,
                                .y = (float)in->scroll_y});
    uint32_t mods = mods_of(in);
    for (uint32_t byte = 0; byte < sizeof in->keys; byte++) {
        uint8_t diff = in->keys[byte] ^ in->previous[byte];
        for (uint32_t bit = 0; diff && bit < 8; bit++) {
            int k = (int)(byte * 8 + bit);
            if (!((diff >> bit) & 1u) || k <= ZE_KEY_UNKNOWN || k >= ZE_KEY_COUNT)
                continue;
            push(q, (ze_ui_event_t){.type = ZE_UI_EVENT_KEY,
                                    .key = (uint32_t)k,
                                    .mods = mods,
                                    .down = key_bit(in->keys, k)});
        }
    }
    for (uint32_t i = 0; i < in->text_count && i < ZE_INPUT_TEXT_MAX; i++)
        push(q, (ze_ui_event_t){.type = ZE_UI_EVENT_TEXT, .codepoint = in->text[i]});
}

void ze__ui_begin(ze_engine_t *e, double dt)
{
    if (!e->ui || e->ui_frame_open)
        return;
    events_t q;
    q.n = 0;
    input_events(e, &q);
    ze_result r = ze_ui_begin_frame(e->ui, e->window.width, e->window.height, (float)dt, q.ev, q.n);
    if (r != ZE_OK) {
        ZE_LOG_WARN(ZE__ENGINE_LOG, "frame %llu: the UI frame did not begin (%s)",
                    (unsigned long long)e->frame, ze_result_str(r));
        return;
    }
    e->ui_frame_open = true;
    e->ui_wants_mouse = ze_ui_wants_mouse(e->ui);
    e->ui_wants_keyboard = ze_ui_wants_keyboard(e->ui);
}

/* What the game sees: the input state less what the UI took this
 * iteration. Presses are held back, not releases: a button (or key) the
 * game already had down stays down until it is released, so a drag of the
 * camera that crosses a window ends normally, and the game's edges are
 * computed against what it saw last frame. */
void ze__ui_game_input(ze_engine_t *e)
{
    const ze_input_state_t *in = &e->input;
    ze_input_state_t *g = &e->game_input;
    uint8_t seen_keys[sizeof g->keys];
    memcpy(seen_keys, g->keys, sizeof seen_keys);
    uint32_t seen_buttons = g->mouse_buttons;
    *g = *in;
    memcpy(g->previous, seen_keys, sizeof g->previous);
    g->previous_mouse_buttons = seen_buttons;
    bool mouse = e->ui && e->ui_frame_open && e->ui_wants_mouse;
    bool keyboard = e->ui && e->ui_frame_open && e->ui_wants_keyboard;
    if (mouse) {
        g->mouse_buttons &= seen_buttons;
        g->scroll_x = g->scroll_y = 0.0;
    }
    if (keyboard) {
        for (size_t i = 0; i < sizeof g->keys; i++)
            g->keys[i] &= seen_keys[i];
        g->text_count = 0;
    }
}

/* ---------------------------------------------------------------- overlay */

static void overlay_refused(ze_engine_t *e, const char *what, size_t bytes)
{
    if (!e->ui_overlay_failed)
        ZE_LOG_WARN(ZE__ENGINE_LOG,
                    "frame %llu: the UI overlay does not fit its mailbox slot (%s, %zu bytes): "
                    "not drawn (logged once)",
                    (unsigned long long)e->frame, what, bytes);
    e->ui_overlay_failed = true;
}

/* The frame's draw list (and the atlas while the render thread lacks its
 * revision) copied into a slot arena and published. */
static void publish(ze_engine_t *e)
{
    ze_ui_draw_list_t dl = ze_ui_draw_list(e->ui);
    ze_ui_atlas_t at = ze_ui_font_atlas(e->ui);
    uint64_t acked = atomic_load_explicit(&e->ui_atlas_acked, memory_order_acquire);
    bool carry = at.pixels && at.width && at.height && at.revision + 1 != acked;
    size_t atlas_bytes = carry ? (size_t)at.width * at.height : 0;
    ze_arena_t *a = ze_mailbox_begin_write(e->overlay);
    if (!a)
        return;
    ze_render_overlay_t *ov = ZE_ARENA_NEW(a, ze_render_overlay_t);
    ze_render_ui_instance_t *inst =
        dl.count ? ZE_ARENA_NEW_ARRAY(a, ze_render_ui_instance_t, dl.count) : NULL;
    uint8_t *px = carry ? ze_arena_push(a, atlas_bytes, 16) : NULL;
    if (!ov || (dl.count && !inst) || (carry && !px)) {
        ze_mailbox_cancel(e->overlay);
        overlay_refused(e, carry ? "instances and atlas" : "instances",
                        sizeof *inst * dl.count + atlas_bytes);
        return;
    }
    if (dl.count)
        memcpy(inst, dl.instances, sizeof *inst * dl.count);
    if (carry)
        memcpy(px, at.pixels, atlas_bytes);
    ov->frame = e->frame;
    ov->width = dl.width;
    ov->height = dl.height;
    ov->instance_count = dl.count;
    ov->instances = inst;
    ov->atlas_revision = at.revision;
    ov->atlas_width = at.width;
    ov->atlas_height = at.height;
    ov->atlas_pixels = px;
    ze_mailbox_publish(e->overlay, ov, sizeof *ov);
}

void ze__ui_end(ze_engine_t *e, bool publish_overlay)
{
    if (!e->ui_frame_open)
        return;
    e->ui_frame_open = false;
    /* build errors (a duplicate key...) are logged once by ZUI; the draw
       list is still whole (empty when it could not grow) */
    (void)ze_ui_end_frame(e->ui);
    if (publish_overlay)
        publish(e);
}
