#include "../common/math.glsl"

/* One simulation step of `particles[0..particle_count)`: gravity, a bouncy ground plane at y = 0, and respawn at
 * the emitter when a particle's life runs out. One invocation per particle. */

/* Fraction of vertical speed kept by a bounce. */
const float RESTITUTION = 0.6;

void respawn(inout Particle p, uint index)
{
  /* Seeded by index and frame, so every respawn differs but a replay gives the same particles. */
  uint h = hash_u32(index ^ hash_u32(frame));
  float u1 = hash_to_unit_float(h);
  float u2 = hash_to_unit_float(hash_u32(h));
  float u3 = hash_to_unit_float(hash_u32(h + 1u));
  float angle = M_TAU * u1;
  /* Up, within a cone of about 30 degrees. */
  float spread = 0.5 * sqrt(u2);
  vec3 dir = normalize(vec3(cos(angle) * spread, 1.0, sin(angle) * spread));
  p.position = vec4(emitter.xyz, 1.0 + 2.0 * u3);
  p.velocity = vec4(dir * emitter.w * (0.75 + 0.5 * u2), 0.0);
  p.color = vec4(mix(vec3(1.0, 0.5, 0.1), vec3(1.0, 0.9, 0.3), u3), 1.0);
}

void main()
{
  uint i = gl_GlobalInvocationID.x;
  if (i >= particle_count) {
    return;
  }
  Particle p = particles[i];
  p.position.w -= delta_time;
  if (p.position.w <= 0.0) {
    respawn(p, i);
  }
  else {
    p.velocity.xyz += gravity * delta_time;
    p.position.xyz += p.velocity.xyz * delta_time;
    if (p.position.y < 0.0) {
      p.position.y = -p.position.y * RESTITUTION;
      p.velocity.y = -p.velocity.y * RESTITUTION;
    }
    /* Fade out over the last second of life. */
    p.color.a = saturate(p.position.w);
  }
  particles[i] = p;
}
