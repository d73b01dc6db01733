//! The flow, in one place: declaration → resolved → **validated** → variant → generated → compiled → checked.
//!
//! The static pass, the Vulkan library (and its hot reload), the command line and the cross-language targets all
//! run these steps through a [`Flow`], so each step is written once and nothing downstream can skip validation:
//! generation takes a [`ValidatedInfo`], which only validation produces.
//!
//! ```no_run
//! use shader_info_gpu::compiler::{Compiler, Profile};
//! use shader_info_gpu::flow::Flow;
//! use shader_info::{DirLoader, Registry, Stage};
//! let compiler = Compiler::new("shaders/glsl").unwrap();
//! let loader = DirLoader::new("shaders/glsl");
//! let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
//! let info = flow.validated("gpu_shader_text").unwrap();
//! let module = flow.compile(&info, Stage::Fragment).unwrap();
//! println!("{} words, {} bindings", module.module.spirv.len(), module.reflection.descriptors.len());
//! ```

use crate::compiler::{CompileError, CompiledModule, Compiler, Profile};
use crate::disk_cache::{DiskCache, Kind, TOOL_VERSIONS, key_of};
use crate::reflect::{ModuleReflection, cross_check, reflect};
use rayon::prelude::*;
use shader_info::{
    BuiltinBits, Code, DEFAULT_BRANCH_LIMIT, Diagnostic, Enumeration, Flavor, GenerateOptions,
    GeneratedStage, PipelinePlan, Registry, SourceLoader, Stage, ValidateOptions, ValidatedInfo,
    VariantSet, generate,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Instant;

/// Anything that turns a generated stage into SPIR-V: the runtime [`Compiler`] (shaderc, include-aware cache), or
/// an independent compiler for cross-checks.
pub trait StageCompiler: Sync {
    /// Compiles one generated stage.
    fn compile_stage(
        &self,
        stage: &GeneratedStage,
        profile: Profile,
    ) -> Result<Arc<CompiledModule>, CompileError>;

    /// Seconds spent inside the compiler proper so far (for the pass's phase times); 0 when not measured.
    fn shaderc_seconds(&self) -> f64 {
        0.0
    }

    /// Seconds threads spent waiting for another thread's compile of the same unit so far; 0 when not measured.
    fn wait_seconds(&self) -> f64 {
        0.0
    }

    /// The persistent cache the flow keeps reflections and translations in, beside the compiler's modules.
    fn disk_cache(&self) -> Option<&DiskCache> {
        None
    }

    /// Readies the compiler for compiling in `profile` (see [`Compiler::warm_up`]); the default does nothing.
    fn warm_up(&self, _profile: Profile) {}

    /// Whether the first compile in `profile` would wait for [`StageCompiler::warm_up`]'s work (the default: no).
    fn cold(&self, _profile: Profile) -> bool {
        false
    }

    /// A hash of what decides this compiler's output besides the text it is given, and the root its includes
    /// resolve under: what the static pass's record is keyed by and checks its includes against. `None` (the
    /// default): passes over this compiler are not recorded.
    fn identity(&self) -> Option<(u128, &std::path::Path)> {
        None
    }
}

impl StageCompiler for Compiler {
    fn compile_stage(
        &self,
        stage: &GeneratedStage,
        profile: Profile,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        self.compile_generated(stage, profile)
    }

    fn shaderc_seconds(&self) -> f64 {
        self.stats().compile_time.as_secs_f64()
    }

    fn wait_seconds(&self) -> f64 {
        self.stats().waited.as_secs_f64()
    }

    fn disk_cache(&self) -> Option<&DiskCache> {
        Compiler::disk_cache(self).map(|d| &**d)
    }

    fn warm_up(&self, profile: Profile) {
        Compiler::warm_up(self, profile)
    }

    fn cold(&self, profile: Profile) -> bool {
        !Compiler::tables_built(profile)
    }

    fn identity(&self) -> Option<(u128, &std::path::Path)> {
        let key = key_of(&[
            &self.fingerprint().to_le_bytes(),
            self.include_search().key().as_bytes(),
            self.root().as_os_str().as_encoded_bytes(),
        ]);
        Some((key, self.root()))
    }
}

/// A module that went through the whole flow: generated, compiled, reflected and cross-checked against its
/// declaration.
#[derive(Clone, Debug)]
pub struct CheckedModule {
    /// What it is fetched by: the info name, or `name#v<index>` for a variant.
    pub key: String,
    pub stage: Stage,
    pub generated: GeneratedStage,
    pub module: Arc<CompiledModule>,
    pub reflection: Arc<ModuleReflection>,
    /// [`spirv_key`] of the module's words, hashed once for the check and whoever counts identical modules.
    pub spirv_key: u128,
}

/// The memo of a step after the flow: one cell per content key and result type.
type Memo = Mutex<HashMap<(std::any::TypeId, u128), Arc<dyn std::any::Any + Send + Sync>>>;

/// What a flow remembers, keyed by content (a hash of the SPIR-V words, a step's content key), so it stays true
/// across reloads and can outlive one flow.
#[derive(Default)]
pub struct FlowMemos {
    /// Reflection of each module as reflection reads it ([`crate::reflect::reflection_key`]): variants that compile
    /// to the same code, debug information aside, are reflected once.
    reflections: RwLock<HashMap<u128, Arc<ModuleReflection>>>,
    /// Results of the steps after the flow, by content key ([`Flow::memo`]): the cross pass keeps its verdicts
    /// here, so variants whose modules are the same code with the same binding map are translated and checked
    /// once. Each step stores its own type; the flow knows none of them.
    memo: Memo,
    /// Time spent in each phase, summed over every thread (see [`Flow::phases`]).
    clock: PhaseClock,
}

/// One variant as the static pass expands it: validated, with its builtins found and each stage as the builtin
/// scan generated it (`None` where a stage must be generated again), in
/// [`shader_info::ShaderCreateInfo::stages`] order; or its diagnostics.
pub type Expansion = Result<(ValidatedInfo, Vec<Option<GeneratedStage>>), Vec<Diagnostic>>;

/// The steps of the flow over one registry, one source tree and one compiler.
pub struct Flow<'a> {
    pub registry: &'a Registry,
    pub loader: &'a dyn SourceLoader,
    pub compiler: &'a dyn StageCompiler,
    pub profile: Profile,
    /// Most static branches an info may have (2^N permutations are enumerated).
    pub branch_limit: u32,
    /// Reflections, the memo of later steps and the phase clock: a flow's own, or shared by the flows a library
    /// makes call after call ([`Flow::sharing`]), so nothing is reflected or translated twice in its life.
    memos: Arc<FlowMemos>,
    /// Each module's reflection checked against a declaration, by reflection key, declaration
    /// ([`ValidatedInfo::code_id`]: variants that differ only in branch values share it) and stage. The flow's own,
    /// as the declarations are its registry's. The mesh's 1,616 jobs (two declarations) share their checks wherever
    /// their modules reflect alike (the library's 931 debug units are 122 modules to reflection); each check took
    /// 12 µs of 16 busy threads, most of it the layouts of its blocks (H200 machine).
    checks: RwLock<HashMap<(u128, u64, Stage), Vec<Diagnostic>>>,
    /// Builtins must be declared: a builtin with an effect that a compiled module uses and the info does not
    /// declare is an error (`reflection-mismatch`), as before builtins were found in the code. Off by default:
    /// see [`Flow::validated`].
    pub strict_builtins: bool,
    /// The clip-space convention the sources are written in, which the translations keep or convert
    /// ([`ClipSpace`]).
    pub clip_space: ClipSpace,
}

/// The clip-space convention of the stage sources, as the translations treat it.
///
/// ```
/// assert_eq!(shader_info_gpu::flow::ClipSpace::default(), shader_info_gpu::flow::ClipSpace::Vulkan);
/// ```
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum ClipSpace {
    /// Written for Vulkan: y = −1 is the top of the viewport, depth 0..1. The SPIR-V the Vulkan backend runs is
    /// the source as written; the WGSL, MSL and HLSL translations negate the vertex output's y, so their
    /// targets (whose y = +1 is the top) draw the same picture.
    #[default]
    Vulkan,
    /// Written for a y-up target (wgpu, WebGPU, Metal, Direct3D): the translations keep the position as written.
    /// The Vulkan backend still runs the source as written, so there the picture is upside down.
    Source,
}

/// Where the flow's time went, summed over every thread that ran it, in seconds.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct PhaseTimes {
    /// GLSL generation (both flavors), stage-source loading included.
    pub generate: f64,
    /// The compiler's `compile_stage`: cache lookup and, on a miss, shaderc with its include reads.
    pub compile: f64,
    /// SPIR-V reflection (once per distinct module).
    pub reflect: f64,
    /// Reflection against the declaration.
    pub cross_check: f64,
}

#[derive(Default)]
struct PhaseClock {
    generate: AtomicU64,
    compile: AtomicU64,
    reflect: AtomicU64,
    cross_check: AtomicU64,
}

/// Runs `f`, adding its time to `counter`.
fn timed<T>(counter: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    counter.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

impl<'a> Flow<'a> {
    /// A flow with the default branch limit.
    pub fn new(
        registry: &'a Registry,
        loader: &'a dyn SourceLoader,
        compiler: &'a dyn StageCompiler,
        profile: Profile,
    ) -> Flow<'a> {
        Flow {
            registry,
            loader,
            compiler,
            profile,
            branch_limit: DEFAULT_BRANCH_LIMIT,
            memos: Arc::default(),
            checks: RwLock::default(),
            strict_builtins: false,
            clip_space: ClipSpace::Vulkan,
        }
    }

    /// A flow whose translations treat the sources as written in `clip_space`.
    pub fn with_clip_space(mut self, clip_space: ClipSpace) -> Flow<'a> {
        self.clip_space = clip_space;
        self
    }

    /// This flow remembering into `memos`, shared with other flows over the same registry, sources and compiler
    /// (a library's flows, call after call).
    pub fn sharing(mut self, memos: Arc<FlowMemos>) -> Flow<'a> {
        self.memos = memos;
        self
    }

    /// A flow in which every builtin with an effect must be declared ([`Flow::strict_builtins`]).
    pub fn strict_builtins(mut self) -> Flow<'a> {
        self.strict_builtins = true;
        self
    }

    /// `info` with the builtins its code uses added to those it declares, as Blender does with the builtins it
    /// finds in the sources: the plan then enables the device features they need. Each stage's generated text is
    /// read (no compiling: a library checks a plan against the device before it compiles anything), with comments
    /// and the blocks of `#if`/`#ifdef` that the text's own defines switch off left out; after compiling, the
    /// reflection check still refuses a builtin the module uses that is neither declared nor found.
    ///
    /// Found this way are only builtins that change nothing in the generated text: clip distances, the primitive id
    /// read by the fragment stage, layer and viewport index written by a geometry stage. Those that need an
    /// `#extension` in some stage (`LAYER` or `VIEWPORT_INDEX` written before the geometry stage,
    /// `BARYCENTRIC_COORD`, `SUBGROUP`) must be declared up front, because the text compiled is generated from the
    /// declaration; using one undeclared stays an error. Nothing is added with [`Flow::strict_builtins`]: a
    /// declaration is then an assertion the check enforces.
    pub fn with_found_builtins(&self, info: ValidatedInfo) -> ValidatedInfo {
        self.with_found_builtins_generated(info).0
    }

    /// [`Flow::with_found_builtins`], with the stages it generated to read them, each where the builtins it added
    /// leave its text as it was (the static pass compiles these instead of generating every module again).
    pub(crate) fn with_found_builtins_generated(
        &self,
        info: ValidatedInfo,
    ) -> (ValidatedInfo, Vec<Option<GeneratedStage>>) {
        if self.strict_builtins {
            return (info, Vec::new());
        }
        let stages = info.stages();
        let mut generated_stages = Vec::with_capacity(stages.len());
        let candidates = [
            BuiltinBits::CLIP_DISTANCES,
            BuiltinBits::LAYER,
            BuiltinBits::VIEWPORT_INDEX,
            BuiltinBits::PRIMITIVE_ID,
        ];
        let mut add = BuiltinBits::NONE;
        for &stage in &stages {
            let Ok(generated) = self.generate(&info, stage) else {
                generated_stages.push(None);
                continue;
            };
            // Only a name the text spells can be found in its active part: most stages spell none of them, and
            // are not copied and scanned once per candidate.
            let spelled = |bit: BuiltinBits| {
                bit.glsl_identifiers()
                    .iter()
                    .any(|w| generated.source.contains(w))
            };
            let wanted: Vec<BuiltinBits> = candidates
                .into_iter()
                // Read by a fragment stage the primitive id needs a feature; elsewhere it is the stage's own.
                .filter(|&bit| bit != BuiltinBits::PRIMITIVE_ID || stage == Stage::Fragment)
                .filter(|&bit| {
                    !info.builtins.contains(bit)
                        && stages
                            .iter()
                            .all(|s| bit.glsl_extensions(*s, &stages).is_empty())
                        && spelled(bit)
                })
                .collect();
            let prelude_instance = info.blender_prelude
                && stage == Stage::Vertex
                && !info.builtins.contains(BuiltinBits::INSTANCE_ID)
                && spelled(BuiltinBits::INSTANCE_ID);
            if !wanted.is_empty() || prelude_instance {
                // The Blender prelude's own macros spell builtins (`gpu_Layer` is `gl_Layer`): only the code's uses
                // count.
                let active = active_text(&generated.source);
                let active = match info.blender_prelude {
                    true => shader_info::without_blender_prelude(&active, stage),
                    false => active,
                };
                // The prelude's `gl_InstanceID` reads the base instance (`shaderDrawParameters`, see the plan).
                if prelude_instance
                    && spells_word(
                        &active,
                        &["gl_InstanceID", "gpu_BaseInstance", "gl_BaseInstanceARB"],
                    )
                {
                    add |= BuiltinBits::INSTANCE_ID;
                }
                for bit in wanted {
                    if bit.first_use(&active).is_some() {
                        add |= bit;
                    }
                }
            }
            generated_stages.push(Some(generated));
        }
        if add == BuiltinBits::NONE {
            return (info, generated_stages);
        }
        let found = info.with_found_builtins(add);
        // Builtins change the text only through the extensions they enable.
        for (stage, g) in stages.iter().zip(&mut generated_stages) {
            if found.builtins.glsl_extensions(*stage, &stages)
                != info.builtins.glsl_extensions(*stage, &stages)
            {
                *g = None;
            }
        }
        (found, generated_stages)
    }

    /// Resolves and validates `name`. `require_complete`: check it has everything compiling needs (stage sources,
    /// a local size, …), as for any info about to be compiled; building blocks are checked without it.
    pub fn validate(
        &self,
        name: &str,
        require_complete: bool,
    ) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        let mut resolved = self.registry.resolve(name)?;
        // An array sized by a macro of a shared header (Blender's `drw_view_buf[DRW_VIEW_LEN]`, the header holding
        // `#define DRW_VIEW_LEN 1`) takes the header's number, as the compiler will.
        if resolved.has_named_sizes() && !resolved.typedef_sources.is_empty() {
            let headers = header_sizes(self.loader, &resolved);
            resolved = resolved.with_header_sizes(&headers);
        }
        // Buffers may take a struct a shared header defines (Blender's `typedef_source("draw_shader_shared.hh")`
        // and `storage_buf(.., "ObjectMatrices", ..)`): the names come from the headers as they are now; a header
        // that cannot be read is generation's error to report.
        let typedef_types: Vec<String> = resolved
            .typedef_sources
            .iter()
            .filter_map(|t| self.loader.load(&t.value).ok())
            .flat_map(|text| shader_info::typedef_struct_names(&text))
            .collect();
        ValidatedInfo::new(
            resolved,
            &ValidateOptions {
                registry: self.registry,
                extra_type_names: &typedef_types,
                require_complete,
            },
        )
    }

    /// Resolves and validates `name` for compiling it, with the builtins its code uses found
    /// ([`Flow::with_found_builtins`]).
    pub fn validated(&self, name: &str) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        self.validate(name, true)
            .map(|info| self.with_found_builtins(info))
    }

    /// Resolves and validates a key: an info name, or `name#v<index>` for one of its unique variants.
    pub fn validated_key(&self, key: &str) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        match parse_variant_key(key) {
            None => self.validated(key),
            Some((base, index)) => {
                let info = self.validated(base)?;
                let set = self.variants(&info)?;
                info.variant(&set, index, self.registry)
                    .map(|v| self.with_found_builtins(v))
            }
        }
    }

    /// The unique variants of an info with static branches (its specialize function run on every permutation), the
    /// permutations specialised on the pool's threads. On one thread, the mesh ubershader's 8,192 kept the other
    /// fifteen waiting: a pass whose every compile was a cache hit took 13.5-14.5 ms on 16 cores, and 10.2-10.7 ms
    /// with the chunks on the pool (H200 machine).
    pub fn variants(&self, info: &ValidatedInfo) -> Result<VariantSet, Vec<Diagnostic>> {
        let e = Enumeration::new(info, self.branch_limit)?;
        let chunks = (0..e.chunks())
            .into_par_iter()
            .map(|i| e.chunk(i))
            .collect();
        e.finish(chunks)
    }

    /// Every unique variant of `info`, validated; `None` for an info without branches.
    #[allow(clippy::type_complexity)]
    pub fn expand(
        &self,
        info: &ValidatedInfo,
    ) -> Result<Option<(VariantSet, Vec<Result<ValidatedInfo, Vec<Diagnostic>>>)>, Vec<Diagnostic>>
    {
        Ok(self.expand_generated(info)?.map(|(set, variants)| {
            let variants = variants.into_iter().map(|r| r.map(|(v, _)| v)).collect();
            (set, variants)
        }))
    }

    /// Every unique variant of `info` as the static pass expands it ([`Expansion`]: validated, with the text of
    /// its stages); `None` for an info without branches. Each is what validating and generating it alone gives.
    pub fn expand_generated(
        &self,
        info: &ValidatedInfo,
    ) -> Result<Option<(VariantSet, Vec<Expansion>)>, Vec<Diagnostic>> {
        if info.branches.is_empty() {
            return Ok(None);
        }
        let set = self.variants(info)?;
        let variants = self.expand_set(info, &set);
        Ok(Some((set, variants)))
    }

    /// Every variant of `set` (the variants of `info`) in index order, each as [`Flow::expand_group`] gives it;
    /// the groups of branch twins and the twins of a group are expanded in parallel.
    pub(crate) fn expand_set(&self, info: &ValidatedInfo, set: &VariantSet) -> Vec<Expansion> {
        self.expand_set_with(info, set, |_, expansion| expansion)
    }

    /// [`Flow::expand_set`], each variant passed through `each` (with its index) on the thread that expanded it.
    /// The results are put in index order one move each: sorting the expansions (1.2 KB each) took 0.6 ms on one
    /// thread for the mesh's 808 variants, and making jobs of them serially 0.4 ms more, while the other threads
    /// waited (2-core VM).
    pub(crate) fn expand_set_with<T: Send>(
        &self,
        info: &ValidatedInfo,
        set: &VariantSet,
        each: impl Fn(usize, Expansion) -> T + Sync,
    ) -> Vec<T> {
        let done: Vec<(usize, T)> = set
            .branch_twins(info)
            .par_iter()
            .flat_map(|group| self.expand_group(info, set, group, &each))
            .collect();
        let mut in_order: Vec<Option<T>> = std::iter::repeat_with(|| None)
            .take(set.variants.len())
            .collect();
        for (i, t) in done {
            if let Some(slot) = in_order.get_mut(i) {
                *slot = Some(t);
            }
        }
        // The groups partition the variants, so every slot is filled; a slot left empty is expanded alone here
        // rather than dropped, which would give every later variant its neighbour's index.
        in_order
            .into_iter()
            .enumerate()
            .map(|(i, t)| t.unwrap_or_else(|| each(i, self.expand_variant(info, set, i))))
            .collect()
    }

    /// The variants of `group` (indices into `set`, the variants of `info`, whose infos differ only in branch values
    /// and render state: [`VariantSet::branch_twins`]), each as [`Flow::expand_variant`] gives it, passed through
    /// `each` with its index. The first is validated and generated; the others, on the pool's threads, are derived
    /// from it ([`ValidatedInfo::branch_twin`]) with its text, their branch section written again
    /// ([`GeneratedStage::with_branches`]). The mesh ubershader's 808 variants are two such groups: validating and
    /// generating each was most of the pass's own work.
    pub(crate) fn expand_group<T: Send>(
        &self,
        info: &ValidatedInfo,
        set: &VariantSet,
        group: &[usize],
        each: &(impl Fn(usize, Expansion) -> T + Sync),
    ) -> Vec<(usize, T)> {
        let Some((&first, twins)) = group.split_first() else {
            return Vec::new();
        };
        let alone = |i: usize| (i, each(i, self.expand_variant(info, set, i)));
        let lead = match info.variant(set, first, self.registry) {
            Ok(lead) => lead,
            // Each twin fails or passes on its own, validated in full (its errors name it).
            Err(d) => {
                let mut out = vec![(first, each(first, Err(d)))];
                out.par_extend(twins.par_iter().map(|&i| alone(i)));
                return out;
            }
        };
        // The twins are derived from the lead with the builtins found in its text: the text they share but for
        // branch values, which spell no builtin.
        let (found, generated) = self.with_found_builtins_generated(lead);
        let mut out: Vec<(usize, T)> = twins
            .par_iter()
            .map(|&i| match info.branch_twin(set, i, &found) {
                Some(Ok(twin)) => {
                    let stages = generated
                        .iter()
                        .map(|g| g.as_ref().and_then(|g| g.with_branches(&found, &twin)))
                        .collect();
                    (i, each(i, Ok((twin, stages))))
                }
                Some(Err(d)) => (i, each(i, Err(d))),
                None => alone(i),
            })
            .collect();
        out.push((first, each(first, Ok((found, generated)))));
        out
    }

    /// Variant `index` of `set` (the variants of `info`), validated, with its builtins found and each stage as the
    /// builtin scan generated it (`None` where a stage must be generated again), in [`ValidatedInfo::stages`]
    /// order.
    pub(crate) fn expand_variant(
        &self,
        info: &ValidatedInfo,
        set: &VariantSet,
        index: usize,
    ) -> Expansion {
        info.variant(set, index, self.registry)
            .map(|v| self.with_found_builtins_generated(v))
    }

    /// Generates the GLSL of one stage.
    pub fn generate(
        &self,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<GeneratedStage, Vec<Diagnostic>> {
        let opts = GenerateOptions::new(self.loader, self.registry);
        timed(&self.memos.clock.generate, || generate(info, stage, &opts))
            .map_err(|d| with_variant(d, info))
    }

    /// The cell of `key` for results of type `T`, made once per flow and shared by every thread that asks: a
    /// second caller waits for the first one's result (`OnceLock::get_or_init`).
    pub(crate) fn memo<T: Send + Sync + 'static>(&self, key: u128) -> Arc<OnceLock<T>> {
        let mut memo = self.memos.memo.lock().unwrap_or_else(|e| e.into_inner());
        let cell = memo
            .entry((std::any::TypeId::of::<T>(), key))
            .or_insert_with(|| Arc::new(OnceLock::<T>::new()))
            .clone();
        match cell.downcast::<OnceLock<T>>() {
            Ok(cell) => cell,
            // The entry was made for this very type id.
            Err(_) => unreachable!("a memo cell of another type under its type id"),
        }
    }

    /// Time spent so far in each phase, summed over threads.
    pub fn phases(&self) -> PhaseTimes {
        let s = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64 * 1e-9;
        PhaseTimes {
            generate: s(&self.memos.clock.generate),
            compile: s(&self.memos.clock.compile),
            reflect: s(&self.memos.clock.reflect),
            cross_check: s(&self.memos.clock.cross_check),
        }
    }

    /// The portable flavor of one stage (see [`shader_info::Flavor::Portable`]), compiled for translation
    /// ([`Profile::Translation`]): the input of the cross-language targets.
    pub fn portable(
        &self,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<(GeneratedStage, Arc<CompiledModule>), Vec<Diagnostic>> {
        let opts = GenerateOptions::new(self.loader, self.registry).flavor(Flavor::Portable);
        let generated = timed(&self.memos.clock.generate, || generate(info, stage, &opts))
            .map_err(|d| with_variant(d, info))?;
        let module = timed(&self.memos.clock.compile, || {
            self.compiler
                .compile_stage(&generated, Profile::Translation)
        })
        .map_err(|e| {
            let diags = e
                .diagnostics
                .into_iter()
                .map(|d| compile_error_hints(d.for_info(&info.name, Some(stage)), info, stage))
                .collect();
            with_variant(diags, info)
        })?;
        Ok((generated, module))
    }

    /// Generates and compiles one stage (the compiler's cache makes this cheap when nothing changed). Not yet
    /// checked: see [`Flow::check`], or [`Flow::compile`] for both.
    pub fn compile_unchecked(
        &self,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<(GeneratedStage, Arc<CompiledModule>), Vec<Diagnostic>> {
        let generated = self.generate(info, stage)?;
        self.compile_unchecked_from(info, generated)
    }

    /// [`Self::compile_unchecked`] from text [`Self::generate`] already made for `info`.
    fn compile_unchecked_from(
        &self,
        info: &ValidatedInfo,
        generated: GeneratedStage,
    ) -> Result<(GeneratedStage, Arc<CompiledModule>), Vec<Diagnostic>> {
        let stage = generated.stage;
        let module = timed(&self.memos.clock.compile, || {
            self.compiler.compile_stage(&generated, self.profile)
        })
        .map_err(|e| {
            let diags = e
                .diagnostics
                .into_iter()
                .map(|d| compile_error_hints(d.for_info(&info.name, Some(stage)), info, stage))
                .collect();
            with_variant(diags, info)
        })?;
        Ok((generated, module))
    }

    /// Reflects compiled SPIR-V (once per distinct module) and cross-checks it against the declaration of the stage
    /// of `info` it was `generated` from: a binding written by hand in the source, a block whose offsets differ
    /// from the declared layout, or a builtin with an effect the info does not declare never reaches a pipeline
    /// that does not describe it.
    pub fn check(
        &self,
        info: &ValidatedInfo,
        generated: &GeneratedStage,
        spirv: &[u32],
    ) -> Result<Arc<ModuleReflection>, Vec<Diagnostic>> {
        self.check_keyed(
            info,
            generated,
            spirv,
            crate::reflect::reflection_key(spirv),
        )
    }

    /// [`Flow::check`] of a compiled module, whose reflection key it hashed once.
    pub(crate) fn check_module(
        &self,
        info: &ValidatedInfo,
        generated: &GeneratedStage,
        module: &CompiledModule,
    ) -> Result<Arc<ModuleReflection>, Vec<Diagnostic>> {
        self.check_keyed(info, generated, &module.spirv, module.reflection_key())
    }

    /// [`Flow::check`] of `spirv`, whose [`crate::reflect::reflection_key`] is `key`: modules that differ only in
    /// their debug instructions (a debug module carries its source text) share one reflection.
    fn check_keyed(
        &self,
        info: &ValidatedInfo,
        generated: &GeneratedStage,
        spirv: &[u32],
        key: u128,
    ) -> Result<Arc<ModuleReflection>, Vec<Diagnostic>> {
        let stage = generated.stage;
        let cached = self
            .memos
            .reflections
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        let reflection = match cached {
            Some(r) => r,
            None => {
                let r = Arc::new(timed(&self.memos.clock.reflect, || self.reflect(spirv, key)).map_err(|e| {
                    with_variant(
                        vec![
                            Diagnostic::error(Code::Reflection, &info.name, e.to_string())
                                .stage(stage)
                                .hint("the compiler produced SPIR-V the reflection cannot read: report it as a bug"),
                        ],
                        info,
                    )
                })?);
                self.memos
                    .reflections
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, r.clone());
                r
            }
        };
        let mismatches = timed(&self.memos.clock.cross_check, || {
            let mut m = self.cross_checked(&reflection, key, info, stage);
            m.extend(crate::reflect::undeclared_builtins(
                &reflection,
                info,
                generated,
            ));
            m
        });
        if mismatches.is_empty() {
            Ok(reflection)
        } else {
            Err(with_variant(mismatches, info))
        }
    }

    /// [`cross_check`] of `reflection` (whose key is `key`) against `info`'s declaration of `stage`, once per
    /// declaration (the flow's `checks`): it reads neither branch values nor render state.
    fn cross_checked(
        &self,
        reflection: &ModuleReflection,
        key: u128,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Vec<Diagnostic> {
        let at = (key, info.code_id(), stage);
        if let Some(found) = self
            .checks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&at)
        {
            return found.clone();
        }
        let checked = cross_check(reflection, info, stage, self.registry);
        self.checks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(at, checked.clone());
        checked
    }

    /// Reflects SPIR-V whose [`crate::reflect::reflection_key`] is `key`, through the disk cache when there is one.
    fn reflect(
        &self,
        spirv: &[u32],
        key: u128,
    ) -> Result<ModuleReflection, crate::reflect::ReflectError> {
        let Some(disk) = self.compiler.disk_cache() else {
            return reflect(spirv);
        };
        let disk_key = key_of(&[
            b"reflection-4",
            TOOL_VERSIONS.as_bytes(),
            &key.to_le_bytes(),
        ]);
        if let Some(r) = disk
            .get(Kind::Reflection, disk_key)
            .and_then(|d| serde_json::from_slice(&d).ok())
        {
            return Ok(r);
        }
        let r = reflect(spirv)?;
        if let Ok(json) = serde_json::to_vec(&r) {
            disk.put(Kind::Reflection, disk_key, &json);
        }
        Ok(r)
    }

    /// The whole flow for one stage: generate, compile, reflect, cross-check.
    pub fn compile(
        &self,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<CheckedModule, Vec<Diagnostic>> {
        let generated = self.generate(info, stage)?;
        self.compile_generated(info, generated)
    }

    /// [`Self::compile`] from text [`Self::generate`] already made for `info` (the static pass generates every
    /// module first, to run the first job of each compile unit before its duplicates).
    pub fn compile_generated(
        &self,
        info: &ValidatedInfo,
        generated: GeneratedStage,
    ) -> Result<CheckedModule, Vec<Diagnostic>> {
        let stage = generated.stage;
        let (generated, module) = self.compile_unchecked_from(info, generated)?;
        let reflection = self.check_module(info, &generated, &module)?;
        let spirv_key = module.spirv_key();
        Ok(CheckedModule {
            key: info.key(),
            stage,
            generated,
            module,
            reflection,
            spirv_key,
        })
    }

    /// The pipeline plan of a validated info.
    pub fn plan(&self, info: &ValidatedInfo) -> PipelinePlan {
        PipelinePlan::new(info, self.registry)
    }
}

/// `name#v<index>` → `(name, index)`.
pub fn parse_variant_key(key: &str) -> Option<(&str, usize)> {
    let (base, index) = key.rsplit_once("#v")?;
    Some((base, index.parse().ok()?))
}

/// A compiler error with what the declaration knows about it: how to declare a builtin the code uses
/// ([`undeclared_builtin_hint`]), or that a name the source declares again is the info's own
/// ([`redeclared_item_hint`]).
fn compile_error_hints(d: Diagnostic, info: &ValidatedInfo, stage: Stage) -> Diagnostic {
    redeclared_item_hint(undeclared_builtin_hint(d, info, stage), info)
}

/// A `'frag_color' : redefinition` of a name the info declares (a source ported with its own
/// `layout(location = 0) out vec4 frag_color;`) says which item declares it and to remove the source's line.
fn redeclared_item_hint(d: Diagnostic, info: &ValidatedInfo) -> Diagnostic {
    if d.hint.is_some() || !d.message.contains("redefinition") {
        return d;
    }
    let Some(name) = d.message.split('\'').nth(1).map(|n| n.trim().to_string()) else {
        return d;
    };
    let name = name.as_str();
    let base = |n: &str| n.split('[').next().unwrap_or(n).trim().to_string();
    let declared: Option<String> = info
        .fragment_outputs
        .iter()
        .find(|o| o.value.name == name)
        .map(|o| format!("fragment_out `{name}` (location {})", o.value.location))
        .or_else(|| {
            info.vertex_inputs
                .iter()
                .find(|v| v.value.name == name)
                .map(|v| {
                    let item = v.value.rate.item();
                    format!("{item} `{name}` (location {})", v.value.location)
                })
        })
        .or_else(|| {
            info.resources
                .iter()
                .find(|r| base(&r.value.name) == name)
                .map(|r| format!("{} `{name}`", r.value.kind.word()))
        })
        .or_else(|| {
            info.push_constants
                .iter()
                .any(|p| p.value.name == name)
                .then(|| format!("push_constant `{name}`"))
        })
        .or_else(|| {
            info.specialization_constants
                .iter()
                .any(|s| s.value.name == name)
                .then(|| format!("specialization_constant `{name}`"))
        })
        .or_else(|| {
            info.shared_variables
                .iter()
                .any(|v| base(&v.value.name) == name)
                .then(|| format!("shared_variable `{name}`"))
        });
    match declared {
        Some(item) => d.hint(format!(
            "`{name}` is the info's {item}: the generated stage declares it, so remove the source's own \
             declaration and use the name"
        )),
        None => d,
    }
}

/// A compiler error about a builtin the info does not declare (`'gl_Layer' : undeclared identifier` in a vertex
/// stage) says how to declare it, when declaring it would give `stage` the extension it lacks.
fn undeclared_builtin_hint(d: Diagnostic, info: &ValidatedInfo, stage: Stage) -> Diagnostic {
    let stages = info.stages();
    let named = BuiltinBits::NAMED
        .iter()
        .filter(|(bit, _)| {
            !info.builtins.contains(*bit) && !bit.glsl_extensions(stage, &stages).is_empty()
        })
        .find_map(|(bit, name)| Some((bit.first_use(&d.message)?.1, name)));
    match named {
        Some((used, name)) => d.hint(format!(
            "`{used}` is a builtin the info does not declare: declare it with `.builtins(BuiltinBits::{name})`, \
             which writes the extensions the stage needs and enables what the device needs"
        )),
        None => d,
    }
}

/// The numeric macros (`#define NAME 4`, `#  define NAME 64u`) of `info`'s typedef sources and of the headers they
/// `#include` (relative to the including header, then to the root), the first definition of each name outside the
/// conditional blocks the generated text switches off (`#ifndef GPU_SHADER`, `#if !defined(NAME)` of a name the
/// info defines): what a size named by one of them is when the info does not define it.
fn header_sizes(loader: &dyn SourceLoader, info: &shader_info::ResolvedInfo) -> Vec<(String, u32)> {
    // What the generated text defines before the headers, so their conditions read as the compiler reads them.
    let mut before = String::from("#define GPU_SHADER\n#define GPU_VULKAN\n");
    for d in &info.defines {
        before.push_str(&format!("#define {}\n", d.value.macro_name()));
    }
    let skip = before.lines().count();
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo: Vec<String> = info
        .typedef_sources
        .iter()
        .map(|t| t.value.clone())
        .collect();
    todo.reverse();
    // A bounded walk: a header tree of more files than this is not a shared header.
    while let Some(path) = todo.pop().filter(|_| seen.len() < 256) {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Ok(text) = loader.load(&path) else {
            continue;
        };
        let mut includes = Vec::new();
        let active = active_text(&format!("{before}{text}"));
        for line in active.lines().skip(skip) {
            let code = line.split("//").next().unwrap_or("");
            let Some(directive) = code.trim_start().strip_prefix('#') else {
                continue;
            };
            let mut words = directive.split_whitespace();
            match words.next() {
                Some("define") => {
                    if let (Some(name), Some(value), None) =
                        (words.next(), words.next(), words.next())
                        && !name.contains('(')
                        && let Ok(n) = value.trim_end_matches(['u', 'U']).parse::<u32>()
                        && !out.iter().any(|(o, _)| o == name)
                    {
                        out.push((name.to_string(), n));
                    }
                }
                Some("include") => includes.extend(
                    shader_info::include_directive(code)
                        .and_then(|file| shader_info::include_target(loader, &path, file)),
                ),
                _ => {}
            }
        }
        todo.extend(includes.into_iter().rev());
    }
    out
}

/// Whether the code of `text` (outside `//` comments) uses one of `words` as a whole word: the names that read the
/// base instance under the Blender prelude, which `gl_InstanceIndex` before them must not hide.
fn spells_word(text: &str, words: &[&str]) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|code| {
            words.iter().any(|w| {
                code.match_indices(w).any(|(at, _)| {
                    !code[..at].ends_with(ident) && !code[at + w.len()..].starts_with(ident)
                })
            })
        })
}

/// The diagnostics, each naming the variant when `info` is one.
fn with_variant(diags: Vec<Diagnostic>, info: &ValidatedInfo) -> Vec<Diagnostic> {
    match info.variant_label() {
        Some(label) => diags.into_iter().map(|d| d.variant(label)).collect(),
        None => diags,
    }
}

/// A 128-bit hash of SPIR-V words: the identity of a module's code.
pub fn spirv_key(spirv: &[u32]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytemuck::cast_slice(spirv))
}

/// `text` with the lines of conditional blocks its own defines switch off blanked (line numbers kept). Conditions
/// this cannot decide (`#if` expressions beyond `defined(X)`, `!defined(X)` and `0`/`1`) count as on, so a builtin
/// under them is found rather than missed.
///
/// ```
/// let text = "#define A\n#ifdef A\nkeep\n#else\ndrop\n#endif\n#ifndef A\ndrop\n#endif\n#if defined(B) && x\nkeep\n#endif\n";
/// let active = shader_info_gpu::flow::active_text(text);
/// assert!(active.contains("keep") && !active.contains("drop"), "{active}");
/// ```
pub fn active_text(text: &str) -> String {
    // Per open conditional: (this branch is on, a branch was definitely taken, the parent is on).
    let mut stack: Vec<(bool, bool, bool)> = Vec::new();
    let mut defined: std::collections::HashSet<String> = std::collections::HashSet::new();
    let on = |stack: &[(bool, bool, bool)]| stack.last().is_none_or(|(b, _, p)| *b && *p);
    let eval = |cond: &str, defined: &std::collections::HashSet<String>| -> Option<bool> {
        let c = cond.trim();
        if let Some(rest) = c.strip_prefix('!') {
            return eval_defined(rest.trim(), defined).map(|b| !b);
        }
        match c {
            "0" => Some(false),
            "1" => Some(true),
            _ => eval_defined(c, defined),
        }
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        let directive = t.strip_prefix('#').map(str::trim_start);
        let word = directive.map(|d| {
            let w: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            (w.clone(), d[w.len()..].trim().to_string())
        });
        let parent = on(&stack);
        let mut blank = !parent;
        match word.as_ref().map(|(w, r)| (w.as_str(), r.as_str())) {
            Some(("ifdef", name)) => {
                let v = defined.contains(name.split_whitespace().next().unwrap_or(""));
                stack.push((v, v, parent));
                blank = true;
            }
            Some(("ifndef", name)) => {
                let v = !defined.contains(name.split_whitespace().next().unwrap_or(""));
                stack.push((v, v, parent));
                blank = true;
            }
            Some(("if", cond)) => {
                let v = eval(cond, &defined);
                stack.push((v.unwrap_or(true), v == Some(true), parent));
                blank = true;
            }
            Some(("elif", cond)) => {
                if let Some(top) = stack.last_mut() {
                    let v = eval(cond, &defined);
                    top.0 = !top.1 && v.unwrap_or(true);
                    top.1 |= v == Some(true);
                }
                blank = true;
            }
            Some(("else", _)) => {
                if let Some(top) = stack.last_mut() {
                    top.0 = !top.1;
                    top.1 = true;
                }
                blank = true;
            }
            Some(("endif", _)) => {
                stack.pop();
                blank = true;
            }
            Some(("define", rest)) if parent => {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                defined.insert(name);
            }
            Some(("undef", rest)) if parent => {
                defined.remove(rest.split_whitespace().next().unwrap_or(""));
            }
            _ => {}
        }
        if !blank {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// `defined(X)`, `defined X` or `X`-free conditions: `Some` when decidable.
fn eval_defined(cond: &str, defined: &std::collections::HashSet<String>) -> Option<bool> {
    let rest = cond.strip_prefix("defined")?.trim();
    let name = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(rest)
        .trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(defined.contains(name))
}
