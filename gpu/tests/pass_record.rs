//! The static pass's record: a second identical pass over unchanged files answers with the first one's report
//! (`replayed`), and anything that could change the outcome runs the pass again — an edited source or include, a
//! file created where an include search found nothing, another declaration (data or specialize function), other
//! options, another source content from a loader without files. Over real directories, a real disk cache and
//! shaderc, one fresh compiler per pass as one process per pass would have.

use shader_info::{
    DirLoader, Frequency, MemoryLoader, Qualifier, Registry, ShaderCreateInfo, SourceLoader,
    VariantBuilder,
};
use shader_info_gpu::builder::{BuildOptions, BuildReport, build};
use shader_info_gpu::compiler::{Compiler, CompilerOptions, IncludeSearch};
use shader_info_gpu::cross::{CrossOptions, Target};
use shader_info_gpu::disk_cache::DiskCache;
use std::path::Path;
use std::sync::Arc;

const MAIN: &str = "#include \"common.glsl\"\nvoid main() {\n  data[gl_GlobalInvocationID.x] = value() * float(SCALE);\n}\n";

fn info(scale: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new("fill")
        .local_group_size(64)
        .storage_buf(0, Qualifier::Write, "float", "data[]", Frequency::Pass)
        .define_value("SCALE", scale)
        .branch("FAST")
        .compute_source("sub/fill.comp.glsl")
        .do_static_compilation(true)
}

fn registry(info: ShaderCreateInfo) -> Registry {
    let mut reg = Registry::new();
    reg.add_info(info);
    reg
}

/// `sub/fill.comp.glsl` includes `common.glsl`, found in the include directory `lib` after `sub/common.glsl`
/// was looked for and found empty.
fn tree(root: &Path) {
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::write(root.join("sub/fill.comp.glsl"), MAIN).unwrap();
    std::fs::write(
        root.join("lib/common.glsl"),
        "float value() { return 2.0; }\n",
    )
    .unwrap();
}

struct Setup {
    root: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let s = Setup {
            root: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
        };
        tree(s.root.path());
        s
    }

    /// A fresh compiler over the tree, with `lib` searched for includes, and the same disk cache: what a new
    /// process would have.
    fn compiler(&self) -> Compiler {
        let disk = DiskCache::open(self.cache.path(), DiskCache::DEFAULT_LIMIT).unwrap();
        Compiler::with_options(
            self.root.path(),
            CompilerOptions {
                includes: IncludeSearch {
                    include_dirs: vec!["lib".into()],
                    strict: false,
                },
                disk_cache: Some(Arc::new(disk)),
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// One pass as a fresh process would run it.
    fn pass(&self, reg: &Registry, loader: &dyn SourceLoader, opts: &BuildOptions) -> BuildReport {
        let report = build(reg, &self.compiler(), loader, opts, &|_| {});
        assert!(report.success(), "{}", report.render_failures());
        report
    }

    fn dir_pass(&self, reg: &Registry, opts: &BuildOptions) -> BuildReport {
        self.pass(reg, &DirLoader::new(self.root.path()), opts)
    }
}

fn options() -> BuildOptions {
    BuildOptions {
        cross: CrossOptions {
            targets: vec![Target::Wgsl, Target::Gl],
            ..Default::default()
        },
        ..Default::default()
    }
}

/// What a user reads from a report, times aside.
fn outcome(r: &BuildReport) -> String {
    let modules: Vec<String> = r
        .module_reports
        .iter()
        .map(|m| {
            let targets: Vec<String> = m
                .targets
                .iter()
                .map(|t| {
                    format!(
                        "{:?} {:?} {:?} {:?} {:?}",
                        t.target, t.verdict, t.reasons, t.entry_point, t.spec_constants
                    )
                })
                .collect();
            format!(
                "{} {} {:?} {:x} {} {:?} {targets:?}",
                m.info, m.stage, m.variant, m.spirv_hash, m.spirv_bytes, m.reflection
            )
        })
        .collect();
    let infos: Vec<String> = r
        .infos
        .iter()
        .map(|i| {
            format!(
                "{} {:?} {} {:?}",
                i.name,
                i.stages,
                i.passed,
                i.variants
                    .as_ref()
                    .map(|v| (v.permutations, v.unique_variants, v.unique_spirv))
            )
        })
        .collect();
    format!(
        "{}/{} {} {:?} {infos:?} {modules:#?}",
        r.infos_passed,
        r.infos_total,
        r.modules,
        r.targets
            .iter()
            .map(|(t, c)| format!("{t:?} {c:?}"))
            .collect::<Vec<_>>()
    )
}

#[test]
fn an_unchanged_pass_is_replayed_with_the_same_outcome() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let cold = s.dir_pass(&reg, &options());
    assert!(!cold.replayed);
    assert!(cold.modules >= 2, "both variants compile: {}", cold.modules);
    let warm = s.dir_pass(&reg, &options());
    assert!(warm.replayed, "nothing changed");
    assert_eq!(outcome(&cold), outcome(&warm));
    // Nothing was looked up: a replay reads the record alone.
    let cache = warm.cache.unwrap();
    assert_eq!((cache.hits, cache.misses), (0, 0), "{cache:?}");

    // Rewritten with the same bytes (a checkout): still the same inputs, and the record takes the new metadata.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        s.root.path().join("lib/common.glsl"),
        "float value() { return 2.0; }\n",
    )
    .unwrap();
    assert!(s.dir_pass(&reg, &options()).replayed);
}

#[test]
fn an_edited_source_or_include_runs_the_pass() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let cold = s.dir_pass(&reg, &options());
    for (file, text) in [
        (
            "sub/fill.comp.glsl",
            MAIN.replace("* float(SCALE)", "* float(SCALE) + 1.0"),
        ),
        (
            "lib/common.glsl",
            "float value() { return 4.0; }\n".to_string(),
        ),
    ] {
        std::fs::write(s.root.path().join(file), text).unwrap();
        let edited = s.dir_pass(&reg, &options());
        assert!(!edited.replayed, "{file} was edited");
        assert_ne!(
            outcome(&cold),
            outcome(&edited),
            "{file}: the edit changes the code"
        );
        assert!(
            s.dir_pass(&reg, &options()).replayed,
            "{file}: the edit is recorded"
        );
    }
}

#[test]
fn a_file_where_an_include_search_found_nothing_runs_the_pass() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let cold = s.dir_pass(&reg, &options());
    assert!(s.dir_pass(&reg, &options()).replayed);
    // Searched before `lib/`: it now shadows the include directory's file.
    std::fs::write(
        s.root.path().join("sub/common.glsl"),
        "float value() { return 8.0; }\n",
    )
    .unwrap();
    let shadowed = s.dir_pass(&reg, &options());
    assert!(!shadowed.replayed);
    assert_ne!(outcome(&cold), outcome(&shadowed));
}

fn specialize_a(v: &mut VariantBuilder) {
    if v.get("FAST") {
        v.define("FAST_PATH", "1");
    }
}

fn specialize_b(v: &mut VariantBuilder) {
    v.set("FAST", false);
}

#[test]
fn another_declaration_or_option_runs_the_pass() {
    let s = Setup::new();
    let reg = registry(info("3"));
    s.dir_pass(&reg, &options());
    // Another value in the declaration.
    assert!(!s.dir_pass(&registry(info("5")), &options()).replayed);
    // The same data with another specialize function: code, told apart by which function it is (declared on one
    // line, so that not even the declaration's origin differs).
    let with = |f: fn(&mut VariantBuilder)| registry(info("3").specialize(f));
    let (a, b) = (with(specialize_a), with(specialize_b));
    assert_eq!(
        format!("{:?}", a.infos().collect::<Vec<_>>()),
        format!("{:?}", b.infos().collect::<Vec<_>>())
    );
    assert!(!s.dir_pass(&a, &options()).replayed);
    assert!(s.dir_pass(&a, &options()).replayed);
    let with_b = s.dir_pass(&b, &options());
    assert!(!with_b.replayed);
    assert_eq!(
        with_b.infos[0].variants.as_ref().unwrap().unique_variants,
        1
    );
    // Other targets, another profile, a filter: each its own pass.
    let mut gl_only = options();
    gl_only.cross.targets = vec![Target::Gl];
    assert!(!s.dir_pass(&reg, &gl_only).replayed);
    let mut release = options();
    release.profile = shader_info_gpu::compiler::Profile::Release;
    assert!(!s.dir_pass(&reg, &release).replayed);
    // The number of jobs changes nothing the pass gives.
    let mut jobs = options();
    jobs.jobs = 2;
    assert!(s.dir_pass(&reg, &jobs).replayed);
}

#[test]
fn outputs_and_failures_are_never_replayed() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let out = tempfile::tempdir().unwrap();
    let mut writing = options();
    writing.out_dir = Some(out.path().to_path_buf());
    s.dir_pass(&reg, &writing);
    std::fs::remove_dir_all(out.path()).unwrap();
    let again = s.dir_pass(&reg, &writing);
    assert!(!again.replayed, "a pass that writes outputs runs");
    assert!(out.path().join("fill.v0.comp.spv").is_file());

    // A failing pass leaves no record: fixed back, the pass runs (and is recorded then).
    std::fs::write(
        s.root.path().join("lib/common.glsl"),
        "float value() { return }\n",
    )
    .unwrap();
    let compiler = s.compiler();
    let loader = DirLoader::new(s.root.path());
    for _ in 0..2 {
        let failed = build(&reg, &compiler, &loader, &options(), &|_| {});
        assert!(!failed.success() && !failed.replayed);
    }
}

#[test]
fn a_loader_without_files_is_checked_by_content() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let memory = |main: &str| MemoryLoader::default().with("sub/fill.comp.glsl", main);
    s.pass(&reg, &memory(MAIN), &options());
    assert!(s.pass(&reg, &memory(MAIN), &options()).replayed);
    let edited = MAIN.replace("value()", "(value() + 1.0)");
    assert!(!s.pass(&reg, &memory(&edited), &options()).replayed);
}

#[test]
fn a_damaged_record_is_refused_said_once_and_replaced() {
    let s = Setup::new();
    let reg = registry(info("3"));
    let cold = s.dir_pass(&reg, &options());
    let records: Vec<std::path::PathBuf> = std::fs::read_dir(s.cache.path().join("v1/pass"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let mut bytes = std::fs::read(&records[0]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&records[0], bytes).unwrap();
    let compiler = s.compiler();
    let disk = compiler.disk_cache().unwrap().clone();
    let again = build(
        &reg,
        &compiler,
        &DirLoader::new(s.root.path()),
        &options(),
        &|_| {},
    );
    assert!(
        again.success() && !again.replayed,
        "a damaged record is never replayed"
    );
    assert_eq!(outcome(&cold), outcome(&again));
    assert_eq!(disk.stats().corrupt, 1);
    let warnings = disk.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("is refused"), "{}", warnings[0]);
    assert!(
        s.dir_pass(&reg, &options()).replayed,
        "replaced by the pass that ran"
    );
}

/// Every file under `root` dated an hour back: metadata old enough to vouch for the content, so that a check by
/// metadata alone is what decides.
fn age(root: &Path) {
    for dir in ["sub", "lib"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let f = std::fs::File::options()
                .append(true)
                .open(e.unwrap().path())
                .unwrap();
            f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
                .unwrap();
        }
    }
}

#[test]
fn a_loader_over_another_tree_runs_the_pass() {
    let s = Setup::new();
    age(s.root.path());
    let reg = registry(info("3"));
    let first = s.dir_pass(&reg, &options());
    // The same names under another root, one of them with other code; the compiler's root stays.
    let other = tempfile::tempdir().unwrap();
    tree(other.path());
    std::fs::write(
        other.path().join("sub/fill.comp.glsl"),
        MAIN.replace("value()", "(value() - 1.0)"),
    )
    .unwrap();
    age(other.path());
    let elsewhere = s.pass(&reg, &DirLoader::new(other.path()), &options());
    assert!(!elsewhere.replayed, "the loader reads other files");
    assert_ne!(outcome(&first), outcome(&elsewhere));
    assert!(
        s.pass(&reg, &DirLoader::new(other.path()), &options())
            .replayed
    );
}
