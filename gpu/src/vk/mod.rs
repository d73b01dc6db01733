//! The Vulkan backend: a headless device, shader modules that are checked before the driver sees them, pipeline
//! layouts and pipelines mapped from a [`shader_info::PipelinePlan`], and a [`ShaderLibrary`] that fetches them by
//! name and hot-reloads them without ever losing a working pipeline.
//!
//! ```no_run
//! use shader_info_gpu::vk::{ContextOptions, VkContext};
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! println!("running on {}", ctx.device_name());
//! # Ok::<(), shader_info_gpu::vk::VkError>(())
//! ```
//!
//! Layering (one direction): [`device`] (instance, device, queue, validation messages) → [`module`] (SPIR-V →
//! `VkShaderModule`) → [`map`] (the pipeline plan's data as `ash` types) → [`layout`] (descriptor-set and pipeline
//! layouts) → [`pipeline`] (graphics, compute, ray tracing) → [`library`] (the shared core, [`crate::library`], over this backend).
//! [`resource`] holds the small buffer/image helpers tests and tools need. Everything derived from a declaration
//! comes from its [`shader_info::PipelinePlan`]; this module only maps it.
//!
//! Every Vulkan handle is owned by a Rust value that destroys it on `Drop`; each owner keeps the [`VkContext`]
//! alive, so the device always outlives what was created from it.

pub mod bind;
pub mod device;
mod error;
pub mod fast_link;
pub mod layout;
pub mod library;
mod limits;
pub mod map;
pub mod module;
pub mod pipeline;
pub mod pipeline_cache;
pub mod resource;
#[cfg(feature = "testing")]
pub mod testing;

pub use crate::library::{
    LibraryOptions, PipelineOutcome, ReloadReport, WarmUpReport, WarmedPipeline,
};
pub use ash;
pub use ash::vk as raw;
pub use bind::{Resource, VkHost};
pub use device::{ContextOptions, SubgroupSupport, ValidationMessage, VkContext};
pub use error::{ModuleError, SPIRV_MAGIC, VkError, VkResult};
pub use layout::DescriptorPool;
pub use layout::{
    DescriptorBinding, DescriptorSetLayout, LayoutCache, LayoutDesc, PipelineLayout, bind_point,
    describe_layout,
};
pub use library::{ShaderLibrary, VkBackend, WarmUp};
pub use module::{ShaderModule, check_spirv, spirv_from_bytes};
pub use pipeline::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, RayTracingPipeline, ShaderBindingTable,
    SpecValues, Specialization, VertexBuffer, VertexInputDesc, attachments, color_formats,
    graphics_problems, local_read_problems, module_problems, state_problems, vertex_input,
};
pub use resource::{Buffer, Image2D, Sampler};
