//! A `#[derive(ShaderInfo)]` info used the way a renderer uses it, with no name, number or string on the host
//! side: the variant chosen by its generated branch struct, the push by its own struct, the resources by its
//! generated set structs — on ash and on wgpu (lavapipe, validation on; any message fails), with the result read
//! back. What the derive cannot see at compile time (which variant has a conditional resource, a set handed to a
//! pipeline of another info through the untyped API) is refused at the call, naming the resource.
//! The compile-time refusals (a resource left out, of the wrong kind, another info's set on a typed pipeline, a
//! mistyped branch) are the UI tests of `shader-info-macros`.

use gpu::library::LibraryOptions;
use gpu::vk::{Buffer, DescriptorPool, ShaderLibrary, VkHost, raw};
use gpu::wgpu::{WgpuHost, WgpuLibrary};
use shader_info::{BindingSet, Code, Diagnostic, Registry, ShaderInfo};

/// `values[i] = values[i] * scale + offset.x`, negated and biased in the `NEGATE` variant, which alone declares
/// `bias`.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "test_typed_scale",
    storage_buf(0, ReadWrite, "float", "values[]", Batch),
    uniform_buf(0, "vec4", "offset", Pass),
    branch("NEGATE"),
    resources_if(branch("NEGATE"), uniform_buf(1, "vec4", "bias", Pass)),
    local_group_size(4),
    compute_source("typed_scale.comp.glsl")
)]
struct TypedScale {
    scale: f32,
    count: u32,
}

/// Another info with a `Pass` set of the same shape.
#[derive(Clone, Copy, Debug, ShaderInfo)]
#[shader(
    name = "test_typed_other",
    uniform_buf(0, "vec4", "offset", Pass),
    storage_buf(0, Write, "float", "out_values[]", Batch),
    local_group_size(1),
    compute_source("typed_other.comp.glsl")
)]
struct TypedOther;

const SCALE: &str = "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  if (i >= count) { return; }\n  float v = values[i] * scale + offset.x;\n#if BRANCH_NEGATE\n  v = bias.x - v;\n#endif\n  values[i] = v;\n}\n";
const OTHER: &str = "void main() {\n  out_values[0] = offset.x;\n}\n";

const INPUT: [f32; 4] = [1.0, 2.0, 3.0, 4.0];
const OFFSET: [f32; 4] = [0.5, 0.0, 0.0, 0.0];
const BIAS: [f32; 4] = [10.0, 0.0, 0.0, 0.0];
const PUSH: TypedScale = TypedScale {
    scale: 2.0,
    count: 4,
};

/// The values each variant computes from [`INPUT`].
fn expected(negate: bool) -> Vec<f32> {
    INPUT
        .iter()
        .map(|x| {
            let v = x * 2.0 + 0.5;
            if negate { 10.0 - v } else { v }
        })
        .collect()
}

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("typed_scale.comp.glsl"), SCALE).unwrap();
    std::fs::write(dir.path().join("typed_other.comp.glsl"), OTHER).unwrap();
    dir
}

/// Asserts one host-mismatch error whose message names every one of `names`.
fn refused(d: &[Diagnostic], names: &[&str]) {
    assert!(
        d.iter()
            .any(|d| d.code == Code::HostMismatch && names.iter().all(|n| d.message.contains(n))),
        "no host-mismatch naming {names:?}:\n{}",
        shader_info::render_all(d)
    );
}

#[test]
fn the_generated_sets_and_branches_name_what_the_derive_declares() {
    assert_eq!(
        <TypedScalePassSet<'_, VkHost> as BindingSet<'_, VkHost>>::SET,
        0
    );
    assert_eq!(
        <TypedScaleBatchSet<'_, WgpuHost> as BindingSet<'_, WgpuHost>>::INFO,
        "test_typed_scale"
    );
    assert_eq!(
        shader_info::Branches::values(&TypedScaleBranches { negate: true }),
        vec![("NEGATE", true)]
    );
}

#[test]
fn ash_binds_a_derive_info_from_its_generated_structs() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(
        &ctx,
        Registry::global().clone(),
        LibraryOptions::new(dir.path()),
    )
    .unwrap();
    let usage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let offset = Buffer::with_data(&ctx, &OFFSET, raw::BufferUsageFlags::UNIFORM_BUFFER).unwrap();
    let bias = Buffer::with_data(&ctx, &BIAS, raw::BufferUsageFlags::UNIFORM_BUFFER).unwrap();
    for negate in [false, true] {
        let key = lib.variant_of(&TypedScaleBranches { negate }).unwrap();
        let p = lib.typed_compute::<TypedScale>(&key).unwrap();
        let values = Buffer::with_data(&ctx, &INPUT, usage).unwrap();
        let pool = DescriptorPool::for_layout(&ctx, p.layout(), 2).unwrap();
        let batch = p
            .bind(&pool, &TypedScaleBatchSet::<VkHost> { values: &values })
            .unwrap();
        // The derive cannot know which variant has `bias`: the call says so, naming it.
        let wrong = TypedScalePassSet::<VkHost> {
            offset: &offset,
            bias: if negate { None } else { Some(&bias) },
        };
        let d = p
            .bind(&pool, &wrong)
            .unwrap_err()
            .into_diagnostics(key.as_ref());
        refused(
            &d,
            &["`bias`", if negate { "left out" } else { "not a resource" }],
        );
        let pass = TypedScalePassSet::<VkHost> {
            offset: &offset,
            bias: negate.then_some(&bias),
        };
        let pass = p.bind(&pool, &pass).unwrap();
        let mut pushed = Ok(());
        ctx.submit_and_wait(|d, cmd| {
            // SAFETY: `cmd` is recording on `ctx`'s device and the pipeline is bound before the push.
            unsafe {
                d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::COMPUTE, p.handle());
                for (index, set) in [pass, batch] {
                    d.cmd_bind_descriptor_sets(
                        cmd,
                        raw::PipelineBindPoint::COMPUTE,
                        p.layout().handle(),
                        index,
                        &[set],
                        &[],
                    );
                }
                pushed = p.push(cmd, &PUSH);
                d.cmd_dispatch(cmd, 1, 1, 1);
                gpu::vk::resource::host_read_barrier(
                    d,
                    cmd,
                    raw::PipelineStageFlags2::COMPUTE_SHADER,
                    raw::AccessFlags2::SHADER_WRITE,
                );
            }
        })
        .unwrap();
        pushed.unwrap();
        assert_eq!(values.read_vec::<f32>(), expected(negate), "{key}");
    }
    // The set of another info, through the untyped pipeline: refused, naming both infos.
    let p = lib.compute_pipeline(TypedScale::NAME).unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let d = p
        .layout()
        .bind(&pool, &TypedOtherPassSet::<VkHost> { offset: &offset })
        .unwrap_err()
        .into_diagnostics(TypedScale::NAME);
    refused(
        &d,
        &["TypedOtherPassSet", "test_typed_other", "test_typed_scale"],
    );
    drop((p, pool, offset, bias, lib));
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_binds_a_derive_info_from_its_generated_structs() {
    use gpu::wgpu::raw as w;
    use w::util::DeviceExt;
    let Some(ctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = root();
    let mut lib = WgpuLibrary::new(
        &ctx,
        Registry::global().clone(),
        LibraryOptions::new(dir.path()),
    )
    .unwrap();
    let uniform = |data: &[f32; 4]| {
        ctx.device
            .create_buffer_init(&w::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: w::BufferUsages::UNIFORM,
            })
    };
    let (offset, bias) = (uniform(&OFFSET), uniform(&BIAS));
    for negate in [false, true] {
        let key = lib.variant_of(&TypedScaleBranches { negate }).unwrap();
        let p = lib.typed_compute::<TypedScale>(&key).unwrap();
        let values = gpu::wgpu::testing::storage_buffer(&ctx, bytemuck::cast_slice(&INPUT));
        let batch = p
            .bind(&ctx, &TypedScaleBatchSet::<WgpuHost> { values: &values })
            .unwrap();
        let wrong = TypedScalePassSet::<WgpuHost> {
            offset: &offset,
            bias: if negate { None } else { Some(&bias) },
        };
        let d = p
            .bind(&ctx, &wrong)
            .unwrap_err()
            .into_diagnostics(key.as_ref());
        refused(
            &d,
            &["`bias`", if negate { "left out" } else { "not a resource" }],
        );
        let pass = p
            .bind(
                &ctx,
                &TypedScalePassSet::<WgpuHost> {
                    offset: &offset,
                    bias: negate.then_some(&bias),
                },
            )
            .unwrap();
        let push = p.push(&ctx, &PUSH).unwrap();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut cpass = enc.begin_compute_pass(&w::ComputePassDescriptor::default());
            cpass.set_pipeline(&p.pipeline);
            batch.set_compute(&mut cpass);
            pass.set_compute(&mut cpass);
            push.set_compute(&mut cpass);
            cpass.dispatch_workgroups(1, 1, 1);
        }
        ctx.queue.submit([enc.finish()]);
        let got: Vec<f32> =
            bytemuck::cast_slice(&gpu::wgpu::testing::read_buffer(&ctx, &values)).to_vec();
        assert_eq!(got, expected(negate), "{key}");
    }
    let p = lib.compute_pipeline(TypedScale::NAME).unwrap();
    let d = p
        .bind(&ctx, &TypedOtherPassSet::<WgpuHost> { offset: &offset })
        .unwrap_err()
        .into_diagnostics(TypedScale::NAME);
    refused(
        &d,
        &["TypedOtherPassSet", "test_typed_other", "test_typed_scale"],
    );
    gpu::wgpu::testing::assert_quiet(&ctx);
    drop((p, lib));
    ctx.wait_idle();
    assert!(gpu::wgpu::messages::captured().is_empty());
}
