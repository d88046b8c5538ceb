/* The Vulkan backend's render-thread check: between create and destroy
 * every Vulkan call happens on the render thread, which the backend records
 * at its first frame; in debug builds (ZE_DEBUG) a frame or a screenshot
 * from another thread after that asserts (SIGABRT, the assertion naming the
 * render-thread check on stderr). Thread-safe entry points (stats,
 * resident) from another thread, and destroy on the main thread after the
 * render thread is joined (the engine's order), are fine. Each case runs in
 * a forked child that makes its own backend (no Vulkan state or threads
 * cross the fork); lavapipe in CI, validation on. Release builds: skipped
 * (the check compiles away). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zengine/gfx.h"

#ifdef ZE_DEBUG

enum { W = 64, H = 64 };

typedef enum intruder_t {
    INTRUDER_NONE,       /* only the render thread calls Vulkan: exit 0 */
    INTRUDER_FRAME,      /* the main thread renders a frame: abort */
    INTRUDER_SCREENSHOT, /* the main thread writes a screenshot: abort */
} intruder_t;

typedef struct child_t {
    ze_render_backend_t *b;
    ze_result frame_result, shot_result;
    char png[128];
} child_t;

static ze_render_state_t empty_scene(uint64_t frame)
{
    ze_render_state_t s = {
        .frame = frame,
        .width = W,
        .height = H,
        .has_camera = true,
        .sky = {.clear_color = {0.05f, 0.07f, 0.1f}, .exposure = 1.0f},
    };
    ze_vec3_t eye = {0, 0, 5};
    s.camera.view = ze_mat4_look_at(eye, (ze_vec3_t){0, 0, 0}, (ze_vec3_t){0, 1, 0});
    s.camera.projection = ze_mat4_perspective(0.8f, 1.0f, 0.1f, 100.0f);
    s.camera.position = eye;
    s.camera.fov_y = 0.8f;
    s.camera.near_plane = 0.1f;
    s.camera.far_plane = 100.0f;
    s.camera.aspect = 1.0f;
    return s;
}

static void *render_thread(void *p)
{
    child_t *c = p;
    ze_render_state_t s = empty_scene(1);
    c->frame_result = ze_render_backend_frame(c->b, &s);
    s.frame = 2;
    if (c->frame_result == ZE_OK)
        c->frame_result = ze_render_backend_frame(c->b, &s);
    c->shot_result = ze_render_backend_screenshot(c->b, c->png);
    return NULL;
}

/* In the child: a backend, a render thread that renders two frames and a
 * screenshot, then the intrusion from the main thread. Exit 0 when every
 * call worked. */
static void child(intruder_t intruder)
{
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_FATAL}); /* the assertion only */
    ze_mem_t *mm = NULL;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK)
        _exit(3);
    child_t c = {0};
    snprintf(c.png, sizeof c.png, "/tmp/ze_vk_render_thread_%d.png", (int)getpid());
    ze_render_backend_desc_t d = {.mem = mm, .headless = true, .width = W, .height = H};
    if (ze_render_backend_create("vulkan", &d, &c.b) != ZE_OK)
        _exit(4);
    pthread_t t;
    if (pthread_create(&t, NULL, render_thread, &c) != 0 || pthread_join(t, NULL) != 0)
        _exit(5);
    unlink(c.png);
    if (c.frame_result != ZE_OK || c.shot_result != ZE_OK)
        _exit(6);
    /* any thread: no Vulkan calls */
    ze_render_stats_t st = ze_render_backend_stats(c.b);
    if (st.frames != 2 || st.validation_messages != 0 ||
        ze_render_backend_resident(c.b, (ze_uuid_t){{1}}) != 0)
        _exit(7);
    if (intruder == INTRUDER_FRAME) {
        ze_render_state_t s = empty_scene(3);
        (void)ze_render_backend_frame(c.b, &s); /* aborts */
        _exit(8);
    }
    if (intruder == INTRUDER_SCREENSHOT) {
        (void)ze_render_backend_screenshot(c.b, c.png); /* aborts */
        unlink(c.png);
        _exit(8);
    }
    ze_render_backend_destroy(c.b); /* main thread, the render thread joined */
    ze_mem_destroy(mm);
    _exit(0);
}

/* Runs the child with its stderr in `err`; returns the wait status. */
static int run_child(intruder_t intruder, char *err, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        child(intruder);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while ((got = read(fds[0], err + n, cap - 1 - n)) > 0 && n + (size_t)got < cap - 1)
        n += (size_t)got;
    if (got > 0)
        n += (size_t)got;
    err[n] = 0;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void expect_abort(intruder_t intruder)
{
    static char err[16384];
    int status = run_child(intruder, err, sizeof err);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
        fail_msg("expected SIGABRT, got status 0x%x; stderr:\n%s", status, err);
    const char *at = strstr(err, "assertion failed");
    if (!at || !strstr(at, "render_thread"))
        fail_msg("the abort is not the render-thread check; stderr:\n%s", err);
    const char *bol = at, *eol = strchr(at, '\n');
    while (bol > err && bol[-1] != '\n')
        bol--;
    print_message("child: %.*s\n", eol ? (int)(eol - bol) : (int)strlen(bol), bol);
}

static void test_frame_from_another_thread_aborts(void **state)
{
    (void)state;
    expect_abort(INTRUDER_FRAME);
}

static void test_screenshot_from_another_thread_aborts(void **state)
{
    (void)state;
    expect_abort(INTRUDER_SCREENSHOT);
}

static void test_render_thread_only_works(void **state)
{
    (void)state;
    static char err[16384];
    int status = run_child(INTRUDER_NONE, err, sizeof err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("expected exit 0, got status 0x%x; stderr:\n%s", status, err);
}

int main(void)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* inherited by the children */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_thread_only_works),
        cmocka_unit_test(test_frame_from_another_thread_aborts),
        cmocka_unit_test(test_screenshot_from_another_thread_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static void test_release_skipped(void **state)
{
    (void)state;
    skip(); /* ZE__VK_ON_RENDER_THREAD compiles away without ZE_DEBUG */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
