/* Failures are loud (issue "The first hour"): a run that did not do what
 * was asked ends with an error result, "ok": false in --stats and a report
 * naming the cause — a missing model, a missing cooker, an output path that
 * cannot be written — and --strict turns a reported warning into a failure.
 * Each case builds its own project from the fixture and runs the engine with
 * the null backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/test_engine_fixture.h"

/* Every report of the run, as the app's sink receives them. */
typedef struct heard_t {
    ze_diag_capture_t capture;
    char all[8192];
    size_t len;
} heard_t;

static void heard_fn(void *user, const ze_diag_t *d)
{
    heard_t *h = user;
    char line[ZE_DIAG_TEXT_MAX];
    ze_diag_format(d, line, sizeof line);
    int n = snprintf(h->all + h->len, sizeof h->all - h->len, "%s\n", line);
    if (n > 0 && h->len + (size_t)n < sizeof h->all)
        h->len += (size_t)n;
    h->capture.count++;
}

static char *slurp(const char *path)
{
    static char text[65536];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return text;
}

/* A fresh project, a virtual-clock run of a few frames with --stats. */
static ze_run_desc_t loud_run(fx_project_t *p, char *stats, size_t cap)
{
    assert_true(fx_project_make(p));
    snprintf(stats, cap, "%s/stats.json", p->root);
    ze_run_desc_t run = fx_run(p);
    run.frames = 3;
    run.fixed_dt = 1.0 / 60.0;
    run.backend = "null";
    run.stats = stats;
    return run;
}

static ze_result run_heard(const ze_run_desc_t *run, ze_run_report_t *rep, heard_t *h)
{
    memset(h, 0, sizeof *h);
    ze_app_desc_t app = {.name = "loud", .diag = {heard_fn, h}};
    ze_result r = ze_app_run(&app, run, rep);
    ze_result w = ze_run_report_write_json(rep, run->stats);
    print_message("result %s: %s\n%s", ze_result_str(r), rep->error, h->all);
    assert_int_equal(w, ZE_OK);
    return r;
}

static void test_missing_model(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700], path[700];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    snprintf(path, sizeof path, "%s/models/crate.gltf", p.root);
    assert_int_equal(unlink(path), 0);
    ze_run_report_t rep;
    heard_t h;
    assert_int_equal(run_heard(&run, &rep, &h), ZE_ERR_NOT_FOUND);
    assert_true(rep.unresolved_assets >= 1);
    assert_non_null(strstr(rep.error, "never resolved"));
    /* the report names the missing uuid and an entity that uses it */
    char mesh[ZE_UUID_STRING_LEN + 1];
    fx_uuid_str(p.mesh, mesh);
    assert_non_null(strstr(h.all, mesh));
    assert_non_null(strstr(h.all, "'Crate "));
    const char *json = slurp(stats);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"ok\": false"));
    assert_null(strstr(json, "\"unresolved_assets\": 0"));
    fx_project_remove(&p);
}

static void test_missing_cooker(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    run.import_mode = ZE_IMPORT_CHILD_PROCESS;
    run.in_process_cook = NULL;
    run.cooker = "/nonexistent/zengine";
    ze_run_report_t rep;
    heard_t h;
    assert_int_not_equal(run_heard(&run, &rep, &h), ZE_OK);
    /* the cause, and the setting that fixes it */
    assert_non_null(strstr(h.all, "no usable cooker: '/nonexistent/zengine'"));
    assert_non_null(strstr(h.all, "ZENGINE_COOKER"));
    assert_true(rep.unresolved_assets + rep.failed_assets >= 1);
    assert_non_null(strstr(slurp(stats), "\"ok\": false"));
    fx_project_remove(&p);
}

static void test_unwritable_output(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700], bad[800];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    snprintf(bad, sizeof bad, "%s/no/such/folder/stats.json", p.root);
    run.stats = bad;
    ze_run_report_t rep;
    heard_t h;
    memset(&h, 0, sizeof h);
    ze_app_desc_t app = {.name = "loud", .diag = {heard_fn, &h}};
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_IO);
    print_message("%s\n", rep.error);
    /* refused before anything started, with the system's reason */
    assert_int_equal(rep.stages_completed, 0);
    assert_non_null(strstr(rep.error, "--stats"));
    assert_non_null(strstr(rep.error, "No such file or directory"));
    assert_int_equal(h.capture.count, 1);
    /* the same for a screenshot */
    run.stats = NULL;
    snprintf(bad, sizeof bad, "%s/missing/shot.png", p.root);
    run.screenshot = bad;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_IO);
    assert_non_null(strstr(rep.error, "--screenshot"));
    fx_project_remove(&p);
}

/* A scene with a component nobody registered: a warning; --strict fails. */
static void test_strict(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700], path[700];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    snprintf(path, sizeof path, "%s/scenes/main.scene.json", p.root);
    const char *scene = "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n"
                        "{\"uuid\": \"6f0f3c8e-2d1b-4a4e-9a51-0c6d2f7f8b01\", \"components\": "
                        "{\"Bogus\": {}}}]}\n";
    assert_true(fx_write(path, scene, strlen(scene)));
    ze_run_report_t rep;
    heard_t h;
    assert_int_equal(run_heard(&run, &rep, &h), ZE_OK);
    assert_true(rep.warnings >= 1);
    assert_non_null(strstr(h.all, "Bogus"));
    assert_non_null(strstr(slurp(stats), "\"ok\": true"));
    run.strict = true;
    assert_int_equal(run_heard(&run, &rep, &h), ZE_ERR_DENIED);
    assert_non_null(strstr(rep.error, "--strict"));
    assert_non_null(strstr(rep.error, "Bogus"));
    assert_non_null(strstr(slurp(stats), "\"ok\": false"));
    fx_project_remove(&p);
}

/* Two systems writing Transform, unordered: start-up fails after
 * on_initialized returns, before any frame, naming both systems, the
 * component and the call that fixes it. */
static void mover(ze_world_t *w, const ze_tick_t *t)
{
    (void)w;
    (void)t;
}

static ze_result add_conflict(ze_engine_t *e, void *user)
{
    (void)user;
    ze_world_t *w = ze_engine_world(e);
    ze_mask_t tr = ZE_MASK(ze_transform_t);
    ze_system_add(w, &(ze_system_desc_t){.name = "spin", .fn = mover, .writes = tr});
    ze_system_add(w, &(ze_system_desc_t){.name = "bob", .fn = mover, .writes = tr});
    return ZE_OK;
}

static void test_system_conflict_fails_start(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    heard_t h;
    memset(&h, 0, sizeof h);
    ze_app_desc_t app = {.name = "loud", .on_initialized = add_conflict, .diag = {heard_fn, &h}};
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_ERR_CONFLICT);
    print_message("%s\n%s", rep.error, h.all);
    assert_int_equal(rep.frames, 0);
    assert_non_null(strstr(rep.error, "\"spin\" and \"bob\""));
    assert_non_null(strstr(h.all, "both write Transform"));
    assert_non_null(strstr(h.all, "ze_system_order"));
    assert_int_equal(ze_run_report_write_json(&rep, stats), ZE_OK);
    assert_non_null(strstr(slurp(stats), "\"ok\": false"));
    fx_project_remove(&p);
}

/* The start scene is added to what on_initialized created. */
typedef struct keep_t {
    ze_entity_t mine;
    bool alive_at_first_frame;
    uint32_t entities_at_first_frame;
    uint64_t updates;
} keep_t;

static ze_result create_mine(ze_engine_t *e, void *user)
{
    keep_t *k = user;
    ze_world_t *w = ze_engine_world(e);
    k->mine = ze_entity_create(w);
    ze_set(w, k->mine, ze_name_t, {"mine"});
    return ZE_OK;
}

static void check_mine(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    keep_t *k = user;
    if (k->updates++ == 0) {
        k->alive_at_first_frame = ze_entity_alive(ze_engine_world(e), k->mine);
        k->entities_at_first_frame = ze_world_entity_count(ze_engine_world(e));
    }
}

static void test_on_initialized_entities_survive_the_start_scene(void **state)
{
    (void)state;
    fx_project_t p;
    char stats[700];
    ze_run_desc_t run = loud_run(&p, stats, sizeof stats);
    keep_t k = {0};
    ze_app_desc_t app = {
        .name = "keep", .user = &k, .on_initialized = create_mine, .on_update = check_mine};
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_true(k.alive_at_first_frame);
    /* the scene loaded too: its crates are drawn */
    assert_int_equal(rep.instances, FX_CRATES);
    assert_true(k.entities_at_first_frame > FX_CRATES);
    fx_project_remove(&p);
}

int main(void)
{
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_ERROR});
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_model),
        cmocka_unit_test(test_missing_cooker),
        cmocka_unit_test(test_unwritable_output),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_system_conflict_fails_start),
        cmocka_unit_test(test_on_initialized_entities_survive_the_start_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
