//! Helpers for tests that need a device: create one with validation on, skip cleanly where Vulkan is missing
//! (unless `SHADER_INFO_REQUIRE_VULKAN=1`, which CI sets), assert that validation stayed silent, and draw once
//! offscreen to read the pixels back.

use super::{Buffer, ContextOptions, GraphicsPipeline, Image2D, VkContext, VkError, raw};

/// The environment variable that turns a missing Vulkan driver from a skip into a failure.
pub const REQUIRE_VULKAN_ENV: &str = "SHADER_INFO_REQUIRE_VULKAN";

/// A context with validation on, or `None` (after printing why) when this machine has no Vulkan.
///
/// # Panics
/// When Vulkan is missing and `SHADER_INFO_REQUIRE_VULKAN=1`, or on any other context error.
///
/// ```no_run
/// let Some(ctx) = shader_info_gpu::vk::testing::test_context() else { return };
/// // … use ctx …
/// shader_info_gpu::vk::testing::assert_no_validation_messages(&ctx);
/// ```
pub fn test_context() -> Option<VkContext> {
    let opts = ContextOptions {
        validation: true,
        ..ContextOptions::default()
    };
    match VkContext::new(&opts) {
        Ok(ctx) => Some(ctx),
        Err(e @ (VkError::NoVulkan { .. } | VkError::NoValidationLayer)) => {
            if std::env::var(REQUIRE_VULKAN_ENV).as_deref() == Ok("1") {
                panic!("{REQUIRE_VULKAN_ENV}=1 but: {e}");
            }
            eprintln!("skipping Vulkan test: {e}");
            None
        }
        Err(e) => panic!("cannot create a Vulkan context: {e}"),
    }
}

/// Panics with every message when the validation layer reported a warning or an error.
pub fn assert_no_validation_messages(ctx: &VkContext) {
    assert_no_validation_messages_but(ctx, |_| false);
}

/// [`assert_no_validation_messages`], but for the messages `known` names (a layer's own bug, a driver's known
/// warning); every other message still panics.
pub fn assert_no_validation_messages_but(
    ctx: &VkContext,
    known: impl Fn(&super::ValidationMessage) -> bool,
) {
    let msgs: Vec<String> = ctx
        .validation_messages()
        .into_iter()
        .filter(|m| !known(m))
        .map(|m| m.to_string())
        .collect();
    if !msgs.is_empty() {
        panic!(
            "{} validation warning(s)/error(s):\n{}",
            msgs.len(),
            msgs.join("\n")
        );
    }
}

/// Whether `m` is one of two messages the 1.3.239 layer (Debian's, in CI, and the one carried to the H100) raises
/// for pipeline-library parts and links: its check of VUID 06053/06054 treats a fragment-shader part as if it had
/// the fragment output subset and the reverse, and reports the pointer missing even when it is passed (fixed
/// upstream in Vulkan-ValidationLayers #5102: "can be found with both gpl and dynamic rendering enabled").
pub fn is_pipeline_library_layer_bug(m: &super::ValidationMessage) -> bool {
    m.id_name == "VUID-VkGraphicsPipelineCreateInfo-renderPass-06053"
        || m.id_name == "VUID-VkGraphicsPipelineCreateInfo-renderPass-06054"
}

/// Compiles GLSL with the `glslc` command (Vulkan 1.3, SPIR-V 1.5): a compiler independent of the crate's own,
/// for tests of the lower layers (modules, layouts, pipelines) that should not depend on it.
///
/// ```no_run
/// let spirv = shader_info_gpu::vk::testing::glslc("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
///                                     shader_info::Stage::Compute).unwrap();
/// assert_eq!(spirv[0], shader_info_gpu::vk::SPIRV_MAGIC);
/// ```
pub fn glslc(source: &str, stage: shader_info::Stage) -> Result<Vec<u32>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("glslc")
        .args([
            &format!("-fshader-stage={}", stage.short_name()),
            "--target-env=vulkan1.3",
            "--target-spv=spv1.5",
            "-",
            "-o",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run glslc (apt-get install glslc): {e}"))?;
    // A write that fails (glslc exited early) still waits for the process: its stderr says why, and it is reaped.
    let written = child
        .stdin
        .take()
        .map_or(Ok(()), |mut stdin| stdin.write_all(source.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() || written.is_err() {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        return Err(match written {
            Err(e) if stderr.trim().is_empty() => format!("cannot write to glslc: {e}"),
            _ => stderr,
        });
    }
    super::spirv_from_bytes(&out.stdout).map_err(|e| e.to_string())
}

/// Compiles HLSL with glslang's HLSL front end (`glslangValidator -D -V`) for Vulkan 1.1 (for 1.3, glslang 12
/// writes `BufferBlock`, invalid in SPIR-V 1.6): registers become bindings of the same number in the set of
/// their space. For tests that run a translated module on the device.
///
/// ```no_run
/// let spirv = shader_info_gpu::vk::testing::glslang_hlsl("[numthreads(1, 1, 1)]\nvoid main() {}\n",
///                                            shader_info::Stage::Compute, "main").unwrap();
/// assert_eq!(spirv[0], shader_info_gpu::vk::SPIRV_MAGIC);
/// ```
pub fn glslang_hlsl(
    source: &str,
    stage: shader_info::Stage,
    entry: &str,
) -> Result<Vec<u32>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (src, spv) = (
        dir.path().join("module.hlsl"),
        dir.path().join("module.spv"),
    );
    std::fs::write(&src, source).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("glslangValidator")
        .args([
            "-D",
            "-V",
            "--target-env",
            "vulkan1.1",
            "-S",
            stage.short_name(),
            "-e",
            entry,
            "-o",
        ])
        .arg(&spv)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run glslangValidator (apt-get install glslang-tools): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let bytes = std::fs::read(&spv).map_err(|e| e.to_string())?;
    super::spirv_from_bytes(&bytes).map_err(|e| e.to_string())
}

/// One draw for [`draw_offscreen`]: `vertex_count` vertices, one instance, into a fresh `size`×`size` target.
#[derive(Clone, Copy)]
pub struct OffscreenDraw<'a> {
    /// Width and height of the square target, in pixels.
    pub size: u32,
    /// The clear color of the target, as floats (converted to the target format by the clear).
    pub clear: [f32; 4],
    /// Bound at vertex-buffer bindings 0, 1, … in order, each at offset 0; none when empty.
    pub vertex_buffers: &'a [&'a Buffer],
    /// `(set index, set)` pairs, each bound at its index of the pipeline's layout.
    pub sets: &'a [(u32, raw::DescriptorSet)],
    /// Push-constant bytes written at offset 0 for the stages of the layout's push-constant range; none when empty.
    pub push: &'a [u8],
    /// The number of vertices drawn.
    pub vertex_count: u32,
}

/// Records `draw` with `pipeline` (dynamic rendering, viewport and scissor over the whole target) into a fresh
/// image of the pipeline's single color format, cleared to `draw.clear`, waits, and returns the pixels: 4 bytes
/// each, row-major, `size * size * 4` bytes (read them with [`pixel`]).
///
/// Resources the draw reads (textures in their layouts, buffer contents) must be ready before the call.
///
/// # Panics
/// This is test support: it panics on any Vulkan error, when the pipeline has not exactly one color format, when
/// that format is not 8-bit RGBA/BGRA (UNORM or sRGB), or when `draw.push` is not empty but the layout has no
/// push constants.
///
/// ```no_run
/// # fn f(ctx: &shader_info_gpu::vk::VkContext, p: &shader_info_gpu::vk::GraphicsPipeline, vb: &shader_info_gpu::vk::Buffer) {
/// use shader_info_gpu::vk::testing::{OffscreenDraw, draw_offscreen, pixel};
/// let draw = OffscreenDraw { size: 32, clear: [0.0, 0.0, 0.0, 1.0], vertex_buffers: &[vb], sets: &[],
///                            push: &[], vertex_count: 6 };
/// let pixels = draw_offscreen(ctx, p, &draw);
/// println!("{:?}", pixel(&pixels, 32, 16, 16));
/// # }
/// ```
pub fn draw_offscreen(
    ctx: &VkContext,
    pipeline: &GraphicsPipeline,
    draw: &OffscreenDraw,
) -> Vec<u8> {
    let &[format] = pipeline.color_formats() else {
        panic!(
            "draw_offscreen needs a pipeline with one color attachment, not {:?}",
            pipeline.color_formats()
        );
    };
    assert!(
        matches!(
            format,
            raw::Format::R8G8B8A8_UNORM
                | raw::Format::R8G8B8A8_SRGB
                | raw::Format::B8G8R8A8_UNORM
                | raw::Format::B8G8R8A8_SRGB
        ),
        "draw_offscreen reads back 4 bytes per pixel, not {format:?}"
    );
    let push_stages = (!draw.push.is_empty()).then(|| {
        pipeline
            .layout()
            .desc()
            .push_constants
            .expect("push constants given but the pipeline layout has none")
            .stages
    });
    let size = draw.size;
    let target = Image2D::new(
        ctx,
        size,
        size,
        format,
        raw::ImageUsageFlags::COLOR_ATTACHMENT | raw::ImageUsageFlags::TRANSFER_SRC,
    )
    .unwrap();
    let readback = Buffer::new(
        ctx,
        u64::from(size) * u64::from(size) * 4,
        raw::BufferUsageFlags::TRANSFER_DST,
    )
    .unwrap();
    let vertex_buffers: Vec<raw::Buffer> = draw.vertex_buffers.iter().map(|b| b.handle()).collect();
    let offsets = vec![0u64; vertex_buffers.len()];
    let mut pushed = Ok(());
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording on `ctx`'s device; the pipeline, its layout, the target, the readback buffer,
        // the vertex buffers and the descriptor sets (borrowed by `draw`) all live until the wait returns; the
        // target goes UNDEFINED → COLOR_ATTACHMENT_OPTIMAL → TRANSFER_SRC_OPTIMAL before the copy, and the readback
        // buffer holds `size * size * 4` bytes, one 4-byte texel per pixel (checked above).
        unsafe {
            target.transition(
                cmd,
                raw::ImageLayout::UNDEFINED,
                raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                raw::PipelineStageFlags2::NONE,
                raw::AccessFlags2::NONE,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            );
            begin_offscreen_rendering(
                d,
                cmd,
                &target,
                raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                draw.clear,
            );
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, pipeline.handle());
            for &(index, set) in draw.sets {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    raw::PipelineBindPoint::GRAPHICS,
                    pipeline.layout().handle(),
                    index,
                    &[set],
                    &[],
                );
            }
            if !vertex_buffers.is_empty() {
                d.cmd_bind_vertex_buffers(cmd, 0, &vertex_buffers, &offsets);
            }
            if push_stages.is_some() {
                pushed = pipeline.layout().push(cmd, draw.push);
            }
            d.cmd_draw(cmd, draw.vertex_count, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            target.transition(
                cmd,
                raw::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                raw::ImageLayout::TRANSFER_SRC_OPTIMAL,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_READ,
            );
            target.copy_to_buffer(cmd, &readback);
        }
    })
    .unwrap();
    pushed.expect("push constants");
    // SAFETY: `submit_and_wait` returned: the device finished the command buffer that pushed.
    unsafe { pipeline.layout().recycle_pushed() }.unwrap();
    readback.read()
}

/// Begins a dynamic rendering into `target`, its one color attachment, in `layout`, cleared to `clear`, and sets
/// the viewport and scissor over the whole target: how every offscreen test draw starts.
///
/// # Safety
/// `cmd` must be recording on `target`'s device, outside any rendering, with `target` in `layout` (a layout a
/// color attachment may be in); end the rendering with `cmd_end_rendering`.
pub unsafe fn begin_offscreen_rendering(
    d: &ash::Device,
    cmd: raw::CommandBuffer,
    target: &Image2D,
    layout: raw::ImageLayout,
    clear: [f32; 4],
) {
    let extent = target.extent();
    let area = raw::Rect2D {
        offset: raw::Offset2D::default(),
        extent,
    };
    let color = [raw::RenderingAttachmentInfo::default()
        .image_view(target.view())
        .image_layout(layout)
        .load_op(raw::AttachmentLoadOp::CLEAR)
        .store_op(raw::AttachmentStoreOp::STORE)
        .clear_value(raw::ClearValue {
            color: raw::ClearColorValue { float32: clear },
        })];
    // SAFETY: the caller guarantees `cmd` is recording outside a rendering and `target` is in `layout`; the
    // rendering info borrows locals for the call.
    unsafe {
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&color),
        );
        d.cmd_set_viewport(
            cmd,
            0,
            &[raw::Viewport {
                width: extent.width as f32,
                height: extent.height as f32,
                max_depth: 1.0,
                ..Default::default()
            }],
        );
        d.cmd_set_scissor(cmd, 0, &[area]);
    }
}

/// The 4 bytes of pixel (`x`, `y`) in tightly packed row-major pixels `width` wide, as [`draw_offscreen`] returns.
///
/// # Panics
/// When the pixel lies past the end of `pixels`.
pub fn pixel(pixels: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y as usize) * (width as usize) + x as usize) * 4;
    pixels[i..i + 4].try_into().unwrap()
}
