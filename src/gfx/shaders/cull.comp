#version 450
// GPU culling: each candidate draw's bounding sphere (its submesh's, through
// the draw's world matrix: the centre transformed, the radius scaled by the
// largest axis scale) against the six frustum planes; the visible commands
// are compacted into `visible` with their count. One thread per candidate;
// a workgroup counts its visible draws in shared memory and reserves their
// range with one global atomic, so the count buffer (host-visible, read
// back for the statistics) sees one atomic per group, not per draw. The
// order of the ranges between groups is not fixed; within a group it is.
// The candidates come in three ranges (face classes: front counter-
// clockwise, front clockwise, double-sided), each compacted into the same
// range of `visible` with its own count. One flat dispatch: a class's
// groups follow the previous class's (frame.ranges.y, .z: the first group
// of classes 1 and 2), so no group is spent on an empty class.
#include "common.glsl"

layout(local_size_x = 64) in;

struct Command {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

layout(std430, set = 1, binding = 3) readonly buffer Candidates { Command candidates[]; };
layout(std430, set = 1, binding = 4) writeonly buffer Visible { Command visible[]; };
layout(std430, set = 1, binding = 5) buffer VisibleCount { uint visible_count[3]; };

shared uint group_count;
shared uint group_base;

bool inside(uint idx)
{
    // only the fields the test needs (not the whole 160-byte record)
    uint k = candidates[idx].first_instance;
    mat4 w = draws[k].world;
    vec4 sphere = draws[k].sphere;
    vec3 c = (w * vec4(sphere.xyz, 1.0)).xyz;
    float s = sqrt(max(max(dot(w[0].xyz, w[0].xyz), dot(w[1].xyz, w[1].xyz)), dot(w[2].xyz, w[2].xyz)));
    float r = sphere.w * s;
    for (int p = 0; p < 6; p++)
        if (dot(frame.planes[p].xyz, c) + frame.planes[p].w < -r)
            return false;
    return true;
}

void main()
{
    uint g = gl_WorkGroupID.x;
    uint cls = g < frame.ranges.y ? 0 : g < frame.ranges.z ? 1 : 2;
    uint first = cls == 0 ? 0 : cls == 1 ? frame.ranges.y : frame.ranges.z;
    uint i = (g - first) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint range = cls * frame.ranges.x;
    uint n = cls == 0 ? frame.counts.y : cls == 1 ? frame.counts.z : frame.counts.w;
    if (gl_LocalInvocationIndex == 0)
        group_count = 0;
    barrier();
    bool vis = i < n && inside(range + i);
    uint slot = vis ? atomicAdd(group_count, 1) : 0;
    barrier();
    if (gl_LocalInvocationIndex == 0)
        group_base = group_count > 0 ? atomicAdd(visible_count[cls], group_count) : 0;
    barrier();
    if (vis)
        visible[range + group_base + slot] = candidates[range + i];
}
