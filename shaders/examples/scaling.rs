//! How the static pass scales with cores, and what it costs over the compiler, both profiles, in one run: for 1, 2, 4,
//! … N jobs, the pass over the library (a fresh compiler each time: every module compiles) next to plain shaderc
//! compiling the same generated sources, grouped by stage as the pass groups them, from as many threads (one shared
//! `shaderc::Compiler`, includes from memory: no project code at all), with modules/s, speed-up, efficiency per core,
//! the overhead ratio (of the medians, and run by run with the middle half of the runs), where the pass's time went
//! (summed over threads), and the pass's own work alone (a pass whose every compile is a cache hit: seconds, and its
//! share of the pass). The machines this runs on are shared and noisy: each row runs the pass and plain shaderc once
//! untimed, then in turn `--runs` times (default 5), and prints the medians with the range (min–max) of each and of the
//! pass/shaderc ratio taken run by run. The lead and tail columns say how much of each run's wall time no compile
//! ran in: before the first and after the last (medians, milliseconds), for the pass and for plain shaderc.
//!
//! `cargo run --release -p shaders --example scaling [-- debug|release] [--max-jobs N | --jobs 1,16] [--runs N] [--root DIR]`

// As shader-builder runs the pass (see its `main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "support/timed_pass.rs"]
mod timed_pass;

use gpu::compiler::{Compiler, Profile};
use gpu::flow::Flow;
use rayon::prelude::*;
use shader_info::{DirLoader, GeneratedStage, Registry, Stage};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;
use timed_pass::{timed_pass, timed_pass_with};

/// Every module the pass compiles, generated beforehand.
fn generated_modules(flow: &Flow) -> Vec<GeneratedStage> {
    let mut out = Vec::new();
    for info in flow.registry.infos().filter(|i| i.do_static_compilation) {
        let v = flow.validated(&info.name).expect("the library validates");
        let variants = match flow.expand(&v).expect("variants") {
            None => vec![v],
            Some((_, variants)) => variants.into_iter().flatten().collect(),
        };
        for v in &variants {
            for stage in v.stages() {
                out.push(flow.generate(v, stage).expect("generates"));
            }
        }
    }
    // The pass compiles each distinct unit once (variants whose generated source is the same share it): plain
    // shaderc gets the same unique units, so the two compare like with like.
    let mut seen = std::collections::HashSet::new();
    out.retain(|g| seen.insert((g.stage, g.source.clone(), g.files.last().cloned())));
    // Grouped by stage (stable), as the pass groups its compiles: on the 2-core VM the order alone moved plain
    // shaderc by 3–10 %, which a baseline in generation order would have counted against the pass.
    out.sort_by_key(|g| g.stage);
    out
}

/// Every file under `root`, by root-relative path.
fn files(root: &Path, dir: &Path, out: &mut HashMap<String, String>) {
    for e in std::fs::read_dir(dir).expect("read the shader root") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            files(root, &p, out);
        } else if let Ok(text) = std::fs::read_to_string(&p) {
            let rel = p
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, text);
        }
    }
}

fn kind(stage: Stage) -> shaderc::ShaderKind {
    match stage {
        Stage::Vertex => shaderc::ShaderKind::Vertex,
        Stage::Fragment => shaderc::ShaderKind::Fragment,
        Stage::Compute => shaderc::ShaderKind::Compute,
        Stage::Geometry => shaderc::ShaderKind::Geometry,
        Stage::RayGen => shaderc::ShaderKind::RayGeneration,
        Stage::Miss => shaderc::ShaderKind::Miss,
        Stage::ClosestHit => shaderc::ShaderKind::ClosestHit,
        Stage::AnyHit => shaderc::ShaderKind::AnyHit,
        Stage::Intersection => shaderc::ShaderKind::Intersection,
        Stage::Callable => shaderc::ShaderKind::Callable,
        Stage::TessControl => shaderc::ShaderKind::TessControl,
        Stage::TessEvaluation => shaderc::ShaderKind::TessEvaluation,
    }
}

/// Plain shaderc over `modules` from `jobs` threads: seconds, and the span its compiles ran in as the pass reports
/// its jobs' ([`Span`]).
fn plain_shaderc(
    modules: &[GeneratedStage],
    files: &HashMap<String, String>,
    profile: Profile,
    jobs: usize,
) -> (f64, Span) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let compiler = shaderc::Compiler::new().expect("shaderc");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("pool");
    let (first, last, summed) = (
        AtomicU64::new(u64::MAX),
        AtomicU64::new(0),
        AtomicU64::new(0),
    );
    let t = Instant::now();
    pool.install(|| {
        modules.par_iter().for_each(|g| {
            let began = t.elapsed().as_nanos() as u64;
            first.fetch_min(began, Ordering::Relaxed);
            let mut o = shaderc::CompileOptions::new().expect("options");
            o.set_target_env(
                shaderc::TargetEnv::Vulkan,
                shaderc::EnvVersion::Vulkan1_3 as u32,
            );
            o.set_target_spirv(shaderc::SpirvVersion::V1_5);
            if profile == Profile::Release {
                o.set_optimization_level(shaderc::OptimizationLevel::Performance);
            } else {
                o.set_optimization_level(shaderc::OptimizationLevel::Zero);
                o.set_generate_debug_info();
            }
            o.set_include_callback(|req, _, from, _| {
                let dir = Path::new(from).parent().unwrap_or(Path::new(""));
                let joined = dir.join(req).to_string_lossy().replace('\\', "/");
                let mut parts: Vec<&str> = Vec::new();
                for p in joined.split('/') {
                    match p {
                        ".." => {
                            parts.pop();
                        }
                        "." | "" => {}
                        p => parts.push(p),
                    }
                }
                let name = parts.join("/");
                let content = files
                    .get(&name)
                    .or_else(|| files.get(req))
                    .cloned()
                    .ok_or(name.clone())?;
                Ok(shaderc::ResolvedInclude {
                    resolved_name: name,
                    content,
                })
            });
            // The generated text's relative includes start at its stage source's folder.
            let name = g.files.last().cloned().unwrap_or_else(|| g.name.clone());
            compiler
                .compile_into_spirv(&g.source, kind(g.stage), &name, "main", Some(&o))
                .unwrap_or_else(|e| panic!("{}: {e}", g.name));
            let ended = t.elapsed().as_nanos() as u64;
            last.fetch_max(ended, Ordering::Relaxed);
            summed.fetch_add(ended - began, Ordering::Relaxed);
        })
    });
    let secs = t.elapsed().as_secs_f64();
    let at = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64 * 1e-9;
    (
        secs,
        Span {
            lead: at(&first),
            tail: secs - at(&last),
            summed: at(&summed),
        },
    )
}

/// The part of a run no compile ran in: from its start to the first compile (the pass: to its first job), and from
/// the last compile's end to its end; and the compiles' (the pass: its jobs') time summed over threads. The rest of
/// the gap between the pass and plain shaderc is in the middle, on threads that were not compiling.
#[derive(Clone, Copy, Default)]
struct Span {
    lead: f64,
    tail: f64,
    summed: f64,
}

impl Span {
    fn of(report: &gpu::builder::BuildReport) -> Span {
        let p = report.phases;
        Span {
            lead: p.first_job,
            tail: report.seconds - p.last_job,
            summed: p.jobs,
        }
    }
}

/// The median lead and tail of `spans`, in milliseconds, and their summed compile time in seconds.
fn lead_tail(spans: &[Span]) -> String {
    let of = |f: fn(&Span) -> f64| median(&mut spans.iter().map(f).collect::<Vec<f64>>());
    format!(
        "{:.1}/{:.1} {:.2}",
        1e3 * of(|s| s.lead),
        1e3 * of(|s| s.tail),
        of(|s| s.summed)
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let profiles: Vec<Profile> = match (
        args.iter().any(|a| a == "debug"),
        args.iter().any(|a| a == "release"),
    ) {
        (true, false) => vec![Profile::Debug],
        (false, true) => vec![Profile::Release],
        _ => vec![Profile::Debug, Profile::Release],
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max_jobs = args
        .iter()
        .position(|a| a == "--max-jobs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(cores);
    let mut jobs_list = vec![1];
    while jobs_list.last().copied().unwrap_or(1) * 2 <= max_jobs {
        jobs_list.push(jobs_list.last().copied().unwrap_or(1) * 2);
    }
    if *jobs_list.last().unwrap_or(&1) != max_jobs {
        jobs_list.push(max_jobs);
    }
    // `--jobs 16` or `--jobs 1,16`: only these rows (a release row at 1 job takes seconds a run); speed-ups are
    // then relative to the first row.
    if let Some(list) = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
    {
        jobs_list = list
            .split(',')
            .map(|j| {
                j.trim()
                    .parse()
                    .expect("--jobs takes a comma-separated list of counts")
            })
            .collect();
    }
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(5)
        .max(1);
    let root = args
        .iter()
        .position(|a| a == "--root")
        .and_then(|i| args.get(i + 1))
        .map_or_else(shaders::glsl_root, std::path::PathBuf::from);
    let registry = Registry::global();
    let loader = DirLoader::new(&root);
    let mut sources = HashMap::new();
    files(&root, &root, &mut sources);
    println!("{cores} cores");
    for profile in profiles {
        let compiler = Compiler::new(&root).expect("compiler");
        let modules = generated_modules(&Flow::new(registry, &loader, &compiler, profile));
        println!(
            "\nprofile {profile:?}, {} unique modules (plain shaderc compiles these; the pass, every variant's)",
            modules.len()
        );
        println!(
            "{:>4} {:>20} {:>9} {:>7} {:>6} {:>20} {:>7} {:>18} {:>16} {:>15} {:>31} | summed over threads: {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "jobs",
            "pass s (range)",
            "modules/s",
            "speedup",
            "eff",
            "shaderc s (range)",
            "speedup",
            "overhead (range)",
            "run by run [IQR]",
            "own work",
            "lead/tail ms, summed s: pass; sc",
            "jobs",
            "gen",
            "compile",
            "shaderc",
            "waited",
            "reflect",
            "check"
        );
        let (mut base, mut raw_base) = (0.0, 0.0);
        for &jobs in &jobs_list {
            // In turn, so that a drift of the machine's speed touches both alike.
            let mut pass = Vec::new();
            let mut plain = Vec::new();
            let mut ratios = Vec::new();
            let (mut pass_spans, mut plain_spans) = (Vec::new(), Vec::new());
            let mut report = None;
            // One untimed round first: the first run on a fresh machine took up to three times the others (page
            // cache, thread start-up, CPU clocks), which skewed the range of both.
            plain_shaderc(&modules, &sources, profile, jobs);
            timed_pass(registry, &root, &loader, profile, jobs);
            for _ in 0..runs {
                let (raw, span) = plain_shaderc(&modules, &sources, profile, jobs);
                let (secs, r) = timed_pass(registry, &root, &loader, profile, jobs);
                plain_spans.push(span);
                pass_spans.push(Span::of(&r));
                pass.push(secs);
                plain.push(raw);
                ratios.push(secs / raw);
                report = Some(r);
            }
            let report = report.expect("at least one run");
            let own = hot_pass(registry, &root, &loader, profile, jobs, runs);
            let (secs, raw) = (median(&mut pass), median(&mut plain));
            if jobs == jobs_list[0] {
                (base, raw_base) = (secs, raw);
            }
            let ph = report.phases;
            println!(
                "{jobs:>4} {:>20} {:>9.0} {:>6.2}x {:>6.2} {:>20} {:>6.2}x {:>18} {:>16} {:>15} {:>31} | {:>28.2} {:>6.2} {:>6.2} {:>7.2} {:>6.2} {:>7.2} {:>6.2}",
                spread(secs, &pass, "", 3),
                report.modules as f64 / secs,
                base / secs,
                base / secs / jobs as f64,
                spread(raw, &plain, "", 3),
                raw_base / raw,
                spread(secs / raw, &ratios, "x", 2),
                quartiles(&mut ratios),
                format!("{own:.4}s ({:.0} %)", 100.0 * own / secs),
                format!("{}; {}", lead_tail(&pass_spans), lead_tail(&plain_spans)),
                ph.jobs,
                ph.flow.generate,
                ph.flow.compile,
                ph.shaderc,
                ph.waited,
                ph.flow.reflect,
                ph.flow.cross_check,
            );
        }
    }
}

/// The pass's own work alone, at `jobs` threads: the median wall time of `runs` passes whose every compile is a
/// cache hit (a compiler that an identical pass filled first), so what is left is validation, expansion,
/// generation, cache lookups, checks and reports.
fn hot_pass(
    registry: &Registry,
    root: &Path,
    loader: &DirLoader,
    profile: Profile,
    jobs: usize,
    runs: usize,
) -> f64 {
    let compiler = Compiler::new(root).expect("compiler");
    let mut times: Vec<f64> = (0..=runs)
        .map(|_| timed_pass_with(registry, &compiler, loader, profile, jobs).0)
        .skip(1)
        .collect();
    median(&mut times)
}

/// The median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The median of `v` with its middle half, `m [q1–q3]`: a shared machine's outliers (runs at twice the others)
/// move the range of a ratio but not these.
fn quartiles(v: &mut [f64]) -> String {
    let m = median(v);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!("{m:.2}x [{:.2}–{:.2}]", at(0.25), at(0.75))
}

/// `m (min–max)`.
fn spread(m: f64, v: &[f64], unit: &str, digits: usize) -> String {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{m:.digits$}{unit} ({min:.digits$}–{max:.digits$})")
}
