/* Tone-mapping operators: linear scene radiance (after exposure) to display-referred linear values in [0, 1]. */
#ifndef COMMON_TONEMAP_GLSL
#define COMMON_TONEMAP_GLSL
#pragma require(common/math.glsl)

const uint TONEMAP_ACES = 0u;
const uint TONEMAP_REINHARD = 1u;
const uint TONEMAP_CLAMP = 2u;

/* Krzysztof Narkowicz's fit of the ACES filmic curve. */
vec3 tonemap_aces(vec3 x)
{
  const float a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
  return saturate((x * (a * x + b)) / (x * (c * x + d) + e));
}

/* Reinhard on luminance-independent channels: simple, never clips. */
vec3 tonemap_reinhard(vec3 x) { return x / (1.0 + x); }

vec3 tonemap(vec3 x, uint op)
{
  x = max(x, vec3(0.0));
  switch (op) {
    case TONEMAP_REINHARD:
      return tonemap_reinhard(x);
    case TONEMAP_CLAMP:
      return saturate(x);
    default:
      return tonemap_aces(x);
  }
}

#endif /* COMMON_TONEMAP_GLSL */
