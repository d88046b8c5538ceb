/* The showcase's asset part: a project folder with a glTF model, imported
 * by a child `zengine cook` process, loaded by the AssetManager, and hot
 * reloaded after an edit; every registry state change is printed. */
/* nftw */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "showcase.h"

enum { TRAIL_MAX = 16, TRACKED_MAX = 16 };

typedef struct tracked_t {
    ze_uuid_t uuid;
    char name[64];
    ze_asset_state trail[TRAIL_MAX];
    uint32_t n;
} tracked_t;

typedef struct demo_t {
    tracked_t tracked[TRACKED_MAX];
    uint32_t count;
    uint32_t ready; /* on_asset_ready calls */
    char root[256];
} demo_t;

static tracked_t *track(demo_t *d, ze_uuid_t u, const char *path)
{
    for (uint32_t i = 0; i < d->count; i++)
        if (ze_uuid_eq(d->tracked[i].uuid, u))
            return &d->tracked[i];
    if (d->count == TRACKED_MAX)
        return NULL;
    tracked_t *t = &d->tracked[d->count++];
    memset(t, 0, sizeof *t);
    t->uuid = u;
    const char *slash = strrchr(path, '/');
    snprintf(t->name, sizeof t->name, "%s", slash ? slash + 1 : path);
    t->trail[t->n++] = ZE_ASSET_STATE_UNKNOWN;
    return t;
}

static void on_state(void *user, const ze_asset_info_t *info, ze_asset_state old)
{
    (void)old;
    if (info->type == ZE_ASSET_TYPE_FILE)
        return;
    tracked_t *t = track(user, info->uuid, info->path);
    if (t && t->n < TRAIL_MAX)
        t->trail[t->n++] = info->state;
}

static void on_ready(void *user, const ze_asset_data_t *data)
{
    (void)data;
    ((demo_t *)user)->ready++;
}

static void print_trails(demo_t *d)
{
    for (uint32_t i = 0; i < d->count; i++) {
        tracked_t *t = &d->tracked[i];
        printf("  %-28s", t->name);
        for (uint32_t k = 0; k < t->n; k++)
            printf("%s%s", k ? " -> " : "", ze_asset_state_name(t->trail[k]));
        printf("\n");
        ze_asset_state last = t->trail[t->n - 1]; /* the next print starts from here */
        t->n = 1;
        t->trail[0] = last;
    }
}

static bool copy_file(const char *from, const char *to, const char *replace, const char *with)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return false;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    fclose(in);
    buf[n] = 0;
    char out[16384 + 64];
    size_t m = n;
    char *at = replace ? strstr(buf, replace) : NULL;
    if (at) {
        size_t pre = (size_t)(at - buf), rl = strlen(replace), wl = strlen(with);
        memcpy(out, buf, pre);
        memcpy(out + pre, with, wl);
        memcpy(out + pre + wl, at + rl, n - pre - rl);
        m = n - rl + wl;
    } else {
        memcpy(out, buf, n);
    }
    FILE *o = fopen(to, "wb");
    if (!o)
        return false;
    bool ok = fwrite(out, 1, m, o) == m;
    return fclose(o) == 0 && ok;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "showcase: could not remove %s\n", dir);
}

/* Frames of the main loop (as far as assets go) until `done` or timeout. */
typedef bool (*done_fn)(void *ctx);
static bool run_frames(ze_vfs_t *vfs, ze_import_coordinator_t *ic, ze_asset_manager_t *am,
                       done_fn done, void *ctx, uint32_t timeout_ms, uint32_t *frames)
{
    uint64_t deadline = ze_time_now_ns() + (uint64_t)timeout_ms * 1000000u;
    *frames = 0;
    while (!done(ctx)) {
        if (ze_time_now_ns() > deadline)
            return false;
        ze_vfs_tick(vfs);
        ze_import_coordinator_tick(ic);
        ze_asset_manager_tick(am);
        ze_time_sleep_ns(2000000); /* a 500 Hz "frame" */
        (*frames)++;
    }
    return true;
}

typedef struct wait_state_t {
    ze_asset_registry_t *reg;
    ze_asset_manager_t *am;
    ze_uuid_t uuid;
    uint32_t generation;
} wait_state_t;

static bool source_settled(void *ctx)
{
    wait_state_t *w = ctx;
    ze_asset_info_t info;
    return ze_asset_registry_get(w->reg, w->uuid, &info) &&
           (info.state == ZE_ASSET_STATE_LOADED || info.state == ZE_ASSET_STATE_FAILED);
}

static bool newer_data(void *ctx)
{
    wait_state_t *w = ctx;
    const ze_asset_data_t *d = ze_asset_get(w->am, w->uuid);
    return d && d->generation > w->generation;
}

bool showcase_assets(ze_mem_t *mm, ze_job_system_t *js)
{
    demo_t *d = ze_alloc(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME), sizeof *d, 16);
    if (!d)
        return false;
    memset(d, 0, sizeof *d);
    const char *tmp = getenv("TMPDIR");
    snprintf(d->root, sizeof d->root, "%s/zengine-showcase-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(d->root))
        return false;
    char path[512], models[300];
    snprintf(models, sizeof models, "%s/models", d->root);
    mkdir(models, 0755);
    snprintf(path, sizeof path, "%s/crate.gltf", models);
    bool ok = copy_file(SHOWCASE_ASSETS "/crate.gltf", path, NULL, NULL);
    snprintf(path, sizeof path, "%s/crate.png", models);
    ok = ok && copy_file(SHOWCASE_ASSETS "/crate.png", path, NULL, NULL);

    ze_vfs_t *vfs = NULL;
    ze_asset_registry_t *reg = NULL;
    ze_import_coordinator_t *ic = NULL;
    ze_asset_manager_t *am = NULL;
    ok = ok && ze_vfs_create(&(ze_vfs_desc_t){.mem = mm,
                                              .jobs = js,
                                              .project_root = d->root,
                                              .no_engine_mount = true,
                                              .watch = true},
                             &vfs) == ZE_OK;
    ok = ok && ze_asset_registry_create(&(ze_asset_registry_desc_t){.alloc = ze_mem_owner_allocator(
                                                                        mm, ZE_MEM_OWNER_ASSET)},
                                        &reg) == ZE_OK;
    ok = ok && ze_asset_registry_listen(reg, on_state, d) == ZE_OK;
    /* The cooker is `zengine` beside this program; sanitizer builds use the
       unsanitized dev tree's (sanitizer runtimes cannot start under the
       child's address-space limit). */
    const char *cooker = SHOWCASE_COOKER[0] ? SHOWCASE_COOKER : NULL;
    ze_import_mode mode = ZE_IMPORT_CHILD_PROCESS; /* a game links no importer */
    if (cooker && access(cooker, X_OK) != 0)
        printf("assets: %s is missing: the imports will fail\n", cooker);
    ok = ok && ze_import_coordinator_create(&(ze_import_coordinator_desc_t){.mem = mm,
                                                                            .vfs = vfs,
                                                                            .registry = reg,
                                                                            .jobs = js,
                                                                            .mode = mode,
                                                                            .cooker = cooker,
                                                                            .watch = true},
                                            &ic) == ZE_OK;
    ok = ok && ze_asset_manager_create(&(ze_asset_manager_desc_t){.mem = mm,
                                                                  .vfs = vfs,
                                                                  .registry = reg,
                                                                  .imports = ic,
                                                                  .jobs = js,
                                                                  .on_asset_ready = on_ready,
                                                                  .user = d},
                                       &am) == ZE_OK;
    ze_uuid_t src = {{0}};
    uint32_t frames = 0;
    uint64_t t0 = ze_time_now_ns();
    ok = ok &&
         ze_import_request(ic, "/models/crate.gltf", ZE_IMPORT_IMMEDIATE, false, &src) == ZE_OK;
    if (ok)
        track(d, src, "/models/crate.gltf");
    wait_state_t ws = {.reg = reg, .am = am, .uuid = src};
    ok = ok && run_frames(vfs, ic, am, source_settled, &ws, 30000, &frames);
    ze_asset_info_t info = {0};
    ok = ok && ze_asset_registry_get(reg, src, &info) && info.state == ZE_ASSET_STATE_LOADED;
    if (ok)
        printf("assets: %s imported by a %s in %.1f ms over %u frames (the main thread never "
               "waited)\n",
               info.path, mode == ZE_IMPORT_CHILD_PROCESS ? "child zengine cook" : "pool job",
               (double)(ze_time_now_ns() - t0) / 1e6, frames);
    else
        printf("assets: import failed: %s\n", info.reason ? info.reason : "(setup)");

    /* Load every sub-asset. */
    ze_uuid_t subs[8];
    uint32_t nsub = ok ? ze_asset_registry_sub_assets(reg, src, subs, 8) : 0;
    ze_uuid_t material = {{0}};
    for (uint32_t i = 0; ok && i < nsub && i < 8; i++)
        ok = ze_asset_acquire(am, subs[i]) == ZE_OK;
    ok = ok && ze_asset_manager_wait(am, 30000) == ZE_OK;
    for (uint32_t i = 0; ok && i < nsub && i < 8; i++) {
        const ze_asset_data_t *a = ze_asset_get(am, subs[i]);
        if (!a) {
            ok = false;
            break;
        }
        switch (a->type) {
        case ZE_ASSET_TYPE_MESH:
            printf("  mesh      %u vertices, %u indices, %u submesh(es)\n", a->as.mesh.vertex_count,
                   a->as.mesh.index_count, a->as.mesh.submesh_count);
            break;
        case ZE_ASSET_TYPE_TEXTURE:
            printf("  texture   %ux%u, %u mips\n", a->as.texture.width, a->as.texture.height,
                   a->as.texture.mip_count);
            break;
        case ZE_ASSET_TYPE_MATERIAL:
            material = subs[i];
            printf("  material  \"%s\", metallic %.2f, roughness %.2f, base colour texture %s\n",
                   a->as.material.name, a->as.material.metallic_factor,
                   a->as.material.roughness_factor,
                   a->as.material.base_color.present ? "yes" : "no");
            break;
        case ZE_ASSET_TYPE_SCENE:
            printf("  scene     %zu bytes of zengine.scene JSON\n", a->as.scene.size);
            break;
        default:
            break;
        }
    }
    printf("assets: registry states so far:\n");
    print_trails(d);

    /* Hot reload: edit the source on disk; the watcher notices, the model is
       cooked again in a child, and the manager reloads what it holds. */
    const ze_asset_data_t *m = ok ? ze_asset_get(am, material) : NULL;
    if (m) {
        ws.uuid = material;
        ws.generation = m->generation;
        snprintf(path, sizeof path, "%s/crate.gltf", models);
        t0 = ze_time_now_ns();
        ok = copy_file(SHOWCASE_ASSETS "/crate.gltf", path, "\"metallicFactor\": 0.0",
                       "\"metallicFactor\": 0.5");
        ok = ok && run_frames(vfs, ic, am, newer_data, &ws, 10000, &frames);
        m = ze_asset_get(am, material);
        if (ok && m)
            printf("assets: hot reload: crate.gltf edited -> material generation %u, metallic "
                   "%.2f, %.0f ms after the write\n",
                   m->generation, m->as.material.metallic_factor,
                   (double)(ze_time_now_ns() - t0) / 1e6);
        ok = ok && m && m->as.material.metallic_factor > 0.49f;
        printf("assets: registry states during the reload:\n");
        print_trails(d);
    } else {
        ok = false;
    }
    ze_import_stats_t is = ze_import_coordinator_stats(ic);
    ze_asset_manager_stats_t ms = ze_asset_manager_stats(am);
    printf("assets: %llu import(s) ok, %llu failed; %llu load(s), %llu reload(s), %u asset(s) "
           "in memory (%llu bytes); %u on_asset_ready call(s)\n",
           (unsigned long long)is.succeeded, (unsigned long long)is.failed,
           (unsigned long long)ms.loads, (unsigned long long)ms.reloads, ms.loaded,
           (unsigned long long)ms.bytes, d->ready);
    ze_asset_manager_destroy(am);
    ze_import_coordinator_destroy(ic);
    ze_asset_registry_destroy(reg);
    ze_vfs_destroy(vfs);
    remove_tree(d->root);
    ze_free(ze_mem_owner_allocator(mm, ZE_MEM_OWNER_GAME), d, sizeof *d);
    return ok;
}
