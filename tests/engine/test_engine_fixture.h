/* A small game project made at run time in a temporary folder, for the
 * engine tests: project.json, models/crate.gltf + crate.png (copied from
 * the showcase) with a sidecar of a fixed uuid, so the crate's mesh and
 * material uuids are known up front, and scenes/main.scene.json with a
 * main camera, a directional light, a point light and crates (one of them
 * the child of another), and g_project, the one a test program shares,
 * with its cmocka group setup and teardown. Header-only: each test program
 * includes it once. */
#ifndef ZE_TEST_ENGINE_FIXTURE_H
#define ZE_TEST_ENGINE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/cook.h"
#include "zengine/engine.h"

#ifndef ZE_ENGINE_TEST_ASSETS
#error "ZE_ENGINE_TEST_ASSETS (the showcase's models folder) must be defined"
#endif

#if defined(ZE_SANITIZER_ADDRESS) || defined(ZE_SANITIZER_THREAD)
#define FX_SANITIZED 1
#else
#define FX_SANITIZED 0
#endif

enum { FX_CRATES = 4 }; /* crates in the scene: instances */
enum { FX_LIGHTS = 2 };

typedef struct fx_project_t {
    char root[256];
    char project[320];  /* .../project.json */
    ze_uuid_t source;   /* crate.gltf */
    ze_uuid_t mesh;     /* v5(source, "mesh/0") */
    ze_uuid_t material; /* v5(source, "material/0") */
} fx_project_t;

static inline bool fx_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A whole file into a fixed buffer (no malloc outside src/mem); returns
 * its size, 0 when unreadable. */
static inline size_t fx_read(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    return n;
}

static inline bool fx_copy(const char *from, const char *to)
{
    static char buf[1 << 20];
    size_t n = fx_read(from, buf, sizeof buf);
    return n > 0 && fx_write(to, buf, n);
}

static inline void fx_uuid_str(ze_uuid_t u, char out[ZE_UUID_STRING_LEN + 1])
{
    ze_uuid_format(u, out);
}

/* One entity of the scene file. */
static inline int fx_entity(char *out, size_t cap, int id, const char *components)
{
    return snprintf(out, cap,
                    "%s{\"uuid\": \"00000000-0000-4000-8000-%012d\", \"components\": {%s}}",
                    id > 1 ? ",\n" : "", id, components);
}

static inline bool fx_write_scene(const fx_project_t *p)
{
    char mesh[ZE_UUID_STRING_LEN + 1];
    fx_uuid_str(p->mesh, mesh);
    static char scene[16384];
    size_t n = (size_t)snprintf(
        scene, sizeof scene, "{\"format\": \"zengine.scene\", \"version\": 1, \"entities\": [\n");
    char comp[1024];
    int id = 1;
    n += (size_t)fx_entity(scene + n, sizeof scene - n, id++,
                           "\"Name\": {\"value\": \"Camera\"}, "
                           "\"Transform\": {\"position\": [0, 2, 10], \"rotation\": [0, 0, 0, 1], "
                           "\"scale\": [1, 1, 1]}, "
                           "\"Camera\": {\"fov_y\": 1.0, \"near_plane\": 0.1, \"far_plane\": 0, "
                           "\"aspect\": 0, \"is_main\": true}");
    n +=
        (size_t)fx_entity(scene + n, sizeof scene - n, id++,
                          "\"Name\": {\"value\": \"Sun\"}, "
                          "\"Transform\": {\"position\": [0, 20, 0], \"rotation\": [-0.4794255, 0, "
                          "0, 0.8775826], \"scale\": [1, 1, 1]}, "
                          "\"Light\": {\"type\": 0, \"intensity\": 3, \"range\": 0, "
                          "\"spot_angle\": 0, \"color\": [1, 0.95, 0.9]}");
    n += (size_t)fx_entity(scene + n, sizeof scene - n, id++,
                           "\"Name\": {\"value\": \"Lamp\"}, "
                           "\"Transform\": {\"position\": [2, 3, 0], \"rotation\": [0, 0, 0, 1], "
                           "\"scale\": [1, 1, 1]}, "
                           "\"Light\": {\"type\": 1, \"intensity\": 5, \"range\": 8, "
                           "\"spot_angle\": 0, \"color\": [1, 0.6, 0.3]}");
    for (int c = 0; c < FX_CRATES; c++) {
        char parent[96] = "";
        if (c == FX_CRATES - 1) /* the last crate sits on the first one */
            snprintf(parent, sizeof parent,
                     ", \"Parent\": {\"parent\": \"00000000-0000-4000-8000-%012d\"}", 4);
        snprintf(comp, sizeof comp,
                 "\"Name\": {\"value\": \"Crate %d\"}, "
                 "\"Transform\": {\"position\": [%d, %s, 0], \"rotation\": [0, 0, 0, 1], "
                 "\"scale\": [1, 1, 1]}, "
                 "\"Mesh\": {\"mesh\": \"%s\"}%s",
                 c, c == FX_CRATES - 1 ? 0 : c * 2 - 3, c == FX_CRATES - 1 ? "1" : "0", mesh,
                 parent);
        n += (size_t)fx_entity(scene + n, sizeof scene - n, id++, comp);
    }
    n += (size_t)snprintf(scene + n, sizeof scene - n, "\n]}\n");
    char path[400];
    snprintf(path, sizeof path, "%s/scenes/main.scene.json", p->root);
    return n < sizeof scene && fx_write(path, scene, n);
}

/* Make the project. Returns false (with a message) when it cannot. */
static inline bool fx_project_make(fx_project_t *p)
{
    memset(p, 0, sizeof *p);
    const char *tmp = getenv("TMPDIR");
    snprintf(p->root, sizeof p->root, "%s/zengine-engine-test-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(p->root)) {
        fprintf(stderr, "fixture: mkdtemp failed\n");
        return false;
    }
    char path[400];
    snprintf(path, sizeof path, "%s/models", p->root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/scenes", p->root);
    mkdir(path, 0755);
    snprintf(p->project, sizeof p->project, "%s/project.json", p->root);
    const char *pj = "{\n  \"name\": \"Engine Test\",\n"
                     "  \"start_scene\": \"scenes/main.scene.json\",\n"
                     "  \"asset_folders\": [\"models\"],\n"
                     "  \"window\": {\"width\": 640, \"height\": 360, \"title\": \"test\"}\n}\n";
    bool ok = fx_write(p->project, pj, strlen(pj));
    snprintf(path, sizeof path, "%s/models/crate.gltf", p->root);
    ok = ok && fx_copy(ZE_ENGINE_TEST_ASSETS "/crate.gltf", path);
    snprintf(path, sizeof path, "%s/models/crate.png", p->root);
    ok = ok && fx_copy(ZE_ENGINE_TEST_ASSETS "/crate.png", path);

    /* The sidecar with a fixed identity. */
    ok = ok && ze_uuid_parse("5a1c0de0-7e57-4c4a-9a7e-0000000000c1", 36, &p->source) == ZE_OK;
    p->mesh = ze_uuid_v5(p->source, "mesh/0", 6);
    p->material = ze_uuid_v5(p->source, "material/0", 10);
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, (ze_allocator_t){0});
    m.uuid = p->source;
    snprintf(m.importer, sizeof m.importer, "gltf");
    ze_vfs_buffer_t text = {0};
    ok = ok && ze_vfs_meta_format(&m, (ze_allocator_t){0}, &text) == ZE_OK;
    snprintf(path, sizeof path, "%s/models/crate.gltf.meta", p->root);
    ok = ok && fx_write(path, text.data, text.size);
    ze_vfs_buffer_free(&text);
    ze_vfs_meta_free(&m);
    ok = ok && fx_write_scene(p);
    if (!ok)
        fprintf(stderr, "fixture: could not write the project in %s\n", p->root);
    return ok;
}

/* rm -r, without following links. */
static inline void fx_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char sub[1024];
            int n = snprintf(sub, sizeof sub, "%.700s/%.255s", path, de->d_name);
            if (n > 0 && (size_t)n < sizeof sub)
                fx_remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static inline void fx_project_remove(fx_project_t *p)
{
    if (p->root[0])
        fx_remove_tree(p->root);
    p->root[0] = 0;
}

/* The project the tests of one program share: fx_setup (or fx_setup_quiet,
 * which also keeps the log to errors) makes it before the first test,
 * fx_teardown removes it after the last (cmocka group fixtures). */
__attribute__((unused)) static fx_project_t g_project;

static inline int fx_setup(void **state)
{
    (void)state;
    return fx_project_make(&g_project) ? 0 : -1;
}

static inline int fx_setup_quiet(void **state)
{
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_ERROR});
    return fx_setup(state);
}

static inline int fx_teardown(void **state)
{
    (void)state;
    fx_project_remove(&g_project);
    return 0;
}

/* A run description with the test defaults: headless, in-process imports. */
static inline ze_run_desc_t fx_run(const fx_project_t *p)
{
    return (ze_run_desc_t){
        .project = p->project,
        .headless = true,
        .import_mode = ZE_IMPORT_IN_PROCESS,
        .in_process_cook = ze_asset_cook,
    };
}

#endif /* ZE_TEST_ENGINE_FIXTURE_H */
