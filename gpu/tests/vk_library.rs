//! The shader library fetches modules and pipelines by info name and caches them.

use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo, Stage, Type};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{GraphicsOptions, LibraryOptions, ShaderLibrary, SpecValues, VkError};
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
        [shader_info_gpu::vk::raw::Format::R16G16B16A16_SFLOAT]
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
        Err(VkError::Diagnostics(d)) => {
            assert_eq!(d[0].code, shader_info::Code::UnknownInfo);
            assert!(d[0].to_string().contains("test_lib_nope"), "{}", d[0]);
        }
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
        Err(e @ VkError::Diagnostics(_)) => {
            let d = &e.diagnostics()[0];
            assert_eq!(d.info, "test_lib_variants");
            assert!(d.message.contains("out of range"), "{}", d.message)
        }
        other => panic!("expected an out-of-range error, got {other:?}"),
    }
    drop((a, b, lib));
    assert_no_validation_messages(&ctx);
}

/// An info whose fragment stage samples `tex` only when the `USE_TEX` branch is on (the constant folds, so the
/// Release SPIR-V of the plain variant has no sampler at all); the vertex stage always samples it.
fn textured_info(dir: &std::path::Path, name: &str) -> ShaderCreateInfo {
    std::fs::write(
        dir.join("t.vert.glsl"),
        "void main() { gl_Position = vec4(pos, textureLod(tex, vec2(0.5), 0.0).x, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("t.frag.glsl"),
        "void main() {\n  frag_color = vec4(1.0);\n  if (USE_TEX) frag_color = texture(tex, vec2(0.5));\n}\n",
    )
    .unwrap();
    ShaderCreateInfo::new(name)
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "frag_color")
        .sampler(1, shader_info::ImageType::Float2D, "tex", Frequency::Pass)
        .branch("USE_TEX")
        .vertex_source("t.vert.glsl")
        .fragment_source("t.frag.glsl")
}

#[test]
fn variant_layouts_take_stage_flags_from_the_variants_own_modules() {
    use ash::vk::ShaderStageFlags as F;
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut reg = Registry::new();
    reg.add_info(textured_info(dir.path(), "test_lib_variant_flags"));
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let plain = lib.variant_key("test_lib_variant_flags", 0).unwrap();
    let textured = lib.variant_key("test_lib_variant_flags", 1).unwrap();
    assert_ne!(plain, textured);
    let sampler_flags = |p: &shader_info_gpu::vk::GraphicsPipeline| {
        p.layout().desc().sets[0]
            .iter()
            .find(|d| d.binding == 1)
            .unwrap()
            .stages
    };
    let a = lib
        .graphics_pipeline(&plain, &GraphicsOptions::default())
        .unwrap();
    assert_eq!(
        sampler_flags(&a),
        F::VERTEX,
        "the plain variant's fragment stage does not sample"
    );
    let b = lib
        .graphics_pipeline(&textured, &GraphicsOptions::default())
        .unwrap();
    assert_eq!(
        sampler_flags(&b),
        F::VERTEX | F::FRAGMENT,
        "the textured variant's fragment stage samples: its flags come from its own modules"
    );
    drop((a, b, lib));
    assert_no_validation_messages(&ctx);
}

static FOLD_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn variant_lookups_enumerate_the_permutations_once() {
    use std::sync::atomic::Ordering;
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    fn count(_: &mut shader_info::VariantBuilder) {
        FOLD_CALLS.fetch_add(1, Ordering::Relaxed);
    }
    let mut reg = Registry::new();
    reg.add_info(textured_info(dir.path(), "test_lib_variant_once").specialize(count));
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let key = lib.variant_key("test_lib_variant_once", 1).unwrap();
    let after_enumeration = FOLD_CALLS.load(Ordering::Relaxed);
    assert!(after_enumeration > 0);
    let p = lib
        .graphics_pipeline(&key, &GraphicsOptions::default())
        .unwrap();
    lib.module(&key, Stage::Vertex).unwrap();
    lib.reload().unwrap();
    assert_eq!(
        FOLD_CALLS.load(Ordering::Relaxed),
        after_enumeration,
        "fetching modules, a pipeline and reloading reuse the variant table"
    );
    drop((p, lib));
    assert_no_validation_messages(&ctx);
}

#[test]
fn an_invalid_declaration_is_a_fetch_error_naming_the_info() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.comp.glsl"),
        "void main() { a[0] = b[0]; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lib_collision")
            .storage_buf(0, Qualifier::Write, "uint", "a[]", Frequency::Pass)
            .storage_buf(0, Qualifier::Read, "uint", "b[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("c.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    for result in [
        lib.compute_pipeline("test_lib_collision").map(drop),
        lib.module("test_lib_collision", Stage::Compute).map(drop),
    ] {
        match result {
            Err(VkError::Diagnostics(d)) => {
                let msg = shader_info::render(&d);
                assert_eq!(d[0].info, "test_lib_collision", "{msg}");
                assert!(msg.contains("`a[]`") || msg.contains("`a`"), "{msg}");
            }
            other => panic!("expected a validation error, got {other:?}"),
        }
    }
    drop(lib);
    assert_no_validation_messages(&ctx);
}

#[test]
fn an_invalid_variant_is_a_fetch_error_and_the_valid_ones_still_build() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("d.comp.glsl"),
        "void main() { data[0] = FAST ? 1u : 0u; }\n",
    )
    .unwrap();
    fn bad_define(v: &mut shader_info::VariantBuilder) {
        if v.get("FAST") {
            v.define("not a name", "1");
        }
    }
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lib_bad_variant")
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .branch("FAST")
            .specialize(bad_define)
            .local_group_size(1)
            .compute_source("d.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let plain = lib.variant_key("test_lib_bad_variant", 0).unwrap();
    let fast = lib.variant_key("test_lib_bad_variant", 1).unwrap();
    let p = lib.compute_pipeline(&plain).unwrap();
    match lib.compute_pipeline(&fast) {
        Err(VkError::Diagnostics(d)) => {
            let msg = shader_info::render(&d);
            assert!(
                d.iter().all(|d| d.variant.as_deref() == Some("v1 {FAST}")),
                "every diagnostic names the variant: {msg}"
            );
            assert!(msg.contains("not a name"), "{msg}");
        }
        other => panic!("expected the variant's define to fail validation, got {other:?}"),
    }
    drop((p, lib));
    assert_no_validation_messages(&ctx);
}

/// A work group larger than the device allows is refused before the driver sees it, naming both numbers, on ash
/// and on wgpu; the library's guaranteed-minimum warning does not stop one the device allows.
#[test]
fn a_work_group_past_the_device_limit_is_refused_before_pipeline_creation() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.comp.glsl"),
        "void main() { a[0] = 1u; }\n",
    )
    .unwrap();
    let limits = ctx.properties().limits;
    let too_wide = limits.max_compute_work_group_size[0] + 1;
    let allowed =
        limits.max_compute_work_group_size[0].min(limits.max_compute_work_group_invocations);
    let mut reg = Registry::new();
    for (name, x) in [("test_too_wide", too_wide), ("test_wide", allowed)] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .storage_buf(0, Qualifier::Write, "uint", "a[]", Frequency::Pass)
                .local_group_size(x)
                .compute_source("c.comp.glsl"),
        );
    }
    let mut lib = ShaderLibrary::new(&ctx, reg.clone(), LibraryOptions::new(dir.path())).unwrap();
    match lib.compute_pipeline("test_too_wide") {
        Err(VkError::Diagnostics(d)) => {
            let msg = shader_info::render(&d);
            assert_eq!(d[0].code, shader_info::Code::WorkGroupSize, "{msg}");
            assert!(msg.contains(&too_wide.to_string()), "{msg}");
            assert!(msg.contains(&(too_wide - 1).to_string()), "{msg}");
        }
        other => panic!("expected a work-group error, got {:?}", other.map(drop)),
    }
    lib.compute_pipeline("test_wide")
        .expect("a size the device allows");
    drop(lib);
    assert_no_validation_messages(&ctx);

    let Some(wctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let mut lib =
        shader_info_gpu::wgpu::WgpuLibrary::new(&wctx, reg, LibraryOptions::new(dir.path()))
            .unwrap();
    let wide = wctx.device.limits().max_compute_workgroup_size_x + 1;
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_too_wide_wgpu")
            .storage_buf(0, Qualifier::Write, "uint", "a[]", Frequency::Pass)
            .local_group_size(wide)
            .compute_source("c.comp.glsl"),
    );
    let e = lib.compute_pipeline("test_too_wide").map(drop).err();
    let mut lib2 =
        shader_info_gpu::wgpu::WgpuLibrary::new(&wctx, reg, LibraryOptions::new(dir.path()))
            .unwrap();
    for e in [
        e,
        lib2.compute_pipeline("test_too_wide_wgpu").map(drop).err(),
    ] {
        let e = e.expect("refused");
        assert!(
            e.diagnostics()
                .iter()
                .any(|d| d.code == shader_info::Code::WorkGroupSize),
            "{e}"
        );
    }
    drop((lib, lib2));
    shader_info_gpu::wgpu::testing::assert_quiet(&wctx);
}

#[test]
fn warm_up_creates_every_requested_pipeline_in_parallel_and_fetches_find_them() {
    use shader_info_gpu::vk::WarmUp;
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut reg = Registry::new();
    // Eight graphics infos and a compute one, so the parallel phase has work for several threads.
    for i in 0..8 {
        let name = format!("test_warm_{i}");
        std::fs::write(
            dir.path().join(format!("{name}.vert.glsl")),
            format!(
                "void main() {{ gl_Position = vec4(pos * {}.0, 0.0, 1.0); }}\n",
                i + 1
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join(format!("{name}.frag.glsl")),
            format!("void main() {{ frag_color = vec4({i}.0 / 8.0); }}\n"),
        )
        .unwrap();
        reg.add_info(
            ShaderCreateInfo::new(name.as_str())
                .vertex_in(0, Type::Vec2, "pos")
                .fragment_out(0, Type::Vec4, "frag_color")
                .vertex_source(format!("{name}.vert.glsl").as_str())
                .fragment_source(format!("{name}.frag.glsl").as_str()),
        );
    }
    std::fs::write(
        dir.path().join("warm.comp.glsl"),
        "void main() { data[gl_GlobalInvocationID.x] *= 2u; }\n",
    )
    .unwrap();
    reg.add_info(
        ShaderCreateInfo::new("test_warm_compute")
            .storage_buf(
                0,
                Qualifier::ReadWrite,
                "uint",
                "data[]",
                Frequency::Geometry,
            )
            .local_group_size(64)
            .compute_source("warm.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let mut requests: Vec<WarmUp> = (0..8)
        .map(|i| WarmUp::Graphics {
            key: format!("test_warm_{i}"),
            options: GraphicsOptions::default(),
        })
        .collect();
    requests.push(WarmUp::Compute {
        key: "test_warm_compute".into(),
    });
    // A request that cannot succeed is reported and costs the others nothing.
    requests.push(WarmUp::Graphics {
        key: "test_warm_missing".into(),
        options: GraphicsOptions::default(),
    });
    let report = lib.warm_up(&requests);
    assert_eq!(report.created.len(), 9, "{:?}", report.failed);
    assert_eq!(report.failed.len(), 1);
    assert_eq!(report.failed[0].0, "test_warm_missing");
    assert!(shader_info::render_all(&report.failed[0].1).contains("test_warm_missing"));
    assert!(report.created.iter().all(|c| c.create_ms >= 0.0));
    let count = lib.pipeline_count();
    assert_eq!(count, 9);
    // Fetching returns the warmed pipeline: nothing is created again.
    let a = lib
        .graphics_pipeline("test_warm_3", &GraphicsOptions::default())
        .unwrap();
    let b = lib.compute_pipeline("test_warm_compute").unwrap();
    assert_eq!(lib.pipeline_count(), count);
    // A second warm-up of the same requests creates nothing.
    let again = lib.warm_up(&requests[..9]);
    assert!(again.created.is_empty() && again.failed.is_empty());
    assert!(Arc::ptr_eq(
        &a,
        &lib.graphics_pipeline("test_warm_3", &GraphicsOptions::default())
            .unwrap()
    ));
    assert!(Arc::ptr_eq(
        &b,
        &lib.compute_pipeline("test_warm_compute").unwrap()
    ));
    drop((a, b, lib));
    assert_no_validation_messages(&ctx);
}

/// Vertex inputs per variant: the skinned permutation reads joints and weights (packed), the other does not;
/// each variant's generated declarations, vertex layout and pipeline follow its own inputs.
#[test]
fn a_variant_adds_its_own_vertex_inputs_and_gets_its_own_layout() {
    use shader_info::{VariantBuilder, VertexArrangement, VertexFormat};
    fn specialize(v: &mut VariantBuilder) {
        if v.get("SKINNING") {
            v.vertex_in_packed(1, Type::UVec4, VertexFormat::Uint8x4, "joints");
            v.vertex_in_packed(2, Type::Vec4, VertexFormat::Unorm8x4, "weights");
        }
    }
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("skin.vert.glsl"),
        "void main() {\n  vec3 p = pos;\n#if SKINNING_ON\n  p += vec3(weights.x * float(joints.x));\n#endif\n  gl_Position = vec4(p, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("skin.frag.glsl"),
        "void main() { frag_color = vec4(1.0); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_skinnable")
            .vertex_in(0, Type::Vec3, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .branch("SKINNING")
            .specialize(|v| {
                specialize(v);
                if v.get("SKINNING") {
                    v.define("SKINNING_ON", "1");
                } else {
                    v.define("SKINNING_ON", "0");
                }
            })
            .vertex_source("skin.vert.glsl")
            .fragment_source("skin.frag.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let rigid = lib.variant_key("test_skinnable", 0).unwrap();
    let skinned = lib.variant_key("test_skinnable", 1).unwrap();
    assert_ne!(rigid, skinned);
    let stride = |lib: &mut ShaderLibrary, key: &str| {
        let plan = lib.plan(key).unwrap();
        (
            plan.vertex_attributes.len(),
            plan.vertex_buffers(VertexArrangement::Interleaved)[0].stride,
        )
    };
    assert_eq!(stride(&mut lib, rigid.as_str()), (1, 12));
    assert_eq!(stride(&mut lib, skinned.as_str()), (3, 12 + 4 + 4));
    let (skinned_info, rigid_info) = (
        lib.validated(&skinned).unwrap(),
        lib.validated(&rigid).unwrap(),
    );
    let generated = lib.flow().generate(&skinned_info, Stage::Vertex).unwrap();
    assert!(
        generated.source.contains("uvec4 joints"),
        "{}",
        generated.source
    );
    let generated = lib.flow().generate(&rigid_info, Stage::Vertex).unwrap();
    assert!(!generated.source.contains("uvec4 joints"));
    for key in [&rigid, &skinned] {
        lib.graphics_pipeline(key, &GraphicsOptions::default())
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    drop(lib);
    assert_no_validation_messages(&ctx);
}

/// Preparing parts where the backend has none to prepare (lavapipe without fast link) creates the pipeline, so a
/// warm-up never reports one it did not make; and parts prepared with one set of options do not excuse another's
/// first use (strict mode refused nothing keyed by the info's name alone).
#[test]
fn warm_up_parts_creates_what_it_cannot_prepare_and_excuses_only_its_own_options() {
    use shader_info_gpu::vk::{WarmUp, raw};
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("parts.vert.glsl"),
        "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("parts.frag.glsl"),
        "void main() { frag_color = vec4(1.0); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_parts")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("parts.vert.glsl")
            .fragment_source("parts.frag.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let warmed = GraphicsOptions::default();
    // Named twice: built and reported once.
    let request = WarmUp::Graphics {
        key: "test_parts".into(),
        options: warmed.clone(),
    };
    let report = lib.warm_up_parts(&[request.clone(), request]);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.created.len(), 1);
    assert_eq!(lib.stats().warmed, 1);
    lib.set_strict(true);
    let first = lib.graphics_pipeline("test_parts", &warmed).unwrap();
    assert!(Arc::ptr_eq(
        &first,
        &lib.graphics_pipeline("test_parts", &warmed).unwrap()
    ));
    let other = GraphicsOptions {
        color_format: raw::Format::R16G16B16A16_SFLOAT,
        ..GraphicsOptions::default()
    };
    let e = lib
        .graphics_pipeline("test_parts", &other)
        .map(drop)
        .expect_err("other options were never warmed");
    assert!(
        e.diagnostics()
            .iter()
            .any(|d| d.code == shader_info::Code::LatePipeline),
        "{e}"
    );
    drop((first, lib));
    assert_no_validation_messages(&ctx);
}
