//! The cross pass: every module of the library translated to WGSL, MSL, HLSL, OpenGL and OpenGL ES and each output
//! proven by its independent check; snapshots of a few outputs; the checks themselves caught lying; verdicts for
//! what a target cannot express, for opted-out targets and for bad specialization values.

use gpu::builder::{BuildOptions, build};
use gpu::compiler::{Compiler, Profile};
use gpu::cross::{
    CrossOptions, Portable, Target, Translation, Verdict, check, spec::SpecHandling,
    translate_module,
};
use gpu::flow::Flow;
use shader_info::*;
use shaders as _;
use std::path::Path;

fn compiler(root: &Path) -> Compiler {
    Compiler::new(root).expect("compiler")
}

/// One module of the shipped library, parsed for translation.
fn portable(name: &str, stage: Stage) -> Portable {
    let root = shaders::glsl_root();
    let (compiler, loader) = (compiler(&root), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
    let info = flow.validated(name).unwrap();
    Portable::new(&flow, &info, stage).unwrap_or_else(|d| panic!("{}", render_all(&d)))
}

fn translate(p: &Portable, target: Target) -> Translation {
    p.translate(target, &SpecValues::default())
        .unwrap_or_else(|d| panic!("{}", render_all(&d)))
}

#[test]
fn the_whole_library_translates_to_every_target_and_passes_the_independent_checks() {
    let root = shaders::glsl_root();
    let (compiler, loader) = (compiler(&root), DirLoader::new(&root));
    let out = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        profile: Profile::Release,
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        out_dir: Some(out.path().to_path_buf()),
        cross: CrossOptions {
            targets: Target::ALL.to_vec(),
            check: true,
            ..CrossOptions::default()
        },
        ..BuildOptions::default()
    };
    let report = build(Registry::global(), &compiler, &loader, &opts, &|_| {});
    assert!(report.success(), "{}", report.render_failures());

    // Every module has a verdict on every target.
    for m in &report.module_reports {
        let targets: Vec<Target> = m.targets.iter().map(|t| t.target).collect();
        assert_eq!(targets, Target::ALL, "{} {}", m.info, m.stage);
    }
    let ray_tracing = ["rgen", "rmiss", "rchit", "rahit", "rint", "rcall"];
    let portable = report
        .module_reports
        .iter()
        .filter(|m| !ray_tracing.contains(&m.stage.as_str()))
        .count();
    assert!(portable >= 900, "{portable} non-ray-tracing modules");
    for (target, counts) in &report.targets {
        assert_eq!(counts.failed, 0, "{target}");
        assert_eq!(
            counts.translated + counts.unsupported + counts.skipped,
            report.modules,
            "{target}: a verdict for every module"
        );
        let share = counts.translated as f64 / portable as f64;
        assert!(
            share >= 0.95,
            "{target}: {} of {portable} non-ray-tracing modules translated and checked ({:.1} %)",
            counts.translated,
            share * 100.0
        );
    }
    // Ray tracing is unsupported everywhere, with the reason; never a failure or a silent skip.
    for m in report
        .module_reports
        .iter()
        .filter(|m| ray_tracing.contains(&m.stage.as_str()))
    {
        for t in &m.targets {
            assert_eq!(t.verdict, "unsupported", "{} {}", m.info, m.stage);
            assert!(t.reasons[0].starts_with(&format!("unsupported on {}: ray tracing", t.target)));
        }
    }

    // Each output beside the module's SPIR-V, with the same stem; the reflection JSON has the targets section.
    for ext in [
        "spv",
        "glsl",
        "wgsl",
        "msl",
        "hlsl",
        "gl.glsl",
        "gles.glsl",
        "json",
    ] {
        let file = out.path().join(format!("gpu_shader_2D_image.frag.{ext}"));
        assert!(file.is_file(), "{} is missing", file.display());
    }
    assert!(out.path().join("gpu_shader_mesh.v3.vert.wgsl").is_file());
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("gpu_compute_map.comp.json")).unwrap(),
    )
    .unwrap();
    let targets = &json["targets"];
    assert_eq!(targets["map"]["bindings"][1]["name"], "dst");
    assert_eq!(targets["map"]["bindings"][1]["hlsl"]["class"], "u");
    assert_eq!(targets["outputs"][0]["file"], "gpu_compute_map.comp.wgsl");
    assert_eq!(
        targets["outputs"][0]["spec_constants"]["applied"],
        "pipeline_time"
    );
    assert_eq!(targets["outputs"][2]["spec_constants"]["applied"], "baked");
    // Every WGSL file keeps in immediates only what every WebGPU implementation takes (64 bytes), and its JSON says
    // where the block is read: the library has blocks on both sides of that limit.
    let (mut immediate, mut buffered) = (0, 0);
    for e in std::fs::read_dir(out.path()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "wgsl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap())
                .unwrap();
        let pc = &json["declared"]["push_constants"];
        if pc.is_null() {
            assert!(!text.contains("var<immediate>"), "{}", path.display());
            continue;
        }
        let size = pc["target_sizes"]["wgsl"].as_u64().unwrap();
        if !pc["spilled_to"].is_null() {
            // Over 128 bytes: a declared buffer on every target.
            assert_eq!(pc["wgsl_reads_from"], "spilled_to", "{}", path.display());
            assert!(!text.contains("var<immediate>"), "{}", path.display());
        } else if text.contains("var<immediate>") {
            assert!(size <= 64, "{}: {size} bytes in immediates", path.display());
            assert_eq!(pc["wgsl_reads_from"], "immediates", "{}", path.display());
            immediate += 1;
        } else if text.contains("@group(3) @binding(0) \nvar<storage> ") {
            assert_eq!(
                pc["wgsl_reads_from"]["storage_buffer"],
                serde_json::json!({ "group": 3, "binding": 0 }),
                "{}",
                path.display()
            );
            if size > 64 {
                buffered += 1;
            }
        }
    }
    assert!(
        immediate > 0 && buffered > 0,
        "{immediate} in immediates, {buffered} over 64 bytes"
    );
    // The library's modules all make pipelines on a default WebGPU device.
    for m in &report.module_reports {
        for t in m.targets.iter().filter(|t| t.target == Target::Wgsl) {
            assert!(
                t.webgpu_limits.is_empty(),
                "{} {}: {:?}",
                m.info,
                m.stage,
                t.webgpu_limits
            );
        }
    }
    // A point-size module: no WGSL file, and the JSON says why.
    assert!(
        !out.path()
            .join("gpu_shader_2D_point_round.vert.wgsl")
            .exists()
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("gpu_shader_2D_point_round.vert.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["targets"]["outputs"][0]["verdict"], "unsupported");
    let reason = json["targets"]["outputs"][0]["reasons"][0]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("unsupported on wgsl: gl_PointSize (WebGPU has no point size)"),
        "{reason}"
    );
}

#[test]
fn translated_outputs_of_a_few_infos() {
    let image = portable("gpu_shader_2D_image", Stage::Fragment);
    for target in Target::ALL {
        insta::assert_snapshot!(
            format!("gpu_shader_2D_image.frag.{}", target.extension()),
            translate(&image, target).text
        );
    }
    insta::assert_snapshot!(
        "gpu_shader_2D_image.targets",
        serde_json::to_string_pretty(&image.plan.targets).unwrap()
    );
    let lit = portable("gpu_shader_forward_lit", Stage::Fragment);
    for target in [Target::Wgsl, Target::Hlsl, Target::Gl] {
        insta::assert_snapshot!(
            format!("gpu_shader_forward_lit.frag.{}", target.extension()),
            translate(&lit, target).text
        );
    }
    let map = portable("gpu_compute_map", Stage::Compute);
    insta::assert_snapshot!(
        "gpu_compute_map.comp.msl",
        translate(&map, Target::Msl).text
    );
}

/// A sampler whose declaration fixes its state (the text shader's glyph atlas: nearest) is an MSL `constexpr
/// sampler` with that state instead of an argument, and the binding map carries the state for the other targets'
/// hosts (an HLSL root signature's static sampler).
#[test]
fn a_declared_sampler_state_is_an_msl_inline_sampler_and_in_the_map() {
    let text = portable("gpu_shader_text", Stage::Fragment);
    let atlas = text
        .plan
        .targets
        .bindings
        .iter()
        .find(|b| b.part == BindingPart::Sampler)
        .expect("the atlas is split into texture and sampler");
    assert_eq!(atlas.msl.class, MslClass::InlineSampler);
    assert_eq!(atlas.sampler_state, Some(SamplerState::nearest()));
    let json = serde_json::to_value(&text.plan.targets).unwrap();
    let sampler = json["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["part"] == "sampler")
        .unwrap();
    assert_eq!(sampler["sampler_state"]["filter"], "Nearest", "{json:#}");
    assert_eq!(sampler["msl"]["class"], "inline_sampler", "{json:#}");
    let msl = translate(&text, Target::Msl).text;
    assert!(
        msl.contains("constexpr metal::sampler ")
            && msl.contains("metal::min_filter::nearest")
            && msl.contains("metal::s_address::clamp_to_edge"),
        "{msl}"
    );
    assert!(!msl.contains("[[sampler("), "{msl}");
    // The checks see it: an inline sampler turned back into linear filtering is caught.
    let t = translate(&text, Target::Msl);
    check_fails(
        &text,
        &tampered(&t, "min_filter::nearest", "min_filter::linear"),
        &["lacks its declared `min_filter::nearest`"],
    );
}

/// Two inline samplers of one state: each declared state must have its own declaration in the MSL (one filter
/// written once stood for both).
#[test]
fn each_inline_sampler_is_checked_against_its_own_declared_state() {
    let mut s = Scratch::new(&[
        (
            "two.frag",
            "void main() { color = texture(a, vec2(0.5)) + texture(b, vec2(0.5)); }\n",
        ),
        ("two.vert", "void main() { gl_Position = vec4(0.0); }\n"),
    ]);
    let info = ShaderCreateInfo::new("scratch_two_samplers")
        .sampler_with_state(
            0,
            ImageType::Float2D,
            "a",
            Frequency::Pass,
            SamplerState::nearest(),
        )
        .sampler_with_state(
            1,
            ImageType::Float2D,
            "b",
            Frequency::Pass,
            SamplerState::nearest(),
        )
        .fragment_out(0, Type::Vec4, "color")
        .vertex_source("two.vert")
        .fragment_source("two.frag")
        .do_static_compilation(true);
    let p = s.portable(info, Stage::Fragment);
    let t = translate(&p, Target::Msl);
    assert_eq!(
        t.text.matches("min_filter::nearest").count(),
        2,
        "{}",
        t.text
    );
    check::check(&p, &t).unwrap_or_else(|d| panic!("{}", render_all(&d)));
    // The second sampler turned linear: the first's `nearest` no longer answers for it.
    let at = t.text.rfind("min_filter::nearest").unwrap();
    let mut text = t.text.clone();
    text.replace_range(at..at + "min_filter::nearest".len(), "min_filter::linear");
    check_fails(
        &p,
        &Translation { text, ..t.clone() },
        &["lacks its declared `min_filter::nearest`"],
    );
}

/// A translation whose text a test edits, to see the check catch it.
fn tampered(t: &Translation, from: &str, to: &str) -> Translation {
    assert!(t.text.contains(from), "`{from}` is not in:\n{}", t.text);
    Translation {
        text: t.text.replacen(from, to, 1),
        ..t.clone()
    }
}

fn check_fails(p: &Portable, t: &Translation, expect: &[&str]) {
    let messages: Vec<String> = match check::check(p, t) {
        Ok(()) => panic!(
            "the {} check accepts a wrong translation:\n{}",
            t.target, t.text
        ),
        Err(d) => d.into_iter().map(|d| d.to_string()).collect(),
    };
    let all = messages.join("\n");
    for e in expect {
        assert!(all.contains(e), "`{e}` not in:\n{all}");
    }
}

#[test]
fn the_checks_catch_wrong_bindings_registers_indices_and_offsets() {
    let image = portable("gpu_shader_2D_image", Stage::Fragment);
    let lit = portable("gpu_shader_forward_lit", Stage::Fragment);
    for p in [&image, &lit] {
        for target in Target::ALL {
            let t = translate(p, target);
            assert!(
                check::check(p, &t).is_ok(),
                "{} {target}: {:?}",
                p.key,
                check::check(p, &t)
            );
        }
    }

    // WGSL: a binding moved, a member's type changed (every later offset moves).
    let wgsl = translate(&image, Target::Wgsl);
    check_fails(
        &image,
        &tampered(&wgsl, "@group(1) @binding(1)", "@group(1) @binding(7)"),
        &["@binding(7)", "no binding"],
    );
    let wgsl = translate(&lit, Target::Wgsl);
    check_fails(
        &lit,
        &tampered(
            &wgsl,
            "view_projection: mat4x4<f32>",
            "view_projection: mat3x3<f32>",
        ),
        &[
            "`view.inv_view_projection` is at offset 48 in the translation but at 64 in the declaration",
        ],
    );

    // HLSL: a texture at another register; the push-constant block at another space.
    let hlsl = translate(&image, Target::Hlsl);
    check_fails(
        &image,
        &tampered(&hlsl, "register(t0, space1)", "register(t4, space1)"),
        &[
            "register(t4, space1)",
            "`image` (texture) (set 1, binding 0) is not declared at register(t0, space1)",
        ],
    );
    let hlsl = translate(&lit, Target::Hlsl);
    check_fails(
        &lit,
        &tampered(&hlsl, "register(b0, space3)", "register(b0, space2)"),
        &["register(b0, space2)"],
    );

    // OpenGL: a texture unit moved; a uniform-block member's offset moved.
    let gl = translate(&image, Target::Gl);
    check_fails(
        &image,
        &tampered(
            &gl,
            "layout(binding = 0) uniform sampler2D",
            "layout(binding = 3) uniform sampler2D",
        ),
        &["texture unit 3"],
    );
    let gl = translate(&lit, Target::Gl);
    check_fails(
        &lit,
        &tampered(&gl, "mat4x4 view_projection;", "mat3x3 view_projection;"),
        &[
            "member `view.camera_position` is at offset 112 for glslang but at 128 in the declaration",
        ],
    );

    // MSL: a texture at another index.
    let msl = translate(&image, Target::Msl);
    check_fails(
        &image,
        &tampered(&msl, "[[texture(0)]]", "[[texture(5)]]"),
        &["(Texture, 5)"],
    );
}

#[test]
fn specialization_constants_are_pipeline_time_where_the_target_has_them_and_baked_with_their_own_key_elsewhere()
 {
    let p = portable("gpu_compute_map", Stage::Compute);
    let values = SpecValues::default()
        .set("OPERATION", 2u32)
        .set("OPERAND", 0.25f32)
        .set("CLAMP_TO_UNIT", true);
    let expect_baked = [
        ("OPERATION", ConstValue::Uint(2)),
        ("OPERAND", ConstValue::Float(0.25)),
        ("CLAMP_TO_UNIT", ConstValue::Bool(true)),
    ];
    for target in Target::ALL {
        let t = p.translate(target, &values).unwrap();
        check::check(&p, &t).unwrap_or_else(|d| panic!("{target}: {}", render_all(&d)));
        match target {
            Target::Wgsl => {
                assert_eq!(
                    t.spec_constants,
                    SpecHandling::PipelineTime { ids: vec![0, 1, 2] }
                );
                assert!(
                    t.text
                        .contains("@id(0) override gpu_spec0_value: u32 = 0u;"),
                    "{}",
                    t.text
                );
            }
            Target::Msl => {
                assert_eq!(
                    t.spec_constants,
                    SpecHandling::PipelineTime { ids: vec![0, 1, 2] }
                );
                assert!(
                    t.text
                        .contains("constant float gpu_spec1_value_fc [[function_constant(1)]];"),
                    "{}",
                    t.text
                );
                assert!(t.text.contains(
                    "is_function_constant_defined(gpu_spec1_value_fc) ? gpu_spec1_value_fc : 1.0;"
                ));
            }
            Target::Hlsl | Target::Gl | Target::Gles => {
                let values: Vec<(String, ConstValue)> = expect_baked
                    .iter()
                    .map(|(n, v)| (n.to_string(), *v))
                    .collect();
                assert_eq!(t.spec_constants, SpecHandling::Baked { values });
                let prefix = if target == Target::Hlsl {
                    "static const"
                } else {
                    "const"
                };
                for line in [
                    "uint gpu_spec0_value = 2u;",
                    "float gpu_spec1_value = 0.25;",
                    "bool gpu_spec2_value = true;",
                ] {
                    assert!(
                        t.text.contains(&format!("{prefix} {line}")),
                        "{target}: `{line}` in\n{}",
                        t.text
                    );
                }
            }
        }
        // Baked targets: another value is another translation (its own cache key); pipeline-time: one for all.
        let default_key = p.cache_key(target, &SpecValues::default()).unwrap();
        let key = p.cache_key(target, &values).unwrap();
        assert_eq!(
            key == default_key,
            gpu::cross::spec::pipeline_time(target),
            "{target}"
        );
    }
    // Values the declaration does not take are errors naming what it declares.
    let e = p
        .translate(Target::Hlsl, &SpecValues::default().set("OPERATON", 1u32))
        .unwrap_err();
    assert!(
        e[0].message.contains(
            "no specialization constant `OPERATON`; declared: OPERATION, OPERAND, CLAMP_TO_UNIT"
        ),
        "{}",
        e[0]
    );
    let e = p
        .cache_key(Target::Gl, &SpecValues::default().set("OPERAND", 1u32))
        .unwrap_err();
    assert!(
        e.contains("`OPERAND` is float, the value given is uint"),
        "{e}"
    );
}

/// A scratch shader root with its own registry.
struct Scratch {
    dir: tempfile::TempDir,
    registry: Registry,
}

impl Scratch {
    fn new(files: &[(&str, &str)]) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        Scratch {
            dir,
            registry: Registry::shared_types_from_inventory(),
        }
    }

    /// `f` on the flow over this tree and `info`, added and validated.
    fn with<R>(&mut self, info: ShaderCreateInfo, f: impl FnOnce(&Flow, &ValidatedInfo) -> R) -> R {
        let name = info.name.clone();
        self.registry.add_info(info);
        let (compiler, loader) = (compiler(self.dir.path()), DirLoader::new(self.dir.path()));
        let flow = Flow::new(&self.registry, &loader, &compiler, Profile::Release);
        let v = flow
            .validated(&name)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        f(&flow, &v)
    }

    fn verdicts(&mut self, info: ShaderCreateInfo, stage: Stage) -> Vec<(Target, Verdict)> {
        let opts = CrossOptions {
            targets: Target::ALL.to_vec(),
            check: true,
            ..CrossOptions::default()
        };
        self.with(info, |flow, v| translate_module(flow, v, stage, &opts))
    }

    /// The stage of `info`, parsed for translation.
    fn portable(&mut self, info: ShaderCreateInfo, stage: Stage) -> Portable {
        self.with(info, |flow, v| {
            Portable::new(flow, v, stage).unwrap_or_else(|d| panic!("{}", render_all(&d)))
        })
    }
}

#[test]
fn an_info_may_opt_out_of_a_target_and_a_building_block_opt_out_is_inherited() {
    let mut s = Scratch::new(&[(
        "c.comp",
        "void main() { data[gl_GlobalInvocationID.x] *= 2.0; }\n",
    )]);
    s.registry.add_info(
        ShaderCreateInfo::new("scratch_no_es")
            .skip_target(Target::Gles, "this renderer ships no OpenGL ES build"),
    );
    let info = ShaderCreateInfo::new("scratch_opt_out")
        .storage_buf(0, Qualifier::ReadWrite, "float", "data[]", Frequency::Pass)
        .local_group_size(64)
        .compute_source("c.comp")
        .skip_target(Target::Msl, "no Metal port planned")
        .additional_info("scratch_no_es")
        .do_static_compilation(true);
    for (target, verdict) in s.verdicts(info, Stage::Compute) {
        match target {
            Target::Msl => assert_eq!(
                verdict.lines(target),
                ["skipped on msl: no Metal port planned"]
            ),
            Target::Gles => assert_eq!(
                verdict.lines(target),
                ["skipped on gles: this renderer ships no OpenGL ES build"]
            ),
            _ => assert!(
                matches!(verdict, Verdict::Translated(_)),
                "{target}: {:?}",
                verdict.lines(target)
            ),
        }
    }
}

#[test]
fn what_a_target_cannot_express_is_reported_per_target_with_the_reason() {
    let mut s = Scratch::new(&[
        (
            "p.vert",
            "void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = size; }\n",
        ),
        ("p.frag", "void main() { frag_color = vec4(1.0); }\n"),
    ]);
    let info = ShaderCreateInfo::new("scratch_points")
        .push_constant(Type::Float, "size")
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("p.vert")
        .fragment_source("p.frag")
        .do_static_compilation(true);
    for (target, verdict) in s.verdicts(info, Stage::Vertex) {
        match target {
            Target::Wgsl | Target::Hlsl => {
                let lines = verdict.lines(target);
                assert_eq!(lines.len(), 1, "{lines:?}");
                assert!(
                    lines[0].starts_with(&format!("unsupported on {target}: gl_PointSize (")),
                    "{}",
                    lines[0]
                );
            }
            _ => assert!(
                matches!(verdict, Verdict::Translated(_)),
                "{target}: {:?}",
                verdict.lines(target)
            ),
        }
    }
}

#[test]
fn a_translator_error_names_the_info_stage_and_target() {
    // Interpolation functions: naga reads no `InterpolateAt*` instruction.
    let mut s = Scratch::new(&[
        (
            "i.vert",
            "void main() { gl_Position = vec4(0.0); v = 1.0; }\n",
        ),
        (
            "i.frag",
            "void main() { frag_color = vec4(interpolateAtCentroid(v)); }\n",
        ),
    ]);
    let info = ShaderCreateInfo::new("scratch_interpolate")
        .vertex_out(&StageInterfaceInfo::new("i_iface", "").smooth(Type::Float, "v"))
        .fragment_out(0, Type::Vec4, "frag_color")
        .vertex_source("i.vert")
        .fragment_source("i.frag")
        .do_static_compilation(true);
    let verdicts = s.verdicts(info, Stage::Fragment);
    assert_eq!(verdicts.len(), 5);
    for (target, verdict) in verdicts {
        let Verdict::Failed(d) = verdict else {
            panic!("{target}: {:?}", verdict.lines(target));
        };
        let text = d[0].to_string();
        assert!(
            d[0].info == "scratch_interpolate" && d[0].stage == Some(Stage::Fragment),
            "{text}"
        );
        assert!(text.contains("naga"), "{text}");
    }
}

/// Variants whose modules are the same code (the mesh ubershader's transparent variant and its opaque twin) share
/// one translation per pass; what that sharing must not change is checked here: the same text, and each verdict
/// naming its own variant.
#[test]
fn state_only_variants_translate_alike_and_each_verdict_names_its_variant() {
    let root = shaders::glsl_root();
    let (compiler, loader) = (compiler(&root), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
    let mesh = flow.validated("gpu_shader_mesh").unwrap();
    let set = flow.variants(&mesh).unwrap();
    let opaque = set.lookup(set.bits_of(&[("FOG", true)]).unwrap()).unwrap();
    let transparent = set
        .lookup(
            set.bits_of(&[("FOG", true), ("TRANSPARENT", true)])
                .unwrap(),
        )
        .unwrap();
    assert_ne!(opaque, transparent, "the two differ in state");
    let opts = CrossOptions {
        targets: vec![Target::Wgsl, Target::Msl],
        check: false,
        ..CrossOptions::default()
    };
    let verdicts = |i: usize| {
        let v = flow
            .validated_key(&format!("gpu_shader_mesh#v{i}"))
            .unwrap();
        translate_module(&flow, &v, Stage::Fragment, &opts)
    };
    let (a, b) = (verdicts(opaque), verdicts(transparent));
    for ((ta, va), (tb, vb)) in a.iter().zip(&b) {
        assert_eq!(ta, tb);
        let (Verdict::Translated(x), Verdict::Translated(y)) = (va, vb) else {
            panic!("{ta}: {va:?} / {vb:?}");
        };
        assert_eq!(x.text, y.text, "{ta}: one code, one translation");
        assert_eq!(x.key, format!("gpu_shader_mesh#v{opaque}"));
        assert_eq!(y.key, format!("gpu_shader_mesh#v{transparent}"));
    }
}

/// WebGPU's immediates take no arrays (Tint refuses them; naga and wgpu do not): a push block with an array
/// member is a read-only storage buffer at @group(3) @binding(0) in WGSL, and the checks refuse it in immediates.
#[test]
fn a_push_block_with_an_array_is_a_storage_buffer_in_wgsl_and_tint_takes_it() {
    let cull = portable("gpu_compute_cull", Stage::Compute);
    let wgsl = translate(&cull, Target::Wgsl);
    assert!(!wgsl.text.contains("var<immediate>"), "{}", wgsl.text);
    assert!(
        wgsl.text.contains("@group(3) @binding(0) \nvar<storage> "),
        "{}",
        wgsl.text
    );
    check::check(&cull, &wgsl).unwrap_or_else(|d| panic!("{}", render_all(&d)));
    let tint = check::tools()
        .into_iter()
        .any(|(t, ok)| t.starts_with("tint") && ok);
    let mut expect = vec!["keeps it in immediates, which WebGPU forbids"];
    if tint {
        expect.push("arrays cannot be used in the <immediate> address space");
    } else {
        assert!(
            std::env::var(check::REQUIRE_TINT_ENV).as_deref() != Ok("1"),
            "{}=1 but Tint cannot run",
            check::REQUIRE_TINT_ENV
        );
    }
    check_fails(
        &cull,
        &tampered(
            &wgsl,
            "@group(3) @binding(0) \nvar<storage> ",
            "var<immediate> ",
        ),
        &expect,
    );
    // Other targets keep their push constants.
    let hlsl = translate(&cull, Target::Hlsl);
    assert!(hlsl.text.contains("register(b0, space3)"), "{}", hlsl.text);
}

/// A WebGPU implementation need take only 64 bytes of immediates (Direct3D 12's root signature bounds them; Chrome
/// exposes no more): a larger block without arrays is the storage buffer at @group(3) @binding(0) in the WGSL, which
/// Tint and the check take; kept in immediates, the check refuses it by its size.
#[test]
fn a_push_block_over_webgpus_64_bytes_is_a_storage_buffer_in_wgsl() {
    let mut s = Scratch::new(&[(
        "wide.comp",
        "void main() { result[0] = (model * tint).x + float(count); }\n",
    )]);
    let info = ShaderCreateInfo::new("scratch_wide_push")
        .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
        .push_constant(Type::Mat4, "model")
        .push_constant(Type::Vec4, "tint")
        .push_constant(Type::Uint, "count")
        .local_group_size(1)
        .compute_source("wide.comp")
        .do_static_compilation(true);
    let p = s.portable(info, Stage::Compute);
    assert_eq!(p.plan.push_constants.as_ref().unwrap().twin_size(), 96);
    let wgsl = translate(&p, Target::Wgsl);
    assert!(!wgsl.text.contains("var<immediate>"), "{}", wgsl.text);
    check::check(&p, &wgsl).unwrap_or_else(|d| panic!("{}", render_all(&d)));
    check_fails(
        &p,
        &tampered(
            &wgsl,
            "@group(3) @binding(0) \nvar<storage> ",
            "var<immediate> ",
        ),
        &["the WGSL keeps 96 bytes in immediates; a WebGPU implementation need take only 64"],
    );
    // The other targets keep their push constants.
    let hlsl = translate(&p, Target::Hlsl);
    assert!(hlsl.text.contains("register(b0, space3)"), "{}", hlsl.text);
    // Dawn, the independent implementation, takes exactly what the rule assumes.
    match check::tint::max_immediate_size() {
        Some(dawn) => assert_eq!(dawn, gpu::cross::immediates::WEBGPU_IMMEDIATE_BYTES),
        None => assert!(
            std::env::var(check::REQUIRE_TINT_ENV).as_deref() != Ok("1"),
            "{}=1 but Tint cannot run",
            check::REQUIRE_TINT_ENV
        ),
    }
}

/// Tint compiles a module without a device; a pipeline of it is made only where the device's limits allow. A WGSL
/// translation lists the WebGPU limits it needs above the defaults every device gets, for a web renderer's
/// `requiredLimits`: here 1,024 invocations, 9 storage buffers and 20 KiB of work-group memory (a default WebGPU
/// device takes 256 invocations, 8 storage buffers a stage, 16 KiB), and 17 textures and samplers in a fragment
/// stage (16 each).
#[test]
fn a_wgsl_translation_lists_the_webgpu_limits_it_needs_above_the_defaults() {
    let mut compute =
        String::from("void main() {\n  uint i = gl_LocalInvocationIndex;\n  tile[i] = float(i);\n");
    let mut info = ShaderCreateInfo::new("scratch_big_compute")
        .local_group_size_2d(32, 32)
        .shared_variable(Type::Float, "tile[5120]")
        .compute_source("big.comp")
        .do_static_compilation(true);
    for b in 0..9 {
        info = info.storage_buf(
            b,
            Qualifier::Write,
            "float",
            format!("out{b}[]"),
            Frequency::Pass,
        );
        compute += &format!("  out{b}[i] = tile[i];\n");
    }
    compute += "}\n";
    let mut fragment = String::from("void main() {\n  vec4 c = vec4(0.0);\n");
    let mut textured = ShaderCreateInfo::new("scratch_many_textures")
        .vertex_source("t.vert")
        .fragment_source("t.frag")
        .do_static_compilation(true);
    for t in 0..17 {
        textured = textured.sampler(t, ImageType::Float2D, format!("tex{t}"), Frequency::Pass);
        fragment += &format!("  c += texture(tex{t}, vec2(0.5));\n");
    }
    textured = textured.fragment_out(0, Type::Vec4, "color");
    fragment += "  color = c;\n}\n";
    let mut s = Scratch::new(&[
        ("big.comp", compute.as_str()),
        (
            "t.vert",
            "void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n",
        ),
        ("t.frag", fragment.as_str()),
    ]);
    let needs = |pairs: &[(&str, u64)]| -> std::collections::BTreeMap<String, u64> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    };
    let big = s.portable(info, Stage::Compute);
    assert_eq!(
        translate(&big, Target::Wgsl).webgpu_limits,
        needs(&[
            ("maxComputeInvocationsPerWorkgroup", 1024),
            ("maxComputeWorkgroupStorageSize", 20480),
            ("maxStorageBuffersPerShaderStage", 9),
        ])
    );
    // The other targets have no such list.
    assert!(translate(&big, Target::Hlsl).webgpu_limits.is_empty());
    let frag = s.portable(textured, Stage::Fragment);
    assert_eq!(
        translate(&frag, Target::Wgsl).webgpu_limits,
        needs(&[
            ("maxSampledTexturesPerShaderStage", 17),
            ("maxSamplersPerShaderStage", 17),
        ])
    );
    // A module within the defaults has an empty list.
    let plain = translate(&portable("gpu_compute_map", Stage::Compute), Target::Wgsl);
    assert!(plain.webgpu_limits.is_empty(), "{:?}", plain.webgpu_limits);
}

/// Buffer blocks keep their declared names in the translations (#28): the HLSL cbuffer and the WGSL uniform read
/// like the GLSL (`view`), not `unnamed_1`; the push-constant block is called as on OpenGL.
#[test]
fn buffer_blocks_keep_their_declared_names() {
    let p = portable("gpu_shader_3D_depth_only", Stage::Vertex);
    let hlsl = translate(&p, Target::Hlsl);
    assert!(
        hlsl.text
            .contains("cbuffer view : register(b0) { _view view; }"),
        "{}",
        hlsl.text
    );
    assert!(
        hlsl.text
            .contains("ConstantBuffer<_PushConstants> gpu_push_constants: register(b0, space3);"),
        "{}",
        hlsl.text
    );
    let wgsl = translate(&p, Target::Wgsl);
    assert!(
        wgsl.text.contains("var<uniform> view: _view;"),
        "{}",
        wgsl.text
    );
    assert!(
        wgsl.text
            .contains("var<immediate> gpu_push_constants: _PushConstants;"),
        "{}",
        wgsl.text
    );
    let msl = translate(&p, Target::Msl);
    assert!(
        msl.text.contains("constant _view& view [[buffer(0)]]"),
        "{}",
        msl.text
    );
    for t in [&hlsl, &wgsl, &msl] {
        assert!(!t.text.contains("unnamed_1"), "{}: {}", t.target, t.text);
    }
}

/// A block named like a keyword of a target is renamed there by naga's namer, and every target still translates
/// and passes its independent check.
#[test]
fn blocks_named_like_target_keywords_still_translate_and_check() {
    let mut s = Scratch::new(&[(
        "k.comp",
        "void main() { uint i = gl_GlobalInvocationID.x; var[i] = matrix[i] + kernel[i]; }\n",
    )]);
    let info = ShaderCreateInfo::new("scratch_keyword_blocks")
        // `var`: WGSL; `matrix`: HLSL; `kernel`: MSL.
        .storage_buf(0, Qualifier::Write, "float", "var[]", Frequency::Pass)
        .storage_buf(1, Qualifier::Read, "float", "matrix[]", Frequency::Pass)
        .storage_buf(2, Qualifier::Read, "float", "kernel[]", Frequency::Pass)
        .local_group_size(64)
        .compute_source("k.comp")
        .do_static_compilation(true);
    for (target, verdict) in s.verdicts(info, Stage::Compute) {
        let Verdict::Translated(t) = &verdict else {
            panic!("{target}: {:?}", verdict.lines(target));
        };
        assert!(!t.text.contains("unnamed"), "{target}: {}", t.text);
    }
}

/// Names naga's namer changes (a final `_` dropped, a GLSL built-in function or reserved word given `_`): push
/// constants keep their declared names on OpenGL, where the host sets them by name, and block members naga renamed
/// are still matched to their declarations by every target's check.
#[test]
fn names_naga_renames_keep_their_declared_meaning_on_every_target() {
    let mut s = Scratch::new(&[(
        "r.comp",
        "void main() { out_values[0] = flags_.x + distance + bounds.min.x + bounds.max.y; }\n",
    )]);
    s.registry.add_struct(
        StructDef::new("ScratchBounds")
            .field(Field::new(Type::Vec4, "min"))
            .field(Field::new(Type::Vec4, "max")),
    );
    let info = ShaderCreateInfo::new("scratch_renamed_names")
        .storage_buf(
            0,
            Qualifier::Write,
            "float",
            "out_values[]",
            Frequency::Pass,
        )
        .uniform_buf(1, "ScratchBounds", "bounds", Frequency::Pass)
        .push_constant(Type::Vec4, "flags_")
        .push_constant(Type::Float, "distance")
        .local_group_size(1)
        .compute_source("r.comp")
        .do_static_compilation(true);
    for (target, verdict) in s.verdicts(info, Stage::Compute) {
        let Verdict::Translated(t) = &verdict else {
            panic!("{target}: {:?}", verdict.lines(target));
        };
        if matches!(target, Target::Gl | Target::Gles) {
            assert!(
                t.text.contains("gpu_push_constants.flags_")
                    && t.text.contains("gpu_push_constants.distance;"),
                "{target}: {}",
                t.text
            );
        }
    }
}

/// Registers from 1000 up: the HLSL check tells register classes apart by the bindings glslang gives them, and a
/// `b1000` beside a `u0` must stay a cbuffer (its member offsets compared), not read as the storage buffer.
#[test]
fn hlsl_registers_from_1000_up_keep_their_class() {
    let mut s = Scratch::new(&[(
        "far.comp",
        "void main() { result[0] = view.camera_position.y; }\n",
    )]);
    let info = ShaderCreateInfo::new("scratch_far_registers")
        .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
        .uniform_buf(1000, "ViewData", "view", Frequency::Pass)
        .local_group_size(1)
        .compute_source("far.comp")
        .do_static_compilation(true);
    let p = s.portable(info, Stage::Compute);
    let hlsl = translate(&p, Target::Hlsl);
    assert!(hlsl.text.contains("register(b1000)"), "{}", hlsl.text);
    check::check(&p, &hlsl).unwrap_or_else(|d| panic!("{}", render_all(&d)));
    // Its member offsets are compared: a cbuffer whose struct moved `camera_position` (a matrix one row short
    // before it) is caught; read as `u0`, it was not compared at all.
    check_fails(
        &p,
        &tampered(
            &hlsl,
            "row_major float4x4 inv_view_projection;",
            "row_major float3x4 inv_view_projection;",
        ),
        &["camera_position"],
    );
}

/// A translation's cache key holds what decides its text beside the SPIR-V: the clip space it was read in (y
/// flipped or not) gives another key.
#[test]
fn the_cache_key_of_a_translation_holds_its_clip_space() {
    let root = shaders::glsl_root();
    let (compiler, loader) = (compiler(&root), DirLoader::new(&root));
    let key = |clip_space| {
        let mut flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
        flow.clip_space = clip_space;
        let info = flow.validated("gpu_shader_2D_image").unwrap();
        Portable::new(&flow, &info, Stage::Vertex)
            .unwrap()
            .cache_key(Target::Wgsl, &SpecValues::default())
            .unwrap()
    };
    assert_ne!(
        key(gpu::flow::ClipSpace::Vulkan),
        key(gpu::flow::ClipSpace::Source)
    );
}
