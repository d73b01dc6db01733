#pragma require(raytrace/payload.glsl)
#pragma require(raytrace/sky.glsl)

void main()
{
  payload.radiance = sky_radiance(normalize(gl_WorldRayDirectionEXT));
  payload.hit_distance = -1.0;
}
