//! The shader library on wgpu: every module goes through the [`crate::flow::Flow`] and the cross pass (validated,
//! generated in the portable flavor, compiled, translated to WGSL and checked), and reaches wgpu as the naga IR of
//! that checked WGSL; layouts and pipelines are mapped from the info's plan ([`super::map`]). Reload swaps a pipeline
//! only when its new modules and pipeline were accepted: wgpu's errors are caught in error scopes and reported with
//! the info's name.

use super::context::WgpuContext;
use super::error::{WgpuError, WgpuResult};
use super::map;
use crate::cross::{CrossOptions, Target, Translation, Verdict, translate_module};
use crate::reload::{Built, ReloadReport, decide, rebuilt};
use crate::sources::{LibraryOptions, Sources};
use ::wgpu as w;
use ::wgpu::util::DeviceExt;
use shader_info::{
    BindingPart, Code, ConstValue, Diagnostic, PUSH_CONSTANT_SPACE, PipelineKind, PipelinePlan,
    Registry, RenderState, SpecValues, Stage, SubpassMode, ValidatedInfo, VariantSet,
    VertexArrangement,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The bind group that holds the push-constant block where the device has no immediates: one past the frequency
/// sets, the same number as the block's HLSL register space.
pub const PUSH_CONSTANT_FALLBACK_GROUP: u32 = PUSH_CONSTANT_SPACE;

/// How a pipeline's push-constant block reaches its shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushConstants {
    /// The info declares none.
    None,
    /// wgpu immediates (`set_immediates(0, bytes)`), where the device has [`w::Features::IMMEDIATES`]. `size` is
    /// what the layout reserves: the block's WGSL size (its std430 end rounded up to its alignment, as WGSL
    /// sizes a struct and WebGPU implementations count immediates), so every pushed block is padded to it.
    Immediates { size: u32 },
    /// A read-only storage buffer with the block's bytes (std430, as declared; `size` rounded up to 16 as WGSL
    /// rounds the struct) at
    /// `@group(PUSH_CONSTANT_FALLBACK_GROUP) @binding(0)`, on devices without immediates. Storage rather than
    /// uniform: the block's std430 offsets are valid there unchanged, and uniform layout rules would reject them.
    Buffer { size: u32 },
}

/// Push-constant bytes made ready for a pass (see [`RenderPipeline::push`]).
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
/// `state` replaces it for this pipeline (an explicit override, reported by [`RenderPipeline::state_overridden`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RenderOptions {
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

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
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
    used: Vec<(u32, u32)>,
    /// `@id`s of the overrides the module declares.
    overrides: Vec<u16>,
    id: u64,
}

/// Layout objects shared by both pipeline kinds.
pub struct Layouts {
    /// One per group up to the highest used, index = set; an empty one is a gap in `layout` (bind nothing there).
    pub bind_group_layouts: Vec<w::BindGroupLayout>,
    pub layout: w::PipelineLayout,
    pub push_constants: PushConstants,
    /// The info (or variant key) the layouts were made for, and its push block's std430 size and twin size.
    info: String,
    push_block: Option<(u32, u32)>,
    /// `(set, name, sampler)` for every combined sampler declared with a state: made once with the layout, used
    /// when the host binds the texture alone (WebGPU has no immutable samplers).
    declared_samplers: Vec<(u32, String, w::Sampler)>,
}

impl Layouts {
    /// Makes push-constant bytes ready for a pass: immediates, or a buffer bound at the fallback group.
    ///
    /// `bytes` must be the block (its std430 size) or its Rust twin with the tail padding the derives demand
    /// (what `bytemuck::bytes_of` gives for a derived struct); any other length, or bytes for an info without push
    /// constants, is a [`shader_info::Code::HostMismatch`] error naming the info — never a draw that wgpu drops.
    /// Empty bytes push nothing.
    pub fn push(&self, ctx: &WgpuContext, bytes: &[u8]) -> WgpuResult<PushData> {
        if bytes.is_empty() {
            return Ok(PushData::None);
        }
        let Some((size, twin)) = self.push_block else {
            return Err(WgpuError::Diagnostics(vec![
                Diagnostic::error(
                    Code::HostMismatch,
                    &self.info,
                    format!(
                        "{} bytes were pushed, but `{}` declares no push constants",
                        bytes.len(),
                        self.info
                    ),
                )
                .hint("declare the block with push_constant, or push nothing"),
            ]));
        };
        let block = shader_info::push_block_bytes(&self.info, size, twin, bytes)
            .map_err(WgpuError::Diagnostics)?;
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

/// A resource for a declared binding of [`RenderPipeline::bind_group`] / [`ComputePipeline::bind_group`].
#[derive(Clone, Copy, Debug)]
pub enum Bind<'a> {
    /// A uniform or storage buffer (the whole buffer).
    Buffer(&'a w::Buffer),
    /// A sampled or storage texture without a sampler.
    Texture(&'a w::TextureView),
    /// A combined image sampler: the texture and the sampler go to the two WGSL bindings of the declaration.
    Sampled(&'a w::TextureView, &'a w::Sampler),
}

/// The bind group of `set` for `plan`, resources named by their declared names.
fn bind_group(
    ctx: &WgpuContext,
    layouts: &Layouts,
    plan: &PipelinePlan,
    set: u32,
    resources: &[(&str, Bind<'_>)],
) -> WgpuResult<w::BindGroup> {
    let fail = |message: String| {
        WgpuError::Diagnostics(vec![Diagnostic::error(Code::Device, &plan.key, message)])
    };
    let declared: Vec<&str> = plan
        .sets
        .iter()
        .filter(|s| s.set == set)
        .flat_map(|s| s.bindings.iter().map(|b| b.name.as_str()))
        .collect();
    let layout = layouts
        .bind_group_layouts
        .get(set as usize)
        .filter(|_| {
            !(set == PUSH_CONSTANT_FALLBACK_GROUP
                && matches!(layouts.push_constants, PushConstants::Buffer { .. }))
        })
        .ok_or_else(|| fail(format!("the pipeline layout has no group {set}")))?;
    let mut entries = Vec::new();
    for (name, bind) in resources {
        if !declared.contains(name) {
            return Err(fail(format!(
                "`{name}` is not declared in set {set}; declared there: {}",
                if declared.is_empty() {
                    "nothing".to_string()
                } else {
                    declared.join(", ")
                }
            )));
        }
        for tb in plan
            .targets
            .bindings
            .iter()
            .filter(|tb| tb.set == set && tb.name == *name)
        {
            let resource = match (*bind, tb.part) {
                (Bind::Sampled(_, sampler), BindingPart::Sampler) => {
                    w::BindingResource::Sampler(sampler)
                }
                // WebGPU has no immutable samplers: a texture bound alone to a sampler declared with a state gets
                // the sampler made from that state (the host may still pass its own with `Bind::Sampled`).
                (Bind::Texture(_), BindingPart::Sampler) => {
                    match layouts
                        .declared_samplers
                        .iter()
                        .find(|(s, n, _)| *s == set && n == name)
                    {
                        Some((_, _, sampler)) => w::BindingResource::Sampler(sampler),
                        None => {
                            return Err(fail(format!(
                                "`{name}` is a combined sampler without a declared state: bind it with `Bind::Sampled(view, sampler)`"
                            )));
                        }
                    }
                }
                (Bind::Sampled(view, _) | Bind::Texture(view), _) => {
                    w::BindingResource::TextureView(view)
                }
                (Bind::Buffer(buffer), _) => buffer.as_entire_binding(),
            };
            entries.push(w::BindGroupEntry {
                binding: tb.binding,
                resource,
            });
        }
    }
    let label = format!("{} group {set}", plan.key);
    ctx.checked(&label, || {
        ctx.device.create_bind_group(&w::BindGroupDescriptor {
            label: Some(&label),
            layout,
            entries: &entries,
        })
    })
    .map_err(|e| fail(e.to_string()))
}

/// A render pipeline built from a declaration.
pub struct RenderPipeline {
    pub pipeline: w::RenderPipeline,
    pub layouts: Layouts,
    pub plan: PipelinePlan,
    /// The state it was built with.
    pub state: RenderState,
    /// Whether [`RenderOptions::state`] replaced the declared state.
    pub state_overridden: bool,
}

impl RenderPipeline {
    /// See [`Layouts::push`].
    pub fn push(&self, ctx: &WgpuContext, bytes: &[u8]) -> WgpuResult<PushData> {
        self.layouts.push(ctx, bytes)
    }

    /// The bind group of `set`, resources named by their declared names; a combined sampler's texture and
    /// sampler go to their WGSL bindings (see the [module documentation](super)). A name the set does not declare,
    /// or a resource wgpu refuses, is an error naming the info.
    ///
    /// ```no_run
    /// # fn f(ctx: &gpu::wgpu::WgpuContext, lib: &mut gpu::wgpu::WgpuLibrary, view: &gpu::wgpu::raw::TextureView,
    /// #      sampler: &gpu::wgpu::raw::Sampler) -> gpu::wgpu::WgpuResult<()> {
    /// use gpu::wgpu::{Bind, RenderOptions};
    /// let p = lib.render_pipeline("gpu_shader_2D_image", &RenderOptions::default())?;
    /// let group = p.bind_group(ctx, 1, &[("image", Bind::Sampled(view, sampler))])?;
    /// # Ok(()) }
    /// ```
    pub fn bind_group(
        &self,
        ctx: &WgpuContext,
        set: u32,
        resources: &[(&str, Bind<'_>)],
    ) -> WgpuResult<w::BindGroup> {
        bind_group(ctx, &self.layouts, &self.plan, set, resources)
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

    /// See [`RenderPipeline::bind_group`].
    pub fn bind_group(
        &self,
        ctx: &WgpuContext,
        set: u32,
        resources: &[(&str, Bind<'_>)],
    ) -> WgpuResult<w::BindGroup> {
        bind_group(ctx, &self.layouts, &self.plan, set, resources)
    }
}

struct Cached<P> {
    pipeline: Arc<P>,
    built_from: Vec<(Stage, u64)>,
}

type ModuleKey = (String, Stage);

/// Modules and pipelines fetched by info name (or variant key) on wgpu, created on first use, hot-reloadable.
/// See the [module documentation](super) for an example.
pub struct WgpuLibrary {
    ctx: WgpuContext,
    sources: Sources,
    modules: BTreeMap<ModuleKey, Arc<Module>>,
    render: HashMap<(String, RenderOptions), Cached<RenderPipeline>>,
    compute: HashMap<(String, SpecValues), Cached<ComputePipeline>>,
}

/// Module ids, unique in the process: a pipeline remembers the ids it was built from.
static NEXT_MODULE_ID: AtomicU64 = AtomicU64::new(1);

fn diagnostic(code: Code, key: &str, message: String, hint: &str) -> Vec<Diagnostic> {
    vec![Diagnostic::error(code, key, message).hint(hint.to_string())]
}

impl WgpuLibrary {
    /// A library over `registry`'s infos with sources under `opts.shader_root`.
    pub fn new(
        ctx: &WgpuContext,
        registry: Registry,
        opts: LibraryOptions,
    ) -> WgpuResult<WgpuLibrary> {
        if opts.subpass == Some(SubpassMode::LocalRead) {
            return Err(WgpuError::Diagnostics(vec![
                Diagnostic::error(
                    Code::Unsupported,
                    "(library)",
                    "wgpu has no dynamic-rendering local read, so it cannot read subpass inputs that way",
                )
                .hint("leave LibraryOptions::subpass unset (or Emulated) for the wgpu library"),
            ]));
        }
        Ok(WgpuLibrary {
            ctx: ctx.clone(),
            sources: Sources::new(registry, opts, SubpassMode::Emulated)
                .map_err(WgpuError::Diagnostics)?,
            modules: BTreeMap::new(),
            render: HashMap::new(),
            compute: HashMap::new(),
        })
    }

    /// The device.
    pub fn context(&self) -> &WgpuContext {
        &self.ctx
    }

    /// The registry the infos come from.
    pub fn registry(&self) -> &Registry {
        &self.sources.registry
    }

    /// Resolves and validates a key (an info name or a variant key). Cached per key.
    pub fn validated(&mut self, key: &str) -> WgpuResult<Arc<ValidatedInfo>> {
        self.sources.validated(key).map_err(WgpuError::Diagnostics)
    }

    /// The variant table of an info with static branches.
    pub fn variants(&mut self, info_name: &str) -> WgpuResult<Arc<VariantSet>> {
        self.sources
            .variants(info_name)
            .map_err(WgpuError::Diagnostics)
    }

    /// The key of the unique variant a permutation folds into.
    pub fn variant_key(&mut self, info_name: &str, permutation: u64) -> WgpuResult<String> {
        self.sources
            .variant_key(info_name, permutation)
            .map_err(WgpuError::Diagnostics)
    }

    /// The pipeline plan of a key.
    pub fn plan(&mut self, key: &str) -> WgpuResult<PipelinePlan> {
        let info = self.validated(key)?;
        Ok(self.sources.flow().plan(&info))
    }

    /// The checked WGSL translation of one stage of a key.
    fn translate(&mut self, key: &str, stage: Stage) -> Result<Translation, Vec<Diagnostic>> {
        let info = self.sources.validated(key)?;
        let opts = CrossOptions {
            targets: vec![Target::Wgsl],
            check: true,
            values: SpecValues::default(),
        };
        let flow = self.sources.flow();
        let verdict = translate_module(&flow, &info, stage, &opts)
            .pop()
            .map(|(_, v)| v);
        match verdict {
            Some(Verdict::Translated(t)) => Ok(t),
            Some(Verdict::Failed(d)) => Err(d),
            Some(other) => Err(diagnostic(
                Code::Unsupported,
                key,
                format!(
                    "no wgpu pipeline for `{key}`: {}",
                    other.lines(Target::Wgsl).join("; ")
                ),
                "draw it with the Vulkan backend, or declare a variant WebGPU can express",
            )),
            None => Err(diagnostic(
                Code::Internal,
                key,
                format!("the cross pass returned no verdict for `{key}` ({stage})"),
                "report it as a bug",
            )),
        }
    }

    /// Creates the wgpu module of a translation inside an error scope.
    fn create_module(&self, key: &str, t: Translation) -> Result<Module, Vec<Diagnostic>> {
        let stage = t.stage;
        let refused = |what: String| {
            diagnostic(
                Code::Translation,
                key,
                format!("the WGSL of `{key}` ({stage}) {what}"),
                "a bug in the translation: report it with the WGSL (`shader-builder show --target wgsl`)",
            )
        };
        let mut module = naga::front::wgsl::parse_str(&t.text)
            .map_err(|e| refused(format!("does not parse: {}", e.emit_to_string(&t.text))))?;
        if !self.ctx.has_immediates() {
            for (_, g) in module.global_variables.iter_mut() {
                if g.space == naga::AddressSpace::Immediate {
                    g.space = naga::AddressSpace::Storage {
                        access: naga::StorageAccess::LOAD,
                    };
                    g.binding = Some(naga::ResourceBinding {
                        group: PUSH_CONSTANT_FALLBACK_GROUP,
                        binding: 0,
                    });
                }
            }
        }
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| refused(format!("does not validate: {}", e.emit_to_string(&t.text))))?;
        let ep = module
            .entry_points
            .iter()
            .position(|e| e.name == t.entry_point)
            .ok_or_else(|| refused(format!("has no entry point `{}`", t.entry_point)))?;
        let uses = info.get_entry_point(ep);
        let used = module
            .global_variables
            .iter()
            .filter(|(h, _)| !uses[*h].is_empty())
            .filter_map(|(_, g)| g.binding.as_ref().map(|b| (b.group, b.binding)))
            .collect();
        let overrides = module.overrides.iter().filter_map(|(_, o)| o.id).collect();
        let label = format!("{key}.{}", stage.short_name());
        let scope = self.ctx.device.push_error_scope(w::ErrorFilter::Validation);
        let created = self
            .ctx
            .device
            .create_shader_module(w::ShaderModuleDescriptor {
                label: Some(&label),
                source: w::ShaderSource::Naga(Cow::Owned(module)),
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(refused(format!("was refused by wgpu: {e}")));
        }
        Ok(Module {
            module: created,
            translation: t,
            used,
            overrides,
            id: NEXT_MODULE_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The module of `stage` of `key`, translated, checked and created on first use.
    pub fn module(&mut self, key: &str, stage: Stage) -> WgpuResult<Arc<Module>> {
        let mkey = (key.to_string(), stage);
        if let Some(m) = self.modules.get(&mkey) {
            return Ok(m.clone());
        }
        let t = self.translate(key, stage).map_err(WgpuError::Diagnostics)?;
        let m = Arc::new(self.create_module(key, t).map_err(WgpuError::Diagnostics)?);
        self.modules.insert(mkey, m.clone());
        Ok(m)
    }

    /// Bind group layouts, the pipeline layout and the push-constant path of a plan whose stages use `modules`.
    fn layouts(
        &self,
        plan: &PipelinePlan,
        modules: &[(Stage, Arc<Module>)],
    ) -> Result<Layouts, Vec<Diagnostic>> {
        let key = plan.key.as_str();
        let visibility = |set: u32, binding: u32| {
            let mut v = w::ShaderStages::NONE;
            for (s, m) in modules {
                if m.used.contains(&(set, binding)) {
                    v |= stage_bit(*s);
                }
            }
            v
        };
        let mut groups = map::bind_group_entries(plan, &visibility).map_err(|e| {
            diagnostic(
                Code::Unsupported,
                key,
                format!("no wgpu layout for `{key}`: {e}"),
                "declare resources WebGPU can bind",
            )
        })?;
        let spilled = plan
            .push_constants
            .as_ref()
            .is_some_and(|p| p.spill.is_some());
        let push_constants = match &plan.push_constants {
            None => PushConstants::None,
            Some(pc)
                if !spilled
                    && self.ctx.has_immediates()
                    && pc.twin_size() <= self.ctx.device.limits().max_immediate_size =>
            {
                PushConstants::Immediates {
                    size: pc.twin_size(),
                }
            }
            // WGSL rounds a struct's size up to its alignment (at most 16): the buffer holds the rounded size.
            Some(pc) => PushConstants::Buffer {
                size: pc.size.next_multiple_of(16),
            },
        };
        // A spilled block is already a binding of the plan's group: only its filling is ours.
        if let PushConstants::Buffer { size } = push_constants
            && !spilled
        {
            let mut v = w::ShaderStages::NONE;
            for (s, _) in modules {
                v |= stage_bit(*s);
            }
            groups.resize(PUSH_CONSTANT_FALLBACK_GROUP as usize + 1, Vec::new());
            groups[PUSH_CONSTANT_FALLBACK_GROUP as usize].push(w::BindGroupLayoutEntry {
                binding: 0,
                visibility: v,
                ty: w::BindingType::Buffer {
                    ty: w::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: std::num::NonZeroU64::new(size.into()),
                },
                count: None,
            });
        }
        let device = &self.ctx.device;
        let scope = device.push_error_scope(w::ErrorFilter::Validation);
        let bind_group_layouts: Vec<w::BindGroupLayout> = groups
            .iter()
            .enumerate()
            .map(|(set, entries)| {
                device.create_bind_group_layout(&w::BindGroupLayoutDescriptor {
                    label: Some(&format!("{key} set {set}")),
                    entries,
                })
            })
            .collect();
        // A set the info leaves empty is a gap in the pipeline layout, so a renderer binds only the groups that
        // hold something.
        let refs: Vec<Option<&w::BindGroupLayout>> = bind_group_layouts
            .iter()
            .zip(&groups)
            .map(|(layout, entries)| (!entries.is_empty()).then_some(layout))
            .collect();
        let layout = device.create_pipeline_layout(&w::PipelineLayoutDescriptor {
            label: Some(key),
            bind_group_layouts: &refs,
            immediate_size: match push_constants {
                PushConstants::Immediates { size } => size,
                _ => 0,
            },
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the layout of `{key}`: {e}"),
                "check the declaration's resources against the device's limits",
            ));
        }
        let declared_samplers = plan
            .bindings()
            .filter_map(|(set, b)| match &b.resource {
                shader_info::ResourceKind::Sampler {
                    state: Some(state), ..
                } => Some((
                    set,
                    b.name.clone(),
                    device.create_sampler(&super::map::sampler_descriptor(state)),
                )),
                _ => None,
            })
            .collect();
        Ok(Layouts {
            bind_group_layouts,
            layout,
            push_constants,
            info: key.to_string(),
            push_block: plan
                .push_constants
                .as_ref()
                .map(|p| (p.size, p.twin_size())),
            declared_samplers,
        })
    }

    /// Overrides a module declares, with their values (by `@id`).
    fn constants(
        plan: &PipelinePlan,
        values: &SpecValues,
        module: &Module,
    ) -> Result<Vec<(String, f64)>, Vec<Diagnostic>> {
        let resolved = values
            .resolve(&plan.specialization_constants)
            .map_err(|m| {
                diagnostic(
                    Code::InvalidConstant,
                    &plan.key,
                    m,
                    "pass declared names and types",
                )
            })?;
        Ok(resolved
            .into_iter()
            .filter(|(d, _)| module.overrides.iter().any(|id| u32::from(*id) == d.id))
            .map(|(d, v)| {
                let v = match v {
                    ConstValue::Bool(b) => f64::from(u8::from(b)),
                    ConstValue::Int(i) => f64::from(i),
                    ConstValue::Uint(u) => f64::from(u),
                    ConstValue::Float(f) => f64::from(f),
                };
                (d.id.to_string(), v)
            })
            .collect())
    }

    /// The plan of a key that may have a wgpu pipeline (ray tracing may not).
    fn pipeline_plan(&mut self, key: &str) -> Result<PipelinePlan, Vec<Diagnostic>> {
        let plan = self.plan(key).map_err(|e| e.into_diagnostics(key))?;
        if plan.kind == PipelineKind::RayTracing {
            return Err(diagnostic(
                Code::Unsupported,
                key,
                format!("no wgpu pipeline for `{key}`: WebGPU has no ray-tracing pipelines"),
                "draw it with the Vulkan backend",
            ));
        }
        Ok(plan)
    }

    fn modules_of(
        &mut self,
        key: &str,
        plan: &PipelinePlan,
    ) -> Result<Vec<(Stage, Arc<Module>)>, Vec<Diagnostic>> {
        plan.stages
            .iter()
            .map(|&s| {
                self.module(key, s)
                    .map(|m| (s, m))
                    .map_err(|e| e.into_diagnostics(key))
            })
            .collect()
    }

    fn build_render(&mut self, key: &str, opts: &RenderOptions) -> Built<RenderPipeline> {
        let plan = self.pipeline_plan(key)?;
        if plan.kind != PipelineKind::Graphics {
            return Err(diagnostic(
                Code::MixedPipelineKinds,
                key,
                format!("`{key}` is a {:?} info, not a graphics one", plan.kind),
                "fetch it with compute_pipeline",
            ));
        }
        let modules = self.modules_of(key, &plan)?;
        let layouts = self.layouts(&plan, &modules)?;
        let declared = plan.render_state.clone().unwrap_or_default();
        let state = opts.state.clone().unwrap_or_else(|| declared.clone());
        let problem = |m: String, hint: &str| diagnostic(Code::RenderState, key, m, hint);
        let primitive = map::primitive(&state).map_err(|e| {
            problem(
                format!("`{key}` declares {e}"),
                "declare state WebGPU can draw",
            )
        })?;
        let features = self.ctx.device.features();
        for (mode, feature) in [
            (
                shader_info::PolygonMode::Line,
                w::Features::POLYGON_MODE_LINE,
            ),
            (
                shader_info::PolygonMode::Point,
                w::Features::POLYGON_MODE_POINT,
            ),
        ] {
            if state.polygon_mode == mode && !features.contains(feature) {
                return Err(problem(
                    format!(
                        "`{key}` draws {mode:?} polygons, which {} cannot",
                        self.ctx.device_name()
                    ),
                    "declare filled polygons for this device",
                ));
            }
        }
        if (state.depth.is_some() || state.stencil.is_some()) && opts.depth_format.is_none() {
            return Err(problem(
                format!(
                    "`{key}` declares a depth or stencil test, but the pipeline has no depth attachment"
                ),
                "pass RenderOptions::depth_format, or override the state for a pass without depth",
            ));
        }
        let buffers = plan.vertex_buffers(opts.vertex_layout);
        let attributes: Vec<Vec<w::VertexAttribute>> = buffers
            .iter()
            .map(|b| {
                b.attributes
                    .iter()
                    .map(|&(location, format, offset)| w::VertexAttribute {
                        format: map::vertex_format(format),
                        offset: offset.into(),
                        shader_location: location,
                    })
                    .collect()
            })
            .collect();
        let vertex_buffers: Vec<Option<w::VertexBufferLayout>> = buffers
            .iter()
            .zip(&attributes)
            .map(|(b, a)| {
                Some(w::VertexBufferLayout {
                    array_stride: b.stride.into(),
                    step_mode: w::VertexStepMode::Vertex,
                    attributes: a,
                })
            })
            .collect();
        let targets: Vec<Option<w::ColorTargetState>> =
            map::color_formats(&plan, opts.color_format, &opts.color_format_overrides)
                .into_iter()
                .enumerate()
                .map(|(loc, f)| {
                    let loc = loc as u32;
                    f.map(|format| w::ColorTargetState {
                        format,
                        blend: format
                            .sample_type(None, None)
                            .is_some_and(|t| matches!(t, w::TextureSampleType::Float { .. }))
                            .then(|| map::blend(state.blend_at(loc)))
                            .flatten(),
                        write_mask: map::color_writes(state.color_writes_at(loc)),
                    })
                })
                .collect();
        let find = |s: Stage| {
            modules
                .iter()
                .find(|(x, _)| *x == s)
                .map(|(_, m)| m.clone())
        };
        let Some(vs) = find(Stage::Vertex) else {
            return Err(diagnostic(
                Code::IncompleteInfo,
                key,
                format!("`{key}` has no vertex stage"),
                "declare a vertex_source",
            ));
        };
        let fs = find(Stage::Fragment);
        let vs_constants = Self::constants(&plan, &opts.specialization, &vs)?;
        let fs_constants = match &fs {
            Some(m) => Self::constants(&plan, &opts.specialization, m)?,
            None => Vec::new(),
        };
        let (vs_refs, fs_refs) = (constant_refs(&vs_constants), constant_refs(&fs_constants));
        let device = &self.ctx.device;
        let scope = device.push_error_scope(w::ErrorFilter::Validation);
        let pipeline = device.create_render_pipeline(&w::RenderPipelineDescriptor {
            label: Some(key),
            layout: Some(&layouts.layout),
            vertex: w::VertexState {
                module: &vs.module,
                entry_point: Some(&vs.translation.entry_point),
                compilation_options: w::PipelineCompilationOptions {
                    constants: &vs_refs,
                    zero_initialize_workgroup_memory: false,
                },
                buffers: &vertex_buffers,
            },
            primitive,
            depth_stencil: map::depth_stencil(&state, opts.depth_format),
            multisample: w::MultisampleState {
                count: opts.samples.max(1),
                mask: !0,
                alpha_to_coverage_enabled: state.alpha_to_coverage,
            },
            fragment: fs.as_ref().map(|m| w::FragmentState {
                module: &m.module,
                entry_point: Some(&m.translation.entry_point),
                compilation_options: w::PipelineCompilationOptions {
                    constants: &fs_refs,
                    zero_initialize_workgroup_memory: false,
                },
                targets: &targets,
            }),
            multiview_mask: None,
            cache: self.ctx.pipeline_cache(),
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the render pipeline of `{key}`: {e}"),
                "check the options (formats, samples) against the declaration",
            ));
        }
        let built_from = modules.iter().map(|(s, m)| (*s, m.id)).collect();
        Ok((
            RenderPipeline {
                pipeline,
                layouts,
                state_overridden: opts.state.as_ref().is_some_and(|s| *s != declared),
                state,
                plan,
            },
            built_from,
        ))
    }

    fn build_compute(&mut self, key: &str, values: &SpecValues) -> Built<ComputePipeline> {
        let plan = self.pipeline_plan(key)?;
        if plan.kind != PipelineKind::Compute {
            return Err(diagnostic(
                Code::MixedPipelineKinds,
                key,
                format!("`{key}` is a {:?} info, not a compute one", plan.kind),
                "fetch it with render_pipeline",
            ));
        }
        let l = self.ctx.device.limits();
        let problems = plan.work_group_problems(
            [
                l.max_compute_workgroup_size_x,
                l.max_compute_workgroup_size_y,
                l.max_compute_workgroup_size_z,
            ],
            l.max_compute_invocations_per_workgroup,
        );
        let problems = [
            problems,
            plan.shared_memory_problems(l.max_compute_workgroup_storage_size),
        ]
        .concat();
        if !problems.is_empty() {
            return Err(problems);
        }
        let modules = self.modules_of(key, &plan)?;
        let layouts = self.layouts(&plan, &modules)?;
        let Some((_, cs)) = modules.iter().find(|(s, _)| *s == Stage::Compute) else {
            return Err(diagnostic(
                Code::IncompleteInfo,
                key,
                format!("`{key}` has no compute stage"),
                "declare a compute_source",
            ));
        };
        let constants = Self::constants(&plan, values, cs)?;
        let refs = constant_refs(&constants);
        let device = &self.ctx.device;
        let scope = device.push_error_scope(w::ErrorFilter::Validation);
        let pipeline = device.create_compute_pipeline(&w::ComputePipelineDescriptor {
            label: Some(key),
            layout: Some(&layouts.layout),
            module: &cs.module,
            entry_point: Some(&cs.translation.entry_point),
            compilation_options: w::PipelineCompilationOptions {
                constants: &refs,
                zero_initialize_workgroup_memory: false,
            },
            cache: self.ctx.pipeline_cache(),
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the compute pipeline of `{key}`: {e}"),
                "check the declaration against the device's limits",
            ));
        }
        let built_from = modules.iter().map(|(s, m)| (*s, m.id)).collect();
        Ok((
            ComputePipeline {
                pipeline,
                layouts,
                plan,
            },
            built_from,
        ))
    }

    /// The render pipeline of `key` with `options`, created on first use. Fetch it again after a reload to get
    /// the rebuilt one.
    pub fn render_pipeline(
        &mut self,
        key: &str,
        options: &RenderOptions,
    ) -> WgpuResult<Arc<RenderPipeline>> {
        let ckey = (key.to_string(), options.clone());
        if let Some(c) = self.render.get(&ckey) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self
            .build_render(key, options)
            .map_err(WgpuError::Diagnostics)?;
        let pipeline = Arc::new(p);
        self.render.insert(
            ckey,
            Cached {
                pipeline: pipeline.clone(),
                built_from,
            },
        );
        Ok(pipeline)
    }

    /// The compute pipeline of `key` with the declared specialization defaults.
    pub fn compute_pipeline(&mut self, key: &str) -> WgpuResult<Arc<ComputePipeline>> {
        self.compute_pipeline_with(key, &SpecValues::default())
    }

    /// The compute pipeline of `key` with specialization `values` (WGSL overrides).
    pub fn compute_pipeline_with(
        &mut self,
        key: &str,
        values: &SpecValues,
    ) -> WgpuResult<Arc<ComputePipeline>> {
        let ckey = (key.to_string(), values.clone());
        if let Some(c) = self.compute.get(&ckey) {
            return Ok(c.pipeline.clone());
        }
        let (p, built_from) = self
            .build_compute(key, values)
            .map_err(WgpuError::Diagnostics)?;
        let pipeline = Arc::new(p);
        self.compute.insert(
            ckey,
            Cached {
                pipeline: pipeline.clone(),
                built_from,
            },
        );
        Ok(pipeline)
    }

    /// Number of cached pipelines.
    pub fn pipeline_count(&self) -> usize {
        self.render.len() + self.compute.len()
    }

    /// Translates every module the library holds again (the compiler's cache skips unchanged sources; a module is
    /// replaced only when its WGSL changed), then rebuilds exactly the pipelines whose modules changed. A failed
    /// compile, translation, check, module or pipeline keeps the previous pipeline and is reported with its
    /// diagnostics, naming the info.
    pub fn reload(&mut self) -> WgpuResult<ReloadReport> {
        let start = Instant::now();
        let mut report = ReloadReport::default();
        let mut failed: HashMap<ModuleKey, Vec<Diagnostic>> = HashMap::new();
        let keys: Vec<ModuleKey> = self.modules.keys().cloned().collect();
        for mkey in keys {
            let outcome = self.translate(&mkey.0, mkey.1).and_then(|t| {
                if self.modules[&mkey].translation.text == t.text {
                    return Ok(None);
                }
                self.create_module(&mkey.0, t).map(Some)
            });
            match outcome {
                Ok(None) => {}
                Ok(Some(m)) => {
                    report.modules_changed.push(mkey.clone());
                    self.modules.insert(mkey, Arc::new(m));
                }
                Err(d) => {
                    report
                        .modules_failed
                        .push((mkey.0.clone(), mkey.1, d.clone()));
                    failed.insert(mkey, d);
                }
            }
        }
        let current = |modules: &BTreeMap<ModuleKey, Arc<Module>>, key: &str, s: Stage| {
            modules.get(&(key.to_string(), s)).map(|m| m.id)
        };
        let rkeys: Vec<(String, RenderOptions)> = self.render.keys().cloned().collect();
        for key in rkeys {
            let built_from = self.render[&key].built_from.clone();
            let modules = &self.modules;
            let outcome = match decide(&failed, &key.0, &built_from, |s| {
                current(modules, &key.0, s)
            }) {
                Some(o) => o,
                None => rebuilt(self.build_render(&key.0, &key.1), |p, built_from| {
                    self.render.insert(
                        key.clone(),
                        Cached {
                            pipeline: Arc::new(p),
                            built_from,
                        },
                    );
                }),
            };
            report.pipelines.push((key.0.clone(), outcome));
        }
        let ckeys: Vec<(String, SpecValues)> = self.compute.keys().cloned().collect();
        for key in ckeys {
            let built_from = self.compute[&key].built_from.clone();
            let modules = &self.modules;
            let outcome = match decide(&failed, &key.0, &built_from, |s| {
                current(modules, &key.0, s)
            }) {
                Some(o) => o,
                None => rebuilt(self.build_compute(&key.0, &key.1), |p, built_from| {
                    self.compute.insert(
                        key.clone(),
                        Cached {
                            pipeline: Arc::new(p),
                            built_from,
                        },
                    );
                }),
            };
            report.pipelines.push((key.0.clone(), outcome));
        }
        report.pipelines.sort_by(|a, b| a.0.cmp(&b.0));
        report.duration = start.elapsed();
        Ok(report)
    }
}

fn stage_bit(s: Stage) -> w::ShaderStages {
    match s {
        Stage::Vertex => w::ShaderStages::VERTEX,
        Stage::Fragment => w::ShaderStages::FRAGMENT,
        Stage::Compute => w::ShaderStages::COMPUTE,
        _ => w::ShaderStages::NONE,
    }
}

fn constant_refs(c: &[(String, f64)]) -> Vec<(&str, f64)> {
    c.iter().map(|(k, v)| (k.as_str(), *v)).collect()
}
