//! Stages: which make a complete info, their entry points and builtins, and items a pipeline kind cannot use.

use super::checker::Checker;
use super::interfaces::check_stage_interfaces;
use crate::diagnostic::{Code, Diagnostic};
use crate::interfaces::interface_lists;
use crate::origin::Origin;
use crate::resource::ResourceKind;
use crate::types::*;

/// An entry-point name is an identifier the targets accept, declared once per stage of the info.
pub(super) fn check_entry_points(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (i, it) in info.entry_points.iter().enumerate() {
        let (stage, name) = (&it.value.0, &it.value.1);
        let item = format!("entry_point({stage}, \"{name}\")");
        if name != "main" {
            c.ident("entry point", name, it);
        }
        if let Some(first) = info.entry_points[..i].iter().find(|e| e.value.0 == *stage) {
            c.err(
                Code::SingularConflict,
                item.clone(),
                it,
                format!(
                    "the {stage} stage's entry point is named twice: `{}` (in `{}`) and `{name}` (in `{}`)",
                    first.value.1, first.declared_in, it.declared_in
                ),
                "name each stage's entry point once along the additional_info chain",
            );
        }
        if !stages.is_empty() && !stages.contains(stage) {
            c.err(
                Code::UnknownStage,
                item,
                it,
                format!(
                    "an entry point is named for the {stage} stage, which the info does not have"
                ),
                "name entry points of the info's stages only",
            );
        }
    }
}

/// Atomic image types need the atomics builtin declared, and a declared builtin that no stage can use is a slip.
pub(super) fn check_builtins(c: &mut Checker) {
    let info = c.info;
    for it in &info.resources {
        let r = &it.value;
        let image_type = match &r.kind {
            ResourceKind::Sampler { image_type, .. } | ResourceKind::Image { image_type, .. } => {
                *image_type
            }
            // An input attachment is read with `subpassLoad`, never atomically.
            ResourceKind::UniformBuffer { .. }
            | ResourceKind::StorageBuffer { .. }
            | ResourceKind::AccelerationStructure
            | ResourceKind::InputAttachment { .. } => continue,
        };
        if image_type.is_atomic() && !info.builtins.contains(BuiltinBits::TEXTURE_ATOMIC) {
            c.err(
                Code::InvalidImage,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "{} `{}` is an atomic image ({image_type:?}), but the info does not declare BuiltinBits::TEXTURE_ATOMIC",
                    r.kind.word(),
                    r.name
                ),
                "add `.builtins(BuiltinBits::TEXTURE_ATOMIC)`: backends without native image atomics need to know",
            );
        }
    }
    let stages = info.stages();
    if stages.is_empty() {
        return;
    }
    let unusable = info.builtins.unusable_in(&stages);
    if !unusable.is_empty() {
        let list: Vec<&str> = stages.iter().map(|s| s.short_name()).collect();
        c.diags.push(
            Diagnostic::warning(
                Code::IncompleteInfo,
                &info.name,
                format!(
                    "builtins {} are declared, but no stage of the info ({}) can use them",
                    unusable.join(", "),
                    list.join(", ")
                ),
            )
            .item("builtins")
            .at(&info.name, info.origin)
            .hint("remove them from `.builtins(…)`, or add the stage that uses them"),
        );
    }
}

pub(super) fn check_stages(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    let has = |s: Stage| stages.contains(&s);
    let graphics = stages.iter().any(|s| s.is_graphics());
    let rt = stages.iter().any(|s| s.is_ray_tracing());
    let compute = has(Stage::Compute);
    let kinds = [graphics, rt, compute].iter().filter(|b| **b).count();
    let head = info.sources.first();
    let origin = head.map_or(info.origin, |h| h.origin);
    if kinds > 1 {
        let list: Vec<&str> = stages.iter().map(|s| s.short_name()).collect();
        c.diags.push(
            Diagnostic::error(
                Code::MixedPipelineKinds,
                &info.name,
                format!("the info mixes stages of different pipeline kinds: {}", list.join(", ")),
            )
            .item("stage sources")
            .at(&info.name, origin)
            .hint("a compute info has only a compute source; graphics and ray-tracing infos have none"),
        );
    }
    check_stage_interfaces(c, &stages, origin);
    // With early fragment tests the depth test runs before the fragment stage, and Vulkan ignores the depth it
    // writes: a declared depth write would do nothing, with no error from glslang or the driver. A warning, not an
    // error: Blender's infos compose the two through `additional_info` only by accident, and such a port compiles.
    if let (Some(early), Some(depth)) = (&info.early_fragment_test, &info.depth_write)
        && early.value
        && depth.value != DepthWrite::Unchanged
    {
        c.diags.push(
            Diagnostic::warning(
                Code::RenderState,
                &info.name,
                format!(
                    "`{}` declares early fragment tests and depth_write({:?}): with early tests the depth the fragment \
                     stage writes is ignored",
                    info.name, depth.value
                ),
            )
            .item("depth_write")
            .at(&depth.declared_in, depth.origin)
            .related("early_fragment_test declared here", early.origin)
            .hint("drop one: early tests for a shader that keeps the rasterized depth, or the depth write"),
        );
    }
    if compute && info.local_group_size.is_none() && c.opts.require_complete {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a compute info needs a local group size",
            )
            .item("local_group_size")
            .at(&info.name, origin)
            .hint("add `.local_group_size(x)` (or the 2d/3d forms)"),
        );
    }
    if !compute && let Some(it) = &info.local_group_size {
        c.err(
            Code::IncompleteInfo,
            "local_group_size".into(),
            it,
            "local_group_size is set but the info has no compute source".into(),
            "add `.compute_source(file)` or remove the local group size",
        );
    }
    if !c.opts.require_complete {
        return;
    }
    if stages.is_empty() {
        c.diags.push(
            Diagnostic::error(Code::IncompleteInfo, &info.name, "the info is marked compilable but declares no stage source")
                .item("stage sources")
                .at(&info.name, info.origin)
                .hint("add `.vertex_source`/`.fragment_source`, `.compute_source` or ray-tracing sources, or do_static_compilation(false)"),
        );
    }
    if graphics && (!has(Stage::Vertex) || !has(Stage::Fragment)) {
        let missing = if has(Stage::Vertex) {
            "fragment"
        } else {
            "vertex"
        };
        c.diags.push(
            Diagnostic::error(Code::IncompleteInfo, &info.name, format!("a graphics info needs a vertex and a fragment source; the {missing} source is missing"))
                .item(format!("{missing}_source"))
                .at(&info.name, origin)
                .hint(format!("add `.{missing}_source(file)`, directly or through additional_info")),
        );
    }
    if has(Stage::Geometry) && info.geometry_layout.is_none() {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a geometry source needs a geometry layout",
            )
            .item("geometry_layout")
            .at(&info.name, origin)
            .hint("add `.geometry_layout(PrimitiveIn::…, PrimitiveOut::…, max_vertices)`"),
        );
    }
    if (has(Stage::TessControl) || has(Stage::TessEvaluation)) && info.tessellation_layout.is_none()
    {
        // The generated text declares `layout(vertices = …) out` and the evaluation stage's primitive from it:
        // without it glslang refuses both stages ("must specify an output layout(vertices=...)").
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "tessellation sources need a tessellation layout",
            )
            .item("tessellation_layout")
            .at(&info.name, origin)
            .hint("add `.tessellation_layout(control_points, TessDomain::…, TessSpacing::…, FrontFace::…)`"),
        );
    }
    if let Some(g) = &info.geometry_layout
        && has(Stage::Geometry)
    {
        use crate::types::{PrimitiveIn, TessDomain};
        // What reaches the geometry stage: the tessellator's primitives, or the draw's (the topology, which the
        // plan takes from the geometry input when none is declared, and render-state validation checks).
        let tessellated = info.tessellation_layout.as_ref().map(|t| t.value.domain);
        let problem = match (tessellated, g.value.primitive_in) {
            (Some(TessDomain::Isolines), PrimitiveIn::Lines)
            | (Some(TessDomain::Triangles | TessDomain::Quads), PrimitiveIn::Triangles) => None,
            (Some(domain), input) => Some((
                format!(
                    "the geometry stage takes {input:?}, but the tessellator's {domain:?} domain gives it {}",
                    if domain == TessDomain::Isolines {
                        "lines"
                    } else {
                        "triangles"
                    }
                ),
                "take PrimitiveIn::Lines after isolines and PrimitiveIn::Triangles after triangles or quads",
            )),
            (None, _) => None,
        };
        if let Some((message, hint)) = problem {
            c.diags.push(
                Diagnostic::error(Code::RenderState, &info.name, message)
                    .item("geometry_layout")
                    .at(&g.declared_in, g.origin)
                    .hint(hint),
            );
        }
    }
    if let Some(g) = &info.geometry_layout
        && has(Stage::Geometry)
        && g.value.primitive_out == crate::types::PrimitiveOut::Points
        && !info.builtins.contains(BuiltinBits::POINT_SIZE)
    {
        c.diags.push(
            Diagnostic::error(
                Code::RenderState,
                &info.name,
                "the geometry stage emits points, but no stage declares BuiltinBits::POINT_SIZE: a point's size is \
                 undefined unless the geometry stage writes gl_PointSize",
            )
            .item("geometry_layout")
            .at(&g.declared_in, g.origin)
            .hint("declare .builtins(BuiltinBits::POINT_SIZE) and write gl_PointSize in the geometry stage (the \
                   device needs shaderTessellationAndGeometryPointSize, which the plan asks for)"),
        );
    }
    if rt && !has(Stage::RayGen) {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a ray-tracing info needs a ray-generation source",
            )
            .item("raygen_source")
            .at(&info.name, origin)
            .hint("add `.raygen_source(file)`"),
        );
    }
}

/// Items that only a graphics pipeline can use, on an info whose stages make another kind.
pub(super) fn check_kind_items(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    if stages.is_empty() || stages.iter().any(|s| s.is_graphics()) {
        return;
    }
    let kind = if stages.contains(&Stage::Compute) {
        "a compute"
    } else {
        "a ray-tracing"
    };
    let mut found: Vec<(String, String, Origin)> = Vec::new();
    for it in &info.vertex_inputs {
        found.push((
            format!("{} `{}`", it.value.rate.item(), it.value.name),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for (list, items) in interface_lists(info) {
        for it in items {
            found.push((
                format!("{list} `{}`", it.value.name),
                it.declared_in.clone(),
                it.origin,
            ));
        }
    }
    if let Some(it) = &info.geometry_layout {
        found.push(("geometry_layout".into(), it.declared_in.clone(), it.origin));
    }
    if let Some(it) = &info.tessellation_layout {
        found.push((
            "tessellation_layout".into(),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for it in &info.fragment_outputs {
        found.push((
            format!("fragment_out `{}`", it.value.name),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    if let Some(it) = &info.depth_write {
        found.push(("depth_write".into(), it.declared_in.clone(), it.origin));
    }
    if let Some(it) = &info.early_fragment_test {
        found.push((
            "early_fragment_test".into(),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for (item, declared_in, origin) in found {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                format!(
                    "{item} is a graphics item, but `{}` is {kind} info: no stage would use it",
                    info.name
                ),
            )
            .item(item)
            .at(&declared_in, origin)
            .hint("remove it, or move it to the graphics info that needs it"),
        );
    }
}
