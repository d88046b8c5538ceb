/* asset_bench.c — bench_asset: glTF import, .zemesh load, texture cook, corpus cook.
 *
 * gltf_import: a GLB of ~50 MB generated here (seeded, a few hundred grid
 *   meshes of one primitive each: POSITION, NORMAL, TEXCOORD_0 and u32
 *   indices; half of them interleaved in one strided bufferView, half in one
 *   bufferView per attribute) imported from memory by
 *   ze_asset_import_gltf_memory, MB/s of GLB bytes, against assimp's
 *   aiImportFileFromMemory with only aiProcess_Triangulate on the same
 *   bytes. Freeing either result is off the clock. Both must report the same
 *   vertex count. Target: at least 2x the baseline.
 * zemesh_load: the same geometry as one mesh of many primitives, cooked by
 *   ze_asset_zemesh_write into one .zemesh in a temporary file; open + read
 *   into a reused, pre-touched buffer + ze_asset_zemesh_read (every check,
 *   the checksum included), MB/s of file, against the same open + read
 *   alone. Target: at least 0.5x the baseline.
 * texture_cook: ze_asset_zetex_cook (decode, sRGB-aware mip chain, .zetex
 *   bytes) of a PNG of the shared corpus, MB/s of decoded base-level RGBA8
 *   pixels (width x height x 4). No baseline: stb_image is private to the
 *   library.
 * texture_bc: block compression (issue 17) of textures of the shared
 *   corpus cooked by ze_asset_cook with the default settings ("auto":
 *   BC1/BC3 for colour, BC5 for the normal map of NormalTangentMirrorTest),
 *   the figures the cooker reports: per texture bc_psnr_<name> (dB of mip 0
 *   decoded against the source, target >= 35) and bc_bytes_<name> (bytes
 *   of its mips over the RGBA8 mips', target <= 0.25 for colour);
 *   bc_encode: MB/s of RGBA8 chain (1024 x 1024, uv1.png) through
 *   ze_asset_zetex_cook with "auto" (decode, mips, encode) against the same
 *   cook with "none".
 * cook_corpus: seconds to ze_asset_cook every "valid" entry of
 *   ../shared/testdata/assets/manifest.json, one job per entry on the job
 *   system (all cores), against the same loop on one thread. Outputs go to
 *   fresh folders each round (the cooker fsyncs every artifact).
 * The rows that need ../shared/testdata are skipped, with a note, when it is
 * absent. Temporary files live in a mkdtemp folder under /tmp, removed at
 * the end.
 */
#define _GNU_SOURCE /* qsort_r */
#include "bench.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "zengine/asset.h"
#include "zengine/job.h"
#include "zengine/cook.h"

#ifndef ZE_TESTDATA_DIR
#define ZE_TESTDATA_DIR "../shared/testdata"
#endif

#define MB 1e6 /* MB/s rows are 10^6 bytes per second */

enum {
    GLB_JSON_CHUNK = 0x4E4F534Au, /* "JSON" */
    GLB_BIN_CHUNK = 0x004E4942u,  /* "BIN\0" */
    VERTEX_BYTES = 32,            /* POSITION + NORMAL + TEXCOORD_0, f32 */
    CORPUS_MAX = 256,
};

static bool write_host(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w <= 0) {
            close(fd);
            return false;
        }
        p += w;
        size -= (size_t)w;
    }
    return close(fd) == 0;
}

/* Open, read the whole file into buf (cap bytes), close. Bytes read, or -1. */
static ssize_t read_into(const char *path, uint8_t *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return (ssize_t)got;
}

/* A whole file in a ze_mem_sys_alloc block (NULL on failure). */
static uint8_t *load_file(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return NULL;
    uint8_t *buf = ze_mem_sys_alloc((size_t)st.st_size);
    if (!buf)
        return NULL;
    if (read_into(path, buf, (size_t)st.st_size) != (ssize_t)st.st_size) {
        ze_mem_sys_free(buf);
        return NULL;
    }
    *size = (size_t)st.st_size;
    return buf;
}

/* ------------------------------------------------------- the generated GLB */

typedef struct gen_mesh_t {
    uint32_t gx, gz;       /* quads along x and z */
    uint32_t vertex_count; /* (gx + 1) * (gz + 1) */
    uint32_t index_count;  /* 6 * gx * gz */
    bool interleaved;      /* one strided view, else one view per attribute */
    size_t vertex_offset;  /* into BIN */
    size_t index_offset;   /* into BIN */
    float min[3], max[3];  /* of the positions (exact: quantized to 1/256) */
    float translation[3];  /* of its node */
} gen_mesh_t;

typedef struct gen_t {
    uint32_t mesh_count;
    gen_mesh_t *meshes;
    uint8_t *bin;
    size_t bin_size;
    uint64_t vertices, indices;
} gen_t;

/* Grid meshes (random sizes, heights and normals) until BIN reaches `bytes`. */
static void gen_geometry(gen_t *g, size_t bytes, uint64_t seed)
{
    ze_rng_t rng;
    ze_rng_seed(&rng, seed);
    memset(g, 0, sizeof(*g));
    /* Plan first: sizes decide the layout of BIN. */
    uint32_t cap = 64;
    g->meshes = ze_bench_table_alloc(cap * sizeof(gen_mesh_t));
    while (g->bin_size < bytes) {
        if (g->mesh_count == cap) {
            gen_mesh_t *m = ze_bench_table_alloc(2 * cap * sizeof(gen_mesh_t));
            memcpy(m, g->meshes, cap * sizeof(gen_mesh_t));
            ze_bench_table_free(g->meshes);
            g->meshes = m;
            cap *= 2;
        }
        gen_mesh_t *m = &g->meshes[g->mesh_count];
        m->gx = 24 + (uint32_t)ze_rng_below(&rng, 41);
        m->gz = 24 + (uint32_t)ze_rng_below(&rng, 41);
        m->vertex_count = (m->gx + 1) * (m->gz + 1);
        m->index_count = 6 * m->gx * m->gz;
        m->interleaved = g->mesh_count % 2 == 0;
        m->vertex_offset = g->bin_size;
        m->index_offset = m->vertex_offset + (size_t)m->vertex_count * VERTEX_BYTES;
        m->translation[0] = (float)(g->mesh_count % 32) * 20.0f;
        m->translation[2] = (float)(g->mesh_count / 32) * 20.0f;
        g->bin_size = m->index_offset + (size_t)m->index_count * 4;
        g->vertices += m->vertex_count;
        g->indices += m->index_count;
        g->mesh_count++;
    }
    g->bin = ze_bench_table_alloc(g->bin_size);
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        gen_mesh_t *m = &g->meshes[i];
        uint32_t n = m->vertex_count;
        float *v = (float *)(g->bin + m->vertex_offset);
        /* Non-interleaved: positions, then normals, then texcoords. */
        float *pos = v, *nrm = v + 3 * (size_t)n, *uv = v + 6 * (size_t)n;
        for (uint32_t k = 0; k < 3; k++) {
            m->min[k] = INFINITY;
            m->max[k] = -INFINITY;
        }
        for (uint32_t z = 0, k = 0; z <= m->gz; z++) {
            for (uint32_t x = 0; x <= m->gx; x++, k++) {
                /* Multiples of 1/256: exact in float and in %.17g decimal. */
                float p[3] = {(float)x * 0.25f,
                              (float)((int)ze_rng_below(&rng, 512) - 256) / 256.0f,
                              (float)z * 0.25f};
                float nx = (float)(ze_rng_unit(&rng) - 0.5) * 0.2f;
                float nz = (float)(ze_rng_unit(&rng) - 0.5) * 0.2f;
                float len = sqrtf(nx * nx + 1.0f + nz * nz);
                float nv[3] = {nx / len, 1.0f / len, nz / len};
                float t[2] = {(float)x / (float)m->gx, (float)z / (float)m->gz};
                float *dp, *dn, *dt;
                if (m->interleaved) {
                    dp = v + (size_t)k * 8;
                    dn = dp + 3;
                    dt = dp + 6;
                } else {
                    dp = pos + (size_t)k * 3;
                    dn = nrm + (size_t)k * 3;
                    dt = uv + (size_t)k * 2;
                }
                memcpy(dp, p, sizeof p);
                memcpy(dn, nv, sizeof nv);
                memcpy(dt, t, sizeof t);
                for (uint32_t c = 0; c < 3; c++) {
                    m->min[c] = fminf(m->min[c], p[c]);
                    m->max[c] = fmaxf(m->max[c], p[c]);
                }
            }
        }
        uint32_t *idx = (uint32_t *)(g->bin + m->index_offset);
        uint32_t row = m->gx + 1;
        for (uint32_t z = 0; z < m->gz; z++) {
            for (uint32_t x = 0; x < m->gx; x++) {
                uint32_t a = z * row + x, b = a + 1, c = a + row, d = c + 1;
                *idx++ = a, *idx++ = c, *idx++ = b;
                *idx++ = b, *idx++ = c, *idx++ = d;
            }
        }
    }
}

static void gen_release(gen_t *g)
{
    ze_bench_table_free(g->meshes);
    ze_bench_table_free(g->bin);
    memset(g, 0, sizeof(*g));
}

/* A bounded text buffer; running out of room is a bug in the estimate. */
typedef struct text_t {
    char *p;
    size_t len, cap;
} text_t;

static void text_add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    ZE_VERIFY_MSG(n >= 0 && (size_t)n < t->cap - t->len, "bench_asset: JSON buffer too small");
    t->len += (size_t)n;
}

/* The glTF JSON for g: one mesh per primitive and a node each, or (single)
 * one mesh holding every primitive under one node. Accessors per primitive:
 * POSITION, NORMAL, TEXCOORD_0, indices. */
static void gen_json(const gen_t *g, bool single, text_t *t)
{
    text_add(t, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"ZEngine bench_asset\"},"
                "\"scene\":0,\"scenes\":[{\"nodes\":[");
    uint32_t nodes = single ? 1 : g->mesh_count;
    for (uint32_t i = 0; i < nodes; i++)
        text_add(t, "%s%u", i ? "," : "", i);
    text_add(t, "]}],\"nodes\":[");
    for (uint32_t i = 0; i < nodes; i++) {
        const float *tr = g->meshes[i].translation;
        text_add(t, "%s{\"mesh\":%u,\"translation\":[%.17g,%.17g,%.17g]}", i ? "," : "", i,
                 single ? 0.0 : (double)tr[0], single ? 0.0 : (double)tr[1],
                 single ? 0.0 : (double)tr[2]);
    }
    text_add(t, "],\"meshes\":[");
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        uint32_t a = 4 * i;
        const char *open = !single ? (i ? ",{\"primitives\":[" : "{\"primitives\":[")
                                   : (i ? "," : "{\"primitives\":[");
        text_add(t,
                 "%s{\"attributes\":{\"POSITION\":%u,\"NORMAL\":%u,\"TEXCOORD_0\":%u},"
                 "\"indices\":%u}%s",
                 open, a, a + 1, a + 2, a + 3, !single || i + 1 == g->mesh_count ? "]}" : "");
    }
    text_add(t, "],\"accessors\":[");
    uint32_t view = 0;
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        const gen_mesh_t *m = &g->meshes[i];
        uint32_t vp = view, vn = m->interleaved ? view : view + 1;
        uint32_t vt = m->interleaved ? view : view + 2, vi = m->interleaved ? view + 1 : view + 3;
        uint32_t on = m->interleaved ? 12 : 0, ot = m->interleaved ? 24 : 0;
        view = vi + 1;
        text_add(t,
                 "%s{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
                 "\"min\":[%.17g,%.17g,%.17g],\"max\":[%.17g,%.17g,%.17g]},",
                 i ? "," : "", vp, m->vertex_count, (double)m->min[0], (double)m->min[1],
                 (double)m->min[2], (double)m->max[0], (double)m->max[1], (double)m->max[2]);
        text_add(t,
                 "{\"bufferView\":%u,\"byteOffset\":%u,\"componentType\":5126,\"count\":%u,"
                 "\"type\":\"VEC3\"},",
                 vn, on, m->vertex_count);
        text_add(t,
                 "{\"bufferView\":%u,\"byteOffset\":%u,\"componentType\":5126,\"count\":%u,"
                 "\"type\":\"VEC2\"},",
                 vt, ot, m->vertex_count);
        text_add(t, "{\"bufferView\":%u,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}",
                 vi, m->index_count);
    }
    text_add(t, "],\"bufferViews\":[");
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        const gen_mesh_t *m = &g->meshes[i];
        size_t n = m->vertex_count, off = m->vertex_offset;
        if (m->interleaved) {
            text_add(t,
                     "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":%d,"
                     "\"target\":34962}",
                     i ? "," : "", off, n * VERTEX_BYTES, VERTEX_BYTES);
        } else {
            text_add(t,
                     "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34962},"
                     "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34962},"
                     "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34962}",
                     i ? "," : "", off, n * 12, off + n * 12, n * 12, off + n * 24, n * 8);
        }
        text_add(t, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34963}",
                 m->index_offset, (size_t)m->index_count * 4);
    }
    text_add(t, "],\"buffers\":[{\"byteLength\":%zu}]}", g->bin_size);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* The GLB container (header, JSON chunk padded with spaces, BIN chunk) in a
 * ze_mem_sys_alloc block. */
static uint8_t *gen_glb(const gen_t *g, bool single, size_t *size)
{
    text_t t = {.cap = 4096 + (size_t)g->mesh_count * 1536};
    t.p = ze_bench_table_alloc(t.cap);
    gen_json(g, single, &t);
    size_t json_len = (t.len + 3) & ~(size_t)3;
    size_t bin_len = (g->bin_size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + json_len + 8 + bin_len;
    ZE_VERIFY_MSG(total < UINT32_MAX, "bench_asset: GLB over 4 GiB");
    uint8_t *glb = ze_bench_table_alloc(total);
    memcpy(glb, "glTF", 4);
    put_u32(glb + 4, 2);
    put_u32(glb + 8, (uint32_t)total);
    put_u32(glb + 12, (uint32_t)json_len);
    put_u32(glb + 16, GLB_JSON_CHUNK);
    memcpy(glb + 20, t.p, t.len);
    memset(glb + 20 + t.len, ' ', json_len - t.len);
    uint8_t *bin = glb + 20 + json_len;
    put_u32(bin, (uint32_t)bin_len);
    put_u32(bin + 4, GLB_BIN_CHUNK);
    memcpy(bin + 8, g->bin, g->bin_size); /* padding: zeroed by the allocation */
    ze_bench_table_free(t.p);
    *size = total;
    return glb;
}

/* ------------------------------------------------------------- gltf_import */

typedef struct import_ctx {
    const uint8_t *glb;
    size_t size;
    uint64_t ze_vertices, ai_vertices;
    bool failed;
    char error[ZE_DIAG_TEXT_MAX + 64];
} import_ctx;

static double ze_import_round(void *p)
{
    import_ctx *c = p;
    ze_model_t *model = NULL;
    ze_diag_capture_t err = {0};
    ze_diag_sink_t err_sink = ze_diag_capture_sink(&err);
    uint64_t t0 = ze_bench_now_ns();
    ze_result r =
        ze_asset_import_gltf_memory(c->glb, c->size, &(ze_gltf_desc_t){0}, &model, &err_sink);
    uint64_t t1 = ze_bench_now_ns();
    if (r != ZE_OK) {
        c->failed = true;
        snprintf(c->error, sizeof c->error, "our importer: %s", err.last_message);
        return NAN;
    }
    uint64_t v = 0;
    for (uint32_t m = 0; m < model->mesh_count; m++)
        for (uint32_t k = 0; k < model->meshes[m].primitive_count; k++)
            v += model->meshes[m].primitives[k].vertex_count;
    c->ze_vertices = v;
    ze_asset_model_destroy(model);
    return (double)c->size / MB / ((double)(t1 - t0) * 1e-9);
}

static double ai_import_round(void *p)
{
    import_ctx *c = p;
    uint64_t t0 = ze_bench_now_ns();
    const struct aiScene *scene = aiImportFileFromMemory((const char *)c->glb, (unsigned)c->size,
                                                         aiProcess_Triangulate, "glb");
    uint64_t t1 = ze_bench_now_ns();
    if (!scene) {
        c->failed = true;
        snprintf(c->error, sizeof c->error, "assimp: %s", aiGetErrorString());
        return NAN;
    }
    uint64_t v = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        v += scene->mMeshes[m]->mNumVertices;
    c->ai_vertices = v;
    aiReleaseImport(scene);
    return (double)c->size / MB / ((double)(t1 - t0) * 1e-9);
}

static void bench_gltf_import(ze_bench_t *b, const gen_t *g)
{
    import_ctx c = {0};
    c.glb = gen_glb(g, false, &c.size);
    printf("  gltf_import: GLB of %.1f MB: %u meshes, %llu vertices, %llu indices\n",
           (double)c.size / MB, g->mesh_count, (unsigned long long)g->vertices,
           (unsigned long long)g->indices);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 7), ze_import_round, &c, ai_import_round, &c);
    if (c.failed)
        ze_bench_fail(b, "gltf_import", "%s", c.error);
    else if (c.ze_vertices != g->vertices || c.ai_vertices != g->vertices)
        ze_bench_fail(b, "gltf_import",
                      "vertex counts differ: generated %llu, ours %llu, assimp %llu",
                      (unsigned long long)g->vertices, (unsigned long long)c.ze_vertices,
                      (unsigned long long)c.ai_vertices);
    else
        ze_bench_add(b, "gltf_import", c.size, "MB/s", ZE_BENCH_HIGHER, r.value, r.baseline,
                     2.0 * r.baseline);
    ze_bench_table_free((void *)c.glb);
}

/* ------------------------------------------------------------- zemesh_load */

typedef struct zemesh_ctx {
    char path[1100];
    uint8_t *buf; /* file size, pre-touched; 4-byte aligned */
    size_t size;
    uint32_t vertices, indices;
    bool failed;
    char error[ZE_DIAG_TEXT_MAX];
} zemesh_ctx;

static double zemesh_load_round(void *p)
{
    zemesh_ctx *c = p;
    ze_zemesh_view_t view;
    ze_diag_capture_t err = {0};
    ze_diag_sink_t err_sink = ze_diag_capture_sink(&err);
    uint64_t t0 = ze_bench_now_ns();
    ssize_t got = read_into(c->path, c->buf, c->size);
    ze_result r = got == (ssize_t)c->size ? ze_asset_zemesh_read(c->buf, c->size, &view, &err_sink)
                                          : ZE_ERR_IO;
    uint64_t t1 = ze_bench_now_ns();
    if (r != ZE_OK || view.vertex_count != c->vertices || view.index_count != c->indices) {
        c->failed = true;
        snprintf(c->error, sizeof c->error, "%s", r == ZE_OK ? "counts differ" : err.last_message);
    }
    return (double)c->size / MB / ((double)(t1 - t0) * 1e-9);
}

static double plain_read_round(void *p)
{
    zemesh_ctx *c = p;
    uint64_t t0 = ze_bench_now_ns();
    ssize_t got = read_into(c->path, c->buf, c->size);
    uint64_t t1 = ze_bench_now_ns();
    if (got != (ssize_t)c->size)
        c->failed = true;
    ze_bench_do_not_optimize(c->buf);
    return (double)c->size / MB / ((double)(t1 - t0) * 1e-9);
}

static void bench_zemesh_load(ze_bench_t *b, const gen_t *g, const char *dir)
{
    zemesh_ctx c = {0};
    snprintf(c.path, sizeof c.path, "%s/big.zemesh", dir);
    size_t glb_size;
    uint8_t *glb = gen_glb(g, true, &glb_size);
    ze_model_t *model = NULL;
    ze_diag_capture_t err = {0};
    ze_diag_sink_t err_sink = ze_diag_capture_sink(&err);
    ze_allocator_t sys = ze_mem_system_allocator();
    uint8_t *bytes = NULL;
    ze_result r =
        ze_asset_import_gltf_memory(glb, glb_size, &(ze_gltf_desc_t){0}, &model, &err_sink);
    ze_bench_table_free(glb);
    if (r != ZE_OK) {
        ze_bench_fail(b, "zemesh_load", "import: %s", err.last_message);
        return;
    }
    uint64_t t0 = ze_bench_now_ns();
    r = ze_asset_zemesh_write(model, 0, ze_uuid_v4(), NULL, sys, &bytes, &c.size);
    double write_s = (double)(ze_bench_now_ns() - t0) * 1e-9;
    if (r == ZE_OK) {
        /* The same mesh with 4 levels of detail per submesh (issue 18). */
        uint8_t *lod_bytes = NULL;
        size_t lod_size = 0;
        t0 = ze_bench_now_ns();
        ze_result lr =
            ze_asset_zemesh_write_lods(model, 0, ze_uuid_v4(), NULL, 4, sys, &lod_bytes, &lod_size);
        double lod_s = (double)(ze_bench_now_ns() - t0) * 1e-9;
        if (lr != ZE_OK) {
            ze_bench_fail(b, "lod_build", "ze_asset_zemesh_write_lods: %s", ze_result_str(lr));
        } else {
            printf("  lod_build: 4 levels, %.1f MB .zemesh, %.2f s (without levels %.2f s)\n",
                   (double)lod_size / MB, lod_s, write_s);
            /* no baseline: the plain write (printed) does less work, it is
               not something to beat */
            ze_bench_add(b, "lod_build", g->indices, "s", ZE_BENCH_LOWER, lod_s, ZE_BENCH_NONE,
                         ZE_BENCH_NONE);
            ze_free(sys, lod_bytes, lod_size);
        }
    }
    ze_asset_model_destroy(model);
    if (r != ZE_OK || !write_host(c.path, bytes, c.size)) {
        ze_bench_fail(b, "zemesh_load", "cannot write %s", c.path);
        if (bytes)
            ze_free(sys, bytes, c.size);
        return;
    }
    ze_free(sys, bytes, c.size);
    /* meshoptimizer's fetch remap drops unused vertices; the grids use all. */
    c.vertices = (uint32_t)g->vertices;
    c.indices = (uint32_t)g->indices;
    c.buf = ze_bench_table_alloc(c.size);
    printf("  zemesh_load: %.1f MB .zemesh, %u submeshes (ze_asset_zemesh_write took %.2f s)\n",
           (double)c.size / MB, g->mesh_count, write_s);
    (void)read_into(c.path, c.buf, c.size); /* page cache warm before the warm-up rounds */
    ze_bench_pair_t p =
        ze_bench_compare(ze_bench_rounds(b, 15), zemesh_load_round, &c, plain_read_round, &c);
    if (c.failed)
        ze_bench_fail(b, "zemesh_load", "a load failed: %s", c.error);
    else
        ze_bench_add(b, "zemesh_load", c.size, "MB/s", ZE_BENCH_HIGHER, p.value, p.baseline,
                     0.5 * p.baseline);
    ze_bench_table_free(c.buf);
    unlink(c.path);
}

/* ------------------------------------------------------------ texture_cook */

static void bench_texture_cook(ze_bench_t *b)
{
    const char *path = ZE_TESTDATA_DIR "/assets/textures/TextureEncodingTest/SlotLabels.png";
    size_t size = 0;
    uint8_t *png = load_file(path, &size);
    if (!png) {
        printf("  texture_cook: skipped (%s not found)\n", path);
        return;
    }
    ze_allocator_t sys = ze_mem_system_allocator();
    ze_image_desc_t desc = {.alloc = sys};
    uint32_t reps = (uint32_t)ze_bench_size(b, 20, 2), rounds = ze_bench_rounds(b, 7);
    double v[101];
    ze_tex_view_t view = {0};
    bool failed = false;
    for (uint32_t r = 0; r <= rounds && !failed; r++) { /* round 0: warm-up */
        uint64_t t = 0;
        for (uint32_t k = 0; k < reps; k++) {
            uint8_t *out = NULL;
            size_t out_size = 0;
            ze_diag_capture_t err = {0};
            ze_diag_sink_t err_sink = ze_diag_capture_sink(&err);
            uint64_t t0 = ze_bench_now_ns();
            ze_result res =
                ze_asset_zetex_cook(png, size, (ze_uuid_t){0}, &desc, &out, &out_size, &err_sink);
            t += ze_bench_now_ns() - t0;
            if (res != ZE_OK || ze_asset_zetex_read(out, out_size, &view, &err_sink) != ZE_OK) {
                ze_bench_fail(b, "texture_cook", "%s", err.last_message);
                failed = true;
                break;
            }
            ze_free(sys, out, out_size);
        }
        if (r > 0)
            v[r - 1] = (double)view.width * view.height * 4 * reps / MB / ((double)t * 1e-9);
    }
    if (!failed) {
        printf("  texture_cook: %s, %u x %u, %u mips, %zu bytes of PNG\n",
               "TextureEncodingTest/SlotLabels.png", view.width, view.height, view.mip_count, size);
        ze_bench_add(b, "texture_cook", (uint64_t)view.width * view.height, "MB/s", ZE_BENCH_HIGHER,
                     ze_bench_median(v, rounds), ZE_BENCH_NONE, ZE_BENCH_NONE);
    }
    ze_mem_sys_free(png);
}

/* -------------------------------------------------------------- texture_bc */

static double cook_seconds(const uint8_t *data, size_t size, const ze_image_desc_t *desc,
                           ze_bench_t *b, bool *failed)
{
    ze_allocator_t sys = ze_mem_system_allocator();
    uint8_t *out = NULL;
    size_t n = 0;
    ze_diag_capture_t err = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&err);
    uint64_t t0 = ze_bench_now_ns();
    ze_result r = ze_asset_zetex_cook(data, size, (ze_uuid_t){0}, desc, &out, &n, &sink);
    double s = (double)(ze_bench_now_ns() - t0) * 1e-9;
    if (r != ZE_OK) {
        ze_bench_fail(b, "bc_encode", "%s", err.last_message);
        *failed = true;
        return 0;
    }
    ze_free(sys, out, n);
    return s;
}

static void bench_texture_bc(ze_bench_t *b, const char *dir)
{
    /* the figures the cooker reports (ze_cook_result_t.textures, what
       `zengine cook --json` prints as cooked_textures), default settings */
    static const struct {
        const char *name, *path, *artifact; /* NULL: the source's only texture */
        bool colour;
    } k_tex[] = {
        {"slotlabels", "textures/TextureEncodingTest/SlotLabels.png", NULL, true},
        {"interpolation_l", "textures/InterpolationTest/l.jpg", NULL, true},
        {"twosided_mr", "textures/TwoSidedPlane/TwoSidedPlane_MetallicRoughness.png", NULL, true},
        {"wal67ar", "obj/wal67ar_small.jpg", NULL, true},
        {"spidertex", "obj/SpiderTex.jpg", NULL, true},
        {"drkwood2", "obj/drkwood2.jpg", NULL, true},
        {"cesium_logo", "gltf/BoxTextured/glTF/CesiumLogoFlat.png", NULL, true},
        {"uv1", "gltf/MultiUVTest/glTF/uv1.png", NULL, true},
        {"ntm_normal", "gltf/NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf",
         ".texture1.zetex", false},
    };
    for (size_t i = 0; i < ZE_COUNTOF(k_tex); i++) {
        char path[1024], out[1100];
        snprintf(path, sizeof path, "%s/assets/%s", ZE_TESTDATA_DIR, k_tex[i].path);
        snprintf(out, sizeof out, "%s/bc/%s", dir, k_tex[i].name);
        struct stat st;
        if (stat(path, &st) != 0) {
            printf("  texture_bc: skipped (%s not found)\n", path);
            return;
        }
        ze_diag_capture_t err = {0};
        ze_cook_desc_t d = {.source = path, .out_dir = out, .diag = ze_diag_capture_sink(&err)};
        ze_cook_result_t r;
        if (ze_asset_cook(&d, &r) != ZE_OK) {
            ze_bench_fail(b, "bc_psnr", "%s", err.last_message);
            ze_asset_cook_result_release(&r);
            return;
        }
        const ze_cook_texture_t *t = NULL;
        for (uint32_t k = 0; k < r.texture_count && !t; k++) {
            size_t la = strlen(r.textures[k].artifact);
            const char *suf = k_tex[i].artifact;
            if (!suf ||
                (la > strlen(suf) && strcmp(r.textures[k].artifact + la - strlen(suf), suf) == 0))
                t = &r.textures[k];
        }
        if (!t) {
            ze_bench_fail(b, "bc_psnr", "%s: no texture artifact", path);
            ze_asset_cook_result_release(&r);
            return;
        }
        double ratio = (double)t->bytes / (double)t->rgba8_bytes;
        printf("  texture_bc: %-16s %-10s %6.2f dB, %.4fx the RGBA8 mips (%llu of %llu bytes)\n",
               k_tex[i].name, ze_tex_format_name(t->format), t->psnr_db, ratio,
               (unsigned long long)t->bytes, (unsigned long long)t->rgba8_bytes);
        char row[64];
        snprintf(row, sizeof row, "bc_psnr_%s", k_tex[i].name);
        ze_bench_add(b, row, 1, "dB", ZE_BENCH_HIGHER, t->psnr_db, ZE_BENCH_NONE, 35.0);
        snprintf(row, sizeof row, "bc_bytes_%s", k_tex[i].name);
        ze_bench_add(b, row, 1, "ratio", ZE_BENCH_LOWER, ratio, ZE_BENCH_NONE,
                     k_tex[i].colour ? 0.25 : ZE_BENCH_NONE);
        ze_asset_cook_result_release(&r);
    }
    /* bc_encode: one 1024 x 1024 texture cooked with "auto" against "none" */
    char path[1024];
    snprintf(path, sizeof path, "%s/assets/gltf/MultiUVTest/glTF/uv1.png", ZE_TESTDATA_DIR);
    size_t size = 0;
    uint8_t *data = load_file(path, &size);
    if (!data)
        return;
    ze_allocator_t sys = ze_mem_system_allocator();
    ze_image_desc_t none = {.alloc = sys},
                    bc = {.alloc = sys, .compression = ZE_TEX_COMPRESSION_AUTO};
    uint32_t rounds = ze_bench_rounds(b, 5);
    double v[101], base[101];
    bool failed = false;
    uint64_t bytes = 1024ull * 1024 * 4 * 4 / 3; /* the RGBA8 chain, about */
    for (uint32_t r = 0; r <= rounds && !failed; r++) {
        double tb = cook_seconds(data, size, &bc, b, &failed);
        double tn = failed ? 0 : cook_seconds(data, size, &none, b, &failed);
        if (r > 0 && !failed) {
            v[r - 1] = (double)bytes / MB / tb;
            base[r - 1] = (double)bytes / MB / tn;
        }
    }
    ze_mem_sys_free(data);
    if (!failed)
        ze_bench_add(b, "bc_encode", 1, "MB/s", ZE_BENCH_HIGHER, ze_bench_median(v, rounds),
                     ze_bench_median(base, rounds), ZE_BENCH_NONE);
}

/* ------------------------------------------------------------- cook_corpus */

typedef struct corpus_ctx {
    ze_job_system_t *jobs;
    char root[1024]; /* the round's output folder */
    uint32_t count;
    char *sources[CORPUS_MAX];
    uint64_t sizes[CORPUS_MAX];
    double seconds[CORPUS_MAX]; /* each entry's last cook (one writer each) */
    atomic_uint failures;
    char error[ZE_DIAG_TEXT_MAX + 256]; /* the first failure's message */
} corpus_ctx;

static void cook_one(corpus_ctx *c, uint32_t i)
{
    char out[1200];
    snprintf(out, sizeof out, "%s/%u", c->root, i);
    ze_cook_result_t res;
    uint64_t t0 = ze_bench_now_ns();
    ze_diag_capture_t diag = {0};
    ze_result r = ze_asset_cook(&(ze_cook_desc_t){.source = c->sources[i],
                                                  .out_dir = out,
                                                  .diag = ze_diag_capture_sink(&diag)},
                                &res);
    c->seconds[i] = (double)(ze_bench_now_ns() - t0) * 1e-9;
    if (r != ZE_OK && atomic_fetch_add(&c->failures, 1) == 0)
        snprintf(c->error, sizeof c->error, "%s: %s", c->sources[i], diag.last_message);
    ze_asset_cook_result_release(&res);
}

static void cook_range(void *p, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; i++)
        cook_one(p, i);
}

static double cook_round(corpus_ctx *c, bool parallel)
{
    ze_bench_remove_tree(c->root); /* the previous round's artifacts, off the clock */
    uint64_t t0 = ze_bench_now_ns();
    if (parallel)
        ze_job_parallel_for(c->jobs, c->count, 1, cook_range, c);
    else
        cook_range(c, 0, c->count);
    return (double)(ze_bench_now_ns() - t0) * 1e-9;
}

static double cook_parallel_round(void *p)
{
    return cook_round(p, true);
}

static double cook_serial_round(void *p)
{
    return cook_round(p, false);
}

static int by_size_desc(const void *a, const void *b, void *sizes)
{
    const uint64_t *sz = sizes;
    uint64_t x = sz[*(const uint32_t *)a], y = sz[*(const uint32_t *)b];
    return (x < y) - (x > y);
}

/* The manifest's valid entries, largest first (so the longest cook starts
 * first on the pool). False when the manifest cannot be read. */
static bool corpus_load(corpus_ctx *c, const char *manifest)
{
    json_error_t jerr;
    json_t *root = json_load_file(manifest, 0, &jerr);
    if (!root)
        return false;
    json_t *entries = json_object_get(root, "entries");
    size_t i;
    json_t *e;
    char *src[CORPUS_MAX];
    uint64_t sz[CORPUS_MAX];
    uint32_t n = 0;
    json_array_foreach(entries, i, e)
    {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        const char *path = json_string_value(json_object_get(e, "path"));
        if (!kind || !path || strcmp(kind, "valid") != 0 || n == CORPUS_MAX)
            continue;
        size_t len = strlen(ZE_TESTDATA_DIR "/assets/") + strlen(path) + 1;
        src[n] = ze_mem_sys_alloc(len);
        ZE_VERIFY(src[n] != NULL);
        snprintf(src[n], len, "%s/assets/%s", ZE_TESTDATA_DIR, path);
        struct stat st;
        sz[n] = stat(src[n], &st) == 0 ? (uint64_t)st.st_size : 0;
        n++;
    }
    json_decref(root);
    uint32_t order[CORPUS_MAX];
    for (uint32_t k = 0; k < n; k++)
        order[k] = k;
    qsort_r(order, n, sizeof(uint32_t), by_size_desc, sz);
    for (uint32_t k = 0; k < n; k++) {
        c->sources[k] = src[order[k]];
        c->sizes[k] = sz[order[k]];
    }
    c->count = n;
    return n > 0;
}

static void bench_cook_corpus(ze_bench_t *b, ze_job_system_t *jobs, const char *dir)
{
    const char *manifest = ZE_TESTDATA_DIR "/assets/manifest.json";
    corpus_ctx *c = ze_bench_table_alloc(sizeof(corpus_ctx));
    c->jobs = jobs;
    atomic_init(&c->failures, 0);
    snprintf(c->root, sizeof c->root, "%s/cook", dir);
    if (access(manifest, R_OK) != 0 || !corpus_load(c, manifest)) {
        printf("  cook_corpus: skipped (%s not found or empty)\n", manifest);
        ze_bench_table_free(c);
        return;
    }
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < c->count; i++)
        bytes += c->sizes[i];
    ze_bench_load_t load;
    ze_bench_load_begin(&load);
    ze_bench_pair_t r =
        ze_bench_compare(ze_bench_rounds(b, 7), cook_parallel_round, c, cook_serial_round, c);
    double busy = ze_bench_load_end(&load);
    ze_bench_remove_tree(c->root);
    if (atomic_load(&c->failures))
        ze_bench_fail(b, "cook_corpus", "%u cook(s) failed, e.g. %s", atomic_load(&c->failures),
                      c->error);
    else {
        printf("  cook_corpus: %u sources (%.1f MB), %u worker(s) + the caller, speed-up %.2f%s\n",
               c->count, (double)bytes / MB, ze_job_worker_count(jobs), r.baseline / r.value,
               busy > 0.25 ? " (background load: figures noisy)" : "");
        uint32_t slow = 0;
        for (uint32_t i = 1; i < c->count; i++)
            slow = c->seconds[i] > c->seconds[slow] ? i : slow;
        printf("  cook_corpus: longest cook %.3f s (%s)\n", c->seconds[slow],
               c->sources[slow] + strlen(ZE_TESTDATA_DIR "/assets/"));
        ze_bench_add(b, "cook_corpus", c->count, "s", ZE_BENCH_LOWER, r.value, r.baseline,
                     ZE_BENCH_NONE);
    }
    for (uint32_t i = 0; i < c->count; i++)
        ze_mem_sys_free(c->sources[i]);
    ze_bench_table_free(c);
}

/* asset_startup.c */
void ze_bench_asset_startup(ze_bench_t *b, ze_mem_t *mm, ze_job_system_t *jobs, const char *dir);
void ze_bench_asset_meshopt(ze_bench_t *b);
/* asset_draco.c */
void ze_bench_asset_draco(ze_bench_t *b);

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "asset", argc, argv);
    ze_log_configure(&(ze_log_desc_t){.level = ZE_LOG_ERROR, .explicit_level = true});
    char dir[] = "/tmp/zeasset-bench-XXXXXX";
    ze_mem_t *mm;
    ze_job_system_t *jobs;
    if (!ze_bench_env_open(&b, dir, &mm, &jobs))
        return ze_bench_finish(&b);
    bool import = ze_bench_enabled(&b, "gltf_import");
    bool zemesh = ze_bench_enabled(&b, "zemesh_load");
    if (import || zemesh) {
        gen_t g;
        gen_geometry(&g, (size_t)ze_bench_size(&b, 50000000, 1000000), 0x5eed0a55e7ull);
        if (import)
            bench_gltf_import(&b, &g);
        if (zemesh)
            bench_zemesh_load(&b, &g, dir);
        gen_release(&g);
    }
    if (ze_bench_enabled(&b, "texture_cook"))
        bench_texture_cook(&b);
    if (ze_bench_enabled(&b, "texture_bc"))
        bench_texture_bc(&b, dir);
    if (ze_bench_enabled(&b, "cook_corpus"))
        bench_cook_corpus(&b, jobs, dir);
    if (ze_bench_enabled(&b, "startup_check_frame_worst"))
        ze_bench_asset_startup(&b, mm, jobs, dir);
    if (ze_bench_enabled(&b, "meshopt_decode"))
        ze_bench_asset_meshopt(&b);
    if (ze_bench_enabled(&b, "draco_decode"))
        ze_bench_asset_draco(&b);
    ze_bench_env_close(dir, mm, jobs);
    return ze_bench_finish(&b);
}
