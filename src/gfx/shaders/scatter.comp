#version 450
// The scatter pass: this frame's instance records (the rows of the slots
// that changed) written into the device-local instance table, one thread
// per record (vk_pass_scatter.c).
#define WRITES_INSTANCES
#include "common.glsl"

layout(local_size_x = 64) in;

struct Update {
    uvec4 head; // x = slot
    Instance row;
};

layout(std430, set = 1, binding = 5) readonly buffer Updates { Update updates[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < frame.scene.w)
        instances[updates[i].head.x] = updates[i].row;
}
