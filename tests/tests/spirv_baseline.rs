//! No behaviour change where none is intended: the SPIR-V of every module of the library (1675 modules, variants
//! included), in both profiles, must stay byte-identical to the baseline recorded in `tests/fixtures/`.
//!
//! A deliberate change to generated code (a new generator rule, a shader edit) updates the baseline:
//! `UPDATE_SPIRV_BASELINE=1 cargo test -p tests --test spirv_baseline`, and the commit says why.

use gpu::builder::{BuildOptions, build};
use gpu::compiler::{Compiler, Profile};
use shader_info::{DEFAULT_BRANCH_LIMIT, DirLoader, Registry};
use shaders as _;
use std::collections::BTreeMap;
use std::path::Path;

/// `module file name -> xxh3-128 of its bytes`, for every module the static pass writes.
fn hashes(profile: Profile, jobs: usize) -> BTreeMap<String, String> {
    pass(profile, jobs).0
}

/// What [`hashes`] gives, and the report's modules as it lists them: `(info, variant, stage)`.
#[allow(clippy::type_complexity)]
fn pass(
    profile: Profile,
    jobs: usize,
) -> (
    BTreeMap<String, String>,
    Vec<(String, Option<usize>, String)>,
) {
    let root = shaders::glsl_root();
    let out = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(&root).unwrap();
    let loader = DirLoader::new(&root);
    let opts = BuildOptions {
        filter: None,
        profile,
        jobs,
        out_dir: Some(out.path().to_path_buf()),
        branch_limit: DEFAULT_BRANCH_LIMIT,
        ..BuildOptions::default()
    };
    let report = build(Registry::global(), &compiler, &loader, &opts, &|_| {});
    assert!(report.success(), "{}", report.render_failures());
    let mut map = BTreeMap::new();
    for e in std::fs::read_dir(out.path()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "spv") {
            let bytes = std::fs::read(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            // Every module the library builds, ray tracing included, passes the checks module creation makes.
            let words = gpu::vk::spirv_from_bytes(&bytes).unwrap();
            if let Err(e) = gpu::vk::check_spirv(&words) {
                panic!("{name}: {e}");
            }
            map.insert(
                name,
                format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes)),
            );
        }
    }
    let listed = report
        .module_reports
        .iter()
        .map(|m| (m.info.clone(), m.variant, m.stage.clone()))
        .collect();
    (map, listed)
}

fn check(profile: Profile, file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(file);
    let now = hashes(profile, 2);
    let text: String = now.iter().map(|(n, h)| format!("{n} {h}\n")).collect();
    if std::env::var_os("UPDATE_SPIRV_BASELINE").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let baseline =
        std::fs::read_to_string(&path).expect("baseline file (UPDATE_SPIRV_BASELINE=1 writes it)");
    let base: BTreeMap<&str, &str> = baseline.lines().filter_map(|l| l.split_once(' ')).collect();
    let mut diffs = Vec::new();
    for (name, h) in &now {
        match base.get(name.as_str()) {
            Some(b) if b == h => {}
            Some(_) => diffs.push(format!("changed: {name}")),
            None => diffs.push(format!("new: {name}")),
        }
    }
    for name in base.keys() {
        if !now.contains_key(*name) {
            diffs.push(format!("gone: {name}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} modules differ from {file}:\n{}",
        diffs.len(),
        now.len(),
        diffs.join("\n")
    );
    // 808 unique (modules, state) pairs of the mesh ubershader, two stages each, and 59 other modules.
    assert_eq!(now.len(), 1675, "the library has 1675 modules");
}

#[test]
fn release_spirv_matches_the_baseline() {
    check(Profile::Release, "spirv-baseline-release.txt");
}

#[test]
fn debug_spirv_matches_the_baseline() {
    check(Profile::Debug, "spirv-baseline-debug.txt");
}

/// The job count changes only how fast: one job and eight (more threads than this machine's cores: the
/// interleaving is as unlike one job's as it gets) write the same bytes, debug profile (every module distinct).
///
/// The report is the same too: outcomes are placed, not listed as threads finish them. Modules come by info in
/// registry order, then by variant, and every variant of the mesh is there, those whose text another variant
/// compiled (run by the thread that compiled it) included.
#[test]
fn the_spirv_is_the_same_at_any_job_count() {
    let (one, listed) = pass(Profile::Debug, 1);
    let (eight, listed_at_eight) = pass(Profile::Debug, 8);
    assert_eq!(one, eight);
    assert_eq!(listed, listed_at_eight);
    let infos: Vec<&str> = Registry::global()
        .infos()
        .filter(|i| i.do_static_compilation)
        .map(|i| i.name.as_str())
        .collect();
    let place = |(info, variant, _): &(String, Option<usize>, String)| {
        let at = infos.iter().position(|n| n == info);
        (
            at.expect("a module of a compilable info"),
            variant.unwrap_or(0),
        )
    };
    assert!(
        listed.windows(2).all(|w| place(&w[0]) <= place(&w[1])),
        "modules out of order"
    );
    let mesh: Vec<usize> = listed
        .iter()
        .filter(|(info, ..)| info == "gpu_shader_mesh")
        .filter_map(|(_, v, _)| *v)
        .collect();
    assert_eq!(mesh.len(), 808 * 2);
    assert!((0..808).all(|v| mesh.iter().filter(|&&m| m == v).count() == 2));
}
