//! Render state: contradictions between the declared state and the rest of the info.

use crate::diagnostic::{Code, Diagnostic};
use crate::info::*;
use crate::render_state::*;
use crate::types::*;

/// What the render-state rules need to know of an info besides its state: its fragment outputs, whether it
/// tessellates, what its geometry stage takes, and whether a stage writes `gl_PointSize`. Kept in the
/// [`crate::PipelinePlan`], so that a state given at pipeline creation (an override) meets the same rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateFacts {
    /// `(location, scalar, dual-source index)` of each fragment output.
    outputs: Vec<(u32, Scalar, DualBlend)>,
    tessellation: bool,
    geometry_input: Option<PrimitiveIn>,
    point_size: bool,
}

impl StateFacts {
    pub(crate) fn of(info: &ShaderCreateInfo) -> StateFacts {
        StateFacts {
            outputs: info
                .fragment_outputs
                .iter()
                .map(|f| (f.value.location, f.value.ty.scalar(), f.value.blend))
                .collect(),
            tessellation: info
                .stages()
                .iter()
                .any(|s| matches!(s, Stage::TessControl | Stage::TessEvaluation)),
            geometry_input: info.geometry_layout.as_ref().map(|g| g.value.primitive_in),
            point_size: info
                .builtins
                .contains(crate::types::BuiltinBits::POINT_SIZE),
        }
    }
}

/// Every contradiction in an info's render state: state on a compute or ray-tracing info, blending an integer
/// output, a dual-source factor without the two outputs (or away from location 0), state for an output that does
/// not exist, a topology the stages cannot take, constants or a stencil reference that nothing sets, and numbers
/// that are not numbers. Each names the builder call and where it was written.
pub(super) fn check_render_state(info: &ShaderCreateInfo) -> Vec<Diagnostic> {
    let items = &info.render_state;
    if items.is_empty() {
        return Vec::new();
    }
    if info
        .stages()
        .iter()
        .any(|s| *s == Stage::Compute || s.is_ray_tracing())
    {
        let it = &items[0];
        return vec![
            Diagnostic::error(
                Code::RenderState,
                &info.name,
                format!(
                    "`{}` is not a graphics info: render state has no pipeline to go to",
                    info.name
                ),
            )
            .item(it.value.describe())
            .at(&it.declared_in, it.origin)
            .hint("remove the render state, or move it to the graphics infos that use this one"),
        ];
    }
    // The item that set a slot (the last declaration of it), for messages; a blend at a location falls back to the
    // blend of every output.
    let item_of = |slot: (u8, u32)| items.iter().rev().find(|i| i.value.slot() == slot);
    let mut out = Vec::new();
    state_rules(
        &RenderState::from_items(items),
        &StateFacts::of(info),
        &mut |slot, message, hint| {
            let it = item_of(slot).or_else(|| (slot.0 == 7).then(|| item_of((6, 0))).flatten());
            if let Some(it) = it {
                out.push(
                    Diagnostic::error(Code::RenderState, &info.name, message)
                        .item(it.value.describe())
                        .at(&it.declared_in, it.origin)
                        .hint(hint.to_string()),
                );
            }
        },
    );
    out
}

/// The same rules over a state given whole (`GraphicsOptions::state`) for the pipeline of `key`: each problem is
/// said at `item`, since no builder call declared it.
pub(crate) fn state_problems(
    key: &str,
    state: &RenderState,
    facts: &StateFacts,
    item: &str,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    state_rules(state, facts, &mut |_, message, hint| {
        out.push(
            Diagnostic::error(Code::RenderState, key, message)
                .item(item.to_string())
                .hint(hint.to_string()),
        );
    });
    out
}

/// The slot of a state item ([`StateItem::slot`]): which item sets what a rule reads.
type Slot = (u8, u32);

/// The render-state rules, each broken one said with the slot of the item that sets the state ([`StateItem::slot`]).
fn state_rules(state: &RenderState, facts: &StateFacts, error: &mut dyn FnMut(Slot, String, &str)) {
    let locations: Vec<u32> = facts.outputs.iter().map(|o| o.0).collect();
    for (slot, l) in state
        .blend_at
        .iter()
        .map(|(l, _)| (7, *l))
        .chain(state.color_writes.iter().map(|(l, _)| (8, *l)))
    {
        if !locations.contains(&l) {
            error(
                (slot, l),
                format!("there is no fragment output at location {l}"),
                "declare the output with fragment_out, or use the location of one that exists",
            );
        }
    }
    for (location, scalar, _) in &facts.outputs {
        let blend = state.blend_at(*location);
        let slot = (7, *location);
        if blend != Blend::Opaque && matches!(scalar, Scalar::Int | Scalar::Uint) {
            error(
                slot,
                format!(
                    "the output at location {location} is an integer: integer attachments cannot blend"
                ),
                "declare blend_at(location, Blend::Opaque) for it, or make the output a float",
            );
        }
        let dual = blend.factors().iter().any(|f| f.is_dual_source());
        if dual {
            if *location != 0 {
                error(
                    slot,
                    format!(
                        "dual-source blending at location {location}: only location 0 has a second source"
                    ),
                    "blend with Src1 factors at location 0 only",
                );
            } else if !(facts.outputs.iter().any(|o| o.2 == DualBlend::Src0)
                && facts.outputs.iter().any(|o| o.2 == DualBlend::Src1))
            {
                error(
                    slot,
                    "a dual-source blend factor, but the info has no second output".to_string(),
                    "declare both outputs with fragment_out_blend(0, …, DualBlend::Src0) and (0, …, DualBlend::Src1)",
                );
            }
        }
        if blend.factors().iter().any(|f| f.is_constant())
            && !state.dynamic.contains(DynamicStates::BLEND_CONSTANTS)
        {
            error(
                slot,
                "a constant blend factor, but the blend constants are not dynamic".to_string(),
                "add dynamic(DynamicStates::BLEND_CONSTANTS) and set them while recording",
            );
        }
    }
    let topology = (0, 0);
    if facts.tessellation != (state.topology == Topology::PatchList) {
        let message = if facts.tessellation {
            format!(
                "topology {:?} with tessellation stages, which take patches",
                state.topology
            )
        } else {
            "patch lists without tessellation stages".to_string()
        };
        error(
            topology,
            message,
            "tessellation takes Topology::PatchList; everything else takes points, lines or triangles",
        );
    }
    if let Some(input) = facts.geometry_input
        && !facts.tessellation
        && !Topology::feeding(input).contains(&state.topology)
    {
        error(
            topology,
            format!(
                "topology {:?}, but the geometry stage takes {input:?}",
                state.topology
            ),
            "make the topology and the geometry layout's input primitive agree",
        );
    }
    // Vulkan leaves a point's size undefined unless the last stage before the rasterizer writes `gl_PointSize`
    // (and the validation layer refuses the pipeline): rasterized points need the builtin declared.
    // (A geometry stage's output primitive is checked with its layout.)
    if state.topology == Topology::PointList
        && facts.geometry_input.is_none()
        && !facts.tessellation
        && !facts.point_size
    {
        error(
            topology,
            "points are rasterized, but no stage declares BuiltinBits::POINT_SIZE: a point's size is undefined \
             unless the last stage before the rasterizer writes gl_PointSize"
                .to_string(),
            "declare .builtins(BuiltinBits::POINT_SIZE) and write gl_PointSize (1.0 for one pixel) in that stage",
        );
    }
    let w = state.line_width();
    if !w.is_finite() || w <= 0.0 {
        error(
            (5, 0),
            format!("line width {w} is not a positive number"),
            "use a width of at least 1 pixel",
        );
    }
    if let Some(b) = state.depth_bias
        && ![b.constant, b.slope, b.clamp].iter().all(|v| v.is_finite())
    {
        error(
            (11, 0),
            format!("depth bias {b:?} is not finite"),
            "use finite numbers",
        );
    }
    if state.dynamic.contains(DynamicStates::DEPTH_BIAS) && state.depth_bias.is_none() {
        error(
            (13, 0),
            "a dynamic depth bias, but no depth bias is declared to enable it".to_string(),
            "declare depth_bias(…) (its values are replaced while recording)",
        );
    }
    if let Some(s) = state.stencil
        && s.reference.is_none()
        && !state.dynamic.contains(DynamicStates::STENCIL_REFERENCE)
    {
        error(
            (10, 0),
            "a stencil test without a reference value".to_string(),
            "give the reference in StencilState, or add dynamic(DynamicStates::STENCIL_REFERENCE)",
        );
    }
}
