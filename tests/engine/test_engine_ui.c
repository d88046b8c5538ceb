/* The engine's UI wiring on the null backend, headless: the context the
 * engine owns reaches on_render_ui with its frame open, the overlay
 * (instances and the glyph atlas) crosses the overlay mailbox to the
 * backend, and scripted input (--input: mouse, buttons, text) becomes
 * ZUI events: a click on a button built in on_render_ui is seen, a text
 * field takes typed text, and the engine says when the UI wants the mouse
 * and the keyboard. A slow backend (one that misses UI frames) never holds
 * the simulation back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"
#include "engine/engine_internal.h"

/* Where the test's widgets are: floating boxes at known positions, so a
 * script written before the run can aim at them. */
enum { BTN_X = 200, BTN_Y = 150, FIELD_X = 200, FIELD_Y = 250 };

typedef struct probe_t {
    uint32_t ui_calls;
    bool same_context;
    uint32_t clicks;
    uint64_t click_frame;
    ze_ui_rect_t button;
    bool have_button;
    char text[32];
    bool wanted_mouse, wanted_keyboard; /* seen from on_update */
    uint64_t mouse_frame, keyboard_frame;
    /* what the game saw (ze_engine_input), by frame: left presses, W
       presses, typed characters, wheel */
    uint64_t game_press[8], game_key[8], game_text[8], game_wheel[8];
    uint32_t game_presses, game_keys, game_texts, game_wheels;
    ze_render_stats_t closing; /* the backend's stats at on_closing */
    uint32_t last_instances;   /* the UI's own draw list at on_closing: the last frame's */
} probe_t;

static void record(uint64_t *frames, uint32_t *n, uint64_t frame)
{
    if (*n < 8)
        frames[*n] = frame;
    (*n)++;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    probe_t *p = user;
    const ze_input_state_t *in = ze_engine_input(e);
    uint64_t f = ze_engine_frame_index(e);
    if ((in->mouse_buttons & 1u) && !(in->previous_mouse_buttons & 1u))
        record(p->game_press, &p->game_presses, f);
    if (ze_input_key_pressed(in, 'W'))
        record(p->game_key, &p->game_keys, f);
    if (in->text_count)
        record(p->game_text, &p->game_texts, f);
    if (in->scroll_y != 0.0)
        record(p->game_wheel, &p->game_wheels, f);
    if (ze_engine_ui_wants_mouse(e) && !p->wanted_mouse) {
        p->wanted_mouse = true;
        p->mouse_frame = ze_engine_frame_index(e);
    }
    if (ze_engine_ui_wants_keyboard(e) && !p->wanted_keyboard) {
        p->wanted_keyboard = true;
        p->keyboard_frame = ze_engine_frame_index(e);
    }
}

static void on_render_ui(ze_engine_t *e, ze_ui_t *ui, void *user)
{
    probe_t *p = user;
    p->ui_calls++;
    p->same_context = ui && ui == ze_engine_ui(e);
    if (!ui)
        return;
    ze_ui_push_box(ui, "at",
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING, .x = BTN_X, .y = BTN_Y});
    if (ze_ui_button(ui, "Hit me")) {
        p->clicks++;
        p->click_frame = ze_engine_frame_index(e);
    }
    ze_ui_pop_box(ui);
    ze_ui_push_box(ui, "field at",
                   &(ze_ui_box_desc_t){.flags = ZE_UI_BOX_FLOATING, .x = FIELD_X, .y = FIELD_Y});
    ze_ui_text_field(ui, "Name", p->text, sizeof p->text);
    ze_ui_pop_box(ui);
    ze_ui_labelf(ui, "frame %llu", (unsigned long long)ze_engine_frame_index(e));
    p->have_button = ze_ui_key_rect(ui, ze_ui_key_path("at/Hit me"), &p->button);
}

static void on_closing(ze_engine_t *e, void *user)
{
    probe_t *p = user;
    p->closing = ze_render_backend_stats(ze_engine_backend(e));
    p->last_instances = ze_ui_stats(ze_engine_ui(e)).instances; /* the last draw list */
}

static ze_app_desc_t app_of(probe_t *p)
{
    memset(p, 0, sizeof *p);
    return (ze_app_desc_t){.name = "ui",
                           .user = p,
                           .on_update = on_update,
                           .on_render_ui = on_render_ui,
                           .on_closing = on_closing};
}

static void write_script(char *path, size_t cap, const char *text)
{
    snprintf(path, cap, "%s/ui.input", g_project.root);
    assert_true(fx_write(path, text, strlen(text)));
}

static void test_overlay_reaches_the_backend(void **state)
{
    (void)state;
    probe_t p;
    ze_app_desc_t app = app_of(&p);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 6;
    run.fixed_dt = 1.0 / 60.0;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_int_equal(p.ui_calls, 6);
    assert_true(p.same_context);
    assert_true(p.last_instances > 0);
    /* the last frame's overlay, drawn at the render thread's last take */
    print_message("overlay: %u instances (the UI's %u), %llu atlas upload(s)\n",
                  p.closing.ui_instances, p.last_instances,
                  (unsigned long long)p.closing.ui_atlas_uploads);
    assert_int_equal(p.closing.ui_instances, p.last_instances);
    assert_true(p.closing.ui_atlas_uploads >= 1);
    assert_int_equal(rep.frames, 6);
}

static void test_scripted_click_and_text(void **state)
{
    (void)state;
    char script[400], text[512];
    /* the widgets exist from frame 0; interaction uses the previous frame's
       rectangles: hover at 3, press at 4, release (click) at 5; the field
       is clicked at 7-9 and typed into at 10 ('Z', 'e') */
    snprintf(text, sizeof text,
             "3 mouse %d %d\n4 button 0 down\n5 button 0 up\n"
             "7 mouse %d %d\n8 button 0 down\n9 button 0 up\n10 text 90\n10 text 101\n",
             BTN_X + 6, BTN_Y + 6, FIELD_X + 6, FIELD_Y + 6);
    write_script(script, sizeof script, text);
    probe_t p;
    ze_app_desc_t app = app_of(&p);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 14;
    run.fixed_dt = 1.0 / 60.0;
    run.input_script = script;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    /* the point the script aims at is inside the button */
    assert_true(p.have_button);
    assert_true(p.button.x0 <= BTN_X + 6 && p.button.x1 > BTN_X + 6);
    assert_true(p.button.y0 <= BTN_Y + 6 && p.button.y1 > BTN_Y + 6);
    print_message("button at %.0f,%.0f-%.0f,%.0f: %u click(s) at frame %llu; hover from frame "
                  "%llu; text '%s', keyboard from frame %llu\n",
                  (double)p.button.x0, (double)p.button.y0, (double)p.button.x1,
                  (double)p.button.y1, p.clicks, (unsigned long long)p.click_frame,
                  (unsigned long long)p.mouse_frame, p.text, (unsigned long long)p.keyboard_frame);
    assert_int_equal(p.clicks, 1);
    assert_int_equal(p.click_frame, 5);
    assert_true(p.wanted_mouse);
    assert_int_equal(p.mouse_frame, 3);
    assert_string_equal(p.text, "Ze");
    assert_true(p.wanted_keyboard);
    assert_true(p.keyboard_frame >= 8 && p.keyboard_frame <= 11);
}

/* Input the UI took is not the game's: a click on the button, the wheel
 * over it and keys typed into the focused field never reach
 * ze_engine_input; the same input elsewhere (or with no field focused)
 * does. */
static void test_consumed_input_hidden_from_game(void **state)
{
    (void)state;
    char script[400], text[1024];
    snprintf(text, sizeof text,
             "3 mouse %d %d\n4 button 0 down\n5 button 0 up\n6 scroll 0 1\n"
             "8 mouse 900 600\n9 button 0 down\n10 button 0 up\n11 scroll 0 1\n"
             "13 mouse %d %d\n14 button 0 down\n15 button 0 up\n"
             "16 key W down\n16 text 119\n17 key W up\n"
             "19 mouse 900 600\n20 button 0 down\n21 button 0 up\n"
             "23 key W down\n23 text 119\n24 key W up\n",
             BTN_X + 6, BTN_Y + 6, FIELD_X + 6, FIELD_Y + 6);
    write_script(script, sizeof script, text);
    probe_t p;
    ze_app_desc_t app = app_of(&p);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 27;
    run.fixed_dt = 1.0 / 60.0;
    run.input_script = script;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    print_message("game saw: %u press(es) (first at %llu), %u W (first at %llu), %u text, %u "
                  "wheel (first at %llu); UI clicks %u, text '%s'\n",
                  p.game_presses, (unsigned long long)p.game_press[0], p.game_keys,
                  (unsigned long long)p.game_key[0], p.game_texts, p.game_wheels,
                  (unsigned long long)p.game_wheel[0], p.clicks, p.text);
    assert_int_equal(p.clicks, 1);    /* the UI got its click... */
    assert_string_equal(p.text, "w"); /* ...and its character */
    /* the game: the presses at 9 (empty space) and 20, not 4 (button) or 14 (field) */
    assert_int_equal(p.game_presses, 2);
    assert_int_equal(p.game_press[0], 9);
    assert_int_equal(p.game_press[1], 20);
    /* the wheel over empty space only */
    assert_int_equal(p.game_wheels, 1);
    assert_int_equal(p.game_wheel[0], 11);
    /* W typed into the field is the field's; after the field lost the
       focus (the press at 20) it is the game's */
    assert_int_equal(p.game_keys, 1);
    assert_int_equal(p.game_key[0], 23);
    assert_int_equal(p.game_texts, 1);
    assert_int_equal(p.game_text[0], 23);
}

static void test_slow_backend_never_blocks(void **state)
{
    (void)state;
    probe_t p;
    ze_app_desc_t app = app_of(&p);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 40;
    run.fixed_dt = 1.0 / 60.0; /* no frame-rate cap: the main loop runs flat out */
    ze__run_ctx_t ctx = {.backend_frame_delay_us = 20000}; /* a slow backend */
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    assert_int_equal(rep.frames, 40);
    assert_int_equal(p.ui_calls, 40);
    /* how many it missed depends on the machine: printed, not asserted */
    print_message("slow backend: %llu of 40 frames rendered, %llu snapshots replaced\n",
                  (unsigned long long)rep.frames_rendered,
                  (unsigned long long)rep.snapshots_replaced);
    assert_true(rep.frames_rendered >= 1);
    assert_int_equal(p.closing.ui_instances, p.last_instances);
}

/* A scene whose first states carry only part of its instances (a state
 * limit of 8 records against 200 crates): the backend draws nothing until
 * they are all there, so the glyph atlas handed to it meanwhile never
 * reached its UI pass; the engine keeps sending it until a frame is drawn
 * (before, the first undrawn frame acknowledged it and the UI lost its
 * text for good: the showcase at 1M crates). */
enum { PENDING_CRATES = 200, PENDING_FRAMES = 40 };

static ze_result pending_initialized(ze_engine_t *e, void *user)
{
    (void)user;
    ze_world_t *w = ze_engine_world(e);
    for (uint32_t i = 0; i < PENDING_CRATES; i++) {
        ze_entity_t ent = ze_entity_create(w);
        ze_transform_t t = ze_transform_identity();
        t.position = (ze_vec3_t){(float)i, 0, 0};
        t.previous_position = t.position;
        ze_component_set(w, ent, ZE_ID(ze_transform_t), &t);
        ze_set(w, ent, ze_mesh_t,
               {.mesh = g_project.mesh, .render_instance = ZE_RENDER_INSTANCE_NONE});
    }
    return ZE_OK;
}

/* The render thread applies every state before the next is built (a hang
 * deadline, never a speed): the undrawn states come in a known number. */
static void pending_update(ze_engine_t *e, double dt, void *user)
{
    on_update(e, dt, user);
    uint64_t deadline = ze_time_now_ns() + 20ull * 1000000000ull;
    while (atomic_load_explicit(&e->render_consumed, memory_order_acquire) != e->delta_serial) {
        assert_true(ze_time_now_ns() < deadline);
        ze_time_sleep_ns(200000);
    }
}

static void test_atlas_waits_for_a_drawn_frame(void **state)
{
    (void)state;
    probe_t p;
    ze_app_desc_t app = app_of(&p);
    app.on_initialized = pending_initialized;
    app.on_update = pending_update;
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = PENDING_FRAMES;
    run.fixed_dt = 1.0 / 60.0;
    ze__run_ctx_t ctx = {.state_record_limit = 8};
    ze_run_report_t rep;
    assert_int_equal(ze__app_run_with(&app, &run, &rep, &ctx), ZE_OK);
    print_message("pending scene: %llu backend frames drawn of %llu states, %llu atlas upload(s)\n",
                  (unsigned long long)p.closing.frames, (unsigned long long)rep.frames_rendered,
                  (unsigned long long)p.closing.ui_atlas_uploads);
    assert_int_equal(rep.instances, PENDING_CRATES + FX_CRATES);
    assert_true(p.closing.frames > 0 && p.closing.frames < rep.frames_rendered);
    /* the report tells the drawn frames from the rest */
    assert_int_equal(rep.frames_drawn, p.closing.frames);
    assert_true(p.closing.ui_atlas_uploads >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlay_reaches_the_backend),
        cmocka_unit_test(test_scripted_click_and_text),
        cmocka_unit_test(test_consumed_input_hidden_from_game),
        cmocka_unit_test(test_slow_backend_never_blocks),
        cmocka_unit_test(test_atlas_waits_for_a_drawn_frame),
    };
    return cmocka_run_group_tests(tests, fx_setup_quiet, fx_teardown);
}
