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
// Levels of detail: a visible draw takes the coarsest level of its
// submesh whose object-space error, through the instance's largest axis
// scale, projects to at most frame.params.z pixels from the nearest point
// of the bounding sphere (frame.params.y: pixels per unit at distance 1):
// ze_render_lod_select (src/gfx/lod.c), statement for statement. The
// visible draws per level are counted (visible_count[4 + level]).
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

#define LOD_MAX 8
struct Submesh {
    uvec4 draw;  // x = index count, y = first index, z = vertex offset (int), w = material + 1
    vec4 sphere; // local: centre, radius
    uvec4 lod;   // x = levels
    uvec4 levels[LOD_MAX]; // first index, index count, error (float bits)
};

struct Ref {
    uint slot;
    uint material;
};

layout(std430, set = 1, binding = 3) readonly buffer Meshes { Mesh meshes[]; };
layout(std430, set = 1, binding = 4) readonly buffer Submeshes { Submesh submeshes[]; };
layout(std430, set = 1, binding = 6) writeonly buffer Visible { Command visible[]; };
layout(std430, set = 1, binding = 7) buffer VisibleCount { uint visible_count[4 + LOD_MAX]; };
layout(std430, set = 1, binding = 8) writeonly buffer Refs { Ref refs[]; };

shared uint group_steps;
shared uint group_count[3];
shared uint group_base[3];
shared uint group_lods[LOD_MAX];

bool inside(vec3 c, float r)
{
    for (int p = 0; p < 6; p++)
        if (dot(frame.planes[p].xyz, c) + frame.planes[p].w < -r)
            return false;
    return true;
}

// ze_render_lod_select's port
uint lod_select(Submesh s, float scale, float distance, float radius)
{
    uint n = s.lod.x;
    if (n <= 1u || !(frame.params.z > 0.0))
        return 0u;
    float near = distance - radius;
    if (!(near > 0.0))
        return 0u;
    float px_per_unit = scale * frame.params.y / (near > 1e-4 ? near : 1e-4);
    uint chosen = 0u;
    for (uint i = 1u; i < n && i < uint(LOD_MAX); i++) {
        if (uintBitsToFloat(s.levels[i].z) * px_per_unit <= frame.params.z)
            chosen = i;
        else
            break;
    }
    return chosen;
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
    if (lid < uint(LOD_MAX))
        group_lods[lid] = 0u;
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
        uint cls = 0u, local = 0u, mat = 0u, lod = 0u;
        Submesh s;
        if (k < n) {
            s = submeshes[first + k];
            vec3 c = (w * vec4(s.sphere.xyz, 1.0)).xyz;
            float r = s.sphere.w * scale;
            vis = !cull || inside(c, r);
            if (vis) {
                lod = lod_select(s, scale, length(c - frame.camera_pos.xyz), r);
                atomicAdd(group_lods[lod], 1u);
            }
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
            uvec4 level = lod == 0u ? uvec4(s.draw.y, s.draw.x, 0u, 0u) : s.levels[lod];
            visible[p] = Command(level.y, 1u, level.x, int(s.draw.z), p);
            refs[p] = Ref(slot, mat);
        }
        barrier();
    }
    if (lid < uint(LOD_MAX) && group_lods[lid] > 0u)
        atomicAdd(visible_count[4u + lid], group_lods[lid]);
}
