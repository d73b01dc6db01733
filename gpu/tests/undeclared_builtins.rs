//! In a strict flow (`Flow::strict_builtins`), a builtin with an effect (a device feature or a GLSL extension) that
//! stage code uses without the info declaring it is refused before any pipeline exists, at the line that uses it,
//! with the declaration to add; the compiler's own error for a builtin its stage cannot see without the extension
//! says the same. Builtins without an effect (`gl_FragCoord`, …) need no declaration. In a default flow, builtins
//! that only need device features are found in the compiled code and added to the plan instead; those that change
//! the generated text (an `#extension`) must still be declared.

use shader_info::{
    BuiltinBits, Code, Diagnostic, DirLoader, Frequency, Qualifier, Registry, ShaderCreateInfo,
    Stage, Type,
};
use shader_info_gpu::compiler::{Compiler, Profile};
use shader_info_gpu::flow::Flow;
use shader_info_gpu::reflect::{SubgroupOps, used_builtins};

/// Compiles every stage of `info` from `files`: the checked modules, or the diagnostics of the first stage that
/// fails.
fn check(
    info: ShaderCreateInfo,
    files: &[(&str, &str)],
) -> Result<Vec<shader_info_gpu::flow::CheckedModule>, Vec<Diagnostic>> {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info);
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release).strict_builtins();
    let v = flow.validated(&name).expect("the declaration is valid");
    v.stages()
        .into_iter()
        .map(|s| flow.compile(&v, s))
        .collect()
}

fn layered(builtins: BuiltinBits) -> ShaderCreateInfo {
    ShaderCreateInfo::new("test_layered")
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "color")
        .builtins(builtins)
        .vertex_source("layer.vert.glsl")
        .fragment_source("plain.frag.glsl")
}

const PLAIN_FRAG: &str = "void main() {\n  color = vec4(1.0);\n}\n";

/// Writes `gl_Layer` from the vertex stage, enabling the extension itself (as code copied from elsewhere does).
const LAYER_VERT: &str = "#extension GL_ARB_shader_viewport_layer_array : require\n\
/* gl_Layer picks the array layer. */\n\
void main() {\n\
  gl_Position = vec4(pos, 0.0, 1.0);\n\
  gl_Layer = 1;\n\
}\n";

fn only(diags: &[Diagnostic]) -> &Diagnostic {
    assert_eq!(diags.len(), 1, "{diags:#?}");
    &diags[0]
}

#[test]
fn an_undeclared_layer_write_is_refused_at_its_line() {
    let diags = check(
        layered(BuiltinBits::NONE),
        &[
            ("layer.vert.glsl", LAYER_VERT),
            ("plain.frag.glsl", PLAIN_FRAG),
        ],
    )
    .unwrap_err();
    let d = only(&diags);
    assert_eq!(d.code, Code::ReflectionMismatch);
    assert_eq!(d.info, "test_layered");
    assert_eq!(d.stage, Some(Stage::Vertex));
    assert_eq!(d.file.as_deref(), Some("layer.vert.glsl"));
    assert_eq!(
        d.line,
        Some(5),
        "the line that writes it, not the comment: {d}"
    );
    assert!(d.message.contains("`gl_Layer`"), "{d}");
    assert!(d.message.contains("shaderOutputLayer"), "{d}");
    assert!(
        d.hint
            .as_deref()
            .unwrap()
            .contains(".builtins(BuiltinBits::LAYER)"),
        "{d}"
    );
    // Declared, the same code compiles: the declaration writes the extension (again) and the plan asks for the
    // feature.
    check(
        layered(BuiltinBits::LAYER),
        &[
            ("layer.vert.glsl", LAYER_VERT),
            ("plain.frag.glsl", PLAIN_FRAG),
        ],
    )
    .unwrap();
}

#[test]
fn the_compiler_error_for_a_builtin_the_stage_cannot_see_names_the_declaration() {
    let vert = LAYER_VERT.replace(
        "#extension GL_ARB_shader_viewport_layer_array : require",
        "",
    );
    let diags = check(
        layered(BuiltinBits::NONE),
        &[("layer.vert.glsl", &vert), ("plain.frag.glsl", PLAIN_FRAG)],
    )
    .unwrap_err();
    let d = diags
        .iter()
        .find(|d| d.message.contains("gl_Layer"))
        .unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(d.code, Code::Compile);
    assert_eq!(d.file.as_deref(), Some("layer.vert.glsl"));
    assert_eq!(d.line, Some(5));
    assert!(
        d.hint
            .as_deref()
            .unwrap()
            .contains(".builtins(BuiltinBits::LAYER)"),
        "{d}"
    );
}

#[test]
fn undeclared_primitive_id_and_clip_distances_name_their_device_features() {
    let info = |b: BuiltinBits| {
        ShaderCreateInfo::new("test_prim")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "color")
            .builtins(b)
            .vertex_source("clip.vert.glsl")
            .fragment_source("prim.frag.glsl")
    };
    let files = [
        (
            "clip.vert.glsl",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n  gl_ClipDistance[0] = pos.x;\n}\n",
        ),
        (
            "prim.frag.glsl",
            "void main() {\n  color = vec4(float(gl_PrimitiveID), gl_FragCoord.xy, 1.0);\n}\n",
        ),
    ];
    let diags = check(info(BuiltinBits::NONE), &files).unwrap_err();
    let d = only(&diags);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("clip.vert.glsl"), Some(3))
    );
    assert!(d.message.contains("shaderClipDistance"), "{d}");
    let diags = check(info(BuiltinBits::CLIP_DISTANCES), &files).unwrap_err();
    let d = only(&diags);
    assert_eq!(d.stage, Some(Stage::Fragment));
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("prim.frag.glsl"), Some(2))
    );
    assert!(
        d.message.contains("`gl_PrimitiveID`") && d.message.contains("geometryShader"),
        "{d}"
    );
    assert!(
        d.hint
            .as_deref()
            .unwrap()
            .contains("BuiltinBits::PRIMITIVE_ID"),
        "{d}"
    );
    // gl_FragCoord has no effect: declaring the other two is all it takes.
    check(
        info(BuiltinBits::CLIP_DISTANCES | BuiltinBits::PRIMITIVE_ID),
        &files,
    )
    .unwrap();
}

#[test]
fn undeclared_subgroup_operations_are_refused_and_their_classes_read() {
    let info = |b: BuiltinBits| {
        ShaderCreateInfo::new("test_subgroup")
            .storage_buf(0, Qualifier::ReadWrite, "uint", "data[]", Frequency::Pass)
            .local_group_size(64)
            .builtins(b)
            .compute_source("sum.comp.glsl")
    };
    let comp = "#extension GL_KHR_shader_subgroup_arithmetic : require\n\
                #extension GL_KHR_shader_subgroup_ballot : require\n\
                void main() {\n\
                  uint i = gl_GlobalInvocationID.x;\n\
                  data[i] = subgroupAdd(data[i]) + subgroupBallotBitCount(subgroupBallot(true));\n\
                }\n";
    let diags = check(info(BuiltinBits::NONE), &[("sum.comp.glsl", comp)]).unwrap_err();
    let d = only(&diags);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("sum.comp.glsl"), Some(5))
    );
    assert!(d.message.contains("`subgroupAdd`"), "{d}");
    assert!(
        d.hint.as_deref().unwrap().contains("BuiltinBits::SUBGROUP"),
        "{d}"
    );

    // Declared, it compiles, and the module says which classes of operations the device must support.
    let checked = &check(info(BuiltinBits::SUBGROUP), &[("sum.comp.glsl", comp)]).unwrap()[0];
    assert!(used_builtins(&checked.reflection, Stage::Compute).contains(BuiltinBits::SUBGROUP));
    let ops = SubgroupOps::of(&checked.reflection);
    assert_eq!(ops.missing_from(0), ["BASIC", "ARITHMETIC", "BALLOT"]);
    assert!(ops.missing_from(0b1111).is_empty());
}

#[test]
fn builtins_that_only_need_device_features_are_found_in_the_code_and_planned() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "clip.vert.glsl",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n  gl_ClipDistance[0] = pos.x;\n}\n",
        ),
        (
            "prim.frag.glsl",
            "void main() {\n  color = vec4(float(gl_PrimitiveID), gl_FragCoord.xy, 1.0);\n}\n",
        ),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_found")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("clip.vert.glsl")
            .fragment_source("prim.frag.glsl"),
    );
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let v = flow.validated("test_found").unwrap();
    assert!(
        v.builtins
            .contains(BuiltinBits::CLIP_DISTANCES | BuiltinBits::PRIMITIVE_ID),
        "{:?}",
        v.builtins.names()
    );
    for s in v.stages() {
        flow.compile(&v, s).unwrap();
    }
    let features: Vec<&str> = flow
        .plan(&v)
        .builtin_features
        .iter()
        .map(|f| f.feature)
        .collect();
    assert!(features.contains(&"shaderClipDistance"), "{features:?}");
    assert!(features.contains(&"geometryShader"), "{features:?}");
}
