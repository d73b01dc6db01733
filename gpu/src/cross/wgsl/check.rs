//! The WGSL check: Tint (Dawn's WGSL compiler) must accept the text, then naga's WGSL front end reads it back and
//! every binding, block member offset and specialization constant is compared with the map and the declaration.

use crate::cross::check::bindings::{describe, used_bindings};
use crate::cross::check::layout::{Offsets, compare_offsets, declared_offsets, naga_offsets};
use crate::cross::check::tint;
use crate::cross::{Portable, validate};
use naga::proc::Layouter;
use shader_info::{DescriptorKind, PushConstantPlan};

pub(crate) fn check(p: &Portable, text: &str, entry_point: &str) -> Vec<String> {
    let mut out = Vec::new();
    match tint::check(text) {
        Ok(None) => {}
        Ok(Some(errors)) => out.push(format!("Tint (Dawn's WGSL compiler) rejects it:\n{errors}")),
        Err(e) => out.push(e),
    }
    let module = match naga::front::wgsl::parse_str(text) {
        Ok(m) => m,
        Err(e) => {
            out.push(format!(
                "naga's WGSL front end rejects it: {}",
                e.emit_to_string(text)
            ));
            return out;
        }
    };
    if let Err(e) = validate(&module) {
        out.push(format!("naga's validator rejects the parsed WGSL: {e}"));
        return out;
    }
    // wgpu looks the entry point up by the name the translation records.
    if !module.entry_points.iter().any(|e| e.name == entry_point) {
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        out.push(format!(
            "the translation's entry point `{entry_point}` is not in the WGSL, whose entry points are {names:?}"
        ));
    }
    let mut layouter = Layouter::default();
    if let Err(e) = layouter.update(module.to_ctx()) {
        out.push(format!("the WGSL types have no layout: {e}"));
        return out;
    }
    // The push-constant block's member offsets in the WGSL against the declared ones.
    let push_block_offsets = |what: &str, ty, block: &PushConstantPlan, out: &mut Vec<String>| {
        let mut actual = Offsets::new();
        naga_offsets(
            &module,
            &layouter,
            ty,
            &block.layout.members,
            "",
            &mut actual,
        );
        compare_offsets(what, &declared_offsets(&block.layout), &actual, out);
    };
    let mut seen = Vec::new();
    for (_, g) in module.global_variables.iter() {
        let name = g.name.clone().unwrap_or_default();
        match (&g.binding, g.space) {
            (Some(rb), naga::AddressSpace::Storage { access })
                if (rb.group, rb.binding) == super::immediates::WGSL_BUFFER_PLACE
                    && p.plan.targets.at(rb.group, rb.binding).is_none() =>
            {
                // A push-constant block not every WebGPU implementation's immediates hold, read from a storage buffer
                // instead.
                match &p.plan.push_constants {
                    Some(block) if super::immediates::wgsl_reads_from_buffer(block) => {
                        if access != naga::StorageAccess::LOAD {
                            out.push(format!(
                                "the push-constant buffer `{name}` is writable ({access:?}); it must be read-only"
                            ));
                        }
                        push_block_offsets("the push-constant buffer", g.ty, block, &mut out);
                    }
                    _ => out.push(format!(
                        "`{name}` is at @group({}) @binding({}), where the map has no binding and no push-constant \
                         block is read (only a block with an array member or over {} bytes is)",
                        rb.group,
                        rb.binding,
                        super::immediates::WEBGPU_IMMEDIATE_BYTES
                    )),
                }
            }
            (Some(rb), space) => {
                let Some(b) = p.plan.targets.at(rb.group, rb.binding) else {
                    out.push(format!(
                        "`{name}` is at @group({}) @binding({}), where the map has no binding",
                        rb.group, rb.binding
                    ));
                    continue;
                };
                seen.push((b.set, b.binding));
                let kind_ok = matches!(
                    (b.kind, space, &module.types[g.ty].inner),
                    (
                        DescriptorKind::UniformBuffer,
                        naga::AddressSpace::Uniform,
                        _
                    ) | (
                        DescriptorKind::StorageBuffer,
                        naga::AddressSpace::Storage { .. },
                        _
                    ) | (
                        DescriptorKind::Sampler,
                        naga::AddressSpace::Handle,
                        naga::TypeInner::Sampler { .. }
                    ) | (
                        DescriptorKind::SampledImage | DescriptorKind::StorageImage,
                        naga::AddressSpace::Handle,
                        naga::TypeInner::Image { .. },
                    )
                );
                if !kind_ok {
                    out.push(format!(
                        "`{name}` at @group({}) @binding({}) is not a {:?} as the map says for {}",
                        rb.group,
                        rb.binding,
                        b.kind,
                        describe(b)
                    ));
                }
                if let Some(layout) = p.block_layout(b.set, b.binding) {
                    let mut actual = Offsets::new();
                    naga_offsets(&module, &layouter, g.ty, &layout.members, "", &mut actual);
                    compare_offsets(&describe(b), &declared_offsets(layout), &actual, &mut out);
                }
            }
            (None, naga::AddressSpace::Immediate) => {
                let size = layouter[g.ty].size;
                let most = super::immediates::WEBGPU_IMMEDIATE_BYTES;
                if size > most {
                    out.push(format!(
                        "the WGSL keeps {size} bytes in immediates; a WebGPU implementation need take only {most}, \
                         so such a block is read from the storage buffer at @group(3) @binding(0)"
                    ));
                }
                match &p.plan.push_constants {
                    Some(block) if super::immediates::has_array(&block.layout) => out.push(
                        "the push-constant block has an array member but the WGSL keeps it in immediates, which \
                         WebGPU forbids"
                            .into(),
                    ),
                    Some(block) => {
                        push_block_offsets("the push-constant block", g.ty, block, &mut out)
                    }
                    None => out.push(
                        "the WGSL has an immediate block but the declaration has no push constants".into(),
                    ),
                }
            }
            _ => {}
        }
    }
    for b in used_bindings(p) {
        if !seen.contains(&(b.set, b.binding)) {
            out.push(format!("{} is missing from the WGSL", describe(b)));
        }
    }
    // Specialization constants stay overrides at the declared ids. Matched by id, not by name: naga's namer
    // rewrites names that end in a digit or an underscore, or hold `__` (found by the declaration fuzzer).
    for c in p.used_spec_constants() {
        if !module
            .overrides
            .iter()
            .any(|(_, o)| o.id == Some(c.id as u16))
        {
            out.push(format!(
                "specialization constant `{}` is not an `override` @id({}) in the WGSL",
                c.name, c.id
            ));
        }
    }
    out
}
