//! The shader library: owns the device, a compiler (and its cache) and every module and pipeline created from the
//! registry's infos, fetched by name. [`ShaderLibrary::reload`] recompiles what changed and swaps pipelines only
//! on success, so a typo in a shader never costs the renderer a working pipeline.

use super::layout::{LayoutCache, PipelineLayout, describe_layout};
use super::module::{ShaderModule, spirv_hash};
use super::pipeline::{ComputePipeline, GraphicsOptions, GraphicsPipeline, SpecValues};
use super::watch::ShaderWatcher;
use super::{VkContext, VkError, VkResult};
use crate::compiler::{Compiler, Profile};
use crate::reflect::{cross_check, reflect, rust_twin_mismatches};
use ash::vk;
use shader_info::{
    DEFAULT_BRANCH_LIMIT, DirLoader, GenerateOptions, GeneratedStage, Registry, ResolvedInfo,
    Stage, ValidateOptions, VariantSet, enumerate_variants, generate, validate,
};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the library needs from a compiler: generated GLSL in, SPIR-V words or rendered diagnostics out. The
/// compiler decides what to recompile (its cache); the library compares the SPIR-V it gets back.
pub trait ModuleCompiler: Send {
    /// Compiles one generated stage.
    fn compile(&mut self, stage: &GeneratedStage) -> Result<Arc<[u32]>, String>;
}

/// The crate's runtime compiler ([`crate::compiler::Compiler`]: shaderc, include-aware cache) at one profile. The
/// library's default.
///
/// ```no_run
/// use gpu::compiler::{Compiler, Profile};
/// use gpu::vk::library::RuntimeCompiler;
/// let c = RuntimeCompiler { compiler: Compiler::new("shaders/glsl")?, profile: Profile::Release };
/// # Ok::<(), gpu::compiler::CompileError>(())
/// ```
pub struct RuntimeCompiler {
    pub compiler: Compiler,
    pub profile: Profile,
}

impl ModuleCompiler for RuntimeCompiler {
    fn compile(&mut self, g: &GeneratedStage) -> Result<Arc<[u32]>, String> {
        self.compiler
            .compile_generated(g, self.profile)
            .map(|m| Arc::from(m.spirv.as_slice()))
            .map_err(|e| e.to_string())
    }
}

/// A compiler that runs the `glslc` command (an independent cross-check of the runtime compiler), cached by the generated text (which holds every inserted file, so
/// an edit anywhere in it changes the key). `#include`d files are resolved by glslc from the shader root but
/// are not part of the key; prefer the crate's own compiler, which tracks them.
///
/// ```no_run
/// use gpu::vk::library::{GlslcCompiler, ModuleCompiler};
/// let mut c = GlslcCompiler::new("shaders/glsl");
/// ```
pub struct GlslcCompiler {
    include_root: PathBuf,
    cache: HashMap<(Stage, String), Arc<[u32]>>,
    /// Number of times glslc actually ran (cache misses).
    pub compiles: usize,
}

impl GlslcCompiler {
    /// A compiler resolving `#include` against `include_root`.
    pub fn new(include_root: impl Into<PathBuf>) -> GlslcCompiler {
        GlslcCompiler {
            include_root: include_root.into(),
            cache: HashMap::new(),
            compiles: 0,
        }
    }
}

impl ModuleCompiler for GlslcCompiler {
    fn compile(&mut self, g: &GeneratedStage) -> Result<Arc<[u32]>, String> {
        let key = (g.stage, g.source.clone());
        if let Some(hit) = self.cache.get(&key) {
            return Ok(hit.clone());
        }
        self.compiles += 1;
        let words: Arc<[u32]> = run_glslc(&g.source, g.stage, Some(&self.include_root))?.into();
        self.cache.insert(key, words.clone());
        Ok(words)
    }
}

/// Runs `glslc` on `source` (Vulkan 1.3, SPIR-V 1.5) and returns checked SPIR-V words.
pub(crate) fn run_glslc(
    source: &str,
    stage: Stage,
    include_root: Option<&Path>,
) -> Result<Vec<u32>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new("glslc");
    cmd.args([
        &format!("-fshader-stage={}", stage.short_name()),
        "--target-env=vulkan1.3",
        "--target-spv=spv1.5",
    ]);
    if let Some(r) = include_root {
        cmd.arg("-I").arg(r);
    }
    let mut child = cmd
        .args(["-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run glslc (apt-get install glslc): {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    super::spirv_from_bytes(&out.stdout).map_err(|e| e.to_string())
}

/// Which stages use `(set, binding)` of an info (from SPIR-V reflection); `None` means "every stage of the info".
pub type StageUsageFn = dyn Fn(&ResolvedInfo, u32, u32) -> Option<vk::ShaderStageFlags> + Send;

/// How to build a [`ShaderLibrary`].
pub struct LibraryOptions {
    /// The directory stage sources are loaded from (and watched).
    pub shader_root: PathBuf,
    /// The compiler; default: [`RuntimeCompiler`] rooted at `shader_root` with `profile`.
    pub compiler: Option<Box<dyn ModuleCompiler>>,
    /// Profile of the default compiler. Default `Release`: no debug info, so an edit that does not change the
    /// code (a comment, moved lines) gives identical SPIR-V and rebuilds nothing.
    pub profile: Profile,
    /// Stage flags per binding; default: every stage of the info.
    pub stage_usage: Option<Box<StageUsageFn>>,
}

impl LibraryOptions {
    /// Options with sources under `shader_root` and the defaults for the rest.
    pub fn new(shader_root: impl Into<PathBuf>) -> LibraryOptions {
        LibraryOptions {
            shader_root: shader_root.into(),
            compiler: None,
            profile: Profile::Release,
            stage_usage: None,
        }
    }
}

/// The key of a cached graphics pipeline: the info and the fixed-function options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsKey {
    pub info: String,
    pub options: GraphicsOptions,
}

/// What reload did to one pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineOutcome {
    /// A module changed and the new pipeline replaced the old one.
    Rebuilt,
    /// None of its modules changed.
    Unchanged,
    /// Compiling or creating failed; the previous pipeline is still in use.
    KeptPrevious { diagnostics: String },
}

/// The result of [`ShaderLibrary::reload`].
#[derive(Clone, Debug, Default)]
pub struct ReloadReport {
    /// Each pipeline (by info name; one entry per cached pipeline) and its outcome, sorted by name.
    pub pipelines: Vec<(String, PipelineOutcome)>,
    /// Modules whose SPIR-V changed (and were recreated).
    pub modules_changed: Vec<(String, Stage)>,
    /// Modules whose compile failed, with diagnostics.
    pub modules_failed: Vec<(String, Stage, String)>,
    /// Files the watcher reported, when the reload came from it.
    pub changed_files: Vec<PathBuf>,
    pub duration: Duration,
}

impl ReloadReport {
    /// Number of pipelines whose outcome satisfies `kind`.
    pub fn count(&self, kind: fn(&PipelineOutcome) -> bool) -> usize {
        self.pipelines.iter().filter(|(_, o)| kind(o)).count()
    }

    /// The outcome of the first pipeline named `name`.
    pub fn outcome(&self, name: &str) -> Option<&PipelineOutcome> {
        self.pipelines
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o)
    }
}

impl std::fmt::Display for ReloadReport {
    /// One line: counts, then the pipelines that did not stay unchanged.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rebuilt = self.count(|o| *o == PipelineOutcome::Rebuilt);
        let kept = self.count(|o| matches!(o, PipelineOutcome::KeptPrevious { .. }));
        let unchanged = self.count(|o| *o == PipelineOutcome::Unchanged);
        write!(
            f,
            "reload in {:.1} ms: {rebuilt} rebuilt, {unchanged} unchanged, {kept} kept previous",
            self.duration.as_secs_f64() * 1e3
        )?;
        for (n, o) in &self.pipelines {
            match o {
                PipelineOutcome::Rebuilt => write!(f, "; {n}: rebuilt")?,
                PipelineOutcome::KeptPrevious { diagnostics } => {
                    let first = diagnostics.lines().next().unwrap_or("");
                    write!(f, "; {n}: kept previous ({first})")?
                }
                PipelineOutcome::Unchanged => {}
            }
        }
        Ok(())
    }
}

struct ModuleEntry {
    module: Arc<ShaderModule>,
    hash: u64,
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
            hash: spirv_hash(spirv),
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

/// Modules and pipelines fetched by info name, compiled on first use, hot-reloadable.
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
    registry: Registry,
    loader: DirLoader,
    compiler: Box<dyn ModuleCompiler>,
    stage_usage: Option<Box<StageUsageFn>>,
    layouts: LayoutCache,
    modules: BTreeMap<ModuleKey, ModuleEntry>,
    graphics: HashMap<GraphicsKey, Cached<GraphicsPipeline>>,
    compute: HashMap<(String, SpecValues), Cached<ComputePipeline>>,
    variant_sets: HashMap<String, Arc<VariantSet>>,
    /// Resolved and validated infos by key (info name or variant key). The registry never changes under a
    /// library and validation reads only declarations, never sources, so an entry stays valid across reloads.
    resolved: HashMap<String, Arc<ResolvedInfo>>,
    watcher: Option<ShaderWatcher>,
}

impl ShaderLibrary {
    /// A library over `registry`'s infos with sources under `opts.shader_root` (which must exist).
    pub fn new(
        ctx: &VkContext,
        registry: Registry,
        opts: LibraryOptions,
    ) -> VkResult<ShaderLibrary> {
        let compiler = match opts.compiler {
            Some(c) => c,
            None => Box::new(RuntimeCompiler {
                compiler: Compiler::new(&opts.shader_root)
                    .map_err(|e| VkError::Compile(e.to_string()))?,
                profile: opts.profile,
            }),
        };
        Ok(ShaderLibrary {
            ctx: ctx.clone(),
            registry,
            loader: DirLoader::new(opts.shader_root),
            compiler,
            stage_usage: opts.stage_usage,
            layouts: LayoutCache::new(ctx),
            modules: BTreeMap::new(),
            graphics: HashMap::new(),
            compute: HashMap::new(),
            variant_sets: HashMap::new(),
            resolved: HashMap::new(),
            watcher: None,
        })
    }

    /// The device.
    pub fn context(&self) -> &VkContext {
        &self.ctx
    }

    /// The registry the infos come from.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The shared descriptor-set layouts.
    pub fn layouts(&self) -> &LayoutCache {
        &self.layouts
    }

    /// Resolves an info name, or a variant key made by [`variant_key`] (`name#v<index>`): the info with that
    /// unique variant's branch values, sources and defines applied; then validates what it returns (for a
    /// variant key, the applied variant, whose sources and defines the specialize function may have changed), as
    /// the static pass does for a compilable info. Validation errors are a compile failure naming the key.
    /// Cached per key.
    ///
    /// [`variant_key`]: Self::variant_key
    fn resolve(&mut self, name: &str) -> VkResult<Arc<ResolvedInfo>> {
        if let Some(info) = self.resolved.get(name) {
            return Ok(info.clone());
        }
        let (base, variant) = match name.rsplit_once("#v") {
            Some((base, index)) if index.parse::<usize>().is_ok() => {
                (base, index.parse::<usize>().ok())
            }
            _ => (name, None),
        };
        let info = match variant {
            None => self
                .registry
                .resolve(base)
                .map_err(|d| VkError::Compile(render_diagnostics(&d)))?,
            Some(index) => {
                let base_info = self.resolve(base)?;
                // The variant table is computed once per info (2^branches permutations), not once per lookup.
                let set = self.variants(base)?;
                let v = set
                    .variants
                    .get(index)
                    .ok_or_else(|| VkError::Declaration {
                        info: base.to_string(),
                        message: format!(
                            "variant {index} does not exist; the info has {} unique variants",
                            set.variants.len()
                        ),
                    })?;
                v.apply(&base_info, &set.branches)
            }
        };
        let opts = ValidateOptions {
            structs: &self.registry,
            extra_type_names: &[],
            // Everything the library resolves is about to be compiled.
            require_complete: true,
        };
        let errors: Vec<_> = validate(&info, &opts)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        if !errors.is_empty() {
            return Err(VkError::Compile(format!(
                "info `{name}` is not valid:\n{}",
                render_diagnostics(&errors)
            )));
        }
        let info = Arc::new(info);
        self.resolved.insert(name.to_string(), info.clone());
        Ok(info)
    }

    /// The variants of an info with static branches: the permutation → variant table (see
    /// [`shader_info::VariantSet::lookup`]). Computed once per info.
    pub fn variants(&mut self, info_name: &str) -> VkResult<Arc<VariantSet>> {
        if let Some(v) = self.variant_sets.get(info_name) {
            return Ok(v.clone());
        }
        let info = self.resolve(info_name)?;
        let set = Arc::new(
            enumerate_variants(&info, DEFAULT_BRANCH_LIMIT)
                .map_err(|d| VkError::Compile(render_diagnostics(&d)))?,
        );
        self.variant_sets.insert(info_name.to_string(), set.clone());
        Ok(set)
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
        let set = self.variants(info_name)?;
        let index = set.lookup(permutation).map_err(|e| VkError::Declaration {
            info: info_name.to_string(),
            message: e.to_string(),
        })?;
        Ok(format!("{info_name}#v{index}"))
    }

    /// Generates and compiles `stage` of `info` (the compiler's cache makes this cheap when nothing changed).
    /// The SPIR-V is not checked yet: see [`Self::check`].
    fn compile(&mut self, info: &ResolvedInfo, stage: Stage) -> Result<Arc<[u32]>, String> {
        let opts = GenerateOptions {
            loader: &self.loader,
            registry: &self.registry,
            extra_defines: &[],
        };
        let g = generate(info, stage, &opts).map_err(|d| render_diagnostics(&d))?;
        self.compiler.compile(&g)
    }

    /// Reflects compiled SPIR-V and cross-checks it against the declaration of `stage` of `info`, as the static
    /// pass does: a binding written by hand in the source, or a block whose offsets differ from the declared
    /// layout, would otherwise reach a pipeline layout that does not describe it.
    fn check(&self, info: &ResolvedInfo, stage: Stage, spirv: &[u32]) -> Result<(), String> {
        let reflection =
            reflect(spirv).map_err(|e| format!("error[reflection]: {}: {e}", info.name))?;
        let mut mismatches = cross_check(&reflection, info, stage, &self.registry);
        mismatches.extend(rust_twin_mismatches(&self.registry, info));
        if mismatches.is_empty() {
            return Ok(());
        }
        Err(mismatches
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// The module of `stage` of `info_name`, compiled and created on first use.
    pub fn module(&mut self, info_name: &str, stage: Stage) -> VkResult<Arc<ShaderModule>> {
        let key = (info_name.to_string(), stage);
        if let Some(e) = self.modules.get(&key) {
            return Ok(e.module.clone());
        }
        let info = self.resolve(info_name)?;
        let spirv = self
            .compile(&info, stage)
            .and_then(|spirv| self.check(&info, stage, &spirv).map(|()| spirv))
            .map_err(|d| VkError::Compile(format!("{info_name} ({stage}): {d}")))?;
        let entry = ModuleEntry::new(ShaderModule::new(&self.ctx, &spirv)?, &spirv);
        let module = entry.module.clone();
        self.modules.insert(key, entry);
        Ok(module)
    }

    /// The pipeline layout of `info`, fetched as `key` (an info name or a variant key), with each binding's stage
    /// flags taken from the stages whose modules use it (reflection of the compiled modules of `key`, which must
    /// exist already), unless `stage_usage` says otherwise. The modules are looked up by `key`, not by
    /// `info.name`: a variant keeps its info's name, and the base info's modules may use other bindings.
    fn layout_for(&self, key: &str, info: &ResolvedInfo) -> VkResult<Arc<PipelineLayout>> {
        let all = super::stages_flags(&info.stages());
        let reflected = |set: u32, binding: u32| {
            let flags = info
                .stages()
                .into_iter()
                .filter(|s| {
                    self.modules
                        .get(&(key.to_string(), *s))
                        .is_some_and(|e| e.uses(set, binding))
                })
                .fold(vk::ShaderStageFlags::empty(), |acc, s| {
                    acc | super::stages_flags(&[s])
                });
            // A declared binding no stage reads still belongs in the layout; give it every stage of the info.
            if flags.is_empty() { all } else { flags }
        };
        let usage = |set: u32, binding: u32| match &self.stage_usage {
            Some(f) => f(info, set, binding).unwrap_or_else(|| reflected(set, binding)),
            None => reflected(set, binding),
        };
        let desc = describe_layout(
            info,
            Some(&usage as &dyn Fn(u32, u32) -> vk::ShaderStageFlags),
        )?;
        Ok(Arc::new(PipelineLayout::new(
            &self.ctx,
            &self.layouts,
            &desc,
        )?))
    }

    fn build_graphics(
        &mut self,
        key: &GraphicsKey,
    ) -> VkResult<(GraphicsPipeline, Vec<(Stage, u64)>)> {
        let info = self.resolve(&key.info)?;
        let stages: Vec<Stage> = info
            .stages()
            .into_iter()
            .filter(|s| s.is_graphics())
            .collect();
        let mut modules = Vec::new();
        for s in &stages {
            modules.push((*s, self.module(&key.info, *s)?));
        }
        let layout = self.layout_for(&key.info, &info)?;
        let refs: Vec<(Stage, &ShaderModule)> =
            modules.iter().map(|(s, m)| (*s, m.as_ref())).collect();
        let p = GraphicsPipeline::new(&self.ctx, &info, &refs, layout, &key.options)?;
        Ok((p, modules.iter().map(|(s, m)| (*s, m.id())).collect()))
    }

    fn build_compute(
        &mut self,
        name: &str,
        spec: &SpecValues,
    ) -> VkResult<(ComputePipeline, Vec<(Stage, u64)>)> {
        let info = self.resolve(name)?;
        let m = self.module(name, Stage::Compute)?;
        let layout = self.layout_for(name, &info)?;
        let p = ComputePipeline::new(&self.ctx, &info, &m, layout, spec)?;
        Ok((p, vec![(Stage::Compute, m.id())]))
    }

    /// The graphics pipeline of `info_name` with `options`, created on first use. Fetch it again after a reload
    /// to get the rebuilt one; an `Arc` you hold keeps the old one alive until you drop it.
    pub fn graphics_pipeline(
        &mut self,
        info_name: &str,
        options: &GraphicsOptions,
    ) -> VkResult<Arc<GraphicsPipeline>> {
        let key = GraphicsKey {
            info: info_name.to_string(),
            options: options.clone(),
        };
        if let Some(c) = self.graphics.get(&key) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self.build_graphics(&key)?;
        let p = Arc::new(p);
        self.graphics.insert(
            key,
            Cached {
                pipeline: p.clone(),
                built_from,
            },
        );
        Ok(p)
    }

    /// The compute pipeline of `info_name` with the declared specialization defaults.
    pub fn compute_pipeline(&mut self, info_name: &str) -> VkResult<Arc<ComputePipeline>> {
        self.compute_pipeline_with(info_name, &SpecValues::default())
    }

    /// The compute pipeline of `info_name` with specialization values, created on first use.
    pub fn compute_pipeline_with(
        &mut self,
        info_name: &str,
        spec: &SpecValues,
    ) -> VkResult<Arc<ComputePipeline>> {
        let key = (info_name.to_string(), spec.clone());
        if let Some(c) = self.compute.get(&key) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self.build_compute(info_name, spec)?;
        let p = Arc::new(p);
        self.compute.insert(
            key,
            Cached {
                pipeline: p.clone(),
                built_from,
            },
        );
        Ok(p)
    }

    /// Number of pipelines created (graphics + compute).
    pub fn pipeline_count(&self) -> usize {
        self.graphics.len() + self.compute.len()
    }

    /// Waits for the device to be idle, recompiles every module the library holds (the compiler's cache skips
    /// unchanged sources; a module is replaced only when its SPIR-V changed), then rebuilds exactly the pipelines
    /// whose modules changed. A failed compile or pipeline creation keeps the previous pipeline and is reported
    /// with its diagnostics.
    pub fn reload(&mut self) -> VkResult<ReloadReport> {
        let start = Instant::now();
        self.ctx.wait_idle()?;
        let mut report = ReloadReport::default();
        let mut failed: HashMap<ModuleKey, String> = HashMap::new();

        let keys: Vec<ModuleKey> = self.modules.keys().cloned().collect();
        for key in keys {
            let result = self
                .resolve(&key.0)
                .map_err(|e| e.to_string())
                .and_then(|info| self.compile(&info, key.1));
            let spirv = match result {
                Ok(s) => s,
                Err(d) => {
                    report
                        .modules_failed
                        .push((key.0.clone(), key.1, d.clone()));
                    failed.insert(key, d);
                    continue;
                }
            };
            let hash = spirv_hash(&spirv);
            if self.modules.get(&key).is_some_and(|e| e.hash == hash) {
                continue;
            }
            // Only changed SPIR-V is reflected: unchanged modules passed the same check when they were created.
            let checked = self
                .resolve(&key.0)
                .map_err(|e| e.to_string())
                .and_then(|info| self.check(&info, key.1, &spirv));
            if let Err(d) = checked {
                report
                    .modules_failed
                    .push((key.0.clone(), key.1, d.clone()));
                failed.insert(key, d);
                continue;
            }
            match ShaderModule::new(&self.ctx, &spirv) {
                Ok(m) => {
                    report.modules_changed.push(key.clone());
                    self.modules.insert(key, ModuleEntry::new(m, &spirv));
                }
                Err(e) => {
                    report
                        .modules_failed
                        .push((key.0.clone(), key.1, e.to_string()));
                    failed.insert(key, e.to_string());
                }
            }
        }

        let gkeys: Vec<GraphicsKey> = self.graphics.keys().cloned().collect();
        for key in gkeys {
            let built_from = self.graphics[&key].built_from.clone();
            let outcome = match decide(&self.modules, &failed, &key.info, &built_from) {
                Some(o) => o,
                None => match self.build_graphics(&key) {
                    Ok((p, built_from)) => {
                        self.graphics.insert(
                            key.clone(),
                            Cached {
                                pipeline: Arc::new(p),
                                built_from,
                            },
                        );
                        PipelineOutcome::Rebuilt
                    }
                    Err(e) => PipelineOutcome::KeptPrevious {
                        diagnostics: e.to_string(),
                    },
                },
            };
            report.pipelines.push((key.info.clone(), outcome));
        }
        let ckeys: Vec<(String, SpecValues)> = self.compute.keys().cloned().collect();
        for key in ckeys {
            let built_from = self.compute[&key].built_from.clone();
            let outcome = match decide(&self.modules, &failed, &key.0, &built_from) {
                Some(o) => o,
                None => match self.build_compute(&key.0, &key.1) {
                    Ok((p, built_from)) => {
                        self.compute.insert(
                            key.clone(),
                            Cached {
                                pipeline: Arc::new(p),
                                built_from,
                            },
                        );
                        PipelineOutcome::Rebuilt
                    }
                    Err(e) => PipelineOutcome::KeptPrevious {
                        diagnostics: e.to_string(),
                    },
                },
            };
            report.pipelines.push((key.0.clone(), outcome));
        }
        report.pipelines.sort_by(|a, b| a.0.cmp(&b.0));
        report.duration = start.elapsed();
        Ok(report)
    }

    /// Starts watching the shader root (recursively); [`Self::poll_reload`] then reloads after changes settle.
    pub fn watch(&mut self, debounce: Duration) -> VkResult<()> {
        self.watcher = Some(ShaderWatcher::new(self.loader.root(), debounce)?);
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

/// What reload does with a pipeline of `info` built from `built_from`: keep it (a module failed), leave it (all
/// modules are still the ones it was built from), or `None`: rebuild.
fn decide(
    modules: &BTreeMap<ModuleKey, ModuleEntry>,
    failed: &HashMap<ModuleKey, String>,
    info: &str,
    built_from: &[(Stage, u64)],
) -> Option<PipelineOutcome> {
    let diags: Vec<&str> = built_from
        .iter()
        .filter_map(|(s, _)| failed.get(&(info.to_string(), *s)).map(String::as_str))
        .collect();
    if !diags.is_empty() {
        return Some(PipelineOutcome::KeptPrevious {
            diagnostics: diags.join("\n"),
        });
    }
    let current = built_from.iter().all(|(s, id)| {
        modules
            .get(&(info.to_string(), *s))
            .is_some_and(|e| e.module.id() == *id)
    });
    current.then_some(PipelineOutcome::Unchanged)
}

impl Drop for ShaderLibrary {
    fn drop(&mut self) {
        // Pipelines may still be referenced by submitted work; let it finish before they are destroyed.
        let _ = self.ctx.wait_idle();
    }
}

fn render_diagnostics(d: &[shader_info::Diagnostic]) -> String {
    d.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
