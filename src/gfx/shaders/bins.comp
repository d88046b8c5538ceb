#version 450
// The bins pass, early class ranges (bins.glsl says how).
#define BINS_PHASE 0
#include "bins.glsl"
