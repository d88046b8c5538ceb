#version 450
// Depth prepass, fragment stage: nothing to write but depth; alpha-masked
// materials discard what forward.frag would discard (the same base colour
// alpha against the same cutoff), so the equal-depth test of forward
// shading sees the same surfaces.
#extension GL_EXT_nonuniform_qualifier : require
#include "common.glsl"

layout(set = 0, binding = 0) uniform sampler2D textures[];

layout(location = 2) in vec2 v_uv;
layout(location = 4) flat in uint v_material;

void main()
{
    Material m = materials[v_material];
    if ((m.tex.w & 1u) == 0u)
        return;
    float a = m.base_color.a;
    if (m.tex.x != TEX_NONE)
        a *= texture(textures[nonuniformEXT(m.tex.x)], v_uv).a;
    if (a < m.params.w)
        discard;
}
