//! Pass tests of the derives: generated GLSL, struct definitions, offsets, registrations, and the ShaderInfo derive
//! against the same info written with the builder.

use glam::{IVec2, Mat3A, Mat4, UVec4, Vec2, Vec3, Vec3A, Vec4};
use shader_info::*;

#[derive(Clone, Copy, Debug, PartialEq, ShaderEnum)]
#[repr(u32)]
enum LightKind {
    Point = 0,
    Spot = 1,
    #[shader(name = "LIGHT_SUN")]
    Directional = 7,
}

#[derive(Clone, Copy, ShaderEnum)]
#[repr(u32)]
#[shader(name = "eFogMode", prefix = "FOG_")]
enum FogMode {
    Off = 0,
    Linear = 1,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Light {
    position: Vec3,
    radius: f32,
    color: Vec4,
    kind: LightKind,
    enabled: Bool32,
    _pad: Pad<8>,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct ViewData {
    view_proj: Mat4,
    normal_mat: Mat3A,
    lights: [Light; 2],
    fog: FogMode,
    exposure: f32,
    _pad: Pad<8>,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430, name = "GlyphData")]
struct Glyph {
    offset: IVec2,
    uv: Vec2,
    weights: [f32; 3],
    flags: u32,
    normal: Vec3A,
    ids: UVec4,
}

#[shader_struct(auto_pad, std140)]
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Material {
    roughness: f32,
    base_color: Vec4,
    emission: Vec3,
    ior: f32,
    layers: [Vec4; 2],
    alpha: f32,
}

#[test]
fn struct_glsl_and_def() {
    let reg = Registry::global();
    let light = reg.find_struct("Light").unwrap();
    assert_eq!(
        light.glsl(),
        "struct Light {\n  vec3 position;\n  float radius;\n  vec4 color;\n  uint kind;\n  bool enabled;\n};\n"
    );
    let glyph = reg.find_struct("GlyphData").unwrap();
    assert_eq!(
        glyph.glsl(),
        "struct GlyphData {\n  ivec2 offset;\n  vec2 uv;\n  float weights[3];\n  uint flags;\n  vec3 normal;\n  uvec4 ids;\n};\n"
    );
    let view = reg.find_struct("ViewData").unwrap();
    assert_eq!(view.fields[2], Field::structure("Light", "lights").array(2));
    assert_eq!(view.fields[3], Field::new(Type::Uint, "fog"));
}

#[test]
fn registered_offsets_match_the_layout_engine() {
    let reg = Registry::global();
    for (name, rules) in [
        ("Light", Rules::Std140),
        ("Light", Rules::Std430),
        ("ViewData", Rules::Std140),
        ("GlyphData", Rules::Std430),
        ("Material", Rules::Std140),
    ] {
        let def = reg.find_struct(name).unwrap();
        let layout = def.layout(rules, reg).unwrap();
        let meta = reg.struct_meta(name).unwrap();
        let offsets: Vec<u32> = layout.members.iter().map(|m| m.offset).collect();
        assert_eq!(meta.rust_offsets, offsets, "{name} {rules}");
        assert_eq!(meta.rust_size, layout.size, "{name} {rules}");
    }
    assert_eq!(
        reg.struct_meta("Light").unwrap().enums,
        vec!["LightKind".to_string()]
    );
    assert_eq!(
        reg.struct_meta("ViewData").unwrap().enums,
        vec!["eFogMode".to_string()]
    );
}

#[test]
fn shader_type_consts() {
    assert_eq!(Light::GLSL, GlslType::structure("Light"));
    assert_eq!(
        Light::STD140.unwrap(),
        TypeLayout {
            align: 16,
            size: 48,
            array_stride: 48
        }
    );
    assert_eq!(Light::STD430.unwrap().size, 48);
    assert_eq!(ViewData::STD140.unwrap().size, size_of::<ViewData>() as u32);
    assert!(
        ViewData::STD430
            .unwrap_err()
            .as_str()
            .contains("only proven for std140")
    );
    assert_eq!(LightKind::GLSL, GlslType::enumeration("LightKind"));
    assert_eq!(<[Light; 3]>::STD140.unwrap().size, 144);
}

#[test]
fn enums() {
    let reg = Registry::global();
    assert_eq!(
        reg.enum_def("LightKind").unwrap().glsl(),
        "#define LightKind uint\nconst uint LIGHT_KIND_POINT = 0u;\nconst uint LIGHT_KIND_SPOT = 1u;\nconst uint LIGHT_SUN = 7u;\n"
    );
    assert_eq!(
        reg.enum_def("eFogMode").unwrap().values,
        vec![("FOG_OFF".to_string(), 0), ("FOG_LINEAR".to_string(), 1)]
    );
    let bits: u32 = 7;
    assert_eq!(
        bytemuck::checked::try_from_bytes::<LightKind>(bytemuck::bytes_of(&bits)),
        Ok(&LightKind::Directional)
    );
    assert!(bytemuck::checked::try_from_bytes::<LightKind>(bytemuck::bytes_of(&3u32)).is_err());
}

#[test]
fn auto_pad_inserts_the_std140_gaps() {
    assert_eq!(std::mem::offset_of!(Material, base_color), 16);
    assert_eq!(std::mem::offset_of!(Material, emission), 32);
    assert_eq!(std::mem::offset_of!(Material, ior), 44);
    assert_eq!(std::mem::offset_of!(Material, layers), 48);
    assert_eq!(std::mem::offset_of!(Material, alpha), 80);
    assert_eq!(size_of::<Material>(), 96);
    let m = Material {
        roughness: 0.5,
        alpha: 1.0,
        ..Default::default()
    };
    assert_eq!(bytemuck::bytes_of(&m).len(), 96);
    let def = Registry::global().find_struct("Material").unwrap();
    let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "roughness",
            "base_color",
            "emission",
            "ior",
            "layers",
            "alpha"
        ]
    );
}

#[test]
fn upload_size_is_the_std_size() {
    let light = Light {
        position: Vec3::new(1.0, 2.0, 3.0),
        radius: 4.0,
        color: Vec4::ONE,
        kind: LightKind::Spot,
        enabled: true.into(),
        _pad: Pad::ZERO,
    };
    let bytes = bytemuck::bytes_of(&light);
    assert_eq!(bytes.len(), 48);
    assert_eq!(&bytes[12..16], &4.0f32.to_ne_bytes());
    assert_eq!(&bytes[32..36], &1u32.to_ne_bytes());
    let glyphs = [Glyph {
        offset: IVec2::ONE,
        uv: Vec2::ZERO,
        weights: [1.0; 3],
        flags: 0,
        normal: Vec3A::Z,
        ids: UVec4::ZERO,
    }; 4];
    assert_eq!(bytemuck::cast_slice::<Glyph, u8>(&glyphs).len(), 4 * 64);
    let g: Glyph = bytemuck::Zeroable::zeroed();
    assert_eq!(g.flags, 0);
}

/// Nested structs and enums are emitted before the buffer that uses them, each once.
#[test]
fn generator_emits_dependencies_first() {
    let mut reg = Registry::shared_types_from_inventory();
    reg.add_info(
        ShaderCreateInfo::new("lights_test")
            .uniform_buf(0, "ViewData", "view", Frequency::Pass)
            .storage_buf(
                1,
                Qualifier::Read,
                "Light",
                "extra_lights[]",
                Frequency::Pass,
            )
            .compute_source("lights_test.comp.glsl")
            .local_group_size(64),
    );
    let loader = MemoryLoader::default().with("lights_test.comp.glsl", "void main() {}");
    let info = reg.validated("lights_test").unwrap();
    let opts = GenerateOptions::new(&loader, &reg);
    let src = generate(&info, Stage::Compute, &opts).unwrap().source;
    let pos = |s: &str| {
        src.find(s)
            .unwrap_or_else(|| panic!("{s} missing in\n{src}"))
    };
    assert!(pos("#define LightKind uint") < pos("struct Light {"));
    assert!(pos("#define eFogMode uint") < pos("struct ViewData {"));
    assert!(pos("struct Light {") < pos("struct ViewData {"));
    assert_eq!(src.matches("struct Light {").count(), 1);
}

fn color_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("color_iface", "").smooth(Type::Vec4, "color")
}

#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_everything",
    vertex_in(0, Vec3, "pos"),
    vertex_in(1, Type::Vec4, "col"),
    vertex_out(color_iface),
    fragment_out(0, Vec4, "frag_color"),
    fragment_out_blend(1, Vec4, "frag_blend", Src1),
    sampler(0, Float2D, "color_tex", Batch),
    sampler(1, Shadow2D, "shadow_maps[4]", Pass),
    image(2, Rgba16f, Write, Float2D, "out_img", Pass),
    uniform_buf(0, "ViewData", "view", Pass),
    storage_buf(0, Read, "GlyphData", "glyphs[]", Geometry),
    specialization_constant(Bool, "use_fog", true),
    specialization_constant(Float, "fog_density", 0.5f32),
    define("USE_LIGHTS"),
    define_value("MAX_LIGHTS", "2"),
    typedef_source("Light"),
    additional_info("some_base"),
    builtins(VERTEX_ID),
    depth_write(Greater),
    early_fragment_test,
    vertex_source("everything.vert.glsl"),
    fragment_source("everything.frag.glsl"),
    do_static_compilation
)]
#[shader(branch("USE_SHADOWS"))]
struct Everything {
    model: Mat4,
    tint: Vec4,
    mode: LightKind,
    layer: i32,
    offsets: [Vec2; 2],
    _pad: Pad<8>,
}

#[test]
fn derived_info_equals_builder_info() {
    let builder = ShaderCreateInfo::new("derive_everything")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in(1, Type::Vec4, "col")
        .vertex_out(&color_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .fragment_out_blend(1, Type::Vec4, "frag_blend", DualBlend::Src1)
        .sampler(0, ImageType::Float2D, "color_tex", Frequency::Batch)
        .sampler(1, ImageType::Shadow2D, "shadow_maps[4]", Frequency::Pass)
        .image(
            2,
            TextureFormat::Rgba16f,
            Qualifier::Write,
            ImageType::Float2D,
            "out_img",
            Frequency::Pass,
        )
        .uniform_buf(0, "ViewData", "view", Frequency::Pass)
        .storage_buf(
            0,
            Qualifier::Read,
            "GlyphData",
            "glyphs[]",
            Frequency::Geometry,
        )
        .specialization_constant(Type::Bool, "use_fog", true)
        .specialization_constant(Type::Float, "fog_density", 0.5f32)
        .define("USE_LIGHTS")
        .define_value("MAX_LIGHTS", "2")
        .typedef_source("Light")
        .additional_info("some_base")
        .builtins(BuiltinBits::VERTEX_ID)
        .depth_write(DepthWrite::Greater)
        .early_fragment_test(true)
        .vertex_source("everything.vert.glsl")
        .fragment_source("everything.frag.glsl")
        .do_static_compilation(true)
        .branch("USE_SHADOWS")
        .push_constant(Type::Mat4, "model")
        .push_constant(Type::Vec4, "tint")
        .push_constant(Type::Uint, "mode")
        .push_constant(Type::Int, "layer")
        .push_constant_array(Type::Vec2, "offsets", 2)
        .slots_per_set();
    assert_eq!(Everything::create_info(), builder);
    assert_eq!(Everything::NAME, "derive_everything");
    assert_eq!(Everything::COLOR_TEX, Binding { set: 1, binding: 0 });
    assert_eq!(Everything::SHADOW_MAPS, Binding { set: 0, binding: 1 });
    assert_eq!(Everything::OUT_IMG, Binding { set: 0, binding: 2 });
    assert_eq!(Everything::VIEW, Binding { set: 0, binding: 0 });
    assert_eq!(Everything::GLYPHS, Binding { set: 2, binding: 0 });
}

#[test]
fn push_constants_upload_with_bytemuck() {
    let push = Everything {
        model: Mat4::IDENTITY,
        tint: Vec4::ONE,
        mode: LightKind::Point,
        layer: 3,
        offsets: [Vec2::ZERO; 2],
        _pad: Pad::ZERO,
    };
    assert_eq!(bytemuck::bytes_of(&push).len(), 112);
    // The generator's std430 block for these push constants ends where the Rust struct does.
    let info = Everything::create_info();
    let fields: Vec<Field> = info
        .push_constants
        .iter()
        .map(|p| {
            let f = Field::new(p.value.ty, p.value.name.clone());
            match p.value.array_size {
                Some(n) => f.array(n),
                None => f,
            }
        })
        .collect();
    let l = layout_fields(&fields, Rules::Std430, &StructMap::default(), &mut vec![]).unwrap();
    assert_eq!(l.end, 104);
    assert_eq!(
        std::mem::offset_of!(Everything, offsets),
        l.members[4].offset as usize
    );
}

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    compute_source("blur.comp.glsl"),
    local_group_size(8, 8),
    do_static_compilation(false)
)]
struct BlurPass;

#[test]
fn defaults_and_registration() {
    assert_eq!(BlurPass::NAME, "blur_pass");
    let expected = ShaderCreateInfo::new("blur_pass")
        .compute_source("blur.comp.glsl")
        .local_group_size_2d(8, 8);
    assert_eq!(BlurPass::create_info(), expected);
    let reg = Registry::global();
    assert!(reg.info("blur_pass").is_some());
    assert!(reg.info("derive_everything").is_some());
    assert!(reg.info("builder_registered").is_some());
    assert!(reg.problems().is_empty(), "{:?}", reg.problems());
}

#[shader_info]
fn builder_registered() -> ShaderCreateInfo {
    ShaderCreateInfo::new("builder_registered")
        .push_constant(Type::Vec4, "color")
        .fragment_source("builder_registered.frag.glsl")
}

const TILE: u32 = 64;

/// The derive takes this round's builder items too: constants shared with Rust, shared variables, packed inputs.
#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    constant(shader_info::constant!(TILE)),
    shared_variable(Vec4, "tile[TILE]"),
    compute_source("tile.comp.glsl"),
    local_group_size(64),
    do_static_compilation(false)
)]
struct TilePass;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    vertex_in(0, Vec3, "pos"),
    vertex_in_packed(1, Vec4, Unorm8x4, "color"),
    instance_in(2, Mat4, "model"),
    instance_in_packed(6, Vec4, Unorm8x4, "tint"),
    vertex_source("packed.vert.glsl"),
    fragment_source("packed.frag.glsl"),
    do_static_compilation(false)
)]
struct PackedDraw;

#[test]
fn constants_shared_variables_packed_and_per_instance_inputs_in_attributes() {
    let expected = ShaderCreateInfo::new("tile_pass")
        .constant(shader_info::constant!(TILE))
        .shared_variable(Type::Vec4, "tile[TILE]")
        .compute_source("tile.comp.glsl")
        .local_group_size(64);
    assert_eq!(TilePass::create_info(), expected);
    let expected = ShaderCreateInfo::new("packed_draw")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in_packed(1, Type::Vec4, shader_info::VertexFormat::Unorm8x4, "color")
        .instance_in(2, Type::Mat4, "model")
        .instance_in_packed(6, Type::Vec4, shader_info::VertexFormat::Unorm8x4, "tint")
        .vertex_source("packed.vert.glsl")
        .fragment_source("packed.frag.glsl");
    assert_eq!(PackedDraw::create_info(), expected);
}

/// Conditional resources in attributes: `resources_if(condition, resource calls..)`, with `branch("X")` short for
/// `Condition::branch("X")`. Resources of exclusive conditions may share a binding (checked per variant).
#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    name = "derive_conditional",
    branch("SKINNING"),
    storage_buf(0, Write, "vec4", "positions[]", Pass),
    resources_if(branch("SKINNING"), storage_buf(1, Read, "mat4", "bones[]", Batch)),
    resources_if(
        Condition::branch("SKINNING").not(),
        sampler(1, Float2D, "baked_pose", Batch),
        uniform_buf(2, "mat4", "rest", Batch)
    ),
    compute_source("skin.comp.glsl"),
    local_group_size(64)
)]
struct ConditionalSkin;

#[test]
fn conditional_resources_in_attributes() {
    let builder = ShaderCreateInfo::new("derive_conditional")
        .branch("SKINNING")
        .storage_buf(0, Qualifier::Write, "vec4", "positions[]", Frequency::Pass)
        .resources_if(Condition::branch("SKINNING"), |i| {
            i.storage_buf(1, Qualifier::Read, "mat4", "bones[]", Frequency::Batch)
        })
        .resources_if(Condition::branch("SKINNING").not(), |i| {
            i.sampler(1, ImageType::Float2D, "baked_pose", Frequency::Batch)
                .uniform_buf(2, "mat4", "rest", Frequency::Batch)
        })
        .compute_source("skin.comp.glsl")
        .local_group_size(64)
        .slots_per_set();
    assert_eq!(ConditionalSkin::create_info(), builder);
    // Exclusive resources share set 1 binding 1, and each has its constant.
    assert_eq!(ConditionalSkin::BONES, ConditionalSkin::BAKED_POSE);
    assert_eq!(ConditionalSkin::REST, Binding { set: 1, binding: 2 });

    let mut reg = Registry::new();
    reg.add_info(ConditionalSkin::create_info());
    let info = reg.validated("derive_conditional").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    for (skinning, want) in [
        (false, vec!["positions[]", "baked_pose", "rest"]),
        (true, vec!["positions[]", "bones[]"]),
    ] {
        let i = set
            .lookup(set.bits_of(&[("SKINNING", skinning)]).unwrap())
            .unwrap();
        let v = info.variant(&set, i, &reg).unwrap();
        let names: Vec<&str> = v.resources.iter().map(|r| r.value.name.as_str()).collect();
        assert_eq!(names, want, "SKINNING = {skinning}");
    }
}

/// A derived info with a resource of its own beside an inherited one, numbered per kind by its base.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_slots_lit",
    sampler(0, Float2D, "albedo", Batch),
    additional_info("derive_slots_base"),
    local_group_size(1),
    compute_source("lit.comp.glsl")
)]
struct SlotsLit;

/// Its binding constant says binding 0: the base's per-kind numbering would have moved `albedo` to binding 1 (after
/// the base's uniform buffer at slot 0). Resolution refuses the composition, naming both infos, instead.
#[test]
fn a_derived_info_does_not_inherit_a_per_kind_numbering_its_constants_would_contradict() {
    assert_eq!(SlotsLit::ALBEDO, Binding { set: 1, binding: 0 });
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("derive_slots_base")
            .slots_per_kind()
            .uniform_buf(0, "vec4", "shared_params", Frequency::Batch),
    );
    reg.add_info(SlotsLit::create_info());
    let e = reg.resolve(SlotsLit::NAME).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].code, Code::SingularConflict, "{e:?}");
    assert!(
        e[0].message.contains("`derive_slots_lit`") && e[0].message.contains("`derive_slots_base`"),
        "{}",
        e[0].message
    );
    // With a base that numbers per set, the constant is the binding.
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("derive_slots_base").uniform_buf(
        1,
        "vec4",
        "shared_params",
        Frequency::Batch,
    ));
    reg.add_info(SlotsLit::create_info());
    let plan = PipelinePlan::new(&reg.validated(SlotsLit::NAME).unwrap(), &reg);
    let albedo = plan.bindings().find(|(_, b)| b.name == "albedo").unwrap();
    assert_eq!(
        (albedo.0, albedo.1.binding),
        (SlotsLit::ALBEDO.set, SlotsLit::ALBEDO.binding)
    );
}

/// A derived info with a branch of its own and one its base declares.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_branch_lit",
    branch("TINT"),
    additional_info("derive_branch_base"),
    fragment_out(0, Vec4, "color"),
    vertex_source("lit.vert.glsl"),
    fragment_source("lit.frag.glsl")
)]
struct BranchLit;

/// The base's `FOG` is chosen by name through `inherited` (it could not be: the struct named the derive's own
/// branches only, and a branch left out is off); a name the info does not have is an error.
#[test]
fn a_derived_infos_inherited_branches_are_chosen_by_name() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("derive_branch_base").branch("FOG"));
    reg.add_info(BranchLit::create_info());
    let set = enumerate_variants(&reg.resolve(BranchLit::NAME).unwrap(), 16).unwrap();
    let fog = BranchLitBranches {
        tint: true,
        inherited: &[("FOG", true)],
    };
    assert_eq!(fog.values(), vec![("TINT", true), ("FOG", true)]);
    let bits = set.permutation(&fog.values()).unwrap();
    assert_eq!(describe_bits(&set, bits), vec!["FOG", "TINT"]);
    let typo = BranchLitBranches {
        inherited: &[("FOGG", true)],
        ..Default::default()
    };
    let e = set.permutation(&typo.values()).unwrap_err();
    assert!(
        e[0].hint
            .as_deref()
            .unwrap_or("")
            .contains("did you mean `FOG`"),
        "{e:?}"
    );
}

/// The branches on in `bits`, sorted.
fn describe_bits(set: &VariantSet, bits: u64) -> Vec<&str> {
    let mut on: Vec<&str> = set
        .branches
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> i & 1 == 1)
        .map(|(_, b)| b.as_str())
        .collect();
    on.sort_unstable();
    on
}

/// A derived info whose push constants come from an `additional_info`: the struct is not the block.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_inherits_push",
    additional_info("derive_common_push"),
    local_group_size(1),
    compute_source("inherits.comp.glsl")
)]
struct InheritsPush;

/// The same with a field of its own beside the inherited ones.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_adds_push",
    additional_info("derive_common_push"),
    local_group_size(1),
    compute_source("adds.comp.glsl")
)]
struct AddsPush {
    scale: f32,
}

/// A derived info whose block is its struct, for contrast.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_own_push",
    local_group_size(1),
    compute_source("own.comp.glsl")
)]
struct OwnPush {
    scale: f32,
    count: u32,
}

#[test]
fn a_derived_struct_is_refused_as_a_block_it_does_not_hold() {
    let mut reg = Registry::global().clone();
    reg.add_info(
        ShaderCreateInfo::new("derive_common_push")
            .push_constant(Type::Mat4, "mvp")
            .local_group_size(1),
    );
    let plan = |name: &str| PipelinePlan::new(&reg.validated(name).unwrap(), &reg);
    let d = InheritsPush::push_problems(&plan(InheritsPush::NAME), &reg);
    assert!(
        d.len() == 1 && d[0].message.contains("no push constant") && d[0].message.contains("`mvp`"),
        "{d:?}"
    );
    let d = AddsPush::push_problems(&plan(AddsPush::NAME), &reg);
    assert!(
        d.len() == 1 && d[0].message.contains("`mvp` come from an additional info"),
        "{d:?}"
    );
    assert!(OwnPush::push_problems(&plan(OwnPush::NAME), &reg).is_empty());
    // Another info's plan is still refused by name.
    let d = OwnPush::push_problems(&plan(AddsPush::NAME), &reg);
    assert!(d[0].message.contains("not of `derive_adds_push`"), "{d:?}");
}

/// A derived info with a geometry stage, served on wgpu (which has none) by its twin.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derive_twinned_push",
    twin("derive_twinned_push_flat"),
    vertex_source("t.vert"),
    geometry_source("t.geom"),
    geometry_layout(Triangles, TriangleStrip, 3),
    fragment_source("t.frag")
)]
struct TwinnedPush {
    scale: f32,
    count: u32,
}

#[test]
fn a_derived_struct_pushes_to_its_infos_twin_when_the_blocks_match() {
    let mut reg = Registry::global().clone();
    let twin = |name: &str, second: Type| {
        ShaderCreateInfo::new(name)
            .push_constant(Type::Float, "scale")
            .push_constant(second, "count")
            .vertex_source("t.vert")
            .fragment_source("t.frag")
    };
    reg.add_info(twin("derive_twinned_push_flat", Type::Uint));
    reg.add_info(twin("derive_other_flat", Type::Uint));
    let plan = |name: &str| PipelinePlan::new(&reg.validated(name).unwrap(), &reg);
    // The plan a wgpu library fetches for `derive_twinned_push`: its twin's, whose block is the struct's.
    assert_eq!(
        TwinnedPush::push_problems(&plan("derive_twinned_push_flat"), &reg),
        vec![]
    );
    // An info with the same block that is not its twin is still refused by name.
    let d = TwinnedPush::push_problems(&plan("derive_other_flat"), &reg);
    assert!(d[0].message.contains("not of `derive_other_flat`"), "{d:?}");
    // A twin whose block differs is refused member by member.
    let mut reg = Registry::global().clone();
    reg.add_info(twin("derive_twinned_push_flat", Type::Int));
    let flat = PipelinePlan::new(&reg.validated("derive_twinned_push_flat").unwrap(), &reg);
    let d = TwinnedPush::push_problems(&flat, &reg);
    assert!(
        d[0].message
            .contains("member 1 is `int count` at byte 4 there, `uint count` at byte 4 in"),
        "{d:?}"
    );
}

/// A field named with a raw identifier gives GLSL its name without the `r#` (`type` is no GLSL keyword).
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct RawNamed {
    r#type: u32,
    r#loop: f32,
}

#[test]
fn a_raw_identifier_field_is_named_without_its_prefix() {
    let s = Registry::global().find_struct("RawNamed").unwrap();
    assert_eq!(
        s.glsl(),
        "struct RawNamed {\n  uint type;\n  float loop;\n};\n"
    );
}

/// `sampler_with_state` through the derive: its frequency is its fourth argument, before the sampler state.
#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    name = "derive_sampler_state",
    sampler_with_state(0, Float2D, "albedo", Batch, SamplerState::linear()),
    uniform_buf(1, "vec4", "tint", Batch),
    local_group_size(1),
    compute_source("lit.comp.glsl")
)]
struct SamplerStated;

#[test]
fn a_sampler_with_state_is_declared_and_grouped_by_its_frequency() {
    let builder = ShaderCreateInfo::new("derive_sampler_state")
        .sampler_with_state(
            0,
            ImageType::Float2D,
            "albedo",
            Frequency::Batch,
            SamplerState::linear(),
        )
        .uniform_buf(1, "vec4", "tint", Frequency::Batch)
        .local_group_size(1)
        .compute_source("lit.comp.glsl")
        .slots_per_set();
    assert_eq!(SamplerStated::create_info(), builder);
    assert_eq!(SamplerStated::ALBEDO, Binding { set: 1, binding: 0 });
    // The batch set's struct holds both, the texture alone: the sampler is declared.
    struct Toy;
    impl HostTypes for Toy {
        type Buffer = Vec<u8>;
        type Texture = String;
        type Sampler = ();
        type AccelerationStructure = Unsupported;
    }
    let (texture, buffer) = (String::from("albedo"), vec![0u8; 16]);
    let set = SamplerStatedBatchSet::<Toy> {
        albedo: &texture,
        tint: &buffer,
    };
    assert_eq!(set.albedo, "albedo");
}

/// A struct of two `vec2`s: 16-aligned in std140, 8-aligned in std430.
#[derive(Clone, Copy, Default, ShaderStruct)]
#[repr(C)]
struct PairOfVec2 {
    a: Vec2,
    b: Vec2,
}

/// `auto_pad` with the rule set named on the item, not in the attribute: padded for std430 (the struct after 8
/// bytes), which the derive then proves. It was padded for std140 (16) and refused by its own proof.
#[shader_struct(auto_pad)]
#[shader(std430)]
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct PaddedForStd430 {
    x: f32,
    pair: PairOfVec2,
}

#[test]
fn auto_pad_reads_the_rule_set_named_on_the_item() {
    assert_eq!(std::mem::offset_of!(PaddedForStd430, pair), 8);
    assert_eq!(size_of::<PaddedForStd430>(), 24);
}

/// `auto_pad` runs before `#[cfg]`s are applied: a field under one that is off is neither padded for nor counted.
#[shader_struct(auto_pad, std140)]
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct WithCfgField {
    a: f32,
    #[cfg(not(test))]
    gone: f32,
    #[cfg(test)]
    kept: f32,
    c: Vec4,
}

#[test]
fn auto_pad_pads_the_fields_cfg_keeps() {
    assert_eq!(std::mem::offset_of!(WithCfgField, kept), 4);
    assert_eq!(std::mem::offset_of!(WithCfgField, c), 16);
    assert_eq!(size_of::<WithCfgField>(), 32);
    let def = Registry::global().find_struct("WithCfgField").unwrap();
    let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "kept", "c"]);
}

/// Two auto-padded types whose names differ only in case, in one module: each has its own padding table (named
/// from one screaming-snake spelling, the two tables were one constant declared twice).
#[shader_struct(auto_pad, std140)]
#[derive(Clone, Copy, Default)]
#[repr(C)]
#[allow(clippy::upper_case_acronyms)]
struct HDRColor {
    scale: f32,
    color: Vec4,
}

#[shader_struct(auto_pad, std430)]
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct HdrColor {
    scale: f32,
    pair: PairOfVec2,
}

#[test]
fn auto_pad_types_whose_names_differ_in_case_have_their_own_padding() {
    assert_eq!(std::mem::offset_of!(HDRColor, color), 16);
    assert_eq!(size_of::<HDRColor>(), 32);
    assert_eq!(std::mem::offset_of!(HdrColor, pair), 8);
    assert_eq!(size_of::<HdrColor>(), 24);
}
