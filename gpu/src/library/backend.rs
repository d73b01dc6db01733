//! The small trait a device API implements to run the shader library: make a module, make a layout, make the
//! three kinds of pipeline, and say what the device and a pass's attachments are in neutral terms. Everything
//! else — keys, caches, fetch-or-build, reload, warm-up, the checks both APIs share — is the core's
//! ([`super::Library`]), written once, the way wgpu-core sits over wgpu-hal.

use crate::flow::Flow;
use shader_info::{
    DescriptorCounts, Diagnostic, Direction, PipelinePlan, RenderState, Scalar, SpecValues, Stage,
    SubpassMode, ValidatedInfo,
};
use std::fmt::Debug;
use std::hash::Hash;

/// What the device allows, in the terms the core checks declarations against before anything is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// `maxComputeWorkGroupSize` / `max_compute_workgroup_size_{x,y,z}`.
    pub max_work_group_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations` / `max_compute_invocations_per_workgroup`.
    pub max_work_group_invocations: u32,
    /// `maxComputeSharedMemorySize` / `max_compute_workgroup_storage_size`, in bytes.
    pub max_shared_memory: u32,
    /// `maxColorAttachments` / `max_color_attachments`.
    pub max_color_attachments: u32,
    /// Descriptors one stage may access (`maxPerStageDescriptor*`, `maxPerStageResources` /
    /// `max_*_per_shader_stage`).
    pub per_stage_descriptors: DescriptorCounts,
    /// Descriptors one pipeline layout may hold (`maxDescriptorSet*`; WebGPU sets no such totals).
    pub layout_descriptors: DescriptorCounts,
    /// The most bytes one uniform / storage buffer descriptor spans (`maxUniformBufferRange`,
    /// `maxStorageBufferRange` / `max_uniform_buffer_binding_size`, `max_storage_buffer_binding_size`).
    pub max_uniform_buffer_range: u64,
    pub max_storage_buffer_range: u64,
    /// Whose rules a vertex buffer's layout is read by ([`PipelinePlan::vertex_layout_problems`]).
    pub vertex_rules: shader_info::VertexRules,
    /// Vertex buffers, attributes and strides ([`PipelinePlan::vertex_input_problems`]).
    pub vertex_input: shader_info::VertexInputLimits,
    /// `maxGeometryShaderInvocations` and `maxGeometryTotalOutputComponents` (0 where the API has no geometry
    /// stage).
    pub max_geometry_invocations: u32,
    pub max_geometry_total_output_components: u32,
    /// `maxTessellationControlPerPatchOutputComponents` and `maxTessellationControlTotalOutputComponents` (0 where
    /// the API has no tessellation stage).
    pub max_tess_patch_output_components: u32,
    pub max_tess_total_output_components: u32,
    /// Interface components per stage and direction.
    pub interface_components: InterfaceLimits,
}

/// Interface components a device allows each stage to read and write: Vulkan's `max*Components` (its table "Shader
/// Input and Output Locations" gives a quarter of each as locations), WebGPU's `max_inter_stage_shader_variables`
/// locations of 4 components between its two stages; 0 for a stage the API does not have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterfaceLimits {
    pub vertex_out: u32,
    pub tess_control_in: u32,
    pub tess_control_out: u32,
    pub tess_evaluation_in: u32,
    pub tess_evaluation_out: u32,
    pub geometry_in: u32,
    pub geometry_out: u32,
    pub fragment_in: u32,
}

impl InterfaceLimits {
    /// The components `stage` may use in `direction` (`u32::MAX` for interfaces no device limits here: a vertex
    /// stage's inputs are vertex attributes, a fragment stage's outputs color attachments, both checked apart).
    ///
    /// ```
    /// use shader_info_gpu::library::InterfaceLimits;
    /// use shader_info::{Direction, Stage};
    /// let l = InterfaceLimits { geometry_in: 16, ..Default::default() };
    /// assert_eq!(l.of(Stage::Geometry, Direction::In), 16);
    /// assert_eq!(l.of(Stage::Fragment, Direction::Out), u32::MAX);
    /// ```
    pub fn of(&self, stage: Stage, direction: Direction) -> u32 {
        use Direction::{In, Out};
        match (stage, direction) {
            (Stage::Vertex, Out) => self.vertex_out,
            (Stage::TessControl, In) => self.tess_control_in,
            (Stage::TessControl, Out) => self.tess_control_out,
            (Stage::TessEvaluation, In) => self.tess_evaluation_in,
            (Stage::TessEvaluation, Out) => self.tess_evaluation_out,
            (Stage::Geometry, In) => self.geometry_in,
            (Stage::Geometry, Out) => self.geometry_out,
            (Stage::Fragment, In) => self.fragment_in,
            _ => u32::MAX,
        }
    }
}

/// What kind of values a color attachment holds: a float (normalized or not) attachment blends, an integer one
/// does not, and a fragment output writes only an attachment of its own class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormatClass {
    Float,
    Sint,
    Uint,
}

impl FormatClass {
    /// The class of attachment a fragment output of `scalar` type writes.
    pub fn of_output(scalar: Scalar) -> FormatClass {
        match scalar {
            Scalar::Int | Scalar::Bool => FormatClass::Sint,
            Scalar::Uint => FormatClass::Uint,
            Scalar::Float | Scalar::Double => FormatClass::Float,
        }
    }
}

/// The default attachment of one color location when the pass names no format for it: float outputs take the
/// pass's color format, integer outputs a 32-bit integer format of their class with enough components (3
/// components take 4: no API renders to 3-component formats). Each backend maps this to its format enum; the
/// rule itself is the core's ([`default_color_targets`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultTarget {
    /// The pass's color format.
    PassFormat,
    /// A 32-bit integer format of `class` with `components` (1, 2 or 4) components.
    Integer { class: FormatClass, components: u32 },
}

/// The default attachment of every location up to the highest `fragment_out` (`None` where no output writes).
///
/// ```
/// use shader_info_gpu::library::{DefaultTarget, FormatClass, default_color_targets};
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x").fragment_out(0, Type::Vec4, "c").fragment_out(2, Type::UVec3, "id")
///     .vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// assert_eq!(default_color_targets(&plan), [Some(DefaultTarget::PassFormat), None,
///     Some(DefaultTarget::Integer { class: FormatClass::Uint, components: 4 })]);
/// ```
pub fn default_color_targets(plan: &PipelinePlan) -> Vec<Option<DefaultTarget>> {
    let Some(max) = plan.color_targets.iter().map(|o| o.location).max() else {
        return Vec::new();
    };
    let mut out = vec![None; max as usize + 1];
    for o in &plan.color_targets {
        out[o.location as usize] = Some(match FormatClass::of_output(o.scalar) {
            FormatClass::Float => DefaultTarget::PassFormat,
            class => DefaultTarget::Integer {
                class,
                components: match o.components.clamp(1, 4) {
                    3 => 4,
                    n => n,
                },
            },
        });
    }
    out
}

/// The color writes of `location`: the state's where a fragment output writes it, none at a location the
/// pipeline has only to match its pass (`color_format_overrides` past or between the outputs): the shader leaves
/// such an attachment undefined, and writing it would destroy what the pass keeps there.
///
/// ```
/// use shader_info::*;
/// use shader_info_gpu::library::color_writes;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("x").fragment_out(0, Type::Vec4, "c").vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
/// let state = RenderState::default();
/// assert_eq!(color_writes(&plan, &state, 0), ColorWrites::ALL);
/// assert_eq!(color_writes(&plan, &state, 1), ColorWrites(0));
/// ```
pub fn color_writes(
    plan: &PipelinePlan,
    state: &shader_info::RenderState,
    location: u32,
) -> shader_info::ColorWrites {
    if plan.color_targets.iter().any(|o| o.location == location) {
        state.color_writes_at(location)
    } else {
        shader_info::ColorWrites(0)
    }
}

/// A pass's attachments as the core checks them: the class of each color location's format (`None` where there
/// is none), whether there is a depth aspect and a stencil aspect, and the sample count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attachments {
    pub colors: Vec<Option<FormatClass>>,
    pub depth: bool,
    pub stencil: bool,
    pub samples: u32,
}

/// A device API under the library. Implementations map the plan to their types and create objects; they hold no
/// cache and decide nothing the core decides (see the [library](super) documentation).
///
/// Every method that creates something takes `&self` and may be called from several threads at once (warm-up
/// creates modules' pipelines in parallel), so implementations are `Sync`.
pub trait Backend: Sync + Sized {
    /// What a renderer states about a graphics pipeline that the declaration cannot know: attachment formats,
    /// sample count, vertex arrangement, specialization values, a render-state override.
    type GraphicsOptions: Clone + Eq + Hash + Debug + Default + Send + Sync;
    /// What a module is created from: checked SPIR-V (Vulkan), a checked WGSL translation (wgpu).
    type Source: Send;
    type Module: Send + Sync;
    type Layout: Send + Sync;
    type Graphics: Send + Sync;
    type Compute: Send + Sync;
    type RayTracing: Send + Sync;
    /// The backend's error type; the core's errors are diagnostics ([`Backend::error`]).
    type Error: std::error::Error;

    /// The API, for messages ("Vulkan", "wgpu").
    const API: &'static str;

    /// Whether the API keeps an object alive while submitted work uses it (wgpu does, Vulkan does not): a pipeline
    /// the library replaces is then dropped at once rather than kept for the frames in flight.
    const TRACKS_GPU_USE: bool = false;

    /// The device's name, for messages.
    fn device_name(&self) -> String;

    /// The device's limits the core checks plans against.
    fn limits(&self) -> DeviceLimits;

    /// Whether this backend and its device can run a `stage` (default: every stage). Where one stage of an info
    /// cannot run, the library builds the info's twin instead ([`shader_info::ShaderCreateInfo::twin`]).
    fn runs_stage(&self, stage: Stage) -> bool {
        let _ = stage;
        true
    }

    /// How pipelines of this backend read subpass inputs when the options leave it to the device (`Err`: this
    /// backend cannot do `requested`).
    fn subpass_mode(&self, requested: Option<SubpassMode>) -> Result<SubpassMode, Vec<Diagnostic>>;

    /// The source of `stage` of `info`, checked. `current` is the content hash of the module the library holds
    /// (reload): return `Ok(None)` when the new source would have that hash, so nothing is checked or created
    /// again. Otherwise the new source and its content hash.
    fn source(
        &self,
        flow: &Flow<'_>,
        info: &ValidatedInfo,
        stage: Stage,
        current: Option<u128>,
    ) -> Result<Option<(u128, Self::Source)>, Vec<Diagnostic>>;

    /// Creates a module from a source made by [`Backend::source`] for `key`.
    fn create_module(
        &self,
        key: &str,
        source: Self::Source,
    ) -> Result<Self::Module, Vec<Diagnostic>>;

    /// Whether the module's entry point may use `(set, binding)` (its stage then gets the binding's visibility).
    fn module_uses(module: &Self::Module, set: u32, binding: u32) -> bool;

    /// The pipeline layout of `plan`, whose stages are `modules`.
    fn create_layout(
        &self,
        plan: &PipelinePlan,
        modules: &[(Stage, &Self::Module)],
    ) -> Result<Self::Layout, Vec<Diagnostic>>;

    /// The attachments `options` describe for `plan`, in the core's terms.
    fn attachments(
        &self,
        plan: &PipelinePlan,
        options: &Self::GraphicsOptions,
    ) -> Result<Attachments, Vec<Diagnostic>>;

    /// The render state `options` replace the declared one with, if any.
    fn state_override(options: &Self::GraphicsOptions) -> Option<&RenderState>;

    /// The locations `options` give color formats for.
    fn color_override_locations(options: &Self::GraphicsOptions) -> Vec<u32>;

    /// How `options` arrange the vertex inputs in buffers (a typed vertex struct is checked against it).
    fn vertex_arrangement(options: &Self::GraphicsOptions) -> shader_info::VertexArrangement;

    /// Sets how `options` arrange the vertex inputs (a typed fetch of padded structs reads them strided).
    fn set_vertex_arrangement(
        options: &mut Self::GraphicsOptions,
        arrangement: shader_info::VertexArrangement,
    );

    /// What this device cannot do for a graphics pipeline beyond the core's checks (optional features, formats it
    /// cannot read, …). Empty when it can.
    fn graphics_problems(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        options: &Self::GraphicsOptions,
        modules: &[(Stage, &Self::Module)],
    ) -> Vec<Diagnostic>;

    /// Creates a graphics pipeline; the core has checked the kind, the attachments and the state.
    fn create_graphics(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        modules: &[(Stage, &Self::Module)],
        layout: Self::Layout,
        options: &Self::GraphicsOptions,
    ) -> Result<Self::Graphics, Vec<Diagnostic>>;

    /// A better pipeline than `pipeline`, when one became ready since it was made (Vulkan: the optimized pipeline of
    /// a fast-linked pipeline). The library hands it out from then on and keeps the old one for the frames in
    /// flight (counted by `begin_frame`, or by `poll_reload_in_background` until that is called), or until the device
    /// is idle. `None` by default.
    fn better(&self, _pipeline: &Self::Graphics) -> Option<Self::Graphics> {
        None
    }

    /// Makes what a graphics pipeline is made from ahead of it, without the pipeline (Vulkan: its pipeline-library
    /// parts), so that its first use only links them: `true` when it prepared them, `false` (the default) when
    /// the backend has nothing to prepare, and the core creates the pipeline instead.
    fn prepare_graphics(
        &self,
        _plan: &PipelinePlan,
        _state: &RenderState,
        _modules: &[(Stage, &Self::Module)],
        _layout: &Self::Layout,
        _options: &Self::GraphicsOptions,
    ) -> Result<bool, Vec<Diagnostic>> {
        Ok(false)
    }

    /// Drops what the backend keeps for modules other than `live`, the ones the library holds now (Vulkan: the
    /// pipeline-library parts made from replaced code); called after a reload replaced modules. Nothing by
    /// default.
    fn retain_for_modules(&self, live: &[&Self::Module]) {
        let _ = live;
    }

    /// Creates a compute pipeline; the core has checked the kind and the work group against the limits.
    fn create_compute(
        &self,
        plan: &PipelinePlan,
        module: &Self::Module,
        layout: Self::Layout,
        specialization: &SpecValues,
    ) -> Result<Self::Compute, Vec<Diagnostic>>;

    /// Creates a ray-tracing pipeline (with its shader binding table), or says why this device cannot.
    fn create_ray_tracing(
        &self,
        plan: &PipelinePlan,
        modules: &[(Stage, &Self::Module)],
        layout: Self::Layout,
    ) -> Result<Self::RayTracing, Vec<Diagnostic>>;

    /// Errors the device raised outside any call of the library since the last time this was asked (wgpu's
    /// uncaptured errors); the core reports those about its own objects. Empty by default (Vulkan's validation
    /// messages go to the debug messenger).
    fn raised_errors(&self) -> Vec<String> {
        Vec::new()
    }

    /// Waits until the device finished every submitted command (before pipelines are replaced or dropped).
    fn wait_idle(&self);

    /// The backend's error for diagnostics.
    fn error(diagnostics: Vec<Diagnostic>) -> Self::Error;

    /// The diagnostics of a backend error (its own, or one naming `key`).
    fn diagnostics(error: Self::Error, key: &str) -> Vec<Diagnostic>;
}
