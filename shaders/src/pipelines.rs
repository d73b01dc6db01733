//! A Vulkan pipeline for every compilable info of the library, with the fixed-function state each family of
//! shaders is documented to need (see [`graphics_options`]), timed and reported.
//!
//! ```no_run
//! use gpu::vk::{ContextOptions, LibraryOptions, ShaderLibrary, VkContext};
//! use shaders as _;
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new(shaders::glsl_root()))?;
//! let report = shaders::pipelines::create_all(&mut lib, &shaders::glsl_root());
//! println!("{} pipelines, {} skipped, {} failed", report.created.len(), report.skipped.len(),
//!          report.failed.len());
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

use gpu::compiler::{Compiler, Profile};
use gpu::vk::pipeline::Blend;
use gpu::vk::{
    GraphicsOptions, GraphicsPipeline, PipelineLayout, RayTracingPipeline, ShaderLibrary,
    ShaderModule, SpecValues, ValidationMessage, VkError, VkResult, describe_layout, raw,
};
use shader_info::{
    DEFAULT_BRANCH_LIMIT, DirLoader, GenerateOptions, ShaderCreateInfo, Stage, enumerate_variants,
    generate,
};
use std::path::Path;
use std::sync::Arc;
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

/// What kind of pipeline an info makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PipelineKind {
    Graphics,
    Compute,
    RayTracing,
}

impl PipelineKind {
    /// The kind of pipeline built from `info`'s stages.
    pub fn of(info: &ShaderCreateInfo) -> PipelineKind {
        let stages = info.stages();
        if stages.contains(&Stage::Compute) {
            PipelineKind::Compute
        } else if stages.iter().any(|s| s.is_ray_tracing()) {
            PipelineKind::RayTracing
        } else {
            PipelineKind::Graphics
        }
    }
}

/// One pipeline that was created.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CreatedPipeline {
    pub name: String,
    pub kind: PipelineKind,
    /// Generating and compiling its modules (0 when another pipeline compiled them already, or when they are
    /// counted in `create_ms`: the permutations of [`VARIANTS`]).
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
    /// The ray-tracing pipelines (the library caches graphics and compute pipelines itself, not these).
    pub ray_tracing: Vec<(String, RayTracingPipeline)>,
    /// The pipelines of [`VARIANTS`] (not cached by the library either).
    pub variants: Vec<(String, GraphicsPipeline)>,
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

/// The fixed-function state of `name`'s pipeline, from the contracts in the infos' docs:
/// - 2D shaders and text draw into the display target with alpha blending (their colors have straight alpha);
///   `gpu_shader_2D_point_round` draws point lists.
/// - Fullscreen passes draw opaque into the display target.
/// - 3D shaders draw into the HDR target with a depth buffer; the polyline blends and does not write depth,
///   particles add up and do not write depth, the skybox sits at depth 1 (LESS_OR_EQUAL, no writes), the depth
///   prepass has no color attachment.
///
/// ```
/// let o = shaders::pipelines::graphics_options("gpu_shader_2D_point_round");
/// assert_eq!(o.topology, gpu::vk::raw::PrimitiveTopology::POINT_LIST);
/// ```
pub fn graphics_options(name: &str) -> GraphicsOptions {
    let display = GraphicsOptions {
        color_format: DISPLAY_FORMAT,
        ..GraphicsOptions::default()
    };
    let scene = GraphicsOptions {
        color_format: HDR_FORMAT,
        depth_format: Some(DEPTH_FORMAT),
        depth_test: true,
        depth_write: true,
        depth_compare: raw::CompareOp::LESS_OR_EQUAL,
        ..GraphicsOptions::default()
    };
    match name {
        "gpu_shader_2D_point_round" => GraphicsOptions {
            topology: raw::PrimitiveTopology::POINT_LIST,
            blend: Blend::Alpha,
            ..display
        },
        n if n.starts_with("gpu_shader_2D_") || n == "gpu_shader_text" => GraphicsOptions {
            blend: Blend::Alpha,
            ..display
        },
        n if n.starts_with("gpu_shader_fullscreen_") => display,
        "gpu_shader_3D_polyline" => GraphicsOptions {
            blend: Blend::Alpha,
            depth_write: false,
            ..scene
        },
        "gpu_shader_3D_particles" => GraphicsOptions {
            topology: raw::PrimitiveTopology::POINT_LIST,
            blend: Blend::Additive,
            depth_write: false,
            ..scene
        },
        "gpu_shader_skybox" => GraphicsOptions {
            depth_write: false,
            ..scene
        },
        _ => scene,
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Compiles the modules of every stage of `name` (timed apart from pipeline creation).
fn compile_stages(
    lib: &mut ShaderLibrary,
    name: &str,
    stages: &[Stage],
) -> VkResult<Vec<(Stage, Arc<ShaderModule>)>> {
    stages
        .iter()
        .map(|s| lib.module(name, *s).map(|m| (*s, m)))
        .collect()
}

/// Creates the graphics pipeline of one permutation of `name` (the branches in `on` true, the others false),
/// compiling its stages from `root` and sharing the library's set layouts.
pub fn variant_pipeline(
    lib: &ShaderLibrary,
    root: &Path,
    name: &str,
    on: &[&str],
    options: &GraphicsOptions,
) -> VkResult<GraphicsPipeline> {
    let compile_error =
        |d: Vec<shader_info::Diagnostic>| VkError::Compile(shader_info::render_all(&d));
    let info = lib.registry().resolve(name).map_err(compile_error)?;
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).map_err(compile_error)?;
    let mut bits = 0u64;
    for b in on {
        let i = set
            .branches
            .iter()
            .position(|x| x == b)
            .ok_or_else(|| VkError::Declaration {
                info: name.into(),
                message: format!("no static branch `{b}`"),
            })?;
        bits |= 1 << i;
    }
    let index = set
        .lookup(bits)
        .map_err(|e| VkError::Other(e.to_string()))?;
    let variant = set.variants[index].apply(&info, &set.branches);
    let compiler = Compiler::new(root).map_err(|e| VkError::Compile(e.to_string()))?;
    let loader = DirLoader::new(root);
    let opts = GenerateOptions {
        loader: &loader,
        registry: lib.registry(),
        extra_defines: &[],
    };
    let ctx = lib.context();
    let mut modules = Vec::new();
    for stage in variant.stages().into_iter().filter(|s| s.is_graphics()) {
        let g = generate(&variant, stage, &opts).map_err(compile_error)?;
        let m = compiler
            .compile_generated(&g, Profile::Release)
            .map_err(|e| VkError::Compile(format!("{name} ({stage}): {e}")))?;
        modules.push((stage, ShaderModule::new(ctx, &m.spirv)?));
    }
    let layout = Arc::new(PipelineLayout::new(
        ctx,
        lib.layouts(),
        &describe_layout(&variant, None)?,
    )?);
    let refs: Vec<(Stage, &ShaderModule)> = modules.iter().map(|(s, m)| (*s, m)).collect();
    GraphicsPipeline::new(ctx, &variant, &refs, layout, options)
}

/// Creates the ray-tracing pipeline of `name` from the library's modules and shared set layouts.
pub fn ray_tracing_pipeline(lib: &mut ShaderLibrary, name: &str) -> VkResult<RayTracingPipeline> {
    let info = lib
        .registry()
        .resolve(name)
        .map_err(|d| VkError::Compile(shader_info::render_all(&d)))?;
    let modules = compile_stages(lib, name, &info.stages())?;
    let ctx = lib.context().clone();
    let layout = Arc::new(PipelineLayout::new(
        &ctx,
        lib.layouts(),
        &describe_layout(&info, None)?,
    )?);
    let refs: Vec<(Stage, &ShaderModule)> = modules.iter().map(|(s, m)| (*s, m.as_ref())).collect();
    RayTracingPipeline::new(&ctx, &info, &refs, layout, &SpecValues::default())
}

/// Creates a pipeline for every compilable info of the library's registry: graphics pipelines with
/// [`graphics_options`], compute pipelines with the declared specialization defaults, and ray-tracing pipelines
/// where the device has `VK_KHR_ray_tracing_pipeline` (skipped with the reason elsewhere). Infos listed in
/// [`VARIANTS`] get that permutation, compiled from `root`. Never stops at a failure: each one is reported.
pub fn create_all(lib: &mut ShaderLibrary, root: &Path) -> LibraryPipelines {
    let start = Instant::now();
    let mut out = LibraryPipelines::default();
    let mut infos: Vec<ShaderCreateInfo> = lib
        .registry()
        .infos()
        .filter(|i| i.do_static_compilation)
        .cloned()
        .collect();
    infos.sort_by(|a, b| a.name.cmp(&b.name));
    for declared in infos {
        let name = declared.name.clone();
        let info = match lib.registry().resolve(&name) {
            Ok(i) => i,
            Err(d) => {
                out.failed.push(NoPipeline {
                    kind: PipelineKind::of(&declared),
                    name,
                    reason: shader_info::render_all(&d),
                });
                continue;
            }
        };
        let kind = PipelineKind::of(&info);
        if kind == PipelineKind::RayTracing && lib.context().ray_tracing().is_none() {
            out.skipped.push(NoPipeline {
                name,
                kind,
                reason: format!(
                    "{} has no VK_KHR_ray_tracing_pipeline",
                    lib.context().device_name()
                ),
            });
            continue;
        }
        if let Some((_, on)) = VARIANTS.iter().find(|(n, _)| *n == name) {
            // Compiling and creating are one step here: the variant's modules are not the library's.
            let t = Instant::now();
            let created = variant_pipeline(lib, root, &name, on, &graphics_options(&name));
            let create_ms = ms(t);
            let label = format!("{name}[{}]", on.join("+"));
            match created {
                Ok(p) => {
                    out.variants.push((label.clone(), p));
                    out.created.push(CreatedPipeline {
                        name: label,
                        kind,
                        compile_ms: 0.0,
                        create_ms,
                    });
                }
                Err(e) => out.failed.push(NoPipeline {
                    name: label,
                    kind,
                    reason: e.to_string(),
                }),
            }
            continue;
        }
        let t = Instant::now();
        let compiled = compile_stages(lib, &name, &info.stages());
        let compile_ms = ms(t);
        let t = Instant::now();
        let created = compiled.and_then(|_| match kind {
            PipelineKind::Graphics => lib
                .graphics_pipeline(&name, &graphics_options(&name))
                .map(drop),
            PipelineKind::Compute => lib.compute_pipeline(&name).map(drop),
            PipelineKind::RayTracing => {
                ray_tracing_pipeline(lib, &name).map(|p| out.ray_tracing.push((name.clone(), p)))
            }
        });
        let create_ms = ms(t);
        match created {
            Ok(()) => out.created.push(CreatedPipeline {
                name,
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
