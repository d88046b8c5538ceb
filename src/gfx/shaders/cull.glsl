// The cull passes (cull.comp, cull_occlusion.comp, cull_late.comp: this
// body with CULL_PHASE 0, 1 or 2).
//
// Phases 0 and 1, one thread per instance slot: each slot expanded into
// its mesh's submesh draws, each draw's bounding sphere (its submesh's,
// through the instance's world matrix at this frame's alpha: the centre
// transformed, the radius scaled by the largest axis scale) tested
// against the six frustum planes when frame.scene.y has FRAME_CULL, the
// visible ones compacted into `elements` (slot, material, bin, index in
// the bin) with their counts and counted in their bins (bins.glsl).
// Phase 1 also tests each draw inside the frustum against the
// previous frame's depth pyramid (through the view-projection it was made
// with, when frame.scene.y has FRAME_HISTORY): the occluded ones are not
// drawn but become candidates of the late phase (instance slot, submesh,
// material, face class; their count at counter 3, from which the bins
// pass makes the late phase's dispatch size).
//
// Phase 2, one thread per candidate, after the early draws and the
// pyramid built from their depth: each candidate tested again, against
// this frame's pyramid and view-projection; those not occluded are drawn
// by the late geometry pass (their own ranges: classes 3..5 of `elements`
// and of the bins, counts at counter LATE_COUNTS + class). A draw hidden this frame
// behind what the early draws drew is never drawn; one that the previous
// frame's pyramid hid wrongly (it moved, or what hid it did) is drawn late.
// hzb_occluded is ze__hzb_occluded (src/gfx/hzb.c), statement for
// statement.
//
// Face classes (front counter-clockwise, front clockwise: the world matrix
// mirrors, double-sided: the material says so) are three ranges of
// frame.scene.z elements each, with a count each.
//
// Levels of detail: a visible draw takes the coarsest level of its
// submesh whose object-space error, through the instance's largest axis
// scale, projects to at most frame.params.z pixels from the nearest point
// of the bounding sphere (frame.params.y: pixels per unit at distance 1):
// ze_render_lod_select (src/gfx/lod.c), statement for statement. The
// drawn draws per level are counted (counter 4 + level).
//
// The counters are device-local words after the bins (counter(k): the
// layout of visible_count, which the bins passes copy them into for the
// statistics): the cull passes' atomics stay on the GPU, not on host
// memory over the bus.
//
// Compaction: a workgroup walks its slots' submeshes in lockstep (as many
// steps as its largest mesh has submeshes); each step counts the group's
// visible draws (and candidates) per class in shared memory and reserves
// their ranges with one global atomic per class, so the counts
// (host-visible, read back for the statistics) see one atomic per group
// and class, not per draw. The order of the ranges between groups is not
// fixed; within a group it is.
//
// Bins: a step's visible draws claim their bin in a shared table of 64
// (open addressing: a workgroup step has at most 64 distinct bins) and
// take an index in it there; one global atomic per distinct bin and step
// reserves the group's share of the bin's count.
#include "common.glsl"
#include "draws.glsl"

layout(local_size_x = 64) in;

layout(std430, set = 1, binding = 3) readonly buffer Meshes { Mesh meshes[]; };
layout(std430, set = 1, binding = 4) readonly buffer Submeshes { Submesh submeshes[]; };
layout(std430, set = 1, binding = 11) writeonly buffer Elements { Element elements[]; };
layout(std430, set = 1, binding = 12) buffer Bins { uint bins[]; };
#if CULL_PHASE == 1
layout(std430, set = 1, binding = 9) writeonly buffer Candidates { Candidate candidates[]; };
#elif CULL_PHASE == 2
layout(std430, set = 1, binding = 9) readonly buffer Candidates { Candidate candidates[]; };
#endif
#if CULL_PHASE != 0
#extension GL_EXT_samplerless_texture_functions : require
layout(set = 2, binding = 0) uniform texture2D hzb;
#endif

shared uint group_count[4]; // classes 0..2; 3: candidates
shared uint group_base[4];
shared uint group_lods[LOD_MAX];

#define BIN_EMPTY 0xFFFFFFFFu
shared uint bin_key[64];
shared uint bin_count[64];
shared uint bin_base[64];

// The shared table's entry of `bin` (claimed if new).
uint bin_claim(uint bin)
{
    uint h = bin & 63u;
    for (uint i = 0u; i < 64u; i++) {
        uint prev = atomicCompSwap(bin_key[h], BIN_EMPTY, bin);
        if (prev == BIN_EMPTY || prev == bin)
            break;
        h = (h + 1u) & 63u;
    }
    return h;
}

// Each claimed entry's share of its bin, reserved (after a barrier).
void bin_reserve(uint lid)
{
    if (bin_count[lid] > 0u)
        bin_base[lid] = atomicAdd(bins[bin_key[lid]], bin_count[lid]);
}

void bin_reset(uint lid)
{
    bin_key[lid] = BIN_EMPTY;
    bin_count[lid] = 0u;
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

float largest_scale(mat4 w)
{
    return sqrt(max(max(dot(w[0].xyz, w[0].xyz), dot(w[1].xyz, w[1].xyz)), dot(w[2].xyz, w[2].xyz)));
}


#if CULL_PHASE != 0
// ze__hzb_occluded's port
bool hzb_occluded(mat4 vp, vec3 c, float r)
{
    if (!(r >= 0.0))
        return false;
    float umin = 3.402823e38, umax = -3.402823e38, vmin = 3.402823e38, vmax = -3.402823e38;
    float near = 3.402823e38;
    for (int i = 0; i < 8; i++) {
        vec3 p = c + vec3((i & 1) != 0 ? r : -r, (i & 2) != 0 ? r : -r, (i & 4) != 0 ? r : -r);
        vec4 q = vp * vec4(p, 1.0);
        if (!(q.w > 1e-5))
            return false;
        float x = q.x / q.w, y = q.y / q.w, d = q.z / q.w;
        umin = min(umin, x);
        umax = max(umax, x);
        vmin = min(vmin, y);
        vmax = max(vmax, y);
        near = min(near, d);
    }
    if (!(near > 0.0))
        return false;
    float w = float(frame.hzb.x), h = float(frame.hzb.y);
    float fx0 = (umin * 0.5 + 0.5) * w, fx1 = (umax * 0.5 + 0.5) * w;
    float fy0 = (vmin * 0.5 + 0.5) * h, fy1 = (vmax * 0.5 + 0.5) * h;
    if (!(fx1 >= 0.0 && fy1 >= 0.0 && fx0 < w && fy0 < h))
        return false;
    int x0 = fx0 > 0.0 ? int(fx0) : 0, y0 = fy0 > 0.0 ? int(fy0) : 0;
    int x1 = fx1 < w - 1.0 ? int(fx1) : int(frame.hzb.x) - 1;
    int y1 = fy1 < h - 1.0 ? int(fy1) : int(frame.hzb.y) - 1;
    uint level = 0u;
    while (level + 1u < frame.hzb.z &&
           ((x1 >> (level + 1u)) - (x0 >> (level + 1u)) > 1 ||
            (y1 >> (level + 1u)) - (y0 >> (level + 1u)) > 1))
        level++;
    int s = int(level + 1u), l = int(level);
    int tx0 = x0 >> s, tx1 = x1 >> s, ty0 = y0 >> s, ty1 = y1 >> s;
    float far = max(max(texelFetch(hzb, ivec2(tx0, ty0), l).r, texelFetch(hzb, ivec2(tx1, ty0), l).r),
                    max(texelFetch(hzb, ivec2(tx0, ty1), l).r, texelFetch(hzb, ivec2(tx1, ty1), l).r));
    return near > far;
}
#endif

#if CULL_PHASE == 2
void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationIndex;
    if (lid < 3u)
        group_count[lid] = 0u;
    if (lid < uint(LOD_MAX))
        group_lods[lid] = 0u;
    bin_reset(lid);
    barrier();
    bool vis = false;
    uint local = 0u, lod = 0u, bin = 0u, h = 0u, in_bin = 0u;
    Candidate cd;
    Submesh s;
    if (i < bins[counter(3u)]) {
        cd = candidates[i];
        mat4 w = instance_world(instances[cd.slot]);
        float scale = largest_scale(w);
        s = submeshes[cd.submesh];
        vec3 c = (w * vec4(s.sphere.xyz, 1.0)).xyz;
        float r = s.sphere.w * scale;
        vis = !hzb_occluded(frame.view_proj, c, r);
        if (vis) {
            lod = lod_select(s, scale, length(c - frame.camera_pos.xyz), r);
            atomicAdd(group_lods[lod], 1u);
            local = atomicAdd(group_count[cd.cls], 1u);
            bin = (3u + cd.cls) * frame.bins.x + s.lod.y + lod;
            h = bin_claim(bin);
            in_bin = atomicAdd(bin_count[h], 1u);
        }
    }
    barrier();
    if (lid < 3u)
        group_base[lid] =
            group_count[lid] > 0u ? atomicAdd(bins[counter(uint(LATE_COUNTS) + lid)], group_count[lid]) : 0u;
    bin_reserve(lid);
    barrier();
    if (vis) {
        uint p = (3u + cd.cls) * frame.scene.z + group_base[cd.cls] + local;
        elements[p] = Element(cd.slot, cd.material, bin, bin_base[h] + in_bin);
    }
    if (lid < uint(LOD_MAX) && group_lods[lid] > 0u)
        atomicAdd(bins[counter(4u + lid)], group_lods[lid]);
}
#else
shared uint group_steps;

bool inside(vec3 c, float r)
{
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
    if (lid < uint(LOD_MAX))
        group_lods[lid] = 0u;
    mat4 w = mat4(1.0);
    float scale = 1.0;
    bool mirrored = false;
    if (n > 0u) {
        w = instance_world(inst);
        scale = largest_scale(w);
        mirrored = determinant(mat3(w)) < 0.0;
    }
    bool cull = (frame.scene.y & FRAME_CULL) != 0u;
#if CULL_PHASE == 1
    bool history = (frame.scene.y & FRAME_HISTORY) != 0u;
#endif
    uint stride = frame.scene.z;
    for (uint k = 0u; k < steps; k++) {
        if (lid < 4u)
            group_count[lid] = 0u;
        bin_reset(lid);
        barrier();
        bool vis = false, late = false;
        uint cls = 0u, local = 0u, mat = 0u, lod = 0u, bin = 0u, h = 0u, in_bin = 0u;
        Submesh s;
        if (k < n) {
            s = submeshes[first + k];
            vec3 c = (w * vec4(s.sphere.xyz, 1.0)).xyz;
            float r = s.sphere.w * scale;
            vis = !cull || inside(c, r);
#if CULL_PHASE == 1
            if (vis && history && hzb_occluded(frame.prev_view_proj, c, r)) {
                vis = false;
                late = true;
            }
#endif
            if (vis) {
                lod = lod_select(s, scale, length(c - frame.camera_pos.xyz), r);
                atomicAdd(group_lods[lod], 1u);
            }
            mat = material != 0u ? material : s.draw.w;
            bool both = (materials[mat].tex.w & 2u) != 0u;
            cls = both ? 2u : mirrored ? 1u : 0u;
            if (vis) {
                local = atomicAdd(group_count[cls], 1u);
                bin = cls * frame.bins.x + s.lod.y + lod;
                h = bin_claim(bin);
                in_bin = atomicAdd(bin_count[h], 1u);
            } else if (late)
                local = atomicAdd(group_count[3], 1u);
        }
        barrier();
        if (lid < 3u)
            group_base[lid] = group_count[lid] > 0u ? atomicAdd(bins[counter(lid)], group_count[lid]) : 0u;
#if CULL_PHASE == 1
        if (lid == 3u && group_count[3] > 0u) {
            group_base[3] = atomicAdd(bins[counter(3u)], group_count[3]);
        }
#endif
        bin_reserve(lid);
        barrier();
        if (vis) {
            uint p = cls * stride + group_base[cls] + local;
            elements[p] = Element(slot, mat, bin, bin_base[h] + in_bin);
        }
#if CULL_PHASE == 1
        if (late)
            candidates[group_base[3] + local] = Candidate(slot, first + k, mat, cls);
#endif
        barrier();
    }
    if (lid < uint(LOD_MAX) && group_lods[lid] > 0u)
        atomicAdd(bins[counter(4u + lid)], group_lods[lid]);
}
#endif
