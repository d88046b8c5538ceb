/* 200 slow clients against the inspector's limit of 64 connections, under
 * the virtual clock: each sends the start of a request and then one header
 * line at a time, never finishing, while the loop runs 100 frames. Then:
 *   - the loop advanced: the 100 frames ran, each with its fixed step (the
 *     simulation kept ≥ 95 % of its frames; without clients it has them all),
 *   - 64 connections were held, the 136 past the limit were refused (closed
 *     before a byte was read, counted in the inspector's stats),
 *   - finishing the requests gets each held client its answer,
 *   - the Inspect memory owner stayed within its budget, no failed
 *     allocation.
 * Nothing here depends on speed: the window is counted in frames, the only
 * clock is each wait's hang deadline. */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "inspect/http_client.h"
#include "inspect/inspect_fixture.h"
#include "zengine/inspect.h"

enum { CLIENTS = 200, LIMIT = 64, WINDOW = 100, BUF = 1 << 16 };

typedef struct app_t {
    _Atomic unsigned port;
    atomic_bool connected; /* the client: every socket has sent its first bytes */
    atomic_bool window_done, done;
    /* main thread, at the window's start and end */
    uint64_t frame0, steps0, frames, steps;
    ze_inspector_stats_t at_end;
    /* the client's findings */
    int sockets, answered, closed_early, other;
    json_int_t inspect_current, inspect_budget, inspect_failures, refused_reported;
    char failure[256];
} app_t;

static app_t g_app;

static uint64_t g_sim_steps; /* main thread: fixed steps the system saw */
static void step_counter(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
    g_sim_steps++;
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    (void)user;
    ze_world_t *w = ze_engine_world(e);
    ze_system_t s =
        ze_system_add(w, &(ze_system_desc_t){.name = "step_counter", .fn = step_counter});
    return s.id ? ZE_OK : ZE_ERR_INTERNAL;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    app_t *a = user;
    ze_inspector_t *in = ze_engine_inspector(e);
    if (!in)
        return;
    if (!atomic_load(&a->port))
        atomic_store(&a->port, ze_inspector_port(in));
    ze_inspector_stats_t st = ze_inspector_stats(in);
    uint64_t f = ze_engine_frame_index(e);
    /* the window opens once the server has seen every client */
    if (!a->frame0 && atomic_load(&a->connected) && st.connections + st.refused >= CLIENTS) {
        a->frame0 = f;
        a->steps0 = g_sim_steps;
    }
    if (a->frame0 && !atomic_load(&a->window_done) && f >= a->frame0 + WINDOW) {
        a->frames = f - a->frame0;
        a->steps = g_sim_steps - a->steps0;
        a->at_end = st;
        atomic_store(&a->window_done, true);
    }
    if (atomic_load(&a->done))
        ze_engine_request_close(e);
}

static int g_fd[CLIENTS];

static void send_some(int fd, const char *s)
{
    if (fd >= 0)
        (void)send(fd, s, strlen(s), MSG_NOSIGNAL);
}

/* Reads what fd answers until it closes (30 s deadline): 1 an HTTP 200,
 * 0 closed with no bytes (refused), -1 anything else. */
static int outcome(int fd)
{
    char buf[BUF];
    size_t len = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (len + 1 < sizeof buf && poll(&p, 1, 30000) == 1) {
        ssize_t got = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    if (len == 0)
        return 0;
    return strncmp(buf, "HTTP/1.1 200", 12) == 0 ? 1 : -1;
}

static void *client(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_app.port) && !atomic_load(&g_app.done))
        usleep(1000);
    unsigned port = atomic_load(&g_app.port);
    for (int i = 0; i < CLIENTS; i++) {
        g_fd[i] = port ? http_connect(port) : -1;
        g_app.sockets += g_fd[i] >= 0;
        /* a request's start; "Connection: close" so the answer ends it */
        send_some(g_fd[i], "GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    }
    atomic_store(&g_app.connected, true);
    /* slow: one header line per client per round until the window closes
       (a hang deadline of 100000 rounds) */
    for (int round = 0; round < 100000 && !atomic_load(&g_app.window_done) && port; round++) {
        for (int i = 0; i < CLIENTS; i++)
            send_some(g_fd[i], "X-Slow: 1\r\n");
        usleep(2000);
    }
    /* finish every request; the held ones get answers, the refused ones
       were closed before */
    for (int i = 0; i < CLIENTS; i++)
        send_some(g_fd[i], "\r\n");
    for (int i = 0; i < CLIENTS; i++) {
        if (g_fd[i] < 0)
            continue;
        int o = outcome(g_fd[i]);
        g_app.answered += o == 1;
        g_app.closed_early += o == 0;
        g_app.other += o == -1;
        close(g_fd[i]);
    }
    static char buf[BUF];
    if (port && http_get(port, "/api/memory", buf, sizeof buf) == 200) {
        json_t *j = json_loads(buf, 0, NULL);
        json_t *owners = json_object_get(j, "owners");
        for (size_t i = 0; i < json_array_size(owners); i++) {
            json_t *o = json_array_get(owners, i);
            if (strcmp(json_string_value(json_object_get(o, "name")), "Inspect") == 0) {
                g_app.inspect_current = json_integer_value(json_object_get(o, "current"));
                g_app.inspect_budget = json_integer_value(json_object_get(o, "budget"));
                g_app.inspect_failures = json_integer_value(json_object_get(o, "failures"));
            }
        }
        json_decref(j);
    }
    if (port && http_get(port, "/api/stats", buf, sizeof buf) == 200) {
        json_t *j = json_loads(buf, 0, NULL);
        g_app.refused_reported =
            json_integer_value(json_object_get(json_object_get(j, "inspector"), "refused"));
        json_decref(j);
    }
    atomic_store(&g_app.done, true);
    return NULL;
}

static void test_slow_clients_past_the_limit(void **state)
{
    (void)state;
    char dir[] = "/tmp/zengine-inspect-clients-XXXXXX", project[256];
    assert_true(fixture_project(dir, "Inspect Clients Test", project, sizeof project));
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, client, NULL), 0);
    ze_app_desc_t app = {.name = "inspect clients test",
                         .user = &g_app,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .inspector = ze_inspector_tool()};
    /* 1,000,000 frames: a hang deadline, the client closes the run */
    ze_result r = fixture_run(&app, project, 1000000, 1.0 / 60.0, false);
    atomic_store(&g_app.done, true);
    atomic_store(&g_app.window_done, true);
    pthread_join(t, NULL);
    fixture_project_remove(dir, project);
    assert_int_equal(r, ZE_OK);
    const ze_inspector_stats_t *s = &g_app.at_end;
    print_message("window: %llu frames, %llu fixed steps; at its end %u connections, %llu refused; "
                  "then %d answered, %d closed early, %d other; Inspect %lld of %lld bytes, %lld "
                  "failures\n",
                  (unsigned long long)g_app.frames, (unsigned long long)g_app.steps, s->connections,
                  (unsigned long long)s->refused, g_app.answered, g_app.closed_early, g_app.other,
                  (long long)g_app.inspect_current, (long long)g_app.inspect_budget,
                  (long long)g_app.inspect_failures);
    assert_int_equal(g_app.sockets, CLIENTS);
    assert_true(g_app.frames >= WINDOW);
    assert_true(g_app.steps * 100 >= g_app.frames * 95); /* 1 step per frame at fixed_dt */
    assert_int_equal(s->connections, LIMIT);
    assert_int_equal(s->refused, CLIENTS - LIMIT);
    assert_int_equal(g_app.answered, LIMIT);
    assert_int_equal(g_app.closed_early, CLIENTS - LIMIT);
    assert_int_equal(g_app.other, 0);
    assert_int_equal(g_app.refused_reported, CLIENTS - LIMIT);
    assert_true(g_app.inspect_current > 0 && g_app.inspect_current <= g_app.inspect_budget);
    assert_int_equal(g_app.inspect_failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_clients_past_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
