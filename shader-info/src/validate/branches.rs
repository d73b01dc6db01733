//! Static branches and the conditions that read them.

use super::checker::Checker;
use crate::diagnostic::{Code, Diagnostic};
use crate::interfaces::interface_lists;
use crate::layout::StructLookup;
use crate::origin::Origin;
use crate::resource::ResourceKind;
use crate::types::*;

pub(super) fn check_branches(c: &mut Checker) {
    let info = c.info;
    for b in &info.branches {
        let name = b.value.as_str();
        c.ident("branch", name, b);
        let clash = info
            .defines
            .iter()
            .find(|d| d.value.macro_name() == name)
            .map(|d| ("define", d.declared_in.clone(), d.origin))
            .or_else(|| {
                info.resources
                    .iter()
                    .find(|r| {
                        r.value
                            .split_name()
                            .map(|(n, _)| n)
                            .unwrap_or(&r.value.name)
                            == name
                    })
                    .map(|r| (r.value.kind.word(), r.declared_in.clone(), r.origin))
            })
            .or_else(|| {
                info.specialization_constants
                    .iter()
                    .find(|k| k.value.name == name)
                    .map(|k| ("specialization_constant", k.declared_in.clone(), k.origin))
            })
            .or_else(|| {
                info.push_constants
                    .iter()
                    .find(|k| k.value.name == name)
                    .map(|k| ("push_constant", k.declared_in.clone(), k.origin))
            })
            .or_else(|| {
                info.vertex_inputs
                    .iter()
                    .find(|v| v.value.name == name)
                    .map(|v| ("vertex_in", v.declared_in.clone(), v.origin))
            })
            .or_else(|| {
                info.fragment_outputs
                    .iter()
                    .find(|f| f.value.name == name)
                    .map(|f| ("fragment_out", f.declared_in.clone(), f.origin))
            })
            .or_else(|| {
                interface_lists(info)
                    .into_iter()
                    .flat_map(|(_, list)| list)
                    .find(|i| {
                        i.value.name == name
                            || i.value.instance_name == name
                            || i.value.members.iter().any(|m| m.name == name)
                    })
                    .map(|i| {
                        (
                            "interface, its instance or a member",
                            i.declared_in.clone(),
                            i.origin,
                        )
                    })
            })
            .or_else(|| shared_type_clash(c, name));
        if let Some((what, decl, origin)) = clash {
            c.diags.push(
                Diagnostic::error(
                    Code::Branch,
                    &info.name,
                    format!("branch `{name}` (from `{}`) has the same name as a {what} (from `{decl}`)", b.declared_in),
                )
                .item(format!("branch `{name}`"))
                .at(&b.declared_in, b.origin)
                .related(format!("{what} `{name}` declared in `{decl}`"), origin)
                .hint(format!("a branch becomes `const bool {name}` in GLSL: rename the branch or the other item")),
            );
        }
    }
}

/// The shared type this info emits (a struct, an enum, or one of the enum's constants) that is named `name`: a
/// branch of that name would be a second global of the same name in GLSL.
pub(super) fn shared_type_clash(c: &Checker, name: &str) -> Option<(&'static str, String, Origin)> {
    let info = c.info;
    let reg = c.opts.registry;
    let buffers = info.resources.iter().filter_map(|r| match &r.value.kind {
        ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } => {
            Some((type_name.as_str(), r.declared_in.clone(), r.origin))
        }
        ResourceKind::Sampler { .. }
        | ResourceKind::Image { .. }
        | ResourceKind::AccelerationStructure
        | ResourceKind::InputAttachment { .. } => None,
    });
    let typedefs = info
        .typedef_sources
        .iter()
        .map(|t| (t.value.as_str(), t.declared_in.clone(), t.origin));
    typedefs.chain(buffers).find_map(|(ty, decl, origin)| {
        if ty == name && (reg.enum_def(ty).is_some() || reg.find_struct(ty).is_some()) {
            return Some(("shared type", decl, origin));
        }
        reg.enum_def(ty)
            .filter(|e| e.values.iter().any(|(v, _)| v == name))
            .map(|_| ("value of a shared enum", decl, origin))
    })
}

/// A condition reads branches and boolean shared constants of the info, and only resources are conditional.
pub(super) fn check_conditions(c: &mut Checker) {
    let info = c.info;
    for it in &info.conditional_resources {
        let cr = &it.value;
        let what = match &cr.resource {
            Ok(r) => format!("{} `{}`", r.kind.word(), r.name),
            Err(_) => "resources_if".to_string(),
        };
        if let Err(other) = &cr.resource {
            c.err(
                Code::Branch,
                what.clone(),
                it,
                format!("`resources_if({})` declares {other}; only resources can be conditional", cr.condition),
                "declare other items outside `resources_if`, or give variants their own with the specialize function",
            );
        }
        for name in cr.condition.names() {
            let known = info.branches.iter().any(|b| b.value == name)
                || info
                    .constants
                    .iter()
                    .any(|k| k.value.name == name && k.value.value.ty() == Type::Bool);
            if !known {
                let branches: Vec<&str> = info.branches.iter().map(|b| b.value.as_str()).collect();
                c.err(
                    Code::Branch,
                    what.clone(),
                    it,
                    format!(
                        "{what} is declared under `{}`, but `{name}` is no branch or boolean constant of the info",
                        cr.condition
                    ),
                    if branches.is_empty() {
                        "declare the branch with `.branch(..)`, or a boolean `constant!`".to_string()
                    } else {
                        format!("its branches: {}", branches.join(", "))
                    },
                );
            }
        }
    }
}
