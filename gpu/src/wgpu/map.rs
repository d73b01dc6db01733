//! The plan in wgpu's types. Nothing here derives a fact from a declaration: each function maps one the
//! [`PipelinePlan`] (or its WGSL target map) already holds, as `vk::map` does for Vulkan. What WebGPU cannot
//! express is an `Err` with the reason, never a silent substitute.

use ::wgpu as w;
use shader_info::{BindingPart, TargetBinding, TextureFormat};
use shader_info::{
    Blend, BlendFactor, BlendOp, ColorWrites, CompareOp, CullMode, DescriptorKind, FrontFace,
    ImageType, PipelinePlan, PolygonMode, Qualifier, RenderState, ResourceKind, StencilOp,
    Topology, VertexFormat,
};

/// The bind group layout entries of each group the plan uses (index = set), from the portable bindings of the
/// WGSL target map; `visibility(set, binding)` says which stages use a binding.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x").sampler(0, ImageType::Float2D, "img", Frequency::Pass)
///     .fragment_out(0, Type::Vec4, "c").vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// let fragment = |_, _| shader_info_gpu::wgpu::raw::ShaderStages::FRAGMENT;
/// let groups = shader_info_gpu::wgpu::map::bind_group_entries(&plan, &fragment).unwrap();
/// // The combined sampler is a texture at binding 0 and a sampler at its portable sampler binding.
/// assert_eq!(groups[0].len(), 2);
/// ```
pub fn bind_group_entries(
    plan: &PipelinePlan,
    visibility: &dyn Fn(u32, u32) -> w::ShaderStages,
) -> Result<Vec<Vec<w::BindGroupLayoutEntry>>, String> {
    let groups = plan.sets.iter().map(|s| s.set + 1).max().unwrap_or(0);
    let mut out = vec![Vec::new(); groups as usize];
    for tb in &plan.targets.bindings {
        let declared = plan
            .sets
            .iter()
            .find(|s| s.set == tb.set)
            .and_then(|s| s.bindings.iter().find(|b| b.name == tb.name))
            .ok_or_else(|| format!("`{}` is in the target map but not in the plan", tb.name))?;
        let group = out
            .get_mut(tb.set as usize)
            .ok_or_else(|| format!("`{}` is in set {}, which the plan lacks", tb.name, tb.set))?;
        group.push(w::BindGroupLayoutEntry {
            binding: tb.binding,
            visibility: visibility(tb.set, tb.binding),
            ty: binding_type(tb, &declared.resource)?,
            count: None,
        });
    }
    Ok(out)
}

/// The wgpu binding type of one portable binding of a declared resource.
pub fn binding_type(tb: &TargetBinding, resource: &ResourceKind) -> Result<w::BindingType, String> {
    use DescriptorKind as K;
    let buffer = |ty| w::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    Ok(match (tb.kind, resource) {
        (K::UniformBuffer, _) => buffer(w::BufferBindingType::Uniform),
        (K::StorageBuffer, _) => buffer(w::BufferBindingType::Storage {
            read_only: !tb.writable,
        }),
        (K::SampledImage, ResourceKind::Sampler { image_type, .. }) => {
            let (view_dimension, multisampled) = view_dimension(*image_type)?;
            w::BindingType::Texture {
                sample_type: sample_type(*image_type),
                view_dimension,
                multisampled,
            }
        }
        (K::Sampler, ResourceKind::Sampler { image_type, .. }) => {
            w::BindingType::Sampler(sampler_type(*image_type))
        }
        (
            K::StorageImage,
            ResourceKind::Image {
                format,
                qualifier,
                image_type,
            },
        ) => w::BindingType::StorageTexture {
            access: match qualifier {
                Qualifier::Read => w::StorageTextureAccess::ReadOnly,
                Qualifier::Write => w::StorageTextureAccess::WriteOnly,
                Qualifier::ReadWrite | Qualifier::NoRestrict => w::StorageTextureAccess::ReadWrite,
            },
            format: storage_format(*format),
            view_dimension: view_dimension(*image_type)?.0,
        },
        // Kinds WebGPU has no binding for, and a portable kind the declared resource cannot carry.
        (
            kind @ (K::CombinedImageSampler
            | K::UniformTexelBuffer
            | K::StorageTexelBuffer
            | K::AccelerationStructure
            | K::InputAttachment),
            _,
        )
        | (kind @ (K::SampledImage | K::Sampler | K::StorageImage), _) => {
            let part = match tb.part {
                BindingPart::Whole => "",
                BindingPart::Texture => " (texture part)",
                BindingPart::Sampler => " (sampler part)",
            };
            return Err(format!(
                "`{}`{part}: a {kind:?} binding has no WebGPU binding type",
                tb.name
            ));
        }
    })
}

fn view_dimension(t: ImageType) -> Result<(w::TextureViewDimension, bool), String> {
    use ImageType::*;
    use w::TextureViewDimension as D;
    // An atomic image is a plain integer image to WebGPU.
    Ok(match t {
        Float1D | Int1D | Uint1D => (D::D1, false),
        Float2D | Int2D | Uint2D | Shadow2D | Depth2D | AtomicInt2D | AtomicUint2D => {
            (D::D2, false)
        }
        Float2DArray | Int2DArray | Uint2DArray | Shadow2DArray | Depth2DArray
        | AtomicInt2DArray | AtomicUint2DArray => (D::D2Array, false),
        Float3D | Int3D | Uint3D | AtomicInt3D | AtomicUint3D => (D::D3, false),
        FloatCube | IntCube | UintCube | ShadowCube | DepthCube => (D::Cube, false),
        FloatCubeArray | IntCubeArray | UintCubeArray | ShadowCubeArray | DepthCubeArray => {
            (D::CubeArray, false)
        }
        Float2DMultisample | Int2DMultisample | Uint2DMultisample => (D::D2, true),
        Float1DArray | Int1DArray | Uint1DArray => {
            return Err(format!("{t:?}: WebGPU has no 1D array textures"));
        }
        FloatBuffer | IntBuffer | UintBuffer => {
            return Err(format!("{t:?}: WebGPU has no texel buffers"));
        }
    })
}

fn sample_type(t: ImageType) -> w::TextureSampleType {
    use ImageType::*;
    match t {
        _ if t.is_shadow() => w::TextureSampleType::Depth,
        // A depth texture read without comparison, and multisampled textures, are unfilterable floats.
        Depth2D | Depth2DArray | DepthCube | DepthCubeArray | Float2DMultisample => {
            w::TextureSampleType::Float { filterable: false }
        }
        _ => match t.component_kind() {
            'i' => w::TextureSampleType::Sint,
            'u' => w::TextureSampleType::Uint,
            _ => w::TextureSampleType::Float { filterable: true },
        },
    }
}

fn sampler_type(t: ImageType) -> w::SamplerBindingType {
    match sample_type(t) {
        w::TextureSampleType::Depth => w::SamplerBindingType::Comparison,
        w::TextureSampleType::Float { filterable: true } => w::SamplerBindingType::Filtering,
        _ => w::SamplerBindingType::NonFiltering,
    }
}

/// The wgpu format of a storage-image format.
pub fn storage_format(f: TextureFormat) -> w::TextureFormat {
    use TextureFormat::*;
    use w::TextureFormat as T;
    match f {
        Rgba8 => T::Rgba8Unorm,
        Rgba8Snorm => T::Rgba8Snorm,
        Rgba8ui => T::Rgba8Uint,
        Rgba8i => T::Rgba8Sint,
        Rgba16f => T::Rgba16Float,
        Rgba16 => T::Rgba16Unorm,
        Rgba16ui => T::Rgba16Uint,
        Rgba16i => T::Rgba16Sint,
        Rgba32f => T::Rgba32Float,
        Rgba32ui => T::Rgba32Uint,
        Rgba32i => T::Rgba32Sint,
        Rg8 => T::Rg8Unorm,
        Rg16f => T::Rg16Float,
        Rg32f => T::Rg32Float,
        Rg32ui => T::Rg32Uint,
        R8 => T::R8Unorm,
        R16f => T::R16Float,
        R32f => T::R32Float,
        R32ui => T::R32Uint,
        R32i => T::R32Sint,
        R11fG11fB10f => T::Rg11b10Ufloat,
        Rgb10A2 => T::Rgb10a2Unorm,
        Rg16 => T::Rg16Unorm,
        R16 => T::R16Unorm,
        Rgba16Snorm => T::Rgba16Snorm,
        Rg16Snorm => T::Rg16Snorm,
        Rg8Snorm => T::Rg8Snorm,
        R16Snorm => T::R16Snorm,
        R8Snorm => T::R8Snorm,
        Rg32i => T::Rg32Sint,
        Rg16i => T::Rg16Sint,
        Rg8i => T::Rg8Sint,
        R16i => T::R16Sint,
        R8i => T::R8Sint,
        Rgb10A2ui => T::Rgb10a2Uint,
        Rg16ui => T::Rg16Uint,
        Rg8ui => T::Rg8Uint,
        R16ui => T::R16Uint,
        R8ui => T::R8Uint,
    }
}

/// The wgpu format of a vertex attribute format.
pub fn vertex_format(f: VertexFormat) -> w::VertexFormat {
    use VertexFormat::*;
    use w::VertexFormat as V;
    match f {
        Float32 => V::Float32,
        Float32x2 => V::Float32x2,
        Float32x3 => V::Float32x3,
        Float32x4 => V::Float32x4,
        Sint32 => V::Sint32,
        Sint32x2 => V::Sint32x2,
        Sint32x3 => V::Sint32x3,
        Sint32x4 => V::Sint32x4,
        Uint32 => V::Uint32,
        Uint32x2 => V::Uint32x2,
        Uint32x3 => V::Uint32x3,
        Uint32x4 => V::Uint32x4,
        Float64 => V::Float64,
        Float64x2 => V::Float64x2,
        Float64x3 => V::Float64x3,
        Float64x4 => V::Float64x4,
        Unorm8x2 => V::Unorm8x2,
        Unorm8x4 => V::Unorm8x4,
        Snorm8x2 => V::Snorm8x2,
        Snorm8x4 => V::Snorm8x4,
        Uint8x2 => V::Uint8x2,
        Uint8x4 => V::Uint8x4,
        Sint8x2 => V::Sint8x2,
        Sint8x4 => V::Sint8x4,
        Unorm16x2 => V::Unorm16x2,
        Unorm16x4 => V::Unorm16x4,
        Snorm16x2 => V::Snorm16x2,
        Snorm16x4 => V::Snorm16x4,
        Uint16x2 => V::Uint16x2,
        Uint16x4 => V::Uint16x4,
        Sint16x2 => V::Sint16x2,
        Sint16x4 => V::Sint16x4,
        Float16x2 => V::Float16x2,
        Float16x4 => V::Float16x4,
        Unorm10_10_10_2 => V::Unorm10_10_10_2,
    }
}

/// Color target formats by location (`None` for unused locations below the highest), by the rule every backend
/// shares ([`crate::library::default_color_targets`]): float outputs get `color_format`, integer outputs a 32-bit
/// integer format of their class with enough components; `overrides` replace a location.
pub fn color_formats(
    plan: &PipelinePlan,
    color_format: w::TextureFormat,
    overrides: &[(u32, w::TextureFormat)],
) -> Vec<Option<w::TextureFormat>> {
    use crate::library::{DefaultTarget, FormatClass};
    use w::TextureFormat as T;
    let mut out: Vec<Option<w::TextureFormat>> = crate::library::default_color_targets(plan)
        .into_iter()
        .map(|t| {
            t.map(|t| match t {
                DefaultTarget::PassFormat => color_format,
                DefaultTarget::Integer { class, components } => {
                    let i = components.clamp(1, 4) as usize - 1;
                    match class {
                        FormatClass::Uint => {
                            [T::R32Uint, T::Rg32Uint, T::Rgba32Uint, T::Rgba32Uint][i]
                        }
                        _ => [T::R32Sint, T::Rg32Sint, T::Rgba32Sint, T::Rgba32Sint][i],
                    }
                }
            })
        })
        .collect();
    // An override past the outputs matches the pass's attachment there (a pipeline has as many as its pass).
    for (loc, f) in overrides {
        if *loc as usize >= out.len() {
            out.resize(*loc as usize + 1, None);
        }
        out[*loc as usize] = Some(*f);
    }
    out
}

/// The primitive state, or what WebGPU cannot draw.
pub fn primitive(state: &RenderState) -> Result<w::PrimitiveState, String> {
    let topology = match state.topology {
        Topology::PointList => w::PrimitiveTopology::PointList,
        Topology::LineList => w::PrimitiveTopology::LineList,
        Topology::LineStrip => w::PrimitiveTopology::LineStrip,
        Topology::TriangleList => w::PrimitiveTopology::TriangleList,
        Topology::TriangleStrip => w::PrimitiveTopology::TriangleStrip,
        Topology::TriangleFan => return Err("triangle fans: WebGPU has no fan topology".into()),
        Topology::LineListWithAdjacency
        | Topology::LineStripWithAdjacency
        | Topology::TriangleListWithAdjacency
        | Topology::TriangleStripWithAdjacency => {
            return Err(
                "primitives with adjacency: WebGPU has no geometry stage to read them".into(),
            );
        }
        Topology::PatchList => return Err("patches: WebGPU has no tessellation".into()),
    };
    if state.line_width() != 1.0 {
        return Err(format!(
            "line width {}: WebGPU draws 1-pixel lines only",
            state.line_width()
        ));
    }
    if state
        .dynamic
        .contains(shader_info::DynamicStates::DEPTH_BIAS)
        || state
            .dynamic
            .contains(shader_info::DynamicStates::LINE_WIDTH)
    {
        return Err(
            "a dynamic depth bias or line width: WebGPU fixes both at pipeline creation".into(),
        );
    }
    Ok(w::PrimitiveState {
        topology,
        // Primitive restart is always on for strips in WebGPU; the index format is given at draw time.
        strip_index_format: (state.primitive_restart && !state.topology.is_list())
            .then_some(w::IndexFormat::Uint32),
        front_face: match state.front_face {
            FrontFace::CounterClockwise => w::FrontFace::Ccw,
            FrontFace::Clockwise => w::FrontFace::Cw,
        },
        cull_mode: match state.cull {
            CullMode::None => None,
            CullMode::Front => Some(w::Face::Front),
            CullMode::Back => Some(w::Face::Back),
        },
        unclipped_depth: false,
        polygon_mode: match state.polygon_mode {
            PolygonMode::Fill => w::PolygonMode::Fill,
            PolygonMode::Line => w::PolygonMode::Line,
            PolygonMode::Point => w::PolygonMode::Point,
        },
        conservative: false,
    })
}

/// The depth-stencil state for an attachment of `format` (`None`: no attachment; the caller refuses a depth or
/// stencil test without one).
pub fn depth_stencil(
    state: &RenderState,
    format: Option<w::TextureFormat>,
) -> Option<w::DepthStencilState> {
    let format = format?;
    let face = |f: shader_info::StencilFace| w::StencilFaceState {
        compare: compare(f.compare),
        fail_op: stencil_op(f.fail),
        depth_fail_op: stencil_op(f.depth_fail),
        pass_op: stencil_op(f.pass),
    };
    let stencil = state
        .stencil
        .map_or(w::StencilState::default(), |s| w::StencilState {
            front: face(s.front),
            back: face(s.back),
            read_mask: s.read_mask.into(),
            write_mask: s.write_mask.into(),
        });
    let bias = state
        .depth_bias
        .map_or(w::DepthBiasState::default(), |b| w::DepthBiasState {
            // A whole number: `graphics_problems` refuses the others.
            constant: b.constant as i32,
            slope_scale: b.slope,
            clamp: b.clamp,
        });
    Some(w::DepthStencilState {
        format,
        depth_write_enabled: Some(state.depth.is_some_and(|d| d.write)),
        depth_compare: Some(
            state
                .depth
                .map_or(w::CompareFunction::Always, |d| compare(d.compare)),
        ),
        stencil,
        bias,
    })
}

/// The blend state of one output.
pub fn blend(b: Blend) -> Option<w::BlendState> {
    let (color, alpha) = b.components()?;
    let component = |c: shader_info::BlendComponent| w::BlendComponent {
        src_factor: blend_factor(c.src),
        dst_factor: blend_factor(c.dst),
        operation: match c.op {
            BlendOp::Add => w::BlendOperation::Add,
            BlendOp::Subtract => w::BlendOperation::Subtract,
            BlendOp::ReverseSubtract => w::BlendOperation::ReverseSubtract,
            BlendOp::Min => w::BlendOperation::Min,
            BlendOp::Max => w::BlendOperation::Max,
        },
    };
    Some(w::BlendState {
        color: component(color),
        alpha: component(alpha),
    })
}

fn blend_factor(f: BlendFactor) -> w::BlendFactor {
    use BlendFactor::*;
    use w::BlendFactor as B;
    match f {
        Zero => B::Zero,
        One => B::One,
        SrcColor => B::Src,
        OneMinusSrcColor => B::OneMinusSrc,
        DstColor => B::Dst,
        OneMinusDstColor => B::OneMinusDst,
        SrcAlpha => B::SrcAlpha,
        OneMinusSrcAlpha => B::OneMinusSrcAlpha,
        DstAlpha => B::DstAlpha,
        OneMinusDstAlpha => B::OneMinusDstAlpha,
        ConstantColor => B::Constant,
        OneMinusConstantColor => B::OneMinusConstant,
        SrcAlphaSaturate => B::SrcAlphaSaturated,
        Src1Color => B::Src1,
        OneMinusSrc1Color => B::OneMinusSrc1,
        Src1Alpha => B::Src1Alpha,
        OneMinusSrc1Alpha => B::OneMinusSrc1Alpha,
    }
}

/// The write mask of one output.
pub fn color_writes(c: ColorWrites) -> w::ColorWrites {
    let mut out = w::ColorWrites::empty();
    for (ours, theirs) in [
        (ColorWrites::R, w::ColorWrites::RED),
        (ColorWrites::G, w::ColorWrites::GREEN),
        (ColorWrites::B, w::ColorWrites::BLUE),
        (ColorWrites::A, w::ColorWrites::ALPHA),
    ] {
        if c.contains(ours) {
            out |= theirs;
        }
    }
    out
}

/// A comparison function.
pub fn compare(c: CompareOp) -> w::CompareFunction {
    use w::CompareFunction as C;
    match c {
        CompareOp::Never => C::Never,
        CompareOp::Less => C::Less,
        CompareOp::Equal => C::Equal,
        CompareOp::LessOrEqual => C::LessEqual,
        CompareOp::Greater => C::Greater,
        CompareOp::NotEqual => C::NotEqual,
        CompareOp::GreaterOrEqual => C::GreaterEqual,
        CompareOp::Always => C::Always,
    }
}

fn stencil_op(o: StencilOp) -> w::StencilOperation {
    use w::StencilOperation as S;
    match o {
        StencilOp::Keep => S::Keep,
        StencilOp::Zero => S::Zero,
        StencilOp::Replace => S::Replace,
        StencilOp::IncrementClamp => S::IncrementClamp,
        StencilOp::DecrementClamp => S::DecrementClamp,
        StencilOp::Invert => S::Invert,
        StencilOp::IncrementWrap => S::IncrementWrap,
        StencilOp::DecrementWrap => S::DecrementWrap,
    }
}

/// The wgpu sampler of a declared state (see [`shader_info::SamplerState`]); anisotropy needs linear filtering in
/// WebGPU, so it is dropped on nearest samplers.
pub fn sampler_descriptor(s: &shader_info::SamplerState) -> w::SamplerDescriptor<'static> {
    use shader_info::{BorderColor, TexelFilter, WrapMode};
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => w::FilterMode::Nearest,
        TexelFilter::Linear => w::FilterMode::Linear,
    };
    let mipmap = match s.mipmap {
        Some(TexelFilter::Linear) => w::MipmapFilterMode::Linear,
        Some(TexelFilter::Nearest) | None => w::MipmapFilterMode::Nearest,
    };
    let wrap = match s.wrap {
        WrapMode::Repeat => w::AddressMode::Repeat,
        WrapMode::MirroredRepeat => w::AddressMode::MirrorRepeat,
        WrapMode::ClampToEdge => w::AddressMode::ClampToEdge,
        WrapMode::ClampToBorder => w::AddressMode::ClampToBorder,
    };
    let all_linear = s.filter == TexelFilter::Linear && s.mipmap == Some(TexelFilter::Linear);
    w::SamplerDescriptor {
        label: Some("declared sampler state"),
        address_mode_u: wrap,
        address_mode_v: wrap,
        address_mode_w: wrap,
        mag_filter: filter(s.filter),
        min_filter: filter(s.filter),
        mipmap_filter: mipmap,
        lod_min_clamp: 0.0,
        lod_max_clamp: if s.mipmap.is_some() { 32.0 } else { 0.0 },
        compare: s.compare.map(compare),
        // Validation refuses anisotropy with a filter that is not linear (`SamplerState::problems`).
        anisotropy_clamp: if all_linear {
            u16::from(s.anisotropy.max(1))
        } else {
            1
        },
        border_color: (s.wrap == WrapMode::ClampToBorder).then_some(match s.border {
            BorderColor::TransparentBlack => w::SamplerBorderColor::TransparentBlack,
            BorderColor::OpaqueBlack => w::SamplerBorderColor::OpaqueBlack,
            BorderColor::OpaqueWhite => w::SamplerBorderColor::OpaqueWhite,
        }),
    }
}
