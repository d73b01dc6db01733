#pragma require(common/tonemap.glsl)
#pragma require(common/framebuffer.glsl)

/* Linear HDR in, display-ready color out: exposure, tone curve, then the framebuffer's encoding. */
void main()
{
  vec3 hdr = texture(hdr_image, uv_interp).rgb * exposure;
  frag_color = linear_to_framebuffer_space(vec4(tonemap(hdr, tonemap_operator), 1.0));
}
