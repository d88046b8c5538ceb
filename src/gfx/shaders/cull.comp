#version 450
// The cull pass, frustum only (cull.glsl says how).
#define CULL_PHASE 0
#include "cull.glsl"
