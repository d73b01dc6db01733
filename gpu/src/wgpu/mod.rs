//! The same library on wgpu (feature `wgpu`): modules fetched by info name (and variant) from the checked WGSL
//! translations of [`crate::cross`], bind group layouts, pipeline layouts, vertex layouts and render state mapped
//! from the info's [`shader_info::PipelinePlan`] — the derivation the Vulkan backend maps too — and hot reload that
//! keeps the previous pipeline when an edit breaks a shader.
//!
//! | declared | on wgpu |
//! |---|---|
//! | set / binding | `@group(set) @binding(binding)`: the WGSL target map (a combined sampler is a texture at its binding and a sampler at its portable sampler binding) |
//! | push constants | wgpu *immediates* (`var<immediate>`, [`::wgpu::Features::IMMEDIATES`]) where the adapter has them and they hold the block; otherwise a read-only storage buffer with the same bytes at `@group(3) @binding(0)` ([`PUSH_CONSTANT_FALLBACK_GROUP`]) — see [`PushConstants`] |
//! | specialization constants | WGSL `override`s, set at pipeline creation by their `@id` |
//! | render state | `PrimitiveState`, `DepthStencilState`, `ColorTargetState`s, `MultisampleState`; what WebGPU lacks (line width, dynamic depth bias, triangle fans, culling both faces) is refused with the reason |
//!
//! ```no_run
//! use shader_info_gpu::library::LibraryOptions;
//! use shader_info_gpu::wgpu::{GraphicsOptions, WgpuContext, WgpuContextOptions, WgpuLibrary};
//! let ctx = WgpuContext::new(&WgpuContextOptions::default())?;
//! let mut lib = WgpuLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                LibraryOptions::new("shaders/glsl"))?;
//! let text = lib.graphics_pipeline("gpu_shader_text", &GraphicsOptions::default())?;
//! let prefix_sum = lib.compute_pipeline("gpu_compute_prefix_sum")?;
//! println!("{}", lib.reload()?);
//! # Ok::<(), shader_info_gpu::wgpu::WgpuError>(())
//! ```

mod backend;
mod context;
mod error;
pub mod map;
pub mod messages;
mod pipeline;
#[cfg(feature = "testing")]
pub mod testing;

pub use ::wgpu as raw;
pub use backend::{WarmUp, WgpuBackend, WgpuLibrary};
pub use context::{KEPT_ERRORS, WgpuContext, WgpuContextOptions};
pub use error::{WgpuError, WgpuResult};
pub use pipeline::{
    Bind, ComputePipeline, GraphicsOptions, GraphicsPipeline, Layouts, Module,
    PUSH_CONSTANT_FALLBACK_GROUP, PushConstants, PushData, SetGroup, VertexBuffer, WgpuHost,
};
