//! Host vertex structs proven against a declaration's vertex layout: `#[derive(ShaderVertex)]` on a `#[repr(C)]`
//! struct records each field's name, byte offset and vertex format, and
//! [`PipelinePlan::vertex_problems`](crate::PipelinePlan::vertex_problems) compares them with the plan's
//! interleaved layout, so a struct that drifted from its info is an error naming the field, never a garbled mesh.
//!
//! ```
//! use shader_info::*;
//! #[derive(Clone, Copy, ShaderVertex)]
//! #[repr(C)]
//! struct Vertex {
//!     pos: [f32; 3],
//!     #[vertex(format = "Unorm8x4")]
//!     color: [u8; 4],
//! }
//! let mut reg = Registry::new();
//! reg.add_info(ShaderCreateInfo::new("v")
//!     .vertex_in(0, Type::Vec3, "pos")
//!     .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm8x4, "color")
//!     .vertex_source("v.glsl").fragment_source("f.glsl"));
//! let plan = PipelinePlan::new(&reg.validated("v").unwrap(), &reg);
//! assert!(plan.vertex_problems::<Vertex>().is_empty());
//! ```
//!
//! A matrix input (an instance's transform) is one field whose columns fill consecutive locations:
//!
//! ```
//! use shader_info::*;
//! #[derive(Clone, Copy, ShaderVertex)]
//! #[repr(C)]
//! struct Instance { model: glam::Mat4, normal_matrix: glam::Mat3, pos: [f32; 3] }
//! let mut reg = Registry::new();
//! reg.add_info(ShaderCreateInfo::new("i")
//!     .vertex_in(0, Type::Mat4, "model").vertex_in(4, Type::Mat3, "normal_matrix").vertex_in(7, Type::Vec3, "pos")
//!     .vertex_source("v.glsl").fragment_source("f.glsl"));
//! let plan = PipelinePlan::new(&reg.validated("i").unwrap(), &reg);
//! assert!(plan.vertex_problems::<Instance>().is_empty(), "{:?}", plan.vertex_problems::<Instance>());
//! #[derive(Clone, Copy, ShaderVertex)]
//! #[repr(C)]
//! struct Drifted { model: glam::Mat3, normal_matrix: glam::Mat4, pos: [f32; 3] }
//! let d = plan.vertex_problems::<Drifted>();
//! assert!(d[0].message.contains("3 columns of Float32x3") && d[0].message.contains("4 columns of Float32x4"), "{d:?}");
//! ```

use crate::types::{Scalar, Type};
use serde::Serialize;

/// One field of a [`ShaderVertex`] struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexField {
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: u32,
    /// The format of the field, or of each column of a matrix field.
    pub format: VertexFormat,
    /// Attributes the field fills: a matrix's columns (tightly packed, one location each), else 1.
    pub columns: u32,
}

impl VertexField {
    /// The type the vertex shader reads the field as: the format's scalar kind and components (`Float32x3` a
    /// `vec3`, `Unorm8x4` a `vec4`, `Uint16x2` a `uvec2`), a float matrix for a field of columns (`glam::Mat4`).
    ///
    /// ```
    /// use shader_info::*;
    /// #[derive(Clone, Copy, ShaderVertex)]
    /// #[repr(C)]
    /// struct V { model: glam::Mat4, #[vertex(format = "Unorm8x4")] tint: [u8; 4], id: u32 }
    /// let types: Vec<Type> = V::FIELDS.iter().map(|f| f.shader_type()).collect();
    /// assert_eq!(types, [Type::Mat4, Type::Vec4, Type::Uint]);
    /// ```
    pub fn shader_type(&self) -> Type {
        let (scalar, n) = self.format.reads();
        let vector = |t: &&Type| t.scalar() == scalar && t.shape() == (1, n);
        Type::ALL
            .iter()
            .find(|t| t.scalar() == scalar && t.shape() == (self.columns, n))
            // Columns come only with float matrices (`VertexAttribute`); anything else reads as its vector.
            .or_else(|| Type::ALL.iter().find(vector))
            .copied()
            .unwrap_or(Type::Vec4)
    }
}

/// Why a field of `bytes` bytes cannot be read as `columns` attributes of `format` (a `VertexAttribute` type, checked
/// by `#[derive(ShaderVertex)]` when the crate compiles): only a float matrix has columns (1 to 4 of a vector), and
/// the format, times its columns, must fit in the field's bytes, or it would read the next field's.
#[doc(hidden)]
pub const fn attribute_problem(
    format: VertexFormat,
    columns: u32,
    bytes: usize,
) -> Option<&'static str> {
    let (scalar, components) = format.reads();
    if columns == 0 || columns > 4 {
        return Some(
            "the field's VertexAttribute::COLUMNS is not 1 to 4: a matrix has 2 to 4 columns, anything else 1",
        );
    }
    if columns > 1 && (!matches!(scalar, Scalar::Float | Scalar::Double) || components < 2) {
        return Some(
            "the field's VertexAttribute has COLUMNS but no matrix format: only a float matrix has columns, each a \
             vector of 2 to 4 floats (Float32x2..Float32x4, Float64x2..Float64x4)",
        );
    }
    if format.size() as usize * columns as usize > bytes {
        return Some(
            "the field's VertexAttribute::FORMAT, times its COLUMNS, takes more bytes than the field has: give its \
             type a format of its size",
        );
    }
    None
}

/// Where an input declared from a host struct ([`crate::ShaderCreateInfo::vertex_struct`]) sits in that struct:
/// the pipeline reads its buffer at the field's offset, one struct a step (the struct's size, padding included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostField {
    /// The struct's `std::any::type_name`: it names the struct in messages and tells two structs apart.
    pub struct_name: &'static str,
    /// Byte offset of the field in the struct.
    pub offset: u32,
    /// `size_of` the struct: its buffer's stride.
    pub stride: u32,
}

/// The inputs of host struct `V` for a buffer of `rate`: one per field, in field order from `first_location` (a
/// matrix takes one location per column), named as the field, read as [`VertexField::shader_type`], each with its
/// place in the struct ([`HostField`]).
pub(crate) fn struct_inputs<V: ShaderVertex>(
    first_location: u32,
    rate: VertexRate,
) -> Vec<VertexInput> {
    // Checked when the caller's crate compiles: a struct of padding alone (or none) declares nothing, and the
    // buffer it names would go unread.
    const {
        assert!(
            !V::FIELDS.is_empty(),
            "vertex_struct / instance_struct: the struct has no vertex fields (padding is not read): declare a \
             struct with at least one field the shader reads"
        )
    };
    // Past u32's last location the remaining fields are not declared: the ones before are already past every
    // device's locations, and an error names them.
    let mut location = Some(first_location);
    V::FIELDS
        .iter()
        .map_while(|f| {
            let at = location?;
            let ty = f.shader_type();
            let own = VertexFormat::of(ty.scalar(), ty.shape().1);
            let input = VertexInput {
                location: at,
                ty,
                name: f.name.to_string(),
                format: (own != Some(f.format)).then_some(f.format),
                rate,
                host: Some(HostField {
                    struct_name: std::any::type_name::<V>(),
                    offset: f.offset,
                    stride: V::STRIDE,
                }),
            };
            location = at.checked_add(ty.locations());
            Some(input)
        })
        .collect()
}

/// A type's name without its module path, as a user names it in a builder call (`Vertex`, not
/// `my_crate::mesh::Vertex`).
pub(crate) fn short_name(type_name: &str) -> &str {
    type_name.rsplit("::").next().unwrap_or(type_name)
}

/// A `#[repr(C)]` vertex struct (derive it: `#[derive(ShaderVertex)]`).
///
/// Written by hand, its claims are checked where the struct declares inputs
/// ([`crate::ShaderCreateInfo::vertex_struct`]): fields within `STRIDE` and apart (at validation, naming the field),
/// and at least one field (when the crate builds):
///
/// ```compile_fail
/// use shader_info::*;
/// #[derive(Clone, Copy)]
/// struct Nothing;
/// impl ShaderVertex for Nothing {
///     const FIELDS: &'static [VertexField] = &[];
///     const STRIDE: u32 = 16;
/// }
/// let _ = ShaderCreateInfo::new("mesh").vertex_struct::<Nothing>(0); // the struct has no vertex fields
/// ```
pub trait ShaderVertex: Copy + 'static {
    /// The fields in declaration order (padding left out).
    const FIELDS: &'static [VertexField];
    /// `size_of::<Self>()`: the vertex buffer's stride.
    const STRIDE: u32;
}

/// The vertex format a Rust field type is stored as, for the types whose format is unambiguous (32-bit scalars
/// and vectors). Packed fields (`[u8; 4]`, `[u16; 2]`, …) name theirs: `#[vertex(format = "Unorm8x4")]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is stored in more than one vertex format (or none)",
    label = "name its format: `#[vertex(format = \"Unorm8x4\")]` (a shader_info::VertexFormat)"
)]
pub trait VertexAttribute {
    /// The format of the value, or of each column of a matrix.
    const FORMAT: VertexFormat;
    /// Columns of a matrix (one attribute each, tightly packed); 1 for scalars and vectors.
    const COLUMNS: u32 = 1;
}

macro_rules! matrix_attribute {
    ($($t:ty => $f:ident * $n:literal),* $(,)?) => {
        $(impl VertexAttribute for $t {
            const FORMAT: VertexFormat = VertexFormat::$f;
            const COLUMNS: u32 = $n;
        })*
    };
}

// Tightly packed columns, as a mat input's attributes are read (`glam::Mat3A`'s padded columns are not).
matrix_attribute! {
    glam::Mat2 => Float32x2 * 2, glam::Mat3 => Float32x3 * 3, glam::Mat4 => Float32x4 * 4,
    [[f32; 2]; 2] => Float32x2 * 2, [[f32; 3]; 3] => Float32x3 * 3, [[f32; 4]; 4] => Float32x4 * 4,
}

macro_rules! attribute {
    ($($t:ty => $f:ident),* $(,)?) => {
        $(impl VertexAttribute for $t { const FORMAT: VertexFormat = VertexFormat::$f; })*
    };
}

// `glam::Vec3A` is three floats read from the first 12 of its 16 bytes: its fourth lane is padding, which a struct
// declared as the buffer (`vertex_struct`) steps over by its offsets.
attribute! {
    f32 => Float32, [f32; 2] => Float32x2, [f32; 3] => Float32x3, [f32; 4] => Float32x4,
    glam::Vec2 => Float32x2, glam::Vec3 => Float32x3, glam::Vec3A => Float32x3, glam::Vec4 => Float32x4,
    u32 => Uint32, [u32; 2] => Uint32x2, [u32; 3] => Uint32x3, [u32; 4] => Uint32x4,
    glam::UVec2 => Uint32x2, glam::UVec3 => Uint32x3, glam::UVec4 => Uint32x4,
    i32 => Sint32, [i32; 2] => Sint32x2, [i32; 3] => Sint32x3, [i32; 4] => Sint32x4,
    glam::IVec2 => Sint32x2, glam::IVec3 => Sint32x3, glam::IVec4 => Sint32x4,
}

/// The scalar a vertex struct's field holds, for checking a format named with `#[vertex(format = "…")]` against it
/// when the crate compiles: `[i16; 2]` named `Unorm16x2`, or a `u32` named `Float32`, would be read as other values
/// than the host wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageScalar {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    F64,
}

/// A field type a named vertex format may be read from: the scalar it holds. Implemented for the
/// scalars, arrays of them and glam's vectors (8- and 16-bit ones included); a newtype of the crate's own
/// (`#[repr(transparent)] struct Rgba(u32)`) implements it to be named a format.
#[diagnostic::on_unimplemented(
    message = "`{Self}` holds no plain scalars a vertex format can be checked against",
    label = "use an array of scalars (`[u8; 4]`, `[i16; 2]`, `[u16; 2]` for half floats, …)"
)]
pub trait VertexStorage {
    const SCALAR: StorageScalar;
}

macro_rules! storage {
    ($($t:ty => $s:ident),* $(,)?) => {
        $(impl VertexStorage for $t { const SCALAR: StorageScalar = StorageScalar::$s; }
          impl<const N: usize> VertexStorage for [$t; N] { const SCALAR: StorageScalar = StorageScalar::$s; })*
    };
}

storage! { u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32, f64 => F64 }

macro_rules! glam_storage {
    ($($t:ty => $s:ident),* $(,)?) => {
        $(impl VertexStorage for $t { const SCALAR: StorageScalar = StorageScalar::$s; })*
    };
}

glam_storage! {
    glam::U8Vec2 => U8, glam::U8Vec3 => U8, glam::U8Vec4 => U8,
    glam::I8Vec2 => I8, glam::I8Vec3 => I8, glam::I8Vec4 => I8,
    glam::U16Vec2 => U16, glam::U16Vec3 => U16, glam::U16Vec4 => U16,
    glam::I16Vec2 => I16, glam::I16Vec3 => I16, glam::I16Vec4 => I16,
    glam::Vec2 => F32, glam::Vec3 => F32, glam::Vec3A => F32, glam::Vec4 => F32,
    glam::UVec2 => U32, glam::UVec3 => U32, glam::UVec4 => U32,
    glam::IVec2 => I32, glam::IVec3 => I32, glam::IVec4 => I32,
    glam::DVec2 => F64, glam::DVec3 => F64, glam::DVec4 => F64,
}

/// Whose rules a vertex buffer's layout is read by. Vulkan reads each component at a multiple of its size (a
/// packed format, `Unorm10_10_10_2`, at a multiple of its whole size), every vertex alike; WebGPU reads each
/// attribute at a multiple of 4 or of its size where that is smaller, and takes strides that are multiples of 4.
///
/// ```
/// use shader_info::{VertexFormat as F, VertexRules as R};
/// assert_eq!(R::Vulkan.offset_alignment(F::Unorm8x4), 1);
/// assert_eq!(R::WebGpu.offset_alignment(F::Unorm8x4), 4);
/// assert_eq!(R::Vulkan.offset_alignment(F::Float16x2), 2);
/// assert_eq!(R::WebGpu.offset_alignment(F::Unorm8x2), 2);
/// assert_eq!(R::WebGpu.stride_alignment(F::Unorm8x2), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexRules {
    Vulkan,
    WebGpu,
}

impl VertexRules {
    /// What an attribute of `format`'s offset in a vertex must be a multiple of.
    pub const fn offset_alignment(self, format: VertexFormat) -> u32 {
        match self {
            VertexRules::Vulkan => format.component_size(),
            VertexRules::WebGpu => {
                if format.size() < 4 {
                    format.size()
                } else {
                    4
                }
            }
        }
    }

    /// What a buffer holding an attribute of `format` must have a stride a multiple of.
    pub const fn stride_alignment(self, format: VertexFormat) -> u32 {
        match self {
            VertexRules::Vulkan => format.component_size(),
            VertexRules::WebGpu => {
                if format.component_size() > 4 {
                    format.component_size()
                } else {
                    4
                }
            }
        }
    }

    /// The API, for messages.
    pub const fn api(self) -> &'static str {
        match self {
            VertexRules::Vulkan => "Vulkan",
            VertexRules::WebGpu => "WebGPU",
        }
    }
}

/// A `vertex_in` (or `instance_in`) attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VertexInput {
    pub location: u32,
    pub ty: Type,
    pub name: String,
    /// The format in the vertex buffer, when it is not the input type's own (`vertex_in_packed`).
    pub format: Option<VertexFormat>,
    /// Whether the input advances per vertex or per instance.
    pub rate: VertexRate,
    /// The host struct field it was declared from (`vertex_struct`, `instance_struct`); `None`: the buffer is
    /// packed in location order.
    pub host: Option<HostField>,
}

/// What a device allows a pipeline's vertex input: buffers (Vulkan's `maxVertexInputBindings`, at least 16;
/// WebGPU's `maxVertexBuffers`, 8 by default), the stride of one buffer (`maxVertexInputBindingStride`,
/// `maxVertexBufferArrayStride`) and an attribute's offset inside it (Vulkan's `maxVertexInputAttributeOffset`,
/// at least 2,047). Validation keeps inputs within the 16 locations both APIs guarantee, so their count needs no
/// limit; their offsets do once a host struct places them (`Pad` fields can put one past 2,047 bytes on a device
/// whose stride limit is higher).
///
/// ```
/// use shader_info::VertexInputLimits;
/// // WebGPU has no offset limit of its own: an attribute ends inside its stride, which the stride limit bounds.
/// let webgpu = VertexInputLimits { buffers: 8, stride: 2048, attribute_offset: 2048 };
/// assert!(webgpu.attribute_offset >= 2047);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexInputLimits {
    /// Vertex buffers one pipeline reads.
    pub buffers: u32,
    /// Bytes of one buffer's step.
    pub stride: u32,
    /// The largest byte offset of an attribute inside its buffer's step.
    pub attribute_offset: u32,
}

/// How often a vertex input advances: its buffer's input rate (Vulkan) or step mode (WebGPU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum VertexRate {
    /// One value per vertex (`vertex_in`).
    #[default]
    Vertex,
    /// One value per instance of an instanced draw (`instance_in`).
    Instance,
}

impl VertexRate {
    /// The builder item that declares an input of this rate, for messages.
    pub const fn item(self) -> &'static str {
        match self {
            VertexRate::Vertex => "vertex_in",
            VertexRate::Instance => "instance_in",
        }
    }

    /// What one step of a buffer of this rate is, for messages.
    pub const fn step(self) -> &'static str {
        match self {
            VertexRate::Vertex => "vertex",
            VertexRate::Instance => "instance",
        }
    }
}

/// A vertex attribute format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[allow(missing_docs)]
pub enum VertexFormat {
    Float32,
    Float32x2,
    Float32x3,
    Float32x4,
    Sint32,
    Sint32x2,
    Sint32x3,
    Sint32x4,
    Uint32,
    Uint32x2,
    Uint32x3,
    Uint32x4,
    Float64,
    Float64x2,
    Float64x3,
    Float64x4,
    // Packed formats, declared with `vertex_in_packed`: normalized and small integers, half floats, 10:10:10:2.
    Unorm8x2,
    Unorm8x4,
    Snorm8x2,
    Snorm8x4,
    Uint8x2,
    Uint8x4,
    Sint8x2,
    Sint8x4,
    Unorm16x2,
    Unorm16x4,
    Snorm16x2,
    Snorm16x4,
    Uint16x2,
    Uint16x4,
    Sint16x2,
    Sint16x4,
    Float16x2,
    Float16x4,
    /// `A2B10G10R10_UNORM_PACK32`: x, y, z in 10 bits, w in 2 (normals, tangents with a sign).
    Unorm10_10_10_2,
}

impl VertexFormat {
    /// The format of a scalar or vector of `scalar` with `n` components; `None` for `bool` (not a vertex type).
    pub fn of(scalar: Scalar, n: u32) -> Option<VertexFormat> {
        use VertexFormat::*;
        let table = match scalar {
            Scalar::Float => [Float32, Float32x2, Float32x3, Float32x4],
            Scalar::Int => [Sint32, Sint32x2, Sint32x3, Sint32x4],
            Scalar::Uint => [Uint32, Uint32x2, Uint32x3, Uint32x4],
            Scalar::Double => [Float64, Float64x2, Float64x3, Float64x4],
            Scalar::Bool => return None,
        };
        table.get(n.checked_sub(1)? as usize).copied()
    }

    /// Bytes one attribute of this format takes in a vertex buffer.
    pub const fn size(self) -> u32 {
        use VertexFormat::*;
        match self {
            Unorm8x2 | Snorm8x2 | Uint8x2 | Sint8x2 => 2,
            Float32 | Sint32 | Uint32 => 4,
            Unorm8x4 | Snorm8x4 | Uint8x4 | Sint8x4 => 4,
            Unorm16x2 | Snorm16x2 | Uint16x2 | Sint16x2 | Float16x2 | Unorm10_10_10_2 => 4,
            Unorm16x4 | Snorm16x4 | Uint16x4 | Sint16x4 | Float16x4 => 8,
            Float32x2 | Sint32x2 | Uint32x2 | Float64 => 8,
            Float32x3 | Sint32x3 | Uint32x3 => 12,
            Float32x4 | Sint32x4 | Uint32x4 | Float64x2 => 16,
            Float64x3 => 24,
            Float64x4 => 32,
        }
    }

    /// Whether a field of `scalar`s holds what this format reads: the format's own component scalar
    /// (`Unorm8x4` reads `u8`s, `Snorm16x2` `i16`s, `Float16x2` the `u16` bits of halves, `Float32x3` `f32`s), or
    /// unsigned words holding a packed format's bits (a `u32` for `Unorm8x4` or `Unorm10_10_10_2`, `[u32; 2]`
    /// for `Float16x4`). Sizes are compared apart.
    ///
    /// ```
    /// use shader_info::{StorageScalar as S, VertexFormat as F};
    /// assert!(F::Unorm16x2.reads_from(S::U16));
    /// assert!(!F::Unorm16x2.reads_from(S::I16));
    /// assert!(F::Unorm8x4.reads_from(S::U32));
    /// assert!(F::Float16x4.reads_from(S::U32));
    /// assert!(!F::Float32.reads_from(S::U32));
    /// ```
    pub const fn reads_from(self, scalar: StorageScalar) -> bool {
        use StorageScalar as S;
        use VertexFormat::*;
        let own = match self {
            Unorm8x2 | Unorm8x4 | Uint8x2 | Uint8x4 => S::U8,
            Snorm8x2 | Snorm8x4 | Sint8x2 | Sint8x4 => S::I8,
            Unorm16x2 | Unorm16x4 | Uint16x2 | Uint16x4 | Float16x2 | Float16x4 => S::U16,
            Snorm16x2 | Snorm16x4 | Sint16x2 | Sint16x4 => S::I16,
            Uint32 | Uint32x2 | Uint32x3 | Uint32x4 | Unorm10_10_10_2 => S::U32,
            Sint32 | Sint32x2 | Sint32x3 | Sint32x4 => S::I32,
            Float32 | Float32x2 | Float32x3 | Float32x4 => S::F32,
            Float64 | Float64x2 | Float64x3 | Float64x4 => S::F64,
        };
        let packed = self.component_size() < 4 || matches!(self, Unorm10_10_10_2);
        own as u8 == scalar as u8 || (packed && matches!(scalar, S::U16 | S::U32))
    }

    /// Bytes of one component (of the whole attribute for a packed format): what Vulkan aligns it to.
    pub const fn component_size(self) -> u32 {
        match self {
            VertexFormat::Unorm10_10_10_2 => 4,
            _ => self.size() / self.component_count(),
        }
    }

    /// Components of the format.
    const fn component_count(self) -> u32 {
        use VertexFormat::*;
        match self {
            Float32 | Sint32 | Uint32 | Float64 => 1,
            Float32x2 | Sint32x2 | Uint32x2 | Float64x2 | Unorm8x2 | Snorm8x2 | Uint8x2
            | Sint8x2 | Unorm16x2 | Snorm16x2 | Uint16x2 | Sint16x2 | Float16x2 => 2,
            Float32x3 | Sint32x3 | Uint32x3 | Float64x3 => 3,
            _ => 4,
        }
    }

    /// What the vertex shader reads from this format: the scalar kind and the number of components. Normalized
    /// and half-float formats read as `float`s, the integer ones as `int`s or `uint`s.
    ///
    /// ```
    /// use shader_info::{Scalar, VertexFormat};
    /// assert_eq!(VertexFormat::Unorm8x4.reads(), (Scalar::Float, 4));
    /// assert_eq!(VertexFormat::Uint16x2.reads(), (Scalar::Uint, 2));
    /// ```
    pub const fn reads(self) -> (Scalar, u32) {
        use VertexFormat::*;
        match self {
            Float32 => (Scalar::Float, 1),
            Float32x2 | Unorm8x2 | Snorm8x2 | Unorm16x2 | Snorm16x2 | Float16x2 => {
                (Scalar::Float, 2)
            }
            Float32x3 => (Scalar::Float, 3),
            Float32x4 | Unorm8x4 | Snorm8x4 | Unorm16x4 | Snorm16x4 | Float16x4
            | Unorm10_10_10_2 => (Scalar::Float, 4),
            Sint32 => (Scalar::Int, 1),
            Sint32x2 | Sint8x2 | Sint16x2 => (Scalar::Int, 2),
            Sint32x3 => (Scalar::Int, 3),
            Sint32x4 | Sint8x4 | Sint16x4 => (Scalar::Int, 4),
            Uint32 => (Scalar::Uint, 1),
            Uint32x2 | Uint8x2 | Uint16x2 => (Scalar::Uint, 2),
            Uint32x3 => (Scalar::Uint, 3),
            Uint32x4 | Uint8x4 | Uint16x4 => (Scalar::Uint, 4),
            Float64 => (Scalar::Double, 1),
            Float64x2 => (Scalar::Double, 2),
            Float64x3 => (Scalar::Double, 3),
            Float64x4 => (Scalar::Double, 4),
        }
    }

    /// Why a `vertex_in` of type `ty` cannot be read from this format, or `None` when it can: the scalar kinds
    /// must agree (Vulkan reads normalized data into floats only), and a matrix or a 64-bit input takes no packed
    /// format. A format with more components than the input is fine (the rest are dropped); one with fewer fills
    /// the missing ones with 0, 0, 1.
    pub fn problem_with(self, ty: Type) -> Option<String> {
        let (scalar, _) = self.reads();
        if ty.is_matrix() {
            return Some(format!(
                "a matrix input reads one 32-bit column per location, not {self:?}"
            ));
        }
        if ty.scalar() != scalar {
            let fits = match ty.scalar() {
                Scalar::Float => "a float, normalized (Unorm/Snorm) or half-float format",
                Scalar::Int => "a signed integer (Sint) format",
                Scalar::Uint => "an unsigned integer (Uint) format",
                Scalar::Double => "a 64-bit float format",
                Scalar::Bool => "no format (bool is not a vertex type)",
            };
            return Some(format!(
                "`{}` reads {:?}s, but {self:?} gives {:?}s: use {fits}",
                ty.glsl_name(),
                ty.scalar(),
                scalar
            ));
        }
        None
    }
}
