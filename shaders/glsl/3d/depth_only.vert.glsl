#pragma require(3d/object_transform.glsl)

invariant gl_Position;

void main()
{
  gl_Position = world_to_clip(object_to_world(pos));
}
