#version 450
// Forward pass and depth prepass, vertex stage: world-space position, normal and tangent;
// gl_InstanceIndex is the draw's firstInstance, the index of its Draw.
#include "common.glsl"

layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in vec4 in_tangent;

layout(location = 0) out vec3 v_pos;
layout(location = 1) out vec3 v_normal;
layout(location = 2) out vec2 v_uv;
layout(location = 3) out vec4 v_tangent;
layout(location = 4) flat out uint v_material;
// The depth prepass runs this shader too; forward shading then tests for
// equal depth, which needs the same position from both pipelines.
invariant gl_Position;

void main()
{
    Draw d = draws[gl_InstanceIndex];
    vec4 wp = d.world * vec4(in_pos, 1.0);
    v_pos = wp.xyz;
    v_normal = mat3(d.normal) * in_normal;
    v_tangent = vec4(mat3(d.world) * in_tangent.xyz, in_tangent.w);
    v_uv = in_uv;
    v_material = d.material.x;
    gl_Position = frame.view_proj * wp;
}
