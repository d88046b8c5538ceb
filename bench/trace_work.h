/* trace_work.h — the frame of work bench_trace measures, compiled twice:
 * with the profiler's zones (trace_bench.c) and with them compiled out
 * (trace_bench_off.c defines ZE_TRACE_DISABLED first). The same loop body
 * and flags on both sides; only the ZE_ZONE_ macros differ.
 * A frame: `zones` zones, each around one pass over `per_zone` floats
 * (4,096 in the row: about a microsecond, finer than the engine's zones,
 * which wrap stages, frame parts and whole jobs). */
#ifndef ZE_BENCH_TRACE_WORK_H
#define ZE_BENCH_TRACE_WORK_H
#include <stdint.h>

#include "zengine/base.h"

#define ZE_TRACE_WORK_BODY                      \
    for (uint32_t z = 0; z < zones; z++) {      \
        ZE_ZONE_BEGIN("system");                \
        float *d = data + (size_t)z * per_zone; \
        for (uint32_t i = 0; i < per_zone; i++) \
            d[i] = d[i] * 0.999f + 0.25f;       \
        ZE_ZONE_END();                          \
    }

void ze_bench_trace_frame_zoned(float *data, uint32_t zones, uint32_t per_zone);
void ze_bench_trace_frame_plain(float *data, uint32_t zones, uint32_t per_zone);
#endif
