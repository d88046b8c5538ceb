#version 450
#extension GL_EXT_samplerless_texture_functions : require
// The depth pyramid (vk_pass_pyramid.c): one level a dispatch, each texel
// the farthest (max) depth of the 2x2 texels under it in the depth image
// (level 0) or the level below, of those that exist (0 where none does):
// ze__hzb_reduce (src/gfx/hzb.c). 8x8 threads a group; one descriptor set
// per level (its source and itself).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform texture2D depth;
layout(set = 0, binding = 1, r32f) uniform readonly image2D below;
layout(set = 0, binding = 2, r32f) uniform writeonly image2D level;

layout(push_constant) uniform Push {
    uvec4 p; // x = level, y, z = the source's size, w = unused
    uvec4 q; // x, y = this level's size
} pc;

void main()
{
    uvec2 src = pc.p.yz, dst = pc.q.xy, xy = gl_GlobalInvocationID.xy;
    if (xy.x >= dst.x || xy.y >= dst.y)
        return;
    float d = 0.0;
    for (uint k = 0u; k < 4u; k++) {
        uvec2 s = 2u * xy + uvec2(k & 1u, k >> 1u);
        if (s.x < src.x && s.y < src.y)
            d = max(d, pc.p.x == 0u ? texelFetch(depth, ivec2(s), 0).r : imageLoad(below, ivec2(s)).r);
    }
    imageStore(level, ivec2(xy), vec4(d));
}
