//! The MSL check: no Metal compiler runs here, so every argument attribute of the entry point is compared with the
//! map, and SPIRV-Cross translates the same SPIR-V as a second opinion on which resources the stage binds.

use crate::cross::Portable;
use crate::cross::check::bindings::used_bindings;
use crate::cross::check::command::run;
use shader_info::{MslClass, TargetBinding};
use std::process::Command;

/// The `[[buffer(i)]]`, `[[texture(i)]]` and `[[sampler(i)]]` attributes of MSL text.
fn msl_slots(text: &str) -> Vec<(MslClass, u32)> {
    let mut out = Vec::new();
    for (class, key) in [
        (MslClass::Buffer, "[[buffer("),
        (MslClass::Texture, "[[texture("),
        (MslClass::Sampler, "[[sampler("),
    ] {
        for (i, _) in text.match_indices(key) {
            let rest = &text[i + key.len()..];
            if let Some(n) = rest.split(')').next().and_then(|n| n.trim().parse().ok()) {
                out.push((class, n));
            }
        }
    }
    out.sort_by_key(|(c, i)| (*c as u8, *i));
    out
}

pub(crate) fn check(p: &Portable, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let map = &p.plan.targets;
    let used = used_bindings(p);
    let mut expected: Vec<(MslClass, u32)> = used
        .iter()
        .filter(|b| b.msl.class != MslClass::InlineSampler)
        .map(|b| (b.msl.class, b.msl.index))
        .collect();
    // A sampler with a declared state is a `constexpr sampler` in the function with that state, not an argument.
    let inline: Vec<&TargetBinding> = used
        .iter()
        .filter(|b| b.msl.class == MslClass::InlineSampler)
        .copied()
        .collect();
    let written = text.matches("constexpr metal::sampler ").count();
    if written != inline.len() {
        out.push(format!(
            "the MSL has {written} inline sampler(s), the map {} used by this stage",
            inline.len()
        ));
    }
    // Each declaration's filter, matched one to one with the declared states: with two inline samplers, one
    // filter written twice must not stand for both.
    let mut filters: Vec<&str> = text
        .match_indices("constexpr metal::sampler ")
        .map(|(at, _)| {
            let declaration = &text[at..];
            let declaration = &declaration[..declaration.find(");").unwrap_or(declaration.len())];
            ["min_filter::nearest", "min_filter::linear"]
                .into_iter()
                .find(|f| declaration.contains(f))
                .unwrap_or("no min_filter")
        })
        .collect();
    for b in &inline {
        if let Some(state) = b.sampler_state {
            let filter = match state.filter {
                shader_info::TexelFilter::Nearest => "min_filter::nearest",
                shader_info::TexelFilter::Linear => "min_filter::linear",
            };
            if let Some(at) = filters.iter().position(|f| *f == filter) {
                filters.swap_remove(at);
            } else {
                out.push(format!(
                    "the inline sampler of `{}` lacks its declared `{filter}`",
                    b.name
                ));
            }
        }
    }
    let uses_immediates = p
        .module()
        .global_variables
        .iter()
        .any(|(_, g)| g.space == naga::AddressSpace::Immediate);
    if uses_immediates && let Some(pc) = map.push_constants {
        expected.push((MslClass::Buffer, pc.msl_buffer));
    }
    let mut actual = msl_slots(text);
    // The runtime-array sizes buffer is the map's too when the stage uses one.
    if let Some(sizes) = map.msl_sizes_buffer
        && actual.contains(&(MslClass::Buffer, sizes))
    {
        expected.push((MslClass::Buffer, sizes));
    }
    expected.sort_by_key(|(c, i)| (*c as u8, *i));
    actual.dedup();
    if actual != expected {
        out.push(format!(
            "the entry point binds {actual:?} but the map says {expected:?}"
        ));
    }
    // Specialization constants are function constants at the declared ids.
    let ids = msl_function_constant_ids(text);
    let want: Vec<u32> = p.used_spec_constants().iter().map(|c| c.id).collect();
    if ids != want {
        out.push(format!("the MSL has function constants {ids:?}, the module uses specialization constants {want:?}"));
    }
    // Second opinion: SPIRV-Cross translates the same SPIR-V; it must bind as many of each class.
    match spirv_cross_msl(&p.spirv) {
        Ok(theirs) => {
            let count =
                |v: &[(MslClass, u32)], c: MslClass| v.iter().filter(|(k, _)| *k == c).count();
            // Both may add a buffer of runtime-array sizes; compare textures and samplers exactly and buffers
            // without it.
            let ours_buffers = count(&expected, MslClass::Buffer)
                - usize::from(
                    map.msl_sizes_buffer
                        .is_some_and(|s| expected.contains(&(MslClass::Buffer, s))),
                );
            let theirs_buffers = count(&theirs, MslClass::Buffer);
            // What the host binds for this stage (the map): naga may leave out the sampler half of a texture the
            // stage only fetches from, SPIRV-Cross keeps it; each must take no sampler the host does not bind.
            let used: Vec<(u32, u32)> = used.iter().map(|b| (b.set, b.binding)).collect();
            let host_samplers = map
                .host_bound(&used)
                .iter()
                .filter(|b| matches!(b.msl.class, MslClass::Sampler | MslClass::InlineSampler))
                .count();
            // SPIRV-Cross, given no state, makes every sampler an argument.
            let naga_samplers = count(&expected, MslClass::Sampler) + inline.len();
            let theirs_samplers = count(&theirs, MslClass::Sampler);
            if theirs_samplers < naga_samplers || theirs_samplers > host_samplers {
                out.push(format!(
                    "SPIRV-Cross binds {theirs_samplers} Sampler argument(s) for the same SPIR-V, naga \
                     {naga_samplers}, and the host binds {host_samplers} for the textures this stage uses"
                ));
            }
            let (ours, theirs) = (
                count(&expected, MslClass::Texture),
                count(&theirs, MslClass::Texture),
            );
            if ours != theirs {
                out.push(format!(
                    "SPIRV-Cross binds {theirs} Texture argument(s) for the same SPIR-V, naga {ours}"
                ));
            }
            if theirs_buffers < ours_buffers || theirs_buffers > ours_buffers + 1 {
                out.push(format!(
                    "SPIRV-Cross binds {theirs_buffers} buffer argument(s) for the same SPIR-V, naga {ours_buffers}"
                ));
            }
        }
        Err(e) => out.push(format!(
            "SPIRV-Cross cannot translate the same SPIR-V to MSL: {e}"
        )),
    }
    out
}

/// The ids of `[[function_constant(id)]]` declarations, sorted.
fn msl_function_constant_ids(text: &str) -> Vec<u32> {
    let key = "[[function_constant(";
    let mut ids: Vec<u32> = text
        .match_indices(key)
        .filter_map(|(i, _)| text[i + key.len()..].split(')').next()?.trim().parse().ok())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// SPIRV-Cross's MSL of `spirv`: the argument attributes it binds.
fn spirv_cross_msl(spirv: &[u32]) -> Result<Vec<(MslClass, u32)>, String> {
    type Memo =
        std::sync::Mutex<std::collections::HashMap<u128, Result<Vec<(MslClass, u32)>, String>>>;
    static MEMO: std::sync::OnceLock<Memo> = std::sync::OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = crate::disk_cache::key_of(&[b"spirv-cross msl", bytemuck::cast_slice(spirv)]);
    if let Some(v) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    let v = spirv_cross_msl_command(spirv);
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, v.clone());
    v
}

fn spirv_cross_msl_command(spirv: &[u32]) -> Result<Vec<(MslClass, u32)>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("module.spv");
    std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(spirv)).map_err(|e| e.to_string())?;
    let text = run(
        Command::new("spirv-cross")
            .arg(&path)
            .args(["--msl", "--msl-version", "20100"]),
        "spirv-cross",
        "apt-get install spirv-cross",
    )?;
    Ok(msl_slots(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_parse() {
        assert_eq!(
            msl_slots(
                "texture2d<float> t [[texture(1)]], sampler s [[sampler(0)]], constant X& x [[buffer(2)]]"
            ),
            [
                (MslClass::Buffer, 2),
                (MslClass::Texture, 1),
                (MslClass::Sampler, 0)
            ]
        );
    }
}
