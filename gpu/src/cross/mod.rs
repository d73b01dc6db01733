//! Cross-language codegen: every compilable info to WGSL, MSL, HLSL and OpenGL (ES) GLSL through naga, with the
//! binding map of each target taken from the declaration ([`shader_info::TargetMap`]) and every output checked by a
//! tool that is not naga's back end ([`check`]).
//!
//! The input is the portable flavor of the generated GLSL ([`shader_info::Flavor::Portable`]: separate textures and
//! samplers, located interface members, `inverse` written out) compiled for translation ([`Profile::Translation`]:
//! optimized, no debug info, SPIR-V 1.3), parsed and validated by naga once per module; each target then writes
//! from that one module.
//!
//! Specialization constants stay pipeline-time values where the target has them: WGSL gets `override`s with their
//! `@id`. MSL, HLSL and GLSL get the values applied at translation ([`SpecValues`]; the declared defaults unless
//! given) — naga's back ends for them fold overrides into constants — so a renderer translates once per set of
//! values and caches by them, as the translation cache does.
//!
//! ```no_run
//! use shader_info_gpu::compiler::{Compiler, Profile};
//! use shader_info_gpu::cross::{self, Target};
//! use shader_info_gpu::flow::Flow;
//! use shader_info::{DirLoader, Registry, Stage};
//! let compiler = Compiler::new("shaders/glsl").unwrap();
//! let loader = DirLoader::new("shaders/glsl");
//! let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
//! let info = flow.validated("gpu_shader_text").unwrap();
//! let portable = cross::Portable::new(&flow, &info, Stage::Fragment).unwrap();
//! let wgsl = portable.translate(Target::Wgsl, &Default::default()).unwrap();
//! println!("{}", wgsl.text);
//! ```

pub mod check;
mod gl;
mod hlsl;
mod msl;
pub(crate) mod persist;
mod portable;
pub mod spec;
mod wgsl;

pub use gl::gl_class_name;
pub use portable::{Portable, unsupported_everywhere};
pub use shader_info::{Target, TargetMap};
pub use wgsl::{immediates, webgpu_limits};

use crate::compiler::Profile;
use crate::flow::Flow;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use portable::portable_limit;
use serde::Serialize;
use shader_info::{BindingPart, Code, Diagnostic, SpecValues, Stage, ValidatedInfo};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// One translated module.
#[derive(Clone, Debug, Serialize)]
pub struct Translation {
    pub target: Target,
    pub key: String,
    #[serde(serialize_with = "stage_name")]
    pub stage: Stage,
    /// The source text.
    pub text: String,
    /// The entry point's name in `text` (`main`, or `main_` in MSL where `main` is reserved).
    pub entry_point: String,
    /// Extensions the text requires of the driver beyond the target's base version (`#extension … : require` in
    /// GLSL, `enable …;` in WGSL), e.g. `GL_EXT_clip_cull_distance` on OpenGL ES for `gl_ClipDistance`.
    pub requires: Vec<String>,
    /// How the specialization constants the module uses are applied (pipeline-time or baked).
    pub spec_constants: spec::SpecHandling,
    /// Uniforms the translator added that the host sets itself (OpenGL, ES): `naga_vs_first_instance`, the draw's
    /// first instance, which OpenGL does not add to `gl_InstanceID` as Vulkan does to `gl_InstanceIndex`.
    pub host_uniforms: Vec<&'static str>,
    /// WGSL: the WebGPU limits the module needs above the defaults every device gets, by name
    /// ([`webgpu_limits`]); empty on the other targets and where the defaults suffice.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub webgpu_limits: std::collections::BTreeMap<String, u64>,
}

fn stage_name<S: serde::Serializer>(stage: &Stage, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stage.short_name())
}

/// What became of one module on one target.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Translated (and, when checked, it passed).
    Translated(Translation),
    /// The module uses something the target cannot express: each reason names it and says why.
    Unsupported(Vec<String>),
    /// The info opted out of the target ([`shader_info::ShaderCreateInfo::skip_target`]), for this reason.
    Skipped(String),
    /// Translation or its check failed: a bug here or in a translator, reported with the module named.
    Failed(Vec<Diagnostic>),
    /// A stage of the info cannot run on the target (the reasons), and the info names a twin
    /// ([`shader_info::ShaderCreateInfo::twin`]) that serves it there: the twin's own modules are the output.
    Twin { twin: String, reasons: Vec<String> },
}

impl Verdict {
    /// This verdict as one of `info`'s: a verdict shared between variants with the same module names the variant
    /// it is reported for.
    fn for_info(&self, info: &ValidatedInfo) -> Verdict {
        let mut v = self.clone();
        match &mut v {
            Verdict::Translated(t) => t.key = info.key(),
            Verdict::Failed(diags) => {
                for d in diags {
                    d.variant = info.variant_label().map(str::to_string);
                }
            }
            Verdict::Unsupported(_) | Verdict::Skipped(_) | Verdict::Twin { .. } => {}
        }
        v
    }

    /// Which of the outcomes this is, without its payload: what reports count and serialize.
    pub fn kind(&self) -> VerdictKind {
        match self {
            Verdict::Translated(_) => VerdictKind::Translated,
            Verdict::Unsupported(_) => VerdictKind::Unsupported,
            Verdict::Skipped(_) => VerdictKind::Skipped,
            Verdict::Failed(_) => VerdictKind::Failed,
            Verdict::Twin { .. } => VerdictKind::Twin,
        }
    }

    /// A word for tables and `--json`.
    pub fn word(&self) -> &'static str {
        self.kind().word()
    }

    /// One line per reason, as the report prints them: `unsupported on wgsl: gl_PointSize (…)`.
    pub fn lines(&self, target: Target) -> Vec<String> {
        match self {
            Verdict::Translated(_) => Vec::new(),
            Verdict::Unsupported(reasons) => reasons
                .iter()
                .map(|r| format!("unsupported on {target}: {r}"))
                .collect(),
            Verdict::Skipped(reason) => vec![format!("skipped on {target}: {reason}")],
            Verdict::Failed(d) => d
                .iter()
                .map(|d| format!("failed on {target}: {}", d.message))
                .collect(),
            Verdict::Twin { twin, reasons } => reasons
                .iter()
                .map(|r| format!("served on {target} by its twin `{twin}`: {r}"))
                .collect(),
        }
    }
}

/// The outcome of a [`Verdict`] alone, for counting and reports: a new outcome is a compile error wherever
/// outcomes are counted or listed, where a word compared as a string would be silently counted as another.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Translated,
    Unsupported,
    Skipped,
    /// Served by the info's twin.
    Twin,
    Failed,
}

impl VerdictKind {
    /// Every outcome, in the order reports list them.
    pub const ALL: [VerdictKind; 5] = [
        VerdictKind::Translated,
        VerdictKind::Unsupported,
        VerdictKind::Skipped,
        VerdictKind::Twin,
        VerdictKind::Failed,
    ];

    /// A word for tables and `--json` (what it serializes as).
    pub fn word(self) -> &'static str {
        match self {
            VerdictKind::Translated => "translated",
            VerdictKind::Unsupported => "unsupported",
            VerdictKind::Skipped => "skipped",
            VerdictKind::Twin => "twin",
            VerdictKind::Failed => "failed",
        }
    }
}

impl std::fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// Reports compared with the word they print (`t.verdict == "translated"`).
impl PartialEq<&str> for VerdictKind {
    fn eq(&self, word: &&str) -> bool {
        self.word() == *word
    }
}

/// What the cross pass does for each module.
#[derive(Clone, Debug, Default)]
pub struct CrossOptions {
    /// The targets to translate to (none: the pass is off).
    pub targets: Vec<Target>,
    /// Run each output through its independent check ([`check::check`]).
    pub check: bool,
    /// Specialization values the baked targets (HLSL, OpenGL) are translated with; the declared defaults otherwise.
    pub values: SpecValues,
}

/// Every requested target's verdict for one stage of one validated info (or variant): skipped where the info opts
/// out, unsupported with the reasons where the module uses what the target lacks, else translated and checked.
///
/// ```no_run
/// use shader_info_gpu::compiler::{Compiler, Profile};
/// use shader_info_gpu::cross::{translate_module, CrossOptions, Target, Verdict};
/// use shader_info_gpu::flow::Flow;
/// use shader_info::{DirLoader, Registry, Stage};
/// let (compiler, loader) = (Compiler::new("shaders/glsl").unwrap(), DirLoader::new("shaders/glsl"));
/// let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
/// let info = flow.validated("gpu_shader_2D_image").unwrap();
/// let opts = CrossOptions { targets: vec![Target::Wgsl], check: true, ..Default::default() };
/// for (target, verdict) in translate_module(&flow, &info, Stage::Fragment, &opts) {
///     if let Verdict::Translated(t) = verdict {
///         println!("{target}:\n{}", t.text);
///     }
/// }
/// ```
///
/// An info with a twin ([`shader_info::ShaderCreateInfo::twin`]) is served by it on every target where one of its
/// stages is unsupported: each of its modules gets [`Verdict::Twin`] there, with the reasons.
pub fn translate_module(
    flow: &Flow,
    info: &ValidatedInfo,
    stage: Stage,
    opts: &CrossOptions,
) -> Vec<(Target, Verdict)> {
    let own = translate_own(flow, info, stage, opts);
    let Some(twin) = info.twin.as_ref().map(|t| t.value.clone()) else {
        return own;
    };
    // Why each target cannot run the info: the reasons any of its stages is unsupported there.
    let mut blocked: Vec<(Target, Vec<String>)> = Vec::new();
    for s in info.stages() {
        let verdicts = if s == stage {
            own.clone()
        } else {
            translate_own(flow, info, s, opts)
        };
        for (t, v) in verdicts {
            if let Verdict::Unsupported(reasons) = v {
                match blocked.iter_mut().find(|(b, _)| *b == t) {
                    Some((_, r)) => r.extend(reasons),
                    None => blocked.push((t, reasons)),
                }
            }
        }
    }
    own.into_iter()
        .map(|(t, v)| match (&v, blocked.iter().find(|(b, _)| *b == t)) {
            (Verdict::Skipped(_), _) | (_, None) => (t, v),
            (_, Some((_, reasons))) => (
                t,
                Verdict::Twin {
                    twin: twin.clone(),
                    reasons: reasons.clone(),
                },
            ),
        })
        .collect()
}

/// The verdicts of one module of the info itself (no twin).
fn translate_own(
    flow: &Flow,
    info: &ValidatedInfo,
    stage: Stage,
    opts: &CrossOptions,
) -> Vec<(Target, Verdict)> {
    if opts.targets.is_empty() {
        return Vec::new();
    }
    let skipped = |t: Target| {
        info.skipped_targets
            .iter()
            .find(|s| s.value.0 == t)
            .map(|s| Verdict::Skipped(s.value.1.clone()))
    };
    let plan = flow.plan(info);
    let everywhere = unsupported_everywhere(info, &plan, stage);
    let wanted: Vec<Target> = opts
        .targets
        .iter()
        .copied()
        .filter(|t| skipped(*t).is_none())
        .collect();
    // What the translations read, not whose they are: variants that compile to the same code with the same
    // binding map share one set of verdicts, in this pass and on disk.
    let module_key = everywhere
        .is_empty()
        .then(|| flow.portable(info, stage).ok())
        .flatten()
        .map(|(g, m)| persist::module_key(stage, &g, &m.spirv, &plan, opts, flow.clip_space));
    let translated = match module_key {
        Some(k) => {
            let names: Vec<&[u8]> = wanted.iter().map(|t| t.name().as_bytes()).collect();
            let memo_key = crate::disk_cache::key_of(&[&k.to_le_bytes(), &names.concat()]);
            // One translation per module and pass, even when two variants of it are being built at once (a
            // transparent variant and its opaque twin): the second waits for the first, as the compiler's
            // cache does.
            let cell = flow.memo::<Vec<(Target, Verdict)>>(memo_key);
            let shared = cell
                .get_or_init(|| translate_targets(flow, info, stage, opts, &wanted, Some(k), &[]));
            shared.iter().map(|(t, v)| (*t, v.for_info(info))).collect()
        }
        None => translate_targets(flow, info, stage, opts, &wanted, None, &everywhere),
    };
    opts.targets
        .iter()
        .filter_map(|&t| {
            let v = skipped(t).or_else(|| {
                translated
                    .iter()
                    .find(|(w, _)| *w == t)
                    .map(|(_, v)| v.clone())
            })?;
            Some((t, v))
        })
        .collect()
}

/// The verdicts of `targets`, each kept on disk (under `module_key`, when the module has one) or made now.
/// `everywhere`: why no target can express this module at all, if that is so.
fn translate_targets(
    flow: &Flow,
    info: &ValidatedInfo,
    stage: Stage,
    opts: &CrossOptions,
    targets: &[Target],
    module_key: Option<u128>,
    everywhere: &[String],
) -> Vec<(Target, Verdict)> {
    let disk = flow.compiler.disk_cache();
    let mut verdicts: Vec<(Target, Option<Verdict>)> = targets
        .iter()
        .map(|&t| {
            let kept = disk
                .zip(module_key)
                .and_then(|(d, k)| persist::load(d, k, t, &info.key(), stage));
            (t, kept)
        })
        .collect();
    let portable = (verdicts.iter().any(|(_, v)| v.is_none()) && everywhere.is_empty())
        .then(|| Portable::new(flow, info, stage));
    for (t, v) in &mut verdicts {
        if v.is_some() {
            continue;
        }
        let verdict = match &portable {
            None => Verdict::Unsupported(everywhere.to_vec()),
            Some(Err(d)) => match portable_limit(d) {
                Some(reason) => Verdict::Unsupported(vec![reason]),
                None => Verdict::Failed(d.clone()),
            },
            Some(Ok(p)) => p.verdict(*t, opts),
        };
        if let (Some(d), Some(k), Some(Ok(_))) = (disk, module_key, &portable) {
            persist::store(d, k, *t, &verdict);
        }
        *v = Some(verdict);
    }
    verdicts
        .into_iter()
        .filter_map(|(t, v)| Some((t, v?)))
        .collect()
}

/// Writing, the per-target step: each target module writes its text from the one portable module.
impl Portable {
    /// Translates to `target`, with specialization `values` applied where the target cannot keep them as
    /// pipeline-time constants (MSL, HLSL, GLSL).
    pub fn translate(
        &self,
        target: Target,
        values: &SpecValues,
    ) -> Result<Translation, Vec<Diagnostic>> {
        let written = catch_unwind(AssertUnwindSafe(|| self.write(target, values)));
        match written {
            Ok(Ok(t)) => Ok(t),
            Ok(Err(message)) => Err(vec![self.diagnostic(target, Code::Translation, message)]),
            Err(_) => Err(vec![self.diagnostic(
                target,
                Code::Internal,
                format!(
                    "naga panicked writing {target} for `{}` ({}): a bug in naga or in the options given to it",
                    self.key, self.stage
                ),
            )]),
        }
    }

    /// This module's verdict on one target: unsupported, or translated (and checked when `opts.check`).
    pub fn verdict(&self, target: Target, opts: &CrossOptions) -> Verdict {
        let unsupported = self.unsupported_on(target);
        if !unsupported.is_empty() {
            return Verdict::Unsupported(unsupported);
        }
        match self.translate(target, &opts.values) {
            Err(d) => Verdict::Failed(d),
            Ok(t) => match opts.check.then(|| check::check(self, &t)) {
                Some(Err(d)) => Verdict::Failed(d),
                _ => Verdict::Translated(t),
            },
        }
    }

    fn write(&self, target: Target, values: &SpecValues) -> Result<Translation, String> {
        let resolved = values.resolve(&self.plan.specialization_constants)?;
        let used = self.used_spec_constants();
        // Pipeline-time targets keep the declared defaults in the text; the values come at pipeline creation.
        let baked: Vec<_> = if spec::pipeline_time(target) {
            Vec::new()
        } else {
            resolved
                .into_iter()
                .filter(|(d, _)| used.iter().any(|u| u.id == d.id))
                .collect()
        };
        let spec_constants = if used.is_empty() {
            spec::SpecHandling::None
        } else if spec::pipeline_time(target) {
            spec::SpecHandling::PipelineTime {
                ids: used.iter().map(|c| c.id).collect(),
            }
        } else {
            spec::SpecHandling::Baked {
                values: baked.iter().map(|(d, v)| (d.name.clone(), *v)).collect(),
            }
        };
        // The module's entry point: `main`, or the name the info declared (the compiler renamed it).
        let entry = self
            .module
            .entry_points
            .first()
            .map_or_else(|| "main".to_string(), |e| e.name.clone());
        let mut webgpu_limits = std::collections::BTreeMap::new();
        let (text, entry_point) = match target {
            Target::Wgsl => {
                let (text, entry, limits) = wgsl::write(self)?;
                webgpu_limits = limits;
                (text, entry)
            }
            Target::Msl => msl::write(self, &baked, &used, &entry)?,
            Target::Hlsl => hlsl::write(self, &baked)?,
            Target::Gl | Target::Gles => {
                (gl::write(self, target, &baked, &entry)?, "main".to_string())
            }
        };
        Ok(Translation {
            target,
            key: self.key.clone(),
            stage: self.stage,
            requires: required_extensions(&text, target),
            spec_constants,
            host_uniforms: gl::HOST_UNIFORMS
                .into_iter()
                .filter(|u| text.contains(&format!("uniform uint {u};")))
                .collect(),
            text,
            entry_point,
            webgpu_limits,
        })
    }
}

fn rb(group: u32, binding: u32) -> naga::ResourceBinding {
    naga::ResourceBinding { group, binding }
}

/// Validates a module with every capability a declaration can ask for; each target's own limits are reported
/// by [`Portable::unsupported_on`].
pub(crate) fn validate(module: &naga::Module) -> Result<ModuleInfo, String> {
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(module)
        .map_err(|e| e.emit_to_string(""))
}

/// Extensions naga names that are core in OpenGL 4.3 (its `#extension` lines there change nothing).
const CORE_IN_GL43: [&str; 2] = [
    "GL_ARB_compute_shader",
    "GL_ARB_shader_storage_buffer_object",
];

/// The extensions a translated text requires beyond the target's version: GLSL `#extension NAME : require`, WGSL
/// `enable NAME[, NAME];`.
fn required_extensions(text: &str, target: Target) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#extension ")
            && let Some((name, behaviour)) = rest.split_once(':')
            && behaviour.trim() == "require"
        {
            let name = name.trim();
            if !(target == Target::Gl && CORE_IN_GL43.contains(&name)) {
                out.push(name.to_string());
            }
        } else if let Some(rest) = line
            .strip_prefix("enable ")
            .and_then(|r| r.strip_suffix(';'))
        {
            out.extend(rest.split(',').map(|n| n.trim().to_string()));
        }
    }
    out
}

/// The stages naga reads from SPIR-V.
fn naga_stage(stage: Stage) -> Option<naga::ShaderStage> {
    match stage {
        Stage::Vertex => Some(naga::ShaderStage::Vertex),
        Stage::Fragment => Some(naga::ShaderStage::Fragment),
        Stage::Compute => Some(naga::ShaderStage::Compute),
        _ => None,
    }
}

/// The binding part names of a target binding (for messages).
pub fn part_name(part: BindingPart) -> &'static str {
    match part {
        BindingPart::Whole => "",
        BindingPart::Texture => " (texture)",
        BindingPart::Sampler => " (sampler)",
    }
}

/// Profile of the portable SPIR-V.
pub const PROFILE: Profile = Profile::Translation;
