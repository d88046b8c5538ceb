#version 450
// The cull pass, frustum and the previous frame's depth pyramid (cull.glsl says how).
#define CULL_PHASE 1
#include "cull.glsl"
