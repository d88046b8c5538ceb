/* .meta sidecars: the format (round trip, every field, settings kept
 * verbatim), rejection with a reason, uuid recovery from a malformed file and
 * regeneration keeping it, newer versions refused, where the sidecar lives
 * (beside the source, or under /cache for read-only roots), and renames
 * through the VFS moving it. */
/* nftw. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/vfs.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

typedef struct world_t {
    ze_mem_t *mm;
    ze_vfs_t *vfs;
    char tmp[64];
    char project[128];
    char engine[128];
    ze_allocator_t alloc;
} world_t;

static void host_write(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static bool host_exists(const char *dir, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return access(path, F_OK) == 0;
}

static int setup(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.quiet = true});
    world_t *w = ze_mem_sys_alloc(sizeof *w);
    memset(w, 0, sizeof *w);
    if (ze_mem_create(&(ze_mem_desc_t){0}, &w->mm) != ZE_OK)
        return -1;
    w->alloc = ze_mem_owner_allocator(w->mm, ZE_MEM_OWNER_ASSET);
    snprintf(w->tmp, sizeof w->tmp, "/tmp/zevfs-meta-XXXXXX");
    if (!mkdtemp(w->tmp))
        return -1;
    snprintf(w->project, sizeof w->project, "%s/project", w->tmp);
    snprintf(w->engine, sizeof w->engine, "%s/engine", w->tmp);
    mkdir(w->project, 0755);
    mkdir(w->engine, 0755);
    host_write(w->project, "hero.gltf", "{\"asset\":{}}");
    host_write(w->engine, "pbr.glsl", "void main(){}");
    ze_vfs_desc_t d = {.mem = w->mm, .project_root = w->project, .engine_root = w->engine};
    if (ze_vfs_create(&d, &w->vfs) != ZE_OK)
        return -1;
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world_t *w = *state;
    ze_vfs_destroy(w->vfs);
    ze_mem_destroy(w->mm);
    nftw(w->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    ze_mem_sys_free(w);
    ze_log_reset();
    return 0;
}

static const char *const k_uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
static const char *const k_sub1 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

static void fill(ze_vfs_meta_t *m)
{
    assert_int_equal(ze_uuid_parse(k_uuid, 36, &m->uuid), ZE_OK);
    snprintf(m->importer, sizeof m->importer, "gltf");
    m->source_hash = 0xfedcba9876543210ull;
    m->import_time = 1764400000;
    assert_int_equal(ze_vfs_meta_add_artifact(m, "/cache/artifacts/0f/8f.zemesh"), ZE_OK);
    assert_int_equal(ze_vfs_meta_add_artifact(m, "cache\\artifacts\\x.zematerial"), ZE_OK);
    ze_uuid_t s;
    assert_int_equal(ze_uuid_parse(k_sub1, 36, &s), ZE_OK);
    assert_int_equal(ze_vfs_meta_add_sub_asset(m, s), ZE_OK);
    assert_int_equal(ze_vfs_meta_add_sub_asset(m, ze_uuid_v5(m->uuid, "mesh0", 5)), ZE_OK);
    assert_int_equal(ze_vfs_meta_add_dependency(m, "/models/hero0.bin", 0x0123456789abcdefull),
                     ZE_OK);
    assert_int_equal(ze_vfs_meta_add_dependency(m, "models/hero.png", 1), ZE_OK);
    m->settings_hash = 0x1111222233334444ull;
    const char *settings = "{ \"scale\": 0.01, \"flip_uv\": true, \"lods\": [1, 0.5, 0.25],"
                           " \"name\": \"h\\u00e9ro\", \"nested\": {\"z\": null, \"a\": -3} }";
    assert_int_equal(ze_vfs_meta_set_settings(m, settings, strlen(settings)), ZE_OK);
}

static void expect_equal(const ze_vfs_meta_t *a, const ze_vfs_meta_t *b)
{
    assert_true(ze_uuid_eq(a->uuid, b->uuid));
    assert_string_equal(a->importer, b->importer);
    assert_true(a->source_hash == b->source_hash);
    assert_true(a->import_time == b->import_time);
    assert_int_equal(a->artifacts.count, b->artifacts.count);
    for (uint32_t i = 0; i < a->artifacts.count; i++)
        assert_string_equal(ZE_ARRAY_AT(&a->artifacts, ze_path_t, i).str,
                            ZE_ARRAY_AT(&b->artifacts, ze_path_t, i).str);
    assert_int_equal(a->sub_assets.count, b->sub_assets.count);
    for (uint32_t i = 0; i < a->sub_assets.count; i++)
        assert_true(ze_uuid_eq(ZE_ARRAY_AT(&a->sub_assets, ze_uuid_t, i),
                               ZE_ARRAY_AT(&b->sub_assets, ze_uuid_t, i)));
    assert_int_equal(a->dependencies_known, b->dependencies_known);
    assert_int_equal(a->dependencies.count, b->dependencies.count);
    for (uint32_t i = 0; i < a->dependencies.count; i++) {
        const ze_vfs_meta_dep_t *da = ze_array_at(&a->dependencies, i);
        const ze_vfs_meta_dep_t *db = ze_array_at(&b->dependencies, i);
        assert_string_equal(da->path.str, db->path.str);
        assert_true(da->hash == db->hash);
    }
    assert_true(a->settings_hash == b->settings_hash);
    assert_int_equal(a->settings_len, b->settings_len);
    if (a->settings_len)
        assert_string_equal(a->settings, b->settings);
}

#define HEAD_ \
    "{\"format\":\"zengine.meta\",\"version\":1,\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\""

static void test_round_trip(void **state)
{
    world_t *w = *state;
    ze_vfs_meta_t m, back;
    ze_vfs_meta_init(&m, w->alloc);
    ze_vfs_meta_init(&back, w->alloc);
    fill(&m);
    /* Settings are kept as compact JSON, key order and values as given. */
    assert_string_equal(m.settings, "{\"scale\":0.01,\"flip_uv\":true,\"lods\":[1,0.5,0.25],"
                                    "\"name\":\"h\xc3\xa9ro\",\"nested\":{\"z\":null,\"a\":-3}}");
    ze_vfs_buffer_t text;
    assert_int_equal(ze_vfs_meta_format(&m, w->alloc, &text), ZE_OK);
    const char *s = (const char *)text.data;
    assert_non_null(strstr(s, "\"format\": \"zengine.meta\""));
    assert_non_null(strstr(s, "\"version\": 1"));
    assert_non_null(strstr(s, "\"source_hash\": \"fedcba9876543210\""));
    assert_non_null(strstr(s, "\"/cache/artifacts/x.zematerial\""));
    assert_non_null(strstr(s, "\"path\": \"/models/hero0.bin\""));
    assert_non_null(strstr(s, "\"hash\": \"0123456789abcdef\""));
    assert_non_null(strstr(s, "\"settings_hash\": \"1111222233334444\""));
    assert_true(s[text.size - 1] == '\n');
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    assert_int_equal(ze_vfs_meta_parse(s, text.size, &back, &sink), ZE_OK);
    assert_int_equal(diag.count, 0);
    assert_int_equal(back.version, 1);
    expect_equal(&m, &back);
    /* format(parse(format(m))) is byte-identical. */
    ze_vfs_buffer_t again;
    assert_int_equal(ze_vfs_meta_format(&back, w->alloc, &again), ZE_OK);
    assert_int_equal(again.size, text.size);
    assert_memory_equal(again.data, text.data, text.size);
    ze_vfs_buffer_free(&again);
    ze_vfs_buffer_free(&text);
    /* Minimal file: defaults. */
    const char *minimal = "{\"format\":\"zengine.meta\",\"version\":1,\"uuid\":\"0F8FAD5B-D9CB-"
                          "469F-A165-70867728950E\","
                          "\"future_field\":[1,2]}";
    assert_int_equal(ze_vfs_meta_parse(minimal, strlen(minimal), &back, NULL), ZE_OK);
    assert_true(ze_uuid_eq(back.uuid, m.uuid));
    assert_string_equal(back.importer, "");
    assert_int_equal(back.artifacts.count, 0);
    assert_null(back.settings);
    /* a sidecar of an older writer: no dependency list, and it says so */
    assert_false(back.dependencies_known);
    assert_int_equal(back.dependencies.count, 0);
    assert_true(back.settings_hash == 0);
    ze_vfs_buffer_t old;
    assert_int_equal(ze_vfs_meta_format(&back, w->alloc, &old), ZE_OK);
    assert_null(strstr((const char *)old.data, "dependencies"));
    ze_vfs_buffer_free(&old);
    /* an empty list is "recorded: none" */
    const char *none = HEAD_ ",\"dependencies\":[]}";
    assert_int_equal(ze_vfs_meta_parse(none, strlen(none), &back, NULL), ZE_OK);
    assert_true(back.dependencies_known);
    ze_vfs_meta_free(&back);
    ze_vfs_meta_free(&m);
}

static void expect_reject(const char *text, ze_result want, const char *reason_part, bool recovered)
{
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    ze_result e = ze_vfs_meta_parse(text, strlen(text), &m, &sink);
    if (e != want || !strstr(diag.last, reason_part) || diag.count != 1)
        fail_msg("'%s': %s / '%s' (%u reports), expected %s / '%s'", text, ze_result_str(e),
                 diag.last, diag.count, ze_result_str(want), reason_part);
    assert_int_equal(diag.last_code, want);
    assert_int_equal(m.uuid_recovered, recovered);
    if (recovered) {
        char s[37];
        ze_uuid_format(m.uuid, s);
        assert_string_equal(s, k_uuid);
    }
    assert_int_equal(m.artifacts.count, 0);
    ze_vfs_meta_free(&m);
}

#define HEAD \
    "{\"format\":\"zengine.meta\",\"version\":1,\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\""

static void test_rejections_say_why(void **state)
{
    (void)state;
    expect_reject("", ZE_ERR_PARSE, "JSON error", false);
    expect_reject("[1,2]", ZE_ERR_PARSE, "not a JSON object", false);
    expect_reject("{\"version\":1}", ZE_ERR_PARSE, "format", false);
    expect_reject("{\"format\":\"zengine.meta\",\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"}",
                  ZE_ERR_PARSE, "version", true);
    expect_reject("{\"format\":\"zengine.meta\",\"version\":1}", ZE_ERR_PARSE, "uuid", false);
    expect_reject("{\"format\":\"zengine.meta\",\"version\":1,\"uuid\":\"not-a-uuid\"}",
                  ZE_ERR_PARSE, "uuid", false);
    expect_reject("{\"format\":\"zengine.meta\",\"version\":1,"
                  "\"uuid\":\"00000000-0000-0000-0000-000000000000\"}",
                  ZE_ERR_PARSE, "nil", false);
    expect_reject(HEAD ",\"importer\":7}", ZE_ERR_PARSE, "importer", true);
    expect_reject(HEAD ",\"source_hash\":\"xyz\"}", ZE_ERR_PARSE, "source_hash", true);
    expect_reject(HEAD ",\"source_hash\":12}", ZE_ERR_PARSE, "source_hash", true);
    expect_reject(HEAD ",\"import_time\":\"yesterday\"}", ZE_ERR_PARSE, "import_time", true);
    expect_reject(HEAD ",\"artifacts\":[\"/ok\",\"/../escape\"]}", ZE_ERR_PARSE, "artifacts\"[1]",
                  true);
    expect_reject(HEAD ",\"artifacts\":\"/x\"}", ZE_ERR_PARSE, "artifacts", true);
    expect_reject(HEAD ",\"sub_assets\":[\"nope\"]}", ZE_ERR_PARSE, "sub_assets\"[0]", true);
    expect_reject(HEAD ",\"settings\":[]}", ZE_ERR_PARSE, "settings", true);
    expect_reject(HEAD ",\"dependencies\":{}}", ZE_ERR_PARSE, "dependencies", true);
    expect_reject(HEAD ",\"dependencies\":[{\"path\":\"/a.bin\"}]}", ZE_ERR_PARSE,
                  "dependencies\"[0]", true);
    expect_reject(HEAD ",\"dependencies\":[{\"path\":\"/../a\",\"hash\":\"0000000000000001\"}]}",
                  ZE_ERR_PARSE, "dependencies\"[0]", true);
    expect_reject(HEAD ",\"settings_hash\":5}", ZE_ERR_PARSE, "settings_hash", true);
    expect_reject(HEAD ",\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"}", ZE_ERR_PARSE,
                  "duplicate", true); /* duplicate key: JSON error, uuid salvaged */
    expect_reject(HEAD ",\"importer\":\"a\\u0000b\"}", ZE_ERR_PARSE, "JSON error", true);
    expect_reject("{\"format\":\"zengine.meta\",\"version\":2,"
                  "\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"}",
                  ZE_ERR_UNSUPPORTED, "newer", true);
    /* Truncated mid-file: the uuid is still readable. */
    expect_reject(HEAD ",\"importer\":\"gl", ZE_ERR_PARSE, "JSON error", true);
    expect_reject("{\n  \"uuid\" :\t\"0f8fad5b-d9cb-469f-a165-70867728950e\", oops", ZE_ERR_PARSE,
                  "JSON error", true);
    char many[200 + 70 * (ZE_VFS_META_MAX_ARTIFACTS + 1)];
    size_t n = (size_t)snprintf(many, sizeof many, HEAD ",\"artifacts\":[");
    for (int i = 0; i <= ZE_VFS_META_MAX_ARTIFACTS; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "%s\"/a%d\"", i ? "," : "", i);
    snprintf(many + n, sizeof many - n, "]}");
    expect_reject(many, ZE_ERR_PARSE, "at most", true);
}

static void test_settings_api(void **state)
{
    world_t *w = *state;
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, w->alloc);
    assert_int_equal(ze_vfs_meta_set_settings(&m, "[1]", 3), ZE_ERR_PARSE);
    assert_int_equal(ze_vfs_meta_set_settings(&m, "{", 1), ZE_ERR_PARSE);
    assert_int_equal(ze_vfs_meta_set_settings(&m, "{\"a\":1,\"a\":2}", 13), ZE_ERR_PARSE);
    assert_int_equal(ze_vfs_meta_set_settings(&m, "{ }", 3), ZE_OK);
    assert_string_equal(m.settings, "{}");
    assert_int_equal(ze_vfs_meta_set_settings(&m, NULL, 0), ZE_OK);
    assert_null(m.settings);
    assert_int_equal(ze_vfs_meta_add_artifact(&m, "/../x"), ZE_ERR_PATH_ESCAPE);
    ze_vfs_buffer_t text;
    assert_int_equal(ze_vfs_meta_format(&m, w->alloc, &text), ZE_ERR_INVALID_ARG); /* nil */
    ze_vfs_meta_free(&m);
}

static void test_sidecar_beside_source(void **state)
{
    world_t *w = *state;
    ze_path_t where;
    assert_int_equal(ze_vfs_meta_path(w->vfs, "/hero.gltf", &where), ZE_OK);
    assert_string_equal(where.str, "/hero.gltf.meta");
    assert_int_equal(ze_vfs_meta_path(w->vfs, "/missing.gltf", &where), ZE_ERR_NOT_FOUND);
    ze_vfs_meta_t m, back;
    ze_vfs_meta_init(&m, w->alloc);
    ze_vfs_meta_init(&back, w->alloc);
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/hero.gltf", &back), ZE_ERR_NOT_FOUND);
    fill(&m);
    assert_int_equal(ze_vfs_meta_write(w->vfs, "/hero.gltf", &m), ZE_OK);
    assert_true(host_exists(w->project, "hero.gltf.meta"));
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/hero.gltf", &back), ZE_OK);
    expect_equal(&m, &back);
    /* A rename through the VFS moves the sidecar: the uuid follows. */
    assert_int_equal(ze_vfs_mkdirs(w->vfs, "/models"), ZE_OK);
    assert_int_equal(ze_vfs_rename(w->vfs, "/hero.gltf", "/models/hero2.gltf"), ZE_OK);
    assert_false(host_exists(w->project, "hero.gltf.meta"));
    assert_true(host_exists(w->project, "models/hero2.gltf.meta"));
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/models/hero2.gltf", &back), ZE_OK);
    assert_true(ze_uuid_eq(back.uuid, m.uuid));
    ze_vfs_meta_free(&m);
    ze_vfs_meta_free(&back);
}

static void test_sidecar_of_read_only_root_goes_to_cache(void **state)
{
    world_t *w = *state;
    ze_path_t where;
    assert_int_equal(ze_vfs_meta_path(w->vfs, "/ZodiacEngine/pbr.glsl", &where), ZE_OK);
    assert_string_equal(where.str, "/cache/meta/ZodiacEngine/pbr.glsl.meta");
    ze_vfs_meta_t m, back;
    ze_vfs_meta_init(&m, w->alloc);
    ze_vfs_meta_init(&back, w->alloc);
    m.uuid = ze_uuid_v4();
    snprintf(m.importer, sizeof m.importer, "shader");
    assert_int_equal(ze_vfs_meta_write(w->vfs, "/ZodiacEngine/pbr.glsl", &m), ZE_OK);
    assert_false(host_exists(w->engine, "pbr.glsl.meta"));
    assert_true(host_exists(w->project, ".zengine/meta/ZodiacEngine/pbr.glsl.meta"));
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/ZodiacEngine/pbr.glsl", &back), ZE_OK);
    assert_true(ze_uuid_eq(back.uuid, m.uuid));
    assert_string_equal(back.importer, "shader");
    ze_vfs_meta_free(&m);
    ze_vfs_meta_free(&back);
    /* Without a cache there is nowhere to write it. */
    ze_vfs_t *vfs;
    ze_vfs_desc_t d = {.mem = w->mm,
                       .project_root = w->project,
                       .project_read_only = true,
                       .no_engine_mount = true};
    assert_int_equal(ze_vfs_create(&d, &vfs), ZE_OK);
    ze_vfs_meta_init(&m, w->alloc);
    m.uuid = ze_uuid_v4();
    assert_int_equal(ze_vfs_meta_path(vfs, "/hero.gltf", &where), ZE_OK);
    assert_string_equal(where.str, "/cache/meta/hero.gltf.meta");
    assert_int_equal(ze_vfs_meta_write(vfs, "/hero.gltf", &m), ZE_ERR_READ_ONLY);
    ze_vfs_meta_free(&m);
    ze_vfs_destroy(vfs);
}

static void test_malformed_sidecar_regenerated_keeping_uuid(void **state)
{
    world_t *w = *state;
    host_write(w->project, "hero.gltf.meta",
               "{\"format\":\"zengine.meta\",\"version\":1,"
               "\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"importer\":\"gltf\","
               "\"artifacts\":[\"/cache/a.zemesh\",");
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, w->alloc);
    uint64_t warns = ze_log_count(ZE_LOG_WARN);
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/hero.gltf", &m), ZE_ERR_PARSE);
    /* reported once to the default sink (the log), with the reason */
    assert_true(ze_log_count(ZE_LOG_WARN) == warns + 1);
    assert_true(m.uuid_recovered);
    /* The asset module regenerates the rest and writes it back. */
    snprintf(m.importer, sizeof m.importer, "gltf");
    assert_int_equal(ze_vfs_meta_add_artifact(&m, "/cache/a.zemesh"), ZE_OK);
    assert_int_equal(ze_vfs_meta_write(w->vfs, "/hero.gltf", &m), ZE_OK);
    ze_vfs_meta_t back;
    ze_vfs_meta_init(&back, w->alloc);
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/hero.gltf", &back), ZE_OK);
    char s[37];
    ze_uuid_format(back.uuid, s);
    assert_string_equal(s, k_uuid);
    assert_int_equal(back.artifacts.count, 1);
    ze_vfs_meta_free(&back);
    ze_vfs_meta_free(&m);
    /* Unreadable uuid: nothing to keep. */
    host_write(w->project, "hero.gltf.meta", "garbage");
    ze_vfs_meta_init(&m, w->alloc);
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/hero.gltf", &m), ZE_ERR_PARSE);
    assert_false(m.uuid_recovered);
    assert_true(ze_uuid_is_nil(m.uuid));
    ze_vfs_meta_free(&m);
}

static void test_memory_mount_sidecars(void **state)
{
    world_t *w = *state;
    ze_vfs_mount_desc_t md = {.point = "/gen", .priority = 5};
    assert_int_equal(ze_vfs_mount(w->vfs, &md, NULL), ZE_OK);
    assert_int_equal(ze_vfs_write_file(w->vfs, "/gen/noise.tex", "n", 1), ZE_OK);
    ze_vfs_meta_t m, back;
    ze_vfs_meta_init(&m, w->alloc);
    ze_vfs_meta_init(&back, w->alloc);
    m.uuid = ze_uuid_v4();
    assert_int_equal(ze_vfs_meta_write(w->vfs, "/gen/noise.tex", &m), ZE_OK);
    assert_true(ze_vfs_exists(w->vfs, "/gen/noise.tex.meta"));
    assert_int_equal(ze_vfs_rename(w->vfs, "/gen/noise.tex", "/gen/noise2.tex"), ZE_OK);
    assert_false(ze_vfs_exists(w->vfs, "/gen/noise.tex.meta"));
    assert_int_equal(ze_vfs_meta_read(w->vfs, "/gen/noise2.tex", &back), ZE_OK);
    assert_true(ze_uuid_eq(back.uuid, m.uuid));
    ze_vfs_meta_free(&m);
    ze_vfs_meta_free(&back);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_round_trip),
        T(test_rejections_say_why),
        T(test_settings_api),
        T(test_sidecar_beside_source),
        T(test_sidecar_of_read_only_root_goes_to_cache),
        T(test_malformed_sidecar_regenerated_keeping_uuid),
        T(test_memory_mount_sidecars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
