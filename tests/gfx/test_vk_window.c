/* The Vulkan backend's window target (a GLFW window and a swapchain), run
 * through ze_app_run with a window (not headless) and validation on. Needs
 * a display: without DISPLAY/WAYLAND_DISPLAY every test is skipped with a
 * message; CI runs it under Xvfb (ctest test_vk_window_xvfb: xvfb-run).
 *  - present and resize: 60 frames (120 in sanitized builds) at a real
 *    clock (max_fps 120); the app resizes the window at frame 20 and
 *    iconifies/restores it at frames 35/45 (Xvfb without a window manager
 *    may ignore iconify: not asserted); more than 30 frames rendered and
 *    presented, the swapchain recreated, zero validation messages, clean
 *    shutdown.
 *  - window close: glfwSetWindowShouldClose at frame 10 ends the run with
 *    ZE_OK after about 10 frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "engine/test_engine_fixture.h"

static fx_project_t g_project;
static bool g_display;

typedef struct hooks_t {
    uint64_t close_at; /* 0 = no close */
    bool resize;
    bool windowed; /* a window existed in on_update */
    int resized_w, resized_h;
    ze_render_stats_t stats; /* at on_closing */
    uint64_t last_frame;
} hooks_t;

static void small_window(void *user, ze_window_config_t *c)
{
    (void)user;
    c->width = 320;
    c->height = 240;
    c->vsync = false; /* Xvfb has no vblank to pace FIFO */
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    hooks_t *h = user;
    GLFWwindow *w = ze_engine_native_window(e);
    uint64_t f = ze_engine_frame_index(e);
    h->last_frame = f;
    if (!w)
        return;
    h->windowed = true;
    if (h->resize && f == 20)
        glfwSetWindowSize(w, 400, 300);
    if (h->resize && f == 35)
        glfwIconifyWindow(w);
    if (h->resize && f == 45)
        glfwRestoreWindow(w);
    if (h->close_at && f == h->close_at)
        glfwSetWindowShouldClose(w, GLFW_TRUE);
}

static void on_closing(ze_engine_t *e, void *user)
{
    hooks_t *h = user;
    h->stats = ze_render_backend_stats(ze_engine_backend(e));
    GLFWwindow *w = ze_engine_native_window(e);
    if (w)
        glfwGetFramebufferSize(w, &h->resized_w, &h->resized_h);
}

static int setup(void **state)
{
    (void)state;
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    g_display = (x && x[0]) || (wl && wl[0]);
    return fx_project_make(&g_project) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fx_project_remove(&g_project);
    ze_log_reset();
    return 0;
}

static ze_result run_windowed(hooks_t *h, uint64_t frames, ze_run_report_t *rep)
{
    ze_app_desc_t app = {
        .name = "test_vk_window",
        .user = h,
        .override_window_config = small_window,
        .on_update = on_update,
        .on_closing = on_closing,
    };
    ze_run_desc_t run = fx_run(&g_project);
    run.headless = false;
    run.backend = "vulkan";
    run.frames = frames;
    run.max_fps = 120.0;
    return ze_app_run(&app, &run, rep);
}

static void test_present_and_resize(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.resize = true};
    ze_run_report_t rep;
    /* sanitized builds render about half as fast: more iterations, same
       bar for frames rendered */
    uint64_t frames = FX_SANITIZED ? 120 : 60;
    ze_result r = run_windowed(&h, frames, &rep);
    print_message(
        "result %s: frames %llu, rendered %llu, recreates %llu, validation %llu, "
        "device %s, final framebuffer %dx%d\n",
        ze_result_str(r), (unsigned long long)rep.frames, (unsigned long long)rep.frames_rendered,
        (unsigned long long)h.stats.swapchain_recreates,
        (unsigned long long)rep.validation_messages, rep.device, h.resized_w, h.resized_h);
    assert_int_equal(r, ZE_OK);
    assert_true(h.windowed);
    assert_non_null(strstr(rep.device, "window"));
    assert_int_equal(rep.frames, frames);
    assert_true(rep.frames_rendered > 30);
    assert_true(rep.validation_enabled);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(h.stats.swapchain_recreates >= 1);
    assert_int_equal(h.resized_w, 400);
    assert_int_equal(h.resized_h, 300);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
}

static void test_window_close_ends_run(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.close_at = 10};
    ze_run_report_t rep;
    ze_result r = run_windowed(&h, 0 /* until closed */, &rep);
    print_message("result %s: frames %llu, rendered %llu\n", ze_result_str(r),
                  (unsigned long long)rep.frames, (unsigned long long)rep.frames_rendered);
    assert_int_equal(r, ZE_OK);
    assert_true(h.windowed);
    assert_true(rep.frames >= 10 && rep.frames <= 12);
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.shutdown_complete);
}

int main(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if (!(x && x[0]) && !(wl && wl[0]))
        fprintf(stderr, "test_vk_window: no display (DISPLAY/WAYLAND_DISPLAY unset): skipped; "
                        "ctest runs it under xvfb-run as test_vk_window_xvfb\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_present_and_resize),
        cmocka_unit_test(test_window_close_ends_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
