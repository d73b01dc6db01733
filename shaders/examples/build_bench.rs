//! Side-by-side timing of the static pass over the shader library (issue figures), in one run:
//! - `build` with 1 job and with 2 jobs (a fresh compiler each time: no cache);
//! - the sum of plain in-process shaderc compile times of the same modules (generation done beforehand);
//! - `glslc` run once per module as a separate process (what a build script would do).
//!
//! With `cross`, instead: the static pass on every core with the cross-language targets off, with all five on
//! (translation only) and with all five on and every output checked.
//!
//! `cargo run --release -p shaders --example build_bench [-- release] [cross]`

#[path = "support/timed_pass.rs"]
mod timed_pass;

use gpu::builder::{BuildOptions, build};
use gpu::compiler::{Compiler, Profile};
use gpu::cross::{CrossOptions, Target};
use gpu::flow::Flow;
use shader_info::{DirLoader, GeneratedStage, Registry};
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use timed_pass::timed_pass;

/// Every module the static pass compiles, generated beforehand (through the same flow).
fn generated_modules(flow: &Flow) -> Vec<GeneratedStage> {
    let mut out = Vec::new();
    for info in flow.registry.infos().filter(|i| i.do_static_compilation) {
        let Ok(v) = flow.validated(&info.name) else {
            continue;
        };
        let variants = match flow.expand(&v) {
            Ok(None) => vec![v],
            Ok(Some((_, variants))) => variants.into_iter().flatten().collect(),
            Err(_) => continue,
        };
        for v in &variants {
            for stage in v.stages() {
                if let Ok(g) = flow.generate(v, stage) {
                    out.push(g);
                }
            }
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}

fn main() {
    let profile = if std::env::args().any(|a| a == "release") {
        Profile::Release
    } else {
        Profile::Debug
    };
    let root = shaders::glsl_root();
    let registry = Registry::global();
    let loader = DirLoader::new(&root);
    if std::env::args().any(|a| a == "cross") {
        cross_pass(profile, &root, registry, &loader);
        return;
    }

    // glslang's tables are built once per process (and kept: `Compiler` holds glslang initialized), so every timed
    // pass below runs with them built, as the plain compiles do: none pays for the process's first compile.
    Compiler::new(&root).expect("compiler").warm_up(profile);
    let mut pass = Vec::new();
    for jobs in [1, 2] {
        let (secs, report) = timed_pass(registry, &root, &loader, profile, jobs);
        pass.push((jobs, secs, report.modules));
    }

    let compiler = Compiler::new(&root).expect("compiler");
    let modules = generated_modules(&Flow::new(registry, &loader, &compiler, profile));
    let t = Instant::now();
    for g in &modules {
        compiler.compile_generated(g, profile).expect("compiles");
    }
    let shaderc_sum = t.elapsed().as_secs_f64();

    // glslc needs the generated text next to its stage source, so relative includes resolve: a scratch copy.
    let scratch = tempfile::tempdir().expect("temp dir");
    copy_dir(&root, scratch.path()).expect("copy the shader root");
    let t = Instant::now();
    for (i, g) in modules.iter().enumerate() {
        let stage_dir = g
            .files
            .last()
            .and_then(|f| Path::new(f).parent())
            .unwrap_or(Path::new(""));
        let file = scratch
            .path()
            .join(stage_dir)
            .join(format!("bench_{i}.glsl"));
        std::fs::write(&file, &g.source).expect("write");
        let mut cmd = Command::new("glslc");
        cmd.arg(format!("-fshader-stage={}", g.stage.short_name()))
            .args(["--target-env=vulkan1.3", "--target-spv=spv1.5"])
            .arg(format!("-I{}", scratch.path().display()))
            .arg(if profile == Profile::Release {
                "-O"
            } else {
                "-O0"
            })
            .arg(&file)
            .args(["-o", "/dev/null"]);
        let status = cmd.status().expect("glslc runs (apt-get install glslc)");
        assert!(status.success(), "glslc failed on {}", g.name);
    }
    let glslc = t.elapsed().as_secs_f64();

    println!("profile {profile:?}, {} modules", modules.len());
    for (jobs, secs, n) in &pass {
        println!(
            "build --jobs {jobs}: {secs:.3} s ({n} modules, with generation, reflection and cross-check)"
        );
    }
    println!("sum of plain shaderc compiles: {shaderc_sum:.3} s");
    println!("glslc, one process per module: {glslc:.3} s");
    let (one, two) = (pass[0].1, pass[1].1);
    println!(
        "ratios: jobs 1 / jobs 2 = {:.2}x; glslc / build --jobs 2 = {:.1}x; build --jobs 1 / shaderc sum = {:.2}",
        one / two,
        glslc / two,
        one / shaderc_sum
    );
}

/// The static pass with the cross-language targets off, on, and on with every output checked.
fn cross_pass(profile: Profile, root: &Path, registry: &Registry, loader: &DirLoader) {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = [
        ("targets off", CrossOptions::default()),
        (
            "all targets, translation only",
            CrossOptions {
                targets: Target::ALL.to_vec(),
                ..CrossOptions::default()
            },
        ),
        (
            "all targets, translated and checked",
            CrossOptions {
                targets: Target::ALL.to_vec(),
                check: true,
                ..CrossOptions::default()
            },
        ),
    ];
    let mut secs = Vec::new();
    for (label, cross) in runs {
        let compiler = Compiler::new(root).expect("compiler");
        let opts = BuildOptions {
            profile,
            jobs,
            cross,
            ..BuildOptions::default()
        };
        let t = Instant::now();
        let report = build(registry, &compiler, loader, &opts, &|_| {});
        assert!(report.success(), "{}", report.render_failures());
        let s = t.elapsed().as_secs_f64();
        println!(
            "build --jobs {jobs}, {label}: {s:.2} s ({} modules)",
            report.modules
        );
        secs.push(s);
    }
    println!(
        "ratios to targets off: translation only {:.2}x, translated and checked {:.2}x",
        secs[1] / secs[0],
        secs[2] / secs[0]
    );
}
