//! The shader library fetches modules and pipelines by info name and caches them.

use gpu::vk::testing::{assert_no_validation_messages, test_context};
use gpu::vk::{GraphicsOptions, LibraryOptions, ShaderLibrary, SpecValues, VkError};
use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo, Stage, Type};
use std::sync::Arc;

#[test]
fn modules_and_pipelines_are_fetched_by_name_and_cached() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tri.vert.glsl"),
        "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("tri.frag.glsl"),
        "void main() { frag_color = color; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("scale.comp.glsl"),
        "void main() { data[gl_GlobalInvocationID.x] *= SCALE; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lib_tri")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .push_constant(Type::Vec4, "color")
            .uniform_buf(0, "vec4", "params", Frequency::Batch)
            .vertex_source("tri.vert.glsl")
            .fragment_source("tri.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_lib_scale")
            .uniform_buf(0, "vec4", "params", Frequency::Batch)
            .storage_buf(
                0,
                Qualifier::ReadWrite,
                "uint",
                "data[]",
                Frequency::Geometry,
            )
            .specialization_constant(Type::Uint, "SCALE", 2u32)
            .local_group_size(64)
            .compute_source("scale.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();

    let vs = lib.module("test_lib_tri", Stage::Vertex).unwrap();
    assert!(Arc::ptr_eq(
        &vs,
        &lib.module("test_lib_tri", Stage::Vertex).unwrap()
    ));
    let a = lib
        .graphics_pipeline("test_lib_tri", &GraphicsOptions::default())
        .unwrap();
    assert!(Arc::ptr_eq(
        &a,
        &lib.graphics_pipeline("test_lib_tri", &GraphicsOptions::default())
            .unwrap()
    ));
    let hdr = lib
        .graphics_pipeline("test_lib_tri", &GraphicsOptions::hdr())
        .unwrap();
    assert!(!Arc::ptr_eq(&a, &hdr), "other options, other pipeline");
    assert_eq!(
        hdr.color_formats(),
        [gpu::vk::raw::Format::R16G16B16A16_SFLOAT]
    );

    let c2 = lib.compute_pipeline("test_lib_scale").unwrap();
    let c3 = lib
        .compute_pipeline_with("test_lib_scale", &SpecValues::default().set("SCALE", 3u32))
        .unwrap();
    assert!(!Arc::ptr_eq(&c2, &c3));
    assert!(Arc::ptr_eq(
        &c2,
        &lib.compute_pipeline("test_lib_scale").unwrap()
    ));
    assert_eq!(lib.pipeline_count(), 4);
    // The Batch set (one uniform buffer, but different stage flags: vertex+fragment vs compute) differs; the
    // empty set 0 of both infos is shared.
    assert!(Arc::ptr_eq(
        &a.layout().set_layouts()[0],
        &c2.layout().set_layouts()[0]
    ));

    match lib.graphics_pipeline("test_lib_nope", &GraphicsOptions::default()) {
        Err(VkError::Compile(msg)) => assert!(msg.contains("test_lib_nope"), "{msg}"),
        other => panic!("expected an unknown-info error, got {other:?}"),
    }
    drop((vs, a, hdr, c2, c3, lib));
    assert_no_validation_messages(&ctx);
}

#[test]
fn layout_stage_flags_come_from_the_stages_that_use_each_binding() {
    use ash::vk::ShaderStageFlags as F;
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lib_usage")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .uniform_buf(0, "mat4", "xform", Frequency::Pass)
            .sampler(1, shader_info::ImageType::Float2D, "tex", Frequency::Pass)
            .uniform_buf(2, "vec4", "tint", Frequency::Pass)
            .uniform_buf(3, "vec4", "unused", Frequency::Pass)
            .vertex_source("u.vert.glsl")
            .fragment_source("u.frag.glsl"),
    );
    std::fs::write(
        dir.path().join("u.vert.glsl"),
        "void main() { gl_Position = xform * vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("u.frag.glsl"),
        "void main() { frag_color = texture(tex, vec2(0.5)) * tint; }\n",
    )
    .unwrap();
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let p = lib
        .graphics_pipeline("test_lib_usage", &GraphicsOptions::default())
        .unwrap();
    let set0 = &p.layout().desc().sets[0];
    let flags = |b: u32| set0.iter().find(|d| d.binding == b).unwrap().stages;
    assert_eq!(flags(0), F::VERTEX);
    assert_eq!(flags(1), F::FRAGMENT);
    assert_eq!(flags(2), F::FRAGMENT);
    assert_eq!(
        flags(3),
        F::VERTEX | F::FRAGMENT,
        "an unused binding keeps every stage of the info"
    );
    drop((p, lib));
    assert_no_validation_messages(&ctx);
}

#[test]
fn variants_are_fetched_by_permutation_and_folded_permutations_share_a_pipeline() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("v.comp.glsl"),
        "void main() { data[gl_GlobalInvocationID.x] = (DOUBLE ? 2u : 1u) + (EXTRA ? 10u : 0u); }\n",
    )
    .unwrap();
    fn fold(v: &mut shader_info::VariantBuilder) {
        // EXTRA only exists together with DOUBLE.
        if !v.get("DOUBLE") {
            v.set("EXTRA", false);
        }
    }
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lib_variants")
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .branch("DOUBLE")
            .branch("EXTRA")
            .specialize(fold)
            .local_group_size(1)
            .compute_source("v.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let set = lib.variants("test_lib_variants").unwrap();
    assert_eq!((set.permutations(), set.variants.len()), (4, 3));
    let plain = lib.variant_key("test_lib_variants", 0b00).unwrap();
    let folded = lib.variant_key("test_lib_variants", 0b10).unwrap();
    assert_eq!(
        plain, folded,
        "EXTRA without DOUBLE folds into the plain variant"
    );
    let a = lib.compute_pipeline(&plain).unwrap();
    let both = lib.variant_key("test_lib_variants", 0b11).unwrap();
    let b = lib.compute_pipeline(&both).unwrap();
    assert!(!Arc::ptr_eq(&a, &b));
    assert!(Arc::ptr_eq(&a, &lib.compute_pipeline(&folded).unwrap()));
    match lib.variant_key("test_lib_variants", 0b100) {
        Err(VkError::Declaration { message, .. }) => {
            assert!(message.contains("out of range"), "{message}")
        }
        other => panic!("expected an out-of-range error, got {other:?}"),
    }
    drop((a, b, lib));
    assert_no_validation_messages(&ctx);
}
