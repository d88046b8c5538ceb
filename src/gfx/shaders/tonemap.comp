#version 450
// Tone mapping: exposure, the ACES filmic fit (Narkowicz 2015), sRGB
// encoding; HDR RGBA16F in, the target's RGBA8 out (8x8 threads a group).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D ldr;
layout(push_constant) uniform Push { vec4 exposure; } pc;

vec3 aces(vec3 x)
{
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

float srgb(float c)
{
    return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(ldr);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec3 c = aces(imageLoad(hdr, p).rgb * pc.exposure.x);
    imageStore(ldr, p, vec4(srgb(c.r), srgb(c.g), srgb(c.b), 1.0));
}
