/* The payload of primary rays: what the miss or closest-hit stage returns to ray generation. */
#ifndef RAYTRACE_PAYLOAD_GLSL
#define RAYTRACE_PAYLOAD_GLSL

struct PrimaryPayload {
  /* Linear radiance arriving along the ray. */
  vec3 radiance;
  /* Hit distance, negative for a miss. */
  float hit_distance;
};

#if defined(GPU_RAYGEN_SHADER)
layout(location = 0) rayPayloadEXT PrimaryPayload payload;
#else
layout(location = 0) rayPayloadInEXT PrimaryPayload payload;
#endif

#endif /* RAYTRACE_PAYLOAD_GLSL */
