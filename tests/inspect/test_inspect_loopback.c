/* The inspector over loopback: a headless run whose app makes named
 * entities; a client thread asks /api/worlds and /api/entities and checks
 * them against what the app made, and that a foreign Host and a write in a
 * read-only run get 403. */
#include <arpa/inet.h>
#include <jansson.h>
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

enum { ENTITIES = 5 };

typedef struct probe_t {
    _Atomic unsigned port;
    atomic_bool done;
    int status[4];
    json_int_t world_entities, listed_total;
    int names_seen;
} probe_t;

static void *client(void *arg)
{
    probe_t *p = arg;
    static char buf[1 << 16];
    while (!atomic_load(&p->port))
        usleep(1000);
    unsigned port = atomic_load(&p->port);
    p->status[0] = http_get(port, "/api/worlds", buf, sizeof buf);
    json_t *j = json_loads(buf, 0, NULL);
    json_t *w0 = json_array_get(json_object_get(j, "worlds"), 0);
    p->world_entities = json_integer_value(json_object_get(w0, "entities"));
    json_decref(j);
    p->status[1] =
        http_do(port, &(http_req_t){.path = "/api/entities?with=Name", .host = "localhost"}, buf,
                sizeof buf);
    j = json_loads(buf, 0, NULL);
    p->listed_total = json_integer_value(json_object_get(j, "total"));
    json_t *list = json_object_get(j, "entities");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(list, i), "name"));
        if (name && strncmp(name, "probe ", 6) == 0)
            p->names_seen++;
    }
    json_decref(j);
    p->status[2] = http_do(port, &(http_req_t){.path = "/api/worlds", .host = "evil.example.com"},
                           buf, sizeof buf);
    p->status[3] = http_do(
        port, &(http_req_t){.method = "POST", .path = "/api/pause", .body = "{\"paused\": true}"},
        buf, sizeof buf);
    atomic_store(&p->done, true);
    return NULL;
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    (void)user;
    ze_world_t *w = ze_engine_world(e);
    return fixture_named_entities(w, "probe", ENTITIES, NULL);
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    probe_t *p = user;
    ze_inspector_t *in = ze_engine_inspector(e);
    if (in && !atomic_load(&p->port))
        atomic_store(&p->port, ze_inspector_port(in));
    if (atomic_load(&p->done))
        ze_engine_request_close(e);
}

static void test_endpoints_and_refusals(void **state)
{
    (void)state;
    char dir[] = "/tmp/zengine-inspect-XXXXXX", project[256];
    assert_true(fixture_project(dir, "Inspect Test", project, sizeof project));
    probe_t p;
    memset(&p, 0, sizeof p);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, client, &p), 0);
    ze_app_desc_t app = {.name = "inspect test",
                         .user = &p,
                         .on_initialized = on_initialized,
                         .on_update = on_update,
                         .inspector = ze_inspector_tool()};
    /* 100,000 frames: a hang deadline, the client closes the run */
    ze_result r = fixture_run(&app, project, 100000, 1.0 / 60.0, false);
    if (!atomic_load(&p.port))
        atomic_store(&p.port, 1); /* let the client give up */
    atomic_store(&p.done, true);
    pthread_join(t, NULL);
    fixture_project_remove(dir, project);
    assert_int_equal(r, ZE_OK);
    print_message("statuses %d %d %d %d; world entities %lld, listed %lld, names %d\n", p.status[0],
                  p.status[1], p.status[2], p.status[3], (long long)p.world_entities,
                  (long long)p.listed_total, p.names_seen);
    assert_int_equal(p.status[0], 200);
    assert_int_equal(p.status[1], 200);
    assert_int_equal(p.world_entities, ENTITIES);
    assert_int_equal(p.listed_total, ENTITIES);
    assert_int_equal(p.names_seen, ENTITIES);
    assert_int_equal(p.status[2], 403); /* a foreign Host */
    assert_int_equal(p.status[3], 403); /* writes are off */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoints_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
