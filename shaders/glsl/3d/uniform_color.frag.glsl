/* 3D shaders draw into the linear scene target: colors are linear and go out unchanged. */
void main()
{
  frag_color = color;
}
