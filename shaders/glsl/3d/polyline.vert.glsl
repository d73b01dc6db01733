#pragma require(common/quad.glsl)

/* Segment `gl_VertexIndex / 6` joins points[i] and points[i + 1] and is expanded to a screen-aligned quad
 * `line_width` pixels wide (plus one pixel for the anti-aliased edge). Draw 6 * (point_count - 1) vertices for a
 * strip; more strips in one buffer: one draw each, with first vertex 6 * (index of the strip's first point). */

/* Clip-space w below which a point counts as behind the camera. */
const float NEAR_W = 1e-5;

void main()
{
  int segment = gl_VertexIndex / 6;
  /* corner.x: 0 at the segment's start, 1 at its end; corner.y: which side of the line. */
  vec2 corner = quad_corner(gl_VertexIndex % 6);
  PolylinePoint a = points[segment];
  PolylinePoint b = points[segment + 1];
  vec4 clip_a = ModelViewProjectionMatrix * vec4(a.position.xyz, 1.0);
  vec4 clip_b = ModelViewProjectionMatrix * vec4(b.position.xyz, 1.0);

  /* Clip the segment to the part in front of the camera, so the perspective divide below stays valid. */
  if (clip_a.w < NEAR_W && clip_b.w >= NEAR_W) {
    clip_a = mix(clip_a, clip_b, (NEAR_W - clip_a.w) / (clip_b.w - clip_a.w));
  }
  else if (clip_b.w < NEAR_W && clip_a.w >= NEAR_W) {
    clip_b = mix(clip_b, clip_a, (NEAR_W - clip_b.w) / (clip_a.w - clip_b.w));
  }

  vec2 half_viewport = 0.5 * viewport_size;
  vec2 screen_a = clip_a.xy / clip_a.w * half_viewport;
  vec2 screen_b = clip_b.xy / clip_b.w * half_viewport;
  vec2 dir = screen_b - screen_a;
  dir = (dot(dir, dir) > 1e-8) ? normalize(dir) : vec2(1.0, 0.0);
  vec2 normal = vec2(-dir.y, dir.x);

  float half_width = 0.5 * line_width + 1.0;
  float side = corner.y * 2.0 - 1.0;
  float along = corner.x * 2.0 - 1.0;
  /* Square caps (extending each end by half the width) close the gaps at the joints of a strip. */
  vec2 offset_px = normal * side * half_width + dir * along * half_width;

  vec4 clip = (corner.x < 0.5) ? clip_a : clip_b;
  clip.xy += offset_px / half_viewport * clip.w;
  gl_Position = clip;

  edge_distance = side * half_width;
  line_color = (corner.x < 0.5) ? a.color : b.color;
}
