//! `#[derive(ShaderStruct)]` and the `#[shader_struct(auto_pad)]` attribute.

use crate::attrs::{self, OptionsFor, TypeOptions};
use crate::layout_proof;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    attrs::require_no_generics(&input, "ShaderStruct")?;
    let fields = attrs::named_fields(&input, "ShaderStruct", false)?;
    attrs::require_repr_c(&input, "ShaderStruct")?;
    let opts = TypeOptions::from_attrs(&input.attrs, OptionsFor::Struct)?;
    let mut errors: Option<syn::Error> = None;
    for f in &fields {
        attrs::refuse_helper(
            &f.attrs,
            "shader",
            "ShaderStruct",
            "a member's GLSL name is its field's name (without `r#`), and the options (`std140`, `std430`, `name`) go on the struct",
        )?;
        let named = f.ident.as_ref().filter(|_| !attrs::is_pad(&f.ty));
        if let Some(Err(e)) =
            named.map(|i| attrs::check_glsl_name(&attrs::name_of(i), "field", i.span()))
        {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
        if let Err(e) = attrs::check_field_type(&f.ty) {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    if fields.is_empty() {
        return Err(attrs::err(
            input.ident.span(),
            "a shared struct needs at least one field: GLSL has no empty structs",
        ));
    }
    let ident = &input.ident;
    let glsl_name = opts
        .name
        .clone()
        .unwrap_or_else(|| LitStr::new(&attrs::name_of(ident), ident.span()));
    attrs::check_glsl_name(&glsl_name.value(), "struct name", glsl_name.span())?;
    let (std140, std430) = opts.rules();
    let proof = layout_proof::prove(ident, &glsl_name, &fields, std140, std430);
    let n = fields.len();
    let rules = [
        (std140, quote!(__si::Rules::Std140)),
        (std430, quote!(__si::Rules::Std430)),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, r)| r);
    Ok(quote! {
        const _: () = {
            use ::shader_info::__private as __si;
            #proof
            // SAFETY: the layouts come from the proven field table.
            unsafe impl __si::ShaderType for #ident {
                const GLSL: __si::GlslType = __si::GlslType::structure(#glsl_name);
                const STD140: __si::StdLayout =
                    __si::struct_layout(#glsl_name, __FIELDS, __si::Rules::Std140, __PROVEN);
                const STD430: __si::StdLayout =
                    __si::struct_layout(#glsl_name, __FIELDS, __si::Rules::Std430, __PROVEN);
            }
            const __ENUMS_ALL: ([&str; #n], usize) = __si::enum_names::<#n>(__FIELDS);
            const __ENUMS_ARR: [&str; #n] = __ENUMS_ALL.0;
            const __ENUMS: &[&str] = __ENUMS_ARR.split_at(__ENUMS_ALL.1).0;
            __si::inventory::submit! {
                __si::StructRegistration {
                    build: || __si::struct_def(#glsl_name, __FIELDS),
                    rust_offsets: || __si::member_offsets(__FIELDS),
                    rust_size: ::shader_info::__private::byte_count(::core::mem::size_of::<#ident>()),
                    enums: __ENUMS,
                    rules: &[#(#rules),*],
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
    })
}

/// `#[shader_struct(auto_pad, ..)]`: inserts a `Pad<N>` before every field and at the end, with `N` computed by
/// `shader_info::auto_pad` in constant evaluation, then derives `ShaderStruct` with the same options.
pub fn attribute(args: TokenStream, mut item: syn::ItemStruct) -> syn::Result<TokenStream> {
    let mut opts = TypeOptions::default();
    let parser = syn::meta::parser(|m| opts.parse_one(m, OptionsFor::AutoPad));
    syn::parse::Parser::parse2(parser, args)?;
    if !opts.auto_pad {
        return Err(attrs::err(
            item.ident.span(),
            "#[shader_struct(..)] only adds padding: write #[shader_struct(auto_pad)], or use #[derive(ShaderStruct)]",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(attrs::err(
            item.generics.span(),
            "#[shader_struct] does not support generic types: GLSL has no generics",
        ));
    }
    let syn::Fields::Named(named) = &mut item.fields else {
        return Err(attrs::err(
            item.ident.span(),
            "#[shader_struct(auto_pad)] needs named fields",
        ));
    };
    for f in &named.named {
        attrs::check_field_type(&f.ty)?;
    }
    // The rule sets may be named on the item (`#[shader(std430)]`) instead of in the attribute: the derive proves
    // those, so the padding must be theirs.
    let own = TypeOptions::from_attrs(&item.attrs, OptionsFor::Struct)?;
    opts.std140 |= own.std140;
    opts.std430 |= own.std430;
    let (std140, _) = opts.rules();
    // With both rule sets the proof insists they agree, so either gives the same padding.
    let rules = if std140 {
        quote!(::shader_info::__private::Rules::Std140)
    } else {
        quote!(::shader_info::__private::Rules::Std430)
    };
    let ident = &item.ident;
    // The type's own spelling: two types whose names differ only in case (`HDRColor`, `HdrColor`) have one
    // screaming-snake name, and their tables would collide.
    let table = format_ident!("__SHADER_AUTO_PAD_{}", attrs::name_of(ident));
    // An attribute runs before `#[cfg]`s are applied: a field under a `cfg` carries it into the table and onto its
    // padding, and the padding looks its field up by name, so the struct the compiler keeps is padded as it is.
    let cfgs = |f: &syn::Field| -> Vec<syn::Attribute> {
        f.attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg"))
            .cloned()
            .collect()
    };
    let infos = named.named.iter().map(|f| {
        let ty = &f.ty;
        let lit = LitStr::new(&attrs::name_of(f.ident.as_ref().expect("named")), ty.span());
        let cfg = cfgs(f);
        quote_spanned!(ty.span()=> #(#cfg)* ::shader_info::__private::FieldInfo::new::<#ty>(#lit, 0))
    });
    let table_item = quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        const #table: &[::shader_info::__private::FieldInfo] = &[#(#infos),*];
    };
    let vis = item.vis.clone();
    // The padding fields are named after the others: a field of such a name would be declared twice (rustc's
    // E0124 at the derive line, naming neither field).
    let names: Vec<String> = named
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
        .collect();
    for f in &named.named {
        let Some(id) = &f.ident else { continue };
        let own = id.to_string();
        let clash = own == "_pad_end"
            || own
                .strip_prefix("_pad_before_")
                .is_some_and(|rest| names.iter().any(|n| n == rest));
        if clash {
            return Err(crate::attrs::err(
                id.span(),
                format!(
                    "field `{own}` has the name `auto_pad` gives a padding field; rename it (names starting with `_pad_before_` and `_pad_end` are taken)"
                ),
            ));
        }
    }
    let old: Vec<syn::Field> = named.named.iter().cloned().collect();
    let mut new = syn::punctuated::Punctuated::<syn::Field, syn::Token![,]>::new();
    for f in old {
        // `unraw`: a raw field name (`r#type`) would make `_pad_before_r#type`, no identifier.
        let name = attrs::name_of(f.ident.as_ref().expect("named"));
        let pad_name = format_ident!("_pad_before_{}", name);
        let cfg = cfgs(&f);
        new.push(syn::parse_quote! {
            #(#cfg)*
            #[doc(hidden)]
            #vis #pad_name: ::shader_info::Pad<{ ::shader_info::__private::auto_pad_before(#table, #name, #rules) }>
        });
        new.push(f);
    }
    new.push(syn::parse_quote! {
        #[doc(hidden)]
        #vis _pad_end: ::shader_info::Pad<{ ::shader_info::__private::auto_pad(#table, #table.len(), #rules) }>
    });
    named.named = new;
    let mut shader_args = Vec::new();
    if opts.std140 {
        shader_args.push(quote!(std140));
    }
    if opts.std430 {
        shader_args.push(quote!(std430));
    }
    if let Some(name) = &opts.name {
        shader_args.push(quote!(name = #name));
    }
    let shader_attr = if shader_args.is_empty() {
        quote!()
    } else {
        quote!(#[shader(#(#shader_args),*)])
    };
    Ok(quote! {
        #table_item
        #[derive(::shader_info::ShaderStruct)]
        #shader_attr
        #item
    })
}
