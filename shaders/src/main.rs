//! `shader-builder`: lists, shows and statically compiles the shader library, creates its Vulkan pipelines and
//! renders a demo frame with them, and watches the sources for hot reload.
//!
//! ```text
//! shader-builder list
//! shader-builder show gpu_shader_text --stage frag
//! shader-builder show gpu_shader_text --stage frag --target wgsl
//! shader-builder build --profile release --jobs 2 --out out/spv --json
//! shader-builder build --target wgsl,msl,hlsl,gl,gles --out out/cross
//! shader-builder render --out out/frame.png --size 1280x720 --json
//! shader-builder render --backend wgpu --out out/frame-wgpu.png
//! shader-builder watch --timeout 60
//! shader-builder compare a.png b.png
//! ```
//! With no subcommand it runs the main job: `build --target all` of the whole library, then
//! `render --out out/frame.png` (skipped, with the reason, where this machine has no Vulkan).

use clap::{Parser, Subcommand, ValueEnum};
use gpu::builder::{BuildOptions, BuildReport, build};
use gpu::compiler::{Compiler, CompilerOptions, IncludeSearch, Profile};
use gpu::cross::{CrossOptions, Target, Verdict, VerdictKind, translate_module};
use gpu::disk_cache::DiskCache;
use gpu::flow::Flow;
use indicatif::{ProgressBar, ProgressStyle};
use shader_info::{
    Code, DEFAULT_BRANCH_LIMIT, Diagnostic, DirLoader, Registry, Stage, ValidatedInfo, render_all,
};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

// The static pass allocates on every thread (generated text, reflection, reports): at 16 jobs, glibc's allocator
// put its own time at 1.21x plain shaderc's against 1.14x with mimalloc (H100, debug, `examples/scaling`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "shader-builder",
    version,
    about = "Compile and check every shader of the library"
)]
struct Cli {
    /// Root of the GLSL sources (defaults to the library's own `glsl/`).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    /// An include directory, relative to the root, searched after it (repeatable, like glslc's `-I`).
    #[arg(short = 'I', long = "include-dir", global = true)]
    include_dirs: Vec<String>,
    /// Seed 000's include rule: `"x"` only next to the including file, `<x>` only from the root (no include
    /// directories: the rule searches none).
    #[arg(long, global = true, conflicts_with = "include_dirs")]
    strict_includes: bool,
    /// The persistent shader cache (modules, reflection, translations); default `shader-cache` in cargo's target
    /// directory when this binary was built there (or `$CARGO_TARGET_DIR/shader-cache`), else the platform cache
    /// directory (`~/.cache/shader-builder/shaders`).
    #[arg(long, global = true, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Compile everything, reading and writing no persistent cache.
    #[arg(long, global = true, conflicts_with = "cache")]
    no_cache: bool,
    /// A shared cache in object storage behind the local one (`s3://bucket/prefix`, `gs://…`, `az://…`,
    /// `file:///…`; credentials and endpoint from the usual `AWS_*`, `GOOGLE_*`, `AZURE_*` variables). It holds one
    /// pack per command (the entries the command used): pulled before the command in one request, pushed after it
    /// when it compiled anything. An unreachable store is said once and the command goes on locally.
    #[arg(long, global = true, value_name = "URL", conflicts_with = "no_cache")]
    remote_cache: Option<String>,
    /// Size limit of the persistent cache in MiB; the least recently used entries are evicted past it.
    #[arg(long, global = true, default_value_t = 1024, value_parser = cache_limit)]
    cache_limit_mib: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// One line per registered info: name, stages, compilable or not.
    List,
    /// Print the generated source of one stage of an info.
    Show {
        name: String,
        #[arg(long)]
        stage: Stage,
        /// A permutation of the info's static branches, one bit per branch (e.g. `0b101` or `5`).
        #[arg(long)]
        variant: Option<String>,
        /// Print the translation to this target (wgsl, msl, hlsl, gl, gles) instead of the Vulkan GLSL.
        #[arg(long)]
        target: Option<Target>,
    },
    /// The static pass: compile and cross-check every compilable info.
    Build(BuildArgs),
    /// Create a pipeline for every info on a Vulkan device (through ash or wgpu) and render the demo frame to a PNG.
    Render(RenderArgs),
    /// Compile (and create pipelines where a device exists), then recompile on every source change.
    Watch(WatchArgs),
    /// Merge the output directories of `build --shard I/N` runs into one, as one full run would have written it
    /// (a file two shards both wrote must be identical).
    Merge {
        /// The merged output directory.
        #[arg(long)]
        out: PathBuf,
        /// The shards' `--out` directories.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
    },
    /// Compare two PNGs pixel by pixel (max and mean absolute difference); exits non-zero when more pixels differ
    /// by more than the tolerance than `--max-differing` allows.
    Compare {
        a: PathBuf,
        b: PathBuf,
        /// Channel difference above which a pixel counts as differing.
        #[arg(long, default_value_t = 2)]
        tolerance: u8,
        /// The share of pixels, in percent, that may differ by more than the tolerance.
        #[arg(long, default_value_t = 0.0, value_parser = percent)]
        max_differing: f64,
    },
}

#[derive(clap::Args)]
struct RenderArgs {
    /// Where to write the PNG.
    #[arg(long, default_value = "out/frame.png")]
    out: PathBuf,
    /// Frame size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = shaders::demo::parse_size)]
    size: (u32, u32),
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
    /// The API to render with: Vulkan through ash, or wgpu (from the WGSL translations).
    #[arg(long, value_enum, default_value_t = shaders::demo::run::Backend::Vulkan)]
    backend: shaders::demo::run::Backend,
    /// Load the pipeline cache from this directory before creating the pipelines, and save it there afterwards
    /// (Vulkan: one file per device and driver; wgpu: its own; a damaged or foreign file is refused and reported).
    #[arg(long)]
    pipeline_cache: Option<PathBuf>,
}

impl Default for RenderArgs {
    fn default() -> Self {
        RenderArgs {
            out: PathBuf::from("out/frame.png"),
            size: (1280, 720),
            json: false,
            backend: shaders::demo::run::Backend::Vulkan,
            pipeline_cache: None,
        }
    }
}

/// A percentage: 0 to 100.
fn percent(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a percentage (0 to 100)")),
    }
}

/// A number of seconds: finite, not negative, and a time this system can wait until (a clock of 64-bit seconds).
fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let d = match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => std::time::Duration::try_from_secs_f64(v).ok(),
        _ => return Err(format!("`{s}` is not a number of seconds (0 or more)")),
    };
    d.filter(|d| std::time::Instant::now().checked_add(*d).is_some())
        .ok_or_else(|| format!("`{s}` seconds is past what this system's clock can wait for; leave the option out to wait without end"))
}

/// How many of the shader cache's warnings `build` printed with its report (the rest are printed last).
static CACHE_WARNINGS_SAID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A debounce in milliseconds, at most a minute: a longer quiet time would leave edits unreloaded with nothing
/// said (a huge one never ends).
fn debounce_ms(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n <= 60_000 => Ok(n),
        Ok(_) => Err(format!(
            "a debounce of {s} ms would hold every reload past a minute; give at most 60000"
        )),
        Err(_) => Err(format!(
            "`{s}` is not a number of milliseconds (0 to 60000)"
        )),
    }
}

/// A cache size in MiB: 1 or more (a cache of 0 would evict every entry as it is written).
fn cache_limit(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("a cache of 0 MiB keeps nothing; use --no-cache to run without one".into()),
        Err(_) => Err(format!("`{s}` is not a number of MiB (1 or more)")),
    }
}

/// A number of worker threads: 1 or more.
fn job_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{s}` is not a number of threads (1 or more)")),
    }
}

#[derive(clap::Args)]
struct WatchArgs {
    /// Stop after the first reload.
    #[arg(long)]
    once: bool,
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(long, value_parser = seconds)]
    timeout: Option<std::time::Duration>,
    /// Quiet time after the last file event before reloading, in milliseconds (at most a minute).
    #[arg(long, default_value_t = 150, value_parser = debounce_ms)]
    debounce_ms: u64,
}

#[derive(clap::Args, Default)]
struct BuildArgs {
    /// Only infos whose name starts with this prefix.
    #[arg(long)]
    filter: Option<String>,
    #[arg(long, value_enum, default_value_t = ProfileArg::Debug)]
    profile: ProfileArg,
    /// Worker threads (default: the number of cores).
    #[arg(long, value_parser = job_count)]
    jobs: Option<usize>,
    /// Write `.spv`, generated `.glsl` and reflection `.json` per module here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Most static branches an info may have (2^N permutations are enumerated; default 20).
    #[arg(long)]
    branch_limit: Option<u32>,
    /// Translate every module to these targets too (comma-separated: wgsl, msl, hlsl, gl, gles, or all), each
    /// written beside the SPIR-V as `NAME[.vN].STAGE.{wgsl,msl,hlsl,gl.glsl,gles.glsl}`.
    #[arg(long, value_delimiter = ',')]
    target: Vec<String>,
    /// Skip the independent check of each translation (glslang, SPIRV-Tools, spirv-cross, Tint, naga's WGSL front end).
    #[arg(long)]
    no_target_check: bool,
    /// Then create every pipeline of the library on the Vulkan device, in parallel (the warm-up a renderer does
    /// before its first frame), and report the time of each and in total.
    #[arg(long)]
    pipelines: bool,
    /// With `--pipelines`: load the device's pipeline cache from this directory first and save it afterwards.
    #[arg(long, requires = "pipelines")]
    pipeline_cache: Option<PathBuf>,
    /// Build part I of N (1-based) of the modules, split deterministically and balanced by expected cost; merge
    /// the parts' `--out` directories with `shader-builder merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<gpu::builder::Shard>,
}

/// `--target` values: target names or `all`.
fn parse_targets(names: &[String]) -> Result<Vec<Target>, String> {
    let mut out = Vec::new();
    for n in names {
        let add: Vec<Target> = if n == "all" {
            Target::ALL.to_vec()
        } else {
            vec![n.parse()?]
        };
        for t in add {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum ProfileArg {
    #[default]
    Debug,
    Release,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = cli.root.unwrap_or_else(shaders::glsl_root);
    let registry = Registry::global();
    let disk_cache = if cli.no_cache {
        None
    } else {
        let dir = cli.cache.clone().unwrap_or_else(default_cache_dir);
        match DiskCache::open(&dir, cli.cache_limit_mib.saturating_mul(1 << 20)) {
            Ok(c) => match &cli.remote_cache {
                None => Some(Arc::new(c)),
                Some(url) => match gpu::remote_cache::ObjectStoreRemote::from_url(url) {
                    Ok(r) => Some(Arc::new(c.with_remote(Box::new(r)))),
                    Err(e) => {
                        eprintln!("{e}");
                        return ExitCode::FAILURE;
                    }
                },
            },
            // A cache asked for by name is not replaced by none behind the user's back.
            Err(e) if cli.cache.is_some() || cli.remote_cache.is_some() => {
                eprintln!(
                    "the shader cache `{}` cannot be used ({e}){}: fix the folder, or pass --no-cache",
                    dir.display(),
                    if cli.remote_cache.is_some() {
                        ", and the remote cache works behind it"
                    } else {
                        ""
                    }
                );
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!(
                    "warning: the shader cache `{}` cannot be used ({e}); compiling without it",
                    dir.display()
                );
                None
            }
        }
    };
    let compiler_opts = CompilerOptions {
        includes: IncludeSearch {
            include_dirs: cli.include_dirs,
            strict: cli.strict_includes,
        },
        disk_cache: disk_cache.clone(),
        ..CompilerOptions::default()
    };
    // The remote store's pack for this command: its entries before it runs (one request), and after it, the
    // entries it used when it compiled anything (see `gpu::disk_cache::pack`).
    let pack = disk_cache
        .as_ref()
        .filter(|c| c.remote().is_some())
        .and_then(|c| {
            let name = pack_name(cli.command.as_ref(), &compiler_opts.includes)?;
            Some((c.clone(), name))
        });
    if let Some((cache, name)) = &pack {
        cache.pull_pack(name);
    }
    // `build` (and the main job, which builds) says the cache's warnings itself; the other commands say them last.
    let says_cache_warnings = matches!(cli.command, Some(Command::Build(_)) | None);
    let code = match cli.command {
        Some(Command::List) => list(registry),
        Some(Command::Show {
            name,
            stage,
            variant,
            target,
        }) => show(
            registry,
            &root,
            &compiler_opts,
            &name,
            stage,
            variant.as_deref(),
            target,
        ),
        Some(Command::Build(args)) => run_build(registry, &root, &compiler_opts, &args),
        Some(Command::Render(args)) => match run_render(registry, &root, &compiler_opts, &args) {
            RenderStatus::Rendered => ExitCode::SUCCESS,
            RenderStatus::NoVulkan | RenderStatus::Failed => ExitCode::FAILURE,
        },
        Some(Command::Watch(args)) => run_watch(registry, &root, &compiler_opts, &args),
        Some(Command::Compare {
            a,
            b,
            tolerance,
            max_differing,
        }) => compare(&a, &b, tolerance, max_differing),
        Some(Command::Merge { out, shards }) => match gpu::builder::merge_outputs(&shards, &out) {
            Ok(n) => {
                println!(
                    "merged {n} files from {} shards into {}",
                    shards.len(),
                    out.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("merge: {e}");
                ExitCode::FAILURE
            }
        },
        None => main_job(registry, &root, &compiler_opts),
    };
    // What `build` said with its report; anything later (the main job's render, `--pipelines`, the push) is said
    // below.
    let said = CACHE_WARNINGS_SAID.load(std::sync::atomic::Ordering::Relaxed);
    if let Some((cache, name)) = &pack
        && code == ExitCode::SUCCESS
    {
        cache.push_pack(name);
    }
    if let Some(cache) = &disk_cache {
        // What the push said, after the report that said the rest.
        let from = if says_cache_warnings { said } else { 0 };
        for w in cache.warnings().iter().skip(from) {
            eprintln!("warning: {w}");
        }
    }
    code
}

/// The name of the remote pack of `command`: what decides the entries it uses (not where the sources or outputs
/// are: another runner's checkout is elsewhere), so every runner doing the same work shares one pack. Commands
/// that compile little (`show`) or nothing have none.
fn pack_name(command: Option<&Command>, includes: &IncludeSearch) -> Option<String> {
    let common = format!("{} {includes:?}", env!("CARGO_PKG_VERSION"));
    Some(match command {
        None => format!("{common} main"),
        Some(Command::Build(a)) => {
            // `all` and the same targets named one by one are one set.
            let mut targets = parse_targets(&a.target).ok()?;
            targets.sort_by_key(|t| format!("{t:?}"));
            format!(
                "{common} build profile={:?} targets={targets:?} checked={} filter={:?} shard={:?} \
                 branch_limit={:?}",
                a.profile, !a.no_target_check, a.filter, a.shard, a.branch_limit
            )
        }
        Some(Command::Render(a)) => format!("{common} render backend={:?}", a.backend),
        Some(Command::Watch(_)) => format!("{common} watch"),
        _ => return None,
    })
}

/// Where the persistent cache lives by default: beside cargo's outputs when this binary is one of them
/// (`$CARGO_TARGET_DIR/shader-cache`, or the `target/` holding this executable, which cargo marks with
/// `CACHEDIR.TAG`); else the platform's cache directory, as for an installed tool.
fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return DiskCache::build_dir(dir);
    }
    let target = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?.parent()?.to_path_buf();
        dir.join("CACHEDIR.TAG").is_file().then_some(dir)
    });
    match target {
        Some(t) => DiskCache::build_dir(t),
        None => {
            DiskCache::app_dir("shader-builder").unwrap_or_else(|| DiskCache::build_dir("target"))
        }
    }
}

/// `build`, then `render --out out/frame.png`. A machine without Vulkan cannot render: the job then succeeds
/// when the build did, and says so.
fn main_job(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
) -> ExitCode {
    let args = BuildArgs {
        target: vec!["all".into()],
        ..BuildArgs::default()
    };
    let built = run_build(registry, root, compiler_opts, &args) == ExitCode::SUCCESS;
    println!();
    let rendered = run_render(registry, root, compiler_opts, &RenderArgs::default());
    let ok = match rendered {
        RenderStatus::Rendered => built,
        RenderStatus::NoVulkan => {
            println!(
                "main job: render skipped (no Vulkan on this machine); the job's result is the build's: {}",
                if built { "success" } else { "failure" }
            );
            built
        }
        RenderStatus::Failed => false,
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// How `render` ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RenderStatus {
    Rendered,
    NoVulkan,
    Failed,
}

fn run_render(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
    args: &RenderArgs,
) -> RenderStatus {
    use shaders::demo::run::{GraphicsOptions, RenderError, render_to_png};
    let opts = GraphicsOptions {
        size: args.size,
        backend: args.backend,
        pipeline_cache: args.pipeline_cache.clone(),
        compiler: compiler_opts.clone(),
    };
    match render_to_png(registry, root, &args.out, &opts) {
        Ok(report) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
                );
            } else {
                print!("{}", report.to_text());
            }
            if report.success() {
                RenderStatus::Rendered
            } else {
                eprintln!(
                    "render: {} pipeline(s) failed, {} validation message(s): expected none",
                    report.pipelines.failed.len(),
                    report.validation_messages.len()
                );
                RenderStatus::Failed
            }
        }
        Err(RenderError::NoVulkan(reason)) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "rendered": false, "reason": reason })
                );
            }
            eprintln!("render: no picture, this machine has no usable Vulkan: {reason}");
            RenderStatus::NoVulkan
        }
        Err(RenderError::Failed(reason)) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "rendered": false, "success": false, "reason": reason })
                );
            }
            eprintln!("render failed: {reason}");
            RenderStatus::Failed
        }
    }
}

fn run_watch(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
    args: &WatchArgs,
) -> ExitCode {
    let opts = shaders::watch_command::WatchOptions {
        once: args.once,
        timeout: args.timeout,
        debounce: std::time::Duration::from_millis(args.debounce_ms),
        compiler: compiler_opts.clone(),
        stop: Default::default(),
    };
    // Ctrl-C is how a watch usually ends: the first one ends the loop, so that the command returns and the remote
    // cache gets its pack; a second one (a push that hangs) ends the process at once.
    let stop = opts.stop.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        if stop.swap(true, std::sync::atomic::Ordering::Relaxed) {
            std::process::exit(130);
        }
    }) {
        eprintln!(
            "warning: cannot handle Ctrl-C ({e}): interrupting will end the process without pushing the pack"
        );
    }
    match shaders::watch_command::run(registry, root, &opts, &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("watch: {e}");
            ExitCode::FAILURE
        }
    }
}

fn compare(
    a: &std::path::Path,
    b: &std::path::Path,
    tolerance: u8,
    max_differing: f64,
) -> ExitCode {
    use shaders::demo::Frame;
    let result = Frame::read_png(a)
        .and_then(|fa| Frame::read_png(b).map(|fb| (fa, fb)))
        .and_then(|(fa, fb)| {
            let pixels = fa.width as usize * fa.height as usize;
            fa.difference(&fb, tolerance).map(|d| (d, pixels))
        });
    match result {
        Ok(((max, mean, share), pixels)) => {
            println!(
                "max abs difference {max}, mean {mean:.4}; {} of {pixels} pixels ({:.4}%) differ by more than \
                 {tolerance}",
                (share * pixels as f64).round(),
                share * 100.0
            );
            if share * 100.0 > max_differing {
                eprintln!(
                    "compare: {:.4}% of the pixels differ by more than {tolerance}, past the {max_differing}% allowed",
                    share * 100.0
                );
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compare: {e}");
            ExitCode::FAILURE
        }
    }
}

fn list(registry: &Registry) -> ExitCode {
    for info in registry.infos() {
        let stages = registry
            .resolve(&info.name)
            .map(|r| r.stages())
            .unwrap_or_else(|_| info.stages())
            .iter()
            .map(|s| s.short_name())
            .collect::<Vec<_>>()
            .join(",");
        let kind = if info.do_static_compilation {
            "compilable"
        } else {
            "building block"
        };
        println!(
            "{:<40} {:<24} {kind}",
            info.name,
            if stages.is_empty() { "-" } else { &stages }
        );
    }
    ExitCode::SUCCESS
}

fn show(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
    name: &str,
    stage: Stage,
    variant: Option<&str>,
    target: Option<Target>,
) -> ExitCode {
    let compiler = match Compiler::with_options(root, compiler_opts.clone()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let loader = DirLoader::new(root);
    let flow = Flow::new(registry, &loader, &compiler, Profile::Debug);
    let info = flow.validated(name).and_then(|info| match variant {
        None => Ok(info),
        Some(bits) => pick_variant(&flow, &info, bits),
    });
    let text = info.and_then(|info| match target {
        None => flow.generate(&info, stage).map(|g| g.source),
        Some(t) => {
            let opts = CrossOptions {
                targets: vec![t],
                ..CrossOptions::default()
            };
            match translate_module(&flow, &info, stage, &opts).pop() {
                Some((_, Verdict::Translated(tr))) => Ok(tr.text),
                Some((_, Verdict::Failed(d))) => Err(d),
                Some((_, v)) => Err(v
                    .lines(t)
                    .into_iter()
                    .map(|l| {
                        Diagnostic::error(Code::Unsupported, &info.name, l)
                            .stage(stage)
                            .item(format!("target {t}"))
                    })
                    .collect()),
                None => Ok(String::new()),
            }
        }
    });
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(d) => {
            eprint!("{}", render_all(&d));
            ExitCode::FAILURE
        }
    }
}

/// The validated variant a permutation (`0b101`, `0x5` or `5`) folds into.
fn pick_variant(
    flow: &Flow,
    info: &ValidatedInfo,
    bits: &str,
) -> Result<ValidatedInfo, Vec<Diagnostic>> {
    let parsed = if let Some(b) = bits.strip_prefix("0b") {
        u64::from_str_radix(b, 2)
    } else if let Some(h) = bits.strip_prefix("0x") {
        u64::from_str_radix(h, 16)
    } else {
        bits.parse()
    };
    let problem = |message: String| {
        vec![
            Diagnostic::error(Code::Branch, &info.name, message)
                .item("--variant")
                .hint("write the permutation as 0b101, 0x5 or 5: bit i is branch i of the info"),
        ]
    };
    let bits = parsed.map_err(|_| problem(format!("`{bits}` is not a permutation index")))?;
    let set = flow.variants(info)?;
    let index = set.lookup(bits).map_err(|e| problem(e.to_string()))?;
    eprintln!(
        "// {} permutation {} -> unique variant {index} of {}",
        info.name,
        set.describe(bits),
        set.variants.len()
    );
    info.variant(&set, index, flow.registry)
}

fn run_build(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
    args: &BuildArgs,
) -> ExitCode {
    let compiler = match Compiler::with_options(root, compiler_opts.clone()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = BuildOptions {
        filter: args.filter.clone(),
        profile: match args.profile {
            ProfileArg::Debug => Profile::Debug,
            ProfileArg::Release => Profile::Release,
        },
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        out_dir: args.out.clone(),
        branch_limit: args.branch_limit.unwrap_or(DEFAULT_BRANCH_LIMIT),
        cross: CrossOptions {
            targets: match parse_targets(&args.target) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("--target: {e}");
                    return ExitCode::FAILURE;
                }
            },
            check: !args.no_target_check,
            ..CrossOptions::default()
        },
        shard: args.shard,
    };
    let loader = DirLoader::new(root);
    let bar = if std::io::stderr().is_terminal() && !args.json {
        let total = registry
            .infos()
            .filter(|i| opts.filter.as_deref().is_none_or(|f| i.name.starts_with(f)))
            .count();
        let b = ProgressBar::new(total as u64 * 2);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let progress = |label: &str| {
        if let Some(b) = &bar {
            b.inc(1);
            b.set_message(label.to_string());
        }
    };
    let report = build(registry, &compiler, &loader, &opts, &progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(cache) = compiler.disk_cache() {
        let warnings = cache.warnings();
        for w in &warnings {
            eprintln!("warning: {w}");
        }
        CACHE_WARNINGS_SAID.store(warnings.len(), std::sync::atomic::Ordering::Relaxed);
        // Only a build that wrote can have grown the cache past its limit; a warm one skips the directory walk.
        let wrote = report.cache.is_some_and(|c| c.writes > 0);
        match if wrote {
            cache.trim()
        } else {
            Ok(Default::default())
        } {
            Ok(t) if t.removed_files > 0 => eprintln!(
                "shader cache: evicted {} entries ({} KiB) past the limit",
                t.removed_files,
                t.removed_bytes / 1024
            ),
            Ok(_) => {}
            Err(e) => eprintln!("warning: cannot trim the shader cache: {e}"),
        }
    }
    // The pipeline set the declarations derive (no device needed): what a renderer warms before its first frame.
    let flow = Flow::new(registry, &loader, &compiler, opts.profile);
    let pipeline_set = shaders::pipelines::pipeline_set_report_after(&flow, Some(&report));
    if args.json {
        let mut json = serde_json::to_value(&report).unwrap_or_default();
        if let Some(map) = json.as_object_mut() {
            let set = match &pipeline_set {
                Ok(set) => set.clone(),
                Err(d) => serde_json::json!({ "error": shader_info::render_all(d) }),
            };
            map.insert("pipeline_set".into(), set);
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        );
    } else {
        print_table(&report);
        if let Ok(set) = &pipeline_set {
            println!(
                "pipeline set: the demo frame {} pipelines ({} graphics, {} compute); {} in every variant: {} \
                 permutations, {} pipelines per pass",
                set["demo"]["pipelines"],
                set["demo"]["graphics"],
                set["demo"]["compute"],
                set["mesh_all_variants"]["info"]
                    .as_str()
                    .unwrap_or_default(),
                set["mesh_all_variants"]["permutations"],
                set["mesh_all_variants"]["pipelines_per_pass"]
            );
        }
    }
    if let Err(d) = &pipeline_set {
        eprintln!("pipeline set: {}", shader_info::render_all(d));
    }
    if !report.success() || pipeline_set.is_err() {
        return ExitCode::FAILURE;
    }
    if args.pipelines {
        return warm_up(registry, root, compiler_opts, args);
    }
    ExitCode::SUCCESS
}

/// `build --pipelines`: the warm-up, reported on stderr (stdout keeps the build's table or JSON).
fn warm_up(
    registry: &Registry,
    root: &std::path::Path,
    compiler_opts: &CompilerOptions,
    args: &BuildArgs,
) -> ExitCode {
    use shaders::demo::run::{GraphicsOptions, warm_up_pipelines};
    let opts = GraphicsOptions {
        pipeline_cache: args.pipeline_cache.clone(),
        compiler: compiler_opts.clone(),
        ..GraphicsOptions::default()
    };
    match warm_up_pipelines(registry, root, &opts) {
        Ok(w) => {
            let p = &w.pipelines;
            for n in &w.notes {
                eprintln!("note: {n}");
            }
            let mut each: Vec<_> = p.created.iter().collect();
            each.sort_by(|a, b| b.create_ms.total_cmp(&a.create_ms));
            for c in each {
                eprintln!("  {:<40} {:>8.2} ms", c.name, c.create_ms);
            }
            let threads = p.warm_up.map_or(1, |w| w.threads);
            eprintln!(
                "pipelines on {}: {} created in {:.1} ms (compile {:.1} ms, create {:.1} ms, {threads} threads), \
                 {} skipped, {} failed, {} validation messages",
                w.device,
                p.created.len(),
                p.total_ms,
                p.compile_ms(),
                p.create_ms(),
                p.skipped.len(),
                p.failed.len(),
                w.validation_messages.len()
            );
            for f in &p.failed {
                eprintln!("failed: {}: {}", f.name, f.reason);
            }
            for m in &w.validation_messages {
                eprintln!("validation: {m}");
            }
            if p.failed.is_empty() && w.validation_messages.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("build --pipelines: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_table(r: &BuildReport) {
    println!(
        "{:<40} {:<24} {:<8} {:>9}",
        "info", "stages", "result", "ms"
    );
    for i in r.infos.iter().filter(|i| i.compilable) {
        let result = if i.passed { "ok" } else { "FAILED" };
        println!(
            "{:<40} {:<24} {:<8} {:>9.1}",
            i.name,
            i.stages.join(","),
            result,
            i.seconds * 1000.0
        );
    }
    for i in r
        .infos
        .iter()
        .filter_map(|i| i.variants.as_ref().map(|v| (i, v)))
    {
        let (info, v) = i;
        println!(
            "variants of {}: {} branches, {} permutations -> {} unique variants -> {} unique SPIR-V modules ({:.1} ms)",
            info.name,
            v.branches.len(),
            v.permutations,
            v.unique_variants,
            v.unique_spirv,
            info.seconds * 1000.0
        );
    }
    let failed_blocks: Vec<&str> = r
        .infos
        .iter()
        .filter(|i| !i.compilable && !i.passed)
        .map(|i| i.name.as_str())
        .collect();
    if !failed_blocks.is_empty() {
        println!("building blocks with errors: {}", failed_blocks.join(", "));
    }
    print_targets(r);
    if !r.failed.is_empty() {
        println!();
        print!("{}", r.render_failures());
    }
    println!(
        "{} / {} infos compiled, {} modules, {:.2} s",
        r.infos_passed, r.infos_total, r.modules, r.seconds
    );
    if r.replayed {
        println!(
            "nothing the pass reads changed since the last identical pass: its report, from the shader cache's record"
        );
    } else if let Some(c) = &r.cache {
        println!(
            "shader cache: {} hits ({} remote), {} misses, {} written, {} damaged entries refused",
            c.hits, c.remote_hits, c.misses, c.writes, c.corrupt
        );
    }
}

/// Per target: the verdict counts, then each reason a module was not translated, with the modules it applies to.
fn print_targets(r: &BuildReport) {
    if r.targets.is_empty() {
        return;
    }
    println!();
    // Each count right-aligned under its word.
    let row = |first: &str, cell: &dyn Fn(VerdictKind) -> String| {
        let cells: Vec<String> = VerdictKind::ALL
            .iter()
            .map(|k| format!("{:>w$}", cell(*k), w = k.word().len()))
            .collect();
        println!("{first:<6} {}", cells.join(" "));
    };
    row("target", &|k| k.word().to_string());
    for (t, c) in &r.targets {
        row(t.name(), &|k| c.get(k).to_string());
    }
    let mut reasons: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for m in &r.module_reports {
        for t in m.targets.iter().filter(|t| match t.verdict {
            VerdictKind::Unsupported | VerdictKind::Skipped | VerdictKind::Twin => true,
            VerdictKind::Translated | VerdictKind::Failed => false,
        }) {
            let key = match m.variant {
                Some(v) => format!("{}#v{v} {}", m.info, m.stage),
                None => format!("{} {}", m.info, m.stage),
            };
            for line in &t.reasons {
                reasons.entry(line).or_default().push(key.clone());
            }
        }
    }
    for (line, modules) in reasons {
        let shown: Vec<&str> = modules.iter().take(3).map(String::as_str).collect();
        let more = modules.len().saturating_sub(shown.len());
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        println!("  {line} — {}{tail}", shown.join(", "));
    }
}
