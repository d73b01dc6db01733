//! Shared constants, defines and array sizes named by a constant.

use super::checker::Checker;
use crate::constant::ConstValue;
use crate::diagnostic::Code;
use crate::info::*;
use crate::types::*;

pub(super) fn check_constants_and_defines(c: &mut Checker) {
    let info = c.info;
    for it in &info.specialization_constants {
        let sc = &it.value;
        c.ident("specialization_constant", &sc.name, it);
        if !matches!(sc.ty, Type::Bool | Type::Int | Type::Uint | Type::Float) {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", sc.name),
                it,
                format!("specialization constant `{}` is a `{}`; only bool, int, uint and float can be specialized", sc.name, sc.ty),
                "split it into scalar constants",
            );
        } else if sc.default.ty() != sc.ty {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", sc.name),
                it,
                format!(
                    "specialization constant `{}` is a `{}` but its default {:?} is a `{}`",
                    sc.name,
                    sc.ty,
                    sc.default,
                    sc.default.ty()
                ),
                format!("give a `{}` default", sc.ty),
            );
        }
    }
    for it in &info.defines {
        // A function-like macro (`name(a, b)`) is a name and a parameter list; the body follows the value's rules.
        if let Some(p) = crate::glsl_names::define_name_problem(&it.value.name) {
            c.err(
                Code::InvalidIdentifier,
                format!("define `{}`", it.value.name),
                it,
                p,
                "name a define with a plain GLSL identifier, or `name(a, b)` for a function-like macro",
            );
        }
    }
    for it in &info.constants {
        c.ident("constant", &it.value.name, it);
        if let ConstValue::Float(f) = it.value.value
            && !f.is_finite()
        {
            c.err(
                Code::InvalidConstant,
                format!("constant `{}`", it.value.name),
                it,
                format!(
                    "constant `{}` is {f}, which GLSL cannot write",
                    it.value.name
                ),
                "give it a finite value",
            );
        }
    }
    if let Some(it) = &info.local_group_size
        && it.value.contains(&0)
    {
        c.err(
            Code::ZeroGroupSize,
            "local_group_size".to_string(),
            it,
            format!("local group size {:?} has a zero dimension", it.value),
            "every dimension must be at least 1",
        );
    }
}

/// What is wrong with an array size written as a name (`views[VIEW_COUNT]`) that resolution left unresolved.
pub(super) fn named_size_problem(info: &ShaderCreateInfo, name: &str) -> Option<(String, String)> {
    let inner = name[name.find('[')? + 1..].trim_end_matches(']').trim();
    if !inner.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_') {
        return None;
    }
    Some(
        match info.constants.iter().find(|c| c.value.name == inner) {
            Some(c) => (
                format!(
                    "`{name}` is sized by constant `{inner}`, which is {}: an array size must be a positive integer",
                    c.value.value.glsl_literal()
                ),
                format!("give `{inner}` a positive integer value in Rust (a `u32`)"),
            ),
            // A shared header's macro (Blender's `drw_view_buf[DRW_VIEW_LEN]`) is read where the headers can be
            // loaded: a flow's validation, not a registry's, which has no loader.
            None if !info.typedef_sources.is_empty() => (
                format!(
                    "`{name}` is sized by `{inner}`, which is neither a constant of this info nor a number its \
                     typedef sources `#define` (a flow's validation reads them; a registry's has no loader)"
                ),
                format!(
                    "define it in a typedef source (`#define {inner} N`) and validate through a Flow \
                     (`Flow::validated`), or declare `const {inner}: u32 = …;` in Rust and add \
                     `.constant(constant!({inner}))`"
                ),
            ),
            None => (
                format!("`{name}` is sized by `{inner}`, which is no constant of this info"),
                format!(
                    "declare `const {inner}: u32 = …;` in Rust and add `.constant(constant!({inner}))` to this info \
                 or to one it includes"
                ),
            ),
        },
    )
}
