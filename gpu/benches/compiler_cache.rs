//! Cache-hit latency for a shader with 5 nested includes: this cache (change journal, and metadata-only) against
//! the seed's method (key = stage prefix + full source text; on every lookup re-read every included file and
//! compare it with the stored copy), side by side.
//!
//! `cargo bench -p shader-info-gpu --bench compiler_cache -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use shader_info::Stage;
use shader_info_gpu::compiler::{ChangeDetection, Compiler, Profile};
use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A header of realistic size (~2 KB): BRDF-style helper functions.
fn header(i: usize, next: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(n) = next {
        s.push_str(&format!("#include \"{n}\"\n"));
    }
    for f in 0..12 {
        s.push_str(&format!(
            "float helper_{i}_{f}(vec3 n, vec3 l, float r) {{\n    float ndl = max(dot(n, l), 0.0);\n    return ndl * r * {f}.0 + {i}.0;\n}}\n"
        ));
    }
    s
}

fn setup() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "common/a.glsl",
        "common/b.glsl",
        "common/c.glsl",
        "common/d.glsl",
        "common/e.glsl",
    ];
    for (i, n) in names.iter().enumerate() {
        let next = names.get(i + 1).map(|p| p.trim_start_matches("common/"));
        write(dir.path(), n, &header(i, next));
    }
    let main = "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"common/a.glsl\"\n\
                layout(location = 0) out vec4 o;\nvoid main() { o = vec4(helper_4_1(vec3(0.0), vec3(1.0), 0.5)); }\n";
    write(dir.path(), "forward.frag", main);
    let mut all = vec!["forward.frag".to_string()];
    all.extend(names.iter().map(|s| s.to_string()));
    (dir, all)
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    // Older than the racy window, as any file not being edited right now.
    let t = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// The SPIR-V and (path, content) of every include.
type SeedEntry = (Vec<u32>, Vec<(PathBuf, String)>);

/// The seed's cache: key "F" + source, entry = SPIR-V + (path, content) of every include.
struct SeedCache {
    root: PathBuf,
    map: HashMap<String, SeedEntry>,
}

impl SeedCache {
    fn lookup(&self, path: &str) -> Option<&Vec<u32>> {
        let source = std::fs::read_to_string(self.root.join(path)).ok()?;
        let key = format!("F{source}");
        let (spirv, includes) = self.map.get(&key)?;
        for (p, content) in includes {
            match std::fs::read_to_string(p) {
                Ok(now) if &now == content => {}
                _ => return None,
            }
        }
        Some(spirv)
    }
}

fn bench(c: &mut Criterion) {
    let (dir, files) = setup();
    let journal = Compiler::new(dir.path()).unwrap();
    let metadata = Compiler::with_change_detection(dir.path(), ChangeDetection::Metadata).unwrap();
    let m = journal
        .compile_from_file("forward.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    metadata
        .compile_from_file("forward.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    assert_eq!(m.files.len(), 5);

    let root = journal.root().to_path_buf();
    let source = std::fs::read_to_string(root.join("forward.frag")).unwrap();
    let mut seed = SeedCache {
        root: root.clone(),
        map: HashMap::new(),
    };
    let includes = files[1..]
        .iter()
        .map(|f| (root.join(f), std::fs::read_to_string(root.join(f)).unwrap()))
        .collect();
    seed.map
        .insert(format!("F{source}"), (m.spirv.clone(), includes));
    assert!(seed.lookup("forward.frag").is_some());

    let mut g = c.benchmark_group("cache_hit_5_nested_includes");
    g.bench_function("seed_reread_and_compare", |b| {
        b.iter(|| black_box(seed.lookup(black_box("forward.frag")).is_some()))
    });
    g.bench_function("metadata_checks", |b| {
        b.iter(|| {
            black_box(
                metadata
                    .compile_from_file(black_box("forward.frag"), Stage::Fragment, Profile::Release)
                    .unwrap(),
            )
        })
    });
    g.bench_function("change_journal", |b| {
        b.iter(|| {
            black_box(
                journal
                    .compile_from_file(black_box("forward.frag"), Stage::Fragment, Profile::Release)
                    .unwrap(),
            )
        })
    });
    g.finish();
    let s = journal.stats();
    eprintln!("journal compiler: {s:?}");
    eprintln!("metadata compiler: {:?}", metadata.stats());
    assert_eq!(s.misses, 1);
    assert_eq!(s.file_reads, 6, "hits read nothing");
}

criterion_group!(benches, bench);
criterion_main!(benches);
