//! Resources, the push-constant block and subpass inputs: what a pipeline binds.

use super::checker::Checker;
use super::constants::named_size_problem;
use crate::diagnostic::{Code, Diagnostic};
use crate::item::Item;
use crate::limits::{
    MAX_FRAGMENT_OUTPUTS, MAX_PUSH_CONSTANT_BYTES, MAX_SPILLED_PUSH_CONSTANT_BYTES,
};
use crate::resource::{ArraySize, Resource, ResourceKind, SlotSpace};
use crate::types::*;
use std::collections::HashMap;

pub(super) fn check_resources(c: &mut Checker) {
    let info = c.info;
    let mut bindings: HashMap<(u32, u32), &Item<Resource>> = HashMap::new();
    for it in &info.resources {
        let r = &it.value;
        let base = match r.split_name() {
            Ok((base, size)) => {
                if size == ArraySize::Runtime
                    && !matches!(r.kind, ResourceKind::StorageBuffer { .. })
                {
                    c.err(
                        Code::InvalidArray,
                        format!("{} `{}`", r.kind.word(), r.name),
                        it,
                        format!(
                            "`{}` is a runtime-sized array, which only storage buffers can be",
                            r.name
                        ),
                        "give the array a size: `name[N]`",
                    );
                }
                Some(base.to_string())
            }
            Err(e) => {
                let (message, hint) = named_size_problem(info, &r.name)
                    .unwrap_or((e, "write `name`, `name[N]` or `name[]`".to_string()));
                c.err(
                    Code::InvalidArray,
                    format!("{} `{}`", r.kind.word(), r.name),
                    it,
                    message,
                    hint,
                );
                None
            }
        };
        if let Some(base) = base {
            c.ident(r.kind.word(), &base, it);
        }
        if let Some(first) = bindings.get(&(r.set(), r.binding)) {
            let f = &first.value;
            // Declared, or the Blender prelude's default (resolution numbered the slots so).
            let per_kind = info
                .slot_space
                .as_ref()
                .map_or(info.blender_prelude, |s| s.value == SlotSpace::PerKind);
            let (place, hint) = if per_kind {
                (
                    format!("{} slot {} of set {}", r.kind.word(), r.slot, r.set()),
                    format!(
                        "give one of them another slot; the info numbers slots per kind (`slots_per_kind`), so only resources of one kind share a slot space (frequency {:?} is set {})",
                        r.frequency,
                        r.set()
                    ),
                )
            } else {
                (
                    format!("set {} binding {}", r.set(), r.binding),
                    format!(
                        "give one of them another slot; frequency {:?} is set {}, and bindings are shared by every kind of resource in a set{}",
                        r.frequency,
                        r.set(),
                        if f.kind.word() == r.kind.word() {
                            ""
                        } else {
                            ". Infos written with one slot space per kind (as Blender's are) can say so with `.slots_per_kind()`, and bindings are derived"
                        }
                    ),
                )
            };
            c.diags.push(
                Diagnostic::error(
                    Code::BindingCollision,
                    &info.name,
                    format!(
                        "{} `{}` (from `{}`) and {} `{}` (from `{}`) both use {place}",
                        f.kind.word(),
                        f.name,
                        first.declared_in,
                        r.kind.word(),
                        r.name,
                        it.declared_in,
                    ),
                )
                .item(format!("{} `{}`", r.kind.word(), r.name))
                .at(&it.declared_in, it.origin)
                .related(
                    format!(
                        "{} `{}` declared in `{}`",
                        f.kind.word(),
                        f.name,
                        first.declared_in
                    ),
                    first.origin,
                )
                .hint(hint),
            );
        } else {
            bindings.insert((r.set(), r.binding), it);
        }
        let known = |name: &str| c.known_type(name);
        for (code, message, hint) in r.kind_problems(&known, c.opts.registry) {
            c.err(
                code,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                message,
                hint,
            );
        }
    }
}

pub(super) fn check_push_constants(c: &mut Checker) {
    let info = c.info;
    if info.push_constants.is_empty() {
        return;
    }
    for it in &info.push_constants {
        c.ident("push_constant", &it.value.name, it);
        if it.value.array_size == Some(0) {
            c.err(
                Code::InvalidArray,
                format!("push_constant `{}`", it.value.name),
                it,
                format!("push constant `{}` has array size 0", it.value.name),
                "sizes must be at least 1",
            );
        }
    }
    let layout = match info.push_constant_layout() {
        None => return,
        Some(Ok(l)) => l,
        Some(Err(e)) => {
            let last = info.push_constants.last().expect("non-empty");
            c.err(
                Code::Layout,
                "push constants".to_string(),
                last,
                e.to_string(),
                "fix the member named above",
            );
            return;
        }
    };
    if layout.end > MAX_PUSH_CONSTANT_BYTES {
        let members: Vec<String> = layout
            .members
            .iter()
            .map(|m| format!("{} at {} ({} bytes)", m.name, m.offset, m.size))
            .collect();
        let last = info.push_constants.last().expect("non-empty");
        let message = |limit: &str| {
            format!(
                "the push-constant block is {} bytes in std430, over the {limit}: {}",
                layout.end,
                members.join(", ")
            )
        };
        if layout.end > MAX_SPILLED_PUSH_CONSTANT_BYTES {
            c.err(
                Code::PushConstantTooLarge,
                "push constants".to_string(),
                last,
                message(&format!(
                    "{MAX_SPILLED_PUSH_CONSTANT_BYTES} bytes a spilled block may hold"
                )),
                "move the larger members (matrices, arrays) into a uniform_buf or storage_buf",
            );
        } else {
            let spill = crate::push_spill::PushConstantSpill::PLACE;
            c.diags.push(
                Diagnostic::warning(Code::PushConstantTooLarge, &info.name, format!(
                    "{}; it is spilled to a read-only storage buffer with the same layout at set {} binding {}",
                    message(&format!("{MAX_PUSH_CONSTANT_BYTES} bytes Vulkan guarantees")),
                    spill.0,
                    spill.1
                ))
                .item("push constants")
                .at(&last.declared_in, last.origin)
                .hint("nothing to do: the backends' push calls write the buffer. To push for real, move the larger members into a uniform_buf"),
            );
        }
    }
}

/// A subpass input is a scalar or vector of a fragment stage, reading a color attachment that can exist.
pub(super) fn check_subpass_inputs(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (i, it) in info.subpass_inputs.iter().enumerate() {
        let s = &it.value;
        let item = format!("subpass_in `{}`", s.name);
        c.ident("subpass_in", &s.name, it);
        if s.ty.shape().0 != 1 || s.ty.scalar() == Scalar::Bool || s.ty.is_double() {
            c.err(
                Code::UnknownType,
                item.clone(),
                it,
                format!("subpass input `{}` is a `{}`; attachments hold float, int or uint scalars and vectors", s.name, s.ty),
                "declare it as the attachment's texel type (vec4 for a color target)",
            );
        }
        if s.index >= MAX_FRAGMENT_OUTPUTS {
            c.err(
                Code::OutOfRange,
                item.clone(),
                it,
                format!("subpass input `{}` reads attachment {}, past the {MAX_FRAGMENT_OUTPUTS} color attachments", s.name, s.index),
                "read one of the color attachments an earlier pass writes",
            );
        }
        if info.subpass_inputs[..i]
            .iter()
            .any(|p| p.value.index == s.index)
        {
            c.err(
                Code::DuplicateName,
                item.clone(),
                it,
                format!("attachment {} is read by two subpass inputs", s.index),
                "read each attachment once and use the value twice",
            );
        }
        if !stages.is_empty() && !stages.contains(&Stage::Fragment) {
            c.err(
                Code::IncompleteInfo,
                item,
                it,
                "subpass inputs are fragment inputs, but the info has no fragment stage"
                    .to_string(),
                "add the fragment stage, or remove the subpass input",
            );
        }
    }
}
