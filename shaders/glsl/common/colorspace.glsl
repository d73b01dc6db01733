/* Exact sRGB transfer functions (IEC 61966-2-1) and luminance. */
#ifndef COMMON_COLORSPACE_GLSL
#define COMMON_COLORSPACE_GLSL

float srgb_to_linear(float c)
{
  return (c <= 0.04045) ? c * (1.0 / 12.92) : pow((c + 0.055) * (1.0 / 1.055), 2.4);
}

vec3 srgb_to_linear(vec3 c)
{
  return vec3(srgb_to_linear(c.r), srgb_to_linear(c.g), srgb_to_linear(c.b));
}

float linear_to_srgb(float c)
{
  /* max() keeps pow() away from negative inputs, for which it is undefined. */
  c = max(c, 0.0);
  return (c <= 0.0031308) ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

vec3 linear_to_srgb(vec3 c)
{
  return vec3(linear_to_srgb(c.r), linear_to_srgb(c.g), linear_to_srgb(c.b));
}

/* Rec. 709 / sRGB primaries. */
float luminance(vec3 linear_rgb) { return dot(linear_rgb, vec3(0.2126, 0.7152, 0.0722)); }

#endif /* COMMON_COLORSPACE_GLSL */
