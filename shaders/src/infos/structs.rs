//! Structs shared between Rust and GLSL. `#[derive(ShaderStruct)]` proves at compile time that each Rust layout
//! equals its std140 (uniform buffers) or std430 (storage buffers) layout and registers the GLSL `struct`, so a
//! value can be uploaded with `bytemuck::bytes_of` / `cast_slice` as is.

use glam::{Mat4, Vec4};
use shader_info::{Pad, ShaderStruct};

/// Per-view uniforms (`gpu_view_uniforms`: set 0, binding 0, std140), read as `view.<member>`.
///
/// Depth is the Vulkan convention (0 at the near plane, 1 at the far plane); the sun is a directional light.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
pub struct ViewData {
    /// World to clip space.
    pub view_projection: Mat4,
    /// Clip to world space (`view_projection.inverse()`), for view rays and unprojection.
    pub inv_view_projection: Mat4,
    /// World-space camera position; `w` unused.
    pub camera_position: Vec4,
    /// Unit direction the sunlight travels in (pointing away from the sun); `w` unused.
    pub sun_direction: Vec4,
    /// Linear color and strength of the sun; `w` unused. The diffuse term is `albedo / π · sun_color · n·l`, so a
    /// white surface facing a sun of `(π, π, π)` reflects 1.
    pub sun_color: Vec4,
    /// Linear sky color for the hemispherical ambient term, which multiplies the albedo directly (`w` unused).
    pub ambient_color: Vec4,
    /// `(width, height, 1 / width, 1 / height)` of the viewport in pixels.
    pub viewport_size: Vec4,
}

/// One glyph of `gpu_shader_text` (std430, storage buffer `glyphs[]`).
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct GlyphQuad {
    /// `(x, y, width, height)` of the quad, in the space `ModelViewProjectionMatrix` maps from (usually pixels).
    pub rect: Vec4,
    /// `(u0, v0, u1, v1)`: the glyph's rectangle in the atlas, normalized.
    pub uv_rect: Vec4,
    /// sRGB color with straight alpha.
    pub color: Vec4,
}

/// One point of a `gpu_shader_3D_polyline` strip (std430, storage buffer `points[]`).
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct PolylinePoint {
    /// Object-space position; `w` unused.
    pub position: Vec4,
    /// Linear color with straight alpha, interpolated along the segment.
    pub color: Vec4,
}

/// One particle of `gpu_compute_particles` / `gpu_shader_3D_particles` (std430, storage buffer `particles[]`).
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct Particle {
    /// World-space position in `xyz`; remaining life in seconds in `w` (dead at 0 or below: respawned next step).
    pub position: Vec4,
    /// Velocity in units per second in `xyz`; `w` unused.
    pub velocity: Vec4,
    /// Linear color with straight alpha.
    pub color: Vec4,
}

/// An object for `gpu_compute_cull` (std430, storage buffer `objects[]`): a bounding sphere and the indexed draw
/// that renders it.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct CullObject {
    /// World-space center in `xyz`, radius in `w`.
    pub bounding_sphere: Vec4,
    pub index_count: u32,
    pub first_index: u32,
    pub vertex_offset: i32,
    /// The struct's std430 size rounds up to its 16-byte alignment.
    pub _pad: Pad<4>,
}

/// `VkDrawIndexedIndirectCommand`, field for field (20 bytes, array stride 20 in std430): what
/// `gpu_compute_cull` writes and `vkCmdDrawIndexedIndirect` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct DrawIndexedIndirectCommand {
    pub index_count: u32,
    pub instance_count: u32,
    pub first_index: u32,
    pub vertex_offset: i32,
    pub first_instance: u32,
}

// The sizes other code (Vulkan buffer sizes, strides) relies on; the derive proves the field offsets.
const _: () = assert!(size_of::<ViewData>() == 208);
const _: () = assert!(size_of::<GlyphQuad>() == 48);
const _: () = assert!(size_of::<PolylinePoint>() == 32);
const _: () = assert!(size_of::<Particle>() == 48);
const _: () = assert!(size_of::<CullObject>() == 32);
const _: () = assert!(size_of::<DrawIndexedIndirectCommand>() == 20);
