/* Halves `src_img` into `dst_img` with a box filter: dst texel p averages the src texels 2p + {0,1}^2 that exist
 * (odd edges repeat the last row/column). dst must be max(src_size / 2, 1). One invocation per dst texel. */
void main()
{
  ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(texel, imageSize(dst_img)))) {
    return;
  }
  ivec2 last = imageSize(src_img) - 1;
  ivec2 base = texel * 2;
  vec4 sum = imageLoad(src_img, min(base, last));
  sum += imageLoad(src_img, min(base + ivec2(1, 0), last));
  sum += imageLoad(src_img, min(base + ivec2(0, 1), last));
  sum += imageLoad(src_img, min(base + ivec2(1, 1), last));
  imageStore(dst_img, texel, sum * 0.25);
}
