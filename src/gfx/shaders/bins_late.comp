#version 450
// The bins pass, late class ranges (bins.glsl says how).
#define BINS_PHASE 1
#include "bins.glsl"
