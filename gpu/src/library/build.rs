//! Building pipelines from owned inputs: a [`Batch`] holds everything its pipelines need (the backend and the
//! sources behind `Arc`s, the validated infos, the modules the library already has), so one piece of code builds
//! on the caller's thread (a fetch, a warm-up, a reload) or on a worker (a fetch that does not wait, a reload in
//! the background). Modules are made in parallel, then each pipeline is checked and created in parallel; the
//! library merges the output into its caches on its own thread.

use super::{Backend, ModuleEntry, ModuleKey, Parts, checks, new_entry};
use crate::compiler::{Compiler, Profile};
use crate::flow::{ClipSpace, Flow, FlowMemos};
use rayon::prelude::*;
use shader_info::{
    Diagnostic, DirLoader, PipelineKind, PipelinePlan, Registry, RenderState, SpecValues, Stage,
    StageMask, ValidatedInfo,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The module ids a pipeline was built from, by stage: reload rebuilds it when a current id differs.
pub(crate) type BuiltFrom = Vec<(Stage, u64)>;

/// What the library reads its modules from, shared read-only with its workers.
pub(crate) struct Base {
    pub registry: Registry,
    pub loader: DirLoader,
    pub compiler: Compiler,
    pub profile: Profile,
    /// What the library's flows remember, shared by every call.
    pub memos: Arc<FlowMemos>,
    pub clip_space: ClipSpace,
}

impl Base {
    pub fn flow(&self) -> Flow<'_> {
        Flow::new(&self.registry, &self.loader, &self.compiler, self.profile)
            .sharing(self.memos.clone())
            .with_clip_space(self.clip_space)
    }
}

/// One pipeline to build, named as the library's caches key it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Want<O> {
    Graphics(String, O),
    Compute(String, SpecValues),
    RayTracing(String),
}

impl<O> Want<O> {
    pub fn key(&self) -> &str {
        match self {
            Want::Graphics(k, _) | Want::Compute(k, _) | Want::RayTracing(k) => k,
        }
    }

    pub fn kind(&self) -> PipelineKind {
        match self {
            Want::Graphics(..) => PipelineKind::Graphics,
            Want::Compute(..) => PipelineKind::Compute,
            Want::RayTracing(_) => PipelineKind::RayTracing,
        }
    }
}

/// A pipeline of any kind, just built.
pub(crate) enum Made<B: Backend> {
    /// Graphics parts prepared, no pipeline ([`super::Library::warm_up_parts`]).
    Prepared,
    Graphics(B::Graphics),
    Compute(B::Compute),
    RayTracing(B::RayTracing),
}

/// Pipelines to build and everything they are built from.
pub(crate) struct Batch<B: Backend> {
    pub backend: Arc<B>,
    pub base: Arc<Base>,
    /// Each pipeline with its validated info (validated on the library's thread, where the cache is).
    pub wants: Vec<(Want<B::GraphicsOptions>, Arc<ValidatedInfo>)>,
    /// The modules the library has for the wants' keys: used, not made again.
    pub known: HashMap<ModuleKey, ModuleEntry<B::Module>>,
    /// Graphics pipelines only prepared ([`Backend::prepare_graphics`]), not created.
    pub parts_only: bool,
}

/// One pipeline's result: built from these module ids, or why not; and how long creating it took.
pub(crate) type Outcome<B> = Result<(Made<B>, BuiltFrom), Vec<Diagnostic>>;

/// What a batch made.
pub(crate) struct Output<B: Backend> {
    /// Modules made for the batch (the library keeps them).
    pub modules: Vec<(ModuleKey, ModuleEntry<B::Module>)>,
    /// Each want, in order, with its outcome and its creation time in milliseconds.
    pub made: Vec<(Want<B::GraphicsOptions>, Outcome<B>, f64)>,
    /// Wall time of making the modules, checking the pipelines and making their layouts.
    pub compile_ms: f64,
    /// Wall time of creating the pipelines.
    pub create_ms: f64,
}

impl<B: Backend> Batch<B> {
    /// Builds every want. Consumes the batch, so a worker holds no reference to the backend once it has its
    /// output (the library may then need the backend alone: [`super::Library::backend_mut`]).
    pub fn run(self) -> Output<B> {
        let Batch {
            backend,
            base,
            wants,
            known,
            parts_only,
        } = self;
        let flow = base.flow();
        // Workers share the backend by reference (`B: Sync`), not the `Arc`.
        let backend: &B = &backend;
        let t = Instant::now();
        // Plans are checked first: a pipeline refused by its kind or the device's limits compiles nothing.
        let plans: Vec<Result<PipelinePlan, Vec<Diagnostic>>> = wants
            .iter()
            .map(|(want, info)| checked_plan(backend, &flow, info, want.kind()))
            .collect();
        let to_make: Vec<_> = wants
            .iter()
            .zip(&plans)
            .filter(|(_, p)| p.is_ok())
            .map(|(w, _)| w.clone())
            .collect();
        let (modules, failed) = make_modules(backend, &flow, &to_make, &known);
        let made_here: HashMap<&ModuleKey, &ModuleEntry<B::Module>> =
            modules.iter().map(|(k, e)| (k, e)).collect();
        let module = |mkey: &ModuleKey| -> Result<&ModuleEntry<B::Module>, Vec<Diagnostic>> {
            if let Some(d) = failed.get(mkey) {
                return Err(d.clone());
            }
            known
                .get(mkey)
                .or_else(|| made_here.get(mkey).copied())
                .ok_or_else(|| {
                    vec![
                        Diagnostic::error(
                            shader_info::Code::Internal,
                            &mkey.0,
                            format!("no {:?} module was made for `{}`", mkey.1, mkey.0),
                        )
                        .hint("report it as a bug"),
                    ]
                })
        };
        let prepared: Vec<_> = wants
            .par_iter()
            .zip(plans)
            .map(|((want, info), plan)| plan.and_then(|p| prepare(backend, want, p, info, module)))
            .collect();
        let compile_ms = t.elapsed().as_secs_f64() * 1e3;

        let t = Instant::now();
        let made: Vec<_> = wants
            .into_par_iter()
            .zip(prepared)
            .map(|((want, _), prepared)| {
                let t = Instant::now();
                let outcome = prepared.and_then(|(parts, state, layout)| {
                    let refs = parts.refs();
                    let plan = &parts.plan;
                    let made = match &want {
                        // A backend with nothing to prepare (wgpu; Vulkan without fast link) creates the pipeline:
                        // a warm-up never reports one it did not make.
                        Want::Graphics(_, options) if parts_only => {
                            match backend.prepare_graphics(plan, &state, &refs, &layout, options) {
                                Ok(true) => Ok(Made::Prepared),
                                Ok(false) => backend
                                    .create_graphics(plan, &state, &refs, layout, options)
                                    .map(Made::Graphics),
                                Err(d) => Err(d),
                            }
                        }
                        Want::Graphics(_, options) => backend
                            .create_graphics(plan, &state, &refs, layout, options)
                            .map(Made::Graphics),
                        Want::Compute(_, spec) => backend
                            .create_compute(plan, refs[0].1, layout, spec)
                            .map(Made::Compute),
                        Want::RayTracing(_) => backend
                            .create_ray_tracing(plan, &refs, layout)
                            .map(Made::RayTracing),
                    };
                    made.map(|m| (m, parts.built_from.clone()))
                });
                (want, outcome, t.elapsed().as_secs_f64() * 1e3)
            })
            .collect();
        let create_ms = t.elapsed().as_secs_f64() * 1e3;
        // It borrows `modules`, which the output takes.
        drop(made_here);
        Output {
            modules,
            made,
            compile_ms,
            create_ms,
        }
    }
}

/// Makes, in parallel, every module the wants need that `known` lacks: the modules made, and the diagnostics of
/// those that could not be.
#[allow(clippy::type_complexity)]
fn make_modules<B: Backend>(
    backend: &B,
    flow: &Flow<'_>,
    wants: &[(Want<B::GraphicsOptions>, Arc<ValidatedInfo>)],
    known: &HashMap<ModuleKey, ModuleEntry<B::Module>>,
) -> (
    Vec<(ModuleKey, ModuleEntry<B::Module>)>,
    HashMap<ModuleKey, Vec<Diagnostic>>,
) {
    let mut seen = HashSet::new();
    let units: Vec<(ModuleKey, &ValidatedInfo)> = wants
        .iter()
        .flat_map(|(want, info)| {
            info.stages()
                .into_iter()
                .map(move |s| ((want.key().to_string(), s), info.as_ref()))
        })
        .filter(|(mkey, _)| !known.contains_key(mkey) && seen.insert(mkey.clone()))
        .collect();
    let results: Vec<(ModuleKey, Result<ModuleEntry<B::Module>, Vec<Diagnostic>>)> = units
        .into_par_iter()
        .map(|(mkey, info)| {
            let entry = module_entry(backend, flow, info, &mkey);
            (mkey, entry)
        })
        .collect();
    let mut made = Vec::new();
    let mut failed = HashMap::new();
    for (mkey, r) in results {
        match r {
            Ok(e) => made.push((mkey, e)),
            Err(d) => {
                failed.insert(mkey, d);
            }
        }
    }
    (made, failed)
}

/// The module of one stage of a key, made from its source.
pub(crate) fn module_entry<B: Backend>(
    backend: &B,
    flow: &Flow<'_>,
    info: &ValidatedInfo,
    (key, stage): &ModuleKey,
) -> Result<ModuleEntry<B::Module>, Vec<Diagnostic>> {
    let Some((hash, source)) = backend.source(flow, info, *stage, None)? else {
        unreachable!("a source compared against no module is always made");
    };
    new_entry(backend, key, hash, source)
}

/// `plan` with each binding's stages narrowed to the stages whose modules use it (`entries`: the info's modules).
pub(crate) fn narrowed<B: Backend>(
    plan: PipelinePlan,
    entries: &[(Stage, &ModuleEntry<B::Module>)],
) -> PipelinePlan {
    plan.with_stage_usage(|set, binding| {
        let used: Vec<Stage> = entries
            .iter()
            .filter(|(_, e)| B::module_uses(&e.module, set, binding))
            .map(|(s, _)| *s)
            .collect();
        StageMask::of(&used)
    })
}

/// The plan of a pipeline of `kind`, checked before anything is compiled: the kind, its stage interfaces and
/// geometry layout against the device, and for a compute pipeline its work group (glslang refuses sizes past its
/// own defaults with a less useful message, and the driver must never see a number past the device's limits).
pub(crate) fn checked_plan<B: Backend>(
    backend: &B,
    flow: &Flow<'_>,
    info: &ValidatedInfo,
    kind: PipelineKind,
) -> Result<PipelinePlan, Vec<Diagnostic>> {
    let plan = flow.plan(info);
    let mut problems = checks::kind_problems(&plan, kind);
    // A stage the device does not run (geometry and tessellation on wgpu, or without their features on Vulkan) is
    // refused with that reason when its module is made; its limits (0) would only say less.
    if problems.is_empty() && plan.stages.iter().all(|s| backend.runs_stage(*s)) {
        let limits = backend.limits();
        problems = checks::stage_problems(&plan, &limits);
        if kind == PipelineKind::Compute {
            problems.extend(checks::compute_problems(&plan, &limits));
        }
    }
    if problems.is_empty() {
        Ok(plan)
    } else {
        Err(problems)
    }
}

/// The plan narrowed to the modules' use, and the modules of a pipeline of `key`.
fn parts<'m, B: Backend>(
    plan: PipelinePlan,
    key: &str,
    info: &ValidatedInfo,
    module: impl Fn(&ModuleKey) -> Result<&'m ModuleEntry<B::Module>, Vec<Diagnostic>>,
) -> Result<Parts<B::Module>, Vec<Diagnostic>>
where
    B::Module: 'm,
{
    let entries = info
        .stages()
        .into_iter()
        .map(|s| module(&(key.to_string(), s)).map(|e| (s, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let plan = narrowed::<B>(plan, &entries);
    let of = |s: &Stage| entries.iter().find(|(st, _)| st == s).map(|(_, e)| *e);
    let modules = plan
        .stages
        .iter()
        .filter_map(|s| of(s).map(|e| (*s, e.module.clone())))
        .collect();
    let built_from = plan
        .stages
        .iter()
        .filter_map(|s| of(s).map(|e| (*s, e.id)))
        .collect();
    Ok(Parts {
        plan,
        modules,
        built_from,
    })
}

/// The render state of a graphics pipeline and every problem the core and the backend find with it.
pub(crate) fn graphics_checks<B: Backend>(
    backend: &B,
    parts: &Parts<B::Module>,
    options: &B::GraphicsOptions,
) -> Result<RenderState, Vec<Diagnostic>> {
    let plan = &parts.plan;
    let overridden = B::state_override(options);
    let state = overridden
        .cloned()
        .unwrap_or_else(|| plan.render_state.clone().unwrap_or_default());
    let limits = backend.limits();
    let overrides = checks::color_override_problems(
        &plan.key,
        B::color_override_locations(options),
        limits.max_color_attachments,
    );
    if !overrides.is_empty() {
        return Err(overrides);
    }
    let attachments = backend.attachments(plan, options)?;
    let mut problems =
        checks::attachment_problems(plan, &state, &attachments, limits.max_color_attachments);
    // A state given whole meets the rules the declared one met at validation.
    if overridden.is_some() {
        problems.extend(plan.state_problems(&state, checks::STATE_OVERRIDE));
    }
    let arrangement = B::vertex_arrangement(options);
    problems.extend(plan.vertex_layout_problems(arrangement, limits.vertex_rules));
    problems.extend(plan.vertex_input_problems(arrangement, &limits.vertex_input));
    problems.extend(backend.graphics_problems(plan, &state, options, &parts.refs()));
    if problems.is_empty() {
        Ok(state)
    } else {
        Err(problems)
    }
}

/// The checked parts, state and layout of one want whose plan passed [`checked_plan`].
#[allow(clippy::type_complexity)]
fn prepare<'m, B: Backend>(
    backend: &B,
    want: &Want<B::GraphicsOptions>,
    plan: PipelinePlan,
    info: &ValidatedInfo,
    module: impl Fn(&ModuleKey) -> Result<&'m ModuleEntry<B::Module>, Vec<Diagnostic>>,
) -> Result<(Parts<B::Module>, RenderState, B::Layout), Vec<Diagnostic>>
where
    B::Module: 'm,
{
    let parts = parts::<B>(plan, want.key(), info, module)?;
    let problems = checks::descriptor_problems(&parts.plan, &backend.limits());
    if !problems.is_empty() {
        return Err(problems);
    }
    let state = match want {
        Want::Graphics(_, options) => graphics_checks(backend, &parts, options)?,
        _ => RenderState::default(),
    };
    let layout = backend.create_layout(&parts.plan, &parts.refs())?;
    Ok((parts, state, layout))
}
