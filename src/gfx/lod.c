/* The CPU reference for choosing a mesh level of detail by projected size
 * (docs/gfx.md "LODs"); the cull compute shader ports it statement for
 * statement. Float math only, in an order GLSL evaluates the same way: one
 * divide, then a multiply and a compare per level. */
#include "zengine/gfx.h"

uint32_t ze_render_lod_select(const float *lod_error, uint32_t lod_count, float world_scale,
                              float distance, float radius, float proj_scale, float threshold_px)
{
    if (!lod_error || lod_count <= 1)
        return 0;
    /* The nearest point of the bounding sphere; inside it, or with no
       distance to speak of, the full-detail level. */
    const float near = distance - radius;
    if (!(near > 0.0f))
        return 0;
    /* pixels per object-space unit of error at that distance */
    const float px_per_unit = world_scale * proj_scale / (near > 1e-4f ? near : 1e-4f);
    uint32_t chosen = 0;
    for (uint32_t i = 1; i < lod_count; i++) {
        if (lod_error[i] * px_per_unit <= threshold_px)
            chosen = i;
        else
            break; /* errors do not decrease: no later level passes */
    }
    return chosen;
}
