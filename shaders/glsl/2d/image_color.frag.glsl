#pragma require(common/framebuffer.glsl)

/* The texture tinted by `color`, an sRGB color with straight alpha. */
void main()
{
  frag_color = texture(image, uv_interp) * srgb_to_framebuffer_space(color);
}
