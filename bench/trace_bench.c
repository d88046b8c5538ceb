/* trace_bench.c — bench_trace: what the profiler's zones cost.
 *
 * zones_off: a frame of 64 zones around 4,096-float passes (trace_work.h)
 * with tracing off, against the same frame with the zones compiled out
 * (ZE_TRACE_DISABLED, trace_bench_off.c), in interleaved rounds; target
 * ratio ≤ 1.01. zone_pair_off / zone_pair_on: one begin/end pair in a tight
 * loop with tracing off and while a capture records (no baseline: the
 * absolute cost a zone adds).
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "trace_work.h"

enum { ZONES = 64, PER_ZONE = 4096 };

void ze_bench_trace_frame_zoned(float *data, uint32_t zones, uint32_t per_zone)
{
    ZE_TRACE_WORK_BODY
}

typedef struct frames_ctx_t {
    float *data;
    uint32_t frames;
} frames_ctx_t;

static double round_zoned(void *p)
{
    frames_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t f = 0; f < c->frames; f++)
        ze_bench_trace_frame_zoned(c->data, ZONES, PER_ZONE);
    ze_bench_do_not_optimize(c->data);
    return (double)(ze_bench_now_ns() - t0) / 1000.0 / c->frames; /* us per frame */
}

static double round_plain(void *p)
{
    frames_ctx_t *c = p;
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t f = 0; f < c->frames; f++)
        ze_bench_trace_frame_plain(c->data, ZONES, PER_ZONE);
    ze_bench_do_not_optimize(c->data);
    return (double)(ze_bench_now_ns() - t0) / 1000.0 / c->frames;
}

static void bench_zones_off(ze_bench_t *b)
{
    if (!ze_bench_enabled(b, "zones_off"))
        return;
    frames_ctx_t c = {.frames = (uint32_t)ze_bench_size(b, 400, 4)};
    c.data = ze_bench_table_alloc(sizeof(float) * ZONES * PER_ZONE);
    for (uint32_t i = 0; i < ZONES * PER_ZONE; i++)
        c.data[i] = (float)(i % 97);
    ze_bench_pair_t r = ze_bench_compare(ze_bench_rounds(b, 15), round_zoned, &c, round_plain, &c);
    ze_bench_add(b, "zones_off", ZONES, "us/op", ZE_BENCH_LOWER, r.value, r.baseline,
                 ZE_BENCH_NONE);
    ze_bench_table_free(c.data);
}

static double pairs(uint32_t n)
{
    uint64_t t0 = ze_bench_now_ns();
    for (uint32_t i = 0; i < n; i++) {
        ZE_ZONE_BEGIN("pair");
        ZE_ZONE_END();
    }
    return (double)(ze_bench_now_ns() - t0) / n;
}

static void bench_pairs(ze_bench_t *b)
{
    uint32_t n = (uint32_t)ze_bench_size(b, 1 << 20, 1 << 10);
    uint32_t rounds = ze_bench_rounds(b, 9);
    double v[32];
    if (ze_bench_enabled(b, "zone_pair_off")) {
        for (uint32_t r = 0; r < rounds && r < 32; r++)
            v[r] = pairs(n);
        ze_bench_add(b, "zone_pair_off", 1, "ns/op", ZE_BENCH_LOWER,
                     ze_bench_median(v, rounds < 32 ? rounds : 32), ZE_BENCH_NONE, ZE_BENCH_NONE);
    }
    if (ze_bench_enabled(b, "zone_pair_on")) {
        for (uint32_t r = 0; r < rounds && r < 32; r++) {
            /* a fresh capture per round, room for every event */
            ze_trace_desc_t d = {.alloc = ze_mem_system_allocator(), .events_per_thread = 2 * n};
            if (ze_trace_start(&d) != ZE_OK) {
                ze_bench_fail(b, "zone_pair_on", "cannot start a capture");
                return;
            }
            v[r] = pairs(n);
            (void)ze_trace_stop(NULL);
        }
        ze_bench_add(b, "zone_pair_on", 1, "ns/op", ZE_BENCH_LOWER,
                     ze_bench_median(v, rounds < 32 ? rounds : 32), ZE_BENCH_NONE, ZE_BENCH_NONE);
    }
}

int main(int argc, char **argv)
{
    ze_bench_t b;
    ze_bench_init(&b, "trace", argc, argv);
    bench_zones_off(&b);
    bench_pairs(&b);
    return ze_bench_finish(&b);
}
