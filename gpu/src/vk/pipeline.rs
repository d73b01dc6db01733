//! Pipelines derived from a declaration: vertex input state from `vertex_in`, color formats from `fragment_out`,
//! specialization info from specialization constants; graphics pipelines with dynamic rendering, compute
//! pipelines, and ray-tracing pipelines with a shader binding table where the device supports them.

use super::device::VkContext;
use super::error::{VkError, VkResult};
use super::layout::PipelineLayout;
use super::map::{self, stage_flags, vertex_format};
use super::module::ShaderModule;
use super::resource::Buffer;
use ash::vk;
pub use shader_info::SpecValues;
use shader_info::{
    Blend, Code, Diagnostic, DynamicStates, PipelinePlan, RenderState, Stage, VertexArrangement,
    VertexRate,
};
use std::hash::Hash;
use std::sync::Arc;

/// Vertex input state as plain data.
#[derive(Clone, Debug, Default)]
pub struct VertexInputDesc {
    pub bindings: Vec<vk::VertexInputBindingDescription>,
    pub attributes: Vec<vk::VertexInputAttributeDescription>,
}

/// The vertex input state of a plan's attributes in an arrangement.
///
/// ```
/// use shader_info_gpu::vk::vertex_input;
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x").vertex_in(0, Type::Vec3, "pos").vertex_in(1, Type::Mat2, "m")
///     .vertex_in(3, Type::UVec4, "ids").vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// let v = vertex_input(&plan, VertexArrangement::Interleaved);
/// assert_eq!(v.bindings[0].stride, 12 + 16 + 16);
/// assert_eq!(v.attributes.len(), 4); // the matrix takes one attribute per column
/// assert_eq!((v.attributes[2].location, v.attributes[2].offset), (2, 20));
/// ```
pub fn vertex_input(plan: &PipelinePlan, arrangement: VertexArrangement) -> VertexInputDesc {
    let mut desc = VertexInputDesc::default();
    for buffer in plan.vertex_buffers(arrangement) {
        desc.bindings.push(
            vk::VertexInputBindingDescription::default()
                .binding(buffer.binding)
                .stride(buffer.stride)
                .input_rate(match buffer.rate {
                    VertexRate::Vertex => vk::VertexInputRate::VERTEX,
                    VertexRate::Instance => vk::VertexInputRate::INSTANCE,
                }),
        );
        for (location, format, offset) in buffer.attributes {
            desc.attributes.push(
                vk::VertexInputAttributeDescription::default()
                    .location(location)
                    .binding(buffer.binding)
                    .format(vertex_format(format))
                    .offset(offset),
            );
        }
    }
    desc
}

/// [`vertex_input`] with only the attributes the vertex stage among `modules` reads: the buffers keep the declared
/// layout (the renderer's vertex struct), and an attribute a variant's vertex stage does not read is left out of
/// the state, where the validation layer would warn about each one.
pub(crate) fn consumed_vertex_input(
    plan: &PipelinePlan,
    modules: &[(Stage, &ShaderModule)],
    arrangement: VertexArrangement,
) -> VertexInputDesc {
    let mut vin = vertex_input(plan, arrangement);
    // A matrix input takes one location per column, and reflection names only its first.
    if let Some((_, vs)) = modules.iter().find(|(s, _)| *s == Stage::Vertex) {
        let read: Vec<&str> = plan
            .vertex_attributes
            .iter()
            .filter(|a| a.offset_in_value == 0 && vs.reads_input(a.location))
            .map(|a| a.name.as_str())
            .collect();
        vin.attributes.retain(|v| {
            plan.vertex_attributes
                .iter()
                .any(|a| a.location == v.location && read.contains(&a.name.as_str()))
        });
    }
    vin
}

/// `VkSpecializationInfo` data: constant ids are those the generator wrote (`ShaderCreateInfo::
/// specialization_constant_ids`, stable across `additional_info`); each value is 4 bytes (bools are `VkBool32`).
#[derive(Clone, Debug, Default)]
pub struct Specialization {
    pub entries: Vec<vk::SpecializationMapEntry>,
    pub data: Vec<u8>,
}

impl Specialization {
    /// The plan's defaults with `values` applied. Unknown names and type mismatches are errors.
    ///
    /// ```
    /// use shader_info_gpu::vk::{Specialization, SpecValues};
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("x").specialization_constant(Type::Uint, "N", 4u32)
    ///     .local_group_size(1).compute_source("x.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
    /// let s = Specialization::new(&plan, &SpecValues::default().set("N", 7u32)).unwrap();
    /// assert_eq!(s.data, 7u32.to_ne_bytes());
    /// assert!(Specialization::new(&plan, &SpecValues::default().set("N", 1.5f32)).is_err());
    /// ```
    pub fn new(plan: &PipelinePlan, values: &SpecValues) -> VkResult<Specialization> {
        let values = values
            .resolve(&plan.specialization_constants)
            .map_err(|message| VkError::Declaration {
                info: plan.key.clone(),
                message,
            })?;
        let mut s = Specialization::default();
        for (d, v) in values {
            s.entries.push(
                vk::SpecializationMapEntry::default()
                    .constant_id(d.id)
                    .offset(s.data.len() as u32)
                    .size(4),
            );
            s.data.extend_from_slice(&v.to_bits().to_ne_bytes());
        }
        Ok(s)
    }

    /// The Vulkan struct borrowing this data.
    pub fn info(&self) -> vk::SpecializationInfo<'_> {
        vk::SpecializationInfo::default()
            .map_entries(&self.entries)
            .data(&self.data)
    }
}

/// What a graphics pipeline takes from the renderer rather than from the declaration: attachment formats, the
/// sample count, the vertex-buffer arrangement, patch size and specialization values. The render state (blending,
/// depth, culling, topology, …) comes from the declaration ([`shader_info::RenderState`] in the plan); `state`
/// replaces it for this pipeline — an explicit override, reported by [`GraphicsPipeline::state_overridden`].
///
/// ```
/// use shader_info_gpu::vk::{GraphicsOptions, raw};
/// let opts = GraphicsOptions { depth_format: Some(raw::Format::D32_SFLOAT), ..GraphicsOptions::hdr() };
/// assert_eq!(opts.color_format, raw::Format::R16G16B16A16_SFLOAT);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsOptions {
    /// Format of float `fragment_out` targets (default `R8G8B8A8_UNORM`).
    pub color_format: vk::Format,
    /// Per-location overrides of the color format.
    pub color_format_overrides: Vec<(u32, vk::Format)>,
    /// Depth attachment format; `None` for no depth attachment (then the declaration may not test depth).
    pub depth_format: Option<vk::Format>,
    pub samples: vk::SampleCountFlags,
    /// How vertex attributes are arranged in buffers.
    pub vertex_layout: VertexArrangement,
    /// Control points per input patch when the info has tessellation stages; `None` takes the declared
    /// tessellation layout's count (the usual case: as many in as out), or 3 when none is declared.
    pub patch_control_points: Option<u32>,
    pub specialization: SpecValues,
    /// Replaces the declared render state for this pipeline.
    pub state: Option<RenderState>,
}

impl Default for GraphicsOptions {
    fn default() -> Self {
        GraphicsOptions {
            color_format: vk::Format::R8G8B8A8_UNORM,
            color_format_overrides: Vec::new(),
            depth_format: None,
            samples: vk::SampleCountFlags::TYPE_1,
            vertex_layout: VertexArrangement::Interleaved,
            patch_control_points: None,
            specialization: SpecValues::default(),
            state: None,
        }
    }
}

impl GraphicsOptions {
    /// Float targets in `R16G16B16A16_SFLOAT`.
    pub fn hdr() -> GraphicsOptions {
        GraphicsOptions {
            color_format: vk::Format::R16G16B16A16_SFLOAT,
            ..GraphicsOptions::default()
        }
    }
}

/// What the device must support for the modules themselves: the subgroup operations each one uses, in its stage
/// (`VkPhysicalDeviceSubgroupProperties`). Each problem names the info, the stage and the missing support.
pub fn module_problems(
    ctx: &VkContext,
    plan: &PipelinePlan,
    modules: &[(Stage, &ShaderModule)],
) -> Vec<Diagnostic> {
    let support = ctx.subgroup();
    let supported = crate::reflect::SubgroupOps(support.operations.as_raw());
    let mut out = Vec::new();
    for (stage, module) in modules {
        let ops = module.subgroup_ops();
        if ops.is_empty() {
            continue;
        }
        let problem = |message: String| {
            Diagnostic::error(Code::Unsupported, &plan.key, message)
                .stage(*stage)
                .item("builtin SUBGROUP")
                .hint(
                    "give devices without it a variant whose code does not use subgroup operations",
                )
        };
        if !support.stages.contains(map::stage_flags(*stage)) {
            out.push(problem(format!(
                "the {stage} stage of `{}` uses subgroup operations; {} supports them only in {:?}",
                plan.key,
                ctx.device_name(),
                support.stages
            )));
        }
        let missing = ops.missing_from(supported.0);
        if !missing.is_empty() {
            out.push(problem(format!(
                "the {stage} stage of `{}` uses subgroup operations of class {}, which {} does not support (it \
                 supports {})",
                plan.key,
                missing.join(", "),
                ctx.device_name(),
                supported.missing_from(0).join(", ")
            )));
        }
    }
    out
}

/// What stops a graphics pipeline from reading its subpass inputs with local read on this device: the device
/// lacks `dynamicRenderingLocalRead`, or an input reads a location the pipeline has no color attachment at.
/// (Multisampled attachments, which `subpassInput` reads one sample of, are the core's check.)
pub fn local_read_problems(
    ctx: &VkContext,
    plan: &PipelinePlan,
    color_formats: &[vk::Format],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, index) in plan.input_attachments() {
        let problem = |message: String, hint: &str| {
            Diagnostic::error(Code::Unsupported, &plan.key, message)
                .stage(Stage::Fragment)
                .item(format!("subpass input `{name}`"))
                .hint(hint.to_string())
        };
        if !ctx.feature_enabled("dynamicRenderingLocalRead") {
            out.push(problem(
                format!(
                    "`{}` reads `{name}` by dynamic-rendering local read, which {} does not support",
                    plan.key,
                    ctx.device_name()
                ),
                "build the library in SubpassMode::Emulated (what ShaderLibrary picks on this device), \
                 and bind the attachment as a texture after the pass that writes it",
            ));
        }
        if color_formats
            .get(index as usize)
            .is_none_or(|f| *f == vk::Format::UNDEFINED)
        {
            out.push(problem(
                format!(
                    "`{name}` reads color attachment {index}, but the pipeline has no color attachment there"
                ),
                "declare the fragment output at that location (or pass its format in GraphicsOptions)",
            ));
        }
    }
    out
}

/// What the device must have for `plan` drawn with `state`: every optional device feature the state, the stages
/// and the builtins use, vertex formats it can read, a patch size it takes. Each problem names the info, the state
/// and what to do. (What the attachments must have is the core's check, the same on every backend:
/// [`crate::library::checks::attachment_problems`].)
pub fn state_problems(
    ctx: &VkContext,
    plan: &PipelinePlan,
    state: &RenderState,
    opts: &GraphicsOptions,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let problem = |message: String, hint: &str| {
        Diagnostic::error(Code::RenderState, &plan.key, message).hint(hint.to_string())
    };
    // Packed vertex formats past the few every device must read (8-bit RGBA, …) are optional: ask the driver.
    for a in &plan.vertex_attributes {
        let format = map::vertex_format(a.format);
        // SAFETY: the physical device belongs to the context's live instance.
        let features = unsafe {
            ctx.instance()
                .get_physical_device_format_properties(ctx.physical_device(), format)
        }
        .buffer_features;
        if !features.contains(vk::FormatFeatureFlags::VERTEX_BUFFER) {
            out.push(problem(
                format!(
                    "{} `{}` (location {}) is stored as {:?} ({format:?}), which {} cannot read from a vertex buffer",
                    a.rate.item(),
                    a.name,
                    a.location,
                    a.format,
                    ctx.device_name()
                ),
                "declare another packed format for it (8-bit RGBA and 16-bit float formats are widely supported)",
            ));
        }
    }
    for (stage, feature) in [
        (Stage::Geometry, "geometryShader"),
        (Stage::TessControl, "tessellationShader"),
        (Stage::TessEvaluation, "tessellationShader"),
    ] {
        if plan.stages.contains(&stage) && !ctx.feature_enabled(feature) {
            out.push(problem(
                format!(
                    "`{}` has a {stage} stage, which needs the device feature `{feature}`; {} does not have it",
                    plan.key,
                    ctx.device_name()
                ),
                "give devices without it a variant or another info without that stage",
            ));
            break;
        }
    }
    if plan.stages.contains(&Stage::TessControl) {
        let points = opts
            .patch_control_points
            .or(plan.patch_control_points)
            .unwrap_or(3);
        let max = ctx.properties().limits.max_tessellation_patch_size;
        if points == 0 || points > max {
            out.push(problem(
                format!(
                    "`{}` takes patches of {points} control points; {} takes 1 to {max}",
                    plan.key,
                    ctx.device_name()
                ),
                "declare a smaller tessellation layout, or pass GraphicsOptions::patch_control_points",
            ));
        }
    }
    for need in &plan.builtin_features {
        if !ctx.feature_enabled(need.feature) {
            out.push(problem(
                format!(
                    "{} needs the device feature `{}`, which {} does not have",
                    need.why,
                    need.feature,
                    ctx.device_name()
                ),
                "give devices without it a variant that does not declare the builtin",
            ));
        }
    }
    let locations: Vec<u32> = plan.color_targets.iter().map(|c| c.location).collect();
    for (feature, why) in state.required_features(&locations) {
        if !ctx.feature_enabled(feature) {
            out.push(problem(
                format!(
                    "{why} needs the device feature `{feature}`, which {} does not have",
                    ctx.device_name()
                ),
                "declare state this device supports (or a variant without it for such devices)",
            ));
        }
    }
    out
}

/// Color attachment formats by location (`UNDEFINED` for unused locations below the highest one), by the rule
/// every backend shares ([`crate::library::default_color_targets`]): float outputs get `opts.color_format`,
/// integer outputs a 32-bit integer format of their class with enough components; then the overrides.
///
/// ```
/// use shader_info_gpu::vk::{color_formats, GraphicsOptions, raw};
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x").fragment_out(0, Type::Vec4, "c").fragment_out(2, Type::Uint, "id")
///     .vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// let f = color_formats(&plan, &GraphicsOptions::default());
/// assert_eq!(f, [raw::Format::R8G8B8A8_UNORM, raw::Format::UNDEFINED, raw::Format::R32_UINT]);
/// ```
pub fn color_formats(plan: &PipelinePlan, opts: &GraphicsOptions) -> Vec<vk::Format> {
    use crate::library::{DefaultTarget, FormatClass};
    use vk::Format as F;
    let mut out: Vec<vk::Format> = crate::library::default_color_targets(plan)
        .into_iter()
        .map(|t| match t {
            None => F::UNDEFINED,
            Some(DefaultTarget::PassFormat) => opts.color_format,
            Some(DefaultTarget::Integer { class, components }) => {
                let i = components.clamp(1, 4) as usize - 1;
                match class {
                    FormatClass::Uint => [
                        F::R32_UINT,
                        F::R32G32_UINT,
                        F::R32G32B32A32_UINT,
                        F::R32G32B32A32_UINT,
                    ][i],
                    _ => [
                        F::R32_SINT,
                        F::R32G32_SINT,
                        F::R32G32B32A32_SINT,
                        F::R32G32B32A32_SINT,
                    ][i],
                }
            }
        })
        .collect();
    // An override past the outputs matches the pass's attachment there (a pipeline has as many as its pass).
    for (loc, f) in &opts.color_format_overrides {
        if *loc as usize >= out.len() {
            out.resize(*loc as usize + 1, F::UNDEFINED);
        }
        out[*loc as usize] = *f;
    }
    out
}

/// The attachments of `opts` for `plan`, in the core's terms.
pub fn attachments(plan: &PipelinePlan, opts: &GraphicsOptions) -> crate::library::Attachments {
    crate::library::Attachments {
        colors: color_formats(plan, opts)
            .into_iter()
            .map(map::format_class)
            .collect(),
        depth: opts
            .depth_format
            .is_some_and(|f| !matches!(f, vk::Format::S8_UINT)),
        stencil: opts.depth_format.is_some_and(has_stencil),
        samples: opts.samples.as_raw(),
    }
}

/// Every problem a graphics pipeline of `plan` with `opts` has on this device: the core's attachment checks,
/// then the device's ([`state_problems`], [`module_problems`], [`local_read_problems`]).
pub fn graphics_problems(
    ctx: &VkContext,
    plan: &PipelinePlan,
    state: &RenderState,
    opts: &GraphicsOptions,
    modules: &[(Stage, &ShaderModule)],
) -> Vec<Diagnostic> {
    use crate::library::checks;
    let max_colors = ctx.properties().limits.max_color_attachments;
    let overrides = checks::color_override_problems(
        &plan.key,
        opts.color_format_overrides.iter().map(|o| o.0),
        max_colors,
    );
    if !overrides.is_empty() {
        return overrides;
    }
    let mut out = checks::attachment_problems(plan, state, &attachments(plan, opts), max_colors);
    // A state given whole meets the rules the declared one met at validation.
    if opts.state.is_some() {
        out.extend(plan.state_problems(state, checks::STATE_OVERRIDE));
    }
    out.extend(device_graphics_problems(ctx, plan, state, opts, modules));
    out
}

/// The device's part of [`graphics_problems`] (what the core does not check).
pub(crate) fn device_graphics_problems(
    ctx: &VkContext,
    plan: &PipelinePlan,
    state: &RenderState,
    opts: &GraphicsOptions,
    modules: &[(Stage, &ShaderModule)],
) -> Vec<Diagnostic> {
    let mut out = state_problems(ctx, plan, state, opts);
    out.extend(module_problems(ctx, plan, modules));
    out.extend(local_read_problems(ctx, plan, &color_formats(plan, opts)));
    out
}

fn has_stencil(f: vk::Format) -> bool {
    matches!(
        f,
        vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT_S8_UINT
            | vk::Format::D16_UNORM_S8_UINT
            | vk::Format::S8_UINT
    )
}

/// What [`create_handle`] makes: a whole pipeline, or one part of it as a pipeline library
/// (`VK_EXT_graphics_pipeline_library`: vertex input, pre-rasterization shaders, fragment shader, fragment output).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Part<'a> {
    Whole,
    Library(vk::GraphicsPipelineLibraryFlagsEXT),
    /// A pipeline linked from these libraries (without link-time optimization: a fast link). Its state is
    /// the libraries'.
    Link {
        libraries: &'a [vk::Pipeline],
    },
}

/// Creates a graphics pipeline, or one part of it, from the plan, the state and the options: the one place the
/// fixed-function state is mapped, for monolithic pipelines and for libraries alike.
pub(crate) fn create_handle(
    ctx: &VkContext,
    plan: &PipelinePlan,
    state: &RenderState,
    modules: &[(Stage, &ShaderModule)],
    layout: &PipelineLayout,
    opts: &GraphicsOptions,
    part: Part<'_>,
) -> VkResult<vk::Pipeline> {
    let spec = Specialization::new(plan, &opts.specialization)?;
    let spec_info = spec.info();
    let part_stages: Vec<(Stage, &ShaderModule)> = modules
        .iter()
        .copied()
        .filter(|(s, _)| match part {
            Part::Whole => true,
            Part::Link { .. } => false,
            Part::Library(flags) => {
                (flags == vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS
                    && *s != Stage::Fragment)
                    || (flags == vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER
                        && *s == Stage::Fragment)
            }
        })
        .collect();
    let stages = stage_infos(&part_stages, &spec_info);
    let vin = consumed_vertex_input(plan, modules, opts.vertex_layout);
    let vertex_input_state = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&vin.bindings)
        .vertex_attribute_descriptions(&vin.attributes);
    let has_tess = modules.iter().any(|(s, _)| *s == Stage::TessControl);
    let topology = if has_tess {
        vk::PrimitiveTopology::PATCH_LIST
    } else {
        map::topology(state.topology)
    };
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(topology)
        .primitive_restart_enable(state.primitive_restart);
    let tess = vk::PipelineTessellationStateCreateInfo::default().patch_control_points(
        opts.patch_control_points
            .or(plan.patch_control_points)
            .unwrap_or(3),
    );
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let bias = state.depth_bias.unwrap_or(shader_info::DepthBias {
        constant: 0.0,
        slope: 0.0,
        clamp: 0.0,
    });
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(map::polygon_mode(state.polygon_mode))
        .cull_mode(map::cull_mode(state.cull))
        .front_face(map::front_face(state.front_face))
        .line_width(state.line_width())
        .depth_bias_enable(state.depth_bias.is_some())
        .depth_bias_constant_factor(bias.constant)
        .depth_bias_slope_factor(bias.slope)
        .depth_bias_clamp(bias.clamp);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(opts.samples)
        .alpha_to_coverage_enable(state.alpha_to_coverage);
    let stencil = state.stencil;
    let mut depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(state.depth.is_some())
        .depth_write_enable(state.depth.is_some_and(|d| d.write))
        .depth_compare_op(map::compare_op(
            state
                .depth
                .map_or(shader_info::CompareOp::Always, |d| d.compare),
        ))
        .stencil_test_enable(stencil.is_some());
    if let Some(s) = &stencil {
        depth_stencil = depth_stencil
            .front(map::stencil_face(s.front, s))
            .back(map::stencil_face(s.back, s));
    }
    // The pipeline keeps the default mapping of input attachments (color attachment i is
    // `input_attachment_index = i`), which is what a subpass input's index means and the state every
    // rendering starts with: no `VkRenderingInputAttachmentIndexInfoKHR` is needed, nor a call to set it.
    let color_formats = color_formats(plan, opts);
    let attachments: Vec<vk::PipelineColorBlendAttachmentState> = color_formats
        .iter()
        .enumerate()
        .map(|(location, f)| {
            let location = location as u32;
            // Blending into an integer attachment is refused before this (the core's attachment check); an
            // unused location, or one no output writes, gets no blending.
            let written = plan.color_targets.iter().any(|o| o.location == location);
            let blend = if *f == vk::Format::UNDEFINED || !written {
                Blend::Opaque
            } else {
                state.blend_at(location)
            };
            map::blend_attachment(blend, crate::library::color_writes(plan, state, location))
        })
        .collect();
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    // Each piece of state belongs to one subset of a pipeline (VK_EXT_graphics_pipeline_library): a whole
    // pipeline has all four, a library part one, a link none (its parts hold it all).
    type L = vk::GraphicsPipelineLibraryFlagsEXT;
    let has = |subset: L| match part {
        Part::Whole => true,
        Part::Library(flags) => flags == subset,
        Part::Link { .. } => false,
    };
    let (pre_raster, fragment, output) = (
        has(L::PRE_RASTERIZATION_SHADERS),
        has(L::FRAGMENT_SHADER),
        has(L::FRAGMENT_OUTPUT_INTERFACE),
    );
    let mut dynamic_states = Vec::new();
    if pre_raster {
        dynamic_states.extend([vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR]);
    }
    for (flag, d, subset) in [
        (
            DynamicStates::DEPTH_BIAS,
            vk::DynamicState::DEPTH_BIAS,
            pre_raster,
        ),
        (
            DynamicStates::LINE_WIDTH,
            vk::DynamicState::LINE_WIDTH,
            pre_raster,
        ),
        (
            DynamicStates::STENCIL_REFERENCE,
            vk::DynamicState::STENCIL_REFERENCE,
            fragment,
        ),
        (
            DynamicStates::BLEND_CONSTANTS,
            vk::DynamicState::BLEND_CONSTANTS,
            output,
        ),
    ] {
        if subset && state.dynamic.contains(flag) {
            dynamic_states.push(d);
        }
    }
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let depth_format = opts.depth_format.unwrap_or(vk::Format::UNDEFINED);
    let stencil_format = if has_stencil(depth_format) {
        depth_format
    } else {
        vk::Format::UNDEFINED
    };
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&color_formats)
        .depth_attachment_format(depth_format)
        .stencil_attachment_format(stencil_format);
    let mut library = vk::GraphicsPipelineLibraryCreateInfoEXT::default();
    let mut create = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .layout(layout.handle());
    if has(L::VERTEX_INPUT_INTERFACE) {
        create = create
            .vertex_input_state(&vertex_input_state)
            .input_assembly_state(&input_assembly);
    }
    if pre_raster {
        create = create
            .viewport_state(&viewport)
            .rasterization_state(&raster);
        if has_tess {
            create = create.tessellation_state(&tess);
        }
    }
    if fragment {
        create = create.depth_stencil_state(&depth_stencil);
    }
    if fragment || output {
        create = create.multisample_state(&multisample);
    }
    if output {
        create = create.color_blend_state(&blend);
    }
    if !dynamic_states.is_empty() {
        create = create.dynamic_state(&dynamic);
    }
    if !matches!(part, Part::Link { .. }) {
        create = create.push_next(&mut rendering);
    }
    let mut linked = vk::PipelineLibraryCreateInfoKHR::default();
    match part {
        Part::Whole => {}
        Part::Library(flags) => {
            library = library.flags(flags);
            // Without RETAIN_LINK_TIME_OPTIMIZATION_INFO: NVIDIA's driver 580 fails a pre-rasterization part
            // made with it (VK_ERROR_OUT_OF_HOST_MEMORY), and the optimized pipeline is made whole instead of
            // by an optimizing link (see `fast_link`).
            create = create
                .flags(vk::PipelineCreateFlags::LIBRARY_KHR)
                .push_next(&mut library);
        }
        Part::Link { libraries, .. } => {
            linked = linked.libraries(libraries);
            create = create.push_next(&mut linked);
        }
    }
    // SAFETY: every pointer in `create` refers to locals alive for the call; the modules and the layout are
    // alive (borrowed / held by `Arc`); no render pass is used (dynamic rendering is enabled on the device).
    let handle = unsafe {
        ctx.device()
            .create_graphics_pipelines(ctx.pipeline_cache(), &[create], None)
    }
    .map_err(|(_, e)| VkError::Call {
        call: "vkCreateGraphicsPipelines",
        result: e,
    })?[0];
    Ok(handle)
}

/// The optimized pipeline of a fast-linked one, filled by a background creation ([`super::fast_link`]).
pub(crate) type Pending = Arc<std::sync::Mutex<Option<VkResult<GraphicsPipeline>>>>;

/// Owns one `VkPipeline` (a whole pipeline, a link, or a pipeline-library part).
pub(crate) struct OwnedPipeline {
    pub(crate) ctx: VkContext,
    pub(crate) handle: vk::Pipeline,
}

impl Drop for OwnedPipeline {
    fn drop(&mut self) {
        // SAFETY: created from this device and owned only by us. Callers wait for the device to be idle before
        // dropping a pipeline that recorded work may still use (the library's reload does).
        unsafe { self.ctx.device().destroy_pipeline(self.handle, None) };
    }
}

fn stage_infos<'a>(
    modules: &[(Stage, &'a ShaderModule)],
    spec: &'a vk::SpecializationInfo<'a>,
) -> Vec<vk::PipelineShaderStageCreateInfo<'a>> {
    modules
        .iter()
        .map(|(stage, m)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stage_flags(*stage))
                .module(m.handle())
                .name(m.entry_point())
                .specialization_info(spec)
        })
        .collect()
}

/// A graphics pipeline for dynamic rendering.
pub struct GraphicsPipeline {
    pipeline: OwnedPipeline,
    layout: Arc<PipelineLayout>,
    color_formats: Vec<vk::Format>,
    state_overridden: bool,
    /// For a pipeline fast-linked from libraries: the optimized pipeline, made whole from the same modules by a
    /// background thread ([`super::fast_link`]); the library swaps it in at a fetch once it is there.
    pub(crate) optimized: Option<Pending>,
}

impl std::fmt::Debug for GraphicsPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphicsPipeline")
            .field("handle", &self.pipeline.handle)
            .field("color_formats", &self.color_formats)
            .finish()
    }
}

impl GraphicsPipeline {
    /// Creates a graphics pipeline from the info's modules (`(stage, module)` for each graphics stage).
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::vk::VkContext, plan: &shader_info::PipelinePlan, vs: &shader_info_gpu::vk::ShaderModule,
    /// #      fs: &shader_info_gpu::vk::ShaderModule, layout: std::sync::Arc<shader_info_gpu::vk::PipelineLayout>) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{GraphicsOptions, GraphicsPipeline};
    /// use shader_info::Stage;
    /// let p = GraphicsPipeline::new(ctx, plan, &[(Stage::Vertex, vs), (Stage::Fragment, fs)], layout,
    ///                               &GraphicsOptions::default())?;
    /// # Ok(()) }
    /// ```
    pub fn new(
        ctx: &VkContext,
        plan: &PipelinePlan,
        modules: &[(Stage, &ShaderModule)],
        layout: Arc<PipelineLayout>,
        opts: &GraphicsOptions,
    ) -> VkResult<GraphicsPipeline> {
        let declared = plan.render_state.clone().unwrap_or_default();
        let state = opts.state.as_ref().unwrap_or(&declared);
        let problems = graphics_problems(ctx, plan, state, opts, modules);
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        Self::create(ctx, plan, state, modules, layout, opts)
    }

    /// Creates the pipeline without the checks of [`Self::new`] (the library ran them, once).
    pub(crate) fn create(
        ctx: &VkContext,
        plan: &PipelinePlan,
        state: &RenderState,
        modules: &[(Stage, &ShaderModule)],
        layout: Arc<PipelineLayout>,
        opts: &GraphicsOptions,
    ) -> VkResult<GraphicsPipeline> {
        if !modules.iter().any(|(s, _)| *s == Stage::Vertex) {
            return Err(VkError::Declaration {
                info: plan.key.clone(),
                message: "a graphics pipeline needs a vertex stage".into(),
            });
        }
        let handle = create_handle(ctx, plan, state, modules, &layout, opts, Part::Whole)?;
        Ok(GraphicsPipeline::owning(ctx, plan, handle, layout, opts))
    }

    /// The pipeline object of `handle`, created for `plan` with `opts` (it is destroyed on drop).
    pub(crate) fn owning(
        ctx: &VkContext,
        plan: &PipelinePlan,
        handle: vk::Pipeline,
        layout: Arc<PipelineLayout>,
        opts: &GraphicsOptions,
    ) -> GraphicsPipeline {
        GraphicsPipeline {
            pipeline: OwnedPipeline {
                ctx: ctx.clone(),
                handle,
            },
            layout,
            color_formats: color_formats(plan, opts),
            state_overridden: opts
                .state
                .as_ref()
                .is_some_and(|s| *s != plan.render_state.clone().unwrap_or_default()),
            optimized: None,
        }
    }

    /// True for a pipeline linked from libraries without link-time optimization, while the optimized one is
    /// made in the background (the library hands that one out once it is ready).
    pub fn is_fast_linked(&self) -> bool {
        self.optimized.is_some()
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::Pipeline {
        self.pipeline.handle
    }

    /// The pipeline layout (bind descriptor sets and push constants with it).
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }

    /// True when the pipeline was made with a render state other than the declared one
    /// ([`GraphicsOptions::state`]).
    pub fn state_overridden(&self) -> bool {
        self.state_overridden
    }

    /// The color attachment formats, by location.
    pub fn color_formats(&self) -> &[vk::Format] {
        &self.color_formats
    }
}

/// A compute pipeline.
pub struct ComputePipeline {
    pipeline: OwnedPipeline,
    layout: Arc<PipelineLayout>,
}

impl std::fmt::Debug for ComputePipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComputePipeline")
            .field("handle", &self.pipeline.handle)
            .finish()
    }
}

impl ComputePipeline {
    /// Creates a compute pipeline from the info's compute module.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::vk::VkContext, plan: &shader_info::PipelinePlan, cs: &shader_info_gpu::vk::ShaderModule,
    /// #      layout: std::sync::Arc<shader_info_gpu::vk::PipelineLayout>) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{ComputePipeline, SpecValues};
    /// let p = ComputePipeline::new(ctx, plan, cs, layout, &SpecValues::default().set("N", 64u32))?;
    /// # Ok(()) }
    /// ```
    pub fn new(
        ctx: &VkContext,
        plan: &PipelinePlan,
        module: &ShaderModule,
        layout: Arc<PipelineLayout>,
        specialization: &SpecValues,
    ) -> VkResult<ComputePipeline> {
        let problems = module_problems(ctx, plan, &[(Stage::Compute, module)]);
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        let spec = Specialization::new(plan, specialization)?;
        let spec_info = spec.info();
        let stage = stage_infos(&[(Stage::Compute, module)], &spec_info)[0];
        let create = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout.handle());
        // SAFETY: the create info borrows live locals; the module and layout are alive.
        let handle = unsafe {
            ctx.device()
                .create_compute_pipelines(ctx.pipeline_cache(), &[create], None)
        }
        .map_err(|(_, e)| VkError::Call {
            call: "vkCreateComputePipelines",
            result: e,
        })?[0];
        Ok(ComputePipeline {
            pipeline: OwnedPipeline {
                ctx: ctx.clone(),
                handle,
            },
            layout,
        })
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::Pipeline {
        self.pipeline.handle
    }

    /// The pipeline layout.
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }
}

/// The shader binding table of a ray-tracing pipeline: one buffer, four regions for `vkCmdTraceRaysKHR`.
pub struct ShaderBindingTable {
    pub buffer: Buffer,
    pub raygen: vk::StridedDeviceAddressRegionKHR,
    pub miss: vk::StridedDeviceAddressRegionKHR,
    pub hit: vk::StridedDeviceAddressRegionKHR,
    pub callable: vk::StridedDeviceAddressRegionKHR,
}

/// A ray-tracing pipeline (`VK_KHR_ray_tracing_pipeline`) with its shader binding table.
pub struct RayTracingPipeline {
    pipeline: OwnedPipeline,
    layout: Arc<PipelineLayout>,
    sbt: ShaderBindingTable,
}

impl std::fmt::Debug for RayTracingPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayTracingPipeline")
            .field("handle", &self.pipeline.handle)
            .field("raygen", &self.sbt.raygen)
            .finish()
    }
}

impl RayTracingPipeline {
    /// Creates a ray-tracing pipeline: one raygen group, one miss group, one hit group (closest hit / any hit /
    /// intersection; procedural when there is an intersection stage) and one callable group, each present only
    /// when the info has that stage; then fills the shader binding table.
    ///
    /// Returns [`VkError::Unsupported`] on devices without ray tracing (lavapipe).
    pub fn new(
        ctx: &VkContext,
        plan: &PipelinePlan,
        modules: &[(Stage, &ShaderModule)],
        layout: Arc<PipelineLayout>,
        specialization: &SpecValues,
    ) -> VkResult<RayTracingPipeline> {
        let Some(rt) = ctx.ray_tracing() else {
            return Err(VkError::Unsupported {
                device: ctx.device_name().to_string(),
                what: format!(
                    "ray-tracing pipeline `{}`: the device has no VK_KHR_ray_tracing_pipeline",
                    plan.key
                ),
            });
        };
        let problems = module_problems(ctx, plan, modules);
        if !problems.is_empty() {
            return Err(VkError::Diagnostics(problems));
        }
        let spec = Specialization::new(plan, specialization)?;
        let spec_info = spec.info();
        let stages = stage_infos(modules, &spec_info);
        let index = |s: Stage| {
            modules
                .iter()
                .position(|(st, _)| *st == s)
                .map_or(vk::SHADER_UNUSED_KHR, |i| i as u32)
        };
        let general = |s: Stage| {
            vk::RayTracingShaderGroupCreateInfoKHR::default()
                .ty(vk::RayTracingShaderGroupTypeKHR::GENERAL)
                .general_shader(index(s))
                .closest_hit_shader(vk::SHADER_UNUSED_KHR)
                .any_hit_shader(vk::SHADER_UNUSED_KHR)
                .intersection_shader(vk::SHADER_UNUSED_KHR)
        };
        let has = |s: Stage| modules.iter().any(|(st, _)| *st == s);
        if !has(Stage::RayGen) {
            return Err(VkError::Declaration {
                info: plan.key.clone(),
                message: "a ray-tracing pipeline needs a raygen stage".into(),
            });
        }
        let mut groups = vec![general(Stage::RayGen)];
        let miss = has(Stage::Miss);
        if miss {
            groups.push(general(Stage::Miss));
        }
        let hit = has(Stage::ClosestHit) || has(Stage::AnyHit) || has(Stage::Intersection);
        if hit {
            groups.push(
                vk::RayTracingShaderGroupCreateInfoKHR::default()
                    .ty(if has(Stage::Intersection) {
                        vk::RayTracingShaderGroupTypeKHR::PROCEDURAL_HIT_GROUP
                    } else {
                        vk::RayTracingShaderGroupTypeKHR::TRIANGLES_HIT_GROUP
                    })
                    .general_shader(vk::SHADER_UNUSED_KHR)
                    .closest_hit_shader(index(Stage::ClosestHit))
                    .any_hit_shader(index(Stage::AnyHit))
                    .intersection_shader(index(Stage::Intersection)),
            );
        }
        let callable = has(Stage::Callable);
        if callable {
            groups.push(general(Stage::Callable));
        }
        let create = vk::RayTracingPipelineCreateInfoKHR::default()
            .stages(&stages)
            .groups(&groups)
            .max_pipeline_ray_recursion_depth(1.min(rt.max_ray_recursion_depth))
            .layout(layout.handle());
        let loader = ash::khr::ray_tracing_pipeline::Device::new(ctx.instance(), ctx.device());
        // SAFETY: the extension was enabled at device creation (ctx.ray_tracing() is Some only then); the create
        // info borrows live locals.
        let handle = unsafe {
            loader.create_ray_tracing_pipelines(
                vk::DeferredOperationKHR::null(),
                ctx.pipeline_cache(),
                &[create],
                None,
            )
        }
        .map_err(|(_, e)| VkError::Call {
            call: "vkCreateRayTracingPipelinesKHR",
            result: e,
        })?[0];
        let pipeline = OwnedPipeline {
            ctx: ctx.clone(),
            handle,
        };
        let n = groups.len() as u32;
        let hs = rt.shader_group_handle_size;
        // SAFETY: `handle` is a ray-tracing pipeline with `n` groups; the output size is n * handle size.
        let handles =
            unsafe { loader.get_ray_tracing_shader_group_handles(handle, 0, n, (n * hs) as usize) }
                .map_err(VkError::call("vkGetRayTracingShaderGroupHandlesKHR"))?;
        let align = |x: u32, a: u32| x.div_ceil(a.max(1)) * a.max(1);
        let stride = align(hs, rt.shader_group_handle_alignment);
        let region_size = align(stride, rt.shader_group_base_alignment);
        let counts = [1, miss as u32, hit as u32, callable as u32];
        // Every region must start at a multiple of shaderGroupBaseAlignment; the allocation's address need not
        // be one, so allocate one alignment more and start at the first aligned address.
        let base_align = rt.shader_group_base_alignment.max(1) as u64;
        let buffer = Buffer::new(
            ctx,
            region_size as u64 * 4 + base_align,
            vk::BufferUsageFlags::SHADER_BINDING_TABLE_KHR
                | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
        )?;
        let address = buffer.device_address();
        let start = (address.div_ceil(base_align) * base_align - address) as usize;
        let mut bytes = vec![0u8; buffer.size() as usize];
        let mut group = 0usize;
        for (region, count) in counts.iter().enumerate() {
            if *count == 1 {
                let dst = start + region * region_size as usize;
                let src = group * hs as usize;
                bytes[dst..dst + hs as usize].copy_from_slice(&handles[src..src + hs as usize]);
                group += 1;
            }
        }
        buffer.write(&bytes)?;
        let base = address + start as u64;
        let region = |i: usize| {
            if counts[i] == 0 {
                vk::StridedDeviceAddressRegionKHR::default()
            } else {
                vk::StridedDeviceAddressRegionKHR::default()
                    .device_address(base + (i as u64) * region_size as u64)
                    // The raygen region's stride must equal its size (VUID-vkCmdTraceRaysKHR-size-04023).
                    .stride(if i == 0 { region_size } else { stride } as u64)
                    .size(region_size as u64)
            }
        };
        let sbt = ShaderBindingTable {
            raygen: region(0),
            miss: region(1),
            hit: region(2),
            callable: region(3),
            buffer,
        };
        Ok(RayTracingPipeline {
            pipeline,
            layout,
            sbt,
        })
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::Pipeline {
        self.pipeline.handle
    }

    /// The pipeline layout.
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }

    /// The shader binding table.
    pub fn sbt(&self) -> &ShaderBindingTable {
        &self.sbt
    }
}

/// A vertex buffer of `V`s on Vulkan ([`crate::library::VertexBuffer`]): bound by a typed pipeline of vertex
/// type `V` only.
pub type VertexBuffer<V> = crate::library::VertexBuffer<super::Buffer, V>;

impl<V: shader_info::ShaderVertex + bytemuck::NoUninit> VertexBuffer<V> {
    /// A host-visible vertex buffer holding `vertices`.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::vk::VkContext) -> shader_info_gpu::vk::VkResult<()> {
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct Vertex { pos: [f32; 2] }
    /// let vertices = shader_info_gpu::vk::VertexBuffer::new(ctx, &[Vertex { pos: [0.0, 0.5] }])?;
    /// assert_eq!(vertices.len(), 1);
    /// # Ok(()) }
    /// ```
    pub fn new(ctx: &super::VkContext, vertices: &[V]) -> VkResult<VertexBuffer<V>> {
        let count = u32::try_from(vertices.len()).map_err(|_| {
            VkError::Other(format!(
                "{} vertices do not fit a draw's 32-bit vertex count",
                vertices.len()
            ))
        })?;
        let bytes: &[u8] = bytemuck::cast_slice(vertices);
        // A buffer of no bytes cannot be made: an empty one holds one unread byte.
        let buffer = if bytes.is_empty() {
            super::Buffer::with_data(ctx, &[0u8], vk::BufferUsageFlags::VERTEX_BUFFER)?
        } else {
            super::Buffer::with_data(ctx, bytes, vk::BufferUsageFlags::VERTEX_BUFFER)?
        };
        Ok(crate::library::VertexBuffer::from_parts(buffer, count))
    }
}

/// Typed pushes and vertices: the pipeline's block and vertex types only (checked against the declaration when it
/// was fetched with [`crate::library::Library::typed_graphics`]).
impl<P: shader_info::PushBlock, V: shader_info::VertexData, I: shader_info::VertexData>
    crate::library::Typed<GraphicsPipeline, P, V, I>
{
    /// Records the binding of `vertices`, the per-vertex buffer the pipeline reads (at binding 0, interleaved):
    ///
    /// ```no_run
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct A { pos: [f32; 2] }
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct B { uv: [f32; 2] }
    /// use shader_info_gpu::{library::Typed, vk::{GraphicsPipeline, VertexBuffer, raw::CommandBuffer}};
    /// unsafe fn draw(p: &Typed<GraphicsPipeline, shader_info::NoPush, A>, vertices: &VertexBuffer<A>, cmd: CommandBuffer) {
    ///     unsafe { p.bind_vertices(cmd, vertices) };
    /// }
    /// ```
    ///
    /// and a buffer of another vertex type does not compile (the same code, with a `VertexBuffer<B>`):
    ///
    /// ```compile_fail,E0308
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct A { pos: [f32; 2] }
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct B { uv: [f32; 2] }
    /// use shader_info_gpu::{library::Typed, vk::{GraphicsPipeline, VertexBuffer, raw::CommandBuffer}};
    /// unsafe fn draw(p: &Typed<GraphicsPipeline, shader_info::NoPush, A>, vertices: &VertexBuffer<B>, cmd: CommandBuffer) {
    ///     unsafe { p.bind_vertices(cmd, vertices) };
    /// }
    /// ```
    ///
    /// # Safety
    /// `cmd` must be recording, created from the same device, and `vertices` alive until it completes.
    pub unsafe fn bind_vertices(&self, cmd: vk::CommandBuffer, vertices: &VertexBuffer<V>) {
        // SAFETY: guaranteed by the caller.
        unsafe { self.bind_buffer(cmd, self.vertex_binding(), vertices.buffer()) }
    }

    /// Records the binding of `instances`, the interleaved per-instance buffer of an info with `instance_in`s (a
    /// pipeline fetched with [`crate::library::Library::typed_instanced`]), at its binding
    /// ([`crate::library::Typed::instance_binding`]). A buffer of another type does not compile.
    ///
    /// ```no_run
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct Corner { corner: [f32; 2] }
    /// # #[derive(Clone, Copy, bytemuck::NoUninit, shader_info::ShaderVertex)] #[repr(C)] struct Sprite { rect: [f32; 4] }
    /// use shader_info_gpu::{library::Typed, vk::{GraphicsPipeline, VertexBuffer, raw::CommandBuffer}};
    /// unsafe fn draw(p: &Typed<GraphicsPipeline, shader_info::NoPush, Corner, Sprite>, corners: &VertexBuffer<Corner>,
    ///                sprites: &VertexBuffer<Sprite>, cmd: CommandBuffer) {
    ///     unsafe {
    ///         p.bind_vertices(cmd, corners);
    ///         p.bind_instances(cmd, sprites);
    ///     }
    /// }
    /// ```
    ///
    /// # Safety
    /// As [`Self::bind_vertices`].
    pub unsafe fn bind_instances(&self, cmd: vk::CommandBuffer, instances: &VertexBuffer<I>) {
        // SAFETY: guaranteed by the caller.
        unsafe { self.bind_buffer(cmd, self.instance_binding(), instances.buffer()) }
    }

    /// Records the binding of `buffer` at `binding`, from its start.
    ///
    /// # Safety
    /// As [`Self::bind_vertices`].
    unsafe fn bind_buffer(&self, cmd: vk::CommandBuffer, binding: u32, buffer: &Buffer) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            self.layout()
                .device()
                .cmd_bind_vertex_buffers(cmd, binding, &[buffer.handle()], &[0])
        };
    }
}

/// Typed pushes: the pipeline's block type only (checked against the declaration when it was fetched with
/// [`crate::library::Library::typed_graphics`]).
impl<P: shader_info::PushBlock, V, I> crate::library::Typed<GraphicsPipeline, P, V, I> {
    /// Records the push of `value` ([`PipelineLayout::push`]: the block, its tail padding dropped).
    ///
    /// # Safety
    /// `cmd` must be recording, created from the same device, with this pipeline bound.
    pub unsafe fn push(&self, cmd: vk::CommandBuffer, value: &P) -> VkResult<()> {
        // SAFETY: guaranteed by the caller; the length of the bytes is checked by the layout.
        unsafe { self.layout().push(cmd, bytemuck::bytes_of(value)) }
    }

    /// [`PipelineLayout::bind`] taking only the sets of this pipeline's `#[derive(ShaderInfo)]` info `P`: a set
    /// struct of another info does not compile.
    pub fn bind<'a, S: shader_info::BindingSet<'a, super::VkHost, Info = P>>(
        &self,
        pool: &super::DescriptorPool,
        set: &S,
    ) -> VkResult<(u32, vk::DescriptorSet)> {
        self.layout().bind(pool, set)
    }
}

impl<P: shader_info::PushBlock> crate::library::Typed<ComputePipeline, P> {
    /// Records the push of `value` ([`PipelineLayout::push`]).
    ///
    /// # Safety
    /// `cmd` must be recording, created from the same device, with this pipeline bound.
    pub unsafe fn push(&self, cmd: vk::CommandBuffer, value: &P) -> VkResult<()> {
        // SAFETY: guaranteed by the caller; the length of the bytes is checked by the layout.
        unsafe { self.layout().push(cmd, bytemuck::bytes_of(value)) }
    }

    /// See [`PipelineLayout::bind`]; only the sets of `P`'s info compile.
    pub fn bind<'a, S: shader_info::BindingSet<'a, super::VkHost, Info = P>>(
        &self,
        pool: &super::DescriptorPool,
        set: &S,
    ) -> VkResult<(u32, vk::DescriptorSet)> {
        self.layout().bind(pool, set)
    }
}
