//! Render state: contradictions between the declared state and the rest of the info.

use crate::diagnostic::{Code, Diagnostic};
use crate::info::*;
use crate::item::Item;
use crate::render_state::*;
use crate::types::*;

/// Every contradiction in an info's render state: state on a compute or ray-tracing info, blending an integer
/// output, a dual-source factor without the two outputs (or away from location 0), state for an output that does
/// not exist, a topology the stages cannot take, constants or a stencil reference that nothing sets, and numbers
/// that are not numbers. Each names the builder call and where it was written.
pub(super) fn check_render_state(info: &ShaderCreateInfo) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let items = &info.render_state;
    if items.is_empty() {
        return out;
    }
    // The item that set a slot (the last declaration of it), for messages.
    let item_of = |slot: (u8, u32)| items.iter().rev().find(|i| i.value.slot() == slot);
    let mut error = |it: &Item<StateItem>, message: String, hint: &str| {
        out.push(
            Diagnostic::error(Code::RenderState, &info.name, message)
                .item(it.value.describe())
                .at(&it.declared_in, it.origin)
                .hint(hint.to_string()),
        );
    };
    let stages = info.stages();
    if stages
        .iter()
        .any(|s| *s == Stage::Compute || s.is_ray_tracing())
    {
        error(
            &items[0],
            format!(
                "`{}` is not a graphics info: render state has no pipeline to go to",
                info.name
            ),
            "remove the render state, or move it to the graphics infos that use this one",
        );
        return out;
    }
    let state = RenderState::from_items(items);
    let outputs: Vec<(u32, Scalar, DualBlend)> = info
        .fragment_outputs
        .iter()
        .map(|f| (f.value.location, f.value.ty.scalar(), f.value.blend))
        .collect();
    let locations: Vec<u32> = outputs.iter().map(|o| o.0).collect();
    for it in items {
        if let StateItem::BlendAt(l, _) | StateItem::ColorWrites(l, _) = it.value
            && !locations.contains(&l)
        {
            error(
                it,
                format!("there is no fragment output at location {l}"),
                "declare the output with fragment_out, or use the location of one that exists",
            );
        }
    }
    for (location, scalar, _) in &outputs {
        let blend = state.blend_at(*location);
        let setter = item_of((7, *location)).or_else(|| item_of((6, 0)));
        if blend != Blend::Opaque
            && matches!(scalar, Scalar::Int | Scalar::Uint)
            && let Some(it) = setter
        {
            error(
                it,
                format!(
                    "the output at location {location} is an integer: integer attachments cannot blend"
                ),
                "declare blend_at(location, Blend::Opaque) for it, or make the output a float",
            );
        }
        let dual = blend.factors().iter().any(|f| f.is_dual_source());
        if dual && let Some(it) = setter {
            if *location != 0 {
                error(
                    it,
                    format!(
                        "dual-source blending at location {location}: only location 0 has a second source"
                    ),
                    "blend with Src1 factors at location 0 only",
                );
            } else if !(outputs.iter().any(|o| o.2 == DualBlend::Src0)
                && outputs.iter().any(|o| o.2 == DualBlend::Src1))
            {
                error(
                    it,
                    "a dual-source blend factor, but the info has no second output".to_string(),
                    "declare both outputs with fragment_out_blend(0, …, DualBlend::Src0) and (0, …, DualBlend::Src1)",
                );
            }
        }
        if blend.factors().iter().any(|f| f.is_constant())
            && !state.dynamic.contains(DynamicStates::BLEND_CONSTANTS)
            && let Some(it) = setter
        {
            error(
                it,
                "a constant blend factor, but the blend constants are not dynamic".to_string(),
                "add dynamic(DynamicStates::BLEND_CONSTANTS) and set them while recording",
            );
        }
    }
    let has_tessellation = stages
        .iter()
        .any(|s| matches!(s, Stage::TessControl | Stage::TessEvaluation));
    if let Some(it) = item_of((0, 0)) {
        if has_tessellation != (state.topology == Topology::PatchList) {
            let message = if has_tessellation {
                format!(
                    "topology {:?} with tessellation stages, which take patches",
                    state.topology
                )
            } else {
                "patch lists without tessellation stages".to_string()
            };
            error(
                it,
                message,
                "tessellation takes Topology::PatchList; everything else takes points, lines or triangles",
            );
        }
        if let Some(g) = &info.geometry_layout {
            let fits = Topology::feeding(g.value.primitive_in).contains(&state.topology);
            if !fits && !has_tessellation {
                error(
                    it,
                    format!(
                        "topology {:?}, but the geometry stage takes {:?}",
                        state.topology, g.value.primitive_in
                    ),
                    "make the topology and the geometry layout's input primitive agree",
                );
            }
        }
    }
    // Vulkan leaves a point's size undefined unless the last stage before the rasterizer writes `gl_PointSize`
    // (and the validation layer refuses the pipeline): rasterized points need the builtin declared.
    // (A geometry stage's output primitive is checked with its layout.)
    if state.topology == Topology::PointList
        && info.geometry_layout.is_none()
        && !has_tessellation
        && !info
            .builtins
            .contains(crate::types::BuiltinBits::POINT_SIZE)
        && let Some(it) = item_of((0, 0))
    {
        error(
            it,
            "points are rasterized, but no stage declares BuiltinBits::POINT_SIZE: a point's size is undefined \
             unless the last stage before the rasterizer writes gl_PointSize"
                .to_string(),
            "declare .builtins(BuiltinBits::POINT_SIZE) and write gl_PointSize (1.0 for one pixel) in that stage",
        );
    }
    if let Some(it) = item_of((5, 0)) {
        let w = state.line_width();
        if !w.is_finite() || w <= 0.0 {
            error(
                it,
                format!("line width {w} is not a positive number"),
                "use a width of at least 1 pixel",
            );
        }
    }
    if let (Some(it), Some(b)) = (item_of((11, 0)), state.depth_bias)
        && ![b.constant, b.slope, b.clamp].iter().all(|v| v.is_finite())
    {
        error(
            it,
            format!("depth bias {b:?} is not finite"),
            "use finite numbers",
        );
    }
    if let Some(it) = item_of((13, 0))
        && state.dynamic.contains(DynamicStates::DEPTH_BIAS)
        && state.depth_bias.is_none()
    {
        error(
            it,
            "a dynamic depth bias, but no depth bias is declared to enable it".to_string(),
            "declare depth_bias(…) (its values are replaced while recording)",
        );
    }
    if let (Some(s), Some(it)) = (state.stencil, item_of((10, 0)))
        && s.reference.is_none()
        && !state.dynamic.contains(DynamicStates::STENCIL_REFERENCE)
    {
        error(
            it,
            "a stencil test without a reference value".to_string(),
            "give the reference in StencilState, or add dynamic(DynamicStates::STENCIL_REFERENCE)",
        );
    }
    out
}
