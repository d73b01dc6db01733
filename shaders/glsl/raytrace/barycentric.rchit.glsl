#pragma require(raytrace/payload.glsl)

/* Debug view: the hit's barycentric coordinates as a color, no geometry buffers needed. */
hitAttributeEXT vec2 barycentrics;

void main()
{
  payload.radiance = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics.x, barycentrics.y);
  payload.hit_distance = gl_HitTEXT;
}
