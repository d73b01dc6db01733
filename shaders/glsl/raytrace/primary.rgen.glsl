#pragma require(raytrace/payload.glsl)
#pragma require(common/view.glsl)

/* One primary ray per pixel of `out_image` through the pixel center: launch with the image's width x height. */
void main()
{
  vec2 uv = (vec2(gl_LaunchIDEXT.xy) + 0.5) / vec2(gl_LaunchSizeEXT.xy);
  vec2 ndc = uv_to_ndc(uv);
  vec3 origin = view.camera_position.xyz;
  vec3 direction = view_ray_direction(ndc);
  payload.radiance = vec3(0.0);
  payload.hit_distance = -1.0;
  traceRayEXT(scene, gl_RayFlagsOpaqueEXT, 0xFF, 0, 0, 0, origin, 1e-3, direction, 1e4, 0);
  imageStore(out_image, ivec2(gl_LaunchIDEXT.xy), vec4(payload.radiance, 1.0));
}
