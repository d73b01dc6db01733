//! Regression: a push-constant block's Rust twin is longer than the block when the derives demand tail padding
//! (`float dt; vec2 gravity; uint count;` is 20 bytes in std430, its `#[derive(ShaderStruct)]` twin 24), and a
//! `#[derive(ShaderInfo)]` struct is its own block's twin (36 bytes used, 48 with padding). Pushing the twin's
//! `bytemuck::bytes_of` used to hand wgpu more bytes than the range (the dispatch was dropped with an uncaptured
//! error) and break `PipelineLayout::push`'s contract on ash. Both backends now take the block or its twin, push
//! the block, and refuse any other length with an error naming the info. Validation is on; any message fails.

use glam::{Vec2, Vec4};
use gpu::library::LibraryOptions;
use gpu::vk::{Buffer, DescriptorPool, ShaderLibrary, raw};
use gpu::wgpu::{Bind, PushConstants, WgpuLibrary};
use shader_info::{
    Code, Frequency, Pad, Qualifier, Registry, ShaderCreateInfo, ShaderInfo, ShaderStruct, Type,
};

/// A one-invocation compute info that writes four floats to `result`, from `source`, with `pushes` as its first
/// push constants.
fn dispatch_info(name: &str, source: &str, pushes: &[(Type, &str)]) -> ShaderCreateInfo {
    pushes
        .iter()
        .fold(
            ShaderCreateInfo::new(name).storage_buf(
                0,
                Qualifier::Write,
                "float",
                "result[]",
                Frequency::Pass,
            ),
            |info, (ty, member)| info.push_constant(*ty, *member),
        )
        .local_group_size(1)
        .compute_source(source)
}

/// The builder info: the block is 20 bytes, its twin 24.
fn builder_info() -> ShaderCreateInfo {
    dispatch_info(
        "test_push_twin",
        "twin.comp.glsl",
        &[
            (Type::Float, "dt"),
            (Type::Vec2, "gravity"),
            (Type::Uint, "count"),
        ],
    )
}

/// A block with an array member: WebGPU's immediates take no arrays, so its WGSL reads it from a storage buffer on
/// both wgpu paths (36 bytes used, 48 with padding).
fn array_info() -> ShaderCreateInfo {
    dispatch_info("test_push_array", "array.comp.glsl", &[])
        .push_constant_array(Type::Vec4, "planes", 2)
        .push_constant(Type::Uint, "n")
}

/// A block over the 64 bytes every WebGPU implementation's immediates take (mat4 + vec4 + uint: 84 bytes, 96 in
/// WGSL): its WGSL file reads it from the storage buffer, and the wgpu backend moves it back into immediates on a
/// device that takes them (Vulkan: 128 bytes or more).
fn wide_info() -> ShaderCreateInfo {
    dispatch_info(
        "test_push_wide",
        "wide.comp.glsl",
        &[
            (Type::Mat4, "model"),
            (Type::Vec4, "tint"),
            (Type::Uint, "count"),
        ],
    )
}

const WIDE_COMP: &str = "void main() {\n  result[0] = model[0].x;\n  result[1] = model[3].w;\n  result[2] = tint.z;\n  result[3] = float(count);\n}\n";

fn wide_bytes() -> Vec<u8> {
    let mut v = vec![0.0f32; 24];
    v[0] = 0.75;
    v[15] = -2.5;
    v[18] = 8.25;
    v[20] = f32::from_bits(5);
    bytemuck::cast_slice(&v).to_vec()
}

/// A block over the 128 bytes every Vulkan device takes (three mat4 + uint: 196 bytes, 208 in WGSL), spilled to a
/// declared storage buffer at the same place as the buffer path's: it stays a buffer on every path, even on a device
/// whose immediates would hold it.
fn spilled_info() -> ShaderCreateInfo {
    dispatch_info(
        "test_push_spilled",
        "spilled.comp.glsl",
        &[
            (Type::Mat4, "a"),
            (Type::Mat4, "b"),
            (Type::Mat4, "c"),
            (Type::Uint, "n"),
        ],
    )
}

const SPILLED_COMP: &str = "void main() {\n  result[0] = a[0].x;\n  result[1] = b[1].y;\n  result[2] = c[3].w;\n  result[3] = float(n);\n}\n";

fn spilled_bytes() -> Vec<u8> {
    let mut v = vec![0.0f32; 52];
    v[0] = 1.5;
    v[16 + 5] = -4.0;
    v[32 + 15] = 9.5;
    v[48] = f32::from_bits(3);
    bytemuck::cast_slice(&v).to_vec()
}

const ARRAY_COMP: &str = "void main() {\n  result[0] = planes[0].x;\n  result[1] = planes[1].w;\n  result[2] = float(n);\n  result[3] = planes[n - 10u].y;\n}\n";

fn array_bytes() -> Vec<u8> {
    let mut v: Vec<f32> = vec![1.25, 2.5, 0.0, 0.0, 0.0, -3.5, 0.0, 6.75];
    v.push(f32::from_bits(11));
    v.resize(12, 0.0);
    bytemuck::cast_slice(&v).to_vec()
}

const TWIN_COMP: &str = "void main() {\n  result[0] = dt;\n  result[1] = gravity.x;\n  result[2] = gravity.y;\n  result[3] = float(count);\n}\n";

/// The builder info's block as the derive demands it: tail padding to the block's 8-byte alignment.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct TwinPush {
    dt: f32,
    _pad0: Pad<4>,
    gravity: Vec2,
    count: u32,
    _pad1: Pad<4>,
}

/// The `#[derive(ShaderInfo)]` shape: the struct is the block (36 bytes used, 48 with its tail padding).
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "test_push_twin_derived",
    storage_buf(0, Write, "float", "result[]", Pass),
    local_group_size(1),
    compute_source("derived.comp.glsl")
)]
struct DerivedPush {
    a: Vec4,
    b: Vec4,
    n: u32,
    _pad: Pad<12>,
}

const DERIVED_COMP: &str = "void main() {\n  result[0] = a.x;\n  result[1] = b.w;\n  result[2] = float(n);\n  result[3] = a.y + b.z;\n}\n";

fn twin() -> TwinPush {
    TwinPush {
        dt: 0.5,
        _pad0: Pad::default(),
        gravity: Vec2::new(-9.75, 2.25),
        count: 7,
        _pad1: Pad::default(),
    }
}

fn derived() -> DerivedPush {
    DerivedPush {
        a: Vec4::new(1.5, 2.0, 0.0, 0.0),
        b: Vec4::new(0.0, 0.0, 3.0, 4.5),
        n: 11,
        _pad: Pad::default(),
    }
}

/// The cases: (info, the twin's bytes, the values the shader writes back).
fn cases() -> [(&'static str, Vec<u8>, [f32; 4]); 5] {
    [
        ("test_push_spilled", spilled_bytes(), [1.5, -4.0, 9.5, 3.0]),
        ("test_push_array", array_bytes(), [1.25, 6.75, 11.0, -3.5]),
        ("test_push_wide", wide_bytes(), [0.75, -2.5, 8.25, 5.0]),
        (
            "test_push_twin",
            bytemuck::bytes_of(&twin()).to_vec(),
            [0.5, -9.75, 2.25, 7.0],
        ),
        (
            "test_push_twin_derived",
            bytemuck::bytes_of(&derived()).to_vec(),
            [1.5, 4.5, 11.0, 5.0],
        ),
    ]
}

fn registry() -> Registry {
    let mut reg = Registry::global().clone();
    reg.add_info(builder_info());
    reg.add_info(array_info());
    reg.add_info(wide_info());
    reg.add_info(spilled_info());
    reg
}

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("twin.comp.glsl"), TWIN_COMP).unwrap();
    std::fs::write(dir.path().join("derived.comp.glsl"), DERIVED_COMP).unwrap();
    std::fs::write(dir.path().join("array.comp.glsl"), ARRAY_COMP).unwrap();
    std::fs::write(dir.path().join("wide.comp.glsl"), WIDE_COMP).unwrap();
    std::fs::write(dir.path().join("spilled.comp.glsl"), SPILLED_COMP).unwrap();
    dir
}

#[test]
fn the_twins_are_longer_than_their_blocks() {
    let reg = registry();
    for (key, bytes, _) in cases() {
        let plan = shader_info::PipelinePlan::new(&reg.validated(key).unwrap(), &reg);
        let pc = plan.push_constants.unwrap();
        assert!(bytes.len() as u32 > pc.size, "{key}: {} bytes", bytes.len());
        assert_eq!(bytes.len() as u32, pc.twin_size(), "{key}");
    }
    assert!(
        shader_info::PipelinePlan::new(&reg.validated("test_push_twin").unwrap(), &reg)
            .push_constant_problems::<TwinPush>(&reg)
            .is_empty()
    );
}

fn vk_dispatch(lib: &mut ShaderLibrary, key: &str, push: &[u8]) -> gpu::vk::VkResult<Vec<f32>> {
    let ctx = lib.context().clone();
    let p = lib.compute_pipeline(key)?;
    let out = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER)?;
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1)?;
    let set = pool.allocate(&p.layout().set_layouts()[0])?;
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 0, raw::DescriptorType::STORAGE_BUFFER, &out) };
    let mut pushed = Ok(());
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; the pipeline, its layout, the set and the buffer outlive the wait.
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
            pushed = p.layout().push(cmd, push);
            if pushed.is_ok() {
                d.cmd_dispatch(cmd, 1, 1, 1);
            }
            gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })?;
    pushed?;
    Ok(out.read_vec::<f32>())
}

#[test]
fn ash_pushes_the_block_of_a_padded_twin_and_refuses_other_lengths() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    for (key, bytes, want) in cases() {
        let got = vk_dispatch(&mut lib, key, &bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(got, want, "{key}");
        // The block alone works too.
        let size = lib.plan(key).unwrap().push_constants.unwrap().size as usize;
        assert_eq!(vk_dispatch(&mut lib, key, &bytes[..size]).unwrap(), want);
        // Any other length is refused, naming the info; nothing reaches the device.
        let e = vk_dispatch(&mut lib, key, &bytes[..size - 4]).unwrap_err();
        let d = e.into_diagnostics(key);
        assert_eq!((d[0].code, d[0].info.as_str()), (Code::HostMismatch, key));
        assert!(
            d[0].message
                .contains(&format!("{} bytes were pushed", size - 4)),
            "{}",
            d[0].message
        );
    }
    drop(lib);
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

fn wgpu_dispatch(lib: &mut WgpuLibrary, key: &str, push: &[u8]) -> gpu::wgpu::WgpuResult<Vec<f32>> {
    use gpu::wgpu::raw as w;
    let ctx = lib.context().clone();
    let p = lib.compute_pipeline(key)?;
    let out = gpu::wgpu::testing::storage_buffer(&ctx, &[0u8; 16]);
    let group = p.bind_group(&ctx, &[("result", Bind::Buffer(&out))])?;
    let push = p.push(&ctx, push)?;
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&w::ComputePassDescriptor::default());
        pass.set_pipeline(&p.pipeline);
        group.set_compute(&mut pass);
        push.set_compute(&mut pass);
        pass.dispatch_workgroups(1, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    Ok(bytemuck::cast_slice(&gpu::wgpu::testing::read_buffer(&ctx, &out)).to_vec())
}

#[test]
fn wgpu_pushes_the_block_of_a_padded_twin_on_both_paths_and_refuses_other_lengths() {
    let dir = root();
    // Immediates, the storage-buffer path, immediates capped at a browser's 64 bytes (the wide block takes the
    // buffer path, as its WGSL file has it) and below the 48-byte block (then that block takes it too), shader and
    // layout alike.
    for (immediates, cap) in [
        (true, None),
        (false, None),
        (true, Some(64)),
        (true, Some(32)),
    ] {
        let Some(ctx) = gpu::wgpu::testing::test_context_with(gpu::wgpu::WgpuContextOptions {
            immediates,
            max_immediate_size: cap,
            ..Default::default()
        }) else {
            return;
        };
        let mut lib = WgpuLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
        // The wide block (96 bytes in WGSL) is immediates where the device takes that many: natively, uncapped.
        let wide = &lib
            .compute_pipeline("test_push_wide")
            .unwrap()
            .layouts
            .push_constants;
        let fits = ctx.has_immediates() && ctx.device.limits().max_immediate_size >= 96;
        assert_eq!(
            fits,
            (immediates, cap) == (true, None),
            "lavapipe takes 128 bytes or more"
        );
        assert_eq!(
            matches!(wide, PushConstants::Immediates { size: 96 }),
            fits,
            "{wide:?} (immediates {immediates}, cap {cap:?})"
        );
        for (key, bytes, want) in cases() {
            let got = wgpu_dispatch(&mut lib, key, &bytes)
                .unwrap_or_else(|e| panic!("{key} (immediates {immediates}): {e}"));
            assert_eq!(got, want, "{key} (immediates {immediates})");
            let size = lib.plan(key).unwrap().push_constants.unwrap().size as usize;
            assert_eq!(wgpu_dispatch(&mut lib, key, &bytes[..size]).unwrap(), want);
            let e = wgpu_dispatch(&mut lib, key, &bytes[..size - 4]).unwrap_err();
            let d = e.into_diagnostics(key);
            assert_eq!((d[0].code, d[0].info.as_str()), (Code::HostMismatch, key));
        }
        gpu::wgpu::testing::assert_quiet(&ctx);
    }
}
