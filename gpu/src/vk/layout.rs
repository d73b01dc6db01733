//! Pipeline layouts mapped from a [`PipelinePlan`]: one descriptor-set layout per set of the plan (empty layouts
//! for gaps), descriptor types, counts and stage flags from its bindings, and the push-constant range from its
//! block. Identical set layouts are created once and shared through a [`LayoutCache`].

use super::device::VkContext;
use super::error::{VkError, VkResult};
use super::map::{descriptor_type, stage_mask};
use super::resource::{Buffer, Image2D, Sampler};
use ash::vk;
use shader_info::{PipelinePlan, SamplerState};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One binding of a descriptor-set layout, as plain data (what the cache is keyed by).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DescriptorBinding {
    pub binding: u32,
    pub descriptor_type: vk::DescriptorType,
    pub count: u32,
    pub stages: vk::ShaderStageFlags,
    /// The declared sampler state of a combined image sampler: an immutable sampler of the set layout.
    pub immutable_sampler: Option<SamplerState>,
}

/// The push-constant range of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PushConstants {
    pub stages: vk::ShaderStageFlags,
    /// Size in bytes of the std430 block (a multiple of 4): the range.
    pub size: u32,
    /// The size of the block's Rust twin ([`shader_info::PushConstantPlan::twin_size`]): pushing that many bytes
    /// pushes the block and drops the tail padding.
    pub twin_size: u32,
    /// The set of the storage buffer the block is spilled to ([`shader_info::PushConstantSpill`]); then the
    /// layout has no push-constant range and [`PipelineLayout::push`] writes and binds that buffer.
    pub spill_set: Option<u32>,
}

/// A pipeline layout in `ash` types: `sets[i]` are the bindings of set `i`, sorted by binding.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LayoutDesc {
    /// The info (or variant key) the layout was described for: errors about what is pushed through it name it.
    pub info: String,
    pub sets: Vec<Vec<DescriptorBinding>>,
    pub push_constants: Option<PushConstants>,
}

/// The pipeline layout of a plan (narrow its stage usage first with [`PipelinePlan::with_stage_usage`]).
///
/// ```
/// use shader_info_gpu::vk::{describe_layout, raw};
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x")
///     .sampler(0, ImageType::Float2D, "tex[4]", Frequency::Batch)
///     .push_constant(Type::Vec4, "color")
///     .local_group_size(1)
///     .compute_source("x.comp"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// let desc = describe_layout(&plan);
/// assert_eq!(desc.sets.len(), 2);
/// assert!(desc.sets[0].is_empty());
/// assert_eq!(desc.sets[1][0].count, 4);
/// assert_eq!(desc.push_constants.unwrap().size, 16);
/// ```
pub fn describe_layout(plan: &PipelinePlan) -> LayoutDesc {
    LayoutDesc {
        info: plan.key.clone(),
        sets: plan
            .sets
            .iter()
            .map(|s| {
                s.bindings
                    .iter()
                    .map(|b| DescriptorBinding {
                        binding: b.binding,
                        descriptor_type: descriptor_type(b.kind),
                        count: b.count,
                        stages: stage_mask(b.stages),
                        immutable_sampler: b.resource.fixed_sampler().copied(),
                    })
                    .collect()
            })
            .collect(),
        push_constants: plan.push_constants.as_ref().map(|p| PushConstants {
            stages: stage_mask(p.stages),
            size: p.size,
            twin_size: p.twin_size(),
            spill_set: p.spill.map(|s| s.set),
        }),
    }
}

/// An owned `VkDescriptorSetLayout`; destroyed on drop. Shared through `Arc` by every pipeline layout that uses
/// the same bindings.
pub struct DescriptorSetLayout {
    ctx: VkContext,
    handle: vk::DescriptorSetLayout,
    bindings: Vec<DescriptorBinding>,
    /// The immutable samplers baked into the layout; they live as long as it does.
    _samplers: Vec<Sampler>,
}

impl std::fmt::Debug for DescriptorSetLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DescriptorSetLayout")
            .field("handle", &self.handle)
            .field("bindings", &self.bindings)
            .finish()
    }
}

impl DescriptorSetLayout {
    /// Creates a set layout (prefer [`LayoutCache::get`], which shares identical ones).
    pub fn new(ctx: &VkContext, bindings: &[DescriptorBinding]) -> VkResult<DescriptorSetLayout> {
        // One sampler per distinct declared state, repeated for every descriptor of an array.
        let mut samplers: Vec<(SamplerState, Sampler)> = Vec::new();
        for state in bindings.iter().filter_map(|b| b.immutable_sampler) {
            if !samplers.iter().any(|(s, _)| *s == state) {
                samplers.push((state, Sampler::with_state(ctx, &state)?));
            }
        }
        let handles: Vec<Vec<vk::Sampler>> = bindings
            .iter()
            .map(|b| match b.immutable_sampler {
                Some(state) => {
                    let h = samplers
                        .iter()
                        .find(|(s, _)| *s == state)
                        .map(|(_, s)| s.handle())
                        .unwrap_or_default();
                    vec![h; b.count as usize]
                }
                None => Vec::new(),
            })
            .collect();
        let raw: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .zip(&handles)
            .map(|(b, immutable)| {
                let mut l = vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(b.descriptor_type)
                    .descriptor_count(b.count)
                    .stage_flags(b.stages);
                if !immutable.is_empty() {
                    l = l.immutable_samplers(immutable);
                }
                l
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&raw);
        // SAFETY: `raw` outlives the call; bindings are unique (validation refuses two resources at one binding).
        let handle = unsafe { ctx.device().create_descriptor_set_layout(&info, None) }
            .map_err(VkError::call("vkCreateDescriptorSetLayout"))?;
        Ok(DescriptorSetLayout {
            ctx: ctx.clone(),
            handle,
            bindings: bindings.to_vec(),
            _samplers: samplers.into_iter().map(|(_, s)| s).collect(),
        })
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::DescriptorSetLayout {
        self.handle
    }

    /// The bindings it was created from.
    pub fn bindings(&self) -> &[DescriptorBinding] {
        &self.bindings
    }
}

impl Drop for DescriptorSetLayout {
    fn drop(&mut self) {
        // SAFETY: created from this device, owned by this value; pipeline layouts created from it keep an `Arc`
        // to it, and Vulkan allows destroying a set layout once no create call uses it.
        unsafe {
            self.ctx
                .device()
                .destroy_descriptor_set_layout(self.handle, None)
        };
    }
}

/// Creates each distinct descriptor-set layout once.
///
/// ```no_run
/// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
/// use shader_info_gpu::vk::LayoutCache;
/// let cache = LayoutCache::new(&ctx);
/// let a = cache.get(&[])?;
/// let b = cache.get(&[])?;
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
pub struct LayoutCache {
    ctx: VkContext,
    sets: Mutex<HashMap<Vec<DescriptorBinding>, Arc<DescriptorSetLayout>>>,
}

impl LayoutCache {
    /// An empty cache for `ctx`.
    pub fn new(ctx: &VkContext) -> LayoutCache {
        LayoutCache {
            ctx: ctx.clone(),
            sets: Mutex::new(HashMap::new()),
        }
    }

    /// The set layout for `bindings`, created on first use.
    pub fn get(&self, bindings: &[DescriptorBinding]) -> VkResult<Arc<DescriptorSetLayout>> {
        let mut key = bindings.to_vec();
        key.sort();
        let mut map = self.sets.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = map.get(&key) {
            return Ok(l.clone());
        }
        let l = Arc::new(DescriptorSetLayout::new(&self.ctx, &key)?);
        map.insert(key, l.clone());
        Ok(l)
    }

    /// Number of distinct set layouts created.
    pub fn len(&self) -> usize {
        self.sets.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// True when no layout was created yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An owned `VkPipelineLayout` with the set layouts it was made from.
pub struct PipelineLayout {
    ctx: VkContext,
    handle: vk::PipelineLayout,
    sets: Vec<Arc<DescriptorSetLayout>>,
    desc: LayoutDesc,
    /// The plan the layout was made for, when it was ([`PipelineLayout::for_plan`]): binding by declared name
    /// ([`PipelineLayout::descriptor_set`]) reads it.
    plan: Option<Arc<PipelinePlan>>,
    /// Memory of spilled push-constant blocks (see [`PipelineLayout::push`]).
    spilled: Mutex<SpillArena>,
}

/// Storage for spilled push-constant blocks: chunks of host-visible memory, each with a descriptor pool of one set
/// per block it can hold, filled front to back and kept until [`PipelineLayout::recycle_pushed`].
#[derive(Default)]
struct SpillArena {
    chunks: Vec<SpillChunk>,
    /// Index of the chunk being filled.
    current: usize,
}

struct SpillChunk {
    buffer: Buffer,
    pool: DescriptorPool,
    used: u64,
}

/// Bytes of one spill chunk: 64 KiB holds 256 blocks of 256 bytes before another chunk is needed.
const SPILL_CHUNK_BYTES: u64 = 64 * 1024;

impl std::fmt::Debug for PipelineLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineLayout")
            .field("handle", &self.handle)
            .field("desc", &self.desc)
            .finish()
    }
}

impl PipelineLayout {
    /// Creates the layout described by `desc`, taking set layouts from `cache`.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::vk::VkContext, plan: &shader_info::PipelinePlan) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{describe_layout, LayoutCache, PipelineLayout};
    /// let cache = LayoutCache::new(&ctx);
    /// let layout = PipelineLayout::new(&ctx, &cache, &describe_layout(plan))?;
    /// # Ok(()) }
    /// ```
    pub fn new(
        ctx: &VkContext,
        cache: &LayoutCache,
        desc: &LayoutDesc,
    ) -> VkResult<PipelineLayout> {
        // A description made by hand (its fields are public) is held to what the driver takes: a push range it
        // refused would surface as a validation error at the draw, behind this safe call.
        let limit = ctx.properties().limits.max_push_constants_size;
        if let Some(p) = desc.push_constants.iter().find(|p| {
            p.spill_set.is_none()
                && (p.size == 0 || p.size % 4 != 0 || p.size > limit || p.stages.is_empty())
        }) {
            return Err(VkError::Other(format!(
                "a push-constant range of {} bytes for stages {:?}: Vulkan takes a non-zero multiple of 4 up to \
                 this device's {limit} bytes, for at least one stage (describe the layout with describe_layout)",
                p.size, p.stages
            )));
        }
        let sets = desc
            .sets
            .iter()
            .map(|b| cache.get(b))
            .collect::<VkResult<Vec<_>>>()?;
        let handles: Vec<vk::DescriptorSetLayout> = sets.iter().map(|s| s.handle()).collect();
        let ranges: Vec<vk::PushConstantRange> = desc
            .push_constants
            .iter()
            .filter(|p| p.spill_set.is_none())
            .map(|p| {
                vk::PushConstantRange::default()
                    .stage_flags(p.stages)
                    .offset(0)
                    .size(p.size)
            })
            .collect();
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&handles)
            .push_constant_ranges(&ranges);
        // SAFETY: the set layouts are alive (we hold `sets`), and the arrays outlive the call.
        let handle = unsafe { ctx.device().create_pipeline_layout(&info, None) }
            .map_err(VkError::call("vkCreatePipelineLayout"))?;
        Ok(PipelineLayout {
            ctx: ctx.clone(),
            handle,
            sets,
            desc: desc.clone(),
            plan: None,
            spilled: Mutex::new(SpillArena::default()),
        })
    }

    /// The layout of `plan` ([`describe_layout`]), which keeps the plan so resources can be bound by their
    /// declared names ([`Self::descriptor_set`]). The shader library makes every layout this way. A plan whose
    /// descriptors go past the device's limits ([`PipelinePlan::descriptor_problems`]) is refused with them.
    pub fn for_plan(
        ctx: &VkContext,
        cache: &LayoutCache,
        plan: &PipelinePlan,
    ) -> VkResult<PipelineLayout> {
        let problems =
            crate::library::checks::descriptor_problems(plan, &super::limits::device_limits(ctx));
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        let mut layout = PipelineLayout::new(ctx, cache, &describe_layout(plan))?;
        layout.plan = Some(Arc::new(plan.clone()));
        Ok(layout)
    }

    /// The plan the layout was made for ([`Self::for_plan`]).
    pub fn plan(&self) -> Option<&PipelinePlan> {
        self.plan.as_deref()
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::PipelineLayout {
        self.handle
    }

    /// The device it was made on.
    pub(crate) fn device(&self) -> &ash::Device {
        self.ctx.device()
    }

    /// The set layouts, by set index.
    pub fn set_layouts(&self) -> &[Arc<DescriptorSetLayout>] {
        &self.sets
    }

    /// The description it was created from.
    pub fn desc(&self) -> &LayoutDesc {
        &self.desc
    }

    /// Records `vkCmdPushConstants` of a block from offset 0 with the stages of the layout's range; nothing when
    /// `bytes` is empty (values pushed before stay), an error when the layout has no push constants and `bytes`
    /// is not empty (the same rule as wgpu's, [`shader_info::push_block_bytes`]).
    ///
    /// A block spilled to a storage buffer (over 128 bytes, [`shader_info::PushConstantSpill`]) is written to
    /// memory the layout keeps, and that range is bound at the spill set: the
    /// same call and the same bytes either way. Spilled blocks stay until [`Self::recycle_pushed`].
    ///
    /// `bytes` must be the block ([`shader_info::PushConstantPlan::size`]) or its Rust twin with tail padding
    /// ([`shader_info::PushConstantPlan::twin_size`], what `bytemuck::bytes_of` gives for a derived struct); the
    /// padding is not pushed. Any other length is a [`shader_info::Code::HostMismatch`] error naming the info,
    /// and nothing is recorded.
    ///
    /// # Safety
    /// `cmd` must be recording, created from the same device, with this layout's pipeline bound (for a spilled
    /// block). The bytes cannot break the range: their length is checked.
    pub unsafe fn push(&self, cmd: vk::CommandBuffer, bytes: &[u8]) -> VkResult<()> {
        let pc = self.desc.push_constants.as_ref();
        let Some(bytes) = shader_info::push_block_bytes(
            &self.desc.info,
            pc.map(|pc| (pc.size, pc.twin_size)),
            bytes,
        )
        .map_err(VkError::Diagnostics)?
        else {
            return Ok(());
        };
        let Some(pc) = pc else {
            return Ok(());
        };
        let Some(set_index) = pc.spill_set else {
            // SAFETY: guaranteed by the caller.
            unsafe {
                self.ctx
                    .device()
                    .cmd_push_constants(cmd, self.handle, pc.stages, 0, bytes)
            };
            return Ok(());
        };
        let d = self.ctx.device();
        let align = self
            .ctx
            .properties()
            .limits
            .min_storage_buffer_offset_alignment
            .max(4);
        let size = u64::from(pc.size);
        let slot = size.next_multiple_of(align);
        let mut arena = self.spilled.lock().unwrap_or_else(|p| p.into_inner());
        if arena
            .chunks
            .get(arena.current)
            .is_none_or(|c| c.used + slot > c.buffer.size())
        {
            arena.current = arena
                .chunks
                .iter()
                .position(|c| c.used + slot <= c.buffer.size())
                .unwrap_or(arena.chunks.len());
            if arena.current == arena.chunks.len() {
                let capacity = SPILL_CHUNK_BYTES.max(slot);
                let sets = (capacity / slot) as u32;
                let buffer =
                    Buffer::new(&self.ctx, capacity, vk::BufferUsageFlags::STORAGE_BUFFER)?;
                let sizes = [vk::DescriptorPoolSize::default()
                    .ty(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(sets)];
                let pool = DescriptorPool::new(&self.ctx, sets, &sizes)?;
                arena.chunks.push(SpillChunk {
                    buffer,
                    pool,
                    used: 0,
                });
            }
        }
        let current = arena.current;
        let chunk = &mut arena.chunks[current];
        let offset = chunk.used;
        chunk.buffer.write_at(offset, bytes)?;
        let spill_layout = self.sets.get(set_index as usize).ok_or_else(|| {
            VkError::Other(format!(
                "the layout of `{}` spills its push constants to set {set_index}, which it does not have",
                self.desc.info
            ))
        })?;
        let set = chunk.pool.allocate(spill_layout)?;
        // SAFETY: the set was just allocated from this pool; no command uses it yet.
        unsafe {
            chunk.pool.write_buffer_range(
                set,
                0,
                vk::DescriptorType::STORAGE_BUFFER,
                &chunk.buffer,
                offset,
                size,
            )
        };
        chunk.used += slot;
        let point = bind_point(pc.stages);
        // SAFETY: guaranteed by the caller; the set and its memory live in the arena until recycled.
        unsafe { d.cmd_bind_descriptor_sets(cmd, point, self.handle, set_index, &[set], &[]) };
        Ok(())
    }

    /// Makes the memory of spilled push-constant blocks reusable; nothing to do for a layout whose block is
    /// pushed for real.
    ///
    /// # Safety
    /// The device has finished every command buffer that pushed through this layout (wait for the frame's fence
    /// first): their descriptor sets are freed and their memory is written again.
    pub unsafe fn recycle_pushed(&self) -> VkResult<()> {
        let mut arena = self.spilled.lock().unwrap_or_else(|p| p.into_inner());
        for chunk in &mut arena.chunks {
            // SAFETY: the caller's guarantee: no pending command uses these sets.
            unsafe { chunk.pool.reset()? };
            chunk.used = 0;
        }
        arena.current = 0;
        Ok(())
    }
}

/// The bind point of a pipeline whose stages are `stages`: a ray-tracing pipeline's sets bound at the graphics
/// point would leave its spilled block unbound.
///
/// ```
/// use shader_info_gpu::vk::{bind_point, raw::{PipelineBindPoint as P, ShaderStageFlags as S}};
/// assert_eq!(bind_point(S::RAYGEN_KHR | S::MISS_KHR), P::RAY_TRACING_KHR);
/// assert_eq!(bind_point(S::COMPUTE), P::COMPUTE);
/// assert_eq!(bind_point(S::VERTEX | S::FRAGMENT), P::GRAPHICS);
/// ```
pub fn bind_point(stages: vk::ShaderStageFlags) -> vk::PipelineBindPoint {
    use vk::ShaderStageFlags as S;
    let ray_tracing = S::RAYGEN_KHR
        | S::MISS_KHR
        | S::CLOSEST_HIT_KHR
        | S::ANY_HIT_KHR
        | S::INTERSECTION_KHR
        | S::CALLABLE_KHR;
    if stages.intersects(ray_tracing) {
        vk::PipelineBindPoint::RAY_TRACING_KHR
    } else if stages.contains(S::COMPUTE) {
        vk::PipelineBindPoint::COMPUTE
    } else {
        vk::PipelineBindPoint::GRAPHICS
    }
}

impl Drop for PipelineLayout {
    fn drop(&mut self) {
        // SAFETY: created from this device and owned by us; pipelines that use it hold an `Arc<PipelineLayout>`.
        unsafe { self.ctx.device().destroy_pipeline_layout(self.handle, None) };
    }
}

/// An owned descriptor pool with helpers to allocate and write sets.
pub struct DescriptorPool {
    ctx: VkContext,
    handle: vk::DescriptorPool,
    /// The buffer views of texel buffers bound by name ([`Self::write_texel_buffer_of`]): they live as long as
    /// the sets that use them, so with the pool.
    views: std::sync::Mutex<Vec<vk::BufferView>>,
}

impl DescriptorPool {
    /// A pool big enough for `copies` sets of every set layout of `layout`.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::vk::VkContext, layout: &shader_info_gpu::vk::PipelineLayout) -> shader_info_gpu::vk::VkResult<()> {
    /// let pool = shader_info_gpu::vk::DescriptorPool::for_layout(ctx, layout, 1)?;
    /// let set0 = pool.allocate(&layout.set_layouts()[0])?;
    /// # Ok(()) }
    /// ```
    pub fn for_layout(
        ctx: &VkContext,
        layout: &PipelineLayout,
        copies: u32,
    ) -> VkResult<DescriptorPool> {
        let too_many = || {
            VkError::Other(format!(
                "a descriptor pool for {copies} copies of the sets of `{}` would hold more than 2^32 descriptors: \
                 make fewer copies per pool",
                layout.desc().info
            ))
        };
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for set in layout.set_layouts() {
            for b in set.bindings() {
                let more = b.count.checked_mul(copies).ok_or_else(too_many)?;
                match sizes.iter_mut().find(|s| s.ty == b.descriptor_type) {
                    Some(s) => {
                        s.descriptor_count =
                            s.descriptor_count.checked_add(more).ok_or_else(too_many)?
                    }
                    None => sizes.push(
                        vk::DescriptorPoolSize::default()
                            .ty(b.descriptor_type)
                            .descriptor_count(more),
                    ),
                }
            }
        }
        let max_sets = u32::try_from(layout.set_layouts().len())
            .ok()
            .and_then(|n| n.checked_mul(copies))
            .ok_or_else(too_many)?
            .max(1);
        DescriptorPool::new(ctx, max_sets, &sizes)
    }

    /// A pool of `max_sets` sets with the given descriptor counts.
    pub fn new(
        ctx: &VkContext,
        max_sets: u32,
        sizes: &[vk::DescriptorPoolSize],
    ) -> VkResult<DescriptorPool> {
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(max_sets)
            .pool_sizes(sizes);
        // SAFETY: the create info borrows `sizes` for the call.
        let handle = unsafe { ctx.device().create_descriptor_pool(&info, None) }
            .map_err(VkError::call("vkCreateDescriptorPool"))?;
        Ok(DescriptorPool {
            ctx: ctx.clone(),
            handle,
            views: Default::default(),
        })
    }

    /// Allocates one set of `layout`. Sets are freed with the pool.
    pub fn allocate(&self, layout: &DescriptorSetLayout) -> VkResult<vk::DescriptorSet> {
        let layouts = [layout.handle()];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.handle)
            .set_layouts(&layouts);
        // SAFETY: pool and layout are alive; the info borrows locals.
        unsafe { self.ctx.device().allocate_descriptor_sets(&info) }
            .map(|v| v[0])
            .map_err(VkError::call("vkAllocateDescriptorSets"))
    }

    /// Points `binding` of `set` at `range` bytes of `buffer` from `offset`.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_buffer_range(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        buffer: &Buffer,
        offset: u64,
        range: u64,
    ) {
        let info = [vk::DescriptorBufferInfo::default()
            .buffer(buffer.handle())
            .offset(offset)
            .range(range)];
        self.update(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(ty)
                .buffer_info(&info),
        );
    }

    /// Applies one descriptor write.
    fn update(&self, write: vk::WriteDescriptorSet) {
        // SAFETY: the set was allocated from this pool's device and is not in use by pending commands (the
        // caller's responsibility, as for any descriptor update); the write's info arrays outlive the call.
        unsafe { self.ctx.device().update_descriptor_sets(&[write], &[]) };
    }

    /// Points `binding` of `set` at one image descriptor of type `ty`.
    fn update_image(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        info: vk::DescriptorImageInfo,
    ) {
        let info = [info];
        self.update(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(ty)
                .image_info(&info),
        );
    }

    /// Returns every set of the pool to it.
    ///
    /// # Safety
    /// No pending command buffer uses a set of this pool.
    pub unsafe fn reset(&self) -> VkResult<()> {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.ctx
                .device()
                .reset_descriptor_pool(self.handle, vk::DescriptorPoolResetFlags::empty())
        }
        .map_err(VkError::call("vkResetDescriptorPool"))
    }

    /// Points `binding` of `set` at `buffer` (uniform or storage buffer): the whole of it, or of a larger one (a
    /// ring buffer) the first `maxUniformBufferRange` / `maxStorageBufferRange` bytes, the most a descriptor may
    /// span.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_buffer(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        buffer: &Buffer,
    ) {
        let l = &self.ctx.properties().limits;
        let max = match ty {
            vk::DescriptorType::UNIFORM_BUFFER | vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC => {
                l.max_uniform_buffer_range
            }
            _ => l.max_storage_buffer_range,
        };
        let range = if buffer.size() > u64::from(max) {
            u64::from(max)
        } else {
            vk::WHOLE_SIZE
        };
        // SAFETY: the caller's guarantee.
        unsafe { self.write_buffer_range(set, binding, ty, buffer, 0, range) };
    }

    /// Points `binding` of `set` at `image` in `layout` for a combined image sampler whose sampler is immutable
    /// (declared with `sampler_with_state`): the set layout supplies the sampler.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_image_with_immutable_sampler(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        image: &Image2D,
        layout: vk::ImageLayout,
    ) {
        // The set layout's immutable sampler fills the sampler half.
        // SAFETY: the caller's guarantee.
        unsafe {
            self.write_image(
                set,
                binding,
                vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                image,
                layout,
            )
        };
    }

    /// Points `binding` of `set` at `image` as an input attachment in `RENDERING_LOCAL_READ_KHR` layout: a subpass
    /// input read with [`shader_info::SubpassMode::LocalRead`] (the image is a color attachment of the rendering
    /// that reads it; see [`Image2D::local_read_barrier`]).
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_input_attachment(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        image: &Image2D,
    ) {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.write_image(
                set,
                binding,
                vk::DescriptorType::INPUT_ATTACHMENT,
                image,
                vk::ImageLayout::RENDERING_LOCAL_READ_KHR,
            )
        };
    }

    /// Writes a sampled image (a texture without a sampler) or another image descriptor of type `ty`, the image
    /// being in `layout` when the set is used.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_image(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        image: &Image2D,
        layout: vk::ImageLayout,
    ) {
        self.update_image(
            set,
            binding,
            ty,
            vk::DescriptorImageInfo::default()
                .image_view(image.view())
                .image_layout(layout),
        );
    }

    /// Points `binding` of `set` at `image` as a storage image in `GENERAL` layout.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_storage_image(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        image: &Image2D,
    ) {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.write_image(
                set,
                binding,
                vk::DescriptorType::STORAGE_IMAGE,
                image,
                vk::ImageLayout::GENERAL,
            )
        };
    }

    /// Points the elements `0..` of `binding` of `set` at `images` (each with its sampler for a combined image
    /// sampler without an immutable one), of descriptor type `ty`, each image in `layout` when the set is used: a
    /// declared array (`textures[4]`) in one write.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_images<'i>(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        images: impl IntoIterator<Item = (&'i Image2D, Option<&'i Sampler>)>,
        layout: vk::ImageLayout,
    ) {
        let infos: Vec<vk::DescriptorImageInfo> = images
            .into_iter()
            .map(|(image, sampler)| {
                vk::DescriptorImageInfo::default()
                    .sampler(sampler.map_or(vk::Sampler::null(), Sampler::handle))
                    .image_view(image.view())
                    .image_layout(layout)
            })
            .collect();
        if infos.is_empty() {
            return;
        }
        self.update(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(ty)
                .image_info(&infos),
        );
    }

    /// Points `binding` of `set` at an image view of the host's own making (a cube, 3D or array view, which
    /// [`Image2D`] is not), of descriptor type `ty`, in `layout` when the set is used.
    ///
    /// # Safety
    /// `view` must be a live view of this device whose type and format fit the declaration.
    pub unsafe fn write_image_view(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        view: vk::ImageView,
        sampler: Option<vk::Sampler>,
        layout: vk::ImageLayout,
    ) {
        self.update_image(
            set,
            binding,
            ty,
            vk::DescriptorImageInfo::default()
                .sampler(sampler.unwrap_or_default())
                .image_view(view)
                .image_layout(layout),
        );
    }

    /// Why `buffer` cannot be read as texels of `format` through a `ty` descriptor on this device (`None` when it
    /// can): the device must read that format from texel buffers, and the buffer must have the usage `ty` needs.
    pub(crate) fn texel_buffer_problem(
        &self,
        ty: vk::DescriptorType,
        buffer: &Buffer,
        format: shader_info::TextureFormat,
    ) -> Option<String> {
        let (usage, feature) = if ty == vk::DescriptorType::STORAGE_TEXEL_BUFFER {
            (
                vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
                vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER,
            )
        } else {
            (
                vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
                vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER,
            )
        };
        let vk_format = super::map::texture_format(format);
        // SAFETY: plain query on the context's physical device.
        let props = unsafe {
            self.ctx
                .instance()
                .get_physical_device_format_properties(self.ctx.physical_device(), vk_format)
        };
        if !props.buffer_features.contains(feature) {
            return Some(format!(
                "{} cannot read texel buffers of {format:?} ({vk_format:?}) as {ty:?}",
                self.ctx.device_name()
            ));
        }
        (!buffer.usage().contains(usage)).then(|| {
            format!(
                "the buffer bound as a {ty:?} was made without the usage {usage:?} (it has {:?})",
                buffer.usage()
            )
        })
    }

    /// Points `binding` of `set` (descriptor type `ty`, a uniform or storage texel buffer) at the whole of `buffer`
    /// read as texels of `format`, through a buffer view the pool makes and keeps. The format must be one the
    /// device reads (or stores) texel buffers in, and the buffer must have the usage `ty` needs: either missing is
    /// an error, nothing written.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_texel_buffer_of(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        buffer: &Buffer,
        format: shader_info::TextureFormat,
    ) -> VkResult<()> {
        if let Some(why) = self.texel_buffer_problem(ty, buffer, format) {
            return Err(VkError::Other(why));
        }
        let vk_format = super::map::texture_format(format);
        let info = vk::BufferViewCreateInfo::default()
            .buffer(buffer.handle())
            .format(vk_format)
            .offset(0)
            .range(vk::WHOLE_SIZE);
        // SAFETY: the buffer is live, has the usage and the format supports the feature (checked above).
        let view = unsafe { self.ctx.device().create_buffer_view(&info, None) }
            .map_err(VkError::call("vkCreateBufferView"))?;
        self.views
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(view);
        let views = [view];
        self.update(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(ty)
                .texel_buffer_view(&views),
        );
        Ok(())
    }

    /// Points `binding` of `set` at a texel buffer through `view` (a buffer view: the buffer and its texels'
    /// format, which the declaration of a `samplerBuffer`/`imageBuffer` does not give, so binding by name does
    /// not make it). `ty` is `UNIFORM_TEXEL_BUFFER` or `STORAGE_TEXEL_BUFFER`.
    ///
    /// # Safety
    /// `view` must be a live buffer view of this device, made with the usage `ty` needs.
    pub unsafe fn write_texel_buffer(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        ty: vk::DescriptorType,
        view: vk::BufferView,
    ) {
        let views = [view];
        self.update(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(ty)
                .texel_buffer_view(&views),
        );
    }

    /// Points `binding` of `set` at `image` with `sampler` (a combined image sampler, the descriptor of a GLSL
    /// `sampler2D`), the image being in `layout` when the set is used.
    ///
    /// # Safety
    /// `set` was allocated from this pool and no pending command buffer uses it (as for any descriptor update).
    pub unsafe fn write_sampled_image(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        image: &Image2D,
        sampler: &Sampler,
        layout: vk::ImageLayout,
    ) {
        self.update_image(
            set,
            binding,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::DescriptorImageInfo::default()
                .sampler(sampler.handle())
                .image_view(image.view())
                .image_layout(layout),
        );
    }
}

impl Drop for DescriptorPool {
    fn drop(&mut self) {
        // SAFETY: we own the pool and the views; destroying the pool frees its sets, the only users of the views.
        unsafe {
            self.ctx.device().destroy_descriptor_pool(self.handle, None);
            for view in self
                .views
                .get_mut()
                .unwrap_or_else(|p| p.into_inner())
                .drain(..)
            {
                self.ctx.device().destroy_buffer_view(view, None);
            }
        }
    }
}
