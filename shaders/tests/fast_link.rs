//! Fast link on first use (`VK_EXT_graphics_pipeline_library`, which lavapipe has): the demo frame drawn with
//! fast-linked pipelines equals the frame drawn with whole ones; the mesh ubershader's parts are shared across its
//! variants; after warming up the parts, a first use only links (strict mode accepts it), and the optimized pipeline
//! is swapped in at a later fetch. Validation on; any message fails.

use gpu::library::{LibraryOptions, PassPipelines, Variants};
use gpu::vk::ShaderLibrary;
use shader_info::Registry;
use shaders::pipelines::{graphics_options, is_known_driver_warning};
use std::time::{Duration, Instant};

use shaders as _;

fn library(ctx: &gpu::vk::VkContext) -> ShaderLibrary {
    ShaderLibrary::new(
        ctx,
        Registry::global().clone(),
        LibraryOptions::new(shaders::glsl_root()),
    )
    .unwrap()
}

/// Fails on any validation message but the layer's known pipeline-library bug and the driver's known warning.
fn quiet(ctx: &gpu::vk::VkContext) {
    gpu::vk::testing::assert_no_validation_messages_but(ctx, |m| {
        is_known_driver_warning(m) || gpu::vk::testing::is_pipeline_library_layer_bug(m)
    });
}

#[test]
fn fast_linked_pipelines_draw_the_frame_whole_ones_draw() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let mut lib = library(&ctx);
    if let Err(e) = lib.set_fast_link(true) {
        assert!(
            std::env::var("SHADER_INFO_REQUIRE_VULKAN").is_err(),
            "lavapipe has graphics pipeline libraries: {e}"
        );
        return;
    }
    let (w, h) = (320, 180);
    let fast = shaders::demo::render_frame(&mut lib, w, h).unwrap();
    let stats = lib.fast_link_stats();
    assert!(stats.linked > 10, "{stats:?}");
    drop(lib);
    let mut whole = library(&ctx);
    let reference = shaders::demo::render_frame(&mut whole, w, h).unwrap();
    drop(whole);
    let (max, _, share) = fast.difference(&reference, 0).unwrap();
    assert_eq!(
        (max, share),
        (0, 0.0),
        "fast-linked pipelines draw another picture"
    );
    quiet(&ctx);
}

#[test]
fn the_mesh_variants_share_parts_and_a_first_use_only_links() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let mut lib = library(&ctx);
    if lib.set_fast_link(true).is_err() {
        return;
    }
    let mesh = "gpu_shader_mesh";
    let set = lib
        .pipeline_set(&[PassPipelines {
            options: graphics_options(mesh),
            infos: vec![(mesh.to_string(), Variants::All)],
        }])
        .unwrap();
    // A bounded slice in CI: the first 24 variants (the long run takes them all: FAST_LINK_ALL=1).
    let take = if std::env::var("FAST_LINK_ALL").is_ok() {
        set.len()
    } else {
        24
    };
    let set = &set[..take];
    let warm = lib.warm_up_parts(set);
    assert!(warm.failed.is_empty(), "{:?}", warm.failed);
    let parts = lib.fast_link_stats().parts;
    eprintln!(
        "{} mesh pipelines from {} parts (vertex input {}, pre-rasterization {}, fragment {}, output {})",
        set.len(),
        parts.iter().sum::<usize>(),
        parts[0],
        parts[1],
        parts[2],
        parts[3]
    );
    // Shared: far fewer vertex-input and fragment-output parts than pipelines.
    assert!(
        parts[0] < set.len() / 2 && parts[3] < set.len() / 2,
        "{parts:?}"
    );
    assert_eq!(
        lib.fast_link_stats().linked,
        0,
        "warming the parts links nothing"
    );
    lib.set_strict(true);
    let mut firsts = Vec::new();
    for r in set {
        let gpu::library::WarmUp::Graphics { key, options } = r else {
            unreachable!()
        };
        let t = Instant::now();
        let p = lib.graphics_pipeline(key, options).unwrap();
        firsts.push(t.elapsed());
        assert!(p.is_fast_linked());
    }
    assert_eq!(lib.fast_link_stats().linked, set.len());
    assert_eq!(lib.stats().late_count(), 0);
    // The optimized pipelines are made in the background; a later fetch hands them out.
    let gpu::library::WarmUp::Graphics { key, options } = &set[0] else {
        unreachable!()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let p = lib.graphics_pipeline(key, options).unwrap();
        if !p.is_fast_linked() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the optimized pipeline never arrived"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(lib.fast_link_stats().optimized >= 1);
    firsts.sort();
    eprintln!(
        "first use (link only), lavapipe: p50 {:?}, max {:?}",
        firsts[firsts.len() / 2],
        firsts[firsts.len() - 1]
    );
    lib.reload().unwrap();
    drop(lib);
    quiet(&ctx);
}
