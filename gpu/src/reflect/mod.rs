//! SPIR-V reflection (through this module's own reader, `reflect::spirv`) and the cross-check of a compiled module
//! against the declaration it was generated from.
//!
//! The check compares what the compiler actually produced with what the declaration and the layout engine
//! promise: every resource's set, binding, descriptor type and count; every block member's offset, array stride
//! and matrix stride; the push-constant block; vertex inputs, fragment outputs and the compute local size.
//! Members are matched by position, not by name, because optimized SPIR-V has no names. Interface blocks between
//! stages are not compared (the compiler's linker-free per-stage compile cannot see both sides).

use serde::{Deserialize, Serialize};
use shader_info::{
    BlockLayout, Code, DescriptorKind, Diagnostic, FieldArray, FieldType, MemberLayout, Registry,
    ResolvedInfo, Stage, Type,
};
use spirv::{Module, Scalar, Storage, Ty};
use std::fmt;

mod builtins;
mod spirv;

pub use builtins::{SubgroupOps, undeclared_builtins, used_builtins};
pub(crate) use spirv::reflection_key;

/// The descriptor kind and count of a variable in a descriptor storage class (`None` for what is not a
/// descriptor, or a kind no declaration produces).
fn descriptor_of(m: &Module, var: &spirv::Var) -> Option<(Option<DescriptorKind>, u32)> {
    let (ty, count) = match m.types.get(&var.ty)? {
        Ty::Array { element, length } => {
            (*element, m.constants.get(length).map_or(0, |v| *v as u32))
        }
        Ty::RuntimeArray { element } => (*element, 0),
        _ => (var.ty, 1),
    };
    let kind = match (var.storage, m.types.get(&ty)?) {
        (Storage::UniformConstant, Ty::SampledImage { dim: 5 }) => {
            Some(DescriptorKind::UniformTexelBuffer)
        }
        (Storage::UniformConstant, Ty::SampledImage { .. }) => {
            Some(DescriptorKind::CombinedImageSampler)
        }
        (Storage::UniformConstant, Ty::Sampler) => Some(DescriptorKind::Sampler),
        (Storage::UniformConstant, Ty::AccelerationStructure) => {
            Some(DescriptorKind::AccelerationStructure)
        }
        (Storage::UniformConstant, Ty::Image { dim, sampled }) => match (*dim, *sampled) {
            (6, _) => Some(DescriptorKind::InputAttachment), // subpass data
            (5, 2) => Some(DescriptorKind::StorageTexelBuffer),
            (5, _) => Some(DescriptorKind::UniformTexelBuffer),
            (_, 2) => Some(DescriptorKind::StorageImage),
            _ => Some(DescriptorKind::SampledImage),
        },
        (Storage::Uniform, _) if m.is_buffer_block(ty) => Some(DescriptorKind::StorageBuffer),
        (Storage::Uniform, _) => Some(DescriptorKind::UniformBuffer),
        (Storage::StorageBuffer, _) => Some(DescriptorKind::StorageBuffer),
        _ => return None,
    };
    Some((kind, count))
}

/// One member of a reflected block or struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReflectedDescriptor {
    pub set: u32,
    pub binding: u32,
    pub name: Option<String>,
    /// `None` for a descriptor kind no declaration produces (a buffer of an unknown storage class, …).
    pub kind: Option<DescriptorKind>,
    pub count: u32,
    /// The `InputAttachmentIndex` of an input attachment: the color attachment it reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_attachment_index: Option<u32>,
    /// Members of the block for uniform and storage buffers.
    pub members: Vec<ReflectedMember>,
}

/// A reflected vertex input or fragment output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReflectedIo {
    pub location: u32,
    pub name: Option<String>,
    pub ty: Option<String>,
}

/// What a compiled module declares, as reflected from its SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModuleReflection {
    pub entry_point: String,
    pub descriptors: Vec<ReflectedDescriptor>,
    pub push_constants: Option<Vec<ReflectedMember>>,
    pub inputs: Vec<ReflectedIo>,
    pub outputs: Vec<ReflectedIo>,
    /// `(constant_id, name)`.
    pub specialization_constants: Vec<(u32, Option<String>)>,
    pub local_size: Option<[u32; 3]>,
    /// The SPIR-V capabilities the module declares (`OpCapability` numbers), sorted.
    pub capabilities: Vec<u32>,
    /// The `BuiltIn` decorations (SPIR-V numbers) of the builtin variables the entry point uses, sorted.
    pub builtins: Vec<u32>,
}

/// Reflection failed (the SPIR-V could not be parsed).
#[derive(Debug, thiserror::Error)]
#[error("cannot reflect SPIR-V: {0}")]
pub struct ReflectError(pub String);

/// The GLSL type of a scalar, vector or matrix type. Found by scalar and shape, not by a name built and parsed:
/// every member of every block of a module asks.
fn glsl_type(m: &Module, ty: u32) -> Option<Type> {
    let scalar = |id: u32| match m.types.get(&id)? {
        Ty::Scalar(s) => Some(*s),
        _ => None,
    };
    let (s, shape) = match m.types.get(&ty)? {
        Ty::Scalar(s) => (*s, (1, 1)),
        Ty::Vector { scalar: s, count } => (scalar(*s)?, (1, *count)),
        Ty::Matrix { column, columns } => match m.types.get(column)? {
            Ty::Vector {
                scalar: s,
                count: rows,
            } => (scalar(*s)?, (*columns, *rows)),
            _ => return None,
        },
        _ => return None,
    };
    let kind = match s {
        Scalar::Float { bits: 32 } => shader_info::Scalar::Float,
        Scalar::Float { bits: 64 } => shader_info::Scalar::Double,
        Scalar::Int {
            bits: 32,
            signed: true,
        } => shader_info::Scalar::Int,
        Scalar::Int {
            bits: 32,
            signed: false,
        } => shader_info::Scalar::Uint,
        Scalar::Bool => shader_info::Scalar::Bool,
        _ => return None,
    };
    Type::ALL
        .iter()
        .copied()
        .find(|t| t.scalar() == kind && t.shape() == shape)
}

/// The members of a struct type (nothing for other types). Nesting is bounded by the module's own types: a
/// struct cannot contain itself.
fn members_of(m: &Module, ty: u32) -> Vec<ReflectedMember> {
    fn walk(m: &Module, ty: u32, depth: u32) -> Vec<ReflectedMember> {
        let Some(Ty::Struct { members }) = m.types.get(&ty) else {
            return Vec::new();
        };
        if depth > 64 {
            return Vec::new();
        }
        members
            .iter()
            .enumerate()
            .map(|(i, &member_ty)| {
                let i = i as u32;
                let (array_stride, inner) = match m.types.get(&member_ty) {
                    Some(Ty::Array { element, .. } | Ty::RuntimeArray { element }) => {
                        (m.array_stride(member_ty), *element)
                    }
                    _ => (None, member_ty),
                };
                let matrix_stride = match m.types.get(&inner) {
                    Some(Ty::Matrix { .. }) => m.matrix_stride(ty, i),
                    _ => None,
                };
                ReflectedMember {
                    name: m.member_names.get(&(ty, i)).cloned(),
                    offset: m.offset(ty, i).unwrap_or(0),
                    array_stride,
                    matrix_stride,
                    ty: glsl_type(m, inner).map(|t| t.glsl_name().to_string()),
                    members: walk(m, inner, depth + 1),
                }
            })
            .collect()
    }
    walk(m, ty, 0)
}

/// Reflects the first entry point of a SPIR-V module.
///
/// ```no_run
/// # let spirv: Vec<u32> = vec![];
/// let r = shader_info_gpu::reflect::reflect(&spirv).unwrap();
/// for d in &r.descriptors {
///     println!("set {} binding {}: {:?} x{}", d.set, d.binding, d.kind, d.count);
/// }
/// ```
pub fn reflect(spirv: &[u32]) -> Result<ModuleReflection, ReflectError> {
    let m = Module::read(spirv).map_err(|e| ReflectError(e.0))?;
    let Some((_, entry_point, _)) = &m.entry_point else {
        return Err(ReflectError("the module has no entry point".into()));
    };
    let mut out = ModuleReflection {
        entry_point: entry_point.clone(),
        local_size: m.local_size(),
        ..Default::default()
    };
    for var in &m.variables {
        let name = m.names.get(&var.id).cloned();
        match var.storage {
            Storage::UniformConstant | Storage::Uniform | Storage::StorageBuffer => {
                let (Some((set, binding)), Some((kind, count))) =
                    (m.binding(var.id), descriptor_of(&m, var))
                else {
                    continue;
                };
                out.descriptors.push(ReflectedDescriptor {
                    set,
                    binding,
                    name,
                    kind,
                    count,
                    input_attachment_index: m.input_attachment_index(var.id),
                    members: match m.types.get(&var.ty) {
                        Some(Ty::Array { element, .. } | Ty::RuntimeArray { element }) => {
                            members_of(&m, *element)
                        }
                        _ => members_of(&m, var.ty),
                    },
                })
            }
            Storage::PushConstant => out.push_constants = Some(members_of(&m, var.ty)),
            Storage::Input | Storage::Output if !m.is_builtin(var) => {
                let Some(location) = m.location(var.id) else {
                    continue;
                };
                let io = ReflectedIo {
                    location,
                    name,
                    ty: glsl_type(&m, var.ty).map(|t| t.glsl_name().into()),
                };
                if var.storage == Storage::Input {
                    out.inputs.push(io);
                } else {
                    out.outputs.push(io);
                }
            }
            _ => {}
        }
    }
    out.capabilities = m.capabilities.clone();
    out.capabilities.sort_unstable();
    out.capabilities.dedup();
    out.builtins = m
        .used_variables()
        .into_iter()
        .filter_map(|id| m.builtin(id))
        .collect();
    out.builtins.sort_unstable();
    out.builtins.dedup();
    for id in &m.spec_constants {
        if let Some(spec_id) = m.spec_id(*id) {
            out.specialization_constants
                .push((spec_id, m.names.get(id).cloned()));
        }
    }
    out.descriptors.sort_by_key(|d| (d.set, d.binding));
    out.inputs.sort_by_key(|d| d.location);
    out.outputs.sort_by_key(|d| d.location);
    Ok(out)
}

/// The `(set, binding)` pairs the module's entry point statically uses: the stage flags a pipeline layout needs.
pub fn used_bindings(spirv: &[u32]) -> Result<Vec<(u32, u32)>, ReflectError> {
    let m = Module::read(spirv).map_err(|e| ReflectError(e.0))?;
    let used = m.used_variables();
    let mut out: Vec<(u32, u32)> = m
        .variables
        .iter()
        .filter(|v| used.contains(&v.id) && descriptor_of(&m, v).is_some())
        .filter_map(|v| m.binding(v.id))
        .collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
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
    let spill = shader_info::PushConstantSpill::of(info);
    for d in &reflection.descriptors {
        // A spilled push-constant block is a storage buffer holding the block's members.
        if let Some(s) = spill.filter(|s| (s.set, s.binding) == (d.set, d.binding)) {
            let label = format!(
                "push constants (spilled to set {} binding {})",
                s.set, s.binding
            );
            if d.kind != Some(shader_info::DescriptorKind::StorageBuffer) {
                c.mismatch(
                    &label,
                    None,
                    "descriptor type",
                    "StorageBuffer",
                    format!("{:?}", d.kind),
                );
            }
            if let Some(Ok(layout)) = info.push_constant_layout() {
                c.compare_block(&label, "", &layout, &d.members);
            }
            continue;
        }
        let declared = info
            .resources
            .iter()
            .find(|r| r.value.set() == d.set && r.value.binding == d.binding);
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
        if let shader_info::ResourceKind::InputAttachment { index, .. } = r.kind
            && d.input_attachment_index != Some(index)
        {
            c.mismatch(
                &label,
                None,
                "input attachment index",
                index,
                d.input_attachment_index
                    .map_or("none".into(), |i| i.to_string()),
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
