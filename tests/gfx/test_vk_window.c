/* The Vulkan backend's window target (a GLFW window and a swapchain), run
 * through ze_app_run with a window (not headless) and validation on. Needs
 * a display: without DISPLAY/WAYLAND_DISPLAY every test is skipped with a
 * message; CI runs it under Xvfb (ctest test_vk_window_xvfb: xvfb-run).
 * No test asserts a speed: each waits for frames the backend rendered
 * (events), under a hang deadline (HANG_NS) far above the typical second.
 *  - present and resize: once 5 frames are rendered the app resizes the
 *    window; it waits for the swapchain to be recreated and 5 more frames
 *    at the new size, then closes: zero validation messages, clean
 *    shutdown, the framebuffer at its new size.
 *  - minimized: the window's framebuffer-size callback (the one the engine
 *    registered with GLFW) gets 0x0, as GLFW reports a minimized window on
 *    some platforms; then its iconify callback gets "iconified", as X11
 *    reports it (Xvfb without a window manager ignores glfwIconifyWindow,
 *    so the events are delivered to the engine's own callbacks). Each time
 *    the simulation keeps stepping for 30 iterations while nothing more is
 *    rendered (at most the frame in progress and the one state published
 *    before), and rendering resumes after the restore.
 *  - window close: glfwSetWindowShouldClose at frame 10 ends the run with
 *    ZE_OK after about 10 frames.
 *  - the clipboard: with a window, the engine's UI context reads and
 *    writes the system clipboard (GLFW's) through its desc's callback
 *    pair, both ways; without one (the null backend) it keeps its own.
 *  - the null backend opens no window, display or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdatomic.h>
#include <string.h>

#include "engine/test_engine_fixture.h"
#include "ui/ui_internal.h"

#define HANG_NS (90ull * 1000000000ull)
enum { MINIMIZED_ITERATIONS = 30 };

static fx_project_t g_project;
static bool g_display;

typedef enum scenario {
    SC_RESIZE = 1,
    SC_MINIMIZE,
    SC_CLOSE,
    SC_CLIPBOARD,
    SC_NULL_BACKEND
} scenario;

typedef struct hooks_t {
    scenario sc;
    uint64_t close_at; /* SC_CLOSE */
    uint64_t start_ns;
    bool timed_out;
    bool windowed;  /* a window existed in on_update */
    bool no_window; /* a windowed run found none (the display refused GLFW) */
    int phase;
    uint64_t mark_rendered, mark_frame, mark_steps;
    /* SC_MINIMIZE, per round (0: framebuffer 0x0, 1: iconified) */
    uint64_t rendered_while_minimized[2], steps_while_minimized[2];
    bool resumed[2];
    int resized_w, resized_h;
    ze_render_stats_t stats; /* at on_closing */
    uint64_t last_frame;
    /* SC_CLIPBOARD: the context has the pair; what each side read */
    bool clip_wired, clip_own;
    char system_got[64], ui_got[64];
} hooks_t;

static void clipboard_update(hooks_t *h, ze_engine_t *e, GLFWwindow *w, uint64_t f)
{
    ze_ui_t *ui = ze_engine_ui(e);
    if (f == 3 && ui) {
        h->clip_wired = ui->clip_get && ui->clip_set && ui->clip_user == (void *)e;
        if (h->clip_wired) {
            const char out[] = "zui \xe2\x86\x92 system";
            ui->clip_set(ui->clip_user, out, sizeof out - 1);
            const char *got = glfwGetClipboardString(w);
            snprintf(h->system_got, sizeof h->system_got, "%s", got ? got : "(none)");
            glfwSetClipboardString(w, "system \xe2\x86\x92 zui");
            size_t n = 0;
            const char *in = ui->clip_get(ui->clip_user, &n);
            snprintf(h->ui_got, sizeof h->ui_got, "%.*s", (int)n, in ? in : "");
        }
    }
    if (f == 5)
        glfwSetWindowShouldClose(w, GLFW_TRUE);
}

static void small_window(void *user, ze_window_config_t *c)
{
    (void)user;
    c->width = 320;
    c->height = 240;
    c->vsync = false; /* Xvfb has no vblank to pace FIFO */
}

static uint64_t rendered(ze_engine_t *e)
{
    return ze_render_backend_stats(ze_engine_backend(e)).frames;
}

static uint64_t fixed_steps(ze_engine_t *e)
{
    return ze_kernel_frame_stats(ze_engine_kernel(e)).fixed_steps;
}

/* Deliver a window event to the callback the engine registered with GLFW
 * (glfwSet*Callback returns the previous one; it is put back at once). */
static void send_framebuffer_size(GLFWwindow *w, int width, int height)
{
    GLFWframebuffersizefun engine_fn = glfwSetFramebufferSizeCallback(w, NULL);
    glfwSetFramebufferSizeCallback(w, engine_fn);
    assert_non_null(engine_fn);
    engine_fn(w, width, height);
}

static void send_iconify(GLFWwindow *w, bool iconified)
{
    GLFWwindowiconifyfun engine_fn = glfwSetWindowIconifyCallback(w, NULL);
    glfwSetWindowIconifyCallback(w, engine_fn);
    assert_non_null(engine_fn);
    engine_fn(w, iconified ? GLFW_TRUE : GLFW_FALSE);
}

static void resize_update(hooks_t *h, ze_engine_t *e, GLFWwindow *w)
{
    ze_render_stats_t st = ze_render_backend_stats(ze_engine_backend(e));
    if (h->phase == 0 && st.frames >= 5) {
        glfwSetWindowSize(w, 400, 300);
        h->phase = 1;
    } else if (h->phase == 1 && st.swapchain_recreates >= 1) {
        h->mark_rendered = st.frames;
        h->phase = 2;
    } else if (h->phase == 2 && st.frames >= h->mark_rendered + 5) {
        h->phase = 3;
        glfwSetWindowShouldClose(w, GLFW_TRUE);
    }
}

/* Phases: 0 wait for 3 frames; per round r (0, 1): minimize (phase 1 + 3r),
 * hold it MINIMIZED_ITERATIONS iterations then restore (2 + 3r), wait for a
 * frame rendered after the restore (3 + 3r); phase 7 closes. */
static void minimize_update(hooks_t *h, ze_engine_t *e, GLFWwindow *w, uint64_t f)
{
    if (h->phase == 0) {
        if (rendered(e) >= 3)
            h->phase = 1;
        return;
    }
    int round = (h->phase - 1) / 3, step = (h->phase - 1) % 3;
    if (h->phase >= 7) {
        glfwSetWindowShouldClose(w, GLFW_TRUE);
        return;
    }
    if (step == 0) {
        if (round == 0)
            send_framebuffer_size(w, 0, 0);
        else
            send_iconify(w, true);
        h->mark_rendered = rendered(e);
        h->mark_frame = f;
        h->mark_steps = fixed_steps(e);
        h->phase++;
    } else if (step == 1) {
        if (f < h->mark_frame + MINIMIZED_ITERATIONS)
            return;
        h->rendered_while_minimized[round] = rendered(e) - h->mark_rendered;
        h->steps_while_minimized[round] = fixed_steps(e) - h->mark_steps;
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(w, &fw, &fh); /* the real size, to restore */
        if (round == 0)
            send_framebuffer_size(w, fw, fh);
        else
            send_iconify(w, false);
        h->mark_rendered = rendered(e);
        h->phase++;
    } else if (rendered(e) > h->mark_rendered) {
        h->resumed[round] = true;
        h->phase++;
    }
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    hooks_t *h = user;
    GLFWwindow *w = ze_engine_native_window(e);
    uint64_t f = ze_engine_frame_index(e);
    h->last_frame = f;
    if (!w) {
        ze_ui_t *ui = ze_engine_ui(e);
        h->clip_own = ui && !ui->clip_get && !ui->clip_set; /* headless: ZUI's own */
        /* a windowed scenario without a window would wait for events that
           never come: it ends at once and fails on its assertions */
        if (h->sc != SC_NULL_BACKEND) {
            h->no_window = true;
            ze_engine_request_close(e);
        }
        return;
    }
    h->windowed = true;
    if (ze_time_now_ns() - h->start_ns > HANG_NS) {
        h->timed_out = true;
        glfwSetWindowShouldClose(w, GLFW_TRUE);
        return;
    }
    if (h->sc == SC_RESIZE)
        resize_update(h, e, w);
    else if (h->sc == SC_MINIMIZE)
        minimize_update(h, e, w, f);
    else if (h->sc == SC_CLOSE && f == h->close_at)
        glfwSetWindowShouldClose(w, GLFW_TRUE);
    else if (h->sc == SC_CLIPBOARD)
        clipboard_update(h, e, w, f);
}

static void on_closing(ze_engine_t *e, void *user)
{
    hooks_t *h = user;
    h->stats = ze_render_backend_stats(ze_engine_backend(e));
    GLFWwindow *w = ze_engine_native_window(e);
    if (w)
        glfwGetFramebufferSize(w, &h->resized_w, &h->resized_h);
}

/* Validation messages and host-allocation problems logged on the "vulkan"
 * channel over a whole run, the backend's destroy included (the report's
 * count is taken before it: the layer checks at each destroy that the
 * allocation callbacks match the create's, surface and swapchain too). */
static atomic_uint g_vk_problems;

static void sink(void *user, const ze_log_record_t *rec)
{
    (void)user;
    if (rec->level >= ZE_LOG_WARN && strcmp(rec->channel, "vulkan") == 0 &&
        (strncmp(rec->message, "validation", 10) == 0 ||
         strncmp(rec->message, "host allocations", 16) == 0)) {
        atomic_fetch_add(&g_vk_problems, 1);
        print_error("vulkan: %s\n", rec->message);
    }
}

static int setup(void **state)
{
    (void)state;
    setenv("ZENGINE_VK_VALIDATION", "1", 1);
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL, .sink = sink});
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
    h->start_ns = ze_time_now_ns();
    atomic_store(&g_vk_problems, 0);
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
    ze_result r = ze_app_run(&app, &run, rep);
    if (h->no_window)
        print_error("the run fell back to headless: no window was opened (see the log)\n");
    assert_false(h->no_window);
    return r;
}

static void test_present_and_resize(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.sc = SC_RESIZE};
    ze_run_report_t rep;
    ze_result r = run_windowed(&h, 0 /* until closed */, &rep);
    print_message(
        "result %s: frames %llu, rendered %llu, recreates %llu, validation %llu, "
        "device %s, final framebuffer %dx%d\n",
        ze_result_str(r), (unsigned long long)rep.frames, (unsigned long long)rep.frames_rendered,
        (unsigned long long)h.stats.swapchain_recreates,
        (unsigned long long)rep.validation_messages, rep.device, h.resized_w, h.resized_h);
    assert_int_equal(r, ZE_OK);
    assert_false(h.timed_out);
    assert_true(h.windowed);
    assert_int_equal(h.phase, 3);
    assert_non_null(strstr(rep.device, "window"));
    assert_true(rep.validation_enabled);
    assert_int_equal(rep.validation_messages, 0);
    assert_int_equal(atomic_load(&g_vk_problems), 0); /* shutdown included */
    assert_true(rep.vulkan_host_bytes > 0);           /* the owner served the window's too */
    assert_true(h.stats.swapchain_recreates >= 1);
    assert_int_equal(h.resized_w, 400);
    assert_int_equal(h.resized_h, 300);
    assert_true(rep.shutdown_complete);
    assert_int_equal(rep.stages_unwound, rep.stages_completed);
}

static void test_minimized_simulates_without_rendering(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.sc = SC_MINIMIZE};
    ze_run_report_t rep;
    ze_result r = run_windowed(&h, 0 /* until closed */, &rep);
    for (int i = 0; i < 2; i++)
        print_message("%s: %llu fixed steps and %llu frames rendered in %d iterations; "
                      "rendering %s after the restore\n",
                      i == 0 ? "framebuffer 0x0" : "iconified",
                      (unsigned long long)h.steps_while_minimized[i],
                      (unsigned long long)h.rendered_while_minimized[i], MINIMIZED_ITERATIONS,
                      h.resumed[i] ? "resumed" : "did not resume");
    assert_int_equal(r, ZE_OK);
    assert_false(h.timed_out);
    assert_int_equal(h.phase, 7);
    for (int i = 0; i < 2; i++) {
        /* at most what was under way at the minimize: the frame the render
           thread was rendering and the newest state already published */
        assert_true(h.rendered_while_minimized[i] <= 2);
        assert_true(h.steps_while_minimized[i] > 0);
        assert_true(h.resumed[i]);
    }
    assert_int_equal(rep.validation_messages, 0);
    assert_int_equal(atomic_load(&g_vk_problems), 0);
    assert_true(rep.shutdown_complete);
}

static void test_window_close_ends_run(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.sc = SC_CLOSE, .close_at = 10};
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

static void test_clipboard_is_the_systems(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.sc = SC_CLIPBOARD};
    ze_run_report_t rep;
    assert_int_equal(run_windowed(&h, 0 /* until closed */, &rep), ZE_OK);
    assert_false(h.timed_out);
    assert_true(h.clip_wired);
    assert_string_equal(h.system_got, "zui \xe2\x86\x92 system");
    assert_string_equal(h.ui_got, "system \xe2\x86\x92 zui");
    assert_int_equal(rep.validation_messages, 0);
}

/* The null backend draws nothing: even with a display and headless off it
 * opens no window, and the run still simulates its frames. */
static void test_null_backend_opens_no_window(void **state)
{
    (void)state;
    if (!g_display)
        skip();
    hooks_t h = {.sc = SC_NULL_BACKEND};
    ze_app_desc_t app = {.name = "test_vk_window", .user = &h, .on_update = on_update};
    ze_run_desc_t run = fx_run(&g_project);
    run.headless = false;
    run.backend = "null";
    run.frames = 5;
    h.start_ns = ze_time_now_ns();
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_false(h.windowed);
    assert_true(h.clip_own);
    assert_int_equal(h.last_frame, 4);
    assert_int_equal(rep.frames, 5);
    assert_null(strstr(rep.device, "window"));
}

int main(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if (!(x && x[0]) && !(wl && wl[0]))
        fprintf(stderr, "test_vk_window: no display (DISPLAY/WAYLAND_DISPLAY unset): skipped; "
                        "ctest runs it under xvfb-run as test_vk_window_xvfb\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_present_and_resize),
        cmocka_unit_test(test_minimized_simulates_without_rendering),
        cmocka_unit_test(test_window_close_ends_run),
        cmocka_unit_test(test_clipboard_is_the_systems),
        cmocka_unit_test(test_null_backend_opens_no_window),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
