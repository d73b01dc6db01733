//! # shader-info
//!
//! Declare each shader's interface once, in Rust, and generate everything else from it: the GLSL declarations of
//! every stage (with a source map back to your files), std140/std430 layouts, and the registry the compiler, the
//! static-compilation pass and the Vulkan backend work from.
//!
//! ```
//! use shader_info::*;
//!
//! let iface = StageInterfaceInfo::new("color_iface", "").smooth(Type::Vec4, "color");
//! let mut registry = Registry::new();
//! registry.add_info(
//!     ShaderCreateInfo::new("flat_color")
//!         .vertex_in(0, Type::Vec3, "pos")
//!         .vertex_in(1, Type::Vec4, "col")
//!         .vertex_out(&iface)
//!         .fragment_out(0, Type::Vec4, "frag_color")
//!         .push_constant(Type::Mat4, "mvp")
//!         .vertex_source("flat_color.vert.glsl")
//!         .fragment_source("flat_color.frag.glsl")
//!         .do_static_compilation(true),
//! );
//! let loader = MemoryLoader::default()
//!     .with("flat_color.vert.glsl", "void main() { color = col; gl_Position = mvp * vec4(pos, 1.0); }")
//!     .with("flat_color.frag.glsl", "void main() { frag_color = color; }");
//! let info = registry.resolve("flat_color").unwrap();
//! let opts = GenerateOptions { loader: &loader, registry: &registry, extra_defines: &[] };
//! let vert = generate(&info, Stage::Vertex, &opts).unwrap();
//! println!("{}", vert.source);
//! assert!(vert.source.contains("layout(location = 0) out color_iface {"));
//! ```
//!
//! Data flows one way: declare → register → resolve `additional_info` → validate → generate; the `gpu` crate
//! compiles and creates pipelines from there.

mod diagnostic;
mod generate;
mod info;
pub mod layout;
mod registry;
mod resolve;
mod shared;
mod types;
mod validate;
mod variants;

pub use diagnostic::*;
pub use generate::*;
pub use info::*;
pub use layout::{
    BlockLayout, Field, FieldArray, FieldType, LayoutError, MemberLayout, Rules, StructDef,
    StructLookup, StructMap, layout_fields, round_up,
};
pub use registry::*;
pub use resolve::*;
pub use shader_info_macros::*;
pub use shared::*;
pub use types::*;
pub use validate::*;
pub use variants::*;

// Lets the derive macros' `::shader_info::…` paths work inside this crate's own tests too.
extern crate self as shader_info;

#[doc(hidden)]
pub use bytemuck;
#[doc(hidden)]
pub use inventory;
