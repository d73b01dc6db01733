//! Pipeline layouts derived from declarations: sets, bindings, descriptor types, counts, stage flags, push
//! constants, and identical set layouts shared.

use shader_info::{
    Code, Frequency, ImageType, PipelinePlan, Qualifier, Registry, ShaderCreateInfo, Stage,
    StageMask, TextureFormat, Type, ValidateOptions, ValidatedInfo,
};
use shader_info_gpu::vk::layout::DescriptorBinding;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{LayoutCache, PipelineLayout, describe_layout, raw};
use std::sync::Arc;

/// The plan of one info on its own (validated without the completeness rules).
fn plan(info: ShaderCreateInfo) -> PipelinePlan {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info);
    PipelinePlan::new(&validated(&reg, &name).unwrap(), &reg)
}

fn validated(reg: &Registry, name: &str) -> Result<ValidatedInfo, Vec<shader_info::Diagnostic>> {
    let opts = ValidateOptions {
        registry: reg,
        extra_type_names: &[],
        require_complete: false,
    };
    ValidatedInfo::new(reg.resolve(name).unwrap(), &opts)
}

fn material() -> ShaderCreateInfo {
    ShaderCreateInfo::new("test_material")
        .image(
            0,
            TextureFormat::Rgba8,
            Qualifier::Write,
            ImageType::Float2D,
            "out_img",
            Frequency::Pass,
        )
        .image(
            1,
            TextureFormat::R32ui,
            Qualifier::ReadWrite,
            ImageType::UintBuffer,
            "counters",
            Frequency::Pass,
        )
        .uniform_buf(2, "mat4", "view", Frequency::Pass)
        .sampler(0, ImageType::Float2D, "albedo[4]", Frequency::Batch)
        .sampler(1, ImageType::FloatBuffer, "lut", Frequency::Batch)
        .storage_buf(
            0,
            Qualifier::Read,
            "vec4",
            "instances[]",
            Frequency::Geometry,
        )
        .uniform_buf(1, "vec4", "lights[8]", Frequency::Geometry)
        .push_constant(Type::Mat4, "model")
        .push_constant(Type::Vec3, "tint")
        .push_constant(Type::Float, "alpha")
        .vertex_source("m.vert")
        .fragment_source("m.frag")
}

fn b(
    binding: u32,
    ty: raw::DescriptorType,
    count: u32,
    stages: raw::ShaderStageFlags,
) -> DescriptorBinding {
    DescriptorBinding {
        binding,
        descriptor_type: ty,
        count,
        stages,
        immutable_sampler: None,
    }
}

#[test]
fn sets_bindings_types_counts_and_push_constants_follow_the_declaration() {
    use raw::DescriptorType as D;
    let vf = raw::ShaderStageFlags::VERTEX | raw::ShaderStageFlags::FRAGMENT;
    let desc = describe_layout(&plan(material()));
    assert_eq!(desc.sets.len(), 3);
    assert_eq!(
        desc.sets[0],
        [
            b(0, D::STORAGE_IMAGE, 1, vf),
            b(1, D::STORAGE_TEXEL_BUFFER, 1, vf),
            b(2, D::UNIFORM_BUFFER, 1, vf)
        ]
    );
    assert_eq!(
        desc.sets[1],
        [
            b(0, D::COMBINED_IMAGE_SAMPLER, 4, vf),
            b(1, D::UNIFORM_TEXEL_BUFFER, 1, vf)
        ]
    );
    // Buffer arrays live inside one block: one descriptor each.
    assert_eq!(
        desc.sets[2],
        [
            b(0, D::STORAGE_BUFFER, 1, vf),
            b(1, D::UNIFORM_BUFFER, 1, vf)
        ]
    );
    let pc = desc.push_constants.unwrap();
    assert_eq!(
        (pc.size, pc.stages),
        (64 + 12 + 4, vf),
        "std430: vec3 at 64, float packed at 76"
    );

    // Stage flags from reflection: the sampler is used by the fragment stage only (a binding no stage uses
    // keeps every stage).
    let usage = |set: u32, binding: u32| {
        if (set, binding) == (1, 0) {
            StageMask::of(&[Stage::Fragment])
        } else {
            StageMask::NONE
        }
    };
    let desc = describe_layout(&plan(material()).with_stage_usage(usage));
    assert_eq!(desc.sets[1][0].stages, raw::ShaderStageFlags::FRAGMENT);
    assert_eq!(desc.sets[1][1].stages, vf);
}

#[test]
fn gaps_get_empty_sets_and_duplicates_are_reported() {
    let info = ShaderCreateInfo::new("test_gap")
        .storage_buf(3, Qualifier::Read, "uint", "data[]", Frequency::Geometry)
        .compute_source("x.comp");
    let desc = describe_layout(&plan(info));
    assert_eq!(desc.sets.len(), 3);
    assert!(desc.sets[0].is_empty() && desc.sets[1].is_empty());
    assert_eq!(desc.sets[2][0].binding, 3);
    assert_eq!(desc.sets[2][0].stages, raw::ShaderStageFlags::COMPUTE);
    assert!(desc.push_constants.is_none());

    // Two resources at one binding never reach a layout: validation refuses them, naming both.
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_dup")
            .uniform_buf(0, "vec4", "a", Frequency::Pass)
            .storage_buf(0, Qualifier::Read, "uint", "b[]", Frequency::Pass),
    );
    let e = validated(&reg, "test_dup").unwrap_err();
    assert_eq!(e[0].code, Code::BindingCollision);
    assert!(e[0].message.contains("set 0 binding 0"), "{}", e[0]);
}

#[test]
fn layouts_are_created_and_identical_set_layouts_are_shared() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let a = PipelineLayout::new(&ctx, &cache, &describe_layout(&plan(material()))).unwrap();
    // Same Batch set as `material`, different Pass set, no Geometry set.
    let other = ShaderCreateInfo::new("test_other")
        .uniform_buf(0, "vec4", "params", Frequency::Pass)
        .sampler(0, ImageType::Float2D, "albedo[4]", Frequency::Batch)
        .sampler(1, ImageType::FloatBuffer, "lut", Frequency::Batch)
        .vertex_source("o.vert")
        .fragment_source("o.frag");
    let b = PipelineLayout::new(&ctx, &cache, &describe_layout(&plan(other))).unwrap();
    assert_eq!(a.set_layouts().len(), 3);
    assert_eq!(b.set_layouts().len(), 2);
    assert!(
        Arc::ptr_eq(&a.set_layouts()[1], &b.set_layouts()[1]),
        "identical Batch sets are shared"
    );
    assert!(!Arc::ptr_eq(&a.set_layouts()[0], &b.set_layouts()[0]));
    assert_eq!(cache.len(), 4, "material: 3 sets, other: 1 new set");

    // Gaps: sets 0 and 1 of a Geometry-only compute info are the same empty layout.
    let gap = ShaderCreateInfo::new("test_gap")
        .storage_buf(0, Qualifier::Read, "uint", "data[]", Frequency::Geometry)
        .compute_source("x.comp");
    let c = PipelineLayout::new(&ctx, &cache, &describe_layout(&plan(gap.clone()))).unwrap();
    assert!(Arc::ptr_eq(&c.set_layouts()[0], &c.set_layouts()[1]));
    assert!(c.set_layouts()[0].bindings().is_empty());
    // A second identical pipeline layout creates no new set layout.
    let n = cache.len();
    let _d = PipelineLayout::new(&ctx, &cache, &describe_layout(&plan(gap.clone()))).unwrap();
    assert_eq!(cache.len(), n);
    drop((a, b, c, _d, cache));
    assert_no_validation_messages(&ctx);
}

/// A layout description made by hand (its fields are public) whose push range the driver would refuse (not a
/// multiple of 4, empty, over the device's limit) is refused by `PipelineLayout::new`, not created and left to a
/// validation error at the draw.
#[test]
fn a_hand_made_push_range_the_driver_would_refuse_is_refused() {
    let Some(ctx) = test_context() else { return };
    let cache = LayoutCache::new(&ctx);
    let info = ShaderCreateInfo::new("test_push_range")
        .push_constant(Type::Vec4, "tint")
        .local_group_size(1)
        .compute_source("p.comp");
    let desc = describe_layout(&plan(info));
    assert_eq!(desc.push_constants.as_ref().unwrap().size, 16);
    PipelineLayout::new(&ctx, &cache, &desc).unwrap();
    let limit = ctx.properties().limits.max_push_constants_size;
    for size in [0, 6, limit + 4] {
        let mut bad = desc.clone();
        bad.push_constants.as_mut().unwrap().size = size;
        let e = PipelineLayout::new(&ctx, &cache, &bad).expect_err("refused");
        assert!(e.to_string().contains(&format!("{size} bytes")), "{e}");
    }
    drop(cache);
    assert_no_validation_messages(&ctx);
}

#[test]
fn the_messenger_really_counts_validation_errors() {
    // Proves the zero-message assertions of the other tests mean something: a bad call is counted.
    let Some(ctx) = test_context() else { return };
    assert!(ctx.validation_enabled());
    let info = raw::BufferCreateInfo::default()
        .size(0)
        .usage(raw::BufferUsageFlags::STORAGE_BUFFER);
    // SAFETY: a deliberately invalid create info (size 0); the layer reports it. If the driver still returns a
    // buffer we destroy it right away.
    unsafe {
        if let Ok(b) = ctx.device().create_buffer(&info, None) {
            ctx.device().destroy_buffer(b, None);
        }
    }
    assert!(ctx.validation_count() >= 1);
    let msgs = ctx.validation_messages();
    assert!(
        msgs.iter()
            .any(|m| m.id_name.contains("size") || m.text.contains("size")),
        "{msgs:#?}"
    );
}
