/* Shared by the flat and smooth 2D color shaders: they differ only in the interpolation of `finalColor`. */
void main()
{
  finalColor = col;
  gl_Position = ModelViewProjectionMatrix * vec4(pos, 0.0, 1.0);
}
