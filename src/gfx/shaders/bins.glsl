// The bins and place passes (bins.comp, bins_late.comp: BINS_PHASE 0 or
// 1; place.comp, place_late.comp: the same with PLACE defined). They turn
// the cull passes' visible draws into instanced draws.
//
// A bin is a (class range, submesh, level of detail) triple: class range
// r (0..2 early, 3..5 late: the face classes) holds frame.bins.x bins, a
// submesh's levels are bins submesh.lod.y .. + levels - 1 (level 0 when it
// has none), frame.bins.z of them in use. The cull passes counted each
// visible draw in its bin (its index in the bin in its Element).
//
// bins (one workgroup of 64): for each class range of the phase that has
// visible draws (the cull's count of the class), an exclusive scan of its
// bins' counts (in chunks of 64) turns each count
// into the bin's offset in the range (written back in place) and gives
// each non-empty bin one instanced command, compacted in the range's
// commands: the level's indices, instance_count = the bin's count,
// firstInstance = the range's first ref + the offset. The number of
// commands goes to visible_count[DRAW_COUNTS + r], the triangles they draw
// (summed over the phase) to visible_count[TRIANGLE_COUNTS + phase], the
// place pass's dispatch size (64 draws a group over the largest class, 3
// classes) to place_args[8 * phase]; the early one also the late cull's
// dispatch size (64 candidates a group) to late_args. Both copy the
// counters (cull.glsl) into visible_count for the statistics.
//
// place (64 a group, one row of groups per class): draw i of class range
// r writes its ref (slot, material) at r * frame.scene.z + the offset of
// its bin + its index in the bin, which is where its command's instances
// read it (gl_InstanceIndex = firstInstance + instance).
#include "common.glsl"
#include "draws.glsl"

layout(std430, set = 1, binding = 4) readonly buffer Submeshes { Submesh submeshes[]; };
layout(std430, set = 1, binding = 12) buffer Bins { uint bins[]; };

// A class range's visible draws (the cull passes' counter).
uint class_count(uint c)
{
    return bins[counter((BINS_PHASE == 0 ? 0u : uint(LATE_COUNTS)) + c)];
}

#ifdef PLACE
layout(local_size_x = 64) in;

layout(std430, set = 1, binding = 8) writeonly buffer Refs { Ref refs[]; };
layout(std430, set = 1, binding = 11) readonly buffer Elements { Element elements[]; };

void main()
{
    uint cls = gl_WorkGroupID.y;
    uint r = uint(BINS_PHASE) * 3u + cls;
    uint i = gl_GlobalInvocationID.x;
    if (cls >= 3u || i >= class_count(cls))
        return;
    uint first = r * frame.scene.z;
    Element e = elements[first + i];
    refs[first + bins[e.bin] + e.index] = Ref(e.slot, e.material);
}
#else
#define GROUP 64u
layout(local_size_x = 64) in;

layout(std430, set = 1, binding = 6) writeonly buffer Commands { Command commands[]; };
layout(std430, set = 1, binding = 7) buffer VisibleCount { uint visible_count[COUNTS]; };
layout(std430, set = 1, binding = 13) writeonly buffer PlaceArgs { uint place_args[]; };
#if BINS_PHASE == 0
layout(std430, set = 1, binding = 10) writeonly buffer LateArgs { uint late_args[4]; };
#endif

shared uint scan_draws[GROUP];
shared uint scan_commands[GROUP];
shared uint group_triangles;

// The submesh whose bins hold bin j: the last with its first bin <= j.
uint submesh_of(uint j)
{
    uint lo = 0u, hi = frame.bins.y;
    while (hi - lo > 1u) {
        uint mid = (lo + hi) / 2u;
        if (submeshes[mid].lod.y <= j)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void main()
{
    uint lid = gl_LocalInvocationIndex;
    uint used = frame.bins.z;
    if (lid == 0u)
        group_triangles = 0u;
    barrier();
    uint triangles = 0u, largest = 0u;
    for (uint c = 0u; c < 3u; c++) {
        uint r = uint(BINS_PHASE) * 3u + c;
        uint base = r * frame.bins.x;
        uint draws = 0u, made = 0u;
        // a class without visible draws has empty bins: skipped
        uint classified = class_count(c);
        for (uint chunk = 0u; classified > 0u && chunk < used; chunk += GROUP) {
            uint j = chunk + lid;
            uint n = j < used ? bins[base + j] : 0u;
            uint has = n > 0u ? 1u : 0u;
            scan_draws[lid] = n;
            scan_commands[lid] = has;
            barrier();
            for (uint step = 1u; step < GROUP; step <<= 1u) {
                uint d = lid >= step ? scan_draws[lid - step] : 0u;
                uint k = lid >= step ? scan_commands[lid - step] : 0u;
                barrier();
                scan_draws[lid] += d;
                scan_commands[lid] += k;
                barrier();
            }
            if (n > 0u) {
                uint offset = draws + scan_draws[lid] - n;
                bins[base + j] = offset;
                Submesh s = submeshes[submesh_of(j)];
                uint lod = j - s.lod.y;
                uvec4 level = lod == 0u ? uvec4(s.draw.y, s.draw.x, 0u, 0u) : s.levels[lod];
                commands[base + made + scan_commands[lid] - 1u] =
                    Command(level.y, n, level.x, int(s.draw.z), r * frame.scene.z + offset);
                triangles += n * (level.y / 3u);
            }
            draws += scan_draws[GROUP - 1u];
            made += scan_commands[GROUP - 1u];
            barrier(); // the next chunk's scan overwrites these
        }
        if (lid == 0u)
            visible_count[DRAW_COUNTS + r] = made;
        largest = max(largest, draws);
    }
    atomicAdd(group_triangles, triangles);
    if (lid < uint(DRAW_COUNTS))
        visible_count[lid] = bins[counter(lid)];
    barrier();
    if (lid == 0u) {
        visible_count[TRIANGLE_COUNTS + uint(BINS_PHASE)] = group_triangles;
        uint o = uint(BINS_PHASE) * 8u;
        place_args[o] = (largest + 63u) / 64u;
        place_args[o + 1u] = 3u;
        place_args[o + 2u] = 1u;
#if BINS_PHASE == 0
        late_args[0] = (bins[counter(3u)] + 63u) / 64u;
        late_args[1] = 1u;
        late_args[2] = 1u;
#endif
    }
}
#endif
