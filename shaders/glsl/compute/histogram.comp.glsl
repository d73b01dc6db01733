/* Histogram of `values[0..value_count)` into HISTOGRAM_BINS bins: value v counts in bin
 * min(v / bin_width, HISTOGRAM_BINS - 1). The result is ADDED to `bins`: clear them before the first dispatch.
 * One invocation per value: dispatch ceil(value_count / gl_WorkGroupSize.x) groups.
 *
 * Each group counts into shared memory first, so that global atomics happen once per bin and group instead of
 * once per value. */

shared uint local_bins[HISTOGRAM_BINS];

void main()
{
  uint lid = gl_LocalInvocationID.x;
  for (uint b = lid; b < HISTOGRAM_BINS; b += gl_WorkGroupSize.x) {
    local_bins[b] = 0u;
  }
  barrier();

  uint i = gl_GlobalInvocationID.x;
  if (i < value_count) {
    uint bin = min(values[i] / max(bin_width, 1u), HISTOGRAM_BINS - 1u);
    atomicAdd(local_bins[bin], 1u);
  }
  barrier();

  for (uint b = lid; b < HISTOGRAM_BINS; b += gl_WorkGroupSize.x) {
    uint n = local_bins[b];
    if (n != 0u) {
      atomicAdd(bins[b], n);
    }
  }
}
