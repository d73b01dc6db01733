#pragma require(raytrace/payload.glsl)
#pragma require(common/lighting.glsl)

/* Shades the hit triangle with the forward pass' lighting. The geometry is one indexed triangle list:
 * triangle gl_PrimitiveID uses rt_indices[3 * id + 0..2] into rt_positions (xyz, w unused). */
hitAttributeEXT vec2 barycentrics;

void main()
{
  uint base = 3u * uint(gl_PrimitiveID);
  vec3 p0 = rt_positions[rt_indices[base + 0u]].xyz;
  vec3 p1 = rt_positions[rt_indices[base + 1u]].xyz;
  vec3 p2 = rt_positions[rt_indices[base + 2u]].xyz;
  /* Geometric normal, object space to world space through the inverse transpose of the instance transform. */
  vec3 n_object = normalize(cross(p1 - p0, p2 - p0));
  vec3 n = normalize(n_object * mat3(gl_WorldToObjectEXT));
  vec3 v = -normalize(gl_WorldRayDirectionEXT);
  /* Triangles are lit from the side the ray came from. */
  if (dot(n, v) < 0.0) {
    n = -n;
  }
  vec3 albedo = vec3(0.8);
  vec3 radiance = blinn_phong(n, v, view.sun_direction.xyz, view.sun_color.rgb, albedo, 32.0);
  radiance += hemisphere_ambient(n, view.ambient_color.rgb) * albedo;
  payload.radiance = radiance;
  payload.hit_distance = gl_HitTEXT;
}
