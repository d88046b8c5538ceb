/* asset suite, issue 17's rows: start-up of a cooked project, and the
 * meshopt decoder's rate (at the end of this file).
 *
 * Start-up: a project of N sources already
 * cooked (small glTFs, each with its own .bin), started again the way the
 * engine starts: every source registered and requested (its .meta read
 * on this thread), then frames of vfs tick + coordinator tick until the
 * coordinator is idle; printed besides, the same with ze_import_discover
 * (sidecars read on the pool too). The checks (hashing each source and its .bin,
 * artifacts' existence, settings) run on the pool too; the main thread only
 * registers what the verdicts say, under a per-tick budget.
 *
 * startup_check_frame_worst: the longest of those frames (target <= 2 ms);
 * baseline: the main thread hashing every source and dependency in one go,
 * what registration did before. startup_register: the registration pass
 * (sidecar reads on the main thread, before the first frame; no target).
 * Fails when the restart imports anything (an unchanged project imports
 * nothing). */
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

#include "zengine/asset.h"
#include "zengine/cook.h"

enum { PER_FOLDER = 100 };

typedef struct startup_t {
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    ze_vfs_t *vfs;
    ze_asset_registry_t *reg;
    ze_import_coordinator_t *ic;
    char root[512];
    uint32_t n;
} startup_t;

static bool write_text(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

static void vpath(uint32_t i, const char *ext, char *out, size_t cap)
{
    snprintf(out, cap, "/m%02u/t%04u%s", i / PER_FOLDER, i, ext);
}

/* A triangle at x = i: unique bytes, so every hash differs. */
static bool make_source(const startup_t *s, uint32_t i)
{
    char dir[600], p[700];
    snprintf(dir, sizeof dir, "%s/m%02u", s->root, i / PER_FOLDER);
    mkdir(dir, 0755);
    float v[9] = {(float)i, 0, 0, (float)i + 1, 0, 0, (float)i, 1, 0};
    snprintf(p, sizeof p, "%s/t%04u.bin", dir, i);
    if (!write_text(p, v, sizeof v))
        return false;
    char json[1024];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},"
                     "\"buffers\":[{\"uri\":\"t%04u.bin\",\"byteLength\":36}],"
                     "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                     "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                     "\"type\":\"VEC3\",\"min\":[%u,0,0],\"max\":[%u,1,0]}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                     "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
                     i, i, i + 1);
    snprintf(p, sizeof p, "%s/t%04u.gltf", dir, i);
    return write_text(p, json, (size_t)n);
}

static bool open_runtime(startup_t *s)
{
    if (ze_asset_registry_create(
            &(ze_asset_registry_desc_t){.alloc = ze_mem_owner_allocator(s->mm, ZE_MEM_OWNER_ASSET)},
            &s->reg) != ZE_OK)
        return false;
    ze_import_coordinator_desc_t cd = {.mem = s->mm,
                                       .vfs = s->vfs,
                                       .registry = s->reg,
                                       .jobs = s->jobs,
                                       .mode = ZE_IMPORT_IN_PROCESS,
                                       .in_process_cook = ze_asset_cook,
                                       .watch = true};
    return ze_import_coordinator_create(&cd, &s->ic) == ZE_OK;
}

static void close_runtime(startup_t *s)
{
    ze_import_coordinator_destroy(s->ic);
    ze_asset_registry_destroy(s->reg);
    s->ic = NULL;
    s->reg = NULL;
}

/* As the engine's folder walk: discovered, sidecars read on the pool (or
 * requested, for the first cook). */
static bool request_all(startup_t *s, bool discover)
{
    for (uint32_t i = 0; i < s->n; i++) {
        char p[64];
        vpath(i, ".gltf", p, sizeof p);
        ze_result r = discover ? ze_import_discover(s->ic, p)
                               : ze_import_request(s->ic, p, ZE_IMPORT_BACKGROUND, false, NULL);
        if (r != ZE_OK)
            return false;
    }
    return true;
}

/* What registration cost before: every source and dependency read and
 * hashed on the main thread. */
static double hash_all_on_main(startup_t *s)
{
    uint64_t t0 = ze_bench_now_ns(), sum = 0;
    for (uint32_t i = 0; i < s->n; i++)
        for (int k = 0; k < 2; k++) {
            char p[64];
            vpath(i, k ? ".bin" : ".gltf", p, sizeof p);
            ze_vfs_buffer_t b;
            if (ze_vfs_read_file(s->vfs, p, (ze_allocator_t){0}, &b) == ZE_OK) {
                sum += ze_hash64(b.data, b.size, 0);
                ze_vfs_buffer_free(&b);
            }
        }
    ze_bench_do_not_optimize(&sum);
    return (double)(ze_bench_now_ns() - t0) * 1e-6;
}

void ze_bench_asset_startup(ze_bench_t *b, ze_mem_t *mm, ze_job_system_t *jobs, const char *dir);
/* The rows above; `dir` is the suite's scratch folder. */
void ze_bench_asset_startup(ze_bench_t *b, ze_mem_t *mm, ze_job_system_t *jobs, const char *dir)
{
    const char *row = "startup_check_frame_worst";
    startup_t s = {.mm = mm, .jobs = jobs, .n = (uint32_t)ze_bench_size(b, 1000, 50)};
    snprintf(s.root, sizeof s.root, "%s/startup", dir);
    ze_bench_mkdirs(s.root);
    for (uint32_t i = 0; i < s.n; i++)
        if (!make_source(&s, i)) {
            ze_bench_fail(b, row, "cannot write the project under %s", s.root);
            return;
        }
    ze_vfs_desc_t vd = {
        .mem = mm, .jobs = jobs, .project_root = s.root, .no_engine_mount = true, .watch = true};
    if (ze_vfs_create(&vd, &s.vfs) != ZE_OK || !open_runtime(&s)) {
        ze_bench_fail(b, row, "VFS or import coordinator");
        return;
    }
    /* cook everything once, off the clock */
    if (!request_all(&s, false) || ze_import_coordinator_wait(s.ic, 600000) != ZE_OK ||
        ze_import_coordinator_stats(s.ic).succeeded != s.n) {
        ze_bench_fail(b, row, "the first cook of %u sources failed", s.n);
        close_runtime(&s);
        ze_vfs_destroy(s.vfs);
        return;
    }
    close_runtime(&s);
    double worst = 0.0, total = 0.0, reg_ms = 0.0, disc_ms = 0.0, disc_worst = 0.0;
    uint32_t frames = 0;
    ze_import_stats_t st = {0};
    /* the best of a few starts: the machine is shared. Even rounds start
       as the engine does (registration reads the sidecars, checks on the
       pool), odd ones with ze_import_discover (sidecars read on the pool). */
    for (uint32_t round = 0; round < 2 * ze_bench_rounds(b, 5); round++) {
        bool discover = round & 1;
        if (!open_runtime(&s))
            break;
        uint64_t t0 = ze_bench_now_ns();
        bool ok = request_all(&s, discover);
        uint64_t t1 = ze_bench_now_ns();
        double w = 0.0;
        uint32_t nf = 0;
        while (ok && !ze_import_coordinator_idle(s.ic)) {
            uint64_t f0 = ze_bench_now_ns();
            ze_vfs_tick(s.vfs);
            ze_import_coordinator_tick(s.ic);
            double ms = (double)(ze_bench_now_ns() - f0) * 1e-6;
            w = ms > w ? ms : w;
            nf++;
            ze_time_sleep_ns(1000000); /* the rest of a frame */
        }
        double tot = (double)(ze_bench_now_ns() - t1) * 1e-6;
        st = ze_import_coordinator_stats(s.ic);
        close_runtime(&s);
        if (!ok || st.started || st.up_to_date != s.n) {
            ze_bench_fail(b, row, "the restart imported %llu and found %llu current of %u",
                          (unsigned long long)st.started, (unsigned long long)st.up_to_date, s.n);
            ze_vfs_destroy(s.vfs);
            return;
        }
        double r = (double)(t1 - t0) * 1e-6;
        if (discover) {
            disc_worst = round == 1 || w < disc_worst ? w : disc_worst;
            disc_ms = round == 1 || r < disc_ms ? r : disc_ms;
            continue;
        }
        if (round == 0 || w < worst) {
            worst = w;
            frames = nf;
            total = tot;
        }
        reg_ms = round == 0 || r < reg_ms ? r : reg_ms;
    }
    double main_hash = hash_all_on_main(&s);
    ze_vfs_destroy(s.vfs);
    printf("  startup: %u cooked sources, 0 imports; checks done in %.1f ms over %u frames, "
           "worst frame %.3f ms; registration %.1f ms; hashing all on the main thread %.1f ms; "
           "with ze_import_discover: registration %.2f ms, worst frame %.3f ms\n",
           s.n, total, frames, worst, reg_ms, main_hash, disc_ms, disc_worst);
    ze_bench_add(b, row, s.n, "ms/frame", ZE_BENCH_LOWER, worst, main_hash, 2.0);
    ze_bench_add(b, "startup_register", s.n, "s", ZE_BENCH_LOWER, reg_ms * 1e-3, ZE_BENCH_NONE,
                 ZE_BENCH_NONE);
}

/* ------------------------------------------------------- meshopt_decode */

/* meshopt_decode (MB/s of decoded vertex bytes): what EXT_meshopt_
 * compression costs the cooker per view, meshopt_decodeVertexBuffer over a
 * 32-byte vertex stream (a grid's positions, normals, UVs) against the raw
 * accessor copy (memcpy of the same bytes). No target. */
typedef struct decode_ctx_t {
    uint8_t *raw, *enc, *out;
    size_t count, enc_n;
    bool failed;
} decode_ctx_t;

static double decode_round(void *p)
{
    decode_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    c->failed |= meshopt_decodeVertexBuffer(c->out, c->count, 32, c->enc, c->enc_n) != 0;
    uint64_t t1 = ze_bench_now_ns();
    ze_bench_do_not_optimize(c->out);
    return (double)(c->count * 32) / 1e6 / ((double)(t1 - t0) * 1e-9);
}

static double copy_round(void *p)
{
    decode_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    memcpy(c->out, c->raw, c->count * 32);
    uint64_t t1 = ze_bench_now_ns();
    ze_bench_do_not_optimize(c->out);
    return (double)(c->count * 32) / 1e6 / ((double)(t1 - t0) * 1e-9);
}

void ze_bench_asset_meshopt(ze_bench_t *b);
/* The meshopt_decode row. */
void ze_bench_asset_meshopt(ze_bench_t *b)
{
    decode_ctx_t c = {.count = (size_t)ze_bench_size(b, 1u << 19, 1u << 12)};
    c.raw = ze_bench_table_alloc(c.count * 32);
    c.out = ze_bench_table_alloc(c.count * 32);
    size_t bound = meshopt_encodeVertexBufferBound(c.count, 32);
    c.enc = ze_bench_table_alloc(bound);
    size_t side = 1;
    while (side * side < c.count)
        side++;
    for (size_t i = 0; i < c.count; i++) {
        float v[8] = {(float)(i % side),
                      0.0f,
                      (float)(i / side),
                      0,
                      1,
                      0,
                      (float)(i % side) / (float)side,
                      (float)(i / side) / (float)side};
        memcpy(c.raw + 32 * i, v, 32);
    }
    c.enc_n = meshopt_encodeVertexBuffer(c.enc, bound, c.raw, c.count, 32);
    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 9), decode_round, &c, copy_round, &c);
    if (c.failed || c.enc_n == 0 || memcmp(c.out, c.raw, c.count * 32) != 0)
        ze_bench_fail(b, "meshopt_decode", "the decoded stream differs from the source");
    else {
        printf("  meshopt_decode: %zu vertices, %.1f MB -> %.1f MB compressed\n", c.count,
               (double)(c.count * 32) / 1e6, (double)c.enc_n / 1e6);
        ze_bench_add(b, "meshopt_decode", c.count, "MB/s", ZE_BENCH_HIGHER, r.value, r.baseline,
                     ZE_BENCH_NONE);
    }
    ze_bench_table_free(c.raw);
    ze_bench_table_free(c.out);
    ze_bench_table_free(c.enc);
}
