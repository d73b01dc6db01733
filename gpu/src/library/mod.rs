//! The shader library, written once over a small [`Backend`] trait: modules and pipelines fetched by info name
//! (or variant key), compiled on first use, warmed up in parallel, and hot-reloaded without ever losing a
//! working pipeline. The Vulkan library ([`crate::vk::ShaderLibrary`]) and the wgpu one (`shader_info_gpu::wgpu::WgpuLibrary`,
//! feature `wgpu`) are this type over their backend, so both have the same lifecycle, the same checks and the
//! same answers.
//!
//! | the core ([`Library`]) | a backend ([`Backend`]) |
//! |---|---|
//! | keys ([`Key`]), validated infos, variant tables | make a module from checked SPIR-V or WGSL |
//! | module and pipeline caches, fetch-or-build ([`Library::graphics_pipeline`]) | make a pipeline layout from the plan |
//! | reload: decide, rebuild, keep the last good ([`Library::reload`], [`ReloadReport`]) | make graphics, compute, ray-tracing pipelines |
//! | parallel warm-up of the pipeline set ([`Library::warm_up`], [`Library::pipeline_set`]) | say its limits and a pass's attachments |
//! | builds and reloads off the caller's thread ([`Library::poll_graphics_pipeline`], [`Library::poll_reload_in_background`]) | map its errors |
//! | kind, limits, attachment and state checks ([`checks`]); typed host types ([`Typed`]) | |
//!
//! One piece of code builds pipelines for every path: a batch of owned inputs (the backend and the sources are
//! shared behind `Arc`s) runs on the caller's thread for a fetch, a warm-up or a reload, or on a worker for the
//! calls that do not wait, and the library merges what it made on its own thread.
//!
//! ```no_run
//! use shader_info_gpu::library::LibraryOptions;
//! use shader_info_gpu::vk::{ContextOptions, GraphicsOptions, ShaderLibrary, VkContext};
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new("shaders/glsl"))?;
//! let text = lib.graphics_pipeline("gpu_shader_text", &GraphicsOptions::default())?;
//! let prefix_sum = lib.compute_pipeline("gpu_compute_prefix_sum")?;
//! println!("{}", lib.reload()?);
//! # Ok::<(), shader_info_gpu::vk::VkError>(())
//! ```

mod backend;
mod background;
mod build;
pub mod checks;
mod key;
mod pipeline_set;
mod reload;
mod retire;
mod sources;
mod translation;
mod typed;
mod warm_up;

pub use backend::{
    Attachments, Backend, DefaultTarget, DeviceLimits, FormatClass, InterfaceLimits, color_writes,
    default_color_targets,
};
pub use key::Key;
pub use pipeline_set::{PassPipelines, PipelineLog, PipelineStats, Variants};
pub use reload::{PipelineOutcome, ReloadReport};
pub use retire::DEFAULT_FRAMES_IN_FLIGHT;
pub use sources::LibraryOptions;
pub use translation::checked_translation;
pub use typed::{Typed, VertexBuffer};
pub use warm_up::{WarmUp, WarmUpReport, WarmedPipeline};

use crate::flow::Flow;
use crate::watch::ShaderWatcher;
use build::{Batch, BuiltFrom, Made, Output, Want};
use shader_info::{
    Diagnostic, PipelineKind, PipelinePlan, Registry, SpecValues, Stage, SubpassMode,
    ValidatedInfo, VariantSet,
};
use sources::Sources;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A module of the library: the backend's object, the content hash of what it was made from (reload compares
/// it), and an id unique in the process (pipelines remember the ids they were built from).
pub(crate) struct ModuleEntry<M> {
    module: Arc<M>,
    hash: u128,
    id: u64,
}

// Derived, it would demand `M: Clone`; the entry shares its module.
impl<M> Clone for ModuleEntry<M> {
    fn clone(&self) -> Self {
        ModuleEntry {
            module: self.module.clone(),
            hash: self.hash,
            id: self.id,
        }
    }
}

static NEXT_MODULE_ID: AtomicU64 = AtomicU64::new(1);

struct Cached<P> {
    pipeline: Arc<P>,
    built_from: BuiltFrom,
}

impl<P> Cached<P> {
    fn new(p: P, built_from: BuiltFrom) -> Cached<P> {
        Cached {
            pipeline: Arc::new(p),
            built_from,
        }
    }
}

/// How many raised errors wait for a fetch of their key at most (the oldest go first).
const MAX_PENDING_RAISED: usize = 256;

type ModuleKey = (String, Stage);

/// The modules of one pipeline and the plan they were built for.
struct Parts<M> {
    plan: PipelinePlan,
    modules: Vec<(Stage, Arc<M>)>,
    built_from: BuiltFrom,
}

impl<M> Parts<M> {
    fn refs(&self) -> Vec<(Stage, &M)> {
        self.modules.iter().map(|(s, m)| (*s, m.as_ref())).collect()
    }
}

/// Modules and pipelines fetched by info name (or variant key) on a backend. See the
/// [module documentation](self).
pub struct Library<B: Backend> {
    /// Shared with the workers of background builds ([`Self::poll_graphics_pipeline`]).
    backend: Arc<B>,
    sources: Sources,
    modules: BTreeMap<ModuleKey, ModuleEntry<B::Module>>,
    graphics: HashMap<(String, B::GraphicsOptions), Cached<B::Graphics>>,
    compute: HashMap<(String, SpecValues), Cached<B::Compute>>,
    ray_tracing: HashMap<String, Cached<B::RayTracing>>,
    watcher: Option<ShaderWatcher>,
    /// Host types already checked against a key's declaration ([`Library::typed_graphics`]).
    host_types: HashMap<typed::HostTypes, typed::Checked>,
    /// Warm-up, late creations, strict mode and the usage log ([`Library::stats`]).
    late: pipeline_set::Late,
    /// Pipelines replaced (by reloads, background builds, better links) that a submitted frame may still use.
    retired: retire::Retirement<B>,
    /// Errors the device raised about the library's objects, not yet reported: each by the next fetch of its key,
    /// all of them by the next reload.
    raised: Vec<Diagnostic>,
    /// Builds and reloads running on workers, and what they finished.
    background: background::Background<B>,
    /// Per key, the stages each binding of its pipelines' layouts is visible to (narrowed to the modules' use):
    /// a reload that changes them is reported (`ReloadReport::layouts_changed`), since bind groups and descriptor
    /// sets made for the old layout do not fit the new pipeline.
    layout_stages: HashMap<String, Vec<(u32, u32, shader_info::StageMask)>>,
}

impl<B: Backend> Library<B> {
    /// A library over `registry`'s infos on `backend`, with sources under `opts.shader_root`.
    pub fn with_backend(
        backend: B,
        registry: Registry,
        opts: LibraryOptions,
    ) -> Result<Library<B>, B::Error> {
        let subpass = backend.subpass_mode(opts.subpass).map_err(B::error)?;
        let mut sources = Sources::new(registry, opts, subpass).map_err(B::error)?;
        sources.unrunnable = [Stage::TessControl, Stage::TessEvaluation, Stage::Geometry]
            .into_iter()
            .filter(|s| !backend.runs_stage(*s))
            .collect();
        Ok(Library {
            sources,
            backend: Arc::new(backend),
            modules: BTreeMap::new(),
            graphics: HashMap::new(),
            compute: HashMap::new(),
            ray_tracing: HashMap::new(),
            watcher: None,
            host_types: Default::default(),
            late: Default::default(),
            retired: Default::default(),
            raised: Vec::new(),
            background: background::Background::new(),
            layout_stages: HashMap::new(),
        })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, to change its settings (waits for the builds running in the background first: they share
    /// it).
    pub fn backend_mut(&mut self) -> &mut B {
        self.wait_background();
        Arc::get_mut(&mut self.backend)
            .expect("a finished background build holds no reference to the backend (Batch::run consumes it)")
    }

    /// The registry the infos come from.
    pub fn registry(&self) -> &Registry {
        &self.sources.base.registry
    }

    /// How this library's pipelines read subpass inputs (see [`SubpassMode`]).
    pub fn subpass_mode(&self) -> SubpassMode {
        self.sources.subpass
    }

    /// The flow this library runs every module through.
    pub fn flow(&self) -> Flow<'_> {
        self.sources.flow()
    }

    /// Resolves and validates a key: an info name, or a variant key made by [`Self::variant_key`]. Cached per key.
    pub fn validated(&mut self, key: impl AsRef<str>) -> Result<Arc<ValidatedInfo>, B::Error> {
        let key = key.as_ref();
        self.sources.validated(key).map_err(B::error)
    }

    /// The variants of an info with static branches: the permutation → variant table (see
    /// [`shader_info::VariantSet::lookup`]). Computed once per info.
    pub fn variants(&mut self, info_name: &str) -> Result<Arc<VariantSet>, B::Error> {
        self.sources.variants(info_name).map_err(B::error)
    }

    /// The key of the unique variant a permutation folds into: pass it wherever an info name goes. Permutations
    /// that fold into one variant share one key, so they share modules and pipelines.
    pub fn variant_key(&mut self, info_name: &str, permutation: u64) -> Result<Key, B::Error> {
        self.sources
            .variant_key(info_name, permutation)
            .map(Key::from)
            .map_err(B::error)
    }

    /// The key of the unique variant that branch values select, by name (branches left out are off). A branch the
    /// info does not declare is an error with "did you mean"; a permutation the info's specialize function marks
    /// unused is an error naming it.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// let key = lib.variant("gpu_shader_mesh", &[("SKINNING", true), ("FOG", true)])?;
    /// let p = lib.graphics_pipeline(&key, &shader_info_gpu::vk::GraphicsOptions::default())?;
    /// # Ok(()) }
    /// ```
    pub fn variant(&mut self, info_name: &str, values: &[(&str, bool)]) -> Result<Key, B::Error> {
        let set = self.variants(info_name)?;
        let bits = set.permutation(values).map_err(B::error)?;
        self.variant_key(info_name, bits)
    }

    /// The key of the variant that a `#[derive(ShaderInfo)]` info's generated branch struct selects: the
    /// branches are fields, so a mistyped one does not compile.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info::ShaderInfo;
    /// #[derive(Clone, Copy, ShaderInfo)]
    /// #[shader(name = "blur", branch("VERTICAL"), local_group_size(64), compute_source("blur.comp.glsl"))]
    /// struct Blur;
    /// let key = lib.variant_of(&BlurBranches { vertical: true })?;
    /// let p = lib.typed_compute::<Blur>(&key)?;
    /// # Ok(()) }
    /// ```
    pub fn variant_of<T: shader_info::Branches>(&mut self, branches: &T) -> Result<Key, B::Error> {
        self.variant(T::INFO, &branches.values())
    }

    /// Errors the device raised about this library's objects outside its own calls (wgpu's uncaptured errors:
    /// a draw or dispatch with a pipeline, bind group or push the library made), as diagnostics naming the key:
    /// those about `key` for a fetch of it (an error about another key does not fail this one's fetch: its draw
    /// would be dropped for nothing), every one for a reload (`None`), instead of a message at exit.
    fn raised(&mut self, key: Option<&str>) -> Result<(), Vec<Diagnostic>> {
        let errors = self.backend.raised_errors();
        // Every fetch asks, a cache hit included: nothing raised and nothing pending costs nothing more.
        if errors.is_empty() && self.raised.is_empty() {
            return Ok(());
        }
        if !errors.is_empty() {
            let ours = |key: &str, message: &str| {
                ["'", " ", "."]
                    .iter()
                    .any(|end| message.contains(&format!("'{key}{end}")))
            };
            let keys: Vec<&str> = self.modules.keys().map(|(k, _)| k.as_str()).collect();
            let new: Vec<Diagnostic> = errors
                .iter()
                .filter_map(|message| {
                    let key = keys.iter().find(|k| ours(k, message))?;
                    Some(
                        Diagnostic::error(
                            shader_info::Code::Device,
                            *key,
                            format!("{} raised an error about `{key}`: {message}", B::API),
                        )
                        .hint("the draw or dispatch that used it was dropped: check what it bound and pushed"),
                    )
                })
                .collect();
            // A mistake repeated every frame raises the same message every frame: pending once, and no more than
            // the context keeps, however long no fetch of its key comes.
            for d in new {
                if !self
                    .raised
                    .iter()
                    .any(|p| p.info == d.info && p.message == d.message)
                {
                    self.raised.push(d);
                }
            }
            let excess = self.raised.len().saturating_sub(MAX_PENDING_RAISED);
            self.raised.drain(..excess);
        }
        let (mine, rest): (Vec<Diagnostic>, Vec<Diagnostic>) = std::mem::take(&mut self.raised)
            .into_iter()
            .partition(|d| key.is_none_or(|k| d.info == k));
        self.raised = rest;
        if mine.is_empty() { Ok(()) } else { Err(mine) }
    }

    /// The kind of pipeline `key` makes.
    pub fn pipeline_kind(&mut self, key: impl AsRef<str>) -> Result<PipelineKind, B::Error> {
        let key = key.as_ref();
        Ok(PipelineKind::of(&self.validated(key)?.stages()))
    }

    /// The stages each binding of `key`'s layout is visible to, from its current modules (empty when the plan
    /// cannot be made).
    fn binding_stages(&mut self, key: &str) -> Vec<(u32, u32, shader_info::StageMask)> {
        self.plan(key).map_or_else(
            |_| Vec::new(),
            |plan| {
                plan.bindings()
                    .map(|(set, b)| (set, b.binding, b.stages))
                    .collect()
            },
        )
    }

    /// The pipeline plan of a key, its bindings' stages narrowed to the stages whose modules use them (the modules
    /// are made if they are not yet).
    pub fn plan(&mut self, key: impl AsRef<str>) -> Result<PipelinePlan, B::Error> {
        let key = key.as_ref();
        let info = self.validated(key)?;
        let plan = self.sources.flow().plan(&info);
        let stages = info.stages();
        for stage in &stages {
            self.entry(key, *stage).map_err(B::error)?;
        }
        let entries: Vec<(Stage, &ModuleEntry<B::Module>)> = stages
            .iter()
            .map(|s| (*s, &self.modules[&(key.to_string(), *s)]))
            .collect();
        Ok(build::narrowed::<B>(plan, &entries))
    }

    /// The module of `stage` of `key`, compiled (or translated), checked and created on first use.
    pub fn module(
        &mut self,
        key: impl AsRef<str>,
        stage: Stage,
    ) -> Result<Arc<B::Module>, B::Error> {
        let key = key.as_ref();
        self.entry(key, stage)
            .map(|e| e.module.clone())
            .map_err(B::error)
    }

    fn entry(
        &mut self,
        key: &str,
        stage: Stage,
    ) -> Result<&ModuleEntry<B::Module>, Vec<Diagnostic>> {
        let mkey = (key.to_string(), stage);
        if !self.modules.contains_key(&mkey) {
            let info = self.sources.validated(key)?;
            let entry = build::module_entry(&*self.backend, &self.sources.flow(), &info, &mkey)?;
            self.modules.insert(mkey.clone(), entry);
        }
        Ok(&self.modules[&mkey])
    }

    /// A batch that builds `wants` from the library's validated infos and the modules it has; a want whose key
    /// does not validate is returned with its diagnostics instead.
    #[allow(clippy::type_complexity)]
    fn batch(
        &mut self,
        wants: Vec<Want<B::GraphicsOptions>>,
        parts_only: bool,
    ) -> (Batch<B>, Vec<(Want<B::GraphicsOptions>, Vec<Diagnostic>)>) {
        let mut valid = Vec::new();
        let mut refused = Vec::new();
        let mut known = HashMap::new();
        for want in wants {
            match self.sources.validated(want.key()) {
                Ok(info) => {
                    for s in info.stages() {
                        let mkey = (want.key().to_string(), s);
                        if let Some(e) = self.modules.get(&mkey) {
                            known.insert(mkey, e.clone());
                        }
                    }
                    valid.push((want, info));
                }
                Err(d) => refused.push((want, d)),
            }
        }
        let batch = Batch {
            backend: self.backend.clone(),
            base: self.sources.base.clone(),
            wants: valid,
            known,
            parts_only,
        };
        (batch, refused)
    }

    /// Keeps what a batch made: its modules (where the library has none for the key yet) and its pipelines
    /// (where the cache has none: a pipeline handed out is never replaced here). Returns each want's outcome and
    /// creation time; `Ok(true)` when its graphics pipeline was only prepared.
    #[allow(clippy::type_complexity)]
    fn merge(
        &mut self,
        out: Output<B>,
    ) -> Vec<(Want<B::GraphicsOptions>, Result<bool, Vec<Diagnostic>>, f64)> {
        for (mkey, entry) in out.modules {
            self.modules.entry(mkey).or_insert(entry);
        }
        out.made
            .into_iter()
            .map(|(want, outcome, ms)| {
                let kept = outcome.map(|(made, built_from)| {
                    let prepared = matches!(made, Made::Prepared);
                    self.store_made(&want, made, built_from, Store::IfAbsent);
                    prepared
                });
                (want, kept, ms)
            })
            .collect()
    }

    /// Stores a pipeline made for `want`. A fetch's build never replaces a pipeline the cache holds (one handed
    /// out stays); a reload's rebuild does, and retires the one it replaces (a frame in flight may use it).
    fn store_made(
        &mut self,
        want: &Want<B::GraphicsOptions>,
        made: Made<B>,
        built_from: BuiltFrom,
        how: Store,
    ) {
        if !self.layout_stages.contains_key(want.key()) {
            let stages = self.binding_stages(want.key());
            self.layout_stages.insert(want.key().to_string(), stages);
        }
        let retired = &mut self.retired;
        match (want, made) {
            (Want::Graphics(key, options), Made::Graphics(p)) => {
                let k = (key.clone(), options.clone());
                if let Some(old) = store(&mut self.graphics, k, p, built_from, how) {
                    retired.graphics(old);
                }
            }
            (Want::Compute(key, spec), Made::Compute(p)) => {
                let k = (key.clone(), spec.clone());
                if let Some(old) = store(&mut self.compute, k, p, built_from, how) {
                    retired.compute(old);
                }
            }
            (Want::RayTracing(key), Made::RayTracing(p)) => {
                if let Some(old) = store(&mut self.ray_tracing, key.clone(), p, built_from, how) {
                    retired.ray_tracing(old);
                }
            }
            // Prepared parts live in the backend; `made` of another kind cannot come from `want`'s batch.
            _ => {}
        }
    }

    /// Builds one pipeline on this thread and keeps it.
    fn build_now(&mut self, want: Want<B::GraphicsOptions>) -> Result<(), Vec<Diagnostic>> {
        let (batch, refused) = self.batch(vec![want], false);
        if let Some((_, d)) = refused.into_iter().next() {
            return Err(d);
        }
        let out = batch.run();
        match self.merge(out).into_iter().next() {
            Some((_, r, _)) => r.map(|_| ()),
            None => Ok(()),
        }
    }

    /// The graphics pipeline of `key` with `options`, created on first use. Fetch it again after a reload to get
    /// the rebuilt one; an `Arc` you hold keeps the old one alive until you drop it.
    pub fn graphics_pipeline(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<Arc<B::Graphics>, B::Error> {
        let key = key.as_ref();
        self.raised(Some(key)).map_err(B::error)?;
        self.collect_background();
        self.count_use(PipelineKind::Graphics, key);
        let gkey = (key.to_string(), options.clone());
        if let Some(c) = self.graphics.get_mut(&gkey) {
            if let Some(better) = self.backend.better(&c.pipeline) {
                let old = std::mem::replace(&mut c.pipeline, Arc::new(better));
                self.retired.graphics(old);
            }
            return Ok(c.pipeline.clone());
        }
        let want = Want::Graphics(key.to_string(), options.clone());
        self.first_use(&want).map_err(B::error)?;
        self.build_now(want).map_err(B::error)?;
        cached(&self.graphics, &gkey, key).map_err(B::error)
    }

    /// The compute pipeline of `key` with the declared specialization defaults.
    pub fn compute_pipeline(&mut self, key: impl AsRef<str>) -> Result<Arc<B::Compute>, B::Error> {
        let key = key.as_ref();
        self.compute_pipeline_with(key, &SpecValues::default())
    }

    /// The compute pipeline of `key` with specialization values, created on first use.
    pub fn compute_pipeline_with(
        &mut self,
        key: impl AsRef<str>,
        spec: &SpecValues,
    ) -> Result<Arc<B::Compute>, B::Error> {
        let key = key.as_ref();
        self.raised(Some(key)).map_err(B::error)?;
        self.collect_background();
        self.count_use(PipelineKind::Compute, key);
        let ckey = (key.to_string(), spec.clone());
        if let Some(c) = self.compute.get(&ckey) {
            return Ok(c.pipeline.clone());
        }
        let want = Want::Compute(key.to_string(), spec.clone());
        self.first_use(&want).map_err(B::error)?;
        self.build_now(want).map_err(B::error)?;
        cached(&self.compute, &ckey, key).map_err(B::error)
    }

    /// The ray-tracing pipeline of `key`, created on first use; an error with the reason on a device or API
    /// without ray tracing.
    pub fn ray_tracing_pipeline(
        &mut self,
        key: impl AsRef<str>,
    ) -> Result<Arc<B::RayTracing>, B::Error> {
        let key = key.as_ref();
        self.count_use(PipelineKind::RayTracing, key);
        if let Some(c) = self.ray_tracing.get(key) {
            return Ok(c.pipeline.clone());
        }
        let want = Want::RayTracing(key.to_string());
        self.first_use(&want).map_err(B::error)?;
        self.build_now(want).map_err(B::error)?;
        cached(&self.ray_tracing, &key.to_string(), key).map_err(B::error)
    }

    /// Number of pipelines created (graphics, compute and ray tracing).
    pub fn pipeline_count(&self) -> usize {
        self.graphics.len() + self.compute.len() + self.ray_tracing.len()
    }

    /// Waits for the device to be idle, makes every module the library holds again (the compiler's cache skips
    /// unchanged sources; a module is replaced only when its content changed, and only changed content is checked
    /// again), then rebuilds exactly the pipelines whose modules changed. A failed compile, check or creation
    /// keeps the previous pipeline and is reported with its diagnostics.
    pub fn reload(&mut self) -> Result<ReloadReport, B::Error> {
        self.raised(None).map_err(B::error)?;
        self.wait_background();
        let start = Instant::now();
        self.backend.wait_idle();
        self.retired.clear();
        // Sources may be fixed: failed background builds are tried again at their next poll.
        self.background.forget_failures();
        let out = self.reload_job().run();
        let mut report = self.swap_in(out);
        report.duration = start.elapsed();
        Ok(report)
    }

    /// A reload of everything the library holds, as owned work.
    fn reload_job(&mut self) -> reload::ReloadJob<B> {
        self.sources.forget_validated();
        let mut modules = Vec::new();
        let mut refused = Vec::new();
        let keys: Vec<ModuleKey> = self.modules.keys().cloned().collect();
        for mkey in keys {
            match self.sources.validated(&mkey.0) {
                Ok(info) => {
                    let entry = self.modules[&mkey].clone();
                    modules.push((mkey, info, entry));
                }
                Err(d) => refused.push((mkey, d)),
            }
        }
        let wants: Vec<(Want<B::GraphicsOptions>, BuiltFrom)> = self
            .graphics
            .iter()
            .map(|((k, o), c)| (Want::Graphics(k.clone(), o.clone()), c.built_from.clone()))
            .chain(
                self.compute
                    .iter()
                    .map(|((k, s), c)| (Want::Compute(k.clone(), s.clone()), c.built_from.clone())),
            )
            .chain(
                self.ray_tracing
                    .iter()
                    .map(|(k, c)| (Want::RayTracing(k.clone()), c.built_from.clone())),
            )
            .collect();
        let pipelines = wants
            .into_iter()
            .map(|(want, built_from)| {
                let info = self.sources.validated(want.key());
                (want, built_from, info)
            })
            .collect();
        reload::ReloadJob {
            backend: self.backend.clone(),
            base: self.sources.base.clone(),
            modules,
            refused,
            pipelines,
        }
    }

    /// Swaps a reload's modules and pipelines in; a pipeline replaced is retired, not dropped (a frame in flight
    /// may use it).
    fn swap_in(&mut self, out: reload::ReloadOutput<B>) -> ReloadReport {
        let mut report = ReloadReport::default();
        // The pipelines this reload decided about: any other one cached now was built meanwhile (`evict_stale`).
        let decided: std::collections::HashSet<Want<B::GraphicsOptions>> = out
            .decided
            .iter()
            .map(|(w, _)| w.clone())
            .chain(out.rebuilt.iter().map(|(w, _, _)| w.clone()))
            .collect();
        // A key's modules change together: with one stage failing, the others that compiled are held back (the
        // next reload sees them changed again), so no pipeline made meanwhile pairs a new stage with an old one.
        let failing: std::collections::HashSet<&str> = out
            .failed
            .iter()
            .map(|((key, _), _)| key.as_str())
            .collect();
        for (mkey, entry) in out.changed {
            if failing.contains(mkey.0.as_str()) {
                continue;
            }
            report.modules_changed.push(mkey.clone());
            self.modules.insert(mkey, entry);
        }
        for ((key, stage), d) in out.failed {
            report.modules_failed.push((key, stage, d));
        }
        for (want, outcome) in out.decided {
            report.pipelines.push((want.key().to_string(), outcome));
        }
        // Once per key rebuilt: its layout now against the one its pipelines had.
        let rebuilt: std::collections::BTreeSet<String> = out
            .rebuilt
            .iter()
            .filter(|(_, outcome, _)| outcome.is_ok())
            .map(|(w, _, _)| w.key().to_string())
            .collect();
        for key in &rebuilt {
            self.note_layout_change(key, &mut report);
        }
        for (want, outcome, _) in out.rebuilt {
            let outcome = match outcome {
                Ok((made, built_from)) => {
                    self.store_made(&want, made, built_from, Store::Replacing);
                    PipelineOutcome::Rebuilt
                }
                Err(diagnostics) => PipelineOutcome::KeptPrevious { diagnostics },
            };
            report.pipelines.push((want.key().to_string(), outcome));
        }
        self.evict_stale(&decided);
        if !report.modules_changed.is_empty() {
            let live: Vec<&B::Module> = self.modules.values().map(|e| e.module.as_ref()).collect();
            self.backend.retain_for_modules(&live);
        }
        report.pipelines.sort_by(|a, b| a.0.cmp(&b.0));
        report
    }

    /// Reports when `key`'s rebuilt pipelines have another layout than its earlier ones.
    fn note_layout_change(&mut self, key: &str, report: &mut ReloadReport) {
        let now = self.binding_stages(key);
        if let Some(before) = self.layout_stages.insert(key.to_string(), now.clone())
            && before != now
        {
            report
                .layouts_changed
                .push(reload::layout_change(key, &before, &now));
        }
    }

    /// Retires every cached pipeline the reload did not decide about (`decided`) that was built from a module that
    /// is no longer its key's: one a fetch built from the old modules while a background reload ran. The next fetch
    /// builds it from the current modules, so no draw keeps running code the report says was replaced. (A pipeline
    /// the reload kept, because its rebuild failed, stays.)
    fn evict_stale(&mut self, decided: &std::collections::HashSet<Want<B::GraphicsOptions>>) {
        let modules = &self.modules;
        let current = |key: &str, built_from: &BuiltFrom| {
            built_from.iter().all(|(stage, id)| {
                modules
                    .get(&(key.to_string(), *stage))
                    .is_some_and(|e| e.id == *id)
            })
        };
        let retired = &mut self.retired;
        self.graphics.retain(|(key, options), c| {
            let keep = current(key, &c.built_from)
                || decided.contains(&Want::Graphics(key.clone(), options.clone()));
            if !keep {
                retired.graphics(c.pipeline.clone());
            }
            keep
        });
        self.compute.retain(|(key, spec), c| {
            let keep = current(key, &c.built_from)
                || decided.contains(&Want::Compute(key.clone(), spec.clone()));
            if !keep {
                retired.compute(c.pipeline.clone());
            }
            keep
        });
        self.ray_tracing.retain(|key, c| {
            let keep =
                current(key, &c.built_from) || decided.contains(&Want::RayTracing(key.clone()));
            if !keep {
                retired.ray_tracing(c.pipeline.clone());
            }
            keep
        });
    }

    /// Starts watching the shader root (recursively); [`Self::poll_reload`] then reloads after changes settle.
    pub fn watch(&mut self, debounce: Duration) -> Result<(), crate::watch::WatchError> {
        self.watcher = Some(ShaderWatcher::new(
            self.sources.base.loader.root(),
            debounce,
        )?);
        Ok(())
    }

    /// When the watcher saw changes, reloads and returns the report; `None` when nothing changed (or not
    /// watching). Call it once per frame: reloading happens on the caller's thread, never behind its back. Errors
    /// the device raised about the library's objects since the last call come first, as the error, and the changes
    /// are reloaded at the next call.
    pub fn poll_reload(&mut self) -> Option<Result<ReloadReport, B::Error>> {
        self.reload_watched(|w| w.poll())
    }

    /// Like [`Self::poll_reload`], but waits up to `timeout` for changes first.
    pub fn wait_reload(&mut self, timeout: Duration) -> Option<Result<ReloadReport, B::Error>> {
        self.reload_watched(|w| w.wait(timeout))
    }

    /// Reloads when `changes` takes a batch from the watcher, the batch and the watcher's errors in the report.
    fn reload_watched(
        &mut self,
        changes: impl FnOnce(&ShaderWatcher) -> Option<Vec<std::path::PathBuf>>,
    ) -> Option<Result<ReloadReport, B::Error>> {
        // Errors raised since the last call are reported before the watcher's batch is taken: `reload` would
        // return them without reloading, and the batch (the saved edit) would be lost.
        if let Err(d) = self.raised(None) {
            return Some(Err(B::error(d)));
        }
        let watcher = self.watcher.as_ref()?;
        let changed = changes(watcher)?;
        let watch_errors = watcher.take_errors();
        Some(self.reload().map(|mut r| {
            r.changed_files = changed;
            r.watch_errors = watch_errors;
            r
        }))
    }
}

/// A module entry with a fresh id, made by `backend` from `source`.
fn new_entry<B: Backend>(
    backend: &B,
    key: &str,
    hash: u128,
    source: B::Source,
) -> Result<ModuleEntry<B::Module>, Vec<Diagnostic>> {
    Ok(ModuleEntry {
        module: Arc::new(backend.create_module(key, source)?),
        hash,
        id: NEXT_MODULE_ID.fetch_add(1, Ordering::Relaxed),
    })
}

/// Whether a pipeline just made replaces one its cache holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Store {
    /// A fetch or a warm-up: a pipeline already in the cache (perhaps handed out) stays.
    IfAbsent,
    /// A reload's rebuild.
    Replacing,
}

/// Stores `p` under `k` as `how` says; returns the pipeline it replaced.
fn store<K: Eq + Hash, P>(
    cache: &mut HashMap<K, Cached<P>>,
    k: K,
    p: P,
    built_from: BuiltFrom,
    how: Store,
) -> Option<Arc<P>> {
    if how == Store::IfAbsent && cache.contains_key(&k) {
        return None;
    }
    cache
        .insert(k, Cached::new(p, built_from))
        .map(|c| c.pipeline)
}

/// The pipeline a build just kept under `k`.
fn cached<K: Eq + Hash, P>(
    cache: &HashMap<K, Cached<P>>,
    k: &K,
    key: &str,
) -> Result<Arc<P>, Vec<Diagnostic>> {
    cache.get(k).map(|c| c.pipeline.clone()).ok_or_else(|| {
        vec![Diagnostic::error(
            shader_info::Code::Device,
            key,
            format!("the pipeline of `{key}` was built but not kept"),
        )]
    })
}

impl<B: Backend> Drop for Library<B> {
    fn drop(&mut self) {
        // A worker may be creating a pipeline on the device; pipelines may still be referenced by submitted work.
        // Let both finish before anything is destroyed.
        self.wait_background();
        self.backend.wait_idle();
    }
}
