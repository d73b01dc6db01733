/* Analytic sky shared by the miss stage: a vertical gradient from the ambient color plus a sun disc. */
#ifndef RAYTRACE_SKY_GLSL
#define RAYTRACE_SKY_GLSL
#pragma require(common/math.glsl)

vec3 sky_radiance(vec3 direction)
{
  float up = saturate(direction.y * 0.5 + 0.5);
  vec3 sky = mix(view.ambient_color.rgb * 0.3, view.ambient_color.rgb, up);
  float sun = smoothstep(0.9995, 0.9998, dot(direction, -normalize(view.sun_direction.xyz)));
  return sky + view.sun_color.rgb * sun;
}

#endif /* RAYTRACE_SKY_GLSL */
