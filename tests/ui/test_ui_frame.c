/* The frame and the box tree: keys ("##" suffixes, "###" ids, key paths),
 * a duplicate key reported (and logged once, never merged), a tree deeper
 * than the limit an error naming the key path, unbalanced push/pop,
 * eviction of unbuilt state, create/begin/end misuse, zero heap
 * allocations per frame after two warm-up frames (mem's counters), the
 * draw list growing past its first capacity and an exhausted budget
 * leaving it empty with an error (never truncated), an exhausted frame
 * arena, invalid UTF-8 drawn as U+FFFD without reading past the run, and
 * the instances a button produces. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ui_test_util.h"

/* ------------------------------------------------------------------ keys */

typedef struct keys_t {
    int d1, d2;
    bool open_seen;
    int score;
} keys_t;

static void build_keys(ze_ui_t *ui, void *user)
{
    keys_t *k = user;
    ze_ui_window_begin(ui, "W", &(ze_ui_window_desc_t){.width = 400, .height = 300});
    k->d1 += ze_ui_button(ui, "Delete##1");
    k->d2 += ze_ui_button(ui, "Delete##2");
    char title[32];
    snprintf(title, sizeof title, "Score %d###score", k->score);
    k->open_seen = ze_ui_tree_begin(ui, title);
    if (k->open_seen)
        ze_ui_tree_end(ui);
    ze_ui_window_end(ui);
}

static void test_keys_suffixes_and_paths(void **state)
{
    (void)state;
    keys_t k = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_keys, &k);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_key_child(ze_ui_key_root(), "W").id == ze_ui_key_path("W").id);
    assert_true(ze_ui_key_path("W/Delete##1").id != ze_ui_key_path("W/Delete##2").id);
    /* Both show "Delete": the same width. */
    ze_ui_rect_t a = ut_rect(&t, "W/Delete##1"), b = ut_rect(&t, "W/Delete##2");
    assert_true(a.x1 - a.x0 == b.x1 - b.x0);
    assert_true(a.x1 - a.x0 == 6 * 8 + 2 * 8); /* six glyphs, padding 8 each side */
    ut_click(&t, "W/Delete##2");
    assert_int_equal(k.d1, 0);
    assert_int_equal(k.d2, 1);
    /* "###score": the shown text changes, the key (and its state) stays. */
    ut_click(&t, "W/###score");
    assert_true(k.open_seen);
    k.score = 42;
    ut_frames(&t, 2);
    assert_true(k.open_seen);
    assert_int_equal(g_ut_log.errors, 0);
    ut_fini(&t);
}

/* ------------------------------------------------------------ duplicates */

typedef struct dup_t {
    int first, second;
} dup_t;

static void build_dup(ze_ui_t *ui, void *user)
{
    dup_t *d = user;
    ze_ui_window_begin(ui, "W", &(ze_ui_window_desc_t){.width = 400, .height = 300});
    d->first += ze_ui_button(ui, "Same");
    d->second += ze_ui_button(ui, "Same");
    ze_ui_window_end(ui);
}

static void test_duplicate_key_reported(void **state)
{
    (void)state;
    dup_t d = {0};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_dup, &d);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    assert_int_equal(g_ut_log.errors, 1);
    assert_non_null(strstr(g_ut_log.last, "duplicate key 'W/Same'"));
    /* Never merged: one state for "Same" (window, title, content, grip,
       Same). */
    assert_int_equal(ze_ui_stats(t.ui).states, 5);
    /* The same problem every frame is logged once. */
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    assert_int_equal(g_ut_log.errors, 1);
    /* The first box works; the second takes no input. */
    ze_ui_rect_t r = ut_rect(&t, "W/Same");
    ut_move(&t, (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
    ut_button(&t, true);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    ut_button(&t, false);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    assert_int_equal(d.first, 1);
    float below = r.y1 + 10; /* the second button, under the first */
    ut_move(&t, (r.x0 + r.x1) / 2, below);
    ut_button(&t, true);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    ut_button(&t, false);
    assert_int_equal(ut_frame(&t), ZE_ERR_EXISTS);
    assert_int_equal(d.first, 1);
    assert_int_equal(d.second, 0);
    ut_fini(&t);
}

/* ----------------------------------------------------------------- depth */

typedef struct deep_t {
    int levels;
    ze_ui_box_t *deepest;
} deep_t;

static void build_deep(ze_ui_t *ui, void *user)
{
    deep_t *d = user;
    for (int i = 0; i < d->levels; i++) {
        char name[24];
        snprintf(name, sizeof name, "d%d", i);
        d->deepest = ze_ui_push_box(ui, name,
                                    &(ze_ui_box_desc_t){.text = "deep",
                                                        .width = ze_ui_text_size(1),
                                                        .height = ze_ui_text_size(1)});
    }
    for (int i = 0; i < d->levels; i++)
        ze_ui_pop_box(ui);
    ze_ui_label(ui, "after");
}

static void test_tree_deeper_than_limit(void **state)
{
    (void)state;
    deep_t d = {.levels = 8};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){.max_depth = 8}, build_deep, &d);
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("d0/d1/d2/d3/d4/d5/d6/d7")));
    d.levels = 12;
    assert_int_equal(ut_frame(&t), ZE_ERR_LIMIT);
    assert_non_null(strstr(g_ut_log.last, "deeper than 8"));
    assert_non_null(strstr(g_ut_log.last, "'d0/d1/d2/d3/d4/d5/d6/d7/d8'"));
    /* What is below the limit is a stand-in: no key, no rect, no drawing;
     * the rest of the tree (balanced pops, "after") still lays out. */
    assert_true(ze_ui_box_key(d.deepest).id == 0);
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("d0/d1/d2/d3/d4/d5/d6/d7/d8")));
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    assert_int_equal(dl.count, 8 * 4 + 5); /* "deep" at 8 levels, then "after" */
    d.levels = 3;
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_fini(&t);
}

static void test_create_and_frame_misuse(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, NULL, NULL);
    ze_ui_t *ui = NULL;
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){0}, &ui), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){.mem = t.mm, .max_depth = 5000}, &ui),
                     ZE_ERR_INVALID_ARG);
    static const char not_a_font[64] = "definitely not a TrueType font";
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){.mem = t.mm,
                                                  .font = {.ttf_data = not_a_font,
                                                           .ttf_size = sizeof not_a_font}},
                                  &ui),
                     ZE_ERR_PARSE);
    assert_null(ui);
    /* A zero desc (but the manager) works: the fixed font, 8 x 16. */
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){.mem = t.mm}, &ui), ZE_OK);
    assert_true(ze_ui_line_height(ui) == 16.0f);
    ze_ui_destroy(ui);

    assert_int_equal(ze_ui_end_frame(t.ui), ZE_ERR_STATE);
    assert_int_equal(ze_ui_begin_frame(t.ui, 100, 100, 0.0f, NULL, 0), ZE_OK);
    assert_int_equal(ze_ui_begin_frame(t.ui, 100, 100, 0.0f, NULL, 0), ZE_ERR_STATE);
    ze_ui_push_box(t.ui, "open", NULL); /* never popped */
    assert_int_equal(ze_ui_end_frame(t.ui), ZE_ERR_STATE);
    assert_non_null(strstr(g_ut_log.last, "still open at 'open'"));
    assert_int_equal(ze_ui_begin_frame(t.ui, 100, 100, 0.0f, NULL, 0), ZE_OK);
    ze_ui_pop_box(t.ui); /* too many pops */
    assert_int_equal(ze_ui_end_frame(t.ui), ZE_ERR_STATE);
    assert_int_equal(ze_ui_begin_frame(t.ui, 100, 100, 0.0f, NULL, 0), ZE_OK);
    assert_int_equal(ze_ui_end_frame(t.ui), ZE_OK);
    ut_fini(&t);
}

/* -------------------------------------------------------------- eviction */

static void build_maybe(ze_ui_t *ui, void *user)
{
    bool *show = user;
    ze_ui_button(ui, "Stay");
    if (*show)
        ze_ui_button(ui, "Gone");
}

static void test_state_evicted_when_not_built(void **state)
{
    (void)state;
    bool show = true;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_maybe, &show);
    ut_frames(&t, 1);
    assert_true(ze_ui_key_alive(t.ui, ze_ui_key_path("Gone")));
    assert_int_equal(ze_ui_stats(t.ui).states, 2);
    ut_click(&t, "Gone");
    assert_true(ze_ui_focus(t.ui).id == ze_ui_key_path("Gone").id);
    show = false;
    ut_frames(&t, 1);
    assert_false(ze_ui_key_alive(t.ui, ze_ui_key_path("Gone")));
    assert_false(ze_ui_key_rect(t.ui, ze_ui_key_path("Gone"), NULL));
    assert_int_equal(ze_ui_stats(t.ui).states, 1);
    assert_true(ze_ui_focus(t.ui).id == 0); /* the focus went with it */
    ut_fini(&t);
}

/* ------------------------------------------------- zero allocations */

typedef struct rich_t {
    bool check;
    float value;
    char text[64];
    int frame;
} rich_t;

static void build_rich(ze_ui_t *ui, void *user)
{
    rich_t *r = user;
    r->frame++;
    ze_ui_window_begin(ui, "Stats",
                       &(ze_ui_window_desc_t){.x = 10, .y = 10, .width = 380, .height = 560});
    ze_ui_labelf(ui, "frame %d", r->frame);
    ze_ui_button(ui, "Pause");
    ze_ui_checkbox(ui, "Wireframe", &r->check);
    ze_ui_slider_float(ui, "Exposure", &r->value, 0.0f, 4.0f);
    ze_ui_text_field(ui, "Filter", r->text, sizeof r->text);
    if (ze_ui_tree_begin(ui, "Owners")) {
        for (int i = 0; i < 8; i++)
            ze_ui_labelf(ui, "owner %d: %d KiB", i, i * 64 + r->frame % 7);
        ze_ui_tree_end(ui);
    }
    ze_ui_scroll_begin(ui, "Log", ze_ui_pct(1, 0), ze_ui_px(200, 1));
    for (int i = 0; i < 200; i++)
        ze_ui_labelf(ui, "[info ] line %d of the log \xe2\x80\x94 %d", i, r->frame);
    ze_ui_scroll_end(ui);
    ze_ui_window_end(ui);
    ze_ui_window_begin(ui, "Other", &(ze_ui_window_desc_t){.x = 420, .y = 10});
    ze_ui_button(ui, "Pause"); /* same label, another window */
    ze_ui_window_end(ui);
}

/* Edits that allocate undo history and the context's own clipboard. */
static void type_and_cut(ut_t *t)
{
    ut_type(t, "h\xc3\xa9llo");
    assert_int_equal(ut_frame(t), ZE_OK);
    ut_key(t, ZE_UI_KEY_A, ZE_UI_MOD_CTRL);
    ut_key(t, ZE_UI_KEY_X, ZE_UI_MOD_CTRL);
    ut_key(t, ZE_UI_KEY_Z, ZE_UI_MOD_CTRL);
    assert_int_equal(ut_frame(t), ZE_OK);
}

static void test_zero_allocations_per_frame(void **state)
{
    (void)state;
    rich_t r = {.value = 1.0f};
    strcpy(r.text, "caf\xc3\xa9");
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_rich, &r);
    ut_frames(&t, 1);
    ut_click(&t, "Stats/Owners"); /* open the tree */
    ut_click(&t, "Stats/Filter"); /* focus the text field */
    ut_frames(&t, 2);             /* the two warm-up frames of this tree */
    uint64_t before = ze_mem_allocation_count(t.mm);
    for (int i = 0; i < 60; i++) {
        ut_move(&t, 20.0f + (float)(i * 7 % 360), 20.0f + (float)(i * 13 % 540)); /* hover moves */
        if (i % 10 == 0)
            ut_key(&t, ZE_UI_KEY_TAB, 0);
        assert_int_equal(ut_frame(&t), ZE_OK);
    }
    assert_int_equal(ze_mem_allocation_count(t.mm), before);
    assert_true(ze_ui_stats(t.ui).instances > 200);
    ut_fini(&t);
}

/* ------------------------------------------------------------- draw list */

typedef struct many_t {
    int n;
} many_t;

static void build_many(ze_ui_t *ui, void *user)
{
    many_t *m = user;
    for (int i = 0; i < m->n; i++)
        ze_ui_label(ui, "x");
}

static void test_draw_list_grows_never_truncates(void **state)
{
    (void)state;
    many_t m = {.n = 3000};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_many, &m);
    t.w = 1000;
    t.h = 100000; /* every label visible */
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    assert_int_equal(dl.count, 3000);
    assert_int_equal(dl.instances[2999].kind, ZE_UI_INSTANCE_GLYPH);
    ut_assert_rect(dl.instances[2999].rect, 0, 2999 * 16, 8, 3000 * 16);

    /* The next growth refused: the frame fails and the list is empty. */
    m.n = 5000;
    assert_int_equal(ze_ui_begin_frame(t.ui, t.w, t.h, 0.016f, NULL, 0), ZE_OK);
    build_many(t.ui, &m);
    ze_mem_fault_fail_nth(t.mm, 1);
    assert_int_equal(ze_ui_end_frame(t.ui), ZE_ERR_BUDGET);
    ze_mem_fault_fail_nth(t.mm, 0);
    assert_int_equal(ze_ui_draw_list(t.ui).count, 0);
    assert_non_null(strstr(g_ut_log.last, "draw list cannot grow to 5000"));
    assert_int_equal(ut_frame(&t), ZE_OK);
    assert_int_equal(ze_ui_draw_list(t.ui).count, 5000);
    ut_fini(&t);
}

static void test_frame_arena_exhausted(void **state)
{
    (void)state;
    many_t m = {.n = 5000};
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){.frame_memory = 64 << 10}, build_many, &m);
    assert_int_equal(ut_frame(&t), ZE_ERR_BUDGET);
    assert_non_null(strstr(g_ut_log.last, "frame arena exhausted"));
    uint32_t drawn = ze_ui_draw_list(t.ui).count;
    assert_true(drawn > 0 && drawn < 5000); /* what was built is laid out and drawn */
    m.n = 10;
    assert_int_equal(ut_frame(&t), ZE_OK);
    ut_fini(&t);
}

static void build_button(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_button(ui, "Go");
}

static void test_button_instances(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_button, NULL);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_style_t st = ze_ui_style_default();
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    assert_int_equal(dl.count, 3);
    assert_int_equal(dl.width, UT_W);
    const ze_ui_instance_t *bg = &dl.instances[0];
    assert_int_equal(bg->kind, ZE_UI_INSTANCE_RECT);
    ut_assert_rect(bg->rect, 0, 0, 2 * 8 + 16, 16 + 8); /* padding 8 x 4 */
    ut_assert_rect(bg->clip, 0, 0, UT_W, UT_H);
    assert_int_equal(bg->color, st.colors[ZE_UI_COLOR_BUTTON]);
    assert_int_equal(bg->border_color, st.colors[ZE_UI_COLOR_BORDER]);
    assert_true(bg->corner_radius == st.corner_radius && bg->border_width == st.border_width);
    ut_assert_rect(dl.instances[1].rect, 8, 4, 16, 20); /* centred */
    assert_int_equal(dl.instances[1].codepoint, 'G');
    assert_int_equal(dl.instances[2].codepoint, 'o');
    assert_int_equal(dl.instances[1].color, st.colors[ZE_UI_COLOR_TEXT]);
    /* Glyph texture coordinates lie in the atlas. */
    ze_ui_atlas_t at = ze_ui_font_atlas(t.ui);
    assert_non_null(at.pixels);
    assert_true(dl.instances[1].uv.x1 <= 1.0f && dl.instances[1].uv.x0 >= 0.0f);
    uint32_t tx = (uint32_t)(dl.instances[1].uv.x0 * (float)at.width + 0.5f);
    uint32_t ty = (uint32_t)(dl.instances[1].uv.y0 * (float)at.height + 0.5f);
    assert_int_equal(at.pixels[ty * at.width + tx], 255); /* the fixed font is solid */
    /* Hover changes the colour; focus adds the focus border. */
    ut_click(&t, "Go");
    ut_frames(&t, 1);
    bg = &ze_ui_draw_list(t.ui).instances[0];
    assert_int_equal(bg->color, st.colors[ZE_UI_COLOR_BUTTON_HOT]);
    assert_int_equal(bg->border_color, st.colors[ZE_UI_COLOR_FOCUS]);
    ut_fini(&t);
}

/* ------------------------------------------------------------ bad UTF-8 */

static void build_bad_text(ze_ui_t *ui, void *user)
{
    (void)user;
    ze_ui_label(ui, "a\xff\xc3(b\xe2\x82");
}

static void test_invalid_utf8_replacement(void **state)
{
    (void)state;
    ut_t t;
    ut_init(&t, (ze_ui_desc_t){0}, build_bad_text, NULL);
    assert_int_equal(ut_frame(&t), ZE_OK);
    ze_ui_draw_list_t dl = ze_ui_draw_list(t.ui);
    const uint32_t want[] = {'a', 0xfffd, 0xfffd, '(', 'b', 0xfffd, 0xfffd};
    assert_int_equal(dl.count, ZE_COUNTOF(want));
    ze_ui_glyph_info_t repl;
    ze_ui_glyph_info(t.ui, 0xfffd, &repl);
    for (uint32_t i = 0; i < dl.count; i++) {
        assert_int_equal(dl.instances[i].codepoint, want[i]);
        if (want[i] == 0xfffd) /* the replacement box's texels */
            assert_memory_equal(&dl.instances[i].uv, &repl.uv, sizeof repl.uv);
    }

    /* Runs given with a length are never read past: the run ends at a page
     * the process may not read. */
    long page = sysconf(_SC_PAGESIZE);
    char *mem =
        mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    assert_int_equal(mprotect(mem + page, (size_t)page, PROT_NONE), 0);
    char *end = mem + page;
    memcpy(end - 2, "\xe2\x82", 2); /* a truncated € right before the guard */
    uint32_t cp = 0;
    assert_int_equal(ze_ui_utf8_decode(end - 2, 2, &cp), 1);
    assert_int_equal(cp, 0xfffd);
    assert_int_equal(ze_ui_utf8_decode(end - 1, 1, &cp), 1);
    assert_int_equal(cp, 0xfffd);
    assert_int_equal(ze_ui_utf8_decode(end, 0, &cp), 0);
    assert_true(ze_ui_text_width(t.ui, end - 2, 2) == 16.0f);
    memcpy(end - 4, "\xf0\x9f\x98\x80", 4); /* a whole 4-byte sequence */
    assert_int_equal(ze_ui_utf8_decode(end - 4, 4, &cp), 4);
    assert_int_equal(cp, 0x1f600);
    assert_int_equal(ze_ui_utf8_decode(end - 4, 3, &cp), 1); /* cut short by len */
    munmap(mem, (size_t)page * 2);
    ut_fini(&t);
}

static void test_destroy_releases_everything(void **state)
{
    (void)state;
    /* Pass-through mode counts live block bytes: after destroy the UI
     * owner holds nothing (frame arenas, state table, atlas, draw list,
     * text-edit history, clipboard all returned). */
    rich_t r = {0};
    ze_mem_t *mm = NULL;
    ze_log_configure(&(ze_log_desc_t){.quiet = true, .sink = ut_sink});
    assert_int_equal(ze_mem_create(&(ze_mem_desc_t){.passthrough = 1}, &mm), ZE_OK);
    ut_t t = {.mm = mm, .w = UT_W, .h = UT_H, .build = build_rich, .user = &r};
    assert_int_equal(ze_ui_create(&(ze_ui_desc_t){.mem = mm}, &t.ui), ZE_OK);
    ut_frames(&t, 1);
    ut_click(&t, "Stats/Filter");
    type_and_cut(&t);
    assert_true(ze_mem_owner_stats(t.mm, ZE_MEM_OWNER_UI).current > 0);
    ze_ui_destroy(t.ui);
    assert_int_equal(ze_mem_owner_stats(t.mm, ZE_MEM_OWNER_UI).current, 0);
    assert_int_equal(ze_mem_owner_stats(t.mm, ZE_MEM_OWNER_UI).regions, 0);
    ze_mem_destroy(mm);
    ze_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_suffixes_and_paths),
        cmocka_unit_test(test_duplicate_key_reported),
        cmocka_unit_test(test_tree_deeper_than_limit),
        cmocka_unit_test(test_create_and_frame_misuse),
        cmocka_unit_test(test_state_evicted_when_not_built),
        cmocka_unit_test(test_zero_allocations_per_frame),
        cmocka_unit_test(test_draw_list_grows_never_truncates),
        cmocka_unit_test(test_frame_arena_exhausted),
        cmocka_unit_test(test_button_instances),
        cmocka_unit_test(test_invalid_utf8_replacement),
        cmocka_unit_test(test_destroy_releases_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
