/* A soft disc: opaque in the middle, fading to the sprite's inscribed circle. */
void main()
{
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(d, d);
  if (r2 > 1.0) {
    discard;
  }
  frag_color = vec4(finalColor.rgb, finalColor.a * (1.0 - r2));
}
