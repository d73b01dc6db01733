/* Conversions into the color space of the bound framebuffer.
 *
 * Needs the `srgb_target` push constant of the `gpu_srgb_to_framebuffer_space` info: true when the color attachment
 * has an `*_SRGB` format, whose stores encode linear values to sRGB in hardware. */
#ifndef COMMON_FRAMEBUFFER_GLSL
#define COMMON_FRAMEBUFFER_GLSL
#pragma require(common/colorspace.glsl)

/* A color authored in sRGB (UI colors): an sRGB attachment would encode it a second time, so decode it first. */
vec4 srgb_to_framebuffer_space(vec4 srgb_color)
{
  if (srgb_target) {
    srgb_color.rgb = srgb_to_linear(srgb_color.rgb);
  }
  return srgb_color;
}

/* A linear color (a tonemapped image): a UNORM attachment stores values as given, so encode it to sRGB here. */
vec4 linear_to_framebuffer_space(vec4 linear_color)
{
  if (!srgb_target) {
    linear_color.rgb = linear_to_srgb(linear_color.rgb);
  }
  return linear_color;
}

#endif /* COMMON_FRAMEBUFFER_GLSL */
