//! The demo frame through wgpu against the same frame through ash, on one device (lavapipe in CI) with validation
//! on for both: the whole frame (compute, lit 3D, tonemap, images, shapes, points, text) from one description,
//! with at most 0.1 % of pixels differing by more than 2 in a channel, on both of wgpu's push-constant paths.
//! A binding off by one, a std140/WGSL offset mismatch or a flipped axis shows up here as wrong pixels.
//!
//! Without Vulkan these tests skip, unless `SHADER_INFO_REQUIRE_VULKAN=1`.

use gpu::library::LibraryOptions;
use gpu::vk::ShaderLibrary;
use gpu::wgpu::WgpuLibrary;
use shader_info::Registry;
use shaders::pipelines::is_known_driver_warning;

// The infos are registered by linking the crate.
use shaders as _;

/// At most this share of pixels may differ by more than [`TOLERANCE`] in some channel.
const MAX_DIFFERING: f64 = 0.001;
const TOLERANCE: u8 = 2;

#[test]
fn the_demo_frame_through_wgpu_matches_the_frame_through_ash() {
    let (w, h) = (640, 360);
    let Some(vk) = gpu::vk::testing::test_context() else {
        return;
    };
    let mut lib = ShaderLibrary::new(
        &vk,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap();
    // The frame's pipeline set, warmed up; then strict mode proves the frame creates no pipeline.
    let passes = shaders::demo::passes::describe(lib.registry(), w, h).unwrap();
    let set = shaders::demo::passes::pipeline_set(&passes, shaders::pipelines::graphics_options);
    let warm = lib.warm_up(&set);
    assert!(warm.failed.is_empty(), "{:?}", warm.failed);
    lib.set_strict(true);
    let reference = shaders::demo::render_frame(&mut lib, w, h).unwrap();
    assert_eq!(
        (lib.stats().warmed, lib.stats().late_count()),
        (set.len(), 0)
    );
    drop(lib);
    gpu::vk::testing::assert_no_validation_messages_but(&vk, is_known_driver_warning);
    assert!(reference.distinct_colors() > 1000);

    for immediates in [true, false] {
        let Some(ctx) = gpu::wgpu::testing::test_context(immediates) else {
            return;
        };
        let mut lib = WgpuLibrary::new(
            &ctx,
            Registry::global().clone(),
            LibraryOptions::new(shaders::glsl_root()),
        )
        .unwrap();
        let set = shaders::demo::passes::pipeline_set(&passes, shaders::pipelines::render_options);
        let warm = lib.warm_up(&set);
        assert!(warm.failed.is_empty(), "{:?}", warm.failed);
        lib.set_strict(true);
        let frame = shaders::demo::wgpu::render_frame(&mut lib, w, h)
            .unwrap_or_else(|e| panic!("the demo frame through wgpu: {e}"));
        assert_eq!(
            (lib.stats().warmed, lib.stats().late_count()),
            (set.len(), 0)
        );
        let (max, mean, share) = frame.difference(&reference, TOLERANCE).unwrap();
        eprintln!(
            "wgpu (immediates {immediates}, {}) vs ash, {w}x{h}: max difference {max}, mean {mean:.4}, \
             {:.4} % of pixels differ by more than {TOLERANCE}",
            ctx.device_name(),
            share * 100.0
        );
        assert!(
            share <= MAX_DIFFERING,
            "{:.3} % of pixels differ by more than {TOLERANCE} (max {max}, mean {mean:.3}): the backends draw \
             different pictures",
            share * 100.0
        );
        // Not two blank frames that agree.
        assert!(frame.distinct_colors() > 1000);
        drop(lib);
        gpu::wgpu::testing::assert_quiet(&ctx);
    }
}

/// A frame size the device cannot have is an error naming the limit on both backends, never a panic.
#[test]
fn an_impossible_frame_size_is_an_error_on_wgpu() {
    let Some(ctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let mut lib = WgpuLibrary::new(
        &ctx,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap();
    for (w, h) in [(0, 10), (10, 0), (1 << 20, 16)] {
        let e = shaders::demo::wgpu::render_frame(&mut lib, w, h)
            .err()
            .unwrap_or_else(|| panic!("{w}x{h} rendered"));
        assert!(e.to_string().contains("texels on a side"), "{e}");
    }
}

/// `render --backend wgpu` as a function: every pipeline WebGPU can have, the ones it cannot listed with the reason,
/// the PNG written, no validation message.
#[cfg(feature = "cli")]
#[test]
fn render_through_wgpu_reports_every_pipeline_and_writes_the_frame() {
    use shaders::demo::run::{Backend, GraphicsOptions, render_to_png};
    if gpu::wgpu::testing::test_context(true).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    let report = render_to_png(
        Registry::global(),
        &shaders::glsl_root(),
        &out,
        &GraphicsOptions {
            size: (320, 180),
            backend: Backend::Wgpu,
            ..GraphicsOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("render --backend wgpu: {e}"));
    assert!(report.success(), "{}", report.to_text());
    assert_eq!(report.backend, Backend::Wgpu);
    let skipped: Vec<&str> = report
        .pipelines
        .skipped
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert!(
        skipped.contains(&"gpu_shader_2D_point_round"),
        "{skipped:?}"
    );
    assert!(report.pipelines.created.len() >= 27, "{}", report.to_text());
    let png = shaders::demo::Frame::read_png(&out).unwrap();
    assert_eq!((png.width, png.height), (320, 180));
    assert_eq!(report.to_json()["backend"], "wgpu");
}
