/* Direct lighting for forward shading: a Blinn-Phong sun light plus a hemispherical ambient term. */
#ifndef COMMON_LIGHTING_GLSL
#define COMMON_LIGHTING_GLSL
#pragma require(common/math.glsl)

/* Sky-to-ground ambient: normals facing up get the full ambient color, facing down a darker share of it. */
vec3 hemisphere_ambient(vec3 n, vec3 ambient)
{
  float up = n.y * 0.5 + 0.5;
  return ambient * mix(0.3, 1.0, up);
}

/* Reflected radiance of a surface with normal `n` seen along `v` (both unit, pointing away from the surface),
 * lit by a directional light travelling along `light_dir` with radiance `light_color`. */
vec3 blinn_phong(vec3 n, vec3 v, vec3 light_dir, vec3 light_color, vec3 albedo, float shininess)
{
  vec3 l = -normalize(light_dir);
  float n_dot_l = max(dot(n, l), 0.0);
  vec3 h = normalize(l + v);
  /* The (s + 8) / 8pi factor keeps the specular lobe energy roughly constant as it sharpens. */
  float spec = (n_dot_l > 0.0) ? pow(max(dot(n, h), 0.0), shininess) * (shininess + 8.0) / (8.0 * M_PI) : 0.0;
  return light_color * n_dot_l * (albedo / M_PI + vec3(0.04) * spec);
}

#endif /* COMMON_LIGHTING_GLSL */
