//! A Vulkan pipeline for every compilable info of the library, with its declared render state and the render
//! targets each family of shaders draws into (see [`graphics_options`]), timed and reported.
//!
//! ```no_run
//! use gpu::vk::{ContextOptions, LibraryOptions, ShaderLibrary, VkContext};
//! use shaders as _;
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new(shaders::glsl_root()))?;
//! let report = shaders::pipelines::create_all(&mut lib);
//! println!("{} pipelines, {} skipped, {} failed", report.created.len(), report.skipped.len(),
//!          report.failed.len());
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

use gpu::vk::{GraphicsOptions, ShaderLibrary, ValidationMessage, VkResult, raw};
pub use shader_info::PipelineKind;
use std::time::Instant;

/// The permutation [`create_all`] builds for an info with static branches (the library fetches infos by name,
/// which gives the base permutation with every branch off). For the mesh ubershader it is the one whose vertex
/// stage reads every declared input: the vertex input state comes from the declaration, and an attribute the
/// shader does not consume is a validation-layer performance warning.
pub const VARIANTS: &[(&str, &[&str])] = &[("gpu_shader_mesh", &["SKINNING", "VERTEX_COLOR"])];

/// True for the one driver message the demo and tests accept: Mesa 22.3's SPIR-V front end (lavapipe) warns
/// that `invariant gl_Position` (an `Invariant` member decoration of the `gl_PerVertex` block, which the SPIR-V
/// spec allows and `spirv-val` accepts) is "not allowed on struct members", and ignores it. It arrives through
/// the debug messenger with Mesa's source location as its id (`../src/vulkan/runtime/vk_nir.c:56`), never with
/// a validation-layer id (`VUID-…`, `UNASSIGNED-…`).
pub fn is_known_driver_warning(m: &ValidationMessage) -> bool {
    !m.id_name.starts_with("VUID-")
        && !m.id_name.starts_with("UNASSIGNED-")
        && m.text
            .contains("Decoration not allowed on struct members: SpvDecorationInvariant")
}

/// The color format of the display target the 2D and fullscreen shaders draw into. An `*_SRGB` format: the
/// shaders get `srgb_target = true`, the hardware encodes, and the bytes read back are ready for a PNG.
pub const DISPLAY_FORMAT: raw::Format = raw::Format::R8G8B8A8_SRGB;
/// The linear scene target of the 3D shaders.
pub const HDR_FORMAT: raw::Format = raw::Format::R16G16B16A16_SFLOAT;
/// The depth format of the 3D pass (every Vulkan device supports it as a depth attachment or `X8_D24`; lavapipe
/// and NVIDIA both have it).
pub const DEPTH_FORMAT: raw::Format = raw::Format::D32_SFLOAT;

/// One pipeline that was created.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CreatedPipeline {
    pub name: String,
    pub kind: PipelineKind,
    /// Generating, compiling and checking its modules (0 when another pipeline compiled them already).
    pub compile_ms: f64,
    /// Creating its layout and pipeline (and the shader binding table for ray tracing).
    pub create_ms: f64,
}

/// An info that got no pipeline, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NoPipeline {
    pub name: String,
    pub kind: PipelineKind,
    pub reason: String,
}

/// The result of [`create_all`].
#[derive(Default)]
pub struct LibraryPipelines {
    /// In registry (name) order.
    pub created: Vec<CreatedPipeline>,
    /// Not attempted because the device lacks a feature (ray tracing on lavapipe).
    pub skipped: Vec<NoPipeline>,
    /// Attempted and failed (a bug in a shader or in the backend).
    pub failed: Vec<NoPipeline>,
    /// Wall time of the whole pass.
    pub total_ms: f64,
}

impl LibraryPipelines {
    /// Sum of the compile times.
    pub fn compile_ms(&self) -> f64 {
        self.created.iter().map(|c| c.compile_ms).sum()
    }

    /// Sum of the pipeline creation times.
    pub fn create_ms(&self) -> f64 {
        self.created.iter().map(|c| c.create_ms).sum()
    }

    /// Number of created pipelines of `kind`.
    pub fn count(&self, kind: PipelineKind) -> usize {
        self.created.iter().filter(|c| c.kind == kind).count()
    }
}

/// The render targets `name`'s pipeline draws into (the render state comes from the declaration):
/// - 2D shaders, text and fullscreen passes draw into the display target;
/// - 3D shaders draw into the HDR target with a depth buffer (the depth prepass has no color output, so no color
///   attachment).
///
/// ```
/// let o = shaders::pipelines::graphics_options("gpu_shader_2D_point_round");
/// assert_eq!(o.color_format, shaders::pipelines::DISPLAY_FORMAT);
/// assert_eq!(o.depth_format, None);
/// ```
pub fn graphics_options(name: &str) -> GraphicsOptions {
    if name.starts_with("gpu_shader_2D_")
        || name == "gpu_shader_text"
        || name.starts_with("gpu_shader_fullscreen_")
    {
        GraphicsOptions {
            color_format: DISPLAY_FORMAT,
            ..GraphicsOptions::default()
        }
    } else {
        GraphicsOptions {
            color_format: HDR_FORMAT,
            depth_format: Some(DEPTH_FORMAT),
            ..GraphicsOptions::default()
        }
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// The key an info's pipeline is fetched by: the info name, or for an info listed in [`VARIANTS`] the variant key of
/// that permutation.
pub fn pipeline_key(lib: &mut ShaderLibrary, name: &str) -> VkResult<String> {
    match VARIANTS.iter().find(|(n, _)| *n == name) {
        None => Ok(name.to_string()),
        Some((_, on)) => {
            let set = lib.variants(name)?;
            let values: Vec<(&str, bool)> = on.iter().map(|b| (*b, true)).collect();
            let bits = set
                .bits_of(&values)
                .map_err(|message| gpu::vk::VkError::Declaration {
                    info: name.to_string(),
                    message,
                })?;
            lib.variant_key(name, bits)
        }
    }
}

/// Creates a pipeline for every compilable info of the library's registry, through the library (so every one
/// is cached, checked and reloadable): graphics pipelines with [`graphics_options`], compute pipelines with the
/// declared specialization defaults, and ray-tracing pipelines where the device has
/// `VK_KHR_ray_tracing_pipeline` (skipped with the reason elsewhere). Infos listed in [`VARIANTS`] get that
/// permutation. Never stops at a failure: each one is reported.
pub fn create_all(lib: &mut ShaderLibrary) -> LibraryPipelines {
    let start = Instant::now();
    let mut out = LibraryPipelines::default();
    let mut names: Vec<String> = lib
        .registry()
        .infos()
        .filter(|i| i.do_static_compilation)
        .map(|i| i.name.clone())
        .collect();
    names.sort();
    for name in names {
        let kind = lib.pipeline_kind(&name).unwrap_or(PipelineKind::Graphics);
        if kind == PipelineKind::RayTracing && lib.context().ray_tracing().is_none() {
            out.skipped.push(NoPipeline {
                reason: format!(
                    "{} has no VK_KHR_ray_tracing_pipeline",
                    lib.context().device_name()
                ),
                name,
                kind,
            });
            continue;
        }
        let t = Instant::now();
        let key = pipeline_key(lib, &name);
        let compiled = key.and_then(|key| lib.plan(&key).map(|_| key));
        let compile_ms = ms(t);
        let t = Instant::now();
        let created = compiled.and_then(|key| {
            match kind {
                PipelineKind::Graphics => lib
                    .graphics_pipeline(&key, &graphics_options(&name))
                    .map(drop),
                PipelineKind::Compute => lib.compute_pipeline(&key).map(drop),
                PipelineKind::RayTracing => lib.ray_tracing_pipeline(&key).map(drop),
            }
            .map(|()| key)
        });
        let create_ms = ms(t);
        match created {
            Ok(key) => out.created.push(CreatedPipeline {
                name: key,
                kind,
                compile_ms,
                create_ms,
            }),
            Err(e) => out.failed.push(NoPipeline {
                name,
                kind,
                reason: e.to_string(),
            }),
        }
    }
    out.total_ms = ms(start);
    out
}
