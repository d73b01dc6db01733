#pragma require(common/framebuffer.glsl)

/* The atlas' red channel is glyph coverage; it scales the glyph color's alpha. */
void main()
{
  float coverage = texture(glyph_atlas, glyph_uv).r;
  vec4 color = srgb_to_framebuffer_space(glyph_color);
  frag_color = vec4(color.rgb, color.a * coverage);
}
