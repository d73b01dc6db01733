//! Every validation rule, each with a declaration that breaks it, asserting the typed code and that the message
//! names what a user needs: the info, the item, where it came from and what to do.

use shader_info::*;

fn check_with(reg: &Registry, name: &str, complete: bool) -> Vec<Diagnostic> {
    let info = reg.resolve(name).expect("resolves");
    validate(
        &info,
        &ValidateOptions {
            registry: reg,
            extra_type_names: &[],
            require_complete: complete,
        },
    )
}

fn check(info: ShaderCreateInfo) -> Vec<Diagnostic> {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info);
    check_with(&reg, &name, false)
}

fn codes(d: &[Diagnostic]) -> Vec<Code> {
    d.iter().map(|d| d.code).collect()
}

fn graphics(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .vertex_source("v.glsl")
        .fragment_source("f.glsl")
}

#[test]
fn a_valid_info_has_no_diagnostics() {
    let iface = StageInterfaceInfo::new("iface", "")
        .smooth(Type::Vec4, "color")
        .flat(Type::Int, "id");
    let d = check(
        graphics("ok")
            .vertex_in(0, Type::Mat4, "model")
            .vertex_in(4, Type::Vec3, "pos")
            .vertex_out(&iface)
            .fragment_out(0, Type::Vec4, "out_color")
            .push_constant(Type::Mat4, "mvp")
            .sampler(0, ImageType::Float2D, "tex", Frequency::Pass)
            .uniform_buf(0, "vec4", "tint", Frequency::Batch)
            .storage_buf(1, Qualifier::Read, "uint", "ids[]", Frequency::Batch)
            .image(
                2,
                TextureFormat::R32ui,
                Qualifier::Write,
                ImageType::Uint2D,
                "counts",
                Frequency::Batch,
            )
            .specialization_constant(Type::Bool, "use_tint", true),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn binding_collision_names_both_resources_and_their_infos() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("base").sampler(
        3,
        ImageType::Float2D,
        "albedo",
        Frequency::Batch,
    ));
    reg.add_info(
        ShaderCreateInfo::new("child")
            .uniform_buf(3, "vec4", "params", Frequency::Batch)
            .uniform_buf(3, "vec4", "other", Frequency::Pass) // different set: fine
            .additional_info("base"),
    );
    let d = check_with(&reg, "child", false);
    assert_eq!(codes(&d), [Code::BindingCollision]);
    let m = &d[0].message;
    assert!(m.contains("`params`") && m.contains("`albedo`"), "{m}");
    assert!(m.contains("`child`") && m.contains("`base`"), "{m}");
    assert!(m.contains("set 1 binding 3"), "{m}");
    assert!(
        d[0].origin.file.ends_with("validation.rs"),
        "points at the declaration: {:?}",
        d[0].origin
    );
    assert_eq!(d[0].related.len(), 1);
}

#[test]
fn vertex_inputs_overlap_when_a_matrix_spans_locations() {
    let d = check(
        graphics("v")
            .vertex_in(0, Type::Mat4, "model")
            .vertex_in(2, Type::Vec3, "pos"),
    );
    assert_eq!(codes(&d), [Code::VertexInputOverlap]);
    assert!(d[0].message.contains("locations 0..=3"), "{}", d[0].message);
}

#[test]
fn vertex_inputs_out_of_range() {
    let d = check(graphics("v").vertex_in(14, Type::Mat3, "m"));
    assert_eq!(codes(&d), [Code::VertexInputOutOfRange]);
}

#[test]
fn fragment_outputs_on_the_same_location() {
    let d = check(
        graphics("f")
            .fragment_out(1, Type::Vec4, "a")
            .fragment_out(1, Type::Vec4, "b"),
    );
    assert_eq!(codes(&d), [Code::FragmentOutputCollision]);
    assert!(d[0].message.contains("`a`") && d[0].message.contains("`b`"));
}

#[test]
fn dual_source_outputs_share_location_zero() {
    let d = check(
        graphics("f")
            .fragment_out_blend(0, Type::Vec4, "a", DualBlend::Src0)
            .fragment_out_blend(0, Type::Vec4, "b", DualBlend::Src1),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn integer_and_double_interface_members_must_be_flat() {
    let iface = StageInterfaceInfo::new("iface", "v")
        .smooth(Type::Int, "id")
        .no_perspective(Type::UVec2, "mask")
        .smooth(Type::Double, "depth")
        .flat(Type::Int, "ok");
    let d = check(graphics("i").vertex_out(&iface));
    assert_eq!(codes(&d), [Code::InterpolationNotFlat; 3]);
    assert!(d[0].message.contains("`id`") && d[0].message.contains("flat"));
    assert!(
        d[0].hint
            .as_ref()
            .unwrap()
            .contains(".flat(Type::Int, \"id\")")
    );
}

#[test]
fn push_constants_over_128_bytes_print_size_and_members() {
    let d = check(
        graphics("p")
            .push_constant(Type::Mat4, "a")
            .push_constant(Type::Mat4, "b")
            .push_constant(Type::Float, "c"),
    );
    assert_eq!(codes(&d), [Code::PushConstantTooLarge]);
    let m = &d[0].message;
    assert!(m.contains("132 bytes"), "{m}");
    assert!(
        m.contains("a at 0 (64 bytes)") && m.contains("c at 128 (4 bytes)"),
        "{m}"
    );
    // Exactly 128 is fine.
    assert!(
        check(
            graphics("p")
                .push_constant(Type::Mat4, "a")
                .push_constant(Type::Mat4, "b")
        )
        .is_empty()
    );
}

#[test]
fn compute_info_with_graphics_sources() {
    let d = check(
        ShaderCreateInfo::new("c")
            .compute_source("c.glsl")
            .vertex_source("v.glsl")
            .local_group_size(64),
    );
    assert_eq!(codes(&d), [Code::MixedPipelineKinds]);
}

#[test]
fn compute_info_needs_source_and_group_size_when_compilable() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("c").compute_source("c.glsl"));
    reg.add_info(ShaderCreateInfo::new("g").local_group_size(8));
    let d = check_with(&reg, "c", true);
    assert_eq!(codes(&d), [Code::IncompleteInfo]);
    assert!(d[0].message.contains("local group size"));
    let d = check_with(&reg, "g", true);
    assert!(
        codes(&d).iter().all(|c| *c == Code::IncompleteInfo) && d.len() == 2,
        "{}",
        render_all(&d)
    );
    // A building block is not checked for completeness.
    assert!(check_with(&reg, "c", false).is_empty());
}

#[test]
fn graphics_info_needs_vertex_and_fragment() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("v").vertex_source("v.glsl"));
    let d = check_with(&reg, "v", true);
    assert_eq!(codes(&d), [Code::IncompleteInfo]);
    assert!(d[0].message.contains("fragment source is missing"));
}

#[test]
fn zero_local_group_size() {
    let d = check(
        ShaderCreateInfo::new("c")
            .compute_source("c.glsl")
            .local_group_size_2d(8, 0),
    );
    assert_eq!(codes(&d), [Code::ZeroGroupSize]);
}

#[test]
fn duplicate_names_across_kinds() {
    let iface = StageInterfaceInfo::new("iface", "")
        .smooth(Type::Vec4, "color")
        .smooth(Type::Vec4, "color");
    let d = check(
        graphics("d")
            .sampler(0, ImageType::Float2D, "tex", Frequency::Pass)
            .push_constant(Type::Float, "tex")
            .specialization_constant(Type::Int, "count", 1)
            .specialization_constant(Type::Int, "count", 2)
            .vertex_out(&iface),
    );
    assert_eq!(codes(&d), [Code::DuplicateName; 3], "{}", render_all(&d));
    assert!(d.iter().any(|x| x.message.contains("`tex`")
        && x.message.contains("sampler")
        && x.message.contains("push_constant")));
}

#[test]
fn names_that_are_not_usable_identifiers() {
    let d = check(
        graphics("n")
            .push_constant(Type::Float, "gl_thing")
            .push_constant(Type::Float, "a__b")
            .push_constant(Type::Float, "float")
            .push_constant(Type::Float, "3d")
            .define("my-define"),
    );
    assert_eq!(
        codes(&d),
        [Code::InvalidIdentifier; 5],
        "{}",
        render_all(&d)
    );
}

#[test]
fn unknown_buffer_type() {
    let d = check(graphics("u").uniform_buf(0, "ViewDta", "view", Frequency::Pass));
    assert_eq!(codes(&d), [Code::UnknownType]);
    assert!(d[0].message.contains("`ViewDta`"));
    // A registered struct is known.
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("ViewData").field(Field::new(Type::Mat4, "view")));
    reg.add_info(graphics("u").uniform_buf(0, "ViewData", "view", Frequency::Pass));
    assert!(check_with(&reg, "u", false).is_empty());
}

#[test]
fn malformed_array_names_and_runtime_arrays_outside_storage() {
    let d = check(
        graphics("a")
            .sampler(0, ImageType::Float2D, "t[x]", Frequency::Pass)
            .uniform_buf(1, "vec4", "u[]", Frequency::Pass)
            .storage_buf(2, Qualifier::Read, "vec4", "s[]", Frequency::Pass),
    );
    assert_eq!(codes(&d), [Code::InvalidArray; 2], "{}", render_all(&d));
}

#[test]
fn image_format_must_match_the_image_type() {
    let d = check(
        ShaderCreateInfo::new("i")
            .compute_source("c.glsl")
            .local_group_size(1)
            .image(
                0,
                TextureFormat::R32ui,
                Qualifier::Write,
                ImageType::Float2D,
                "a",
                Frequency::Pass,
            )
            .image(
                1,
                TextureFormat::R32f,
                Qualifier::Write,
                ImageType::Shadow2D,
                "b",
                Frequency::Pass,
            ),
    );
    assert_eq!(codes(&d), [Code::InvalidImage; 2]);
    assert!(d[0].message.contains("unsigned integer"));
}

#[test]
fn specialization_constant_types() {
    let d = check(
        graphics("s")
            .specialization_constant(Type::Vec2, "v", 1.0f32)
            .specialization_constant(Type::Uint, "u", 1i32),
    );
    assert_eq!(codes(&d), [Code::InvalidConstant; 2]);
}

#[test]
fn every_problem_is_reported_at_once() {
    let d = check(
        graphics("many")
            .vertex_in(0, Type::Mat4, "m")
            .vertex_in(1, Type::Vec4, "p")
            .fragment_out(0, Type::Vec4, "a")
            .fragment_out(0, Type::Vec4, "b")
            .sampler(0, ImageType::Float2D, "x", Frequency::Pass)
            .sampler(0, ImageType::Float2D, "y", Frequency::Pass)
            .push_constant(Type::Float, "gl_bad"),
    );
    let c = codes(&d);
    for want in [
        Code::VertexInputOverlap,
        Code::FragmentOutputCollision,
        Code::BindingCollision,
        Code::InvalidIdentifier,
    ] {
        assert!(c.contains(&want), "missing {want:?} in {c:?}");
    }
}

#[test]
fn diagnostics_render_like_rustc() {
    let d = check(
        graphics("r")
            .sampler(0, ImageType::Float2D, "a", Frequency::Pass)
            .sampler(0, ImageType::Float2D, "b", Frequency::Pass),
    );
    let text = d[0].to_string();
    assert!(text.starts_with("error[binding-collision]: "), "{text}");
    assert!(
        text.contains("--> ") && text.contains("validation.rs:"),
        "{text}"
    );
    assert!(
        text.contains("= note: info: r, item: sampler `b`"),
        "{text}"
    );
    assert!(text.contains("= help: "), "{text}");
}

#[test]
fn branch_names_colliding_with_defines_resources_and_constants() {
    let d = check(
        graphics("b")
            .define("FOG")
            .branch("FOG")
            .sampler(0, ImageType::Float2D, "shadow", Frequency::Pass)
            .branch("shadow")
            .specialization_constant(Type::Bool, "SKIN", false)
            .branch("SKIN")
            .branch("OK_BRANCH"),
    );
    assert_eq!(codes(&d), [Code::Branch; 3], "{}", render_all(&d));
    assert!(d[0].message.contains("branch `FOG`") && d[0].message.contains("define"));
    assert!(d[1].message.contains("sampler"));
    assert!(d[2].message.contains("specialization_constant"));
}

#[test]
fn huge_sizes_and_locations_are_diagnostics_not_panics() {
    let d = check(
        graphics("huge")
            .push_constant_array(Type::Vec4, "x", 1 << 28)
            .vertex_in(u32::MAX, Type::Mat4, "m"),
    );
    let c = codes(&d);
    assert!(c.contains(&Code::Layout), "{}", render_all(&d));
    assert!(
        c.contains(&Code::VertexInputOutOfRange),
        "{}",
        render_all(&d)
    );
    assert!(d.iter().any(|x| x.message.contains("larger than 4 GiB")));
    let d = check(graphics("huge_ubo").uniform_buf(0, "vec4", "big[268435456]", Frequency::Pass));
    assert_eq!(codes(&d), [Code::Layout], "{}", render_all(&d));
}

#[test]
fn buffers_of_recursive_structs_are_layout_errors() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Node").field(Field::structure("Node", "next")));
    reg.add_info(graphics("rec").storage_buf(
        0,
        Qualifier::Read,
        "Node",
        "nodes[]",
        Frequency::Pass,
    ));
    let d = check_with(&reg, "rec", false);
    assert_eq!(codes(&d), [Code::Layout], "{}", render_all(&d));
    assert!(
        d[0].message.contains("Node → Node") || d[0].message.contains("contains itself"),
        "{}",
        d[0]
    );
}

#[test]
fn fragment_outputs_must_be_attachment_types_within_eight_locations() {
    let d = check(
        graphics("fo")
            .fragment_out(0, Type::Bool, "b")
            .fragment_out(8, Type::Vec4, "far"),
    );
    assert_eq!(
        codes(&d),
        [Code::UnknownType, Code::FragmentOutputCollision],
        "{}",
        render_all(&d)
    );
}

#[test]
fn geometry_and_tessellation_interfaces_that_cannot_be_generated() {
    let vs = StageInterfaceInfo::new("vs_iface", "v").smooth(Type::Vec4, "color");
    let d = check(graphics("g").geometry_source("g.glsl").vertex_out(&vs));
    assert!(
        d.iter()
            .any(|x| x.code == Code::IncompleteInfo && x.message.contains("geometry_out")),
        "{}",
        render_all(&d)
    );
    let d = check(
        graphics("g2")
            .geometry_source("g.glsl")
            .vertex_out(&vs)
            .geometry_out(&vs),
    );
    assert!(
        d.iter().any(|x| x.message.contains("instance name `v`")),
        "{}",
        render_all(&d)
    );
    let d = check(
        graphics("t")
            .stage_source(Stage::TessControl, "t.glsl")
            .vertex_out(&vs),
    );
    assert!(
        d.iter().any(|x| x.message.contains("tessellation")),
        "{}",
        render_all(&d)
    );
}

#[test]
fn branch_names_colliding_with_interface_names() {
    let vs = StageInterfaceInfo::new("vs_iface", "").smooth(Type::Vec4, "FOG");
    let d = check(
        graphics("bi")
            .vertex_in(0, Type::Vec3, "SKIN")
            .branch("SKIN")
            .vertex_out(&vs)
            .branch("FOG"),
    );
    assert_eq!(codes(&d), [Code::Branch; 2], "{}", render_all(&d));
}
