/* Small math helpers shared by every stage. Guarded so that a file reached both through `#pragma require` and
 * `#include` is defined once. */
#ifndef COMMON_MATH_GLSL
#define COMMON_MATH_GLSL

const float M_PI = 3.14159265358979323846;
const float M_TAU = 6.28318530717958647692;

float saturate(float x) { return clamp(x, 0.0, 1.0); }
vec2 saturate(vec2 x) { return clamp(x, vec2(0.0), vec2(1.0)); }
vec3 saturate(vec3 x) { return clamp(x, vec3(0.0), vec3(1.0)); }
vec4 saturate(vec4 x) { return clamp(x, vec4(0.0), vec4(1.0)); }

float square(float x) { return x * x; }

/* Integer hash (PCG output permutation), used where shaders need cheap, reproducible pseudo-random numbers. */
uint hash_u32(uint x)
{
  uint state = x * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

/* A float in [0, 1) from a hash; 24 bits keep every value exactly representable. */
float hash_to_unit_float(uint h) { return float(h >> 8u) * (1.0 / 16777216.0); }

#endif /* COMMON_MATH_GLSL */
