//! The shader library on a Vulkan device (lavapipe in CI, validation on): a pipeline for every graphics and compute
//! info, renders read back at known pixels (a uniform-color shape, a sampled image), specialization constants of
//! one module, and the demo frame of `shader-builder render`.
//!
//! Without Vulkan these tests skip, unless `SHADER_INFO_REQUIRE_VULKAN=1`.

use gpu::compiler::{Compiler, Profile};
use gpu::cross::{Portable, Target};
use gpu::flow::Flow;
use gpu::vk::resource::Sampler;
use gpu::vk::testing::{OffscreenDraw, draw_offscreen, glslang_hlsl, pixel, test_context};
use gpu::vk::{
    Buffer, ComputePipeline, DescriptorPool, GraphicsOptions, Image2D, LibraryOptions,
    ShaderLibrary, ShaderModule, SpecValues, VkContext, raw,
};
use shader_info::{DirLoader, Registry, Stage};
use shaders::pipelines::{PipelineKind, create_all, is_known_driver_warning};
use std::sync::Arc;

// The infos are registered by linking the crate.
use shaders as _;

/// Panics with the messages when validation (or the driver, but for lavapipe's known `invariant` warning) reported
/// anything.
fn assert_quiet(ctx: &VkContext) {
    gpu::vk::testing::assert_no_validation_messages_but(ctx, is_known_driver_warning);
}

fn library(ctx: &VkContext) -> ShaderLibrary {
    ShaderLibrary::new(
        ctx,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap()
}

#[test]
fn every_graphics_and_compute_info_of_the_library_gets_a_pipeline() {
    let Some(ctx) = test_context() else { return };
    let mut lib = library(&ctx);
    let report = create_all(&mut lib);
    let failures: Vec<String> = report
        .failed
        .iter()
        .map(|f| format!("{}: {}", f.name, f.reason))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let registry = Registry::global();
    let mut expected: Vec<String> = registry
        .infos()
        .filter(|i| i.do_static_compilation)
        .filter(|i| PipelineKind::of(&i.stages()) != PipelineKind::RayTracing)
        .map(|i| i.name.clone())
        .collect();
    expected.sort();
    let mut got: Vec<String> = report
        .created
        .iter()
        .filter(|c| c.kind != PipelineKind::RayTracing)
        // Variants are keyed `name#v<index>`.
        .map(|c| c.name.split('#').next().unwrap_or_default().to_string())
        .collect();
    got.sort();
    assert_eq!(got, expected);
    assert!(report.count(PipelineKind::Graphics) >= 19);
    assert!(report.count(PipelineKind::Compute) >= 9);
    // Ray tracing: created where supported, otherwise skipped with the reason; never a failure.
    let rt_infos = registry
        .infos()
        .filter(|i| {
            i.do_static_compilation && PipelineKind::of(&i.stages()) == PipelineKind::RayTracing
        })
        .count();
    if ctx.ray_tracing().is_some() {
        assert_eq!(report.count(PipelineKind::RayTracing), rt_infos);
    } else {
        assert_eq!(report.skipped.len(), rt_infos);
        assert!(
            report
                .skipped
                .iter()
                .all(|s| s.reason.contains("VK_KHR_ray_tracing_pipeline"))
        );
    }
    eprintln!(
        "{}: {} pipelines, compile {:.1} ms, create {:.1} ms",
        ctx.device_name(),
        report.created.len(),
        report.compile_ms(),
        report.create_ms()
    );
    drop((report, lib));
    assert_quiet(&ctx);
}

const SIZE: u32 = 32;

/// The opaque black the targets of these tests are cleared to.
const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Two triangles over `[lo, hi]²` in clip space, each corner as `pos` followed by `extra` (e.g. texCoord).
fn quad(lo: f32, hi: f32, with_uv: bool) -> Vec<f32> {
    let corners = [
        (lo, lo, 0.0, 0.0),
        (hi, lo, 1.0, 0.0),
        (hi, hi, 1.0, 1.0),
        (lo, lo, 0.0, 0.0),
        (hi, hi, 1.0, 1.0),
        (lo, hi, 0.0, 1.0),
    ];
    corners
        .iter()
        .flat_map(|&(x, y, u, v)| {
            if with_uv {
                vec![x, y, u, v]
            } else {
                vec![x, y]
            }
        })
        .collect()
}

#[test]
fn a_uniform_color_shape_and_a_sampled_image_render_at_known_pixels() {
    let Some(ctx) = test_context() else { return };
    let mut lib = library(&ctx);
    let unorm = GraphicsOptions::default();
    assert_eq!(unorm.color_format, raw::Format::R8G8B8A8_UNORM);

    // A uniform-color square over the middle half; the matrix is the identity (positions are clip space) and the
    // target is UNORM, so `srgb_target` is false and the sRGB color is stored as given.
    let p = lib
        .graphics_pipeline("gpu_shader_2D_uniform_color", &unorm)
        .unwrap();
    let vb = Buffer::with_data(
        &ctx,
        &quad(-0.5, 0.5, false),
        raw::BufferUsageFlags::VERTEX_BUFFER,
    )
    .unwrap();
    // Push block: color (vec4) at 0, ModelViewProjectionMatrix at 16, srgb_target at 80 (std430, own members
    // first, then those of the additional infos in order).
    let mut push = Vec::new();
    push.extend_from_slice(bytemuck::cast_slice(&[1.0f32, 0.2, 0.0, 1.0]));
    push.extend_from_slice(bytemuck::bytes_of(&glam::Mat4::IDENTITY));
    push.extend_from_slice(&0u32.to_ne_bytes());
    assert_eq!(
        push.len() as u32,
        p.layout().desc().push_constants.unwrap().size
    );
    let draw = OffscreenDraw {
        size: SIZE,
        clear: BLACK,
        vertex_buffers: &[&vb],
        sets: &[],
        push: &push,
        vertex_count: 6,
    };
    let pixels = draw_offscreen(&ctx, &p, &draw);
    for (x, y) in [(16, 16), (8, 8), (23, 23), (8, 23)] {
        assert_eq!(
            pixel(&pixels, SIZE, x, y),
            [255, 51, 0, 255],
            "inside at ({x}, {y})"
        );
    }
    for (x, y) in [(0, 0), (7, 7), (31, 31), (24, 16), (16, 3)] {
        assert_eq!(
            pixel(&pixels, SIZE, x, y),
            [0, 0, 0, 255],
            "outside at ({x}, {y})"
        );
    }

    // A 4×4 texture of distinct texels over the whole target through `gpu_shader_2D_image` with nearest
    // filtering: every 8×8 block of pixels is one texel, exactly (UNORM in, UNORM out, no conversion).
    let texels: Vec<[u8; 4]> = (0..16u8)
        .map(|i| [i * 16, 255 - i * 16, (i % 4) * 80, 255])
        .collect();
    let texture = Image2D::texture(
        &ctx,
        4,
        4,
        raw::Format::R8G8B8A8_UNORM,
        bytemuck::cast_slice(&texels),
    )
    .unwrap();
    let sampler = Sampler::new(&ctx, raw::Filter::NEAREST).unwrap();
    let image = lib
        .graphics_pipeline("gpu_shader_2D_image", &unorm)
        .unwrap();
    let pool = DescriptorPool::for_layout(&ctx, image.layout(), 1).unwrap();
    // The texture is at set 1 (batch frequency), binding 0.
    let set = pool.allocate(&image.layout().set_layouts()[1]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe {
        pool.write_sampled_image(
            set,
            0,
            &texture,
            &sampler,
            raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        )
    };
    let vb = Buffer::with_data(
        &ctx,
        &quad(-1.0, 1.0, true),
        raw::BufferUsageFlags::VERTEX_BUFFER,
    )
    .unwrap();
    let draw = OffscreenDraw {
        size: SIZE,
        clear: BLACK,
        vertex_buffers: &[&vb],
        sets: &[(1, set)],
        push: bytemuck::bytes_of(&glam::Mat4::IDENTITY),
        vertex_count: 6,
    };
    let pixels = draw_offscreen(&ctx, &image, &draw);
    for ty in 0..4 {
        for tx in 0..4 {
            let want = texels[(ty * 4 + tx) as usize];
            for (x, y) in [
                (tx * 8 + 1, ty * 8 + 1),
                (tx * 8 + 4, ty * 8 + 4),
                (tx * 8 + 6, ty * 8 + 6),
            ] {
                assert_eq!(
                    pixel(&pixels, SIZE, x, y),
                    want,
                    "texel ({tx}, {ty}) at pixel ({x}, {y})"
                );
            }
        }
    }
    drop((p, image, pool, texture, sampler, vb, lib));
    assert_quiet(&ctx);
}

/// The CPU reference of one specialization of `gpu_compute_map`.
type Reference = Box<dyn Fn(f32) -> f32>;

/// `gpu_compute_map`'s input (100 values: two workgroups of 64, the second partly idle, which the shader
/// bounds-checks against `count`) and its specializations with their CPU references.
fn compute_map_cases() -> (Vec<f32>, Vec<(SpecValues, Reference)>) {
    let src: Vec<f32> = (0..100).map(|i| (i as f32 - 40.0) * 0.0625).collect();
    let cases: Vec<(SpecValues, Reference)> = vec![
        (SpecValues::default(), Box::new(|x| x + 1.0)),
        (
            SpecValues::default()
                .set("OPERATION", 1u32)
                .set("OPERAND", 3.0f32),
            Box::new(|x| x * 3.0),
        ),
        (
            SpecValues::default()
                .set("OPERATION", 2u32)
                .set("OPERAND", 0.5f32),
            Box::new(|x: f32| x.max(0.5)),
        ),
        (
            SpecValues::default()
                .set("OPERATION", 1u32)
                .set("OPERAND", -2.0f32)
                .set("CLAMP_TO_UNIT", true),
            Box::new(|x: f32| (x * -2.0).clamp(0.0, 1.0)),
        ),
    ];
    (src, cases)
}

/// Runs a `gpu_compute_map` pipeline over `src` and checks every element against `expected` (one IEEE operation
/// each, and a clamp: exactly what the CPU computes) and that nothing at `count` or beyond was written.
fn run_compute_map(
    ctx: &VkContext,
    p: &ComputePipeline,
    src: &[f32],
    expected: &Reference,
    what: &str,
) {
    let input = Buffer::with_data(ctx, src, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let output = Buffer::new(ctx, 4 * 128, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    output.write_slice(&[-7.0f32; 128]).unwrap();
    let pool = DescriptorPool::for_layout(ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 0, raw::DescriptorType::STORAGE_BUFFER, &input) };
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe { pool.write_buffer(set, 1, raw::DescriptorType::STORAGE_BUFFER, &output) };
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, set and buffers live until the wait returns.
        unsafe {
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::COMPUTE, p.handle());
            d.cmd_bind_descriptor_sets(
                cmd,
                raw::PipelineBindPoint::COMPUTE,
                p.layout().handle(),
                0,
                &[set],
                &[],
            );
            let stages = p.layout().desc().push_constants.unwrap().stages;
            d.cmd_push_constants(
                cmd,
                p.layout().handle(),
                stages,
                0,
                &(src.len() as u32).to_ne_bytes(),
            );
            d.cmd_dispatch(cmd, (src.len() as u32).div_ceil(64), 1, 1);
            gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })
    .unwrap();
    let got = output.read_vec::<f32>();
    for (i, x) in src.iter().enumerate() {
        assert_eq!(got[i], expected(*x), "{what} at {i} (x = {x})");
    }
    assert!(
        got[src.len()..].iter().all(|v| *v == -7.0),
        "{what} wrote past count"
    );
}

#[test]
fn gpu_compute_map_follows_its_specialization_constants_from_one_module() {
    let Some(ctx) = test_context() else { return };
    let mut lib = library(&ctx);
    let module = lib.module("gpu_compute_map", Stage::Compute).unwrap();
    let (src, cases) = compute_map_cases();
    let mut pipelines = Vec::new();
    for (spec, expected) in &cases {
        let p = lib.compute_pipeline_with("gpu_compute_map", spec).unwrap();
        run_compute_map(&ctx, &p, &src, expected, &format!("{spec:?}"));
        pipelines.push(p);
    }
    for (i, a) in pipelines.iter().enumerate() {
        for b in &pipelines[i + 1..] {
            assert!(
                !Arc::ptr_eq(a, b),
                "each specialization is its own pipeline"
            );
        }
    }
    // Every pipeline came from the module fetched first: the library compiled and created it once.
    assert!(Arc::ptr_eq(
        &module,
        &lib.module("gpu_compute_map", Stage::Compute).unwrap()
    ));
    drop((pipelines, module, lib));
    assert_quiet(&ctx);
}

/// HLSL bakes specialization constants: each value is its own translation. Each one, compiled by glslang's HLSL
/// front end and run on the device in the Vulkan pipeline's layout (the binding map puts `t0`/`u1` at bindings
/// 0 and 1 of set 0, as in Vulkan), computes what the Vulkan pipeline computes.
#[test]
fn gpu_compute_map_translated_to_hlsl_with_baked_constants_computes_the_same() {
    let Some(ctx) = test_context() else { return };
    let mut lib = library(&ctx);
    let vulkan = lib.compute_pipeline("gpu_compute_map").unwrap();
    let plan = lib.plan("gpu_compute_map").unwrap();
    let root = shaders::glsl_root();
    let (compiler, loader) = (Compiler::new(&root).unwrap(), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
    let info = flow.validated("gpu_compute_map").unwrap();
    let portable = Portable::new(&flow, &info, Stage::Compute).unwrap();
    let (src, cases) = compute_map_cases();
    let mut keys = Vec::new();
    for (spec, expected) in &cases {
        let hlsl = portable.translate(Target::Hlsl, spec).unwrap();
        // The push-constant cbuffer becomes Vulkan push constants, as a D3D12 root constant would be.
        let push = "ConstantBuffer<_PushConstants> gpu_push_constants: register(b0, space3);";
        assert!(hlsl.text.contains(push), "{}", hlsl.text);
        let text = hlsl.text.replace(
            push,
            "[[vk::push_constant]] ConstantBuffer<_PushConstants> gpu_push_constants;",
        );
        let spirv = glslang_hlsl(&text, Stage::Compute, &hlsl.entry_point).unwrap();
        let module = ShaderModule::new(&ctx, &spirv).unwrap();
        let p = ComputePipeline::new(
            &ctx,
            &plan,
            &module,
            vulkan.layout().clone(),
            &SpecValues::default(),
        )
        .unwrap();
        run_compute_map(
            &ctx,
            &p,
            &src,
            expected,
            &format!("HLSL baked with {spec:?}"),
        );
        keys.push(portable.cache_key(Target::Hlsl, spec).unwrap());
    }
    keys.dedup();
    assert_eq!(
        keys.len(),
        cases.len(),
        "each baked value has its own cache key"
    );
    drop((vulkan, lib));
    assert_quiet(&ctx);
}

#[test]
fn the_demo_frame_has_the_requested_size_and_real_content() {
    let Some(ctx) = test_context() else { return };
    let mut lib = library(&ctx);
    let (w, h) = (192, 108);
    let frame = shaders::demo::render_frame(&mut lib, w, h).unwrap();
    assert_eq!((frame.width, frame.height), (w, h));
    assert_eq!(frame.rgba.len(), (w * h * 4) as usize);
    let black = [0, 0, 0, 255];
    // Canvas coordinates (1280 × 720) to pixels.
    let at = |cx: f32, cy: f32| {
        frame.pixel(
            (cx / 1280.0 * w as f32) as u32,
            (cy / 720.0 * h as f32) as u32,
        )
    };
    let probes = [
        ("title bar", at(640.0, 8.0)),
        ("sharp pattern", at(120.0, 184.0)),
        ("blurred pattern", at(120.0, 392.0)),
        ("sky", at(640.0, 100.0)),
        ("ground", at(640.0, 600.0)),
        ("hexagon", at(1150.0, 500.0)),
        ("smooth triangle", at(1145.0, 150.0)),
    ];
    for (what, p) in probes {
        assert_ne!(p, black, "{what}: still the clear color");
        assert_eq!(p[3], 255, "{what}: opaque");
    }
    // Regions differ from each other: the frame is a picture, not a fill.
    let mut distinct: Vec<[u8; 4]> = probes.iter().map(|(_, p)| *p).collect();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 6, "{probes:?}");
    assert!(frame.distinct_colors() > 1000);
    drop(lib);
    assert_quiet(&ctx);
    #[cfg(feature = "cli")]
    render_writes_the_same_picture(&frame, w, h);
}

/// `render` itself: the PNG on disk has the requested size and the same picture.
#[cfg(feature = "cli")]
fn render_writes_the_same_picture(frame: &shaders::demo::Frame, w: u32, h: u32) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sub").join("frame.png");
    let cache = dir.path().join("pipeline-cache");
    let render = || {
        shaders::demo::run::render_to_png(
            Registry::global(),
            &shaders::glsl_root(),
            &out,
            &shaders::demo::run::GraphicsOptions {
                size: (w, h),
                pipeline_cache: Some(cache.clone()),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("render failed although a test context exists: {e}"))
    };
    let cold = render();
    assert!(
        cold.notes
            .iter()
            .any(|n| n.contains("pipeline cache: cold")),
        "{:?}",
        cold.notes
    );
    assert!(
        cold.notes
            .iter()
            .any(|n| n.contains("pipeline cache: saved")),
        "{:?}",
        cold.notes
    );
    // A second run starts from the cache the first one saved.
    let report = render();
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("pipeline cache: warm")),
        "{:?}",
        report.notes
    );
    assert!(report.success(), "{}", report.to_text());
    assert_eq!(report.validation_messages.len(), 0);
    let png = shaders::demo::Frame::read_png(&out).unwrap();
    assert_eq!((png.width, png.height), (w, h));
    assert_eq!(
        png.difference(frame, 0).unwrap().0,
        0,
        "same device, same picture"
    );
    let json = report.to_json();
    assert_eq!(json["frame"]["width"], w);
    assert_eq!(json["validation_messages"], 0);
}
