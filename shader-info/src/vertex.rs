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

use crate::plan::VertexFormat;

/// One field of a [`ShaderVertex`] struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexField {
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: u32,
    pub format: VertexFormat,
}

/// A `#[repr(C)]` vertex struct (derive it: `#[derive(ShaderVertex)]`).
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
    const FORMAT: VertexFormat;
}

macro_rules! attribute {
    ($($t:ty => $f:ident),* $(,)?) => {
        $(impl VertexAttribute for $t { const FORMAT: VertexFormat = VertexFormat::$f; })*
    };
}

attribute! {
    f32 => Float32, [f32; 2] => Float32x2, [f32; 3] => Float32x3, [f32; 4] => Float32x4,
    glam::Vec2 => Float32x2, glam::Vec3 => Float32x3, glam::Vec4 => Float32x4,
    u32 => Uint32, [u32; 2] => Uint32x2, [u32; 3] => Uint32x3, [u32; 4] => Uint32x4,
    glam::UVec2 => Uint32x2, glam::UVec3 => Uint32x3, glam::UVec4 => Uint32x4,
    i32 => Sint32, [i32; 2] => Sint32x2, [i32; 3] => Sint32x3, [i32; 4] => Sint32x4,
    glam::IVec2 => Sint32x2, glam::IVec3 => Sint32x3, glam::IVec4 => Sint32x4,
}
