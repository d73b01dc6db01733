//! gpu's own SPIR-V reader for reflection against `spirq` (what the crate used before, and still a well-kept
//! reader): over every module of the library in the debug, release and translation profiles, and over glslang's
//! SPIR-V of HLSL translations, both reflect the same descriptors, blocks, members, push constants, inputs,
//! outputs, specialization constants, local size and statically used bindings.
//!
//! The spirq side below is the reflection code the crate had before its own reader.

use gpu::compiler::{Compiler, Profile};
use gpu::cross::{Portable, Target};
use gpu::flow::Flow;
use gpu::reflect::{
    ModuleReflection, ReflectedDescriptor, ReflectedIo, ReflectedMember, reflect, used_bindings,
};
use shader_info::{DescriptorKind, DirLoader, Registry, SpecValues, SubpassMode, Type};
use shaders as _;
use spirq::constant::ConstantValue;
use spirq::ty::{DescriptorType as SpqDescriptor, ScalarType, Type as SpqType};
use spirq::var::Variable;

fn descriptor_kind(d: &SpqDescriptor) -> DescriptorKind {
    match d {
        SpqDescriptor::CombinedImageSampler() => DescriptorKind::CombinedImageSampler,
        SpqDescriptor::SampledImage() => DescriptorKind::SampledImage,
        SpqDescriptor::Sampler() => DescriptorKind::Sampler,
        SpqDescriptor::StorageImage(_) => DescriptorKind::StorageImage,
        SpqDescriptor::UniformTexelBuffer() => DescriptorKind::UniformTexelBuffer,
        SpqDescriptor::StorageTexelBuffer(_) => DescriptorKind::StorageTexelBuffer,
        SpqDescriptor::UniformBuffer() => DescriptorKind::UniformBuffer,
        SpqDescriptor::StorageBuffer(_) => DescriptorKind::StorageBuffer,
        SpqDescriptor::AccelStruct() => DescriptorKind::AccelerationStructure,
        SpqDescriptor::InputAttachment(_) => DescriptorKind::InputAttachment,
    }
}

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
fn spirq_reflect(spirv: &[u32]) -> Result<ModuleReflection, String> {
    let spirv = without_spec_constant_ops(spirv);
    let entries = spirq::ReflectConfig::new()
        .spv(spirv)
        .ref_all_rscs(true)
        .combine_img_samplers(true)
        .reflect()
        .map_err(|e| e.to_string())?;
    let Some(ep) = entries.into_iter().next() else {
        return Err("the module has no entry point".into());
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
                kind: Some(descriptor_kind(desc_ty)),
                count: *nbind,
                input_attachment_index: match desc_ty {
                    SpqDescriptor::InputAttachment(i) => Some(*i),
                    _ => None,
                },
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
fn spirq_used_bindings(spirv: &[u32]) -> Result<Vec<(u32, u32)>, String> {
    let spirv = without_spec_constant_ops(spirv);
    let entries = spirq::ReflectConfig::new()
        .spv(spirv)
        .ref_all_rscs(false)
        .combine_img_samplers(true)
        .reflect()
        .map_err(|e| e.to_string())?;
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

/// Every module of the library in `profile`, and the glslang SPIR-V of the HLSL translation of a few.
fn modules(profile: Profile) -> Vec<(String, Vec<u32>)> {
    let root = shaders::glsl_root();
    let (compiler, loader) = (Compiler::new(&root).unwrap(), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, profile);
    let mut out = Vec::new();
    for info in flow.registry.infos().filter(|i| i.do_static_compilation) {
        let v = flow.validated(&info.name).unwrap();
        let variants = match flow.expand(&v).unwrap() {
            None => vec![v],
            // Every fifth variant: the mesh ubershader's 808 variants differ only in folded branches and state.
            Some((_, vs)) => vs.into_iter().flatten().step_by(5).collect(),
        };
        // Infos with subpass inputs also in local read, where they are input attachments.
        let local_read: Vec<_> = variants
            .iter()
            .filter(|v| profile != Profile::Translation && !v.subpass_inputs.is_empty())
            .map(|v| v.with_subpass_mode(SubpassMode::LocalRead).unwrap())
            .collect();
        for v in variants.iter().chain(&local_read) {
            for stage in v.stages() {
                // Ray tracing needs SPIR-V 1.4; the translation profile is 1.3 (no target takes it anyway).
                if profile == Profile::Translation && stage.is_ray_tracing() {
                    continue;
                }
                let module = if profile == Profile::Translation {
                    flow.portable(v, stage).unwrap().1
                } else {
                    flow.compile_unchecked(v, stage).unwrap().1
                };
                out.push((format!("{} {stage}", v.key()), module.spirv.clone()));
            }
        }
    }
    out
}

fn compare(name: &str, spirv: &[u32]) {
    let mut ours = reflect(spirv).unwrap_or_else(|e| panic!("{name}: {e}"));
    // spirq reads neither capabilities nor builtin variables: those two are tested by what they decide
    // (`gpu/tests/undeclared_builtins.rs`, the subgroup part of `vk_builtins`).
    ours.capabilities.clear();
    ours.builtins.clear();
    let theirs = spirq_reflect(spirv).unwrap_or_else(|e| panic!("{name}: spirq: {e}"));
    assert_eq!(ours, theirs, "{name}");
    assert_eq!(
        used_bindings(spirv).unwrap(),
        spirq_used_bindings(spirv).unwrap(),
        "{name}: used bindings"
    );
}

#[test]
fn the_readers_agree_on_every_module_of_the_library() {
    let mut n = 0;
    for profile in [Profile::Debug, Profile::Release, Profile::Translation] {
        for (name, spirv) in modules(profile) {
            compare(&format!("{name} ({profile:?})"), &spirv);
            n += 1;
        }
    }
    assert!(n > 300, "{n} modules");
}

#[test]
fn the_readers_agree_on_glslang_spirv_of_hlsl_translations() {
    let root = shaders::glsl_root();
    let (compiler, loader) = (Compiler::new(&root).unwrap(), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
    for (name, stage) in [
        ("gpu_shader_forward_lit", shader_info::Stage::Fragment),
        ("gpu_compute_map", shader_info::Stage::Compute),
    ] {
        let info = flow.validated(name).unwrap();
        let p = Portable::new(&flow, &info, stage).unwrap();
        let t = p.translate(Target::Hlsl, &SpecValues::default()).unwrap();
        let spirv = gpu::vk::testing::glslang_hlsl(&t.text, stage, &t.entry_point).unwrap();
        compare(&format!("{name} {stage} (HLSL)"), &spirv);
    }
}
