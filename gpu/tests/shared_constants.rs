//! Constants shared between Rust and GLSL, end to end: the Rust `const` becomes a typed GLSL `const`, sizes the
//! declaration's arrays, and the compiled module, its reflection and the pipeline plan all follow its value.

use shader_info::{
    Code, DirLoader, Frequency, ImageType, Qualifier, Registry, ShaderCreateInfo, Stage, constant,
};
use shader_info_gpu::compiler::{Compiler, Profile};
use shader_info_gpu::flow::Flow;

const SOURCE: &str = "void main() {\n  vec4 sum = vec4(0.0);\n  for (uint i = 0u; i < VIEW_COUNT; i++) {\n    counts[i] = i;\n    sum += textureLod(views[i], vec2(0.5), 0.0);\n  }\n  counts[0] += uint(sum.x);\n}\n";

/// The same info declared by two "versions" of a renderer whose `VIEW_COUNT` differs.
mod three {
    pub const VIEW_COUNT: u32 = 3;
}
mod five {
    pub const VIEW_COUNT: u32 = 5;
}

fn info(name: &str, count: shader_info::SharedConstant) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .constant(count)
        .sampler(0, ImageType::Float2D, "views[VIEW_COUNT]", Frequency::Pass)
        .storage_buf(
            1,
            Qualifier::ReadWrite,
            "uint",
            "counts[VIEW_COUNT]",
            Frequency::Pass,
        )
        .local_group_size(1)
        .compute_source("views.comp.glsl")
}

#[test]
fn the_rust_value_sizes_the_shader_the_layout_and_the_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("views.comp.glsl"), SOURCE).unwrap();
    let mut reg = Registry::new();
    {
        use three::VIEW_COUNT;
        reg.add_info(info("views_three", constant!(VIEW_COUNT)));
    }
    {
        use five::VIEW_COUNT;
        reg.add_info(info("views_five", constant!(VIEW_COUNT)));
    }
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let mut spirv = Vec::new();
    for (name, n) in [("views_three", 3u32), ("views_five", 5)] {
        let v = flow
            .validated(name)
            .unwrap_or_else(|d| panic!("{}", shader_info::render(&d)));
        let g = flow.generate(&v, Stage::Compute).unwrap();
        assert!(
            g.source.contains(&format!("const uint VIEW_COUNT = {n}u;")),
            "{}",
            g.source
        );
        // The constant comes before the declarations it sizes.
        let at = |s: &str| {
            g.source
                .find(s)
                .unwrap_or_else(|| panic!("no `{s}` in\n{}", g.source))
        };
        assert!(at("const uint VIEW_COUNT") < at("views["));
        let checked = flow
            .compile(&v, Stage::Compute)
            .unwrap_or_else(|d| panic!("{}", shader_info::render(&d)));
        let plan = flow.plan(&v);
        let views = plan
            .bindings()
            .find(|(_, b)| b.name.starts_with("views"))
            .map(|(_, b)| b.count)
            .unwrap();
        assert_eq!(views, n, "descriptor count in the plan");
        let reflected = checked
            .reflection
            .descriptors
            .iter()
            .find(|d| d.binding == 0)
            .unwrap();
        assert_eq!(reflected.count, n, "descriptor count in the SPIR-V");
        let block = v
            .resources
            .iter()
            .find(|r| r.value.slot == 1)
            .unwrap()
            .value
            .block_layout(&reg)
            .unwrap()
            .unwrap();
        assert_eq!(block.size, 4 * n, "std430 size of `uint counts[{n}]`");
        spirv.push(checked.module.spirv.clone());
    }
    assert_ne!(spirv[0], spirv[1], "the loop bound follows the constant");
}

#[test]
fn a_size_naming_no_constant_or_a_bad_one_is_an_error_saying_what_to_declare() {
    const ZERO: u32 = 0;
    const HALF: f32 = 0.5;
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("unknown_size")
            .sampler(0, ImageType::Float2D, "views[VIEW_COUNT]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("x.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("zero_size")
            .constant(constant!(ZERO))
            .sampler(0, ImageType::Float2D, "views[ZERO]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("x.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("float_size")
            .constant(constant!(HALF))
            .sampler(0, ImageType::Float2D, "views[HALF]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("x.comp.glsl"),
    );
    let dir = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    for (name, says) in [
        ("unknown_size", ".constant(constant!(VIEW_COUNT))"),
        ("zero_size", "must be a positive integer"),
        ("float_size", "must be a positive integer"),
    ] {
        let d = flow.validated(name).expect_err(name);
        let d = d
            .iter()
            .find(|d| d.code == Code::InvalidArray)
            .unwrap_or_else(|| panic!("{name}: {}", shader_info::render(&d)));
        let text = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
        assert!(text.contains(says), "{name}: {text}");
        assert!(
            d.item.as_deref().is_some_and(|i| i.contains("views[")),
            "{name}: {:?}",
            d.item
        );
        assert!(
            d.origin.line > 0,
            "{name}: the diagnostic points at the declaration"
        );
    }
}

#[test]
fn a_constant_is_in_the_name_space_and_inherited_through_additional_info() {
    const LIGHTS: u32 = 8;
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("lighting_base").constant(constant!(LIGHTS)));
    reg.add_info(
        ShaderCreateInfo::new("uses_base")
            .additional_info("lighting_base")
            .storage_buf(
                0,
                Qualifier::Read,
                "vec4",
                "lights[LIGHTS]",
                Frequency::Pass,
            )
            .local_group_size(1)
            .compute_source("x.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("clashes")
            .constant(constant!(LIGHTS))
            .define("LIGHTS")
            .local_group_size(1)
            .compute_source("x.comp.glsl"),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.comp.glsl"),
        "void main() { vec4 s = vec4(0.0); for (uint i = 0u; i < LIGHTS; i++) s += lights[i]; }\n",
    )
    .unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let v = flow
        .validated("uses_base")
        .unwrap_or_else(|d| panic!("{}", shader_info::render(&d)));
    let m = flow
        .compile(&v, Stage::Compute)
        .unwrap_or_else(|d| panic!("{}", shader_info::render(&d)));
    assert!(!m.module.spirv.is_empty());
    let d = flow
        .validated("clashes")
        .expect_err("a define shadowing a constant");
    assert!(
        d.iter().any(|d| d.message.contains("LIGHTS")),
        "{}",
        shader_info::render(&d)
    );
}
