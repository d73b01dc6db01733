//! Everything of shader-info that touches a compiler or a device: the [`flow`] from a declaration to checked SPIR-V
//! ([`compiler`], [`reflect`]), the translations to WGSL/MSL/HLSL/GL with their independent checks ([`cross`]),
//! the static pass ([`builder`]), the caches ([`disk_cache`]), and the shader [`library`] — one core over a backend
//! trait — on Vulkan ([`vk`]) and wgpu (feature `wgpu`).
//!
//! A declaration compiled and checked, with no device:
//!
//! ```
//! use shader_info_gpu::compiler::{Compiler, Profile};
//! use shader_info_gpu::flow::Flow;
//! use shader_info::{MemoryLoader, Registry, ShaderCreateInfo, Stage, Type};
//! let mut registry = Registry::new();
//! registry.add_info(ShaderCreateInfo::new("fill").push_constant(Type::Vec4, "color")
//!     .fragment_out(0, Type::Vec4, "frag_color").vertex_source("fill.vert").fragment_source("fill.frag"));
//! let loader = MemoryLoader::default()
//!     .with("fill.vert", "void main() { gl_Position = vec4(0.0); }\n")
//!     .with("fill.frag", "void main() { frag_color = color; }\n");
//! let compiler = Compiler::new(std::env::temp_dir()).unwrap();
//! let flow = Flow::new(&registry, &loader, &compiler, Profile::Release);
//! let module = flow.compile(&flow.validated("fill").unwrap(), Stage::Fragment).unwrap();
//! assert!(module.reflection.push_constants.is_some()); // reflected and checked against the declaration
//! ```
//!
//! On a device, the library fetches pipelines by name and types the host side from the declaration:
//!
//! ```no_run
//! use shader_info_gpu::library::LibraryOptions;
//! use shader_info_gpu::vk::{ContextOptions, GraphicsOptions, ShaderLibrary, VkContext};
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new("shaders/glsl"))?;
//! let key = lib.variant("gpu_shader_mesh", &[("SKINNING", true)])?;
//! let mesh = lib.graphics_pipeline(&key, &GraphicsOptions::hdr())?;
//! # Ok::<(), shader_info_gpu::vk::VkError>(())
//! ```
pub mod builder;
pub mod cache_file;
pub mod compiler;
pub mod cross;
pub mod disk_cache;
pub mod flow;
pub mod library;
pub mod reflect;
#[cfg(feature = "remote-cache")]
pub mod remote_cache;
mod sharded;
pub mod vk;
pub mod watch;
#[cfg(feature = "wgpu")]
pub mod wgpu;
