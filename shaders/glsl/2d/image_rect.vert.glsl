#pragma require(common/quad.glsl)

/* One textured rectangle without vertex buffers: draw 6 vertices. */
void main()
{
  vec2 corner = quad_corner(gl_VertexIndex % 6);
  uv_interp = mix(uv_rect.xy, uv_rect.zw, corner);
  gl_Position = ModelViewProjectionMatrix * vec4(rect.xy + corner * rect.zw, 0.0, 1.0);
}
