/* The window: GLFW on the main thread only (GLFW's rule).
 *
 * Open (the "window" stage): when the run is not headless, its backend is
 * not "null" (which draws nothing: a window would only be a blank), a
 * display exists
 * (DISPLAY or WAYLAND_DISPLAY set), glfwInit succeeds and GLFW finds a
 * Vulkan loader, one window of the configured size and title with
 * GLFW_CLIENT_API = GLFW_NO_API (the render backend makes its surface from
 * it); otherwise the run is headless, with the reason logged.
 * Poll (main loop step 1, after ze_input_begin_frame): glfwPollEvents runs
 * the callbacks below, which write the engine's ze_input_state_t: keys (GLFW
 * key codes are our ZE_KEY_* numbering), cursor position and motion, mouse
 * buttons, scroll, typed text (codepoints); then the gamepads (glfwGetGamepadState, joysticks 0-3);
 * then the window's size and state, which arrive as events (framebuffer
 * size and iconify callbacks), never as a per-frame query: on X11
 * glfwGetFramebufferSize is a synchronous round trip on the connection the
 * render thread presents through, and it reports the old size for an
 * iconified window. Iconified or a 0x0 framebuffer is "minimized" (the loop
 * keeps simulating but publishes nothing); otherwise the framebuffer size
 * becomes the window configuration's width/height, which the render state
 * carries (resized when it changed).
 * A close request (glfwWindowShouldClose) sets input.quit_requested.
 * The clipboard: ZUI's get/set pair (ui_bridge.c passes it when a window
 * is open) reads and writes GLFW's, the system's; setting copies the text
 * to make it NUL-terminated (a buffer kept, from the UI owner).
 * Close (stage fini, after the render backend is destroyed): the window,
 * then glfwTerminate. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

_Static_assert(ZE_KEY_ESCAPE == GLFW_KEY_ESCAPE && ZE_KEY_F12 == GLFW_KEY_F12 &&
                   ZE_KEY_LEFT_ALT == GLFW_KEY_LEFT_ALT && ZE_KEY_COUNT == GLFW_KEY_LAST + 1,
               "ZE_KEY_* follow GLFW's key codes");
_Static_assert(ZE_GAMEPAD_BUTTON_COUNT == GLFW_GAMEPAD_BUTTON_LAST + 1 &&
                   ZE_GAMEPAD_AXIS_COUNT == GLFW_GAMEPAD_AXIS_LAST + 1,
               "GLFW's gamepad layout");

static void on_glfw_error(int code, const char *message)
{
    ZE_LOG_WARN(ZE__ENGINE_LOG, "window: GLFW error 0x%x: %s", (unsigned)code,
                message ? message : "?");
}

static ze_engine_t *engine_of(GLFWwindow *w)
{
    return glfwGetWindowUserPointer(w);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    ze_engine_t *e = engine_of(w);
    if (!e || key <= ZE_KEY_UNKNOWN || key >= ZE_KEY_COUNT || action == GLFW_REPEAT)
        return;
    uint8_t bit = (uint8_t)(1u << (key & 7));
    if (action == GLFW_PRESS)
        e->input.keys[key >> 3] |= bit;
    else
        e->input.keys[key >> 3] &= (uint8_t)~bit;
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    ze_engine_t *e = engine_of(w);
    if (!e)
        return;
    if (e->cursor_seen) {
        e->input.mouse_dx += x - e->input.mouse_x;
        e->input.mouse_dy += y - e->input.mouse_y;
    }
    e->cursor_seen = true;
    e->input.mouse_x = x;
    e->input.mouse_y = y;
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    ze_engine_t *e = engine_of(w);
    if (!e || button < 0 || button >= ZE_MOUSE_BUTTON_COUNT)
        return;
    if (action == GLFW_PRESS)
        e->input.mouse_buttons |= 1u << button;
    else
        e->input.mouse_buttons &= ~(1u << button);
}

static void on_char(GLFWwindow *w, unsigned int codepoint)
{
    ze_engine_t *e = engine_of(w);
    if (e)
        ze_input_text(&e->input, codepoint);
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    ze_engine_t *e = engine_of(w);
    if (!e)
        return;
    e->input.scroll_x += dx;
    e->input.scroll_y += dy;
}

static void update_minimized(ze_engine_t *e)
{
    bool minimized = e->iconified || e->framebuffer_w <= 0 || e->framebuffer_h <= 0;
    if (minimized != e->minimized)
        ZE_LOG_DEBUG(ZE__ENGINE_LOG, "window: %s", minimized ? "minimized" : "restored");
    e->minimized = minimized;
    if (!minimized) {
        e->window.width = (uint32_t)e->framebuffer_w;
        e->window.height = (uint32_t)e->framebuffer_h;
    }
}

static void on_framebuffer_size(GLFWwindow *w, int width, int height)
{
    ze_engine_t *e = engine_of(w);
    if (!e)
        return;
    e->framebuffer_w = width;
    e->framebuffer_h = height;
    update_minimized(e);
}

static void on_iconify(GLFWwindow *w, int iconified)
{
    ze_engine_t *e = engine_of(w);
    if (!e)
        return;
    e->iconified = iconified == GLFW_TRUE;
    update_minimized(e);
}

static bool has_display(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return (x && x[0]) || (wl && wl[0]);
}

ze_result ze__window_open(ze_engine_t *e)
{
    ze_window_config_t *c = &e->window;
    if (c->headless)
        return ZE_OK;
    const char *why = NULL;
    const char *backend = e->run.backend ? e->run.backend : "null";
    if (strcmp(backend, "null") == 0) {
        why = "the null backend draws nothing, so it opens no window";
    } else if (!has_display()) {
        why = "no display (DISPLAY and WAYLAND_DISPLAY unset)";
    } else {
        glfwSetErrorCallback(on_glfw_error);
        if (!glfwInit())
            why = "glfwInit failed";
        else if (!glfwVulkanSupported())
            why = "GLFW finds no Vulkan loader";
    }
    if (!why) {
        e->glfw_initialized = true;
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
        GLFWwindow *w = glfwCreateWindow((int)c->width, (int)c->height, c->title, NULL, NULL);
        if (!w)
            why = "glfwCreateWindow failed";
        e->native_window = w;
    }
    if (why) {
        ZE_LOG_INFO(ZE__ENGINE_LOG, "window: %s: running headless", why);
        ze__window_close(e);
        c->headless = true;
        return ZE_OK;
    }
    GLFWwindow *w = e->native_window;
    glfwSetWindowUserPointer(w, e);
    glfwSetKeyCallback(w, on_key);
    glfwSetCursorPosCallback(w, on_cursor);
    glfwSetMouseButtonCallback(w, on_button);
    glfwSetScrollCallback(w, on_scroll);
    glfwSetCharCallback(w, on_char);
    glfwSetFramebufferSizeCallback(w, on_framebuffer_size);
    glfwSetWindowIconifyCallback(w, on_iconify);
    /* the one size query; later sizes come from on_framebuffer_size */
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(w, &fw, &fh);
    e->framebuffer_w = fw;
    e->framebuffer_h = fh;
    e->iconified = glfwGetWindowAttrib(w, GLFW_ICONIFIED) == GLFW_TRUE;
    if (fw > 0 && fh > 0) {
        c->width = (uint32_t)fw;
        c->height = (uint32_t)fh;
    }
    update_minimized(e);
    ZE_LOG_INFO(ZE__ENGINE_LOG, "window: %ux%u '%s' (GLFW %s)", c->width, c->height, c->title,
                glfwGetVersionString());
    return ZE_OK;
}

const char *ze__window_clipboard_get(void *user, size_t *len)
{
    ze_engine_t *e = user;
    const char *s = e->native_window ? glfwGetClipboardString(e->native_window) : NULL;
    *len = s ? strlen(s) : 0;
    return s; /* GLFW's: valid until the next clipboard call, ZUI copies it at once */
}

void ze__window_clipboard_set(void *user, const char *text, size_t len)
{
    ze_engine_t *e = user;
    if (!e->native_window)
        return;
    if (len + 1 > e->clipboard_cap) {
        ze_allocator_t a = ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_UI);
        char *n = ze_realloc(a, e->clipboard, e->clipboard_cap, len + 1, 1);
        if (!n) {
            ZE_LOG_WARN(ZE__ENGINE_LOG, "window: no memory to copy %zu bytes to the clipboard",
                        len);
            return;
        }
        e->clipboard = n;
        e->clipboard_cap = len + 1;
    }
    memcpy(e->clipboard, text, len);
    e->clipboard[len] = 0; /* an embedded NUL ends the system's copy there */
    glfwSetClipboardString(e->native_window, e->clipboard);
}

void ze__window_close(ze_engine_t *e)
{
    if (e->clipboard)
        ze_free(ze_mem_owner_allocator(e->mem, ZE_MEM_OWNER_UI), e->clipboard, e->clipboard_cap);
    e->clipboard = NULL;
    e->clipboard_cap = 0;
    if (e->native_window)
        glfwDestroyWindow(e->native_window);
    e->native_window = NULL;
    if (e->glfw_initialized)
        glfwTerminate();
    e->glfw_initialized = false;
    e->minimized = e->iconified = false;
    e->framebuffer_w = e->framebuffer_h = 0;
}

static void poll_gamepads(ze_input_state_t *in)
{
    for (int j = 0; j < ZE_GAMEPAD_COUNT; j++) {
        ze_gamepad_state_t *g = &in->gamepads[j];
        GLFWgamepadstate st;
        if (!glfwJoystickIsGamepad(GLFW_JOYSTICK_1 + j) ||
            !glfwGetGamepadState(GLFW_JOYSTICK_1 + j, &st)) {
            *g = (ze_gamepad_state_t){0};
            continue;
        }
        g->connected = true;
        g->buttons = 0;
        for (int i = 0; i < ZE_GAMEPAD_AXIS_COUNT; i++)
            g->axes[i] = st.axes[i];
        for (int i = 0; i < ZE_GAMEPAD_BUTTON_COUNT; i++)
            if (st.buttons[i] == GLFW_PRESS)
                g->buttons |= 1u << i;
    }
}

void ze__window_poll(ze_engine_t *e)
{
    GLFWwindow *w = e->native_window;
    if (!w)
        return;
    glfwPollEvents();
    poll_gamepads(&e->input);
    if (glfwWindowShouldClose(w))
        e->input.quit_requested = true;
}

bool ze__window_should_close(ze_engine_t *e)
{
    return e->native_window && glfwWindowShouldClose(e->native_window);
}
