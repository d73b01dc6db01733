//! Typed push-constant blocks of the builder-style infos: `#[repr(C)]` structs whose std430 layout is proven at
//! compile time (`#[derive(ShaderStruct)]`) and checked against each info's pipeline plan
//! ([`shader_info::PipelinePlan::push_constant_problems`], run by the library's tests and by [`crate::demo`] before use).
//! Upload one with `bytemuck::bytes_of`. The derive-style infos (`ComputePattern`, `FullscreenTonemap`, …) are
//! their own push blocks.
//!
//! Members keep the GLSL names of the declarations (`ModelViewProjectionMatrix`), so the fields do too.
#![allow(non_snake_case)]

use glam::{Mat4, Vec2, Vec4};
use shader_info::{Bool32, Diagnostic, Pad, PipelinePlan, Registry, ShaderStruct};

/// `gpu_shader_2D_flat_color`, `gpu_shader_2D_smooth_color`, `gpu_shader_text`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct MvpSrgbPush {
    pub ModelViewProjectionMatrix: Mat4,
    /// True when the color attachment has an `*_SRGB` format.
    pub srgb_target: Bool32,
    pub _pad: Pad<12>,
}

/// `gpu_shader_2D_uniform_color`, `gpu_shader_2D_image_color`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct ColorMvpSrgbPush {
    /// sRGB color (uniform color) or tint (image color), straight alpha.
    pub color: Vec4,
    pub ModelViewProjectionMatrix: Mat4,
    pub srgb_target: Bool32,
    pub _pad: Pad<12>,
}

/// `gpu_shader_2D_image`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct MvpPush {
    pub ModelViewProjectionMatrix: Mat4,
}

/// `gpu_shader_2D_image_rect_color`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct ImageRectPush {
    /// `(x, y, width, height)` in the space the matrix maps from.
    pub rect: Vec4,
    /// `(u0, v0, u1, v1)` of the texture.
    pub uv_rect: Vec4,
    /// sRGB tint.
    pub color: Vec4,
    pub ModelViewProjectionMatrix: Mat4,
    pub srgb_target: Bool32,
    pub _pad: Pad<12>,
}

/// `gpu_shader_2D_point_round`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct PointRoundPush {
    /// sRGB color, straight alpha.
    pub color: Vec4,
    /// Diameter in framebuffer pixels.
    pub point_size: f32,
    pub _pad0: Pad<12>,
    pub ModelViewProjectionMatrix: Mat4,
    pub srgb_target: Bool32,
    pub _pad1: Pad<12>,
}

/// `gpu_shader_2D_point_quad_round`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct PointQuadRoundPush {
    /// sRGB color, straight alpha.
    pub color: Vec4,
    /// Size of the framebuffer in pixels.
    pub viewport_size: Vec2,
    /// Diameter in framebuffer pixels.
    pub point_size: f32,
    pub _pad0: Pad<4>,
    pub ModelViewProjectionMatrix: Mat4,
    pub srgb_target: Bool32,
    pub _pad1: Pad<12>,
}

/// `gpu_shader_2D_widget_base`: 272 bytes, so the block is spilled to a storage buffer (the same bytes, pushed
/// the same way).
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct WidgetPush {
    /// See `gpu_shader_2D_widget_base`: rect, (radius, outline, shade top, shade bottom), inner and outline color.
    pub parameters: [Vec4; 12],
    pub ModelViewProjectionMatrix: Mat4,
    pub srgb_target: Bool32,
    pub _pad: Pad<12>,
}

/// `gpu_shader_forward_lit`, `gpu_shader_3D_transparent`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct ForwardLitPush {
    /// Linear albedo and alpha.
    pub base_color: Vec4,
    /// Blinn-Phong exponent.
    pub shininess: f32,
    pub _pad: Pad<12>,
    /// Object to world space.
    pub ModelMatrix: Mat4,
}

/// `gpu_shader_3D_depth_only`.
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
pub struct ModelPush {
    /// Object to world space.
    pub ModelMatrix: Mat4,
}

/// Checks every typed block against the plan of each info it is declared for: the problems found (empty when
/// every struct is its info's block).
pub fn typed_block_problems(registry: &Registry) -> Vec<Diagnostic> {
    fn check<T: shader_info::ShaderType>(registry: &Registry, info: &str) -> Vec<Diagnostic> {
        match registry.validated(info) {
            Ok(v) => PipelinePlan::new(&v, registry).push_constant_problems::<T>(registry),
            Err(d) => d,
        }
    }
    [
        check::<MvpSrgbPush>(registry, "gpu_shader_2D_flat_color"),
        check::<MvpSrgbPush>(registry, "gpu_shader_2D_smooth_color"),
        check::<MvpSrgbPush>(registry, "gpu_shader_text"),
        check::<ColorMvpSrgbPush>(registry, "gpu_shader_2D_uniform_color"),
        check::<ColorMvpSrgbPush>(registry, "gpu_shader_2D_image_color"),
        check::<MvpPush>(registry, "gpu_shader_2D_image"),
        check::<ImageRectPush>(registry, "gpu_shader_2D_image_rect_color"),
        check::<PointRoundPush>(registry, "gpu_shader_2D_point_round"),
        check::<PointQuadRoundPush>(registry, "gpu_shader_2D_point_quad_round"),
        check::<WidgetPush>(registry, "gpu_shader_2D_widget_base"),
        check::<ForwardLitPush>(registry, "gpu_shader_forward_lit"),
        check::<ForwardLitPush>(registry, "gpu_shader_3D_transparent"),
        check::<ModelPush>(registry, "gpu_shader_3D_depth_only"),
    ]
    .concat()
}
