//! The wgpu side of the shader library: every module goes through the [`crate::flow::Flow`] and the cross pass
//! (validated, generated in the portable flavor, compiled, translated to WGSL and checked) and reaches wgpu as the
//! naga IR of that checked WGSL; layouts and pipelines are mapped from the info's plan ([`super::map`]). wgpu's
//! errors are caught in error scopes and reported with the info's name. The lifecycle — caches, reload that keeps
//! the last good pipeline, parallel warm-up, the shared checks — is the core's ([`crate::library::Library`]).

use super::context::WgpuContext;
use super::error::{WgpuError, WgpuResult};
use super::map;
use super::pipeline::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, Layouts, Module,
    PUSH_CONSTANT_FALLBACK_GROUP, PushConstants,
};
use crate::cross::{Target, Translation};
use crate::flow::Flow;
use crate::library::{
    Attachments, Backend, DeviceLimits, FormatClass, InterfaceLimits, Library, LibraryOptions,
};
use ::wgpu as w;
use shader_info::{
    Code, ConstValue, DescriptorCounts, Diagnostic, PipelinePlan, Registry, RenderState,
    SpecValues, Stage, SubpassMode, ValidatedInfo, VertexFormat,
};
use std::borrow::Cow;

/// Modules and pipelines fetched by info name (or variant key) on wgpu, created on first use, hot-reloadable:
/// the core [`Library`] over [`WgpuBackend`]. See the [module documentation](super) for an example.
pub type WgpuLibrary = Library<WgpuBackend>;

/// One pipeline to create up front on wgpu (see [`Library::warm_up`]).
pub type WarmUp = crate::library::WarmUp<GraphicsOptions>;

/// The wgpu side of the library: a device.
pub struct WgpuBackend {
    ctx: WgpuContext,
    /// How many of the context's uncaptured errors the library has looked at.
    seen_errors: std::sync::atomic::AtomicU64,
}

impl WgpuLibrary {
    /// A library over `registry`'s infos with sources under `opts.shader_root`, on `ctx`.
    pub fn new(
        ctx: &WgpuContext,
        registry: Registry,
        opts: LibraryOptions,
    ) -> WgpuResult<WgpuLibrary> {
        Library::with_backend(
            WgpuBackend {
                ctx: ctx.clone(),
                seen_errors: Default::default(),
            },
            registry,
            opts,
        )
    }

    /// The device.
    pub fn context(&self) -> &WgpuContext {
        &self.backend().ctx
    }
}

fn diagnostic(code: Code, key: &str, message: String, hint: &str) -> Vec<Diagnostic> {
    vec![Diagnostic::error(code, key, message).hint(hint.to_string())]
}

impl WgpuBackend {
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
}

impl Backend for WgpuBackend {
    type GraphicsOptions = GraphicsOptions;
    type Source = Translation;
    type Module = Module;
    type Layout = Layouts;
    type Graphics = GraphicsPipeline;
    type Compute = ComputePipeline;
    /// WebGPU has no ray tracing: [`Backend::create_ray_tracing`] says so.
    type RayTracing = std::convert::Infallible;
    type Error = WgpuError;
    const API: &'static str = "wgpu";
    const TRACKS_GPU_USE: bool = true;

    fn device_name(&self) -> String {
        self.ctx.device_name()
    }

    /// WebGPU has no geometry or tessellation stages.
    fn runs_stage(&self, stage: Stage) -> bool {
        !matches!(
            stage,
            Stage::Geometry | Stage::TessControl | Stage::TessEvaluation
        )
    }

    fn limits(&self) -> DeviceLimits {
        let l = self.ctx.device.limits();
        DeviceLimits {
            max_work_group_size: [
                l.max_compute_workgroup_size_x,
                l.max_compute_workgroup_size_y,
                l.max_compute_workgroup_size_z,
            ],
            max_work_group_invocations: l.max_compute_invocations_per_workgroup,
            max_shared_memory: l.max_compute_workgroup_storage_size,
            max_color_attachments: l.max_color_attachments,
            per_stage_descriptors: DescriptorCounts {
                samplers: l.max_samplers_per_shader_stage,
                sampled_images: l.max_sampled_textures_per_shader_stage,
                storage_images: l.max_storage_textures_per_shader_stage,
                uniform_buffers: l.max_uniform_buffers_per_shader_stage,
                storage_buffers: l.max_storage_buffers_per_shader_stage,
                acceleration_structures: l.max_acceleration_structures_per_shader_stage,
                ..DescriptorCounts::UNLIMITED
            },
            layout_descriptors: DescriptorCounts::UNLIMITED,
            max_uniform_buffer_range: l.max_uniform_buffer_binding_size,
            max_storage_buffer_range: l.max_storage_buffer_binding_size,
            vertex_rules: shader_info::VertexRules::WebGpu,
            vertex_input: shader_info::VertexInputLimits {
                buffers: l.max_vertex_buffers,
                stride: l.max_vertex_buffer_array_stride,
                // WebGPU bounds an attribute's end by its stride, and the stride by this limit.
                attribute_offset: l.max_vertex_buffer_array_stride,
            },
            // No geometry or tessellation stage (an info with one is refused for that, its limits unread).
            max_geometry_invocations: 0,
            max_geometry_total_output_components: 0,
            max_tess_patch_output_components: 0,
            max_tess_total_output_components: 0,
            // WebGPU counts declared variables only: the position the core counts with the gl_PerVertex block
            // (whose components it adds to every interface but the fragment stage's inputs) is not one of them.
            interface_components: InterfaceLimits {
                vertex_out: (l.max_inter_stage_shader_variables.saturating_mul(4))
                    .saturating_add(shader_info::PER_VERTEX_COMPONENTS),
                fragment_in: l.max_inter_stage_shader_variables.saturating_mul(4),
                ..InterfaceLimits::default()
            },
        }
    }

    /// Always emulated: wgpu has no dynamic-rendering local read.
    fn subpass_mode(&self, requested: Option<SubpassMode>) -> Result<SubpassMode, Vec<Diagnostic>> {
        if requested == Some(SubpassMode::LocalRead) {
            return Err(vec![
                Diagnostic::error(
                    Code::Unsupported,
                    "(library)",
                    "wgpu has no dynamic-rendering local read, so it cannot read subpass inputs that way",
                )
                .hint("leave LibraryOptions::subpass unset (or Emulated) for the wgpu library"),
            ]);
        }
        Ok(SubpassMode::Emulated)
    }

    /// The checked WGSL translation of the stage (compiled in the portable flavor, translated by naga and checked).
    /// Only a translation whose text differs from `current`'s is made into a module again.
    fn source(
        &self,
        flow: &Flow<'_>,
        info: &ValidatedInfo,
        stage: Stage,
        current: Option<u128>,
    ) -> Result<Option<(u128, Translation)>, Vec<Diagnostic>> {
        let t = crate::library::checked_translation(flow, info, stage, Target::Wgsl)?;
        let hash = xxhash_rust::xxh3::xxh3_128(t.text.as_bytes());
        Ok((current != Some(hash)).then_some((hash, t)))
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
        // The same rule as the layout's (`create_layout`): the block is immediates where the device takes them and
        // the block fits (no array, its WGSL size within the device's limit), else the storage buffer. The text
        // holds it where every WebGPU implementation would.
        let max = if self.ctx.has_immediates() {
            self.ctx.device.limits().max_immediate_size
        } else {
            0
        };
        if let Some(placed) = crate::cross::immediates::place_push_block(&module, max) {
            module = placed;
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
        let reads_immediates = module
            .global_variables
            .iter()
            .any(|(h, g)| g.space == naga::AddressSpace::Immediate && !uses[h].is_empty());
        let overrides = module.overrides.iter().filter_map(|(_, o)| o.id).collect();
        let label = format!("{key}.{}", stage.short_name());
        let scope = super::context::ErrorScopes::push(&self.ctx.device);
        let created = self
            .ctx
            .device
            .create_shader_module(w::ShaderModuleDescriptor {
                label: Some(&label),
                source: w::ShaderSource::Naga(Cow::Owned(module)),
            });
        if let Some(e) = scope.pop() {
            return Err(refused(format!("was refused by wgpu: {e}")));
        }
        Ok(Module {
            module: created,
            translation: t,
            used,
            reads_immediates,
            overrides,
        })
    }

    fn module_uses(module: &Module, set: u32, binding: u32) -> bool {
        module.uses(set, binding)
    }

    /// Bind group layouts, the pipeline layout and the push-constant path of a plan whose stages use `modules`.
    fn create_layout(
        &self,
        plan: &PipelinePlan,
        modules: &[(Stage, &Module)],
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
                if self.ctx.has_immediates()
                    && crate::cross::immediates::immediates_fit(
                        pc,
                        self.ctx.device.limits().max_immediate_size,
                    ) =>
            {
                PushConstants::Immediates {
                    size: pc.twin_size(),
                }
            }
            // WGSL rounds a struct's size up to its alignment (32 for a dvec3 or dvec4 member): the buffer holds
            // the rounded size, the twin's, as immediates do.
            Some(pc) => PushConstants::Buffer {
                size: pc.twin_size(),
            },
        };
        // The shaders read the block where the layout puts it: wgpu takes a pipeline whose shader reads immediates
        // that the layout never holds, and the shader then reads zeros (a spilled block moved into immediates did,
        // on a 256-byte NVIDIA device). A disagreement is an error naming the stage, never a wrong frame.
        let in_immediates = matches!(push_constants, PushConstants::Immediates { .. });
        if let Some((stage, _)) = modules
            .iter()
            .find(|(_, m)| m.reads_immediates && !in_immediates)
        {
            return Err(diagnostic(
                Code::Translation,
                key,
                format!(
                    "the WGSL of `{key}` ({stage}) reads its push constants from immediates, but the pipeline \
                     layout puts them in the storage buffer at @group({PUSH_CONSTANT_FALLBACK_GROUP}) @binding(0)"
                ),
                "a bug in the push-constant placement (`cross::immediates`): report it with the info",
            ));
        }
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
        let scope = super::context::ErrorScopes::push(device);
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
        // Made inside the scope, labelled with the key: an error about one names the info and the binding.
        let declared_samplers: Vec<_> = plan
            .bindings()
            .filter_map(|(set, b)| {
                let state = b.resource.fixed_sampler()?;
                Some((
                    set,
                    b.name.clone(),
                    device.create_sampler(&w::SamplerDescriptor {
                        label: Some(&format!("{key} sampler of {}", b.name)),
                        ..super::map::sampler_descriptor(state)
                    }),
                ))
            })
            .collect();
        let layout = device.create_pipeline_layout(&w::PipelineLayoutDescriptor {
            label: Some(key),
            bind_group_layouts: &refs,
            immediate_size: match push_constants {
                PushConstants::Immediates { size } => size,
                _ => 0,
            },
        });
        if let Some(e) = scope.pop() {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the layout of `{key}`: {e}"),
                "check the declaration's resources against the device's limits",
            ));
        }
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

    fn attachments(
        &self,
        plan: &PipelinePlan,
        options: &GraphicsOptions,
    ) -> Result<Attachments, Vec<Diagnostic>> {
        let class = |f: w::TextureFormat| match f.sample_type(None, None) {
            Some(w::TextureSampleType::Sint) => FormatClass::Sint,
            Some(w::TextureSampleType::Uint) => FormatClass::Uint,
            _ => FormatClass::Float,
        };
        Ok(Attachments {
            colors: map::color_formats(plan, options.color_format, &options.color_format_overrides)
                .into_iter()
                .map(|f| f.map(class))
                .collect(),
            depth: options.depth_format.is_some_and(|f| f.has_depth_aspect()),
            stencil: options.depth_format.is_some_and(|f| f.has_stencil_aspect()),
            samples: options.samples.max(1),
        })
    }

    fn state_override(options: &GraphicsOptions) -> Option<&RenderState> {
        options.state.as_ref()
    }

    fn color_override_locations(options: &GraphicsOptions) -> Vec<u32> {
        options.color_format_overrides.iter().map(|o| o.0).collect()
    }

    fn vertex_arrangement(options: &GraphicsOptions) -> shader_info::VertexArrangement {
        options.vertex_layout
    }

    fn set_vertex_arrangement(
        options: &mut GraphicsOptions,
        arrangement: shader_info::VertexArrangement,
    ) {
        options.vertex_layout = arrangement;
    }

    /// What WebGPU or this device cannot draw: a topology WebGPU lacks, line or point polygons without their
    /// feature, an info without a vertex stage.
    fn graphics_problems(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        _options: &GraphicsOptions,
        modules: &[(Stage, &Module)],
    ) -> Vec<Diagnostic> {
        let key = plan.key.as_str();
        let problem = |m: String, hint: &str| diagnostic(Code::RenderState, key, m, hint);
        let mut out = Vec::new();
        if let Err(e) = map::primitive(state) {
            out.extend(problem(
                format!("`{key}` declares {e}"),
                "declare state WebGPU can draw",
            ));
        }
        // WebGPU's constant bias is a whole number of depth units; Vulkan's a float factor.
        if let Some(b) = state.depth_bias
            && (b.constant.fract() != 0.0 || b.constant.abs() > i32::MAX as f32)
        {
            out.extend(problem(
                format!(
                    "`{key}` declares a constant depth bias of {}, which WebGPU cannot take: its bias is a whole \
                     number of depth units",
                    b.constant
                ),
                "declare a whole number (per variant where the techniques differ)",
            ));
        }
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
                out.extend(problem(
                    format!(
                        "`{key}` draws {mode:?} polygons, which {} cannot",
                        self.ctx.device_name()
                    ),
                    "declare filled polygons for this device",
                ));
            }
        }
        // 64-bit vertex formats are an optional WebGPU feature (the Vulkan backend asks the driver per format).
        if !features.contains(w::Features::VERTEX_ATTRIBUTE_64BIT) {
            for a in plan
                .vertex_attributes
                .iter()
                .filter(|a| a.offset_in_value == 0)
            {
                if matches!(
                    a.format,
                    VertexFormat::Float64
                        | VertexFormat::Float64x2
                        | VertexFormat::Float64x3
                        | VertexFormat::Float64x4
                ) {
                    out.extend(problem(
                        format!(
                            "{} `{}` (location {}) is stored as {:?}, which {} cannot read from a vertex buffer \
                             (WebGPU's VERTEX_ATTRIBUTE_64BIT feature)",
                            a.rate.item(),
                            a.name,
                            a.location,
                            a.format,
                            self.ctx.device_name()
                        ),
                        "declare it a 32-bit float input (a vec, not a dvec) for this device",
                    ));
                }
            }
        }
        if !modules.iter().any(|(s, _)| *s == Stage::Vertex) {
            out.extend(diagnostic(
                Code::IncompleteInfo,
                key,
                format!("`{key}` has no vertex stage"),
                "declare a vertex_source",
            ));
        }
        out
    }

    fn create_graphics(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        modules: &[(Stage, &Module)],
        layouts: Layouts,
        opts: &GraphicsOptions,
    ) -> Result<GraphicsPipeline, Vec<Diagnostic>> {
        let key = plan.key.as_str();
        let problem = |m: String, hint: &str| diagnostic(Code::RenderState, key, m, hint);
        let primitive = map::primitive(state).map_err(|e| {
            problem(
                format!("`{key}` declares {e}"),
                "declare state WebGPU can draw",
            )
        })?;
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
                    step_mode: match b.rate {
                        shader_info::VertexRate::Vertex => w::VertexStepMode::Vertex,
                        shader_info::VertexRate::Instance => w::VertexStepMode::Instance,
                    },
                    attributes: a,
                })
            })
            .collect();
        // Blending into an integer target is refused before this (the core's attachment check).
        let targets: Vec<Option<w::ColorTargetState>> =
            map::color_formats(plan, opts.color_format, &opts.color_format_overrides)
                .into_iter()
                .enumerate()
                .map(|(loc, f)| {
                    let loc = loc as u32;
                    let written = plan.color_targets.iter().any(|o| o.location == loc);
                    f.map(|format| w::ColorTargetState {
                        format,
                        // A location no output writes (it matches the pass) neither blends nor writes.
                        blend: map::blend(state.blend_at(loc)).filter(|_| written),
                        write_mask: map::color_writes(crate::library::color_writes(
                            plan, state, loc,
                        )),
                    })
                })
                .collect();
        let find = |s: Stage| modules.iter().find(|(x, _)| *x == s).map(|(_, m)| *m);
        let Some(vs) = find(Stage::Vertex) else {
            return Err(diagnostic(
                Code::IncompleteInfo,
                key,
                format!("`{key}` has no vertex stage"),
                "declare a vertex_source",
            ));
        };
        let fs = find(Stage::Fragment);
        let vs_constants = Self::constants(plan, &opts.specialization, vs)?;
        let fs_constants = match fs {
            Some(m) => Self::constants(plan, &opts.specialization, m)?,
            None => Vec::new(),
        };
        let (vs_refs, fs_refs) = (constant_refs(&vs_constants), constant_refs(&fs_constants));
        let device = &self.ctx.device;
        let scope = super::context::ErrorScopes::push(device);
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
            depth_stencil: map::depth_stencil(state, opts.depth_format),
            multisample: w::MultisampleState {
                count: opts.samples.max(1),
                mask: !0,
                alpha_to_coverage_enabled: state.alpha_to_coverage,
            },
            fragment: fs.map(|m| w::FragmentState {
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
        if let Some(e) = scope.pop() {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the render pipeline of `{key}`: {e}"),
                "check the options (formats, samples) against the declaration",
            ));
        }
        Ok(GraphicsPipeline {
            pipeline,
            layouts,
            state_overridden: opts
                .state
                .as_ref()
                .is_some_and(|s| *s != plan.render_state.clone().unwrap_or_default()),
            state: state.clone(),
            plan: plan.clone(),
        })
    }

    fn create_compute(
        &self,
        plan: &PipelinePlan,
        cs: &Module,
        layouts: Layouts,
        values: &SpecValues,
    ) -> Result<ComputePipeline, Vec<Diagnostic>> {
        let key = plan.key.as_str();
        let constants = Self::constants(plan, values, cs)?;
        let refs = constant_refs(&constants);
        let device = &self.ctx.device;
        let scope = super::context::ErrorScopes::push(device);
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
        if let Some(e) = scope.pop() {
            return Err(diagnostic(
                Code::Device,
                key,
                format!("wgpu refused the compute pipeline of `{key}`: {e}"),
                "check the declaration against the device's limits",
            ));
        }
        Ok(ComputePipeline {
            pipeline,
            layouts,
            plan: plan.clone(),
        })
    }

    fn create_ray_tracing(
        &self,
        plan: &PipelinePlan,
        _modules: &[(Stage, &Module)],
        _layout: Layouts,
    ) -> Result<std::convert::Infallible, Vec<Diagnostic>> {
        let key = plan.key.as_str();
        Err(diagnostic(
            Code::Unsupported,
            key,
            format!("no wgpu pipeline for `{key}`: WebGPU has no ray-tracing pipelines"),
            "draw it with the Vulkan backend",
        ))
    }

    fn raised_errors(&self) -> Vec<String> {
        use std::sync::atomic::Ordering;
        let (total, new) = self
            .ctx
            .uncaptured_errors_since(self.seen_errors.load(Ordering::Relaxed));
        self.seen_errors.store(total, Ordering::Relaxed);
        new
    }

    fn wait_idle(&self) {
        self.ctx.wait_idle();
    }

    fn error(diagnostics: Vec<Diagnostic>) -> WgpuError {
        WgpuError::Diagnostics(diagnostics)
    }

    fn diagnostics(error: WgpuError, key: &str) -> Vec<Diagnostic> {
        error.into_diagnostics(key)
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

#[cfg(test)]
mod tests {
    use super::*;
    use shader_info::{Registry, ShaderCreateInfo, Type};

    /// A module that reads immediates the layout does not hold (the placement gone wrong, by hand) is refused with
    /// the info and stage named, not made into a pipeline that reads zeros.
    #[test]
    fn a_shader_reading_immediates_the_layout_lacks_is_an_error() {
        // Capped at 64 bytes: the 96-byte block takes the buffer path.
        let Some(ctx) = crate::wgpu::testing::test_context_with(crate::wgpu::WgpuContextOptions {
            max_immediate_size: Some(64),
            ..Default::default()
        }) else {
            return;
        };
        assert!(
            ctx.has_immediates(),
            "lavapipe and the GPUs have immediates"
        );
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("wide")
                .push_constant(Type::Mat4, "model")
                .push_constant(Type::Vec4, "tint")
                .push_constant(Type::Uint, "count")
                .local_group_size(1)
                .compute_source("x.comp"),
        );
        let plan = PipelinePlan::new(&reg.validated("wide").unwrap(), &reg);
        let backend = WgpuBackend {
            ctx: ctx.clone(),
            seen_errors: Default::default(),
        };
        let wgsl = "struct B { m: mat4x4<f32>, t: vec4<f32>, n: u32, }\nvar<immediate> b: B;\n\
                    @compute @workgroup_size(1) fn main() { _ = b.n; }\n";
        let module = Module {
            module: ctx.device.create_shader_module(w::ShaderModuleDescriptor {
                label: None,
                source: w::ShaderSource::Wgsl(wgsl.into()),
            }),
            translation: Translation {
                target: Target::Wgsl,
                key: "wide".into(),
                stage: Stage::Compute,
                text: wgsl.into(),
                entry_point: "main".into(),
                requires: Vec::new(),
                spec_constants: crate::cross::spec::SpecHandling::None,
                host_uniforms: Vec::new(),
                webgpu_limits: Default::default(),
            },
            used: Vec::new(),
            reads_immediates: true,
            overrides: Vec::new(),
        };
        let Err(d) = backend.create_layout(&plan, &[(Stage::Compute, &module)]) else {
            panic!("a layout for a shader that reads immediates it does not hold");
        };
        assert_eq!((d[0].code, d[0].info.as_str()), (Code::Translation, "wide"));
        assert!(
            d[0].message
                .contains("(comp) reads its push constants from immediates"),
            "{}",
            d[0].message
        );
    }
}
