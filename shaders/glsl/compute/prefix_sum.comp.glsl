/* Inclusive prefix sum of `values[0..element_count)` into `sums`, by ONE workgroup (dispatch 1 x 1 x 1):
 * sums[i] = values[0] + ... + values[i], with wrapping 32-bit unsigned arithmetic.
 *
 * The group walks the input in chunks of gl_WorkGroupSize.x elements; each chunk is scanned in shared memory
 * (Hillis-Steele, log2(group size) steps) and offset by the total of the chunks before it. */

shared uint partial[gl_WorkGroupSize.x];

void main()
{
  const uint group_size = gl_WorkGroupSize.x;
  uint lid = gl_LocalInvocationID.x;
  /* Total of the chunks already done; every invocation keeps the same value. */
  uint carry = 0u;
  /* element_count is uniform, so every invocation runs the same iterations and reaches every barrier. */
  for (uint base = 0u; base < element_count; base += group_size) {
    uint i = base + lid;
    partial[lid] = (i < element_count) ? values[i] : 0u;
    barrier();
    for (uint offset = 1u; offset < group_size; offset <<= 1u) {
      uint add = (lid >= offset) ? partial[lid - offset] : 0u;
      /* Everyone reads before anyone writes the step's results. */
      barrier();
      partial[lid] += add;
      barrier();
    }
    if (i < element_count) {
      sums[i] = carry + partial[lid];
    }
    carry += partial[group_size - 1u];
    /* The next chunk overwrites `partial`: wait until everyone has read the chunk total. */
    barrier();
  }
}
