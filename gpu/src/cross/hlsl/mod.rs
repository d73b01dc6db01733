//! HLSL (shader model 6.0): the naga module with the binding map's registers and spaces, specialization constants
//! baked, the draw's base instance read as 0 ([`base_instance_as_zero`]) and naga's text adjusted where this
//! library needs it ([`post`]); checked by glslang's HLSL front end, SPIRV-Tools and reflection ([`check`]).

mod check;
mod glslang_input;
mod post;

pub(super) use check::check;

use super::{Portable, rb, validate};
use naga::back::hlsl;
use shader_info::{ConstValue, SpecConstantPlan};

/// The HLSL text of the module and its entry point's name.
pub(super) fn write(
    p: &Portable,
    baked: &[(&SpecConstantPlan, ConstValue)],
) -> Result<(String, String), String> {
    let map = &p.plan.targets;
    let (module, info) = p.with_constants(baked)?;
    let (module, info) = match base_instance_as_zero(&module) {
        Some(m) => {
            let info = validate(&m)?;
            (std::borrow::Cow::Owned(m), std::borrow::Cow::Owned(info))
        }
        None => (module, info),
    };
    let mut binding_map = hlsl::BindingMap::new();
    for b in &map.bindings {
        binding_map.insert(
            rb(b.set, b.binding),
            hlsl::BindTarget {
                space: b.set as u8,
                register: b.hlsl.register,
                ..Default::default()
            },
        );
    }
    let mut sampler_buffer_binding_map = hlsl::SamplerIndexBufferBindingMap::new();
    for set in 0..p.plan.sets.len() as u32 {
        sampler_buffer_binding_map.insert(
            hlsl::SamplerIndexBufferKey { group: set },
            hlsl::BindTarget {
                space: set as u8,
                register: post::INDEX_BUFFER_REGISTER,
                ..Default::default()
            },
        );
    }
    let opts = hlsl::Options {
        shader_model: hlsl::ShaderModel::V6_0,
        binding_map,
        fake_missing_bindings: false,
        immediates_target: map.push_constants.map(|p| hlsl::BindTarget {
            space: p.hlsl.space as u8,
            register: p.hlsl.register,
            ..Default::default()
        }),
        sampler_buffer_binding_map,
        ..Default::default()
    };
    let pipe = hlsl::PipelineOptions::default();
    let mut text = String::new();
    let refl = hlsl::Writer::new(&mut text, &opts, &pipe)
        .write(&module, &info, None)
        .map_err(|e| e.to_string())?;
    let entry = refl
        .entry_point_names
        .into_iter()
        .next()
        .ok_or("naga wrote no entry point")?
        .map_err(|e| e.to_string())?;
    let text = post::plain_registers(&text)?;
    let text = post::helpers_once(&text);
    Ok((
        post::distance_arrays(&text, &distance_lengths(&p.module)),
        entry,
    ))
}

/// The HLSL semantic and array length of each clip- or cull-distance output of the entry point.
fn distance_lengths(module: &naga::Module) -> Vec<(&'static str, u32)> {
    use naga::{Binding, BuiltIn, TypeInner};
    let mut out = Vec::new();
    for ep in &module.entry_points {
        let Some(result) = &ep.function.result else {
            continue;
        };
        let members: Vec<(Option<&Binding>, naga::Handle<naga::Type>)> =
            match &module.types[result.ty].inner {
                TypeInner::Struct { members, .. } => {
                    members.iter().map(|m| (m.binding.as_ref(), m.ty)).collect()
                }
                _ => vec![(result.binding.as_ref(), result.ty)],
            };
        for (binding, ty) in members {
            let semantic = match binding {
                Some(Binding::BuiltIn(BuiltIn::ClipDistances)) => "SV_ClipDistance",
                Some(Binding::BuiltIn(BuiltIn::CullDistance)) => "SV_CullDistance",
                _ => continue,
            };
            if let TypeInner::Array {
                size: naga::ArraySize::Constant(n),
                ..
            } = module.types[ty].inner
            {
                out.push((semantic, n.get()));
            }
        }
    }
    out
}

/// The module with the draw's base instance read as 0, for HLSL: Direct3D's `SV_InstanceID` (naga's
/// `gl_InstanceIndex` there) counts from 0 in every draw, so the base it is relative to is 0, and the Blender
/// prelude's `gl_InstanceID` (`gl_InstanceIndex - gl_BaseInstance`) is `SV_InstanceID`. `None` when the module does
/// not read the base instance.
fn base_instance_as_zero(module: &naga::Module) -> Option<naga::Module> {
    use naga::{Binding, BuiltIn, Expression, Literal, ScalarKind, TypeInner};
    let mut out = module.clone();
    let mut changed = false;
    for ep in &mut out.entry_points {
        let f = &mut ep.function;
        let Some(i) = f
            .arguments
            .iter()
            .position(|a| a.binding == Some(Binding::BuiltIn(BuiltIn::BaseInstance)))
        else {
            continue;
        };
        let zero = match module.types[f.arguments[i].ty].inner {
            TypeInner::Scalar(s) if s.kind == ScalarKind::Sint => Literal::I32(0),
            _ => Literal::U32(0),
        };
        f.arguments.remove(i);
        let i = i as u32;
        for (_, e) in f.expressions.iter_mut() {
            if let Expression::FunctionArgument(j) = e {
                if *j == i {
                    *e = Expression::Literal(zero);
                } else if *j > i {
                    *j -= 1;
                }
            }
        }
        changed = true;
    }
    changed.then_some(out)
}
