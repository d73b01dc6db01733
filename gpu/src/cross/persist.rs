//! The cross pass's entries in the [`DiskCache`]: one verdict per (module, target), so that a warm build neither
//! parses the portable module with naga nor runs the independent checkers again.
//!
//! The key covers everything the verdict depends on: the portable GLSL (the declaration and the stage source),
//! the portable SPIR-V (the includes), the binding map, the specialization values, the target, whether the check
//! ran, and the versions of the translator and of this crate. Only outcomes that are facts of the module are kept
//! (translated, unsupported); a failure is recomputed, so a fixed translator is seen at once.

use super::gl::HOST_UNIFORMS;
use super::spec::SpecHandling;
use super::{CrossOptions, Translation, Verdict};
use crate::disk_cache::{DiskCache, Kind, TOOL_VERSIONS, key_of};
use serde::{Deserialize, Serialize};
use shader_info::{ConstValue, GeneratedStage, PipelinePlan, Stage, Target};

#[derive(Serialize, Deserialize)]
enum Cached {
    Translated {
        text: String,
        entry_point: String,
        requires: Vec<String>,
        host_uniforms: Vec<String>,
        spec: CachedSpec,
        webgpu_limits: std::collections::BTreeMap<String, u64>,
    },
    Unsupported(Vec<String>),
}

/// [`SpecHandling`] with values as (kind, bits): `ConstValue`'s own serialization is untagged and cannot tell an
/// `int` from a `uint` on the way back.
#[derive(Serialize, Deserialize)]
pub(crate) enum CachedSpec {
    None,
    PipelineTime(Vec<u32>),
    Baked(Vec<(String, char, u32)>),
}

impl From<&SpecHandling> for CachedSpec {
    fn from(h: &SpecHandling) -> CachedSpec {
        match h {
            SpecHandling::None => CachedSpec::None,
            SpecHandling::PipelineTime { ids } => CachedSpec::PipelineTime(ids.clone()),
            SpecHandling::Baked { values } => CachedSpec::Baked(
                values
                    .iter()
                    .map(|(n, v)| (n.clone(), kind(*v), v.to_bits()))
                    .collect(),
            ),
        }
    }
}

impl CachedSpec {
    /// The handling it was made from; `None` for a value kind this version does not know.
    pub(crate) fn handling(self) -> Option<SpecHandling> {
        Some(match self {
            CachedSpec::None => SpecHandling::None,
            CachedSpec::PipelineTime(ids) => SpecHandling::PipelineTime { ids },
            CachedSpec::Baked(values) => SpecHandling::Baked {
                values: values
                    .into_iter()
                    .map(|(n, k, bits)| Some((n, value(k, bits)?)))
                    .collect::<Option<_>>()?,
            },
        })
    }
}

/// Kept host uniform names back as the translator's own; `None` when one is not among them (another version).
pub(crate) fn host_uniforms_back(names: &[String]) -> Option<Vec<&'static str>> {
    names
        .iter()
        .map(|h| HOST_UNIFORMS.iter().find(|k| **k == h.as_str()).copied())
        .collect()
}

/// Bumped whenever this library changes what it writes for the same module (the crate's version does not move
/// between commits): a translation kept by an older writer is then never served. 2: blocks carry their declared
/// names instead of `unnamed`, `unnamed_1`. 3: WGSL reads a push-constant block over 64 bytes from the storage
/// buffer (`cross::immediates`). 4: a WGSL translation carries the WebGPU limits it needs (`webgpu_limits`). 5: a
/// WGSL translation records its entry point as its text names it (`cs_pass1_` for `cs_pass1`).
pub(super) const OUTPUT_REVISION: u32 = 5;

/// The part of a verdict's key shared by every target of one module. It is made of what the translation reads
/// (the generated text, the portable SPIR-V, the binding map and the options), not of the info's name: variants
/// that differ only in render state share their verdicts.
pub(super) fn module_key(
    stage: Stage,
    generated: &GeneratedStage,
    spirv: &[u32],
    plan: &PipelinePlan,
    opts: &CrossOptions,
    clip_space: crate::flow::ClipSpace,
) -> u128 {
    let checkers = super::check::checkers_key(opts);
    key_of(&[
        b"translation",
        &OUTPUT_REVISION.to_le_bytes(),
        TOOL_VERSIONS.as_bytes(),
        stage.short_name().as_bytes(),
        generated.source.as_bytes(),
        bytemuck::cast_slice(spirv),
        format!("{:?}", plan.targets).as_bytes(),
        format!("{:?}", opts.values).as_bytes(),
        format!("{clip_space:?}").as_bytes(),
        &[u8::from(opts.check)],
        checkers.as_bytes(),
    ])
}

pub(super) fn verdict_key(module: u128, target: Target) -> u128 {
    key_of(&[&module.to_le_bytes(), target.name().as_bytes()])
}

/// The kept verdict of `target`, if any.
pub(super) fn load(
    disk: &DiskCache,
    module: u128,
    target: Target,
    key: &str,
    stage: Stage,
) -> Option<Verdict> {
    let data = disk.get(Kind::Translation, verdict_key(module, target))?;
    Some(match serde_json::from_slice(&data).ok()? {
        Cached::Unsupported(reasons) => Verdict::Unsupported(reasons),
        Cached::Translated {
            text,
            entry_point,
            requires,
            host_uniforms,
            spec,
            webgpu_limits,
        } => Verdict::Translated(Translation {
            target,
            key: key.to_string(),
            stage,
            text,
            entry_point,
            requires,
            spec_constants: spec.handling()?,
            host_uniforms: host_uniforms_back(&host_uniforms)?,
            webgpu_limits,
        }),
    })
}

/// Keeps a verdict that is a fact of the module (translated or unsupported).
pub(super) fn store(disk: &DiskCache, module: u128, target: Target, verdict: &Verdict) {
    let cached = match verdict {
        Verdict::Unsupported(reasons) => Cached::Unsupported(reasons.clone()),
        Verdict::Translated(t) => Cached::Translated {
            text: t.text.clone(),
            entry_point: t.entry_point.clone(),
            requires: t.requires.clone(),
            host_uniforms: t.host_uniforms.iter().map(|h| h.to_string()).collect(),
            spec: CachedSpec::from(&t.spec_constants),
            webgpu_limits: t.webgpu_limits.clone(),
        },
        Verdict::Skipped(_) | Verdict::Failed(_) | Verdict::Twin { .. } => return,
    };
    if let Ok(json) = serde_json::to_vec(&cached) {
        disk.put(Kind::Translation, verdict_key(module, target), &json);
    }
}

fn kind(v: ConstValue) -> char {
    match v {
        ConstValue::Bool(_) => 'b',
        ConstValue::Int(_) => 'i',
        ConstValue::Uint(_) => 'u',
        ConstValue::Float(_) => 'f',
    }
}

fn value(kind: char, bits: u32) -> Option<ConstValue> {
    Some(match kind {
        'b' => ConstValue::Bool(bits != 0),
        'i' => ConstValue::Int(bits as i32),
        'u' => ConstValue::Uint(bits),
        'f' => ConstValue::Float(f32::from_bits(bits)),
        _ => return None,
    })
}
