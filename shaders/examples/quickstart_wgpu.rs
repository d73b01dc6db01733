//! The library in your own renderer, on wgpu: a compute dispatch and a textured triangle, both fetched by info name
//! from a `WgpuLibrary`. Run with `cargo run --example quickstart_wgpu --features wgpu`.
//!
//! The library translates each info to WGSL (through the checked cross-language pass) on first use and derives
//! bind group layouts, the pipeline layout, vertex buffers and render state from the declaration. The host side is
//! typed from the declaration too: the vertex struct and push block are named when a pipeline is fetched (and
//! checked against it there), pushes take only the block's type, and bind groups take resources by their declared
//! names, the set derived from them. `cargo test --example quickstart_wgpu --features wgpu` runs it as a test.
use glam::{Mat4, Vec2};
use gpu::library::LibraryOptions;
use gpu::wgpu::{
    Bind, GraphicsOptions, VertexBuffer, WgpuContext, WgpuContextOptions, WgpuHost, WgpuLibrary,
    WgpuResult, raw as w,
};
use shader_info::ShaderVertex;
use shaders::infos::compute::{ComputePrefixSum, ComputePrefixSumPassSet};
use shaders::infos::push::MvpPush;
use w::util::DeviceExt;

/// The vertex buffer of `gpu_shader_2D_image` (`pos`, `texCoord`): checked against its `vertex_in`s at the fetch.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
#[allow(non_snake_case)] // the declared input's name
struct ImageVertex {
    pos: Vec2,
    texCoord: Vec2,
}

fn main() -> WgpuResult<()> {
    gpu::wgpu::messages::capture(); // the validation layer's messages, checked at the end
    // Validation is on in debug builds by default; say so, so a release build of this check keeps it.
    let ctx = WgpuContext::new(&WgpuContextOptions {
        validation: true,
        ..Default::default()
    })?;
    let registry = shader_info::Registry::global().clone(); // every `inventory`-registered info
    let mut lib = WgpuLibrary::new(&ctx, registry, LibraryOptions::new(shaders::glsl_root()))?;
    let d = &ctx.device;
    let buffer = |contents: &[u8], usage| {
        d.create_buffer_init(&w::util::BufferInitDescriptor {
            label: None,
            contents,
            usage,
        })
    };
    use w::BufferUsages as B;

    // 1. Compute: the inclusive prefix sum of 1..=8 (`gpu_compute_prefix_sum`: `values` and `sums` in set 0,
    //    push `element_count`; the derive-style info is its own push block).
    let values: Vec<u32> = (1..=8).collect();
    let input = buffer(bytemuck::cast_slice(&values), B::STORAGE);
    let sums = buffer(&[0; 32], B::STORAGE | B::COPY_SRC);
    let prefix_sum = lib.typed_compute::<ComputePrefixSum>(ComputePrefixSum::NAME)?;
    // The derive generated the set's struct: a resource left out or of the wrong kind does not compile.
    let resources = ComputePrefixSumPassSet::<WgpuHost> {
        values: &input,
        sums: &sums,
    };
    let group = prefix_sum.bind(&ctx, &resources)?; // set 0: the declared frequency
    // Push constants are wgpu immediates where the adapter has them, else a small storage buffer: `PushData`
    // hides which. The push takes only the block's type.
    let push = prefix_sum.push(&ctx, &ComputePrefixSum { element_count: 8 })?;
    let mut enc = d.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&prefix_sum.pipeline);
        group.set_compute(&mut pass);
        push.set_compute(&mut pass);
        pass.dispatch_workgroups(1, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    let out: Vec<u32> = bytemuck::pod_collect_to_vec(&ctx.read_buffer(&sums)?);
    assert_eq!(out, [1, 3, 6, 10, 15, 21, 28, 36]);

    // 2. A textured triangle (`gpu_shader_2D_image`: `pos` and `texCoord` vertex inputs, `image` in set 1, push
    //    `ModelViewProjectionMatrix`) into a 64×64 RGBA8 texture, read back.
    let size = |width, height| w::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let texture_desc = |size, usage| w::TextureDescriptor {
        label: None,
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format: w::TextureFormat::Rgba8Unorm,
        usage,
        view_formats: &[],
    };
    let (orange, blue) = ([255u8, 64, 0, 255], [0, 128, 255, 255]);
    let checker = [orange, blue, blue, orange].concat();
    let order = w::util::TextureDataOrder::LayerMajor;
    let texture = d.create_texture_with_data(
        &ctx.queue,
        &texture_desc(size(2, 2), w::TextureUsages::TEXTURE_BINDING),
        order,
        &checker,
    );
    let target = d.create_texture(&texture_desc(
        size(64, 64),
        w::TextureUsages::RENDER_ATTACHMENT | w::TextureUsages::COPY_SRC,
    ));
    let sampler = d.create_sampler(&w::SamplerDescriptor::default()); // nearest, clamped
    // Positions in Vulkan's clip space, which every backend and translation keeps (y = -1 at the top).
    let vertex = |x, y, u, v| ImageVertex {
        pos: Vec2::new(x, y),
        texCoord: Vec2::new(u, v),
    };
    let vertices = [
        vertex(-0.9, -0.9, 0.0, 0.0),
        vertex(0.9, -0.9, 1.0, 0.0),
        vertex(0.0, 0.9, 0.5, 1.0),
    ];
    // A buffer of `ImageVertex`es: the typed pipeline below sets no buffer of another struct.
    let vertex_buffer = VertexBuffer::new(&ctx, &vertices)?;
    // The render state (alpha blending) comes from the declaration; the options say what the renderer draws into.
    let triangle = lib.typed_graphics::<ImageVertex, MvpPush>(
        "gpu_shader_2D_image",
        &GraphicsOptions::default(),
    )?;
    let view = texture.create_view(&Default::default());
    let group = triangle.bind_group(&ctx, &[("image", Bind::Sampled(&view, &sampler))])?;
    let mvp = MvpPush {
        ModelViewProjectionMatrix: Mat4::IDENTITY,
    };
    let push = triangle.push(&ctx, &mvp)?;
    let mut enc = d.create_command_encoder(&Default::default());
    {
        let target_view = target.create_view(&Default::default());
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &[Some(w::RenderPassColorAttachment {
                view: &target_view,
                depth_slice: None,
                resolve_target: None,
                ops: w::Operations {
                    load: w::LoadOp::Clear(w::Color::TRANSPARENT),
                    store: w::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        triangle.set_render(&mut pass);
        group.set_render(&mut pass); // set 1 (`image` is Batch); set 0 is empty: nothing to bind there
        push.set_render(&mut pass);
        triangle.set_vertices(&mut pass, &vertex_buffer);
        pass.draw(0..vertex_buffer.len(), 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    let pixels = ctx.read_texture(&target)?;
    let at = |x: usize, y: usize| &pixels[4 * (y * 64 + x)..][..4];
    // Texel (0, 0) near the first corner, texel (0, 1) higher up, the clear color outside.
    let expected: [&[u8]; 3] = [&checker[..4], &checker[8..12], &[0; 4]];
    assert_eq!([at(16, 12), at(24, 44), at(63, 63)], expected);
    drop(lib);
    ctx.wait_idle();
    let mut messages = gpu::wgpu::messages::captured();
    messages.extend(ctx.uncaptured_errors());
    assert!(messages.is_empty(), "validation messages: {messages:?}");
    println!("prefix sum {out:?}; triangle textured, corners clear; no validation message");
    Ok(())
}

#[test]
fn runs() {
    // Skips without Vulkan, like the library's tests (unless `SHADER_INFO_REQUIRE_VULKAN=1`).
    if gpu::wgpu::testing::test_context(true).is_some() {
        main().unwrap();
    }
}
