//! Compute pipelines derived from private infos, checked exactly against CPU references; specialization
//! constants changing the result of one module.

mod vk_support;

use shader_info::{Frequency, MemoryLoader, Qualifier, Registry, ShaderCreateInfo, Stage, Type};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{
    Buffer, ComputePipeline, LayoutCache, PipelineLayout, ShaderModule, SpecValues,
    describe_layout, raw,
};
use std::sync::Arc;
use vk_support::{dispatch, module, validated};

const N: usize = 256;

fn data(n: usize, seed: u32) -> Vec<u32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x >> 20
        })
        .collect()
}

fn registry() -> (Registry, MemoryLoader) {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_buffers_in_out")
            .storage_buf(0, Qualifier::Read, "uint", "data_in[]", Frequency::Pass)
            .storage_buf(
                1,
                Qualifier::ReadWrite,
                "uint",
                "data_out[]",
                Frequency::Pass,
            ),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_prefix_sum")
            .additional_info("test_buffers_in_out")
            .local_group_size(N as u32)
            .compute_source("prefix_sum.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_histogram")
            .additional_info("test_buffers_in_out")
            .push_constant(Type::Uint, "bin_count")
            .local_group_size(64)
            .compute_source("histogram.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_specialized")
            .storage_buf(0, Qualifier::Read, "uint", "data_in[]", Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "float", "data_out[]", Frequency::Pass)
            .specialization_constant(Type::Uint, "MULTIPLIER", 2u32)
            .specialization_constant(Type::Bool, "NEGATE", false)
            .specialization_constant(Type::Float, "BIAS", 0.5f32)
            .local_group_size(64)
            .compute_source("specialized.comp.glsl"),
    );
    let loader = MemoryLoader::default()
        .with(
            "prefix_sum.comp.glsl",
            r#"
// Inclusive Hillis-Steele scan of one workgroup, double-buffered in shared memory.
shared uint tmp[2][gl_WorkGroupSize.x];
void main() {
  uint i = gl_LocalInvocationID.x;
  tmp[0][i] = data_in[i];
  barrier();
  uint src = 0u;
  for (uint off = 1u; off < gl_WorkGroupSize.x; off <<= 1) {
    uint v = tmp[src][i];
    if (i >= off) { v += tmp[src][i - off]; }
    tmp[1u - src][i] = v;
    barrier();
    src = 1u - src;
  }
  data_out[i] = tmp[src][i];
}
"#,
        )
        .with(
            "histogram.comp.glsl",
            "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  atomicAdd(data_out[data_in[i] % bin_count], 1u);\n}\n",
        )
        .with(
            "specialized.comp.glsl",
            "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  float v = float(data_in[i] * MULTIPLIER);\n  data_out[i] = (NEGATE ? -v : v) + BIAS;\n}\n",
        );
    (reg, loader)
}

fn pipeline(
    ctx: &shader_info_gpu::vk::VkContext,
    cache: &LayoutCache,
    reg: &Registry,
    loader: &MemoryLoader,
    name: &str,
    spec: &SpecValues,
) -> ComputePipeline {
    let (info, plan) = validated(reg, name);
    let m = module(ctx, reg, loader, &info, Stage::Compute);
    let layout = Arc::new(PipelineLayout::new(ctx, cache, &describe_layout(&plan)).unwrap());
    ComputePipeline::new(ctx, &plan, &m, layout, spec).unwrap()
}

#[test]
fn prefix_sum_matches_the_cpu_exactly() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    check_prefix_sum(&ctx, &reg, &loader, "test_prefix_sum", 7);
}

/// Runs the prefix-sum info `name` over one work group of seeded data and compares with the CPU's scan.
fn check_prefix_sum(
    ctx: &shader_info_gpu::vk::VkContext,
    reg: &Registry,
    loader: &MemoryLoader,
    name: &str,
    seed: u32,
) {
    let cache = LayoutCache::new(ctx);
    let p = pipeline(ctx, &cache, reg, loader, name, &SpecValues::default());
    let input = data(N, seed);
    let usage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let a = Buffer::with_data(ctx, &input, usage).unwrap();
    let b = Buffer::new(ctx, (N * 4) as u64, usage).unwrap();
    dispatch(ctx, &p, &[&a, &b], 1);
    let expected: Vec<u32> = input
        .iter()
        .scan(0u32, |s, v| {
            *s = s.wrapping_add(*v);
            Some(*s)
        })
        .collect();
    assert_eq!(b.read_vec::<u32>(), expected, "{name}");
    drop((p, a, b, cache));
    assert_no_validation_messages(ctx);
}

#[test]
fn histogram_matches_the_cpu_exactly() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    let cache = LayoutCache::new(&ctx);
    let p = pipeline(
        &ctx,
        &cache,
        &reg,
        &loader,
        "test_histogram",
        &SpecValues::default(),
    );
    const COUNT: usize = 64 * 64;
    const BINS: u32 = 16;
    let input = data(COUNT, 99);
    let usage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let a = Buffer::with_data(&ctx, &input, usage).unwrap();
    let bins = Buffer::new(&ctx, BINS as u64 * 4, usage).unwrap();
    let pool = shader_info_gpu::vk::DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 0, raw::DescriptorType::STORAGE_BUFFER, &a) };
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 1, raw::DescriptorType::STORAGE_BUFFER, &bins) };
    assert_eq!(p.layout().desc().push_constants.unwrap().size, 4);
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; everything bound lives until the wait returns.
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
            d.cmd_push_constants(
                cmd,
                p.layout().handle(),
                raw::ShaderStageFlags::COMPUTE,
                0,
                &BINS.to_ne_bytes(),
            );
            d.cmd_dispatch(cmd, (COUNT / 64) as u32, 1, 1);
            shader_info_gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })
    .unwrap();
    let mut expected = vec![0u32; BINS as usize];
    for v in &input {
        expected[(v % BINS) as usize] += 1;
    }
    assert_eq!(bins.read_vec::<u32>(), expected);
    assert_eq!(expected.iter().sum::<u32>(), COUNT as u32);
    drop((p, pool, a, bins, cache));
    assert_no_validation_messages(&ctx);
}

#[test]
fn specialization_constants_change_the_result_of_one_module() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    let cache = LayoutCache::new(&ctx);
    let (info, plan) = validated(&reg, "test_specialized");
    let m = module(&ctx, &reg, &loader, &info, Stage::Compute);
    let layout = Arc::new(PipelineLayout::new(&ctx, &cache, &describe_layout(&plan)).unwrap());
    let input = data(64, 3);
    let usage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let a = Buffer::with_data(&ctx, &input, usage).unwrap();
    let run = |spec: SpecValues| {
        let p = ComputePipeline::new(&ctx, &plan, &m, layout.clone(), &spec).unwrap();
        let out = Buffer::new(&ctx, 64 * 4, usage).unwrap();
        dispatch(&ctx, &p, &[&a, &out], 1);
        out.read_vec::<f32>()
    };
    let defaults = run(SpecValues::default());
    let changed = run(SpecValues::default()
        .set("MULTIPLIER", 3u32)
        .set("NEGATE", true)
        .set("BIAS", -0.25f32));
    for (i, v) in input.iter().enumerate() {
        assert_eq!(defaults[i], (v * 2) as f32 + 0.5);
        assert_eq!(changed[i], -((v * 3) as f32) - 0.25);
    }
    // Wrong names and types are reported, not passed to the driver.
    let bad = ComputePipeline::new(
        &ctx,
        &plan,
        &m,
        layout.clone(),
        &SpecValues::default().set("NEGATE", 1u32),
    );
    assert!(bad.unwrap_err().to_string().contains("NEGATE"));
    let bad = ComputePipeline::new(
        &ctx,
        &plan,
        &m,
        layout.clone(),
        &SpecValues::default().set("NOPE", 1u32),
    );
    assert!(bad.unwrap_err().to_string().contains("MULTIPLIER"));
    drop((m, layout, a, cache));
    assert_no_validation_messages(&ctx);
}

/// The prefix sum with its work-group memory declared in the info (`shared_variable`, sized by a constant shared
/// with Rust) instead of written in the source: the same exact result.
#[test]
fn a_declared_shared_variable_is_the_work_group_memory_of_the_shader() {
    const GROUP: u32 = N as u32;
    let Some(ctx) = test_context() else { return };
    let (mut reg, loader) = registry();
    reg.add_info(
        ShaderCreateInfo::new("test_declared_shared")
            .additional_info("test_buffers_in_out")
            .constant(shader_info::constant!(GROUP))
            .shared_variable(Type::Uint, "scan_a[GROUP]")
            .shared_variable(Type::Uint, "scan_b[GROUP]")
            .local_group_size(GROUP)
            .compute_source("declared_shared.comp.glsl"),
    );
    let loader = loader.with(
        "declared_shared.comp.glsl",
        r#"
void main() {
  uint i = gl_LocalInvocationID.x;
  scan_a[i] = data_in[i];
  barrier();
  for (uint off = 1u; off < GROUP; off <<= 1) {
    uint v = scan_a[i];
    if (i >= off) { v += scan_a[i - off]; }
    barrier();
    scan_b[i] = v;
    barrier();
    scan_a[i] = scan_b[i];
    barrier();
  }
  data_out[i] = scan_a[i];
}
"#,
    );
    let (info, plan) = validated(&reg, "test_declared_shared");
    assert_eq!(plan.shared_memory, 2 * 4 * u64::from(GROUP));
    let generated = shader_info::generate(
        &info,
        Stage::Compute,
        &shader_info::GenerateOptions::new(&loader, &reg),
    )
    .unwrap();
    assert!(
        generated.source.contains("shared uint scan_a[256];"),
        "{}",
        generated.source
    );
    check_prefix_sum(&ctx, &reg, &loader, "test_declared_shared", 11);
}

/// Shared memory past the device's limit is refused before anything is compiled, naming both numbers; past the
/// 16 KiB every device guarantees it is a warning; on a graphics info, or unsized, an error.
#[test]
fn shared_memory_is_checked_against_the_guarantee_and_the_device() {
    use shader_info_gpu::vk::{LibraryOptions, ShaderLibrary};
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tile.comp.glsl"),
        "void main() { tile[gl_LocalInvocationIndex] = vec4(1.0); barrier(); }\n",
    )
    .unwrap();
    let limit = ctx.properties().limits.max_compute_shared_memory_size;
    let elements = limit / 16 + 64;
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_huge_shared")
            .shared_variable(Type::Vec4, format!("tile[{elements}]"))
            .local_group_size(64)
            .compute_source("tile.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_shared_on_graphics")
            .vertex_in(0, Type::Vec2, "pos")
            .shared_variable(Type::Float, "x[4]")
            .vertex_source("a.vert.glsl")
            .fragment_source("a.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_unsized_shared")
            .shared_variable(Type::Float, "x[]")
            .local_group_size(64)
            .compute_source("tile.comp.glsl"),
    );
    let warned = reg.validated("test_huge_shared").unwrap();
    assert!(
        warned
            .warnings()
            .iter()
            .any(|w| w.message.contains("16384")),
        "{:?}",
        warned.warnings()
    );
    let mut lib = ShaderLibrary::new(&ctx, reg.clone(), LibraryOptions::new(dir.path())).unwrap();
    let compiled_before = lib.flow().compiler.shaderc_seconds();
    let Err(err) = lib.compute_pipeline("test_huge_shared") else {
        panic!("a pipeline past the device's shared-memory limit was created");
    };
    let text = err.to_string();
    assert!(text.contains(&limit.to_string()), "{text}");
    assert!(
        text.contains(&(u64::from(elements) * 16).to_string()),
        "{text}"
    );
    assert_eq!(
        lib.flow().compiler.shaderc_seconds(),
        compiled_before,
        "nothing compiled"
    );
    for (name, says) in [
        ("test_shared_on_graphics", "no compute stage"),
        ("test_unsized_shared", "has no size"),
    ] {
        let d = reg.validated(name).expect_err(name);
        assert!(
            d.iter()
                .any(|d| d.message.contains(says) && d.origin.line > 0),
            "{name}: {}",
            shader_info::render_all(&d)
        );
    }
    drop(lib);
    assert_no_validation_messages(&ctx);
}

/// An info written the Blender way, one slot space per kind (uniform buffer 0 beside storage buffers 0 and 1):
/// the derived bindings are distinct, the compiled module and the plan agree on them, and the shader reads and
/// writes what the host bound at the plan's bindings.
#[test]
fn slots_per_kind_derive_distinct_bindings_the_device_runs() {
    let Some(ctx) = test_context() else { return };
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_per_kind")
            .slots_per_kind()
            .storage_buf(0, Qualifier::Read, "uint", "data_in[]", Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "uint", "data_out[]", Frequency::Pass)
            .uniform_buf(0, "uvec4", "scale", Frequency::Pass)
            .local_group_size(64)
            .compute_source("scale.comp.glsl"),
    );
    let loader = MemoryLoader::default().with(
        "scale.comp.glsl",
        "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  data_out[i] = data_in[i] * scale.x + scale.y;\n}\n",
    );
    let (info, plan) = validated(&reg, "test_per_kind");
    let binding = |name: &str| {
        plan.bindings()
            .find(|(_, b)| b.name == name)
            .map(|(_, b)| b.binding)
            .unwrap()
    };
    // Uniform buffers first, then storage buffers after the highest uniform slot.
    assert_eq!(
        [binding("scale"), binding("data_in"), binding("data_out")],
        [0, 1, 2]
    );
    let spirv = vk_support::compile(&reg, &loader, &info, Stage::Compute);
    let reflected = shader_info_gpu::reflect::reflect(&spirv).unwrap();
    let mut bound: Vec<u32> = reflected.descriptors.iter().map(|d| d.binding).collect();
    bound.sort_unstable();
    assert_eq!(bound, [0, 1, 2], "the module binds what the plan derived");

    let m = ShaderModule::new(&ctx, &spirv).unwrap();
    let p = vk_support::compute_pipeline(&ctx, &plan, &m).unwrap();
    let input = data(N, 5);
    let storage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let a = Buffer::with_data(&ctx, &input, storage).unwrap();
    let b = Buffer::new(&ctx, (N * 4) as u64, storage).unwrap();
    let u = Buffer::with_data(
        &ctx,
        &[3u32, 7, 0, 0],
        raw::BufferUsageFlags::UNIFORM_BUFFER,
    )
    .unwrap();
    use raw::DescriptorType as D;
    vk_support::dispatch_bound(
        &ctx,
        &p,
        &[
            (binding("scale"), D::UNIFORM_BUFFER, &u),
            (binding("data_in"), D::STORAGE_BUFFER, &a),
            (binding("data_out"), D::STORAGE_BUFFER, &b),
        ],
        (N / 64) as u32,
    );
    let expected: Vec<u32> = input.iter().map(|v| v * 3 + 7).collect();
    assert_eq!(b.read_vec::<u32>(), expected);
    drop((p, a, b, u));
    assert_no_validation_messages(&ctx);
}

/// An atomic image type with the atomics builtin: 256 invocations add into 4 texels of an `r32ui` image, and
/// every texel holds exactly its share.
#[test]
fn an_atomic_image_counts_exactly() {
    use shader_info::{BuiltinBits, ImageType, TextureFormat};
    use shader_info_gpu::vk::Image2D;
    let Some(ctx) = test_context() else { return };
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_image_atomics")
            .builtins(BuiltinBits::TEXTURE_ATOMIC | BuiltinBits::GLOBAL_INVOCATION_ID)
            .image(
                0,
                TextureFormat::R32ui,
                Qualifier::ReadWrite,
                ImageType::AtomicUint2D,
                "counts",
                Frequency::Pass,
            )
            .local_group_size(64)
            .compute_source("count.comp.glsl"),
    );
    let loader = MemoryLoader::default().with(
        "count.comp.glsl",
        "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  imageAtomicAdd(counts, ivec2(int(i % 4u), 0), i);\n}\n",
    );
    let (info, plan) = validated(&reg, "test_image_atomics");
    let m = module(&ctx, &reg, &loader, &info, Stage::Compute);
    let p = vk_support::compute_pipeline(&ctx, &plan, &m).unwrap();
    let image = Image2D::new(
        &ctx,
        4,
        1,
        raw::Format::R32_UINT,
        raw::ImageUsageFlags::STORAGE
            | raw::ImageUsageFlags::TRANSFER_SRC
            | raw::ImageUsageFlags::TRANSFER_DST,
    )
    .unwrap();
    let zeros = Buffer::with_data(&ctx, &[0u32; 4], raw::BufferUsageFlags::TRANSFER_SRC).unwrap();
    let readback = Buffer::new(&ctx, 16, raw::BufferUsageFlags::TRANSFER_DST).unwrap();
    let pool = shader_info_gpu::vk::DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_storage_image(set, 0, &image) };
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; everything used lives until the wait returns.
        unsafe {
            image.transition(
                cmd,
                raw::ImageLayout::UNDEFINED,
                raw::ImageLayout::TRANSFER_DST_OPTIMAL,
                raw::PipelineStageFlags2::NONE,
                raw::AccessFlags2::NONE,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_WRITE,
            );
            image.copy_from_buffer(cmd, &zeros);
            image.transition(
                cmd,
                raw::ImageLayout::TRANSFER_DST_OPTIMAL,
                raw::ImageLayout::GENERAL,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_WRITE,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_STORAGE_READ | raw::AccessFlags2::SHADER_STORAGE_WRITE,
            );
            vk_support::record_dispatch(d, cmd, &p, set, 4);
            image.transition(
                cmd,
                raw::ImageLayout::GENERAL,
                raw::ImageLayout::TRANSFER_SRC_OPTIMAL,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_STORAGE_WRITE,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_READ,
            );
            image.copy_to_buffer(cmd, &readback);
        }
    })
    .unwrap();
    let expected: Vec<u32> = (0..4u32)
        .map(|t| (0..256u32).filter(|i| i % 4 == t).sum())
        .collect();
    assert_eq!(readback.read_vec::<u32>(), expected);
    drop((p, image, zeros, readback, pool));
    assert_no_validation_messages(&ctx);

    // Without the builtin, or with a format atomics do not work on, the declaration is refused.
    let mut bad = Registry::new();
    bad.add_info(
        ShaderCreateInfo::new("no_builtin")
            .sampler(0, ImageType::AtomicInt2D, "a", Frequency::Pass)
            .image(
                1,
                TextureFormat::Rgba8ui,
                Qualifier::ReadWrite,
                ImageType::AtomicUint2D,
                "b",
                Frequency::Pass,
            ),
    );
    let d = vk_support::problems(&bad, "no_builtin");
    let text = shader_info::render_all(&d);
    assert!(
        text.contains("does not declare BuiltinBits::TEXTURE_ATOMIC"),
        "{text}"
    );
    assert!(text.contains("TextureFormat::R32ui"), "{text}");
}
