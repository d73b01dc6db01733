//! Fullscreen passes: a triangle from `gl_VertexIndex` (draw 3 vertices, no vertex buffer) reading one texture.

use shader_info::{Bool32, Frequency, ImageType, ShaderCreateInfo, ShaderInfo, Type, shader_info};

/// Tonemapping of the linear HDR scene into the display target (derive style: this struct is the push-constant
/// block). `hdr_image` (sampler2D) at set 0 binding 0. Specialization constant 0 `tonemap_operator` (uint): 0 ACES
/// (default), 1 Reinhard, 2 clamp. Output: linear for an sRGB target, sRGB-encoded otherwise.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "gpu_shader_fullscreen_tonemap",
    sampler(0, Float2D, "hdr_image", Pass),
    specialization_constant(Uint, "tonemap_operator", 0u32),
    fragment_out(0, Vec4, "frag_color"),
    fragment_source("fullscreen/tonemap.frag.glsl"),
    additional_info("gpu_fullscreen"),
    // Declares `srgb_target` too; resolution keeps identical push constants once, so this struct stays the block.
    additional_info("gpu_srgb_to_framebuffer_space"),
    do_static_compilation,
)]
pub struct FullscreenTonemap {
    /// Linear multiplier applied before the tone curve (`2^EV`).
    pub exposure: f32,
    /// True when the color attachment has an `*_SRGB` format.
    pub srgb_target: Bool32,
}

/// Copies `source_image` (sampler2D, set 0 binding 0) to the target, texel values unchanged (mip 0).
#[shader_info]
pub fn gpu_shader_fullscreen_blit() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_fullscreen_blit")
        .sampler(0, ImageType::Float2D, "source_image", Frequency::Pass)
        .fragment_out(0, Type::Vec4, "frag_color")
        .fragment_source("fullscreen/blit.frag.glsl")
        .additional_info("gpu_fullscreen")
        .do_static_compilation(true)
}

/// Color grading of the display target's own pixels: `scene_color` is the target's color under the fragment
/// (`subpass_in` 0), written back desaturated by `saturation` (push constant; 1 keeps the color) and darkened
/// toward the corners by `vignette` (0: none). Where the device
/// has dynamic-rendering local read the pass runs in place, in the rendering that drew the target, after a
/// by-region barrier (`scene_color_input` is an input attachment); elsewhere `scene_color_input` is a
/// sampler2D (set 0 binding 0) the host binds the finished target to, and the pass draws into another target.
#[shader_info]
pub fn gpu_shader_fullscreen_grade() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_fullscreen_grade")
        .subpass_in(0, Type::Vec4, "scene_color")
        .push_constant(Type::Float, "saturation")
        .push_constant(Type::Float, "vignette")
        .fragment_out(0, Type::Vec4, "frag_color")
        .fragment_source("fullscreen/grade.frag.glsl")
        .additional_info("gpu_fullscreen")
        .do_static_compilation(true)
}
