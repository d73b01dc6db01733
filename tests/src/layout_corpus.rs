//! The random block corpus of the layout tests: a deterministic generator of block definitions (every `Type`,
//! fixed arrays of values, matrices and structs, structs nested three deep, a runtime array at the end of storage
//! blocks). The glslang differential of the layout engine (`tests/layout_differential.rs`) and the corpus through
//! every translation target (`tests/layout_corpus.rs`) draw their blocks from this one generator, so that what
//! one proves about the engine the other proves about the targets.
//!
//! ```
//! use tests::layout_corpus::Generator;
//! let mut g = Generator::new(7);
//! let case = g.case(0);
//! assert!(!case.fields.is_empty());
//! ```

use shader_info::{Field, FieldArray, FieldType, Rules, StructDef, StructMap, Type};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Struct nesting below the block: block → struct → struct → struct.
pub const MAX_DEPTH: u32 = 3;

/// xorshift64*: tiny, deterministic, and good enough to spread choices over the corpus.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() >> 32) as u32 % n
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// One random block body plus the structs it uses.
#[derive(Clone, Debug)]
pub struct Case {
    pub index: usize,
    /// In definition order (a struct comes after every struct it uses).
    pub structs: Vec<StructDef>,
    pub fields: Vec<Field>,
    /// Appended to the storage block only: runtime arrays are not allowed in uniform blocks.
    pub runtime: Option<Field>,
}

impl Case {
    pub fn uniform_name(&self) -> String {
        format!("U{}", self.index)
    }

    pub fn storage_name(&self) -> String {
        format!("S{}", self.index)
    }

    /// The block's members under `rules`: the runtime tail only in the std430 (storage) block.
    pub fn block_fields(&self, rules: Rules) -> Vec<Field> {
        let mut f = self.fields.clone();
        if rules == Rules::Std430 {
            f.extend(self.runtime.clone());
        }
        f
    }

    pub fn struct_map(&self) -> StructMap {
        let mut m = StructMap::default();
        for s in &self.structs {
            m.insert(s.clone());
        }
        m
    }

    /// The GLSL of the case's structs and of its block under `rules`, for failure messages.
    pub fn describe(&self, rules: Rules) -> String {
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

/// Draws cases from a seed. Every case's struct names carry its index (`C7_T0`), so the structs of many cases
/// can share one registry or one shader.
pub struct Generator {
    rng: Rng,
    /// The leaf types drawn from (every `Type` unless [`Generator::with_types`] narrows it).
    types: Vec<Type>,
    /// The leaf types drawn so far: a corpus that never drew a type proves nothing about it.
    pub types_used: BTreeSet<Type>,
}

impl Generator {
    /// Leaves drawn from every `Type`.
    pub fn new(seed: u64) -> Generator {
        Generator::with_types(seed, &Type::ALL)
    }

    /// Leaves drawn from `types` only (a target that cannot express a type is still given blocks it can take).
    pub fn with_types(seed: u64, types: &[Type]) -> Generator {
        assert!(!types.is_empty(), "a corpus needs leaf types");
        Generator {
            rng: Rng(seed),
            types: types.to_vec(),
            types_used: BTreeSet::new(),
        }
    }

    fn value_type(&mut self) -> Type {
        let t = self.types[self.rng.below(self.types.len() as u32) as usize];
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

    /// The next case, named by `index`.
    pub fn case(&mut self, index: usize) -> Case {
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
pub fn struct_depth(s: &StructDef, all: &[StructDef]) -> u32 {
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
