#pragma require(common/quad.glsl)

/* Glyph `gl_VertexIndex / 6` of the `glyphs` buffer, expanded to a quad: draw 6 vertices per glyph. */
void main()
{
  GlyphQuad glyph = glyphs[gl_VertexIndex / 6];
  vec2 corner = quad_corner(gl_VertexIndex % 6);
  glyph_color = glyph.color;
  glyph_uv = mix(glyph.uv_rect.xy, glyph.uv_rect.zw, corner);
  gl_Position = ModelViewProjectionMatrix * vec4(glyph.rect.xy + corner * glyph.rect.zw, 0.0, 1.0);
}
