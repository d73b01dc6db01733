//! The compile-time layout proof shared by `ShaderStruct` and `ShaderInfo`: a table of field facts, one `const`
//! assertion per field (spanned on the field, so a mismatch is reported there), one for the whole struct, and the
//! `bytemuck` impls the proof makes sound. The checks themselves are `const fn`s in `shader_info::shared`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

/// Tokens that panic with `msg` (an `Option<Message>` expression) during constant evaluation, at `span`.
pub fn const_check(span: proc_macro2::Span, msg: TokenStream) -> TokenStream {
    quote_spanned! {span=>
        const _: () = {
            if let ::core::option::Option::Some(m) = #msg {
                ::core::panic!("{}", m.as_str())
            }
        };
    }
}

/// Field table `__FIELDS`, per-field and whole-struct proofs, and `NoUninit`/`Zeroable`/`AnyBitPattern`.
///
/// Expects `__si` to name `::shader_info::__private` in the surrounding scope.
pub fn prove(
    ident: &Ident,
    glsl_name: &LitStr,
    fields: &[&syn::Field],
    std140: bool,
    std430: bool,
) -> TokenStream {
    let infos = fields.iter().map(|f| {
        let name = f.ident.as_ref().expect("named field");
        let ty = &f.ty;
        let lit = LitStr::new(&crate::attrs::name_of(name), name.span());
        quote_spanned! {ty.span()=>
            __si::FieldInfo::new::<#ty>(#lit, ::core::mem::offset_of!(#ident, #name))
        }
    });
    let field_checks = fields.iter().enumerate().map(|(i, f)| {
        let span = f.ident.as_ref().map_or(f.span(), |i| i.span());
        const_check(span, quote! { __si::check_field(__FIELDS, #i, __PROVEN) })
    });
    let struct_check = if fields.is_empty() {
        quote!()
    } else {
        const_check(
            ident.span(),
            quote! { __si::check_struct(#glsl_name, __FIELDS, ::core::mem::size_of::<#ident>(), __PROVEN) },
        )
    };
    let tys: Vec<_> = fields.iter().map(|f| &f.ty).collect();
    quote! {
        const __FIELDS: &[__si::FieldInfo] = &[#(#infos),*];
        const __PROVEN: __si::RuleSet = __si::RuleSet { std140: #std140, std430: #std430 };
        #(#field_checks)*
        #struct_check
        // SAFETY: `repr(C)`, every field is `ShaderType`, whose contract includes no uninitialised bytes (checked by the field table),, and the checks above
        // prove there are no padding bytes between or after the fields.
        unsafe impl __si::bytemuck::NoUninit for #ident {}
        // SAFETY: as above; zero is valid for the struct when it is for every field (not for enums without a 0).
        unsafe impl __si::bytemuck::Zeroable for #ident where #(for<'__si> #tys: __si::bytemuck::Zeroable),* {}
        // SAFETY: as above; every bit pattern is valid when it is for every field (not for enums). With NoUninit
        // this makes the struct Pod in all but name: `bytes_of`, `cast_slice` and `from_bytes` all work.
        unsafe impl __si::bytemuck::AnyBitPattern for #ident where #(for<'__si> #tys: __si::bytemuck::AnyBitPattern),* {}
    }
}
