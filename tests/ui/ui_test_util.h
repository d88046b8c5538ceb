/* The ui tests' fixture: a memory manager, a context (the fixed-metric
 * font, 8 x 16, unless the test passes a TTF), a queue of scripted events
 * and helpers that aim at boxes by key path (Dear ImGui test-engine
 * style): each frame runs the test's build function between begin_frame
 * and end_frame, with the events queued since the last frame. Errors the
 * ui logs are captured (count and last message). */
#ifndef ZE_TESTS_UI_TEST_UTIL_H
#define ZE_TESTS_UI_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "zengine/ui.h"

enum { UT_W = 800, UT_H = 600, UT_MAX_EVENTS = 256 };

typedef void (*ut_build_fn)(ze_ui_t *ui, void *user);

typedef struct ut_t {
    ze_mem_t *mm;
    ze_ui_t *ui;
    ze_ui_event_t ev[UT_MAX_EVENTS];
    uint32_t n;
    uint32_t w, h;
    ut_build_fn build;
    void *user;
    float mx, my;
} ut_t;

typedef struct ut_log_t {
    uint32_t errors;
    char last[ZE_LOG_MESSAGE_MAX];
} ut_log_t;
static ut_log_t g_ut_log;

static inline void ut_sink(void *user, const ze_log_record_t *r)
{
    (void)user;
    if (r->level >= ZE_LOG_ERROR) {
        g_ut_log.errors++;
        memcpy(g_ut_log.last, r->message, sizeof g_ut_log.last);
    }
}

static inline void ut_init(ut_t *t, ze_ui_desc_t d, ut_build_fn build, void *user)
{
    memset(t, 0, sizeof *t);
    memset(&g_ut_log, 0, sizeof g_ut_log);
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = ut_sink});
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){0}, &t->mm), ZE_OK);
    d.mem = t->mm;
    if (!d.font.ttf_data)
        d.font.fixed = true;
    assert_int_equal(ze_ui_create(&d, &t->ui), ZE_OK);
    t->w = UT_W;
    t->h = UT_H;
    t->build = build;
    t->user = user;
}

static inline void ut_fini(ut_t *t)
{
    ze_ui_destroy(t->ui);
    ze_mem_destroy(t->mm);
    ze_log_reset();
}

static inline void ut_push(ut_t *t, ze_ui_event_t e)
{
    assert_true(t->n < UT_MAX_EVENTS);
    t->ev[t->n++] = e;
}

/* One frame with the queued events; returns end_frame's result. */
static inline ze_result ut_frame(ut_t *t)
{
    assert_int_equal(ze_ui_begin_frame(t->ui, t->w, t->h, 1.0f / 60.0f, t->ev, t->n), ZE_OK);
    t->n = 0;
    if (t->build)
        t->build(t->ui, t->user);
    return ze_ui_end_frame(t->ui);
}

static inline void ut_frames(ut_t *t, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(ut_frame(t), ZE_OK);
}

static inline void ut_move(ut_t *t, float x, float y)
{
    t->mx = x;
    t->my = y;
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_MOVE, .x = x, .y = y});
}

static inline void ut_button(ut_t *t, bool down)
{
    ut_push(t, (ze_ui_event_t){
                   .type = ZE_UI_EVENT_MOUSE_BUTTON, .button = ZE_UI_MOUSE_LEFT, .down = down});
}

static inline void ut_key(ut_t *t, uint32_t key, uint32_t mods)
{
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_KEY, .key = key, .mods = mods, .down = true});
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_KEY, .key = key, .mods = mods, .down = false});
}

static inline void ut_nav(ut_t *t, uint32_t nav)
{
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_NAV, .nav = nav});
}

static inline void ut_wheel(ut_t *t, float dy)
{
    ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_MOUSE_WHEEL, .y = dy});
}

/* Text input: one TEXT event per codepoint of utf8. */
static inline void ut_type(ut_t *t, const char *utf8)
{
    size_t len = strlen(utf8);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += ze_ui_utf8_decode(utf8 + i, len - i, &cp);
        ut_push(t, (ze_ui_event_t){.type = ZE_UI_EVENT_TEXT, .codepoint = cp});
    }
}

static inline ze_ui_rect_t ut_rect(ut_t *t, const char *path)
{
    ze_ui_rect_t r = {0};
    bool alive = ze_ui_key_rect(t->ui, ze_ui_key_path(path), &r);
    if (!alive)
        print_error("no box at key path '%s'\n", path);
    assert_true(alive);
    return r;
}

/* Press and release over the centre of the box at `path`: two frames. */
static inline void ut_click(ut_t *t, const char *path)
{
    ze_ui_rect_t r = ut_rect(t, path);
    ut_move(t, (r.x0 + r.x1) * 0.5f, (r.y0 + r.y1) * 0.5f);
    ut_button(t, true);
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_button(t, false);
    assert_int_equal(ut_frame(t), ZE_OK);
}

static inline bool ut_near(float a, float b)
{
    float d = a - b;
    return d <= 1e-3f && d >= -1e-3f;
}

static inline void ut_assert_rect(ze_ui_rect_t r, float x0, float y0, float x1, float y1)
{
    if (!(ut_near(r.x0, x0) && ut_near(r.y0, y0) && ut_near(r.x1, x1) && ut_near(r.y1, y1))) {
        print_error("rect (%g, %g, %g, %g), expected (%g, %g, %g, %g)\n", (double)r.x0,
                    (double)r.y0, (double)r.x1, (double)r.y1, (double)x0, (double)y0, (double)x1,
                    (double)y1);
        fail();
    }
}

#endif /* ZE_TESTS_UI_TEST_UTIL_H */
