//! The Rust twins of shared structs, checked against the layout engine: a `#[derive(ShaderStruct)]` struct proves
//! its layout at compile time, and this check makes sure the proof covers the way each info uses the struct (the
//! rule set of the block that holds it, its size and every member offset). It runs as part of validation.

use crate::diagnostic::{Code, Diagnostic};
use crate::layout::{BlockLayout, Field, FieldType, Rules, StructLookup};
use crate::registry::Registry;
use crate::resolve::ResolvedInfo;
use crate::shader_type::{GlslKind, ShaderType};

/// The differences between a registered shared struct's Rust twin and its `rules` layout, as diagnostics naming
/// `info` (the info that uses it). Structs without a Rust twin have none.
///
/// ```
/// use shader_info::{Registry, Rules, rust_twin_problems};
/// let reg = Registry::new();
/// assert!(rust_twin_problems(&reg, "my_info", "NoSuchStruct", Rules::Std140).is_empty());
/// ```
pub fn rust_twin_problems(
    registry: &Registry,
    info: &str,
    struct_name: &str,
    rules: Rules,
) -> Vec<Diagnostic> {
    let (Some(def), Some(meta)) = (
        registry.find_struct(struct_name),
        registry.struct_meta(struct_name),
    ) else {
        return Vec::new();
    };
    if meta.rust_offsets.is_empty() {
        return Vec::new();
    }
    let problem = |member: Option<&str>, message: String, hint: &str| {
        let item = match member {
            Some(m) => format!("shared struct `{struct_name}`, member `{m}`"),
            None => format!("shared struct `{struct_name}`"),
        };
        Diagnostic::error(Code::RustTwin, info, message)
            .item(item)
            .at(struct_name, meta.origin)
            .hint(hint)
    };
    let layout = match def.layout(rules, registry) {
        Ok(l) => l,
        Err(e) => {
            return vec![problem(
                None,
                format!("the {rules} layout of `{struct_name}` cannot be computed: {e}"),
                "fix the struct named above",
            )];
        }
    };
    let mut out = Vec::new();
    if !meta.rules.is_empty() && !meta.rules.contains(&rules) {
        out.push(problem(
            None,
            format!(
                "`{struct_name}` is used in a {rules} block but its Rust twin is proven for {} only",
                meta.rules
                    .iter()
                    .map(|r| r.glsl_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            &format!("add `#[shader({})]` to its derive", rules.glsl_name()),
        ));
    }
    if meta.rust_size != layout.size {
        out.push(problem(
            None,
            format!(
                "the Rust twin of `{struct_name}` is {} bytes but its {rules} size is {}",
                meta.rust_size, layout.size
            ),
            "add or remove `Pad<N>` fields at the end so the sizes agree",
        ));
    }
    if meta.rust_offsets.len() != layout.members.len() {
        out.push(problem(
            None,
            format!(
                "the Rust twin of `{struct_name}` has {} fields but its GLSL struct has {}",
                meta.rust_offsets.len(),
                layout.members.len()
            ),
            "rebuild: the registration and the struct disagree",
        ));
        return out;
    }
    out.extend(
        layout
            .members
            .iter()
            .zip(&meta.rust_offsets)
            .filter(|(m, r)| m.offset != **r)
            .map(|(m, r)| {
                problem(
                    Some(&m.name),
                    format!(
                        "`{}` is at offset {r} in the Rust twin of `{struct_name}` but at {} in {rules}",
                        m.name, m.offset
                    ),
                    "add padding before it (`Pad<N>`) or reorder the fields",
                )
            }),
    );
    out
}

/// [`rust_twin_problems`] for every shared struct a buffer of `info` uses (nested structs included), under the
/// rules of the buffer kind that uses it; each struct and rule set once.
pub(crate) fn rust_twin_problems_of(registry: &Registry, info: &ResolvedInfo) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A set and the registry's map: a long chain of nested structs must stay linear to walk.
    let mut seen: std::collections::HashSet<(String, Rules)> = std::collections::HashSet::new();
    for r in &info.resources {
        let (Some(field), Some(rules)) = (r.value.block_field(registry), r.value.block_rules())
        else {
            continue;
        };
        let FieldType::Struct(type_name) = field.ty else {
            continue;
        };
        let mut stack = vec![type_name];
        while let Some(name) = stack.pop() {
            if !seen.insert((name.clone(), rules)) {
                continue;
            }
            out.extend(rust_twin_problems(registry, &info.name, &name, rules));
            if let Some(def) = registry.find_struct(&name) {
                stack.extend(def.fields.iter().filter_map(|f| match &f.ty {
                    FieldType::Struct(s) => Some(s.clone()),
                    FieldType::Value(_) => None,
                }));
            }
        }
    }
    out
}

/// The differences between `T` — a `#[derive(ShaderStruct)]` struct meant to be uploaded as a push-constant
/// block — and `block` (the block's std430 layout and its size in bytes) of the info `key`: every GLSL member must be
/// there with the same name, type, array size and std430 offset, and `T` must hold the whole block. Used through
/// [`crate::PipelinePlan::push_constant_problems`].
pub(crate) fn push_constant_twin_problems<T: ShaderType>(
    key: &str,
    block: Option<(&BlockLayout, u32)>,
    registry: &Registry,
) -> Vec<Diagnostic> {
    let rust = std::any::type_name::<T>();
    let problem = |message: String| {
        Diagnostic::error(Code::RustTwin, key, message)
            .item(format!("push constants (Rust type `{rust}`)"))
            .hint("make the struct's fields the info's push constants, in order, with the same names and types")
    };
    let Some((block, block_size)) = block else {
        return vec![problem("the info has no push constants".into())];
    };
    let GlslKind::Struct(name) = T::GLSL.kind else {
        return vec![problem(format!(
            "`{rust}` is not a `#[derive(ShaderStruct)]` struct"
        ))];
    };
    let Ok(layout) = T::STD430 else {
        return vec![problem(format!(
            "`{rust}` is not proven for std430: add `#[shader(std430)]`"
        ))];
    };
    let (Some(def), Some(meta)) = (registry.find_struct(name), registry.struct_meta(name)) else {
        return vec![problem(format!(
            "struct `{name}` is not registered: link the crate that declares it"
        ))];
    };
    // Two structs of one GLSL name (`Params` in two modules): the registry keeps the first, which may not be `T`,
    // and comparing the other's members would pass or refuse `T` by registration order. Any other problem of the
    // struct's definition refuses it as well.
    if !registry.type_problems(name).is_empty() {
        let mut out = vec![problem(format!(
            "`{rust}` is the GLSL struct `{name}`, which the registry refuses (below): `{rust}` cannot be checked \
             against the block"
        ))];
        out.extend(registry.type_problems(name).iter().cloned());
        return out;
    }
    let mut out = Vec::new();
    if layout.size < block_size {
        out.push(problem(format!(
            "`{rust}` is {} bytes but the push-constant block is {block_size}",
            layout.size
        )));
    }
    let expected = &block.members;
    if def.fields.len() != expected.len() {
        out.push(problem(format!(
            "`{rust}` has {} GLSL members but the push-constant block has {}: {}",
            def.fields.len(),
            expected.len(),
            expected
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
        return out;
    }
    for ((field, offset), member) in def.fields.iter().zip(&meta.rust_offsets).zip(expected) {
        if field.name != member.name || field.ty != member.ty || field.array != member.array {
            out.push(problem(format!(
                "member `{}` of `{rust}` is `{}` but the block has `{}` there",
                field.name,
                field.glsl_decl(),
                Field {
                    name: member.name.clone(),
                    ty: member.ty.clone(),
                    array: member.array
                }
                .glsl_decl()
            )));
        } else if *offset != member.offset {
            out.push(problem(format!(
                "member `{}` is at offset {offset} in `{rust}` but at {} in the block",
                field.name, member.offset
            )));
        }
    }
    out
}
