//! Compute shaders. Each info documents its contract: what each binding holds, the push constants and the dispatch
//! size. Every binding is in set 0 (pass frequency). Images are `rgba16f` storage images: the image views bound
//! must have that format. The derive-style infos' structs are their push-constant blocks (upload with
//! `bytemuck::bytes_of`).
// Clippy reads the repeated bare words of `#[shader(..)]` entries (`Pass`, `Read`) as duplicated attributes.
#![allow(clippy::duplicated_attributes)]

use glam::{Vec3, Vec4};
use shader_info::{
    Frequency, ImageType, Pad, Qualifier, ShaderCreateInfo, ShaderInfo, TextureFormat, shader_info,
};

/// Number of bins of `gpu_compute_histogram` (the `bins` buffer holds this many `uint`s).
pub const HISTOGRAM_BINS: u32 = 256;

/// A procedural test image (checkerboard under animated color rings, values in [0, 1]).
/// - binding 0: `dst_img`, rgba16f storage image, written.
/// - push: `time` in seconds (animates the rings).
/// - dispatch: ceil(width / 8) × ceil(height / 8) × 1.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_compute_pattern",
    image(0, Rgba16f, Write, Float2D, "dst_img", Pass),
    local_group_size_2d(8, 8),
    compute_source("compute/pattern.comp.glsl"),
    do_static_compilation
)]
pub struct ComputePattern {
    pub time: f32,
}

/// Shared declaration of the two separable Gaussian blur passes (not compilable: the direction is missing).
/// - binding 0: `src_img`, rgba16f storage image, read; binding 1: `dst_img`, rgba16f, written; same size.
/// - `BLUR_RADIUS` 4 taps on each side, sigma = radius / 2, weights normalized; edges clamp.
/// - dispatch: ceil(width / 8) × ceil(height / 8) × 1.
///
/// A full blur is `gpu_compute_blur_horizontal` from A to B, then `gpu_compute_blur_vertical` from B to A.
#[shader_info]
pub fn gpu_compute_blur() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_compute_blur")
        .image(
            0,
            TextureFormat::Rgba16f,
            Qualifier::Read,
            ImageType::Float2D,
            "src_img",
            Frequency::Pass,
        )
        .image(
            1,
            TextureFormat::Rgba16f,
            Qualifier::Write,
            ImageType::Float2D,
            "dst_img",
            Frequency::Pass,
        )
        .define_value("BLUR_RADIUS", "4")
        .local_group_size_2d(8, 8)
        .compute_source("compute/blur.comp.glsl")
}

/// The horizontal pass of `gpu_compute_blur` (same contract).
#[shader_info]
pub fn gpu_compute_blur_horizontal() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_compute_blur_horizontal")
        .define("BLUR_HORIZONTAL")
        .additional_info("gpu_compute_blur")
        .do_static_compilation(true)
}

/// The vertical pass of `gpu_compute_blur` (same contract).
#[shader_info]
pub fn gpu_compute_blur_vertical() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_compute_blur_vertical")
        .define("BLUR_VERTICAL")
        .additional_info("gpu_compute_blur")
        .do_static_compilation(true)
}

/// INCLUSIVE prefix sum by a single workgroup of 256 invocations, shared memory:
/// `sums[i] = values[0] + … + values[i]` for `i < element_count`, wrapping u32 addition.
/// - binding 0: `values[]` (uint), read; binding 1: `sums[]` (uint), written (at least `element_count` each).
/// - push: `element_count`, any size (the group walks the input in chunks of 256).
/// - dispatch: exactly 1 × 1 × 1.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_compute_prefix_sum",
    storage_buf(0, Read, "uint", "values[]", Pass),
    storage_buf(1, Write, "uint", "sums[]", Pass),
    local_group_size(256),
    compute_source("compute/prefix_sum.comp.glsl"),
    do_static_compilation
)]
pub struct ComputePrefixSum {
    pub element_count: u32,
}

/// Histogram with atomics (shared-memory counts per group, then one global `atomicAdd` per bin and group).
/// Value `v` counts in bin `min(v / bin_width, 255)` (`bin_width` 0 acts as 1).
/// - binding 0: `values[]` (uint), read; binding 1: `bins[256]` (uint), read-write, ACCUMULATED: zero it first.
/// - push: `value_count`, `bin_width`.
/// - dispatch: ceil(value_count / 256) × 1 × 1.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_compute_histogram",
    storage_buf(0, Read, "uint", "values[]", Pass),
    storage_buf(1, ReadWrite, "uint", "bins[256]", Pass),
    define_value("HISTOGRAM_BINS", "256u"),
    local_group_size(256),
    compute_source("compute/histogram.comp.glsl"),
    do_static_compilation
)]
pub struct ComputeHistogram {
    pub value_count: u32,
    pub bin_width: u32,
}

/// Halves an image with a 2×2 box filter (one mip level), image load/store.
/// - binding 0: `src_img`, rgba16f, read; binding 1: `dst_img`, rgba16f, written, size max(src / 2, 1).
/// - dst texel p = mean of src texels 2p + {0, 1}², clamped to the source (odd sizes repeat the last row/column).
/// - dispatch: ceil(dst width / 8) × ceil(dst height / 8) × 1.
#[shader_info]
pub fn gpu_compute_downsample() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_compute_downsample")
        .image(
            0,
            TextureFormat::Rgba16f,
            Qualifier::Read,
            ImageType::Float2D,
            "src_img",
            Frequency::Pass,
        )
        .image(
            1,
            TextureFormat::Rgba16f,
            Qualifier::Write,
            ImageType::Float2D,
            "dst_img",
            Frequency::Pass,
        )
        .local_group_size_2d(8, 8)
        .compute_source("compute/downsample.comp.glsl")
        .do_static_compilation(true)
}

/// One step of a particle simulation: gravity, a bouncy ground plane (y = 0), respawn at the emitter when life
/// (`position.w`) runs out. Initialize particles with life 0 to spawn them all on the first step.
/// - binding 0: `particles[]` ([`Particle`](super::structs::Particle), std430), read-write.
/// - push: this struct (40 bytes used).
/// - dispatch: ceil(particle_count / 64) × 1 × 1.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_compute_particles",
    storage_buf(0, ReadWrite, "Particle", "particles[]", Pass),
    local_group_size(64),
    compute_source("compute/particles.comp.glsl"),
    do_static_compilation
)]
pub struct ComputeParticles {
    /// Spawn position in `xyz`, launch speed in `w`.
    pub emitter: Vec4,
    /// Acceleration, units per second².
    pub gravity: Vec3,
    /// Step length in seconds.
    pub delta_time: f32,
    pub particle_count: u32,
    /// Frame number: seeds the respawn randomness.
    pub frame: u32,
    /// The Rust struct rounds up to its 16-byte alignment.
    pub _pad: Pad<8>,
}

/// Frustum culling into indirect draw arguments.
/// - binding 0: `objects[]` ([`CullObject`](super::structs::CullObject)), read.
/// - binding 1: `commands[]` ([`DrawIndexedIndirectCommand`](super::structs::DrawIndexedIndirectCommand), stride
///   20), written: `commands[i]` for every `i < object_count`, instance_count 1 if visible else 0, first_instance i.
///   Draw with `vkCmdDrawIndexedIndirect(buffer, 0, object_count, 20)`.
/// - binding 2: `visible_count` (uint), read-write: incremented once per visible object; zero it first.
/// - push: `frustum_planes` (unit normals pointing inside, `dot(n, p) + w >= 0` inside), `object_count`.
/// - visible: `dot(plane.xyz, center) + plane.w >= -radius` for all six planes.
/// - dispatch: ceil(object_count / 64) × 1 × 1.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_compute_cull",
    storage_buf(0, Read, "CullObject", "objects[]", Pass),
    storage_buf(1, Write, "DrawIndexedIndirectCommand", "commands[]", Pass),
    storage_buf(2, ReadWrite, "uint", "visible_count", Pass),
    local_group_size(64),
    compute_source("compute/cull.comp.glsl"),
    do_static_compilation
)]
pub struct ComputeCull {
    pub frustum_planes: [Vec4; 6],
    pub object_count: u32,
    /// The Rust struct rounds up to its 16-byte alignment.
    pub _pad: Pad<12>,
}

/// Element-wise map whose behaviour is chosen by specialization constants (one module, a pipeline per choice):
/// - constants: `OPERATION` (uint: 0 add, 1 multiply, 2 max), `OPERAND` (float), `CLAMP_TO_UNIT` (bool).
/// - binding 0: `src[]` (float, read); binding 1: `dst[]` (float, written); push: `count`.
/// - dispatch: ceil(count / 64) × 1 × 1.
#[shader_info]
pub fn gpu_compute_map() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_compute_map")
        .storage_buf(0, Qualifier::Read, "float", "src[]", Frequency::Pass)
        .storage_buf(1, Qualifier::Write, "float", "dst[]", Frequency::Pass)
        .push_constant(shader_info::Type::Uint, "count")
        .specialization_constant(shader_info::Type::Uint, "OPERATION", 0u32)
        .specialization_constant(shader_info::Type::Float, "OPERAND", 1.0f32)
        .specialization_constant(shader_info::Type::Bool, "CLAMP_TO_UNIT", false)
        .local_group_size(64)
        .compute_source("compute/map.comp.glsl")
        .do_static_compilation(true)
}
