#pragma require(common/math.glsl)

/* Coverage falls off over one pixel at the line's edges; blend with straight alpha. */
void main()
{
  float alpha = saturate(0.5 * line_width + 0.5 - abs(edge_distance));
  if (alpha <= 0.0) {
    discard;
  }
  frag_color = vec4(line_color.rgb, line_color.a * alpha);
}
