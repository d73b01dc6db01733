//! The shader library, written once over a small [`Backend`] trait: modules and pipelines fetched by info name
//! (or variant key), compiled on first use, warmed up in parallel, and hot-reloaded without ever losing a
//! working pipeline. The Vulkan library ([`crate::vk::ShaderLibrary`]) and the wgpu one (`gpu::wgpu::WgpuLibrary`,
//! feature `wgpu`) are this type over their backend, so both have the same lifecycle, the same checks and the
//! same answers.
//!
//! | the core ([`Library`]) | a backend ([`Backend`]) |
//! |---|---|
//! | keys, validated infos, variant tables ([`sources`]) | make a module from checked SPIR-V or WGSL |
//! | module and pipeline caches, fetch-or-build | make a pipeline layout from the plan |
//! | reload: decide, rebuild, keep the last good ([`reload`]) | make graphics, compute, ray-tracing pipelines |
//! | parallel warm-up ([`warm_up`]) | say its limits and a pass's attachments |
//! | kind, limits, attachment and state checks ([`checks`]) | map its errors |
//!
//! ```no_run
//! use gpu::library::LibraryOptions;
//! use gpu::vk::{ContextOptions, GraphicsOptions, ShaderLibrary, VkContext};
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new("shaders/glsl"))?;
//! let text = lib.graphics_pipeline("gpu_shader_text", &GraphicsOptions::default())?;
//! let prefix_sum = lib.compute_pipeline("gpu_compute_prefix_sum")?;
//! println!("{}", lib.reload()?);
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

mod backend;
pub mod checks;
mod key;
mod pipeline_set;
pub mod reload;
pub mod sources;
mod translation;
mod typed;
pub mod warm_up;

pub use backend::{
    Attachments, Backend, DefaultTarget, DeviceLimits, FormatClass, default_color_targets,
};
pub use key::Key;
pub use pipeline_set::{PassPipelines, PipelineLog, PipelineStats, Variants};
pub use reload::{PipelineOutcome, ReloadReport};
pub use sources::LibraryOptions;
pub use translation::checked_translation;
pub use typed::Typed;
pub use warm_up::{WarmUp, WarmUpReport, WarmedPipeline};

use crate::flow::Flow;
use crate::watch::ShaderWatcher;
use reload::{Built, BuiltFrom};
use shader_info::{
    Diagnostic, PipelineKind, PipelinePlan, Registry, SpecValues, Stage, StageMask, SubpassMode,
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
struct ModuleEntry<M> {
    module: Arc<M>,
    hash: u128,
    id: u64,
}

static NEXT_MODULE_ID: AtomicU64 = AtomicU64::new(1);

struct Cached<P> {
    pipeline: Arc<P>,
    built_from: BuiltFrom,
}

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
    backend: B,
    sources: Sources,
    modules: BTreeMap<ModuleKey, ModuleEntry<B::Module>>,
    graphics: HashMap<(String, B::GraphicsOptions), Cached<B::Graphics>>,
    compute: HashMap<(String, SpecValues), Cached<B::Compute>>,
    ray_tracing: HashMap<String, Cached<B::RayTracing>>,
    watcher: Option<ShaderWatcher>,
    /// Host types already checked against a key's declaration ([`Library::typed_graphics`]).
    host_types: std::collections::HashSet<typed::HostTypes>,
    /// Warm-up, late creations, strict mode and the usage log ([`Library::stats`]).
    late: pipeline_set::Late,
    /// Pipelines replaced by better ones ([`Backend::better`]) that a submitted frame may still use: dropped when
    /// the device is idle (reload, drop).
    retired: Vec<Arc<B::Graphics>>,
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
            backend,
            modules: BTreeMap::new(),
            graphics: HashMap::new(),
            compute: HashMap::new(),
            ray_tracing: HashMap::new(),
            watcher: None,
            host_types: Default::default(),
            late: Default::default(),
            retired: Vec::new(),
        })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, to change its settings.
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// The registry the infos come from.
    pub fn registry(&self) -> &Registry {
        &self.sources.registry
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
    /// # fn f(lib: &mut gpu::vk::ShaderLibrary) -> gpu::vk::VkResult<()> {
    /// let key = lib.variant("gpu_shader_mesh", &[("SKINNING", true), ("FOG", true)])?;
    /// let p = lib.graphics_pipeline(&key, &gpu::vk::GraphicsOptions::default())?;
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
    /// # fn f(lib: &mut gpu::vk::ShaderLibrary) -> gpu::vk::VkResult<()> {
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
    /// the next fetch reports them instead of a message at exit.
    fn raised(&self) -> Result<(), Vec<Diagnostic>> {
        let errors = self.backend.raised_errors();
        if errors.is_empty() {
            return Ok(());
        }
        let ours = |key: &str, message: &str| {
            ["'", " ", "."]
                .iter()
                .any(|end| message.contains(&format!("'{key}{end}")))
        };
        let keys: Vec<&str> = self.modules.keys().map(|(k, _)| k.as_str()).collect();
        let out: Vec<Diagnostic> = errors
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
        if out.is_empty() { Ok(()) } else { Err(out) }
    }

    /// The kind of pipeline `key` makes.
    pub fn pipeline_kind(&mut self, key: impl AsRef<str>) -> Result<PipelineKind, B::Error> {
        let key = key.as_ref();
        Ok(PipelineKind::of(&self.validated(key)?.stages()))
    }

    /// The pipeline plan of a key, its bindings' stages narrowed to the stages whose modules use them (the modules
    /// are made if they are not yet).
    pub fn plan(&mut self, key: impl AsRef<str>) -> Result<PipelinePlan, B::Error> {
        let key = key.as_ref();
        let info = self.validated(key)?;
        let plan = self.sources.flow().plan(&info);
        self.narrowed(key, &info, plan).map_err(B::error)
    }

    fn narrowed(
        &mut self,
        key: &str,
        info: &ValidatedInfo,
        plan: PipelinePlan,
    ) -> Result<PipelinePlan, Vec<Diagnostic>> {
        let stages = info.stages();
        for stage in &stages {
            self.entry(key, *stage)?;
        }
        let modules = &self.modules;
        Ok(plan.with_stage_usage(|set, binding| {
            let used: Vec<Stage> = stages
                .iter()
                .copied()
                .filter(|s| {
                    modules
                        .get(&(key.to_string(), *s))
                        .is_some_and(|e| B::module_uses(&e.module, set, binding))
                })
                .collect();
            StageMask::of(&used)
        }))
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
            let flow = self.sources.flow();
            let Some((hash, source)) = self.backend.source(&flow, &info, stage, None)? else {
                unreachable!("a source compared against no module is always made");
            };
            let entry = self.new_entry(key, hash, source)?;
            self.modules.insert(mkey.clone(), entry);
        }
        Ok(&self.modules[&mkey])
    }

    fn new_entry(
        &self,
        key: &str,
        hash: u128,
        source: B::Source,
    ) -> Result<ModuleEntry<B::Module>, Vec<Diagnostic>> {
        new_entry(&self.backend, key, hash, source)
    }

    /// The plan and modules of a pipeline of `kind`, checked before anything is compiled: the kind, and for a
    /// compute pipeline its work group against the device (glslang refuses sizes past its own defaults with a
    /// less useful message, and the driver must never see a size past the device's limits).
    fn parts(
        &mut self,
        key: &str,
        kind: PipelineKind,
    ) -> Result<Parts<B::Module>, Vec<Diagnostic>> {
        let info = self.sources.validated(key)?;
        let plan = self.sources.flow().plan(&info);
        let mut problems = checks::kind_problems(&plan, kind);
        if problems.is_empty() && kind == PipelineKind::Compute {
            problems = checks::compute_problems(&plan, &self.backend.limits());
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let plan = self.narrowed(key, &info, plan)?;
        let modules: Vec<(Stage, Arc<B::Module>)> = plan
            .stages
            .iter()
            .map(|s| (*s, self.modules[&(key.to_string(), *s)].module.clone()))
            .collect();
        let built_from = plan
            .stages
            .iter()
            .map(|s| (*s, self.modules[&(key.to_string(), *s)].id))
            .collect();
        Ok(Parts {
            plan,
            modules,
            built_from,
        })
    }

    /// The render state of a graphics pipeline and every problem the core and the backend find with it.
    fn graphics_checks(
        &self,
        parts: &Parts<B::Module>,
        options: &B::GraphicsOptions,
    ) -> Result<shader_info::RenderState, Vec<Diagnostic>> {
        let plan = &parts.plan;
        let state = B::state_override(options)
            .cloned()
            .unwrap_or_else(|| plan.render_state.clone().unwrap_or_default());
        let attachments = self.backend.attachments(plan, options)?;
        let mut problems = checks::attachment_problems(
            plan,
            &state,
            &attachments,
            self.backend.limits().max_color_attachments,
        );
        problems.extend(
            self.backend
                .graphics_problems(plan, &state, options, &parts.refs()),
        );
        if problems.is_empty() {
            Ok(state)
        } else {
            Err(problems)
        }
    }

    fn build_graphics(&mut self, key: &str, options: &B::GraphicsOptions) -> Built<B::Graphics> {
        let parts = self.parts(key, PipelineKind::Graphics)?;
        let state = self.graphics_checks(&parts, options)?;
        let layout = self.backend.create_layout(&parts.plan, &parts.refs())?;
        let p =
            self.backend
                .create_graphics(&parts.plan, &state, &parts.refs(), layout, options)?;
        Ok((p, parts.built_from))
    }

    fn build_compute(&mut self, key: &str, spec: &SpecValues) -> Built<B::Compute> {
        let parts = self.parts(key, PipelineKind::Compute)?;
        let layout = self.backend.create_layout(&parts.plan, &parts.refs())?;
        let p = self
            .backend
            .create_compute(&parts.plan, &parts.modules[0].1, layout, spec)?;
        Ok((p, parts.built_from))
    }

    fn build_ray_tracing(&mut self, key: &str) -> Built<B::RayTracing> {
        let parts = self.parts(key, PipelineKind::RayTracing)?;
        let layout = self.backend.create_layout(&parts.plan, &parts.refs())?;
        let p = self
            .backend
            .create_ray_tracing(&parts.plan, &parts.refs(), layout)?;
        Ok((p, parts.built_from))
    }

    /// The graphics pipeline of `key` with `options`, created on first use. Fetch it again after a reload to get
    /// the rebuilt one; an `Arc` you hold keeps the old one alive until you drop it.
    pub fn graphics_pipeline(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<Arc<B::Graphics>, B::Error> {
        let key = key.as_ref();
        self.raised().map_err(B::error)?;
        self.count_use(PipelineKind::Graphics, key);
        let gkey = (key.to_string(), options.clone());
        if let Some(c) = self.graphics.get_mut(&gkey) {
            if let Some(better) = self.backend.better(&c.pipeline) {
                let old = std::mem::replace(&mut c.pipeline, Arc::new(better));
                self.retired.push(old);
            }
            return Ok(c.pipeline.clone());
        }
        self.first_use(PipelineKind::Graphics, key)
            .map_err(B::error)?;
        let built = self.build_graphics(key, options).map_err(B::error)?;
        Ok(keep(&mut self.graphics, gkey, built))
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
        self.raised().map_err(B::error)?;
        self.count_use(PipelineKind::Compute, key);
        let ckey = (key.to_string(), spec.clone());
        if let Some(c) = self.compute.get(&ckey) {
            return Ok(c.pipeline.clone());
        }
        self.first_use(PipelineKind::Compute, key)
            .map_err(B::error)?;
        let built = self.build_compute(key, spec).map_err(B::error)?;
        Ok(keep(&mut self.compute, ckey, built))
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
        self.first_use(PipelineKind::RayTracing, key)
            .map_err(B::error)?;
        let built = self.build_ray_tracing(key).map_err(B::error)?;
        Ok(keep(&mut self.ray_tracing, key.to_string(), built))
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
        self.raised().map_err(B::error)?;
        let start = Instant::now();
        self.backend.wait_idle();
        self.retired.clear();
        let mut report = ReloadReport::default();
        let mut failed: HashMap<ModuleKey, Vec<Diagnostic>> = HashMap::new();
        let keys: Vec<ModuleKey> = self.modules.keys().cloned().collect();
        for mkey in keys {
            let current = self.modules[&mkey].hash;
            let outcome = self.sources.validated(&mkey.0).and_then(|info| {
                let flow = self.sources.flow();
                match self.backend.source(&flow, &info, mkey.1, Some(current))? {
                    None => Ok(None),
                    Some((hash, source)) => self.new_entry(&mkey.0, hash, source).map(Some),
                }
            });
            match outcome {
                Ok(None) => {}
                Ok(Some(entry)) => {
                    report.modules_changed.push(mkey.clone());
                    self.modules.insert(mkey, entry);
                }
                Err(d) => {
                    report
                        .modules_failed
                        .push((mkey.0.clone(), mkey.1, d.clone()));
                    failed.insert(mkey, d);
                }
            }
        }
        let mut graphics = std::mem::take(&mut self.graphics);
        self.rebuild(
            &mut graphics,
            &failed,
            &mut report,
            |lib, (key, options)| lib.build_graphics(key, options),
        );
        self.graphics = graphics;
        let mut compute = std::mem::take(&mut self.compute);
        self.rebuild(&mut compute, &failed, &mut report, |lib, (key, spec)| {
            lib.build_compute(key, spec)
        });
        self.compute = compute;
        let mut ray_tracing = std::mem::take(&mut self.ray_tracing);
        self.rebuild(&mut ray_tracing, &failed, &mut report, |lib, key| {
            lib.build_ray_tracing(key)
        });
        self.ray_tracing = ray_tracing;
        report.pipelines.sort_by(|a, b| a.0.cmp(&b.0));
        report.duration = start.elapsed();
        Ok(report)
    }

    /// Decides each cached pipeline of one kind after the modules were made again: kept (a module failed), left
    /// (its modules are the ones it was built from), or rebuilt with `build`, the previous one kept on failure.
    fn rebuild<K: Clone + Eq + Hash + KeyName, P>(
        &mut self,
        cache: &mut HashMap<K, Cached<P>>,
        failed: &HashMap<ModuleKey, Vec<Diagnostic>>,
        report: &mut ReloadReport,
        build: impl Fn(&mut Self, &K) -> Built<P>,
    ) {
        let keys: Vec<K> = cache.keys().cloned().collect();
        for k in keys {
            let built_from = cache[&k].built_from.clone();
            let name = k.name().to_string();
            let modules = &self.modules;
            let outcome = match reload::decide(failed, &name, &built_from, |s| {
                modules.get(&(name.clone(), s)).map(|e| e.id)
            }) {
                Some(o) => o,
                None => reload::rebuilt(build(self, &k), |p, built_from| {
                    cache.insert(
                        k.clone(),
                        Cached {
                            pipeline: Arc::new(p),
                            built_from,
                        },
                    );
                }),
            };
            report.pipelines.push((name, outcome));
        }
    }

    /// Starts watching the shader root (recursively); [`Self::poll_reload`] then reloads after changes settle.
    pub fn watch(&mut self, debounce: Duration) -> Result<(), crate::watch::WatchError> {
        self.watcher = Some(ShaderWatcher::new(self.sources.loader.root(), debounce)?);
        Ok(())
    }

    /// When the watcher saw changes, reloads and returns the report; `None` when nothing changed (or not
    /// watching). Call it once per frame: reloading happens on the caller's thread, never behind its back.
    pub fn poll_reload(&mut self) -> Option<Result<ReloadReport, B::Error>> {
        let changed = self.watcher.as_ref()?.poll()?;
        Some(self.reload().map(|mut r| {
            r.changed_files = changed;
            r
        }))
    }

    /// Like [`Self::poll_reload`], but waits up to `timeout` for changes first.
    pub fn wait_reload(&mut self, timeout: Duration) -> Option<Result<ReloadReport, B::Error>> {
        let changed = self.watcher.as_ref()?.wait(timeout)?;
        Some(self.reload().map(|mut r| {
            r.changed_files = changed;
            r
        }))
    }
}

/// The info (or variant) key inside a pipeline cache's key.
trait KeyName {
    fn name(&self) -> &str;
}

impl<O> KeyName for (String, O) {
    fn name(&self) -> &str {
        &self.0
    }
}

impl KeyName for String {
    fn name(&self) -> &str {
        self
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

/// Stores a pipeline just built under `key` and returns it.
fn keep<K: Eq + Hash, P>(
    cache: &mut HashMap<K, Cached<P>>,
    key: K,
    built: (P, BuiltFrom),
) -> Arc<P> {
    let (p, built_from) = built;
    let pipeline = Arc::new(p);
    cache.insert(
        key,
        Cached {
            pipeline: pipeline.clone(),
            built_from,
        },
    );
    pipeline
}

impl<B: Backend> Drop for Library<B> {
    fn drop(&mut self) {
        // Pipelines may still be referenced by submitted work; let it finish before they are destroyed.
        self.backend.wait_idle();
    }
}
