#pragma require(common/framebuffer.glsl)

void main()
{
  frag_color = srgb_to_framebuffer_space(color);
}
