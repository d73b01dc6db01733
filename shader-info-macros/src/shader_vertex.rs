//! `#[derive(ShaderVertex)]`: a `#[repr(C)]` vertex struct's fields (name, byte offset, vertex format) for
//! `PipelinePlan::vertex_problems`.

use crate::attrs;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    attrs::require_no_generics(&input, "ShaderVertex")?;
    let fields = attrs::named_fields(&input, "ShaderVertex", false)?;
    attrs::require_repr_c(&input, "ShaderVertex")?;
    attrs::refuse_helper(
        &input.attrs,
        "vertex",
        "ShaderVertex",
        "a format goes on the field it describes, `#[vertex(format = \"Unorm8x4\")]`",
    )?;
    for pad in fields.iter().filter(|f| attrs::is_pad(&f.ty)) {
        attrs::refuse_helper(
            &pad.attrs,
            "vertex",
            "ShaderVertex",
            "padding is not an attribute; a format goes on the field it describes",
        )?;
    }
    let ident = &input.ident;
    let mut entries = Vec::new();
    for f in fields.iter().filter(|f| !attrs::is_pad(&f.ty)) {
        let Some(name) = &f.ident else { continue };
        let ty = &f.ty;
        let packed = packed_format(f)?;
        let explicit = packed.is_some();
        let format = match packed {
            // A named format must take exactly the field's bytes, and read the kind of value it holds (checked
            // when the crate compiles).
            Some(format) => {
                let Ok(variant) = syn::parse_str::<syn::Ident>(&format.value()) else {
                    return Err(syn::Error::new(
                        format.span(),
                        format!(
                            "field `{name}`: `{}` is no VertexFormat; write a variant name such as \"Unorm8x4\"",
                            format.value()
                        ),
                    ));
                };
                let variant = syn::Ident::new(&attrs::name_of(&variant), format.span());
                quote_spanned! {format.span()=> {
                    const F: ::shader_info::VertexFormat = ::shader_info::VertexFormat::#variant;
                    const _: () = assert!(
                        F.size() as usize == ::core::mem::size_of::<#ty>(),
                        "the vertex format takes another number of bytes than the field"
                    );
                    const _: () = assert!(
                        F.reads_from(<#ty as ::shader_info::VertexStorage>::SCALAR),
                        "the vertex format reads another kind of value than the field holds (Unorm16 and Uint16 \
                         read u16s, Snorm16 and Sint16 i16s, Float32 f32s, …)"
                    );
                    F
                }}
            }
            // The type's own format and columns must make a value that fits in its bytes (`attribute_problem`).
            None => quote_spanned! {ty.span()=> {
                const _: () = if let ::core::option::Option::Some(problem) = ::shader_info::__private::attribute_problem(
                    <#ty as ::shader_info::VertexAttribute>::FORMAT,
                    <#ty as ::shader_info::VertexAttribute>::COLUMNS,
                    ::core::mem::size_of::<#ty>(),
                ) {
                    ::core::panic!("{}", problem)
                };
                <#ty as ::shader_info::VertexAttribute>::FORMAT
            }},
        };
        let columns = if explicit {
            quote!(1)
        } else {
            quote_spanned! {ty.span()=> <#ty as ::shader_info::VertexAttribute>::COLUMNS }
        };
        let text = attrs::name_of(name);
        attrs::check_glsl_name(&text, "vertex field", name.span())?;
        entries.push(quote! {
            ::shader_info::VertexField {
                name: #text,
                offset: ::shader_info::__private::byte_count(::core::mem::offset_of!(#ident, #name)),
                format: #format,
                columns: #columns,
            }
        });
    }
    // Said beside the impl, which the struct's other uses then find: the one error, not a cascade of them.
    let empty = entries.is_empty().then(|| {
        syn::Error::new(
            ident.span(),
            format!(
                "ShaderVertex: `{ident}` has no field a shader reads (padding is not read), so a buffer of it gives \
                 the pipeline nothing; add its attributes, or use shader_info::NoVertices for a pipeline without \
                 this buffer"
            ),
        )
        .to_compile_error()
    });
    Ok(quote! {
        #empty
        impl ::shader_info::ShaderVertex for #ident {
            const FIELDS: &'static [::shader_info::VertexField] = &[#(#entries),*];
            const STRIDE: u32 = ::shader_info::__private::byte_count(::core::mem::size_of::<#ident>());
        }
    })
}

/// The format named by `#[vertex(format = "Unorm8x4")]`, if any.
fn packed_format(f: &syn::Field) -> syn::Result<Option<LitStr>> {
    let mut found = None;
    for a in f.attrs.iter().filter(|a| a.path().is_ident("vertex")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("format") {
                attrs::once(&found, &m)?;
                found = Some(m.value()?.parse::<LitStr>()?);
                Ok(())
            } else {
                Err(m.error(
                    "expected `format = \"…\"` (a shader_info::VertexFormat, e.g. \"Unorm8x4\")",
                ))
            }
        })?;
    }
    Ok(found)
}
