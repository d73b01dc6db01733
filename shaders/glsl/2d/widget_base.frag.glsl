#pragma require(common/framebuffer.glsl)

/* Signed distance to a rounded rectangle of half size `half_size` and corner radius `radius`, centered at 0. */
float rounded_box_distance(vec2 p, vec2 half_size, float radius)
{
  vec2 q = abs(p) - (half_size - radius);
  return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - radius;
}

void main()
{
  vec4 shape = parameters[1];
  float radius = min(shape.x, min(half_size.x, half_size.y));
  float d = rounded_box_distance(local_pos, half_size, radius);
  /* Vertical shade from the top (`shape.z`) to the bottom (`shape.w`), added to the inner color. */
  float t = clamp(local_pos.y / max(half_size.y * 2.0, 1.0) + 0.5, 0.0, 1.0);
  vec4 inner = parameters[2];
  inner.rgb = clamp(inner.rgb + mix(shape.z, shape.w, t), 0.0, 1.0);
  float outline = clamp(d + shape.y + 0.5, 0.0, 1.0);
  vec4 color = mix(inner, parameters[3], outline);
  color.a *= clamp(0.5 - d, 0.0, 1.0);
  frag_color = srgb_to_framebuffer_space(color);
}
