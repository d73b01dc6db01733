void main()
{
  frag_color = finalColor;
}
