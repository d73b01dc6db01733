//! Test helpers for the wgpu backend (feature `testing`): a validated device on lavapipe (or the first Vulkan
//! adapter), the validation layer's messages captured from the `log` crate, and buffer read-back.

use super::context::{WgpuContext, WgpuContextOptions};
use crate::vk::testing::REQUIRE_VULKAN_ENV;
use ::wgpu as w;

/// A context with validation on and the layer's messages captured; `immediates: false` forces push constants
/// through the storage-buffer path. `None` (the test skips) when there is no Vulkan adapter, unless
/// `SHADER_INFO_REQUIRE_VULKAN=1`, which makes that a failure.
pub fn test_context(immediates: bool) -> Option<WgpuContext> {
    test_context_with(WgpuContextOptions {
        immediates,
        ..WgpuContextOptions::default()
    })
}

/// [`test_context`] with other options (validation is turned on whatever they say).
pub fn test_context_with(opts: WgpuContextOptions) -> Option<WgpuContext> {
    super::messages::capture();
    let opts = WgpuContextOptions {
        fallback_adapter: false,
        validation: true,
        ..opts
    };
    match WgpuContext::new(&opts) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if std::env::var(REQUIRE_VULKAN_ENV).as_deref() == Ok("1") {
                panic!("{REQUIRE_VULKAN_ENV}=1 but: {e}");
            }
            eprintln!("skipping wgpu test: {e}");
            None
        }
    }
}

/// Panics with every message when the validation layer or wgpu itself (outside error scopes) reported anything.
pub fn assert_quiet(ctx: &WgpuContext) {
    ctx.wait_idle();
    let mut all = super::messages::captured();
    all.extend(ctx.uncaptured_errors());
    assert!(
        all.is_empty(),
        "{} message(s):\n{}",
        all.len(),
        all.join("\n")
    );
}

/// A storage buffer holding `data`, readable back with [`read_buffer`].
pub fn storage_buffer(ctx: &WgpuContext, data: &[u8]) -> w::Buffer {
    use w::util::DeviceExt;
    ctx.device
        .create_buffer_init(&w::util::BufferInitDescriptor {
            label: Some("test storage"),
            contents: data,
            usage: w::BufferUsages::STORAGE | w::BufferUsages::COPY_SRC | w::BufferUsages::COPY_DST,
        })
}

/// Copies `buffer` to the host (see [`WgpuContext::read_buffer`]).
pub fn read_buffer(ctx: &WgpuContext, buffer: &w::Buffer) -> Vec<u8> {
    ctx.read_buffer(buffer).expect("read back")
}

/// A `size` × `size` RGBA8 texture to render into and read back ([`WgpuContext::read_texture`]).
pub fn render_target(ctx: &WgpuContext, size: u32) -> w::Texture {
    ctx.device.create_texture(&w::TextureDescriptor {
        label: Some("test target"),
        size: w::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format: w::TextureFormat::Rgba8Unorm,
        usage: w::TextureUsages::RENDER_ATTACHMENT | w::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// A color attachment of `view` cleared to opaque black and stored.
pub fn cleared(view: &w::TextureView) -> Option<w::RenderPassColorAttachment<'_>> {
    Some(w::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: w::Operations {
            load: w::LoadOp::Clear(w::Color::BLACK),
            store: w::StoreOp::Store,
        },
    })
}

/// A vertex buffer holding `data`.
pub fn vertex_buffer(ctx: &WgpuContext, data: &[u8]) -> w::Buffer {
    use w::util::DeviceExt;
    ctx.device
        .create_buffer_init(&w::util::BufferInitDescriptor {
            label: Some("test vertices"),
            contents: data,
            usage: w::BufferUsages::VERTEX,
        })
}

/// What [`draw`] binds and draws.
pub struct Draw<'a> {
    /// The render target is `size` × `size` RGBA8, cleared to opaque black.
    pub size: u32,
    pub vertex_buffer: &'a w::Buffer,
    pub vertex_count: u32,
    /// `(group index, group)` pairs.
    pub groups: &'a [(u32, &'a w::BindGroup)],
    /// The push-constant bytes ([`super::GraphicsPipeline::push`]); empty: none pushed.
    pub push: &'a [u8],
}

/// Draws `d` with `pipeline` into a fresh target, waits, and returns its RGBA8 pixels, row by row.
///
/// ```no_run
/// # use shader_info_gpu::wgpu::{WgpuLibrary, GraphicsOptions, testing::*};
/// # fn f(ctx: &shader_info_gpu::wgpu::WgpuContext, lib: &mut WgpuLibrary) {
/// let p = lib.graphics_pipeline("gpu_shader_2D_uniform_color", &GraphicsOptions::default()).unwrap();
/// let vb = vertex_buffer(ctx, bytemuck::cast_slice(&[[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]]));
/// let pixels = draw(ctx, &p, &Draw { size: 32, vertex_buffer: &vb, vertex_count: 3, groups: &[], push: &[] });
/// assert_eq!(pixels.len(), 32 * 32 * 4);
/// # }
/// ```
pub fn draw(ctx: &WgpuContext, pipeline: &super::GraphicsPipeline, d: &Draw) -> Vec<u8> {
    let target = render_target(ctx, d.size);
    let push = pipeline
        .push(ctx, d.push)
        .expect("the pushed bytes are the pipeline's block");
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let view = target.create_view(&Default::default());
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &[cleared(&view)],
            ..Default::default()
        });
        pipeline.set_render(&mut pass);
        for (index, group) in d.groups {
            pass.set_bind_group(*index, *group, &[]);
        }
        push.set_render(&mut pass);
        pass.set_vertex_buffer(0, d.vertex_buffer.slice(..));
        pass.draw(0..d.vertex_count, 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    ctx.read_texture(&target).expect("read back the target")
}
