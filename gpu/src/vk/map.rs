//! The pipeline plan's backend-neutral data as `ash` types: stage flags, descriptor types, vertex formats. Pure
//! tables, no derivation: what follows from a declaration is computed once, in [`shader_info::PipelinePlan`].

use ash::vk;
use shader_info::{DescriptorKind, Stage, StageMask, VertexFormat};

/// The Vulkan stage bit of a shader stage.
///
/// ```
/// use gpu::vk::{map::stage_flags, raw};
/// assert_eq!(stage_flags(shader_info::Stage::Fragment), raw::ShaderStageFlags::FRAGMENT);
/// ```
pub fn stage_flags(stage: Stage) -> vk::ShaderStageFlags {
    use vk::ShaderStageFlags as F;
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

/// The stage bits of a stage mask.
pub fn stage_mask(mask: StageMask) -> vk::ShaderStageFlags {
    mask.stages()
        .into_iter()
        .fold(vk::ShaderStageFlags::empty(), |acc, s| acc | stage_flags(s))
}

/// The Vulkan descriptor type of a descriptor kind.
///
/// ```
/// use gpu::vk::{map::descriptor_type, raw};
/// use shader_info::DescriptorKind;
/// assert_eq!(descriptor_type(DescriptorKind::UniformTexelBuffer), raw::DescriptorType::UNIFORM_TEXEL_BUFFER);
/// ```
pub fn descriptor_type(kind: DescriptorKind) -> vk::DescriptorType {
    use vk::DescriptorType as T;
    match kind {
        DescriptorKind::CombinedImageSampler => T::COMBINED_IMAGE_SAMPLER,
        DescriptorKind::SampledImage => T::SAMPLED_IMAGE,
        DescriptorKind::Sampler => T::SAMPLER,
        DescriptorKind::StorageImage => T::STORAGE_IMAGE,
        DescriptorKind::UniformTexelBuffer => T::UNIFORM_TEXEL_BUFFER,
        DescriptorKind::StorageTexelBuffer => T::STORAGE_TEXEL_BUFFER,
        DescriptorKind::UniformBuffer => T::UNIFORM_BUFFER,
        DescriptorKind::StorageBuffer => T::STORAGE_BUFFER,
        DescriptorKind::AccelerationStructure => T::ACCELERATION_STRUCTURE_KHR,
    }
}

/// The Vulkan format of a vertex attribute format.
///
/// ```
/// use gpu::vk::{map::vertex_format, raw};
/// assert_eq!(vertex_format(shader_info::VertexFormat::Float32x3), raw::Format::R32G32B32_SFLOAT);
/// ```
pub fn vertex_format(format: VertexFormat) -> vk::Format {
    use VertexFormat as V;
    use vk::Format as F;
    match format {
        V::Float32 => F::R32_SFLOAT,
        V::Float32x2 => F::R32G32_SFLOAT,
        V::Float32x3 => F::R32G32B32_SFLOAT,
        V::Float32x4 => F::R32G32B32A32_SFLOAT,
        V::Sint32 => F::R32_SINT,
        V::Sint32x2 => F::R32G32_SINT,
        V::Sint32x3 => F::R32G32B32_SINT,
        V::Sint32x4 => F::R32G32B32A32_SINT,
        V::Uint32 => F::R32_UINT,
        V::Uint32x2 => F::R32G32_UINT,
        V::Uint32x3 => F::R32G32B32_UINT,
        V::Uint32x4 => F::R32G32B32A32_UINT,
        V::Float64 => F::R64_SFLOAT,
        V::Float64x2 => F::R64G64_SFLOAT,
        V::Float64x3 => F::R64G64B64_SFLOAT,
        V::Float64x4 => F::R64G64B64A64_SFLOAT,
    }
}
