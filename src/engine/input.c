/* Input: the polled per-frame state, key names, and scripted replays.
 *
 * Replay files are parsed once into a flat array of events sorted by frame
 * (the grammar requires non-decreasing frames, so the file order is the
 * sorted order). Applying a frame walks a cursor forward, so a whole run
 * costs O(events). Limits, enforced here: a line is at most 256 bytes
 * (without its newline), a file holds at most 1,000,000 events.
 *
 * Memory: the event array comes from the caller's allocator (or the system
 * allocator when none is given); nothing else is allocated.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

enum {
    REPLAY_LINE_MAX = 256,       /* bytes per line, newline excluded */
    REPLAY_EVENT_MAX = 1000000,  /* events per file */
    REPLAY_TOKEN_QUOTE_MAX = 40, /* bytes of a bad token quoted in a message */
};

/* ------------------------------------------------------------ key helpers */

static bool bit_get(const uint8_t *bits, int i)
{
    return (bits[i >> 3] >> (i & 7)) & 1u;
}

static void bit_set(uint8_t *bits, int i, bool on)
{
    if (on)
        bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

static bool key_valid(int key)
{
    return key > ZE_KEY_UNKNOWN && key < ZE_KEY_COUNT;
}

bool ze_input_key_down(const ze_input_state_t *in, int key)
{
    return in && key_valid(key) && bit_get(in->keys, key);
}

bool ze_input_key_pressed(const ze_input_state_t *in, int key)
{
    return in && key_valid(key) && bit_get(in->keys, key) && !bit_get(in->previous, key);
}

bool ze_input_key_released(const ze_input_state_t *in, int key)
{
    return in && key_valid(key) && !bit_get(in->keys, key) && bit_get(in->previous, key);
}

bool ze_input_mouse_down(const ze_input_state_t *in, int button)
{
    return in && button >= 0 && button < ZE_MOUSE_BUTTON_COUNT &&
           ((in->mouse_buttons >> button) & 1u);
}

void ze_input_begin_frame(ze_input_state_t *state, uint64_t frame)
{
    memcpy(state->previous, state->keys, sizeof state->keys);
    state->previous_mouse_buttons = state->mouse_buttons;
    state->mouse_dx = state->mouse_dy = 0.0;
    state->scroll_x = state->scroll_y = 0.0;
    state->text_count = 0;
    state->frame = frame;
}

void ze_input_text(ze_input_state_t *state, uint32_t codepoint)
{
    if (state && state->text_count < ZE_INPUT_TEXT_MAX)
        state->text[state->text_count++] = codepoint;
}

/* ------------------------------------------------------------- key names */

static const struct {
    const char *name;
    int key;
} k_key_names[] = {
    {"SPACE", ZE_KEY_SPACE},
    {"ESCAPE", ZE_KEY_ESCAPE},
    {"ENTER", ZE_KEY_ENTER},
    {"TAB", ZE_KEY_TAB},
    {"BACKSPACE", ZE_KEY_BACKSPACE},
    {"RIGHT", ZE_KEY_RIGHT},
    {"LEFT", ZE_KEY_LEFT},
    {"DOWN", ZE_KEY_DOWN},
    {"UP", ZE_KEY_UP},
    {"LEFT_SHIFT", ZE_KEY_LEFT_SHIFT},
    {"LEFT_CONTROL", ZE_KEY_LEFT_CONTROL},
    {"LEFT_ALT", ZE_KEY_LEFT_ALT},
};

static char ascii_upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* Case-insensitive compare of name[0..len) with an upper-case literal. */
static bool name_eq(const char *name, size_t len, const char *upper)
{
    size_t n = strlen(upper);
    if (len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_upper(name[i]) != upper[i])
            return false;
    return true;
}

int ze_input_key_from_name(const char *name, size_t len)
{
    if (!name || len == 0)
        return ZE_KEY_UNKNOWN;
    if (len == 1) {
        char c = ascii_upper(name[0]);
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            return (int)c;
        return ZE_KEY_UNKNOWN;
    }
    /* F1..F12 */
    if ((len == 2 || len == 3) && ascii_upper(name[0]) == 'F' && name[1] >= '1' && name[1] <= '9') {
        int n = name[1] - '0';
        if (len == 3) {
            if (name[2] < '0' || name[2] > '9')
                return ZE_KEY_UNKNOWN;
            n = n * 10 + (name[2] - '0');
        }
        return n <= 12 ? ZE_KEY_F1 + n - 1 : ZE_KEY_UNKNOWN;
    }
    for (size_t i = 0; i < sizeof k_key_names / sizeof k_key_names[0]; i++)
        if (name_eq(name, len, k_key_names[i].name))
            return k_key_names[i].key;
    return ZE_KEY_UNKNOWN;
}

/* ----------------------------------------------------------------- replay */

typedef enum ev_kind {
    EV_KEY = 1,
    EV_MOUSE,
    EV_BUTTON,
    EV_SCROLL,
    EV_PAD_CONNECT,
    EV_PAD_AXIS,
    EV_PAD_BUTTON,
    EV_TEXT,
    EV_QUIT,
} ev_kind;

typedef struct replay_event_t {
    uint64_t frame;
    double x, y;   /* mouse position, scroll delta, axis value (x) */
    uint16_t code; /* key, mouse button, axis or gamepad button */
    uint8_t kind;  /* ev_kind */
    uint8_t pad;   /* gamepad index */
    uint8_t on;    /* down / connect */
    uint8_t unused[3];
} replay_event_t;

struct ze_input_replay_t {
    ze_allocator_t alloc;
    replay_event_t *events;
    uint32_t count, capacity;
    uint32_t cursor; /* first event not yet applied */
};

static ze_allocator_t alloc_or_default(ze_allocator_t a)
{
    return a.fn ? a : ze_mem_system_allocator();
}

typedef struct token_t {
    const char *s;
    size_t len;
} token_t;

typedef struct parser_t {
    const char *p, *end; /* the rest of the current line */
    uint32_t line;
    ze__input_replay_error_t *err;
} parser_t;

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool next_token(parser_t *ps, token_t *t)
{
    while (ps->p < ps->end && is_space(*ps->p))
        ps->p++;
    if (ps->p >= ps->end)
        return false;
    t->s = ps->p;
    while (ps->p < ps->end && !is_space(*ps->p))
        ps->p++;
    t->len = (size_t)(ps->p - t->s);
    return true;
}

/* A token quoted into a message: bounded, non-printable bytes shown as '?'. */
static void quote_token(const token_t *t, char *out, size_t cap)
{
    size_t n = t->len < REPLAY_TOKEN_QUOTE_MAX ? t->len : REPLAY_TOKEN_QUOTE_MAX;
    if (n + 4 > cap)
        n = cap - 4;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t->s[i];
        out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n < t->len) {
        out[o++] = '.';
        out[o++] = '.';
        out[o++] = '.';
    }
    out[o] = '\0';
}

static bool fail(parser_t *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(parser_t *ps, const char *fmt, ...)
{
    if (ps->err) {
        char *m = ps->err->message;
        size_t cap = sizeof ps->err->message;
        int n = ps->line ? snprintf(m, cap, "line %u: ", (unsigned)ps->line) : 0;
        if (n < 0 || (size_t)n >= cap)
            n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
        ps->err->line = ps->line;
    }
    return false;
}

static bool fail_token(parser_t *ps, const char *what, const token_t *t)
{
    char q[REPLAY_TOKEN_QUOTE_MAX + 4];
    quote_token(t, q, sizeof q);
    return fail(ps, "%s '%s'", what, q);
}

static bool tok_is(const token_t *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->s, word, n) == 0;
}

/* Unsigned decimal: digits only, no sign, no overflow. */
static bool tok_u64(const token_t *t, uint64_t *out)
{
    if (t->len == 0 || t->len > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < t->len; i++) {
        char c = t->s[i];
        if (c < '0' || c > '9')
            return false;
        uint64_t d = (uint64_t)(c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A finite decimal number: optional sign, digits, optional fraction and
 * exponent. Hex floats, inf and nan are refused (strtod would take them). */
static bool tok_number(const token_t *t, double *out)
{
    char buf[REPLAY_LINE_MAX + 1];
    if (t->len == 0 || t->len > REPLAY_LINE_MAX)
        return false;
    size_t i = 0;
    const char *s = t->s;
    if (s[i] == '+' || s[i] == '-')
        i++;
    size_t digits = 0;
    while (i < t->len && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < t->len && s[i] == '.') {
        i++;
        while (i < t->len && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (digits == 0)
        return false;
    if (i < t->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < t->len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t exp_digits = 0;
        while (i < t->len && s[i] >= '0' && s[i] <= '9')
            i++, exp_digits++;
        if (exp_digits == 0)
            return false;
    }
    if (i != t->len)
        return false;
    memcpy(buf, s, t->len);
    buf[t->len] = '\0';
    char *endp = NULL;
    double v = strtod(buf, &endp);
    if (endp != buf + t->len || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool need(parser_t *ps, token_t *t, const char *what)
{
    if (!next_token(ps, t))
        return fail(ps, "missing %s", what);
    return true;
}

/* An index token in 0..max. */
static bool need_index(parser_t *ps, const char *what, uint64_t max, uint64_t *out)
{
    token_t t = {0};
    if (!need(ps, &t, what))
        return false;
    uint64_t v;
    if (!tok_u64(&t, &v)) {
        char q[REPLAY_TOKEN_QUOTE_MAX + 4];
        quote_token(&t, q, sizeof q);
        return fail(ps, "%s '%s' is not a number", what, q);
    }
    if (v > max) {
        char q[REPLAY_TOKEN_QUOTE_MAX + 4];
        quote_token(&t, q, sizeof q);
        return fail(ps, "%s %s out of range 0..%u", what, q, (unsigned)max);
    }
    *out = v;
    return true;
}

static bool need_number(parser_t *ps, const char *what, double *out)
{
    token_t t = {0};
    if (!need(ps, &t, what))
        return false;
    if (!tok_number(&t, out)) {
        char q[REPLAY_TOKEN_QUOTE_MAX + 4];
        quote_token(&t, q, sizeof q);
        return fail(ps, "%s '%s' is not a finite number", what, q);
    }
    return true;
}

static bool need_word2(parser_t *ps, const char *a, const char *b, uint8_t *out_is_a)
{
    token_t t = {0};
    char what[64];
    snprintf(what, sizeof what, "%s|%s", a, b);
    if (!need(ps, &t, what))
        return false;
    if (tok_is(&t, a))
        *out_is_a = 1;
    else if (tok_is(&t, b))
        *out_is_a = 0;
    else {
        char q[REPLAY_TOKEN_QUOTE_MAX + 4];
        quote_token(&t, q, sizeof q);
        return fail(ps, "expected %s, got '%s'", what, q);
    }
    return true;
}

/* Parse the words after the frame number into `ev`. */
static bool parse_event(parser_t *ps, replay_event_t *ev)
{
    token_t t = {0};
    uint64_t v;
    if (!need(ps, &t, "event"))
        return false;
    if (tok_is(&t, "key")) {
        token_t name = {0};
        if (!need(ps, &name, "key name"))
            return false;
        int key = ze_input_key_from_name(name.s, name.len);
        if (key == ZE_KEY_UNKNOWN)
            return fail_token(ps, "unknown key", &name);
        ev->kind = EV_KEY;
        ev->code = (uint16_t)key;
        return need_word2(ps, "down", "up", &ev->on);
    }
    if (tok_is(&t, "mouse")) {
        ev->kind = EV_MOUSE;
        return need_number(ps, "mouse x", &ev->x) && need_number(ps, "mouse y", &ev->y);
    }
    if (tok_is(&t, "button")) {
        if (!need_index(ps, "mouse button", ZE_MOUSE_BUTTON_COUNT - 1, &v))
            return false;
        ev->kind = EV_BUTTON;
        ev->code = (uint16_t)v;
        return need_word2(ps, "down", "up", &ev->on);
    }
    if (tok_is(&t, "scroll")) {
        ev->kind = EV_SCROLL;
        return need_number(ps, "scroll dx", &ev->x) && need_number(ps, "scroll dy", &ev->y);
    }
    if (tok_is(&t, "gamepad")) {
        if (!need_index(ps, "gamepad", ZE_GAMEPAD_COUNT - 1, &v))
            return false;
        ev->pad = (uint8_t)v;
        token_t what;
        if (!need(ps, &what, "connect|disconnect|axis|button"))
            return false;
        if (tok_is(&what, "connect") || tok_is(&what, "disconnect")) {
            ev->kind = EV_PAD_CONNECT;
            ev->on = tok_is(&what, "connect");
            return true;
        }
        if (tok_is(&what, "axis")) {
            if (!need_index(ps, "gamepad axis", ZE_GAMEPAD_AXIS_COUNT - 1, &v))
                return false;
            ev->kind = EV_PAD_AXIS;
            ev->code = (uint16_t)v;
            if (!need_number(ps, "axis value", &ev->x))
                return false;
            if (ev->x < -1.0 || ev->x > 1.0)
                return fail(ps, "axis value %g out of range -1..1", ev->x);
            return true;
        }
        if (tok_is(&what, "button")) {
            if (!need_index(ps, "gamepad button", ZE_GAMEPAD_BUTTON_COUNT - 1, &v))
                return false;
            ev->kind = EV_PAD_BUTTON;
            ev->code = (uint16_t)v;
            return need_word2(ps, "down", "up", &ev->on);
        }
        return fail_token(ps, "unknown gamepad event", &what);
    }
    if (tok_is(&t, "text")) {
        if (!need_index(ps, "codepoint", 0x10FFFF, &v))
            return false;
        if (v == 0)
            return fail(ps, "codepoint 0 is not text");
        ev->kind = EV_TEXT;
        ev->x = (double)v; /* above code's 16 bits */
        return true;
    }
    if (tok_is(&t, "quit")) {
        ev->kind = EV_QUIT;
        return true;
    }
    return fail_token(ps, "unknown event", &t);
}

static ze_result push_event(ze_input_replay_t *r, const replay_event_t *ev)
{
    if (r->count == r->capacity) {
        uint32_t cap = r->capacity ? r->capacity * 2 : 64;
        if (cap > REPLAY_EVENT_MAX)
            cap = REPLAY_EVENT_MAX;
        void *p = ze_realloc(r->alloc, r->events, sizeof *r->events * r->capacity,
                             sizeof *r->events * cap, _Alignof(replay_event_t));
        if (!p)
            return ZE_ERR_OUT_OF_MEMORY;
        r->events = p;
        r->capacity = cap;
    }
    r->events[r->count++] = *ev;
    return ZE_OK;
}

ze_result ze__input_replay_parse(const char *text, size_t len, ze_allocator_t alloc,
                                 ze_input_replay_t **out, ze__input_replay_error_t *err)
{
    if (err) {
        err->line = 0;
        err->message[0] = '\0';
    }
    if (!out || (!text && len))
        return ZE_ERR_INVALID_ARG;
    *out = NULL;
    alloc = alloc_or_default(alloc);
    ze_input_replay_t *r = ZE_NEW(alloc, ze_input_replay_t);
    if (!r) {
        if (err)
            snprintf(err->message, sizeof err->message, "out of memory");
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(r, 0, sizeof *r);
    r->alloc = alloc;

    parser_t ps = {.err = err};
    ze_result res = ZE_OK;
    uint64_t last_frame = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - line) : len - pos;
        pos += line_len + (nl ? 1 : 0);
        ps.line++;
        if (line_len > REPLAY_LINE_MAX) {
            fail(&ps, "longer than %d bytes", REPLAY_LINE_MAX);
            res = ZE_ERR_PARSE;
            break;
        }
        if (line_len && line[line_len - 1] == '\r')
            line_len--; /* CRLF files */
        if (memchr(line, '\0', line_len)) {
            fail(&ps, "NUL byte");
            res = ZE_ERR_PARSE;
            break;
        }
        const char *hash = memchr(line, '#', line_len);
        ps.p = line;
        ps.end = hash ? hash : line + line_len;

        token_t t = {0};
        if (!next_token(&ps, &t))
            continue; /* blank or comment */
        replay_event_t ev;
        memset(&ev, 0, sizeof ev);
        if (!tok_u64(&t, &ev.frame)) {
            fail_token(&ps, "expected a frame number, got", &t);
            res = ZE_ERR_PARSE;
            break;
        }
        if (r->count && ev.frame < last_frame) {
            fail(&ps, "frame %llu is before frame %llu", (unsigned long long)ev.frame,
                 (unsigned long long)last_frame);
            res = ZE_ERR_PARSE;
            break;
        }
        if (!parse_event(&ps, &ev)) {
            res = ZE_ERR_PARSE;
            break;
        }
        if (next_token(&ps, &t)) {
            fail_token(&ps, "trailing", &t);
            res = ZE_ERR_PARSE;
            break;
        }
        if (r->count >= REPLAY_EVENT_MAX) {
            fail(&ps, "more than %d events", REPLAY_EVENT_MAX);
            res = ZE_ERR_PARSE;
            break;
        }
        res = push_event(r, &ev);
        if (res != ZE_OK) {
            fail(&ps, "out of memory");
            break;
        }
        last_frame = ev.frame;
    }
    if (res != ZE_OK) {
        ze_input_replay_destroy(r);
        return res;
    }
    *out = r;
    return ZE_OK;
}

void ze_input_replay_destroy(ze_input_replay_t *r)
{
    if (!r)
        return;
    ze_allocator_t a = r->alloc;
    ze_free(a, r->events, sizeof *r->events * r->capacity);
    ze_free(a, r, sizeof *r);
}

uint32_t ze_input_replay_event_count(const ze_input_replay_t *r)
{
    return r ? r->count : 0;
}

static void apply_event(const replay_event_t *ev, ze_input_state_t *s)
{
    switch ((ev_kind)ev->kind) {
    case EV_KEY:
        bit_set(s->keys, ev->code, ev->on);
        break;
    case EV_MOUSE:
        s->mouse_dx += ev->x - s->mouse_x;
        s->mouse_dy += ev->y - s->mouse_y;
        s->mouse_x = ev->x;
        s->mouse_y = ev->y;
        break;
    case EV_BUTTON:
        if (ev->on)
            s->mouse_buttons |= 1u << ev->code;
        else
            s->mouse_buttons &= ~(1u << ev->code);
        break;
    case EV_SCROLL:
        s->scroll_x += ev->x;
        s->scroll_y += ev->y;
        break;
    case EV_PAD_CONNECT: {
        /* A (re)connected or removed pad starts from rest. */
        ze_gamepad_state_t *g = &s->gamepads[ev->pad];
        memset(g, 0, sizeof *g);
        g->connected = ev->on;
        break;
    }
    case EV_PAD_AXIS:
        s->gamepads[ev->pad].axes[ev->code] = (float)ev->x;
        break;
    case EV_PAD_BUTTON:
        if (ev->on)
            s->gamepads[ev->pad].buttons |= 1u << ev->code;
        else
            s->gamepads[ev->pad].buttons &= ~(1u << ev->code);
        break;
    case EV_TEXT:
        ze_input_text(s, (uint32_t)ev->x);
        break;
    case EV_QUIT:
        s->quit_requested = true;
        break;
    }
}

void ze_input_replay_apply(ze_input_replay_t *r, uint64_t frame, ze_input_state_t *state)
{
    if (!r || !state)
        return;
    /* Going back in time (a restarted run): find the frame's first event.
       Applying the same frame twice applies nothing the second time. */
    if (r->cursor > 0 && r->events[r->cursor - 1].frame > frame) {
        uint32_t lo = 0, hi = r->cursor;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (r->events[mid].frame < frame)
                lo = mid + 1;
            else
                hi = mid;
        }
        r->cursor = lo;
    }
    /* Frames that were never applied are skipped, not replayed late. */
    while (r->cursor < r->count && r->events[r->cursor].frame < frame)
        r->cursor++;
    while (r->cursor < r->count && r->events[r->cursor].frame == frame)
        apply_event(&r->events[r->cursor++], state);
}

ze_result ze_input_replay_parse(const char *text, size_t len, ze_allocator_t alloc,
                                ze_input_replay_t **out, const ze_diag_sink_t *diag)
{
    ze__input_replay_error_t err;
    ze_result r = ze__input_replay_parse(text, len, alloc, out, &err);
    if (r != ZE_OK)
        ze_diag(diag, ZE_LOG_ERROR, r, "engine", "input replay", "%s",
                err.message[0] ? err.message : ze_result_str(r));
    return r;
}
