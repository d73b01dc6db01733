//! SPIR-V reflection (through `spirq`, which understands combined image samplers and debug info) and the
//! cross-check of a compiled module against the declaration it was generated from.
//!
//! The check compares what the compiler actually produced with what the declaration and the layout engine
//! promise: every resource's set, binding, descriptor type and count; every block member's offset, array stride
//! and matrix stride; the push-constant block; vertex inputs, fragment outputs and the compute local size.
//! Members are matched by position, not by name, because optimized SPIR-V has no names. Interface blocks between
//! stages are not compared (the compiler's linker-free per-stage compile cannot see both sides).

use serde::Serialize;
use shader_info::{
    BlockLayout, Code, DescriptorKind, Diagnostic, FieldArray, FieldType, MemberLayout, Registry,
    ResolvedInfo, Stage, Type,
};
use spirq::constant::ConstantValue;
use spirq::ty::{DescriptorType as SpqDescriptor, ScalarType, Type as SpqType};
use spirq::var::Variable;
use std::fmt;

/// The descriptor kind of a reflected binding (`None` for kinds no declaration produces).
fn descriptor_kind(d: &SpqDescriptor) -> Option<DescriptorKind> {
    Some(match d {
        SpqDescriptor::CombinedImageSampler() => DescriptorKind::CombinedImageSampler,
        SpqDescriptor::SampledImage() => DescriptorKind::SampledImage,
        SpqDescriptor::Sampler() => DescriptorKind::Sampler,
        SpqDescriptor::StorageImage(_) => DescriptorKind::StorageImage,
        SpqDescriptor::UniformTexelBuffer() => DescriptorKind::UniformTexelBuffer,
        SpqDescriptor::StorageTexelBuffer(_) => DescriptorKind::StorageTexelBuffer,
        SpqDescriptor::UniformBuffer() => DescriptorKind::UniformBuffer,
        SpqDescriptor::StorageBuffer(_) => DescriptorKind::StorageBuffer,
        SpqDescriptor::AccelStruct() => DescriptorKind::AccelerationStructure,
        _ => return None,
    })
}

/// One member of a reflected block or struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReflectedMember {
    pub name: Option<String>,
    pub offset: u32,
    /// Element stride when the member is an array.
    pub array_stride: Option<u32>,
    /// Column stride when the member is a matrix (or an array of matrices).
    pub matrix_stride: Option<u32>,
    /// The GLSL type for scalars, vectors and matrices.
    pub ty: Option<String>,
    /// Members of a nested struct.
    pub members: Vec<ReflectedMember>,
}

/// A reflected descriptor binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReflectedDescriptor {
    pub set: u32,
    pub binding: u32,
    pub name: Option<String>,
    /// `None` for a descriptor kind no declaration produces (input attachments, …).
    pub kind: Option<DescriptorKind>,
    pub count: u32,
    /// Members of the block for uniform and storage buffers.
    pub members: Vec<ReflectedMember>,
}

/// A reflected vertex input or fragment output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReflectedIo {
    pub location: u32,
    pub name: Option<String>,
    pub ty: Option<String>,
}

/// What a compiled module declares, as reflected from its SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
pub struct ModuleReflection {
    pub entry_point: String,
    pub descriptors: Vec<ReflectedDescriptor>,
    pub push_constants: Option<Vec<ReflectedMember>>,
    pub inputs: Vec<ReflectedIo>,
    pub outputs: Vec<ReflectedIo>,
    /// `(constant_id, name)`.
    pub specialization_constants: Vec<(u32, Option<String>)>,
    pub local_size: Option<[u32; 3]>,
}

/// Reflection failed (the SPIR-V could not be parsed).
#[derive(Debug, thiserror::Error)]
#[error("cannot reflect SPIR-V: {0}")]
pub struct ReflectError(pub String);

fn glsl_type(ty: &SpqType) -> Option<Type> {
    fn prefix(s: &ScalarType) -> Option<&'static str> {
        Some(match s {
            ScalarType::Float { bits: 32 } => "",
            ScalarType::Float { bits: 64 } => "d",
            ScalarType::Integer {
                bits: 32,
                is_signed: true,
            } => "i",
            ScalarType::Integer {
                bits: 32,
                is_signed: false,
            } => "u",
            ScalarType::Boolean => "b",
            _ => return None,
        })
    }
    let name = match ty {
        SpqType::Scalar(s) => match s {
            ScalarType::Float { bits: 32 } => "float".to_string(),
            ScalarType::Float { bits: 64 } => "double".to_string(),
            ScalarType::Integer {
                bits: 32,
                is_signed: true,
            } => "int".to_string(),
            ScalarType::Integer {
                bits: 32,
                is_signed: false,
            } => "uint".to_string(),
            ScalarType::Boolean => "bool".to_string(),
            _ => return None,
        },
        SpqType::Vector(v) => format!("{}vec{}", prefix(&v.scalar_ty)?, v.nscalar),
        SpqType::Matrix(m) => {
            let (c, r) = (m.nvector, m.vector_ty.nscalar);
            if c == r {
                format!("mat{c}")
            } else {
                format!("mat{c}x{r}")
            }
        }
        _ => return None,
    };
    Type::from_glsl_name(&name)
}

fn members_of(ty: &SpqType) -> Vec<ReflectedMember> {
    let SpqType::Struct(st) = ty else {
        return Vec::new();
    };
    st.members
        .iter()
        .map(|m| {
            let (array_stride, inner) = match &m.ty {
                SpqType::Array(a) => (a.stride.map(|s| s as u32), a.element_ty.as_ref()),
                other => (None, other),
            };
            let matrix_stride = match inner {
                SpqType::Matrix(mt) => mt.stride.map(|s| s as u32),
                _ => None,
            };
            ReflectedMember {
                name: m.name.clone(),
                offset: m.offset.unwrap_or(0) as u32,
                array_stride,
                matrix_stride,
                ty: glsl_type(inner).map(|t| t.glsl_name().to_string()),
                members: members_of(inner),
            }
        })
        .collect()
}

/// A copy of `spirv` in which every `OpSpecConstantOp` is replaced by an `OpUndef` of the same type and id.
/// spirq evaluates every constant while parsing and fails on operations it cannot fold (e.g. `Select` on a
/// specialization constant, which `FLAG ? a : b` produces); reflection needs none of their values. Instructions
/// are self-delimiting and nothing refers to word positions, so shortening one is safe.
fn without_spec_constant_ops(spirv: &[u32]) -> Vec<u32> {
    const OP_SPEC_CONSTANT_OP: u32 = 52;
    const OP_UNDEF: u32 = 1;
    let mut out = Vec::with_capacity(spirv.len());
    out.extend_from_slice(&spirv[..spirv.len().min(5)]);
    let mut i = 5;
    while i < spirv.len() {
        let count = (spirv[i] >> 16) as usize;
        if count == 0 || i + count > spirv.len() {
            out.extend_from_slice(&spirv[i..]); // malformed: let spirq report it
            break;
        }
        if spirv[i] & 0xffff == OP_SPEC_CONSTANT_OP && count >= 4 {
            out.extend_from_slice(&[(3 << 16) | OP_UNDEF, spirv[i + 1], spirv[i + 2]]);
        } else {
            out.extend_from_slice(&spirv[i..i + count]);
        }
        i += count;
    }
    out
}

/// Reflects the first entry point of a SPIR-V module.
///
/// ```no_run
/// # let spirv: Vec<u32> = vec![];
/// let r = gpu::reflect::reflect(&spirv).unwrap();
/// for d in &r.descriptors {
///     println!("set {} binding {}: {:?} x{}", d.set, d.binding, d.kind, d.count);
/// }
/// ```
pub fn reflect(spirv: &[u32]) -> Result<ModuleReflection, ReflectError> {
    let spirv = without_spec_constant_ops(spirv);
    let entries = spirq::ReflectConfig::new()
        .spv(spirv)
        .ref_all_rscs(true)
        .combine_img_samplers(true)
        .reflect()
        .map_err(|e| ReflectError(e.to_string()))?;
    let Some(ep) = entries.into_iter().next() else {
        return Err(ReflectError("the module has no entry point".into()));
    };
    let mut out = ModuleReflection {
        entry_point: ep.name.clone(),
        ..Default::default()
    };
    for var in &ep.vars {
        match var {
            Variable::Descriptor {
                name,
                desc_bind,
                desc_ty,
                ty,
                nbind,
            } => out.descriptors.push(ReflectedDescriptor {
                set: desc_bind.set(),
                binding: desc_bind.bind(),
                name: name.clone(),
                kind: descriptor_kind(desc_ty),
                count: *nbind,
                members: members_of(ty),
            }),
            Variable::PushConstant { ty, .. } => out.push_constants = Some(members_of(ty)),
            Variable::Input { name, location, ty } => out.inputs.push(ReflectedIo {
                location: location.loc(),
                name: name.clone(),
                ty: glsl_type(ty).map(|t| t.glsl_name().into()),
            }),
            Variable::Output { name, location, ty } => out.outputs.push(ReflectedIo {
                location: location.loc(),
                name: name.clone(),
                ty: glsl_type(ty).map(|t| t.glsl_name().into()),
            }),
            Variable::SpecConstant { name, spec_id, .. } => {
                out.specialization_constants.push((*spec_id, name.clone()))
            }
        }
    }
    for m in &ep.exec_modes {
        if m.exec_mode == spirq::spirv::ExecutionMode::LocalSize && m.operands.len() == 3 {
            // spirq's `ConstantValue::to_u32` only accepts signed values, so match the variants directly.
            let v: Vec<u32> = m
                .operands
                .iter()
                .filter_map(|c| match c.value {
                    ConstantValue::U32(x) => Some(x),
                    ConstantValue::S32(x) => u32::try_from(x).ok(),
                    _ => None,
                })
                .collect();
            if v.len() == 3 {
                out.local_size = Some([v[0], v[1], v[2]]);
            }
        }
    }
    out.descriptors.sort_by_key(|d| (d.set, d.binding));
    out.inputs.sort_by_key(|d| d.location);
    out.outputs.sort_by_key(|d| d.location);
    Ok(out)
}

/// The `(set, binding)` pairs the module's entry point statically uses: the stage flags a pipeline layout needs.
pub fn used_bindings(spirv: &[u32]) -> Result<Vec<(u32, u32)>, ReflectError> {
    let spirv = without_spec_constant_ops(spirv);
    let entries = spirq::ReflectConfig::new()
        .spv(spirv)
        .ref_all_rscs(false)
        .combine_img_samplers(true)
        .reflect()
        .map_err(|e| ReflectError(e.to_string()))?;
    let mut used: Vec<(u32, u32)> = entries
        .iter()
        .flat_map(|ep| ep.vars.iter())
        .filter_map(|v| match v {
            Variable::Descriptor { desc_bind, .. } => Some((desc_bind.set(), desc_bind.bind())),
            _ => None,
        })
        .collect();
    used.sort_unstable();
    used.dedup();
    Ok(used)
}

/// Collects the differences between a module and its declaration.
struct Checker<'a> {
    info: &'a ResolvedInfo,
    stage: Stage,
    out: Vec<Diagnostic>,
}

impl Checker<'_> {
    /// "`what` of `resource` (member `m`) is `actual` in the SPIR-V but the declaration says `expected`".
    fn mismatch(
        &mut self,
        resource: &str,
        member: Option<String>,
        what: &str,
        expected: impl fmt::Display,
        actual: impl fmt::Display,
    ) {
        let item = match &member {
            Some(m) => format!("{resource}, member `{m}`"),
            None => resource.to_string(),
        };
        self.out.push(
            Diagnostic::error(
                Code::ReflectionMismatch,
                &self.info.name,
                format!(
                    "{what} of {item} is {actual} in the SPIR-V but the declaration says {expected}"
                ),
            )
            .stage(self.stage)
            .item(item)
            .at(&self.info.name, self.info.origin)
            .hint("the source declares this itself (a hand-written binding or block), or the generator disagrees with the layout engine: declare it in the info"),
        );
    }

    fn compare_block(
        &mut self,
        resource: &str,
        path: &str,
        expected: &BlockLayout,
        actual: &[ReflectedMember],
    ) {
        if expected.members.len() != actual.len() {
            let p = (!path.is_empty()).then(|| path.to_string());
            self.mismatch(
                resource,
                p,
                "member count",
                expected.members.len(),
                actual.len(),
            );
            return;
        }
        for (e, a) in expected.members.iter().zip(actual) {
            let p = if path.is_empty() {
                e.name.clone()
            } else {
                format!("{path}.{}", e.name)
            };
            self.compare_member(resource, &p, e, a);
        }
    }

    fn compare_member(
        &mut self,
        resource: &str,
        path: &str,
        e: &MemberLayout,
        a: &ReflectedMember,
    ) {
        if e.offset != a.offset {
            self.mismatch(resource, Some(path.into()), "offset", e.offset, a.offset);
        }
        if e.array != FieldArray::None && e.array_stride != a.array_stride {
            self.mismatch(
                resource,
                Some(path.into()),
                "array stride",
                fmt_opt(e.array_stride),
                fmt_opt(a.array_stride),
            );
        }
        if e.matrix_stride.is_some() && e.matrix_stride != a.matrix_stride {
            self.mismatch(
                resource,
                Some(path.into()),
                "matrix stride",
                fmt_opt(e.matrix_stride),
                fmt_opt(a.matrix_stride),
            );
        }
        if let FieldType::Value(t) = &e.ty
            && let Some(at) = &a.ty
            && block_type_name(*t) != at
        {
            self.mismatch(resource, Some(path.into()), "type", t, at);
        }
        if let Some(nested) = &e.nested {
            let p = if e.array == FieldArray::None {
                path.to_string()
            } else {
                format!("{path}[]")
            };
            self.compare_block(resource, &p, nested, &a.members);
        }
    }
}

/// The type a block member has in SPIR-V: booleans are not allowed in externally visible blocks, so glslang
/// stores `bool`/`bvecN` members as `uint`/`uvecN`.
fn block_type_name(t: Type) -> &'static str {
    match t {
        Type::Bool => "uint",
        Type::BVec2 => "uvec2",
        Type::BVec3 => "uvec3",
        Type::BVec4 => "uvec4",
        other => other.glsl_name(),
    }
}

fn fmt_opt(v: Option<u32>) -> String {
    v.map_or("none".into(), |v| v.to_string())
}

/// Compares a module's reflection with the declaration of `stage` of `info`. An empty result means they agree;
/// each difference is a [`Code::ReflectionMismatch`] diagnostic naming the info, stage, item and both values.
///
/// Resources the stage does not use may be missing from optimized SPIR-V; that is not a mismatch. A resource in
/// the SPIR-V that the declaration does not have (a binding written by hand in the source) is one.
pub fn cross_check(
    reflection: &ModuleReflection,
    info: &ResolvedInfo,
    stage: Stage,
    registry: &Registry,
) -> Vec<Diagnostic> {
    let mut c = Checker {
        info,
        stage,
        out: Vec::new(),
    };
    for d in &reflection.descriptors {
        let declared = info
            .resources
            .iter()
            .find(|r| r.value.set() == d.set && r.value.slot == d.binding);
        let Some(r) = declared else {
            let name = d.name.clone().unwrap_or_else(|| "?".into());
            c.mismatch(
                &format!("binding `{name}`"),
                None,
                "set/binding",
                "no resource declared there",
                format!("set {} binding {}", d.set, d.binding),
            );
            continue;
        };
        let r = &r.value;
        let label = format!("{} `{}`", r.kind.word(), r.name);
        let want_kind = r.descriptor_kind();
        if Some(want_kind) != d.kind {
            c.mismatch(
                &label,
                None,
                "descriptor type",
                format!("{want_kind:?}"),
                d.kind
                    .map_or("an undeclarable kind".into(), |k| format!("{k:?}")),
            );
        }
        let want_count = r.descriptor_count();
        if want_count != d.count {
            c.mismatch(&label, None, "descriptor count", want_count, d.count);
        }
        match r.block_layout(registry) {
            Some(Ok(layout)) => c.compare_block(&label, "", &layout, &d.members),
            Some(Err(e)) => c.mismatch(&label, None, "layout", "a computable layout", e),
            None => {}
        }
    }
    if let Some(pc) = &reflection.push_constants {
        match info.push_constant_layout() {
            Some(Ok(layout)) => c.compare_block("push constants", "", &layout, pc),
            Some(Err(e)) => c.mismatch("push constants", None, "layout", "a computable layout", e),
            None => c.mismatch(
                "push constants",
                None,
                "block",
                "no push constants",
                "a push-constant block",
            ),
        }
    }
    let declared_ids = info.specialization_constant_ids();
    for (id, name) in &reflection.specialization_constants {
        if !declared_ids.contains(id) {
            let name = name.clone().unwrap_or_else(|| "?".into());
            c.mismatch(
                &format!("specialization constant `{name}`"),
                None,
                "constant_id",
                format!("one of {declared_ids:?}"),
                id,
            );
        }
    }
    match stage {
        Stage::Vertex => {
            for io in &reflection.inputs {
                match info
                    .vertex_inputs
                    .iter()
                    .find(|v| v.value.location == io.location)
                {
                    Some(v) => {
                        if let Some(t) = &io.ty
                            && t != v.value.ty.glsl_name()
                        {
                            c.mismatch(
                                &format!("vertex_in `{}`", v.value.name),
                                None,
                                "type",
                                v.value.ty,
                                t,
                            );
                        }
                    }
                    None => c.mismatch(
                        "vertex inputs",
                        None,
                        "location",
                        "no vertex_in there",
                        io.location,
                    ),
                }
            }
        }
        Stage::Fragment => {
            for io in &reflection.outputs {
                // Dual-source outputs share location 0 (index 0 and 1) and reflection does not report the index:
                // the output matches when any declaration at its location has its type.
                let at: Vec<_> = info
                    .fragment_outputs
                    .iter()
                    .filter(|f| f.value.location == io.location)
                    .collect();
                match at.first() {
                    Some(f) => {
                        if let Some(t) = &io.ty
                            && !at.iter().any(|f| t == f.value.ty.glsl_name())
                        {
                            c.mismatch(
                                &format!("fragment_out `{}`", f.value.name),
                                None,
                                "type",
                                f.value.ty,
                                t,
                            );
                        }
                    }
                    None => c.mismatch(
                        "fragment outputs",
                        None,
                        "location",
                        "no fragment_out there",
                        io.location,
                    ),
                }
            }
        }
        Stage::Compute => {
            let want = info.local_group_size.as_ref().map(|g| g.value);
            if want != reflection.local_size {
                c.mismatch(
                    "local_group_size",
                    None,
                    "local size",
                    format!("{want:?}"),
                    format!("{:?}", reflection.local_size),
                );
            }
        }
        _ => {}
    }
    c.out
}
