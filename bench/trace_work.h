/* trace_work.h — the frame of work bench_trace measures, compiled twice:
 * with the profiler's zones (trace_bench.c) and with them compiled out
 * (trace_bench_off.c defines ZE_TRACE_DISABLED first). The same loop body
 * and flags on both sides; only the ZE_ZONE_ macros differ.
 * A frame: `zones` zones, each around one call of a pass over `per_zone` floats
 * (4,096 in the row: about a microsecond, finer than the engine's zones,
 * which wrap stages, frame parts and whole jobs). */
#ifndef ZE_BENCH_TRACE_WORK_H
#define ZE_BENCH_TRACE_WORK_H
#include <stdint.h>

#include "zengine/base.h"

#define ZE_TRACE_WORK_BODY                                          \
    for (uint32_t z = 0; z < zones; z++) {                          \
        ZE_ZONE_BEGIN("system");                                    \
        ze_bench_trace_pass(data + (size_t)z * per_zone, per_zone); \
        ZE_ZONE_END();                                              \
    }

/* One zone's work, in its own file (trace_work.c) so both frames call the
 * same machine code: inlined into each, the two copies of the loop landed
 * at different alignments (the zoned one across a 64-byte line) and the
 * row measured that, 1.9-2.2x, not the zones. */
void ze_bench_trace_pass(float *d, uint32_t n);
void ze_bench_trace_frame_zoned(float *data, uint32_t zones, uint32_t per_zone);
void ze_bench_trace_frame_plain(float *data, uint32_t zones, uint32_t per_zone);
#endif
