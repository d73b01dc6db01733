//! The Vulkan backend: a headless device, shader modules that are checked before the driver sees them, pipeline
//! layouts and pipelines derived from a [`shader_info::ResolvedInfo`], and a [`ShaderLibrary`] that fetches them by
//! name and hot-reloads them without ever losing a working pipeline.
//!
//! ```no_run
//! use gpu::vk::{ContextOptions, VkContext};
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! println!("running on {}", ctx.device_name());
//! # Ok::<(), gpu::vk::VkError>(())
//! ```
//!
//! Layering (one direction): [`device`] (instance, device, queue, validation messages) → [`module`] (SPIR-V →
//! `VkShaderModule`) → [`layout`] (descriptor-set and pipeline layouts from a declaration) → [`pipeline`]
//! (graphics, compute, ray tracing) → [`library`] (compile, cache, fetch by name, reload) and [`watch`] (file
//! events → reload requests). [`resource`] holds the small buffer/image helpers tests and tools need.
//!
//! Every Vulkan handle is owned by a Rust value that destroys it on `Drop`; each owner keeps the [`VkContext`]
//! alive, so the device always outlives what was created from it.

pub mod device;
pub mod layout;
pub mod library;
pub mod module;
pub mod pipeline;
pub mod resource;
pub mod testing;
pub mod watch;

pub use ash;
pub use ash::vk as raw;
pub use device::{ContextOptions, ValidationMessage, VkContext};
pub use layout::{
    DescriptorBinding, DescriptorSetLayout, LayoutCache, LayoutDesc, PipelineLayout,
    describe_layout,
};
pub use library::{
    GraphicsKey, LibraryOptions, ModuleCompiler, PipelineOutcome, ReloadReport, RuntimeCompiler,
    ShaderLibrary,
};
pub use module::{ModuleError, SPIRV_MAGIC, ShaderModule, check_spirv, spirv_from_bytes};
pub use pipeline::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, MAX_COLOR_ATTACHMENTS, RayTracingPipeline,
    ShaderBindingTable, SpecValues, Specialization, VertexInputDesc, VertexLayout, color_formats,
    vertex_input,
};
pub use resource::{Buffer, DescriptorPool, Image2D};
pub use watch::ShaderWatcher;

use shader_info::Stage;

/// Everything that can go wrong in the Vulkan backend.
#[derive(Debug, thiserror::Error)]
pub enum VkError {
    /// No Vulkan loader, or no driver behind it.
    #[error(
        "Vulkan is not available: {reason}. Install a Vulkan loader and a driver, e.g. \
         `apt-get install mesa-vulkan-drivers libvulkan1 vulkan-validationlayers` (lavapipe, a CPU driver, \
         is enough)"
    )]
    NoVulkan { reason: String },
    /// Validation was asked for but the Khronos layer is not installed.
    #[error(
        "the Khronos validation layer (VK_LAYER_KHRONOS_validation) is not installed: \
         `apt-get install vulkan-validationlayers`, or turn validation off"
    )]
    NoValidationLayer,
    /// No physical device has what we need (Vulkan 1.3, dynamic rendering, synchronization2, graphics+compute).
    #[error("no suitable Vulkan device: {detail}")]
    NoSuitableDevice { detail: String },
    /// The device asked for by name does not exist.
    #[error("no Vulkan device matches `{wanted}`; available: {}", available.join(", "))]
    DeviceNotFound {
        wanted: String,
        available: Vec<String>,
    },
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Call {
        call: &'static str,
        result: ash::vk::Result,
    },
    /// SPIR-V that breaks the shader-module valid-usage rules.
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// A declaration the backend cannot turn into Vulkan state.
    #[error("info `{info}`: {message}")]
    Declaration { info: String, message: String },
    /// The device lacks a feature (ray tracing on lavapipe, for instance).
    #[error("unsupported on {device}: {what}")]
    Unsupported { device: String, what: String },
    /// Resolving, generating or compiling a shader failed; the text is the rendered diagnostics.
    #[error("{0}")]
    Compile(String),
    /// Anything else with a message (file watching, memory types).
    #[error("{0}")]
    Other(String),
}

impl VkError {
    /// Wraps a failed Vulkan call.
    pub(crate) fn call(call: &'static str) -> impl FnOnce(ash::vk::Result) -> VkError {
        move |result| VkError::Call { call, result }
    }
}

/// Result of the Vulkan backend.
pub type VkResult<T> = Result<T, VkError>;

/// The Vulkan stage bit of a shader stage.
///
/// ```
/// use gpu::vk::{stage_flags, raw};
/// assert_eq!(stage_flags(shader_info::Stage::Fragment), raw::ShaderStageFlags::FRAGMENT);
/// ```
pub fn stage_flags(stage: Stage) -> ash::vk::ShaderStageFlags {
    use ash::vk::ShaderStageFlags as F;
    match stage {
        Stage::Vertex => F::VERTEX,
        Stage::TessControl => F::TESSELLATION_CONTROL,
        Stage::TessEvaluation => F::TESSELLATION_EVALUATION,
        Stage::Geometry => F::GEOMETRY,
        Stage::Fragment => F::FRAGMENT,
        Stage::Compute => F::COMPUTE,
        Stage::RayGen => F::RAYGEN_KHR,
        Stage::Miss => F::MISS_KHR,
        Stage::ClosestHit => F::CLOSEST_HIT_KHR,
        Stage::AnyHit => F::ANY_HIT_KHR,
        Stage::Intersection => F::INTERSECTION_KHR,
        Stage::Callable => F::CALLABLE_KHR,
    }
}

/// The union of the stage bits of `stages`.
pub fn stages_flags(stages: &[Stage]) -> ash::vk::ShaderStageFlags {
    stages
        .iter()
        .fold(ash::vk::ShaderStageFlags::empty(), |acc, s| {
            acc | stage_flags(*s)
        })
}
