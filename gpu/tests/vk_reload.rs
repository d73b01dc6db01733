//! Hot reload through the shader library: a syntax error keeps the previous pipeline (same frame), a fix rebuilds
//! it (new frame), untouched pipelines stay unchanged; the file watcher triggers reloads for the usual editor
//! save patterns.

mod vk_support;

use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo, Stage, Type};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{
    Buffer, GraphicsOptions, LibraryOptions, PipelineOutcome, ShaderLibrary, raw,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use vk_support::{SIZE, render};

use vk_support::HALF_QUAD as QUAD;

fn frag(color: &str) -> String {
    format!("void main() {{\n  frag_color = vec4({color});\n}}\n")
}

fn setup(dir: &Path) -> Registry {
    std::fs::write(
        dir.join("quad.vert.glsl"),
        "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("quad.frag.glsl"), frag("1.0, 0.2, 0.0, 1.0")).unwrap();
    std::fs::write(
        dir.join("fill.comp.glsl"),
        "void main() { data[gl_GlobalInvocationID.x] = 7u; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_reload_quad")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("quad.vert.glsl")
            .fragment_source("quad.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_reload_fill")
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("fill.comp.glsl"),
    );
    reg
}

fn frame(lib: &mut ShaderLibrary, vb: &Buffer) -> Vec<u8> {
    let p = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    render(lib.context(), &p, &[vb], 6, &[])
}

#[test]
fn a_broken_shader_keeps_the_previous_pipeline_and_a_fix_rebuilds_it() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, setup(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let fill = lib.compute_pipeline("test_reload_fill").unwrap();
    let first = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    let before = frame(&mut lib, &vb);
    assert_eq!(pixel(&before, SIZE, 16, 16), [255, 51, 0, 255]);

    // Nothing changed: nothing rebuilt.
    let r = lib.reload().unwrap();
    eprintln!("{r}");
    assert!(
        r.pipelines
            .iter()
            .all(|(_, o)| *o == PipelineOutcome::Unchanged),
        "{r:?}"
    );
    assert!(r.modules_changed.is_empty());

    // A comment changes the source but not the SPIR-V: the module and the pipeline stay.
    std::fs::write(
        dir.path().join("quad.vert.glsl"),
        "// moved\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert_eq!(
        r.outcome("test_reload_quad"),
        Some(&PipelineOutcome::Unchanged),
        "{r:?}"
    );

    // Syntax error: the previous pipeline is kept and the frame is identical.
    std::fs::write(
        dir.path().join("quad.frag.glsl"),
        "void main() {\n  frag_color = vec4(0.0, 1.0, 0.0, 1.0)\n}\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    eprintln!("{r}");
    match r.outcome("test_reload_quad") {
        Some(PipelineOutcome::KeptPrevious { diagnostics }) => {
            let text = shader_info::render(diagnostics);
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.file.as_deref() == Some("quad.frag.glsl")),
                "diagnostics name the file: {text}"
            )
        }
        other => panic!("expected KeptPrevious, got {other:?}"),
    }
    assert_eq!(
        r.outcome("test_reload_fill"),
        Some(&PipelineOutcome::Unchanged)
    );
    let kept = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    assert!(Arc::ptr_eq(&first, &kept));
    assert_eq!(frame(&mut lib, &vb), before);

    // Fixed with a new color: rebuilt, and the new frame shows it.
    std::fs::write(
        dir.path().join("quad.frag.glsl"),
        frag("0.0, 0.2, 1.0, 1.0"),
    )
    .unwrap();
    let r = lib.reload().unwrap();
    eprintln!("{r}");
    assert_eq!(
        r.outcome("test_reload_quad"),
        Some(&PipelineOutcome::Rebuilt),
        "{r:?}"
    );
    assert_eq!(
        r.outcome("test_reload_fill"),
        Some(&PipelineOutcome::Unchanged)
    );
    let rebuilt = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    assert!(!Arc::ptr_eq(&first, &rebuilt));
    let after = frame(&mut lib, &vb);
    assert_eq!(pixel(&after, SIZE, 16, 16), [0, 51, 255, 255]);
    assert_eq!(pixel(&after, SIZE, 1, 1), pixel(&before, SIZE, 1, 1));
    assert!(Arc::ptr_eq(
        &fill,
        &lib.compute_pipeline("test_reload_fill").unwrap()
    ));
    drop((first, kept, rebuilt, fill, vb, lib));
    assert_no_validation_messages(&ctx);
}

/// A binding written by hand in the source is not in the declaration, so the pipeline layout would not describe
/// it: reload reflects the new SPIR-V, reports the mismatch and keeps the previous pipeline.
#[test]
fn an_undeclared_binding_keeps_the_previous_pipeline() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, setup(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let first = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    let before = frame(&mut lib, &vb);

    std::fs::write(
        dir.path().join("quad.frag.glsl"),
        "layout(set = 0, binding = 9) uniform sampler2D sneaky;\n\
         void main() { frag_color = texture(sneaky, vec2(0.5)); }\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    eprintln!("{r}");
    match r.outcome("test_reload_quad") {
        Some(PipelineOutcome::KeptPrevious { diagnostics }) => {
            let text = shader_info::render(diagnostics);
            assert!(
                // Release SPIR-V has no debug names, so the binding is named by its numbers.
                text.contains("set 0 binding 9"),
                "diagnostics name the binding: {text}"
            )
        }
        other => panic!("expected KeptPrevious, got {other:?}"),
    }
    assert!(
        r.modules_failed
            .iter()
            .any(|(n, s, _)| n == "test_reload_quad" && *s == shader_info::Stage::Fragment),
        "{r:?}"
    );
    let kept = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    assert!(Arc::ptr_eq(&first, &kept));
    assert_eq!(frame(&mut lib, &vb), before);
    drop((first, kept, vb, lib));
    assert_no_validation_messages(&ctx);
}

/// A vertex stage that starts reading a uniform only the fragment stage read: the rebuilt pipeline's layout makes
/// the binding visible to both, so descriptor sets made for the old one do not fit it — the report says so,
/// naming the binding; an edit that changes no binding's use says nothing.
#[test]
fn a_reload_that_changes_a_bindings_stages_reports_the_new_layout() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut reg = setup(dir.path());
    std::fs::write(
        dir.path().join("tint.frag.glsl"),
        "void main() { frag_color = tint; }\n",
    )
    .unwrap();
    reg.add_info(
        ShaderCreateInfo::new("test_reload_tint")
            .vertex_in(0, Type::Vec2, "pos")
            .uniform_buf(0, "vec4", "tint", Frequency::Pass)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("quad.vert.glsl")
            .fragment_source("tint.frag.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    lib.graphics_pipeline("test_reload_tint", &GraphicsOptions::default())
        .unwrap();
    std::fs::write(
        dir.path().join("tint.frag.glsl"),
        "void main() { frag_color = tint * 0.5; }\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert_eq!(
        r.outcome("test_reload_tint"),
        Some(&PipelineOutcome::Rebuilt)
    );
    assert!(r.layouts_changed.is_empty(), "{r}");
    std::fs::write(
        dir.path().join("quad.vert.glsl"),
        "void main() { gl_Position = vec4(pos, 0.0, 1.0) * tint.w; }\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert_eq!(
        r.outcome("test_reload_tint"),
        Some(&PipelineOutcome::Rebuilt)
    );
    let [d] = &r.layouts_changed[..] else {
        panic!("one layout change expected: {r}")
    };
    assert_eq!(d.info, "test_reload_tint");
    assert!(
        d.message
            .contains("set 0 binding 0: [vert, frag] (was [frag])"),
        "{}",
        d.message
    );
    drop(lib);
    assert_no_validation_messages(&ctx);
}

/// An edit that starts writing `gl_ClipDistance` (a builtin found in the code, not declared): the reload validates
/// again against the sources as they are, so the clip distance is in the plan and the pipeline is rebuilt — as a
/// restart would build it — instead of a reflection error for an undeclared builtin.
#[test]
fn a_builtin_the_edited_code_starts_to_use_is_found_again_on_reload() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, setup(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    lib.graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    std::fs::write(
        dir.path().join("quad.vert.glsl"),
        "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n  gl_ClipDistance[0] = pos.x + 0.5;\n}\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert_eq!(
        r.outcome("test_reload_quad"),
        Some(&PipelineOutcome::Rebuilt),
        "{r}"
    );
    let p = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    // A fresh library over the same tree builds the same: the reload saw what a restart sees.
    // (`setup` writes its sources into another folder: the registry is the same, the tree read is the edited one.)
    let registry = setup(tempfile::tempdir().unwrap().path());
    let mut fresh = ShaderLibrary::new(&ctx, registry, LibraryOptions::new(dir.path())).unwrap();
    fresh
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    drop((p, lib, fresh));
    assert_no_validation_messages(&ctx);
}

/// Waits for the library's watcher to report and reload; retries briefly so a slow machine does not flake.
fn next_reload(lib: &mut ShaderLibrary) -> shader_info_gpu::vk::ReloadReport {
    lib.wait_reload(Duration::from_secs(10))
        .expect("the watcher reported no change within 10 s")
        .unwrap()
}

#[test]
fn the_watcher_reloads_on_rename_over_truncate_write_and_delete_recreate() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, setup(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    assert_eq!(
        pixel(&frame(&mut lib, &vb), SIZE, 16, 16),
        [255, 51, 0, 255]
    );
    lib.watch(Duration::from_millis(50)).unwrap();
    let path = dir.path().join("quad.frag.glsl");

    // 1. Write a temporary file, then rename it over the shader (vim's default, most IDEs).
    let tmp = dir.path().join(".quad.frag.glsl.tmp");
    std::fs::write(&tmp, frag("0.0, 1.0, 0.0, 1.0")).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let r = next_reload(&mut lib);
    eprintln!("rename-over: {r} ({:?})", r.changed_files);
    assert!(
        r.changed_files
            .iter()
            .any(|p| p.ends_with("quad.frag.glsl")),
        "{:?}",
        r.changed_files
    );
    assert_eq!(
        r.outcome("test_reload_quad"),
        Some(&PipelineOutcome::Rebuilt)
    );
    assert_eq!(pixel(&frame(&mut lib, &vb), SIZE, 16, 16), [0, 255, 0, 255]);

    // 2. Truncate, then write in place (nano, VS Code's default).
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.write_all(frag("0.0, 0.0, 1.0, 1.0").as_bytes()).unwrap();
    }
    let r = next_reload(&mut lib);
    eprintln!("truncate-write: {r}");
    assert_eq!(
        r.outcome("test_reload_quad"),
        Some(&PipelineOutcome::Rebuilt),
        "{r:?}"
    );
    assert_eq!(pixel(&frame(&mut lib, &vb), SIZE, 16, 16), [0, 0, 255, 255]);

    // 3. Delete, then create again (some tools and `git checkout`). The reload may run while the file is gone:
    //    the pipeline must survive that, and the re-created file must then rebuild it.
    std::fs::remove_file(&path).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(&path, frag("1.0, 1.0, 1.0, 1.0")).unwrap();
    let mut last = next_reload(&mut lib);
    while last.outcome("test_reload_quad") != Some(&PipelineOutcome::Rebuilt) {
        eprintln!("delete/recreate, intermediate: {last}");
        last = next_reload(&mut lib);
    }
    assert_eq!(
        pixel(&frame(&mut lib, &vb), SIZE, 16, 16),
        [255, 255, 255, 255]
    );

    // Events of the same save can arrive in two batches (the remove, then the create): later reloads find
    // nothing new. Drain them, then check that reading the sources (as every reload does) triggers nothing.
    while let Some(r) = lib.wait_reload(Duration::from_millis(300)) {
        let r = r.unwrap();
        assert!(
            r.pipelines
                .iter()
                .all(|(_, o)| *o == PipelineOutcome::Unchanged),
            "{r}"
        );
    }
    let _ = std::fs::read_to_string(&path).unwrap();
    assert!(
        lib.wait_reload(Duration::from_millis(300)).is_none(),
        "a read must not trigger a reload"
    );
    drop((vb, lib));
    assert_no_validation_messages(&ctx);
}

/// An edit that compiles in the vertex stage and breaks the fragment stage changes neither: a key's modules change
/// together, so a pipeline made before the fix (other options, a warm-up) never pairs the new vertex stage with
/// the old fragment one. The fix applies both.
#[test]
fn a_key_whose_other_stage_fails_keeps_every_stage_until_all_compile() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut lib =
        ShaderLibrary::new(&ctx, setup(dir.path()), LibraryOptions::new(dir.path())).unwrap();
    let first = lib
        .graphics_pipeline("test_reload_quad", &GraphicsOptions::default())
        .unwrap();
    let vertex = lib.module("test_reload_quad", Stage::Vertex).unwrap();
    std::fs::write(
        dir.path().join("quad.vert.glsl"),
        "void main() { gl_Position = vec4(pos * 0.5, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("quad.frag.glsl"),
        "void main() { frag_color = undeclared; }\n",
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert_eq!(r.modules_failed.len(), 1, "{r}");
    assert!(r.modules_changed.is_empty(), "{r}");
    assert!(Arc::ptr_eq(
        &vertex,
        &lib.module("test_reload_quad", Stage::Vertex).unwrap()
    ));
    std::fs::write(
        dir.path().join("quad.frag.glsl"),
        frag("0.0, 1.0, 0.0, 1.0"),
    )
    .unwrap();
    let r = lib.reload().unwrap();
    assert!(r.modules_failed.is_empty(), "{r}");
    assert_eq!(r.modules_changed.len(), 2, "{r}");
    assert!(!Arc::ptr_eq(
        &vertex,
        &lib.module("test_reload_quad", Stage::Vertex).unwrap()
    ));
    drop((first, vertex, lib));
    assert_no_validation_messages(&ctx);
}

/// Fast link: the pipeline-library parts made from code a reload replaced are dropped. Each edit of the fragment
/// stage made a fragment-shader part that no pipeline could use again, held until the library was dropped. The
/// edited pipelines still draw their new colors.
#[test]
fn a_reload_drops_the_parts_of_replaced_code() {
    let Some(ctx) = test_context() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let reg = setup(dir.path());
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    if let Err(e) = lib.set_fast_link(true) {
        assert!(
            std::env::var("SHADER_INFO_REQUIRE_VULKAN").is_err(),
            "lavapipe has graphics pipeline libraries: {e}"
        );
        return;
    }
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    frame(&mut lib, &vb);
    assert_eq!(lib.fast_link_stats().held, 4);
    for (i, color) in [
        "0.0, 1.0, 0.0, 1.0",
        "0.0, 0.0, 1.0, 1.0",
        "1.0, 1.0, 0.0, 1.0",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(dir.path().join("quad.frag.glsl"), frag(color)).unwrap();
        let report = lib.reload().unwrap();
        assert_eq!(
            report.outcome("test_reload_quad"),
            Some(&PipelineOutcome::Rebuilt),
            "{report}"
        );
        let stats = lib.fast_link_stats();
        assert_eq!(
            stats.parts[2],
            2 + i,
            "one fragment part per edit: {stats:?}"
        );
        assert_eq!(
            stats.held, 4,
            "the replaced fragment part is dropped: {stats:?}"
        );
        let want = [[0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]][i];
        assert_eq!(pixel(&frame(&mut lib, &vb), SIZE, 16, 16), want);
    }
    drop(lib);
    shader_info_gpu::vk::testing::assert_no_validation_messages_but(
        &ctx,
        shader_info_gpu::vk::testing::is_pipeline_library_layer_bug,
    );
}
