//! The shared structs and enums an info emits, walked once with their problems.

use super::checker::Checker;
use crate::diagnostic::{Code, Diagnostic};
use crate::layout::StructLookup;
use crate::origin::Origin;
use crate::resource::ResourceKind;
use std::collections::HashMap;

/// The shared structs and enums the info's stages emit (buffer types and typedef names, and the structs and enums
/// those hold), in a walk that is iterative and bounded: a typedef name that names no type, a struct that holds
/// itself through another, nesting past [`crate::layout::MAX_STRUCT_NESTING`], and the registry's problems with
/// each emitted type are reported for this info. Returns each type once, with where it was registered.
pub(super) fn check_shared_types(c: &mut Checker) -> Vec<(String, Origin)> {
    use crate::layout::{FieldType, MAX_STRUCT_NESTING};
    let info = c.info;
    let reg = c.opts.registry;
    let mut roots: Vec<(String, String, &str, Origin)> = Vec::new();
    for it in &info.resources {
        if let ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } = &it.value.kind
        {
            roots.push((
                type_name.clone(),
                format!("{} `{}`", it.value.kind.word(), it.value.name),
                &it.declared_in,
                it.origin,
            ));
        }
    }
    for it in &info.typedef_sources {
        let name = it.value.as_str();
        if !crate::info::is_type_name(name) || name.is_empty() {
            continue;
        }
        let known = reg.find_struct(name).is_some()
            || reg.enum_def(name).is_some()
            || c.opts.extra_type_names.iter().any(|n| n == name);
        if !known {
            let mut close: Vec<&str> = reg
                .structs()
                .map(|d| d.name.as_str())
                .filter(|n| crate::resolve::edit_distance(n, name) <= 2)
                .collect();
            close.truncate(3);
            c.err(
                Code::UnknownType,
                format!("typedef_source(\"{name}\")"),
                it,
                format!(
                    "typedef_source(\"{name}\") names no shared struct or enum (a name without `.` or `/` is a type, not a file)"
                ),
                if close.is_empty() {
                    "derive `ShaderStruct`/`ShaderEnum` for the type (and link its crate), or give a file path such as `common/types.glsl`".to_string()
                } else {
                    format!("did you mean `{}`?", close.join("` or `"))
                },
            );
            continue;
        }
        roots.push((
            name.to_string(),
            format!("typedef_source(\"{name}\")"),
            &it.declared_in,
            it.origin,
        ));
    }
    // 0: not seen, 1: on the walk's path, 2: done.
    let mut state: HashMap<String, u8> = HashMap::new();
    let mut emitted: Vec<(String, Origin)> = Vec::new();
    for (root, item, declared_in, origin) in roots {
        let from_typedef = item.starts_with("typedef_source");
        if state.contains_key(&root) {
            continue;
        }
        let mut path: Vec<(String, usize)> = vec![(root.clone(), 0)];
        state.insert(root.clone(), 1);
        while let Some((name, next)) = path.last_mut() {
            let def = reg.find_struct(name);
            let field = def.and_then(|d| d.fields.get(*next));
            *next += 1;
            let Some(field) = field else {
                let name = name.clone();
                path.pop();
                state.insert(name.clone(), 2);
                let meta = reg.struct_meta(&name);
                let type_origin = meta.map_or(Origin::default(), |m| m.origin);
                for en in meta.map_or(&[][..], |m| m.enums.as_slice()) {
                    if state.insert(en.clone(), 2).is_none() {
                        emitted.push((en.clone(), type_origin));
                    }
                }
                if reg.enum_def(&name).is_some() || def.is_some() {
                    emitted.push((name, type_origin));
                }
                continue;
            };
            let FieldType::Struct(inner) = &field.ty else {
                continue;
            };
            let known = reg.find_struct(inner).is_some()
                || reg.enum_def(inner).is_some()
                || c.opts.extra_type_names.iter().any(|n| n == inner);
            if !known {
                // A buffer's layout reports an unknown struct (with the field); a typedef type has no layout.
                if from_typedef {
                    c.diags.push(
                        Diagnostic::error(
                            Code::UnknownType,
                            &info.name,
                            format!(
                                "shared struct `{name}` has a field `{}` of type `{inner}`, which names no shared struct",
                                field.name
                            ),
                        )
                        .item(item.clone())
                        .at(declared_in, origin)
                        .hint("register the struct (derive `ShaderStruct`), or give the field a GLSL type"),
                    );
                }
                continue;
            }
            match state.get(inner) {
                Some(2) => {}
                Some(_) => {
                    let from = path.iter().position(|(n, _)| n == inner).unwrap_or(0);
                    let mut chain: Vec<&str> =
                        path[from..].iter().map(|(n, _)| n.as_str()).collect();
                    chain.push(inner);
                    // A buffer's layout reports its recursion (with offsets); typedef types have no layout.
                    if from_typedef {
                        c.diags.push(
                            Diagnostic::error(
                                Code::Layout,
                                &info.name,
                                format!("shared struct `{inner}` contains itself: {}", chain.join(" → ")),
                            )
                            .item(item.clone())
                            .at(declared_in, origin)
                            .hint("a struct cannot hold itself, not even through another: hold an index into a buffer of them instead"),
                        );
                    }
                }
                None if path.len() >= MAX_STRUCT_NESTING => {
                    c.diags.push(
                        Diagnostic::error(
                            Code::Layout,
                            &info.name,
                            format!(
                                "shared structs are nested more than {MAX_STRUCT_NESTING} deep from `{root}`: {} → …",
                                path[..4].iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" → ")
                            ),
                        )
                        .item(item.clone())
                        .at(declared_in, origin)
                        .hint("flatten the structs: real data nests a handful of levels"),
                    );
                    for (n, _) in path.drain(..) {
                        state.insert(n, 2);
                    }
                }
                None => {
                    state.insert(inner.clone(), 1);
                    path.push((inner.clone(), 0));
                }
            }
        }
    }
    for (ty, _) in &emitted {
        for d in reg.type_problems(ty) {
            let mut d = d.clone();
            d.info = info.name.clone();
            c.diags.push(d);
        }
    }
    emitted
}
