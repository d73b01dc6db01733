//! MSL: the naga module with the binding map's `[[buffer]]`/`[[texture]]`/`[[sampler]]` slots, declared sampler
//! states as `constexpr sampler`s, and specialization constants as function constants at their declared ids;
//! checked against the map and by SPIRV-Cross as a second opinion ([`check`]).

mod check;

pub(super) use check::check;

use super::{Portable, rb};
use naga::back::msl;
use shader_info::{ConstValue, MslClass, SpecConstantPlan, portable_spec_name};

/// The MSL text of the module and the name naga gave its entry point (`main` is reserved in MSL).
pub(super) fn write(
    p: &Portable,
    baked: &[(&SpecConstantPlan, ConstValue)],
    used: &[&SpecConstantPlan],
    entry: &str,
) -> Result<(String, String), String> {
    let map = &p.plan.targets;
    // Metal's argument slots are bytes: a slot past 255 would wrap onto another resource's.
    let slot_of = |n: u32, what: &str| {
        u8::try_from(n).map_err(|_| {
            format!(
                "{what} would be at Metal slot {n}, past the 256 a Metal argument table numbers"
            )
        })
    };
    let (module, info) = p.with_constants(baked)?;
    let mut resources = msl::BindingMap::new();
    let mut inline_samplers = Vec::new();
    for b in &map.bindings {
        let slot = slot_of(b.msl.index, &format!("`{}`", b.name))?;
        let mut t = msl::BindTarget::default();
        match b.msl.class {
            MslClass::Buffer => t.buffer = Some(slot),
            MslClass::Texture => t.texture = Some(slot),
            MslClass::Sampler => t.sampler = Some(msl::BindSamplerTarget::Resource(slot)),
            MslClass::InlineSampler => {
                let state = b.sampler_state.ok_or("an inline sampler without a state")?;
                t.sampler = Some(msl::BindSamplerTarget::Inline(slot));
                inline_samplers.push(inline_sampler(&state));
            }
        }
        resources.insert(rb(b.set, b.binding), t);
    }
    let mut per_entry_point_map = msl::EntryPointResourceMap::new();
    per_entry_point_map.insert(
        entry.to_string(),
        msl::EntryPointResources {
            resources,
            immediates_buffer: map
                .push_constants
                .map(|p| slot_of(p.msl_buffer, "the push-constant buffer"))
                .transpose()?,
            sizes_buffer: map
                .msl_sizes_buffer
                .map(|b| slot_of(b, "the buffer-sizes buffer"))
                .transpose()?,
        },
    );
    let opts = msl::Options {
        lang_version: (2, 1),
        per_entry_point_map,
        inline_samplers,
        fake_missing_bindings: false,
        ..Default::default()
    };
    let pipe = msl::PipelineOptions {
        allow_and_force_point_size: false,
        ..Default::default()
    };
    let (text, info) =
        msl::write_string(&module, &info, &opts, &pipe).map_err(|e| e.to_string())?;
    let entry = info
        .entry_point_names
        .into_iter()
        .next()
        .ok_or("naga wrote no entry point")?
        .map_err(|e| e.to_string())?;
    Ok((function_constants(&text, used)?, entry))
}

/// A declared sampler state as an MSL `constexpr sampler` (anisotropy excepted: naga does not write it, so such
/// states are never inline, see [`shader_info::MslClass::InlineSampler`]).
fn inline_sampler(s: &shader_info::SamplerState) -> msl::sampler::InlineSampler {
    use msl::sampler as m;
    use shader_info::{BorderColor, CompareOp, TexelFilter, WrapMode};
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => m::Filter::Nearest,
        TexelFilter::Linear => m::Filter::Linear,
    };
    let address = match s.wrap {
        WrapMode::Repeat => m::Address::Repeat,
        WrapMode::MirroredRepeat => m::Address::MirroredRepeat,
        WrapMode::ClampToEdge => m::Address::ClampToEdge,
        WrapMode::ClampToBorder => m::Address::ClampToBorder,
    };
    m::InlineSampler {
        coord: m::Coord::Normalized,
        address: [address; 3],
        border_color: match s.border {
            BorderColor::TransparentBlack => m::BorderColor::TransparentBlack,
            BorderColor::OpaqueBlack => m::BorderColor::OpaqueBlack,
            BorderColor::OpaqueWhite => m::BorderColor::OpaqueWhite,
        },
        mag_filter: filter(s.filter),
        min_filter: filter(s.filter),
        mip_filter: s.mipmap.map(filter),
        lod_clamp: None,
        max_anisotropy: None,
        compare_func: match s.compare {
            None | Some(CompareOp::Never) => m::CompareFunc::Never,
            Some(CompareOp::Less) => m::CompareFunc::Less,
            Some(CompareOp::Equal) => m::CompareFunc::Equal,
            Some(CompareOp::LessOrEqual) => m::CompareFunc::LessEqual,
            Some(CompareOp::Greater) => m::CompareFunc::Greater,
            Some(CompareOp::NotEqual) => m::CompareFunc::NotEqual,
            Some(CompareOp::GreaterOrEqual) => m::CompareFunc::GreaterEqual,
            Some(CompareOp::Always) => m::CompareFunc::Always,
        },
    }
}

/// The MSL with each baked `constant T gpu_spec_NAME = default;` turned into a function constant at the declared
/// id that falls back to the default: `constant T gpu_spec_NAME_fc [[function_constant(id)]];` and
/// `constant T gpu_spec_NAME = is_function_constant_defined(gpu_spec_NAME_fc) ? gpu_spec_NAME_fc : default;`.
/// A used constant whose line is not found is an error, never a silently baked value.
fn function_constants(text: &str, used: &[&SpecConstantPlan]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + used.len() * 128);
    let mut found = vec![false; used.len()];
    for line in text.lines() {
        let hit = used.iter().enumerate().find_map(|(i, c)| {
            let prefix = format!("constant {} {} = ", msl_type(c), portable_spec_name(c.id));
            let default = line.strip_prefix(&prefix)?.strip_suffix(';')?;
            Some((i, c, default.to_string()))
        });
        match hit {
            Some((i, c, default)) => {
                found[i] = true;
                let (ty, name) = (msl_type(c), portable_spec_name(c.id));
                out.push_str(&format!(
                    "constant {ty} {name}_fc [[function_constant({id})]];\n\
                     constant {ty} {name} = is_function_constant_defined({name}_fc) ? {name}_fc : {default};\n",
                    id = c.id
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if let Some(i) = found.iter().position(|f| !f) {
        return Err(format!(
            "the MSL has no `constant … {}` line to make the function constant of `{}`",
            portable_spec_name(used[i].id),
            used[i].name
        ));
    }
    Ok(out)
}

fn msl_type(c: &SpecConstantPlan) -> &'static str {
    match c.default {
        ConstValue::Bool(_) => "bool",
        ConstValue::Int(_) => "int",
        ConstValue::Uint(_) => "uint",
        ConstValue::Float(_) => "float",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shader_info::Type;

    #[test]
    fn baked_msl_constants_become_function_constants() {
        let c = SpecConstantPlan {
            id: 3,
            name: "N".into(),
            ty: Type::Uint,
            default: ConstValue::Uint(4),
        };
        let out = function_constants("constant uint gpu_spec3_value = 4u;\nvoid f() {}\n", &[&c])
            .unwrap();
        assert_eq!(
            out,
            "constant uint gpu_spec3_value_fc [[function_constant(3)]];\n\
             constant uint gpu_spec3_value = is_function_constant_defined(gpu_spec3_value_fc) ? \
             gpu_spec3_value_fc : 4u;\n\
             void f() {}\n"
        );
        let e = function_constants("void f() {}\n", &[&c]).unwrap_err();
        assert!(e.contains("gpu_spec3_value") && e.contains("`N`"), "{e}");
    }
}
