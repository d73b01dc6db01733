//! The hot-reload soak on the Vulkan library (lavapipe in CI, validation on): seeded random edits to a small shader
//! tree — valid edits, syntax errors, deletes, delete-and-recreate, write-then-rename, truncate-then-write in two
//! halves with a reload between, header edits, include cycles, includes leaving the root, binary garbage, empty
//! files — each followed by a reload and checked against a model of the tree (`soak_support`): no panic, every info
//! still has a pipeline, an info whose sources are valid runs the current source (its pixel or its computed
//! value); at the end no validation message and a library equal to a freshly built one. Then the same through the
//! real file watcher, counting missed and duplicated reloads.
//!
//! `SOAK_STEPS` (default 1,000) and `SOAK_WATCH_EDITS` (default 100) size it; `SOAK_SEED=…` reproduces a run.
//! Without Vulkan it skips, unless `SHADER_INFO_REQUIRE_VULKAN=1`.

mod soak_support;
mod vk_support;

use shader_info_gpu::library::ReloadReport;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{
    Buffer, GraphicsOptions, LibraryOptions, PipelineOutcome, ShaderLibrary, raw,
};
use soak_support::*;
use std::time::Duration;
use vk_support::{SIZE, dispatch, render};

struct Vulkan<'a> {
    lib: &'a mut ShaderLibrary,
    vb: &'a Buffer,
    out: &'a Buffer,
}

impl Soaked for Vulkan<'_> {
    fn reload(&mut self) -> Result<ReloadReport, String> {
        self.lib.reload().map_err(|e| e.to_string())
    }

    fn observe(&mut self) -> ([u8; 4], u32) {
        observe(self.lib, self.vb, self.out)
    }
}

/// What one library currently draws and computes.
fn observe(lib: &mut ShaderLibrary, vb: &Buffer, out: &Buffer) -> ([u8; 4], u32) {
    let quad = lib
        .graphics_pipeline("soak_quad", &GraphicsOptions::default())
        .expect("every info keeps a pipeline");
    let fill = lib
        .compute_pipeline("soak_fill")
        .expect("every info keeps a pipeline");
    let frame = render(lib.context(), &quad, &[vb], 6, &[]);
    dispatch(lib.context(), &fill, &[out], 1);
    (pixel(&frame, SIZE, 16, 16), out.read_vec::<u32>()[0])
}

#[test]
fn a_thousand_random_edits_never_lose_a_pipeline() {
    let Some(ctx) = test_context() else { return };
    let (seed, steps) = (seed(), env("SOAK_STEPS", 1_000));
    eprintln!("soak: {steps} steps, SOAK_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (reg, _) = base(root);
    let mut lib = ShaderLibrary::new(&ctx, reg.clone(), LibraryOptions::new(root)).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let out = Buffer::new(&ctx, 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let mut stats = soak(
        &mut Vulkan {
            lib: &mut lib,
            vb: &vb,
            out: &out,
        },
        root,
        seed,
        steps,
    );
    // The restored tree: the library equals a freshly built one.
    let mut fresh = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(root)).unwrap();
    assert_eq!(observe(&mut lib, &vb, &out), observe(&mut fresh, &vb, &out));
    assert_eq!(lib.pipeline_count(), fresh.pipeline_count());
    eprintln!("{}", stats.report("soak", steps));
    drop((lib, fresh, vb, out));
    assert_no_validation_messages(&ctx);
}
/// Valid edits through the real file watcher, in the save patterns editors use: every edit reaches the pipeline
/// (none missed), and reloads without anything new are counted as duplicates.
#[test]
fn the_watcher_sees_every_edit() {
    let Some(ctx) = test_context() else { return };
    let edits = env("SOAK_WATCH_EDITS", 100) as usize;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (reg, _) = base(root);
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(root)).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let out = Buffer::new(&ctx, 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    observe(&mut lib, &vb, &out);
    lib.watch(Duration::from_millis(30)).unwrap();
    let (mut missed, mut duplicates, mut reloads) = (0, 0, 0);
    for i in 0..edits {
        // A red the picture does not show yet, so that the change is visible.
        let red = REDS[i % REDS.len()];
        let expected = Model {
            red: Some(red),
            scale: Some(1),
            value: Some(7),
            comp_ok: true,
        }
        .pixel()
        .unwrap();
        match i % 3 {
            0 => write(root, "common/tint.glsl", header(red)),
            1 => {
                write(root, ".t.tmp", header(red));
                std::fs::rename(root.join(".t.tmp"), root.join("common/tint.glsl")).unwrap();
            }
            _ => {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(root.join("common/tint.glsl"))
                    .unwrap();
                f.write_all(header(red).as_bytes()).unwrap();
            }
        }
        let mut seen = false;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !seen && std::time::Instant::now() < deadline {
            let Some(r) = lib.wait_reload(Duration::from_millis(500)) else {
                continue;
            };
            let r = r.unwrap();
            reloads += 1;
            if r.pipelines
                .iter()
                .all(|(_, o)| *o == PipelineOutcome::Unchanged)
                && !r.modules_changed.is_empty()
            {
                duplicates += 1;
            }
            seen = observe(&mut lib, &vb, &out).0 == expected;
        }
        missed += usize::from(!seen);
    }
    // What arrives after the last edit is a duplicate.
    while let Some(r) = lib.wait_reload(Duration::from_millis(300)) {
        r.unwrap();
        reloads += 1;
        duplicates += 1;
    }
    eprintln!(
        "watcher: {edits} edits, {reloads} reloads, {missed} missed, {duplicates} duplicated"
    );
    assert_eq!(missed, 0, "every edit reaches the pipeline");
    drop((lib, vb, out));
    assert_no_validation_messages(&ctx);
}
