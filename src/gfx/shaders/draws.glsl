// The draw records of the cull, bins and place passes and the geometry
// passes' indirect commands (cull.glsl and bins.glsl say how they are
// made). Layouts match VkDrawIndexedIndirectCommand, ze_vk_gpu_mesh_t,
// ze_vk_gpu_submesh_t, ze_vk_gpu_ref_t, ze_vk_gpu_candidate_t and
// ze_vk_gpu_element_t (src/gfx/vk_internal.h), and visible_count's
// layout its enum there.
#define LOD_MAX 8
#define LATE_COUNTS (4 + LOD_MAX)
#define DRAW_COUNTS (LATE_COUNTS + 4)
#define TRIANGLE_COUNTS (DRAW_COUNTS + 6)
#define COUNTS (TRIANGLE_COUNTS + 2)
#define BIN_TAIL 32u

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
    uvec4 lod;   // x = levels, y = its first bin
    uvec4 levels[LOD_MAX]; // first index, index count, error (float bits)
};

struct Ref {
    uint slot;
    uint material;
};

struct Candidate {
    uint slot;
    uint submesh;
    uint material;
    uint cls;
};

// A visible draw: instance slot, material, its bin (class range x bins
// per range + the submesh's first bin + level) and its index in the bin.
struct Element {
    uint slot;
    uint material;
    uint bin;
    uint index;
};

// The bins buffer: both phases' class ranges of bins, then the counters
// (visible_count's layout) the cull passes count with on the GPU.
uint counter(uint k)
{
    return 6u * frame.bins.x + k;
}
