/* The draco_decode row (issue 17): what the importer does with a
 * KHR_draco_mesh_compression stream (decode, then every point's position,
 * normal and UV and the triangles' corners into accessor arrays: 32 bytes
 * a point, 4 an index), against the raw accessor copy (memcpy of the same
 * bytes). The stream is a grid's, encoded by the test's encoder
 * (tests/asset/draco_encode.cpp: the sequential method, positions 14,
 * normals 10, UVs 12 bits). No target. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cook/draco.h"
#include "asset/draco_encode.h"

typedef struct draco_ctx_t {
    uint8_t *stream, *raw, *out;
    size_t stream_n, points, indices;
    uint32_t ids[3];
    bool failed;
} draco_ctx_t;

static size_t decoded_bytes(const draco_ctx_t *c)
{
    return c->points * 32 + c->indices * 4;
}

static double decode_round(void *p)
{
    draco_ctx_t *c = p;
    char err[160];
    uint64_t t0 = ze_bench_now_ns();
    ze__draco_mesh_t *m = ze__draco_decode(c->stream, c->stream_n, err, sizeof err);
    if (m) {
        float *pos = (float *)(void *)c->out, *nrm = pos + c->points * 3, *uv = nrm + c->points * 3;
        c->failed |= !ze__draco_values(m, c->ids[0], 5126, false, 3, pos);
        c->failed |= !ze__draco_values(m, c->ids[1], 5126, false, 3, nrm);
        c->failed |= !ze__draco_values(m, c->ids[2], 5126, false, 2, uv);
        c->failed |= ze__draco_faces(m) * 3u != c->indices;
        ze__draco_indices(m, (uint32_t *)(void *)(c->out + c->points * 32));
        ze__draco_free(m);
    }
    uint64_t t1 = ze_bench_now_ns();
    c->failed |= !m;
    ze_bench_do_not_optimize(c->out);
    return (double)decoded_bytes(c) / 1e6 / ((double)(t1 - t0) * 1e-9);
}

static double copy_round(void *p)
{
    draco_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    memcpy(c->out, c->raw, decoded_bytes(c));
    uint64_t t1 = ze_bench_now_ns();
    ze_bench_do_not_optimize(c->out);
    return (double)decoded_bytes(c) / 1e6 / ((double)(t1 - t0) * 1e-9);
}

void ze_bench_asset_draco(ze_bench_t *b);
void ze_bench_asset_draco(ze_bench_t *b)
{
    size_t side = (size_t)ze_bench_size(b, 512, 48);
    draco_ctx_t c = {.points = side * side, .indices = (side - 1) * (side - 1) * 6};
    c.raw = ze_bench_table_alloc(decoded_bytes(&c));
    c.out = ze_bench_table_alloc(decoded_bytes(&c));
    float *pos = (float *)(void *)c.raw, *nrm = pos + c.points * 3, *uv = nrm + c.points * 3;
    uint32_t *idx = (uint32_t *)(void *)(c.raw + c.points * 32);
    for (size_t i = 0; i < c.points; i++) {
        float x = (float)(i % side), z = (float)(i / side);
        memcpy(pos + 3 * i, (float[3]){x, 0.25f * (float)((i * 7) % 5), z}, 12);
        memcpy(nrm + 3 * i, (float[3]){0, 1, 0}, 12);
        memcpy(uv + 2 * i, (float[2]){x / (float)side, z / (float)side}, 8);
    }
    size_t k = 0;
    for (size_t y = 0; y + 1 < side; y++)
        for (size_t x = 0; x + 1 < side; x++) {
            uint32_t a = (uint32_t)(y * side + x), q = a + 1, d = a + (uint32_t)side, e = d + 1;
            uint32_t tri[6] = {a, d, q, q, d, e};
            memcpy(idx + k, tri, sizeof tri);
            k += 6;
        }
    atu_draco_attr_t at[3] = {{ATU_DRACO_POSITION, 3, pos, 0},
                              {ATU_DRACO_NORMAL, 3, nrm, 0},
                              {ATU_DRACO_TEXCOORD, 2, uv, 0}};
    size_t bound = atu_draco_bound((uint32_t)c.points, at, 3, (uint32_t)c.indices);
    c.stream = ze_bench_table_alloc(bound);
    c.stream_n =
        atu_draco_encode((uint32_t)c.points, at, 3, idx, (uint32_t)c.indices, 1, c.stream, bound);
    for (int a = 0; a < 3; a++)
        c.ids[a] = at[a].id;
    if (!c.stream_n) {
        ze_bench_fail(b, "draco_decode", "the Draco encoder failed");
    } else {
        ze_bench_pair_t r =
            ze_bench_compare(ze_bench_rounds(b, 9), decode_round, &c, copy_round, &c);
        /* the corners come back as they went (the sequential method) */
        if (c.failed || memcmp(c.out + c.points * 32, c.raw + c.points * 32, c.indices * 4) != 0)
            ze_bench_fail(b, "draco_decode", "the decoded mesh differs from the source");
        else {
            printf("  draco_decode: %zu points, %zu indices, %.2f MB -> %.2f MB compressed\n",
                   c.points, c.indices, (double)decoded_bytes(&c) / 1e6, (double)c.stream_n / 1e6);
            ze_bench_add(b, "draco_decode", c.points, "MB/s", ZE_BENCH_HIGHER, r.value, r.baseline,
                         ZE_BENCH_NONE);
        }
    }
    ze_bench_table_free(c.stream);
    ze_bench_table_free(c.raw);
    ze_bench_table_free(c.out);
}
