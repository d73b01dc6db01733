//! The error types of the Vulkan backend (a leaf module: every other part of `vk` imports it).

use shader_info::{Diagnostic, render};

/// The first word of every SPIR-V module (in the host's byte order).
pub const SPIRV_MAGIC: u32 = 0x0723_0203;

/// Why code is not acceptable as a shader module (`VkShaderModuleCreateInfo` valid usage).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// VUID-VkShaderModuleCreateInfo-codeSize-01085: `codeSize` must be greater than 0.
    #[error("SPIR-V code is empty (codeSize must be greater than 0)")]
    Empty,
    /// VUID-VkShaderModuleCreateInfo-codeSize-08735: `codeSize` must be a multiple of 4.
    #[error("SPIR-V code is {len} bytes, not a multiple of 4: it is truncated or not SPIR-V")]
    SizeNotMultipleOf4 { len: usize },
    /// VUID-VkShaderModuleCreateInfo-pCode-08737: the code must be SPIR-V, which starts with the magic number.
    #[error(
        "not SPIR-V: the first word is {found:#010x}, expected the magic number 0x07230203{}",
        if *found == SPIRV_MAGIC.swap_bytes() { " (the words are byte-swapped: convert them to host order)" } else { "" }
    )]
    BadMagic { found: u32 },
    /// A module must hold at least the five-word header.
    #[error("SPIR-V code has {words} words, fewer than the 5-word header")]
    TooShort { words: usize },
    /// VUID-VkShaderModuleCreateInfo-pCode-08737 (SPIR-V spec 2.3, physical layout): the version word is
    /// `0x00MMmm00` with major 1 and a minor the Vulkan 1.3 environment accepts (0..=6).
    #[error("SPIR-V version word {word:#010x} is not a SPIR-V 1.0–1.6 version")]
    BadVersion { word: u32 },
    /// SPIR-V spec 2.3: every id is below the header's bound, so a bound of 0 means a module without ids.
    #[error("the SPIR-V header's id bound is 0")]
    ZeroBound,
    /// SPIR-V spec 2.3: the fifth header word (instruction schema) is reserved and must be 0.
    #[error("the SPIR-V header's reserved schema word is {word}, not 0")]
    BadSchema { word: u32 },
    /// SPIR-V spec 2.3: an instruction's first word holds its word count, at least 1, and the instruction must end
    /// within the module.
    #[error("the SPIR-V instruction at word {offset} has word count {count}, which {}", if *count == 0 { "is 0".to_string() } else { format!("runs past the module's end ({words} words)") })]
    BadInstruction {
        offset: usize,
        count: usize,
        words: usize,
    },
    /// VUID-VkShaderModuleCreateInfo-pCode-08739: the code must declare the `Shader` capability.
    #[error("the SPIR-V code does not declare the Shader capability (OpCapability Shader)")]
    NoShaderCapability,
    /// A shader module needs at least one `OpEntryPoint` for a pipeline stage to name.
    #[error("the SPIR-V code has no OpEntryPoint")]
    NoEntryPoint,
}

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
    /// A declaration, its generated code or its compiled module has problems: every diagnostic, each naming the
    /// info, the item and the file and line.
    #[error("{}", render(.0).trim_end())]
    Diagnostics(Vec<Diagnostic>),
    /// Anything else with a message (file watching, memory types).
    #[error("{0}")]
    Other(String),
}

impl VkError {
    /// The diagnostics, for [`VkError::Diagnostics`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            VkError::Diagnostics(d) => d,
            _ => &[],
        }
    }

    /// Wraps a failed Vulkan call.
    pub(crate) fn call(call: &'static str) -> impl FnOnce(ash::vk::Result) -> VkError {
        move |result| VkError::Call { call, result }
    }
}

/// Result of the Vulkan backend.
pub type VkResult<T> = Result<T, VkError>;
