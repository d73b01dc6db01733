/* Object-to-clip transform shared by the depth prepass and the forward pass. Both vertex shaders declare
 * `invariant gl_Position` and compute it through these functions, so the prepass depth matches the forward pass
 * bit for bit and an EQUAL depth test passes. Needs `ModelMatrix` (gpu_modelmat) and `view` (gpu_view_uniforms). */
#ifndef OBJECT_TRANSFORM_GLSL
#define OBJECT_TRANSFORM_GLSL

vec4 object_to_world(vec3 object_position) { return ModelMatrix * vec4(object_position, 1.0); }

vec4 world_to_clip(vec4 world_position) { return view.view_projection * world_position; }

/* Normals transform by the inverse transpose, which stays correct under non-uniform scale. */
vec3 object_to_world_normal(vec3 object_normal)
{
  return transpose(inverse(mat3(ModelMatrix))) * object_normal;
}

#endif /* OBJECT_TRANSFORM_GLSL */
