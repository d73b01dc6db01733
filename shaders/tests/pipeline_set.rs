//! The pipeline set derived from declarations, warm-up of a budgeted subset most-used first, and the late
//! counter with strict mode, through the core on both backends (lavapipe, validation on).

use gpu::library::{
    Backend, Library, LibraryOptions, PassPipelines, PipelineLog, Variants, WarmUp,
};
use shader_info::{Code, PipelineKind, Registry};
use shaders::pipelines::{graphics_options, render_options};

use shaders as _;

/// The mesh ubershader in every unique variant, plus a compute info: the set, a budgeted warm-up from a usage
/// log, then one late pipeline counted and, in strict mode, refused naming its key.
fn set_warm_up_and_late<B: Backend>(lib: &mut Library<B>, options: fn(&str) -> B::GraphicsOptions) {
    let mesh = "gpu_shader_mesh";
    let unique = lib.variants(mesh).ok().unwrap().variants.len();
    let passes = [PassPipelines {
        options: options(mesh),
        infos: vec![
            (mesh.to_string(), Variants::All),
            (
                mesh.to_string(),
                Variants::Values(vec![("SKINNING".into(), true)]),
            ),
            ("gpu_compute_histogram".to_string(), Variants::Declared),
        ],
    }];
    let set = lib.pipeline_set(&passes).ok().unwrap();
    // Every unique variant once (the SKINNING one is among them), and the compute pipeline.
    assert_eq!(set.len(), unique + 1, "{unique} unique variants");
    assert!(unique >= 800, "{unique}");
    assert_eq!(
        set.iter()
            .filter(|r| r.kind() == PipelineKind::Compute)
            .count(),
        1
    );

    // A log of an earlier run: the compute pipeline and two mesh variants were used, most to least.
    let log = PipelineLog {
        entries: vec![
            (PipelineKind::Graphics, format!("{mesh}#v5"), 40),
            (PipelineKind::Compute, "gpu_compute_histogram".into(), 12),
            (PipelineKind::Graphics, format!("{mesh}#v0"), 3),
        ],
    };
    let first = log.prioritize(&set, Some(3));
    let keys: Vec<&str> = first.iter().map(WarmUp::key).collect();
    assert_eq!(
        keys,
        [
            &format!("{mesh}#v5")[..],
            "gpu_compute_histogram",
            &format!("{mesh}#v0")
        ]
    );
    let report = lib.warm_up(&first);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!((lib.stats().warmed, lib.stats().late_count()), (3, 0));

    // Fetching a warmed pipeline creates nothing; one outside the budget is late, counted by key.
    lib.graphics_pipeline(format!("{mesh}#v5"), &options(mesh))
        .ok()
        .unwrap();
    lib.graphics_pipeline(format!("{mesh}#v1"), &options(mesh))
        .ok()
        .unwrap();
    assert_eq!(lib.stats().late.get(&format!("{mesh}#v1")), Some(&1));
    // Strict mode: a late pipeline is an error naming its key.
    lib.set_strict(true);
    let e = match lib.graphics_pipeline(format!("{mesh}#v2"), &options(mesh)) {
        Ok(_) => panic!("a late pipeline in strict mode was created"),
        Err(e) => B::diagnostics(e, mesh),
    };
    assert_eq!(e[0].code, Code::LatePipeline);
    assert!(
        e[0].message.contains(&format!("{mesh}#v2")),
        "{}",
        e[0].message
    );
    // The usage log counts every fetch, most fetched first, and survives a save and load.
    let usage = lib.usage_log();
    assert_eq!(
        usage.entries[0].1,
        format!("{mesh}#v1").min(format!("{mesh}#v5"))
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelines.json");
    usage.save(&path).unwrap();
    assert_eq!(PipelineLog::load(&path).unwrap(), usage);
    std::fs::write(&path, b"{\"version\": 9}").unwrap();
    assert!(
        PipelineLog::load(&path)
            .unwrap_err()
            .to_string()
            .contains("version 9")
    );
}

#[test]
fn the_pipeline_set_warm_up_and_late_pipelines_on_ash() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let mut lib = gpu::vk::ShaderLibrary::new(
        &ctx,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap();
    set_warm_up_and_late(&mut lib, graphics_options);
    drop(lib);
    let messages: Vec<String> = ctx
        .validation_messages()
        .into_iter()
        .filter(|m| !shaders::pipelines::is_known_driver_warning(m))
        .map(|m| m.to_string())
        .collect();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn the_pipeline_set_warm_up_and_late_pipelines_on_wgpu() {
    let Some(ctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let mut lib = gpu::wgpu::WgpuLibrary::new(
        &ctx,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap();
    set_warm_up_and_late(&mut lib, render_options);
    drop(lib);
    gpu::wgpu::testing::assert_quiet(&ctx);
}

/// `shader-builder build --json` reports the set derived without a device: the demo frame's pipelines (as the
/// backends warm them) and the mesh ubershader's full set per pass.
#[test]
fn the_build_reports_the_pipeline_set_without_a_device() {
    let root = shaders::glsl_root();
    let compiler = gpu::compiler::Compiler::new(&root).unwrap();
    let loader = shader_info::DirLoader::new(&root);
    let flow = gpu::flow::Flow::new(
        Registry::global(),
        &loader,
        &compiler,
        gpu::compiler::Profile::Release,
    );
    let report = shaders::pipelines::pipeline_set_report(&flow).unwrap();
    let passes = shaders::demo::passes::describe(Registry::global(), 1280, 720).unwrap();
    let set = shaders::demo::passes::pipeline_set(&passes, graphics_options);
    assert_eq!(report["demo"]["pipelines"], set.len());
    assert_eq!(
        report["demo"]["entries"].as_array().unwrap().len(),
        set.len()
    );
    let graphics = report["demo"]["graphics"].as_u64().unwrap();
    let compute = report["demo"]["compute"].as_u64().unwrap();
    assert!(graphics > 0 && compute > 0 && graphics + compute == set.len() as u64);
    let mesh = &report["mesh_all_variants"];
    let unique = flow
        .variants(&flow.validated("gpu_shader_mesh").unwrap())
        .unwrap()
        .variants
        .len();
    assert_eq!(mesh["pipelines_per_pass"], unique);
    assert!(mesh["permutations"].as_u64().unwrap() > unique as u64);
}
