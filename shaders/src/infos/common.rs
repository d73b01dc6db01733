//! Building blocks: non-compilable infos and stage interfaces that the compilable infos reuse through
//! `additional_info` / `vertex_out`.

use shader_info::{
    BuiltinBits, Frequency, ShaderCreateInfo, StageInterfaceInfo, Type, register_interface,
    shader_info,
};

/// `ModelViewProjectionMatrix` (mat4) in push constants: object to clip space.
#[shader_info]
pub fn gpu_mvp() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_mvp").push_constant(Type::Mat4, "ModelViewProjectionMatrix")
}

/// `ModelMatrix` (mat4) in push constants: object to world space, per draw.
#[shader_info]
pub fn gpu_modelmat() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_modelmat").push_constant(Type::Mat4, "ModelMatrix")
}

/// `srgb_target` (bool, 4 bytes) in push constants: true when the color attachment has an `*_SRGB` format. Needed by
/// `common/framebuffer.glsl` (`srgb_to_framebuffer_space`, `linear_to_framebuffer_space`).
#[shader_info]
pub fn gpu_srgb_to_framebuffer_space() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_srgb_to_framebuffer_space").push_constant(Type::Bool, "srgb_target")
}

/// The per-view uniforms: [`ViewData`](super::structs::ViewData) as `view`, set 0 (pass), binding 0.
#[shader_info]
pub fn gpu_view_uniforms() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_view_uniforms").uniform_buf(0, "ViewData", "view", Frequency::Pass)
}

/// A full-viewport triangle from `gl_VertexIndex` (draw 3 vertices, no vertex buffer) passing `uv_interp`
/// ((0, 0) top-left, (1, 1) bottom-right). Define `FULLSCREEN_DEPTH` to place it at another depth than 0.
/// The triangle is clockwise in Vulkan's framebuffer coordinates: draw with culling off (or front face clockwise).
#[shader_info]
pub fn gpu_fullscreen() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_fullscreen")
        .vertex_out(&fullscreen_iface())
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("fullscreen/fullscreen.vert.glsl")
}

/// `uv_interp` of the fullscreen triangle (linear in screen space).
pub fn fullscreen_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("fullscreen_iface", "").no_perspective(Type::Vec2, "uv_interp")
}
register_interface!(fullscreen_iface);

/// A per-vertex color `finalColor`, interpolated across the primitive.
pub fn smooth_color_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("smooth_color_iface", "").smooth(Type::Vec4, "finalColor")
}
register_interface!(smooth_color_iface);

/// A per-primitive color `finalColor`, taken from the provoking vertex.
pub fn flat_color_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("flat_color_iface", "").flat(Type::Vec4, "finalColor")
}
register_interface!(flat_color_iface);

/// Texture coordinates `uv_interp` of 2D image shaders.
pub fn image_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("image_iface", "").smooth(Type::Vec2, "uv_interp")
}
register_interface!(image_iface);
