//! Fast link against monolithic creation on the device the loader picks: the mesh ubershader's unique variants
//! (or the first N), each pipeline created whole (`whole`), or linked from warmed parts (`fast`,
//! `VK_EXT_graphics_pipeline_library`). Run the two modes as two processes, one after the other, so neither finds
//! the other's pipelines in the driver's caches. Prints one JSON line: per-pipeline first-use times (p50, p99,
//! max); for `fast` also how many parts the set needs, the parts' warm-up time and memory, and how long the
//! optimized pipelines take to arrive. `warm` times the warm-up of the whole set as whole pipelines (the
//! baseline of `fast`'s parts warm-up). Modules are compiled before any timing, so every mode times pipeline
//! creation alone.
//!
//! `cargo run --release -p shaders --example fast_link_bench -- whole 200 && … -- fast 200 && … -- warm 200`
//! (`--root DIR`)

use gpu::library::{LibraryOptions, PassPipelines, Variants, WarmUp};
use gpu::vk::{ContextOptions, ShaderLibrary, VkContext};
use shader_info::Registry;
use shaders::pipelines::graphics_options;
use std::time::{Duration, Instant};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn library(ctx: &VkContext, root: &str) -> ShaderLibrary {
    ShaderLibrary::new(ctx, Registry::global().clone(), LibraryOptions::new(root)).unwrap()
}

/// The set's keys and options, with every module compiled (not timed).
fn prepared(lib: &mut ShaderLibrary, limit: usize) -> Vec<(String, gpu::vk::GraphicsOptions)> {
    let mesh = "gpu_shader_mesh";
    let set = lib
        .pipeline_set(&[PassPipelines {
            options: graphics_options(mesh),
            infos: vec![(mesh.to_string(), Variants::All)],
        }])
        .unwrap();
    set.into_iter()
        .take(limit)
        .map(|r| match r {
            WarmUp::Graphics { key, options } => {
                lib.plan(&key).unwrap(); // compiles the modules
                (key, options)
            }
            _ => unreachable!("the mesh is a graphics info"),
        })
        .collect()
}

/// The set as warm-up requests.
fn warm_up_requests(set: &[(String, gpu::vk::GraphicsOptions)]) -> Vec<gpu::vk::WarmUp> {
    set.iter()
        .map(|(key, options)| WarmUp::Graphics {
            key: key.clone(),
            options: options.clone(),
        })
        .collect()
}

fn timed(lib: &mut ShaderLibrary, set: &[(String, gpu::vk::GraphicsOptions)]) -> Vec<f64> {
    let mut out: Vec<f64> = set
        .iter()
        .map(|(key, options)| {
            let t = Instant::now();
            lib.graphics_pipeline(key, options).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or_default();
    if !["fast", "whole", "warm"].contains(&mode) {
        eprintln!("usage: fast_link_bench whole|fast|warm [N] [--root DIR]");
        std::process::exit(2);
    }
    let fast_mode = mode == "fast";
    let limit = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(usize::MAX);
    let root = args
        .iter()
        .position(|a| a == "--root")
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| shaders::glsl_root().display().to_string());
    let ctx = VkContext::new(&ContextOptions::default()).unwrap();
    let mut lib = library(&ctx, &root);
    // Whole creation is the baseline: fast link is on by default on a GPU with the extension.
    lib.set_fast_link(fast_mode).unwrap();
    if mode == "warm" {
        let set = prepared(&mut lib, limit);
        let requests = warm_up_requests(&set);
        let rss = rss_kib();
        let t = Instant::now();
        let warm = lib.warm_up(&requests);
        let line = serde_json::json!({
            "device": ctx.device_name(),
            "mode": "warm",
            "pipelines": warm.created.len(),
            "failed": warm.failed.len(),
            "warm_up_ms": t.elapsed().as_secs_f64() * 1e3,
            "rss_kib": rss_kib().saturating_sub(rss),
            "threads": warm.threads,
        });
        println!("{line}");
        return;
    }
    if !fast_mode {
        let set = prepared(&mut lib, limit);
        let ms = timed(&mut lib, &set);
        let line = serde_json::json!({
            "device": ctx.device_name(),
            "mode": "whole",
            "pipelines": set.len(),
            "first_use_ms": { "p50": percentile(&ms, 0.5), "p99": percentile(&ms, 0.99), "max": ms[ms.len() - 1] },
        });
        println!("{line}");
        return;
    }
    let set = prepared(&mut lib, limit);
    let requests = warm_up_requests(&set);
    let rss = rss_kib();
    let t = Instant::now();
    let warm = lib.warm_up_parts(&requests);
    let parts_ms = t.elapsed().as_secs_f64() * 1e3;
    let parts_kib = rss_kib().saturating_sub(rss);
    if let Some((key, d)) = warm.failed.first() {
        eprintln!(
            "{} of {} parts sets failed; first: {key}: {}",
            warm.failed.len(),
            set.len(),
            shader_info::render_all(d)
        );
        std::process::exit(1);
    }
    let linked = timed(&mut lib, &set);
    let t = Instant::now();
    while lib.fast_link_stats().optimized < set.len() && t.elapsed() < Duration::from_secs(600) {
        for (key, options) in &set {
            lib.graphics_pipeline(key, options).unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let optimized_ms = t.elapsed().as_secs_f64() * 1e3;
    let stats = lib.fast_link_stats();
    let line = serde_json::json!({
        "device": ctx.device_name(),
        "mode": "fast",
        "pipelines": set.len(),
        "parts": stats.parts,
        "parts_warm_up_ms": parts_ms,
        "parts_rss_kib": parts_kib,
        "threads": warm.threads,
        "first_use_ms": { "p50": percentile(&linked, 0.5), "p99": percentile(&linked, 0.99), "max": linked[linked.len() - 1] },
        "all_optimized_after_ms": optimized_ms,
        "optimized": stats.optimized,
    });
    println!("{line}");
}
