#version 450
// The cull pass: each instance slot expanded into its mesh's submesh draws,
// each draw's bounding sphere (its submesh's, through the instance's world
// matrix at this frame's alpha: the centre transformed, the radius scaled
// by the largest axis scale) tested against the six frustum planes when
// frame.scene.y has FRAME_CULL, the visible ones compacted into `visible`
// with their refs (slot, material) and counts. One thread per slot.
//
// Face classes (front counter-clockwise, front clockwise: the world matrix
// mirrors, double-sided: the material says so) are three ranges of
// frame.scene.z commands each, with a count each. A command's
// firstInstance is its own position, where its ref is.
//
// Compaction: a workgroup walks its slots' submeshes in lockstep (as many
// steps as its largest mesh has submeshes); each step counts the group's
// visible draws per class in shared memory and reserves their ranges with
// one global atomic per class, so the counts (host-visible, read back for
// the statistics) see one atomic per group and class, not per draw. The
// order of the ranges between groups is not fixed; within a group it is.
#include "common.glsl"

layout(local_size_x = 64) in;

struct Command {
    uint index_count;
    uint instance_count;
    uint first_index;
    int vertex_offset;
    uint first_instance;
};

struct Mesh {
    uvec4 range; // x = first submesh, y = submeshes
};

struct Submesh {
    uvec4 draw;  // x = index count, y = first index, z = vertex offset (int), w = material + 1
    vec4 sphere; // local: centre, radius
};

struct Ref {
    uint slot;
    uint material;
};

layout(std430, set = 1, binding = 3) readonly buffer Meshes { Mesh meshes[]; };
layout(std430, set = 1, binding = 4) readonly buffer Submeshes { Submesh submeshes[]; };
layout(std430, set = 1, binding = 6) writeonly buffer Visible { Command visible[]; };
layout(std430, set = 1, binding = 7) buffer VisibleCount { uint visible_count[3]; };
layout(std430, set = 1, binding = 8) writeonly buffer Refs { Ref refs[]; };

shared uint group_steps;
shared uint group_count[3];
shared uint group_base[3];

bool inside(mat4 w, float scale, vec4 sphere)
{
    vec3 c = (w * vec4(sphere.xyz, 1.0)).xyz;
    float r = sphere.w * scale;
    for (int p = 0; p < 6; p++)
        if (dot(frame.planes[p].xyz, c) + frame.planes[p].w < -r)
            return false;
    return true;
}

void main()
{
    uint slot = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationIndex;
    uint first = 0u, n = 0u, material = 0u;
    Instance inst;
    if (slot < frame.scene.x) {
        inst = instances[slot];
        if (inst.info.x != NO_HANDLE) {
            uvec4 range = meshes[inst.info.x].range;
            first = range.x;
            n = range.y;
            material = inst.info.y;
        }
    }
    if (lid == 0u)
        group_steps = 0u;
    barrier();
    if (n > 0u)
        atomicMax(group_steps, n);
    barrier();
    uint steps = group_steps;
    mat4 w = mat4(1.0);
    float scale = 1.0;
    bool mirrored = false;
    if (n > 0u) {
        w = instance_world(inst);
        scale = sqrt(max(max(dot(w[0].xyz, w[0].xyz), dot(w[1].xyz, w[1].xyz)), dot(w[2].xyz, w[2].xyz)));
        mirrored = determinant(mat3(w)) < 0.0;
    }
    bool cull = (frame.scene.y & FRAME_CULL) != 0u;
    uint stride = frame.scene.z;
    for (uint k = 0u; k < steps; k++) {
        if (lid < 3u)
            group_count[lid] = 0u;
        barrier();
        bool vis = false;
        uint cls = 0u, local = 0u, mat = 0u;
        Submesh s;
        if (k < n) {
            s = submeshes[first + k];
            vis = !cull || inside(w, scale, s.sphere);
            mat = material != 0u ? material : s.draw.w;
            bool both = (materials[mat].tex.w & 2u) != 0u;
            cls = both ? 2u : mirrored ? 1u : 0u;
            if (vis)
                local = atomicAdd(group_count[cls], 1u);
        }
        barrier();
        if (lid < 3u)
            group_base[lid] = group_count[lid] > 0u ? atomicAdd(visible_count[lid], group_count[lid]) : 0u;
        barrier();
        if (vis) {
            uint p = cls * stride + group_base[cls] + local;
            visible[p] = Command(s.draw.x, 1u, s.draw.y, int(s.draw.z), p);
            refs[p] = Ref(slot, mat);
        }
        barrier();
    }
}
