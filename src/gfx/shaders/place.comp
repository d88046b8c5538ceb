#version 450
// The place pass, early class ranges (bins.glsl says how).
#define BINS_PHASE 0
#define PLACE
#include "bins.glsl"
