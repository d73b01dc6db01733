//! Names: GLSL identifiers, duplicates across kinds of items, and the names shared types take.

use super::checker::Checker;
use super::shared_types::check_shared_types;
use crate::diagnostic::{Code, Diagnostic};
use crate::interfaces::interface_lists;
use crate::layout::StructLookup;
use crate::origin::Origin;
use crate::resource::split_array_name;
use std::collections::HashMap;

/// Why `name` is not a usable GLSL identifier, if it is not.
///
/// ```
/// use shader_info::identifier_problem;
/// assert!(identifier_problem("color").is_none());
/// assert!(identifier_problem("gl_Color").unwrap().contains("gl_"));
/// assert!(identifier_problem("a__b").unwrap().contains("__"));
/// assert!(identifier_problem("float").unwrap().contains("keyword"));
/// assert!(identifier_problem("2d").is_some());
/// ```
pub fn identifier_problem(name: &str) -> Option<String> {
    crate::glsl_names::identifier_problem(name)
}

pub(super) fn check_names(c: &mut Checker) {
    let info = c.info;
    // Everything that becomes a global GLSL name in some stage.
    let mut names: Vec<(String, String, String, Origin)> = Vec::new();
    // Names that live inside a struct or block, apart from the globals, but that a macro rewrites all the same.
    let mut members: Vec<(String, String, String, Origin)> = Vec::new();
    // First the names the generator writes whatever the user declared: the shared types this info emits (with
    // their enum constants) and the push-constant block, so that the declared item is the one reported.
    for (ty, origin) in check_shared_types(c) {
        let reg = c.opts.registry;
        if let Some(s) = reg.find_struct(&ty) {
            for f in &s.fields {
                members.push((
                    f.name.clone(),
                    format!("field of shared struct `{ty}`"),
                    ty.clone(),
                    origin,
                ));
            }
        }
        if let Some(e) = reg.enum_def(&ty) {
            names.push((ty.clone(), "shared enum".into(), ty.clone(), origin));
            for (v, _) in &e.values {
                names.push((
                    v.clone(),
                    format!("value of shared enum `{ty}`"),
                    ty.clone(),
                    origin,
                ));
            }
        } else {
            names.push((ty.clone(), "shared struct".into(), ty.clone(), origin));
        }
    }
    if !info.push_constants.is_empty() {
        names.push((
            crate::push_spill::PushConstantSpill::NAME.to_string(),
            "the generated push-constant block".into(),
            info.name.clone(),
            info.origin,
        ));
    }
    let mut add = |name: &str, what: &str, it_decl: &str, origin: Origin| {
        names.push((
            name.to_string(),
            what.to_string(),
            it_decl.to_string(),
            origin,
        ));
    };
    for it in &info.resources {
        let base = it
            .value
            .split_name()
            .map(|(b, _)| b.to_string())
            .unwrap_or_else(|_| it.value.name.clone());
        add(&base, it.value.kind.word(), &it.declared_in, it.origin);
        // A buffer's block is named `_<name>` (see `Resource::glsl_declaration`): a global name as well.
        if it.value.block_rules().is_some() {
            add(
                &format!("_{base}"),
                &format!("block of {} `{base}`", it.value.kind.word()),
                &it.declared_in,
                it.origin,
            );
        }
    }
    for it in &info.push_constants {
        add(&it.value.name, "push_constant", &it.declared_in, it.origin);
    }
    for it in &info.specialization_constants {
        add(
            &it.value.name,
            "specialization_constant",
            &it.declared_in,
            it.origin,
        );
    }
    for it in &info.vertex_inputs {
        add(&it.value.name, "vertex_in", &it.declared_in, it.origin);
    }
    for it in &info.fragment_outputs {
        add(&it.value.name, "fragment_out", &it.declared_in, it.origin);
    }
    // A define of a declared name would rewrite that declaration's identifier.
    for it in &info.defines {
        add(it.value.macro_name(), "define", &it.declared_in, it.origin);
    }
    for it in &info.constants {
        add(&it.value.name, "constant", &it.declared_in, it.origin);
    }

    for it in &info.shared_variables {
        let base = split_array_name(&it.value.name).map_or(it.value.name.as_str(), |(b, _)| b);
        add(base, "shared_variable", &it.declared_in, it.origin);
    }
    let globals = names.len();
    for (_, list) in interface_lists(info) {
        let mut local = names[..globals].to_vec();
        for it in list.iter() {
            let iface = &it.value;
            // The block's name is global too: a member or another item of the same name collides with it.
            local.push((
                iface.name.clone(),
                "interface block".into(),
                it.declared_in.clone(),
                it.origin,
            ));
            if iface.instance_name.is_empty() {
                for m in &iface.members {
                    local.push((
                        m.name.clone(),
                        format!("member of interface `{}`", iface.name),
                        it.declared_in.clone(),
                        m.origin,
                    ));
                }
            } else {
                local.push((
                    iface.instance_name.clone(),
                    "interface instance".into(),
                    it.declared_in.clone(),
                    it.origin,
                ));
                for m in &iface.members {
                    members.push((
                        m.name.clone(),
                        format!("member of interface `{}`", iface.name),
                        it.declared_in.clone(),
                        m.origin,
                    ));
                }
                let mut seen: HashMap<&str, ()> = HashMap::new();
                for m in &iface.members {
                    if seen.insert(&m.name, ()).is_some() {
                        c.diags.push(
                            Diagnostic::error(
                                Code::DuplicateName,
                                &info.name,
                                format!(
                                    "interface `{}` has two members named `{}`",
                                    iface.name, m.name
                                ),
                            )
                            .item(format!("interface member `{}`", m.name))
                            .at(&it.declared_in, m.origin)
                            .hint("rename one of them"),
                        );
                    }
                }
            }
        }
        report_duplicates(c, &local[globals..], &local);
    }
    report_duplicates(c, &names, &names);
    for it in &info.defines {
        let name = it.value.macro_name();
        if let Some((_, what, decl, origin)) = members.iter().find(|(n, ..)| n == name) {
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &info.name,
                    format!(
                        "define `{name}` would rewrite the {what} `{name}` (in `{decl}`): a macro replaces every \
                         token of its name"
                    ),
                )
                .item(format!("define `{name}`"))
                .at(&it.declared_in, it.origin)
                .related(format!("{what} `{name}` declared in `{decl}`"), *origin)
                .hint("rename the define or the field (defines are usually written in capitals)"),
            );
        }
    }
}

fn report_duplicates(
    c: &mut Checker,
    candidates: &[(String, String, String, Origin)],
    all: &[(String, String, String, Origin)],
) {
    for (i, (name, what, decl, origin)) in candidates.iter().enumerate() {
        let offset = all.len() - candidates.len();
        if let Some((_, w0, d0, o0)) = all[..offset + i].iter().find(|(n, ..)| n == name) {
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &c.info.name,
                    format!("`{name}` is declared twice: as {w0} (in `{d0}`) and as {what} (in `{decl}`)"),
                )
                .item(format!("{what} `{name}`"))
                .at(decl, *origin)
                .related(format!("{w0} `{name}` declared in `{d0}`"), *o0)
                .hint("names share one GLSL namespace: rename one of them"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Type;
    use crate::glsl_names::GLSL_TYPE_NAMES;

    /// The shared name list (also read by the derive macros) knows every type the DSL can declare.
    #[test]
    fn every_declarable_type_is_a_reserved_name() {
        for t in Type::ALL {
            assert!(
                GLSL_TYPE_NAMES.contains(&t.glsl_name()),
                "{}",
                t.glsl_name()
            );
        }
    }
}
