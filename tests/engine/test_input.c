/* Input: key and mouse helpers, key names, replay parsing (every error
 * names its line), applying a replay across frames (keys, mouse deltas,
 * scroll, buttons, gamepads, quit), typed text, and the replay's cursor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "zengine/engine.h"
#include "engine/engine_internal.h"

static ze_allocator_t sys(void)
{
    return ze_mem_system_allocator();
}

/* Parse `text` and expect ZE_ERR_PARSE at `line` with `needle` in the
   message. */
static void expect_error(const char *text, uint32_t line, const char *needle)
{
    ze_input_replay_t *r = (ze_input_replay_t *)1;
    ze__input_replay_error_t err;
    ze_result res = ze__input_replay_parse(text, strlen(text), sys(), &r, &err);
    if (res != ZE_ERR_PARSE || err.line != line || !strstr(err.message, needle))
        print_error("input %s -> %d line %u '%s'\n", text, res, err.line, err.message);
    assert_int_equal(res, ZE_ERR_PARSE);
    assert_null(r);
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.message, needle));
    char prefix[32];
    snprintf(prefix, sizeof prefix, "line %u: ", line);
    assert_memory_equal(err.message, prefix, strlen(prefix));
}

static ze_input_replay_t *parse_ok(const char *text)
{
    ze_input_replay_t *r = NULL;
    ze__input_replay_error_t err;
    ze_result res = ze__input_replay_parse(text, strlen(text), (ze_allocator_t){0}, &r, &err);
    if (res != ZE_OK)
        print_error("%s\n", err.message);
    assert_int_equal(res, ZE_OK);
    assert_non_null(r);
    return r;
}

static void test_key_helpers(void **state)
{
    (void)state;
    ze_input_state_t in;
    memset(&in, 0, sizeof in);
    in.keys['W' / 8] |= (uint8_t)(1u << ('W' % 8));
    in.previous['S' / 8] |= (uint8_t)(1u << ('S' % 8));
    in.keys[ZE_KEY_LEFT_ALT / 8] |= (uint8_t)(1u << (ZE_KEY_LEFT_ALT % 8));
    in.previous[ZE_KEY_LEFT_ALT / 8] |= (uint8_t)(1u << (ZE_KEY_LEFT_ALT % 8));

    assert_true(ze_input_key_down(&in, 'W'));
    assert_true(ze_input_key_pressed(&in, 'W'));
    assert_false(ze_input_key_released(&in, 'W'));

    assert_false(ze_input_key_down(&in, 'S'));
    assert_false(ze_input_key_pressed(&in, 'S'));
    assert_true(ze_input_key_released(&in, 'S'));

    assert_true(ze_input_key_down(&in, ZE_KEY_LEFT_ALT));
    assert_false(ze_input_key_pressed(&in, ZE_KEY_LEFT_ALT));
    assert_false(ze_input_key_released(&in, ZE_KEY_LEFT_ALT));

    /* Out of range: never down, never a crash. */
    assert_false(ze_input_key_down(&in, -1));
    assert_false(ze_input_key_down(&in, ZE_KEY_COUNT));
    assert_false(ze_input_key_pressed(&in, 100000));
    assert_false(ze_input_key_released(&in, ZE_KEY_UNKNOWN));

    in.mouse_buttons = 1u << 2;
    assert_true(ze_input_mouse_down(&in, 2));
    assert_false(ze_input_mouse_down(&in, 0));
    assert_false(ze_input_mouse_down(&in, -1));
    assert_false(ze_input_mouse_down(&in, ZE_MOUSE_BUTTON_COUNT));

    /* begin_frame: previous <- keys, deltas and scroll cleared. */
    in.mouse_dx = 3;
    in.mouse_dy = 4;
    in.scroll_x = 1;
    in.scroll_y = 2;
    ze_input_begin_frame(&in, 7);
    assert_int_equal(in.frame, 7);
    assert_true(ze_input_key_down(&in, 'W'));
    assert_false(ze_input_key_pressed(&in, 'W'));
    assert_false(ze_input_key_released(&in, 'S'));
    assert_true(in.mouse_dx == 0 && in.mouse_dy == 0 && in.scroll_x == 0 && in.scroll_y == 0);
    assert_int_equal(in.previous_mouse_buttons, 1u << 2);
}

static void test_key_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int key;
    } cases[] = {
        {"W", 'W'},
        {"w", 'W'},
        {"a", ZE_KEY_A},
        {"Z", ZE_KEY_Z},
        {"0", ZE_KEY_0},
        {"9", ZE_KEY_9},
        {"SPACE", ZE_KEY_SPACE},
        {"space", ZE_KEY_SPACE},
        {"Escape", ZE_KEY_ESCAPE},
        {"ENTER", ZE_KEY_ENTER},
        {"TAB", ZE_KEY_TAB},
        {"BACKSPACE", ZE_KEY_BACKSPACE},
        {"LEFT", ZE_KEY_LEFT},
        {"RIGHT", ZE_KEY_RIGHT},
        {"UP", ZE_KEY_UP},
        {"down", ZE_KEY_DOWN},
        {"F1", ZE_KEY_F1},
        {"f9", ZE_KEY_F1 + 8},
        {"F10", ZE_KEY_F1 + 9},
        {"F12", ZE_KEY_F12},
        {"LEFT_SHIFT", ZE_KEY_LEFT_SHIFT},
        {"left_control", ZE_KEY_LEFT_CONTROL},
        {"LEFT_ALT", ZE_KEY_LEFT_ALT},
        {"F0", ZE_KEY_UNKNOWN},
        {"F13", ZE_KEY_UNKNOWN},
        {"F01", ZE_KEY_UNKNOWN},
        {"F1X", ZE_KEY_UNKNOWN},
        {"WW", ZE_KEY_UNKNOWN},
        {"!", ZE_KEY_UNKNOWN},
        {" ", ZE_KEY_UNKNOWN},
        {"SPACEX", ZE_KEY_UNKNOWN},
        {"LEFT_", ZE_KEY_UNKNOWN},
        {"", ZE_KEY_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int k = ze_input_key_from_name(cases[i].name, strlen(cases[i].name));
        if (k != cases[i].key)
            print_error("'%s' -> %d\n", cases[i].name, k);
        assert_int_equal(k, cases[i].key);
    }
    /* Length-bounded: a prefix of a longer buffer, no NUL needed. */
    const char buf[] = {'L', 'E', 'F', 'T', '_', 'A', 'L', 'T', 'X'};
    assert_int_equal(ze_input_key_from_name(buf, 8), ZE_KEY_LEFT_ALT);
    assert_int_equal(ze_input_key_from_name(buf, 4), ZE_KEY_LEFT);
    assert_int_equal(ze_input_key_from_name(buf, 9), ZE_KEY_UNKNOWN);
    assert_int_equal(ze_input_key_from_name(buf, 1), 'L');
    /* A NUL inside the length is not a name. */
    assert_int_equal(ze_input_key_from_name("UP\0", 3), ZE_KEY_UNKNOWN);
    assert_int_equal(ze_input_key_from_name(NULL, 0), ZE_KEY_UNKNOWN);
}

static void test_replay_parse_errors(void **state)
{
    (void)state;
    expect_error("0 key W down\n1 key WW down\n", 2, "unknown key 'WW'");
    expect_error("# header\n\n0 bogus\n", 3, "unknown event 'bogus'");
    expect_error("x key W down\n", 1, "frame number");
    expect_error("-1 key W down\n", 1, "frame number");
    expect_error("99999999999999999999999 quit\n", 1, "frame number");
    expect_error("5 key W down\n4 key W up\n", 2, "frame 4 is before frame 5");
    expect_error("0 key W sideways\n", 1, "expected down|up");
    expect_error("0 key W\n", 1, "missing down|up");
    expect_error("0 key\n", 1, "missing key name");
    expect_error("0\n", 1, "missing event");
    expect_error("0 quit now\n", 1, "trailing 'now'");
    expect_error("0 key W down up\n", 1, "trailing 'up'");
    expect_error("0 button 8 down\n", 1, "out of range 0..7");
    expect_error("0 button -1 down\n", 1, "not a number");
    expect_error("0 mouse 1 nan\n", 1, "not a finite number");
    expect_error("0 mouse inf 1\n", 1, "not a finite number");
    expect_error("0 mouse 1e999 1\n", 1, "not a finite number");
    expect_error("0 mouse 0x10 1\n", 1, "not a finite number");
    expect_error("0 mouse 1\n", 1, "missing mouse y");
    expect_error("0 scroll 1 .\n", 1, "not a finite number");
    expect_error("0 gamepad 4 connect\n", 1, "out of range 0..3");
    expect_error("0 gamepad 0 axis 6 0.5\n", 1, "out of range 0..5");
    expect_error("0 gamepad 0 axis 0 1.5\n", 1, "out of range -1..1");
    expect_error("0 gamepad 0 button 15 down\n", 1, "out of range 0..14");
    expect_error("0 gamepad 0 wiggle\n", 1, "unknown gamepad event 'wiggle'");
    expect_error("0 KEY W down\n", 1, "unknown event 'KEY'");
    expect_error("0 text 0\n", 1, "codepoint 0 is not text");
    expect_error("0 text 1114112\n", 1, "out of range 0..1114111");
    expect_error("0 text A\n", 1, "not a number");

    /* A NUL byte is garbage, not the end of the text. */
    const char nul[] = "0 quit\n1 qu\0it\n";
    ze_input_replay_t *r = NULL;
    ze__input_replay_error_t err;
    assert_int_equal(ze__input_replay_parse(nul, sizeof nul - 1, sys(), &r, &err), ZE_ERR_PARSE);
    assert_int_equal(err.line, 2);

    /* Lines: 256 bytes pass, 257 fail (the newline is not counted). */
    char line[400];
    memset(line, ' ', sizeof line);
    memcpy(line, "0 quit", 6);
    line[256] = '\n';
    r = NULL;
    assert_int_equal(ze__input_replay_parse(line, 257, sys(), &r, &err), ZE_OK);
    assert_int_equal(ze_input_replay_event_count(r), 1);
    ze_input_replay_destroy(r);
    memset(line, ' ', sizeof line);
    memcpy(line, "# comment\n0 quit", 16);
    line[10 + 257] = '\n';
    assert_int_equal(ze__input_replay_parse(line, 10 + 258, sys(), &r, &err), ZE_ERR_PARSE);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "longer than 256"));

    /* Long garbage is quoted, bounded. */
    char garbage[200];
    memset(garbage, 'Q', sizeof garbage);
    memcpy(garbage, "0 key ", 6);
    assert_int_equal(ze__input_replay_parse(garbage, sizeof garbage, sys(), &r, &err),
                     ZE_ERR_PARSE);
    assert_true(strlen(err.message) < sizeof err.message);
    assert_non_null(strstr(err.message, "unknown key 'QQQQ"));
    assert_non_null(strstr(err.message, "...'"));

    /* Arguments. */
    assert_int_equal(ze__input_replay_parse(NULL, 5, sys(), &r, &err), ZE_ERR_INVALID_ARG);
    assert_int_equal(ze__input_replay_parse("", 0, sys(), NULL, &err), ZE_ERR_INVALID_ARG);
}

static void test_replay_event_limit(void **state)
{
    (void)state;
    /* 1,000,000 events pass; one more fails on its line. */
    const uint32_t limit = 1000000;
    static char text[(1000000 + 1) * 7 + 1];
    size_t len = 0;
    for (uint32_t i = 0; i < limit + 1; i++) {
        memcpy(text + len, "0 quit\n", 7);
        len += 7;
    }
    ze_input_replay_t *r = NULL;
    ze__input_replay_error_t err;
    assert_int_equal(ze__input_replay_parse(text, len - 7, sys(), &r, &err), ZE_OK);
    assert_int_equal(ze_input_replay_event_count(r), limit);
    ze_input_replay_destroy(r);
    assert_int_equal(ze__input_replay_parse(text, len, sys(), &r, &err), ZE_ERR_PARSE);
    assert_int_equal(err.line, limit + 1);
    assert_non_null(strstr(err.message, "more than 1000000 events"));
}

static void test_replay_grammar(void **state)
{
    (void)state;
    ze_input_replay_t *r = parse_ok("# a comment line\n"
                                    "\n"
                                    "   \t  \n"
                                    "0 key W down   # trailing comment\r\n"
                                    "0\tmouse\t10.5\t-20\n"
                                    "1 button 7 up\n"
                                    "1 scroll -1 +2.5e1\n"
                                    "2 gamepad 3 connect\n"
                                    "2 gamepad 3 axis 5 -1\n"
                                    "2 gamepad 3 axis 0 1.0\n"
                                    "2 gamepad 3 button 14 down\n"
                                    "2 gamepad 3 disconnect\n"
                                    "18446744073709551615 quit");
    assert_int_equal(ze_input_replay_event_count(r), 10);
    ze_input_replay_destroy(r);

    r = parse_ok("");
    assert_int_equal(ze_input_replay_event_count(r), 0);
    ze_input_state_t in;
    memset(&in, 0, sizeof in);
    ze_input_replay_apply(r, 0, &in);
    ze_input_replay_destroy(r);
    ze_input_replay_destroy(NULL);
    assert_int_equal(ze_input_replay_event_count(NULL), 0);
}

static void test_replay_apply(void **state)
{
    (void)state;
    ze_input_replay_t *r = parse_ok("0 mouse 100 50\n"
                                    "0 key W down\n"
                                    "1 mouse 110 40\n"
                                    "1 mouse 115 45\n"
                                    "1 scroll 0 1\n"
                                    "1 scroll 0 2\n"
                                    "1 button 0 down\n"
                                    "3 key W up\n"
                                    "3 key SPACE down\n"
                                    "3 button 0 up\n"
                                    "4 gamepad 1 connect\n"
                                    "4 gamepad 1 axis 2 -0.5\n"
                                    "4 gamepad 1 button 3 down\n"
                                    "5 gamepad 1 button 3 up\n"
                                    "5 gamepad 1 axis 5 1\n"
                                    "7 gamepad 1 disconnect\n"
                                    "8 quit\n");
    ze_input_state_t in;
    memset(&in, 0, sizeof in);

    ze_input_begin_frame(&in, 0);
    ze_input_replay_apply(r, 0, &in);
    assert_true(ze_input_key_pressed(&in, 'W'));
    assert_true(in.mouse_x == 100 && in.mouse_y == 50);
    assert_true(in.mouse_dx == 100 && in.mouse_dy == 50); /* from the origin */

    ze_input_begin_frame(&in, 1);
    ze_input_replay_apply(r, 1, &in);
    assert_true(ze_input_key_down(&in, 'W'));
    assert_false(ze_input_key_pressed(&in, 'W'));
    assert_true(in.mouse_x == 115 && in.mouse_y == 45);
    assert_true(in.mouse_dx == 15 && in.mouse_dy == -5); /* both moves of the frame */
    assert_true(in.scroll_x == 0 && in.scroll_y == 3);
    assert_true(ze_input_mouse_down(&in, 0));

    ze_input_begin_frame(&in, 2); /* nothing scripted */
    ze_input_replay_apply(r, 2, &in);
    assert_true(in.mouse_dx == 0 && in.mouse_dy == 0 && in.scroll_y == 0);
    assert_true(in.mouse_x == 115);
    assert_true(ze_input_key_down(&in, 'W'));

    ze_input_begin_frame(&in, 3);
    ze_input_replay_apply(r, 3, &in);
    assert_true(ze_input_key_released(&in, 'W'));
    assert_true(ze_input_key_pressed(&in, ZE_KEY_SPACE));
    assert_false(ze_input_mouse_down(&in, 0));
    assert_int_equal(in.previous_mouse_buttons, 1);

    ze_input_begin_frame(&in, 4);
    ze_input_replay_apply(r, 4, &in);
    assert_true(in.gamepads[1].connected);
    assert_false(in.gamepads[0].connected);
    assert_true(in.gamepads[1].axes[2] == -0.5f);
    assert_int_equal(in.gamepads[1].buttons, 1u << 3);

    ze_input_begin_frame(&in, 5);
    ze_input_replay_apply(r, 5, &in);
    assert_int_equal(in.gamepads[1].buttons, 0);
    assert_true(in.gamepads[1].axes[5] == 1.0f);
    assert_true(in.gamepads[1].axes[2] == -0.5f);
    /* Applying the same frame again changes nothing. */
    in.gamepads[1].axes[5] = 0;
    ze_input_replay_apply(r, 5, &in);
    assert_true(in.gamepads[1].axes[5] == 0.0f);

    /* Frame 6 is skipped by the caller: frame 7's events still apply. */
    ze_input_begin_frame(&in, 7);
    ze_input_replay_apply(r, 7, &in);
    assert_false(in.gamepads[1].connected);
    assert_true(in.gamepads[1].axes[2] == 0.0f); /* a removed pad is at rest */
    assert_false(in.quit_requested);

    ze_input_begin_frame(&in, 8);
    ze_input_replay_apply(r, 8, &in);
    assert_true(in.quit_requested);
    ze_input_begin_frame(&in, 9);
    ze_input_replay_apply(r, 9, &in);
    assert_true(in.quit_requested); /* sticky */

    /* A restarted run (frame numbers go back) replays from that frame. */
    ze_input_state_t again;
    memset(&again, 0, sizeof again);
    ze_input_begin_frame(&again, 0);
    ze_input_replay_apply(r, 0, &again);
    assert_true(ze_input_key_down(&again, 'W'));
    assert_true(again.mouse_x == 100);
    ze_input_replay_destroy(r);
}

/* Typed text: a replay's `text` lines and ze_input_text, cleared at the
 * next frame, at most ZE_INPUT_TEXT_MAX a frame. */
static void test_text(void **state)
{
    (void)state;
    ze_input_replay_t *r = parse_ok("0 text 90\n0 text 233\n0 text 128512\n2 text 65\n");
    ze_input_state_t in;
    memset(&in, 0, sizeof in);
    ze_input_begin_frame(&in, 0);
    ze_input_replay_apply(r, 0, &in);
    assert_int_equal(in.text_count, 3);
    assert_int_equal(in.text[0], 'Z');
    assert_int_equal(in.text[1], 0xE9);
    assert_int_equal(in.text[2], 0x1F600);
    ze_input_begin_frame(&in, 1);
    ze_input_replay_apply(r, 1, &in);
    assert_int_equal(in.text_count, 0);
    ze_input_begin_frame(&in, 2);
    ze_input_replay_apply(r, 2, &in);
    assert_int_equal(in.text_count, 1);
    assert_int_equal(in.text[0], 'A');
    for (uint32_t i = 0; i < ZE_INPUT_TEXT_MAX + 5; i++)
        ze_input_text(&in, 'x');
    assert_int_equal(in.text_count, ZE_INPUT_TEXT_MAX);
    ze_input_text(NULL, 'x'); /* harmless */
    ze_input_replay_destroy(r);
}

static void test_replay_skipped_frames(void **state)
{
    (void)state;
    /* Events of frames never applied are dropped, not applied late. */
    ze_input_replay_t *r = parse_ok("0 key A down\n2 key B down\n2 key C down\n5 key D down\n");
    ze_input_state_t in;
    memset(&in, 0, sizeof in);
    ze_input_replay_apply(r, 3, &in);
    assert_false(ze_input_key_down(&in, ZE_KEY_A));
    assert_false(ze_input_key_down(&in, 'B'));
    ze_input_replay_apply(r, 5, &in);
    assert_true(ze_input_key_down(&in, 'D'));
    ze_input_replay_destroy(r);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_helpers),           cmocka_unit_test(test_key_names),
        cmocka_unit_test(test_replay_parse_errors),   cmocka_unit_test(test_replay_event_limit),
        cmocka_unit_test(test_replay_grammar),        cmocka_unit_test(test_replay_apply),
        cmocka_unit_test(test_replay_skipped_frames), cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
