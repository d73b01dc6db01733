//! Every target from the library, on both backends: the checked text the static pass writes, and what a target
//! cannot express as an error with the reason.

use gpu::cross::Target;
use gpu::library::LibraryOptions;
use shader_info::{Code, Registry, Stage};

use shaders as _;

#[test]
fn both_libraries_give_every_target_s_checked_translation() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let opts = || LibraryOptions::new(shaders::glsl_root());
    let mut vk = gpu::vk::ShaderLibrary::new(&ctx, Registry::global().clone(), opts()).unwrap();
    let key = "gpu_shader_2D_image";
    let hlsl = vk.translation(key, Stage::Fragment, Target::Hlsl).unwrap();
    assert!(hlsl.text.contains("register(t0, space1)"), "{}", hlsl.text);
    let msl = vk.translation(key, Stage::Fragment, Target::Msl).unwrap();
    assert!(msl.text.contains("[[texture(0)]]"), "{}", msl.text);
    let gl = vk.translation(key, Stage::Vertex, Target::Gl).unwrap();
    assert!(gl.text.starts_with("#version 430"), "{}", gl.text);
    let wgsl = vk.translation(key, Stage::Fragment, Target::Wgsl).unwrap();
    // What a target cannot express: the reason, naming the info.
    let e = vk
        .translation("gpu_raytrace_lit", Stage::RayGen, Target::Wgsl)
        .unwrap_err()
        .into_diagnostics("gpu_raytrace_lit");
    assert_eq!(e[0].code, Code::Unsupported);
    assert!(
        e[0].message.contains("gpu_raytrace_lit"),
        "{}",
        e[0].message
    );

    let Some(wctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let mut wgpu = gpu::wgpu::WgpuLibrary::new(&wctx, Registry::global().clone(), opts()).unwrap();
    // The wgpu library's module is made from the same text.
    let module = wgpu.module(key, Stage::Fragment).unwrap();
    assert_eq!(module.translation.text, wgsl.text);
    assert_eq!(
        wgpu.translation(key, Stage::Fragment, Target::Hlsl)
            .unwrap()
            .text,
        hlsl.text
    );
}
