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
    // A sampler and a buffer on one slot is Blender's per-kind numbering: the hint names the way to declare it.
    assert!(
        d[0].hint
            .as_deref()
            .unwrap_or("")
            .contains(".slots_per_kind()"),
        "{:?}",
        d[0].hint
    );
}

/// Blender's numbering: one slot space per kind. Inherited through `additional_info`, kinds side by side are
/// fine, the same kind twice on one slot is still a collision (said in the declared slots), and a derived binding
/// past the limit names the slot it came from.
#[test]
fn slots_per_kind_separate_kinds_and_still_catch_one_kind_twice() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("lib")
            .slots_per_kind()
            .uniform_buf(0, "vec4", "globals", Frequency::Pass)
            .uniform_buf(1, "vec4", "view", Frequency::Pass),
    );
    reg.add_info(
        graphics("ok")
            .additional_info("lib")
            .sampler(0, ImageType::Float2D, "albedo", Frequency::Pass)
            .sampler(1, ImageType::Float2D, "normals", Frequency::Pass)
            .storage_buf(0, Qualifier::Read, "vec4", "lights[]", Frequency::Pass)
            .image(
                0,
                TextureFormat::Rgba8,
                Qualifier::Write,
                ImageType::Float2D,
                "out_img",
                Frequency::Pass,
            )
            .sampler(0, ImageType::Float2D, "other_set", Frequency::Batch),
    );
    let d = check_with(&reg, "ok", false);
    assert!(d.is_empty(), "{}", render_all(&d));
    let info = reg.resolve("ok").unwrap();
    let b = |n: &str| {
        let r = &info
            .resources
            .iter()
            .find(|r| r.value.name == n)
            .unwrap()
            .value;
        (r.set(), r.binding)
    };
    // Set 0 (pass): uniforms 0-1, storage 2, samplers 3-4, image 5; set 1 (batch) starts over.
    assert_eq!(
        [
            b("globals"),
            b("view"),
            b("lights[]"),
            b("albedo"),
            b("normals"),
            b("out_img")
        ],
        [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]
    );
    assert_eq!(b("other_set"), (1, 0));

    reg.add_info(graphics("twice").additional_info("lib").uniform_buf(
        1,
        "vec4",
        "params",
        Frequency::Pass,
    ));
    let d = check_with(&reg, "twice", false);
    assert_eq!(codes(&d), [Code::BindingCollision]);
    assert!(
        d[0].message.contains("uniform_buf slot 1 of set 0"),
        "{}",
        d[0].message
    );
    assert!(d[0].message.contains("`view`") && d[0].message.contains("`params`"));

    reg.add_info(graphics("far").additional_info("lib").sampler(
        MAX_BINDING,
        ImageType::Float2D,
        "far_away",
        Frequency::Pass,
    ));
    let d = check_with(&reg, "far", false);
    assert_eq!(codes(&d), [Code::OutOfRange]);
    assert!(
        d[0].message
            .contains(&format!("derived from its slot {MAX_BINDING} per kind")),
        "{}",
        d[0].message
    );
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
fn a_vertex_input_shares_its_name_with_a_fragment_output_but_two_fragment_outputs_do_not() {
    // Another stage's name: no collision.
    let d = check(
        graphics("v")
            .vertex_in(0, Type::Float, "data")
            .fragment_out(0, Type::Float, "data"),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
    // Two of one stage after the other stage's: compared with each other, not only with the first of the name.
    for second_input in [false, true] {
        let mut info = graphics("v")
            .vertex_in(0, Type::Float, "data")
            .fragment_out(1, Type::Float, "data")
            .fragment_out(0, Type::Float, "data");
        if second_input {
            info = info.vertex_in(1, Type::Float, "data");
        }
        let d = check(info);
        let expected = if second_input { 2 } else { 1 };
        assert_eq!(
            codes(&d),
            vec![Code::DuplicateName; expected],
            "{}",
            render_all(&d)
        );
        assert!(
            d.iter()
                .all(|d| d.is_error() && d.message.contains("`data`")),
            "{}",
            render_all(&d)
        );
    }
}

#[test]
fn a_name_the_portable_flavor_declares_does_not_hide_a_real_duplicate() {
    // `gpu_inverse` is the portable flavor's polyfill: each output alone is a translation warning; two of them are
    // an error, whichever came first.
    let d = check(
        graphics("v")
            .fragment_out(0, Type::Vec4, "gpu_inverse")
            .fragment_out(1, Type::Vec4, "gpu_inverse"),
    );
    assert!(
        d.iter().any(|d| d.is_error()
            && d.code == Code::DuplicateName
            && d.message
                .contains("as fragment_out (in `v`) and as fragment_out")),
        "{}",
        render_all(&d)
    );
    // A push constant and a member of a block without an instance name, global in the same stages.
    let d = check(
        graphics("v")
            .push_constant(Type::Vec4, "gpu_inverse")
            .vertex_out(&StageInterfaceInfo::new("VOut", "").smooth(Type::Vec4, "gpu_inverse")),
    );
    assert!(
        d.iter()
            .any(|d| d.is_error() && d.message.contains("as push_constant")),
        "{}",
        render_all(&d)
    );
}

#[test]
fn macros_and_types_named_like_layout_qualifiers_are_refused_variables_are_not() {
    for (info, item) in [
        (graphics("v").define("location"), "define `location`"),
        (graphics("v").define_value("rgba8", "1"), "define `rgba8`"),
        (
            graphics("v")
                .subpass_in(0, Type::Vec4, "binding")
                .fragment_out(0, Type::Vec4, "o"),
            "subpass input `binding`",
        ),
    ] {
        let d = check(info.vertex_in(0, Type::Vec3, "pos"));
        assert_eq!(codes(&d), [Code::InvalidIdentifier], "{}", render_all(&d));
        assert_eq!(d[0].item.as_deref(), Some(item));
        assert!(
            d[0].message.contains("layout qualifier"),
            "{}",
            d[0].message
        );
    }
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("location").field(Field::new(Type::Vec4, "a")));
    reg.add_info(graphics("v").uniform_buf(0, "location", "u", Frequency::Batch));
    let d = check_with(&reg, "v", false);
    assert_eq!(codes(&d), [Code::InvalidIdentifier], "{}", render_all(&d));
    assert!(
        d[0].message
            .contains("is a type named like the layout qualifier `location`")
    );
    // A variable of such a name is fine: glslang reads `location` in `layout(…)` as the qualifier still.
    let d = check(
        graphics("v")
            .vertex_in(0, Type::Vec3, "location")
            .fragment_out(0, Type::Vec4, "binding"),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn interface_blocks_of_one_stage_share_its_global_names_across_their_lists() {
    // The geometry stage reads `vertex_out` through the instance `vert` and writes `GOut`'s member `vert`.
    let d = check(
        ShaderCreateInfo::new("g")
            .vertex_out(&StageInterfaceInfo::new("VOut", "vert").smooth(Type::Vec4, "color"))
            .geometry_out(&StageInterfaceInfo::new("GOut", "").smooth(Type::Vec4, "vert"))
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .vertex_source("v.glsl")
            .geometry_source("g.glsl")
            .fragment_source("f.glsl"),
    );
    assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
    assert!(
        d[0].message.contains(
            "the geom stage declares `vert` twice at global scope: as the instance name of vertex_out `VOut` \
             and as the member `vert` of geometry_out `GOut`"
        ),
        "{}",
        d[0].message
    );
    // Tessellation: the evaluation stage reads `PatchOut` and writes `TeOut`, both without instance names; one
    // block name for the control stage's `out` and `patch out` is refused too ("Cannot reuse block name").
    let tess = |patch_block: &str, patch_instance: &str| {
        ShaderCreateInfo::new("t")
            .vertex_out(&StageInterfaceInfo::new("VOut", "v").smooth(Type::Vec4, "p"))
            .tess_control_out(&StageInterfaceInfo::new("TcOut", "tc").smooth(Type::Vec4, "p"))
            .tess_patch_out(
                &StageInterfaceInfo::new(patch_block, patch_instance).smooth(Type::Float, "level"),
            )
            .tess_evaluation_out(&StageInterfaceInfo::new("TeOut", "").smooth(Type::Float, "level"))
            .tessellation_layout(
                3,
                TessDomain::Triangles,
                TessSpacing::Equal,
                FrontFace::CounterClockwise,
            )
            .vertex_source("v.glsl")
            .tess_control_source("c.glsl")
            .tess_evaluation_source("e.glsl")
            .fragment_source("f.glsl")
    };
    let d = check(tess("PatchOut", ""));
    assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
    assert!(
        d[0].message
            .contains("the tese stage declares `level` twice"),
        "{}",
        d[0].message
    );
    let d = check(tess("TcOut", "pd"));
    assert_eq!(codes(&d), [Code::DuplicateName; 2], "{}", render_all(&d));
    assert!(
        d[0].message
            .contains("the tesc stage declares two out blocks named `TcOut`")
            && d[1]
                .message
                .contains("the tese stage declares two in blocks named `TcOut`"),
        "{}",
        render_all(&d)
    );
    // One block name read and written by the geometry stage: two interfaces, fine.
    let d = check(
        ShaderCreateInfo::new("g")
            .vertex_out(&StageInterfaceInfo::new("Data", "v").smooth(Type::Vec4, "q"))
            .geometry_out(&StageInterfaceInfo::new("Data", "g").smooth(Type::Vec4, "q"))
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .vertex_source("v.glsl")
            .geometry_source("g.glsl")
            .fragment_source("f.glsl"),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn a_block_name_is_global_in_the_stages_that_declare_the_block() {
    let vs = StageInterfaceInfo::new("VsOut", "vs").smooth(Type::Vec4, "color");
    let geometry = |out: StageInterfaceInfo| {
        ShaderCreateInfo::new("g")
            .vertex_out(&vs)
            .geometry_out(&out)
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .vertex_source("v.glsl")
            .geometry_source("g.glsl")
            .fragment_source("f.glsl")
    };
    // glslang: "block instance name redefinition", and "nameless block contains a member that already has a name".
    for (out, as_what) in [
        (
            StageInterfaceInfo::new("GsOut", "VsOut").smooth(Type::Vec4, "color"),
            "instance name of geometry_out `GsOut`",
        ),
        (
            StageInterfaceInfo::new("GsOut", "").smooth(Type::Vec4, "VsOut"),
            "member `VsOut` of geometry_out `GsOut`",
        ),
    ] {
        let d = check(geometry(out));
        assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
        assert!(
            d[0].message.contains(&format!(
                "declares `VsOut` twice at global scope: as the block name of vertex_out `VsOut` and as the {as_what}"
            )),
            "{}",
            d[0].message
        );
    }
    // One block read and written (the interface passed through): two interfaces, fine.
    let d = check(geometry(
        StageInterfaceInfo::new("VsOut", "gs").smooth(Type::Vec4, "color"),
    ));
    assert!(d.is_empty(), "{}", render_all(&d));
}

#[test]
fn names_the_generator_derives_keep_to_glslangs_length() {
    for (info, what) in [
        (
            graphics("v").branch("B".repeat(1020)),
            "the macro of branch",
        ),
        (
            graphics("v").uniform_buf(0, "vec4", "a".repeat(1024), Frequency::Pass),
            "the block of uniform_buf",
        ),
    ] {
        let d = check(info);
        assert!(
            d.iter().any(|d| d.is_error()
                && d.message.starts_with(what)
                && d.message.contains("past the 1024 glslang takes")),
            "{}",
            render_all(&d)
        );
    }
}

#[test]
fn geometry_and_tessellation_layouts_that_glslang_or_vulkan_refuse() {
    let d = check(
        graphics("g")
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 0)
            .geometry_source("g.glsl"),
    );
    assert_eq!(codes(&d), [Code::OutOfRange], "{}", render_all(&d));
    assert!(d[0].message.contains("emits at most 0 vertices"));
    // What reaches the geometry stage must be what it takes: the declared topology (lists with adjacency for an
    // adjacency input, as Blender draws them; without a declared one the plan takes it from the input), and the
    // tessellator's lines (isolines) or triangles.
    let complete = |info: ShaderCreateInfo| {
        let mut reg = Registry::new();
        reg.add_info(info);
        check_with(&reg, "g", true)
    };
    let adjacency = || {
        graphics("g")
            .geometry_layout(
                PrimitiveIn::TrianglesAdjacency,
                PrimitiveOut::TriangleStrip,
                3,
            )
            .geometry_source("g.glsl")
    };
    let d = complete(adjacency());
    assert!(d.is_empty(), "{}", render_all(&d));
    let d = complete(adjacency().topology(Topology::TriangleStripWithAdjacency));
    assert!(d.is_empty(), "{}", render_all(&d));
    let d = complete(adjacency().topology(Topology::TriangleList));
    assert_eq!(codes(&d), [Code::RenderState], "{}", render_all(&d));
    assert!(
        d[0].message
            .contains("but the geometry stage takes TrianglesAdjacency"),
        "{}",
        d[0].message
    );
    let tessellated = |domain: TessDomain, input: PrimitiveIn| {
        complete(
            graphics("g")
                .vertex_out(&StageInterfaceInfo::new("VOut", "v").smooth(Type::Vec4, "p"))
                .tess_control_out(&StageInterfaceInfo::new("TcOut", "tc").smooth(Type::Vec4, "p"))
                .tess_evaluation_out(
                    &StageInterfaceInfo::new("TeOut", "te").smooth(Type::Vec4, "p"),
                )
                .geometry_out(&StageInterfaceInfo::new("GOut", "g").smooth(Type::Vec4, "p"))
                .tessellation_layout(3, domain, TessSpacing::Equal, FrontFace::CounterClockwise)
                .geometry_layout(input, PrimitiveOut::LineStrip, 2)
                .tess_control_source("c.glsl")
                .tess_evaluation_source("e.glsl")
                .geometry_source("g.glsl"),
        )
    };
    let d = tessellated(TessDomain::Isolines, PrimitiveIn::Triangles);
    assert_eq!(codes(&d), [Code::RenderState], "{}", render_all(&d));
    assert!(
        d[0].message.contains("Isolines domain gives it lines"),
        "{}",
        d[0].message
    );
    for (domain, input) in [
        (TessDomain::Isolines, PrimitiveIn::Lines),
        (TessDomain::Quads, PrimitiveIn::Triangles),
    ] {
        let d = tessellated(domain, input);
        assert!(d.is_empty(), "{}", render_all(&d));
    }
    // A complete info (a building block may take its layout from another).
    let mut reg = Registry::new();
    reg.add_info(
        graphics("t")
            .tess_control_source("c.glsl")
            .tess_evaluation_source("e.glsl"),
    );
    let d = check_with(&reg, "t", true);
    assert!(
        d.iter().any(|d| d.code == Code::IncompleteInfo
            && d.message == "tessellation sources need a tessellation layout"),
        "{}",
        render_all(&d)
    );
}

#[test]
fn dual_source_blending_takes_two_sources_of_one_type_and_nothing_else() {
    let both = || {
        graphics("d")
            .fragment_out_blend(0, Type::Vec4, "c0", DualBlend::Src0)
            .fragment_out_blend(0, Type::Vec4, "c1", DualBlend::Src1)
    };
    assert!(check(both()).is_empty(), "{}", render_all(&check(both())));
    for (info, item, says) in [
        (
            graphics("d").fragment_out_blend(0, Type::Vec4, "c0", DualBlend::Src0),
            "fragment_out `c0`",
            "has no other source",
        ),
        (
            graphics("d")
                .fragment_out_blend(0, Type::Vec4, "c0", DualBlend::Src0)
                .fragment_out_blend(0, Type::Vec2, "c1", DualBlend::Src1),
            "fragment_out `c1`",
            "have two types",
        ),
        (
            both().fragment_out(1, Type::Vec4, "extra"),
            "fragment_out `extra`",
            "beside the dual-source outputs",
        ),
    ] {
        let d = check(info);
        assert_eq!(
            codes(&d),
            [Code::FragmentOutputCollision],
            "{}",
            render_all(&d)
        );
        assert_eq!(d[0].item.as_deref(), Some(item));
        assert!(d[0].message.contains(says), "{}", d[0].message);
    }
}

#[test]
fn a_macro_is_checked_against_every_member_of_its_name() {
    // The struct field `albedo` comes first (a warning: code reading it breaks); the interface member `albedo`,
    // declared after the subpass input's macro, is rewritten in its declaration: an error.
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Material").field(Field::new(Type::Vec4, "albedo")));
    reg.add_info(
        graphics("v")
            .uniform_buf(0, "Material", "material", Frequency::Batch)
            .subpass_in(0, Type::Vec4, "albedo")
            .vertex_out(&StageInterfaceInfo::new("VOut", "v").smooth(Type::Vec4, "albedo"))
            .fragment_out(0, Type::Vec4, "frag_color"),
    );
    let d = check_with(&reg, "v", false);
    assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
    assert!(
        d[0].is_error()
            && d[0]
                .message
                .contains("would rewrite the member of interface `VOut` `albedo`"),
        "{}",
        d[0].message
    );
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
            .specialization_constant(Type::Uint, "u", -1i32),
    );
    assert_eq!(codes(&d), [Code::InvalidConstant; 2]);
    // A default that converts without loss is converted, as Blender does (`2` for a float constant is `2.0`).
    let info = graphics("s2")
        .specialization_constant(Type::Uint, "u", 1i32)
        .specialization_constant(Type::Float, "f", 2i32);
    assert!(!check(info.clone()).iter().any(|d| d.is_error()));
    assert_eq!(
        info.specialization_constants[1].value.default,
        ConstValue::Float(2.0)
    );
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
    // Work-group memory past what any device can report (a 32-bit count), sized by a compilation constant: naga
    // panicked translating it. Within that count, past the guarantee, it stays a warning.
    let compute = |name: &str, count: i32| {
        check(
            ShaderCreateInfo::new(name)
                .compute_source("c.glsl")
                .local_group_size(64)
                .compilation_constant("COUNT", count)
                .shared_variable(Type::Float, "cache[COUNT]"),
        )
    };
    let d = compute("huge_shared", i32::MAX);
    assert_eq!(codes(&d), [Code::OutOfRange], "{}", render_all(&d));
    assert!(d[0].is_error() && d[0].message.contains("8589934588 bytes"));
    let d = compute("big_shared", 1 << 20);
    assert_eq!(codes(&d), [Code::WorkGroupSize], "{}", render_all(&d));
    assert!(!d[0].is_error());
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
fn stage_interfaces_must_chain_through_the_stages_present() {
    let vs = StageInterfaceInfo::new("vs_iface", "v").smooth(Type::Vec4, "color");
    let d = check(graphics("g").geometry_source("g.glsl").vertex_out(&vs));
    assert!(
        d.iter()
            .any(|x| x.code == Code::IncompleteInfo && x.message.contains("reads `geometry_out`")),
        "{}",
        render_all(&d)
    );
    // One interface on both sides of the geometry stage under one instance name is fine: its input is renamed.
    let d = check(
        graphics("g2")
            .geometry_source("g.glsl")
            .vertex_out(&vs)
            .geometry_out(&vs),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
    // Two outputs of one stage under one instance name are not.
    let other = StageInterfaceInfo::new("other_iface", "v").smooth(Type::Vec4, "x");
    let d = check(graphics("g3").vertex_out(&vs).vertex_out(&other));
    assert!(
        d.iter().any(|x| x.code == Code::DuplicateName
            && x.message.contains("instance name `v`")
            && x.message.contains("vert stage")),
        "{}",
        render_all(&d)
    );
    // A tessellation stage alone, and interfaces or a layout without their stage.
    let d = check(graphics("t").tess_control_source("t.glsl").vertex_out(&vs));
    assert!(
        d.iter().any(|x| x.message.contains("no evaluation stage")),
        "{}",
        render_all(&d)
    );
    let d = check(graphics("t2").tess_patch_out(&vs).tessellation_layout(
        40,
        TessDomain::Quads,
        TessSpacing::Equal,
        FrontFace::Clockwise,
    ));
    let text = render_all(&d);
    assert!(
        text.contains("`tess_patch_out` is declared but the info has no tesc stage"),
        "{text}"
    );
    assert!(text.contains("no tessellation stages"), "{text}");
    assert!(text.contains("40 control points"), "{text}");
    // Items without their stage are only warnings (a variant may add the stage); the bad patch size is an error.
    assert!(
        d.iter()
            .filter(|x| x.message.contains("is declared but"))
            .all(|x| x.severity == Severity::Warning),
        "{text}"
    );
    assert!(
        d.iter()
            .any(|x| x.message.contains("40 control points") && x.is_error()),
        "{text}"
    );
    // With tessellation the fragment stage reads what the evaluation stage writes.
    let d = check(
        graphics("t3")
            .tess_control_source("t.tesc")
            .tess_evaluation_source("t.tese")
            .vertex_out(&vs)
            .tess_control_out(&vs),
    );
    assert!(
        d.iter()
            .any(|x| x.message.contains("reads `tess_evaluation_out`")),
        "{}",
        render_all(&d)
    );
}

/// A branch becomes `const bool <name>` and `#define BRANCH_<name>`: every global name of the info is a collision,
/// the block `_<name>` of a buffer and the generated push-constant block included, and so is a name its macro takes.
#[test]
fn branch_names_colliding_with_blocks_constants_and_their_macros() {
    let d = check(
        graphics("bb")
            .uniform_buf(0, "vec4", "b", Frequency::Pass)
            .branch("_b")
            .push_constant(Type::Vec4, "tint")
            .branch(shader_info::PushConstantSpill::NAME)
            .define("BRANCH_FOG")
            .branch("FOG")
            .storage_buf(
                1,
                Qualifier::Read,
                "float",
                "BRANCH_SKIN[]",
                Frequency::Pass,
            )
            .branch("SKIN")
            .branch("OK_BRANCH"),
    );
    assert_eq!(codes(&d), [Code::Branch; 4], "{}", render_all(&d));
    assert!(
        d.iter()
            .all(|x| x.item.as_deref().is_some_and(|i| i.starts_with("branch"))),
        "{}",
        render_all(&d)
    );
    assert!(
        d[0].message.contains("branch `_b`") && d[0].message.contains("uniform"),
        "{}",
        render_all(&d)
    );
    assert!(
        d[2].message.contains("macro `BRANCH_FOG`") && d[2].message.contains("define"),
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

/// The portable flavor (what every translation starts from) declares names of its own: the struct
/// `gpu_<block>_in` and the variables `gpu_in_<instance>_<member>` of a fragment input block with an instance name,
/// `gpu_spec<id>_value` per specialization constant, `<sampler>_texture` and `<sampler>_sampler` for each combined
/// sampler (and the macro `<sampler>`), and the OpenGL targets' `gpu_push_constants`. A declared item of one of those
/// names is a `translation` warning at that item (the SPIR-V is fine), and the portable flavor's generation refuses
/// with it as its error, instead of glslang's error in generated code.
#[test]
fn names_the_portable_flavor_declares_collide_with_declared_items() {
    let vs = StageInterfaceInfo::new("VsOut", "v")
        .smooth(Type::Vec4, "color")
        .smooth(Type::Vec2, "b_c");
    let other = StageInterfaceInfo::new("Other", "v_b").flat(Type::Int, "c");
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Light").field(Field::new(Type::Vec4, "shadow_map")));
    reg.add_info(
        graphics("pn")
            .vertex_out(&vs)
            .vertex_out(&other)
            .sampler(0, ImageType::Float2D, "gpu_in_v_color", Frequency::Pass)
            .push_constant(Type::Vec4, "gpu_VsOut_in")
            .specialization_constant(Type::Bool, "gpu_spec1_value", false)
            .specialization_constant(Type::Int, "levels", 2)
            .storage_buf(
                1,
                Qualifier::Read,
                "float",
                "gpu_push_constants[]",
                Frequency::Pass,
            )
            .sampler(2, ImageType::Float2D, "albedo", Frequency::Pass)
            .sampler(3, ImageType::Float2D, "albedo_texture", Frequency::Pass)
            .sampler(4, ImageType::Shadow2D, "shadow_map", Frequency::Pass)
            .push_constant(Type::Float, "gpu_stage_main")
            .uniform_buf(5, "Light", "light", Frequency::Pass),
    );
    let d = check_with(&reg, "pn", false);
    let mut expected = vec![Code::Translation; 7];
    expected.push(Code::DuplicateName);
    assert_eq!(codes(&d), expected, "{}", render_all(&d));
    assert!(d.iter().all(|x| !x.is_error()), "{}", render_all(&d));
    let said = |needle: &str| d.iter().any(|x| x.message.contains(needle));
    assert!(
        said("`gpu_in_v_color` is declared twice")
            && said("`gpu_VsOut_in` is declared twice")
            && said("specialization constant `levels` (in `pn`)")
            && said("`gpu_in_v_b_c` is declared twice")
            && said("OpenGL uniform of the push constants")
            && said("`albedo_texture` is declared twice")
            && said("rewrites the field of shared struct `Light` `shadow_map`"),
        "{}",
        render_all(&d)
    );
    // A combined sampler's portable macro comes before the interface blocks: a member of its name is rewritten in
    // its declaration, which refuses the translations too.
    reg.add_info(
        graphics("pn_block")
            .sampler(0, ImageType::Float2D, "tint", Frequency::Pass)
            .vertex_out(&StageInterfaceInfo::new("VsOut", "v").smooth(Type::Vec4, "tint")),
    );
    let d = check_with(&reg, "pn_block", false);
    assert_eq!(codes(&d), [Code::Translation], "{}", render_all(&d));
    assert!(
        !d[0].is_error()
            && d[0]
                .message
                .contains("rewrites the declaration of the member of interface")
    );
    // The portable flavor refuses with the `translation` warnings as errors (a member a macro rewrites fails only
    // where code reads it, which glslang then says at that line).
    let info = reg.validated("pn").expect("only warnings");
    let loader = DirLoader::new("no-such-dir");
    let portable = GenerateOptions::new(&loader, &reg).flavor(Flavor::Portable);
    let refused = generate(&info, Stage::Fragment, &portable).expect_err("refused");
    assert_eq!(
        codes(&refused),
        [Code::Translation; 7],
        "{}",
        render_all(&refused)
    );
    assert!(refused.iter().all(Diagnostic::is_error));
    // Near names, and the same names where the portable flavor declares none (no instance name), are fine.
    let plain = StageInterfaceInfo::new("VsOut", "").smooth(Type::Vec4, "color");
    let d = check(
        graphics("pn_ok")
            .vertex_out(&plain)
            .sampler(0, ImageType::Float2D, "gpu_in_v_color", Frequency::Pass)
            .push_constant(Type::Vec4, "gpu_VsOut_in")
            .specialization_constant(Type::Bool, "gpu_spec0_valu", false)
            .sampler(1, ImageType::Float2D, "albedo", Frequency::Pass)
            .sampler(2, ImageType::Float2D, "albedo_tex", Frequency::Pass),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

/// A subpass input is read through the macro `#define <name> subpassLoad(…)`: a resource of its name was silently
/// the attachment's value (the macro won), an error; a struct member of its name is rewritten where code reads it,
/// a warning.
#[test]
fn subpass_input_names_are_global_names_and_macros() {
    let mut reg = Registry::new();
    reg.add_struct(StructDef::new("Material").field(Field::new(Type::Vec4, "albedo")));
    reg.add_info(
        graphics("sp")
            .fragment_out(0, Type::Vec4, "color")
            .subpass_in(1, Type::Vec4, "albedo")
            .sampler(0, ImageType::Float2D, "normal", Frequency::Pass)
            .subpass_in(2, Type::Vec4, "normal")
            .uniform_buf(3, "Material", "material", Frequency::Pass),
    );
    reg.add_info(
        graphics("sp_block")
            .fragment_out(0, Type::Vec4, "color")
            .subpass_in(1, Type::Vec4, "albedo")
            .vertex_out(&StageInterfaceInfo::new("VsOut", "v").smooth(Type::Vec4, "albedo")),
    );
    // Interface blocks come after the subpass values: the macro rewrites the member's declaration.
    let d = check_with(&reg, "sp_block", false);
    assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
    assert!(
        d[0].is_error()
            && d[0]
                .message
                .contains("would rewrite the member of interface `VsOut`")
    );
    let d = check_with(&reg, "sp", false);
    assert_eq!(codes(&d), [Code::DuplicateName; 2], "{}", render_all(&d));
    assert!(d[0].is_error() && !d[1].is_error(), "{}", render_all(&d));
    assert!(
        d[0].message.contains("`normal` is declared twice") && d[0].message.contains("subpass_in"),
        "{}",
        render_all(&d)
    );
    assert!(
        d[1].message.contains(
            "subpass input `albedo` is a macro that rewrites the field of shared struct `Material`"
        ),
        "{}",
        render_all(&d)
    );
}

/// The tessellation and geometry stages name blocks themselves: an input whose instance name the stage's output
/// takes is `<instance>_in`, an arrayed block without an instance name `<block>_in`/`<block>_out`, and the geometry
/// stage writes a block it passes through as the macro `<instance>_out`. A declared item of one of those names is a
/// collision at that item (glslang said "block instance name redefinition" or "Macro redefined" in generated code,
/// or, for a sampler, the macro silently made the name the block's).
#[test]
fn names_the_tessellation_and_geometry_stages_give_blocks_collide_with_declared_items() {
    let v = StageInterfaceInfo::new("VertOut", "v").smooth(Type::Vec3, "normal");
    let geometry = |name: &str| {
        graphics(name)
            .geometry_source("g.geom")
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .vertex_out(&v)
            .geometry_out(&v)
    };
    let d = check(
        geometry("g")
            .sampler(0, ImageType::Float2D, "v_in", Frequency::Pass)
            .define("v_out"),
    );
    assert_eq!(codes(&d), [Code::DuplicateName; 2], "{}", render_all(&d));
    assert!(
        d[0].message.contains("`v_in`")
            && d[0]
                .message
                .contains("geometry stage gives interface `VertOut`"),
        "{}",
        render_all(&d)
    );
    assert!(
        d[1].message.contains("`v_out`") && d[1].message.contains("macro"),
        "{}",
        render_all(&d)
    );
    // The pass-through alone, and names near the generated ones, are fine.
    let d = check(
        geometry("g_ok")
            .sampler(0, ImageType::Float2D, "v_inner", Frequency::Pass)
            .push_constant(Type::Float, "v_outer"),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
    // An arrayed block without an instance name: the tessellation control stage reads `VsOut_in[]`.
    let plain = StageInterfaceInfo::new("VsOut", "").smooth(Type::Vec3, "pos");
    let d = check(
        graphics("t")
            .tess_control_source("t.tesc")
            .tess_evaluation_source("t.tese")
            .vertex_out(&plain)
            .tess_control_out(&StageInterfaceInfo::new("TcOut", "").smooth(Type::Vec3, "p"))
            .tess_evaluation_out(&StageInterfaceInfo::new("TeOut", "").smooth(Type::Vec3, "q"))
            .push_constant(Type::Float, "VsOut_in"),
    );
    assert_eq!(codes(&d), [Code::DuplicateName], "{}", render_all(&d));
    assert!(
        d[0].message
            .contains("tessellation control stage gives interface `VsOut`"),
        "{}",
        render_all(&d)
    );
}

/// A macro named like a swizzle (`x`, `xy`, `rgb`, `st`, …) rewrites every `.x` after it. A subpass input is read
/// through a macro of its name, and its generated read uses `.xy`, `.x` and `.xyz`: a subpass input of such a name
/// is an error, and so is a define `x`, `xy` or `xyz` beside subpass inputs; elsewhere such a define, shared enum or
/// (in the translations) combined sampler is a warning.
#[test]
fn macros_named_like_swizzles() {
    let d = check(graphics("sw").subpass_in(1, Type::Vec4, "rgb"));
    assert_eq!(codes(&d), [Code::InvalidIdentifier], "{}", render_all(&d));
    assert!(d[0].is_error() && d[0].message.contains("every `.rgb`"));
    let d = check(
        graphics("sw_define")
            .subpass_in(1, Type::Vec4, "albedo")
            .define("xy"),
    );
    assert_eq!(codes(&d), [Code::InvalidIdentifier], "{}", render_all(&d));
    assert!(d[0].is_error(), "{}", render_all(&d));
    let d = check(graphics("sw_warn").define("w").sampler(
        0,
        ImageType::Float2D,
        "st",
        Frequency::Pass,
    ));
    assert_eq!(
        codes(&d),
        [Code::InvalidIdentifier; 2],
        "{}",
        render_all(&d)
    );
    assert!(d.iter().all(|x| !x.is_error()), "{}", render_all(&d));
    assert!(
        d[1].message.contains("in the translations' GLSL"),
        "{}",
        render_all(&d)
    );
    // Near names are not swizzles.
    let d = check(
        graphics("sw_ok")
            .subpass_in(1, Type::Vec4, "xyzw2")
            .define("RGB")
            .sampler(0, ImageType::Float2D, "str", Frequency::Pass),
    );
    assert!(d.is_empty(), "{}", render_all(&d));
}

/// With `blender_compat`, every stage starts with the Blender prelude's macros (`#define float2 vec2`, …): a
/// declared item, block or member of such a name was glslang's error in generated code, and a define of one a
/// "macro redefined". Now an error at the item. A function-like prelude macro is expanded only before `(`, so
/// only a define may not take its name; the prelude's own definition again is allowed (GLSL allows it).
#[test]
fn names_the_blender_prelude_defines_are_taken() {
    let iface = StageInterfaceInfo::new("float3", "").smooth(Type::Vec4, "int2");
    let d = check(
        graphics("bp")
            .sampler(0, ImageType::Float2D, "float2", Frequency::Pass)
            .push_constant(Type::Int, "USE_GPU_SHADER_CREATE_INFO")
            .define_value("uint4", "1")
            .define("BLI_STATIC_ASSERT(a, b)")
            .subpass_in(0, Type::Vec4, "BLI_STATIC_ASSERT_ALIGN")
            .vertex_out(&iface)
            .blender_compat(),
    );
    assert_eq!(codes(&d), [Code::DuplicateName; 7], "{}", render_all(&d));
    assert!(d.iter().all(Diagnostic::is_error));
    for needle in [
        "sampler `float2` takes the name of a macro of the Blender prelude (`#define float2 vec2`)",
        "push_constant `USE_GPU_SHADER_CREATE_INFO`",
        "define `uint4`",
        "define `BLI_STATIC_ASSERT`",
        "subpass input `BLI_STATIC_ASSERT_ALIGN`",
        "interface block `float3`",
        "member of interface `float3` `int2`",
    ] {
        assert!(
            d.iter().any(|x| x.message.contains(needle)),
            "{needle}:\n{}",
            render_all(&d)
        );
    }
    // The same names without the prelude, the prelude's own definitions again, and a function-like macro's name
    // on an item are fine.
    let plain = check(
        graphics("bp_plain")
            .sampler(0, ImageType::Float2D, "float2", Frequency::Pass)
            .define_value("uint4", "1"),
    );
    assert!(plain.is_empty(), "{}", render_all(&plain));
    let ok = check(
        graphics("bp_ok")
            .define_value("float2", "vec2")
            .define("BLI_STATIC_ASSERT(cond,  msg)")
            .push_constant(Type::Int, "BLI_STATIC_ASSERT_SIZE")
            .blender_compat(),
    );
    assert!(ok.is_empty(), "{}", render_all(&ok));
    // A combined sampler is a macro of its name in the translations only: there, a function-like prelude name is
    // redefined (a `translation` warning; the SPIR-V is fine).
    let d = check(
        graphics("bp_sampler")
            .sampler(0, ImageType::Float2D, "BLI_STATIC_ASSERT", Frequency::Pass)
            .blender_compat(),
    );
    assert_eq!(codes(&d), [Code::Translation], "{}", render_all(&d));
    assert!(
        !d[0].is_error()
            && d[0]
                .message
                .contains("a second definition of the Blender prelude's")
    );
}

/// The portable flavor's polyfill `gpu_inverse` and its macro `inverse`: a declared item of either name fails every
/// translation (a `translation` warning; the SPIR-V is fine).
#[test]
fn names_the_portable_polyfills_take() {
    let d = check(
        graphics("poly")
            .specialization_constant(Type::Bool, "inverse", false)
            .push_constant(Type::Mat4, "gpu_inverse"),
    );
    // `inverse` is also a built-in function the constant hides (a warning of its own).
    let translation = d.iter().filter(|x| x.code == Code::Translation).count();
    assert_eq!((translation, d.len()), (2, 3), "{}", render_all(&d));
    assert!(d.iter().all(|x| !x.is_error()), "{}", render_all(&d));
    for needle in [
        "`inverse` is declared twice",
        "`gpu_inverse` is declared twice",
    ] {
        assert!(
            d.iter().any(|x| x.message.contains(needle)
                && x.message
                    .contains("the translations' polyfill of `inverse`")),
            "{needle}:\n{}",
            render_all(&d)
        );
    }
}

/// A global named like a GLSL built-in function hides the function: a warning at the item (a stage that never calls
/// it compiles), an error where generated code calls it (a subpass input's read). A define of such a name replaces
/// the function on purpose and is not reported.
#[test]
fn globals_named_like_builtin_functions() {
    let iface = StageInterfaceInfo::new("VsOut", "").smooth(Type::Vec4, "normalize");
    let d = check(
        graphics("bf")
            .sampler(0, ImageType::Float2D, "texture", Frequency::Pass)
            .push_constant(Type::Float, "mix")
            .vertex_out(&iface)
            .define_value("dot", "my_dot"),
    );
    assert_eq!(codes(&d), [Code::DuplicateName; 3], "{}", render_all(&d));
    assert!(d.iter().all(|x| !x.is_error()), "{}", render_all(&d));
    assert!(
        d.iter().any(|x| x
            .message
            .contains("sampler `texture` hides GLSL's built-in function `texture`")),
        "{}",
        render_all(&d)
    );
    let d = check(
        graphics("bf_subpass")
            .subpass_in(0, Type::Vec4, "albedo")
            .push_constant(Type::Int, "subpassLoad")
            .uniform_buf(1, "vec4", "texelFetch", Frequency::Pass),
    );
    assert_eq!(codes(&d), [Code::DuplicateName; 2], "{}", render_all(&d));
    assert!(d.iter().all(Diagnostic::is_error), "{}", render_all(&d));
}

/// Per-instance inputs share the location and name space of the per-vertex ones: an overlap or a repeated name
/// between the two lists is the same error as within one.
#[test]
fn instance_inputs_share_locations_and_names_with_vertex_inputs() {
    let d = check(
        graphics("instance_overlap")
            .vertex_in(0, Type::Vec4, "pos")
            .instance_in(0, Type::Mat4, "model"),
    );
    assert!(
        d.iter()
            .any(|d| d.message.contains("overlaps") && d.message.contains("`pos`")),
        "{}",
        render_all(&d)
    );
    let d = check(
        graphics("instance_same_name")
            .vertex_in(0, Type::Vec4, "pos")
            .instance_in(1, Type::Vec4, "pos"),
    );
    assert!(!d.is_empty(), "a name read from two buffers was accepted");
    assert!(
        check(
            graphics("instance_ok")
                .vertex_in(0, Type::Vec4, "pos")
                .instance_in(1, Type::Mat4, "model")
        )
        .is_empty()
    );
}

/// A tessellated info whose control stage writes `per_vertex` locations for each of `points` vertices and `patch`
/// locations a patch.
fn tessellated(points: u32, per_vertex: u32, patch: u32) -> ShaderCreateInfo {
    let iface = |name: &str, n: u32| {
        (0..n).fold(StageInterfaceInfo::new(name, ""), |i, k| {
            i.smooth(Type::Vec4, format!("{name}{k}"))
        })
    };
    let v = iface("v", 1);
    graphics("tess")
        .vertex_out(&v)
        .tess_control_out(&iface("c", per_vertex))
        .tess_patch_out(&iface("p", patch))
        .tess_evaluation_out(&v)
        .tessellation_layout(
            points,
            TessDomain::Triangles,
            TessSpacing::Equal,
            FrontFace::CounterClockwise,
        )
        .tess_control_source("c.glsl")
        .tess_evaluation_source("e.glsl")
}

#[test]
fn tessellation_outputs_past_what_vulkan_guarantees_are_warnings_at_the_layout() {
    let d = check(tessellated(32, 15, 1));
    let total: Vec<&Diagnostic> = d
        .iter()
        .filter(|d| d.message.contains("components a patch"))
        .collect();
    assert_eq!(total.len(), 1, "{d:#?}");
    // 32 vertices of 15 locations and the gl_PerVertex block's 7 components, and one vec4 a patch.
    assert!(
        total[0].severity == Severity::Warning
            && total[0].message.contains("32 vertices of 67 components")
            && total[0]
                .message
                .contains("2148 components a patch, past the 2048"),
        "{d:#?}"
    );
    assert_eq!(total[0].item.as_deref(), Some("tessellation_layout"));
    // At the builder call (in `tessellated`).
    let source = include_str!("validation.rs");
    let at = source
        .lines()
        .nth(total[0].origin.line as usize - 1)
        .unwrap_or("");
    assert!(
        at.contains(".tessellation_layout("),
        "{:?}: {at}",
        total[0].origin
    );
    // Per-patch outputs are counted apart from the per-vertex ones: 31 vec4s a patch, one a vertex.
    let d = check(tessellated(3, 1, 31));
    assert!(
        d.iter().any(|d| d.severity == Severity::Warning
            && d.message
                .contains("per-patch outputs use 124 components, past the 120")),
        "{d:#?}"
    );
    assert!(
        !d.iter().any(|d| d.message.contains("components a patch")),
        "{d:#?}"
    );
    // Past the guaranteed 16 locations with both kinds (17 per vertex, then 1 per patch): one warning each for the
    // control stage's outputs and the evaluation stage's inputs, at their end (the per-patch block).
    let d = check(tessellated(3, 17, 1));
    for what in [
        "the tesc stage's outputs use",
        "the tese stage's inputs use",
    ] {
        let found: Vec<&Diagnostic> = d.iter().filter(|d| d.message.contains(what)).collect();
        assert_eq!(found.len(), 1, "{what}: {d:#?}");
        assert!(
            found[0].message.contains("use 18 locations")
                && found[0].item.as_deref() == Some("tess_patch_out `p`"),
            "{d:#?}"
        );
    }
    // Within both, no tessellation warning.
    let d = check(tessellated(3, 4, 2));
    assert!(
        !d.iter().any(|d| d.message.contains("tessellation control")),
        "{d:#?}"
    );
}
