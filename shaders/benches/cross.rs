//! Translation time per module next to its shaderc compile time, side by side in one run, for modules of the
//! library from small to the largest:
//! - `compile`: shaderc on the generated Vulkan GLSL (release profile; the compiler's cache cleared each time);
//! - `portable`: the portable generation, its translation compile (shaderc, no optimizer) and naga's parse and
//!   validation — paid once per module for all targets;
//! - `translate/<target>`: naga's back end (and this library's post-processing) for one target;
//! - `check/<target>`: the independent check of that output (external tools: glslang, spirv-val, spirv-cross).
//!
//! `cargo bench -p shaders --bench cross -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use gpu::compiler::{Compiler, Profile};
use gpu::cross::{Portable, Target, check};
use gpu::flow::Flow;
use shader_info::{DirLoader, Registry, SpecValues, Stage};
use std::hint::black_box;

const MODULES: [(&str, Stage); 4] = [
    ("gpu_shader_2D_image", Stage::Fragment),
    ("gpu_compute_map", Stage::Compute),
    ("gpu_shader_forward_lit", Stage::Fragment),
    ("gpu_shader_mesh", Stage::Fragment),
];

fn bench(c: &mut Criterion) {
    let root = shaders::glsl_root();
    let (compiler, loader) = (Compiler::new(&root).unwrap(), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Release);
    for (name, stage) in MODULES {
        let info = flow.validated(name).unwrap();
        let generated = flow.generate(&info, stage).unwrap();
        let mut g = c.benchmark_group(format!("{name}.{}", stage.short_name()));
        g.bench_function("compile", |b| {
            b.iter(|| {
                compiler.clear_cache();
                black_box(
                    compiler
                        .compile_generated(&generated, Profile::Release)
                        .unwrap(),
                )
            })
        });
        g.bench_function("portable", |b| {
            b.iter(|| {
                compiler.clear_cache();
                black_box(Portable::new(&flow, &info, stage).unwrap())
            })
        });
        let portable = Portable::new(&flow, &info, stage).unwrap();
        for target in Target::ALL {
            g.bench_function(format!("translate/{target}"), |b| {
                b.iter(|| black_box(portable.translate(target, &SpecValues::default()).unwrap()))
            });
        }
        for target in Target::ALL {
            let t = portable.translate(target, &SpecValues::default()).unwrap();
            g.bench_function(format!("check/{target}"), |b| {
                b.iter(|| check::check(&portable, &t).unwrap())
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
