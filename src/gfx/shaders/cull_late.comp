#version 450
// The late cull pass: the early pass's occluded candidates against this frame's depth pyramid (cull.glsl says how).
#define CULL_PHASE 2
#include "cull.glsl"
