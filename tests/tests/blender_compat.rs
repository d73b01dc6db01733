//! Blender compatibility: the shapes Blender's own create infos and GLSL take, reproduced by fixtures of this
//! project's own (`fixtures/blender_compat/`, written for these tests; no file of Blender's is copied), ported the
//! way a careful user would: each Blender call mapped to this library's equivalent, the GLSL unchanged.
//!
//! Each test names the shape it reproduces and the part of issue #27 it covers.

use gpu::compiler::{Compiler, Profile};
use gpu::cross::{CrossOptions, Target, Verdict, translate_module};
use gpu::flow::Flow;
use shader_info::*;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blender_compat")
}

/// A registry of the fixtures' infos over the fixture directory.
struct Port {
    root: PathBuf,
    registry: Registry,
}

impl Port {
    fn new(infos: Vec<ShaderCreateInfo>) -> Port {
        let mut registry = Registry::shared_types_from_inventory();
        for info in infos {
            registry.add_info(info);
        }
        Port {
            root: fixtures(),
            registry,
        }
    }

    fn with<T>(&self, f: impl FnOnce(&Flow) -> T) -> T {
        let compiler = Compiler::new(&self.root).expect("compiler");
        let loader = DirLoader::new(&self.root);
        let flow = Flow::new(&self.registry, &loader, &compiler, Profile::Release);
        f(&flow)
    }

    /// Validates, compiles and reflection-checks every stage of `name`.
    fn compile(&self, name: &str) {
        self.with(|flow| {
            let info = flow
                .validated(name)
                .unwrap_or_else(|d| panic!("{name}: {}", render_all(&d)));
            for stage in info.stages() {
                flow.compile(&info, stage)
                    .unwrap_or_else(|d| panic!("{name} {stage}: {}", render_all(&d)));
            }
        })
    }

    /// The checked verdict of every target for one stage of `name`.
    fn verdicts(&self, name: &str, stage: Stage) -> Vec<(Target, Verdict)> {
        self.with(|flow| {
            let info = flow
                .validated(name)
                .unwrap_or_else(|d| panic!("{name}: {}", render_all(&d)));
            let opts = CrossOptions {
                targets: Target::ALL.to_vec(),
                check: true,
                ..CrossOptions::default()
            };
            translate_module(flow, &info, stage, &opts)
        })
    }

    /// Every stage of `name` translates to every target and passes each target's independent check.
    fn translates_everywhere(&self, name: &str) {
        let stages = self.with(|flow| flow.validated(name).unwrap().stages());
        for stage in stages {
            for (target, verdict) in self.verdicts(name, stage) {
                assert!(
                    matches!(verdict, Verdict::Translated(_)),
                    "{name} {stage} on {target}: {:?}",
                    verdict.lines(target)
                );
            }
        }
    }
}

fn translated(verdicts: &[(Target, Verdict)], target: Target) -> String {
    let (_, v) = verdicts.iter().find(|(t, _)| *t == target).unwrap();
    match v {
        Verdict::Translated(t) => t.text.clone(),
        other => panic!("{target}: {:?}", other.lines(target)),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// 5a. Push-constant members whose names end in a digit (the checker and diagonal-stripe shapes).

fn checker_infos() -> Vec<ShaderCreateInfo> {
    vec![
        ShaderCreateInfo::new("compat_2D_checker")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec4, "color1")
            .push_constant(Type::Vec4, "color2")
            .push_constant(Type::Int, "size")
            .vertex_source("checker_vert.glsl")
            .fragment_source("checker_frag.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("compat_2D_diag_stripes")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec4, "color1")
            .push_constant(Type::Vec4, "color2")
            .push_constant(Type::Int, "size1")
            .push_constant(Type::Int, "size2")
            .vertex_source("checker_vert.glsl")
            .fragment_source("stripes_frag.glsl")
            .do_static_compilation(true),
    ]
}

#[test]
fn push_constants_named_with_a_final_digit_keep_their_declared_names_on_opengl() {
    let port = Port::new(checker_infos());
    for name in ["compat_2D_checker", "compat_2D_diag_stripes"] {
        port.compile(name);
        port.translates_everywhere(name);
        let v = port.verdicts(name, Stage::Fragment);
        for target in [Target::Gl, Target::Gles] {
            let text = translated(&v, target);
            // The host sets `gpu_push_constants.<declared member>`: the names in the text are the declared ones.
            assert!(text.contains("gpu_push_constants.color1"), "{text}");
            assert!(!text.contains("color1_"), "{text}");
            assert!(!text.contains("size2_"), "{text}");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// 5b. A sampler used only through texelFetch / textureSize (the text shader's glyph atlas).

fn glyph_infos() -> Vec<ShaderCreateInfo> {
    vec![
        ShaderCreateInfo::new("compat_text")
            .vertex_in(0, Type::Vec4, "pos")
            .vertex_in(1, Type::Vec4, "col")
            .vertex_in(2, Type::IVec2, "glyph_size")
            .vertex_in(3, Type::Int, "offset")
            .vertex_out(
                &StageInterfaceInfo::new("compat_text_iface", "")
                    .flat(Type::Vec4, "color_flat")
                    .no_perspective(Type::Vec2, "texCoord_interp")
                    .flat(Type::Int, "glyph_offset")
                    .flat(Type::IVec2, "glyph_dim"),
            )
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .sampler(0, ImageType::Float2D, "glyph", Frequency::Pass)
            .vertex_source("glyph_vert.glsl")
            .fragment_source("glyph_frag.glsl")
            .do_static_compilation(true),
    ]
}

#[test]
fn a_sampler_used_only_through_texel_fetch_binds_as_the_map_says_on_metal() {
    let port = Port::new(glyph_infos());
    port.compile("compat_text");
    let v = port.verdicts("compat_text", Stage::Fragment);
    // naga leaves the unused sampler half out of the MSL; the host binds it anyway (the map), which Metal ignores.
    let msl = translated(&v, Target::Msl);
    assert!(msl.contains("[[texture(0)]]"), "{msl}");
    for (target, verdict) in v {
        // GLES: noperspective has no ES equivalent; everything else translates.
        if target == Target::Gles {
            continue;
        }
        assert!(
            matches!(verdict, Verdict::Translated(_)),
            "{target}: {:?}",
            verdict.lines(target)
        );
    }
    // The host-bound set of the stage holds both halves of the declared sampler.
    port.with(|flow| {
        let info = flow.validated("compat_text").unwrap();
        let plan = flow.plan(&info);
        let texture = plan
            .targets
            .bindings
            .iter()
            .find(|b| b.name == "glyph" && b.part == BindingPart::Texture)
            .unwrap();
        let bound = plan.targets.host_bound(&[(texture.set, texture.binding)]);
        assert_eq!(bound.len(), 2, "{bound:?}");
        assert!(bound.iter().any(|b| b.part == BindingPart::Sampler));
    });
}
