//! Per-instance inputs (`instance_in`): one quad drawn four times, each instance reading its offset and its
//! packed tint from an instance buffer, on ash and wgpu (lavapipe, validation on; any message fails). The vertex
//! and instance structs are checked at the fetch (a struct of the other buffer, a missing field, a per-vertex
//! struct where the instances go are errors naming the field), and bound only through the typed pipeline. An info
//! declared from its padded host structs (`vertex_struct`, `instance_struct`) is drawn from the pipeline warmed from
//! its declaration, in strict mode.

use gpu::library::{LibraryOptions, Typed};
use shader_info::{
    Code, NoPush, Registry, ShaderCreateInfo, ShaderVertex, Type, VertexArrangement, VertexFormat,
    VertexRate,
};
use std::path::Path;

/// One corner of the quad each instance draws.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct Corner {
    corner: [f32; 2],
}

/// What each instance reads: where its quad goes (offset and scale) and its color (8-bit RGBA, read as a vec4).
/// glam's `Vec4` aligns the struct to 16 bytes: 20 bytes of fields, 32 with the padding (named, so that the struct
/// is `Pod`), which the typed pipeline reads as its stride.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct Sprite {
    placement: glam::Vec4,
    #[vertex(format = "Unorm8x4")]
    tint: [u8; 4],
    _pad: shader_info::Pad<12>,
}

const SIZE: u32 = 32;

fn registry(dir: &Path) -> Registry {
    std::fs::write(
        dir.join("sprite.vert.glsl"),
        "void main() {\n  color = tint;\n  gl_Position = vec4(placement.xy + corner * placement.zw, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("sprite.frag.glsl"),
        "void main() {\n  frag_color = color;\n}\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    let color = shader_info::StageInterfaceInfo::new("sprite_iface", "").flat(Type::Vec4, "color");
    reg.add_info(
        ShaderCreateInfo::new("instanced_sprite")
            // The per-instance input first: the per-vertex buffer is still binding 0.
            .instance_in(0, Type::Vec4, "placement")
            .vertex_in(1, Type::Vec2, "corner")
            .instance_in_packed(2, Type::Vec4, VertexFormat::Unorm8x4, "tint")
            .vertex_out(&color)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("sprite.vert.glsl")
            .fragment_source("sprite.frag.glsl"),
    );
    // One input of each rate, the per-instance one first: with a buffer per input, bindings follow the locations.
    reg.add_info(
        ShaderCreateInfo::new("per_input_sprite")
            .instance_in(0, Type::Vec4, "placement")
            .vertex_in(1, Type::Vec2, "corner")
            .vertex_out(&color)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("per_input.vert.glsl")
            .fragment_source("sprite.frag.glsl"),
    );
    // Both buffers declared from their host structs: the pipelines warmed from the declaration read them.
    reg.add_info(
        ShaderCreateInfo::new("declared_sprite")
            .vertex_struct::<ShadedCorner>(0)
            .instance_struct::<Sprite>(2)
            .vertex_out(&color)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("declared.vert.glsl")
            .fragment_source("sprite.frag.glsl"),
    );
    std::fs::write(
        dir.join("declared.vert.glsl"),
        "void main() {\n  color = tint * shade;\n  gl_Position = vec4(placement.xy + corner * placement.zw, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("per_input.vert.glsl"),
        "void main() {\n  color = vec4(1.0);\n  gl_Position = vec4(placement.xy + corner, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    reg
}

/// Where the instance struct of `per_input_sprite` goes.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct Placement {
    placement: [f32; 4],
}

/// A corner with a shade the tint is multiplied by: glam's `Vec4` is 16-aligned, so 8 bytes of padding follow
/// `corner` (named, so that the struct is `Pod`; zeros, so a shade read from the packed offset 8 would be black).
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct ShadedCorner {
    corner: glam::Vec2,
    _pad: shader_info::Pad<8>,
    shade: glam::Vec4,
}

fn shaded_corners() -> Vec<ShadedCorner> {
    corners()
        .into_iter()
        .map(|c| ShadedCorner {
            corner: c.corner.into(),
            _pad: shader_info::Pad::ZERO,
            shade: glam::Vec4::ONE,
        })
        .collect()
}

/// `declared_sprite`'s pipeline set warmed up with `options`, then its typed fetch in strict mode: the structs the
/// info was declared from need no pipeline beside the warmed one (padding and all).
fn warm_declared<B: gpu::library::Backend>(
    lib: &mut gpu::library::Library<B>,
    options: &B::GraphicsOptions,
) -> Typed<B::Graphics, NoPush, ShadedCorner, Sprite> {
    let set = lib
        .pipeline_set(&[gpu::library::PassPipelines {
            options: options.clone(),
            infos: vec![("declared_sprite".into(), gpu::library::Variants::Declared)],
        }])
        .unwrap();
    let report = lib.warm_up(&set);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    lib.set_strict(true);
    let late = lib.stats().late_count();
    let p = lib
        .typed_instanced::<ShadedCorner, Sprite, NoPush>("declared_sprite", options)
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                shader_info::render_all(&B::diagnostics(e, "declared_sprite"))
            )
        });
    assert_eq!(lib.stats().late_count(), late);
    lib.set_strict(false);
    p
}

/// A quad of half a unit, two triangles.
fn corners() -> Vec<Corner> {
    [
        [0.0, 0.0],
        [0.5, 0.0],
        [0.0, 0.5],
        [0.5, 0.0],
        [0.5, 0.5],
        [0.0, 0.5],
    ]
    .map(|corner| Corner { corner })
    .to_vec()
}

/// One quad per quadrant of the target, each its own color.
fn sprites() -> Vec<Sprite> {
    [
        ([-0.75, -0.75], [255, 0, 0, 255]),
        ([0.25, -0.75], [0, 255, 0, 255]),
        ([-0.75, 0.25], [0, 0, 255, 255]),
        ([0.25, 0.25], [255, 255, 0, 255]),
    ]
    .map(|([x, y], tint)| Sprite {
        placement: glam::Vec4::new(x, y, 1.0, 1.0),
        tint,
        _pad: shader_info::Pad::ZERO,
    })
    .to_vec()
}

/// The four quads have their tints, the gaps between them the clear color (the same picture on both backends: the
/// library's WGSL keeps Vulkan's clip space).
fn assert_drawn(pixels: &[u8]) {
    let at = |x: u32, y: u32| {
        let i = 4 * (y * SIZE + x) as usize;
        [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]]
    };
    let q = SIZE / 4;
    assert_eq!(
        [at(q, q), at(3 * q, q), at(q, 3 * q), at(3 * q, 3 * q)],
        [
            [255, 0, 0, 255],
            [0, 255, 0, 255],
            [0, 0, 255, 255],
            [255, 255, 0, 255]
        ],
        "each instance reads its own offset and tint"
    );
    assert_eq!(at(SIZE / 2, SIZE / 2), [0, 0, 0, 0], "the gap is clear");
}

/// The mistakes the fetch refuses, on any backend: the instance struct where the vertices go, a vertex struct as
/// the instances, an instanced info fetched as if it read no instance buffer.
fn mistakes<B: gpu::library::Backend>(
    lib: &mut gpu::library::Library<B>,
    options: &B::GraphicsOptions,
) {
    let text = |e: B::Error| shader_info::render_all(&B::diagnostics(e, "instanced_sprite"));
    let Err(e) = lib.typed_instanced::<Sprite, Corner, NoPush>("instanced_sprite", options) else {
        panic!("the buffers' structs swapped were taken");
    };
    let t = text(e);
    assert!(
        t.contains("field `placement` is a per-instance input") && t.contains("vertex_in `corner`"),
        "{t}"
    );
    let Err(e) = lib.typed_graphics::<Corner, NoPush>("instanced_sprite", options) else {
        panic!("an instanced info was fetched without its instance struct");
    };
    let t = text(e);
    assert!(
        t.contains("reads per-instance inputs (placement, tint)") && t.contains("typed_instanced"),
        "{t}"
    );
    let d = B::diagnostics(
        lib.typed_instanced::<Corner, Corner, NoPush>("instanced_sprite", options)
            .err()
            .expect("the vertex struct as the instances"),
        "instanced_sprite",
    );
    assert!(d.iter().all(|d| d.code == Code::HostMismatch), "{d:?}");
}

/// The options a typed fetch of the padded structs uses, warmed up: the fetch then creates nothing (strict mode
/// refuses a late pipeline).
fn warm_typed<B: gpu::library::Backend>(
    lib: &mut gpu::library::Library<B>,
    options: &B::GraphicsOptions,
) {
    let typed = lib
        .typed_options::<Corner, Sprite>("instanced_sprite", options)
        .unwrap();
    assert_eq!(
        B::vertex_arrangement(&typed),
        VertexArrangement::Strided {
            vertex: 8,
            instance: 32
        }
    );
    let report = lib.warm_up(&[gpu::library::WarmUp::Graphics {
        key: "instanced_sprite".into(),
        options: typed,
    }]);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    lib.set_strict(true);
}

#[test]
fn ash_draws_instances_from_their_own_buffer() {
    use gpu::vk::{GraphicsOptions, GraphicsPipeline, ShaderLibrary, VertexBuffer, raw};
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let options = GraphicsOptions::default();
    mistakes(&mut lib, &options);
    warm_typed(&mut lib, &options);
    let p: Typed<GraphicsPipeline, NoPush, Corner, Sprite> = lib
        .typed_instanced::<Corner, Sprite, NoPush>("instanced_sprite", &options)
        .unwrap();
    assert_eq!((p.vertex_binding(), p.instance_binding()), (0, 1));
    // With a buffer per input, the typed pipeline binds each struct where the plan reads its rate.
    let per_input = GraphicsOptions {
        vertex_layout: VertexArrangement::PerInput,
        ..GraphicsOptions::default()
    };
    lib.set_strict(false);
    let q = lib
        .typed_instanced::<Corner, Placement, NoPush>("per_input_sprite", &per_input)
        .unwrap();
    assert_eq!((q.vertex_binding(), q.instance_binding()), (1, 0));
    lib.set_strict(true);
    // Read with the padded struct's stride: 32 bytes an instance, not the 20 of its fields.
    let plan = p.layout().plan().expect("a layout made from the plan");
    let arrangement =
        shader_info::typed_arrangement::<Corner, Sprite>(plan, VertexArrangement::Interleaved);
    assert_eq!(
        arrangement,
        VertexArrangement::Strided {
            vertex: 8,
            instance: 32
        }
    );
    let buffers = plan.vertex_buffers(arrangement);
    assert_eq!(
        buffers
            .iter()
            .map(|b| (b.binding, b.rate, b.stride))
            .collect::<Vec<_>>(),
        [(0, VertexRate::Vertex, 8), (1, VertexRate::Instance, 32)]
    );
    // Bound by hand with the packed layout, the padded struct is refused, saying why and what to do.
    let d = plan.instance_problems::<Sprite>();
    assert!(
        d[0].message.contains("12 bytes of padding")
            && d[0].hint.as_deref().is_some_and(|h| h.contains("Strided")),
        "{d:?}"
    );
    let (corners, sprites) = (
        VertexBuffer::new(&ctx, &corners()).unwrap(),
        VertexBuffer::new(&ctx, &sprites()).unwrap(),
    );
    assert_drawn(&ash_draw(&ctx, |d, cmd| unsafe {
        // SAFETY: recorded inside the helper's submit, the buffers outlive its wait.
        d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, p.handle());
        p.bind_vertices(cmd, &corners);
        p.bind_instances(cmd, &sprites);
        d.cmd_draw(cmd, corners.len(), sprites.len(), 0, 0);
    }));
    // Declared from the padded structs: warmed from the declaration, fetched typed with nothing more to create.
    let declared = warm_declared(&mut lib, &options);
    let shaded = VertexBuffer::new(&ctx, &shaded_corners()).unwrap();
    assert_drawn(&ash_draw(&ctx, |d, cmd| unsafe {
        // SAFETY: as above.
        d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, declared.handle());
        declared.bind_vertices(cmd, &shaded);
        declared.bind_instances(cmd, &sprites);
        d.cmd_draw(cmd, shaded.len(), sprites.len(), 0, 0);
    }));
    drop((p, declared, lib));
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

/// The target's pixels after `draw` recorded into a render pass over it (cleared to transparent black).
fn ash_draw(
    ctx: &gpu::vk::VkContext,
    draw: impl FnOnce(&gpu::vk::ash::Device, gpu::vk::raw::CommandBuffer),
) -> Vec<u8> {
    use gpu::vk::{Buffer, Image2D, raw};
    let format = raw::Format::R8G8B8A8_UNORM;
    use raw::ImageUsageFlags as U;
    let target = Image2D::new(
        ctx,
        SIZE,
        SIZE,
        format,
        U::COLOR_ATTACHMENT | U::TRANSFER_SRC,
    )
    .unwrap();
    let readback = Buffer::new(
        ctx,
        4 * u64::from(SIZE * SIZE),
        raw::BufferUsageFlags::TRANSFER_DST,
    )
    .unwrap();
    ctx.submit_and_wait(|d, cmd| unsafe {
        // SAFETY: everything recorded lives until the wait returns; the target is transitioned before each use.
        use raw::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
        let attachment = L::COLOR_ATTACHMENT_OPTIMAL;
        target.transition(
            cmd,
            L::UNDEFINED,
            attachment,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
        );
        gpu::vk::testing::begin_offscreen_rendering(d, cmd, &target, attachment, [0.0; 4]);
        draw(d, cmd);
        d.cmd_end_rendering(cmd);
        target.transition(
            cmd,
            attachment,
            L::TRANSFER_SRC_OPTIMAL,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
            S::COPY,
            A::TRANSFER_READ,
        );
        target.copy_to_buffer(cmd, &readback);
    })
    .unwrap();
    readback.read()
}

#[test]
fn wgpu_draws_instances_from_their_own_buffer() {
    use gpu::wgpu::{GraphicsOptions, VertexBuffer, WgpuLibrary, raw as w, testing};
    let Some(ctx) = testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        WgpuLibrary::new(&ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let options = GraphicsOptions::default();
    mistakes(&mut lib, &options);
    warm_typed(&mut lib, &options);
    let p = lib
        .typed_instanced::<Corner, Sprite, NoPush>("instanced_sprite", &options)
        .unwrap();
    let (corners, sprites) = (
        VertexBuffer::new(&ctx, &corners()).unwrap(),
        VertexBuffer::new(&ctx, &sprites()).unwrap(),
    );
    // One pass over a fresh target, its pixels checked (a macro: the pass borrows the buffers it binds).
    macro_rules! draw {
        (|$pass:ident| $record:block) => {{
            let target = testing::render_target(&ctx, SIZE);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let view = target.create_view(&Default::default());
                let mut $pass = enc.begin_render_pass(&w::RenderPassDescriptor {
                    color_attachments: &[testing::cleared(&view)],
                    ..Default::default()
                });
                $record
            }
            ctx.queue.submit([enc.finish()]);
            let mut pixels = ctx.read_texture(&target).unwrap();
            // The clear of `testing::cleared` is opaque black: the gap reads alpha 255 there.
            let gap = 4 * ((SIZE / 2) * SIZE + SIZE / 2) as usize;
            assert_eq!(&pixels[gap..gap + 4], [0, 0, 0, 255]);
            pixels[gap + 3] = 0;
            assert_drawn(&pixels);
        }};
    }
    draw!(|pass| {
        pass.set_pipeline(&p.pipeline);
        p.set_vertices(&mut pass, &corners);
        p.set_instances(&mut pass, &sprites);
        pass.draw(0..corners.len(), 0..sprites.len());
    });
    // Declared from the padded structs: warmed from the declaration, fetched typed with nothing more to create.
    let declared = warm_declared(&mut lib, &options);
    let shaded = VertexBuffer::new(&ctx, &shaded_corners()).unwrap();
    draw!(|pass| {
        pass.set_pipeline(&declared.pipeline);
        declared.set_vertices(&mut pass, &shaded);
        declared.set_instances(&mut pass, &sprites);
        pass.draw(0..shaded.len(), 0..sprites.len());
    });
    // No instances left after culling: an empty buffer is set and draws nothing (wgpu panics on an empty slice,
    // so the buffer keeps four unread bytes, as ash's keeps one).
    let none = VertexBuffer::<Sprite>::new(&ctx, &[]).unwrap();
    assert_eq!(none.len(), 0);
    let target = testing::render_target(&ctx, SIZE);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let view = target.create_view(&Default::default());
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &[testing::cleared(&view)],
            ..Default::default()
        });
        pass.set_pipeline(&p.pipeline);
        p.set_vertices(&mut pass, &corners);
        p.set_instances(&mut pass, &none);
        pass.draw(0..corners.len(), 0..none.len());
    }
    ctx.queue.submit([enc.finish()]);
    let pixels = ctx.read_texture(&target).unwrap();
    assert!(
        pixels.chunks(4).all(|p| p == [0, 0, 0, 255]),
        "no instance, nothing drawn"
    );
    testing::assert_quiet(&ctx);
}
