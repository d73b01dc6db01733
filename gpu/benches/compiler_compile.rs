//! Compile time of a typical shader: in-process shaderc (this crate, cache bypassed by clearing it) against
//! `glslc` run as a process per file with the same options, checking both produce the same SPIR-V.
//!
//! `cargo bench -p shader-info-gpu --bench compiler_compile -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use shader_info::Stage;
use shader_info_gpu::compiler::{Compiler, Profile};
use std::hint::black_box;
use std::process::Command;

const COMMON: &str = r#"
const float PI = 3.14159265;
float d_ggx(float ndh, float a) { float a2 = a * a; float d = ndh * ndh * (a2 - 1.0) + 1.0; return a2 / (PI * d * d); }
float v_smith(float ndv, float ndl, float a) {
    float k = a * 0.5;
    return 0.25 / ((ndv * (1.0 - k) + k) * (ndl * (1.0 - k) + k));
}
vec3 f_schlick(vec3 f0, float vdh) { return f0 + (1.0 - f0) * pow(1.0 - vdh, 5.0); }
"#;

const FRAG: &str = r#"#version 450
#extension GL_GOOGLE_include_directive : require
#include "common/brdf.glsl"
layout(set = 0, binding = 0) uniform View { mat4 view_proj; vec4 camera; vec4 light_dir; vec4 light_color; } view;
layout(set = 1, binding = 0) uniform sampler2D albedo_tex;
layout(set = 1, binding = 1) uniform sampler2D normal_tex;
layout(push_constant) uniform Push { vec4 tint; float roughness; float metallic; } pc;
layout(location = 0) in vec3 world_pos;
layout(location = 1) in vec3 world_normal;
layout(location = 2) in vec2 uv;
layout(location = 0) out vec4 frag_color;
void main() {
    vec3 n = normalize(world_normal + texture(normal_tex, uv).xyz * 2.0 - 1.0);
    vec3 v = normalize(view.camera.xyz - world_pos);
    vec3 l = normalize(-view.light_dir.xyz);
    vec3 h = normalize(v + l);
    float ndl = max(dot(n, l), 0.0), ndv = max(dot(n, v), 1e-4), ndh = max(dot(n, h), 0.0);
    vec3 base = texture(albedo_tex, uv).rgb * pc.tint.rgb;
    vec3 f0 = mix(vec3(0.04), base, pc.metallic);
    float a = pc.roughness * pc.roughness;
    vec3 spec = d_ggx(ndh, a) * v_smith(ndv, ndl, a) * f_schlick(f0, max(dot(v, h), 0.0));
    vec3 diff = (1.0 - pc.metallic) * base / PI;
    frag_color = vec4((diff + spec) * view.light_color.rgb * ndl, 1.0);
}
"#;

fn glslc(root: &std::path::Path, out: &std::path::Path) -> Vec<u32> {
    let st = Command::new("glslc")
        .args([
            "--target-env=vulkan1.3",
            "--target-spv=spv1.5",
            "-O",
            "-fshader-stage=frag",
        ])
        .arg(root.join("forward.frag"))
        .arg("-o")
        .arg(out)
        .status()
        .expect("glslc on PATH");
    assert!(st.success());
    std::fs::read(out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("common")).unwrap();
    std::fs::write(dir.path().join("common/brdf.glsl"), COMMON).unwrap();
    std::fs::write(dir.path().join("forward.frag"), FRAG).unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let ours = compiler
        .compile_from_file("forward.frag", Stage::Fragment, Profile::Release)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out.spv");
    let theirs = glslc(dir.path(), &out);
    assert_eq!(
        ours.spirv, theirs,
        "shaderc in process and glslc give the same SPIR-V"
    );

    let mut g = c.benchmark_group("compile_typical_fragment_release");
    g.bench_function("shaderc_in_process", |b| {
        b.iter(|| {
            compiler.clear_cache();
            black_box(
                compiler
                    .compile_from_file("forward.frag", Stage::Fragment, Profile::Release)
                    .unwrap(),
            )
        })
    });
    g.bench_function("glslc_process_per_file", |b| {
        b.iter(|| black_box(glslc(dir.path(), &out)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
