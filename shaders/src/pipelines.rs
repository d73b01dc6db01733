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

use gpu::library::{Backend, Library};
use gpu::vk::{GraphicsOptions, ShaderLibrary, ValidationMessage, raw};
use shader_info::Diagnostic;
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
        && is_known_driver_warning_text(&m.text)
}

/// [`is_known_driver_warning`] for a message known only as text (wgpu logs the layer's messages as lines).
pub fn is_known_driver_warning_text(text: &str) -> bool {
    !text.contains("VUID-")
        && !text.contains("UNASSIGNED-")
        && text.contains("Decoration not allowed on struct members: SpvDecorationInvariant")
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
    /// Generating, compiling and checking its modules (0 when another pipeline compiled them already, and in a
    /// warm-up, where every module is compiled in one parallel phase: see [`LibraryPipelines::warm_up`]).
    pub compile_ms: f64,
    /// Creating its pipeline (and, outside a warm-up, its layout; the shader binding table for ray tracing).
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
    /// Not created because the device or the API cannot have them (ray tracing on lavapipe; on wgpu also what
    /// WebGPU cannot express), with the reason.
    pub skipped: Vec<NoPipeline>,
    /// Attempted and failed (a bug in a shader or in the backend).
    pub failed: Vec<NoPipeline>,
    /// Wall time of the whole pass.
    pub total_ms: f64,
    /// For a pass that warmed the pipelines up ([`create_all`] on ash): the wall times of its two parallel
    /// phases (compiling every module, creating every pipeline) and the threads it used.
    pub warm_up: Option<WarmUpPhases>,
}

/// The parallel phases of a warm-up, wall clock.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct WarmUpPhases {
    pub compile_ms: f64,
    pub create_ms: f64,
    pub threads: usize,
}

impl LibraryPipelines {
    /// Time spent compiling: the warm-up's compile phase (wall clock), or the sum over pipelines.
    pub fn compile_ms(&self) -> f64 {
        match self.warm_up {
            Some(w) => w.compile_ms,
            None => self.created.iter().map(|c| c.compile_ms).sum(),
        }
    }

    /// Time spent creating pipelines: the warm-up's create phase (wall clock), or the sum over pipelines.
    pub fn create_ms(&self) -> f64 {
        match self.warm_up {
            Some(w) => w.create_ms,
            None => self.created.iter().map(|c| c.create_ms).sum(),
        }
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
    if draws_to_display(name) {
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

/// [`graphics_options`] on wgpu: the same targets in wgpu's formats.
///
/// ```
/// use gpu::wgpu::raw::TextureFormat;
/// let o = shaders::pipelines::render_options("gpu_shader_forward_lit");
/// assert_eq!((o.color_format, o.depth_format), (TextureFormat::Rgba16Float, Some(TextureFormat::Depth32Float)));
/// ```
#[cfg(feature = "wgpu")]
pub fn render_options(name: &str) -> gpu::wgpu::GraphicsOptions {
    use gpu::wgpu::raw::TextureFormat as F;
    if draws_to_display(name) {
        gpu::wgpu::GraphicsOptions {
            color_format: F::Rgba8UnormSrgb,
            ..Default::default()
        }
    } else {
        gpu::wgpu::GraphicsOptions {
            color_format: F::Rgba16Float,
            depth_format: Some(F::Depth32Float),
            ..Default::default()
        }
    }
}

/// Whether `name` draws into the display target (2D, text, fullscreen passes) rather than the HDR scene.
fn draws_to_display(name: &str) -> bool {
    name.starts_with("gpu_shader_2D_")
        || name == "gpu_shader_text"
        || name.starts_with("gpu_shader_fullscreen_")
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// The key an info's pipeline is fetched by: the info name, or for an info listed in [`VARIANTS`] the variant key of
/// that permutation.
pub fn pipeline_key<B: Backend>(
    lib: &mut Library<B>,
    name: &str,
) -> Result<String, Vec<Diagnostic>> {
    let Some((_, on)) = VARIANTS.iter().find(|(n, _)| *n == name) else {
        return Ok(name.to_string());
    };
    let values: Vec<(&str, bool)> = on.iter().map(|b| (*b, true)).collect();
    lib.variant(name, &values)
        .map(String::from)
        .map_err(|e| B::diagnostics(e, name))
}

/// Creates a pipeline for every compilable info of the library's registry, through the library (so every one
/// is cached, checked and reloadable): graphics pipelines with [`graphics_options`], compute pipelines with the
/// declared specialization defaults, and ray-tracing pipelines where the device has
/// `VK_KHR_ray_tracing_pipeline` (skipped with the reason elsewhere). Infos listed in [`VARIANTS`] get that
/// permutation. Never stops at a failure: each one is reported.
///
/// Through [`Library::warm_up`]: every module is compiled in parallel, then every pipeline is created in
/// parallel into the device's pipeline cache; [`LibraryPipelines::warm_up`] has the two phases' wall times, and
/// each created pipeline its own creation time.
pub fn create_all(lib: &mut ShaderLibrary) -> LibraryPipelines {
    warm_up_all(lib, graphics_options)
}

/// The warm-up of every compilable info on any backend, each graphics pipeline with `options(name)`. What the
/// device or the API cannot have (every diagnostic [`shader_info::Code::Unsupported`]) is skipped with the reason.
fn warm_up_all<B: Backend>(
    lib: &mut Library<B>,
    options: fn(&str) -> B::GraphicsOptions,
) -> LibraryPipelines {
    let start = Instant::now();
    let mut out = LibraryPipelines::default();
    let mut requests = Vec::new();
    for name in compilable_names(lib.registry()) {
        let kind = lib.pipeline_kind(&name).unwrap_or(PipelineKind::Graphics);
        let key = match pipeline_key(lib, &name) {
            Ok(k) => k,
            Err(d) => {
                out.failed.push(NoPipeline {
                    name,
                    kind,
                    reason: shader_info::render_all(&d),
                });
                continue;
            }
        };
        requests.push(match kind {
            PipelineKind::Graphics => gpu::library::WarmUp::Graphics {
                options: options(&name),
                key,
            },
            PipelineKind::Compute => gpu::library::WarmUp::Compute { key },
            PipelineKind::RayTracing => gpu::library::WarmUp::RayTracing { key },
        });
    }
    let report = lib.warm_up(&requests);
    out.created = report
        .created
        .iter()
        .map(|w| CreatedPipeline {
            name: w.key.clone(),
            kind: w.kind,
            compile_ms: 0.0,
            create_ms: w.create_ms,
        })
        .collect();
    for (key, d) in &report.failed {
        let no = NoPipeline {
            name: key.clone(),
            kind: requests
                .iter()
                .find(|r| r.key() == key)
                .map_or(PipelineKind::Graphics, |r| r.kind()),
            reason: shader_info::render_all(d),
        };
        if !d.is_empty() && d.iter().all(|d| d.code == shader_info::Code::Unsupported) {
            out.skipped.push(no);
        } else {
            out.failed.push(no);
        }
    }
    out.warm_up = Some(WarmUpPhases {
        compile_ms: report.compile_ms,
        create_ms: report.create_ms,
        threads: report.threads,
    });
    out.total_ms = ms(start);
    out
}

/// The names of the registry's compilable infos, sorted.
fn compilable_names(registry: &shader_info::Registry) -> Vec<String> {
    let mut names: Vec<String> = registry
        .infos()
        .filter(|i| i.do_static_compilation)
        .map(|i| i.name.clone())
        .collect();
    names.sort();
    names
}

/// [`create_all`] on wgpu, the same parallel warm-up: render pipelines with [`render_options`]; what WebGPU
/// cannot express (ray tracing, `gl_PointSize`, …) is skipped with the reason.
#[cfg(feature = "wgpu")]
pub fn create_all_wgpu(lib: &mut gpu::wgpu::WgpuLibrary) -> LibraryPipelines {
    warm_up_all(lib, render_options)
}

/// The library's own pipeline set, derived from its declarations without a device, as `shader-builder build
/// --json` reports it (`pipeline_set`): every pipeline the demo frame can ask for (key, kind and the targets of
/// its pass, as [`graphics_options`] gives them), and the size of the mesh ubershader's full set in one pass (its
/// permutations, and the unique variants they fold into: one pipeline each).
///
/// ```no_run
/// use gpu::compiler::{Compiler, Profile};
/// let root = shaders::glsl_root();
/// let (compiler, loader) = (Compiler::new(&root).unwrap(), shader_info::DirLoader::new(&root));
/// let flow = gpu::flow::Flow::new(shader_info::Registry::global(), &loader, &compiler, Profile::Release);
/// let set = shaders::pipelines::pipeline_set_report(&flow).unwrap();
/// println!("{} demo pipelines", set["demo"]["pipelines"]);
/// ```
pub fn pipeline_set_report(
    flow: &gpu::flow::Flow<'_>,
) -> Result<serde_json::Value, Vec<Diagnostic>> {
    pipeline_set_report_after(flow, None)
}

/// [`pipeline_set_report`] after a static pass, whose report already counted the mesh's variants (a warm start
/// then enumerates nothing twice).
pub fn pipeline_set_report_after(
    flow: &gpu::flow::Flow<'_>,
    build: Option<&gpu::builder::BuildReport>,
) -> Result<serde_json::Value, Vec<Diagnostic>> {
    use gpu::library::WarmUp;
    let passes = crate::demo::passes::describe(flow.registry, 1280, 720)?;
    let set = crate::demo::passes::pipeline_set(&passes, graphics_options);
    let entries: Vec<serde_json::Value> = set
        .iter()
        .map(|r| match r {
            WarmUp::Graphics { key, options } => serde_json::json!({
                "key": key,
                "kind": PipelineKind::Graphics,
                "color_format": format!("{:?}", options.color_format),
                "depth_format": options.depth_format.map(|f| format!("{f:?}")),
            }),
            other => serde_json::json!({ "key": other.key(), "kind": other.kind() }),
        })
        .collect();
    let count = |kind: PipelineKind| set.iter().filter(|r| r.kind() == kind).count();
    let mesh = "gpu_shader_mesh";
    let counted = build
        .and_then(|b| b.infos.iter().find(|i| i.name == mesh))
        .and_then(|i| i.variants.as_ref())
        .map(|v| (v.branches.len(), v.unique_variants));
    let (branches, unique) = match counted {
        Some(c) => c,
        None => {
            let v = flow.variants(&flow.validated(mesh)?)?;
            (v.branches.len(), v.variants.len())
        }
    };
    Ok(serde_json::json!({
        "demo": {
            "pipelines": set.len(),
            "graphics": count(PipelineKind::Graphics),
            "compute": count(PipelineKind::Compute),
            "entries": entries,
        },
        "mesh_all_variants": {
            "info": mesh,
            "branches": branches,
            "permutations": 1u64 << branches,
            "pipelines_per_pass": unique,
        },
    }))
}
