//! Differential test of the std140/std430 layout engine against glslang, the Khronos reference compiler.
//!
//! A deterministic corpus of random block definitions (every `Type`, fixed arrays of values, matrices and structs,
//! structs nested three deep, a runtime array at the end of storage blocks) is declared once as a std140 uniform
//! block and once as a std430 storage block. Blocks are batched into compute shaders so that glslang runs only a
//! few dozen times. Each block is checked two independent ways:
//! - glslang's reflection: the offset, array length, array stride and top-level array stride of every flattened
//!   member (`U3.f1[2].f0`), the block size, and that every member the engine knows about was reported;
//! - the SPIR-V glslang emitted: the `Offset`, `ArrayStride` and `MatrixStride` decorations of every member of
//!   every (nested) struct type, which also covers matrix strides that reflection does not print.

use shader_info::{
    BlockLayout, Field, FieldArray, FieldType, Rules, StructDef, StructMap, Type, layout_fields,
};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tests::glslang;

/// Number of random block definitions; each is checked under both rules.
const CASES: usize = 1000;
/// Cases per compute shader: 25 cases give 50 blocks (25 uniform + 25 storage) per glslang run, 40 runs in all.
const CASES_PER_SHADER: usize = 25;
/// Struct nesting below the block: block → struct → struct → struct.
const MAX_DEPTH: u32 = 3;
const SEED: u64 = 0x5eed_1a70_u64;

/// xorshift64*: tiny, deterministic, and good enough to spread choices over the corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        (self.next() >> 32) as u32 % n
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// One random block body plus the structs it uses.
struct Case {
    index: usize,
    /// In definition order (a struct comes after every struct it uses).
    structs: Vec<StructDef>,
    fields: Vec<Field>,
    /// Appended to the storage block only: runtime arrays are not allowed in uniform blocks.
    runtime: Option<Field>,
}

impl Case {
    fn uniform_name(&self) -> String {
        format!("U{}", self.index)
    }

    fn storage_name(&self) -> String {
        format!("S{}", self.index)
    }

    fn block_fields(&self, rules: Rules) -> Vec<Field> {
        let mut f = self.fields.clone();
        if rules == Rules::Std430 {
            f.extend(self.runtime.clone());
        }
        f
    }

    fn struct_map(&self) -> StructMap {
        let mut m = StructMap::default();
        for s in &self.structs {
            m.insert(s.clone());
        }
        m
    }

    /// The GLSL of the case's structs and of its block under `rules`, for failure messages.
    fn describe(&self, rules: Rules) -> String {
        let mut s: String = self.structs.iter().map(StructDef::glsl).collect();
        let (kind, name) = match rules {
            Rules::Std140 => ("uniform", self.uniform_name()),
            Rules::Std430 => ("buffer", self.storage_name()),
        };
        let _ = writeln!(s, "layout({rules}) {kind} {name} {{");
        for f in self.block_fields(rules) {
            let _ = writeln!(s, "  {}", f.glsl_decl());
        }
        s.push_str("};");
        s
    }
}

struct Generator {
    rng: Rng,
    types_used: BTreeSet<Type>,
}

impl Generator {
    fn value_type(&mut self) -> Type {
        let t = Type::ALL[self.rng.below(Type::ALL.len() as u32) as usize];
        self.types_used.insert(t);
        t
    }

    /// A field at `depth` (0 = block member). Nested structs are either new or reused from this case.
    fn field(
        &mut self,
        case: usize,
        depth: u32,
        name: String,
        structs: &mut Vec<StructDef>,
    ) -> Field {
        let ty = if depth < MAX_DEPTH && self.rng.chance(25) {
            // Reuse only structs that sit no deeper than allowed here; new ones nest further themselves.
            let reusable: Vec<&StructDef> = structs
                .iter()
                .filter(|s| struct_depth(s, structs) + depth <= MAX_DEPTH)
                .collect();
            if !reusable.is_empty() && self.rng.chance(30) {
                let pick = self.rng.below(reusable.len() as u32) as usize;
                FieldType::Struct(reusable[pick].name.clone())
            } else {
                FieldType::Struct(self.structure(case, depth + 1, structs))
            }
        } else {
            FieldType::Value(self.value_type())
        };
        let array = if self.rng.chance(25) {
            // Short arrays: glslang's reflection lists every element of an array of structs.
            FieldArray::Fixed(1 + self.rng.below(3))
        } else {
            FieldArray::None
        };
        Field { name, ty, array }
    }

    /// Defines a new struct at nesting `depth` (1 = member of a block) and returns its name.
    fn structure(&mut self, case: usize, depth: u32, structs: &mut Vec<StructDef>) -> String {
        let n = 1 + self.rng.below(5);
        let fields = (0..n)
            .map(|i| self.field(case, depth, format!("m{i}"), structs))
            .collect();
        let name = format!("C{case}_T{}", structs.len());
        structs.push(StructDef {
            name: name.clone(),
            fields,
        });
        name
    }

    fn case(&mut self, index: usize) -> Case {
        let mut structs = Vec::new();
        let n = 1 + self.rng.below(6);
        let fields = (0..n)
            .map(|i| self.field(index, 0, format!("f{i}"), &mut structs))
            .collect();
        let runtime = self.rng.chance(60).then(|| {
            let mut f = self.field(index, 0, "tail".into(), &mut structs);
            f.array = FieldArray::Runtime;
            f
        });
        Case {
            index,
            structs,
            fields,
            runtime,
        }
    }
}

/// Levels of struct nesting inside `s`, counting `s` itself.
fn struct_depth(s: &StructDef, all: &[StructDef]) -> u32 {
    1 + s
        .fields
        .iter()
        .filter_map(|f| match &f.ty {
            FieldType::Struct(n) => all.iter().find(|d| &d.name == n),
            FieldType::Value(_) => None,
        })
        .map(|d| struct_depth(d, all))
        .max()
        .unwrap_or(0)
}

fn corpus() -> (Vec<Case>, BTreeSet<Type>) {
    let mut g = Generator {
        rng: Rng(SEED),
        types_used: BTreeSet::new(),
    };
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
