/* Internal: the depth pyramid (hierarchical Z) of occlusion culling, as the
 * CPU reference of pyramid.comp and cull.glsl (docs/gfx.md "Occlusion
 * culling"); the shaders port these functions statement for statement.
 *
 * Depth is Vulkan's: 0 near, 1 far, cleared to 1, tested LESS. Level 0 is
 * ceil(w / 2) x ceil(h / 2) rounded up to powers of two (so the levels are
 * an image's mip chain), each texel the farthest (max) depth of the 2x2
 * depth pixels under it, of those that exist (0, the nearest, where none
 * does: beyond the image, which no test reads); level i + 1 halves level
 * i the same way, down to 1x1. So a texel of level L is the farthest depth
 * of the depth pixels among the 2^(L+1) x 2^(L+1) under it.
 *
 * The test: a bounding sphere's axis-aligned box, its 8 corners through
 * the view-projection; if any corner is not in front of the camera (w <=
 * 1e-5) or the box reaches the near plane (nearest depth <= 0), or it is
 * not on screen, it is not occluded (the frustum test owns the off-screen
 * case). Otherwise its screen rectangle in depth pixels (every pixel whose
 * centre it covers, and more), the finest level at which the rectangle
 * spans at most 2x2 texels, the farthest depth of those texels: occluded
 * when the box's nearest depth is farther still. Conservative: a box that
 * any depth pixel under its rectangle does not hide is never occluded.
 * Any thread; pure. */
#ifndef ZE_GFX_HZB_H
#define ZE_GFX_HZB_H

#include <stdbool.h>
#include <stdint.h>

enum { ZE_HZB_MAX_LEVELS = 16 }; /* depth up to 65536 pixels a side */

typedef struct ze_hzb_t {
    uint32_t depth_width, depth_height; /* the depth image's size */
    uint32_t levels;
    uint32_t width[ZE_HZB_MAX_LEVELS], height[ZE_HZB_MAX_LEVELS];
    const float *texels[ZE_HZB_MAX_LEVELS]; /* row-major, width[i] x height[i] */
} ze_hzb_t;

/* The pyramid's levels and their sizes for a depth image of w x h (both
 * >= 1); 0 when it needs more than ZE_HZB_MAX_LEVELS. `width`/`height` may
 * be NULL. */
uint32_t ze__hzb_levels(uint32_t w, uint32_t h, uint32_t *width, uint32_t *height);

/* A level from the one below it (level 0: from the depth image, src_w x
 * src_h): each of dst_w x dst_h texels the max of the 2x2 source texels
 * under it that exist, 0 where none does. */
void ze__hzb_reduce(const float *src, uint32_t src_w, uint32_t src_h, float *dst, uint32_t dst_w,
                    uint32_t dst_h);

/* Is the sphere (centre c, radius r, world space) hidden behind the
 * pyramid's depth, seen through view_proj (column-major, Vulkan clip)? */
bool ze__hzb_occluded(const ze_hzb_t *z, const float view_proj[16], const float c[3], float r);

#endif /* ZE_GFX_HZB_H */
