#include "../common/math.glsl"
#include "../common/colorspace.glsl"

/* A procedural test image: a checkerboard under animated color rings, linear HDR values in [0, 1].
 * One invocation per texel of `dst_img`. */
void main()
{
  ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(dst_img);
  if (any(greaterThanEqual(texel, size))) {
    return;
  }
  vec2 uv = (vec2(texel) + 0.5) / vec2(size);
  ivec2 cell = texel / max(size / 8, ivec2(1));
  float checker = ((cell.x + cell.y) & 1) == 0 ? 0.8 : 0.2;
  float r = length(uv - 0.5);
  vec3 rings = 0.5 + 0.5 * cos(M_TAU * (r * 4.0 - time * 0.25) + vec3(0.0, 2.1, 4.2));
  vec3 color = mix(vec3(checker), srgb_to_linear(rings), saturate(1.5 - 2.0 * r));
  imageStore(dst_img, texel, vec4(color, 1.0));
}
