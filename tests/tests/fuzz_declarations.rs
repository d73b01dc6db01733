//! Property-based fuzzing of declarations: random infos built from every kind of builder item, with names and
//! numbers at the edges, random `additional_info` graphs (cycles and diamonds included), random branches and
//! specialize functions, run through resolve → validate → variants → generate → compile → reflection cross-check →
//! translation to every target.
//!
//! Properties: nothing panics; every rejected info is rejected with diagnostics that name an info of the graph;
//! every accepted info (and variant) compiles and passes the reflection cross-check, or gets a diagnostic that
//! points at a declaration (an item, a file and line).
//!
//! CI runs `FUZZ_CASES` cases (default 5,000, about 7 s). The long run:
//! `FUZZ_CASES=100000 cargo test --release -p tests --test fuzz_declarations -- --nocapture`.
//! A failure prints the seed and the shrunk declaration; fixed failures stay below as regression cases.

use gpu::compiler::{Compiler, Profile};
use gpu::cross::{CrossOptions, Target, Verdict, translate_module};
use gpu::flow::Flow;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use shader_info::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Infos rejected, accepted, and modules compiled and cross-checked, over the run.
static REJECTED: AtomicUsize = AtomicUsize::new(0);
static ACCEPTED: AtomicUsize = AtomicUsize::new(0);
static COMPILED: AtomicUsize = AtomicUsize::new(0);
static TRANSLATED: AtomicUsize = AtomicUsize::new(0);
/// Accepted infos with a geometry or tessellation stage.
static PRIMITIVE_STAGES: AtomicUsize = AtomicUsize::new(0);
static BRANCH_TWINS: AtomicUsize = AtomicUsize::new(0);

/// Names: ordinary ones that collide on purpose, and every kind of bad one.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        24 => prop::sample::select(vec!["a", "b", "c", "tex", "data", "color", "pos", "x"]).prop_map(String::from),
        1 => prop::sample::select(vec![
            "", " ", "gl_x", "a__b", "float", "sample", "main", "1x", "a b", "a\nb", "ä", "GL_X", "vec4",
        ])
        .prop_map(String::from),
        // Names only some generated text defines (the Blender prelude's macros, the portable flavor's polyfill,
        // built-in functions), and names the translation targets reserve or write.
        1 => prop::sample::select(vec![
            "float2", "int3", "bool4", "packed_float3", "BLI_STATIC_ASSERT", "USE_GPU_SHADER_CREATE_INFO",
            "VERTEX_SHADER_CREATE_INFO", "inverse", "gpu_inverse", "texture", "dot", "mix", "subpassLoad",
            "device", "kernel", "constant", "fn", "var", "let", "cbuffer", "register", "half", "metal", "thread",
            "SV_Position", "naga_vs_first_instance", "_group_0_binding_0_fs", "override", "discard_fragment",
            // Layout qualifiers: fine for a variable, not for a macro or a type.
            "location", "binding", "set", "std430", "rgba8", "triangles", "vertices", "index", "offset",
        ])
        .prop_map(String::from),
        2 => "[a-zA-Z_][a-zA-Z0-9_]{0,6}",
    ]
}

/// Resource names: plain, arrays (fixed, runtime, zero, huge, malformed).
fn resource_name() -> impl Strategy<Value = String> {
    (
        name(),
        prop::sample::select(vec![
            "",
            "",
            "",
            "",
            "",
            "",
            "[2]",
            "[]",
            "[0]",
            "[4294967295]",
            "[x]",
            "[a]",
            "[c]",
            "[",
            "[3",
        ]),
    )
        .prop_map(|(n, s)| format!("{n}{s}"))
}

/// Numbers: small ones that collide, limits, and the edges of u32.
fn number() -> impl Strategy<Value = u32> {
    prop_oneof![
        12 => 0u32..4,
        2 => prop::sample::select(vec![7u32, 8, 15, 16, 31, 32, 127, 128, 129, 1024, 65_535, 65_536]),
        1 => prop::sample::select(vec![u32::MAX - 3, u32::MAX - 1, u32::MAX]),
        1 => any::<u32>(),
    ]
}

fn ty() -> impl Strategy<Value = Type> {
    prop::sample::select(Type::ALL.to_vec())
}

fn frequency() -> impl Strategy<Value = Frequency> {
    prop::sample::select(Frequency::ALL.to_vec())
}

fn image_type() -> impl Strategy<Value = ImageType> {
    prop::sample::select(vec![
        ImageType::Float2D,
        ImageType::Float2DArray,
        ImageType::Float3D,
        ImageType::FloatCube,
        ImageType::Uint2D,
        ImageType::Int2D,
        ImageType::FloatBuffer,
        ImageType::Depth2D,
    ])
}

fn qualifier() -> impl Strategy<Value = Qualifier> {
    prop::sample::select(vec![
        Qualifier::Read,
        Qualifier::Write,
        Qualifier::ReadWrite,
    ])
}

fn buffer_type() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec!["vec4", "uint", "mat4", "float", "ivec2"]).prop_map(String::from),
        1 => prop::sample::select(vec!["", "Unknown", "uint; } x; #error", "bool"]).prop_map(String::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec!["1", "2.5", "vec4(1.0)", "(A + 1)", ""]).prop_map(String::from),
        1 => prop::sample::select(vec!["1\n#error x", "1 \\", "/* x", "1\u{0}", "1 // c", "\u{2028}"]).prop_map(String::from),
    ]
}

/// One builder call.
#[derive(Clone, Debug)]
enum Op {
    VertexIn(u32, Type, String),
    /// A per-instance input (`instance_in`): the same location space, another buffer.
    InstanceIn(u32, Type, String),
    /// An interface (name, instance name, members) in one of the lists: vertex, geometry, tessellation control,
    /// tessellation patch, tessellation evaluation out.
    Interface(u8, String, String, Vec<(Type, String, u8)>),
    /// Tessellation stages with a layout of this many control points.
    Tessellation(u32, u8),
    SubpassIn(u32, Type, String),
    CompilationConstant(String, i32),
    SharedVariable(Type, String),
    /// An entry-point name for the vertex, fragment or compute stage.
    EntryPoint(u8, String),
    /// A sampler declared only when a branch (of this name) is on.
    SamplerIf(String, u32, String),
    AccelerationStructure(u32, String),
    FragmentOut(u32, Type, String),
    Push(Type, String),
    PushArray(Type, String, u32),
    Sampler(u32, ImageType, String, Frequency),
    Image(u32, Qualifier, String, Frequency),
    Uniform(u32, String, String, Frequency),
    Storage(u32, Qualifier, String, String, Frequency),
    Spec(Type, String, f32),
    Define(String),
    DefineValue(String, String),
    Group([u32; 3]),
    Branch(String),
    Blend,
    Depth,
    Topology(u8),
    CullFront,
    /// `additional_info` of the info at this index of the graph.
    Reuse(usize),
    /// A geometry layout (input, output, max vertices, invocations), with a geometry stage or without one.
    Geometry(u8, u8, u32, u32, bool),
    /// The graph's shared struct of this index, as a uniform buffer's type or a `typedef_source`.
    UsesStruct(usize, bool),
    /// The graph's shared enum of this index, as a `typedef_source`.
    UsesEnum(usize),
    /// Sources ported from Blender: its prelude's macros in every stage.
    BlenderCompat,
    /// Declared builtins (a mask of the first 16 `BuiltinBits`): extensions in the generated text, features in the
    /// plan.
    Builtins(u32),
    EarlyFragmentTest,
    /// A shared constant (`constant!`): a `const` global in every stage, and a name array sizes may use.
    Constant(String, u8),
}

/// A shared struct of a graph: its name and fields (a value type or another struct of the graph, with an array
/// suffix: none, fixed, zero or runtime) — the struct family: bad names, empty bodies, runtime arrays inside a
/// struct, a struct containing itself through others, duplicate fields.
#[derive(Clone, Debug)]
struct SharedStruct {
    name: String,
    fields: Vec<(String, Result<Type, usize>, u8)>,
}

/// A shared enum: its name and `(constant, value)` pairs — the enum family: bad names, a constant defined twice,
/// one constant in two enums, two enums of one name.
#[derive(Clone, Debug)]
struct SharedEnum {
    name: String,
    values: Vec<(String, u32)>,
}

fn shared_struct() -> impl Strategy<Value = SharedStruct> {
    (
        name(),
        prop::collection::vec(
            (
                name(),
                prop_oneof![ty().prop_map(Ok), (0usize..3).prop_map(Err)],
                0u8..7,
            ),
            0..4,
        ),
    )
        .prop_map(|(name, fields)| SharedStruct { name, fields })
}

fn shared_enum() -> impl Strategy<Value = SharedEnum> {
    (
        name(),
        prop::collection::vec(
            (name(), prop_oneof![Just(0u32), Just(1), Just(u32::MAX)]),
            0..3,
        ),
    )
        .prop_map(|(name, values)| SharedEnum { name, values })
}

/// The shared types of a graph, registered before its infos.
#[derive(Clone, Debug, Default)]
struct SharedTypes {
    structs: Vec<SharedStruct>,
    enums: Vec<SharedEnum>,
}

fn shared_types() -> impl Strategy<Value = SharedTypes> {
    (
        prop::collection::vec(shared_struct(), 0..3),
        prop::collection::vec(shared_enum(), 0..2),
    )
        .prop_map(|(structs, enums)| SharedTypes { structs, enums })
}

/// Registers `types` (bad ones included: the registry records their problems, validation reports them).
fn register_types(reg: &mut Registry, types: &SharedTypes) {
    for s in &types.structs {
        let mut def = StructDef::new(s.name.clone());
        for (name, ty, array) in &s.fields {
            let field = match ty {
                Ok(t) => Field::new(*t, name.clone()),
                Err(i) => Field::structure(
                    types
                        .structs
                        .get(*i)
                        .map_or_else(|| "Missing".to_string(), |o| o.name.clone()),
                    name.clone(),
                ),
            };
            def = def.field(match array {
                0..=2 => field,
                3 => field.array(3),
                4 => field.array(0),
                5 => field.array(u32::MAX),
                _ => Field {
                    array: FieldArray::Runtime,
                    ..field
                },
            });
        }
        reg.add_struct(def);
    }
    for e in &types.enums {
        reg.add_enum(EnumDef {
            name: e.name.clone(),
            values: e.values.clone(),
        });
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (number(), ty(), name()).prop_map(|(l, t, n)| Op::VertexIn(l, t, n)),
        (number(), ty(), name()).prop_map(|(l, t, n)| Op::InstanceIn(l, t, n)),
        (
            prop_oneof![6 => Just(0u8), 1 => 1u8..5],
            name(),
            prop_oneof![3 => Just(String::new()), 2 => name()],
            prop::collection::vec((ty(), name(), 0u8..3), 0..3)
        )
            .prop_map(|(l, n, i, m)| Op::Interface(l, n, i, m)),
        (number(), 0u8..3).prop_map(|(c, d)| Op::Tessellation(c, d)),
        (number(), ty(), name()).prop_map(|(i, t, n)| Op::SubpassIn(i, t, n)),
        (
            name(),
            prop_oneof![Just(0), Just(1), Just(-1), Just(i32::MAX)]
        )
            .prop_map(|(n, v)| Op::CompilationConstant(n, v)),
        (ty(), resource_name()).prop_map(|(t, n)| Op::SharedVariable(t, n)),
        (0u8..3, name()).prop_map(|(s, n)| Op::EntryPoint(s, n)),
        (name(), number(), resource_name()).prop_map(|(b, s, n)| Op::SamplerIf(b, s, n)),
        (number(), name()).prop_map(|(s, n)| Op::AccelerationStructure(s, n)),
        (number(), ty(), name()).prop_map(|(l, t, n)| Op::FragmentOut(l, t, n)),
        (ty(), name()).prop_map(|(t, n)| Op::Push(t, n)),
        (ty(), name(), number()).prop_map(|(t, n, c)| Op::PushArray(t, n, c)),
        (number(), image_type(), resource_name(), frequency())
            .prop_map(|(s, i, n, f)| Op::Sampler(s, i, n, f)),
        (number(), qualifier(), resource_name(), frequency())
            .prop_map(|(s, q, n, f)| Op::Image(s, q, n, f)),
        (number(), buffer_type(), resource_name(), frequency())
            .prop_map(|(s, t, n, f)| Op::Uniform(s, t, n, f)),
        (
            number(),
            qualifier(),
            buffer_type(),
            resource_name(),
            frequency()
        )
            .prop_map(|(s, q, t, n, f)| Op::Storage(s, q, t, n, f)),
        (
            prop::sample::select(vec![
                Type::Bool,
                Type::Int,
                Type::Uint,
                Type::Float,
                Type::Vec2
            ]),
            name(),
            prop_oneof![Just(1.5f32), Just(f32::NAN), Just(f32::INFINITY), Just(0.0)]
        )
            .prop_map(|(t, n, v)| Op::Spec(t, n, v)),
        name().prop_map(Op::Define),
        (name(), text()).prop_map(|(n, v)| Op::DefineValue(n, v)),
        [number(), number(), number()].prop_map(Op::Group),
        name().prop_map(Op::Branch),
        Just(Op::Blend),
        Just(Op::Depth),
        (0u8..4).prop_map(Op::Topology),
        Just(Op::CullFront),
        (0usize..4).prop_map(Op::Reuse),
        (0u8..5, 0u8..3, number(), number(), any::<bool>())
            .prop_map(|(i, o, m, n, g)| Op::Geometry(i, o, m, n, g)),
        ((0usize..3), any::<bool>()).prop_map(|(i, u)| Op::UsesStruct(i, u)),
        (0usize..2).prop_map(Op::UsesEnum),
        Just(Op::BlenderCompat),
        (1u32..1 << 16).prop_map(Op::Builtins),
        Just(Op::EarlyFragmentTest),
        (name(), 0u8..6).prop_map(|(n, v)| Op::Constant(n, v)),
    ]
}

/// What the info's stages are.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Graphics,
    Compute,
    /// A building block without sources.
    Part,
}

/// The specialize functions a fuzzed info may use.
fn spec_nothing(_: &mut VariantBuilder) {}
fn spec_fold(v: &mut VariantBuilder) {
    v.set("a", false);
}
fn spec_define(v: &mut VariantBuilder) {
    if v.get("b") {
        v.define("B_ON", "1");
    }
}
fn spec_state(v: &mut VariantBuilder) {
    if v.get("a") {
        v.state(StateItem::Cull(CullMode::Back));
    }
}
/// Twins that differ only in render state: a color-write mask for output 1, which not every fuzzed info declares
/// (then the twin alone is wrong).
fn spec_state_twin(v: &mut VariantBuilder) {
    if v.get("a") {
        v.state(StateItem::ColorWrites(1, ColorWrites::NONE));
        v.set("a", false);
    }
}
fn spec_bad_define(v: &mut VariantBuilder) {
    v.define("X", "1\n#error injected through a variant");
}
const SPECIALIZERS: [fn(&mut VariantBuilder); 6] = [
    spec_nothing,
    spec_fold,
    spec_define,
    spec_state,
    spec_bad_define,
    spec_state_twin,
];

#[derive(Clone, Debug)]
struct Decl {
    kind: Kind,
    ops: Vec<Op>,
    specialize: Option<usize>,
}

fn decl() -> impl Strategy<Value = Decl> {
    (
        prop::sample::select(vec![
            Kind::Graphics,
            Kind::Graphics,
            Kind::Compute,
            Kind::Part,
        ]),
        prop::collection::vec(op(), 0..7),
        prop::option::of(0..SPECIALIZERS.len()),
    )
        .prop_map(|(kind, ops, specialize)| Decl {
            kind,
            ops,
            specialize,
        })
}

fn build(index: usize, d: &Decl, types: &SharedTypes) -> ShaderCreateInfo {
    let mut info = ShaderCreateInfo::new(format!("fz{index}"));
    // The fragment and compute sources are each info's own (see `UsingLoader`): they read what it declares.
    info = match d.kind {
        Kind::Graphics => info
            .vertex_source(format!("v{index}.glsl"))
            .fragment_source(format!("f{index}.glsl")),
        Kind::Compute => info
            .compute_source(format!("c{index}.glsl"))
            .local_group_size(8),
        Kind::Part => info,
    };
    for op in &d.ops {
        info = match op.clone() {
            Op::VertexIn(l, t, n) => info.vertex_in(l, t, n),
            Op::InstanceIn(l, t, n) => info.instance_in(l, t, n),
            Op::Interface(list, n, instance, members) => {
                let mut iface = StageInterfaceInfo::new(n, instance);
                for (t, m, interp) in members {
                    iface = match interp {
                        0 => iface.smooth(t, m),
                        1 => iface.flat(t, m),
                        _ => iface.no_perspective(t, m),
                    };
                }
                match list {
                    0 => info.vertex_out(&iface),
                    1 => info.geometry_out(&iface),
                    2 => info.tess_control_out(&iface),
                    3 => info.tess_patch_out(&iface),
                    _ => info.tess_evaluation_out(&iface),
                }
            }
            Op::Tessellation(points, domain) => info
                .tessellation_layout(
                    points,
                    [
                        TessDomain::Triangles,
                        TessDomain::Quads,
                        TessDomain::Isolines,
                    ][domain as usize],
                    TessSpacing::Equal,
                    FrontFace::CounterClockwise,
                )
                .tess_control_source(format!("tc{index}.glsl"))
                .tess_evaluation_source(format!("te{index}.glsl")),
            Op::SubpassIn(index, t, n) => info.subpass_in(index, t, n),
            Op::CompilationConstant(n, v) => info.compilation_constant(n, v),
            Op::SharedVariable(t, n) => info.shared_variable(t, n),
            Op::EntryPoint(s, n) => info.entry_point(
                [Stage::Vertex, Stage::Fragment, Stage::Compute][s as usize],
                n,
            ),
            Op::SamplerIf(branch, slot, n) => info.resources_if(branch.as_str(), |i| {
                i.sampler(slot, ImageType::Float2D, n, Frequency::Batch)
            }),
            Op::AccelerationStructure(slot, n) => {
                info.acceleration_structure(slot, n, Frequency::Pass)
            }
            Op::FragmentOut(l, t, n) => info.fragment_out(l, t, n),
            Op::Push(t, n) => info.push_constant(t, n),
            Op::PushArray(t, n, c) => info.push_constant_array(t, n, c),
            Op::Sampler(s, i, n, f) => info.sampler(s, i, n, f),
            Op::Image(s, q, n, f) => {
                info.image(s, TextureFormat::Rgba8, q, ImageType::Float2D, n, f)
            }
            Op::Uniform(s, t, n, f) => info.uniform_buf(s, t, n, f),
            Op::Storage(s, q, t, n, f) => info.storage_buf(s, q, t, n, f),
            Op::Spec(t, n, v) => match t {
                Type::Bool => info.specialization_constant(t, n, v > 1.0),
                Type::Int => info.specialization_constant(t, n, v as i32),
                Type::Uint => info.specialization_constant(t, n, v as u32),
                _ => info.specialization_constant(t, n, v),
            },
            Op::Define(n) => info.define(n),
            Op::DefineValue(n, v) => info.define_value(n, v),
            Op::Group([x, y, z]) => info.local_group_size_3d(x, y, z),
            Op::Branch(n) => info.branch(n),
            Op::Blend => info.blend(Blend::Alpha),
            Op::Depth => info.depth(DepthState::test_write(CompareOp::Less)),
            Op::Topology(t) => info.topology(
                [
                    Topology::TriangleList,
                    Topology::LineList,
                    Topology::PointList,
                    Topology::TriangleStrip,
                ][t as usize],
            ),
            Op::CullFront => info.cull(CullMode::Front),
            Op::Reuse(i) => info.additional_info(format!("fz{i}")),
            Op::Geometry(i, o, max, invocations, stage) => {
                use shader_info::{PrimitiveIn as I, PrimitiveOut as O};
                let i = [
                    I::Points,
                    I::Lines,
                    I::LinesAdjacency,
                    I::Triangles,
                    I::TrianglesAdjacency,
                ][i as usize];
                let o = [O::Points, O::LineStrip, O::TriangleStrip][o as usize];
                let info = info.geometry_layout_instanced(i, o, max, invocations);
                if stage {
                    info.geometry_source(format!("g{index}.glsl"))
                } else {
                    info
                }
            }
            Op::UsesStruct(i, as_buffer) => {
                let name = types
                    .structs
                    .get(i)
                    .map_or_else(|| "NotAStruct".to_string(), |s| s.name.clone());
                if as_buffer {
                    info.uniform_buf(7, name, "shared_block", Frequency::Pass)
                } else {
                    info.typedef_source(name)
                }
            }
            Op::UsesEnum(i) => info.typedef_source(
                types
                    .enums
                    .get(i)
                    .map_or_else(|| "NotAnEnum".to_string(), |e| e.name.clone()),
            ),
            Op::BlenderCompat => info.blender_compat(),
            Op::Builtins(mask) => info.builtins(BuiltinBits(mask)),
            Op::EarlyFragmentTest => info.early_fragment_test(true),
            Op::Constant(n, v) => info.constant(SharedConstant::new(
                n,
                match v {
                    0 => ConstValue::Bool(true),
                    1 => ConstValue::Int(-1),
                    2 => ConstValue::Uint(0),
                    3 => ConstValue::Uint(4),
                    4 => ConstValue::Uint(u32::MAX),
                    _ => ConstValue::Float(f32::NAN),
                },
            )),
        };
    }
    if let Some(s) = d.specialize {
        info = info.specialize(SPECIALIZERS[s]);
    }
    info.do_static_compilation(!matches!(d.kind, Kind::Part))
}

/// The sources of a graph: each stage of info `i` (`v<i>.glsl`, `f<i>.glsl`, `c<i>.glsl`, `g<i>.glsl`,
/// `tc<i>.glsl`, `te<i>.glsl`) reads every resource, push constant, specialization constant, vertex input, subpass
/// input, shared variable and stage input it declares unconditionally (so reflection's used set and the
/// cross-check see them, through `texelFetch` for most samplers), and writes `gl_Position` and every output.
struct UsingLoader {
    files: std::collections::HashMap<String, String>,
}

impl SourceLoader for UsingLoader {
    fn load(&self, path: &str) -> Result<String, String> {
        Ok(self
            .files
            .get(path)
            .cloned()
            .unwrap_or_else(|| "void main() {}\n".to_string()))
    }
}

/// A `vec4` of the first component of a value of `ty` read as `expr` (by index: a swizzle is a name a macro may
/// take, which validation warns of).
fn as_vec4(ty: Type, expr: &str) -> String {
    let name = ty.glsl_name();
    let first = if name.contains("mat") {
        format!("{expr}[0][0]")
    } else if name.contains("vec") {
        format!("{expr}[0]")
    } else {
        expr.to_string()
    };
    format!("vec4(float({first}))")
}

/// How a stage names member `name` of block `b`: through the block's instance in that stage, if it has one.
fn member(b: &StageBlock, name: &str) -> String {
    if b.instance.is_empty() {
        name.to_string()
    } else {
        format!("{}.{name}", b.instance)
    }
}

/// Reads of what `info` declares, one statement each, added to `fuzz_accumulator` (a `vec4`; longer than any name
/// the fuzzer declares, which it would shadow).
fn reads(reg: &Registry, name: &str, stage: Stage) -> String {
    let Ok(info) = reg.resolve(name) else {
        return String::new();
    };
    let conditional: Vec<&str> = info
        .conditional_resources
        .iter()
        .filter_map(|c| c.value.resource.as_ref().ok().map(|r| r.name.as_str()))
        .collect();
    let mut out = String::new();
    let add = |out: &mut String, e: String| out.push_str(&format!("  fuzz_accumulator += {e};\n"));
    let element = |full: &str| -> Option<(String, String)> {
        let (base, size) = split_array_name(full).ok()?;
        match size {
            ArraySize::Single => Some((base.to_string(), base.to_string())),
            ArraySize::Fixed(_) => Some((base.to_string(), format!("{base}[0]"))),
            ArraySize::Runtime => Some((base.to_string(), format!("{base}[0]"))),
        }
    };
    for it in &info.resources {
        let r = &it.value;
        if conditional.contains(&r.name.as_str()) || r.name.ends_with("_input") {
            continue;
        }
        let Some((_, one)) = element(&r.name) else {
            continue;
        };
        match &r.kind {
            ResourceKind::Sampler { image_type, .. } => {
                let runtime = r.name.ends_with("[]");
                let read = match image_type {
                    _ if runtime => None,
                    ImageType::Float2D
                    | ImageType::Depth2D
                    | ImageType::Int2D
                    | ImageType::Uint2D => Some(format!("texelFetch({one}, ivec2(0), 0)")),
                    ImageType::Float2DArray | ImageType::Float3D => {
                        Some(format!("texelFetch({one}, ivec3(0), 0)"))
                    }
                    ImageType::FloatCube => Some(format!("textureLod({one}, vec3(1.0), 0.0)")),
                    ImageType::FloatBuffer => Some(format!("texelFetch({one}, 0)")),
                    _ => None,
                };
                if let Some(read) = read {
                    add(&mut out, format!("vec4({read})"));
                }
            }
            ResourceKind::Image { qualifier, .. } if !r.name.ends_with("[]") => {
                if *qualifier == Qualifier::Write {
                    out.push_str(&format!(
                        "  imageStore({one}, ivec2(0), fuzz_accumulator);\n"
                    ));
                } else {
                    add(&mut out, format!("imageLoad({one}, ivec2(0))"));
                }
            }
            ResourceKind::UniformBuffer { type_name }
            | ResourceKind::StorageBuffer { type_name, .. } => {
                let write_only = matches!(
                    r.kind,
                    ResourceKind::StorageBuffer {
                        qualifier: Qualifier::Write,
                        ..
                    }
                );
                let ty = match type_name.as_str() {
                    "vec4" => Some(Type::Vec4),
                    "uint" => Some(Type::Uint),
                    "mat4" => Some(Type::Mat4),
                    "float" => Some(Type::Float),
                    "ivec2" => Some(Type::IVec2),
                    _ => None,
                };
                if let (Some(ty), false) = (ty, write_only) {
                    add(&mut out, as_vec4(ty, &one));
                }
            }
            _ => {}
        }
    }
    for it in &info.push_constants {
        let p = &it.value;
        let one = match p.array_size {
            Some(_) => format!("{}[0]", p.name),
            None => p.name.clone(),
        };
        add(&mut out, as_vec4(p.ty, &one));
    }
    for it in &info.specialization_constants {
        add(&mut out, as_vec4(it.value.ty, &it.value.name));
    }
    if stage == Stage::Fragment {
        for it in &info.subpass_inputs {
            add(&mut out, as_vec4(it.value.ty, &it.value.name));
        }
        for b in stage_blocks(&info, Stage::Fragment) {
            for m in &b.item.value.members {
                add(&mut out, as_vec4(m.ty, &member(&b, &m.name)));
            }
        }
    }
    if stage == Stage::Vertex {
        for it in &info.vertex_inputs {
            add(&mut out, as_vec4(it.value.ty, &it.value.name));
        }
        out.push_str("  gl_Position = fuzz_accumulator;\n");
        for b in stage_blocks(&info, Stage::Vertex) {
            for m in &b.item.value.members {
                let place = member(&b, &m.name);
                out.push_str(&format!("  {place} = {}(0);\n", m.ty.glsl_name()));
            }
        }
    }
    if matches!(
        stage,
        Stage::Geometry | Stage::TessControl | Stage::TessEvaluation
    ) {
        // Arrayed blocks (every input here, the tessellation control outputs) are indexed by vertex.
        for b in stage_blocks(&info, stage) {
            for m in &b.item.value.members {
                let place = match (b.arrayed, b.direction) {
                    (true, Direction::In) => format!("{}[0].{}", b.instance, m.name),
                    (true, Direction::Out) => format!("{}[gl_InvocationID].{}", b.instance, m.name),
                    (false, _) => member(&b, &m.name),
                };
                match b.direction {
                    Direction::In => add(&mut out, as_vec4(m.ty, &place)),
                    Direction::Out => {
                        out.push_str(&format!("  {place} = {}(0);\n", m.ty.glsl_name()))
                    }
                }
            }
        }
        out.push_str(match stage {
            Stage::Geometry => "  gl_Position = fuzz_accumulator;\n  EmitVertex();\n  EndPrimitive();\n",
            Stage::TessControl => {
                "  gl_TessLevelOuter[0] = 1.0;\n  gl_out[gl_InvocationID].gl_Position = fuzz_accumulator;\n"
            }
            _ => "  gl_Position = fuzz_accumulator;\n",
        });
    }
    if stage == Stage::Compute {
        for it in &info.shared_variables {
            if let Some((_, one)) = element(&it.value.name) {
                add(&mut out, as_vec4(it.value.ty, &one));
            }
        }
    }
    out
}

/// A diagnostic that a user can act on: it names an info of the graph (or a variant of one).
fn names_an_info(d: &Diagnostic, graph: usize) -> bool {
    let base = d.info.split('#').next().unwrap_or("");
    (0..graph).any(|i| base == format!("fz{i}"))
}

/// A diagnostic that points at a declaration or a source: an item, or a file and line.
fn points_somewhere(d: &Diagnostic) -> bool {
    d.item.is_some() || d.file.is_some() || d.declared_in.is_some()
}

/// Runs one graph through the whole flow. `Err` is a broken property (a panic is caught and reported too).
fn run_graph(
    root: &Path,
    compiler: &Compiler,
    types: &SharedTypes,
    decls: &[Decl],
) -> Result<(), String> {
    let mut reg = Registry::new();
    register_types(&mut reg, types);
    for (i, d) in decls.iter().enumerate() {
        reg.add_info(build(i, d, types));
    }
    let mut files = std::collections::HashMap::new();
    for i in 0..decls.len() {
        let name = format!("fz{i}");
        for (file, stage) in [
            (format!("v{i}.glsl"), Stage::Vertex),
            (format!("f{i}.glsl"), Stage::Fragment),
            (format!("c{i}.glsl"), Stage::Compute),
            (format!("g{i}.glsl"), Stage::Geometry),
            (format!("tc{i}.glsl"), Stage::TessControl),
            (format!("te{i}.glsl"), Stage::TessEvaluation),
        ] {
            let body = reads(&reg, &name, stage);
            files.insert(
                file,
                format!("void main() {{\n  vec4 fuzz_accumulator = vec4(0.0);\n{body}}}\n"),
            );
        }
    }
    let _ = root;
    let loader = UsingLoader { files };
    let flow = Flow::new(&reg, &loader, compiler, Profile::Debug);
    for i in 0..decls.len() {
        let name = format!("fz{i}");
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            check_info(&flow, &reg, &name, decls.len())
        }));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("{name}: {e}")),
            Err(p) => {
                let what = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(format!("{name}: PANIC {what}"));
            }
        }
    }
    Ok(())
}

fn check_info(flow: &Flow, reg: &Registry, name: &str, graph: usize) -> Result<(), String> {
    let rejected = |d: Vec<Diagnostic>, phase: &str| -> Result<(), String> {
        match d.iter().find(|d| !names_an_info(d, graph)) {
            Some(bad) => Err(format!(
                "{phase}: a diagnostic names no info of the graph:\n{bad}"
            )),
            None if d.iter().all(|d| d.severity != Severity::Error) => Err(format!(
                "{phase}: rejected without an error:\n{}",
                render_all(&d)
            )),
            None => Ok(()),
        }
    };
    let info = match flow.validated(name) {
        Ok(i) => i,
        Err(d) => {
            REJECTED.fetch_add(1, Relaxed);
            return rejected(d, "validate");
        }
    };
    ACCEPTED.fetch_add(1, Relaxed);
    if info.stages().iter().any(|s| {
        matches!(
            s,
            Stage::Geometry | Stage::TessControl | Stage::TessEvaluation
        )
    }) {
        PRIMITIVE_STAGES.fetch_add(1, Relaxed);
    }
    let mut infos = vec![info.clone()];
    match flow.expand_generated(&info) {
        Err(d) => return rejected(d, "variants"),
        Ok(None) => {}
        Ok(Some((set, variants))) => {
            // Expanded by groups of branch twins, each variant is what validating and generating it alone gives.
            for g in set.branch_twins(&info) {
                BRANCH_TWINS.fetch_add(g.len() - 1, Relaxed);
            }
            tests::expansion::matches_each_variant_alone(flow, name, &variants)?;
            for v in variants.into_iter().take(4) {
                match v {
                    Ok((v, _)) => infos.push(v),
                    Err(d) => rejected(d, "variant")?,
                }
            }
        }
    }
    let _ = reg;
    for info in &infos {
        if !info.do_static_compilation {
            continue;
        }
        for stage in info.stages() {
            COMPILED.fetch_add(1, Relaxed);
            if let Err(d) = flow.compile(info, stage) {
                rejected(d.clone(), "compile")?;
                if let Some(bad) = d.iter().find(|d| !points_somewhere(d)) {
                    return Err(format!(
                        "an accepted declaration failed to compile ({stage}) with a diagnostic that points nowhere:\n{bad}"
                    ));
                }
                // The declaration validated, so the generated declarations must compile: what fails is a hole
                // in validation (the sources are empty `main`s that use nothing).
                return Err(format!(
                    "an accepted declaration does not compile ({stage}):\n{}",
                    render_all(&d)
                ));
            }
            // Every target: translated (WGSL also checked by naga's own front end, in process), unsupported with
            // a reason, or skipped; a failure is a bug here or in naga.
            for (targets, check) in [(vec![Target::Wgsl], true), (Target::ALL.to_vec(), false)] {
                let opts = CrossOptions {
                    targets,
                    check,
                    ..Default::default()
                };
                for (target, verdict) in translate_module(flow, info, stage, &opts) {
                    TRANSLATED.fetch_add(1, Relaxed);
                    // A name only the translations declare, announced at validation (a `translation` warning),
                    // refuses the translations with that diagnostic.
                    let announced = |d: &[Diagnostic]| {
                        !d.is_empty()
                            && d.iter().all(|e| {
                                e.code == Code::Translation
                                    && info.warnings().iter().any(|w| w.message == e.message)
                            })
                    };
                    if let Verdict::Failed(d) = verdict
                        && !announced(&d)
                    {
                        return Err(format!(
                            "the {target:?} translation failed ({stage}, check {check}):\n{}",
                            render_all(&d)
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn sources() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["v.glsl", "f.glsl", "c.glsl", "g.glsl", "tc.glsl", "te.glsl"] {
        std::fs::write(dir.path().join(f), "void main() {}\n").unwrap();
    }
    dir
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000)
}

#[test]
fn random_declarations_never_panic_and_every_outcome_is_explained() {
    let dir = sources();
    let compiler = Compiler::new(dir.path()).unwrap();
    // A seed from `FUZZ_SEED`, or a new one printed so that a failure reproduces.
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("fuzz_declarations: {} cases, FUZZ_SEED={seed}", cases());
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    };
    let rng = proptest::test_runner::TestRng::from_seed(
        proptest::test_runner::RngAlgorithm::ChaCha,
        &bytes,
    );
    let mut runner = TestRunner::new_with_rng(config, rng);
    let graph = (shared_types(), prop::collection::vec(decl(), 1..4));
    let result = runner.run(&graph, |(types, decls)| {
        run_graph(dir.path(), &compiler, &types, &decls).map_err(TestCaseError::fail)
    });
    eprintln!(
        "fuzz_declarations: {} infos rejected with diagnostics, {} accepted ({} with geometry or tessellation \
         stages), {} variants derived from a branch twin, {} modules compiled and cross-checked, {} target verdicts",
        REJECTED.load(Relaxed),
        ACCEPTED.load(Relaxed),
        PRIMITIVE_STAGES.load(Relaxed),
        BRANCH_TWINS.load(Relaxed),
        COMPILED.load(Relaxed),
        TRANSLATED.load(Relaxed)
    );
    if let Err(e) = result {
        panic!("FUZZ_SEED={seed}: {e}");
    }
}

/// Every defect the fuzzer found, as the shrunk declaration it printed: each is now refused with a diagnostic or
/// compiles (the property above holds for it).
#[test]
fn fixed_failures_stay_fixed() {
    let g = |ops: Vec<Op>| Decl {
        kind: Kind::Graphics,
        ops,
        specialize: None,
    };
    let c = |ops: Vec<Op>| Decl {
        kind: Kind::Compute,
        ops,
        specialize: None,
    };
    let cases = [
        // The fuzzer's own: its sources summed every read into a local `acc`, which shadowed a push constant
        // array of that name.
        g(vec![Op::PushArray(Type::IVec2, "acc".into(), 1)]),
        // A vertex input named `gl_x` passed validation and failed in glslang.
        g(vec![Op::VertexIn(0, Type::Float, "gl_x".into())]),
        // Found in review of the family below, each passed validation and failed in glslang: two items after a
        // name the portable flavor alone declares (compared with it only, a translation warning); a define and a
        // subpass input named like layout qualifiers (macros that rewrite `layout(location = …)`); an instance
        // name in one interface list and a member of another list's block without one, both global in one stage;
        // members of two such blocks in one stage; one block name for a stage's `out` and `patch out`.
        g(vec![
            Op::FragmentOut(0, Type::Float, "gpu_inverse".into()),
            Op::FragmentOut(1, Type::Float, "gpu_inverse".into()),
        ]),
        g(vec![
            Op::Define("location".into()),
            Op::VertexIn(0, Type::Float, "a".into()),
        ]),
        g(vec![
            Op::SubpassIn(0, Type::Vec4, "location".into()),
            Op::FragmentOut(0, Type::Vec4, "a".into()),
        ]),
        g(vec![
            Op::Interface(0, "a".into(), "b".into(), vec![(Type::Vec4, "c".into(), 0)]),
            Op::Interface(
                1,
                "d".into(),
                String::new(),
                vec![(Type::Vec4, "b".into(), 0)],
            ),
            Op::Geometry(3, 2, 3, 1, true),
        ]),
        g(vec![
            Op::Tessellation(3, 0),
            Op::Interface(0, "a".into(), "b".into(), vec![(Type::Vec4, "c".into(), 0)]),
            Op::Interface(2, "d".into(), "e".into(), vec![(Type::Vec4, "c".into(), 0)]),
            Op::Interface(
                3,
                "f".into(),
                String::new(),
                vec![(Type::Float, "x".into(), 0)],
            ),
            Op::Interface(
                4,
                "g".into(),
                String::new(),
                vec![(Type::Float, "x".into(), 0)],
            ),
        ]),
        g(vec![
            Op::Tessellation(3, 0),
            Op::Interface(0, "a".into(), "b".into(), vec![(Type::Vec4, "c".into(), 0)]),
            Op::Interface(2, "d".into(), "e".into(), vec![(Type::Vec4, "c".into(), 0)]),
            Op::Interface(
                3,
                "d".into(),
                "f".into(),
                vec![(Type::Float, "x".into(), 0)],
            ),
            Op::Interface(
                4,
                "g".into(),
                "h".into(),
                vec![(Type::Float, "x".into(), 0)],
            ),
        ]),
        // A smooth `int` vertex output read by tessellation (the fragment stage never reads it, so validation
        // asks no `flat`): the vertex stage's WGSL failed, WGSL wanting `flat` on every integer input and output.
        g(vec![
            Op::Tessellation(1, 0),
            Op::Interface(
                0,
                "a".into(),
                String::new(),
                vec![(Type::Int, "b".into(), 0)],
            ),
            Op::Interface(
                4,
                "a".into(),
                String::new(),
                vec![(Type::Float, "b".into(), 0)],
            ),
        ]),
        // Two fragment outputs of one name after a vertex input of that name: each was compared with the vertex
        // input only (another stage), and glslang refused the redefinition.
        g(vec![
            Op::VertexIn(0, Type::Float, "data".into()),
            Op::FragmentOut(1, Type::Float, "data".into()),
            Op::FragmentOut(0, Type::Float, "data".into()),
        ]),
        // Binding 65,535 is past glslang's 16-bit binding field.
        g(vec![Op::Image(
            65_535,
            Qualifier::Read,
            "a".into(),
            Frequency::Pass,
        )]),
        // An interface without members generated an empty block.
        g(vec![Op::Interface(0, "a".into(), String::new(), vec![])]),
        // A `samplerBuffer` was reflected as a combined image sampler (it is a uniform texel buffer).
        g(vec![Op::Sampler(
            0,
            ImageType::FloatBuffer,
            "a".into(),
            Frequency::Pass,
        )]),
        // A define named like a fragment output rewrote its declaration.
        g(vec![
            Op::FragmentOut(0, Type::Float, "pos".into()),
            Op::DefineValue("pos".into(), "1".into()),
        ]),
        // An interface block named like its own member.
        g(vec![Op::Interface(
            0,
            "color".into(),
            String::new(),
            vec![(Type::Double, "color".into(), 1)],
        )]),
        // A branch named like an interface block.
        g(vec![
            Op::Branch("tex".into()),
            Op::Interface(
                0,
                "tex".into(),
                String::new(),
                vec![(Type::Mat2, "a".into(), 0)],
            ),
        ]),
        // A branch named like a buffer's block (`_b` for the buffer `b`), and one whose macro is a define's name.
        g(vec![
            Op::Uniform(0, "vec4".into(), "b".into(), Frequency::Pass),
            Op::Branch("_b".into()),
        ]),
        g(vec![Op::Define("BRANCH_a".into()), Op::Branch("a".into())]),
        // Found once interfaces had instance names: the portable flavor's macro of sampler `b` rewrote the
        // declaration of the member `b` of an instance-named block (now a `translation` warning that refuses the
        // translations); a subpass input's macro did the same in every flavor (an error); a resource named like the
        // geometry stage's `<instance>_in`.
        g(vec![
            Op::Sampler(0, ImageType::Float2D, "b".into(), Frequency::Pass),
            Op::Interface(0, "c".into(), "a".into(), vec![(Type::Mat2, "b".into(), 0)]),
        ]),
        g(vec![
            Op::SubpassIn(0, Type::Vec4, "b".into()),
            Op::Interface(0, "c".into(), "a".into(), vec![(Type::Vec4, "b".into(), 0)]),
        ]),
        g(vec![
            Op::Interface(0, "c".into(), "a".into(), vec![(Type::Vec4, "b".into(), 0)]),
            Op::Interface(1, "c".into(), "a".into(), vec![(Type::Vec4, "b".into(), 0)]),
            Op::Geometry(3, 2, 3, 1, true),
            Op::Sampler(0, ImageType::Float2D, "a_in".into(), Frequency::Pass),
        ]),
        // Found with the fuzzer's items for ray queries and work-group memory: an acceleration structure outside
        // ray tracing failed every translation in naga's SPIR-V reader (now unsupported, with the reason), and a
        // shared array past i32::MAX elements passed validation and failed in glslang.
        g(vec![Op::AccelerationStructure(0, "a".into())]),
        c(vec![Op::SharedVariable(
            Type::Float,
            "a[4294967295]".into(),
        )]),
        // Found once the sources read what the info declares: naga's SPIR-V reader panicked on a `texelFetch` of
        // a 2D-array texture in a stage without an `ivec2` (the portable flavor now declares the type); a subpass
        // input named like a swizzle (its macro rewrote every `.x`); an array of one texture (not portable).
        g(vec![Op::Sampler(
            0,
            ImageType::Float2DArray,
            "a".into(),
            Frequency::Pass,
        )]),
        g(vec![Op::SubpassIn(0, Type::Vec2, "x".into())]),
        // A vertex stage writing a storage image: Tint refused the WGSL (WebGPU has no writable storage in vertex
        // stages), now unsupported on WGSL with the reason.
        g(vec![Op::Image(
            0,
            Qualifier::Write,
            "a".into(),
            Frequency::Pass,
        )]),
        g(vec![
            Op::Sampler(0, ImageType::Float2D, "a[x]".into(), Frequency::Pass),
            Op::CompilationConstant("x".into(), 1),
        ]),
        // `GL_` macros are reserved.
        g(vec![Op::Define("GL_X".into())]),
        // A z of 127 is past glslang's default limits but not Vulkan's: the device decides.
        c(vec![Op::Group([1, 1, 127])]),
        // Axes past any device, and one that reads as negative.
        c(vec![Op::Group([65_536, 1, 1])]),
        c(vec![Op::Group([1, 4_294_967_292, 1])]),
        // Found once translation joined the properties: a vertex stage without gl_Position and a matrix vertex
        // input are limits of the portable targets (unsupported, with the reason), and specialization constants
        // whose names naga's namer rewrites (`a0`, `_A`, `A_`) stay overrides and function constants by id.
        g(vec![]),
        g(vec![Op::VertexIn(0, Type::Mat2, "a".into())]),
        g(vec![Op::Spec(Type::Bool, "a0".into(), 1.5)]),
        g(vec![Op::Spec(Type::Bool, "_A".into(), 1.5)]),
        g(vec![Op::Spec(Type::Float, "A_".into(), 1.5)]),
        // A work-group axis naga refuses is unsupported on the portable targets, with the reason.
        c(vec![Op::Group([65_535, 1, 1])]),
        // Names only some generated text defines: the portable flavor's polyfill macro `inverse`; with
        // `blender_compat`, the prelude's names taken by a define, an item, a subpass input's macro, and a sampler
        // the translations read through a macro.
        g(vec![Op::Spec(Type::Bool, "inverse".into(), 1.5)]),
        g(vec![
            Op::DefineValue("float2".into(), "1".into()),
            Op::BlenderCompat,
        ]),
        g(vec![
            Op::Sampler(0, ImageType::Float2D, "int3".into(), Frequency::Pass),
            Op::BlenderCompat,
        ]),
        g(vec![
            Op::BlenderCompat,
            Op::SubpassIn(0, Type::Float, "BLI_STATIC_ASSERT".into()),
        ]),
        g(vec![
            Op::Sampler(
                0,
                ImageType::Float2D,
                "BLI_STATIC_ASSERT".into(),
                Frequency::Pass,
            ),
            Op::BlenderCompat,
        ]),
        // 8 GiB of work-group memory, sized by a compilation constant: naga panicked laying it out.
        c(vec![
            Op::CompilationConstant("x".into(), i32::MAX),
            Op::SharedVariable(Type::Float, "a[x]".into()),
        ]),
    ];
    let dir = sources();
    let compiler = Compiler::new(dir.path()).unwrap();
    for d in cases {
        if let Err(e) = run_graph(
            dir.path(),
            &compiler,
            &SharedTypes::default(),
            std::slice::from_ref(&d),
        ) {
            panic!("{d:?}: {e}");
        }
    }
    // A define named like a field of a shared struct the info uses rewrote the struct's declaration.
    let types = SharedTypes {
        structs: vec![SharedStruct {
            name: "a".into(),
            fields: vec![("color".into(), Ok(Type::Float), 0)],
        }],
        enums: vec![],
    };
    let d = g(vec![Op::Define("color".into()), Op::UsesStruct(0, false)]);
    if let Err(e) = run_graph(dir.path(), &compiler, &types, std::slice::from_ref(&d)) {
        panic!("{d:?}: {e}");
    }
    // A shared enum is `#define <name> uint`: a member of an instance-named block of its name was rewritten.
    let types = SharedTypes {
        structs: vec![],
        enums: vec![SharedEnum {
            name: "color".into(),
            values: vec![("c".into(), 0)],
        }],
    };
    let d = g(vec![
        Op::UsesEnum(0),
        Op::Interface(
            0,
            "b".into(),
            "a".into(),
            vec![(Type::Mat2, "color".into(), 0)],
        ),
    ]);
    if let Err(e) = run_graph(dir.path(), &compiler, &types, std::slice::from_ref(&d)) {
        panic!("{d:?}: {e}");
    }
}
