// The UI overlay's data (vk_pass_ui.c): one instance per quad, the layout
// of ze_render_ui_instance_t (std430, 80 bytes), and the push constants.
struct UiInstance {
    vec4 rect; // x0, y0, x1, y1: UI pixels, origin top-left, x1/y1 exclusive
    vec4 clip; // nothing outside is drawn
    vec4 uv;   // glyphs: atlas u0, v0, u1, v1
    uint color;        // 0xRRGGBBAA, sRGB, straight alpha
    uint border_color;
    float radius;
    float border;
    uint kind; // 0 rect, 1 glyph, 2 image
    uint texture;
    uint codepoint;
    uint pad;
};

const uint UI_RECT = 0u;
const uint UI_GLYPH = 1u;
const uint UI_IMAGE = 2u;

layout(std430, set = 0, binding = 0) readonly buffer UiInstances {
    UiInstance inst[];
};

// to_ndc: 2 / the UI's size; frag_to_ui: the UI's size / the target's
layout(push_constant) uniform UiPush {
    vec2 to_ndc;
    vec2 frag_to_ui;
} pc;
