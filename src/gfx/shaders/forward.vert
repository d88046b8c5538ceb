#version 450
// Forward pass and depth prepass, vertex stage: world-space position, normal and tangent;
// gl_InstanceIndex is the draw's firstInstance, the index of its ref (the
// cull pass's: instance slot, material).
#include "common.glsl"

struct Ref {
    uint slot;
    uint material;
};

layout(std430, set = 1, binding = 8) readonly buffer Refs { Ref refs[]; };

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
    Ref r = refs[gl_InstanceIndex];
    mat4 w = instance_world(instances[r.slot]);
    mat3 m = mat3(w);
    // the normal matrix, inverse-transpose of m: its cofactors over its
    // determinant (identity when m is singular)
    vec3 c0 = cross(m[1], m[2]), c1 = cross(m[2], m[0]), c2 = cross(m[0], m[1]);
    float det = dot(m[0], c0);
    mat3 nrm = abs(det) > 1e-30 ? mat3(c0, c1, c2) * (1.0 / det) : mat3(1.0);
    vec4 wp = w * vec4(in_pos, 1.0);
    v_pos = wp.xyz;
    v_normal = nrm * in_normal;
    v_tangent = vec4(m * in_tangent.xyz, in_tangent.w);
    v_uv = in_uv;
    v_material = r.material;
    gl_Position = frame.view_proj * wp;
}
