#pragma require(common/math.glsl)
#pragma require(common/framebuffer.glsl)

/* The disc of gpu_shader_2D_point_round, from the interpolated position in the quad instead of gl_PointCoord. */
void main()
{
  float r = length(disc_coord);
  /* Pixels inside the edge: the disc's radius is point_size / 2 pixels. */
  float inside_px = (1.0 - r) * point_size * 0.5;
  float alpha = saturate(inside_px + 0.5);
  if (alpha <= 0.0) {
    discard;
  }
  vec4 c = srgb_to_framebuffer_space(color);
  frag_color = vec4(c.rgb, c.a * alpha);
}
