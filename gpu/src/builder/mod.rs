//! The static-compilation pass: every info marked `do_static_compilation` is resolved, validated, generated,
//! compiled and cross-checked against its reflection, in parallel; every other info is resolved and validated.
//! The `shader-builder` command line and the `shader_builder` test target both run this.

use crate::compiler::Profile;
use crate::cross::{
    CrossOptions, Target, Verdict, VerdictKind, spec::SpecHandling, translate_module,
};
use crate::flow::{Expansion, Flow, StageCompiler};
use crate::reflect::ModuleReflection;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shader_info::{
    Code, DEFAULT_BRANCH_LIMIT, Diagnostic, GeneratedStage, Registry, ShaderCreateInfo,
    SourceLoader, Stage, SubpassMode, ValidatedInfo, VariantSet,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod record;

/// How to run the pass.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Only infos whose name starts with this.
    pub filter: Option<String>,
    pub profile: Profile,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Where to write `<info>.<stage>.spv`, `.glsl` and `.json` (reflection) per module.
    pub out_dir: Option<PathBuf>,
    /// Most branches an info may have (2^N permutations are enumerated).
    pub branch_limit: u32,
    /// Cross-language targets every module is translated to (and checked), beside its SPIR-V.
    pub cross: CrossOptions,
    /// Build only part `.0` (0-based) of `.1` parts of the modules ([`Shard`]): N runners each build one part,
    /// and their output directories merged equal one full run's.
    pub shard: Option<Shard>,
}

/// Part `index` of `count`: a deterministic split of the pass's modules, balanced by expected cost.
///
/// Every module (a stage of an info or of one of its variants) is weighed by the length of its generated source
/// plus a fixed cost per module, then modules are dealt heaviest first to the lightest part so far (ties by
/// module key), so every runner computes the same split from the same declarations and sources.
///
/// ```
/// let s: shader_info_gpu::builder::Shard = "2/4".parse().unwrap();
/// assert_eq!((s.index, s.count), (1, 4)); // given 1-based, kept 0-based
/// assert!("0/4".parse::<shader_info_gpu::builder::Shard>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N` with 1 ≤ I ≤ N, as CI matrices number their runners.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: write I/N with 1 ≤ I ≤ N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if i == 0 || i > n {
            return Err(bad());
        }
        if n > MAX_SHARDS {
            return Err(format!(
                "`{s}` splits the pass into more than {MAX_SHARDS} parts; most of them would be empty"
            ));
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }
}

/// The most parts a pass is split into: far more than any CI matrix runs (GitHub's takes 256 jobs), and a bound on
/// the work of dealing the jobs (each job scans every part's load).
pub const MAX_SHARDS: usize = 4096;

/// The fixed part of a module's expected cost, in bytes of generated source (shaderc's start-up, reflection,
/// writing).
const MODULE_COST: usize = 4096;

/// The jobs of `shard`, out of all of them: weighed, dealt heaviest first to the lightest part.
fn shard_jobs(jobs: Vec<(Order, Job)>, shard: Shard) -> Vec<(Order, Job)> {
    let mut weighed: Vec<(usize, String, (Order, Job))> = jobs
        .into_par_iter()
        .map(|(order, job)| {
            // A stage that could not be generated weighs its fixed part: its job only reports the error.
            let length = job.generated.as_ref().map_or(0, |g| g.source.len());
            let cost = MODULE_COST + length;
            let key = format!("{}/{}", job.info.key(), job.stage.short_name());
            (cost, key, (order, job))
        })
        .collect();
    weighed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut load = vec![0usize; shard.count.max(1)];
    let mut mine = Vec::new();
    for (cost, _, job) in weighed {
        let lightest = (0..load.len()).min_by_key(|&i| (load[i], i)).unwrap_or(0);
        load[lightest] += cost;
        if lightest == shard.index {
            mine.push(job);
        }
    }
    mine
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            filter: None,
            profile: Profile::Debug,
            jobs: 1,
            out_dir: None,
            branch_limit: DEFAULT_BRANCH_LIMIT,
            cross: CrossOptions::default(),
            shard: None,
        }
    }
}

/// One failure: which info, which stage or variant (none for declaration problems), and the diagnostics.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub info: String,
    pub stage: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Failure {
    fn new(info: &str, stage: Option<String>, diagnostics: Vec<Diagnostic>) -> Failure {
        Failure {
            info: info.to_string(),
            stage,
            diagnostics,
        }
    }
}

/// One compiled module.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleReport {
    pub info: String,
    pub stage: String,
    /// The unique variant this module belongs to, for infos with branches.
    pub variant: Option<usize>,
    /// Hash of the SPIR-V words ([`crate::flow::spirv_key`]), to count identical modules.
    pub spirv_hash: u128,
    pub spirv_bytes: usize,
    pub seconds: f64,
    #[serde(skip)]
    pub reflection: Arc<ModuleReflection>,
    /// The verdict on each requested cross-language target.
    pub targets: Vec<TargetReport>,
    /// What compiling it read (for the pass's record).
    #[serde(skip)]
    pub(crate) reads: ModuleReads,
}

/// The modules a module's compiles made (its own and its local-read form's), for the files they read and the
/// include candidates they found empty: shared with the compiler's cache, not copied file by file per module.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModuleReads(Vec<Arc<crate::compiler::CompiledModule>>);

impl ModuleReads {
    fn add(&mut self, module: &Arc<crate::compiler::CompiledModule>) {
        self.0.push(module.clone());
    }

    /// Every file read, in order, with repeats.
    pub(crate) fn files(&self) -> impl Iterator<Item = &crate::compiler::SourceFile> {
        self.0.iter().flat_map(|m| &m.files)
    }

    /// Every include candidate found empty, with repeats.
    pub(crate) fn absent(&self) -> impl Iterator<Item = &String> {
        self.0.iter().flat_map(|m| &m.absent_includes)
    }
}

/// What became of one module on one cross-language target.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    pub target: Target,
    /// Serialized as `translated`, `unsupported`, `skipped`, `twin` or `failed`.
    pub verdict: VerdictKind,
    /// The info whose modules serve this one on the target ([`Verdict::Twin`]): its outputs are the ones to use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twin: Option<String>,
    /// Why it is unsupported, skipped or failed (one line each).
    pub reasons: Vec<String>,
    /// The file written (`NAME[.vN].STAGE.<ext>`), when an output directory was given.
    pub file: Option<String>,
    /// The entry point's name in the text.
    pub entry_point: Option<String>,
    /// Driver extensions the text requires.
    pub requires: Vec<String>,
    /// Uniforms the host sets itself (OpenGL).
    pub host_uniforms: Vec<&'static str>,
    pub spec_constants: Option<SpecHandling>,
    /// WGSL: the WebGPU limits the module needs above the defaults ([`crate::cross::webgpu_limits`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub webgpu_limits: BTreeMap<String, u64>,
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
    #[serde(skip)]
    text: Option<String>,
}

/// Time per phase of the pass, summed over every worker thread, in seconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Phases {
    #[serde(flatten)]
    pub flow: crate::flow::PhaseTimes,
    /// Inside shaderc (the compiler's own clock): the rest of `compile` is waiting (next), cache lookup and
    /// include reads.
    pub shaderc: f64,
    /// Of `compile`, waiting for another job's compile of the same unit (variants with the same generated
    /// source are compiled once).
    pub waited: f64,
    /// Cross-language translation and its checks.
    pub cross: f64,
    /// Writing outputs.
    pub write: f64,
    /// Whole jobs (one module each), start to end.
    pub jobs: f64,
    /// Wall clock, not summed: seconds from the pass's start to the start of its first job, the part of the pass
    /// no module compiles in (validation, and the expansion of what compiles first).
    pub first_job: f64,
    /// Wall clock, not summed: seconds from the pass's start to the end of its last job; the pass's `seconds`
    /// less this is its tail after the last module (the reports).
    pub last_job: f64,
}

/// Verdict counts of one target over the pass.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TargetCounts {
    pub translated: usize,
    pub unsupported: usize,
    pub skipped: usize,
    /// Modules served on the target by their info's twin.
    pub twin: usize,
    pub failed: usize,
}

impl TargetCounts {
    /// Counts one module's verdict.
    pub fn add(&mut self, kind: VerdictKind) {
        *self.count_mut(kind) += 1;
    }

    /// How many modules got `kind`.
    pub fn get(&self, kind: VerdictKind) -> usize {
        match kind {
            VerdictKind::Translated => self.translated,
            VerdictKind::Unsupported => self.unsupported,
            VerdictKind::Skipped => self.skipped,
            VerdictKind::Twin => self.twin,
            VerdictKind::Failed => self.failed,
        }
    }

    fn count_mut(&mut self, kind: VerdictKind) -> &mut usize {
        match kind {
            VerdictKind::Translated => &mut self.translated,
            VerdictKind::Unsupported => &mut self.unsupported,
            VerdictKind::Skipped => &mut self.skipped,
            VerdictKind::Twin => &mut self.twin,
            VerdictKind::Failed => &mut self.failed,
        }
    }
}

/// The outcome for one info.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InfoReport {
    pub name: String,
    pub compilable: bool,
    pub stages: Vec<String>,
    pub passed: bool,
    pub seconds: f64,
    /// For infos with static branches.
    pub variants: Option<VariantStats>,
}

/// What variant expansion did for one info.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VariantStats {
    pub branches: Vec<String>,
    /// 2^N for N branches.
    pub permutations: usize,
    /// Distinct results of the specialize function: only these are compiled.
    pub unique_variants: usize,
    /// Distinct SPIR-V modules among all stages of those variants.
    pub unique_spirv: usize,
}

/// The outcome of the whole pass.
#[derive(Clone, Debug, Serialize)]
pub struct BuildReport {
    /// Compilable infos considered.
    pub infos_total: usize,
    /// Compilable infos whose every stage compiled and matched its declaration.
    pub infos_passed: usize,
    /// Modules compiled.
    pub modules: usize,
    pub seconds: f64,
    pub failed: Vec<Failure>,
    pub infos: Vec<InfoReport>,
    /// Per cross-language target, how many modules got each verdict (empty when no target was asked for).
    pub targets: BTreeMap<Target, TargetCounts>,
    /// Where the time went, summed over threads.
    pub phases: Phases,
    /// What the persistent cache did during the pass, when the compiler has one.
    pub cache: Option<crate::disk_cache::DiskCacheStats>,
    /// The part of the modules this pass built, when it built one part.
    pub shard: Option<Shard>,
    /// For a part: a digest of every module of the whole split (its info, variant, stage and generated text),
    /// which every part of one split computes alike; `merge_outputs` takes only parts that agree on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// Nothing this pass reads changed since an identical pass that succeeded: the report is that pass's, from
    /// its record in the persistent cache (with this run's time and cache counts, and 0 s per module), and no
    /// module was looked at. Only a pass with a persistent cache and no output directory is recorded.
    pub replayed: bool,
    #[serde(skip)]
    pub module_reports: Vec<ModuleReport>,
}

impl BuildReport {
    /// The report of a pass that could not start: nothing compiled, `problem` said.
    fn failed_before_the_pass(
        problem: Diagnostic,
        opts: &BuildOptions,
        start: Instant,
    ) -> BuildReport {
        BuildReport {
            infos_total: 0,
            infos_passed: 0,
            modules: 0,
            seconds: start.elapsed().as_secs_f64(),
            failed: vec![Failure::new("", None, vec![problem])],
            infos: Vec::new(),
            targets: BTreeMap::new(),
            phases: Phases::default(),
            cache: None,
            shard: opts.shard,
            split: None,
            replayed: false,
            module_reports: Vec::new(),
        }
    }

    /// True when nothing failed.
    pub fn success(&self) -> bool {
        self.failed.is_empty()
    }

    /// Every failure rendered for a terminal.
    pub fn render_failures(&self) -> String {
        self.failed
            .iter()
            .map(|f| shader_info::render(&f.diagnostics))
            .collect()
    }
}

/// One module to compile: a stage of an info (or of one unique variant of it).
struct Job {
    /// Shared by the jobs of one info's stages (cloning an info per stage was serial work before the pool).
    info: Arc<ValidatedInfo>,
    stage: Stage,
    /// The stage as variant expansion generated it to find its builtins: generated once, compiled from here.
    generated: Option<GeneratedStage>,
}

impl Job {
    /// One job per stage of `info`, with the stages already generated (in [`ValidatedInfo::stages`] order).
    fn per_stage(info: ValidatedInfo, generated: Vec<Option<GeneratedStage>>) -> Vec<Job> {
        let info = Arc::new(info);
        let mut generated = generated.into_iter();
        info.stages()
            .into_iter()
            .map(|stage| Job {
                info: info.clone(),
                stage,
                generated: generated.next().flatten().filter(|g| g.stage == stage),
            })
            .collect()
    }
}

/// Runs the pass over `registry`.
///
/// `progress` is called once per finished job (an info's declaration check or one module) with a short label.
///
/// With a compiler that has a persistent cache and no output directory, a pass that succeeds is recorded, and a
/// later identical pass over unchanged files replays that record instead of running ([`BuildReport::replayed`]).
///
/// ```no_run
/// use shader_info_gpu::builder::{build, BuildOptions};
/// use shader_info_gpu::compiler::Compiler;
/// use shader_info::{DirLoader, Registry};
/// let compiler = Compiler::new("shaders/glsl").unwrap();
/// let loader = DirLoader::new("shaders/glsl");
/// let report = build(Registry::global(), &compiler, &loader, &BuildOptions::default(), &|_| {});
/// println!("{} / {} infos compiled", report.infos_passed, report.infos_total);
/// ```
pub fn build(
    registry: &Registry,
    compiler: &dyn StageCompiler,
    loader: &dyn SourceLoader,
    opts: &BuildOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> BuildReport {
    let start = Instant::now();
    if let Err(d) = prepare_out_dir(opts) {
        return BuildReport::failed_before_the_pass(*d, opts, start);
    }
    let recording = record::Recording::of(registry, compiler, opts);
    if let Some(report) = recording.as_ref().and_then(|r| r.replay(loader, start)) {
        return report;
    }
    let once = OncePerPass {
        loader,
        files: Default::default(),
    };
    // Everything runs in the pool, validation and variant expansion included: on 16 cores, 60 ms of serial
    // validation was a third of the pass. The pool is the caller's (rayon's global one, made once per process)
    // when it has as many threads: a new pool of 16 threads took 1.5 ms of a 160 ms pass.
    let jobs = opts.jobs.max(1);
    let pool = (jobs != rayon::current_num_threads())
        .then(|| rayon::ThreadPoolBuilder::new().num_threads(jobs).build());
    let run = || build_in_pool(registry, compiler, &once, opts, progress, start);
    let report = match &pool {
        Some(Ok(p)) => p.install(run),
        _ => run(),
    };
    if let Some(r) = recording {
        let loaded = once.files.into_inner().unwrap_or_else(|e| e.into_inner());
        r.store(&report, &loaded, loader);
    }
    // A part that built completely says which part it is and what it was built with: `merge_outputs` takes only
    // a whole set of parts built alike.
    if let (Some(dir), Some(shard)) = (&opts.out_dir, opts.shard)
        && report.success()
        && let Err(e) = crate::cache_file::write_atomic(
            &dir.join(SHARD_RECORD),
            shard_record(shard, opts, &report).as_bytes(),
        )
    {
        let mut report = report;
        report.failed.push(Failure::new(
            "",
            None,
            vec![Diagnostic::error(
                Code::Io,
                "",
                format!("cannot write `{}`: {e}", dir.join(SHARD_RECORD).display()),
            )],
        ));
        return report;
    }
    report
}

/// The file a part's output directory names its part in (`I/N`, then the options it was built with), written
/// when the part built completely.
pub const SHARD_RECORD: &str = ".shard";

/// The start of a part record's second line: what decides the part's files besides its sources.
const SHARD_OPTIONS: &str = "options: ";

/// What decides a part's files besides its sources and declarations: two parts built with other options (one
/// without the WGSL files, one in release) merge into a set no single build makes. (The declarations are not
/// compared: their identity holds code addresses, which differ between two builds of one checkout.)
fn part_options(opts: &BuildOptions) -> String {
    // In one order: `--target msl,wgsl` and `--target wgsl,msl` build the same files.
    let mut targets = opts.cross.targets.clone();
    targets.sort();
    targets.dedup();
    format!(
        "shader-info {} profile {:?} targets {:?} checked {} filter {:?} branch limit {}",
        env!("CARGO_PKG_VERSION"),
        opts.profile,
        targets,
        opts.cross.check,
        opts.filter,
        opts.branch_limit,
    )
}

/// The start of a part record's line naming the whole split ([`BuildReport::split`]).
const SHARD_SPLIT: &str = "split: ";

/// The start of a part record's line naming one file the part wrote.
const SHARD_FILE: &str = "file: ";

/// A part's record: which part, the options it was built with, the split it is a part of, and the files it wrote
/// (a folder built into before may hold others, which are not this part's).
fn shard_record(shard: Shard, opts: &BuildOptions, report: &BuildReport) -> String {
    let mut out = format!(
        "{}/{}\n{SHARD_OPTIONS}{}\n{SHARD_SPLIT}{}\n",
        shard.index + 1,
        shard.count,
        part_options(opts),
        report.split.as_deref().unwrap_or("")
    );
    for m in &report.module_reports {
        let base = output_base(&m.info, m.variant, &m.stage);
        for file in ["spv", "glsl", "json"]
            .map(|ext| format!("{base}.{ext}"))
            .into_iter()
            .chain(m.targets.iter().filter_map(|t| t.file.clone()))
        {
            out.push_str(SHARD_FILE);
            out.push_str(&file);
            out.push('\n');
        }
    }
    out
}

/// What the files of one module written to the output directory are named before their extensions:
/// `<info>.<stage>`, or `<info>.v<variant>.<stage>` for a variant.
fn output_base(info: &str, variant: Option<usize>, stage: &str) -> String {
    match variant {
        Some(v) => format!("{info}.v{v}.{stage}"),
        None => format!("{info}.{stage}"),
    }
}

/// The digest of every module a split deals out ([`BuildReport::split`]): what each part must agree on, since a
/// part holds only its own modules and two parts built from other sources share no file to compare.
fn split_digest(jobs: &[(Order, Job)]) -> String {
    let keys: Vec<String> = jobs.iter().map(|(_, job)| job.info.key()).collect();
    let parts: Vec<&[u8]> = jobs
        .iter()
        .zip(&keys)
        .flat_map(|((_, job), key)| {
            [
                key.as_bytes(),
                job.stage.short_name().as_bytes(),
                job.generated
                    .as_ref()
                    .map_or(&b""[..], |g| g.source.as_bytes()),
            ]
        })
        .collect();
    format!("{:032x}", crate::disk_cache::key_of(&parts))
}

/// The output directory made ready before anything compiles: a folder (not a file) that can be written, and, for a
/// part, without the record of an earlier part (a part that fails now must not look finished to `merge`).
fn prepare_out_dir(opts: &BuildOptions) -> Result<(), Box<Diagnostic>> {
    let Some(dir) = &opts.out_dir else {
        return Ok(());
    };
    let fail = |message: String, hint: &str| {
        Box::new(
            Diagnostic::error(Code::Io, "", message)
                .item("out")
                .hint(hint.to_string()),
        )
    };
    if dir.exists() && !dir.is_dir() {
        return Err(fail(
            format!("the output directory `{}` is a file", dir.display()),
            "name a folder (it is made if missing)",
        ));
    }
    let unwritable = |e: std::io::Error| {
        fail(
            format!(
                "cannot write to the output directory `{}`: {e}",
                dir.display()
            ),
            "name a folder this user can write to",
        )
    };
    std::fs::create_dir_all(dir).map_err(unwritable)?;
    tempfile::NamedTempFile::new_in(dir).map_err(unwritable)?;
    match std::fs::remove_file(dir.join(SHARD_RECORD)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(unwritable(e)),
        _ => Ok(()),
    }
}

/// A loader that reads each file once per pass: the pass is a snapshot of the tree, and hundreds of variants
/// load the same stage sources.
struct OncePerPass<'a> {
    loader: &'a dyn SourceLoader,
    files: std::sync::RwLock<HashMap<String, Result<String, String>>>,
}

impl SourceLoader for OncePerPass<'_> {
    fn find_by_name(&self, name: &str) -> Vec<String> {
        self.loader.find_by_name(name)
    }

    fn load(&self, path: &str) -> Result<String, String> {
        if let Some(r) = self
            .files
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
        {
            return r.clone();
        }
        let r = self.loader.load(path);
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_string(), r.clone());
        r
    }
}

fn build_in_pool(
    registry: &Registry,
    compiler: &dyn StageCompiler,
    loader: &OncePerPass,
    opts: &BuildOptions,
    progress: &(dyn Fn(&str) + Sync),
    start: Instant,
) -> BuildReport {
    let mut flow = Flow::new(registry, loader, compiler, opts.profile);
    flow.branch_limit = opts.branch_limit;
    let mut failed: Vec<Failure> = registry
        .problems()
        .iter()
        .map(|d| Failure::new(&d.info, None, vec![d.clone()]))
        .collect();
    let selected = select(registry, opts, &mut failed);
    let clock = JobClock::new(start);
    let shaderc_before = compiler.shaderc_seconds();
    let waited_before = compiler.wait_seconds();
    let cache_before = compiler.disk_cache().map(|d| d.stats());
    let runner = Runner {
        flow: &flow,
        opts,
        clock: &clock,
        progress,
        units: Default::default(),
    };
    let cold = compiler.cold(opts.profile);
    let mut split = None;
    let (validated, results, variant_sets) = if opts.shard.is_none() && !cold {
        stream(&flow, selected, &runner, &mut failed)
    } else {
        let validated = validate_all(&flow, selected, progress, &mut failed);
        // Modules are expanded and generated before they compile, not interleaved with compiles on one thread:
        // a part is dealt from every module, and a cold pass expands them all while glslang builds its tables.
        let compilable: Vec<(usize, &ShaderCreateInfo, &ValidatedInfo)> = validated
            .iter()
            .enumerate()
            .filter(|(_, (info, _))| info.do_static_compilation)
            .filter_map(|(at, (info, v))| Some((at, *info, v.as_ref()?)))
            .collect();
        let (results, variant_sets) = match opts.shard {
            Some(shard) => {
                let Expanded { jobs, variant_sets } = expand_jobs(&flow, &compilable, &mut failed);
                split = Some(split_digest(&jobs));
                let jobs = select_shard(jobs, shard, &mut failed);
                (compile_jobs(&runner, jobs), variant_sets)
            }
            // A process's first compile builds glslang's tables (0.10-0.13 s on the 16-core H200 machine) under a
            // lock every compile takes: every module is expanded meanwhile, instead of every thread waiting.
            None => {
                let ((), Expanded { jobs, variant_sets }) = rayon::join(
                    || compiler.warm_up(opts.profile),
                    || expand_jobs(&flow, &compilable, &mut failed),
                );
                (compile_jobs(&runner, jobs), variant_sets)
            }
        };
        (validated, results, variant_sets)
    };
    let results = in_order(results);
    let (modules, targets) = count_verdicts(results, &opts.cross.targets, &mut failed);
    let infos = info_reports(&validated, &modules, &failed, &variant_sets);
    let compilable: Vec<&InfoReport> = infos.iter().filter(|i| i.compilable).collect();
    BuildReport {
        infos_total: compilable.len(),
        infos_passed: compilable.iter().filter(|i| i.passed).count(),
        modules: modules.len(),
        seconds: start.elapsed().as_secs_f64(),
        failed,
        infos,
        targets,
        phases: Phases {
            flow: flow.phases(),
            shaderc: compiler.shaderc_seconds() - shaderc_before,
            waited: compiler.wait_seconds() - waited_before,
            cross: nanos(&clock.cross),
            write: nanos(&clock.write),
            jobs: nanos(&clock.jobs),
            first_job: clock.span().0,
            last_job: clock.span().1,
        },
        module_reports: modules,
        shard: opts.shard,
        split,
        replayed: false,
        cache: compiler
            .disk_cache()
            .zip(cache_before)
            .map(|(d, before)| d.stats().since(&before)),
    }
}

/// The infos the pass checks, in registry order (a filter that matches none is a failure).
fn select<'r>(
    registry: &'r Registry,
    opts: &BuildOptions,
    failed: &mut Vec<Failure>,
) -> Vec<&'r ShaderCreateInfo> {
    let selected: Vec<&ShaderCreateInfo> = registry
        .infos()
        .filter(|i| opts.filter.as_deref().is_none_or(|f| i.name.starts_with(f)))
        .collect();
    if let Some(filter) = &opts.filter
        && selected.is_empty()
    {
        // A misspelt filter would otherwise check nothing and succeed.
        failed.push(Failure::new(
            "",
            None,
            vec![filter_matches_nothing(registry, filter)],
        ));
    }
    selected
}

/// Every selected info and its validation (`None` where it failed, with the failure in `failed`). In parallel,
/// reported in registry order; building blocks are checked without the completeness rules.
fn validate_all<'r>(
    flow: &Flow,
    selected: Vec<&'r ShaderCreateInfo>,
    progress: &(dyn Fn(&str) + Sync),
    failed: &mut Vec<Failure>,
) -> Vec<(&'r ShaderCreateInfo, Option<ValidatedInfo>)> {
    let outcomes: Vec<_> = selected
        .par_iter()
        .map(|info| {
            let outcome = flow.validate(&info.name, info.do_static_compilation);
            progress(&info.name);
            outcome
        })
        .collect();
    selected
        .into_iter()
        .zip(outcomes)
        .map(|(info, outcome)| (info, recorded(info, outcome, failed)))
        .collect()
}

/// An info's validation, its failure recorded.
fn recorded(
    info: &ShaderCreateInfo,
    outcome: Result<ValidatedInfo, Vec<Diagnostic>>,
    failed: &mut Vec<Failure>,
) -> Option<ValidatedInfo> {
    outcome
        .map_err(|diagnostics| failed.push(Failure::new(&info.name, None, diagnostics)))
        .ok()
}

/// The pass with no barrier between validation and compiles: each info is validated, expanded and compiled in one
/// task, so the first module compiles as soon as its own info is ready and an info with branches expands while the
/// others compile. Validated first, then expanded for every info, the pass spent 1.4-1.7 ms before its first compile
/// at 16 jobs on the H200 machine, when plain shaderc over the same units spent none; streamed, 0.2-0.3 ms. (The
/// pass/shaderc ratio moved within that machine's noise: run-by-run medians 1.01-1.04× against 1.02-1.03×, three
/// processes of 21 runs each.) The outcomes, failures and variant sets are reported in registry order, validation
/// failures before those of expansion, as the staged pass reports them. A process's first pass is not streamed
/// (see `build_in_pool`): it expands every module while glslang builds its tables; this is every later pass of a
/// process (`watch`, a tool or renderer that builds again).
#[allow(clippy::type_complexity)]
fn stream<'r>(
    flow: &Flow,
    selected: Vec<&'r ShaderCreateInfo>,
    runner: &Runner,
    failed: &mut Vec<Failure>,
) -> (
    Vec<(&'r ShaderCreateInfo, Option<ValidatedInfo>)>,
    Vec<Placed>,
    Vec<(String, VariantSet)>,
) {
    // Infos that declare branches start first: the expansion of their variants is the pass's longest own work, and
    // started as the pool reached them in registry order it ran while the other infos' compiles were running out.
    // (Branches inherited through `additional_info` are not seen before validation: such an info starts in its
    // registry place, which costs time, not correctness.)
    let mut first: Vec<(usize, &ShaderCreateInfo)> = selected.iter().copied().enumerate().collect();
    first.sort_by_key(|(_, info)| info.branches.is_empty());
    let mut streamed: Vec<_> = first
        .into_par_iter()
        .map(|(at, info)| {
            let outcome = flow.validate(&info.name, info.do_static_compilation);
            (runner.progress)(&info.name);
            let mut later = Vec::new();
            let (done, sets) = match &outcome {
                Ok(v) if info.do_static_compilation => {
                    let Expanded { jobs, variant_sets } =
                        expand_jobs(flow, &[(at, info, v)], &mut later);
                    (compile_jobs(runner, jobs), variant_sets)
                }
                _ => Default::default(),
            };
            (at, (outcome, later, done, sets))
        })
        .collect();
    streamed.sort_unstable_by_key(|(at, _)| *at);
    let (mut validated, mut later, mut results, mut variant_sets) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (info, (_, (outcome, failures, done, sets))) in selected.into_iter().zip(streamed) {
        validated.push((info, recorded(info, outcome, failed)));
        later.extend(failures);
        results.extend(done);
        variant_sets.extend(sets);
    }
    failed.extend(later);
    (validated, results, variant_sets)
}

/// The error for a `filter` no registered name starts with, with the names that share the longest start with it.
fn filter_matches_nothing(registry: &Registry, filter: &str) -> Diagnostic {
    let shared = |name: &str| {
        name.chars()
            .zip(filter.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    let best = registry.infos().map(|i| shared(&i.name)).max().unwrap_or(0);
    let close: Vec<String> = registry
        .infos()
        .filter(|i| best >= 3 && shared(&i.name) == best)
        .take(3)
        .map(|i| format!("`{}`", i.name))
        .collect();
    let hint = if close.is_empty() {
        "`shader-builder list` lists the registered infos".to_string()
    } else {
        format!(
            "the closest names are {} (`shader-builder list` lists them all)",
            close.join(", ")
        )
    };
    Diagnostic::error(
        Code::UnknownInfo,
        "",
        format!(
            "the filter `{filter}` matches none of the {} registered infos: nothing would be checked",
            registry.infos().count()
        ),
    )
    .item("filter")
    .hint(hint)
}

/// Where a module's outcome goes in the report: the info's place in the pass, the variant, the stage (`None` for
/// a failure of the info or variant as a whole).
type Order = (usize, usize, Option<Stage>);

/// An outcome and its place.
type Placed = (Order, Outcome);

/// The outcomes of lists in the pass's order ([`compile_jobs`]), without their places: the order one serial pass
/// would have given, whichever thread ran what.
fn in_order(done: Vec<Placed>) -> Vec<Outcome> {
    done.into_iter().map(|(_, outcome)| outcome).collect()
}

/// What became of one module.
type Outcome = Result<ModuleReport, Failure>;

/// The modules to compile, with their places, and the variant sets they came from.
struct Expanded {
    jobs: Vec<(Order, Job)>,
    variant_sets: Vec<(String, VariantSet)>,
}

/// One job per stage of every valid compilable info (with its place in the pass), or of each of its unique variants
/// (after specialize, each validated again), each stage generated: in parallel, infos and the groups of a branched
/// info's variants alike. A stage whose text cannot be generated is left to its job, which reports the error.
fn expand_jobs(
    flow: &Flow,
    compilable: &[(usize, &ShaderCreateInfo, &ValidatedInfo)],
    failed: &mut Vec<Failure>,
) -> Expanded {
    type Expansion = Result<(Option<VariantSet>, Vec<Result<Vec<Job>, Failure>>), Failure>;
    let expanded: Vec<Expansion> = compilable
        .par_iter()
        .map(|(_, info, v)| {
            if v.branches.is_empty() {
                let generated = v.stages().into_iter().map(|s| flow.generate(v, s).ok());
                return Ok((
                    None,
                    vec![Ok(Job::per_stage((*v).clone(), generated.collect()))],
                ));
            }
            let set = variant_set(flow, info, v)?;
            let variants = flow.expand_set_with(v, &set, |i, r| jobs_of(flow, info, i, r));
            Ok((Some(set), variants))
        })
        .collect();
    let mut variant_sets: Vec<(String, VariantSet)> = Vec::new();
    let mut jobs: Vec<(Order, Job)> = Vec::new();
    for ((at, info, _), expansion) in compilable.iter().zip(expanded) {
        match expansion {
            Ok((set, variants)) => {
                for (i, variant) in variants.into_iter().enumerate() {
                    match variant {
                        Ok(more) => {
                            jobs.extend(more.into_iter().map(|j| ((*at, i, Some(j.stage)), j)))
                        }
                        Err(f) => failed.push(f),
                    }
                }
                variant_sets.extend(set.map(|set| (info.name.clone(), set)));
            }
            Err(f) => failed.push(f),
        }
    }
    Expanded { jobs, variant_sets }
}

/// The unique variants of `v` (an info with branches), or the failure of the info.
fn variant_set(
    flow: &Flow,
    info: &ShaderCreateInfo,
    v: &ValidatedInfo,
) -> Result<VariantSet, Failure> {
    flow.variants(v)
        .map_err(|d| Failure::new(&info.name, None, d))
}

/// One job per stage of expanded variant `i` of `info`, each stage generated, or the variant's failure, named by its
/// index.
fn jobs_of(
    flow: &Flow,
    info: &ShaderCreateInfo,
    i: usize,
    expanded: Expansion,
) -> Result<Vec<Job>, Failure> {
    let mut jobs = expanded
        .map(|(vinfo, generated)| Job::per_stage(vinfo, generated))
        .map_err(|d| Failure::new(&info.name, Some(format!("variant {i}")), d))?;
    // A stage its expansion did not generate ([`Flow::expand_variant`]), generated on the thread that expanded
    // the variant, not in a parallel pass of its own over every job between the expansion and the compiles.
    for job in &mut jobs {
        if job.generated.is_none() {
            job.generated = flow.generate(&job.info, job.stage).ok();
        }
    }
    Ok(jobs)
}

/// The jobs of one part of a sharded build.
fn select_shard(
    jobs: Vec<(Order, Job)>,
    shard: Shard,
    failed: &mut Vec<Failure>,
) -> Vec<(Order, Job)> {
    if shard.index >= shard.count || shard.count > MAX_SHARDS {
        // Options built by hand, not parsed: a part that does not exist would silently build nothing.
        failed.push(Failure::new(
            "",
            None,
            vec![
                Diagnostic::error(
                    Code::OutOfRange,
                    "",
                    format!(
                        "shard {} of {} does not exist: parts are numbered 0..{}, and at most {MAX_SHARDS}",
                        shard.index, shard.count, shard.count
                    ),
                )
                .item("shard")
                .hint("parse it from `I/N` (1 ≤ I ≤ N), as `build --shard` does"),
            ],
        ));
        return Vec::new();
    }
    shard_jobs(jobs, shard)
}

/// Every job through the flow and the cross pass, in parallel; the outcomes in the pass's order, each with its place.
fn compile_jobs(runner: &Runner, mut jobs: Vec<(Order, Job)>) -> Vec<Placed> {
    // Each job's outcome goes to its place in the pass's order, written by the thread that ran it: no collection,
    // flattening or sort after the last module. Collected, the 1,675 outcomes took 0.5-1 ms on one thread after the
    // last compile on the 16-core H200 machine, and their sort 0.1-0.2 ms more.
    jobs.sort_unstable_by_key(|(order, _)| *order);
    let slots: Arc<Slots> = Arc::new((0..jobs.len()).map(|_| Mutex::new(None)).collect());
    let jobs: Vec<Placing> = jobs
        .into_iter()
        .enumerate()
        .map(|(at, (order, job))| {
            let slots = slots.clone();
            (Place { order, at, slots }, job)
        })
        .collect();
    by_stage(jobs, |(_, job)| job.stage)
        .into_par_iter()
        .for_each(|(place, j)| runner.submit(place, j));
    let slot = |s: Mutex<Option<Placed>>| s.into_inner().unwrap_or_else(|e| e.into_inner());
    match Arc::try_unwrap(slots) {
        // In place: the slots' memory holds the outcomes.
        Ok(slots) => slots.into_iter().filter_map(slot).collect(),
        // Every job has run and dropped its place, so nothing shares the slots; were one still held, its outcomes
        // are taken all the same.
        Err(shared) => shared
            .iter()
            .filter_map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).take())
            .collect(),
    }
}

/// `items` grouped by stage, in their order within each stage. The pool hands each thread runs of neighbouring
/// jobs, so a thread then compiles one stage after another of the same kind and glslang's state for that stage
/// stays in its caches. On the 2-core VM (`examples/scaling`, 1 and 2 jobs), plain shaderc over the library's units
/// took 3–10 % less time in this order than in the order they are generated (each variant's stages in turn), and
/// the pass 3–5 % less (measured with every module of the pass grouped at once; a streamed pass groups each info's
/// modules, most of which are the mesh ubershader's); a single cold `shader-builder build` at 2 jobs moved less than
/// its noise (0.59 s), and on the 16-core H200 machine the order made no difference. Moved, not sorted: each job is
/// moved twice.
fn by_stage<T>(items: Vec<T>, stage_of: impl Fn(&T) -> Stage) -> Vec<T> {
    let count = items.len();
    let mut stages: BTreeMap<Stage, Vec<T>> = BTreeMap::new();
    for item in items {
        stages.entry(stage_of(&item)).or_default().push(item);
    }
    let mut out = Vec::with_capacity(count);
    for (_, items) in stages {
        out.extend(items);
    }
    out
}

/// The outcomes of one list of jobs, each at its place in the pass's order.
type Slots = Vec<Mutex<Option<Placed>>>;

/// Where a job's outcome goes: its place in the report and its slot.
struct Place {
    order: Order,
    at: usize,
    slots: Arc<Slots>,
}

impl Place {
    fn put(self, outcome: Outcome) {
        if let Some(slot) = self.slots.get(self.at) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((self.order, outcome));
        }
    }
}

/// A job and where its outcome goes.
type Placing = (Place, Job);

/// A compile unit (variants whose generated source is the same compile to one) in the pass.
enum Unit {
    /// Its first job, of the list whose slots are at `list`, is compiling it; these jobs of the same unit and list
    /// came meanwhile.
    Compiling {
        list: usize,
        waiting: Vec<(Place, Job, Option<GeneratedStage>)>,
    },
    Compiled,
}

/// Runs jobs so that none waits for another. A job that found its unit compiling on another thread used to wait
/// for it (at 2 jobs one thread mostly waited for the other: 3.25 s of 10.65 s of thread time; 1.2 s at 16 jobs),
/// and then a second round for such jobs made every thread wait for the last compile of the first. Now such a job
/// is left with the unit, and the thread that compiles the unit runs it afterwards (a cache hit and a check).
struct Runner<'a> {
    flow: &'a Flow<'a>,
    opts: &'a BuildOptions,
    clock: &'a JobClock,
    progress: &'a (dyn Fn(&str) + Sync),
    /// The units met so far, by stage, name and text (every job looks its unit up twice).
    units: crate::sharded::ShardedMap<Unit>,
}

impl Runner<'_> {
    /// Runs `job` (generated by [`expand_jobs`]) if it is the first of its unit or its unit is compiled, with the
    /// jobs of its unit that came while it compiled; nothing if its unit is compiling on another thread, which then
    /// runs it. A job whose text could not be generated runs, for its error.
    fn submit(&self, place: Place, mut job: Job) {
        let generated = job.generated.take();
        let Some(g) = &generated else {
            return place.put(self.run(&job, generated));
        };
        let unit = crate::disk_cache::key_of(&[
            g.stage.short_name().as_bytes(),
            g.name.as_bytes(),
            g.source.as_bytes(),
        ]);
        let units = || self.units.shard(unit);
        let list = Arc::as_ptr(&place.slots) as usize;
        match units().entry(unit) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Unit::Compiling {
                    list,
                    waiting: Vec::new(),
                });
            }
            std::collections::hash_map::Entry::Occupied(mut e) => match e.get_mut() {
                // Left with the unit only by a job of the same list: that list's compile returns after the unit's
                // first job has run it.
                Unit::Compiling { list: of, waiting } if *of == list => {
                    waiting.push((place, job, generated));
                    return;
                }
                // A job of another list runs now, rather than after its own list was collected.
                Unit::Compiling { .. } => return place.put(self.run(&job, generated)),
                Unit::Compiled => {}
            },
        }
        place.put(self.run(&job, generated));
        let waiting = match units().insert(unit, Unit::Compiled) {
            Some(Unit::Compiling { waiting, .. }) => waiting,
            _ => Vec::new(),
        };
        waiting
            .into_par_iter()
            .for_each(|(place, job, generated)| place.put(self.run(&job, generated)));
    }

    fn run(&self, job: &Job, generated: Option<GeneratedStage>) -> Outcome {
        let t = Instant::now();
        let out = compile_one(self.flow, self.opts, job, generated, self.clock);
        self.clock.job(t);
        (self.progress)(&format!("{} {}", job.info.name, job.stage.short_name()));
        out
    }
}

/// The compiled modules and, per requested target, how many got each verdict; a failed translation is also a
/// failure of the pass.
fn count_verdicts(
    results: Vec<Result<ModuleReport, Failure>>,
    requested: &[Target],
    failed: &mut Vec<Failure>,
) -> (Vec<ModuleReport>, BTreeMap<Target, TargetCounts>) {
    let mut targets: BTreeMap<Target, TargetCounts> = requested
        .iter()
        .map(|t| (*t, TargetCounts::default()))
        .collect();
    // In place: the modules stay in the outcomes' memory (a new list of them was fresh pages to fault in, on one
    // thread after the last compile).
    let modules = results
        .into_iter()
        .filter_map(|r| match r {
            Ok(m) => {
                for t in &m.targets {
                    targets.entry(t.target).or_default().add(t.verdict);
                    if t.verdict == VerdictKind::Failed {
                        let label = format!("{} → {}", m.stage, t.target);
                        failed.push(Failure::new(&m.info, Some(label), t.diagnostics.clone()));
                    }
                }
                Some(m)
            }
            Err(f) => {
                failed.push(f);
                None
            }
        })
        .collect();
    (modules, targets)
}

/// The outcome of each validated info: passed when no failure names it, its time, and what its variants gave.
/// Modules and failures are grouped by info in one pass: looked up by scanning all of them for each info, this
/// took 9 ms on the 2-core VM, on one thread after the last compile.
fn info_reports(
    validated: &[(&ShaderCreateInfo, Option<ValidatedInfo>)],
    modules: &[ModuleReport],
    failed: &[Failure],
    variant_sets: &[(String, VariantSet)],
) -> Vec<InfoReport> {
    let failed: HashSet<&str> = failed.iter().map(|f| f.info.as_str()).collect();
    // An info's modules are neighbours in the pass's order: one lookup per run of them, not per module.
    let mut of_info: HashMap<&str, (f64, Vec<u128>)> = HashMap::new();
    for run in modules.chunk_by(|a, b| a.info == b.info) {
        let (seconds, hashes) = of_info.entry(run[0].info.as_str()).or_default();
        *seconds += run.iter().map(|m| m.seconds).sum::<f64>();
        hashes.extend(run.iter().map(|m| m.spirv_hash));
    }
    let sets: HashMap<&str, &VariantSet> = variant_sets
        .iter()
        .map(|(name, set)| (name.as_str(), set))
        .collect();
    validated
        .iter()
        .map(|(info, v)| {
            let stages: Vec<String> = v
                .as_ref()
                .map(|v| v.stages())
                .unwrap_or_else(|| info.stages())
                .iter()
                .map(|s| s.short_name().to_string())
                .collect();
            let (seconds, hashes) = of_info
                .get(info.name.as_str())
                .map_or((0.0, &[][..]), |(s, h)| (*s, &h[..]));
            let variants = sets.get(info.name.as_str()).map(|set| {
                let mut unique = hashes.to_vec();
                unique.sort_unstable();
                unique.dedup();
                VariantStats {
                    branches: set.branches.clone(),
                    permutations: set.permutations(),
                    unique_variants: set.variants.len(),
                    unique_spirv: unique.len(),
                }
            });
            InfoReport {
                name: info.name.clone(),
                compilable: info.do_static_compilation,
                stages,
                passed: !failed.contains(info.name.as_str()),
                seconds,
                variants,
            }
        })
        .collect()
}

/// Time of the builder's own phases, summed over threads, and when the first job began and the last ended.
struct JobClock {
    start: Instant,
    cross: AtomicU64,
    write: AtomicU64,
    jobs: AtomicU64,
    /// Nanoseconds from `start`.
    first: AtomicU64,
    last: AtomicU64,
}

impl JobClock {
    fn new(start: Instant) -> Self {
        JobClock {
            start,
            cross: AtomicU64::new(0),
            write: AtomicU64::new(0),
            jobs: AtomicU64::new(0),
            first: AtomicU64::new(u64::MAX),
            last: AtomicU64::new(0),
        }
    }

    /// A job ran from `began` to now.
    fn job(&self, began: Instant) {
        let since = |t: Instant| t.duration_since(self.start).as_nanos() as u64;
        let end = Instant::now();
        self.jobs.fetch_add(
            end.duration_since(began).as_nanos() as u64,
            Ordering::Relaxed,
        );
        // Read before written, as elsewhere: an update on every job would bounce the line between the threads.
        if since(began) < self.first.load(Ordering::Relaxed) {
            self.first.fetch_min(since(began), Ordering::Relaxed);
        }
        self.last.fetch_max(since(end), Ordering::Relaxed);
    }

    /// [`Phases::first_job`] and [`Phases::last_job`]: 0 where no job ran.
    fn span(&self) -> (f64, f64) {
        match self.first.load(Ordering::Relaxed) {
            u64::MAX => (0.0, 0.0),
            first => (first as f64 * 1e-9, nanos(&self.last)),
        }
    }
}

fn nanos(c: &AtomicU64) -> f64 {
    c.load(Ordering::Relaxed) as f64 * 1e-9
}

fn compile_one(
    flow: &Flow,
    opts: &BuildOptions,
    job: &Job,
    generated: Option<GeneratedStage>,
    clock: &JobClock,
) -> Result<ModuleReport, Failure> {
    let (info, stage) = (&job.info, job.stage);
    let t = Instant::now();
    // Made where a failure or an output needs them: formatted for every module, they were most of a cache hit's
    // allocations.
    let label = || match info.variant_index() {
        Some(v) => format!("{} variant {v}", stage.short_name()),
        None => stage.short_name().to_string(),
    };
    let checked = match generated {
        Some(g) => flow.compile_generated(info, g),
        None => flow.compile(info, stage),
    }
    .map_err(|d| Failure::new(&info.name, Some(label()), d))?;
    let mut reads = ModuleReads::default();
    reads.add(&checked.module);
    // A device with local read builds this info's pipelines from its local-read form (`SubpassMode`): compiled
    // and checked here too, so its errors surface in the static pass and its modules are in the cache before such
    // a device starts.
    if !info.subpass_inputs.is_empty() {
        let local = info
            .with_subpass_mode(SubpassMode::LocalRead)
            .and_then(|local| flow.compile(&local, stage))
            .map_err(|d| Failure::new(&info.name, Some(format!("{} (local read)", label())), d))?;
        reads.add(&local.module);
    }
    let base = || output_base(&info.name, info.variant_index(), stage.short_name());
    let cross_started = Instant::now();
    let verdicts = translate_module(flow, info, stage, &opts.cross);
    let mut targets: Vec<TargetReport> = Vec::with_capacity(verdicts.len());
    if !verdicts.is_empty() {
        let base = base();
        targets.extend(verdicts.into_iter().map(|(target, verdict)| {
            target_report(target, &verdict, &base, opts.out_dir.is_some())
        }));
    }
    clock
        .cross
        .fetch_add(cross_started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    let write_started = Instant::now();
    if let Some(dir) = &opts.out_dir {
        let base = base();
        let io = |e: std::io::Error| {
            Failure::new(
                &info.name,
                Some(label()),
                vec![
                    Diagnostic::error(
                        Code::Io,
                        &info.name,
                        format!("cannot write to `{}`: {e}", dir.display()),
                    )
                    .stage(stage)
                    .hint("check the output directory is writable and the disk has room"),
                ],
            )
        };
        let bytes: &[u8] = bytemuck::cast_slice(&checked.module.spirv);
        let mut json = serde_json::to_value(&*checked.reflection).unwrap_or_default();
        if let Some(obj) = json.as_object_mut() {
            let plan = flow.plan(info);
            obj.insert(
                "targets".into(),
                serde_json::json!({ "map": plan.targets, "outputs": targets }),
            );
            obj.insert("declared".into(), declared_json(&plan));
        }
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join(format!("{base}.spv")), bytes))
            .and_then(|_| {
                std::fs::write(dir.join(format!("{base}.glsl")), &checked.generated.source)
            })
            .and_then(|_| {
                std::fs::write(
                    dir.join(format!("{base}.json")),
                    serde_json::to_string_pretty(&json).unwrap_or_default(),
                )
            })
            .map_err(io)?;
        for t in &mut targets {
            if let (Some(file), Some(text)) = (&t.file, t.text.take()) {
                std::fs::write(dir.join(file), text).map_err(io)?;
            }
        }
    }
    clock
        .write
        .fetch_add(write_started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    Ok(ModuleReport {
        info: info.name.clone(),
        stage: stage.short_name().to_string(),
        variant: info.variant_index(),
        spirv_hash: checked.spirv_key,
        spirv_bytes: checked.module.spirv.len() * 4,
        seconds: t.elapsed().as_secs_f64(),
        reflection: checked.reflection,
        targets,
        reads,
    })
}

/// The report of one verdict; the text rides along (not serialized) until it is written.
fn target_report(target: Target, verdict: &Verdict, base: &str, writing: bool) -> TargetReport {
    let mut r = TargetReport {
        target,
        verdict: verdict.kind(),
        twin: None,
        reasons: verdict.lines(target),
        file: None,
        entry_point: None,
        requires: Vec::new(),
        host_uniforms: Vec::new(),
        spec_constants: None,
        webgpu_limits: BTreeMap::new(),
        diagnostics: Vec::new(),
        text: None,
    };
    match verdict {
        Verdict::Translated(t) => {
            r.file = writing.then(|| format!("{base}.{}", target.extension()));
            r.entry_point = Some(t.entry_point.clone());
            r.requires = t.requires.clone();
            r.host_uniforms = t.host_uniforms.clone();
            r.spec_constants = Some(t.spec_constants.clone());
            r.webgpu_limits = t.webgpu_limits.clone();
            r.text = writing.then(|| t.text.clone());
        }
        Verdict::Failed(d) => r.diagnostics = d.clone(),
        Verdict::Twin { twin, .. } => r.twin = Some(twin.clone()),
        Verdict::Unsupported(_) | Verdict::Skipped(_) => {}
    }
    r
}

/// Copies every file of the shards' output directories into `out` (created), as one full run would have written
/// it; returns the number of files. A file present in two shards must be byte-identical in both (it is, for
/// outputs of one module, which only one shard builds); anything else is an error naming the file.
///
/// ```no_run
/// let n = shader_info_gpu::builder::merge_outputs(&["out/1".into(), "out/2".into()], "out/all".as_ref()).unwrap();
/// println!("{n} files");
/// ```
pub fn merge_outputs(shards: &[PathBuf], out: &std::path::Path) -> Result<usize, String> {
    // Every part of one split, each built completely: a missing or failed part would give a partial set that
    // looks whole.
    if shards.is_empty() {
        return Err(
            "no part to merge: name the `--out` folders of every `build --shard I/N`".into(),
        );
    }
    let mut parts: Vec<Shard> = Vec::new();
    let mut built_with: Option<(String, &PathBuf)> = None;
    let mut split_of: Option<(String, &PathBuf)> = None;
    // Each part's own files, as its record lists them (`None`: a record of an older build, which listed none).
    let mut listed: Vec<Option<Vec<String>>> = Vec::new();
    for dir in shards {
        let record = dir.join(SHARD_RECORD);
        let text = std::fs::read_to_string(&record).map_err(|_| {
            format!(
                "`{}` has no `{SHARD_RECORD}`: it is not the output of a `build --shard I/N` that finished",
                dir.display()
            )
        })?;
        let mut lines = text.lines();
        let shard: Shard = lines
            .next()
            .unwrap_or_default()
            .trim()
            .parse()
            .map_err(|e| format!("`{}`: {e}", record.display()))?;
        let options = lines
            .next()
            .and_then(|l| l.strip_prefix(SHARD_OPTIONS))
            .unwrap_or("(not recorded: an older build)")
            .to_string();
        let mut split = String::from("(not recorded: an older build)");
        let mut files: Option<Vec<String>> = None;
        for line in lines {
            if let Some(digest) = line.strip_prefix(SHARD_SPLIT) {
                split = digest.to_string();
                files.get_or_insert_with(Vec::new);
            } else if let Some(file) = line.strip_prefix(SHARD_FILE) {
                // A name the build wrote in the folder: no path may lead out of it.
                if file.is_empty() || file.contains(['/', '\\']) || file == ".." {
                    return Err(format!(
                        "`{}` lists the file `{file}`, which no build writes: the record is damaged",
                        record.display()
                    ));
                }
                files.get_or_insert_with(Vec::new).push(file.to_string());
            }
        }
        match &split_of {
            Some((first, first_dir)) if *first != split => {
                return Err(format!(
                    "the parts come from different sources or declarations: `{}` is a part of the split {first}, \
                     `{}` of {split}; build every part from the same tree",
                    first_dir.display(),
                    dir.display()
                ));
            }
            Some(_) => {}
            None => split_of = Some((split, dir)),
        }
        listed.push(files);
        match &built_with {
            Some((first, first_dir)) if *first != options => {
                return Err(format!(
                    "the parts were built differently: `{}` with {first}, `{}` with {options}; build every part \
                     with the same options and sources",
                    first_dir.display(),
                    dir.display()
                ));
            }
            Some(_) => {}
            None => built_with = Some((options, dir)),
        }
        if parts.contains(&shard) {
            return Err(format!(
                "part {}/{} is given twice (again in `{}`)",
                shard.index + 1,
                shard.count,
                dir.display()
            ));
        }
        parts.push(shard);
    }
    if let Some(count) = parts.first().map(|s| s.count) {
        if parts.iter().any(|s| s.count != count) {
            return Err("the parts come from splits into different numbers of parts".into());
        }
        let missing: Vec<String> = (0..count)
            .filter(|i| !parts.iter().any(|s| s.index == *i))
            .map(|i| format!("{}/{count}", i + 1))
            .collect();
        if !missing.is_empty() {
            return Err(format!("parts {} are missing", missing.join(", ")));
        }
    }
    if std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!(
            "`{}` is not empty: merge into a new or empty folder, so no earlier file stays among the merged ones",
            out.display()
        ));
    }
    let mut seen: BTreeMap<std::ffi::OsString, (PathBuf, u128)> = BTreeMap::new();
    for (dir, files) in shards.iter().zip(&listed) {
        // A part's own files only: a folder built into before keeps what an earlier build wrote there (another
        // target, a variant or info since removed).
        let names: Vec<std::ffi::OsString> = match files {
            Some(files) => files.iter().map(std::ffi::OsString::from).collect(),
            None => {
                let entries = std::fs::read_dir(dir).map_err(|e| {
                    format!("cannot read the shard output `{}`: {e}", dir.display())
                })?;
                let mut names = Vec::new();
                for e in entries {
                    let e = e.map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
                    if e.file_name() != SHARD_RECORD {
                        names.push(e.file_name());
                    }
                }
                names
            }
        };
        for name in names {
            let path = dir.join(&name);
            // Not followed: a link in a part's folder is nothing a build wrote.
            if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                return Err(format!(
                    "`{}` is not a file the part wrote (missing, or not a file): build the part again",
                    path.display()
                ));
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            let hash = xxhash_rust::xxh3::xxh3_128(&bytes);
            match seen.get(&name) {
                Some((first, h)) if *h != hash => {
                    return Err(format!(
                        "`{}` and `{}` differ: the shards were built from different sources or options",
                        first.display(),
                        path.display()
                    ));
                }
                Some(_) => {}
                None => {
                    seen.insert(name, (path, hash));
                }
            }
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    for (name, (path, _)) in &seen {
        std::fs::copy(path, out.join(name))
            .map_err(|e| format!("cannot write `{}`: {e}", out.join(name).display()))?;
    }
    Ok(seen.len())
}

/// The module's declaration as a host in another language needs it (the README's "module JSON" schema): the
/// **declared** vertex inputs with their formats (reflection lists only the inputs the optimized code reads), the
/// colour targets, the render state, every binding with its resource (image type, format, qualifier, buffer
/// type), and the push-constant block's size as each target counts it.
fn declared_json(plan: &shader_info::PipelinePlan) -> serde_json::Value {
    use shader_info::ResourceKind as R;
    let bindings: Vec<serde_json::Value> = plan
        .sets
        .iter()
        .flat_map(|s| s.bindings.iter().map(move |b| (s.set, b)))
        .map(|(set, b)| {
            let resource = match &b.resource {
                R::Sampler { image_type, state } => serde_json::json!({
                    "kind": "sampler", "image_type": format!("{image_type:?}"),
                    "fixed_sampler": state.is_some(),
                }),
                R::Image { format, qualifier, image_type } => serde_json::json!({
                    "kind": "image", "image_type": format!("{image_type:?}"),
                    "format": format!("{format:?}"), "access": format!("{qualifier:?}"),
                }),
                R::UniformBuffer { type_name } => {
                    serde_json::json!({ "kind": "uniform_buf", "type": type_name })
                }
                R::StorageBuffer { qualifier, type_name } => serde_json::json!({
                    "kind": "storage_buf", "type": type_name, "access": format!("{qualifier:?}"),
                }),
                R::AccelerationStructure => serde_json::json!({ "kind": "acceleration_structure" }),
                R::InputAttachment { index, image_type } => serde_json::json!({
                    "kind": "subpass_in", "attachment": index, "image_type": format!("{image_type:?}"),
                }),
            };
            serde_json::json!({
                "set": set, "binding": b.binding, "name": b.name, "descriptor": format!("{:?}", b.kind),
                "count": b.count, "min_size": b.min_size, "resource": resource,
            })
        })
        .collect();
    let push_constants = plan.push_constants.as_ref().map(|pc| {
        serde_json::json!({
            "size": pc.size,
            // WGSL and MSL size a struct by rounding its end up to its alignment (what WebGPU reserves for
            // immediates); an HLSL constant buffer takes whole 16-byte registers; GL and Vulkan the std430 end.
            "target_sizes": {
                "vulkan": pc.size, "gl": pc.size, "wgsl": pc.twin_size(), "msl": pc.twin_size(),
                "hlsl": pc.size.next_multiple_of(16),
            },
            "spilled_to": pc.spill.map(|s| serde_json::json!({ "set": s.set, "binding": s.binding })),
            // Where the WGSL file reads the block: immediates, or a storage buffer where not every WebGPU
            // implementation's immediates hold it (`cross::immediates`).
            "wgsl_reads_from": if pc.spill.is_some() {
                serde_json::json!("spilled_to")
            } else if crate::cross::immediates::wgsl_reads_from_buffer(pc) {
                let (group, binding) = crate::cross::immediates::WGSL_BUFFER_PLACE;
                serde_json::json!({ "storage_buffer": { "group": group, "binding": binding } })
            } else {
                serde_json::json!("immediates")
            },
        })
    });
    serde_json::json!({
        "vertex_inputs": plan.vertex_attributes,
        // The interleaved buffers as the declaration lays them out: a struct's offsets and size where the inputs
        // were declared from one (`vertex_struct`), else packed in location order (a typed fetch of a struct padded
        // past that reads it with the struct's stride).
        "vertex_buffers": plan.vertex_buffers(shader_info::VertexArrangement::Interleaved),
        "color_targets": plan.color_targets,
        "render_state": plan.render_state,
        "bindings": bindings,
        "push_constants": push_constants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grouping is a stable sort by stage: no job lost, none repeated, each stage's jobs in their order.
    #[test]
    fn jobs_are_grouped_by_stage_in_their_order() {
        let stages = [
            Stage::Fragment,
            Stage::Vertex,
            Stage::Compute,
            Stage::Geometry,
        ];
        let items: Vec<(usize, Stage)> =
            (0..40).map(|i| (i, stages[(i * 7 + i / 3) % 4])).collect();
        let mut expected = items.clone();
        expected.sort_by_key(|(_, stage)| *stage);
        assert_eq!(by_stage(items, |(_, stage)| *stage), expected);
        assert!(by_stage(Vec::<(usize, Stage)>::new(), |(_, s)| *s).is_empty());
    }

    #[test]
    fn merging_no_part_is_an_error_not_an_empty_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("merged");
        assert!(merge_outputs(&[], &out).unwrap_err().contains("no part"));
        assert!(!out.exists());
    }

    #[test]
    fn a_shard_past_the_count_is_a_failure_not_an_empty_build() {
        let dir = tempfile::tempdir().unwrap();
        let compiler = crate::compiler::Compiler::new(dir.path()).unwrap();
        let loader = shader_info::DirLoader::new(dir.path());
        let opts = BuildOptions {
            shard: Some(Shard { index: 2, count: 2 }),
            ..BuildOptions::default()
        };
        let report = build(&Registry::new(), &compiler, &loader, &opts, &|_| {});
        assert!(!report.success());
        assert!(
            report
                .render_failures()
                .contains("shard 2 of 2 does not exist"),
            "{}",
            report.render_failures()
        );
        // Split too finely: refused, not a part table of `usize::MAX` entries (an abort).
        let opts = BuildOptions {
            shard: Some(Shard {
                index: 0,
                count: usize::MAX,
            }),
            ..BuildOptions::default()
        };
        let report = build(&Registry::new(), &compiler, &loader, &opts, &|_| {});
        assert!(report.render_failures().contains("at most 4096"));
        let parsed = "1/1000000000000".parse::<Shard>().unwrap_err();
        assert!(parsed.contains("more than 4096 parts"), "{parsed}");
        assert_eq!("4096/4096".parse::<Shard>().map(|s| s.index), Ok(4095));
    }
}
