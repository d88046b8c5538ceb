#version 450
// The place pass, late class ranges (bins.glsl says how).
#define BINS_PHASE 1
#define PLACE
#include "bins.glsl"
