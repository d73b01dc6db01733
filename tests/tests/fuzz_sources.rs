//! Random damage to a shader tree on disk, through the compiler: truncation, byte flips, invalid UTF-8, NUL bytes,
//! huge files, deep include nesting, include cycles and includes that leave the root. Properties: no panic, no
//! abort, and every error is a diagnostic at a real file of the tree and a line inside it (or the include line
//! that reached it).
//!
//! CI runs `FUZZ_CASES` cases (default 400, about 40 s); `FUZZ_SEED=…` reproduces a run, and the long one is
//! `FUZZ_CASES=50000 cargo test --release -p tests --test fuzz_sources -- --nocapture`.

use gpu::compiler::{Compiler, Profile};
use shader_info::Stage;
use std::path::Path;

const MAIN: &str = "#version 450\n#include \"lib/a.glsl\"\nlayout(location = 0) out vec4 color;\n\
                    void main() {\n  color = f(1.0);\n}\n";
const A: &str = "#include \"b.glsl\"\nvec4 f(float x) {\n  return g(x) * 2.0;\n}\n";
const B: &str = "vec4 g(float x) {\n  return vec4(x);\n}\n";
const FILES: [&str; 3] = ["main.frag", "lib/a.glsl", "lib/b.glsl"];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn write_base(root: &Path) {
    std::fs::create_dir_all(root.join("lib")).unwrap();
    for (f, text) in FILES.iter().zip([MAIN, A, B]) {
        std::fs::write(root.join(f), text).unwrap();
    }
}

/// Damages one file of the tree; returns what was done, for the failure message.
fn mutate(root: &Path, rng: &mut Rng) -> String {
    let file = FILES[rng.below(FILES.len())];
    let path = root.join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = rng.below(bytes.len() + 1);
    let what = match rng.below(10) {
        0 => {
            bytes.truncate(at);
            format!("truncated at {at}")
        }
        1 if !bytes.is_empty() => {
            let i = rng.below(bytes.len());
            bytes[i] ^= 1 << rng.below(8);
            format!("flipped a bit of byte {i}")
        }
        2 => {
            bytes.splice(at..at, [0xFF, 0xFE, 0xC3]);
            format!("invalid UTF-8 at {at}")
        }
        3 => {
            bytes.insert(at, 0);
            format!("NUL at {at}")
        }
        4 => {
            let line = b"float unused_padding_value = 1.0; // a long generated file\n";
            let n = 2_000 + rng.below(8_000);
            bytes.extend(line.iter().cycle().take(line.len() * n));
            format!("{n} more lines")
        }
        5 => {
            let target = [
                "main.frag",
                "../outside.glsl",
                "/etc/hostname",
                "lib/a.glsl",
                "missing.glsl",
            ][rng.below(5)];
            bytes.splice(at..at, format!("\n#include \"{target}\"\n").into_bytes());
            format!("#include \"{target}\" at {at}")
        }
        6 => {
            bytes.splice(
                at..at,
                b"\n#include <lib/b.glsl>\n#include \"a.glsl\"\n".to_vec(),
            );
            format!("an include cycle at {at}")
        }
        7 => {
            let garbage: Vec<u8> = (0..rng.below(300)).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, garbage.iter().copied());
            format!("{} random bytes at {at}", garbage.len())
        }
        8 => {
            bytes.clear();
            "emptied".into()
        }
        _ => {
            bytes.splice(at..at, b"\n#if 1\n#error deliberate\n#endif\n".to_vec());
            format!("#error at {at}")
        }
    };
    std::fs::write(&path, &bytes).unwrap();
    format!("{file}: {what}")
}

/// Number of lines of a tree file, or `None` when the file is not part of the tree.
fn line_count(root: &Path, file: &str) -> Option<usize> {
    let bytes = std::fs::read(root.join(file)).ok()?;
    Some(bytes.iter().filter(|b| **b == b'\n').count() + 1)
}

/// Every error names a file of the tree and a line within it.
fn check_located(root: &Path, e: &gpu::compiler::CompileError) -> Result<(), String> {
    for d in e.errors() {
        let file = d.file.as_deref().ok_or_else(|| format!("no file: {d}"))?;
        let lines = line_count(root, file)
            .ok_or_else(|| format!("`{file}` is not a file of the tree: {d}"))?;
        let line = d.line.ok_or_else(|| format!("no line: {d}"))?;
        if line == 0 || line as usize > lines {
            return Err(format!(
                "line {line} is outside `{file}` ({lines} lines): {d}"
            ));
        }
    }
    Ok(())
}

fn seed() -> u64 {
    std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64 | 1)
        })
}

#[test]
fn damaged_shader_trees_give_located_errors_and_never_panic() {
    let seed = seed();
    let cases: usize = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    eprintln!("fuzz_sources: {cases} cases, FUZZ_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let compiler = Compiler::new(root).unwrap();
    write_base(root);
    compiler
        .compile_from_file("main.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("the undamaged tree compiles: {e}"));
    let mut rng = Rng(seed);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..cases {
        write_base(root);
        let mut done = Vec::new();
        for _ in 0..1 + rng.below(3) {
            done.push(mutate(root, &mut rng));
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compiler.compile_from_file("main.frag", Stage::Fragment, Profile::Debug)
        }));
        match result {
            Err(_) => panic!("FUZZ_SEED={seed} case {case}: the compiler panicked after {done:?}"),
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                errors += 1;
                if let Err(why) = check_located(root, &e) {
                    panic!(
                        "FUZZ_SEED={seed} case {case} after {done:?}:\n{why}\n\nall of it:\n{e}"
                    );
                }
            }
        }
    }
    eprintln!("fuzz_sources: {ok} compiled, {errors} located errors, 0 panics");
    assert!(
        errors > cases / 4,
        "the mutations should break most trees: {errors}"
    );
}

/// Include nesting far deeper than any real tree: an error at the include that went too deep, or a module, never
/// a stack overflow.
#[test]
fn deep_include_chains_do_not_overflow_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let depth = 3_000;
    for i in 0..depth {
        let body = if i + 1 < depth {
            format!("#include \"h{}.glsl\"\n", i + 1)
        } else {
            "vec4 deepest() { return vec4(1.0); }\n".to_string()
        };
        std::fs::write(root.join(format!("h{i}.glsl")), body).unwrap();
    }
    std::fs::write(
        root.join("deep.frag"),
        "#version 450\n#include \"h0.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = deepest(); }\n",
    )
    .unwrap();
    let owned = root.to_path_buf();
    let result = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let compiler = Compiler::new(owned).unwrap();
            compiler
                .compile_from_file("deep.frag", Stage::Fragment, Profile::Debug)
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .expect("no panic");
    if let Err(e) = result {
        assert!(e.contains("h"), "{e}");
    }
    drop(dir);
}
