/* The mesh ubershader's vertex stage. Every feature is a static branch (`const bool`), so the compiler folds the
 * branches a variant does not use; the same source serves every variant, and any branch can become a
 * specialization constant without touching this file. */
#pragma require(3d/object_transform.glsl)

invariant gl_Position;

/* Foliage sways with the wind: a small displacement growing with height, phase-shifted by position. */
vec3 wind_offset(vec3 p)
{
  float phase = dot(p, vec3(0.7, 0.0, 1.3)) + wind_time * 2.0;
  return vec3(sin(phase), 0.0, cos(phase * 0.8)) * 0.05 * max(p.y, 0.0);
}

void main()
{
  vec3 p = pos;
  vec3 n = nor;
  vec3 t = tangent.xyz;
  if (SKINNING) {
    mat4 skin = joint_matrices[joints.x] * weights.x + joint_matrices[joints.y] * weights.y +
                joint_matrices[joints.z] * weights.z + joint_matrices[joints.w] * weights.w;
    p = (skin * vec4(p, 1.0)).xyz;
    n = mat3(skin) * n;
    t = mat3(skin) * t;
  }
  if (FOLIAGE) {
    p += wind_offset(p);
  }
  vec4 world = object_to_world(p);
  if (INSTANCING) {
    world = instance_matrices[gl_InstanceIndex] * world;
  }
  gl_Position = world_to_clip(world);
  if (CLIP_PLANE) {
    gl_ClipDistance[0] = dot(world, clip_plane);
  }
  else {
    gl_ClipDistance[0] = 1.0;
  }
  mesh.world_position = world.xyz;
  mesh.world_normal = object_to_world_normal(n);
  mesh.world_tangent = vec4(mat3(ModelMatrix) * t, tangent.w);
  mesh.uv = uv;
  mesh.color = VERTEX_COLOR ? color : vec4(1.0);
}
