//! The random layout corpus through every target: the blocks of the glslang differential's generator
//! ([`tests::layout_corpus`]) declared through the library — one info per block, a std140 uniform block and a
//! std430 storage block (its runtime tail in a block of its own), with a compute stage that reads every member —
//! and run through the flow (compile, reflection cross-check against the declaration) and the cross pass with
//! every output checked by its independent checker: WGSL by Tint and naga's WGSL front end (member offsets, array
//! and matrix strides by WGSL's own layout rules), HLSL by glslang's HLSL front end and `spirv-val` (cbuffer member
//! offsets), OpenGL and OpenGL ES by glslang with GL semantics (every active block member's offset and array
//! stride, top-level array strides, block sizes). MSL is left out: no Metal compiler runs here, and its check
//! reads bindings, not layouts.
//!
//! A block is unsupported on a target only for a reason documented in `gpu::cross` (64-bit floats on WGSL, MSL
//! and ES; a std140 matrix with two rows, whose 16-byte column stride naga's SPIR-V reader refuses): each is
//! predicted from the block and must be exactly what the pass says. Everything else must translate and match.
//!
//! CI runs `SHADER_INFO_LAYOUT_CORPUS` blocks (default 300: 3.2 s in debug on the 2-core VM). The long run, 10,000 blocks:
//! `SHADER_INFO_LAYOUT_CORPUS=10000 cargo test --release -p tests --test layout_corpus -- --nocapture`.
//! The seed is fixed; `SHADER_INFO_LAYOUT_CORPUS_SEED` picks another, and a failure prints the one it ran with.

use gpu::compiler::{Compiler, Profile};
use gpu::cross::{CrossOptions, Target, Verdict, translate_module};
use gpu::flow::Flow;
use shader_info::{
    Field, FieldArray, FieldType, Frequency, MemoryLoader, Qualifier, Registry, Rules,
    ShaderCreateInfo, Stage, StructDef, Type, render_all,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tests::layout_corpus::{Case, Generator};

const CASES_ENV: &str = "SHADER_INFO_LAYOUT_CORPUS";
const SEED_ENV: &str = "SHADER_INFO_LAYOUT_CORPUS_SEED";
/// An info's name (`corpus_s12`): its GLSL and every target's text are printed, for a failure's reproduction.
const SHOW_ENV: &str = "SHADER_INFO_LAYOUT_CORPUS_SHOW";
const DEFAULT_CASES: usize = 300;
const DEFAULT_SEED: u64 = 0x1a70_c0de_u64;
/// Cases per registry and flow: the flow keeps every verdict it made, so a long run starts a fresh one now and
/// then instead of holding 10,000 blocks' translations.
const CASES_PER_FLOW: usize = 20;
const TARGETS: [Target; 4] = [Target::Wgsl, Target::Hlsl, Target::Gl, Target::Gles];

/// The documented reasons a corpus block may be unsupported on a target, as the pass words them.
const F64_REASON: &str = "64-bit floats";
const STD140_TWO_ROW_REASON: &str = "whose std140 column stride of 16 bytes naga cannot read";
const WGSL_STRIDE_REASON: &str = "WGSL arrays cannot take an explicit stride";
const WGSL_OFFSET_REASON: &str = "WGSL text without explicit offsets cannot hold that layout";

/// Which leaf types a case draws from: every type (some blocks are then unsupported on some targets, for the
/// documented reasons), every type but doubles (std430 matrices with two rows reach every target), and the types
/// every target takes in both layouts (so most blocks are checked everywhere).
fn palettes() -> [Vec<Type>; 3] {
    let all = Type::ALL.to_vec();
    let no_f64: Vec<Type> = all.iter().copied().filter(|t| !t.is_double()).collect();
    let portable = no_f64.iter().copied().filter(|t| !two_rows(*t)).collect();
    [all, no_f64, portable]
}

fn two_rows(t: Type) -> bool {
    t.is_matrix() && t.shape().1 == 2
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
    )
}

/// Case `i` comes from generator `i % 3`, each with its own palette and a seed derived from `seed`.
fn corpus(seed: u64, n: usize) -> Vec<Case> {
    let mut gens: Vec<Generator> = palettes()
        .iter()
        .enumerate()
        .map(|(k, p)| Generator::with_types(seed.wrapping_add(k as u64), p))
        .collect();
    (0..n).map(|i| gens[i % 3].case(i)).collect()
}

/// How one case's blocks are declared: the uniform block as `u` or `u[2]`, the storage block as `s`, `s[]` or
/// `s[2]` (arrays of the block struct check its size as a stride), chosen by index so every shape recurs.
fn uniform_name(c: &Case) -> &'static str {
    ["u", "u[2]"][c.index % 2]
}

fn storage_name(c: &Case) -> &'static str {
    ["s", "s[]", "s[2]"][c.index % 3]
}

fn block_struct(c: &Case) -> String {
    format!("C{}_B", c.index)
}

/// The elements an array name stands for: `s[2]` → `s[0]`, `s[1]`; `s[]` → `s[0]`, `s[1]`; `s` → `s`.
fn elements(name: &str) -> Vec<String> {
    match name.split_once('[') {
        None => vec![name.to_string()],
        Some((base, rest)) => {
            let n: u32 = rest.trim_end_matches(']').parse().unwrap_or(2);
            (0..n).map(|k| format!("{base}[{k}]")).collect()
        }
    }
}

/// A float read of every leaf of `field` under `base`, so that no member is inactive for a checker's
/// reflection and none is optimized away.
fn reads(base: &str, field: &Field, structs: &[StructDef], out: &mut Vec<String>) {
    let name = format!("{base}{}", field.name);
    let elems = match field.array {
        FieldArray::None => vec![name],
        FieldArray::Fixed(n) => (0..n).map(|k| format!("{name}[{k}]")).collect(),
        FieldArray::Runtime => vec![format!("{name}[0]"), format!("{name}[1]")],
    };
    for e in elems {
        match &field.ty {
            FieldType::Value(t) if t.is_matrix() => out.push(format!("float({e}[1][0])")),
            FieldType::Value(t) if t.shape().1 > 1 => out.push(format!("float({e}.y)")),
            FieldType::Value(_) => out.push(format!("float({e})")),
            FieldType::Struct(s) => {
                let def = structs
                    .iter()
                    .find(|d| &d.name == s)
                    .expect("the generator defines every struct it uses");
                for f in &def.fields {
                    reads(&format!("{e}."), f, structs, out);
                }
            }
        }
    }
}

fn main_source(reads: &[String]) -> String {
    let mut s = String::from("void main() {\n  float acc = 0.0;\n");
    for r in reads {
        let _ = writeln!(s, "  acc += {r};");
    }
    s.push_str("  sink[0] = acc;\n}\n");
    s
}

/// The block's two infos (uniform and storage) and their sources.
fn declare(c: &Case, reg: &mut Registry, loader: &mut MemoryLoader) -> [(String, Rules); 2] {
    for s in &c.structs {
        reg.add_struct(s.clone());
    }
    let mut b = StructDef::new(block_struct(c));
    for f in &c.fields {
        b = b.field(f.clone());
    }
    reg.add_struct(b.clone());

    let uniform = format!("corpus_u{}", c.index);
    let mut r = Vec::new();
    for e in elements(uniform_name(c)) {
        for f in &c.fields {
            reads(&format!("{e}."), f, &c.structs, &mut r);
        }
    }
    let path = format!("{uniform}.glsl");
    loader.0.insert(path.clone(), main_source(&r));
    reg.add_info(
        ShaderCreateInfo::new(uniform.clone())
            .compute_source(path)
            .local_group_size(1)
            .uniform_buf(0, block_struct(c), uniform_name(c), Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "float", "sink[]", Frequency::Pass)
            .do_static_compilation(true),
    );

    let storage = format!("corpus_s{}", c.index);
    let mut r = Vec::new();
    for e in elements(storage_name(c)) {
        for f in &c.fields {
            reads(&format!("{e}."), f, &c.structs, &mut r);
        }
    }
    let mut info = ShaderCreateInfo::new(storage.clone())
        .compute_source(format!("{storage}.glsl"))
        .local_group_size(1)
        .storage_buf(
            0,
            Qualifier::Read,
            block_struct(c),
            storage_name(c),
            Frequency::Pass,
        )
        .storage_buf(1, Qualifier::Write, "float", "sink[]", Frequency::Pass);
    if let Some(tail) = &c.runtime {
        reads("", tail, &c.structs, &mut r);
        info = info.storage_buf(
            2,
            Qualifier::Read,
            tail.ty.glsl_name(),
            format!("{}[]", tail.name),
            Frequency::Pass,
        );
    }
    loader.0.insert(format!("{storage}.glsl"), main_source(&r));
    reg.add_info(info.do_static_compilation(true));
    [(uniform, Rules::Std140), (storage, Rules::Std430)]
}

/// Every leaf of `fields`, through nested structs: its type and whether the field is an array itself.
fn leaves(fields: &[Field], structs: &[StructDef], out: &mut Vec<(Type, bool)>) {
    for f in fields {
        match &f.ty {
            FieldType::Value(t) => out.push((*t, f.array != FieldArray::None)),
            FieldType::Struct(s) => {
                if let Some(d) = structs.iter().find(|d| &d.name == s) {
                    leaves(&d.fields, structs, out);
                }
            }
        }
    }
}

fn has_struct(fields: &[Field]) -> bool {
    fields.iter().any(|f| matches!(f.ty, FieldType::Struct(_)))
}

fn has_array(fields: &[Field], structs: &[StructDef]) -> bool {
    fields.iter().any(|f| {
        f.array != FieldArray::None
            || matches!(&f.ty, FieldType::Struct(s)
                if structs.iter().any(|d| &d.name == s && has_array(&d.fields, structs)))
    })
}

/// The documented reasons a block cannot reach `target`, predicted from the block alone: those it must be given,
/// and those it may be given. None required and none given: it must translate and pass its check.
fn expected_unsupported(
    c: &Case,
    rules: Rules,
    target: Target,
    block_is_array: bool,
) -> (Vec<&'static str>, Vec<&'static str>) {
    let fields = c.block_fields(rules);
    let mut leaf = Vec::new();
    leaves(&fields, &c.structs, &mut leaf);
    // naga refuses the MatrixStride of a 2-row matrix member; one in an array carries its stride on the array,
    // which naga reads (and WGSL then cannot write, below).
    if rules == Rules::Std140 && leaf.iter().any(|(t, array)| two_rows(*t) && !array) {
        return (vec![STD140_TWO_ROW_REASON], vec![STD140_TWO_ROW_REASON]);
    }
    let mut required = Vec::new();
    let mut allowed = Vec::new();
    if target == Target::Wgsl && rules == Rules::Std140 {
        if leaf
            .iter()
            .any(|(t, array)| *array && !t.is_matrix() && t.size(Rules::Std430) <= 8)
        {
            required.push(WGSL_STRIDE_REASON);
        }
        // Arrays of 2-row matrices and of structs may be padded past WGSL's stride too.
        if block_is_array || has_array(&fields, &c.structs) {
            allowed.push(WGSL_STRIDE_REASON);
        }
        // std140 aligns a struct member to 16 bytes; WGSL, to its largest member's alignment.
        if has_struct(&fields) {
            allowed.push(WGSL_OFFSET_REASON);
        }
    }
    if leaf.iter().any(|(t, _)| t.is_double()) && matches!(target, Target::Wgsl | Target::Gles) {
        required.push(F64_REASON);
    }
    allowed.extend(required.iter().copied());
    (required, allowed)
}

/// Prints what one block became: the declaration, the generated GLSL and each target's translation.
fn show(flow: &Flow, info: &shader_info::ValidatedInfo, c: &Case, rules: Rules) {
    println!("{}", c.describe(rules));
    let unchecked = CrossOptions {
        targets: TARGETS.to_vec(),
        check: false,
        ..Default::default()
    };
    for (target, verdict) in translate_module(flow, info, Stage::Compute, &unchecked) {
        match verdict {
            Verdict::Translated(t) => {
                println!("--- {target}:\n{}", t.text);
                if target == Target::Gl {
                    println!(
                        "--- glslang's reflection of it:\n{:?}",
                        gpu::cross::check::native::gl(&t.text, Stage::Compute)
                    );
                }
            }
            v => println!("--- {target}: {:?}", v.lines(target)),
        }
    }
}

/// Counts over the run, by (layout, target).
#[derive(Default)]
struct Tally {
    checked: BTreeMap<(String, Target), usize>,
    unsupported: BTreeMap<(String, Target, &'static str), usize>,
    compiled: usize,
    problems: Vec<String>,
}

fn run_chunk(cases: &[Case], compiler: &Compiler, tally: &Mutex<Tally>) {
    let mut reg = Registry::new();
    let mut loader = MemoryLoader::default();
    let infos: Vec<(&Case, String, Rules)> = cases
        .iter()
        .flat_map(|c| declare(c, &mut reg, &mut loader).map(|(n, r)| (c, n, r)))
        .collect();
    let flow = Flow::new(&reg, &loader, compiler, Profile::Debug);
    let opts = CrossOptions {
        targets: TARGETS.to_vec(),
        check: true,
        ..Default::default()
    };
    for (c, name, rules) in infos {
        let mut problems = Vec::new();
        let mut checked = Vec::new();
        let mut unsupported = Vec::new();
        let mut compiled = 0;
        match flow.validated(&name) {
            Err(d) => problems.push(format!("validation refuses it:\n{}", render_all(&d))),
            Ok(info) => {
                match flow.compile(&info, Stage::Compute) {
                    Err(d) => problems.push(format!(
                        "the flow refuses it (compile or the reflection cross-check):\n{}",
                        render_all(&d)
                    )),
                    Ok(_) => compiled += 1,
                }
                if std::env::var(SHOW_ENV).is_ok_and(|v| v == name) {
                    show(&flow, &info, c, rules);
                }
                for (target, verdict) in translate_module(&flow, &info, Stage::Compute, &opts) {
                    let block_is_array = match rules {
                        Rules::Std140 => uniform_name(c).contains('['),
                        Rules::Std430 => storage_name(c).contains('['),
                    };
                    let (want, allowed) = expected_unsupported(c, rules, target, block_is_array);
                    let explained = |reasons: &[String]| {
                        reasons
                            .iter()
                            .all(|r| allowed.iter().any(|w| r.contains(w)))
                            && want.iter().all(|w| reasons.iter().any(|r| r.contains(w)))
                    };
                    match (verdict, want.is_empty()) {
                        (Verdict::Translated(_), true) => checked.push(target),
                        (Verdict::Unsupported(reasons), _) if explained(&reasons) => {
                            unsupported.extend(
                                allowed
                                    .iter()
                                    .filter(|w| reasons.iter().any(|r| r.contains(*w)))
                                    .map(|w| (target, *w)),
                            );
                        }
                        (Verdict::Failed(d), _) => problems.push(format!(
                            "{target}: the translation or its check fails:\n{}",
                            render_all(&d)
                        )),
                        (v, _) => problems.push(format!(
                            "{target}: {} where the corpus expects {}: {:?}",
                            v.word(),
                            if want.is_empty() {
                                "a checked translation".to_string()
                            } else {
                                format!("unsupported ({})", want.join("; "))
                            },
                            v.lines(target)
                        )),
                    }
                }
            }
        }
        let mut t = tally.lock().unwrap();
        t.compiled += compiled;
        for target in checked {
            *t.checked.entry((rules.to_string(), target)).or_default() += 1;
        }
        for (target, reason) in unsupported {
            *t.unsupported
                .entry((rules.to_string(), target, reason))
                .or_default() += 1;
        }
        if !problems.is_empty() {
            t.problems.push(format!(
                "case {} ({rules}, info `{name}`):\n  {}\n{}",
                c.index,
                problems.join("\n  "),
                c.describe(rules)
            ));
        }
    }
}

#[test]
fn random_blocks_match_their_declaration_on_every_target() {
    let n: usize = env_number(CASES_ENV).unwrap_or(DEFAULT_CASES);
    let seed: u64 = env_number(SEED_ENV).unwrap_or(DEFAULT_SEED);
    let started = std::time::Instant::now();
    let cases = corpus(seed, n);
    let root = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(root.path()).unwrap();
    let chunks: Vec<&[Case]> = cases.chunks(CASES_PER_FLOW).collect();
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(16));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    run_chunk(chunk, &compiler, &tally);
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    let mut problems = t.problems;
    problems.sort();
    println!(
        "layout corpus: {n} random blocks × 2 layouts, {SEED_ENV}={seed}, {} modules compiled and cross-checked, \
         {:.1} s on {threads} threads",
        t.compiled,
        started.elapsed().as_secs_f64()
    );
    for ((rules, target), k) in &t.checked {
        println!("  {rules} on {target}: {k} translated and checked");
    }
    for ((rules, target, reason), k) in &t.unsupported {
        println!("  {rules} on {target}: {k} unsupported ({reason})");
    }
    println!("  {} block(s) with a problem", problems.len());
    for p in problems.iter().take(10) {
        println!("{p}\n");
    }
    assert!(
        problems.is_empty(),
        "{} block(s) mismatched or failed a check ({SEED_ENV}={seed} {CASES_ENV}={n}; first 10 printed above)",
        problems.len()
    );
    // A pass that checked nothing proves nothing: every target must have checked both layouts, most blocks of
    // the portable palette included.
    for rules in [Rules::Std140, Rules::Std430] {
        for target in TARGETS {
            let k = t
                .checked
                .get(&(rules.to_string(), target))
                .copied()
                .unwrap_or(0);
            assert!(
                k * 4 >= n,
                "only {k} of {n} {rules} blocks were checked on {target}"
            );
        }
    }
    assert_eq!(
        t.compiled,
        2 * n,
        "every block compiles and passes the flow"
    );
}
