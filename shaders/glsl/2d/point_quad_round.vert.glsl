#pragma require(common/quad.glsl)

/* Point `gl_VertexIndex / 6` of `points`, expanded to a square `point_size + 1` framebuffer pixels wide (half a
 * pixel of room for the anti-aliased edge on each side): draw 6 vertices per point. */
void main()
{
  vec2 corner = quad_corner(gl_VertexIndex % 6) * 2.0 - 1.0;
  float extent = point_size + 1.0;
  disc_coord = corner * (extent / point_size);
  vec4 center = ModelViewProjectionMatrix * vec4(points[gl_VertexIndex / 6], 0.0, 1.0);
  /* `extent / viewport_size` is half the square's size in normalized device coordinates. */
  gl_Position = center + vec4(corner * (extent / viewport_size) * center.w, 0.0, 0.0);
}
