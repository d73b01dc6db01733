//! No frame waits for a pipeline: a pipeline asked for without blocking is built on a worker (the call returns
//! `None` and the draw can be skipped), is there at a later call, and is the pipeline the blocking fetch returns;
//! a failed background build is its error, once, until a reload; a reload in the background swaps rebuilt
//! pipelines in at a later call and keeps a working pipeline when the edit breaks it. The same core on ash and
//! wgpu (lavapipe, validation on; any message fails).

use gpu::library::{Backend, Library, LibraryOptions, PipelineOutcome, WarmUp};
use shader_info::{Code, Frequency, Qualifier, Registry, ShaderCreateInfo};
use std::path::Path;
use std::sync::Arc;

fn registry() -> Registry {
    let mut reg = Registry::new();
    for (name, file) in [
        ("bg_fill", "fill.comp.glsl"),
        ("bg_broken", "broken.comp.glsl"),
    ] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
                .local_group_size(1)
                .compute_source(file),
        );
    }
    reg
}

const FILL: &str = "void main() {\n  result[0] = 1.0;\n}\n";
const FILL_EDITED: &str = "void main() {\n  result[0] = 2.0;\n}\n";
const BROKEN: &str = "void main() {\n  result[0] = undeclared_thing;\n}\n";

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fill.comp.glsl"), FILL).unwrap();
    std::fs::write(dir.path().join("broken.comp.glsl"), BROKEN).unwrap();
    dir
}

fn render<B: Backend>(e: B::Error, key: &str) -> String {
    shader_info::render_all(&B::diagnostics(e, key))
}

/// The whole background lifecycle on one backend.
fn background_alike<B: Backend + Send + 'static>(lib: &mut Library<B>, dir: &Path) {
    // First ask: nothing is built on this thread, the draw is skipped.
    let first = lib.poll_compute_pipeline("bg_fill").unwrap();
    assert!(
        first.is_none(),
        "the first poll built on the caller's thread"
    );
    assert_eq!(lib.background_pending(), 1);
    // Asking again while it builds starts nothing more.
    match lib.poll_compute_pipeline("bg_fill").unwrap() {
        None => assert_eq!(lib.background_pending(), 1, "asked twice, building twice"),
        Some(_) => assert_eq!(lib.background_pending(), 0),
    }
    lib.wait_background();
    assert_eq!(lib.background_pending(), 0);
    let ready = lib
        .poll_compute_pipeline("bg_fill")
        .unwrap()
        .expect("built in the background");
    // The blocking fetch returns the same pipeline: nothing was built twice.
    let fetched = lib.compute_pipeline("bg_fill").unwrap();
    assert!(Arc::ptr_eq(&ready, &fetched));

    // A build that fails: its error at the next poll, naming the file, and again (not rebuilt every frame).
    assert!(lib.poll_compute_pipeline("bg_broken").unwrap().is_none());
    lib.wait_background();
    for _ in 0..2 {
        let Err(e) = lib.poll_compute_pipeline("bg_broken") else {
            panic!("a failed background build was not reported");
        };
        let text = render::<B>(e, "bg_broken");
        assert!(text.contains("undeclared_thing"), "{text}");
        assert_eq!(
            lib.background_pending(),
            0,
            "a failed build was started again"
        );
    }

    // An edit reloaded in the background: the rebuilt pipeline is swapped in at a later call; the old handle
    // stays valid for the frame that holds it.
    std::fs::write(dir.join("fill.comp.glsl"), FILL_EDITED).unwrap();
    std::fs::write(dir.join("broken.comp.glsl"), FILL).unwrap();
    assert!(lib.poll_reload_in_background(true).is_none());
    lib.wait_background();
    let report = lib
        .poll_reload_in_background(false)
        .expect("the finished reload's report")
        .unwrap();
    assert_eq!(
        report.outcome("bg_fill"),
        Some(&PipelineOutcome::Rebuilt),
        "{report}"
    );
    let rebuilt = lib.compute_pipeline("bg_fill").unwrap();
    assert!(!Arc::ptr_eq(&rebuilt, &fetched));
    // The replaced pipeline is kept while a frame in flight may use it, then dropped: a session that reloads in
    // the background for hours holds only the last frames' replacements. wgpu keeps what submitted work uses.
    if B::TRACKS_GPU_USE {
        assert_eq!(lib.retired_count(), 0);
    } else {
        // Replaced in the frame that started the reload (`wait_background` swapped it in), reported in the next:
        // with 2 frames in flight, the one after that may still run it, and the next frame drops it.
        assert_eq!(lib.retired_count(), 1);
        lib.set_frames_in_flight(2);
        assert!(lib.poll_reload_in_background(false).is_none());
        assert_eq!(
            lib.retired_count(),
            1,
            "dropped while a frame in flight may use it"
        );
        assert!(lib.poll_reload_in_background(false).is_none());
        assert_eq!(lib.retired_count(), 0, "held past the frames in flight");
    }
    // The reload cleared the failure: the fixed info builds.
    assert!(lib.poll_compute_pipeline("bg_broken").unwrap().is_none());
    lib.wait_background();
    assert!(lib.poll_compute_pipeline("bg_broken").unwrap().is_some());

    // An edit that breaks the source: the working pipeline is kept, and the report says why.
    std::fs::write(dir.join("fill.comp.glsl"), BROKEN).unwrap();
    lib.poll_reload_in_background(true);
    lib.wait_background();
    let report = lib.poll_reload_in_background(false).unwrap().unwrap();
    assert!(
        matches!(
            report.outcome("bg_fill"),
            Some(PipelineOutcome::KeptPrevious { .. })
        ),
        "{report}"
    );
    assert!(Arc::ptr_eq(
        &lib.compute_pipeline("bg_fill").unwrap(),
        &rebuilt
    ));
    std::fs::write(dir.join("fill.comp.glsl"), FILL).unwrap();

    // Frames the renderer counts itself: once it says when a frame begins, polls no longer count (a loop that
    // polls twice a frame, or while a minimized window submits nothing, would otherwise drop a pipeline early).
    lib.poll_reload_in_background(true);
    lib.wait_background();
    let report = lib.poll_reload_in_background(false).unwrap().unwrap();
    assert_eq!(
        report.outcome("bg_fill"),
        Some(&PipelineOutcome::Rebuilt),
        "{report}"
    );
    if !B::TRACKS_GPU_USE {
        assert_eq!(lib.retired_count(), 1);
        for frame in 1..=3 {
            lib.begin_frame();
            for _ in 0..4 {
                assert!(lib.poll_reload_in_background(false).is_none());
            }
            // Replaced in the frame that started the reload and reported in the next (both polls counted, before
            // the first `begin_frame`, which takes over the count without counting again): with 2 in flight, the
            // third frame begun drops it, whatever the polls.
            assert_eq!(lib.retired_count(), usize::from(frame < 3), "frame {frame}");
        }
    }

    lib.release_retired();
}

#[test]
fn ash_builds_and_reloads_in_the_background() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib =
        gpu::vk::ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    background_alike(&mut lib, dir.path());
    drop(lib);
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_builds_and_reloads_in_the_background() {
    let Some(ctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = root();
    let mut lib =
        gpu::wgpu::WgpuLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    background_alike(&mut lib, dir.path());
    gpu::wgpu::testing::assert_quiet(&ctx);
    drop(lib);
    ctx.wait_idle();
    assert!(gpu::wgpu::messages::captured().is_empty());
}

#[test]
fn a_late_background_build_is_refused_in_strict_mode() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib =
        gpu::vk::ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    lib.warm_up(&[WarmUp::Compute {
        key: "bg_broken".into(),
    }]);
    lib.set_strict(true);
    let d = lib
        .poll_compute_pipeline("bg_fill")
        .unwrap_err()
        .into_diagnostics("bg_fill");
    assert!(d.iter().any(|d| d.code == Code::LatePipeline), "{d:?}");
    assert_eq!(lib.background_pending(), 0);
    drop(lib);
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}
