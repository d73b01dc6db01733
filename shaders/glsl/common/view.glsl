/* Helpers over the `view` uniform block (`ViewData`, declared by the `gpu_view_uniforms` info). */
#ifndef COMMON_VIEW_GLSL
#define COMMON_VIEW_GLSL

/* World-space point on the view ray through `ndc` (x, y in [-1, 1]) at normalized depth `depth`. */
vec3 view_unproject(vec2 ndc, float depth)
{
  vec4 p = view.inv_view_projection * vec4(ndc, depth, 1.0);
  return p.xyz / p.w;
}

/* Unit world-space direction of the view ray through `ndc`. Two finite depths keep this valid for infinite far
 * planes, where depth 1 would unproject to w = 0. */
vec3 view_ray_direction(vec2 ndc) { return normalize(view_unproject(ndc, 0.5) - view_unproject(ndc, 0.0)); }

/* Normalized device coordinates of a uv in [0, 1]^2 (Vulkan: y points down, as uv does). */
vec2 uv_to_ndc(vec2 uv) { return uv * 2.0 - 1.0; }

#endif /* COMMON_VIEW_GLSL */
