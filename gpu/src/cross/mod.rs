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
//! use gpu::compiler::{Compiler, Profile};
//! use gpu::cross::{self, Target};
//! use gpu::flow::Flow;
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
mod gl_post;
mod hlsl_post;
pub mod immediates;
mod persist;
pub mod spec;

use crate::compiler::Profile;
use crate::flow::Flow;
use naga::back::{glsl, hlsl, msl, wgsl};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use serde::Serialize;
use shader_info::{
    BindingPart, BlockLayout, Code, ConstValue, DescriptorKind, Diagnostic, GlClass, MslClass,
    PipelineKind, PipelinePlan, SpecConstantPlan, SpecValues, Stage, ValidatedInfo,
};
pub use shader_info::{Target, TargetMap};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A module parsed for translation: the portable SPIR-V of one stage of one validated info (or variant), as naga
/// IR, with the plan its bindings come from.
pub struct Portable {
    /// `name` or `name#v<index>`.
    pub key: String,
    pub info: String,
    pub variant: Option<String>,
    pub stage: Stage,
    pub plan: PipelinePlan,
    /// The portable SPIR-V (what a target's independent check may compile against).
    pub spirv: Vec<u32>,
    /// The declared std140/std430 layout of each buffer block, by (set, binding).
    blocks: Vec<(u32, u32, BlockLayout)>,
    module: naga::Module,
    module_info: ModuleInfo,
}

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

    /// A word for tables and `--json`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Translated(_) => "translated",
            Verdict::Unsupported(_) => "unsupported",
            Verdict::Skipped(_) => "skipped",
            Verdict::Failed(_) => "failed",
            Verdict::Twin { .. } => "twin",
        }
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
/// use gpu::compiler::{Compiler, Profile};
/// use gpu::cross::{translate_module, CrossOptions, Target, Verdict};
/// use gpu::flow::Flow;
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
        .map(|(g, m)| persist::module_key(stage, &g, &m.spirv, &plan, opts));
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

/// The reason, when naga refused the portable module for something valid in Vulkan that the portable targets
/// cannot express (a limit of the targets, not a bug): found by the declaration fuzzer.
fn portable_limit(d: &[Diagnostic]) -> Option<String> {
    let said = |s: &str| d.iter().any(|d| d.message.contains(s));
    if said("`@builtin(position)`") {
        // Valid Vulkan with rasterization off or transform feedback.
        Some("the vertex stage never writes gl_Position: WGSL, MSL, HLSL and GLSL vertex stages must output a position".into())
    } else if said("cannot be used for user-defined entry point inputs or outputs") {
        Some("a stage input or output is a matrix (or another non-vector type): naga's entry points take scalars and \
              vectors only; declare the columns as separate vector inputs"
            .into())
    } else if said("unsupported matrix stride") {
        // std140 pads a 2-row matrix's columns to 16 bytes (a `mat2`, `mat3x2`, `mat4x2` in a uniform block);
        // naga's SPIR-V reader takes only the natural stride.
        Some("a uniform block holds a matrix with two rows (mat2, mat3x2, mat4x2), whose std140 column stride of 16 \
              bytes naga cannot read: declare it as vec4 columns, or put it in a storage buffer (std430)"
            .into())
    } else if said("Workgroup size is out of range") {
        Some("the work-group size is past what naga's targets accept on an axis (WebGPU devices allow 256 by default)".into())
    } else {
        None
    }
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

/// What no target can take from this info and stage, found from the declaration before any translator runs.
pub fn unsupported_everywhere(
    info: &ValidatedInfo,
    plan: &PipelinePlan,
    stage: Stage,
) -> Vec<String> {
    let mut out = Vec::new();
    if stage.is_ray_tracing() || plan.kind == PipelineKind::RayTracing {
        out.push(format!(
            "ray tracing ({stage} stage): WGSL, MSL, HLSL and OpenGL translation through naga has no ray-tracing stages"
        ));
    } else if naga_stage(stage).is_none() {
        out.push(format!(
            "the {stage} stage: naga reads no geometry or tessellation stages"
        ));
    }
    for (set, b) in plan.bindings() {
        match b.kind {
            DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer => out.push(format!(
                "texel buffer `{}` (set {set}, binding {}): naga reads no texel buffers; use a storage buffer",
                b.name, b.binding
            )),
            DescriptorKind::CombinedImageSampler | DescriptorKind::StorageImage if b.count > 1 => {
                out.push(format!(
                    "array of {} textures `{}` (set {set}, binding {}): binding arrays are not portable; declare one texture per binding",
                    b.count, b.name, b.binding
                ))
            }
            _ => {}
        }
    }
    let _ = info;
    out
}

impl Portable {
    /// Generates the portable GLSL of `stage` of `info`, compiles it for translation and parses it with naga.
    pub fn new(
        flow: &Flow,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<Portable, Vec<Diagnostic>> {
        let plan = flow.plan(info);
        let (_, module) = flow.portable(info, stage)?;
        let fail = |message: String, code: Code| {
            let mut d = Diagnostic::error(code, &info.name, message).stage(stage);
            if let Some(v) = info.variant_label() {
                d = d.variant(v);
            }
            vec![d]
        };
        let opts = naga::front::spv::Options {
            adjust_coordinate_space: true,
            strict_capabilities: false,
            block_ctx_dump_prefix: None,
        };
        let words = module.spirv.clone();
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            naga::front::spv::Frontend::new(words.iter().copied(), &opts).parse()
        }))
        .map_err(|_| {
            fail(
                format!(
                    "naga panicked reading the portable SPIR-V of `{}` ({stage}): a bug in naga",
                    info.key()
                ),
                Code::Internal,
            )
        })?
        .map_err(|e| {
            fail(
                format!("naga cannot read the portable SPIR-V: {e}"),
                Code::Translation,
            )
        })?;
        let mut parsed = parsed;
        // Unoptimized SPIR-V keeps what the stage never calls (the portable polyfills among it).
        naga::compact::compact(&mut parsed, naga::compact::KeepUnused::No);
        declared_access(&mut parsed, &plan);
        let module_info = validate(&parsed).map_err(|e| {
            fail(
                format!("naga rejects the portable module: {e}"),
                Code::Translation,
            )
        })?;
        let blocks = info
            .resources
            .iter()
            .filter_map(|r| {
                let layout = r.value.block_layout(flow.registry)?.ok()?;
                Some((r.value.set(), r.value.binding, layout))
            })
            .collect();
        Ok(Portable {
            key: info.key(),
            blocks,
            info: info.name.clone(),
            variant: info.variant_label().map(str::to_string),
            stage,
            plan,
            spirv: module.spirv.clone(),
            module: parsed,
            module_info,
        })
    }

    fn diagnostic(&self, target: Target, code: Code, message: String) -> Diagnostic {
        let mut d = Diagnostic::error(code, &self.info, message)
            .stage(self.stage)
            .item(format!("target {target}"));
        if let Some(v) = &self.variant {
            d = d.variant(v.clone());
        }
        d
    }

    /// What the module uses that `target` cannot express (from the naga module: built-ins, types, functions).
    pub fn unsupported_on(&self, target: Target) -> Vec<String> {
        use naga::{Binding, BuiltIn, TypeInner};
        let mut out = Vec::new();
        let builtins = self.module.entry_points.iter().flat_map(|ep| {
            let args = ep.function.arguments.iter().map(|a| (&a.binding, a.ty));
            let result = ep.function.result.iter().map(|r| (&r.binding, r.ty));
            args.chain(result).flat_map(|(binding, ty)| {
                let mut v: Vec<BuiltIn> = Vec::new();
                if let Some(Binding::BuiltIn(b)) = binding {
                    v.push(*b);
                }
                if let TypeInner::Struct { members, .. } = &self.module.types[ty].inner {
                    v.extend(members.iter().filter_map(|m| match m.binding {
                        Some(Binding::BuiltIn(b)) => Some(b),
                        _ => None,
                    }));
                }
                v
            })
        });
        let builtins: Vec<BuiltIn> = builtins.collect();
        let noperspective = self.module.entry_points.iter().any(|ep| {
            let args = ep.function.arguments.iter().map(|a| (&a.binding, a.ty));
            let result = ep.function.result.iter().map(|r| (&r.binding, r.ty));
            args.chain(result).any(|(binding, ty)| {
                let linear = |b: &Option<Binding>| {
                    matches!(
                        b,
                        Some(Binding::Location {
                            interpolation: Some(naga::Interpolation::Linear),
                            ..
                        })
                    )
                };
                linear(binding)
                    || matches!(&self.module.types[ty].inner, TypeInner::Struct { members, .. }
                        if members.iter().any(|m| linear(&m.binding)))
            })
        });
        let has = |b: BuiltIn| builtins.contains(&b);
        let no_point_size = |api: &str| {
            format!(
                "gl_PointSize ({api} has no point size): draw points as quads expanded in the vertex stage"
            )
        };
        let no_point_coord = |api: &str| format!("gl_PointCoord ({api} has no point sprites)");
        match target {
            Target::Wgsl => {
                if has(BuiltIn::PointSize) {
                    out.push(no_point_size("WebGPU"));
                }
                if has(BuiltIn::BaseInstance) {
                    out.push(
                        "the draw's base instance (WebGPU has none: `instance_index` counts from the draw's first \
                         instance, so OpenGL's `gl_InstanceID` is not expressible; pass the first instance in a \
                         push constant and subtract it)"
                            .to_string(),
                    );
                }
                if has(BuiltIn::PointCoord) {
                    out.push(no_point_coord("WebGPU"));
                }
            }
            Target::Hlsl => {
                if has(BuiltIn::PointSize) {
                    out.push(no_point_size("Direct3D"));
                }
                if has(BuiltIn::PointCoord) {
                    out.push(no_point_coord("Direct3D"));
                }
            }
            Target::Gles => {
                if noperspective {
                    out.push(
                        "noperspective interpolation (OpenGL ES has none): interpolate w-scaled values and divide in the fragment stage"
                            .to_string(),
                    );
                }
            }
            Target::Msl | Target::Gl => {}
        }
        let has_f64 = self.module.types.iter().any(|(_, t)| match t.inner {
            TypeInner::Scalar(s)
            | TypeInner::Vector { scalar: s, .. }
            | TypeInner::Matrix { scalar: s, .. } => {
                s.kind == naga::ScalarKind::Float && s.width == 8
            }
            _ => false,
        });
        if has_f64 && matches!(target, Target::Wgsl | Target::Msl | Target::Gles) {
            out.push(format!("64-bit floats ({target} has no `double`)"));
        }
        out
    }

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

    /// The specialization constants the module still uses (the translator drops the others), in id order.
    pub fn used_spec_constants(&self) -> Vec<&SpecConstantPlan> {
        self.plan
            .specialization_constants
            .iter()
            .filter(|c| {
                self.module
                    .overrides
                    .iter()
                    .any(|(_, o)| o.id == Some(c.id as u16))
            })
            .collect()
    }

    /// The key a translation is cached by: the portable module, the target, and for the targets that bake
    /// specialization constants (HLSL, OpenGL) their values. An error for values the declaration does not take.
    ///
    /// ```no_run
    /// # fn f(p: &gpu::cross::Portable) {
    /// use gpu::cross::Target;
    /// use shader_info::SpecValues;
    /// let a = p.cache_key(Target::Hlsl, &SpecValues::default().set("N", 1u32)).unwrap();
    /// let b = p.cache_key(Target::Hlsl, &SpecValues::default().set("N", 2u32)).unwrap();
    /// assert_ne!(a, b); // baked: one translation per value
    /// # }
    /// ```
    pub fn cache_key(&self, target: Target, values: &SpecValues) -> Result<u128, String> {
        let resolved = values.resolve(&self.plan.specialization_constants)?;
        let mut bytes: Vec<u8> = bytemuck::cast_slice::<u32, u8>(&self.spirv).to_vec();
        bytes.extend_from_slice(target.name().as_bytes());
        bytes.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        if !spec::pipeline_time(target) {
            for c in self.used_spec_constants() {
                if let Some((_, v)) = resolved.iter().find(|(d, _)| d.id == c.id) {
                    bytes.extend_from_slice(&c.id.to_le_bytes());
                    bytes.extend_from_slice(&v.to_bits().to_le_bytes());
                }
            }
        }
        Ok(xxhash_rust::xxh3::xxh3_128(&bytes))
    }

    /// The module with the used constants' `values` folded in (for the targets that bake them), and how they
    /// were applied.
    #[allow(clippy::type_complexity)]
    fn with_constants(
        &self,
        values: &[(&SpecConstantPlan, ConstValue)],
    ) -> Result<
        (
            std::borrow::Cow<'_, naga::Module>,
            std::borrow::Cow<'_, ModuleInfo>,
        ),
        String,
    > {
        let mut constants = naga::back::PipelineConstants::default();
        for c in self.used_spec_constants() {
            if let Some((_, v)) = values.iter().find(|(d, _)| d.id == c.id) {
                let value = match *v {
                    ConstValue::Bool(b) => f64::from(u8::from(b)),
                    ConstValue::Int(i) => f64::from(i),
                    ConstValue::Uint(u) => f64::from(u),
                    ConstValue::Float(f) => f64::from(f),
                };
                constants.insert(c.id.to_string(), value);
            }
        }
        naga::back::pipeline_constants::process_overrides(
            &self.module,
            &self.module_info,
            None,
            &constants,
        )
        .map_err(|e| format!("cannot apply the specialization constants: {e}"))
    }

    fn write(&self, target: Target, values: &SpecValues) -> Result<Translation, String> {
        let map = &self.plan.targets;
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
        let (text, entry_point) = match target {
            Target::Wgsl => {
                let text = match self.plan.push_constants.as_ref() {
                    Some(pc) if immediates::wgsl_reads_from_buffer(pc) => {
                        let module = immediates::to_storage_buffer(&self.module);
                        let info = validate(&module)?;
                        wgsl::write_string(&module, &info, wgsl::WriterFlags::empty())
                    }
                    _ => wgsl::write_string(
                        &self.module,
                        &self.module_info,
                        wgsl::WriterFlags::empty(),
                    ),
                }
                .map_err(|e| e.to_string())?;
                (text, entry.clone())
            }
            Target::Msl => {
                let (module, info) = self.with_constants(&baked)?;
                let mut resources = msl::BindingMap::new();
                let mut inline_samplers = Vec::new();
                for b in &map.bindings {
                    let slot = b.msl.index as u8;
                    let mut t = msl::BindTarget::default();
                    match b.msl.class {
                        MslClass::Buffer => t.buffer = Some(slot),
                        MslClass::Texture => t.texture = Some(slot),
                        MslClass::Sampler => {
                            t.sampler = Some(msl::BindSamplerTarget::Resource(slot))
                        }
                        MslClass::InlineSampler => {
                            let state =
                                b.sampler_state.ok_or("an inline sampler without a state")?;
                            t.sampler = Some(msl::BindSamplerTarget::Inline(slot));
                            inline_samplers.push(inline_sampler(&state));
                        }
                    }
                    resources.insert(rb(b.set, b.binding), t);
                }
                let mut per_entry_point_map = msl::EntryPointResourceMap::new();
                per_entry_point_map.insert(
                    entry.clone(),
                    msl::EntryPointResources {
                        resources,
                        immediates_buffer: map.push_constants.map(|p| p.msl_buffer as u8),
                        sizes_buffer: map.msl_sizes_buffer.map(|b| b as u8),
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
                (spec::msl_function_constants(&text, &used)?, entry)
            }
            Target::Hlsl => {
                let (module, info) = self.with_constants(&baked)?;
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
                for set in 0..self.plan.sets.len() as u32 {
                    sampler_buffer_binding_map.insert(
                        hlsl::SamplerIndexBufferKey { group: set },
                        hlsl::BindTarget {
                            space: set as u8,
                            register: hlsl_post::INDEX_BUFFER_REGISTER,
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
                {
                    let text = hlsl_post::plain_registers(&text)?;
                    let text = hlsl_post::helpers_once(&text);
                    (
                        hlsl_post::distance_arrays(&text, &self.distance_lengths()),
                        entry,
                    )
                }
            }
            Target::Gl | Target::Gles => {
                let (module, info) = self.with_constants(&baked)?;
                let mut binding_map = glsl::BindingMap::new();
                for b in &map.bindings {
                    if let Some(gl) = b.gl {
                        let binding = u8::try_from(gl.binding).map_err(|_| {
                            format!("OpenGL binding {} of `{}` is over 255", gl.binding, b.name)
                        })?;
                        binding_map.insert(rb(b.set, b.binding), binding);
                    }
                }
                let version = if target == Target::Gl {
                    glsl::Version::Desktop(430)
                } else {
                    glsl::Version::Embedded {
                        version: 310,
                        is_webgl: false,
                    }
                };
                let opts = glsl::Options {
                    version,
                    writer_flags: glsl::WriterFlags::empty(),
                    binding_map,
                    zero_initialize_workgroup_memory: true,
                };
                let Some(stage) = naga_stage(self.stage) else {
                    return Err(format!("naga has no {} stage", self.stage));
                };
                let pipe = glsl::PipelineOptions {
                    shader_stage: stage,
                    entry_point: entry.clone(),
                    multiview: None,
                };
                let mut text = String::new();
                glsl::Writer::new(
                    &mut text,
                    &module,
                    &info,
                    &opts,
                    &pipe,
                    naga::proc::BoundsCheckPolicies::default(),
                )
                .map_err(|e| e.to_string())?
                .write()
                .map_err(|e| e.to_string())?;
                // naga names the block per stage (`_immediates_binding_vs`, a prefix its namer keeps from user
                // names); one name in every stage makes it one uniform of the linked program.
                let text = text.replace(
                    &format!("_immediates_binding_{}", gl_stage_suffix(stage)),
                    shader_info::GL_PUSH_CONSTANT_UNIFORM,
                );
                // The host sets push constants and finds block members by their declared names.
                let text = gl_post::declared_member_names(&text);
                (gl_post::base_instance_from_host(&text), "main".to_string())
            }
        };
        Ok(Translation {
            target,
            key: self.key.clone(),
            stage: self.stage,
            requires: required_extensions(&text, target),
            spec_constants,
            host_uniforms: HOST_UNIFORMS
                .into_iter()
                .filter(|u| text.contains(&format!("uniform uint {u};")))
                .collect(),
            text,
            entry_point,
        })
    }

    /// The HLSL semantic and array length of each clip- or cull-distance output of the entry point.
    fn distance_lengths(&self) -> Vec<(&'static str, u32)> {
        use naga::{Binding, BuiltIn, TypeInner};
        let mut out = Vec::new();
        for ep in &self.module.entry_points {
            let Some(result) = &ep.function.result else {
                continue;
            };
            let members: Vec<(Option<&Binding>, naga::Handle<naga::Type>)> =
                match &self.module.types[result.ty].inner {
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
                } = self.module.types[ty].inner
                {
                    out.push((semantic, n.get()));
                }
            }
        }
        out
    }

    /// The naga module (for checks).
    pub fn module(&self) -> &naga::Module {
        &self.module
    }

    /// The declared layout of the buffer block at (set, binding).
    pub fn block_layout(&self, set: u32, binding: u32) -> Option<&BlockLayout> {
        self.blocks
            .iter()
            .find(|(s, b, _)| *s == set && *b == binding)
            .map(|(_, _, l)| l)
    }
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

/// The uniforms naga's GLSL back end adds for the host to set.
const HOST_UNIFORMS: [&str; 1] = ["naga_vs_first_instance"];

/// naga's GL suffix of a stage's names.
fn gl_stage_suffix(stage: naga::ShaderStage) -> &'static str {
    match stage {
        naga::ShaderStage::Vertex => "vs",
        naga::ShaderStage::Fragment => "fs",
        naga::ShaderStage::Compute => "cs",
        _ => "unknown",
    }
}

/// Storage buffers get the access the declaration gives them. glslang writes `readonly` as a decoration on each
/// block member, which naga's SPIR-V reader does not take from members, so a read-only buffer would come out
/// writable: a UAV (`u`) in HLSL where the map says an SRV (`t`), `read_write` in WGSL where a vertex stage may not
/// have one.
fn declared_access(module: &mut naga::Module, plan: &PipelinePlan) {
    for (_, g) in module.global_variables.iter_mut() {
        let (Some(rb), naga::AddressSpace::Storage { access }) = (&g.binding, &mut g.space) else {
            continue;
        };
        if let Some(b) = plan.targets.at(rb.group, rb.binding)
            && !b.writable
        {
            *access = naga::StorageAccess::LOAD;
        }
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

/// OpenGL class names (for messages).
pub fn gl_class_name(class: GlClass) -> &'static str {
    match class {
        GlClass::UniformBlock => "uniform block",
        GlClass::StorageBlock => "storage block",
        GlClass::TextureUnit => "texture unit",
        GlClass::ImageUnit => "image unit",
    }
}

/// Profile of the portable SPIR-V.
pub const PROFILE: Profile = Profile::Translation;
