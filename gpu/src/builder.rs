//! The static-compilation pass: every info marked `do_static_compilation` is resolved, validated, generated,
//! compiled and cross-checked against its reflection, in parallel; every other info is resolved and validated.
//! The `shader-builder` command line and the `shader_builder` test target both run this.

use crate::compiler::{Compiler, Profile};
use crate::reflect::{Mismatch, ModuleReflection, cross_check, reflect, rust_twin_mismatches};
use rayon::prelude::*;
use serde::Serialize;
use shader_info::{
    DEFAULT_BRANCH_LIMIT, GenerateOptions, Registry, ResolvedInfo, ShaderCreateInfo, SourceLoader,
    Stage, ValidateOptions, VariantSet, enumerate_variants, generate, validate,
};
use std::path::PathBuf;
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

/// One failure: which info, which stage (none for declaration problems), and the rendered diagnostics.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub info: String,
    pub stage: Option<String>,
    pub diagnostics: Vec<String>,
}

/// One compiled module.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleReport {
    pub info: String,
    pub stage: String,
    /// The unique variant this module belongs to, for infos with branches.
    pub variant: Option<usize>,
    /// Hash of the SPIR-V words, to count identical modules.
    pub spirv_hash: u64,
    pub spirv_bytes: usize,
    pub seconds: f64,
    #[serde(skip)]
    pub reflection: ModuleReflection,
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
        let mut s = String::new();
        for f in &self.failed {
            for d in &f.diagnostics {
                s.push_str(d.trim_end());
                s.push_str("\n\n");
            }
        }
        s
    }
}

/// One module to compile: a stage of an info (or of one unique variant of it).
struct Job {
    info: ResolvedInfo,
    variant: Option<usize>,
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
    compiler: &Compiler,
    loader: &dyn SourceLoader,
    opts: &BuildOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> BuildReport {
    let start = Instant::now();
    let selected: Vec<&ShaderCreateInfo> = registry
        .infos()
        .filter(|i| opts.filter.as_deref().is_none_or(|f| i.name.starts_with(f)))
        .collect();

    // Phase 1: resolve and validate every selected info (cheap, sequential, deterministic order).
    let mut failed: Vec<Failure> = registry
        .problems()
        .iter()
        .map(|d| Failure {
            info: d.info.clone(),
            stage: None,
            diagnostics: vec![d.to_string()],
        })
        .collect();
    let mut resolved: Vec<(&ShaderCreateInfo, Option<ResolvedInfo>)> = Vec::new();
    for info in &selected {
        let outcome = registry
            .resolve(&info.name)
            .map_err(|d| d.iter().map(ToString::to_string).collect::<Vec<_>>());
        let outcome = outcome.and_then(|r| {
            let vo = ValidateOptions {
                structs: registry,
                extra_type_names: &[],
                require_complete: info.do_static_compilation,
            };
            let diags = validate(&r, &vo);
            // Rust twins of the shared structs the buffers use: once per info, whatever its stages.
            let rust = rust_twin_mismatches(registry, &r);
            if diags.iter().any(|d| d.is_error()) || !rust.is_empty() {
                let mut all: Vec<String> = diags.iter().map(ToString::to_string).collect();
                all.extend(rust.iter().map(Mismatch::to_string));
                Err(all)
            } else {
                Ok(r)
            }
        });
        match outcome {
            Ok(r) => resolved.push((info, Some(r))),
            Err(diagnostics) => {
                failed.push(Failure {
                    info: info.name.clone(),
                    stage: None,
                    diagnostics,
                });
                resolved.push((info, None));
            }
        }
        progress(&info.name);
    }

    // Phase 2: expand variants (only the unique ones after specialize), then compile every stage of every
    // variant of every valid compilable info, in parallel.
    let mut variant_sets: Vec<(String, VariantSet, Vec<ResolvedInfo>)> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for (info, r) in &resolved {
        let Some(r) = r.as_ref().filter(|_| info.do_static_compilation) else {
            continue;
        };
        if r.branches.is_empty() {
            jobs.extend(r.stages().into_iter().map(|stage| Job {
                info: r.clone(),
                variant: None,
                stage,
            }));
            continue;
        }
        match enumerate_variants(r, opts.branch_limit) {
            Ok(set) => {
                let infos: Vec<ResolvedInfo> = set
                    .variants
                    .iter()
                    .map(|v| v.apply(r, &set.branches))
                    .collect();
                // The specialize function may swap sources or add defines: check each variant like an info.
                let vo = ValidateOptions {
                    structs: registry,
                    extra_type_names: &[],
                    require_complete: true,
                };
                for (i, vinfo) in infos.iter().enumerate() {
                    let diags: Vec<String> = validate(vinfo, &vo)
                        .iter()
                        .filter(|d| d.is_error())
                        .map(ToString::to_string)
                        .collect();
                    if !diags.is_empty() {
                        failed.push(Failure {
                            info: info.name.clone(),
                            stage: Some(format!(
                                "variant {i} {}",
                                set.describe(vinfo_bits(&set, i))
                            )),
                            diagnostics: diags,
                        });
                        continue;
                    }
                    jobs.extend(vinfo.stages().into_iter().map(|stage| Job {
                        info: vinfo.clone(),
                        variant: Some(i),
                        stage,
                    }));
                }
                variant_sets.push((info.name.clone(), set, infos));
            }
            Err(d) => failed.push(Failure {
                info: info.name.clone(),
                stage: None,
                diagnostics: d.iter().map(ToString::to_string).collect(),
            }),
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build();
    let run = || -> Vec<Result<ModuleReport, Failure>> {
        jobs.par_iter()
            .map(|job| {
                let out = compile_one(registry, compiler, loader, opts, job);
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

    let infos: Vec<InfoReport> = resolved
        .iter()
        .map(|(info, r)| {
            let stages: Vec<String> = r
                .as_ref()
                .map(|r| r.stages())
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
            let variants =
                variant_sets
                    .iter()
                    .find(|(n, ..)| *n == info.name)
                    .map(|(_, set, _)| {
                        let mut hashes: Vec<u64> = modules
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

/// The folded branch values of variant `i`.
fn vinfo_bits(set: &VariantSet, i: usize) -> u64 {
    set.variants.get(i).map_or(0, |v| v.bits)
}

fn compile_one(
    registry: &Registry,
    compiler: &Compiler,
    loader: &dyn SourceLoader,
    opts: &BuildOptions,
    job: &Job,
) -> Result<ModuleReport, Failure> {
    let (info, stage) = (&job.info, job.stage);
    let t = Instant::now();
    let label = match job.variant {
        Some(v) => format!("{} variant {v}", stage.short_name()),
        None => stage.short_name().to_string(),
    };
    let fail = |diagnostics: Vec<String>| Failure {
        info: info.name.clone(),
        stage: Some(label.clone()),
        diagnostics,
    };
    let gopts = GenerateOptions {
        loader,
        registry,
        extra_defines: &[],
    };
    let generated = generate(info, stage, &gopts)
        .map_err(|d| fail(d.iter().map(ToString::to_string).collect()))?;
    let module = compiler
        .compile_generated(&generated, opts.profile)
        .map_err(|e| fail(vec![e.to_string()]))?;
    let reflection = reflect(&module.spirv)
        .map_err(|e| fail(vec![format!("error[reflection]: {}: {e}", info.name)]))?;
    let mismatches = cross_check(&reflection, info, stage, registry);
    if !mismatches.is_empty() {
        return Err(fail(mismatches.iter().map(Mismatch::to_string).collect()));
    }
    if let Some(dir) = &opts.out_dir {
        let base = match job.variant {
            Some(v) => format!("{}.v{v}.{}", info.name, stage.short_name()),
            None => format!("{}.{}", info.name, stage.short_name()),
        };
        let bytes: Vec<u8> = module.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
        let json = serde_json::to_string_pretty(&reflection).unwrap_or_default();
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join(format!("{base}.spv")), &bytes))
            .and_then(|_| std::fs::write(dir.join(format!("{base}.glsl")), &generated.source))
            .and_then(|_| std::fs::write(dir.join(format!("{base}.json")), json));
        if let Err(e) = written {
            return Err(fail(vec![format!(
                "error: cannot write to `{}`: {e}",
                dir.display()
            )]));
        }
    }
    Ok(ModuleReport {
        info: info.name.clone(),
        stage: stage.short_name().to_string(),
        variant: job.variant,
        spirv_hash: crate::vk::module::spirv_hash(&module.spirv),
        spirv_bytes: module.spirv.len() * 4,
        seconds: t.elapsed().as_secs_f64(),
        reflection,
    })
}
