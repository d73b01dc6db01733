//! The `shader_builder` test target: the static pass over the whole shipped registry must pass, and each kind of
//! failure must be caught and named (with infos that never enter the shipped registry).

use gpu::builder::{BuildOptions, BuildReport, build};
use gpu::compiler::{Compiler, Profile};
use shader_info::*;
use shaders as _;
use std::path::Path;

fn run(registry: &Registry, root: &Path, filter: Option<&str>) -> BuildReport {
    let compiler = Compiler::new(root).expect("compiler");
    let loader = DirLoader::new(root);
    let opts = BuildOptions {
        filter: filter.map(String::from),
        profile: Profile::Debug,
        jobs: 2,
        out_dir: None,
        ..BuildOptions::default()
    };
    build(registry, &compiler, &loader, &opts, &|_| {})
}

#[test]
fn the_whole_library_compiles_and_matches_its_declarations() {
    let registry = Registry::global();
    assert!(
        registry.problems().is_empty(),
        "{}",
        render_all(registry.problems())
    );
    let report = run(registry, &shaders::glsl_root(), None);
    let failing: Vec<String> = report
        .failed
        .iter()
        .map(|f| format!("{} {:?}\n{}", f.info, f.stage, render(&f.diagnostics)))
        .collect();
    assert!(
        report.success(),
        "{} infos failed:\n{}",
        failing.len(),
        failing.join("\n\n")
    );
    assert!(
        report.infos_total >= 25,
        "the library has {} compilable infos",
        report.infos_total
    );
    assert_eq!(report.infos_passed, report.infos_total);
    assert!(
        report.modules >= 2 * report.infos_total - 10,
        "{} modules",
        report.modules
    );
}

/// A scratch shader root with its own registry (shared types of the linked crates, none of their infos).
struct Scratch {
    dir: tempfile::TempDir,
    registry: Registry,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let s = Scratch {
            dir,
            registry: Registry::shared_types_from_inventory(),
        };
        s.write("ok.vert", "void main() { gl_Position = vec4(0.0); }\n");
        s.write("ok.frag", "void main() { frag_color = vec4(1.0); }\n");
        s
    }

    fn write(&self, path: &str, text: &str) {
        let p = self.dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn info(name: &str) -> ShaderCreateInfo {
        ShaderCreateInfo::new(name)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("ok.frag")
            .do_static_compilation(true)
    }

    fn failure_text(&mut self, info: ShaderCreateInfo) -> String {
        let name = info.name.clone();
        self.registry.add_info(info);
        let report = run(&self.registry, self.dir.path(), Some(&name));
        assert!(!report.success(), "{name} should fail");
        assert_eq!(report.infos_passed, 0);
        let f: Vec<String> = report
            .failed
            .iter()
            .filter(|f| f.info == name)
            .flat_map(|f| f.diagnostics.iter().map(ToString::to_string))
            .collect();
        assert!(
            !f.is_empty(),
            "the failure names the info {name}: {:?}",
            report.failed
        );
        f.join("\n")
    }
}

#[test]
fn a_binding_collision_is_named() {
    let mut s = Scratch::new();
    let t = s.failure_text(
        Scratch::info("neg_collision")
            .sampler(0, ImageType::Float2D, "a", Frequency::Pass)
            .uniform_buf(0, "vec4", "b", Frequency::Pass),
    );
    assert!(
        t.contains("binding-collision") && t.contains("`a`") && t.contains("`b`"),
        "{t}"
    );
}

#[test]
fn an_unknown_additional_info_is_named() {
    let mut s = Scratch::new();
    let t = s.failure_text(Scratch::info("neg_unknown").additional_info("neg_does_not_exist"));
    assert!(
        t.contains("unknown-info") && t.contains("neg_does_not_exist"),
        "{t}"
    );
}

#[test]
fn an_additional_info_cycle_is_printed() {
    let mut s = Scratch::new();
    s.registry
        .add_info(ShaderCreateInfo::new("neg_cycle_b").additional_info("neg_cycle_a"));
    let t = s.failure_text(Scratch::info("neg_cycle_a").additional_info("neg_cycle_b"));
    assert!(t.contains("neg_cycle_a → neg_cycle_b → neg_cycle_a"), "{t}");
}

#[test]
fn a_missing_source_file_is_named() {
    let mut s = Scratch::new();
    let t = s.failure_text(
        ShaderCreateInfo::new("neg_missing")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("nowhere/missing.frag")
            .do_static_compilation(true),
    );
    assert!(
        t.contains("missing-source") && t.contains("nowhere/missing.frag"),
        "{t}"
    );
}

#[test]
fn a_syntax_error_names_the_file_and_line() {
    let mut s = Scratch::new();
    s.write(
        "broken.frag",
        "void main() {\n  frag_color = vec4(1.0);\n  frag_color = oops;\n}\n",
    );
    let t = s.failure_text(
        ShaderCreateInfo::new("neg_syntax")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("broken.frag")
            .do_static_compilation(true),
    );
    assert!(t.contains("broken.frag:3"), "{t}");
    assert!(t.contains("oops"), "{t}");
}

#[test]
fn an_include_escaping_the_root_is_refused() {
    let mut s = Scratch::new();
    s.write(
        "escape.frag",
        "#include \"../outside.glsl\"\nvoid main() { frag_color = vec4(1.0); }\n",
    );
    std::fs::write(
        s.dir.path().parent().unwrap().join("outside.glsl"),
        "// outside\n",
    )
    .ok();
    let t = s.failure_text(
        ShaderCreateInfo::new("neg_escape")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("escape.frag")
            .do_static_compilation(true),
    );
    assert!(t.contains("outside.glsl"), "{t}");
    assert!(t.contains("root"), "the message says why: {t}");
}

#[test]
fn a_reflection_mismatch_is_named_with_expected_and_actual() {
    let mut s = Scratch::new();
    // The source declares a binding by hand that the info does not know: the layout would be wrong at run time.
    s.write(
        "handmade.frag",
        "layout(set = 1, binding = 7) uniform sampler2D sneaky;\nvoid main() { frag_color = texture(sneaky, vec2(0.5)); }\n",
    );
    let t = s.failure_text(
        ShaderCreateInfo::new("neg_reflect")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("handmade.frag")
            .do_static_compilation(true),
    );
    assert!(
        t.contains("reflection-mismatch") && t.contains("neg_reflect"),
        "{t}"
    );
    assert!(t.contains("set 1 binding 7") && t.contains("sneaky"), "{t}");
}

#[test]
fn non_compilable_infos_are_validated_but_not_compiled() {
    let mut s = Scratch::new();
    s.registry.add_info(
        ShaderCreateInfo::new("neg_block")
            .sampler(0, ImageType::Float2D, "a", Frequency::Pass)
            .sampler(0, ImageType::Float2D, "b", Frequency::Pass),
    );
    let report = run(&s.registry, s.dir.path(), Some("neg_block"));
    assert_eq!(report.infos_total, 0);
    assert_eq!(report.modules, 0);
    assert!(
        report.failed.iter().any(|f| f.info == "neg_block"),
        "{:?}",
        report.failed
    );
}

#[test]
fn a_rust_twin_used_with_other_layout_rules_is_named() {
    let mut s = Scratch::new();
    // `DrawIndexedIndirectCommand` is proven for std430 (a storage buffer); in a std140 uniform block its size
    // differs from the Rust struct's, so uploading it with bytemuck would be wrong.
    let t = s.failure_text(Scratch::info("neg_rules").uniform_buf(
        0,
        "DrawIndexedIndirectCommand",
        "cmd",
        Frequency::Pass,
    ));
    assert!(
        t.contains("DrawIndexedIndirectCommand") && t.contains("proven for"),
        "{t}"
    );
    assert!(
        t.contains(
            "Rust twin of `DrawIndexedIndirectCommand` is 20 bytes but its std140 size is 32"
        ),
        "{t}"
    );
}

#[test]
fn a_subpass_input_only_the_emulation_can_read_fails_the_static_pass() {
    // Devices with dynamic-rendering local read build the local-read form, so the pass compiles it too: an input
    // reading an attachment the draw has no output at, and code that samples the emulating texture directly,
    // both pass emulated and fail there.
    let mut s = Scratch::new();
    s.write(
        "samples_carrier.frag",
        "void main() {\n  frag_color = previous;\n  frag_color += texelFetch(previous_input, ivec2(0), 0);\n}\n",
    );
    for info in [
        Scratch::info("neg_local_read_unwritten").subpass_in(1, Type::Vec4, "gbuffer"),
        ShaderCreateInfo::new("neg_local_read_carrier")
            .subpass_in(0, Type::Vec4, "previous")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("ok.vert")
            .fragment_source("samples_carrier.frag")
            .do_static_compilation(true),
    ] {
        s.registry.add_info(info);
    }
    let report = run(&s.registry, s.dir.path(), Some("neg_local_read"));
    assert_eq!(report.infos_passed, 0);
    let text = |name: &str| {
        let f: Vec<_> = report.failed.iter().filter(|f| f.info == name).collect();
        assert!(
            !f.is_empty()
                && f.iter().all(|f| f
                    .stage
                    .as_deref()
                    .is_some_and(|s| s.ends_with("(local read)"))),
            "{name}: {:?}",
            report.failed
        );
        f.iter().map(|f| render(&f.diagnostics)).collect::<String>()
    };
    let t = text("neg_local_read_unwritten");
    assert!(t.contains("no fragment output at location 1"), "{t}");
    let t = text("neg_local_read_carrier");
    assert!(t.contains("samples_carrier.frag:3"), "{t}");
}

#[test]
fn a_filter_that_matches_no_info_fails_naming_the_closest() {
    let report = run(
        Registry::global(),
        &shaders::glsl_root(),
        Some("gpu_shader_2D_unifrom"),
    );
    assert!(
        !report.success(),
        "a misspelt filter checked nothing and passed"
    );
    assert_eq!(report.modules, 0);
    let d = &report.failed[0].diagnostics[0];
    assert_eq!(d.code, Code::UnknownInfo);
    assert!(
        d.message.contains("`gpu_shader_2D_unifrom` matches none"),
        "{d:?}"
    );
    assert!(
        d.hint
            .as_deref()
            .is_some_and(|h| h.contains("`gpu_shader_2D_uniform_color`")),
        "{d:?}"
    );
}
