//! The shader library: GLSL sources under `glsl/` and the infos that describe them.
