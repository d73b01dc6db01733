void main()
{
  vec3 color = scene_color.rgb;
  float luma = dot(color, vec3(0.2126, 0.7152, 0.0722));
  vec2 from_center = uv_interp - 0.5;
  float falloff = 1.0 - vignette * dot(from_center, from_center) * 2.0;
  frag_color = vec4(mix(vec3(luma), color, saturation) * max(falloff, 0.0), scene_color.a);
}
