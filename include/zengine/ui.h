/* zengine/ui.h — ZUI, the immediate-mode user interface (its CPU side).
 *
 * What: every frame the application builds a tree of boxes between
 * ze_ui_begin_frame and ze_ui_end_frame. A box is keyed by a 64-bit hash of
 * its label seeded by its parent's key (two windows' "Delete" buttons are
 * different boxes; "Delete##2" hashes the whole label but shows "Delete",
 * "Name###id" hashes only "###id"); a box without a label is anonymous: it
 * has no state and its children are keyed as if they were its parent's.
 * Per-key state (hover, press, focus, scroll, window position, tree open,
 * text edit) survives frames and is evicted at the end of a frame that did
 * not build the key. end_frame solves the layout per axis (semantic sizes:
 * pixels, text, percent of the parent, sum of children, each with a
 * strictness; padding, spacing, alignment, floating boxes, clipping, scroll
 * offsets), then writes the draw list: one instance per box or glyph
 * (rectangle, colour, corner radius, border, texture, clip rectangle).
 * Interaction uses the rectangles of the previous frame: hover, press,
 * click, double click, drag, wheel, keyboard focus (Tab, arrows, gamepad
 * navigation), Enter/Space activation, Escape. Text is UTF-8 throughout,
 * drawn from a glyph atlas baked on demand with stb_truetype (or from a
 * fixed-metric font: every glyph W x H, for tests and tools). Widgets:
 * label, button, checkbox, radio, slider, drag number, text field (caret,
 * selection, clipboard, undo/redo), combo, panel, window (moved by its
 * title, resized by its corner grip, collapsed by a double click on its
 * title), scroll region, virtual list, tree node, table (resizable
 * columns), image (a gfx texture: ze_render_texture_t's id), tooltip,
 * menu bar and menus, context menu, drag and drop. A held key repeats
 * (desc.key_repeat_*). Popups and tooltips are overlays: built where their widget is,
 * drawn above everything and hit first.
 * Not: rendering (the overlay pass draws the draw list and uploads the
 * atlas), windows and devices (the engine turns GLFW and input events into
 * ze_ui_event_t values), the overlay mailbox (engine), file I/O (the font
 * arrives as bytes).
 * Threads: a context belongs to one thread (the main thread). The draw list
 * and the atlas are borrowed until the next ze_ui_begin_frame: copy them
 * into the overlay payload before that.
 * Memory: everything comes from the owner in the desc (UI by default): a
 * heap for state that lives across frames (state table, glyph cache,
 * atlas, draw list, text-edit history), two frame arenas that alternate
 * (boxes and their strings; the previous frame's boxes stay readable for
 * interaction). After two warm-up frames a frame that builds the same tree
 * allocates nothing. Nothing has a fixed cap: the draw list and tables
 * grow; an exhausted budget or frame arena is an error, never truncation.
 * Errors: ze_result from create/begin/end; problems found while building
 * (duplicate key, tree deeper than desc.max_depth, frame arena exhausted,
 * unbalanced push/pop) are logged once on channel "ui" with the key path
 * and returned by ze_ui_end_frame (the first of the frame). Builder calls
 * never fail: a box that cannot be built becomes a stand-in that takes no
 * input and draws nothing.
 */
#ifndef ZENGINE_UI_H
#define ZENGINE_UI_H

#include "zengine/base.h"
#include "zengine/mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ze_ui_t ze_ui_t;
typedef struct ze_ui_box_t ze_ui_box_t; /* borrowed for the frame that built it */

/* 0 = no key (anonymous box). */
typedef struct ze_ui_key_t {
    uint64_t id;
} ze_ui_key_t;

/* Pixels, origin top-left, x1/y1 exclusive. */
typedef struct ze_ui_rect_t {
    float x0, y0, x1, y1;
} ze_ui_rect_t;

/* ------------------------------------------------------------------ events */

/* Key codes equal GLFW's (and so the engine's ZE_KEY_*): the engine passes
 * its codes through unchanged. Letters are their upper-case ASCII. */
typedef enum ze_ui_key {
    ZE_UI_KEY_NONE = 0,
    ZE_UI_KEY_SPACE = 32,
    ZE_UI_KEY_A = 65,
    ZE_UI_KEY_C = 67,
    ZE_UI_KEY_V = 86,
    ZE_UI_KEY_X = 88,
    ZE_UI_KEY_Y = 89,
    ZE_UI_KEY_Z = 90,
    ZE_UI_KEY_ESCAPE = 256,
    ZE_UI_KEY_ENTER = 257,
    ZE_UI_KEY_TAB = 258,
    ZE_UI_KEY_BACKSPACE = 259,
    ZE_UI_KEY_DELETE = 261,
    ZE_UI_KEY_RIGHT = 262,
    ZE_UI_KEY_LEFT = 263,
    ZE_UI_KEY_DOWN = 264,
    ZE_UI_KEY_UP = 265,
    ZE_UI_KEY_PAGE_UP = 266,
    ZE_UI_KEY_PAGE_DOWN = 267,
    ZE_UI_KEY_HOME = 268,
    ZE_UI_KEY_END = 269,
    ZE_UI_KEY_KP_ENTER = 335,
} ze_ui_key;

/* Modifier bits, GLFW's values. */
enum {
    ZE_UI_MOD_SHIFT = 1u << 0,
    ZE_UI_MOD_CTRL = 1u << 1,
    ZE_UI_MOD_ALT = 1u << 2,
    ZE_UI_MOD_SUPER = 1u << 3,
};

typedef enum ze_ui_mouse_button {
    ZE_UI_MOUSE_LEFT = 0,
    ZE_UI_MOUSE_RIGHT,
    ZE_UI_MOUSE_MIDDLE,
    ZE_UI_MOUSE_BUTTON_COUNT
} ze_ui_mouse_button;

/* Gamepad (or any directional) navigation, sent once per press. */
typedef enum ze_ui_nav {
    ZE_UI_NAV_NONE = 0,
    ZE_UI_NAV_UP,       /* focus the previous focusable box */
    ZE_UI_NAV_DOWN,     /* focus the next one */
    ZE_UI_NAV_LEFT,     /* decrease (slider) */
    ZE_UI_NAV_RIGHT,    /* increase (slider) */
    ZE_UI_NAV_ACTIVATE, /* as Enter on the focused box */
    ZE_UI_NAV_CANCEL,   /* as Escape */
} ze_ui_nav;

typedef enum ze_ui_event_type {
    ZE_UI_EVENT_NONE = 0,
    ZE_UI_EVENT_MOUSE_MOVE,   /* x, y: pixels from the target's top-left */
    ZE_UI_EVENT_MOUSE_BUTTON, /* button, down; at the last moved-to position */
    ZE_UI_EVENT_MOUSE_WHEEL,  /* x, y: notches; y > 0 scrolls up (GLFW) */
    ZE_UI_EVENT_KEY,          /* key, down, mods: edges (ZUI repeats a held key itself) */
    ZE_UI_EVENT_TEXT,         /* codepoint: one character of text input */
    ZE_UI_EVENT_NAV,          /* nav */
} ze_ui_event_type;

typedef struct ze_ui_event_t {
    ze_ui_event_type type;
    float x, y;
    uint32_t button;    /* ze_ui_mouse_button */
    uint32_t key;       /* ze_ui_key */
    uint32_t mods;      /* ZE_UI_MOD_* */
    uint32_t codepoint; /* invalid values (surrogates, > U+10FFFF) become U+FFFD */
    uint32_t nav;       /* ze_ui_nav */
    bool down;
} ze_ui_event_t;

/* ------------------------------------------------------------------- style */

typedef enum ze_ui_color_role {
    ZE_UI_COLOR_TEXT = 0,
    ZE_UI_COLOR_WINDOW,
    ZE_UI_COLOR_TITLE,
    ZE_UI_COLOR_TITLE_ACTIVE,
    ZE_UI_COLOR_PANEL,
    ZE_UI_COLOR_BUTTON,
    ZE_UI_COLOR_BUTTON_HOT,
    ZE_UI_COLOR_BUTTON_ACTIVE,
    ZE_UI_COLOR_FRAME, /* checkbox, slider track, text field */
    ZE_UI_COLOR_FRAME_HOT,
    ZE_UI_COLOR_CHECK,
    ZE_UI_COLOR_GRAB, /* slider thumb, scroll bar */
    ZE_UI_COLOR_SELECTION,
    ZE_UI_COLOR_CARET,
    ZE_UI_COLOR_BORDER,
    ZE_UI_COLOR_FOCUS, /* border of the focused box */
    ZE_UI_COLOR_COUNT
} ze_ui_color_role;

/* Colours are 0xRRGGBBAA (sRGB, straight alpha); metrics logical pixels. */
typedef struct ze_ui_style_t {
    uint32_t colors[ZE_UI_COLOR_COUNT];
    float padding;          /* widgets' inner padding */
    float spacing;          /* between a container's children */
    float corner_radius;    /* buttons, frames */
    float border_width;     /* frames, windows */
    float slider_width;     /* track */
    float text_field_width; /* text fields */
    float indent;           /* tree node children */
    float scrollbar_width;
    float wheel_step;        /* logical pixels scrolled per wheel notch */
    uint32_t tooltip_frames; /* frames of resting hover before a tooltip shows */
    float column_min_width;  /* table columns, logical pixels */
} ze_ui_style_t;

ze_ui_style_t ze_ui_style_default(void);

/* ------------------------------------------------------------------ create */

typedef const char *(*ze_ui_clipboard_get_fn)(void *user, size_t *len); /* borrowed text */
typedef void (*ze_ui_clipboard_set_fn)(void *user, const char *text, size_t len);

typedef struct ze_ui_font_desc_t {
    /* A TrueType font (DejaVu Sans: the engine's /ZodiacEngine/fonts/).
       Borrowed: it must outlive the context. NULL = the fixed font. */
    const void *ttf_data;
    size_t ttf_size;
    float size; /* pixel height in logical pixels; 0 = 16 */
    /* The fixed-metric font (no TTF): every glyph fixed_width x
       fixed_height logical pixels, advance fixed_width, no kerning; the
       line height is fixed_height. Chosen when `fixed` or when there is no
       ttf_data. 0 = 8 x 16. */
    bool fixed;
    float fixed_width, fixed_height;
} ze_ui_font_desc_t;

typedef struct ze_ui_desc_t {
    ze_mem_t *mem;      /* required */
    ze_mem_owner owner; /* 0 (Bootstrap) is taken as ZE_MEM_OWNER_UI */
    ze_ui_font_desc_t font;
    float scale; /* DPI scale: logical pixels x scale = pixels; 0 = 1 */
    /* The system clipboard (the engine: GLFW's); without them the context
       keeps its own. */
    ze_ui_clipboard_get_fn clipboard_get;
    ze_ui_clipboard_set_fn clipboard_set;
    void *clipboard_user;
    uint32_t max_depth;      /* boxes below the root; 0 = 64, at most 1024 */
    size_t frame_memory;     /* bytes per frame arena (two of them); 0 = 8 MiB */
    float double_click_time; /* seconds; 0 = 0.3 */
    float drag_threshold;    /* logical pixels before a press drags; 0 = 3 */
    /* Key repeat: the last key pressed (not a modifier), held, sends
       another KEY down after key_repeat_delay seconds, then every
       key_repeat_interval (Backspace, arrows, Tab...; typed text repeats
       by the system's own TEXT events). 0 = 0.4 s and 0.05 s; a negative
       delay turns it off. */
    float key_repeat_delay, key_repeat_interval;
    const ze_ui_style_t *style; /* NULL = ze_ui_style_default() */
} ze_ui_desc_t;

/* ZE_ERR_INVALID_ARG without mem or with a bad limit, ZE_ERR_PARSE when the
 * TTF does not load, ZE_ERR_BUDGET when the owner refuses memory. */
ze_result ze_ui_create(const ze_ui_desc_t *desc, ze_ui_t **out);
void ze_ui_destroy(ze_ui_t *ui);
float ze_ui_scale(const ze_ui_t *ui);
ze_ui_style_t *ze_ui_style(ze_ui_t *ui); /* mutable; read while building */

/* ------------------------------------------------------------------- frame */

/* Starts a frame for a width x height pixel target; dt in seconds (clocks
 * double clicks); events in arrival order (copied: the array may be reused
 * after the call). ZE_ERR_STATE inside a frame. */
ze_result ze_ui_begin_frame(ze_ui_t *ui, uint32_t width, uint32_t height, float dt,
                            const ze_ui_event_t *events, uint32_t count);
/* Closes open boxes (an error), lays out, evicts unbuilt state, writes the
 * draw list. Returns the frame's first error (see Errors above);
 * ZE_ERR_BUDGET when the draw list could not grow (it is then empty). */
ze_result ze_ui_end_frame(ze_ui_t *ui);

/* The UI is under the mouse or holds a press: the game should ignore the
 * mouse. Valid during a frame (from the previous frame's rectangles). */
bool ze_ui_wants_mouse(const ze_ui_t *ui);
/* A text field has the keyboard focus: the game should ignore keys. */
bool ze_ui_wants_keyboard(const ze_ui_t *ui);

/* --------------------------------------------------------------- box tree */

typedef enum ze_ui_size_kind {
    ZE_UI_SIZE_CHILDREN = 0, /* children summed along the layout axis, their max across it */
    ZE_UI_SIZE_PIXELS,       /* value logical pixels */
    ZE_UI_SIZE_TEXT,         /* the box's text (width, or line height) */
    ZE_UI_SIZE_PERCENT,      /* value (1 = all) of the parent's content size; a parent
                                sized by its children defers to its own parent */
} ze_ui_size_kind;

/* Sizes include padding. strictness 0..1: the share of the size a box keeps
 * when its siblings do not fit in their parent (0 gives it all up, 1 keeps
 * it all; boxes that keep it overflow, clipped by a CLIP parent). Parents
 * that scroll on an axis never shrink their children on that axis. */
typedef struct ze_ui_size_t {
    ze_ui_size_kind kind;
    float value;
    float strictness;
} ze_ui_size_t;

/* Plain assignments rather than compound literals: C++ includes this too. */
static inline ze_ui_size_t ze_ui_size(ze_ui_size_kind kind, float value, float strictness)
{
    ze_ui_size_t s;
    s.kind = kind;
    s.value = value;
    s.strictness = strictness;
    return s;
}
static inline ze_ui_size_t ze_ui_px(float v, float strictness)
{
    return ze_ui_size(ZE_UI_SIZE_PIXELS, v, strictness);
}
static inline ze_ui_size_t ze_ui_pct(float v, float strictness)
{
    return ze_ui_size(ZE_UI_SIZE_PERCENT, v, strictness);
}
static inline ze_ui_size_t ze_ui_text_size(float strictness)
{
    return ze_ui_size(ZE_UI_SIZE_TEXT, 0.0f, strictness);
}
static inline ze_ui_size_t ze_ui_children(float strictness)
{
    return ze_ui_size(ZE_UI_SIZE_CHILDREN, 0.0f, strictness);
}

typedef enum ze_ui_layout {
    ZE_UI_LAYOUT_COLUMN = 0, /* children top to bottom (axis y) */
    ZE_UI_LAYOUT_ROW,        /* children left to right (axis x) */
} ze_ui_layout;

typedef enum ze_ui_align {
    ZE_UI_ALIGN_START = 0,
    ZE_UI_ALIGN_CENTER,
    ZE_UI_ALIGN_END,
} ze_ui_align;

enum ze_ui_box_flags {
    ZE_UI_BOX_CLICKABLE = 1u << 0,   /* takes hover and presses (keyed boxes only) */
    ZE_UI_BOX_FOCUSABLE = 1u << 1,   /* in the Tab order, takes activation keys */
    ZE_UI_BOX_BACKGROUND = 1u << 2,  /* draws a rectangle in `background` */
    ZE_UI_BOX_BORDER = 1u << 3,      /* draws its border (border_width, border_color) */
    ZE_UI_BOX_CLIP = 1u << 4,        /* children are clipped to the box */
    ZE_UI_BOX_SCROLL_X = 1u << 5,    /* children scroll horizontally (implies CLIP) */
    ZE_UI_BOX_SCROLL_Y = 1u << 6,    /* vertically; the wheel scrolls it */
    ZE_UI_BOX_FLOATING = 1u << 7,    /* out of the flow, at (x, y) from the parent's corner */
    ZE_UI_BOX_SEED_PARENT = 1u << 8, /* children keyed as if they were the parent's */
};

/* Zero is a working default: a transparent column sized by its children. */
typedef struct ze_ui_box_desc_t {
    uint32_t flags; /* ze_ui_box_flags */
    ze_ui_size_t width, height;
    ze_ui_layout layout;
    ze_ui_align align_x, align_y; /* the children and the text, inside the padding */
    float padding_x, padding_y;   /* logical pixels on each side */
    float spacing;                /* logical pixels between children */
    float x, y;                   /* FLOATING: logical offset from the parent's top-left */
    const char *text;             /* drawn in the box (copied); NULL = none */
    uint32_t background, text_color, border_color; /* 0xRRGGBBAA; text 0 = style text */
    float corner_radius, border_width;             /* logical pixels */
    uint32_t texture; /* an image drawn over the box: a ze_render_texture_t's id; 0 = none */
} ze_ui_box_desc_t;

/* Push a box as the last child of the current one; it becomes current
 * until its pop. label: the key ("" or NULL: anonymous). */
ze_ui_box_t *ze_ui_push_box(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc);
/* With a key computed by the caller (ze_ui_key_child); {0} = anonymous. */
ze_ui_box_t *ze_ui_push_box_key(ze_ui_t *ui, ze_ui_key_t key, const ze_ui_box_desc_t *desc);
void ze_ui_pop_box(ze_ui_t *ui);
/* Push and pop: a leaf. */
ze_ui_box_t *ze_ui_box(ze_ui_t *ui, const char *label, const ze_ui_box_desc_t *desc);
/* The key children of the current box get (for ze_ui_push_box_key). */
ze_ui_key_t ze_ui_current_seed(const ze_ui_t *ui);

ze_ui_key_t ze_ui_box_key(const ze_ui_box_t *box);
/* Its rectangle once ze_ui_end_frame laid it out (until the next
 * begin_frame); zero before. */
ze_ui_rect_t ze_ui_box_rect(const ze_ui_box_t *box);
ze_ui_rect_t ze_ui_box_clip(const ze_ui_box_t *box); /* what its drawing is clipped to */

/* Keys without a tree: the root's seed, a child's key, and a path of
 * '/'-separated labels from the root ("Inventory/Delete"; labels of
 * anonymous boxes are skipped, as the tree skips them). */
ze_ui_key_t ze_ui_key_root(void);
ze_ui_key_t ze_ui_key_child(ze_ui_key_t parent, const char *label);
ze_ui_key_t ze_ui_key_path(const char *path);

/* The rectangle a key had at the last end_frame; false when it was not
 * built (scripted tests aim at it; tools inspect it). */
bool ze_ui_key_rect(const ze_ui_t *ui, ze_ui_key_t key, ze_ui_rect_t *out);
bool ze_ui_key_alive(const ze_ui_t *ui, ze_ui_key_t key); /* has state now */

/* What happened to a keyed box this frame, from the previous frame's
 * rectangles. Anonymous and stand-in boxes get all false. */
typedef struct ze_ui_signal_t {
    bool hovered;        /* the topmost clickable box under the mouse */
    bool pressed;        /* the left button went down on it this frame */
    bool held;           /* it holds the press (active), mouse down */
    bool released;       /* the press it held ended this frame */
    bool clicked;        /* released over it, or Enter/Space/activate while focused */
    bool double_clicked; /* the second click within double_click_time */
    bool dragging;       /* held and moved past the drag threshold */
    bool focused;        /* has the keyboard focus */
    ze_vec2_t mouse;     /* pixels */
    ze_vec2_t drag;      /* held: mouse minus the press position, pixels */
    ze_vec2_t delta;     /* mouse movement this frame (held: since the press
                            or the last frame), pixels */
} ze_ui_signal_t;

ze_ui_signal_t ze_ui_signal(ze_ui_t *ui, const ze_ui_box_t *box);

/* Scroll offsets (pixels) of a scrolling box; clamped at layout. */
void ze_ui_set_scroll(ze_ui_t *ui, ze_ui_key_t key, float x, float y);
ze_vec2_t ze_ui_scroll(const ze_ui_t *ui, ze_ui_key_t key);
ze_ui_key_t ze_ui_focus(const ze_ui_t *ui);
void ze_ui_set_focus(ze_ui_t *ui, ze_ui_key_t key); /* {0} clears it */

/* ----------------------------------------------------------------- widgets */

/* Widgets take "label##id" labels (shown: the part before "##"). */
void ze_ui_label(ze_ui_t *ui, const char *text);
void ze_ui_labelf(ze_ui_t *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ze_ui_button(ze_ui_t *ui, const char *label);                /* clicked */
bool ze_ui_checkbox(ze_ui_t *ui, const char *label, bool *value); /* toggled */
/* Drag the track (or Left/Right when focused: 1/100 of the range). Returns
 * true when *value changed. */
bool ze_ui_slider_float(ze_ui_t *ui, const char *label, float *value, float min, float max);

enum {
    ZE_UI_TEXT_CHANGED = 1u << 0,   /* the buffer changed this frame */
    ZE_UI_TEXT_SUBMITTED = 1u << 1, /* Enter */
    ZE_UI_TEXT_EDITING = 1u << 2,   /* it has the keyboard focus */
};
/* A single-line UTF-8 field editing buf (NUL-terminated, cap bytes in all;
 * input that does not fit is refused whole, never cut inside a character).
 * Keys: Left/Right/Home/End (Shift selects), Backspace/Delete, Ctrl+A,
 * Ctrl+C/X/V through the clipboard, Ctrl+Z undo, Ctrl+Y or Ctrl+Shift+Z
 * redo (typed runs undo as one step), Enter submits, Escape leaves.
 * Returns ZE_UI_TEXT_* bits. */
uint32_t ze_ui_text_field(ze_ui_t *ui, const char *label, char *buf, size_t cap);

typedef struct ze_ui_window_desc_t {
    float x, y, width, height; /* initial, logical pixels; 0 x 0 = 300 x 200 */
} ze_ui_window_desc_t;
/* A floating window at the root: a title bar that moves it when dragged
 * (a double click collapses it to the title, another expands it), a
 * content column that scrolls vertically, and a grip in the bottom-right
 * corner ("Title/##grip") that resizes it when dragged. True: build the
 * content, then ze_ui_window_end. False: collapsed, the window is closed
 * already (a ze_ui_window_end right after is accepted and does nothing). */
bool ze_ui_window_begin(ze_ui_t *ui, const char *title, const ze_ui_window_desc_t *desc);
void ze_ui_window_end(ze_ui_t *ui);
/* A panel in the flow: background, border, padding, a column. */
void ze_ui_panel_begin(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height);
void ze_ui_panel_end(ze_ui_t *ui);
/* A clipped column that scrolls vertically (wheel, ze_ui_set_scroll). */
void ze_ui_scroll_begin(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height);
void ze_ui_scroll_end(ze_ui_t *ui);
/* A tree node: its header toggles it (click, Enter); true when open: build
 * the children, then ze_ui_tree_end. Closed by default. */
bool ze_ui_tree_begin(ze_ui_t *ui, const char *label);
void ze_ui_tree_end(ze_ui_t *ui);
/* Anonymous rows and columns sized by their children, spaced by the style. */
void ze_ui_row_begin(ze_ui_t *ui);
void ze_ui_row_end(ze_ui_t *ui);
void ze_ui_column_begin(ze_ui_t *ui);
void ze_ui_column_end(ze_ui_t *ui);
void ze_ui_spacer(ze_ui_t *ui, ze_ui_size_t width, ze_ui_size_t height);

/* Radio buttons: a click selects `option` (*value = option). True when
 * *value changed. */
bool ze_ui_radio(ze_ui_t *ui, const char *label, int *value, int option);
/* A number dragged horizontally: speed per logical pixel (Left/Right: one
 * speed step when focused); clamped when min < max. True when changed. */
bool ze_ui_drag_float(ze_ui_t *ui, const char *label, float *value, float speed, float min,
                      float max);
/* A combo box: shows items[*index]; a click opens a popup of the items
 * (keyed "label/##popup/item"), choosing one sets *index. True when it
 * changed. */
bool ze_ui_combo(ze_ui_t *ui, const char *label, int *index, const char *const *items, int count);
/* An image: a gfx texture drawn over width x height logical pixels
 * (ZE_UI_INSTANCE_IMAGE). texture: a ze_render_texture_t's id, from
 * ze_render_backend_ui_texture(backend, the texture asset's uuid); the
 * Vulkan backend's ui pass samples it (the fallback texture while it is
 * not resident). A label keys it (clickable); NULL: anonymous. */
ze_ui_box_t *ze_ui_image(ze_ui_t *ui, const char *label, uint32_t texture, float width,
                         float height);

/* Virtual lists: `rows` rows of row_height logical pixels in a clipped
 * box of width x height, of which only the visible ones are built: build
 * rows [first, first + count) of the range returned, each between
 * ze_ui_list_row_begin(row) (a row box keyed "#<row>" under the list) and
 * ze_ui_list_row_end, then ze_ui_list_end. The wheel scrolls it. */
typedef struct ze_ui_list_range_t {
    uint64_t first, count;
} ze_ui_list_range_t;
ze_ui_list_range_t ze_ui_list_begin(ze_ui_t *ui, const char *label, uint64_t rows, float row_height,
                                    ze_ui_size_t width, ze_ui_size_t height);
void ze_ui_list_row_begin(ze_ui_t *ui, uint64_t row);
void ze_ui_list_row_end(ze_ui_t *ui);
void ze_ui_list_end(ze_ui_t *ui);
/* Scrolls a list (its key) so `row` is first; clamped when next built. */
void ze_ui_list_scroll_to(ze_ui_t *ui, ze_ui_key_t list, uint64_t row);

/* Tables: a header row whose column handles ("label/##resize<i>") resize
 * the columns when dragged, then rows of cells of the columns' widths:
 * ze_ui_table_row_begin, ze_ui_table_cell before each cell's content
 * (false past the last column), ze_ui_table_row_end; ze_ui_table_end. */
typedef struct ze_ui_table_desc_t {
    uint32_t columns;           /* at least 1 */
    const char *const *headers; /* column titles; NULL = untitled */
    const float *widths;        /* initial widths, logical pixels; NULL = 100 each */
} ze_ui_table_desc_t;
void ze_ui_table_begin(ze_ui_t *ui, const char *label, const ze_ui_table_desc_t *desc);
void ze_ui_table_row_begin(ze_ui_t *ui);
bool ze_ui_table_cell(ze_ui_t *ui);
void ze_ui_table_row_end(ze_ui_t *ui);
void ze_ui_table_end(ze_ui_t *ui);
/* A column's width (logical pixels) at the last frame; 0 when unknown. */
float ze_ui_table_column_width(const ze_ui_t *ui, ze_ui_key_t table, uint32_t column);

/* Tooltips for the last keyed box built (a clickable one: it must become
 * the hot box): true once the mouse has rested on it for
 * style.tooltip_frames frames; then build the content and call
 * ze_ui_tooltip_end. ze_ui_tooltip: a one-label tooltip. */
bool ze_ui_tooltip_begin(ze_ui_t *ui);
void ze_ui_tooltip_end(ze_ui_t *ui);
void ze_ui_tooltip(ze_ui_t *ui, const char *text);

/* Menus. A menu bar is a row in the flow (its menus keyed as the parent's
 * children); ze_ui_menu_begin is a header that opens its popup on a click
 * (below it in a bar, beside it in another menu): true when open, then
 * build items and ze_ui_menu_end. ze_ui_menu_item: true when chosen
 * (click, Enter); choosing closes every open menu. A press outside closes
 * them, Escape closes the top one. Items are keyed "File/##popup/Save". */
void ze_ui_menu_bar_begin(ze_ui_t *ui);
void ze_ui_menu_bar_end(ze_ui_t *ui);
bool ze_ui_menu_begin(ze_ui_t *ui, const char *label);
void ze_ui_menu_end(ze_ui_t *ui);
bool ze_ui_menu_item(ze_ui_t *ui, const char *label);
/* A context menu for the last keyed box built (a clickable one): opens at
 * the mouse when the right button goes down on it; true while open (build menu items, then
 * ze_ui_context_menu_end). Keyed "box/##popup". */
bool ze_ui_context_menu_begin(ze_ui_t *ui);
void ze_ui_context_menu_end(ze_ui_t *ui);

/* Drag and drop, for the last keyed box built. A source being dragged
 * sets a typed payload (copied; call it every frame: true while
 * dragging). On the frame the press is released over a target asking for
 * that type, ze_ui_drop_target returns the payload (size in *size),
 * borrowed until the frame ends; NULL otherwise. */
bool ze_ui_drag_source(ze_ui_t *ui, const char *type, const void *data, size_t size);
const void *ze_ui_drop_target(ze_ui_t *ui, const char *type, size_t *size);
bool ze_ui_drag_active(const ze_ui_t *ui, const char *type); /* a payload of type (NULL: any) */

/* Docking. A dock space is a box split into leaves (tab bars over
 * content) and splits (a handle between two children that a drag
 * moves). Dock panels, built after their space in the frame (anywhere),
 * each sit in one leaf; only the active tab's content is built (true:
 * build it, then ze_ui_dock_panel_end). A new panel joins the first leaf
 * as a tab. Dragging a tab onto a leaf docks the panel there: in the
 * middle as a tab, within a quarter of an edge into a new leaf split off
 * on that side. A panel not built for a frame leaves. Keys: "Dock/Scene"
 * (a panel), "Dock/Scene/##tab", "Dock/##split<i>". */
typedef enum ze_ui_dock_where {
    ZE_UI_DOCK_TAB = 0, /* into the target's leaf, as a tab */
    ZE_UI_DOCK_LEFT,    /* a new leaf split off the target's, on that side */
    ZE_UI_DOCK_RIGHT,
    ZE_UI_DOCK_TOP,
    ZE_UI_DOCK_BOTTOM,
} ze_ui_dock_where;
void ze_ui_dock_space(ze_ui_t *ui, const char *label, ze_ui_size_t width, ze_ui_size_t height);
bool ze_ui_dock_panel_begin(ze_ui_t *ui, const char *title);
void ze_ui_dock_panel_end(ze_ui_t *ui);
/* Docks panel next to (or with) target, both already in the space.
 * Between frames it applies at once; inside a frame, when the space is
 * next built. ZE_ERR_NOT_FOUND for an unknown space or panel. */
ze_result ze_ui_dock_move(ze_ui_t *ui, ze_ui_key_t space, const char *panel, const char *target,
                          ze_ui_dock_where where);

/* -------------------------------------------------------------- draw list */

typedef enum ze_ui_instance_kind {
    ZE_UI_INSTANCE_RECT = 0, /* a rounded rectangle with an optional border */
    ZE_UI_INSTANCE_GLYPH,    /* coverage from the font atlas, tinted by color */
    ZE_UI_INSTANCE_IMAGE,    /* a texture, tinted by color */
} ze_ui_instance_kind;

/* One GPU instance (std430-friendly: 80 bytes). */
typedef struct ze_ui_instance_t {
    ze_ui_rect_t rect; /* pixels */
    ze_ui_rect_t clip; /* pixels: nothing outside is drawn */
    ze_ui_rect_t uv;   /* GLYPH: atlas coordinates 0..1; IMAGE: 0..1 */
    uint32_t color;    /* 0xRRGGBBAA */
    uint32_t border_color;
    float corner_radius, border_width; /* pixels */
    uint32_t kind;                     /* ze_ui_instance_kind */
    uint32_t texture;                  /* IMAGE: a ze_render_texture_t's id */
    uint32_t codepoint;                /* GLYPH: what it draws (U+FFFD for invalid bytes) */
    uint32_t _pad;
} ze_ui_instance_t;

/* Instances in draw order (painter's), borrowed until the next begin_frame. */
typedef struct ze_ui_draw_list_t {
    const ze_ui_instance_t *instances;
    uint32_t count;
    uint32_t width, height; /* the frame's target, pixels */
    uint64_t frame;
    uint64_t atlas_revision; /* re-upload the atlas when it changes */
} ze_ui_draw_list_t;

ze_ui_draw_list_t ze_ui_draw_list(const ze_ui_t *ui);

/* The glyph atlas: 8-bit coverage, row-major, borrowed until the next
 * begin_frame (glyphs are added while building, so it may grow). */
typedef struct ze_ui_atlas_t {
    const uint8_t *pixels;
    uint32_t width, height;
    uint64_t revision;
} ze_ui_atlas_t;

ze_ui_atlas_t ze_ui_font_atlas(const ze_ui_t *ui);

/* -------------------------------------------------------------------- text */

/* One codepoint from s[0..len): returns the bytes used (1..4; 0 only when
 * len is 0). Invalid or truncated sequences give U+FFFD and use 1 byte. */
size_t ze_ui_utf8_decode(const char *s, size_t len, uint32_t *cp);

typedef struct ze_ui_glyph_info_t {
    bool present;        /* false: drawn as the replacement box */
    float advance;       /* pixels */
    float width, height; /* bitmap, pixels */
    ze_ui_rect_t uv;     /* atlas 0..1 */
} ze_ui_glyph_info_t;

/* Adds the glyph to the atlas if needed. Returns info.present. */
bool ze_ui_glyph_info(ze_ui_t *ui, uint32_t codepoint, ze_ui_glyph_info_t *out);
float ze_ui_kerning(ze_ui_t *ui, uint32_t left, uint32_t right); /* pixels */
/* Width of a UTF-8 run (advances plus kerning), pixels. */
float ze_ui_text_width(ze_ui_t *ui, const char *text, size_t len);
float ze_ui_line_height(const ze_ui_t *ui); /* pixels */

typedef struct ze_ui_stats_t {
    uint64_t frame;
    uint32_t boxes;     /* built last frame, the root included */
    uint32_t instances; /* in the draw list */
    uint32_t states;    /* live per-key states */
    uint32_t glyphs;    /* in the atlas */
    size_t frame_bytes; /* frame arena used by the last frame */
} ze_ui_stats_t;

ze_ui_stats_t ze_ui_stats(const ze_ui_t *ui);

#ifdef __cplusplus
}
#endif
#endif /* ZENGINE_UI_H */
