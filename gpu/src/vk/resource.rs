//! Small owned resources for tests, tools and the demo render: host-visible buffers, 2D images, samplers, and the
//! barrier/copy helpers that go with them (descriptor pools sit with the layouts they allocate from, in
//! [`super::layout`]). Not an allocator: one `VkDeviceMemory` per
//! resource.

use super::{VkContext, VkError, VkResult};
use ash::vk;

/// Records a barrier that makes what `stage` wrote with `access` (a shader's storage writes, a copy) visible to
/// the host, so a buffer can be read back once the submission's fence signals.
///
/// # Safety
/// `cmd` must be recording, from `d`.
pub unsafe fn host_read_barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    stage: vk::PipelineStageFlags2,
    access: vk::AccessFlags2,
) {
    let barrier = [vk::MemoryBarrier2::default()
        .src_stage_mask(stage)
        .src_access_mask(access)
        .dst_stage_mask(vk::PipelineStageFlags2::HOST)
        .dst_access_mask(vk::AccessFlags2::HOST_READ)];
    // SAFETY: guaranteed by the caller; the array borrows a local.
    unsafe {
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().memory_barriers(&barrier),
        )
    };
}

fn allocate(
    ctx: &VkContext,
    req: vk::MemoryRequirements,
    preferred: vk::MemoryPropertyFlags,
    required: vk::MemoryPropertyFlags,
    device_address: bool,
) -> VkResult<vk::DeviceMemory> {
    let index = ctx
        .memory_type(req.memory_type_bits, preferred | required)
        .or_else(|| ctx.memory_type(req.memory_type_bits, required))
        .ok_or_else(|| VkError::Other(format!("no memory type with {required:?}")))?;
    let mut flags =
        vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    let mut info = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(index);
    if device_address {
        info = info.push_next(&mut flags);
    }
    // SAFETY: the allocate info is valid and borrows locals only.
    unsafe { ctx.device().allocate_memory(&info, None) }.map_err(VkError::call("vkAllocateMemory"))
}

/// A host-visible, coherent, persistently mapped buffer.
///
/// ```no_run
/// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
/// use shader_info_gpu::vk::{Buffer, raw};
/// let b = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER)?;
/// b.write_slice(&[1u32, 2, 3, 4])?;
/// assert!(b.write_slice(&[0u32; 5]).is_err()); // 20 bytes do not fit 16
/// assert_eq!(b.read_vec::<u32>(), [1, 2, 3, 4]);
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
pub struct Buffer {
    ctx: VkContext,
    handle: vk::Buffer,
    memory: vk::DeviceMemory,
    size: u64,
    // The mapping, as an address: a raw pointer would make the buffer neither `Send` nor `Sync`.
    mapped: usize,
    device_address: bool,
    usage: vk::BufferUsageFlags,
}

impl Buffer {
    /// Creates a buffer of `size` bytes (zero-filled). `SHADER_DEVICE_ADDRESS` in `usage` also allocates the
    /// memory with a device address.
    pub fn new(ctx: &VkContext, size: u64, usage: vk::BufferUsageFlags) -> VkResult<Buffer> {
        let device_address = usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS);
        let d = ctx.device();
        // SAFETY: creation and binding of fresh objects; on error paths we destroy what was created.
        unsafe {
            let handle = d
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size.max(4))
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .map_err(VkError::call("vkCreateBuffer"))?;
            let req = d.get_buffer_memory_requirements(handle);
            let memory = match allocate(
                ctx,
                req,
                vk::MemoryPropertyFlags::empty(),
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
                device_address,
            ) {
                Ok(m) => m,
                Err(e) => {
                    d.destroy_buffer(handle, None);
                    return Err(e);
                }
            };
            let mapped = d
                .bind_buffer_memory(handle, memory, 0)
                .and_then(|_| d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()));
            let mapped = match mapped {
                Ok(p) => p as usize,
                Err(e) => {
                    d.destroy_buffer(handle, None);
                    d.free_memory(memory, None);
                    return Err(VkError::Call {
                        call: "vkBindBufferMemory/vkMapMemory",
                        result: e,
                    });
                }
            };
            std::ptr::write_bytes(mapped as *mut u8, 0, size as usize);
            Ok(Buffer {
                ctx: ctx.clone(),
                handle,
                memory,
                size,
                mapped,
                device_address,
                usage,
            })
        }
    }

    /// The usage it was created with (a descriptor of a kind it lacks is refused where it is bound).
    pub fn usage(&self) -> vk::BufferUsageFlags {
        self.usage
    }

    /// A buffer holding `data`.
    pub fn with_data<T: bytemuck::Pod>(
        ctx: &VkContext,
        data: &[T],
        usage: vk::BufferUsageFlags,
    ) -> VkResult<Buffer> {
        let b = Buffer::new(ctx, std::mem::size_of_val(data) as u64, usage)?;
        b.write_slice(data)?;
        Ok(b)
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::Buffer {
        self.handle
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Copies `bytes` to the start of the buffer. The caller makes sure the device is not using the buffer at the
    /// same time. More bytes than the buffer holds are an error and nothing is written (never a silent cut).
    pub fn write(&self, bytes: &[u8]) -> VkResult<()> {
        self.write_at(0, bytes)
    }

    /// Writes `bytes` at `offset` (the same caller duty as [`Self::write`]); bytes past the buffer's end are an
    /// error and nothing is written.
    pub fn write_at(&self, offset: u64, bytes: &[u8]) -> VkResult<()> {
        let end = offset.checked_add(bytes.len() as u64);
        if end.is_none_or(|end| end > self.size) {
            return Err(VkError::Other(format!(
                "{} bytes at offset {offset} do not fit a buffer of {} bytes",
                bytes.len(),
                self.size
            )));
        }
        // SAFETY: the mapping covers `size` bytes and stays valid while `self` lives; `offset + len <= size`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.mapped as *mut u8).add(offset as usize),
                bytes.len(),
            )
        };
        Ok(())
    }

    /// Writes a slice of plain values at the start.
    pub fn write_slice<T: bytemuck::Pod>(&self, data: &[T]) -> VkResult<()> {
        self.write(bytemuck::cast_slice(data))
    }

    /// The whole contents.
    pub fn read(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.size as usize];
        // SAFETY: the mapping covers `size` bytes; memory is coherent, so finished device writes are visible.
        unsafe { std::ptr::copy_nonoverlapping(self.mapped as *const u8, v.as_mut_ptr(), v.len()) };
        v
    }

    /// The contents as plain values (trailing bytes that do not fill a `T` are dropped).
    pub fn read_vec<T: bytemuck::Pod>(&self) -> Vec<T> {
        let bytes = self.read();
        bytes
            .chunks_exact(std::mem::size_of::<T>())
            .map(bytemuck::pod_read_unaligned)
            .collect()
    }

    /// The device address (only for buffers created with `SHADER_DEVICE_ADDRESS`; 0 otherwise).
    pub fn device_address(&self) -> u64 {
        if !self.device_address {
            return 0;
        }
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS and bound to memory allocated with
        // DEVICE_ADDRESS, and bufferDeviceAddress is enabled whenever ray tracing is.
        unsafe {
            self.ctx.device().get_buffer_device_address(
                &vk::BufferDeviceAddressInfo::default().buffer(self.handle),
            )
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: we own both handles; freeing mapped memory unmaps it implicitly.
        unsafe {
            self.ctx.device().destroy_buffer(self.handle, None);
            self.ctx.device().free_memory(self.memory, None);
        }
    }
}

/// A 2D image with one mip level and a view of all of it.
pub struct Image2D {
    ctx: VkContext,
    handle: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    format: vk::Format,
    extent: vk::Extent2D,
    usage: vk::ImageUsageFlags,
}

pub(crate) fn aspect_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::D32_SFLOAT | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::D16_UNORM_S8_UINT
        | vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// Bytes per texel of the uncompressed color formats textures commonly use; `None` for the others.
fn texel_size(format: vk::Format) -> Option<u64> {
    use vk::Format as F;
    Some(match format {
        F::R8_UNORM | F::R8_SNORM | F::R8_UINT | F::R8_SINT | F::R8_SRGB => 1,
        F::R8G8_UNORM
        | F::R8G8_SNORM
        | F::R8G8_UINT
        | F::R8G8_SINT
        | F::R16_SFLOAT
        | F::R16_UNORM
        | F::R16_UINT
        | F::R16_SINT => 2,
        F::R8G8B8A8_UNORM
        | F::R8G8B8A8_SRGB
        | F::R8G8B8A8_SNORM
        | F::R8G8B8A8_UINT
        | F::R8G8B8A8_SINT
        | F::B8G8R8A8_UNORM
        | F::B8G8R8A8_SRGB
        | F::A2B10G10R10_UNORM_PACK32
        | F::R16G16_SFLOAT
        | F::R16G16_UNORM
        | F::R32_SFLOAT
        | F::R32_UINT
        | F::R32_SINT
        | F::B10G11R11_UFLOAT_PACK32 => 4,
        F::R16G16B16A16_SFLOAT | F::R16G16B16A16_UNORM | F::R32G32_SFLOAT | F::R32G32_UINT => 8,
        F::R32G32B32A32_SFLOAT | F::R32G32B32A32_UINT | F::R32G32B32A32_SINT => 16,
        _ => return None,
    })
}

impl Image2D {
    /// Creates an image in device-local memory where there is some (any memory otherwise), in layout
    /// `UNDEFINED`.
    ///
    /// ```no_run
    /// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
    /// use shader_info_gpu::vk::{Image2D, raw};
    /// let target = Image2D::new(&ctx, 64, 64, raw::Format::R8G8B8A8_UNORM,
    ///     raw::ImageUsageFlags::COLOR_ATTACHMENT | raw::ImageUsageFlags::TRANSFER_SRC)?;
    /// # Ok::<(), shader_info_gpu::vk::VkError>(())
    /// ```
    pub fn new(
        ctx: &VkContext,
        width: u32,
        height: u32,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> VkResult<Image2D> {
        let d = ctx.device();
        let extent = vk::Extent2D { width, height };
        // SAFETY: creation and binding of fresh objects; on error paths we destroy what was created.
        unsafe {
            let handle = d
                .create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(format)
                        .extent(vk::Extent3D {
                            width,
                            height,
                            depth: 1,
                        })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .tiling(vk::ImageTiling::OPTIMAL)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE)
                        .initial_layout(vk::ImageLayout::UNDEFINED),
                    None,
                )
                .map_err(VkError::call("vkCreateImage"))?;
            let req = d.get_image_memory_requirements(handle);
            let memory = match allocate(
                ctx,
                req,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
                vk::MemoryPropertyFlags::empty(),
                false,
            ) {
                Ok(m) => m,
                Err(e) => {
                    d.destroy_image(handle, None);
                    return Err(e);
                }
            };
            let view = d.bind_image_memory(handle, memory, 0).and_then(|_| {
                d.create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(handle)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(format)
                        .subresource_range(Image2D::range_of(format)),
                    None,
                )
            });
            let view = match view {
                Ok(v) => v,
                Err(e) => {
                    d.destroy_image(handle, None);
                    d.free_memory(memory, None);
                    return Err(VkError::Call {
                        call: "vkBindImageMemory/vkCreateImageView",
                        result: e,
                    });
                }
            };
            Ok(Image2D {
                ctx: ctx.clone(),
                handle,
                memory,
                view,
                format,
                extent,
                usage,
            })
        }
    }

    fn range_of(format: vk::Format) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange::default()
            .aspect_mask(aspect_of(format))
            .level_count(1)
            .layer_count(1)
    }

    /// The raw image.
    pub fn handle(&self) -> vk::Image {
        self.handle
    }

    /// The view of the whole image.
    pub fn view(&self) -> vk::ImageView {
        self.view
    }

    /// Its format.
    pub fn format(&self) -> vk::Format {
        self.format
    }

    /// Its size.
    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }

    /// What it was made for (a descriptor of a kind its usage lacks is outside the specification).
    pub fn usage(&self) -> vk::ImageUsageFlags {
        self.usage
    }

    /// A sampled image holding `texels` (tightly packed, row-major, of `format`), uploaded through a staging
    /// buffer and left in `SHADER_READ_ONLY_OPTIMAL`, readable by fragment and compute shaders: a texture in one
    /// call. Waits for the upload.
    ///
    /// ```no_run
    /// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
    /// use shader_info_gpu::vk::{Image2D, raw};
    /// let white = Image2D::texture(&ctx, 1, 1, raw::Format::R8G8B8A8_UNORM, &[255; 4])?;
    /// # Ok::<(), shader_info_gpu::vk::VkError>(())
    /// ```
    pub fn texture(
        ctx: &VkContext,
        width: u32,
        height: u32,
        format: vk::Format,
        texels: &[u8],
    ) -> VkResult<Image2D> {
        let count = width as u64 * height as u64;
        let expected = texel_size(format).map(|t| t * count);
        if count == 0
            || texels.is_empty()
            || !(texels.len() as u64).is_multiple_of(count)
            || expected.is_some_and(|e| e != texels.len() as u64)
        {
            return Err(VkError::Other(format!(
                "{} bytes are not the texels of a {width}x{height} {format:?} image{}",
                texels.len(),
                expected.map_or(String::new(), |e| format!(" ({e} bytes)"))
            )));
        }
        use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        let image = Image2D::new(ctx, width, height, format, usage)?;
        let staging = Buffer::with_data(ctx, texels, vk::BufferUsageFlags::TRANSFER_SRC)?;
        let readers = S::FRAGMENT_SHADER | S::COMPUTE_SHADER;
        ctx.submit_and_wait(|_, cmd| {
            // SAFETY: `cmd` is recording; the image and the staging buffer outlive the wait.
            unsafe {
                image.transition(
                    cmd,
                    L::UNDEFINED,
                    L::TRANSFER_DST_OPTIMAL,
                    S::NONE,
                    A::NONE,
                    S::COPY,
                    A::TRANSFER_WRITE,
                );
                image.copy_from_buffer(cmd, &staging);
                image.transition(
                    cmd,
                    L::TRANSFER_DST_OPTIMAL,
                    L::SHADER_READ_ONLY_OPTIMAL,
                    S::COPY,
                    A::TRANSFER_WRITE,
                    readers,
                    A::SHADER_SAMPLED_READ,
                );
            }
        })?;
        Ok(image)
    }

    /// Records a layout transition with a full synchronization2 barrier between the given stages/accesses.
    ///
    /// # Safety
    /// `cmd` must be a command buffer in the recording state, created from the same device.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn transition(
        &self,
        cmd: vk::CommandBuffer,
        old: vk::ImageLayout,
        new: vk::ImageLayout,
        src_stage: vk::PipelineStageFlags2,
        src_access: vk::AccessFlags2,
        dst_stage: vk::PipelineStageFlags2,
        dst_access: vk::AccessFlags2,
    ) {
        let barrier = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(src_stage)
            .src_access_mask(src_access)
            .dst_stage_mask(dst_stage)
            .dst_access_mask(dst_access)
            .old_layout(old)
            .new_layout(new)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.handle)
            .subresource_range(Image2D::range_of(self.format))];
        let dep = vk::DependencyInfo::default().image_memory_barriers(&barrier);
        // SAFETY: the caller guarantees `cmd` is recording; the barrier borrows locals.
        unsafe { self.ctx.device().cmd_pipeline_barrier2(cmd, &dep) };
    }

    /// Records the barrier between a draw that writes this color attachment and a later draw of the same rendering
    /// that reads it as a subpass input ([`shader_info::SubpassMode::LocalRead`]): by region, so each fragment
    /// waits only for the writes to its own pixel. The attachment stays in `RENDERING_LOCAL_READ_KHR`, the layout
    /// the rendering uses it in.
    ///
    /// # Safety
    /// `cmd` must be recording inside a dynamic rendering that has this image as a color attachment in
    /// `RENDERING_LOCAL_READ_KHR`, on a device with `dynamicRenderingLocalRead` enabled.
    pub unsafe fn local_read_barrier(&self, cmd: vk::CommandBuffer) {
        let layout = vk::ImageLayout::RENDERING_LOCAL_READ_KHR;
        let barrier = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
            .dst_access_mask(vk::AccessFlags2::INPUT_ATTACHMENT_READ)
            .old_layout(layout)
            .new_layout(layout)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.handle)
            .subresource_range(Image2D::range_of(self.format))];
        let dep = vk::DependencyInfo::default()
            .dependency_flags(vk::DependencyFlags::BY_REGION)
            .image_memory_barriers(&barrier);
        // SAFETY: the caller guarantees `cmd` is recording in a rendering that may hold this barrier; the
        // barrier borrows locals.
        unsafe { self.ctx.device().cmd_pipeline_barrier2(cmd, &dep) };
    }

    /// A buffer ↔ image copy of the whole image, tightly packed.
    fn whole_image_region(&self) -> vk::BufferImageCopy {
        vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(aspect_of(self.format))
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: self.extent.width,
                height: self.extent.height,
                depth: 1,
            })
    }

    /// Records a copy of the whole image (in `TRANSFER_SRC_OPTIMAL`) into `buffer`, tightly packed, followed by a
    /// barrier making the copy visible to the host.
    ///
    /// # Safety
    /// `cmd` must be recording, the image must be in `TRANSFER_SRC_OPTIMAL`, and `buffer` large enough.
    pub unsafe fn copy_to_buffer(&self, cmd: vk::CommandBuffer, buffer: &Buffer) {
        let region = [self.whole_image_region()];
        let d = self.ctx.device();
        // SAFETY: guaranteed by the caller (see above); arrays borrow locals.
        unsafe {
            d.cmd_copy_image_to_buffer(
                cmd,
                self.handle,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer.handle(),
                &region,
            );
            host_read_barrier(
                d,
                cmd,
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_WRITE,
            );
        }
    }

    /// Records a copy of `buffer` (tightly packed texels of the image's format) into the whole image, which must
    /// be in `TRANSFER_DST_OPTIMAL`: the upload half of a texture, the mirror of [`Self::copy_to_buffer`].
    ///
    /// # Safety
    /// `cmd` must be recording, the image must be in `TRANSFER_DST_OPTIMAL`, and `buffer` must hold at least
    /// width × height texels.
    pub unsafe fn copy_from_buffer(&self, cmd: vk::CommandBuffer, buffer: &Buffer) {
        let region = [self.whole_image_region()];
        // SAFETY: guaranteed by the caller (see above); the region borrows a local.
        unsafe {
            self.ctx.device().cmd_copy_buffer_to_image(
                cmd,
                buffer.handle(),
                self.handle,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &region,
            )
        };
    }
}

impl Drop for Image2D {
    fn drop(&mut self) {
        // SAFETY: we own the three handles; the view goes before the image, the image before its memory.
        unsafe {
            let d = self.ctx.device();
            d.destroy_image_view(self.view, None);
            d.destroy_image(self.handle, None);
            d.free_memory(self.memory, None);
        }
    }
}

/// An owned `VkSampler`: one filter for magnification and minification, no mipmaps, coordinates clamped to the
/// edge (what the 2D, text and fullscreen shaders expect).
///
/// ```no_run
/// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
/// use shader_info_gpu::vk::{raw, resource::Sampler};
/// let linear = Sampler::new(&ctx, raw::Filter::LINEAR)?;
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
pub struct Sampler {
    ctx: VkContext,
    handle: vk::Sampler,
    /// Whether it filters linearly (magnification or minification): integer texels cannot be filtered.
    linear: bool,
    /// Whether it compares (a depth comparison sampler): only shadow samplers take one, and they need one.
    compare: bool,
}

impl Sampler {
    /// A sampler filtering with `filter`, clamping to the edge.
    pub fn new(ctx: &VkContext, filter: vk::Filter) -> VkResult<Sampler> {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .max_lod(0.0);
        // SAFETY: the create info is fully initialised and borrows nothing.
        let handle = unsafe { ctx.device().create_sampler(&info, None) }
            .map_err(VkError::call("vkCreateSampler"))?;
        Ok(Sampler {
            ctx: ctx.clone(),
            handle,
            linear: filter == vk::Filter::LINEAR,
            compare: false,
        })
    }

    /// A sampler with a declared state ([`shader_info::SamplerState`]): what an immutable sampler of a set layout
    /// is made of, and what a renderer may create for a binding it samples the same way.
    ///
    /// The declared anisotropy is a ceiling, as in every engine's texture settings: it is clamped to the device's
    /// `maxSamplerAnisotropy`, and off where the device lacks `samplerAnisotropy`.
    pub fn with_state(ctx: &VkContext, state: &shader_info::SamplerState) -> VkResult<Sampler> {
        let mut info = super::map::sampler_info(state);
        if info.anisotropy_enable == vk::TRUE {
            let max = ctx.properties().limits.max_sampler_anisotropy;
            if ctx.feature_enabled("samplerAnisotropy") && max > 1.0 {
                info = info.max_anisotropy(info.max_anisotropy.min(max));
            } else {
                info = info.anisotropy_enable(false).max_anisotropy(1.0);
            }
        }
        // SAFETY: the create info is fully initialised and borrows nothing.
        let handle = unsafe { ctx.device().create_sampler(&info, None) }
            .map_err(VkError::call("vkCreateSampler"))?;
        Ok(Sampler {
            ctx: ctx.clone(),
            handle,
            linear: info.mag_filter == vk::Filter::LINEAR || info.min_filter == vk::Filter::LINEAR,
            compare: info.compare_enable == vk::TRUE,
        })
    }

    /// Whether it filters linearly (magnification or minification).
    pub fn is_linear(&self) -> bool {
        self.linear
    }

    /// Whether it is a depth comparison sampler.
    pub fn compares(&self) -> bool {
        self.compare
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::Sampler {
        self.handle
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: we own the sampler; callers keep it alive while descriptor sets that use it are in flight.
        unsafe { self.ctx.device().destroy_sampler(self.handle, None) };
    }
}
