//! 3D shaders. They draw into the linear (HDR) scene target: colors are linear, and the tonemap pass converts the
//! result for display.
//!
//! Push-constant blocks list the info's own members first, then those of its `additional_info`s in order.
// Function names are the registered shader names, which keep the 2D/3D capitals of the established convention.
#![allow(non_snake_case)]

use super::common::{flat_color_iface, smooth_color_iface};
use shader_info::{
    Blend, BuiltinBits, CompareOp, DepthState, Frequency, ImageType, Qualifier, ShaderCreateInfo,
    StageInterfaceInfo, Topology, Type, shader_info,
};

/// One linear color for the whole draw. Vertex buffer: `pos` (vec3) at 0. Push: `color`,
/// `ModelViewProjectionMatrix`.
#[shader_info]
pub fn gpu_shader_3D_uniform_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_uniform_color")
        .vertex_in(0, Type::Vec3, "pos")
        .push_constant(Type::Vec4, "color")
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("3d/position.vert.glsl")
        .fragment_source("3d/uniform_color.frag.glsl")
        .additional_info("gpu_mvp")
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// Per-vertex linear colors, one per primitive (provoking vertex). Vertex buffer: `pos` (vec3) at 0, `col` (vec4)
/// at 1. Push: `ModelViewProjectionMatrix`.
#[shader_info]
pub fn gpu_shader_3D_flat_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_flat_color")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in(1, Type::Vec4, "col")
        .vertex_out(&flat_color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("3d/color.vert.glsl")
        .fragment_source("3d/color.frag.glsl")
        .additional_info("gpu_mvp")
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// Per-vertex linear colors, interpolated. Same inputs as `gpu_shader_3D_flat_color`.
#[shader_info]
pub fn gpu_shader_3D_smooth_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_smooth_color")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in(1, Type::Vec4, "col")
        .vertex_out(&smooth_color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("3d/color.vert.glsl")
        .fragment_source("3d/color.frag.glsl")
        .additional_info("gpu_mvp")
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// Lines with a width in pixels, anti-aliased, expanded in the vertex stage from a storage buffer (no vertex buffer,
/// no geometry stage). Set 1 (batch) binding 0: `points[]` ([`PolylinePoint`](super::structs::PolylinePoint)),
/// read as one strip; draw 6 × (points − 1) vertices, culling off, alpha blending on. Push: `viewport_size`
/// (pixels), `line_width` (pixels), `ModelViewProjectionMatrix`.
#[shader_info]
pub fn gpu_shader_3D_polyline() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_polyline")
        .storage_buf(
            0,
            Qualifier::Read,
            "PolylinePoint",
            "points[]",
            Frequency::Batch,
        )
        .push_constant(Type::Vec2, "viewport_size")
        .push_constant(Type::Float, "line_width")
        .vertex_out(&polyline_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("3d/polyline.vert.glsl")
        .fragment_source("3d/polyline.frag.glsl")
        .additional_info("gpu_mvp")
        .blend(Blend::Alpha)
        .depth(DepthState::test(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// Signed distance from the line's center in pixels (linear in screen space) and the interpolated color.
fn polyline_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("polyline_iface", "")
        .no_perspective(Type::Float, "edge_distance")
        .smooth(Type::Vec4, "line_color")
}

/// Depth prepass / shadow casting: depth only, no color output. Vertex buffer: `pos` (vec3) at 0. `view`
/// ([`ViewData`](super::structs::ViewData)) at set 0 binding 0. Push: `ModelMatrix`. Its `gl_Position` is invariant
/// and computed like `gpu_shader_forward_lit`'s, so the forward pass can test depth with EQUAL.
#[shader_info]
pub fn gpu_shader_3D_depth_only() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_depth_only")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_source("3d/depth_only.vert.glsl")
        .fragment_source("3d/depth_only.frag.glsl")
        .additional_info("gpu_view_uniforms")
        .additional_info("gpu_modelmat")
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// Forward shading with a sun light and hemispherical ambient into a linear HDR target. Vertex buffer: `pos`
/// (vec3) at 0, `nor` (vec3) at 1. `view` ([`ViewData`](super::structs::ViewData)) at set 0 binding 0. Per-object
/// push constants: `base_color` (linear albedo, alpha), `shininess` (Blinn-Phong exponent), `ModelMatrix`.
#[shader_info]
pub fn gpu_shader_forward_lit() -> ShaderCreateInfo {
    forward_lit("gpu_shader_forward_lit")
        .early_fragment_test(true)
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
}

/// The transparent technique of the forward shader: the same interface and code, drawn after the opaque objects
/// with straight alpha blending (`base_color.a` is the coverage) and a depth test that does not write, so what
/// lies behind stays visible and later transparent surfaces are not hidden by it.
#[shader_info]
pub fn gpu_shader_3D_transparent() -> ShaderCreateInfo {
    forward_lit("gpu_shader_3D_transparent")
        .blend(Blend::Alpha)
        .depth(DepthState::test(CompareOp::LessOrEqual))
}

/// The interface and sources both forward techniques share; each adds its render state.
fn forward_lit(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in(1, Type::Vec3, "nor")
        .vertex_out(&lit_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .push_constant(Type::Vec4, "base_color")
        .push_constant(Type::Float, "shininess")
        .builtins(BuiltinBits::FRONT_FACING)
        .vertex_source("3d/forward_lit.vert.glsl")
        .fragment_source("3d/forward_lit.frag.glsl")
        .additional_info("gpu_view_uniforms")
        .additional_info("gpu_modelmat")
        .do_static_compilation(true)
}

/// World-space position and normal for lighting.
fn lit_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("lit_iface", "")
        .smooth(Type::Vec3, "world_position")
        .smooth(Type::Vec3, "world_normal")
}

/// The environment cube map behind everything: a fullscreen triangle at depth 1 (draw 3 vertices; depth test
/// LESS_OR_EQUAL, depth writes off). `view` at set 0 binding 0, `environment` (samplerCube) at set 0 binding 1.
#[shader_info]
pub fn gpu_shader_skybox() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_skybox")
        .define_value("FULLSCREEN_DEPTH", "1.0")
        .sampler(1, ImageType::FloatCube, "environment", Frequency::Pass)
        .fragment_out(0, Type::Vec4, "frag_color")
        .fragment_source("3d/skybox.frag.glsl")
        .additional_info("gpu_fullscreen")
        .additional_info("gpu_view_uniforms")
        .depth(DepthState::test(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}

/// The particles of `gpu_compute_particles` as soft round point sprites (point-list topology, draw
/// `particle_count` points, no vertex buffer). Set 1 (batch) binding 0: `particles[]`
/// ([`Particle`](super::structs::Particle)). Push: `point_size` (pixels at clip w = 1), `ModelViewProjectionMatrix`.
#[shader_info]
pub fn gpu_shader_3D_particles() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_3D_particles")
        .storage_buf(
            0,
            Qualifier::Read,
            "Particle",
            "particles[]",
            Frequency::Batch,
        )
        .push_constant(Type::Float, "point_size")
        .vertex_out(&smooth_color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .builtins(BuiltinBits::VERTEX_ID | BuiltinBits::POINT_SIZE | BuiltinBits::POINT_COORD)
        .vertex_source("3d/particles.vert.glsl")
        .fragment_source("3d/particles.frag.glsl")
        .additional_info("gpu_mvp")
        .topology(Topology::PointList)
        .blend(Blend::Additive)
        .depth(DepthState::test(CompareOp::LessOrEqual))
        .do_static_compilation(true)
}
