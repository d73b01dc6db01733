#pragma require(common/lighting.glsl)

/* Linear HDR radiance: one sun light plus hemispherical ambient, to be tonemapped later. */
void main()
{
  vec3 n = normalize(world_normal);
  /* Two-sided lighting: back faces (visible when culling is off) use the flipped normal. */
  if (!gl_FrontFacing) {
    n = -n;
  }
  vec3 v = normalize(view.camera_position.xyz - world_position);
  vec3 albedo = base_color.rgb;
  vec3 radiance = blinn_phong(n, v, view.sun_direction.xyz, view.sun_color.rgb, albedo, shininess);
  radiance += hemisphere_ambient(n, view.ambient_color.rgb) * albedo;
  frag_color = vec4(radiance, base_color.a);
}
