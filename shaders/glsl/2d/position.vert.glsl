/* 2D positions through the model-view-projection matrix (pixels to clip space for UI drawing). */
void main()
{
  gl_Position = ModelViewProjectionMatrix * vec4(pos, 0.0, 1.0);
}
