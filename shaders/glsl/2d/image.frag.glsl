/* Texels are written as sampled: an sRGB-format texture samples to linear values, which suit an sRGB target. */
void main()
{
  frag_color = texture(image, uv_interp);
}
