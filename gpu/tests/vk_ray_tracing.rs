//! Ray-tracing pipelines: a clear "unsupported" error on devices without `VK_KHR_ray_tracing_pipeline`
//! (lavapipe); on devices with it, a raygen/miss/closest-hit pipeline with its shader binding table, and a
//! launch whose raygen writes are checked exactly.

mod vk_support;

use shader_info::{Frequency, MemoryLoader, Qualifier, Registry, ShaderCreateInfo, Stage};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{
    Buffer, DescriptorPool, LayoutCache, PipelineLayout, RayTracingPipeline, SpecValues, VkError,
    describe_layout, raw,
};
use std::sync::Arc;
use vk_support::{module, validated};

fn registry() -> (Registry, MemoryLoader) {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_rt")
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .raygen_source("rt.rgen.glsl")
            .miss_source("rt.rmiss.glsl")
            .closest_hit_source("rt.rchit.glsl"),
    );
    let loader = MemoryLoader::default()
        .with(
            "rt.rgen.glsl",
            "layout(location = 0) rayPayloadEXT vec4 payload;\n\
             void main() { data[gl_LaunchIDEXT.x] = gl_LaunchIDEXT.x * 3u + 1u; }\n",
        )
        .with(
            "rt.rmiss.glsl",
            "layout(location = 0) rayPayloadInEXT vec4 payload;\nvoid main() { payload = vec4(0.0); }\n",
        )
        .with(
            "rt.rchit.glsl",
            "layout(location = 0) rayPayloadInEXT vec4 payload;\nvoid main() { payload = vec4(1.0); }\n",
        );
    (reg, loader)
}

#[test]
fn ray_tracing_pipelines_are_created_where_supported_and_refused_clearly_elsewhere() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, "test_rt");
    let cache = LayoutCache::new(&ctx);
    let desc = describe_layout(&plan);
    let rt_stages = raw::ShaderStageFlags::RAYGEN_KHR
        | raw::ShaderStageFlags::MISS_KHR
        | raw::ShaderStageFlags::CLOSEST_HIT_KHR;
    assert_eq!(desc.sets[0][0].stages, rt_stages);
    let layout = Arc::new(PipelineLayout::new(&ctx, &cache, &desc).unwrap());

    let Some(rt) = ctx.ray_tracing() else {
        // Without the extension no ray-tracing module may even be created: the error comes first.
        let err = RayTracingPipeline::new(&ctx, &plan, &[], layout.clone(), &SpecValues::default())
            .unwrap_err();
        assert!(matches!(err, VkError::Unsupported { .. }), "{err}");
        assert!(
            err.to_string().contains("VK_KHR_ray_tracing_pipeline"),
            "{err}"
        );
        eprintln!("{}: {err}", ctx.device_name());
        drop((layout, cache));
        assert_no_validation_messages(&ctx);
        return;
    };
    eprintln!("{}: ray tracing {rt:?}", ctx.device_name());
    let stages = [Stage::RayGen, Stage::Miss, Stage::ClosestHit];
    let modules: Vec<_> = stages
        .iter()
        .map(|s| module(&ctx, &reg, &loader, &info, *s))
        .collect();
    let refs: Vec<(Stage, &shader_info_gpu::vk::ShaderModule)> =
        stages.iter().copied().zip(modules.iter()).collect();
    let t = std::time::Instant::now();
    let p = RayTracingPipeline::new(&ctx, &plan, &refs, layout.clone(), &SpecValues::default())
        .unwrap();
    eprintln!(
        "ray-tracing pipeline created in {:.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let sbt = p.sbt();
    let base = rt.shader_group_base_alignment as u64;
    for r in [&sbt.raygen, &sbt.miss, &sbt.hit] {
        assert_ne!(r.device_address, 0);
        assert_eq!(
            r.device_address % base,
            0,
            "regions start at shaderGroupBaseAlignment"
        );
    }
    assert_eq!(sbt.raygen.stride, sbt.raygen.size);
    assert_eq!(sbt.callable.size, 0);

    const N: u32 = 64;
    let out = Buffer::new(&ctx, N as u64 * 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 0, raw::DescriptorType::STORAGE_BUFFER, &out) };
    let loader_rt = shader_info_gpu::vk::ash::khr::ray_tracing_pipeline::Device::new(
        ctx.instance(),
        ctx.device(),
    );
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, SBT and set live until the wait returns.
        unsafe {
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::RAY_TRACING_KHR, p.handle());
            d.cmd_bind_descriptor_sets(
                cmd,
                raw::PipelineBindPoint::RAY_TRACING_KHR,
                p.layout().handle(),
                0,
                &[set],
                &[],
            );
            loader_rt.cmd_trace_rays(
                cmd,
                &sbt.raygen,
                &sbt.miss,
                &sbt.hit,
                &sbt.callable,
                N,
                1,
                1,
            );
            shader_info_gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::RAY_TRACING_SHADER_KHR,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })
    .unwrap();
    let expected: Vec<u32> = (0..N).map(|i| i * 3 + 1).collect();
    assert_eq!(out.read_vec::<u32>(), expected);
    drop((p, pool, out, modules, layout, cache));
    assert_no_validation_messages(&ctx);
}
