//! Declarations that must be refused: text that would flow into the generated GLSL unchecked, numbers at the edges
//! of their range, items that make no sense for the info's kind, empty and duplicated names, work-group sizes past
//! what Vulkan guarantees, and declaration chains deep enough to overflow a recursive walk. Each gets a diagnostic
//! naming the info and the item — never a panic, an abort, or GLSL that says something the declaration did not.

use shader_info::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn check_in(reg: &Registry, name: &str) -> Vec<Diagnostic> {
    match reg.resolve(name) {
        Err(d) => d,
        Ok(info) => validate(
            &info,
            &ValidateOptions {
                registry: reg,
                extra_type_names: &[],
                require_complete: true,
            },
        ),
    }
}

/// The diagnostics of `info` alone in a registry, failing the test on a panic.
fn check(info: ShaderCreateInfo) -> Vec<Diagnostic> {
    let name = info.name.clone();
    catch_unwind(AssertUnwindSafe(|| {
        let mut reg = Registry::new();
        reg.add_info(info);
        check_in(&reg, &name)
    }))
    .unwrap_or_else(|_| panic!("validating `{name}` panicked"))
}

fn errors(d: &[Diagnostic]) -> Vec<&Diagnostic> {
    d.iter().filter(|d| d.severity == Severity::Error).collect()
}

/// Asserts one error of `code` naming the info and mentioning each of `words`; returns its text.
fn refused(d: &[Diagnostic], code: Code, info: &str, words: &[&str]) -> String {
    let text = render_all(d);
    let e = errors(d);
    assert!(
        e.iter().any(|d| d.code == code),
        "expected a {code:?} error, got:\n{text}"
    );
    let first = e.iter().find(|d| d.code == code).unwrap();
    let one = first.to_string();
    assert!(
        one.contains(info),
        "the message names the info `{info}`:\n{one}"
    );
    for w in words {
        assert!(one.contains(w), "the message mentions `{w}`:\n{one}");
    }
    one
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

// --- text copied into the generated GLSL ---

#[test]
fn a_define_value_cannot_add_preprocessor_lines() {
    for value in [
        "1\n#error injected",
        "1\r#error injected",
        "1 \\",
        "1\u{0}",
        "1 /* open comment",
        "1 // comment",
        "1\u{2028}#error injected",
        // An unclosed quote fails glslang at the `#define` in every stage.
        "\"",
        "f(\"text)",
        // No stringizing in GLSL's preprocessor (newer glslang refuses it at the definition).
        "a # b",
        "#",
    ] {
        let d = check(graphics("inject").define_value("VALUE", value));
        refused(&d, Code::InvalidConstant, "inject", &["VALUE"]);
    }
    // Ordinary values stay accepted.
    for value in [
        "1",
        "vec3(0.5, 1.0, 2.0)",
        "(A + B) * 2",
        "-1.5e-3",
        "",
        "a ## 1",
        "debugPrintfEXT(\"x=%f\", x)",
    ] {
        let d = check(graphics("ok").define_value("VALUE", value));
        assert!(errors(&d).is_empty(), "`{value}`: {}", render_all(&d));
    }
}

#[test]
fn file_names_that_would_break_a_line_directive_are_refused() {
    let long = format!("{}.glsl", "d/".repeat(500));
    for file in ["a\"b.glsl", "a\nb.glsl", "", "a\\b.glsl", long.as_str()] {
        let d = check(
            ShaderCreateInfo::new("files")
                .vertex_source(file)
                .fragment_source("f.glsl")
                .fragment_out(0, Type::Vec4, "color"),
        );
        refused(&d, Code::MissingSource, "files", &["vert"]);
        let d = check(graphics("typedefs").typedef_source(file));
        refused(&d, Code::MissingSource, "typedefs", &["typedef"]);
    }
}

#[test]
fn a_float_constant_must_be_finite() {
    for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let d = check(graphics("nan").specialization_constant(Type::Float, "k", v));
        refused(&d, Code::InvalidConstant, "nan", &["k"]);
    }
}

// --- numbers at the edges ---

#[test]
fn bindings_locations_and_counts_near_u32_max_are_errors_without_wrapped_ranges() {
    let d = check(graphics("edges").vertex_in(u32::MAX, Type::Mat4, "m"));
    let text = refused(&d, Code::VertexInputOutOfRange, "edges", &["m"]);
    assert!(!text.contains("..0") && !text.contains("..1 "), "{text}");
    let d = check(graphics("edges").vertex_in(u32::MAX - 1, Type::Vec4, "v"));
    refused(&d, Code::VertexInputOutOfRange, "edges", &["v"]);
    let d = check(
        ShaderCreateInfo::new("outs")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl")
            .fragment_out(u32::MAX, Type::Vec4, "color"),
    );
    refused(&d, Code::FragmentOutputCollision, "outs", &["color"]);
    let d = check(graphics("binding").sampler(u32::MAX, ImageType::Float2D, "t", Frequency::Pass));
    refused(&d, Code::OutOfRange, "binding", &["t", "4294967295"]);
    let d =
        check(graphics("arrays").sampler(0, ImageType::Float2D, "t[4294967295]", Frequency::Pass));
    refused(&d, Code::OutOfRange, "arrays", &["t"]);
    // GLSL's array sizes are `int`s, whatever holds the array; and an acceleration-structure array is a
    // descriptor array like a texture's.
    let d = check(compute("tlas").acceleration_structure(0, "tlas[3000000000]", Frequency::Pass));
    refused(&d, Code::OutOfRange, "tlas", &["tlas", "2147483647"]);
    let d = check(compute("tlases").acceleration_structure(0, "tlas[2000000]", Frequency::Pass));
    refused(&d, Code::OutOfRange, "tlases", &["tlas", "descriptors"]);
    let d = check(compute("shared").shared_variable(Type::Float, "a[4294967295]"));
    refused(
        &d,
        Code::OutOfRange,
        "shared",
        &["a[4294967295]", "2147483647"],
    );
    // A struct only named by `typedef_source` has no layout to overflow: its array size is checked itself.
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Big").field(Field::new(Type::Vec4, "v").array(2_147_483_648)));
    reg.add_info(compute("typedef").typedef_source("Big"));
    let d = check_in(&reg, "typedef");
    refused(
        &d,
        Code::InvalidIdentifier,
        "typedef",
        &["Big", "2147483648"],
    );
    let d = check(graphics("push").push_constant_array(Type::Vec4, "p", u32::MAX));
    assert!(!errors(&d).is_empty(), "{}", render_all(&d));
    let d = check(graphics("push0").push_constant_array(Type::Vec4, "p", 0));
    refused(&d, Code::InvalidArray, "push0", &["p"]);
}

// --- work-group sizes ---

#[test]
fn work_group_sizes_past_the_guaranteed_minimums_warn_and_name_both_numbers() {
    let d = check(compute("big").local_group_size(1024));
    assert!(errors(&d).is_empty(), "{}", render_all(&d));
    let w: Vec<String> = d
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect();
    assert!(
        w.iter()
            .any(|t| t.contains("1024") && t.contains("128") && t.contains("big")),
        "{w:?}"
    );
    // z = 64 is what NVIDIA allows and glslang's limit; x = 256 is past the guarantee only.
    let d = check(compute("tall").local_group_size_3d(2, 1, 64));
    assert!(errors(&d).is_empty(), "{}", render_all(&d));
    let d = check(compute("wide").local_group_size_3d(256, 1, 1));
    let w: Vec<String> = d
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect();
    assert!(
        w.iter()
            .any(|t| t.contains("256") && t.contains("128") && t.contains("1024")),
        "{w:?}"
    );
    // Within the minimums: nothing to say.
    let d = check(compute("fits").local_group_size_3d(8, 8, 2));
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn work_group_sizes_whose_product_overflows_are_errors() {
    let d = check(compute("huge").local_group_size_3d(u32::MAX, u32::MAX, 2));
    refused(&d, Code::WorkGroupSize, "huge", &["local_group_size"]);
}

// --- items that make no sense for the kind ---

#[test]
fn interface_items_on_a_compute_info_are_refused() {
    let iface = StageInterfaceInfo::new("iface", "").smooth(Type::Vec4, "c");
    for (what, info) in [
        ("vertex_in", compute("c1").vertex_in(0, Type::Vec4, "pos")),
        ("vertex_out", compute("c2").vertex_out(&iface)),
        (
            "fragment_out",
            compute("c3").fragment_out(0, Type::Vec4, "color"),
        ),
    ] {
        let name = info.name.clone();
        let d = check(info);
        refused(&d, Code::IncompleteInfo, &name, &[what]);
    }
}

#[test]
fn render_state_on_a_compute_info_is_refused() {
    let d = check(compute("stateful").blend(Blend::Alpha));
    refused(&d, Code::RenderState, "stateful", &["blend"]);
}

// --- names ---

#[test]
fn empty_and_malformed_info_names_are_refused() {
    let long = "n".repeat(201);
    for name in ["", " ", "a b", "a\nb", "1abc", long.as_str()] {
        let d = check(graphics(name));
        assert!(
            errors(&d).iter().any(|d| d.code == Code::InvalidIdentifier),
            "info name {name:?}: {}",
            render_all(&d)
        );
    }
}

#[test]
fn empty_and_duplicated_branch_names_are_refused() {
    // On two lines: the same item at the same place is one item (diamond-shaped reuse keeps it once).
    let info = graphics("b").branch("A");
    let info = info.branch("A");
    let d = check(info);
    refused(&d, Code::DuplicateName, "b", &["A"]);
    // Once: not again as a second `const bool A` or `BRANCH_A` among the global names.
    assert_eq!(errors(&d).len(), 1, "{}", render_all(&d));
    let d = check(graphics("e").branch(""));
    refused(&d, Code::InvalidIdentifier, "e", &["branch"]);
}

// --- recursion ---

#[test]
fn a_long_additional_info_chain_is_resolved_or_refused_without_overflowing_the_stack() {
    // Run on a small stack so that a recursive walk fails here, not only on deeper chains in the field.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut reg = Registry::new();
            let n = 20_000;
            for i in 0..n {
                let mut info = ShaderCreateInfo::new(format!("link{i}"));
                if i + 1 < n {
                    info = info.additional_info(format!("link{}", i + 1));
                }
                reg.add_info(info);
            }
            reg.add_info(graphics("top").additional_info("link0"));
            let d = check_in(&reg, "top");
            // Either resolved (no error) or refused with a clear limit; never a stack overflow.
            for e in errors(&d) {
                assert!(e.to_string().contains("top"), "{e}");
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

// --- declarations that compile and do nothing ---

/// With early fragment tests Vulkan ignores the depth the fragment stage writes: a depth write declared beside
/// them gets a warning naming both, and either alone none.
#[test]
fn a_depth_write_beside_early_fragment_tests_is_warned_of() {
    let d = check(
        graphics("early")
            .early_fragment_test(true)
            .depth_write(DepthWrite::Greater),
    );
    assert!(errors(&d).is_empty(), "{}", render_all(&d));
    let warned: Vec<&Diagnostic> = d
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.code == Code::RenderState)
        .collect();
    assert_eq!(warned.len(), 1, "{}", render_all(&d));
    assert!(
        warned[0].message.contains("early fragment tests") && warned[0].message.contains("Greater"),
        "{}",
        warned[0].message
    );
    for info in [
        graphics("early_only").early_fragment_test(true),
        graphics("depth_only").depth_write(DepthWrite::Any),
        graphics("early_unchanged")
            .early_fragment_test(true)
            .depth_write(DepthWrite::Unchanged),
    ] {
        let d = check(info);
        assert!(
            !d.iter().any(|d| d.code == Code::RenderState),
            "{}",
            render_all(&d)
        );
    }
}

/// A struct a shared header defines (`typedef_source`) is a type name in every stage: an item of the same name is
/// refused naming both (glslang refused it as a redefinition, or a syntax error, in the generated text).
#[test]
fn an_item_named_like_a_struct_of_a_typedef_source_is_refused() {
    let mut reg = Registry::new();
    reg.add_info(
        graphics("typed")
            .typedef_source("shared.hh")
            .push_constant(Type::Float, "LightData"),
    );
    let info = reg.resolve("typed").unwrap();
    let d = validate(
        &info,
        &ValidateOptions {
            registry: &reg,
            extra_type_names: &["LightData".to_string()],
            require_complete: true,
        },
    );
    let text = refused(&d, Code::DuplicateName, "typed", &["LightData"]);
    assert!(text.contains("typedef_source"), "{text}");
}

/// An array sized by a shared header's macro (Blender's `drw_view_buf[DRW_VIEW_LEN]`) validated by a registry,
/// which reads no files: the error says where such a size is read (a flow's validation), not only "no constant".
#[test]
fn a_size_a_header_defines_points_registry_validation_to_the_flow() {
    let d = check(compute("sized").typedef_source("views.hh").uniform_buf(
        0,
        "vec4",
        "views[VIEW_LEN]",
        Frequency::Pass,
    ));
    let text = refused(
        &d,
        Code::InvalidArray,
        "sized",
        &["VIEW_LEN", "typedef sources"],
    );
    assert!(text.contains("Flow::validated"), "{text}");
}
