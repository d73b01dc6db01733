void main()
{
  vec3 color = scene_color.rgb;
  float luma = dot(color, vec3(0.2126, 0.7152, 0.0722));
  frag_color = vec4(mix(vec3(luma), color, saturation), scene_color.a);
}
