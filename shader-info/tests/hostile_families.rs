//! Issue #25: the families of bad declarations a hostile-input run found accepted, refused only by glslang, refused
//! vaguely or crashing — each member refused at the declaration (the info, the item, the Rust file and line, a hint
//! that says what to write), and the one valid declaration that was refused, accepted.

use shader_info::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn opts(reg: &Registry) -> ValidateOptions<'_> {
    ValidateOptions {
        registry: reg,
        extra_type_names: &[],
        require_complete: true,
    }
}

/// Resolve and validate `name` in `reg`, failing the test on a panic.
fn check_in(reg: &Registry, name: &str) -> Vec<Diagnostic> {
    catch_unwind(AssertUnwindSafe(|| match reg.resolve(name) {
        Err(d) => d,
        Ok(info) => validate(&info, &opts(reg)),
    }))
    .unwrap_or_else(|_| panic!("validating `{name}` panicked"))
}

fn check(info: ShaderCreateInfo) -> Vec<Diagnostic> {
    let mut reg = Registry::new();
    let name = info.name.clone();
    reg.add_info(info);
    check_in(&reg, &name)
}

fn errors(d: &[Diagnostic]) -> Vec<&Diagnostic> {
    d.iter().filter(|d| d.is_error()).collect()
}

/// One diagnostic of `severity` and `code` that names `info`, points at this file (the Rust declaration) and
/// mentions every word; returns its text.
fn located(d: &[Diagnostic], severity: Severity, code: Code, info: &str, words: &[&str]) -> String {
    let all = render_all(d);
    let found = d
        .iter()
        .find(|x| {
            x.severity == severity
                && x.code == code
                && words.iter().all(|w| x.to_string().contains(w))
        })
        .unwrap_or_else(|| {
            panic!("expected a {severity:?} {code:?} mentioning {words:?}, got:\n{all}")
        });
    let text = found.to_string();
    assert_eq!(found.info, info, "{text}");
    assert!(found.item.is_some(), "names the item:\n{text}");
    assert!(found.hint.is_some(), "says what to write:\n{text}");
    assert!(
        found.origin.file.ends_with("hostile_families.rs"),
        "points at the Rust declaration:\n{text}"
    );
    text
}

fn refused(d: &[Diagnostic], code: Code, info: &str, words: &[&str]) -> String {
    located(d, Severity::Error, code, info, words)
}

fn warned(d: &[Diagnostic], code: Code, info: &str, words: &[&str]) -> String {
    assert!(errors(d).is_empty(), "no error: {}", render_all(d));
    located(d, Severity::Warning, code, info, words)
}

fn graphics(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .vertex_source("v.glsl")
        .fragment_source("f.glsl")
        .fragment_out(0, Type::Vec4, "color")
}

fn compute(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .compute_source("c.glsl")
        .local_group_size(64)
}

fn geometry(name: &str) -> ShaderCreateInfo {
    graphics(name).geometry_source("g.glsl")
}

/// Generates `stage` of `name`, validation first.
fn generate_in(
    reg: &Registry,
    name: &str,
    stage: Stage,
    loader: &dyn SourceLoader,
) -> Result<GeneratedStage, Vec<Diagnostic>> {
    let info = reg.validated(name)?;
    generate(&info, stage, &GenerateOptions::new(loader, reg))
}

fn one_info(info: ShaderCreateInfo) -> Registry {
    let mut reg = Registry::new();
    reg.add_info(info);
    reg
}

// --- crashes ---

#[test]
fn a_require_chain_20000_files_deep_is_walked_without_recursion() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let n = 20_000;
            let mut loader = MemoryLoader::default()
                .with("v.glsl", "#pragma require(r0.glsl)\nvoid main() {}\n");
            for i in 0..n {
                let text = if i + 1 < n {
                    format!(
                        "#pragma require(r{}.glsl)\nfloat f{i}() {{ return 1.0; }}\n",
                        i + 1
                    )
                } else {
                    "float last() { return 1.0; }\n".to_string()
                };
                loader = loader.with(&format!("r{i}.glsl"), &text);
            }
            let loader = loader.with("f.glsl", "void main() { color = vec4(1); }");
            let reg = one_info(graphics("deep"));
            let g = generate_in(&reg, "deep", Stage::Vertex, &loader).unwrap();
            assert_eq!(g.files.len(), n + 1);
            // Dependencies first: the last of the chain comes before the first.
            assert!(g.source.find("float last()").unwrap() < g.source.find("float f0()").unwrap());
        })
        .unwrap()
        .join()
        .unwrap();
}

// --- wrong output, no error ---

#[test]
fn a_geometry_layout_of_0_invocations_is_refused_not_emitted_as_1() {
    let d = check(geometry("g0").geometry_layout_instanced(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        3,
        0,
    ));
    refused(
        &d,
        Code::OutOfRange,
        "g0",
        &["0 invocations", "geometry_layout"],
    );
    let d = check(geometry("g200").geometry_layout_instanced(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        3,
        200,
    ));
    refused(&d, Code::OutOfRange, "g200", &["200 invocations"]);
    let d = check(geometry("g64").geometry_layout_instanced(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        3,
        64,
    ));
    warned(
        &d,
        Code::OutOfRange,
        "g64",
        &["64 invocations", "32", "127"],
    );
}

#[test]
fn a_shared_struct_named_like_a_glsl_type_is_refused_where_it_is_used() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("vec4").field(Field::new(Type::Float, "x")));
    assert!(
        reg.problems()
            .iter()
            .any(|p| p.code == Code::InvalidIdentifier && p.to_string().contains("vec4"))
    );
    reg.add_info(graphics("uses").typedef_source("vec4"));
    let d = check_in(&reg, "uses");
    assert!(
        errors(&d)
            .iter()
            .any(|e| e.code == Code::InvalidIdentifier && e.info == "uses"),
        "{}",
        render_all(&d)
    );
}

#[test]
fn control_characters_in_a_source_are_refused_at_their_line() {
    let reg = one_info(graphics("nul"));
    let loader = MemoryLoader::default()
        .with(
            "v.glsl",
            "void main() {\n  gl_Position = vec4(0);\u{0}\n}\n",
        )
        .with("f.glsl", "void main() { color = vec4(1); }");
    let d = generate_in(&reg, "nul", Stage::Vertex, &loader).unwrap_err();
    let e = d
        .iter()
        .find(|d| d.code == Code::UnsafeText)
        .expect("an unsafe-text error");
    assert_eq!(
        (e.file.as_deref(), e.line),
        (Some("v.glsl"), Some(2)),
        "{e}"
    );
    assert!(e.to_string().contains("U+0000"), "{e}");
}

#[test]
fn one_file_required_under_two_spellings_is_inserted_once() {
    let reg = one_info(graphics("twice"));
    let loader = MemoryLoader::default()
        .with(
            "v.glsl",
            "#pragma require(lib/common.glsl)\n#pragma require(lib/./common.glsl)\n#pragma require(lib//common.glsl)\nvoid main() {}\n",
        )
        .with("lib/common.glsl", "float common_fn() { return 1.0; }\n")
        .with("f.glsl", "void main() { color = vec4(1); }");
    let g = generate_in(&reg, "twice", Stage::Vertex, &loader).unwrap();
    assert_eq!(
        g.source.matches("float common_fn()").count(),
        1,
        "{}",
        g.source
    );
}

fn fold_nothing(_: &mut VariantBuilder) {}

#[test]
fn a_specialize_function_on_an_info_without_branches_is_refused() {
    let d = check(graphics("nobranch").specialize(fold_nothing));
    refused(&d, Code::Branch, "nobranch", &["specialize", "no branches"]);
}

#[test]
fn an_info_renamed_after_construction_keeps_its_own_constant_ids() {
    let mut renamed = graphics("old_name").specialization_constant(Type::Int, "K", 1i32);
    renamed.name = "zz_renamed".into();
    let mut reg = Registry::new();
    reg.add_info(renamed);
    reg.add_info(graphics("aa_other").specialization_constant(Type::Int, "J", 2i32));
    let a = reg
        .resolve("zz_renamed")
        .unwrap()
        .specialization_constant_ids();
    let b = reg
        .resolve("aa_other")
        .unwrap()
        .specialization_constant_ids();
    assert_ne!(a, b, "two constants share a constant_id");
    assert_eq!(
        reg.resolve("zz_renamed").unwrap().specialization_constants[0].declared_in,
        "zz_renamed"
    );
}

#[test]
fn constant_ids_past_what_glslang_accepts_are_refused() {
    let mut reg = Registry::new();
    let mut many = ShaderCreateInfo::new("a_many");
    for i in 0..=MAX_CONSTANT_ID {
        many = many.specialization_constant(Type::Int, format!("k{i}"), 0i32);
    }
    reg.add_info(many);
    reg.add_info(graphics("z_last").specialization_constant(Type::Int, "late", 0i32));
    let d = check_in(&reg, "z_last");
    refused(&d, Code::OutOfRange, "z_last", &["late", "2047"]);
}

#[test]
fn two_enums_of_one_name_are_reported_not_dropped() {
    let mut reg = Registry::new();
    reg.add_enum(EnumDef {
        name: "Mode".into(),
        values: vec![("MODE_A".into(), 0)],
    });
    reg.add_enum(EnumDef {
        name: "Mode".into(),
        values: vec![("MODE_B".into(), 0)],
    });
    assert!(
        reg.problems()
            .iter()
            .any(|p| p.to_string().contains("two different shared enums")),
        "{:?}",
        reg.problems()
    );
    reg.add_info(graphics("modes").typedef_source("Mode"));
    let d = check_in(&reg, "modes");
    assert!(
        errors(&d)
            .iter()
            .any(|e| e.message.contains("two different shared enums") && e.info == "modes"),
        "{}",
        render_all(&d)
    );
}

// --- what the user wrote is ignored ---

#[test]
fn a_typedef_name_that_names_no_type_is_refused_with_a_suggestion() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Light").field(Field::new(Type::Vec4, "color")));
    reg.add_info(graphics("typo").typedef_source("Ligth"));
    let d = check_in(&reg, "typo");
    refused(
        &d,
        Code::UnknownType,
        "typo",
        &["Ligth", "did you mean `Light`"],
    );
}

#[test]
fn a_geometry_layout_without_a_geometry_stage_is_refused() {
    let d = check(graphics("nogeom").geometry_layout(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        3,
    ));
    refused(
        &d,
        Code::IncompleteInfo,
        "nogeom",
        &["geometry_layout", "no geometry stage"],
    );
}

#[test]
fn names_of_standard_defines_and_the_defined_operator_are_refused() {
    let d = check(graphics("std").sampler(0, ImageType::Float2D, "GPU_VULKAN", Frequency::Pass));
    refused(
        &d,
        Code::InvalidIdentifier,
        "std",
        &["GPU_VULKAN", "standard define"],
    );
    let d = check(graphics("redef").define_value("GPU_FRAGMENT_SHADER", "0"));
    refused(
        &d,
        Code::InvalidIdentifier,
        "redef",
        &["GPU_FRAGMENT_SHADER"],
    );
    let d = check(graphics("op").define("defined"));
    refused(&d, Code::InvalidIdentifier, "op", &["defined"]);
    for s in Stage::ALL {
        let d = check(graphics("each").define(s.define_name()));
        assert!(!errors(&d).is_empty(), "{}", s.define_name());
    }
}

fn reads_a_typo(v: &mut VariantBuilder) {
    if v.get("SKINING") {
        v.define("X", "1");
    }
}

fn never(v: &mut VariantBuilder) {
    v.never_used();
}

fn variants_of(info: ShaderCreateInfo) -> Result<VariantSet, Vec<Diagnostic>> {
    let reg = one_info(info.clone());
    enumerate_variants(&reg.resolve(&info.name).unwrap(), DEFAULT_BRANCH_LIMIT)
}

#[test]
fn a_specialize_function_reading_an_unknown_branch_is_refused() {
    let d = variants_of(
        graphics("typo_branch")
            .branch("SKINNING")
            .specialize(reads_a_typo),
    )
    .unwrap_err();
    let text = render_all(&d);
    assert!(
        text.contains("SKINING") && text.contains("SKINNING") && text.contains("typo_branch"),
        "{text}"
    );
}

#[test]
fn a_specialize_function_marking_every_permutation_unused_is_refused() {
    let d = variants_of(graphics("none_used").branch("A").specialize(never)).unwrap_err();
    let text = render_all(&d);
    assert!(
        text.contains("never_used") && text.contains("none_used"),
        "{text}"
    );
}

// --- refused only by glslang, later ---

#[test]
fn a_name_longer_than_glslang_takes_is_refused() {
    let long = "a".repeat(1025);
    let d = check(graphics("long").push_constant(Type::Float, long.as_str()));
    refused(&d, Code::InvalidIdentifier, "long", &["1025 characters"]);
    let ok = "a".repeat(1024);
    assert!(
        errors(&check(
            graphics("fine").push_constant(Type::Float, ok.as_str())
        ))
        .is_empty()
    );
}

#[test]
fn a_uniform_block_colliding_with_the_push_constant_block_is_refused() {
    let d = check(
        graphics("blocks")
            .push_constant(Type::Vec4, "tint")
            .uniform_buf(0, "vec4", "PushConstants", Frequency::Pass),
    );
    refused(&d, Code::DuplicateName, "blocks", &["_PushConstants"]);
}

#[test]
fn a_resource_named_like_a_shared_struct_is_refused() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Light").field(Field::new(Type::Vec4, "color")));
    reg.add_info(
        graphics("lights")
            .uniform_buf(0, "Light", "sun", Frequency::Pass)
            .sampler(1, ImageType::Float2D, "Light", Frequency::Pass),
    );
    let d = check_in(&reg, "lights");
    refused(
        &d,
        Code::DuplicateName,
        "lights",
        &["Light", "shared struct"],
    );
}

#[test]
fn max_vertices_past_what_any_device_takes_is_refused() {
    let d = check(geometry("many").geometry_layout(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        257,
    ));
    refused(&d, Code::OutOfRange, "many", &["257", "256"]);
    let d = check(geometry("most").geometry_layout(
        PrimitiveIn::Triangles,
        PrimitiveOut::TriangleStrip,
        256,
    ));
    assert!(errors(&d).is_empty(), "{}", render_all(&d));
}

#[test]
fn a_struct_that_contains_itself_through_typedef_source_is_refused() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("A").field(Field::structure("B", "b")));
    reg.add_struct(StructDef::new("B").field(Field::structure("A", "a")));
    reg.add_struct(StructDef::new("Selfish").field(Field::structure("Selfish", "me")));
    reg.add_info(graphics("cycle").typedef_source("A"));
    reg.add_info(graphics("selfish").typedef_source("Selfish"));
    let d = check_in(&reg, "cycle");
    refused(&d, Code::Layout, "cycle", &["A → B → A"]);
    let d = check_in(&reg, "selfish");
    refused(&d, Code::Layout, "selfish", &["Selfish → Selfish"]);
}

#[test]
fn a_deep_chain_of_structs_is_refused_without_overflowing_the_stack() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut reg = Registry::new();
            let n = 20_000;
            for i in 0..n {
                let def = if i + 1 < n {
                    StructDef::new(format!("S{i}"))
                        .field(Field::structure(format!("S{}", i + 1), "next"))
                } else {
                    StructDef::new(format!("S{i}")).field(Field::new(Type::Float, "x"))
                };
                reg.add_struct(def);
            }
            reg.add_info(graphics("deep_t").typedef_source("S0"));
            reg.add_info(graphics("deep_b").uniform_buf(0, "S0", "s", Frequency::Pass));
            let d = check_in(&reg, "deep_t");
            refused(&d, Code::Layout, "deep_t", &["nested more than"]);
            let d = check_in(&reg, "deep_b");
            assert!(
                errors(&d)
                    .iter()
                    .any(|e| e.message.contains("nested more than")),
                "{}",
                render_all(&d)
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn add_struct_holds_the_derive_rules() {
    let cases: Vec<(StructDef, &str)> = vec![
        (StructDef::new("Empty"), "no fields"),
        (
            StructDef::new("Kw").field(Field::new(Type::Float, "sample")),
            "keyword",
        ),
        (
            StructDef::new("Dup")
                .field(Field::new(Type::Float, "a"))
                .field(Field::new(Type::Int, "a")),
            "two fields",
        ),
        (
            StructDef::new("Rt").field(Field {
                name: "items".into(),
                ty: FieldType::Value(Type::Vec4),
                array: FieldArray::Runtime,
            }),
            "runtime-sized",
        ),
        (
            StructDef::new("Zero").field(Field::new(Type::Float, "z").array(0)),
            "array size 0",
        ),
        (
            StructDef::new("gl_Thing").field(Field::new(Type::Float, "x")),
            "gl_",
        ),
    ];
    for (def, word) in cases {
        let name = def.name.clone();
        let mut reg = Registry::new();
        reg.add_struct(def);
        assert!(
            reg.problems().iter().any(|p| p.to_string().contains(word)),
            "{name}: {:?}",
            reg.problems()
        );
        reg.add_info(graphics("user").typedef_source(name.as_str()));
        let d = check_in(&reg, "user");
        assert!(
            errors(&d).iter().any(|e| e.to_string().contains(word)),
            "{name}: {}",
            render_all(&d)
        );
    }
}

#[test]
fn add_enum_holds_the_derive_rules() {
    let cases: Vec<(Vec<EnumDef>, &str)> = vec![
        (
            vec![EnumDef {
                name: "bad name".into(),
                values: vec![("A_X".into(), 0)],
            }],
            "bad name",
        ),
        (
            vec![EnumDef {
                name: "E".into(),
                values: vec![("float".into(), 0)],
            }],
            "keyword",
        ),
        (
            vec![EnumDef {
                name: "E".into(),
                values: vec![("E_A".into(), 0), ("E_A".into(), 1)],
            }],
            "twice",
        ),
        (
            vec![
                EnumDef {
                    name: "E".into(),
                    values: vec![("SHARED".into(), 0)],
                },
                EnumDef {
                    name: "F".into(),
                    values: vec![("SHARED".into(), 1)],
                },
            ],
            "both define the constant `SHARED`",
        ),
    ];
    for (defs, word) in cases {
        let mut reg = Registry::new();
        for d in defs {
            reg.add_enum(d);
        }
        assert!(
            reg.problems().iter().any(|p| p.to_string().contains(word)),
            "{word}: {:?}",
            reg.problems()
        );
    }
}

#[test]
fn empty_and_versioned_stage_sources_are_refused_at_their_line() {
    let reg = one_info(graphics("src"));
    let f = "void main() { color = vec4(1); }";
    let loader = MemoryLoader::default()
        .with("v.glsl", "  \n")
        .with("f.glsl", f);
    let d = generate_in(&reg, "src", Stage::Vertex, &loader).unwrap_err();
    assert!(
        d.iter()
            .any(|d| d.code == Code::UnsafeText && d.message.contains("is empty")),
        "{}",
        render_all(&d)
    );
    let loader = MemoryLoader::default()
        .with("v.glsl", "// ported\n#version 450\nvoid main() {}\n")
        .with("f.glsl", f);
    let d = generate_in(&reg, "src", Stage::Vertex, &loader).unwrap_err();
    let e = d
        .iter()
        .find(|d| d.message.contains("#version"))
        .expect("a #version error");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.hint.as_deref().unwrap().contains("remove"), "{e}");
}

// --- vague ---

#[test]
fn a_c_style_array_type_is_told_where_the_size_goes() {
    let d = check(graphics("cstyle").uniform_buf(0, "vec4[4]", "lights", Frequency::Pass));
    let text = refused(&d, Code::UnknownType, "cstyle", &["vec4[4]"]);
    assert!(text.contains("lights[4]"), "{text}");
}

#[test]
fn an_empty_require_is_refused_at_its_line() {
    let reg = one_info(graphics("req"));
    let loader = MemoryLoader::default()
        .with("v.glsl", "\n#pragma require()\nvoid main() {}\n")
        .with("f.glsl", "void main() { color = vec4(1); }");
    let d = generate_in(&reg, "req", Stage::Vertex, &loader).unwrap_err();
    let e = d
        .iter()
        .find(|d| d.message.contains("names no file"))
        .expect("an error");
    assert_eq!((e.file.as_deref(), e.line), (Some("v.glsl"), Some(2)));
    assert!(
        !e.hint.as_deref().unwrap().contains("check the file exists"),
        "{e}"
    );
}

#[test]
fn a_require_glsl_would_ignore_is_refused_at_its_line_and_commented_ones_are_left_alone() {
    let reg = one_info(graphics("req"));
    let f = "void main() { color = vec4(1); }";
    // Read: a comment after it, the preprocessor's spacing, Blender's spelling.
    let loader = MemoryLoader::default()
        .with(
            "v.glsl",
            "#pragma require(a.glsl) // saturate()\n# pragma  BLENDER_REQUIRE(b.glsl)\n\
             /* #pragma require(gone.glsl)\n#pragma require(gone.glsl) */\nvoid main() { gl_Position = vec4(fa() + fb()); }\n",
        )
        .with("a.glsl", "float fa() { return 1.0; }\n")
        .with("b.glsl", "float fb() { return 1.0; }\n")
        .with("f.glsl", f);
    let g = generate_in(&reg, "req", Stage::Vertex, &loader)
        .unwrap_or_else(|d| panic!("{}", render_all(&d)));
    assert!(
        g.source.contains("float fa()") && g.source.contains("float fb()"),
        "{}",
        g.source
    );
    // Not read: each would be an unknown pragma to glslang, the file silently left out.
    for line in [
        "#pragma require(a.glsl);",
        "#pragma require a.glsl",
        "#pragma require(a.glsl",
    ] {
        let loader = MemoryLoader::default()
            .with("v.glsl", &format!("\n{line}\nvoid main() {{}}\n"))
            .with("a.glsl", "float fa() { return 1.0; }\n")
            .with("f.glsl", f);
        let d = generate_in(&reg, "req", Stage::Vertex, &loader).unwrap_err();
        let e = d
            .iter()
            .find(|d| d.message.contains("is not understood"))
            .unwrap_or_else(|| panic!("{line}: {}", render_all(&d)));
        assert_eq!(
            (e.file.as_deref(), e.line),
            (Some("v.glsl"), Some(2)),
            "{line}"
        );
        assert!(e.hint.as_deref().unwrap().contains("own line"), "{e}");
    }
}

#[test]
fn non_utf8_sources_and_symlink_loops_get_their_own_hint() {
    let dir = std::env::temp_dir().join(format!("si_hostile_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("v.glsl"), b"void main() {}\n// caf\xe9\n").unwrap();
    std::fs::write(dir.join("f.glsl"), "void main() { color = vec4(1); }").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("loop_a.glsl"), dir.join("loop_b.glsl")).unwrap();
        std::os::unix::fs::symlink(dir.join("loop_b.glsl"), dir.join("loop_a.glsl")).unwrap();
    }
    let loader = DirLoader::new(&dir);
    let reg = one_info(graphics("bytes"));
    let d = generate_in(&reg, "bytes", Stage::Vertex, &loader).unwrap_err();
    let text = render_all(&d);
    assert!(
        text.contains("not UTF-8")
            && text.contains("line 2")
            && text.contains("save the file as UTF-8"),
        "{text}"
    );
    #[cfg(unix)]
    {
        let reg = one_info(
            ShaderCreateInfo::new("looped")
                .vertex_source("loop_a.glsl")
                .fragment_source("f.glsl")
                .fragment_out(0, Type::Vec4, "color"),
        );
        let d = generate_in(&reg, "looped", Stage::Vertex, &loader).unwrap_err();
        let text = render_all(&d);
        assert!(
            text.contains("loop of symbolic links") && !text.contains("check the file exists"),
            "{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_additional_info_does_not_suggest_the_info_itself() {
    let d = check(graphics("me").additional_info(""));
    let e = d
        .iter()
        .find(|d| d.code == Code::UnknownInfo)
        .expect("unknown-info");
    let text = e.to_string();
    assert!(
        text.contains("empty name") && !text.contains("did you mean `me`"),
        "{text}"
    );
}

#[test]
fn the_permutation_count_of_many_branches_is_written_exactly() {
    let mut info = graphics("wide");
    for i in 0..200 {
        info = info.branch(format!("B{i}"));
    }
    let text = render_all(&variants_of(info).unwrap_err());
    assert!(text.contains("2^200") && !text.contains("2^127"), "{text}");
}

// --- limits left to the device ---

#[test]
fn work_groups_no_device_runs_are_errors_and_past_the_guarantee_warnings() {
    for (x, y, z, word) in [
        (1025, 1, 1, "x = 1025"),
        (1024, 2, 1, "2048 invocations"),
        (1, 1, 65, "z = 65"),
    ] {
        let d = check(compute("cs").local_group_size_3d(x, y, z));
        refused(&d, Code::WorkGroupSize, "cs", &[word, "1024"]);
    }
    let d = check(compute("cs").local_group_size(1024));
    warned(&d, Code::WorkGroupSize, "cs", &["1024", "128"]);
}

#[test]
fn interfaces_past_the_guaranteed_locations_warn_and_past_every_device_fail() {
    let mut iface = StageInterfaceInfo::new("Wide", "");
    for i in 0..20 {
        iface = iface.smooth(Type::Vec4, format!("v{i}"));
    }
    let d = check(graphics("wide20").vertex_out(&iface));
    warned(
        &d,
        Code::OutOfRange,
        "wide20",
        &["20 locations", "16", "32"],
    );
    let mut huge = StageInterfaceInfo::new("Huge", "");
    for i in 0..40 {
        huge = huge.smooth(Type::Vec4, format!("v{i}"));
    }
    let d = check(graphics("wide40").vertex_out(&huge));
    refused(&d, Code::OutOfRange, "wide40", &["40 locations"]);
}

#[test]
fn a_uniform_buffer_past_the_guaranteed_range_warns_naming_both_sizes() {
    let d = check(graphics("ubo").uniform_buf(0, "vec4", "big[4096]", Frequency::Pass));
    warned(&d, Code::OutOfRange, "ubo", &["65536", "16384"]);
}

#[test]
fn twenty_unfolded_branches_are_refused_before_a_million_variants() {
    let mut info = graphics("unfolded");
    for i in 0..20 {
        info = info.branch(format!("B{i}"));
    }
    let text = render_all(&variants_of(info).unwrap_err());
    assert!(
        text.contains("unique variants") && text.contains("1048576"),
        "{text}"
    );
}

// --- the valid declaration ---

#[test]
fn a_smooth_int_from_vertex_to_geometry_is_accepted_but_not_into_the_fragment_stage() {
    let to_geom = StageInterfaceInfo::new("VsOut", "vs").smooth(Type::Int, "id");
    let to_frag = StageInterfaceInfo::new("GsOut", "gs").flat(Type::Int, "id");
    let info = geometry("smooth_int")
        .vertex_out(&to_geom)
        .geometry_out(&to_frag)
        .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3);
    let d = check(info);
    assert!(errors(&d).is_empty(), "{}", render_all(&d));
    let bad = StageInterfaceInfo::new("GsOut", "gs").smooth(Type::Int, "id");
    let info = geometry("smooth_int_frag")
        .vertex_out(&to_geom)
        .geometry_out(&bad)
        .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3);
    let d = check(info);
    refused(
        &d,
        Code::InterpolationNotFlat,
        "smooth_int_frag",
        &["GsOut.id"],
    );
}

// --- fuzzing the families the declaration fuzzer missed ---

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn glsl_name() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[a-z][a-z0-9_]{0,5}",
            1 => prop::sample::select(vec![
                "vec4", "float", "sample", "gl_x", "a__b", "", "a b", "GPU_VULKAN", "defined", "1x",
            ])
            .prop_map(String::from),
        ]
    }

    fn field() -> impl Strategy<Value = Field> {
        (
            glsl_name(),
            prop::sample::select(vec![Type::Float, Type::Vec4, Type::Int]),
            prop::sample::select(vec![
                FieldArray::None,
                FieldArray::Fixed(0),
                FieldArray::Fixed(2),
                FieldArray::Runtime,
            ]),
            prop::option::of(0usize..3),
        )
            .prop_map(|(name, ty, array, nested)| Field {
                name,
                ty: match nested {
                    Some(i) => FieldType::Struct(format!("S{i}")),
                    None => FieldType::Value(ty),
                },
                array,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Geometry layouts at every edge: no panic, and an accepted info has a layout a device runs.
        #[test]
        fn geometry_layouts(max in prop::sample::select(vec![0u32, 1, 3, 256, 257, u32::MAX]),
                            inv in prop::sample::select(vec![0u32, 1, 32, 33, 127, 128, u32::MAX]),
                            with_stage in any::<bool>()) {
            let base = if with_stage { geometry("g") } else { graphics("g") };
            let d = check(base.geometry_layout_instanced(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, max, inv));
            let ok = errors(&d).is_empty();
            prop_assert_eq!(ok, with_stage && (1..=MAX_GEOMETRY_OUTPUT_VERTICES).contains(&max) && (1..=MAX_GEOMETRY_INVOCATIONS).contains(&inv), "{}", render_all(&d));
        }

        /// Random shared structs (bad names, arrays, nesting and cycles among three) used through typedef_source
        /// and a buffer: no panic, and an accepted info uses only structs without problems.
        #[test]
        fn structs(defs in prop::collection::vec(prop::collection::vec(field(), 0..3), 3)) {
            let mut reg = Registry::new();
            for (i, fields) in defs.iter().enumerate() {
                let mut def = StructDef::new(format!("S{i}"));
                def.fields = fields.clone();
                reg.add_struct(def);
            }
            reg.add_info(graphics("t").typedef_source("S0"));
            reg.add_info(graphics("b").storage_buf(0, Qualifier::Read, "S0", "s", Frequency::Pass));
            for info in ["t", "b"] {
                let d = check_in(&reg, info);
                if errors(&d).is_empty() {
                    prop_assert!(reg.type_problems("S0").is_empty(), "{}", render_all(&d));
                }
            }
        }

        /// Random shared enums, two of them: no panic; a problem is in the registry and refused by a user.
        #[test]
        fn enums(a in prop::collection::vec(glsl_name(), 0..3), b in prop::collection::vec(glsl_name(), 0..3),
                 same_name in any::<bool>()) {
            let mut reg = Registry::new();
            let values = |v: &[String]| v.iter().enumerate().map(|(i, n)| (n.clone(), i as u32)).collect();
            reg.add_enum(EnumDef { name: "EA".into(), values: values(&a) });
            reg.add_enum(EnumDef { name: if same_name { "EA".into() } else { "EB".into() }, values: values(&b) });
            reg.add_info(graphics("u").typedef_source("EA").typedef_source(if same_name { "EA" } else { "EB" }));
            let d = check_in(&reg, "u");
            prop_assert_eq!(errors(&d).is_empty(), reg.problems().is_empty(), "{}", render_all(&d));
        }
    }
}

/// Names the generator writes besides the declared ones, each family refused (or, where only the translations
/// break, warned) at the Rust line of the item that takes the name: the tessellation and geometry stages' block
/// instances and alias, a subpass input's macro, and what only the portable flavor declares.
#[test]
fn names_the_generator_writes_are_refused_at_the_item_that_takes_them() {
    let v = StageInterfaceInfo::new("VertOut", "v").smooth(Type::Vec3, "n");
    let d = check(
        geometry("gin")
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .vertex_out(&v)
            .geometry_out(&v)
            .push_constant(Type::Float, "v_in"),
    );
    refused(
        &d,
        Code::DuplicateName,
        "gin",
        &["v_in", "geometry stage gives interface `VertOut`"],
    );
    let d = check(graphics("sub").subpass_in(1, Type::Vec4, "albedo").sampler(
        0,
        ImageType::Float2D,
        "albedo",
        Frequency::Pass,
    ));
    refused(&d, Code::DuplicateName, "sub", &["albedo", "subpass_in"]);
    let d = check(
        graphics("tex")
            .sampler(0, ImageType::Float2D, "tex", Frequency::Pass)
            .uniform_buf(1, "vec4", "tex_sampler", Frequency::Pass),
    );
    warned(
        &d,
        Code::Translation,
        "tex",
        &["tex_sampler", "the sampler half of sampler `tex`"],
    );
}
