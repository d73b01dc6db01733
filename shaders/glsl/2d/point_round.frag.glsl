#pragma require(common/math.glsl)
#pragma require(common/framebuffer.glsl)

/* A disc filling the point sprite, with a one-pixel anti-aliased edge. */
void main()
{
  /* Distance from the center, 1 at the sprite's inscribed circle. */
  float r = length(gl_PointCoord * 2.0 - 1.0);
  /* Pixels inside the edge: the sprite's radius is point_size / 2 pixels. */
  float inside_px = (1.0 - r) * point_size * 0.5;
  float alpha = saturate(inside_px + 0.5);
  if (alpha <= 0.0) {
    discard;
  }
  vec4 c = srgb_to_framebuffer_space(color);
  frag_color = vec4(c.rgb, c.a * alpha);
}
