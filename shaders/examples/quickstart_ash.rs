//! The library in your own renderer, on `ash`: a compute dispatch and a textured triangle, both fetched by info
//! name from a `ShaderLibrary`. Run with `cargo run --example quickstart_ash`.
//!
//! The library compiles each info's GLSL on first use and derives the descriptor-set layouts, push-constant range,
//! vertex input and render state from the declaration; the renderer keeps its own buffers, images and commands.
//! The host side is typed from the declaration: the vertex struct and push block are named when a pipeline is
//! fetched (and checked there), pushes take only the block's type, and descriptor sets take resources by their
//! declared names — set, binding and descriptor type come from the plan. `cargo test --example quickstart_ash`
//! runs it as a test.
use glam::{Mat4, Vec2};
use gpu::vk::{
    Buffer, ContextOptions, DescriptorPool, GraphicsOptions, Image2D, LibraryOptions, Resource,
    Sampler, ShaderLibrary, VertexBuffer, VkContext, VkHost, VkResult, raw,
};
use shader_info::ShaderVertex;
use shaders::infos::compute::{ComputePrefixSum, ComputePrefixSumPassSet};
use shaders::infos::push::MvpPush;

/// The vertex buffer of `gpu_shader_2D_image` (`pos`, `texCoord`): checked against its `vertex_in`s at the fetch.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
#[allow(non_snake_case)] // the declared input's name
struct ImageVertex {
    pos: Vec2,
    texCoord: Vec2,
}

fn main() -> VkResult<()> {
    // Validation is on in debug builds by default; say so, so a release build of this check keeps it.
    let ctx = VkContext::new(&ContextOptions {
        validation: true,
        ..ContextOptions::default()
    })?;
    let registry = shader_info::Registry::global().clone(); // every `inventory`-registered info
    let mut lib = ShaderLibrary::new(&ctx, registry, LibraryOptions::new(shaders::glsl_root()))?;
    use raw::BufferUsageFlags as B;

    // 1. Compute: the inclusive prefix sum of 1..=8 (`gpu_compute_prefix_sum`: set 0 bindings 0 and 1, push
    //    `element_count`; the derive-style info is its own push block).
    let values: Vec<u32> = (1..=8).collect();
    let input = Buffer::with_data(&ctx, &values, B::STORAGE_BUFFER)?;
    let sums = Buffer::new(&ctx, 4 * values.len() as u64, B::STORAGE_BUFFER)?;
    let prefix_sum = lib.typed_compute::<ComputePrefixSum>(ComputePrefixSum::NAME)?;
    let layout = prefix_sum.layout();
    let pool = DescriptorPool::for_layout(&ctx, layout, 1)?;
    // The derive generated the set's struct: a resource left out or of the wrong kind does not compile.
    let resources = ComputePrefixSumPassSet::<VkHost> {
        values: &input,
        sums: &sums,
    };
    let (index, set) = prefix_sum.bind(&pool, &resources)?; // set 0: the declared frequency
    let push = ComputePrefixSum {
        element_count: values.len() as u32,
    };
    let mut pushed = Ok(());
    ctx.submit_and_wait(|d, cmd| unsafe {
        // SAFETY: everything recorded is alive until `submit_and_wait` returns.
        let compute = raw::PipelineBindPoint::COMPUTE;
        d.cmd_bind_pipeline(cmd, compute, prefix_sum.handle());
        d.cmd_bind_descriptor_sets(cmd, compute, layout.handle(), index, &[set], &[]);
        pushed = prefix_sum.push(cmd, &push);
        d.cmd_dispatch(cmd, 1, 1, 1);
    })?;
    pushed?;
    let out: Vec<u32> = bytemuck::pod_collect_to_vec(&sums.read());
    assert_eq!(out, [1, 3, 6, 10, 15, 21, 28, 36]);

    // 2. A textured triangle (`gpu_shader_2D_image`: `pos` and `texCoord` vertex inputs, `image` at set 1
    //    binding 0, push `ModelViewProjectionMatrix`) into a 64×64 RGBA8 image, read back.
    let (w, h) = (64, 64);
    let format = raw::Format::R8G8B8A8_UNORM;
    let (orange, blue) = ([255, 64, 0, 255], [0, 128, 255, 255]);
    let checker: Vec<u8> = [orange, blue, blue, orange].concat();
    use raw::ImageUsageFlags as U;
    let texture = Image2D::texture(&ctx, 2, 2, format, &checker)?; // uploaded, ready to sample
    let target = Image2D::new(&ctx, w, h, format, U::COLOR_ATTACHMENT | U::TRANSFER_SRC)?;
    let readback = Buffer::new(&ctx, 4 * (w * h) as u64, B::TRANSFER_DST)?;
    let sampler = Sampler::new(&ctx, raw::Filter::NEAREST)?;
    // Positions in Vulkan's clip space (y = -1 at the top).
    let vertex = |x, y, u, v| ImageVertex {
        pos: Vec2::new(x, y),
        texCoord: Vec2::new(u, v),
    };
    let vertices = [
        vertex(-0.9, -0.9, 0.0, 0.0),
        vertex(0.9, -0.9, 1.0, 0.0),
        vertex(0.0, 0.9, 0.5, 1.0),
    ];
    // A buffer of `ImageVertex`es: the typed pipeline below binds no buffer of another struct.
    let vertex_buffer = VertexBuffer::new(&ctx, &vertices)?;
    let options = GraphicsOptions {
        color_format: format,
        ..GraphicsOptions::default()
    };
    let triangle = lib.typed_graphics::<ImageVertex, MvpPush>("gpu_shader_2D_image", &options)?;
    let layout = triangle.layout();
    let pool = DescriptorPool::for_layout(&ctx, layout, 1)?;
    let (index, set) =
        layout.descriptor_set(&pool, &[("image", Resource::Sampled(&texture, &sampler))])?;
    use raw::ImageLayout as L;
    // The info's push block: its std430 layout was checked against the declaration at the fetch.
    let mvp = MvpPush {
        ModelViewProjectionMatrix: Mat4::IDENTITY,
    };
    let mut pushed = Ok(());
    ctx.submit_and_wait(|d, cmd| unsafe {
        // SAFETY: everything recorded is alive until `submit_and_wait` returns; each image is transitioned
        // before use.
        use raw::{AccessFlags2 as A, PipelineStageFlags2 as S};
        let (attachment, write) = (L::COLOR_ATTACHMENT_OPTIMAL, A::COLOR_ATTACHMENT_WRITE);
        target.transition(
            cmd,
            L::UNDEFINED,
            attachment,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            write,
        );
        let color = [raw::RenderingAttachmentInfo::default()
            .image_view(target.view())
            .image_layout(attachment)
            .load_op(raw::AttachmentLoadOp::CLEAR)
            .store_op(raw::AttachmentStoreOp::STORE)];
        let area = raw::Rect2D::default().extent(raw::Extent2D {
            width: w,
            height: h,
        });
        let rendering = raw::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .color_attachments(&color);
        d.cmd_begin_rendering(cmd, &rendering);
        let viewport = raw::Viewport::default()
            .width(w as f32)
            .height(h as f32)
            .max_depth(1.0);
        d.cmd_set_viewport(cmd, 0, &[viewport]);
        d.cmd_set_scissor(cmd, 0, &[area]);
        let graphics = raw::PipelineBindPoint::GRAPHICS;
        d.cmd_bind_pipeline(cmd, graphics, triangle.handle());
        d.cmd_bind_descriptor_sets(cmd, graphics, layout.handle(), index, &[set], &[]);
        pushed = triangle.push(cmd, &mvp);
        triangle.bind_vertices(cmd, &vertex_buffer);
        d.cmd_draw(cmd, vertex_buffer.len(), 1, 0, 0);
        d.cmd_end_rendering(cmd);
        let src = L::TRANSFER_SRC_OPTIMAL;
        target.transition(
            cmd,
            attachment,
            src,
            S::COLOR_ATTACHMENT_OUTPUT,
            write,
            S::COPY,
            A::TRANSFER_READ,
        );
        target.copy_to_buffer(cmd, &readback);
    })?;
    pushed?;
    let pixels = readback.read();
    let at = |x: u32, y: u32| &pixels[(4 * (y * w + x)) as usize..][..4];
    // Texel (0, 0) near the first corner, texel (0, 1) higher up, the clear color outside.
    let expected: [&[u8]; 3] = [&checker[..4], &checker[8..12], &[0; 4]];
    assert_eq!([at(16, 12), at(24, 44), at(63, 63)], expected);
    drop(lib); // pipelines first, so that their destruction is validated too
    assert_eq!(ctx.validation_messages(), [], "no validation message");
    println!("prefix sum {out:?}; triangle textured, corners clear; no validation message");
    Ok(())
}

#[test]
fn runs() {
    // Skips without Vulkan, like the library's tests (unless `SHADER_INFO_REQUIRE_VULKAN=1`).
    if gpu::vk::testing::test_context().is_some() {
        main().unwrap();
    }
}
