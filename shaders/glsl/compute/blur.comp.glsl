/* One pass of a separable Gaussian blur over `src_img` into `dst_img` (same size): BLUR_HORIZONTAL or
 * BLUR_VERTICAL picks the axis, BLUR_RADIUS the number of taps on each side. Edges clamp to the border texel.
 * One invocation per texel. */
#if defined(BLUR_HORIZONTAL)
const ivec2 BLUR_AXIS = ivec2(1, 0);
#elif defined(BLUR_VERTICAL)
const ivec2 BLUR_AXIS = ivec2(0, 1);
#else
#error "define BLUR_HORIZONTAL or BLUR_VERTICAL (use gpu_compute_blur_horizontal / _vertical)"
#endif

void main()
{
  ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(src_img);
  if (any(greaterThanEqual(texel, size))) {
    return;
  }
  /* sigma = radius / 2 puts the cut-off at two standard deviations; the weights are normalized below. */
  float sigma = max(float(BLUR_RADIUS) * 0.5, 0.5);
  float inv_two_sigma_sq = 1.0 / (2.0 * sigma * sigma);
  vec4 sum = vec4(0.0);
  float weight_sum = 0.0;
  for (int i = -BLUR_RADIUS; i <= BLUR_RADIUS; i++) {
    float w = exp(-float(i * i) * inv_two_sigma_sq);
    ivec2 p = clamp(texel + BLUR_AXIS * i, ivec2(0), size - 1);
    sum += imageLoad(src_img, p) * w;
    weight_sum += w;
  }
  imageStore(dst_img, texel, sum / weight_sum);
}
