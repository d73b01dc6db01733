//! `#[derive(ShaderEnum)]`: a `#[repr(u32)]` enum shared with GLSL as `uint` constants (seed 001's rules: every
//! value explicit, `u` suffix, `uint` underlying type).

use crate::attrs::{self, OptionsFor, TypeOptions};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    attrs::require_no_generics(&input, "ShaderEnum")?;
    let Data::Enum(data) = &input.data else {
        return Err(attrs::err(
            input.ident.span(),
            "#[derive(ShaderEnum)] works on enums only; use #[derive(ShaderStruct)] for structs",
        ));
    };
    attrs::require_repr_u32(&input)?;
    let opts = TypeOptions::from_attrs(&input.attrs, OptionsFor::Enum)?;
    let ident = &input.ident;
    let glsl_name = opts
        .name
        .clone()
        .unwrap_or_else(|| LitStr::new(&attrs::name_of(ident), ident.span()));
    attrs::check_glsl_name(&glsl_name.value(), "enum name", glsl_name.span())?;
    let prefix = opts.prefix.as_ref().map_or_else(
        || format!("{}_", attrs::screaming_snake(&glsl_name.value())),
        |p| p.value(),
    );
    if data.variants.is_empty() {
        return Err(attrs::err(
            ident.span(),
            "a shared enum needs at least one variant",
        ));
    }
    let mut values = Vec::new();
    let mut variants = Vec::new();
    let mut glsl_names: Vec<(String, String)> = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            return Err(attrs::err(
                v.ident.span(),
                format!(
                    "variant `{}` carries data, but GLSL enums are plain `uint` values: remove its fields",
                    v.ident
                ),
            ));
        }
        if v.discriminant.is_none() {
            return Err(attrs::err(
                v.ident.span(),
                format!(
                    "variant `{}` needs an explicit value (`{} = N`): GLSL constants are defined one by one, so every value must be spelled out",
                    v.ident, v.ident
                ),
            ));
        }
        let mut name = format!(
            "{prefix}{}",
            attrs::screaming_snake(&attrs::name_of(&v.ident))
        );
        let mut named: Option<()> = None;
        for a in v.attrs.iter().filter(|a| a.path().is_ident("shader")) {
            a.parse_nested_meta(|m| {
                if m.path.is_ident("name") {
                    attrs::once(&named, &m)?;
                    named = Some(());
                    name = m.value()?.parse::<LitStr>()?.value();
                    Ok(())
                } else {
                    Err(m.error(format!(
                        "unknown option `{}` on a variant: expected `name = \"GLSL_NAME\"`",
                        attrs::path_string(&m.path)
                    )))
                }
            })?;
        }
        attrs::check_glsl_name(&name, "enum value", v.ident.span())?;
        if let Some((first, _)) = glsl_names.iter().find(|(_, n)| *n == name) {
            return Err(attrs::err(
                v.ident.span(),
                format!(
                    "variants `{first}` and `{}` both have the GLSL name `{name}`: a GLSL constant is defined once; give this one another `#[shader(name = \"…\")]`",
                    v.ident
                ),
            ));
        }
        glsl_names.push((attrs::name_of(&v.ident), name.clone()));
        let vid = &v.ident;
        values.push(quote! { (__si::String::from(#name), #ident::#vid as u32) });
        variants.push(vid);
    }
    Ok(quote! {
        const _: () = {
            use ::shader_info::__private as __si;
            // `repr(u32)` is checked above; this guards against a future `repr(u32, C)`-style surprise.
            const _: () = ::core::assert!(::core::mem::size_of::<#ident>() == 4);
            // SAFETY: a fieldless `repr(u32)` enum is four initialised bytes.
            unsafe impl __si::bytemuck::NoUninit for #ident {}
            // SAFETY: only the declared discriminants are accepted.
            unsafe impl __si::bytemuck::CheckedBitPattern for #ident {
                type Bits = u32;
                fn is_valid_bit_pattern(bits: &u32) -> bool {
                    #(*bits == #ident::#variants as u32)||*
                }
            }
            // SAFETY: a `repr(u32)` enum is laid out exactly like GLSL `uint`.
            unsafe impl __si::ShaderType for #ident {
                const GLSL: __si::GlslType = __si::GlslType::enumeration(#glsl_name);
                const STD140: __si::StdLayout =
                    ::core::result::Result::Ok(__si::TypeLayout::of_value(__si::Type::Uint, __si::Rules::Std140));
                const STD430: __si::StdLayout =
                    ::core::result::Result::Ok(__si::TypeLayout::of_value(__si::Type::Uint, __si::Rules::Std430));
            }
            __si::inventory::submit! {
                __si::EnumRegistration {
                    build: || __si::EnumDef {
                        name: __si::String::from(#glsl_name),
                        values: __si::Vec::from([#(#values),*]),
                    },
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
    })
}
