//! Procedural macros for `shader-info`. Use them through the re-exports in `shader_info`; the documentation with
//! examples lives on each macro.
//!
//! The macros only read the Rust syntax and emit calls into `shader_info`: the layout rules, the proofs (const fns)
//! and the GLSL text all live there.

mod attrs;
// The identifier rule `shader-info` holds items to, in a crate both can depend on.
use shader_info_glsl_names as glsl_names;
mod layout_proof;
mod shader_enum;
mod shader_info;
mod shader_struct;
mod shader_vertex;

use proc_macro::TokenStream;
use syn::parse_macro_input;

fn finish(r: syn::Result<proc_macro2::TokenStream>) -> TokenStream {
    r.unwrap_or_else(syn::Error::into_compile_error).into()
}

/// A `#[repr(C)]` struct shared with GLSL, its std140/std430 layout proven at compile time.
///
/// Options, in `#[shader(..)]`: `std140`, `std430` (the rule sets to prove; both when neither is given) and
/// `name = "GlslName"` (default: the Rust name). Fields may be `f32`, `i32`, `u32`, `f64`, `Bool32`, glam vectors
/// and matrices (`Vec2/3/4`, `Vec3A`, `IVec*`, `UVec*`, `DVec*`, `Quat`, `Mat2` (std430), `Mat3A`, `Mat4`), fixed
/// arrays, `Pad<N>`, other shared structs and shared enums.
///
/// Generates: the `ShaderType` impl (GLSL type and layouts), the `inventory` registration the generator emits the
/// GLSL `struct` from, and `bytemuck`'s `NoUninit` (always), `Zeroable` and `AnyBitPattern` (when every field has
/// them, i.e. no enum fields): upload with `bytemuck::bytes_of`. Derive `Clone, Copy`; do not derive bytemuck traits.
///
/// A field whose Rust offset differs from its std offset is a compile error on that field:
/// "`color` is at offset 12 but std140 puts it at 16: add 4 bytes of padding before it (`_pad: Pad<4>`)".
///
/// ```
/// use shader_info::{ShaderStruct, ShaderEnum, Pad};
/// use glam::{Mat4, Vec4};
///
/// #[derive(Clone, Copy, ShaderEnum)]
/// #[repr(u32)]
/// enum Shading { Flat = 0, Lit = 1 }
///
/// #[derive(Clone, Copy, ShaderStruct)]
/// #[repr(C)]
/// #[shader(std140)]
/// struct ViewData {
///     view_proj: Mat4,
///     sun_color: Vec4,
///     exposure: f32,
///     shading: Shading,
///     _pad: Pad<8>,
/// }
///
/// let v = ViewData { view_proj: Mat4::IDENTITY, sun_color: Vec4::ONE, exposure: 1.0, shading: Shading::Lit, _pad: Pad::ZERO };
/// assert_eq!(bytemuck::bytes_of(&v).len(), 96);
/// ```
#[proc_macro_derive(ShaderStruct, attributes(shader))]
pub fn derive_shader_struct(input: TokenStream) -> TokenStream {
    finish(shader_struct::derive(parse_macro_input!(input)))
}

/// A `#[repr(C)]` vertex struct whose fields a declaration's vertex layout is checked against
/// (`PipelinePlan::vertex_problems`): each field's name, byte offset and vertex format. 32-bit scalars and
/// vectors (`f32`, `[f32; 3]`, `glam::Vec4`, `u32`, `IVec2`, …) know their format; packed fields name theirs with
/// `#[vertex(format = "Unorm8x4")]` (its size is checked against the field's at compile time).
///
/// ```
/// use shader_info::ShaderVertex;
/// #[derive(Clone, Copy, ShaderVertex)]
/// #[repr(C)]
/// struct Vertex {
///     pos: [f32; 3],
///     #[vertex(format = "Snorm16x2")]
///     uv: [i16; 2],
/// }
/// assert_eq!(<Vertex as shader_info::ShaderVertex>::STRIDE, 16);
/// ```
#[proc_macro_derive(ShaderVertex, attributes(vertex))]
pub fn derive_shader_vertex(input: TokenStream) -> TokenStream {
    finish(shader_vertex::derive(parse_macro_input!(input)))
}

/// Like `#[derive(ShaderStruct)]`, but inserts the padding itself: `#[shader_struct(auto_pad)]`, with the same
/// options (`std140`, `std430`, `name = ".."`). A `Pad<N>` field (`_pad_before_<field>`, `N` computed in const
/// evaluation, often 0) goes before every field and `_pad_end` after the last; the same proofs then run. Build
/// values with `..Default::default()` (derive `Default`) or `..bytemuck::Zeroable::zeroed()`.
///
/// ```
/// use shader_info::shader_struct;
/// use glam::{Vec3, Vec4};
///
/// #[shader_struct(auto_pad, std140)]
/// #[derive(Clone, Copy, Default)]
/// #[repr(C)]
/// struct Light { intensity: f32, color: Vec4, position: Vec3 }
///
/// let l = Light { intensity: 2.0, color: Vec4::ONE, ..Default::default() };
/// assert_eq!(size_of::<Light>(), 48); // 4 + 12 padding + 16 + 12 + 4 padding
/// assert_eq!(std::mem::offset_of!(Light, color), 16);
/// # let _ = l.position;
/// ```
#[proc_macro_attribute]
pub fn shader_struct(args: TokenStream, item: TokenStream) -> TokenStream {
    finish(shader_struct::attribute(
        args.into(),
        parse_macro_input!(item),
    ))
}

/// A `#[repr(u32)]` enum shared with GLSL: a `#define Name uint` and one `const uint PREFIX_VARIANT = Nu;` per
/// variant. Every variant needs an explicit value. Options: `#[shader(name = "..", prefix = "..")]` on the enum
/// (default prefix: the name in SCREAMING_SNAKE_CASE and `_`), `#[shader(name = "..")]` on a variant. Struct fields
/// of the enum's type are `uint` in GLSL. Implements `NoUninit` and `CheckedBitPattern`.
///
/// ```
/// use shader_info::{ShaderEnum, Registry};
///
/// #[derive(Clone, Copy, ShaderEnum)]
/// #[repr(u32)]
/// enum BlendMode { Alpha = 0, Additive = 1, #[shader(name = "BLEND_MUL")] Multiply = 4 }
///
/// let def = Registry::global().enum_def("BlendMode").unwrap();
/// assert_eq!(def.glsl(), "#define BlendMode uint\nconst uint BLEND_MODE_ALPHA = 0u;\nconst uint BLEND_MODE_ADDITIVE = 1u;\nconst uint BLEND_MUL = 4u;\n");
/// ```
#[proc_macro_derive(ShaderEnum, attributes(shader))]
pub fn derive_shader_enum(input: TokenStream) -> TokenStream {
    finish(shader_enum::derive(parse_macro_input!(input)))
}

/// A whole shader declaration: `#[shader(..)]` entries are `ShaderCreateInfo` builder calls (same names, same
/// arguments, same order; enum arguments may be bare variant names), plus `name = ".."` (default: the struct name
/// in snake_case). Bare `do_static_compilation` and `early_fragment_test` mean `(true)`; `local_group_size` takes
/// one to three sizes. `resources_if(condition, resource calls..)` declares resources present only where the
/// condition holds (`branch("X")` is short for `Condition::branch("X")`; any `Condition` expression works), so
/// resources of exclusive conditions may share a binding. The struct's own fields are the push-constant block:
/// std430 layout proven; a block over 128 bytes is spilled to a storage buffer, as with the builder.
///
/// Generates `create_info()`, its `inventory` registration, `NAME`, a `Binding` constant per resource (named after
/// the resource, in SCREAMING_SNAKE_CASE), and the struct is the push-constant value (`bytemuck::bytes_of`).
/// It also generates the host side's types, beside the struct and with its visibility: per descriptor set, a struct
/// `<Struct><Frequency>Set<'a, H>` with one field per resource declared in that set (`shader_info::BindingSet`:
/// a resource left out or of the wrong kind does not compile), and `<Struct>Branches`, one `bool` per branch
/// (`shader_info::Branches`). A frequency or branch written as a computed value, not a name or a literal, leaves
/// the set structs (or the branch struct) out. A vertex or instance buffer declared from its host struct is
/// `vertex_struct(Vertex, 0)`: the struct's path, then the first location (`.vertex_struct::<Vertex>(0)`).
///
/// ```
/// use shader_info::{ShaderInfo, StageInterfaceInfo, Type, Binding};
/// use glam::{Mat4, Vec4};
///
/// fn color_iface() -> StageInterfaceInfo {
///     StageInterfaceInfo::new("color_iface", "").smooth(Type::Vec4, "color")
/// }
///
/// #[derive(Clone, Copy, ShaderInfo)]
/// #[repr(C)]
/// #[shader(
///     name = "textured",
///     vertex_in(0, Vec3, "pos"),
///     vertex_in(1, Vec2, "uv"),
///     vertex_out(color_iface),
///     fragment_out(0, Vec4, "frag_color"),
///     sampler(0, Float2D, "color_tex", Batch),
///     uniform_buf(1, "vec4", "tint", Pass),
///     define_value("GAMMA", "2.2"),
///     branch("DETAIL"),
///     resources_if(branch("DETAIL"), sampler(2, Float2D, "detail_tex", Batch)),
///     vertex_source("textured.vert.glsl"),
///     fragment_source("textured.frag.glsl"),
///     do_static_compilation,
/// )]
/// struct Textured {
///     mvp: Mat4,
///     color: Vec4,
/// }
///
/// assert_eq!(Textured::COLOR_TEX, Binding { set: 1, binding: 0 });
/// let info = Textured::create_info();
/// assert_eq!(info.push_constants.len(), 2);
/// let push = Textured { mvp: Mat4::IDENTITY, color: Vec4::ONE };
/// assert_eq!(bytemuck::bytes_of(&push).len(), 80);
/// ```
#[proc_macro_derive(ShaderInfo, attributes(shader))]
pub fn derive_shader_info(input: TokenStream) -> TokenStream {
    finish(shader_info::derive(parse_macro_input!(input)))
}

/// Registers a builder function `fn name() -> ShaderCreateInfo` with `inventory`, so it needs no
/// `register_info!`. The info must be named after the function (checked when the name is a literal).
///
/// ```
/// use shader_info::{shader_info, ShaderCreateInfo, Registry, Type};
///
/// #[shader_info]
/// fn fullscreen_blit() -> ShaderCreateInfo {
///     ShaderCreateInfo::new("fullscreen_blit").push_constant(Type::Vec4, "scale_bias")
/// }
///
/// assert!(Registry::global().info("fullscreen_blit").is_some());
/// ```
#[proc_macro_attribute]
pub fn shader_info(args: TokenStream, item: TokenStream) -> TokenStream {
    finish(shader_info::attribute(
        args.into(),
        parse_macro_input!(item),
    ))
}
