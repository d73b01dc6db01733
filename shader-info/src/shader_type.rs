//! Rust types shared with GLSL: the [`ShaderType`] trait the derive macros implement, the types it is implemented
//! for out of the box ([`Bool32`], [`Pad`], `f32`/`i32`/`u32`, glam vectors and matrices, fixed arrays), and the
//! `const fn`s that prove at compile time that a `#[repr(C)]` struct's Rust layout equals its std140/std430 layout.
//!
//! ```
//! use shader_info::{ShaderStruct, ShaderType, Rules, Pad};
//! use glam::{Vec3, Vec4};
//!
//! #[derive(Clone, Copy, ShaderStruct)]
//! #[repr(C)]
//! struct Light {
//!     position: Vec3,
//!     radius: f32,
//!     color: Vec4,
//! }
//!
//! assert_eq!(Light::STD140.unwrap().size, 32);
//! let def = shader_info::Registry::global().find_struct("Light").cloned();
//! assert_eq!(def.unwrap().glsl(), "struct Light {\n  vec3 position;\n  float radius;\n  vec4 color;\n};\n");
//! # use shader_info::StructLookup;
//! ```
//!
//! # How the proof works
//! Each field type knows (through [`ShaderType`]) its GLSL type and its std140 and std430 alignment and size, or why
//! this Rust type cannot stand for its GLSL type under a rule set (`glam::Mat2` in std140, `[f32; 4]` in std140).
//! The derive builds a table of [`FieldInfo`] (those facts plus `offset_of!` and `size_of` of each field) and emits
//! one `const` assertion per field, spanned on the field, that calls [`check_field`]; a failed check panics during
//! constant evaluation with a message formatted by [`Message`], which makes it a compile error on that field.
//!
//! The arithmetic mirrors [`crate::layout_fields`] (the run-time engine the generator uses); the tests below check
//! the two agree.

// The `Result<_, Message>`s are built and read during constant evaluation, where nothing can be boxed.
#![allow(clippy::result_large_err)]

use crate::info::ShaderCreateInfo;
use crate::layout::{Field, FieldArray, FieldType, Rules, StructDef, round_up};
use crate::limits::MAX_PUSH_CONSTANTS_SIZE;
use crate::types::Type;
use std::fmt;

/// A message built during constant evaluation (const panics cannot format numbers, so this does).
///
/// ```
/// use shader_info::Message;
/// const M: Message = Message::new().str("offset ").num(16);
/// assert_eq!(M.as_str(), "offset 16");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    /// Bytes a message holds; longer text is cut off.
    pub const CAPACITY: usize = 320;

    /// An empty message.
    pub const fn new() -> Message {
        Message {
            buf: [0; Message::CAPACITY],
            len: 0,
        }
    }

    /// Appends text.
    pub const fn str(mut self, s: &str) -> Message {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < Message::CAPACITY {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends a number in decimal.
    pub const fn num(self, n: u32) -> Message {
        let mut digits = [0u8; 10];
        let mut count = 0;
        let mut v = n;
        loop {
            digits[count] = b'0' + (v % 10) as u8;
            count += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let mut out = self;
        while count > 0 {
            count -= 1;
            if out.len < Message::CAPACITY {
                out.buf[out.len] = digits[count];
                out.len += 1;
            }
        }
        out
    }

    /// Appends another message.
    pub const fn msg(self, other: &Message) -> Message {
        self.str(other.as_str())
    }

    /// The text (up to the last whole character if it was cut off).
    pub const fn as_str(&self) -> &str {
        let bytes = self.buf.split_at(self.len).0;
        match core::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => match core::str::from_utf8(bytes.split_at(e.valid_up_to()).0) {
                Ok(s) => s,
                Err(_) => "",
            },
        }
    }
}

impl Default for Message {
    fn default() -> Self {
        Message::new()
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a Rust type is in GLSL, before array-ness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlslKind {
    /// A built-in GLSL type.
    Value(Type),
    /// A `#[derive(ShaderStruct)]` struct, by GLSL name.
    Struct(&'static str),
    /// A `#[derive(ShaderEnum)]` enum, by GLSL name; declared as `uint`.
    Enum(&'static str),
    /// [`Pad`]: bytes that exist only on the Rust side and are left out of the GLSL struct.
    Padding,
}

/// How a Rust type appears in GLSL: a kind and, for `[T; N]`, an array length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlslType {
    pub kind: GlslKind,
    pub array: Option<u32>,
}

impl GlslType {
    /// A built-in type.
    pub const fn value(ty: Type) -> GlslType {
        GlslType {
            kind: GlslKind::Value(ty),
            array: None,
        }
    }

    /// A shared struct.
    pub const fn structure(name: &'static str) -> GlslType {
        GlslType {
            kind: GlslKind::Struct(name),
            array: None,
        }
    }

    /// A shared enum.
    pub const fn enumeration(name: &'static str) -> GlslType {
        GlslType {
            kind: GlslKind::Enum(name),
            array: None,
        }
    }

    /// Padding, invisible in GLSL.
    pub const PADDING: GlslType = GlslType {
        kind: GlslKind::Padding,
        array: None,
    };

    /// True for [`Pad`] (and arrays of it).
    pub const fn is_padding(&self) -> bool {
        matches!(self.kind, GlslKind::Padding)
    }

    /// The enum's GLSL name, for enum-typed values.
    pub const fn enum_name(&self) -> Option<&'static str> {
        match self.kind {
            GlslKind::Enum(n) => Some(n),
            _ => None,
        }
    }

    /// The field type of a struct member (`None` for padding). Enums are `uint`.
    pub fn field_type(&self) -> Option<FieldType> {
        match self.kind {
            GlslKind::Value(t) => Some(FieldType::Value(t)),
            GlslKind::Enum(_) => Some(FieldType::Value(Type::Uint)),
            GlslKind::Struct(s) => Some(FieldType::Struct(s.to_string())),
            GlslKind::Padding => None,
        }
    }

    /// The GLSL struct member `ty name[N]`, or `None` for padding.
    pub fn field(&self, name: &str) -> Option<Field> {
        Some(Field {
            name: name.to_string(),
            ty: self.field_type()?,
            array: match self.array {
                Some(n) => FieldArray::Fixed(n),
                None => FieldArray::None,
            },
        })
    }
}

/// A type's GLSL layout under one rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeLayout {
    /// Base alignment as a member.
    pub align: u32,
    /// Size as a member (a struct's size is rounded up to its alignment).
    pub size: u32,
    /// Stride of an array of this type.
    pub array_stride: u32,
}

impl TypeLayout {
    /// The layout of a built-in type, from the rules in [`crate::layout`].
    pub const fn of_value(ty: Type, rules: Rules) -> TypeLayout {
        TypeLayout {
            align: ty.align(rules),
            size: ty.size(rules),
            array_stride: ty.array_stride(rules),
        }
    }
}

/// A type's layout under a rule set, or why the Rust type cannot represent its GLSL type there.
pub type StdLayout = Result<TypeLayout, Message>;

/// A Rust type with a GLSL twin: implemented by the derives and for the built-in types listed in the module docs.
///
/// ```
/// use shader_info::{ShaderType, GlslType, Type};
/// assert_eq!(<glam::Vec3A as ShaderType>::GLSL, GlslType::value(Type::Vec3));
/// assert_eq!(<[glam::Vec4; 3] as ShaderType>::STD140.unwrap().size, 48);
/// assert!(<[f32; 3] as ShaderType>::STD140.is_err()); // std140 puts floats of an array 16 bytes apart
/// assert!(<glam::Mat3 as ShaderType>::STD430.is_err()); // use Mat3A
/// ```
///
/// # Safety
/// For each rule set whose layout is `Ok`, the first `size` bytes of the Rust value hold the GLSL value's bytes at the
/// same offsets (components, matrix columns at the matrix stride, struct members at their std offsets), and
/// `size_of::<Self>() >= size`, and no byte of the value is uninitialised (it is `bytemuck::NoUninit` in spirit;
/// the trait does not require it because bytemuck has no `NoUninit` impl for arrays of non-`Pod` types such as
/// `[MyEnum; 4]`, which are fine here). `glam::Vec3A` and `glam::Mat3A` are shader types only where glam keeps them in
/// SIMD registers (SSE2, NEON, SIMD128); a build that turns on glam's `scalar-math` feature on such a target gives
/// them padding this cannot see, so do not share them with GLSL there.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shared with GLSL",
    label = "not a shader type",
    note = "shared fields may be f32, i32, u32, Bool32, glam vectors and matrices (Vec2/3/4, Vec3A, IVec*, UVec*, Mat2, Mat3A, Mat4), [T; N], Pad<N>, or a type with #[derive(ShaderStruct)] or #[derive(ShaderEnum)]"
)]
pub unsafe trait ShaderType: Copy + 'static {
    /// The GLSL type.
    const GLSL: GlslType;
    /// The layout in `std140` blocks (uniform buffers).
    const STD140: StdLayout;
    /// The layout in `std430` blocks (storage buffers, push constants).
    const STD430: StdLayout;
}

/// `T`'s layout under `rules`.
pub const fn std_layout<T: ShaderType>(rules: Rules) -> StdLayout {
    match rules {
        Rules::Std140 => T::STD140,
        Rules::Std430 => T::STD430,
    }
}

macro_rules! impl_value {
    ($($rust:ty => $glsl:ident),* $(,)?) => {$(
        // SAFETY: checked by hand and by `value_types_match_their_rust_size`: components are contiguous 4- or 8-byte
        // scalars (Vec3A's fourth lane is trailing padding that GLSL does not read) and matrix columns are
        // `matrix_stride` apart in both rule sets.
        unsafe impl ShaderType for $rust {
            const GLSL: GlslType = GlslType::value(Type::$glsl);
            const STD140: StdLayout = Ok(TypeLayout::of_value(Type::$glsl, Rules::Std140));
            const STD430: StdLayout = Ok(TypeLayout::of_value(Type::$glsl, Rules::Std430));
        }
    )*};
}

/// Types GLSL has a name for that no rule set lays out as Rust does, each refused with `$hint`.
macro_rules! impl_refused {
    ($hint:ident: $($rust:ty => $glsl:ident),* $(,)?) => {$(
        // SAFETY: both layouts are Err, so no derive accepts it.
        unsafe impl ShaderType for $rust {
            const GLSL: GlslType = GlslType::value(Type::$glsl);
            const STD140: StdLayout = Err($hint);
            const STD430: StdLayout = Err($hint);
        }
    )*};
}

impl_value! {
    f32 => Float, i32 => Int, u32 => Uint, f64 => Double, Bool32 => Bool,
    glam::Vec2 => Vec2, glam::Vec3 => Vec3, glam::Vec4 => Vec4, glam::Quat => Vec4,
    glam::IVec2 => IVec2, glam::IVec3 => IVec3, glam::IVec4 => IVec4,
    glam::UVec2 => UVec2, glam::UVec3 => UVec3, glam::UVec4 => UVec4,
    glam::DVec2 => DVec2, glam::DVec3 => DVec3, glam::DVec4 => DVec4,
    glam::Mat4 => Mat4,
}

// glam's SIMD backends hold Vec3A (and Mat3A's columns) in a vector register whose fourth lane is written with the
// others. Its scalar backend (a target without SSE2, NEON or SIMD128: wasm32 by default, i586, riscv, …) leaves that
// lane uninitialised padding, which no byte view of a struct may read: there both are refused, with what to write.
// (glam's `scalar-math` feature picks the scalar backend on any target, and a crate feature cannot be seen from
// here; it is documented on `ShaderType`.)
#[cfg(any(
    target_feature = "sse2",
    all(target_arch = "aarch64", target_feature = "neon"),
    all(target_arch = "wasm32", target_feature = "simd128")
))]
impl_value! { glam::Vec3A => Vec3, glam::Mat3A => Mat3 }

#[cfg(not(any(
    target_feature = "sse2",
    all(target_arch = "aarch64", target_feature = "neon"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod scalar_glam {
    use super::*;

    const SCALAR_VEC3A_HINT: Message = Message::new().str(
        "on this target glam stores `Vec3A`/`Mat3A` without SIMD, and their fourth lane is uninitialised padding: \
         use `glam::Vec3` and a `f32` (or `Pad<4>`) after it, or a `glam::Vec4`",
    );

    impl_refused! { SCALAR_VEC3A_HINT: glam::Vec3A => Vec3, glam::Mat3A => Mat3 }
}

/// Why a glam double matrix is no field of a shader struct: GLSL's `dmat2`/`dmat4` are not declarable types here,
/// and as `mat2`/`mat4` the GPU would read the `f64` halves as floats (a `DMat2` is even the size of a std140
/// `mat2`, so no size check would catch it).
const DOUBLE_MATRIX_HINT: Message = Message::new().str(
    "glam's double matrices have no GLSL type in a declaration (no dmat2/dmat4): use a float matrix \
     (glam::Mat2, glam::Mat4), or its columns as DVec fields",
);

impl_refused! { DOUBLE_MATRIX_HINT: glam::DMat2 => Mat2, glam::DMat4 => Mat4 }

// SAFETY: glam's Mat2 columns are 8 bytes apart, which is std430's mat2; std140 pads them to 16 (reported as Err).
unsafe impl ShaderType for glam::Mat2 {
    const GLSL: GlslType = GlslType::value(Type::Mat2);
    const STD140: StdLayout = Err(Message::new().str(
        "`glam::Mat2` columns are 8 bytes apart but std140 puts mat2 columns 16 bytes apart: use std430, or a Mat4",
    ));
    const STD430: StdLayout = Ok(TypeLayout::of_value(Type::Mat2, Rules::Std430));
}

const MAT3_HINT: Message = Message::new().str(
    "`glam::Mat3` columns are 12 bytes apart but GLSL mat3 columns are 16 bytes apart: use `glam::Mat3A`",
);

// SAFETY: both layouts are Err, so no derive accepts it.
unsafe impl ShaderType for glam::Mat3 {
    const GLSL: GlslType = GlslType::value(Type::Mat3);
    const STD140: StdLayout = Err(MAT3_HINT);
    const STD430: StdLayout = Err(MAT3_HINT);
}

/// A 32-bit boolean, GLSL `bool` in a buffer (Rust's one-byte `bool` has no GPU twin).
///
/// ```
/// use shader_info::Bool32;
/// let b = Bool32::from(true);
/// assert!(bool::from(b));
/// assert_eq!(bytemuck::bytes_of(&b), &[1, 0, 0, 0]);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Bool32(pub u32);

impl Bool32 {
    pub const TRUE: Bool32 = Bool32(1);
    pub const FALSE: Bool32 = Bool32(0);

    /// True when non-zero, as GLSL reads it.
    pub const fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Bool32 {
    fn from(b: bool) -> Self {
        Bool32(b as u32)
    }
}

impl From<Bool32> for bool {
    fn from(b: Bool32) -> Self {
        b.get()
    }
}

/// `N` bytes of explicit padding: part of the Rust struct, left out of the GLSL struct (where the std rules leave
/// the same gap). Write the padding the layout error asks for, or let `#[shader_struct(auto_pad)]` insert it.
///
/// ```
/// use shader_info::{Pad, ShaderStruct};
/// #[derive(Clone, Copy, ShaderStruct)]
/// #[repr(C)]
/// #[shader(std140)]
/// struct Params { scale: f32, _pad: Pad<12>, tint: glam::Vec4 }
/// let p = Params { scale: 1.0, _pad: Pad::default(), tint: glam::Vec4::ONE };
/// assert_eq!(bytemuck::bytes_of(&p).len(), 32);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pad<const N: usize>([u8; N]);

impl<const N: usize> Pad<N> {
    /// Zeroed padding.
    pub const ZERO: Pad<N> = Pad([0; N]);
}

impl<const N: usize> Default for Pad<N> {
    fn default() -> Self {
        Pad::ZERO
    }
}

impl<const N: usize> fmt::Debug for Pad<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pad<{N}>")
    }
}

// SAFETY: a transparent byte array: any bit pattern is valid and there are no padding bytes.
unsafe impl<const N: usize> bytemuck::Zeroable for Pad<N> {}
// SAFETY: as above.
unsafe impl<const N: usize> bytemuck::Pod for Pad<N> {}

// SAFETY: padding has no GLSL twin to match; its bytes are only counted.
unsafe impl<const N: usize> ShaderType for Pad<N> {
    const GLSL: GlslType = GlslType::PADDING;
    const STD140: StdLayout = Ok(padding_layout(N));
    const STD430: StdLayout = Ok(padding_layout(N));
}

const fn padding_layout(n: usize) -> TypeLayout {
    TypeLayout {
        align: 1,
        size: n as u32,
        array_stride: n as u32,
    }
}

// SAFETY: `array_layout` accepts only element types whose Rust size equals the std array stride, so element `i`
// sits at `i * stride` in both.
unsafe impl<T: ShaderType, const N: usize> ShaderType for [T; N] {
    const GLSL: GlslType = GlslType {
        kind: T::GLSL.kind,
        array: Some(N as u32),
    };
    const STD140: StdLayout = array_layout::<T>(N, Rules::Std140);
    const STD430: StdLayout = array_layout::<T>(N, Rules::Std430);
}

/// The layout of `[T; n]` under `rules` (the array rule of `layout_fields`), or why Rust's array differs.
pub const fn array_layout<T: ShaderType>(n: usize, rules: Rules) -> StdLayout {
    let rust_stride = size_of::<T>() as u32;
    if T::GLSL.is_padding() {
        return Ok(padding_layout(n * size_of::<T>()));
    }
    if T::GLSL.array.is_some() {
        return Err(Message::new().str(
            "arrays of arrays are not supported: flatten it to one array, or wrap the inner array in a shared struct",
        ));
    }
    if n == 0 {
        return Err(Message::new().str("GLSL has no zero-length arrays: remove the field"));
    }
    let elem = match std_layout::<T>(rules) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    let align = rules.aggregate_align(elem.align);
    let stride = round_up(elem.size, align);
    if stride != rust_stride {
        return Err(Message::new()
            .str("array elements are ")
            .num(rust_stride)
            .str(" bytes apart in Rust but ")
            .str(rules.glsl_name())
            .str(" puts them ")
            .num(stride)
            .str(" bytes apart: use an element type of ")
            .num(stride)
            .str(" bytes (Vec3 -> Vec3A, f32 -> Vec4, or a shared struct with padding)")
            .str(if matches!(rules, Rules::Std140) {
                ", or std430"
            } else {
                ""
            }));
    }
    Ok(TypeLayout {
        align,
        size: stride * n as u32,
        array_stride: stride * n as u32,
    })
}

/// Which rule sets a shared struct is proven for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet {
    pub std140: bool,
    pub std430: bool,
}

impl RuleSet {
    /// Both, the default of `#[derive(ShaderStruct)]`.
    pub const BOTH: RuleSet = RuleSet {
        std140: true,
        std430: true,
    };

    /// True when `rules` is in the set.
    pub const fn has(self, rules: Rules) -> bool {
        match rules {
            Rules::Std140 => self.std140,
            Rules::Std430 => self.std430,
        }
    }
}

/// One field of a shared struct as the layout proof sees it.
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    pub name: &'static str,
    pub glsl: GlslType,
    pub std140: StdLayout,
    pub std430: StdLayout,
    /// `offset_of!` the field (for `auto_pad`'s table, where the struct does not exist yet: 0).
    pub rust_offset: u32,
    pub rust_size: u32,
}

/// A Rust size or offset as the layout checks compare it: past `u32::MAX` it stays `u32::MAX` (which no GLSL layout
/// reaches, so the check fails) instead of wrapping to a small number that could match one (a 4 GiB `Pad` field).
pub const fn byte_count(n: usize) -> u32 {
    if n > u32::MAX as usize {
        u32::MAX
    } else {
        n as u32
    }
}

impl FieldInfo {
    /// The facts of a field of type `T` at Rust offset `rust_offset`.
    pub const fn new<T: ShaderType>(name: &'static str, rust_offset: usize) -> FieldInfo {
        FieldInfo {
            name,
            glsl: T::GLSL,
            std140: T::STD140,
            std430: T::STD430,
            rust_offset: byte_count(rust_offset),
            rust_size: byte_count(size_of::<T>()),
        }
    }

    /// The layout under `rules`.
    pub const fn layout(&self, rules: Rules) -> StdLayout {
        match rules {
            Rules::Std140 => self.std140,
            Rules::Std430 => self.std430,
        }
    }
}

/// Offset of field `index` under `rules` (padding fields are not GLSL members; they get the offset the next member
/// would), and the end of the member.
pub const fn std_offset(
    fields: &[FieldInfo],
    index: usize,
    rules: Rules,
) -> Result<(u32, u32), Message> {
    let mut end = 0;
    let mut i = 0;
    while i <= index && i < fields.len() {
        let f = &fields[i];
        if !f.glsl.is_padding() {
            let l = match f.layout(rules) {
                Ok(l) => l,
                Err(e) => return Err(e),
            };
            let offset = round_up(end, l.align);
            if i == index {
                return Ok((offset, offset + l.size));
            }
            end = offset + l.size;
        }
        i += 1;
    }
    Ok((end, end))
}

/// The layout of a shared struct under `rules`, or why it has none (not proven for those rules, or a field has
/// none).
pub const fn struct_layout(
    name: &'static str,
    fields: &[FieldInfo],
    rules: Rules,
    proven: RuleSet,
) -> StdLayout {
    if !proven.has(rules) {
        let other = match rules {
            Rules::Std140 => "std430",
            Rules::Std430 => "std140",
        };
        return Err(Message::new()
            .str("`")
            .str(name)
            .str("` is only proven for ")
            .str(other)
            .str(": add `")
            .str(rules.glsl_name())
            .str("` to its #[shader(..)] attribute to use it in a ")
            .str(rules.glsl_name())
            .str(" block"));
    }
    let mut end = 0;
    let mut max_align = 1;
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        if !f.glsl.is_padding() {
            let l = match f.layout(rules) {
                Ok(l) => l,
                Err(e) => return Err(Message::new().str("`").str(f.name).str("`: ").msg(&e)),
            };
            end = round_up(end, l.align) + l.size;
            if l.align > max_align {
                max_align = l.align;
            }
        }
        i += 1;
    }
    let align = rules.aggregate_align(max_align);
    let size = round_up(end, align);
    Ok(TypeLayout {
        align,
        size,
        array_stride: size,
    })
}

const fn padding_hint(m: Message, bytes: u32) -> Message {
    m.str("add ")
        .num(bytes)
        .str(" bytes of padding before it (`_pad: Pad<")
        .num(bytes)
        .str(">`)")
}

/// Proves field `index`: its type has a layout under every rule of `proven`, Rust put no hidden padding before it,
/// both rule sets agree on its offset, and its Rust offset is the std offset. `None` when all hold.
pub const fn check_field(fields: &[FieldInfo], index: usize, proven: RuleSet) -> Option<Message> {
    let f = &fields[index];
    let prev_end = if index == 0 {
        0
    } else {
        fields[index - 1].rust_offset + fields[index - 1].rust_size
    };
    if f.rust_offset > prev_end {
        let gap = f.rust_offset - prev_end;
        return Some(
            Message::new()
                .str("Rust inserts ")
                .num(gap)
                .str(" bytes of hidden padding before `")
                .str(f.name)
                .str("` (uninitialised memory cannot be uploaded): declare them with a `Pad<")
                .num(gap)
                .str(">` field before it"),
        );
    }
    if f.glsl.is_padding() {
        return None;
    }
    let mut r = 0;
    let mut offsets = [0u32; 2];
    while r < 2 {
        let rules = if r == 0 { Rules::Std140 } else { Rules::Std430 };
        if proven.has(rules) {
            match std_offset(fields, index, rules) {
                Ok((o, _)) => offsets[r] = o,
                Err(e) => {
                    return Some(
                        Message::new()
                            .str("`")
                            .str(f.name)
                            .str("` cannot be laid out by ")
                            .str(rules.glsl_name())
                            .str(": ")
                            .msg(&e),
                    );
                }
            }
        }
        r += 1;
    }
    if proven.std140 && proven.std430 && offsets[0] != offsets[1] {
        return Some(
            Message::new()
                .str("std140 puts `")
                .str(f.name)
                .str("` at offset ")
                .num(offsets[0])
                .str(" but std430 at ")
                .num(offsets[1])
                .str(", so one Rust struct cannot match both: pick one with #[shader(std140)] or #[shader(std430)]"),
        );
    }
    let (expected, rules) = if proven.std140 {
        (offsets[0], Rules::Std140)
    } else {
        (offsets[1], Rules::Std430)
    };
    if f.rust_offset != expected {
        let m = Message::new()
            .str("`")
            .str(f.name)
            .str("` is at offset ")
            .num(f.rust_offset)
            .str(" but ")
            .str(rules.glsl_name())
            .str(" puts it at ")
            .num(expected)
            .str(": ");
        return Some(if f.rust_offset < expected {
            padding_hint(m, expected - f.rust_offset)
        } else {
            m.str("remove ")
                .num(f.rust_offset - expected)
                .str(" bytes of padding before it")
        });
    }
    None
}

/// Proves the struct as a whole: no hidden tail padding, and its Rust size equals its std size (a multiple of its
/// block alignment) under every rule of `proven`.
pub const fn check_struct(
    name: &'static str,
    fields: &[FieldInfo],
    rust_size: usize,
    proven: RuleSet,
) -> Option<Message> {
    let rust_size = rust_size as u32;
    // A field's own error explains the problem better than its consequence on the struct's size.
    let mut i = 0;
    while i < fields.len() {
        if check_field(fields, i, proven).is_some() {
            return None;
        }
        i += 1;
    }
    if fields.is_empty() {
        return Some(
            Message::new()
                .str("`")
                .str(name)
                .str("` has no fields: GLSL structs need at least one member"),
        );
    }
    let last = &fields[fields.len() - 1];
    let rust_end = last.rust_offset + last.rust_size;
    if rust_size > rust_end {
        return Some(
            Message::new()
                .str("Rust adds ")
                .num(rust_size - rust_end)
                .str(" bytes of hidden padding at the end of `")
                .str(name)
                .str("` (uninitialised memory cannot be uploaded): add `_pad_end: Pad<")
                .num(rust_size - rust_end)
                .str(">` as the last field"),
        );
    }
    let mut r = 0;
    while r < 2 {
        let rules = if r == 0 { Rules::Std140 } else { Rules::Std430 };
        r += 1;
        if !proven.has(rules) {
            continue;
        }
        let l = match struct_layout(name, fields, rules, proven) {
            Ok(l) => l,
            Err(e) => return Some(e),
        };
        if l.size != rust_size {
            let m = Message::new()
                .str("`")
                .str(name)
                .str("` is ")
                .num(rust_size)
                .str(" bytes but its ")
                .str(rules.glsl_name())
                .str(" size is ")
                .num(l.size)
                .str(" (a multiple of its ")
                .num(l.align)
                .str("-byte alignment): ");
            return Some(if rust_size < l.size {
                m.str("add `_pad_end: Pad<")
                    .num(l.size - rust_size)
                    .str(">` as the last field")
            } else {
                m.str("remove ")
                    .num(rust_size - l.size)
                    .str(" bytes of padding at the end")
            });
        }
    }
    None
}

/// For `#[shader_struct(auto_pad)]`: the padding to insert before user field `index` (or after the last field when
/// `index == fields.len()`) so that Rust offsets equal `rules` offsets. Fields carry no Rust offsets here; they are
/// packed one after another, which `repr(C)` does because std alignments are at least Rust's.
pub const fn auto_pad(fields: &[FieldInfo], index: usize, rules: Rules) -> usize {
    let mut rust_end = 0;
    let mut std_end = 0;
    let mut max_align = 1;
    let mut i = 0;
    while i < fields.len() {
        let l = match fields[i].layout(rules) {
            Ok(l) => l,
            // The proof on the rewritten struct reports it.
            Err(_) => return 0,
        };
        let offset = round_up(std_end, l.align);
        let pad = offset.saturating_sub(rust_end);
        if i == index {
            return pad as usize;
        }
        rust_end += pad + fields[i].rust_size;
        std_end = offset + l.size;
        if l.align > max_align {
            max_align = l.align;
        }
        i += 1;
    }
    let align = rules.aggregate_align(max_align);
    round_up(std_end, align).saturating_sub(rust_end) as usize
}

/// [`auto_pad`] before the field named `name`: the table is the struct's fields as the compiler keeps them (a field
/// under a `#[cfg]` that is off is not in it), so an index taken when the attribute ran would name another field.
/// A name not in the table pads nothing (the proof on the rewritten struct reports any gap left).
pub const fn auto_pad_before(fields: &[FieldInfo], name: &str, rules: Rules) -> usize {
    let mut i = 0;
    while i < fields.len() {
        let (a, b) = (fields[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return auto_pad(fields, i, rules);
            }
        }
        i += 1;
    }
    0
}

/// The push-constant block is at most [`MAX_PUSH_CONSTANTS_SIZE`] bytes (past 128 it is spilled).
pub const fn check_push_constants(name: &'static str, rust_size: usize) -> Option<Message> {
    if rust_size > MAX_PUSH_CONSTANTS_SIZE as usize {
        return Some(
            Message::new()
                .str("the push constants of `")
                .str(name)
                .str("` are ")
                .num(byte_count(rust_size))
                .str(" bytes; blocks over 128 bytes are spilled to a storage buffer, but only up to ")
                .num(MAX_PUSH_CONSTANTS_SIZE)
                .str(": move the larger members into a uniform or storage buffer"),
        );
    }
    None
}

/// A push-constant member must be a built-in type, an enum or an array of them (the builder's push constants are
/// typed values).
pub const fn check_push_constant_field(field: &FieldInfo) -> Option<Message> {
    if let GlslKind::Struct(s) = field.glsl.kind {
        return Some(
            Message::new()
                .str("push constant `")
                .str(field.name)
                .str("` is the struct `")
                .str(s)
                .str("`, but push constants are plain values: make its members fields of this struct"),
        );
    }
    None
}

/// The distinct enums the fields use, in field order, padded with `""` to `N` entries, and how many there are.
pub const fn enum_names<const N: usize>(fields: &[FieldInfo]) -> ([&'static str; N], usize) {
    let mut out = [""; N];
    let mut count = 0;
    let mut i = 0;
    while i < fields.len() {
        if let Some(name) = fields[i].glsl.enum_name() {
            let mut seen = false;
            let mut j = 0;
            while j < count {
                if str_eq(out[j], name) {
                    seen = true;
                }
                j += 1;
            }
            if !seen && count < N {
                out[count] = name;
                count += 1;
            }
        }
        i += 1;
    }
    (out, count)
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The GLSL struct definition of a shared struct (padding left out).
pub fn struct_def(name: &str, fields: &[FieldInfo]) -> StructDef {
    StructDef {
        name: name.to_string(),
        fields: fields.iter().filter_map(|f| f.glsl.field(f.name)).collect(),
    }
}

/// Rust offsets of the GLSL members (padding left out), as [`crate::StructRegistration::rust_offsets`] wants them.
pub fn member_offsets(fields: &[FieldInfo]) -> Vec<u32> {
    fields
        .iter()
        .filter(|f| !f.glsl.is_padding())
        .map(|f| f.rust_offset)
        .collect()
}

/// Adds the struct's fields as the info's push constants, in order (padding left out, enums as `uint`).
#[track_caller]
pub fn add_push_constants(mut info: ShaderCreateInfo, fields: &[FieldInfo]) -> ShaderCreateInfo {
    for f in fields {
        let ty = match f.glsl.kind {
            GlslKind::Value(t) => t,
            GlslKind::Enum(_) => Type::Uint,
            // Rejected at compile time by `check_push_constant_field`.
            GlslKind::Struct(_) | GlslKind::Padding => continue,
        };
        info = match f.glsl.array {
            Some(n) => info.push_constant_array(ty, f.name, n),
            None => info.push_constant(ty, f.name),
        };
    }
    info
}

/// A resource's descriptor set and binding, as `#[derive(ShaderInfo)]` exposes them (`MyShader::COLOR_TEX`).
///
/// ```
/// use shader_info::{Binding, Frequency};
/// const B: Binding = Binding::new(Frequency::Batch, 2);
/// assert_eq!((B.set, B.binding), (1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
}

impl Binding {
    /// The binding `slot` in the set of `frequency`.
    pub const fn new(frequency: crate::types::Frequency, slot: u32) -> Binding {
        Binding {
            set: frequency.set(),
            binding: slot,
        }
    }
}

/// Resource `index` must not share its set and binding with an earlier resource of the same declaration.
pub const fn check_binding(bindings: &[(Binding, &'static str)], index: usize) -> Option<Message> {
    let (b, name) = bindings[index];
    let mut i = 0;
    while i < index {
        let (other, other_name) = bindings[i];
        if other.set == b.set && other.binding == b.binding {
            return Some(
                Message::new()
                    .str("binding ")
                    .num(b.binding)
                    .str(" of set ")
                    .num(b.set)
                    .str(" is already used by `")
                    .str(other_name)
                    .str("`: give `")
                    .str(name)
                    .str("` another slot or frequency"),
            );
        }
        i += 1;
    }
    None
}

#[doc(hidden)]
pub mod __private {
    //! Items the derive macros' generated code uses. Not a public API.
    pub use super::{
        Binding, FieldInfo, GlslType, Message, RuleSet, StdLayout, TypeLayout, add_push_constants,
        auto_pad, auto_pad_before, byte_count, check_binding, check_field,
        check_push_constant_field, check_push_constants, check_struct, enum_names, member_offsets,
        struct_def, struct_layout,
    };
    pub use crate::layout::Rules;
    pub use crate::registry::{EnumDef, EnumRegistration, InfoRegistration, StructRegistration};
    pub use crate::types::{
        BuiltinBits, DepthWrite, DualBlend, Frequency, ImageType, PrimitiveIn, PrimitiveOut,
        Qualifier, Stage, TextureFormat, Type,
    };
    pub use crate::vertex::attribute_problem;
    pub use crate::{ShaderCreateInfo, ShaderType};
    pub use bytemuck;
    pub use inventory;
    pub use std::{string::String, vec::Vec};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{StructMap, layout_fields};

    /// A size past 4 GiB (a `Pad<{1 << 32}>` field) must not wrap into one a check accepts.
    #[test]
    fn sizes_past_u32_stay_past_every_limit() {
        let huge = u32::MAX as usize + 1 + 64;
        assert_eq!(byte_count(huge), u32::MAX);
        assert_eq!(byte_count(64), 64);
        assert!(check_push_constants("p", huge).is_some());
        assert!(check_push_constants("p", 64).is_none());
    }

    #[test]
    fn messages_format_numbers() {
        const M: Message = Message::new()
            .str("a ")
            .num(0)
            .str(" b ")
            .num(4_294_967_295);
        assert_eq!(M.as_str(), "a 0 b 4294967295");
        let long = Message::new().str(&"é".repeat(400));
        assert_eq!(long.as_str().len() % 2, 0);
    }

    #[test]
    fn value_types_match_their_rust_size() {
        fn check<T: ShaderType>() {
            for rules in [Rules::Std140, Rules::Std430] {
                if let Ok(l) = std_layout::<T>(rules) {
                    assert!(
                        size_of::<T>() as u32 >= l.size,
                        "{}",
                        std::any::type_name::<T>()
                    );
                }
            }
        }
        check::<glam::Vec3A>();
        check::<glam::Mat3A>();
        check::<glam::Mat2>();
        check::<glam::DVec3>();
        // A double matrix is refused in both rule sets: as a float matrix the GPU would read f64 halves.
        for rules in [Rules::Std140, Rules::Std430] {
            assert!(std_layout::<glam::DMat2>(rules).is_err());
            assert!(std_layout::<glam::DMat4>(rules).is_err());
        }
        assert_eq!(size_of::<glam::Mat3A>(), 48);
        assert_eq!(Type::Mat3.size(Rules::Std430), 48);
        assert_eq!(
            Type::Mat2.size(Rules::Std430),
            size_of::<glam::Mat2>() as u32
        );
    }

    /// The const arithmetic agrees with the run-time engine for every built-in type, alone and in arrays.
    #[test]
    fn const_layouts_agree_with_layout_fields() {
        let types: Vec<(FieldInfo, FieldInfo)> = vec![
            (
                FieldInfo::new::<f32>("a", 0),
                FieldInfo::new::<[glam::Vec4; 2]>("b", 0),
            ),
            (
                FieldInfo::new::<glam::Vec3>("a", 0),
                FieldInfo::new::<f32>("b", 0),
            ),
            (
                FieldInfo::new::<glam::Vec2>("a", 0),
                FieldInfo::new::<glam::Mat4>("b", 0),
            ),
            (
                FieldInfo::new::<u32>("a", 0),
                FieldInfo::new::<[glam::IVec4; 3]>("b", 0),
            ),
            (
                FieldInfo::new::<f64>("a", 0),
                FieldInfo::new::<glam::DVec3>("b", 0),
            ),
            (
                FieldInfo::new::<f32>("a", 0),
                FieldInfo::new::<glam::Mat3A>("b", 0),
            ),
            (
                FieldInfo::new::<f32>("a", 0),
                FieldInfo::new::<[f32; 3]>("b", 0),
            ),
        ];
        for (a, b) in types {
            let fields = [a, b];
            let def = struct_def("S", &fields);
            for rules in [Rules::Std140, Rules::Std430] {
                let Ok(expect) =
                    layout_fields(&def.fields, rules, &StructMap::default(), &mut vec![])
                else {
                    panic!()
                };
                if b.layout(rules).is_err() {
                    continue;
                }
                for (i, m) in expect.members.iter().enumerate() {
                    assert_eq!(
                        std_offset(&fields, i, rules).unwrap().0,
                        m.offset,
                        "{def:?} {rules}"
                    );
                }
                let l = struct_layout("S", &fields, rules, RuleSet::BOTH).unwrap();
                assert_eq!(
                    (l.size, l.align),
                    (expect.size, expect.align),
                    "{def:?} {rules}"
                );
            }
        }
    }

    #[test]
    fn array_strides() {
        assert_eq!(<[glam::Vec3A; 4]>::STD140.unwrap().size, 64);
        let e = <[glam::Vec3; 4]>::STD430.unwrap_err();
        assert_eq!(
            e.as_str(),
            "array elements are 12 bytes apart in Rust but std430 puts them 16 bytes apart: use an element type of 16 \
             bytes (Vec3 -> Vec3A, f32 -> Vec4, or a shared struct with padding)"
        );
        assert!(<[[glam::Vec4; 2]; 2]>::STD430.is_err());
        assert_eq!(<[Pad<4>; 3]>::STD140.unwrap().size, 12);
    }

    #[test]
    fn field_checks_say_what_to_do() {
        let fields = [
            FieldInfo::new::<glam::Vec3>("position", 0),
            FieldInfo::new::<glam::Vec4>("color", 12),
        ];
        let m = check_field(&fields, 1, RuleSet::BOTH).unwrap();
        assert_eq!(
            m.as_str(),
            "`color` is at offset 12 but std140 puts it at 16: add 4 bytes of padding before it (`_pad: Pad<4>`)"
        );
        let fields = [
            FieldInfo::new::<f32>("a", 0),
            FieldInfo::new::<[glam::Vec4; 1]>("b", 16),
        ];
        assert!(
            check_field(&fields, 1, RuleSet::BOTH)
                .unwrap()
                .as_str()
                .contains("hidden padding")
        );
        let fields = [
            FieldInfo::new::<f32>("a", 0),
            FieldInfo::new::<Pad<12>>("p", 4),
            FieldInfo::new::<[glam::Vec4; 1]>("b", 16),
        ];
        assert_eq!(check_field(&fields, 2, RuleSet::BOTH), None);
        assert_eq!(check_struct("S", &fields, 32, RuleSet::BOTH), None);
        assert_eq!(auto_pad(&[fields[0], fields[2]], 1, Rules::Std140), 12);
        assert_eq!(auto_pad(&[fields[0], fields[2]], 2, Rules::Std140), 0);
    }

    #[test]
    fn duplicate_bindings() {
        use crate::types::Frequency;
        let b = [
            (Binding::new(Frequency::Pass, 0), "a"),
            (Binding::new(Frequency::Batch, 0), "b"),
            (Binding::new(Frequency::Pass, 0), "c"),
        ];
        assert_eq!(check_binding(&b, 1), None);
        assert_eq!(
            check_binding(&b, 2).unwrap().as_str(),
            "binding 0 of set 0 is already used by `a`: give `c` another slot or frequency"
        );
    }
}
