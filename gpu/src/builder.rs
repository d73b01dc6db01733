//! The static-compilation pass: every info marked `do_static_compilation` is resolved, validated, generated,
//! compiled and cross-checked against its reflection, in parallel; every other info is resolved and validated.
//! The `shader-builder` command line and the `shader_builder` test target both run this.

use crate::compiler::Profile;
use crate::flow::{Flow, StageCompiler};
use crate::reflect::ModuleReflection;
use rayon::prelude::*;
use serde::Serialize;
use shader_info::{
    Code, DEFAULT_BRANCH_LIMIT, Diagnostic, Registry, ShaderCreateInfo, SourceLoader, Stage,
    ValidatedInfo, VariantSet,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

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
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            filter: None,
            profile: Profile::Debug,
            jobs: 1,
            out_dir: None,
            branch_limit: DEFAULT_BRANCH_LIMIT,
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
}

/// The outcome for one info.
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, Serialize)]
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
    #[serde(skip)]
    pub module_reports: Vec<ModuleReport>,
}

impl BuildReport {
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
    info: ValidatedInfo,
    stage: Stage,
}

/// Runs the pass over `registry`.
///
/// `progress` is called once per finished job (an info's declaration check or one module) with a short label.
///
/// ```no_run
/// use gpu::builder::{build, BuildOptions};
/// use gpu::compiler::Compiler;
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
    let mut flow = Flow::new(registry, loader, compiler, opts.profile);
    flow.branch_limit = opts.branch_limit;
    let selected: Vec<&ShaderCreateInfo> = registry
        .infos()
        .filter(|i| opts.filter.as_deref().is_none_or(|f| i.name.starts_with(f)))
        .collect();

    // Phase 1: resolve and validate every selected info (cheap, sequential, deterministic order); building blocks
    // are checked without the completeness rules.
    let mut failed: Vec<Failure> = registry
        .problems()
        .iter()
        .map(|d| Failure::new(&d.info, None, vec![d.clone()]))
        .collect();
    let mut validated: Vec<(&ShaderCreateInfo, Option<ValidatedInfo>)> = Vec::new();
    for info in &selected {
        match flow.validate(&info.name, info.do_static_compilation) {
            Ok(v) => validated.push((info, Some(v))),
            Err(diagnostics) => {
                failed.push(Failure::new(&info.name, None, diagnostics));
                validated.push((info, None));
            }
        }
        progress(&info.name);
    }

    // Phase 2: expand variants (only the unique ones after specialize, each validated again), then run every
    // stage of every variant of every valid compilable info through the flow, in parallel.
    let mut variant_sets: Vec<(String, VariantSet)> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for (info, v) in &validated {
        let Some(v) = v.as_ref().filter(|_| info.do_static_compilation) else {
            continue;
        };
        match flow.expand(v) {
            Ok(None) => jobs.extend(v.stages().into_iter().map(|stage| Job {
                info: v.clone(),
                stage,
            })),
            Ok(Some((set, variants))) => {
                for (i, variant) in variants.into_iter().enumerate() {
                    match variant {
                        Ok(vinfo) => jobs.extend(vinfo.stages().into_iter().map(|stage| Job {
                            info: vinfo.clone(),
                            stage,
                        })),
                        Err(d) => {
                            failed.push(Failure::new(&info.name, Some(format!("variant {i}")), d))
                        }
                    }
                }
                variant_sets.push((info.name.clone(), set));
            }
            Err(d) => failed.push(Failure::new(&info.name, None, d)),
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build();
    let run = || -> Vec<Result<ModuleReport, Failure>> {
        jobs.par_iter()
            .map(|job| {
                let out = compile_one(&flow, opts, job);
                progress(&format!("{} {}", job.info.name, job.stage.short_name()));
                out
            })
            .collect()
    };
    let results = match &pool {
        Ok(p) => p.install(run),
        Err(_) => run(),
    };

    let mut modules = Vec::new();
    for r in results {
        match r {
            Ok(m) => modules.push(m),
            Err(f) => failed.push(f),
        }
    }

    let infos: Vec<InfoReport> = validated
        .iter()
        .map(|(info, v)| {
            let stages: Vec<String> = v
                .as_ref()
                .map(|v| v.stages())
                .unwrap_or_else(|| info.stages())
                .iter()
                .map(|s| s.short_name().to_string())
                .collect();
            let passed = !failed.iter().any(|f| f.info == info.name);
            let seconds = modules
                .iter()
                .filter(|m| m.info == info.name)
                .map(|m| m.seconds)
                .sum();
            let variants = variant_sets
                .iter()
                .find(|(n, _)| *n == info.name)
                .map(|(_, set)| {
                    let mut hashes: Vec<u128> = modules
                        .iter()
                        .filter(|m| m.info == info.name)
                        .map(|m| m.spirv_hash)
                        .collect();
                    hashes.sort_unstable();
                    hashes.dedup();
                    VariantStats {
                        branches: set.branches.clone(),
                        permutations: set.permutations(),
                        unique_variants: set.variants.len(),
                        unique_spirv: hashes.len(),
                    }
                });
            InfoReport {
                name: info.name.clone(),
                compilable: info.do_static_compilation,
                stages,
                passed,
                seconds,
                variants,
            }
        })
        .collect();
    let compilable: Vec<&InfoReport> = infos.iter().filter(|i| i.compilable).collect();
    BuildReport {
        infos_total: compilable.len(),
        infos_passed: compilable.iter().filter(|i| i.passed).count(),
        modules: modules.len(),
        seconds: start.elapsed().as_secs_f64(),
        failed,
        infos,
        module_reports: modules,
    }
}

fn compile_one(flow: &Flow, opts: &BuildOptions, job: &Job) -> Result<ModuleReport, Failure> {
    let (info, stage) = (&job.info, job.stage);
    let t = Instant::now();
    let label = match info.variant_index() {
        Some(v) => format!("{} variant {v}", stage.short_name()),
        None => stage.short_name().to_string(),
    };
    let checked = flow
        .compile(info, stage)
        .map_err(|d| Failure::new(&info.name, Some(label.clone()), d))?;
    if let Some(dir) = &opts.out_dir {
        let base = match info.variant_index() {
            Some(v) => format!("{}.v{v}.{}", info.name, stage.short_name()),
            None => format!("{}.{}", info.name, stage.short_name()),
        };
        let bytes: &[u8] = bytemuck::cast_slice(&checked.module.spirv);
        let json = serde_json::to_string_pretty(&*checked.reflection).unwrap_or_default();
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join(format!("{base}.spv")), bytes))
            .and_then(|_| {
                std::fs::write(dir.join(format!("{base}.glsl")), &checked.generated.source)
            })
            .and_then(|_| std::fs::write(dir.join(format!("{base}.json")), json));
        if let Err(e) = written {
            return Err(Failure::new(
                &info.name,
                Some(label),
                vec![
                    Diagnostic::error(
                        Code::Io,
                        &info.name,
                        format!("cannot write to `{}`: {e}", dir.display()),
                    )
                    .stage(stage)
                    .hint("check the output directory is writable and the disk has room"),
                ],
            ));
        }
    }
    Ok(ModuleReport {
        info: info.name.clone(),
        stage: stage.short_name().to_string(),
        variant: info.variant_index(),
        spirv_hash: crate::flow::spirv_key(&checked.module.spirv),
        spirv_bytes: checked.module.spirv.len() * 4,
        seconds: t.elapsed().as_secs_f64(),
        reflection: checked.reflection,
    })
}
