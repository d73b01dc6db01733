//! The builtins a compiled module uses, read from its SPIR-V, against those its declaration names: a builtin with
//! an effect (a device feature, a GLSL extension) used but not declared would reach a pipeline that does not
//! enable what it needs, so it is refused here with the line that uses it.

use super::ModuleReflection;
use shader_info::{BuiltinBits, Code, Diagnostic, GeneratedStage, ResolvedInfo, Stage};

// SPIR-V capabilities.
const CLIP_DISTANCE: u32 = 32;
const GROUP_NON_UNIFORM: u32 = 61;
const GROUP_NON_UNIFORM_QUAD: u32 = 68;
const FRAGMENT_BARYCENTRIC: u32 = 5284;

// SPIR-V builtins.
const PRIMITIVE_ID: u32 = 7;
const LAYER: u32 = 9;
const VIEWPORT_INDEX: u32 = 10;
const SUBGROUP_SIZE: u32 = 36;
const NUM_SUBGROUPS: u32 = 38;
const SUBGROUP_ID: u32 = 40;
const SUBGROUP_LOCAL_INVOCATION_ID: u32 = 41;
const SUBGROUP_MASKS: std::ops::RangeInclusive<u32> = 4416..=4420;
const BARY_COORD: std::ops::RangeInclusive<u32> = 5286..=5287;

/// The builtins `reflection`'s module uses, in declaration terms. Only builtins with an effect are read: the
/// others (`gl_FragCoord`, `gl_VertexIndex`, …) need nothing of the pipeline, and `gl_PerVertex` declares
/// `gl_ClipDistance` whether or not the code writes it (its capability says whether it does).
///
/// ```no_run
/// # let spirv: Vec<u32> = vec![];
/// let r = shader_info_gpu::reflect::reflect(&spirv).unwrap();
/// let used = shader_info_gpu::reflect::used_builtins(&r, shader_info::Stage::Fragment);
/// assert!(!used.contains(shader_info::BuiltinBits::BARYCENTRIC_COORD));
/// ```
pub fn used_builtins(reflection: &ModuleReflection, stage: Stage) -> BuiltinBits {
    let mut out = BuiltinBits::NONE;
    for cap in &reflection.capabilities {
        match *cap {
            CLIP_DISTANCE => out |= BuiltinBits::CLIP_DISTANCES,
            GROUP_NON_UNIFORM..=GROUP_NON_UNIFORM_QUAD => out |= BuiltinBits::SUBGROUP,
            FRAGMENT_BARYCENTRIC => out |= BuiltinBits::BARYCENTRIC_COORD,
            _ => {}
        }
    }
    for b in &reflection.builtins {
        match *b {
            LAYER => out |= BuiltinBits::LAYER,
            VIEWPORT_INDEX => out |= BuiltinBits::VIEWPORT_INDEX,
            // Read by a fragment stage it needs the geometry feature; elsewhere it is the stage's own.
            PRIMITIVE_ID if stage == Stage::Fragment => out |= BuiltinBits::PRIMITIVE_ID,
            SUBGROUP_SIZE | NUM_SUBGROUPS | SUBGROUP_ID | SUBGROUP_LOCAL_INVOCATION_ID => {
                out |= BuiltinBits::SUBGROUP
            }
            b if SUBGROUP_MASKS.contains(&b) => out |= BuiltinBits::SUBGROUP,
            b if BARY_COORD.contains(&b) => out |= BuiltinBits::BARYCENTRIC_COORD,
            _ => {}
        }
    }
    out
}

/// The subgroup operation classes a module uses (its `GroupNonUniform*` capabilities), as the bits of
/// `VkSubgroupFeatureFlags`: what the device's `supportedOperations` must hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupOps(pub u32);

impl SubgroupOps {
    /// The names of the classes, as Vulkan spells them (`BASIC`, `VOTE`, `ARITHMETIC`, `BALLOT`, `SHUFFLE`,
    /// `SHUFFLE_RELATIVE`, `CLUSTERED`, `QUAD`), one per bit from bit 0.
    pub const NAMES: [&'static str; 8] = [
        "BASIC",
        "VOTE",
        "ARITHMETIC",
        "BALLOT",
        "SHUFFLE",
        "SHUFFLE_RELATIVE",
        "CLUSTERED",
        "QUAD",
    ];

    /// The classes the module of `reflection` uses.
    pub fn of(reflection: &ModuleReflection) -> SubgroupOps {
        SubgroupOps::from_capabilities(&reflection.capabilities)
    }

    /// The classes a SPIR-V module uses, read from its `OpCapability` instructions alone (they open every
    /// module), without reflecting it. Words that are not a module give none.
    pub fn of_spirv(spirv: &[u32]) -> SubgroupOps {
        const OP_CAPABILITY: u32 = 17;
        let mut caps = Vec::new();
        let mut i = 5;
        while let Some(&word) = spirv.get(i) {
            let (count, op) = ((word >> 16) as usize, word & 0xffff);
            if op != OP_CAPABILITY || count < 2 {
                break;
            }
            caps.extend(spirv.get(i + 1));
            i += count;
        }
        SubgroupOps::from_capabilities(&caps)
    }

    fn from_capabilities(caps: &[u32]) -> SubgroupOps {
        SubgroupOps(
            caps.iter()
                .filter(|c| (GROUP_NON_UNIFORM..=GROUP_NON_UNIFORM_QUAD).contains(*c))
                // The capabilities are numbered in the order of the feature flags' bits.
                .fold(0, |bits, c| bits | 1 << (c - GROUP_NON_UNIFORM)),
        )
    }

    /// True when the module uses no subgroup operation.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names of the classes set in `self` and not in `supported`.
    pub fn missing_from(self, supported: u32) -> Vec<&'static str> {
        SubgroupOps::NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & !supported & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

/// A diagnostic for every builtin with an effect that stage `generated.stage` of `info` uses without declaring
/// it, at the line of the stage's sources that uses it.
pub fn undeclared_builtins(
    reflection: &ModuleReflection,
    info: &ResolvedInfo,
    generated: &GeneratedStage,
) -> Vec<Diagnostic> {
    let stage = generated.stage;
    let stages = info.stages();
    let used = used_builtins(reflection, stage);
    BuiltinBits::NAMED
        .iter()
        .filter(|(bit, _)| used.contains(*bit) && !info.builtins.contains(*bit))
        .filter_map(|(bit, name)| {
            let features: Vec<&str> = bit.device_features(&stages).iter().map(|f| f.feature).collect();
            let extensions = bit.glsl_extensions(stage, &stages);
            if features.is_empty() && extensions.is_empty() {
                return None;
            }
            let mut effects = Vec::new();
            if !features.is_empty() {
                effects.push(format!("enable the device feature `{}`", features.join("`, `")));
            }
            if !extensions.is_empty() {
                effects.push(format!("write `#extension {}`", extensions.join("`, `#extension ")));
            }
            let used = match info.blender_prelude {
                true => bit.first_use(&shader_info::without_blender_prelude(&generated.source, stage)),
                false => bit.first_use(&generated.source),
            };
            let what = used
                .as_ref()
                .map_or_else(|| format!("BuiltinBits::{name}"), |(_, n)| format!("`{n}`"));
            let mut d = Diagnostic::error(
                Code::ReflectionMismatch,
                &info.name,
                format!(
                    "the {stage} stage uses {what}, a builtin the info does not declare: the pipeline would not {}",
                    effects.join(" or ")
                ),
            )
            .stage(stage)
            .item(format!("builtin {name}"))
            .at(&info.name, info.origin)
            .hint(if extensions.is_empty() {
                format!(
                    "declare it: `.builtins(BuiltinBits::{name})` on the info (or on the additional info the code belongs to); \
                     a flow that is not strict (`Flow::strict_builtins`) finds it in the code and adds it"
                )
            } else {
                format!(
                    "declare it: `.builtins(BuiltinBits::{name})` on the info (or on the additional info the code belongs to); \
                     it is never found in the code, because it changes the generated text (`#extension`), which is \
                     generated from the declaration before anything is compiled"
                )
            });
            if let Some((line, _)) = used {
                let at = generated.source_map.map(&generated.name, line);
                d = d.in_file(at.file, Some(at.line));
            }
            Some(d)
        })
        .collect()
}
