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

/// What a difference is about: written out only when there is one (a module that agrees with its declaration,
/// nearly every module, formatted a label for each of its resources and members before).
#[derive(Clone, Copy)]
enum Subject<'a> {
    Resource(&'a shader_info::Resource),
    Spilled { set: u32, binding: u32 },
    Named(&'a str),
}

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Resource(r) => write!(f, "{} `{}`", r.kind.word(), r.name),
            Subject::Spilled { set, binding } => {
                write!(f, "push constants (spilled to set {set} binding {binding})")
            }
            Subject::Named(s) => f.write_str(s),
        }
    }
}

/// A member's path in its block, `a[].b`, from the names down to it (`[]` for an array of structs).
fn member_path(path: &[&str]) -> String {
    let mut out = String::new();
    for segment in path {
        if *segment != "[]" && !out.is_empty() {
            out.push('.');
        }
        out.push_str(segment);
    }
    out
}

/// Collects the differences between a module and its declaration.
struct Checker<'a> {
    info: &'a ResolvedInfo,
    stage: Stage,
    out: Vec<Diagnostic>,
}

impl Checker<'_> {
    /// "`what` of `subject` (member `path`) is `actual` in the SPIR-V but the declaration says `expected`".
    fn mismatch(
        &mut self,
        subject: Subject,
        path: &[&str],
        what: &str,
        expected: impl fmt::Display,
        actual: impl fmt::Display,
    ) {
        let item = if path.is_empty() {
            subject.to_string()
        } else {
            format!("{subject}, member `{}`", member_path(path))
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

    fn compare_block<'e>(
        &mut self,
        subject: Subject,
        path: &mut Vec<&'e str>,
        expected: &'e BlockLayout,
        actual: &[ReflectedMember],
    ) {
        if expected.members.len() != actual.len() {
            self.mismatch(
                subject,
                path,
                "member count",
                expected.members.len(),
                actual.len(),
            );
            return;
        }
        for (e, a) in expected.members.iter().zip(actual) {
            path.push(&e.name);
            self.compare_member(subject, path, e, a);
            path.pop();
        }
    }

    fn compare_member<'e>(
        &mut self,
        subject: Subject,
        path: &mut Vec<&'e str>,
        e: &'e MemberLayout,
        a: &ReflectedMember,
    ) {
        if e.offset != a.offset {
            self.mismatch(subject, path, "offset", e.offset, a.offset);
        }
        if e.array != FieldArray::None && e.array_stride != a.array_stride {
            self.mismatch(
                subject,
                path,
                "array stride",
                fmt_opt(e.array_stride),
                fmt_opt(a.array_stride),
            );
        }
        if e.matrix_stride.is_some() && e.matrix_stride != a.matrix_stride {
            self.mismatch(
                subject,
                path,
                "matrix stride",
                fmt_opt(e.matrix_stride),
                fmt_opt(a.matrix_stride),
            );
        }
        if let FieldType::Value(t) = &e.ty
            && let Some(at) = &a.ty
            && block_type_name(*t) != at
        {
            self.mismatch(subject, path, "type", t, at);
        }
        if let Some(nested) = &e.nested {
            let array = e.array != FieldArray::None;
            if array {
                path.push("[]");
            }
            self.compare_block(subject, path, nested, &a.members);
            if array {
                path.pop();
            }
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
    let push_layout = info.push_constant_layout();
    let spill = match &push_layout {
        Some(Ok(layout)) => shader_info::PushConstantSpill::of_layout(layout),
        _ => None,
    };
    for d in &reflection.descriptors {
        // A spilled push-constant block is a storage buffer holding the block's members.
        if let Some(s) = spill.filter(|s| (s.set, s.binding) == (d.set, d.binding)) {
            let subject = Subject::Spilled {
                set: s.set,
                binding: s.binding,
            };
            if d.kind != Some(shader_info::DescriptorKind::StorageBuffer) {
                c.mismatch(
                    subject,
                    &[],
                    "descriptor type",
                    "StorageBuffer",
                    format!("{:?}", d.kind),
                );
            }
            if let Some(Ok(layout)) = &push_layout {
                c.compare_block(subject, &mut Vec::new(), layout, &d.members);
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
                Subject::Named(&format!("binding `{name}`")),
                &[],
                "set/binding",
                "no resource declared there",
                format!("set {} binding {}", d.set, d.binding),
            );
            continue;
        };
        let r = &r.value;
        let subject = Subject::Resource(r);
        let want_kind = r.descriptor_kind();
        if Some(want_kind) != d.kind {
            c.mismatch(
                subject,
                &[],
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
                subject,
                &[],
                "input attachment index",
                index,
                d.input_attachment_index
                    .map_or("none".into(), |i| i.to_string()),
            );
        }
        let want_count = r.descriptor_count();
        if want_count != d.count {
            c.mismatch(subject, &[], "descriptor count", want_count, d.count);
        }
        match r.block_layout(registry) {
            Some(Ok(layout)) => c.compare_block(subject, &mut Vec::new(), &layout, &d.members),
            Some(Err(e)) => c.mismatch(subject, &[], "layout", "a computable layout", e),
            None => {}
        }
    }
    if let Some(pc) = &reflection.push_constants {
        let subject = Subject::Named("push constants");
        match &push_layout {
            Some(Ok(layout)) => c.compare_block(subject, &mut Vec::new(), layout, pc),
            Some(Err(e)) => c.mismatch(subject, &[], "layout", "a computable layout", e),
            None => c.mismatch(
                subject,
                &[],
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
                Subject::Named(&format!("specialization constant `{name}`")),
                &[],
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
                                Subject::Named(&format!(
                                    "{} `{}`",
                                    v.value.rate.item(),
                                    v.value.name
                                )),
                                &[],
                                "type",
                                v.value.ty,
                                t,
                            );
                        }
                    }
                    None => c.mismatch(
                        Subject::Named("vertex inputs"),
                        &[],
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
                                Subject::Named(&format!("fragment_out `{}`", f.value.name)),
                                &[],
                                "type",
                                f.value.ty,
                                t,
                            );
                        }
                    }
                    None => c.mismatch(
                        Subject::Named("fragment outputs"),
                        &[],
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
                    Subject::Named("local_group_size"),
                    &[],
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

#[cfg(test)]
mod tests {
    use super::*;
    use shader_info::{Field, Frequency, Registry, ShaderCreateInfo, StructDef};

    /// The reflection a module that agrees with `layout` would give.
    fn mirror(layout: &BlockLayout) -> Vec<ReflectedMember> {
        layout
            .members
            .iter()
            .map(|m| ReflectedMember {
                name: Some(m.name.clone()),
                offset: m.offset,
                array_stride: m.array_stride,
                matrix_stride: m.matrix_stride,
                ty: match m.ty {
                    FieldType::Value(t) => Some(block_type_name(t).to_string()),
                    _ => None,
                },
                members: m.nested.as_deref().map(mirror).unwrap_or_default(),
            })
            .collect()
    }

    fn registry() -> Registry {
        let mut reg = Registry::new();
        reg.add_struct(
            StructDef::new("Light")
                .field(Field::new(Type::Vec3, "position"))
                .field(Field::new(Type::Vec4, "color")),
        );
        reg.add_struct(
            StructDef::new("Scene")
                .field(Field::new(Type::Mat4, "view"))
                .field(Field::structure("Light", "lights").array(4)),
        );
        reg.add_info(
            ShaderCreateInfo::new("lit")
                .uniform_buf(0, "Scene", "scene", Frequency::Pass)
                .push_constant(Type::Vec4, "tint")
                .compute_source("lit.comp")
                .local_group_size_2d(8, 8),
        );
        reg
    }

    /// Every difference names the resource and the member's path through arrays of structs, and a module that
    /// agrees gives none: the names are written only for a difference, so this is what keeps them right.
    #[test]
    fn a_difference_names_the_resource_and_the_member_path() {
        let reg = registry();
        let info = reg.resolve("lit").unwrap();
        let scene = &info.resources[0].value;
        let layout = scene.block_layout(&reg).unwrap().unwrap();
        let push = info.push_constant_layout().unwrap().unwrap();
        let agreeing = ModuleReflection {
            entry_point: "main".into(),
            descriptors: vec![ReflectedDescriptor {
                set: scene.set(),
                binding: scene.binding,
                name: Some("scene".into()),
                kind: Some(scene.descriptor_kind()),
                count: 1,
                input_attachment_index: None,
                members: mirror(&layout),
            }],
            push_constants: Some(mirror(&push)),
            inputs: vec![],
            outputs: vec![],
            specialization_constants: vec![],
            local_size: Some([8, 8, 1]),
            capabilities: vec![],
            builtins: vec![],
        };
        assert_eq!(cross_check(&agreeing, &info, Stage::Compute, &reg), vec![]);

        let mut moved = agreeing.clone();
        // `scene` block → its one member (the struct) → `lights` → an element's `color`.
        let lights = &mut moved.descriptors[0].members[0].members[1];
        lights.members[1].offset += 4;
        moved.push_constants.as_mut().unwrap()[0].ty = Some("ivec4".into());
        let found = cross_check(&moved, &info, Stage::Compute, &reg);
        let items: Vec<&str> = found.iter().filter_map(|d| d.item.as_deref()).collect();
        let member = format!("{}.lights[].color", layout.members[0].name);
        assert_eq!(
            items,
            vec![
                format!("uniform_buf `scene`, member `{member}`").as_str(),
                "push constants, member `tint`",
            ]
        );
        let offset = layout.members[0].nested.as_ref().unwrap().members[1]
            .nested
            .as_ref()
            .unwrap()
            .members[1]
            .offset;
        assert!(
            found[0].message.contains(&format!(
                "offset of uniform_buf `scene`, member `{member}` is {} in the SPIR-V but the declaration says {offset}",
                offset + 4
            )),
            "{}",
            found[0].message
        );
        assert!(
            found[1]
                .message
                .starts_with("type of push constants, member `tint` is ivec4")
        );
    }
}
