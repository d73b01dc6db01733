//! Push-constant blocks over 128 bytes are spilled to a storage buffer with the same std430 layout, reported, and
//! pushed with the same call and bytes: the quad is drawn in the color at the block's end on ash (lavapipe) and on
//! wgpu alike, and a second draw through the same layout sees its own block.

mod vk_support;

use shader_info::{
    Code, GenerateOptions, MemoryLoader, PushConstantSpill, Registry, ShaderCreateInfo, Stage,
    Type, generate,
};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{Buffer, raw};
use vk_support::{SIZE, graphics_pipeline, render, validated};

const VERT: &str = "void main() {\n  gl_Position = transform * vec4(pos, 0.0, 1.0);\n}\n";
const FRAG: &str = "void main() {\n  frag_color = tint * scale[2];\n}\n";

/// 64 + 64 + 16 + 3 × 16 = 192 bytes: `transform`, `unused`, `tint`, `scale[3]`.
fn info() -> ShaderCreateInfo {
    ShaderCreateInfo::new("test_wide_push")
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "frag_color")
        .push_constant(Type::Mat4, "transform")
        .push_constant(Type::Mat4, "unused")
        .push_constant(Type::Vec4, "tint")
        .push_constant_array(Type::Vec4, "scale", 3)
        .vertex_source("wide.vert.glsl")
        .fragment_source("wide.frag.glsl")
}

/// The block's bytes: identity transform, `tint` = color, `scale[2]` = 1.
fn block(color: [f32; 4]) -> Vec<u8> {
    let mut v: Vec<f32> = Vec::new();
    for m in 0..2 {
        for i in 0..16 {
            v.push(if m == 0 && i % 5 == 0 { 1.0 } else { 0.0 });
        }
    }
    v.extend(color);
    v.extend([0.0; 8]);
    v.extend([1.0; 4]);
    bytemuck::cast_slice(&v).to_vec()
}

use vk_support::HALF_QUAD as QUAD;

#[test]
fn a_wide_block_is_spilled_reported_and_declared_as_a_storage_buffer() {
    let mut reg = Registry::new();
    reg.add_info(info());
    let loader = MemoryLoader::default()
        .with("wide.vert.glsl", VERT)
        .with("wide.frag.glsl", FRAG);
    let (v, plan) = validated(&reg, "test_wide_push");
    let warning = v
        .warnings()
        .iter()
        .find(|w| w.code == Code::PushConstantTooLarge)
        .expect("the spill is reported");
    assert!(warning.message.contains("192 bytes"), "{}", warning.message);
    assert!(
        warning.message.contains("set 3 binding 0"),
        "{}",
        warning.message
    );
    let pc = plan.push_constants.as_ref().unwrap();
    assert_eq!(pc.spill, Some(PushConstantSpill { set: 3, binding: 0 }));
    let vert = generate(&v, Stage::Vertex, &GenerateOptions::new(&loader, &reg))
        .unwrap()
        .source;
    assert!(
        vert.contains("layout(std430, set = 3, binding = 0) readonly buffer _PushConstants {"),
        "{vert}"
    );
    assert!(!vert.contains("push_constant"), "{vert}");
    // The compiled module agrees with the plan (the reflection check compares the block member by member).
    let compiler = shader_info_gpu::compiler::Compiler::new(std::env::temp_dir()).unwrap();
    let flow = shader_info_gpu::flow::Flow::new(
        &reg,
        &loader,
        &compiler,
        shader_info_gpu::compiler::Profile::Release,
    );
    for stage in [Stage::Vertex, Stage::Fragment] {
        flow.compile(&v, stage)
            .unwrap_or_else(|d| panic!("{}", shader_info::render_all(&d)));
    }
    // Past the spill limit it is an error, not a warning.
    let mut big = Registry::new();
    big.add_info(
        ShaderCreateInfo::new("too_wide")
            .push_constant_array(Type::Vec4, "table", 5000)
            .local_group_size(1)
            .compute_source("x.comp"),
    );
    let d = vk_support::problems(&big, "too_wide");
    assert!(
        d.iter()
            .any(|d| d.code == Code::PushConstantTooLarge
                && d.severity == shader_info::Severity::Error),
        "{}",
        shader_info::render_all(&d)
    );
}

#[test]
fn a_spilled_block_draws_with_the_pushed_bytes_on_ash() {
    let Some(ctx) = test_context() else { return };
    let mut reg = Registry::new();
    reg.add_info(info());
    let loader = MemoryLoader::default()
        .with("wide.vert.glsl", VERT)
        .with("wide.frag.glsl", FRAG);
    let (v, plan) = validated(&reg, "test_wide_push");
    let p = graphics_pipeline(&ctx, &reg, &loader, &v, &plan).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    for color in [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]] {
        let pixels = render(&ctx, &p, &[&vb], 6, &block(color));
        let want = color.map(|c| (c * 255.0) as u8);
        assert_eq!(pixel(&pixels, SIZE, 16, 16), want);
    }
    drop((p, vb));
    assert_no_validation_messages(&ctx);
}

#[test]
fn a_spilled_block_draws_with_the_pushed_bytes_on_wgpu() {
    use shader_info_gpu::wgpu::testing::{Draw, assert_quiet, draw, vertex_buffer};
    use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.vert.glsl"), VERT).unwrap();
    std::fs::write(dir.path().join("wide.frag.glsl"), FRAG).unwrap();
    let mut reg = Registry::new();
    reg.add_info(info());
    let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let pipeline = lib
        .graphics_pipeline("test_wide_push", &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let vb = vertex_buffer(&ctx, bytemuck::cast_slice(&QUAD));
    let size = 32;
    let pixels = draw(
        &ctx,
        &pipeline,
        &Draw {
            size,
            vertex_buffer: &vb,
            vertex_count: 6,
            groups: &[],
            push: &block([0.0, 0.0, 1.0, 1.0]),
        },
    );
    let at = |x: u32, y: u32| pixels[(4 * (y * size + x)) as usize..][..4].to_vec();
    assert_eq!(at(16, 16), [0, 0, 255, 255], "inside the quad");
    drop((pipeline, lib));
    assert_quiet(&ctx);
}
