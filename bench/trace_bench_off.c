/* The baseline of bench_trace's zones_off row: trace_work.h's frame with
 * the zones compiled out. */
#define ZE_TRACE_DISABLED 1
#include "trace_work.h"

void ze_bench_trace_frame_plain(float *data, uint32_t zones, uint32_t per_zone)
{
    ZE_TRACE_WORK_BODY
}
