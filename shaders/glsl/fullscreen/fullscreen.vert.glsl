/* One triangle covering the viewport, from gl_VertexIndex alone: draw 3 vertices, no vertex buffer.
 * uv is (0, 0) at the top-left of the viewport and (1, 1) at the bottom-right. */
#ifndef FULLSCREEN_DEPTH
#define FULLSCREEN_DEPTH 0.0
#endif

void main()
{
  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
  uv_interp = uv;
  gl_Position = vec4(uv * 2.0 - 1.0, FULLSCREEN_DEPTH, 1.0);
}
