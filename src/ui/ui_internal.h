/* ZUI internals shared by the files of src/ui/: the context, boxes, per-key
 * state, the input state of a frame, the font interface and the text-edit
 * state. One file per concern: ui_context.c (create, frames, state table),
 * ui_input.c (events, hover, focus, signals), ui_box.c (keys, the tree),
 * ui_layout.c, ui_draw.c, ui_font.c, ui_text.c, one file per widget
 * family. */
#ifndef ZE_UI_INTERNAL_H
#define ZE_UI_INTERNAL_H

#include <stdarg.h>

#include "zengine/ui.h"

#define ZE__UI_CH          "ui"
#define ZE__UI_ROOT_SEED   0x5a55492d524f4f54ull /* "ZUI-ROOT" */
#define ZE__UI_REPLACEMENT 0xfffdu

enum {
    ZE__UI_DEFAULT_DEPTH = 64,
    ZE__UI_MAX_DEPTH = 1024, /* the layout recurses: keep the stack bounded */
    ZE__UI_DEFAULT_FRAME_MEMORY = 8 << 20,
    ZE__UI_UNDO_MAX = 100, /* undo (and redo) steps kept per text field */
    ZE__UI_STATE_CHUNK = 256,
    ZE__UI_LOGGED_PER_FRAME = 8,
    ZE__UI_POPUP_MAX = 8,  /* nested open popups (menu, submenu...): deeper ones do not open */
    ZE__UI_REPEAT_MAX = 8, /* key repeats a frame (a long frame drops the rest) */
};

/* Internal box flags, above the public ze_ui_box_flags. */
enum {
    ZE__UI_BOX_CLOSED = 1u << 27,    /* popped: its sizes are final (ze__ui_size_close) */
    ZE__UI_BOX_PCT_CHILD = 1u << 28, /* a child's percent size is re-evaluated at layout */
    ZE__UI_BOX_WHEEL = 1u << 29,     /* takes the wheel itself (virtual list): ui->wheel_key */
    ZE__UI_BOX_OVERLAY = 1u << 30,   /* a popup or tooltip: raised above the tree at end_frame */
};

/* ---------------------------------------------------------- per-key state */

enum {
    ZE__UI_STATE_OPEN = 1u << 0,    /* tree node */
    ZE__UI_STATE_POS_SET = 1u << 1, /* pos[] holds a widget-chosen position */
    ZE__UI_STATE_HAS_RECT = 1u << 2,
    ZE__UI_STATE_COLLAPSED = 1u << 3, /* window */
    ZE__UI_STATE_SIZE_SET = 1u << 4,  /* window: size[] holds a grip-chosen size */
};

typedef struct ze__ui_state {
    uint64_t key;   /* 0 = a free slot */
    uint64_t built; /* frame that last built the key */
    uint32_t flags;
    uint32_t next_free;
    ze_ui_rect_t rect, clip; /* at the last end_frame, pixels */
    float scroll[2];         /* pixels */
    float max_scroll[2];     /* at the last layout */
    float pos[2];            /* windows: position from the parent's corner, pixels */
    float size[2];           /* windows: the size a grip drag left, pixels (SIZE_SET) */
    float value;             /* a widget's own number (table column width, logical pixels) */
    uint32_t hover_frames;   /* consecutive frames hovered (tooltips) */
    double offset;           /* virtual list: scroll offset, pixels (double: 10^6 rows) */
} ze__ui_state;

/* ---------------------------------------------------------------- boxes */

/* Fields in the order the walks read them: the first two cache lines
 * hold what layout touches (a walk over 10k boxes is bound by the lines
 * it pulls in), the third what drawing adds, the rest is cold (keys,
 * labels, overlays). At most 256 bytes, 64-aligned in the frame arena. */
struct ze_ui_box_t {
    /* layout */
    ze_ui_box_t *first, *next;
    ze__ui_state *state; /* keyed boxes */
    uint32_t flags;
    uint32_t depth; /* root = 0 */
    ze_ui_size_t size[2];
    uint8_t axis; /* children's axis: 0 = x, 1 = y */
    uint8_t align[2];
    bool standin; /* not part of the tree */
    float spacing;
    float pad[2];     /* pixels */
    float sz[2];      /* pixels */
    float content[2]; /* extent of the children, pixels */
    float text_w;     /* pixels */
    uint32_t text_len;
    ze_ui_rect_t rect, clip;
    /* drawing */
    uint64_t key;     /* 0 = anonymous or stand-in */
    const char *text; /* drawn text (arena copy) */
    uint32_t background, text_color, border_color, texture;
    float radius, border; /* pixels */
    ze_ui_box_t *parent, *last;
    /* cold */
    uint64_t seed;         /* what its children's keys are seeded with */
    ze_ui_box_t *seed_box; /* the keyed box whose key that is (NULL: the root) */
    const char *label;     /* key path segment (arena copy) */
    uint32_t label_len;
    uint32_t flow_count; /* children in the flow (not floating), counted as they close */
    float fixed[2];      /* FLOATING: offset from the parent's corner, pixels */
    /* overlays (ZE__UI_BOX_OVERLAY): the box current before it, the next
       overlay of the frame */
    ze_ui_box_t *overlay_return, *overlay_next;
};
_Static_assert(sizeof(void *) != 8 || sizeof(ze_ui_box_t) <= 256,
               "ze_ui_box_t: at most four cache lines, the hot ones first");

/* --------------------------------------------------------------- input */

typedef struct ze__ui_input {
    float mouse[2], mouse_prev[2];
    bool down[ZE_UI_MOUSE_BUTTON_COUNT];
    float wheel[2];
    uint32_t mods;
    const ze_ui_event_t *events; /* this frame's, arena copy */
    uint32_t event_count;
    bool activate;     /* Enter, Space or NAV_ACTIVATE this frame (focused box) */
    int steps;         /* Right/NAV_RIGHT minus Left/NAV_LEFT presses (sliders) */
    float wheel_taken; /* notches for ui->wheel_key (a ZE__UI_BOX_WHEEL box) */
} ze__ui_input;

/* A box input can hit, as the last frame laid it out, in drawing order
 * (the topmost last): recorded by the placement walk, so the next frame's
 * events are tested against these alone, not every box. */
typedef struct ze__ui_hit {
    uint64_t key;
    uint32_t flags, depth;
    ze_ui_rect_t rect, clip;
} ze__ui_hit;

/* The virtual list being built (frame arena; lists nest through prev). */
typedef struct ze__ui_list {
    struct ze__ui_list *prev;
    ze_ui_box_t *box;
    float row_height; /* logical pixels */
    uint64_t rows, first, count;
} ze__ui_list;

/* Docking (ui_dock.c): per dock space, a tree of nodes (indices into
 * nodes[]; -1 = none) and the panels, each in one leaf. Heap: changes
 * only when a panel moves, joins or leaves. */
typedef struct ze__ui_dock_node {
    int32_t parent, child[2];
    bool used, split;
    uint8_t axis;    /* split: 0 = side by side, 1 = stacked */
    float ratio;     /* split: the first child's share */
    uint64_t active; /* leaf: the panel whose tab shows */
} ze__ui_dock_node;

typedef struct ze__ui_dock_panel {
    uint64_t key;
    int32_t node;
    uint64_t built; /* the frame that last built it */
    char *title;    /* heap copy (the tab's text) */
    size_t title_len;
} ze__ui_dock_panel;

typedef struct ze__ui_dock {
    uint64_t key;
    int32_t root;
    ze__ui_dock_node *nodes;
    uint32_t node_count, node_cap;
    ze__ui_dock_panel *panels;
    uint32_t panel_count, panel_cap;
    uint64_t drop_panel; /* a move to apply when the space is next built */
    int32_t drop_node;
    int drop_where;
    uint64_t frame;        /* built in this frame: */
    ze_ui_box_t **content; /* per node: its leaf's content box (frame arena) */
    uint32_t content_count;
} ze__ui_dock;

/* An open popup: the widget that owns it and where it opened (pixels). */
typedef struct ze__ui_popup {
    uint64_t owner;
    float x, y;
} ze__ui_popup;

/* The table being built (frame arena; tables nest through prev). */
typedef struct ze__ui_table {
    struct ze__ui_table *prev;
    ze_ui_box_t *box;
    float *width; /* per column, logical pixels */
    uint32_t columns, col;
    bool row_open, cell_open;
} ze__ui_table;

/* ------------------------------------------------------------------ font */

typedef struct ze__ui_font ze__ui_font;

typedef struct ze__ui_glyph {
    uint32_t cp;
    int index;               /* the font's glyph index (TTF); 0 = missing */
    bool present;            /* false: the replacement box stands in */
    float advance;           /* pixels */
    float x0, y0;            /* quad corner from the pen at the baseline, pixels */
    uint16_t w, h;           /* quad size, pixels */
    uint16_t ax, ay, tw, th; /* atlas region, texels */
} ze__ui_glyph;

ze_result ze__ui_font_create(ze_ui_t *ui, const ze_ui_font_desc_t *desc, float scale,
                             ze__ui_font **out);
void ze__ui_font_destroy(ze__ui_font *f);
/* Bakes on first use; a missing glyph (or one that found no room) comes
 * back with present = false and the replacement box's bitmap. */
ze__ui_glyph ze__ui_font_glyph(ze__ui_font *f, uint32_t cp);
float ze__ui_font_kern(ze__ui_font *f, uint32_t a, uint32_t b);
/* The width of s's leading ASCII run whose glyphs and kerning are cached
 * (*used bytes; *prev: the codepoint before it, updated). */
float ze__ui_font_ascii_run(ze__ui_font *f, const char *s, size_t len, size_t *used,
                            uint32_t *prev);
float ze__ui_font_line_height(const ze__ui_font *f);
float ze__ui_font_ascent(const ze__ui_font *f);
ze_ui_atlas_t ze__ui_font_atlas(const ze__ui_font *f);
uint32_t ze__ui_font_glyph_count(const ze__ui_font *f);

/* ------------------------------------------------------------------ text */

/* Advances plus kerning of text[0..len), pixels. */
float ze__ui_text_width(ze_ui_t *ui, const char *text, size_t len);
/* The byte offset (a character boundary) nearest to x pixels from the
 * text's start. */
size_t ze__ui_text_hit(ze_ui_t *ui, const char *text, size_t len, float x);
/* Boundaries: the start of the character before `at`, after `at`. */
size_t ze__ui_utf8_prev(const char *s, size_t len, size_t at);
size_t ze__ui_utf8_next(const char *s, size_t len, size_t at);
/* ui_format.c: printf's integer and string conversions into out[cap]
 * (NUL-terminated), as vsnprintf writes them; SIZE_MAX when the format
 * has anything else or the output does not fit (*ap is then spent: the
 * caller formats from a va_copy). */
size_t ze__ui_format(char *out, size_t cap, const char *fmt, va_list *ap);
/* Visible part of a widget label: up to "##". */
size_t ze__ui_label_visible(const char *label);

/* ------------------------------------------------------------- text edit */

typedef struct ze__ui_undo_rec {
    uint32_t offset, len; /* in bytes[] */
    uint32_t caret, anchor;
} ze__ui_undo_rec;

typedef struct ze__ui_undo_stack {
    ze__ui_undo_rec *recs;
    uint32_t count, cap;
    char *bytes;
    size_t used, bytes_cap;
} ze__ui_undo_stack;

/* The one text field being edited (the focused one). */
typedef struct ze__ui_text_edit {
    uint64_t key;
    size_t caret, anchor; /* bytes; selection = [min, max) */
    float scroll;         /* pixels the text is shifted left */
    bool typing;          /* the last edit was typed text: the next one joins its undo step */
    bool selecting;       /* a mouse drag extends the selection */
    ze__ui_undo_stack undo, redo;
} ze__ui_text_edit;

void ze__ui_text_edit_reset(ze_ui_t *ui, uint64_t key, size_t len);
void ze__ui_text_edit_free(ze_ui_t *ui);

/* --------------------------------------------------------------- context */

struct ze_ui_t {
    ze_mem_t *mm;
    ze_allocator_t alloc;
    ze_mem_owner owner;
    ze_ui_style_t style;
    float scale;
    uint32_t max_depth;
    float double_click_time, drag_threshold; /* seconds, pixels */
    ze_ui_clipboard_get_fn clip_get;
    ze_ui_clipboard_set_fn clip_set;
    void *clip_user;
    char *clip_own; /* the context's own clipboard */
    size_t clip_own_len, clip_own_cap;

    ze_arena_t arenas[2];
    ze_arena_t *arena; /* this frame's */
    uint64_t frame;
    bool in_frame;
    uint32_t width, height;
    double time;

    /* the tree being built */
    ze_ui_box_t *root, *current;
    uint32_t box_count;
    bool resize;            /* the tree changed after boxes closed: size it again at layout */
    uint32_t standin_depth; /* pushes absorbed by the stand-in */
    ze_ui_box_t standin;
    ze_result frame_result;
    /* hashes of the messages reported this frame and the previous one */
    uint64_t errors[ZE__UI_LOGGED_PER_FRAME], prev_errors[ZE__UI_LOGGED_PER_FRAME];
    uint32_t error_count, prev_error_count;

    /* per-key state: slots in chunks that never move (boxes point at
       them), and key -> slot index */
    ze__ui_state **state_chunks;
    uint32_t state_chunk_count, state_chunk_cap;
    uint32_t state_slots; /* slots handed out so far */
    ze_hashmap_t state_map;
    uint32_t free_state; /* slot index + 1; 0 = none */
    uint32_t live_states;

    /* interaction (keys; 0 = none) */
    ze__ui_input in;
    uint64_t hot, active, focus;
    uint64_t pressed_key, released_key, clicked_key, dclick_key;
    float press_pos[2];
    float hold_anchor[2]; /* where the held press was last frame (or at the press) */
    float hold_delta[2];  /* its movement this frame */
    bool drag_started;
    uint64_t last_click_key;
    double last_click_time;
    float last_click_pos[2];
    bool hover_any;

    /* key repeat (ui_input.c): the held key, when it next repeats */
    uint32_t repeat_key;
    double repeat_next;
    float repeat_delay, repeat_interval; /* seconds; delay < 0: off */

    ze__ui_text_edit edit;
    ze__ui_font *font;
    float line_h, ascent;                   /* the font's, pixels (fixed at create) */
    ze_ui_box_desc_t row_desc, column_desc; /* ze_ui_row_begin's, _column_begin's */
    bool window_closed; /* the last window_begin closed its (collapsed) window */

    ze_ui_box_t *last_keyed; /* the last keyed box built (tooltips, drag and drop) */
    uint64_t rpressed_key;   /* the right button went down on it this frame */
    uint64_t wheel_key;      /* the ZE__UI_BOX_WHEEL box the wheel is over */
    ze_ui_box_t *overlays, *overlays_tail;
    ze__ui_popup popup[ZE__UI_POPUP_MAX];
    uint32_t popup_depth; /* open popups */
    uint32_t popup_level; /* popups enclosing what is being built */
    ze__ui_table *table;
    ze__ui_list *list;

    ze__ui_dock *docks; /* dock spaces (heap) */
    uint32_t dock_count, dock_cap;
    ze__ui_dock *dock_cur; /* the space dock panels go to (this frame's last) */

    /* drag and drop: the payload a source set while dragging (copied) */
    bool dnd_active, dnd_dropping;
    uint64_t dnd_source, dnd_type, dnd_frame;
    float dnd_drop[2]; /* where it was released, pixels */
    void *dnd_data;
    size_t dnd_size, dnd_cap;

    /* hit list: boxes of the last laid-out frame (heap, kept) */
    ze__ui_hit *hits;
    uint32_t hit_count, hit_cap;
    bool hits_failed;

    /* draw list */
    ze_ui_instance_t *instances;
    uint32_t instance_count, instance_cap;
    size_t last_frame_bytes;
};

/* ui_context.c */
void ze__ui_error(ze_ui_t *ui, ze_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The state of a key, created when missing (NULL when the table cannot
 * grow: reported). */
ze__ui_state *ze__ui_state_get(ze_ui_t *ui, uint64_t key);
ze__ui_state *ze__ui_state_find(const ze_ui_t *ui, uint64_t key);
/* Arena copy of a string (NUL-terminated); NULL when the arena is full. */
char *ze__ui_strdup(ze_ui_t *ui, const char *s, size_t len);

/* ui_input.c */
void ze__ui_input_frame(ze_ui_t *ui, const ze_ui_event_t *events, uint32_t count);
void ze__ui_input_end(ze_ui_t *ui); /* forget keys whose state was evicted */
/* The hit list: emptied before the placement walk, which adds each box
 * that can take input (keyed and clickable, focusable or scrolling, or
 * solid) once it is placed. */
void ze__ui_hits_begin(ze_ui_t *ui);
void ze__ui_hit_add(ze_ui_t *ui, const ze_ui_box_t *b);
void ze__ui_hits_free(ze_ui_t *ui);
/* The signal of a key about to be built this frame (widgets that need it
 * before they build their box). */
ze_ui_signal_t ze__ui_signal_key(ze_ui_t *ui, uint64_t key);
/* Arena copy of a formatted string; NULL when the arena is full. */
char *ze__ui_vformat(ze_ui_t *ui, size_t *len, const char *fmt, va_list ap);

/* ui_box.c. text (NULL: desc->text) is the drawn text, text_len bytes. */
ze_ui_box_t *ze__ui_push(ze_ui_t *ui, uint64_t key, const char *label, size_t label_len,
                         const ze_ui_box_desc_t *desc, const char *text, size_t text_len);
/* A widget's box: keyed by the whole label under the current seed, showing
 * the part before "##". */
/* ui_button.c: the checkbox's and radio button's shared widget (a framed
 * mark and the label). */
void ze__ui_mark_widget(ze_ui_t *ui, uint64_t key, const char *label, bool marked,
                        float frame_radius, float mark_size, float mark_radius);
ze_ui_box_t *ze__ui_push_widget(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc,
                                bool show_label);
uint64_t ze__ui_widget_key(const ze_ui_t *ui, const char *label);
uint64_t ze__ui_hash_label(const char *label, size_t len, uint64_t seed);
/* The key path ("A/B/leaf") of a box labelled `leaf` under `parent`, into
 * buf (the head cut to "..." when it does not fit). Follows the seeds, not
 * the tree: anonymous boxes add nothing, a tree node's children sit under
 * the node. */
void ze__ui_box_path(const ze_ui_box_t *parent, const char *leaf, size_t leaf_len, char *buf,
                     size_t cap);

/* ui_popup.c: overlays are pushed at the root wherever they are built and
 * raised above the tree at end_frame (drawn last, hit first). */
ze_ui_box_t *ze__ui_push_overlay(ze_ui_t *ui, uint64_t key, const char *label, size_t label_len,
                                 const ze_ui_box_desc_t *desc);
void ze__ui_pop_overlay(ze_ui_t *ui);
void ze__ui_raise_overlays(ze_ui_t *ui);
/* The popup key of an owner: "##popup" under it. */
uint64_t ze__ui_popup_key(uint64_t owner);
bool ze__ui_popup_open(const ze_ui_t *ui, uint64_t owner); /* at the level being built */
void ze__ui_popup_show(ze_ui_t *ui, uint64_t owner, float x, float y);
void ze__ui_popup_close_level(ze_ui_t *ui); /* the level being built and deeper */
/* Pushes the popup's box at (x, y) pixels; pair with ze__ui_popup_end. */
void ze__ui_popup_begin(ze_ui_t *ui, uint64_t owner, float x, float y);
void ze__ui_popup_end(ze_ui_t *ui);
/* Input: a press closes the popups it is outside of; Escape the top one;
 * end of frame: popups whose owner was not built. */
void ze__ui_popup_press(ze_ui_t *ui, float x, float y);
bool ze__ui_popup_escape(ze_ui_t *ui);
void ze__ui_popup_frame_end(ze_ui_t *ui);

/* ui_dnd.c: the release that ends a drag (input), and end of frame. */
void ze__ui_dnd_release(ze_ui_t *ui, float x, float y);
void ze__ui_dnd_frame_end(ze_ui_t *ui);
void ze__ui_dnd_free(ze_ui_t *ui);

/* ui_dock.c */
void ze__ui_dock_free(ze_ui_t *ui);

/* ui_layout.c. Boxes are sized as they are built: open (push) gives the
 * sizes that need only the ancestors, close (pop) the sizes from the
 * children, summed into the parent. A tree changed after a box closed
 * (a dock panel built into its leaf, boxes left open) sets ui->resize:
 * layout then sizes the whole tree again. */
void ze__ui_size_open(ze_ui_t *ui, ze_ui_box_t *b);
void ze__ui_size_close(ze_ui_t *ui, ze_ui_box_t *b);
/* The draw list being written (ui_draw.c). */
typedef struct ze__ui_draw_ctx {
    ze_ui_t *ui;
    uint32_t count;
    bool failed;
    uint32_t atlas_height; /* at begin: a taller atlas at the end redoes the list */
    float inv_w, inv_h;    /* atlas texels -> 0..1 */
} ze__ui_draw_ctx;
/* Solves the layout (sizing the whole tree again first when `resize`).
 * With `draw`, the placement walk also writes the draw list and the hit
 * list: each box once its rectangle is known. */
void ze__ui_layout(ze_ui_t *ui, bool resize, ze__ui_draw_ctx *draw);
/* ui_draw.c: begin, a box before its children, after them, end (the
 * frame's result: ZE_ERR_BUDGET when the list could not grow). */
void ze__ui_draw_begin(ze_ui_t *ui, ze__ui_draw_ctx *d);
void ze__ui_draw_open(ze__ui_draw_ctx *d, const ze_ui_box_t *b);
void ze__ui_draw_close(ze__ui_draw_ctx *d, const ze_ui_box_t *b);
ze_result ze__ui_draw_end(ze_ui_t *ui, ze__ui_draw_ctx *d);

/* Pixel value of logical pixels. */
static inline float ze__ui_px(const ze_ui_t *ui, float logical)
{
    return logical * ui->scale;
}

static inline bool ze__ui_rect_contains(ze_ui_rect_t r, float x, float y)
{
    return x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
}

/* An empty result collapses onto a's edge, so clips always nest. */
static inline ze_ui_rect_t ze__ui_rect_intersect(ze_ui_rect_t a, ze_ui_rect_t b)
{
    ze_ui_rect_t r = {ZE_MAX(a.x0, b.x0), ZE_MAX(a.y0, b.y0), ZE_MIN(a.x1, b.x1),
                      ZE_MIN(a.y1, b.y1)};
    if (r.x1 < r.x0)
        r.x0 = r.x1 = ZE_MIN(ZE_MAX(r.x0, a.x0), a.x1);
    if (r.y1 < r.y0)
        r.y0 = r.y1 = ZE_MIN(ZE_MAX(r.y0, a.y0), a.y1);
    return r;
}

#endif /* ZE_UI_INTERNAL_H */
