//! Entry points named per stage: the compiled module's `OpEntryPoint` carries the name, Vulkan creates and draws
//! with it (`pName` from the module), the WGSL/MSL/HLSL translations name their functions after it, OpenGL keeps
//! `main`, and wgpu draws with the translated name.

mod vk_support;

use shader_info::{Code, DirLoader, Registry, ShaderCreateInfo, Stage, Target, Type, render_all};
use shader_info_gpu::compiler::entry_point::entry_point_name;
use shader_info_gpu::compiler::{Compiler, Profile};
use shader_info_gpu::cross::{CrossOptions, Verdict, translate_module};
use shader_info_gpu::flow::Flow;
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{
    Buffer, GraphicsOptions, GraphicsPipeline, LayoutCache, PipelineLayout, ShaderModule,
    describe_layout, raw,
};
use std::sync::Arc;
use vk_support::{SIZE, render};

const VERT: &str = "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n";
const FRAG: &str = "void main() {\n  frag_color = vec4(0.0, 1.0, 0.0, 1.0);\n}\n";
use vk_support::HALF_QUAD as QUAD;

fn info() -> ShaderCreateInfo {
    info_named("vs_quad", "fs_green")
}

fn info_named(vertex: &str, fragment: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new("test_named_entries")
        .vertex_in(0, Type::Vec2, "pos")
        .fragment_out(0, Type::Vec4, "frag_color")
        .entry_point(Stage::Vertex, vertex)
        .entry_point(Stage::Fragment, fragment)
        .vertex_source("e.vert.glsl")
        .fragment_source("e.frag.glsl")
}

fn setup() -> (tempfile::TempDir, Registry) {
    setup_with(info())
}

fn setup_with(info: ShaderCreateInfo) -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.vert.glsl"), VERT).unwrap();
    std::fs::write(dir.path().join("e.frag.glsl"), FRAG).unwrap();
    let mut reg = Registry::new();
    reg.add_info(info);
    (dir, reg)
}

#[test]
fn the_module_the_translations_and_the_device_use_the_declared_names() {
    let (dir, reg) = setup();
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Release);
    let v = flow.validated("test_named_entries").unwrap();
    let mut modules = Vec::new();
    for (stage, name) in [(Stage::Vertex, "vs_quad"), (Stage::Fragment, "fs_green")] {
        let checked = flow
            .compile(&v, stage)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        assert_eq!(
            entry_point_name(&checked.module.spirv).as_deref(),
            Some(name)
        );
        let opts = CrossOptions {
            targets: vec![
                Target::Wgsl,
                Target::Msl,
                Target::Hlsl,
                Target::Gl,
                Target::Gles,
            ],
            check: true,
            ..CrossOptions::default()
        };
        for (target, verdict) in translate_module(&flow, &v, stage, &opts) {
            let Verdict::Translated(t) = verdict else {
                panic!("{target}: {verdict:?}");
            };
            let want = if matches!(target, Target::Gl | Target::Gles) {
                "main"
            } else {
                name
            };
            assert_eq!(t.entry_point, want, "{target}");
            assert!(t.text.contains(want), "{target}:\n{}", t.text);
        }
        modules.push((stage, checked.module.spirv.clone()));
    }

    let Some(ctx) = test_context() else { return };
    let plan = flow.plan(&v);
    let vk_modules: Vec<(Stage, ShaderModule)> = modules
        .iter()
        .map(|(s, words)| (*s, ShaderModule::new(&ctx, words).unwrap()))
        .collect();
    assert_eq!(vk_modules[0].1.entry_point(), c"vs_quad");
    let refs: Vec<(Stage, &ShaderModule)> = vk_modules.iter().map(|(s, m)| (*s, m)).collect();
    let cache = LayoutCache::new(&ctx);
    let layout = Arc::new(PipelineLayout::new(&ctx, &cache, &describe_layout(&plan)).unwrap());
    let p = GraphicsPipeline::new(&ctx, &plan, &refs, layout, &GraphicsOptions::default()).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let pixels = render(&ctx, &p, &[&vb], 6, &[]);
    assert_eq!(pixel(&pixels, SIZE, 16, 16), [0, 255, 0, 255]);
    drop((p, vb, vk_modules, cache));
    assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_draws_with_the_translated_names() {
    use shader_info_gpu::wgpu::testing::{Draw, assert_quiet, draw, vertex_buffer};
    use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    // naga's WGSL writer renames what it writes: a name ending in a digit gets `_`, one ending in `_` loses it.
    // wgpu looks the entry point up by the text's name, not the declared one.
    for (vertex, fragment) in [("vs_quad", "fs_green"), ("vs_pass2", "fs_main_")] {
        let (dir, reg) = setup_with(info_named(vertex, fragment));
        let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
        let pipeline = lib
            .graphics_pipeline("test_named_entries", &GraphicsOptions::default())
            .unwrap_or_else(|e| panic!("{vertex}, {fragment}: {e}"));
        let vb = vertex_buffer(&ctx, bytemuck::cast_slice(&QUAD));
        let pixels = draw(
            &ctx,
            &pipeline,
            &Draw {
                size: 32,
                vertex_buffer: &vb,
                vertex_count: 6,
                groups: &[],
                push: &[],
            },
        );
        assert_eq!(
            pixels[(4 * (16 * 32 + 16)) as usize..][..4],
            [0, 255, 0, 255],
            "{vertex}, {fragment}"
        );
        drop((pipeline, lib));
    }
    assert_quiet(&ctx);
}

#[test]
fn a_bad_or_doubled_entry_point_is_refused() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("base_entry").entry_point(Stage::Vertex, "vs_a"));
    reg.add_info(
        info()
            .entry_point(Stage::Vertex, "vs b")
            .entry_point(Stage::Compute, "cs_main")
            .additional_info("base_entry"),
    );
    let d = vk_support::problems(&reg, "test_named_entries");
    let text = render_all(&d);
    assert!(
        d.iter().any(|d| d.code == Code::InvalidIdentifier),
        "{text}"
    );
    assert!(text.contains("entry point is named twice"), "{text}");
    assert!(
        text.contains("`vs_quad`") && text.contains("`vs_a`"),
        "{text}"
    );
    assert!(
        text.contains("comp stage, which the info does not have"),
        "{text}"
    );
}
