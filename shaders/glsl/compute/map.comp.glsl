/* Element-wise map of `src` into `dst`, its operation chosen by specialization constants: one SPIR-V module,
 * one pipeline per choice. `if (OPERATION == …)` on a constant is folded by the driver when it specializes.
 *   OPERATION 0: dst = src + OPERAND;  1: dst = src * OPERAND;  2: dst = max(src, OPERAND)
 *   CLAMP_TO_UNIT: clamp the result to [0, 1] afterwards. */
void main()
{
  uint i = gl_GlobalInvocationID.x;
  if (i >= count) {
    return;
  }
  float x = src[i];
  float y;
  if (OPERATION == 0u) {
    y = x + OPERAND;
  }
  else if (OPERATION == 1u) {
    y = x * OPERAND;
  }
  else {
    y = max(x, OPERAND);
  }
  if (CLAMP_TO_UNIT) {
    y = clamp(y, 0.0, 1.0);
  }
  dst[i] = y;
}
