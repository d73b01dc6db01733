//! Graphics pipelines with dynamic rendering: render offscreen, read back, check known pixels.

mod vk_support;

use shader_info::{
    Blend, ColorWrites, CompareOp, CullMode, DepthState, FrontFace, MemoryLoader, Registry,
    RenderState, ShaderCreateInfo, Stage, StageInterfaceInfo, Type, VertexArrangement,
    VertexFormat,
};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{
    Buffer, GraphicsOptions, GraphicsPipeline, LayoutCache, PipelineLayout, describe_layout, raw,
};
use std::sync::Arc;
use vk_support::{SIZE, clear_rgba8, module, render, validated};

/// Two triangles covering the middle half of the target: x, y in [-0.5, 0.5].
use vk_support::HALF_QUAD as QUAD;

fn registry() -> (Registry, MemoryLoader) {
    let mut reg = Registry::new();
    let iface = StageInterfaceInfo::new("test_v2f", "").flat(Type::Vec4, "v_color");
    reg.add_info(
        ShaderCreateInfo::new("test_uniform_color")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .push_constant(Type::Vec4, "color")
            .vertex_source("uniform_color.vert.glsl")
            .fragment_source("uniform_color.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_vertex_color")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_in(1, Type::Vec4, "col")
            .vertex_out(&iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("vertex_color.vert.glsl")
            .fragment_source("vertex_color.frag.glsl"),
    );
    // The same shaders reading packed vertex data: 16-bit normalized positions, 8-bit or 10:10:10:2 colors.
    for (name, color) in [
        ("test_packed_u8", VertexFormat::Unorm8x4),
        ("test_packed_1010102", VertexFormat::Unorm10_10_10_2),
    ] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .vertex_in_packed(0, Type::Vec2, VertexFormat::Snorm16x2, "pos")
                .vertex_in_packed(1, Type::Vec4, color, "col")
                .vertex_out(&iface)
                .fragment_out(0, Type::Vec4, "frag_color")
                .vertex_source("vertex_color.vert.glsl")
                .fragment_source("vertex_color.frag.glsl"),
        );
    }
    // The same shaders with declared render state: what each pipeline draws follows from the declaration alone.
    let uniform = |name: &str| {
        ShaderCreateInfo::new(name)
            .additional_info("test_uniform_color")
            .vertex_source("uniform_color.vert.glsl")
            .fragment_source("uniform_color.frag.glsl")
    };
    reg.add_info(uniform("test_alpha_blend").blend(Blend::Alpha));
    reg.add_info(uniform("test_red_alpha_writes").color_writes(0, ColorWrites::R | ColorWrites::A));
    reg.add_info(uniform("test_cull_back").cull(CullMode::Back));
    reg.add_info(uniform("test_cull_front").cull(CullMode::Front));
    reg.add_info(
        uniform("test_cull_back_clockwise")
            .cull(CullMode::Back)
            .front_face(FrontFace::Clockwise),
    );
    reg.add_info(uniform("test_depth").depth(DepthState::test_write(CompareOp::Less)));
    let loader = MemoryLoader::default()
        .with(
            "uniform_color.vert.glsl",
            "void main() { gl_Position = vec4(pos, 0.0, 1.0); }",
        )
        .with(
            "uniform_color.frag.glsl",
            "void main() { frag_color = color; }",
        )
        .with(
            "vertex_color.vert.glsl",
            "void main() { v_color = col; gl_Position = vec4(pos, 0.0, 1.0); }",
        )
        .with(
            "vertex_color.frag.glsl",
            "void main() { frag_color = v_color; }",
        );
    (reg, loader)
}

fn pipeline(
    ctx: &shader_info_gpu::vk::VkContext,
    cache: &LayoutCache,
    name: &str,
    opts: &GraphicsOptions,
) -> GraphicsPipeline {
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, name);
    let vs = module(ctx, &reg, &loader, &info, Stage::Vertex);
    let fs = module(ctx, &reg, &loader, &info, Stage::Fragment);
    let layout = Arc::new(PipelineLayout::new(ctx, cache, &describe_layout(&plan)).unwrap());
    GraphicsPipeline::new(
        ctx,
        &plan,
        &[(Stage::Vertex, &vs), (Stage::Fragment, &fs)],
        layout,
        opts,
    )
    .unwrap()
}

fn check_quad(pixels: &[u8], inside: [u8; 4]) {
    let clear = clear_rgba8();
    for (x, y) in [(16, 16), (9, 9), (22, 22), (9, 22)] {
        assert_eq!(pixel(pixels, SIZE, x, y), inside, "inside at ({x}, {y})");
    }
    for (x, y) in [(0, 0), (7, 7), (31, 31), (24, 16), (16, 3)] {
        assert_eq!(pixel(pixels, SIZE, x, y), clear, "outside at ({x}, {y})");
    }
}

#[test]
fn a_uniform_color_quad_renders_over_the_clear_color() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let p = pipeline(
        &ctx,
        &cache,
        "test_uniform_color",
        &GraphicsOptions::default(),
    );
    assert_eq!(p.color_formats(), [raw::Format::R8G8B8A8_UNORM]);
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let color: [f32; 4] = [1.0, 0.2, 0.0, 1.0];
    let pixels = render(&ctx, &p, &[&vb], 6, bytemuck::cast_slice(&color));
    check_quad(&pixels, [255, 51, 0, 255]);
    drop((p, vb, cache));
    assert_no_validation_messages(&ctx);
}

#[test]
fn interleaved_and_per_attribute_vertex_layouts_render_the_same() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let color = [0.2f32, 1.0, 0.6, 1.0];
    // Interleaved: pos.xy, col.rgba per vertex, one buffer.
    let interleaved: Vec<f32> = QUAD
        .iter()
        .flat_map(|p| [p[0], p[1], color[0], color[1], color[2], color[3]])
        .collect();
    let p = pipeline(
        &ctx,
        &cache,
        "test_vertex_color",
        &GraphicsOptions::default(),
    );
    let vb = Buffer::with_data(&ctx, &interleaved, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let a = render(&ctx, &p, &[&vb], 6, &[]);
    check_quad(&a, [51, 255, 153, 255]);

    let opts = GraphicsOptions {
        vertex_layout: VertexArrangement::PerInput,
        ..Default::default()
    };
    let q = pipeline(&ctx, &cache, "test_vertex_color", &opts);
    let positions = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let colors =
        Buffer::with_data(&ctx, &[color; 6], raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let b = render(&ctx, &q, &[&positions, &colors], 6, &[]);
    assert_eq!(a, b);
    drop((p, q, vb, positions, colors, cache));
    assert_no_validation_messages(&ctx);
}

/// Packed vertex formats, declared with the info: the pipeline's vertex layout (offsets, stride, formats) follows
/// them, and 16-bit positions with 8-bit or 10:10:10:2 colors draw the pixels of the 32-bit float version.
#[test]
fn packed_vertex_formats_draw_what_the_float_version_draws() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let snorm = |v: f32| (v * 32767.0).round() as i16;
    let pos = |p: &[f32; 2]| {
        let mut b = snorm(p[0]).to_le_bytes().to_vec();
        b.extend(snorm(p[1]).to_le_bytes());
        b
    };
    // Color 0.2, 1.0, 0.6, 1.0: 8-bit 51, 255, 153, 255; 10-bit 205, 1023, 614 and 2-bit 3.
    let rgba8 = [51u8, 255, 153, 255];
    let packed_1010102: u32 = 205 | (1023 << 10) | (614 << 20) | (3 << 30);
    for (name, color) in [
        ("test_packed_u8", rgba8.to_vec()),
        ("test_packed_1010102", packed_1010102.to_le_bytes().to_vec()),
    ] {
        let (_, plan) = validated(&registry().0, name);
        let buffers = plan.vertex_buffers(VertexArrangement::Interleaved);
        assert_eq!(
            buffers[0].stride, 8,
            "{name}: 4 bytes of position, 4 of color"
        );
        let p = pipeline(&ctx, &cache, name, &GraphicsOptions::default());
        let bytes: Vec<u8> = QUAD
            .iter()
            .flat_map(|q| [pos(q), color.clone()].concat())
            .collect();
        let vb = Buffer::with_data(&ctx, &bytes, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
        let pixels = render(&ctx, &p, &[&vb], 6, &[]);
        check_quad(&pixels, rgba8);
        drop((p, vb));
    }
    drop(cache);
    assert_no_validation_messages(&ctx);
}

#[test]
fn a_packed_format_the_input_cannot_read_is_an_error_saying_which_fits() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_bad_packed")
            .vertex_in_packed(0, Type::Vec4, VertexFormat::Uint8x4, "col")
            .vertex_in_packed(1, Type::UVec2, VertexFormat::Unorm16x2, "ids")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    let d = reg
        .validated("test_bad_packed")
        .expect_err("two wrong formats");
    let text = shader_info::render_all(&d);
    assert!(
        text.contains("`col`") && text.contains("use a float, normalized"),
        "{text}"
    );
    assert!(
        text.contains("`ids`") && text.contains("unsigned integer (Uint)"),
        "{text}"
    );
}

/// Renders `name` (an info with declared state over `test_uniform_color`) with push color `color`.
fn render_declared(name: &str, color: [f32; 4]) -> Vec<u8> {
    let ctx = test_context().expect("checked by the caller");
    let cache = LayoutCache::new(&ctx);
    let p = pipeline(&ctx, &cache, name, &GraphicsOptions::default());
    assert!(!p.state_overridden());
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let pixels = render(&ctx, &p, &[&vb], 6, bytemuck::cast_slice(&color));
    drop((p, vb, cache));
    assert_no_validation_messages(&ctx);
    pixels
}

fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 1)
}

#[test]
fn declared_alpha_blending_mixes_with_the_attachment() {
    if test_context().is_none() {
        return;
    }
    // (0.8, 0, 0, 0.25) over the clear (0, 0, 0.6, 1): rgb = src * 0.25 + dst * 0.75, a = 0.25 + 1 * 0.75.
    let pixels = render_declared("test_alpha_blend", [0.8, 0.0, 0.0, 0.25]);
    let inside = pixel(&pixels, SIZE, 16, 16);
    assert!(close(inside, [51, 0, 115, 255]), "{inside:?}");
    assert_eq!(pixel(&pixels, SIZE, 0, 0), clear_rgba8());
    // The same shader without declared state replaces the attachment.
    let opaque = render_declared("test_uniform_color", [0.8, 0.0, 0.0, 0.25]);
    assert!(close(pixel(&opaque, SIZE, 16, 16), [204, 0, 0, 64]));
}

#[test]
fn a_declared_write_mask_keeps_the_masked_channels() {
    if test_context().is_none() {
        return;
    }
    let pixels = render_declared("test_red_alpha_writes", [1.0, 1.0, 1.0, 1.0]);
    check_quad(&pixels, [255, 0, 153, 255]);
}

#[test]
fn declared_culling_follows_the_winding_and_the_front_face() {
    if test_context().is_none() {
        return;
    }
    // QUAD winds clockwise in framebuffer space (y down), so its triangles are back faces under the default
    // counter-clockwise front face.
    let color = [1.0, 0.2, 0.0, 1.0];
    let drawn = [255, 51, 0, 255];
    let culled = render_declared("test_cull_back", color);
    assert_eq!(
        pixel(&culled, SIZE, 16, 16),
        clear_rgba8(),
        "back faces culled"
    );
    check_quad(&render_declared("test_cull_front", color), drawn);
    check_quad(&render_declared("test_cull_back_clockwise", color), drawn);
}

#[test]
fn a_declared_depth_test_without_a_depth_attachment_is_refused_and_an_override_is_reported() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, "test_depth");
    let vs = module(&ctx, &reg, &loader, &info, Stage::Vertex);
    let fs = module(&ctx, &reg, &loader, &info, Stage::Fragment);
    let layout = Arc::new(PipelineLayout::new(&ctx, &cache, &describe_layout(&plan)).unwrap());
    let stages = [(Stage::Vertex, &vs), (Stage::Fragment, &fs)];
    let declared = GraphicsPipeline::new(
        &ctx,
        &plan,
        &stages,
        layout.clone(),
        &GraphicsOptions::default(),
    );
    let Err(err) = declared else {
        panic!("a depth test needs a depth attachment")
    };
    let text = err.to_string();
    assert!(
        text.contains("test_depth") && text.contains("depth"),
        "{text}"
    );
    assert!(
        text.contains("depth_format"),
        "the hint says what to do: {text}"
    );

    // An explicit override at pipeline creation still builds, and says so.
    let opts = GraphicsOptions {
        state: Some(RenderState::default()),
        ..Default::default()
    };
    let p = GraphicsPipeline::new(&ctx, &plan, &stages, layout, &opts).unwrap();
    assert!(p.state_overridden());
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let color: [f32; 4] = [1.0, 0.2, 0.0, 1.0];
    check_quad(
        &render(&ctx, &p, &[&vb], 6, bytemuck::cast_slice(&color)),
        [255, 51, 0, 255],
    );
    drop((p, vb, vs, fs, cache));
    assert_no_validation_messages(&ctx);
}
