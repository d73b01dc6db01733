//! The numbers a declaration is checked against: what Vulkan guarantees on every device, what real devices
//! allow, and what glslang accepts. Validation, the pipeline plan and the derive checks read them from here.

/// Vulkan's guaranteed minimum for `maxPushConstantsSize`.
pub const MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// The largest push-constant block that is spilled (see [`crate::PushConstantSpill`]); a larger one belongs in a
/// declared `storage_buf`. 64 KiB: far past any real block, and within every device's storage-buffer range.
pub const MAX_SPILLED_PUSH_CONSTANT_BYTES: u32 = 65536;
/// The largest push-constant block a declaration may have, checked at compile time for derived blocks: the
/// [`MAX_SPILLED_PUSH_CONSTANT_BYTES`] a spilled block holds. Not a device limit: what every Vulkan device accepts
/// (`maxPushConstantsSize`) is [`MAX_PUSH_CONSTANT_BYTES`], and a block past that is spilled to a storage buffer.
pub const MAX_PUSH_CONSTANTS_SIZE: u32 = MAX_SPILLED_PUSH_CONSTANT_BYTES;
/// Vulkan's guaranteed minimum for `maxVertexInputAttributes`.
pub const MAX_VERTEX_ATTRIBUTES: u32 = 16;
/// Color attachments a fragment stage may write: 8, what desktop GPUs and lavapipe support (the Vulkan
/// specification guarantees only 4; a renderer targeting such a device keeps to locations 0..3).
pub const MAX_FRAGMENT_OUTPUTS: u32 = 8;

/// The highest binding number a declaration may use. Vulkan sets no limit, but glslang keeps a binding in 16 bits
/// (65,535 is "too large"), the portable targets put split samplers above the highest binding, drivers size a set
/// layout by its highest binding and WebGPU allows 1000 bindings per group: a binding past 4095 is a typo, not a
/// design.
pub const MAX_BINDING: u32 = 4095;
/// The largest descriptor array (`name[N]`); real bindless tables stay below it (NVIDIA allows about a million
/// sampled images per set).
pub const MAX_DESCRIPTOR_ARRAY: u32 = 1 << 20;
/// Work-group limits every Vulkan device guarantees (`maxComputeWorkGroupSize`, `maxComputeWorkGroupInvocations`).
/// Many real shaders go past them on purpose: past them is a warning; past the device's own limits, an error at
/// pipeline creation.
pub const GUARANTEED_WORK_GROUP_SIZE: [u32; 3] = [128, 128, 64];
pub const GUARANTEED_WORK_GROUP_INVOCATIONS: u32 = 128;
/// Work-group (`shared`) memory every Vulkan device guarantees (`maxComputeSharedMemorySize`): past it is a warning;
/// past the device's own limit, an error before pipeline creation.
pub const GUARANTEED_SHARED_MEMORY: u64 = 16 * 1024;
/// The most work-group memory any device can report (`maxComputeSharedMemorySize` is a 32-bit byte count): more is
/// an error, not a warning (naga's layouter, also 32-bit, panicked on such a module).
pub const MAX_SHARED_MEMORY: u64 = u32::MAX as u64;
/// The largest work-group axis a declaration may ask for (the compiler's limit; real devices stop near 1024).
pub const MAX_WORK_GROUP_AXIS: u32 = u16::MAX as u32;

/// The highest `constant_id` glslang accepts ("specialization-constant id is too large" from 2047 on).
pub const MAX_CONSTANT_ID: u32 = 2046;
/// Vulkan's guaranteed `maxGeometryOutputVertices`, which is also glslang's `gl_MaxGeometryOutputVertices`: a
/// larger `max_vertices` does not compile.
pub const MAX_GEOMETRY_OUTPUT_VERTICES: u32 = 256;
/// Vulkan's guaranteed `maxGeometryShaderInvocations` (NVIDIA and Intel stop there; AMD allows 127).
pub const GUARANTEED_GEOMETRY_INVOCATIONS: u32 = 32;
/// Vulkan's guaranteed `maxGeometryTotalOutputComponents` (NVIDIA's too): the components one geometry invocation
/// may emit, its vertices times each vertex's (outputs and the gl_PerVertex block).
pub const GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS: u32 = 1024;
/// Vulkan's guaranteed `maxTessellationControlPerPatchOutputComponents`: the components of a tessellation control
/// stage's per-patch outputs (`tess_patch_out`).
pub const GUARANTEED_TESS_PATCH_OUTPUT_COMPONENTS: u32 = 120;
/// Vulkan's guaranteed `maxTessellationControlTotalOutputComponents`: everything a tessellation control stage writes
/// for one patch, its output vertices times each vertex's components (outputs and the gl_PerVertex block) and its
/// per-patch outputs.
pub const GUARANTEED_TESS_TOTAL_OUTPUT_COMPONENTS: u32 = 2048;
/// The most geometry invocations any device allows.
pub const MAX_GEOMETRY_INVOCATIONS: u32 = 127;
/// What real devices allow per work-group axis and per group (`maxComputeWorkGroupSize` of NVIDIA, AMD, Intel and
/// Apple; glslang's `gl_MaxComputeWorkGroupSize` refuses larger axes): past these no device runs the shader.
pub const MAX_WORK_GROUP_SIZE: [u32; 3] = [1024, 1024, 64];
pub const MAX_WORK_GROUP_INVOCATIONS: u32 = 1024;
/// Interface locations between two stages that Vulkan guarantees (64 components, `maxVertexOutputComponents`,
/// `maxFragmentInputComponents`), and what desktop devices allow (128 components).
pub const GUARANTEED_INTERFACE_LOCATIONS: u32 = 16;
pub const MAX_INTERFACE_LOCATIONS: u32 = 32;
/// Vulkan's guaranteed `maxUniformBufferRange`, and the typical value (NVIDIA's 64 KiB; AMD and Intel allow more).
pub const GUARANTEED_UNIFORM_BUFFER_BYTES: u64 = 16 * 1024;
pub const TYPICAL_UNIFORM_BUFFER_BYTES: u64 = 64 * 1024;
