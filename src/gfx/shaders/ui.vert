#version 450
// UI overlay, vertex stage: instance gl_InstanceIndex's rectangle clipped
// to its clip rectangle (an empty one collapses), two triangles of six
// vertices; the fragment stage gets the UI-pixel position.
#include "ui.glsl"

layout(location = 0) flat out uint v_index;

void main()
{
    UiInstance it = inst[gl_InstanceIndex];
    vec2 lo = max(it.rect.xy, it.clip.xy);
    vec2 hi = max(min(it.rect.zw, it.clip.zw), lo);
    uint v = uint(gl_VertexIndex);
    // 0 (0,0)  1 (1,0)  2 (0,1)  3 (1,0)  4 (1,1)  5 (0,1)
    vec2 c = vec2((v == 1u || v == 3u || v == 4u) ? 1.0 : 0.0,
                  (v == 2u || v == 4u || v == 5u) ? 1.0 : 0.0);
    vec2 p = mix(lo, hi, c);
    v_index = uint(gl_InstanceIndex);
    gl_Position = vec4(p * pc.to_ndc - 1.0, 0.0, 1.0);
}
