//! Static branches and the conditions that read them.

use super::checker::Checker;
use crate::diagnostic::Code;
use crate::types::*;

/// A branch's name is a GLSL identifier; its collisions with other global names are found with every other
/// name's (`names::check_names`).
pub(super) fn check_branches(c: &mut Checker) {
    for b in &c.info.branches {
        c.ident("branch", b.value.as_str(), b);
    }
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
