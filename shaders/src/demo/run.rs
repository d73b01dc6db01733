//! `shader-builder render` as a function: device, every pipeline of the library, the demo frame, the PNG, and a
//! report of it all (text or JSON), on Vulkan (`ash`) or on wgpu.

use super::{Frame, render_frame};
use crate::pipelines::{
    LibraryPipelines, PipelineKind, create_all, create_all_wgpu, is_known_driver_warning,
    is_known_driver_warning_text,
};
use gpu::compiler::CompilerOptions;
use gpu::library::LibraryOptions;
use gpu::vk::{ContextOptions, ShaderLibrary, VkContext, VkError};
use gpu::wgpu::{WgpuContext, WgpuContextOptions, WgpuLibrary};
use shader_info::{Registry, SubpassMode};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why `render` produced no picture.
#[derive(Debug)]
pub enum RenderError {
    /// This machine has no Vulkan loader or driver: nothing to render with (not a failure of the library).
    NoVulkan(String),
    /// Anything else: a device, compile, pipeline or file error.
    Failed(String),
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::NoVulkan(r) | RenderError::Failed(r) => f.write_str(r),
        }
    }
}

/// The API `render` draws with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// `ash`, the library's pipelines as Vulkan pipelines from the compiled SPIR-V.
    #[default]
    Vulkan,
    /// wgpu (on its Vulkan backend), the library's pipelines from the checked WGSL translations.
    Wgpu,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Vulkan => "vulkan",
            Backend::Wgpu => "wgpu",
        })
    }
}

/// What `render` did.
pub struct RenderReport {
    pub backend: Backend,
    pub device: String,
    pub validation: bool,
    /// Remarks for the reader (validation layer missing, …).
    pub notes: Vec<String>,
    pub pipelines: LibraryPipelines,
    /// Device creation.
    pub context_ms: f64,
    /// Recording, submitting and reading back the frame.
    pub frame_ms: f64,
    /// Warnings and errors of the validation layer (and of the driver, but for the one known warning below), over
    /// the whole run.
    pub validation_messages: Vec<String>,
    /// Driver messages accepted by [`is_known_driver_warning`] (lavapipe's `invariant` warning), shown apart.
    pub driver_warnings: Vec<String>,
    pub width: u32,
    pub height: u32,
    pub output: PathBuf,
    /// Non-trivial content check: number of distinct colors in the frame.
    pub distinct_colors: usize,
}

impl RenderReport {
    /// True when every attempted pipeline was created and validation stayed silent.
    pub fn success(&self) -> bool {
        self.pipelines.failed.is_empty() && self.validation_messages.is_empty()
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let p = &self.pipelines;
        serde_json::json!({
            "backend": self.backend,
            "device": self.device,
            "validation": self.validation,
            "validation_messages": self.validation_messages.len(),
            "validation_details": self.validation_messages,
            "known_driver_warnings": self.driver_warnings.len(),
            "notes": self.notes,
            "context_ms": self.context_ms,
            "pipelines": {
                "created": p.created.len(),
                "graphics": p.count(PipelineKind::Graphics),
                "compute": p.count(PipelineKind::Compute),
                "ray_tracing": p.count(PipelineKind::RayTracing),
                "compile_ms": p.compile_ms(),
                "create_ms": p.create_ms(),
                "total_ms": p.total_ms,
                "warm_up": p.warm_up,
                "each": p.created,
                "skipped": p.skipped,
                "failed": p.failed,
            },
            "frame": {
                "width": self.width,
                "height": self.height,
                "render_ms": self.frame_ms,
                "distinct_colors": self.distinct_colors,
            },
            "output": self.output,
            "success": self.success(),
        })
    }

    /// The report as lines for people.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let p = &self.pipelines;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "device: {} through {} (created in {:.1} ms, validation {})",
            self.device,
            self.backend,
            self.context_ms,
            if self.validation { "on" } else { "off" }
        );
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        let _ = writeln!(
            s,
            "pipelines: {} created ({} graphics, {} compute, {} ray tracing) in {:.1} ms: compile {:.1} ms, \
             create {:.1} ms",
            p.created.len(),
            p.count(PipelineKind::Graphics),
            p.count(PipelineKind::Compute),
            p.count(PipelineKind::RayTracing),
            p.total_ms,
            p.compile_ms(),
            p.create_ms()
        );
        if let Some(w) = p.warm_up {
            let _ = writeln!(
                s,
                "warm-up: every module compiled, then every pipeline created, in parallel on {} threads",
                w.threads
            );
        }
        for c in &p.created {
            let _ = writeln!(
                s,
                "  {:<40} {:<11} compile {:>7.2} ms  create {:>7.2} ms",
                c.name,
                format!("{:?}", c.kind).to_lowercase(),
                c.compile_ms,
                c.create_ms
            );
        }
        for k in &p.skipped {
            let first = k.reason.lines().next().unwrap_or("");
            let _ = writeln!(s, "  {:<40} skipped: {first}", k.name);
        }
        for f in &p.failed {
            let first = f.reason.lines().next().unwrap_or("");
            let _ = writeln!(s, "  {:<40} FAILED: {first}", f.name);
        }
        let _ = writeln!(
            s,
            "frame: {}x{} rendered in {:.1} ms, {} distinct colors -> {}",
            self.width,
            self.height,
            self.frame_ms,
            self.distinct_colors,
            self.output.display()
        );
        let _ = writeln!(s, "validation messages: {}", self.validation_messages.len());
        for m in &self.validation_messages {
            let _ = writeln!(s, "  {m}");
        }
        if !self.driver_warnings.is_empty() {
            let _ = writeln!(
                s,
                "known driver warnings (not validation errors): {} x Mesa's \"Invariant decoration on a struct \
                 member\" (invariant gl_Position; lavapipe ignores the qualifier)",
                self.driver_warnings.len()
            );
        }
        s
    }
}

/// Validation unless `SHADER_INFO_VALIDATION=0`.
fn validation_wanted(notes: &mut Vec<String>) -> bool {
    let wanted = !matches!(
        std::env::var("SHADER_INFO_VALIDATION").as_deref(),
        Ok("0") | Ok("false")
    );
    if !wanted {
        notes.push("validation off (SHADER_INFO_VALIDATION=0)".into());
    }
    wanted
}

/// Validation unless `SHADER_INFO_VALIDATION=0`; without the layer, none (with a note saying so).
fn create_context(notes: &mut Vec<String>) -> Result<VkContext, RenderError> {
    let wanted = validation_wanted(notes);
    let opts = ContextOptions {
        validation: wanted,
        app_name: "shader-builder render".into(),
        ..ContextOptions::default()
    };
    match VkContext::new(&opts) {
        Ok(ctx) => Ok(ctx),
        Err(VkError::NoValidationLayer) => {
            notes.push(
                "the Khronos validation layer is not installed (apt-get install vulkan-validationlayers): \
                 running without validation, so no validation messages can be counted"
                    .into(),
            );
            VkContext::new(&ContextOptions {
                validation: false,
                ..opts
            })
            .map_err(classify)
        }
        Err(e) => Err(classify(e)),
    }
}

/// Loads the device's pipeline cache from `dir` (when given), saying how it went; returns its file.
fn load_pipeline_cache(
    ctx: &VkContext,
    dir: Option<&Path>,
    notes: &mut Vec<String>,
) -> Option<PathBuf> {
    use gpu::vk::pipeline_cache::{Loaded, load, path_in};
    let file = path_in(ctx, dir?);
    notes.push(match load(ctx, &file) {
        Loaded::Warm { bytes } => format!(
            "pipeline cache: warm, {bytes} bytes from {}",
            file.display()
        ),
        Loaded::Missing => format!(
            "pipeline cache: cold, {} does not exist yet",
            file.display()
        ),
        Loaded::Refused(why) => format!("pipeline cache: cold, refused {why}"),
    });
    Some(file)
}

/// Saves the device's pipeline cache to `file` (when given), saying so.
fn save_pipeline_cache(ctx: &VkContext, file: Option<&Path>, notes: &mut Vec<String>) {
    // A cache that cannot be kept costs the next start its warm pipelines, not this run its frame.
    if let Some(file) = file {
        notes.push(match gpu::vk::pipeline_cache::save(ctx, file) {
            Ok(saved) => format!("pipeline cache: saved {saved} bytes to {}", file.display()),
            Err(e) => unsaved(&e),
        });
    }
}

/// The note of a pipeline cache that could not be saved.
fn unsaved(e: &dyn std::fmt::Display) -> String {
    format!(
        "warning: the pipeline cache was not saved ({e}); the next start creates its pipelines cold — give \
         --pipeline-cache a folder this user can write"
    )
}

/// What [`warm_up_pipelines`] did.
pub struct WarmedUp {
    pub device: String,
    pub pipelines: LibraryPipelines,
    pub notes: Vec<String>,
    /// Validation-layer messages (the known driver warning left out).
    pub validation_messages: Vec<String>,
}

/// `shader-builder build --pipelines`: the library's pipelines created up front on the Vulkan device, in
/// parallel, into the pipeline cache (`opts.pipeline_cache`), as a renderer does before its first frame; no frame
/// is drawn.
///
/// ```no_run
/// use shaders::demo::run::{warm_up_pipelines, GraphicsOptions};
/// let opts = GraphicsOptions { pipeline_cache: Some("target/pipelines".into()), ..GraphicsOptions::default() };
/// let w = warm_up_pipelines(shader_info::Registry::global(), &shaders::glsl_root(), &opts)?;
/// println!("{} pipelines in {:.1} ms on {}", w.pipelines.created.len(), w.pipelines.total_ms, w.device);
/// # Ok::<(), shaders::demo::run::RenderError>(())
/// ```
pub fn warm_up_pipelines(
    registry: &Registry,
    root: &Path,
    opts: &GraphicsOptions,
) -> Result<WarmedUp, RenderError> {
    let mut notes = Vec::new();
    let ctx = create_context(&mut notes)?;
    let cache_file = load_pipeline_cache(&ctx, opts.pipeline_cache.as_deref(), &mut notes);
    let mut lib = ShaderLibrary::new(&ctx, registry.clone(), library_options(root, opts))
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    let pipelines = create_all(&mut lib);
    notes.extend(disk_cache_note(opts));
    save_pipeline_cache(&ctx, cache_file.as_deref(), &mut notes);
    drop(lib);
    Ok(WarmedUp {
        device: ctx.device_name().to_string(),
        pipelines,
        notes,
        validation_messages: ctx
            .validation_messages()
            .into_iter()
            .filter(|m| !is_known_driver_warning(m))
            .map(|m| m.to_string())
            .collect(),
    })
}

fn classify(e: VkError) -> RenderError {
    match e {
        VkError::NoVulkan { .. } | VkError::NoSuitableDevice { .. } => {
            RenderError::NoVulkan(e.to_string())
        }
        e => RenderError::Failed(e.to_string()),
    }
}

/// Creates the device, a pipeline for every info of `registry` (sources under `root`), renders the demo frame at
/// `size` through `backend` and writes it to `out` as PNG. With `pipeline_cache` (a directory), the device's
/// pipeline cache is loaded from it before the pipelines are created and saved to it afterwards.
///
/// ```no_run
/// use shaders::demo::run::{render_to_png, GraphicsOptions};
/// let opts = GraphicsOptions { size: (640, 360), ..GraphicsOptions::default() };
/// let report = render_to_png(shader_info::Registry::global(), &shaders::glsl_root(), "out/f.png".as_ref(), &opts)?;
/// println!("{}", report.to_text());
/// # Ok::<(), shaders::demo::run::RenderError>(())
/// ```
pub fn render_to_png(
    registry: &Registry,
    root: &Path,
    out: &Path,
    opts: &GraphicsOptions,
) -> Result<RenderReport, RenderError> {
    match opts.backend {
        Backend::Vulkan => render_vulkan(registry, root, out, opts),
        Backend::Wgpu => render_wgpu(registry, root, out, opts),
    }
}

/// How [`render_to_png`] renders.
#[derive(Clone, Debug)]
pub struct GraphicsOptions {
    /// Frame size in pixels.
    pub size: (u32, u32),
    pub backend: Backend,
    /// A directory to load the device's pipeline cache from and save it to.
    pub pipeline_cache: Option<PathBuf>,
    /// The library's compiler: include search, change detection and the persistent shader cache.
    pub compiler: CompilerOptions,
}

impl Default for GraphicsOptions {
    fn default() -> Self {
        GraphicsOptions {
            size: (1280, 720),
            backend: Backend::Vulkan,
            pipeline_cache: None,
            compiler: CompilerOptions::default(),
        }
    }
}

/// The library options of a render: sources under `root`, the render's compiler options.
fn library_options(root: &Path, opts: &GraphicsOptions) -> LibraryOptions {
    LibraryOptions {
        compiler: opts.compiler.clone(),
        ..LibraryOptions::new(root)
    }
}

/// A note on the persistent shader cache, when the render used one.
fn disk_cache_note(opts: &GraphicsOptions) -> Option<String> {
    let cache = opts.compiler.disk_cache.as_ref()?;
    let s = cache.stats();
    Some(format!(
        "shader cache: {} hits ({} remote), {} misses, {} written, {} damaged entries refused ({})",
        s.hits,
        s.remote_hits,
        s.misses,
        s.writes,
        s.corrupt,
        cache.dir().display()
    ))
}

/// The parts of a report every backend fills the same way.
struct Rendered {
    device: String,
    validation: bool,
    notes: Vec<String>,
    pipelines: LibraryPipelines,
    context_ms: f64,
    frame_ms: f64,
    messages: (Vec<String>, Vec<String>),
    frame: Frame,
}

/// The report of a frame, which is written to `out` when the render succeeded. A frame with failed pipelines or
/// validation messages goes beside it (`frame.failed.png`), and `out` is removed: a later `compare` never takes
/// it for a good one.
fn report(backend: Backend, r: Rendered, out: &Path) -> Result<RenderReport, RenderError> {
    let report = RenderReport {
        backend,
        device: r.device,
        validation: r.validation,
        notes: r.notes,
        pipelines: r.pipelines,
        context_ms: r.context_ms,
        frame_ms: r.frame_ms,
        validation_messages: r.messages.1,
        driver_warnings: r.messages.0,
        width: r.frame.width,
        height: r.frame.height,
        output: out.to_path_buf(),
        distinct_colors: r.frame.distinct_colors(),
    };
    if report.success() {
        r.frame.write_png(out).map_err(RenderError::Failed)?;
    } else {
        let _ = std::fs::remove_file(out);
        r.frame
            .write_png(out.with_extension("failed.png"))
            .map_err(RenderError::Failed)?;
    }
    Ok(report)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn render_vulkan(
    registry: &Registry,
    root: &Path,
    out: &Path,
    opts: &GraphicsOptions,
) -> Result<RenderReport, RenderError> {
    let (size, pipeline_cache) = (opts.size, opts.pipeline_cache.as_deref());
    let mut notes = Vec::new();
    let t = Instant::now();
    let ctx = create_context(&mut notes)?;
    let context_ms = ms(t);
    let cache_file = load_pipeline_cache(&ctx, pipeline_cache, &mut notes);
    let mut lib = ShaderLibrary::new(&ctx, registry.clone(), library_options(root, opts))
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    notes.push(
        match lib.subpass_mode() {
            SubpassMode::LocalRead => {
                "subpass inputs are input attachments read by dynamic-rendering local read"
            }
            SubpassMode::Emulated => {
                "subpass inputs are emulated (no dynamic-rendering local read on this device)"
            }
        }
        .into(),
    );
    let pipelines = create_all(&mut lib);
    notes.extend(disk_cache_note(opts));
    let t = Instant::now();
    let frame = render_frame(&mut lib, size.0, size.1)
        .map_err(|e| RenderError::Failed(format!("rendering the demo frame failed: {e}")))?;
    let frame_ms = ms(t);
    save_pipeline_cache(&ctx, cache_file.as_deref(), &mut notes);
    // Pipelines are destroyed before the messages are read, so their destruction is validated too.
    drop(lib);
    let (driver, validation): (Vec<_>, Vec<_>) = ctx
        .validation_messages()
        .into_iter()
        .partition(is_known_driver_warning);
    let strings = |v: Vec<gpu::vk::ValidationMessage>| v.iter().map(|m| m.to_string()).collect();
    let rendered = Rendered {
        device: ctx.device_name().to_string(),
        validation: ctx.validation_enabled(),
        notes,
        pipelines,
        context_ms,
        frame_ms,
        messages: (strings(driver), strings(validation)),
        frame,
    };
    report(Backend::Vulkan, rendered, out)
}

fn render_wgpu(
    registry: &Registry,
    root: &Path,
    out: &Path,
    opts: &GraphicsOptions,
) -> Result<RenderReport, RenderError> {
    let (size, pipeline_cache) = (opts.size, opts.pipeline_cache.as_deref());
    let mut notes = Vec::new();
    let validation = validation_wanted(&mut notes);
    if validation && !gpu::wgpu::messages::capture() {
        notes.push(
            "another logger receives wgpu's messages: validation messages cannot be counted".into(),
        );
    }
    let t = Instant::now();
    let ctx = WgpuContext::new(&WgpuContextOptions {
        validation,
        // wgpu checks the adapter and driver itself: one file for the backend is enough.
        pipeline_cache: pipeline_cache.map(|dir| dir.join("wgpu-pipelines.bin")),
        ..WgpuContextOptions::default()
    })
    .map_err(|e| RenderError::NoVulkan(e.to_string()))?;
    let context_ms = ms(t);
    if pipeline_cache.is_some() {
        notes.push(format!("pipeline cache: {}", ctx.pipeline_cache_status()));
    }
    let mut lib = WgpuLibrary::new(&ctx, registry.clone(), library_options(root, opts))
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    let pipelines = create_all_wgpu(&mut lib);
    notes.extend(disk_cache_note(opts));
    let t = Instant::now();
    let frame = super::wgpu::render_frame(&mut lib, size.0, size.1).map_err(|e| {
        RenderError::Failed(format!("rendering the demo frame through wgpu failed: {e}"))
    })?;
    let frame_ms = ms(t);
    if pipeline_cache.is_some() {
        match ctx.save_pipeline_cache() {
            Ok(Some(saved)) => notes.push(format!("pipeline cache: saved {saved} bytes")),
            Ok(None) => {}
            Err(e) => notes.push(unsaved(&e)),
        }
    }
    drop(lib);
    ctx.wait_idle();
    let mut messages = gpu::wgpu::messages::captured();
    messages.extend(ctx.uncaptured_errors());
    let rendered = Rendered {
        device: ctx.device_name(),
        validation,
        notes,
        pipelines,
        context_ms,
        frame_ms,
        messages: messages
            .into_iter()
            .partition(|m| is_known_driver_warning_text(m)),
        frame,
    };
    report(Backend::Wgpu, rendered, out)
}
