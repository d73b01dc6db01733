//! `shader-builder watch`: compile the library (and create its pipelines where a Vulkan device exists), then
//! watch the GLSL root and print one line per reload.
//!
//! With a device, reloads go through [`gpu::vk::ShaderLibrary::reload`]: each line says which pipelines were
//! rebuilt, which stayed unchanged, and which kept their previous version (with the first line of the
//! diagnostics). Without one, each change re-runs the static pass (the compiler's cache skips what did not
//! change) and the line says how many infos compiled and which failed.

use crate::pipelines::create_all;
use gpu::builder::{BuildOptions, BuildReport, build};
use gpu::compiler::Compiler;
use gpu::vk::{ContextOptions, LibraryOptions, PipelineOutcome, ShaderLibrary, VkContext, VkError};
use gpu::watch::ShaderWatcher;
use shader_info::{DirLoader, Registry};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long to watch.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Return after the first reload.
    pub once: bool,
    /// Return after this long (`None`: until the process is interrupted).
    pub timeout: Option<Duration>,
    /// Quiet time after the last file event before reloading.
    pub debounce: Duration,
    /// The compiler's include search and persistent cache (reloads read and fill it too).
    pub compiler: gpu::compiler::CompilerOptions,
    /// Set (by a Ctrl-C handler) to end the loop as a timeout does: the caller then finishes its work (the
    /// remote cache's pack is pushed after the loop returns) instead of the process dying mid-way.
    pub stop: Arc<AtomicBool>,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            once: false,
            timeout: None,
            debounce: Duration::from_millis(150),
            compiler: Default::default(),
            stop: Default::default(),
        }
    }
}

/// The line printed once watching has started (tests wait for it before touching files).
pub const READY: &str = "watching";

/// Waits in slices so a deadline is honoured while nothing changes.
const SLICE: Duration = Duration::from_millis(250);

fn io(e: std::io::Error) -> String {
    format!("cannot write the output: {e}")
}

/// The changed files, relative to the root, joined by commas. The watcher reports absolute paths, so a relative
/// root is also tried made absolute.
fn describe_files(root: &Path, files: &[PathBuf]) -> String {
    let absolute = std::fs::canonicalize(root).ok();
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(root)
                .ok()
                .or_else(|| f.strip_prefix(absolute.as_deref()?).ok())
                .unwrap_or(f)
                .display()
                .to_string()
        })
        .collect();
    if names.is_empty() {
        "(no file)".into()
    } else {
        names.join(", ")
    }
}

/// Runs the watch loop, writing its lines to `out`. Errors are setup failures (no such root, no file watcher);
/// compile errors are reported in the lines and never end the loop.
pub fn run(
    registry: &Registry,
    root: &Path,
    opts: &WatchOptions,
    out: &mut dyn Write,
) -> Result<(), String> {
    if !root.is_dir() {
        return Err(format!("{} is not a directory", root.display()));
    }
    // A timeout past what the clock holds is no deadline at all.
    let deadline = opts.timeout.and_then(|t| Instant::now().checked_add(t));
    match device() {
        Ok(ctx) => with_device(&ctx, registry, root, opts, deadline, out),
        Err(reason) => {
            writeln!(out, "no Vulkan device ({reason}): compiling only").map_err(io)?;
            compile_only(registry, root, opts, deadline, out)
        }
    }
}

/// A device, with validation where the build profile asks for it and the layer exists.
fn device() -> Result<VkContext, String> {
    let opts = ContextOptions {
        app_name: "shader-builder watch".into(),
        ..ContextOptions::default()
    };
    match VkContext::new(&opts) {
        Err(VkError::NoValidationLayer) => VkContext::new(&ContextOptions {
            validation: false,
            ..opts
        })
        .map_err(|e| e.to_string()),
        other => other.map_err(|e| e.to_string()),
    }
}

/// How long to wait for the next change: a slice of the time left until `deadline`, or `None` once it passed or
/// `stop` was set.
fn remaining(deadline: Option<Instant>, stop: &AtomicBool) -> Option<Duration> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    match deadline {
        None => Some(SLICE),
        Some(d) => d
            .checked_duration_since(Instant::now())
            .filter(|r| !r.is_zero())
            .map(|r| r.min(SLICE)),
    }
}

fn with_device(
    ctx: &VkContext,
    registry: &Registry,
    root: &Path,
    opts: &WatchOptions,
    deadline: Option<Instant>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let lib_opts = LibraryOptions {
        compiler: opts.compiler.clone(),
        ..LibraryOptions::new(root)
    };
    let mut lib = ShaderLibrary::new(ctx, registry.clone(), lib_opts).map_err(|e| e.to_string())?;
    let report = create_all(&mut lib);
    writeln!(
        out,
        "device: {}; {} pipelines created (compile {:.1} ms, create {:.1} ms), {} skipped, {} failed",
        ctx.device_name(),
        report.created.len(),
        report.compile_ms(),
        report.create_ms(),
        report.skipped.len(),
        report.failed.len()
    )
    .map_err(io)?;
    for f in &report.failed {
        let first = f.reason.lines().next().unwrap_or("");
        writeln!(out, "  {} FAILED: {first}", f.name).map_err(io)?;
    }
    lib.watch(opts.debounce).map_err(|e| e.to_string())?;
    writeln!(out, "{READY} {} (Ctrl-C to stop)", root.display()).map_err(io)?;
    out.flush().map_err(io)?;
    while let Some(wait) = remaining(deadline, &opts.stop) {
        let Some(result) = lib.wait_reload(wait) else {
            continue;
        };
        let failed = match &result {
            Ok(r) => {
                !r.modules_failed.is_empty()
                    || r.count(|o| matches!(o, PipelineOutcome::KeptPrevious { .. })) > 0
            }
            Err(_) => true,
        };
        match result {
            Ok(r) => writeln!(out, "{}: {r}", describe_files(root, &r.changed_files)),
            Err(e) => writeln!(out, "reload failed: {e}"),
        }
        .map_err(io)?;
        out.flush().map_err(io)?;
        if opts.once {
            return once_outcome(failed);
        }
    }
    stopped(opts)
}

/// How the loop ends without a reload that ends it: `--once` is an error (it saw no change).
fn stopped(opts: &WatchOptions) -> Result<(), String> {
    match (opts.once, opts.stop.load(Ordering::Relaxed)) {
        (false, _) => Ok(()),
        (true, false) => Err("no change was seen before the timeout".into()),
        (true, true) => Err("interrupted before a change was seen".into()),
    }
}

/// How `--once` ends: an error (so a non-zero exit) when its reload or build failed.
fn once_outcome(failed: bool) -> Result<(), String> {
    if failed {
        Err("the change did not build (see the line above)".into())
    } else {
        Ok(())
    }
}

/// One line summarizing a static pass.
fn build_line(r: &BuildReport) -> String {
    let mut s = format!(
        "{}/{} infos compiled ({} modules) in {:.1} ms",
        r.infos_passed,
        r.infos_total,
        r.modules,
        r.seconds * 1e3
    );
    for f in &r.failed {
        let first = f
            .diagnostics
            .first()
            .and_then(|d| d.message.lines().next())
            .unwrap_or("");
        s.push_str(&format!("; {}: failed ({first})", f.info));
    }
    s
}

fn compile_only(
    registry: &Registry,
    root: &Path,
    opts: &WatchOptions,
    deadline: Option<Instant>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let compiler =
        Compiler::with_options(root, opts.compiler.clone()).map_err(|e| e.to_string())?;
    let loader = DirLoader::new(root);
    let build_opts = BuildOptions {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..BuildOptions::default()
    };
    let pass = || build(registry, &compiler, &loader, &build_opts, &|_| {});
    writeln!(out, "initial build: {}", build_line(&pass())).map_err(io)?;
    let watcher = ShaderWatcher::new(root, opts.debounce).map_err(|e| e.to_string())?;
    writeln!(out, "{READY} {} (Ctrl-C to stop)", root.display()).map_err(io)?;
    out.flush().map_err(io)?;
    while let Some(wait) = remaining(deadline, &opts.stop) {
        let Some(changed) = watcher.wait(wait) else {
            continue;
        };
        let report = pass();
        let mut line = format!(
            "{}: {}",
            describe_files(root, &changed),
            build_line(&report)
        );
        for e in watcher.take_errors() {
            line.push_str(&format!("; {e}"));
        }
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?;
        if opts.once {
            return once_outcome(!report.success());
        }
    }
    stopped(opts)
}
