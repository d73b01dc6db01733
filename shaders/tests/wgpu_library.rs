//! The shader library on wgpu (lavapipe in CI, validation on): a pipeline for every graphics and compute info
//! WebGPU can express (the rest listed with the reason), with push constants as immediates and through the
//! storage-buffer path; the prefix sum and the histogram against their CPU references; hot reload that keeps the
//! previous pipeline.
//!
//! Without Vulkan these tests skip, unless `SHADER_INFO_REQUIRE_VULKAN=1`.

use gpu::library::LibraryOptions;
use gpu::wgpu::testing::{assert_quiet, read_buffer, storage_buffer, test_context};
use gpu::wgpu::{PushConstants, WgpuContext, WgpuLibrary, raw as w};
use shader_info::Registry;
use shaders::pipelines::{create_all_wgpu, render_options};
use std::path::Path;

// The infos are registered by linking the crate.
use shaders as _;

fn library(ctx: &WgpuContext, root: &Path) -> WgpuLibrary {
    WgpuLibrary::new(ctx, Registry::global().clone(), LibraryOptions::new(root)).unwrap()
}

#[test]
fn every_graphics_and_compute_info_gets_a_wgpu_pipeline_or_the_reason_webgpu_cannot_have_it() {
    for immediates in [true, false] {
        let Some(ctx) = test_context(immediates) else {
            return;
        };
        let mut lib = library(&ctx, &shaders::glsl_root());
        let report = create_all_wgpu(&mut lib);
        let failed: Vec<String> = report
            .failed
            .iter()
            .map(|f| format!("{}: {}", f.name, f.reason))
            .collect();
        assert!(failed.is_empty(), "{}", failed.join("\n\n"));
        let created: Vec<&str> = report.created.iter().map(|c| c.name.as_str()).collect();
        let reasons: Vec<String> = report
            .skipped
            .iter()
            .map(|n| format!("{}: {}", n.name, n.reason))
            .collect();
        eprintln!(
            "immediates {immediates} ({}): {} pipelines; no pipeline for {}:\n{}",
            ctx.device_name(),
            created.len(),
            report.skipped.len(),
            reasons.join("\n")
        );
        // Out of WebGPU's reach in this library: ray tracing, and point sprites sized by `gl_PointSize`.
        let expected = [
            ("gpu_raytrace_barycentric", "ray-tracing"),
            ("gpu_raytrace_lit", "ray-tracing"),
            ("gpu_shader_2D_point_round", "gl_PointSize"),
            ("gpu_shader_3D_particles", "gl_PointSize"),
        ];
        let names: Vec<&str> = report.skipped.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, expected.map(|e| e.0), "{}", reasons.join("\n"));
        for (n, (_, why)) in report.skipped.iter().zip(expected) {
            assert!(n.reason.contains(why), "{}", n.reason);
            assert!(
                n.reason.contains(&n.name),
                "the reason names the info: {}",
                n.reason
            );
        }
        assert_eq!(created.len(), 30, "{created:?}");
        assert!(created.iter().any(|k| k.starts_with("gpu_shader_mesh#v")));
        assert_eq!(lib.pipeline_count(), created.len());
        assert_quiet(&ctx);
    }
}

/// Dispatches `key` with storage buffers at group 0 bindings 0.., push bytes and a group count, returns buffer `read`.
fn dispatch(
    ctx: &WgpuContext,
    lib: &mut WgpuLibrary,
    key: &str,
    buffers: &[&w::Buffer],
    push: &[u8],
    groups: u32,
) {
    let p = lib.compute_pipeline(key).unwrap();
    let entries: Vec<w::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| w::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    let group = ctx.device.create_bind_group(&w::BindGroupDescriptor {
        label: Some(key),
        layout: &p.layouts.bind_group_layouts[0],
        entries: &entries,
    });
    let push = p.push(ctx, push).unwrap();
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p.pipeline);
        pass.set_bind_group(0, &group, &[]);
        push.set_compute(&mut pass);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    ctx.wait_idle();
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

#[test]
fn prefix_sum_and_histogram_on_wgpu_match_the_cpu_reference_on_both_push_constant_paths() {
    // Values that wrap the 32-bit sums, and more than one chunk of 256.
    let values: Vec<u32> = (0..1000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 4)
        .collect();
    let mut sum = 0u32;
    let prefix: Vec<u32> = values
        .iter()
        .map(|v| {
            sum = sum.wrapping_add(*v);
            sum
        })
        .collect();
    let bin_width = 1u32 << 20;
    let mut bins = [0u32; 256];
    for v in &values {
        bins[((v / bin_width) as usize).min(255)] += 1;
    }
    for immediates in [true, false] {
        let Some(ctx) = test_context(immediates) else {
            return;
        };
        let mut lib = library(&ctx, &shaders::glsl_root());
        let expected = if immediates && ctx.has_immediates() {
            "Immediates"
        } else {
            "Buffer"
        };
        let p = lib.compute_pipeline("gpu_compute_prefix_sum").unwrap();
        assert!(format!("{:?}", p.layouts.push_constants).starts_with(expected));
        assert!(!matches!(p.layouts.push_constants, PushConstants::None));

        let input = storage_buffer(&ctx, bytemuck::cast_slice(&values));
        let sums = storage_buffer(&ctx, &vec![0u8; values.len() * 4]);
        let count = values.len() as u32;
        dispatch(
            &ctx,
            &mut lib,
            "gpu_compute_prefix_sum",
            &[&input, &sums],
            &count.to_ne_bytes(),
            1,
        );
        assert_eq!(
            words(&read_buffer(&ctx, &sums)),
            prefix,
            "prefix sum, immediates {immediates}"
        );

        let out = storage_buffer(&ctx, &[0u8; 256 * 4]);
        let push: Vec<u8> = [count, bin_width]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        dispatch(
            &ctx,
            &mut lib,
            "gpu_compute_histogram",
            &[&input, &out],
            &push,
            count.div_ceil(256),
        );
        assert_eq!(
            words(&read_buffer(&ctx, &out)),
            bins,
            "histogram, immediates {immediates}"
        );
        assert_quiet(&ctx);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_broken_edit_keeps_the_previous_wgpu_pipeline_and_a_fixed_one_rebuilds_it() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&shaders::glsl_root(), dir.path());
    let mut lib = library(&ctx, dir.path());
    let first = lib.compute_pipeline("gpu_compute_prefix_sum").unwrap();
    lib.graphics_pipeline("gpu_shader_text", &render_options("gpu_shader_text"))
        .unwrap();

    let source = dir.path().join("compute/prefix_sum.comp.glsl");
    let good = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, good.replace("barrier();", "barrier()")).unwrap();
    let report = lib.reload().unwrap();
    let outcome = report.outcome("gpu_compute_prefix_sum").unwrap();
    let gpu::library::PipelineOutcome::KeptPrevious { diagnostics } = outcome else {
        panic!("{report}")
    };
    let text = shader_info::render_all(diagnostics);
    assert!(
        text.contains("gpu_compute_prefix_sum") && text.contains("prefix_sum.comp.glsl"),
        "{text}"
    );
    assert_eq!(
        report.outcome("gpu_shader_text"),
        Some(&gpu::library::PipelineOutcome::Unchanged)
    );
    let kept = lib.compute_pipeline("gpu_compute_prefix_sum").unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&first, &kept),
        "the previous pipeline is still the one fetched"
    );

    // A change that compiles rebuilds it (and only it).
    std::fs::write(
        &source,
        good.replace("uint carry = 0u;", "uint carry = 0u * lid;"),
    )
    .unwrap();
    let report = lib.reload().unwrap();
    assert_eq!(
        report.outcome("gpu_compute_prefix_sum"),
        Some(&gpu::library::PipelineOutcome::Rebuilt),
        "{report}"
    );
    assert_eq!(
        report.outcome("gpu_shader_text"),
        Some(&gpu::library::PipelineOutcome::Unchanged)
    );
    let rebuilt = lib.compute_pipeline("gpu_compute_prefix_sum").unwrap();
    assert!(!std::sync::Arc::ptr_eq(&first, &rebuilt));
    assert_quiet(&ctx);
}
