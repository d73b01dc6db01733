//! An error wgpu raises about the library's objects between two reloads is reported by the next `wait_reload`
//! (or `poll_reload`) without taking the watcher's changes: the edit saved meanwhile is reloaded at the call after.
//! The reload used to take the batch and then return the raised error, and the edit was never reloaded.

use shader_info::{Code, Frequency, Qualifier, Registry, ShaderCreateInfo};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::wgpu::WgpuLibrary;
use std::time::Duration;

/// A compute info `name` filling a storage buffer from `fill.comp.glsl`.
fn fill(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .storage_buf(0, Qualifier::ReadWrite, "uint", "data[]", Frequency::Pass)
        .local_group_size(1)
        .compute_source("fill.comp.glsl")
}

/// A dispatch of `p` without its bind group: wgpu raises an error about the pipeline, later, outside any call.
fn dispatch_without_group(
    ctx: &shader_info_gpu::wgpu::WgpuContext,
    p: &shader_info_gpu::wgpu::ComputePipeline,
) {
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p.pipeline);
        pass.dispatch_workgroups(1, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    ctx.wait_idle();
}

#[test]
fn a_raised_error_does_not_swallow_the_edit_saved_meanwhile() {
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("fill.comp.glsl");
    std::fs::write(&source, "void main() { data[0] = 1u; }\n").unwrap();
    let mut reg = Registry::new();
    reg.add_info(fill("raised_fill"));
    let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    lib.watch(Duration::from_millis(50)).unwrap();
    let p = lib.compute_pipeline("raised_fill").unwrap();
    dispatch_without_group(&ctx, &p);
    std::fs::write(&source, "void main() { data[0] = 2u; }\n").unwrap();
    // Give the watcher the edit (debounced) before the call that reports the raised error.
    std::thread::sleep(Duration::from_millis(400));
    let e = lib
        .wait_reload(Duration::from_secs(5))
        .expect("the raised error is reported")
        .expect_err("the raised error comes first");
    let d = e.diagnostics();
    assert!(
        d.iter()
            .any(|d| d.code == Code::Device && d.info == "raised_fill"),
        "{e}"
    );
    let report = lib
        .wait_reload(Duration::from_secs(10))
        .expect("the edit is still to reload")
        .unwrap();
    assert!(
        report
            .changed_files
            .iter()
            .any(|f| f.ends_with("fill.comp.glsl")),
        "{:?}",
        report.changed_files
    );
    assert_eq!(report.modules_changed.len(), 1, "{report:?}");
    drop((p, lib));
    // The errors were the test's own doing (the dispatch without its group); nothing else was raised.
    assert!(
        ctx.uncaptured_errors()
            .iter()
            .all(|e| e.contains("raised_fill") || e.contains("Invalid")),
        "{:?}",
        ctx.uncaptured_errors()
    );
}

/// A renderer that makes the same mistake every frame: the context keeps the latest errors, not every one, and a
/// caller that asks every frame gets only what is new. The list used to grow for as long as the renderer ran, and
/// the library copied all of it at every fetch.
#[test]
fn uncaptured_errors_are_bounded_and_read_from_where_the_caller_left_off() {
    use shader_info_gpu::wgpu::KEPT_ERRORS;
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let raise = |n: usize| {
        for i in 0..n {
            // A buffer both mappable for reading and a vertex buffer: refused, outside any error scope.
            let _ = ctx
                .device
                .create_buffer(&shader_info_gpu::wgpu::raw::BufferDescriptor {
                    label: Some(&format!("bad_{i}")),
                    size: 16,
                    usage: shader_info_gpu::wgpu::raw::BufferUsages::MAP_READ
                        | shader_info_gpu::wgpu::raw::BufferUsages::VERTEX,
                    mapped_at_creation: false,
                });
        }
        ctx.wait_idle();
    };
    raise(3);
    let (seen, first) = ctx.uncaptured_errors_since(0);
    assert_eq!((seen, first.len()), (3, 3), "{first:?}");
    raise(KEPT_ERRORS + 10);
    let (total, new) = ctx.uncaptured_errors_since(seen);
    assert_eq!(total, 3 + KEPT_ERRORS as u64 + 10);
    assert_eq!(new.len(), KEPT_ERRORS, "only the latest are kept");
    assert!(
        new.last()
            .is_some_and(|e| e.contains(&format!("bad_{}", KEPT_ERRORS + 9))),
        "{:?}",
        new.last()
    );
    assert_eq!(ctx.uncaptured_errors().len(), KEPT_ERRORS);
    raise(1);
    let (_, newer) = ctx.uncaptured_errors_since(total);
    assert_eq!(newer.len(), 1, "{newer:?}");
    assert!(ctx.uncaptured_errors_since(total + 1).1.is_empty());
}

/// A mistake repeated every frame, about a key the renderer does not fetch again while it fetches others: its
/// error waits once for that key's fetch, not once per frame (the pending list grew by one per frame).
#[test]
fn a_repeated_raised_error_waits_once_for_its_key() {
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("fill.comp.glsl"),
        "void main() { data[0] = 1u; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    for name in ["repeat_fill", "repeat_other"] {
        reg.add_info(fill(name));
    }
    let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let p = lib.compute_pipeline("repeat_fill").unwrap();
    for _ in 0..5 {
        // The same mistake each frame; the frame fetches only the other pipeline.
        dispatch_without_group(&ctx, &p);
        lib.compute_pipeline("repeat_other")
            .expect("an error about another key does not fail this fetch");
    }
    let e = lib
        .compute_pipeline("repeat_fill")
        .map(drop)
        .expect_err("the raised error, at its key's fetch");
    let d = e.diagnostics();
    // Once per distinct message (wgpu raises one at the encoder and one at the submit), not once per frame (10).
    assert!(d.len() <= 2, "{e}");
    assert!(
        d.iter()
            .all(|d| d.code == Code::Device && d.info == "repeat_fill"),
        "{e}"
    );
    lib.compute_pipeline("repeat_fill")
        .expect("reported once, then the fetch works");
    drop((p, lib));
}
