//! A declared stencil reference on wgpu: a Vulkan pipeline holds it, a WebGPU pass holds one for all its pipelines
//! (0 at the start). `GraphicsPipeline::set_render` sets it with the pipeline: a mask pipeline writes the declared
//! reference, and a pipeline testing against it draws only inside the mask (before, both used 0, and the second
//! drew everywhere with no error).

use shader_info::{
    CompareOp, Registry, ShaderCreateInfo, StencilFace, StencilOp, StencilState, Type,
};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::wgpu::raw as w;
use shader_info_gpu::wgpu::testing::{assert_quiet, test_context};
use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};

const SIZE: u32 = 8;

fn stencil(compare: CompareOp, pass: StencilOp, reference: u8) -> StencilState {
    let face = StencilFace::new(compare, pass);
    StencilState {
        front: face,
        back: face,
        read_mask: 0xff,
        write_mask: 0xff,
        reference: Some(reference),
    }
}

fn registry(root: &std::path::Path) -> Registry {
    let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
    // The left half of the target, two triangles.
    write(
        "left.vert.glsl",
        "const vec2 P[6] = vec2[6](vec2(-1, -1), vec2(0, -1), vec2(-1, 1), vec2(-1, 1), vec2(0, -1), vec2(0, 1));\n\
         void main() { gl_Position = vec4(P[gl_VertexIndex], 0.0, 1.0); }\n",
    );
    // The whole target, one triangle.
    write(
        "full.vert.glsl",
        "void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n",
    );
    write(
        "red.frag.glsl",
        "void main() { color = vec4(1, 0, 0, 1); }\n",
    );
    write(
        "green.frag.glsl",
        "void main() { color = vec4(0, 1, 0, 1); }\n",
    );
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("st_mark")
            .fragment_out(0, Type::Vec4, "color")
            .stencil(stencil(CompareOp::Always, StencilOp::Replace, 7))
            .vertex_source("left.vert.glsl")
            .fragment_source("red.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("st_inside")
            .fragment_out(0, Type::Vec4, "color")
            .stencil(stencil(CompareOp::Equal, StencilOp::Keep, 7))
            .vertex_source("full.vert.glsl")
            .fragment_source("green.frag.glsl"),
    );
    reg
}

fn target(ctx: &shader_info_gpu::wgpu::WgpuContext, format: w::TextureFormat) -> w::Texture {
    ctx.device.create_texture(&w::TextureDescriptor {
        label: Some(if format.has_stencil_aspect() {
            "stencil"
        } else {
            "color"
        }),
        size: w::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format,
        usage: w::TextureUsages::RENDER_ATTACHMENT | w::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

#[test]
fn wgpu_draws_with_the_declared_stencil_reference() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        WgpuLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let opts = GraphicsOptions {
        depth_format: Some(w::TextureFormat::Depth24PlusStencil8),
        ..Default::default()
    };
    let mark = lib.graphics_pipeline("st_mark", &opts).unwrap();
    let inside = lib.graphics_pipeline("st_inside", &opts).unwrap();
    let color = target(&ctx, w::TextureFormat::Rgba8Unorm);
    let depth = target(&ctx, w::TextureFormat::Depth24PlusStencil8);
    let (color_view, depth_view) = (
        color.create_view(&Default::default()),
        depth.create_view(&Default::default()),
    );
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &[Some(w::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: w::Operations {
                    load: w::LoadOp::Clear(w::Color::BLACK),
                    store: w::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(w::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(w::Operations {
                    load: w::LoadOp::Clear(1.0),
                    store: w::StoreOp::Store,
                }),
                stencil_ops: Some(w::Operations {
                    load: w::LoadOp::Clear(0),
                    store: w::StoreOp::Store,
                }),
            }),
            ..Default::default()
        });
        mark.set_render(&mut pass);
        pass.draw(0..6, 0..1);
        inside.set_render(&mut pass);
        pass.draw(0..3, 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    let pixels = ctx.read_texture(&color).unwrap();
    let at = |x: u32, y: u32| &pixels[(4 * (y * SIZE + x)) as usize..][..4];
    // Left: marked with 7, then drawn green where the stencil is 7. Right: never marked, never drawn.
    assert_eq!(at(1, 4), [0, 255, 0, 255]);
    assert_eq!(at(SIZE - 2, 4), [0, 0, 0, 255]);
    drop((mark, inside, lib));
    assert_quiet(&ctx);
}
