#pragma require(common/view.glsl)

/* The environment seen along each pixel's view ray. Drawn after opaque geometry at depth 1 (FULLSCREEN_DEPTH)
 * with a LESS_OR_EQUAL depth test and depth writes off, so it only fills uncovered pixels. */
void main()
{
  vec3 direction = view_ray_direction(uv_to_ndc(uv_interp));
  frag_color = vec4(texture(environment, direction).rgb, 1.0);
}
