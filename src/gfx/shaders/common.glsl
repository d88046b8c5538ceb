// Shared by the geometry shaders (forward.vert, forward.frag, prepass.frag)
// and the scene's compute passes (scatter.comp, cull*.comp): the frame
// constants (std140) and the scene's SSBOs (std430), set 1 as vk_draws.c
// lists it. Layouts match ze_vk_gpu_frame_t, ze_vk_gpu_material_t,
// ze_vk_gpu_instance_t, ze_vk_gpu_mesh_t, ze_vk_gpu_submesh_t and
// ze_vk_gpu_ref_t in src/gfx/vk_internal.h.
#define MAX_POINT_LIGHTS 32
#define TEX_NONE 0xFFFFFFFFu
#define NO_HANDLE 0xFFFFFFFFu
#define FRAME_CULL 1u
#define FRAME_HISTORY 2u
#define INSTANCE_INTERPOLATE 1u

layout(std140, set = 1, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_pos;
    vec4 sky;         // rgb linear, w = ambient strength
    vec4 light_dir;   // xyz: direction the light travels; w = 1 when present
    vec4 light_color; // rgb * intensity
    uvec4 counts;     // x = point lights
    vec4 point_pos[MAX_POINT_LIGHTS];   // xyz, w = range (0 = unbounded)
    vec4 point_color[MAX_POINT_LIGHTS]; // rgb * intensity
    vec4 planes[6]; // world space, inside when dot(xyz, p) + w >= 0
    uvec4 scene;    // x = instance slots, y = flags (FRAME_CULL), z = commands per class, w = records
    vec4 params;    // x = interpolation alpha
    // occlusion culling: the view-projection the depth pyramid was made
    // with (the previous frame's), and the pyramid: x, y = the depth
    // image's size, z = levels
    mat4 prev_view_proj;
    uvec4 hzb;
    // x = bins per class range (stride), y = submeshes, z = bins in use
    uvec4 bins;
} frame;

struct Material {
    vec4 base_color;
    vec4 params; // metallic, roughness, normal scale, alpha cutoff
    uvec4 tex;   // base colour, metal/rough, normal slot; flags (1 mask, 2 double-sided)
};

// A row of the instance table: the world matrix's first three rows, the
// previous position (interpolated towards the current one by alpha when
// flags has INSTANCE_INTERPOLATE), mesh handle (NO_HANDLE: not drawn),
// material handle + 1 (0: the submeshes' own), flags.
struct Instance {
    vec4 rows[3];
    vec4 previous;
    uvec4 info;
};

layout(std430, set = 1, binding = 1) readonly buffer Materials { Material materials[]; };
#ifdef WRITES_INSTANCES
layout(std430, set = 1, binding = 2) buffer Instances { Instance instances[]; };
#else
layout(std430, set = 1, binding = 2) readonly buffer Instances { Instance instances[]; };
#endif

// The instance's world matrix at this frame's alpha.
mat4 instance_world(Instance inst)
{
    mat4 w = transpose(mat4(inst.rows[0], inst.rows[1], inst.rows[2], vec4(0.0, 0.0, 0.0, 1.0)));
    if ((inst.info.z & INSTANCE_INTERPOLATE) != 0u)
        w[3].xyz = mix(inst.previous.xyz, w[3].xyz, frame.params.x);
    return w;
}
