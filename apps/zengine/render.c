/* zengine render MODEL --out PNG [--size WxH] [--stats JSON]
 *
 * Renders one model with the Vulkan backend through the engine itself:
 * cooks the model once (ze_asset_cook into a scratch folder) to learn the
 * files it reads, copies the model and those files into a temporary
 * project (models/), and runs it with ze_app_run — headless, the "vulkan"
 * backend, imports in-process, a virtual clock. The application's
 * on_initialized imports the model and waits for it (a tool may block),
 * loads its cooked scene (one entity per node) or, without one, makes one
 * entity per mesh; on_update, once the hierarchy has run, frames the
 * model's world bounds (each mesh's .zemesh min/max through its entity's
 * world matrix) with a camera and adds a directional light; the last frame
 * is the screenshot. The temporary project is removed afterwards.
 * Exit status: 0 ok, 1 failure (import, render, validation messages), 2
 * usage. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zengine/engine.h"
#include "zengine/cook.h"

#include "cli.h"

enum { RENDER_FRAMES = 8, FRAME_AT = 3, MAX_SUBS = 4096 };

typedef struct render_t {
    char root[256];
    const char *file; /* the model's file name */
    bool framed, failed;
    char error[256];
} render_t;

void ze_cli_render_usage(FILE *out)
{
    fputs("usage: zengine render MODEL --out PNG [--size WxH] [--stats JSON]\n"
          "  MODEL          a glTF/GLB/OBJ/FBX file\n"
          "  --out PNG      the image to write\n"
          "  --size WxH     image size (default 512x512)\n"
          "  --stats JSON   the run's figures (as zengine run --stats)\n"
          "Renders the model with the Vulkan backend, framed by a camera and lit by a\n"
          "directional light (engine assets: ZodiacEngine/ beside the program or\n"
          "$ZENGINE_ASSET_ROOT).\n",
          out);
}

/* --------------------------------------------------------------- files */

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return false;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return false;
    }
    static char buf[1 << 16];
    size_t n;
    bool ok = true;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = ok && fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    fclose(in);
    return fclose(out) == 0 && ok;
}

/* mkdir -p of the folders of `path` (relative parts only). */
static void make_parents(const char *path)
{
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%.2000s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
}

static void remove_tree(const char *path)
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
                remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* The model and every file its import reads, into <root>/models/. */
static bool stage_model(render_t *r, const char *model)
{
    char scratch[400], dst[1400], src[1400];
    snprintf(scratch, sizeof scratch, "%s/probe", r->root);
    ze_cook_result_t res;
    ze_diag_capture_t diag = {0};
    ze_result cr = ze_asset_cook(
        &(ze_cook_desc_t){.source = model, .out_dir = scratch, .diag = ze_diag_capture_sink(&diag)},
        &res);
    if (cr != ZE_OK) {
        fprintf(stderr, "zengine render: %s: %s\n", model,
                diag.last_message[0] ? diag.last_message : ze_result_str(cr));
        ze_asset_cook_result_release(&res);
        return false;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", model);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    snprintf(dst, sizeof dst, "%s/models/%s", r->root, r->file);
    bool ok = copy_file(model, dst);
    for (uint32_t i = 0; ok && i < res.dependency_count; i++) {
        snprintf(src, sizeof src, "%s/%s", dir, res.dependencies[i]);
        snprintf(dst, sizeof dst, "%s/models/%s", r->root, res.dependencies[i]);
        make_parents(dst);
        ok = copy_file(src, dst);
        if (!ok)
            fprintf(stderr, "zengine render: cannot copy %s\n", src);
    }
    ze_asset_cook_result_release(&res);
    remove_tree(scratch);
    return ok;
}

/* ----------------------------------------------------------- the app */

typedef struct find_t {
    const char *suffix;
    ze_uuid_t found;
    bool ok;
} find_t;

static bool find_source(void *user, const ze_asset_info_t *info)
{
    find_t *f = user;
    size_t n = strlen(info->path), m = strlen(f->suffix);
    if (info->type == ZE_ASSET_TYPE_SOURCE && n >= m &&
        strcmp(info->path + n - m, f->suffix) == 0) {
        f->found = info->uuid;
        f->ok = true;
        return false;
    }
    return true;
}

static ze_result on_initialized(ze_engine_t *e, void *user)
{
    render_t *r = user;
    char suffix[300];
    snprintf(suffix, sizeof suffix, "/%s", r->file);
    find_t f = {.suffix = suffix};
    ze_asset_registry_t *reg = ze_engine_registry(e);
    ze_asset_registry_foreach(reg, find_source, &f);
    if (!f.ok) {
        snprintf(r->error, sizeof r->error, "the model was not registered as a source");
        return ZE_ERR_NOT_FOUND;
    }
    ze_asset_info_t info;
    ze_asset_registry_get(reg, f.found, &info);
    char path[1024];
    snprintf(path, sizeof path, "%s", info.path);
    ze_result res = ze_import_request(ze_engine_imports(e), path, ZE_IMPORT_IMMEDIATE, false, NULL);
    if (res == ZE_OK)
        res = ze_import_coordinator_wait(ze_engine_imports(e), 120000);
    if (res != ZE_OK) {
        snprintf(r->error, sizeof r->error, "import of %.180s: %s", path, ze_result_str(res));
        return res;
    }
    ze_uuid_t subs[MAX_SUBS];
    uint32_t n = ze_asset_registry_sub_assets(reg, f.found, subs, MAX_SUBS);
    n = n > MAX_SUBS ? MAX_SUBS : n;
    for (uint32_t i = 0; i < n; i++) {
        if (ze_asset_registry_get(reg, subs[i], &info) && info.type == ZE_ASSET_TYPE_SCENE) {
            snprintf(path, sizeof path, "%s", info.path);
            return ze_engine_load_scene(e, path);
        }
    }
    /* no scene: one entity per mesh at the origin */
    ze_world_t *w = ze_engine_world(e);
    for (uint32_t i = 0; i < n; i++) {
        if (!ze_asset_registry_get(reg, subs[i], &info) || info.type != ZE_ASSET_TYPE_MESH)
            continue;
        ze_entity_t ent = ze_entity_create(w);
        ze_set(w, ent, ze_transform_t,
               {.rotation = ZE_QUAT_IDENTITY, .scale = {1, 1, 1}, .world = ze_mat4_identity()});
        ze_set(w, ent, ze_mesh_t, {.mesh = subs[i], .render_instance = ZE_RENDER_INSTANCE_NONE});
        (void)ze_asset_acquire(ze_engine_assets(e), subs[i]);
    }
    return ZE_OK;
}

static void grow(ze_vec3_t *lo, ze_vec3_t *hi, ze_vec3_t p)
{
    lo->x = fminf(lo->x, p.x), lo->y = fminf(lo->y, p.y), lo->z = fminf(lo->z, p.z);
    hi->x = fmaxf(hi->x, p.x), hi->y = fmaxf(hi->y, p.y), hi->z = fmaxf(hi->z, p.z);
}

static ze_vec3_t v3n(ze_vec3_t v)
{
    float l = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    return l > 0 ? (ze_vec3_t){v.x / l, v.y / l, v.z / l} : (ze_vec3_t){0, 0, -1};
}

static ze_vec3_t v3cross(ze_vec3_t a, ze_vec3_t b)
{
    return (ze_vec3_t){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* The rotation whose -Z is `forward` (y up unless forward is vertical). */
static ze_quat_t look_rotation(ze_vec3_t forward)
{
    ze_vec3_t z = v3n((ze_vec3_t){-forward.x, -forward.y, -forward.z});
    ze_vec3_t up = fabsf(z.y) > 0.99f ? (ze_vec3_t){0, 0, 1} : (ze_vec3_t){0, 1, 0};
    ze_vec3_t x = v3n(v3cross(up, z));
    ze_vec3_t y = v3cross(z, x);
    float m00 = x.x, m11 = y.y, m22 = z.z, tr = m00 + m11 + m22;
    ze_quat_t q;
    if (tr > 0) {
        float s = sqrtf(tr + 1.0f) * 2;
        q = (ze_quat_t){(y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, 0.25f * s};
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2;
        q = (ze_quat_t){0.25f * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s};
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2;
        q = (ze_quat_t){(y.x + x.y) / s, 0.25f * s, (z.y + y.z) / s, (z.x - x.z) / s};
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2;
        q = (ze_quat_t){(z.x + x.z) / s, (z.y + y.z) / s, 0.25f * s, (x.y - y.x) / s};
    }
    return ze_quat_normalize(q);
}

static void frame_model(ze_engine_t *e, render_t *r)
{
    ze_world_t *w = ze_engine_world(e);
    ze_vec3_t lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    ze_query_t q =
        ze_query_create(w, &(ze_query_desc_t){.with = ZE_MASK(ze_mesh_t, ze_transform_t)});
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_mesh_t *m = ze_field(&it, ze_mesh_t);
        const ze_transform_t *t = ze_field(&it, ze_transform_t);
        for (uint32_t i = 0; i < it.count; i++) {
            const ze_asset_data_t *d = ze_asset_get(ze_engine_assets(e), m[i].mesh);
            if (!d || d->type != ZE_ASSET_TYPE_MESH)
                continue;
            ze_vec3_t a = d->as.mesh.min, b = d->as.mesh.max;
            for (int c = 0; c < 8; c++) {
                ze_vec3_t p = {c & 1 ? b.x : a.x, c & 2 ? b.y : a.y, c & 4 ? b.z : a.z};
                grow(&lo, &hi, ze_mat4_transform_point(t[i].world, p));
            }
        }
    }
    if (!(lo.x <= hi.x)) {
        lo = (ze_vec3_t){-1, -1, -1};
        hi = (ze_vec3_t){1, 1, 1};
        r->failed = true;
        snprintf(r->error, sizeof r->error, "no mesh of the model was loaded");
    }
    ze_vec3_t c = {(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2};
    ze_vec3_t ext = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    float radius = 0.5f * sqrtf(ext.x * ext.x + ext.y * ext.y + ext.z * ext.z);
    if (!(radius > 1e-6f))
        radius = 1.0f;
    const float fov = 0.8f;
    float dist = radius / sinf(fov / 2) * 1.05f;
    ze_vec3_t dir = v3n((ze_vec3_t){0.55f, 0.45f, 1.0f}); /* from the model to the eye */
    ze_vec3_t eye = {c.x + dir.x * dist, c.y + dir.y * dist, c.z + dir.z * dist};
    /* The model's own cameras (a glTF may carry some) stay in the scene but
       do not lead: the framing camera below is the main one. */
    ze_query_t cams = ze_query_create(
        w, &(ze_query_desc_t){.with = ZE_MASK(ze_camera_t), .write = ZE_MASK(ze_camera_t)});
    ze_iter_t ci = ze_query_iter(w, cams);
    while (ze_query_next(&ci)) {
        ze_camera_t *cc = ze_field(&ci, ze_camera_t);
        for (uint32_t i = 0; i < ci.count; i++)
            cc[i].is_main = false;
    }
    ze_entity_t cam = ze_entity_create(w);
    ze_set(w, cam, ze_transform_t,
           {.position = eye,
            .previous_position = eye,
            .rotation = look_rotation((ze_vec3_t){-dir.x, -dir.y, -dir.z}),
            .scale = {1, 1, 1},
            .world = ze_mat4_identity()});
    float near_plane = fmaxf(dist - radius * 1.5f, radius * 0.01f);
    ze_set(
        w, cam, ze_camera_t,
        {.fov_y = fov, .near_plane = near_plane, .far_plane = dist + radius * 2, .is_main = true});
    ze_entity_t sun = ze_entity_create(w);
    ze_set(w, sun, ze_transform_t,
           {.position = c,
            .previous_position = c,
            .rotation = look_rotation(v3n((ze_vec3_t){-0.4f, -1.0f, -0.6f})),
            .scale = {1, 1, 1},
            .world = ze_mat4_identity()});
    ze_set(w, sun, ze_light_t,
           {.type = ZE_LIGHT_DIRECTIONAL, .intensity = 3.0f, .color = {1, 1, 1}});
    r->framed = true;
}

static void on_update(ze_engine_t *e, double dt, void *user)
{
    (void)dt;
    render_t *r = user;
    if (!r->framed && ze_engine_frame_index(e) >= FRAME_AT)
        frame_model(e, r);
}

/* --------------------------------------------------------------- main */

int ze_cli_render(int argc, char **argv)
{
    const char *model = NULL, *out = NULL, *stats = NULL;
    uint32_t w = 512, h = 512;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            ze_cli_render_usage(stdout);
            return ZE_CLI_OK;
        } else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--stats") == 0 && i + 1 < argc) {
            stats = argv[++i];
        } else if (strcmp(a, "--size") == 0 && i + 1 < argc) {
            unsigned sw = 0, sh = 0;
            char tail = 0;
            if (sscanf(argv[++i], "%ux%u%c", &sw, &sh, &tail) != 2 || sw == 0 || sh == 0 ||
                sw > 16384 || sh > 16384) {
                fprintf(stderr, "zengine render: --size wants WxH (1..16384), got '%s'\n", argv[i]);
                return ZE_CLI_USAGE;
            }
            w = sw, h = sh;
        } else if (a[0] != '-' && !model) {
            model = a;
        } else {
            fprintf(stderr, "zengine render: unexpected argument '%s'\n", a);
            ze_cli_render_usage(stderr);
            return ZE_CLI_USAGE;
        }
    }
    if (!model || !out) {
        ze_cli_render_usage(stderr);
        return ZE_CLI_USAGE;
    }
    static render_t r;
    memset(&r, 0, sizeof r);
    r.file = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
    const char *tmp = getenv("TMPDIR");
    snprintf(r.root, sizeof r.root, "%s/zengine-render-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(r.root)) {
        fprintf(stderr, "zengine render: mkdtemp: %s\n", strerror(errno));
        return ZE_CLI_FAILED;
    }
    char path[600], text[512];
    snprintf(path, sizeof path, "%s/models", r.root);
    mkdir(path, 0755);
    int status = ZE_CLI_FAILED;
    snprintf(path, sizeof path, "%s/project.json", r.root);
    int n = snprintf(text, sizeof text,
                     "{\"name\": \"zengine render\", \"asset_folders\": [\"models\"],"
                     " \"window\": {\"width\": %u, \"height\": %u, \"title\": \"render\"}}\n",
                     w, h);
    FILE *pf = fopen(path, "wb");
    bool ok = pf && fwrite(text, 1, (size_t)n, pf) == (size_t)n;
    if (pf)
        ok = fclose(pf) == 0 && ok;
    if (ok && stage_model(&r, model)) {
        ze_app_desc_t app = {
            .name = "zengine render",
            .user = &r,
            .on_initialized = on_initialized,
            .on_update = on_update,
        };
        ze_run_desc_t run = {
            .project = path,
            .headless = true,
            .frames = RENDER_FRAMES,
            .fixed_dt = 1.0 / 60.0,
            .screenshot = out,
            .stats = stats,
            .backend = "vulkan",
            .import_mode = ZE_IMPORT_IN_PROCESS,
            .in_process_cook = ze_asset_cook,
        };
        ze_run_report_t rep;
        ze_result res = ze_app_run(&app, &run, &rep);
        if (stats)
            (void)ze_run_report_write_json(&rep, stats);
        struct stat st;
        if (res != ZE_OK)
            fprintf(stderr, "zengine render: %s\n", r.error[0] ? r.error : rep.error);
        else if (r.failed)
            fprintf(stderr, "zengine render: %s\n", r.error);
        else if (rep.validation_messages)
            fprintf(stderr, "zengine render: %llu validation messages\n",
                    (unsigned long long)rep.validation_messages);
        else if (stat(out, &st) != 0 || st.st_size == 0)
            fprintf(stderr, "zengine render: no image was written to %s\n", out);
        else
            status = ZE_CLI_OK;
    }
    remove_tree(r.root);
    return status;
}
