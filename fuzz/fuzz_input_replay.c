/* The input replay parser on arbitrary bytes: never crashes or leaks; a
 * rejection names a line within the text and a message; an accepted script
 * holds at most one event per line and applies frame by frame without
 * leaving the documented ranges. */
#include <string.h>

#include "zengine/engine.h"
#include "engine/engine_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ze_log_set_level(ZE_LOG_OFF);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    uint32_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    ze_input_replay_t *r = NULL;
    ze__input_replay_error_t err;
    ze_result res = ze__input_replay_parse(text, size, ze_mem_system_allocator(), &r, &err);
    if (res != ZE_OK) {
        ZE_VERIFY(res == ZE_ERR_PARSE);
        ZE_VERIFY(r == NULL);
        ZE_VERIFY(err.line >= 1 && err.line <= lines);
        ZE_VERIFY(err.message[0] != '\0');
        ZE_VERIFY(memchr(err.message, '\0', sizeof err.message) != NULL);
        return 0;
    }
    ZE_VERIFY(r != NULL);
    ZE_VERIFY(ze_input_replay_event_count(r) <= lines);
    /* Apply the first frames (frame numbers may be huge: only a prefix). */
    ze_input_state_t in;
    memset(&in, 0, sizeof in);
    for (uint64_t f = 0; f < 64; f++) {
        ze_input_begin_frame(&in, f);
        ze_input_replay_apply(r, f, &in);
        for (int g = 0; g < ZE_GAMEPAD_COUNT; g++) {
            ZE_VERIFY(in.gamepads[g].buttons < (1u << ZE_GAMEPAD_BUTTON_COUNT));
            for (int a = 0; a < ZE_GAMEPAD_AXIS_COUNT; a++)
                ZE_VERIFY(in.gamepads[g].axes[a] >= -1.0f && in.gamepads[g].axes[a] <= 1.0f);
        }
        ZE_VERIFY(in.mouse_buttons < (1u << ZE_MOUSE_BUTTON_COUNT));
        ZE_VERIFY(!ze_input_key_down(&in, ZE_KEY_UNKNOWN));
    }
    /* Frames out of order must not break the cursor. */
    ze_input_replay_apply(r, 3, &in);
    ze_input_replay_apply(r, UINT64_MAX, &in);
    ze_input_replay_apply(r, 0, &in);
    ze_input_replay_destroy(r);
    return 0;
}
