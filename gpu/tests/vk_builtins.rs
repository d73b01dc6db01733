//! Declared builtins have an effect: the stage that uses one gets its GLSL extension, the pipeline needs the
//! device feature, and a device without it gets a diagnostic before pipeline creation instead of a driver error.

mod vk_support;

use shader_info::{
    BuiltinBits, Frequency, GenerateOptions, MemoryLoader, Qualifier, Registry, ShaderCreateInfo,
    Stage, Type, generate,
};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{Buffer, VkError, raw};
use vk_support::{SIZE, clear_rgba8, graphics_pipeline, render, validated};

const FULL: [[f32; 2]; 3] = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]];

fn registry() -> (Registry, MemoryLoader) {
    let mut reg = Registry::new();
    let base = |name: &str, builtins: BuiltinBits, vert: &str, frag: &str| {
        ShaderCreateInfo::new(name)
            .builtins(builtins)
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source(vert.to_string())
            .fragment_source(frag.to_string())
    };
    reg.add_info(base(
        "test_layer",
        BuiltinBits::LAYER,
        "layer.vert",
        "plain.frag",
    ));
    reg.add_info(base(
        "test_barycentric",
        BuiltinBits::BARYCENTRIC_COORD,
        "plain.vert",
        "bary.frag",
    ));
    let loader = MemoryLoader::default()
        .with(
            "layer.vert",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n  gl_Layer = 0;\n}\n",
        )
        .with(
            "plain.vert",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n",
        )
        .with(
            "plain.frag",
            "void main() {\n  frag_color = vec4(0.0, 1.0, 0.0, 1.0);\n}\n",
        )
        .with(
            "bary.frag",
            "void main() {\n  frag_color = vec4(gl_BaryCoordEXT, 1.0);\n}\n",
        );
    (reg, loader)
}

#[test]
fn the_stage_that_uses_a_builtin_gets_its_extension_and_the_plan_its_feature() {
    let (reg, loader) = registry();
    let opts = GenerateOptions::new(&loader, &reg);
    let (layer, plan) = validated(&reg, "test_layer");
    let vert = generate(&layer, Stage::Vertex, &opts).unwrap().source;
    let frag = generate(&layer, Stage::Fragment, &opts).unwrap().source;
    assert!(vert.contains("#extension GL_ARB_shader_viewport_layer_array : require"));
    assert!(!frag.contains("viewport_layer_array"));
    let features: Vec<&str> = plan.builtin_features.iter().map(|f| f.feature).collect();
    assert_eq!(features, ["shaderOutputLayer"]);
    // Both compile: the extension is what lets the vertex stage write gl_Layer.
    vk_support::compile(&reg, &loader, &layer, Stage::Vertex);
    let (bary, plan) = validated(&reg, "test_barycentric");
    let frag = generate(&bary, Stage::Fragment, &opts).unwrap().source;
    assert!(frag.contains("#extension GL_EXT_fragment_shader_barycentric : require"));
    vk_support::compile(&reg, &loader, &bary, Stage::Fragment);
    assert_eq!(
        plan.builtin_features[0].feature,
        "fragmentShaderBarycentric"
    );
}

/// On a device with the feature the pipeline draws; without it, creation is refused naming the feature and the
/// builtin. Either way the validation layer stays silent.
#[test]
fn a_builtin_draws_where_the_device_has_its_feature_and_is_refused_where_not() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    for (name, feature) in [
        ("test_layer", "shaderOutputLayer"),
        ("test_barycentric", "fragmentShaderBarycentric"),
    ] {
        let (info, plan) = validated(&reg, name);
        let created = graphics_pipeline(&ctx, &reg, &loader, &info, &plan);
        if ctx.feature_enabled(feature) {
            let p = created.unwrap_or_else(|e| panic!("{name}: {e}"));
            let vb = Buffer::with_data(&ctx, &FULL, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
            let pixels = render(&ctx, &p, &[&vb], 3, &[]);
            eprintln!("{name}: `{feature}` enabled, drawn");
            let center = pixel(&pixels, SIZE, SIZE / 2, SIZE / 2);
            assert_ne!(center, clear_rgba8(), "{name} drew nothing");
            assert_eq!(center[3], 255);
        } else {
            eprintln!("{name}: no `{feature}`, refused");
            match created {
                Err(VkError::Diagnostics(d)) => {
                    let text = shader_info::render_all(&d);
                    assert!(
                        text.contains(feature) && text.contains("BuiltinBits::"),
                        "{text}"
                    );
                }
                Err(e) => panic!("{name}: refused, but not with a diagnostic: {e}"),
                Ok(_) => panic!("{name}: created without `{feature}`"),
            }
        }
    }
    assert_no_validation_messages(&ctx);
}

/// Subgroup operations run where the device supports their class in the compute stage, with the result the
/// subgroup size implies, and are refused before pipeline creation, naming the class, where it does not.
#[test]
fn subgroup_operations_run_where_supported_and_are_refused_where_not() {
    let Some(ctx) = test_context() else { return };
    let support = ctx.subgroup();
    eprintln!(
        "subgroups: size {}, stages {:?}, operations {:?}",
        support.size, support.stages, support.operations
    );
    let mut reg = Registry::new();
    let sum = |name: &str, file: &str| {
        ShaderCreateInfo::new(name)
            .builtins(BuiltinBits::SUBGROUP)
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .local_group_size(64)
            .compute_source(file.to_string())
    };
    reg.add_info(sum("test_subgroup_add", "add.comp"));
    reg.add_info(sum("test_subgroup_clustered", "clustered.comp"));
    reg.add_info(sum("test_subgroup_quad", "quad.comp"));
    let loader = MemoryLoader::default()
        .with(
            "add.comp",
            "void main() {\n  data[gl_GlobalInvocationID.x] = subgroupAdd(1u);\n}\n",
        )
        .with(
            "clustered.comp",
            "void main() {\n  data[gl_GlobalInvocationID.x] = subgroupClusteredAdd(1u, 4u);\n}\n",
        )
        .with(
            "quad.comp",
            "void main() {\n  data[gl_GlobalInvocationID.x] = subgroupQuadBroadcast(gl_SubgroupInvocationID, 2u) + 100u;\n}\n",
        );
    let size = support.size.min(64);
    for (name, class, bit, expect) in [
        (
            "test_subgroup_add",
            "ARITHMETIC",
            raw::SubgroupFeatureFlags::ARITHMETIC,
            Box::new(move |_: u32| size) as Box<dyn Fn(u32) -> u32>,
        ),
        (
            "test_subgroup_clustered",
            "CLUSTERED",
            raw::SubgroupFeatureFlags::CLUSTERED,
            Box::new(|_| 4),
        ),
        (
            "test_subgroup_quad",
            "QUAD",
            raw::SubgroupFeatureFlags::QUAD,
            // Every invocation reads lane 2 of its quad: its subgroup index rounded down to the quad, plus 2.
            Box::new(move |i| (i % size) / 4 * 4 + 2 + 100),
        ),
    ] {
        let (info, plan) = validated(&reg, name);
        let m = vk_support::module(&ctx, &reg, &loader, &info, Stage::Compute);
        assert!(m.subgroup_ops().missing_from(0).contains(&class), "{name}");
        let created = vk_support::compute_pipeline(&ctx, &plan, &m);
        let usable = support.stages.contains(raw::ShaderStageFlags::COMPUTE)
            && support
                .operations
                .contains(bit | raw::SubgroupFeatureFlags::BASIC);
        if usable {
            let p = created.unwrap_or_else(|e| panic!("{name}: {e}"));
            let data = Buffer::new(&ctx, 64 * 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
            vk_support::dispatch(&ctx, &p, &[&data], 1);
            let got = data.read_vec::<u32>();
            let want: Vec<u32> = (0..64).map(&expect).collect();
            assert_eq!(got, want, "{name}");
            eprintln!("{name}: {class} supported, ran");
        } else {
            eprintln!("{name}: no {class}, refused");
            match created {
                Err(VkError::Diagnostics(d)) => {
                    let text = shader_info::render_all(&d);
                    assert!(text.contains(class) && text.contains(name), "{text}");
                }
                Err(e) => panic!("{name}: refused, but not with a diagnostic: {e}"),
                Ok(_) => panic!("{name}: created without subgroup {class} support"),
            }
        }
    }

    // The stage counts too: lavapipe runs subgroup operations only in fragment and compute stages.
    reg.add_info(
        ShaderCreateInfo::new("test_subgroup_vertex")
            .builtins(BuiltinBits::SUBGROUP)
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("sg.vert")
            .fragment_source("plain.frag"),
    );
    let loader = loader
        .with(
            "sg.vert",
            "void main() {\n  gl_Position = vec4(pos * float(subgroupAdd(1u) > 0u), 0.0, 1.0);\n}\n",
        )
        .with(
            "plain.frag",
            "void main() {\n  frag_color = vec4(0.0, 1.0, 0.0, 1.0);\n}\n",
        );
    let (info, plan) = validated(&reg, "test_subgroup_vertex");
    let created = graphics_pipeline(&ctx, &reg, &loader, &info, &plan);
    if support.stages.contains(raw::ShaderStageFlags::VERTEX) {
        let p = created.unwrap();
        let vb = Buffer::with_data(&ctx, &FULL, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
        let pixels = render(&ctx, &p, &[&vb], 3, &[]);
        assert_eq!(pixel(&pixels, SIZE, SIZE / 2, SIZE / 2), [0, 255, 0, 255]);
    } else {
        let Err(VkError::Diagnostics(d)) = created else {
            panic!("a vertex stage with subgroup operations was not refused");
        };
        let text = shader_info::render_all(&d);
        assert!(
            text.contains("vert stage") && text.contains("supports them only in"),
            "{text}"
        );
    }
    assert_no_validation_messages(&ctx);
}
