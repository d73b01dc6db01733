/* Particle `gl_VertexIndex` of the simulation buffer as a point sprite: draw particle_count points. */
void main()
{
  Particle p = particles[gl_VertexIndex];
  finalColor = p.color;
  gl_Position = ModelViewProjectionMatrix * vec4(p.position.xyz, 1.0);
  /* point_size is the diameter in pixels at clip w = 1; farther particles shrink with perspective. */
  gl_PointSize = clamp(point_size / max(gl_Position.w, 1e-3), 1.0, 64.0);
  /* A dead particle (no life left) goes outside the clip volume, so it is never rasterized. */
  if (p.position.w <= 0.0) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
  }
}
