#pragma require(3d/object_transform.glsl)

invariant gl_Position;

void main()
{
  vec4 world = object_to_world(pos);
  world_position = world.xyz;
  world_normal = object_to_world_normal(nor);
  gl_Position = world_to_clip(world);
}
