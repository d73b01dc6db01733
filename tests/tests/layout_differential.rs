//! Differential test of the std140/std430 layout engine against glslang, the Khronos reference compiler.
//!
//! A deterministic corpus of random block definitions ([`tests::layout_corpus`]: every `Type`, fixed arrays of values,
//! matrices and structs, structs nested three deep, a runtime array at the end of storage blocks; the same
//! generator feeds the corpus through every translation target, `tests/layout_corpus.rs`) is declared once as a std140 uniform
//! block and once as a std430 storage block. Blocks are batched into compute shaders so that glslang runs only a
//! few dozen times. Each block is checked two independent ways:
//! - glslang's reflection: the offset, array length, array stride and top-level array stride of every flattened
//!   member (`U3.f1[2].f0`), the block size, and that every member the engine knows about was reported;
//! - the SPIR-V glslang emitted: the `Offset`, `ArrayStride` and `MatrixStride` decorations of every member of
//!   every (nested) struct type, which also covers matrix strides that reflection does not print.

use shader_info::{
    BlockLayout, Field, FieldArray, FieldType, Rules, StructMap, Type, layout_fields,
};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tests::glslang;
use tests::layout_corpus::{Case, Generator, MAX_DEPTH, struct_depth};

/// Number of random block definitions; each is checked under both rules.
const CASES: usize = 1000;
/// Cases per compute shader: 25 cases give 50 blocks (25 uniform + 25 storage) per glslang run, 40 runs in all.
const CASES_PER_SHADER: usize = 25;
const SEED: u64 = 0x5eed_1a70_u64;

fn corpus() -> (Vec<Case>, BTreeSet<Type>) {
    let mut g = Generator::new(SEED);
    let cases = (0..CASES).map(|i| g.case(i)).collect();
    (cases, g.types_used)
}

/// One compute shader declaring every struct and both blocks of each case, and touching each block once so that
/// it is active (`--reflect-all-block-variables` then reports all of its members).
fn shader(cases: &[Case]) -> String {
    let mut s = String::from("#version 450\nlayout(local_size_x = 1) in;\n");
    let mut uses = String::new();
    for c in cases {
        for d in &c.structs {
            s.push_str(&d.glsl());
        }
        for (rules, kind, name, binding) in [
            (Rules::Std140, "uniform", c.uniform_name(), 2 * c.index),
            (Rules::Std430, "buffer", c.storage_name(), 2 * c.index + 1),
        ] {
            let inst = name.to_lowercase();
            let _ = writeln!(
                s,
                "layout({rules}, set = 0, binding = {binding}) {kind} {name} {{"
            );
            for f in c.block_fields(rules) {
                let _ = writeln!(s, "  {}", f.glsl_decl());
            }
            let _ = writeln!(s, "}} {inst};");
            let first = &c.fields[0];
            let dims = match first.array {
                FieldArray::Fixed(n) => format!("[{n}]"),
                _ => String::new(),
            };
            let _ = writeln!(
                uses,
                "  {{ {} tmp{dims} = {inst}.{}; }}",
                first.ty.glsl_name(),
                first.name
            );
        }
    }
    s.push_str("void main() {\n");
    s.push_str(&uses);
    s.push_str("}\n");
    s
}

/// Compiles one batch and returns (reflected members checked, SPIR-V members checked, mismatch reports).
fn check_batch(cases: &[Case], dir: &std::path::Path) -> (usize, usize, Vec<String>) {
    let path = dir.join(format!("batch{}.comp", cases[0].index));
    let src = shader(cases);
    std::fs::write(&path, &src).unwrap();
    let out = match glslang::compile_file_and_reflect(&path) {
        Ok(o) => o,
        Err(e) => return (0, 0, vec![format!("glslang failed on {path:?}: {e}")]),
    };
    let (mut refl, mut spv, mut reports) = (0, 0, Vec::new());
    for c in cases {
        let structs = c.struct_map();
        for (rules, block) in [
            (Rules::Std140, c.uniform_name()),
            (Rules::Std430, c.storage_name()),
        ] {
            let layout = match layout_fields(&c.block_fields(rules), rules, &structs, &mut vec![]) {
                Ok(l) => l,
                Err(e) => {
                    reports.push(format!(
                        "engine error on {block}: {e}\n{}",
                        c.describe(rules)
                    ));
                    continue;
                }
            };
            let check = glslang::check_block_layout(&out, &block, rules, &layout);
            refl += check.reflected_members;
            spv += check.spirv_members;
            let errors = check.errors;
            if !errors.is_empty() {
                reports.push(format!(
                    "{} mismatch(es) in {block} ({rules}):\n  {}\n{}",
                    errors.len(),
                    errors.join("\n  "),
                    c.describe(rules)
                ));
            }
        }
    }
    (refl, spv, reports)
}

#[test]
fn layout_engine_matches_glslang_on_random_corpus() {
    let (cases, types_used) = corpus();
    // The corpus must exercise what the engine claims to handle, or a pass means little.
    assert_eq!(types_used.len(), Type::ALL.len(), "corpus misses types");
    let structs: usize = cases.iter().map(|c| c.structs.len()).sum();
    let max_depth = cases
        .iter()
        .flat_map(|c| c.structs.iter().map(|s| struct_depth(s, &c.structs)))
        .max();
    assert_eq!(
        max_depth,
        Some(MAX_DEPTH),
        "corpus never nests {MAX_DEPTH} deep"
    );
    let has = |p: &dyn Fn(&Field) -> bool| {
        cases.iter().any(|c| {
            c.fields
                .iter()
                .chain(c.structs.iter().flat_map(|s| &s.fields))
                .any(p)
        })
    };
    assert!(has(&|f| matches!(
        (&f.ty, f.array),
        (FieldType::Value(t), FieldArray::Fixed(_)) if t.is_matrix()
    )));
    assert!(has(&|f| matches!(
        (&f.ty, f.array),
        (FieldType::Struct(_), FieldArray::Fixed(_))
    )));
    assert!(
        cases
            .iter()
            .any(|c| matches!(&c.runtime, Some(f) if matches!(f.ty, FieldType::Struct(_))))
    );

    let dir = tempfile::tempdir().unwrap();
    let batches: Vec<&[Case]> = cases.chunks(CASES_PER_SHADER).collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new((0usize, 0usize, Vec::new()));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let (r, v, e) = check_batch(batch, dir.path());
                    let mut res = results.lock().unwrap();
                    res.0 += r;
                    res.1 += v;
                    res.2.extend(e);
                }
            });
        }
    });
    let (refl, spv, mut reports) = results.into_inner().unwrap();
    reports.sort();
    println!(
        "layout differential: {CASES} random blocks × 2 layouts ({structs} nested struct definitions) in {} \
         glslang runs; {refl} reflected members and {spv} SPIR-V members compared; {} block(s) mismatched",
        batches.len(),
        reports.len()
    );
    for r in reports.iter().take(20) {
        println!("{r}\n");
    }
    assert!(
        reports.is_empty(),
        "{} block(s) differ from glslang (first 20 printed above)",
        reports.len()
    );
    // A checker that compares nothing passes trivially; make sure it saw the whole corpus.
    assert!(
        refl > 10 * CASES && spv > 10 * CASES,
        "too few members compared: {refl}, {spv}"
    );
}

/// The checks above must be able to fail: each kind of wrong answer is reported by the oracle(s) that see it.
#[test]
fn checker_reports_wrong_offsets_and_strides() {
    let case = Case {
        index: 0,
        structs: vec![],
        fields: vec![
            Field::new(Type::Vec3, "a"),
            Field::new(Type::Float, "b"),
            Field::new(Type::Mat3x2, "c").array(2),
        ],
        runtime: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.comp");
    std::fs::write(&path, shader(std::slice::from_ref(&case))).unwrap();
    let out = glslang::compile_file_and_reflect(&path).unwrap();
    let good = layout_fields(
        &case.fields,
        Rules::Std140,
        &StructMap::default(),
        &mut vec![],
    )
    .unwrap();
    let check = |layout: &BlockLayout| {
        glslang::check_block_layout(&out, "U0", Rules::Std140, layout).errors
    };
    assert_eq!(check(&good), Vec::<String>::new());

    let mut wrong = good.clone();
    wrong.members[1].offset = 16; // a float after a vec3 really packs at 12
    let e = check(&wrong);
    assert!(
        e.iter().any(|e| e.contains("U0.b: offset: glslang")),
        "{e:?}"
    );
    assert!(
        e.iter().any(|e| e.contains("U0.b: offset: SPIR-V")),
        "{e:?}"
    );

    let mut wrong = good.clone();
    wrong.members[2].matrix_stride = Some(8); // std430's stride, not std140's
    let e = check(&wrong);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("matrix stride"), "{e:?}");

    let mut wrong = good.clone();
    wrong.members[2].array_stride = Some(24);
    let e = check(&wrong);
    assert!(
        e.iter().any(|e| e.contains("U0.c: array stride: glslang")),
        "{e:?}"
    );
    assert!(
        e.iter().any(|e| e.contains("U0.c: array stride: SPIR-V")),
        "{e:?}"
    );

    let mut wrong = good;
    wrong.end += 4;
    let e = check(&wrong);
    assert!(e.iter().any(|e| e.contains("block size")), "{e:?}");
}
