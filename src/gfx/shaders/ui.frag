#version 450
// UI overlay, fragment stage: at the pixel's centre (in UI pixels), a
// rounded rectangle with an optional border (signed distances, one pixel
// of anti-aliasing) or a glyph's coverage from the 8-bit atlas, tinted;
// nothing outside the clip rectangle. Out: premultiplied alpha, blended
// ONE / ONE_MINUS_SRC_ALPHA over the tone-mapped (sRGB-encoded) image, so
// the UI's sRGB colours land as they are. Images sample the backend's
// bindless textures (the slot vk_pass_ui.c wrote into `texture`; `pad` set:
// an sRGB texture, whose linear sample is encoded back to sRGB), tinted
// and cut to the instance's rounded rectangle.
#extension GL_EXT_nonuniform_qualifier : require
#include "ui.glsl"

layout(set = 0, binding = 1) uniform sampler2D atlas;
layout(set = 1, binding = 0) uniform sampler2D textures[];

layout(location = 0) flat in uint v_index;
layout(location = 0) out vec4 o_color;

vec4 unpack_rgba(uint c)
{
    return vec4(float((c >> 24) & 255u), float((c >> 16) & 255u), float((c >> 8) & 255u),
                float(c & 255u)) / 255.0;
}

// the sRGB transfer function, as an sRGB image's store would apply it
vec3 linear_to_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

// signed distance to a rounded box of half size h and radius r around 0
float sd_round_box(vec2 p, vec2 h, float r)
{
    vec2 q = abs(p) - h + r;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}

void main()
{
    UiInstance it = inst[v_index];
    vec2 p = gl_FragCoord.xy * pc.frag_to_ui;
    if (any(lessThan(p, it.clip.xy)) || any(greaterThanEqual(p, it.clip.zw)))
        discard;
    vec4 col = unpack_rgba(it.color);
    vec2 size = max(it.rect.zw - it.rect.xy, vec2(1e-6));
    if (it.kind == UI_GLYPH) {
        vec2 uv = mix(it.uv.xy, it.uv.zw, (p - it.rect.xy) / size);
        float cov = texture(atlas, uv).r * col.a;
        o_color = vec4(col.rgb * cov, cov);
        return;
    }
    vec2 h = 0.5 * size;
    vec2 q = p - (it.rect.xy + h);
    float r = clamp(it.radius, 0.0, min(h.x, h.y));
    float outer = clamp(0.5 - sd_round_box(q, h, r), 0.0, 1.0);
    if (it.kind == UI_IMAGE) {
        vec2 uv = mix(it.uv.xy, it.uv.zw, (p - it.rect.xy) / size);
        vec4 t = texture(textures[nonuniformEXT(it.texture)], uv);
        if (it.pad != 0u)
            t.rgb = linear_to_srgb(t.rgb);
        float a = t.a * col.a * outer;
        o_color = vec4(t.rgb * col.rgb * a, a);
        return;
    }
    float inner = 1.0;
    if (it.border > 0.0) {
        vec2 ih = max(h - it.border, vec2(0.0));
        inner = clamp(0.5 - sd_round_box(q, ih, max(r - it.border, 0.0)), 0.0, 1.0);
    }
    vec4 bc = unpack_rgba(it.border_color);
    vec3 rgb = mix(bc.rgb * bc.a, col.rgb * col.a, inner);
    float a = mix(bc.a, col.a, inner);
    o_color = vec4(rgb, a) * outer;
}
