//! The static pass as the benchmarks time it (`build_bench`, `scaling`).

use gpu::builder::{BuildOptions, BuildReport, build};
use gpu::compiler::{Compiler, Profile};
use shader_info::{DirLoader, Registry};
use std::path::Path;
use std::time::Instant;

/// The wall time and report of one pass on `jobs` threads, with a fresh compiler (every module compiles). A
/// failed pass stops the benchmark: the time of a broken library measures nothing.
pub fn timed_pass(
    registry: &Registry,
    root: &Path,
    loader: &DirLoader,
    profile: Profile,
    jobs: usize,
) -> (f64, BuildReport) {
    let compiler = Compiler::new(root).expect("compiler");
    timed_pass_with(registry, &compiler, loader, profile, jobs)
}

/// [`timed_pass`] with `compiler`: one that an identical pass filled makes every compile a cache hit.
// `build_bench` times cold passes only.
#[allow(dead_code)]
pub fn timed_pass_with(
    registry: &Registry,
    compiler: &Compiler,
    loader: &DirLoader,
    profile: Profile,
    jobs: usize,
) -> (f64, BuildReport) {
    let opts = BuildOptions {
        profile,
        jobs,
        ..BuildOptions::default()
    };
    let t = Instant::now();
    let report = build(registry, compiler, loader, &opts, &|_| {});
    let secs = t.elapsed().as_secs_f64();
    assert!(report.success(), "{}", report.render_failures());
    (secs, report)
}
