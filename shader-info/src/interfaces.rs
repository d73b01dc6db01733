//! Which interface blocks each stage declares: the one place that knows how `vertex_out`, the tessellation
//! interfaces, `geometry_out` and the fragment inputs chain through the stages an info has. Generation declares
//! exactly these blocks and validation checks exactly these, so the two cannot disagree.
//!
//! The chain, for the stages present:
//!
//! | stage | reads (in) | writes (out) |
//! |---|---|---|
//! | vertex | `vertex_in` | `vertex_out` |
//! | tessellation control | `vertex_out[]` | `tess_control_out[]`, `patch tess_patch_out` |
//! | tessellation evaluation | `tess_control_out[]`, `patch tess_patch_out` | `tess_evaluation_out` |
//! | geometry | the previous stage's out, `[]` | `geometry_out` |
//! | fragment | the last one's out | `fragment_out` |
//!
//! Arrayed blocks need an instance name: an interface without one gets `<block>_in` or `<block>_out`. An
//! interface used on both sides of one stage under one instance name (Blender's habit with `vertex_out` and
//! `geometry_out`) keeps the name on its output; the input is renamed `<instance>_in` in that stage, and the
//! generated geometry stage also names the output `<instance>_out` (a define), as Blender's sources write it.

use crate::info::{ShaderCreateInfo, StageInterfaceInfo};
use crate::item::Item;
use crate::origin::Origin;
use crate::types::Stage;

/// Whether a block is read or written by the stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
}

impl Direction {
    /// The GLSL storage qualifier.
    pub const fn glsl(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// One interface block as one stage declares it.
#[derive(Clone, Debug)]
pub struct StageBlock<'a> {
    pub item: &'a Item<StageInterfaceInfo>,
    /// The builder method that declared the list the block comes from (`vertex_out`, `tess_patch_out`, …).
    pub list: &'static str,
    pub direction: Direction,
    /// Declared as an array with one element per vertex (`[]`).
    pub arrayed: bool,
    /// A per-patch block (`patch in`/`patch out`).
    pub patch: bool,
    /// The instance name in this stage; empty when members are accessed directly.
    pub instance: String,
    /// The location of its first member.
    pub location: u32,
}

/// The interface lists of an info with the builder word that declares each, in pipeline order.
pub(crate) fn interface_lists(
    info: &ShaderCreateInfo,
) -> [(&'static str, &[Item<StageInterfaceInfo>]); 5] {
    [
        ("vertex_out", &info.vertex_out),
        ("tess_control_out", &info.tess_control_out),
        ("tess_patch_out", &info.tess_patch_out),
        ("tess_evaluation_out", &info.tess_evaluation_out),
        ("geometry_out", &info.geometry_out),
    ]
}

/// The blocks `stage` of `info` declares, inputs first, each direction in declaration order.
///
/// ```
/// use shader_info::*;
/// let v = StageInterfaceInfo::new("VertOut", "v").smooth(Type::Vec3, "normal");
/// let info = ShaderCreateInfo::new("x")
///     .vertex_source("x.vert.glsl")
///     .geometry_source("x.geom.glsl")
///     .fragment_source("x.frag.glsl")
///     .vertex_out(&v)
///     .geometry_out(&v);
/// let geom = stage_blocks(&info, Stage::Geometry);
/// assert_eq!((geom[0].instance.as_str(), geom[0].arrayed), ("v_in", true));
/// assert_eq!((geom[1].instance.as_str(), geom[1].arrayed), ("v", false));
/// assert_eq!(stage_blocks(&info, Stage::Fragment)[0].list, "geometry_out");
/// ```
pub fn stage_blocks(info: &ShaderCreateInfo, stage: Stage) -> Vec<StageBlock<'_>> {
    let has = |s: Stage| info.sources.iter().any(|x| x.value.0 == s);
    let tessellated = has(Stage::TessControl) || has(Stage::TessEvaluation);
    let last_before_geometry: (&'static str, &[Item<StageInterfaceInfo>]) = if tessellated {
        ("tess_evaluation_out", &info.tess_evaluation_out)
    } else {
        ("vertex_out", &info.vertex_out)
    };
    use Direction::{In, Out};
    // (list, direction, arrayed, patch)
    type Part<'b> = (
        &'static str,
        &'b [Item<StageInterfaceInfo>],
        Direction,
        bool,
        bool,
    );
    let parts: Vec<Part> = match stage {
        Stage::Vertex => vec![("vertex_out", &info.vertex_out, Out, false, false)],
        Stage::TessControl => vec![
            ("vertex_out", &info.vertex_out, In, true, false),
            ("tess_control_out", &info.tess_control_out, Out, true, false),
            ("tess_patch_out", &info.tess_patch_out, Out, false, true),
        ],
        Stage::TessEvaluation => vec![
            ("tess_control_out", &info.tess_control_out, In, true, false),
            ("tess_patch_out", &info.tess_patch_out, In, false, true),
            (
                "tess_evaluation_out",
                &info.tess_evaluation_out,
                Out,
                false,
                false,
            ),
        ],
        Stage::Geometry => vec![
            (
                last_before_geometry.0,
                last_before_geometry.1,
                In,
                true,
                false,
            ),
            ("geometry_out", &info.geometry_out, Out, false, false),
        ],
        Stage::Fragment => {
            let (list, items) = if has(Stage::Geometry) {
                ("geometry_out", info.geometry_out.as_slice())
            } else {
                last_before_geometry
            };
            vec![(list, items, In, false, false)]
        }
        // Compute and ray-tracing stages pass nothing through stage interfaces.
        Stage::Compute
        | Stage::RayGen
        | Stage::Miss
        | Stage::ClosestHit
        | Stage::AnyHit
        | Stage::Intersection
        | Stage::Callable => Vec::new(),
    };
    let out_instances: Vec<&str> = parts
        .iter()
        .filter(|p| p.2 == Out)
        .flat_map(|p| p.1.iter().map(|i| i.value.instance_name.as_str()))
        .filter(|n| !n.is_empty())
        .collect();
    let mut blocks = Vec::new();
    let mut next = [0u32; 2];
    for (list, items, direction, arrayed, patch) in parts {
        for item in items {
            let iface = &item.value;
            let suffix = match direction {
                In => "_in",
                Out => "_out",
            };
            let instance = if iface.instance_name.is_empty() {
                if arrayed {
                    format!("{}{suffix}", iface.name)
                } else {
                    String::new()
                }
            } else if direction == In && out_instances.contains(&iface.instance_name.as_str()) {
                format!("{}_in", iface.instance_name)
            } else {
                iface.instance_name.clone()
            };
            let at = &mut next[direction as usize];
            blocks.push(StageBlock {
                item,
                list,
                direction,
                arrayed,
                patch,
                instance,
                location: *at,
            });
            *at += iface.locations();
        }
    }
    blocks
}

/// The geometry stage's aliases among its `blocks` (see [`stage_blocks`]): an output block it passes through under
/// one instance name is read as `<instance>_in[]` and, as Blender names it, written as `<instance>_out`, a macro
/// for the plain `<instance>` (unless a block is declared under that name). Each alias with its output block.
pub(crate) fn geometry_aliases<'b, 'a>(
    blocks: &'b [StageBlock<'a>],
) -> impl Iterator<Item = (String, &'b StageBlock<'a>)> + 'b {
    blocks
        .iter()
        .filter(|b| b.direction == Direction::Out && !b.instance.is_empty())
        .filter_map(move |b| {
            let renamed_in = format!("{}_in", b.instance);
            let alias = format!("{}_out", b.instance);
            (blocks
                .iter()
                .any(|i| i.direction == Direction::In && i.instance == renamed_in)
                && !blocks.iter().any(|o| o.instance == alias))
            .then_some((alias, b))
        })
}

/// What to do about an interface past a limit.
pub(crate) const PACK_INTERFACE_HINT: &str =
    "pack the data: a vec4 takes one location, a float too; merge scalars into vectors";

/// The interface locations one stage reads or writes: the end of its last block, and that block.
#[derive(Clone, Debug, PartialEq)]
pub struct InterfaceUse {
    pub stage: Stage,
    pub direction: Direction,
    /// Locations `0..used` are taken (a block's members take consecutive locations; matrices and arrays several).
    pub used: u32,
    /// Components of built-ins a device counts with them: the `gl_PerVertex` block's [`PER_VERTEX_COMPONENTS`]
    /// where the interface carries it (every stage interface but the fragment stage's inputs), else 0. Khronos'
    /// validation layer counts the block (lavapipe allows 64 geometry input components: 14 locations with it,
    /// not 16).
    pub built_in: u32,
    /// Components a device counts against its limit: four per location, and the built-ins'.
    pub components: u32,
    /// The per-patch blocks alone (`tess_patch_out`: written by the tessellation control stage, read by the
    /// evaluation stage), which devices also limit on their own (`maxTessellationControlPerPatchOutputComponents`).
    /// The entry without this flag is the whole interface, per-patch blocks included: they follow the per-vertex
    /// ones in its locations, and every location counts against the stage's limit.
    pub patch: bool,
    /// The last block, as the diagnostic names it (`vertex_out \`VertOut\``).
    pub item: String,
    pub declared_in: String,
    pub origin: Origin,
}

/// Components of the `gl_PerVertex` block glslang declares: `gl_Position` (4), `gl_PointSize`, `gl_ClipDistance[1]`
/// and `gl_CullDistance[1]` (1 each). A stage that sizes `gl_ClipDistance` itself takes more, which only its
/// compiled module shows.
pub const PER_VERTEX_COMPONENTS: u32 = 7;

/// The interface locations every stage of `info` reads and writes (stages without interfaces give nothing).
pub fn interface_use(info: &ShaderCreateInfo) -> Vec<InterfaceUse> {
    let mut out = Vec::new();
    for stage in info.stages() {
        let blocks = stage_blocks(info, stage);
        // Each direction's whole interface (per-patch blocks included: the specification counts every location
        // of the control stage's outputs against its per-vertex limit), then its per-patch blocks alone.
        for (direction, patch) in [
            (Direction::In, false),
            (Direction::In, true),
            (Direction::Out, false),
            (Direction::Out, true),
        ] {
            let of = |b: &&StageBlock| b.direction == direction && (b.patch || !patch);
            let Some(last) = blocks.iter().rfind(of) else {
                continue;
            };
            let used = last.location + last.item.value.locations();
            let first = blocks.iter().find(of).map_or(0, |b| b.location);
            let built_in = match (stage, patch) {
                (Stage::Fragment, _) | (_, true) => 0,
                _ => PER_VERTEX_COMPONENTS,
            };
            out.push(InterfaceUse {
                stage,
                direction,
                used,
                built_in,
                components: (used - first).saturating_mul(4).saturating_add(built_in),
                patch,
                item: format!("{} `{}`", last.list, last.item.value.name),
                declared_in: last.item.declared_in.clone(),
                origin: last.item.origin,
            });
        }
    }
    out
}
