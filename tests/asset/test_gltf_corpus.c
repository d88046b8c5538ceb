/* The glTF importer against the shared corpus (../shared/testdata/assets),
 * read in place: every valid glTF/GLB model of the manifest imports and its
 * counts equal the manifest's gltf_json_facts; every file of gltf-invalid/
 * is rejected with one line whose JSON pointer is one the Khronos validator
 * reports for that file (or, for container and syntax damage without a
 * pointer, a GLB / JSON message). The manifest's entries are iterated, not
 * listed here, so new corpus files are covered as they arrive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "asset_test_util.h"
#include "zengine/asset.h"
#include "zengine/mem.h"
#include "zengine/cook.h"
#include "cook/cook_internal.h"

#define ASSETS ATU_ASSETS

static uint64_t fact(json_t *facts, const char *key)
{
    json_t *v = json_object_get(facts, key);
    assert_non_null(v);
    assert_true(json_is_integer(v));
    return (uint64_t)json_integer_value(v);
}

static bool is_gltf(json_t *e)
{
    const char *fmt = json_string_value(json_object_get(e, "format"));
    return fmt && (strcmp(fmt, "gltf") == 0 || strcmp(fmt, "glb") == 0);
}

static void check_close(double got, double want, const char *what, const char *path)
{
    if (fabs(got - want) > 1e-6 * fmax(1.0, fabs(want)))
        fail_msg("%s: %s is %.9g, the manifest says %.9g", path, what, got, want);
}

static void test_valid_models_match_manifest(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries");
    size_t i, checked = 0;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        if (!is_gltf(e) || strcmp(json_string_value(json_object_get(e, "kind")), "valid") != 0)
            continue;
        const char *rel = json_string_value(json_object_get(e, "path"));
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ASSETS, rel);
        ze_model_t *m = NULL;
        ze__asset_error_t err;
        ze_gltf_desc_t desc = {.alloc = ze_mem_system_allocator()};
        ze_result r = ze__asset_import_gltf_file(path, &desc, &m, &err);
        if (r != ZE_OK)
            fail_msg("%s: rejected: %s", rel, err.message);
        json_t *f = json_object_get(e, "gltf_json_facts");
        const ze_model_stats_t *s = &m->stats;
        struct {
            const char *key;
            uint64_t got;
        } counts[] = {
            {"meshes", s->meshes},
            {"primitives", s->primitives},
            {"vertex_count", s->vertices},
            {"index_count", s->indices},
            {"materials", s->materials},
            {"textures", s->textures},
            {"images", s->images},
            {"samplers", s->samplers},
            {"nodes", s->nodes},
            {"scenes", s->scenes},
            {"cameras", s->cameras},
            {"skins", s->skins},
            {"animations", s->animations},
            {"accessors", s->accessors},
            {"buffer_views", s->buffer_views},
            {"buffers", s->buffers},
            {"root_nodes", s->root_nodes},
            {"max_node_depth", s->max_node_depth},
        };
        for (size_t k = 0; k < ZE_COUNTOF(counts); k++)
            if (counts[k].got != fact(f, counts[k].key))
                fail_msg("%s: %s is %llu, the manifest says %llu", rel, counts[k].key,
                         (unsigned long long)counts[k].got,
                         (unsigned long long)fact(f, counts[k].key));
        /* Points and lines are the skipped primitives. */
        json_t *kinds = json_object_get(f, "primitive_modes");
        uint64_t skipped = 0;
        const char *mode;
        json_t *n;
        json_object_foreach(kinds, mode, n) if (strncmp(mode, "TRIANGLE", 8) != 0) skipped +=
            (uint64_t)json_integer_value(n);
        assert_int_equal(s->skipped_primitives, skipped);
        assert_int_equal(m->mesh_count, s->meshes);
        assert_int_equal(m->node_count, s->nodes);
        assert_int_equal(m->camera_count, s->cameras);
        json_t *ds = json_object_get(f, "default_scene");
        assert_int_equal(m->default_scene, json_is_integer(ds) ? json_integer_value(ds) : -1);

        /* Bounds of the imported positions = the union of the declared
           POSITION bounds (every corpus model's primitives share them). */
        json_t *u = json_object_get(f, "position_bounds_union");
        const float mn[3] = {m->min.x, m->min.y, m->min.z}, mx[3] = {m->max.x, m->max.y, m->max.z};
        for (int k = 0; k < 3; k++) {
            check_close(mn[k], json_number_value(json_array_get(json_object_get(u, "min"), k)),
                        "min", rel);
            check_close(mx[k], json_number_value(json_array_get(json_object_get(u, "max"), k)),
                        "max", rel);
        }
        /* Dependencies: the external files, relative to the model's folder. */
        json_t *deps = json_object_get(e, "dependencies");
        assert_int_equal(m->dependency_count, json_array_size(deps));
        const char *slash = strrchr(rel, '/');
        size_t dir_len = slash ? (size_t)(slash - rel) + 1 : 0;
        size_t d;
        json_t *dep;
        json_array_foreach(deps, d, dep)
        {
            const char *want = json_string_value(dep) + dir_len;
            bool found = false;
            for (uint32_t k = 0; k < m->dependency_count; k++)
                found = found || strcmp(m->dependencies[k], want) == 0;
            if (!found)
                fail_msg("%s: dependency %s missing", rel, want);
        }
        /* Decoded triangle primitives: indices in range, a multiple of 3. */
        for (uint32_t mi = 0; mi < m->mesh_count; mi++)
            for (uint32_t p = 0; p < m->meshes[mi].primitive_count; p++) {
                const ze_model_primitive_t *pr = &m->meshes[mi].primitives[p];
                if (pr->skipped)
                    continue;
                assert_non_null(pr->positions);
                assert_int_equal(pr->index_count % 3, 0);
                for (uint32_t k = 0; k < pr->index_count; k++)
                    assert_true(pr->indices[k] < pr->vertex_count);
            }
        ze_asset_model_destroy(m);
        checked++;
    }
    print_message("checked %zu valid glTF/GLB models\n", checked);
    assert_true(checked >= 15);
}

/* The message starts with one of the pointers the validator reports as an
 * error for this file; files damaged below JSON (GLB container, syntax)
 * have no pointer and get a GLB or JSON message. */
static void check_message(json_t *e, const char *rel, const char *msg)
{
    json_t *msgs = json_object_get(json_object_get(e, "validator_expected"), "messages");
    size_t i;
    json_t *vm;
    bool any_pointer = false;
    json_array_foreach(msgs, i, vm)
    {
        if (json_integer_value(json_object_get(vm, "severity")) != 0)
            continue;
        const char *ptr = json_string_value(json_object_get(vm, "pointer"));
        if (!ptr || !*ptr)
            continue;
        any_pointer = true;
        size_t n = strlen(ptr);
        if (strncmp(msg, ptr, n) == 0 && msg[n] == ':')
            return;
    }
    if (any_pointer)
        fail_msg("%s: '%s' names none of the validator's pointers", rel, msg);
    const char *fmt = json_string_value(json_object_get(e, "format"));
    if (strcmp(fmt, "glb") == 0)
        assert_true(strncmp(msg, "GLB: ", 5) == 0);
    else
        assert_true(strncmp(msg, "invalid JSON", 12) == 0);
}

static void test_invalid_files_rejected(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    json_t *entries = json_object_get(g_manifest, "entries");
    size_t i, checked = 0, must_fail = 0;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        if (!is_gltf(e) || strcmp(json_string_value(json_object_get(e, "kind")), "invalid") != 0)
            continue;
        const char *rel = json_string_value(json_object_get(e, "path"));
        const char *expect = json_string_value(json_object_get(e, "loader_expectation"));
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ASSETS, rel);
        ze_model_t *m = NULL;
        ze__asset_error_t err;
        ze_result r = ze__asset_import_gltf_file(path, NULL, &m, &err);
        /* Strict: the "semantic-only" files (min/max, unequal counts) are
           rejected too, as the specification forbids what they do. */
        if (r == ZE_OK)
            fail_msg("%s: accepted (%s)", rel, expect);
        assert_null(m);
        assert_true(err.message[0] != 0);
        assert_null(strchr(err.message, '\n'));
        check_message(e, rel, err.message);
        print_message("  %-48s %s\n", rel, err.message);
        if (expect && strncmp(expect, "must fail", 9) == 0)
            must_fail++;
        checked++;
    }
    print_message("rejected %zu invalid files (%zu marked 'must fail')\n", checked, must_fail);
    assert_true(checked >= 23);
}

/* The importer reads memory too: the same bytes, no folder for external
 * files (embedded and GLB models import; external buffers are refused). */
static void test_memory_import_of_self_contained_models(void **state)
{
    (void)state;
    if (!atu_corpus_present()) {
        skip();
        return;
    }
    static const char *const files[] = {"gltf/Box/glTF-Embedded/Box.gltf",
                                        "gltf/BoxTextured/glTF-Binary/BoxTextured.glb",
                                        "gltf/Box/glTF/Box.gltf"};
    for (size_t k = 0; k < ZE_COUNTOF(files); k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ASSETS, files[k]);
        FILE *fp = fopen(path, "rb");
        assert_non_null(fp);
        static uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        ze_model_t *m = NULL;
        ze__asset_error_t err;
        ze_result r = ze__asset_import_gltf_memory(buf, n, NULL, &m, &err);
        if (k < 2) {
            assert_int_equal(r, ZE_OK);
            assert_int_equal(m->stats.vertices, 24);
            ze_asset_model_destroy(m);
        } else {
            assert_int_not_equal(r, ZE_OK);
            assert_non_null(strstr(err.message, "/buffers/0/uri"));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_models_match_manifest),
        cmocka_unit_test(test_invalid_files_rejected),
        cmocka_unit_test(test_memory_import_of_self_contained_models),
    };
    return cmocka_run_group_tests(tests, atu_manifest_setup, atu_manifest_teardown);
}
