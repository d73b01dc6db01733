#pragma require(common/quad.glsl)

/* The widget's rectangle `parameters[0]` grown by a pixel for the antialiased edge, from the vertex index. */
void main()
{
  vec4 rect = parameters[0];
  vec2 corner = quad_corner(gl_VertexIndex % 6);
  vec2 pos = rect.xy - 1.0 + corner * (rect.zw + 2.0);
  half_size = rect.zw * 0.5;
  local_pos = pos - (rect.xy + half_size);
  gl_Position = ModelViewProjectionMatrix * vec4(pos, 0.0, 1.0);
}
