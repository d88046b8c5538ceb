/* The render graph in a running engine (the Vulkan backend headless on the
 * fixture project, validation on, zero messages): `--dump-graph` parses
 * into the run desc; the dump written after the last frame lists the
 * frame's passes in order with their uses and barriers and the transients
 * with their bytes; the report and the --stats JSON carry the GPU time of
 * each pass as a "gpu_passes" list of {name, gpu_ms} (no pass names in
 * public fields) and the Vulkan owner's host bytes; the null backend has
 * no graph to dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include <jansson.h>

#include "engine/test_engine_fixture.h"

static fx_project_t g_project;

static int setup(void **state)
{
    setenv("ZENGINE_VK_VALIDATION", "1", 1); /* test builds: on in release too */
    (void)state;
    ze_log_configure(&(ze_log_desc_t){.quiet = getenv("ZE_TEST_VERBOSE") == NULL});
    return fx_project_make(&g_project) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fx_project_remove(&g_project);
    ze_log_reset();
    return 0;
}

static void test_args(void **state)
{
    (void)state;
    char *argv[] = {"run", "--project", "p.json", "--dump-graph", "g.json", NULL};
    ze_run_desc_t run;
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    assert_int_equal(ze_run_parse_args(5, argv, &run, NULL, NULL, &sink), ZE_OK);
    assert_string_equal(run.dump_graph, "g.json");
    char *bad[] = {"run", "--project", "p.json", "--dump-graph", NULL};
    assert_int_equal(ze_run_parse_args(4, bad, &run, NULL, NULL, &sink), ZE_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.last, "--dump-graph needs a value"));
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    assert_non_null(s);
    return s;
}

/* Runs until the backend has rendered a few frames and published the
 * timestamps of one (they are read one frame late), or a deadline that
 * only catches a hang. */
static void until_timed(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    uint64_t *deadline = user;
    ze_render_stats_t st = ze_render_backend_stats(ze_engine_backend(e));
    if ((st.frames >= 4 && st.gpu_pass_count > 0) || ze_time_now_ns() > *deadline)
        ze_engine_request_close(e);
    else
        ze_time_sleep_ns(2000000); /* let the render thread take the newest state */
}

static void test_dump_and_pass_times(void **state)
{
    (void)state;
    uint64_t deadline = ze_time_now_ns() + (FX_SANITIZED ? 120ull : 60ull) * 1000000000ull;
    ze_app_desc_t app = {.name = "graph_run", .user = &deadline, .on_update = until_timed};
    char dump[400], stats[400];
    snprintf(dump, sizeof dump, "%s/graph.json", g_project.root);
    snprintf(stats, sizeof stats, "%s/stats.json", g_project.root);
    ze_run_desc_t run = fx_run(&g_project);
    run.backend = "vulkan";
    run.frames = 0; /* until_timed closes it */
    run.fixed_dt = 1.0 / 60.0;
    run.dump_graph = dump;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(&app, &run, &rep), ZE_OK);
    assert_int_equal(ze_run_report_write_json(&rep, stats), ZE_OK); /* what --stats writes */
    assert_int_equal(rep.validation_messages, 0);
    assert_true(rep.frames_rendered >= 4);

    /* the report: one time per pass, in the order they ran (occlusion
       culling is on by default: the pyramid and the late passes) */
    static const char *const order[] = {
        "scatter",   "bins_clear", "cull",       "bins",         "place",   "forward", "pyramid",
        "cull_late", "bins_late",  "place_late", "forward_late", "tonemap", "ui"};
    enum { PASSES = sizeof order / sizeof order[0] };
    assert_int_equal(rep.gpu_pass_count, PASSES);
    for (uint32_t i = 0; i < PASSES; i++)
        assert_string_equal(rep.gpu_passes[i].name, order[i]);
    for (uint32_t i = 0; i < rep.gpu_pass_count; i++) {
        print_message("%s: %.3f ms\n", rep.gpu_passes[i].name, rep.gpu_passes[i].gpu_ms);
        assert_true(rep.gpu_passes[i].gpu_ms >= 0.0);
    }

    /* --stats: the same list; the per-pass keys of before are gone */
    json_error_t jerr;
    json_t *st = json_load_file(stats, 0, &jerr);
    if (!st)
        fail_msg("%s: %s", stats, jerr.text);
    assert_null(json_object_get(st, "gpu_forward_ms"));
    assert_null(json_object_get(st, "gpu_tonemap_ms"));
    json_t *gp = json_object_get(st, "gpu_passes");
    assert_true(json_is_array(gp));
    assert_int_equal(json_array_size(gp), PASSES);
    for (uint32_t i = 0; i < PASSES; i++)
        assert_string_equal(str(json_array_get(gp, i), "name"), order[i]);
    /* the culling counts: the fixture's crate is in view */
    json_int_t draws = json_integer_value(json_object_get(st, "draws"));
    json_int_t visible = json_integer_value(json_object_get(st, "draws_visible"));
    json_int_t culled = json_integer_value(json_object_get(st, "draws_frustum_culled"));
    json_t *occ = json_object_get(st, "draws_occlusion_culled");
    assert_true(json_is_integer(occ));
    print_message("draws %lld, visible %lld, frustum-culled %lld, occlusion-culled %lld\n",
                  (long long)draws, (long long)visible, (long long)culled,
                  (long long)json_integer_value(occ));
    assert_true(draws > 0);
    assert_true(visible > 0);
    assert_int_equal(visible + culled + json_integer_value(occ), draws);
    /* instanced: at most a command per visible draw, at least one */
    json_int_t commands = json_integer_value(json_object_get(st, "draw_commands"));
    json_int_t triangles = json_integer_value(json_object_get(st, "triangles"));
    print_message("draw_commands %lld, triangles %lld\n", (long long)commands,
                  (long long)triangles);
    assert_true(commands >= 1 && commands <= visible);
    assert_true(triangles >= visible);
    assert_true(json_is_real(json_object_get(json_array_get(gp, 0), "gpu_ms")));
    /* the Vulkan owner's host bytes (the backend's allocation callbacks) */
    json_int_t host = json_integer_value(json_object_get(st, "vulkan_host_bytes"));
    json_int_t host_peak = json_integer_value(json_object_get(st, "vulkan_host_bytes_peak"));
    print_message("vulkan_host_bytes %lld, peak %lld\n", (long long)host, (long long)host_peak);
    assert_true(host > 0);
    assert_true(host_peak >= host);
    assert_true(json_is_integer(json_object_get(st, "vulkan_internal_bytes")));
    assert_true(json_is_integer(json_object_get(st, "vulkan_host_allocations")));
    json_decref(st);

    /* the dump: passes in order with uses and barriers; the transients */
    json_t *g = json_load_file(dump, 0, &jerr);
    if (!g)
        fail_msg("%s: %s", dump, jerr.text);
    json_t *passes = json_object_get(g, "passes");
    assert_int_equal(json_array_size(passes), PASSES);
    for (uint32_t i = 0; i < PASSES; i++)
        assert_string_equal(str(json_array_get(passes, i), "name"), order[i]);
    json_t *sc = json_array_get(passes, 0), *bc = json_array_get(passes, 1);
    json_t *cu = json_array_get(passes, 2), *bn = json_array_get(passes, 3);
    json_t *pl = json_array_get(passes, 4), *fw = json_array_get(passes, 5);
    json_t *py = json_array_get(passes, 6), *cl = json_array_get(passes, 7);
    json_t *fl = json_array_get(passes, 10), *tm = json_array_get(passes, 11);
    json_t *ui = json_array_get(passes, 12);
    /* the scatter pass writes the instance table (after the previous
       frame's vertex reads) */
    assert_string_equal(str(sc, "name"), "scatter");
    assert_string_equal(str(sc, "kind"), "compute");
    assert_int_equal(json_array_size(json_object_get(sc, "uses")), 1);
    assert_int_equal(json_array_size(json_object_get(sc, "barriers")), 1);
    /* the bins are zeroed by a transfer (after the previous frame's place
       pass read them) */
    assert_string_equal(str(bc, "kind"), "transfer");
    assert_int_equal(json_array_size(json_object_get(bc, "uses")), 1);
    assert_string_equal(str(json_array_get(json_object_get(bc, "barriers"), 0), "resource"),
                        "draw_bins");
    /* culling reads the table and the pyramid and writes the visible
       draws, the bins (their counts and the counters after them) and the
       late candidates (the pyramid needs no barrier: sampled before,
       sampled now) */
    assert_string_equal(str(cu, "kind"), "compute");
    assert_int_equal(json_array_size(json_object_get(cu, "uses")), 5);
    assert_int_equal(json_array_size(json_object_get(cu, "barriers")), 4);
    /* the bins pass turns the counts into offsets and instanced commands
       (and the place pass's and the late cull's dispatch sizes, and the
       counts the statistics read), the place pass writes the refs
       they draw; the forward pass reads commands and counts as indirect
       arguments and the refs in its vertex stage */
    assert_int_equal(json_array_size(json_object_get(bn, "uses")), 5);
    assert_int_equal(json_array_size(json_object_get(pl, "uses")), 4);
    assert_string_equal(str(json_array_get(json_object_get(pl, "uses"), 0), "resource"),
                        "place_args");
    assert_string_equal(str(fw, "name"), "forward");
    assert_string_equal(str(fw, "kind"), "graphics");
    assert_string_equal(str(tm, "name"), "tonemap");
    assert_string_equal(str(tm, "kind"), "compute");
    /* hdr, depth; the visible draws and their count (storage -> indirect),
       the refs (storage -> vertex read); the instance table (made visible
       to compute before culling, to the vertex stage here) */
    assert_int_equal(json_array_size(json_object_get(fw, "uses")), 6);
    assert_int_equal(json_array_size(json_object_get(fw, "barriers")), 6);
    /* the pyramid: depth from attachment to sampled, the pyramid from
       sampled to storage; the late cull samples it again */
    assert_string_equal(str(py, "name"), "pyramid");
    json_t *pb = json_object_get(py, "barriers");
    assert_int_equal(json_array_size(pb), 2);
    assert_string_equal(str(json_array_get(pb, 0), "resource"), "depth");
    assert_string_equal(str(json_array_get(pb, 0), "new_layout"), "SHADER_READ_ONLY_OPTIMAL");
    assert_string_equal(str(json_array_get(pb, 1), "resource"), "hzb");
    assert_string_equal(str(json_array_get(pb, 1), "new_layout"), "GENERAL");
    assert_string_equal(str(cl, "name"), "cull_late");
    assert_string_equal(str(json_array_get(json_object_get(cl, "barriers"), 0), "resource"), "hzb");
    assert_string_equal(str(json_array_get(json_object_get(cl, "barriers"), 0), "new_layout"),
                        "SHADER_READ_ONLY_OPTIMAL");
    /* the late draws over the early ones: depth back to an attachment */
    assert_string_equal(str(fl, "name"), "forward_late");
    assert_string_equal(str(fl, "kind"), "graphics");
    assert_int_equal(json_array_size(json_object_get(fl, "uses")), 6);
    /* tone mapping: hdr from colour attachment to storage, ldr to storage */
    json_t *tb = json_object_get(tm, "barriers");
    assert_int_equal(json_array_size(tb), 2);
    json_t *hdr_b = json_array_get(tb, 0);
    assert_string_equal(str(hdr_b, "resource"), "hdr");
    assert_string_equal(str(hdr_b, "old_layout"), "COLOR_ATTACHMENT_OPTIMAL");
    assert_string_equal(str(hdr_b, "new_layout"), "GENERAL");
    /* the overlay blends over the tone-mapped image: ldr from storage to
       colour attachment, after tone mapping */
    assert_string_equal(str(ui, "name"), "ui");
    assert_string_equal(str(ui, "kind"), "graphics");
    json_t *ub = json_object_get(ui, "barriers");
    assert_int_equal(json_array_size(ub), 1);
    assert_string_equal(str(json_array_get(ub, 0), "resource"), "ldr");
    assert_string_equal(str(json_array_get(ub, 0), "old_layout"), "GENERAL");
    assert_string_equal(str(json_array_get(ub, 0), "new_layout"), "COLOR_ATTACHMENT_OPTIMAL");
    json_t *res = json_object_get(g, "resources");
    size_t i;
    json_t *r;
    uint32_t transients = 0;
    json_array_foreach(res, i, r)
    {
        if (!json_is_true(json_object_get(r, "imported"))) {
            transients++;
            assert_true(json_integer_value(json_object_get(r, "bytes")) > 0);
        } else {
            static const char *const imports[] = {
                "ldr",           "visible_draws", "visible_count",   "visible_refs",
                "instances",     "hzb",           "cull_candidates", "cull_late_args",
                "cull_elements", "draw_bins",     "place_args"};
            const char *name = str(r, "name");
            bool known = false;
            for (size_t k = 0; k < sizeof imports / sizeof imports[0]; k++)
                known |= strcmp(name, imports[k]) == 0;
            if (!known)
                fail_msg("import '%s' is not one of the frame's", name);
        }
    }
    assert_int_equal(transients, 2);
    json_t *al = json_object_get(g, "aliasing");
    json_int_t with = json_integer_value(json_object_get(al, "bytes_with_aliasing"));
    json_int_t without = json_integer_value(json_object_get(al, "bytes_without_aliasing"));
    print_message("transients: %lld bytes (%lld without aliasing)\n", (long long)with,
                  (long long)without);
    assert_true(with > 0 && with <= without);
    json_decref(g);
}

static void test_null_backend_has_no_graph(void **state)
{
    (void)state;
    char dump[400];
    snprintf(dump, sizeof dump, "%s/null_graph.json", g_project.root);
    remove(dump);
    ze_run_desc_t run = fx_run(&g_project);
    run.frames = 2;
    run.dump_graph = dump;
    ze_run_report_t rep;
    assert_int_equal(ze_app_run(NULL, &run, &rep), ZE_OK); /* a warning, not a failure */
    assert_int_equal(rep.gpu_pass_count, 0);
    FILE *f = fopen(dump, "rb");
    assert_null(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_dump_and_pass_times),
        cmocka_unit_test(test_null_backend_has_no_graph),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
