//! `#[derive(ShaderInfo)]` (a whole create info in attributes, the struct's fields as push constants) and the
//! `#[shader_info]` attribute on builder functions.
//!
//! Every `#[shader(..)]` entry is a `ShaderCreateInfo` builder call with the same name and arguments in the same
//! order; enum arguments may be written as bare variant names (`Float2D`, `Pass`). The table below is the one
//! place that knows the builder's signatures; it only spells paths, the builder does the work.

use crate::attrs;
use crate::layout_proof;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{DeriveInput, Expr, Ident, LitStr, Token};

#[derive(Clone, Copy)]
enum Arg {
    /// Any expression (numbers, strings, booleans, constant values).
    Expr(&'static str),
    /// A resource name: a string literal, so the macro can name the binding constant after it.
    Name,
    /// A `shader_info` enum (or constant holder); a bare identifier becomes `Enum::Ident`.
    Enum(&'static str, &'static str),
    /// A `StageInterfaceInfo`: a path to a `fn() -> StageInterfaceInfo`, or an expression of that type.
    Interface,
    /// A type (a `#[derive(ShaderVertex)]` struct's path): the call's type argument, `method::<T>(..)`.
    HostType(&'static str),
}

use Arg::*;

const SLOT: Arg = Expr("slot");
const FREQ: Arg = Enum("Frequency", "frequency");
const TYPE: Arg = Enum("Type", "type");

/// Builder methods accepted as entries, with their arguments.
const METHODS: &[(&str, &[Arg])] = &[
    ("vertex_in", &[Expr("location"), TYPE, Expr("name")]),
    (
        "vertex_in_packed",
        &[
            Expr("location"),
            TYPE,
            Enum("VertexFormat", "vertex format"),
            Expr("name"),
        ],
    ),
    ("instance_in", &[Expr("location"), TYPE, Expr("name")]),
    (
        "instance_in_packed",
        &[
            Expr("location"),
            TYPE,
            Enum("VertexFormat", "vertex format"),
            Expr("name"),
        ],
    ),
    (
        "vertex_struct",
        &[HostType("vertex struct"), Expr("first location")],
    ),
    (
        "instance_struct",
        &[HostType("instance struct"), Expr("first location")],
    ),
    ("vertex_out", &[Interface]),
    ("geometry_out", &[Interface]),
    ("tess_control_out", &[Interface]),
    ("tess_patch_out", &[Interface]),
    ("tess_evaluation_out", &[Interface]),
    (
        "tessellation_layout",
        &[
            Expr("control points"),
            Enum("TessDomain", "domain"),
            Enum("TessSpacing", "spacing"),
            Enum("FrontFace", "winding"),
        ],
    ),
    (
        "geometry_layout",
        &[
            Enum("PrimitiveIn", "primitive in"),
            Enum("PrimitiveOut", "primitive out"),
            Expr("max vertices"),
        ],
    ),
    (
        "geometry_layout_instanced",
        &[
            Enum("PrimitiveIn", "primitive in"),
            Enum("PrimitiveOut", "primitive out"),
            Expr("max vertices"),
            Expr("invocations"),
        ],
    ),
    ("fragment_out", &[Expr("location"), TYPE, Expr("name")]),
    (
        "fragment_out_blend",
        &[
            Expr("location"),
            TYPE,
            Expr("name"),
            Enum("DualBlend", "blend"),
        ],
    ),
    (
        "sampler",
        &[SLOT, Enum("ImageType", "image type"), Name, FREQ],
    ),
    (
        "sampler_with_state",
        &[
            SLOT,
            Enum("ImageType", "image type"),
            Name,
            FREQ,
            Expr("sampler state"),
        ],
    ),
    (
        "image",
        &[
            SLOT,
            Enum("TextureFormat", "format"),
            Enum("Qualifier", "qualifier"),
            Enum("ImageType", "image type"),
            Name,
            FREQ,
        ],
    ),
    ("uniform_buf", &[SLOT, Expr("type name"), Name, FREQ]),
    ("acceleration_structure", &[SLOT, Name, FREQ]),
    (
        "storage_buf",
        &[
            SLOT,
            Enum("Qualifier", "qualifier"),
            Expr("type name"),
            Name,
            FREQ,
        ],
    ),
    (
        "specialization_constant",
        &[TYPE, Expr("name"), Expr("default")],
    ),
    ("define", &[Expr("name")]),
    ("constant", &[Expr("shared constant")]),
    ("shared_variable", &[TYPE, Expr("name")]),
    ("define_value", &[Expr("name"), Expr("value")]),
    ("typedef_source", &[Expr("file")]),
    ("additional_info", &[Expr("info name")]),
    ("local_group_size", &[Expr("x")]),
    ("local_group_size_2d", &[Expr("x"), Expr("y")]),
    ("local_group_size_3d", &[Expr("x"), Expr("y"), Expr("z")]),
    ("builtins", &[Enum("BuiltinBits", "builtin bits")]),
    ("depth_write", &[Enum("DepthWrite", "depth write")]),
    ("early_fragment_test", &[Expr("enable")]),
    ("do_static_compilation", &[Expr("enable")]),
    ("branch", &[Expr("name")]),
    ("skip_target", &[Enum("Target", "target"), Expr("reason")]),
    ("twin", &[Expr("name")]),
    ("blender_compat", &[]),
    ("topology", &[Enum("Topology", "topology")]),
    ("primitive_restart", &[Expr("enable")]),
    ("polygon_mode", &[Enum("PolygonMode", "polygon mode")]),
    ("cull", &[Enum("CullMode", "cull mode")]),
    ("front_face", &[Enum("FrontFace", "front face")]),
    ("line_width", &[Expr("width")]),
    ("blend", &[Enum("Blend", "blend")]),
    ("blend_at", &[Expr("location"), Enum("Blend", "blend")]),
    (
        "color_writes",
        &[Expr("location"), Enum("ColorWrites", "color write mask")],
    ),
    ("depth", &[Expr("depth state")]),
    ("stencil", &[Expr("stencil state")]),
    ("depth_bias", &[Expr("depth bias")]),
    ("alpha_to_coverage", &[Expr("enable")]),
    ("dynamic", &[Enum("DynamicStates", "dynamic states")]),
    ("stage_source", &[Enum("Stage", "stage"), Expr("file")]),
    ("entry_point", &[Enum("Stage", "stage"), Expr("name")]),
    ("compilation_constant", &[Expr("name"), Expr("value")]),
    (
        "subpass_in",
        &[Expr("attachment index"), TYPE, Expr("name")],
    ),
    ("vertex_source", &[Expr("file")]),
    ("fragment_source", &[Expr("file")]),
    ("geometry_source", &[Expr("file")]),
    ("tess_control_source", &[Expr("file")]),
    ("tess_evaluation_source", &[Expr("file")]),
    ("compute_source", &[Expr("file")]),
    ("raygen_source", &[Expr("file")]),
    ("miss_source", &[Expr("file")]),
    ("closest_hit_source", &[Expr("file")]),
    ("any_hit_source", &[Expr("file")]),
    ("intersection_source", &[Expr("file")]),
    ("callable_source", &[Expr("file")]),
];

/// One entry of `#[shader(..)]`: `flag`, `key = value` or `method(args)`.
struct Entry {
    key: Ident,
    value: Option<Expr>,
    args: Option<Punctuated<Expr, Token![,]>>,
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            return Ok(Entry {
                key,
                value: Some(input.parse()?),
                args: None,
            });
        }
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            return Ok(Entry {
                key,
                value: None,
                args: Some(content.parse_terminated(Expr::parse, Token![,])?),
            });
        }
        Ok(Entry {
            key,
            value: None,
            args: None,
        })
    }
}

fn arg_tokens(arg: Arg, e: &Expr) -> TokenStream {
    match arg {
        Enum(ty, _) => match e {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ty = Ident::new(ty, Span::call_site());
                let v = p.path.get_ident().expect("ident");
                quote_spanned!(v.span()=> ::shader_info::#ty::#v)
            }
            _ => quote!(#e),
        },
        Interface => match e {
            Expr::Path(_) => quote_spanned!(e.span()=> &#e()),
            _ => quote_spanned!(e.span()=> &(#e)),
        },
        Expr(_) | Name | HostType(_) => quote!(#e),
    }
}

struct Resource {
    name: LitStr,
    slot: TokenStream,
    frequency: TokenStream,
    /// The frequency as written (`Batch`, `Frequency::Batch`), to name the set's struct.
    frequency_expr: Expr,
    /// What the host hands over for it, as the type of its field in the set's struct.
    host: HostKind,
    span: Span,
    /// Declared under `resources_if`: present only in some variants, so it may share a slot with a resource of
    /// other variants (validation checks each variant).
    conditional: bool,
}

/// What a resource's field holds in the generated set struct.
#[derive(Clone, Copy, PartialEq)]
enum HostKind {
    Buffer,
    /// A texel buffer: the buffer and the format of its texels.
    TexelBuffer,
    Texture,
    Sampled,
    AccelerationStructure,
    /// The image type is an expression the macro cannot read (a constant): a `Bound`, checked at the call.
    Any,
}

/// The host kind of resource `method(args)`: buffers, texel buffers (an image type `*Buffer`), textures with or
/// without their sampler, acceleration structures.
fn host_kind(method: &str, spec: &[Arg], args: &[Expr]) -> HostKind {
    let image_type = spec
        .iter()
        .zip(args)
        .find(|(a, _)| matches!(a, Enum("ImageType", _)))
        .map(|(_, e)| match e {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        });
    let texel_buffer = |t: &Option<String>| t.as_deref().is_some_and(|t| t.ends_with("Buffer"));
    match (method, image_type) {
        ("uniform_buf" | "storage_buf", _) => HostKind::Buffer,
        ("acceleration_structure", _) => HostKind::AccelerationStructure,
        (_, Some(None)) => HostKind::Any,
        (_, Some(t)) if texel_buffer(&t) => HostKind::TexelBuffer,
        ("sampler", _) => HostKind::Sampled,
        _ => HostKind::Texture,
    }
}

/// The builder call of one entry `key(args)`, and the resource it declares, if any.
fn builder_call(
    key: &Ident,
    args: Vec<Expr>,
    conditional: bool,
) -> syn::Result<(TokenStream, Option<Resource>)> {
    let name = key.to_string();
    let mut method = name.clone();
    // `local_group_size(x, y[, z])`, like the seed's 1-3 parameter form.
    if name == "local_group_size" && (args.len() == 2 || args.len() == 3) {
        method = format!("local_group_size_{}d", args.len());
    }
    let Some((_, spec)) = METHODS.iter().find(|(m, _)| *m == method) else {
        let known: Vec<&str> = METHODS.iter().map(|(m, _)| *m).collect();
        return Err(attrs::err(
            key.span(),
            format!(
                "unknown #[shader] entry `{name}`: expected `name = \"..\"`, `resources_if(condition, resource calls..)` or a ShaderCreateInfo builder call: {}",
                known.join(", ")
            ),
        ));
    };
    if args.len() != spec.len() {
        let names: Vec<&str> = spec
            .iter()
            .map(|a| match a {
                Expr(n) | Enum(_, n) | HostType(n) => n,
                Name => "name",
                Interface => "interface",
            })
            .collect();
        return Err(attrs::err(
            key.span(),
            format!(
                "`{name}` takes {} argument{} ({}), found {}",
                spec.len(),
                if spec.len() == 1 { "" } else { "s" },
                names.join(", "),
                args.len()
            ),
        ));
    }
    let mut toks = Vec::new();
    let mut types = Vec::new();
    let mut res_name = None;
    for (arg, e) in spec.iter().zip(&args) {
        if let HostType(what) = arg {
            match e {
                Expr::Path(p) if p.qself.is_none() => types.push(p.path.to_token_stream()),
                _ => {
                    return Err(attrs::err(
                        e.span(),
                        format!("write the {what} as a path to its #[derive(ShaderVertex)] type"),
                    ));
                }
            }
            continue;
        }
        if let Name = arg {
            match e {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => res_name = Some(s.clone()),
                _ => {
                    return Err(attrs::err(
                        e.span(),
                        "write the resource name as a string literal: it names the binding constant",
                    ));
                }
            }
        }
        toks.push(arg_tokens(*arg, e));
    }
    // The frequency is its own argument (`sampler_with_state` takes the sampler state after it).
    let freq_at = spec
        .iter()
        .position(|a| matches!(a, Enum("Frequency", _)))
        .unwrap_or(spec.len() - 1);
    let resource = res_name.map(|n| Resource {
        name: n,
        slot: toks[0].clone(),
        frequency: toks[freq_at].clone(),
        frequency_expr: args[freq_at].clone(),
        host: host_kind(&method, spec, &args),
        span: key.span(),
        conditional,
    });
    let m = Ident::new(&method, key.span());
    let turbofish = (!types.is_empty()).then(|| quote!(::<#(#types),*>));
    Ok((quote!(.#m #turbofish (#(#toks),*)), resource))
}

/// `resources_if(condition, resource(..), ..)`: the resource calls declared under the condition. The condition
/// is a `Condition` expression; `branch("X")` alone is short for `Condition::branch("X")`.
fn resources_if(
    key: &Ident,
    args: &[Expr],
    resources: &mut Vec<Resource>,
) -> syn::Result<TokenStream> {
    let Some((condition, declared)) = args.split_first().filter(|(_, rest)| !rest.is_empty())
    else {
        return Err(attrs::err(
            key.span(),
            "write `resources_if(condition, resource calls..)`, e.g. `resources_if(branch(\"SKINNING\"), storage_buf(2, Read, \"mat4\", \"bones[]\", Batch))`",
        ));
    };
    let condition = match condition {
        Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("branch")) => {
            let args = &c.args;
            quote_spanned!(c.span()=> ::shader_info::Condition::branch(#args))
        }
        e => quote!(#e),
    };
    let mut calls = Vec::new();
    for d in declared {
        let call = match d {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    let m = p.path.get_ident().expect("ident");
                    Some((m.clone(), c.args.iter().cloned().collect::<Vec<_>>()))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((method, args)) = call.filter(|(m, _)| {
            METHODS
                .iter()
                .any(|(n, spec)| m == n && spec.iter().any(|a| matches!(a, Name)))
        }) else {
            return Err(attrs::err(
                d.span(),
                "only resources may be conditional: write a resource call (`sampler(..)`, `sampler_with_state(..)`, `image(..)`, `uniform_buf(..)`, `storage_buf(..)`, `acceleration_structure(..)`)",
            ));
        };
        let (call, resource) = builder_call(&method, args, true)?;
        resources.extend(resource);
        calls.push(call);
    }
    Ok(quote_spanned!(key.span()=> .resources_if(#condition, |__i| __i #(#calls)*)))
}

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    attrs::require_no_generics(&input, "ShaderInfo")?;
    let fields = attrs::named_fields(&input, "ShaderInfo", true)?;
    if !fields.is_empty() {
        attrs::require_repr_c(&input, "ShaderInfo")?;
    }
    for f in &fields {
        attrs::refuse_helper(
            &f.attrs,
            "shader",
            "ShaderInfo",
            "a field is a push constant named as the field (without `r#`); the info's entries go on the struct",
        )?;
        attrs::check_field_type(&f.ty)?;
        if let Some(i) = &f.ident
            && !attrs::is_pad(&f.ty)
        {
            attrs::check_glsl_name(&attrs::name_of(i), "push constant", i.span())?;
        }
    }
    let ident = &input.ident;
    let mut name: Option<LitStr> = None;
    let mut calls = Vec::new();
    let mut resources = Vec::new();
    let mut branches: Vec<LitStr> = Vec::new();
    // A branch named by a constant cannot become a field; then no branch struct is generated.
    let mut branches_readable = true;
    // Resources the macro cannot see (an `additional_info`'s, subpass inputs): the set structs take them by name.
    let mut unseen_resources = false;
    let mut inherits = false;
    for a in input.attrs.iter().filter(|a| a.path().is_ident("shader")) {
        let entries = a.parse_args_with(Punctuated::<Entry, Token![,]>::parse_terminated)?;
        for entry in entries {
            let key = entry.key.to_string();
            if key == "name" {
                let Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                })) = entry.value
                else {
                    return Err(attrs::err(
                        entry.key.span(),
                        "write the info's name as `name = \"my_shader\"`",
                    ));
                };
                if name.is_some() {
                    return Err(attrs::err(
                        entry.key.span(),
                        "`name` is given twice: an info has one name; keep one",
                    ));
                }
                name = Some(s);
                continue;
            }
            if key == "push_constant" || key == "push_constant_array" {
                return Err(attrs::err(
                    entry.key.span(),
                    format!(
                        "`{key}` is declared by the struct's fields: add a field `name: Type` (or `name: [Type; N]`) instead"
                    ),
                ));
            }
            if let Some(v) = &entry.value {
                return Err(attrs::err(
                    v.span(),
                    format!(
                        "write `{key}(..)`, not `{key} = ..`: every entry but `name` is a builder call"
                    ),
                ));
            }
            if key == "slots_per_kind" {
                return Err(attrs::err(
                    entry.key.span(),
                    "`slots_per_kind` is not available here: #[derive(ShaderInfo)] names each resource's Vulkan binding in a constant, so its slots are bindings. Declare Blender-style per-kind slots with the builder (`ShaderCreateInfo::slots_per_kind`)",
                ));
            }
            let args: Vec<Expr> = match entry.args {
                Some(a) => a.into_iter().collect(),
                // Bare flags: `do_static_compilation`, `early_fragment_test`.
                None if key == "do_static_compilation" || key == "early_fragment_test" => {
                    vec![syn::parse_quote!(true)]
                }
                None => Vec::new(),
            };
            if key == "resources_if" {
                calls.push(resources_if(&entry.key, &args, &mut resources)?);
                continue;
            }
            match (key.as_str(), args.first()) {
                (
                    "branch",
                    Some(Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(b),
                        ..
                    })),
                ) => branches.push(b.clone()),
                ("branch", _) => branches_readable = false,
                ("additional_info", _) => {
                    unseen_resources = true;
                    inherits = true;
                }
                ("subpass_in", _) => unseen_resources = true,
                _ => {}
            }
            let (call, resource) = builder_call(&entry.key, args, false)?;
            resources.extend(resource);
            calls.push(call);
        }
    }
    let name =
        name.unwrap_or_else(|| LitStr::new(&attrs::snake(&attrs::name_of(ident)), ident.span()));

    let rust_name = LitStr::new(&attrs::name_of(ident), ident.span());
    let proof = layout_proof::prove(ident, &rust_name, &fields, false, true);
    let push_checks = fields.iter().enumerate().map(|(i, f)| {
        let span = f.ident.as_ref().map_or(f.span(), |i| i.span());
        layout_proof::const_check(span, quote!(__si::check_push_constant_field(&__FIELDS[#i])))
    });
    let size_check = layout_proof::const_check(
        ident.span(),
        quote!(__si::check_push_constants(#name, ::core::mem::size_of::<#ident>())),
    );

    let mut binding_consts = Vec::new();
    let mut binding_rows = Vec::new();
    let mut binding_checks = Vec::new();
    // Each resource becomes an associated constant named after it: a name that is no identifier, or two names
    // that make one constant, would otherwise surface as a proc-macro panic or rustc's E0592 at the derive line.
    let mut constant_of: Vec<(String, String)> = Vec::new();
    for r in &resources {
        let full = r.name.value();
        let base = full.split('[').next().unwrap_or_default();
        attrs::check_glsl_name(base, "resource", r.name.span())?;
        let cname_text = attrs::screaming_snake(base);
        let Ok(cname) = syn::parse_str::<Ident>(&cname_text) else {
            return Err(attrs::err(
                r.name.span(),
                format!(
                    "resource `{base}` makes the binding constant `{cname_text}`, which is no Rust identifier; rename the resource"
                ),
            ));
        };
        let cname = Ident::new(&cname.to_string(), r.name.span());
        // The derive's own constant: a second `NAME` was rustc's E0592 at the derive line.
        if cname_text == "NAME" {
            return Err(attrs::err(
                r.name.span(),
                format!(
                    "resource `{base}` makes the binding constant `NAME`, which holds the info's name; rename the resource"
                ),
            ));
        }
        if let Some((first, _)) = constant_of.iter().find(|(_, c)| *c == cname_text) {
            return Err(attrs::err(
                r.name.span(),
                format!(
                    "resources `{first}` and `{base}` both make the binding constant `{cname_text}`; rename one of them"
                ),
            ));
        }
        constant_of.push((base.to_string(), cname_text));
        let (slot, freq) = (&r.slot, &r.frequency);
        let doc = format!("Set and binding of `{base}`.");
        binding_consts.push(quote! {
            #[doc = #doc]
            pub const #cname: ::shader_info::Binding = ::shader_info::Binding::new(#freq, #slot);
        });
        // Resources present in every variant must not share a binding; conditional ones are checked per variant
        // by validation, which names the variant.
        if !r.conditional {
            let i = binding_rows.len();
            binding_rows.push(quote!((::shader_info::Binding::new(#freq, #slot), #base)));
            binding_checks.push(layout_proof::const_check(
                r.span,
                quote!(__si::check_binding(__BINDINGS, #i)),
            ));
        }
    }
    // The binding constants hold only while the slots are the bindings: say so, so that an inherited per-kind
    // numbering is a conflict at resolution rather than constants that name other resources' bindings.
    let slots = if resources.is_empty() {
        TokenStream::new()
    } else {
        quote!(.slots_per_set())
    };
    let sets = set_structs(&input, &name, &resources, unseen_resources)?;
    let branch_struct = if branches_readable {
        branch_struct(&input, &name, &branches, inherits)?
    } else {
        TokenStream::new()
    };
    let name_doc = "The info's name in the registry.".to_string();
    let fn_doc = format!(
        "The `{}` create info declared by `#[derive(ShaderInfo)]`.",
        name.value()
    );
    Ok(quote! {
        const _: () = {
            use ::shader_info::__private as __si;
            #proof
            #(#push_checks)*
            #size_check
            const __BINDINGS: &[(__si::Binding, &str)] = &[#(#binding_rows),*];
            #(#binding_checks)*
            impl #ident {
                #[doc = #name_doc]
                pub const NAME: &'static str = #name;
                #(#binding_consts)*
                #[doc = #fn_doc]
                #[track_caller]
                pub fn create_info() -> ::shader_info::ShaderCreateInfo {
                    let info = ::shader_info::ShaderCreateInfo::new(#name) #(#calls)* #slots;
                    __si::add_push_constants(info, __FIELDS)
                }
            }
            // The struct is its info's push-constant block (its layout proven above): typed pushes take it.
            impl ::shader_info::PushBlock for #ident {
                fn push_problems(
                    plan: &::shader_info::PipelinePlan,
                    registry: &::shader_info::Registry,
                ) -> ::std::vec::Vec<::shader_info::Diagnostic> {
                    ::shader_info::derived_push_problems(
                        plan,
                        registry,
                        #name,
                        #rust_name,
                        __FIELDS,
                        ::core::mem::size_of::<#ident>(),
                    )
                }
            }
            __si::inventory::submit! {
                __si::InfoRegistration {
                    build: || #ident::create_info(),
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
        #sets
        #branch_struct
    })
}

/// The frequency a resource names, when written as `Batch` or `Frequency::Batch` (not as a computed value).
fn frequency_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .filter(|f| ["Pass", "Batch", "Geometry"].contains(&f.as_str())),
        _ => None,
    }
}

/// A Rust field name for declared name `base`: snake case, raw when it is a Rust keyword.
fn field_ident(base: &str, span: Span) -> syn::Result<Ident> {
    let text = attrs::snake(base);
    if syn::parse_str::<Ident>(&text).is_ok() {
        return Ok(Ident::new(&text, span));
    }
    // A keyword becomes a raw identifier; anything else that is no identifier (`2D_SHADOWS`, `FOG-ON`) cannot be
    // one. `self`, `super`, `crate` and `_` cannot be raw identifiers either.
    let shaped = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !shaped || ["self", "super", "crate", "_"].contains(&text.as_str()) {
        return Err(attrs::err(
            span,
            format!("`{base}` makes the field name `{text}`, which Rust cannot use; rename it"),
        ));
    }
    Ok(Ident::new_raw(&text, span))
}

/// `<Info><Frequency>Set<'a, H>` for each set the derive declares resources in: one field per resource, of the
/// host type its kind takes (`Option` for a conditional one), and `BindingSet` over it. Resources of a frequency
/// written as a computed value cannot be grouped, so then no set struct is generated at all.
fn set_structs(
    input: &DeriveInput,
    info: &LitStr,
    resources: &[Resource],
    unseen: bool,
) -> syn::Result<TokenStream> {
    let frequencies: Option<Vec<String>> = resources
        .iter()
        .map(|r| frequency_name(&r.frequency_expr))
        .collect();
    let Some(frequencies) = frequencies else {
        return Ok(TokenStream::new());
    };
    let (ident, vis) = (&input.ident, &input.vis);
    let mut out = TokenStream::new();
    for frequency in ["Pass", "Batch", "Geometry"] {
        let members: Vec<&Resource> = resources
            .iter()
            .zip(&frequencies)
            .filter(|(_, f)| *f == frequency)
            .map(|(r, _)| r)
            .collect();
        if members.is_empty() {
            continue;
        }
        let set_ident = quote::format_ident!("{}{}Set", ident, frequency, span = ident.span());
        let freq = Ident::new(frequency, Span::call_site());
        let mut fields = Vec::new();
        let mut pushes = Vec::new();
        for r in members {
            let full = r.name.value();
            let base = full.split('[').next().unwrap_or_default().to_string();
            let field = field_ident(&base, r.name.span())?;
            if unseen && field == "by_name" {
                return Err(attrs::err(
                    r.name.span(),
                    "resource `by_name` makes the set field the derive uses for the resources it cannot see (an \
                     `additional_info`'s, subpass inputs); rename the resource",
                ));
            }
            // A texture declared as an array (`shadow_maps[4]`) is that many descriptors: its field holds every
            // element (an array of the declared length, or a slice when the length is not a number here).
            let array = full
                .split_once('[')
                .map(|(_, rest)| rest.trim_end_matches(']').trim().parse::<usize>().ok());
            let (ty, bound) = match (r.host, array) {
                (HostKind::Texture, Some(Some(n))) => {
                    (quote!(&'a [&'a H::Texture; #n]), quote!(__b::Textures(v)))
                }
                (HostKind::Texture, Some(None)) => {
                    (quote!(&'a [&'a H::Texture]), quote!(__b::Textures(v)))
                }
                (HostKind::Sampled, Some(Some(n))) => (
                    quote!(&'a [(&'a H::Texture, &'a H::Sampler); #n]),
                    quote!(__b::SampledArray(v)),
                ),
                (HostKind::Sampled, Some(None)) => (
                    quote!(&'a [(&'a H::Texture, &'a H::Sampler)]),
                    quote!(__b::SampledArray(v)),
                ),
                (HostKind::Buffer, _) => (quote!(&'a H::Buffer), quote!(__b::Buffer(v))),
                (HostKind::TexelBuffer, _) => (
                    quote!((&'a H::Buffer, ::shader_info::TextureFormat)),
                    quote!(__b::TexelBuffer(v.0, v.1)),
                ),
                (HostKind::Texture, None) => (quote!(&'a H::Texture), quote!(__b::Texture(v))),
                (HostKind::Sampled, None) => (
                    quote!((&'a H::Texture, &'a H::Sampler)),
                    quote!(__b::Sampled(v.0, v.1)),
                ),
                (HostKind::AccelerationStructure, _) => (
                    quote!(&'a H::AccelerationStructure),
                    quote!(__b::AccelerationStructure(v)),
                ),
                (HostKind::Any, _) => (quote!(::shader_info::Bound<'a, H>), quote!(v)),
            };
            let kind = match (r.host, array) {
                (HostKind::Texture, Some(_)) => "every texture of the array, in order",
                (HostKind::Sampled, Some(_)) => {
                    "every texture of the array with its sampler, in order"
                }
                (HostKind::Buffer, _) => "a buffer",
                (HostKind::TexelBuffer, _) => "a buffer and the format of its texels",
                (HostKind::Texture, None) => "a texture",
                (HostKind::Sampled, None) => "a texture and its sampler",
                (HostKind::AccelerationStructure, _) => "an acceleration structure",
                (HostKind::Any, _) => "the resource (its kind is checked at the call)",
            };
            if r.conditional {
                let doc = format!(
                    "`{base}`: {kind}; `Some` exactly in the variants whose condition declares it."
                );
                fields.push(quote!(#[doc = #doc] pub #field: ::core::option::Option<#ty>));
                pushes.push(
                    quote!(if let ::core::option::Option::Some(v) = self.#field {
                        out.push((#base, #bound));
                    }),
                );
            } else {
                let doc = format!("`{base}`: {kind}.");
                fields.push(quote!(#[doc = #doc] pub #field: #ty));
                pushes.push(quote!({ let v = self.#field; out.push((#base, #bound)); }));
            }
        }
        if unseen {
            fields.push(quote!(
                /// Resources this set gets from an `additional_info` or a `subpass_in`, by declared name
                /// (checked when the set is bound).
                pub by_name: &'a [(&'a str, ::shader_info::Bound<'a, H>)]
            ));
            pushes.push(quote!(out.extend(self.by_name.iter().copied());));
        }
        let doc = format!(
            "The resources of `{}` in its `{frequency}` set, one field per resource declared by `{ident}`: bind \
             it with a backend's `bind`.",
            info.value()
        );
        out.extend(quote! {
            #[doc = #doc]
            #vis struct #set_ident<'a, H: ::shader_info::HostTypes> {
                #(#fields,)*
            }
            impl<'a, H: ::shader_info::HostTypes> ::shader_info::BindingSet<'a, H> for #set_ident<'a, H> {
                type Info = #ident;
                const INFO: &'static str = #info;
                const SET: u32 = ::shader_info::Frequency::#freq.set();
                fn resources(&self) -> ::std::vec::Vec<(&'a str, ::shader_info::Bound<'a, H>)> {
                    use ::shader_info::Bound as __b;
                    let mut out = ::std::vec::Vec::new();
                    #(#pushes)*
                    out
                }
            }
        });
    }
    Ok(out)
}

/// `<Info>Branches`: one `bool` per declared branch, and `Branches` over it.
fn branch_struct(
    input: &DeriveInput,
    info: &LitStr,
    branches: &[LitStr],
    inherits: bool,
) -> syn::Result<TokenStream> {
    let (ident, vis) = (&input.ident, &input.vis);
    let struct_ident = quote::format_ident!("{}Branches", ident, span = ident.span());
    let mut fields = Vec::new();
    let mut values = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for b in branches {
        let name = b.value();
        let field = field_ident(&name, b.span())?;
        let text = field.to_string();
        if inherits && text == "inherited" {
            return Err(attrs::err(
                b.span(),
                format!(
                    "branch `{name}` makes the field `inherited`, which holds the branches of the info's \
                     `additional_info`; rename the branch"
                ),
            ));
        }
        if let Some((first, _)) = seen.iter().find(|(_, f)| *f == text) {
            return Err(attrs::err(
                b.span(),
                format!(
                    "branches `{first}` and `{name}` both make the field `{text}`; rename one of them"
                ),
            ));
        }
        seen.push((name.clone(), text));
        let doc = format!("Branch `{name}`.");
        fields.push(quote!(#[doc = #doc] pub #field: bool));
        values.push(quote!((#name, self.#field)));
    }
    // Branches an `additional_info` declares are unknown here: they are chosen by name, and a name the info does
    // not have is an error when the variant is chosen (they were left out, so always off).
    let inherited = if inherits {
        fields.push(quote! {
            /// Branches the info inherits through `additional_info`, by declared name (`&[("FOG", true)]`); a name
            /// the info does not have is an error when the variant is chosen.
            pub inherited: &'static [(&'static str, bool)]
        });
        quote!(v.extend_from_slice(self.inherited);)
    } else {
        TokenStream::new()
    };
    let doc = format!(
        "The branches of `{}`, by value (`Default`: every branch off); choose a variant with a library's \
         `variant_of`.",
        info.value()
    );
    Ok(quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #vis struct #struct_ident {
            #(#fields,)*
        }
        impl ::shader_info::Branches for #struct_ident {
            const INFO: &'static str = #info;
            fn values(&self) -> ::std::vec::Vec<(&'static str, bool)> {
                #[allow(unused_mut)]
                let mut v = ::std::vec![#(#values),*];
                #inherited
                v
            }
        }
    })
}

/// `#[shader_info]` on `fn name() -> ShaderCreateInfo`: registers the function.
pub fn attribute(args: TokenStream, f: syn::ItemFn) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(attrs::err(
            args.span(),
            "#[shader_info] takes no options: the info is registered under the function's name",
        ));
    }
    let sig = &f.sig;
    if !sig.inputs.is_empty() || !sig.generics.params.is_empty() || sig.asyncness.is_some() {
        return Err(attrs::err(
            sig.ident.span(),
            "#[shader_info] needs a plain `fn name() -> ShaderCreateInfo` without arguments or generics",
        ));
    }
    if matches!(sig.output, syn::ReturnType::Default) {
        return Err(attrs::err(
            sig.ident.span(),
            "#[shader_info] needs a function returning `ShaderCreateInfo`",
        ));
    }
    let fname = sig.ident.to_string();
    if let Some(lit) = find_info_name(f.block.to_token_stream())
        && lit.value() != fname
    {
        {
            let e = attrs::err(
                lit.span(),
                format!(
                    "this info is named `{}` but #[shader_info] registers it as `{fname}`: name the info after its function",
                    lit.value()
                ),
            )
            .into_compile_error();
            // Keep the function so the error is the only one.
            return Ok(quote!(#f #e));
        }
    }
    let ident = &sig.ident;
    Ok(quote! {
        #f
        ::shader_info::__private::inventory::submit! {
            ::shader_info::__private::InfoRegistration {
                build: #ident,
                file: ::core::file!(),
                line: ::core::line!(),
            }
        }
    })
}

/// The literal in `ShaderCreateInfo::new("lit")`, if the body has one.
fn find_info_name(ts: TokenStream) -> Option<LitStr> {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        if let TokenTree::Group(g) = t
            && let Some(l) = find_info_name(g.stream())
        {
            return Some(l);
        }
        let is = |j: usize, s: &str| matches!(toks.get(j), Some(TokenTree::Ident(id)) if id == s);
        if is(i, "ShaderCreateInfo")
            && is(i + 3, "new")
            && let Some(TokenTree::Group(g)) = toks.get(i + 4)
            && let [TokenTree::Literal(l)] = g.stream().into_iter().collect::<Vec<_>>().as_slice()
            && let Ok(s) = syn::parse2::<LitStr>(quote!(#l))
        {
            return Some(s);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::METHODS;

    /// The builder methods of `ShaderCreateInfo` (`pub fn name(self, …) -> Self`), read from its source.
    fn builder_methods() -> Vec<String> {
        let src = include_str!("../../shader-info/src/info.rs");
        let body = &src[src
            .find("impl ShaderCreateInfo {")
            .expect("the builder impl")..];
        let mut out = Vec::new();
        for (i, _) in body.match_indices("pub fn ") {
            let rest = &body[i + "pub fn ".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let signature = &rest[..rest.find('{').unwrap_or(rest.len())];
            let params = signature[signature.find('(').unwrap_or(0) + 1..].trim_start();
            if !name.is_empty()
                && (params.starts_with("self") || params.starts_with("mut self"))
                && signature.contains("-> Self")
            {
                out.push(name);
            }
        }
        // The `<stage>_source` shorthands are made by a macro: `name => Stage,` lines of its invocation.
        let shorthands = &src[src
            .find("stage_source_shorthands! {")
            .expect("the shorthand invocation")..];
        let shorthands = &shorthands[..shorthands.find("\n}").unwrap_or(shorthands.len())];
        out.extend(shorthands.lines().filter_map(|l| {
            let (name, _) = l.trim().split_once(" => ")?;
            Some(name.to_string())
        }));
        out
    }

    /// Every builder method can be written as a `#[shader(..)]` entry: the table cannot drift from the builder.
    #[test]
    fn the_method_table_covers_every_builder_method() {
        // Push constants are the struct's fields; the specialize function is a Rust `fn`, not an attribute value;
        // per-kind slots would make the derive's binding constants wrong (refused with a message), and per-set
        // slots the derive declares itself for an info with resources; `resources_if` takes a closure in the
        // builder and its own entry form here.
        const BY_OTHER_MEANS: [&str; 6] = [
            "push_constant",
            "push_constant_array",
            "specialize",
            "slots_per_kind",
            "slots_per_set",
            "resources_if",
        ];
        let methods = builder_methods();
        assert!(methods.len() > 30, "{methods:?}");
        for m in &methods {
            assert!(
                BY_OTHER_MEANS.contains(&m.as_str()) || METHODS.iter().any(|(t, _)| t == m),
                "builder method `{m}` has no #[shader(..)] entry in METHODS"
            );
        }
        for (t, _) in METHODS {
            assert!(
                methods.iter().any(|m| m == t),
                "METHODS lists `{t}`, which is not a builder method"
            );
        }
    }
}
