//! Resources bound by their declared names: the set, the bindings and the descriptor types come from the
//! pipeline's plan, so a renderer never restates a number the declaration holds. What is left out, unknown, given
//! twice or of the wrong kind is the core's error ([`shader_info::PipelinePlan::bind_set`]), the same on wgpu.

use super::error::{VkError, VkResult};
use super::layout::{DescriptorPool, PipelineLayout};
use super::map::descriptor_type;
use super::resource::{Buffer, Image2D, Sampler};
use ash::vk;
use shader_info::{DescriptorKind, HostResource};

/// A resource for a declared binding ([`PipelineLayout::descriptor_set`]).
#[derive(Clone, Copy)]
pub enum Resource<'a> {
    /// A uniform or storage buffer (the whole buffer).
    Buffer(&'a Buffer),
    /// A texture alone: a sampled texture or a combined sampler whose sampler the declaration fixes (read in
    /// `SHADER_READ_ONLY_OPTIMAL`), a storage image (`GENERAL`), an input attachment (`RENDERING_LOCAL_READ_KHR`).
    Texture(&'a Image2D),
    /// A texture and its sampler, for a combined sampler (read in `SHADER_READ_ONLY_OPTIMAL`).
    Sampled(&'a Image2D, &'a Sampler),
}

impl Resource<'_> {
    fn host(&self) -> HostResource {
        match self {
            Resource::Buffer(_) => HostResource::Buffer,
            Resource::Texture(_) => HostResource::Texture,
            Resource::Sampled(..) => HostResource::TextureAndSampler,
        }
    }
}

impl PipelineLayout {
    /// Allocates from `pool` the descriptor set that `resources` are declared in and writes each one at its
    /// declared binding with its declared descriptor type. Returns the set's index (bind it there) and handle.
    ///
    /// ```no_run
    /// # fn f(lib: &mut gpu::vk::ShaderLibrary, image: &gpu::vk::Image2D, sampler: &gpu::vk::resource::Sampler)
    /// #     -> gpu::vk::VkResult<()> {
    /// use gpu::vk::{DescriptorPool, GraphicsOptions, Resource};
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
        let set = pool.allocate(layout)?;
        for ((_, resource), b) in resources.iter().zip(&resolved.bindings) {
            match (*resource, b.kind) {
                (Resource::Buffer(buffer), kind) => {
                    pool.write_buffer(set, b.binding, descriptor_type(kind), buffer)
                }
                (Resource::Sampled(image, sampler), _) => pool.write_sampled_image(
                    set,
                    b.binding,
                    image,
                    sampler,
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                ),
                (Resource::Texture(image), DescriptorKind::StorageImage) => {
                    pool.write_storage_image(set, b.binding, image)
                }
                (Resource::Texture(image), DescriptorKind::InputAttachment) => {
                    pool.write_input_attachment(set, b.binding, image)
                }
                (Resource::Texture(image), DescriptorKind::CombinedImageSampler) => pool
                    .write_image_with_immutable_sampler(
                        set,
                        b.binding,
                        image,
                        vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    ),
                (Resource::Texture(image), kind) => pool.write_image(
                    set,
                    b.binding,
                    descriptor_type(kind),
                    image,
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                ),
            }
        }
        Ok((resolved.set, set))
    }
}
