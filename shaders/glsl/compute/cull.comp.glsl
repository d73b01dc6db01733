/* Frustum culling into indirect draw arguments: for each object i < object_count, commands[i] is object i's
 * VkDrawIndexedIndirectCommand with instance_count 1 when its bounding sphere touches the frustum and 0 when not;
 * first_instance = i, so the vertex shader can find the object's data through gl_InstanceIndex. `visible_count` is
 * incremented once per visible object (clear it first). One invocation per object.
 *
 * A sphere is outside when it lies entirely on the negative side of one plane: dot(plane.xyz, center) + plane.w
 * < -radius, with plane normals unit length and pointing into the frustum. */
void main()
{
  uint i = gl_GlobalInvocationID.x;
  if (i >= object_count) {
    return;
  }
  CullObject object = objects[i];
  vec3 center = object.bounding_sphere.xyz;
  float radius = object.bounding_sphere.w;
  bool visible = true;
  for (int p = 0; p < 6; p++) {
    visible = visible && (dot(frustum_planes[p].xyz, center) + frustum_planes[p].w >= -radius);
  }
  DrawIndexedIndirectCommand command;
  command.index_count = object.index_count;
  command.instance_count = visible ? 1u : 0u;
  command.first_index = object.first_index;
  command.vertex_offset = object.vertex_offset;
  command.first_instance = i;
  commands[i] = command;
  if (visible) {
    atomicAdd(visible_count, 1u);
  }
}
