//! Attribute parsing and checks shared by the derives: `#[repr]`, `#[shader(..)]` options, field-type hints.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Type};

/// Options of `#[shader(..)]` on a shared struct or enum (and of `#[shader_struct(..)]`).
#[derive(Default)]
pub struct TypeOptions {
    pub std140: bool,
    pub std430: bool,
    pub auto_pad: bool,
    pub name: Option<LitStr>,
    pub prefix: Option<LitStr>,
}

/// Which options a caller accepts, for the "expected one of" message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OptionsFor {
    Struct,
    AutoPad,
    Enum,
}

impl TypeOptions {
    /// The rule sets to prove: those named, or both.
    pub fn rules(&self) -> (bool, bool) {
        if self.std140 || self.std430 {
            (self.std140, self.std430)
        } else {
            (true, true)
        }
    }

    /// Parses one option into `self`.
    pub fn parse_one(
        &mut self,
        meta: syn::meta::ParseNestedMeta<'_>,
        what: OptionsFor,
    ) -> syn::Result<()> {
        let p = &meta.path;
        let allowed_rules = what != OptionsFor::Enum;
        if allowed_rules && p.is_ident("std140") {
            self.std140 = true;
        } else if allowed_rules && p.is_ident("std430") {
            self.std430 = true;
        } else if what == OptionsFor::AutoPad && p.is_ident("auto_pad") {
            self.auto_pad = true;
        } else if p.is_ident("name") {
            once(&self.name, &meta)?;
            self.name = Some(meta.value()?.parse()?);
        } else if what == OptionsFor::Enum && p.is_ident("prefix") {
            once(&self.prefix, &meta)?;
            self.prefix = Some(meta.value()?.parse()?);
        } else {
            let expected = match what {
                OptionsFor::Struct => "`std140`, `std430` or `name = \"GlslName\"`",
                OptionsFor::AutoPad => "`auto_pad`, `std140`, `std430` or `name = \"GlslName\"`",
                OptionsFor::Enum => "`name = \"GlslName\"` or `prefix = \"PREFIX_\"`",
            };
            return Err(meta.error(format!(
                "unknown option `{}`: expected {expected}",
                path_string(p)
            )));
        }
        Ok(())
    }

    /// Reads every `#[shader(..)]` attribute.
    pub fn from_attrs(attrs: &[Attribute], what: OptionsFor) -> syn::Result<TypeOptions> {
        let mut o = TypeOptions::default();
        for a in attrs.iter().filter(|a| a.path().is_ident("shader")) {
            a.parse_nested_meta(|m| o.parse_one(m, what))?;
        }
        Ok(o)
    }
}

/// Refuses an option given a second time (`name = "A", name = "B"`, or in two attributes): one would silently win.
pub fn once<T>(earlier: &Option<T>, meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    match earlier {
        Some(_) => Err(meta.error(format!(
            "`{}` is given twice: keep one",
            path_string(&meta.path)
        ))),
        None => Ok(()),
    }
}

/// Refuses `#[helper(..)]` where the derive reads none (on a field, or on the type): whatever it says would do
/// nothing, with no sign of it. `instead` says where it belongs.
pub fn refuse_helper(
    attrs: &[Attribute],
    helper: &str,
    derive: &str,
    instead: &str,
) -> syn::Result<()> {
    match attrs.iter().find(|a| a.path().is_ident(helper)) {
        Some(a) => Err(syn::Error::new_spanned(
            a,
            format!("#[derive({derive})] reads no `#[{helper}(..)]` here: {instead}"),
        )),
        None => Ok(()),
    }
}

/// `a::b::c` as text.
pub fn path_string(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The arguments of `#[repr(..)]`, lower-cased identifiers (`C`, `u32`, `packed`, `align`, …).
fn repr_args(attrs: &[Attribute]) -> syn::Result<Vec<String>> {
    let mut out = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        a.parse_nested_meta(|m| {
            out.push(path_string(&m.path));
            // Skip `align(16)` / `packed(2)` arguments (all of them: syn refuses a group left half-read).
            if m.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in m.input);
                content.parse::<proc_macro2::TokenStream>()?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Requires `#[repr(C)]` (and no `packed`/`align`, which would move fields away from the proven offsets).
pub fn require_repr_c(input: &DeriveInput, derive: &str) -> syn::Result<()> {
    let args = repr_args(&input.attrs)?;
    if !args.iter().any(|a| a == "C") {
        return Err(syn::Error::new(
            input.ident.span(),
            format!(
                "#[derive({derive})] needs `#[repr(C)]` on `{}`: without it Rust may reorder fields, so the layout could not be proven",
                input.ident
            ),
        ));
    }
    if let Some(bad) = args.iter().find(|a| *a == "packed" || *a == "align") {
        return Err(syn::Error::new(
            input.ident.span(),
            format!(
                "`#[repr({bad})]` changes field offsets: use plain `#[repr(C)]` and `Pad<N>` fields"
            ),
        ));
    }
    Ok(())
}

/// Requires `#[repr(u32)]`.
pub fn require_repr_u32(input: &DeriveInput) -> syn::Result<()> {
    if !repr_args(&input.attrs)?.iter().any(|a| a == "u32") {
        return Err(syn::Error::new(
            input.ident.span(),
            format!(
                "#[derive(ShaderEnum)] needs `#[repr(u32)]` on `{}`: GLSL enums are `uint` constants",
                input.ident
            ),
        ));
    }
    Ok(())
}

/// No generics: a shared type has one GLSL twin.
pub fn require_no_generics(input: &DeriveInput, derive: &str) -> syn::Result<()> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            format!(
                "#[derive({derive})] does not support generic types: GLSL has no generics, declare a concrete type"
            ),
        ));
    }
    Ok(())
}

/// The named fields of a struct (`None` for a unit struct when `allow_unit`).
pub fn named_fields<'a>(
    input: &'a DeriveInput,
    derive: &str,
    allow_unit: bool,
) -> syn::Result<Vec<&'a syn::Field>> {
    let Data::Struct(s) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            format!("#[derive({derive})] works on structs only"),
        ));
    };
    match &s.fields {
        Fields::Named(f) => Ok(f.named.iter().collect()),
        Fields::Unit if allow_unit => Ok(Vec::new()),
        other => Err(syn::Error::new(
            other.span(),
            format!("#[derive({derive})] needs named fields: GLSL struct members have names"),
        )),
    }
}

/// The name an identifier gives GLSL and the registry: its text without the `r#` of a raw identifier (a field
/// `r#type` is the member `type`).
pub fn name_of(ident: &syn::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// Refuses `name` where GLSL cannot use it (a keyword, a built-in type name, a `gl_` prefix, a `__`), on `span`:
/// otherwise it would pass the derive and fail later inside glslang, far from the declaration.
pub fn check_glsl_name(name: &str, what: &str, span: proc_macro2::Span) -> syn::Result<()> {
    match crate::glsl_names::identifier_problem(name) {
        None => Ok(()),
        Some(problem) => Err(syn::Error::new(
            span,
            format!("{what} `{name}` cannot be a GLSL name: {problem}; rename it"),
        )),
    }
}

/// True for `Pad<N>` fields, which are bytes, not GLSL members.
pub fn is_pad(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Pad"))
}

/// Rejects field types that have a better spelling, before the trait system says something vaguer.
pub fn check_field_type(ty: &Type) -> syn::Result<()> {
    match ty {
        Type::Array(a) => check_field_type(&a.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().map(|s| s.ident.to_string());
            match last.as_deref() {
                Some("bool") if p.path.segments.len() == 1 => Err(syn::Error::new(
                    ty.span(),
                    "`bool` has no fixed size on the GPU: use `shader_info::Bool32`, a 32-bit boolean that is GLSL `bool`",
                )),
                Some("Mat3") => Err(syn::Error::new(
                    ty.span(),
                    "`glam::Mat3` packs its columns 12 bytes apart but GLSL mat3 columns are 16 bytes apart: use `glam::Mat3A`",
                )),
                _ => Ok(()),
            }
        }
        Type::Reference(_) | Type::Ptr(_) => Err(syn::Error::new(
            ty.span(),
            "references and pointers cannot be shared with GLSL: store the value itself",
        )),
        _ => Ok(()),
    }
}

/// `MyEnum` → `MY_ENUM`, `view2D` → `VIEW2_D`.
pub fn screaming_snake(s: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev != '_' && (prev.is_lowercase() || prev.is_ascii_digit() || next_lower) {
                out.push('_');
            }
        }
        out.extend(c.to_uppercase());
    }
    out
}

/// `MyShader` → `my_shader`.
pub fn snake(s: &str) -> String {
    screaming_snake(s).to_lowercase()
}

/// An error at `span`.
pub fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversion() {
        assert_eq!(screaming_snake("BlendMode"), "BLEND_MODE");
        assert_eq!(screaming_snake("HDRColor"), "HDR_COLOR");
        assert_eq!(screaming_snake("color_tex"), "COLOR_TEX");
        assert_eq!(snake("FlatColor"), "flat_color");
    }
}
