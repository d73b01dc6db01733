/* The depth-only fragment stage of the mesh ubershader (shadow maps, depth prepass): no color output, only the
 * alpha test, so cut-out geometry casts the right shadow. */
void main()
{
  if (ALPHA_TEST && texture(albedo_tex, mesh.uv).a * base_color.a < alpha_cutoff) {
    discard;
  }
}
