//! The pipeline plan's backend-neutral data as `ash` types: stage flags, descriptor types, vertex formats, render
//! state. Pure tables, no derivation: what follows from a declaration is computed once, in
//! [`shader_info::PipelinePlan`].

use ash::vk;
use shader_info::{
    Blend, BlendFactor, BlendOp, ColorWrites, CompareOp, CullMode, DescriptorKind, FrontFace,
    PolygonMode, Stage, StageMask, StencilFace, StencilOp, StencilState, Topology, VertexFormat,
};

/// The class of values a color format holds (`None` for `UNDEFINED`): read from the format's name, so every
/// `*_UINT` and `*_SINT` format of the API is an integer format, not a hand-kept list.
///
/// ```
/// use shader_info_gpu::library::FormatClass;
/// use shader_info_gpu::vk::{map::format_class, raw::Format};
/// assert_eq!(format_class(Format::R16_UINT), Some(FormatClass::Uint));
/// assert_eq!(format_class(Format::R8G8_SINT), Some(FormatClass::Sint));
/// assert_eq!(format_class(Format::A2B10G10R10_UNORM_PACK32), Some(FormatClass::Float));
/// assert_eq!(format_class(Format::A2B10G10R10_UINT_PACK32), Some(FormatClass::Uint));
/// assert_eq!(format_class(Format::UNDEFINED), None);
/// ```
pub fn format_class(format: vk::Format) -> Option<crate::library::FormatClass> {
    use crate::library::FormatClass;
    if format == vk::Format::UNDEFINED {
        return None;
    }
    // The numeric type is a word of the name: `R8_UINT`, and the packed `A2B10G10R10_UINT_PACK32` too.
    let name = format!("{format:?}");
    let has = |word: &str| name.split('_').any(|w| w == word);
    Some(if has("UINT") {
        FormatClass::Uint
    } else if has("SINT") {
        FormatClass::Sint
    } else {
        FormatClass::Float
    })
}

/// The Vulkan stage bit of a shader stage.
///
/// ```
/// use shader_info_gpu::vk::{map::stage_flags, raw};
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
/// use shader_info_gpu::vk::{map::descriptor_type, raw};
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
        DescriptorKind::InputAttachment => T::INPUT_ATTACHMENT,
    }
}

/// The Vulkan format of a vertex attribute format.
///
/// ```
/// use shader_info_gpu::vk::{map::vertex_format, raw};
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
        V::Unorm8x2 => F::R8G8_UNORM,
        V::Unorm8x4 => F::R8G8B8A8_UNORM,
        V::Snorm8x2 => F::R8G8_SNORM,
        V::Snorm8x4 => F::R8G8B8A8_SNORM,
        V::Uint8x2 => F::R8G8_UINT,
        V::Uint8x4 => F::R8G8B8A8_UINT,
        V::Sint8x2 => F::R8G8_SINT,
        V::Sint8x4 => F::R8G8B8A8_SINT,
        V::Unorm16x2 => F::R16G16_UNORM,
        V::Unorm16x4 => F::R16G16B16A16_UNORM,
        V::Snorm16x2 => F::R16G16_SNORM,
        V::Snorm16x4 => F::R16G16B16A16_SNORM,
        V::Uint16x2 => F::R16G16_UINT,
        V::Uint16x4 => F::R16G16B16A16_UINT,
        V::Sint16x2 => F::R16G16_SINT,
        V::Sint16x4 => F::R16G16B16A16_SINT,
        V::Float16x2 => F::R16G16_SFLOAT,
        V::Float16x4 => F::R16G16B16A16_SFLOAT,
        V::Unorm10_10_10_2 => F::A2B10G10R10_UNORM_PACK32,
    }
}

/// The Vulkan topology of a declared topology.
pub fn topology(t: Topology) -> vk::PrimitiveTopology {
    use vk::PrimitiveTopology as P;
    match t {
        Topology::PointList => P::POINT_LIST,
        Topology::LineList => P::LINE_LIST,
        Topology::LineStrip => P::LINE_STRIP,
        Topology::TriangleList => P::TRIANGLE_LIST,
        Topology::TriangleStrip => P::TRIANGLE_STRIP,
        Topology::TriangleFan => P::TRIANGLE_FAN,
        Topology::LineListWithAdjacency => P::LINE_LIST_WITH_ADJACENCY,
        Topology::LineStripWithAdjacency => P::LINE_STRIP_WITH_ADJACENCY,
        Topology::TriangleListWithAdjacency => P::TRIANGLE_LIST_WITH_ADJACENCY,
        Topology::TriangleStripWithAdjacency => P::TRIANGLE_STRIP_WITH_ADJACENCY,
        Topology::PatchList => P::PATCH_LIST,
    }
}

pub fn polygon_mode(m: PolygonMode) -> vk::PolygonMode {
    match m {
        PolygonMode::Fill => vk::PolygonMode::FILL,
        PolygonMode::Line => vk::PolygonMode::LINE,
        PolygonMode::Point => vk::PolygonMode::POINT,
    }
}

pub fn cull_mode(c: CullMode) -> vk::CullModeFlags {
    match c {
        CullMode::None => vk::CullModeFlags::NONE,
        CullMode::Front => vk::CullModeFlags::FRONT,
        CullMode::Back => vk::CullModeFlags::BACK,
    }
}

pub fn front_face(f: FrontFace) -> vk::FrontFace {
    match f {
        FrontFace::CounterClockwise => vk::FrontFace::COUNTER_CLOCKWISE,
        FrontFace::Clockwise => vk::FrontFace::CLOCKWISE,
    }
}

pub fn compare_op(c: CompareOp) -> vk::CompareOp {
    use vk::CompareOp as C;
    match c {
        CompareOp::Never => C::NEVER,
        CompareOp::Less => C::LESS,
        CompareOp::Equal => C::EQUAL,
        CompareOp::LessOrEqual => C::LESS_OR_EQUAL,
        CompareOp::Greater => C::GREATER,
        CompareOp::NotEqual => C::NOT_EQUAL,
        CompareOp::GreaterOrEqual => C::GREATER_OR_EQUAL,
        CompareOp::Always => C::ALWAYS,
    }
}

pub fn stencil_op(o: StencilOp) -> vk::StencilOp {
    use vk::StencilOp as S;
    match o {
        StencilOp::Keep => S::KEEP,
        StencilOp::Zero => S::ZERO,
        StencilOp::Replace => S::REPLACE,
        StencilOp::IncrementClamp => S::INCREMENT_AND_CLAMP,
        StencilOp::DecrementClamp => S::DECREMENT_AND_CLAMP,
        StencilOp::Invert => S::INVERT,
        StencilOp::IncrementWrap => S::INCREMENT_AND_WRAP,
        StencilOp::DecrementWrap => S::DECREMENT_AND_WRAP,
    }
}

/// One face of a stencil state.
pub fn stencil_face(face: StencilFace, s: &StencilState) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: stencil_op(face.fail),
        pass_op: stencil_op(face.pass),
        depth_fail_op: stencil_op(face.depth_fail),
        compare_op: compare_op(face.compare),
        compare_mask: u32::from(s.read_mask),
        write_mask: u32::from(s.write_mask),
        reference: u32::from(s.reference.unwrap_or(0)),
    }
}

pub fn blend_factor(f: BlendFactor) -> vk::BlendFactor {
    use BlendFactor as F;
    use vk::BlendFactor as B;
    match f {
        F::Zero => B::ZERO,
        F::One => B::ONE,
        F::SrcColor => B::SRC_COLOR,
        F::OneMinusSrcColor => B::ONE_MINUS_SRC_COLOR,
        F::DstColor => B::DST_COLOR,
        F::OneMinusDstColor => B::ONE_MINUS_DST_COLOR,
        F::SrcAlpha => B::SRC_ALPHA,
        F::OneMinusSrcAlpha => B::ONE_MINUS_SRC_ALPHA,
        F::DstAlpha => B::DST_ALPHA,
        F::OneMinusDstAlpha => B::ONE_MINUS_DST_ALPHA,
        F::ConstantColor => B::CONSTANT_COLOR,
        F::OneMinusConstantColor => B::ONE_MINUS_CONSTANT_COLOR,
        F::SrcAlphaSaturate => B::SRC_ALPHA_SATURATE,
        F::Src1Color => B::SRC1_COLOR,
        F::OneMinusSrc1Color => B::ONE_MINUS_SRC1_COLOR,
        F::Src1Alpha => B::SRC1_ALPHA,
        F::OneMinusSrc1Alpha => B::ONE_MINUS_SRC1_ALPHA,
    }
}

pub fn blend_op(o: BlendOp) -> vk::BlendOp {
    match o {
        BlendOp::Add => vk::BlendOp::ADD,
        BlendOp::Subtract => vk::BlendOp::SUBTRACT,
        BlendOp::ReverseSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        BlendOp::Min => vk::BlendOp::MIN,
        BlendOp::Max => vk::BlendOp::MAX,
    }
}

/// The attachment state of one color output: its blending and write mask.
///
/// ```
/// use shader_info_gpu::vk::{map::blend_attachment, raw};
/// use shader_info::{Blend, ColorWrites};
/// let a = blend_attachment(Blend::Alpha, ColorWrites::ALL);
/// assert_eq!(a.blend_enable, raw::TRUE);
/// assert_eq!(a.src_color_blend_factor, raw::BlendFactor::SRC_ALPHA);
/// ```
pub fn blend_attachment(
    blend: Blend,
    writes: ColorWrites,
) -> vk::PipelineColorBlendAttachmentState {
    let s = vk::PipelineColorBlendAttachmentState::default().color_write_mask(color_writes(writes));
    let Some((color, alpha)) = blend.components() else {
        return s;
    };
    s.blend_enable(true)
        .src_color_blend_factor(blend_factor(color.src))
        .dst_color_blend_factor(blend_factor(color.dst))
        .color_blend_op(blend_op(color.op))
        .src_alpha_blend_factor(blend_factor(alpha.src))
        .dst_alpha_blend_factor(blend_factor(alpha.dst))
        .alpha_blend_op(blend_op(alpha.op))
}

pub fn color_writes(w: ColorWrites) -> vk::ColorComponentFlags {
    let mut f = vk::ColorComponentFlags::empty();
    for (bit, flag) in [
        (ColorWrites::R, vk::ColorComponentFlags::R),
        (ColorWrites::G, vk::ColorComponentFlags::G),
        (ColorWrites::B, vk::ColorComponentFlags::B),
        (ColorWrites::A, vk::ColorComponentFlags::A),
    ] {
        if w.contains(bit) {
            f |= flag;
        }
    }
    f
}

/// The create info of a declared sampler state. Without mipmaps the sampler reads the base level only (`max_lod`
/// 0); with them, every level.
pub fn sampler_info(s: &shader_info::SamplerState) -> vk::SamplerCreateInfo<'static> {
    use shader_info::{BorderColor, TexelFilter, WrapMode};
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => vk::Filter::NEAREST,
        TexelFilter::Linear => vk::Filter::LINEAR,
    };
    let wrap = match s.wrap {
        WrapMode::Repeat => vk::SamplerAddressMode::REPEAT,
        WrapMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        WrapMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        WrapMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
    };
    let border = match s.border {
        BorderColor::TransparentBlack => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        BorderColor::OpaqueBlack => vk::BorderColor::FLOAT_OPAQUE_BLACK,
        BorderColor::OpaqueWhite => vk::BorderColor::FLOAT_OPAQUE_WHITE,
    };
    let mut info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(s.filter))
        .min_filter(filter(s.filter))
        .mipmap_mode(match s.mipmap {
            Some(TexelFilter::Linear) => vk::SamplerMipmapMode::LINEAR,
            _ => vk::SamplerMipmapMode::NEAREST,
        })
        .address_mode_u(wrap)
        .address_mode_v(wrap)
        .address_mode_w(wrap)
        .border_color(border)
        .max_lod(if s.mipmap.is_some() {
            vk::LOD_CLAMP_NONE
        } else {
            0.0
        });
    if s.anisotropy > 1 {
        info = info
            .anisotropy_enable(true)
            .max_anisotropy(f32::from(s.anisotropy));
    }
    if let Some(op) = s.compare {
        info = info.compare_enable(true).compare_op(compare_op(op));
    }
    info
}

/// The Vulkan format of a declared image format (storage images, texel buffers).
///
/// ```
/// use shader_info_gpu::vk::{map::texture_format, raw};
/// assert_eq!(texture_format(shader_info::TextureFormat::R16ui), raw::Format::R16_UINT);
/// ```
pub fn texture_format(f: shader_info::TextureFormat) -> vk::Format {
    use shader_info::TextureFormat::*;
    use vk::Format as F;
    match f {
        Rgba8 => F::R8G8B8A8_UNORM,
        Rgba8Snorm => F::R8G8B8A8_SNORM,
        Rgba8ui => F::R8G8B8A8_UINT,
        Rgba8i => F::R8G8B8A8_SINT,
        Rgba16f => F::R16G16B16A16_SFLOAT,
        Rgba16 => F::R16G16B16A16_UNORM,
        Rgba16ui => F::R16G16B16A16_UINT,
        Rgba16i => F::R16G16B16A16_SINT,
        Rgba32f => F::R32G32B32A32_SFLOAT,
        Rgba32ui => F::R32G32B32A32_UINT,
        Rgba32i => F::R32G32B32A32_SINT,
        Rg8 => F::R8G8_UNORM,
        Rg16f => F::R16G16_SFLOAT,
        Rg32f => F::R32G32_SFLOAT,
        Rg32ui => F::R32G32_UINT,
        R8 => F::R8_UNORM,
        R16f => F::R16_SFLOAT,
        R32f => F::R32_SFLOAT,
        R32ui => F::R32_UINT,
        R32i => F::R32_SINT,
        R11fG11fB10f => F::B10G11R11_UFLOAT_PACK32,
        Rgb10A2 => F::A2B10G10R10_UNORM_PACK32,
        Rg16 => F::R16G16_UNORM,
        R16 => F::R16_UNORM,
        Rgba16Snorm => F::R16G16B16A16_SNORM,
        Rg16Snorm => F::R16G16_SNORM,
        Rg8Snorm => F::R8G8_SNORM,
        R16Snorm => F::R16_SNORM,
        R8Snorm => F::R8_SNORM,
        Rg32i => F::R32G32_SINT,
        Rg16i => F::R16G16_SINT,
        Rg8i => F::R8G8_SINT,
        R16i => F::R16_SINT,
        R8i => F::R8_SINT,
        Rgb10A2ui => F::A2B10G10R10_UINT_PACK32,
        Rg16ui => F::R16G16_UINT,
        Rg8ui => F::R8G8_UINT,
        R16ui => F::R16_UINT,
        R8ui => F::R8_UINT,
    }
}
