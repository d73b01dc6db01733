void main()
{
  frag_color = textureLod(source_image, uv_interp, 0.0);
}
