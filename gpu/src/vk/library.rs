//! The shader library: owns the device, a compiler (and its cache) and every module and pipeline created from the
//! registry's infos, fetched by name. Every module goes through the [`Flow`] (validated, generated, compiled,
//! reflected, cross-checked); every layout and pipeline is mapped from the info's [`PipelinePlan`].
//! [`ShaderLibrary::reload`] recompiles what changed and swaps pipelines only on success, so a typo in a shader
//! never costs the renderer a working pipeline.

mod warm_up;

pub use warm_up::{WarmUp, WarmUpReport, WarmedPipeline};

use super::device::VkContext;
use super::error::{VkError, VkResult};
use super::layout::{LayoutCache, PipelineLayout, describe_layout};
use super::module::ShaderModule;
use super::pipeline::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, RayTracingPipeline, SpecValues,
};
use crate::flow::{Flow, spirv_key};
pub use crate::reload::{PipelineOutcome, ReloadReport};
pub use crate::sources::LibraryOptions;
use crate::sources::Sources;
use crate::watch::ShaderWatcher;
use shader_info::{
    Code, Diagnostic, PipelineKind, PipelinePlan, Registry, Stage, StageMask, SubpassMode,
    ValidatedInfo, VariantSet,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The key of a cached graphics pipeline: the info (or variant key) and the fixed-function options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsKey {
    pub info: String,
    pub options: GraphicsOptions,
}

struct ModuleEntry {
    module: Arc<ShaderModule>,
    /// `(set, binding)` pairs the module's entry point statically uses (reflection), or `None` when the SPIR-V
    /// could not be reflected: the module then counts as using every binding, so its stage is never missing from
    /// a binding's flags (too many flags cost nothing; a missing one is a validation error and undefined reads).
    used: Option<Vec<(u32, u32)>>,
}

impl ModuleEntry {
    fn new(module: ShaderModule, spirv: &[u32]) -> ModuleEntry {
        let used = match crate::reflect::used_bindings(spirv) {
            Ok(used) => Some(used),
            Err(e) => {
                tracing::warn!(
                    "cannot reflect the bindings a module uses ({e}); assuming it uses all"
                );
                None
            }
        };
        ModuleEntry {
            module: Arc::new(module),
            used,
        }
    }

    /// Whether the module's entry point may use `(set, binding)`.
    fn uses(&self, set: u32, binding: u32) -> bool {
        self.used
            .as_ref()
            .is_none_or(|used| used.contains(&(set, binding)))
    }
}

struct Cached<P> {
    pipeline: Arc<P>,
    /// The module ids it was built from, by stage: reload rebuilds when a current module id differs.
    built_from: Vec<(Stage, u64)>,
}

type ModuleKey = (String, Stage);

/// Modules and pipelines fetched by info name (or variant key), compiled on first use, hot-reloadable.
///
/// ```no_run
/// use gpu::vk::{ContextOptions, GraphicsOptions, LibraryOptions, ShaderLibrary, VkContext};
/// let ctx = VkContext::new(&ContextOptions::default())?;
/// let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
///                                  LibraryOptions::new("shaders/glsl"))?;
/// let blur = lib.compute_pipeline("blur")?;
/// let text = lib.graphics_pipeline("text", &GraphicsOptions::default())?;
/// // Later, when sources changed (or from a watcher, see `watch`):
/// let report = lib.reload()?;
/// println!("{report}");
/// # Ok::<(), gpu::vk::VkError>(())
/// ```
pub struct ShaderLibrary {
    ctx: VkContext,
    sources: Sources,
    layouts: LayoutCache,
    modules: BTreeMap<ModuleKey, ModuleEntry>,
    graphics: HashMap<GraphicsKey, Cached<GraphicsPipeline>>,
    compute: HashMap<(String, SpecValues), Cached<ComputePipeline>>,
    ray_tracing: HashMap<String, Cached<RayTracingPipeline>>,
    watcher: Option<ShaderWatcher>,
}

impl ShaderLibrary {
    /// A library over `registry`'s infos with sources under `opts.shader_root` (which must exist).
    pub fn new(
        ctx: &VkContext,
        registry: Registry,
        opts: LibraryOptions,
    ) -> VkResult<ShaderLibrary> {
        let subpass = opts.subpass.unwrap_or_else(|| ctx.subpass_mode());
        Ok(ShaderLibrary {
            ctx: ctx.clone(),
            sources: Sources::new(registry, opts, subpass).map_err(VkError::Diagnostics)?,
            layouts: LayoutCache::new(ctx),
            modules: BTreeMap::new(),
            graphics: HashMap::new(),
            compute: HashMap::new(),
            ray_tracing: HashMap::new(),
            watcher: None,
        })
    }

    /// The device.
    pub fn context(&self) -> &VkContext {
        &self.ctx
    }

    /// The registry the infos come from.
    pub fn registry(&self) -> &Registry {
        &self.sources.registry
    }

    /// How this library's pipelines read subpass inputs, and so how the host binds them: with
    /// [`SubpassMode::LocalRead`], the attachment stays a color attachment of the rendering (in
    /// `RENDERING_LOCAL_READ_KHR`), is bound with [`crate::vk::DescriptorPool::write_input_attachment`], and the
    /// draws that write and read it are separated by [`crate::vk::Image2D::local_read_barrier`]; with
    /// [`SubpassMode::Emulated`], the rendering that wrote it ends and it is bound as a texture.
    pub fn subpass_mode(&self) -> SubpassMode {
        self.sources.subpass
    }

    /// The shared descriptor-set layouts.
    pub fn layouts(&self) -> &LayoutCache {
        &self.layouts
    }

    /// The flow this library runs every module through.
    pub fn flow(&self) -> Flow<'_> {
        self.sources.flow()
    }

    /// Resolves and validates a key: an info name, or a variant key made by [`Self::variant_key`]. Cached per key.
    pub fn validated(&mut self, key: &str) -> VkResult<Arc<ValidatedInfo>> {
        self.sources.validated(key).map_err(VkError::Diagnostics)
    }

    /// The variants of an info with static branches: the permutation → variant table (see
    /// [`shader_info::VariantSet::lookup`]). Computed once per info.
    pub fn variants(&mut self, info_name: &str) -> VkResult<Arc<VariantSet>> {
        self.sources
            .variants(info_name)
            .map_err(VkError::Diagnostics)
    }

    /// The key of the unique variant a permutation folds into: pass it wherever an info name goes. Permutations
    /// that fold into one variant share one key, so they share modules and pipelines.
    ///
    /// ```no_run
    /// # use gpu::vk::*;
    /// # fn f(lib: &mut ShaderLibrary) -> VkResult<()> {
    /// let mesh = lib.variants("gpu_shader_mesh")?;
    /// let bits = mesh.bits_of(&[("SKINNING", true), ("FOG", true)]).unwrap();
    /// let key = lib.variant_key("gpu_shader_mesh", bits)?;
    /// let pipeline = lib.graphics_pipeline(&key, &GraphicsOptions::default())?;
    /// # Ok(()) }
    /// ```
    pub fn variant_key(&mut self, info_name: &str, permutation: u64) -> VkResult<String> {
        self.sources
            .variant_key(info_name, permutation)
            .map_err(VkError::Diagnostics)
    }

    /// The pipeline plan of a key, its bindings' stages narrowed to the stages whose compiled modules use them
    /// (the modules are compiled if they are not yet).
    pub fn plan(&mut self, key: &str) -> VkResult<PipelinePlan> {
        let info = self.validated(key)?;
        for stage in info.stages() {
            self.module(key, stage)?;
        }
        let modules = &self.modules;
        let plan = self.sources.flow().plan(&info);
        Ok(plan.with_stage_usage(|set, binding| {
            let used: Vec<Stage> = info
                .stages()
                .into_iter()
                .filter(|s| {
                    modules
                        .get(&(key.to_string(), *s))
                        .is_some_and(|e| e.uses(set, binding))
                })
                .collect();
            StageMask::of(&used)
        }))
    }

    /// The module of `stage` of `key`, compiled, checked and created on first use.
    pub fn module(&mut self, key: &str, stage: Stage) -> VkResult<Arc<ShaderModule>> {
        let mkey = (key.to_string(), stage);
        if let Some(e) = self.modules.get(&mkey) {
            return Ok(e.module.clone());
        }
        let info = self.validated(key)?;
        let checked = self
            .sources
            .flow()
            .compile(&info, stage)
            .map_err(VkError::Diagnostics)?;
        let entry = ModuleEntry::new(
            ShaderModule::new(&self.ctx, &checked.module.spirv)?,
            &checked.module.spirv,
        );
        let module = entry.module.clone();
        self.modules.insert(mkey, entry);
        Ok(module)
    }

    /// The modules of every stage of `key` whose stages satisfy `keep`, and its layout.
    #[allow(clippy::type_complexity)]
    fn parts(
        &mut self,
        key: &str,
        keep: fn(&Stage) -> bool,
    ) -> VkResult<(
        PipelinePlan,
        Vec<(Stage, Arc<ShaderModule>)>,
        Arc<PipelineLayout>,
    )> {
        let plan = self.plan(key)?;
        let mut modules = Vec::new();
        for s in plan.stages.iter().copied().filter(keep) {
            modules.push((s, self.module(key, s)?));
        }
        let layout = Arc::new(PipelineLayout::new(
            &self.ctx,
            &self.layouts,
            &describe_layout(&plan),
        )?);
        Ok((plan, modules, layout))
    }

    fn build_graphics(
        &mut self,
        key: &GraphicsKey,
    ) -> VkResult<(GraphicsPipeline, Vec<(Stage, u64)>)> {
        let (plan, modules, layout) = self.parts(&key.info, |s| s.is_graphics())?;
        let refs: Vec<(Stage, &ShaderModule)> =
            modules.iter().map(|(s, m)| (*s, m.as_ref())).collect();
        let p = GraphicsPipeline::new(&self.ctx, &plan, &refs, layout, &key.options)?;
        Ok((p, ids(&modules)))
    }

    fn build_compute(
        &mut self,
        key: &str,
        spec: &SpecValues,
    ) -> VkResult<(ComputePipeline, Vec<(Stage, u64)>)> {
        let (plan, modules, layout) = self.compute_parts(key)?;
        let p = ComputePipeline::new(&self.ctx, &plan, &modules[0].1, layout, spec)?;
        Ok((p, ids(&modules)))
    }

    /// The parts of a compute pipeline, its work-group size checked against the device first.
    #[allow(clippy::type_complexity)]
    fn compute_parts(
        &mut self,
        key: &str,
    ) -> VkResult<(
        PipelinePlan,
        Vec<(Stage, Arc<ShaderModule>)>,
        Arc<PipelineLayout>,
    )> {
        // Before compiling: glslang refuses sizes past its own defaults with a less useful message, and the
        // driver must never see a size past the device's limits.
        let info = self.validated(key)?;
        let limits = &self.ctx.properties().limits;
        let plan = self.sources.flow().plan(&info);
        let mut problems = plan.work_group_problems(
            limits.max_compute_work_group_size,
            limits.max_compute_work_group_invocations,
        );
        problems.extend(plan.shared_memory_problems(limits.max_compute_shared_memory_size));
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        let parts = self.parts(key, |s| *s == Stage::Compute)?;
        if parts.1.is_empty() {
            return Err(VkError::Declaration {
                info: key.to_string(),
                message: "a compute pipeline needs a compute stage".into(),
            });
        }
        Ok(parts)
    }

    fn build_ray_tracing(
        &mut self,
        key: &str,
    ) -> VkResult<(RayTracingPipeline, Vec<(Stage, u64)>)> {
        let (plan, modules, layout) = self.parts(key, |s| s.is_ray_tracing())?;
        let refs: Vec<(Stage, &ShaderModule)> =
            modules.iter().map(|(s, m)| (*s, m.as_ref())).collect();
        let p = RayTracingPipeline::new(&self.ctx, &plan, &refs, layout, &SpecValues::default())?;
        Ok((p, ids(&modules)))
    }

    /// The graphics pipeline of `key` with `options`, created on first use. Fetch it again after a reload to get
    /// the rebuilt one; an `Arc` you hold keeps the old one alive until you drop it.
    pub fn graphics_pipeline(
        &mut self,
        key: &str,
        options: &GraphicsOptions,
    ) -> VkResult<Arc<GraphicsPipeline>> {
        let gkey = GraphicsKey {
            info: key.to_string(),
            options: options.clone(),
        };
        if let Some(c) = self.graphics.get(&gkey) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self.build_graphics(&gkey)?;
        let p = Arc::new(p);
        self.graphics.insert(
            gkey,
            Cached {
                pipeline: p.clone(),
                built_from,
            },
        );
        Ok(p)
    }

    /// The compute pipeline of `key` with the declared specialization defaults.
    pub fn compute_pipeline(&mut self, key: &str) -> VkResult<Arc<ComputePipeline>> {
        self.compute_pipeline_with(key, &SpecValues::default())
    }

    /// The compute pipeline of `key` with specialization values, created on first use.
    pub fn compute_pipeline_with(
        &mut self,
        key: &str,
        spec: &SpecValues,
    ) -> VkResult<Arc<ComputePipeline>> {
        let ckey = (key.to_string(), spec.clone());
        if let Some(c) = self.compute.get(&ckey) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self.build_compute(key, spec)?;
        let p = Arc::new(p);
        self.compute.insert(
            ckey,
            Cached {
                pipeline: p.clone(),
                built_from,
            },
        );
        Ok(p)
    }

    /// The ray-tracing pipeline of `key` (with its shader binding table), created on first use.
    ///
    /// Returns [`VkError::Unsupported`] on devices without `VK_KHR_ray_tracing_pipeline` (lavapipe).
    pub fn ray_tracing_pipeline(&mut self, key: &str) -> VkResult<Arc<RayTracingPipeline>> {
        if let Some(c) = self.ray_tracing.get(key) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self.build_ray_tracing(key)?;
        let p = Arc::new(p);
        self.ray_tracing.insert(
            key.to_string(),
            Cached {
                pipeline: p.clone(),
                built_from,
            },
        );
        Ok(p)
    }

    /// The kind of pipeline `key` makes.
    pub fn pipeline_kind(&mut self, key: &str) -> VkResult<PipelineKind> {
        Ok(PipelineKind::of(&self.validated(key)?.stages()))
    }

    /// Number of pipelines created (graphics, compute and ray tracing).
    pub fn pipeline_count(&self) -> usize {
        self.graphics.len() + self.compute.len() + self.ray_tracing.len()
    }

    /// Waits for the device to be idle, recompiles every module the library holds (the compiler's cache skips
    /// unchanged sources; a module is replaced only when its SPIR-V changed, and only changed SPIR-V is checked
    /// again), then rebuilds exactly the pipelines whose modules changed. A failed compile, check or pipeline
    /// creation keeps the previous pipeline and is reported with its diagnostics.
    pub fn reload(&mut self) -> VkResult<ReloadReport> {
        let start = Instant::now();
        self.ctx.wait_idle()?;
        let mut report = ReloadReport::default();
        let mut failed: HashMap<ModuleKey, Vec<Diagnostic>> = HashMap::new();

        let keys: Vec<ModuleKey> = self.modules.keys().cloned().collect();
        for mkey in keys {
            let outcome = self.validated(&mkey.0).and_then(|info| {
                let flow = self.sources.flow();
                let (generated, compiled) =
                    flow.compiled(&info, mkey.1).map_err(VkError::Diagnostics)?;
                let current = self.modules.get(&mkey).map(|e| e.module.spirv_hash());
                if current == Some(spirv_key(&compiled.spirv)) {
                    return Ok(None);
                }
                flow.check(&info, &generated, &compiled.spirv)
                    .map_err(VkError::Diagnostics)?;
                let module = ShaderModule::new(&self.ctx, &compiled.spirv)?;
                Ok(Some(ModuleEntry::new(module, &compiled.spirv)))
            });
            match outcome {
                Ok(None) => {}
                Ok(Some(entry)) => {
                    report.modules_changed.push(mkey.clone());
                    self.modules.insert(mkey, entry);
                }
                Err(e) => {
                    let d = e.into_diagnostics(&mkey.0);
                    report
                        .modules_failed
                        .push((mkey.0.clone(), mkey.1, d.clone()));
                    failed.insert(mkey, d);
                }
            }
        }

        let gkeys: Vec<GraphicsKey> = self.graphics.keys().cloned().collect();
        for key in gkeys {
            let built_from = self.graphics[&key].built_from.clone();
            let outcome = match decide(&self.modules, &failed, &key.info, &built_from) {
                Some(o) => o,
                None => rebuilt(self.build_graphics(&key), &key.info, |p, built_from| {
                    self.graphics.insert(
                        key.clone(),
                        Cached {
                            pipeline: Arc::new(p),
                            built_from,
                        },
                    );
                }),
            };
            report.pipelines.push((key.info.clone(), outcome));
        }
        let ckeys: Vec<(String, SpecValues)> = self.compute.keys().cloned().collect();
        for key in ckeys {
            let built_from = self.compute[&key].built_from.clone();
            let outcome = match decide(&self.modules, &failed, &key.0, &built_from) {
                Some(o) => o,
                None => rebuilt(
                    self.build_compute(&key.0, &key.1),
                    &key.0,
                    |p, built_from| {
                        self.compute.insert(
                            key.clone(),
                            Cached {
                                pipeline: Arc::new(p),
                                built_from,
                            },
                        );
                    },
                ),
            };
            report.pipelines.push((key.0.clone(), outcome));
        }
        let rkeys: Vec<String> = self.ray_tracing.keys().cloned().collect();
        for key in rkeys {
            let built_from = self.ray_tracing[&key].built_from.clone();
            let outcome = match decide(&self.modules, &failed, &key, &built_from) {
                Some(o) => o,
                None => rebuilt(self.build_ray_tracing(&key), &key, |p, built_from| {
                    self.ray_tracing.insert(
                        key.clone(),
                        Cached {
                            pipeline: Arc::new(p),
                            built_from,
                        },
                    );
                }),
            };
            report.pipelines.push((key.clone(), outcome));
        }
        report.pipelines.sort_by(|a, b| a.0.cmp(&b.0));
        report.duration = start.elapsed();
        Ok(report)
    }

    /// Starts watching the shader root (recursively); [`Self::poll_reload`] then reloads after changes settle.
    pub fn watch(&mut self, debounce: Duration) -> VkResult<()> {
        self.watcher = Some(
            ShaderWatcher::new(self.sources.loader.root(), debounce)
                .map_err(|e| VkError::Other(e.to_string()))?,
        );
        Ok(())
    }

    /// When the watcher saw changes, reloads and returns the report; `None` when nothing changed (or not
    /// watching). Call it once per frame: reloading happens on the caller's thread, never behind its back.
    pub fn poll_reload(&mut self) -> Option<VkResult<ReloadReport>> {
        let changed = self.watcher.as_ref()?.poll()?;
        Some(self.reload().map(|mut r| {
            r.changed_files = changed;
            r
        }))
    }

    /// Like [`Self::poll_reload`], but waits up to `timeout` for changes first.
    pub fn wait_reload(&mut self, timeout: Duration) -> Option<VkResult<ReloadReport>> {
        let changed = self.watcher.as_ref()?.wait(timeout)?;
        Some(self.reload().map(|mut r| {
            r.changed_files = changed;
            r
        }))
    }
}

/// The module ids a pipeline is built from.
fn ids(modules: &[(Stage, Arc<ShaderModule>)]) -> Vec<(Stage, u64)> {
    modules.iter().map(|(s, m)| (*s, m.id())).collect()
}

/// What reload does with a pipeline of `key` built from `built_from` (see [`crate::reload::decide`]).
fn decide(
    modules: &BTreeMap<ModuleKey, ModuleEntry>,
    failed: &HashMap<ModuleKey, Vec<Diagnostic>>,
    key: &str,
    built_from: &[(Stage, u64)],
) -> Option<PipelineOutcome> {
    crate::reload::decide(failed, key, built_from, |s| {
        modules.get(&(key.to_string(), s)).map(|e| e.module.id())
    })
}

/// The outcome of rebuilding one pipeline (see [`crate::reload::rebuilt`]).
fn rebuilt<P>(
    built: VkResult<(P, Vec<(Stage, u64)>)>,
    key: &str,
    store: impl FnOnce(P, Vec<(Stage, u64)>),
) -> PipelineOutcome {
    crate::reload::rebuilt(built.map_err(|e| e.into_diagnostics(key)), store)
}

impl VkError {
    /// The error as diagnostics naming `key`: its own for [`VkError::Diagnostics`], one [`Code::Device`] (or
    /// [`Code::Unsupported`]) diagnostic otherwise.
    pub fn into_diagnostics(self, key: &str) -> Vec<Diagnostic> {
        match self {
            VkError::Diagnostics(d) => d,
            VkError::Unsupported { .. } => {
                vec![Diagnostic::error(Code::Unsupported, key, self.to_string())]
            }
            other => vec![Diagnostic::error(Code::Device, key, other.to_string())],
        }
    }
}

impl Drop for ShaderLibrary {
    fn drop(&mut self) {
        // Pipelines may still be referenced by submitted work; let it finish before they are destroyed.
        let _ = self.ctx.wait_idle();
    }
}
