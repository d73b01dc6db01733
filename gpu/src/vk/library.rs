//! The shader library on Vulkan: the core [`crate::library::Library`] over [`VkBackend`]. Every module goes
//! through the [`crate::flow::Flow`] (validated, generated, compiled, reflected, cross-checked); every layout and
//! pipeline is mapped from the info's [`shader_info::PipelinePlan`]; [`ShaderLibrary::reload`] recompiles what
//! changed and swaps pipelines only on success, so a typo in a shader never costs the renderer a working pipeline.

use super::device::VkContext;
use super::error::{VkError, VkResult};
use super::layout::{LayoutCache, PipelineLayout};
use super::module::ShaderModule;
use super::pipeline::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, RayTracingPipeline, SpecValues,
    attachments, device_graphics_problems,
};
use crate::flow::Flow;
use crate::library::{Attachments, Backend, DeviceLimits, Library, LibraryOptions};
use shader_info::{
    Code, Diagnostic, PipelinePlan, Registry, RenderState, Stage, SubpassMode, ValidatedInfo,
};
use std::sync::Arc;

/// Modules and pipelines fetched by info name (or variant key), compiled on first use, hot-reloadable.
///
/// ```no_run
/// use shader_info_gpu::library::LibraryOptions;
/// use shader_info_gpu::vk::{ContextOptions, GraphicsOptions, ShaderLibrary, VkContext};
/// let ctx = VkContext::new(&ContextOptions::default())?;
/// let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
///                                  LibraryOptions::new("shaders/glsl"))?;
/// let blur = lib.compute_pipeline("gpu_compute_blur_horizontal")?;
/// let text = lib.graphics_pipeline("gpu_shader_text", &GraphicsOptions::default())?;
/// // Later, when sources changed (or from a watcher, see `watch`):
/// let report = lib.reload()?;
/// println!("{report}");
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
pub type ShaderLibrary = Library<VkBackend>;

/// One pipeline to create up front on Vulkan (see [`Library::warm_up`]).
pub type WarmUp = crate::library::WarmUp<GraphicsOptions>;

/// The Vulkan side of the library: a device and the descriptor-set layouts its pipelines share.
pub struct VkBackend {
    ctx: VkContext,
    layouts: LayoutCache,
    /// Pipeline-library parts, when graphics pipelines are fast-linked ([`ShaderLibrary::set_fast_link`]).
    fast: Option<Arc<super::fast_link::PartCache>>,
}

impl ShaderLibrary {
    /// A library over `registry`'s infos with sources under `opts.shader_root` (which must exist), on `ctx`.
    /// Graphics pipelines are fast-linked ([`Self::set_fast_link`]) where the device has
    /// `VK_EXT_graphics_pipeline_library` and is a GPU: on the H100 a first use links in 0.2 ms against 30–39 ms
    /// for a whole creation (p99); on lavapipe, a CPU driver, a link is not faster than a creation, so it stays
    /// off there.
    pub fn new(
        ctx: &VkContext,
        registry: Registry,
        opts: LibraryOptions,
    ) -> VkResult<ShaderLibrary> {
        Library::with_backend(
            VkBackend {
                ctx: ctx.clone(),
                layouts: LayoutCache::new(ctx),
                fast: (ctx.feature_enabled("graphicsPipelineLibrary") && !ctx.is_cpu())
                    .then(Default::default),
            },
            registry,
            opts,
        )
    }

    /// The device.
    pub fn context(&self) -> &VkContext {
        &self.backend().ctx
    }

    /// The shared descriptor-set layouts.
    pub fn layouts(&self) -> &LayoutCache {
        &self.backend().layouts
    }

    /// Graphics pipelines linked from pipeline-library parts shared across pipelines
    /// (`VK_EXT_graphics_pipeline_library`): a first use whose parts exist (see
    /// [`Library::warm_up_parts`](crate::library::Library::warm_up_parts)) only links them, and the optimized
    /// link replaces it from a later fetch. On by default on a GPU with the extension ([`ShaderLibrary::new`]);
    /// turning it on is an error on a device without the extension (the library keeps creating whole pipelines
    /// there).
    pub fn set_fast_link(&mut self, on: bool) -> VkResult<()> {
        if on && !self.context().feature_enabled("graphicsPipelineLibrary") {
            return Err(VkError::Unsupported {
                device: self.context().device_name().to_string(),
                what: "fast-linked pipelines: no VK_EXT_graphics_pipeline_library".into(),
            });
        }
        let backend = self.backend_mut();
        backend.fast = on.then(|| backend.fast.take().unwrap_or_default());
        Ok(())
    }

    /// The parts, links and optimized swaps of fast linking so far (zeros when it is off).
    pub fn fast_link_stats(&self) -> super::fast_link::FastLinkStats {
        self.backend()
            .fast
            .as_ref()
            .map(|c| c.stats())
            .unwrap_or_default()
    }
}

impl Backend for VkBackend {
    type GraphicsOptions = GraphicsOptions;
    type Source = Arc<crate::compiler::CompiledModule>;
    type Module = ShaderModule;
    type Layout = Arc<PipelineLayout>;
    type Graphics = GraphicsPipeline;
    type Compute = ComputePipeline;
    type RayTracing = RayTracingPipeline;
    type Error = VkError;
    const API: &'static str = "Vulkan";

    fn device_name(&self) -> String {
        self.ctx.device_name().to_string()
    }

    /// Geometry and tessellation stages need the device's `geometryShader` / `tessellationShader`.
    fn runs_stage(&self, stage: Stage) -> bool {
        match stage {
            Stage::Geometry => self.ctx.feature_enabled("geometryShader"),
            Stage::TessControl | Stage::TessEvaluation => {
                self.ctx.feature_enabled("tessellationShader")
            }
            _ => true,
        }
    }

    fn limits(&self) -> DeviceLimits {
        super::limits::device_limits(&self.ctx)
    }

    /// The device's own choice when the options leave it ([`VkContext::subpass_mode`]: local read where
    /// supported); a requested local read the device cannot do is refused when a pipeline needs it.
    fn subpass_mode(&self, requested: Option<SubpassMode>) -> Result<SubpassMode, Vec<Diagnostic>> {
        Ok(requested.unwrap_or_else(|| self.ctx.subpass_mode()))
    }

    /// Compiles the stage; only SPIR-V that differs from `current` is cross-checked against the declaration.
    fn source(
        &self,
        flow: &Flow<'_>,
        info: &ValidatedInfo,
        stage: Stage,
        current: Option<u128>,
    ) -> Result<Option<(u128, Self::Source)>, Vec<Diagnostic>> {
        let (generated, compiled) = flow.compile_unchecked(info, stage)?;
        let hash = compiled.spirv_key();
        if current == Some(hash) {
            return Ok(None);
        }
        let reflection = flow.check_module(info, &generated, &compiled)?;
        let problems = feature_problems(
            &self.ctx,
            flow,
            info,
            stage,
            (&compiled.spirv, &reflection.capabilities),
        );
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Some((hash, compiled)))
    }

    fn create_module(
        &self,
        key: &str,
        source: Self::Source,
    ) -> Result<ShaderModule, Vec<Diagnostic>> {
        ShaderModule::new(&self.ctx, &source.spirv).map_err(|e| e.into_diagnostics(key))
    }

    fn module_uses(module: &ShaderModule, set: u32, binding: u32) -> bool {
        module.uses(set, binding)
    }

    fn create_layout(
        &self,
        plan: &PipelinePlan,
        _modules: &[(Stage, &ShaderModule)],
    ) -> Result<Arc<PipelineLayout>, Vec<Diagnostic>> {
        PipelineLayout::for_plan(&self.ctx, &self.layouts, plan)
            .map(Arc::new)
            .map_err(|e| e.into_diagnostics(&plan.key))
    }

    fn attachments(
        &self,
        plan: &PipelinePlan,
        options: &GraphicsOptions,
    ) -> Result<Attachments, Vec<Diagnostic>> {
        Ok(attachments(plan, options))
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

    fn graphics_problems(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        options: &GraphicsOptions,
        modules: &[(Stage, &ShaderModule)],
    ) -> Vec<Diagnostic> {
        device_graphics_problems(&self.ctx, plan, state, options, modules)
    }

    fn create_graphics(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        modules: &[(Stage, &ShaderModule)],
        layout: Arc<PipelineLayout>,
        options: &GraphicsOptions,
    ) -> Result<GraphicsPipeline, Vec<Diagnostic>> {
        match &self.fast {
            Some(parts) => super::fast_link::create_linked(
                &self.ctx, parts, plan, state, modules, layout, options,
            ),
            None => GraphicsPipeline::create(&self.ctx, plan, state, modules, layout, options),
        }
        .map_err(|e| e.into_diagnostics(&plan.key))
    }

    fn better(&self, pipeline: &GraphicsPipeline) -> Option<GraphicsPipeline> {
        let optimized = super::fast_link::take_optimized(pipeline)?;
        if let Some(parts) = &self.fast {
            parts
                .optimized
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Some(optimized)
    }

    fn retain_for_modules(&self, live: &[&ShaderModule]) {
        if let Some(parts) = &self.fast {
            parts.retain_for(&live.iter().map(|m| m.spirv_hash()).collect());
        }
    }

    fn prepare_graphics(
        &self,
        plan: &PipelinePlan,
        state: &RenderState,
        modules: &[(Stage, &ShaderModule)],
        layout: &Arc<PipelineLayout>,
        options: &GraphicsOptions,
    ) -> Result<bool, Vec<Diagnostic>> {
        let Some(parts) = &self.fast else {
            return Ok(false);
        };
        super::fast_link::prepare(&self.ctx, parts, plan, state, modules, layout, options)
            .map(|()| true)
            .map_err(|e| e.into_diagnostics(&plan.key))
    }

    fn create_compute(
        &self,
        plan: &PipelinePlan,
        module: &ShaderModule,
        layout: Arc<PipelineLayout>,
        specialization: &SpecValues,
    ) -> Result<ComputePipeline, Vec<Diagnostic>> {
        ComputePipeline::new(&self.ctx, plan, module, layout, specialization)
            .map_err(|e| e.into_diagnostics(&plan.key))
    }

    fn create_ray_tracing(
        &self,
        plan: &PipelinePlan,
        modules: &[(Stage, &ShaderModule)],
        layout: Arc<PipelineLayout>,
    ) -> Result<RayTracingPipeline, Vec<Diagnostic>> {
        RayTracingPipeline::new(&self.ctx, plan, modules, layout, &SpecValues::default())
            .map_err(|e| e.into_diagnostics(&plan.key))
    }

    fn wait_idle(&self) {
        // A device lost here is reported by the next call that needs the device.
        let _ = self.ctx.wait_idle();
    }

    fn error(diagnostics: Vec<Diagnostic>) -> VkError {
        VkError::Diagnostics(diagnostics)
    }

    fn diagnostics(error: VkError, key: &str) -> Vec<Diagnostic> {
        error.into_diagnostics(key)
    }
}

impl VkError {
    /// The error as diagnostics naming `key`: its own for [`VkError::Diagnostics`], one [`Code::Device`] (or
    /// [`Code::Unsupported`]) diagnostic otherwise.
    pub fn into_diagnostics(self, key: &str) -> Vec<Diagnostic> {
        match self {
            VkError::Diagnostics(d) => d,
            VkError::Unsupported { .. } => {
                vec![Diagnostic::error(Code::Unsupported, key, self.to_string())]
            }
            other => vec![Diagnostic::error(Code::Device, key, other.to_string())],
        }
    }
}

/// SPIR-V capabilities a module may declare that Vulkan enables only with a device feature, and that feature.
const CAPABILITY_FEATURES: &[(u32, &str, &str)] = &[
    (2, "Geometry", "geometryShader"),
    (3, "Tessellation", "tessellationShader"),
    (10, "Float64", "shaderFloat64"),
    (11, "Int64", "shaderInt64"),
    (22, "Int16", "shaderInt16"),
    (25, "ImageGatherExtended", "shaderImageGatherExtended"),
    (
        27,
        "StorageImageMultisample",
        "shaderStorageImageMultisample",
    ),
    (32, "ClipDistance", "shaderClipDistance"),
    (33, "CullDistance", "shaderCullDistance"),
    (34, "ImageCubeArray", "imageCubeArray"),
    (35, "SampleRateShading", "sampleRateShading"),
    (45, "SampledCubeArray", "imageCubeArray"),
    (
        49,
        "StorageImageExtendedFormats",
        "shaderStorageImageExtendedFormats",
    ),
];

/// What the device lacks for the compiled `stage` of `info`: a capability its code declares whose feature is not
/// enabled (`samplerCubeArray` on a device without `imageCubeArray`), or a storage buffer or image the stage
/// writes outside compute without `fragmentStoresAndAtomics` / `vertexPipelineStoresAndAtomics`. Each would be a
/// broken valid-usage rule at module or pipeline creation; here it is an error naming the stage and the feature.
fn feature_problems(
    ctx: &VkContext,
    flow: &Flow<'_>,
    info: &ValidatedInfo,
    stage: Stage,
    (spirv, capabilities): (&[u32], &[u32]),
) -> Vec<Diagnostic> {
    let missing = |feature: &str| !ctx.feature_enabled(feature);
    let problem = |what: String, feature: &str| {
        Diagnostic::error(
            Code::Unsupported,
            &info.name,
            format!(
                "the {stage} stage of `{}` {what}, which needs the device feature `{feature}`; {} does not enable it",
                info.name,
                ctx.device_name()
            ),
        )
        .stage(stage)
        .hint("run it on a device with that feature, or keep that code to a variant this device does not use")
    };
    let mut out = Vec::new();
    for (cap, name, feature) in CAPABILITY_FEATURES {
        if capabilities.contains(cap) && missing(feature) {
            out.push(problem(
                format!("uses {name} (SPIR-V capability {cap})"),
                feature,
            ));
        }
    }
    let feature = match stage {
        Stage::Fragment => "fragmentStoresAndAtomics",
        Stage::Vertex | Stage::Geometry | Stage::TessControl | Stage::TessEvaluation => {
            "vertexPipelineStoresAndAtomics"
        }
        _ => return out,
    };
    if !missing(feature) {
        return out;
    }
    let used = crate::reflect::used_bindings(spirv).unwrap_or_default();
    for (set, b) in flow.plan(info).bindings() {
        if b.resource.writable() && used.contains(&(set, b.binding)) {
            out.push(
                problem(format!("writes `{}`", b.name), feature)
                    .item(format!("resource `{}`", b.name))
                    .at(&b.declared_in, b.origin),
            );
        }
    }
    out
}
