//! Shared code of the `vk_*` tests: generate GLSL from private infos, compile with glslc, run compute, render.
#![allow(dead_code)]

use gpu::vk::raw;
use gpu::vk::{
    Buffer, ComputePipeline, DescriptorPool, GraphicsPipeline, Image2D, ShaderModule, VkContext,
};
use shader_info::{GenerateOptions, MemoryLoader, Registry, ResolvedInfo, Stage, generate};

/// Generates `stage` of `info` with sources from `loader` and compiles it with glslc.
pub fn compile(
    reg: &Registry,
    loader: &MemoryLoader,
    info: &ResolvedInfo,
    stage: Stage,
) -> Vec<u32> {
    let opts = GenerateOptions {
        loader,
        registry: reg,
        extra_defines: &[],
    };
    let g = generate(info, stage, &opts).unwrap_or_else(|d| panic!("{d:#?}"));
    let compiler = gpu::compiler::Compiler::new(std::env::temp_dir()).unwrap();
    compiler
        .compile_generated(&g, gpu::compiler::Profile::Release)
        .unwrap_or_else(|e| panic!("{e}\n{}", g.source))
        .spirv
        .clone()
}

pub fn module(
    ctx: &VkContext,
    reg: &Registry,
    loader: &MemoryLoader,
    info: &ResolvedInfo,
    stage: Stage,
) -> ShaderModule {
    ShaderModule::new(ctx, &compile(reg, loader, info, stage)).unwrap()
}

/// Binds `buffers` as storage buffers 0.. of set 0, dispatches `groups` workgroups and waits.
pub fn dispatch(ctx: &VkContext, p: &ComputePipeline, buffers: &[&Buffer], groups: u32) {
    let pool = DescriptorPool::for_layout(ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    for (i, b) in buffers.iter().enumerate() {
        pool.write_buffer(set, i as u32, raw::DescriptorType::STORAGE_BUFFER, b);
    }
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, layout and set are alive until the wait returns.
        unsafe {
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::COMPUTE, p.handle());
            d.cmd_bind_descriptor_sets(
                cmd,
                raw::PipelineBindPoint::COMPUTE,
                p.layout().handle(),
                0,
                &[set],
                &[],
            );
            d.cmd_dispatch(cmd, groups, 1, 1);
            let barrier = [raw::MemoryBarrier2::default()
                .src_stage_mask(raw::PipelineStageFlags2::COMPUTE_SHADER)
                .src_access_mask(raw::AccessFlags2::SHADER_WRITE)
                .dst_stage_mask(raw::PipelineStageFlags2::HOST)
                .dst_access_mask(raw::AccessFlags2::HOST_READ)];
            d.cmd_pipeline_barrier2(
                cmd,
                &raw::DependencyInfo::default().memory_barriers(&barrier),
            );
        }
    })
    .unwrap();
}

pub const SIZE: u32 = 32;
pub const CLEAR: [f32; 4] = [0.0, 0.0, 0.6, 1.0];

/// Renders `vertex_count` vertices with `p` (vertex buffers bound at 0.., push constants from `push`) into a
/// fresh SIZE×SIZE RGBA8 image cleared to CLEAR, and returns the pixels (RGBA8, row-major).
pub fn render(
    ctx: &VkContext,
    p: &GraphicsPipeline,
    vertex_buffers: &[&Buffer],
    vertex_count: u32,
    push: &[u8],
) -> Vec<u8> {
    let format = p.color_formats()[0];
    let target = Image2D::new(
        ctx,
        SIZE,
        SIZE,
        format,
        raw::ImageUsageFlags::COLOR_ATTACHMENT | raw::ImageUsageFlags::TRANSFER_SRC,
    )
    .unwrap();
    let readback = Buffer::new(
        ctx,
        (SIZE * SIZE * 4) as u64,
        raw::BufferUsageFlags::TRANSFER_DST,
    )
    .unwrap();
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; every object used is alive until the wait returns.
        unsafe {
            target.transition(
                cmd,
                raw::ImageLayout::UNDEFINED,
                raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                raw::PipelineStageFlags2::TOP_OF_PIPE,
                raw::AccessFlags2::NONE,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            );
            let color = [raw::RenderingAttachmentInfo::default()
                .image_view(target.view())
                .image_layout(raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(raw::AttachmentLoadOp::CLEAR)
                .store_op(raw::AttachmentStoreOp::STORE)
                .clear_value(raw::ClearValue {
                    color: raw::ClearColorValue { float32: CLEAR },
                })];
            let area = raw::Rect2D {
                offset: raw::Offset2D::default(),
                extent: target.extent(),
            };
            d.cmd_begin_rendering(
                cmd,
                &raw::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(1)
                    .color_attachments(&color),
            );
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, p.handle());
            d.cmd_set_viewport(
                cmd,
                0,
                &[raw::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: SIZE as f32,
                    height: SIZE as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }],
            );
            d.cmd_set_scissor(cmd, 0, &[area]);
            let handles: Vec<raw::Buffer> = vertex_buffers.iter().map(|b| b.handle()).collect();
            let offsets = vec![0u64; handles.len()];
            if !handles.is_empty() {
                d.cmd_bind_vertex_buffers(cmd, 0, &handles, &offsets);
            }
            if !push.is_empty() {
                let stages = p.layout().desc().push_constants.unwrap().stages;
                d.cmd_push_constants(cmd, p.layout().handle(), stages, 0, push);
            }
            d.cmd_draw(cmd, vertex_count, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            target.transition(
                cmd,
                raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                raw::ImageLayout::TRANSFER_SRC_OPTIMAL,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_READ,
            );
            target.copy_to_buffer(cmd, &readback);
        }
    })
    .unwrap();
    readback.read()
}

/// The RGBA8 pixel at (x, y).
pub fn pixel(pixels: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE + x) * 4) as usize;
    [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]]
}

/// CLEAR as RGBA8.
pub fn clear_rgba8() -> [u8; 4] {
    CLEAR.map(|c| (c * 255.0).round() as u8)
}
