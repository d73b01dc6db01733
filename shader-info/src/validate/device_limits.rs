//! Numbers checked against what glslang and devices refuse, and against what Vulkan guarantees.

use super::checker::Checker;
use crate::diagnostic::{Code, Diagnostic};
use crate::limits::{
    GUARANTEED_GEOMETRY_INVOCATIONS, GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS,
    GUARANTEED_INTERFACE_LOCATIONS, GUARANTEED_TESS_PATCH_OUTPUT_COMPONENTS,
    GUARANTEED_TESS_TOTAL_OUTPUT_COMPONENTS, GUARANTEED_UNIFORM_BUFFER_BYTES, MAX_CONSTANT_ID,
    MAX_GEOMETRY_INVOCATIONS, MAX_GEOMETRY_OUTPUT_VERTICES, MAX_INTERFACE_LOCATIONS,
    TYPICAL_UNIFORM_BUFFER_BYTES,
};
use crate::resource::ResourceKind;
use crate::types::*;

/// Numbers past what glslang or every device refuses are errors; past what Vulkan guarantees but within what
/// some devices allow, warnings that name both numbers.
pub(super) fn check_limits(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (id, it) in info
        .specialization_constant_ids()
        .into_iter()
        .zip(&info.specialization_constants)
    {
        if id > MAX_CONSTANT_ID {
            c.err(
                Code::OutOfRange,
                format!("specialization_constant `{}`", it.value.name),
                it,
                format!(
                    "specialization constant `{}` gets constant_id {id}, past the {MAX_CONSTANT_ID} glslang accepts \
                     (ids are numbered across the registry, one per declared constant)",
                    it.value.name
                ),
                "declare fewer specialization constants across the registry: turn rarely changed ones into \
                 `compilation_constant`s, or share one declaration through additional_info",
            );
        }
    }
    if let Some(g) = &info.geometry_layout {
        let l = &g.value;
        if l.invocations == 0 || l.invocations > MAX_GEOMETRY_INVOCATIONS {
            c.err(
                Code::OutOfRange,
                "geometry_layout".into(),
                g,
                format!(
                    "the geometry layout asks for {} invocations; a geometry stage runs 1 to {MAX_GEOMETRY_INVOCATIONS} times per primitive",
                    l.invocations
                ),
                format!(
                    "use `geometry_layout(…)` for one invocation, or `geometry_layout_instanced(…, n)` with n from 1 to {GUARANTEED_GEOMETRY_INVOCATIONS} (Vulkan's guarantee)"
                ),
            );
        } else if l.invocations > GUARANTEED_GEOMETRY_INVOCATIONS {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!(
                        "the geometry layout asks for {} invocations, past the {GUARANTEED_GEOMETRY_INVOCATIONS} Vulkan guarantees (NVIDIA and Intel stop at 32, AMD allows {MAX_GEOMETRY_INVOCATIONS})",
                        l.invocations
                    ),
                )
                .item("geometry_layout")
                .at(&g.declared_in, g.origin)
                .hint("keep to 32 invocations to run everywhere"),
            );
        }
        if l.max_vertices == 0 {
            // glslang takes 0; Vulkan asks for more than 0 output vertices when it makes the pipeline.
            c.err(
                Code::OutOfRange,
                "geometry_layout".into(),
                g,
                "the geometry layout emits at most 0 vertices: Vulkan refuses a geometry stage that emits none".into(),
                "give the largest number of vertices one invocation emits (at least 1)",
            );
        }
        if l.max_vertices > MAX_GEOMETRY_OUTPUT_VERTICES {
            c.err(
                Code::OutOfRange,
                "geometry_layout".into(),
                g,
                format!(
                    "the geometry layout emits up to {} vertices, past the {MAX_GEOMETRY_OUTPUT_VERTICES} glslang and Vulkan allow (`gl_MaxGeometryOutputVertices`)",
                    l.max_vertices
                ),
                format!("emit at most {MAX_GEOMETRY_OUTPUT_VERTICES} vertices per invocation; split the work with `geometry_layout_instanced`"),
            );
        }
        if !stages.is_empty() && !stages.contains(&Stage::Geometry) {
            let mut d = Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a geometry layout is declared but the info has no geometry stage: it would be ignored",
            )
            .item("geometry_layout")
            .at(&g.declared_in, g.origin)
            .hint("add `.geometry_source(file)`, or remove the layout");
            // A variant may add the stage (`VariantBuilder::source`).
            if info.specialize.is_some() {
                d.severity = crate::diagnostic::Severity::Warning;
            }
            c.diags.push(d);
        }
    }
    if let Some(sp) = &info.specialize
        && info.branches.is_empty()
    {
        c.err(
            Code::Branch,
            "specialize".into(),
            sp,
            "a specialize function is declared but the info has no branches: it would never run".into(),
            "declare the branches it reads with `.branch(\"NAME\")`, or remove the specialize function",
        );
    }
    let uses = crate::interfaces::interface_use(info);
    if let Some(g) = &info.geometry_layout {
        let (per_vertex, total) = crate::device_use::geometry_output(&g.value, &uses);
        if total > u64::from(GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS) {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!(
                        "the geometry layout emits up to {} vertices of {per_vertex} components (outputs and the \
                         gl_PerVertex block): {total} components, past the {GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS} \
                         Vulkan guarantees (and NVIDIA allows)",
                        g.value.max_vertices
                    ),
                )
                .item("geometry_layout")
                .at(&g.declared_in, g.origin)
                .hint(format!(
                    "emit at most {} vertices per invocation (geometry_layout_instanced splits the work)",
                    GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS / per_vertex.max(1)
                )),
            );
        }
    }
    if let Some(t) = &info.tessellation_layout {
        let points = t.value.control_points;
        for (message, hint, max, _) in crate::device_use::tessellation_output(points, &uses).over(
            GUARANTEED_TESS_PATCH_OUTPUT_COMPONENTS,
            GUARANTEED_TESS_TOTAL_OUTPUT_COMPONENTS,
        ) {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!("{message}, past the {max} Vulkan guarantees"),
                )
                .item("tessellation_layout")
                .at(&t.declared_in, t.origin)
                .hint(hint),
            );
        }
    }
    // Interface locations between stages; past the device's own limits, an error when the pipeline is made.
    // The whole interfaces (the per-patch blocks alone are within them).
    for u in uses.iter().filter(|u| !u.patch) {
        let used = u.used;
        if used <= GUARANTEED_INTERFACE_LOCATIONS {
            continue;
        }
        let what = format!(
            "the {} stage's {} use {used} locations",
            u.stage,
            if u.direction == crate::interfaces::Direction::In {
                "inputs"
            } else {
                "outputs"
            }
        );
        let mut d = Diagnostic::new(
            if used > MAX_INTERFACE_LOCATIONS {
                crate::diagnostic::Severity::Error
            } else {
                crate::diagnostic::Severity::Warning
            },
            Code::OutOfRange,
            &info.name,
            if used > MAX_INTERFACE_LOCATIONS {
                format!("{what}, past the {MAX_INTERFACE_LOCATIONS} any device allows (Vulkan guarantees {GUARANTEED_INTERFACE_LOCATIONS})")
            } else {
                format!("{what}, past the {GUARANTEED_INTERFACE_LOCATIONS} Vulkan guarantees (desktop devices allow {MAX_INTERFACE_LOCATIONS})")
            },
        )
        .item(u.item.clone())
        .at(&u.declared_in, u.origin)
        .hint(crate::interfaces::PACK_INTERFACE_HINT);
        d.stage = Some(u.stage);
        c.diags.push(d);
    }
    for it in &info.resources {
        if !matches!(it.value.kind, ResourceKind::UniformBuffer { .. }) {
            continue;
        }
        let Some(Ok(layout)) = it.value.block_layout(c.opts.registry) else {
            continue;
        };
        if u64::from(layout.size) > GUARANTEED_UNIFORM_BUFFER_BYTES {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!(
                        "uniform_buf `{}` is {} bytes, past the {GUARANTEED_UNIFORM_BUFFER_BYTES} Vulkan guarantees for a uniform buffer (typical devices: {TYPICAL_UNIFORM_BUFFER_BYTES})",
                        it.value.name, layout.size
                    ),
                )
                .item(format!("uniform_buf `{}`", it.value.name))
                .at(&it.declared_in, it.origin)
                .hint("fine where the device's maxUniformBufferRange allows it; a storage_buf has no such limit"),
            );
        }
    }
}
