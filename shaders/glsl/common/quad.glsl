/* Quads drawn without vertex buffers: six vertices (two counter-clockwise triangles) per quad. */
#ifndef COMMON_QUAD_GLSL
#define COMMON_QUAD_GLSL

/* Corner of vertex `vertex_in_quad` (0..5) in [0, 1]^2: triangles (0,0)-(1,0)-(1,1) and (0,0)-(1,1)-(0,1). */
vec2 quad_corner(int vertex_in_quad)
{
  const vec2 corners[6] = vec2[6](
      vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(1.0, 1.0), vec2(0.0, 0.0), vec2(1.0, 1.0), vec2(0.0, 1.0));
  return corners[vertex_in_quad];
}

#endif /* COMMON_QUAD_GLSL */
