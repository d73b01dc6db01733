//! Shared code of the `vk_*` tests: generate GLSL from private infos, compile with glslc, run compute, render.
#![allow(dead_code)]

use shader_info::{
    GenerateOptions, MemoryLoader, PipelinePlan, Registry, ShaderCreateInfo, Stage,
    ValidateOptions, ValidatedInfo, generate,
};
use shader_info_gpu::vk::raw;
use shader_info_gpu::vk::testing::{OffscreenDraw, draw_offscreen};
use shader_info_gpu::vk::{
    Buffer, ComputePipeline, DescriptorPool, GraphicsPipeline, ShaderModule, VkContext,
};

/// Two triangles covering the middle half of the target (±0.5 in clip space).
pub const HALF_QUAD: [[f32; 2]; 6] = [
    [-0.5, -0.5],
    [0.5, -0.5],
    [0.5, 0.5],
    [-0.5, -0.5],
    [0.5, 0.5],
    [-0.5, 0.5],
];

/// Two triangles covering the whole target.
pub const FULL_QUAD: [[f32; 2]; 6] = [
    [-1.0, -1.0],
    [1.0, -1.0],
    [1.0, 1.0],
    [-1.0, -1.0],
    [1.0, 1.0],
    [-1.0, 1.0],
];

/// Validation options that do not require completeness: these infos test one layer at a time.
fn partial(reg: &Registry) -> ValidateOptions<'_> {
    ValidateOptions {
        registry: reg,
        extra_type_names: &[],
        require_complete: false,
    }
}

/// Validates `name` (completeness not required) and derives its plan.
pub fn validated(reg: &Registry, name: &str) -> (ValidatedInfo, PipelinePlan) {
    let info = ValidatedInfo::new(reg.resolve(name).unwrap(), &partial(reg))
        .unwrap_or_else(|d| panic!("{}", shader_info::render_all(&d)));
    let plan = PipelinePlan::new(&info, reg);
    (info, plan)
}

/// Every diagnostic of `name`, warnings included (completeness not required); `name` must resolve.
pub fn problems(reg: &Registry, name: &str) -> Vec<shader_info::Diagnostic> {
    shader_info::validate(&reg.resolve(name).unwrap(), &partial(reg))
}

/// The plan of one info on its own.
pub fn plan(info: ShaderCreateInfo) -> PipelinePlan {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info);
    validated(&reg, &name).1
}

/// Generates `stage` of `info` with sources from `loader` and compiles it with glslc.
pub fn compile(
    reg: &Registry,
    loader: &MemoryLoader,
    info: &ValidatedInfo,
    stage: Stage,
) -> Vec<u32> {
    let opts = GenerateOptions::new(loader, reg);
    let g = generate(info, stage, &opts).unwrap_or_else(|d| panic!("{d:#?}"));
    let compiler = shader_info_gpu::compiler::Compiler::new(std::env::temp_dir()).unwrap();
    compiler
        .compile_generated(&g, shader_info_gpu::compiler::Profile::Release)
        .unwrap_or_else(|e| panic!("{e}\n{}", g.source))
        .spirv
        .clone()
}

pub fn module(
    ctx: &VkContext,
    reg: &Registry,
    loader: &MemoryLoader,
    info: &ValidatedInfo,
    stage: Stage,
) -> ShaderModule {
    ShaderModule::new(ctx, &compile(reg, loader, info, stage)).unwrap()
}

/// Binds `buffers` as storage buffers 0.. of set 0, dispatches `groups` workgroups and waits.
pub fn dispatch(ctx: &VkContext, p: &ComputePipeline, buffers: &[&Buffer], groups: u32) {
    let bound: Vec<(u32, raw::DescriptorType, &Buffer)> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| (i as u32, raw::DescriptorType::STORAGE_BUFFER, *b))
        .collect();
    dispatch_bound(ctx, p, &bound, groups);
}

/// Records binding `p` with `set` at set 0 and dispatching `groups` workgroups.
///
/// # Safety
/// `cmd` must be recording, and `p` and `set` alive until it completes.
pub unsafe fn record_dispatch(
    d: &shader_info_gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    p: &ComputePipeline,
    set: raw::DescriptorSet,
    groups: u32,
) {
    // SAFETY: guaranteed by the caller.
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
    }
}

/// Binds each `(binding, type, buffer)` in set 0, dispatches `groups` workgroups and waits.
pub fn dispatch_bound(
    ctx: &VkContext,
    p: &ComputePipeline,
    buffers: &[(u32, raw::DescriptorType, &Buffer)],
    groups: u32,
) {
    let pool = DescriptorPool::for_layout(ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    for (binding, ty, b) in buffers {
        // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
        unsafe { pool.write_buffer(set, *binding, *ty, b) };
    }
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, layout and set are alive until the wait returns.
        unsafe {
            record_dispatch(d, cmd, p, set, groups);
            shader_info_gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
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
    let draw = OffscreenDraw {
        size: SIZE,
        clear: CLEAR,
        vertex_buffers,
        sets: &[],
        push,
        vertex_count,
    };
    draw_offscreen(ctx, p, &draw)
}

/// CLEAR as RGBA8.
pub fn clear_rgba8() -> [u8; 4] {
    CLEAR.map(|c| (c * 255.0).round() as u8)
}

/// The compute pipeline of `module` with the layout of `plan` and default specialization; an error is the
/// backend's (a subgroup operation the device lacks, …).
pub fn compute_pipeline(
    ctx: &VkContext,
    plan: &PipelinePlan,
    module: &ShaderModule,
) -> shader_info_gpu::vk::VkResult<ComputePipeline> {
    ComputePipeline::new(
        ctx,
        plan,
        module,
        plan_layout(ctx, plan)?,
        &shader_info_gpu::vk::SpecValues::default(),
    )
}

/// The pipeline layout `plan` describes.
fn plan_layout(
    ctx: &VkContext,
    plan: &PipelinePlan,
) -> shader_info_gpu::vk::VkResult<std::sync::Arc<shader_info_gpu::vk::PipelineLayout>> {
    let cache = shader_info_gpu::vk::LayoutCache::new(ctx);
    let desc = shader_info_gpu::vk::describe_layout(plan);
    Ok(std::sync::Arc::new(
        shader_info_gpu::vk::PipelineLayout::new(ctx, &cache, &desc)?,
    ))
}

/// The vertex + fragment pipeline of `info` with the default graphics options (its modules compiled from `loader`,
/// its layout from `plan`); an error is the backend's, e.g. a device feature the declaration needs.
pub fn graphics_pipeline(
    ctx: &VkContext,
    reg: &Registry,
    loader: &MemoryLoader,
    info: &ValidatedInfo,
    plan: &PipelinePlan,
) -> shader_info_gpu::vk::VkResult<GraphicsPipeline> {
    let vs = module(ctx, reg, loader, info, Stage::Vertex);
    let fs = module(ctx, reg, loader, info, Stage::Fragment);
    GraphicsPipeline::new(
        ctx,
        plan,
        &[(Stage::Vertex, &vs), (Stage::Fragment, &fs)],
        plan_layout(ctx, plan)?,
        &shader_info_gpu::vk::GraphicsOptions::default(),
    )
}
