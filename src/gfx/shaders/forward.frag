#version 450
// Forward pass, fragment stage: Cook-Torrance (GGX distribution, Smith
// Schlick-GGX geometry with k = (r + 1)^2 / 8, Schlick Fresnel with
// F0 = mix(0.04, base, metallic), Lambert diffuse weighted by
// (1 - F)(1 - metallic)), one directional light, point lights with inverse
// square falloff and the glTF range window, ambient = sky * strength * base.
// Output is linear HDR; tonemap.comp applies exposure, ACES and sRGB.
// tests/gfx/test_vk_image.c computes the same formula in C.
#extension GL_EXT_nonuniform_qualifier : require
#include "common.glsl"

layout(set = 0, binding = 0) uniform sampler2D textures[];

layout(location = 0) in vec3 v_pos;
layout(location = 1) in vec3 v_normal;
layout(location = 2) in vec2 v_uv;
layout(location = 3) in vec4 v_tangent;
layout(location = 4) flat in uint v_material;

layout(location = 0) out vec4 out_color;

const float PI = 3.14159265358979;

vec3 brdf(vec3 N, vec3 V, vec3 L, vec3 base, float metallic, float rough)
{
    vec3 H = normalize(V + L);
    float NdL = max(dot(N, L), 0.0);
    float NdV = max(dot(N, V), 1e-4);
    float NdH = max(dot(N, H), 0.0);
    float VdH = max(dot(V, H), 0.0);
    float a = rough * rough;
    float a2 = a * a;
    float dd = NdH * NdH * (a2 - 1.0) + 1.0;
    float D = a2 / (PI * dd * dd);
    float k = (rough + 1.0) * (rough + 1.0) / 8.0;
    float G = (NdV / (NdV * (1.0 - k) + k)) * (NdL / (NdL * (1.0 - k) + k));
    vec3 F0 = mix(vec3(0.04), base, metallic);
    vec3 F = F0 + (1.0 - F0) * pow(1.0 - VdH, 5.0);
    vec3 spec = D * G * F / (4.0 * NdV * NdL + 1e-4);
    vec3 kd = (1.0 - F) * (1.0 - metallic);
    return (kd * base / PI + spec) * NdL;
}

void main()
{
    Material m = materials[v_material];
    vec4 base = m.base_color;
    if (m.tex.x != TEX_NONE)
        base *= texture(textures[nonuniformEXT(m.tex.x)], v_uv);
    if ((m.tex.w & 1u) != 0u && base.a < m.params.w)
        discard;
    float metallic = m.params.x;
    float rough = m.params.y;
    if (m.tex.y != TEX_NONE) {
        vec4 mr = texture(textures[nonuniformEXT(m.tex.y)], v_uv);
        rough *= mr.g;
        metallic *= mr.b;
    }
    rough = clamp(rough, 0.045, 1.0);
    metallic = clamp(metallic, 0.0, 1.0);
    vec3 N = normalize(v_normal);
    if (!gl_FrontFacing)
        N = -N;
    if (m.tex.z != TEX_NONE && v_tangent.w != 0.0) {
        vec3 T = normalize(v_tangent.xyz - N * dot(N, v_tangent.xyz));
        vec3 B = cross(N, T) * v_tangent.w;
        // x and y only: a BC5 normal map has no z, and a unit normal's z
        // follows from them (RGB maps give the same)
        vec3 tn;
        tn.xy = texture(textures[nonuniformEXT(m.tex.z)], v_uv).xy * 2.0 - 1.0;
        tn.z = sqrt(max(0.0, 1.0 - dot(tn.xy, tn.xy)));
        tn.xy *= m.params.z;
        N = normalize(T * tn.x + B * tn.y + N * tn.z);
    }
    vec3 V = normalize(frame.camera_pos.xyz - v_pos);
    vec3 color = frame.sky.rgb * frame.sky.w * base.rgb;
    if (frame.light_dir.w > 0.0)
        color += brdf(N, V, normalize(-frame.light_dir.xyz), base.rgb, metallic, rough) *
                 frame.light_color.rgb;
    for (uint i = 0u; i < frame.counts.x; i++) {
        vec3 d = frame.point_pos[i].xyz - v_pos;
        float dist2 = max(dot(d, d), 1e-4);
        float range = frame.point_pos[i].w;
        float window = 1.0;
        if (range > 0.0) {
            float r = sqrt(dist2) / range;
            window = clamp(1.0 - r * r * r * r, 0.0, 1.0);
            window *= window;
        }
        vec3 L = d * inversesqrt(dist2);
        color += brdf(N, V, L, base.rgb, metallic, rough) * frame.point_color[i].rgb * window /
                 dist2;
    }
    out_color = vec4(color, 1.0);
}
