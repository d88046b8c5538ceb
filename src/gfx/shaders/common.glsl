// Shared by forward.vert, forward.frag and cull.comp: the frame constants (std140)
// and the per-draw and material SSBOs (std430). Layouts match
// ze_vk_gpu_frame_t, ze_vk_gpu_draw_t and ze_vk_gpu_material_t in
// src/gfx/vk_internal.h.
#define MAX_POINT_LIGHTS 32
#define TEX_NONE 0xFFFFFFFFu

layout(std140, set = 1, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_pos;
    vec4 sky;         // rgb linear, w = ambient strength
    vec4 light_dir;   // xyz: direction the light travels; w = 1 when present
    vec4 light_color; // rgb * intensity
    uvec4 counts;     // x = point lights, y, z, w = candidate draws per face class
    vec4 point_pos[MAX_POINT_LIGHTS];   // xyz, w = range (0 = unbounded)
    vec4 point_color[MAX_POINT_LIGHTS]; // rgb * intensity
    vec4 planes[6]; // world space, inside when dot(xyz, p) + w >= 0
    uvec4 ranges;   // x = commands per face-class range; y, z: first cull group of classes 1, 2
} frame;

struct Material {
    vec4 base_color;
    vec4 params; // metallic, roughness, normal scale, alpha cutoff
    uvec4 tex;   // base colour, metal/rough, normal slot; flags (1 mask, 2 double-sided)
};

struct Draw {
    mat4 world;
    mat4 normal;
    uvec4 material;
    vec4 sphere; // the submesh's bounds, local: centre, radius
};

layout(std430, set = 1, binding = 1) readonly buffer Materials { Material materials[]; };
layout(std430, set = 1, binding = 2) readonly buffer Draws { Draw draws[]; };
