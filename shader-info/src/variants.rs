//! Variants: static branches, folded by a specialize function into a few unique variants, looked up at run time
//! by a bit index.
//!
//! An info declares boolean branches by name (`.branch("SKINNING")`); `additional_info` brings branches along like
//! any other item. Bit `i` of a permutation is the value of branch `i` in resolved order. For N branches there
//! are 2^N permutations; the optional specialize function sees each one and may fold branch values, add defines,
//! pick other stage sources or declare the permutation never used. The distinct results are the unique variants,
//! and only those are generated and compiled.
//!
//! **How a branch reaches GLSL**: as a constant with the branch's name, `const bool SKINNING = true;`, emitted
//! where specialization constants are. Shader code tests it with a plain `if (SKINNING)`, which the compiler
//! folds. Because a specialization constant is also a `const bool` of that name, moving a name from the branch
//! list to `specialization_constant(Type::Bool, "SKINNING", false)` keeps the GLSL source unchanged and makes the
//! value a pipeline-time choice instead.
//!
//! ```
//! use shader_info::*;
//! fn fold(v: &mut VariantBuilder) {
//!     if v.get("DEPTH_ONLY") {
//!         v.set("FOG", false); // a depth-only pass has no lighting features
//!     }
//! }
//! let mut reg = Registry::new();
//! reg.add_info(ShaderCreateInfo::new("mesh").branch("DEPTH_ONLY").branch("FOG").specialize(fold));
//! let info = reg.resolve("mesh").unwrap();
//! let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
//! assert_eq!(set.permutations(), 4);
//! assert_eq!(set.variants.len(), 3); // DEPTH_ONLY+FOG folds into DEPTH_ONLY
//! let i = set.lookup(0b11).unwrap();
//! assert!(!set.variants[i].value("FOG", &set.branches));
//! ```

use crate::constant::ConstOverride;
use crate::diagnostic::{Code, Diagnostic};
use crate::info::ShaderCreateInfo;
use crate::render_state::StateItem;
use crate::resolve::ResolvedInfo;
use crate::specialize::VariantBuilder;
use crate::types::Stage;
use crate::vertex::VertexRate;
use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The default limit on the number of branches enumerated (2^20 permutations).
pub const DEFAULT_BRANCH_LIMIT: u32 = 20;

/// The most unique variants one info may have: each is a module the static pass compiles. 2^14: room for the
/// library's largest info (13 branches) unfolded, far below the million that 20 unfolded branches make.
pub const MAX_UNIQUE_VARIANTS: usize = 16_384;

/// `2^n`, written exactly for any `n` (`1u128 << n` stops at 127).
fn permutation_count(n: u32) -> String {
    if n < 64 {
        (1u64 << n).to_string()
    } else {
        format!("2^{n}")
    }
}

/// The most branches any limit allows: the permutation table holds 2^N entries (2^24 × 4 bytes = 64 MiB).
pub const MAX_BRANCH_LIMIT: u32 = 24;

/// What a variant changes in its info but for branch values and render state ([`Variant::changes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Changes<'a> {
    defines: &'a [(String, String)],
    sources: &'a [(Stage, String)],
    vertex_inputs: &'a [crate::vertex::VertexInput],
    constants: &'a [ConstOverride],
}

/// One unique variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// Folded branch values, one bit per branch.
    pub bits: u64,
    /// Extra defines from the specialize function, sorted.
    pub defines: Vec<(String, String)>,
    /// Stage-source overrides, sorted by stage.
    pub sources: Vec<(Stage, String)>,
    /// Render-state changes, one per slot, sorted by slot.
    pub state: Vec<StateItem>,
    /// Vertex inputs only this variant reads, sorted by location.
    pub vertex_inputs: Vec<crate::vertex::VertexInput>,
    /// Compilation constants this variant gives another value, sorted by name.
    pub constants: Vec<ConstOverride>,
}

impl Variant {
    /// The folded value of a branch.
    pub fn value(&self, name: &str, branches: &[String]) -> bool {
        branches
            .iter()
            .position(|b| b == name)
            .is_some_and(|i| bit(self.bits, i))
    }

    /// What this variant changes in its info but for branch values and render state: two variants with the same
    /// changes resolve to infos that differ only there, unless a conditional resource follows the branches
    /// ([`crate::ValidatedInfo::branch_twin`] checks that).
    pub(crate) fn changes(&self) -> Changes<'_> {
        Changes {
            defines: &self.defines,
            sources: &self.sources,
            vertex_inputs: &self.vertex_inputs,
            constants: &self.constants,
        }
    }

    /// The branch values of this variant, as its info lists them ([`ShaderCreateInfo::branch_values`]).
    pub(crate) fn branch_values(&self, branches: &[String]) -> Vec<(String, bool)> {
        branches
            .iter()
            .enumerate()
            .map(|(b, n)| (n.clone(), bit(self.bits, b)))
            .collect()
    }

    /// Which of `info`'s conditional resources this variant declares, as [`crate::resolve::apply_conditions`]
    /// decides it for the applied info (a branch that is on, or a boolean constant that is true after this
    /// variant's overrides).
    fn conditions(&self, info: &ShaderCreateInfo, branches: &[String]) -> Vec<bool> {
        crate::resolve::conditions_holding(
            info,
            |name| self.value(name, branches),
            |c| {
                self.constants
                    .iter()
                    .find(|o| o.name == c.name)
                    .map_or(c.value, |o| o.value)
            },
        )
    }

    /// `render_state` (an info's declared state) with this variant's state changes: each replaces the item of its
    /// slot.
    pub(crate) fn apply_state(
        &self,
        render_state: &mut Vec<crate::item::Item<StateItem>>,
        name: &str,
        origin: crate::origin::Origin,
    ) {
        for item in &self.state {
            render_state.retain(|s| s.value.slot() != item.slot());
            render_state.push(crate::item::Item {
                value: *item,
                declared_in: name.to_string(),
                origin,
            });
        }
    }

    /// The resolved info of this variant: branch constants set, sources replaced, defines added.
    pub fn apply(&self, info: &ResolvedInfo, branches: &[String]) -> ResolvedInfo {
        info.with_changes(|i| {
            i.branch_values = self.branch_values(branches);
            for c in &self.constants {
                if let Some(it) = i.constants.iter_mut().find(|k| k.value.name == c.name) {
                    it.value.value = c.value;
                }
            }
            crate::resolve::apply_conditions(i);
            for (stage, file) in &self.sources {
                match i.sources.iter_mut().find(|s| s.value.0 == *stage) {
                    Some(s) => s.value.1 = file.clone(),
                    None => {
                        let origin = i.origin;
                        let name = i.name.clone();
                        i.sources.push(crate::item::Item {
                            value: (*stage, file.clone()),
                            declared_in: name,
                            origin,
                        });
                    }
                }
            }
            let name = i.name.clone();
            let origin = i.origin;
            self.apply_state(&mut i.render_state, &name, origin);
            // A struct the permutation reads a buffer as replaces the info's inputs of that rate.
            let replaced: Vec<VertexRate> = self
                .vertex_inputs
                .iter()
                .filter(|v| v.host.is_some())
                .map(|v| v.rate)
                .collect();
            i.vertex_inputs
                .retain(|it| !replaced.contains(&it.value.rate));
            for input in &self.vertex_inputs {
                i.vertex_inputs.push(crate::item::Item {
                    value: input.clone(),
                    declared_in: name.clone(),
                    origin,
                });
            }
            for (n, v) in &self.defines {
                i.defines.push(crate::item::Item {
                    value: crate::info::Define {
                        name: n.clone(),
                        value: Some(v.clone()),
                    },
                    declared_in: name.clone(),
                    origin,
                });
            }
        })
    }
}

/// Why a variant lookup failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// The index has bits past the branch count.
    OutOfRange {
        info: String,
        bits: u64,
        branches: usize,
    },
    /// The specialize function declared this permutation never used.
    NeverUsed { info: String, permutation: String },
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::OutOfRange {
                info,
                bits,
                branches,
            } => write!(
                f,
                "variant index {bits:#b} of `{info}` is out of range: the info has {branches} branches, so indices are below {}",
                1u64 << branches
            ),
            VariantError::NeverUsed { info, permutation } => {
                write!(
                    f,
                    "permutation {permutation} of `{info}` was declared never used by its specialize function"
                )
            }
        }
    }
}

impl std::error::Error for VariantError {}

/// Every unique variant of an info and the table from permutation bits to variant index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantSet {
    /// The info the variants belong to.
    pub info: String,
    /// Branch names; bit `i` is `branches[i]`.
    pub branches: Vec<String>,
    /// The unique variants, in order of first appearance (permutation 0 first).
    pub variants: Vec<Variant>,
    /// `table[bits]` is the variant index, or `u32::MAX` for a never-used permutation.
    pub table: Vec<u32>,
}

impl VariantSet {
    /// 2^N for N branches.
    pub fn permutations(&self) -> usize {
        self.table.len()
    }

    /// The variant for a permutation: one bounds check and one table read, no hashing.
    #[inline]
    pub fn lookup(&self, bits: u64) -> Result<usize, VariantError> {
        // `usize::try_from`: on a 32-bit target `bits as usize` would wrap 2^32 to permutation 0.
        match usize::try_from(bits).ok().and_then(|at| self.table.get(at)) {
            Some(&i) if i != u32::MAX => Ok(i as usize),
            Some(_) => Err(VariantError::NeverUsed {
                info: self.info.clone(),
                permutation: self.describe(bits),
            }),
            None => Err(VariantError::OutOfRange {
                info: self.info.clone(),
                bits,
                branches: self.branches.len(),
            }),
        }
    }

    /// Builds a permutation index from branch values by name; unknown names are an error.
    pub fn bits_of(&self, values: &[(&str, bool)]) -> Result<u64, String> {
        let mut bits = 0;
        for (name, v) in values {
            let i = self
                .branches
                .iter()
                .position(|b| b == name)
                .ok_or_else(|| {
                    format!(
                        "`{}` has no branch named `{name}`; its branches: {}",
                        self.info,
                        self.branches.join(", ")
                    )
                })?;
            if *v {
                bits |= branch_bit(i).ok_or_else(|| {
                    format!(
                        "`{}`: branch `{name}` is bit {i} of a 64-bit permutation index (a set built by hand)",
                        self.info
                    )
                })?;
            }
        }
        Ok(bits)
    }

    /// The variants grouped by what their code is made of: each group holds the indices of variants whose infos
    /// differ only in branch values and render state (the same defines, sources, vertex inputs, constants and
    /// conditional resources: a blended and an opaque surface, or a fogged and an unfogged one), in index order,
    /// and the groups are in order of their first index. `info` is the info the set was enumerated from. No check
    /// but the render-state one reads either, and generation writes branch values in one section, so the static
    /// pass validates and generates the first of a group and derives the others from it
    /// ([`crate::ValidatedInfo::branch_twin`], [`crate::GeneratedStage::with_branches`]).
    ///
    /// ```
    /// use shader_info::*;
    /// fn fold(v: &mut VariantBuilder) {
    ///     if v.get("BLEND") {
    ///         v.state(StateItem::Blend(Blend::Alpha));
    ///         v.set("BLEND", false);
    ///     }
    ///     if v.get("DEPTH") {
    ///         v.source(Stage::Fragment, "depth.frag");
    ///     }
    /// }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("surface")
    ///     .branch("BLEND")
    ///     .branch("FOG")
    ///     .branch("DEPTH")
    ///     .specialize(fold)
    ///     .fragment_out(0, Type::Vec4, "color")
    ///     .vertex_source("s.vert")
    ///     .fragment_source("s.frag"));
    /// let info = reg.resolve("surface").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// // {}, {BLEND}, {FOG}, {BLEND, FOG} share their code but for FOG; the DEPTH ones read another source.
    /// assert_eq!(set.branch_twins(&info), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
    /// ```
    pub fn branch_twins(&self, info: &ShaderCreateInfo) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<(Changes, Vec<bool>), usize> =
            HashMap::with_capacity(self.variants.len());
        for (i, v) in self.variants.iter().enumerate() {
            match group_of.entry((v.changes(), v.conditions(info, &self.branches))) {
                std::collections::hash_map::Entry::Occupied(g) => groups[*g.get()].push(i),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(groups.len());
                    groups.push(vec![i]);
                }
            }
        }
        groups
    }

    /// `v3 {SKINNING, FOG}`: how diagnostics and reports name unique variant `index`.
    pub(crate) fn label(&self, index: usize) -> String {
        let bits = self.variants.get(index).map_or(0, |v| v.bits);
        format!("v{index} {}", self.describe(bits))
    }

    /// `{SKINNING, FOG}`-style description of a permutation.
    pub fn describe(&self, bits: u64) -> String {
        describe(&self.branches, bits)
    }
}

/// Enumerates the 2^N permutations of `info`'s branches, runs its specialize function on each, and keeps the
/// distinct results. A panic in the specialize function is caught and reported with the permutation. On one thread;
/// [`Enumeration`] is the same work in parts that threads can share.
pub fn enumerate_variants(info: &ResolvedInfo, limit: u32) -> Result<VariantSet, Vec<Diagnostic>> {
    let e = Enumeration::new(info, limit)?;
    let chunks = (0..e.chunks()).map(|i| e.chunk(i)).collect();
    e.finish(chunks)
}

/// Permutations specialised per [`PermutationChunk`]: the mesh ubershader's 8,192 make 16, enough for a pool's
/// threads to share, and the merge stays a small fraction of the work (it hashes each chunk's distinct variants
/// once more).
const PERMUTATIONS_PER_CHUNK: u64 = 512;

/// [`enumerate_variants`] in parts that can run on many threads. The permutations are specialised in
/// [`Enumeration::chunks`] ranges, each by [`Enumeration::chunk`] on whichever thread, and [`Enumeration::finish`]
/// merges them into exactly the set one serial enumeration gives: the variants in the order they first appear, the
/// error of the first permutation that fails. On 16 cores the mesh ubershader's enumeration, one thread's work,
/// held back the static pass's start while the other threads waited.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("m").branch("A").branch("B").branch("C"));
/// let info = reg.resolve("m").unwrap();
/// let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
/// // With rayon: `(0..e.chunks()).into_par_iter().map(|i| e.chunk(i)).collect()`.
/// let chunks = (0..e.chunks()).map(|i| e.chunk(i)).collect();
/// let set = e.finish(chunks).unwrap();
/// assert_eq!(set.variants.len(), 8);
/// ```
pub struct Enumeration<'a> {
    info: &'a ResolvedInfo,
    branches: Vec<String>,
    declared: Vec<crate::constant::SharedConstant>,
    count: u64,
    /// Which enumeration this is, so that `finish` refuses another one's chunks.
    id: u64,
}

/// The permutations of one range of an [`Enumeration`], specialised.
pub struct PermutationChunk {
    /// The [`Enumeration`] it was specialised by.
    enumeration: u64,
    /// The range's first permutation.
    start: u64,
    /// The range's distinct variants, in the order they first appear in it.
    variants: Vec<Variant>,
    /// Per permutation of the range, up to the first that failed, the index of its variant in `variants`
    /// (`u32::MAX`: never used).
    local: Vec<u32>,
    /// Why the range's first failing permutation failed.
    error: Option<Vec<Diagnostic>>,
}

/// A map of variants to their index, hashed fast: a variant is a handful of short vectors, hashed once per
/// permutation.
type VariantIndex = HashMap<Variant, u32, foldhash::fast::RandomState>;

/// The variants of `index`, in index order.
fn in_index_order(index: VariantIndex) -> Vec<Variant> {
    let mut variants: Vec<(Variant, u32)> = index.into_iter().collect();
    variants.sort_unstable_by_key(|(_, id)| *id);
    variants.into_iter().map(|(v, _)| v).collect()
}

impl<'a> Enumeration<'a> {
    /// The enumeration of `info`'s permutations, or the error of an info with more than `limit` branches (at most
    /// [`MAX_BRANCH_LIMIT`]).
    pub fn new(info: &'a ResolvedInfo, limit: u32) -> Result<Enumeration<'a>, Vec<Diagnostic>> {
        let branches: Vec<String> = info.branches.iter().map(|b| b.value.clone()).collect();
        let n = branches.len() as u32;
        let limit = limit.min(MAX_BRANCH_LIMIT);
        if n > limit {
            return Err(vec![
                Diagnostic::error(
                    Code::Branch,
                    &info.name,
                    format!("`{}` has {n} branches, over the enumeration limit of {limit} ({} permutations)", info.name, permutation_count(n)),
                )
                .item("branches")
                .at(&info.name, info.origin)
                .hint(format!("turn some branches into specialization constants (same GLSL, chosen at pipeline creation), or raise the limit (at most {MAX_BRANCH_LIMIT})")),
            ]);
        }
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Enumeration {
            info,
            branches,
            declared: info.constants.iter().map(|c| c.value.clone()).collect(),
            count: 1 << n,
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// How many chunks the permutations are specialised in.
    pub fn chunks(&self) -> usize {
        self.count.div_ceil(PERMUTATIONS_PER_CHUNK) as usize
    }

    /// Chunk `i` (below [`Enumeration::chunks`]) specialised: its distinct variants, or the error of its first
    /// failing permutation.
    pub fn chunk(&self, i: usize) -> PermutationChunk {
        // An index past the last chunk gives an empty chunk at the end, which `finish` refuses as a stray.
        let start = (i as u64)
            .saturating_mul(PERMUTATIONS_PER_CHUNK)
            .min(self.count);
        let end = (start + PERMUTATIONS_PER_CHUNK).min(self.count);
        let mut index = VariantIndex::default();
        let mut local = Vec::with_capacity((end - start) as usize);
        let mut error = None;
        for bits in start..end {
            match self.specialize(bits) {
                Ok(None) => local.push(u32::MAX),
                Ok(Some(v)) => {
                    let next = index.len() as u32;
                    local.push(*index.entry(v).or_insert(next));
                    if index.len() > MAX_UNIQUE_VARIANTS {
                        error = Some(self.too_many());
                        break;
                    }
                }
                Err(d) => {
                    error = Some(d);
                    break;
                }
            }
        }
        PermutationChunk {
            enumeration: self.id,
            start,
            variants: in_index_order(index),
            local,
            error,
        }
    }

    /// The unique variants of every chunk ([`Enumeration::chunk`] for each index below [`Enumeration::chunks`],
    /// in any order), or the error of the first permutation that failed.
    pub fn finish(self, mut chunks: Vec<PermutationChunk>) -> Result<VariantSet, Vec<Diagnostic>> {
        let name = &self.info.name;
        chunks.sort_unstable_by_key(|c| c.start);
        // A chunk lost or given twice would leave permutations without a variant, and another enumeration's
        // would give them another info's variants.
        let foreign = chunks.iter().filter(|c| c.enumeration != self.id).count();
        let mut given = vec![0usize; self.chunks()];
        let mut stray = 0;
        for c in &chunks {
            match given.get_mut((c.start / PERMUTATIONS_PER_CHUNK) as usize) {
                Some(n) if c.start % PERMUTATIONS_PER_CHUNK == 0 => *n += 1,
                _ => stray += 1,
            }
        }
        let listed = |want: fn(usize) -> bool| -> Vec<String> {
            let at = given.iter().enumerate().filter(|(_, n)| want(**n));
            at.map(|(i, _)| i.to_string()).collect()
        };
        let (missing, repeated) = (listed(|n| n == 0), listed(|n| n > 1));
        if foreign > 0 || stray > 0 || !missing.is_empty() || !repeated.is_empty() {
            let mut what = Vec::new();
            if foreign > 0 {
                what.push(format!(
                    "{foreign} of them specialised by another enumeration"
                ));
            }
            if !missing.is_empty() {
                what.push(format!("chunk {} missing", missing.join(", ")));
            }
            if !repeated.is_empty() {
                what.push(format!(
                    "chunk {} given more than once",
                    repeated.join(", ")
                ));
            }
            if stray > 0 {
                what.push(format!("{stray} past the last chunk"));
            }
            let what = format!("of its {}: {}", self.chunks(), what.join("; "));
            return Err(vec![
                Diagnostic::error(
                    Code::Branch,
                    name,
                    format!(
                        "the permutations of `{name}` were merged from {} chunks, {what}",
                        chunks.len()
                    ),
                )
                .item("branches")
                .hint("pass `finish` each `chunk(i)` of the same `Enumeration`, for i in 0..chunks(), once"),
            ]);
        }
        let mut index = VariantIndex::default();
        let mut table = vec![u32::MAX; self.count as usize];
        for chunk in chunks {
            // A chunk's variants first appear in its order, after every earlier chunk's: inserted so, they take the
            // indices one serial enumeration gives them.
            let mut global = Vec::with_capacity(chunk.variants.len());
            for v in chunk.variants {
                let next = index.len() as u32;
                global.push(*index.entry(v).or_insert(next));
                if index.len() > MAX_UNIQUE_VARIANTS {
                    return Err(self.too_many());
                }
            }
            let at = chunk.start as usize;
            for (slot, &id) in table[at..].iter_mut().zip(&chunk.local) {
                if let Some(&g) = global.get(id as usize) {
                    *slot = g;
                }
            }
            if let Some(error) = chunk.error {
                return Err(error);
            }
        }
        if index.is_empty() {
            return Err(vec![
                Diagnostic::error(
                    Code::Branch,
                    name,
                    format!(
                        "the specialize function of `{name}` marks every one of its {} permutations `never_used()`: the info has no variant to build",
                        self.count
                    ),
                )
                .item("specialize")
                .at(
                    self.info.specialize.as_ref().map_or(name.as_str(), |s| s.declared_in.as_str()),
                    self.info.specialize.as_ref().map_or(self.info.origin, |s| s.origin),
                )
                .hint("leave at least one permutation in use, or remove the info"),
            ]);
        }
        Ok(VariantSet {
            info: name.clone(),
            branches: self.branches,
            variants: in_index_order(index),
            table,
        })
    }

    /// Permutation `bits` through the specialize function: its variant, `None` if it is never used, or why it
    /// cannot be built.
    fn specialize(&self, bits: u64) -> Result<Option<Variant>, Vec<Diagnostic>> {
        let info = self.info;
        let mut vb =
            VariantBuilder::new(&self.branches, &self.declared, &info.size_constants, bits);
        if let Some(f) = &info.specialize
            && catch_unwind(AssertUnwindSafe(|| (f.value.0)(&mut vb))).is_err()
        {
            return Err(vec![
                    Diagnostic::error(
                        Code::Branch,
                        &info.name,
                        format!("the specialize function of `{}` panicked on permutation {} ({bits:#b})", info.name, describe(&self.branches, bits)),
                    )
                    .item("specialize")
                    .at(&info.name, info.origin)
                    .hint("the function must handle every combination of branch values; declare impossible ones with `never_used()`"),
                ]);
        }
        let unknown = std::mem::take(vb.unknown_branches.get_mut());
        if !unknown.is_empty() || !vb.rejected.is_empty() {
            let problem = |r: &String, hint: &str| {
                Diagnostic::error(
                    Code::Branch,
                    &info.name,
                    format!(
                        "the specialize function of `{}`, on permutation {}: {r}",
                        info.name,
                        describe(&self.branches, bits)
                    ),
                )
                .item("specialize")
                .at(&info.name, info.origin)
                .hint(hint)
            };
            let unknown = unknown.iter().map(|r| {
                problem(r, "read and fold only the branches the info declares (a branch of an `additional_info` counts)")
            });
            let rejected = vb.rejected.iter().map(|r| {
                problem(
                    r,
                    "set compilation constants the info declares, with values of their type",
                )
            });
            return Err(unknown.chain(rejected).collect());
        }
        if vb.never_used {
            return Ok(None);
        }
        vb.defines.sort();
        vb.sources.sort();
        vb.state.sort_by_key(StateItem::slot);
        vb.vertex_inputs.sort();
        vb.constants.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(Variant {
            bits: vb.bits,
            defines: vb.defines,
            sources: vb.sources,
            state: vb.state,
            vertex_inputs: vb.vertex_inputs,
            constants: vb.constants,
        }))
    }

    /// The error of an info with more than [`MAX_UNIQUE_VARIANTS`] unique variants.
    fn too_many(&self) -> Vec<Diagnostic> {
        let info = self.info;
        vec![
            Diagnostic::error(
                Code::Branch,
                &info.name,
                format!(
                    "`{}` has more than {MAX_UNIQUE_VARIANTS} unique variants ({} branches, {} permutations): the static pass would compile every one",
                    info.name,
                    self.branches.len(),
                    permutation_count(self.branches.len() as u32)
                ),
            )
            .item("branches")
            .at(&info.name, info.origin)
            .hint("fold impossible combinations in the specialize function (`set`, `never_used`), or turn branches into specialization constants (same GLSL, chosen at pipeline creation)"),
        ]
    }
}

/// The bit of branch `i` in a 64-bit permutation index (`None` past bit 63: a set built by hand can have more
/// branches than an index holds).
pub(crate) fn branch_bit(i: usize) -> Option<u64> {
    u32::try_from(i).ok().and_then(|i| 1u64.checked_shl(i))
}

/// Bit `i` of permutation `bits`; a branch past the 64th (only in a set built by hand: enumeration stops at
/// [`MAX_BRANCH_LIMIT`]) is never on, rather than a shift that overflows.
fn bit(bits: u64, i: usize) -> bool {
    i < 64 && (bits >> i) & 1 != 0
}

/// `{SKINNING, FOG}`-style description of permutation `bits` over `branches`.
fn describe(branches: &[String], bits: u64) -> String {
    let on: Vec<&str> = branches
        .iter()
        .enumerate()
        .filter(|(i, _)| bit(bits, *i))
        .map(|(_, n)| n.as_str())
        .collect();
    format!("{{{}}}", on.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    fn fold(v: &mut VariantBuilder) {
        if v.get("SKINNING") {
            v.set("FOLIAGE", false);
        }
        if v.get("DEPTH_ONLY") {
            v.set("FOG", false);
            v.source(Stage::Fragment, "depth_only.frag");
        }
        if v.get("FOG") && v.get("FOLIAGE") {
            v.never_used();
        }
    }

    fn set() -> VariantSet {
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("base")
                .branch("SKINNING")
                .branch("FOLIAGE"),
        );
        reg.add_info(
            ShaderCreateInfo::new("m")
                .additional_info("base")
                .branch("DEPTH_ONLY")
                .branch("FOG")
                .specialize(fold),
        );
        enumerate_variants(&reg.resolve("m").unwrap(), DEFAULT_BRANCH_LIMIT).unwrap()
    }

    #[test]
    fn table_agrees_with_specialize_for_every_permutation() {
        let s = set();
        assert_eq!(s.branches, ["DEPTH_ONLY", "FOG", "SKINNING", "FOLIAGE"]);
        assert_eq!(s.permutations(), 16);
        for bits in 0..16u64 {
            let mut vb = VariantBuilder::new(&s.branches, &[], &[], bits);
            fold(&mut vb);
            match s.lookup(bits) {
                Ok(i) => assert_eq!(s.variants[i].bits, vb.bits, "{}", s.describe(bits)),
                Err(e) => assert!(vb.never_used, "{e}"),
            }
        }
        assert!(s.variants.len() < 16);
    }

    #[test]
    fn out_of_range_and_never_used_are_errors() {
        let s = set();
        assert!(matches!(s.lookup(16), Err(VariantError::OutOfRange { .. })));
        let bits = s.bits_of(&[("FOG", true), ("FOLIAGE", true)]).unwrap();
        let e = s.lookup(bits).unwrap_err();
        assert!(e.to_string().contains("{FOG, FOLIAGE}"), "{e}");
        assert!(
            s.bits_of(&[("NOPE", true)])
                .unwrap_err()
                .contains("no branch named `NOPE`")
        );
    }

    #[test]
    fn panicking_specialize_is_reported_with_the_permutation() {
        fn bad(v: &mut VariantBuilder) {
            if v.get("A") && v.get("B") {
                panic!("unsupported");
            }
        }
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("p")
                .branch("A")
                .branch("B")
                .specialize(bad),
        );
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let e = enumerate_variants(&reg.resolve("p").unwrap(), 20).unwrap_err();
        std::panic::set_hook(prev);
        assert!(
            e[0].message.contains("panicked on permutation {A, B}"),
            "{}",
            e[0]
        );
    }

    /// An info of `n` branches `B0`..`B{n-1}` folded by `f`.
    fn wide(n: usize, f: fn(&mut VariantBuilder)) -> ResolvedInfo {
        let mut info = ShaderCreateInfo::new("wide").specialize(f);
        for i in 0..n {
            info = info.branch(format!("B{i}"));
        }
        let mut reg = Registry::new();
        reg.add_info(info);
        reg.resolve("wide").unwrap()
    }

    /// The enumeration written the plainest way: every permutation in order, each variant looked up among those
    /// found before it.
    fn one_by_one(e: &Enumeration) -> Result<(Vec<Variant>, Vec<u32>), Vec<Diagnostic>> {
        let mut variants: Vec<Variant> = Vec::new();
        let mut table = Vec::new();
        for bits in 0..e.count {
            match e.specialize(bits)? {
                None => table.push(u32::MAX),
                Some(v) => match variants.iter().position(|known| *known == v) {
                    Some(i) => table.push(i as u32),
                    None => {
                        variants.push(v);
                        table.push(variants.len() as u32 - 1);
                    }
                },
            }
        }
        Ok((variants, table))
    }

    /// Every chunk of `e`, specialised in order.
    fn all_chunks(e: &Enumeration) -> Vec<PermutationChunk> {
        (0..e.chunks()).map(|i| e.chunk(i)).collect()
    }

    /// Asserts that the first diagnostic of `err` says `text`.
    fn assert_says(err: &[Diagnostic], text: &str) {
        assert!(err[0].message.contains(text), "{}", err[0]);
    }

    /// Folds of the shapes renderers write, over branches `B0`..: a mode that turns features off, exclusive
    /// features, impossible combinations, a source swap, defines and render state.
    fn mesh_like(v: &mut VariantBuilder) {
        if v.get("B0") {
            for b in ["B3", "B4", "B5", "B9"] {
                v.set(b, false);
            }
            v.source(Stage::Fragment, "depth.frag");
            v.state(StateItem::ColorWrites(0, crate::ColorWrites::NONE));
        }
        if v.get("B1") && v.get("B2") {
            v.never_used();
        }
        if v.get("B6") {
            v.set("B7", false);
            v.define("QUALITY", "2");
        }
        if v.get("B10") {
            v.state(StateItem::Cull(crate::CullMode::None));
            v.set("B10", false);
        }
    }

    fn high_bits_unused(v: &mut VariantBuilder) {
        // Every permutation after the first chunk is never used: the later chunks bring no variant.
        if v.get("B9") || v.get("B10") {
            v.never_used();
        }
    }

    fn unfolded(_: &mut VariantBuilder) {}

    #[test]
    fn chunks_merged_in_any_order_give_the_serial_enumeration() {
        for (f, n) in [
            (mesh_like as fn(&mut VariantBuilder), 11),
            (high_bits_unused, 11),
            (unfolded, 10),
            (unfolded, 3),
        ] {
            let info = wide(n, f);
            let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
            let (variants, table) = one_by_one(&e).unwrap();
            let mut chunks = all_chunks(&e);
            // Threads finish in any order.
            chunks.reverse();
            if chunks.len() > 2 {
                chunks.swap(0, 1);
            }
            let set = e.finish(chunks).unwrap();
            assert_eq!(set.variants, variants, "{n} branches");
            assert_eq!(set.table, table, "{n} branches");
            assert_eq!(
                set,
                enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap()
            );
        }
        assert!(Enumeration::new(&wide(11, unfolded), 20).unwrap().chunks() > 1);
    }

    #[test]
    fn the_first_failing_permutation_is_reported_whichever_chunk_finishes_first() {
        fn late_panics(v: &mut VariantBuilder) {
            // Permutation 700 is in the second chunk and 1800 in the fourth; also an unknown branch from 1500 on.
            if v.get("B2")
                && v.get("B3")
                && v.get("B4")
                && v.get("B5")
                && v.get("B7")
                && v.get("B9")
            {
                panic!("unsupported");
            }
            if v.get("B10") && v.get("B9") {
                v.get("NOPE");
            }
        }
        let info = wide(11, late_panics);
        let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let serial = one_by_one(&e);
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut chunks = all_chunks(&e);
        std::panic::set_hook(prev);
        chunks.reverse();
        let err = e.finish(chunks).unwrap_err();
        // 0b01010111100 = 700: B2..B5, B7, B9.
        assert_says(&err, "panicked on permutation {B2, B3, B4, B5, B7, B9}");
        assert_eq!(Err(err), serial.map(|_| ()));
    }

    #[test]
    fn chunks_lost_repeated_or_foreign_are_an_error_not_a_wrong_set() {
        let info = wide(11, mesh_like);
        let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let mut chunks = all_chunks(&e);
        chunks.pop();
        let err = e.finish(chunks).unwrap_err();
        assert_says(&err, "merged from 3 chunks, of its 4: chunk 3 missing");
        let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let chunks: Vec<PermutationChunk> = [0, 1, 1, 3].into_iter().map(|i| e.chunk(i)).collect();
        let err = e.finish(chunks).unwrap_err();
        assert_says(&err, "chunk 2 missing; chunk 1 given more than once");
        // An index past the last chunk (even one whose first permutation would overflow) is a stray, not a panic.
        let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let chunks: Vec<PermutationChunk> = [0, 1, 2, usize::MAX]
            .into_iter()
            .map(|i| e.chunk(i))
            .collect();
        let err = e.finish(chunks).unwrap_err();
        assert_says(&err, "chunk 3 missing; 1 past the last chunk");
        // Chunks of another enumeration, even of the same info, tile the permutations but are not its own.
        let e = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let other = Enumeration::new(&info, DEFAULT_BRANCH_LIMIT).unwrap();
        let mut chunks = all_chunks(&e);
        chunks[2] = other.chunk(2);
        let err = e.finish(chunks).unwrap_err();
        assert_says(&err, "1 of them specialised by another enumeration");
    }

    /// A set built by hand with more branches than a 64-bit index holds: the branches past it read as off and
    /// setting one is an error naming it, never a shift that overflows.
    #[test]
    fn branches_past_the_64th_of_a_hand_built_set_are_off_not_a_panic() {
        let branches: Vec<String> = (0..70).map(|i| format!("B{i}")).collect();
        let variant = Variant {
            bits: u64::MAX,
            defines: Vec::new(),
            sources: Vec::new(),
            state: Vec::new(),
            vertex_inputs: Vec::new(),
            constants: Vec::new(),
        };
        assert!(variant.value("B63", &branches));
        assert!(!variant.value("B69", &branches));
        let values = variant.branch_values(&branches);
        assert_eq!(values.iter().filter(|(_, on)| *on).count(), 64);
        assert_eq!(describe(&branches, u64::MAX).matches('B').count(), 64);
        let set = VariantSet {
            info: "wide".into(),
            branches,
            variants: vec![variant],
            table: vec![0],
        };
        assert_eq!(set.bits_of(&[("B63", true)]), Ok(1 << 63));
        let err = set.bits_of(&[("B69", true)]).unwrap_err();
        assert!(err.contains("branch `B69` is bit 69"), "{err}");
        // The host's selection by name too (it shifted unchecked: a panic in debug, another variant in release).
        assert_eq!(
            set.permutation(&[("B63", true), ("B69", false)]),
            Ok(1 << 63)
        );
        let err = set.permutation(&[("B69", true)]).unwrap_err();
        assert!(err[0].message.contains("bit 69"), "{}", err[0].message);
    }

    #[test]
    fn more_unique_variants_than_the_limit_is_an_error_across_chunks() {
        // 2^15 unfolded permutations, each its own variant, in 64 chunks of which none alone passes the limit.
        let info = wide(15, unfolded);
        let err = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap_err();
        assert_says(
            &err,
            &format!("more than {MAX_UNIQUE_VARIANTS} unique variants"),
        );
    }

    #[test]
    fn branch_limit() {
        let mut info = ShaderCreateInfo::new("big");
        for i in 0..5 {
            info = info.branch(format!("B{i}"));
        }
        let mut reg = Registry::new();
        reg.add_info(info);
        let e = enumerate_variants(&reg.resolve("big").unwrap(), 4).unwrap_err();
        assert!(
            e[0].message
                .contains("5 branches, over the enumeration limit of 4"),
            "{}",
            e[0]
        );
    }
}
