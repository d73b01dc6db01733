//! The persistent cache under the compiler: real shaderc, real files, and a fresh `Compiler` (with a freshly
//! opened `DiskCache`) standing for each new process.

use shader_info::Stage;
use shader_info_gpu::compiler::{Compiler, CompilerOptions, Profile};
use shader_info_gpu::disk_cache::{DiskCache, Kind};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

/// Writes with a distinct modification time in the past (older than the racy window), as an editor would.
fn write(root: &Path, rel: &str, text: &str) {
    static TICK: AtomicU64 = AtomicU64::new(0);
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let t = SystemTime::now() - Duration::from_secs(3600)
        + Duration::from_secs(TICK.fetch_add(1, Ordering::Relaxed));
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn frag(includes: &[&str], body: &str) -> String {
    let mut s = "#version 450\n#extension GL_GOOGLE_include_directive : require\n".to_string();
    for i in includes {
        s.push_str(&format!("#include \"{i}\"\n"));
    }
    s.push_str(&format!(
        "layout(location = 0) out vec4 o;\nvoid main() {{ o = {body}; }}\n"
    ));
    s
}

/// A tree of three units: two include `common.glsl`, one includes only `other.glsl`.
fn tree() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "lib/common.glsl",
        "vec4 tint() { return vec4(0.5); }\n",
    );
    write(
        root,
        "lib/other.glsl",
        "vec4 other() { return vec4(0.25); }\n",
    );
    write(root, "a.frag", &frag(&["lib/common.glsl"], "tint()"));
    write(root, "b.frag", &frag(&["lib/common.glsl"], "tint() * 2.0"));
    write(root, "c.frag", &frag(&["lib/other.glsl"], "other()"));
    dir
}

const UNITS: [&str; 3] = ["a.frag", "b.frag", "c.frag"];

/// A new "process": a compiler over `root` with the cache in `cache` opened afresh.
fn process(root: &Path, cache: &Path) -> (Compiler, Arc<DiskCache>) {
    let disk = Arc::new(DiskCache::open(cache, DiskCache::DEFAULT_LIMIT).unwrap());
    let opts = CompilerOptions {
        disk_cache: Some(disk.clone()),
        ..Default::default()
    };
    (Compiler::with_options(root, opts).unwrap(), disk)
}

/// Compiles the root-relative fragment shader `rel`; returns its SPIR-V.
fn spirv(c: &Compiler, rel: &str) -> Vec<u32> {
    c.compile_from_file(rel, Stage::Fragment, Profile::Release)
        .unwrap_or_else(|e| panic!("{e}"))
        .spirv
        .clone()
}

/// Compiles every unit; returns the SPIR-V of each.
fn compile_all(c: &Compiler) -> Vec<Vec<u32>> {
    UNITS.iter().map(|u| spirv(c, u)).collect()
}

/// shaderc runs of a compiler so far.
fn compiled(c: &Compiler) -> u64 {
    let s = c.stats();
    s.misses - s.disk_hits
}

#[test]
fn a_second_process_compiles_nothing_and_gets_the_same_modules() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    let (cold, _) = process(src.path(), cache.path());
    let first = compile_all(&cold);
    assert_eq!(compiled(&cold), 3);

    let (warm, disk) = process(src.path(), cache.path());
    let second = compile_all(&warm);
    assert_eq!(second, first, "the cache gave other SPIR-V than shaderc");
    assert_eq!(compiled(&warm), 0, "a warm start compiled");
    assert_eq!(warm.stats().disk_hits, 3);
    assert_eq!(warm.stats().compile_time, Duration::ZERO);
    // Unchanged, old files are vouched for by their metadata: no content is read but the three main files.
    assert_eq!(warm.stats().file_reads, 3);
    assert_eq!(disk.stats().corrupt, 0);
    // Without a cache, the same SPIR-V again.
    let plain = Compiler::new(src.path()).unwrap();
    assert_eq!(compile_all(&plain), first);
}

#[test]
fn editing_a_shared_header_recompiles_exactly_its_dependents_and_reverting_hits_again() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    let (cold, _) = process(src.path(), cache.path());
    let before = compile_all(&cold);

    let old = std::fs::read_to_string(src.path().join("lib/common.glsl")).unwrap();
    write(
        src.path(),
        "lib/common.glsl",
        "vec4 tint() { return vec4(0.75); }\n",
    );
    let (edited, _) = process(src.path(), cache.path());
    let after = compile_all(&edited);
    assert_eq!(compiled(&edited), 2, "a.frag and b.frag include the header");
    assert_eq!(edited.stats().disk_hits, 1, "c.frag does not");
    assert_ne!(after[0], before[0]);
    assert_eq!(after[2], before[2]);

    // Back to the old text (a branch switch): both dependency sets are kept, so nothing compiles.
    write(src.path(), "lib/common.glsl", &old);
    let (reverted, _) = process(src.path(), cache.path());
    assert_eq!(compile_all(&reverted), before);
    assert_eq!(compiled(&reverted), 0);
}

#[test]
fn a_touched_file_is_hashed_once_then_vouched_for_by_its_new_metadata() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    compile_all(&process(src.path(), cache.path()).0);
    // Same content, new modification time (a checkout, `touch`).
    let text = std::fs::read_to_string(src.path().join("lib/common.glsl")).unwrap();
    write(src.path(), "lib/common.glsl", &text);
    let (touched, _) = process(src.path(), cache.path());
    compile_all(&touched);
    assert_eq!(compiled(&touched), 0);
    // Three main files, and the header's content once for both units that include it.
    assert_eq!(touched.stats().file_reads, 4);
    let (again, _) = process(src.path(), cache.path());
    compile_all(&again);
    assert_eq!(
        again.stats().file_reads,
        3,
        "the manifest kept the new metadata"
    );
}

#[test]
fn a_file_appearing_where_an_include_search_found_nothing_is_not_served_from_the_cache() {
    let src = tempfile::tempdir().unwrap();
    let root = src.path();
    write(
        root,
        "lib/common.glsl",
        "vec4 tint() { return vec4(0.5); }\n",
    );
    // `shaders/x.frag` includes "lib/common.glsl": first searched next to it (absent), then from the root.
    write(
        root,
        "shaders/x.frag",
        &frag(&["lib/common.glsl"], "tint()"),
    );
    let cache = tempfile::tempdir().unwrap();
    let compile = |c: &Compiler| spirv(c, "shaders/x.frag");
    let (cold, _) = process(root, cache.path());
    let first = compile(&cold);
    write(
        root,
        "shaders/lib/common.glsl",
        "vec4 tint() { return vec4(0.125); }\n",
    );
    let (warm, _) = process(root, cache.path());
    let second = compile(&warm);
    assert_eq!(
        compiled(&warm),
        1,
        "the new nearer header must be compiled in"
    );
    assert_ne!(first, second);
}

#[test]
fn warnings_come_back_from_the_cache_mapped_like_a_compile() {
    let src = tempfile::tempdir().unwrap();
    // An unknown `#extension … : warn` is a warning glslang reports on a line of the file.
    let text = "#version 450\n#extension GL_EXT_not_a_real_one : warn\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1.0); }\n";
    write(src.path(), "w.frag", text);
    let cache = tempfile::tempdir().unwrap();
    let compile = |c: &Compiler| {
        c.compile_from_file("w.frag", Stage::Fragment, Profile::Release)
            .unwrap()
            .warnings
            .clone()
    };
    let cold = compile(&process(src.path(), cache.path()).0);
    assert!(
        !cold.is_empty(),
        "the shader must warn for this test to mean anything"
    );
    let (warm_c, _) = process(src.path(), cache.path());
    let warm = compile(&warm_c);
    assert_eq!(compiled(&warm_c), 0);
    assert_eq!(warm, cold);
}

/// Every way an entry file can be damaged.
fn damages(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for at in [0, 9, 13, 20, 28, 33, 40, bytes.len() / 2, bytes.len() - 1] {
        let mut b = bytes.to_vec();
        b[at] ^= 0x10;
        out.push((format!("byte {at} flipped"), b));
    }
    for len in [0, 7, 31, bytes.len() / 2, bytes.len() - 1] {
        out.push((format!("truncated to {len}"), bytes[..len].to_vec()));
    }
    let mut longer = bytes.to_vec();
    longer.extend_from_slice(b"more");
    out.push(("extended".into(), longer));
    let mut version = bytes.to_vec();
    version[8] = version[8].wrapping_add(1);
    out.push(("another format version".into(), version));
    out
}

#[test]
fn every_damaged_entry_is_detected_reported_and_recompiled_never_loaded() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    let (cold, _) = process(src.path(), cache.path());
    let reference = compile_all(&cold);
    // Every entry file the compiler wrote: manifests, modules and the compiler fingerprint.
    let mut files: Vec<(Kind, std::path::PathBuf)> = Vec::new();
    for kind in [Kind::Manifest, Kind::Module, Kind::Compiler] {
        for e in walk(&cache.path().join("v1").join(kind.dir())) {
            files.push((kind, e));
        }
    }
    assert_eq!(files.iter().filter(|(k, _)| *k == Kind::Module).count(), 3);
    let (mut cases, mut detected) = (0, 0);
    for (kind, file) in &files {
        let good = std::fs::read(file).unwrap();
        for (how, bad) in damages(&good) {
            std::fs::write(file, &bad).unwrap();
            let (c, disk) = process(src.path(), cache.path());
            let got = compile_all(&c);
            cases += 1;
            assert_eq!(got, reference, "{kind:?} {how}: a wrong module");
            if disk.stats().corrupt == 1 {
                detected += 1;
            } else {
                panic!("{kind:?} entry {how}: not detected ({:?})", disk.stats());
            }
            assert_eq!(disk.warnings().len(), 1, "{kind:?} {how}: said once");
            assert!(
                disk.warnings()[0].contains("refused"),
                "{:?}",
                disk.warnings()
            );
            // The damaged entry was replaced by a good one.
            let (again, disk) = process(src.path(), cache.path());
            compile_all(&again);
            assert_eq!(disk.stats().corrupt, 0, "{kind:?} {how}: not replaced");
            std::fs::write(file, &good).unwrap();
        }
        // An entry copied under another key's name is refused too.
        if let Some((_, other)) = files.iter().find(|(k, f)| k == kind && f != file) {
            std::fs::copy(other, file).unwrap();
            let (c, disk) = process(src.path(), cache.path());
            assert_eq!(compile_all(&c), reference);
            cases += 1;
            detected += usize::from(disk.stats().corrupt == 1);
            std::fs::write(file, &good).unwrap();
        }
    }
    assert_eq!(
        detected, cases,
        "{detected} of {cases} damaged entries detected"
    );
    println!("damaged entries: {cases} cases, {detected} detected, 0 loaded");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

#[test]
fn processes_sharing_one_directory_at_once_agree_and_damage_nothing() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    let reference = compile_all(&Compiler::new(src.path()).unwrap());
    // Eight "processes" (each its own compiler and cache handle) filling the same cold directory at once.
    let results: Vec<Vec<Vec<u32>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| compile_all(&process(src.path(), cache.path()).0)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        assert_eq!(*r, reference);
    }
    let (warm, disk) = process(src.path(), cache.path());
    assert_eq!(compile_all(&warm), reference);
    assert_eq!(compiled(&warm), 0);
    assert_eq!(disk.stats().corrupt, 0);
    let leftovers: Vec<_> = walk(cache.path())
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn trimming_evicts_the_least_recently_used_entries_past_the_limit() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    compile_all(&process(src.path(), cache.path()).0);
    let all = walk(cache.path());
    let total: u64 = all.iter().map(|p| size(p)).sum();
    // Age every entry but c.frag's module, which a later hit refreshes: it must survive the trim.
    let old = SystemTime::now() - Duration::from_secs(7200);
    for p in &all {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let (c, _) = process(src.path(), cache.path());
    c.compile_from_file("c.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    let small = DiskCache::open(cache.path(), total / 2).unwrap();
    let report = small.trim().unwrap();
    assert!(report.removed_files > 0);
    let left: u64 = walk(cache.path()).iter().map(|p| size(p)).sum();
    assert!(
        left <= total / 2 / 10 * 9,
        "{left} bytes left of a {} limit",
        total / 2
    );
    // What is left still serves: c.frag (recently used) loads without compiling.
    let (c, _) = process(src.path(), cache.path());
    c.compile_from_file("c.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    assert_eq!(compiled(&c), 0, "the recently used entry was evicted");
    // And the others compile again, correctly.
    assert_eq!(
        compile_all(&c),
        compile_all(&Compiler::new(src.path()).unwrap())
    );
}

#[test]
fn trimming_a_cache_in_a_shared_folder_touches_only_its_own_files() {
    // `--cache .` or `--cache ~/.cache`: the folder holds other programs' files, old `.tmp` files among them,
    // and a folder that could pass for an old format of the cache.
    let shared = tempfile::tempdir().unwrap();
    let old = SystemTime::now() - Duration::from_secs(7 * 24 * 3600);
    let foreign = [
        "target/debug/app",
        "target/debug/deps/0123456789abcdef0123456789abcdef",
        "notes.tmp",
        "editor/.tmp-swap",
        "version2/data",
    ];
    for rel in foreign {
        let path = shared.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, vec![7u8; 4096]).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    // Written under the default limit (no trim while writing), trimmed under one that evicts everything.
    let writer = DiskCache::open(shared.path(), DiskCache::DEFAULT_LIMIT).unwrap();
    for key in 0..4u128 {
        writer.put(Kind::Reflection, key << 100 | key, &[1u8; 512]);
    }
    drop(writer);
    let cache = DiskCache::open(shared.path(), 1).unwrap();
    // A writer's temporary file, left by a crash an hour and more ago, is the cache's to remove.
    let stale = cache
        .entry_path(Kind::Reflection, 0)
        .with_file_name(".tmpAbC123");
    std::fs::write(&stale, [0u8; 16]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let report = cache.trim().unwrap();
    assert_eq!(
        report.files, 4,
        "only the cache's entries count: {report:?}"
    );
    assert_eq!(report.removed_files, 5, "{report:?}");
    for rel in foreign {
        assert!(shared.path().join(rel).is_file(), "trim removed `{rel}`");
    }
    assert!(!stale.exists());
    assert!(cache.get(Kind::Reflection, 1 << 100 | 1).is_none());
}

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

#[test]
fn a_long_lived_cache_trims_once_it_has_written_a_tenth_of_its_limit() {
    // `watch` runs until Ctrl-C (no drop): its cache trims as it writes. A pass's tens of MiB under the default GiB
    // never do (the walk stays at the end).
    // The trims are at least 64 KiB of writes apart, whatever the limit (each walks the whole cache).
    let dir = tempfile::tempdir().unwrap();
    let cache = DiskCache::open(dir.path(), 256 * 1024).unwrap();
    for key in 0..1024u128 {
        cache.put(Kind::Reflection, key << 64 | key, &[3u8; 1024]);
    }
    let left: u64 = walk(dir.path()).iter().map(|p| size(p)).sum();
    assert!(
        left < (256 + 64 + 16) * 1024,
        "{left} bytes past a 256 KiB limit"
    );
}

#[test]
fn an_unwritable_cache_directory_costs_the_cache_not_the_build() {
    let src = tree();
    let cache = tempfile::tempdir().unwrap();
    let (c, disk) = process(src.path(), cache.path());
    // A file where the entries' directory should be: every write fails.
    std::fs::remove_dir_all(cache.path().join("v1")).unwrap();
    std::fs::write(cache.path().join("v1"), b"not a directory").unwrap();
    assert_eq!(
        compile_all(&c),
        compile_all(&Compiler::new(src.path()).unwrap())
    );
    assert!(disk.stats().write_errors > 0);
    assert_eq!(disk.warnings().len(), 1, "{:?}", disk.warnings());
}

#[test]
fn a_cache_that_wrote_past_its_limit_is_trimmed_when_dropped() {
    // `render` and `watch` write entries without calling trim: dropping the cache trims what they wrote. Another
    // process (a larger limit, so no trim while writing) filled the folder past this one's limit.
    let dir = tempfile::tempdir().unwrap();
    let other = DiskCache::open(dir.path(), DiskCache::DEFAULT_LIMIT).unwrap();
    for key in 0..64u128 {
        other.put(Kind::Reflection, key << 64 | key, &[3u8; 1024]);
    }
    drop(other);
    let written: u64 = walk(dir.path()).iter().map(|p| size(p)).sum();
    assert!(written > 64 * 1024, "{written}");
    let cache = DiskCache::open(dir.path(), 8 * 1024).unwrap();
    cache.put(Kind::Reflection, 1 << 120, &[3u8; 16]);
    drop(cache);
    let left: u64 = walk(dir.path()).iter().map(|p| size(p)).sum();
    assert!(
        left <= 8 * 1024 / 10 * 9,
        "{left} bytes left of an 8 KiB limit"
    );
    // A cache that only read does not trim (its limit here would empty the folder).
    let reader = DiskCache::open(dir.path(), 1).unwrap();
    for key in 0..64u128 {
        let _ = reader.get(Kind::Reflection, key << 64 | key);
    }
    drop(reader);
    assert_eq!(walk(dir.path()).iter().map(|p| size(p)).sum::<u64>(), left);
}

#[test]
fn a_file_with_a_byte_order_mark_is_served_from_the_cache_by_a_second_process() {
    // The text compiled is read without the mark; the file's bytes must hash the same, or the next process sees
    // an edit and compiles again every time.
    let src = tempfile::tempdir().unwrap();
    write(
        src.path(),
        "lib/bom.glsl",
        "\u{FEFF}vec4 tint() { return vec4(0.5); }\r\n",
    );
    write(
        src.path(),
        "bom.frag",
        &format!("\u{FEFF}{}", frag(&["lib/bom.glsl"], "tint()")),
    );
    let cache = tempfile::tempdir().unwrap();
    let (c, _) = process(src.path(), cache.path());
    let first = c
        .compile_from_file("bom.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    assert_eq!(compiled(&c), 1);
    // Touched (a checkout, a save without changes): the metadata differs, so the content decides.
    for f in ["lib/bom.glsl", "bom.frag"] {
        std::fs::File::options()
            .write(true)
            .open(src.path().join(f))
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(600))
            .unwrap();
    }
    let (c, _) = process(src.path(), cache.path());
    let again = c
        .compile_from_file("bom.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    assert_eq!(
        compiled(&c),
        0,
        "the second process compiled the unchanged file"
    );
    assert_eq!(first.spirv, again.spirv);
}

/// Packs as a stranger may hand them: every damaged, truncated or forged form is refused entry by entry, the whole
/// entries before the damage kept, and nothing panics.
#[test]
fn a_damaged_pack_keeps_its_whole_entries_and_refuses_the_rest() {
    use shader_info_gpu::disk_cache::pack;
    let dir = tree();
    let cache = TempDir::new().unwrap();
    let (c, _) = process(dir.path(), cache.path());
    compile_all(&c);
    let entries: Vec<Vec<u8>> = walk(&cache.path().join("v1"))
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/compiler/"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(entries.len() >= 6, "{}", entries.len());
    let whole = pack::write(entries.iter().map(Vec::as_slice));
    let read: Vec<_> = pack::read(&whole).collect();
    assert_eq!(read.len(), entries.len());
    assert!(read.iter().all(Result::is_ok));

    let first = entries[0].len();
    // A flipped byte inside the first entry: that entry alone is refused.
    let mut flipped = whole.clone();
    flipped[pack::MAGIC.len() + 8 + first / 2] ^= 0x40;
    let read: Vec<_> = pack::read(&flipped).collect();
    assert_eq!(read.len(), entries.len());
    assert_eq!(read.iter().filter(|e| e.is_err()).count(), 1);
    assert!(read[0].is_err());
    // Truncated in the second entry: the first is kept, the rest said.
    let cut = &whole[..pack::MAGIC.len() + 8 + first + 12];
    let read: Vec<_> = pack::read(cut).collect();
    assert!(read[0].is_ok() && read.len() == 2);
    let why = read[1].as_ref().err().unwrap();
    assert!(why.contains("runs past its end"), "{why}");
    // A length that claims more than memory holds, a missing header, nothing at all.
    let mut huge = pack::MAGIC.to_vec();
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    huge.extend_from_slice(b"abc");
    let all = |p: &[u8]| pack::read(p).map(|e| e.map(|_| ())).collect::<Vec<_>>();
    let huge = all(&huge);
    assert!(
        huge.len() == 1
            && huge[0]
                .as_ref()
                .err()
                .unwrap()
                .contains("runs past its end"),
        "{huge:?}"
    );
    let foreign = all(b"not a pack");
    assert!(
        foreign.len() == 1 && foreign[0].as_ref().err().unwrap().contains("no header"),
        "{foreign:?}"
    );
    assert!(all(pack::MAGIC).is_empty());
    // An entry of this machine's own kinds (the compiler's fingerprint) is not a build result: refused.
    let own = walk(&cache.path().join("v1/compiler"));
    let own = std::fs::read(&own[0]).unwrap();
    let packed = pack::write([own.as_slice()]);
    let read: Vec<_> = pack::read(&packed).collect();
    assert!(read[0].as_ref().err().unwrap().contains("unknown kind"));
}

/// Two machines through a real object store (a folder, through `object_store`): the first compiles and pushes its
/// pack; the second pulls it in one request and compiles nothing; a run that only hit pushes nothing.
#[cfg(feature = "remote-cache")]
#[test]
fn a_second_machine_pulls_the_pack_and_compiles_nothing() {
    use shader_info_gpu::remote_cache::ObjectStoreRemote;
    let dir = tree();
    let store = TempDir::new().unwrap();
    let url = format!("file://{}", store.path().display());
    let machine_over = |root: &Path, cache: &Path, limit: u64| {
        let disk = DiskCache::open(cache, limit)
            .unwrap()
            .with_remote(Box::new(ObjectStoreRemote::from_url(&url).unwrap()));
        let disk = Arc::new(disk);
        let opts = CompilerOptions {
            disk_cache: Some(disk.clone()),
            ..Default::default()
        };
        (Compiler::with_options(root, opts).unwrap(), disk)
    };
    let machine = |cache: &Path| machine_over(dir.path(), cache, DiskCache::DEFAULT_LIMIT);
    let (a, b) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let (ca, da) = machine(a.path());
    assert_eq!(da.pull_pack("units"), 0);
    let first = compile_all(&ca);
    assert!(da.push_pack("units"));
    let objects = walk(store.path());
    assert_eq!(objects.len(), 1, "{objects:?}");

    let (cb, db) = machine(b.path());
    assert!(db.pull_pack("units") >= 6);
    assert_eq!(compile_all(&cb), first);
    assert_eq!(compiled(&cb), 0);
    let s = db.stats();
    assert!(
        s.hits > 0 && s.remote_hits == s.hits && s.misses == 0,
        "{s:?}"
    );
    // Nothing compiled, the pack whole: nothing to push. Another pack name is another object.
    assert!(!db.push_pack("units"));
    assert_eq!(db.pull_pack("other units"), 0);

    // A fresh checkout elsewhere: the same files under other metadata. Its manifests are refreshed, nothing is
    // compiled, and nothing is uploaded.
    let checkout = TempDir::new().unwrap();
    for rel in walk(dir.path()) {
        let to = checkout.path().join(rel.strip_prefix(dir.path()).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&rel, &to).unwrap();
    }
    let c = TempDir::new().unwrap();
    let (cc, dc) = machine_over(checkout.path(), c.path(), DiskCache::DEFAULT_LIMIT);
    assert!(dc.pull_pack("units") >= 6);
    assert_eq!(compile_all(&cc), first);
    assert_eq!(compiled(&cc), 0);
    assert!(!dc.push_pack("units"));

    // A pack larger than the local cache may hold is not read, and said.
    let d = TempDir::new().unwrap();
    let (_, dd) = machine_over(dir.path(), d.path(), 1024);
    assert_eq!(dd.pull_pack("units"), 0);
    assert!(
        dd.warnings()
            .iter()
            .any(|w| w.contains("past this cache's limit")),
        "{:?}",
        dd.warnings()
    );
}
