//! `shader-builder render` as a function: device, every pipeline of the library, the demo frame, the PNG, and a
//! report of it all (text or JSON).

use super::render_frame;
use crate::pipelines::{LibraryPipelines, PipelineKind, create_all, is_known_driver_warning};
use gpu::vk::{ContextOptions, LibraryOptions, ShaderLibrary, VkContext, VkError};
use shader_info::Registry;
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

/// What `render` did.
pub struct RenderReport {
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
            "device: {} (created in {:.1} ms, validation {})",
            self.device,
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
            let _ = writeln!(s, "  {:<40} skipped: {}", k.name, k.reason);
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

/// Validation unless `SHADER_INFO_VALIDATION=0`; without the layer, none (with a note saying so).
fn create_context(notes: &mut Vec<String>) -> Result<VkContext, RenderError> {
    let wanted = !matches!(
        std::env::var("SHADER_INFO_VALIDATION").as_deref(),
        Ok("0") | Ok("false")
    );
    let opts = ContextOptions {
        validation: wanted,
        app_name: "shader-builder render".into(),
        ..ContextOptions::default()
    };
    match VkContext::new(&opts) {
        Ok(ctx) => {
            if !wanted {
                notes.push("validation off (SHADER_INFO_VALIDATION=0)".into());
            }
            Ok(ctx)
        }
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

fn classify(e: VkError) -> RenderError {
    match e {
        VkError::NoVulkan { .. } | VkError::NoSuitableDevice { .. } => {
            RenderError::NoVulkan(e.to_string())
        }
        e => RenderError::Failed(e.to_string()),
    }
}

/// Creates the device, a pipeline for every info of `registry` (sources under `root`), renders the demo frame at
/// `size` and writes it to `out` as PNG.
pub fn render_to_png(
    registry: &Registry,
    root: &Path,
    out: &Path,
    size: (u32, u32),
) -> Result<RenderReport, RenderError> {
    let mut notes = Vec::new();
    let t = Instant::now();
    let ctx = create_context(&mut notes)?;
    let context_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut lib = ShaderLibrary::new(&ctx, registry.clone(), LibraryOptions::new(root))
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    let pipelines = create_all(&mut lib);
    let t = Instant::now();
    let frame = render_frame(&mut lib, size.0, size.1)
        .map_err(|e| RenderError::Failed(format!("rendering the demo frame failed: {e}")))?;
    let frame_ms = t.elapsed().as_secs_f64() * 1e3;
    frame.write_png(out).map_err(RenderError::Failed)?;
    // Pipelines are destroyed before the messages are read, so their destruction is validated too.
    drop(lib);
    let (driver_warnings, validation_messages): (Vec<_>, Vec<_>) = ctx
        .validation_messages()
        .into_iter()
        .partition(is_known_driver_warning);
    Ok(RenderReport {
        device: ctx.device_name().to_string(),
        validation: ctx.validation_enabled(),
        notes,
        pipelines,
        context_ms,
        frame_ms,
        validation_messages: validation_messages.iter().map(|m| m.to_string()).collect(),
        driver_warnings: driver_warnings.iter().map(|m| m.to_string()).collect(),
        width: frame.width,
        height: frame.height,
        output: out.to_path_buf(),
        distinct_colors: frame.distinct_colors(),
    })
}
