//! The demo frame on Vulkan (`ash`): [`super::passes`] executed in one command buffer with dynamic rendering.
//! Everything that can fail (pipelines, buffers, descriptor sets) is prepared first; recording cannot fail.

use super::passes::{self, Bound, DISPLAY_CLEAR, Filter, Geometry, ImageId, Passes, Resource};
use super::{Frame, PATTERN_SIZE, scene};
use crate::pipelines::{DEPTH_FORMAT, DISPLAY_FORMAT, HDR_FORMAT, graphics_options};
use gpu::vk::resource::Sampler;
use gpu::vk::{
    Buffer, ComputePipeline, DescriptorPool, GraphicsPipeline, Image2D, PipelineLayout,
    ShaderLibrary, VkContext, VkError, VkResult, raw,
};
use std::sync::Arc;

/// A draw, prepared before recording.
struct Draw {
    pipeline: Arc<GraphicsPipeline>,
    /// `(set index, set)` pairs to bind.
    sets: Vec<(u32, raw::DescriptorSet)>,
    /// Vertex buffer and vertex count, or the index of the mesh to draw.
    geometry: Result<(Option<raw::Buffer>, u32), usize>,
    push: Vec<u8>,
}

/// A compute dispatch, prepared before recording.
struct Dispatch {
    pipeline: Arc<ComputePipeline>,
    sets: Vec<(u32, raw::DescriptorSet)>,
    push: Vec<u8>,
    groups: [u32; 3],
}

/// The images, buffers, samplers and descriptor pools of one frame, alive until it is read back.
struct Targets {
    extent: raw::Extent2D,
    sharp: Image2D,
    half_blurred: Image2D,
    blurred: Image2D,
    hdr: Image2D,
    depth: Image2D,
    /// The sRGB display target the frame is read back from.
    display: Image2D,
    /// The glyph coverage, uploaded.
    atlas: Image2D,
    readback: Buffer,
    /// [`Passes::buffers`], then vertex buffers.
    buffers: Vec<Buffer>,
    /// `(vertex buffer, index buffer, index count)` per mesh.
    meshes: Vec<(Buffer, Buffer, u32)>,
    linear: Sampler,
    nearest: Sampler,
    pools: Vec<DescriptorPool>,
}

impl Targets {
    fn new(ctx: &VkContext, p: &Passes) -> VkResult<Targets> {
        use raw::BufferUsageFlags as B;
        use raw::ImageUsageFlags as U;
        let (width, height) = (p.width, p.height);
        let pattern = |u: U| {
            Image2D::new(
                ctx,
                PATTERN_SIZE,
                PATTERN_SIZE,
                raw::Format::R16G16B16A16_SFLOAT,
                U::STORAGE | u,
            )
        };
        let mut meshes = Vec::new();
        for m in &p.meshes {
            meshes.push((
                Buffer::with_data(ctx, &m.vertices, B::VERTEX_BUFFER)?,
                Buffer::with_data(ctx, &m.indices, B::INDEX_BUFFER)?,
                m.indices.len() as u32,
            ));
        }
        Ok(Targets {
            extent: raw::Extent2D { width, height },
            sharp: pattern(U::SAMPLED)?,
            half_blurred: pattern(U::empty())?,
            blurred: pattern(U::SAMPLED)?,
            hdr: Image2D::new(
                ctx,
                width,
                height,
                HDR_FORMAT,
                U::COLOR_ATTACHMENT | U::SAMPLED,
            )?,
            depth: Image2D::new(
                ctx,
                width,
                height,
                DEPTH_FORMAT,
                U::DEPTH_STENCIL_ATTACHMENT,
            )?,
            display: Image2D::new(
                ctx,
                width,
                height,
                DISPLAY_FORMAT,
                U::COLOR_ATTACHMENT | U::TRANSFER_SRC,
            )?,
            atlas: Image2D::texture(
                ctx,
                p.atlas.width,
                p.atlas.height,
                raw::Format::R8_UNORM,
                &p.atlas.texels,
            )?,
            readback: Buffer::new(ctx, width as u64 * height as u64 * 4, B::TRANSFER_DST)?,
            buffers: p
                .buffers
                .iter()
                .map(|b| Buffer::with_data(ctx, b, B::UNIFORM_BUFFER | B::STORAGE_BUFFER))
                .collect::<VkResult<_>>()?,
            meshes,
            linear: Sampler::new(ctx, raw::Filter::LINEAR)?,
            nearest: Sampler::new(ctx, raw::Filter::NEAREST)?,
            pools: Vec::new(),
        })
    }

    fn image(&self, id: ImageId) -> &Image2D {
        match id {
            ImageId::Sharp => &self.sharp,
            ImageId::HalfBlurred => &self.half_blurred,
            ImageId::Blurred => &self.blurred,
            ImageId::Hdr => &self.hdr,
            ImageId::Atlas => &self.atlas,
        }
    }

    /// One descriptor set per set index `resources` name, each from a fresh pool, written.
    fn sets(
        &mut self,
        ctx: &VkContext,
        layout: &PipelineLayout,
        resources: &[Bound],
    ) -> VkResult<Vec<(u32, raw::DescriptorSet)>> {
        let mut indices: Vec<u32> = resources.iter().map(|b| b.set).collect();
        indices.sort_unstable();
        indices.dedup();
        let mut sets = Vec::new();
        for index in indices {
            let set_layout = layout.set_layouts().get(index as usize).ok_or_else(|| {
                VkError::Other(format!("the pipeline layout has no descriptor set {index}"))
            })?;
            let pool = DescriptorPool::for_layout(ctx, layout, 1)?;
            let set = pool.allocate(set_layout)?;
            for b in resources.iter().filter(|b| b.set == index) {
                let read_only = raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
                // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
                unsafe {
                    match b.resource {
                        Resource::StorageImage(id) => {
                            pool.write_storage_image(set, b.binding, self.image(id))
                        }
                        Resource::Sampled(id, filter) => {
                            let sampler = match filter {
                                Filter::Linear => &self.linear,
                                Filter::Nearest => &self.nearest,
                            };
                            pool.write_sampled_image(
                                set,
                                b.binding,
                                self.image(id),
                                sampler,
                                read_only,
                            )
                        }
                        Resource::UniformBuffer(i) => pool.write_buffer(
                            set,
                            b.binding,
                            raw::DescriptorType::UNIFORM_BUFFER,
                            &self.buffers[i],
                        ),
                        Resource::StorageBuffer(i) => pool.write_buffer(
                            set,
                            b.binding,
                            raw::DescriptorType::STORAGE_BUFFER,
                            &self.buffers[i],
                        ),
                    }
                }
            }
            self.pools.push(pool);
            sets.push((index, set));
        }
        Ok(sets)
    }

    fn draws(&mut self, lib: &mut ShaderLibrary, draws: &[passes::Draw]) -> VkResult<Vec<Draw>> {
        let ctx = lib.context().clone();
        let mut out = Vec::new();
        for d in draws {
            let pipeline = lib.graphics_pipeline(d.info, &graphics_options(d.info))?;
            let sets = self.sets(&ctx, pipeline.layout(), &d.resources)?;
            let geometry = match &d.geometry {
                Geometry::Vertices { buffer, count } => {
                    let handle = match buffer {
                        Some(bytes) => {
                            let b = Buffer::with_data(
                                &ctx,
                                bytes,
                                raw::BufferUsageFlags::VERTEX_BUFFER,
                            )?;
                            let handle = b.handle();
                            self.buffers.push(b);
                            Some(handle)
                        }
                        None => None,
                    };
                    Ok((handle, *count))
                }
                Geometry::Mesh(i) => Err(*i),
            };
            out.push(Draw {
                pipeline,
                sets,
                geometry,
                push: d.push.clone(),
            });
        }
        Ok(out)
    }
}

/// Renders the demo frame at `width` × `height` with the library's pipelines (created on first use) and reads
/// it back: the passes are prepared first (everything that can fail), then recorded into one command buffer.
/// Fails cleanly when the size exceeds the device's image limit.
pub fn render_frame(lib: &mut ShaderLibrary, width: u32, height: u32) -> VkResult<Frame> {
    let ctx = lib.context().clone();
    let max = ctx.properties().limits.max_image_dimension2_d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(VkError::Other(format!(
            "a {width}x{height} frame does not fit {}: images are 1..={max} texels on a side",
            ctx.device_name()
        )));
    }
    let p = passes::describe(lib.registry(), width, height).map_err(VkError::Diagnostics)?;
    let mut t = Targets::new(&ctx, &p)?;
    let mut dispatches = Vec::new();
    for d in &p.dispatches {
        let pipeline = lib.compute_pipeline(d.info)?;
        let sets = t.sets(&ctx, pipeline.layout(), &d.resources)?;
        dispatches.push(Dispatch {
            pipeline,
            sets,
            push: d.push.clone(),
            groups: d.groups,
        });
    }
    let prepass_draws = t.draws(lib, &p.prepass)?;
    let scene_draws = t.draws(lib, &p.scene)?;
    let display_draws = t.draws(lib, &p.display)?;
    let mut recorded = Ok(());
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; every pipeline, set, buffer and image used is alive until the wait returns
        // (`t` and the prepared draws); each image is transitioned before use, and every rendering scope uses
        // formats that match its pipelines (both come from `graphics_options`).
        recorded = unsafe {
            record_compute(d, cmd, &t, &dispatches)
                .and_then(|()| record_prepass(d, cmd, &t, &prepass_draws))
                .and_then(|()| record_scene(d, cmd, &t, &scene_draws))
                .and_then(|()| record_display(d, cmd, &t, &display_draws))
        };
    })?;
    recorded?;
    // The frame has completed: the memory its spilled push-constant blocks were written to (the widgets' 260-byte
    // block) can be written again by the next frame.
    let layouts = dispatches.iter().map(|d| d.pipeline.layout()).chain(
        [&prepass_draws, &scene_draws, &display_draws]
            .into_iter()
            .flatten()
            .map(|d| d.pipeline.layout()),
    );
    for layout in layouts {
        // SAFETY: `submit_and_wait` returned above: the frame's command buffer, the only one that pushed through
        // these layouts, has completed.
        unsafe { layout.recycle_pushed()? };
    }
    Ok(Frame {
        width,
        height,
        rgba: t.readback.read(),
    })
}

use raw::AccessFlags2 as A;
use raw::ImageLayout as L;
use raw::PipelineStageFlags2 as S;
const READ_ONLY: L = L::SHADER_READ_ONLY_OPTIMAL;

/// Binds `sets` at their indices.
///
/// # Safety
/// `cmd` must be recording and the sets and `layout` alive.
unsafe fn bind_sets(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    point: raw::PipelineBindPoint,
    layout: &PipelineLayout,
    sets: &[(u32, raw::DescriptorSet)],
) {
    for (index, set) in sets {
        // SAFETY: guaranteed by the caller.
        unsafe { d.cmd_bind_descriptor_sets(cmd, point, layout.handle(), *index, &[*set], &[]) };
    }
}

/// The dispatches in order, each reading what the one before wrote; then the sharp and the blurred images become
/// readable by fragment shaders.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_compute(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    dispatches: &[Dispatch],
) -> VkResult<()> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        for image in [&t.sharp, &t.half_blurred, &t.blurred] {
            image.transition(
                cmd,
                L::UNDEFINED,
                L::GENERAL,
                S::NONE,
                A::NONE,
                S::COMPUTE_SHADER,
                A::SHADER_STORAGE_WRITE | A::SHADER_STORAGE_READ,
            );
        }
        for (i, dispatch) in dispatches.iter().enumerate() {
            if i > 0 {
                let barrier = [raw::MemoryBarrier2::default()
                    .src_stage_mask(S::COMPUTE_SHADER)
                    .src_access_mask(A::SHADER_STORAGE_WRITE)
                    .dst_stage_mask(S::COMPUTE_SHADER)
                    .dst_access_mask(A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE)];
                d.cmd_pipeline_barrier2(
                    cmd,
                    &raw::DependencyInfo::default().memory_barriers(&barrier),
                );
            }
            let layout = dispatch.pipeline.layout();
            let point = raw::PipelineBindPoint::COMPUTE;
            d.cmd_bind_pipeline(cmd, point, dispatch.pipeline.handle());
            bind_sets(d, cmd, point, layout, &dispatch.sets);
            layout.push(cmd, &dispatch.push)?;
            let [x, y, z] = dispatch.groups;
            d.cmd_dispatch(cmd, x, y, z);
        }
        for image in [&t.sharp, &t.blurred] {
            image.transition(
                cmd,
                L::GENERAL,
                READ_ONLY,
                S::COMPUTE_SHADER,
                A::SHADER_STORAGE_WRITE,
                S::FRAGMENT_SHADER,
                A::SHADER_SAMPLED_READ,
            );
        }
    }
    Ok(())
}

/// Records `draws` with a full-frame viewport and scissor, inside a rendering scope.
///
/// # Safety
/// `cmd` must be recording inside a rendering scope whose formats match the draws' pipelines, and everything used
/// alive until it completes.
unsafe fn record_draws(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    draws: &[Draw],
) -> VkResult<()> {
    let viewport = raw::Viewport {
        x: 0.0,
        y: 0.0,
        width: t.extent.width as f32,
        height: t.extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    // SAFETY: guaranteed by the caller.
    unsafe {
        d.cmd_set_viewport(cmd, 0, &[viewport]);
        d.cmd_set_scissor(cmd, 0, &[full_area(t.extent)]);
        let point = raw::PipelineBindPoint::GRAPHICS;
        for draw in draws {
            let layout = draw.pipeline.layout();
            d.cmd_bind_pipeline(cmd, point, draw.pipeline.handle());
            bind_sets(d, cmd, point, layout, &draw.sets);
            layout.push(cmd, &draw.push)?;
            match draw.geometry {
                Ok((vertex_buffer, count)) => {
                    if let Some(vb) = vertex_buffer {
                        d.cmd_bind_vertex_buffers(cmd, 0, &[vb], &[0]);
                    }
                    d.cmd_draw(cmd, count, 1, 0, 0);
                }
                Err(mesh) => {
                    let (vb, ib, count) = &t.meshes[mesh];
                    d.cmd_bind_vertex_buffers(cmd, 0, &[vb.handle()], &[0]);
                    d.cmd_bind_index_buffer(cmd, ib.handle(), 0, raw::IndexType::UINT32);
                    d.cmd_draw_indexed(cmd, *count, 1, 0, 0, 0);
                }
            }
        }
    }
    Ok(())
}

/// The depth prepass: the depth target cleared to 1, then every opaque object's depth (no color attachment: the
/// depth-only technique declares no fragment output).
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_prepass(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    draws: &[Draw],
) -> VkResult<()> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.depth.transition(
            cmd,
            L::UNDEFINED,
            L::DEPTH_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
        );
        let depth_attachment = raw::RenderingAttachmentInfo::default()
            .image_view(t.depth.view())
            .image_layout(L::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(raw::AttachmentLoadOp::CLEAR)
            .store_op(raw::AttachmentStoreOp::STORE)
            .clear_value(raw::ClearValue {
                depth_stencil: raw::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            });
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(full_area(t.extent))
                .layer_count(1)
                .depth_attachment(&depth_attachment),
        );
        record_draws(d, cmd, t, draws)?;
        d.cmd_end_rendering(cmd);
    }
    Ok(())
}

/// The lit geometry into the HDR target (cleared to the sky color), tested against the prepass's depth, then the
/// glass blended over it; then the HDR target becomes readable by the tonemap pass.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_scene(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    draws: &[Draw],
) -> VkResult<()> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.hdr.transition(
            cmd,
            L::UNDEFINED,
            L::COLOR_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
        );
        // The prepass's depth, written, is tested (and, for nothing here, written) by this pass.
        t.depth.transition(
            cmd,
            L::DEPTH_ATTACHMENT_OPTIMAL,
            L::DEPTH_ATTACHMENT_OPTIMAL,
            S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            A::DEPTH_STENCIL_ATTACHMENT_WRITE,
            S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
        );
        let color = [color_attachment(&t.hdr, scene::SKY)];
        let depth_attachment = raw::RenderingAttachmentInfo::default()
            .image_view(t.depth.view())
            .image_layout(L::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(raw::AttachmentLoadOp::LOAD)
            .store_op(raw::AttachmentStoreOp::DONT_CARE);
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(full_area(t.extent))
                .layer_count(1)
                .color_attachments(&color)
                .depth_attachment(&depth_attachment),
        );
        record_draws(d, cmd, t, draws)?;
        d.cmd_end_rendering(cmd);
        t.hdr.transition(
            cmd,
            L::COLOR_ATTACHMENT_OPTIMAL,
            READ_ONLY,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
            S::FRAGMENT_SHADER,
            A::SHADER_SAMPLED_READ,
        );
    }
    Ok(())
}

/// Tonemap and 2D into the display target, then its copy into the readback buffer.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_display(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    draws: &[Draw],
) -> VkResult<()> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.display.transition(
            cmd,
            L::UNDEFINED,
            L::COLOR_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
        );
        let color = [color_attachment(&t.display, DISPLAY_CLEAR)];
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(full_area(t.extent))
                .layer_count(1)
                .color_attachments(&color),
        );
        record_draws(d, cmd, t, draws)?;
        d.cmd_end_rendering(cmd);
        t.display.transition(
            cmd,
            L::COLOR_ATTACHMENT_OPTIMAL,
            L::TRANSFER_SRC_OPTIMAL,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
            S::COPY,
            A::TRANSFER_READ,
        );
        t.display.copy_to_buffer(cmd, &t.readback);
    }
    Ok(())
}

/// A color attachment cleared to `clear` and stored.
fn color_attachment(image: &Image2D, clear: [f32; 4]) -> raw::RenderingAttachmentInfo<'static> {
    raw::RenderingAttachmentInfo::default()
        .image_view(image.view())
        .image_layout(L::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(raw::AttachmentLoadOp::CLEAR)
        .store_op(raw::AttachmentStoreOp::STORE)
        .clear_value(raw::ClearValue {
            color: raw::ClearColorValue { float32: clear },
        })
}

/// The whole frame.
fn full_area(extent: raw::Extent2D) -> raw::Rect2D {
    raw::Rect2D {
        offset: raw::Offset2D::default(),
        extent,
    }
}
