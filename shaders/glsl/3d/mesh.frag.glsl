/* The mesh ubershader's shading stage: a sun light with optional normal map, shadows, emission and fog. */
#pragma require(common/lighting.glsl)

void main()
{
  vec4 albedo = texture(albedo_tex, mesh.uv) * base_color * mesh.color;
  if (ALPHA_TEST && albedo.a < alpha_cutoff) {
    discard;
  }
  vec3 n = normalize(mesh.world_normal);
  if (NORMAL_MAP) {
    vec3 t = normalize(mesh.world_tangent.xyz);
    vec3 b = cross(n, t) * mesh.world_tangent.w;
    vec3 m = texture(normal_tex, mesh.uv).xyz * 2.0 - 1.0;
    n = normalize(mat3(t, b, n) * m);
  }
  if (DOUBLE_SIDED && !gl_FrontFacing) {
    n = -n;
  }
  vec3 v = normalize(view.camera_position.xyz - mesh.world_position);
  vec3 sun = blinn_phong(n, v, view.sun_direction.xyz, view.sun_color.rgb, albedo.rgb, 32.0);
  if (SHADOW_RECEIVE) {
    vec4 s = shadow_matrix * vec4(mesh.world_position, 1.0);
    sun *= texture(shadow_map, vec3(s.xy / s.w * 0.5 + 0.5, s.z / s.w));
  }
  vec3 radiance = sun + hemisphere_ambient(n, view.ambient_color.rgb) * albedo.rgb;
  if (EMISSIVE) {
    radiance += texture(emissive_tex, mesh.uv).rgb * emissive_strength;
  }
  if (FOG) {
    float d = length(view.camera_position.xyz - mesh.world_position);
    radiance = mix(view.ambient_color.rgb, radiance, exp(-fog_density * d));
  }
  frag_color = vec4(radiance, albedo.a);
}
