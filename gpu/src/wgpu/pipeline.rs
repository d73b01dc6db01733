//! What the wgpu library hands a renderer: graphics and compute pipelines with their layouts, push-constant data
//! ready for a pass, and bind groups made from resources named as declared.

use super::context::WgpuContext;
use super::error::{WgpuError, WgpuResult};
use crate::cross::Translation;
use crate::library::Typed;
use ::wgpu as w;
use ::wgpu::util::DeviceExt;
use shader_info::{
    BindingPart, BindingSet, Bound, Code, DescriptorKind, Diagnostic, HostResource, HostTypes,
    PUSH_CONSTANT_SPACE, PipelinePlan, PushBlock, RenderState, SpecValues, Unsupported,
    VertexArrangement,
};

/// The bind group that holds the push-constant block where the device has no immediates: one past the frequency
/// sets, the same number as the block's HLSL register space.
pub const PUSH_CONSTANT_FALLBACK_GROUP: u32 = PUSH_CONSTANT_SPACE;

/// How a pipeline's push-constant block reaches its shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushConstants {
    /// The info declares none.
    None,
    /// wgpu immediates (`set_immediates(0, bytes)`), where the device has [`w::Features::IMMEDIATES`] and they hold
    /// the block (no array member, `size` within the device's `max_immediate_size`). `size` is what the layout
    /// reserves: the block's WGSL size (its std430 end rounded up to its alignment, as WGSL sizes a struct and
    /// WebGPU implementations count immediates), so every pushed block is padded to it.
    Immediates { size: u32 },
    /// A read-only storage buffer with the block's bytes (std430, as declared; `size` rounded up to 16 as WGSL
    /// rounds the struct) at `@group(PUSH_CONSTANT_FALLBACK_GROUP) @binding(0)`, on devices without immediates or
    /// whose immediates do not hold the block. Storage rather than uniform: the block's std430 offsets are valid
    /// there unchanged, and uniform layout rules would reject them.
    Buffer { size: u32 },
}

/// Push-constant bytes made ready for a pass (see [`GraphicsPipeline::push`]).
#[derive(Debug)]
pub enum PushData {
    /// Nothing to set.
    None,
    Immediates(Vec<u8>),
    /// Bind this at [`PUSH_CONSTANT_FALLBACK_GROUP`] (the buffer lives as long as the group).
    Group(w::BindGroup),
}

impl PushData {
    /// Sets the bytes on a render pass.
    pub fn set_render(&self, pass: &mut w::RenderPass<'_>) {
        match self {
            PushData::None => {}
            PushData::Immediates(b) => pass.set_immediates(0, b),
            PushData::Group(g) => pass.set_bind_group(PUSH_CONSTANT_FALLBACK_GROUP, g, &[]),
        }
    }

    /// Sets the bytes on a compute pass.
    pub fn set_compute(&self, pass: &mut w::ComputePass<'_>) {
        match self {
            PushData::None => {}
            PushData::Immediates(b) => pass.set_immediates(0, b),
            PushData::Group(g) => pass.set_bind_group(PUSH_CONSTANT_FALLBACK_GROUP, g, &[]),
        }
    }
}

/// The fixed-function side of a render pipeline that the declaration does not fix: attachment formats, sample
/// count, vertex-buffer arrangement and specialization values. The render state comes from the declaration;
/// `state` replaces it for this pipeline (an explicit override, reported by [`GraphicsPipeline::state_overridden`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsOptions {
    /// Format of every float color output.
    pub color_format: w::TextureFormat,
    /// Per-location format overrides.
    pub color_format_overrides: Vec<(u32, w::TextureFormat)>,
    pub depth_format: Option<w::TextureFormat>,
    pub samples: u32,
    pub vertex_layout: VertexArrangement,
    pub specialization: SpecValues,
    pub state: Option<RenderState>,
}

impl Default for GraphicsOptions {
    fn default() -> Self {
        GraphicsOptions {
            color_format: w::TextureFormat::Rgba8Unorm,
            color_format_overrides: Vec::new(),
            depth_format: None,
            samples: 1,
            vertex_layout: VertexArrangement::default(),
            specialization: SpecValues::default(),
            state: None,
        }
    }
}

/// A wgpu module of one stage of one key, with what its pipelines need to know about it.
pub struct Module {
    pub module: w::ShaderModule,
    /// The checked WGSL it was created from.
    pub translation: Translation,
    /// `(group, binding)` pairs the entry point uses.
    pub(super) used: Vec<(u32, u32)>,
    /// Whether the entry point reads the push-constant block from immediates (else from a buffer, or not at all).
    pub(super) reads_immediates: bool,
    /// `@id`s of the overrides the module declares.
    pub(super) overrides: Vec<u16>,
}

impl Module {
    /// Whether the module's entry point uses `(group, binding)`.
    pub fn uses(&self, group: u32, binding: u32) -> bool {
        self.used.contains(&(group, binding))
    }
}

/// Layout objects shared by both pipeline kinds.
pub struct Layouts {
    /// One per group up to the highest used, index = set; an empty one is a gap in `layout` (bind nothing there).
    pub bind_group_layouts: Vec<w::BindGroupLayout>,
    pub layout: w::PipelineLayout,
    pub push_constants: PushConstants,
    /// The info (or variant key) the layouts were made for, and its push block's std430 size and twin size.
    pub(super) info: String,
    pub(super) push_block: Option<(u32, u32)>,
    /// `(set, name, sampler)` for every combined sampler declared with a state: made once with the layout, used
    /// when the host binds the texture alone (WebGPU has no immutable samplers).
    pub(super) declared_samplers: Vec<(u32, String, w::Sampler)>,
}

impl Layouts {
    /// Makes push-constant bytes ready for a pass: immediates, or a buffer bound at the fallback group.
    ///
    /// `bytes` must be the block (its std430 size) or its Rust twin with the tail padding the derives demand
    /// (what `bytemuck::bytes_of` gives for a derived struct); any other length, or bytes for an info without push
    /// constants, is a [`shader_info::Code::HostMismatch`] error naming the info — never a draw that wgpu drops.
    /// Empty bytes push nothing.
    pub fn push(&self, ctx: &WgpuContext, bytes: &[u8]) -> WgpuResult<PushData> {
        let Some(block) = shader_info::push_block_bytes(&self.info, self.push_block, bytes)
            .map_err(WgpuError::Diagnostics)?
        else {
            return Ok(PushData::None);
        };
        Ok(match self.push_constants {
            PushConstants::None => PushData::None,
            PushConstants::Immediates { size } => {
                let mut contents = block.to_vec();
                contents.resize(size as usize, 0);
                PushData::Immediates(contents)
            }
            PushConstants::Buffer { size } => {
                let mut contents = block.to_vec();
                contents.resize(contents.len().max(size as usize), 0);
                let buffer = ctx
                    .device
                    .create_buffer_init(&w::util::BufferInitDescriptor {
                        label: Some("push constants"),
                        contents: &contents,
                        usage: w::BufferUsages::STORAGE,
                    });
                let group = PUSH_CONSTANT_FALLBACK_GROUP as usize;
                PushData::Group(ctx.device.create_bind_group(&w::BindGroupDescriptor {
                    label: Some("push constants"),
                    layout: &self.bind_group_layouts[group],
                    entries: &[w::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    }],
                }))
            }
        })
    }
}

/// wgpu's resource types for the generated binding structs of `#[derive(ShaderInfo)]` infos
/// ([`shader_info::BindingSet`]): buffers, texture views and samplers.
pub struct WgpuHost;

impl HostTypes for WgpuHost {
    type Buffer = w::Buffer;
    type Texture = w::TextureView;
    type Sampler = w::Sampler;
    // The library declares acceleration structures for Vulkan ray tracing only.
    type AccelerationStructure = Unsupported;

    fn buffer_size(buffer: &w::Buffer) -> Option<u64> {
        Some(buffer.size())
    }
}

/// A resource for a declared binding of [`GraphicsPipeline::bind_group`] / [`ComputePipeline::bind_group`]: a
/// buffer (whole), a texture view alone (sampled or storage), or a texture view and a sampler for a combined
/// sampler (`Bind::Sampled`: the two go to the declaration's two WGSL bindings).
pub type Bind<'a> = Bound<'a, WgpuHost>;

/// A bind group made from resources named as declared, with the set it belongs at.
#[derive(Debug)]
pub struct SetGroup {
    /// The set (WGSL `@group`) the resources are declared in.
    pub set: u32,
    pub group: w::BindGroup,
}

impl SetGroup {
    /// Binds the group at its set on a render pass.
    pub fn set_render(&self, pass: &mut w::RenderPass<'_>) {
        pass.set_bind_group(self.set, &self.group, &[]);
    }

    /// Binds the group at its set on a compute pass.
    pub fn set_compute(&self, pass: &mut w::ComputePass<'_>) {
        pass.set_bind_group(self.set, &self.group, &[]);
    }
}

/// The bind group of the set `resources` are declared in, each under its declared name. Missing, unknown,
/// repeated and wrongly kinded resources are the core's errors ([`PipelinePlan::bind_set`]); an error wgpu raises
/// is reported naming the info and the set.
fn bind_group(
    ctx: &WgpuContext,
    layouts: &Layouts,
    plan: &PipelinePlan,
    resources: &[(&str, Bind<'_>)],
) -> WgpuResult<SetGroup> {
    let neutral: Vec<(&str, HostResource)> =
        resources.iter().map(|(n, b)| (*n, b.host())).collect();
    let resolved = plan.bind_set(&neutral).map_err(WgpuError::Diagnostics)?;
    let set = resolved.set;
    let fail = |message: String| {
        WgpuError::Diagnostics(vec![Diagnostic::error(Code::Device, &plan.key, message)])
    };
    let layout = layouts
        .bind_group_layouts
        .get(set as usize)
        .filter(|_| {
            !(set == PUSH_CONSTANT_FALLBACK_GROUP
                && matches!(layouts.push_constants, PushConstants::Buffer { .. }))
        })
        .ok_or_else(|| {
            fail(format!(
                "the pipeline layout of `{}` has no group {set}",
                plan.key
            ))
        })?;
    // A buffer without the usage its binding needs: wgpu's refusal would name the buffer's label, not the binding.
    let usage_problems: Vec<Diagnostic> = resources
        .iter()
        .zip(&resolved.bindings)
        .filter_map(|((_, bind), declared)| {
            let Bind::Buffer(buffer) = bind else {
                return None;
            };
            crate::library::checks::buffer_usage_problem(
                &plan.key,
                declared,
                buffer.usage(),
                [w::BufferUsages::UNIFORM, w::BufferUsages::STORAGE],
                |has, needed| has.contains(needed),
            )
        })
        .collect();
    if !usage_problems.is_empty() {
        return Err(WgpuError::Diagnostics(usage_problems));
    }
    let mut entries = Vec::new();
    // Which declared resource each WGSL binding number is (a combined sampler is two): wgpu's refusals name those.
    let mut owners = Vec::new();
    for ((name, bind), declared) in resources.iter().zip(&resolved.bindings) {
        for tb in plan
            .targets
            .bindings
            .iter()
            .filter(|tb| tb.set == set && tb.name == declared.name)
        {
            let resource = match (bind.one_as_single(), tb.part) {
                (Bind::Sampled(_, sampler), BindingPart::Sampler) => {
                    w::BindingResource::Sampler(sampler)
                }
                // WebGPU has no immutable samplers: a texture bound alone to a sampler declared with a state gets
                // the sampler made from that state (bind_set let it through only for such a sampler).
                (Bind::Texture(_), BindingPart::Sampler) => {
                    match layouts
                        .declared_samplers
                        .iter()
                        .find(|(s, n, _)| *s == set && n == name)
                    {
                        Some((_, _, sampler)) => w::BindingResource::Sampler(sampler),
                        None => {
                            return Err(fail(format!(
                                "`{name}` has a declared sampler state but the layout made no sampler for it"
                            )));
                        }
                    }
                }
                (Bind::Sampled(view, _) | Bind::Texture(view), _) => {
                    w::BindingResource::TextureView(view)
                }
                // The whole buffer, up to what the device binds of one (a ring buffer may be larger): the declared
                // block fits in that (`PipelinePlan::buffer_range_problems`, checked when the pipeline was made).
                (Bind::Buffer(buffer), _) => {
                    let l = ctx.device.limits();
                    let max = if declared.kind == DescriptorKind::UniformBuffer {
                        l.max_uniform_buffer_binding_size
                    } else {
                        l.max_storage_buffer_binding_size
                    };
                    w::BindingResource::Buffer(w::BufferBinding {
                        buffer,
                        offset: 0,
                        size: w::BufferSize::new(buffer.size().min(max)),
                    })
                }
                // The WGSL translation refuses arrays of textures and texel buffers, so no pipeline of this
                // library has one.
                (Bind::Textures(_) | Bind::SampledArray(_), _) => {
                    return Err(fail(format!(
                        "`{name}` is an array of textures, which the wgpu backend does not bind (no WGSL \
                         translation has one)"
                    )));
                }
                (Bind::TexelBuffer(..), _) => {
                    return Err(fail(format!(
                        "`{name}` is a texel buffer, which WebGPU does not have (no WGSL translation has one)"
                    )));
                }
                (Bind::AccelerationStructure(never), _) => match *never {},
            };
            owners.push((tb.binding, declared));
            entries.push(w::BindGroupEntry {
                binding: tb.binding,
                resource,
            });
        }
    }
    let label = format!("{} group {set}", plan.key);
    let group = ctx
        .checked(&label, || {
            ctx.device.create_bind_group(&w::BindGroupDescriptor {
                label: Some(&label),
                layout,
                entries: &entries,
            })
        })
        .map_err(|e| {
            let text = e.to_string();
            match binding_named_in(&text).and_then(|n| owners.iter().find(|(b, _)| *b == n)) {
                Some((_, declared)) => WgpuError::Diagnostics(vec![
                    Diagnostic::error(
                        Code::HostMismatch,
                        &plan.key,
                        format!(
                            "wgpu refused what was bound to `{}` (set {set} of `{}`): {text}",
                            declared.name, plan.key
                        ),
                    )
                    .item(format!("resource `{}`", declared.name))
                    .at(&declared.declared_in, declared.origin)
                    .hint(
                        "bind what the declaration reads: a buffer with its usage (UNIFORM or STORAGE) and a size \
                         of 4-byte steps, a sampler of its kind (comparison for a shadow sampler, filtering for \
                         float texels), a texture view of its type, sample count and texel kind",
                    ),
                ]),
                None => fail(format!(
                    "wgpu refused the bind group of set {set} of `{}`: {text}",
                    plan.key
                )),
            }
        })?;
    Ok(SetGroup { set, group })
}

/// The WGSL binding number a wgpu validation message names ("Sampler binding 5 expects …", "… bound at binding
/// index 0 …"), if any. Labels (wgpu quotes them: "Buffer with 'light binding 2' label") are the user's words, not
/// wgpu's: a number in one names no binding.
fn binding_named_in(message: &str) -> Option<u32> {
    let unquoted: String = message
        .split('\'')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ");
    let lower = unquoted.to_ascii_lowercase();
    lower.match_indices("binding").find_map(|(at, word)| {
        let rest = lower[at + word.len()..].trim_start();
        let rest = rest.strip_prefix("index").map_or(rest, str::trim_start);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// The bind group of a generated binding struct ([`GraphicsPipeline::bind`]).
fn bind<'a, S: BindingSet<'a, WgpuHost>>(
    ctx: &WgpuContext,
    layouts: &Layouts,
    plan: &PipelinePlan,
    set: &S,
) -> WgpuResult<SetGroup> {
    let problems = plan.binding_set_problems::<WgpuHost, S>();
    if !problems.is_empty() {
        return Err(WgpuError::Diagnostics(problems));
    }
    bind_group(ctx, layouts, plan, &set.resources())
}

/// A render pipeline built from a declaration.
pub struct GraphicsPipeline {
    /// The wgpu pipeline. Bind it with [`Self::set_render`], which also sets the declared state WebGPU keeps per
    /// pass rather than per pipeline (the stencil reference).
    pub pipeline: w::RenderPipeline,
    pub layouts: Layouts,
    pub plan: PipelinePlan,
    /// The state it was built with.
    pub state: RenderState,
    /// Whether [`GraphicsOptions::state`] replaced the declared state.
    pub state_overridden: bool,
}

impl GraphicsPipeline {
    /// Sets the pipeline on a render pass, with the declared stencil reference: a Vulkan pipeline holds its
    /// reference, a WebGPU pass holds one for every pipeline and starts at 0, so a pipeline set alone would test
    /// and write 0 where the declaration says otherwise. A reference declared dynamic is left to the caller
    /// (`set_stencil_reference`).
    ///
    /// ```no_run
    /// # fn f(p: &shader_info_gpu::wgpu::GraphicsPipeline, pass: &mut shader_info_gpu::wgpu::raw::RenderPass<'_>) {
    /// p.set_render(pass);
    /// pass.draw(0..3, 0..1);
    /// # }
    /// ```
    pub fn set_render(&self, pass: &mut w::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        if let Some(reference) = self.state.stencil.and_then(|s| s.reference) {
            pass.set_stencil_reference(reference.into());
        }
    }

    /// See [`Layouts::push`].
    pub fn push(&self, ctx: &WgpuContext, bytes: &[u8]) -> WgpuResult<PushData> {
        self.layouts.push(ctx, bytes)
    }

    /// The bind group of the set `resources` are declared in, each named as declared (nobody types a set or
    /// binding number); a combined sampler's texture and sampler go to their WGSL bindings (see the
    /// [module documentation](super)). A resource left out, unknown, given twice or of the wrong kind is an error
    /// naming it, its info and its declaration, before wgpu sees anything.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::wgpu::WgpuContext, lib: &mut shader_info_gpu::wgpu::WgpuLibrary, view: &shader_info_gpu::wgpu::raw::TextureView,
    /// #      sampler: &shader_info_gpu::wgpu::raw::Sampler) -> shader_info_gpu::wgpu::WgpuResult<()> {
    /// use shader_info_gpu::wgpu::{Bind, GraphicsOptions};
    /// let p = lib.graphics_pipeline("gpu_shader_2D_image", &GraphicsOptions::default())?;
    /// let group = p.bind_group(ctx, &[("image", Bind::Sampled(view, sampler))])?; // set 1: `image` is Batch
    /// assert_eq!(group.set, 1);
    /// # Ok(()) }
    /// ```
    pub fn bind_group(
        &self,
        ctx: &WgpuContext,
        resources: &[(&str, Bind<'_>)],
    ) -> WgpuResult<SetGroup> {
        bind_group(ctx, &self.layouts, &self.plan, resources)
    }

    /// [`Self::bind_group`] for a generated binding struct of a `#[derive(ShaderInfo)]` info: every resource it
    /// declares is a field, so one left out or of the wrong kind does not compile. A struct of another info is an
    /// error naming both (on a [`Typed`] pipeline of a derive info, a compile error).
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::wgpu::WgpuContext, lib: &mut shader_info_gpu::wgpu::WgpuLibrary, view: &shader_info_gpu::wgpu::raw::TextureView,
    /// #      sampler: &shader_info_gpu::wgpu::raw::Sampler) -> shader_info_gpu::wgpu::WgpuResult<()> {
    /// use shader_info_gpu::wgpu::{GraphicsOptions, WgpuHost};
    /// use shader_info::ShaderInfo;
    /// #[derive(Clone, Copy, ShaderInfo)]
    /// #[shader(name = "show_image", sampler(0, Float2D, "image", Batch), fragment_out(0, Vec4, "color"),
    ///     vertex_source("fullscreen.vert.glsl"), fragment_source("show.frag.glsl"))]
    /// struct ShowImage;
    /// let p = lib.graphics_pipeline(ShowImage::NAME, &GraphicsOptions::default())?;
    /// let group = p.bind(ctx, &ShowImageBatchSet::<WgpuHost> { image: (view, sampler) })?;
    /// # Ok(()) }
    /// ```
    pub fn bind<'a, S: BindingSet<'a, WgpuHost>>(
        &self,
        ctx: &WgpuContext,
        set: &S,
    ) -> WgpuResult<SetGroup> {
        bind(ctx, &self.layouts, &self.plan, set)
    }
}

/// A compute pipeline built from a declaration.
pub struct ComputePipeline {
    pub pipeline: w::ComputePipeline,
    pub layouts: Layouts,
    pub plan: PipelinePlan,
}

impl ComputePipeline {
    /// See [`Layouts::push`].
    pub fn push(&self, ctx: &WgpuContext, bytes: &[u8]) -> WgpuResult<PushData> {
        self.layouts.push(ctx, bytes)
    }

    /// See [`GraphicsPipeline::bind_group`].
    pub fn bind_group(
        &self,
        ctx: &WgpuContext,
        resources: &[(&str, Bind<'_>)],
    ) -> WgpuResult<SetGroup> {
        bind_group(ctx, &self.layouts, &self.plan, resources)
    }

    /// See [`GraphicsPipeline::bind`].
    pub fn bind<'a, S: BindingSet<'a, WgpuHost>>(
        &self,
        ctx: &WgpuContext,
        set: &S,
    ) -> WgpuResult<SetGroup> {
        bind(ctx, &self.layouts, &self.plan, set)
    }
}

/// A vertex buffer of `V`s on wgpu ([`crate::library::VertexBuffer`]): set by a typed pipeline of vertex type `V`
/// only.
pub type VertexBuffer<V> = crate::library::VertexBuffer<w::Buffer, V>;

impl<V: shader_info::ShaderVertex + bytemuck::NoUninit> VertexBuffer<V> {
    /// A vertex buffer holding `vertices`.
    pub fn new(ctx: &WgpuContext, vertices: &[V]) -> WgpuResult<VertexBuffer<V>> {
        use w::util::DeviceExt;
        let count = u32::try_from(vertices.len()).map_err(|_| {
            WgpuError::Device(format!(
                "{} vertices do not fit a draw's 32-bit vertex count",
                vertices.len()
            ))
        })?;
        // A draw with no vertices or instances left (after culling) is ordinary, but wgpu panics when an empty
        // buffer's slice is set: an empty one holds four unread bytes, as the ash backend's holds one.
        let bytes: &[u8] = bytemuck::cast_slice(vertices);
        let buffer = ctx
            .device
            .create_buffer_init(&w::util::BufferInitDescriptor {
                label: Some(std::any::type_name::<V>()),
                contents: if bytes.is_empty() { &[0; 4] } else { bytes },
                usage: w::BufferUsages::VERTEX,
            });
        Ok(crate::library::VertexBuffer::from_parts(buffer, count))
    }
}

/// Typed vertices: the pipeline's vertex type only (checked against the declaration when it was fetched).
impl<P: PushBlock, V: shader_info::VertexData, I: shader_info::VertexData>
    Typed<GraphicsPipeline, P, V, I>
{
    /// Sets `vertices`, the per-vertex buffer the pipeline reads (slot 0, interleaved):
    ///
    /// ```no_run
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct A { pos: [f32; 2] }
    /// use shader_info_gpu::{library::Typed, wgpu::{GraphicsPipeline, VertexBuffer, raw::RenderPass}};
    /// fn draw<'p>(p: &Typed<GraphicsPipeline, shader_info::NoPush, A>, pass: &mut RenderPass<'p>, v: &'p VertexBuffer<A>) {
    ///     p.set_vertices(pass, v);
    /// }
    /// ```
    ///
    /// and a buffer of another vertex type does not compile:
    ///
    /// ```compile_fail,E0308
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct A { pos: [f32; 2] }
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct B { uv: [f32; 2] }
    /// use shader_info_gpu::{library::Typed, wgpu::{GraphicsPipeline, VertexBuffer, raw::RenderPass}};
    /// fn draw<'p>(p: &Typed<GraphicsPipeline, shader_info::NoPush, A>, pass: &mut RenderPass<'p>, v: &'p VertexBuffer<B>) {
    ///     p.set_vertices(pass, v);
    /// }
    /// ```
    pub fn set_vertices<'p>(&self, pass: &mut w::RenderPass<'p>, vertices: &'p VertexBuffer<V>) {
        pass.set_vertex_buffer(self.vertex_binding(), vertices.buffer().slice(..));
    }

    /// Sets `instances`, the interleaved per-instance buffer of an info with `instance_in`s (a pipeline fetched
    /// with [`crate::library::Library::typed_instanced`]), at its slot ([`Typed::instance_binding`]). A buffer of
    /// another type does not compile.
    ///
    /// ```no_run
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct Corner { corner: [f32; 2] }
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct Sprite { rect: [f32; 4] }
    /// use shader_info_gpu::{library::Typed, wgpu::{GraphicsPipeline, VertexBuffer, raw::RenderPass}};
    /// fn draw<'p>(p: &Typed<GraphicsPipeline, shader_info::NoPush, Corner, Sprite>, pass: &mut RenderPass<'p>,
    ///             corners: &'p VertexBuffer<Corner>, sprites: &'p VertexBuffer<Sprite>) {
    ///     p.set_vertices(pass, corners);
    ///     p.set_instances(pass, sprites);
    /// }
    /// ```
    pub fn set_instances<'p>(&self, pass: &mut w::RenderPass<'p>, instances: &'p VertexBuffer<I>) {
        pass.set_vertex_buffer(self.instance_binding(), instances.buffer().slice(..));
    }
}

/// Typed pushes: the pipeline's block type only (checked against the declaration when it was fetched with
/// [`crate::library::Library::typed_graphics`]).
impl<P: PushBlock, V, I> Typed<GraphicsPipeline, P, V, I> {
    /// Push-constant data for a pass from the block's Rust value ([`Layouts::push`]).
    pub fn push(&self, ctx: &WgpuContext, value: &P) -> WgpuResult<PushData> {
        self.layouts.push(ctx, bytemuck::bytes_of(value))
    }

    /// [`GraphicsPipeline::bind`] taking only the sets of this pipeline's `#[derive(ShaderInfo)]` info `P`: a
    /// set struct of another info does not compile.
    pub fn bind<'a, S: BindingSet<'a, WgpuHost, Info = P>>(
        &self,
        ctx: &WgpuContext,
        set: &S,
    ) -> WgpuResult<SetGroup> {
        bind(ctx, &self.layouts, &self.plan, set)
    }
}

impl<P: PushBlock> Typed<ComputePipeline, P> {
    /// Push-constant data for a pass from the block's Rust value ([`Layouts::push`]).
    pub fn push(&self, ctx: &WgpuContext, value: &P) -> WgpuResult<PushData> {
        self.layouts.push(ctx, bytemuck::bytes_of(value))
    }

    /// See [`Typed::<GraphicsPipeline, P>::bind`](Typed#method.bind).
    pub fn bind<'a, S: BindingSet<'a, WgpuHost, Info = P>>(
        &self,
        ctx: &WgpuContext,
        set: &S,
    ) -> WgpuResult<SetGroup> {
        bind(ctx, &self.layouts, &self.plan, set)
    }
}

#[cfg(test)]
mod tests {
    use super::binding_named_in;

    #[test]
    fn the_binding_number_of_wgpus_messages_is_found() {
        assert_eq!(
            binding_named_in(
                "Sampler binding 5 expects comparison = true, but given a sampler with false"
            ),
            Some(5)
        );
        assert_eq!(
            binding_named_in(
                "Buffer bound at binding index 0 is bound with size 12 where the shader expects 16"
            ),
            Some(0)
        );
        assert_eq!(
            binding_named_in("Binding 12 has a usage conflict"),
            Some(12)
        );
        assert_eq!(binding_named_in("Bindings are wrong"), None);
        assert_eq!(
            binding_named_in("Buffer with 'light binding 2' label is destroyed"),
            None
        );
        assert_eq!(
            binding_named_in("Buffer with 'light binding 2' label at binding 4 is too small"),
            Some(4)
        );
        assert_eq!(binding_named_in("the bind group layout is invalid"), None);
    }
}
