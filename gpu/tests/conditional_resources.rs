//! Resources present only under a condition on branches: pruned per variant, free to share a slot with the
//! resources of the exclusive variants, guarded in GLSL by `#if BRANCH_<NAME>`, checked for collisions per
//! evaluated variant, and run on the device in the variant that has them.

mod vk_support;

use shader_info::{
    Code, Condition, Frequency, ImageType, PipelinePlan, Qualifier, Registry, ShaderCreateInfo,
    Stage, render_all,
};
use shader_info_gpu::compiler::{Compiler, Profile};
use shader_info_gpu::flow::Flow;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{Buffer, ShaderModule, raw};

const SOURCE: &str = "void main() {\n  uint i = gl_GlobalInvocationID.x;\n#if BRANCH_USE_LUT\n  result[i] = lut[i] * 2.0;\n#else\n  result[i] = textureLod(lut_tex, vec2(0.5), 0.0).r;\n#endif\n}\n";

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_lut")
            .branch("USE_LUT")
            .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
            .resources_if("USE_LUT", |i| {
                i.storage_buf(1, Qualifier::Read, "float", "lut[]", Frequency::Pass)
            })
            .resources_if(Condition::branch("USE_LUT").not(), |i| {
                i.sampler(1, ImageType::Float2D, "lut_tex", Frequency::Pass)
            })
            .local_group_size(64)
            .compute_source("lut.comp.glsl"),
    );
    reg
}

fn binding_names(plan: &PipelinePlan) -> Vec<(u32, String)> {
    plan.bindings()
        .map(|(_, b)| (b.binding, b.name.clone()))
        .collect()
}

#[test]
fn each_variant_has_its_own_resources_at_one_slot_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lut.comp.glsl"), SOURCE).unwrap();
    let reg = registry();
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = shader_info::DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let info = flow.validated("test_lut").unwrap();
    let set = flow.variants(&info).unwrap();
    assert_eq!(set.variants.len(), 2);
    let mut lut_variant = None;
    for i in 0..set.variants.len() {
        let v = info
            .variant(&set, i, &reg)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        let plan = flow.plan(&v);
        let uses_lut = set.variants[i].value("USE_LUT", &set.branches);
        let want = if uses_lut { "lut" } else { "lut_tex" };
        assert_eq!(
            binding_names(&plan),
            [(0, "result".to_string()), (1, want.to_string())],
            "variant {i}"
        );
        let g = flow.generate(&v, Stage::Compute).unwrap();
        assert!(
            g.source
                .contains(&format!("#define BRANCH_USE_LUT {}", u8::from(uses_lut))),
            "{}",
            g.source
        );
        // Compiled with the reflection check: the module binds exactly what the variant declares.
        let checked = flow
            .compile(&v, Stage::Compute)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        if uses_lut {
            lut_variant = Some((checked.module.spirv.clone(), plan));
        }
    }

    let Some(ctx) = test_context() else { return };
    let (spirv, plan) = lut_variant.unwrap();
    let m = ShaderModule::new(&ctx, &spirv).unwrap();
    let p = vk_support::compute_pipeline(&ctx, &plan, &m).unwrap();
    let lut: Vec<f32> = (0..64).map(|i| i as f32 * 0.25).collect();
    let storage = raw::BufferUsageFlags::STORAGE_BUFFER;
    let result = Buffer::new(&ctx, 64 * 4, storage).unwrap();
    let input = Buffer::with_data(&ctx, &lut, storage).unwrap();
    vk_support::dispatch(&ctx, &p, &[&result, &input], 1);
    let doubled: Vec<f32> = lut.iter().map(|v| v * 2.0).collect();
    assert_eq!(result.read_vec::<f32>(), doubled);
    drop((p, m, result, input));
    assert_no_validation_messages(&ctx);
}

#[test]
fn collisions_are_checked_per_variant_and_conditions_name_known_branches() {
    // Two samplers on slot 0: `first` with A, `second` with A or B.
    let overlap = || {
        ShaderCreateInfo::new("test_overlap")
            .branch("A")
            .branch("B")
            .resources_if("A", |i| {
                i.sampler(0, ImageType::Float2D, "first", Frequency::Pass)
            })
            .resources_if(Condition::branch("B").or(Condition::branch("A")), |i| {
                i.sampler(0, ImageType::Float2D, "second", Frequency::Pass)
            })
    };
    let mut reg = Registry::new();
    reg.add_info(
        overlap()
            .resources_if("TYPO", |i| {
                i.sampler(1, ImageType::Float2D, "third", Frequency::Pass)
            })
            .resources_if("B", |i| i.define("NOT_A_RESOURCE")),
    );
    let d = vk_support::problems(&reg, "test_overlap");
    let text = render_all(&d);
    assert!(
        text.contains("`TYPO` is no branch or boolean constant of the info")
            && text.contains("its branches: A, B"),
        "{text}"
    );
    assert!(text.contains("only resources can be conditional"), "{text}");
    // With every branch false nothing collides; the variant with A has both samplers on slot 0.
    assert!(
        !d.iter().any(|d| d.code == Code::BindingCollision),
        "{text}"
    );
    let mut fixed = Registry::new();
    fixed.add_info(overlap().local_group_size(1).compute_source("x.comp.glsl"));
    let base = fixed.validated("test_overlap").unwrap();
    let set = shader_info::enumerate_variants(&base, 20).unwrap();
    let mut collided = Vec::new();
    for i in 0..set.variants.len() {
        if let Err(d) = base.variant(&set, i, &fixed) {
            assert!(
                d.iter().all(|d| d.code == Code::BindingCollision),
                "{}",
                render_all(&d)
            );
            collided.push(set.describe(set.variants[i].bits));
            assert!(
                render_all(&d).contains("{A"),
                "the diagnostic names the variant"
            );
        }
    }
    collided.sort();
    assert_eq!(collided, ["{A, B}", "{A}"]);
}

/// Compilation constants and branches are one concept: the specialize function changes a typed constant per
/// variant as it folds branches, the generated `const` follows, a boolean one conditions resources, and what it
/// cannot change (an unknown name, another type, a constant that sizes an array) is refused with the permutation.
#[test]
fn compilation_constants_vary_per_variant_like_branches() {
    fn specialize(v: &mut shader_info::VariantBuilder) {
        if v.get("HIGH_QUALITY") {
            v.set_constant("TAPS", 16u32);
            v.set_constant("USE_NOISE", true);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("taps.comp.glsl"),
        "void main() {\n  float sum = 0.0;\n  for (uint i = 0u; i < TAPS; i++) { sum += float(i); }\n#if BRANCH_HIGH_QUALITY\n  sum += textureLod(noise, vec2(0.5), 0.0).r;\n#endif\n  result[gl_GlobalInvocationID.x] = sum;\n}\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_taps")
            .compilation_constant("TAPS", 4u32)
            .compilation_constant("USE_NOISE", false)
            .branch("HIGH_QUALITY")
            .specialize(specialize)
            .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
            .resources_if("USE_NOISE", |i| {
                i.sampler(1, ImageType::Float2D, "noise", Frequency::Pass)
            })
            .local_group_size(1)
            .compute_source("taps.comp.glsl"),
    );
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = shader_info::DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let info = flow.validated("test_taps").unwrap();
    let set = flow.variants(&info).unwrap();
    assert_eq!(set.variants.len(), 2);
    for i in 0..2 {
        let v = info.variant(&set, i, &reg).unwrap();
        let hq = set.variants[i].value("HIGH_QUALITY", &set.branches);
        let g = flow.generate(&v, Stage::Compute).unwrap();
        let taps = if hq { "16u" } else { "4u" };
        assert!(
            g.source.contains(&format!("const uint TAPS = {taps};")),
            "{}",
            g.source
        );
        assert!(g.source.contains(&format!("const bool USE_NOISE = {hq};")));
        let names: Vec<String> = flow
            .plan(&v)
            .bindings()
            .map(|(_, b)| b.name.clone())
            .collect();
        assert_eq!(names.contains(&"noise".to_string()), hq, "{names:?}");
        flow.compile(&v, Stage::Compute)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
    }

    for (bad, want) in [
        (
            bad_name as fn(&mut shader_info::VariantBuilder),
            "no compilation constant of that name",
        ),
        (bad_type, "is a `uint`, not a `float`"),
        (bad_size, "sizes an array"),
    ] {
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("test_bad_set")
                .compilation_constant("TAPS", 4u32)
                .shared_variable(shader_info::Type::Float, "cache[TAPS]")
                .branch("B")
                .specialize(bad),
        );
        let info = reg.resolve("test_bad_set").unwrap();
        let d = shader_info::enumerate_variants(&info, 20).unwrap_err();
        let text = render_all(&d);
        assert!(
            text.contains(want) && text.contains("permutation {B}"),
            "{text}"
        );
    }
    fn bad_name(v: &mut shader_info::VariantBuilder) {
        if v.get("B") {
            v.set_constant("TAPZ", 1u32);
        }
    }
    fn bad_type(v: &mut shader_info::VariantBuilder) {
        if v.get("B") {
            v.set_constant("TAPS", 1.5f32);
        }
    }
    fn bad_size(v: &mut shader_info::VariantBuilder) {
        if v.get("B") {
            v.set_constant("TAPS", 8u32);
        }
    }
}
