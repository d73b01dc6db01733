//! Resources bound by their declared names: the set, the bindings and the descriptor types come from the
//! pipeline's plan, so a renderer never restates a number the declaration holds. What is left out, unknown, given
//! twice or of the wrong kind is the core's error ([`shader_info::PipelinePlan::bind_set`]), the same on wgpu.

use super::error::{VkError, VkResult};
use super::layout::{DescriptorPool, PipelineLayout};
use super::map::descriptor_type;
use super::resource::{Buffer, Image2D, Sampler};
use ash::vk;
use shader_info::{
    BindingPlan, BindingSet, Bound, Code, DescriptorKind, Diagnostic, HostResource, HostTypes,
    ImageType, ResourceKind, Unsupported,
};

/// Vulkan's resource types for the generated binding structs of `#[derive(ShaderInfo)]` infos
/// ([`shader_info::BindingSet`]): buffers, [`Image2D`]s and [`Sampler`]s of this crate.
pub struct VkHost;

impl HostTypes for VkHost {
    type Buffer = Buffer;
    type Texture = Image2D;
    type Sampler = Sampler;
    // Acceleration structures are bound through the ray-tracing pipeline's own descriptor writes.
    type AccelerationStructure = Unsupported;

    fn buffer_size(buffer: &Buffer) -> Option<u64> {
        Some(buffer.size())
    }
}

/// Why `buffer` cannot back `binding`: made without the usage its descriptor needs (undefined behaviour to bind).
fn usage_problem(plan_key: &str, binding: &BindingPlan, buffer: &Buffer) -> Option<Diagnostic> {
    use vk::BufferUsageFlags as U;
    crate::library::checks::buffer_usage_problem(
        plan_key,
        binding,
        buffer.usage(),
        [U::UNIFORM_BUFFER, U::STORAGE_BUFFER],
        U::contains,
    )
}

/// Why an [`Image2D`] (always a single-layer 2D view) cannot be bound where `binding` is declared: a cube, 3D,
/// array or multisampled declaration read through a 2D view is undefined behaviour on Vulkan, and so is a
/// descriptor of a kind the image's usage lacks (a storage image without `STORAGE`, a texture without `SAMPLED`,
/// an input attachment without `INPUT_ATTACHMENT`). A sampled texture's texels must be of the declared kind (a
/// `usampler2D` reads an unsigned-integer format, a `sampler2D` a float, normalized or depth one), and a storage
/// image must be of the declared format: the shader reads and writes texels of that format.
fn view_problem(plan_key: &str, binding: &BindingPlan, images: &[&Image2D]) -> Option<Diagnostic> {
    let problem = |message: String, hint: &str| {
        Diagnostic::error(Code::HostMismatch, plan_key, message)
            .item(format!("resource `{}`", binding.name))
            .at(&binding.declared_in, binding.origin)
            .hint(hint.to_string())
    };
    let needed = match binding.kind {
        DescriptorKind::StorageImage => vk::ImageUsageFlags::STORAGE,
        DescriptorKind::InputAttachment => vk::ImageUsageFlags::INPUT_ATTACHMENT,
        _ => vk::ImageUsageFlags::SAMPLED,
    };
    if let Some(i) = images.iter().find(|i| !i.usage().contains(needed)) {
        return Some(problem(
            format!(
                "`{}` is a {:?}, but the image bound was made with the usage {:?}, without {needed:?}",
                binding.name,
                binding.kind,
                i.usage()
            ),
            &format!("make the image with {needed:?}"),
        ));
    }
    // A descriptor reads one aspect; an Image2D's view of a depth-and-stencil format has both.
    let both = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
    if let Some(i) = images
        .iter()
        .find(|i| super::resource::aspect_of(i.format()).contains(both))
    {
        return Some(problem(
            format!(
                "`{}` reads one aspect of an image, but the image bound is {:?}, depth and stencil in one view",
                binding.name,
                i.format()
            ),
            "make the image with a depth-only format (D32_SFLOAT, D16_UNORM), or bind a view of one aspect by \
             hand (DescriptorPool::write_image_view)",
        ));
    }
    let (image_type, format) = match &binding.resource {
        ResourceKind::Sampler { image_type, .. } => (*image_type, None),
        ResourceKind::Image {
            image_type, format, ..
        } => (*image_type, Some(*format)),
        _ => return None,
    };
    use ImageType::*;
    let plain_2d = matches!(
        image_type,
        Float2D | Int2D | Uint2D | Shadow2D | Depth2D | AtomicUint2D | AtomicInt2D
    );
    if !plain_2d {
        return Some(problem(
            format!(
                "`{}` is declared {image_type:?}, but an Image2D is a single-layer 2D view",
                binding.name
            ),
            "bind it by hand with a view of the declared type (DescriptorPool::write_image_view)",
        ));
    }
    let Some(format) = format else {
        let wanted = image_type.component_kind();
        return images
            .iter()
            .find(|i| texel_kind(i.format()) != wanted)
            .map(|i| {
                problem(
                    format!(
                        "`{}` is declared {image_type:?} and reads {} texels, but the image bound is {:?}",
                        binding.name,
                        shader_info::component_kind_word(wanted),
                        i.format()
                    ),
                    "bind an image whose format holds texels of the declared kind, or declare the kind the image holds",
                )
            });
    };
    let wanted = super::map::texture_format(format);
    images.iter().find(|i| i.format() != wanted).map(|i| {
        problem(
            format!(
                "`{}` is a storage image of the declared format {format:?} ({wanted:?}), but the image bound is {:?}",
                binding.name,
                i.format()
            ),
            "bind an image of the declared format, or declare the format the image has",
        )
    })
}

/// Why a sampler cannot sample an image where `binding` is declared: a shadow sampler (`sampler2DShadow`)
/// compares depth, so it needs a comparison sampler and a depth image; any other sampler must not compare; and
/// integer texels cannot be filtered linearly. Each is a validation error at the draw on Vulkan, where WebGPU
/// refuses the bind group.
fn sampler_problem(
    plan_key: &str,
    binding: &BindingPlan,
    pairs: &[(&Image2D, &Sampler)],
) -> Option<Diagnostic> {
    let pairs: Vec<(&Image2D, Filtering)> = pairs
        .iter()
        .map(|(image, sampler)| {
            (
                *image,
                Filtering {
                    compares: sampler.compares(),
                    linear: sampler.is_linear(),
                },
            )
        })
        .collect();
    filtering_problem(plan_key, binding, &pairs)
}

/// [`sampler_problem`] for images bound alone where the declaration fixes the sampler
/// ([`shader_info::ShaderCreateInfo::sampler_with_state`]): the library makes that sampler, and the image must suit
/// it all the same (a depth image for a comparison, no integer texels for a linear filter).
fn fixed_sampler_problem(
    plan_key: &str,
    binding: &BindingPlan,
    images: &[&Image2D],
) -> Option<Diagnostic> {
    let state = binding.resource.fixed_sampler()?;
    let filtering = Filtering {
        compares: state.compare.is_some(),
        linear: state.filter == shader_info::TexelFilter::Linear,
    };
    let pairs: Vec<(&Image2D, Filtering)> = images.iter().map(|i| (*i, filtering)).collect();
    filtering_problem(plan_key, binding, &pairs)
}

/// What a sampler does that the image it samples must suit.
#[derive(Clone, Copy)]
struct Filtering {
    compares: bool,
    linear: bool,
}

fn filtering_problem(
    plan_key: &str,
    binding: &BindingPlan,
    pairs: &[(&Image2D, Filtering)],
) -> Option<Diagnostic> {
    let ResourceKind::Sampler { image_type, .. } = &binding.resource else {
        return None;
    };
    let problem = |message: String, hint: &str| {
        Diagnostic::error(Code::HostMismatch, plan_key, message)
            .item(format!("resource `{}`", binding.name))
            .at(&binding.declared_in, binding.origin)
            .hint(hint.to_string())
    };
    let name = &binding.name;
    pairs.iter().find_map(|(image, sampler)| {
        let depth = super::resource::aspect_of(image.format()).contains(vk::ImageAspectFlags::DEPTH);
        if image_type.is_shadow() && !depth {
            Some(problem(
                format!("`{name}` is declared {image_type:?} and compares depth, but the image bound is {:?}", image.format()),
                "bind a depth image (D32_SFLOAT, D16_UNORM), or declare a sampler of the kind the image holds",
            ))
        } else if image_type.is_shadow() && !sampler.compares {
            Some(problem(
                format!("`{name}` is declared {image_type:?}, but the sampler bound does not compare"),
                "make the sampler with a compare op (Sampler::with_state with SamplerState::compare)",
            ))
        } else if !image_type.is_shadow() && sampler.compares {
            Some(problem(
                format!("`{name}` is declared {image_type:?}, but the sampler bound is a comparison sampler"),
                "bind a sampler without a compare op, or declare a shadow sampler",
            ))
        } else if matches!(texel_kind(image.format()), 'u' | 'i') && sampler.linear {
            Some(problem(
                format!(
                    "`{name}` reads integer texels ({:?}), which a linear sampler cannot filter",
                    image.format()
                ),
                "bind a nearest sampler (Sampler::new(ctx, vk::Filter::NEAREST))",
            ))
        } else {
            None
        }
    })
}

/// The kind of texel a shader reads from an image of `format`, as [`ImageType::component_kind`] spells it: `u`
/// for unsigned-integer formats, `i` for signed-integer ones, `f` for the rest (float, normalized, sRGB and the
/// depth aspect of a depth format).
fn texel_kind(format: vk::Format) -> char {
    use crate::library::FormatClass;
    if super::resource::aspect_of(format).contains(vk::ImageAspectFlags::DEPTH) {
        return 'f';
    }
    match super::map::format_class(format) {
        Some(FormatClass::Uint) => 'u',
        Some(FormatClass::Sint) => 'i',
        _ => 'f',
    }
}

/// A resource for a declared binding ([`PipelineLayout::descriptor_set`]): a buffer (the whole buffer), a texture
/// alone (a sampled texture or a combined sampler whose sampler the declaration fixes, read in
/// `SHADER_READ_ONLY_OPTIMAL`; a storage image in `GENERAL`; an input attachment in
/// `RENDERING_LOCAL_READ_KHR`), or a texture and its sampler (`Resource::Sampled`).
pub type Resource<'a> = Bound<'a, VkHost>;

/// The layout an image bound alone is in when the set is used: storage images `GENERAL`, input attachments
/// `RENDERING_LOCAL_READ_KHR` (local read), the rest `SHADER_READ_ONLY_OPTIMAL` (a combined sampler's immutable
/// sampler comes from the set layout).
fn image_layout(kind: DescriptorKind) -> vk::ImageLayout {
    match kind {
        DescriptorKind::StorageImage => vk::ImageLayout::GENERAL,
        DescriptorKind::InputAttachment => vk::ImageLayout::RENDERING_LOCAL_READ_KHR,
        _ => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }
}

impl PipelineLayout {
    /// Allocates from `pool` the descriptor set that `resources` are declared in and writes each one at its
    /// declared binding with its declared descriptor type. Returns the set's index (bind it there) and handle.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary, image: &shader_info_gpu::vk::Image2D, sampler: &shader_info_gpu::vk::resource::Sampler)
    /// #     -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{DescriptorPool, GraphicsOptions, Resource};
    /// let p = lib.graphics_pipeline("gpu_shader_2D_image", &GraphicsOptions::default())?;
    /// let pool = DescriptorPool::for_layout(lib.context(), p.layout(), 1)?;
    /// let (set, handle) = p.layout().descriptor_set(&pool, &[("image", Resource::Sampled(image, sampler))])?;
    /// assert_eq!(set, 1); // `image` is declared Batch
    /// # Ok(()) }
    /// ```
    pub fn descriptor_set(
        &self,
        pool: &DescriptorPool,
        resources: &[(&str, Resource<'_>)],
    ) -> VkResult<(u32, vk::DescriptorSet)> {
        let Some(plan) = self.plan() else {
            return Err(VkError::Other(
                "this pipeline layout was made without its plan: make it with PipelineLayout::for_plan (the \
                 shader library does) to bind by declared name"
                    .into(),
            ));
        };
        let neutral: Vec<(&str, HostResource)> =
            resources.iter().map(|(n, r)| (*n, r.host())).collect();
        let resolved = plan.bind_set(&neutral).map_err(VkError::Diagnostics)?;
        let layout = self
            .set_layouts()
            .get(resolved.set as usize)
            .ok_or_else(|| {
                VkError::Other(format!(
                    "the pipeline layout of `{}` has no set {}",
                    plan.key, resolved.set
                ))
            })?;
        let problems: Vec<Diagnostic> = resources
            .iter()
            .zip(&resolved.bindings)
            .filter_map(|((_, r), b)| match r {
                Resource::Buffer(buffer) => usage_problem(&plan.key, b, buffer),
                // Before the set is allocated: a refusal then leaves nothing behind in the pool.
                Resource::TexelBuffer(buffer, format) => pool
                    .texel_buffer_problem(descriptor_type(b.kind), buffer, *format)
                    .map(|why| {
                        Diagnostic::error(Code::HostMismatch, &plan.key, format!("`{}`: {why}", b.name))
                            .item(format!("resource `{}`", b.name))
                            .at(&b.declared_in, b.origin)
                            .hint("make the buffer with the texel-buffer usage, of a format the device reads")
                    }),
                Resource::AccelerationStructure(_) => None,
                Resource::Texture(image) => view_problem(&plan.key, b, &[image])
                    .or_else(|| fixed_sampler_problem(&plan.key, b, &[image])),
                Resource::Sampled(image, sampler) => view_problem(&plan.key, b, &[image])
                    .or_else(|| sampler_problem(&plan.key, b, &[(image, sampler)])),
                Resource::Textures(images) => view_problem(&plan.key, b, images)
                    .or_else(|| fixed_sampler_problem(&plan.key, b, images)),
                Resource::SampledArray(elements) => {
                    let images: Vec<&Image2D> = elements.iter().map(|(i, _)| *i).collect();
                    view_problem(&plan.key, b, &images)
                        .or_else(|| sampler_problem(&plan.key, b, elements))
                }
            })
            .collect();
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        let set = pool.allocate(layout)?;
        // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
        unsafe {
            for ((_, resource), b) in resources.iter().zip(&resolved.bindings) {
                let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
                match (*resource, b.kind) {
                    (Resource::Buffer(buffer), kind) => {
                        pool.write_buffer(set, b.binding, descriptor_type(kind), buffer)
                    }
                    (Resource::Sampled(image, sampler), _) => {
                        pool.write_sampled_image(set, b.binding, image, sampler, read)
                    }
                    (Resource::SampledArray(elements), _) => pool.write_images(
                        set,
                        b.binding,
                        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                        elements
                            .iter()
                            .map(|(image, sampler)| (*image, Some(*sampler))),
                        read,
                    ),
                    (Resource::Texture(image), kind) => pool.write_images(
                        set,
                        b.binding,
                        descriptor_type(kind),
                        [(image, None)],
                        image_layout(kind),
                    ),
                    (Resource::Textures(images), kind) => pool.write_images(
                        set,
                        b.binding,
                        descriptor_type(kind),
                        images.iter().map(|image| (*image, None)),
                        image_layout(kind),
                    ),
                    (Resource::TexelBuffer(buffer, format), kind) => pool
                        .write_texel_buffer_of(
                            set,
                            b.binding,
                            descriptor_type(kind),
                            buffer,
                            format,
                        )
                        .map_err(|e| {
                            VkError::Diagnostics(vec![
                                Diagnostic::error(
                                    Code::HostMismatch,
                                    &plan.key,
                                    format!("`{}`: {e}", b.name),
                                )
                                .item(format!("resource `{}`", b.name))
                                .at(&b.declared_in, b.origin),
                            ])
                        })?,
                    (Resource::AccelerationStructure(never), _) => match *never {},
                }
            }
        }
        Ok((resolved.set, set))
    }

    /// [`Self::descriptor_set`] for a generated binding struct of a `#[derive(ShaderInfo)]` info: every resource it
    /// declares is a field, so one left out or of the wrong kind does not compile. A struct of another info is an
    /// error naming both.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary, params: &shader_info_gpu::vk::Buffer) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{DescriptorPool, VkHost};
    /// use shader_info::ShaderInfo;
    /// #[derive(Clone, Copy, ShaderInfo)]
    /// #[shader(name = "scale_values", storage_buf(0, ReadWrite, "float", "values[]", Batch),
    ///     local_group_size(64), compute_source("scale.comp.glsl"))]
    /// struct ScaleValues;
    /// let p = lib.compute_pipeline(ScaleValues::NAME)?;
    /// let pool = DescriptorPool::for_layout(lib.context(), p.layout(), 1)?;
    /// let (set, handle) = p.layout().bind(&pool, &ScaleValuesBatchSet::<VkHost> { values: params })?;
    /// # Ok(()) }
    /// ```
    pub fn bind<'a, S: BindingSet<'a, VkHost>>(
        &self,
        pool: &DescriptorPool,
        set: &S,
    ) -> VkResult<(u32, vk::DescriptorSet)> {
        if let Some(plan) = self.plan() {
            let problems = plan.binding_set_problems::<VkHost, S>();
            if !problems.is_empty() {
                return Err(VkError::Diagnostics(problems));
            }
        }
        self.descriptor_set(pool, &set.resources())
    }
}
