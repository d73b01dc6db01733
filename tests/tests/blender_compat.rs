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
        Port::at(fixtures(), infos)
    }

    /// The infos over sources under `root`.
    fn at(root: PathBuf, infos: Vec<ShaderCreateInfo>) -> Port {
        let mut registry = Registry::shared_types_from_inventory();
        for info in infos {
            registry.add_info(info);
        }
        Port { root, registry }
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

/// Whether the plan of `info` asks the device for `shaderDrawParameters` (the base instance).
fn asks_for_draw_parameters(flow: &Flow, info: &shader_info::ValidatedInfo) -> bool {
    flow.plan(info)
        .builtin_features
        .iter()
        .any(|f| f.feature == "shaderDrawParameters")
}

/// A 2D info of the prelude tinted by a `color` push constant, the checker's vertex stage and `frag`: the shape the
/// by-name and header tests vary only in their fragment source.
fn tinted_2d(name: &str, frag: &str) -> ShaderCreateInfo {
    blender_2d(name)
        .push_constant(Type::Vec4, "color")
        .vertex_source("checker_vert.glsl")
        .fragment_source(frag)
        .blender_compat()
}

/// The head every 2D info of Blender's has: `pos` in, `fragColor` out, the model-view-projection push constant.
fn blender_2d(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "fragColor")
        .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
}

// ---------------------------------------------------------------------------------------------------------------
// 5a. Push-constant members whose names end in a digit (the checker and diagonal-stripe shapes).

fn checker_infos() -> Vec<ShaderCreateInfo> {
    vec![
        blender_2d("compat_2D_checker")
            .push_constant(Type::Vec4, "color1")
            .push_constant(Type::Vec4, "color2")
            .push_constant(Type::Int, "size")
            .vertex_source("checker_vert.glsl")
            .fragment_source("checker_frag.glsl")
            .do_static_compilation(true),
        blender_2d("compat_2D_diag_stripes")
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

// ---------------------------------------------------------------------------------------------------------------
// 1. Function-like defines: an identity macro that a library file replaces (the sRGB-to-framebuffer shape).

/// The building block every sRGB-aware info pulls in: a push-constant flag and the identity macro.
fn srgb_block() -> ShaderCreateInfo {
    ShaderCreateInfo::new("compat_srgb_to_framebuffer_space")
        .push_constant(Type::Bool, "srgbTarget")
        .define("blender_srgb_to_framebuffer_space(a) a")
}

fn srgb_infos() -> Vec<ShaderCreateInfo> {
    vec![
        srgb_block(),
        blender_2d("compat_2D_uniform_color")
            .push_constant(Type::Vec4, "color")
            .vertex_source("checker_vert.glsl")
            .fragment_source("uniform_color_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .blender_compat()
            .do_static_compilation(true),
        // Relies on the identity macro alone.
        blender_2d("compat_2D_identity_color")
            .push_constant(Type::Vec4, "color")
            .vertex_source("checker_vert.glsl")
            .fragment_source("identity_only_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .do_static_compilation(true),
    ]
}

#[test]
fn a_function_like_define_is_inherited_and_a_library_may_replace_it() {
    let d = &srgb_block().defines[0].value;
    assert_eq!(d.name, "blender_srgb_to_framebuffer_space(a)");
    assert_eq!(d.value.as_deref(), Some("a"));
    let port = Port::new(srgb_infos());
    for name in ["compat_2D_uniform_color", "compat_2D_identity_color"] {
        port.compile(name);
        port.translates_everywhere(name);
    }
    // The define is written as a function-like macro, in the defines' place.
    port.with(|flow| {
        let info = flow.validated("compat_2D_identity_color").unwrap();
        let frag = flow.generate(&info, Stage::Fragment).unwrap();
        assert!(
            frag.source
                .contains("#define blender_srgb_to_framebuffer_space(a) a\n"),
            "{}",
            frag.source
        );
    });
}

#[test]
fn function_like_defines_keep_the_injection_rules() {
    let bad = [
        ShaderCreateInfo::new("compat_bad_1").define_value("f(a,)", "a"),
        ShaderCreateInfo::new("compat_bad_2").define_value("f(a, a)", "a"),
        ShaderCreateInfo::new("compat_bad_3").define_value("f(a)", "a\n#error injected"),
        ShaderCreateInfo::new("compat_bad_4").define_value("f(a)", "a /* swallow"),
        ShaderCreateInfo::new("compat_bad_5").define_value("f(gl_x)", "gl_x"),
        ShaderCreateInfo::new("compat_bad_6").define("f(a"),
    ];
    let mut reg = Registry::new();
    let names: Vec<String> = bad.iter().map(|i| i.name.clone()).collect();
    for i in bad {
        reg.add_info(i);
    }
    for name in names {
        let info = reg.resolve(&name).unwrap();
        let opts = ValidateOptions {
            registry: &reg,
            extra_type_names: &[],
            require_complete: false,
        };
        let diags = validate(&info, &opts);
        assert!(
            diags.iter().any(|d| d.is_error()
                && d.item.as_deref().is_some_and(|i| i.starts_with("define"))),
            "{name}: {}",
            render_all(&diags)
        );
    }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. The Blender prelude: `USE_GPU_SHADER_CREATE_INFO` (the colour-space library above needs it), `gl_InstanceID` in
//    a define, `gl_VertexID`, the shared dialect's types and a header in that dialect as a typedef source.

fn widget_infos() -> Vec<ShaderCreateInfo> {
    vec![
        srgb_block(),
        ShaderCreateInfo::new("compat_2D_widget_base_inst")
            .define_value("widgetID", "gl_InstanceID")
            .vertex_out(
                &StageInterfaceInfo::new("compat_widget_iface", "").flat(Type::Vec4, "finalColor"),
            )
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .uniform_buf(0, "vec4", "parameters[24]", Frequency::Pass)
            .vertex_source("widget_inst_vert.glsl")
            .fragment_source("widget_inst_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .blender_compat()
            .do_static_compilation(true),
        blender_2d("compat_2D_icon_dialect")
            .push_constant(Type::Vec4, "color")
            .typedef_source("compat_shader_shared.h")
            .vertex_source("checker_vert.glsl")
            .fragment_source("icon_frag.glsl")
            .blender_compat()
            .do_static_compilation(true),
        blender_2d("compat_2D_icon_enum_header")
            .push_constant(Type::Vec4, "color")
            .typedef_source("compat_shader_shared_enum.h")
            .vertex_source("checker_vert.glsl")
            .fragment_source("identity_only_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .blender_compat()
            .do_static_compilation(true),
    ]
}

#[test]
fn the_prelude_gives_opengl_vertex_and_instance_numbers_on_vulkan() {
    let port = Port::new(widget_infos());
    port.compile("compat_2D_widget_base_inst");
    port.with(|flow| {
        let info = flow.validated("compat_2D_widget_base_inst").unwrap();
        let vert = flow.generate(&info, Stage::Vertex).unwrap();
        assert!(vert.source.contains("#define USE_GPU_SHADER_CREATE_INFO\n"));
        assert!(
            vert.source
                .contains("#define gl_InstanceID (gl_InstanceIndex - gl_BaseInstanceARB)\n")
        );
        assert!(
            vert.source
                .contains("#extension GL_ARB_shader_draw_parameters : require\n")
        );
        // The fragment stage has no instance number.
        let frag = flow.generate(&info, Stage::Fragment).unwrap();
        assert!(!frag.source.contains("#define gl_InstanceID"));
        // The base instance is a draw parameter: the plan asks the device for it.
        assert!(info.builtins.contains(BuiltinBits::INSTANCE_ID));
        assert!(asks_for_draw_parameters(flow, &info));
    });
    // Every translation keeps OpenGL's meaning: MSL reads `[[base_instance]]`; OpenGL and ES read the base from the
    // first-instance uniform the host sets for `gl_InstanceIndex`; HLSL's SV_InstanceID already counts from 0.
    // WebGPU has no base instance: unsupported, with the reason.
    for (target, verdict) in port.verdicts("compat_2D_widget_base_inst", Stage::Vertex) {
        match target {
            Target::Wgsl => {
                let lines = verdict.lines(target);
                assert!(matches!(verdict, Verdict::Unsupported(_)), "{lines:?}");
                assert!(lines[0].contains("base instance"), "{lines:?}");
            }
            Target::Gl | Target::Gles => {
                let Verdict::Translated(t) = &verdict else {
                    panic!("{target}: {:?}", verdict.lines(target));
                };
                assert!(!t.text.contains("uint(gl_BaseInstance)"), "{}", t.text);
                assert!(
                    t.text.contains("= uint(naga_vs_first_instance);"),
                    "{}",
                    t.text
                );
                assert_eq!(t.host_uniforms, ["naga_vs_first_instance"]);
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
fn a_shared_header_in_blenders_dialect_is_a_typedef_source_and_its_c_enums_read_as_blender_reads_them()
 {
    let port = Port::new(widget_infos());
    port.compile("compat_2D_icon_dialect");
    port.with(|flow| {
        // No gl_InstanceID in its code: no draw parameters asked for.
        let info = flow.validated("compat_2D_icon_dialect").unwrap();
        assert!(flow.plan(&info).builtin_features.is_empty());
    });
    port.translates_everywhere("compat_2D_icon_dialect");
    // Under the prelude, a C enum is a macro of its type and a constant per value, as Blender's preprocessor
    // makes it.
    port.compile("compat_2D_icon_enum_header");
    port.with(|flow| {
        let info = flow.validated("compat_2D_icon_enum_header").unwrap();
        let frag = flow.generate(&info, Stage::Fragment).unwrap();
        assert!(
            frag.source.contains("#define eCompatIconShape uint\n"),
            "{}",
            frag.source
        );
        assert!(
            frag.source.contains("const uint COMPAT_ICON_ROUND = 1u;"),
            "{}",
            frag.source
        );
    });
    // Without it, the header is C the GLSL compiler cannot read: refused at the enum's line.
    let mut plain = widget_infos();
    for info in &mut plain {
        info.blender_prelude = false;
    }
    let diags = Port::new(plain).with(|flow| {
        let info = flow.validated("compat_2D_icon_enum_header").unwrap();
        flow.generate(&info, Stage::Fragment).unwrap_err()
    });
    let d = &diags[0];
    assert_eq!(d.code, Code::Unsupported, "{d}");
    assert!(d.message.contains("declares a C enum"), "{d}");
    assert_eq!(d.line, Some(6), "{d}");
    assert!(d.hint.as_deref().unwrap().contains("ShaderEnum"), "{d}");
}

#[test]
fn the_prelude_is_one_call_for_a_whole_registry() {
    let mut infos = widget_infos();
    let plain = blender_2d("compat_registry_wide")
        .push_constant(Type::Vec4, "color")
        .typedef_source("compat_shader_shared.h")
        .vertex_source("checker_vert.glsl")
        .fragment_source("icon_frag.glsl");
    infos.push(plain);
    let mut port = Port::new(infos);
    port.registry.blender_compat();
    port.compile("compat_registry_wide");
}

/// A define that repeats one of the prelude's own macros (as a port that carried Blender's `#define float2 vec2`
/// along does) is the same macro again, which GLSL allows: validation lets it through only because it compiles.
#[test]
fn a_define_repeating_a_prelude_macro_compiles() {
    let info = || {
        blender_2d("compat_prelude_again")
            .push_constant(Type::Vec4, "color1")
            .push_constant(Type::Vec4, "color2")
            .push_constant(Type::Int, "size")
            .define_value("float2", "vec2")
            .define("BLI_STATIC_ASSERT(cond,  msg)")
            .vertex_source("checker_vert.glsl")
            .fragment_source("checker_frag.glsl")
            .blender_compat()
    };
    // Another definition of a prelude name is refused at the define.
    let port = Port::new(vec![info().define_value("BLI_STATIC_ASSERT_SIZE", "1")]);
    let refused = port.with(|flow| flow.validated("compat_prelude_again").unwrap_err());
    assert_eq!(refused.len(), 1, "{}", render_all(&refused));
    assert!(
        refused[0]
            .message
            .contains("define `BLI_STATIC_ASSERT_SIZE`")
    );
    let port = Port::new(vec![info()]);
    port.compile("compat_prelude_again");
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Builtins found in the code: a clip-plane building block that declares no builtin, whose library writes
//    gl_ClipDistance[0..5] (the 3D uniform colour "clipped" shape).

/// The clip planes' block, named as the ported GLSL reads it.
#[allow(non_snake_case)]
#[derive(Clone, Copy, Debug, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
pub struct CompatClipPlanes {
    pub ClipModelMatrix: glam::Mat4,
    pub world: [glam::Vec4; 6],
}

fn clip_infos() -> Vec<ShaderCreateInfo> {
    vec![
        srgb_block(),
        ShaderCreateInfo::new("compat_clip_planes")
            .uniform_buf(1, "CompatClipPlanes", "clipPlanes", Frequency::Pass)
            .define("USE_WORLD_CLIP_PLANES"),
        ShaderCreateInfo::new("compat_3D_uniform_color")
            .vertex_in(0, Type::Vec3, "pos")
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec4, "color")
            .vertex_source("pos3d_vert.glsl")
            .fragment_source("uniform_color_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .blender_compat(),
        ShaderCreateInfo::new("compat_3D_uniform_color_clipped")
            .additional_info("compat_3D_uniform_color")
            .additional_info("compat_clip_planes")
            .do_static_compilation(true),
    ]
}

#[test]
fn a_builtin_written_by_a_library_is_found_and_planned_and_strict_mode_refuses_it() {
    let port = Port::new(clip_infos());
    port.compile("compat_3D_uniform_color_clipped");
    port.translates_everywhere("compat_3D_uniform_color_clipped");
    port.compile("compat_3D_uniform_color");
    port.with(|flow| {
        // Without the planes' define the library's writes are switched off: nothing is found.
        let unclipped = flow.validated("compat_3D_uniform_color").unwrap();
        assert!(!unclipped.builtins.contains(BuiltinBits::CLIP_DISTANCES));
        let info = flow.validated("compat_3D_uniform_color_clipped").unwrap();
        assert!(info.builtins.contains(BuiltinBits::CLIP_DISTANCES));
        let plan = flow.plan(&info);
        assert!(
            plan.builtin_features
                .iter()
                .any(|f| f.feature == "shaderClipDistance")
        );
    });
    // A team that wants every builtin declared keeps today's error.
    let compiler = Compiler::new(&port.root).unwrap();
    let loader = DirLoader::new(&port.root);
    let strict = Flow::new(&port.registry, &loader, &compiler, Profile::Release).strict_builtins();
    let info = strict.validated("compat_3D_uniform_color_clipped").unwrap();
    let d = strict.compile(&info, Stage::Vertex).unwrap_err();
    assert!(
        d[0].message.contains("gl_ClipDistance") && d[0].message.contains("does not declare"),
        "{}",
        d[0]
    );
    assert_eq!(
        d[0].file.as_deref(),
        Some("world_clip_lib.glsl"),
        "{}",
        d[0]
    );
}

// ---------------------------------------------------------------------------------------------------------------
// 4. A geometry stage that passes an interface through (the polyline shape): `interp_in[i]` in, `interp_out` out.

fn polyline_infos() -> Vec<ShaderCreateInfo> {
    let iface = StageInterfaceInfo::new("compat_polyline_iface", "interp")
        .smooth(Type::Vec4, "final_color")
        .smooth(Type::Float, "clip");
    let edge = StageInterfaceInfo::new("compat_polyline_edge_iface", "")
        .no_perspective(Type::Float, "smoothline");
    vec![
        ShaderCreateInfo::new("compat_3D_polyline_uniform_color")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_out(&iface)
            .geometry_layout(PrimitiveIn::Lines, PrimitiveOut::TriangleStrip, 4)
            .geometry_out(&iface)
            .geometry_out(&edge)
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec2, "viewportSize")
            .push_constant(Type::Float, "lineWidth")
            .push_constant(Type::Vec4, "color")
            .vertex_source("polyline_vert.glsl")
            .geometry_source("polyline_geom.glsl")
            .fragment_source("polyline_frag.glsl")
            .blender_compat()
            .twin("compat_3D_polyline_uniform_color_no_geom")
            .do_static_compilation(true),
        // The twin: the same lines expanded in the vertex stage from a storage buffer.
        // (Its edge is interpolated smoothly: OpenGL ES has no noperspective.)
        ShaderCreateInfo::new("compat_3D_polyline_uniform_color_no_geom")
            .storage_buf(0, Qualifier::Read, "float", "pos[]", Frequency::Geometry)
            .vertex_out(&iface)
            .vertex_out(
                &StageInterfaceInfo::new("compat_polyline_edge_smooth_iface", "")
                    .smooth(Type::Float, "smoothline"),
            )
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec2, "viewportSize")
            .push_constant(Type::Float, "lineWidth")
            .push_constant(Type::Vec4, "color")
            .vertex_source("polyline_no_geom_vert.glsl")
            .fragment_source("polyline_frag.glsl")
            .blender_compat()
            .do_static_compilation(true),
    ]
}

#[test]
fn a_geometry_stage_reads_instance_in_and_writes_instance_out() {
    let port = Port::new(polyline_infos());
    port.compile("compat_3D_polyline_uniform_color");
    port.with(|flow| {
        let info = flow.validated("compat_3D_polyline_uniform_color").unwrap();
        let geom = flow.generate(&info, Stage::Geometry).unwrap();
        assert!(geom.source.contains("} interp_in[];"), "{}", geom.source);
        assert!(
            geom.source.contains("#define interp_out interp\n"),
            "{}",
            geom.source
        );
    });
}

// ---------------------------------------------------------------------------------------------------------------
// 7. Per-target twins: the polyline names a twin without a geometry stage, which serves it on every translation
//    target (none has a geometry stage), in every stage of the info.

#[test]
fn an_info_with_a_geometry_stage_is_served_by_its_twin_on_every_translation_target() {
    let port = Port::new(polyline_infos());
    port.compile("compat_3D_polyline_uniform_color_no_geom");
    port.translates_everywhere("compat_3D_polyline_uniform_color_no_geom");
    for stage in [Stage::Vertex, Stage::Geometry, Stage::Fragment] {
        for (target, verdict) in port.verdicts("compat_3D_polyline_uniform_color", stage) {
            let Verdict::Twin { twin, reasons } = &verdict else {
                panic!("{stage} on {target}: {:?}", verdict.lines(target));
            };
            assert_eq!(twin, "compat_3D_polyline_uniform_color_no_geom");
            assert!(reasons.iter().any(|r| r.contains("geom")), "{reasons:?}");
            assert!(
                verdict.lines(target)[0].starts_with(&format!(
                    "served on {target} by its twin `compat_3D_polyline_uniform_color_no_geom`"
                )),
                "{:?}",
                verdict.lines(target)
            );
        }
    }
    // Without a twin the geometry stage is unsupported everywhere, with the reason.
    let mut infos = polyline_infos();
    infos[0].twin = None;
    let port = Port::new(infos);
    for (target, verdict) in port.verdicts("compat_3D_polyline_uniform_color", Stage::Geometry) {
        assert!(
            matches!(verdict, Verdict::Unsupported(_)),
            "{target}: {:?}",
            verdict.lines(target)
        );
    }
}

#[test]
fn a_twin_must_be_registered() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("compat_lonely").twin("compat_missing_twin"));
    let d = reg.resolve("compat_lonely").unwrap_err();
    assert_eq!(d[0].code, Code::UnknownInfo, "{}", d[0]);
    assert!(d[0].message.contains("compat_missing_twin"), "{}", d[0]);
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Friction: specialization-constant defaults converted to the declared type, push-constant arrays written in the
//    member name.

#[test]
fn spec_constant_defaults_convert_and_push_constant_arrays_take_a_sized_name() {
    let info = ShaderCreateInfo::new("compat_compute_specialization_constants")
        .local_group_size(1)
        .storage_buf(0, Qualifier::Write, "int", "data_out[]", Frequency::Pass)
        .push_constant(Type::Vec4, "parameters[2]")
        .specialization_constant(Type::Float, "float_in", 2)
        .specialization_constant(Type::Uint, "uint_in", 3)
        .specialization_constant(Type::Int, "int_in", 4)
        .specialization_constant(Type::Bool, "bool_in", true)
        .compute_source("specialization_comp.glsl")
        .blender_compat()
        .do_static_compilation(true);
    assert_eq!(info.push_constants[0].value.name, "parameters");
    assert_eq!(info.push_constants[0].value.array_size, Some(2));
    assert_eq!(
        info.specialization_constants[0].value.default,
        ConstValue::Float(2.0)
    );
    let port = Port::new(vec![info]);
    port.compile("compat_compute_specialization_constants");
    port.translates_everywhere("compat_compute_specialization_constants");
}

// ---------------------------------------------------------------------------------------------------------------
// More shapes of the listed infos: round points, an image desaturated, compute writing an image, an index buffer
// and a push-constant block of 256 bytes.

fn more_infos() -> Vec<ShaderCreateInfo> {
    vec![
        srgb_block(),
        ShaderCreateInfo::new("compat_3D_point_uniform_color")
            .vertex_in(0, Type::Vec3, "pos")
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec4, "color")
            .push_constant(Type::Float, "size")
            .vertex_source("point_vert.glsl")
            .fragment_source("point_frag.glsl")
            .additional_info("compat_srgb_to_framebuffer_space")
            .blender_compat()
            .do_static_compilation(true),
        ShaderCreateInfo::new("compat_2D_image_desaturate_color")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_in(1, Type::Vec2, "texCoord")
            .vertex_out(
                &StageInterfaceInfo::new("compat_smooth_tex_coord_interp_iface", "")
                    .smooth(Type::Vec2, "texCoord_interp"),
            )
            .fragment_out(0, Type::Vec4, "fragColor")
            .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
            .push_constant(Type::Vec4, "color")
            .push_constant(Type::Float, "factor")
            .sampler(0, ImageType::Float2D, "image", Frequency::Pass)
            .vertex_source("image_vert.glsl")
            .fragment_source("image_desaturate_frag.glsl")
            .blender_compat()
            .do_static_compilation(true),
        ShaderCreateInfo::new("compat_compute_2d")
            .local_group_size_2d(1, 1)
            .image(
                0,
                TextureFormat::Rgba32f,
                Qualifier::Write,
                ImageType::Float2D,
                "img_output",
                Frequency::Pass,
            )
            .compute_source("compute_image_comp.glsl")
            .blender_compat()
            .do_static_compilation(true),
        ShaderCreateInfo::new("compat_compute_push_constants_256bytes")
            .local_group_size(64)
            .storage_buf(1, Qualifier::Write, "float", "data_out[]", Frequency::Pass)
            .push_constant(Type::Float, "float_in[64]")
            .compute_source("compute_push_256_comp.glsl")
            .blender_compat()
            .do_static_compilation(true),
        ShaderCreateInfo::new("compat_compute_index_buffer")
            .local_group_size(16)
            .storage_buf(
                0,
                Qualifier::Write,
                "uint",
                "out_indices[]",
                Frequency::Pass,
            )
            .push_constant(Type::Int, "quad_count")
            .compute_source("compute_index_comp.glsl")
            .blender_compat()
            .do_static_compilation(true),
    ]
}

#[test]
fn points_images_and_compute_shapes_compile_and_translate_where_their_targets_can() {
    let port = Port::new(more_infos());
    for name in [
        "compat_2D_image_desaturate_color",
        "compat_compute_2d",
        "compat_compute_push_constants_256bytes",
        "compat_compute_index_buffer",
    ] {
        port.compile(name);
        port.translates_everywhere(name);
    }
    port.compile("compat_3D_point_uniform_color");
    // Points: WebGPU and Direct3D have no point size or point sprites; the rest translate.
    for stage in [Stage::Vertex, Stage::Fragment] {
        for (target, verdict) in port.verdicts("compat_3D_point_uniform_color", stage) {
            match target {
                Target::Wgsl | Target::Hlsl => {
                    let lines = verdict.lines(target);
                    assert!(matches!(verdict, Verdict::Unsupported(_)), "{lines:?}");
                    assert!(lines[0].contains("gl_Point"), "{lines:?}");
                }
                _ => assert!(
                    matches!(verdict, Verdict::Translated(_)),
                    "{stage} on {target}: {:?}",
                    verdict.lines(target)
                ),
            }
        }
    }
}

#[test]
fn newer_sources_with_self_includes_and_lint_stubs_compile_under_the_prelude() {
    let mut text = glyph_infos().remove(0);
    text.name = "compat_text_new_style".into();
    text.sources.retain(|s| s.value.0 != Stage::Fragment);
    let info = text
        .fragment_source("glyph_new_style_frag.glsl")
        .blender_compat();
    let port = Port::new(vec![info]);
    port.compile("compat_text_new_style");
    // The error of a later line still names its own line: the include became an empty line.
    port.with(|flow| {
        let info = flow.validated("compat_text_new_style").unwrap();
        let frag = flow.generate(&info, Stage::Fragment).unwrap();
        assert!(!frag.source.contains("compat_text_infos.hh"));
    });
}

#[test]
fn a_buffer_of_a_struct_its_shared_header_defines_compiles() {
    // `typedef_source` and a buffer typed by a struct of that header, as Blender's draw and EEVEE infos write
    // them: the struct has no Rust twin, so its layout is the compiler's (and reflection's) to check.
    let info = ShaderCreateInfo::new("compat_icon_styles_buffer")
        .local_group_size(64)
        .typedef_source("compat_shader_shared.h")
        .storage_buf(
            0,
            Qualifier::Read,
            "CompatIconStyle",
            "styles[]",
            Frequency::Pass,
        )
        .storage_buf(1, Qualifier::Write, "vec4", "tints[]", Frequency::Pass)
        .compute_source("icon_styles_comp.glsl")
        .blender_compat()
        .do_static_compilation(true);
    let port = Port::new(vec![info]);
    port.compile("compat_icon_styles_buffer");
    // A struct the header does not define is still refused, naming the type.
    let typo = ShaderCreateInfo::new("compat_icon_styles_typo")
        .local_group_size(64)
        .typedef_source("compat_shader_shared.h")
        .storage_buf(
            0,
            Qualifier::Read,
            "CompatIconStyles",
            "styles[]",
            Frequency::Pass,
        )
        .compute_source("icon_styles_comp.glsl")
        .blender_compat();
    let port = Port::new(vec![typo]);
    port.with(|flow| {
        let e = flow.validated("compat_icon_styles_typo").unwrap_err();
        assert!(
            e.iter().any(|d| d.message.contains("CompatIconStyles")),
            "{e:?}"
        );
    });
}

#[test]
fn a_vertex_input_and_a_fragment_output_may_share_a_name() {
    // They live in different stages: `in vec4 color` in the vertex stage, `out vec4 color` in the fragment one.
    let iface = StageInterfaceInfo::new("compat_same_name_iface", "").smooth(Type::Vec4, "v_color");
    let info = ShaderCreateInfo::new("compat_same_name")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec4, "color")
        .vertex_out(&iface)
        .fragment_out(0, Type::Vec4, "color")
        .vertex_source("same_name_vert.glsl")
        .fragment_source("same_name_frag.glsl")
        .do_static_compilation(true);
    let port = Port::new(vec![info.clone()]);
    port.compile("compat_same_name");
    port.translates_everywhere("compat_same_name");
    // In one stage it is still a collision: a push constant of that name is refused.
    let mut clash = info.push_constant(Type::Vec4, "color");
    clash.name = "compat_same_name_pc".into();
    let port = Port::new(vec![clash]);
    port.with(|flow| {
        let e = flow.validated("compat_same_name_pc").unwrap_err();
        assert!(e.iter().any(|d| d.message.contains("`color`")), "{e:?}");
    });
}

#[test]
fn every_image_format_of_vulkan_glsl_compiles_as_a_storage_image() {
    // Blender's infos use 16- and 8-bit integer and normalized formats (`r16ui`, `rg16`, `r8i`, …) besides the
    // common ones: each is a declarable format whose image compiles and reflects as declared.
    let dir = tempfile::tempdir().unwrap();
    let infos: Vec<ShaderCreateInfo> = TextureFormat::ALL
        .iter()
        .map(|f| {
            let (image_type, value) = match f.component_kind() {
                'u' => (ImageType::Uint2D, "uvec4(1u)"),
                'i' => (ImageType::Int2D, "ivec4(1)"),
                _ => (ImageType::Float2D, "vec4(0.5)"),
            };
            let source = format!("compat_format_{}.comp.glsl", f.glsl_name());
            std::fs::write(
                dir.path().join(&source),
                format!(
                    "void main() {{ imageStore(img, ivec2(gl_GlobalInvocationID.xy), {value}); }}\n"
                ),
            )
            .unwrap();
            ShaderCreateInfo::new(format!("compat_format_{}", f.glsl_name()))
                .local_group_size(1)
                .image(0, *f, Qualifier::Write, image_type, "img", Frequency::Pass)
                .compute_source(source)
        })
        .collect();
    let names: Vec<String> = infos.iter().map(|i| i.name.clone()).collect();
    let port = Port::at(dir.path().to_path_buf(), infos);
    for name in names {
        port.compile(&name);
    }
}

/// A shared enum as a buffer's element type: `#define CompatLightKind uint` in the text.
#[derive(Clone, Copy, Debug, PartialEq, ShaderEnum)]
#[repr(u32)]
enum CompatLightKind {
    Point = 0,
    Sun = 1,
}

#[test]
fn a_buffer_of_a_shared_enum_compiles_and_is_laid_out_as_uint() {
    let _ = (CompatLightKind::Point, CompatLightKind::Sun);
    let info = ShaderCreateInfo::new("compat_light_kinds")
        .local_group_size(64)
        .storage_buf(
            0,
            Qualifier::Read,
            "CompatLightKind",
            "kinds[]",
            Frequency::Pass,
        )
        .storage_buf(1, Qualifier::Write, "uint", "suns[]", Frequency::Pass)
        .compute_source("light_kinds_comp.glsl")
        .do_static_compilation(true);
    let port = Port::new(vec![info]);
    port.compile("compat_light_kinds");
    port.translates_everywhere("compat_light_kinds");
    port.with(|flow| {
        let plan = flow.plan(&flow.validated("compat_light_kinds").unwrap());
        let kinds = plan.bindings().find(|(_, b)| b.name == "kinds").unwrap().1;
        // One element of the runtime array: a uint.
        assert_eq!(kinds.min_size, Some(4));
    });
}

#[test]
fn array_sizes_may_name_a_define_the_work_group_or_a_constant_and_tiles_have_two_dimensions() {
    let info = ShaderCreateInfo::new("compat_sized_by_names")
        .local_group_size_2d(16, 16)
        .define_value("TILE", "16")
        .define_value("VIEW_LEN", "2")
        .constant(SharedConstant::new("PARAM_COUNT", 3u32))
        .shared_variable(Type::Float, "tile[TILE][TILE]")
        .shared_variable(Type::Vec4, "row[gl_WorkGroupSize.x]")
        .push_constant(Type::Vec4, "params[PARAM_COUNT]")
        .uniform_buf(0, "vec4", "views[VIEW_LEN]", Frequency::Pass)
        .storage_buf(
            1,
            Qualifier::Write,
            "float",
            "out_values[]",
            Frequency::Pass,
        )
        .compute_source("sized_by_names_comp.glsl")
        .do_static_compilation(true);
    let port = Port::new(vec![info]);
    port.compile("compat_sized_by_names");
    port.with(|flow| {
        let plan = flow.plan(&flow.validated("compat_sized_by_names").unwrap());
        assert_eq!(plan.shared_memory, 16 * 16 * 4 + 16 * 16);
        assert_eq!(plan.push_constants.as_ref().unwrap().size, 48);
        let views = plan.bindings().find(|(_, b)| b.name == "views").unwrap().1;
        assert_eq!(views.min_size, Some(32));
    });
}

#[test]
fn a_source_that_declares_its_own_output_again_is_told_which_item_declares_it() {
    // A port that kept its `layout(location = 0) out vec4 frag_color;`: the compiler's "redefinition" comes with
    // the item of the info that declares the name, and the file's own line.
    let info = ShaderCreateInfo::new("compat_redeclared")
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "frag_color")
        .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
        .vertex_source("checker_vert.glsl")
        .fragment_source("redeclared_frag.glsl")
        .blender_compat();
    let port = Port::new(vec![info]);
    port.with(|flow| {
        let info = flow.validated("compat_redeclared").unwrap();
        let e = flow.compile(&info, Stage::Fragment).unwrap_err();
        let d = e
            .iter()
            .find(|d| d.message.contains("redefinition"))
            .expect("a redefinition");
        assert_eq!(
            d.source_line.as_deref(),
            Some("layout(location = 0) out vec4 frag_color;")
        );
        let hint = d.hint.as_deref().unwrap_or_default();
        assert!(
            hint.contains("fragment_out `frag_color` (location 0)"),
            "{hint}"
        );
    });
}

// ---------------------------------------------------------------------------------------------------------------
// 9. The rest of what Blender's backends give its sources: the names of Blender's Vulkan backend in each stage,
//    its GLSL type names (buffers of `float4`), slots numbered per kind, shared headers with C enums that define
//    the prelude's names again, and `define("NAME (value)")`.

fn lights_info() -> ShaderCreateInfo {
    ShaderCreateInfo::new("compat_lights")
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "fragColor")
        .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
        .typedef_source("compat_shared_kinds.hh")
        // Slot 0 of three kinds, as Blender numbers them.
        .storage_buf(
            0,
            Qualifier::Read,
            "CompatLight",
            "lights[]",
            Frequency::Pass,
        )
        .uniform_buf(0, "float4", "clip_planes[2]", Frequency::Pass)
        .sampler(0, ImageType::Float2D, "atlas", Frequency::Pass)
        .define("atlas_scale (1.0 / 255.0)")
        .vertex_source("lights_vert.glsl")
        .fragment_source("lights_frag.glsl")
        .blender_compat()
        .do_static_compilation(true)
}

#[test]
fn a_port_with_blenders_backend_names_slots_per_kind_and_enum_headers_compiles() {
    let port = Port::new(vec![lights_info()]);
    port.compile("compat_lights");
    port.with(|flow| {
        let info = flow.validated("compat_lights").unwrap();
        // Uniform buffers first, then storage buffers, then samplers, each kind after the one before.
        let binding = |name: &str| {
            info.resources
                .iter()
                .find(|r| r.value.name.starts_with(name))
                .map(|r| r.value.binding)
        };
        assert_eq!(
            (binding("clip_planes"), binding("lights"), binding("atlas")),
            (Some(0), Some(1), Some(2))
        );
        // `float4` is `vec4` from resolution on: layouts and reflection read one name.
        let clip = info.resources.iter().find(|r| r.value.name.starts_with("clip_planes")).unwrap();
        assert!(
            matches!(&clip.value.kind, ResourceKind::UniformBuffer { type_name } if type_name == "vec4"),
            "{:?}",
            clip.value.kind
        );
        // The define with a space before its parenthesis is object-like.
        let define = info.defines.iter().find(|d| d.value.macro_name() == "atlas_scale").unwrap();
        assert_eq!(define.value.value.as_deref(), Some("(1.0 / 255.0)"));
        // `gpu_BaseInstance` reads the base instance, a draw parameter the device must enable.
        assert!(info.builtins.contains(BuiltinBits::INSTANCE_ID));
        assert!(asks_for_draw_parameters(flow, &info));
    });
    // A slot numbering the info declares wins over Blender's.
    let per_set = Port::new(vec![lights_info().slots_per_set()]);
    per_set.with(|flow| {
        let e = flow.validated("compat_lights").unwrap_err();
        assert!(
            e.iter().any(|d| d.code == Code::BindingCollision),
            "{}",
            render_all(&e)
        );
    });
}

#[test]
fn a_geometry_stage_emits_through_blenders_name() {
    let info = ShaderCreateInfo::new("compat_emit")
        .vertex_in(0, Type::Vec3, "pos")
        .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
        .fragment_out(0, Type::Vec4, "fragColor")
        .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
        .push_constant(Type::Vec4, "color")
        .vertex_source("pos3d_vert.glsl")
        .geometry_source("emit_geom.glsl")
        .fragment_source("uniform_color_frag.glsl")
        .additional_info("compat_srgb_to_framebuffer_space")
        .blender_compat()
        .do_static_compilation(true);
    let port = Port::new(vec![srgb_block(), info]);
    port.compile("compat_emit");
    // The prelude's own `gpu_Layer` and `gpu_ViewportIndex` macros are no use of the builtins: the plan asks the
    // device for nothing (they once made it ask for multiViewport).
    port.with(|flow| {
        let info = flow.validated("compat_emit").unwrap();
        assert_eq!(info.builtins, BuiltinBits::NONE, "{:?}", info.builtins);
        assert!(flow.plan(&info).builtin_features.is_empty());
    });
}

#[test]
fn a_scoped_enum_in_a_shared_header_is_refused_at_its_line() {
    let info = blender_2d("compat_scoped")
        .push_constant(Type::Vec4, "color")
        .typedef_source("compat_shared_scoped.hh")
        .vertex_source("checker_vert.glsl")
        .fragment_source("uniform_color_frag.glsl")
        .additional_info("compat_srgb_to_framebuffer_space")
        .blender_compat();
    let diags = Port::new(vec![srgb_block(), info]).with(|flow| {
        let info = flow.validated("compat_scoped").unwrap();
        flow.generate(&info, Stage::Fragment).unwrap_err()
    });
    assert_eq!(diags.len(), 1, "{}", render_all(&diags));
    let d = &diags[0];
    assert_eq!(d.code, Code::Unsupported, "{d}");
    assert!(d.message.contains("scoped enum"), "{d}");
    assert_eq!(d.file.as_deref(), Some("compat_shared_scoped.hh"), "{d}");
    assert_eq!(d.line, Some(6), "{d}");
}

/// Array sizes named by a shared header's macros (Blender's `drw_view_buf[DRW_VIEW_LEN]`, the header's
/// `#if !defined(DRW_VIEW_LEN)` default), from the typedef source and a header it includes; a define of the info
/// comes first, as it does in the generated text.
/// A compute info over the views header: its views sized by the header's macro, its results in `float4`s.
fn views_info(name: &str, source: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .local_group_size(16)
        .typedef_source("compat_view_shared.hh")
        .uniform_buf(0, "CompatView", "views[COMPAT_VIEW_LEN]", Frequency::Pass)
        .storage_buf(0, Qualifier::Write, "float4", "result[]", Frequency::Pass)
        .compute_source(source)
        .blender_compat()
        .do_static_compilation(true)
}

#[test]
fn array_sizes_may_name_a_macro_of_a_shared_header() {
    let views = |name: &str| {
        views_info(name, "views_comp.glsl").shared_variable(Type::Uint, "bins[COMPAT_BIN_COUNT]")
    };
    let port = Port::new(vec![
        views("compat_views"),
        views("compat_views_4").define_value("COMPAT_VIEW_LEN", "4"),
        // The info's define comes first whatever its spelling: the header's default is then switched off.
        views("compat_views_4u").define("COMPAT_VIEW_LEN 4u"),
    ]);
    for (name, len) in [
        ("compat_views", 2),
        ("compat_views_4", 4),
        ("compat_views_4u", 4),
    ] {
        port.compile(name);
        port.with(|flow| {
            let info = flow.validated(name).unwrap();
            let names: Vec<&str> = info
                .resources
                .iter()
                .map(|r| r.value.name.as_str())
                .collect();
            assert!(
                names.contains(&format!("views[{len}]").as_str()),
                "{names:?}"
            );
            assert_eq!(info.shared_variables[0].value.name, "bins[16]");
        });
    }
    // A name no header defines is still refused, naming it.
    let typo = ShaderCreateInfo::new("compat_views_typo")
        .local_group_size(16)
        .typedef_source("compat_view_shared.hh")
        .uniform_buf(
            0,
            "CompatView",
            "views[COMPAT_VIEW_LENGTH]",
            Frequency::Pass,
        )
        .compute_source("views_comp.glsl")
        .blender_compat();
    Port::new(vec![typo]).with(|flow| {
        let e = flow.validated("compat_views_typo").unwrap_err();
        assert!(
            e.iter().any(|d| d.message.contains("COMPAT_VIEW_LENGTH")),
            "{}",
            render_all(&e)
        );
    });
}

/// Newer Blender sources `#include` their libraries, and the libraries include their create-info header and the
/// shared header the info already inserts: under the prelude the first is empty and the second is not read twice
/// (glslang has no `#pragma once`; a second copy redefined the header's structs).
#[test]
fn included_libraries_may_include_their_info_header_and_the_typedef_source_again() {
    let port = Port::new(vec![views_info(
        "compat_views_include",
        "views_include_comp.glsl",
    )]);
    port.compile("compat_views_include");
    port.with(|flow| {
        let v = flow.validated("compat_views_include").unwrap();
        let module = flow.compile(&v, Stage::Compute).unwrap();
        // The library was read; the create-info header was not (no such file exists).
        let files: Vec<&str> = module
            .module
            .files
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert!(files.contains(&"views_lib.glsl"), "{files:?}");
        assert!(!files.iter().any(|f| f.ends_with("_infos.hh")), "{files:?}");
    });
}

/// Blender names the files a source requires or includes by name alone, wherever they live: under the prelude a
/// file not found by its path is the one file of its name under the root; two of one name are refused, naming both.
#[test]
fn required_and_included_files_are_found_by_name_as_blender_finds_them() {
    let port = Port::new(vec![
        tinted_2d("compat_named", "named_frag.glsl"),
        tinted_2d("compat_twice", "twice_frag.glsl"),
        tinted_2d("compat_twice_include", "twice_include_frag.glsl"),
        tinted_2d("compat_deep_include", "deep_include_frag.glsl"),
    ]);
    port.compile("compat_named");
    // Two files of one name, and an include that names one by its folder (`./named/…`, found under `deep/`).
    port.compile("compat_deep_include");
    port.with(|flow| {
        let v = flow.validated("compat_twice").unwrap();
        let e = flow.generate(&v, Stage::Fragment).unwrap_err();
        let text = render_all(&e);
        assert!(text.contains("several files have its name"), "{text}");
        assert!(
            text.contains("named/compat_twice.glsl") && text.contains("other/compat_twice.glsl"),
            "{text}"
        );
        // An `#include` of the same name: the same refusal, not "cannot find".
        let v = flow.validated("compat_twice_include").unwrap();
        let text = render_all(&flow.compile(&v, Stage::Fragment).unwrap_err());
        assert!(text.contains("several files have its name"), "{text}");
        assert!(
            text.contains("named/compat_twice.glsl") && text.contains("other/compat_twice.glsl"),
            "{text}"
        );
    });
}

/// A typedef header that includes another the info names after it: the include is read where it is (the later
/// header is not in the text yet), and the header's guard leaves out the generator's copy.
#[test]
fn a_typedef_header_may_include_one_the_info_inserts_after_it() {
    let info = ShaderCreateInfo::new("compat_order")
        .local_group_size(4)
        .typedef_source("compat_order_a.hh")
        .typedef_source("compat_order_b.hh")
        .storage_buf(0, Qualifier::Write, "float4", "result[]", Frequency::Pass)
        .compute_source("order_comp.glsl")
        .blender_compat();
    Port::new(vec![info]).compile("compat_order");
}

/// Sources in the style of Blender 4.5 and later (`constexpr`, `packed_float2`, `textureGather0`, `constant`,
/// `imageFence`) compile under the prelude, as Blender's newer GLSL compatibility header makes them.
#[test]
fn sources_in_blender_newer_style_compile() {
    let info = ShaderCreateInfo::new("compat_modern_style")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec2, "texCoord")
        .vertex_out(
            &StageInterfaceInfo::new("compat_modern_style_iface", "")
                .smooth(Type::Vec2, "texCoord_interp"),
        )
        .fragment_out(0, Type::Vec4, "fragColor")
        .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
        .push_constant(Type::Vec4, "color")
        .sampler(0, ImageType::Float2D, "image", Frequency::Pass)
        .vertex_source("image_vert.glsl")
        .fragment_source("modern_style_frag.glsl")
        .blender_compat();
    Port::new(vec![info]).compile("compat_modern_style");
}

/// A source that includes a file the generator already put in its text (a required library, a typedef source), as
/// Blender's sources may since their `#pragma once` makes the include empty: under the prelude the include is an
/// empty line; read again, the unguarded files would define their function and struct twice.
#[test]
fn an_include_of_a_file_already_in_the_text_is_empty_as_blender_pragma_once_makes_it() {
    let info = tinted_2d("compat_once", "once_frag.glsl").typedef_source("compat_once_shared.hh");
    let port = Port::new(vec![info]);
    port.compile("compat_once");
    port.with(|flow| {
        let v = flow.validated("compat_once").unwrap();
        let text = flow.generate(&v, Stage::Fragment).unwrap().source;
        assert_eq!(text.matches("float compat_once()").count(), 1, "{text}");
        assert!(
            !text.contains("#include \"compat_once_lib.glsl\""),
            "{text}"
        );
    });
}

/// A shared header with C enums reached from a source (`#include`, `#pragma BLENDER_REQUIRE`) rather than named by
/// the info is read as Blender reads it: its enums rewritten, a value over two lines included.
#[test]
fn enums_of_a_header_a_source_includes_or_requires_are_rewritten() {
    let port = Port::new(vec![
        tinted_2d("compat_enum_include", "enum_include_frag.glsl"),
        tinted_2d("compat_enum_require", "enum_require_frag.glsl"),
    ]);
    port.compile("compat_enum_include");
    port.compile("compat_enum_require");
}

/// An include is empty only when the file it reads is one the generator already inserted: a header of the same name
/// beside the including source is another file, and is read.
#[test]
fn an_include_of_another_file_of_an_inserted_name_is_read() {
    let info = tinted_2d("compat_same_name_include", "sub/same_include_frag.glsl")
        .typedef_source("named/compat_same.hh");
    Port::new(vec![info]).compile("compat_same_name_include");
}
