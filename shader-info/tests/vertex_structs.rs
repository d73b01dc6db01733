//! `#[derive(ShaderVertex)]` against declared vertex layouts: every way a host struct can drift from its info is
//! named, field by field.

use shader_info::*;

/// The plan of `info` (its stages' sources added), which must validate.
fn plan_of(info: ShaderCreateInfo) -> PipelinePlan {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info.vertex_source("v.glsl").fragment_source("f.glsl"));
    PipelinePlan::new(&reg.validated(&name).unwrap(), &reg)
}

/// Both APIs read `plan`'s interleaved buffers as laid out.
fn assert_both_apis_read(plan: &PipelinePlan) {
    for rules in [VertexRules::Vulkan, VertexRules::WebGpu] {
        assert_eq!(
            plan.vertex_layout_problems(VertexArrangement::Interleaved, rules),
            vec![]
        );
    }
}

fn plan() -> PipelinePlan {
    plan_of(
        ShaderCreateInfo::new("packed_mesh")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm10_10_10_2, "nor")
            .vertex_in_packed(2, Type::Vec4, VertexFormat::Unorm8x4, "color")
            .vertex_in_packed(3, Type::Vec2, VertexFormat::Float16x2, "uv"),
    )
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Good {
    pos: [f32; 3],
    #[vertex(format = "Unorm10_10_10_2")]
    nor: u32,
    #[vertex(format = "Unorm8x4")]
    color: [u8; 4],
    #[vertex(format = "Float16x2")]
    uv: [u16; 2],
}

#[test]
fn the_matching_struct_has_no_problems() {
    assert_eq!(plan().vertex_problems::<Good>(), vec![]);
    assert_eq!(<Good as ShaderVertex>::STRIDE, 12 + 4 + 4 + 4);
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Drifted {
    pos: [f32; 3],
    /// Stored as floats where the declaration packs it.
    nor: [f32; 3],
    #[vertex(format = "Unorm8x4")]
    color: [u8; 4],
    /// Not declared at all.
    tangent: [f32; 4],
}

#[test]
fn every_drifted_field_is_named() {
    let problems = plan().vertex_problems::<Drifted>();
    let text: Vec<&str> = problems.iter().map(|d| d.message.as_str()).collect();
    assert!(
        text.iter()
            .any(|m| m.contains("field `nor` is Float32x3 at byte 12")
                && m.contains("Unorm10_10_10_2")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|m| m.contains("field `color`")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|m| m.contains("`uv`") && m.contains("no field")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|m| m.contains("`tangent` is no vertex_in")),
        "{text:#?}"
    );
    assert!(
        problems
            .iter()
            .all(|d| d.code == Code::RustTwin && d.hint.is_some())
    );
}

/// The usual instanced mesh: per-vertex position and normal, a per-instance model matrix (one attribute per column)
/// and packed color. Each rate gets its buffer; a struct is checked against its own.
fn instanced() -> PipelinePlan {
    plan_of(
        ShaderCreateInfo::new("instanced_mesh")
            .vertex_in(0, Type::Vec3, "pos")
            .instance_in(1, Type::Mat4, "model")
            .vertex_in(5, Type::Vec3, "nor")
            .instance_in_packed(6, Type::Vec4, VertexFormat::Unorm8x4, "tint"),
    )
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct MeshVertex {
    pos: [f32; 3],
    nor: [f32; 3],
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct MeshInstance {
    model: glam::Mat4,
    #[vertex(format = "Unorm8x4")]
    tint: [u8; 4],
}

#[test]
fn per_instance_inputs_have_their_own_buffer_and_struct() {
    let p = instanced();
    let buffers = p.vertex_buffers(VertexArrangement::Interleaved);
    assert_eq!(buffers.len(), 2);
    assert_eq!(
        (buffers[0].binding, buffers[0].rate, buffers[0].stride),
        (0, VertexRate::Vertex, 24)
    );
    assert_eq!(
        buffers[0].attributes,
        [
            (0, VertexFormat::Float32x3, 0),
            (5, VertexFormat::Float32x3, 12)
        ]
    );
    assert_eq!(
        (buffers[1].binding, buffers[1].rate, buffers[1].stride),
        (1, VertexRate::Instance, 68)
    );
    let columns: Vec<(u32, u32)> = buffers[1].attributes.iter().map(|a| (a.0, a.2)).collect();
    assert_eq!(columns, [(1, 0), (2, 16), (3, 32), (4, 48), (6, 64)]);
    // One buffer per input, each with its input's rate; the matrix's columns share one.
    let per_input = p.vertex_buffers(VertexArrangement::PerInput);
    let rates: Vec<(u32, VertexRate, u32)> = per_input
        .iter()
        .map(|b| (b.binding, b.rate, b.stride))
        .collect();
    assert_eq!(
        rates,
        [
            (0, VertexRate::Vertex, 12),
            (1, VertexRate::Instance, 64),
            (2, VertexRate::Vertex, 12),
            (3, VertexRate::Instance, 4)
        ]
    );
    assert_eq!(p.vertex_problems::<MeshVertex>(), vec![]);
    // glam's Mat4 aligns the struct to 16: 68 bytes of fields, 80 with Rust's padding. Read with the packed
    // stride, every instance after the first would be read from the wrong bytes: refused, saying why.
    assert_eq!(<MeshInstance as ShaderVertex>::STRIDE, 80);
    let d = p.instance_problems::<MeshInstance>();
    assert!(
        d.len() == 1
            && d[0].message.contains("80 bytes")
            && d[0].message.contains("12 bytes of padding"),
        "{d:#?}"
    );
    // A typed pipeline reads it with its own stride.
    let strided = typed_arrangement::<MeshVertex, MeshInstance>(&p, VertexArrangement::Interleaved);
    assert_eq!(
        strided,
        VertexArrangement::Strided {
            vertex: 24,
            instance: 80
        }
    );
    assert_eq!(
        p.buffer_problems::<MeshInstance>(strided, VertexRate::Instance),
        vec![]
    );
    assert_eq!(
        p.buffer_problems::<MeshVertex>(strided, VertexRate::Vertex),
        vec![]
    );
    assert_eq!(p.vertex_buffers(strided)[1].stride, 80);
    // Swapped: each field is named as belonging to the other buffer.
    let text: Vec<String> = p
        .vertex_problems::<MeshInstance>()
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert!(
        text.iter().any(|m| m.contains("vertex_in `pos`"))
            && text
                .iter()
                .any(|m| m.contains("field `model` is a per-instance input")),
        "{text:#?}"
    );
    assert!(
        p.vertex_layout_problems(VertexArrangement::Interleaved, VertexRules::WebGpu)
            .is_empty()
    );
}

/// A vertex the way Rust lays it out with glam: `color` is 16-aligned, so 4 bytes of padding follow `pos`, and
/// the struct is rounded up to 48.
#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct GlamVertex {
    pos: glam::Vec3,
    color: glam::Vec4,
    uv: glam::Vec2,
    #[vertex(format = "Unorm8x4")]
    tint: [u8; 4],
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct GlamInstance {
    model: glam::Mat4,
    layer: u32,
}

fn declared_from_structs() -> PipelinePlan {
    plan_of(
        ShaderCreateInfo::new("struct_mesh")
            .vertex_struct::<GlamVertex>(0)
            .instance_struct::<GlamInstance>(4),
    )
}

#[test]
fn a_declared_struct_is_the_buffer_layout_padding_included() {
    let p = declared_from_structs();
    // The inputs are the fields, in order, as the shader reads their formats.
    let inputs: Vec<(u32, &str, VertexFormat)> = p
        .vertex_attributes
        .iter()
        .filter(|a| a.offset_in_value == 0)
        .map(|a| (a.location, a.name.as_str(), a.format))
        .collect();
    assert_eq!(
        inputs,
        [
            (0, "pos", VertexFormat::Float32x3),
            (1, "color", VertexFormat::Float32x4),
            (2, "uv", VertexFormat::Float32x2),
            (3, "tint", VertexFormat::Unorm8x4),
            (4, "model", VertexFormat::Float32x4),
            (8, "layer", VertexFormat::Uint32),
        ]
    );
    assert_eq!(<GlamVertex as ShaderVertex>::STRIDE, 48);
    assert_eq!(<GlamInstance as ShaderVertex>::STRIDE, 80);
    let buffers = p.vertex_buffers(VertexArrangement::Interleaved);
    assert_eq!((buffers[0].stride, buffers[1].stride), (48, 80));
    assert_eq!(
        buffers[0].attributes,
        [
            (0, VertexFormat::Float32x3, 0),
            (1, VertexFormat::Float32x4, 16),
            (2, VertexFormat::Float32x2, 32),
            (3, VertexFormat::Unorm8x4, 40),
        ]
    );
    let columns: Vec<(u32, u32)> = buffers[1].attributes.iter().map(|a| (a.0, a.2)).collect();
    assert_eq!(columns, [(4, 0), (5, 16), (6, 32), (7, 48), (8, 64)]);
    // The structs are the plan: typed, they need no other arrangement (no second pipeline beside the warmed one).
    assert_eq!(p.vertex_problems::<GlamVertex>(), vec![]);
    assert_eq!(p.instance_problems::<GlamInstance>(), vec![]);
    assert_eq!(
        typed_arrangement::<GlamVertex, GlamInstance>(&p, VertexArrangement::Interleaved),
        VertexArrangement::Interleaved
    );
    assert_both_apis_read(&p);
    // Declared input by input, the same inputs are packed: the struct's aligned field is named, and the hint
    // points at declaring the inputs from the struct.
    let by_hand = plan_of(
        ShaderCreateInfo::new("by_hand")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in(1, Type::Vec4, "color")
            .vertex_in(2, Type::Vec2, "uv")
            .vertex_in_packed(3, Type::Vec4, VertexFormat::Unorm8x4, "tint"),
    );
    let d = by_hand.vertex_problems::<GlamVertex>();
    assert!(
        d[0].message
            .contains("field `color` is Float32x4 at byte 16")
            && d[0].message.contains("at byte 12")
            && d[0]
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("vertex_struct::<GlamVertex>")),
        "{d:#?}"
    );
    // Each input alone in its buffer is still packed.
    let per_input = p.vertex_buffers(VertexArrangement::PerInput);
    assert_eq!((per_input[0].stride, per_input[1].attributes[0].2), (12, 0));
}

#[test]
fn a_struct_declared_with_other_inputs_of_its_rate_is_an_error_at_each() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("mixed")
            .vertex_struct::<GlamVertex>(0)
            .vertex_in(4, Type::Vec3, "normal")
            .instance_struct::<GlamInstance>(5)
            .instance_struct::<MeshVertex>(10)
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    let errors = reg.validated("mixed").unwrap_err();
    // The builder calls' lines: `vertex_in` and the second `instance_struct`.
    let (line, second) = (line!() - 8, line!() - 6);
    let normal = errors
        .iter()
        .find(|d| d.item.as_deref() == Some("vertex_in `normal`"))
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert!(
        normal.message.contains("beside struct `GlamVertex`")
            && normal
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("GlamVertex")),
        "{normal:#?}"
    );
    assert_eq!(normal.origin.line, line);
    assert!(normal.origin.file.ends_with("vertex_structs.rs"));
    // A second per-instance struct: each of its fields is named, with both structs.
    for field in ["pos", "nor"] {
        let d = errors
            .iter()
            .find(|d| d.item.as_deref() == Some(&format!("instance_in `{field}`")))
            .unwrap_or_else(|| panic!("{errors:#?}"));
        assert!(
            d.message.contains("field of `MeshVertex`") && d.message.contains("is `GlamInstance`"),
            "{d:#?}"
        );
        assert_eq!(d.origin.line, second);
    }
    // `MeshVertex::pos` is also a second `pos`, reported as a duplicate name with the item each one is.
    assert!(
        errors.iter().any(|d| d
            .message
            .contains("`pos` is declared twice: as vertex_in from a field of struct `GlamVertex` (in `mixed`) and \
                       as instance_in from a field of struct `MeshVertex`")),
        "{errors:#?}"
    );
    let layout = errors.iter().filter(|d| d.code == Code::Layout).count();
    assert_eq!(layout, 3, "{errors:#?}");
}

/// The derive spells the builder call with the struct's path as its type argument.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "derived_struct_mesh",
    vertex_struct(GlamVertex, 0),
    instance_struct(GlamInstance, 4),
    vertex_source("v.glsl"),
    fragment_source("f.glsl")
)]
struct DerivedStructMesh {
    scale: f32,
}

#[test]
fn the_derive_declares_inputs_from_structs() {
    let mut reg = Registry::new();
    reg.add_info(DerivedStructMesh::create_info());
    let plan = PipelinePlan::new(&reg.validated("derived_struct_mesh").unwrap(), &reg);
    assert_eq!(plan.vertex_attributes.len(), 4 + 4 + 1);
    let built = declared_from_structs();
    for arrangement in [VertexArrangement::Interleaved, VertexArrangement::PerInput] {
        assert_eq!(
            plan.vertex_buffers(arrangement),
            built.vertex_buffers(arrangement)
        );
    }
}

/// Rust aligns `[u8; 4]` to 1: after a 2-byte field it sits at byte 2, which WebGPU does not read.
#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Unaligned {
    #[vertex(format = "Unorm8x2")]
    uv: [u8; 2],
    #[vertex(format = "Unorm8x4")]
    color: [u8; 4],
}

#[test]
fn a_struct_layout_an_api_cannot_read_is_refused_pointing_at_the_struct() {
    let plan = plan_of(ShaderCreateInfo::new("unaligned").vertex_struct::<Unaligned>(0));
    let d = plan.vertex_layout_problems(VertexArrangement::Interleaved, VertexRules::WebGpu);
    assert!(
        d[0].message.contains("`color` (Unorm8x4) is at byte 2")
            && d[0]
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("fields of `Unaligned`")),
        "{d:#?}"
    );
    // Vulkan reads 1-byte components anywhere.
    assert_eq!(
        plan.vertex_layout_problems(VertexArrangement::Interleaved, VertexRules::Vulkan),
        vec![]
    );
}

#[test]
fn an_instance_input_may_share_a_name_with_a_fragment_output() {
    // Different stages: valid GLSL, as for `vertex_in`.
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("tinted")
            .vertex_in(0, Type::Vec2, "corner")
            .instance_struct::<GlamInstance>(1)
            .instance_in(6, Type::Vec4, "color")
            .fragment_out(0, Type::Vec4, "color")
            .fragment_out(1, Type::Vec4, "layer")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    let errors = reg.validated("tinted").unwrap_err();
    // Only the input declared beside the struct is refused, not the names the fragment stage also uses.
    assert!(
        errors.len() == 1
            && errors[0]
                .message
                .contains("instance_in `color` is declared beside struct"),
        "{errors:#?}"
    );
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct SkinnedVertex {
    pos: [f32; 3],
    nor: [f32; 3],
    #[vertex(format = "Uint8x4")]
    joints: [u8; 4],
    #[vertex(format = "Unorm8x4")]
    weights: [u8; 4],
}

fn skin(v: &mut VariantBuilder) {
    if v.get("SKINNING") {
        v.vertex_struct::<SkinnedVertex>(0);
    }
    if v.get("EXTRA") {
        v.vertex_in(7, Type::Float, "extra");
    }
}

#[test]
fn a_variant_reads_its_buffer_as_another_struct() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("skinned_mesh")
            .vertex_struct::<MeshVertex>(0)
            .branch("SKINNING")
            .branch("EXTRA")
            .specialize(skin)
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    let info = reg.validated("skinned_mesh").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    let variant = |bits: u64| info.variant(&set, set.lookup(bits).unwrap(), &reg);
    // Plain: the info's struct. Skinned: the variant's struct in its place (joints and weights read by the shader).
    let plain = PipelinePlan::new(&variant(0b00).unwrap(), &reg);
    assert_eq!(plain.vertex_problems::<MeshVertex>(), vec![]);
    let skinned = PipelinePlan::new(&variant(0b01).unwrap(), &reg);
    assert_eq!(skinned.vertex_problems::<SkinnedVertex>(), vec![]);
    assert_eq!(
        skinned.vertex_buffers(VertexArrangement::Interleaved)[0].stride,
        32
    );
    let generated = generate(
        &variant(0b01).unwrap(),
        Stage::Vertex,
        &GenerateOptions::new(
            &MemoryLoader::default().with("v.glsl", "void main() {}\n"),
            &reg,
        ),
    )
    .unwrap();
    assert!(
        generated.source.contains("in uvec4 joints;")
            && generated.source.contains("in vec4 weights;"),
        "{}",
        generated.source
    );
    // An input the variant adds beside the info's struct has no place in its buffer: refused, naming the variant.
    for bits in [0b10, 0b11] {
        let errors = variant(bits).unwrap_err();
        assert!(
            errors.iter().any(|d| d
                .message
                .contains("vertex_in `extra` is declared beside struct")
                && d.variant.is_some()),
            "{errors:#?}"
        );
    }
}

/// glam's SIMD vector: three floats in 16 bytes, 16-aligned.
#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct SimdVertex {
    pos: glam::Vec3A,
    nor: glam::Vec3A,
    uv: glam::Vec2,
}

#[test]
fn a_vec3a_field_is_three_floats_read_at_its_offset() {
    assert_eq!(<SimdVertex as ShaderVertex>::STRIDE, 48);
    let plan = plan_of(ShaderCreateInfo::new("simd").vertex_struct::<SimdVertex>(0));
    let buffer = &plan.vertex_buffers(VertexArrangement::Interleaved)[0];
    assert_eq!(
        (buffer.stride, buffer.attributes.as_slice()),
        (
            48,
            [
                (0, VertexFormat::Float32x3, 0),
                (1, VertexFormat::Float32x3, 16),
                (2, VertexFormat::Float32x2, 32)
            ]
            .as_slice()
        )
    );
    assert_eq!(plan.vertex_problems::<SimdVertex>(), vec![]);
    assert_both_apis_read(&plan);
    // Declared input by input, `nor` would be read at 12: the struct is refused, naming the field.
    let packed = plan_of(
        ShaderCreateInfo::new("simd_by_hand")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in(1, Type::Vec3, "nor")
            .vertex_in(2, Type::Vec2, "uv"),
    );
    let d = packed.vertex_problems::<SimdVertex>();
    assert!(
        d[0].message.contains("field `nor` is Float32x3 at byte 16"),
        "{d:#?}"
    );
}

/// The errors of validating `info` (its stages' sources added), which must not validate.
fn errors_of(info: ShaderCreateInfo) -> Vec<Diagnostic> {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info.vertex_source("v.glsl").fragment_source("f.glsl"));
    reg.validated(&name)
        .map(|_| ())
        .expect_err("the declaration must be refused")
}

/// A `ShaderVertex` written by hand: the trait is safe to implement, so its claims are checked, not trusted.
#[derive(Clone, Copy)]
struct Claimed<const STRIDE: u32, const UV_AT: u32>;

impl<const STRIDE: u32, const UV_AT: u32> ShaderVertex for Claimed<STRIDE, UV_AT> {
    const FIELDS: &'static [VertexField] = &[
        VertexField {
            name: "pos",
            offset: 0,
            format: VertexFormat::Float32x3,
            columns: 1,
        },
        VertexField {
            name: "uv",
            offset: UV_AT,
            format: VertexFormat::Float32x2,
            columns: 1,
        },
    ];
    const STRIDE: u32 = STRIDE;
}

#[test]
fn a_struct_whose_fields_leave_its_bytes_or_overlap_is_refused_at_the_field() {
    // As laid out: nothing to say.
    plan_of(ShaderCreateInfo::new("fits").vertex_struct::<Claimed<20, 12>>(0));
    // A stride of 0 would read the first vertex for every vertex.
    let d = errors_of(ShaderCreateInfo::new("zero").vertex_struct::<Claimed<0, 12>>(0));
    assert!(
        d.iter().any(|d| d.code == Code::Layout
            && d.item.as_deref() == Some("vertex_in `pos`")
            && d.message.contains("says it is 0 bytes")),
        "{d:#?}"
    );
    // A field past the struct's end would be read from the next vertex.
    let d = errors_of(ShaderCreateInfo::new("past").vertex_struct::<Claimed<12, 40>>(0));
    assert!(
        d.iter().any(|d| d.item.as_deref() == Some("vertex_in `uv`")
            && d.message.contains("bytes 40..48")
            && d.message.contains("past its 12 bytes")),
        "{d:#?}"
    );
    // Two fields claiming the same bytes.
    let d = errors_of(ShaderCreateInfo::new("over").vertex_struct::<Claimed<20, 8>>(0));
    assert!(
        d.iter()
            .any(|d| d.item.as_deref() == Some("vertex_in `pos`")
                && d.message.contains("bytes 0..12")
                && d.message.contains("over field `uv` at byte 8")),
        "{d:#?}"
    );
    // Each names the call that declared the struct.
    assert!(
        d.iter()
            .all(|d| d.origin.file.ends_with("vertex_structs.rs")),
        "{d:#?}"
    );
}

#[test]
fn a_struct_declared_twice_is_named_as_such() {
    let d = errors_of(
        ShaderCreateInfo::new("twice")
            .vertex_struct::<SimdVertex>(0)
            .vertex_struct::<SimdVertex>(4),
    );
    assert!(
        d.iter().any(|d| d.code == Code::Layout
            && d.message
                .contains("struct `SimdVertex` is declared twice for the per-vertex buffer")),
        "{d:#?}"
    );
    // For both rates: one struct is one buffer, and the duplicate names say where each came from.
    let d = errors_of(
        ShaderCreateInfo::new("both_rates")
            .vertex_struct::<SimdVertex>(0)
            .instance_struct::<SimdVertex>(4),
    );
    let pos = d
        .iter()
        .find(|d| d.code == Code::DuplicateName && d.item.as_deref() == Some("instance_in `pos`"))
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert!(
        pos.message
            .contains("as vertex_in from a field of struct `SimdVertex`")
            && pos
                .message
                .contains("as instance_in from a field of struct `SimdVertex`"),
        "{pos:#?}"
    );
    assert!(
        pos.hint
            .as_deref()
            .is_some_and(|h| h.contains("declare `SimdVertex` once")),
        "{pos:#?}"
    );
}

#[test]
fn locations_past_u32_stop_at_the_field_that_overflows() {
    // `model` takes the last four locations there are; `layer` has none, and is not declared over `model`.
    let d = errors_of(ShaderCreateInfo::new("far").instance_struct::<GlamInstance>(u32::MAX - 3));
    assert!(
        d.iter()
            .any(|d| d.item.as_deref() == Some("instance_in `model`")),
        "{d:#?}"
    );
    assert!(!d.iter().any(|d| d.message.contains("overlaps")), "{d:#?}");
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct DepthOnly {
    pos: glam::Vec3A,
}

#[test]
fn a_per_input_pipeline_is_checked_against_the_buffer_it_reads() {
    let plan = plan_of(ShaderCreateInfo::new("depth").vertex_struct::<DepthOnly>(0));
    // Interleaved reads the struct's 16-byte stride; per input, each input packed from a buffer of its own: 12.
    assert_eq!(
        DepthOnly::arranged_problems(&plan, VertexArrangement::Interleaved, VertexRate::Vertex),
        vec![]
    );
    let d = DepthOnly::arranged_problems(&plan, VertexArrangement::PerInput, VertexRate::Vertex);
    assert!(
        d.iter()
            .any(|d| d.message.contains("the struct is 16 bytes")
                && d.hint
                    .as_deref()
                    .is_some_and(|h| h.contains("VertexArrangement::Interleaved"))),
        "{d:#?}"
    );
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct FarField {
    pos: [f32; 3],
    _pad: Pad<2100>,
    weight: f32,
}

#[test]
fn an_attribute_past_the_devices_offset_limit_is_named() {
    let plan = plan_of(ShaderCreateInfo::new("far").vertex_struct::<FarField>(0));
    // Vulkan's guaranteed minimums but for the stride: a device that takes the 2,116-byte step but reads
    // attributes only up to byte 2,047 of it.
    let small = VertexInputLimits {
        buffers: 16,
        stride: 4096,
        attribute_offset: 2047,
    };
    let d = plan.vertex_input_problems(VertexArrangement::Interleaved, &small);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].message.contains("at byte 2112") && d[0].message.contains("up to 2047"),
        "{d:#?}"
    );
    assert_eq!(d[0].item.as_deref(), Some("vertex_in `weight`"));
    assert!(
        d[0].origin.file.ends_with("vertex_structs.rs"),
        "located at the builder call: {d:#?}"
    );
    let roomy = VertexInputLimits {
        attribute_offset: 4095,
        ..small
    };
    assert_eq!(
        plan.vertex_input_problems(VertexArrangement::Interleaved, &roomy),
        vec![]
    );
}
