//! What a renderer gives at pipeline creation meets the rules the declaration meets: a render state given whole
//! (`GraphicsOptions::state`), color formats at locations past the device's attachments, a depth bias WebGPU
//! cannot take. Each is refused naming the option, on both backends, before the driver or wgpu sees it (a stencil
//! test without a reference drew with 0; a format at `u32::MAX` aborted the process allocating the attachment list).

use shader_info::{
    CompareOp, DepthBias, Registry, RenderState, ShaderCreateInfo, StencilFace, StencilOp,
    StencilState, Topology, Type,
};
use shader_info_gpu::library::LibraryOptions;

fn registry(root: &std::path::Path) -> Registry {
    std::fs::write(
        root.join("po.vert.glsl"),
        "void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("po.frag.glsl"),
        "void main() { color = vec4(1.0); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("po_plain")
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("po.vert.glsl")
            .fragment_source("po.frag.glsl"),
    );
    reg
}

/// A stencil test whose reference nothing sets (not declared, not dynamic).
fn stencil_without_reference() -> RenderState {
    let face = StencilFace::new(CompareOp::Equal, StencilOp::Keep);
    RenderState {
        stencil: Some(StencilState {
            front: face,
            back: face,
            read_mask: 0xff,
            write_mask: 0,
            reference: None,
        }),
        ..RenderState::default()
    }
}

/// Patches without tessellation stages, and a line width that is no number.
fn impossible_state() -> RenderState {
    RenderState {
        topology: Topology::PatchList,
        line_width_bits: f32::NAN.to_bits(),
        ..RenderState::default()
    }
}

fn assert_refused(text: &str, words: &[&str]) {
    for w in words {
        assert!(text.contains(w), "`{w}` in:\n{text}");
    }
}

#[test]
fn ash_checks_a_given_state_and_override_locations() {
    use shader_info_gpu::vk::{GraphicsOptions, ShaderLibrary, raw};
    let Some(ctx) = shader_info_gpu::vk::testing::test_context() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let with_stencil = GraphicsOptions {
        depth_format: Some(raw::Format::D32_SFLOAT_S8_UINT),
        state: Some(stencil_without_reference()),
        ..Default::default()
    };
    let Err(e) = lib.graphics_pipeline("po_plain", &with_stencil) else {
        panic!("a stencil test without a reference is refused");
    };
    assert_refused(
        &e.to_string(),
        &[
            "without a reference value",
            "GraphicsOptions::state",
            "po_plain",
        ],
    );
    let impossible = GraphicsOptions {
        state: Some(impossible_state()),
        ..Default::default()
    };
    let e = lib
        .graphics_pipeline("po_plain", &impossible)
        .err()
        .unwrap();
    assert_refused(
        &e.to_string(),
        &["patch lists without tessellation stages", "line width NaN"],
    );
    let max = ctx.properties().limits.max_color_attachments;
    for location in [max, u32::MAX] {
        let past = GraphicsOptions {
            color_format_overrides: vec![(location, raw::Format::R8G8B8A8_UNORM)],
            ..Default::default()
        };
        let e = lib.graphics_pipeline("po_plain", &past).err().unwrap();
        assert_refused(
            &e.to_string(),
            &[
                &format!("location {location}"),
                "GraphicsOptions::color_format_overrides",
            ],
        );
    }
    // The declared state, and a given one that keeps the rules, still make pipelines.
    lib.graphics_pipeline("po_plain", &GraphicsOptions::default())
        .unwrap();
    let given = GraphicsOptions {
        state: Some(RenderState::default()),
        ..Default::default()
    };
    lib.graphics_pipeline("po_plain", &given).unwrap();
    drop(lib);
    shader_info_gpu::vk::testing::assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_checks_a_given_state_override_locations_and_the_depth_bias() {
    use shader_info_gpu::wgpu::raw as w;
    use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        WgpuLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let depth = Some(w::TextureFormat::Depth24PlusStencil8);
    let with_stencil = GraphicsOptions {
        depth_format: depth,
        state: Some(stencil_without_reference()),
        ..Default::default()
    };
    let e = lib
        .graphics_pipeline("po_plain", &with_stencil)
        .err()
        .unwrap();
    assert_refused(
        &e.to_string(),
        &["without a reference value", "GraphicsOptions::state"],
    );
    let past = GraphicsOptions {
        color_format_overrides: vec![(u32::MAX, w::TextureFormat::Rgba8Unorm)],
        ..Default::default()
    };
    let e = lib.graphics_pipeline("po_plain", &past).err().unwrap();
    assert_refused(&e.to_string(), &["location 4294967295"]);
    // Vulkan takes a fractional constant bias; WebGPU a whole number of units (it was rounded, silently).
    let biased = |constant| GraphicsOptions {
        depth_format: depth,
        state: Some(RenderState {
            depth_bias: Some(DepthBias {
                constant,
                slope: 1.0,
                clamp: 0.0,
            }),
            ..RenderState::default()
        }),
        ..Default::default()
    };
    let e = lib
        .graphics_pipeline("po_plain", &biased(1.25))
        .err()
        .unwrap();
    assert_refused(
        &e.to_string(),
        &["constant depth bias of 1.25", "whole number"],
    );
    lib.graphics_pipeline("po_plain", &biased(2.0)).unwrap();
    drop(lib);
    shader_info_gpu::wgpu::testing::assert_quiet(&ctx);
}
