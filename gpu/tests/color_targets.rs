//! A pipeline with more color attachments than its fragment outputs (`color_format_overrides` past the outputs):
//! it matches a pass with that many attachments, and leaves the ones no output writes as they are — on both
//! backends, validation on (the overrides past the outputs were dropped, so such a pipeline did not match its
//! pass and wgpu dropped the draw).

use shader_info::{Registry, ShaderCreateInfo, Type};
use shader_info_gpu::library::LibraryOptions;

fn registry(root: &std::path::Path) -> Registry {
    std::fs::write(
        root.join("ct.vert.glsl"),
        "void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("ct.frag.glsl"),
        "void main() { color = vec4(1.0, 0.0, 0.0, 1.0); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("ct_one_output")
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("ct.vert.glsl")
            .fragment_source("ct.frag.glsl"),
    );
    reg
}

#[test]
fn ash_makes_the_attachments_the_overrides_name() {
    use shader_info_gpu::vk::{GraphicsOptions, ShaderLibrary, raw};
    let Some(ctx) = shader_info_gpu::vk::testing::test_context() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let opts = GraphicsOptions {
        color_format_overrides: vec![(2, raw::Format::R32_UINT)],
        ..Default::default()
    };
    let p = lib.graphics_pipeline("ct_one_output", &opts).unwrap();
    assert_eq!(
        p.color_formats(),
        [
            raw::Format::R8G8B8A8_UNORM,
            raw::Format::UNDEFINED,
            raw::Format::R32_UINT
        ]
    );
    drop((p, lib));
    shader_info_gpu::vk::testing::assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_draws_into_the_written_attachment_and_keeps_the_other() {
    use shader_info_gpu::wgpu::raw as w;
    use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        WgpuLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let opts = GraphicsOptions {
        color_format: w::TextureFormat::Rgba8Unorm,
        color_format_overrides: vec![(1, w::TextureFormat::Rgba8Unorm)],
        ..Default::default()
    };
    let p = lib.graphics_pipeline("ct_one_output", &opts).unwrap();
    let target = |label| {
        texture(
            &ctx,
            label,
            w::TextureUsages::RENDER_ATTACHMENT | w::TextureUsages::COPY_SRC,
        )
    };
    let (written, kept) = (target("written"), target("kept"));
    let views = [
        written.create_view(&Default::default()),
        kept.create_view(&Default::default()),
    ];
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let attachments: Vec<Option<w::RenderPassColorAttachment>> = views
            .iter()
            .map(|view| {
                Some(w::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: w::Operations {
                        load: w::LoadOp::Clear(w::Color {
                            r: 0.0,
                            g: 0.0,
                            b: 1.0,
                            a: 1.0,
                        }),
                        store: w::StoreOp::Store,
                    },
                })
            })
            .collect();
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &attachments,
            ..Default::default()
        });
        pass.set_pipeline(&p.pipeline);
        pass.draw(0..3, 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    let red = ctx.read_texture(&written).unwrap();
    let blue = ctx.read_texture(&kept).unwrap();
    assert!(
        red.chunks(4).all(|px| px == [255, 0, 0, 255]),
        "{:?}",
        &red[..4]
    );
    assert!(
        blue.chunks(4).all(|px| px == [0, 0, 255, 255]),
        "{:?}",
        &blue[..4]
    );
    drop((p, lib));
    shader_info_gpu::wgpu::testing::assert_quiet(&ctx);
}

#[test]
fn a_read_back_wgpu_would_refuse_is_an_error_not_zeros() {
    use shader_info_gpu::wgpu::raw as w;
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let buffer = |usage, size| {
        ctx.device.create_buffer(&w::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let e = ctx
        .read_buffer(&buffer(w::BufferUsages::STORAGE, 16))
        .unwrap_err();
    assert!(e.to_string().contains("COPY_SRC"), "{e}");
    let e = ctx
        .read_buffer(&buffer(
            w::BufferUsages::COPY_SRC | w::BufferUsages::COPY_DST,
            6,
        ))
        .unwrap_err();
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    let texture = texture(&ctx, "sampled only", w::TextureUsages::TEXTURE_BINDING);
    let e = ctx.read_texture(&texture).unwrap_err();
    assert!(e.to_string().contains("COPY_SRC"), "{e}");
    shader_info_gpu::wgpu::testing::assert_quiet(&ctx);
}

/// A 4×4 RGBA8 texture of `usage`.
fn texture(
    ctx: &shader_info_gpu::wgpu::WgpuContext,
    label: &str,
    usage: shader_info_gpu::wgpu::raw::TextureUsages,
) -> shader_info_gpu::wgpu::raw::Texture {
    use shader_info_gpu::wgpu::raw as w;
    ctx.device.create_texture(&w::TextureDescriptor {
        label: Some(label),
        size: w::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format: w::TextureFormat::Rgba8Unorm,
        usage,
        view_formats: &[],
    })
}
