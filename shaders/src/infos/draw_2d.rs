//! 2D (UI) shaders. Positions go through `ModelViewProjectionMatrix` (usually pixels to clip space); colors are
//! sRGB with straight alpha and are converted to the framebuffer's space (`gpu_srgb_to_framebuffer_space`).
//!
//! Push-constant blocks list the info's own members first, then those of its `additional_info`s in order.
//! Quads built in the vertex stage are wound by the matrix's handedness: draw 2D with culling off.
// Function names are the registered shader names, which keep the 2D/3D capitals of the established convention.
#![allow(non_snake_case)]

use super::common::{flat_color_iface, image_iface, smooth_color_iface};
use shader_info::{
    Blend, BuiltinBits, Frequency, ImageType, Qualifier, SamplerState, ShaderCreateInfo,
    StageInterfaceInfo, Topology, Type, shader_info,
};

/// One color for the whole draw. Vertex buffer: `pos` (vec2) at location 0. Push: `color` (vec4, sRGB),
/// `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_2D_uniform_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_uniform_color")
        .vertex_in(0, Type::Vec2, "pos")
        .push_constant(Type::Vec4, "color")
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("2d/position.vert.glsl")
        .fragment_source("2d/uniform_color.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// Per-vertex colors, one per primitive (provoking vertex). Vertex buffer: `pos` (vec2) at 0, `col` (vec4, sRGB)
/// at 1. Push: `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_2D_flat_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_flat_color")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec4, "col")
        .vertex_out(&flat_color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("2d/color.vert.glsl")
        .fragment_source("2d/color.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// Per-vertex colors, interpolated. Same inputs as `gpu_shader_2D_flat_color`.
#[shader_info]
pub fn gpu_shader_2D_smooth_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_smooth_color")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec4, "col")
        .vertex_out(&smooth_color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("2d/color.vert.glsl")
        .fragment_source("2d/color.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// Building block of the textured 2D shaders: vertex buffer `pos` (vec2) at 0 and `texCoord` (vec2) at 1, the
/// texture `image` (sampler2D) at set 1 (batch) binding 0, `ModelViewProjectionMatrix`.
#[shader_info]
pub fn gpu_shader_2D_image_common() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_image_common")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec2, "texCoord")
        .vertex_out(&image_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .sampler(0, ImageType::Float2D, "image", Frequency::Batch)
        .vertex_source("2d/image.vert.glsl")
        .additional_info("gpu_mvp")
}

/// A textured 2D mesh, texels written as sampled (see `gpu_shader_2D_image_common` for the inputs).
#[shader_info]
pub fn gpu_shader_2D_image() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_image")
        .fragment_source("2d/image.frag.glsl")
        .additional_info("gpu_shader_2D_image_common")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// A textured 2D mesh tinted by `color` (vec4, sRGB). Push: `color`, `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_2D_image_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_image_color")
        .push_constant(Type::Vec4, "color")
        .fragment_source("2d/image_color.frag.glsl")
        .additional_info("gpu_shader_2D_image_common")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// One tinted, textured rectangle without vertex buffers: draw 6 vertices. Push: `rect` (x, y, width, height),
/// `uv_rect` (u0, v0, u1, v1), `color` (sRGB tint), `ModelViewProjectionMatrix`, `srgb_target` (116 bytes).
/// Texture `image` at set 1 binding 0.
#[shader_info]
pub fn gpu_shader_2D_image_rect_color() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_image_rect_color")
        .push_constant(Type::Vec4, "rect")
        .push_constant(Type::Vec4, "uv_rect")
        .push_constant(Type::Vec4, "color")
        .vertex_out(&image_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .sampler(0, ImageType::Float2D, "image", Frequency::Batch)
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("2d/image_rect.vert.glsl")
        .fragment_source("2d/image_color.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// Text: glyph quads read from a storage buffer, no vertex buffer; draw 6 vertices per glyph.
/// Set 1 (batch): binding 0 `glyph_atlas` (sampler2D, coverage in red), binding 1 `glyphs[]`
/// ([`GlyphQuad`](super::structs::GlyphQuad), std430). Push: `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_text() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_text")
        .vertex_out(&text_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        // Glyph coverage is read texel for texel: the declaration fixes the sampler (immutable on Vulkan).
        .sampler_with_state(
            0,
            ImageType::Float2D,
            "glyph_atlas",
            Frequency::Batch,
            SamplerState::nearest(),
        )
        .storage_buf(
            1,
            Qualifier::Read,
            "GlyphQuad",
            "glyphs[]",
            Frequency::Batch,
        )
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("2d/text.vert.glsl")
        .fragment_source("2d/text.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// What a glyph quad passes to the fragment stage.
fn text_iface() -> shader_info::StageInterfaceInfo {
    shader_info::StageInterfaceInfo::new("text_iface", "")
        .flat(Type::Vec4, "glyph_color")
        .smooth(Type::Vec2, "glyph_uv")
}

/// Round, anti-aliased points (draw with the point-list topology). Vertex buffer: `pos` (vec2) at 0. Push: `color`
/// (vec4, sRGB), `point_size` (diameter in pixels), `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_2D_point_round() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_point_round")
        .vertex_in(0, Type::Vec2, "pos")
        .push_constant(Type::Vec4, "color")
        .push_constant(Type::Float, "point_size")
        .fragment_out(0, Type::Vec4, "frag_color")
        .builtins(BuiltinBits::POINT_SIZE | BuiltinBits::POINT_COORD)
        .vertex_source("2d/point_round.vert.glsl")
        .fragment_source("2d/point_round.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .topology(Topology::PointList)
        .do_static_compilation(true)
}

/// Round, anti-aliased points that every backend can draw: point `gl_VertexIndex / 6` of `points[]` expanded to a
/// square in the vertex stage (WebGPU has no `gl_PointSize`, Metal and D3D no point sprites above one pixel), the
/// disc cut in the fragment stage. Draw 6 vertices per point, triangle list. Set 1 (batch): binding 0 `points[]`
/// (vec2 centers, std430). Push: `color` (vec4, sRGB), `viewport_size` (framebuffer pixels), `point_size`
/// (diameter in framebuffer pixels), `ModelViewProjectionMatrix`, `srgb_target`.
#[shader_info]
pub fn gpu_shader_2D_point_quad_round() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_point_quad_round")
        .vertex_out(&point_quad_iface())
        .storage_buf(0, Qualifier::Read, "vec2", "points[]", Frequency::Batch)
        .push_constant(Type::Vec4, "color")
        .push_constant(Type::Vec2, "viewport_size")
        .push_constant(Type::Float, "point_size")
        .fragment_out(0, Type::Vec4, "frag_color")
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("2d/point_quad_round.vert.glsl")
        .fragment_source("2d/point_quad_round.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}

/// Where a fragment lies in its point's disc: 1 at the disc's edge.
fn point_quad_iface() -> shader_info::StageInterfaceInfo {
    shader_info::StageInterfaceInfo::new("point_quad_iface", "").smooth(Type::Vec2, "disc_coord")
}

fn widget_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("gpu_widget_iface", "")
        .no_perspective(Type::Vec2, "local_pos")
        .flat(Type::Vec2, "half_size")
}

/// A UI widget box in the way of Blender's `gpu_shader_2D_widget_base`: a rounded rectangle with an outline and
/// a vertical shade, all from `parameters[12]` in push constants; no vertex buffer (draw 6 vertices). Its push
/// block (`parameters[12]`, `ModelViewProjectionMatrix`, `srgb_target`: 272 bytes) is over the 128 bytes every
/// device takes, so it is spilled to a storage buffer at set 3 binding 0 — reported, and pushed like any block.
///
/// `parameters`: `[0]` rect (x, y, width, height), `[1]` (corner radius, outline width, shade top, shade bottom),
/// `[2]` inner color, `[3]` outline color (sRGB, straight alpha); the rest are free for variants.
#[shader_info]
pub fn gpu_shader_2D_widget_base() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_shader_2D_widget_base")
        .push_constant_array(Type::Vec4, "parameters", 12)
        .vertex_out(&widget_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .builtins(BuiltinBits::VERTEX_ID)
        .vertex_source("2d/widget_base.vert.glsl")
        .fragment_source("2d/widget_base.frag.glsl")
        .additional_info("gpu_mvp")
        .additional_info("gpu_srgb_to_framebuffer_space")
        .blend(Blend::Alpha)
        .do_static_compilation(true)
}
