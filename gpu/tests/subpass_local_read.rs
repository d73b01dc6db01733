//! Subpass inputs by dynamic-rendering local read (`VK_KHR_dynamic_rendering_local_read`): the same declaration
//! as the emulation, its binding turned into an input attachment read with `subpassLoad` inside the rendering that
//! writes the attachment. Generation, the plan and the compiled module's check run everywhere; the draw runs where
//! the device has the extension, and elsewhere the library picks the emulation and a forced local read is refused
//! before the driver sees it.

mod vk_support;

use shader_info::{
    Code, DescriptorKind, Flavor, GenerateOptions, MemoryLoader, Registry, ShaderCreateInfo, Stage,
    StageMask, SubpassMode, Type, generate, render_all,
};
use shader_info_gpu::compiler::{Compiler, Profile};
use shader_info_gpu::flow::{Flow, StageCompiler};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::testing::{
    assert_no_validation_messages, begin_offscreen_rendering, test_context,
};
use shader_info_gpu::vk::{
    Buffer, ContextOptions, DescriptorPool, GraphicsOptions, GraphicsPipeline, Image2D,
    ShaderLibrary, VkContext, VkError, raw,
};
use vk_support::FULL_QUAD as QUAD;

const SIZE: u32 = 16;
const VERT: &str = "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n";
const GRADIENT: &str =
    "void main() {\n  frag_color = vec4(gl_FragCoord.xy / 16.0, 0.25, 1.0);\n}\n";
const INVERT: &str = "void main() {\n  vec3 c = previous;\n  frag_color = vec4(1.0 - c, 1.0);\n}\n";

/// A gradient, and a pass that inverts the attachment it draws into, reading it as a subpass input.
fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_gradient")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("p.vert.glsl")
            .fragment_source("gradient.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_invert_in_place")
            .vertex_in(0, Type::Vec2, "pos")
            .subpass_in(0, Type::Vec3, "previous")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("p.vert.glsl")
            .fragment_source("invert.frag.glsl"),
    );
    reg
}

fn files() -> [(&'static str, &'static str); 3] {
    [
        ("p.vert.glsl", VERT),
        ("gradient.frag.glsl", GRADIENT),
        ("invert.frag.glsl", INVERT),
    ]
}

#[test]
fn local_read_declares_an_input_attachment_and_the_check_holds_the_module_to_its_index() {
    let reg = registry();
    let loader = files()
        .into_iter()
        .fold(MemoryLoader::default(), |l, (n, t)| l.with(n, t));
    let dir = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let declared = flow.validated("test_invert_in_place").unwrap();
    let info = declared.with_subpass_mode(SubpassMode::LocalRead).unwrap();

    let frag = flow.generate(&info, Stage::Fragment).unwrap();
    assert!(
        frag.source.contains(
            "layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput previous_input;"
        ),
        "{}",
        frag.source
    );
    assert!(
        frag.source
            .contains("#define previous subpassLoad(previous_input).xyz"),
        "{}",
        frag.source
    );
    // GLSL has input attachments in fragment stages only.
    let vert = flow.generate(&info, Stage::Vertex).unwrap();
    assert!(!vert.source.contains("previous_input"), "{}", vert.source);

    // The plan: the same binding, as an input attachment of the fragment stage only.
    let plan = flow.plan(&info);
    assert_eq!(plan.input_attachments(), [("previous_input", 0)]);
    let b = &plan.sets[0].bindings[0];
    assert_eq!((b.binding, b.kind), (0, DescriptorKind::InputAttachment));
    assert_eq!(b.stages, StageMask::of(&[Stage::Fragment]));
    let emulated = flow.plan(&declared);
    assert_eq!(emulated.sets[0].bindings[0].binding, 0);
    assert_eq!(
        emulated.sets[0].bindings[0].kind,
        DescriptorKind::CombinedImageSampler
    );
    assert!(emulated.input_attachments().is_empty());

    // Compiled and checked: reflection reads the input attachment and its index back.
    let checked = flow.compile(&info, Stage::Fragment).unwrap();
    let d = &checked.reflection.descriptors[0];
    assert_eq!(
        (d.kind, d.input_attachment_index),
        (Some(DescriptorKind::InputAttachment), Some(0))
    );

    // A module that reads another attachment than declared is caught by the check.
    let mut tampered = frag.clone();
    tampered.source = tampered
        .source
        .replace("input_attachment_index = 0", "input_attachment_index = 3");
    let module = compiler.compile_stage(&tampered, Profile::Release).unwrap();
    let errors = flow.check(&info, &tampered, &module.spirv).unwrap_err();
    let text = render_all(&errors);
    assert!(
        errors.iter().any(|d| d.code == Code::ReflectionMismatch)
            && text.contains("input attachment index"),
        "{text}"
    );

    // The cross-language targets translate the emulated form; local read is Vulkan's alone.
    let portable = generate(
        &info,
        Stage::Fragment,
        &GenerateOptions::new(&loader, &reg).flavor(Flavor::Portable),
    )
    .unwrap_err();
    let text = render_all(&portable);
    assert!(
        portable[0].code == Code::Unsupported && text.contains("SubpassMode::Emulated"),
        "{text}"
    );
}

/// Draws the gradient and, when `invert`, the inverting pass after a by-region barrier, both in one rendering
/// whose attachment is in `RENDERING_LOCAL_READ_KHR`; returns the pixels. The target is in that layout before the
/// call and after it (the copy out goes through `TRANSFER_SRC_OPTIMAL` and back), as a renderer keeps an
/// attachment it reads locally every frame.
fn draw_in_one_rendering(
    ctx: &VkContext,
    gradient: &GraphicsPipeline,
    invert: Option<(&GraphicsPipeline, raw::DescriptorSet)>,
    target: &Image2D,
    vertices: &Buffer,
) -> Vec<u8> {
    let readback = Buffer::new(
        ctx,
        u64::from(SIZE * SIZE * 4),
        raw::BufferUsageFlags::TRANSFER_DST,
    )
    .unwrap();
    let local = raw::ImageLayout::RENDERING_LOCAL_READ_KHR;
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording on `ctx`'s device, which has local read (the caller checked); the pipelines,
        // the set, the target, the vertex and readback buffers live until the wait returns; the target is a color
        // attachment in RENDERING_LOCAL_READ_KHR for the whole rendering, then TRANSFER_SRC_OPTIMAL for the copy.
        unsafe {
            begin_offscreen_rendering(d, cmd, target, local, [0.0, 0.0, 0.0, 1.0]);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.handle()], &[0]);
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, gradient.handle());
            d.cmd_draw(cmd, 6, 1, 0, 0);
            if let Some((p, set)) = invert {
                target.local_read_barrier(cmd);
                d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, p.handle());
                d.cmd_bind_descriptor_sets(
                    cmd,
                    raw::PipelineBindPoint::GRAPHICS,
                    p.layout().handle(),
                    0,
                    &[set],
                    &[],
                );
                d.cmd_draw(cmd, 6, 1, 0, 0);
            }
            d.cmd_end_rendering(cmd);
            target.transition(
                cmd,
                local,
                raw::ImageLayout::TRANSFER_SRC_OPTIMAL,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_READ,
            );
            target.copy_to_buffer(cmd, &readback);
            target.transition(
                cmd,
                raw::ImageLayout::TRANSFER_SRC_OPTIMAL,
                local,
                raw::PipelineStageFlags2::COPY,
                raw::AccessFlags2::TRANSFER_READ,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            );
        }
    })
    .unwrap();
    readback.read()
}

#[test]
fn the_library_reads_subpass_inputs_in_the_devices_mode_and_local_read_draws_in_one_rendering() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files() {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    assert_eq!(lib.subpass_mode(), ctx.subpass_mode());
    drop(lib);
    if ctx.subpass_mode() == SubpassMode::LocalRead {
        invert_in_place(&ctx, dir.path());
        assert_no_validation_messages(&ctx);
        return;
    }

    // Forced on a device without it: refused before the driver sees it, naming the input, the device and the
    // way out.
    let mut lib = ShaderLibrary::new(&ctx, registry(), local_read(dir.path())).unwrap();
    assert_eq!(lib.subpass_mode(), SubpassMode::LocalRead);
    let plan = lib.plan("test_invert_in_place").unwrap();
    assert_eq!(plan.input_attachments(), [("previous_input", 0)]);
    let Err(VkError::Diagnostics(d)) =
        lib.graphics_pipeline("test_invert_in_place", &GraphicsOptions::default())
    else {
        panic!(
            "{} has no local read, yet the pipeline was made",
            ctx.device_name()
        );
    };
    let text = render_all(&d);
    assert!(
        d[0].code == Code::Unsupported
            && text.contains("subpass input `previous_input`")
            && text.contains("dynamic-rendering local read")
            && text.contains(ctx.device_name())
            && text.contains("SubpassMode::Emulated"),
        "{text}"
    );
    drop(lib);
    assert_no_validation_messages(&ctx);

    // A validation layer older than the extension leaves it off in a validated context; where the device has
    // it, the draw still runs, unvalidated (the H100 with Debian 12's layer 1.3.239).
    let unvalidated = VkContext::new(&ContextOptions {
        validation: false,
        ..ContextOptions::default()
    })
    .unwrap();
    if unvalidated.subpass_mode() == SubpassMode::LocalRead {
        eprintln!(
            "{}: local read is supported but the validation layer predates it; drawing without validation",
            unvalidated.device_name()
        );
        invert_in_place(&unvalidated, dir.path());
    }
}

fn local_read(root: &std::path::Path) -> LibraryOptions {
    LibraryOptions {
        subpass: Some(SubpassMode::LocalRead),
        ..LibraryOptions::new(root)
    }
}

/// Draws the gradient, then inverts it in place by local read in the same rendering; every pixel must be the
/// exact inverse of the gradient's.
fn invert_in_place(ctx: &VkContext, root: &std::path::Path) {
    let mut lib = ShaderLibrary::new(ctx, registry(), local_read(root)).unwrap();
    let invert = lib
        .graphics_pipeline("test_invert_in_place", &GraphicsOptions::default())
        .unwrap();
    let gradient = lib
        .graphics_pipeline("test_gradient", &GraphicsOptions::default())
        .unwrap();
    let target = Image2D::new(
        ctx,
        SIZE,
        SIZE,
        invert.color_formats()[0],
        raw::ImageUsageFlags::COLOR_ATTACHMENT
            | raw::ImageUsageFlags::INPUT_ATTACHMENT
            | raw::ImageUsageFlags::TRANSFER_SRC,
    )
    .unwrap();
    let pool = DescriptorPool::for_layout(ctx, invert.layout(), 1).unwrap();
    let set = pool.allocate(&invert.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_input_attachment(set, 0, &target) };
    ctx.submit_and_wait(|_, cmd| {
        // SAFETY: `cmd` is recording on `ctx`'s device and the target outlives the wait.
        unsafe {
            target.transition(
                cmd,
                raw::ImageLayout::UNDEFINED,
                raw::ImageLayout::RENDERING_LOCAL_READ_KHR,
                raw::PipelineStageFlags2::NONE,
                raw::AccessFlags2::NONE,
                raw::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                raw::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            )
        }
    })
    .unwrap();
    let vertices = Buffer::with_data(ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();

    let written = draw_in_one_rendering(ctx, &gradient, None, &target, &vertices);
    let inverted = draw_in_one_rendering(ctx, &gradient, Some((&invert, set)), &target, &vertices);
    // The gradient differs from pixel to pixel, so a read of any other texel (or of the cleared attachment)
    // shows.
    assert_ne!(written[..4], written[(SIZE as usize * 4 + 1) * 4..][..4]);
    for (i, (w, r)) in written
        .chunks_exact(4)
        .zip(inverted.chunks_exact(4))
        .enumerate()
    {
        assert_eq!(r, [255 - w[0], 255 - w[1], 255 - w[2], 255], "pixel {i}");
    }
    eprintln!(
        "{}: {} pixels inverted in place by local read",
        ctx.device_name(),
        SIZE * SIZE
    );
}
