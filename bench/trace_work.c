/* The pass inside each of bench_trace's zones (trace_work.h): one copy of
 * the loop that both the zoned and the plain frame call. */
#include "trace_work.h"

void ze_bench_trace_pass(float *d, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        d[i] = d[i] * 0.999f + 0.25f;
}
